/* test_ir.c — unit tests of the IR library (ir/ir.h): number formatting,
 * quoting, attributes, the reader's errors, round trips, element boxes. */
#include "ir/ir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"

#define CHECK_STR(got, want)                                                \
    do {                                                                    \
        const char *g_ = (got), *w_ = (want);                               \
        checks++;                                                           \
        if (!g_ || strcmp(g_, w_) != 0) {                                   \
            failures++;                                                     \
            fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
                    g_ ? g_ : "(null)", w_);                                \
        }                                                                   \
    } while (0)

#define NEAR(a, b) (fabs((a) - (b)) < 1e-6)

/* --- helpers ------------------------------------------------------------ */

/* Everything written by fn(f, arg) as a malloc'd string. */
typedef void (*writer_fn)(FILE *, const void *);

static char *capture(writer_fn fn, const void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) abort();
    fn(f, arg);
    fclose(f);
    return buf;
}

static void w_quoted(FILE *f, const void *s) { ir_write_quoted(f, s); }
static void w_word(FILE *f, const void *s) { ir_write_word(f, s); }
static void w_elem(FILE *f, const void *e) { ir_write_elem(f, e); }

/* Reads all of text; returns the number of diagrams, -1 on error (message
 * into err, which may be NULL). Rewrites what it read into *out when out
 * is not NULL. */
static int read_all(const char *text, char **out, char *err, size_t errsz)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    if (!in) abort();
    ir_reader *r = ir_reader_new(in, "t.ir");
    char *buf = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&buf, &len);
    ir_write_header(o);
    int n = 0, rc;
    ir_diagram *d;
    while ((rc = ir_read_diagram(r, &d)) == 1) {
        ir_write_diagram(o, d);
        ir_diagram_free(d);
        n++;
    }
    if (rc < 0) {
        n = -1;
        if (err) snprintf(err, errsz, "%s", ir_reader_error(r));
        CHECK(ir_read_diagram(r, &d) == -1);  /* errors are sticky */
    }
    fclose(o);
    if (out) *out = buf;
    else free(buf);
    ir_reader_free(r);
    fclose(in);
    return n;
}

/* Expects text to fail with a message starting "t.ir:LINE:COL: error: " and
 * containing what. */
static void expect_error(int srcline, const char *text, int line, int col, const char *what)
{
    char err[1024] = "", prefix[64];
    int n = read_all(text, NULL, err, sizeof err);
    snprintf(prefix, sizeof prefix, "t.ir:%d:%d: error: ", line, col);
    checks++;
    if (n != -1 || strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what)) {
        failures++;
        fprintf(stderr, "%s:%d: want error \"%s...%s\", got %d \"%s\"\n", __FILE__, srcline,
                prefix, what, n, err);
    }
}
#define EXPECT_ERROR(text, line, col, what) expect_error(__LINE__, text, line, col, what)

/* --- tests -------------------------------------------------------------- */

static void test_fmt_num(void)
{
    char b[32];
    CHECK_STR(ir_fmt_num(b, -0.0004), "0");
    CHECK_STR(ir_fmt_num(b, -0.0), "0");
    CHECK_STR(ir_fmt_num(b, 0), "0");
    CHECK_STR(ir_fmt_num(b, 1.5), "1.5");
    CHECK_STR(ir_fmt_num(b, 2), "2");
    CHECK_STR(ir_fmt_num(b, -2), "-2");
    CHECK_STR(ir_fmt_num(b, 1e6), "1000000");
    CHECK_STR(ir_fmt_num(b, 0.1 + 0.2), "0.3");
    CHECK_STR(ir_fmt_num(b, 144.5499), "144.55");
    CHECK_STR(ir_fmt_num(b, -36.14), "-36.14");
    CHECK_STR(ir_fmt_num(b, 0.0005), "0.001");
    CHECK_STR(ir_fmt_num(b, 1.23456), "1.235");
    CHECK_STR(ir_fmt_num(b, 1e15), "1e+15");
    CHECK_STR(ir_fmt_num(b, -1e300), "-1e+300");
    CHECK_STR(ir_fmt_num(b, 123456789012.5), "123456789012.5");
    CHECK_STR(ir_fmt_num(b, 1e12), "1000000000000");
    CHECK_STR(ir_fmt_num(b, NAN), "nan");
    CHECK_STR(ir_fmt_num(b, -INFINITY), "-inf");
    CHECK(strlen(ir_fmt_num(b, -1.7976931348623157e308)) < 32);
    /* formatting what was read back gives the same text */
    const double vals[] = {0.0005, 999999999999.9996, -999999999999.9996, 1e12 - 0.0004,
                           123456.7895, 3.14159, 1e-9, 5e20, -2.5e-3};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        char b2[32];
        double v;
        ir_fmt_num(b, vals[i]);
        CHECK(ir_parse_num(b, &v));
        CHECK_STR(ir_fmt_num(b2, v), b);
    }
}

