/* ir_read.c — the strict IR reader.
 *
 * One line at a time (getline: no length limit). Each line of a known
 * record kind is cut into tokens in place:
 *   WORD  a bare word (no blank, no '"')
 *   STR   a "quoted string" with \" \\ \n \r \t \xHH escapes
 *   ATTR  key=value, value bare or quoted
 *   LINE  @N, the source line marker
 * and the record is checked against its syntax. The first problem stops the
 * reader with "FILE:LINE:COL: error: MESSAGE"; nothing is skipped or
 * truncated silently. Numbers are parsed locale-independently in the sense
 * of ir_parse_num (ir_num_parse: the same results, the usual short forms
 * without a library call).
 *
 * A diagram is built either for the caller (ir_read_diagram: made as a
 * program makes one, ir.h) or in the reader's arena
 * (ir_read_diagram_borrowed, ir_borrow.h), which is reset for every
 * diagram and so stops allocating once it has grown to the largest one.
 * The parsing is the same. */
#include "ir/ir_internal.h"
#include "ir/ir_borrow.h"
#include "ir/ir_num.h"
#include "ir/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

enum { TK_WORD, TK_STR, TK_ATTR, TK_LINE };

typedef struct {
    int type;
    int col;     /* 1-based byte column of the token's first byte */
    char *s;     /* WORD, STR: the text; ATTR: the key */
    char *val;   /* ATTR: the value */
    size_t len;  /* length of s */
    size_t vlen; /* ATTR: length of val */
    int num;     /* LINE: the number */
    int isnum;   /* WORD: a number of the short form, read while cutting it */
    double v;    /* ... its value */
} tok;

struct ir_reader {
    FILE *f;
    char *fname;
    char *buf;
    size_t cap;
    size_t len;        /* length of the current line (no newline) */
    long lineno;
    int seen_header;
    int failed;
    char *err;
    tok *toks;
    size_t ntoks, tcap;
    /* borrowed diagrams */
    int borrow;        /* the diagram being read goes into the arena */
    ir_arena arena;
    ir_diagram bd;     /* the borrowed diagram */
    ir_elem *belems;   /* its elements (kept across diagrams) */
    size_t becap;
    double *fnum;      /* fast_poly's numbers */
    size_t fncap;
    ir_diagram *jd;    /* a borrowed diagram read from JSON (the reader's) */
    ir_diagram *jnext; /* the diagram of the JSON line just read (read_line) */
};

/* --- memory of the diagram being read ------------------------------------ */

#define ARENA_FIRST ((size_t)64 * 1024)

/* s[0..n) as a NUL-terminated string of the diagram. */
static char *d_strdup(ir_reader *r, const char *s, size_t n)
{
    return r->borrow ? ir_arena_strndup(&r->arena, s, n) : xstrndup(s, n);
}

/* Room for e's n points. */
static ir_pt *d_pts(ir_reader *r, ir_elem *e, size_t n)
{
    if (!r->borrow) return ir_elem_alloc_pts(e, n);
    size_t bytes = n <= SIZE_MAX / sizeof(ir_pt) ? n * sizeof(ir_pt) : SIZE_MAX;
    return ir_arena_alloc(&r->arena, bytes, _Alignof(ir_pt));
}

/* A token's text (NUL-terminated, n bytes) as a string of the diagram:
 * borrowed, the line itself is in the arena already (read_diagram). */
static char *d_tokstr(ir_reader *r, char *s, size_t n)
{
    return r->borrow ? s : d_strdup(r, s, n);
}

