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
 * of ir_parse_num (the grammar is checked here, strtod runs in the C locale
 * because no program calls setlocale). */
#include "ir/ir.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

enum { TK_WORD, TK_STR, TK_ATTR, TK_LINE };

typedef struct {
    int type;
    int col;     /* 1-based byte column of the token's first byte */
    char *s;     /* WORD, STR: the text; ATTR: the key */
    char *val;   /* ATTR: the value */
    int num;     /* LINE: the number */
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
};

static void oom(void)
{
    fputs("diagramir: out of memory\n", stderr);
    abort();
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (!p) oom();
    memcpy(p, s, n);
    return p;
}

ir_reader *ir_reader_new(FILE *f, const char *fname)
{
    ir_reader *r = calloc(1, sizeof *r);
    if (!r) oom();
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
    r->err = malloc(n);
    if (!r->err) oom();
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

/* Unquotes the string whose opening quote is at *pp, in place. On success
 * the text (NUL-terminated) starts at the old quote position and *pp points
 * past the closing quote. */
static int unquote(ir_reader *r, char *line, char **pp)
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
    *pp = src;
    return 0;
}

static int valid_key(const char *k)
{
    if (!is_alpha(*k) && *k != '_') return 0;
    for (k++; *k; k++)
        if (!is_alpha(*k) && !is_digit(*k) && !strchr("_-.:", *k)) return 0;
    return 1;
}

static tok *new_tok(ir_reader *r)
{
    if (r->ntoks == r->tcap) {
        size_t cap = r->tcap ? r->tcap * 2 : 32;
        tok *t = realloc(r->toks, cap * sizeof *t);
        if (!t) oom();
        r->toks = t;
        r->tcap = cap;
    }
    tok *t = &r->toks[r->ntoks++];
    memset(t, 0, sizeof *t);
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
        char *q = p;
        while (*q && !is_blank(*q) && *q != '=' && *q != '"') q++;
        if (*p == '"') {                          /* "string" */
            t->type = TK_STR;
            t->s = p;
            if (unquote(r, line, &p) < 0) return -1;
        } else if (*q == '=' && *p != '@') {      /* key=value */
            t->type = TK_ATTR;
            t->s = p;
            *q = '\0';
            if (!valid_key(p))
                return fail(r, t->col, "bad attribute name '%s' (letters, digits, _ - . : allowed)",
                            show(b, p));
            p = q + 1;
            t->val = p;
            if (*p == '"') {
                if (unquote(r, line, &p) < 0) return -1;
            } else {
                while (*p && !is_blank(*p)) {
                    if (*p == '"')
                        return fail(r, (int)(p - line) + 1,
                                    "'\"' inside an unquoted value (quote the whole value)");
                    p++;
                }
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
            p = save ? q + 1 : q;
        } else if (*q == '"') {
            return fail(r, (int)(q - line) + 1, "'\"' inside a word (quote the whole word)");
        } else {                                  /* bare word */
            t->type = TK_WORD;
            t->s = p;
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
        if (!ir_parse_num(t->s, &out[j]))
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
    *out = xstrdup(t->s);
    c->i++;
    return 0;
}

static int get_str(cur *c, char **out, const char *what)
{
    char b[200];
    tok *t = c->i < c->n ? &c->r->toks[c->i] : NULL;
    if (!t) return fail(c->r, end_col(c), "'%s' needs %s", c->kind, what);
    if (t->type == TK_WORD && ir_parse_num(t->s, NULL))
        return fail(c->r, t->col, "too many numbers for '%s'", c->kind);
    if (t->type != TK_STR)
        return fail(c->r, t->col, "'%s' needs %s, got '%s'", c->kind, what, tok_text(b, t));
    *out = xstrdup(t->s);
    c->i++;
    return 0;
}

static int by_key_then_col(const void *a, const void *b)
{
    const tok *x = *(const tok *const *)a, *y = *(const tok *const *)b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->col > y->col) - (x->col < y->col);
}

/* The tokens left must be attributes (none when attrs is NULL, which must
 * be empty before); line_ok: the record may carry @LINE (already taken off
 * the end). Linear but for a sort, however many attributes there are. */
static int get_attrs(cur *c, ir_attr **attrs, size_t *nattrs, int line_ok)
{
    char b[200];
    size_t first = c->i, stop = c->i;
    while (stop < c->n && c->r->toks[stop].type == TK_ATTR && attrs) stop++;
    size_t na = stop - first;
    /* a duplicate key before the first word that is not an attribute */
    int dup_col = 0;
    const char *dup_key = NULL;
    if (na > 1) {
        tok **v = malloc(na * sizeof *v);
        if (!v) oom();
        for (size_t k = 0; k < na; k++) v[k] = &c->r->toks[first + k];
        qsort(v, na, sizeof *v, by_key_then_col);
        for (size_t k = 1; k < na; k++)
            if (strcmp(v[k]->s, v[k - 1]->s) == 0 && (!dup_col || v[k]->col < dup_col))
                dup_col = v[k]->col, dup_key = v[k]->s;
        free(v);
    }
    if (dup_col) return fail(c->r, dup_col, "duplicate attribute '%s'", show(b, dup_key));
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
            if (ir_parse_num(t->s, NULL))
                return fail(c->r, t->col, "too many numbers for '%s'", c->kind);
            return fail(c->r, t->col, "unexpected '%s' (expected %s)", show(b, t->s),
                        attrs ? "key=value" : "end of line");
        default:
            return fail(c->r, t->col, "unexpected quoted string (expected %s)",
                        attrs ? "key=value" : "end of line");
        }
    }
    if (na) {
        ir_attr *a = realloc(*attrs, ir_attr_cap(*nattrs + na) * sizeof *a);
        if (!a) oom();
        for (size_t k = 0; k < na; k++)
            ir_attr_init(&a[*nattrs + k], c->r->toks[first + k].s, c->r->toks[first + k].val);
        *attrs = a;
        *nattrs += na;
    }
    c->i = c->n;
    return 0;
}

