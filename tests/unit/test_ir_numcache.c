/* test_ir_numcache.c — the writer's cache of formatted numbers (by the
 * bits of the double, direct-mapped, in ir_write.c) never gives a text
 * other than the number's own. A pool of numbers (many sharing cache
 * slots: -0 and 0, neighbours one ulp apart, values that round alike, NaN,
 * infinities, huge ones that bypass the cache) is formatted in random
 * order, through ir_fmt_num and through whole records (put_pts), and
 * compared with the reference formatter (tests/unit/ref_fmt_num.h). */
#include "ir/ir.h"
#include "tests/unit/check.h"
#include "tests/unit/xorshift.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/ref_fmt_num.h"

#define POOL 3000

int main(void)
{
    static double pool[POOL];
    static char want[POOL][40];
    uint64_t s = 0x9E3779B97F4A7C15ull;
    size_t n = 0;
    pool[n++] = 0.0;
    pool[n++] = -0.0;
    pool[n++] = NAN;
    pool[n++] = INFINITY;
    pool[n++] = -INFINITY;
    pool[n++] = 1e9;
    pool[n++] = -1e9;
    pool[n++] = 123456789012.5;
    pool[n++] = 0.0005;
    pool[n++] = -0.0005;
    pool[n++] = 28.452755905511811;
    /* neighbours of pool values (a few ulps away, and values that print
     * alike) that fall into the same slot of ir_write.c's cache (its hash,
     * replicated here): a cache that compared fewer bits would mix them up */
    while (n < POOL / 3) {
        double base = (double)(int64_t)(xorshift64(&s) >> 24) / 4096.0;
        uint64_t bb;
        memcpy(&bb, &base, sizeof bb);
        unsigned slot = (unsigned)((bb * 0x9E3779B97F4A7C15ull) >> 56);
        pool[n++] = base;
        for (uint64_t k = 1; k < 100000 && n < POOL / 3; k++) {
            uint64_t cb = bb ^ k;  /* low bits changed: the same text mostly, other bits */
            uint64_t cb2 = bb + (k << 20);
            if ((unsigned)((cb * 0x9E3779B97F4A7C15ull) >> 56) == slot) {
                memcpy(&pool[n++], &cb, sizeof cb);
                if (n >= POOL / 3) break;
            }
            if ((unsigned)((cb2 * 0x9E3779B97F4A7C15ull) >> 56) == slot) {
                memcpy(&pool[n++], &cb2, sizeof cb2);
                break;
            }
        }
    }
    while (n < POOL) {
        uint64_t r = xorshift64(&s);
        double v;
        switch (r % 4) {
        case 0: v = (double)(int64_t)(r >> 20) / 1024.0; break;         /* plain */
        case 1: v = nextafter(pool[r % n], r & 1 ? INFINITY : -INFINITY); break;  /* one ulp away */
        case 2: v = (double)((int64_t)(r >> 33) % 2000000) / 1000.0 + 0.0005; break;  /* halves */
        default: {
            uint64_t bits = xorshift64(&s);
            memcpy(&v, &bits, sizeof v);  /* any bits */
            break;
        }
        }
        pool[n++] = v;
    }
    for (size_t i = 0; i < POOL; i++) ref_fmt_num(want[i], pool[i]);
    char buf[64];
    for (int round = 0; round < 400000; round++) {
        size_t i = (size_t)(xorshift64(&s) % POOL);
        CHECK(strcmp(ir_fmt_num(buf, pool[i]), want[i]) == 0);
    }
    /* records: a poly of pool points written to memory, read back as words */
    for (int round = 0; round < 300; round++) {
        ir_diagram *d = ir_diagram_new("t");
        ir_elem *e = ir_add(d, IR_POLY);
        ir_pt pts[50];
        size_t idx[100];
        for (size_t k = 0; k < 50; k++) {
            idx[2 * k] = (size_t)(xorshift64(&s) % POOL);
            idx[2 * k + 1] = (size_t)(xorshift64(&s) % POOL);
            pts[k].x = pool[idx[2 * k]];
            pts[k].y = pool[idx[2 * k + 1]];
        }
        ir_elem_set_pts(e, pts, 50);
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        ir_write_elem(f, e);
        fclose(f);
        char *w = strtok(text, " \n");  /* "poly" */
        w = strtok(NULL, " \n");        /* "open" */
        for (size_t k = 0; k < 100; k++) {
            w = strtok(NULL, " \n");
            CHECK(w && strcmp(w, want[idx[k]]) == 0);
        }
        free(text);
        ir_diagram_free(d);
    }
    printf("test_ir_numcache: %d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
