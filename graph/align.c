/* graph/align.c — node, edge and path alignment of two graphs. See graph/align.h. */
#include "graph/align.h"
#include "ir/xalloc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void graph_align_opts_init(graph_align_opts *o)
{
    o->threshold = 0.8;
    o->greedy = 0;
    o->sim = GRAPH_SIM_EDIT;
}

char *graph_norm_text(const char *s)
{
    size_t n = strlen(s);
    char *r = xcalloc(n + 1, 1);
    size_t o = 0;
    int space = 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            if (!space) r[o++] = ' ';
            space = 1;
            continue;
        }
        space = 0;
        r[o++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    while (o && r[o - 1] == ' ') o--;
    r[o] = 0;
    return r;
}

void graph_prf_finish(graph_prf *m)
{
    size_t pd = m->tp + m->fp, rd = m->tp + m->fn;
    m->p = pd ? (double)m->tp / (double)pd : (rd ? 0 : 1);
    m->r = rd ? (double)m->tp / (double)rd : (pd ? 0 : 1);
    m->f1 = m->p + m->r > 0 ? 2 * m->p * m->r / (m->p + m->r) : 0;
}

/* --- texts as code points ---------------------------------------------------- */
typedef struct {
    uint32_t *cp;
    size_t n;
    uint64_t sig;   /* hashed set of code points */
    char *norm;
} ntext;

static void to_ntext(const char *s, ntext *t)
{
    t->norm = graph_norm_text(s);
    size_t n = strlen(t->norm);
    t->cp = xcalloc(n + 1, sizeof *t->cp);
    t->n = 0;
    t->sig = 0;
    const unsigned char *p = (const unsigned char *)t->norm;
    while (*p) {
        uint32_t c = *p;
        size_t l = 1;
        if (c >= 0xC0) {
            size_t want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            c &= want == 4 ? 7 : want == 3 ? 15 : 31;
            while (l < want && (p[l] & 0xC0) == 0x80) { c = (c << 6) | (p[l] & 63); l++; }
        }
        p += l;
        t->cp[t->n++] = c;
        t->sig |= (uint64_t)1 << ((c * 2654435761u) >> 26);
    }
}

static int popcount64(uint64_t x)
{
    int c = 0;
    while (x) { x &= x - 1; c++; }
    return c;
}

/* Levenshtein distance, or kmax + 1 when it exceeds kmax (banded). */
static size_t lev_bounded(const ntext *a, const ntext *b, size_t kmax, size_t *buf)
{
    size_t n = a->n, m = b->n;
    if ((n > m ? n - m : m - n) > kmax) return kmax + 1;
    size_t *prev = buf, *cur = buf + m + 1;
    const size_t INF = kmax + 1;
    for (size_t j = 0; j <= m; j++) prev[j] = j <= kmax ? j : INF;
    for (size_t i = 1; i <= n; i++) {
        size_t lo = i > kmax ? i - kmax : 1, hi = i + kmax < m ? i + kmax : m;
        cur[0] = i <= kmax ? i : INF;
        if (lo > 1) cur[lo - 1] = INF;
        size_t rowmin = cur[0];
        for (size_t j = lo; j <= hi; j++) {
            size_t v = prev[j - 1] + (a->cp[i - 1] != b->cp[j - 1]);
            size_t d = prev[j] + 1, ins = cur[j - 1] + 1;
            if (d < v) v = d;
            if (ins < v) v = ins;
            if (v > INF) v = INF;
            cur[j] = v;
            if (v < rowmin) rowmin = v;
        }
        if (hi < m) cur[hi + 1] = INF;
        if (rowmin > kmax) return INF;
        size_t *t = prev; prev = cur; cur = t;
    }
    return prev[m] <= kmax ? prev[m] : INF;
}

