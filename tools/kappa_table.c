/* kappa_table.c — reading long-form rating tables for kappa(1). */
#include "tools/kappa_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ERRORS 20

/* ---- string interning -------------------------------------------------- */

/* Equality of n bytes; short strings (most fields) without a library call or
 * a byte loop: two overlapping word compares, never reading outside the n bytes. */
static inline int same_bytes(const char *a, const char *b, size_t n)
{
    if (n >= 8) {
        if (n > 16) return memcmp(a, b, n) == 0;
        uint64_t x, y, u, v;
        memcpy(&x, a, 8); memcpy(&y, b, 8);
        memcpy(&u, a + n - 8, 8); memcpy(&v, b + n - 8, 8);
        return ((x ^ y) | (u ^ v)) == 0;
    }
    if (n >= 4) {
        uint32_t x, y, u, v;
        memcpy(&x, a, 4); memcpy(&y, b, 4);
        memcpy(&u, a + n - 4, 4); memcpy(&v, b + n - 4, 4);
        return ((x ^ y) | (u ^ v)) == 0;
    }
    return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

static uint64_t hash_bytes(const char *p, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) { h ^= (unsigned char)p[i]; h *= 0x100000001b3ULL; }
    h ^= h >> 29; h *= 0xbf58476d1ce4e5b9ULL; h ^= h >> 32;
    return h ? h : 1;   /* 0 marks strings kept out of the index */
}

static int grow(void **p, size_t elem, size_t need, size_t *cap)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) nc *= 2;
    void *q = realloc(*p, nc * elem);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* A slot holds the upper 32 bits of the hash and id + 1 (0: empty), so most
 * probes are decided without touching the strings. */
#define SLOT(h, id) (((h) & 0xffffffff00000000ULL) | (uint64_t)(uint32_t)((id) + 1))

static int strtab_rehash(struct kappa_strtab *s, size_t nslot)
{
    uint64_t *slot = calloc(nslot, sizeof *slot);
    if (!slot) return -1;
    for (int32_t id = 0; id < s->n; id++) {
        if (!s->hash[id]) continue;
        size_t i = s->hash[id] & (nslot - 1);
        while (slot[i]) i = (i + 1) & (nslot - 1);
        slot[i] = SLOT(s->hash[id], id);
    }
    free(s->slot);
    s->slot = slot;
    s->nslot = nslot;
    return 0;
}

int32_t kappa_strtab_find(const struct kappa_strtab *s, const char *p, size_t len)
{
    if (!s->nslot) return -1;
    uint64_t h = hash_bytes(p, len);
    uint64_t tag = h & 0xffffffff00000000ULL;
    for (size_t i = h & (s->nslot - 1);; i = (i + 1) & (s->nslot - 1)) {
        uint64_t e = s->slot[i];
        if (!e) return -1;
        if ((e & 0xffffffff00000000ULL) != tag) continue;
        int32_t id = (int32_t)(uint32_t)e - 1;
        if (s->len[id] == len && same_bytes(s->buf + s->off[id], p, len)) return id;
    }
}

/* Stores a new string; index it (hash != 0) or keep it out of the index. */
static int32_t strtab_add(struct kappa_strtab *s, const char *p, size_t len, uint64_t hash)
{
    int32_t id;
    if (len > UINT32_MAX || s->n == INT32_MAX - 1) return -1;
    if (hash && (size_t)(s->n + 1) * 2 > s->nslot &&
        strtab_rehash(s, s->nslot ? s->nslot * 2 : 64) < 0)
        return -1;
    if (s->n == s->cap) {
        int32_t nc = s->cap ? s->cap * 2 : 16;
        size_t *off = realloc(s->off, (size_t)nc * sizeof *off);
        if (!off) return -1;
        s->off = off;
        uint32_t *ln = realloc(s->len, (size_t)nc * sizeof *ln);
        if (!ln) return -1;
        s->len = ln;
        uint64_t *hs = realloc(s->hash, (size_t)nc * sizeof *hs);
        if (!hs) return -1;
        s->hash = hs;
        s->cap = nc;
    }
    if (grow((void **)&s->buf, 1, s->blen + len + 1, &s->bcap) < 0) return -1;
    memcpy(s->buf + s->blen, p, len);
    s->buf[s->blen + len] = 0;
    id = s->n++;
    s->off[id] = s->blen;
    s->len[id] = (uint32_t)len;
    s->hash[id] = hash;
    s->blen += len + 1;
    if (!hash) return id;
    size_t i = hash & (s->nslot - 1);
    while (s->slot[i]) i = (i + 1) & (s->nslot - 1);
    s->slot[i] = SLOT(hash, id);
    return id;
}

