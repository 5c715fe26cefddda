/* scene.c — the per-diagram analysis the geom checks share; see geom.h. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "ir/ir_num.h"

/* --- small growable arrays ---------------------------------------------- */
#define GROW(arr, n, cap)                                                     \
    do {                                                                      \
        if ((n) >= (cap)) {                                                   \
            size_t nc_ = (cap) ? (cap) * 2 : 16;                              \
            void *p_ = realloc((arr), nc_ * sizeof *(arr));                   \
            if (!p_) abort();                                                 \
            (arr) = p_;                                                       \
            (cap) = nc_;                                                      \
        }                                                                     \
    } while (0)

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

/* A hash of points on a grid of cells 2 GEOM_JOIN_EPS_PT wide: every point
 * within GEOM_JOIN_EPS_PT of a query lies in the query's cell or the
 * neighbouring ones toward the nearer cell edges (2 x 2 cells; 3 when the
 * query is about midway in a cell, where rounding could go either way). */
typedef struct {
    unsigned bits;
    unsigned *head;        /* per bucket: first entry + 1, 0 empty */
    unsigned *next;        /* per entry: next entry + 1 in its bucket */
    long long *cx, *cy;    /* per entry: its cell */
    size_t n;
} pt_hash;

#define PH_CELL (2 * GEOM_JOIN_EPS_PT)

static void ph_init(pt_hash *h, size_t cap)
{
    unsigned bits = 4;
    while (((size_t)1 << bits) < 2 * cap) bits++;
    h->bits = bits;
    h->head = calloc((size_t)1 << bits, sizeof *h->head);
    h->next = malloc((cap ? cap : 1) * sizeof *h->next);
    h->cx = malloc((cap ? cap : 1) * sizeof *h->cx);
    h->cy = malloc((cap ? cap : 1) * sizeof *h->cy);
    if (!h->head || !h->next || !h->cx || !h->cy) abort();
    h->n = 0;
}

static void ph_free(pt_hash *h)
{
    free(h->head);
    free(h->next);
    free(h->cx);
    free(h->cy);
}

static long long ph_cell(double v, double *frac)
{
    double q = v / PH_CELL, c;
    if (q > -1e15 && q < 1e15) {
        /* floor(q), exactly, without the library call (a -0.0 comes out
         * as 0.0: the same cell and the same comparisons of *frac) */
        c = (double)(long long)q;
        if (c > q) c -= 1.0;
    } else {
        c = floor(q);
    }
    if (frac) *frac = q - c;
    if (c > 1e15) c = 1e15;
    if (c < -1e15) c = -1e15;
    return (long long)c;
}

static size_t ph_bucket(const pt_hash *h, long long cx, long long cy)
{
    unsigned long long k = (unsigned long long)cx * 0x9E3779B97F4A7C15ULL +
                           (unsigned long long)cy * 0xC2B2AE3D27D4EB4FULL;
    return (size_t)(k >> (64 - h->bits));
}

/* Adds entry number h->n (the caller keeps its point) at p. */
static void ph_add(pt_hash *h, ir_pt p)
{
    size_t e = h->n++;
    h->cx[e] = ph_cell(p.x, NULL);
    h->cy[e] = ph_cell(p.y, NULL);
    size_t b = ph_bucket(h, h->cx[e], h->cy[e]);
    h->next[e] = h->head[b];
    h->head[b] = (unsigned)(e + 1);
}

/* Calls fn(entry, arg) for the entries in the cells around p that may hold
 * points within GEOM_JOIN_EPS_PT of it, until fn returns nonzero; returns
 * that value, or 0. */
static int ph_near(const pt_hash *h, ir_pt p, int (*fn)(size_t, void *), void *arg)
{
    double fx, fy;
    long long cx = ph_cell(p.x, &fx), cy = ph_cell(p.y, &fy);
    /* the neighbouring columns and rows to look at */
    long long x0 = cx, x1 = cx, y0 = cy, y1 = cy;
    if (fx < 0.5 + 1e-6) x0 = cx - 1;
    if (fx > 0.5 - 1e-6) x1 = cx + 1;
    if (fy < 0.5 + 1e-6) y0 = cy - 1;
    if (fy > 0.5 - 1e-6) y1 = cy + 1;
    for (long long y = y0; y <= y1; y++)
        for (long long x = x0; x <= x1; x++) {
            size_t b = ph_bucket(h, x, y);
            for (unsigned e = h->head[b]; e; e = h->next[e - 1]) {
                if (h->cx[e - 1] != x || h->cy[e - 1] != y) continue;
                int r = fn(e - 1, arg);
                if (r) return r;
            }
        }
    return 0;
}

