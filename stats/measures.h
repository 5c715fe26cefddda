/* stats/measures.h — the statistics of kappa(1) on coded data.
 *
 * Pure functions: no I/O, no global state, no allocation visible to the caller.
 * Data arrive coded: a category or level is an int code 0..k-1 (for ordered
 * data, codes are in increasing order of value and levels[code] is the value).
 * Every function returns NAN when the statistic is undefined for its input
 * (n too small, one category only, zero variance); callers report why.
 */
#ifndef DIAGRAMIR_STATS_MEASURES_H
#define DIAGRAMIR_STATS_MEASURES_H

#include <stddef.h>
#include <stdint.h>

enum kappa_weight { KAPPA_W_NONE = 0, KAPPA_W_LINEAR = 1, KAPPA_W_QUADRATIC = 2 };
enum kappa_metric {
    KAPPA_M_NOMINAL = 0, KAPPA_M_ORDINAL = 1, KAPPA_M_INTERVAL = 2, KAPPA_M_RATIO = 3
};

/* Pairs of ratings a[i], b[i] of n units, codes in 0..k-1. */
double kappa_agreement(const int *a, const int *b, size_t n);
/* Cohen's kappa; weight: KAPPA_W_*; weights use code distance |i-j|/(k-1). */
double kappa_cohen(const int *a, const int *b, size_t n, int k, int weight);
/* Scott's pi. */
double kappa_scott(const int *a, const int *b, size_t n, int k);

/* The same three from the k x k table of code pairs, tab[a * k + b] units
 * coded a and b: the same doubles (their sums are of whole counts). */
double kappa_agreement_table(const uint64_t *tab, int k);
double kappa_cohen_table(const uint64_t *tab, int k);   /* unweighted */
double kappa_scott_table(const uint64_t *tab, int k);

/* Fleiss' kappa from a count matrix: counts[i*k+j] raters put unit i in
 * category j; every row should have the same sum m >= 2 (rows with a sum < 2
 * are ignored; unequal sums use the per-row generalisation). */
double kappa_fleiss(const int *counts, size_t nunits, int k);

/* Krippendorff's alpha.  Unit u holds the codes v[off[u] .. off[u+1]-1]
 * (missing values are simply absent).  levels[c] is the numeric value of code
 * c (needed for interval and ratio; codes must be sorted by value for
 * ordinal).  *npairable (may be NULL) receives the number of pairable values. */
double kappa_alpha(const int *v, const size_t *off, size_t nunits, int k,
                   const double *levels, int metric, size_t *npairable);

/* The same, a block of units at a time: kappa_alpha_units() takes units
 * u < nunits holding v[off[u] .. off[u + 1] - 1]; every unit goes through it
 * once per pass (kappa_alpha_passes(): 1, or 2 for the ordinal metric, whose
 * differences need all counts first), in the same order each pass.
 * kappa_alpha_end gives alpha and frees the accumulator; kappa_alpha() is
 * this over whole arrays.  begin and units return -1 when out of memory
 * (then alpha is NAN). */
struct kappa_alpha_acc {
    int k, metric, counted;
    const double *levels;
    double *nc, *cum;
    double n, dobs;
    int *buf;
    size_t bufcap;
    double *pair;   /* the term of a unit of two codes, once computed (NaN: not yet) */
};
int kappa_alpha_begin(struct kappa_alpha_acc *a, int k, const double *levels, int metric);
int kappa_alpha_passes(const struct kappa_alpha_acc *a);
int kappa_alpha_units(struct kappa_alpha_acc *a, int pass, const int *v, const size_t *off,
                      size_t nunits);
/* The same for units of exactly two values, x[u] and y[u]. */
int kappa_alpha_units2(struct kappa_alpha_acc *a, int pass, const int *x, const int *y,
                       size_t nunits);
/* For units of exactly two values: alpha's sums from the number of units
 * coded (i, j), pairs[i * k + j], on a fresh accumulator.  Adding the units
 * one at a time rounds after each, so this is taken only when it gives the
 * same doubles: every unit's term an integer and every partial sum below
 * 2^52, so that no addition rounds (interval alpha of integer scores,
 * nominal alpha).  Returns 1 when taken; 0 leaves the accumulator as it
 * was (the units then go through kappa_alpha_units2). */
int kappa_alpha_pair_counts(struct kappa_alpha_acc *a, const uint64_t *pairs);
double kappa_alpha_end(struct kappa_alpha_acc *a, size_t *npairable);

/* Average ranks (1-based, ties get the mean rank) of ordered codes. */
void kappa_ranks(const int *code, size_t n, int k, double *rank_out);
double kappa_pearson(const double *x, const double *y, size_t n);
/* Spearman's rho of ordered codes (average ranks for ties). */
double kappa_spearman(const int *a, const int *b, size_t n, int ka, int kb);
/* Spearman's rho in the order of kappa_spearman's sums without its arrays:
 * begin with the table of code pairs (tab[a * k + b] units), then every unit
 * with codes a[i], b[i], in unit order, through kappa_spearman_units.  The
 * same double.  begin returns -1 when out of memory (rho is then NAN). */
struct kappa_spearman_acc {
    int k;
    uint64_t n;
    double *rka, *rkb, mx, my, sxx, syy, sxy;
};
int kappa_spearman_begin(struct kappa_spearman_acc *s, const uint64_t *tab, int k);
void kappa_spearman_units(struct kappa_spearman_acc *s, const int *a, const int *b, size_t n);
double kappa_spearman_end(struct kappa_spearman_acc *s);
/* Kendall's tau-b of ordered codes, O(n log k). */
double kappa_kendall(const int *a, const int *b, size_t n, int ka, int kb);
double kappa_mae(const double *x, const double *y, size_t n);
double kappa_rmse(const double *x, const double *y, size_t n);

/* Binary grading: a is the reference, b the prediction; code pos is the
 * positive class, every other code is negative. */
struct kappa_confusion { uint64_t tp, fp, fn, tn; };
void kappa_confusion_count(const int *a, const int *b, size_t n, int pos,
                           struct kappa_confusion *c);
double kappa_bin_accuracy(const struct kappa_confusion *c);
double kappa_bin_precision(const struct kappa_confusion *c);
double kappa_bin_recall(const struct kappa_confusion *c);
double kappa_bin_f1(const struct kappa_confusion *c);
double kappa_bin_fnr(const struct kappa_confusion *c);
double kappa_bin_fpr(const struct kappa_confusion *c);
double kappa_bin_mcc(const struct kappa_confusion *c);
/* Mean of the F1 of the positive and of the negative class. */
double kappa_bin_macro_f1(const struct kappa_confusion *c);

/* The regularized incomplete beta function I_x(a, b) (a, b > 0, 0 <= x <= 1). */
double kappa_betainc(double a, double b, double x);
/* Two-sided p-value of a correlation r of n pairs against no correlation:
 * Student's t = r sqrt((n - 2)/(1 - r^2)) with n - 2 degrees of freedom (the
 * test SciPy's pearsonr and spearmanr make); NAN when n < 3 or r is NAN. */
double kappa_corr_pvalue(double r, size_t n);

/* Type-7 (linear interpolation) quantile of sorted x[0..n-1], 0 <= p <= 1. */
double kappa_quantile(const double *sorted, size_t n, double p);

/* splitmix64 random stream: reproducible on every platform. */
uint64_t kappa_rand_next(uint64_t *state);
/* Uniform integer in [0, n), n > 0, without modulo bias. */
uint64_t kappa_rand_below(uint64_t *state, uint64_t n);

#endif
