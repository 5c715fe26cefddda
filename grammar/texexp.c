/* texexp.c — TeX tokenizer, token lists and the macro expander (see
 * texexp.h).
 *
 * Work per token is kept small:
 *   - the tokenizer is flex (grammar/tex.l; catcodes as plain LaTeX sets
 *     them) and a run of letters or other characters is one match;
 *   - names are interned with their lengths (no strlen when turning tokens
 *     back into text);
 *   - the input stack is one token stack: a pushed list or a macro
 *     expansion with arguments is written on top of it and released when
 *     read to its end (levels end in LIFO order), so nothing is malloc'd per
 *     expansion;
 *   - the expansion of a macro whose body takes no arguments is not copied
 *     at all: its input level reads the macro's body in place (the macro is
 *     reference-counted, so redefining it while its body is being read is
 *     safe) and gives every token the position of the macro's use;
 *   - the expansion of a macro whose body takes arguments copies only the
 *     arguments: its input level is a list of pieces (runs), the literal
 *     parts of the body read in place as above and the arguments' copies on
 *     the token stack. It counts as one level of as many tokens as the
 *     copied expansion had, so the depth and work bounds trip at the same
 *     points; tex_set_copying_expansion (texexp_internal.h) turns the
 *     copying back on for the unit test that compares the two
 *     (tests/unit/test_texexp_runs.c);
 *   - the readers of a statement, an optional argument and an argument's
 *     group write its text as they read, taking the tokens that need no
 *     expansion in runs (take_run);
 *   - the tokens of short texts tokenized again and again are kept
 *     (tex_tokenize's tokcache). */
#include "grammar/texexp.h"
#include "grammar/texexp_internal.h"
#include "ir/xalloc.h"
#include "tex.lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds that turn runaway input into errors instead of hangs. */
#define MAX_INPUT_DEPTH 5000      /* nested, unfinished macro expansions */
#define MAX_EXPANSIONS 200000     /* macro expansions per document */
#define MAX_TOKENS_PER_ARG 1000000
#define MAX_PUSHED_TOKENS 10000000 /* tokens produced by expansion per document */

void tl_grow(toklist *l)
{
    l->cap = l->cap ? l->cap * 2 : 16;
    l->v = xrealloc(l->v, l->cap * sizeof *l->v);
}

static void tl_reserve_slow(toklist *l, size_t more);

static inline void tl_reserve(toklist *l, size_t more)
{
    if (l->n + more > l->cap) tl_reserve_slow(l, more);
}

static void tl_reserve_slow(toklist *l, size_t more)
{
    size_t nc = l->cap ? l->cap : 16;
    while (nc < l->n + more) nc *= 2;
    l->v = xrealloc(l->v, nc * sizeof *l->v);
    l->cap = nc;
}

void tl_append(toklist *l, const toklist *o)
{
    if (o->n == 0) return;
    tl_reserve(l, o->n);
    memcpy(l->v + l->n, o->v, o->n * sizeof *o->v);
    l->n += o->n;
}

void tl_free(toklist *l) { free(l->v); l->v = NULL; l->n = l->cap = 0; }
void tl_clear(toklist *l) { l->n = 0; }

/* A piece of a macro body with arguments: tokens [start, start+len) of the
 * body, or (arg 1..9) that argument. */
typedef struct { int arg; size_t start, len; } seg;

typedef struct macro {
    toklist params;
    int nparams;
    toklist body;
    int has_opt;
    toklist optdef;
    int let_tok;      /* \let to a non-macro token: body holds that one token */
    int body_args;    /* the body holds T_ARG tokens (substituted or dropped) */
    seg *segs;        /* body_args: the body in pieces (#0 and #10.. dropped) */
    size_t nsegs, nlit; /* nlit: body tokens outside arguments */
    int refs;         /* the definition table (or a save slot) + input levels reading the body */
    char *text;       /* cached body text for parameterless macros */
    /* the statement reader's view of a long body (make_plain_runs) */
    unsigned *prun;
    char *ptext;
    int nargs;        /* expand_macro uses (reads or substitutes) args[0..nargs) only */
} macro;

typedef struct { int name; macro *old; } saved;

/* A text written from tokens as tex_to_text_ex writes them: s[0,n), the
 * source line of each byte in ln[0,n). pend: the last token written was a
 * control sequence whose name ends in a letter (a letter token after it
 * gets a separating space, line pend_ln). */
typedef struct {
    char *s;
    int *ln;
    size_t n, cap;
    int pend, pend_ln;
} textbuf;

/* A piece of a runs level: tokens [start, start+len) (len > 0) of the
 * level's macro body (inbody) or of the token stack. */
typedef struct { size_t start, len; int inbody; } run;

/* An input level: tokens [pos,n) of its current piece still to be read.
 * The piece is a region of the token stack (inbody 0; tokens at
 * ts[base..base+n)) or of the body of macro m read in place (inbody 1;
 * tokens at m->body.v[base..base+n); ovr: tokens get line/col). A level
 * made of several pieces (a macro with arguments: runs c->runs[rfirst,
 * rend), rcur the current one; other levels have rcur == rend) moves to its
 * next piece when one is read to its end and is popped after its last; it
 * reads as the one copied list of its pieces would (tex_push_tok steps back
 * over a piece boundary). bovr: the body pieces' ovr. mark, rfirst: c->nts
 * and c->nruns when pushed (restored when popped; the token stack above
 * mark holds the level's own tokens). */
typedef struct {
    macro *m;
    size_t base, n, pos;
    int inbody, ovr, bovr, line, col;
    size_t mark, rfirst, rcur, rend;
} level;

struct tex_ctx {
    /* intern table */
    char **names;
    size_t *lens;         /* strlen of each name */
    size_t nnames, capnames;
    int *hash;
    size_t hcap;
    /* macros by name id */
    macro **macros;
    size_t capmacros;
    saved *save;
    size_t nsave, capsave;
    int *groups;          /* save-stack marks */
    size_t ngroups, capgroups;
    /* input */
    level *in;
    size_t nin, capin;
    tex_tok *ts;          /* token stack holding the levels' copied tokens */
    size_t nts, capts;
    run *runs;            /* the runs levels' pieces (a stack, as ts) */
    size_t nruns, capruns;
    int copying;          /* tex_set_copying_expansion */
    /* the top level's tokens: start, next, end (rp == re == NULL: no input);
     * rovr: they get line/col rline/rcol. in[nin-1].pos is only up to date
     * after save_top. */
    const tex_tok *rs, *rp, *re;
    int rovr, rline, rcol;
    toklist args[10];     /* macro arguments being read (scratch) */
    long expansions;
    long pushed;              /* tokens pushed by expansion (work bound) */
    int cur_line, cur_col;
    /* error */
    int failed, err_line, err_col;
    /* the flex scanner (made on first use) and its extra data */
    yyscan_t scanner;
    struct texlex_extra lx;
    int id_begin, id_end; /* the names begin and end (statement stops) */
    struct tokcache *tokcache; /* tex_tokenize's (made on first use) */
    /* the texts tex_read_statement, tex_read_opt_text and tex_read_arg_text
     * read last (the buffers are reused) */
    textbuf st, op, at;
    char err[512];
};

static unsigned long hash_str(const char *s, size_t n)
{
    unsigned long h = 5381;
    for (size_t i = 0; i < n; i++) h = h * 33 + (unsigned char)s[i];
    return h;
}

static void rehash(tex_ctx *c)
{
    size_t nc = c->hcap ? c->hcap * 2 : 256;
    int *h = xmalloc(nc * sizeof *h);
    for (size_t i = 0; i < nc; i++) h[i] = -1;
    for (size_t i = 0; i < c->nnames; i++) {
        size_t k = hash_str(c->names[i], c->lens[i]) & (nc - 1);
        while (h[k] >= 0) k = (k + 1) & (nc - 1);
        h[k] = (int)i;
    }
    free(c->hash);
    c->hash = h;
    c->hcap = nc;
}

