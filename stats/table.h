/* stats/table.h — the rating table behind kappa(1): long-form ratings
 * (item, criterion, rater, value) read from any number of TSV streams.
 * This header is the whole contract of stats/table.c: reading (kappa.c,
 * the tests) and, below it, the table's representation, which stats/run.c
 * reads when it groups and pairs the ratings.  Errors are reported as
 * "file:line:col: error: message" on the stream given; nothing here exits.
 *
 * Memory is the cost that matters on big tables (every fresh page is a page
 * fault), so the table stores as little as the input allows: the cells
 * (unit x rater, one byte each while there are few distinct values), and
 * per-unit and per-item columns only once they stop following a pattern —
 * items 1, 2, 3, ... are not stored at all, nor the group and criterion of
 * units that all share one.  Rows are not kept: the input stays mapped (or
 * in memory), and the rare reports that need an earlier row find it there. */
#ifndef DIAGRAMIR_STATS_TABLE_H
#define DIAGRAMIR_STATS_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- reading ------------------------------------------------------------ */

typedef struct kappa_table kappa_table;

/* What to do with a second rating of the same cell. */
enum kappa_dup { KAPPA_DUP_ERROR, KAPPA_DUP_FIRST, KAPPA_DUP_LAST };

/* A table grouped by the comma-separated columns in by (NULL or "": none);
 * multilabel: the rows of an item and rater are its labels, each row one (a
 * label on two rows is listed twice: stats/run.c makes a set of them, or
 * counts instances); duplicates: enum kappa_dup.  NULL when out of memory. */
kappa_table *kappa_table_new(const char *by, int multilabel, int duplicates);
void kappa_table_free(kappa_table *t);
/* Reads one TSV stream; name is used in diagnostics.  Returns 0, or -1 after
 * printing the errors (at most a screenful).  A regular file is mapped; the
 * first one installs a SIGBUS handler, so that a file cut short while it is
 * mapped is an error, not a crash (other SIGBUS go to the handler before it). */
int kappa_table_read(kappa_table *t, FILE *in, const char *name, FILE *err);
/* The same for a buffer in memory (tests, fuzzing). */
int kappa_table_read_buffer(kappa_table *t, const char *data, size_t len,
                            const char *name, FILE *err);

/* ---- the representation (stats/table.c writes it, stats/run.c reads it) - */

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

/* Where the columns are in the rows of the current table. */
struct kappa_layout {
    int ncol;
    int c_item, c_crit, c_rater, c_value, c_note;
    int need_cr;        /* the criterion is part of the unit (not a --by column) */
};

/* One input stream, kept until the table is freed. */
struct kappa_stream {
    const char *data;
    size_t len;
    void *map;          /* mmap()ed region, or NULL when data is malloc()ed */
    size_t maplen;
    struct kappa_busmap *bus;   /* the mapping's watch for a file cut short (stats/table.c) */
};

struct kappa_table {
    /* reading options */
    char **by;          /* grouping columns */
    int nby;
    int multilabel, dup;

    /* the header of the stream being read */
    int have_header, header_line;
    struct kappa_layout lay;
    int *c_by;
    int quiet_errors;   /* a trial parse (see kappa_table_read): count errors, print none */
    int nheaders;       /* header lines read */

    /* small caches of recent strings (id or -1) */
    int32_t last_item, last_group, last_unit;
    int32_t last_ug, last_ui, last_uc;     /* the key of last_unit */
    const char *last_ip;        /* the last row's item field, in the retained input */
    size_t last_il;
    int32_t k_rater[64], k_value[64], k_crit[64], k_group[64];
    uint64_t last_ikey;         /* the last item, when it is short */
    uint64_t next_ikey;         /* the short key of item number next_inum (0: none), */
    uint32_t next_inum;         /* kept for the scanner while next_ikey_ok */
    int next_ikey_ok;
    int64_t cp_expect;          /* the line of the next row if no changepoint is needed */

    struct kappa_strtab raters, values, groups, crits;
    double *vnum;               /* per value id: its number, if numeric */
    unsigned char *visnum;      /* per value id: 1 numeric, 0 label */
    struct kappa_loc *vloc;     /* per value id: first occurrence */
    int32_t vcap;

