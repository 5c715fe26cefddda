/* textutil.c — small text helpers the TikZ interpreter's parts share:
 * trimming, braces, top-level search, growing text buffers, and a text with
 * its macros expanded. */
#include "grammar/interp.h"
#include "ir/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tk_unbrace(const char **s, size_t *n)
{
    tk_trim(s, n);
    while (*n >= 2 && (*s)[0] == '{' && (*s)[*n - 1] == '}') {
        int depth = 0;
        size_t i;
        for (i = 0; i < *n; i++) {
            if ((*s)[i] == '{') depth++;
            else if ((*s)[i] == '}' && --depth == 0) break;
        }
        if (i != *n - 1) return;
        (*s)++;
        *n -= 2;
        tk_trim(s, n);
    }
}

int tk_next_item(const char *s, size_t n, char sep, size_t *i, const char **it, size_t *in)
{
    if (*i >= n) return 0;
    size_t st = *i, j = *i;
    int depth = 0;
    for (; j < n; j++) {
        char c = s[j];
        if (c == '{' || c == '(' || c == '[') depth++;
        else if ((c == '}' || c == ')' || c == ']') && depth > 0) depth--;
        else if (c == sep && depth == 0) break;
    }
    *it = s + st;
    *in = j - st;
    *i = j + 1;
    tk_trim(it, in);
    return 1;
}

long tk_split_kv(const char *it, size_t in, const char **k, size_t *kn, const char **v, size_t *vn)
{
    long eq = tk_find_top(it, in, '=');
    *k = it;
    *kn = eq < 0 ? in : (size_t)eq;
    tk_trim(k, kn);
    if (eq < 0) {
        *v = NULL;
        *vn = 0;
    } else {
        *v = it + eq + 1;
        *vn = in - (size_t)eq - 1;
        tk_unbrace(v, vn);
    }
    return eq;
}

long tk_find_top(const char *s, size_t n, char ch)
{
    int d = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ch && d == 0) return (long)i;
        if (c == '(' || c == '{' || c == '[') d++;
        else if ((c == ')' || c == '}' || c == ']') && d > 0) d--;
    }
    return -1;
}

void tp_buf_add(struct tp_buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 64;
        while (b->n + n + 1 > nc) nc *= 2;
        b->s = xrealloc(b->s, nc);
        b->cap = nc;
    }
    if (n) memcpy(b->s + b->n, s, n);   /* s may be NULL when n is 0 (no value) */
    b->n += n;
    b->s[b->n] = 0;
}

/* the end of s[i..n) at depth 0 of the first byte in stops, skipping {...},
 * [...], (...) when paren, and "..." */
size_t tk_scan_to(const char *s, size_t i, size_t n, const char *stops, int paren)
{
    int db = 0, dk = 0, dp = 0, q = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (q) { if (c == '"') q = 0; continue; }
        if (c == '{') { db++; continue; }
        if (c == '}') { if (db) db--; continue; }
        if (db) continue;
        if (c == '"') { q = 1; continue; }
        if (c == '[') { dk++; continue; }
        if (c == ']') { if (dk) dk--; continue; }
        if (dk) continue;
        if (paren && c == '(') { dp++; continue; }
        if (paren && c == ')') { if (dp) dp--; continue; }
        if (dp) continue;
        if (strchr(stops, c)) return i;
    }
    return n;
}

static void quotes_addc(struct tp_buf *b, const char *s) { tp_buf_add(b, s, strlen(s)); }

/* the items of s[0..n) for one quote's node: auto (auto=left, right,
 * false) and swap (') are taken into *on, *right and *at (where the node's
 * options had the last auto: its index in out), the others go to out */
