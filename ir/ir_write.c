/* ir_write.c — the IR writer: deterministic, locale-independent text.
 *
 * Numbers below 1e9 in magnitude (all real coordinates) are formatted in
 * integer arithmetic: rounded to thousandths half away from zero, exactly as
 * llround(v * 1000) rounds. Larger ones go through snprintf in the C locale
 * (the programs never call setlocale, so the decimal point is always '.').
 * Strings that need it are quoted with the escapes the reader undoes; bytes
 * that are not valid UTF-8 are written as \xHH so the output is always valid
 * UTF-8 text.
 *
 * A record is formatted straight into one fixed output buffer (on the
 * writer's stack) which goes to the FILE with one fwrite when it is full
 * and at the end of the diagram: no per-field stdio calls or temporary
 * strings. */
#include "ir/ir_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- numbers ------------------------------------------------------------ */

static const char digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes v (< 10^10) in decimal at p; returns the end. */
static char *put_u32(char *p, uint32_t v)
{
    int n = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5
          : v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
    char *end = p + n, *q = end;
    while (v >= 100) {
        uint32_t r = v % 100;
        v /= 100;
        q -= 2;
        q[0] = digits2[2 * r];
        q[1] = digits2[2 * r + 1];
    }
    if (v >= 10) {
        q[-2] = digits2[2 * v];
        q[-1] = digits2[2 * v + 1];
    } else {
        q[-1] = (char)('0' + v);
    }
    return end;
}

/* The rare numbers: NaN, infinities and magnitudes from 1e9 on. */
static char *fmt_num_slow(char *p, double v)
{
    char buf[32];
    if (isnan(v)) {
        strcpy(buf, "nan");
    } else if (isinf(v)) {
        strcpy(buf, v < 0 ? "-inf" : "inf");
    } else if (fabs(v) < 1e12) {
        /* At most 12 + 3 significant digits: reading this back gives a
         * double that prints as the same text (DBL_DIG is 15). */
        snprintf(buf, sizeof buf, "%.3f", v);
        char *dot = strchr(buf, '.');
        if (dot) {
            char *end = buf + strlen(buf);
            while (end > dot + 1 && end[-1] == '0') *--end = '\0';
            if (end == dot + 1) *dot = '\0';
        }
    } else {
        snprintf(buf, sizeof buf, "%.15g", v);
    }
    if (strcmp(buf, "-0") == 0) strcpy(buf, "0");
    size_t n = strlen(buf);
    memcpy(p, buf, n);
    return p + n;
}

/* d3[i]: i in three digits with leading zeros, "000" to "999" */
#define D10(p) p "0", p "1", p "2", p "3", p "4", p "5", p "6", p "7", p "8", p "9"
#define D100(p) D10(p "0"), D10(p "1"), D10(p "2"), D10(p "3"), D10(p "4"), \
                D10(p "5"), D10(p "6"), D10(p "7"), D10(p "8"), D10(p "9")
static const char d3[1000][4] = {D100("0"), D100("1"), D100("2"), D100("3"), D100("4"),
                                 D100("5"), D100("6"), D100("7"), D100("8"), D100("9")};

/* The number tables, in one object (one base address in the code):
 * i4[i]: i (< 1000) without leading zeros, left-aligned, NUL-padded, its
 * length in the last byte ("7\0\0\1", "42\0\2", "123\3");
 * f4[f]: ".ddd" for thousandths f; f4len[f] its length without trailing
 * zeros: 0 for 0 (no fraction at all), 2 for ".d00", 3 for ".dd0", else 4. */
#define S10(p, s) p "0" s, p "1" s, p "2" s, p "3" s, p "4" s, p "5" s, p "6" s, p "7" s, p "8" s, p "9" s
#define S100(p, s) S10(p "0", s), S10(p "1", s), S10(p "2", s), S10(p "3", s), S10(p "4", s), \
                   S10(p "5", s), S10(p "6", s), S10(p "7", s), S10(p "8", s), S10(p "9", s)
#define F10(p) "." p "0", "." p "1", "." p "2", "." p "3", "." p "4", \
               "." p "5", "." p "6", "." p "7", "." p "8", "." p "9"
