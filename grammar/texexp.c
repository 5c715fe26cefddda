/* texexp.c — TeX token lists and the macro expander (see texexp.h). */
#include "grammar/texexp.h"
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

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) { fputs("tikz2ir: out of memory\n", stderr); exit(2); }
    return q;
}

void tl_push(toklist *l, tex_tok t)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = t;
}

static void tl_reserve(toklist *l, size_t more)
{
    if (l->n + more <= l->cap) return;
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

typedef struct macro {
    toklist params;
    int nparams;
    toklist body;
    int has_opt;
    toklist optdef;
    int let_tok;      /* \let to a non-macro token: body holds that one token */
    char *text;       /* cached body text for parameterless macros */
} macro;

typedef struct { int name; macro *old; } saved;

typedef struct {
    tex_tok *v;
    size_t n, pos;
} level;

struct tex_ctx {
    /* intern table */
    char **names;
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
    long expansions;
    long pushed;              /* tokens pushed by expansion (work bound) */
    int cur_line, cur_col;
    /* the tokenizer, created once */
    void *scanner;
    struct texlex_extra lx;
    /* error */
    int failed, err_line, err_col;
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
    int *h = xrealloc(NULL, nc * sizeof *h);
    for (size_t i = 0; i < nc; i++) h[i] = -1;
    for (size_t i = 0; i < c->nnames; i++) {
        size_t k = hash_str(c->names[i], strlen(c->names[i])) & (nc - 1);
        while (h[k] >= 0) k = (k + 1) & (nc - 1);
        h[k] = (int)i;
    }
    free(c->hash);
    c->hash = h;
    c->hcap = nc;
}

int tex_intern(tex_ctx *c, const char *name, size_t len)
{
    if ((c->nnames + 1) * 2 > c->hcap) rehash(c);
    size_t k = hash_str(name, len) & (c->hcap - 1);
    while (c->hash[k] >= 0) {
        const char *s = c->names[c->hash[k]];
        if (strlen(s) == len && memcmp(s, name, len) == 0) return c->hash[k];
        k = (k + 1) & (c->hcap - 1);
    }
    if (c->nnames == c->capnames) {
        c->capnames = c->capnames ? c->capnames * 2 : 256;
        c->names = xrealloc(c->names, c->capnames * sizeof *c->names);
    }
    char *s = xrealloc(NULL, len + 1);
    memcpy(s, name, len);
    s[len] = 0;
    c->names[c->nnames] = s;
    c->hash[k] = (int)c->nnames;
    return (int)c->nnames++;
}

const char *tex_name(const tex_ctx *c, int id)
{
    return (id >= 0 && (size_t)id < c->nnames) ? c->names[id] : "";
}

tex_ctx *tex_new(void)
{
    tex_ctx *c = xrealloc(NULL, sizeof *c);
    memset(c, 0, sizeof *c);
    return c;
}

static void macro_free(macro *m)
{
    if (!m) return;
    tl_free(&m->params);
    tl_free(&m->body);
    tl_free(&m->optdef);
    free(m->text);
    free(m);
}

void tex_free(tex_ctx *c)
{
    if (!c) return;
    if (c->scanner) texlex_destroy(c->scanner);
    for (size_t i = 0; i < c->nnames; i++) free(c->names[i]);
    free(c->names);
    free(c->hash);
    for (size_t i = 0; i < c->capmacros; i++) macro_free(c->macros[i]);
    free(c->macros);
    for (size_t i = 0; i < c->nsave; i++) macro_free(c->save[i].old);
    free(c->save);
    free(c->groups);
    for (size_t i = 0; i < c->nin; i++) free(c->in[i].v);
    free(c->in);
    free(c);
}

/* ---- lexer glue ---------------------------------------------------------- */

void texlex_advance(struct texlex_extra *x, const char *text, int len)
{
    for (int i = 0; i < len; i++) {
        if (text[i] == '\n') { x->line++; x->col = 1; }
        else x->col++;
    }
}

void texlex_emit(struct texlex_extra *x, int type, int ch, const char *text, int len)
{
    tex_tok t;
    memset(&t, 0, sizeof t);
    t.type = (unsigned char)type;
    t.ch = ch;
    t.line = x->line;
    t.col = x->col;
    if (type == T_CS) {
        int n = len - 1;
        /* trailing spaces/newline after a letter-named control sequence */
        if (n > 1 || (n == 1 && ((text[1] >= 'a' && text[1] <= 'z') ||
                                 (text[1] >= 'A' && text[1] <= 'Z') || text[1] == '@'))) {
            while (n > 0 && (text[n] == ' ' || text[n] == '\t' || text[n] == '\n')) n--;
        }
        t.name = tex_intern(x->ctx, text + 1, (size_t)n);
    }
    tl_push(x->out, t);
    texlex_advance(x, text, len);
}

void tex_tokenize(tex_ctx *c, const char *text, size_t len, int first_line, toklist *out)
{
    if (!c->scanner) texlex_init_extra(&c->lx, (yyscan_t *)&c->scanner);
    c->lx.ctx = c;
    c->lx.out = out;
    c->lx.line = first_line;
    c->lx.col = 1;
    YY_BUFFER_STATE b = tex_scan_bytes(text, (int)len, c->scanner);
    texlex(c->scanner);
    tex_delete_buffer(b, c->scanner);
}

char *tex_to_text(const tex_ctx *c, const toklist *l, size_t from, size_t to, int **lines)
{
    return tex_to_text_ex(c, l, from, to, "", 0, lines);
}

static int is_letter_ch(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }

char *tex_to_text_ex(const tex_ctx *c, const toklist *l, size_t from, size_t to,
                     const char *prefix, int prefix_line, int **lines)
{
    if (to > l->n) to = l->n;
    if (from > to) from = to;
    /* size first: one allocation */
    size_t pl = strlen(prefix), need = pl + 1;
    for (size_t i = from; i < to; i++) {
        const tex_tok *t = &l->v[i];
        if (t->type == T_CS) need += strlen(tex_name(c, t->name)) + 2;
        else if (t->type == T_ARG) need += 2;
        else need += 1;
    }
    char *s = xrealloc(NULL, need);
    int *ln = lines ? xrealloc(NULL, need * sizeof *ln) : NULL;
    memcpy(s, prefix, pl);
    size_t n = pl;
    if (ln) for (size_t j = 0; j < pl; j++) ln[j] = prefix_line;
    for (size_t i = from; i < to; i++) {
        const tex_tok *t = &l->v[i];
        size_t start = n;
        if (t->type == T_CS) {
            const char *nm = tex_name(c, t->name);
            size_t k = strlen(nm);
            s[n++] = '\\';
            memcpy(s + n, nm, k);
            n += k;
            /* \name followed by a letter needs a separating space */
            if (k > 0 && is_letter_ch(nm[k - 1]) && i + 1 < to && l->v[i + 1].type == T_LETTER)
                s[n++] = ' ';
        } else if (t->type == T_ARG) {
            s[n++] = '#';
            s[n++] = (char)('0' + (t->ch % 10));
        } else {
            s[n++] = (char)t->ch;
        }
        if (ln) {
            int li = t->line > 0 ? t->line : prefix_line;
            for (size_t j = start; j < n; j++) ln[j] = li;
        }
    }
    s[n] = 0;
    if (ln) ln[n] = n ? ln[n - 1] : prefix_line;
    if (lines) *lines = ln;
    return s;
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
    for (size_t i = 0; i < c->nin; i++) free(c->in[i].v);
    c->nin = 0;
}

const char *tex_error_msg(const tex_ctx *c) { return c->err; }
int tex_error_line(const tex_ctx *c) { return c->err_line; }
int tex_error_col(const tex_ctx *c) { return c->err_col; }
int tex_failed(const tex_ctx *c) { return c->failed; }
int tex_cur_line(const tex_ctx *c) { return c->cur_line; }

void tex_reset_budget(tex_ctx *c) { c->pushed = 0; c->expansions = 0; }

void tex_reset(tex_ctx *c, int depth)
{
    for (size_t i = 0; i < c->nin; i++) free(c->in[i].v);
    c->nin = 0;
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
        macro_free(c->macros[name]);
    }
    c->macros[name] = m;
}

