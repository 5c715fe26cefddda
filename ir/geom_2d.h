/* geom_2d.h — plane geometry on IR coordinates: vectors, segments, angles,
 * polygons, boxes, and flattening of curved elements into polylines.
 *
 * Everything here is pure (no allocation except ir_elem_flatten) and works
 * in the IR's unit (TeX points, y up). Shared by irlint's checks and any
 * other program that reasons about drawn geometry.
 */
#ifndef DIAGRAMIR_GEOM_2D_H
#define DIAGRAMIR_GEOM_2D_H

#include <math.h>

#include "ir/ir.h"

#define IR_PI 3.14159265358979323846

/* --- vectors ------------------------------------------------------------ */
static inline ir_pt ir_v(double x, double y) { ir_pt p = {x, y}; return p; }
static inline ir_pt ir_v_add(ir_pt a, ir_pt b) { return ir_v(a.x + b.x, a.y + b.y); }
static inline ir_pt ir_v_sub(ir_pt a, ir_pt b) { return ir_v(a.x - b.x, a.y - b.y); }
static inline ir_pt ir_v_scale(ir_pt a, double k) { return ir_v(a.x * k, a.y * k); }
static inline ir_pt ir_v_lerp(ir_pt a, ir_pt b, double t)
{
    return ir_v(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
}
static inline double ir_v_dot(ir_pt a, ir_pt b) { return a.x * b.x + a.y * b.y; }
static inline double ir_v_cross(ir_pt a, ir_pt b) { return a.x * b.y - a.y * b.x; }
static inline double ir_v_len(ir_pt a) { return sqrt(a.x * a.x + a.y * a.y); }
static inline double ir_v_dist(ir_pt a, ir_pt b)
{
    double dx = a.x - b.x, dy = a.y - b.y;
    return sqrt(dx * dx + dy * dy);
}
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
static inline double ir_pt_seg_dist(ir_pt p, ir_pt a, ir_pt b, double *t)
{
    ir_pt ab = ir_v_sub(b, a);
    double l2 = ir_v_dot(ab, ab), u = 0;
    if (l2 > 0) {
        u = ir_v_dot(ir_v_sub(p, a), ab) / l2;
        if (u < 0) u = 0;
        if (u > 1) u = 1;
    }
    if (t) *t = u;
    return ir_v_dist(p, ir_v_lerp(a, b, u));
}
/* Distance from p to the infinite line through a and b (|a-b| > 0). */
double ir_pt_line_dist(ir_pt p, ir_pt a, ir_pt b);
/* Proper or touching intersection of segments ab and cd. Returns 1 and the
 * parameters along each (t on ab, u on cd) when they meet; 0 otherwise
 * (parallel segments never meet here). */
static inline int ir_seg_intersect(ir_pt a, ir_pt b, ir_pt c, ir_pt d, double *t, double *u)
{
    ir_pt r = ir_v_sub(b, a), s = ir_v_sub(d, c);
    double den = ir_v_cross(r, s);
    double scale = ir_v_len(r) * ir_v_len(s);
    if (scale == 0 || fabs(den) <= 1e-12 * scale) return 0;
    ir_pt ca = ir_v_sub(c, a);
    double tt = ir_v_cross(ca, s) / den, uu = ir_v_cross(ca, r) / den;
    const double eps = 1e-9;
    if (tt < -eps || tt > 1 + eps || uu < -eps || uu > 1 + eps) return 0;
    if (t) *t = tt;
    if (u) *u = uu;
    return 1;
}
/* Distance between two segments. */
double ir_seg_seg_dist(ir_pt a, ir_pt b, ir_pt c, ir_pt d);

/* --- boxes -------------------------------------------------------------- */
static inline ir_box ir_box_make(double x1, double y1, double x2, double y2)
{
    ir_box b;
    b.x1 = x1 < x2 ? x1 : x2;
    b.x2 = x1 < x2 ? x2 : x1;
    b.y1 = y1 < y2 ? y1 : y2;
    b.y2 = y1 < y2 ? y2 : y1;
    b.empty = 0;
    return b;
}
static inline double ir_box_w(ir_box b) { return b.empty ? 0 : b.x2 - b.x1; }
static inline double ir_box_h(ir_box b) { return b.empty ? 0 : b.y2 - b.y1; }
static inline double ir_box_area(ir_box b) { return ir_box_w(b) * ir_box_h(b); }
static inline ir_pt ir_box_center(ir_box b) { return ir_v((b.x1 + b.x2) / 2, (b.y1 + b.y2) / 2); }
/* Box grown (d > 0) or shrunk (d < 0) by d on every side; a box shrunk past
 * its centre collapses to the centre. */
static inline ir_box ir_box_inset(ir_box b, double d)
{
    if (b.empty) return b;
    ir_box r = b;
    r.x1 -= d; r.y1 -= d; r.x2 += d; r.y2 += d;
    if (r.x1 > r.x2) r.x1 = r.x2 = (b.x1 + b.x2) / 2;
    if (r.y1 > r.y2) r.y1 = r.y2 = (b.y1 + b.y2) / 2;
    return r;
}
/* Intersection of two boxes; .empty set when they do not overlap. */
static inline ir_box ir_box_isect(ir_box a, ir_box b)
{
    ir_box r;
    r.empty = 1;
    r.x1 = r.y1 = r.x2 = r.y2 = 0;
    if (a.empty || b.empty) return r;
    double x1 = a.x1 > b.x1 ? a.x1 : b.x1, x2 = a.x2 < b.x2 ? a.x2 : b.x2;
    double y1 = a.y1 > b.y1 ? a.y1 : b.y1, y2 = a.y2 < b.y2 ? a.y2 : b.y2;
    if (x1 > x2 || y1 > y2) return r;
    r.x1 = x1; r.x2 = x2; r.y1 = y1; r.y2 = y2; r.empty = 0;
    return r;
}
static inline int ir_box_contains_pt(ir_box b, ir_pt p)
{
    return !b.empty && p.x >= b.x1 && p.x <= b.x2 && p.y >= b.y1 && p.y <= b.y2;
}
/* 1 when b lies inside outer, allowing tol of overhang. */
static inline int ir_box_inside(ir_box b, ir_box outer, double tol)
{
    if (b.empty) return 1;
    if (outer.empty) return 0;
    return b.x1 >= outer.x1 - tol && b.y1 >= outer.y1 - tol &&
           b.x2 <= outer.x2 + tol && b.y2 <= outer.y2 + tol;
}
/* Distance from p to the box (0 inside). */
static inline double ir_box_pt_dist(ir_box b, ir_pt p)
{
    double dx = p.x < b.x1 ? b.x1 - p.x : (p.x > b.x2 ? p.x - b.x2 : 0);
    double dy = p.y < b.y1 ? b.y1 - p.y : (p.y > b.y2 ? p.y - b.y2 : 0);
    return sqrt(dx * dx + dy * dy);
}
/* Distance between two boxes (0 when they touch or overlap). */
static inline double ir_box_box_dist(ir_box a, ir_box b)
{
    double dx = 0, dy = 0;
    if (a.x2 < b.x1) dx = b.x1 - a.x2; else if (b.x2 < a.x1) dx = a.x1 - b.x2;
    if (a.y2 < b.y1) dy = b.y1 - a.y2; else if (b.y2 < a.y1) dy = a.y1 - b.y2;
    return sqrt(dx * dx + dy * dy);
}
/* Part of segment ab inside box b (Liang–Barsky). Returns 1 and the
 * parameter interval [*t0, *t1] when some of the segment is inside. */
static inline int ir_seg_box_clip(ir_pt a, ir_pt b, ir_box box, double *t0, double *t1)
{
    if (box.empty) return 0;
    double dx = b.x - a.x, dy = b.y - a.y;
    double p[4] = {-dx, dx, -dy, dy};
    double q[4] = {a.x - box.x1, box.x2 - a.x, a.y - box.y1, box.y2 - a.y};
    double lo = 0, hi = 1;
    for (int i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0) return 0;
        } else {
            double r = q[i] / p[i];
            if (p[i] < 0) { if (r > lo) lo = r; }
            else { if (r < hi) hi = r; }
        }
    }
    if (lo > hi) return 0;
    if (t0) *t0 = lo;
    if (t1) *t1 = hi;
    return 1;
}
/* Distance from segment ab to box b (0 when they meet). */
double ir_seg_box_dist(ir_pt a, ir_pt b, ir_box box);