#define F100(p) F10(p "0"), F10(p "1"), F10(p "2"), F10(p "3"), F10(p "4"), \
                F10(p "5"), F10(p "6"), F10(p "7"), F10(p "8"), F10(p "9")
/* f = 100a + 10b + c */
#define FLC(b, a) ((b) ? 3 : (a) ? 2 : 0), 4, 4, 4, 4, 4, 4, 4, 4, 4
#define FLB(a) FLC(0, a), FLC(1, a), FLC(2, a), FLC(3, a), FLC(4, a), \
               FLC(5, a), FLC(6, a), FLC(7, a), FLC(8, a), FLC(9, a)
static const struct {
    char i4[1000][4];
    char f4[1000][4];
    unsigned char f4len[1000];
} nt = {
    {S10("", "\0\0\1"), S10("1", "\0\2"), S10("2", "\0\2"), S10("3", "\0\2"), S10("4", "\0\2"),
     S10("5", "\0\2"), S10("6", "\0\2"), S10("7", "\0\2"), S10("8", "\0\2"), S10("9", "\0\2"),
     S100("1", "\3"), S100("2", "\3"), S100("3", "\3"), S100("4", "\3"), S100("5", "\3"),
     S100("6", "\3"), S100("7", "\3"), S100("8", "\3"), S100("9", "\3")},
    {F100("0"), F100("1"), F100("2"), F100("3"), F100("4"),
     F100("5"), F100("6"), F100("7"), F100("8"), F100("9")},
    {FLB(0), FLB(1), FLB(2), FLB(3), FLB(4), FLB(5), FLB(6), FLB(7), FLB(8), FLB(9)},
};

/* v < 1000 without leading zeros (4 bytes stored) */
static inline char *put_small(char *p, uint32_t v)
{
    memcpy(p, nt.i4[v], 4);
    return p + (unsigned char)nt.i4[v][3];
}

/* The digits of u = 1000 * ip + frac (u < 10^12) and the fraction. */
static inline char *put_thousandths(char *p, uint64_t u)
{
    uint32_t ip = (uint32_t)(u / 1000);
    uint32_t frac = (uint32_t)(u - (uint64_t)ip * 1000);
    if (ip < 1000) {
        p = put_small(p, ip);
    } else {
        uint32_t hi = ip / 1000, lo = ip - hi * 1000;
        if (hi < 1000) {
            p = put_small(p, hi);
        } else {
            /* top is 1000 when v rounds up to 1e9, never more */
            uint32_t top = hi / 1000, mid = hi - top * 1000;
            if (top < 1000) {
                p = put_small(p, top);
            } else {
                memcpy(p, "1000", 4);
                p += 4;
            }
            memcpy(p, d3[mid], 3);
            p += 3;
        }
        memcpy(p, d3[lo], 3);
        p += 3;
    }
    /* '.' and three digits, trailing zeros dropped: nothing for 0 */
    memcpy(p, nt.f4[frac], 4);
    return p + nt.f4len[frac];
}

/* Writes the IR form of v at p (at most 31 bytes); returns the end. The
 * fast path stores whole 4-byte table entries, so a few bytes after the
 * end may be overwritten too, but never beyond p + 16 (sign, 10 digits
 * when v rounds to 1e9, then one 4-byte store): the callers' 32 bytes of
 * room hold that. */
static inline char *fmt_num_fast(char *p, double v)
{
    /* |v| < 1e9. r = llround(x): |x| < 1e12 < 2^53, so t = trunc(x) is exact, and so
     * is x - t (Sterbenz: t <= x < t + 1 <= 2t for x >= 1; t = 0 below 1;
     * mirrored for negative x). Halves round away from zero. */
    double x = v * 1000.0;
    long long t = (long long)x;
    double d = x - (double)t;
    if (d >= 0.5) t++;
    else if (d <= -0.5) t--;
    if (t < 0) {
        *p++ = '-';
        t = -t;
    }
    return put_thousandths(p, (uint64_t)t);  /* at most 10^12 */
}