/* A new zeroed element of d. */
static ir_elem *d_add(ir_reader *r, ir_diagram *d, ir_kind kind)
{
    if (!r->borrow) return ir_add(d, kind);
    if (d->nelems == r->becap) {
        size_t cap = r->becap ? r->becap * 2 : 64;
        r->belems = xrealloc(r->belems, cap * sizeof *r->belems);
        r->becap = cap;
    }
    d->elems = r->belems;
    d->cap = r->becap;
    ir_elem *e = &d->elems[d->nelems++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    return e;
}

ir_reader *ir_reader_new(FILE *f, const char *fname)
{
    ir_reader *r = xcalloc(1, sizeof *r);
    ir_arena_init(&r->arena, ARENA_FIRST);
    r->f = f;
    r->fname = xstrdup(fname ? fname : "<stdin>");
    return r;
}

void ir_reader_free(ir_reader *r)
{
    if (!r) return;
    free(r->fname);
    free(r->buf);
    free(r->err);
    free(r->toks);
    free(r->belems);
    free(r->fnum);
    ir_diagram_free(r->jd);
    ir_arena_free(&r->arena);
    free(r);
}

const char *ir_reader_error(const ir_reader *r)
{
    return r->err;
}

static int fail(ir_reader *r, int col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(ir_reader *r, int col, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = strlen(r->fname) + strlen(msg) + 64;
    free(r->err);
    r->err = xmalloc(n);
    snprintf(r->err, n, "%s:%ld:%d: error: %s", r->fname, r->lineno, col < 1 ? 1 : col, msg);
    r->failed = 1;
    return -1;
}

/* A token or word for a message: at most 40 bytes, non-printable bytes as
 * \xHH, "..." when cut. */
static const char *show(char out[200], const char *s)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0, i = 0;
    for (; s[i] && i < 40; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7F) {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        } else {
            out[o++] = (char)c;
        }
    }
    if (s[i]) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* --- tokenizer ---------------------------------------------------------- */

/* Bytes that end a word: NUL, blank, '=' and '"' (WORD_END); that end a
 * bare value: NUL, blank and '"' (VAL_END); that may follow the first
 * byte of an attribute name (KEY). */
enum { WORD_END = 1, VAL_END = 2, KEY = 4 };
static const unsigned char cls[256] = {
    ['\0'] = WORD_END | VAL_END, [' '] = WORD_END | VAL_END, ['\t'] = WORD_END | VAL_END,
    ['='] = WORD_END, ['"'] = WORD_END | VAL_END,
    ['_'] = KEY, ['-'] = KEY, ['.'] = KEY, [':'] = KEY,
    ['0'] = KEY, ['1'] = KEY, ['2'] = KEY, ['3'] = KEY, ['4'] = KEY,
    ['5'] = KEY, ['6'] = KEY, ['7'] = KEY, ['8'] = KEY, ['9'] = KEY,
    ['a'] = KEY, ['b'] = KEY, ['c'] = KEY, ['d'] = KEY, ['e'] = KEY, ['f'] = KEY, ['g'] = KEY,
    ['h'] = KEY, ['i'] = KEY, ['j'] = KEY, ['k'] = KEY, ['l'] = KEY, ['m'] = KEY, ['n'] = KEY,
    ['o'] = KEY, ['p'] = KEY, ['q'] = KEY, ['r'] = KEY, ['s'] = KEY, ['t'] = KEY, ['u'] = KEY,
    ['v'] = KEY, ['w'] = KEY, ['x'] = KEY, ['y'] = KEY, ['z'] = KEY,
    ['A'] = KEY, ['B'] = KEY, ['C'] = KEY, ['D'] = KEY, ['E'] = KEY, ['F'] = KEY, ['G'] = KEY,
    ['H'] = KEY, ['I'] = KEY, ['J'] = KEY, ['K'] = KEY, ['L'] = KEY, ['M'] = KEY, ['N'] = KEY,
    ['O'] = KEY, ['P'] = KEY, ['Q'] = KEY, ['R'] = KEY, ['S'] = KEY, ['T'] = KEY, ['U'] = KEY,
    ['V'] = KEY, ['W'] = KEY, ['X'] = KEY, ['Y'] = KEY, ['Z'] = KEY,
};
#define CLS(c) cls[(unsigned char)(c)]


/* Unquotes the string whose opening quote is at *pp, in place. On success
 * the text (NUL-terminated, *len bytes) starts at the old quote position
 * and *pp points past the closing quote. */
static int unquote(ir_reader *r, char *line, char **pp, size_t *len)
{
    char *q = *pp, *src = q + 1, *dst = q;
    for (;;) {
        char c = *src;
        if (c == '\0')
            return fail(r, (int)(q - line) + 1, "unterminated string (no closing '\"')");
        if (c == '"') {
            src++;
            break;
        }
        if (c != '\\') {
            *dst++ = *src++;
            continue;
        }
        char e = src[1];
        int col = (int)(src - line) + 1;
        switch (e) {
        case '"': *dst++ = '"'; src += 2; break;
        case '\\': *dst++ = '\\'; src += 2; break;
        case 'n': *dst++ = '\n'; src += 2; break;
        case 'r': *dst++ = '\r'; src += 2; break;
        case 't': *dst++ = '\t'; src += 2; break;
        case 'x': {
            int h = src[2] ? hexval(src[2]) : -1, l = h >= 0 && src[3] ? hexval(src[3]) : -1;
            if (h < 0 || l < 0)
                return fail(r, col, "bad escape in string: \\x needs two hex digits");
            if (h == 0 && l == 0)
                return fail(r, col, "bad escape in string: \\x00 is not allowed");
            *dst++ = (char)(h * 16 + l);
            src += 4;
            break;
        }
        case '\0':
            return fail(r, (int)(q - line) + 1, "unterminated string (line ends after '\\')");
        default: {
            char b[200], s2[2] = {e, 0};
            return fail(r, col, "unknown escape '\\%s' in string (known: \\\" \\\\ \\n \\r \\t \\xHH)",
                        show(b, s2));
        }
        }
    }
    if (*src && !is_blank(*src))
        return fail(r, (int)(src - line) + 1, "missing blank after closing '\"'");
    *dst = '\0';
    *len = (size_t)(dst - q);
    *pp = src;
    return 0;
}

static int valid_key(const char *k, size_t n)
{
    if (!is_alpha(*k) && *k != '_') return 0;
    for (size_t i = 1; i < n; i++)
        if (!(CLS(k[i]) & KEY)) return 0;
    return 1;
}

static tok *new_tok(ir_reader *r)
{
    if (r->ntoks == r->tcap) {
        size_t cap = r->tcap ? r->tcap * 2 : 32;
        r->toks = xrealloc(r->toks, cap * sizeof *r->toks);
        r->tcap = cap;
    }
    tok *t = &r->toks[r->ntoks++];
    t->val = NULL;
    t->vlen = 0;
    t->num = 0;
    t->isnum = 0;
    return t;
}

/* Cuts line[p..] into tokens (r->toks). */
static int tokenize(ir_reader *r, char *line, char *p)
{
    char b[200];
    r->ntoks = 0;
    for (;;) {
        while (is_blank(*p)) p++;
        if (!*p) return 0;
        tok *t = new_tok(r);
        t->col = (int)(p - line) + 1;
        /* a word may be a number of the short form [+-]? D* (. D*)? with 1
         * to 15 digits: its value is read on the way (as ir_num_parse
         * reads it); the scan for the word's end goes on from there */
        int neg;
        unsigned long long m;
        size_t ndig, frac;
        char *q = p + (ir_num_scan_(p, &neg, &m, &ndig, &frac) - p);
        int numeric = (CLS(*q) & WORD_END) && ndig > 0 && ndig <= 15;
        while (!(CLS(*q) & WORD_END)) q++;
        if (*p == '"') {                          /* "string" */
            t->type = TK_STR;
            t->s = p;
            if (unquote(r, line, &p, &t->len) < 0) return -1;
        } else if (*q == '=' && *p != '@') {      /* key=value */
            t->type = TK_ATTR;
            t->s = p;
            t->len = (size_t)(q - p);
            *q = '\0';
            if (!valid_key(p, t->len))
                return fail(r, t->col, "bad attribute name '%s' (letters, digits, _ - . : allowed)",
                            show(b, p));
            p = q + 1;
            t->val = p;
            if (*p == '"') {
                if (unquote(r, line, &p, &t->vlen) < 0) return -1;
            } else {
                while (!(CLS(*p) & VAL_END)) p++;
                if (*p == '"')
                    return fail(r, (int)(p - line) + 1,
                                "'\"' inside an unquoted value (quote the whole value)");
                t->vlen = (size_t)(p - t->val);
                if (*p) *p++ = '\0';
            }
        } else if (*p == '@') {                   /* @LINE */
            while (*q && !is_blank(*q)) q++;
            char save = *q;
            *q = '\0';
            long long v = 0;
            int ok = q > p + 1;
            for (char *c = p + 1; ok && *c; c++) {
                if (!is_digit(*c)) ok = 0;
                else if ((v = v * 10 + (*c - '0')) > INT_MAX) ok = 0;
            }
            if (!ok)
                return fail(r, t->col, "bad source line marker '%s' (expected @NUMBER, at most %d)",
                            show(b, p), INT_MAX);
            t->type = TK_LINE;
            t->num = (int)v;
            t->s = p;
            t->len = (size_t)(q - p);
            p = save ? q + 1 : q;
        } else if (*q == '"') {
            return fail(r, (int)(q - line) + 1, "'\"' inside a word (quote the whole word)");
        } else {                                  /* bare word */
            t->type = TK_WORD;
            t->s = p;
            t->len = (size_t)(q - p);
            if (numeric) {
                t->v = ir_num_value_(neg, m, frac);
                t->isnum = 1;
            }
            p = q;
            if (*p) *p++ = '\0';
        }
    }
}

/* --- record syntax ------------------------------------------------------ */

typedef struct {
    ir_reader *r;
    const char *kind;   /* record kind, for messages */
    size_t i, n;        /* cursor in r->toks, and the end */
} cur;

static int end_col(const cur *c)
{
    return (int)c->r->len + 1;
}

static int at_col(const cur *c)
{
    return c->i < c->n ? c->r->toks[c->i].col : end_col(c);
}

/* ATTR tokens show as key=... */
static const char *tok_text(char b[200], const tok *t)
{
    show(b, t->s);
    if (t->type == TK_ATTR) strcat(b, "=...");
    return b;
}

/* A WORD token as a number (ir_parse_num_n's result). */
static int tok_num(const tok *t, double *out)
{
    if (t->isnum) {
        if (out) *out = t->v;
        return 1;
    }
    return ir_num_parse(t->s, t->len, out);
}

static int get_nums(cur *c, double *out, int count)
{
    char b[200];
    for (int j = 0; j < count; j++) {
        tok *t = c->i < c->n ? &c->r->toks[c->i] : NULL;
        if (!t || t->type != TK_WORD) {
            if (t && t->type == TK_STR)
                return fail(c->r, t->col, "expected a number, got a quoted string");
            return fail(c->r, at_col(c), "'%s' needs %d numbers here, found %d", c->kind, count, j);
        }
        if (!tok_num(t, &out[j]))
            return fail(c->r, t->col, "expected a number, got '%s'", show(b, t->s));
        c->i++;
    }
    return 0;
}

static int get_name(cur *c, char **out, const char *what)
{
    char b[200];
    tok *t = c->i < c->n ? &c->r->toks[c->i] : NULL;
    if (!t) return fail(c->r, end_col(c), "'%s' needs %s", c->kind, what);
    if (t->type != TK_WORD && t->type != TK_STR)
        return fail(c->r, t->col, "'%s' needs %s, got '%s'", c->kind, what, tok_text(b, t));
    *out = d_tokstr(c->r, t->s, t->len);
    c->i++;
    return 0;
}

static int get_str(cur *c, char **out, const char *what)
{
    char b[200];
    tok *t = c->i < c->n ? &c->r->toks[c->i] : NULL;
    if (!t) return fail(c->r, end_col(c), "'%s' needs %s", c->kind, what);
    if (t->type == TK_WORD && tok_num(t, NULL))
        return fail(c->r, t->col, "too many numbers for '%s'", c->kind);
    if (t->type != TK_STR)
        return fail(c->r, t->col, "'%s' needs %s, got '%s'", c->kind, what, tok_text(b, t));
    *out = d_tokstr(c->r, t->s, t->len);
    c->i++;
    return 0;
}

static int by_key_then_col(const void *a, const void *b)
{
    const tok *x = *(const tok *const *)a, *y = *(const tok *const *)b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->col > y->col) - (x->col < y->col);
}

