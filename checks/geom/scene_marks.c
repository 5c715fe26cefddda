/* scene_marks.c — angle marks and tick marks the front end did not tag:
 * right-angle squares, angle arcs, and short strokes across a line; the
 * segments' classes change with them (cls0 keeps the ones before). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/scene_internal.h"
#include "ir/xalloc.h"

/* Keeps the segments' classes as they are (cls0), once, before the first
 * change after the scene's segments are in place. */
static void snapshot_cls(geom_scene *s)
{
    scene_priv *p = scene_priv_of(s);
    if (!p->cls_frozen || p->cls0) return;
    p->cls0 = xmalloc(s->nsegs);
    for (size_t i = 0; i < s->nsegs; i++) p->cls0[i] = (unsigned char)s->segs[i].cls;
}

/* Re-tag the segments of element idx. The segments are in the order of
 * their elements (geom_scene_build adds them element by element): those of
 * idx are one run, found by bisection, not by a scan of all of them (which
 * made a diagram of n marks take n^2 steps). */
static void retag(geom_scene *s, size_t idx, geom_seg_class cls)
{
    snapshot_cls(s);
    size_t lo = 0, hi = s->nsegs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->segs[mid].elem < idx) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < s->nsegs && s->segs[i].elem == idx; i++) s->segs[i].cls = cls;
}

static double ray_len_along(const geom_scene *s, ir_pt v, double dir, size_t excl)
{
    /* longest straight figure segment leaving v in direction dir */
    double best = 0;
    size_t *near = NULL, cap = 0;
    size_t nn = scene_rays_near(s, ir_box_inset(ir_box_make(v.x, v.y, v.x, v.y), GEOM_JOIN_EPS_PT),
                               &near, &cap);
    for (size_t q = 0; q < nn; q++) {
        const geom_seg *g = &s->segs[near[q]];
        if (!ray_seg(g) || g->elem == excl) continue;
        ir_pt far;
        if (ir_v_dist(g->a, v) <= GEOM_JOIN_EPS_PT) far = g->b;
        else if (ir_v_dist(g->b, v) <= GEOM_JOIN_EPS_PT) far = g->a;
        else {
            if (ir_pt_seg_dist(v, g->a, g->b, NULL) > GEOM_JOIN_EPS_PT) continue;
            far = ir_dir_diff_deg(ir_v_dir_deg(ir_v_sub(g->a, v)), dir) <
                          ir_dir_diff_deg(ir_v_dir_deg(ir_v_sub(g->b, v)), dir)
                      ? g->a
                      : g->b;
        }
        if (ir_dir_diff_deg(ir_v_dir_deg(ir_v_sub(far, v)), dir) <= GEOM_SAME_DIR_DEG) {
            double l = ir_v_dist(far, v);
            if (l > best) best = l;
        }
    }
    free(near);
    return best;
}

/* Does p lie on a straight figure line of another element? */
static int on_figure_line(const geom_scene *s, ir_pt p, size_t excl)
{
    size_t *near = NULL, cap = 0;
    size_t nn = geom_segs_near(s, ir_box_inset(ir_box_make(p.x, p.y, p.x, p.y), GEOM_JOIN_EPS_PT),
                               &near, &cap);
    int hit = 0;
    for (size_t q = 0; q < nn && !hit; q++) {
        const geom_seg *g = &s->segs[near[q]];
        if (g->elem == excl || g->cls != SEG_FIGURE) continue;
        if (ir_pt_seg_dist(p, g->a, g->b, NULL) <= GEOM_JOIN_EPS_PT) hit = 1;
    }
    free(near);
    return hit;
}

static int near_ray(const double *r, size_t k, double dir, double tol)
{
    for (size_t i = 0; i < k; i++)
        if (ir_dir_diff_deg(r[i], dir) <= tol) return 1;
    return 0;
}

static void add_mark(geom_scene *s, size_t *cap, geom_mark m)
{
    GROW(s->marks, s->nmarks, *cap);
    s->marks[s->nmarks++] = m;
}

/* Right-angle marks and angle arcs that the front end did not tag: small
 * squares/L-shapes with a corner on a figure corner whose sides run along
 * the corner's lines, and small arcs centred on a corner. */
