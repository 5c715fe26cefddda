/* test_ir_json.c — the JSON form of the IR (diagramir-formats(5)):
 *   - round trip: every IR file under tests/ (and a stream with every
 *     record kind, odd strings and attribute values that are not in the
 *     writer's number form) read as text, written as JSON, read back and
 *     written as text gives the same bytes as writing the text at once;
 *     written as JSON again, the same JSON;
 *   - borrowed and owned reads of JSON give the same diagrams;
 *   - typed attributes: lw= a JSON number, at= an array, a non-canonical
 *     number a string, the id key "item", no "line" when unknown;
 *   - errors: file:line:col: error: with the path of the value, for
 *     invalid JSON, wrong types, missing keys; sticky afterwards.
 * Runs from the top of the source tree (make check does). */
#include "ir/ir.h"
#include "ir/ir_borrow.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures, checks, files;

#define CHECK(c)                                                                   \
    do {                                                                           \
        checks++;                                                                  \
        if (!(c)) {                                                                \
            failures++;                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
        }                                                                          \
    } while (0)

enum { AS_TEXT, AS_JSON };

/* Reads text (len bytes) and writes every diagram in form `as`, then
 * "rc=N err=..." ; borrowed: through ir_read_diagram_borrowed. */
static char *convert(const char *text, size_t len, int as, int borrowed, const char *name)
{
    char *out = NULL;
    size_t olen = 0;
    FILE *o = open_memstream(&out, &olen);
    FILE *f = fmemopen((void *)text, len ? len : 1, "r");
    if (!o || !f) abort();
    if (!len) fgetc(f);
    ir_reader *r = ir_reader_new(f, name);
    int rc;
    if (as == AS_TEXT) ir_write_header(o);
    for (;;) {
        const ir_diagram *cd;
        ir_diagram *d = NULL;
        if (borrowed) {
            rc = ir_read_diagram_borrowed(r, &cd);
        } else {
            rc = ir_read_diagram(r, &d);
            cd = d;
        }
        if (rc != 1) break;
        if (as == AS_TEXT) ir_write_diagram(o, cd);
        else ir_write_json(o, cd);
        ir_diagram_free(d);
    }
    fprintf(o, "rc=%d err=%s\n", rc, rc < 0 ? ir_reader_error(r) : "");
    if (rc < 0) {
        ir_diagram *d = NULL;
        fprintf(o, "again=%d\n", ir_read_diagram(r, &d));
    }
    ir_reader_free(r);
    fclose(f);
    fclose(o);
    return out;
}

/* The written text up to its status line. */
static size_t body_len(const char *s)
{
    const char *p = strstr(s, "rc=");
    while (p && p != s && p[-1] != '\n') p = strstr(p + 1, "rc=");
    return p ? (size_t)(p - s) : strlen(s);
}

static void round_trip(const char *text, size_t len, const char *name)
{
    char *t1 = convert(text, len, AS_TEXT, 0, name);
    if (strncmp(t1 + body_len(t1), "rc=0", 4) != 0) {  /* not valid IR: not ours */
        free(t1);
        return;
    }
    files++;
    char *j1 = convert(text, len, AS_JSON, 0, name);
    size_t jl = body_len(j1);
    char *t2 = convert(j1, jl, AS_TEXT, 0, "t.jsonl");
    char *t3 = convert(j1, jl, AS_TEXT, 1, "t.jsonl");
    char *j2 = convert(j1, jl, AS_JSON, 0, "t.jsonl");
    checks++;
    if (strcmp(t1, t2) != 0) {
        failures++;
        fprintf(stderr, "%s: text -> JSON -> text differs\n--- text:\n%.600s\n--- via JSON:\n%.600s\n",
                name, t1, t2);
    }
    checks++;
    if (strcmp(t2, t3) != 0) {
        failures++;
        fprintf(stderr, "%s: borrowed and owned JSON reads differ\n", name);
    }
    checks++;
    if (strcmp(j1, j2) != 0) {
        failures++;
        fprintf(stderr, "%s: JSON -> JSON differs\n", name);
    }
    free(t1);
    free(j1);
    free(t2);
    free(t3);
    free(j2);
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            walk(path);
            continue;
        }
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 3, ".ir") != 0) continue;
        size_t len;
        int big, nf;
        char *buf = ir_read_file(path, 64u << 20, &len, &big, &nf);
        if (!buf) continue;
        round_trip(buf, len, path);
        free(buf);
    }
    closedir(d);
}

