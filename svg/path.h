/* svg/path.h — SVG path data ("d" attribute) and point lists into polylines.
 *
 * This header is the whole contract of svg/path.c. The whole path
 * grammar of SVG 1.1/2: absolute and relative M L H V C S Q T A Z, implicit
 * repeats (extra pairs after M are L), numbers in any JavaScript-ish form
 * ("1e-3", ".5.5", "-1-2"), arc flags written without separators ("a1 1 0 011 1").
 * Curves and arcs are flattened (SVG_PATH_STEPS pieces per curve) in the
 * coordinates they are written in (affine maps keep Béziers and ellipses).
 * Each subpath keeps its start and end tangent (from the control points, not
 * the flattening), for markers.
 */
#ifndef DIAGRAMIR_SVG_PATH_H
#define DIAGRAMIR_SVG_PATH_H

#include "ir/ir.h"

#include <stddef.h>

#define SVG_PATH_STEPS 12

typedef struct {
    ir_pt *pts;
    size_t n, cap;
    int closed;              /* ended with Z */
    int curved;              /* has C/S/Q/T/A pieces */
    ir_pt tan_start, tan_end; /* direction at the first / last point (not normalized) */
} svg_subpath;

typedef struct {
    svg_subpath *sub;
    size_t n, cap;
    size_t npts;             /* points over all subpaths */
} svg_pathdata;

/* Parses path data. Returns 0 on success; -1 on malformed data, with *errpos
 * the byte offset of the problem and *errmsg a static message; what came
 * before the error is kept in out (SVG's "render up to the error"). A path
 * that would produce more than max_pts points (0: no limit) stops with an
 * error. out must be zeroed before the first call; svg_path_free releases it. */
int svg_path_parse(const char *d, svg_pathdata *out, size_t max_pts, size_t *errpos,
                   const char **errmsg);
/* Number list ("x1,y1 x2,y2 ..." of points=, or x= lists): returns the count
 * of numbers stored in *out (malloc'd; NULL when 0), or -1 when malformed. */
long svg_parse_numbers(const char *s, double **out);
void svg_path_free(svg_pathdata *p);

#endif
