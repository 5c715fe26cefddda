/* rubric.h — the contract between irlint and the rule checks.
 *
 * A rubric is a named list of checks (criteria). Each check looks at one
 * diagram, through a per-diagram context the rubric prepares once (so that
 * shared analysis — segments, labels, vertices — is done a single time), and
 * yields a verdict: yes, no or na, with a one-line reason, the source line
 * the verdict is about, and the elements it blames (chk_blame; irlint
 * --format ir writes them as a finding's elems=).
 *
 * Adding a check: write checks/<rubric>/<name>.c defining one chk_fn, declare
 * it in the rubric's header, list it in checks/rubrics.c, document it and its
 * tolerances, and the elements it blames, in man/diagramir-rubrics.7, and
 * add golden tests under tests/irlint/<name>-* (a failing one says what it
 * must blame in a "# blame:" line). Blame after chk_set, and only on the way
 * to a no: yes and na blame nothing.
 */
#ifndef DIAGRAMIR_RUBRIC_H
#define DIAGRAMIR_RUBRIC_H

#include <stddef.h>

#include "ir/ir.h"

typedef enum { CHK_NA = 0, CHK_YES = 1, CHK_NO = 2 } chk_value;

#define CHK_REASON_MAX 400

/* At most this many elements are blamed per verdict (the first ones named). */
#define CHK_BLAME_MAX 16

typedef struct {
    chk_value value;
    int line;                      /* source line the verdict is about, 0 none */
    char reason[CHK_REASON_MAX];   /* one line, no tabs or newlines */
    /* The elements the verdict is about: indices into d->elems, each once,
     * in the order they were named (chk_blame). For no, the culprits; for
     * yes and na, none (see diagramir-rubrics(7)). */
    unsigned nblame;
    size_t blame[CHK_BLAME_MAX];
} chk_verdict;

/* A check: fills *v. ctx is what the rubric's prepare() returned. */
typedef void (*chk_fn)(const ir_diagram *d, const void *ctx, chk_verdict *v);

typedef struct {
    const char *name;       /* criterion slug, e.g. "no-overlap" */
    const char *question;   /* the rubric question it answers */
    int headline;           /* counted in the headline mean */
    chk_fn run;
} chk_check;

/* A run-time parameter of a rubric's checks (a tolerance, a threshold):
 * irlint --param NAME=VALUE sets it before any diagram is checked. */
typedef struct {
    const char *name;       /* "angle-tol" */
    double *value;          /* the value in force */
    double def;             /* its default */
    const char *unit;       /* "pt", "deg", "em", or "" (a ratio or count) */
    double lo, hi;          /* the values accepted */
    int fitted;             /* chosen by looking at rated items (else derived) */
    const char *grid;       /* fitted: candidate values, comma-separated */
} chk_param;

typedef struct {
    const char *name;       /* "geom" */
    const char *title;
    const chk_check *checks;
    size_t nchecks;
    /* Per-diagram shared analysis; NULL prepare means ctx is NULL. request
     * is the text the diagram was made for (irlint --request), NULL when
     * none was given: checks that judge the drawing against it read it
     * through ctx. */
    void *(*prepare)(const ir_diagram *d, const char *request);
    void (*release)(void *ctx);
    /* Optional. Before prepare: NULL when the checks can take d, else why
     * not (one line, written into buf of n bytes) and *elem the element it
     * is about ((size_t)-1: the diagram). irlint then gives no verdicts
     * for d but an error (exit 2). */
    const char *(*admit)(const ir_diagram *d, size_t *elem, char *buf, size_t n);
    /* Optional. After the checks ran: NULL, or why their verdicts must not
     * be given (a limit of work reached), into buf; an error as above. */
    const char *(*overrun)(const void *ctx, char *buf, size_t n);
    const chk_param *params;
    size_t nparams;
} chk_rubric;

/* The rubric table (checks/rubrics.c). */
const chk_rubric *chk_rubric_find(const char *name);
const chk_rubric *chk_rubric_at(size_t i);   /* NULL past the end */
/* Index of a criterion in a rubric, or -1. */
int chk_rubric_index(const chk_rubric *r, const char *criterion);
/* The rubric's parameter called name, or NULL. */
const chk_param *chk_param_find(const chk_rubric *r, const char *name);
/* Sets a parameter from "NAME=VALUE" (or "NAME VALUE"); on error writes a
 * one-line message (without a "file:line:" prefix) to err, returns -1. */
int chk_param_set(const chk_rubric *r, const char *assignment, char *err, size_t errlen);

/* Sets a verdict; the reason is formatted printf-style, then cut to one
 * line (tabs and newlines become spaces). The blame is emptied: name the
 * elements with chk_blame after chk_set. */
void chk_set(chk_verdict *v, chk_value value, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
const char *chk_value_name(chk_value v);

/* Names element elem (an index into d->elems) as one the verdict is
 * about: kept once, in first-named order; past CHK_BLAME_MAX, dropped. */
static inline void chk_blame(chk_verdict *v, size_t elem)
{
    for (unsigned i = 0; i < v->nblame; i++)
        if (v->blame[i] == elem) return;
    if (v->nblame < CHK_BLAME_MAX) v->blame[v->nblame++] = elem;
}

#endif