int32_t kappa_strtab_intern(struct kappa_strtab *s, const char *p, size_t len)
{
    int32_t id = kappa_strtab_find(s, p, len);
    if (id >= 0) return id;
    return strtab_add(s, p, len, hash_bytes(p, len));
}

const char *kappa_strtab_str(const struct kappa_strtab *s, int32_t id)
{
    return s->buf + s->off[id];
}

void kappa_strtab_free(struct kappa_strtab *s)
{
    free(s->buf); free(s->off); free(s->len); free(s->hash); free(s->slot);
    memset(s, 0, sizeof *s);
}

/* ---- numbers ------------------------------------------------------------ */

int kappa_parse_number(const char *s, size_t len, double *out)
{
    size_t i = 0, digits = 0;
    char buf[64];
    if (len == 0 || len >= sizeof buf) return 0;
    if (s[i] == '+' || s[i] == '-') i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') { i++; digits++; }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') { i++; digits++; }
    }
    if (!digits) return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = 0;
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') { i++; e++; }
        if (!e) return 0;
    }
    if (i != len) return 0;
    memcpy(buf, s, len);
    buf[len] = 0;
    errno = 0;
    double x = strtod(buf, NULL);   /* the C locale: kappa never calls setlocale */
    if (errno == ERANGE && (x > 1 || x < -1)) return 0;   /* overflow to inf */
    *out = x;
    return 1;
}

/* ---- the table ---------------------------------------------------------- */

kappa_table *kappa_table_new(const struct kappa_opts *o)
{
    kappa_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->multilabel = o->multilabel;
    t->dup = o->duplicates;
    if (o->by && *o->by) {
        const char *p = o->by;
        for (;;) {
            const char *e = strchr(p, ',');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            char **nb = realloc(t->by, (size_t)(t->nby + 1) * sizeof *nb);
            if (!nb) { kappa_table_free(t); return NULL; }
            t->by = nb;
            t->by[t->nby] = malloc(n + 1);
            if (!t->by[t->nby]) { kappa_table_free(t); return NULL; }
            memcpy(t->by[t->nby], p, n);
            t->by[t->nby][n] = 0;
            t->nby++;
            if (!e) break;
            p = e + 1;
        }
    }
    t->last_item = t->last_rater = t->last_crit = t->last_group = t->last_unit = -1;
    for (int i = 0; i < 64; i++) t->k_rater[i] = t->k_value[i] = t->k_crit[i] = t->k_group[i] = -1;
    t->c_by = calloc((size_t)(t->nby ? t->nby : 1), sizeof *t->c_by);
    if (!t->c_by) { kappa_table_free(t); return NULL; }
    return t;
}

void kappa_table_free(kappa_table *t)
{
    if (!t) return;
    for (int i = 0; i < t->nby; i++) free(t->by[i]);
    free(t->by); free(t->c_by); free(t->fields);
    kappa_strtab_free(&t->items); kappa_strtab_free(&t->raters);
    kappa_strtab_free(&t->values); kappa_strtab_free(&t->groups);
    kappa_strtab_free(&t->crits);
    free(t->vnum); free(t->visnum); free(t->vloc);
    free(t->u_group); free(t->u_item); free(t->u_crit); free(t->u_next); free(t->i_head); free(t->inum);
    free(t->cp_line); free(t->cp_row); free(t->crow); free(t->conf); free(t->xr);
    for (int i = 0; i < t->nfiles; i++) free(t->fname[i]);
    free(t->fname); free(t->fstart);
    free(t->cell); free(t->x_cell); free(t->x_value); free(t->seen);
    free(t);
}

static void perr(kappa_table *t, FILE *err, long line, long col, const char *fmt, ...)
{
    t->nerrors++;
    if (t->nerrors > MAX_ERRORS) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(err, "%s:%ld:%ld: error: ", t->fname[t->nfiles - 1], line, col);
    vfprintf(err, fmt, ap);
    fputc('\n', err);
    if (t->nerrors == MAX_ERRORS) fprintf(err, "kappa: too many errors, stopping\n");
    va_end(ap);
}

static int oom(kappa_table *t, FILE *err)
{
    t->nerrors = MAX_ERRORS + 1;
    fprintf(err, "kappa: out of memory\n");
    return -1;
}

