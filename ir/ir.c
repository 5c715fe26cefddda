/* ir.c — the IR library's data structures: construction, attributes,
 * copying, number parsing and element extents. The reader is in ir_read.c,
 * the writer in ir_write.c; the contract is ir/ir.h. */
#include "ir/ir.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* --- allocation ------------------------------------------------------- */

static void oom(void)
{
    fputs("diagramir: out of memory\n", stderr);
    abort();
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) oom();
    return q;
}

static char *xstrdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = xrealloc(NULL, n);
    memcpy(p, s, n);
    return p;
}

/* strcmp(a, b) == 0 for the short keys of attributes, without a call */
static int key_eq(const char *a, const char *b)
{
    while (*a == *b) {
        if (!*a) return 1;
        a++;
        b++;
    }
    return 0;
}

/* --- kinds ------------------------------------------------------------- */

static const char *const kind_names[] = {
    [IR_POLY] = "poly",         [IR_RECT] = "rect",     [IR_ELLIPSE] = "ellipse",
    [IR_ARC] = "arc",           [IR_CURVE] = "curve",   [IR_TEXT] = "text",
    [IR_CLIP] = "clip",         [IR_UNPARSED] = "unparsed",
    [IR_VERTEX] = "vertex",     [IR_EDGE] = "edge",     [IR_COORD] = "coord",
    [IR_OTHER] = "other",
};

const char *ir_kind_name(ir_kind k)
{
    if ((unsigned)k < sizeof kind_names / sizeof kind_names[0] && kind_names[k])
        return kind_names[k];
    return "?";
}

int ir_kind_from_name(const char *name, ir_kind *out)
{
    for (unsigned k = 0; k < sizeof kind_names / sizeof kind_names[0]; k++) {
        if (k == IR_OTHER) continue;
        if (kind_names[k] && strcmp(kind_names[k], name) == 0) {
            *out = (ir_kind)k;
            return 1;
        }
    }
    return 0;
}

/* --- arenas -------------------------------------------------------------
 *
 * Bump allocation from malloc'd chunks, all freed at once. A diagram made
 * by ir_diagram_new has one (d->arena); the elements ir_add gives it take
 * their attribute memory and small point arrays from it, so building and
 * freeing a diagram costs a few mallocs instead of two or three per
 * element. Elements without a diagram arena (copies, cleared elements,
 * elements of other diagrams) have a small arena of their own in their
 * attribute block, freed with the element. */

struct ir_arena {
    char *p, *end;  /* the free bytes of the current chunk */
    void *chunks;   /* the malloc'd chunks, chained through their first word */
    size_t next;    /* size of the next chunk */
};

#define AR_MAX_CHUNK 65536
#define AR_DIAGRAM_FIRST 8192
/* Every chunk has AR_SLACK allocated bytes after its end: ir__attrs_text
 * may read that far past the end of a record (an own arena's first region
 * has them too). */
#define AR_SLACK 16

typedef struct ar_chunk {
    struct ar_chunk *next;
    size_t size;  /* data bytes (then AR_SLACK); the header keeps the data 16-byte aligned */
} ar_chunk;