/* The first attribute (in line order) whose key an earlier one has, or
 * NULL. */
static const tok *first_dup(const tok *t, size_t na)
{
    if (na <= 32) {
        for (size_t j = 1; j < na; j++)
            for (size_t i = 0; i < j; i++)
                if (t[i].len == t[j].len && memcmp(t[i].s, t[j].s, t[j].len) == 0) return &t[j];
        return NULL;
    }
    /* many: sorted by key, then column; the duplicate with the smallest
     * column */
    const tok **v = xmalloc(na * sizeof *v);
    for (size_t k = 0; k < na; k++) v[k] = &t[k];
    qsort(v, na, sizeof *v, by_key_then_col);
    const tok *dup = NULL;
    for (size_t k = 1; k < na; k++)
        if (strcmp(v[k]->s, v[k - 1]->s) == 0 && (!dup || v[k]->col < dup->col)) dup = v[k];
    free(v);
    return dup;
}

/* Appends the na attribute tokens t to the attributes of e, or of the
 * diagram (*attrs, *nattrs) when e is NULL. */
static void add_attrs(ir_reader *r, ir_elem *e, ir_attr **attrs, size_t *nattrs, const tok *t,
                      size_t na)
{
    if (r->borrow) {
        /* the line is in the arena: keys and values stay where they are */
        size_t n0 = *nattrs;
        ir_attr *a = ir_arena_alloc(&r->arena, (n0 + na) * sizeof *a, _Alignof(ir_attr));
        if (n0) memcpy(a, *attrs, n0 * sizeof *a);
        for (size_t k = 0; k < na; k++) {
            a[n0 + k].key = t[k].s;
            a[n0 + k].val = t[k].val;
        }
        *attrs = a;
        *nattrs = n0 + na;
    } else if (e) {
        for (size_t k = 0; k < na; k++)
            ir_elem_append_attr(e, t[k].s, t[k].len, t[k].val, t[k].vlen);
    } else {
        for (size_t k = 0; k < na; k++)
            ir_attrs_append(attrs, nattrs, t[k].s, t[k].len, t[k].val, t[k].vlen);
    }
}

