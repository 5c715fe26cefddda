/* kappa_core.h — the rating table and the statistics run behind kappa(1).
 *
 * A kappa_table holds long-form ratings (item, criterion, rater, value) read
 * from any number of TSV streams.  kappa_run() groups, pairs and computes the
 * requested statistics and prints them.  Errors are reported as
 * "file:line:col: error: message" on the stream given; nothing here exits.
 */
#ifndef KAPPA_CORE_H
#define KAPPA_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum kappa_format { KAPPA_FMT_TSV, KAPPA_FMT_TABLE, KAPPA_FMT_JSON };
enum kappa_dup { KAPPA_DUP_ERROR, KAPPA_DUP_FIRST, KAPPA_DUP_LAST };

struct kappa_opts {
    const char *by;          /* comma-separated grouping columns, or NULL */
    const char *raters;      /* comma-separated raters to compare, or NULL (all) */
    const char *reference;   /* pair every rater with this one only, or NULL */
    const char *missing;     /* NULL: drop; else the category a missing verdict becomes */
    const char *unrated;     /* NULL: drop; else the category for items a rater never rated */
    const char *stats;       /* comma-separated statistics, or NULL for the defaults */
    const char *positive;    /* positive class of the binary statistics ("yes") */
    int multilabel;          /* several label rows per item and rater are a set */
    int duplicates;          /* enum kappa_dup */
    double ci;               /* 0: no intervals; else the level, e.g. 0.95 */
    long reps;               /* bootstrap replicates */
    uint64_t seed;
    int format;              /* enum kappa_format */
    int digits;              /* decimals printed in tsv/table output */
    int quiet;               /* no notes on stderr (warnings stay) */
};

void kappa_opts_init(struct kappa_opts *o);
/* Checks the option values (statistic names, columns) before any input is
 * read; prints the problem on err and returns -1 when they are unusable.
 * Label statistics switch on o->multilabel. */
int kappa_opts_check(struct kappa_opts *o, FILE *err);

typedef struct kappa_table kappa_table;

kappa_table *kappa_table_new(const struct kappa_opts *o);
void kappa_table_free(kappa_table *t);
/* Reads one TSV stream; name is used in diagnostics.  Returns 0, or -1 after
 * printing the errors (at most a screenful).  A regular file is mapped; the
 * first one installs a SIGBUS handler, so that a file cut short while it is
 * mapped is an error, not a crash (other SIGBUS go to the handler before it). */
int kappa_table_read(kappa_table *t, FILE *in, const char *name, FILE *err);
/* The same for a buffer in memory (tests, fuzzing). */
int kappa_table_read_buffer(kappa_table *t, const char *data, size_t len,
                            const char *name, FILE *err);
/* Computes and prints the statistics.  Returns the exit status: 0, or 2 for
 * an input or usage error (reported on err). */
int kappa_run(kappa_table *t, const struct kappa_opts *o, FILE *out, FILE *err);

/* The statistic names kappa knows, NULL-terminated (for --help / --list). */
extern const char *const kappa_stat_names[];

#endif
