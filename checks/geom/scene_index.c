/* scene_index.c — the scene's spatial indexes: a hash of points (which
 * points lie within GEOM_JOIN_EPS_PT of a point) and a uniform grid over
 * the segments (which segments are near a box), and the grid layout the
 * segment grid and no-overlap's face grid share. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/limits.h"
#include "checks/geom/scene_internal.h"
#include "ir/xalloc.h"

/* --- the hash of points (see scene_internal.h) -------------------------- */
void pt_hash_init(pt_hash *h, size_t cap)
{
    unsigned bits = 4;
    while (((size_t)1 << bits) < 2 * cap) bits++;
    h->bits = bits;
    h->head = xcalloc((size_t)1 << bits, sizeof *h->head);
    h->next = xmalloc(cap * sizeof *h->next);
    h->cx = xmalloc(cap * sizeof *h->cx);
    h->cy = xmalloc(cap * sizeof *h->cy);
    h->n = 0;
}

void pt_hash_free(pt_hash *h)
{
    free(h->head);
    free(h->next);
    free(h->cx);
    free(h->cy);
}

long long pt_hash_cell(double v, double *frac)
{
    double q = v / PH_CELL, c = floor(q);
    if (frac) *frac = q - c;
    if (c > 1e15) c = 1e15;
    if (!(c >= -1e15)) c = -1e15;   /* and NaN: never cast */
    return (long long)c;
}

size_t pt_hash_bucket(const pt_hash *h, long long cx, long long cy)
{
    unsigned long long k = (unsigned long long)cx * 0x9E3779B97F4A7C15ULL +
                           (unsigned long long)cy * 0xC2B2AE3D27D4EB4FULL;
    return (size_t)(k >> (64 - h->bits));
}

/* Adds entry number h->n (the caller keeps its point) at p. */
void pt_hash_add(pt_hash *h, ir_pt p)
{
    size_t e = h->n++;
    h->cx[e] = pt_hash_cell(p.x, NULL);
    h->cy[e] = pt_hash_cell(p.y, NULL);
    size_t b = pt_hash_bucket(h, h->cx[e], h->cy[e]);
    h->next[e] = h->head[b];
    h->head[b] = (unsigned)(e + 1);
}

/* Calls fn(entry, arg) for the entries in the cells around p that may hold
 * points within GEOM_JOIN_EPS_PT of it, until fn returns nonzero; returns
 * that value, or 0. */
int pt_hash_near(const pt_hash *h, ir_pt p, int (*fn)(size_t, void *), void *arg)
{
    double fx, fy;
    long long cx = pt_hash_cell(p.x, &fx), cy = pt_hash_cell(p.y, &fy);
    /* the neighbouring columns and rows to look at */
    long long x0 = cx, x1 = cx, y0 = cy, y1 = cy;
    if (fx < 0.5 + 1e-6) x0 = cx - 1;
    if (fx > 0.5 - 1e-6) x1 = cx + 1;
    if (fy < 0.5 + 1e-6) y0 = cy - 1;
    if (fy > 0.5 - 1e-6) y1 = cy + 1;
    for (long long y = y0; y <= y1; y++)
        for (long long x = x0; x <= x1; x++) {
            size_t b = pt_hash_bucket(h, x, y);
            for (unsigned e = h->head[b]; e; e = h->next[e - 1]) {
                if (h->cx[e - 1] != x || h->cy[e - 1] != y) continue;
                int r = fn(e - 1, arg);
                if (r) return r;
            }
        }
    return 0;
}

/* The grid over the segments; with rays_only, over those that are rays
 * (ray_seg) now, in the same cells and order as the grid over all of them. */
static void grid_build(geom_scene *s, seg_grid *g, int rays_only)
{
    memset(g, 0, sizeof *g);
    if (s->nsegs == 0) return;
    ir_box all = seg_box(&s->segs[0], 0);
    for (size_t i = 1; i < s->nsegs; i++) {
        ir_box b = seg_box(&s->segs[i], 0);
        if (b.x1 < all.x1) all.x1 = b.x1;
        if (b.y1 < all.y1) all.y1 = b.y1;
        if (b.x2 > all.x2) all.x2 = b.x2;
        if (b.y2 > all.y2) all.y2 = b.y2;
    }
    /* about one segment per cell, at most 128 x 128 cells -- for more
     * than 16,384 segments (no drawing made to be read has as many) up to
     * twice the square root of their number a side, at most 1024, so that
     * a cell holds a few of them however many there are */
    int side = 128;
    if (s->nsegs > 16384) {
        double r = 2 * sqrt((double)s->nsegs);
        side = r < 1024 ? (int)r : 1024;
    }
    geom_grid_plan pl = geom_grid_layout(all, s->nsegs, 2.0, side);
    g->pl = pl;
    size_t ncell = (size_t)g->pl.nx * (size_t)g->pl.ny;
    g->start = xcalloc(ncell + 1, sizeof *g->start);
    g->stamp = xcalloc(s->nsegs, sizeof *g->stamp);
    g->range = xmalloc(s->nsegs * sizeof *g->range);
    for (size_t k = 0; k < s->nsegs; k++) {
        int *r = g->range[k];
        if (rays_only && !ray_seg(&s->segs[k])) {
            r[0] = r[1] = 0;
            r[2] = r[3] = -1;   /* in no cell */
            continue;
        }
        geom_grid_cells(&g->pl, seg_box(&s->segs[k], GEOM_JOIN_EPS_PT), &r[0], &r[1], &r[2], &r[3]);
        for (int j = r[1]; j <= r[3]; j++)
            for (int i = r[0]; i <= r[2]; i++) g->start[(size_t)j * (size_t)g->pl.nx + (size_t)i + 1]++;
    }
    for (size_t c = 0; c < ncell; c++) g->start[c + 1] += g->start[c];
    g->idx = xmalloc(g->start[ncell] * sizeof *g->idx);
    size_t *fill = xmalloc(ncell * sizeof *fill);
    memcpy(fill, g->start, ncell * sizeof *fill);
    for (size_t k = 0; k < s->nsegs; k++) {
        const int *r = g->range[k];
        for (int j = r[1]; j <= r[3]; j++)
            for (int i = r[0]; i <= r[2]; i++) g->idx[fill[(size_t)j * (size_t)g->pl.nx + (size_t)i]++] = k;
    }
    free(fill);
}