static macro *get_macro(const tex_ctx *c, int name)
{
    return (name >= 0 && (size_t)name < c->capmacros) ? c->macros[name] : NULL;
}

void tex_define(tex_ctx *c, int name, const toklist *params, int nparams,
                const toklist *body, const toklist *opt_default, int global)
{
    macro *m = xrealloc(NULL, sizeof *m);
    memset(m, 0, sizeof *m);
    if (params) tl_append(&m->params, params);
    m->nparams = nparams;
    tl_append(&m->body, body);
    if (opt_default) { m->has_opt = 1; tl_append(&m->optdef, opt_default); }
    set_macro(c, name, m, global);
}

void tex_define_text(tex_ctx *c, const char *name, const char *text, int global)
{
    toklist body = {0};
    tex_tokenize(c, text, strlen(text), 0, &body);
    tex_define(c, tex_intern(c, name, strlen(name)), NULL, 0, &body, NULL, global);
    tl_free(&body);
}

int tex_is_defined(const tex_ctx *c, int name) { return get_macro(c, name) != NULL; }

void tex_let(tex_ctx *c, int name, tex_tok other, int global)
{
    macro *o = other.type == T_CS ? get_macro(c, other.name) : NULL;
    macro *m = xrealloc(NULL, sizeof *m);
    memset(m, 0, sizeof *m);
    if (o) {
        tl_append(&m->params, &o->params);
        m->nparams = o->nparams;
        tl_append(&m->body, &o->body);
        m->has_opt = o->has_opt;
        tl_append(&m->optdef, &o->optdef);
    } else {
        if (other.type == T_CS && other.name == name) { free(m); return; }
        tl_push(&m->body, other);
        m->let_tok = 1;
    }
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
        macro_free(c->macros[s->name]);
        c->macros[s->name] = s->old;
    }
}

