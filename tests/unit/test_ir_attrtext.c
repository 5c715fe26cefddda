/* test_ir_attrtext.c — attributes written in one piece against one by one.
 *
 * Attribute records in an element's memory carry their lengths and a flag
 * "the value is a bare word" (ir/ir_internal.h); the writer then copies
 * " key=value" in one piece. Attributes without records (a borrowed
 * diagram's) go the long way (every value checked and quoted as needed
 * while written). The
 * same attributes must give the same bytes both ways: every byte value at
 * every position of short and long values, '@' and empty values, random
 * values, replaced and removed attributes (and ir_elem_get of them),
 * copies, elements of a diagram (its memory) and elements of their own,
 * and values longer than the room the writer reserves for one piece.
 * Run under ASan by check-san. */
#include "ir/ir.h"
#include "tests/unit/xorshift.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tests/unit/same_as_slow.h"

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
    return xorshift64(&rng);
}

/* one byte c at position k of values of every length up to 19 */
static void test_bytes(void)
{
    ir_diagram *d = ir_diagram_new("t");
    ir_pt p[2] = {{0, 0}, {1, 1}};
    for (int c = 1; c < 256; c++) {
        for (int len = 1; len < 20; len++) {
            for (int k = 0; k < len; k++) {
                char v[24];
                memset(v, 'a' + (len + k) % 26, (size_t)len);
                v[k] = (char)c;
                v[len] = '\0';
                ir_elem *e = ir_add(d, IR_POLY);
                ir_elem_set_pts(e, p, 2);
                ir_elem_set(e, "draw", "black");
                ir_elem_set(e, k % 2 ? "a" : "longer-key", v);
                ir_elem_set(e, "fill", "none");
                e->line = len;
                same_as_slow(e);
            }
        }
        /* one diagram per byte value */
        ir_diagram_free(d);
        d = ir_diagram_new("t");
    }
    ir_diagram_free(d);
}

static char *value(void)
{
    size_t len = rnd() % 16 == 0 ? 100 + rnd() % 5000 : rnd() % 30;
    char *s = malloc(len + 1);
    for (size_t i = 0; i < len; i++) {
        uint64_t r = rnd();
        /* mostly bare-word bytes, sometimes any byte but NUL */
        s[i] = r % 64 == 0 ? (char)(1 + (r >> 8) % 255) : (char)('!' + (r >> 8) % 94);
    }
    s[len] = '\0';
    if (len && rnd() % 32 == 0) s[0] = '@';
    return s;
}

/* ir_elem_get (which skips keys an element never had) against a plain
 * search, for present, removed and never-set keys */
static void gets(const ir_elem *e)
{
    static const char *extra[] = {"", "r", "ro", "role", "rounded", "overlay", "draw", "k", "k1x",
                                  "a-key-of-thirty-odd-bytes-xyz", "a-key-of-thirty-odd-bytes-xyzxyz",
                                  "a-key-of-thirty-odd-bytes-xyzxyzx"};
    for (int k = 0; k < 12 + (int)(sizeof extra / sizeof extra[0]); k++) {
        char key[48];
        if (k < 12) snprintf(key, sizeof key, "k%d", k);
        else snprintf(key, sizeof key, "%s", extra[k - 12]);
        const char *want = NULL;
        for (size_t i = 0; i < e->nattrs; i++)
            if (strcmp(e->attrs[i].key, key) == 0) want = e->attrs[i].val;
        CHECK(ir_elem_get(e, key) == want);
    }
}

static void churn(ir_elem *e, int ops)
{
    for (int k = 0; k < ops; k++) {
        char key[48];
        snprintf(key, sizeof key, "k%d", (int)(rnd() % 12));
        if (rnd() % 3 == 0) snprintf(key, sizeof key, "%s", rnd() % 2 ? "role" : "rounded");
        /* keys around the length ir.c copies while measuring (32) */
        if (rnd() % 16 == 0) snprintf(key, sizeof key, "%.*s", 28 + (int)(rnd() % 8), "a-key-of-thirty-odd-bytes-xyzxyzxyz");
        if (rnd() % 6 == 0) {
            ir_elem_set(e, key, NULL);
        } else {
            char *v = value();
            ir_elem_set(e, key, v);
            free(v);
        }
    }
    gets(e);
}

static void test_random(void)
{
    for (int round = 0; round < 3000; round++) {
        ir_diagram *d = ir_diagram_new("t");
        int n = 1 + (int)(rnd() % 8);
        for (int i = 0; i < n; i++) {
            ir_elem *e = ir_add(d, (ir_kind)(rnd() % 5));
            ir_pt p[70];
            size_t np = rnd() % 70;
            for (size_t j = 0; j < np; j++) p[j].x = (double)(rnd() % 1000) / 7, p[j].y = -(double)j;
            if (rnd() % 2) ir_elem_set_pts(e, p, np);
            churn(e, (int)(rnd() % 20));
            if (rnd() % 2) ir_elem_set_pts(e, p, np / 2);
            same_as_slow(e);
        }
        /* copies, in the diagram's memory */
        ir_elem *c = ir_add_copy(d, &d->elems[rnd() % (uint64_t)n]);
        same_as_slow(c);
        churn(c, 5);
        same_as_slow(c);
        /* as has an element outside any diagram */
        ir_elem own;
        memset(&own, 0, sizeof own);
        own.kind = IR_TEXT;
        churn(&own, (int)(rnd() % 30));
        same_as_slow(&own);
        ir_elem_clear(&own);
        ir_diagram_free(d);
    }
}

int main(void)
{
    test_bytes();
    test_random();
    printf("test_ir_attrtext: %d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
