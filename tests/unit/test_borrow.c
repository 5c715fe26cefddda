/* test_borrow.c — ir_read_diagram_borrowed (ir/ir_borrow.h) against
 * ir_read_diagram: on the same input, the same diagrams (as the writer
 * writes them), the same errors at the same places. The inputs are a few
 * diagrams with every record kind, and many random mutations of them; a NUL
 * byte at and before every byte of a few lines (nul_bytes); bare values of
 * every length around the bytes that end them (value_scan). */
#include "ir/ir.h"
#include "tests/unit/xorshift.h"
#include "ir/ir_borrow.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

static const char base[] =
    "diagramir 1\n"
    "# a comment\n"
    "diagram d1 src=a.tex line=3\n"
    "unit pt\n"
    "bbox -1 -2.5 100 200.125\n"
    "clip rect -36.135 -36.135 325.215 252.945 id=1 @6\n"
    "clip poly closed 0 0 10 0 10 10 id=2 clip=1 @7\n"
    "clip ellipse 0 0 5 0 0 5 @8\n"
    "poly closed 0 0 289.08 0 144.54 216.81 draw=black fill=none lw=0.8 clip=1 @11\n"
    "poly open 0 0 1 1 2 2 xyz=0,0,0;1,0,0;1,1,0 dash=dashed @12\n"
    "rect 144.54 0 155.38 10.84 draw=black fill=none lw=0.8 clip=1 @17\n"
    "text 131.298 -28.188 157.782 -18.954 \"base \\\"q\\\" \\x41\\t\" at=144.54,-14.454 anchor=north size=12 tex=\"a b\" @20\n"
    "ellipse 36.135 14.454 2 0 0 2 draw=none fill=black role=vertex @14\n"
    "arc 0 0 10 0 0 10 0 90 role=angle-mark vertex=0,0 @15\n"
    "curve 0 0 1 2 3 4 5 6 arrows=-> @16\n"
    "unparsed \"\\\\draw foo;\" @30\n"
    "vertex v1 0 0 10 10 \"A\" @31\n"
    "vertex \"v 2\" 0 0 10 10 \"B\"\n"
    "edge v1 \"v 2\" undirected w=2 @32\n"
    "edge v1 v3\n"
    "coord A 36.135 14.454 @8\n"
    "frobnicate 1 2 3 @44\n"
    "other thing\t \n"
    "end\n"
    "diagram 2 src=b.tex\n"
    "poly open 1e3 -0 .5 1. +2 -3.25e-2 draw=\"dark red\" k.k=1 _x:y=2 @1\n"
    "end\n"
    "diagramir 1\n"
    "diagram three\n"
    "unit cm\n"
    "text 0 0 1 1 \"\" @0\n"
    "end\n";

/* for nul_bytes: a NUL put at and before every byte of these lines */
static const char nul_base[] =
    "diagramir 1\n"
    "diagram d1 src=a.tex line=3\n"
    "poly closed 0 0 289.08 0 144.54 216.81 draw=black fill=none lw=0.8 clip=1 @11\n"
    "  poly\topen -41.245 -32.212 -23.178 -32.212 xyz=0,0,0.25;0.25,0,0.25 @29  \n"
    "poly open 1 2 3 4\n"
    "rect 144.54 0 155.38 10.84 draw=black @17\n"
    "# poly closed 0 0 1 1 2 2\n"
    "end\n";

/* Everything the reader makes of text, one way: the diagrams as written,
 * then the status and the error. */
static char *read_text(const char *text, size_t len, int borrowed)
{
    char *out = NULL;
    size_t olen = 0;
    FILE *o = open_memstream(&out, &olen);
    FILE *f = fmemopen((void *)text, len ? len : 1, "r");
    if (!o || !f) abort();
    if (!len) fgetc(f);   /* an empty stream */
    ir_reader *r = ir_reader_new(f, "t.ir");
    int rc;
    for (;;) {
        if (borrowed) {
            const ir_diagram *d;
            rc = ir_read_diagram_borrowed(r, &d);
            if (rc != 1) break;
            ir_write_diagram(o, d);
        } else {
            ir_diagram *d;
            rc = ir_read_diagram(r, &d);
            if (rc != 1) break;
            ir_write_diagram(o, d);
            ir_diagram_free(d);
        }
    }
    fprintf(o, "rc=%d err=%s\n", rc, rc < 0 ? ir_reader_error(r) : "");
    /* after an error, every later call fails again */
    if (rc < 0) {
        const ir_diagram *d;
        ir_diagram *od;
        fprintf(o, "again=%d,%d\n", ir_read_diagram_borrowed(r, &d), ir_read_diagram(r, &od));
    }
    ir_reader_free(r);
    fclose(f);
    fclose(o);
    return out;
}

