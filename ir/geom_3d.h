/* geom_3d.h — what a parallel projection keeps of 3D drawings.
 *
 * TikZ draws 3D coordinates with a parallel projection: each 3D point P
 * lands at M P + t in the picture (t may differ between paths that a scope
 * shifts in the picture plane). Given points known both in 3D (the IR's
 * xyz= attribute) and in the picture, these helpers recover M, the
 * direction toward the viewer, and the depth of a planar face at a picture
 * point — enough to tell which of two overlapping faces is in front.
 */
#ifndef DIAGRAMIR_GEOM_3D_H
#define DIAGRAMIR_GEOM_3D_H

#include <stddef.h>

#include "ir/ir.h"

typedef struct { double x, y, z; } ir_pt3;

/* Least-squares fit of picture = M * P + t_e where each polyline e may
 * carry its own translation t_e (a picture-plane shift applied to it alone,
 * as TikZ's xshift/yshift are): M is fitted to the offsets of the points
 * from their polyline's mean. The points of polyline e are p3/p2[off[e] ..
 * off[e+1]). Returns 1 and fills m when the offsets span three dimensions;
 * *resid (may be NULL) receives the largest distance between a picture
 * point and its fitted position. */
int ir_fit_projection_shifted(const ir_pt3 *p3, const ir_pt *p2, const size_t *off, size_t ne,
                              double m[2][3], double *resid);
/* The same, and when shift is not NULL, shift[e] receives polyline e's
 * translation: the mean of its picture points minus their images M P
 * (untouched for a polyline without points). */
int ir_fit_projection_shifts(const ir_pt3 *p3, const ir_pt *p2, const size_t *off, size_t ne,
                             double m[2][3], double *resid, ir_pt *shift);
/* M * P: the picture offset of the 3D point P. */
ir_pt ir_project(const double m[2][3], ir_pt3 p);
/* The direction toward the viewer: orthogonal to both rows of M, oriented
 * so that (picture x, picture y, toward viewer) is right-handed. */
ir_pt3 ir_view_dir(const double m[2][3]);
/* The depth (along view) of the planar polygon p3, whose picture images
 * are p2, as a function of the picture point: depth(x, y) = coef[0] +
 * coef[1] x + coef[2] y. Returns 0 when the polygon is seen edge-on. */
int ir_plane_depth_fn(const ir_pt3 *p3, const ir_pt *p2, size_t n, ir_pt3 view, double coef[3]);

#endif
