/* stats/measures.c — see stats/measures.h.  Formulas are documented in man/kappa.1. */
#include "stats/measures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- categorical pairs ------------------------------------------------ */

double kappa_agreement(const int *a, const int *b, size_t n)
{
    if (n == 0) return NAN;
    size_t same = 0;
    for (size_t i = 0; i < n; i++) same += a[i] == b[i];
    return (double)same / (double)n;
}

/* Marginal counts of a and b; returns 0 on allocation failure. */
static int margins(const int *a, const int *b, size_t n, int k, double **ra, double **rb)
{
    *ra = calloc((size_t)k, sizeof **ra);
    *rb = calloc((size_t)k, sizeof **rb);
    if (!*ra || !*rb) { free(*ra); free(*rb); *ra = *rb = NULL; return 0; }
    for (size_t i = 0; i < n; i++) { (*ra)[a[i]] += 1; (*rb)[b[i]] += 1; }
    return 1;
}

static double weight_of(int i, int j, int k, int weight)
{
    if (i == j) return 0;
    double d = (double)(i > j ? i - j : j - i);
    double s = k > 1 ? (double)(k - 1) : 1;
    if (weight == KAPPA_W_LINEAR) return d / s;
    if (weight == KAPPA_W_QUADRATIC) return (d / s) * (d / s);
    return 1;
}

double kappa_cohen(const int *a, const int *b, size_t n, int k, int weight)
{
    if (n == 0 || k <= 0) return NAN;
    double *ra, *rb;
    if (!margins(a, b, n, k, &ra, &rb)) return NAN;
    double nn = (double)n;
    double obs = 0, exp = 0;   /* weighted disagreement, observed and expected */
    for (size_t i = 0; i < n; i++) obs += weight_of(a[i], b[i], k, weight);
    obs /= nn;
    if (weight == KAPPA_W_NONE) {
        double pe = 0;
        for (int c = 0; c < k; c++) pe += ra[c] * rb[c];
        exp = 1 - pe / (nn * nn);
    } else if (k <= 2048) {
        for (int i = 0; i < k; i++) {
            if (ra[i] == 0) continue;
            for (int j = 0; j < k; j++)
                if (rb[j] != 0) exp += weight_of(i, j, k, weight) * ra[i] * rb[j];
        }
        exp /= nn * nn;
    } else {
        /* Closed forms in O(k) for many categories. */
        double s = (double)(k - 1);
        if (weight == KAPPA_W_QUADRATIC) {
            double ma = 0, mb = 0, va = 0, vb = 0;
            for (int c = 0; c < k; c++) { ma += c * ra[c]; mb += c * rb[c]; }
            ma /= nn; mb /= nn;
            for (int c = 0; c < k; c++) {
                va += ra[c] * (c - ma) * (c - ma);
                vb += rb[c] * (c - mb) * (c - mb);
            }
            exp = (va / nn + vb / nn + (ma - mb) * (ma - mb)) / (s * s);
        } else {
            /* sum_i ra_i sum_j |i-j| rb_j with prefix sums of rb. */
            double cnt = 0, mom = 0, tot = 0, tmom = 0;
            for (int j = 0; j < k; j++) { tot += rb[j]; tmom += j * rb[j]; }
            for (int i = 0; i < k; i++) {
                /* cnt, mom: count and first moment of rb over j < i */
                double below = i * cnt - mom;
                double above = (tmom - mom - i * rb[i]) - i * (tot - cnt - rb[i]);
                exp += ra[i] * (below + above);
                cnt += rb[i]; mom += i * rb[i];
            }
            exp /= nn * nn * s;
        }
    }
    free(ra); free(rb);
    if (exp == 0) return NAN;
    return 1 - obs / exp;
}

double kappa_scott(const int *a, const int *b, size_t n, int k)
{
    if (n == 0 || k <= 0) return NAN;
    double *ra, *rb;
    if (!margins(a, b, n, k, &ra, &rb)) return NAN;
    double nn = (double)n, pe = 0;
    for (int c = 0; c < k; c++) {
        double p = (ra[c] + rb[c]) / (2 * nn);
        pe += p * p;
    }
    free(ra); free(rb);
    double po = kappa_agreement(a, b, n);
    if (pe >= 1) return NAN;
    return (po - pe) / (1 - pe);
}