static void ar_init(struct ir_arena *a, char *mem, size_t n, size_t next)
{
    a->p = mem;
    a->end = mem ? mem + n : NULL;
    a->chunks = NULL;
    a->next = next;
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void *ar_alloc_slow(struct ir_arena *a, size_t n, size_t align)
{
    if (n > SIZE_MAX / 4) oom();
    size_t want = n + align;
    int own_chunk = want > a->next / 4;  /* big: a chunk of its own, the current one stays */
    size_t size = own_chunk ? want : a->next;
    ar_chunk *c = xrealloc(NULL, sizeof *c + size + AR_SLACK);
    c->size = size;
    c->next = a->chunks;
    a->chunks = c;
    char *mem = (char *)(c + 1);
    uintptr_t p = ((uintptr_t)mem + (align - 1)) & ~(uintptr_t)(align - 1);
    if (!own_chunk) {
        a->p = (char *)(p + n);
        a->end = mem + size;
        if (a->next < AR_MAX_CHUNK) a->next *= 2;
    }
    return (void *)p;
}

/* n bytes (n > 0) aligned to align (a power of two <= 16) */
static inline void *ar_alloc(struct ir_arena *a, size_t n, size_t align)
{
    uintptr_t p = ((uintptr_t)a->p + (align - 1)) & ~(uintptr_t)(align - 1);
    if (p <= (uintptr_t)a->end && (uintptr_t)a->end - p >= n) {
        a->p = (char *)(p + n);
        return (void *)p;
    }
    return ar_alloc_slow(a, n, align);
}

static void ar_free(struct ir_arena *a)
{
    ar_chunk *c = a->chunks;
    while (c) {
        ar_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->chunks = NULL;
}

/* --- diagrams and elements --------------------------------------------- */

/* A diagram's arena and, by the slot of a key (am_slot), the attribute
 * record (its key) last made in it for a key of that slot, or NULL. The
 * attribute records of a diagram arena are never written after they are
 * made (am_fill), so entries of several elements may point at the same
 * one: ir_elem_set reuses the recent record when key and value are the
 * same (elements of one diagram get the same draw=, fill=, lw=, ...). */
#define AM_SLOTS 64
struct ir_darena {
    struct ir_arena a;  /* first: a diagram's arena pointer is one to this */
    uint32_t tag[AM_SLOTS];        /* am_tag of recent[i]'s key */
    const char *recent[AM_SLOTS];
};

/* a diagram and its arena in one allocation */
typedef struct {
    ir_diagram d;
    struct ir_darena a;
} diagram_mem;

/* The memory of the diagram ir_diagram_free freed last, for the next
 * ir_diagram_new (a program makes, writes and frees one diagram after the
 * other): its diagram_mem with one chunk of its arena (a->chunks, the
 * largest, at most SPARE_CHUNK_MAX bytes, or NULL) and its element array
 * (d.elems, d.cap; NULL, 0 when none). Taken and put back with an atomic
 * exchange, so threads that make diagrams never share one. */
#define SPARE_CHUNK_MAX ((size_t)256 * 1024)
static _Atomic(diagram_mem *) spare_mem;

ir_diagram *ir_diagram_new(const char *id)
{
    diagram_mem *m = atomic_exchange(&spare_mem, NULL);
    ir_elem *elems = NULL;
    size_t cap = 0;
    if (m) {
        elems = m->d.elems;
        cap = m->d.cap;
        ar_chunk *c = m->a.a.chunks;
        if (c) {  /* the kept chunk: the current one again, all free */
            ar_init(&m->a.a, (char *)(c + 1), c->size, c->size < AR_MAX_CHUNK ? c->size * 2 : c->size);
            m->a.a.chunks = c;
        } else {
            ar_init(&m->a.a, NULL, 0, AR_DIAGRAM_FIRST);
        }
    } else {
        m = xrealloc(NULL, sizeof *m);
        ar_init(&m->a.a, NULL, 0, AR_DIAGRAM_FIRST);
    }
    memset(&m->d, 0, sizeof m->d);
    memset(m->a.recent, 0, sizeof m->a.recent);
    memset(m->a.tag, 0, sizeof m->a.tag);
    ir_diagram *d = &m->d;
    d->elems = elems;
    d->cap = cap;
    d->arena = &m->a.a;
    d->id = xstrdup(id ? id : "");
    d->unit = xstrdup("pt");
    return d;
}

/* An attribute is one allocation: key, NUL, value, NUL; val points into it. */
void ir_attr_init(ir_attr *a, const char *key, const char *val)
{
    size_t kl = strlen(key), vl = strlen(val);
    if (kl > SIZE_MAX / 2 - 2 || vl > SIZE_MAX / 2) oom();
    char *p = xrealloc(NULL, kl + vl + 2);
    memcpy(p, key, kl + 1);
    memcpy(p + kl + 1, val, vl + 1);
    a->key = p;
    a->val = p + kl + 1;
}

/* An attribute array of n > 0 entries always has room for ir_attr_cap(n):
 * 4, 8, 16, ... so that adding one at a time is amortized O(1). */
size_t ir_attr_cap(size_t n)
{
    size_t c = 4;
    while (c < n) {
        if (c > SIZE_MAX / 2 / sizeof(ir_attr)) oom();
        c *= 2;
    }
    return c;
}

static void free_attrs(ir_attr *a, size_t n)
{
    for (size_t i = 0; i < n; i++) free(a[i].key);
    free(a);
}

/* --- an element's attribute block ---------------------------------------
 *
 * The attributes that ir_elem_set adds to an element that had none (and
 * those of copies) live in memory of the element's arena: its diagram's
 * (e->arena, set by ir_add) or, without one, an arena of its own inside
 * the block. The block (e->attrmem) holds the first AM_ENTRIES entries
 * (e->attrs points there until more are needed; larger arrays come from
 * the arena too) and, when ir_elem_set_pts was called before any
 * attribute, the element's points (e->pts == attrmem->pts: not freed on
 * its own). Arena memory never moves, so the entries point into it; a
 * replaced or removed attribute's bytes stay until the arena goes.
 *
 * Each attribute is stored as  KL VF key NUL value NUL  where KL (4 bytes)
 * is strlen(key) and VF (4 bytes) strlen(value) | AM_BARE when the value
 * is a plain ASCII word the writer copies as it is: ir__attrs_text writes
 * " key=value" with one memcpy. An entry's key and val always point at
 * such a record (val == key + KL + 1). */

#define AM_ENTRIES 8
#define AM_FIRST 160    /* string bytes of an own arena's first region */
#define AM_PTS 64       /* at most this many points go into the arena */
#define AM_HDR 8        /* KL and VF */
#define AM_BARE 0x80000000u

struct ir_attrmem {
    struct ir_arena *a;   /* where the element's memory comes from */
    struct ir_arena own;  /* a == &own: the element's own arena (the block is malloc'd) */
    ir_pt *pts;           /* points in the arena (room for ptscap), or NULL */
    size_t ptscap;
    size_t entcap;        /* room of e->attrs */
    uint64_t keys;        /* key_bit of every key added (removed ones may stay) */
    ir_attr ent[];        /* AM_ENTRIES entries (then, in an own block, points and strings) */
};

/* The block of e, which has no attributes yet, with room for npts points
 * (<= AM_PTS); an own block gets at least strbytes string bytes. */
static struct ir_attrmem *am_init(ir_elem *e, size_t npts, size_t strbytes)
{
    size_t head = sizeof(struct ir_attrmem) + AM_ENTRIES * sizeof(ir_attr) + npts * sizeof(ir_pt);
    struct ir_attrmem *m;
    if (e->arena) {
        m = ar_alloc(e->arena, head, 16);
        m->a = e->arena;
        ar_init(&m->own, NULL, 0, 0);
    } else {
        if (strbytes < AM_FIRST) strbytes = AM_FIRST;
        if (strbytes > SIZE_MAX / 4) oom();
        m = xrealloc(NULL, head + strbytes + AR_SLACK);
        m->a = &m->own;
        size_t next = strbytes * 2;
        if (next < 512) next = 512;
        if (next > AR_MAX_CHUNK) next = AR_MAX_CHUNK;
        ar_init(&m->own, (char *)m + head, strbytes, next);
    }
    m->pts = npts ? (ir_pt *)(m->ent + AM_ENTRIES) : NULL;
    m->ptscap = npts;
    m->entcap = AM_ENTRIES;
    m->keys = 0;
    e->attrmem = m;
    e->attrs = m->ent;
    return m;
}

/* A value is written bare by ir__attrs_text when it is printable ASCII
 * but '"', '=' and '\\' (a subset of ir_word_is_bare), not empty and not
 * starting with '@'. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define AM_SWAR 1
/* Not 0 iff some byte of x is not a bare byte. Each term's bit 7 of a
 * byte is set when that byte is out: x itself for non-ASCII; for ASCII
 * bytes x + 1 for DEL (no carry: b + 1 <= 0x80), x - '!' for bytes below
 * '!', (x ^ c) - 1 for c itself. A borrow only leaves a byte where the
 * term is already set, so when all bytes are ASCII the result is exact;
 * when one is not, x alone makes it not 0. */
static inline uint64_t bad8(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ull;
    uint64_t t = x | (x + ones) | (x - 0x21 * ones);
    t |= ((x ^ (0x22 * ones)) - ones) | ((x ^ (0x3d * ones)) - ones) | ((x ^ (0x5c * ones)) - ones);
    return t & 0x8080808080808080ull;
}
#else
static const unsigned char bare_byte[256] = {
    ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['('] = 1, [')'] = 1,
    ['*'] = 1, ['+'] = 1, [','] = 1, ['-'] = 1, ['.'] = 1, ['/'] = 1, ['0'] = 1, ['1'] = 1,
    ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    [':'] = 1, [';'] = 1, ['<'] = 1, ['>'] = 1, ['?'] = 1, ['@'] = 1, ['A'] = 1, ['B'] = 1,
    ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
    ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
    ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
    ['['] = 1, [']'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1,
    ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1,
    ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1,
    ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['{'] = 1,
    ['|'] = 1, ['}'] = 1, ['~'] = 1,
};

#endif

/* 1 when the value s (n bytes, a copy in the record that ends at s + n:
 * the 8 bytes before s + n are readable) is a bare word of bare_bytes. */
static inline int am_bare(const char *s, size_t n)
{
    if (n == 0 || s[0] == '@') return 0;
#ifdef AM_SWAR
    uint64_t w;
    if (n < 8) {
        /* the last 8 bytes of the record, those before the value made '!' */
        memcpy(&w, s + n - 8, 8);
        uint64_t before = ~0ull >> (8 * n);
        w = (w & ~before) | (0x2121212121212121ull & before);
        return bad8(w) == 0;
    }
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        if (bad8(w)) return 0;
    }
    if (i < n) {
        memcpy(&w, s + n - 8, 8);
        if (bad8(w)) return 0;
    }
    return 1;
#else
    for (size_t i = 0; i < n; i++)
        if (!bare_byte[(unsigned char)s[i]]) return 0;
    return 1;
#endif
}

#if defined(__SSE2__) && defined(AM_SWAR)
#define AM_SSE2 1
/* Copies the n >= 16 bytes of s to d (the last 16 bytes by an overlapping
 * round); 1 when they are a bare word as am_bare has it (same bytes: more
 * than ' ' and less than DEL as signed bytes, so no byte >= 0x80, and not
 * '"', '=', '\\'; not starting with '@'). */
static inline int am_copy_bare16(char *d, const char *s, size_t n)
{
    const __m128i sp = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
    const __m128i q = _mm_set1_epi8('"'), eq = _mm_set1_epi8('='), bs = _mm_set1_epi8('\\');
    __m128i bad = _mm_setzero_si128();
    size_t i = 0;
    for (;;) {
        if (i + 16 > n) i = n - 16;
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        _mm_storeu_si128((__m128i *)(void *)(d + i), x);
        __m128i ok = _mm_and_si128(_mm_cmpgt_epi8(x, sp), _mm_cmplt_epi8(x, del));
        __m128i no = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, eq)), _mm_cmpeq_epi8(x, bs));
        bad = _mm_or_si128(bad, _mm_andnot_si128(ok, _mm_set1_epi8(-1)));
        bad = _mm_or_si128(bad, no);
        if (i + 16 >= n) break;
        i += 16;
    }
    return _mm_movemask_epi8(bad) == 0 && s[0] != '@';
}
#endif

