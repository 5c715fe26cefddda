/* geom_2d.c — plane geometry helpers; see geom_2d.h. */
#include "ir/geom_2d.h"

#include <math.h>
#include <stdlib.h>

double ir_v_dir_deg(ir_pt v)
{
    double d = atan2(v.y, v.x) * 180.0 / IR_PI;
    if (d < 0) d += 360.0;
    if (d >= 360.0) d -= 360.0;
    return d;
}

double ir_v_angle_deg(ir_pt u, ir_pt v)
{
    double lu = ir_v_len(u), lv = ir_v_len(v);
    if (lu == 0 || lv == 0) return 0;
    return atan2(fabs(ir_v_cross(u, v)), ir_v_dot(u, v)) * 180.0 / IR_PI;
}

double ir_ccw_sweep_deg(double a, double b)
{
    double s = fmod(b - a, 360.0);
    if (s < 0) s += 360.0;
    if (s >= 360.0) s -= 360.0;
    return s;
}

double ir_dir_diff_deg(double a, double b)
{
    double s = ir_ccw_sweep_deg(a, b);
    return s > 180.0 ? 360.0 - s : s;
}

double ir_line_diff_deg(double a, double b)
{
    double s = ir_dir_diff_deg(a, b);
    return s > 90.0 ? 180.0 - s : s;
}

double ir_pt_line_dist(ir_pt p, ir_pt a, ir_pt b)
{
    ir_pt ab = ir_v_sub(b, a);
    double l = ir_v_len(ab);
    if (l == 0) return ir_v_dist(p, a);
    return fabs(ir_v_cross(ab, ir_v_sub(p, a))) / l;
}

double ir_seg_seg_dist(ir_pt a, ir_pt b, ir_pt c, ir_pt d)
{
    if (ir_seg_intersect(a, b, c, d, NULL, NULL)) return 0;
    double m = ir_pt_seg_dist(a, c, d, NULL), x;
    if ((x = ir_pt_seg_dist(b, c, d, NULL)) < m) m = x;
    if ((x = ir_pt_seg_dist(c, a, b, NULL)) < m) m = x;
    if ((x = ir_pt_seg_dist(d, a, b, NULL)) < m) m = x;
    return m;
}

double ir_seg_box_dist(ir_pt a, ir_pt b, ir_box box)
{
    if (ir_seg_box_clip(a, b, box, NULL, NULL)) return 0;
    ir_pt c[4] = {{box.x1, box.y1}, {box.x2, box.y1}, {box.x2, box.y2}, {box.x1, box.y2}};
    double m = ir_box_pt_dist(box, a), x;
    if ((x = ir_box_pt_dist(box, b)) < m) m = x;
    for (int i = 0; i < 4; i++)
        if ((x = ir_pt_seg_dist(c[i], a, b, NULL)) < m) m = x;
    return m;
}

double ir_poly_area(const ir_pt *p, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        const ir_pt *q = &p[(i + 1) % n];
        s += p[i].x * q->y - q->x * p[i].y;
    }
    return s / 2;
}

double ir_poly_perimeter(const ir_pt *p, size_t n, int closed)
{
    double s = 0;
    for (size_t i = 0; i + 1 < n; i++) s += ir_v_dist(p[i], p[i + 1]);
    if (closed && n > 2) s += ir_v_dist(p[n - 1], p[0]);
    return s;
}

ir_pt ir_poly_centroid(const ir_pt *p, size_t n)
{
    return ir_poly_centroid_a(p, n, ir_poly_area(p, n));
}

ir_pt ir_poly_centroid_a(const ir_pt *p, size_t n, double a)
{
    double cx = 0, cy = 0;
    if (n == 0) return ir_v(0, 0);
    if (fabs(a) < 1e-9) {
        for (size_t i = 0; i < n; i++) { cx += p[i].x; cy += p[i].y; }
        return ir_v(cx / (double)n, cy / (double)n);
    }
    for (size_t i = 0; i < n; i++) {
        const ir_pt *q = &p[(i + 1) % n];
        double c = p[i].x * q->y - q->x * p[i].y;
        cx += (p[i].x + q->x) * c;
        cy += (p[i].y + q->y) * c;
    }
    return ir_v(cx / (6 * a), cy / (6 * a));
}

