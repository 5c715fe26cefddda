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

    /* small direct-mapped caches of recent strings (id or -1) */
    int32_t k_rater[64], k_value[64], k_crit[64], k_group[64];

    /* rows are not kept: each is folded into its cell as it is read */
    size_t nrows;
    int32_t *cp_line;           /* line changepoints: row cp_row[i] is at line cp_line[i], */
    size_t *cp_row;             /* the rows after it follow on consecutive lines */
    size_t ncp, cpcap;
    int32_t cstride, crcap;     /* cell row stride while reading (>= raters.n); units allotted */
    int32_t *crow;              /* per cell: the row that set it */
    struct kappa_dupnote { size_t row, prev; int32_t unit, rater, v, old; } *conf;
    int nconf_kept;             /* conflicting duplicates kept for the report (<= 20) */
    long nconf, nsame;          /* conflicting / same-value duplicates */
    size_t same_row, same_prev; /* the first same-value duplicate */
    struct kappa_xrow { int32_t unit, rater, value; } *xr;   /* multi-label extras */
    size_t nxr, xrcap;
    int cells_oom;

    char **fname;
    size_t *fstart;             /* first row of each file */
    int nfiles;
    int nerrors;

    /* filled while reading; kappa_table_cells() gives it the stride raters.n */
    int32_t *cell;              /* nunits * nraters; value id or -1 */
    size_t *x_cell;             /* extra labels of multi-label cells, sorted */
    int32_t *x_value;
    size_t nx;
    unsigned char *seen;        /* items * raters bits, or NULL */
};

/* Finishes the cells: reports duplicates, sorts multi-label extras, builds the seen bitset.
 * Returns 0, or -1 after reporting conflicting duplicates on err. */
int kappa_table_cells(struct kappa_table *t, int need_seen, FILE *err);
/* Interns a value given on the command line (such as --missing); -1 on failure. */
int kappa_table_value(struct kappa_table *t, const char *s);
/* File name of row r. */
const char *kappa_row_file(const struct kappa_table *t, size_t r);
/* Line of row r. */
int32_t kappa_row_line(const struct kappa_table *t, size_t r);
/* Parses a strict decimal number (no inf/nan/hex); returns 1 if it is one. */
int kappa_parse_number(const char *s, size_t len, double *out);

#endif
