/* scene_corners.c — rays and corners: the directions of the straight
 * figure lines leaving a point, the angle between them, the figure's
 * corners (ends and crossings of its lines) and the names of points. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/limits.h"
#include "checks/geom/scene_internal.h"
#include "ir/xalloc.h"

/* --- sorting and a hash of points -------------------------------------- */
static void sort_doubles(double *a, size_t n)
{
    /* insertion sort: the arrays are a handful of ray directions */
    for (size_t i = 1; i < n; i++) {
        double v = a[i];
        size_t j = i;
        for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
        a[j] = v;
    }
}

static int pt_less(ir_pt p, ir_pt q)
{
    return p.x < q.x || (p.x == q.x && p.y < q.y);
}

/* SORT_FN(name, type, less): an in-place sort of n elements by less(a, b)
 * (quicksort, median of three, insertion sort for short runs). */
#define SORT_FN(name, type, less)                                              \
    static void name(type *a, size_t n)                                        \
    {                                                                          \
        while (n > 16) {                                                       \
            type x = a[0], y = a[n / 2], z = a[n - 1], piv;                    \
            if (less(x, y)) piv = less(y, z) ? y : (less(x, z) ? z : x);       \
            else piv = less(x, z) ? x : (less(y, z) ? z : y);                  \
            size_t i = 0, j = n - 1;                                           \
            for (;;) {                                                         \
                while (less(a[i], piv)) i++;                                   \
                while (less(piv, a[j])) j--;                                   \
                if (i >= j) break;                                             \
                type t = a[i]; a[i] = a[j]; a[j] = t;                          \
                i++;                                                           \
                j--;                                                           \
            }                                                                  \
            size_t left = j + 1;                                               \
            if (left < n - left) { name(a, left); a += left; n -= left; }      \
            else { name(a + left, n - left); n = left; }                       \
        }                                                                      \
        for (size_t i = 1; i < n; i++) {                                       \
            type v = a[i];                                                     \
            size_t j = i;                                                      \
            for (; j > 0 && less(v, a[j - 1]); j--) a[j] = a[j - 1];           \
            a[j] = v;                                                          \
        }                                                                      \
    }

SORT_FN(sort_pts, ir_pt, pt_less)

/* --- rays and corners ------------------------------------------------------ */
size_t scene_rays_excl(const geom_scene *s, ir_pt v, double min_len, double *dirs, size_t max,
                        size_t excl)
{
    size_t n = 0;
    double tmp[256];
    size_t *near = NULL, cap = 0;
    size_t nn = scene_rays_near(s, ir_box_inset(ir_box_make(v.x, v.y, v.x, v.y), GEOM_JOIN_EPS_PT),
                               &near, &cap);
    for (size_t q = 0; q < nn; q++) {
        const geom_seg *g = &s->segs[near[q]];
        if (!ray_seg(g) || g->elem == excl || g->len < min_len) continue;
        double da = ir_v_dist(g->a, v), db = ir_v_dist(g->b, v);
        if (da <= GEOM_JOIN_EPS_PT) {
            if (db >= min_len && n < 256) tmp[n++] = ir_v_dir_deg(ir_v_sub(g->b, v));
        } else if (db <= GEOM_JOIN_EPS_PT) {
            if (da >= min_len && n < 256) tmp[n++] = ir_v_dir_deg(ir_v_sub(g->a, v));
        } else {
            double t;
            if (ir_pt_seg_dist(v, g->a, g->b, &t) <= GEOM_JOIN_EPS_PT) {
                if (da >= min_len && n < 256) tmp[n++] = ir_v_dir_deg(ir_v_sub(g->a, v));
                if (db >= min_len && n < 256) tmp[n++] = ir_v_dir_deg(ir_v_sub(g->b, v));
            }
        }
    }
    free(near);
    sort_doubles(tmp, n);
    /* merge near-equal directions (also across 0/360) */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && tmp[i] - dirs[k - 1] < GEOM_COLLINEAR_DEG) continue;
        if (k < max) dirs[k++] = tmp[i];
    }
    if (k > 1 && dirs[0] + 360.0 - dirs[k - 1] < GEOM_COLLINEAR_DEG) k--;
    return k;
}

