/* fuzz_draw.c — fuzz harness for the renderer (draw/draw.h).
 *
 * Reads the bytes as IR; every diagram the reader accepts is drawn as SVG
 * twice (findings on, with all of them, margin 0 the first time; the
 * defaults the second) into memory. Each document must be well-formed XML
 * (parsed with libexpat) and drawing the same diagram with the same options
 * again must give the same bytes. A violation aborts. (draw_png is not
 * fuzzed here: it is librsvg's work on draw_svg's output.) */
#include "draw/draw.h"
#include "ir/ir.h"

#include <expat.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const char *doc, size_t n)
{
    fprintf(stderr, "fuzz_draw: %s\n--- document:\n%.*s\n", what, (int)(n < 4000 ? n : 4000),
            doc ? doc : "");
    abort();
}

static char *draw(const ir_diagram *d, const draw_opts *o, size_t *len)
{
    char *s = NULL;
    *len = 0;
    FILE *f = open_memstream(&s, len);
    if (!f) abort();
    if (draw_svg(f, d, o) != 0) die("draw_svg failed", NULL, 0);
    fclose(f);
    return s;
}

static void check(const ir_diagram *d, const draw_opts *o)
{
    size_t la, lb;
    char *a = draw(d, o, &la), *b = draw(d, o, &lb);
    if (la != lb || memcmp(a, b, la) != 0) die("not deterministic", a, la);
    XML_Parser p = XML_ParserCreate("UTF-8");
    if (!p) abort();
    if (XML_Parse(p, a, (int)la, 1) == XML_STATUS_ERROR) {
        fprintf(stderr, "fuzz_draw: XML error at line %lu: %s\n",
                (unsigned long)XML_GetCurrentLineNumber(p), XML_ErrorString(XML_GetErrorCode(p)));
        die("not well-formed XML", a, la);
    }
    XML_ParserFree(p);
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > (1 << 20)) return 0;
    FILE *in = fmemopen((void *)data, size, "r");
    if (!in) return 0;
    ir_reader *r = ir_reader_new(in, "fuzz.ir");
    ir_diagram *d;
    while (ir_read_diagram(r, &d) == 1) {
        draw_opts o;
        draw_opts_init(&o);
        o.all_findings = 1;
        o.margin = 0;
        check(d, &o);
        draw_opts_init(&o);
        o.fragment = 1;
        check(d, &o);
        ir_diagram_free(d);
    }
    ir_reader_free(r);
    fclose(in);
    return 0;
}
