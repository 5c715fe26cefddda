/* draw.h — a diagram of the IR drawn as TeX would draw it: standalone SVG
 * (ir2svg, irreport) and PNG through librsvg and cairo (ir2svg --png).
 *
 * The picture's coordinates are the IR's (TeX points, y up); the SVG's
 * user unit is the point, y down, the viewBox the diagram's bbox (or the
 * union of its elements' boxes) plus a margin. Output is deterministic:
 * the same diagram and options give the same bytes.
 *
 * Findings (the IR's finding records, irlint --format ir): with
 * o->findings, every element a shown finding names is outlined in its
 * criterion's colour and the reason is written beside the picture, with a
 * legend of the criteria.
 */
#ifndef DIAGRAMIR_DRAW_H
#define DIAGRAMIR_DRAW_H

#include <stdio.h>

#include "ir/ir.h"

typedef struct {
    int findings;       /* draw the findings (outlines, reasons, legend) */
    int all_findings;   /* also yes and na findings (default: only verdict=no) */
    int fragment;       /* an <svg> element only, no XML declaration: for inlining in HTML */
    double margin;      /* pt of white around the picture (negative: the default) */
    double scale;       /* output pixels (SVG width/height) per pt; 0: 1 */
} draw_opts;

/* The defaults: findings drawn, only failing ones, a standalone document. */
void draw_opts_init(draw_opts *o);

/* Writes d as one SVG document (or fragment) to f. Returns 0, or -1 on a
 * write error. */
int draw_svg(FILE *f, const ir_diagram *d, const draw_opts *o);

/* Writes d as a PNG of dpi dots per inch (72.27 pt) to f, drawn by librsvg
 * from draw_svg's document. Returns 0, or -1 with a message in err. */
int draw_png(FILE *f, const ir_diagram *d, const draw_opts *o, double dpi, char *err, size_t errlen);

/* The colour ("#rrggbb") of a criterion, the same in every picture and
 * report: a fixed palette for the geom rubric's criteria, a stable hash of
 * the name into the palette for others. */
const char *draw_criterion_color(const char *criterion);

#endif