/* The tokens left must be attributes of e or, when e is NULL, of *attrs
 * (none when attrs is NULL too); line_ok: the record may carry @LINE (already taken off
 * the end). Linear but for a sort, however many attributes there are. */
static int get_attrs(cur *c, ir_elem *e, ir_attr **attrs, size_t *nattrs, int line_ok)
{
    char b[200];
    size_t first = c->i, stop = c->i;
    while (stop < c->n && c->r->toks[stop].type == TK_ATTR && attrs) stop++;
    size_t na = stop - first;
    /* a duplicate key before the first word that is not an attribute */
    if (na > 1) {
        const tok *dup = first_dup(&c->r->toks[first], na);
        if (dup) return fail(c->r, dup->col, "duplicate attribute '%s'", show(b, dup->s));
    }
    if (stop < c->n) {
        tok *t = &c->r->toks[stop];
        switch (t->type) {
        case TK_ATTR:
            return fail(c->r, t->col, "'%s' takes no attributes", c->kind);
        case TK_LINE:
            if (!line_ok)
                return fail(c->r, t->col, "'%s' record takes no source line marker", c->kind);
            return fail(c->r, t->col, "'%s' must be the last word on the line", show(b, t->s));
        case TK_WORD:
            if (tok_num(t, NULL))
                return fail(c->r, t->col, "too many numbers for '%s'", c->kind);
            return fail(c->r, t->col, "unexpected '%s' (expected %s)", show(b, t->s),
                        attrs ? "key=value" : "end of line");
        default:
            return fail(c->r, t->col, "unexpected quoted string (expected %s)",
                        attrs ? "key=value" : "end of line");
        }
    }
    if (na) add_attrs(c->r, e, attrs, nattrs, &c->r->toks[first], na);
    c->i = c->n;
    return 0;
}

/* npts points, then nextra more numbers into extra. */
static int get_pts(cur *c, ir_elem *e, int npts, double *extra, int nextra)
{
    double v[10];
    if (get_nums(c, v, 2 * npts + nextra) < 0) return -1;
    ir_pt *p = d_pts(c->r, e, (size_t)npts);
    for (int k = 0; k < npts; k++) p[k].x = v[2 * k], p[k].y = v[2 * k + 1];
    for (int k = 0; k < nextra; k++) extra[k] = v[2 * npts + k];
    e->pts = p;
    e->npts = (size_t)npts;
    return 0;
}

static int get_poly(cur *c, ir_elem *e)
{
    char b[200];
    tok *t = c->i < c->n ? &c->r->toks[c->i] : NULL;
    if (!t || t->type != TK_WORD || (strcmp(t->s, "open") != 0 && strcmp(t->s, "closed") != 0))
        return fail(c->r, at_col(c), "'%s' needs 'open' or 'closed'%s%s%s", c->kind,
                    t ? ", got '" : "", t ? tok_text(b, t) : "", t ? "'" : "");
    e->closed = t->s[0] == 'c';
    c->i++;
    size_t first = c->i, k = first;
    while (k < c->n && c->r->toks[k].type == TK_WORD) k++;
    size_t nw = k - first;
    /* the numbers, read once, straight into the points (room for an odd
     * one, which is an error below) */
    ir_pt *pts = d_pts(c->r, e, nw / 2 + 1);
    for (size_t j = 0; j < nw; j++) {
        const tok *w = &c->r->toks[first + j];
        if (!tok_num(w, j % 2 ? &pts[j / 2].y : &pts[j / 2].x))
            return fail(c->r, w->col, "expected a number, got '%s'", show(b, w->s));
    }
    c->i = k;
    if (nw % 2 || nw < 4) {
        if (nw % 2)
            return fail(c->r, c->r->toks[k - 1].col,
                        "'%s' has an odd number of coordinates (%zu)", c->kind, nw);
        return fail(c->r, at_col(c), "'%s' needs at least 2 points, found %zu", c->kind, nw / 2);
    }
    e->pts = pts;
    e->npts = nw / 2;
    return 0;
}