/* Unit id of (group, item, criterion); -1 on allocation failure.  Units hang
 * off their item in a short list (an item has one unit per criterion and
 * group), so finding one costs no hash probe. */
static int32_t unit_intern(kappa_table *t, int32_t g, int32_t it, int32_t cr)
{
    if (it >= t->icap) {
        int32_t nc = t->icap ? t->icap : 64;
        while (nc <= it) nc *= 2;
        int32_t *h = realloc(t->i_head, (size_t)nc * sizeof *h);
        if (!h) return -1;
        for (int32_t i = t->icap; i < nc; i++) h[i] = -1;
        t->i_head = h;
        t->icap = nc;
    }
    for (int32_t u = t->i_head[it]; u >= 0; u = t->u_next[u])
        if (t->u_group[u] == g && t->u_crit[u] == cr) return u;
    if (t->nunits == t->ucap) {
        int32_t nc = t->ucap ? t->ucap * 2 : 64;
        int32_t *p;
        if (!(p = realloc(t->u_group, (size_t)nc * sizeof *p))) return -1;
        t->u_group = p;
        if (!(p = realloc(t->u_item, (size_t)nc * sizeof *p))) return -1;
        t->u_item = p;
        if (!(p = realloc(t->u_crit, (size_t)nc * sizeof *p))) return -1;
        t->u_crit = p;
        if (!(p = realloc(t->u_next, (size_t)nc * sizeof *p))) return -1;
        t->u_next = p;
        t->ucap = nc;
    }
    int32_t u = t->nunits++;
    t->u_group[u] = g; t->u_item[u] = it; t->u_crit[u] = cr;
    t->u_next[u] = t->i_head[it];
    t->i_head[it] = u;
    /* its row of cells, all unrated */
    if (u >= t->crcap) {
        int32_t nc = t->crcap ? t->crcap : 64;
        while (nc <= u) nc *= 2;
        size_t st = (size_t)(t->cstride ? t->cstride : 2);
        if ((size_t)nc > SIZE_MAX / sizeof(int32_t) / st) return -1;
        int32_t *c = realloc(t->cell, (size_t)nc * st * sizeof *c);
        if (!c) return -1;
        t->cell = c;
        c = realloc(t->crow, (size_t)nc * st * sizeof *c);
        if (!c) return -1;
        t->crow = c;
        t->crcap = nc;
        if (!t->cstride) t->cstride = 2;
    }
    for (int32_t i = 0; i < t->cstride; i++) t->cell[(size_t)u * (size_t)t->cstride + (size_t)i] = -1;
    return u;
}

/* Widens the rows of cells so that rater ra has a column; -1 on failure. */
static int cell_widen(kappa_table *t, int32_t ra)
{
    int32_t os = t->cstride, ns = os;
    while (ns <= ra) ns *= 2;
    size_t cap = (size_t)t->crcap, U = (size_t)t->nunits;
    if (ns > INT32_MAX / 2 || (size_t)ns > SIZE_MAX / sizeof(int32_t) / (cap ? cap : 1)) return -1;
    int32_t *c = malloc((cap ? cap : 1) * (size_t)ns * sizeof *c);
    int32_t *w = malloc((cap ? cap : 1) * (size_t)ns * sizeof *w);
    if (!c || !w) { free(c); free(w); return -1; }
    for (size_t u = 0; u < U; u++) {
        memcpy(c + u * (size_t)ns, t->cell + u * (size_t)os, (size_t)os * sizeof *c);
        memcpy(w + u * (size_t)ns, t->crow + u * (size_t)os, (size_t)os * sizeof *w);
        for (size_t i = (size_t)os; i < (size_t)ns; i++) c[u * (size_t)ns + i] = -1;
    }
    free(t->cell); free(t->crow);
    t->cell = c;
    t->crow = w;
    t->cstride = ns;
    return 0;
}

/* Folds one rating into its cell, in input order: the duplicate rules of
 * kappa(1); the reports wait for kappa_table_cells(). */
