/* test_ir_fmt.c — the IR writer against the writer it replaced.
 *
 * ir_write.c formats numbers in integer arithmetic and checks bare words
 * while copying them into one output buffer. The reference below is the
 * previous writer, verbatim (llround + snprintf, per-record buffers): the
 * new one must give the same bytes for every number (random bit patterns,
 * random magnitudes, every rounding boundary near thousandths, -0, huge,
 * tiny, nan, inf), every byte in words and quoted strings (valid and
 * invalid UTF-8), and whole diagrams larger than the output buffer. */
#include "ir/ir.h"
#include "tests/unit/xorshift.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ===== reference: the previous ir_write.c ===== */

#include "tests/unit/ref_fmt_num.h"

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
    wb_puts(f, ref_fmt_num(b, v));
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

static int ref_word_is_bare(const char *s)
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
    if (ref_word_is_bare(s)) wb_puts(f, s);
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

static void ref_write_header(FILE *f)
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
    case IR_FINDING:   /* added after the previous writer, in its manner */
        wb_puts(f, "finding ");
        b_word(f, e->name ? e->name : "");
        wb_putc(f, ' ');
        b_quoted(f, e->str);
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

static void ref_write_diagram(FILE *f, const ir_diagram *d)
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

static void ref_write_elem(FILE *f, const ir_elem *e)
{
    wbuf b;
    wb_init(&b);
    b_elem(&b, e);
    wb_flush(&b, f);
    wb_free(&b);
}

static void ref_write_quoted(FILE *f, const char *s)
{
    wbuf b;
    wb_init(&b);
    b_quoted(&b, s);
    wb_flush(&b, f);
    wb_free(&b);
}

static void ref_write_word(FILE *f, const char *s)
{
    wbuf b;
    wb_init(&b);
    b_word(&b, s);
    wb_flush(&b, f);
    wb_free(&b);
}

/* ===== end of the reference ===== */

static int failures, checks;

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t next_u64(void)
{
    return xorshift64(&rng);
}
static double unit(void) { return (double)(next_u64() >> 11) / 9007199254740992.0; }

/* --- numbers ------------------------------------------------------------ */

static void check_num(double v)
{
    char a[32], b[32];
    ir_fmt_num(a, v);
    ref_fmt_num(b, v);
    checks++;
    if (strcmp(a, b) != 0) {
        if (++failures <= 20)
            fprintf(stderr, "ir_fmt_num(%a = %.17g): got \"%s\", want \"%s\"\n", v, v, a, b);
    }
}

/* v and its neighbours, both signs */
static void check_around(double v)
{
    double lo = v, hi = v;
    for (int i = 0; i < 3; i++) {
        check_num(lo);
        check_num(-lo);
        check_num(hi);
        check_num(-hi);
        lo = nextafter(lo, -INFINITY);
        hi = nextafter(hi, INFINITY);
    }
}

static void test_numbers(void)
{
    static const double special[] = {
        0.0, -0.0, 1e-300, 5e-324, DBL_MIN, DBL_MAX, 0.0004, 0.0005, 0.0015, 0.0025,
        0.1, 0.2, 0.3, 0.1 + 0.2, 0.5, 1, 1.5, 2.5, 144.5499, 36.14, 1.23456, 999.9995,
        999999.9995, 99999999.9995, 999999999.9994, 999999999.9995, 999999999.9996,
        1e9, 1e9 - 0.0005, 1e12, 1e12 - 0.0005, 123456789012.5, 1e15, 1e300,
        4294967.295, 4294967.2955, 4294967296.0, 2147483.6475, 9007199254.740992,
        72.27, 28.4527559, 0.3515, 0.4, 0.8, 1.2, 2.84527559, 56.9055118};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) check_around(special[i]);
    check_num(NAN);
    check_num(-NAN);
    check_num(INFINITY);
    check_num(-INFINITY);
    /* every bit pattern class: random 64-bit words (nan payloads, subnormals, ...) */
    for (int i = 0; i < 200000; i++) {
        uint64_t u = next_u64();
        double v;
        memcpy(&v, &u, sizeof v);
        check_num(v);
    }
    /* random magnitudes from 1e-8 to 1e16 */
    for (int i = 0; i < 300000; i++) {
        double v = unit() * pow(10.0, (double)(int)(next_u64() % 25) - 8);
        check_num(next_u64() & 1 ? v : -v);
    }
    /* the rounding boundaries: (m + 1/2) / 1000 and m / 1000 and their
     * neighbours, m of every size up to the 1e12 fast-path limit */
    for (int i = 0; i < 100000; i++) {
        int digits = 1 + (int)(next_u64() % 12);
        double m = floor(unit() * pow(10.0, digits));
        check_around((m + 0.5) / 1000.0);
        check_around(m / 1000.0);
    }
    /* every thousandth up to 2000 and every half-way point, both signs */
    for (int m = 0; m <= 2000000; m++) {
        check_num(m / 1000.0);
        check_num(-m / 1000.0);
        check_num((m + 0.5) / 1000.0);
        check_num(-(m + 0.5) / 1000.0);
    }
    /* each group of three digits of the integer part */
    for (int i = 0; i < 100000; i++) {
        double ip = floor(unit() * 1e9);
        check_num(ip + (double)(next_u64() % 1000) / 1000.0);
    }
    /* the same boundaries computed the way coordinates are (a product) */
    for (int i = 0; i < 100000; i++) {
        double m = floor(unit() * 2e6) - 1e6;
        check_num((m + 0.5) * 0.001);
        check_num(m * 0.001 + 0.0005);
        check_num(m / 72.27 * 28.4527559);
    }
    /* the fast path's edges: 1e9 and 2^31, 2^32 thousandths */
    check_around(1e9);
    check_around(2147483.648);
    check_around(4294967.296);
    check_around(9223372036854.775807);
    char b[32];
    /* the writer's contract, directly */
    checks++;
    if (strcmp(ir_fmt_num(b, -0.0004), "0") != 0) failures++;
    checks++;
    if (strcmp(ir_fmt_num(b, 1e15), "1e+15") != 0) failures++;
}

