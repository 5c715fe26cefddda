/* let.c — the let path operation (calc library). */
#include "grammar/interp.h"
#include "grammar/pathgrammar.h"
#include "ir/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- let (calc library) ---------------------------------------------------------------
 * "let \p1 = (coord), \n2 = {expr}, \p{name} = ... in" defines, for the rest
 * of the path, \p1 = "Xpt,Ypt" (the point in the picture's coordinates, as
 * TikZ's scanner gives it), \x1 = "Xpt", \y1 = "Ypt", and \n2 = the value of
 * expr ("pt" appended when it has units). The path text is rewritten with
 * the values in place, as TeX would expand them. */
typedef struct { char kind; char name[32]; char val[96]; char xv[48], yv[48]; } let_var;

static int let_word_at(const char *s, size_t n, size_t i, const char *w)
{
    size_t wl = strlen(w);
    if (i + wl > n || memcmp(s + i, w, wl) != 0) return 0;
    if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '\\' || s[i - 1] == '@')) return 0;
    if (i + wl < n && (isalnum((unsigned char)s[i + wl]) || s[i + wl] == '@')) return 0;
    return 1;
}

/* The top-level (outside (), {}, []) position of word w at or after from, or -1. */
static long let_find_word(const char *s, size_t n, size_t from, const char *w)
{
    int depth = 0;
    for (size_t i = from; i < n; i++) {
        char c = s[i];
        if (c == '(' || c == '{' || c == '[') depth++;
        else if ((c == ')' || c == '}' || c == ']') && depth > 0) depth--;
        else if (depth == 0 && let_word_at(s, n, i, w)) return (long)i;
    }
    return -1;
}

/* A let name after \p, \x, \y or \n: one character or {name}; its length in
 * the text, 0 when none. */
static size_t let_name(const char *s, size_t n, char *name, size_t cap)
{
    if (n == 0) return 0;
    if (s[0] == '{') {
        const char *close = memchr(s, '}', n);
        if (!close || (size_t)(close - s - 1) >= cap) return 0;
        snprintf(name, cap, "%.*s", (int)(close - s - 1), s + 1);
        return (size_t)(close - s) + 1;
    }
    if (isspace((unsigned char)s[0])) return 0;
    snprintf(name, cap, "%c", s[0]);
    return 1;
}

/* s[0,n) with the let variables in place; lines follow (each inserted byte
 * gets the line of the \ it replaces). */
static void let_subst(const char *s, size_t n, const int *ln, int line, const let_var *v, int nv,
                      struct tp_buf *out, int **lo, size_t *lcap)
{
    for (size_t i = 0; i < n;) {
        const char *rep = NULL;
        size_t used = 0;
        if (s[i] == '\\' && i + 2 < n + 1 && strchr("pxyn", s[i + 1]) && i + 2 <= n) {
            char name[32];
            size_t k = let_name(s + i + 2, n - i - 2, name, sizeof name);
            for (int j = 0; k && j < nv && !rep; j++) {
                if (strcmp(v[j].name, name) != 0) continue;
                char c = s[i + 1];
                if (v[j].kind == 'p' && c == 'p') rep = v[j].val;
                else if (v[j].kind == 'p' && c == 'x') rep = v[j].xv;
                else if (v[j].kind == 'p' && c == 'y') rep = v[j].yv;
                else if (v[j].kind == 'n' && c == 'n') rep = v[j].val;
            }
            if (rep) used = 2 + k;
        }
        const char *add = rep ? rep : s + i;
        size_t an = rep ? strlen(rep) : 1;
        int li = ln ? ln[i] : line;
        if (out->n + an + 1 > *lcap) {
            *lcap = (out->n + an + 1) * 2;
            *lo = xrealloc(*lo, *lcap * sizeof **lo);
        }
        for (size_t k = 0; k < an; k++) (*lo)[out->n + k] = li;
        tp_buf_add(out, add, an);
        i += rep ? used : 1;
    }
}

/* Returns the rewritten text (and *lines_out, *nout: its length) when
 * text[0,n) has a let operation, else NULL. */