static void compare(const char *text, size_t len)
{
    char *a = read_text(text, len, 0), *b = read_text(text, len, 1);
    checks++;
    if (strcmp(a, b) != 0) {
        failures++;
        if (failures < 5)
            fprintf(stderr, "borrowed and owned reads differ on:\n%.*s\n--- owned:\n%s--- borrowed:\n%s",
                    (int)len, text, a, b);
    }
    free(a);
    free(b);
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static unsigned rnd(unsigned n)
{
    return (unsigned)(xorshift64(&rng) % n);
}

/* compare, and a NUL anywhere but in a comment line must be an error */
static void compare_nul(const char *text, size_t len)
{
    compare(text, len);
    const char *z = memchr(text, '\0', len);
    if (!z) return;
    char *b = read_text(text, len, 1);
    const char *ls = z;
    while (ls > text && ls[-1] != '\n') ls--;
    checks++;
    if (!strstr(b, "NUL byte") && *ls != '#' && !strstr(b, "rc=-1")) {
        failures++;
        if (failures < 5) fprintf(stderr, "NUL not reported:\n%s", b);
    }
    free(b);
}

/* A NUL byte anywhere in a line (from test_borrow_nul): the borrowed reader
 * (whose poly records are read the short way, which finds the NUL with its
 * own scan) fails where and as the owned reader does, and reports it. */
static void nul_bytes(void)
{
    size_t n = sizeof nul_base - 1;
    char *buf = malloc(n + 1);
    if (!buf) abort();
    compare_nul(nul_base, n);
    for (size_t at = 0; at < n; at++) {
        memcpy(buf, nul_base, n);
        buf[at] = '\0';   /* a byte replaced */
        compare_nul(buf, n);
        memcpy(buf, nul_base, at);   /* a byte inserted before base[at] */
        buf[at] = '\0';
        memcpy(buf + at + 1, nul_base + at, n - at);
        compare_nul(buf, n + 1);
    }
    free(buf);
}

/* Values of 0 to 40 bytes around NUL, tab, blank, "!", quote, "#" and high
 * bytes, cut at every length (from test_borrow_val): the bound the borrowed
 * reader's eight-bytes-a-step value scan relies on. */
static void value_scan(void)
{
    static const unsigned char alpha[] = {
        '\0', '\t', ' ', '!', '"', '#', '$', 0x01, 0x1f, 0x22, 0x23, 0x7f, 0x80, 0xa3, 0xff,
        '0', '1', '.', ',', ';', '-', '=', '@', 'a', 'z', 'Z', '_', '\r',
    };
    uint64_t s = 0x9e3779b97f4a7c15ULL;
    char buf[512];
    for (int round = 0; round < 300; round++) {
        char val[48];
        size_t vl = (size_t)(xorshift64(&s) % 41);
        for (size_t i = 0; i < vl; i++) {
            /* mostly plain bytes, so long runs pass eight at a time */
            uint64_t x = xorshift64(&s);
            val[i] = x % 4 ? (char)('a' + (x >> 8) % 26) : (char)alpha[(x >> 8) % sizeof alpha];
        }
        for (size_t cut = 0; cut <= vl; cut++) {
            size_t n = 0;
            n += (size_t)snprintf(buf + n, sizeof buf - n,
                                  "diagramir 1\ndiagram d1 src=a.tex line=3\npoly open 0 0 1.5 2 k=");
            memcpy(buf + n, val, cut);
            n += cut;
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", round % 3 == 0 ? " lw=1 @7\n"
                                                          : round % 3 == 1 ? "\n" : "\tdraw=black\n");
            n += (size_t)snprintf(buf + n, sizeof buf - n, "end\n");
            compare(buf, n);
        }
    }
}

int main(void)
{
    size_t n = strlen(base);
    compare(base, n);
    compare("", 0);
    /* the good input read right must not be empty */
    char *a = read_text(base, n, 1);
    checks++;
    if (!strstr(a, "rc=0") || !strstr(a, "diagram three")) {
        failures++;
        fprintf(stderr, "base input not read: %s\n", a);
    }
    free(a);
    static const char *const ins[] = {"\"", "=", "@", " ", "\t", "\\", "\\x0", "\\x00", "\\q",
                                      "1e5", "-", ".", "x", "\r", "\n", "#", "a=", "draw=red",
                                      "@12", "@x", "\"a b\"", "open", "end", "diagram x",
                                      "unit pt", "12345678901234567", "9", "0", "k!=1", "\xff"};
    char *buf = malloc(n + 64);
    if (!buf) abort();
    for (int it = 0; it < 20000; it++) {
        memcpy(buf, base, n);
        size_t len = n;
        int edits = 1 + (int)rnd(3);
        for (int k = 0; k < edits; k++) {
            size_t at = rnd((unsigned)len);
            switch (rnd(3)) {
            case 0: {   /* insert */
                const char *s = ins[rnd(sizeof ins / sizeof ins[0])];
                size_t sl = strlen(s);
                if (len + sl > n + 60) break;
                memmove(buf + at + sl, buf + at, len - at);
                memcpy(buf + at, s, sl);
                len += sl;
                break;
            }
            case 1: {   /* delete */
                size_t dl = 1 + rnd(4);
                if (at + dl > len) dl = len - at;
                memmove(buf + at, buf + at + dl, len - at - dl);
                len -= dl;
                break;
            }
            default:    /* replace a byte */
                buf[at] = (char)(rnd(2) ? ins[rnd(sizeof ins / sizeof ins[0])][0] : (char)rnd(256));
                break;
            }
        }
        compare(buf, len);
    }
    free(buf);
    nul_bytes();
    value_scan();
    if (failures) {
        fprintf(stderr, "test_borrow: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_borrow: %d checks passed\n", checks);
    return 0;
}