/* Short string equality without a library call. */
static int streq(const char *a, const char *b)
{
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

/* k equals the n-byte literal lit (k[0] == lit[0] is known; no byte
 * past a difference or k's end is read). */
static inline int keq(const char *k, const char *lit, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (k[i] != lit[i]) return 0;
    return k[n] == '\0';
}

/* Reads an element's attributes once. */
static void read_attrs(const ir_elem *e, geom_attrs *a)
{
    memset(a, 0, sizeof *a);
    const char *role = NULL;
    for (size_t i = 0; i < e->nattrs; i++) {
        const char *k = e->attrs[i].key, *v = e->attrs[i].val;
        const char **slot = NULL;
        switch (k[0]) {
        case 'a':
            if (keq(k, "arrows", 6)) slot = &a->arrows;
            else if (keq(k, "along", 5)) slot = &a->along;
            break;
        case 'c': if (keq(k, "clip", 4)) slot = &a->clip; break;
        case 'd':
            if (keq(k, "draw", 4)) slot = &a->draw;
            else if (keq(k, "dash", 4)) slot = &a->dash;
            break;
        case 'f': if (keq(k, "fill", 4)) slot = &a->fill; break;
        case 'i': if (keq(k, "id", 2)) slot = &a->id; break;
        case 'o': if (keq(k, "of", 2)) slot = &a->of; break;
        case 'r': if (keq(k, "role", 4)) slot = &role; break;
        case 's': if (keq(k, "size", 4)) slot = &a->size; break;
        case 't': if (keq(k, "tex", 3)) slot = &a->tex; break;
        case 'v': if (keq(k, "vertex", 6)) slot = &a->vertex; break;
        case 'x': if (keq(k, "xyz", 3)) slot = &a->xyz; break;
        default: break;
        }
        /* the first of a key counts, as ir_elem_get reads it */
        if (slot && !*slot) *slot = v;
    }
    a->role = ROLE_NONE;
    if (role) {
        if (streq(role, "vertex")) a->role = ROLE_VERTEX;
        else if (streq(role, "right-angle")) a->role = ROLE_RIGHT_ANGLE;
        else if (streq(role, "angle-mark")) a->role = ROLE_ANGLE_MARK;
        else if (streq(role, "grid")) a->role = ROLE_GRID;
        else if (streq(role, "axis")) a->role = ROLE_AXIS;
        else if (streq(role, "axis-label")) a->role = ROLE_AXIS_LABEL;
        else if (streq(role, "tick")) a->role = ROLE_TICK;
        else a->role = ROLE_OTHER;
    }
    a->stroked = !a->draw || !streq(a->draw, "none");
    a->filled = a->fill && !streq(a->fill, "none");
    a->dashed = a->dash && !streq(a->dash, "solid");
    a->dim = a->arrows && (strchr(a->arrows, '>') || strchr(a->arrows, '<'));
    a->self_fill = a->draw && a->fill && streq(a->draw, a->fill);
}

/* Decimal numbers as strtod reads them (the common short forms without a
 * library call: ir/ir_num.h). */
static double parse_num(const char *s, char **end)
{
    return ir_num_strtod_inline(s, end);
}

static int parse_pts(const char *s, ir_pt *out, size_t max)
{
    /* "X,Y" or "X1,Y1,X2,Y2": numbers separated by commas */
    size_t k = 0;
    double v[8];
    while (s && *s && k < 2 * max && k < 8) {
        char *end;
        v[k] = parse_num(s, &end);
        if (end == s || !isfinite(v[k])) return 0;
        k++;
        s = end;
        if (*s == ',') s++;
        else break;
    }
    if (k != 2 * max) return 0;
    for (size_t i = 0; i < max; i++) out[i] = ir_v(v[2 * i], v[2 * i + 1]);
    return 1;
}

/* One number of xyz= at *sp into *out, then the separator after it
 * unless it is the last; 0 when malformed. */
/* c is ',', ';' or the NUL (what may end a number of xyz=) */
static inline int xyz_end(char c)
{
    return (unsigned char)c < 64u && ((0x0800100000000001ULL >> (unsigned char)c) & 1u);
}

static inline __attribute__((always_inline)) int xyz_num(const char **sp, double *out, int last)
{
    const char *s = *sp;
    unsigned d0 = (unsigned)(s[0] - '0');
    if (d0 < 10u) {
        char c1 = s[1];
        /* one digit alone ("0", "1"): its value, as below */
        if (xyz_end(c1)) {
            *out = (double)d0;
            s += 1;
            goto fast;
        }
        /* "d.d" and "d.dd" (most of the rest: 0.25, 0.5, 0.75): m and frac
         * as ir_num_scan_ finds them, the same value as below. Each byte is
         * read only after the one before it was a digit or '.', never past
         * the NUL. */
        if (c1 == '.') {
            unsigned d2 = (unsigned)(s[2] - '0');
            if (d2 < 10u) {
                char c3 = s[3];
                if (xyz_end(c3)) {
                    *out = ir_num_value_(0, d0 * 10u + d2, 1);
                    s += 3;
                    goto fast;
                }
                unsigned d3 = (unsigned)(c3 - '0');
                if (d3 < 10u && xyz_end(s[4])) {
                    *out = ir_num_value_(0, d0 * 100u + d2 * 10u + d3, 2);
                    s += 4;
                    goto fast;
                }
            }
        }
    }
    /* the short form ([+-] digits [. digits], at most 15 digits, ended
     * by anything but an exponent or a letter) as parse_num reads it,
     * here without its checks for what it cannot give */
    int neg;
    unsigned long long m;
    size_t ndig, frac;
    const char *p = ir_num_scan_(s, &neg, &m, &ndig, &frac);
    if (ndig - 1 < 15 && xyz_end(*p)) {
        *out = ir_num_value_(neg, m, frac);
        s = p;
    } else {
        char *end;
        *out = parse_num(s, &end);
        if (end == s || !isfinite(*out)) return 0;
        s = end;
    }
    if (!last) {
        if (*s != ',' && *s != ';') return 0;
        s++;
    }
    *sp = s;
    return 1;
fast:
    /* *s is ',', ';' or the NUL */
    if (!last) {
        if (!*s) return 0;
        s++;
    }
    *sp = s;
    return 1;
}

/* xyz=X,Y,Z;X,Y,Z;... -> n points into v; 0 when malformed. */
static int parse_xyz(const char *s, size_t n, ir_pt3 *v)
{
    if (!s || n == 0) return 0;
    for (size_t j = 0; j < n; j++)
        if (!xyz_num(&s, &v[j].x, 0) || !xyz_num(&s, &v[j].y, 0) ||
            !xyz_num(&s, &v[j].z, j + 1 == n))
            return 0;
    return 1;
}


/* --- rays and corners ------------------------------------------------------ */
static int ray_seg(const geom_seg *g)
{
    return (g->cls == SEG_FIGURE || g->cls == SEG_DIM) && !g->curved;
}

/* The scene's buffer for rays_excl's segments near a point (kept from call
 * to call, freed with the scene; rays_excl calls nothing that uses it). */
static size_t **ray_near(const geom_scene *s, size_t **cap);

static size_t rays_excl(const geom_scene *s, ir_pt v, double min_len, double *dirs, size_t max,
                        size_t excl)
{
    size_t n = 0;
    double tmp[256];
    size_t *capp;
    size_t **nearp = ray_near(s, &capp);
    size_t nn = geom_segs_near(s, ir_box_inset(ir_box_make(v.x, v.y, v.x, v.y), GEOM_JOIN_EPS_PT),
                               nearp, capp);
    const size_t *near = *nearp;
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
    sort_doubles(tmp, n);
    /* merge near-equal directions (also across 0/360) */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && tmp[i] - dirs[k - 1] < 1.0) continue;
        if (k < max) dirs[k++] = tmp[i];
    }
    if (k > 1 && dirs[0] + 360.0 - dirs[k - 1] < 1.0) k--;
    return k;
}

size_t geom_rays_at(const geom_scene *s, ir_pt v, double min_len, double *dirs, size_t max)
{
    return rays_excl(s, v, min_len, dirs, max, (size_t)-1);
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
    size_t k = geom_rays_at(s, v, 3.0, r, 32);
    return angle_from_rays(r, k, dir, r1, r2);
}

static int is_corner(const geom_scene *s, ir_pt v)
{
    double r[32];
    size_t k = geom_rays_at(s, v, 3.0, r, 32);
    for (size_t i = 0; i < k; i++)
        for (size_t j = i + 1; j < k; j++) {
            double d = ir_dir_diff_deg(r[i], r[j]);
            if (d > 3.0 && d < 177.0) return 1;
        }
    return 0;
}

typedef struct {
    ir_pt *p;
    size_t n, cap;
} ptlist;

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
    ph_init(&h, l->n);
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        dedupe_q q = {l->p, l->p[i]};
        if (ph_near(&h, l->p[i], near_kept, &q)) continue;
        l->p[k++] = l->p[i];
        ph_add(&h, l->p[i]);
    }
    ph_free(&h);
    l->n = k;
}

