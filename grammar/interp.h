/* interp.h — the TikZ interpreter's state and the functions its parts call
 * in one another. Internal to grammar/ and its tests (the public contract is
 * tikz.h).
 *
 * The parts, each calling only the ones above it, or its own layer:
 *   texexp.c         the TeX tokenizer and macro expander (texexp.h)
 *   textmetrics.c    the size of node text as TeX typesets it (textmetrics.h)
 *   pgfmath.y/.l     pgfmath expressions (pgfmath.h)
 *   textutil.c       text helpers; a text with its macros expanded
 *   diag.c           warnings and unparsed records
 *   emit.c           attributes of IR elements (numbers, xyz=, draw/fill/lw)
 *   tikztext.c       node text broken into lines (text width=)
 *   tikzopt.c, coord.c, node.c: one layer, in one another by TikZ's own
 *                    nature: options (tikzopt.c) hold coordinates
 *                    (shift={(A)}) and name nodes (right=of A); coordinates
 *                    hold options (([xshift=1cm]A)) and name nodes; nodes
 *                    apply their options
 *   let.c, pic.c     the let operation, the angles library's pics
 *   decorate.c       decorations (pgf's decoration automata on a polyline)
 *   plot.c           the plot operation's options, handlers and marks
 *   path.l, path.y   the path grammar (pathgrammar.h), whose actions are
 *   pathbuild.c      the path builder, which runs a path (tk_run_path)
 *   matrix.c         \matrix and node[matrix]: cells run as code, laid out
 *                    as pgf's matrix module does (placed by pathbuild.c)
 *   tikzaxis.c       pgfplots axes and \addplot
 *   tikz.c           the commands: \draw, \def, \foreach, environments,
 *                    tikz_convert */
#ifndef DIAGRAMIR_INTERP_H
#define DIAGRAMIR_INTERP_H

#include "grammar/tikz.h"
#include "grammar/pathgrammar.h"
#include "grammar/texexp.h"
#include "ir/ir.h"
#include "grammar/textmetrics.h"

typedef struct { double x, y; } vec2;
typedef struct { double x, y, z; } vec3;
/* x' = a x + c y + e;  y' = b x + d y + f */
typedef struct { double a, b, c, d, e, f; } mat;

#include <math.h>
#include <stdint.h>
#include <string.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_SQRT2
#define M_SQRT2 1.41421356237309504880
#endif

/* ---- matrices ------------------------------------------------------------- */

static inline mat mat_id(void) { mat m = { 1, 0, 0, 1, 0, 0 }; return m; }

/* m ∘ t: apply t first, then m */
static inline mat mat_mul(mat m, mat t)
{
    mat r;
    r.a = m.a * t.a + m.c * t.b;
    r.b = m.b * t.a + m.d * t.b;
    r.c = m.a * t.c + m.c * t.d;
    r.d = m.b * t.c + m.d * t.d;
    r.e = m.a * t.e + m.c * t.f + m.e;
    r.f = m.b * t.e + m.d * t.f + m.f;
    return r;
}

static inline vec2 mat_apply(mat m, vec2 p)
{
    vec2 r = { m.a * p.x + m.c * p.y + m.e, m.b * p.x + m.d * p.y + m.f };
    return r;
}

static inline vec2 mat_lin(mat m, vec2 p)
{
    vec2 r = { m.a * p.x + m.c * p.y, m.b * p.x + m.d * p.y };
    return r;
}

static inline vec2 mat_inv_apply(mat m, vec2 p)
{
    double det = m.a * m.d - m.b * m.c;
    if (fabs(det) < 1e-12) return p;
    double x = p.x - m.e, y = p.y - m.f;
    vec2 r = { (m.d * x - m.c * y) / det, (-m.b * x + m.a * y) / det };
    return r;
}

static inline vec2 v2(double x, double y) { vec2 r = { x, y }; return r; }
static inline vec2 vadd(vec2 a, vec2 b) { return v2(a.x + b.x, a.y + b.y); }
static inline vec2 vsub(vec2 a, vec2 b) { return v2(a.x - b.x, a.y - b.y); }
static inline vec2 vscale(vec2 a, double s) { return v2(a.x * s, a.y * s); }
static inline double vlen(vec2 a) { return hypot(a.x, a.y); }

#define DEG (M_PI / 180.0)


#define TK_COLOR 40
#define TK_PIN_EDGE_MAX 160       /* pin edge= options: at most this less one byte */
#define TK_NODE_DISTANCE_MAX 64   /* node distance=: the first this less one bytes */
#define TK_MAXPTS 64
/* TeX's largest dimension: a point beyond it is "Dimension too large" */
#define TK_MAX_DIMEN_PT 16383.99998
/* samples= is kept within 2 to this (more: warning, clamped) */
#define TK_MAX_SAMPLES 10000

enum { TK_SET_ANGLE_RADIUS = 1, TK_SET_ANGLE_ECC = 2, TK_SET_PIN_DISTANCE = 4 };