/* A bit for the first bytes of key: an element's attrmem->keys has the
 * bits of all its keys, so a key whose bit is not there is not one of
 * them (ir_elem_set appends it without a search; ir_elem_get does not
 * look: most gets find their key, and the test costs them more than it
 * saves the others). */
static inline uint64_t key_bit(const char *key)
{
    unsigned c0 = (unsigned char)key[0], c1 = c0 ? (unsigned char)key[1] : 0;
    return (uint64_t)1 << ((c0 * 3 + c1) & 63);
}

/* The record of key (kl bytes) = val (vl bytes) at p (room for it). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void am_fill(ir_attr *a, char *p, size_t kl, const char *val, size_t vl)
{
    uint32_t k32 = (uint32_t)kl, v32 = (uint32_t)vl;
    if (kl >= AM_BARE || vl >= AM_BARE) k32 = v32 = 0;  /* never written by ir__attrs_text */
    memcpy(p, &k32, 4);
    p += AM_HDR;
#ifdef AM_SSE2
    if (vl >= 16 && vl <= 256) {  /* copied and checked 16 bytes a round */
        if (k32 == kl && am_copy_bare16(p + kl + 1, val, vl)) v32 |= AM_BARE;
        p[kl + 1 + vl] = '\0';
    } else
#endif
    {
        char *d = p + kl + 1;
        size_t n = vl + 1;
        if (n <= 16) {  /* the usual short value: no call */
            if (n >= 8) {
                uint64_t w0, w1;
                memcpy(&w0, val, 8);
                memcpy(&w1, val + n - 8, 8);
                memcpy(d, &w0, 8);
                memcpy(d + n - 8, &w1, 8);
            } else if (n >= 4) {
                uint32_t w0, w1;
                memcpy(&w0, val, 4);
                memcpy(&w1, val + n - 4, 4);
                memcpy(d, &w0, 4);
                memcpy(d + n - 4, &w1, 4);
            } else {
                d[0] = val[0];
                d[n - 1] = val[n - 1];
                d[n / 2] = val[n / 2];
            }
        } else {
            memcpy(d, val, n);
        }
        if (k32 == kl && am_bare(d, vl)) v32 |= AM_BARE;  /* on the copy (am_bare reads before it) */
    }
    memcpy(p - 4, &v32, 4);
    a->key = p;
    a->val = p + kl + 1;
}

