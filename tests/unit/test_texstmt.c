/* Unit test for grammar/texexp.c's tex_read_statement (and
 * tex_read_opt_text and tex_read_arg_text, against tex_read_opt or
 * tex_read_arg + tex_to_text): its fast path (runs of
 * tokens taken straight from the input level, their text written at once)
 * must give what the interpreter's token loop gave before it: tex_next_x per
 * token up to ';' at brace depth 0 (or '}' / \begin / \end at depth 0 or a
 * sentinel, pushed back), then tex_to_text_ex of the tokens. Two expanders
 * get the same random input (texts with macros with and without arguments,
 * nested input levels, sentinels); one reads statements with
 * tex_read_statement, the other with that reference loop. Return values,
 * texts, per-byte lines, errors, the current line and the tokens left over
 * must all agree. */
#include "grammar/texexp.h"
#include "ref_statement.h"
#include "xorshift.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long checks, failures;

static void check(int ok, const char *what, unsigned long iter)
{
    checks++;
    if (!ok) {
        failures++;
        if (failures < 20) printf("test_texstmt: case %lu: %s differs\n", iter, what);
    }
}

/* tex_read_opt_text's reference: tex_read_opt, then tex_to_text. */
static char *ref_opt(tex_ctx *c, int *present)
{
    toklist l = { 0 };
    *present = tex_read_opt(c, &l, 1) > 0;
    char *s = tex_to_text(c, &l, 0, l.n, NULL);
    tl_free(&l);
    return s;
}

static const char *const pieces[] = {
    "[", "[", "]", "[a=b]", "[x\\m]", " [", "\\o", "\\o",
    "a", "b", "xy", " ", "\n", "  ", "(", ")", "--", "-- ", ";", ";", "{", "}", "[", "]",
    "1", ".5", ",", "=", "\\m", "\\m ", "\\mm", "\\n{z}", "\\n{\\m}", "\\n q", "\\p(1)",
    "\\q", "\\foo", "\\foo a", "\\begin", "\\end", "\\,", "\\\\", "$", "~", "#", "%c\n",
    "\\p x", "{;}", "x;y", "\\n", "\\n}",
};

static void rand_text(uint64_t *s, char *buf, size_t cap)
{
    size_t n = 0, k = xorshift64(s) % 40;
    buf[0] = 0;
    for (size_t i = 0; i < k; i++) {
        const char *p = pieces[xorshift64(s) % (sizeof pieces / sizeof *pieces)];
        size_t l = strlen(p);
        if (n + l + 1 >= cap) break;
        memcpy(buf + n, p, l);
        n += l;
        buf[n] = 0;
    }
}

/* #n in a tokenized body or parameter text become T_ARG tokens */
static void to_args(toklist *l)
{
    size_t o = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i].type == T_PARAM && i + 1 < l->n && l->v[i + 1].ch >= '1' && l->v[i + 1].ch <= '9') {
            tex_tok a = l->v[i];
            a.type = T_ARG;
            a.ch = l->v[i + 1].ch - '0';
            l->v[o++] = a;
            i++;
            continue;
        }
        l->v[o++] = l->v[i];
    }
    l->n = o;
}

static void define(tex_ctx *c, const char *name, const char *params, int np, const char *body)
{
    toklist p = { 0 }, b = { 0 };
    tex_tokenize(c, params, strlen(params), 0, &p);
    tex_tokenize(c, body, strlen(body), 0, &b);
    to_args(&p);
    to_args(&b);
    tex_define(c, tex_intern(c, name, strlen(name)), &p, np, &b, NULL, 0);
    tl_free(&p);
    tl_free(&b);
}

static void setup(tex_ctx *c)
{
    define(c, "m", "", 0, "(1,2)--");
    define(c, "mm", "", 0, "\\m\\m x");
    define(c, "n", "#1", 1, "#1 #1y");
    define(c, "p", "(#1)", 1, "{#1};");
    define(c, "q", "", 0, "\\end");
    define(c, "o", "", 0, "[\\n]a]");
    tex_group_begin(c);
}

