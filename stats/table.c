/* stats/table.c — reading long-form rating tables for kappa(1).
 *
 * The input is kept (mapped when it is a regular file, read into memory
 * otherwise), scanned for tabs and newlines 64 bytes at a time, and each row
 * is folded into its cell at once.  See stats/table.h for the table. */
#define _DEFAULT_SOURCE   /* MAP_POPULATE, where the system has it */
#include "stats/table.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

kappa_table *kappa_table_new(const char *by, int multilabel, int duplicates)
{
    kappa_table *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->multilabel = multilabel;
    t->dup = duplicates;
    if (by && *by) {
        const char *p = by;
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
    t->last_item = t->last_group = t->last_unit = -1;
    for (int i = 0; i < 64; i++) {
        t->k_rater[i] = t->k_value[i] = t->k_crit[i] = t->k_group[i] = -1;
    }
    t->cp_expect = -1;
    t->c_by = calloc((size_t)(t->nby ? t->nby : 1), sizeof *t->c_by);
    if (!t->c_by) { kappa_table_free(t); return NULL; }
    t->i_affine = 1;
    t->u_simple = 1;
    t->cw = 1;
    t->cmaxv = 0xfe;
    return t;
}

static void bus_unwatch(struct kappa_stream *s);

void kappa_table_free(kappa_table *t)
{
    if (!t) return;
    for (int i = 0; i < t->nby; i++) free(t->by[i]);
    free(t->by); free(t->c_by);
    kappa_strtab_free(&t->items); kappa_strtab_free(&t->raters);
    kappa_strtab_free(&t->values); kappa_strtab_free(&t->groups);
    kappa_strtab_free(&t->crits);
    free(t->vnum); free(t->visnum); free(t->vloc);
    free(t->u_group); free(t->u_item); free(t->u_crit); free(t->u_next); free(t->i_head); free(t->inum);
    free(t->cp_line); free(t->cp_row); free(t->conf); free(t->xr);
    for (int i = 0; i < t->nfiles; i++) {
        free(t->fname[i]);
        bus_unwatch(&t->stream[i]);
        if (t->stream[i].map) munmap(t->stream[i].map, t->stream[i].maplen);
        else free((void *)t->stream[i].data);
    }
    free(t->fname); free(t->fstart); free(t->stream);
    free(t->cell); free(t->x_cell); free(t->x_value); free(t->seen);
    free(t);
}

/* ---- mapped files cut short ------------------------------------------------ */

/* A mapped file that is cut short while kappa reads it (or while it still
 * needs its rows, for a report) would raise SIGBUS at the first page past its
 * new end.  The handler maps zero pages over the mapping from there on and
 * marks it; reading goes on over the zeros (which make no rows), and the
 * reader then reports that the file changed (exit 2) instead of the errors
 * the zeros cause. */
struct kappa_busmap {
    const char *lo, *hi;
    volatile sig_atomic_t changed;
    int reported;
    struct kappa_busmap *next;
};
static struct kappa_busmap *volatile bus_maps;   /* changed only while no thread reads */
static volatile sig_atomic_t bus_changed;
static struct sigaction bus_old;
static int bus_installed;
static uintptr_t bus_page;

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)ctx;
    const char *a = si->si_addr;
    for (struct kappa_busmap *m = bus_maps; m; m = m->next) {
        if (a < m->lo || a >= m->hi) continue;
        uintptr_t p = (uintptr_t)a & ~(bus_page - 1);
        if (mmap((void *)p, (size_t)((uintptr_t)m->hi - p), PROT_READ,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
            break;
        m->changed = 1;
        bus_changed = 1;
        return;   /* the read is done again, of a zero byte */
    }
    sigaction(SIGBUS, &bus_old, NULL);   /* not in an input: as it would have been */
}

/* Watches stream s's mapping; -1 if it cannot (then s is read instead). */
static int bus_watch(struct kappa_stream *s)
{
    struct kappa_busmap *m = calloc(1, sizeof *m);
    if (!m) return -1;
    if (!bus_installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_sigbus;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        bus_page = (uintptr_t)sysconf(_SC_PAGESIZE);
        if (bus_page == 0 || (bus_page & (bus_page - 1)) || sigaction(SIGBUS, &sa, &bus_old) != 0) {
            free(m);
            return -1;
        }
        bus_installed = 1;
    }
    m->lo = s->map;
    m->hi = (const char *)s->map + s->maplen;
    m->next = bus_maps;
    bus_maps = m;
    s->bus = m;
    return 0;
}

static void bus_unwatch(struct kappa_stream *s)
{
    if (!s->bus) return;
    for (struct kappa_busmap *volatile *p = &bus_maps; *p; p = &(*p)->next)
        if (*p == s->bus) {
            *p = s->bus->next;
            break;
        }
    free(s->bus);
    s->bus = NULL;
}

/* 1 (after reporting it once) if a mapped stream of t was cut short. */
static int streams_changed(kappa_table *t, FILE *err)
{
    int changed = 0;
    for (int i = 0; i < t->nfiles; i++) {
        struct kappa_busmap *m = t->stream[i].bus;
        if (!m || !m->changed) continue;
        changed = 1;
        if (!m->reported && err)
            fprintf(err, "kappa: %s: the file changed (it was cut short) while kappa read it\n",
                    t->fname[i]);
        m->reported = 1;
    }
    if (changed) t->nerrors++;
    return changed;
}

static void perr(kappa_table *t, FILE *err, long line, long col, const char *fmt, ...)
{
    t->nerrors++;
    if (t->nerrors > MAX_ERRORS || t->quiet_errors || bus_changed) return;
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
    if (!t->quiet_errors) fprintf(err, "kappa: out of memory\n");
    return -1;
}

/* ---- items --------------------------------------------------------------- */

/* Items that are small decimal integers (the usual case) are found through a
 * direct map instead of the hash index: no hashing, no cache-missing probe. */
#define ITEM_DIRECT_MAX (1u << 24)

/* A decimal number without leading zeros below ITEM_DIRECT_MAX. */
static inline int direct_num(const char *p, size_t len, uint32_t *out)
{
    if (len < 1 || len > 8 || (p[0] == '0' && len > 1)) return 0;
    uint32_t v = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)p[i] - '0';
        if (d > 9) return 0;
        v = v * 10 + d;
    }
    if (v >= ITEM_DIRECT_MAX) return 0;
    *out = v;
    return 1;
}

/* The stored form of the items: the string table, decimal items in the map. */
static int32_t item_intern_stored(kappa_table *t, const char *p, size_t len)
{
    uint32_t v;
    int direct = direct_num(p, len, &v);
    /* The map grows only in step with the number of items (memory stays linear
     * in the input); other numbers go through the hash index, and once one
     * has, new map entries check the index first so that no item gets two ids. */
    if (!direct || (v >= t->inum_cap && (uint64_t)v > 16 * (uint64_t)t->items.n + 65536)) {
        if (direct) t->inum_hashed = 1;
        return kappa_strtab_intern(&t->items, p, len);
    }
    if (v >= t->inum_cap) {
        uint32_t nc = t->inum_cap ? t->inum_cap : 1024;
        while (nc <= v) nc *= 2;
        int32_t *m = calloc(nc, sizeof *m);   /* untouched pages stay unmapped */
        if (!m) return -1;
        if (t->inum_cap) memcpy(m, t->inum, (size_t)t->inum_cap * sizeof *m);
        free(t->inum);
        t->inum = m;
        t->inum_cap = nc;
    }
    if (!t->inum[v]) {
        int32_t id = t->inum_hashed ? kappa_strtab_find(&t->items, p, len) : -1;
        if (id < 0) id = strtab_add(&t->items, p, len, 0);
        if (id < 0) return -1;
        t->inum[v] = id + 1;
    }
    return t->inum[v] - 1;
}

/* Leaves the affine form: every item goes into the string table. */
static int items_store(kappa_table *t)
{
    t->i_affine = 0;
    for (int32_t i = 0; i < t->nitems; i++) {
        char b[16];
        int l = snprintf(b, sizeof b, "%u", (unsigned)(t->i_base + (uint32_t)i));
        if (item_intern_stored(t, b, (size_t)l) != i) return -1;
    }
    return 0;
}

static int32_t item_intern(kappa_table *t, const char *p, size_t len)
{
    if (t->i_affine) {
        uint32_t v;
        if (direct_num(p, len, &v)) {
            if (t->nitems == 0) { t->i_base = v; return t->nitems++; }
            uint32_t d = v - t->i_base;
            if (d < (uint32_t)t->nitems) return (int32_t)d;
            if (d == (uint32_t)t->nitems) return t->nitems++;
        }
        if (items_store(t) < 0) return -1;
    }
    int32_t id = item_intern_stored(t, p, len);
    t->nitems = t->items.n;
    return id;
}

static int32_t item_find(const kappa_table *t, const char *p, size_t len)
{
    uint32_t v = 0;
    int direct = direct_num(p, len, &v);
    if (t->i_affine) {
        uint32_t d = v - t->i_base;
        return direct && d < (uint32_t)t->nitems ? (int32_t)d : -1;
    }
    if (direct && v < t->inum_cap && t->inum[v]) return t->inum[v] - 1;
    return kappa_strtab_find(&t->items, p, len);
}

const char *kappa_item_str(const struct kappa_table *t, int32_t id, char buf[16])
{
    if (!t->i_affine) return kappa_strtab_str(&t->items, id);
    snprintf(buf, 16, "%u", (unsigned)(t->i_base + (uint32_t)id));
    return buf;
}

/* ---- units and cells --------------------------------------------------- */

static int32_t cmax(int cw) { return cw == 1 ? 0xfe : cw == 2 ? 0xfffe : INT32_MAX; }

static inline void cell_set(kappa_table *t, size_t i, int32_t v)
{
    if (t->cw == 1) t->cell[i] = (unsigned char)v;
    else if (t->cw == 2) ((uint16_t *)(void *)t->cell)[i] = (uint16_t)v;
    else ((int32_t *)(void *)t->cell)[i] = v;
}