typedef struct {
    mat ctm;
    vec2 xv, yv, zv;          /* coordinate unit vectors, pt */
    char color[TK_COLOR];     /* current color */
    char drawc[TK_COLOR];     /* stroke color when drawn ("" = use color) */
    char fillc[TK_COLOR];
    int draw, fill;           /* path is stroked / filled */
    double lw;
    double opacity, draw_opacity, fill_opacity;   /* 1: opaque */
    char dash[24];
    char arrows[24];
    double rounded;
    int overlay;
    double font_size;
    int bold;
    double label_distance;
    double inner_sep, outer_sep;
    double min_w, min_h;
    int node_shape;           /* shape= of a scope: a TK_SH_ value + 1 (0: unset) */
    int poly_sides;           /* regular polygon sides= of a scope (0: unset) */
    double aspect;            /* aspect= of a scope (0: unset) */
    double border_rotate;     /* shape border rotate= of a scope */
    /* shapes.misc keys of a scope (0: unset; the node takes pgf's default) */
    double rr_arc;            /* rounded rectangle arc length= (degrees) */
    int rr_west, rr_east;     /* rounded rectangle west/east arc=: TK_ARC_ value + 1 */
    double ch_angle;          /* chamfered rectangle angle= (degrees) */
    double ch_xsep, ch_ysep;  /* chamfered rectangle xsep=, ysep= (pt; < 0: unset) */
    int ch_corners;           /* chamfered rectangle corners=: TK_CH_ mask | TK_CH_SET */
    int star_points;          /* star points= (0: unset) */
    double star_ratio, star_height;  /* star point ratio=, height= (0: unset) */
    int star_by_height;       /* the last of them set was star point height */
    /* Texts set rarely and read rarely, kept out of the struct (tk_gs_push
     * copies it for every path and scope): interned by tk_intern, never
     * written through, shared by every state that has them. */
    const char *node_distance;   /* positioning: node distance= (as written, at most 63 bytes) */
    const char *mx_amp;          /* ampersand replacement= set outside a matrix (matrix.c) */
    int on_grid;              /* positioning: on grid */
    int transform_shape;      /* transform shape: nodes take the CTM's scale and rotation */
    char *every_node;         /* option text applied to every node (owned) */
    char *every_label;
    int tex_depth;            /* the expander's group depth when the state was pushed:
                                 every node/label set deeper are saved (tk_set_every) */
    char role[24];
    int clip;                 /* index (1-based) of the innermost clip, 0 none */
    /* arc/circle/grid parameters */
    double radius_x, radius_y;
    int radius_x_unit, radius_y_unit;   /* 0: in xy units */
    int has_radius;
    double start_angle, end_angle, delta_angle;
    int has_start, has_end, has_delta;
    vec2 step;
    int has_step;
    /* to-path */
    double bend;              /* degrees, + left */
    double in_a, out_a;
    int has_in, has_out;
    /* to path= (tikz.code.tex \tikz@to@path): TK_TO_LINE, the default
     * "-- (\tikztotarget) \tikztonodes"; TK_TO_CURVE, the curve bend,
     * in= and out= switch on (topaths library); TK_TO_USER, to_path's text
     * (interned), with \tikztostart, \tikztotarget, \tikztonodes */
    int to_kind;
    int to_relative;          /* relative (bend left, bend right set it):
                                 out= and in= from the line start-target */
    const char *to_path;
    /* plot */
    double dom0, dom1;
    int samples;
    char *name_path;          /* owned */
    char *name_isect;         /* owned: "of=A and B, by={P,Q}" */
    /* right angle symbol */
    int ra_quadrant;
    double ra_len;
    int in_axis;
    int scale_only_axis;
    /* libraries angles and quotes, and pins */
    double angle_radius;      /* pt (angle radius=; default 5mm) */
    double angle_ecc;         /* angle eccentricity= (default .6) */
    double pin_distance;      /* pt (pin distance=; default 3ex) */
    unsigned lib_set;         /* which of the three are set (TK_SET_...) */
    const char *pin_edge;     /* pin edge= options (interned, at most TK_PIN_EDGE_MAX - 1 bytes) */
    /* the 3D frame: a point (x,y,z) written in this scope is s3*(x,y,z)+t3 in
     * the picture's xyz frame (picture-plane shifts do not change it; rotations
     * and non-uniform scales end it: ok3 = 0) */
    double s3;
    vec3 t3;
    int ok3;
    /* trees (child operations, pathbuild.c): level distance=, sibling
     * distance= (pt), grow= (degrees), grow' (swap), the tree level at which
     * grow was last set (TikZ's special level: children of that level are
     * not spread), the level of the current children, missing, parent
     * anchor= and child anchor= ("" for the border) */
    double level_dist, sib_dist, grow_angle;
    int grow_swap, grow_special, tree_level, child_missing;
    char parent_anchor[24], child_anchor[24];
    char growth_anchor[24];   /* growth parent anchor= ("" for center) */
    /* decorations (decorate.c): decoration= options as written, joined
     * (interned as node_distance is), and the path's decorate option */
    const char *decoration;
    int decorate;
    /* plots (plot.c): the handler (TK_PLOT_...; plot_other: its index in
     * plot.c's table), tension=, mark=, mark size= (pt; 0: 2pt),
     * variable= ("" for \x), samples at= (interned, NULL: domain and samples) */
    int plot_handler;
    unsigned char plot_other;
    double plot_tension;
    char plot_mark[12];
    double mark_size;
    char plot_var[16];
    const char *samples_at;
    double bar_width, bar_shift;   /* ybar, xbar: bar width= (0: 10pt), bar shift= */
} gstate;

