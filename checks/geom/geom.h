/* geom.h — the "geom" rubric (DiagramIR): its checks, its tolerances, and
 * the per-diagram scene every check reads.
 *
 * The scene is built once per diagram (scene.c and its parts scene_*.c,
 * which share scene_internal.h): the drawn strokes broken
 * into straight segments and classified (figure line, mark, tick, grid…),
 * the texts parsed into labels (names, lengths, areas, angles), right-angle
 * and angle-arc marks (tikz2ir's roles, plus hand-drawn ones recognised
 * geometrically), clip regions and extents. Checks only read it.
 *
 * Every tolerance is a named constant below, explained in
 * diagramir-rubrics(7). Lengths are in TeX points unless the name says EM
 * (multiples of the label's font size).
 */
#ifndef DIAGRAMIR_CHECKS_GEOM_H
#define DIAGRAMIR_CHECKS_GEOM_H

#include <math.h>

#include "checks/geom/request.h"
#include "checks/rubric.h"
#include "ir/geom_2d.h"
#include "ir/geom_3d.h"

/* --- tolerances --------------------------------------------------------- */
/* Every tolerance is a run-time parameter (irlint --param NAME=VALUE,
 * --params FILE, --list-params): GEOM_PARAMS lists each once, with its
 * default, unit, the range irlint accepts, whether it was chosen by looking
 * at rated items ("fitted") or follows from TeX and the rubric ("derived"),
 * and, for fitted ones, the candidate values `make agreement-cv` chooses
 * among on its training folds. Lengths are in TeX points unless the unit
 * says em (multiples of the label's font size). What each one means is said
 * beside its GEOM_ name below and in diagramir-rubrics(7).
 *
 * X(field, name, default, unit, lo, hi, fitted, grid) */