static double sim_tokens(const char *a, const char *b)
{
    /* Jaccard similarity of the sets of blank-separated words */
    char *x = xstrdup(a), *y = xstrdup(b);
    char *wa[256], *wb[256];
    size_t na = 0, nb = 0;
    for (char *s = strtok(x, " "); s && na < 256; s = strtok(NULL, " ")) wa[na++] = s;
    for (char *s = strtok(y, " "); s && nb < 256; s = strtok(NULL, " ")) wb[nb++] = s;
    size_t inter = 0, ua = 0;
    for (size_t i = 0; i < na; i++) {
        int dup = 0;
        for (size_t k = 0; k < i && !dup; k++) dup = !strcmp(wa[k], wa[i]);
        if (dup) continue;
        ua++;
        for (size_t j = 0; j < nb; j++)
            if (!strcmp(wa[i], wb[j])) { inter++; break; }
    }
    size_t ub = 0;
    for (size_t j = 0; j < nb; j++) {
        int dup = 0;
        for (size_t k = 0; k < j && !dup; k++) dup = !strcmp(wb[k], wb[j]);
        if (!dup) ub++;
    }
    free(x);
    free(y);
    size_t uni = ua + ub - inter;
    return uni ? (double)inter / (double)uni : 1.0;
}

double graph_similarity(const char *a, const char *b, graph_sim_kind kind)
{
    char *na = graph_norm_text(a), *nb = graph_norm_text(b);
    double s;
    if (kind == GRAPH_SIM_TOKENS) {
        s = sim_tokens(na, nb);
    } else {
        ntext x, y;
        to_ntext(na, &x);
        to_ntext(nb, &y);
        size_t mx = x.n > y.n ? x.n : y.n;
        size_t *buf = xcalloc(2 * (y.n + 1), sizeof *buf);
        size_t d = mx ? lev_bounded(&x, &y, mx, buf) : 0;
        s = mx ? 1.0 - (double)d / (double)mx : 1.0;
        free(buf);
        free(x.cp); free(x.norm); free(y.cp); free(y.norm);
    }
    free(na);
    free(nb);
    return s;
}

/* --- candidate pairs ------------------------------------------------------------ */
typedef struct { size_t i, j; double s; } pair;

static int cmp_str_idx(const void *a, const void *b, const ntext *t)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(t[x].norm, t[y].norm);
    if (c) return c;
    return (x > y) - (x < y);
}
static const ntext *sort_texts;
static int cmp_idx(const void *a, const void *b) { return cmp_str_idx(a, b, sort_texts); }

static void add_pair(pair **ps, size_t *n, size_t *cap, size_t i, size_t j, double s)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        *ps = xrealloc(*ps, *cap * sizeof **ps);
    }
    (*ps)[*n].i = i;
    (*ps)[*n].j = j;
    (*ps)[*n].s = s;
    (*n)++;
}

static size_t find_pairs(const ntext *rt, size_t nr, const ntext *gt, size_t ng,
                         const graph_align_opts *o, pair **out)
{
    pair *ps = NULL;
    size_t np = 0, cap = 0;
    double thr = o->threshold;
    size_t maxlen = 0;
    for (size_t j = 0; j < ng; j++) if (gt[j].n > maxlen) maxlen = gt[j].n;
    size_t *buf = xcalloc(2 * (maxlen + 2), sizeof *buf);
    /* identical texts via sorted order */
    size_t *ri = xcalloc(nr, sizeof *ri), *gi = xcalloc(ng, sizeof *gi);
    for (size_t i = 0; i < nr; i++) ri[i] = i;
    for (size_t j = 0; j < ng; j++) gi[j] = j;
    sort_texts = rt;
    qsort(ri, nr, sizeof *ri, cmp_idx);
    sort_texts = gt;
    qsort(gi, ng, sizeof *gi, cmp_idx);
    for (size_t i = 0; i < nr; i++) {
        const ntext *a = &rt[i];
        for (size_t j = 0; j < ng; j++) {
            const ntext *b = &gt[j];
            double s;
            if (o->sim == GRAPH_SIM_TOKENS) {
                s = sim_tokens(a->norm, b->norm);
            } else {
                size_t mx = a->n > b->n ? a->n : b->n;
                if (mx == 0) { s = 1; }
                else {
                    if (thr > 0) {
                        double kf = floor((1.0 - thr) * (double)mx + 1e-9);
                        size_t kmax = kf < 0 ? 0 : (size_t)kf;
                        size_t dl = a->n > b->n ? a->n - b->n : b->n - a->n;
                        if (dl > kmax) continue;
                        int lb1 = popcount64(a->sig & ~b->sig), lb2 = popcount64(b->sig & ~a->sig);
                        if ((size_t)(lb1 > lb2 ? lb1 : lb2) > kmax) continue;
                        size_t d = lev_bounded(a, b, kmax, buf);
                        if (d > kmax) continue;
                        s = 1.0 - (double)d / (double)mx;
                    } else {
                        size_t d = lev_bounded(a, b, mx, buf);
                        s = 1.0 - (double)d / (double)mx;
                    }
                }
            }
            if (s + 1e-12 >= thr && s > 0) add_pair(&ps, &np, &cap, i, j, s);
        }
    }
    free(ri);
    free(gi);
    free(buf);
    *out = ps;
    return np;
}