enum { TK_PLOT_SHARP, TK_PLOT_SMOOTH, TK_PLOT_SMOOTH_CYCLE, TK_PLOT_SHARP_CYCLE,
       TK_PLOT_MARKS_ONLY, TK_PLOT_XCOMB, TK_PLOT_YCOMB, TK_PLOT_CONST, TK_PLOT_POLAR_COMB,
       TK_PLOT_YBAR, TK_PLOT_XBAR, TK_PLOT_YBAR_INTERVAL, TK_PLOT_XBAR_INTERVAL, TK_PLOT_OTHER };

typedef struct {
    char *name;
    vec2 c;                   /* centre (canvas) */
    double hw, hh;            /* half width/height of the shape incl. outer sep */
    double by;                /* baseline y offset from centre */
    int shape;                /* TK_SH_...: 0 coordinate, 1 rectangle, 2 circle, ... */
    vec3 p3;                  /* position in the picture's xyz frame */
    int has3;
    /* shapes.geometric: ellipse (hw, hh: the radii incl. outer sep),
     * diamond (hw, hh: half diagonals incl. outer sep), regular polygon
     * (hw = hh: pgf's anchor radius, corners at start + k*360/sides) */
    int sides;
    double start;             /* degrees: the polygon's first corner */
    double rot;               /* degrees: the node's rotate= (every shape: its
                                 anchors and border turn with it) */
    /* shapes.misc (node.c), in the node's own frame, centre at 0:
     * rounded rectangle: mx, my the half width and height of its straight
     * part, mr and ma its arcs' radius and half angle (degrees), mchord and
     * marc how far a convex arc's chord reaches past mx and how wide a
     * concave arc is, mflags its west arc | east arc << 2 (TK_ARC_);
     * chamfered rectangle: mx, my its inner half sizes (xa, ya of pgf),
     * mr, ma the chamfer's x and y reach past them (xb, yb), mchord, marc
     * how far it cuts into the top and side (xc, yc), mflags the corners
     * cut (TK_CH_); mos: the outer sep of both */
    double mx, my, mr, ma, mchord, marc, mos;
    int mflags;
} tk_node;

/* TK_SH_RRECT and TK_SH_CHAMF have their own outline, border and anchors
 * (node.c); cross out and strike out are rectangles (their nodes are
 * TK_SH_RECT) whose outline is the cross or the stroke; forbidden sign and
 * correct forbidden sign (TK_SH_FORBID, TK_SH_CFORBID) are circles with a
 * stroke across; TK_SH_STAR (shapes.geometric) has sides star points, its
 * first outer point at start, mr and ma its outer and inner radius, mos
 * its outer sep */
enum { TK_SH_COORD, TK_SH_RECT, TK_SH_CIRCLE, TK_SH_ELLIPSE, TK_SH_DIAMOND, TK_SH_POLYGON,
       TK_SH_RRECT, TK_SH_CHAMF, TK_SH_CROSSOUT, TK_SH_STRIKEOUT, TK_SH_FORBID, TK_SH_CFORBID,
       TK_SH_STAR };
/* the ends of a rounded rectangle */
enum { TK_ARC_NONE, TK_ARC_CONVEX, TK_ARC_CONCAVE };
/* the corners of a chamfered rectangle */
enum { TK_CH_NE = 1, TK_CH_NW = 2, TK_CH_SW = 4, TK_CH_SE = 8, TK_CH_ALL = 15, TK_CH_SET = 16 };

typedef struct {
    char *name;
    char *val;                /* option text */
    size_t nlen;              /* strlen(name): set by tk_define_style, which makes every style */
    int level;                /* the expander's group depth it was defined at: the
                                 style ends with that group (tk_styles_group_end) */
} tk_style;

typedef struct {
    char *name;
    vec2 *pts;
    size_t n;
} tk_namedpath;

/* pgfplots axis */
typedef struct {
    double xmin, xmax, ymin, ymax;
    double w, h;              /* axis box, pt */
    vec2 origin;              /* canvas of the box's lower-left corner */
    int active;
} tk_axis;

