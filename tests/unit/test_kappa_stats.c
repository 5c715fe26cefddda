/* test_kappa_stats.c — unit tests of stats/measures.c: textbook values,
 * brute-force references for the fast algorithms (Kendall's tau-b, the O(k)
 * weighted-kappa forms, average ranks), and the reproducible random stream. */
#include "stats/measures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fails;

static void near(const char *what, double got, double want, double tol)
{
    if (isnan(want) ? !isnan(got) : !(fabs(got - want) <= tol)) {
        printf("FAIL %s: got %.15g, want %.15g\n", what, got, want);
        fails++;
    }
}

static double brute_tau_b(const int *a, const int *b, size_t n)
{
    double c = 0, d = 0, ta = 0, tb = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            int x = (a[i] > a[j]) - (a[i] < a[j]), y = (b[i] > b[j]) - (b[i] < b[j]);
            if (x == 0 && y == 0) continue;
            if (x == 0) ta++;
            else if (y == 0) tb++;
            else if (x == y) c++;
            else d++;
        }
    return (c - d) / sqrt((c + d + ta) * (c + d + tb));
}

static double brute_weighted(const int *a, const int *b, size_t n, int k, int quad)
{
    double *ra = calloc((size_t)k, sizeof *ra), *rb = calloc((size_t)k, sizeof *rb);
    double obs = 0, exp = 0;
    for (size_t i = 0; i < n; i++) {
        ra[a[i]]++; rb[b[i]]++;
        double w = fabs((double)(a[i] - b[i])) / (k - 1);
        obs += quad ? w * w : w;
    }
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            double w = fabs((double)(i - j)) / (k - 1);
            exp += (quad ? w * w : w) * ra[i] * rb[j];
        }
    free(ra); free(rb);
    return 1 - (obs / n) / (exp / ((double)n * n));
}

int main(void)
{
    /* Cohen (1960)-style 2x2 example: 50 units, table [[20,5],[10,15]]:
     * p_o = 0.7, p_e = 0.5, kappa = 0.4. */
    int a[50], b[50];
    size_t n = 0;
    for (int i = 0; i < 20; i++) { a[n] = 0; b[n++] = 0; }
    for (int i = 0; i < 5; i++) { a[n] = 0; b[n++] = 1; }
    for (int i = 0; i < 10; i++) { a[n] = 1; b[n++] = 0; }
    for (int i = 0; i < 15; i++) { a[n] = 1; b[n++] = 1; }
    near("agreement", kappa_agreement(a, b, n), 0.7, 1e-15);
    near("cohen 2x2", kappa_cohen(a, b, n, 2, KAPPA_W_NONE), 0.4, 1e-12);
    /* Scott: p_e = 0.5^2 + 0.5^2... margins A 25/25, B 30/20 -> pooled .55/.45 */
    near("scott 2x2", kappa_scott(a, b, n, 2), (0.7 - (0.55 * 0.55 + 0.45 * 0.45)) /
         (1 - (0.55 * 0.55 + 0.45 * 0.45)), 1e-12);
    near("cohen one category", kappa_cohen(a, a, 20, 2, KAPPA_W_NONE), NAN, 0);
    near("cohen n=0", kappa_cohen(a, b, 0, 2, KAPPA_W_NONE), NAN, 0);

    /* Binary: tp 20, fp 10, fn 5, tn 15 with positive code 0, a = reference. */
    struct kappa_confusion c;
    kappa_confusion_count(a, b, n, 0, &c);
    if (c.tp != 20 || c.fn != 5 || c.fp != 10 || c.tn != 15) {
        printf("FAIL confusion %llu %llu %llu %llu\n", (unsigned long long)c.tp,
               (unsigned long long)c.fp, (unsigned long long)c.fn, (unsigned long long)c.tn);
        fails++;
    }
    near("mcc", kappa_bin_mcc(&c), (20.0 * 15 - 10.0 * 5) / sqrt(30.0 * 25 * 25 * 20), 1e-12);

    /* Random data: fast algorithms against brute force. */
    uint64_t st = 42;
    for (int trial = 0; trial < 200; trial++) {
        size_t m = 2 + (size_t)kappa_rand_below(&st, 300);
        int k = 2 + (int)kappa_rand_below(&st, trial % 10 == 0 ? 3000 : 8);
        int *x = malloc(m * sizeof *x), *y = malloc(m * sizeof *y);
        for (size_t i = 0; i < m; i++) {
            x[i] = (int)kappa_rand_below(&st, (uint64_t)k);
            y[i] = kappa_rand_below(&st, 3) ? x[i] : (int)kappa_rand_below(&st, (uint64_t)k);
        }
        char what[64];
        snprintf(what, sizeof what, "kendall trial %d", trial);
        near(what, kappa_kendall(x, y, m, k, k), brute_tau_b(x, y, m), 1e-12);
        snprintf(what, sizeof what, "linear trial %d (k %d)", trial, k);
        near(what, kappa_cohen(x, y, m, k, KAPPA_W_LINEAR), brute_weighted(x, y, m, k, 0), 1e-9);
        snprintf(what, sizeof what, "quadratic trial %d (k %d)", trial, k);
        near(what, kappa_cohen(x, y, m, k, KAPPA_W_QUADRATIC), brute_weighted(x, y, m, k, 1), 1e-9);
        free(x); free(y);
    }

    /* Average ranks: 10 20 20 30 -> 1 2.5 2.5 4 */
    int code[4] = { 0, 1, 1, 2 };
    double rk[4];
    kappa_ranks(code, 4, 3, rk);
    near("rank 0", rk[0], 1, 0); near("rank 1", rk[1], 2.5, 0); near("rank 3", rk[3], 4, 0);

    /* Krippendorff's alpha: perfect agreement is 1, unit with one value ignored. */
    int v[7] = { 0, 0, 1, 1, 1, 2, 2 };
    size_t off[5] = { 0, 2, 5, 6, 7 };
    double lev[3] = { 1, 2, 3 };
    size_t np;
    near("alpha perfect", kappa_alpha(v, off, 4, 3, lev, KAPPA_M_INTERVAL, &np), 1, 1e-15);
    if (np != 5) { printf("FAIL pairable %zu\n", np); fails++; }

    /* Quantiles (type 7) and the random stream. */
    double s[5] = { 1, 2, 3, 4, 5 };
    near("quantile .5", kappa_quantile(s, 5, 0.5), 3, 0);
    near("quantile .1", kappa_quantile(s, 5, 0.1), 1.4, 1e-15);
    near("quantile 1", kappa_quantile(s, 5, 1), 5, 0);
    uint64_t z = 0;
    if (kappa_rand_next(&z) != 0xe220a8397b1dcdafULL) { printf("FAIL splitmix64\n"); fails++; }

    if (fails) { printf("%d failures\n", fails); return 1; }
    printf("test_kappa_stats: all passed\n");
    return 0;
}