/* npts points, then nextra more numbers into extra. */
static int get_pts(cur *c, ir_elem *e, int npts, double *extra, int nextra)
{
    double v[10];
    if (get_nums(c, v, 2 * npts + nextra) < 0) return -1;
    ir_pt p[4];
    for (int k = 0; k < npts; k++) p[k].x = v[2 * k], p[k].y = v[2 * k + 1];
    for (int k = 0; k < nextra; k++) extra[k] = v[2 * npts + k];
    ir_elem_set_pts(e, p, (size_t)npts);
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
    while (k < c->n && c->r->toks[k].type == TK_WORD) {
        if (!ir_parse_num(c->r->toks[k].s, NULL))
            return fail(c->r, c->r->toks[k].col, "expected a number, got '%s'",
                        show(b, c->r->toks[k].s));
        k++;
    }
    size_t nnum = k - first;
    c->i = k;
    if (nnum % 2)
        return fail(c->r, c->r->toks[k - 1].col,
                    "'%s' has an odd number of coordinates (%zu)", c->kind, nnum);
    if (nnum < 4)
        return fail(c->r, at_col(c), "'%s' needs at least 2 points, found %zu", c->kind, nnum / 2);
    e->npts = 0;
    free(e->pts);
    e->pts = malloc(nnum / 2 * sizeof *e->pts);
    if (!e->pts) oom();
    for (size_t j = 0; j < nnum / 2; j++) {
        ir_parse_num(c->r->toks[first + 2 * j].s, &e->pts[j].x);
        ir_parse_num(c->r->toks[first + 2 * j + 1].s, &e->pts[j].y);
    }
    e->npts = nnum / 2;
    c->i = k;
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
        if (!t || t->type != TK_WORD || !ir_kind_from_name(t->s, &sub) ||
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
    default:
        break;
    }
    return get_attrs(c, &e->attrs, &e->nattrs, 1);
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
    char *nul = memchr(r->buf, '\0', len);
    if (nul) return fail(r, (int)(nul - r->buf) + 1, "NUL byte in input");
    return 1;
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
    ir_elem *e = ir_add(d, IR_OTHER);
    e->irline = (int)r->lineno;
    e->raw = xstrdup(start);
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

int ir_read_diagram(ir_reader *r, ir_diagram **out)
{
    char b[200];
    ir_diagram *d = NULL;
    *out = NULL;
    if (r->failed) return -1;
    for (;;) {
        int got = next_line(r);
        if (got < 0) goto bad;
        if (got == 0) {
            if (!d) return 0;
            r->lineno = d->irline;
            fail(r, 1, "diagram '%s' has no 'end' (input ends first)", show(b, d->id));
            goto bad;
        }
        char *line = r->buf, *p = line;
        while (is_blank(*p)) p++;
        if (!*p || *p == '#') continue;
        char *w = p;
        while (*w && !is_blank(*w)) w++;
        size_t wl = (size_t)(w - p);
        char save = *w;
        *w = '\0';
        char kw[16];
        int known = wl < sizeof kw;
        if (known) memcpy(kw, p, wl + 1);
        *w = save;
        if (!valid_kind(p, wl)) {
            *w = '\0';
            fail(r, (int)(p - line) + 1, "expected a record kind at the start of the line, got '%s'",
                 show(b, p));
            goto bad;
        }
        ir_kind kind = IR_OTHER;
        int is_elem = known && ir_kind_from_name(kw, &kind);
        known = is_elem || (known && (!strcmp(kw, "diagramir") || !strcmp(kw, "diagram") ||
                                      !strcmp(kw, "unit") || !strcmp(kw, "bbox") ||
                                      !strcmp(kw, "end")));
        if (!known) {
            if (!d) {
                *w = '\0';
                fail(r, (int)(p - line) + 1, "'%s' record outside a diagram "
                     "(expected 'diagram ID' before it)", show(b, p));
                goto bad;
            }
            add_other(d, r, p);
            continue;
        }
        int col0 = (int)(p - line) + 1;
        if (tokenize(r, line, w) < 0) goto bad;
        cur c = {r, kw, 0, r->ntoks};

        if (!strcmp(kw, "diagramir")) {
            if (d) {
                fail(r, col0, "stream header inside diagram '%s' (line %d has no 'end')",
                     show(b, d->id), d->irline);
                goto bad;
            }
            tok *t = c.n ? &r->toks[0] : NULL;
            if (!t || t->type != TK_WORD) {
                fail(r, at_col(&c), "'diagramir' needs a version number (this reader reads %d)",
                     IR_VERSION);
                goto bad;
            }
            char *e;
            errno = 0;
            long v = is_digit(t->s[0]) ? strtol(t->s, &e, 10) : -1;
            if (v < 0 || *e || errno) {
                fail(r, t->col, "bad IR version '%s'", show(b, t->s));
                goto bad;
            }
            if (v != IR_VERSION) {
                fail(r, t->col, "unsupported IR version %s (this reader reads version %d)",
                     show(b, t->s), IR_VERSION);
                goto bad;
            }
            c.i = 1;
            if (get_attrs(&c, NULL, NULL, 0) < 0) goto bad;
            r->seen_header = 1;
            continue;
        }
        if (!strcmp(kw, "diagram")) {
            if (d) {
                fail(r, col0, "'diagram' before the 'end' of diagram '%s' (line %d)",
                     show(b, d->id), d->irline);
                goto bad;
            }
            if (!r->seen_header) {
                fail(r, col0, "missing 'diagramir %d' header before the first diagram", IR_VERSION);
                goto bad;
            }
            char *id = NULL;
            if (get_name(&c, &id, "an ID") < 0) goto bad;
            d = ir_diagram_new(id);
            free(id);
            free(d->unit);
            d->unit = NULL;
            d->irline = (int)r->lineno;
            if (get_attrs(&c, &d->attrs, &d->nattrs, 0) < 0) goto bad;
            continue;
        }
        if (!d) {
            fail(r, col0, "'%s' record outside a diagram (expected 'diagram ID' before it)", kw);
            goto bad;
        }
        if (!strcmp(kw, "end")) {
            if (get_attrs(&c, NULL, NULL, 0) < 0) goto bad;
            *out = d;
            return 1;
        }
        if (!strcmp(kw, "unit")) {
            if (d->unit) {
                fail(r, col0, "second 'unit' line in diagram '%s'", show(b, d->id));
                goto bad;
            }
            if (get_name(&c, &d->unit, "a unit name") < 0 || get_attrs(&c, NULL, NULL, 0) < 0)
                goto bad;
            continue;
        }
        if (!strcmp(kw, "bbox")) {
            if (d->has_bbox) {
                fail(r, col0, "second 'bbox' line in diagram '%s'", show(b, d->id));
                goto bad;
            }
            if (get_nums(&c, d->bbox, 4) < 0 || get_attrs(&c, NULL, NULL, 0) < 0) goto bad;
            d->has_bbox = 1;
            continue;
        }
        ir_elem *e = ir_add(d, kind);
        e->irline = (int)r->lineno;
        if (kind == IR_CLIP) e->sub = IR_RECT;
        if (get_elem(&c, kind, e) < 0) goto bad;
    }
bad:
    ir_diagram_free(d);
    return -1;
}