static void test_parse_num(void)
{
    double v = 0;
    CHECK(ir_parse_num("1.5", &v) && v == 1.5);
    CHECK(ir_parse_num("-2", &v) && v == -2);
    CHECK(ir_parse_num("+.5", &v) && v == 0.5);
    CHECK(ir_parse_num("3.", &v) && v == 3);
    CHECK(ir_parse_num("1e3", &v) && v == 1000);
    CHECK(ir_parse_num("1E-2", &v) && v == 0.01);
    CHECK(ir_parse_num("1e-99999", &v) && v == 0);
    CHECK(!ir_parse_num("", &v));
    CHECK(!ir_parse_num(".", &v));
    CHECK(!ir_parse_num("-", &v));
    CHECK(!ir_parse_num("1e", &v));
    CHECK(!ir_parse_num("1.2.3", &v));
    CHECK(!ir_parse_num("nan", &v));
    CHECK(!ir_parse_num("inf", &v));
    CHECK(!ir_parse_num("0x10", &v));
    CHECK(!ir_parse_num("1e999", &v));
    CHECK(!ir_parse_num(" 1", &v));
    CHECK(!ir_parse_num("1 ", &v));
    CHECK(!ir_parse_num("1,5", &v));
    CHECK(!ir_parse_num(NULL, &v));
    CHECK(ir_parse_num_n("12,5", 2, &v) && v == 12);
    double xs[3];
    CHECK(ir_parse_nums("1,2.5,-3", ',', xs, 3) == 3 && xs[0] == 1 && xs[1] == 2.5 && xs[2] == -3);
    CHECK(ir_parse_nums("1,2,3,4", ',', xs, 2) == 4 && xs[1] == 2);
    CHECK(ir_parse_nums("1,,2", ',', xs, 3) == -1);
    CHECK(ir_parse_nums("1,", ',', xs, 3) == -1);
    CHECK(ir_parse_nums("", ',', xs, 3) == -1);
    CHECK(ir_parse_nums("1;2;3", ';', xs, 3) == 3 && xs[2] == 3);
}

static void test_quoting(void)
{
    char *s;
    CHECK_STR(s = capture(w_quoted, "plain"), "\"plain\""); free(s);
    CHECK_STR(s = capture(w_quoted, "a \"q\" \\b"), "\"a \\\"q\\\" \\\\b\""); free(s);
    CHECK_STR(s = capture(w_quoted, "l1\nl2\r\tx"), "\"l1\\nl2\\r\\tx\""); free(s);
    CHECK_STR(s = capture(w_quoted, "\x01\x7f"), "\"\\x01\\x7f\""); free(s);
    CHECK_STR(s = capture(w_quoted, "caf\xc3\xa9 \xe2\x88\xa0"), "\"caf\xc3\xa9 \xe2\x88\xa0\""); free(s);
    CHECK_STR(s = capture(w_quoted, "bad\xff\xc3("), "\"bad\\xff\\xc3(\""); free(s);
    CHECK_STR(s = capture(w_quoted, "\xed\xa0\x80"), "\"\\xed\\xa0\\x80\""); free(s);  /* surrogate */
    CHECK_STR(s = capture(w_quoted, "\xc0\xaf"), "\"\\xc0\\xaf\""); free(s);          /* overlong */
    CHECK_STR(s = capture(w_quoted, ""), "\"\""); free(s);
    CHECK_STR(s = capture(w_word, "solid"), "solid"); free(s);
    CHECK_STR(s = capture(w_word, "tikz/17.tex"), "tikz/17.tex"); free(s);
    CHECK_STR(s = capture(w_word, "#ff0000"), "#ff0000"); free(s);
    CHECK_STR(s = capture(w_word, "\xce\xb1"), "\xce\xb1"); free(s);
    CHECK_STR(s = capture(w_word, "two words"), "\"two words\""); free(s);
    CHECK_STR(s = capture(w_word, ""), "\"\""); free(s);
    CHECK_STR(s = capture(w_word, "a=b"), "\"a=b\""); free(s);
    CHECK_STR(s = capture(w_word, "\\alpha"), "\"\\\\alpha\""); free(s);
    CHECK_STR(s = capture(w_word, "say\"x"), "\"say\\\"x\""); free(s);
    CHECK_STR(s = capture(w_word, "@5"), "\"@5\""); free(s);
    CHECK_STR(s = capture(w_word, "tab\there"), "\"tab\\there\""); free(s);
    CHECK(!ir_word_is_bare(NULL));
}