static void quotes_items(const char *s, size_t n, struct tp_buf *out, int *on, int *right, long *at)
{
    size_t a = 0;
    while (a < n) {
        size_t z = tk_scan_to(s, a, n, ",", 0);
        const char *w = s + a;
        size_t wn = z - a;
        tk_trim(&w, &wn);
        a = z + 1;
        if (!wn) continue;
        const char *k = w, *v = NULL;
        size_t kn = wn, vn = 0;
        tk_split_kv(w, wn, &k, &kn, &v, &vn);
        if (tk_is(k, kn, "auto")) {
            if (v && tk_is(v, vn, "false")) { *on = 0; continue; }
            if (v && tk_is(v, vn, "right")) *right = 1;
            else if (v && tk_is(v, vn, "left")) *right = 0;
            else if (v && vn) goto keep;
            *on = 1;
            *at = (long)out->n;
            continue;
        }
        if (!v && (tk_is(w, wn, "swap") || tk_is(w, wn, "'"))) { *right = !*right; continue; }
    keep:
        quotes_addc(out, ",");
        tp_buf_add(out, w, wn);
    }
}

int tk_quote_parts(const char *it, size_t in, size_t *tn, const char **rest, size_t *rn)
{
    size_t q = 1;
    while (q < in && it[q] != '"') q++;
    if (!in || it[0] != '"' || q >= in) return -1;
    *tn = q - 1;
    *rest = it + q + 1;
    *rn = in - q - 1;
    tk_trim(rest, rn);
    int swap = *rn && (*rest)[0] == '\'';
    if (swap) { (*rest)++; (*rn)--; }
    tk_unbrace(rest, rn);   /* "text" {options}; trims */
    return swap;
}

void tk_quote_as_node(void *ctx, const char *opts, size_t on, const char *text, size_t tn)
{
    struct tp_buf *nodes = ctx;
    quotes_addc(nodes, " node[");
    tp_buf_add(nodes, opts, on);
    quotes_addc(nodes, "]{");
    tp_buf_add(nodes, text, tn);
    quotes_addc(nodes, "}");
}

void tk_split_quotes(const char *opts, const char *qstyle, struct tp_buf *plain, tk_quote_fn *each,
                     void *ctx)
{
    size_t n = strlen(opts), i = 0;
    while (i <= n) {
        size_t j = tk_scan_to(opts, i, n, ",", 0);
        const char *it = opts + i;
        size_t in = j - i;
        tk_trim(&it, &in);
        size_t tn, rn;
        const char *rest;
        int swap = tk_quote_parts(it, in, &tn, &rest, &rn);
        if (swap >= 0) {
            /* node [every edge quotes, ', options]: every edge quotes is
             * auto, or what edge quotes= (every edge quotes/.style) made
             * it; the auto in force at the end is written where the last
             * auto was, as @AUTOL@ (left) or @AUTOR@ (right) */
            struct tp_buf o = { 0 };
            int on = 0, right = 0;
            long at = -1;
            if (!strcmp(qstyle, "@AUTO@")) quotes_items("auto", 4, &o, &on, &right, &at);
            else quotes_items(qstyle, strlen(qstyle), &o, &on, &right, &at);
            if (swap) right = !right;
            quotes_items(rest, rn, &o, &on, &right, &at);
            const char *os = o.s ? o.s : "";
            size_t cut = on ? (size_t)at : o.n;
            struct tp_buf opt = { 0 };
            tp_buf_add(&opt, os, cut);
            if (on) quotes_addc(&opt, right ? ",@AUTOR@" : ",@AUTOL@");
            tp_buf_add(&opt, os + cut, o.n - cut);
            each(ctx, opt.n ? opt.s + 1 : "", opt.n ? opt.n - 1 : 0, it + 1, tn);
            free(opt.s);
            free(o.s);
        } else if (in) {
            quotes_addc(plain, ",");
            tp_buf_add(plain, it, in);
        }
        i = j + 1;
    }
}

char *tk_expand_text(tikz *T, const char *s, size_t n)
{
    toklist in = { 0 }, out = { 0 };
    tex_tokenize(T->tex, s, n, T->cmd_line, &in);
    tex_tok sen = { T_OTHER, -2, ++T->sentinel_id, 0, 0 };
    int id = sen.name;
    tl_push(&in, sen);
    tex_push_list(T->tex, &in);
    tex_tok t;
    while (tex_next_x(T->tex, &t) > 0) {
        if (t.type == T_OTHER && t.ch == -2 && t.name == id) break;
        tl_push(&out, t);
    }
    char *r = tex_to_text(T->tex, &out, 0, out.n, NULL);
    tl_free(&in);
    tl_free(&out);
    return r;
}
