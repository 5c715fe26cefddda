/* scene_joins.c — where the figure's lines meet: the ends shared with
 * another line (shared[]) and the connected pieces of the figure
 * (components, on first use). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/scene_internal.h"
#include "ir/xalloc.h"

typedef struct {
    ir_pt p;
    size_t seg;
    int paired;
} endref;

static int uf_find(int *p, int x)
{
    while (p[x] != x) { p[x] = p[p[x]]; x = p[x]; }
    return x;
}

static void uf_union(int *p, size_t a, size_t b)
{
    int x = uf_find(p, (int)a), y = uf_find(p, (int)b);
    if (x != y) p[x] = y;
}

typedef struct {
    endref *ends;
    const unsigned *first, *count, *next;
    size_t c;
    int *uf;
} meet_q;

/* Cluster e and cluster q->c, apart: do they meet, with an end of one line
 * in each? (Each pair of clusters is looked at from the later one.) */
static int meet_cluster(size_t e, void *arg)
{
    meet_q *q = arg;
    if (e >= q->c) return 0;
    endref *a = &q->ends[q->first[q->c]], *b = &q->ends[q->first[e]];
    if (ir_v_dist(a->p, b->p) > GEOM_JOIN_EPS_PT) return 0;
    if (q->count[q->c] == 1 && q->count[e] == 1 && a->seg == b->seg) return 0;
    for (unsigned i = q->first[q->c]; i != (unsigned)-1; i = q->next[i]) q->ends[i].paired = 1;
    for (unsigned i = q->first[e]; i != (unsigned)-1; i = q->next[i]) q->ends[i].paired = 1;
    uf_union(q->uf, a->seg, b->seg);
    return 0;
}

static void components(geom_scene *s)
{
    /* only once, on first use (geom_need_comps) */
    size_t n = s->nsegs;
    if (n == 0) return;
    int *p = xmalloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++) p[i] = (int)i;
    size_t *near = NULL, cap = 0;
    size_t prev = (size_t)-1;   /* previous figure segment */
    for (size_t i = 0; i < n; i++) {
        const geom_seg *g = &s->segs[i];
        if (g->cls != SEG_FIGURE) continue;
        /* pieces of one element belong together */
        if (prev != (size_t)-1 && s->segs[prev].elem == g->elem) {
            int a = uf_find(p, (int)prev), b = uf_find(p, (int)i);
            if (a != b) p[a] = b;
        }
        prev = i;
    }
    /* lines meet where they share an end: ends at the same point are one
     * cluster, and clusters closer than GEOM_JOIN_EPS_PT meet ... */
    endref *ends = xmalloc(2 * n * sizeof *ends);
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        if (s->segs[i].cls != SEG_FIGURE) continue;
        ends[ne].p = s->segs[i].a; ends[ne].seg = i; ends[ne].paired = 0; ne++;
        ends[ne].p = s->segs[i].b; ends[ne].seg = i; ends[ne].paired = 0; ne++;
    }
    /* clusters, numbered in order of appearance, hashed by their cell;
     * each holds a list of its ends */
    unsigned *first = xmalloc(ne * sizeof *first);   /* per cluster */
    unsigned *count = xmalloc(ne * sizeof *count);
    unsigned *nextend = xmalloc(ne * sizeof *nextend);   /* per end */
    pt_hash h;
    pt_hash_init(&h, ne);
    size_t ncl = 0;
    for (size_t i = 0; i < ne; i++) {
        ir_pt q = ends[i].p;
        long long cx = pt_hash_cell(q.x, NULL), cy = pt_hash_cell(q.y, NULL);
        size_t b = pt_hash_bucket(&h, cx, cy);
        unsigned c = 0;
        for (unsigned e = h.head[b]; e; e = h.next[e - 1]) {
            const endref *r = &ends[first[e - 1]];
            if (r->p.x == q.x && r->p.y == q.y) { c = e; break; }
        }
        if (c) {
            /* the same point: join the cluster */
            c--;
            uf_union(p, ends[i].seg, ends[first[c]].seg);
            nextend[i] = first[c];
            first[c] = (unsigned)i;
            count[c]++;
            continue;
        }
        first[ncl] = (unsigned)i;
        count[ncl] = 1;
        nextend[i] = (unsigned)-1;
        h.cx[ncl] = cx;
        h.cy[ncl] = cy;
        h.next[ncl] = h.head[b];
        h.head[b] = (unsigned)(ncl + 1);
        h.n = ++ncl;
    }
    /* a cluster of two ends or more holds ends of two lines (a line's two
     * ends are apart); shared[] was marked from the same clusters in
     * scene_mark_shared */
    for (size_t c = 0; c < ncl; c++) {
        if (count[c] < 2) continue;
        for (unsigned i = first[c]; i != (unsigned)-1; i = nextend[i]) ends[i].paired = 1;
    }
    for (size_t c = 0; c < ncl; c++) {
        meet_q q = {ends, first, count, nextend, c, p};
        pt_hash_near(&h, ends[first[c]].p, meet_cluster, &q);
    }
    pt_hash_free(&h);
    free(first);
    free(count);
    free(nextend);
    /* ... or where an end lies on the other line (T junctions) */
    for (size_t e = 0; e < ne; e++) {
        if (ends[e].paired) continue;
        ir_pt q0 = ends[e].p;
        size_t i = ends[e].seg;
        ir_box eb = ir_box_inset(ir_box_make(q0.x, q0.y, q0.x, q0.y), GEOM_JOIN_EPS_PT);
        size_t nn = geom_segs_near(s, eb, &near, &cap);
        for (size_t q = 0; q < nn; q++) {
            size_t j = near[q];
            const geom_seg *h = &s->segs[j];
            if (j == i || h->cls != SEG_FIGURE) continue;
            if (ir_pt_seg_dist(q0, h->a, h->b, NULL) <= GEOM_JOIN_EPS_PT) {
                int a = uf_find(p, (int)i), b = uf_find(p, (int)j);
                if (a != b) p[a] = b;
            }
        }
    }
    free(ends);
    free(near);
    int nc = 0;
    int *id = xmalloc(n * sizeof *id);
    for (size_t i = 0; i < n; i++) id[i] = -1;
    for (size_t i = 0; i < n; i++) {
        if (s->segs[i].cls != SEG_FIGURE) continue;
        int r = uf_find(p, (int)i);
        if (id[r] < 0) id[r] = nc++;
        s->segs[i].comp = id[r];
    }
    s->ncomps = nc;
    free(id);
    free(p);
}

