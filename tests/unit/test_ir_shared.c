/* test_ir_shared.c — attribute records shared between elements.
 *
 * In a diagram's memory ir_elem_set reuses the record it last made for a
 * key's slot when key and value are the same (struct ir_mem), so
 * entries of several elements point at one record. Every element must
 * still read back exactly what was set on it, in order, whatever was set,
 * replaced or removed on the others: random operations on many elements of
 * one diagram from a small pool of keys (prefixes of each other, keys of
 * the same slot) and values (prefixes of each other, empty, quoted ones,
 * long ones) against a plain model, plus the written record against the
 * one-by-one writer. Run under ASan by check-san. */
#include "ir/ir.h"
#include "tests/unit/xorshift.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tests/unit/same_as_slow.h"

static uint64_t rng = 0x2545F4914F6CDD1Du;
static uint64_t rnd(void)
{
    return xorshift64(&rng);
}

static const char *keys[] = {"draw", "drawn", "dra", "vertex", "fill", "lw", "l", "lwx", "r", "ro", "role", "rounded",
                             "rotate", "clip", "arrows", "xyz", "", "a-key-of-thirty-odd-bytes-xyzxyzxyz"};
static const char *vals[] = {"none", "black", "non", "nonee", "0.4", "0.45", "0.4 ", "", "@x", "a b",
                             "1,2,3;4,5,6;7,8,9;10,11,12", "1,2,3;4,5,6;7,8,9;10,11,13", "\"q\"", "x=y"};
#define NK (sizeof keys / sizeof keys[0])
#define NV (sizeof vals / sizeof vals[0])
#define NE 40

/* the model: per element, the attributes in order (indices into keys/vals) */
static struct {
    int n;
    int k[NK], v[NK];
} model[NE];

static void model_set(int el, int k, int v)
{
    for (int i = 0; i < model[el].n; i++) {
        if (model[el].k[i] != k) continue;
        if (v < 0) {
            memmove(&model[el].k[i], &model[el].k[i + 1], (size_t)(model[el].n - i - 1) * sizeof(int));
            memmove(&model[el].v[i], &model[el].v[i + 1], (size_t)(model[el].n - i - 1) * sizeof(int));
            model[el].n--;
        } else {
            model[el].v[i] = v;
        }
        return;
    }
    if (v < 0) return;
    model[el].k[model[el].n] = k;
    model[el].v[model[el].n] = v;
    model[el].n++;
}

static void check_elem(const ir_elem *e, int el)
{
    CHECK(e->nattrs == (size_t)model[el].n);
    if (e->nattrs != (size_t)model[el].n) return;
    for (int i = 0; i < model[el].n; i++) {
        CHECK(strcmp(e->attrs[i].key, keys[model[el].k[i]]) == 0);
        CHECK(strcmp(e->attrs[i].val, vals[model[el].v[i]]) == 0);
        CHECK(ir_elem_get(e, keys[model[el].k[i]]) == e->attrs[i].val);
    }
    same_as_slow(e);   /* written: as with the attributes in the reader's form */
}

/* values of 16 to 300 bytes (copied and checked 16 bytes a round when
 * SSE2 is there) with byte c at a few positions, keys of several lengths
 * (the value's place in the record moves) */
static void test_long_values(void)
{
    static const char *lk[] = {"a", "xyz", "draw", "rounded", "a-key-of-thirty-odd-bytes-xyzxyzxyz"};
    for (size_t len = 16; len <= 300; len += len < 70 ? 1 : 37) {
        ir_diagram *d = ir_diagram_new("t");
        for (int c = 1; c < 256; c++) {
            size_t pos[] = {0, 1, 7, 8, 15, 16, len / 2, len - 17, len - 16, len - 9, len - 2, len - 1};
            for (size_t j = 0; j < sizeof pos / sizeof pos[0]; j++) {
                if (pos[j] >= len) continue;  /* len - 17 wraps for len 16 */
                char v[320];
                for (size_t i = 0; i < len; i++) v[i] = (char)('!' + (i * 7 + len) % 94);
                for (size_t i = 0; i < len; i++)
                    if (v[i] == '"' || v[i] == '=' || v[i] == '\\') v[i] = 'q';
                v[pos[j]] = (char)c;
                v[len] = '\0';
                ir_elem *e = ir_add(d, IR_POLY);
                ir_elem_set(e, lk[(c + j) % 5], v);
                ir_elem_set(e, "fill", "none");
                CHECK(strcmp(e->attrs[0].val, v) == 0);
                same_as_slow(e);
            }
        }
        ir_diagram_free(d);
    }
}

int main(void)
{
    test_long_values();
    for (int round = 0; round < 300; round++) {
        ir_diagram *d = ir_diagram_new("t");
        memset(model, 0, sizeof model);
        for (int el = 0; el < NE; el++) ir_add(d, IR_POLY)->line = el + 1;
        for (int op = 0; op < 2000; op++) {
            int el = (int)(rnd() % NE), k = (int)(rnd() % NK);
            int v = rnd() % 8 == 0 ? -1 : (int)(rnd() % NV);
            /* keys and values from buffers that are rewritten right after */
            char kb[64], vb[64];
            snprintf(kb, sizeof kb, "%s", keys[k]);
            if (v >= 0) snprintf(vb, sizeof vb, "%s", vals[v]);
            ir_elem_set(&d->elems[el], kb, v >= 0 ? vb : NULL);
            memset(kb, 'z', sizeof kb - 1);
            memset(vb, 'z', sizeof vb - 1);
            model_set(el, k, v);
            if (op % 100 == 0) {
                int c = (int)(rnd() % NE);
                check_elem(&d->elems[c], c);
            }
        }
        for (int el = 0; el < NE; el++) check_elem(&d->elems[el], el);
        ir_diagram_free(d);
    }
    printf("test_ir_shared: %d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