/* ---- the same from a table of code pairs -------------------------------- */

/* Counts from tab[a * k + b]: margins as doubles, units, units agreeing. */
static int table_margins(const uint64_t *tab, int k, double **ra, double **rb, uint64_t *n,
                         uint64_t *same)
{
    *ra = calloc((size_t)k, sizeof **ra);
    *rb = calloc((size_t)k, sizeof **rb);
    if (!*ra || !*rb) { free(*ra); free(*rb); *ra = *rb = NULL; return 0; }
    uint64_t *ca = calloc((size_t)k, sizeof *ca), *cb = calloc((size_t)k, sizeof *cb);
    if (!ca || !cb) { free(ca); free(cb); free(*ra); free(*rb); *ra = *rb = NULL; return 0; }
    *n = *same = 0;
    for (size_t i = 0; i < (size_t)k; i++)
        for (size_t j = 0; j < (size_t)k; j++) {
            uint64_t c = tab[i * (size_t)k + j];
            ca[i] += c;
            cb[j] += c;
            *n += c;
            if (i == j) *same += c;
        }
    for (int c = 0; c < k; c++) { (*ra)[c] = (double)ca[c]; (*rb)[c] = (double)cb[c]; }
    free(ca); free(cb);
    return 1;
}

double kappa_agreement_table(const uint64_t *tab, int k)
{
    uint64_t n = 0, same = 0;
    for (size_t i = 0; i < (size_t)k; i++)
        for (size_t j = 0; j < (size_t)k; j++) {
            n += tab[i * (size_t)k + j];
            if (i == j) same += tab[i * (size_t)k + j];
        }
    if (n == 0) return NAN;
    return (double)same / (double)n;
}

double kappa_cohen_table(const uint64_t *tab, int k)
{
    double *ra, *rb;
    uint64_t n, same;
    if (k <= 0 || !table_margins(tab, k, &ra, &rb, &n, &same)) return NAN;
    if (n == 0) { free(ra); free(rb); return NAN; }
    double nn = (double)n;
    /* kappa_cohen adds 1 per disagreeing unit: an exact count */
    double obs = (double)(n - same) / nn, pe = 0;
    for (int c = 0; c < k; c++) pe += ra[c] * rb[c];
    double exp = 1 - pe / (nn * nn);
    free(ra); free(rb);
    if (exp == 0) return NAN;
    return 1 - obs / exp;
}

double kappa_scott_table(const uint64_t *tab, int k)
{
    double *ra, *rb;
    uint64_t n, same;
    if (k <= 0 || !table_margins(tab, k, &ra, &rb, &n, &same)) return NAN;
    if (n == 0) { free(ra); free(rb); return NAN; }
    double nn = (double)n, pe = 0;
    for (int c = 0; c < k; c++) {
        double p = (ra[c] + rb[c]) / (2 * nn);
        pe += p * p;
    }
    free(ra); free(rb);
    double po = (double)same / nn;
    if (pe >= 1) return NAN;
    return (po - pe) / (1 - pe);
}

/* ---- Fleiss ------------------------------------------------------------ */

double kappa_fleiss(const int *counts, size_t nunits, int k)
{
    if (k <= 0) return NAN;
    double *p = calloc((size_t)k, sizeof *p);
    if (!p) return NAN;
    double pbar = 0, total = 0;
    size_t used = 0;
    for (size_t i = 0; i < nunits; i++) {
        const int *row = counts + i * (size_t)k;
        double m = 0, agree = 0;
        for (int j = 0; j < k; j++) m += row[j];
        if (m < 2) continue;
        for (int j = 0; j < k; j++) {
            agree += (double)row[j] * (row[j] - 1);
            p[j] += row[j];
        }
        pbar += agree / (m * (m - 1));
        total += m;
        used++;
    }
    if (used == 0) { free(p); return NAN; }
    pbar /= (double)used;
    double pe = 0;
    for (int j = 0; j < k; j++) { double q = p[j] / total; pe += q * q; }
    free(p);
    if (pe >= 1) return NAN;
    return (pbar - pe) / (1 - pe);
}