char *tk_expand_let(tikz *T, const char *text, size_t n, const int *lines, int line, int **lines_out,
                        size_t *nout)
{
    /* most paths have no "let" anywhere (text[n] is its NUL) */
    if (!strstr(text, "let")) return NULL;
    long at = let_find_word(text, n, 0, "let");
    if (at < 0) return NULL;
    long in = let_find_word(text, n, (size_t)at + 3, "in");
    int ll = lines ? lines[at] : line;
    if (in < 0) {
        tk_warn(T, ll, "let without 'in'");
        return NULL;
    }
    let_var vars[16];
    int nv = 0;
    const char *a = text + at + 3;
    size_t an = (size_t)(in - at - 3);
    while (an > 0) {
        long comma = tk_find_top(a, an, ',');
        const char *d = a;
        size_t dn = comma >= 0 ? (size_t)comma : an;
        tk_trim(&d, &dn);
        if (dn) {
            char name[32];
            size_t k = dn >= 2 && d[0] == '\\' && (d[1] == 'p' || d[1] == 'n')
                       ? let_name(d + 2, dn - 2, name, sizeof name) : 0;
            const char *eq = k ? memchr(d, '=', dn) : NULL;
            if (!eq || nv >= (int)(sizeof vars / sizeof *vars)) {
                tk_warn(T, ll, "let: cannot read '%.*s' (want \\p1 = (coordinate) or \\n1 = {expression})",
                        (int)(dn > 60 ? 60 : dn), d);
                return NULL;
            }
            /* the right side sees the variables defined before it */
            const char *r = eq + 1;
            size_t rn = dn - (size_t)(eq + 1 - d);
            struct tp_buf rb = { 0 };
            int *rl = NULL;
            size_t rcap = 0;
            let_subst(r, rn, NULL, ll, vars, nv, &rb, &rl, &rcap);
            free(rl);
            const char *rv = rb.s ? rb.s : "";
            size_t rvn = rb.n;
            tk_trim(&rv, &rvn);
            let_var *v = &vars[nv];
            memset(v, 0, sizeof *v);
            v->kind = d[1];
            snprintf(v->name, sizeof v->name, "%s", name);
            int ok;
            if (v->kind == 'p') {
                vec2 u;
                ok = rvn >= 2 && rv[0] == '(' && rv[rvn - 1] == ')' &&
                     tk_coord_user(T, rv + 1, rvn - 2, &u, ll) == 0;
                if (ok) {
                    snprintf(v->xv, sizeof v->xv, "%.5fpt", u.x);
                    snprintf(v->yv, sizeof v->yv, "%.5fpt", u.y);
                    snprintf(v->val, sizeof v->val, "%.5fpt,%.5fpt", u.x, u.y);
                }
            } else {
                double x;
                int hu = 0;
                ok = tk_eval(T, rv, rvn, &x, &hu) == 0;
                if (ok) snprintf(v->val, sizeof v->val, "%.5f%s", x, hu ? "pt" : "");
            }
            if (!ok) {
                tk_warn(T, ll, "let: cannot evaluate '%.*s'", (int)(rvn > 60 ? 60 : rvn), rv);
                free(rb.s);
                return NULL;
            }
            free(rb.s);
            nv++;
        }
        if (comma < 0) break;
        a += comma + 1;
        an -= (size_t)comma + 1;
    }
    struct tp_buf out = { 0 };
    size_t lcap = (size_t)at + 16;
    int *lo = xrealloc(NULL, lcap * sizeof *lo);
    for (long i = 0; i < at; i++) lo[i] = lines ? lines[i] : line;
    tp_buf_add(&out, text, (size_t)at);
    let_subst(text + in + 2, n - (size_t)in - 2, lines ? lines + in + 2 : NULL, line, vars, nv,
              &out, &lo, &lcap);
    if (out.n + 1 > lcap) lo = xrealloc(lo, (out.n + 1) * sizeof *lo);
    lo[out.n] = out.n ? lo[out.n - 1] : line;
    *lines_out = lo;
    *nout = out.n;
    return out.s ? out.s : xstrndup("", 0);
}