/* --- words and quoted strings ------------------------------------------ */

typedef struct {
    char *s;
    size_t n;
    FILE *f;
} mstream;

static void ms_open(mstream *m)
{
    m->s = NULL;
    m->n = 0;
    m->f = open_memstream(&m->s, &m->n);
    if (!m->f) abort();
}

static void ms_same(mstream *a, mstream *b, const char *what)
{
    fclose(a->f);
    fclose(b->f);
    checks++;
    if (a->n != b->n || memcmp(a->s, b->s, a->n) != 0) {
        failures++;
        size_t i = 0;
        while (i < a->n && i < b->n && a->s[i] == b->s[i]) i++;
        fprintf(stderr, "%s: output differs at byte %zu (lengths %zu, %zu)\n", what, i, a->n, b->n);
    }
    free(a->s);
    free(b->s);
}

/* bytes that matter to words, quotes and UTF-8 */
static const unsigned char alphabet[] = {
    0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x20, '"', '\\', '=', '@', 'a', 'Z', '0', '-', '.', 0x7E, 0x7F,
    0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4,
    0xF5, 0xFF};

static void random_string(char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        uint64_t r = next_u64();
        s[i] = (char)(r % 4 == 0 ? (unsigned char)(1 + (r >> 8) % 255)
                                 : alphabet[(r >> 8) % sizeof alphabet]);
    }
    s[len] = '\0';
}

static void check_string(FILE *fa, FILE *fb, const char *s)
{
    checks++;
    if (ir_word_is_bare(s) != ref_word_is_bare(s)) {
        if (++failures <= 20) fprintf(stderr, "ir_word_is_bare differs on \"%s\"\n", s);
    }
    ir_write_word(fa, s);
    ref_write_word(fb, s);
    fputc('|', fa);
    fputc('|', fb);
    ir_write_quoted(fa, s);
    ref_write_quoted(fb, s);
    fputc('\n', fa);
    fputc('\n', fb);
}