/* Re-lays the cells with stride ns and width nw (neither smaller). */
static int cells_reshape(kappa_table *t, int32_t ns, int nw)
{
    size_t cap = (size_t)(t->crcap ? t->crcap : 1), U = (size_t)t->nunits;
    if ((size_t)ns > SIZE_MAX / 4 / cap) return -1;
    unsigned char *c = malloc(cap * (size_t)ns * (size_t)nw);
    if (!c) return -1;
    if (nw == t->cw) {
        for (size_t u = 0; u < U; u++) {
            memcpy(c + u * (size_t)ns * (size_t)nw, t->cell + u * (size_t)t->cstride * (size_t)nw,
                   (size_t)t->cstride * (size_t)nw);
            memset(c + (u * (size_t)ns + (size_t)t->cstride) * (size_t)nw, 0xff,
                   (size_t)(ns - t->cstride) * (size_t)nw);
        }
    } else {
        kappa_table old = *t;
        t->cell = c; t->cw = nw;
        size_t S = (size_t)old.cstride;
        for (size_t u = 0; u < U; u++)
            for (size_t q = 0; q < (size_t)ns; q++)
                cell_set(t, u * (size_t)ns + q, q < S ? kappa_cell(&old, u * S + q) : -1);
        t->cell = old.cell;
    }
    free(t->cell);
    t->cell = c;
    t->cw = nw;
    t->cmaxv = cmax(nw);
    t->cstride = ns;
    return 0;
}

/* Gives up the implied per-unit columns (a unit of an item that has one). */
static int units_store(kappa_table *t)
{
    size_t cap = (size_t)(t->ucap ? t->ucap : 1);
    t->u_item = malloc(cap * sizeof *t->u_item);
    t->u_next = malloc(cap * sizeof *t->u_next);
    t->icap = t->nitems + 64;
    t->i_head = malloc((size_t)t->icap * sizeof *t->i_head);
    if (!t->u_item || !t->u_next || !t->i_head) return -1;
    for (int32_t u = 0; u < t->nunits; u++) { t->u_item[u] = u; t->u_next[u] = -1; }
    for (int32_t i = 0; i < t->icap; i++) t->i_head[i] = i < t->nunits ? i : -1;
    t->u_simple = 0;
    return 0;
}

/* Stores x as the value of unit u in a column that is constant until it is not. */
static int col_put(kappa_table *t, int32_t **col, int32_t *cnst, int32_t u, int32_t x)
{
    if (!*col) {
        if (u == 0) *cnst = x;
        if (x == *cnst) return 0;
        *col = malloc((size_t)(t->ucap ? t->ucap : 1) * sizeof **col);
        if (!*col) return -1;
        for (int32_t i = 0; i < u; i++) (*col)[i] = *cnst;
    }
    (*col)[u] = x;
    return 0;
}

static int grow_units(kappa_table *t)
{
    int32_t nc = t->ucap ? t->ucap * 2 : 64;
    if (t->ucap > INT32_MAX / 2) return -1;
    int32_t **cols[] = { &t->u_group, &t->u_crit, &t->u_item, &t->u_next };
    for (size_t i = 0; i < 4; i++) {
        if (!*cols[i]) continue;
        int32_t *p = realloc(*cols[i], (size_t)nc * sizeof *p);
        if (!p) return -1;
        *cols[i] = p;
    }
    t->ucap = nc;
    return 0;
}

static int32_t new_unit(kappa_table *t, int32_t g, int32_t it, int32_t cr)
{
    if (t->nunits == t->ucap && grow_units(t) < 0) return -1;
    int32_t u = t->nunits;
    if (col_put(t, &t->u_group, &t->ug_const, u, g) < 0 ||
        col_put(t, &t->u_crit, &t->uc_const, u, cr) < 0)
        return -1;
    if (!t->u_simple) {
        if (it >= t->icap) {
            int32_t nc = t->icap;
            while (nc <= it) nc *= 2;
            int32_t *h = realloc(t->i_head, (size_t)nc * sizeof *h);
            if (!h) return -1;
            for (int32_t i = t->icap; i < nc; i++) h[i] = -1;
            t->i_head = h;
            t->icap = nc;
        }
        t->u_item[u] = it;
        t->u_next[u] = t->i_head[it];
        t->i_head[it] = u;
    }
    /* its row of cells, all unrated */
    if (u >= t->crcap) {
        int32_t nc = t->crcap ? t->crcap : 64;
        while (nc <= u) nc *= 2;
        if (!t->cstride) t->cstride = 2;
        size_t st = (size_t)t->cstride * (size_t)t->cw;
        if ((size_t)nc > SIZE_MAX / st) return -1;
        unsigned char *c = realloc(t->cell, (size_t)nc * st);
        if (!c) return -1;
        t->cell = c;
        t->crcap = nc;
    }
    memset(t->cell + (size_t)u * (size_t)t->cstride * (size_t)t->cw, 0xff,
           (size_t)t->cstride * (size_t)t->cw);
    t->nunits++;
    return u;
}

/* Unit id of (group, item, criterion); -1 on allocation failure.  Units hang
 * off their item in a short list (an item has one unit per criterion and
 * group), so finding one costs no hash probe. */
static int32_t unit_intern(kappa_table *t, int32_t g, int32_t it, int32_t cr)
{
    if (t->u_simple) {
        if (it == t->nunits) return new_unit(t, g, it, cr);
        if (it < t->nunits && kappa_unit_group(t, it) == g && kappa_unit_crit(t, it) == cr) return it;
        if (units_store(t) < 0) return -1;
    }
    for (int32_t u = it < t->icap ? t->i_head[it] : -1; u >= 0; u = t->u_next[u])
        if (kappa_unit_group(t, u) == g && kappa_unit_crit(t, u) == cr) return u;
    return new_unit(t, g, it, cr);
}

static int32_t unit_find(const kappa_table *t, int32_t g, int32_t it, int32_t cr)
{
    if (it < 0) return -1;
    if (t->u_simple)
        return it < t->nunits && kappa_unit_group(t, it) == g && kappa_unit_crit(t, it) == cr ? it : -1;
    for (int32_t u = it < t->icap ? t->i_head[it] : -1; u >= 0; u = t->u_next[u])
        if (kappa_unit_group(t, u) == g && kappa_unit_crit(t, u) == cr) return u;
    return -1;
}

/* Folds one rating into its cell, in input order: the duplicate rules of
 * kappa(1); the reports wait for kappa_table_cells(). */
/* Room for one more line changepoint (cp_line and cp_row share cpcap). */
static int cp_grow(kappa_table *t)
{
    size_t nc = t->cpcap ? t->cpcap * 2 : 16;
    int32_t *l = realloc(t->cp_line, nc * sizeof *l);
    if (!l) return -1;
    t->cp_line = l;
    size_t *w = realloc(t->cp_row, nc * sizeof *w);
    if (!w) return -1;
    t->cp_row = w;
    t->cpcap = nc;
    return 0;
}

static int add_rating(kappa_table *t, int32_t u, int32_t ra, int32_t v, int32_t line)
{
    size_t r = t->nrows;
    if (ra >= t->cstride || v > t->cmaxv) {
        int32_t ns = t->cstride ? t->cstride : 2;
        while (ns <= ra) ns *= 2;
        int nw = t->cw;
        while (v > cmax(nw)) nw *= 2;
        if (ns > INT32_MAX / 2 || cells_reshape(t, ns, nw) < 0) return -1;
    }
    /* line of the row, kept as changepoints (the first row of each file is one) */
    if ((int64_t)line != t->cp_expect) {
        if (t->ncp == t->cpcap && cp_grow(t) < 0) return -1;
        t->cp_line[t->ncp] = line;
        t->cp_row[t->ncp] = r;
        t->ncp++;
    }
    t->cp_expect = (int64_t)line + 1;
    size_t c = (size_t)u * (size_t)t->cstride + (size_t)ra;
    int32_t old = kappa_cell(t, c);
    if (old < 0) {
        cell_set(t, c, v);
    } else if (t->multilabel) {   /* every row a label, one listed twice there twice */
        if (grow((void **)&t->xr, sizeof *t->xr, t->nxr + 1, &t->xrcap) < 0) return -1;
        t->xr[t->nxr].unit = u;
        t->xr[t->nxr].rater = ra;
        t->xr[t->nxr].value = v;
        t->nxr++;
    } else if (old == v) {
        if (t->nsame++ == 0) t->same = (struct kappa_dupnote){ r, 0, u, ra, v, old };
    } else if (t->dup == KAPPA_DUP_LAST) {
        cell_set(t, c, v);
    } else if (t->dup == KAPPA_DUP_ERROR) {
        if (t->nconf < MAX_ERRORS) {
            if (!t->conf && !(t->conf = malloc(MAX_ERRORS * sizeof *t->conf))) return -1;
            t->conf[t->nconf_kept++] = (struct kappa_dupnote){ r, 0, u, ra, v, old };
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

/* ---- lines and headers -------------------------------------------------- */

static int find_col(const char *const *f, const size_t *len, int n, const char *name)
{
    size_t l = strlen(name);
    for (int i = 0; i < n; i++)
        if (len[i] == l && f[i][0] == name[0] && same_bytes(f[i], name, l)) return i;
    return -1;
}

/* The layout a header names (it has item, rater and value; the --by columns
 * are checked by parse_header). */
static void layout_of(const kappa_table *t, const char *const *f, const size_t *flen, int n,
                      struct kappa_layout *lay, int *c_by)
{
    lay->ncol = n;
    lay->c_item = find_col(f, flen, n, "item");
    lay->c_rater = find_col(f, flen, n, "rater");
    lay->c_value = find_col(f, flen, n, "value");
    lay->c_crit = find_col(f, flen, n, "criterion");
    lay->c_note = find_col(f, flen, n, "note");
    for (int i = 0; i < t->nby; i++) c_by[i] = find_col(f, flen, n, t->by[i]);
    lay->need_cr = lay->c_crit >= 0;
    for (int i = 0; i < t->nby; i++)
        if (c_by[i] == lay->c_crit) lay->need_cr = 0;
}

static int parse_header(kappa_table *t, const char *const *f, const size_t *flen, int n,
                        long line, FILE *err)
{
    t->nheaders++;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (flen[i] == flen[j] && memcmp(f[i], f[j], flen[i]) == 0) {
                perr(t, err, line, (long)(f[j] - f[0]) + 1,
                     "column '%.*s' appears twice in the header", (int)flen[j], f[j]);
                return -1;
            }
    struct kappa_layout lay;
    layout_of(t, f, flen, n, &lay, t->c_by);
    const char *need[] = { "item", "rater", "value" };
    int have[] = { lay.c_item, lay.c_rater, lay.c_value };
    for (int i = 0; i < 3; i++)
        if (have[i] < 0) {
            perr(t, err, line, 1, "header lacks the column '%s' (a rating table has "
                 "the columns item, criterion, rater, value [, note])", need[i]);
            return -1;
        }
    for (int i = 0; i < t->nby; i++) {
        if (t->c_by[i] < 0) {
            perr(t, err, line, 1, "no column '%s' to group by (--by); the header names:",
                 t->by[i]);
            if (t->nerrors <= MAX_ERRORS && !t->quiet_errors) {
                for (int j = 0; j < n; j++) fprintf(err, " %.*s", (int)flen[j], f[j]);
                fputc('\n', err);
            }
            return -1;
        }
    }
    t->lay = lay;
    t->have_header = 1;
    t->header_line = (int)line;
    return 0;
}

/* Splits a line (without its newline and carriage return) at tabs.  Returns
 * the number of fields, or -1 after a NUL byte (*col = 1), -2 when there are
 * more than 64 fields (*col: where the 65th starts). */
static int split_fields(const char *p, size_t len, const char **f, size_t *flen, long *col)
{
    int n = 0;
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
            if (*s == 0) { *col = 1; return -1; }
            s++;
            continue;
        }
        if (n == 64) {
            if (memchr(s, 0, (size_t)(end - s))) { *col = 1; return -1; }
            *col = (long)(s - p) + 1;
            return -2;
        }
        f[n] = fs;
        flen[n] = (size_t)(s - fs);
        n++;
        if (s == end) break;
        fs = ++s;
    }
    return n;
}

/* Raters, criteria, groups and values are few and recur every few rows:
 * each column has a cache of the ids of its 64 recent strings, slotted by
 * their length and first, middle and last bytes, which saves hashing every
 * byte of the field for the string table. */
static inline unsigned recent_slot(const char *p, size_t len)
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

/* The id of p in s if the cache has it, else -1. */
static inline int32_t recent_find(const struct kappa_strtab *s, const int32_t *cache,
                                  const char *p, size_t len)
{
    int32_t id = cache[recent_slot(p, len)];
    return cache_hit(s, id, p, len) ? id : -1;
}

/* kappa_strtab_intern through the cache. */
static inline int32_t recent_intern(struct kappa_strtab *s, int32_t *cache, const char *p, size_t len)
{
    unsigned k = recent_slot(p, len);
    int32_t id = cache[k];
    if (cache_hit(s, id, p, len)) return id;
    id = kappa_strtab_intern(s, p, len);
    cache[k] = id;
    return id;
}

/* The bytes of a string of at most 8 bytes as a little-endian number, read
 * without going past its end.  Fields hold no NUL bytes, so the number is
 * the string: a key. */
static inline uint64_t short_key(const char *p, size_t len)
{
    if (len >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + len - 4, 4);
        return a | (uint64_t)b << ((len - 4) * 8);
    }
    if (len == 0) return 0;
    return (unsigned char)p[0] | (uint64_t)(unsigned char)p[len / 2] << (len / 2 * 8) |
           (uint64_t)(unsigned char)p[len - 1] << ((len - 1) * 8);
}