/* The texts of recently formatted numbers, by the bits of the double: a
 * direct-mapped cache, one per thread. A diagram's coordinates repeat a
 * lot (shared corners, the same radius or line width), and a hit is one
 * 16-byte copy instead of the formatting. Only numbers of the fast path
 * go in (at most 15 bytes: sign, 10 digits, '.', 3 digits), so an entry's
 * text is the one fmt_num_fast gives for its bits. txt[15] is the text's
 * length, 0 in an empty entry. tests/unit/test_ir_numcache.c checks the
 * cache against the reference formatter. */
#define NUM_CACHE_BITS 8
typedef struct {
    uint64_t bits;
    char txt[16];
} num_cache_entry;
static _Thread_local num_cache_entry num_cache[1 << NUM_CACHE_BITS];

/* fmt_num for a number not in its cache entry c: formatted, and kept in c
 * when it is one of the fast path. */
static char *fmt_num_miss(char *p, double v, num_cache_entry *c, uint64_t bits)
{
    if (!(fabs(v) < 1e9)) return fmt_num_slow(p, v);
    char *end = fmt_num_fast(p, v);
    memcpy(c->txt, p, 15);  /* the text, then bytes never read */
    c->txt[15] = (char)(end - p);
    c->bits = bits;
    return end;
}

/* Writes the IR form of v at p (room for 32 bytes; up to p + 16 may be
 * overwritten, as by fmt_num_fast); returns the end. */
static inline char *fmt_num(char *p, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    num_cache_entry *c = &num_cache[(bits * 0x9E3779B97F4A7C15ull) >> (64 - NUM_CACHE_BITS)];
    if (c->bits == bits && c->txt[15]) {
        memcpy(p, c->txt, 16);  /* the text, then bytes past its end */
        return p + (unsigned char)c->txt[15];
    }
    return fmt_num_miss(p, v, c, bits);
}

char *ir_fmt_num(char *buf, double v)
{
    *fmt_num(buf, v) = '\0';
    return buf;
}

/* --- the output buffer ------------------------------------------------- */

#define WB_SIZE 16384

typedef struct {
    char *p, *end;  /* next free byte; end of buf */
    FILE *f;
    char buf[WB_SIZE];
} wbuf;

static void wb_init(wbuf *b, FILE *f)
{
    b->p = b->buf;
    b->end = b->buf + WB_SIZE;
    b->f = f;
}

static void wb_flush(wbuf *b)
{
    size_t n = (size_t)(b->p - b->buf);
    if (n) fwrite(b->buf, 1, n, b->f);
    b->p = b->buf;
}

/* Room for n (<= WB_SIZE) more bytes at b->p. */
static inline char *wb_room(wbuf *b, size_t n)
{
    if ((size_t)(b->end - b->p) < n) wb_flush(b);
    return b->p;
}

/* A literal (at most 16 bytes): a fixed-size copy the compiler inlines. */
#define WB_LIT(b, lit)                                      \
    do {                                                    \
        _Static_assert(sizeof(lit) - 1 <= 16, "WB_LIT");    \
        char *wb_o_ = wb_room((b), 16);                     \
        memcpy(wb_o_, (lit), sizeof(lit) - 1);              \
        (b)->p = wb_o_ + sizeof(lit) - 1;                   \
    } while (0)

static inline void wb_putc(wbuf *b, char c)
{
    if (b->p == b->end) wb_flush(b);
    *b->p++ = c;
}

/* s up to its NUL */
static void wb_str(wbuf *b, const char *s)
{
    char *o = b->p, *lim = b->end;
    for (; *s; s++) {
        if (o == lim) {
            b->p = o;
            wb_flush(b);
            o = b->p;
        }
        *o++ = *s;
    }
    b->p = o;
}

static inline void put_num(wbuf *b, double v)
{
    char *p = wb_room(b, 32);
    *p++ = ' ';
    b->p = fmt_num(p, v);
}

/* --- words and quoted strings ------------------------------------------ */

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid.
 * A NUL is never a continuation byte, so on a NUL-terminated string n may
 * be 4: the check stops at the terminator. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) len = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, min = 0x10000;
    else return 0;
    if (len > n) return 0;
    unsigned cp = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