/* A uniform grid over the segments, for "which segments are near here". */
typedef struct {
    geom_grid_plan pl;   /* cells: size, origin, counts */
    size_t *start;       /* nx * ny + 1 offsets into idx */
    size_t *idx;
    int (*range)[4];     /* per segment: its cells i0, j0, i1, j1 */
    unsigned *stamp;     /* per segment: last query that returned it */
    unsigned cur;
} seg_grid;

/* A block of the scene's memory. */
typedef struct arena_blk {
    struct arena_blk *next;
    size_t used, cap;
    double data[];
} arena_blk;

/* corner candidates are computed once and cached in the scene's private part */
typedef struct {
    geom_scene pub;
    arena_blk *arena;
    int grid_done;     /* the grid is built on first use */
    ptlist cand;       /* endpoints and crossings of straight figure lines */
    signed char *corner; /* per candidate: -1 unknown, 0 no, 1 yes */
    int comps_done;    /* components() has run (geom_need_comps) */
    int cls_frozen;    /* cls0 must be kept before a class changes */
    int cand_done;     /* cand is computed on first use ... */
    unsigned char *cls0; /* ... from the classes segments had before marks
                            (NULL while no class has changed since: then
                            the classes are those; snapshot_cls) */
    seg_grid grid;
    size_t *ray_near;  /* rays_excl's buffer (ray_near) */
    size_t ray_cap;
} scene_priv;

static size_t **ray_near(const geom_scene *s, size_t **cap)
{
    scene_priv *p = (scene_priv *)(void *)s;
    *cap = &p->ray_cap;
    return &p->ray_near;
}

void *geom_scene_alloc(geom_scene *s, size_t bytes)
{
    scene_priv *p = (scene_priv *)(void *)s;
    bytes = (bytes + 15) & ~(size_t)15;
    arena_blk *b = p->arena;
    if (!b || b->cap - b->used < bytes) {
        size_t cap = bytes > 16384 ? bytes : 16384;
        b = malloc(sizeof *b + cap);
        if (!b) abort();
        b->used = 0;
        b->cap = cap;
        b->next = p->arena;
        p->arena = b;
    }
    void *r = (char *)b->data + b->used;
    b->used += bytes;
    return r;
}

static ir_box seg_box(const geom_seg *g, double grow)
{
    ir_box b;
    b.x1 = (g->a.x < g->b.x ? g->a.x : g->b.x) - grow;
    b.x2 = (g->a.x < g->b.x ? g->b.x : g->a.x) + grow;
    b.y1 = (g->a.y < g->b.y ? g->a.y : g->b.y) - grow;
    b.y2 = (g->a.y < g->b.y ? g->b.y : g->a.y) + grow;
    b.empty = 0;
    return b;
}

static void grid_build(geom_scene *s, seg_grid *g)
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
    /* about one segment per cell, at most 128 x 128 cells */
    geom_grid_plan pl = geom_grid_layout(all, s->nsegs, 2.0, 128);
    g->pl = pl;
    size_t ncell = (size_t)g->pl.nx * (size_t)g->pl.ny;
    g->start = calloc(ncell + 1, sizeof *g->start);
    g->stamp = calloc(s->nsegs, sizeof *g->stamp);
    g->range = malloc(s->nsegs * sizeof *g->range);
    if (!g->start || !g->stamp || !g->range) abort();
    for (size_t k = 0; k < s->nsegs; k++) {
        int *r = g->range[k];
        geom_grid_cells(&g->pl, seg_box(&s->segs[k], GEOM_JOIN_EPS_PT), &r[0], &r[1], &r[2], &r[3]);
        for (int j = r[1]; j <= r[3]; j++)
            for (int i = r[0]; i <= r[2]; i++) g->start[(size_t)j * (size_t)g->pl.nx + (size_t)i + 1]++;
    }
    for (size_t c = 0; c < ncell; c++) g->start[c + 1] += g->start[c];
    g->idx = malloc((g->start[ncell] ? g->start[ncell] : 1) * sizeof *g->idx);
    size_t *fill = malloc(ncell * sizeof *fill);
    if (!g->idx || !fill) abort();
    memcpy(fill, g->start, ncell * sizeof *fill);
    for (size_t k = 0; k < s->nsegs; k++) {
        const int *r = g->range[k];
        for (int j = r[1]; j <= r[3]; j++)
            for (int i = r[0]; i <= r[2]; i++) g->idx[fill[(size_t)j * (size_t)g->pl.nx + (size_t)i]++] = k;
    }
    free(fill);
}

static void grid_free(seg_grid *g)
{
    free(g->start);
    free(g->idx);
    free(g->range);
    free(g->stamp);
}

/* The grid over the segments is built on first use: the segments are all
 * in place by then (their classes may still change, not their places). */
static void need_grid(scene_priv *p)
{
    if (p->grid_done) return;
    p->grid_done = 1;
    grid_build(&p->pub, &p->grid);
}

size_t geom_segs_near(const geom_scene *s, ir_box b, size_t **buf, size_t *cap)
{
    scene_priv *p = (scene_priv *)(void *)s;
    need_grid(p);
    seg_grid *g = &p->grid;
    size_t n = 0;
    if (!g->start || b.empty) return 0;
    int i0, j0, i1, j1;
    geom_grid_cells(&g->pl, b, &i0, &j0, &i1, &j1);
    if (i0 > i1 || j0 > j1) return 0;
    if (i0 == i1 && j0 == j1) {
        /* one cell: its segments, each once, in order */
        size_t c = (size_t)j0 * (size_t)g->pl.nx + (size_t)i0;
        n = g->start[c + 1] - g->start[c];
        if (n > *cap) {
            size_t nc = *cap ? *cap : 64;
            while (nc < n) nc *= 2;
            size_t *nb = realloc(*buf, nc * sizeof *nb);
            if (!nb) abort();
            *buf = nb;
            *cap = nc;
        }
        if (n) memcpy(*buf, g->idx + g->start[c], n * sizeof **buf);
        return n;
    }
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
                    size_t *nb = realloc(*buf, nc * sizeof *nb);
                    if (!nb) abort();
                    *buf = nb;
                    *cap = nc;
                }
                (*buf)[n++] = k;
            }
        }
    return n;
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
    scene_priv *p = (scene_priv *)(void *)s;
    need_grid(p);
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
                    if (!(ir_seg_intersect(a->a, a->b, b->a, b->b, &t, &u) && t > 0.01 && t < 0.99 &&
                          u > 0.01 && u < 0.99))
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
    scene_priv *p = (scene_priv *)(void *)s;
    if (p->cand_done) return;
    p->cand_done = 1;
    for (size_t i = 0; i < s->nsegs; i++) {
        if (!ray_seg0(p, i)) continue;
        ptlist_add(&p->cand, s->segs[i].a);
        ptlist_add(&p->cand, s->segs[i].b);
    }
    add_crossings(s, &p->cand);
    ptlist_dedupe(&p->cand);
    p->corner = malloc(p->cand.n ? p->cand.n : 1);
    if (!p->corner) abort();
    memset(p->corner, 0xff, p->cand.n ? p->cand.n : 1);
}