static inline int is_item(const char *f, size_t len)
{
    return len == 4 && f[0] == 'i' && f[1] == 't' && f[2] == 'e' && f[3] == 'm';
}

/* The group key of a row with several --by columns, in key[1024]; -1 if too long. */
static long group_key(const kappa_table *t, const int *c_by, const char *const *f,
                      const size_t *flen, char *key, size_t *kl)
{
    *kl = 0;
    for (int i = 0; i < t->nby; i++) {
        size_t l = flen[c_by[i]];
        if (*kl + l + 1 >= 1024) return c_by[i];
        if (i) key[(*kl)++] = ',';
        memcpy(key + *kl, f[c_by[i]], l);
        *kl += l;
    }
    return -1;
}

/* One split line (p, len: the line without its newline and carriage return). */
static int parse_fields(kappa_table *t, const char *p, size_t len, const char **f,
                        size_t *flen, int n, long line, FILE *err)
{
    int has_item = 0;
    for (int i = 0; i < n; i++) has_item |= is_item(f[i], flen[i]);
    if (has_item &&
        (!t->have_header ||
         (find_col(f, flen, n, "rater") >= 0 && find_col(f, flen, n, "value") >= 0))) {
        if (parse_header(t, f, flen, n, line, err) == 0) return 0;
        t->have_header = -1;   /* no cascade of errors from the rows below */
        return -1;
    }
    if (t->have_header <= 0) {
        if (t->have_header < 0) return -1;
        perr(t, err, line, 1, "missing header: a rating table starts with a line naming "
             "its columns, such as 'item<TAB>criterion<TAB>rater<TAB>value'");
        t->have_header = -1;   /* report once per stream */
        return -1;
    }
    const struct kappa_layout *L = &t->lay;
    if (n != L->ncol && !(n == L->ncol - 1 && L->c_note == L->ncol - 1)) {
        perr(t, err, line, n > L->ncol ? (long)(f[L->ncol] - p) + 1 : (long)len + 1,
             "expected %d tab-separated fields (as the header at line %d), found %d",
             L->ncol, t->header_line, n);
        return -1;
    }
    if (n < L->ncol) {   /* the note left out: an empty note (it may be a --by column) */
        f[n] = p + len;
        flen[n] = 0;
    }
    if (!flen[L->c_item] || !flen[L->c_rater] || !flen[L->c_value]) {
        int req[] = { L->c_item, L->c_rater, L->c_value };
        const char *rname[] = { "item", "rater", "value" };
        for (int i = 0; i < 3; i++)
            if (flen[req[i]] == 0) {
                perr(t, err, line, (long)(f[req[i]] - p) + 1, "empty %s field", rname[i]);
                return -1;
            }
    }
    /* group */
    int32_t g;
    if (t->nby == 0) {
        g = t->last_group;
        if (g < 0) g = t->last_group = kappa_strtab_intern(&t->groups, "all", 3);
    } else if (t->nby == 1) {
        g = recent_intern(&t->groups, t->k_group, f[t->c_by[0]], flen[t->c_by[0]]);
    } else {
        char key[1024];
        size_t kl;
        long bad = group_key(t, t->c_by, f, flen, key, &kl);
        if (bad >= 0) {
            perr(t, err, line, (long)(f[bad] - p) + 1, "group key too long");
            return -1;
        }
        g = kappa_strtab_intern(&t->groups, key, kl);
    }
    int32_t cr = -1;
    if (L->need_cr) cr = recent_intern(&t->crits, t->k_crit, f[L->c_crit], flen[L->c_crit]);
    const char *ip = f[L->c_item];
    size_t il = flen[L->c_item];
    int32_t it = t->last_item;
    uint64_t ik = il <= 8 ? short_key(ip, il) : 0;
    if (it < 0 || il != t->last_il || ik != t->last_ikey || (il > 8 && !same_bytes(ip, t->last_ip, il))) {
        it = t->last_item = item_intern(t, ip, il);
        t->last_ip = ip;
        t->last_il = il;
        t->last_ikey = ik;
    }
    int32_t ra = recent_intern(&t->raters, t->k_rater, f[L->c_rater], flen[L->c_rater]);
    const char *vp = f[L->c_value];
    size_t vl = flen[L->c_value];
    unsigned vk = recent_slot(vp, vl);
    int32_t v = t->k_value[vk];
    if (!cache_hit(&t->values, v, vp, vl)) {   /* value_intern, through the cache */
        struct kappa_loc loc = { t->nfiles - 1, (int32_t)line, (int32_t)(vp - p) + 1 };
        v = t->k_value[vk] = value_intern(t, vp, vl, loc);
    }
    if (g < 0 || it < 0 || ra < 0 || v < 0 || (L->need_cr && cr < 0)) {
        t->last_item = -1;
        return oom(t, err);
    }
    int32_t u = t->last_unit;
    if (u < 0 || t->last_ug != g || t->last_ui != it || t->last_uc != cr) {
        u = unit_intern(t, g, it, cr);
        if (u < 0) return oom(t, err);
        t->last_unit = u;
        t->last_ug = g; t->last_ui = it; t->last_uc = cr;
    }
    if (t->nrows >= INT32_MAX) { perr(t, err, line, 1, "too many ratings"); return -1; }
    if (add_rating(t, u, ra, v, (int32_t)line) < 0) return oom(t, err);
    return 0;
}

/* One line without its newline (the slow path: any line). */
static int parse_line(kappa_table *t, const char *p, size_t len, long line, FILE *err)
{
    if (len && p[len - 1] == '\r') len--;
    if (len == 0 || p[0] == '#') return 0;
    const char *f[64];
    size_t flen[64];
    long col;
    int n = split_fields(p, len, f, flen, &col);
    if (n == -1) { perr(t, err, line, col, "NUL byte in line"); return -1; }
    if (n == -2) { perr(t, err, line, col, "more than 64 fields"); return -1; }
    return parse_fields(t, p, len, f, flen, n, line, err);
}

/* ---- scanning ------------------------------------------------------------ */

/* Bit i set: byte p[i] is <= '\r' (tab, newline, carriage return, NUL and a
 * few other control bytes the scanner skips). */
static inline uint64_t special64(const char *p)
{
#if defined(__SSE2__)
    const __m128i lim = _mm_set1_epi8(13);
    uint64_t m = 0;
    for (int i = 0; i < 4; i++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        __m128i s = _mm_cmpeq_epi8(_mm_min_epu8(x, lim), x);
        m |= (uint64_t)(uint32_t)_mm_movemask_epi8(s) << (16 * i);
    }
    return m;
#else
    uint64_t m = 0;
    for (int i = 0; i < 64; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        /* high bit of a byte b: b <= 13 */
        uint64_t h = ~(((w & 0x7f7f7f7f7f7f7f7fULL) + 0x7272727272727272ULL) | w) &
                     0x8080808080808080ULL;
        if (h)
            for (int j = 0; j < 8; j++)
                if ((unsigned char)p[i + j] <= 13) m |= (uint64_t)1 << (i + j);
    }
    return m;
#endif
}

