/* test_ir_attrs.c — element attributes against a model.
 *
 * ir_elem_set keeps an element's attributes as records in its diagram's
 * memory (or the element's own, outside a diagram); the reader fills the
 * same memory. Random sequences of sets, replacements and removals (short
 * and long values, arrays that must grow), copies, and clears must behave
 * like a plain ordered list of key=value pairs. Run under ASan by check-san. */
#include "ir/ir.h"
#include "tests/unit/xorshift.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"

static uint64_t rng = 88172645463325252u;
static uint64_t rnd(void)
{
    return xorshift64(&rng);
}

#define MAXA 40

typedef struct {
    char key[MAXA][16];
    char *val[MAXA];
    size_t n;
} model;

static void m_set(model *m, const char *key, const char *val)
{
    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(m->key[i], key) != 0) continue;
        free(m->val[i]);
        if (!val) {
            memmove(&m->key[i], &m->key[i + 1], (m->n - i - 1) * sizeof m->key[0]);
            memmove(&m->val[i], &m->val[i + 1], (m->n - i - 1) * sizeof m->val[0]);
            m->n--;
        } else {
            m->val[i] = strdup(val);
        }
        return;
    }
    if (!val) return;
    snprintf(m->key[m->n], sizeof m->key[0], "%s", key);
    m->val[m->n++] = strdup(val);
}

static void m_free(model *m)
{
    for (size_t i = 0; i < m->n; i++) free(m->val[i]);
    m->n = 0;
}

static int same(const ir_elem *e, const model *m)
{
    if (e->nattrs != m->n) return 0;
    for (size_t i = 0; i < m->n; i++) {
        if (strcmp(e->attrs[i].key, m->key[i]) != 0) return 0;
        if (strcmp(e->attrs[i].val, m->val[i]) != 0) return 0;
        if (ir_elem_get(e, m->key[i]) != e->attrs[i].val) return 0;
    }
    return 1;
}

static char *value(void)
{
    size_t len = rnd() % 8 == 0 ? 100 + rnd() % 900 : rnd() % 20;
    char *s = malloc(len + 1);
    for (size_t i = 0; i < len; i++) s[i] = (char)('a' + rnd() % 26);
    s[len] = '\0';
    return s;
}

/* random operations on e, mirrored on m */
static void churn(ir_elem *e, model *m, int ops, int nkeys)
{
    for (int k = 0; k < ops; k++) {
        char key[16];
        snprintf(key, sizeof key, "k%d", (int)(rnd() % (uint64_t)nkeys));
        if (rnd() % 5 == 0) {
            ir_elem_set(e, key, NULL);
            m_set(m, key, NULL);
        } else {
            char *v = value();
            ir_elem_set(e, key, v);
            m_set(m, key, v);
            free(v);
        }
        CHECK(same(e, m));
    }
}

static void test_owned(void)
{
    for (int round = 0; round < 400; round++) {
        ir_diagram *d = ir_diagram_new("t");
        ir_elem *e = ir_add(d, IR_POLY);
        model m = {0};
        int nkeys = 1 + (int)(rnd() % MAXA);
        churn(e, &m, (int)(rnd() % 120), nkeys);
        /* a copy has the same attributes and its own memory */
        ir_elem *c = ir_add_copy(d, &d->elems[0]);
        CHECK(same(c, &m));
        CHECK(c->nattrs == 0 || c->attrs != d->elems[0].attrs);
        model mc = {0};
        for (size_t i = 0; i < m.n; i++) m_set(&mc, m.key[i], m.val[i]);
        churn(c, &mc, 50, nkeys);
        CHECK(same(&d->elems[0], &m));
        /* clearing one leaves the other intact */
        ir_elem_clear(&d->elems[0]);
        CHECK(d->elems[0].nattrs == 0 && d->elems[0].attrs == NULL && d->elems[0].mem == NULL);
        CHECK(same(&d->elems[1], &mc));
        /* a cleared element takes attributes again */
        m_free(&m);
        churn(&d->elems[0], &m, 30, nkeys);
        ir_diagram_free(d);
        m_free(&m);
        m_free(&mc);
    }
}

/* elements the reader built: their attributes are in the diagram's memory
 * and take sets, removals and copies */
static void test_read(void)
{
    const char *text = "diagramir 1\ndiagram a src=x\n"
                       "poly open 0 0 1 1 draw=black fill=none lw=0.4 role=grid @3\n"
                       "rect 0 0 1 1 @4\nend\n";
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    ir_reader *r = ir_reader_new(in, "t.ir");
    ir_diagram *d;
    CHECK(ir_read_diagram(r, &d) == 1);
    if (d && d->nelems == 2) {
        model m = {0};
        m_set(&m, "draw", "black");
        m_set(&m, "fill", "none");
        m_set(&m, "lw", "0.4");
        m_set(&m, "role", "grid");
        CHECK(same(&d->elems[0], &m));
        CHECK(d->elems[0].mem == d->mem);
        churn(&d->elems[0], &m, 200, 12);
        CHECK(d->elems[0].mem == d->mem);
        ir_elem *c = ir_add_copy(d, &d->elems[0]);
        CHECK(same(c, &m));
        model m2 = {0};
        churn(&d->elems[1], &m2, 100, 20);
        ir_elem_setf(&d->elems[1], "f", "%d-%s", 12, "x");
        m_set(&m2, "f", "12-x");
        CHECK(same(&d->elems[1], &m2));
        m_free(&m);
        m_free(&m2);
    }
    ir_diagram_free(d);
    ir_reader_free(r);
    fclose(in);
}

int main(void)
{
    test_owned();
    test_read();
    printf("test_ir_attrs: %d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
