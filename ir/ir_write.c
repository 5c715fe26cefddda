/* ir_write.c — the IR writer: deterministic, locale-independent text.
 *
 * Numbers go through snprintf in the C locale (the programs never call
 * setlocale, so the decimal point is always '.'). Strings that need it are
 * quoted with the escapes the reader undoes; bytes that are not valid UTF-8
 * are written as \xHH so the output is always valid UTF-8 text. */
#include "ir/ir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

char *ir_fmt_num(char *buf, double v)
{
    if (isnan(v)) {
        strcpy(buf, "nan");
        return buf;
    }
    if (isinf(v)) {
        strcpy(buf, v < 0 ? "-inf" : "inf");
        return buf;
    }
    if (fabs(v) < 1e9) {
        /* Fast path (the writer's hot spot): v rounded to thousandths in
         * integer arithmetic, half away from zero. */
        long long r = llround(v * 1000.0);
        char tmp[32];
        int n = 0, neg = r < 0;
        unsigned long long u = neg ? (unsigned long long)(-r) : (unsigned long long)r;
        unsigned frac = (unsigned)(u % 1000);
        unsigned long long ip = u / 1000;
        char *p = buf;
        if (neg && u != 0) *p++ = '-';
        do { tmp[n++] = (char)('0' + ip % 10); ip /= 10; } while (ip);
        while (n) *p++ = tmp[--n];
        if (frac) {
            *p++ = '.';
            *p++ = (char)('0' + frac / 100);
            if (frac % 100) {
                *p++ = (char)('0' + frac / 10 % 10);
                if (frac % 10) *p++ = (char)('0' + frac % 10);
            }
        }
        *p = 0;
        return buf;
    }
    if (fabs(v) < 1e12) {
        /* At most 12 + 3 significant digits: reading this back gives a
         * double that prints as the same text (DBL_DIG is 15). */
        snprintf(buf, 32, "%.3f", v);
        char *dot = strchr(buf, '.');
        if (dot) {
            char *end = buf + strlen(buf);
            while (end > dot + 1 && end[-1] == '0') *--end = '\0';
            if (end == dot + 1) *dot = '\0';
        }
    } else {
        snprintf(buf, 32, "%.15g", v);
    }
    if (strcmp(buf, "-0") == 0) strcpy(buf, "0");
    return buf;
}

/* The writer builds each record in a buffer and writes it with one fwrite:
 * per-character stdio calls were most of its cost. */
typedef struct {
    char *s;
    size_t n, cap;
    char small[512];
} wbuf;

static void wb_init(wbuf *b) { b->s = b->small; b->n = 0; b->cap = sizeof b->small; }

static void wb_grow(wbuf *b, size_t more)
{
    size_t nc = b->cap * 2;
    while (b->n + more + 1 > nc) nc *= 2;
    char *p = b->s == b->small ? malloc(nc) : realloc(b->s, nc);
    if (!p) { fputs("out of memory\n", stderr); exit(2); }
    if (b->s == b->small) memcpy(p, b->small, b->n);
    b->s = p;
    b->cap = nc;
}

static void wb_put(wbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) wb_grow(b, n);
    memcpy(b->s + b->n, s, n);
    b->n += n;
}

static void wb_puts(wbuf *b, const char *s) { wb_put(b, s, strlen(s)); }
static void wb_putc(wbuf *b, char c) { if (b->n + 2 > b->cap) wb_grow(b, 1); b->s[b->n++] = c; }

static void wb_flush(wbuf *b, FILE *f)
{
    if (b->n) fwrite(b->s, 1, b->n, f);
    b->n = 0;
}

static void wb_free(wbuf *b) { if (b->s != b->small) free(b->s); wb_init(b); }

static void put_num(wbuf *f, double v)
{
    char b[32];
    wb_putc(f, ' ');
    wb_puts(f, ir_fmt_num(b, v));
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid. */
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

int ir_word_is_bare(const char *s)
{
    if (!s || !*s || *s == '@') return 0;
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c <= 0x20 || c == 0x7F || c == '"' || c == '\\' || c == '=') return 0;
        size_t l = utf8_len(p + i, n - i);
        if (l == 0) return 0;
        i += l;
    }
    return 1;
}

static void b_quoted(wbuf *f, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    wb_putc(f, '"');
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p);
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        switch (c) {
        case '"': wb_puts(f, "\\\""); i++; continue;
        case '\\': wb_puts(f, "\\\\"); i++; continue;
        case '\n': wb_puts(f, "\\n"); i++; continue;
        case '\r': wb_puts(f, "\\r"); i++; continue;
        case '\t': wb_puts(f, "\\t"); i++; continue;
        default: break;
        }
        size_t l = (c < 0x20 || c == 0x7F) ? 0 : utf8_len(p + i, n - i);
        if (l == 0) {
            wb_puts(f, "\\x");
            wb_putc(f, hex[c >> 4]);
            wb_putc(f, hex[c & 15]);
            i++;
        } else {
            wb_put(f, (const char *)(p + i), l);
            i += l;
        }
    }
    wb_putc(f, '"');
}