static void test_strings(void)
{
    mstream a, b;
    ms_open(&a);
    ms_open(&b);
    char s[64];
    /* every byte alone and in the middle, first and last of a word */
    for (int c = 1; c < 256; c++) {
        const char *forms[] = {"%c", "a%c", "%cz", "a%cz"};
        for (int k = 0; k < 4; k++) {
            snprintf(s, sizeof s, forms[k], c);
            check_string(a.f, b.f, s);
        }
    }
    /* every two-byte sequence from a non-ASCII lead, and three-byte ones
     * after the leads whose second byte is restricted */
    for (int c = 0x80; c < 256; c++)
        for (int d = 1; d < 256; d++) {
            s[0] = (char)c;
            s[1] = (char)d;
            s[2] = '\0';
            check_string(a.f, b.f, s);
            s[2] = (char)0x80;
            s[3] = '\0';
            check_string(a.f, b.f, s);
        }
    static const char *fixed[] = {"", "@", "@a", "a@", "x=y", "café", "\xF0\x9F\x98\x80",
                                  "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE0\x80\x80",
                                  "\xC0\xAF", "a b", "tab\there", "nl\n", "\"q\"", "back\\slash"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) check_string(a.f, b.f, fixed[i]);
    for (int i = 0; i < 200000; i++) {
        random_string(s, next_u64() % 13);
        check_string(a.f, b.f, s);
    }
    ms_same(&a, &b, "words and quoted strings");
    /* NULL is written as an empty quoted string */
    ms_open(&a);
    ms_open(&b);
    ir_write_quoted(a.f, NULL);
    ref_write_quoted(b.f, NULL);
    ms_same(&a, &b, "quoted NULL");
    /* strings longer than the writer's buffer */
    size_t lens[] = {16383, 16384, 16385, 40000};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        char *big = malloc(lens[i] + 1);
        for (int variant = 0; variant < 4; variant++) {
            memset(big, 'x', lens[i]);
            big[lens[i]] = '\0';
            if (variant == 1) big[lens[i] - 1] = '"';
            if (variant == 2) memcpy(big + lens[i] - 3, "\xE2\x82\xAC", 3);
            if (variant == 3) big[lens[i] / 2] = (char)0xFF;
            ms_open(&a);
            ms_open(&b);
            check_string(a.f, b.f, big);
            ms_same(&a, &b, "long string");
        }
        free(big);
    }
}

/* --- whole records and diagrams ---------------------------------------- */

static char *random_word(void)
{
    size_t len;
    uint64_t r = next_u64() % 100;
    if (r < 80) len = next_u64() % 12;
    else if (r < 98) len = next_u64() % 200;
    else len = 16000 + next_u64() % 800;
    char *s = malloc(len + 1);
    if (next_u64() % 3) {
        for (size_t i = 0; i < len; i++) s[i] = "abcdefghij0123456789-.,;!"[next_u64() % 25];
        s[len] = '\0';
    } else {
        random_string(s, len);
    }
    return s;
}

static double random_coord(void)
{
    uint64_t r = next_u64() % 10;
    if (r == 0) return floor(unit() * 1000) - 500;
    if (r == 1) return (floor(unit() * 2e6) - 1e6 + 0.5) / 1000;
    if (r == 2) return unit() * 1e13 - 5e12;
    return (unit() - 0.5) * 1000;
}

static void test_diagrams(void)
{
    for (int round = 0; round < 40; round++) {
        ir_diagram *d = ir_diagram_new(round % 5 == 0 ? "id with blank" : "fig");
        ir_set_attr(&d->attrs, &d->nattrs, "src", "tikz/x.tex");
        if (round % 7 == 3) {
            free(d->unit);
            d->unit = NULL;
        }
        d->has_bbox = round % 2;
        for (int i = 0; i < 4; i++) d->bbox[i] = random_coord();
        size_t nel = next_u64() % 3000;
        for (size_t i = 0; i < nel; i++) {
            ir_elem *e = ir_add(d, (ir_kind)(next_u64() % (IR_OTHER + 1)));
            size_t np = next_u64() % 9;
            ir_pt p[8];
            for (size_t k = 0; k < np && k < 8; k++) p[k].x = random_coord(), p[k].y = random_coord();
            if (np < 8) ir_elem_set_pts(e, p, np);
            e->closed = (int)(next_u64() & 1);
            e->undirected = (int)(next_u64() & 1);
            e->sub = (ir_kind)(next_u64() % (IR_OTHER + 1));
            e->t1 = random_coord();
            e->t2 = random_coord();
            e->line = (int)(next_u64() % 3) - 1 + (next_u64() & 1 ? 2147483000 : 0);
            if (next_u64() % 4) e->str = random_word();
            if (next_u64() % 4) e->name = random_word();
            if (next_u64() % 4) e->raw = random_word();
            size_t na = next_u64() % 8;
            for (size_t k = 0; k < na; k++) {
                char key[8];
                snprintf(key, sizeof key, "k%d", (int)(next_u64() % 6));
                char *v = random_word();
                ir_elem_set(e, key, v);
                free(v);
            }
        }
        mstream a, b;
        ms_open(&a);
        ms_open(&b);
        ir_write_header(a.f);
        ref_write_header(b.f);
        ir_write_diagram(a.f, d);
        ref_write_diagram(b.f, d);
        ms_same(&a, &b, "diagram");
        ms_open(&a);
        ms_open(&b);
        for (size_t i = 0; i < d->nelems; i++) {
            ir_write_elem(a.f, &d->elems[i]);
            ref_write_elem(b.f, &d->elems[i]);
        }
        ms_same(&a, &b, "elements");
        ir_diagram_free(d);
    }
}

int main(void)
{
    test_numbers();
    test_strings();
    test_diagrams();
    printf("test_ir_fmt: %d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