typedef struct tikz {
    tikz_config *cfg;
    tex_ctx *tex;
    ir_diagram *d;            /* current picture, NULL outside */
    int npictures;
    gstate *gs;               /* stack */
    size_t ngs, capgs;
    tk_node *nodes;
    size_t nnodes, capnodes;
    size_t *node_hash;        /* index of nodes by name (slot: index + 1) */
    size_t node_hcap, node_hidx;  /* capacity; number of nodes indexed */
    tk_style *styles;
    size_t nstyles, capstyles;
    size_t style_floor;       /* styles below are the session's: never modified */
    /* every node/every label values a TeX group changed in a graphics state
     * pushed outside it, put back when the group ends (tk_styles_group_end),
     * as TeX's save stack puts back a local definition */
    struct tk_everysave { size_t gs; int label; int depth; char *old; } *esave;   /* label 2: graphsset; 3: tk_gs_local's state */
    size_t nesave, capesave;
    size_t style_bytes;       /* the texts of T->styles and T->esave (bounded: a style
                                 appended to in each of many nested groups is kept
                                 once per group) */
    /* tk_find_style's filter: the bit (tikzopt.c, style_bit) of every style
     * tk_define_style made, which makes every style. Bits are never cleared
     * (styles dropped at the end of a picture keep theirs): a clear bit means
     * no style has that name; a set one, maybe. */
    uint64_t style_filter[4];
    tk_namedpath *paths;
    size_t npaths, cappaths;
    int nclips;
    /* the last node tk_place_node placed (a tree's parent) */
    tk_node last_placed;
    int last_placed_ok;
    char last_placed_name[64];  /* its name= ("" without one, or a longer one) */
    tk_axis axis;
    /* pgf's picture box so far (current bounding box): every path's points
     * (curves with their control points), widened by half the line width
     * when stroked, and every node's shape; overlay ones not */
    ir_box pgfbox;
    /* the graphs library's node sets (new set=, set=): each a name and its
     * nodes' names, in the order they joined; set_pending: the sets the
     * node being placed joins (its set= keys), '\n' after each */
    struct tk_nodeset { char *name; char **nodes; size_t n, cap; } *sets;
    size_t nsets, capsets;
    char *set_pending;
    int foreach_depth;
    long iterations;
    long statements;          /* drawing commands so far (work bound) */
    /* open groups: 1 '{', 2 \begin; each keeps the document's font as it
     * was when it opened (a size switch outside a picture is undone at the
     * group's end, as TeX undoes it) */
    struct { int kind, line, col; double doc_fs; int doc_font; } *gk;
    /* the document's current font outside pictures (\small, \tiny ...,
     * \fontsize{..}{..}): 0 the class's size (12pt); a picture starts in it */
    double doc_fs;
    int doc_font;             /* its TM_FONT_* flags (bold) */
    size_t ngk, capgk;
    size_t gk_floor;          /* groups below it were opened outside the code tk_run_code runs: not closable in it */
    vec3 last3;               /* the last coordinate as written: raw xyz, or (has3 3) absolute */
    int last3_kind;           /* 0 none, 1 2D unitless, 2 3D, 3 absolute (named) */
    vec3 cur3;                /* the last tk_coord point in the picture's xyz frame */
    int cur3_ok;
    int any3d;                /* the picture used (x,y,z) coordinates */
    int fatal;                /* an input error occurred */
    tikz_sink sink;
    void *sink_ctx;
    int cmd_line;             /* line of the current command */
    int cmd_col;              /* its column */
    size_t pic_base;          /* graphics-state depth outside the picture */
    int sentinel_id;
    void *path_scanner;       /* the path grammar's scanner, created once */
    struct tp_extra path_x;   /* its state and buffers */
    struct tk_pathbufs {      /* the path builder's buffers, reused from path to path */
        vec2 *sub;            /* the subpath's points */
        vec3 *sub3;           /* their xyz */
        size_t capsub;
        void *pieces;         /* the pieces (pathbuild.c) */
        size_t cappieces;
        char *pool;           /* the pieces' points */
        size_t poolcap, poolused, poolwant;
    } pbufs;
    int path_busy;            /* a path is being run (path_scanner in use) */
    unsigned char *cskind;    /* run()'s command of each control-sequence id (0: not yet known) */
    size_t ncskind;
    struct tk_optcache *optcache;   /* tikzopt.c: option lists split, by text */
    struct tk_xyzcache *xyzcache;   /* emit.c: xyz= texts of points */
    struct tk_interned *interned;   /* tikzopt.c: tk_intern's texts, freed with the scanner */
    int scoped_depth;         /* \scoped commands being run (tikz.c) */
    int pic_depth;            /* pics being run (pic.c) */
    int to_depth;             /* user to paths being run (pathbuild.c) */
    void *to_nodes;           /* \tikztonodes of the to path being run: its
                                 pending nodes (pathbuild.c), NULL none */
    int n_to_nodes;
    int perp_depth;           /* (p |- q) inside (p |- q) (coord.c) */
    char *graphsset;          /* \tikzgraphsset keys so far (graph.c; owned, NULL none) */
    struct tk_ufn *ufn;       /* pgfuser.c: declared pgfmath functions */
    size_t nufn, capufn;
    struct tk_mxcell *mxcell; /* matrix.c: the matrix cell being run (NULL outside) */
} tikz;

#define GS(T) (&(T)->gs[(T)->ngs - 1])

enum { TK_TO_LINE, TK_TO_CURVE, TK_TO_USER };
#define TK_MAX_TO_DEPTH 16        /* user to paths inside user to paths */