#define GEOM_PARAMS(X)                                                               \
    X(join_eps_pt, "join-eps", 0.75, "pt", 1e-3, 20, 1, "0.25,0.5,0.75,1,1.5")           \
    X(dot_merge_pt, "dot-merge", 3.0, "pt", 0, 100, 1, "1.5,2,3,4,6")                    \
    X(angle_tol_deg, "angle-tol", 6.0, "deg", 0, 90, 1, "2,3,4,6,8,10,15")               \
    X(right_tol_deg, "right-tol", 5.0, "deg", 0, 45, 1, "2,3,5,8,10")                    \
    X(arc_span_min, "arc-span-min", 0.5, "", 0, 1, 1, "0.3,0.4,0.5,0.6,0.75")             \
    X(arc_span_max, "arc-span-max", 2.0, "", 1, 100, 1, "1.25,1.5,2,3,4")                 \
    X(angle_reach_em, "angle-reach", 6.0, "em", 0, 1000, 1, "3,4,6,8,10")                \
    X(length_tol, "length-tol", 0.20, "", 0, 10, 1, "0.05,0.1,0.15,0.2,0.25,0.3,0.4")     \
    X(receding_min, "receding-min", 3, "", 1, 100, 1, "2,3,4")                           \
    X(frontal_tol_deg, "frontal-tol", 10.0, "deg", 0, 45, 1, "5,8,10,12,15")             \
    X(foreshorten_min, "foreshorten-min", 0.35, "", 0, 1, 1, "0.2,0.25,0.35,0.5,0.7")    \
    X(area_tol, "area-tol", 0.30, "", 0, 10, 1, "0.1,0.2,0.3,0.4,0.5")                   \
    X(label_reach_em, "label-reach", 2.5, "em", 0, 1000, 1, "1.5,2,2.5,3,4")             \
    X(ambiguity, "ambiguity", 1.15, "", 1, 100, 1, "1,1.05,1.1,1.15,1.25,1.4")           \
    X(label_slack_em, "label-slack", 0.5, "em", 0, 100, 1, "0,0.25,0.5,1")               \
    X(depth_tol, "depth-tol", 0.02, "", 0, 1, 1, "0.005,0.01,0.02,0.05,0.1")             \
    X(face_overlap_frac, "face-overlap", 0.05, "", 0, 1, 1, "0.01,0.02,0.05,0.1,0.2")    \
    X(proj_fit_tol_pt, "proj-fit-tol", 1.0, "pt", 0, 1000, 1, "0.25,0.5,1,2,4")          \
    X(hidden_line_pt, "hidden-line", 3.0, "pt", 0, 1000, 1, "1,2,3,4,6")                 \
    X(arc_cross_deg, "arc-cross", 15.0, "deg", 0, 180, 1, "5,10,15,20,30")               \
    X(text_overlap_frac, "text-overlap", 0.10, "", 0, 1, 1, "0.02,0.05,0.1,0.15,0.2,0.3")\
    X(text_core_frac, "text-core", 0.25, "", 0, 0.5, 1, "0.1,0.15,0.2,0.25,0.3,0.4")     \
    X(frame_tol_pt, "frame-tol", 3.0, "pt", 0, 1000, 1, "0.5,1,2,3,4,6")                 \
    X(page_w_pt, "page-width", 469.75, "pt", 1, 1e6, 0, "")                              \
    X(page_h_pt, "page-height", 650.43, "pt", 1, 1e6, 0, "")                             \
    X(min_fitted_font_pt, "min-fitted-font", 10.0, "pt", 0, 1000, 1, "6,8,10,10.95,12")    \
    X(min_font_pt, "min-font", 6.0, "pt", 0, 1000, 1, "4,5,6,7,8")                       \
    X(min_figure_pt, "min-figure", 36.0, "pt", 0, 1e6, 1, "18,24,36,48,72")              \
    X(min_shape_em, "min-shape", 1.0, "em", 0, 1000, 1, "0.5,0.75,1,1.5,2")              \
    X(close_gap_frac, "close-gap", 0.10, "", 0, 1, 1, "0.02,0.05,0.1,0.15,0.2")          \
    X(closed_visible, "closed-visible", 0.5, "", 0, 1, 1, "0.3,0.4,0.5,0.6,0.7")          \
    X(mark_frac, "mark-frac", 0.45, "", 0, 10, 1, "0.3,0.4,0.45,0.5,0.6")                \
    X(mark_max_pt, "mark-max", 36.0, "pt", 0, 1e6, 1, "18,24,36,48")                     \
    X(tick_max_pt, "tick-max", 14.0, "pt", 0, 1e6, 1, "8,10,14,18,24")                   \
    X(default_font_pt, "default-font", 12.0, "pt", 1, 1000, 0, "")                      \
    X(collinear_deg, "collinear-tol", 1.0, "deg", 0, 45, 1, "0.5,1,2,3")                 \
    X(along_deg, "along-tol", 2.0, "deg", 0, 45, 1, "1,2,3,5")                           \
    X(same_dir_deg, "same-dir-tol", 3.0, "deg", 0, 45, 1, "1,2,3,5")                     \
    X(dim_match, "dim-match", 0.05, "", 0, 1, 1, "0.02,0.05,0.1")                        \
    X(dot_max_pt, "dot-max", 4.0, "pt", 0, 1000, 1, "2,3,4,5,6")                         \
    X(corner_min_deg, "corner-min", 3.0, "deg", 0, 45, 1, "1,2,3,5")                     \
    X(ray_min_pt, "ray-min", 3.0, "pt", 0, 1000, 1, "1,2,3,4,6")                         \
    X(mark_sides, "mark-sides", 2.0, "", 1, 100, 1, "1.5,2,3")                           \
    X(tick_side, "tick-side", 3.0, "", 1, 100, 1, "2,3,4,6")                             \
    X(tick_span, "tick-span", 0.2, "", 0, 0.5, 1, "0.1,0.2,0.3")                         \
    X(tick_end, "tick-end", 0.02, "", 0, 0.5, 1, "0.01,0.02,0.05")                       \
    X(tick_angle_deg, "tick-angle", 45.0, "deg", 0, 90, 1, "30,45,60")                   \
    X(axes_distinct_deg, "axes-distinct", 5.0, "deg", 0, 90, 1, "2,3,5,8")               \
    X(min_segment_em, "min-segment", 0.5, "em", 0, 100, 1, "0.25,0.5,1")                 \
    X(label_overhang, "label-overhang", 0.05, "", 0, 1, 1, "0,0.05,0.1,0.2")             \
    X(arc_label_deg, "arc-label-slack", 10.0, "deg", 0, 180, 1, "5,10,15,20")            \
    X(outline_frac, "outline-frac", 0.5, "", 0, 1, 1, "0.25,0.5,0.75")                   \
    X(text_cross_pt, "text-cross-min", 0.5, "pt", 0, 1000, 1, "0.25,0.5,1,2")

typedef struct {
#define GEOM_FIELD(f, n, d, u, lo, hi, fit, g) double f;
    GEOM_PARAMS(GEOM_FIELD)
#undef GEOM_FIELD
} geom_tolerances;

/* The values in force: the defaults until irlint sets a parameter (before
 * any diagram is checked; checks only read them). */
extern geom_tolerances geom_tol;
/* The parameter table of the geom rubric (chk_rubric.params). */
#define GEOM_COUNT_PARAM(f, n, d, u, lo, hi, fit, g) +1
#define GEOM_NPARAMS (0 GEOM_PARAMS(GEOM_COUNT_PARAM))
extern const chk_param geom_params[GEOM_NPARAMS];