static void test_attrs_and_elems(void)
{
    ir_diagram *d = ir_diagram_new("17");
    CHECK_STR(d->unit, "pt");
    ir_elem *e = ir_add(d, IR_POLY);
    CHECK(e->kind == IR_POLY && e->npts == 0 && e->nattrs == 0 && e->line == 0);
    ir_pt pts[3] = {{0, 0}, {289.1, 0}, {144.5, 216.8}};
    ir_elem_set_pts(e, pts, 3);
    e->closed = 1;
    e->line = 10;
    ir_elem_set(e, "draw", "black");
    ir_elem_set(e, "dash", "solid");
    ir_elem_setf(e, "lw", "%.1f", 0.4);
    ir_elem_set(e, "draw", "red");            /* replaced in place */
    CHECK(e->nattrs == 3);
    CHECK_STR(ir_elem_get(e, "draw"), "red");
    CHECK_STR(e->attrs[0].key, "draw");
    CHECK(ir_elem_get(e, "fill") == NULL);
    CHECK(ir_elem_getnum(e, "lw", -1) == 0.4);
    CHECK(ir_elem_getnum(e, "draw", -1) == -1);
    CHECK(ir_elem_getnum(e, "nope", 7) == 7);
    ir_elem_set(e, "at", "1.5,-2");
    ir_pt at;
    CHECK(ir_elem_getpt(e, "at", &at) && at.x == 1.5 && at.y == -2);
    CHECK(!ir_elem_getpt(e, "lw", &at));
    ir_elem_set(e, "at", NULL);                /* removal */
    CHECK(ir_elem_get(e, "at") == NULL && e->nattrs == 3);
    ir_elem_set(e, "tex", "a \"b\" c");
    char long_val[600];
    memset(long_val, 'x', sizeof long_val - 1);
    long_val[sizeof long_val - 1] = '\0';
    ir_elem_setf(e, "long", "%s", long_val);
    CHECK(strlen(ir_elem_get(e, "long")) == 599);
    ir_elem_set(e, "long", NULL);
    char *s = capture(w_elem, e);
    CHECK_STR(s, "poly closed 0 0 289.1 0 144.5 216.8 draw=red dash=solid lw=0.4 "
                 "tex=\"a \\\"b\\\" c\" @10\n");
    free(s);

    /* copies are deep and may come from d itself */
    for (int i = 0; i < 40; i++) ir_add_copy(d, &d->elems[0]);
    CHECK(d->nelems == 41);
    CHECK(d->elems[40].pts != d->elems[0].pts && d->elems[40].npts == 3);
    CHECK_STR(ir_elem_get(&d->elems[40], "tex"), "a \"b\" c");
    ir_elem_clear(&d->elems[1]);
    CHECK(d->elems[1].pts == NULL && d->elems[1].nattrs == 0);

    ir_set_attr(&d->attrs, &d->nattrs, "src", "tikz/17.tex");
    CHECK_STR(ir_get_attr(d->attrs, d->nattrs, "src"), "tikz/17.tex");
    ir_diagram_free(d);
    ir_diagram_free(NULL);

    CHECK_STR(ir_kind_name(IR_CLIP), "clip");
    CHECK_STR(ir_kind_name(IR_OTHER), "other");
    ir_kind k;
    CHECK(ir_kind_from_name("vertex", &k) && k == IR_VERTEX);
    CHECK(!ir_kind_from_name("other", &k));
    CHECK(!ir_kind_from_name("diagram", &k));
}

static void test_writer_records(void)
{
    ir_diagram *d = ir_diagram_new("my fig");
    ir_set_attr(&d->attrs, &d->nattrs, "src", "tikz/a b.tex");
    d->has_bbox = 1;
    d->bbox[0] = -36.14; d->bbox[1] = -0.0001; d->bbox[2] = 325.2; d->bbox[3] = 252.9;
    ir_elem *e = ir_add(d, IR_TEXT);
    ir_pt tb[2] = {{130.1, -24.3}, {158.9, -12.1}};
    ir_elem_set_pts(e, tb, 2);
    e->str = strdup("base");
    ir_elem_set(e, "tex", "base");
    ir_elem_set(e, "anchor", "north");
    e->line = 19;
    e = ir_add(d, IR_EDGE);
    e->name = strdup("a");
    e->str = strdup("b c");
    e->undirected = 1;
    e = ir_add(d, IR_RECT);             /* no points: written as zeros */
    e = ir_add(d, IR_CLIP);
    e->sub = IR_ELLIPSE;
    ir_pt el[3] = {{1, 2}, {3, 0}, {0, 1}};
    ir_elem_set_pts(e, el, 3);
    e->line = 5;
    e = ir_add(d, IR_OTHER);
    e->raw = strdup("future 1 2 @3");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ir_write_header(f);
    ir_write_diagram(f, d);
    fclose(f);
    CHECK_STR(buf, "diagramir 1\n"
                   "diagram \"my fig\" src=\"tikz/a b.tex\"\n"
                   "unit pt\n"
                   "bbox -36.14 0 325.2 252.9\n"
                   "text 130.1 -24.3 158.9 -12.1 \"base\" tex=base anchor=north @19\n"
                   "edge a \"b c\" undirected\n"
                   "rect 0 0 0 0\n"
                   "clip ellipse 1 2 3 0 0 1 @5\n"
                   "future 1 2 @3\n"
                   "end\n");
    char *again = NULL;
    CHECK(read_all(buf, &again, NULL, 0) == 1);
    CHECK_STR(again, buf);
    free(again);
    free(buf);
    ir_diagram_free(d);
}

