/* svg/render.h — an SVG element tree into a flat scene of absolute
 * primitives: text chunks and outlines, in IR coordinates (TeX points,
 * y up: one CSS px is 0.75 pt).
 *
 * This header is the whole contract of svg/render.c. It resolves the
 * SVG semantics svg2graph(1) documents: nested <g> and transforms, the
 * cascade (presentation attributes, <style> rules, style=, inheritance),
 * <text>/<tspan> layout with x/y/dx/dy lists and text-anchor, font sizes in
 * every unit, the basic shapes and <path>, markers, <use>/<symbol>/<defs>,
 * nested <svg> viewports and viewBox.
 */
#ifndef DIAGRAMIR_SVG_RENDER_H
#define DIAGRAMIR_SVG_RENDER_H

#include "ir/ir.h"
#include "svg/doc.h"

#include <stddef.h>

typedef enum {
    SVG_SH_PATH, SVG_SH_LINE, SVG_SH_POLYLINE, SVG_SH_POLYGON, SVG_SH_RECT,
    SVG_SH_CIRCLE, SVG_SH_ELLIPSE
} svg_shape_kind;

/* One drawn outline: a subpath of a path, or a basic shape. */
typedef struct {
    svg_shape_kind kind;
    ir_pt *pts;              /* flattened outline, IR coordinates */
    size_t n;
    int closed;              /* closed outline (Z, polygon, rect, circle, ellipse) */
    int filled, stroked;     /* visibly painted */
    char *fill, *stroke;     /* paint as written ("none" when not painted) */
    double lw;               /* stroke width, pt */
    int dashed;
    int axis_rect;           /* rect that stays axis-aligned: pts[0] lower-left, pts[2] upper-right */
    int ellipse;             /* circle/ellipse: ec + ea cos t + eb sin t */
    ir_pt ec, ea, eb;
    int marker;              /* geometry of a marker instance (never a node or a connector) */
    int glyph;               /* a letter drawn as a glyph outline (svg/glyphs.h): a <use> of a
                              * filled, unstroked <path> (dvisvgm --no-fonts, MathJax) or of a
                              * <symbol> that names its character, or a filled path in a group
                              * labelled with its text (aria-label): never a node, a connector
                              * or an arrowhead. 0, or the glyph's number (1, 2, ...: the
                              * subpaths of one glyph share it) */
    unsigned glyph_cp;       /* the character it stands for, 0 unknown (svg_glyph_char) */
    ir_pt glyph_org;         /* the glyph's origin (on the baseline), IR */
    unsigned glyph_group;    /* 1 + the labelled group it is in, or 0 */
    int arrow_start, arrow_end;  /* an arrow-like marker sits at that end */
    int tip_start_set, tip_end_set;
    ir_pt tip_start, tip_end;    /* the marker's farthest point out from that end */
    ir_pt dir_start, dir_end;    /* outward directions at the ends (unit vectors) */
    int line, col;
    unsigned seq;            /* document order */
    unsigned group;          /* the innermost <g> it is drawn in (numbered 1, 2, ... in
                              * the order they are drawn: each <use> of one draws anew), 0
                              * outside every <g> */
} svg_shape;

/* One text chunk: a run of characters on one baseline from one start position. */
typedef struct {
    char *text;              /* UTF-8, white space collapsed */
    ir_box box;              /* IR coordinates */
    double size;             /* font size, pt */
    double baseline;         /* y of the baseline (IR) */
    int line, col;
    unsigned seq;
    unsigned group;          /* as svg_shape.group */
    int glued;               /* continues the word of the text before it (a <tspan> moved
                              * with no blank between): joined without a blank */
} svg_text;

typedef struct {
    svg_shape *shapes;
    size_t nshapes, capshapes;
    svg_text *texts;
    size_t ntexts, captexts;
    size_t npts;             /* points over all shapes */
    ir_box extent;           /* the viewport (IR coordinates) */
} svg_scene;

typedef struct {
    size_t max_points;       /* total outline points (0: 4,000,000) */
    size_t max_items;        /* shapes + texts, after <use> expansion (0: 1,000,000) */
} svg_render_limits;

/* Renders the document. Returns 0 and fills *sc (zero it first), or -1 with
 * "fname:line:col: error: ..." in err (bad path data, bad numbers where
 * they are required, limits exceeded, <use> cycles). Warnings (unsupported
 * features that are skipped; text drawn as glyph outlines, whose characters
 * cannot be read) go to warn when not NULL, one line each. */
int svg_render(const svg_doc *d, const char *fname, const svg_render_limits *lim, svg_scene *sc,
               char *err, size_t errsz, FILE *warn);
void svg_scene_free(svg_scene *sc);

/* Parses a CSS/SVG length ("12", "12px", "9pt", "1.5em", "50%") into px.
 * em/ex use font_px, % uses pct_base. 1 and *out on success, else 0. */
int svg_length(const char *s, double font_px, double pct_base, double *out);

#endif