/* Two points closer than this are the same point (joins, vertices). */
#define GEOM_JOIN_EPS_PT        (geom_tol.join_eps_pt)
/* A vertex dot and a corner closer than this are one labeled point. */
#define GEOM_DOT_MERGE_PT       (geom_tol.dot_merge_pt)
/* A stated angle matches the drawn one within this many degrees. */
#define GEOM_ANGLE_TOL_DEG      (geom_tol.angle_tol_deg)
/* A right-angle mark needs a drawn angle within 90 +- this. */
#define GEOM_RIGHT_TOL_DEG      (geom_tol.right_tol_deg)
/* An angle arc spans between these fractions of the angle it sits in. */
#define GEOM_ARC_SPAN_MIN       (geom_tol.arc_span_min)
#define GEOM_ARC_SPAN_MAX       (geom_tol.arc_span_max)
/* An angle label belongs to a corner within this many ems of it. */
#define GEOM_ANGLE_REACH_EM     (geom_tol.angle_reach_em)
/* Labeled lengths: drawn/stated scale factors may differ by this ratio. */
#define GEOM_LENGTH_TOL         (geom_tol.length_tol)
/* Receding edges: a solid's depth edges come in at least this many
 * parallel, equal, slanted lines. */
#define GEOM_RECEDING_MIN       (geom_tol.receding_min)
/* Lines within this of horizontal or vertical are read as frontal. */
#define GEOM_FRONTAL_TOL_DEG    (geom_tol.frontal_tol_deg)
/* A receding edge may be drawn down to this fraction of its frontal scale. */
#define GEOM_FORESHORTEN_MIN    (geom_tol.foreshorten_min)
/* Labeled areas: drawn/stated area (in the lengths' scale) may differ by this. */
#define GEOM_AREA_TOL           (geom_tol.area_tol)
/* A label sits next to the element it labels: within this many ems. */
#define GEOM_LABEL_REACH_EM     (geom_tol.label_reach_em)
/* A label is ambiguous when a competing element is no farther than this
 * factor times the distance to its own element (distances measured from
 * the label's box, plus GEOM_LABEL_SLACK_EM). */
#define GEOM_AMBIGUITY          (geom_tol.ambiguity)
#define GEOM_LABEL_SLACK_EM     (geom_tol.label_slack_em)
/* Depth order: where filled faces overlap by more than
 * GEOM_FACE_OVERLAP_FRAC of the smaller one, the face painted last must not
 * lie behind another by more than GEOM_DEPTH_TOL of the faces' size. */
#define GEOM_DEPTH_TOL          (geom_tol.depth_tol)
#define GEOM_FACE_OVERLAP_FRAC  (geom_tol.face_overlap_frac)
/* 3D coordinates: the picture must be one parallel projection of them
 * (up to a picture-plane shift per path), every point within this of its
 * fitted place (points are written to 0.001pt; a scope with its own z
 * vector does not fit). Paths shifted alike are one placement. */
#define GEOM_PROJ_FIT_TOL_PT    (geom_tol.proj_fit_tol_pt)
/* A solid line with 3D coordinates may show through a face in front of it
 * for at most this length (a line's width at a corner is not seen). */
#define GEOM_HIDDEN_LINE_PT     (geom_tol.hidden_line_pt)
/* An angle arc may overshoot a side of its angle by this much; past it,
 * the arc crosses the line instead of stopping at it. */
#define GEOM_ARC_CROSS_DEG      (geom_tol.arc_cross_deg)
/* Text overlap: boxes sharing more than this fraction of the smaller box. */
#define GEOM_TEXT_OVERLAP_FRAC  (geom_tol.text_overlap_frac)
/* A stroke crosses text when it passes through the text's box shrunk by
 * this fraction of the box's smaller side on every side. */
#define GEOM_TEXT_CORE_FRAC     (geom_tol.text_core_frac)
/* In frame: drawn content may overhang a clip by this much (a vertex dot's
 * radius plus half a line: marks sitting on the clip's edge). */
#define GEOM_FRAME_TOL_PT       (geom_tol.frame_tol_pt)
/* Readable size: the page a picture must fit (6.5in x 9in, a letter page's
 * text block), the smallest font size, the smallest picture, and the
 * smallest figure relative to its labels' font size. */
#define GEOM_PAGE_W_PT          (geom_tol.page_w_pt)
#define GEOM_PAGE_H_PT          (geom_tol.page_h_pt)
#define GEOM_MIN_FONT_PT        (geom_tol.min_font_pt)
/* A picture shown shrunk to the page stays readable while its labels come
 * out at least this large: 10pt, the \footnotesize of the raters' 12pt
 * class, the size the class itself sets plot tick labels in. Chosen with
 * the dev items in view, so fitted: its grid is the class's sizes
 * (\tiny, \scriptsize, \footnotesize, \small, \normalsize). */