static const char *const ROUND_TRIP =
    "# a comment, then a blank line\n"
    "\n"
    "diagramir 1\n"
    "diagram 17 src=tikz/17.tex\n"
    "unit pt\n"
    "bbox -36.14 -36.14 325.2 252.9\n"
    "clip rect -36.14 -36.14 325.2 252.9 @5\n"
    "clip poly closed 0 0 10 0 10 10\n"
    "clip ellipse 0 0 5 0 0 5 @6\n"
    "poly closed 0 0  289.1 0  144.5 216.8  dash=solid  @10\n"
    "poly open 0 0 1.50 1 draw=black fill=none lw=0.4\n"
    "rect 144.5 0 155.3 10.8 role=right-angle @16\n"
    "ellipse 0 0 2 0 0 2 role=vertex fill=black @7\n"
    "arc 0 0 10 0 0 10 0 90 role=angle-mark vertex=0,0 @8\n"
    "curve 0 0 1 2 3 2 4 0 arrows=-> @9\n"
    "text 130.1 -24.3 158.9 -12.1 \"base\" tex=base anchor=north at=144.5,-24.3 @19\n"
    "text 0 0 1 1 \"say \\\"hi\\\"\\\\ \\n\\t\\x01\" tex=\"$\\\\alpha = 1$\"\n"
    "unparsed \"\\\\pic{angle=A--B--C}\" @22\n"
    "vertex n1 0 0 40 20 \"Start\" shape=box @3\n"
    "vertex \"two words\" 50 0 90 20 \"\"\n"
    "edge n1 \"two words\" @4\n"
    "edge n1 n1 undirected label=\"self loop\"\n"
    "coord A 0 0 @2\n"
    "coord \"B'\" 1e2 -1E-1\n"
    "finding no-overlap \"the text 'A' overlaps a line\" verdict=no rubric=geom elems=3,7 @12\n"
    "finding \"odd name\" \"\" verdict=na\n"
    "wobble 1 2 \"x\" @12\n"
    "  future-kind   with \"unterminated and \\q stuff\n"
    "end\n"
    "diagramir 1\n"
    "diagram \"\"\n"
    "end\n"
    "diagram caf\xc3\xa9\r\n"
    "unit pt\r\n"
    "\ttext 1 2 3 4 \"\xff\" \r\n"
    "end\n";

