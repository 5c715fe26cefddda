/* report/report.h — one self-contained HTML study report (irreport(1)):
 * diagrams of the IR (with their finding records) and any number of
 * long-form verdict tables (item criterion rater value [note]) in; one
 * HTML file out, with the agreement of every rater with the reference
 * (computed by stats/run.c's kappa_run, the function behind kappa(1), with
 * kappa's defaults), confusion matrices, a bar chart and a gallery of every
 * item drawn by draw/draw.h.
 *
 * Errors are reported as "file:line:col: error: message" (input) or
 * "irreport: error: message" on the stream given; nothing here exits
 * (but out of memory, as in the IR library). */
#ifndef DIAGRAMIR_REPORT_H
#define DIAGRAMIR_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    const char *title;       /* NULL: "diagramir study" */
    const char *reference;   /* NULL: human if there is such a rater, else the first */
    const char *raters;      /* comma-separated raters to show, or NULL (all) */
    int all_pairs;           /* every pair of raters, not only the reference with each */
    const char *missing;     /* as kappa --missing: NULL drop, else the category */
    const char *unrated;     /* as kappa --unrated */
    double ci;               /* bootstrap level (0.95); 0: no intervals */
    long reps;               /* bootstrap replicates (1000) */
    uint64_t seed;           /* bootstrap seed (1) */
    int digits;              /* decimals shown (3) */
    int pictures;            /* draw the diagrams (1) */
    int all_findings;        /* draw yes and na findings too */
    int quiet;               /* no notes on err */
    int progress;            /* ir/progress.h's mode for the pictures' progress
                                line (PROGRESS_AUTO) */
} report_opts;

void report_opts_init(report_opts *o);

typedef struct report report;

report *report_new(const report_opts *o);
void report_free(report *r);

/* Whether a buffer holds IR (its first line that is not blank or a
 * comment starts with "diagramir ", or with '{': the JSON form of
 * diagramir-formats(5)) rather than a verdict table. */
int report_is_ir(const char *data, size_t len);

/* Adds the diagrams of an IR stream.  Returns 0, or -1 after reporting the
 * error on err. */
int report_add_ir(report *r, const char *data, size_t len, const char *name, FILE *err);
/* Adds a verdict table.  Returns 0, or -1 after reporting the errors. */
int report_add_table(report *r, const char *data, size_t len, const char *name, FILE *err);

/* Computes the statistics and writes the HTML document to out.  Returns 0,
 * or 2 after reporting an input error (or an unknown rater) on err. */
int report_write(report *r, FILE *out, FILE *err);

#endif
