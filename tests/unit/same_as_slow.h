/* same_as_slow.h — for the attribute tests: an element as the writer writes
 * it, against the same element with its attributes in the reader's form
 * (ir_set_attr arrays, which the writer checks value by value). Include
 * after tests/unit/check.h. */
#ifndef DIAGRAMIR_TESTS_SAME_AS_SLOW_H
#define DIAGRAMIR_TESTS_SAME_AS_SLOW_H
#include "ir/ir.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the record of e as the writer writes it (malloc'd) */
static char *written(const ir_elem *e, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    ir_write_elem(f, e);
    fclose(f);
    return buf;
}

/* e written must equal the same record with the attributes in the
 * reader's form */
static void same_as_slow(const ir_elem *e)
{
    ir_elem ref = *e;
    ref.mem = NULL;  /* attributes without records: the writer checks each value */
    ref.attrs = NULL;
    ref.nattrs = 0;
    for (size_t i = 0; i < e->nattrs; i++) ir_set_attr(&ref.attrs, &ref.nattrs, e->attrs[i].key, e->attrs[i].val);
    size_t la, lb;
    char *a = written(e, &la), *b = written(&ref, &lb);
    CHECK(la == lb && memcmp(a, b, la) == 0);
    if (!(la == lb && memcmp(a, b, la) == 0) && failures < 5) fprintf(stderr, "  fast: %s  slow: %s", a, b);
    free(a);
    free(b);
    for (size_t i = 0; i < ref.nattrs; i++) free(ref.attrs[i].key);
    free(ref.attrs);
}

#endif
