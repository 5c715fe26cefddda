/* fuzz_tikz.c — fuzz harness for the TikZ front end (tikz_convert: the TeX
 * expander, the path grammar, the evaluator, text metrics).
 *
 * Converts the bytes as a file named "fuzz.tex" and checks the contract of
 * grammar/tikz.h and of the IR (man/diagramir.5), aborting on a violation:
 *   - tikz_convert returns 0 or 2; on 2 no diagram reached the sink and an
 *     error line was written; on 0 there is no error line;
 *   - every diagnostic line has the form "fuzz.tex:LINE[:COL]: error|warning: "
 *     with 1 <= LINE <= (lines of the input) + 1 (and COL >= 1);
 *   - every number of every diagram is finite (the writer would print
 *     nan/inf, which the reader rejects), and the written stream reads back
 *     with ir_read_diagram without an error, as many diagrams as were written;
 *   - cfg.nunparsed equals the number of unparsed records written;
 *   - the conversion is deterministic: a second run writes the same bytes
 *     (inputs up to 4 KiB).
 * Memory is freed (LeakSanitizer checks). */
#include "grammar/tikz.h"
#include "ir/ir.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#define HARNESS "fuzz_tikz"

static const uint8_t *cur_data;
static size_t cur_size;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_tikz: %s\n", what);
    if (detail) fprintf(stderr, "  %s\n", detail);
    fprintf(stderr, "input (%zu bytes): %.*s\n", cur_size,
            (int)(cur_size > 400 ? 400 : cur_size), (const char *)cur_data);
    abort();
}

typedef struct {
    FILE *out;
    int ndiagrams;
    int nunparsed;
} sink_state;

static void check_num(double v, const char *what)
{
    if (!isfinite(v)) die("non-finite number in a diagram", what);
}

static void sink(void *ctx, ir_diagram *d)
{
    sink_state *s = ctx;
    s->ndiagrams++;
    if (d->has_bbox)
        for (int i = 0; i < 4; i++) check_num(d->bbox[i], "bbox");
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        for (size_t k = 0; k < e->npts; k++) {
            check_num(e->pts[k].x, ir_kind_name(e->kind));
            check_num(e->pts[k].y, ir_kind_name(e->kind));
        }
        if (e->kind == IR_ARC) {
            check_num(e->t1, "arc t1");
            check_num(e->t2, "arc t2");
        }
        if (e->kind == IR_UNPARSED) s->nunparsed++;
    }
    ir_write_diagram(s->out, d);
    ir_diagram_free(d);
}

/* Converts data; returns the status, the output stream and the diagnostics
 * (malloc'd, caller frees). */
static int convert(const uint8_t *data, size_t size, char **out, size_t *outn,
                   char **diag, size_t *diagn, sink_state *st)
{
    FILE *o = open_memstream(out, outn);
    FILE *dg = open_memstream(diag, diagn);
    if (!o || !dg) abort();
    tikz_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.fname = "fuzz.tex";
    cfg.id = "fuzz";
    cfg.diag = dg;
    memset(st, 0, sizeof *st);
    st->out = o;
    ir_write_header(o);
    int rc = tikz_convert((const char *)data, size, &cfg, sink, st);
    fclose(o);
    fclose(dg);
    if (rc == 0 && cfg.nunparsed != st->nunparsed) {
        char buf[96];
        snprintf(buf, sizeof buf, "cfg.nunparsed %d, unparsed records %d", cfg.nunparsed,
                 st->nunparsed);
        die("nunparsed does not count the unparsed records", buf);
    }
    return rc;
}

static void check_diag(const char *diag, size_t n, size_t nlines, int rc)
{
    static const char prefix[] = "fuzz.tex:";
    int errors = 0;
    const char *p = diag, *end = diag + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) die("diagnostics do not end with a newline", NULL);
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(nl - p > 500 ? 500 : nl - p), p);
        if (strncmp(p, prefix, sizeof prefix - 1) != 0)
            die("diagnostic without the file name", line);
        const char *q = p + sizeof prefix - 1;
        char *e;
        long ln = strtol(q, &e, 10);
        if (e == q || ln < 1 || (size_t)ln > nlines + 1)
            die("diagnostic with a bad line number", line);
        if (*e == ':' && e[1] >= '0' && e[1] <= '9') {
            long col = strtol(e + 1, &e, 10);
            if (col < 1) die("diagnostic with a bad column", line);
        }
        if (strncmp(e, ": error: ", 9) == 0) errors++;
        else if (strncmp(e, ": warning: ", 11) != 0)
            die("diagnostic is neither 'error:' nor 'warning:'", line);
        p = nl + 1;
    }
    if (rc == 2 && errors == 0) die("exit status 2 without an error line", NULL);
    if (rc == 0 && errors != 0) die("an error line, but status 0", NULL);
}

#include "tests/fuzz/watchdog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cur_data = data;
    cur_size = size;
    watchdog_arm(1);
    char *out = NULL, *diag = NULL;
    size_t outn = 0, diagn = 0;
    sink_state st;
    int rc = convert(data, size, &out, &outn, &diag, &diagn, &st);
    if (rc != 0 && rc != 2) die("tikz_convert returned neither 0 nor 2", NULL);
    if (rc == 2 && st.ndiagrams != 0) die("a diagram reached the sink despite an error", NULL);

    size_t nlines = 1;
    for (size_t i = 0; i < size; i++) nlines += data[i] == '\n';
    check_diag(diag, diagn, nlines, rc);

    /* the stream reads back */
    FILE *in = fmemopen(out, outn, "r");
    if (!in) abort();
    ir_reader *r = ir_reader_new(in, "fuzz.ir");
    ir_diagram *d;
    int n = 0, k;
    while ((k = ir_read_diagram(r, &d)) == 1) {
        n++;
        ir_diagram_free(d);
    }
    if (k < 0) die("tikz2ir output is not valid IR", ir_reader_error(r));
    if (n != st.ndiagrams) die("the reader sees a different number of diagrams", NULL);
    ir_reader_free(r);
    fclose(in);

    /* deterministic */
    if (size <= 4096) {
        char *out2 = NULL, *diag2 = NULL;
        size_t outn2 = 0, diagn2 = 0;
        sink_state st2;
        int rc2 = convert(data, size, &out2, &outn2, &diag2, &diagn2, &st2);
        if (rc2 != rc || outn2 != outn || memcmp(out, out2, outn) != 0 ||
            diagn2 != diagn || memcmp(diag, diag2, diagn) != 0)
            die("two conversions of the same input differ", NULL);
        free(out2);
        free(diag2);
    }
    free(out);
    free(diag);
    watchdog_arm(0);
    return 0;
}