/* --- Hungarian (shortest augmenting paths), rows <= cols, minimizes cost --------- */
static void hungarian(const double *cost, size_t n, size_t m, long *row_match)
{
    double *u = xcalloc(n + 1, sizeof *u), *v = xcalloc(m + 1, sizeof *v), *minv = xcalloc(m + 1, sizeof *minv);
    size_t *p = xcalloc(m + 1, sizeof *p), *way = xcalloc(m + 1, sizeof *way);
    char *used = xcalloc(m + 1, 1);
    for (size_t i = 1; i <= n; i++) {
        p[0] = i;
        size_t j0 = 0;
        for (size_t j = 0; j <= m; j++) { minv[j] = INFINITY; used[j] = 0; }
        do {
            used[j0] = 1;
            size_t i0 = p[j0], j1 = 0;
            double delta = INFINITY;
            for (size_t j = 1; j <= m; j++) {
                if (used[j]) continue;
                double cur = cost[(i0 - 1) * m + (j - 1)] - u[i0] - v[j];
                if (cur < minv[j]) { minv[j] = cur; way[j] = j0; }
                if (j1 == 0 || minv[j] < delta) { delta = minv[j]; j1 = j; }
            }
            for (size_t j = 0; j <= m; j++) {
                if (used[j]) { u[p[j]] += delta; v[j] -= delta; }
                else minv[j] -= delta;
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            size_t j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
    for (size_t i = 0; i < n; i++) row_match[i] = -1;
    for (size_t j = 1; j <= m; j++)
        if (p[j]) row_match[p[j] - 1] = (long)(j - 1);
    free(u); free(v); free(minv); free(p); free(way); free(used);
}

static size_t uf_find(size_t *p, size_t x)
{
    while (p[x] != x) { p[x] = p[p[x]]; x = p[x]; }
    return x;
}

/* canonical order of nodes inside a component: text, out-degree, in-degree, index */
typedef struct { const ntext *t; const size_t *outd, *ind; } canon_ctx;
static canon_ctx canon;
static int cmp_canon(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcmp(canon.t[x].norm, canon.t[y].norm);
    if (c) return c;
    if (canon.outd[x] != canon.outd[y]) return canon.outd[x] < canon.outd[y] ? -1 : 1;
    if (canon.ind[x] != canon.ind[y]) return canon.ind[x] < canon.ind[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static void degrees(const graph_g *g, size_t *outd, size_t *ind)
{
    for (size_t e = 0; e < g->ne; e++) {
        if (g->from[e] >= g->n || g->to[e] >= g->n) continue;
        outd[g->from[e]]++;
        ind[g->to[e]]++;
        if (g->undirected && g->undirected[e]) { outd[g->to[e]]++; ind[g->from[e]]++; }
    }
}

static void match_optimal(const graph_g *ref, const graph_g *gen, const ntext *rt, const ntext *gt,
                          const pair *ps, size_t np, long *match)
{
    size_t nr = ref->n, ng = gen->n;
    size_t *uf = xcalloc(nr + ng, sizeof *uf);
    for (size_t i = 0; i < nr + ng; i++) uf[i] = i;
    for (size_t k = 0; k < np; k++) {
        size_t a = uf_find(uf, ps[k].i), b = uf_find(uf, nr + ps[k].j);
        if (a != b) { if (a < b) uf[b] = a; else uf[a] = b; }
    }
    size_t *rod = xcalloc(nr, sizeof *rod), *rid = xcalloc(nr, sizeof *rid);
    size_t *god = xcalloc(ng, sizeof *god), *gid = xcalloc(ng, sizeof *gid);
    degrees(ref, rod, rid);
    degrees(gen, god, gid);
    /* group members per component root */
    size_t *rows = xcalloc(nr, sizeof *rows), *cols = xcalloc(ng, sizeof *cols);
    long *colpos = xcalloc(ng, sizeof *colpos);
    long *rowpos = xcalloc(nr, sizeof *rowpos);
    /* pairs sorted by component for dense matrices */
    size_t *root_of = xcalloc(nr + ng, sizeof *root_of);
    for (size_t x = 0; x < nr + ng; x++) root_of[x] = uf_find(uf, x);
    char *done = xcalloc(nr + ng, 1);
    /* pairs indexed by ref row */
    size_t *pstart = xcalloc(nr + 1, sizeof *pstart);
    for (size_t k = 0; k < np; k++) pstart[ps[k].i + 1]++;
    for (size_t i = 0; i < nr; i++) pstart[i + 1] += pstart[i];
    for (size_t i = 0; i < nr; i++) {
        size_t root = root_of[i];
        if (done[root] || pstart[i] == pstart[i + 1]) continue;
        done[root] = 1;
        size_t r = 0, c = 0;
        for (size_t x = i; x < nr; x++) if (root_of[x] == root) rows[r++] = x;
        for (size_t y = 0; y < ng; y++) if (root_of[nr + y] == root) cols[c++] = y;
        canon.t = rt; canon.outd = rod; canon.ind = rid;
        qsort(rows, r, sizeof *rows, cmp_canon);
        canon.t = gt; canon.outd = god; canon.ind = gid;
        qsort(cols, c, sizeof *cols, cmp_canon);
        /* all one text on both sides: any one-to-one pairing is optimal */
        int uniform = 1;
        for (size_t a = 1; a < r && uniform; a++) uniform = !strcmp(rt[rows[a]].norm, rt[rows[0]].norm);
        for (size_t b = 1; b < c && uniform; b++) uniform = !strcmp(gt[cols[b]].norm, gt[cols[0]].norm);
        if (uniform) {
            for (size_t a = 0; a < r && a < c; a++) match[rows[a]] = (long)cols[a];
            continue;
        }
        for (size_t a = 0; a < r; a++) rowpos[rows[a]] = (long)a;
        for (size_t b = 0; b < c; b++) colpos[cols[b]] = (long)b;
        int tr = r > c; /* Hungarian wants rows <= cols */
        size_t n = tr ? c : r, m = tr ? r : c;
        double *cost = xcalloc(n * m, sizeof *cost);
        for (size_t a = 0; a < r; a++) {
            size_t x = rows[a];
            for (size_t k = pstart[x]; k < pstart[x + 1]; k++) {
                size_t b = (size_t)colpos[ps[k].j];
                if (tr) cost[b * m + a] = -ps[k].s;
                else cost[a * m + b] = -ps[k].s;
            }
        }
        long *rm = xcalloc(n, sizeof *rm);
        hungarian(cost, n, m, rm);
        for (size_t a = 0; a < n; a++) {
            if (rm[a] < 0) continue;
            size_t rr = tr ? (size_t)rm[a] : a, cc = tr ? a : (size_t)rm[a];
            if ((tr ? cost[a * m + (size_t)rm[a]] : cost[a * m + (size_t)rm[a]]) < 0)
                match[rows[rr]] = (long)cols[cc];
        }
        free(rm);
        free(cost);
    }
    free(uf); free(rod); free(rid); free(god); free(gid); free(rows); free(cols);
    free(colpos); free(rowpos); free(root_of); free(done); free(pstart);
}

static void match_greedy(size_t nr, size_t ng, const pair *ps, size_t np, long *match)
{
    /* each generated node in order takes the most similar unmatched reference node */
    size_t *gstart = xcalloc(ng + 1, sizeof *gstart);
    size_t *byg = xcalloc(np + 1, sizeof *byg);
    for (size_t k = 0; k < np; k++) gstart[ps[k].j + 1]++;
    for (size_t j = 0; j < ng; j++) gstart[j + 1] += gstart[j];
    size_t *fill = xcalloc(ng + 1, sizeof *fill);
    for (size_t k = 0; k < np; k++) byg[gstart[ps[k].j] + fill[ps[k].j]++] = k;
    char *taken = xcalloc(nr, 1);
    for (size_t j = 0; j < ng; j++) {
        long best = -1;
        double bs = -1;
        for (size_t q = gstart[j]; q < gstart[j + 1]; q++) {
            const pair *p = &ps[byg[q]];
            if (taken[p->i]) continue;
            if (p->s > bs || (p->s == bs && (long)p->i < best)) { bs = p->s; best = (long)p->i; }
        }
        if (best >= 0) { taken[best] = 1; match[best] = (long)j; }
    }
    free(gstart); free(byg); free(fill); free(taken);
}

/* --- edges and paths ----------------------------------------------------------- */
typedef struct { size_t a, b; int und; } ekey;

static int cmp_ekey(const void *x, const void *y)
{
    const ekey *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return (p->und > q->und) - (p->und < q->und);
}

static ekey make_key(size_t a, size_t b, int und)
{
    ekey k;
    if (und && b < a) { size_t t = a; a = b; b = t; }
    k.a = a; k.b = b; k.und = und != 0;
    return k;
}

static size_t uniq_keys(ekey *k, size_t n)
{
    if (!n) return 0;
    qsort(k, n, sizeof *k, cmp_ekey);
    size_t o = 1;
    for (size_t i = 1; i < n; i++)
        if (cmp_ekey(&k[i], &k[o - 1])) k[o++] = k[i];
    return o;
}

/* reach[k] bitset (words per row) of matched nodes reachable from matched node k */
static uint64_t *reach_sets(const graph_g *g, const long *pos, size_t M, size_t words)
{
    /* adjacency restricted to matched nodes */
    size_t *deg = xcalloc(M + 1, sizeof *deg);
    for (size_t e = 0; e < g->ne; e++) {
        if (g->from[e] >= g->n || g->to[e] >= g->n) continue;
        long a = pos[g->from[e]], b = pos[g->to[e]];
        if (a < 0 || b < 0) continue;
        deg[a + 1]++;
        if (g->undirected && g->undirected[e]) deg[b + 1]++;
    }
    for (size_t k = 0; k < M; k++) deg[k + 1] += deg[k];
    size_t *adj = xcalloc(deg[M] + 1, sizeof *adj), *fill = xcalloc(M + 1, sizeof *fill);
    for (size_t e = 0; e < g->ne; e++) {
        if (g->from[e] >= g->n || g->to[e] >= g->n) continue;
        long a = pos[g->from[e]], b = pos[g->to[e]];
        if (a < 0 || b < 0) continue;
        adj[deg[a] + fill[a]++] = (size_t)b;
        if (g->undirected && g->undirected[e]) adj[deg[b] + fill[b]++] = (size_t)a;
    }
    uint64_t *R = xcalloc(M * words + 1, sizeof *R);
    size_t *queue = xcalloc(M + 1, sizeof *queue);
    for (size_t s = 0; s < M; s++) {
        uint64_t *row = R + s * words;
        size_t qh = 0, qt = 0;
        /* start: the neighbours of s (a path has at least one edge) */
        for (size_t q = deg[s]; q < deg[s + 1]; q++) {
            size_t b = adj[q];
            if (!(row[b / 64] >> (b % 64) & 1)) { row[b / 64] |= (uint64_t)1 << (b % 64); queue[qt++] = b; }
        }
        while (qh < qt) {
            size_t a = queue[qh++];
            for (size_t q = deg[a]; q < deg[a + 1]; q++) {
                size_t b = adj[q];
                if (!(row[b / 64] >> (b % 64) & 1)) { row[b / 64] |= (uint64_t)1 << (b % 64); queue[qt++] = b; }
            }
        }
    }
    free(deg); free(adj); free(fill); free(queue);
    return R;
}

int graph_align(const graph_g *ref, const graph_g *gen, const graph_align_opts *o,
                graph_align_result *res)
{
    memset(res, 0, sizeof *res);
    size_t nr = ref->n, ng = gen->n;
    ntext *rt = xcalloc(nr, sizeof *rt), *gt = xcalloc(ng, sizeof *gt);
    for (size_t i = 0; i < nr; i++) to_ntext(ref->text[i] ? ref->text[i] : "", &rt[i]);
    for (size_t j = 0; j < ng; j++) to_ntext(gen->text[j] ? gen->text[j] : "", &gt[j]);
    pair *ps = NULL;
    size_t np = find_pairs(rt, nr, gt, ng, o, &ps);
    long *match = xcalloc(nr, sizeof *match);
    for (size_t i = 0; i < nr; i++) match[i] = -1;
    if (o->greedy) match_greedy(nr, ng, ps, np, match);
    else match_optimal(ref, gen, rt, gt, ps, np, match);
    /* nodes */
    long *gmatch = xcalloc(ng, sizeof *gmatch);
    for (size_t j = 0; j < ng; j++) gmatch[j] = -1;
    size_t M = 0;
    for (size_t i = 0; i < nr; i++)
        if (match[i] >= 0) {
            gmatch[match[i]] = (long)i;
            M++;
        }
    for (size_t q = 0; q < np; q++)
        if (match[ps[q].i] == (long)ps[q].j) res->total_sim += ps[q].s;
    res->node.tp = M;
    res->node.fp = ng - M;
    res->node.fn = nr - M;
    graph_prf_finish(&res->node);
    /* edges, in reference numbering */
    ekey *rk = xcalloc(ref->ne + 1, sizeof *rk), *gk = xcalloc(gen->ne + 1, sizeof *gk);
    size_t nrk = 0, ngk = 0;
    for (size_t e = 0; e < ref->ne; e++)
        if (ref->from[e] < nr && ref->to[e] < nr)
            rk[nrk++] = make_key(ref->from[e], ref->to[e], ref->undirected && ref->undirected[e]);
    nrk = uniq_keys(rk, nrk);
    for (size_t e = 0; e < gen->ne; e++)
        if (gen->from[e] < ng && gen->to[e] < ng)
            gk[ngk++] = make_key(gen->from[e], gen->to[e], gen->undirected && gen->undirected[e]);
    ngk = uniq_keys(gk, ngk);
    size_t etp = 0;
    for (size_t e = 0; e < ngk; e++) {
        long a = gmatch[gk[e].a], b = gmatch[gk[e].b];
        if (a < 0 || b < 0) continue;
        ekey k = make_key((size_t)a, (size_t)b, gk[e].und);
        if (bsearch(&k, rk, nrk, sizeof *rk, cmp_ekey)) etp++;
    }
    res->edge.tp = etp;
    res->edge.fp = ngk - etp;
    res->edge.fn = nrk - etp;
    graph_prf_finish(&res->edge);
    /* paths between matched nodes */
    long *rpos = xcalloc(nr, sizeof *rpos), *gpos = xcalloc(ng, sizeof *gpos);
    for (size_t j = 0; j < ng; j++) gpos[j] = -1;
    size_t k = 0;
    for (size_t i = 0; i < nr; i++) {
        rpos[i] = -1;
        if (match[i] >= 0) { rpos[i] = (long)k; gpos[match[i]] = (long)k; k++; }
    }
    size_t words = (M + 63) / 64;
    if (M > 0) {
        uint64_t *RR = reach_sets(ref, rpos, M, words), *GR = reach_sets(gen, gpos, M, words);
        size_t tp = 0, fp = 0, fn = 0;
        for (size_t s = 0; s < M; s++) {
            uint64_t *a = RR + s * words, *b = GR + s * words;
            a[s / 64] &= ~((uint64_t)1 << (s % 64));
            b[s / 64] &= ~((uint64_t)1 << (s % 64));
            for (size_t w = 0; w < words; w++) {
                tp += (size_t)popcount64(a[w] & b[w]);
                fn += (size_t)popcount64(a[w] & ~b[w]);
                fp += (size_t)popcount64(b[w] & ~a[w]);
            }
        }
        res->path.tp = tp;
        res->path.fp = fp;
        res->path.fn = fn;
        free(RR);
        free(GR);
    }
    graph_prf_finish(&res->path);
    res->match = match;
    for (size_t i = 0; i < nr; i++) { free(rt[i].cp); free(rt[i].norm); }
    for (size_t j = 0; j < ng; j++) { free(gt[j].cp); free(gt[j].norm); }
    free(rt); free(gt); free(ps); free(gmatch); free(rk); free(gk); free(rpos); free(gpos);
    return 0;
}

void graph_align_result_free(graph_align_result *res)
{
    free(res->match);
    res->match = NULL;
}
