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

/* The conditional primitives (a macro's prim). P_IF..P_IFUNDEF are the
 * conditionals proper (TeX's if_test: counted when a branch is skipped);
 * P_IFOTHER are those TeX has and the expander cannot evaluate. P_IFUNDEF
 * marks a name beginning with "if" that the document has not defined
 * (pkg_if_name): a package's conditional (\ifpdf, \if@twocolumn), taken
 * for one unless a brace follows it (\ifthenelse{...}). */
enum {
    P_NONE, P_IF, P_IFCAT, P_IFX, P_IFNUM, P_IFDIM, P_IFODD, P_IFCASE, P_IFTRUE, P_IFFALSE,
    P_IFDEFINED, P_IFOTHER, P_IFUNDEF, P_UNLESS, P_FI, P_ELSE, P_OR,
    /* registers and the commands on them (not conditionals: after P_OR) */
    P_REG, P_NEWCOUNT, P_NEWDIMEN, P_ADVANCE, P_MULTIPLY, P_DIVIDE, P_THE, P_PGFEXTRA,
    P_ENDPGFEXTRA
};
#define IS_FI_ELSE_OR(p) ((p) >= P_FI && (p) <= P_OR)
#define IS_IF(p) ((p) >= P_IF && (p) <= P_IFUNDEF)

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
    int prim;         /* a conditional primitive (P_IF...; P_NONE: a macro), also
                       * when \let to one (\newif's \iffoo) */
    int builtin;      /* the primitive's own definition (made by tex_new) */
    int regkind;      /* prim P_REG: 1 a count register, 2 a dimen register */
    long regval;      /* its value (a dimen in scaled points) */
} macro;

/* TeX's condition stack: one entry per conditional open (TeX's cond_ptr
 * list). limit (TeX's if_limit): what may come next, L_IF while the
 * condition is read, then L_ELSE (a true branch: \else skips to \fi),
 * L_OR (a case of \ifcase: \or and \else skip to \fi) or L_FI (only \fi).
 * name, line, col: the conditional, for messages. */
typedef struct { int name, line, col, limit; } cond;

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
    /* conditionals */
    cond *conds;
    size_t nconds, capconds;
    int cond_eval;        /* conditions being read, one inside another */
    toklist evrec;        /* the outermost one's tokens (ev_rec) */
    long em_sp, ex_sp;    /* tex_set_font */
    size_t evcount;
    int id_relax, id_numexpr;
    int nx_depth;         /* \numexpr and its parentheses open */
    int prims_ready;      /* define_prims has run (mark_pkg_if may) */
    tex_hooks hooks;
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

static void mark_pkg_if(tex_ctx *c, int id);

/* A name is found when its text (as a C string: up to a NUL byte) is the
 * whole of name[0..len); a name with a NUL byte in it is never found again.
 * A new name beginning with "if" is marked (mark_pkg_if). */
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
    int id = (int)c->nnames++;
    if (len > 2 && name[0] == 'i' && name[1] == 'f' && c->prims_ready) mark_pkg_if(c, id);
    return id;
}

const char *tex_name(const tex_ctx *c, int id)
{
    return (id >= 0 && (size_t)id < c->nnames) ? c->names[id] : "";
}

static size_t name_len(const tex_ctx *c, int id)
{
    return (id >= 0 && (size_t)id < c->nnames) ? c->lens[id] : 0;
}

static void define_prims(tex_ctx *c);