/* ---- Krippendorff's alpha ---------------------------------------------- */

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

static void sort_small(int *v, size_t m)
{
    if (m > 32) { qsort(v, m, sizeof *v, cmp_int); return; }
    for (size_t i = 1; i < m; i++) {
        int x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) { v[j] = v[j - 1]; j--; }
        v[j] = x;
    }
}

/* Squared metric difference between codes c <= d.  cum[c] = sum of n_g for
 * g < c (ordinal only). */
static double delta2(int c, int d, int metric, const double *levels,
                     const double *nc, const double *cum)
{
    if (c == d) return 0;
    switch (metric) {
    case KAPPA_M_NOMINAL: return 1;
    case KAPPA_M_INTERVAL: { double x = levels[c] - levels[d]; return x * x; }
    case KAPPA_M_RATIO: {
        double s = levels[c] + levels[d];
        if (s == 0) return 0;
        double x = (levels[c] - levels[d]) / s;
        return x * x;
    }
    default: {
        if (c > d) { int t = c; c = d; d = t; }
        double x = (cum[d] + nc[d]) - cum[c] - (nc[c] + nc[d]) / 2;
        return x * x;
    }
    }
}

int kappa_alpha_begin(struct kappa_alpha_acc *a, int k, const double *levels, int metric)
{
    memset(a, 0, sizeof *a);
    a->k = k;
    a->metric = metric;
    a->levels = levels;
    if (k <= 0) return 0;
    a->nc = calloc((size_t)k, sizeof *a->nc);
    a->cum = calloc((size_t)k, sizeof *a->cum);
    if (!a->nc || !a->cum) {
        free(a->nc); free(a->cum);
        a->nc = a->cum = NULL;
        return -1;
    }
    /* the term of a unit of two values depends on the two codes only */
    if (k <= 64) {
        a->pair = malloc((size_t)k * (size_t)k * sizeof *a->pair);
        if (a->pair)
            for (size_t i = 0; i < (size_t)k * (size_t)k; i++) a->pair[i] = NAN;
    }
    return 0;
}

int kappa_alpha_passes(const struct kappa_alpha_acc *a)
{
    return a->metric == KAPPA_M_ORDINAL ? 2 : 1;
}

static void alpha_cum(struct kappa_alpha_acc *a)
{
    double acc = 0;
    for (int c = 0; c < a->k; c++) { a->cum[c] = acc; acc += a->nc[c]; }
    a->counted = 1;
}

/* The term of one unit in the observed disagreement: s / (m - 1). */
static int alpha_term(struct kappa_alpha_acc *a, const int *x, size_t m, double *term)
{
    const double *levels = a->levels;
    int metric = a->metric;
    double s = 0;
    if (metric == KAPPA_M_INTERVAL) {
        double mean = 0;
        for (size_t i = 0; i < m; i++) mean += levels[x[i]];
        mean /= (double)m;
        for (size_t i = 0; i < m; i++) {
            double d = levels[x[i]] - mean;
            s += d * d;
        }
        s *= 2 * (double)m;
    } else {
        if (m > a->bufcap) {
            int *p = realloc(a->buf, m * sizeof *p);
            if (!p) return -1;
            a->buf = p;
            a->bufcap = m;
        }
        int *buf = a->buf;
        memcpy(buf, x, m * sizeof *buf);
        sort_small(buf, m);
        if (metric == KAPPA_M_NOMINAL) {
            double sq = 0;
            for (size_t i = 0; i < m;) {
                size_t j = i;
                while (j < m && buf[j] == buf[i]) j++;
                sq += (double)(j - i) * (double)(j - i);
                i = j;
            }
            s = (double)m * (double)m - sq;
        } else {
            /* distinct (code, count) runs, then pairs of runs */
            for (size_t i = 0; i < m;) {
                size_t j = i;
                while (j < m && buf[j] == buf[i]) j++;
                for (size_t p = j; p < m;) {
                    size_t q = p;
                    while (q < m && buf[q] == buf[p]) q++;
                    s += 2 * (double)(j - i) * (double)(q - p) *
                         delta2(buf[i], buf[p], metric, levels, a->nc, a->cum);
                    p = q;
                }
                i = j;
            }
        }
    }
    *term = s / (double)(m - 1);
    return 0;
}