/* The geometry of a shape record (after its kind word). */
static int get_shape(cur *c, ir_kind kind, ir_elem *e)
{
    switch (kind) {
    case IR_POLY: return get_poly(c, e);
    case IR_RECT: return get_pts(c, e, 2, NULL, 0);
    case IR_ELLIPSE: return get_pts(c, e, 3, NULL, 0);
    case IR_CURVE: return get_pts(c, e, 4, NULL, 0);
    case IR_ARC: {
        double t[2];
        if (get_pts(c, e, 3, t, 2) < 0) return -1;
        e->t1 = t[0];
        e->t2 = t[1];
        return 0;
    }
    default: return 0;
    }
}

/* A record keyword: 1 and *out set when it names an element kind (as
 * ir_kind_from_name). */
static int elem_kind(const char *p, size_t n, ir_kind *out)
{
#define KW(lit, k)                                                              \
    if (n == sizeof lit - 1 && memcmp(p, lit, sizeof lit - 1) == 0) {           \
        *out = k;                                                               \
        return 1;                                                               \
    }
    switch (p[0]) {
    case 'a': KW("arc", IR_ARC) break;
    case 'c': KW("clip", IR_CLIP) KW("coord", IR_COORD) KW("curve", IR_CURVE) break;
    case 'e': KW("ellipse", IR_ELLIPSE) KW("edge", IR_EDGE) break;
    case 'f': KW("finding", IR_FINDING) break;
    case 'p': KW("poly", IR_POLY) break;
    case 'r': KW("rect", IR_RECT) break;
    case 't': KW("text", IR_TEXT) break;
    case 'u': KW("unparsed", IR_UNPARSED) break;
    case 'v': KW("vertex", IR_VERTEX) break;
    default: break;
    }
#undef KW
    return 0;
}

static int get_elem(cur *c, ir_kind kind, ir_elem *e)
{
    char b[200];
    /* the source line marker, last on the line */
    if (c->n > 0 && c->r->toks[c->n - 1].type == TK_LINE) e->line = c->r->toks[--c->n].num;
    switch (kind) {
    case IR_POLY: case IR_RECT: case IR_ELLIPSE: case IR_ARC: case IR_CURVE:
        if (get_shape(c, kind, e) < 0) return -1;
        break;
    case IR_CLIP: {
        tok *t = c->i < c->n ? &c->r->toks[c->i] : NULL;
        ir_kind sub;
        if (!t || t->type != TK_WORD || !elem_kind(t->s, t->len, &sub) ||
            (sub != IR_RECT && sub != IR_POLY && sub != IR_ELLIPSE))
            return fail(c->r, at_col(c), "'clip' needs a shape: rect, poly or ellipse%s%s%s",
                        t ? ", got '" : "", t ? tok_text(b, t) : "", t ? "'" : "");
        c->i++;
        e->sub = sub;
        c->kind = t->s;
        if (get_shape(c, sub, e) < 0) return -1;
        c->kind = "clip";
        break;
    }
    case IR_TEXT:
        if (get_pts(c, e, 2, NULL, 0) < 0 || get_str(c, &e->str, "a quoted text after its box") < 0)
            return -1;
        break;
    case IR_UNPARSED:
        if (get_str(c, &e->str, "a quoted source text") < 0) return -1;
        break;
    case IR_VERTEX:
        if (get_name(c, &e->name, "an ID") < 0 || get_pts(c, e, 2, NULL, 0) < 0 ||
            get_str(c, &e->str, "a quoted text after its box") < 0)
            return -1;
        break;
    case IR_EDGE:
        if (get_name(c, &e->name, "a source vertex ID") < 0 ||
            get_name(c, &e->str, "a target vertex ID") < 0)
            return -1;
        if (c->i < c->n && c->r->toks[c->i].type == TK_WORD &&
            strcmp(c->r->toks[c->i].s, "undirected") == 0) {
            e->undirected = 1;
            c->i++;
        }
        break;
    case IR_COORD:
        if (get_name(c, &e->name, "a name") < 0 || get_pts(c, e, 1, NULL, 0) < 0) return -1;
        break;
    case IR_FINDING:
        if (get_name(c, &e->name, "a criterion") < 0 ||
            get_str(c, &e->str, "a quoted reason after the criterion") < 0)
            return -1;
        break;
    default:
        break;
    }
    return get_attrs(c, e, &e->attrs, &e->nattrs, 1);
}

/* --- the usual poly record, the short way --------------------------------- */

/* A borrowed poly record of the form tikz2ir writes: "open" or "closed",
 * numbers of the short form (ir_num.h), bare key=value attributes with
 * distinct keys, an optional @LINE last, blanks between. line (the arena
 * copy, p just after "poly") is cut in place as tokenize would cut it; the
 * element is what get_elem makes of such a line. Returns 1 with the element
 * added, or 0 (d untouched, line perhaps changed) for any other line, which
 * the caller then reads the usual way from a fresh copy. *stop is where it
 * stopped: the line's first NUL byte. */