/* diag.c: a warning "file:line:col: warning: ..." (counted; at most 50 shown) */
void tk_warn(tikz *T, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An unparsed record of src in the picture, and a warning saying why */
void tk_unparsed(tikz *T, int line, const char *src, const char *why);

/* textutil.c: text helpers */
void tk_unbrace(const char **s, size_t *n);    /* trims, strips enclosing {...} */
long tk_find_top(const char *s, size_t n, char ch);  /* first ch outside (), {}, [] */
/* The next sep-separated item of s[0..n) from *i on, a sep inside (), {} or
 * [] not counting: sets *it and *in to it, trimmed (possibly empty), moves
 * *i past its sep; 0 when there is none left. */
int tk_next_item(const char *s, size_t n, char sep, size_t *i, const char **it, size_t *in);
/* The end of s[i..n) at depth 0 of the first byte in stops, skipping {...},
 * [...], (...) when paren, and "..." (n when none) */
size_t tk_scan_to(const char *s, size_t i, size_t n, const char *stops, int paren);
/* An item it[0..in) of a key=value list split at its first '=' outside (),
 * {}, []: the key trimmed in *k, *kn; the value trimmed and unbraced in *v,
 * *vn (NULL and 0 without '='). Returns the offset of that '=' in the item,
 * or -1. */
long tk_split_kv(const char *it, size_t in, const char **k, size_t *kn, const char **v, size_t *vn);
/* The quotes library's syntax on an edge ("text"' options, TikZ: edge
 * quotes mean=edge node={node [every edge quotes, ', options]{text}}): the
 * items of opts that are not quotes go to plain, each after a ','; each
 * quote, in order, is handed to each(ctx, ...) as the node's options
 * "S,options" and its text, S being qstyle (the every edge quotes options;
 * "@AUTO@" for the default, auto) with auto written @AUTOL@, or @AUTOR@
 * when ' swaps the side. A quote not closed stays among the plain items. */
/* One item of the quotes syntax, it[0..in) = "text"' options: the text's
 * length in *tn (the text is it + 1) and the options, trimmed and unbraced,
 * in *rest, *rn. Returns 1 when ' swaps the side, 0 when not, -1 when the
 * item is not a closed quote. */
int tk_quote_parts(const char *it, size_t in, size_t *tn, const char **rest, size_t *rn);
typedef void tk_quote_fn(void *ctx, const char *opts, size_t on, const char *text, size_t tn);
void tk_split_quotes(const char *opts, const char *qstyle, struct tp_buf *plain, tk_quote_fn *each,
                     void *ctx);
/* A tk_quote_fn: appends " node[opts]{text}" to the tp_buf ctx */
void tk_quote_as_node(void *ctx, const char *opts, size_t on, const char *text, size_t tn);
/* Expands the macros in a text (a style body, say), malloc'd. */
char *tk_expand_text(tikz *T, const char *s, size_t n);

/* isspace() of the C locale (no program calls setlocale) */
static inline int tk_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* spaces off both ends of a view */
static inline void tk_trim(const char **s, size_t *n)
{
    while (*n && tk_space((unsigned char)**s)) { (*s)++; (*n)--; }
    while (*n && tk_space((unsigned char)(*s)[*n - 1])) (*n)--;
}

/* the view equals w (inline: strlen of a literal is a constant, and the
 * length test comes first) */
static inline int tk_is(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    return n == wl && memcmp(s, w, wl) == 0;
}

/* tikz.c */
/* A macro's parameter text or body as tex_define takes it: #1..#9 become
 * T_ARG tokens, ## becomes #. */
void tk_params_to_args(toklist *l);

/* tikzopt.c */
void tk_gs_push(tikz *T);
void tk_gs_pop(tikz *T);
void tk_gs_init(gstate *g);
/* s[0,n) as a NUL-terminated text, one copy per distinct text, for the
 * graphics state's rarely set texts (pin_edge, node_distance). It lives
 * while a graphics state on T's stack points to it: a later tk_intern may
 * free the texts none points to (tk_path_scanner_free frees them all), so
 * hold one nowhere else across a call that may set pin edge= or node
 * distance=. */
const char *tk_intern(tikz *T, const char *s, size_t n);
void tk_intern_free(tikz *T);
/* Applies an option list. node: node options collected here when non-NULL. */
struct tk_nodeopts;
void tk_apply_opts(tikz *T, const char *s, size_t n, struct tk_nodeopts *no, int depth);
void tk_optcache_free(tikz *T);
void tk_define_style(tikz *T, const char *name, size_t nn, const char *val, size_t vn, int append);
const char *tk_find_style(tikz *T, const char *name, size_t n);
/* Sets the current graphics state's every node (label 0) or every label
 * (label 1) option text, or the \tikzgraphsset keys (label 2, T->graphsset),
 * to v (owned, may be NULL), saving the old one when a TeX group opened
 * since the state was pushed (for label 2: in each group). */
void tk_set_every(tikz *T, int label, char *v);
/* Before \tikzset in a picture changes the graphics state: when a TeX group
 * opened since the state was pushed, a state of the group's own, popped
 * when the group ends (keys such as node distance= are local in TeX). */
void tk_gs_local(tikz *T);
/* The expander's group depth (0 without an expander, as in unit tests) */
static inline int tk_group_depth(const tikz *T) { return T->tex ? tex_group_depth(T->tex) : 0; }
/* A TeX group ended, depth groups are still open: the styles defined and
 * every node/label values set in it are undone (TeX's \pgfkeys definitions
 * are local to the group). */
void tk_styles_group_end(tikz *T, int depth);
/* Frees the saved every node/label values (tikz_fini). */
void tk_styles_free_saves(tikz *T);
int tk_is_color(const char *s, size_t n);
const char *tk_memmem(const char *s, size_t n, const char *w);
/* Evaluates a dimension or number (pgfmath); number without unit = pt when
 * unitless_pt, else returned with *has_unit = 0. Returns 0 ok, -1 error. */
int tk_eval(tikz *T, const char *s, size_t n, double *v, int *has_unit);
double tk_eval_dim(tikz *T, const char *s, size_t n, double dflt);

/* node.c: named nodes, node options, placing a node */
typedef struct tk_nodeopts {
    char anchor[24];
    int has_anchor;
    double shift_x, shift_y;  /* pt, from above=.. etc. */
    int has_of;               /* positioning: right=of A ... placed the node at of_at */
    vec2 of_at;               /* canvas */
    double pos;
    int has_pos;
    int shape;                /* TK_SH_RECT, TK_SH_CIRCLE, ... */
    int sides;                /* regular polygon sides= (5) */
    double border_rotate;     /* shape border rotate= (degrees) */
    double aspect;            /* aspect= (diamond; 1) */
    double rr_arc;            /* rounded rectangle arc length= (degrees; 180) */
    int rr_west, rr_east;     /* rounded rectangle west/east arc= (TK_ARC_; convex) */
    double ch_angle;          /* chamfered rectangle angle= (degrees; 45) */
    double ch_xsep, ch_ysep;  /* chamfered rectangle xsep=, ysep= (pt; < 0: .666ex) */
    int ch_corners;           /* chamfered rectangle corners= (TK_CH_ mask; all) */
    int star_points;          /* star points= (5) */
    double star_ratio, star_height;  /* star point ratio= (1.5), height= (.5cm) */
    int star_by_height;       /* the outer radius is the inner plus star point height */
    int draw, fill;
    char drawc[TK_COLOR], fillc[TK_COLOR], textc[TK_COLOR];
    double inner_sep_x, inner_sep_y, outer_sep;
    double min_w, min_h;
    double font_size;
    int bold;
    double rotate;
    struct tk_label { char *spec; int pin; } *labels;   /* label= and pin= options */
    int nlabels, caplabels;
    char *name;
    char role[24];
    int sloped;
    double lw;
    double text_width;        /* text width= (pt; 0 none) */
    int align;                /* align= (TK_ALIGN_...) */
    int has_box;              /* matrix.c: the text is a box of box_w x (box_h + box_d) */
    double box_w, box_h, box_d;
} tk_nodeopts;

void tk_nodeopts_init(tikz *T, tk_nodeopts *no);
void tk_nodeopts_free(tk_nodeopts *no);
/* Adds a label= (pin = 0) or pin= (pin = 1) option to a node's options. */
void tk_nodeopts_add_label(tikz *T, tk_nodeopts *no, const char *spec, size_t n, int pin);
/* Keys of the angles and quotes libraries and of pins (angle radius, pin
 * distance, ...): 1 when the key was one of them. */
int tk_apply_lib_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn);
tk_node *tk_find_node(tikz *T, const char *name, size_t n);
/* The canvas point of a node's anchor (compass name, corner N, angle, ...);
 * -1 when the anchor is unknown. */