/* A name is found when its text (as a C string: up to a NUL byte) is the
 * whole of name[0..len); a name with a NUL byte in it is never found again. */
int tex_intern(tex_ctx *c, const char *name, size_t len)
{
    if ((c->nnames + 1) * 2 > c->hcap) rehash(c);
    size_t k = hash_str(name, len) & (c->hcap - 1);
    while (c->hash[k] >= 0) {
        int id = c->hash[k];
        if (c->lens[id] == len && memcmp(c->names[id], name, len) == 0) return id;
        k = (k + 1) & (c->hcap - 1);
    }
    if (c->nnames == c->capnames) {
        c->capnames = c->capnames ? c->capnames * 2 : 256;
        c->names = xrealloc(c->names, c->capnames * sizeof *c->names);
        c->lens = xrealloc(c->lens, c->capnames * sizeof *c->lens);
    }
    char *s = xmalloc(len + 1);
    memcpy(s, name, len);
    s[len] = 0;
    c->names[c->nnames] = s;
    c->lens[c->nnames] = memchr(s, 0, len) ? strlen(s) : len;
    c->hash[k] = (int)c->nnames;
    return (int)c->nnames++;
}

const char *tex_name(const tex_ctx *c, int id)
{
    return (id >= 0 && (size_t)id < c->nnames) ? c->names[id] : "";
}

static size_t name_len(const tex_ctx *c, int id)
{
    return (id >= 0 && (size_t)id < c->nnames) ? c->lens[id] : 0;
}

tex_ctx *tex_new(void)
{
    tex_ctx *c = xcalloc(1, sizeof *c);
    c->id_begin = tex_intern(c, "begin", 5);
    c->id_end = tex_intern(c, "end", 3);
    return c;
}

static void macro_unref(macro *m)
{
    if (!m || --m->refs > 0) return;
    tl_free(&m->params);
    tl_free(&m->body);
    tl_free(&m->optdef);
    free(m->segs);
    free(m->text);
    free(m->prun);
    free(m);
}

/* Drops every input level. */
static void drop_input(tex_ctx *c)
{
    for (size_t i = 0; i < c->nin; i++) macro_unref(c->in[i].m);
    c->nin = 0;
    c->nts = 0;
    c->nruns = 0;
    c->rs = c->rp = c->re = NULL;
    c->rovr = 0;
}

void tex_free(tex_ctx *c)
{
    if (!c) return;
    drop_input(c);
    for (size_t i = 0; i < c->nnames; i++) free(c->names[i]);
    free(c->names);
    free(c->lens);
    free(c->hash);
    for (size_t i = 0; i < c->capmacros; i++) macro_unref(c->macros[i]);
    free(c->macros);
    for (size_t i = 0; i < c->nsave; i++) macro_unref(c->save[i].old);
    free(c->save);
    free(c->groups);
    free(c->in);
    free(c->ts);
    free(c->runs);
    for (int i = 0; i < 10; i++) tl_free(&c->args[i]);
    if (c->scanner) texlex_destroy(c->scanner);
    free(c->tokcache);
    textbuf *bufs[] = { &c->st, &c->op, &c->at };
    for (int i = 0; i < 3; i++) { free(bufs[i]->s); free(bufs[i]->ln); }
    free(c);
}

/* ---- tokenizer ----------------------------------------------------------- */

/* The scanner is grammar/tex.l (flex); these are its actions. x->off is
 * the offset of the match in the text, x->lstart that of the current line's
 * first byte: a token's column is off - lstart + 1. */
static inline void lx_push(struct texlex_extra *x, int type, int ch, int name)
{
    tex_tok t;
    memset(&t, 0, sizeof t);
    t.type = (unsigned char)type;
    t.ch = ch;
    t.name = name;
    t.line = x->line;
    t.col = (int)(x->off - x->lstart + 1);
    tl_push(x->out, t);
}

/* newlines in text[from,len) of the match at x->off */
static void lx_lines(struct texlex_extra *x, const char *text, size_t from, size_t len)
{
    for (size_t i = from; i < len; i++)
        if (text[i] == '\n') { x->line++; x->lstart = x->off + i + 1; }
}

void texlex_one(struct texlex_extra *x, int type, int ch, size_t len)
{
    lx_push(x, type, ch, 0);
    x->off += len;
}

void texlex_run(struct texlex_extra *x, int type, const char *text, size_t len)
{
    tl_reserve(x->out, len);
    tex_tok *d = x->out->v + x->out->n;
    int col = (int)(x->off - x->lstart + 1);
    for (size_t i = 0; i < len; i++)
        d[i] = (tex_tok){ .type = (unsigned char)type, .ch = (unsigned char)text[i],
                          .line = x->line, .col = col + (int)i };
    x->out->n += len;
    x->off += len;
}

void texlex_skip(struct texlex_extra *x, const char *text, size_t len)
{
    lx_lines(x, text, 0, len);
    x->off += len;
}

void texlex_space(struct texlex_extra *x, const char *text, size_t len)
{
    lx_push(x, T_SPACE, ' ', 0);
    texlex_skip(x, text, len);
}

static int is_cs_letter(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '@';
}

/* \name and what follows it (spaces, at most one newline), or \x */
void texlex_cs(struct texlex_extra *x, const char *text, size_t len)
{
    size_t n = 1;
    if (is_cs_letter((unsigned char)text[1]))
        while (n < len && is_cs_letter((unsigned char)text[n])) n++;
    else
        n = 2;
    lx_push(x, T_CS, 0, tex_intern(x->ctx, text + 1, n - 1));
    lx_lines(x, text, 1, len);
    x->off += len;
}

/* Short texts are tokenized again and again (\foreach values, pgfmath
 * results, option values): their tokens are kept in a small table keyed by
 * the exact text and first line. The tokens depend on nothing else (fixed
 * catcodes; interned names are never dropped, so their ids stay valid). */
#define TOKCACHE_SLOTS 128
#define TOKCACHE_MAXLEN 32
struct tokcache {
    size_t len;           /* 0: empty slot */
    int line;
    size_t n;
    char text[TOKCACHE_MAXLEN];
    tex_tok v[TOKCACHE_MAXLEN];   /* at most one token a byte */
};

static void tokenize_flex(tex_ctx *c, const char *text, size_t len, int first_line, toklist *out)
{
    /* at most one token a byte: room for all of a short text at once */
    tl_reserve(out, len < 65536 ? len : 65536);
    if (!c->scanner && texlex_init_extra(&c->lx, &c->scanner) != 0) {
        fprintf(stderr, "tikz2ir: out of memory\n");
        exit(2);
    }
    c->lx.ctx = c;
    c->lx.out = out;
    c->lx.line = first_line;
    c->lx.off = c->lx.lstart = 0;
    YY_BUFFER_STATE b = tex_scan_bytes(text, (int)len, c->scanner);
    texlex(c->scanner);
    tex_delete_buffer(b, c->scanner);
}

void tex_tokenize(tex_ctx *c, const char *text, size_t len, int first_line, toklist *out)
{
    if (len == 0 || len > TOKCACHE_MAXLEN) {
        tokenize_flex(c, text, len, first_line, out);
        return;
    }
    unsigned h = 2166136261u ^ (unsigned)first_line;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)text[i]) * 16777619u;
    if (!c->tokcache) {
        c->tokcache = xmalloc(TOKCACHE_SLOTS * sizeof *c->tokcache);
        for (size_t i = 0; i < TOKCACHE_SLOTS; i++) c->tokcache[i].len = 0;
    }
    struct tokcache *e = &c->tokcache[(h ^ (h >> 16)) & (TOKCACHE_SLOTS - 1)];
    if (e->len == len && e->line == first_line && memcmp(e->text, text, len) == 0) {
        if (e->n == 0) return;   /* (a comment only: out->v may be NULL) */
        tl_reserve(out, e->n);
        memcpy(out->v + out->n, e->v, e->n * sizeof *e->v);
        out->n += e->n;
        return;
    }
    size_t n0 = out->n;
    tokenize_flex(c, text, len, first_line, out);
    if (out->n - n0 > TOKCACHE_MAXLEN) { e->len = 0; return; }   /* (cannot happen) */
    e->len = len;
    e->line = first_line;
    e->n = out->n - n0;
    memcpy(e->text, text, len);
    memcpy(e->v, out->v + n0, e->n * sizeof *e->v);
}