static int add_rating(kappa_table *t, int32_t u, int32_t ra, int32_t v, int32_t line)
{
    size_t r = t->nrows;
    if (ra >= t->cstride && cell_widen(t, ra) < 0) return -1;
    /* line of the row, kept as changepoints */
    if (t->ncp == 0 || r == t->fstart[t->nfiles - 1] ||
        (int64_t)line != (int64_t)t->cp_line[t->ncp - 1] + (int64_t)(r - t->cp_row[t->ncp - 1])) {
        if (t->ncp == t->cpcap) {
            size_t nc = t->cpcap ? t->cpcap * 2 : 16;
            int32_t *l = realloc(t->cp_line, nc * sizeof *l);
            if (!l) return -1;
            t->cp_line = l;
            size_t *w = realloc(t->cp_row, nc * sizeof *w);
            if (!w) return -1;
            t->cp_row = w;
            t->cpcap = nc;
        }
        t->cp_line[t->ncp] = line;
        t->cp_row[t->ncp] = r;
        t->ncp++;
    }
    size_t c = (size_t)u * (size_t)t->cstride + (size_t)ra;
    int32_t old = t->cell[c];
    if (old < 0) {
        t->cell[c] = v;
        t->crow[c] = (int32_t)r;
    } else if (old == v) {
        if (t->nsame++ == 0) { t->same_row = r; t->same_prev = (size_t)t->crow[c]; }
    } else if (t->multilabel) {
        if (grow((void **)&t->xr, sizeof *t->xr, t->nxr + 1, &t->xrcap) < 0) return -1;
        t->xr[t->nxr].unit = u;
        t->xr[t->nxr].rater = ra;
        t->xr[t->nxr].value = v;
        t->nxr++;
    } else if (t->dup == KAPPA_DUP_LAST) {
        t->cell[c] = v;
        t->crow[c] = (int32_t)r;
    } else if (t->dup == KAPPA_DUP_ERROR) {
        if (t->nconf < MAX_ERRORS) {
            if (!t->conf && !(t->conf = malloc(MAX_ERRORS * sizeof *t->conf))) return -1;
            t->conf[t->nconf_kept++] = (struct kappa_dupnote){ r, (size_t)t->crow[c], u, ra, v, old };
        }
        t->nconf++;
    }
    t->nrows++;
    return 0;
}

static int value_intern(kappa_table *t, const char *p, size_t len, struct kappa_loc loc)
{
    int32_t before = t->values.n;
    int32_t v = kappa_strtab_intern(&t->values, p, len);
    if (v < 0) return -1;
    if (v == before) {
        if (v >= t->vcap) {
            int32_t nc = t->vcap ? t->vcap * 2 : 16;
            double *d = realloc(t->vnum, (size_t)nc * sizeof *d);
            if (!d) return -1;
            t->vnum = d;
            unsigned char *c = realloc(t->visnum, (size_t)nc);
            if (!c) return -1;
            t->visnum = c;
            struct kappa_loc *l = realloc(t->vloc, (size_t)nc * sizeof *l);
            if (!l) return -1;
            t->vloc = l;
            t->vcap = nc;
        }
        t->vnum[v] = 0;
        t->visnum[v] = (unsigned char)kappa_parse_number(p, len, &t->vnum[v]);
        t->vloc[v] = loc;
    }
    return v;
}

int kappa_table_value(kappa_table *t, const char *s)
{
    struct kappa_loc none = { -1, 0, 0 };
    return value_intern(t, s, strlen(s), none);
}

static int find_col(char **f, const size_t *len, int n, const char *name)
{
    size_t l = strlen(name);
    for (int i = 0; i < n; i++)
        if (len[i] == l && f[i][0] == name[0] && same_bytes(f[i], name, l)) return i;
    return -1;
}

static int parse_header(kappa_table *t, char **f, size_t *flen, int n, long line, FILE *err)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (flen[i] == flen[j] && memcmp(f[i], f[j], flen[i]) == 0) {
                perr(t, err, line, (long)(f[j] - f[0]) + 1,
                     "column '%.*s' appears twice in the header", (int)flen[j], f[j]);
                return -1;
            }
    t->c_item = find_col(f, flen, n, "item");
    t->c_rater = find_col(f, flen, n, "rater");
    t->c_value = find_col(f, flen, n, "value");
    t->c_crit = find_col(f, flen, n, "criterion");
    t->c_note = find_col(f, flen, n, "note");
    const char *need[] = { "item", "rater", "value" };
    int have[] = { t->c_item, t->c_rater, t->c_value };
    for (int i = 0; i < 3; i++)
        if (have[i] < 0) {
            perr(t, err, line, 1, "header lacks the column '%s' (a rating table has "
                 "the columns item, criterion, rater, value [, note])", need[i]);
            return -1;
        }
    for (int i = 0; i < t->nby; i++) {
        t->c_by[i] = find_col(f, flen, n, t->by[i]);
        if (t->c_by[i] < 0) {
            perr(t, err, line, 1, "no column '%s' to group by (--by); the header names:",
                 t->by[i]);
            if (t->nerrors <= MAX_ERRORS) {
                for (int j = 0; j < n; j++) fprintf(err, " %.*s", (int)flen[j], f[j]);
                fputc('\n', err);
            }
            return -1;
        }
    }
    t->ncol = n;
    t->have_header = 1;
    t->header_line = (int)line;
    return 0;
}