static int cand_is_corner(const geom_scene *s, size_t i)
{
    scene_priv *p = (scene_priv *)(void *)s;
    if (p->corner[i] < 0) p->corner[i] = (char)is_corner(s, p->cand.p[i]);
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
    const scene_priv *p = (const scene_priv *)(const void *)s;
    size_t n = 0;
    for (size_t i = 0; i < p->cand.n; i++) {
        if (!ir_box_contains_pt(zone, p->cand.p[i])) continue;
        if (!cand_is_corner(s, i)) continue;
        if (out && n < max) out[n] = p->cand.p[i];
        n++;
    }
    return out ? (n < max ? n : max) : n;
}

int geom_nearest_corner(const geom_scene *s, ir_pt q, double reach, ir_pt *v, double *dist)
{
    need_cand(s);
    const scene_priv *p = (const scene_priv *)(const void *)s;
    double best = reach;
    int found = 0;
    for (size_t i = 0; i < p->cand.n; i++) {
        double d = ir_v_dist(p->cand.p[i], q);
        if (d > best) continue;
        if (!cand_is_corner(s, i)) continue;
        best = d;
        *v = p->cand.p[i];
        found = 1;
    }
    if (found && dist) *dist = best;
    return found;
}

const char *geom_point_name(const geom_scene *s, ir_pt p, char *buf, size_t n)
{
    const ir_diagram *d = s->d;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (e->kind == IR_COORD && e->npts >= 1 && e->name && strlen(e->name) <= 6 &&
            ir_v_dist(e->pts[0], p) <= 2 * GEOM_JOIN_EPS_PT) {
            snprintf(buf, n, "%s", e->name);
            return buf;
        }
    }
    const geom_text *best = NULL;
    double bd = 0;
    for (size_t i = 0; i < s->ntexts; i++) {
        const geom_text *t = &s->texts[i];
        if (t->kind != TXT_NAME) continue;
        double dd = t->has_of ? ir_v_dist(t->of, p) : ir_box_pt_dist(t->box, p);
        if (dd <= 1.5 * geom_em(t) && (!best || dd < bd)) { best = t; bd = dd; }
    }
    if (best) snprintf(buf, n, "%s", best->show);
    else snprintf(buf, n, "(%.1f,%.1f)", p.x, p.y);
    return buf;
}

/* --- building ---------------------------------------------------------------- */
static inline void add_seg(geom_scene *s, size_t *cap, const ir_elem *e, size_t idx, ir_pt a,
                           ir_pt b, geom_seg_class cls, int curved, const ir_pt3 *xyz3a,
                           const ir_pt3 *xyz3b)
{
    double len = ir_v_dist(a, b);
    if (len <= 1e-9) return;
    GROW(s->segs, s->nsegs, *cap);
    geom_seg *g = &s->segs[s->nsegs++];
    /* every field is set below (no memset: the padding is never read) */
    g->shared[0] = g->shared[1] = 0;
    g->a = a;
    g->b = b;
    g->len = len;
    g->len3 = -1;
    if (xyz3a && xyz3b)
        g->len3 = sqrt((xyz3a->x - xyz3b->x) * (xyz3a->x - xyz3b->x) +
                       (xyz3a->y - xyz3b->y) * (xyz3a->y - xyz3b->y) +
                       (xyz3a->z - xyz3b->z) * (xyz3a->z - xyz3b->z));
    g->elem = idx;
    g->line = e->line;
    g->cls = cls;
    g->curved = curved;
    g->visible = s->attrs[idx].stroked || s->attrs[idx].filled;
    g->dashed = s->attrs[idx].dashed;
    g->comp = -1;
}

static geom_seg_class elem_class(const geom_attrs *a)
{
    if (a->role == ROLE_RIGHT_ANGLE || a->role == ROLE_ANGLE_MARK) return SEG_MARK;
    if (a->role == ROLE_GRID) return SEG_GRID;
    if (a->role == ROLE_AXIS) return SEG_AXIS;
    if (a->dim) return SEG_DIM;
    return SEG_FIGURE;
}

static int is_dot(const ir_elem *e, const geom_attrs *a)
{
    if (a->role == ROLE_VERTEX) return 1;
    if (e->kind != IR_ELLIPSE || e->npts < 3) return 0;
    double ra = ir_v_len(e->pts[1]), rb = ir_v_len(e->pts[2]);
    return a->filled && ra <= 4.0 && rb <= 4.0;
}

/* ir_elem_box, a polyline's without a call per point (the same min/max
 * steps as ir_box_add). */
static ir_box elem_box(const ir_elem *e)
{
    if (e->kind != IR_POLY || !e->pts || e->npts == 0) return ir_elem_box(e);
    ir_box b = {e->pts[0].x, e->pts[0].y, e->pts[0].x, e->pts[0].y, 0};
    for (size_t i = 1; i < e->npts; i++) {
        double x = e->pts[i].x, y = e->pts[i].y;
        if (x < b.x1) b.x1 = x;
        if (x > b.x2) b.x2 = x;
        if (y < b.y1) b.y1 = y;
        if (y > b.y2) b.y2 = y;
    }
    return b;
}

/* Keeps the segments' classes as they are (cls0), once, before the first
 * change after the scene's segments are in place. */
static void snapshot_cls(geom_scene *s)
{
    scene_priv *p = (scene_priv *)(void *)s;
    if (!p->cls_frozen || p->cls0) return;
    p->cls0 = malloc(s->nsegs ? s->nsegs : 1);
    if (!p->cls0) abort();
    for (size_t i = 0; i < s->nsegs; i++) p->cls0[i] = (unsigned char)s->segs[i].cls;
}

/* Re-tag the segments of element idx. */
static void retag(geom_scene *s, size_t idx, geom_seg_class cls)
{
    snapshot_cls(s);
    for (size_t i = 0; i < s->nsegs; i++)
        if (s->segs[i].elem == idx) s->segs[i].cls = cls;
}