#define R4(x) x, x, x, x
#define R16(x) R4(x), R4(x), R4(x), R4(x)
#define R64(x) R16(x), R16(x), R16(x), R16(x)
const unsigned char ir_word_class[256] = {
    IR_W_END, IR_W_BAD, IR_W_BAD, IR_W_BAD, R4(IR_W_BAD), R4(IR_W_BAD), R4(IR_W_BAD), R16(IR_W_BAD),
    /* 0x20 */ IR_W_BAD, IR_W_OK, IR_W_BAD, IR_W_OK, R4(IR_W_OK), R4(IR_W_OK), R4(IR_W_OK),
    /* 0x30 */ R4(IR_W_OK), R4(IR_W_OK), R4(IR_W_OK), IR_W_OK, IR_W_BAD, IR_W_OK, IR_W_OK,
    /* 0x40 */ R16(IR_W_OK),
    /* 0x50 */ R4(IR_W_OK), R4(IR_W_OK), R4(IR_W_OK), IR_W_BAD, IR_W_OK, IR_W_OK, IR_W_OK,
    /* 0x60 */ R16(IR_W_OK),
    /* 0x70 */ R4(IR_W_OK), R4(IR_W_OK), R4(IR_W_OK), IR_W_OK, IR_W_OK, IR_W_OK, IR_W_BAD,
    R64(IR_W_HI), R64(IR_W_HI),
};

int ir_word_is_bare(const char *s)
{
    if (!s || !*s || *s == '@') return 0;
    const unsigned char *p = (const unsigned char *)s;
    for (;;) {
        unsigned k = ir_word_class[*p];
        if (k == IR_W_OK) {
            p++;
            continue;
        }
        if (k == IR_W_END) return 1;
        if (k == IR_W_BAD) return 0;
        size_t l = utf8_len(p, 4);
        if (l == 0) return 0;
        p += l;
    }
}

/* Byte classes inside quotes: Q_OK as it is, Q_END the NUL, Q_ESC a
 * backslash escape (esc[] holds the letter), Q_HEX \xHH, Q_HI a UTF-8
 * sequence (\xHH for each byte when invalid). */
enum { Q_OK, Q_END, Q_ESC, Q_HEX, Q_HI };
static const unsigned char qclass[256] = {
    Q_END, Q_HEX, Q_HEX, Q_HEX, R4(Q_HEX), Q_HEX, Q_ESC, Q_ESC, Q_HEX, Q_HEX, Q_ESC, Q_HEX, Q_HEX,
    R16(Q_HEX),
    /* 0x20 */ Q_OK, Q_OK, Q_ESC, Q_OK, R4(Q_OK), R4(Q_OK), R4(Q_OK),
    /* 0x30 */ R16(Q_OK), R16(Q_OK),
    /* 0x50 */ R4(Q_OK), R4(Q_OK), R4(Q_OK), Q_ESC, Q_OK, Q_OK, Q_OK,
    /* 0x60 */ R16(Q_OK),
    /* 0x70 */ R4(Q_OK), R4(Q_OK), R4(Q_OK), Q_OK, Q_OK, Q_OK, Q_HEX,
    R64(Q_HI), R64(Q_HI),
};

static char *put_hex(char *o, unsigned c)
{
    static const char hex[] = "0123456789abcdef";
    o[0] = '\\';
    o[1] = 'x';
    o[2] = hex[c >> 4];
    o[3] = hex[c & 15];
    return o + 4;
}