static inline uint64_t special_tail(const char *p, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] <= 13) m |= (uint64_t)1 << i;
    return m;
}

/* The table state the common row reads and changes, held in locals while
 * scanning: a byte stored to a cell may alias any field of the table, not a
 * local, so the compiler keeps these in registers. */
struct hot {
    int ok;                          /* the fast path may be tried */
    int ncol, ci, cra, cv, cc, cg;   /* columns; cc, cg: -1 none */
    int nother, other[64];           /* the columns not looked up (they may say item) */
    int32_t g_all;
    unsigned char *cell;
    size_t cstride;
    int cw;
    int32_t cmaxv;
    size_t nrows;
    int64_t cp_expect;
    int32_t last_item, last_unit, last_ug, last_ui, last_uc;
    size_t last_il;
    uint64_t last_ikey;
    const char *last_ip;
    int grow;                        /* new items i_base + nitems, each its own unit */
    uint64_t next_ikey;              /* while grow: the short key of item i_base + nitems, if
                                      * direct_num would take it; else 0 (no item's key) */
    int32_t nitems, nunits, ulim;    /* ulim: units that fit without growing */
    uint32_t i_base;
    int32_t ug, uc;
};

static uint64_t num_key(uint32_t v);

static void hot_load(kappa_table *t, struct hot *h)
{
    const struct kappa_layout *L = &t->lay;
    h->ok = t->have_header == 1 && t->nby <= 1 && t->cstride > 0 && (t->nby == 1 || t->last_group >= 0);
    h->ncol = L->ncol;
    h->ci = L->c_item;
    h->cra = L->c_rater;
    h->cv = L->c_value;
    h->cc = L->need_cr ? L->c_crit : -1;
    h->cg = t->nby == 1 ? t->c_by[0] : -1;
    h->nother = 0;
    if (h->ok)
        for (int i = 0; i < L->ncol; i++)
            if (i != h->ci && i != h->cra && i != h->cv && i != h->cc && i != h->cg)
                h->other[h->nother++] = i;
    h->g_all = t->last_group;
    h->cell = t->cell;
    h->cstride = (size_t)t->cstride;
    h->cw = t->cw;
    h->cmaxv = t->cmaxv;
    h->nrows = t->nrows;
    h->cp_expect = t->cp_expect;
    h->last_item = t->last_item;
    h->last_unit = t->last_unit;
    h->last_ug = t->last_ug;
    h->last_ui = t->last_ui;
    h->last_uc = t->last_uc;
    h->last_il = t->last_il;
    h->last_ikey = t->last_ikey;
    h->last_ip = t->last_ip;
    h->grow = t->i_affine && t->u_simple && !t->u_group && !t->u_crit && t->nitems > 0 &&
              t->nunits == t->nitems;
    h->nitems = t->nitems;
    h->nunits = t->nunits;
    h->ulim = t->ucap < t->crcap ? t->ucap : t->crcap;
    h->next_ikey = 0;
    if (h->grow) {
        uint32_t next = t->i_base + (uint32_t)t->nitems;
        if (!t->next_ikey_ok || t->next_inum != next) {
            t->next_ikey = num_key(next);
            t->next_inum = next;
            t->next_ikey_ok = 1;
        }
        h->next_ikey = t->next_ikey;
    }
    h->i_base = t->i_base;
    h->ug = t->ug_const;
    h->uc = t->uc_const;
}

static void hot_store(kappa_table *t, const struct hot *h)
{
    t->nrows = h->nrows;
    t->cp_expect = h->cp_expect;
    t->last_item = h->last_item;
    t->last_unit = h->last_unit;
    t->last_ug = h->last_ug;
    t->last_ui = h->last_ui;
    t->last_uc = h->last_uc;
    t->last_il = h->last_il;
    t->last_ikey = h->last_ikey;
    t->last_ip = h->last_ip;
    t->nitems = h->nitems;
    t->nunits = h->nunits;
    if (h->grow) {
        t->next_ikey = h->next_ikey;
        t->next_inum = h->i_base + (uint32_t)h->nitems;
        t->next_ikey_ok = 1;
    }
}

/* short_key(p, len), 0 <= len <= 8, with one load: 8 bytes must be there. */
static inline uint64_t load_key(const char *p, size_t len)
{
    static const uint64_t mask[9] = {
        0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffULL, 0xffffffffffffULL,
        0xffffffffffffffULL, ~(uint64_t)0
    };
    uint64_t w;
    memcpy(&w, p, 8);
    return w & mask[len];
}

#define ITEM_KEY 0x6d657469u   /* "item" */

/* The short key of the decimal form of v if direct_num would take it (v
 * below ITEM_DIRECT_MAX), else 0, the key of no item. */
static uint64_t num_key(uint32_t v)
{
    if (v >= ITEM_DIRECT_MAX) return 0;
    char b[16];
    int l = snprintf(b, sizeof b, "%u", (unsigned)v);
    return short_key(b, (size_t)l);
}

/* num_key(v + 1) from k = num_key(v) != 0 (len digits), v + 1 <
 * ITEM_DIRECT_MAX: the decimal digits counted up by one (the last digit is
 * the highest byte). */
static inline uint64_t key_next(uint64_t k, size_t len)
{
    int i = (int)len - 1;   /* the last digit */
    if (((k >> (8 * i)) & 0xff) != '9') return k + ((uint64_t)1 << (8 * i));
    while (i >= 0 && ((k >> (8 * i)) & 0xff) == '9') {
        k -= (uint64_t)('9' - '0') << (8 * i);
        i--;
    }
    if (i >= 0) return k + ((uint64_t)1 << (8 * i));
    return (k << 8) | '1';   /* 9..9 + 1: a digit more (at most 8: v + 1 < 2^24) */
}

/* The item and the cell of a common row whose group, criterion, rater and
 * value are id[0..3]: the item of the row before (or the next of i_base,
 * i_base + 1, ... in a table of one unit per item), a cell not rated yet, the
 * line after the last row's.  The item is ip, il bytes (1 to 8), ik its short
 * key; at least 8 bytes follow it.  Returns 0 when it cannot decide (then
 * nothing is changed: a new item's cells are all unrated).  With known set,
 * the caller has made sure of what a known tail implies (see tail_rows):
 * rater and value ids >= 0, the line, the number of rows. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int fast_commit(struct hot *h, const char *ip, size_t il, uint64_t ik,
                              const int32_t *id, long line, int known)
{
    int32_t g = id[0], cr = id[1], ra = id[2], v = id[3];
    if (!known && ((int64_t)line != h->cp_expect || ra < 0 || v < 0 || h->nrows >= INT32_MAX))
        return 0;
    if (ik == ITEM_KEY || (size_t)ra >= h->cstride || v > h->cmaxv) return 0;
    int32_t u;
    if (ik == h->last_ikey && h->last_item >= 0) {
        if (h->last_unit < 0 || h->last_ug != g || h->last_ui != h->last_item || h->last_uc != cr)
            return 0;
        u = h->last_unit;
    } else {
        /* ik == next_ikey: the item is i_base + nitems, as direct_num reads it */
        if (!h->grow || ik != h->next_ikey || h->nunits >= h->ulim || g != h->ug || cr != h->uc)
            return 0;
        /* a new item and its unit, with a row of unrated cells */
        u = h->nunits++;
        h->last_item = h->nitems++;
        h->next_ikey = h->i_base + (uint32_t)h->nitems < ITEM_DIRECT_MAX ? key_next(ik, il) : 0;
        h->last_ip = ip;
        h->last_il = il;
        h->last_ikey = ik;
        h->last_unit = u;
        h->last_ug = g;
        h->last_ui = h->last_item;
        h->last_uc = cr;
        unsigned char *row = h->cell + (size_t)u * h->cstride * (size_t)h->cw;
        if (h->cstride * (size_t)h->cw == 2) { row[0] = 0xff; row[1] = 0xff; }
        else memset(row, 0xff, h->cstride * (size_t)h->cw);
    }
    size_t c = (size_t)u * h->cstride + (size_t)ra;
    if (h->cw == 1) {
        if (h->cell[c] != 0xff) return 0;
        h->cell[c] = (unsigned char)v;
    } else if (h->cw == 2) {
        uint16_t *w = (uint16_t *)(void *)h->cell;
        if (w[c] != 0xffff) return 0;
        w[c] = (uint16_t)v;
    } else {
        int32_t *w = (int32_t *)(void *)h->cell;
        if (w[c] >= 0) return 0;
        w[c] = v;
    }
    h->nrows++;
    h->cp_expect = (int64_t)line + 1;
    return 1;
}

/* The common row, decided from the caches alone: the columns of the header,
 * no field named item, short strings seen before, and fast_commit's item and
 * cell.  Field i is st[i] .. st[i + 1] - 1; at least 8 bytes follow the line.
 * Returns 0 when it cannot decide; parse_fields then does the row.  On
 * success ids[] holds the row's group, criterion, rater and value (ids >= 0). */
static inline int fast_row(const kappa_table *t, struct hot *h, const char *const *st, int nf,
                           long line, int32_t ids[4])
{
#define FLEN(i) ((size_t)(st[(i) + 1] - st[i] - 1))
    if (nf != h->ncol || (int64_t)line != h->cp_expect) return 0;
    for (int i = 0; i < h->nother; i++)
        if (is_item(st[h->other[i]], FLEN(h->other[i]))) return 0;
    size_t il = FLEN(h->ci), rl = FLEN(h->cra), vl = FLEN(h->cv);
    if (il - 1 > 7 || rl - 1 > 7 || vl - 1 > 7) return 0;   /* also empty fields */
    uint64_t ik = load_key(st[h->ci], il);
    if (ik == ITEM_KEY || is_item(st[h->cra], rl) || is_item(st[h->cv], vl)) return 0;
    int32_t g = h->g_all, cr = -1;
    if (h->cg >= 0) {
        size_t gl = FLEN(h->cg);
        if (is_item(st[h->cg], gl) || (g = recent_find(&t->groups, t->k_group, st[h->cg], gl)) < 0)
            return 0;
    }
    if (h->cc >= 0) {
        size_t cl = FLEN(h->cc);
        if (is_item(st[h->cc], cl) || (cr = recent_find(&t->crits, t->k_crit, st[h->cc], cl)) < 0)
            return 0;
    }
    ids[0] = g;
    ids[1] = cr;
    ids[2] = recent_find(&t->raters, t->k_rater, st[h->cra], rl);
    ids[3] = recent_find(&t->values, t->k_value, st[h->cv], vl);
    return fast_commit(h, st[h->ci], il, ik, ids, line, 0);
#undef FLEN
}

