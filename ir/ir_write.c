/* ir_write.c — the IR writer: deterministic, locale-independent text.
 *
 * Numbers go through snprintf in the C locale (the programs never call
 * setlocale, so the decimal point is always '.'). Strings that need it are
 * quoted with the escapes the reader undoes; bytes that are not valid UTF-8
 * are written as \xHH so the output is always valid UTF-8 text. */
#include "ir/ir.h"

#include <math.h>
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

static void put_num(FILE *f, double v)
{
    char b[32];
    fputc(' ', f);
    fputs(ir_fmt_num(b, v), f);
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

void ir_write_quoted(FILE *f, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)p);
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        switch (c) {
        case '"': fputs("\\\"", f); i++; continue;
        case '\\': fputs("\\\\", f); i++; continue;
        case '\n': fputs("\\n", f); i++; continue;
        case '\r': fputs("\\r", f); i++; continue;
        case '\t': fputs("\\t", f); i++; continue;
        default: break;
        }
        size_t l = (c < 0x20 || c == 0x7F) ? 0 : utf8_len(p + i, n - i);
        if (l == 0) {
            fputs("\\x", f);
            fputc(hex[c >> 4], f);
            fputc(hex[c & 15], f);
            i++;
        } else {
            fwrite(p + i, 1, l, f);
            i += l;
        }
    }
    fputc('"', f);
}

void ir_write_word(FILE *f, const char *s)
{
    if (ir_word_is_bare(s)) fputs(s, f);
    else ir_write_quoted(f, s);
}

static void put_attrs(FILE *f, const ir_attr *a, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fputc(' ', f);
        fputs(a[i].key ? a[i].key : "", f);
        fputc('=', f);
        ir_write_word(f, a[i].val ? a[i].val : "");
    }
}

void ir_write_header(FILE *f)
{
    fprintf(f, "diagramir %d\n", IR_VERSION);
}

/* Writes the n points the record needs; points the element lacks are 0. */
static void put_pts(FILE *f, const ir_elem *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ir_pt p = {0, 0};
        if (e->pts && i < e->npts) p = e->pts[i];
        put_num(f, p.x);
        put_num(f, p.y);
    }
}

static void put_shape(FILE *f, ir_kind kind, const ir_elem *e)
{
    fputs(ir_kind_name(kind), f);
    switch (kind) {
    case IR_POLY:
        fputs(e->closed ? " closed" : " open", f);
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

void ir_write_elem(FILE *f, const ir_elem *e)
{
    switch (e->kind) {
    case IR_OTHER:
        if (e->raw) {
            fputs(e->raw, f);
            fputc('\n', f);
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
        fputs("clip ", f);
        put_shape(f, e->sub == IR_POLY || e->sub == IR_ELLIPSE ? e->sub : IR_RECT, e);
        break;
    case IR_TEXT:
        fputs("text", f);
        put_pts(f, e, 2);
        fputc(' ', f);
        ir_write_quoted(f, e->str);
        break;
    case IR_UNPARSED:
        fputs("unparsed ", f);
        ir_write_quoted(f, e->str);
        break;
    case IR_VERTEX:
        fputs("vertex ", f);
        ir_write_word(f, e->name ? e->name : "");
        put_pts(f, e, 2);
        fputc(' ', f);
        ir_write_quoted(f, e->str);
        break;
    case IR_EDGE:
        fputs("edge ", f);
        ir_write_word(f, e->name ? e->name : "");
        fputc(' ', f);
        ir_write_word(f, e->str ? e->str : "");
        if (e->undirected) fputs(" undirected", f);
        break;
    case IR_COORD:
        fputs("coord ", f);
        ir_write_word(f, e->name ? e->name : "");
        put_pts(f, e, 1);
        break;
    }
    put_attrs(f, e->attrs, e->nattrs);
    if (e->line > 0) {
        char b[24], *q = b + sizeof b;
        unsigned v = (unsigned)e->line;
        *--q = 0;
        do { *--q = (char)('0' + v % 10); v /= 10; } while (v);
        fputs(" @", f);
        fputs(q, f);
    }
    fputc('\n', f);
}

void ir_write_diagram(FILE *f, const ir_diagram *d)
{
    fputs("diagram ", f);
    ir_write_word(f, d->id ? d->id : "");
    put_attrs(f, d->attrs, d->nattrs);
    fputc('\n', f);
    if (d->unit) {
        fputs("unit ", f);
        ir_write_word(f, d->unit);
        fputc('\n', f);
    }
    if (d->has_bbox) {
        fputs("bbox", f);
        for (int i = 0; i < 4; i++) put_num(f, d->bbox[i]);
        fputc('\n', f);
    }
    for (size_t i = 0; i < d->nelems; i++) ir_write_elem(f, &d->elems[i]);
    fputs("end\n", f);
}