size_t geom_rays_at(const geom_scene *s, ir_pt v, double min_len, double *dirs, size_t max)
{
    return scene_rays_excl(s, v, min_len, dirs, max, (size_t)-1);
}

void geom_blame_ray(const geom_scene *s, ir_pt v, double dir, chk_verdict *out)
{
    size_t *near = NULL, cap = 0;
    size_t nn = scene_rays_near(s, ir_box_inset(ir_box_make(v.x, v.y, v.x, v.y), GEOM_JOIN_EPS_PT),
                               &near, &cap);
    for (size_t q = 0; q < nn; q++) {
        const geom_seg *g = &s->segs[near[q]];
        if (!ray_seg(g) || g->len < GEOM_RAY_MIN_PT) continue;
        double da = ir_v_dist(g->a, v), db = ir_v_dist(g->b, v);
        double dirs[2];
        int k = 0;
        if (da <= GEOM_JOIN_EPS_PT) {
            dirs[k++] = ir_v_dir_deg(ir_v_sub(g->b, v));
        } else if (db <= GEOM_JOIN_EPS_PT) {
            dirs[k++] = ir_v_dir_deg(ir_v_sub(g->a, v));
        } else if (ir_pt_seg_dist(v, g->a, g->b, NULL) <= GEOM_JOIN_EPS_PT) {
            dirs[k++] = ir_v_dir_deg(ir_v_sub(g->a, v));
            dirs[k++] = ir_v_dir_deg(ir_v_sub(g->b, v));
        }
        for (int j = 0; j < k; j++) {
            double diff = fabs(fmod(dirs[j] - dir + 540.0, 360.0) - 180.0);
            if (diff <= GEOM_COLLINEAR_DEG) chk_blame(out, g->elem);
        }
    }
    free(near);
}

void geom_blame_point(const geom_scene *s, ir_pt p, chk_verdict *out)
{
    const ir_diagram *d = s->d;
    int dots = 0;
    for (size_t i = 0; i < d->nelems && s->ndots; i++) {
        const ir_elem *e = &d->elems[i];
        const geom_attrs *at = &s->attrs[i];
        if (!e->npts || (!at->stroked && !at->filled) || !scene_is_dot(e, at)) continue;
        if (ir_v_dist(e->pts[0], p) > GEOM_DOT_MERGE_PT) continue;
        chk_blame(out, i);
        dots = 1;
    }
    if (dots) return;
    size_t *near = NULL, cap = 0;
    size_t nn = scene_rays_near(s, ir_box_inset(ir_box_make(p.x, p.y, p.x, p.y), GEOM_JOIN_EPS_PT),
                               &near, &cap);
    for (size_t q = 0; q < nn; q++) {
        const geom_seg *g = &s->segs[near[q]];
        if (ray_seg(g) && ir_pt_seg_dist(p, g->a, g->b, NULL) <= GEOM_JOIN_EPS_PT)
            chk_blame(out, g->elem);
    }
    free(near);
}

static double angle_from_rays(const double *r, size_t k, double dir, double *r1, double *r2)
{
    if (k < 2) return -1;
    for (size_t i = 0; i < k; i++) {
        double a = r[i], b = r[(i + 1) % k];
        double sweep = ir_ccw_sweep_deg(a, b);
        if (k == 1) sweep = 360;
        if (ir_ccw_sweep_deg(a, dir) <= sweep) {
            if (sweep <= 180.5) {
                if (r1) *r1 = a;
                if (r2) *r2 = b;
                return sweep;
            }
            /* dir lies in a reflex gap: the viewer reads the angle between
             * the two rays bounding the gap, measured the short way */
            if (r1) *r1 = b;
            if (r2) *r2 = a;
            return 360.0 - sweep;
        }
    }
    return -1;
}