static inline int alpha_add(struct kappa_alpha_acc *a, const int *x, size_t m)
{
    double term;
    if (m == 2 && a->pair) {
        double *p = &a->pair[(size_t)x[0] * (size_t)a->k + (size_t)x[1]];
        if (*p != *p && alpha_term(a, x, m, p) < 0) return -1;   /* not yet known */
        term = *p;
    } else if (alpha_term(a, x, m, &term) < 0) {
        return -1;
    }
    a->dobs += term;
    return 0;
}

int kappa_alpha_units(struct kappa_alpha_acc *a, int pass, const int *v, const size_t *off,
                      size_t nunits)
{
    if (!a->nc) return 0;
    int both = pass == 0 && kappa_alpha_passes(a) == 1;
    if (pass == 1 && !a->counted) alpha_cum(a);
    for (size_t u = 0; u < nunits; u++) {
        const int *x = v + off[u];
        size_t m = off[u + 1] - off[u];
        if (m < 2) continue;
        if (pass == 0) {
            for (size_t i = 0; i < m; i++) a->nc[x[i]] += 1;
            a->n += (double)m;
        }
        if ((pass == 1 || both) && alpha_add(a, x, m) < 0) return -1;
    }
    return 0;
}

int kappa_alpha_units2(struct kappa_alpha_acc *a, int pass, const int *x, const int *y,
                       size_t nunits)
{
    if (!a->nc) return 0;
    int both = pass == 0 && kappa_alpha_passes(a) == 1;
    if (pass == 1 && !a->counted) alpha_cum(a);
    double *nc = a->nc, n = a->n, dobs = a->dobs;
    int add = pass == 1 || both;
    size_t k = (size_t)a->k;
    for (size_t u = 0; u < nunits; u++) {
        int v[2] = { x[u], y[u] };
        if (pass == 0) {
            nc[v[0]] += 1;
            nc[v[1]] += 1;
            n += 2.0;
        }
        if (add) {   /* alpha_add */
            double term;
            double *p = a->pair ? &a->pair[(size_t)v[0] * k + (size_t)v[1]] : &term;
            if ((!a->pair || *p != *p) && alpha_term(a, v, 2, p) < 0) {
                a->n = n;
                a->dobs = dobs;
                return -1;
            }
            dobs += *p;
        }
    }
    a->n = n;
    a->dobs = dobs;
    return 0;
}

int kappa_alpha_pair_counts(struct kappa_alpha_acc *a, const uint64_t *pairs)
{
    if (!a->nc || a->n != 0 || a->dobs != 0) return 0;
    size_t k = (size_t)a->k;
    uint64_t units = 0;
    double *nc = calloc(k, sizeof *nc);
    if (!nc) return 0;
    for (size_t i = 0; i < k; i++)
        for (size_t j = 0; j < k; j++) {
            uint64_t c = pairs[i * k + j];
            units += c;
            nc[i] += (double)c;
            nc[j] += (double)c;
        }
    /* the counts as one at a time would leave them: the same integers */
    double *save = a->nc;
    a->nc = nc;
    alpha_cum(a);
    double limit = 4503599627370496.0 / (double)(units ? units : 1);   /* 2^52 / units */
    double dobs = 0;
    int exact = 1;
    for (size_t i = 0; i < k && exact; i++)
        for (size_t j = 0; j < k && exact; j++) {
            if (!pairs[i * k + j]) continue;
            int v[2] = { (int)i, (int)j };
            double term;
            if (alpha_term(a, v, 2, &term) < 0 || !(fabs(term) <= limit) || term != floor(term))
                exact = 0;
            else
                dobs += term * (double)pairs[i * k + j];
        }
    if (!exact) {   /* the units must be added one at a time */
        a->nc = save;
        a->counted = 0;
        free(nc);
        return 0;
    }
    free(save);
    a->n = 2.0 * (double)units;
    a->dobs = dobs;
    return 1;
}