int ir_pt_in_poly(ir_pt p, const ir_pt *poly, size_t n)
{
    int in = 0;
    for (size_t i = 0, j = n ? n - 1 : 0; i < n; j = i++) {
        if ((poly[i].y > p.y) != (poly[j].y > p.y)) {
            double x = poly[j].x + (p.y - poly[j].y) * (poly[i].x - poly[j].x) /
                                       (poly[i].y - poly[j].y);
            if (p.x < x) in = !in;
        }
    }
    return in;
}

int ir_poly_convex(const ir_pt *p, size_t n)
{
    int sign = 0;
    if (n < 3) return 0;
    double scale = 0;
    for (size_t i = 0; i < n; i++) scale += ir_v_dist(p[i], p[(i + 1) % n]);
    scale /= (double)n;
    for (size_t i = 0; i < n; i++) {
        ir_pt a = p[i], b = p[(i + 1) % n], c = p[(i + 2) % n];
        double cr = ir_v_cross(ir_v_sub(b, a), ir_v_sub(c, b));
        if (fabs(cr) <= 1e-6 * scale * scale) continue;
        int s = cr > 0 ? 1 : -1;
        if (sign == 0) sign = s;
        else if (s != sign) return 0;
    }
    return sign != 0;
}

size_t ir_poly_clip_convex(const ir_pt *subj, size_t ns, const ir_pt *clip, size_t nc,
                           ir_pt *out, size_t max)
{
    if (ns < 3 || nc < 3 || max < 3) return 0;
    return ir_poly_clip_convex_o(subj, ns, clip, nc, ir_poly_area(clip, nc) >= 0 ? 1.0 : -1.0,
                                 out, max);
}

size_t ir_poly_clip_convex_o(const ir_pt *subj, size_t ns, const ir_pt *clip, size_t nc,
                             double orient, ir_pt *out, size_t max)
{
    if (ns < 3 || nc < 3 || max < 3) return 0;
    /* two work buffers of max points each (on the stack when small) */
    ir_pt local[2 * 128];
    ir_pt *heap = NULL;
    ir_pt *a = local;
    if (max > 128) {
        heap = malloc(2 * max * sizeof *heap);
        if (!heap) return 0;
        a = heap;
    }
    ir_pt *b = a + max;
    size_t na = ns < max ? ns : max;
    for (size_t i = 0; i < na; i++) a[i] = subj[i];
    for (size_t e = 0; e < nc && na > 0; e++) {
        ir_pt p = clip[e], q = clip[(e + 1) % nc];
        ir_pt pq = ir_v_sub(q, p);
        size_t nb = 0;
        /* each vertex's side, computed once: the previous vertex's is the
         * one computed just before */
        ir_pt prev = a[na - 1];
        double dp = orient * ir_v_cross(pq, ir_v_sub(prev, p));
        for (size_t i = 0; i < na; i++) {
            ir_pt cur = a[i];
            double dc = orient * ir_v_cross(pq, ir_v_sub(cur, p));
            if (dc >= 0) {
                if (dp < 0 && nb < max) b[nb++] = ir_v_lerp(prev, cur, dp / (dp - dc));
                if (nb < max) b[nb++] = cur;
            } else if (dp >= 0 && nb < max) {
                b[nb++] = ir_v_lerp(prev, cur, dp / (dp - dc));
            }
            prev = cur;
            dp = dc;
        }
        ir_pt *t = a; a = b; b = t;
        na = nb;
    }
    for (size_t i = 0; i < na; i++) out[i] = a[i];
    free(heap);
    return na >= 3 ? na : 0;
}

ir_pt ir_ellipse_at(ir_pt c, ir_pt a, ir_pt b, double tdeg)
{
    double t = tdeg * IR_PI / 180.0;
    return ir_v(c.x + a.x * cos(t) + b.x * sin(t), c.y + a.y * cos(t) + b.y * sin(t));
}