/* shared[]: the ends of figure segments lying exactly (==) on an end of
 * another figure segment, the two not both invisible. These are the
 * clusters of components() (ends at one point), found here on their own
 * with a hash of the point's bits (+ 0.0 makes -0.0 and 0.0 one key, as
 * == has them equal; a NaN equals nothing, not even itself, so its end
 * is alone whatever its bucket); the rest of components() runs only when
 * a check asks for the components (geom_need_comps). */
static uint64_t pt_bits_hash(ir_pt p)
{
    double x = p.x + 0.0, y = p.y + 0.0;
    uint64_t a, b;
    memcpy(&a, &x, sizeof a);
    memcpy(&b, &y, sizeof b);
    return (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL) ^ (a >> 29);
}

static void mark_shared_all(geom_scene *s)
{
    size_t n = s->nsegs, nf = 0;
    for (size_t i = 0; i < n; i++) nf += s->segs[i].cls == SEG_FIGURE;
    if (nf == 0) return;
    unsigned bits = 4;
    while (((size_t)1 << bits) < nf) bits++;
    /* per bucket: first cluster + 1; per cluster: its point, the next
     * cluster + 1 in its bucket, its ends and its visible ends; per end
     * (2 per segment, a then b): its cluster */
    typedef struct { ir_pt p; unsigned next, count, nvis; } cluster;
    unsigned *head = xcalloc((size_t)1 << bits, sizeof *head);
    cluster *cl = xmalloc(2 * nf * sizeof *cl);
    unsigned *cid = xmalloc(2 * n * sizeof *cid);
    size_t ncl = 0;
    const geom_seg *prev = NULL;   /* the segment before, if a figure one */
    for (size_t i = 0; i < n; i++) {
        const geom_seg *g = &s->segs[i];
        if (g->cls != SEG_FIGURE) { prev = NULL; continue; }
        for (int w = 0; w < 2; w++) {
            ir_pt q = w ? g->b : g->a;
            unsigned c;
            if (!w && prev && prev->b.x == q.x && prev->b.y == q.y) {
                /* the same point as the end before (a polyline's joint) */
                c = cid[2 * i - 1];
            } else {
                size_t b = (size_t)(pt_bits_hash(q) >> (64 - bits));
                c = head[b];
                while (c && !(cl[c - 1].p.x == q.x && cl[c - 1].p.y == q.y)) c = cl[c - 1].next;
                if (c) {
                    c--;
                } else {
                    c = (unsigned)ncl++;
                    cl[c].p = q;
                    cl[c].count = cl[c].nvis = 0;
                    cl[c].next = head[b];
                    head[b] = c + 1;
                }
            }
            cid[2 * i + (size_t)w] = c;
            cl[c].count++;
            cl[c].nvis += (unsigned)g->visible;
        }
        prev = g;
    }
    for (size_t i = 0; i < n; i++) {
        geom_seg *g = &s->segs[i];
        if (g->cls != SEG_FIGURE) continue;
        for (int w = 0; w < 2; w++) {
            const cluster *C = &cl[cid[2 * i + (size_t)w]];
            if (C->count < 2 || (int)C->nvis - g->visible <= 0) continue;
            ir_pt q = w ? g->b : g->a;
            g->shared[q.x == g->a.x && q.y == g->a.y ? 0 : 1] = 1;
        }
    }
    free(head);
    free(cl);
    free(cid);
}