double kappa_alpha_end(struct kappa_alpha_acc *a, size_t *npairable)
{
    if (npairable) *npairable = 0;
    if (a->k <= 0 || !a->nc) { free(a->buf); free(a->pair); a->buf = NULL; a->pair = NULL; return NAN; }
    double n = a->n, dobs = a->dobs;
    const double *nc = a->nc, *levels = a->levels;
    int k = a->k, metric = a->metric;
    if (npairable) *npairable = (size_t)n;
    if (!a->counted) alpha_cum(a);
    /* Expected: sum_c sum_d n_c n_d delta2(c, d). */
    double dexp = 0;
    if (metric == KAPPA_M_NOMINAL) {
        double sq = 0;
        for (int c = 0; c < k; c++) sq += nc[c] * nc[c];
        dexp = n * n - sq;
    } else if (metric == KAPPA_M_INTERVAL) {
        double mean = 0;
        for (int c = 0; c < k; c++) mean += nc[c] * levels[c];
        mean = n > 0 ? mean / n : 0;
        for (int c = 0; c < k; c++) {
            double d = levels[c] - mean;
            dexp += nc[c] * d * d;
        }
        dexp *= 2 * n;
    } else {
        for (int c = 0; c < k; c++) {
            if (nc[c] == 0) continue;
            for (int d = c + 1; d < k; d++)
                if (nc[d] != 0)
                    dexp += 2 * nc[c] * nc[d] * delta2(c, d, metric, levels, nc, a->cum);
        }
    }
    free(a->nc); free(a->cum); free(a->buf); free(a->pair);
    a->nc = a->cum = a->pair = NULL;
    a->buf = NULL;
    if (n < 2 || dexp == 0) return NAN;
    return 1 - (n - 1) * dobs / dexp;
}

double kappa_alpha(const int *v, const size_t *off, size_t nunits, int k,
                   const double *levels, int metric, size_t *npairable)
{
    struct kappa_alpha_acc a;
    if (npairable) *npairable = 0;
    if (k <= 0) return NAN;
    if (kappa_alpha_begin(&a, k, levels, metric) < 0) return NAN;
    for (int pass = 0; pass < kappa_alpha_passes(&a); pass++)
        if (kappa_alpha_units(&a, pass, v, off, nunits) < 0) {
            free(a.nc); free(a.cum); free(a.buf); free(a.pair);
            return NAN;
        }
    return kappa_alpha_end(&a, npairable);
}

/* ---- numeric pairs ----------------------------------------------------- */

void kappa_ranks(const int *code, size_t n, int k, double *rank_out)
{
    double *cnt = calloc((size_t)(k > 0 ? k : 1), sizeof *cnt);
    if (!cnt) { for (size_t i = 0; i < n; i++) rank_out[i] = NAN; return; }
    for (size_t i = 0; i < n; i++) cnt[code[i]] += 1;
    double below = 0;
    for (int c = 0; c < k; c++) {
        double t = cnt[c];
        cnt[c] = below + (t + 1) / 2;   /* average rank of code c */
        below += t;
    }
    for (size_t i = 0; i < n; i++) rank_out[i] = cnt[code[i]];
    free(cnt);
}

double kappa_pearson(const double *x, const double *y, size_t n)
{
    if (n < 2) return NAN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) { mx += x[i]; my += y[i]; }
    mx /= (double)n; my /= (double)n;
    double sxx = 0, syy = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = x[i] - mx, dy = y[i] - my;
        sxx += dx * dx; syy += dy * dy; sxy += dx * dy;
    }
    if (sxx == 0 || syy == 0) return NAN;
    double r = sxy / sqrt(sxx * syy);
    if (r > 1) r = 1;
    if (r < -1) r = -1;
    return r;
}

