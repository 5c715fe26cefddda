/* kappa_internal.h — the rating table's representation, shared by
 * kappa_table.c (reading) and kappa_run.c (statistics).  Not a public
 * contract: programs use kappa_core.h. */
#ifndef KAPPA_INTERNAL_H
#define KAPPA_INTERNAL_H

#include "tools/kappa_core.h"

#include <stddef.h>
#include <stdint.h>

/* String interning: each distinct string gets a dense id 0..n-1, in order of
 * first appearance; strings are stored NUL-terminated. */
struct kappa_strtab {
    char *buf;
    size_t blen, bcap;
    size_t *off;
    uint32_t *len;
    uint64_t *hash;
    int32_t n, cap;
    uint64_t *slot;  /* hash tag | id + 1; 0 = empty */
    size_t nslot;    /* power of two */
};

int32_t kappa_strtab_intern(struct kappa_strtab *s, const char *p, size_t len);
int32_t kappa_strtab_find(const struct kappa_strtab *s, const char *p, size_t len);
const char *kappa_strtab_str(const struct kappa_strtab *s, int32_t id);
void kappa_strtab_free(struct kappa_strtab *s);

struct kappa_loc { int32_t file, line, col; };   /* file -1: not from input */

struct kappa_table {
    /* reading options */
    char **by;          /* grouping columns */
    int nby;
    int multilabel, dup;

    /* the header of the stream being read */
    int have_header, ncol, header_line;
    int c_item, c_crit, c_rater, c_value, c_note;
    int *c_by;
    char **fields;      /* split buffer */
    int fcap;
    int32_t last_item, last_rater, last_crit, last_group, last_unit;   /* caches */

    struct kappa_strtab items, raters, values, groups, crits;
    double *vnum;               /* per value id: its number, if numeric */
    unsigned char *visnum;      /* per value id: 1 numeric, 0 label */
    struct kappa_loc *vloc;     /* per value id: first occurrence */
    int32_t vcap;

    /* units: (group, item, criterion) */
    int32_t *u_group, *u_item, *u_crit, *u_next;
    int32_t nunits, ucap;
    int32_t *i_head;            /* per item: its latest unit, -1 none */
    int32_t icap;
    int32_t *inum;              /* item number -> item id, for decimal items */
    uint32_t inum_cap;
    int inum_hashed;            /* some decimal item went through the hash index */

    /* rows in input order */
    int32_t *r_unit, *r_rater, *r_value, *r_line;
    size_t nrows, rcap;

    char **fname;
    size_t *fstart;             /* first row of each file */
    int nfiles;
    int nerrors;

    /* built by kappa_table_cells() */
    int32_t *cell;              /* nunits * nraters; value id or -1 */
    size_t *x_cell;             /* extra labels of multi-label cells, sorted */
    int32_t *x_value;
    size_t nx;
    unsigned char *seen;        /* items * raters bits, or NULL */
};

/* Builds cells from rows: duplicates, multi-label extras, the seen bitset.
 * Returns 0, or -1 after reporting conflicting duplicates on err. */
int kappa_table_cells(struct kappa_table *t, int need_seen, FILE *err);
/* Interns a value given on the command line (such as --missing); -1 on failure. */
int kappa_table_value(struct kappa_table *t, const char *s);
/* Location text "file:line" of row r. */
const char *kappa_row_file(const struct kappa_table *t, size_t r);
/* Parses a strict decimal number (no inf/nan/hex); returns 1 if it is one. */
int kappa_parse_number(const char *s, size_t len, double *out);

#endif