double geom_angle_at(const geom_scene *s, ir_pt v, double dir, double *r1, double *r2)
{
    double r[32];
    size_t k = geom_rays_at(s, v, GEOM_RAY_MIN_PT, r, 32);
    return angle_from_rays(r, k, dir, r1, r2);
}

int scene_is_corner(const geom_scene *s, ir_pt v)
{
    double r[32];
    size_t k = geom_rays_at(s, v, 3.0, r, 32);
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++) {
            double d = ir_dir_diff_deg(r[i], r[j]);
            if (d > GEOM_CORNER_MIN_DEG && d < 180 - GEOM_CORNER_MIN_DEG) return 1;
        }
    return 0;
}

static void ptlist_add(ptlist *l, ir_pt p)
{
    GROW(l->p, l->n, l->cap);
    l->p[l->n++] = p;
}

/* Merges points closer than GEOM_JOIN_EPS_PT: in order of x (then y),
 * each point is kept unless a point kept before lies that close. */
typedef struct {
    const ir_pt *kept;
    ir_pt p;
} dedupe_q;

static int near_kept(size_t e, void *arg)
{
    const dedupe_q *q = arg;
    return ir_v_dist(q->p, q->kept[e]) <= GEOM_JOIN_EPS_PT;
}

static void ptlist_dedupe(ptlist *l)
{
    if (l->n < 2) return;
    sort_pts(l->p, l->n);
    pt_hash h;
    pt_hash_init(&h, l->n);
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        dedupe_q q = {l->p, l->p[i]};
        if (pt_hash_near(&h, l->p[i], near_kept, &q)) continue;
        l->p[k++] = l->p[i];
        pt_hash_add(&h, l->p[i]);
    }
    pt_hash_free(&h);
    l->n = k;
}

/* Adds to the corner candidates the points where straight figure lines of
 * different elements cross (inside both), segment by segment in order, until
 * there are more than 4000 candidates. */
static int ray_seg0(const scene_priv *p, size_t i)
{
    int c = p->cls0 ? p->cls0[i] : (int)p->pub.segs[i].cls;
    return (c == SEG_FIGURE || c == SEG_DIM) && !p->pub.segs[i].curved;
}

static void add_crossings(const geom_scene *s, ptlist *cand)
{
    scene_priv *p = scene_priv_of(s);
    scene_need_grid(p);
    const seg_grid *g = &p->grid;
    if (!g->start) return;
    for (size_t i = 0; i < s->nsegs && cand->n <= 4000; i++) {
        const geom_seg *a = &s->segs[i];
        if (!ray_seg0(p, i)) continue;
        ir_box ba = seg_box(a, 0);
        int i0, j0, i1, j1;
        geom_grid_cells(&g->pl, ba, &i0, &j0, &i1, &j1);
        for (int cy = j0; cy <= j1; cy++)
            for (int cx = i0; cx <= i1; cx++) {
                size_t c = (size_t)cy * (size_t)g->pl.nx + (size_t)cx;
                for (size_t q = g->start[c]; q < g->start[c + 1]; q++) {
                    size_t j = g->idx[q];
                    if (j <= i) continue;
                    const geom_seg *b = &s->segs[j];
                    if (!ray_seg0(p, j) || b->elem == a->elem) continue;
                    ir_box bb = seg_box(b, 0);
                    if (bb.x1 > ba.x2 || bb.x2 < ba.x1 || bb.y1 > ba.y2 || bb.y2 < ba.y1) continue;
                    /* lines sharing an end meet only there */
                    if ((a->a.x == b->a.x && a->a.y == b->a.y) || (a->a.x == b->b.x && a->a.y == b->b.y) ||
                        (a->b.x == b->a.x && a->b.y == b->a.y) || (a->b.x == b->b.x && a->b.y == b->b.y))
                        continue;
                    double t, u;
                    if (!(ir_seg_intersect(a->a, a->b, b->a, b->b, &t, &u) && t > GEOM_INTERIOR &&
                          t < 1 - GEOM_INTERIOR && u > GEOM_INTERIOR && u < 1 - GEOM_INTERIOR))
                        continue;
                    /* the pair is seen in every cell the two share: count it
                     * in the one holding the crossing */
                    ir_pt x = ir_v_lerp(a->a, a->b, t);
                    const int *rb = g->range[j];
                    int k0, l0, k1, l1;
                    geom_grid_cells(&g->pl, ir_box_make(x.x, x.y, x.x, x.y), &k0, &l0, &k1, &l1);
                    if (k0 < i0) k0 = i0;
                    if (k0 < rb[0]) k0 = rb[0];
                    if (k0 > i1) k0 = i1;
                    if (k0 > rb[2]) k0 = rb[2];
                    if (l0 < j0) l0 = j0;
                    if (l0 < rb[1]) l0 = rb[1];
                    if (l0 > j1) l0 = j1;
                    if (l0 > rb[3]) l0 = rb[3];
                    if (k0 == cx && l0 == cy) ptlist_add(cand, x);
                }
            }
    }
}