static size_t sample_count(double size, double sweep_deg)
{
    /* chord error r(1 - cos(dt/2)) <= 0.001 r  =>  dt <= ~5.1 degrees */
    (void)size;
    size_t n = (size_t)ceil(fabs(sweep_deg) / 5.0);
    if (n < 4) n = 4;
    if (n > 720) n = 720;
    return n;
}

/* The ellipse or arc parameters: start, sweep and number of steps. */
static int arc_params(const ir_elem *e, double *t1, double *sweep, size_t *k)
{
    if (e->npts < 3) return 0;
    double a = 0, b = 360;
    if (e->kind == IR_ARC) { a = e->t1; b = e->t2; }
    if (!isfinite(a) || !isfinite(b)) return 0;
    /* what is drawn: a sweep of more than a turn draws the whole ellipse
     * (once, not once per turn) */
    double sw = b - a;
    if (sw > 360) sw = 360;
    if (sw < -360) sw = -360;
    *t1 = a;
    *sweep = sw;
    *k = sample_count(0, sw);
    return 1;
}

size_t ir_elem_flatten_count(const ir_elem *e)
{
    double t1, sweep;
    size_t k;
    switch (e->kind) {
    case IR_POLY: return e->npts;
    case IR_RECT: return e->npts < 2 ? 0 : 4;
    case IR_ELLIPSE:
    case IR_ARC:
        if (!arc_params(e, &t1, &sweep, &k)) return 0;
        return e->kind == IR_ELLIPSE ? k : k + 1;
    case IR_CURVE: return e->npts < 4 ? 0 : 25;
    default: return 0;
    }
}

size_t ir_elem_flatten_to(const ir_elem *e, ir_pt *p, int *closed)
{
    if (closed) *closed = 0;
    size_t n = 0;
    switch (e->kind) {
    case IR_POLY:
        if (e->npts == 0) return 0;
        for (size_t i = 0; i < e->npts; i++) p[i] = e->pts[i];
        n = e->npts;
        if (closed) *closed = e->closed;
        break;
    case IR_RECT:
        if (e->npts < 2) return 0;
        p[0] = ir_v(e->pts[0].x, e->pts[0].y);
        p[1] = ir_v(e->pts[1].x, e->pts[0].y);
        p[2] = ir_v(e->pts[1].x, e->pts[1].y);
        p[3] = ir_v(e->pts[0].x, e->pts[1].y);
        n = 4;
        if (closed) *closed = 1;
        break;
    case IR_ELLIPSE:
    case IR_ARC: {
        double t1, sweep;
        size_t k;
        if (!arc_params(e, &t1, &sweep, &k)) return 0;
        int full = e->kind == IR_ELLIPSE;
        n = full ? k : k + 1;
        for (size_t i = 0; i < n; i++)
            p[i] = ir_ellipse_at(e->pts[0], e->pts[1], e->pts[2],
                                 t1 + sweep * (double)i / (double)k);
        if (closed) *closed = full;
        break;
    }
    case IR_CURVE: {
        if (e->npts < 4) return 0;
        const size_t k = 24;
        n = k + 1;
        for (size_t i = 0; i <= k; i++) {
            double t = (double)i / (double)k, s = 1 - t;
            double b0 = s * s * s, b1 = 3 * s * s * t, b2 = 3 * s * t * t, b3 = t * t * t;
            p[i] = ir_v(b0 * e->pts[0].x + b1 * e->pts[1].x + b2 * e->pts[2].x + b3 * e->pts[3].x,
                        b0 * e->pts[0].y + b1 * e->pts[1].y + b2 * e->pts[2].y + b3 * e->pts[3].y);
        }
        break;
    }
    default:
        return 0;
    }
    return n;
}

size_t ir_elem_flatten(const ir_elem *e, ir_pt **out, int *closed)
{
    *out = NULL;
    if (closed) *closed = 0;
    size_t n = ir_elem_flatten_count(e);
    if (n == 0) return 0;
    ir_pt *p = malloc(n * sizeof *p);
    if (!p) return 0;
    n = ir_elem_flatten_to(e, p, closed);
    if (n == 0) { free(p); return 0; }
    *out = p;
    return n;
}
