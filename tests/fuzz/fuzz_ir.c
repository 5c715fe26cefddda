/* fuzz_ir.c — fuzz harness for the IR reader and writer.
 *
 * Feeds the bytes to ir_read_diagram. Whatever it accepts must survive the
 * round trip: written out (A), read back without error, written again (B),
 * A and B identical; a deep copy of each diagram must write the same bytes;
 * ir_elem_box must not crash on anything read. A violation aborts. */
#include "ir/ir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const char *a, const char *b)
{
    fprintf(stderr, "fuzz_ir: %s\n--- first:\n%.2000s\n--- second:\n%.2000s\n", what,
            a ? a : "", b ? b : "");
    abort();
}

/* Reads every diagram of in and writes them (with a header) to out.
 * Returns the number read; *err receives the reader's status (-1 error). */
static int pass(FILE *in, FILE *out, int *err, int check_copies)
{
    ir_reader *r = ir_reader_new(in, "fuzz.ir");
    ir_diagram *d;
    int n = 0, rc;
    ir_write_header(out);
    while ((rc = ir_read_diagram(r, &d)) == 1) {
        n++;
        for (size_t i = 0; i < d->nelems; i++) {
            ir_box b = ir_elem_box(&d->elems[i]);
            (void)b;
        }
        if (check_copies) {
            char *s1 = NULL, *s2 = NULL;
            size_t l1 = 0, l2 = 0;
            FILE *f1 = open_memstream(&s1, &l1), *f2 = open_memstream(&s2, &l2);
            if (!f1 || !f2) abort();
            ir_diagram *c = ir_diagram_new(d->id);
            free(c->unit);
            c->unit = d->unit ? strdup(d->unit) : NULL;
            for (size_t i = 0; i < d->nattrs; i++)
                ir_set_attr(&c->attrs, &c->nattrs, d->attrs[i].key, d->attrs[i].val);
            c->has_bbox = d->has_bbox;
            memcpy(c->bbox, d->bbox, sizeof c->bbox);
            for (size_t i = 0; i < d->nelems; i++) ir_add_copy(c, &d->elems[i]);
            ir_write_diagram(f1, d);
            ir_write_diagram(f2, c);
            fclose(f1);
            fclose(f2);
            if (l1 != l2 || memcmp(s1, s2, l1) != 0) die("copy writes differently", s1, s2);
            free(s1);
            free(s2);
            ir_diagram_free(c);
        }
        ir_write_diagram(out, d);
        ir_diagram_free(d);
    }
    if (rc < 0 && (!ir_reader_error(r) || strstr(ir_reader_error(r), ": error: ") == NULL))
        die("error without a message", ir_reader_error(r), NULL);
    *err = rc < 0;
    ir_reader_free(r);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* fmemopen does not take an empty buffer everywhere */
    FILE *in = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
    if (!in) return 0;
    char *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    FILE *out = open_memstream(&a, &la);
    if (!out) abort();
    int err;
    int n = pass(in, out, &err, 1);
    fclose(in);
    fclose(out);

    /* what was accepted round-trips exactly */
    in = fmemopen(a, la, "r");
    out = open_memstream(&b, &lb);
    if (!in || !out) abort();
    int err2;
    int n2 = pass(in, out, &err2, 0);
    fclose(in);
    fclose(out);
    if (err2 || n2 != n) die("writer output does not read back", a, b);
    if (la != lb || memcmp(a, b, la) != 0) die("round trip changed the text", a, b);
    free(a);
    free(b);
    return 0;
}