static void test_round_trip(void)
{
    char *w1 = NULL, *w2 = NULL, *w3 = NULL, err[512] = "";
    CHECK(read_all(ROUND_TRIP, &w1, err, sizeof err) == 3);
    if (err[0]) fprintf(stderr, "%s\n", err);
    CHECK(w1 != NULL && read_all(w1, &w2, NULL, 0) == 3);
    CHECK(w2 != NULL && read_all(w2, &w3, NULL, 0) == 3);
    CHECK_STR(w2, w1);
    CHECK_STR(w3, w2);
    /* a few lines of the canonical form */
    CHECK(strstr(w1, "\npoly closed 0 0 289.1 0 144.5 216.8 dash=solid @10\n"));
    CHECK(strstr(w1, "\npoly open 0 0 1.5 1 draw=black fill=none lw=0.4\n"));
    CHECK(strstr(w1, "\ncoord \"B'\" 100 -0.1\n") == NULL);  /* ' is bare-safe */
    CHECK(strstr(w1, "\ncoord B' 100 -0.1\n"));
    CHECK(strstr(w1, "\nwobble 1 2 \"x\" @12\n"));
    CHECK(strstr(w1, "\nfuture-kind   with \"unterminated and \\q stuff\n"));
    CHECK(strstr(w1, "\ntext 0 0 1 1 \"say \\\"hi\\\"\\\\ \\n\\t\\x01\" tex=\"$\\\\alpha = 1$\"\n"));
    CHECK(strstr(w1, "\ndiagram \"\"\nend\n"));
    CHECK(strstr(w1, "\ndiagram caf\xc3\xa9\nunit pt\ntext 1 2 3 4 \"\\xff\"\nend\n"));
    free(w1);
    free(w2);
    free(w3);

    /* the values the reader fills in */
    FILE *in = fmemopen((void *)ROUND_TRIP, strlen(ROUND_TRIP), "r");
    ir_reader *r = ir_reader_new(in, NULL);
    ir_diagram *d = NULL;
    CHECK(ir_read_diagram(r, &d) == 1);
    if (d) {
        CHECK_STR(d->id, "17");
        CHECK_STR(ir_get_attr(d->attrs, d->nattrs, "src"), "tikz/17.tex");
        CHECK(d->irline == 4 && d->has_bbox && d->bbox[2] == 325.2);
        CHECK(d->nelems == 22);
        ir_elem *e = d->elems;
        CHECK(e[0].kind == IR_CLIP && e[0].sub == IR_RECT && e[0].line == 5 && e[0].irline == 7);
        CHECK(e[1].kind == IR_CLIP && e[1].sub == IR_POLY && e[1].closed && e[1].npts == 3);
        CHECK(e[2].kind == IR_CLIP && e[2].sub == IR_ELLIPSE);
        CHECK(e[3].kind == IR_POLY && e[3].closed && e[3].npts == 3 && e[3].line == 10);
        CHECK(e[4].kind == IR_POLY && !e[4].closed && e[4].pts[1].x == 1.5);
        CHECK(e[7].kind == IR_ARC && e[7].t1 == 0 && e[7].t2 == 90);
        CHECK(e[9].kind == IR_TEXT && !strcmp(e[9].str, "base"));
        CHECK(e[10].kind == IR_TEXT && !strcmp(e[10].str, "say \"hi\"\\ \n\t\x01"));
        CHECK_STR(ir_elem_get(&e[10], "tex"), "$\\alpha = 1$");
        CHECK(e[11].kind == IR_UNPARSED && !strcmp(e[11].str, "\\pic{angle=A--B--C}"));
        CHECK(e[13].kind == IR_VERTEX && !strcmp(e[13].name, "two words") && !strcmp(e[13].str, ""));
        CHECK(e[14].kind == IR_EDGE && !strcmp(e[14].name, "n1") && !strcmp(e[14].str, "two words")
              && !e[14].undirected);
        CHECK(e[15].kind == IR_EDGE && e[15].undirected);
        CHECK(e[16].kind == IR_COORD && !strcmp(e[16].name, "A") && e[16].line == 2);
        CHECK(e[18].kind == IR_FINDING && !strcmp(e[18].name, "no-overlap") && e[18].line == 12 &&
              !strcmp(e[18].str, "the text 'A' overlaps a line"));
        CHECK_STR(ir_elem_get(&e[18], "elems"), "3,7");
        CHECK_STR(ir_elem_get(&e[18], "verdict"), "no");
        CHECK(e[19].kind == IR_FINDING && !strcmp(e[19].name, "odd name") && !strcmp(e[19].str, ""));
        CHECK(e[20].kind == IR_OTHER && e[20].line == 12 && !strcmp(e[20].raw, "wobble 1 2 \"x\" @12"));
        CHECK(e[21].kind == IR_OTHER && e[21].irline == 28);
        ir_diagram_free(d);
    }
    CHECK(ir_read_diagram(r, &d) == 1 && d && d->unit == NULL && !strcmp(d->id, ""));
    ir_diagram_free(d);
    CHECK(ir_read_diagram(r, &d) == 1);
    ir_diagram_free(d);
    CHECK(ir_read_diagram(r, &d) == 0 && d == NULL);
    CHECK(ir_read_diagram(r, &d) == 0);
    ir_reader_free(r);
    fclose(in);
}

static void test_reader_ok_edges(void)
{
    CHECK(read_all("", NULL, NULL, 0) == 0);
    CHECK(read_all("# only a comment\n\n   \n", NULL, NULL, 0) == 0);
    CHECK(read_all("diagramir 1\n", NULL, NULL, 0) == 0);
    CHECK(read_all("diagramir 1\ndiagram a\nend", NULL, NULL, 0) == 1);   /* no final newline */
    CHECK(read_all("diagramir 1\ndiagram a\nend\ndiagramir 1\ndiagram b\nend\n", NULL, NULL, 0) == 2);
    CHECK(read_all("diagramir 1\ndiagram a\n  # indented comment\nend\n", NULL, NULL, 0) == 1);
    /* unknown records keep their text, but not trailing blanks or CRs */
    char *o1 = NULL, *o2 = NULL;
    CHECK(read_all("diagramir 1\ndiagram a\nwobble 1 \r\r\nend\n", &o1, NULL, 0) == 1);
    CHECK_STR(o1, "diagramir 1\ndiagram a\nwobble 1\nend\n");
    CHECK(o1 && read_all(o1, &o2, NULL, 0) == 1);
    CHECK_STR(o2, o1);
    free(o1);
    free(o2);
    /* a very long line */
    size_t n = 200000;
    char *big = malloc(n * 8 + 100);
    strcpy(big, "diagramir 1\ndiagram a\npoly open");
    char *p = big + strlen(big);
    for (size_t i = 0; i < n; i++) p += sprintf(p, " %zu", i % 1000);
    strcpy(p, " @1\nend\n");
    char *out = NULL;
    CHECK(read_all(big, &out, NULL, 0) == 1);
    CHECK(out && strlen(out) > n * 2);
    free(out);
    free(big);
}