static int fast_poly(ir_reader *r, ir_diagram *d, char *p, const char **stop)
{
    while (is_blank(*p)) p++;
    int closed;
    if (p[0] == 'o' && p[1] == 'p' && p[2] == 'e' && p[3] == 'n' && (!p[4] || is_blank(p[4]))) {
        closed = 0;
        p += 4;
    } else if (p[0] == 'c' && p[1] == 'l' && p[2] == 'o' && p[3] == 's' && p[4] == 'e' &&
               p[5] == 'd' && (!p[6] || is_blank(p[6]))) {
        closed = 1;
        p += 6;
    } else {
        return 0;
    }
    /* the numbers: each takes a byte and a blank or the end, so the line
     * (r->len bytes) holds at most r->len / 2 + 1 of them */
    if (r->len / 2 + 1 > r->fncap) {
        size_t cap = r->fncap ? r->fncap : 64;
        while (cap < r->len / 2 + 1) cap *= 2;
        r->fnum = xrealloc(r->fnum, cap * sizeof *r->fnum);
        r->fncap = cap;
    }
    size_t nv = 0;
    for (;;) {
        while (is_blank(*p)) p++;
        if (!ir_num_dig_(*p) && *p != '-' && *p != '+' && *p != '.') break;
        int neg;
        unsigned long long m;
        size_t ndig, frac;
        p += ir_num_scan_(p, &neg, &m, &ndig, &frac) - p;
        if (ndig == 0 || ndig > 15 || (*p && !is_blank(*p))) return 0;
        r->fnum[nv++] = ir_num_value_(neg, m, frac);
        if (*p) *p++ = '\0';
    }
    if (nv % 2 || nv < 4) return 0;
    /* the attributes */
    enum { FAST_MAX_ATTRS = 32 };
    char *key[FAST_MAX_ATTRS], *val[FAST_MAX_ATTRS];
    size_t klen[FAST_MAX_ATTRS];
    size_t na = 0;
    while (*p && *p != '@') {
        if ((!is_alpha(*p) && *p != '_') || na == FAST_MAX_ATTRS) return 0;
        char *k = p++;
        while (CLS(*p) & KEY) p++;
        if (*p != '=') return 0;
        klen[na] = (size_t)(p - k);
        *p++ = '\0';
        char *v = p;
        while (!(CLS(*p) & VAL_END)) p++;
        if (*p == '"') return 0;
        if (*p) *p++ = '\0';
        key[na] = k;
        val[na] = v;
        na++;
        while (is_blank(*p)) p++;
    }
    /* the source line, last */
    int lineno = 0;
    if (*p == '@') {
        p++;
        if (!is_digit(*p)) return 0;
        long long v = 0;
        while (is_digit(*p))
            if ((v = v * 10 + (*p++ - '0')) > INT_MAX) return 0;
        while (is_blank(*p)) p++;
        if (*p) return 0;
        lineno = (int)v;
    }
    /* p is at the line's first NUL: every byte before it was looked at
     * (the NULs written above are all behind it) */
    *stop = p;
    for (size_t j = 1; j < na; j++)
        for (size_t i = 0; i < j; i++)
            if (klen[i] == klen[j] && key[i][0] == key[j][0] &&
                memcmp(key[i], key[j], klen[j]) == 0)
                return 0;
    ir_elem *e = d_add(r, d, IR_POLY);
    e->irline = (int)r->lineno;
    e->closed = closed;
    e->line = lineno;
    ir_pt *pts = d_pts(r, e, nv / 2);
    for (size_t j = 0; j < nv / 2; j++) pts[j].x = r->fnum[2 * j], pts[j].y = r->fnum[2 * j + 1];
    e->pts = pts;
    e->npts = nv / 2;
    if (na) {
        ir_attr *a = ir_arena_alloc(&r->arena, na * sizeof *a, _Alignof(ir_attr));
        for (size_t k = 0; k < na; k++) a[k].key = key[k], a[k].val = val[k];
        e->attrs = a;
        e->nattrs = na;
    }
    return 1;
}

/* --- records ------------------------------------------------------------ */

/* Reads the next line into r->buf; 1 on success, 0 at EOF, -1 on error. */
static int next_line(ir_reader *r)
{
    ssize_t n = getline(&r->buf, &r->cap, r->f);
    if (n < 0) {
        if (ferror(r->f)) {
            r->lineno++;
            return fail(r, 1, "read error: %s", strerror(errno));
        }
        return 0;
    }
    if (r->lineno >= INT_MAX) return fail(r, 1, "too many lines (more than %d)", INT_MAX);
    r->lineno++;
    size_t len = (size_t)n;
    if (len && r->buf[len - 1] == '\n') len--;
    if (len && r->buf[len - 1] == '\r') len--;
    r->buf[len] = '\0';
    r->len = len;
    /* a NUL byte in the line is an error: line_nul, which the caller runs
     * before it reads the line (fast_poly finds it on its own) */
    return 1;
}

/* Fails at the first NUL byte of the line read, if any (0 when none). */
static int line_nul(ir_reader *r)
{
    char *nul = memchr(r->buf, '\0', r->len);
    if (nul) return fail(r, (int)(nul - r->buf) + 1, "NUL byte in input");
    return 0;
}

static int valid_kind(const char *s, size_t n)
{
    if (n == 0 || !is_alpha(s[0])) return 0;
    for (size_t i = 1; i < n; i++)
        if (!is_alpha(s[i]) && !is_digit(s[i]) && s[i] != '_' && s[i] != '-') return 0;
    return 1;
}