static const char every_kind[] =
    "diagramir 1\n"
    "diagram d1 src=a.tex line=3 note=\"x y\"\n"
    "unit pt\n"
    "bbox -1 -2.5 100 200.125\n"
    "clip rect -36.135 -36.135 325.215 252.945 id=1 @6\n"
    "clip poly closed 0 0 10 0 10 10 id=2 @7\n"
    "clip ellipse 0 0 5 0 0 5 @8\n"
    "poly closed 0 0 289.08 0 144.54 216.81 draw=black fill=none lw=0.8 @11\n"
    "poly open 0 0 1 1 2 2 xyz=0,0,0;1,0,0;1,1,0 dash=dashed lw=0.80 size=12pt @12\n"
    "rect 144.54 0 155.38 10.84 at=1,2,x of=,1 vertex=1e+15,2 @17\n"
    "text 131.298 -28.188 157.782 -18.954 \"base \\\"q\\\" \\x41\\t\\xff\" at=144.54,-14.454 tex=\"a b\" id=1 @20\n"
    "ellipse 36.135 14.454 2 0 0 2 role=vertex opacity=0.5 draw-opacity=1 @14\n"
    "arc 0 0 10 0 0 10 0 90 role=angle-mark vertex=0,0 @15\n"
    "curve 0 0 1 2 3 4 5 6 arrows=-> along=0,0,1,1 pos=0.25 @16\n"
    "unparsed \"\\\\draw foo;\" @30\n"
    "vertex v1 0 0 10 10 \"A\" @31\n"
    "vertex \"v 2\" 0 0 10 10 \"B\"\n"
    "edge v1 \"v 2\" undirected w=2 @32\n"
    "edge v1 v3\n"
    "coord A 36.135 14.454 @8\n"
    "finding no-overlap \"text \\\"a\\\" overlaps\" verdict=no rubric=geom elems=3,7 @12\n"
    "frobnicate 1 2 3 @44\n"
    "other thing\n"
    "end\n"
    "diagram 2 src=b.tex\n"
    "poly open 1e3 -0 .5 1. +2 -3.25e-2 draw=\"dark red\" k.k=1 _x:y=2 lw=\"\" @1\n"
    "end\n"
    "diagram three\n"
    "unit cm\n"
    "text 0 0 1 1 \"\" @0\n"
    "end\n"
    "diagram empty\n"
    "end\n";

/* JSON line -> the reader's error (or "ok"). */
static char *json_error(const char *json)
{
    char *out = convert(json, strlen(json), AS_TEXT, 0, "t.jsonl");
    char *p = out + body_len(out);
    char *r = strdup(p);
    free(out);
    return r;
}

static void expect_error(const char *json, const char *want)
{
    char *got = json_error(json);
    checks++;
    if (!strstr(got, want)) {
        failures++;
        fprintf(stderr, "JSON %s\n  want: %s\n  got:  %s", json, want, got);
    }
    free(got);
}

static void typed(void)
{
    char *j = convert(every_kind, sizeof every_kind - 1, AS_JSON, 0, "t.ir");
    CHECK(strncmp(j, "{\"item\":\"d1\",\"attrs\":{\"src\":\"a.tex\",\"line\":3,\"note\":\"x y\"}", 58) == 0);
    CHECK(strstr(j, "\"lw\":0.8}") != NULL);
    CHECK(strstr(j, "\"lw\":\"0.80\"") != NULL);          /* not the writer's form: a string */
    CHECK(strstr(j, "\"size\":\"12pt\"") != NULL);
    CHECK(strstr(j, "\"xyz\":[[0,0,0],[1,0,0],[1,1,0]]") != NULL);
    CHECK(strstr(j, "\"at\":[144.54,-14.454]") != NULL);
    CHECK(strstr(j, "\"at\":\"1,2,x\"") != NULL);
    CHECK(strstr(j, "\"of\":\",1\"") != NULL);
    CHECK(strstr(j, "\"vertex\":[1e+15,2]") != NULL);
    CHECK(strstr(j, "\"along\":[0,0,1,1],\"pos\":0.25") != NULL);
    CHECK(strstr(j, "\"opacity\":0.5,\"draw-opacity\":1") != NULL);
    CHECK(strstr(j, "\"id\":\"1\"") != NULL);              /* names stay strings */
    CHECK(strstr(j, "\"lw\":\"\"") != NULL);
    CHECK(strstr(j, "\"line\":0") == NULL);
    CHECK(strstr(j, "{\"kind\":\"other\",\"raw\":\"frobnicate 1 2 3 @44\",\"line\":44}") != NULL);
    CHECK(strstr(j, "\"kind\":\"finding\",\"criterion\":\"no-overlap\"") != NULL);
    CHECK(strstr(j, "{\"item\":\"empty\",\"elements\":[]}") != NULL);
    CHECK(strstr(j, "\"diagram\"") == NULL);
    free(j);
    /* a JSON number or array for any attribute is read as the writer writes it */
    const char *in = "  \n{\"item\":\"x\",\"elements\":[{\"kind\":\"coord\",\"name\":\"A\",\"points\":[[1.50,2]],"
                     "\"attrs\":{\"w\":2.50,\"p\":[1,2.0],\"q\":[[1,2],[3]]}}]}\n";
    char *t = convert(in, strlen(in), AS_TEXT, 0, "t.jsonl");
    CHECK(strcmp(t, "diagramir 1\ndiagram x\ncoord A 1.5 2 w=2.5 p=1,2 q=1,2;3\nend\nrc=0 err=\n") == 0);
    free(t);
    /* text and JSON in one stream */
    const char *mixed = "{\"item\":\"a\",\"elements\":[]}\ndiagramir 1\ndiagram b\nend\n{\"item\":\"c\"}\n";
    t = convert(mixed, strlen(mixed), AS_TEXT, 0, "t");
    CHECK(strcmp(t, "diagramir 1\ndiagram a\nend\ndiagram b\nend\ndiagram c\nend\nrc=0 err=\n") == 0);
    free(t);
}

