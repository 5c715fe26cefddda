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
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
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