/* Rows whose item is the first field are recognised by the rest of the line
 * (the tail: from after the item's tab to the newline): a table of tails
 * fast_row has done holds their group, criterion, rater and value, and a row
 * with a known tail is only its item and its cell.  A tail holds no NUL
 * byte, so its bytes padded with zeros are its key. */
#define TAIL_MAX 24
#define TAIL_SLOTS 256
#define TAIL_BATCH 1024
struct tail {
    uint64_t k[3];
    uint32_t len;                   /* 0: empty */
    int32_t id[4];                  /* group, criterion, rater, value */
};

/* The key of the tail p[0..len), 2 <= len <= TAIL_MAX (24 bytes must be
 * there): the tail zero-padded when it is short, else the words that cover
 * it (the first 8 bytes and the last 8, and 8 in the middle when that leaves
 * a gap; else 0).  Two tails of one length are the same when their keys are.
 * Returns the slot. */
static inline unsigned tail_key(const char *p, size_t len, uint64_t k[3])
{
    if (len >= 8) {
        memcpy(&k[0], p, 8);
        memcpy(&k[2], p + len - 8, 8);
        k[1] = 0;
        if (len > 16) memcpy(&k[1], p + (len - 8) / 2, 8);
    } else {
        k[0] = load_key(p, len);
        k[1] = k[2] = 0;
    }
    uint64_t x = (k[0] ^ (k[2] * 0x9e3779b97f4a7c15ULL) ^ len) * 0xbf58476d1ce4e5b9ULL;
    return (unsigned)(x >> 56);     /* TAIL_SLOTS */
}

/* Bit i set: byte p[i] (i < 16) is <= '\r' (as special64). */
static inline uint32_t special16(const char *p)
{
#if defined(__SSE2__)
    const __m128i lim = _mm_set1_epi8(13);
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(x, lim), x));
#else
    return (uint32_t)special64(p) & 0xffff;
#endif
}

/* Bit i set: byte p[i] is a newline (i < 64). */
static inline uint64_t newline64(const char *p)
{
#if defined(__SSE2__)
    const __m128i nl = _mm_set1_epi8('\n');
    uint64_t m = 0;
    for (int i = 0; i < 4; i++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        m |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, nl)) << (16 * i);
    }
    return m;
#else
    uint64_t m = 0;
    for (int i = 0; i < 64; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        w ^= 0x0a0a0a0a0a0a0a0aULL;   /* newlines become zero bytes */
        uint64_t z = ~(((w & 0x7f7f7f7f7f7f7f7fULL) + 0x7f7f7f7f7f7f7f7fULL) | w) &
                     0x8080808080808080ULL;
        for (; z; z &= z - 1) m |= (uint64_t)1 << (i + __builtin_ctzll(z) / 8);
    }
    return m;
#endif
}

/* The known tail of the line at ls (its newline at q, at least 64 bytes
 * readable from ls), or NULL; *ap: the length of the item before it. */
static inline const struct tail *tail_of(const struct tail *tail, const char *ls, const char *q,
                                         unsigned *ap)
{
    unsigned a = (unsigned)__builtin_ctz(special16(ls) | 0x10000);
    if (a - 1 > 7 || ls[a] != '\t' || *ls == '#') return NULL;   /* an item of 1 to 8 bytes */
    size_t tl = (size_t)(q - ls) - a;   /* the tail: ls + a + 1 .. q */
    if (tl > TAIL_MAX) return NULL;
    uint64_t k[3];
    const struct tail *x = &tail[tail_key(ls + a + 1, tl, k)];
    if (((x->len ^ tl) | (x->k[0] ^ k[0]) | (x->k[1] ^ k[1]) | (x->k[2] ^ k[2])) != 0) return NULL;
    *ap = a;
    return x;
}

/* Known-tail rows in a table of one unit per item, items i_base, i_base + 1,
 * ..., the last row's the newest: a row is the newest item or the next one
 * and its cell (fast_commit's rules, its state in locals).  The lines start
 * at *lsp and end at nl[0..n); stops at the first line that is not such a
 * row.  Returns the number of lines done. */
static size_t tail_rows_in_order(struct hot *h, const struct tail *tail, const char *const *nl,
                                 size_t n, const char **lsp)
{
    const char *ls = *lsp;
    unsigned char *cell = h->cell;
    size_t S = h->cstride, il = h->last_il;
    const char *ip = h->last_ip;
    int32_t cmaxv = h->cmaxv, ug = h->ug, uc = h->uc;
    int32_t nunits = h->nunits, ulim = h->ulim, u = h->last_unit;
    uint64_t key = h->last_ikey, next = h->next_ikey;
    uint32_t i_base = h->i_base;
    size_t i;
    for (i = 0; i < n; i++) {
        const char *q = nl[i];
        unsigned a;
        const struct tail *x = tail_of(tail, ls, q, &a);
        if (!x || x->id[0] != ug || x->id[1] != uc || (size_t)x->id[2] >= S || x->id[3] > cmaxv)
            break;
        uint64_t ik = load_key(ls, a);
        if (ik != key) {
            if (ik != next || nunits >= ulim) break;
            u = nunits++;
            key = ik;
            il = a;
            ip = ls;
            next = i_base + (uint32_t)nunits < ITEM_DIRECT_MAX ? key_next(ik, a) : 0;
            if (S == 2) { cell[2 * (size_t)u] = 0xff; cell[2 * (size_t)u + 1] = 0xff; }
            else memset(cell + (size_t)u * S, 0xff, S);
        }
        unsigned char *c = cell + (size_t)u * S + (size_t)x->id[2];
        if (*c != 0xff) break;   /* (not a new unit's) */
        *c = (unsigned char)x->id[3];
        ls = q + 1;
    }
    h->nrows += i;
    h->nitems = h->nunits = nunits;
    h->last_item = h->last_ui = nunits - 1;
    h->last_unit = u;
    h->last_ikey = key;
    h->last_il = il;
    h->last_ip = ip;
    h->next_ikey = next;
    *lsp = ls;
    return i;
}

/* Whether the rows so far are one unit per item, items i_base, i_base + 1,
 * ..., the last row's the newest, with one-byte cells (tail_rows_in_order). */
static int rows_in_order(const struct hot *h)
{
    return h->grow && h->cw == 1 && h->last_item >= 0 && h->last_item == h->nitems - 1 &&
           h->nitems == h->nunits && h->last_unit == h->nunits - 1 &&
           h->last_ui == h->last_item && h->last_ug == h->ug && h->last_uc == h->uc &&
           h->last_il >= 1 && h->last_il <= 8 && h->last_ikey != ITEM_KEY;
}

/* Known-tail rows in any table: each its item and its cell (fast_commit).
 * As tail_rows_in_order otherwise. */
static size_t tail_rows_any(struct hot *h, const struct tail *tail, const char *const *nl,
                            size_t n, const char **lsp, long ln)
{
    const char *ls = *lsp;
    size_t i;
    for (i = 0; i < n; i++) {
        const char *q = nl[i];
        unsigned a;
        const struct tail *x = tail_of(tail, ls, q, &a);
        if (!x || !fast_commit(h, ls, a, load_key(ls, a), x->id, ln + (long)i + 1, 1)) break;
        ls = q + 1;
    }
    *lsp = ls;
    return i;
}

/* Reads the lines from *lsp a batch at a time, their newlines first (each
 * line's start is then known without reading the line before), then the
 * lines, as long as they are common rows with known tails; *lnp counts the
 * lines. */
static void tail_rows(struct hot *h, const struct tail *tail, const char **lsp, const char *end,
                      long *lnp)
{
    const char *ls = *lsp;
    long ln = *lnp;
    const char *nl[TAIL_BATCH];
    /* known tails: the line each row is at, and the row count stay in range */
    while (end - ls >= 128 && ln < INT32_MAX - 2 * TAIL_BATCH && h->cp_expect == ln + 1 &&
           h->nrows < INT32_MAX - 2 * TAIL_BATCH) {
        size_t n = 0, done;
        for (const char *b = ls; n <= TAIL_BATCH - 64 && end - b >= 128; b += 64) {
            /* the input comes from memory, not cache: ask for it a page
             * ahead (the prefetcher stops at page ends; past the end of
             * the input a prefetch does nothing) */
            __builtin_prefetch(b + 4096);
            for (uint64_t m = newline64(b); m; m &= m - 1) nl[n++] = b + __builtin_ctzll(m);
        }
        if (rows_in_order(h)) {
            done = tail_rows_in_order(h, tail, nl, n, &ls);
            ln += (long)done;
            h->cp_expect = (int64_t)ln + 1;
        } else {
            done = tail_rows_any(h, tail, nl, n, &ls, ln);
            ln += (long)done;
        }
        if (done < n || n == 0) break;
    }
    *lsp = ls;
    *lnp = ln;
}

/* A row fast_row could not decide, the line ls..q (le: its end before a
 * carriage return): parse_fields on its fields (st[0..ntab] the starts),
 * or parse_line when it holds a NUL byte or too many fields. */
static void slow_row(kappa_table *t, struct hot *h, const char *ls, const char *q, const char *le,
                     const char *const *st, unsigned ntab, int nul, long ln, FILE *err)
{
    hot_store(t, h);
    if (nul || ntab >= 64) {
        parse_line(t, ls, (size_t)(q - ls), ln, err);
    } else {
        const char *f[64];
        size_t fl[64];
        int nf = (int)ntab + 1;
        for (int i = 0; i < nf; i++) {
            f[i] = st[i];
            fl[i] = (size_t)((i + 1 < nf ? st[i + 1] - 1 : le) - st[i]);
        }
        parse_fields(t, ls, (size_t)(le - ls), f, fl, nf, ln, err);
    }
    hot_load(t, h);
}