/* Average rank of each code (as kappa_ranks); NULL on allocation failure. */
static double *code_ranks(const int *code, size_t n, int k)
{
    double *cnt = calloc((size_t)(k > 0 ? k : 1), sizeof *cnt);
    if (!cnt) return NULL;
    for (size_t i = 0; i < n; i++) cnt[code[i]] += 1;
    double below = 0;
    for (int c = 0; c < k; c++) {
        double t = cnt[c];
        cnt[c] = below + (t + 1) / 2;
        below += t;
    }
    return cnt;
}

double kappa_spearman(const int *a, const int *b, size_t n, int ka, int kb)
{
    if (n < 2) return NAN;
    double *rka = code_ranks(a, n, ka), *rkb = code_ranks(b, n, kb);
    double r = NAN;
    if (rka && rkb) {
        /* kappa_pearson of the ranks, step for step */
        double mx = 0, my = 0;
        for (size_t i = 0; i < n; i++) { mx += rka[a[i]]; my += rkb[b[i]]; }
        mx /= (double)n; my /= (double)n;
        double sxx = 0, syy = 0, sxy = 0;
        for (size_t i = 0; i < n; i++) {
            double dx = rka[a[i]] - mx, dy = rkb[b[i]] - my;
            sxx += dx * dx; syy += dy * dy; sxy += dx * dy;
        }
        if (sxx != 0 && syy != 0) {
            r = sxy / sqrt(sxx * syy);
            if (r > 1) r = 1;
            if (r < -1) r = -1;
        }
    }
    free(rka); free(rkb);
    return r;
}

int kappa_spearman_begin(struct kappa_spearman_acc *s, const uint64_t *tab, int k)
{
    memset(s, 0, sizeof *s);
    s->k = k;
    if (k <= 0) return 0;
    s->rka = calloc((size_t)k, sizeof *s->rka);
    s->rkb = calloc((size_t)k, sizeof *s->rkb);
    if (!s->rka || !s->rkb) { free(s->rka); free(s->rkb); s->rka = s->rkb = NULL; return -1; }
    for (size_t i = 0; i < (size_t)k; i++)
        for (size_t j = 0; j < (size_t)k; j++) {
            s->rka[i] += (double)tab[i * (size_t)k + j];
            s->rkb[j] += (double)tab[i * (size_t)k + j];
            s->n += tab[i * (size_t)k + j];
        }
    /* the average rank of each code, as code_ranks() */
    double *r[2] = { s->rka, s->rkb };
    for (int w = 0; w < 2; w++) {
        double below = 0;
        for (int c = 0; c < k; c++) {
            double t = r[w][c];
            r[w][c] = below + (t + 1) / 2;
            below += t;
        }
    }
    /* the means: sums of half-integers below 2^52, exact in any order */
    double mx = 0, my = 0;
    for (size_t i = 0; i < (size_t)k; i++)
        for (size_t j = 0; j < (size_t)k; j++) {
            double c = (double)tab[i * (size_t)k + j];
            mx += c * s->rka[i];
            my += c * s->rkb[j];
        }
    s->mx = mx / (double)s->n;
    s->my = my / (double)s->n;
    return 0;
}

void kappa_spearman_units(struct kappa_spearman_acc *s, const int *a, const int *b, size_t n)
{
    if (!s->rka) return;
    double sxx = s->sxx, syy = s->syy, sxy = s->sxy, mx = s->mx, my = s->my;
    for (size_t i = 0; i < n; i++) {
        double dx = s->rka[a[i]] - mx, dy = s->rkb[b[i]] - my;
        sxx += dx * dx; syy += dy * dy; sxy += dx * dy;
    }
    s->sxx = sxx; s->syy = syy; s->sxy = sxy;
}