#define AM_KEY_INLINE 32  /* keys shorter than this are copied while measured */

/* The tag of a key: its first four bytes, those from its NUL on 0 (bytes
 * after the NUL are not read); *slot: its recent-record slot (struct
 * ir_darena; the usual keys all get slots of their own but vertex and
 * draw). */
static inline uint32_t am_tag(const char *key, unsigned *slot)
{
    uint32_t c0 = (unsigned char)key[0];
    uint32_t c1 = c0 ? (unsigned char)key[1] : 0;
    uint32_t c2 = c1 ? (unsigned char)key[2] : 0;
    uint32_t c3 = c2 ? (unsigned char)key[3] : 0;
    *slot = (c0 + c1 * 4 + c2 * 2) & (AM_SLOTS - 1);
    return c0 | c1 << 8 | c2 << 16 | c3 << 24;
}

/* The value of the record whose key is r (tagged rtag; r may be NULL) when
 * its key (tagged tag) and value are key and val, else NULL. */
static inline const char *am_same(const char *r, uint32_t rtag, uint32_t tag, const char *key,
                                  const char *val)
{
    if (!r || rtag != tag) return NULL;
    size_t i;
    if (tag >> 24) {  /* the first four bytes are the same: the rest up to the NUL */
        for (i = 4;; i++) {  /* bytes of key and val are read only up to their NUL */
            if (r[i] != key[i]) return NULL;
            if (!key[i]) break;
        }
    } else {  /* the same key of under four bytes: its length from the tag */
#if defined(__GNUC__)
        /* its length is the number of the tag's nonzero bytes, which are its
         * lowest ones (0 for the empty key) */
        i = tag ? (size_t)(39 - __builtin_clz(tag)) >> 3 : 0;
#else
        i = (size_t)((tag & 0xff) != 0) + ((tag & 0xff00) != 0) + ((tag & 0xff0000) != 0);
#endif
    }
    const char *rv = r + i + 1;
    for (i = 0;; i += 2) {
        char c = val[i];
        if (rv[i] != c) return NULL;
        if (!c) return rv;
        c = val[i + 1];
        if (rv[i + 1] != c) return NULL;
        if (!c) return rv;
    }
}

/* A new record for key=val in e's arena; sets *a. In a diagram's arena it
 * becomes the recent one of key's slot. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void am_record_new_tagged(struct ir_attrmem *m, ir_attr *a, const char *key,
                                        const char *val, int tagged, uint32_t tag, unsigned slot)
{
    struct ir_arena *ar = m->a;
    size_t vl = strlen(val);
    size_t room = (size_t)((uintptr_t)ar->end - (uintptr_t)ar->p);
    if (vl < room && room - vl > AM_HDR + AM_KEY_INLINE + 2) {
        /* a short key straight into the free bytes (then the record ends
         * where its NUL is): no strlen and memcpy calls */
        char *k = ar->p + AM_HDR;
        size_t kl = 0;
        /* four bytes a round (AM_KEY_INLINE is a multiple of 4), up to the NUL */
        for (; kl < AM_KEY_INLINE; kl += 4) {
            if ((k[kl] = key[kl]) == '\0') goto copied;
            if ((k[kl + 1] = key[kl + 1]) == '\0') { kl += 1; goto copied; }
            if ((k[kl + 2] = key[kl + 2]) == '\0') { kl += 2; goto copied; }
            if ((k[kl + 3] = key[kl + 3]) == '\0') { kl += 3; goto copied; }
        }
        goto long_key;
    copied:
        ar->p = k + kl + 1 + vl + 1;
        am_fill(a, k - AM_HDR, kl, val, vl);
        goto made;
    }
long_key:;
    size_t kl = strlen(key);
    if (kl > SIZE_MAX / 4 || vl > SIZE_MAX / 4) oom();
    char *p = ar_alloc(ar, AM_HDR + kl + vl + 2, 1);
    memcpy(p + AM_HDR, key, kl + 1);
    am_fill(a, p, kl, val, vl);
