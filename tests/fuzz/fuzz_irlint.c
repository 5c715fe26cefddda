/* fuzz_irlint.c — fuzz harness for irlint's checks: the whole geom rubric on
 * every diagram the IR reader accepts (fuzz_ir fuzzes the reader alone).
 *
 * For each diagram: the rubric's admit (limits.h) either refuses it with a
 * one-line reason, or the scene is built, every check runs, and the
 * verdicts must be well formed: yes, no or na; a one-line, terminated
 * reason; at most CHK_BLAME_MAX blamed elements, each an element of the
 * diagram, none for yes or na. Crashes, sanitizer reports (overflowing
 * casts of NaN or huge doubles included, under UBSan), hangs (the
 * watchdog: FUZZ_INPUT_SECONDS of CPU on one input) and violations abort.
 * The corpus (tests/fuzz/corpus/fuzz_irlint) is seeded with extreme
 * numbers: +-1e308, 1e-308, spans of 1e6 degrees, hundreds of arcs on one
 * corner, 3D faces, clips, labels. */
#define HARNESS "fuzz_irlint"
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks/rubric.h"
#include "ir/ir.h"
#include "tests/fuzz/watchdog.h"

static void die(const char *what, const char *crit, const char *reason)
{
    fprintf(stderr, "fuzz_irlint: %s: %s: %.500s\n", crit ? crit : "-", what,
            reason ? reason : "");
    abort();
}

static void check_one(const chk_rubric *r, const ir_diagram *d)
{
    char why[CHK_REASON_MAX];
    size_t elem = 0;
    const char *no = r->admit ? r->admit(d, &elem, why, sizeof why) : NULL;
    if (no) {
        if (!*no || strchr(no, '\n')) die("refusal is not one line", NULL, no);
        if (elem != (size_t)-1 && elem >= d->nelems) die("refusal names no element", NULL, no);
        return;
    }
    void *ctx = r->prepare ? r->prepare(d, NULL) : NULL;
    for (size_t k = 0; k < r->nchecks; k++) {
        chk_verdict v;
        memset(&v, 0, sizeof v);
        v.value = CHK_NA;
        strcpy(v.reason, "not evaluated");
        r->checks[k].run(d, ctx, &v);
        const char *c = r->checks[k].name;
        if (v.value != CHK_NA && v.value != CHK_YES && v.value != CHK_NO)
            die("verdict is not yes, no or na", c, NULL);
        if (!memchr(v.reason, '\0', sizeof v.reason)) die("reason not terminated", c, NULL);
        if (strpbrk(v.reason, "\t\n\r")) die("reason is not one line", c, v.reason);
        if (v.nblame > CHK_BLAME_MAX) die("too many blamed", c, v.reason);
        if (v.value != CHK_NO && v.nblame) die("yes or na blames elements", c, v.reason);
        for (unsigned i = 0; i < v.nblame; i++)
            if (v.blame[i] >= d->nelems) die("blames an element that is not there", c, v.reason);
    }
    if (r->overrun) {
        no = r->overrun(ctx, why, sizeof why);
        if (no && (!*no || strchr(no, '\n'))) die("overrun is not one line", NULL, no);
    }
    if (r->release) r->release(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const chk_rubric *r = chk_rubric_find("geom");
    if (!r) abort();
    FILE *in = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
    if (!in) return 0;
    watchdog_arm(1);
    ir_reader *rd = ir_reader_new(in, "fuzz.ir");
    ir_diagram *d;
    while (ir_read_diagram(rd, &d) == 1) {
        check_one(r, d);
        ir_diagram_free(d);
    }
    ir_reader_free(rd);
    fclose(in);
    watchdog_arm(0);
    return 0;
}