/* ---- tokens to text ------------------------------------------------------ */

char *tex_to_text(const tex_ctx *c, const toklist *l, size_t from, size_t to, int **lines)
{
    return tex_to_text_ex(c, l, from, to, "", 0, lines);
}

static int is_letter_ch(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

static void tb_grow(textbuf *b, size_t more)
{
    size_t nc = b->cap ? b->cap : 256;
    while (nc < b->n + more) nc *= 2;
    b->s = xrealloc(b->s, nc);
    b->ln = xrealloc(b->ln, nc * sizeof *b->ln);
    b->cap = nc;
}

/* Room for more bytes (and their lines) after the text. */
static inline void tb_reserve(textbuf *b, size_t more)
{
    if (b->n + more > b->cap) tb_grow(b, more);
}

static void tb_start(textbuf *b)
{
    b->n = 0;
    b->pend = 0;
    tb_reserve(b, 64);
}

/* Ends the text with a NUL (its line: the last byte's, or line). */
static void tb_end(textbuf *b, int line)
{
    tb_reserve(b, 1);
    b->s[b->n] = 0;
    b->ln[b->n] = b->n ? b->ln[b->n - 1] : line;
}

/* Appends the text of token t, line li, as tex_to_text_ex writes it (any
 * token; tb_put is the one to call). */
static void tb_put_any(const tex_ctx *c, textbuf *b, const tex_tok *t, int li)
{
    tb_reserve(b, 3 + (t->type == T_CS ? name_len(c, t->name) : 0));
    char *s = b->s;
    int *ln = b->ln;
    size_t n = b->n;
    if (b->pend) {
        if (t->type == T_LETTER) { s[n] = ' '; ln[n] = b->pend_ln; n++; }
        b->pend = 0;
    }
    if (t->type == T_CS) {
        size_t k = name_len(c, t->name);
        const char *nm = tex_name(c, t->name);
        s[n] = '\\';
        memcpy(s + n + 1, nm, k);
        for (size_t j = 0; j <= k; j++) ln[n + j] = li;
        n += k + 1;
        if (k > 0 && is_letter_ch(nm[k - 1])) { b->pend = 1; b->pend_ln = li; }
    } else if (t->type == T_ARG) {
        s[n] = '#';
        s[n + 1] = (char)('0' + (t->ch % 10));
        ln[n] = ln[n + 1] = li;
        n += 2;
    } else {
        s[n] = (char)t->ch;
        ln[n] = li;
        n++;
    }
    b->n = n;
}

/* tb_put_any, with the common case here: a token whose text is its one
 * character (not a control sequence nor #n) and no separating space
 * pending. */
static inline void tb_put(const tex_ctx *c, textbuf *b, const tex_tok *t, int li)
{
    if (b->pend || t->type == T_CS || t->type == T_ARG) {
        tb_put_any(c, b, t, li);
        return;
    }
    tb_reserve(b, 1);
    b->s[b->n] = (char)t->ch;
    b->ln[b->n] = li;
    b->n++;
}

char *tex_to_text_ex(const tex_ctx *c, const toklist *l, size_t from, size_t to,
                     const char *prefix, int prefix_line, int **lines)
{
    if (to > l->n) to = l->n;
    if (from > to) from = to;
    textbuf b = { 0 };
    size_t pl = strlen(prefix);
    tb_reserve(&b, pl + 2 * (to - from) + 1);
    memcpy(b.s, prefix, pl);
    for (size_t j = 0; j < pl; j++) b.ln[j] = prefix_line;
    b.n = pl;
    for (size_t i = from; i < to; i++)
        tb_put(c, &b, &l->v[i], l->v[i].line > 0 ? l->v[i].line : prefix_line);
    tb_end(&b, prefix_line);
    if (lines) *lines = b.ln;
    else free(b.ln);
    return b.s;
}

/* ---- errors -------------------------------------------------------------- */

void tex_error(tex_ctx *c, int line, int col, const char *fmt, ...)
{
    if (c->failed) return;
    c->failed = 1;
    c->err_line = line;
    c->err_col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    /* drop all pending input so the interpreter stops quickly */
    drop_input(c);
}

const char *tex_error_msg(const tex_ctx *c) { return c->err; }
int tex_error_line(const tex_ctx *c) { return c->err_line; }
int tex_error_col(const tex_ctx *c) { return c->err_col; }
int tex_failed(const tex_ctx *c) { return c->failed; }
int tex_cur_line(const tex_ctx *c) { return c->cur_line; }

void tex_reset_budget(tex_ctx *c) { c->pushed = 0; c->expansions = 0; }

void tex_reset(tex_ctx *c, int depth)
{
    drop_input(c);
    while ((int)c->ngroups > depth) tex_group_end(c);
    c->failed = 0;
    c->err[0] = 0;
    c->expansions = 0;
    c->pushed = 0;
}

/* ---- macros and groups --------------------------------------------------- */

static void set_macro(tex_ctx *c, int name, macro *m, int global)
{
    if ((size_t)name >= c->capmacros) {
        size_t nc = c->capmacros ? c->capmacros : 256;
        while (nc <= (size_t)name) nc *= 2;
        c->macros = xrealloc(c->macros, nc * sizeof *c->macros);
        memset(c->macros + c->capmacros, 0, (nc - c->capmacros) * sizeof *c->macros);
        c->capmacros = nc;
    }
    if (!global && c->ngroups > 0) {
        if (c->nsave == c->capsave) {
            c->capsave = c->capsave ? c->capsave * 2 : 64;
            c->save = xrealloc(c->save, c->capsave * sizeof *c->save);
        }
        c->save[c->nsave].name = name;
        c->save[c->nsave].old = c->macros[name];
        c->nsave++;
    } else {
        macro_unref(c->macros[name]);
    }
    c->macros[name] = m;
}

static macro *get_macro(const tex_ctx *c, int name)
{
    return (name >= 0 && (size_t)name < c->capmacros) ? c->macros[name] : NULL;
}

static macro *macro_new(void)
{
    macro *m = xcalloc(1, sizeof *m);
    m->refs = 1;
    return m;
}

static void note_body_args(macro *m)
{
    /* (the params and has_opt are set before this is called) */
    m->nargs = m->has_opt ? 1 : 0;
    for (size_t i = 0; i < m->params.n; i++) {
        int k = m->params.v[i].ch;
        if (m->params.v[i].type == T_ARG && (k - 1 < 10 && k >= 1 ? k : 1) > m->nargs)
            m->nargs = k - 1 < 10 && k >= 1 ? k : 1;
    }
    for (size_t i = 0; i < m->body.n; i++)
        if (m->body.v[i].type == T_ARG && m->body.v[i].ch >= 1 && m->body.v[i].ch <= 9 &&
            m->body.v[i].ch > m->nargs)
            m->nargs = m->body.v[i].ch;
    m->body_args = 0;
    for (size_t i = 0; i < m->body.n; i++)
        if (m->body.v[i].type == T_ARG) { m->body_args = 1; break; }
    if (!m->body_args) return;
    const tex_tok *b = m->body.v;
    size_t n = m->body.n, ns = 0;
    m->segs = xmalloc(n * sizeof *m->segs);
    for (size_t i = 0; i < n;) {
        if (b[i].type == T_ARG) {
            if (b[i].ch >= 1 && b[i].ch <= 9) m->segs[ns++] = (seg){ b[i].ch, i, 0 };
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && b[j].type != T_ARG) j++;
        m->segs[ns++] = (seg){ 0, i, j - i };
        m->nlit += j - i;
        i = j;
    }
    m->nsegs = ns;
}

void tex_define(tex_ctx *c, int name, const toklist *params, int nparams,
                const toklist *body, const toklist *opt_default, int global)
{
    macro *m = macro_new();
    if (params) tl_append(&m->params, params);
    m->nparams = nparams;
    tl_append(&m->body, body);
    if (opt_default) { m->has_opt = 1; tl_append(&m->optdef, opt_default); }
    note_body_args(m);
    set_macro(c, name, m, global);
}

void tex_define_text(tex_ctx *c, const char *name, const char *text, int global)
{
    macro *m = macro_new();
    tex_tokenize(c, text, strlen(text), 0, &m->body);
    note_body_args(m);
    set_macro(c, tex_intern(c, name, strlen(name)), m, global);
}

int tex_is_defined(const tex_ctx *c, int name) { return get_macro(c, name) != NULL; }

void tex_let(tex_ctx *c, int name, tex_tok other, int global)
{
    macro *o = other.type == T_CS ? get_macro(c, other.name) : NULL;
    if (!o && other.type == T_CS && other.name == name) return;
    macro *m = macro_new();
    if (o) {
        tl_append(&m->params, &o->params);
        m->nparams = o->nparams;
        tl_append(&m->body, &o->body);
        m->has_opt = o->has_opt;
        tl_append(&m->optdef, &o->optdef);
    } else {
        tl_push(&m->body, other);
        m->let_tok = 1;
    }
    note_body_args(m);
    set_macro(c, name, m, global);
}

const char *tex_macro_text(tex_ctx *c, int name)
{
    macro *m = get_macro(c, name);
    if (!m || m->nparams || m->has_opt) return NULL;
    if (!m->text) m->text = tex_to_text(c, &m->body, 0, m->body.n, NULL);
    return m->text;
}

void tex_group_begin(tex_ctx *c)
{
    if (c->ngroups == c->capgroups) {
        c->capgroups = c->capgroups ? c->capgroups * 2 : 32;
        c->groups = xrealloc(c->groups, c->capgroups * sizeof *c->groups);
    }
    c->groups[c->ngroups++] = (int)c->nsave;
}

void tex_group_end(tex_ctx *c)
{
    if (c->ngroups == 0) return;
    size_t mark = (size_t)c->groups[--c->ngroups];
    while (c->nsave > mark) {
        saved *s = &c->save[--c->nsave];
        macro_unref(c->macros[s->name]);
        c->macros[s->name] = s->old;
    }
}

int tex_group_depth(const tex_ctx *c) { return (int)c->ngroups; }

/* ---- input stack --------------------------------------------------------- */

static void save_top(tex_ctx *c)
{
    if (c->nin) c->in[c->nin - 1].pos = (size_t)(c->rp - c->rs);
}

static void load_top(tex_ctx *c)
{
    if (c->nin == 0) {
        c->rs = c->rp = c->re = NULL;
        c->rovr = 0;
        return;
    }
    const level *lv = &c->in[c->nin - 1];
    c->rs = lv->inbody ? lv->m->body.v + lv->base : c->ts + lv->base;
    c->rp = c->rs + lv->pos;
    c->re = c->rs + lv->n;
    c->rovr = lv->ovr;
    c->rline = lv->line;
    c->rcol = lv->col;
}

/* Room for n more tokens on the token stack; returns where they go. */
static tex_tok *ts_reserve(tex_ctx *c, size_t n)
{
    if (c->nts + n > c->capts) {
        size_t nc = c->capts ? c->capts : 1024;
        while (nc < c->nts + n) nc *= 2;
        save_top(c);
        c->ts = xrealloc(c->ts, nc * sizeof *c->ts);
        c->capts = nc;
        load_top(c);
    }
    return c->ts + c->nts;
}

/* Accounts for n tokens about to be pushed; 0 (with the error set) when the
 * work or depth bound is hit. Tokens read from the source (tex_push_text)
 * are not expansion work: the input size limit bounds them. */
static int push_check(tex_ctx *c, size_t n)
{
    c->pushed += (long)n;
    if (c->pushed > MAX_PUSHED_TOKENS) {
        tex_error(c, c->cur_line, c->cur_col,
                  "macro expansion produced more than %d tokens (runaway macro?)", MAX_PUSHED_TOKENS);
        return 0;
    }
    if (c->nin >= MAX_INPUT_DEPTH) {
        tex_error(c, c->cur_line, c->cur_col,
                  "macro expansion nested more than %d levels deep (recursive macro?)",
                  MAX_INPUT_DEPTH);
        return 0;
    }
    if (c->nin == c->capin) {
        c->capin = c->capin ? c->capin * 2 : 32;
        c->in = xrealloc(c->in, c->capin * sizeof *c->in);
    }
    save_top(c);
    return 1;
}

/* Makes the n tokens written at the top of the token stack (ts_reserve) a
 * new input level. */
static void push_top(tex_ctx *c, size_t n)
{
    if (n == 0 || !push_check(c, n)) return;
    level *lv = &c->in[c->nin++];
    lv->m = NULL;
    lv->base = c->nts;
    lv->n = n;
    lv->pos = 0;
    lv->inbody = 0;
    lv->ovr = 0;
    lv->line = lv->col = 0;   /* not used: the tokens keep their own (ovr 0) */
    lv->mark = c->nts;
    lv->rfirst = lv->rcur = lv->rend = c->nruns;
    c->nts += n;
    c->rs = c->rp = c->ts + lv->base;
    c->re = c->rs + n;
    c->rovr = 0;
    c->rline = c->rcol = 0;
}

/* A new input level reading m's body in place (n > 0 tokens). */
static void push_body(tex_ctx *c, macro *m, const tex_tok *cs)
{
    if (!push_check(c, m->body.n)) return;
    level *lv = &c->in[c->nin++];
    m->refs++;
    lv->m = m;
    lv->base = 0;
    lv->n = m->body.n;
    lv->pos = 0;
    lv->inbody = 1;
    lv->ovr = lv->bovr = !m->let_tok;
    lv->line = cs->line;
    lv->col = cs->col;
    lv->mark = c->nts;
    lv->rfirst = lv->rcur = lv->rend = c->nruns;
    load_top(c);
}

/* lv's current piece is run r */
static inline void set_piece(level *lv, const run *r)
{
    lv->inbody = r->inbody;
    lv->base = r->start;
    lv->n = r->len;
    lv->ovr = r->inbody ? lv->bovr : 0;
}

void tex_push_list(tex_ctx *c, const toklist *l)
{
    if (c->failed || l->n == 0) return;
    memcpy(ts_reserve(c, l->n), l->v, l->n * sizeof *l->v);
    push_top(c, l->n);
}

void tex_push_list_tok(tex_ctx *c, const toklist *l, tex_tok t)
{
    if (c->failed) return;
    tex_tok *d = ts_reserve(c, l->n + 1);
    if (l->n) memcpy(d, l->v, l->n * sizeof *l->v);
    d[l->n] = t;
    push_top(c, l->n + 1);
}

void tex_push_text(tex_ctx *c, const char *text, size_t len, int first_line)
{
    /* tokenized straight onto the token stack (as tex_tokenize, then
     * tex_push_list, without the list between) */
    save_top(c);
    toklist l = { c->ts, c->nts, c->capts };
    tex_tokenize(c, text, len, first_line, &l);
    c->ts = l.v;
    c->capts = l.cap;
    load_top(c);
    if (c->failed) return;
    /* source text, not expansion: it does not count toward the expansion
     * work bound (push_check adds it back) */
    c->pushed -= (long)(l.n - c->nts);
    push_top(c, l.n - c->nts);
}

static void pop_level(tex_ctx *c)
{
    level *lv = &c->in[--c->nin];
    if (lv->m) macro_unref(lv->m);
    c->nts = lv->mark;
    c->nruns = lv->rfirst;
    load_top(c);
}

/* The top level's current piece has been read to its end: its next piece,
 * or the level is popped. */
static void piece_end(tex_ctx *c)
{
    level *lv = &c->in[c->nin - 1];
    if (lv->rcur + 1 < lv->rend) {
        /* (load_top's work for a piece of the same level) */
        const run *r = &c->runs[++lv->rcur];
        set_piece(lv, r);
        lv->pos = 0;
        c->rs = c->rp = r->inbody ? lv->m->body.v + r->start : c->ts + r->start;
        c->re = c->rs + r->len;
        c->rovr = lv->ovr;
        return;
    }
    pop_level(c);
}

static void tex_push_tok_slow(tex_ctx *c, tex_tok t);

void tex_push_tok(tex_ctx *c, tex_tok t)
{
    if (c->failed) return;
    /* at the start of a piece that is not its level's first: the token
     * before is the end of the previous piece (as in the copied list) */
    if (c->rp == c->rs && c->nin && c->in[c->nin - 1].rcur > c->in[c->nin - 1].rfirst) {
        level *lv = &c->in[c->nin - 1];
        set_piece(lv, &c->runs[--lv->rcur]);
        lv->pos = lv->n;
        load_top(c);
    }
    /* put back into the current level when possible */
    if (c->rp > c->rs) {
        level *lv = &c->in[c->nin - 1];
        if (!lv->inbody) {
            c->rp--;
            c->ts[lv->base + (size_t)(c->rp - c->rs)] = t;
            return;
        }
        /* a macro body read in place: the token just read from it needs
         * nothing written */
        const tex_tok *p = c->rp - 1;
        int line = c->rovr ? c->rline : p->line, col = c->rovr ? c->rcol : p->col;
        if (p->type == t.type && p->ch == t.ch && p->name == t.name && line == t.line && col == t.col) {
            c->rp--;
            return;
        }
        tex_push_tok_slow(c, t);
        return;
    }
    *ts_reserve(c, 1) = t;
    push_top(c, 1);
}

/* Pushing a different token back into a macro body read in place: the level
 * becomes a copy on the token stack (same length and position: the copied
 * list of all its pieces), then takes the token as a copy would. */
static void tex_push_tok_slow(tex_ctx *c, tex_tok t)
{
    save_top(c);
    level *lv = &c->in[c->nin - 1];
    macro *m = lv->m;
    run one = { lv->base, lv->n, lv->inbody };
    const run *r0 = &one, *re = r0 + 1;
    size_t pos = lv->pos;
    if (lv->rcur < lv->rend) {
        r0 = c->runs + lv->rfirst;
        re = c->runs + lv->rend;
        for (const run *r = r0; r < c->runs + lv->rcur; r++) pos += r->len;
    }
    size_t n = 0;
    for (const run *r = r0; r < re; r++) n += r->len;
    /* built above the level's own tokens, then moved down onto them */
    tex_tok *d = ts_reserve(c, n);
    lv = &c->in[c->nin - 1];
    for (const run *r = r0; r < re; r++) {
        if (!r->inbody) {
            memcpy(d, c->ts + r->start, r->len * sizeof *d);
        } else {
            memcpy(d, m->body.v + r->start, r->len * sizeof *d);
            if (lv->bovr)
                for (size_t i = 0; i < r->len; i++) { d[i].line = lv->line; d[i].col = lv->col; }
        }
        d += r->len;
    }
    memmove(c->ts + lv->mark, d - n, n * sizeof *d);
    lv->m = NULL;
    lv->base = lv->mark;
    lv->n = n;
    lv->pos = pos;
    lv->inbody = 0;
    lv->ovr = 0;
    lv->rcur = lv->rend = lv->rfirst;
    c->nts = lv->mark + n;
    c->nruns = lv->rfirst;
    macro_unref(m);
    c->ts[lv->base + --lv->pos] = t;
    load_top(c);
}

static inline int next_tok(tex_ctx *c, tex_tok *t)
{
    if (c->rp == c->re) return 0;
    *t = *c->rp++;
    if (c->rovr) { t->line = c->rline; t->col = c->rcol; }
    if (c->rp == c->re) piece_end(c);
    if (t->line > 0) { c->cur_line = t->line; c->cur_col = t->col; }
    return 1;
}

int tex_next(tex_ctx *c, tex_tok *t) { return next_tok(c, t); }

static int tok_eq(const tex_tok *a, const tex_tok *b)
{
    if (a->type != b->type) return 0;
    if (a->type == T_CS) return a->name == b->name;
    if (a->type == T_SPACE) return 1;
    return a->ch == b->ch;
}

static int next_x(tex_ctx *c, tex_tok *t);
static inline int next_xf(tex_ctx *c, tex_tok *t);

static inline int next_e(tex_ctx *c, tex_tok *t, int expand)
{
    return expand ? next_xf(c, t) : next_tok(c, t);
}

/* next_e past spaces: the first token that is not one (status as next_e's) */
static inline int next_e_nonspace(tex_ctx *c, tex_tok *t, int expand)
{
    int r;
    do r = next_e(c, t, expand);
    while (r > 0 && t->type == T_SPACE);
    return r;
}

static void run_taken(tex_ctx *c, const tex_tok *p0, const tex_tok *p);

/* Reads a balanced group body after an opening brace already consumed. */
static int read_group_body(tex_ctx *c, toklist *out, int expand, int line, int col)
{
    int depth = 1;
    tex_tok t;
    for (;;) {
        const tex_tok *p = c->rp, *e = c->re;
        if (!expand && e - p > 1 && out->n + (size_t)(e - p) < MAX_TOKENS_PER_ARG) {
            /* without expansion, the tokens of the current piece up to the
             * closing brace are taken at once (as next_tok gives them; not
             * the piece's last token, which may pop the level; the bound
             * cannot trip within them) */
            e--;
            const tex_tok *q = p;
            for (; q < e; q++) {
                if (q->type == T_BEGIN) depth++;
                else if (q->type == T_END && --depth == 0) break;
            }
            size_t k = (size_t)(q - p);
            if (k) {
                tl_reserve(out, k);
                tex_tok *d = out->v + out->n;
                memcpy(d, p, k * sizeof *d);
                if (c->rovr)
                    for (size_t j = 0; j < k; j++) { d[j].line = c->rline; d[j].col = c->rcol; }
                out->n += k;
            }
            if (q < e) {
                run_taken(c, p, q + 1);
                return 1;
            }
            run_taken(c, p, q);
        }
        int r = next_e(c, &t, expand);
        if (r < 0) return -1;
        if (r == 0) {
            tex_error(c, line, col, "unbalanced braces: end of input inside a group opened here");
            return -1;
        }
        if (t.type == T_BEGIN) depth++;
        else if (t.type == T_END && --depth == 0) return 1;
        if (out->n >= MAX_TOKENS_PER_ARG) {
            tex_error(c, line, col, "argument longer than %d tokens", MAX_TOKENS_PER_ARG);
            return -1;
        }
        tl_push(out, t);
    }
}

void tex_skip_spaces(tex_ctx *c, int expand)
{
    tex_tok t;
    if (next_e_nonspace(c, &t, expand) > 0) tex_push_tok(c, t);
}

int tex_read_arg(tex_ctx *c, toklist *out, int expand)
{
    tex_tok t;
    int r = next_e_nonspace(c, &t, expand);
    if (r <= 0) return r;
    if (t.type == T_BEGIN) return read_group_body(c, out, expand, t.line, t.col);
    if (t.type == T_END) {
        tex_error(c, t.line, t.col, "argument expected, found '}'");
        return -1;
    }
    tl_push(out, t);
    return 1;
}

int tex_read_opt(tex_ctx *c, toklist *out, int expand)
{
    tex_tok t;
    int r;
    r = next_e_nonspace(c, &t, expand);
    if (r <= 0) return r;
    if (!(t.type == T_OTHER && t.ch == '[')) { tex_push_tok(c, t); return 0; }
    int depth = 0, line = t.line, col = t.col;
    for (;;) {
        r = next_e(c, &t, expand);
        if (r < 0) return -1;
        if (r == 0) {
            tex_error(c, line, col, "end of input inside an optional argument [ opened here");
            return -1;
        }
        if (t.type == T_BEGIN) depth++;
        else if (t.type == T_END) depth--;
        else if (depth == 0 && t.type == T_OTHER && t.ch == ']') return 1;
        if (out->n >= MAX_TOKENS_PER_ARG) {
            tex_error(c, line, col, "optional argument longer than %d tokens", MAX_TOKENS_PER_ARG);
            return -1;
        }
        tl_push(out, t);
    }
}

/* Strips one pair of braces enclosing the whole list. */
static void strip_braces(toklist *a)
{
    if (a->n < 2 || a->v[0].type != T_BEGIN || a->v[a->n - 1].type != T_END) return;
    int depth = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (a->v[i].type == T_BEGIN) depth++;
        else if (a->v[i].type == T_END) {
            depth--;
            if (depth == 0 && i != a->n - 1) return;
        }
    }
    memmove(a->v, a->v + 1, (a->n - 2) * sizeof *a->v);
    a->n -= 2;
}