static double ray_len_along(const geom_scene *s, ir_pt v, double dir, size_t excl)
{
    /* longest straight figure segment leaving v in direction dir */
    double best = 0;
    size_t *near = NULL, cap = 0;
    size_t nn = geom_segs_near(s, ir_box_inset(ir_box_make(v.x, v.y, v.x, v.y), GEOM_JOIN_EPS_PT),
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
        if (ir_dir_diff_deg(ir_v_dir_deg(ir_v_sub(far, v)), dir) <= 3.0) {
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
static void find_marks(geom_scene *s, size_t *mcap)
{
    const ir_diagram *d = s->d;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (s->frame[i]) continue;
        const geom_attrs *at = &s->attrs[i];
        geom_seg_class cls = elem_class(at);
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
        ir_box bx = elem_box(e);
        m.c = ir_box_center(bx);
        ir_pt vv;
        int hv = 0;
        const char *va = at->vertex;
        if (va && parse_pts(va, &vv, 1)) hv = 1;

        if (e->kind == IR_ARC && e->npts >= 3) {
            double rad = (ir_v_len(e->pts[1]) + ir_v_len(e->pts[2])) / 2;
            double sweep = fabs(e->t2 - e->t1);
            ir_pt c = hv ? vv : e->pts[0];
            if (!explicit_am) {
                if (rad > GEOM_MARK_MAX_PT || sweep >= 180.0 || sweep < 3.0) continue;
                double r[32];
                size_t k = rays_excl(s, c, 3.0, r, 32, i);
                if (k < 2 || !is_corner(s, c)) continue;
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
            if (l1 <= 0 || l2 <= 0 || l1 / l2 > 2.0 || l2 / l1 > 2.0) continue;
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
            size_t nr = rays_excl(s, v, 3.0, r, 32, i);
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
static void find_ticks(geom_scene *s)
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
            if (j == i || h->cls != SEG_FIGURE || h->len < 3 * g->len || h->elem == g->elem)
                continue;
            double t, u;
            if (!ir_seg_intersect(g->a, g->b, h->a, h->b, &t, &u)) continue;
            if (t < 0.2 || t > 0.8 || u < 0.02 || u > 0.98) continue;
            double ang = ir_line_diff_deg(ir_v_dir_deg(ir_v_sub(g->b, g->a)),
                                          ir_v_dir_deg(ir_v_sub(h->b, h->a)));
            if (ang < 45.0) continue;
            snapshot_cls(s);
            g->cls = SEG_TICK;
            s->has_ticks = 1;
            break;
        }
    }
    free(near);
}

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
    int *p = malloc(n * sizeof *p);
    if (!p) return;
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
    endref *ends = malloc(2 * n * sizeof *ends);
    if (!ends) abort();
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        if (s->segs[i].cls != SEG_FIGURE) continue;
        ends[ne].p = s->segs[i].a; ends[ne].seg = i; ends[ne].paired = 0; ne++;
        ends[ne].p = s->segs[i].b; ends[ne].seg = i; ends[ne].paired = 0; ne++;
    }
    /* clusters, numbered in order of appearance, hashed by their cell;
     * each holds a list of its ends */
    unsigned *first = malloc((ne ? ne : 1) * sizeof *first);   /* per cluster */
    unsigned *count = malloc((ne ? ne : 1) * sizeof *count);
    unsigned *nextend = malloc((ne ? ne : 1) * sizeof *nextend);   /* per end */
    /* per cluster: a segment of its set, the set's root when last joined */
    int *croot = malloc((ne ? ne : 1) * sizeof *croot);
    if (!first || !count || !nextend || !croot) abort();
    pt_hash h;
    ph_init(&h, ne);
    size_t ncl = 0;
    for (size_t i = 0; i < ne; i++) {
        ir_pt q = ends[i].p;
        long long cx = ph_cell(q.x, NULL), cy = ph_cell(q.y, NULL);
        size_t b = ph_bucket(&h, cx, cy);
        unsigned c = 0;
        for (unsigned e = h.head[b]; e; e = h.next[e - 1]) {
            const endref *r = &ends[first[e - 1]];
            if (r->p.x == q.x && r->p.y == q.y) { c = e; break; }
        }
        if (c) {
            /* the same point: join the cluster */
            c--;
            /* uf_union(p, ends[i].seg, ends[first[c]].seg): the second
             * set's root is found from the one kept (same set, same root) */
            int x = uf_find(p, (int)ends[i].seg), y = croot[c];
            if (p[y] != y) y = uf_find(p, y);
            if (x != y) p[x] = y;
            croot[c] = y;
            nextend[i] = first[c];
            first[c] = (unsigned)i;
            count[c]++;
            continue;
        }
        first[ncl] = (unsigned)i;
        count[ncl] = 1;
        croot[ncl] = (int)ends[i].seg;
        nextend[i] = (unsigned)-1;
        h.cx[ncl] = cx;
        h.cy[ncl] = cy;
        h.next[ncl] = h.head[b];
        h.head[b] = (unsigned)(ncl + 1);
        h.n = ++ncl;
    }
    /* a cluster of two ends or more holds ends of two lines (a line's two
     * ends are apart); shared[] was marked from the same clusters in
     * mark_shared */
    for (size_t c = 0; c < ncl; c++) {
        if (count[c] < 2) continue;
        for (unsigned i = first[c]; i != (unsigned)-1; i = nextend[i]) ends[i].paired = 1;
    }
    for (size_t c = 0; c < ncl; c++) {
        meet_q q = {ends, first, count, nextend, c, p};
        ph_near(&h, ends[first[c]].p, meet_cluster, &q);
    }
    ph_free(&h);
    free(first);
    free(count);
    free(nextend);
    free(croot);
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
    int *id = malloc(n * sizeof *id);
    if (!id) { free(p); return; }
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
    unsigned *head = calloc((size_t)1 << bits, sizeof *head);
    cluster *cl = malloc(2 * nf * sizeof *cl);
    unsigned *cid = malloc(2 * n * sizeof *cid);
    if (!head || !cl || !cid) abort();
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
static void mark_shared(geom_scene *s)
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
    scene_priv *p = (scene_priv *)(void *)s;
    if (p->comps_done) return;
    p->comps_done = 1;
    components(&p->pub);
}

/* --- clip regions ------------------------------------------------------- */
static int reg_inside(const geom_clip *r, ir_pt p, double tol)
{
    if (!r->pts) return ir_box_contains_pt(ir_box_inset(r->box, tol), p);
    if (ir_pt_in_poly(p, r->pts, r->n)) return 1;
    for (size_t i = 0; i < r->n; i++)
        if (ir_pt_seg_dist(p, r->pts[i], r->pts[(i + 1) % r->n], NULL) <= tol) return 1;
    return 0;
}

static int reg_strictly_inside(const geom_clip *r, ir_pt p, double tol)
{
    if (!r->pts) return ir_box_contains_pt(ir_box_inset(r->box, -tol), p);
    if (!ir_pt_in_poly(p, r->pts, r->n)) return 0;
    for (size_t i = 0; i < r->n; i++)
        if (ir_pt_seg_dist(p, r->pts[i], r->pts[(i + 1) % r->n], NULL) < tol) return 0;
    return 1;
}

int geom_clip_relation(const geom_scene *s, size_t elem, const ir_pt *p, size_t n, double *out)
{
    *out = 0;
    if (elem >= s->d->nelems || s->clip_of[elem] < 0) return 0;
    const geom_clip *r = &s->clips[s->clip_of[elem]];
    int in = 0, outn = 0;
    double far = 0;
    size_t i0 = 0;
    if (!r->pts) {
        /* a rectangle: the leading points inside it (grown and shrunk by
         * the tolerance, as reg_inside and reg_strictly_inside test) at once */
        ir_box grown = r->grown, shrunk = r->shrunk;
        for (; i0 < n && ir_box_contains_pt(grown, p[i0]); i0++)
            if (ir_box_contains_pt(shrunk, p[i0])) in++;
    }
    for (size_t i = i0; i < n; i++) {
        if (reg_inside(r, p[i], GEOM_FRAME_TOL_PT)) {
            if (reg_strictly_inside(r, p[i], GEOM_FRAME_TOL_PT)) in++;
            continue;
        }
        outn++;
        double d;
        if (!r->pts) d = ir_box_pt_dist(r->box, p[i]);
        else {
            d = 1e300;
            for (size_t k = 0; k < r->n; k++) {
                double x = ir_pt_seg_dist(p[i], r->pts[k], r->pts[(k + 1) % r->n], NULL);
                if (x < d) d = x;
            }
        }
        if (d > far) far = d;
    }
    *out = far;
    if (!outn) return 0;
    if (in) return 1;
    /* no point strictly inside: does some piece still cross the region? */
    for (size_t i = 0; i + 1 < n; i++) {
        double t0, t1;
        if (!r->pts) {
            if (ir_seg_box_clip(p[i], p[i + 1], ir_box_inset(r->box, -GEOM_FRAME_TOL_PT), &t0,
                                &t1) &&
                t1 > t0)
                return 1;
        } else if (reg_strictly_inside(r, ir_v_lerp(p[i], p[i + 1], 0.5), GEOM_FRAME_TOL_PT)) {
            return 1;
        }
    }
    return 2;
}

/* The clip an element is drawn in: the innermost clip its clip= attribute
 * names; without ids (older IR), the last clip before it. */
static void resolve_clips(geom_scene *s)
{
    const ir_diagram *d = s->d;
    s->clip_of = malloc((d->nelems ? d->nelems : 1) * sizeof *s->clip_of);
    if (!s->clip_of) abort();
    int with_ids = 0;
    for (size_t c = 0; c < s->nclips; c++)
        if (s->attrs[s->clips[c].elem].id) with_ids = 1;
    int cur = -1, prev_clip = -1;
    const char *prev_id = NULL;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        s->clip_of[i] = -1;
        if (e->kind == IR_CLIP) {
            for (size_t c = 0; c < s->nclips; c++)
                if (s->clips[c].elem == i) cur = (int)c;
            continue;
        }
        if (!with_ids) { s->clip_of[i] = cur; continue; }
        const char *id = s->attrs[i].clip;
        if (!id) continue;
        /* the same clip= as the element before that had one: the same clip
         * (the answer depends on the text alone) */
        if (prev_id && streq(id, prev_id)) {
            s->clip_of[i] = prev_clip;
            continue;
        }
        prev_id = id;
        const char *last = strrchr(id, ',');
        last = last ? last + 1 : id;
        for (size_t c = 0; c < s->nclips; c++) {
            const char *cid = s->attrs[s->clips[c].elem].id;
            if (cid && !strcmp(cid, last)) s->clip_of[i] = (int)c;
        }
        prev_clip = s->clip_of[i];
    }
}