static void test_reader_errors(void)
{
    /* header */
    EXPECT_ERROR("diagram a\nend\n", 1, 1, "missing 'diagramir 1' header");
    EXPECT_ERROR("# c\n\ndiagram a\nend\n", 3, 1, "missing 'diagramir 1' header");
    EXPECT_ERROR("diagramir 2\n", 1, 11, "unsupported IR version 2");
    EXPECT_ERROR("diagramir\n", 1, 10, "needs a version");
    EXPECT_ERROR("diagramir one\n", 1, 11, "bad IR version 'one'");
    EXPECT_ERROR("diagramir 1 x\n", 1, 13, "unexpected 'x'");
    /* structure */
    EXPECT_ERROR("diagramir 1\npoly open 0 0 1 1\n", 2, 1, "outside a diagram");
    EXPECT_ERROR("diagramir 1\nwobble 1\n", 2, 1, "outside a diagram");
    EXPECT_ERROR("diagramir 1\ndiagram a\nend\nrect 0 0 1 1\n", 4, 1, "outside a diagram");
    EXPECT_ERROR("diagramir 1\nend\n", 2, 1, "'end' record outside a diagram");
    EXPECT_ERROR("diagramir 1\ndiagram a\npoly open 0 0 1 1\n", 2, 1, "diagram 'a' has no 'end'");
    EXPECT_ERROR("diagramir 1\ndiagram a\ndiagram b\nend\n", 3, 1, "before the 'end' of diagram 'a' (line 2)");
    EXPECT_ERROR("diagramir 1\ndiagram a\ndiagramir 1\n", 3, 1, "stream header inside diagram 'a'");
    EXPECT_ERROR("diagramir 1\ndiagram\n", 2, 8, "'diagram' needs an ID");
    EXPECT_ERROR("diagramir 1\ndiagram a @3\n", 2, 11, "takes no source line marker");
    EXPECT_ERROR("diagramir 1\ndiagram a\nend x\n", 3, 5, "unexpected 'x'");
    EXPECT_ERROR("diagramir 1\ndiagram a\nunit pt\nunit pt\n", 4, 1, "second 'unit'");
    EXPECT_ERROR("diagramir 1\ndiagram a\nbbox 0 0 1 1\nbbox 0 0 1 1\n", 4, 1, "second 'bbox'");
    EXPECT_ERROR("diagramir 1\ndiagram a\n123 4\n", 3, 1, "expected a record kind");
    EXPECT_ERROR("diagramir 1\ndiagram a\n\"poly\" 4\n", 3, 1, "expected a record kind");
    /* number counts */
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1\nend\n", 3, 11, "'rect' needs 4 numbers here, found 3");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1 draw=red\nend\n", 3, 12, "'rect' needs 4 numbers here, found 3");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1 1 1\nend\n", 3, 14, "too many numbers for 'rect'");
    EXPECT_ERROR("diagramir 1\ndiagram a\nbbox 0 0 1\nend\n", 3, 11, "'bbox' needs 4 numbers");
    EXPECT_ERROR("diagramir 1\ndiagram a\nbbox 0 0 1 1 @2\nend\n", 3, 14, "takes no source line marker");
    EXPECT_ERROR("diagramir 1\ndiagram a\nellipse 0 0 1 0 0\nend\n", 3, 18, "'ellipse' needs 6 numbers");
    EXPECT_ERROR("diagramir 1\ndiagram a\narc 0 0 1 0 0 1 90\nend\n", 3, 19, "'arc' needs 8 numbers");
    EXPECT_ERROR("diagramir 1\ndiagram a\ncurve 0 0 1 1 2 2 3\nend\n", 3, 20, "'curve' needs 8 numbers");
    EXPECT_ERROR("diagramir 1\ndiagram a\ncoord A 1\nend\n", 3, 10, "'coord' needs 2 numbers");
    EXPECT_ERROR("diagramir 1\ndiagram a\npoly open 0 0 1\nend\n", 3, 15, "odd number of coordinates (3)");
    EXPECT_ERROR("diagramir 1\ndiagram a\npoly open 0 0\nend\n", 3, 14, "at least 2 points, found 1");
    EXPECT_ERROR("diagramir 1\ndiagram a\npoly 0 0 1 1\nend\n", 3, 6, "'open' or 'closed'");
    EXPECT_ERROR("diagramir 1\ndiagram a\nclip arc 0 0 1 0 0 1 0 90\nend\n", 3, 6, "rect, poly or ellipse");
    EXPECT_ERROR("diagramir 1\ndiagram a\nclip rect 0 0 1\nend\n", 3, 16, "'rect' needs 4 numbers");
    /* non-numbers */
    EXPECT_ERROR("diagramir 1\ndiagram a\n\nrect 0 0 x 1\nend\n", 4, 10, "expected a number, got 'x'");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 nan 1\nend\n", 3, 10, "expected a number, got 'nan'");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1e999 1\nend\n", 3, 10, "expected a number, got '1e999'");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1,5 1\nend\n", 3, 10, "expected a number");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 \"1\" 1\nend\n", 3, 10, "got a quoted string");
    EXPECT_ERROR("diagramir 1\ndiagram a\npoly open 0 0 1 1 x 2\nend\n", 3, 19, "expected a number, got 'x'");
    /* strings */
    EXPECT_ERROR("diagramir 1\ndiagram a\ntext 0 0 1 1 \"abc\nend\n", 3, 14, "unterminated string");
    EXPECT_ERROR("diagramir 1\ndiagram a\ntext 0 0 1 1 \"abc\\\"\nend\n", 3, 14, "unterminated string");
    EXPECT_ERROR("diagramir 1\ndiagram a\ntext 0 0 1 1 \"ab\\\nend\n", 3, 14, "unterminated string");
    EXPECT_ERROR("diagramir 1\ndiagram a\ntext 0 0 1 1 \"a\" tex=\"b\nend\n", 3, 22, "unterminated string");
    EXPECT_ERROR("diagramir 1\ndiagram a\ntext 0 0 1 1 \"a\\q\"\nend\n", 3, 16, "unknown escape '\\q'");
    EXPECT_ERROR("diagramir 1\ndiagram a\ntext 0 0 1 1 \"a\\x4\"\nend\n", 3, 16, "two hex digits");
    EXPECT_ERROR("diagramir 1\ndiagram a\ntext 0 0 1 1 \"a\\x00\"\nend\n", 3, 16, "\\x00 is not allowed");
    EXPECT_ERROR("diagramir 1\ndiagram a\ntext 0 0 1 1 \"a\"b\nend\n", 3, 17, "missing blank after closing");
    EXPECT_ERROR("diagramir 1\ndiagram a\ntext 0 0 1 1 base\nend\n", 3, 14, "needs a quoted text");
    EXPECT_ERROR("diagramir 1\ndiagram a\ntext 0 0 1 1\nend\n", 3, 13, "needs a quoted text");
    EXPECT_ERROR("diagramir 1\ndiagram a\nunparsed @3\nend\n", 3, 12, "needs a quoted source text");
    EXPECT_ERROR("diagramir 1\ndiagram a\nunparsed \"x\" \"y\"\nend\n", 3, 14, "unexpected quoted string");
    EXPECT_ERROR("diagramir 1\ndiagram a\nvertex n 0 0 1 1\nend\n", 3, 17, "'vertex' needs a quoted text");
    EXPECT_ERROR("diagramir 1\ndiagram a\nedge n\nend\n", 3, 7, "'edge' needs a target vertex ID");
    EXPECT_ERROR("diagramir 1\ndiagram a\nedge a b sideways\nend\n", 3, 10, "unexpected 'sideways'");
    EXPECT_ERROR("diagramir 1\ndiagram a\nfinding in-frame\nend\n", 3, 17, "'finding' needs a quoted reason after the criterion");
    EXPECT_ERROR("diagramir 1\ndiagram a\nfinding\nend\n", 3, 8, "'finding' needs a criterion");
    EXPECT_ERROR("diagramir 1\ndiagram a\nvertex a\"b\" 0 0 1 1 \"\"\nend\n", 3, 9, "'\"' inside a word");
    /* attributes and line markers */
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1 1 a=1 a=2\nend\n", 3, 18, "duplicate attribute 'a'");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1 1 =1\nend\n", 3, 14, "bad attribute name");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1 1 1x=1\nend\n", 3, 14, "bad attribute name");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1 1 a=b\"c\"\nend\n", 3, 17, "inside an unquoted value");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1 1 @3 a=1\nend\n", 3, 14, "must be the last word");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1 1 @x\nend\n", 3, 14, "bad source line marker");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1 1 @\nend\n", 3, 14, "bad source line marker");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1 1 @99999999999\nend\n", 3, 14, "bad source line marker");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 1 1 solid\nend\n", 3, 14, "unexpected 'solid' (expected key=value)");
    EXPECT_ERROR("diagramir 1\ndiagram a b\nend\n", 2, 11, "unexpected 'b'");
    EXPECT_ERROR("diagramir 1\ndiagram a\nunit\nend\n", 3, 5, "'unit' needs a unit name");
    /* bytes */
    static const char nul[] = "diagramir 1\ndiagram a\nrect 0 0\0 1 1\nend\n";
    char err[512] = "";
    FILE *in = fmemopen((void *)nul, sizeof nul - 1, "r");
    ir_reader *r = ir_reader_new(in, "t.ir");
    ir_diagram *d;
    CHECK(ir_read_diagram(r, &d) == -1);
    snprintf(err, sizeof err, "%s", ir_reader_error(r));
    CHECK(strstr(err, "t.ir:3:9: error: NUL byte") == err);
    ir_reader_free(r);
    fclose(in);
    /* messages show odd bytes escaped and long words cut */
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 \x01\x02 1\nend\n", 3, 10, "got '\\x01\\x02'");
    EXPECT_ERROR("diagramir 1\ndiagram a\nrect 0 0 "
                 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx 1\nend\n",
                 3, 10, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'");
}