made:
    if (ar != &m->own) {  /* a diagram's arena (am_init) */
        struct ir_darena *da = (struct ir_darena *)ar;
        if (!tagged) tag = am_tag(key, &slot);
        da->recent[slot] = a->key;
        da->tag[slot] = tag;
    }
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void am_record_new(struct ir_attrmem *m, ir_attr *a, const char *key, const char *val)
{
    am_record_new_tagged(m, a, key, val, 0, 0, 0);
}

/* A record for key=val in e's arena (or, in a diagram's arena, the recent
 * one of key's slot when it has the same key and value); sets *a. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void am_record(struct ir_attrmem *m, ir_attr *a, const char *key, const char *val)
{
    if (m->a != &m->own) {
        struct ir_darena *da = (struct ir_darena *)m->a;
        unsigned slot;
        uint32_t tag = am_tag(key, &slot);
        const char *rv = am_same(da->recent[slot], da->tag[slot], tag, key, val);
        if (rv) {
            a->key = (char *)da->recent[slot];
            a->val = (char *)rv;
            return;
        }
    }
    am_record_new(m, a, key, val);
}

/* Appends key=val (no check for an existing key); e has its block m. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void am_append(ir_elem *e, struct ir_attrmem *m, const char *key, const char *val)
{
    size_t n = e->nattrs;
    if (n == m->entcap) {
        if (n > SIZE_MAX / 4 / sizeof(ir_attr)) oom();
        ir_attr *a = ar_alloc(m->a, 2 * n * sizeof *a, 16);
        memcpy(a, e->attrs, n * sizeof *a);
        e->attrs = a;
        m->entcap = 2 * n;
    }
    m->keys |= key_bit(key);
    am_record(m, &e->attrs[n], key, val);
    e->nattrs = n + 1;
}

/* Frees what e owns (not its struct; no zeroing). */
static inline void elem_free(ir_elem *e)
{
    struct ir_attrmem *m = e->attrmem;
    if (e->pts && (!m || e->pts != m->pts)) free(e->pts);
    if (e->str) free(e->str);  /* mostly NULL: no call */
    if (e->name) free(e->name);
    if (e->raw) free(e->raw);
    if (m) {
        if (m->a == &m->own) {
            ar_free(&m->own);
            free(m);
        }
    } else {
        free_attrs(e->attrs, e->nattrs);
    }
}

void ir_elem_clear(ir_elem *e)
{
    if (!e) return;
    elem_free(e);
    memset(e, 0, sizeof *e);
}

/* Frees a diagram_mem (spare_mem's form: one chunk, elems and cap). */
static void spare_free(diagram_mem *m)
{
    if (!m) return;
    free(m->d.elems);
    ar_free(&m->a.a);
    free(m);
}

void ir_diagram_free(ir_diagram *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->nelems; i++) elem_free(&d->elems[i]);
    free_attrs(d->attrs, d->nattrs);
    free(d->id);
    free(d->unit);
    if (!d->arena) {
        free(d->elems);
        free(d);
        return;
    }
    /* made by ir_diagram_new: d is the start of a diagram_mem; it becomes
     * the spare one, with its element array and its largest chunk */
    diagram_mem *m = (diagram_mem *)(void *)d;
    struct ir_arena *a = &m->a.a;
    ar_chunk *keep = NULL;
    for (ar_chunk *c = a->chunks; c; c = c->next)
        if (c->size <= SPARE_CHUNK_MAX && (!keep || c->size > keep->size)) keep = c;
    for (ar_chunk *c = a->chunks, *next; c; c = next) {
        next = c->next;
        if (c != keep) free(c);
    }
    if (keep) keep->next = NULL;
    a->chunks = keep;
    if (!d->elems) d->cap = 0;
    spare_free(atomic_exchange(&spare_mem, m));
}