int tk_node_anchor(tikz *T, const tk_node *nd, const char *a, size_t an, vec2 *out);
vec2 tk_node_border_toward(const tk_node *nd, vec2 target);
/* The outline of a rounded or chamfered rectangle node in its own frame
 * (centre at 0, not rotated), its arcs as points at most 5 degrees apart:
 * the number of points written to p (at most TK_SHAPE_PTS), 0 for other
 * shapes. */
#define TK_SHAPE_PTS 160
size_t tk_shape_outline(const tk_node *nd, vec2 *p);
void tk_add_node(tikz *T, const char *name, vec2 c, double hw, double hh, double by, int shape);
/* The same for a node of any shape: its geometry as in geom (name ignored). */
void tk_add_node_geom(tikz *T, const char *name, const tk_node *geom);
/* Places a node (text) at a canvas point with options; seg: the segment
 * (nseg points) it sits on, for sloped and pos=. */
void tk_place_node(tikz *T, tk_nodeopts *no, vec2 at, const char *text, int line,
                   const vec2 *seg, int nseg);
/* The same, the node's geometry (centre, half sizes with outer sep,
 * baseline) in *geom (not NULL). */
void tk_place_node_geom(tikz *T, tk_nodeopts *no, vec2 at, const char *text, int line,
                        tk_node *geom);
/* Places a label= (pin = 0) or pin= (pin = 1) option's node around main. */
void tk_place_label(tikz *T, const char *spec, const tk_node *main, int line, int pin);

/* coord.c: coordinates */
/* Evaluates a coordinate (text inside the parentheses) to canvas coordinates. */
int tk_coord(tikz *T, const char *s, size_t n, vec2 *out, int line);
/* A coordinate's point in user space (the CTM not applied); sets T->last3,
 * last3_kind and any3d. 0 ok, -1 when it cannot be evaluated. The most
 * common coordinates, two or three unsigned integers such as (1,0) or
 * (1,0,1), take a short way (removing it costs about 5% of tikz2ir's
 * instructions); tk_coord_user_general is the reader of every coordinate,
 * which gives the same for them (tests/unit/test_coordfast compares the two). */
int tk_coord_user(tikz *T, const char *s, size_t n, vec2 *out, int line);
int tk_coord_user_general(tikz *T, const char *s, size_t n, vec2 *out, int line);
/* A named node or coordinate, or one of its anchors (A.north, A.30): its
 * canvas point; -1 when there is none. */
int tk_named_point(tikz *T, const char *s, size_t n, vec2 *canvas);