/* Marks end w (0 a, 1 b) of g shared, when the other end meeting it
 * belongs to a visible segment: the index is as the clusters give it.
 * The end must have compared equal (==) to another end. */
static inline void share_end(geom_seg *g, int w, int other_visible)
{
    if (!other_visible) return;
    /* end a: index 0, for a point that compared equal to another is no NaN
     * and so equals itself; end b: 0 only if it equals a */
    g->shared[w && !(g->b.x == g->a.x && g->b.y == g->a.y)] = 1;
}

/* shared[] as mark_shared_all finds it. An end is shared when another end
 * of a figure segment (of another segment, or, were its ends equal, of its
 * own) lies exactly (==) on it and belongs to a visible segment. Most ends
 * are joints of a polyline, met first: the end of the segment before it
 * (or, closing a polygon, of its first segment). The few ends left are
 * looked for among all segments; when there are many, the clusters of
 * every end are built instead. Marks only ever go from 0 to 1, each for
 * an end that has such a partner. */
void scene_mark_shared(geom_scene *s)
{
    size_t n = s->nsegs, first = 0;
    for (size_t i = 0; i < n; i++) {
        geom_seg *g = &s->segs[i];
        if (g->cls != SEG_FIGURE) continue;
        if (i == 0 || s->segs[i - 1].cls != SEG_FIGURE || s->segs[i - 1].elem != g->elem) {
            first = i;
        } else {
            geom_seg *h = &s->segs[i - 1];
            if (h->b.x == g->a.x && h->b.y == g->a.y) {
                share_end(g, 0, h->visible);
                share_end(h, 1, g->visible);
            }
        }
        geom_seg *f = &s->segs[first];
        if (first != i && g->b.x == f->a.x && g->b.y == f->a.y) {
            share_end(g, 1, f->visible);
            share_end(f, 0, g->visible);
        }
    }
    /* the ends left: few, each against every end; else all clusters */
    enum { FEW = 12 };
    size_t left[FEW][2], nleft = 0;
    for (size_t i = 0; i < n; i++) {
        const geom_seg *g = &s->segs[i];
        if (g->cls != SEG_FIGURE) continue;
        if (g->shared[0] && g->shared[1]) continue;   /* whichever index an end has */
        for (int w = 0; w < 2; w++) {
            ir_pt q = w ? g->b : g->a;
            if (g->shared[q.x == g->a.x && q.y == g->a.y ? 0 : 1]) continue;
            if (nleft == FEW) {
                mark_shared_all(s);
                return;
            }
            left[nleft][0] = i;
            left[nleft][1] = (size_t)w;
            nleft++;
        }
    }
    for (size_t k = 0; k < nleft; k++) {
        size_t i = left[k][0];
        int w = (int)left[k][1];
        geom_seg *g = &s->segs[i];
        ir_pt q = w ? g->b : g->a;
        int found = 0;
        for (size_t j = 0; j < n && !found; j++) {
            const geom_seg *h = &s->segs[j];
            if (h->cls != SEG_FIGURE || !h->visible) continue;
            found = (j != i || w != 0) && h->a.x == q.x && h->a.y == q.y;
            found |= (j != i || w != 1) && h->b.x == q.x && h->b.y == q.y;
        }
        share_end(g, w, found);
    }
}

void geom_need_comps(const geom_scene *s)
{
    scene_priv *p = scene_priv_of(s);
    if (p->comps_done) return;
    p->comps_done = 1;
    components(&p->pub);
}