/* 1 when the text lies entirely outside the clip region it is drawn in. */
static int text_clipped_away(const geom_scene *s, size_t i)
{
    const ir_elem *e = &s->d->elems[i];
    ir_pt c[4] = {{e->pts[0].x, e->pts[0].y}, {e->pts[1].x, e->pts[0].y},
                  {e->pts[1].x, e->pts[1].y}, {e->pts[0].x, e->pts[1].y}};
    double out;
    return geom_clip_relation(s, i, c, 4, &out) == 2;
}

/* The projection of the 3D coordinates, from every point given both ways:
 * one linear map for the whole picture, and a translation per polyline
 * (TikZ's xshift/yshift move a copy in the picture plane without telling
 * its depth). Polylines with the same translation are one placement. */
static void fit_projection(geom_scene *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nfaces; i++) n += s->faces[i].n;
    if (n < 4) return;
    ir_pt3 *p3 = malloc(n * sizeof *p3);
    ir_pt *p2 = malloc(n * sizeof *p2);
    size_t *off = malloc((s->nfaces + 1) * sizeof *off);
    ir_pt *tr = malloc(s->nfaces * sizeof *tr);
    if (!p3 || !p2 || !off || !tr) abort();
    size_t k = 0;
    for (size_t i = 0; i < s->nfaces; i++) {
        off[i] = k;
        for (size_t j = 0; j < s->faces[i].n; j++) {
            p3[k] = s->faces[i].p3[j];
            p2[k] = s->faces[i].p2[j];
            k++;
        }
    }
    off[s->nfaces] = k;
    double resid = 0;
    /* shift[i]: the mean of face i's picture points minus their images */
    ir_pt *shift = malloc(s->nfaces * sizeof *shift);
    if (!shift) abort();
    s->has_proj = ir_fit_projection_shifts(p3, p2, off, s->nfaces, s->proj_m, &resid, shift) &&
                  resid <= GEOM_PROJ_FIT_TOL_PT;
    if (s->has_proj) {
        s->view = ir_view_dir((const double(*)[3])s->proj_m);
        int ng = 0;
        for (size_t i = 0; i < s->nfaces; i++) {
            geom_face *f = &s->faces[i];
            ir_pt t = shift[i];
            /* the first placement whose first path is shifted alike */
            f->group = -1;
            for (int g = 0; g < ng && f->group < 0; g++)
                if (ir_v_dist(tr[g], t) <= GEOM_PROJ_FIT_TOL_PT) f->group = g;
            if (f->group < 0) {
                tr[ng] = t;
                f->group = ng++;
            }
        }
    }
    free(p3);
    free(p2);
    free(off);
    free(tr);
    free(shift);
}

