/* fuzz_request.c — fuzz harness for the request parser (checks/geom/
 * request.c) and the rules that judge a drawing against it.
 *
 * The bytes are a teacher's request. geom_request_parse must accept
 * anything: what it reads must be sane (counts within RQ_MAX, dimensions
 * positive and finite, angles in (0, 360), a unit-cube count from 0 to
 * 100000), parsing twice gives the same result, and the description is a
 * NUL-terminated line. Then the geom rubric runs on a small fixed drawing
 * (three unit cubes with 3D coordinates, a triangle in a clip region, a
 * rectangle, angle labels) with that request: every check must give a
 * verdict with a one-line reason. The same bytes are also a model's answer
 * for irlint --request-llm: geom_request_merge_json either fills the
 * reading with fields as sane as the parser's, or refuses with a one-line
 * reason and leaves the reading as it was. A violation aborts. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/request.h"
#include "checks/geom/request_llm.h"
#include "checks/rubric.h"
#include "ir/ir.h"

static const char drawing[] =
    "diagramir 1\n"
    "diagram f src=f.tex\n"
    "unit pt\n"
    "clip rect 0 0 400 300 id=1 @2\n"
    "poly closed -11.381 -8.536 17.072 -8.536 17.072 19.917 -11.381 19.917 draw=black "
    "fill=cyan clip=1 xyz=0,0,1;1,0,1;1,1,1;0,1,1 @6\n"
    "poly closed 0 28.453 28.453 28.453 17.072 19.917 -11.381 19.917 draw=black fill=cyan "
    "clip=1 xyz=0,1,0;1,1,0;1,1,1;0,1,1 @7\n"
    "poly closed 28.453 0 28.453 28.453 17.072 19.917 17.072 -8.536 draw=black fill=cyan "
    "clip=1 xyz=1,0,0;1,1,0;1,1,1;1,0,1 @8\n"
    "poly closed -11.381 19.917 17.072 19.917 17.072 48.37 -11.381 48.37 draw=black "
    "fill=cyan clip=1 xyz=0,1,1;1,1,1;1,2,1;0,2,1 @6\n"
    "poly closed 0 56.906 28.453 56.906 17.072 48.37 -11.381 48.37 draw=black fill=cyan "
    "clip=1 xyz=0,2,0;1,2,0;1,2,1;0,2,1 @7\n"
    "poly closed 28.453 28.453 28.453 56.906 17.072 48.37 17.072 19.917 draw=black "
    "fill=cyan clip=1 xyz=1,1,0;1,2,0;1,2,1;1,1,1 @8\n"
    "poly closed 100 0 500 0 100 200 draw=black fill=none clip=1 @10\n"
    "rect 100 220 220 260 draw=black fill=none clip=1 @11\n"
    "text 108 4 128 14 \"65°\" size=10 tex=\"$65^\\\\circ$\" @12\n"
    "text 130 100 140 110 \"5\" size=10 @13\n"
    "end\n";

static ir_diagram *load(void)
{
    FILE *f = fmemopen((void *)drawing, sizeof drawing - 1, "r");
    if (!f) abort();
    ir_reader *r = ir_reader_new(f, "fuzz.ir");
    ir_diagram *d = NULL;
    if (ir_read_diagram(r, &d) != 1) {
        fprintf(stderr, "fuzz_request: the fixed drawing does not read: %s\n",
                ir_reader_error(r));
        abort();
    }
    ir_reader_free(r);
    fclose(f);
    return d;
}

static void sane_dims(const geom_rq_dims *d, int n, int max)
{
    if (n < 0 || n > max) abort();
    for (int i = 0; i < n; i++) {
        if (d[i].n < 2 || d[i].n > 3) abort();
        for (int k = 0; k < d[i].n; k++)
            if (!isfinite(d[i].v[k]) || !(d[i].v[k] > 0)) abort();
        if (!memchr(d[i].unit, 0, sizeof d[i].unit)) abort();
    }
}

/* what a reading may hold, whoever read it */
static void sane(const geom_request *a)
{
    sane_dims(a->solids, a->nsolids, RQ_MAX);
    sane_dims(a->flats, a->nflats, RQ_MAX);
    sane_dims(a->sides, a->nsides, RQ_MAX);
    if (a->nangles < 0 || a->nangles > RQ_MAX) abort();
    for (int i = 0; i < a->nangles; i++)
        if (!(a->angles[i] > 0 && a->angles[i] < 360)) abort();
    if (a->ncubes < 0 || a->ncubes > 100000) abort();
    char small[16], big[2048];
    size_t want = geom_request_describe(a, big, sizeof big);
    if (strlen(big) != want && want < sizeof big) abort();
    geom_request_describe(a, small, sizeof small);
    if (strlen(small) >= sizeof small || strchr(big, '\n')) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ir_diagram *d;
    if (!d) d = load();
    char *text = malloc(size + 1);
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = 0;

    geom_request a, b;
    geom_request_parse(text, &a);
    geom_request_parse(text, &b);
    if (memcmp(&a, &b, sizeof a) != 0) abort();   /* deterministic, every byte set */
    sane(&a);

    /* the bytes as a model's answer, merged into the parser's reading */
    geom_request m = a;
    char err[256];
    err[0] = 0;
    if (geom_request_merge_json(&m, text, size, err, sizeof err) == 0) {
        sane(&m);
    } else {
        if (memcmp(&m, &a, sizeof a) != 0) abort();   /* refused: unchanged */
        if (!err[0] || !memchr(err, 0, sizeof err) || strchr(err, '\n')) abort();
    }

    /* the rules, on a drawing with something for each of them */
    const chk_rubric *r = chk_rubric_find("geom");
    void *ctx = r->prepare(d, text);
    for (size_t k = 0; k < r->nchecks; k++) {
        chk_verdict v;
        memset(&v, 0, sizeof v);
        r->checks[k].run(d, ctx, &v);
        if (v.value != CHK_YES && v.value != CHK_NO && v.value != CHK_NA) abort();
        if (!memchr(v.reason, 0, sizeof v.reason) || strpbrk(v.reason, "\t\n\r")) abort();
        if (v.nblame > CHK_BLAME_MAX) abort();
        for (unsigned i = 0; i < v.nblame; i++)
            if (v.blame[i] >= d->nelems) abort();
    }
    r->release(ctx);
    free(text);
    return 0;
}