ir_elem *ir_add(ir_diagram *d, ir_kind kind)
{
    if (d->nelems == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        if (cap > SIZE_MAX / sizeof *d->elems) oom();
        d->elems = xrealloc(d->elems, cap * sizeof *d->elems);
        d->cap = cap;
    }
    ir_elem *e = &d->elems[d->nelems++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->arena = d->arena;
    return e;
}

void ir_elem_set_pts(ir_elem *e, const ir_pt *pts, size_t n)
{
    struct ir_attrmem *m = e->attrmem;
    if (e->pts && (!m || e->pts != m->pts)) free(e->pts);
    e->pts = NULL;
    e->npts = 0;
    if (n == 0) return;
    if (n > SIZE_MAX / sizeof *pts) oom();
    ir_pt *p;
    if (n <= AM_PTS && !m && !e->attrs) {
        p = am_init(e, n, 0)->pts;  /* the element's block, with the points */
    } else if (n <= AM_PTS && m) {
        if (n > m->ptscap) {
            m->pts = ar_alloc(m->a, n * sizeof *p, 16);
            m->ptscap = n;
        }
        p = m->pts;
    } else {
        p = xrealloc(NULL, n * sizeof *pts);
    }
    memcpy(p, pts, n * sizeof *pts);
    e->pts = p;
    e->npts = n;
}

void ir_elem_copy(ir_elem *dst, const ir_elem *src)
{
    *dst = *src;
    dst->pts = NULL;
    dst->npts = 0;
    dst->str = xstrdup(src->str);
    dst->name = xstrdup(src->name);
    dst->raw = xstrdup(src->raw);
    /* the copy's memory is its own: one block for the points and the strings */
    dst->attrs = NULL;
    dst->nattrs = 0;
    dst->attrmem = NULL;
    dst->arena = NULL;
    size_t n = src->pts ? src->npts : 0;
    if (src->nattrs == 0) {
        ir_elem_set_pts(dst, src->pts, n);
        return;
    }
    size_t total = 0;
    for (size_t i = 0; i < src->nattrs; i++) {
        size_t l = strlen(src->attrs[i].key) + strlen(src->attrs[i].val) + AM_HDR + 2;
        if (l > SIZE_MAX / 4 - total) oom();
        total += l;
    }
    struct ir_attrmem *m = am_init(dst, n <= AM_PTS ? n : 0, total);
    ir_elem_set_pts(dst, src->pts, n);
    for (size_t i = 0; i < src->nattrs; i++) am_append(dst, m, src->attrs[i].key, src->attrs[i].val);
}

ir_elem *ir_add_copy(ir_diagram *d, const ir_elem *src)
{
    /* src may point into d->elems, which ir_add may move: copy it first. */
    ir_elem tmp;
    ir_elem_copy(&tmp, src);
    ir_elem *e = ir_add(d, src->kind);
    *e = tmp;
    return e;
}

/* The attributes of e from *i on as " key=value" at o (room up to end)
 * while they are records in e's arena with bare values (as b_word would
 * write them) and fit; *i becomes the first one not written (e->nattrs
 * after the last) and the end of the text is returned (what lies after
 * it is garbage). e has its attrmem. */
char *ir__attrs_text(const ir_elem *e, size_t *ip, char *o, char *end)
{
    const ir_attr *a = e->attrs;
    size_t i = *ip, n = e->nattrs;
    for (; i < n; i++) {
        const char *k = a[i].key;
        uint32_t kl, vf;
        memcpy(&kl, k - AM_HDR, 4);
        memcpy(&vf, k - AM_HDR + 4, 4);
        if (!(vf & AM_BARE) || a[i].val != k + kl + 1) break;
        size_t len = (size_t)kl + 1 + (vf & ~AM_BARE);  /* key=value */
        if ((size_t)(end - o) <= len + 16) break;
        *o = ' ';
        if (len <= 16)  /* a fixed-size copy: it may read into the arena's slack */
            memcpy(o + 1, k, 16);
        else
            memcpy(o + 1, k, len);
        o[1 + kl] = '=';
        o += len + 1;
    }
    *ip = i;
    return o;
}

/* --- attributes -------------------------------------------------------- */

void ir_set_attr(ir_attr **attrs, size_t *n, const char *key, const char *val)
{
    for (size_t i = 0; i < *n; i++) {
        if (!key_eq((*attrs)[i].key, key)) continue;
        char *old = (*attrs)[i].key;
        if (!val) {  /* remove, keeping the order of the others */
            memmove(&(*attrs)[i], &(*attrs)[i + 1], (*n - i - 1) * sizeof **attrs);
            (*n)--;
        } else {
            ir_attr_init(&(*attrs)[i], old, val);
        }
        free(old);
        return;
    }
    if (!val) return;
    if (*n == 0 || ir_attr_cap(*n + 1) > ir_attr_cap(*n))
        *attrs = xrealloc(*attrs, ir_attr_cap(*n + 1) * sizeof **attrs);
    ir_attr_init(&(*attrs)[*n], key, val);
    (*n)++;
}

/* ir_elem_set but for the usual append to a diagram's element */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void elem_set_slow(ir_elem *e, const char *key, const char *val)
{
    struct ir_attrmem *m = e->attrmem;
    if (!m) {
        /* attributes the reader (or a program) built stay in their form */
        if (e->attrs) {
            ir_set_attr(&e->attrs, &e->nattrs, key, val);
            return;
        }
        if (!val) return;
        m = am_init(e, 0, 0);
    }
    if (m->keys & key_bit(key)) {
        ir_attr *a = e->attrs;
        size_t n = e->nattrs;
        for (size_t i = 0; i < n; i++) {
            if (!key_eq(a[i].key, key)) continue;
            if (!val) {  /* remove, keeping the order of the others */
                memmove(&a[i], &a[i + 1], (n - i - 1) * sizeof *a);
                e->nattrs = n - 1;
            } else {
                am_record(m, &a[i], key, val);
            }
            return;
        }
    }
    if (val) am_append(e, m, key, val);
}

/* An element's new key with its diagram's recent record (about three in
 * four of tikz2ir's attributes); a miss makes the record out of line. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void elem_append_new(ir_elem *e, struct ir_attrmem *m, const char *key, const char *val,
                            uint32_t tag, unsigned slot)
{
    am_record_new_tagged(m, &e->attrs[e->nattrs], key, val, 1, tag, slot);  /* key's am_tag */
    e->nattrs++;
}

void ir_elem_set(ir_elem *e, const char *key, const char *val)
{
    struct ir_attrmem *m = e->attrmem;
    if (m && val && m->a != &m->own) {
        size_t n = e->nattrs;
        uint64_t bit = key_bit(key);
        if (!(m->keys & bit) && n < m->entcap) {
            struct ir_darena *da = (struct ir_darena *)m->a;
            unsigned slot;
            uint32_t tag = am_tag(key, &slot);
            const char *r = da->recent[slot];
            const char *rv = am_same(r, da->tag[slot], tag, key, val);
            m->keys |= bit;
            if (rv) {
                e->attrs[n].key = (char *)r;
                e->attrs[n].val = (char *)rv;
                e->nattrs = n + 1;
            } else {
                elem_append_new(e, m, key, val, tag, slot);
            }
            return;
        }
    }
    elem_set_slow(e, key, val);
}