void scene_grid_free(seg_grid *g)
{
    free(g->start);
    free(g->idx);
    free(g->range);
    free(g->stamp);
}

/* The grid over the segments is built on first use: the segments are all
 * in place by then (their classes may still change, not their places). */
void scene_need_grid(scene_priv *p)
{
    if (p->grid_done) return;
    p->grid_done = 1;
    grid_build(&p->pub, &p->grid, 0);
}

/* The segments of grid g in the cells box b covers, each once, in the
 * order of the cells and, in a cell, of the segments. */
static size_t grid_near(const geom_scene *s, seg_grid *g, ir_box b, size_t **buf, size_t *cap);

size_t geom_segs_near(const geom_scene *s, ir_box b, size_t **buf, size_t *cap)
{
    scene_priv *p = scene_priv_of(s);
    scene_need_grid(p);
    return grid_near(s, &p->grid, b, buf, cap);
}

/* The straight figure lines have a grid of their own, built on first use:
 * a class changes only from a ray to a mark or a tick (scene_marks.c),
 * never to a ray, so the segments that were rays then hold every one that
 * is a ray later, and the callers still test ray_seg. In the same cells
 * and order as geom_segs_near gives them, the rays among its answer are
 * the same: a ray query does not walk over the arcs, marks, texts' frames
 * and grid lines around a corner (20,000 arcs on one corner took minutes). */
size_t scene_rays_near(const geom_scene *s, ir_box b, size_t **buf, size_t *cap)
{
    scene_priv *p = scene_priv_of(s);
    if (!p->rays_done) {
        p->rays_done = 1;
        grid_build(&p->pub, &p->rays, 1);
    }
    return grid_near(s, &p->rays, b, buf, cap);
}

static size_t grid_near(const geom_scene *s, seg_grid *g, ir_box b, size_t **buf, size_t *cap)
{
    size_t n = 0;
    if (scene_priv_of(s)->over) return 0;   /* the work allowed is done */
    if (!g->start || b.empty) return 0;
    int i0, j0, i1, j1;
    geom_grid_cells(&g->pl, b, &i0, &j0, &i1, &j1);
    if (i0 > i1 || j0 > j1) return 0;
    /* the segments of the cells, each once (stamped with this query) */
    if (++g->cur == 0) {        /* stamps wrapped: reset */
        memset(g->stamp, 0, s->nsegs * sizeof *g->stamp);
        g->cur = 1;
    }
    for (int j = j0; j <= j1; j++)
        for (int i = i0; i <= i1; i++) {
            size_t c = (size_t)j * (size_t)g->pl.nx + (size_t)i;
            for (size_t q = g->start[c]; q < g->start[c + 1]; q++) {
                size_t k = g->idx[q];
                if (g->stamp[k] == g->cur) continue;
                g->stamp[k] = g->cur;
                if (n >= *cap) {
                    size_t nc = *cap ? *cap * 2 : 64;
                    *buf = xrealloc(*buf, nc * sizeof **buf);
                    *cap = nc;
                }
                (*buf)[n++] = k;
            }
        }
    /* the entries walked, and the cells */
    unsigned long long walked = (unsigned long long)(i1 - i0 + 1) * (unsigned long long)(j1 - j0 + 1);
    for (int j = j0; j <= j1; j++) {
        size_t c = (size_t)j * (size_t)g->pl.nx;
        walked += g->start[c + (size_t)i1 + 1] - g->start[c + (size_t)i0];
    }
    return geom_spend(s, walked) ? n : 0;
}

geom_grid_plan geom_grid_layout(ir_box all, size_t n, double min_cs, int max_cells)
{
    geom_grid_plan p;
    double w = ir_box_w(all), h = ir_box_h(all);
    /* an extent no grid can cut into cells (not finite, or so wide that
     * the cells' numbers overflow): one cell holds everything */
    if (!(w >= 0 && w <= 1e150 && h >= 0 && h <= 1e150 && fabs(all.x1) <= 1e150 &&
          fabs(all.y1) <= 1e150)) {
        p.cs = 1.0;
        p.inv = 0;
        p.x0 = p.y0 = 0;
        p.nx = p.ny = 1;
        return p;
    }
    double cs = sqrt(fmax(w * h, 1.0) / (double)(n ? n : 1));
    if (cs < min_cs) cs = min_cs;
    if (w / cs > max_cells) cs = w / max_cells;
    if (h / cs > max_cells) cs = h / max_cells;
    p.cs = cs;
    p.inv = 1.0 / cs;
    p.x0 = all.x1 - 1.0;
    p.y0 = all.y1 - 1.0;
    p.nx = (int)((w + 2.0) / cs) + 1;
    p.ny = (int)((h + 2.0) / cs) + 1;
    return p;
}