/* An unknown record kind: kept verbatim, without surrounding blanks (and
 * carriage returns, which the writer would not give back). */
static void add_other(ir_diagram *d, ir_reader *r, char *start)
{
    char *end = r->buf + r->len;
    while (end > start && (is_blank(end[-1]) || end[-1] == '\r')) end--;
    *end = '\0';
    ir_elem *e = d_add(r, d, IR_OTHER);
    e->irline = (int)r->lineno;
    e->raw = d_strdup(r, start, (size_t)(end - start));
    /* a trailing @N still tells where it came from */
    char *w = end;
    while (w > start && !is_blank(w[-1])) w--;
    if (*w == '@' && w[1]) {
        long long v = 0;
        char *p = w + 1;
        for (; is_digit(*p) && v <= INT_MAX; p++) v = v * 10 + (*p - '0');
        if (!*p && v <= INT_MAX) e->line = (int)v;
    }
}

/* The records that are not elements. */
enum { REC_ELEM, REC_HEADER, REC_DIAGRAM, REC_UNIT, REC_BBOX, REC_END, REC_UNKNOWN };

static int rec_kind(const char *p, size_t n, ir_kind *kind)
{
    if (elem_kind(p, n, kind)) return REC_ELEM;
#define IS(lit) (n == sizeof lit - 1 && memcmp(p, lit, sizeof lit - 1) == 0)
    if (IS("diagram")) return REC_DIAGRAM;
    if (IS("diagramir")) return REC_HEADER;
    if (IS("unit")) return REC_UNIT;
    if (IS("bbox")) return REC_BBOX;
    if (IS("end")) return REC_END;
#undef IS
    return REC_UNKNOWN;
}

static const char *const rec_name[] = {
    [REC_HEADER] = "diagramir", [REC_DIAGRAM] = "diagram", [REC_UNIT] = "unit",
    [REC_BBOX] = "bbox", [REC_END] = "end",
};

/* Drops the diagram being read after an error. */
static void discard(ir_reader *r, ir_diagram *d)
{
    if (!r->borrow) ir_diagram_free(d);
}

/* What reading one line did. */
enum { LINE_NEXT, LINE_END, LINE_ERR, LINE_JSON };

/* A borrowed diagram's poly line the short way (fast_poly) from a copy in
 * the arena (p: the line's "poly"): 1 when it was read, 0 when the line must go the usual way,
 * -1 on an error (a NUL byte stops fast_poly short of the line's end and
 * fails as line_nul would). */
static int try_fast_poly(ir_reader *r, ir_diagram *d, const char *line, const char *p)
{
    char *copy = ir_arena_alloc(&r->arena, r->len + 1, 1);
    memcpy(copy, line, r->len + 1);
    const char *stop = NULL;
    if (!fast_poly(r, d, copy + (p - line) + 4, &stop)) return 0;
    if (stop == copy + r->len) return 1;
    return fail(r, (int)(stop - copy) + 1, "NUL byte in input");
}

/* "diagramir VERSION": the stream header. */
static int header_record(cur *c, const ir_diagram *d, int col0)
{
    char b[200];
    ir_reader *r = c->r;
    if (d)
        return fail(r, col0, "stream header inside diagram '%s' (line %d has no 'end')",
                    show(b, d->id), d->irline);
    tok *t = c->n ? &r->toks[0] : NULL;
    if (!t || t->type != TK_WORD)
        return fail(r, at_col(c), "'diagramir' needs a version number (this reader reads %d)",
                    IR_VERSION);
    char *e;
    errno = 0;
    long v = is_digit(t->s[0]) ? strtol(t->s, &e, 10) : -1;
    if (v < 0 || *e || errno) return fail(r, t->col, "bad IR version '%s'", show(b, t->s));
    if (v != IR_VERSION)
        return fail(r, t->col, "unsupported IR version %s (this reader reads version %d)",
                    show(b, t->s), IR_VERSION);
    c->i = 1;
    if (get_attrs(c, NULL, NULL, NULL, 0) < 0) return -1;
    r->seen_header = 1;
    return 0;
}

/* "diagram ID attrs": starts *dp. */
static int diagram_record(cur *c, ir_diagram **dp, int col0)
{
    char b[200];
    ir_reader *r = c->r;
    if (*dp)
        return fail(r, col0, "'diagram' before the 'end' of diagram '%s' (line %d)",
                    show(b, (*dp)->id), (*dp)->irline);
    if (!r->seen_header)
        return fail(r, col0, "missing 'diagramir %d' header before the first diagram", IR_VERSION);
    ir_diagram *d;
    if (r->borrow) {
        d = *dp = &r->bd;
        memset(d, 0, sizeof *d);
        if (get_name(c, &d->id, "an ID") < 0) return -1;
    } else {
        char *id = NULL;
        if (get_name(c, &id, "an ID") < 0) return -1;
        d = *dp = ir_diagram_new(id);
        free(id);
        free(d->unit);
        d->unit = NULL;
    }
    d->irline = (int)r->lineno;
    return get_attrs(c, NULL, &d->attrs, &d->nattrs, 0);
}

/* "unit NAME" */
static int unit_record(cur *c, ir_diagram *d, int col0)
{
    char b[200];
    if (d->unit) return fail(c->r, col0, "second 'unit' line in diagram '%s'", show(b, d->id));
    if (get_name(c, &d->unit, "a unit name") < 0) return -1;
    return get_attrs(c, NULL, NULL, NULL, 0);
}