/* Reads a delimited argument of \cs into a: tokens (no expansion) up to
 * the delimiter P->v[dstart, dend) at brace depth 0 (dropped), then one
 * pair of braces around the whole stripped. 0 on error. */
static int read_delimited_arg(tex_ctx *c, const tex_tok *cs, toklist *a, const toklist *P,
                              size_t dstart, size_t dend)
{
    size_t dl = dend - dstart;
    int depth = 0;
    tex_tok t;
    for (;;) {
        if (next_tok(c, &t) <= 0) {
            tex_error(c, cs->line, cs->col, "end of input while reading a delimited argument of \\%s",
                      tex_name(c, cs->name));
            return 0;
        }
        if (t.type == T_BEGIN) depth++;
        else if (t.type == T_END) {
            if (depth == 0) {
                tex_error(c, t.line, t.col, "unbalanced '}' in an argument of \\%s",
                          tex_name(c, cs->name));
                return 0;
            }
            depth--;
        }
        tl_push(a, t);
        if (a->n >= MAX_TOKENS_PER_ARG) {
            tex_error(c, cs->line, cs->col, "runaway argument of \\%s", tex_name(c, cs->name));
            return 0;
        }
        if (depth == 0 && a->n >= dl) {
            size_t j;
            for (j = 0; j < dl; j++)
                if (!tok_eq(&a->v[a->n - dl + j], &P->v[dstart + j])) break;
            if (j == dl) { a->n -= dl; break; }
        }
    }
    strip_braces(a);
    return 1;
}