/* The corner candidates: the ends of straight figure lines and the points
 * where such lines of different elements cross, merged; computed on first
 * use. */
static void need_cand(const geom_scene *s)
{
    scene_priv *p = scene_priv_of(s);
    if (p->cand_done) return;
    p->cand_done = 1;
    for (size_t i = 0; i < s->nsegs; i++) {
        if (!ray_seg0(p, i)) continue;
        ptlist_add(&p->cand, s->segs[i].a);
        ptlist_add(&p->cand, s->segs[i].b);
    }
    add_crossings(s, &p->cand);
    ptlist_dedupe(&p->cand);
    p->corner = xmalloc(p->cand.n);
    memset(p->corner, 0xff, p->cand.n);   /* -1: not known yet */
}

static int cand_is_corner(const geom_scene *s, size_t i)
{
    scene_priv *p = scene_priv_of(s);
    if (p->corner[i] < 0) p->corner[i] = (char)scene_is_corner(s, p->cand.p[i]);
    return p->corner[i];
}

double geom_mark_angle(const geom_scene *s, const geom_mark *m, double *r1, double *r2)
{
    /* the sector holding the mark's ink (an arc's middle, a square's centre) */
    if (!m->has_vertex || ir_v_dist(m->c, m->vertex) < 1e-6) return -1;
    double dir = ir_v_dir_deg(ir_v_sub(m->c, m->vertex));
    return geom_angle_at(s, m->vertex, dir, r1, r2);
}

size_t geom_corners(const geom_scene *s, ir_box zone, ir_pt *out, size_t max)
{
    need_cand(s);
    const scene_priv *p = scene_priv_of(s);
    size_t n = 0;
    for (size_t i = 0; i < p->cand.n; i++) {
        if (!ir_box_contains_pt(zone, p->cand.p[i])) continue;
        if (!cand_is_corner(s, i)) continue;
        if (out && n < max) out[n] = p->cand.p[i];
        n++;
    }
    return out ? (n < max ? n : max) : n;
}

/* The corner candidates near box q (an index over them, built on first
 * use), in the order of the candidates; *buf, *cap as geom_segs_near's. */
static size_t cand_near(const geom_scene *s, ir_box q, size_t **buf, size_t *cap)
{
    need_cand(s);
    scene_priv *p = scene_priv_of(s);
    if (!p->cand_ix_done) {
        p->cand_ix_done = 1;
        ir_box *b = xmalloc((p->cand.n ? p->cand.n : 1) * sizeof *b);
        for (size_t i = 0; i < p->cand.n; i++)
            b[i] = ir_box_make(p->cand.p[i].x, p->cand.p[i].y, p->cand.p[i].x, p->cand.p[i].y);
        ir_box_index_build(&p->cand_ix, b, p->cand.n);
        free(b);
    }
    return geom_ix_query(s, &p->cand_ix, q, buf, cap);
}