int tex_group_depth(const tex_ctx *c) { return (int)c->ngroups; }

/* ---- input stack --------------------------------------------------------- */

static void push_owned(tex_ctx *c, tex_tok *v, size_t n)
{
    if (n == 0) { free(v); return; }
    c->pushed += (long)n;
    if (c->pushed > MAX_PUSHED_TOKENS) {
        free(v);
        tex_error(c, c->cur_line, c->cur_col,
                  "macro expansion produced more than %d tokens (runaway macro?)", MAX_PUSHED_TOKENS);
        return;
    }
    if (c->nin >= MAX_INPUT_DEPTH) {
        free(v);
        tex_error(c, c->cur_line, c->cur_col,
                  "macro expansion nested more than %d levels deep (recursive macro?)",
                  MAX_INPUT_DEPTH);
        return;
    }
    if (c->nin == c->capin) {
        c->capin = c->capin ? c->capin * 2 : 32;
        c->in = xrealloc(c->in, c->capin * sizeof *c->in);
    }
    c->in[c->nin].v = v;
    c->in[c->nin].n = n;
    c->in[c->nin].pos = 0;
    c->nin++;
}

void tex_push_list(tex_ctx *c, const toklist *l)
{
    if (c->failed || l->n == 0) return;
    tex_tok *v = xrealloc(NULL, l->n * sizeof *v);
    memcpy(v, l->v, l->n * sizeof *v);
    push_owned(c, v, l->n);
}

void tex_push_tok(tex_ctx *c, tex_tok t)
{
    if (c->failed) return;
    /* put back into the current level when possible */
    if (c->nin > 0 && c->in[c->nin - 1].pos > 0) {
        level *lv = &c->in[c->nin - 1];
        lv->v[--lv->pos] = t;
        return;
    }
    tex_tok *v = xrealloc(NULL, sizeof *v);
    *v = t;
    push_owned(c, v, 1);
}

int tex_next(tex_ctx *c, tex_tok *t)
{
    while (c->nin > 0) {
        level *lv = &c->in[c->nin - 1];
        if (lv->pos < lv->n) {
            *t = lv->v[lv->pos++];
            if (lv->pos == lv->n) { free(lv->v); c->nin--; }
            if (t->line > 0) { c->cur_line = t->line; c->cur_col = t->col; }
            return 1;
        }
        free(lv->v);
        c->nin--;
    }
    return 0;
}

static int tok_eq(const tex_tok *a, const tex_tok *b)
{
    if (a->type != b->type) return 0;
    if (a->type == T_CS) return a->name == b->name;
    if (a->type == T_SPACE) return 1;
    return a->ch == b->ch;
}