/* Reads the arguments of \cs, macro m, into c->args (only tex_next: no
 * expansion, so the scratch argument lists are never in use twice): the
 * optional one, then the parameter text (literal tokens must match; #n
 * undelimited or delimited by the tokens up to the next #). 0 on error. */
static int read_macro_args(tex_ctx *c, const tex_tok *cs, const macro *m)
{
    toklist *args = c->args;
    for (int i = 0; i < m->nargs; i++) args[i].n = 0;
    const toklist *P = &m->params;
    size_t pi = 0;
    if (m->has_opt) {
        int r = tex_read_opt(c, &args[0], 0);
        if (r < 0) return 0;
        if (r == 0) tl_append(&args[0], &m->optdef);
    }
    /* literal tokens before the first parameter must match */
    for (; pi < P->n && P->v[pi].type != T_ARG; pi++) {
        tex_tok t;
        if (next_tok(c, &t) <= 0 || !tok_eq(&t, &P->v[pi])) {
            tex_error(c, cs->line, cs->col, "use of \\%s does not match its definition",
                      tex_name(c, cs->name));
            return 0;
        }
    }
    while (pi < P->n) {
        /* P->v[pi] is T_ARG */
        int k = P->v[pi].ch;
        pi++;
        size_t dstart = pi, dend = pi;
        while (dend < P->n && P->v[dend].type != T_ARG) dend++;
        toklist *a = &args[k - 1 < 10 && k >= 1 ? k - 1 : 0];
        if (dstart == dend) {
            int r = tex_read_arg(c, a, 0);
            if (r <= 0) {
                if (r == 0)
                    tex_error(c, cs->line, cs->col, "end of input while reading an argument of \\%s",
                              tex_name(c, cs->name));
                return 0;
            }
        } else {
            if (!read_delimited_arg(c, cs, a, P, dstart, dend)) return 0;
            pi = dend;
        }
    }
    return 1;
}