#define GEOM_MIN_FITTED_FONT_PT (geom_tol.min_fitted_font_pt)
#define GEOM_MIN_FIGURE_PT      (geom_tol.min_figure_pt)
#define GEOM_MIN_SHAPE_EM       (geom_tol.min_shape_em)
/* Shape closed: an open outline whose ends come within this fraction of its
 * perimeter (but do not meet) was meant to be closed. */
#define GEOM_CLOSE_GAP_FRAC     (geom_tol.close_gap_frac)
/* A requested closed shape cut by a clip region still reads as closed when
 * at least this fraction of its outline is inside (request_match.c). */
#define GEOM_CLOSED_VISIBLE     (geom_tol.closed_visible)
/* Mark size: right-angle squares and angle arcs are at most this fraction
 * of the shortest side they mark, and at most GEOM_MARK_MAX_PT. */
#define GEOM_MARK_FRAC          (geom_tol.mark_frac)
#define GEOM_MARK_MAX_PT        (geom_tol.mark_max_pt)
/* Tick marks: short strokes (at most this long) across a figure line. */
#define GEOM_TICK_MAX_PT        (geom_tol.tick_max_pt)
/* Default font size when the IR gives none (the IM class uses 12pt). */
#define GEOM_DEFAULT_FONT_PT    (geom_tol.default_font_pt)
/* Directions: two lines within GEOM_COLLINEAR_DEG are one line (segments
 * joined into a run, rays merged at a vertex, a solid's edges grouped); a
 * dimension line or a label's baseline runs along a side within
 * GEOM_ALONG_DEG; an arc's end or a side continued lies on a ray, and two
 * sides are parallel, within GEOM_SAME_DIR_DEG. */
#define GEOM_COLLINEAR_DEG      (geom_tol.collinear_deg)
#define GEOM_ALONG_DEG          (geom_tol.along_deg)
#define GEOM_SAME_DIR_DEG       (geom_tol.same_dir_deg)
/* A dimension line measures a side when their lengths differ by at most
 * this fraction. */
#define GEOM_DIM_MATCH          (geom_tol.dim_match)
/* A filled circle of at most this radius is a vertex dot. */
#define GEOM_DOT_MAX_PT         (geom_tol.dot_max_pt)
/* Two rays at a point meet at a corner when they differ by more than this
 * from straight (and from folding back); a drawn triangle's angles and an
 * angle arc's sweep are at least this. */
#define GEOM_CORNER_MIN_DEG     (geom_tol.corner_min_deg)
/* Lines shorter than this are no rays of a corner. */
#define GEOM_RAY_MIN_PT         (geom_tol.ray_min_pt)
/* A right-angle mark's two legs differ by at most this ratio. */
#define GEOM_MARK_SIDES         (geom_tol.mark_sides)
/* A tick mark: a short stroke crossing a side at least GEOM_TICK_SIDE
 * times its length, within its middle (GEOM_TICK_SPAN of the side kept
 * clear at each end), the tick crossed away from its own ends
 * (GEOM_TICK_END), at GEOM_TICK_ANGLE_DEG or more to the side. */
#define GEOM_TICK_SIDE          (geom_tol.tick_side)
#define GEOM_TICK_SPAN          (geom_tol.tick_span)
#define GEOM_TICK_END           (geom_tol.tick_end)
#define GEOM_TICK_ANGLE_DEG     (geom_tol.tick_angle_deg)
/* Recovered 3D axes: the three edge directions of a solid differ pairwise
 * by at least this (solid.c). */
#define GEOM_AXES_DISTINCT_DEG  (geom_tol.axes_distinct_deg)
/* Lines shorter than this many ems are not what a label measures. */
#define GEOM_MIN_SEGMENT_EM     (geom_tol.min_segment_em)
/* A length label beside a side projects onto it, up to this fraction of
 * its length past either end. */
#define GEOM_LABEL_OVERHANG     (geom_tol.label_overhang)
/* A point's name inside an angle arc's sweep (give or take this) names the
 * angle. */
#define GEOM_ARC_LABEL_DEG      (geom_tol.arc_label_deg)
/* The outlines a requested shape is drawn as are at least this fraction of
 * the figure's longest closed outline (request_match.c). */
#define GEOM_OUTLINE_FRAC       (geom_tol.outline_frac)
/* A stroke crosses a text's core when at least this much of it is inside. */
#define GEOM_TEXT_CROSS_PT      (geom_tol.text_cross_pt)

/* Derived constants (not parameters: they follow from how the IR is
 * written, not from rated items). */