/* pathbuild.c: the path builder (path.y's actions, in pathgrammar.h) */
enum { CMD_DRAW, CMD_FILL, CMD_FILLDRAW, CMD_PATH, CMD_CLIP, CMD_NODE, CMD_COORDINATE,
       CMD_PIC, CMD_ADDPLOT, CMD_GRAPH, CMD_MATRIX, CMD_CALENDAR };
/* Runs the path grammar over a path text (a command's arguments up to ';'). */
void tk_run_path(tikz *T, int cmd, const char *text, const int *lines, int line);
void tk_path_scanner_free(tikz *T);      /* frees the scanner, the builder's buffers and the caches */
void tk_pathbufs_free(struct tk_pathbufs *b);

/* let.c: the let operation. When text[0,n) has one, the text with its
 * variables in place (malloc'd; *lines_out: each byte's line, *nout: its
 * length); else NULL. */
char *tk_expand_let(tikz *T, const char *text, size_t n, const int *lines, int line,
                    int **lines_out, size_t *nout);

/* pic.c: a pic: the text in pic{...} with its options (or NULL), at the
 * point at (the pic's position, canvas pt): the angles library's angle and
 * right angle (with the quotes library's "text" option), and pics the
 * document defines (name/.pic={code}, pics/name/.style={code={...}}). */
void tk_pic(tikz *T, const char *opts, const char *body, vec2 at, int line);
/* node sets (graph.c): new set= and set= (1 when k is one of them; set=
 * only with a node's options), the node placed joins its sets (name, or a
 * name of its own made for sh; both NULL: the pending sets dropped), the
 * set of that name or NULL, all of them freed */
int tk_nodeset_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn, int node);
void tk_nodeset_join(tikz *T, const char *name, const tk_node *sh);
const struct tk_nodeset *tk_nodeset_find(tikz *T, const char *name, size_t n);
void tk_nodesets_free(tikz *T);
/* pgf's picture box (tikz.c): grown by a box; a node of the current
 * bounding box's size (its anchors: the box's), -1 before anything counts */
void tk_bbox_add(tikz *T, ir_box b);
void tk_bbox_add_node(tikz *T, const tk_node *sh, double os, double hlw);
int tk_current_bbox(tikz *T, tk_node *out);
int tk_pic_pos(tikz *T, const char *opts, double *t);   /* pos= among a pic's options */
/* "pic [pic type=X]" without its {type}: "{}" written after those options */
void tk_pic_type_braces(const char **text, const int **lines, size_t *n, char **own_text, int **own_lines);

/* pathbuild.c: the keys of trees (level distance, sibling distance, grow,
 * grow', missing, parent anchor, child anchor, growth parent anchor); 1 when k is one of them */
int tk_tree_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn, int has_v);

/* tikz.c: runs TeX code (a pic's code) as the document's own, in a group */
void tk_run_code(tikz *T, const char *code, size_t n, int line);

/* pgfuser.c: declared pgfmath functions (\pgfmathdeclarefunction, declare
 * function=). tk_ufn_declare: params NULL means #1..#nargs; body NULL: a
 * body that cannot be evaluated (a call is an error). tk_ufn_expand: the
 * calls in s[0,n) expanded (*out malloc'd, NULL when there are none); *dyn
 * set when a random function (rnd, rand, random) is named; -1 with *why on
 * an error. */
int tk_ufn_declare(tikz *T, const char *name, size_t nn, int nargs, const char *const *params,
                   const size_t *plen, const char *body, size_t bn);
int tk_ufn_declare_key(tikz *T, const char *v, size_t vn);
int tk_ufn_expand(tikz *T, const char *s, size_t n, char **out, size_t *outn, int *dyn,
                  const char **why);
void tk_ufn_free(tikz *T);
/* A TeX group ended: the functions declared in it go (pgfuser.c) */
void tk_ufn_group_end(tikz *T, int depth);
/* tikzopt.c: s[0,n) may name rnd, rand or random (each evaluation draws) */
int tk_may_random(const char *s, size_t n);

/* emit.c: attributes of IR elements */
/* Moves the elements d->elems[mid..nelems) before d->elems[start..mid),
 * each group keeping its order (TikZ's drawing order: a path before its
 * nodes, a matrix's frame before its cells) */
void tk_elems_rotate(ir_diagram *d, size_t start, size_t mid);
void tk_emit_attrs(tikz *T, ir_elem *e, int draw, int fill);
void tk_set_nums(ir_elem *e, const char *key, const double *v, int n);
void tk_set_num(ir_elem *e, const char *key, double v);
/* xyz=X,Y,Z;X,Y,Z;... of the n 3D points of a polyline */
void tk_set_xyz(tikz *T, ir_elem *e, const vec3 *p, size_t n);
/* xyz= texts. A point's text "X,Y,Z", each number as the IR writer formats
 * it (ir_fmt_num), is at most 3 * 31 + 2 bytes and its NUL. */
#define TK_XYZ_MAX (3 * 31 + 2)
size_t tk_xyz_text(char *o, vec3 p);   /* writes it at o (TK_XYZ_MAX + 1 bytes); its length */
/* The same through a cache of the texts of points already formatted, by the
 * bits of the point (a point lies on several faces and lines of a 3D
 * picture; the cache saves about 3% of tikz2ir's instructions): the text is
 * what tk_xyz_text writes (tests/unit/test_xyztext compares them). */