/* The expansion of \cs, macro m with arguments in its body, as one runs
 * level: the literal pieces of the body read in place, the arguments copied
 * onto the token stack (in the order they come). */
static void push_runs_level(tex_ctx *c, const tex_tok *cs, macro *m)
{
    const toklist *args = c->args;
    const seg *sg = m->segs, *se = sg + m->nsegs;
    size_t na = 0;
    for (const seg *g = sg; g < se; g++)
        if (g->arg) na += args[g->arg - 1].n;
    if (m->nlit + na == 0 || !push_check(c, m->nlit + na)) return;
    tex_tok *d = ts_reserve(c, na);
    if (c->nruns + m->nsegs > c->capruns) {
        size_t nc = c->capruns ? c->capruns : 64;
        while (nc < c->nruns + m->nsegs) nc *= 2;
        c->runs = xrealloc(c->runs, nc * sizeof *c->runs);
        c->capruns = nc;
    }
    size_t mark = c->nts, off = mark;
    run *r = c->runs + c->nruns, *r0 = r;
    for (const seg *g = sg; g < se; g++) {
        if (g->arg) {
            const toklist *a = &args[g->arg - 1];
            if (!a->n) continue;
            memcpy(d, a->v, a->n * sizeof *d);
            d += a->n;
            *r++ = (run){ off, a->n, 0 };
            off += a->n;
        } else {
            *r++ = (run){ g->start, g->len, 1 };
        }
    }
    level *lv = &c->in[c->nin++];
    m->refs++;
    lv->m = m;
    lv->bovr = !m->let_tok;
    lv->line = cs->line;
    lv->col = cs->col;
    lv->mark = mark;
    lv->rfirst = lv->rcur = c->nruns;
    lv->rend = c->nruns + (size_t)(r - r0);
    set_piece(lv, r0);
    lv->pos = 0;
    c->nts = off;
    c->nruns = lv->rend;
    load_top(c);
}

/* The same expansion copied whole onto the token stack (the reference
 * tex_set_copying_expansion turns on for the tests). */
static void push_copied_expansion(tex_ctx *c, const tex_tok *cs, const macro *m)
{
    const toklist *args = c->args;
    const seg *sg = m->segs, *se = sg + m->nsegs;
    size_t need = m->nlit;
    for (const seg *g = sg; g < se; g++)
        if (g->arg) need += args[g->arg - 1].n;
    tex_tok *out = ts_reserve(c, need), *o = out;
    int line = cs->line, col = cs->col, let = m->let_tok;
    for (const seg *g = sg; g < se; g++) {
        if (g->arg) {
            const toklist *a = &args[g->arg - 1];
            if (a->n) memcpy(o, a->v, a->n * sizeof *o);
            o += a->n;
            continue;
        }
        memcpy(o, m->body.v + g->start, g->len * sizeof *o);
        if (!let)
            for (size_t j = 0; j < g->len; j++) { o[j].line = line; o[j].col = col; }
        o += g->len;
    }
    push_top(c, need);
}