/* Sizes equal up to rounding: the IR writes coordinates to 0.001pt, so two
 * sides of a few pt drawn equal differ by far less than 1%. */
#define GEOM_SAME_SIZE          0.01
/* A crossing inside both segments, not at an end: 1% in from each end
 * (an end rounded to 0.001pt on a side of 0.1pt or more). */
#define GEOM_INTERIOR           0.01
/* Messages only: a point is named by a name within this many ems. */
#define GEOM_NAME_REACH_EM      1.5
/* Lattice fit of recovered 3D coordinates (solid.c): 2% of the shortest
 * axis step plus 0.05pt, a rounding of the IR's 0.001pt coordinates
 * through a few operations. */
#define GEOM_LATTICE_REL        0.02
#define GEOM_LATTICE_ABS        0.05
/* A face is seen edge-on, neither toward nor away from the viewer, when
 * the line of sight's component along its unit normal is within this of 0:
 * sin 3 deg (0.052), the angle at which a face of a 1in solid drawn at
 * 72pt/in narrows to under 4pt, a line's width at the corner. Derived, not
 * fitted. */
#define GEOM_EDGE_ON            0.05

/* --- what an element's attributes say (read once per diagram) ----------- */
typedef enum {
    ROLE_NONE, ROLE_VERTEX, ROLE_RIGHT_ANGLE, ROLE_ANGLE_MARK, ROLE_GRID, ROLE_AXIS,
    ROLE_AXIS_LABEL, ROLE_TICK, ROLE_OTHER
} geom_role;

typedef struct {
    const char *draw, *fill, *dash, *arrows, *xyz, *clip, *id, *vertex, *tex, *of, *along,
        *size;
    unsigned char role;       /* geom_role */
    unsigned char stroked;    /* draw is not none */
    unsigned char filled;     /* fill is given and not none */
    unsigned char dashed;     /* dash is given and not solid */
    unsigned char dim;        /* arrows with a tip: a dimension line or pointer */
    unsigned char self_fill;  /* stroked in the colour of its own fill */
} geom_attrs;

/* --- segments ----------------------------------------------------------- */
typedef enum {
    SEG_FIGURE,   /* a line of the figure itself */
    SEG_DIM,      /* arrowed line: dimension line or pointer */
    SEG_MARK,     /* right-angle mark or angle arc */
    SEG_TICK,     /* congruence tick mark */
    SEG_GRID,     /* grid line */
    SEG_AXIS,     /* coordinate axis */
    SEG_FRAME     /* outline of a text node (draw= on a node with text) */
} geom_seg_class;

typedef struct {
    ir_pt a, b;
    double len;          /* drawn (2D) length */
    double len3;         /* length in the 3D source coordinates, -1 if none */
    size_t elem;         /* index of the element in the diagram */
    int line;
    geom_seg_class cls;
    int curved;          /* piece of a flattened arc/ellipse/curve */
    int visible;         /* stroked (draw != none) */
    int dashed;
    int comp;            /* connected component of figure segments, -1; set on
                            first use: call geom_need_comps before reading it */
    unsigned char shared[2]; /* a, b: exactly an end of another visible figure segment */
} geom_seg;

/* --- texts -------------------------------------------------------------- */
typedef enum {
    TXT_EMPTY,
    TXT_NAME,        /* point / vertex name: A, B', P_1 */
    TXT_LENGTH,      /* a stated length: 5, 7 cm, h = 8, r = 3 */
    TXT_AREA,        /* a stated area: Area = 40, 12 cm^2 */
    TXT_ANGLE,       /* a stated angle in degrees: 30° */
    TXT_ANGLE_NAME,  /* names an angle without a value: θ, x°, ∠ABC */
    TXT_VAR,         /* an unknown length: x, ?, a */
    TXT_COORD,       /* a point's coordinates: (2, 3) */
    TXT_DIMS,        /* a shape's dimensions: 3 x 4, 2 cm by 5 cm */
    TXT_OTHER        /* titles, sentences, anything else */
} geom_text_kind;

typedef struct {
    size_t elem;
    int line;
    ir_box box;          /* the text box from the IR */
    ir_pt c;             /* its centre */
    double size;         /* font size, pt */
    geom_text_kind kind;
    double value;        /* stated number (length, area, degrees) */
    int has_value;
    char unit[8];        /* "cm", "in", ... or "" */
    double dims[3];      /* TXT_DIMS: the stated sides; TXT_COORD: x, y */
    int ndims;
    char quantity;       /* 'r' radius, 'd' diameter, 'h' height, 'p' perimeter, 0 */
    int has_of;          /* label=/pin=: the point it labels */
    ir_pt of;
    int has_along;       /* placed on a path: the segment it sits on */
    ir_pt along_a, along_b;
    int opaque;          /* filled background hides what lies under it */
    int framed;          /* drawn inside an outline (node with draw=) */
    int axis_label;      /* names a plot axis (role=axis-label) */
    ir_box frame_box;
    char show[48];       /* short printable form for reasons */
} geom_text;