static void b_quoted(wbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    wb_putc(b, '"');
    for (;;) {
        /* the longest escape (\xHH) or sequence is 4 bytes, the quote 1 */
        char *o = wb_room(b, 5);
        unsigned c = *p;
        switch (qclass[c]) {
        case Q_OK:
            *o++ = (char)c;
            p++;
            break;
        case Q_END:
            *o++ = '"';
            b->p = o;
            return;
        case Q_ESC:
            o[0] = '\\';
            o[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : c == '\t' ? 't' : (char)c;
            o += 2;
            p++;
            break;
        case Q_HI: {
            size_t l = utf8_len(p, 4);
            if (l) {
                memcpy(o, p, l);
                o += l;
                p += l;
                break;
            }
            o = put_hex(o, c);  /* not valid UTF-8 */
            p++;
            break;
        }
        default:
            o = put_hex(o, c);
            p++;
            break;
        }
        b->p = o;
    }
}

/* s bare when ir_word_is_bare(s), else quoted. */
static void b_word(wbuf *b, const char *s)
{
    const unsigned char *q = (const unsigned char *)s;
    if (q[0] == 0 || q[0] == '@') {
        b_quoted(b, s);
        return;
    }
    /* the usual word, plain ASCII: scanned, then copied in one piece */
    const unsigned char *t = q;
    while (ir_word_class[*t] == IR_W_OK) t++;
    if (*t == 0 && (size_t)(t - q) <= (size_t)(b->end - b->p)) {
        memcpy(b->p, s, (size_t)(t - q));
        b->p += t - q;
        return;
    }
    /* checked while it is copied */
    char *o = b->p, *lim = b->end;
    for (;;) {
        unsigned c = *q;
        unsigned k = ir_word_class[c];
        if (k == IR_W_OK) {
            if (o == lim) break;
            *o++ = (char)c;
            q++;
            continue;
        }
        if (k == IR_W_END) {
            b->p = o;
            return;
        }
        if (k == IR_W_BAD) {
            b_quoted(b, s);
            return;
        }
        size_t l = utf8_len(q, 4);
        if (l == 0) {
            b_quoted(b, s);
            return;
        }
        if ((size_t)(lim - o) < l) break;
        memcpy(o, q, l);
        o += l;
        q += l;
    }
    /* the buffer is full before the end of s: nothing was committed */
    if (ir_word_is_bare(s)) wb_str(b, s);
    else b_quoted(b, s);
}

/* " key=value" for each attribute (keys are written as they are: the
 * reader and ir_elem_set only make valid ones) */
static void put_attrs(wbuf *b, const ir_attr *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *k = a[i].key ? a[i].key : "";
        size_t kl = strlen(k);
        if (kl + 2 <= WB_SIZE) {
            char *o = wb_room(b, kl + 2);
            o[0] = ' ';
            memcpy(o + 1, k, kl);
            o[kl + 1] = '=';
            b->p = o + kl + 2;
        } else {
            wb_putc(b, ' ');
            wb_str(b, k);
            wb_putc(b, '=');
        }
        b_word(b, a[i].val ? a[i].val : "");
    }
}

/* An element's attributes: records (ir_internal.h) with a bare value are
 * copied as they are, " key=value" in one piece; the others as put_attrs
 * writes them. */
static void put_elem_attrs(wbuf *b, const ir_elem *e)
{
    if (!e->mem) {
        put_attrs(b, e->attrs, e->nattrs);
        return;
    }
    for (size_t i = 0; i < e->nattrs; i++) {
        const ir_attr *a = &e->attrs[i];
        const ir_attr_head *h = ir_attr_head_of(a);
        size_t len = (size_t)h->keylen + 1 + (h->vallen & ~IR_ATTR_BARE);  /* key=value */
        if (!(h->vallen & IR_ATTR_BARE) || len >= WB_SIZE) {
            put_attrs(b, a, 1);
            continue;
        }
        char *o = wb_room(b, len + 1);
        o[0] = ' ';
        memcpy(o + 1, a->key, len);
        o[1 + h->keylen] = '=';
        b->p = o + 1 + len;
    }
}

/* --- records ------------------------------------------------------------ */

void ir_write_header(FILE *f)
{
    fprintf(f, "diagramir %d\n", IR_VERSION);
}

/* Writes the n points the record needs; points the element lacks are 0. */
static void put_pts(wbuf *b, const ir_elem *e, size_t n)
{
    size_t have = e->pts ? e->npts : 0, i = 0;
    if (have > n) have = n;
    for (; i < have; i++) {
        put_num(b, e->pts[i].x);
        put_num(b, e->pts[i].y);
    }
    for (; i < n; i++) WB_LIT(b, " 0 0");
}