/* Items that are small decimal integers (the usual case) are found through a
 * direct map instead of the hash index: no hashing, no cache-missing probe. */
#define ITEM_DIRECT_MAX (1u << 24)

static int32_t item_intern(kappa_table *t, const char *p, size_t len)
{
    uint32_t v = 0;
    int direct = len >= 1 && len <= 8 && (p[0] != '0' || len == 1);
    for (size_t i = 0; direct && i < len; i++) {
        if (p[i] < '0' || p[i] > '9') direct = 0;
        else v = v * 10 + (uint32_t)(p[i] - '0');
    }
    /* The map grows only in step with the number of items (memory stays linear
     * in the input); other numbers go through the hash index, and once one
     * has, new map entries check the index first so that no item gets two ids. */
    if (!direct || v >= ITEM_DIRECT_MAX ||
        (v >= t->inum_cap && (uint64_t)v > 16 * (uint64_t)t->items.n + 65536)) {
        if (direct) t->inum_hashed = 1;
        return kappa_strtab_intern(&t->items, p, len);
    }
    if (v >= t->inum_cap) {
        uint32_t nc = t->inum_cap ? t->inum_cap : 1024;
        while (nc <= v) nc *= 2;
        int32_t *m = realloc(t->inum, (size_t)nc * sizeof *m);
        if (!m) return -1;
        for (uint32_t i = t->inum_cap; i < nc; i++) m[i] = -1;
        t->inum = m;
        t->inum_cap = nc;
    }
    if (t->inum[v] < 0) {
        int32_t id = t->inum_hashed ? kappa_strtab_find(&t->items, p, len) : -1;
        t->inum[v] = id >= 0 ? id : strtab_add(&t->items, p, len, 0);
    }
    return t->inum[v];
}

/* Interning with a one-entry cache: long-form tables repeat the previous
 * row's item, criterion and group most of the time. */
static int32_t cached_intern(struct kappa_strtab *s, int32_t *last, const char *p, size_t len)
{
    if (*last >= 0 && s->len[*last] == len && same_bytes(s->buf + s->off[*last], p, len))
        return *last;
    *last = kappa_strtab_intern(s, p, len);
    return *last;
}

/* A 6-bit key of a short string, for the direct-mapped caches. */
static inline unsigned small_key(const char *p, size_t len)
{
    uint32_t h = (uint32_t)len * 0x9e3779b1u;
    if (len)
        h += (unsigned char)p[0] * 0x85ebca6bu + (unsigned char)p[len - 1] * 0xc2b2ae35u +
             (unsigned char)p[len / 2] * 0x27d4eb2fu;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    return h >> 26;
}

static inline int cache_hit(const struct kappa_strtab *s, int32_t id, const char *p, size_t len)
{
    return id >= 0 && s->len[id] == len && same_bytes(s->buf + s->off[id], p, len);
}

/* Interning through a 64-entry direct-mapped cache: raters, criteria and
 * values are few and recur in every few rows. */
static inline int32_t small_intern(struct kappa_strtab *s, int32_t *cache, const char *p, size_t len)
{
    unsigned k = small_key(p, len);
    int32_t id = cache[k];
    if (cache_hit(s, id, p, len)) return id;
    id = kappa_strtab_intern(s, p, len);
    cache[k] = id;
    return id;
}