double kappa_spearman_end(struct kappa_spearman_acc *s)
{
    double r = NAN;
    if (s->rka && s->n >= 2 && s->sxx != 0 && s->syy != 0) {
        r = s->sxy / sqrt(s->sxx * s->syy);
        if (r > 1) r = 1;
        if (r < -1) r = -1;
    }
    free(s->rka); free(s->rkb);
    s->rka = s->rkb = NULL;
    return r;
}

static double ties_of(const uint64_t *cnt, int k)
{
    double t = 0;
    for (int c = 0; c < k; c++) t += (double)cnt[c] * ((double)cnt[c] - 1) / 2;
    return t;
}

double kappa_kendall(const int *a, const int *b, size_t n, int ka, int kb)
{
    if (n < 2 || ka <= 0 || kb <= 0) return NAN;
    uint64_t *ca = calloc((size_t)ka + 1, sizeof *ca);
    uint64_t *cb = calloc((size_t)kb + 1, sizeof *cb);
    size_t *ord = malloc(n * sizeof *ord), *tmp = malloc(n * sizeof *tmp);
    uint64_t *fen = calloc((size_t)kb + 1, sizeof *fen);
    double tau = NAN;
    if (!ca || !cb || !ord || !tmp || !fen) goto out;
    /* Order units by (a, b): counting sort by b, then stable by a. */
    for (size_t i = 0; i < n; i++) { ca[a[i] + 1]++; cb[b[i] + 1]++; }
    for (int c = 0; c < kb; c++) cb[c + 1] += cb[c];
    for (int c = 0; c < ka; c++) ca[c + 1] += ca[c];
    for (size_t i = 0; i < n; i++) tmp[cb[b[i]]++] = i;
    for (size_t i = 0; i < n; i++) { size_t u = tmp[i]; ord[ca[a[u]]++] = u; }
    /* Joint ties and discordant pairs (strict inversions of b). */
    double joint = 0, disc = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && a[ord[j]] == a[ord[i]] && b[ord[j]] == b[ord[i]]) j++;
        joint += (double)(j - i) * ((double)(j - i) - 1) / 2;
        i = j;
    }
    uint64_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        int y = b[ord[i]];
        uint64_t le = 0;   /* earlier elements with b <= y */
        for (int p = y + 1; p > 0; p -= p & -p) le += fen[p];
        disc += (double)(seen - le);
        for (int p = y + 1; p <= kb; p += p & -p) fen[p]++;
        seen++;
    }
    /* Counts per code again for tie totals. */
    memset(ca, 0, ((size_t)ka + 1) * sizeof *ca);
    memset(cb, 0, ((size_t)kb + 1) * sizeof *cb);
    for (size_t i = 0; i < n; i++) { ca[a[i]]++; cb[b[i]]++; }
    double n0 = (double)n * ((double)n - 1) / 2;
    double n1 = ties_of(ca, ka), n2 = ties_of(cb, kb);
    double den = sqrt((n0 - n1) * (n0 - n2));
    if (den > 0) {
        tau = (n0 - n1 - n2 + joint - 2 * disc) / den;
        if (tau > 1) tau = 1;
        if (tau < -1) tau = -1;
    }
out:
    free(ca); free(cb); free(ord); free(tmp); free(fen);
    return tau;
}

/* The differences x - y, scaled down by sc (a power of two) when the
 * values are so large that a difference could overflow; returns the
 * largest scaled |difference| and sets *sc. */
static double diff_scale(const double *x, const double *y, size_t n, double *sc)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fmax(fabs(x[i]), fabs(y[i])));
    *sc = m > 0x1p1000 ? 0x1p-64 : 1;
    double d = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs(x[i] * *sc - y[i] * *sc));
    return d;
}

/* Both computed without overflow for any finite values (inf only when the
 * result itself exceeds the largest double); rmse as the largest difference
 * times the root mean square of the differences relative to it. */
double kappa_mae(const double *x, const double *y, size_t n)
{
    if (n == 0) return NAN;
    double sc, s = 0;
    diff_scale(x, y, n, &sc);
    for (size_t i = 0; i < n; i++) s += fabs(x[i] * sc - y[i] * sc) / (double)n;
    return s / sc;
}