#define TK_XYZ_SLOTS 256
struct tk_xyzcache {
    struct tk_xyzslot { uint64_t k[3]; unsigned char len; char text[TK_XYZ_MAX + 1]; } e[TK_XYZ_SLOTS];
};                                     /* len 0: an empty slot */
size_t tk_xyz_text_cached(struct tk_xyzcache *c, char *o, vec3 p);

/* tikztext.c: node text with text width= */
enum { TK_ALIGN_NONE, TK_ALIGN_LEFT, TK_ALIGN_CENTER, TK_ALIGN_RIGHT, TK_ALIGN_JUSTIFY,
       TK_ALIGN_FLUSH_LEFT, TK_ALIGN_FLUSH_CENTER, TK_ALIGN_FLUSH_RIGHT };
typedef struct {
    tm_extent ex;             /* of the broken lines: height of the first, skip, depth of the last */
    double x0, x1;            /* the lines' horizontal extent from the box's left edge */
    char *lines;              /* the text as broken, lines joined by \\ (malloc'd) */
    int dropped;              /* words past the limit (2000 between two \\): left out */
} tk_textbox;
/* Breaks text (font size fs, bold) into lines of width W as TeX breaks a
 * paragraph in TikZ's text width= minipage with align= (TK_ALIGN_...);
 * em: the font size around the node (LaTeX's \emergencystretch=3em). */
void tk_text_layout(const char *text, double fs, int bold, double W, int align, double em,
                    tk_textbox *out);

/* graph.c: the graphs library's graph (\graph, or the path operation
 * "graph [opts] {body}"; opts NULL when there are none): nodes and edges
 * run as paths, or one unparsed record when out of reach */
void tk_graph(tikz *T, const char *opts, const char *body, int line);

/* calendar.c: the calendar library's \calendar: text, the statement after
 * \calendar (up to its ';'); the days run as TikZ code, or one unparsed record */
void tk_calendar(tikz *T, const char *text, int line);

/* matrix.c: \matrix and node[matrix] (TikZ's matrix library and pgf's
 * matrix module). tk_matrix_wanted: the node options opts (may be NULL)
 * make the node a matrix. tk_matrix: places the matrix node of options no
 * (applied) at the canvas point at, its cells the body text (body_lines:
 * the line of each of its bytes, or NULL). tk_matrix_note_node: a node
 * placed while a cell runs (node.c), for the cell's extent: its border
 * (the outer sep inside), stroke: its line width when drawn, else 0. */
int tk_matrix_wanted(tikz *T, const char *opts);
void tk_matrix(tikz *T, tk_nodeopts *no, vec2 at, const char *opts, const char *body,
               int line, const int *body_lines);
void tk_matrix_note_node(tikz *T, const tk_node *sh, double outer_sep, double stroke);
/* tk_matrix_key: a matrix key given outside a matrix's own options
 * (\tikzset, a scope, a style; tikzopt.c): ampersand replacement= holds for
 * the matrices of the scope (the graphics state's mx_amp); 1 when taken */
int tk_matrix_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn);

/* decorate.c: decorations. tk_deco_key: decorate and decoration= (1 when
 * k is one of them). tk_deco_get: the decoration the graphics state names
 * (0; -1 when it names none, or one not drawn here: d->name says which).
 * tk_decorate: the polyline p[0,n) decorated (*out malloc'd; the number of
 * its points; d->truncated set when it stopped at 200000 points). */
typedef struct {
    char name[32];
    double amp, seglen, aspect, raise, pre, post;
    int mirror, pre_move, post_move;
    double shape_w, shape_h;  /* decorations.shapes: shape start width/height */
    int shift_only;           /* transform={shift only}: the frame not turned */
    int truncated;            /* out: tk_decorate stopped at its point limit */
} tk_deco;
/* tk_deco_get_moves: as tk_deco_get, also the decorations whose output has
 * move-tos (crosses): a (NaN, NaN) point in tk_decorate's output where a
 * subpath ends and the next begins */
int tk_deco_get_moves(tikz *T, tk_deco *d);
int tk_deco_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn, int has_v);
int tk_deco_get(tikz *T, tk_deco *d);
size_t tk_decorate(tk_deco *d, const vec2 *p, size_t n, vec2 **out);

/* plot.c: plot options and handlers. tk_plot_key: 1 when k is a plot key
 * (smooth, sharp plot, only marks, ycomb, ..., tension, mark, mark size,
 * variable, samples at). tk_plot_handler_name: the handler's name (for a
 * message). tk_plot_expr_points: the canvas points of plot (expr) over the
 * samples (*out malloc'd). tk_plot_smooth: the curve pgf's smooth (and
 * smooth cycle) handler draws through p[0,n), sampled (*out malloc'd).
 * tk_plot_marks: the marks at the points, drawn as elements of T->d. */
int tk_plot_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn, int has_v);
const char *tk_plot_handler_name(const tikz *T);
size_t tk_plot_expr_points(tikz *T, const char *expr, vec2 **out, int line);
size_t tk_plot_smooth(const vec2 *p, size_t n, double tension, int cycle, vec2 **out);
void tk_plot_marks(tikz *T, const vec2 *p, size_t n, int line);

/* tikzaxis.c */
void tk_axis_begin(tikz *T, const char *opts, size_t n, int line);
void tk_axis_end(tikz *T);
void tk_addplot(tikz *T, const char *text, int line);

#endif
