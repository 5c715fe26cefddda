/* stats/run.h — the statistics run behind kappa(1): its options, and
 * kappa_run(), which groups and pairs the ratings of a table (stats/table.h),
 * computes the requested statistics (stats/measures.h) and prints them.
 * Errors are reported as "file:line:col: error: message" on the stream
 * given; nothing here exits.  This header is the whole contract of
 * stats/run.c.
 */
#ifndef DIAGRAMIR_STATS_RUN_H
#define DIAGRAMIR_STATS_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct kappa_table kappa_table;   /* stats/table.h */

enum kappa_format { KAPPA_FMT_TSV, KAPPA_FMT_TABLE, KAPPA_FMT_JSON };

struct kappa_opts {
    const char *by;          /* comma-separated grouping columns, or NULL */
    const char *raters;      /* comma-separated raters to compare, or NULL (all) */
    const char *reference;   /* pair every rater with this one only, or NULL */
    const char *missing;     /* NULL: drop; else the category a missing verdict becomes */
    const char *unrated;     /* NULL: drop; else the category for items a rater never rated */
    const char *stats;       /* comma-separated statistics, or NULL for the defaults */
    const char *positive;    /* positive class of the binary statistics ("yes") */
    int multilabel;          /* several label rows per item and rater are a set */
    const char *both;        /* "CRITERION=VALUE": label statistics of a pair use only the items
                                both its raters rated so (SketchJudge: is-correct=no) */
    const char *taxonomy;    /* domain<TAB>label file: label sets keep the labels DOMAIN::LABEL
                                applicable to the answer's domain (NULL: every label) */
    const char *compare;     /* "A,B": the difference of A's and B's statistics against the
                                reference, paired bootstrap interval and permutation p */
    double percent_of;       /* > 0: mean is printed as a percentage of this scale maximum */
    int duplicates;          /* enum kappa_dup */
    double ci;               /* 0: no intervals; else the level, e.g. 0.95 */
    long reps;               /* bootstrap replicates */
    uint64_t seed;
    int format;              /* enum kappa_format */
    int digits;              /* decimals printed in tsv/table output */
    int quiet;               /* no notes on stderr (warnings stay) */
};

void kappa_opts_init(struct kappa_opts *o);
/* A whole number option value (--reps, --seed, --digits ...): 0 and *out
 * when all of s is a decimal integer in [lo, hi], else -1. */
int kappa_parse_long(const char *s, long long lo, long long hi, long long *out);
/* Checks the option values (statistic names, columns) before any input is
 * read; prints the problem on err and returns -1 when they are unusable.
 * Label statistics switch on o->multilabel. */
int kappa_opts_check(struct kappa_opts *o, FILE *err);

/* Computes and prints the statistics.  Returns the exit status: 0, or 2 for
 * an input or usage error (reported on err). */
int kappa_run(kappa_table *t, const struct kappa_opts *o, FILE *out, FILE *err);

/* The statistic names kappa knows, NULL-terminated (for --help / --list). */
extern const char *const kappa_stat_names[];

#endif
