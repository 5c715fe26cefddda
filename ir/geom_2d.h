/* geom_2d.h — plane geometry on IR coordinates: vectors, segments, angles,
 * polygons, boxes, and flattening of curved elements into polylines.
 *
 * Everything here is pure (no allocation except ir_elem_flatten) and works
 * in the IR's unit (TeX points, y up). Shared by irlint's checks and any
 * other program that reasons about drawn geometry.
 */
#ifndef DIAGRAMIR_GEOM_2D_H
#define DIAGRAMIR_GEOM_2D_H

#include "ir/ir.h"

#define IR_PI 3.14159265358979323846

/* --- vectors ------------------------------------------------------------ */
ir_pt ir_v(double x, double y);
ir_pt ir_v_add(ir_pt a, ir_pt b);
ir_pt ir_v_sub(ir_pt a, ir_pt b);
ir_pt ir_v_scale(ir_pt a, double k);
ir_pt ir_v_lerp(ir_pt a, ir_pt b, double t);
double ir_v_dot(ir_pt a, ir_pt b);
double ir_v_cross(ir_pt a, ir_pt b);
double ir_v_len(ir_pt a);
double ir_v_dist(ir_pt a, ir_pt b);
/* Direction of v in degrees, in [0, 360). */
double ir_v_dir_deg(ir_pt v);
/* Unsigned angle between two vectors in degrees, in [0, 180]. */
double ir_v_angle_deg(ir_pt u, ir_pt v);
/* Counter-clockwise sweep from direction a to direction b (degrees), in [0, 360). */
double ir_ccw_sweep_deg(double a, double b);
/* Smallest difference between two directions (degrees), in [0, 180]. */
double ir_dir_diff_deg(double a, double b);
/* Smallest difference between two undirected line directions, in [0, 90]. */
double ir_line_diff_deg(double a, double b);

/* --- segments ----------------------------------------------------------- */
/* Distance from p to segment ab; *t (may be NULL) receives the parameter of
 * the nearest point, in [0, 1]. */
double ir_pt_seg_dist(ir_pt p, ir_pt a, ir_pt b, double *t);
/* Distance from p to the infinite line through a and b (|a-b| > 0). */
double ir_pt_line_dist(ir_pt p, ir_pt a, ir_pt b);
/* Proper or touching intersection of segments ab and cd. Returns 1 and the
 * parameters along each (t on ab, u on cd) when they meet; 0 otherwise
 * (parallel segments never meet here). */
int ir_seg_intersect(ir_pt a, ir_pt b, ir_pt c, ir_pt d, double *t, double *u);
/* Distance between two segments. */
double ir_seg_seg_dist(ir_pt a, ir_pt b, ir_pt c, ir_pt d);

/* --- boxes -------------------------------------------------------------- */
ir_box ir_box_make(double x1, double y1, double x2, double y2);
double ir_box_w(ir_box b);
double ir_box_h(ir_box b);
double ir_box_area(ir_box b);
ir_pt ir_box_center(ir_box b);
/* Box grown (d > 0) or shrunk (d < 0) by d on every side; a box shrunk past
 * its centre collapses to the centre. */
ir_box ir_box_inset(ir_box b, double d);
/* Intersection of two boxes; .empty set when they do not overlap. */
ir_box ir_box_isect(ir_box a, ir_box b);
int ir_box_contains_pt(ir_box b, ir_pt p);
/* 1 when b lies inside outer, allowing tol of overhang. */
int ir_box_inside(ir_box b, ir_box outer, double tol);
/* Distance from p to the box (0 inside). */
double ir_box_pt_dist(ir_box b, ir_pt p);
/* Distance between two boxes (0 when they touch or overlap). */
double ir_box_box_dist(ir_box a, ir_box b);
/* Part of segment ab inside box b (Liang–Barsky). Returns 1 and the
 * parameter interval [*t0, *t1] when some of the segment is inside. */
int ir_seg_box_clip(ir_pt a, ir_pt b, ir_box box, double *t0, double *t1);
/* Distance from segment ab to box b (0 when they meet). */
double ir_seg_box_dist(ir_pt a, ir_pt b, ir_box box);

/* --- polygons ----------------------------------------------------------- */
/* Signed area (counter-clockwise positive). */
double ir_poly_area(const ir_pt *p, size_t n);
double ir_poly_perimeter(const ir_pt *p, size_t n, int closed);
ir_pt ir_poly_centroid(const ir_pt *p, size_t n);
/* Even–odd point-in-polygon test. */
int ir_pt_in_poly(ir_pt p, const ir_pt *poly, size_t n);
/* 1 when the closed polygon is convex (collinear vertices allowed). */
int ir_poly_convex(const ir_pt *p, size_t n);

/* Intersection of polygon subj with the convex polygon clip (Sutherland–
 * Hodgman). Writes at most max points to out and returns the count (0 when
 * they do not overlap). clip may wind either way. */
size_t ir_poly_clip_convex(const ir_pt *subj, size_t ns, const ir_pt *clip, size_t nc,
                           ir_pt *out, size_t max);

/* --- ellipses ----------------------------------------------------------- */
/* Point of the ellipse C + A cos t + B sin t at t degrees. */
ir_pt ir_ellipse_at(ir_pt c, ir_pt a, ir_pt b, double tdeg);

/* --- flattening --------------------------------------------------------- */
/* Polyline approximation of a drawn element's outline: poly points as they
 * are, rect corners, ellipse/arc/curve sampled finely enough that the chord
 * error stays below about 0.1% of the element's size. *closed receives 1
 * when the outline is a closed loop. Returns the number of points written to
 * *out (malloc'd, caller frees; NULL when 0). Text, clip and non-geometric
 * elements give 0. */
size_t ir_elem_flatten(const ir_elem *e, ir_pt **out, int *closed);

#endif