/* One line without its newline; line is writable. */
static int parse_line(kappa_table *t, char *p, size_t len, long line, FILE *err)
{
    if (len && p[len - 1] == '\r') len--;
    if (len == 0 || p[0] == '#') return 0;
    /* split, in one pass that also finds NUL bytes (both are bytes <= '\t') */
    int n = 0, has_item = 0;
    size_t flen[64];
    char *fbuf[64];
    char **f = fbuf;
    const char *s = p, *end = p + len, *fs = p;
    for (;;) {
        /* to the next byte <= '\t', eight bytes at a time: a byte b has
         * ((b & 0x7f) + 0x76 | b) & 0x80 clear exactly when b <= 9 */
        while (end - s >= 8) {
            uint64_t w;
            memcpy(&w, s, 8);
            uint64_t m = ~(((w & 0x7f7f7f7f7f7f7f7fULL) + 0x7676767676767676ULL) | w) &
                         0x8080808080808080ULL;
            if (m) {
                /* the first such byte in memory order */
                const unsigned char *q = (const unsigned char *)s;
                while (*q > '\t') q++;
                s = (const char *)q;
                goto found;
            }
            s += 8;
        }
        while (s < end && (unsigned char)*s > '\t') s++;
    found:
        if (s < end && *s != '\t') {
            if (*s == 0) { perr(t, err, line, 1, "NUL byte in line"); return -1; }
            s++;
            continue;
        }
        if (n == 64) {
            if (memchr(s, 0, (size_t)(end - s))) perr(t, err, line, 1, "NUL byte in line");
            else perr(t, err, line, (long)(s - p) + 1, "more than 64 fields");
            return -1;
        }
        f[n] = (char *)fs;
        flen[n] = (size_t)(s - fs);
        has_item |= flen[n] == 4 && fs[0] == 'i' && fs[1] == 't' && fs[2] == 'e' && fs[3] == 'm';
        n++;
        if (s == end) break;
        fs = ++s;
    }
    int is_header = has_item &&
                    (!t->have_header ||
                     (find_col(f, flen, n, "rater") >= 0 && find_col(f, flen, n, "value") >= 0));
    if (is_header) {
        if (parse_header(t, f, flen, n, line, err) == 0) return 0;
        t->have_header = -1;   /* no cascade of errors from the rows below */
        return -1;
    }
    if (!t->have_header) {
        perr(t, err, line, 1, "missing header: a rating table starts with a line naming "
             "its columns, such as 'item<TAB>criterion<TAB>rater<TAB>value'");
        t->have_header = -1;   /* report once per stream */
        return -1;
    }
    if (t->have_header < 0) return -1;
    if (n != t->ncol && !(n == t->ncol - 1 && t->c_note == t->ncol - 1)) {
        perr(t, err, line, n > t->ncol ? (long)(f[t->ncol] - p) + 1 : (long)len + 1,
             "expected %d tab-separated fields (as the header at line %d), found %d",
             t->ncol, t->header_line, n);
        return -1;
    }
    int req[] = { t->c_item, t->c_rater, t->c_value };
    const char *rname[] = { "item", "rater", "value" };
    for (int i = 0; i < 3; i++)
        if (flen[req[i]] == 0) {
            perr(t, err, line, (long)(f[req[i]] - p) + 1, "empty %s field", rname[i]);
            return -1;
        }
    /* group */
    int32_t g;
    if (t->nby == 0) {
        g = cached_intern(&t->groups, &t->last_group, "all", 3);
    } else if (t->nby == 1) {
        g = small_intern(&t->groups, t->k_group, f[t->c_by[0]], flen[t->c_by[0]]);
    } else {
        char key[1024];
        size_t kl = 0;
        for (int i = 0; i < t->nby; i++) {
            size_t l = flen[t->c_by[i]];
            if (kl + l + 1 >= sizeof key) {
                perr(t, err, line, (long)(f[t->c_by[i]] - p) + 1, "group key too long");
                return -1;
            }
            if (i) key[kl++] = ',';
            memcpy(key + kl, f[t->c_by[i]], l);
            kl += l;
        }
        g = kappa_strtab_intern(&t->groups, key, kl);
    }
    int32_t cr = -1;
    int need_cr = t->c_crit >= 0;
    for (int i = 0; i < t->nby; i++)
        if (t->c_by[i] == t->c_crit) need_cr = 0;
    if (need_cr) cr = small_intern(&t->crits, t->k_crit, f[t->c_crit], flen[t->c_crit]);
    int32_t it = t->last_item;
    if (it < 0 || t->items.len[it] != flen[t->c_item] ||
        !same_bytes(t->items.buf + t->items.off[it], f[t->c_item], flen[t->c_item]))
        it = t->last_item = item_intern(t, f[t->c_item], flen[t->c_item]);
    int32_t ra = small_intern(&t->raters, t->k_rater, f[t->c_rater], flen[t->c_rater]);
    const char *vp = f[t->c_value];
    size_t vl = flen[t->c_value];
    unsigned vk = small_key(vp, vl);
    int32_t v = t->k_value[vk];
    if (!cache_hit(&t->values, v, vp, vl)) {
        struct kappa_loc loc = { t->nfiles - 1, (int32_t)line, (int32_t)(vp - p) + 1 };
        v = t->k_value[vk] = value_intern(t, vp, vl, loc);
    }
    if (g < 0 || it < 0 || ra < 0 || v < 0 || (need_cr && cr < 0))
        return oom(t, err);
    int32_t u = t->last_unit;
    if (u < 0 || t->u_group[u] != g || t->u_item[u] != it || t->u_crit[u] != cr) {
        u = unit_intern(t, g, it, cr);
        if (u < 0) return oom(t, err);
        t->last_unit = u;
    }
    if (t->nrows >= INT32_MAX) { perr(t, err, line, 1, "too many ratings"); return -1; }
    if (add_rating(t, u, ra, v, (int32_t)line) < 0) return oom(t, err);
    return 0;
}