/* Reads a balanced group body after an opening brace already consumed. */
static int read_group_body(tex_ctx *c, toklist *out, int expand, int line, int col)
{
    int depth = 1;
    tex_tok t;
    for (;;) {
        int r = expand ? tex_next_x(c, &t) : tex_next(c, &t);
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
    for (;;) {
        int r = expand ? tex_next_x(c, &t) : tex_next(c, &t);
        if (r <= 0) return;
        if (t.type != T_SPACE) { tex_push_tok(c, t); return; }
    }
}

int tex_read_arg(tex_ctx *c, toklist *out, int expand)
{
    tex_tok t;
    for (;;) {
        int r = expand ? tex_next_x(c, &t) : tex_next(c, &t);
        if (r <= 0) return r;
        if (t.type != T_SPACE) break;
    }
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
    for (;;) {
        r = expand ? tex_next_x(c, &t) : tex_next(c, &t);
        if (r <= 0) return r;
        if (t.type != T_SPACE) break;
    }
    if (!(t.type == T_OTHER && t.ch == '[')) { tex_push_tok(c, t); return 0; }
    int depth = 0, line = t.line, col = t.col;
    for (;;) {
        r = expand ? tex_next_x(c, &t) : tex_next(c, &t);
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

static int expand_macro(tex_ctx *c, const tex_tok *cs, macro *m)
{
    toklist args[10];
    memset(args, 0, sizeof args);
    int ok = 1;
    size_t pi = 0;
    int argi = 0;
    /* keep a private copy: reading arguments may redefine nothing, but be safe */
    const toklist *P = &m->params;

    if (m->has_opt) {
        argi = 1;
        int r = tex_read_opt(c, &args[0], 0);
        if (r < 0) ok = 0;
        else if (r == 0) tl_append(&args[0], &m->optdef);
    }
    /* literal tokens before the first parameter must match */
    while (ok && pi < P->n && P->v[pi].type != T_ARG) {
        tex_tok t;
        if (tex_next(c, &t) <= 0 || !tok_eq(&t, &P->v[pi])) {
            tex_error(c, cs->line, cs->col, "use of \\%s does not match its definition",
                      tex_name(c, cs->name));
            ok = 0;
            break;
        }
        pi++;
    }
    while (ok && pi < P->n) {
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
                ok = 0;
            }
        } else {
            /* delimited: read until the delimiter sequence at depth 0 */
            size_t dl = dend - dstart;
            int depth = 0;
            tex_tok t;
            for (;;) {
                if (tex_next(c, &t) <= 0) {
                    tex_error(c, cs->line, cs->col,
                              "end of input while reading a delimited argument of \\%s",
                              tex_name(c, cs->name));
                    ok = 0;
                    break;
                }
                if (t.type == T_BEGIN) depth++;
                else if (t.type == T_END) {
                    if (depth == 0) {
                        tex_error(c, t.line, t.col, "unbalanced '}' in an argument of \\%s",
                                  tex_name(c, cs->name));
                        ok = 0;
                        break;
                    }
                    depth--;
                }
                tl_push(a, t);
                if (a->n >= MAX_TOKENS_PER_ARG) {
                    tex_error(c, cs->line, cs->col, "runaway argument of \\%s",
                              tex_name(c, cs->name));
                    ok = 0;
                    break;
                }
                if (depth == 0 && a->n >= dl) {
                    size_t j;
                    for (j = 0; j < dl; j++)
                        if (!tok_eq(&a->v[a->n - dl + j], &P->v[dstart + j])) break;
                    if (j == dl) { a->n -= dl; break; }
                }
            }
            if (ok) strip_braces(a);
            pi = dend;
        }
        (void)argi;
    }
    if (ok) {
        toklist out = {0};
        size_t need = m->body.n;
        for (size_t i = 0; i < m->body.n; i++)
            if (m->body.v[i].type == T_ARG && m->body.v[i].ch >= 1 && m->body.v[i].ch <= 9)
                need += args[m->body.v[i].ch - 1].n;
        tl_reserve(&out, need);
        for (size_t i = 0; i < m->body.n; i++) {
            tex_tok t = m->body.v[i];
            if (t.type == T_ARG) {
                int k = t.ch;
                if (k >= 1 && k <= 9) tl_append(&out, &args[k - 1]);
                continue;
            }
            if (!m->let_tok) { t.line = cs->line; t.col = cs->col; }
            out.v[out.n++] = t;
        }
        if (out.n) push_owned(c, out.v, out.n);
        else free(out.v);
    }
    for (int i = 0; i < 10; i++) tl_free(&args[i]);
    return ok ? 1 : -1;
}

int tex_next_x(tex_ctx *c, tex_tok *t)
{
    for (;;) {
        if (c->failed) return -1;
        if (!tex_next(c, t)) return 0;
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
