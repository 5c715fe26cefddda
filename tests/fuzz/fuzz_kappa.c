/* fuzz_kappa.c — fuzz harness for kappa's table reader and statistics.
 *
 * The first byte picks options (bit 0 --by criterion, 1 --missing na,
 * 2 --unrated na, 3-4 the statistics: defaults / categorical and binary /
 * numeric / label sets, 5 a small bootstrap, 6 --duplicates last, 7 JSON
 * output); the rest is a rating table.  Whatever the input, kappa must not
 * crash, leak or hang, and TSV output must have 9 fields on every line.
 * Diagnostics go to /dev/null. */
#include "stats/run.h"
#include "stats/table.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const STATSETS[4] = {
    NULL,
    "agreement,cohen,scott,fleiss,alpha-nominal,accuracy,precision,recall,f1,fnr,fpr,mcc,"
    "macro-f1,confusion,coverage",
    "cohen-linear,cohen-quadratic,spearman,kendall,pearson,mae,rmse,alpha-ordinal,"
    "alpha-interval,alpha-ratio,mean",
    "label-example-f1,label-micro-f1,label-macro-f1,label-recall,set-precision,set-recall,set-f1",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "w");
    if (!devnull || size == 0) return 0;
    unsigned b = data[0];
    struct kappa_opts o;
    kappa_opts_init(&o);
    if (b & 1) o.by = "criterion";
    if (b & 2) o.missing = "na";
    if (b & 4) o.unrated = "na";
    o.stats = STATSETS[(b >> 3) & 3];
    if (b & 32) { o.ci = 0.9; o.reps = 7; o.seed = 3; }
    if (b & 64) o.duplicates = KAPPA_DUP_LAST;
    o.format = (b & 128) ? KAPPA_FMT_JSON : KAPPA_FMT_TSV;
    if (kappa_opts_check(&o, devnull) < 0) abort();
    kappa_table *t = kappa_table_new(o.by, o.multilabel, o.duplicates);
    if (!t) return 0;
    if (kappa_table_read_buffer(t, (const char *)data + 1, size - 1, "fuzz.tsv", devnull) == 0) {
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        if (out) {
            int st = kappa_run(t, &o, out, devnull);
            fclose(out);
            if (st != 0 && st != 2) abort();
            if (st == 0 && o.format == KAPPA_FMT_TSV) {
                int tabs = 0;
                for (size_t i = 0; i < len; i++) {
                    if (buf[i] == '\t') tabs++;
                    else if (buf[i] == '\n') { if (tabs != 8) abort(); tabs = 0; }
                }
            }
            free(buf);
        }
    }
    kappa_table_free(t);
    return 0;
}