int main(void)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    char buf[4][400];
    for (unsigned long iter = 0; iter < 30000; iter++) {
        tex_ctx *a = tex_new(), *r = tex_new();
        setup(a);
        setup(r);
        int nlev = 1 + (int)(xorshift64(&seed) % 4);
        int sent = (int)(xorshift64(&seed) % 3);
        for (int l = 0; l < nlev; l++) {
            rand_text(&seed, buf[l], sizeof buf[l]);
            int line = 1 + (int)(xorshift64(&seed) % 5) * (l + 1);
            if (l == 1 && sent) {
                tex_tok sn = { T_OTHER, -2, 7, 0, 0 };
                tex_push_tok(a, sn);
                tex_push_tok(r, sn);
            }
            tex_push_text(a, buf[l], strlen(buf[l]), line);
            tex_push_text(r, buf[l], strlen(buf[l]), line);
        }
        tex_reset_budget(a);
        tex_reset_budget(r);
        const char *prefix = xorshift64(&seed) % 3 == 0 ? "node " : "";
        for (int st = 0; st < 6; st++) {
            if (xorshift64(&seed) % 3 == 0) {
                int pa, pr;
                const char *oa = tex_read_opt_text(a, &pa);
                char *orf = ref_opt(r, &pr);
                check(pa == pr, "opt present", iter);
                check(strcmp(oa, orf) == 0, "opt text", iter);
                check(tex_failed(a) == tex_failed(r), "opt error state", iter);
                check(strcmp(tex_error_msg(a), tex_error_msg(r)) == 0, "opt error message", iter);
                check(tex_error_line(a) == tex_error_line(r) && tex_error_col(a) == tex_error_col(r),
                      "opt error position", iter);
                check(tex_cur_line(a) == tex_cur_line(r), "opt current line", iter);
                free(orf);
                if (tex_failed(a) || tex_failed(r)) break;
            }
            if (xorshift64(&seed) % 4 == 0) {
                int ex = (int)(xorshift64(&seed) % 2);
                const char *aa = tex_read_arg_text(a, ex);
                toklist l = { 0 };
                int rr2 = tex_read_arg(r, &l, ex);
                char *ar = rr2 > 0 ? tex_to_text(r, &l, 0, l.n, NULL) : NULL;
                check((aa == NULL) == (ar == NULL), "arg presence", iter);
                if (aa && ar) check(strcmp(aa, ar) == 0, "arg text", iter);
                check(tex_failed(a) == tex_failed(r), "arg error state", iter);
                free(ar);
                tl_free(&l);
                if (tex_failed(a) || tex_failed(r)) break;
            }
            char *ta = NULL, *tr = NULL;
            int *la = NULL, *lr = NULL;
            int ra = tex_read_statement(a, prefix, 3, &ta, &la);
            int rr = ref_statement(r, prefix, 3, &tr, &lr);
            check(ra == rr, "return value", iter);
            check(tex_failed(a) == tex_failed(r), "error state", iter);
            check(strcmp(tex_error_msg(a), tex_error_msg(r)) == 0, "error message", iter);
            check(tex_error_line(a) == tex_error_line(r) && tex_error_col(a) == tex_error_col(r),
                  "error position", iter);
            check(tex_cur_line(a) == tex_cur_line(r), "current line", iter);
            if (ra >= 0 && rr >= 0) {
                int same = strcmp(ta, tr) == 0;
                check(same, "text", iter);
                if (same) check(memcmp(la, lr, (strlen(ta) + 1) * sizeof *la) == 0, "lines", iter);
                free(tr);
                free(lr);
            }
            if (ra < 0 || rr < 0) break;
            /* what stops a statement is left for the interpreter: skip it */
            tex_tok x, y;
            int xa = tex_next_x(a, &x), xr = tex_next_x(r, &y);
            check(xa == xr, "next token", iter);
            if (xa > 0 && xr > 0)
                check(x.type == y.type && x.ch == y.ch && x.name == y.name && x.line == y.line &&
                      x.col == y.col, "next token", iter);
            if (xa <= 0 || xr <= 0) break;
        }
        tex_free(a);
        tex_free(r);
    }
    printf("test_texstmt: %ld checks, %ld failures\n", checks, failures);
    return failures != 0;
}