tex_ctx *tex_new(void)
{
    tex_ctx *c = xcalloc(1, sizeof *c);
    c->id_begin = tex_intern(c, "begin", 5);
    c->id_end = tex_intern(c, "end", 3);
    c->id_relax = tex_intern(c, "relax", 5);
    c->id_numexpr = tex_intern(c, "numexpr", 7);
    c->em_sp = 655361;    /* TeX's cmr10: 10.00002pt, 4.30554pt */
    c->ex_sp = 282168;
    define_prims(c);
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
    free(c->conds);
    tl_free(&c->evrec);
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
    c->nconds = 0;
    c->cond_eval = 0;
    c->nx_depth = 0;
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

int tex_is_defined(const tex_ctx *c, int name)
{
    const macro *m = get_macro(c, name);
    return m != NULL && m->prim != P_IFUNDEF;
}

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
        m->prim = o->prim;
        m->regkind = o->regkind;
        m->regval = o->regval;
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
    if (!m || m->nparams || m->has_opt || m->prim) return NULL;
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
    if (c->hooks.group_end) c->hooks.group_end(c->hooks.ctx, (int)c->ngroups);
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

static inline int tok_prim(const tex_ctx *c, const tex_tok *t);

int tex_read_opt(tex_ctx *c, toklist *out, int expand)
{
    tex_tok t;
    int r;
    /* a conditional there is not expanded to look for the '[' (LaTeX looks
     * with \futurelet, which sees the conditional) */
    r = next_e_nonspace(c, &t, 0);
    if (r <= 0) return r;
    if (expand && !tok_prim(c, &t)) {
        tex_push_tok(c, t);
        r = next_e_nonspace(c, &t, 1);
        if (r <= 0) return r;
    }
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

static int expand_cond(tex_ctx *c, const tex_tok *t, int prim);
static int expand_reg(tex_ctx *c, const tex_tok *t, const macro *m);

static int next_x(tex_ctx *c, tex_tok *t)
{
    for (;;) {
        if (c->failed) return -1;
        if (!next_tok(c, t)) return 0;
        if (t->type != T_CS) return 1;
        macro *m = get_macro(c, t->name);
        if (!m) return 1;
        if (m->prim >= P_REG) {
            if (++c->expansions > MAX_EXPANSIONS) {
                tex_error(c, t->line, t->col, "more than %d macro expansions (a loop of \\%s?)",
                          MAX_EXPANSIONS, tex_name(c, t->name));
                return -1;
            }
            int r = expand_reg(c, t, m);
            if (r < 0) return -1;
            if (r == 2) return 1;
            continue;
        }
        if (m->prim) {
            /* (not counted: a conditional only takes tokens away; a
             * loop needs a macro, which is) */
            int r = expand_cond(c, t, m->prim);
            if (r < 0) return -1;
            if (r == 2) return 1;
            continue;
        }
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

/* ---- conditionals -------------------------------------------------------- */

/* cond.limit, ordered as TeX's codes (if_code < fi_code < else_code <
 * or_code): a \fi, \else or \or whose code is above the limit is extra */
enum { L_IF = 1, L_FI, L_ELSE, L_OR };

/* Bounds: conditionals open at once (TeX has none but memory; a runaway
 * recursion trips the expansion bounds first), and conditions read inside
 * conditions (\ifnum\ifnum..., each a C stack frame). */
#define MAX_COND_DEPTH 5000
#define MAX_COND_EVAL 100
/* tokens kept for the text of a conditional sent to the unparsed hook */
#define COND_TEXT_TOKENS 400

static void define_prims(tex_ctx *c)
{
    static const struct { const char *name; int prim; } tab[] = {
        { "if", P_IF }, { "ifcat", P_IFCAT }, { "ifx", P_IFX }, { "ifnum", P_IFNUM },
        { "ifdim", P_IFDIM }, { "ifodd", P_IFODD }, { "ifcase", P_IFCASE },
        { "iftrue", P_IFTRUE }, { "iffalse", P_IFFALSE }, { "ifdefined", P_IFDEFINED },
        { "ifmmode", P_IFOTHER }, { "ifvmode", P_IFOTHER }, { "ifhmode", P_IFOTHER },
        { "ifinner", P_IFOTHER }, { "ifvoid", P_IFOTHER }, { "ifhbox", P_IFOTHER },
        { "ifvbox", P_IFOTHER }, { "ifeof", P_IFOTHER }, { "iffontchar", P_IFOTHER },
        { "ifcsname", P_IFOTHER }, { "ifincsname", P_IFOTHER }, { "ifpdfprimitive", P_IFOTHER },
        { "ifabsnum", P_IFOTHER }, { "ifabsdim", P_IFOTHER }, { "ifpdfabsnum", P_IFOTHER },
        { "ifpdfabsdim", P_IFOTHER }, { "unless", P_UNLESS }, { "fi", P_FI },
        { "else", P_ELSE }, { "or", P_OR },
        { "newcount", P_NEWCOUNT }, { "newdimen", P_NEWDIMEN }, { "advance", P_ADVANCE },
        { "multiply", P_MULTIPLY }, { "divide", P_DIVIDE }, { "the", P_THE },
        { "pgfextra", P_PGFEXTRA }, { "endpgfextra", P_ENDPGFEXTRA },
    };
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++) {
        macro *m = macro_new();
        m->prim = tab[i].prim;
        m->builtin = 1;
        set_macro(c, tex_intern(c, tab[i].name, strlen(tab[i].name)), m, 1);
    }
    /* plain TeX's and LaTeX's \let\repeat=\fi, "this makes
     * \loop...\if...\repeat skippable" */
    macro *m = macro_new();
    m->prim = P_FI;
    set_macro(c, tex_intern(c, "repeat", 6), m, 1);
    c->prims_ready = 1;
}

/* Names beginning with "if" that are not conditionals: LaTeX's \iff, and
 * macros with arguments of ifthen and etoolbox (their arguments usually
 * begin with a brace, which pkg_if_name checks too; not always:
 * \ifdef\foo{..}{..}). */
static int not_cond_name(const char *nm)
{
    static const char *const tab[] = {
        "iff", "ifthenelse", "ifdef", "ifundef", "ifcsdef", "ifcsundef", "ifdefmacro",
        "ifcsmacro", "ifdefparam", "ifcsparam", "ifdefprefix", "ifcsprefix", "ifdefprotected",
        "ifcsprotected", "ifdefltxprotect", "ifcsltxprotect", "ifdefempty", "ifcsempty",
        "ifdefvoid", "ifcsvoid", "ifdefequal", "ifcsequal", "ifdefstring", "ifcsstring",
        "ifdefstrequal", "ifcsstrequal", "ifdefcounter", "ifcscounter", "ifltxcounter",
        "ifdeflength", "ifcslength", "ifdefdimen", "ifcsdimen", "ifbool", "notbool",
        "iftoggle", "ifstrequal", "ifstrempty", "ifblank", "ifnumcomp", "ifnumequal",
        "ifnumgreater", "ifnumless", "ifnumodd", "ifdimcomp", "ifdimequal", "ifdimgreater",
        "ifdimless", "ifboolexpr", "ifboolexpe", "ifinlist", "ifinlistcs", "ifrmnum",
        "ifpatchable", "ifdefined@", "ifnextchar", "ifstar", "iflanguage", "ifbothstar",
        NULL
    };
    for (int i = 0; tab[i]; i++) if (!strcmp(nm, tab[i])) return 1;
    return 0;
}

/* A name beginning with "if" that nothing defines yet: marked P_IFUNDEF
 * (not builtin; \def, \let and \newif replace the mark). */
static void mark_pkg_if(tex_ctx *c, int id)
{
    if (get_macro(c, id) || not_cond_name(tex_name(c, id))) return;
    macro *m = macro_new();
    m->prim = P_IFUNDEF;
    set_macro(c, id, m, 1);
}

/* \ifXXX marked P_IFUNDEF just read: a package's conditional unless a
 * brace follows it (a macro with arguments; the next token is put back). */
static int pkg_if_is_cond(tex_ctx *c)
{
    tex_tok u;
    if (!next_tok(c, &u)) return 1;
    tex_push_tok(c, u);
    return u.type != T_BEGIN;
}

void tex_set_hooks(tex_ctx *c, const tex_hooks *h) { c->hooks = *h; }

void tex_set_font(tex_ctx *c, double em_pt, double ex_pt)
{
    if (em_pt > 0 && em_pt < 16384) c->em_sp = (long)(em_pt * 65536 + 0.5);
    if (ex_pt > 0 && ex_pt < 16384) c->ex_sp = (long)(ex_pt * 65536 + 0.5);
}
size_t tex_cond_depth(const tex_ctx *c) { return c->nconds; }

int tex_cond_open(const tex_ctx *c, size_t i, int *line, int *col)
{
    if (i >= c->nconds) return -1;
    const cond *k = &c->conds[c->nconds - 1 - i];
    *line = k->line;
    *col = k->col;
    return k->name;
}

static inline int tok_prim(const tex_ctx *c, const tex_tok *t)
{
    if (t->type != T_CS) return P_NONE;
    const macro *m = get_macro(c, t->name);
    return m ? m->prim : P_NONE;
}

static int is_sentinel(const tex_tok *t) { return t->type == T_OTHER && t->ch == -2; }

/* A token for a message: \name, 'x', a space, the end of the text. */
static const char *tok_desc(const tex_ctx *c, const tex_tok *t, char *buf, size_t n)
{
    if (t->type == T_CS) snprintf(buf, n, "\\%.60s", tex_name(c, t->name));
    else if (is_sentinel(t)) snprintf(buf, n, "the end of the loop body or text");
    else if (t->type == T_SPACE) snprintf(buf, n, "a space");
    else if (t->type == T_ARG) snprintf(buf, n, "#%d", t->ch);
    else if (t->ch >= 32 && t->ch < 127) snprintf(buf, n, "'%c'", t->ch);
    else snprintf(buf, n, "byte %d", t->ch & 0xff);
    return buf;
}

/* TeX's pass_text: skips tokens, read and never expanded, up to the \fi,
 * \else or \or that ends the branch being skipped (those of conditionals
 * inside it belong to them: only conditionals are counted). Returns that
 * primitive, or 0 on an error (end of input; k: the conditional, for the
 * message). keep: when non-NULL, the tokens read are appended (while it
 * holds fewer than cap). */
static int pass_text(tex_ctx *c, const cond *k, toklist *keep, size_t cap)
{
    long l = 0;
    int pending = 0;   /* a P_IFUNDEF just read: a conditional unless a brace follows */
    tex_tok t = { 0 };
    for (;;) {
        if (!next_tok(c, &t) || is_sentinel(&t)) {
            tex_error(c, k->line, k->col, "\\%s opened here is never closed: %s while skipping a branch (no \\fi)",
                      tex_name(c, k->name), is_sentinel(&t) ? "end of its loop body or text" : "end of input");
            return 0;
        }
        if (keep && keep->n < cap) tl_push(keep, t);
        if (pending && t.type != T_BEGIN) l++;
        pending = 0;
        int p = tok_prim(c, &t);
        if (p == P_NONE) continue;
        if (p == P_IFUNDEF) pending = 1;
        else if (IS_IF(p)) l++;
        else if (IS_FI_ELSE_OR(p)) {
            if (l == 0) return p;
            if (p == P_FI) l--;
        }
    }
}

/* The tokens of the condition being read, as they come after expansion
 * (for the text of a conditional sent to the unparsed hook): recorded
 * while the outermost condition is read (cond_eval 1), the first
 * COND_TEXT_TOKENS of them kept; a token put back is taken off again (the
 * readers put back only the tokens they read last, latest first). */
static inline void ev_rec(tex_ctx *c, const tex_tok *t)
{
    if (c->cond_eval != 1) return;
    if (c->evcount < COND_TEXT_TOKENS) {
        c->evrec.n = c->evcount;
        tl_push(&c->evrec, *t);
    }
    c->evcount++;
}

static int ev_next_x(tex_ctx *c, tex_tok *t)
{
    int r = next_x(c, t);
    if (r > 0) ev_rec(c, t);
    return r;
}

static int ev_next(tex_ctx *c, tex_tok *t)
{
    int r = next_tok(c, t);
    if (r > 0) ev_rec(c, t);
    return r;
}

static void ev_back(tex_ctx *c, const tex_tok *t)
{
    tex_push_tok(c, *t);
    if (c->cond_eval == 1 && c->evcount > 0) c->evcount--;
}

/* The next token of a condition, expanded; -1 (with the error) at the end
 * of the input or of the text. */
static int cond_get_x(tex_ctx *c, const cond *k, tex_tok *t)
{
    int r = ev_next_x(c, t);
    if (r < 0) return -1;
    if (r == 0 || is_sentinel(t)) {
        tex_error(c, k->line, k->col, "%s in the condition of \\%s begun here",
                  r == 0 ? "end of input" : "end of the loop body or text", tex_name(c, k->name));
        return -1;
    }
    return 1;
}

/* The same without expansion. */
static int cond_get(tex_ctx *c, const cond *k, tex_tok *t)
{
    if (!ev_next(c, t) || is_sentinel(t)) {
        tex_error(c, k->line, k->col, "end of input in the condition of \\%s begun here",
                  tex_name(c, k->name));
        return -1;
    }
    return 1;
}

/* TeX's "scan an optional space": one space token, expanded, is dropped. */
static void skip_opt_space(tex_ctx *c)
{
    tex_tok t;
    if (ev_next_x(c, &t) > 0 && t.type != T_SPACE) ev_back(c, &t);
}

/* Signs and spaces before a number (TeX's scan_int and scan_dimen): the
 * first other token in *t, *neg toggled per '-'. */
static int scan_signs(tex_ctx *c, const cond *k, tex_tok *t, int *neg)
{
    for (;;) {
        if (cond_get_x(c, k, t) < 0) return -1;
        if (t->type == T_SPACE || (t->type == T_OTHER && t->ch == '+')) continue;
        if (t->type == T_OTHER && t->ch == '-') { *neg = !*neg; continue; }
        return 1;
    }
}

/* The value of t as a digit of radix (TeX: 0-9 of catcode 12, A-F of
 * catcode 11 or 12 in hexadecimal), or -1. */
static int digit_of(const tex_tok *t, int radix)
{
    if (t->type == T_OTHER && t->ch >= '0' && t->ch < '0' + (radix < 10 ? radix : 10)) return t->ch - '0';
    if (radix == 16 && (t->type == T_OTHER || t->type == T_LETTER) && t->ch >= 'A' && t->ch <= 'F')
        return t->ch - 'A' + 10;
    return -1;
}

#define TEX_INFINITY 2147483647L

/* The message for a quantity the expander does not know: t (pushed back). */
static int unknown_quantity(tex_ctx *c, const tex_tok *t, const char *what, char *why, size_t wn)
{
    char d[80];
    snprintf(why, wn, "%s is not %s tikz2ir knows", tok_desc(c, t, d, sizeof d), what);
    ev_back(c, t);
    return 0;
}

/* TeX's scan_int after the signs, first token t: a decimal, octal ('),
 * hexadecimal (") or character (`) constant, macros expanded on the way,
 * and one optional space after it. 1 with *v; 0 when t is a control
 * sequence (an internal quantity: \count0, \value, \numexpr ...; pushed
 * back, why set); -1 on an error. */
static int scan_numexpr(tex_ctx *c, const cond *k, long *v, char *why, size_t wn);

static int scan_int_from(tex_ctx *c, const cond *k, tex_tok t, long *v, char *why, size_t wn)
{
    char d[80];
    if (t.type == T_OTHER && t.ch == '`') {
        tex_tok u;
        if (cond_get(c, k, &u) < 0) return -1;
        if (u.type == T_CS) {
            if (name_len(c, u.name) != 1) {
                tex_error(c, u.line, u.col, "improper alphabetic constant %s in the condition of \\%s",
                          tok_desc(c, &u, d, sizeof d), tex_name(c, k->name));
                return -1;
            }
            *v = (unsigned char)tex_name(c, u.name)[0];
        } else {
            *v = u.ch & 0xff;
        }
        skip_opt_space(c);
        return 1;
    }
    int radix = 10;
    if (t.type == T_OTHER && (t.ch == '\'' || t.ch == '"')) {
        radix = t.ch == '\'' ? 8 : 16;
        if (cond_get_x(c, k, &t) < 0) return -1;
    }
    if (digit_of(&t, radix) < 0) {
        if (t.type == T_CS && radix == 10 && t.name == c->id_numexpr) return scan_numexpr(c, k, v, why, wn);
        if (t.type == T_CS && radix == 10) return unknown_quantity(c, &t, "a number", why, wn);
        tex_error(c, t.line, t.col, "missing number in the condition of \\%s (found %s)",
                  tex_name(c, k->name), tok_desc(c, &t, d, sizeof d));
        return -1;
    }
    long x = 0;
    for (;;) {
        int dg = digit_of(&t, radix);
        if (dg < 0) break;
        x = x * radix + dg;
        if (x > TEX_INFINITY) {
            tex_error(c, t.line, t.col, "number too big in the condition of \\%s (TeX's limit is %ld)",
                      tex_name(c, k->name), TEX_INFINITY);
            return -1;
        }
        int r = ev_next_x(c, &t);
        if (r < 0) return -1;
        if (r == 0) { *v = x; return 1; }
    }
    if (t.type != T_SPACE) ev_back(c, &t);
    *v = x;
    return 1;
}

static int scan_int(tex_ctx *c, const cond *k, long *v, char *why, size_t wn)
{
    tex_tok t;
    int neg = 0;
    if (scan_signs(c, k, &t, &neg) < 0) return -1;
    int r = scan_int_from(c, k, t, v, why, wn);
    if (r > 0 && neg) *v = -*v;
    return r;
}

/* e-TeX's \numexpr, after it: integers (as scan_int reads them, \numexpr
 * among them) with + - * / and parentheses, spaces between, up to a \relax
 * (read) or any other token that cannot go on (put back). '/' rounds to
 * the nearest, halves away from zero; an intermediate value over TeX's
 * limit is an error, as is a division by zero. depth: parentheses open. */
static int numexpr_sum(tex_ctx *c, const cond *k, long *v, char *why, size_t wn, int depth);

static int numexpr_next(tex_ctx *c, const cond *k, tex_tok *t)
{
    do if (cond_get_x(c, k, t) < 0) return -1;
    while (t->type == T_SPACE);
    return 1;
}

static int numexpr_factor(tex_ctx *c, const cond *k, long *v, char *why, size_t wn, int depth)
{
    tex_tok t;
    if (numexpr_next(c, k, &t) < 0) return -1;
    if (t.type == T_OTHER && t.ch == '(') {
        if (c->nx_depth >= MAX_COND_EVAL) {
            tex_error(c, t.line, t.col, "\\numexpr nested more than %d parentheses deep", MAX_COND_EVAL);
            return -1;
        }
        c->nx_depth++;
        int r = numexpr_sum(c, k, v, why, wn, depth + 1);
        c->nx_depth--;
        if (r <= 0) return r;
        if (numexpr_next(c, k, &t) < 0) return -1;
        if (!(t.type == T_OTHER && t.ch == ')')) {
            char d[80];
            tex_error(c, t.line, t.col, "missing ) in \\numexpr (found %s)", tok_desc(c, &t, d, sizeof d));
            return -1;
        }
        return 1;
    }
    int neg = 0;
    while (t.type == T_SPACE || (t.type == T_OTHER && (t.ch == '+' || t.ch == '-'))) {
        if (t.ch == '-') neg = !neg;
        if (cond_get_x(c, k, &t) < 0) return -1;
    }
    /* (a sign before a parenthesis is e-TeX's "Missing number") */
    int r = scan_int_from(c, k, t, v, why, wn);
    if (r > 0 && neg) *v = -*v;
    return r;
}

static int numexpr_over(tex_ctx *c, const cond *k, long x)
{
    if (x > TEX_INFINITY || x < -TEX_INFINITY) {
        tex_error(c, k->line, k->col, "arithmetic overflow in \\numexpr in the condition of \\%s",
                  tex_name(c, k->name));
        return 1;
    }
    return 0;
}

static int numexpr_term(tex_ctx *c, const cond *k, long *v, char *why, size_t wn, int depth)
{
    int r = numexpr_factor(c, k, v, why, wn, depth);
    if (r <= 0) return r;
    for (;;) {
        tex_tok t;
        if (numexpr_next(c, k, &t) < 0) return -1;
        if (!(t.type == T_OTHER && (t.ch == '*' || t.ch == '/'))) { ev_back(c, &t); return 1; }
        long b;
        if ((r = numexpr_factor(c, k, &b, why, wn, depth)) <= 0) return r;
        if (t.ch == '*') {
            long long x = (long long)*v * b;
            if (numexpr_over(c, k, (long)(x > 4294967296LL ? 4294967296LL : x < -4294967296LL ? -4294967296LL : x))) return -1;
            *v = (long)x;
        } else {
            if (b == 0) {
                tex_error(c, t.line, t.col, "division by zero in \\numexpr in the condition of \\%s",
                          tex_name(c, k->name));
                return -1;
            }
            long a = *v < 0 ? -*v : *v, d = b < 0 ? -b : b, q = (2 * a + d) / (2 * d);
            *v = ((*v < 0) != (b < 0)) ? -q : q;
        }
    }
}

static int numexpr_sum(tex_ctx *c, const cond *k, long *v, char *why, size_t wn, int depth)
{
    int r = numexpr_term(c, k, v, why, wn, depth);
    if (r <= 0) return r;
    for (;;) {
        tex_tok t;
        if (numexpr_next(c, k, &t) < 0) return -1;
        if (!(t.type == T_OTHER && (t.ch == '+' || t.ch == '-'))) { ev_back(c, &t); return 1; }
        long b;
        if ((r = numexpr_term(c, k, &b, why, wn, depth)) <= 0) return r;
        *v = t.ch == '+' ? *v + b : *v - b;
        if (numexpr_over(c, k, *v)) return -1;
    }
}

static int scan_numexpr(tex_ctx *c, const cond *k, long *v, char *why, size_t wn)
{
    if (c->nx_depth >= MAX_COND_EVAL) {
        tex_error(c, k->line, k->col, "\\numexpr nested more than %d deep in the condition of \\%s",
                  MAX_COND_EVAL, tex_name(c, k->name));
        return -1;
    }
    c->nx_depth++;
    int r = numexpr_sum(c, k, v, why, wn, 0);
    c->nx_depth--;
    if (r <= 0) return r;
    tex_tok t;
    if (ev_next_x(c, &t) > 0 && !(t.type == T_CS && t.name == c->id_relax)) ev_back(c, &t);
    return 1;
}

/* TeX's scan_keyword: the letters of kw (lower case; either case matches,
 * catcode 11 or 12) as the next tokens, macros expanded, spaces before it
 * skipped. 1 when found; else 0, what was read put back; -1 on an error. */
static int scan_keyword(tex_ctx *c, const char *kw)
{
    tex_tok got[8];
    size_t n = 0, len = strlen(kw);
    while (n < len) {
        tex_tok t;
        int r = ev_next_x(c, &t);
        if (r < 0) return -1;
        if (r == 0) break;
        if ((t.type == T_LETTER || t.type == T_OTHER) && (t.ch == kw[n] || t.ch == kw[n] - 'a' + 'A')) {
            got[n++] = t;
            continue;
        }
        if (t.type == T_SPACE && n == 0) continue;
        ev_back(c, &t);
        break;
    }
    if (n == len) return 1;
    while (n > 0) ev_back(c, &got[--n]);
    return 0;
}

/* TeX's round_decimals: the fraction 0.d[0]d[1]...d[k-1] in units of 2^-16 */
static long round_decimals(const int *dg, int k)
{
    long a = 0;
    while (k-- > 0) a = (a + dg[k] * 131072L) / 10;
    return (a + 1) / 2;
}

/* TeX's scan_dimen (not an internal dimension, no glue): signs, a decimal
 * constant (with '.' or ','), or an integer one, then a unit (pt, in, pc,
 * cm, mm, bp, dd, cc, sp, em, ex; "true" ignored: no magnification; em and
 * ex are tex_set_font's) and one
 * optional space. 1 with *v in scaled points (2^-16 pt); 0 for an internal
 * quantity (a control sequence where a number or unit is due: \linewidth,
 * \pgflinewidth, ...; why set); -1 on an error. */
static int scan_dimen(tex_ctx *c, const cond *k, long *v, char *why, size_t wn)
{
    tex_tok t;
    int neg = 0, r;
    char d[80];
    if (scan_signs(c, k, &t, &neg) < 0) return -1;
    long ip = 0, f = 0;
    if (t.type == T_CS) return unknown_quantity(c, &t, "a length", why, wn);
    if (t.type == T_OTHER && (t.ch == '`' || t.ch == '\'' || t.ch == '"')) {
        if ((r = scan_int_from(c, k, t, &ip, why, wn)) <= 0) return r;
    } else {
        int dg[17], nd = 0, any = 0;
        while (digit_of(&t, 10) >= 0) {
            ip = ip * 10 + (t.ch - '0');
            if (ip > TEX_INFINITY) {
                tex_error(c, t.line, t.col, "number too big in the condition of \\%s", tex_name(c, k->name));
                return -1;
            }
            any = 1;
            if ((r = cond_get_x(c, k, &t)) < 0) return -1;
        }
        if (t.type == T_OTHER && (t.ch == '.' || t.ch == ',')) {
            if ((r = cond_get_x(c, k, &t)) < 0) return -1;
            while (digit_of(&t, 10) >= 0) {
                if (nd < 17) dg[nd++] = t.ch - '0';
                any = 1;
                if ((r = cond_get_x(c, k, &t)) < 0) return -1;
            }
        }
        if (!any) {
            tex_error(c, t.line, t.col, "missing number in the condition of \\%s (found %s)",
                      tex_name(c, k->name), tok_desc(c, &t, d, sizeof d));
            return -1;
        }
        if (t.type != T_SPACE) ev_back(c, &t);
        f = round_decimals(dg, nd);
    }
    /* the unit: a control sequence here would be an internal dimension
     * (2\linewidth) */
    do if (cond_get_x(c, k, &t) < 0) return -1;
    while (t.type == T_SPACE);
    if (t.type == T_CS) return unknown_quantity(c, &t, "a unit", why, wn);
    ev_back(c, &t);
    long unit = 0;
    if ((r = scan_keyword(c, "em")) > 0) unit = c->em_sp;
    else if (r == 0 && (r = scan_keyword(c, "ex")) > 0) unit = c->ex_sp;
    if (r < 0) return -1;
    if (unit) {
        skip_opt_space(c);
        /* TeX: nx_plus_y(ip, unit, xn_over_d(unit, f, 2^16)) */
        long x = ip * unit + unit * f / 65536;
        if (x >= 1073741824L) {
            tex_error(c, k->line, k->col, "dimension too large in the condition of \\%s", tex_name(c, k->name));
            return -1;
        }
        *v = neg ? -x : x;
        return 1;
    }
    if (scan_keyword(c, "true") < 0) return -1;
    static const struct { const char *kw; long num, den; } units[] = {
        { "pt", 1, 1 }, { "in", 7227, 100 }, { "pc", 12, 1 }, { "cm", 7227, 254 },
        { "mm", 7227, 2540 }, { "bp", 7227, 7200 }, { "dd", 1238, 1157 },
        { "cc", 14856, 1157 }, { "sp", 0, 0 },
    };
    size_t u;
    for (u = 0; u < sizeof units / sizeof *units; u++) {
        if ((r = scan_keyword(c, units[u].kw)) < 0) return -1;
        if (r) break;
    }
    if (u == sizeof units / sizeof *units) {
        if (cond_get_x(c, k, &t) < 0) return -1;
        tex_error(c, t.line, t.col, "illegal unit of measure in the condition of \\%s (found %s)",
                  tex_name(c, k->name), tok_desc(c, &t, d, sizeof d));
        return -1;
    }
    long x;
    if (units[u].num == 0) {
        x = ip;   /* sp: the fraction is dropped */
    } else {
        if (units[u].num != 1 || units[u].den != 1) {
            long p = ip * units[u].num;
            long rem = p % units[u].den;
            ip = p / units[u].den;
            f = (units[u].num * f + 65536 * rem) / units[u].den;
            ip += f / 65536;
            f %= 65536;
        }
        if (ip >= 16384) {
            tex_error(c, k->line, k->col, "dimension too large in the condition of \\%s", tex_name(c, k->name));
            return -1;
        }
        x = ip * 65536 + f;
    }
    skip_opt_space(c);
    *v = neg ? -x : x;
    return 1;
}

/* The relation of \ifnum and \ifdim: '<', '=' or '>' (catcode 12) after
 * spaces; 0 on an error. */
static int scan_rel(tex_ctx *c, const cond *k)
{
    tex_tok t;
    do if (cond_get_x(c, k, &t) < 0) return 0;
    while (t.type == T_SPACE);
    if (t.type == T_OTHER && (t.ch == '<' || t.ch == '=' || t.ch == '>')) return t.ch;
    char d[80];
    tex_error(c, t.line, t.col, "missing = < or > in the condition of \\%s (found %s)",
              tex_name(c, k->name), tok_desc(c, &t, d, sizeof d));
    return 0;
}

static int known_cs(const tex_ctx *c, int name)
{
    return c->hooks.known && c->hooks.known(c->hooks.ctx, name);
}

static int tl_same(const toklist *a, const toklist *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (!tok_eq(&a->v[i], &b->v[i])) return 0;
    return 1;
}

/* \ifx: the meanings of two tokens are the same. A macro is compared by
 * its parameters and body; a \let to a token has that token's meaning; a
 * control sequence that is neither a macro nor a command the interpreter
 * knows is undefined (all undefined ones are the same). */
static int same_meaning(const tex_ctx *c, tex_tok a, tex_tok b)
{
    const macro *ma = a.type == T_CS ? get_macro(c, a.name) : NULL;
    const macro *mb = b.type == T_CS ? get_macro(c, b.name) : NULL;
    if (ma && ma->prim == P_IFUNDEF) ma = NULL;
    if (mb && mb->prim == P_IFUNDEF) mb = NULL;
    if (ma && ma->let_tok && !ma->prim) { a = ma->body.v[0]; ma = NULL; }
    if (mb && mb->let_tok && !mb->prim) { b = mb->body.v[0]; mb = NULL; }
    if (ma || mb) {
        if (!ma || !mb) return 0;
        if (ma == mb) return 1;
        if (ma->prim || mb->prim) return ma->prim == mb->prim;
        return ma->has_opt == mb->has_opt && tl_same(&ma->params, &mb->params) &&
               tl_same(&ma->body, &mb->body) && tl_same(&ma->optdef, &mb->optdef);
    }
    if (a.type == T_CS && b.type == T_CS)
        return a.name == b.name || (!known_cs(c, a.name) && !known_cs(c, b.name));
    if (a.type == T_CS || b.type == T_CS) return 0;
    return tok_eq(&a, &b);
}

/* \if and \ifcat: a token's character code and category code (an
 * unexpandable control sequence: 256 and 16, as TeX's relax). */
static void char_cat(const tex_tok *t, int *chr, int *cat)
{
    static const int cats[T_NTYPES] = { [T_BEGIN] = 1, [T_END] = 2, [T_MATH] = 3, [T_PARAM] = 6,
                                        [T_SPACE] = 10, [T_LETTER] = 11, [T_OTHER] = 12, [T_ARG] = 6 };
    if (t->type == T_CS) { *chr = 256; *cat = 16; return; }
    *chr = t->type == T_SPACE ? ' ' : t->ch;
    *cat = cats[t->type];
}

/* The condition of conditional p (k: its entry): 1 with *val (true: not
 * 0; \ifcase: the number); 0 when the expander cannot evaluate it (why
 * set); -1 on an error. */
static int eval_cond(tex_ctx *c, const cond *k, int p, long *val, char *why, size_t wn)
{
    long a, b;
    int r, rel;
    tex_tok x, y;
    switch (p) {
    case P_IFTRUE: *val = 1; return 1;
    case P_IFFALSE: *val = 0; return 1;
    case P_IFNUM:
    case P_IFDIM:
        r = p == P_IFNUM ? scan_int(c, k, &a, why, wn) : scan_dimen(c, k, &a, why, wn);
        if (r <= 0) return r;
        if (!(rel = scan_rel(c, k))) return -1;
        r = p == P_IFNUM ? scan_int(c, k, &b, why, wn) : scan_dimen(c, k, &b, why, wn);
        if (r <= 0) return r;
        *val = rel == '<' ? a < b : rel == '=' ? a == b : a > b;
        return 1;
    case P_IFODD:
        if ((r = scan_int(c, k, &a, why, wn)) <= 0) return r;
        *val = a % 2 != 0;
        return 1;
    case P_IFCASE:
        return scan_int(c, k, val, why, wn);
    case P_IFX:
        if (cond_get(c, k, &x) < 0 || cond_get(c, k, &y) < 0) return -1;
        *val = same_meaning(c, x, y);
        return 1;
    case P_IF:
    case P_IFCAT: {
        if (cond_get_x(c, k, &x) < 0 || cond_get_x(c, k, &y) < 0) return -1;
        int cx, kx, cy, ky;
        char_cat(&x, &cx, &kx);
        char_cat(&y, &cy, &ky);
        *val = p == P_IF ? cx == cy : kx == ky;
        return 1;
    }
    case P_IFDEFINED: {
        if (cond_get(c, k, &x) < 0) return -1;
        const macro *m = x.type == T_CS ? get_macro(c, x.name) : NULL;
        if (m && m->prim == P_IFUNDEF) m = NULL;
        if (m && m->let_tok && !m->prim) { x = m->body.v[0]; m = NULL; }
        *val = x.type != T_CS || m || known_cs(c, x.name);
        return 1;
    }
    case P_IFUNDEF:
        snprintf(why, wn, "\\%s is not defined in the document: a conditional of a package?",
                 tex_name(c, k->name));
        return 0;
    default:
        snprintf(why, wn, "tikz2ir does not evaluate \\%s", tex_name(c, k->name));
        return 0;
    }
}

/* Drops the innermost conditional. */
static void cond_pop(tex_ctx *c) { c->nconds--; }

/* A conditional whose condition cannot be evaluated: skipped whole, up to
 * its \fi (tokens read so far of the condition are lost; the rest is its
 * text), and handed to the unparsed hook. me: its entry. */
static int skip_unevaluated(tex_ctx *c, size_t me, const char *why, int outermost)
{
    cond k = c->conds[me];
    toklist keep = { 0 };
    /* the condition as read (the outermost one's is recorded) */
    size_t skept = 0, cap = COND_TEXT_TOKENS;
    int cut = 0;
    if (outermost) {
        skept = c->evcount < c->evrec.n ? c->evcount : c->evrec.n;
        for (size_t i = 0; i < skept; i++) tl_push(&keep, c->evrec.v[i]);
        cut = c->evcount > skept;   /* the condition itself is cut: a prefix only */
        cap = cut ? skept : COND_TEXT_TOKENS + skept;
    }
    for (;;) {
        int q = pass_text(c, &c->conds[me], &keep, cap);
        if (!q) { tl_free(&keep); return -1; }
        if (c->nconds - 1 == me) {
            if (q == P_FI) break;
            continue;
        }
        if (q == P_FI) cond_pop(c);
    }
    cond_pop(c);
    if (c->hooks.unparsed) {
        char pre[80];
        snprintf(pre, sizeof pre, "\\%.60s", tex_name(c, k.name));
        if (keep.n && keep.v[0].type == T_LETTER) strcat(pre, " ");
        char *s = tex_to_text_ex(c, &keep, 0, keep.n, pre, k.line, NULL);
        if (cut || keep.n >= cap) {   /* (cut: a prefix of the text) */
            size_t n = strlen(s);
            s = xrealloc(s, n + 4);
            memcpy(s + n, "...", 4);
        }
        char w[300];
        snprintf(w, sizeof w, "cannot evaluate the condition (%s)", why);
        c->hooks.unparsed(c->hooks.ctx, k.line, k.col, s, w);
        free(s);
    }
    tl_free(&keep);
    return 1;
}

/* TeX's conditional: conditional p at token t (its name, position; neg:
 * \unless before it). */
static int conditional(tex_ctx *c, const tex_tok *t, int p, int neg)
{
    if (c->nconds >= MAX_COND_DEPTH) {
        tex_error(c, t->line, t->col, "more than %d conditionals open at once (\\fi missing?)", MAX_COND_DEPTH);
        return -1;
    }
    if (c->cond_eval >= MAX_COND_EVAL) {
        tex_error(c, t->line, t->col, "conditions nested more than %d deep inside conditions", MAX_COND_EVAL);
        return -1;
    }
    if (c->nconds == c->capconds) {
        c->capconds = c->capconds ? c->capconds * 2 : 16;
        c->conds = xrealloc(c->conds, c->capconds * sizeof *c->conds);
    }
    size_t me = c->nconds++;
    c->conds[me] = (cond){ t->name, t->line, t->col, L_IF };
    long val = 0;
    char why[200] = "";
    int outermost = c->cond_eval == 0;
    if (outermost) c->evcount = 0;
    c->cond_eval++;
    cond k = c->conds[me];
    int r = eval_cond(c, &k, p, &val, why, sizeof why);
    c->cond_eval--;
    if (r < 0 || c->failed) return -1;
    if (r == 0) return skip_unevaluated(c, me, why, outermost);
    int q;
    if (p == P_IFCASE) {
        long n = val;
        while (n != 0) {
            if (!(q = pass_text(c, &c->conds[me], NULL, 0))) return -1;
            if (c->nconds - 1 == me) {
                if (q == P_OR) n--;
                else goto common_ending;
            } else if (q == P_FI) {
                cond_pop(c);
            }
        }
        c->conds[me].limit = L_OR;
        return 1;
    }
    if ((val != 0) != neg) {
        c->conds[me].limit = L_ELSE;
        return 1;
    }
    for (;;) {
        if (!(q = pass_text(c, &c->conds[me], NULL, 0))) return -1;
        if (c->nconds - 1 == me) {
            if (q != P_OR) break;
            tex_error(c, c->cur_line, c->cur_col, "\\or in the \\%s begun on line %d (not an \\ifcase)",
                      tex_name(c, k.name), k.line);
            return -1;
        }
        if (q == P_FI) cond_pop(c);
    }
common_ending:
    if (q == P_FI) cond_pop(c);
    else c->conds[me].limit = L_FI;
    return 1;
}

/* A conditional primitive read while expanding: a conditional (evaluated,
 * its branch chosen), \unless, or the \else, \or or \fi of the innermost
 * open conditional. 1 done, -1 on an error, 2: t is no conditional after
 * all (P_IFUNDEF before a brace) and is read as it is. */
static int expand_cond(tex_ctx *c, const tex_tok *t, int p)
{
    if (p >= P_FI) {
        int code = p == P_FI ? L_FI : p == P_ELSE ? L_ELSE : L_OR;
        const char *nm = tex_name(c, t->name);
        if (c->nconds == 0) {
            tex_error(c, t->line, t->col, "\\%s with no conditional open (extra \\%s)", nm, nm);
            return -1;
        }
        cond *k = &c->conds[c->nconds - 1];
        if (code > k->limit) {
            if (k->limit == L_IF) {
                /* inside the condition: TeX inserts \relax, which ends
                 * the number being read, and reads the \fi again after */
                tex_push_tok(c, *t);
                tex_tok rl = { T_CS, 0, c->id_relax, t->line, t->col };
                tex_push_tok(c, rl);
                return 1;
            }
            tex_error(c, t->line, t->col, "extra \\%s: the \\%s begun on line %d %s", nm,
                      tex_name(c, k->name), k->line,
                      k->limit == L_FI ? "has had its \\else" : "is not an \\ifcase");
            return -1;
        }
        while (code != L_FI) {
            int q = pass_text(c, k, NULL, 0);
            if (!q) return -1;
            code = q == P_FI ? L_FI : q == P_ELSE ? L_ELSE : L_OR;
        }
        cond_pop(c);
        return 1;
    }
    if (p == P_IFUNDEF && !pkg_if_is_cond(c)) return 2;
    if (p == P_UNLESS) {
        tex_tok u;
        int q = 0;
        if (!next_tok(c, &u) || !IS_IF(q = tok_prim(c, &u)) || q == P_IFCASE) {
            tex_error(c, t->line, t->col, "\\unless must be followed by a conditional other than \\ifcase");
            return -1;
        }
        return conditional(c, &u, q, 1);
    }
    return conditional(c, t, p, 0);
}

/* ---- registers ----------------------------------------------------------
 * \newcount\x and \newdimen\x make \x a register (value 0); "\x = value"
 * (outside a condition) assigns it; \advance\x by v, \multiply\x by n and
 * \divide\x by n change it (locally to the group, as TeX does); elsewhere
 * \x, and \the\x, give its value as \the prints it (5, 28.45274pt): tikz2ir
 * reads a statement's text after expansion. \pgfextra{code} and
 * \pgfextra code \endpgfextra inside a path run their code there: when
 * it only assigns (registers, conditionals), nothing is left of it; any
 * other token of it is left as \pgfextra{tokens} for the path reader to
 * report. */

#define MAX_PGFEXTRA_TOKENS 100000

/* TeX's print_scaled: the shortest decimal that reads back as s sp */
static void reg_text(int kind, long v, char *buf, size_t n)
{
    if (kind == 1) { snprintf(buf, n, "%ld", v); return; }
    size_t k = 0;
    if (v < 0) { buf[k++] = '-'; v = -v; }
    k += (size_t)snprintf(buf + k, n - k, "%ld.", v / 65536);
    long f = 10 * (v % 65536) + 5, delta = 10;
    do {
        if (delta > 65536) f = f + 0x8000 - 50000;
        if (k + 4 < n) buf[k++] = (char)('0' + f / 65536);
        f = 10 * (f % 65536);
        delta *= 10;
    } while (f > delta);
    snprintf(buf + k, n - k, "pt");
}

static void push_reg_value(tex_ctx *c, int kind, long v, const tex_tok *at)
{
    char buf[64];
    toklist l = { 0 };
    reg_text(kind, v, buf, sizeof buf);
    tex_tokenize(c, buf, strlen(buf), at->line, &l);
    tex_push_list(c, &l);
    tl_free(&l);
}

static void reg_set(tex_ctx *c, int name, int kind, long v, int global)
{
    macro *m = macro_new();
    m->prim = P_REG;
    m->regkind = kind;
    m->regval = v;
    set_macro(c, name, m, global);
}

/* the register named by the next token (not expanded), or NULL with the
 * token put back */
static const macro *next_reg(tex_ctx *c, tex_tok *r)
{
    if (!next_tok(c, r)) return NULL;
    macro *m = r->type == T_CS ? get_macro(c, r->name) : NULL;
    if (m && m->prim == P_REG) return m;
    tex_push_tok(c, *r);
    return NULL;
}

/* a value for a register of kind (a dimen: scan_dimen; a count: scan_int),
 * 1 with *v; 0 when it is a quantity the expander does not know (the
 * tokens read put back); -1 on an error */
static int reg_value(tex_ctx *c, const tex_tok *t, int kind, long *v)
{
    cond k = { t->name, t->line, t->col, L_IF };
    char why[160];
    return kind == 2 ? scan_dimen(c, &k, v, why, sizeof why) : scan_int(c, &k, v, why, sizeof why);
}

/* \pgfextra's code, run: 1 when nothing but assignments was in it */
static int run_pgfextra(tex_ctx *c, const tex_tok *t, toklist *code, toklist *left)
{
    tex_tok end = { T_OTHER, -2, -12345, t->line, t->col };
    tl_push(code, end);
    tex_push_list(c, code);
    for (;;) {
        tex_tok u;
        int r = next_x(c, &u);
        if (r < 0) return -1;
        if (r == 0) return 0;
        if (u.type == T_OTHER && u.ch == -2 && u.name == -12345) break;
        if (u.type == T_OTHER && u.ch == -2) { tex_push_tok(c, u); return 0; }
        if (u.type != T_SPACE) tl_push(left, u);
    }
    return left->n == 0;
}

/* (reading a value may assign the register and free its macro: what is
 * needed of a macro is copied before) */
static int expand_reg(tex_ctx *c, const tex_tok *t, const macro *m)
{
    tex_tok u;
    const macro *r;
    int kind = m->regkind, prim = m->prim;
    long val = m->regval;
    m = NULL;   /* (any expansion below may free it) */
    switch (prim) {
    case P_REG: {
        /* "\x = value" outside a condition: an assignment */
        if (c->cond_eval == 0) {
            int n = 0, got;
            tex_tok sp[4];
            while ((got = next_tok(c, &u)) && u.type == T_SPACE && n < 4) sp[n++] = u;
            if (got && u.type == T_OTHER && u.ch == '=') {
                long v;
                int ok = reg_value(c, t, kind, &v);
                if (ok < 0) return -1;
                if (ok > 0) { reg_set(c, t->name, kind, v, 0); return 1; }
                /* a value the expander does not know: left as it is */
                tex_push_tok(c, u);
                while (n > 0) tex_push_tok(c, sp[--n]);
                return 2;
            }
            if (got) tex_push_tok(c, u);
            while (n > 0) tex_push_tok(c, sp[--n]);
        }
        push_reg_value(c, kind, val, t);
        return 1;
    }
    case P_NEWCOUNT:
    case P_NEWDIMEN:
        if (!next_tok(c, &u) || u.type != T_CS) {
            tex_error(c, t->line, t->col, "\\%s: a control sequence must follow", tex_name(c, t->name));
            return -1;
        }
        reg_set(c, u.name, prim == P_NEWCOUNT ? 1 : 2, 0, 1);
        return 1;
    case P_ADVANCE:
    case P_MULTIPLY:
    case P_DIVIDE: {
        tex_tok rt;
        if (!(r = next_reg(c, &rt))) return 2;   /* \advance\count0 ...: read as it is */
        int rk = r->regkind, p = prim;
        r = NULL;
        if (scan_keyword(c, "by") < 0) return -1;
        long v;
        int ok = reg_value(c, t, p == P_ADVANCE ? rk : 1, &v);
        if (ok < 0) return -1;
        if (ok == 0) { tex_push_tok(c, rt); return 2; }
        /* the register's value now (the value read may have changed it) */
        r = get_macro(c, rt.name);
        if (!r || r->prim != P_REG || r->regkind != rk) return 1;
        long x = r->regval;
        if (p == P_ADVANCE) x += v;
        else if (p == P_MULTIPLY) x *= v;
        else if (v == 0) {
            tex_error(c, t->line, t->col, "\\divide by zero");
            return -1;
        } else x /= v;   /* TeX truncates toward zero */
        if (x > (rk == 2 ? 1073741823L : TEX_INFINITY) || x < -(rk == 2 ? 1073741823L : TEX_INFINITY)) {
            tex_error(c, t->line, t->col, "arithmetic overflow in \\%s", tex_name(c, t->name));
            return -1;
        }
        reg_set(c, rt.name, rk, x, 0);
        return 1;
    }
    case P_THE: {
        tex_tok rt;
        if (!(r = next_reg(c, &rt))) return 2;
        push_reg_value(c, r->regkind, r->regval, &rt);
        return 1;
    }
    case P_ENDPGFEXTRA:
        return 1;
    case P_PGFEXTRA: {
        toklist code = { 0 }, left = { 0 };
        do if (!next_tok(c, &u)) { tex_push_tok(c, *t); return 2; }
        while (u.type == T_SPACE);
        if (u.type == T_BEGIN) {
            tex_push_tok(c, u);
            if (tex_read_arg(c, &code, 0) <= 0) { tl_free(&code); return c->failed ? -1 : 2; }
        } else {
            /* up to \endpgfextra, unexpanded */
            for (;;) {
                if (code.n > MAX_PGFEXTRA_TOKENS) {
                    tex_error(c, t->line, t->col, "\\pgfextra without \\endpgfextra");
                    tl_free(&code);
                    return -1;
                }
                macro *e = u.type == T_CS ? get_macro(c, u.name) : NULL;
                if (e && e->prim == P_ENDPGFEXTRA) break;
                tl_push(&code, u);
                if (!next_tok(c, &u)) {
                    tex_error(c, t->line, t->col, "\\pgfextra without \\endpgfextra");
                    tl_free(&code);
                    return -1;
                }
            }
        }
        int ok = run_pgfextra(c, t, &code, &left);
        tl_free(&code);
        if (ok < 0) { tl_free(&left); return -1; }
        if (!ok) {
            /* what the code left for the path reader: \pgfextra{...} */
            tex_tok b = { T_BEGIN, '{', 0, t->line, t->col }, e = { T_END, '}', 0, t->line, t->col };
            tl_push(&left, e);
            tex_push_list(c, &left);
            tex_push_tok(c, b);
            tl_free(&left);
            return 2;
        }
        tl_free(&left);
        return 1;
    }
    }
    return 2;
}

int tex_newif(tex_ctx *c, const tex_tok *cmd, const tex_tok *name)
{
    const char *nm = name->type == T_CS ? tex_name(c, name->name) : "";
    size_t n = name->type == T_CS ? name_len(c, name->name) : 0;
    if (n < 3 || nm[0] != 'i' || nm[1] != 'f') {
        tex_error(c, cmd->line, cmd->col, "\\newif needs a name beginning with \\if (\\newif\\iffoo)");
        return 0;
    }
    const macro *old = get_macro(c, name->name);
    if (old && old->builtin) {
        tex_error(c, name->line, name->col, "\\newif\\%s would redefine the TeX conditional \\%s", nm, nm);
        return 0;
    }
    macro *m = macro_new();
    m->prim = P_IFFALSE;
    set_macro(c, name->name, m, 0);
    /* \footrue and \foofalse: \let\iffoo\iftrue (\iffalse) */
    char *buf = xmalloc(n + 4);
    static const char *const val[2] = { "true", "false" };
    for (int i = 0; i < 2; i++) {
        memcpy(buf, nm + 2, n - 2);
        memcpy(buf + n - 2, val[i], strlen(val[i]));
        int id = tex_intern(c, buf, n - 2 + strlen(val[i]));
        memcpy(buf, "if", 2);
        memcpy(buf + 2, val[i], strlen(val[i]));
        toklist body = { 0 };
        tex_tok tk = { T_CS, 0, tex_intern(c, "let", 3), 0, 0 };
        tl_push(&body, tk);
        tk.name = name->name;
        tl_push(&body, tk);
        tk.name = tex_intern(c, buf, 2 + strlen(val[i]));
        tl_push(&body, tk);
        tex_define(c, id, NULL, 0, &body, NULL, 0);
        tl_free(&body);
    }
    free(buf);
    return 1;
}

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
    /* a conditional there is not expanded to look for the '[' (LaTeX looks
     * with \futurelet, which sees the conditional) */
    int r = next_e_nonspace(c, &t, 0);
    if (r <= 0) goto done;
    tex_push_tok(c, t);
    if (tok_prim(c, &t)) goto done;
    r = next_e_nonspace(c, &t, 1);
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