/* Keeps the tail tp..q (q: its newline) of a common row fast_row did, and
 * the row's ids. */
static void learn_tail(struct tail *tail, const char *tp, const char *q, const int32_t ids[4])
{
    size_t tl = (size_t)(q + 1 - tp);
    uint64_t k[3];
    struct tail *x = &tail[tail_key(tp, tl, k)];
    memcpy(x->k, k, sizeof k);
    x->len = (uint32_t)tl;
    memcpy(x->id, ids, sizeof x->id);
}

/* Parses every line of data[0..len); *lnp counts the lines.  Returns -1 when
 * reading stopped early (too many errors or lines).
 *
 * Lines are read a line at a time by tail_rows while they are common rows
 * with known tails, else 64 bytes at a time (each row a fast_row, or
 * parse_fields when that cannot decide it); runs of lines that tail_rows
 * gives back at once are left to the second way for a while. */
static int scan_lines(kappa_table *t, const char *data, size_t len, long *lnp, FILE *err)
{
    const char *end = data + len, *ls = data, *blk;
    const char *st[65];
    unsigned ntab = 0;
    int nul = 0, stop = 0;
    long ln = *lnp;
    struct hot h;
    struct tail tail[TAIL_SLOTS];
    int tails = 0, theaders = -1;   /* tail[] is for the layout of header number theaders */
    unsigned skip = 0, backoff = 0;
    hot_load(t, &h);
fast:
    /* the item the first column, not the group */
    tails = h.ok && h.ci == 0 && h.cg != 0 && h.ncol >= 2 && h.ncol <= 32;
    if (tails && theaders != t->nheaders) {
        memset(tail, 0, sizeof tail);
        theaders = t->nheaders;
    }
    if (tails && !skip) {
        long n0 = ln;
        tail_rows(&h, tail, &ls, end, &ln);
        if (ln - n0 < 4) {
            backoff = backoff ? (backoff < 1024 ? 2 * backoff : backoff) : 1;
            skip = backoff;
        } else {
            backoff = 0;
        }
    }
    blk = ls;
    st[0] = ls;
    ntab = 0;
    nul = 0;
    while (blk < end) {
        const char *base = blk;
        uint64_t m;
        if (end - blk >= 64) {
            __builtin_prefetch(blk + 4096);   /* as in the tail rows */
            m = special64(blk);
            blk += 64;
        }
        else { m = special_tail(blk, (size_t)(end - blk)); blk = end; }
        while (m) {
            const char *q = base + __builtin_ctzll(m);
            m &= m - 1;
            unsigned char c = (unsigned char)*q;
            if (c == '\t') {
                ntab++;
                st[ntab & 63] = q + 1;
            } else if (c == '\n') {
                ln++;
                const char *le = q;
                int32_t ids[4];
                if (le > ls && le[-1] == '\r') le--;
                if (le > ls && *ls != '#' &&
                    !(h.ok && !nul && ntab < 64 && end - le >= 8 &&
                      (st[ntab + 1] = le + 1, fast_row(t, &h, st, (int)ntab + 1, ln, ids)))) {
                    slow_row(t, &h, ls, q, le, st, ntab, nul, ln, err);
                    if (t->nerrors > MAX_ERRORS) { stop = 1; goto out; }
                } else if (tails && le == q && le > ls && *ls != '#' &&
                           (size_t)(q + 1 - st[1]) <= TAIL_MAX && end - st[1] >= 24) {
                    learn_tail(tail, st[1], q, ids);   /* a common row fast_row did */
                }
                if (ln >= INT32_MAX) {
                    hot_store(t, &h);
                    perr(t, err, ln, 1, "too many lines");
                    stop = 1;
                    goto out;
                }
                ls = st[0] = q + 1;
                ntab = 0;
                nul = 0;
                if (skip) skip--;
                else goto fast;
            } else if (c == 0) {
                nul = 1;
            }
        }
    }
    hot_store(t, &h);
    if (ls < end) {
        ln++;
        parse_line(t, ls, (size_t)(end - ls), ln, err);
        if (t->nerrors > MAX_ERRORS) stop = 1;
        else if (ln >= INT32_MAX) { perr(t, err, ln, 1, "too many lines"); stop = 1; }
    }
out:
    *lnp = ln;
    return stop ? -1 : 0;
}

/* ---- streams -------------------------------------------------------------- */

static int begin_stream(kappa_table *t, const char *name, FILE *err)
{
    char **fn = realloc(t->fname, (size_t)(t->nfiles + 1) * sizeof *fn);
    if (!fn) return oom(t, err);
    t->fname = fn;
    size_t *fs = realloc(t->fstart, (size_t)(t->nfiles + 1) * sizeof *fs);
    if (!fs) return oom(t, err);
    t->fstart = fs;
    struct kappa_stream *st = realloc(t->stream, (size_t)(t->nfiles + 1) * sizeof *st);
    if (!st) return oom(t, err);
    t->stream = st;
    t->fname[t->nfiles] = strdup(name);
    if (!t->fname[t->nfiles]) return oom(t, err);
    t->fstart[t->nfiles] = t->nrows;
    memset(&t->stream[t->nfiles], 0, sizeof *t->stream);
    t->nfiles++;
    t->have_header = 0;
    t->last_item = -1;   /* last_ip points into the previous stream */
    t->cp_expect = -1;
    return 0;
}

/* ---- two threads ---------------------------------------------------------- */

/* A big stream is read by two threads: this one reads the first half into
 * the table, a second one the rest into a table of its own, which is then
 * merged in (its strings, items and units taken in their order of first
 * appearance, as reading on would have).  Whenever the second half holds
 * anything the merge cannot take as it is -- an error, a header, a
 * duplicate, a rating of a cell the first half rated, multi-label extras --
 * it is read again here instead, so that every result and message is that
 * of reading in one go. */
#define PARALLEL_MIN ((size_t)4 << 20)

struct half {
    kappa_table *t;
    const char *data;
    size_t len;
    long lines;
};

static void *read_half(void *arg)
{
    struct half *h = arg;
    h->lines = 0;
    scan_lines(h->t, h->data, h->len, &h->lines, NULL);
    return NULL;
}

static int begin_stream(kappa_table *t, const char *name, FILE *err);

/* A table for the second half: the options and the header of t. */
static kappa_table *half_table(const kappa_table *t)
{
    size_t bl = 1;
    for (int i = 0; i < t->nby; i++) bl += strlen(t->by[i]) + 1;
    char *by = malloc(bl);
    if (!by) return NULL;
    by[0] = 0;
    for (int i = 0; i < t->nby; i++) {
        if (i) strcat(by, ",");
        strcat(by, t->by[i]);
    }
    kappa_table *h = kappa_table_new(by, t->multilabel, t->dup);
    free(by);
    if (!h) return NULL;
    h->quiet_errors = 1;
    if (h->nby != t->nby || begin_stream(h, "-", NULL) < 0) {
        kappa_table_free(h);
        return NULL;
    }
    h->have_header = 1;
    h->header_line = t->header_line;
    h->lay = t->lay;
    for (int i = 0; i < t->nby; i++) h->c_by[i] = t->c_by[i];
    return h;
}

static int32_t map_str(struct kappa_strtab *to, const struct kappa_strtab *from, int32_t id)
{
    return kappa_strtab_intern(to, kappa_strtab_str(from, id), from->len[id]);
}

/* Item id in t of item number v (a decimal without leading zeros). */
static int32_t item_of_num(kappa_table *t, uint32_t v)
{
    if (t->i_affine) {
        uint32_t d = v - t->i_base;
        if (t->nitems == 0) { t->i_base = v; return t->nitems++; }
        if (d < (uint32_t)t->nitems) return (int32_t)d;
        if (d == (uint32_t)t->nitems) return t->nitems++;
    }
    char b[16];
    int l = snprintf(b, sizeof b, "%u", (unsigned)v);
    return item_intern(t, b, (size_t)l);
}

/* What merge_half keeps while it merges h into t: h's string ids mapped to
 * t's, and the units of h that t had already (old, in h's order). */
struct merge {
    int32_t *gm, *cm, *rm, *vm;     /* groups, criteria, raters, values */
    int32_t maxr, maxv;             /* the largest mapped rater and value ids */
    struct old { int32_t hu, u; } *old;
    size_t nold, oldcap;
};

/* Maps h's groups, criteria, raters and values to t's (interning the new
 * ones; a value's first line counted from line0). */
static int merge_strings(kappa_table *t, const kappa_table *h, long line0, struct merge *m)
{
    m->gm = malloc(((size_t)h->groups.n + 1) * sizeof *m->gm);
    m->cm = malloc(((size_t)h->crits.n + 1) * sizeof *m->cm);
    m->rm = malloc(((size_t)h->raters.n + 1) * sizeof *m->rm);
    m->vm = malloc(((size_t)h->values.n + 1) * sizeof *m->vm);
    if (!m->gm || !m->cm || !m->rm || !m->vm) return -1;
    for (int32_t i = 0; i < h->groups.n; i++) if ((m->gm[i] = map_str(&t->groups, &h->groups, i)) < 0) return -1;
    for (int32_t i = 0; i < h->crits.n; i++) if ((m->cm[i] = map_str(&t->crits, &h->crits, i)) < 0) return -1;
    for (int32_t i = 0; i < h->raters.n; i++) if ((m->rm[i] = map_str(&t->raters, &h->raters, i)) < 0) return -1;
    for (int32_t i = 0; i < h->values.n; i++) {
        struct kappa_loc loc = h->vloc[i];
        loc.file = t->nfiles - 1;
        loc.line += (int32_t)line0;
        if ((m->vm[i] = value_intern(t, kappa_strtab_str(&h->values, i), h->values.len[i], loc)) < 0)
            return -1;
    }
    m->maxr = m->maxv = -1;
    for (int32_t i = 0; i < h->raters.n; i++) if (m->rm[i] > m->maxr) m->maxr = m->rm[i];
    for (int32_t i = 0; i < h->values.n; i++) if (m->vm[i] > m->maxv) m->maxv = m->vm[i];
    return 0;
}