static void test_boxes(void)
{
    ir_box b = ir_box_empty();
    CHECK(b.empty);
    ir_box_add(&b, 1, 2);
    CHECK(!b.empty && b.x1 == 1 && b.x2 == 1 && b.y1 == 2 && b.y2 == 2);
    ir_box_add(&b, -1, 5);
    CHECK(b.x1 == -1 && b.x2 == 1 && b.y1 == 2 && b.y2 == 5);
    ir_box o = ir_box_empty();
    ir_box_union(&b, o);
    CHECK(b.x1 == -1 && b.y2 == 5);
    ir_box_union(&o, b);
    CHECK(!o.empty && o.x1 == -1 && o.x2 == 1 && o.y1 == 2 && o.y2 == 5);

    static const char *const text =
        "diagramir 1\ndiagram a\n"
        "poly open 0 0 3 -1 2 4\n"                 /* 0 */
        "rect 5 6 1 2\n"                           /* 1: corners in any order */
        "ellipse 10 10 3 4 -4 3\n"                 /* 2: rotated circle r=5 */
        "arc 0 0 2 0 0 1 0 90\n"                   /* 3: quarter of 2x1 ellipse */
        "arc 0 0 2 0 0 1 -45 225\n"                /* 4: through the top */
        "arc 0 0 2 0 0 1 400 10\n"                 /* 5: a full turn or more */
        "arc 0 0 1 0 0 1 1e17 1.0000000000000001e17\n" /* 6: huge angles, no hang */
        "curve 0 0 0 1 1 1 1 0\n"                  /* 7: top at y=0.75 */
        "text 1 2 3 4 \"t\"\n"                     /* 8 */
        "vertex v 5 6 7 8 \"v\"\n"                 /* 9 */
        "coord A 3 4\n"                            /* 10 */
        "clip ellipse 0 0 1 0 0 2\n"               /* 11 */
        "clip rect 0 0 4 4\n"                      /* 12 */
        "unparsed \"x\"\n"                         /* 13 */
        "edge a b\n"                               /* 14 */
        "wobble 1 2\n"                             /* 15 */
        "arc 0 0 1 0 0 1 90 0\n"                   /* 16: reversed direction */
        "end\n";
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    ir_reader *r = ir_reader_new(in, "t.ir");
    ir_diagram *d = NULL;
    CHECK(ir_read_diagram(r, &d) == 1);
    if (!d) return;
    ir_elem *e = d->elems;
#define BOX(i, X1, Y1, X2, Y2)                                                       \
    do {                                                                             \
        ir_box bx = ir_elem_box(&e[i]);                                              \
        checks++;                                                                    \
        if (bx.empty || !NEAR(bx.x1, X1) || !NEAR(bx.y1, Y1) || !NEAR(bx.x2, X2) ||  \
            !NEAR(bx.y2, Y2)) {                                                      \
            failures++;                                                              \
            fprintf(stderr, "%s:%d: box of element %d: %g %g %g %g (empty %d)\n",    \
                    __FILE__, __LINE__, i, bx.x1, bx.y1, bx.x2, bx.y2, bx.empty);    \
        }                                                                            \
    } while (0)
    BOX(0, 0, -1, 3, 4);
    BOX(1, 1, 2, 5, 6);
    BOX(2, 5, 5, 15, 15);
    BOX(3, 0, 0, 2, 1);
    BOX(4, -2, -sqrt(0.5), 2, 1);
    BOX(5, -2, -1, 2, 1);
    BOX(7, 0, 0, 1, 0.75);
    BOX(8, 1, 2, 3, 4);
    BOX(9, 5, 6, 7, 8);
    BOX(10, 3, 4, 3, 4);
    BOX(11, -1, -2, 1, 2);
    BOX(12, 0, 0, 4, 4);
    BOX(16, 0, 0, 1, 1);
    ir_box h = ir_elem_box(&e[6]);
    CHECK(!h.empty && h.x1 >= -1 - 1e-9 && h.x2 <= 1 + 1e-9);
    CHECK(ir_elem_box(&e[13]).empty);
    CHECK(ir_elem_box(&e[14]).empty);
    CHECK(ir_elem_box(&e[15]).empty);
    /* elements lacking points do not crash */
    ir_elem z = {0};
    for (int k = IR_POLY; k <= IR_OTHER; k++) {
        z.kind = (ir_kind)k;
        CHECK(ir_elem_box(&z).empty);
    }
    ir_diagram_free(d);
    ir_reader_free(r);
    fclose(in);
}

int main(void)
{
    test_fmt_num();
    test_parse_num();
    test_quoting();
    test_attrs_and_elems();
    test_writer_records();
    test_round_trip();
    test_reader_ok_edges();
    test_reader_errors();
    test_boxes();
    printf("test_ir: %d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