/* --- polygons ----------------------------------------------------------- */
/* Signed area (counter-clockwise positive). */
double ir_poly_area(const ir_pt *p, size_t n);
double ir_poly_perimeter(const ir_pt *p, size_t n, int closed);
ir_pt ir_poly_centroid(const ir_pt *p, size_t n);
/* The same, given a == ir_poly_area(p, n). */
ir_pt ir_poly_centroid_a(const ir_pt *p, size_t n, double a);
/* Even–odd point-in-polygon test. */
int ir_pt_in_poly(ir_pt p, const ir_pt *poly, size_t n);
/* 1 when the closed polygon is convex (collinear vertices allowed). */
int ir_poly_convex(const ir_pt *p, size_t n);

/* Intersection of polygon subj with the convex polygon clip (Sutherland–
 * Hodgman). Writes at most max points to out and returns the count (0 when
 * they do not overlap). clip may wind either way. */
size_t ir_poly_clip_convex(const ir_pt *subj, size_t ns, const ir_pt *clip, size_t nc,
                           ir_pt *out, size_t max);
/* The same, given orient: 1 when ir_poly_area(clip, nc) >= 0, else -1. */
size_t ir_poly_clip_convex_o(const ir_pt *subj, size_t ns, const ir_pt *clip, size_t nc,
                             double orient, ir_pt *out, size_t max);

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
/* The same into a buffer the caller provides: ir_elem_flatten_count(e)
 * points at most (0 for elements that have no outline). */
size_t ir_elem_flatten_count(const ir_elem *e);
size_t ir_elem_flatten_to(const ir_elem *e, ir_pt *out, int *closed);

#endif
