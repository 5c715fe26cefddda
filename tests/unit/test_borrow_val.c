/* test_borrow_val.c — bare values of every length and of bytes on both
 * sides of the ones that end them: the borrowed reader (whose poly records
 * are read the short way, which passes over a value eight bytes a step
 * while no byte is below 0x23) reads what the owned reader reads, or fails
 * where and as it does. Random poly lines (seeded) with values of 0 to 40
 * bytes from an alphabet around NUL, tab, blank, '!', '"', '#' and high
 * bytes, each value cut at every length in turn. */
#include "ir/ir.h"
#include "ir/ir_borrow.h"
#include "xorshift.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

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
        if (failures < 5) fprintf(stderr, "--- input:\n%.*s--- owned:\n%s--- borrowed:\n%s", (int)len, text, a, b);
    }
    free(a);
    free(b);
}

int main(void)
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
    if (failures) {
        fprintf(stderr, "test_borrow_val: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_borrow_val: %d checks passed\n", checks);
    return 0;
}