void ir_elem_setf(ir_elem *e, const char *key, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0, small[0] = '\0';
    if ((size_t)n < sizeof small) {
        ir_elem_set(e, key, small);
        return;
    }
    char *big = xrealloc(NULL, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    ir_elem_set(e, key, big);
    free(big);
}

const char *ir_get_attr(const ir_attr *attrs, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (key_eq(attrs[i].key, key)) return attrs[i].val;
    return NULL;
}

const char *ir_elem_get(const ir_elem *e, const char *key)
{
    return ir_get_attr(e->attrs, e->nattrs, key);
}

/* --- numbers ----------------------------------------------------------- */

/* Length of the longest prefix of s (at most len bytes) that is a number in
 * the IR's grammar  [+-]? (D+ (. D*)? | . D+) ([eE] [+-]? D+)?  or 0. */
static size_t num_span(const char *s, size_t len)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
    }
    if (digits == 0) return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1, ed = 0;
        if (j < len && (s[j] == '+' || s[j] == '-')) j++;
        while (j < len && s[j] >= '0' && s[j] <= '9') j++, ed++;
        if (ed) i = j;
    }
    return i;
}

int ir_parse_num_n(const char *s, size_t len, double *out)
{
    /* the usual short form (at most 15 digits, no exponent) exactly: a
     * whole number below 2^53 over a power of ten up to 1e22 is one
     * correctly rounded division, as strtod would round it */
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    if (!s || len == 0) return 0;
    {
        /* one pass for [+-]? digits with at most one '.' somewhere, at
         * least one digit and at most 15, nothing else: all of it is a
         * number of the grammar (num_span) */
        size_t i = 0;
        int neg = 0, digits = 0, frac = 0, dot = 0;
        unsigned long long m = 0;
        if (s[0] == '-' || s[0] == '+') neg = s[i++] == '-';
        for (; i < len; i++) {
            unsigned d = (unsigned)(unsigned char)s[i] - '0';
            if (d <= 9) {
                m = m * 10 + d;
                digits++;
                frac += dot;
            } else if (s[i] == '.' && !dot) {
                dot = 1;
            } else {
                break;
            }
        }
        if (i == len && digits > 0 && digits <= 15) {
            double v = (double)m / p10[frac];
            if (out) *out = neg ? -v : v;
            return 1;
        }
    }
    /* the rest: an exponent or more than 15 digits (or not a number) */
    if (num_span(s, len) != len) return 0;
    /* s[0..len) is a complete decimal number: strtod, which the programs
     * only ever run in the C locale, stops exactly at its end. */
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end != s + len || !isfinite(v)) return 0;
    if (out) *out = v;
    return 1;
}

int ir_parse_num(const char *s, double *out)
{
    return s ? ir_parse_num_n(s, strlen(s), out) : 0;
}

int ir_parse_nums(const char *s, char sep, double *out, size_t max)
{
    if (!s || !*s) return -1;
    size_t n = 0;
    for (;;) {
        const char *e = strchr(s, sep);
        size_t len = e ? (size_t)(e - s) : strlen(s);
        double v;
        if (!ir_parse_num_n(s, len, &v)) return -1;
        if (n < max && out) out[n] = v;
        if (n == (size_t)INT_MAX) return -1;
        n++;
        if (!e) break;
        s = e + 1;
    }
    return (int)n;
}

double ir_elem_getnum(const ir_elem *e, const char *key, double dflt)
{
    double v;
    return ir_parse_num(ir_elem_get(e, key), &v) ? v : dflt;
}

int ir_elem_getpt(const ir_elem *e, const char *key, ir_pt *out)
{
    double v[2];
    if (ir_parse_nums(ir_elem_get(e, key), ',', v, 2) != 2) return 0;
    out->x = v[0];
    out->y = v[1];
    return 1;
}

/* --- boxes -------------------------------------------------------------- */

ir_box ir_box_empty(void)
{
    ir_box b = {0, 0, 0, 0, 1};
    return b;
}

#define DEG (3.14159265358979323846 / 180.0)

/* One coordinate of the ellipse point C + A cos t + B sin t. */
static void ellipse_pt(const ir_pt *p, double tdeg, double *x, double *y)
{
    double c = cos(tdeg * DEG), s = sin(tdeg * DEG);
    *x = p[0].x + p[1].x * c + p[2].x * s;
    *y = p[0].y + p[1].y * c + p[2].y * s;
}

/* hypot(a, b), which is |a| exactly when b is a zero (and |b| when a
 * is): axis-aligned ellipses need no call */
static inline double hypot0(double a, double b)
{
    if (b == 0) return fabs(a);
    if (a == 0) return fabs(b);
    return hypot(a, b);
}

static void box_ellipse(ir_box *b, const ir_pt *p)
{
    double rx = hypot0(p[1].x, p[2].x), ry = hypot0(p[1].y, p[2].y);
    ir_box_add(b, p[0].x - rx, p[0].y - ry);
    ir_box_add(b, p[0].x + rx, p[0].y + ry);
}