geom_scene *geom_scene_build(const ir_diagram *d)
{
    scene_priv *p = calloc(1, sizeof *p);
    if (!p) abort();
    geom_scene *s = &p->pub;
    s->d = d;
    const char *src = ir_get_attr(d->attrs, d->nattrs, "src");
    s->src = src ? src : (d->id ? d->id : "-");
    s->ink = ir_box_empty();
    s->figure = ir_box_empty();
    size_t segcap = 0, tcap = 0, mcap = 0, scap = 0, ccap = 0, dcap = 0, fcap = 0;

    s->attrs = malloc((d->nelems ? d->nelems : 1) * sizeof *s->attrs);
    s->flat = calloc(d->nelems ? d->nelems : 1, sizeof *s->flat);
    s->nflat = calloc(d->nelems ? d->nelems : 1, sizeof *s->nflat);
    if (!s->attrs || !s->flat || !s->nflat) abort();
    for (size_t i = 0; i < d->nelems; i++) read_attrs(&d->elems[i], &s->attrs[i]);

    /* room for the segments: a polyline has at most as many as points, a
     * rectangle 4, a flattened curve 24; ellipses and arcs take a guess
     * (the array grows when it is wrong) */
    size_t nseg_guess = 0;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        switch (e->kind) {
        case IR_POLY: nseg_guess += e->npts; break;
        case IR_RECT: nseg_guess += 4; break;
        case IR_CURVE: nseg_guess += 24; break;
        case IR_ELLIPSE: case IR_ARC: nseg_guess += 64; break;
        default: break;
        }
    }
    if (nseg_guess) {
        s->segs = malloc(nseg_guess * sizeof *s->segs);
        if (!s->segs) abort();
        segcap = nseg_guess;
    }
    /* room for the faces (polylines with xyz=) and closed shapes (drawn
     * outlines), counted: at most one of each per element */
    {
        size_t nf = 0, ns = 0;
        for (size_t i = 0; i < d->nelems; i++) {
            ir_kind k = d->elems[i].kind;
            nf += k == IR_POLY && s->attrs[i].xyz;
            ns += k == IR_POLY || k == IR_RECT || k == IR_ELLIPSE || k == IR_ARC || k == IR_CURVE;
        }
        if (nf) {
            s->faces = malloc(nf * sizeof *s->faces);
            if (!s->faces) abort();
            fcap = nf;
        }
        if (ns) {
            s->shapes = malloc(ns * sizeof *s->shapes);
            if (!s->shapes) abort();
            scap = ns;
        }
    }

    /* text node outlines: a shape drawn for a node, right before the node's
     * text, from the same source line, around the text */
    s->frame = calloc(d->nelems ? d->nelems : 1, 1);
    if (!s->frame) abort();
    for (size_t i = 0; i + 1 < d->nelems; i++) {
        const ir_elem *e = &d->elems[i], *t = &d->elems[i + 1];
        if (t->kind != IR_TEXT || t->npts < 2 || t->line != e->line) continue;
        if (e->kind != IR_RECT && e->kind != IR_ELLIPSE && !(e->kind == IR_POLY && e->closed))
            continue;
        ir_box sb = ir_elem_box(e);
        ir_box tb = ir_box_make(t->pts[0].x, t->pts[0].y, t->pts[1].x, t->pts[1].y);
        if (ir_box_inside(tb, sb, 1.0)) s->frame[i] = 1;
    }

    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (e->kind != IR_CLIP) continue;
        GROW(s->clips, s->nclips, ccap);
        geom_clip *c = &s->clips[s->nclips++];
        memset(c, 0, sizeof *c);
        c->elem = i;
        c->sub = e->sub;
        c->e = e;
        c->box = ir_elem_box(e);
        c->grown = ir_box_inset(c->box, GEOM_FRAME_TOL_PT);
        c->shrunk = ir_box_inset(c->box, -GEOM_FRAME_TOL_PT);
        if (e->sub == IR_POLY || e->sub == IR_ELLIPSE) {
            ir_elem tmp = *e;
            tmp.kind = e->sub;
            int closed;
            c->n = ir_elem_flatten(&tmp, &c->pts, &closed);
            if (c->n < 3) { free(c->pts); c->pts = NULL; c->n = 0; }
        }
    }
    resolve_clips(s);

    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (e->kind == IR_CLIP) continue;
        if (e->kind == IR_TEXT) {
            if (e->npts < 2) continue;
            /* axis tick labels are part of the axes, not labels */
            const geom_attrs *at = &s->attrs[i];
            if (at->role == ROLE_TICK) continue;
            /* a text the clip hides entirely is not seen */
            if (text_clipped_away(s, i)) continue;
            GROW(s->texts, s->ntexts, tcap);
            geom_text *t = &s->texts[s->ntexts];
            memset(t, 0, sizeof *t);
            t->elem = i;
            t->line = e->line;
            t->box = ir_box_make(e->pts[0].x, e->pts[0].y, e->pts[1].x, e->pts[1].y);
            t->c = ir_box_center(t->box);
            if (!ir_parse_num(at->size, &t->size)) t->size = GEOM_DEFAULT_FONT_PT;
            if (!(t->size > 0) || !isfinite(t->size)) t->size = GEOM_DEFAULT_FONT_PT;
            geom_parse_label(e->str, at->tex, t);
            if (t->kind == TXT_EMPTY) continue;
            const char *of = at->of;
            if (of && parse_pts(of, &t->of, 1)) t->has_of = 1;
            const char *al = at->along;
            ir_pt ab[2];
            if (al && parse_pts(al, ab, 2)) {
                t->has_along = 1;
                t->along_a = ab[0];
                t->along_b = ab[1];
            }
            t->axis_label = at->role == ROLE_AXIS_LABEL;
            t->opaque = at->filled || (i > 0 && s->frame[i - 1] && s->attrs[i - 1].filled);
            if (i > 0 && s->frame[i - 1]) {
                /* the outline belongs to the label: it takes the label's room */
                ir_box fb = ir_elem_box(&d->elems[i - 1]);
                t->framed = 1;
                t->frame_box = fb;
            }
            ir_box_union(&s->ink, t->box);
            s->ntexts++;
            continue;
        }
        if (e->kind != IR_POLY && e->kind != IR_RECT && e->kind != IR_ELLIPSE &&
            e->kind != IR_ARC && e->kind != IR_CURVE)
            continue;
        const geom_attrs *at = &s->attrs[i];
        int stroked = at->stroked, filled = at->filled;
        if (!stroked && !filled) continue;
        if (at->xyz) s->is3d = 1;
        if (is_dot(e, at)) {
            GROW(s->dots, s->ndots, dcap);
            s->dots[s->ndots++] = e->npts ? e->pts[0] : ir_v(0, 0);
            ir_box_union(&s->ink, ir_elem_box(e));
            continue;
        }
        geom_seg_class cls = s->frame[i] ? SEG_FRAME : elem_class(at);
        /* the outline: a polyline's own points, else flattened */
        const ir_pt *pts;
        int closed;
        size_t n;
        if (e->kind == IR_POLY) {
            pts = e->pts;
            n = e->npts;
            closed = e->closed;
        } else {
            /* flattened into the scene's memory, kept for the checks */
            size_t cnt = ir_elem_flatten_count(e);
            ir_pt *fl = cnt ? geom_scene_alloc(s, cnt * sizeof *fl) : NULL;
            n = cnt ? ir_elem_flatten_to(e, fl, &closed) : 0;
            pts = fl;
            s->flat[i] = fl;
            s->nflat[i] = n;
        }
        if (n == 0) continue;
        /* the outline's box: ir_box_add of its points, in order */
        ir_box eb = {pts[0].x, pts[0].y, pts[0].x, pts[0].y, 0};
        for (size_t k = 1; k < n; k++) {
            double x = pts[k].x, y = pts[k].y;
            if (x < eb.x1) eb.x1 = x;
            if (x > eb.x2) eb.x2 = x;
            if (y < eb.y1) eb.y1 = y;
            if (y > eb.y2) eb.y2 = y;
        }
        int curved = e->kind == IR_ELLIPSE || e->kind == IR_ARC || e->kind == IR_CURVE;
        ir_pt3 *xyz = NULL;   /* the 3D coordinates, kept for the face */
        const double *face_sarea = NULL;   /* its face's signed area (pts, n) */
        if (e->kind == IR_POLY && at->xyz) {
            ir_pt3 *p3 = geom_scene_alloc(s, e->npts * sizeof *p3);
            if (parse_xyz(at->xyz, e->npts, p3)) xyz = p3;
        }
        if (xyz && cls != SEG_FRAME) {
            GROW(s->faces, s->nfaces, fcap);
            geom_face *f = &s->faces[s->nfaces++];
            memset(f, 0, sizeof *f);
            f->elem = i;
            f->line = e->line;
            f->n = e->npts;
            f->p2 = e->pts;
            f->p3 = xyz;
            f->box = eb;   /* a polyline: pts are e->pts */
            f->closed = e->closed && e->npts >= 3;
            f->filled = filled && f->closed;
            if (f->filled) {
                f->sarea = ir_poly_area(e->pts, e->npts);
                face_sarea = &f->sarea;
            }
            f->stroked = stroked;
            f->dashed = at->dashed;
            f->group = 0;
        }
        for (size_t k = 0; k + 1 < n; k++)
            add_seg(s, &segcap, e, i, pts[k], pts[k + 1], cls, curved,
                    xyz ? xyz + k : NULL, xyz ? xyz + (k + 1) : NULL);
        if (closed && n > 2)
            add_seg(s, &segcap, e, i, pts[n - 1], pts[0], cls, curved,
                    xyz ? xyz + (n - 1) : NULL, xyz ? xyz : NULL);
        ir_box_union(&s->ink, eb);
        if (cls == SEG_FIGURE) ir_box_union(&s->figure, eb);
        /* closed regions */
        if (cls == SEG_FIGURE && (closed || (e->kind == IR_POLY && n > 3 &&
                                             ir_v_dist(pts[0], pts[n - 1]) <= GEOM_JOIN_EPS_PT)) &&
            n >= 3) {
            GROW(s->shapes, s->nshapes, scap);
            geom_shape *sh = &s->shapes[s->nshapes++];
            sh->elem = i;
            sh->line = e->line;
            sh->pts = pts;
            sh->n = n;
            sh->area = fabs(face_sarea ? *face_sarea : ir_poly_area(pts, n));
            sh->round = e->kind == IR_ELLIPSE;
            sh->centre = e->kind == IR_ELLIPSE ? e->pts[0] : ir_v(0, 0);
            sh->radius = e->kind == IR_ELLIPSE ? (ir_v_len(e->pts[1]) + ir_v_len(e->pts[2])) / 2 : 0;
        }
    }
    /* the visible extent stops at the clip */
    if (s->nclips > 0 && !s->clips[0].box.empty) {
        ir_box inter = ir_box_isect(s->ink, s->clips[0].box);
        if (!inter.empty) s->ink = inter;
        inter = ir_box_isect(s->figure, s->clips[0].box);
        if (!inter.empty) s->figure = inter;
    }

    /* the grid over the segments is built on first use (geom_segs_near) */
    geom_infer_lattice(s);
    fit_projection(s);
    if (s->has_proj && s->nfaces && s->faces[0].inferred) {
        int side = geom_lattice_viewer_side(s);
        if (side < 0) {
            s->view.x = -s->view.x;
            s->view.y = -s->view.y;
            s->view.z = -s->view.z;
        } else if (side == 0) {
            s->has_proj = 0;
        }
    }

    /* corner candidates come from the lines as they are before marks are
     * found (need_cand) */
    p->cls_frozen = 1;   /* from here on a class changes after snapshot_cls */

    find_marks(s, &mcap);
    find_ticks(s);
    /* an unknown ("?", "x") written inside an angle arc names the angle */
    for (size_t i = 0; i < s->ntexts; i++) {
        geom_text *t = &s->texts[i];
        if (t->kind != TXT_VAR) continue;
        for (size_t k = 0; k < s->nmarks; k++) {
            const geom_mark *m = &s->marks[k];
            if (m->kind != MARK_ARC || !m->has_vertex) continue;
            double dv = ir_v_dist(t->c, m->vertex);
            if (dv > m->size + 2 * geom_em(t)) continue;
            double dir = ir_v_dir_deg(ir_v_sub(t->c, m->vertex));
            double span = ir_ccw_sweep_deg(m->d1, m->d2);
            if (ir_ccw_sweep_deg(m->d1, dir) <= span + 10 ||
                ir_ccw_sweep_deg(dir, m->d1) <= 10) {
                t->kind = TXT_ANGLE_NAME;
                break;
            }
        }
    }
    mark_shared(s);
    /* the segments' components (comp, ncomps) are found on first use:
     * geom_need_comps */
    return s;
}

void geom_scene_free(geom_scene *s)
{
    if (!s) return;
    scene_priv *p = (scene_priv *)(void *)s;
    free(s->shapes);
    free(s->segs);
    free(s->texts);
    free(s->marks);
    for (size_t i = 0; i < s->nclips; i++) free(s->clips[i].pts);
    free(s->clips);
    free(s->clip_of);
    free(s->dots);
    free(s->frame);
    free(s->attrs);
    free(s->flat);
    free(s->nflat);
    free(s->faces);
    free(p->cand.p);
    while (p->arena) {
        arena_blk *b = p->arena;
        p->arena = b->next;
        free(b);
    }
    free(p->corner);
    free(p->cls0);
    free(p->ray_near);
    grid_free(&p->grid);
    free(p);
}

geom_grid_plan geom_grid_layout(ir_box all, size_t n, double min_cs, int max_cells)
{
    geom_grid_plan p;
    double w = ir_box_w(all), h = ir_box_h(all);
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