void scene_find_marks(geom_scene *s, size_t *mcap)
{
    const ir_diagram *d = s->d;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (s->frame[i]) continue;
        const geom_attrs *at = &s->attrs[i];
        geom_seg_class cls = scene_elem_class(at);
        int explicit_ra = at->role == ROLE_RIGHT_ANGLE;
        int explicit_am = at->role == ROLE_ANGLE_MARK;
        if (!explicit_ra && !explicit_am && cls != SEG_FIGURE) continue;
        if (!at->stroked && !explicit_ra && !explicit_am) continue;
        if (!explicit_ra && !explicit_am && !(e->kind == IR_ARC && e->npts >= 3)) {
            /* only a right-angle mark it could be (below): not filled, and
             * of one of its shapes */
            if (at->filled) continue;
            if (!(e->kind == IR_POLY && e->npts == 3 && !e->closed) &&
                !(e->kind == IR_POLY && e->npts == 4 && e->closed) &&
                !(e->kind == IR_RECT && e->npts >= 2))
                continue;
        }
        geom_mark m;
        memset(&m, 0, sizeof m);
        m.elem = i;
        m.line = e->line;
        m.explicit_role = explicit_ra || explicit_am;
        ir_box bx = ir_elem_box(e);
        m.c = ir_box_center(bx);
        ir_pt vv;
        int hv = 0;
        const char *va = at->vertex;
        if (va && scene_parse_pts(va, &vv, 1)) hv = 1;

        if (e->kind == IR_ARC && e->npts >= 3) {
            double rad = (ir_v_len(e->pts[1]) + ir_v_len(e->pts[2])) / 2;
            double sweep = fabs(e->t2 - e->t1);
            ir_pt c = hv ? vv : e->pts[0];
            if (!explicit_am) {
                if (rad > GEOM_MARK_MAX_PT || sweep >= 180.0 || sweep < GEOM_CORNER_MIN_DEG) continue;
                double r[32];
                size_t k = scene_rays_excl(s, c, 3.0, r, 32, i);
                if (k < 2 || !scene_is_corner(s, c)) continue;
            }
            ir_pt p1 = ir_ellipse_at(e->pts[0], e->pts[1], e->pts[2], e->t1);
            ir_pt p2 = ir_ellipse_at(e->pts[0], e->pts[1], e->pts[2], e->t2);
            ir_pt pm = ir_ellipse_at(e->pts[0], e->pts[1], e->pts[2], (e->t1 + e->t2) / 2);
            m.kind = MARK_ARC;
            m.vertex = c;
            m.has_vertex = 1;
            m.size = rad;
            m.c = pm;
            m.d1 = ir_v_dir_deg(ir_v_sub(p1, c));
            m.d2 = ir_v_dir_deg(ir_v_sub(p2, c));
            /* orient d1 -> d2 counter-clockwise through the arc's middle */
            double dm = ir_v_dir_deg(ir_v_sub(pm, c));
            if (ir_ccw_sweep_deg(m.d1, dm) > ir_ccw_sweep_deg(m.d1, m.d2)) {
                double t = m.d1; m.d1 = m.d2; m.d2 = t;
            }
            add_mark(s, mcap, m);
            retag(s, i, SEG_MARK);
            continue;
        }
        if (explicit_am) {
            m.kind = MARK_ARC;
            m.vertex = hv ? vv : m.c;
            m.has_vertex = hv;
            m.size = fmax(ir_box_w(bx), ir_box_h(bx)) / 2;
            if (e->npts >= 2) {
                m.d1 = ir_v_dir_deg(ir_v_sub(e->pts[0], m.vertex));
                m.d2 = ir_v_dir_deg(ir_v_sub(e->pts[e->npts - 1], m.vertex));
                if (ir_ccw_sweep_deg(m.d1, m.d2) > 180) { double t = m.d1; m.d1 = m.d2; m.d2 = t; }
            }
            add_mark(s, mcap, m);
            continue;
        }

        /* right-angle marks */
        ir_pt cand[4];
        size_t nc = 0;
        double side = 0;
        if (e->kind == IR_POLY && e->npts == 3 && !e->closed) {
            ir_pt p1 = e->pts[0], p3 = e->pts[1], p2 = e->pts[2];
            double l1 = ir_v_dist(p1, p3), l2 = ir_v_dist(p2, p3);
            if (l1 <= 0 || l2 <= 0 || l1 / l2 > GEOM_MARK_SIDES || l2 / l1 > GEOM_MARK_SIDES) continue;
            cand[nc++] = ir_v_sub(ir_v_add(p1, p2), p3);
            side = fmax(l1, l2);
        } else if (e->kind == IR_POLY && e->npts == 4 && e->closed) {
            for (size_t k = 0; k < 4; k++) cand[nc++] = e->pts[k];
            side = fmax(ir_v_dist(e->pts[0], e->pts[1]), ir_v_dist(e->pts[1], e->pts[2]));
        } else if (e->kind == IR_RECT && e->npts >= 2) {
            cand[nc++] = e->pts[0];
            cand[nc++] = ir_v(e->pts[1].x, e->pts[0].y);
            cand[nc++] = e->pts[1];
            cand[nc++] = ir_v(e->pts[0].x, e->pts[1].y);
            side = fmax(ir_box_w(bx), ir_box_h(bx));
        } else {
            if (!explicit_ra) continue;
        }
        if (!explicit_ra && (side <= 0 || side > GEOM_MARK_MAX_PT)) continue;
        /* marks are thin strokes, not filled faces */
        if (!explicit_ra && at->filled) continue;
        int placed = 0;
        for (size_t k = 0; k < nc && !placed; k++) {
            ir_pt v = hv ? vv : cand[k];
            double r[32];
            size_t nr = scene_rays_excl(s, v, 3.0, r, 32, i);
            if (nr < 2) continue;
            /* the mark's two sides leaving v must run along lines at v */
            ir_pt a, b;
            if (e->kind == IR_POLY && e->npts == 3) { a = e->pts[0]; b = e->pts[2]; }
            else { a = cand[(k + 1) % 4]; b = cand[(k + 3) % 4]; }
            double da = ir_v_dir_deg(ir_v_sub(a, v)), db = ir_v_dir_deg(ir_v_sub(b, v));
            int on_a = near_ray(r, nr, da, 10.0), on_b = near_ray(r, nr, db, 10.0);
            if (!explicit_ra) {
                /* both sides along the corner's lines, the far corner free:
                 * a mark, not a face of the figure (unit cubes) or a square
                 * straddling a line */
                if (!(on_a && on_b) || at->filled) continue;
                ir_pt far = e->kind == IR_POLY && e->npts == 3 ? e->pts[1] : cand[(k + 2) % 4];
                if (on_figure_line(s, far, i)) continue;
            }
            /* small relative to the lines it marks */
            double la = ray_len_along(s, v, da, i), lb = ray_len_along(s, v, db, i);
            double shortest = fmax(la, lb);
            if (on_a && on_b) shortest = fmin(la, lb);
            if (!explicit_ra && side > GEOM_MARK_FRAC * shortest) continue;
            m.kind = MARK_RIGHT;
            m.vertex = v;
            m.has_vertex = 1;
            m.size = side;
            placed = 1;
        }
        if (!placed) {
            if (!explicit_ra) continue;
            m.kind = MARK_RIGHT;
            m.has_vertex = hv;
            m.vertex = hv ? vv : (nc ? cand[0] : m.c);
            m.size = side > 0 ? side : fmax(ir_box_w(bx), ir_box_h(bx));
        }
        add_mark(s, mcap, m);
        retag(s, i, SEG_MARK);
    }
}