static void errors(void)
{
    expect_error("{\"item\":\"x\",\n", "t.jsonl:1:12: error: invalid JSON, or the line ends inside");
    expect_error("{\"item\":\"x\"} x\n", "t.jsonl:1:14: error: text after the JSON object");
    expect_error("{\"item\" \"x\"}\n", "t.jsonl:1:9: error: invalid JSON\n");
    expect_error("[1]\n", "t.jsonl:1:1: error: expected a record kind");
    expect_error("{\"diagram\":\"x\"}\n", "t.jsonl:1:1: error: a diagram needs the key \"item\"");
    expect_error("{\"item\":3}\n", "t.jsonl:1:9: error: item: expected a string");
    expect_error("\n{\"item\":\"x\",\"elements\":[{\"kind\":\"rect\",\"points\":[[0,0],[1,\"a\"]]}]}\n",
                 "t.jsonl:2:59: error: elements[0].points[1][1]: expected a finite number");
    expect_error("{\"item\":\"x\",\"elements\":[{\"kind\":\"rect\",\"points\":[[0,0]]}]}\n",
                 "t.jsonl:1:49: error: elements[0].points: 'rect' needs 2 points, found 1");
    expect_error("{\"item\":\"x\",\"elements\":[{\"kind\":\"blob\"}]}\n",
                 "t.jsonl:1:33: error: elements[0].kind: unknown element kind 'blob'");
    expect_error("{\"item\":\"x\",\"elements\":[{\"kind\":\"poly\",\"points\":[[0,0],[1,1]]}]}\n",
                 "t.jsonl:1:25: error: elements[0]: needs the key \"closed\"");
    expect_error("{\"item\":\"x\",\"elements\":[{\"kind\":\"edge\",\"from\":\"a\"}]}\n",
                 "t.jsonl:1:25: error: elements[0]: 'edge' needs the key \"to\"");
    expect_error("{\"item\":\"x\",\"elements\":[{\"kind\":\"unparsed\",\"text\":\"a\",\"line\":-1}]}\n",
                 "t.jsonl:1:62: error: elements[0].line: expected a source line number");
    expect_error("{\"item\":\"x\",\"elements\":[{\"kind\":\"unparsed\",\"text\":\"a\",\"attrs\":{\"1x\":\"a\"}}]}\n",
                 "t.jsonl:1:69: error: elements[0].attrs.1x: bad attribute name");
    expect_error("{\"item\":\"x\",\"elements\":[{\"kind\":\"unparsed\",\"text\":\"a\",\"attrs\":{\"a\":1,\"a\":2}}]}\n",
                 "t.jsonl:1:74: error: elements[0].attrs.a: duplicate attribute");
    expect_error("{\"item\":\"x\",\"elements\":[{\"kind\":\"unparsed\",\"text\":\"a\",\"attrs\":{\"a\":true}}]}\n",
                 "t.jsonl:1:68: error: elements[0].attrs.a: an attribute is a string");
    expect_error("{\"item\":\"x\",\"elements\":[{\"kind\":\"other\",\"raw\":\"poly 1 2\"}]}\n",
                 "t.jsonl:1:47: error: elements[0].raw: not the line of an unknown record");
    expect_error("{\"item\":\"x\",\"elements\":[{\"kind\":\"clip\",\"shape\":\"arc\"}]}\n",
                 "error: elements[0].shape: 'clip' needs a shape");
    expect_error("{\"item\":\"x\",\"bbox\":[1,2,3]}\n", "t.jsonl:1:20: error: bbox: expected [x1, y1, x2, y2]");
    expect_error("{\"item\":\"x\",\"elements\":[{\"kind\":\"rect\",\"points\":[[0,0],[1,1e999]]}]}\n",
                 "error: elements[0].points[1][1]: expected a finite number");
    /* a JSON diagram inside a text diagram is a text error */
    expect_error("diagramir 1\ndiagram a\n{\"item\":\"x\"}\nend\n", "t.jsonl:3:1: error: expected a record kind");
    /* sticky */
    char *e = json_error("{\"item\":1}\n{\"item\":\"y\"}\n");
    CHECK(strstr(e, "again=-1") != NULL);
    free(e);
}

int main(void)
{
    round_trip(every_kind, sizeof every_kind - 1, "every-kind");
    typed();
    errors();
    walk("tests");
    CHECK(files > 50);
    if (failures) {
        fprintf(stderr, "test_ir_json: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_ir_json: %d checks passed (%d IR files round-tripped)\n", checks, files);
    return 0;
}