/* --- marks -------------------------------------------------------------- */
typedef enum { MARK_RIGHT, MARK_ARC } geom_mark_kind;

typedef struct {
    geom_mark_kind kind;
    size_t elem;
    int line;
    ir_pt vertex;        /* the corner it marks */
    int has_vertex;
    ir_pt c;             /* centre of the mark's ink */
    double size;         /* radius of an arc, side of a square */
    double d1, d2;       /* arcs: directions (deg) from vertex to its two ends */
    int explicit_role;   /* role= given by the front end */
} geom_mark;

/* --- shapes (closed regions) -------------------------------------------- */
typedef struct {
    size_t elem;
    int line;
    const ir_pt *pts;    /* outline (flattened) */
    size_t n;
    double area;         /* unsigned */
    int round;           /* ellipse / circle */
    ir_pt centre;        /* round ones only (the ellipse's centre); (0, 0) else */
    double radius;       /* circles: mean radius */
} geom_shape;

/* --- solids: polylines and faces given with 3D coordinates -------------- */
typedef struct {
    size_t elem;
    int line;
    const ir_pt *p2;     /* picture points */
    ir_pt3 *p3;          /* their 3D coordinates */
    size_t n;
    int closed;          /* a polygon (a face); else an open polyline */
    int filled;          /* hides what was drawn before under it */
    int stroked;         /* its outline is drawn */
    int dashed;          /* ... with a dash pattern (a hidden edge) */
    int inferred;        /* 3D coordinates recovered from the picture (solid.c) */
    double sarea;        /* filled ones: ir_poly_area(p2, n), signed; else 0 */
    int group;           /* placement: polylines sharing one translation of the
                            projection (separate canvas shifts are separate
                            placements); -1 when it does not fit the projection */
    ir_box box;
} geom_face;

typedef struct {
    size_t elem;
    ir_box box;          /* clip region's box */
    ir_kind sub;
    const ir_elem *e;
    ir_pt *pts;          /* outline of a poly/ellipse region, NULL for a rect */
    size_t n;
    ir_box grown, shrunk;  /* box grown / shrunk by GEOM_FRAME_TOL_PT (ir_box_inset) */
} geom_clip;

typedef struct {
    const ir_diagram *d;
    const char *src;     /* src= of the diagram, or its id */
    geom_seg *segs;
    size_t nsegs;
    geom_text *texts;
    size_t ntexts;
    geom_mark *marks;
    size_t nmarks;
    geom_shape *shapes;
    size_t nshapes;
    geom_clip *clips;
    size_t nclips;
    ir_pt *dots;         /* vertex dots and named points that are drawn corners */
    size_t ndots;
    ir_box ink;          /* everything drawn, strokes and texts */
    ir_box figure;       /* figure segments and shapes only (no text, grid) */
    geom_attrs *attrs;   /* per element */
    const ir_pt **flat;  /* per element: the outline of an ellipse, arc, curve or
                            rectangle the scene drew as segments (ir_elem_flatten's
                            points, nflat of them), NULL for the others */
    size_t *nflat;
    unsigned char *frame;  /* per element: 1 when it is a text node's outline */
    size_t *coords;      /* the elements that are named coord records (named
                            nodes' centres and coordinates), in order */
    double *coord_reach; /* per coords entry: how far from it its node's
                            border may lie (scene.c, coord_reach: a cache,
                            -1 until first asked) */
    size_t ncoords;
    int *clip_of;        /* per element: index of the clip it is drawn in, -1 */
    int is3d;            /* some element carries xyz= */
    geom_face *faces;    /* every polyline with 3D coordinates, in drawing order */
    size_t nfaces;
    int has_proj;        /* the projection of the 3D coordinates is known */
    double proj_m[2][3];
    ir_pt3 view;         /* toward the viewer (right-handed frame) */
    int ncomps;          /* set by geom_need_comps */
    int has_ticks;       /* some segment is a SEG_TICK */
    const geom_request *req;  /* what the diagram was asked to show (irlint
                                 --request), NULL when not given; set by the
                                 rubric after geom_scene_build */
} geom_scene;

geom_scene *geom_scene_build(const ir_diagram *d);
void geom_scene_free(geom_scene *s);
/* Memory that lives as long as the scene (freed with it). */
void *geom_scene_alloc(geom_scene *s, size_t bytes);
/* Sets the segments' comp and the scene's ncomps (once; the scene is built
 * without them). Checks reading comp call it first. */
void geom_need_comps(const geom_scene *s);