static int begin_stream(kappa_table *t, const char *name, FILE *err)
{
    char **fn = realloc(t->fname, (size_t)(t->nfiles + 1) * sizeof *fn);
    if (!fn) return oom(t, err);
    t->fname = fn;
    size_t *fs = realloc(t->fstart, (size_t)(t->nfiles + 1) * sizeof *fs);
    if (!fs) return oom(t, err);
    t->fstart = fs;
    t->fname[t->nfiles] = strdup(name);
    if (!t->fname[t->nfiles]) return oom(t, err);
    t->fstart[t->nfiles] = t->nrows;
    t->nfiles++;
    t->have_header = 0;
    return 0;
}

static int end_stream(kappa_table *t, long lines, FILE *err)
{
    if (t->have_header == 0 && t->nerrors == 0 && lines >= 0) {
        /* an empty stream is fine; it simply adds nothing */
    }
    (void)err;
    return t->nerrors ? -1 : 0;
}

int kappa_table_read(kappa_table *t, FILE *in, const char *name, FILE *err)
{
    if (begin_stream(t, name, err) < 0) return -1;
    size_t cap = 1 << 20, have = 0;
    char *buf = malloc(cap);
    long ln = 0;
    int stop = 0;
    if (!buf) return oom(t, err);
    while (!stop) {
        size_t got = fread(buf + have, 1, cap - have, in);
        have += got;
        int eof = got == 0;
        size_t start = 0;
        for (;;) {
            char *nl = memchr(buf + start, '\n', have - start);
            size_t end = nl ? (size_t)(nl - buf) : have;
            if (!nl && !(eof && start < have)) break;
            ln++;
            parse_line(t, buf + start, end - start, ln, err);
            start = nl ? end + 1 : have;
            if (t->nerrors > MAX_ERRORS) { stop = 1; break; }
            if (ln >= INT32_MAX) { perr(t, err, ln, 1, "too many lines"); stop = 1; break; }
        }
        if (eof) break;
        memmove(buf, buf + start, have - start);
        have -= start;
        if (have == cap) {   /* a line longer than the buffer */
            char *nb = cap < ((size_t)1 << 30) ? realloc(buf, cap * 2) : NULL;
            if (!nb) { free(buf); return oom(t, err); }
            buf = nb;
            cap *= 2;
        }
    }
    int rd = ferror(in);
    free(buf);
    if (rd) {
        t->nerrors++;
        fprintf(err, "kappa: %s: read error\n", name);
    }
    return end_stream(t, ln, err);
}

int kappa_table_read_buffer(kappa_table *t, const char *data, size_t len,
                            const char *name, FILE *err)
{
    if (begin_stream(t, name, err) < 0) return -1;
    char *copy = malloc(len + 1);
    if (!copy) return oom(t, err);
    if (len) memcpy(copy, data, len);
    copy[len] = 0;
    long ln = 0;
    size_t i = 0;
    while (i < len) {
        char *nl = memchr(copy + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - copy) : len;
        ln++;
        parse_line(t, copy + i, e - i, ln, err);
        if (t->nerrors > MAX_ERRORS) break;
        i = e + 1;
    }
    free(copy);
    return end_stream(t, ln, err);
}

const char *kappa_row_file(const struct kappa_table *t, size_t r)
{
    int lo = 0, hi = t->nfiles - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (t->fstart[mid] <= r) lo = mid; else hi = mid - 1;
    }
    return t->fname[lo];
}

/* ---- cells -------------------------------------------------------------- */

struct xpair { size_t cell; int32_t value; };