static void put_shape(wbuf *b, ir_kind kind, const ir_elem *e)
{
    switch (kind) {
    case IR_POLY:
        if (e->closed) WB_LIT(b, "poly closed");
        else WB_LIT(b, "poly open");
        put_pts(b, e, e->pts ? e->npts : 0);
        break;
    case IR_RECT:
        WB_LIT(b, "rect");
        put_pts(b, e, 2);
        break;
    case IR_ELLIPSE:
        WB_LIT(b, "ellipse");
        put_pts(b, e, 3);
        break;
    case IR_ARC:
        WB_LIT(b, "arc");
        put_pts(b, e, 3);
        put_num(b, e->t1);
        put_num(b, e->t2);
        break;
    case IR_CURVE:
        WB_LIT(b, "curve");
        put_pts(b, e, 4);
        break;
    default:
        wb_str(b, ir_kind_name(kind));
        break;
    }
}

static void b_elem(wbuf *b, const ir_elem *e)
{
    switch (e->kind) {
    case IR_OTHER:
        if (e->raw) {
            wb_str(b, e->raw);
            wb_putc(b, '\n');
        }
        return;
    case IR_POLY:
    case IR_RECT:
    case IR_ELLIPSE:
    case IR_ARC:
    case IR_CURVE:
        put_shape(b, e->kind, e);
        break;
    case IR_CLIP:
        WB_LIT(b, "clip ");
        put_shape(b, e->sub == IR_POLY || e->sub == IR_ELLIPSE ? e->sub : IR_RECT, e);
        break;
    case IR_TEXT:
        WB_LIT(b, "text");
        put_pts(b, e, 2);
        wb_putc(b, ' ');
        b_quoted(b, e->str);
        break;
    case IR_UNPARSED:
        WB_LIT(b, "unparsed ");
        b_quoted(b, e->str);
        break;
    case IR_VERTEX:
        WB_LIT(b, "vertex ");
        b_word(b, e->name ? e->name : "");
        put_pts(b, e, 2);
        wb_putc(b, ' ');
        b_quoted(b, e->str);
        break;
    case IR_EDGE:
        WB_LIT(b, "edge ");
        b_word(b, e->name ? e->name : "");
        wb_putc(b, ' ');
        b_word(b, e->str ? e->str : "");
        if (e->undirected) WB_LIT(b, " undirected");
        break;
    case IR_COORD:
        WB_LIT(b, "coord ");
        b_word(b, e->name ? e->name : "");
        put_pts(b, e, 1);
        break;
    case IR_FINDING:
        WB_LIT(b, "finding ");
        b_word(b, e->name ? e->name : "");
        wb_putc(b, ' ');
        b_quoted(b, e->str);
        break;
    default:  /* not a kind: just its attributes */
        break;
    }
    put_elem_attrs(b, e);
    char *o = wb_room(b, 16);
    if (e->line > 0) {
        o[0] = ' ';
        o[1] = '@';
        o = put_u32(o + 2, (uint32_t)e->line);
    }
    *o++ = '\n';
    b->p = o;
}

void ir_write_diagram(FILE *f, const ir_diagram *d)
{
    wbuf b;
    wb_init(&b, f);
    WB_LIT(&b, "diagram ");
    b_word(&b, d->id ? d->id : "");
    put_attrs(&b, d->attrs, d->nattrs);
    wb_putc(&b, '\n');
    if (d->unit) {
        WB_LIT(&b, "unit ");
        b_word(&b, d->unit);
        wb_putc(&b, '\n');
    }
    if (d->has_bbox) {
        WB_LIT(&b, "bbox");
        for (int i = 0; i < 4; i++) put_num(&b, d->bbox[i]);
        wb_putc(&b, '\n');
    }
    for (size_t i = 0; i < d->nelems; i++) b_elem(&b, &d->elems[i]);
    WB_LIT(&b, "end\n");
    wb_flush(&b);
}

void ir_write_elem(FILE *f, const ir_elem *e)
{
    wbuf b;
    wb_init(&b, f);
    b_elem(&b, e);
    wb_flush(&b);
}

void ir_write_quoted(FILE *f, const char *s)
{
    wbuf b;
    wb_init(&b, f);
    b_quoted(&b, s);
    wb_flush(&b);
}

void ir_write_word(FILE *f, const char *s)
{
    wbuf b;
    wb_init(&b, f);
    b_word(&b, s);
    wb_flush(&b);
}