/* Indices of the segments whose extent (grown by GEOM_JOIN_EPS_PT) meets
 * box b, each once, into *buf (grown as needed; caller frees). Returns the
 * count. */
size_t geom_segs_near(const geom_scene *s, ir_box b, size_t **buf, size_t *cap);

/* How the clip region element elem is drawn in treats the outline points
 * p: 0 all inside (or not clipped), 1 cut (partly outside by more than
 * GEOM_FRAME_TOL_PT), 2 entirely outside. *out: the farthest overhang. */
int geom_clip_relation(const geom_scene *s, size_t elem, const ir_pt *p, size_t n, double *out);

/* Unit-cube drawings without 3D coordinates: recover the faces' lattice
 * coordinates from the picture (solid.c), and which way the viewer is
 * (+1 as fitted, -1 flipped, 0 unknown). */
void geom_infer_lattice(geom_scene *s);
int geom_lattice_viewer_side(const geom_scene *s);

/* Text parsing (labels.c). Fills kind, value, unit, quantity, show. */
void geom_parse_label(const char *plain, const char *tex, geom_text *t);

/* Directions (deg) of the straight figure lines leaving point v: segments
 * ending at v, and both ways along segments passing through it. Rays
 * shorter than min_len are ignored; near-equal directions merged. Returns
 * the count (at most max), sorted ascending. */
size_t geom_rays_at(const geom_scene *s, ir_pt v, double min_len, double *dirs, size_t max);
/* The angle (deg) a viewer reads at corner v in direction dir (deg): the
 * smallest sector between two rays that contains dir; when dir lies in a
 * reflex gap, the sector of the rays closest to it. *r1, *r2 (may be NULL)
 * receive the rays. Returns -1 when v has fewer than two rays. */
double geom_angle_at(const geom_scene *s, ir_pt v, double dir, double *r1, double *r2);
/* The drawn angle (deg) at a mark's vertex, in the sector the mark sits in;
 * -1 when the mark is not at a corner. */
double geom_mark_angle(const geom_scene *s, const geom_mark *m, double *r1, double *r2);
/* The corner (point with at least two non-collinear rays) nearest p within
 * reach; returns 1 and sets *v. */
int geom_nearest_corner(const geom_scene *s, ir_pt p, double reach, ir_pt *v, double *dist);
/* The figure's corners (see geom_nearest_corner) inside zone. With out
 * NULL, returns how many there are; else writes at most max of them and
 * returns that. */
size_t geom_corners(const geom_scene *s, ir_box zone, ir_pt *out, size_t max);
/* Distance from text box to segment i. */
static inline double geom_text_seg_dist(const geom_text *t, const geom_seg *g)
{
    return ir_seg_box_dist(g->a, g->b, t->box);
}
/* A printable name for a point: the coordinate/vertex name at it, else a
 * nearby one-letter label, else "(x,y)". */
const char *geom_point_name(const geom_scene *s, ir_pt p, char *buf, size_t n);
/* A lower bound of geom_text_seg_dist(t, g) as computed: the gap between
 * the segment's extent and the text box along x or along y (no point of
 * one is nearer the other), less 1e-9 (1 + the sum of the coordinates'
 * magnitudes), far above the rounding of either computation. NaN when a
 * coordinate is. A search may pass over a segment whose bound already
 * exceeds what it looks for (tests/unit/test_lint_seg_gap.c). */
static inline double geom_text_seg_gap(const geom_text *t, const geom_seg *g)
{
    double lox = g->a.x < g->b.x ? g->a.x : g->b.x, hix = g->a.x < g->b.x ? g->b.x : g->a.x;
    double loy = g->a.y < g->b.y ? g->a.y : g->b.y, hiy = g->a.y < g->b.y ? g->b.y : g->a.y;
    double gx = t->box.x1 - hix > lox - t->box.x2 ? t->box.x1 - hix : lox - t->box.x2;
    double gy = t->box.y1 - hiy > loy - t->box.y2 ? t->box.y1 - hiy : loy - t->box.y2;
    double c = fabs(t->box.x1) + fabs(t->box.x2) + fabs(t->box.y1) + fabs(t->box.y2) +
               fabs(g->a.x) + fabs(g->a.y) + fabs(g->b.x) + fabs(g->b.y);
    return (gx > gy ? gx : gy) - 1e-9 * (1 + c);
}
/* 1 when segment i may carry a length label (figure or dimension line,
 * straight, visible). */
static inline int geom_seg_measurable(const geom_seg *g)
{
    return (g->cls == SEG_FIGURE || g->cls == SEG_DIM) && !g->curved && g->visible &&
           g->len > 0;
}
/* A line from `from` whose end p stops on a named node's border (tikz2ir
 * draws "(A) -- (B)" so, as TikZ does): the line aimed at a coord record's
 * point and ending short of it by no more than the node's size (its text
 * box or outline, plus half an em and 1pt). Returns that coord element's
 * index + 1, or 0. */