/* Reads the arguments of \cs, macro m, and pushes its expansion. */
static int expand_macro(tex_ctx *c, const tex_tok *cs, macro *m)
{
    if (!read_macro_args(c, cs, m)) return -1;
    if (!m->body_args) {
        if (m->body.n) push_body(c, m, cs);
    } else if (!c->copying) {
        push_runs_level(c, cs, m);
    } else {
        push_copied_expansion(c, cs, m);
    }
    return 1;
}

static int next_x(tex_ctx *c, tex_tok *t)
{
    for (;;) {
        if (c->failed) return -1;
        if (!next_tok(c, t)) return 0;
        if (t->type != T_CS) return 1;
        macro *m = get_macro(c, t->name);
        if (!m) return 1;
        if (++c->expansions > MAX_EXPANSIONS) {
            tex_error(c, t->line, t->col,
                      "more than %d macro expansions (recursive macro \\%s?)",
                      MAX_EXPANSIONS, tex_name(c, t->name));
            return -1;
        }
        if (expand_macro(c, t, m) < 0) return -1;
    }
}

/* next_x with the common case inline: a token that is not the last of its
 * level and not a macro. */
static inline int next_xf(tex_ctx *c, tex_tok *t)
{
    /* (a failed context has no input: tex_error drops it, nothing is
     * pushed after) */
    const tex_tok *p = c->rp;
    if (p != c->re && p + 1 != c->re && (p->type != T_CS || !get_macro(c, p->name))) {
        *t = *p;
        c->rp = p + 1;
        if (c->rovr) { t->line = c->rline; t->col = c->rcol; }
        if (t->line > 0) { c->cur_line = t->line; c->cur_col = t->col; }
        return 1;
    }
    return next_x(c, t);
}

int tex_next_x(tex_ctx *c, tex_tok *t) { return next_xf(c, t); }

void tex_set_copying_expansion(tex_ctx *c, int on) { c->copying = on; }

/* ---- statements and arguments as text ------------------------------------ */

/* After a run of tokens [p0,p) of the current level taken without next_x:
 * the read position and cur_line/cur_col as next_tok leaves them. */
static void run_taken(tex_ctx *c, const tex_tok *p0, const tex_tok *p)
{
    if (p == p0) return;
    c->rp = p;
    if (c->rovr) {
        if (c->rline > 0) { c->cur_line = c->rline; c->cur_col = c->rcol; }
        return;
    }
    for (const tex_tok *q = p; q-- > p0;)
        if (q->line > 0) { c->cur_line = q->line; c->cur_col = q->col; return; }
}

#define MAX_STATEMENT_TOKENS 2000000
/* token types whose text is their one character */
#define PLAIN_TYPES (1u << T_MATH | 1u << T_PARAM | 1u << T_SPACE | 1u << T_LETTER | 1u << T_OTHER)
/* The mask must name every token type but the four whose text is not their
 * one character (T_CS, T_BEGIN, T_END, T_ARG), and every type must fit in
 * it: a type added to or reordered in texexp.h's enum fails here instead of
 * being copied as one character by the statement and option readers. */
_Static_assert(T_NTYPES <= 32, "token types must fit the PLAIN_TYPES mask");
_Static_assert((PLAIN_TYPES | 1u << T_CS | 1u << T_BEGIN | 1u << T_END | 1u << T_ARG) ==
                   ((1u << T_NTYPES) - 1u) - (1u << 0),
               "PLAIN_TYPES must name every token type but T_CS, T_BEGIN, T_END and T_ARG");
_Static_assert((PLAIN_TYPES & (1u << T_CS | 1u << T_BEGIN | 1u << T_END | 1u << T_ARG)) == 0,
               "T_CS, T_BEGIN, T_END and T_ARG are never plain");

/* The texts read and written as they are read: a TikZ statement
 * (tex_read_statement), an optional argument (tex_read_opt_text) and the
 * group of an argument (tex_read_arg_text). */
enum { TEXT_STATEMENT, TEXT_OPT, TEXT_ARG };

typedef struct {
    int kind;           /* TEXT_STATEMENT, TEXT_OPT or TEXT_ARG */
    int depth;          /* braces open (in an argument's group: inside it) */
    int bline, bcol;    /* where the outermost open brace opened */
    int prefix_line;    /* the line of tokens without one */
    size_t count, limit; /* tokens read; how many may be */
} text_read;

/* A token whose text is its one character and that cannot end the text: in
 * a statement not ';' nor the sentinel (ch -2), in an optional argument not
 * ']'. */
static inline int is_plain(const tex_tok *p, int kind)
{
    if (!((PLAIN_TYPES >> p->type) & 1)) return 0;
    if (kind == TEXT_STATEMENT) return p->ch != ';' && p->ch != -2;
    if (kind == TEXT_OPT) return p->ch != ']' || p->type != T_OTHER;
    return 1;
}

/* Bodies at least this long get make_plain_runs when a statement reads them
 * in place (shorter ones, often redefined, are not worth a malloc). */
#define PLAIN_RUNS_MIN 16

/* Makes m's prun and ptext (one block): prun[i], the number of tokens from
 * i on that are plain in a statement; ptext[i], token i's character. Made
 * on first use: a body never changes once defined. */
static void make_plain_runs(macro *m)
{
    size_t n = m->body.n;
    m->prun = xmalloc(n * sizeof *m->prun + n);
    m->ptext = (char *)(m->prun + n);
    unsigned run = 0;
    for (size_t i = n; i-- > 0;) {
        const tex_tok *t = &m->body.v[i];
        run = is_plain(t, TEXT_STATEMENT) ? run + 1 : 0;
        m->prun[i] = run;
        m->ptext[i] = (char)t->ch;
    }
}

/* For a token that is not plain in the text being read: 1 when the text's
 * reader must take it through next_x (a macro, or a token that may end the
 * text: a statement's or an argument's '}' at depth 0); else 0, with the
 * brace depth counted. */
static int needs_next_x(const tex_ctx *c, const tex_tok *p, text_read *R)
{
    switch (p->type) {
    case T_CS:
        if (get_macro(c, p->name)) return 1;
        return R->kind == TEXT_STATEMENT && R->depth == 0 &&
               (p->name == c->id_begin || p->name == c->id_end);
    case T_BEGIN:
        if (R->depth++ == 0) {
            R->bline = c->rovr ? c->rline : p->line;
            R->bcol = c->rovr ? c->rcol : p->col;
        }
        return 0;
    case T_END:
        if (R->kind != TEXT_OPT && R->depth == 0) return 1;
        R->depth--;
        return 0;
    case T_ARG:
        return 0;
    default:
        /* ';' or the sentinel in a statement, ']' in an optional argument */
        if (R->kind == TEXT_STATEMENT) return (p->ch == ';' && R->depth == 0) || p->ch == -2;
        return R->depth == 0;
    }
}

/* The fast part of reading a text: the tokens of the current piece from
 * c->rp on that next_x (or next_tok) would give as they are (not a macro;
 * not the piece's last token, which may pop the level) and that do not end
 * the text are
 * taken at once and their text written, most of them one character each (a
 * macro body read in place: the characters of a run of them copied from its
 * ptext). Stops before the first token the reader must take through next_x;
 * the text, depth, count and position are what the reader's per-token logic
 * would have made of the tokens taken. */