static void b_word(wbuf *f, const char *s)
{
    if (ir_word_is_bare(s)) wb_puts(f, s);
    else b_quoted(f, s);
}

static void put_attrs(wbuf *f, const ir_attr *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        wb_putc(f, ' ');
        wb_puts(f, a[i].key ? a[i].key : "");
        wb_putc(f, '=');
        b_word(f, a[i].val ? a[i].val : "");
    }
}

void ir_write_header(FILE *f)
{
    fprintf(f, "diagramir %d\n", IR_VERSION);
}

/* Writes the n points the record needs; points the element lacks are 0. */
static void put_pts(wbuf *f, const ir_elem *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ir_pt p = {0, 0};
        if (e->pts && i < e->npts) p = e->pts[i];
        put_num(f, p.x);
        put_num(f, p.y);
    }
}

static void put_shape(wbuf *f, ir_kind kind, const ir_elem *e)
{
    wb_puts(f, ir_kind_name(kind));
    switch (kind) {
    case IR_POLY:
        wb_puts(f, e->closed ? " closed" : " open");
        put_pts(f, e, e->pts ? e->npts : 0);
        break;
    case IR_RECT:
        put_pts(f, e, 2);
        break;
    case IR_ELLIPSE:
        put_pts(f, e, 3);
        break;
    case IR_ARC:
        put_pts(f, e, 3);
        put_num(f, e->t1);
        put_num(f, e->t2);
        break;
    case IR_CURVE:
        put_pts(f, e, 4);
        break;
    default:
        break;
    }
}

static void b_elem(wbuf *f, const ir_elem *e)
{
    switch (e->kind) {
    case IR_OTHER:
        if (e->raw) {
            wb_puts(f, e->raw);
            wb_putc(f, '\n');
        }
        return;
    case IR_POLY:
    case IR_RECT:
    case IR_ELLIPSE:
    case IR_ARC:
    case IR_CURVE:
        put_shape(f, e->kind, e);
        break;
    case IR_CLIP:
        wb_puts(f, "clip ");
        put_shape(f, e->sub == IR_POLY || e->sub == IR_ELLIPSE ? e->sub : IR_RECT, e);
        break;
    case IR_TEXT:
        wb_puts(f, "text");
        put_pts(f, e, 2);
        wb_putc(f, ' ');
        b_quoted(f, e->str);
        break;
    case IR_UNPARSED:
        wb_puts(f, "unparsed ");
        b_quoted(f, e->str);
        break;
    case IR_VERTEX:
        wb_puts(f, "vertex ");
        b_word(f, e->name ? e->name : "");
        put_pts(f, e, 2);
        wb_putc(f, ' ');
        b_quoted(f, e->str);
        break;
    case IR_EDGE:
        wb_puts(f, "edge ");
        b_word(f, e->name ? e->name : "");
        wb_putc(f, ' ');
        b_word(f, e->str ? e->str : "");
        if (e->undirected) wb_puts(f, " undirected");
        break;
    case IR_COORD:
        wb_puts(f, "coord ");
        b_word(f, e->name ? e->name : "");
        put_pts(f, e, 1);
        break;
    }
    put_attrs(f, e->attrs, e->nattrs);
    if (e->line > 0) {
        char b[24], *q = b + sizeof b;
        unsigned v = (unsigned)e->line;
        *--q = 0;
        do { *--q = (char)('0' + v % 10); v /= 10; } while (v);
        wb_puts(f, " @");
        wb_puts(f, q);
    }
    wb_putc(f, '\n');
}

void ir_write_diagram(FILE *f, const ir_diagram *d)
{
    wbuf b;
    wb_init(&b);
    wb_puts(&b, "diagram ");
    b_word(&b, d->id ? d->id : "");
    put_attrs(&b, d->attrs, d->nattrs);
    wb_putc(&b, '\n');
    if (d->unit) {
        wb_puts(&b, "unit ");
        b_word(&b, d->unit);
        wb_putc(&b, '\n');
    }
    if (d->has_bbox) {
        wb_puts(&b, "bbox");
        for (int i = 0; i < 4; i++) put_num(&b, d->bbox[i]);
        wb_putc(&b, '\n');
    }
    for (size_t i = 0; i < d->nelems; i++) {
        b_elem(&b, &d->elems[i]);
        if (b.n > 60000) wb_flush(&b, f);
    }
    wb_puts(&b, "end\n");
    wb_flush(&b, f);
    wb_free(&b);
}

void ir_write_elem(FILE *f, const ir_elem *e)
{
    wbuf b;
    wb_init(&b);
    b_elem(&b, e);
    wb_flush(&b, f);
    wb_free(&b);
}

void ir_write_quoted(FILE *f, const char *s)
{
    wbuf b;
    wb_init(&b);
    b_quoted(&b, s);
    wb_flush(&b, f);
    wb_free(&b);
}

void ir_write_word(FILE *f, const char *s)
{
    wbuf b;
    wb_init(&b);
    b_word(&b, s);
    wb_flush(&b, f);
    wb_free(&b);
}
