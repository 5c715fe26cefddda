/* pgfuser.c — pgfmath functions the document declares (\pgfmathdeclarefunction and TikZ's
 * declare function key), expanded into the expressions that call them before pgfmath
 * evaluates them.
 *
 * A call f(a,b) of a function declared f(\x,\y) = body becomes ((body with each parameter
 * replaced by (a) and (b))): pgf evaluates the arguments first and the body with the
 * parameters set to their values, which gives the same number (the arguments are
 * parenthesized, so precedence holds). Expansion repeats for calls inside bodies up to
 * UFN_MAX_PASSES times and UFN_MAX_LEN bytes (a function calling itself ends there, with
 * an error). */
#include "grammar/interp.h"
#include "ir/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UFN_MAX_PASSES 32
#define UFN_MAX_LEN 16384
#define UFN_MAX 1000

struct tk_ufn {
    char *name;
    int nargs;
    char *params[9];          /* "\x" or "#1" */
    char *body;               /* NULL: a body tikz2ir cannot evaluate */
    int level;                /* the expander's group depth it was declared at: pgf's
                                 declaration is a \def, local to that group */
};

static int ident_char(char c, int first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

static void ufn_clear(struct tk_ufn *f)
{
    free(f->name);
    for (int k = 0; k < f->nargs; k++) free(f->params[k]);
    free(f->body);
}

void tk_ufn_free(tikz *T)
{
    for (size_t i = 0; i < T->nufn; i++) ufn_clear(&T->ufn[i]);
    free(T->ufn);
    T->ufn = NULL;
    T->nufn = T->capufn = 0;
}

/* A TeX group ended (depth groups still open): the functions declared in it
 * go, and those they shadowed are back. Levels along T->ufn never decrease
 * (as T->styles'), so they are the top of the array. */
void tk_ufn_group_end(tikz *T, int depth)
{
    while (T->nufn > 0 && T->ufn[T->nufn - 1].level > depth) ufn_clear(&T->ufn[--T->nufn]);
}

static struct tk_ufn *ufn_find(tikz *T, const char *s, size_t n)
{
    for (size_t i = T->nufn; i-- > 0;)
        if (strlen(T->ufn[i].name) == n && memcmp(T->ufn[i].name, s, n) == 0) return &T->ufn[i];
    return NULL;
}

/* Declares (or redeclares) name with nargs parameters; params (nargs texts) or NULL for
   #1..#n; body NULL when it cannot be evaluated. 0, or -1 when there are too many. */
int tk_ufn_declare(tikz *T, const char *name, size_t nn, int nargs, const char *const *params,
                   const size_t *plen, const char *body, size_t bn)
{
    tk_trim(&name, &nn);
    if (nn == 0 || nargs < 0 || nargs > 9) return -1;
    for (size_t i = 0; i < nn; i++)
        if (!ident_char(name[i], i == 0)) return -1;
    struct tk_ufn *f = ufn_find(T, name, nn);
    int level = tk_group_depth(T);
    if (!f || f->level != level) {   /* new, or shadowing one of an enclosing group */
        if (T->nufn >= UFN_MAX) return -1;
        if (T->nufn == T->capufn) {
            T->capufn = T->capufn ? 2 * T->capufn : 8;
            T->ufn = xrealloc(T->ufn, T->capufn * sizeof *T->ufn);
        }
        f = &T->ufn[T->nufn++];
        memset(f, 0, sizeof *f);
        f->name = xstrndup(name, nn);
        f->level = level;
    } else {
        for (int k = 0; k < f->nargs; k++) free(f->params[k]);
        free(f->body);
        f->body = NULL;
    }
    f->nargs = nargs;
    for (int k = 0; k < nargs; k++) {
        if (params) {
            const char *p = params[k];
            size_t pl = plen[k];
            tk_trim(&p, &pl);
            f->params[k] = xstrndup(p, pl);
        } else {
            char b[4] = { '#', (char)('1' + k), 0, 0 };
            f->params[k] = xstrndup(b, 2);
        }
    }
    if (body) {
        tk_trim(&body, &bn);
        f->body = xstrndup(body, bn);
    }
    return 0;
}

/* declare function={f(\x)=\x^2; g(\x,\y)=\x+\y;}: 0, or -1 for a malformed one */
int tk_ufn_declare_key(tikz *T, const char *v, size_t vn)
{
    tk_unbrace(&v, &vn);
    size_t i = 0;
    int bad = 0;
    const char *it;
    size_t in;
    while (tk_next_item(v, vn, ';', &i, &it, &in)) {
        if (in == 0) continue;
        long eq = tk_find_top(it, in, '=');
        if (eq <= 0) { bad = 1; continue; }
        const char *lhs = it, *rhs = it + eq + 1;
        size_t ln = (size_t)eq, rn = in - (size_t)eq - 1;
        tk_trim(&lhs, &ln);
        const char *par = memchr(lhs, '(', ln);
        const char *pv[9];
        size_t pl[9];
        int np = 0;
        size_t nmlen = ln;
        if (par) {
            nmlen = (size_t)(par - lhs);
            if (lhs[ln - 1] != ')') { bad = 1; continue; }
            const char *a = par + 1, *e = lhs + ln - 1;
            const char *t = a;
            while (t < e && tk_space((unsigned char)*t)) t++;
            if (t < e) {
                for (;;) {
                    const char *c = memchr(a, ',', (size_t)(e - a));
                    const char *end = c ? c : e;
                    if (np == 9) { bad = 1; break; }
                    pv[np] = a;
                    pl[np] = (size_t)(end - a);
                    np++;
                    if (!c) break;
                    a = c + 1;
                }
            }
        }
        if (bad) continue;
        tk_unbrace(&rhs, &rn);
        if (tk_ufn_declare(T, lhs, nmlen, np, pv, pl, rhs, rn) != 0) bad = 1;
    }
    return bad ? -1 : 0;
}

struct sbuf { char *s; size_t n, cap; };

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

/* the body with each parameter replaced by (argument) */
static void subst_body(struct sbuf *o, const struct tk_ufn *f, const char *const *av,
                       const size_t *al)
{
    const char *b = f->body;
    size_t n = strlen(b), i = 0;
    sb_add(o, "(", 1);
    while (i < n) {
        int hit = -1;
        size_t hl = 0;
        for (int k = 0; k < f->nargs; k++) {
            size_t pl = strlen(f->params[k]);
            if (pl && i + pl <= n && memcmp(b + i, f->params[k], pl) == 0) {
                /* \x is not the start of \xa; #1 is whole */
                if (f->params[k][0] == '\\' && i + pl < n && ident_char(b[i + pl], 1)) continue;
                if (pl > hl) { hit = k; hl = pl; }
            }
        }
        if (hit >= 0) {
            sb_add(o, "(", 1);
            sb_add(o, av[hit], al[hit]);
            sb_add(o, ")", 1);
            i += hl;
        } else {
            sb_add(o, b + i, 1);
            i++;
        }
    }
    sb_add(o, ")", 1);
}

/* One pass over s[0,n): 1 when a call was expanded (the result in *o), 0 when none, -1
   with why set on an error. *dyn is set when a random function is named. */
static int expand_pass(tikz *T, const char *s, size_t n, struct sbuf *o, int *dyn,
                       const char **why)
{
    size_t i = 0, copied = 0;
    int changed = 0;
    while (i < n) {
        char c = s[i];
        if (c == '\\') {   /* a control sequence: its name is not a function */
            size_t st0 = ++i;
            while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))) i++;
            if (i == st0 && i < n) i++;
            continue;
        }
        if (!ident_char(c, 1) || (i > 0 && (ident_char(s[i - 1], 0) || s[i - 1] == '.'))) {
            i++;
            continue;
        }
        size_t st = i;
        while (i < n && ident_char(s[i], 0)) i++;
        size_t nl = i - st;
        if ((nl == 3 && !memcmp(s + st, "rnd", 3)) || (nl == 4 && !memcmp(s + st, "rand", 4)) ||
            (nl == 6 && !memcmp(s + st, "random", 6)))
            *dyn = 1;
        if (!T->nufn) continue;
        struct tk_ufn *f = ufn_find(T, s + st, nl);
        if (!f) continue;
        /* its arguments */
        const char *av[9];
        size_t al[9];
        int na = 0;
        size_t j = i;
        while (j < n && tk_space((unsigned char)s[j])) j++;
        size_t end = i;
        if (j < n && s[j] == '(') {
            size_t a = j + 1, k = j + 1;
            int d = 0;
            for (; k < n; k++) {
                if (s[k] == '(' || s[k] == '{') d++;
                else if ((s[k] == ')' || s[k] == '}') && d > 0) d--;
                else if (s[k] == ')' && d == 0) break;
                else if (s[k] == ',' && d == 0) {
                    if (na == 9) { *why = "more than 9 arguments"; return -1; }
                    av[na] = s + a; al[na] = k - a; na++;
                    a = k + 1;
                }
            }
            if (k >= n) { *why = "unbalanced parentheses in a function call"; return -1; }
            const char *lastp = s + a;
            size_t lastn = k - a;
            tk_trim(&lastp, &lastn);
            if (na > 0 || lastn > 0) {
                if (na == 9) { *why = "more than 9 arguments"; return -1; }
                av[na] = s + a; al[na] = k - a; na++;
            }
            end = k + 1;
        } else if (f->nargs > 0) {
            /* pgf also reads f 3 (one argument without parentheses): not here */
            *why = "a declared function called without parentheses";
            return -1;
        }
        if (na != f->nargs) { *why = "a declared function called with the wrong number of arguments"; return -1; }
        if (!f->body) { *why = "a declared function whose body is not \\pgfmathparse{...}"; return -1; }
        sb_add(o, s + copied, st - copied);
        subst_body(o, f, av, al);
        copied = end;
        i = end;
        changed = 1;
        if (o->n > UFN_MAX_LEN) { *why = "declared functions expand too far"; return -1; }
    }
    if (changed) sb_add(o, s + copied, n - copied);
    return changed;
}

int tk_ufn_expand(tikz *T, const char *s, size_t n, char **out, size_t *outn, int *dyn,
                  const char **why)
{
    *out = NULL;
    *dyn = 0;
    char *cur = NULL;
    for (int pass = 0; pass < UFN_MAX_PASSES; pass++) {
        struct sbuf o = { 0 };
        int r = expand_pass(T, cur ? cur : s, cur ? strlen(cur) : n, &o, dyn, why);
        if (r < 0) { free(o.s); free(cur); return -1; }
        if (r == 0) {
            free(o.s);
            if (cur) { *out = cur; *outn = strlen(cur); }
            return 0;
        }
        free(cur);
        cur = o.s;
    }
    free(cur);
    *why = "declared functions nested more than 32 deep (a function calling itself?)";
    return -1;
}