static void box_arc(ir_box *b, const ir_pt *p, double t1, double t2)
{
    double lo = t1 < t2 ? t1 : t2, hi = t1 < t2 ? t2 : t1;
    if (!(hi - lo < 360.0)) {  /* a full turn or more (or not finite) */
        box_ellipse(b, p);
        return;
    }
    double x, y;
    ellipse_pt(p, t1, &x, &y);
    ir_box_add(b, x, y);
    ellipse_pt(p, t2, &x, &y);
    ir_box_add(b, x, y);
    /* Bring the interval near zero so the candidate angles below are few. */
    double span = hi - lo;
    lo = fmod(lo, 360.0);
    hi = lo + span;
    /* x(t) is extreme where tan t = Bx/Ax, y(t) where tan t = By/Ay. */
    double t0[2] = {atan2(p[2].x, p[1].x) / DEG, atan2(p[2].y, p[1].y) / DEG};
    for (int axis = 0; axis < 2; axis++) {
        for (int k = -6; k <= 6; k++) {
            double t = t0[axis] + 180.0 * k;
            if (t < lo || t > hi) continue;
            ellipse_pt(p, t, &x, &y);
            ir_box_add(b, x, y);
        }
    }
}

/* Adds the extremes of one coordinate of a cubic Bezier to *ts. */
static int bezier_extrema(double p0, double p1, double p2, double p3, double ts[2])
{
    double a = p1 - p0, b = p2 - p1, c = p3 - p2;
    double qa = a - 2 * b + c, qb = 2 * (b - a), qc = a;
    int n = 0;
    if (fabs(qa) < 1e-12) {
        if (fabs(qb) > 1e-12) {
            double t = -qc / qb;
            if (t > 0 && t < 1) ts[n++] = t;
        }
        return n;
    }
    double disc = qb * qb - 4 * qa * qc;
    if (disc < 0) return 0;
    double sq = sqrt(disc);
    double r[2] = {(-qb + sq) / (2 * qa), (-qb - sq) / (2 * qa)};
    for (int i = 0; i < 2; i++)
        if (r[i] > 0 && r[i] < 1) ts[n++] = r[i];
    return n;
}

static void bezier_pt(const ir_pt *p, double t, double *x, double *y)
{
    double s = 1 - t;
    double b0 = s * s * s, b1 = 3 * s * s * t, b2 = 3 * s * t * t, b3 = t * t * t;
    *x = b0 * p[0].x + b1 * p[1].x + b2 * p[2].x + b3 * p[3].x;
    *y = b0 * p[0].y + b1 * p[1].y + b2 * p[2].y + b3 * p[3].y;
}

static void box_curve(ir_box *b, const ir_pt *p)
{
    ir_box_add(b, p[0].x, p[0].y);
    ir_box_add(b, p[3].x, p[3].y);
    double ts[4];
    int n = bezier_extrema(p[0].x, p[1].x, p[2].x, p[3].x, ts);
    n += bezier_extrema(p[0].y, p[1].y, p[2].y, p[3].y, ts + n);
    for (int i = 0; i < n; i++) {
        double x, y;
        bezier_pt(p, ts[i], &x, &y);
        ir_box_add(b, x, y);
    }
}

/* The box of n > 0 points: ir_box_add of each in turn, in registers (the
 * first point as it is, even NaN; a later coordinate only when it
 * compares below or above, so never a NaN). */
static ir_box box_pts(const ir_pt *p, size_t n)
{
#if defined(__SSE2__)
    /* both coordinates at once: _mm_min_pd(v, lo) is v < lo ? v : lo per
     * lane (lo when unordered), _mm_max_pd(v, hi) is v > hi ? v : hi:
     * the same comparisons as the loop below */
    __m128d lo = _mm_loadu_pd(&p[0].x), hi = lo;
    for (size_t i = 1; i < n; i++) {
        __m128d v = _mm_loadu_pd(&p[i].x);
        lo = _mm_min_pd(v, lo);
        hi = _mm_max_pd(v, hi);
    }
    double l[2], h[2];
    _mm_storeu_pd(l, lo);
    _mm_storeu_pd(h, hi);
    ir_box b = {l[0], l[1], h[0], h[1], 0};
    return b;
#else
    double x1 = p[0].x, x2 = x1, y1 = p[0].y, y2 = y1;
    for (size_t i = 1; i < n; i++) {
        double x = p[i].x, y = p[i].y;
        x1 = x < x1 ? x : x1;
        x2 = x > x2 ? x : x2;
        y1 = y < y1 ? y : y1;
        y2 = y > y2 ? y : y2;
    }
    ir_box b = {x1, y1, x2, y2, 0};
    return b;
#endif
}

static ir_box shape_box(ir_kind kind, const ir_elem *e)
{
    ir_box b = ir_box_empty();
    const ir_pt *p = e->pts;
    size_t n = p ? e->npts : 0;
    switch (kind) {
    case IR_POLY:
        if (n) b = box_pts(p, n);
        break;
    case IR_RECT:
    case IR_TEXT:
    case IR_VERTEX:
        if (n) b = box_pts(p, n < 2 ? n : 2);
        break;
    case IR_ELLIPSE:
        if (n >= 3) box_ellipse(&b, p);
        break;
    case IR_ARC:
        if (n >= 3) box_arc(&b, p, e->t1, e->t2);
        break;
    case IR_CURVE:
        if (n >= 4) box_curve(&b, p);
        break;
    case IR_COORD:
        if (n >= 1) ir_box_add(&b, p[0].x, p[0].y);
        break;
    default:
        break;
    }
    return b;
}

ir_box ir_elem_box(const ir_elem *e)
{
    if (e->kind == IR_CLIP) return e->sub == IR_CLIP ? ir_box_empty() : shape_box(e->sub, e);
    return shape_box(e->kind, e);
}