/* t's cells made wide enough for the raters and values of both halves. */
static int merge_widen_cells(kappa_table *t, const struct merge *m)
{
    if (m->maxr < t->cstride && m->maxv <= t->cmaxv) return 0;
    int32_t ns = t->cstride;
    while (ns <= m->maxr) ns *= 2;
    int nw = t->cw;
    while (m->maxv > cmax(nw)) nw *= 2;
    return ns > INT32_MAX / 2 || cells_reshape(t, ns, nw) < 0 ? -1 : 0;
}

/* Whether h continues t's items i_base, i_base + 1, ..., one unit each, in
 * the same group and criterion. */
static int merge_continues(const kappa_table *t, const kappa_table *h, const struct merge *m)
{
    uint32_t tnext = t->i_base + (uint32_t)t->nitems;
    return h->i_affine && h->u_simple && t->i_affine && t->u_simple && !h->u_group && !h->u_crit &&
           !t->u_group && !t->u_crit && h->nitems > 0 && t->nitems > 0 &&
           (h->i_base == tnext || h->i_base + 1 == tnext) && t->nunits == t->nitems &&
           h->nunits == h->nitems && m->gm[h->ug_const] == t->ug_const &&
           (h->uc_const < 0 ? -1 : m->cm[h->uc_const]) == t->uc_const &&
           (uint64_t)t->nitems + (uint64_t)h->nitems < INT32_MAX;
}

/* h's units when h continues t's items (merge_continues): all new but
 * perhaps the first, the item the first half ended with.  1 done, 0 when a
 * cell is rated in both halves, -1 out of memory. */
static int merge_continued_units(kappa_table *t, const kappa_table *h, struct merge *m)
{
    int32_t shift = (int32_t)(t->i_base + (uint32_t)t->nitems - h->i_base);
    if (shift) {
        int32_t u = t->nunits - 1;
        if (grow((void **)&m->old, sizeof *m->old, 1, &m->oldcap) < 0) return -1;
        m->old[m->nold++] = (struct old){ 0, u };
        for (int32_t q = 0; q < h->raters.n; q++)
            if (kappa_cell(h, (size_t)q) >= 0 &&
                kappa_cell(t, (size_t)u * (size_t)t->cstride + (size_t)m->rm[q]) >= 0)
                return 0;
    }
    int32_t add = h->nunits - shift, need = t->nunits + add;
    while (t->ucap < need)
        if (grow_units(t) < 0) return -1;
    if (t->crcap < need) {
        int32_t nc = t->crcap;
        while (nc < need) nc *= 2;
        unsigned char *c = realloc(t->cell, (size_t)nc * (size_t)t->cstride * (size_t)t->cw);
        if (!c) return -1;
        t->cell = c;
        t->crcap = nc;
    }
    memset(t->cell + (size_t)t->nunits * (size_t)t->cstride * (size_t)t->cw, 0xff,
           (size_t)add * (size_t)t->cstride * (size_t)t->cw);
    t->nitems += add;
    t->nunits += add;
    return 1;
}

/* h's units interned in t, in order; those t had already (below before)
 * must not have the same cells rated.  1 done, 0 when a cell is rated in
 * both halves, -1 out of memory. */
static int merge_units(kappa_table *t, const kappa_table *h, struct merge *m, int32_t before)
{
    size_t HS = (size_t)h->cstride;
    for (int32_t hu = 0; hu < h->nunits; hu++) {
        int32_t hi = kappa_unit_item(h, hu), it;
        if (h->i_affine) it = item_of_num(t, h->i_base + (uint32_t)hi);
        else it = item_intern(t, kappa_strtab_str(&h->items, hi), h->items.len[hi]);
        if (it < 0) return -1;
        int32_t cr = kappa_unit_crit(h, hu);
        int32_t u = unit_intern(t, m->gm[kappa_unit_group(h, hu)], it, cr < 0 ? -1 : m->cm[cr]);
        if (u < 0) return -1;
        if (u < before) {
            if (grow((void **)&m->old, sizeof *m->old, m->nold + 1, &m->oldcap) < 0) return -1;
            m->old[m->nold++] = (struct old){ hu, u };
            for (int32_t q = 0; q < h->raters.n; q++)
                if (kappa_cell(h, (size_t)hu * HS + (size_t)q) >= 0 && m->rm[q] < t->cstride &&
                    kappa_cell(t, (size_t)u * (size_t)t->cstride + (size_t)m->rm[q]) >= 0)
                    return 0;
        }
    }
    return 1;
}

/* h's cells into t's units: the old ones, then the new ones from before on. */
static void merge_cells(kappa_table *t, const kappa_table *h, const struct merge *m, int32_t before)
{
    size_t j = 0, HS = (size_t)h->cstride, TS = (size_t)t->cstride;
    int32_t next = before;
    const int32_t *rm = m->rm;
    if (h->cw != 1 || t->cw != 1) {
        for (int32_t hu = 0; hu < h->nunits; hu++) {
            int32_t u = j < m->nold && m->old[j].hu == hu ? m->old[j++].u : next++;
            for (int32_t q = 0; q < h->raters.n; q++) {
                int32_t v = kappa_cell(h, (size_t)hu * HS + (size_t)q);
                if (v >= 0) cell_set(t, (size_t)u * TS + (size_t)rm[q], m->vm[v]);
            }
        }
        return;
    }
    unsigned char vm8[256];
    for (int i = 0; i < 256; i++) vm8[i] = i < h->values.n && i < 255 ? (unsigned char)m->vm[i] : 0xff;
    int32_t nr = h->raters.n;
    /* units from h0 on are new ones, in order, their cells all unrated so
     * far: each of h's cells is copied as it is (vm8[0xff] == 0xff) */
    int32_t h0 = m->nold ? m->old[m->nold - 1].hu + 1 : 0;
    for (int32_t hu = 0; hu < h0; hu++) {
        int32_t u = j < m->nold && m->old[j].hu == hu ? m->old[j++].u : next++;
        const unsigned char *src = h->cell + (size_t)hu * HS;
        unsigned char *dst = t->cell + (size_t)u * TS;
        for (int32_t q = 0; q < nr; q++)
            if (src[q] != 0xff) dst[rm[q]] = vm8[src[q]];
    }
    if (h0 < h->nunits) {
        const unsigned char *src = h->cell + (size_t)h0 * HS;
        unsigned char *dst = t->cell + (size_t)next * TS;
        size_t n = (size_t)(h->nunits - h0);
        for (size_t i = 0; i < n; i++, src += HS, dst += TS)
            for (int32_t q = 0; q < nr; q++) dst[rm[q]] = vm8[src[q]];
    }
}

/* h's rows and the changepoints of their lines (from line0 + 1). */
static int merge_lines(kappa_table *t, const kappa_table *h, long line0)
{
    for (size_t i = 0; i < h->ncp; i++) {
        int64_t line = (int64_t)h->cp_line[i] + line0;
        if (i == 0 && line == t->cp_expect) continue;
        if (t->ncp == t->cpcap && cp_grow(t) < 0) return -1;
        t->cp_line[t->ncp] = (int32_t)line;
        t->cp_row[t->ncp] = t->nrows + h->cp_row[i];
        t->ncp++;
    }
    if (h->nrows) t->cp_expect = h->cp_expect + line0;
    t->nrows += h->nrows;
    t->last_item = t->last_unit = -1;
    return 0;
}

/* Merges h (the rest of the stream, lines from line0 + 1) into t; 1 when
 * done, 0 when h must be read again, -1 when out of memory. */
static int merge_half(kappa_table *t, kappa_table *h, long line0)
{
    if (h->nerrors || h->nheaders || h->nsame || h->nconf || h->nxr) return 0;
    if ((uint64_t)t->nrows + h->nrows >= INT32_MAX) return 0;
    struct merge m;
    memset(&m, 0, sizeof m);
    int rc = -1;
    if (merge_strings(t, h, line0, &m) < 0) goto out;
    if (t->nunits && merge_widen_cells(t, &m) < 0) goto out;
    int32_t before = t->nunits;
    rc = merge_continues(t, h, &m) ? merge_continued_units(t, h, &m)
                                   : merge_units(t, h, &m, before);
    if (rc != 1) goto out;   /* 0: a duplicate across the halves: read h's part again */
    rc = -1;
    if (h->nunits && merge_widen_cells(t, &m) < 0) goto out;   /* t had no units */
    merge_cells(t, h, &m, before);
    if (merge_lines(t, h, line0) < 0) goto out;
    rc = 1;
out:
    free(m.gm); free(m.cm); free(m.rm); free(m.vm); free(m.old);
    return rc;
}

static int parse_stream(kappa_table *t, FILE *err)
{
    const struct kappa_stream *s = &t->stream[t->nfiles - 1];
    if (s->len == 0) return t->nerrors ? -1 : 0;   /* an empty file maps nothing */
    const char *data = s->data, *end = s->data + s->len;
    long ln = 0;
    const char *mid = NULL;
    if (s->len >= PARALLEL_MIN && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
        /* the first line (the header), then the two halves of the rest */
        const char *nl = memchr(data, '\n', s->len);
        if (nl) {
            if (scan_lines(t, data, (size_t)(nl + 1 - data), &ln, err) < 0) return -1;
            data = nl + 1;
            if (t->have_header == 1 && !t->nerrors) {
                size_t half = (size_t)(end - data) / 2;
                mid = memchr(data + half, '\n', (size_t)(end - data) - half);
                if (mid) mid++;
                if (mid == end) mid = NULL;
            }
        }
    }
    if (!mid) {
        scan_lines(t, data, (size_t)(end - data), &ln, err);
        return t->nerrors ? -1 : 0;
    }
    kappa_table *h = half_table(t);
    struct half arg = { h, mid, (size_t)(end - mid), 0 };
    pthread_t th;
    int threaded = h && pthread_create(&th, NULL, read_half, &arg) == 0;
    int nheaders = t->nheaders;
    int stop = scan_lines(t, data, (size_t)((threaded ? mid : end) - data), &ln, err) < 0;
    if (threaded) {
        pthread_join(th, NULL);
        int m = 0;
        if (!stop && !t->nerrors && t->nheaders == nheaders && t->have_header == 1 &&
            ln + arg.lines < INT32_MAX)
            m = merge_half(t, h, ln);
        if (m < 0) oom(t, err);
        else if (m == 0 && !stop) scan_lines(t, mid, (size_t)(end - mid), &ln, err);
    }
    if (h) h->stream[0].data = NULL;   /* the data is t's */
    kappa_table_free(h);
    return t->nerrors ? -1 : 0;
}

