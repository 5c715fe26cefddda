/* test_ir_reuse.c — diagrams made one after the other (on memory malloc
 * may hand out again) must write the same text as one made on fresh
 * memory, whatever the previous diagram's size was, and diagrams alive at
 * the same time must not share anything. */
#include "ir/ir.h"
#include "tests/unit/check.h"
#include "tests/unit/xorshift.h"

#include <stdlib.h>
#include <string.h>

/* A diagram of n elements with attributes and points from seed. */
static ir_diagram *make(uint64_t seed, size_t n)
{
    char id[32];
    snprintf(id, sizeof id, "d%llu", (unsigned long long)seed);
    ir_diagram *d = ir_diagram_new(id);
    ir_set_attr(&d->attrs, &d->nattrs, "src", "x.tex");
    uint64_t s = seed | 1;
    for (size_t i = 0; i < n; i++) {
        ir_elem *e = ir_add(d, (ir_kind)(xorshift64(&s) % 5));
        size_t np = 1 + xorshift64(&s) % 90;
        ir_pt pts[100];
        for (size_t k = 0; k < np; k++) {
            pts[k].x = (double)(xorshift64(&s) % 100000) / 7.0;
            pts[k].y = (double)(xorshift64(&s) % 100000) / 3.0;
        }
        ir_elem_set_pts(e, pts, np);
        e->line = (int)(i + 1);
        ir_elem_set(e, "draw", xorshift64(&s) % 2 ? "black" : "red");
        ir_elem_set(e, "fill", "none");
        char v[64];
        snprintf(v, sizeof v, "%llu", (unsigned long long)(xorshift64(&s) % 1000));
        ir_elem_set(e, "lw", v);
        if (xorshift64(&s) % 3 == 0) {
            char big[600];
            size_t bl = (size_t)(xorshift64(&s) % (sizeof big - 1));
            for (size_t k = 0; k < bl; k++) big[k] = (char)('a' + xorshift64(&s) % 26);
            big[bl] = '\0';
            ir_elem_set(e, "tex", big);
        }
    }
    return d;
}

static char *text_of(const ir_diagram *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) abort();
    ir_write_diagram(f, d);
    fclose(f);
    return buf;
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 5, 64, 65, 300, 2000, 3, 0, 1000, 10};
    size_t ns = sizeof sizes / sizeof sizes[0];
    /* the reference texts, each from a diagram made right after the
     * previous one was freed (memory reused) */
    char *ref[sizeof sizes / sizeof sizes[0]];
    for (size_t i = 0; i < ns; i++) {
        ir_diagram *d = make(i + 1, sizes[i]);
        ref[i] = text_of(d);
        ir_diagram_free(d);
    }
    /* the same diagrams in other orders and with several alive at once */
    uint64_t s = 99;
    for (int round = 0; round < 20; round++) {
        ir_diagram *alive[3] = {NULL, NULL, NULL};
        size_t which[3] = {0, 0, 0};
        for (int step = 0; step < 12; step++) {
            int slot = (int)(xorshift64(&s) % 3);
            if (alive[slot]) {
                char *t = text_of(alive[slot]);
                CHECK(strcmp(t, ref[which[slot]]) == 0);
                free(t);
                ir_diagram_free(alive[slot]);
                alive[slot] = NULL;
            } else {
                which[slot] = (size_t)(xorshift64(&s) % ns);
                alive[slot] = make(which[slot] + 1, sizes[which[slot]]);
            }
        }
        for (int slot = 0; slot < 3; slot++) {
            if (!alive[slot]) continue;
            char *t = text_of(alive[slot]);
            CHECK(strcmp(t, ref[which[slot]]) == 0);
            free(t);
            ir_diagram_free(alive[slot]);
        }
    }
    for (size_t i = 0; i < ns; i++) free(ref[i]);
    printf("test_ir_reuse: %d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