static int cmp_x(const void *a, const void *b)
{
    const struct xpair *x = a, *y = b;
    if (x->cell != y->cell) return x->cell < y->cell ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

int32_t kappa_row_line(const struct kappa_table *t, size_t r)
{
    size_t lo = 0, hi = t->ncp - 1;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (t->cp_row[mid] <= r) lo = mid; else hi = mid - 1;
    }
    return (int32_t)(t->cp_line[lo] + (int64_t)(r - t->cp_row[lo]));
}

static void report_conflict(const struct kappa_table *t, const struct kappa_dupnote *d, FILE *err)
{
    int32_t u = d->unit;
    fprintf(err, "%s:%d:1: error: conflicting ratings of item '%s'",
            kappa_row_file(t, d->row), kappa_row_line(t, d->row),
            kappa_strtab_str(&t->items, t->u_item[u]));
    if (t->u_crit[u] >= 0)
        fprintf(err, ", criterion '%s'", kappa_strtab_str(&t->crits, t->u_crit[u]));
    fprintf(err, " by rater '%s': '%s' here, '%s' at %s:%d (choose one with "
            "--duplicates first|last, or use --multi-label for label sets)\n",
            kappa_strtab_str(&t->raters, d->rater),
            kappa_strtab_str(&t->values, d->v), kappa_strtab_str(&t->values, d->old),
            kappa_row_file(t, d->prev), kappa_row_line(t, d->prev));
}

int kappa_table_cells(struct kappa_table *t, int need_seen, FILE *err)
{
    size_t R = (size_t)t->raters.n, U = (size_t)t->nunits, S = (size_t)t->cstride;
    int rc = 0;
    if (U && R > SIZE_MAX / U / sizeof(int32_t)) { fprintf(err, "kappa: table too large\n"); return -1; }
    /* the duplicate reports, in input order */
    int same = t->nsame > 0 && !t->multilabel, ci = 0;
    while (ci < t->nconf_kept || same) {
        if (same && (ci == t->nconf_kept || t->same_row < t->conf[ci].row)) {
            fprintf(err, "%s:%d:1: warning: duplicate rating (same as line %d of %s); "
                    "counted once\n", kappa_row_file(t, t->same_row), kappa_row_line(t, t->same_row),
                    kappa_row_line(t, t->same_prev), kappa_row_file(t, t->same_prev));
            same = 0;
        } else {
            report_conflict(t, &t->conf[ci++], err);
        }
    }
    if (t->nconf) rc = -1;
    if (t->nsame > 1 && !t->multilabel)
        fprintf(err, "kappa: warning: %ld duplicate ratings with the same value, each counted once\n",
                t->nsame);
    /* rows of cells at stride R */
    if (S != R)
        for (size_t u = 0; u < U; u++)
            memmove(t->cell + u * R, t->cell + u * S, R * sizeof *t->cell);
    t->cstride = (int32_t)R;
    free(t->crow);
    t->crow = NULL;
    size_t nx = t->nxr;
    if (nx) {
        struct xpair *x = malloc(nx * sizeof *x);
        if (!x) { fprintf(err, "kappa: out of memory\n"); return -1; }
        for (size_t i = 0; i < nx; i++) {
            x[i].cell = (size_t)t->xr[i].unit * R + (size_t)t->xr[i].rater;
            x[i].value = t->xr[i].value;
        }
        qsort(x, nx, sizeof *x, cmp_x);
        size_t w = 0;
        for (size_t i = 0; i < nx; i++)
            if (w == 0 || x[i].cell != x[w - 1].cell || x[i].value != x[w - 1].value) x[w++] = x[i];
        nx = w;
        t->x_cell = malloc(nx * sizeof *t->x_cell);
        t->x_value = malloc(nx * sizeof *t->x_value);
        if (!t->x_cell || !t->x_value) { fprintf(err, "kappa: out of memory\n"); rc = -1; nx = 0; }
        for (size_t i = 0; i < nx; i++) { t->x_cell[i] = x[i].cell; t->x_value[i] = x[i].value; }
        t->nx = nx;
        free(x);
    }
    free(t->xr);
    t->xr = NULL;
    if (rc == 0 && need_seen) {
        size_t I = (size_t)t->items.n;
        t->seen = calloc((I * R + 7) / 8 + 1, 1);
        if (!t->seen) { fprintf(err, "kappa: out of memory\n"); return -1; }
        for (size_t u = 0; u < U; u++)
            for (size_t q = 0; q < R; q++)
                if (t->cell[u * R + q] >= 0) {
                    size_t b = (size_t)t->u_item[u] * R + q;
                    t->seen[b / 8] |= (unsigned char)(1u << (b % 8));
                }
    }
    return rc;
}