    /* items: while i_affine, item id i is the decimal number i_base + i and
     * nothing is stored; otherwise every item is in the string table, and
     * small decimal items are found through a direct map */
    int32_t nitems;
    int i_affine;
    uint32_t i_base;
    struct kappa_strtab items;
    int32_t *inum;              /* item number -> item id + 1 (0: none) */
    uint32_t inum_cap;
    int inum_hashed;            /* some decimal item went through the hash index */

    /* units: (group, item, criterion).  While u_simple, unit u is the one
     * unit of item u and u_item, u_next, i_head are not stored.  u_group and
     * u_crit are NULL while every unit has ug_const and uc_const. */
    int32_t nunits, ucap;
    int u_simple;
    int32_t *u_item, *u_next, *i_head;
    int32_t icap;
    int32_t *u_group, *u_crit;
    int32_t ug_const, uc_const;

    /* cells: per unit a row of cstride cells (>= raters.n), each cw bytes
     * (1, 2 or 4) holding a value id; all bits set: unrated */
    unsigned char *cell;
    int cw;
    int32_t cmaxv;              /* the largest value id cells of width cw hold */
    int32_t cstride, crcap;

    /* rows are not kept: each is folded into its cell as it is read */
    size_t nrows;
    int32_t *cp_line;           /* line changepoints: row cp_row[i] is at line cp_line[i], */
    size_t *cp_row;             /* the rows after it follow on consecutive lines */
    size_t ncp, cpcap;
    /* duplicate reports; prev (the row that set the cell) is found at the end */
    struct kappa_dupnote { size_t row, prev; int32_t unit, rater, v, old; } *conf;
    int nconf_kept;             /* conflicting duplicates kept for the report (<= 20) */
    long nconf, nsame;          /* conflicting / same-value duplicates (not multi-label) */
    struct kappa_dupnote same;  /* the first same-value duplicate */
    /* multi-label extras: the rows of a cell after its first, a repeated label too */
    struct kappa_xrow { int32_t unit, rater, value; } *xr;
    size_t nxr, xrcap;

    char **fname;
    size_t *fstart;             /* first row of each file */
    struct kappa_stream *stream;   /* per file */
    int nfiles;
    int nerrors;

    /* after kappa_table_cells(): cells at stride raters.n */
    /* the extra labels of multi-label cells, sorted; a label listed again (the
     * cell's own too) is there again */
    size_t *x_cell;
    int32_t *x_value;
    size_t nx;
    unsigned char *seen;        /* items * raters bits, or NULL */
};

/* Value id in cell i (unit * stride + rater), or -1. */
static inline int32_t kappa_cell(const struct kappa_table *t, size_t i)
{
    if (t->cw == 1) { unsigned c = t->cell[i]; return c == 0xff ? -1 : (int32_t)c; }
    if (t->cw == 2) { unsigned c = ((const uint16_t *)(const void *)t->cell)[i]; return c == 0xffff ? -1 : (int32_t)c; }
    return ((const int32_t *)(const void *)t->cell)[i];
}
static inline int32_t kappa_unit_group(const struct kappa_table *t, int32_t u)
{
    return t->u_group ? t->u_group[u] : t->ug_const;
}
static inline int32_t kappa_unit_crit(const struct kappa_table *t, int32_t u)
{
    return t->u_crit ? t->u_crit[u] : t->uc_const;
}
static inline int32_t kappa_unit_item(const struct kappa_table *t, int32_t u)
{
    return t->u_simple ? u : t->u_item[u];
}

/* Finishes the cells: reports duplicates, sorts multi-label extras, builds the seen bitset.
 * Returns 0, or -1 after reporting conflicting duplicates on err. */
int kappa_table_cells(struct kappa_table *t, int need_seen, FILE *err);
/* Interns a value given on the command line (such as --missing); -1 on failure. */
int kappa_table_value(struct kappa_table *t, const char *s);
/* The name of item id; buf (16 bytes) may hold it. */
const char *kappa_item_str(const struct kappa_table *t, int32_t id, char buf[16]);
/* File name of row r. */
const char *kappa_row_file(const struct kappa_table *t, size_t r);
/* Line of row r. */
int32_t kappa_row_line(const struct kappa_table *t, size_t r);
/* Parses a strict decimal number (no inf/nan/hex); returns 1 if it is one. */
int kappa_parse_number(const char *s, size_t len, double *out);

#endif
