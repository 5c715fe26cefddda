/* no_overlap.h — the parts of no_overlap.c (the no-overlap check) that its
 * unit tests call: the depth bound of a face over its box and the
 * depth-order look over a scene's faces and lines. Not for other checks. */
#ifndef DIAGRAMIR_GEOM_NO_OVERLAP_H
#define DIAGRAMIR_GEOM_NO_OVERLAP_H

#include "checks/geom/geom.h"

/* The smallest and largest depth dc[0] + dc[1] x + dc[2] y, as computed at
 * any point of box b: its values at b's corners, widened by a margin far
 * above rounding (1e-12 of the terms' size). -INFINITY and INFINITY (no
 * bound) when any of that is not finite. */
void geom_depth_range(const double dc[3], ir_box b, double *dmin, double *dmax);

/* The face grid's lists (no_overlap.c's face_set): FS_ALL, every face
 * covering a cell; FS_ROW, those whose first row of cells is the cell's;
 * FS_COL, those whose first column is the cell's; FS_FIRST, those whose
 * first cell it is. */
enum { FS_ALL, FS_ROW, FS_COL, FS_FIRST };

/* The length of each list of each cell of an nx x ny grid holding n faces
 * that cover the cell ranges r[k] (i0, j0, i1, j1; none when i1 < i0 or
 * j1 < j0): count[L][c + 1] for list L and cell c = j nx + i (count[L][0]
 * is left alone). */
void geom_face_cell_counts(size_t nx, size_t ny, const int (*r)[4], size_t n, size_t *count[4]);

/* Depth-order errors: how many, the worst one's key and its verdict. */
typedef struct {
    int n;
    double worst;
    chk_verdict why;
} geom_depth_tally;

/* The depth-order errors of scene s: filled faces painted over faces in
 * front of them, solid lines showing through faces (see no_overlap.c).
 * use_skip 1 passes over face pairs whose clipped overlap certainly cannot
 * find the later face behind (overlap_not_behind), as the check does; 0
 * clips every pair, the reference the unit test compares against. */
void geom_depth_order(const geom_scene *s, int use_skip, geom_depth_tally *t);

#endif
