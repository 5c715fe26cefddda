/* geom_3d.h — what a parallel projection keeps of 3D drawings.
 *
 * TikZ draws 3D coordinates with a parallel projection: each 3D point P
 * lands at M P + t in the picture. Given points known both in 3D (the IR's
 * xyz= attribute) and in the picture, these helpers recover M and t, the
 * direction toward the viewer, and the depth of a planar face at a picture
 * point — enough to tell which of two overlapping faces is in front.
 */
#ifndef DIAGRAMIR_GEOM_3D_H
#define DIAGRAMIR_GEOM_3D_H

#include <stddef.h>

#include "ir/ir.h"

typedef struct { double x, y, z; } ir_pt3;

/* Least-squares fit of picture = M * P + t over n correspondences. Returns
 * 1 and fills m, t; 0 when the points do not determine a projection (fewer
 * than 4 points not in one plane). */
int ir_fit_projection(const ir_pt3 *p3, const ir_pt *p2, size_t n, double m[2][3], double t[2]);
/* The direction toward the viewer: orthogonal to both rows of M, oriented
 * so that (picture x, picture y, toward viewer) is right-handed. */
ir_pt3 ir_view_dir(const double m[2][3]);
/* Depth (along view) of the point of the planar polygon p3 (with picture
 * images p2) whose image is c. Returns 0 when the polygon is seen edge-on. */
int ir_plane_depth_at(const ir_pt3 *p3, const ir_pt *p2, size_t n, ir_pt c, ir_pt3 view,
                      double *depth);

#endif