/* "bbox X1 Y1 X2 Y2" */
static int bbox_record(cur *c, ir_diagram *d, int col0)
{
    char b[200];
    if (d->has_bbox)
        return fail(c->r, col0, "second 'bbox' line in diagram '%s'", show(b, d->id));
    if (get_nums(c, d->bbox, 4) < 0 || get_attrs(c, NULL, NULL, NULL, 0) < 0) return -1;
    d->has_bbox = 1;
    return 0;
}

/* An element record: a new element of d. */
static int elem_record(cur *c, ir_diagram *d, ir_kind kind)
{
    ir_elem *e = d_add(c->r, d, kind);
    e->irline = (int)c->r->lineno;
    if (kind == IR_CLIP) e->sub = IR_RECT;
    return get_elem(c, kind, e);
}

/* Reads the line in r->buf into the diagram being read (*dp, NULL before
 * its "diagram" line). */
static int read_line(ir_reader *r, ir_diagram **dp)
{
    char b[200];
    ir_diagram *d = *dp;
    char *line = r->buf, *p = line;
    while (is_blank(*p)) p++;
    if (r->borrow && d && p[0] == 'p' && p[1] == 'o' && p[2] == 'l' && p[3] == 'y' &&
        is_blank(p[4])) {
        int got = try_fast_poly(r, d, line, p);
        if (got) return got < 0 ? LINE_ERR : LINE_NEXT;
    }
    if (line_nul(r) < 0) return LINE_ERR;
    if (!*p || *p == '#') return LINE_NEXT;
    if (*p == '{' && !d) {
        /* a diagram in the JSON form, on this one line (diagramir-formats(5)) */
        char msg[600];
        int col = 1;
        r->jnext = ir_json_read_(line, r->len, (int)r->lineno, &col, msg, sizeof msg);
        if (!r->jnext) {
            fail(r, col, "%s", msg);
            return LINE_ERR;
        }
        return LINE_JSON;
    }
    /* the record kind */
    char *w = p;
    while (*w && !is_blank(*w)) w++;
    size_t wl = (size_t)(w - p);
    int col0 = (int)(p - line) + 1;
    if (!valid_kind(p, wl)) {
        *w = '\0';
        fail(r, col0, "expected a record kind at the start of the line, got '%s'", show(b, p));
        return LINE_ERR;
    }
    ir_kind kind = IR_OTHER;
    int rk = rec_kind(p, wl, &kind);
    if (rk == REC_UNKNOWN) {
        if (!d) {
            *w = '\0';
            fail(r, col0, "'%s' record outside a diagram (expected 'diagram ID' before it)",
                 show(b, p));
            return LINE_ERR;
        }
        add_other(d, r, p);
        return LINE_NEXT;
    }
    /* the rest of the line as tokens; borrowed, they are cut in a copy in
     * the arena, so the diagram's strings are the tokens themselves */
    const char *kw = rk == REC_ELEM ? ir_kind_name(kind) : rec_name[rk];
    if (r->borrow) {
        char *copy = ir_arena_alloc(&r->arena, r->len + 1, 1);
        memcpy(copy, line, r->len + 1);
        w = copy + (w - line);
        line = copy;
    }
    if (tokenize(r, line, w) < 0) return LINE_ERR;
    cur c = {r, kw, 0, r->ntoks};
    int rc;
    if (rk == REC_HEADER) {
        rc = header_record(&c, d, col0);
    } else if (rk == REC_DIAGRAM) {
        rc = diagram_record(&c, dp, col0);
    } else if (!d) {
        rc = fail(r, col0, "'%s' record outside a diagram (expected 'diagram ID' before it)", kw);
    } else if (rk == REC_END) {
        if (get_attrs(&c, NULL, NULL, NULL, 0) < 0) return LINE_ERR;
        return LINE_END;
    } else if (rk == REC_UNIT) {
        rc = unit_record(&c, d, col0);
    } else if (rk == REC_BBOX) {
        rc = bbox_record(&c, d, col0);
    } else {
        rc = elem_record(&c, d, kind);
    }
    return rc < 0 ? LINE_ERR : LINE_NEXT;
}

static int read_diagram(ir_reader *r, ir_diagram **out)
{
    char b[200];
    ir_diagram *d = NULL;
    *out = NULL;
    if (r->failed) return -1;
    if (r->borrow) ir_arena_reset(&r->arena);
    ir_diagram_free(r->jd);
    r->jd = NULL;
    for (;;) {
        int got = next_line(r), st;
        if (got == 0 && !d) return 0;
        if (got == 0) {
            r->lineno = d->irline;
            fail(r, 1, "diagram '%s' has no 'end' (input ends first)", show(b, d->id));
            st = LINE_ERR;
        } else {
            st = got < 0 ? LINE_ERR : read_line(r, &d);
        }
        if (st == LINE_END) {
            *out = d;
            return 1;
        }
        if (st == LINE_JSON) {
            *out = r->jnext;
            if (r->borrow) r->jd = r->jnext;
            r->jnext = NULL;
            return 1;
        }
        if (st == LINE_ERR) {
            discard(r, d);
            return -1;
        }
    }
}

int ir_read_diagram(ir_reader *r, ir_diagram **out)
{
    r->borrow = 0;
    return read_diagram(r, out);
}

int ir_read_diagram_borrowed(ir_reader *r, const ir_diagram **out)
{
    ir_diagram *d = NULL;
    r->borrow = 1;
    int rc = read_diagram(r, &d);
    *out = d;
    return rc;
}