/* Maps a regular file; 0, or -1 when it cannot be mapped (then it is read). */
static int map_file(kappa_table *t, FILE *in)
{
    struct stat sb;
    int fd = fileno(in);
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) return -1;
    off_t pos = ftello(in);
    if (pos < 0 || pos > sb.st_size) return -1;
    struct kappa_stream *s = &t->stream[t->nfiles - 1];
    if (sb.st_size == pos) return 0;   /* empty: nothing to map */
    if ((uint64_t)sb.st_size > SIZE_MAX) return -1;
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    flags |= MAP_POPULATE;
#endif
    void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, flags, fd, 0);
    if (m == MAP_FAILED) return -1;
    s->map = m;
    s->maplen = (size_t)sb.st_size;
    if (bus_watch(s) < 0) {
        munmap(m, s->maplen);
        s->map = NULL;
        s->maplen = 0;
        return -1;
    }
    s->data = (const char *)m + pos;
    s->len = (size_t)(sb.st_size - pos);
    return 0;
}

int kappa_table_read(kappa_table *t, FILE *in, const char *name, FILE *err)
{
    if (begin_stream(t, name, err) < 0) return -1;
    if (map_file(t, in) == 0) {
        int rc = parse_stream(t, err);
        return streams_changed(t, err) ? -1 : rc;
    }
    size_t cap = (size_t)1 << 20, have = 0;
    char *buf = malloc(cap);
    if (!buf) return oom(t, err);
    for (;;) {
        if (have == cap) {
            char *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!nb) { free(buf); return oom(t, err); }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + have, 1, cap - have, in);
        have += got;
        if (got == 0) break;
    }
    struct kappa_stream *s = &t->stream[t->nfiles - 1];
    s->data = buf;
    s->len = have;
    int rc = parse_stream(t, err);
    if (ferror(in)) {
        t->nerrors++;
        fprintf(err, "kappa: %s: read error\n", name);
        return -1;
    }
    return rc;
}

int kappa_table_read_buffer(kappa_table *t, const char *data, size_t len,
                            const char *name, FILE *err)
{
    if (begin_stream(t, name, err) < 0) return -1;
    char *copy = malloc(len + 1);
    if (!copy) return oom(t, err);
    if (len) memcpy(copy, data, len);
    copy[len] = 0;
    t->stream[t->nfiles - 1].data = copy;
    t->stream[t->nfiles - 1].len = len;
    return parse_stream(t, err);
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

int32_t kappa_row_line(const struct kappa_table *t, size_t r)
{
    size_t lo = 0, hi = t->ncp - 1;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (t->cp_row[mid] <= r) lo = mid; else hi = mid - 1;
    }
    return (int32_t)(t->cp_line[lo] + (int64_t)(r - t->cp_row[lo]));
}

/* ---- the rows of duplicate reports ----------------------------------------- */

/* Finds, for each duplicate report, the row that had set the cell (prev): the
 * rows of the kept input are read again, without changing the table, and the
 * duplicate rules replayed for those cells only. */
static void find_prev_rows(kappa_table *t, struct kappa_dupnote **note, int nn)
{
    int32_t cur[MAX_ERRORS + 1];
    size_t setter[MAX_ERRORS + 1], last = 0;
    for (int i = 0; i < nn; i++) {
        cur[i] = -1;
        setter[i] = 0;
        if (note[i]->row > last) last = note[i]->row;
    }
    size_t r = 0;
    int *c_by = malloc((size_t)(t->nby ? t->nby : 1) * sizeof *c_by);
    if (!c_by) return;
    for (int fi = 0; fi < t->nfiles && r < last; fi++) {
        const char *p = t->stream[fi].data, *end = p + t->stream[fi].len;
        struct kappa_layout lay = { 0 };
        int have = 0;
        while (p < end && r < last) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            const char *le = nl ? nl : end;
            const char *next = nl ? nl + 1 : end;
            size_t len = (size_t)(le - p);
            if (len && p[len - 1] == '\r') len--;
            const char *f[64];
            size_t flen[64];
            long col;
            int n = len && p[0] != '#' ? split_fields(p, len, f, flen, &col) : 0;
            if (n <= 0) { p = next; continue; }
            if (have && n == lay.ncol - 1) { f[n] = p + len; flen[n] = 0; }   /* no note */
            int has_item = 0;
            for (int i = 0; i < n; i++) has_item |= is_item(f[i], flen[i]);
            if (has_item && (!have || (find_col(f, flen, n, "rater") >= 0 &&
                                       find_col(f, flen, n, "value") >= 0))) {
                layout_of(t, f, flen, n, &lay, c_by);
                have = 1;
                p = next;
                continue;
            }
            /* a row (the input had no errors) */
            int32_t g, cr = -1;
            if (t->nby == 0) g = kappa_strtab_find(&t->groups, "all", 3);
            else if (t->nby == 1) g = kappa_strtab_find(&t->groups, f[c_by[0]], flen[c_by[0]]);
            else {
                char key[1024];
                size_t kl;
                g = group_key(t, c_by, f, flen, key, &kl) >= 0 ? -1
                  : kappa_strtab_find(&t->groups, key, kl);
            }
            if (lay.need_cr) cr = kappa_strtab_find(&t->crits, f[lay.c_crit], flen[lay.c_crit]);
            int32_t u = unit_find(t, g, item_find(t, f[lay.c_item], flen[lay.c_item]), cr);
            int32_t q = kappa_strtab_find(&t->raters, f[lay.c_rater], flen[lay.c_rater]);
            int32_t v = kappa_strtab_find(&t->values, f[lay.c_value], flen[lay.c_value]);
            for (int i = 0; i < nn; i++) {
                if (note[i]->unit != u || note[i]->rater != q || r >= note[i]->row) continue;
                if (cur[i] < 0 || (cur[i] != v && !t->multilabel && t->dup == KAPPA_DUP_LAST)) {
                    cur[i] = v;
                    setter[i] = r;
                }
            }
            r++;
            p = next;
        }
    }
    free(c_by);
    for (int i = 0; i < nn; i++) note[i]->prev = setter[i];
}

/* ---- cells -------------------------------------------------------------- */

struct xpair { size_t cell; int32_t value; };

static int cmp_x(const void *a, const void *b)
{
    const struct xpair *x = a, *y = b;
    if (x->cell != y->cell) return x->cell < y->cell ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

static void report_conflict(const struct kappa_table *t, const struct kappa_dupnote *d, FILE *err)
{
    int32_t u = d->unit;
    char ib[16];
    fprintf(err, "%s:%d:1: error: conflicting ratings of item '%s'",
            kappa_row_file(t, d->row), kappa_row_line(t, d->row),
            kappa_item_str(t, kappa_unit_item(t, u), ib));
    if (kappa_unit_crit(t, u) >= 0)
        fprintf(err, ", criterion '%s'", kappa_strtab_str(&t->crits, kappa_unit_crit(t, u)));
    fprintf(err, " by rater '%s': '%s' here, '%s' at %s:%d (choose one with "
            "--duplicates first|last, or use --multi-label for label sets)\n",
            kappa_strtab_str(&t->raters, d->rater),
            kappa_strtab_str(&t->values, d->v), kappa_strtab_str(&t->values, d->old),
            kappa_row_file(t, d->prev), kappa_row_line(t, d->prev));
}

int kappa_table_cells(struct kappa_table *t, int need_seen, FILE *err)
{
    size_t R = (size_t)t->raters.n, U = (size_t)t->nunits, S = (size_t)t->cstride;
    size_t W = (size_t)t->cw;
    int rc = 0;
    if (U && R > SIZE_MAX / U / sizeof(int32_t)) { fprintf(err, "kappa: table too large\n"); return -1; }
    /* the duplicate reports, in input order */
    int same = t->nsame > 0 && !t->multilabel, ci = 0;
    {
        struct kappa_dupnote *note[MAX_ERRORS + 1];
        int nn = 0;
        if (same) note[nn++] = &t->same;
        for (int i = 0; i < t->nconf_kept; i++) note[nn++] = &t->conf[i];
        if (nn) find_prev_rows(t, note, nn);
        if (nn && streams_changed(t, err)) return -1;   /* the rows found are not the input's */
    }
    while (ci < t->nconf_kept || same) {
        if (same && (ci == t->nconf_kept || t->same.row < t->conf[ci].row)) {
            fprintf(err, "%s:%d:1: warning: duplicate rating (same as line %d of %s); "
                    "counted once\n", kappa_row_file(t, t->same.row), kappa_row_line(t, t->same.row),
                    kappa_row_line(t, t->same.prev), kappa_row_file(t, t->same.prev));
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
            memmove(t->cell + u * R * W, t->cell + u * S * W, R * W);
    t->cstride = (int32_t)R;
    size_t nx = t->nxr;
    if (nx) {
        struct xpair *x = malloc(nx * sizeof *x);
        if (!x) { fprintf(err, "kappa: out of memory\n"); return -1; }
        for (size_t i = 0; i < nx; i++) {
            x[i].cell = (size_t)t->xr[i].unit * R + (size_t)t->xr[i].rater;
            x[i].value = t->xr[i].value;
        }
        qsort(x, nx, sizeof *x, cmp_x);   /* a label listed again stays: instances */
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
        size_t I = (size_t)t->nitems;
        t->seen = calloc((I * R + 7) / 8 + 1, 1);
        if (!t->seen) { fprintf(err, "kappa: out of memory\n"); return -1; }
        for (size_t u = 0; u < U; u++)
            for (size_t q = 0; q < R; q++)
                if (kappa_cell(t, u * R + q) >= 0) {
                    size_t b = (size_t)kappa_unit_item(t, (int32_t)u) * R + q;
                    t->seen[b / 8] |= (unsigned char)(1u << (b % 8));
                }
    }
    return rc;
}
