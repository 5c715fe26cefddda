/* test_borrow_nul.c — a NUL byte anywhere in a line: the borrowed reader
 * (whose poly records are read the short way, which finds the NUL with its
 * own scan) fails where and as the owned reader does. Every byte of a few
 * lines is replaced by a NUL in turn, and a NUL is put before every byte. */
#include "ir/ir.h"
#include "ir/ir_borrow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

static const char base[] =
    "diagramir 1\n"
    "diagram d1 src=a.tex line=3\n"
    "poly closed 0 0 289.08 0 144.54 216.81 draw=black fill=none lw=0.8 clip=1 @11\n"
    "  poly\topen -41.245 -32.212 -23.178 -32.212 xyz=0,0,0.25;0.25,0,0.25 @29  \n"
    "poly open 1 2 3 4\n"
    "rect 144.54 0 155.38 10.84 draw=black @17\n"
    "# poly closed 0 0 1 1 2 2\n"
    "end\n";

static char *read_text(const char *text, size_t len, int borrowed)
{
    char *out = NULL;
    size_t olen = 0;
    FILE *o = open_memstream(&out, &olen);
    FILE *f = fmemopen((void *)text, len, "r");
    if (!o || !f) abort();
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
        if (failures < 5) fprintf(stderr, "--- owned:\n%s--- borrowed:\n%s", a, b);
    }
    if (!strstr(b, "NUL byte") && memchr(text, '\0', len)) {
        /* a NUL anywhere but in a comment line is an error */
        const char *z = memchr(text, '\0', len);
        const char *ls = z;
        while (ls > text && ls[-1] != '\n') ls--;
        if (*ls != '#' && !(strstr(b, "rc=-1"))) {
            failures++;
            if (failures < 5) fprintf(stderr, "NUL not reported:\n%s", b);
        }
    }
    checks++;
    free(a);
    free(b);
}

int main(void)
{
    size_t n = sizeof base - 1;
    char *buf = malloc(n + 1);
    if (!buf) abort();
    compare(base, n);
    for (size_t at = 0; at < n; at++) {
        memcpy(buf, base, n);
        buf[at] = '\0';   /* a byte replaced */
        compare(buf, n);
        memcpy(buf, base, at);   /* a byte inserted before base[at] */
        buf[at] = '\0';
        memcpy(buf + at + 1, base + at, n - at);
        compare(buf, n + 1);
    }
    free(buf);
    if (failures) {
        fprintf(stderr, "test_borrow_nul: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_borrow_nul: %d checks passed\n", checks);
    return 0;
}