/* Short strokes across a longer figure line near their middle: tick marks. */
void scene_find_ticks(geom_scene *s)
{
    /* only a two-point polyline can be a tick */
    size_t n2 = 0;
    for (size_t i = 0; i < s->d->nelems && !n2; i++)
        n2 = s->d->elems[i].kind == IR_POLY && s->d->elems[i].npts == 2;
    if (!n2) return;
    size_t *near = NULL, cap = 0;
    for (size_t i = 0; i < s->nsegs; i++) {
        geom_seg *g = &s->segs[i];
        if (g->cls != SEG_FIGURE || g->curved || g->len > GEOM_TICK_MAX_PT) continue;
        const ir_elem *e = &s->d->elems[g->elem];
        if (!(e->kind == IR_POLY && e->npts == 2)) continue;
        size_t nn = geom_segs_near(s, seg_box(g, GEOM_JOIN_EPS_PT), &near, &cap);
        for (size_t q = 0; q < nn; q++) {
            size_t j = near[q];
            const geom_seg *h = &s->segs[j];
            if (j == i || h->cls != SEG_FIGURE || h->len < GEOM_TICK_SIDE * g->len || h->elem == g->elem)
                continue;
            double t, u;
            if (!ir_seg_intersect(g->a, g->b, h->a, h->b, &t, &u)) continue;
            if (t < GEOM_TICK_SPAN || t > 1 - GEOM_TICK_SPAN || u < GEOM_TICK_END || u > 1 - GEOM_TICK_END) continue;
            double ang = ir_line_diff_deg(ir_v_dir_deg(ir_v_sub(g->b, g->a)),
                                          ir_v_dir_deg(ir_v_sub(h->b, h->a)));
            if (ang < GEOM_TICK_ANGLE_DEG) continue;
            snapshot_cls(s);
            g->cls = SEG_TICK;
            s->has_ticks = 1;
            break;
        }
    }
    free(near);
}
