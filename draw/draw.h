/* draw.h — a diagram of the IR drawn as TeX would draw it: standalone SVG
 * (ir2svg, irreport) and PNG through librsvg and cairo (ir2svg --png).
 *
 * The picture's coordinates are the IR's (TeX points, y up); the SVG's
 * user unit is the point, y down (IR (x, y) is SVG (x, -y)), the viewBox
 * the diagram's bbox (or the union of its elements' boxes) plus a margin.
 * With margin 0 and no findings the viewBox is exactly the bbox: a PNG at
 * D dpi has pixel (0, 0) at (bbox.x1, bbox.y2) and IR (x, y) at pixel
 * ((x - x1) D / 72.27, (y2 - y) D / 72.27). Findings add canvas below (and
 * to the right of) the picture only, never moving it. Output is
 * deterministic: the same diagram and options give the same bytes.
 * Ids in the SVG (clip paths) are prefixed with a hash of the diagram's id,
 * so that fragments of different diagrams can share one HTML page.
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
 * from draw_svg's document (8-bit RGB, opaque). Returns 0, or -1 with a
 * message in err: a picture over 40 million pixels (32767 a side), or one
 * whose elements would cover too many pixels in all, is refused. Only
 * this function and draw_svgdoc_png need librsvg, cairo and libpng
 * (draw/png.c). */
int draw_png(FILE *f, const ir_diagram *d, const draw_opts *o, double dpi, char *err, size_t errlen);

/* Rasterizing any SVG document (judge's and svg2graph --llm's images,
 * llm/image.c) with the same librsvg and PNG code as draw_png. */
typedef struct {
    double dpi;          /* physical units (pt, in, mm) at this resolution; px are pixels */
    double max_side;     /* pixels a side at most */
    double max_pixels;   /* pixels in all at most */
} draw_svgdoc_opts;

/* Writes the SVG document svg[0..n) as a PNG of its own size (its width and
 * height; without them, its viewBox's, as pixels) to f, opaque on white,
 * and its size in *w, *h. The document is read without a base file, so it
 * cannot pull in other files. Returns 0, or -1 with a message in err: not
 * an SVG librsvg reads, no size, a size over the limits (refused before
 * anything is drawn), or a rendering error. */
int draw_svgdoc_png(FILE *f, const void *svg, size_t n, const draw_svgdoc_opts *o, int *w, int *h,
                    char *err, size_t errlen);

/* The colour ("#rrggbb") of a criterion, the same in every picture and
 * report: a fixed palette for the geom rubric's criteria, a stable hash of
 * the name into the palette for others. */
const char *draw_criterion_color(const char *criterion);

#endif