double kappa_rmse(const double *x, const double *y, size_t n)
{
    if (n == 0) return NAN;
    double sc, s = 0;
    double dmax = diff_scale(x, y, n, &sc);
    if (!(dmax > 0)) return dmax == 0 ? 0 : NAN;
    for (size_t i = 0; i < n; i++) {
        double t = (x[i] * sc - y[i] * sc) / dmax;
        s += t * t / (double)n;
    }
    return dmax * sqrt(s) / sc;
}

/* ---- binary grading ---------------------------------------------------- */

void kappa_confusion_count(const int *a, const int *b, size_t n, int pos,
                           struct kappa_confusion *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < n; i++) {
        int ga = a[i] == pos, gb = b[i] == pos;
        if (ga && gb) c->tp++;
        else if (gb) c->fp++;
        else if (ga) c->fn++;
        else c->tn++;
    }
}

static double ratio(double x, double y) { return y > 0 ? x / y : NAN; }

double kappa_bin_accuracy(const struct kappa_confusion *c)
{
    return ratio((double)(c->tp + c->tn), (double)(c->tp + c->tn + c->fp + c->fn));
}
double kappa_bin_precision(const struct kappa_confusion *c)
{
    return ratio((double)c->tp, (double)(c->tp + c->fp));
}
double kappa_bin_recall(const struct kappa_confusion *c)
{
    return ratio((double)c->tp, (double)(c->tp + c->fn));
}
double kappa_bin_f1(const struct kappa_confusion *c)
{
    return ratio(2.0 * (double)c->tp, 2.0 * (double)c->tp + (double)(c->fp + c->fn));
}
double kappa_bin_fnr(const struct kappa_confusion *c)
{
    return ratio((double)c->fn, (double)(c->tp + c->fn));
}
double kappa_bin_fpr(const struct kappa_confusion *c)
{
    return ratio((double)c->fp, (double)(c->fp + c->tn));
}
double kappa_bin_mcc(const struct kappa_confusion *c)
{
    double tp = (double)c->tp, tn = (double)c->tn, fp = (double)c->fp, fn = (double)c->fn;
    double den = sqrt(tp + fp) * sqrt(tp + fn) * sqrt(tn + fp) * sqrt(tn + fn);
    return ratio(tp * tn - fp * fn, den);
}
double kappa_bin_macro_f1(const struct kappa_confusion *c)
{
    struct kappa_confusion neg = { c->tn, c->fn, c->fp, c->tp };
    return (kappa_bin_f1(c) + kappa_bin_f1(&neg)) / 2;
}

/* ---- bootstrap helpers ------------------------------------------------- */

double kappa_quantile(const double *sorted, size_t n, double p)
{
    if (n == 0) return NAN;
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1) return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

uint64_t kappa_rand_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t kappa_rand_below(uint64_t *state, uint64_t n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = kappa_rand_next(state); while (x >= limit);
    return x % n;
}

/* ---- significance of a correlation -------------------------------------- */

/* Continued fraction of the regularized incomplete beta function (modified
 * Lentz), for x < (a + 1)/(a + b + 2). */
static double betacf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 1000; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d; if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c; if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d; if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c; if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15) break;
    }
    return h;
}

double kappa_betainc(double a, double b, double x)
{
    if (!(a > 0 && b > 0) || !(x >= 0 && x <= 1)) return NAN;
    if (x == 0 || x == 1) return x;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2)) return exp(lbt) * betacf(a, b, x) / a;
    return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double kappa_corr_pvalue(double r, size_t n)
{
    if (!isfinite(r) || n < 3 || r < -1 - 1e-12 || r > 1 + 1e-12) return NAN;
    double r2 = r * r;
    if (r2 >= 1) return 0;
    /* t = r sqrt(df / (1 - r^2)) with df = n - 2; P(|T| >= |t|) = I_{df/(df + t^2)}(df/2, 1/2),
     * and df/(df + t^2) = 1 - r^2 */
    return kappa_betainc((double)(n - 2) / 2, 0.5, 1 - r2);
}