static void take_run_at(tex_ctx *c, textbuf *b, text_read *R, const int kind)
{
    const tex_tok *p = c->rp, *e = c->re;
    e--;
    if ((size_t)(e - p) > R->limit - R->count) e = p + (R->limit - R->count);
    const tex_tok *p0 = p;
    /* (rovr: the tokens get the line of the macro's use) */
    const int ovr = c->rovr, oli = c->rline > 0 ? c->rline : R->prefix_line;
    macro *m = ovr && kind == TEXT_STATEMENT ? c->in[c->nin - 1].m : NULL;
    if (m && m->body.n < PLAIN_RUNS_MIN) m = NULL;
    if (m && !m->prun) make_plain_runs(m);
    /* a token's text is at most 2 bytes (a letter after a space, #n) but a
     * control sequence's (tb_put makes room for its name) */
    tb_reserve(b, 2 * (size_t)(e - p) + 3);
    while (p < e) {
        if (!b->pend) {
            char *s = b->s + b->n;
            int *ln = b->ln + b->n;
            const tex_tok *q = p;
            if (m) {
                size_t i = (size_t)(p - m->body.v), k = m->prun[i];
                if (k > (size_t)(e - p)) k = (size_t)(e - p);
                memcpy(s, m->ptext + i, k);
                /* every byte's line is the macro's use (in blocks of 8 first) */
                size_t j = 0;
                for (; j + 8 <= k; j += 8)
                    for (int u = 0; u < 8; u++) ln[j + u] = oli;
                for (; j < k; j++) ln[j] = oli;
                q = p + k;
            } else if (ovr) {
                for (; q < e && is_plain(q, kind); q++) { *s++ = (char)q->ch; *ln++ = oli; }
            } else {
                for (; q < e && is_plain(q, kind); q++) {
                    *s++ = (char)q->ch;
                    *ln++ = q->line > 0 ? q->line : R->prefix_line;
                }
            }
            b->n += (size_t)(q - p);
            p = q;
            if (p == e) break;
        }
        if (!is_plain(p, kind) && needs_next_x(c, p, R)) break;
        tb_put(c, b, p, ovr ? oli : p->line > 0 ? p->line : R->prefix_line);
        p++;
    }
    R->count += (size_t)(p - p0);
    run_taken(c, p0, p);
}

/* take_run_at when there is something to take: more than the piece's last
 * token left and the text not at its limit (often a piece has only its last
 * token left: a short argument, a token put back). */
static inline void take_run(tex_ctx *c, textbuf *b, text_read *R, const int kind)
{
    if (c->re - c->rp > 1 && R->count < R->limit) take_run_at(c, b, R, kind);
}

/* The per-token logic of a statement for a token t read through next_x: 1
 * when t is the ';' that ends it; 0 when t ends it and is pushed back (the
 * sentinel, '}' at depth 0, \begin or \end at depth 0); else -1, with the
 * brace depth counted. */
static int statement_end(tex_ctx *c, const tex_tok *t, text_read *R)
{
    switch (t->type) {
    case T_OTHER:
        if (t->ch == -2) { tex_push_tok(c, *t); return 0; }
        if (t->ch == ';' && R->depth == 0) return 1;
        return -1;
    case T_CS:
        if (R->depth == 0 && (t->name == c->id_begin || t->name == c->id_end)) {
            tex_push_tok(c, *t);
            return 0;
        }
        return -1;
    case T_BEGIN:
        if (R->depth++ == 0) { R->bline = t->line; R->bcol = t->col; }
        return -1;
    case T_END:
        if (R->depth == 0) { tex_push_tok(c, *t); return 0; }
        R->depth--;
        return -1;
    default:
        return -1;
    }
}

/* What the interpreter's token loop did (tex_next_x per token up to the end
 * of the statement, then tex_to_text_ex of the tokens; the reference in
 * tests/unit/ref_statement.h), with the text written as the tokens come and
 * runs of tokens taken at once (take_run). */
int tex_read_statement(tex_ctx *c, const char *prefix, int prefix_line, char **text, int **lines)
{
    textbuf *b = &c->st;
    size_t pl = strlen(prefix);
    tb_start(b);
    tb_reserve(b, pl);
    memcpy(b->s, prefix, pl);
    for (size_t j = 0; j < pl; j++) b->ln[j] = prefix_line;
    b->n = pl;
    text_read R = { .kind = TEXT_STATEMENT, .prefix_line = prefix_line,
                    .limit = MAX_STATEMENT_TOKENS + 1 };
    int ret;
    for (;;) {
        take_run(c, b, &R, TEXT_STATEMENT);
        tex_tok t;
        int r = next_x(c, &t);
        if (r < 0) return -1;
        if (r == 0) {
            if (R.depth > 0) {
                /* TeX: "File ended while scanning use of ..." */
                tex_error(c, R.bline, R.bcol, "unbalanced braces: end of input inside a group opened here");
                return -1;
            }
            ret = 0;
            break;
        }
        ret = statement_end(c, &t, &R);
        if (ret >= 0) break;
        if (R.count >= R.limit) {
            tex_error(c, t.line, t.col, "statement longer than %d tokens", MAX_STATEMENT_TOKENS);
            return -1;
        }
        R.count++;
        tb_put(c, b, &t, t.line > 0 ? t.line : prefix_line);
    }
    tb_end(b, prefix_line);
    *text = b->s;
    *lines = b->ln;
    return ret;
}

/* tex_read_opt(expand) and tex_to_text of what it read, the text written as
 * the tokens come and runs of tokens taken at once (take_run). */
const char *tex_read_opt_text(tex_ctx *c, int *present)
{
    textbuf *b = &c->op;
    tb_start(b);
    *present = 0;
    tex_tok t;
    int r = next_e_nonspace(c, &t, 1);
    if (r <= 0) goto done;
    if (!(t.type == T_OTHER && t.ch == '[')) { tex_push_tok(c, t); goto done; }
    int line = t.line, col = t.col;
    text_read R = { .kind = TEXT_OPT, .limit = MAX_TOKENS_PER_ARG };
    for (;;) {
        take_run(c, b, &R, TEXT_OPT);
        r = next_x(c, &t);
        if (r < 0) goto done;
        if (r == 0) {
            tex_error(c, line, col, "end of input inside an optional argument [ opened here");
            goto done;
        }
        if (t.type == T_BEGIN) R.depth++;
        else if (t.type == T_END) R.depth--;
        else if (R.depth == 0 && t.type == T_OTHER && t.ch == ']') { *present = 1; goto done; }
        if (R.count >= R.limit) {
            tex_error(c, line, col, "optional argument longer than %d tokens", MAX_TOKENS_PER_ARG);
            goto done;
        }
        R.count++;
        tb_put(c, b, &t, 0);
    }
done:
    tb_end(b, 0);
    return b->s;
}

/* tex_read_arg, then the text of the tokens (as tex_to_text) into c's
 * buffer, the text written as the tokens come (tex_read_arg's and
 * read_group_body's per-token logic and errors) and runs of tokens taken at
 * once (take_run). */
const char *tex_read_arg_text(tex_ctx *c, int expand)
{
    tex_tok t;
    int r = next_e_nonspace(c, &t, expand);
    if (r <= 0) return NULL;
    if (t.type == T_END) {
        tex_error(c, t.line, t.col, "argument expected, found '}'");
        return NULL;
    }
    textbuf *b = &c->at;
    tb_start(b);
    if (t.type != T_BEGIN) {
        tb_put(c, b, &t, 0);
        tb_end(b, 0);
        return b->s;
    }
    int line = t.line, col = t.col;
    text_read R = { .kind = TEXT_ARG, .limit = MAX_TOKENS_PER_ARG };
    for (;;) {
        take_run(c, b, &R, TEXT_ARG);
        r = next_e(c, &t, expand);
        if (r < 0) return NULL;
        if (r == 0) {
            tex_error(c, line, col, "unbalanced braces: end of input inside a group opened here");
            return NULL;
        }
        if (t.type == T_BEGIN) R.depth++;
        else if (t.type == T_END && R.depth-- == 0) break;
        if (R.count >= R.limit) {
            tex_error(c, line, col, "argument longer than %d tokens", MAX_TOKENS_PER_ARG);
            return NULL;
        }
        R.count++;
        tb_put(c, b, &t, 0);
    }
    tb_end(b, 0);
    return b->s;
}