size_t geom_end_on_node(const geom_scene *s, ir_pt p, ir_pt from);
/* Font size used for reach computations. */
static inline double geom_em(const geom_text *t)
{
    return t->size > 0 ? t->size : GEOM_DEFAULT_FONT_PT;
}

/* --- blame: the elements a verdict is about (scene_corners.c) -----------
 * These search the scene: call them on the way to a verdict of no, after
 * chk_set (which empties the blame). */
/* The straight figure lines (and dimension lines) leaving v in direction
 * dir (deg, within 1 deg), as geom_rays_at finds them. */
void geom_blame_ray(const geom_scene *s, ir_pt v, double dir, chk_verdict *out);
/* What marks point p: the vertex dots at it (within GEOM_DOT_MERGE_PT),
 * else the straight lines ending at or running through it. */
void geom_blame_point(const geom_scene *s, ir_pt p, chk_verdict *out);

/* --- the checks ---------------------------------------------------------- */
void geom_angle_labels(const ir_diagram *d, const void *ctx, chk_verdict *v);
void geom_length_proportions(const ir_diagram *d, const void *ctx, chk_verdict *v);
void geom_in_frame(const ir_diagram *d, const void *ctx, chk_verdict *v);
void geom_readable_size(const ir_diagram *d, const void *ctx, chk_verdict *v);
void geom_label_association(const ir_diagram *d, const void *ctx, chk_verdict *v);
void geom_no_overlap(const ir_diagram *d, const void *ctx, chk_verdict *v);
void geom_shape_closed(const ir_diagram *d, const void *ctx, chk_verdict *v);
void geom_core_math(const ir_diagram *d, const void *ctx, chk_verdict *v);

/* The drawing against the request (s->req; request_match.c): each returns
 * 1 after setting *v to no, else 0, adding to *checked the facts of the
 * request it compared with the drawing. Nothing without a request. */
int geom_request_math(const geom_scene *s, chk_verdict *v, int *checked);
/* Three faces of one box (axis-aligned rectangles with 3D coordinates,
 * drawn one after another, meeting at a corner, the box's other faces not
 * drawn) that no parallel projection shows together: returns 1 with their
 * elements, the line of the first and "-y, +z, +x" (their outward sides)
 * in why. Boxes that are cubes of the unit-cube size are view_cubes'
 * (request_match.c). */
int geom_box_faces_unseen(const geom_scene *s, size_t bad[3], int *line, char *why, size_t nwhy);
int geom_request_closed(const geom_scene *s, chk_verdict *v, int *checked);

/* Cells of a uniform grid over the box all for n items: about one item per
 * cell, cells at least min_cs wide, at most max_cells per side, with a 1pt
 * margin (scene_index.c; no_overlap.c's face grid and the segment grid
 * use it). */
typedef struct { double cs, inv, x0, y0; int nx, ny; } geom_grid_plan;
geom_grid_plan geom_grid_layout(ir_box all, size_t n, double min_cs, int max_cells);
/* The cell of coordinate v (origin o), clamped to [-1, n] in double
 * before the cast (NaN: -1), so that no value overflows an int. */
static inline int geom_grid_cell(double v, double o, double inv, int n)
{
    if (n <= 1) return isnan(v) ? -1 : 0;
    double c = floor((v - o) * inv);
    if (!(c >= -1)) return -1;
    if (c > (double)n) return n;
    return (int)c;
}
/* The cells [i0..i1] x [j0..j1] a box covers, clamped to the grid (none,
 * i0 > i1 or j0 > j1, when it lies outside it or has a NaN side). */
static inline void geom_grid_cells(const geom_grid_plan *g, ir_box b, int *i0, int *j0, int *i1, int *j1)
{
    *i0 = geom_grid_cell(b.x1, g->x0, g->inv, g->nx);
    *i1 = geom_grid_cell(b.x2, g->x0, g->inv, g->nx);
    *j0 = geom_grid_cell(b.y1, g->y0, g->inv, g->ny);
    *j1 = geom_grid_cell(b.y2, g->y0, g->inv, g->ny);
    if (*i0 < 0) *i0 = 0;
    if (*j0 < 0) *j0 = 0;
    if (*i1 >= g->nx) *i1 = g->nx - 1;
    if (*j1 >= g->ny) *j1 = g->ny - 1;
    if (isnan(b.x1) || isnan(b.x2)) *i1 = -1;
    if (isnan(b.y1) || isnan(b.y2)) *j1 = -1;
}

#endif