int geom_nearest_corner(const geom_scene *s, ir_pt q, double reach, ir_pt *v, double *dist)
{
    need_cand(s);
    const scene_priv *p = scene_priv_of(s);
    double best = reach;
    int found = 0;
    /* the candidates within reach (none for a negative one; a NaN reach
     * or q, or an infinite one, gets them all, as the loop over all did) */
    size_t *near = NULL, cap = 0, nn = 0;
    if (!(reach < 0)) nn = cand_near(s, ir_box_inset(ir_box_make(q.x, q.y, q.x, q.y), reach), &near, &cap);
    for (size_t k = 0; k < nn; k++) {
        size_t i = near[k];
        double d = ir_v_dist(p->cand.p[i], q);
        if (d > best) continue;
        if (!cand_is_corner(s, i)) continue;
        best = d;
        *v = p->cand.p[i];
        found = 1;
    }
    free(near);
    if (found && dist) *dist = best;
    return found;
}

/* geom_point_name's indexes: over the named coord elements (their points
 * grown by the reach 2 GEOM_JOIN_EPS_PT) and over the name texts (what
 * they name, their box or of=, grown by 1.5 em). */
static void need_names(const geom_scene *s)
{
    scene_priv *p = scene_priv_of(s);
    if (p->names_done) return;
    p->names_done = 1;
    const ir_diagram *d = s->d;
    size_t nb = d->nelems > s->ntexts ? d->nelems : s->ntexts;
    ir_box *b = xmalloc((nb ? nb : 1) * sizeof *b);
    size_t k = 0;
    p->coord_el = xmalloc((d->nelems ? d->nelems : 1) * sizeof *p->coord_el);
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (e->kind == IR_COORD && e->npts >= 1 && e->name && strlen(e->name) <= 6) {
            p->coord_el[k] = i;
            b[k++] = ir_box_inset(ir_box_make(e->pts[0].x, e->pts[0].y, e->pts[0].x, e->pts[0].y),
                                  2 * GEOM_JOIN_EPS_PT);
        }
    }
    ir_box_index_build(&p->coord_ix, b, k);
    k = 0;
    p->name_tx = xmalloc((s->ntexts ? s->ntexts : 1) * sizeof *p->name_tx);
    for (size_t i = 0; i < s->ntexts; i++) {
        const geom_text *t = &s->texts[i];
        if (t->kind != TXT_NAME) continue;
        ir_box tb = t->has_of ? ir_box_make(t->of.x, t->of.y, t->of.x, t->of.y) : t->box;
        p->name_tx[k] = i;
        b[k++] = ir_box_inset(tb, GEOM_NAME_REACH_EM * geom_em(t));
    }
    ir_box_index_build(&p->name_ix, b, k);
    free(b);
}

const char *geom_point_name(const geom_scene *s, ir_pt p, char *buf, size_t n)
{
    const ir_diagram *d = s->d;
    need_names(s);
    scene_priv *sp = scene_priv_of(s);
    size_t *near = NULL, cap = 0;
    ir_box pb = ir_box_make(p.x, p.y, p.x, p.y);
    size_t nn = geom_ix_query(s, &sp->coord_ix, pb, &near, &cap);
    for (size_t q = 0; q < nn; q++) {
        const ir_elem *e = &d->elems[sp->coord_el[near[q]]];
        if (ir_v_dist(e->pts[0], p) <= 2 * GEOM_JOIN_EPS_PT) {
            snprintf(buf, n, "%s", e->name);
            free(near);
            return buf;
        }
    }
    const geom_text *best = NULL;
    double bd = 0;
    nn = geom_ix_query(s, &sp->name_ix, pb, &near, &cap);
    for (size_t q = 0; q < nn; q++) {
        const geom_text *t = &s->texts[sp->name_tx[near[q]]];
        double dd = t->has_of ? ir_v_dist(t->of, p) : ir_box_pt_dist(t->box, p);
        if (dd <= GEOM_NAME_REACH_EM * geom_em(t) && (!best || dd < bd)) { best = t; bd = dd; }
    }
    free(near);
    if (best) snprintf(buf, n, "%s", best->show);
    else snprintf(buf, n, "(%.1f,%.1f)", p.x, p.y);
    return buf;
}
