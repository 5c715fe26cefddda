/* Unit test for grammar/texexp.c's expansion of macros whose bodies take
 * arguments: the expander reads the literal pieces of such a body in place
 * and copies only the arguments (one input level of several pieces); the
 * reference (tex_set_copying_expansion on) copies the whole body with the
 * arguments substituted. Two expanders get the same random input and the
 * same random sequence of reads (tex_next_x, tex_next, statements, optional
 * and plain arguments; the reference reads statements token by token and
 * optional arguments as a token list),
 * tokens pushed back (the one just read, or another:
 * a piece read in place is then copied), redefinitions of macros while
 * their bodies are being read, and runaway macros (depth, expansion and
 * token bounds). Everything they return must agree: tokens with their
 * line/col, texts, per-byte lines, errors and their positions, the current
 * line. */
#include "grammar/texexp_internal.h"
#include "ref_statement.h"
#include "xorshift.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long checks, failures;
static long nerr[4];   /* errors seen: depth, tokens, expansions, others */

static void check(int ok, const char *what, unsigned long iter, int step)
{
    checks++;
    if (!ok) {
        failures++;
        if (failures < 20) printf("test_texexp_runs: case %lu step %d: %s differs\n", iter, step, what);
    }
}

static const char *const pieces[] = {
    "a", "b", "xy", " ", "\n", "(", ")", "--", ";", ";", "{", "}", "[", "]", "1", ",", "=",
    "\\m", "\\n{z}", "\\n{\\m}", "\\n q", "\\n{}", "\\t{a}{bc}", "\\t{}{}", "\\t x{y}",
    "\\d 1.", "\\d{a.}.", "\\d.", "\\e{p}", "\\s{u}v", "\\w{1}{2}{3}", "\\k", "\\foo",
    "\\begin", "\\end", "$", "~", "#", "%c\n", "\\n{\\t{a}{\\m}}", "\\e{abcdefghijklmnopq}", "\\L", "\\L;", "\\n{\\L}", "\\O", "\\n{\\O}",
    /* conditionals: branches skipped in place or in copies, \relax put
     * back before a \fi inside a condition, errors (an extra \fi) */
    "\\iftrue ", "\\iffalse ", "\\else ", "\\fi ", "\\ifnum 1<\\n{2} x\\fi",
    "\\ifnum 1=1\\fi", "\\ifx\\m\\n", "\\iffalse\\L\\else\\O\\fi", "\\c{3}",
};

static void rand_text(uint64_t *s, char *buf, size_t cap, int maxp)
{
    size_t n = 0, k = xorshift64(s) % (unsigned)maxp;
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
        if (l->v[i].type == T_PARAM && i + 1 < l->n && l->v[i + 1].ch >= '0' && l->v[i + 1].ch <= '9') {
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

static void define(tex_ctx *c, const char *name, const char *params, int np, const char *body, int global)
{
    toklist p = { 0 }, b = { 0 };
    tex_tokenize(c, params, strlen(params), 0, &p);
    tex_tokenize(c, body, strlen(body), 0, &b);
    to_args(&p);
    to_args(&b);
    tex_define(c, tex_intern(c, name, strlen(name)), &p, np, &b, NULL, global);
    tl_free(&p);
    tl_free(&b);
}

/* macros with arguments in every arrangement the body can have them */
static const char *const bodies[] = {
    "#1", "a#1b", "#1#1", "#2#1", "{#1}x#2", "\\m#1;", "#1\\m", "(#1,#2)--", "#0#1#9", "[#1]",
    "#1 #1y", "#2", "x#2y#1z", "\\n{#1}", "{#1}", "#1;#1", "\\n{#2}#1",
    /* long literal pieces (the statement reader's cached plain runs) */
    "(0,0) -- (1,1) -- (2,2) -- #1 (3,3) -- cycle", "#1 node[a=b] {text} -- (4,5) -- ++(1,0) |- (0,0);",
};

/* a body for macro name with np parameters (\n's never calls itself: the
 * runaway macros are rare, set up apart) */
static const char *pick_body(uint64_t *s, const char *name, int np)
{
    if (!np) return "q\\n{r}s";
    const char *b = bodies[xorshift64(s) % (sizeof bodies / sizeof *bodies)];
    if (np < 2 && strchr(b, '2')) b = "#1.#1";
    if (strcmp(name, "n") == 0 && strstr(b, "\\n")) b = "#1?#1";
    return b;
}

static void setup(tex_ctx *c, uint64_t *s)
{
    define(c, "m", "", 0, "(1,2)--", 1);
    for (int i = 0; i < 6; i++) {
        static const char *const names[] = { "n", "t", "e", "s", "w", "k" };
        static const char *const params[] = { "#1", "#1#2", "#1", "#1#2", "#1#2#3", "" };
        static const int np[] = { 1, 2, 1, 2, 3, 0 };
        define(c, names[i], params[i], np[i], pick_body(s, names[i], np[i]), 1);
    }
    define(c, "d", "#1.", 1, "<#1>", 1);   /* delimited */
    define(c, "c", "#1", 1, "\\ifnum#1<2 (0,#1)\\else\\ifodd#1 \\m\\fi\\n{#1}\\fi", 1); /* conditionals */
    define(c, "O", "", 0, "[draw=red, line width=2pt; fill=blue!20, \\m x=1cm] a {b]} c] d;", 1);
    define(c, "L", "", 0, "(0,0) rectangle (1,1) -- (2,2) node {x;y} -- (3,3); (5,5) \\m -- (4,4) {a}b", 1);
    if (xorshift64(s) % 61 == 0) define(c, "k", "", 0, "\\n{\\k}", 1);          /* depth */
    if (xorshift64(s) % 61 == 0) define(c, "e", "#1", 1, "#1#1#1#1\\e{#1}", 1); /* tokens */
    if (xorshift64(s) % 61 == 0) define(c, "s", "#1#2", 2, "#2\\s{#1}{#2}", 1); /* expansions */
    tex_group_begin(c);
}

/* tex_read_arg without expansion, token by token (the reference for its
 * fast path) */
static int ref_read_arg(tex_ctx *c, toklist *out)
{
    tex_tok t;
    int r;
    do r = tex_next(c, &t);
    while (r > 0 && t.type == T_SPACE);
    if (r <= 0) return r;
    if (t.type == T_END) {
        tex_error(c, t.line, t.col, "argument expected, found '}'");
        return -1;
    }
    if (t.type != T_BEGIN) {
        tl_push(out, t);
        return 1;
    }
    int depth = 1, line = t.line, col = t.col;
    for (;;) {
        if (tex_next(c, &t) <= 0) {
            tex_error(c, line, col, "unbalanced braces: end of input inside a group opened here");
            return -1;
        }
        if (t.type == T_BEGIN) depth++;
        else if (t.type == T_END && --depth == 0) return 1;
        tl_push(out, t);
    }
}

static int same_tok(const tex_tok *a, const tex_tok *b)
{
    return a->type == b->type && a->ch == b->ch && a->name == b->name && a->line == b->line &&
           a->col == b->col;
}

static void same_state(tex_ctx *a, tex_ctx *r, unsigned long iter, int step)
{
    check(tex_failed(a) == tex_failed(r), "error state", iter, step);
    check(strcmp(tex_error_msg(a), tex_error_msg(r)) == 0, "error message", iter, step);
    check(tex_error_line(a) == tex_error_line(r) && tex_error_col(a) == tex_error_col(r),
          "error position", iter, step);
    check(tex_cur_line(a) == tex_cur_line(r), "current line", iter, step);
}

int main(void)
{
    uint64_t seed = 0x2545f4914f6cdd1dull;
    char buf[4][600];
    for (unsigned long iter = 0; iter < 3000; iter++) {
        tex_ctx *a = tex_new(), *r = tex_new();
        tex_set_copying_expansion(r, 1);
        uint64_t s1 = seed, s2 = seed;
        setup(a, &s1);
        setup(r, &s2);
        seed = s1;
        int nlev = 1 + (int)(xorshift64(&seed) % 3);
        for (int l = 0; l < nlev; l++) {
            rand_text(&seed, buf[l], sizeof buf[l], 60);
            int line = 1 + (int)(xorshift64(&seed) % 5) * (l + 1);
            tex_push_text(a, buf[l], strlen(buf[l]), line);
            tex_push_text(r, buf[l], strlen(buf[l]), line);
        }
        tex_reset_budget(a);
        tex_reset_budget(r);
        tex_tok last = { T_OTHER, 'z', 0, 0, 0 };
        for (int step = 0; step < 400; step++) {
            unsigned op = (unsigned)(xorshift64(&seed) % 100);
            if (op < 45) {
                tex_tok x, y;
                int raw = op < 8;
                int xa = raw ? tex_next(a, &x) : tex_next_x(a, &x);
                int xr = raw ? tex_next(r, &y) : tex_next_x(r, &y);
                check(xa == xr, "next token status", iter, step);
                if (xa > 0 && xr > 0) {
                    check(same_tok(&x, &y), "next token", iter, step);
                    last = x;
                }
            } else if (op < 60) {
                /* push back: the token just read, or another one */
                tex_tok t = last;
                unsigned k = (unsigned)(xorshift64(&seed) % 4);
                if (k == 1) { t.type = T_OTHER; t.ch = -2; t.name = 7; }
                else if (k == 2) t.line++;
                else if (k == 3) { t.type = T_LETTER; t.ch = 'Q'; }
                tex_push_tok(a, t);
                tex_push_tok(r, t);
            } else if (op < 72) {
                /* the reference reads token by token */
                char *ta, *tr;
                int *la, *lr;
                const char *prefix = step % 2 ? "node " : "";
                int ra = tex_read_statement(a, prefix, 3, &ta, &la);
                int rr = ref_statement(r, prefix, 3, &tr, &lr);
                check(ra == rr, "statement status", iter, step);
                if (ra >= 0 && rr >= 0) {
                    int same = strcmp(ta, tr) == 0;
                    check(same, "statement text", iter, step);
                    if (same) check(memcmp(la, lr, (strlen(ta) + 1) * sizeof *la) == 0, "lines", iter, step);
                    free(tr);
                    free(lr);
                }
            } else if (op < 80) {
                /* the reference: tex_read_opt, then tex_to_text */
                int pa, pr;
                const char *oa = tex_read_opt_text(a, &pa);
                toklist l = { 0 };
                pr = tex_read_opt(r, &l, 1) > 0;
                char *orf = tex_to_text(r, &l, 0, l.n, NULL);
                check(pa == pr && strcmp(oa, orf) == 0, "optional argument", iter, step);
                free(orf);
                tl_free(&l);
            } else if (op < 84) {
                toklist la = { 0 }, lr = { 0 };
                int ra = tex_read_arg(a, &la, 0), rr = ref_read_arg(r, &lr);
                check(ra == rr && la.n == lr.n, "argument status", iter, step);
                for (size_t i = 0; i < la.n && i < lr.n; i++)
                    if (!same_tok(&la.v[i], &lr.v[i])) { check(0, "argument token", iter, step); break; }
                tl_free(&la);
                tl_free(&lr);
            } else if (op < 88) {
                int ex = (int)(xorshift64(&seed) % 2);
                const char *aa = tex_read_arg_text(a, ex);
                const char *ar = tex_read_arg_text(r, ex);
                check((aa == NULL) == (ar == NULL), "argument presence", iter, step);
                if (aa && ar) check(strcmp(aa, ar) == 0, "argument text", iter, step);
            } else if (op < 93) {
                /* redefine a macro (its body may be being read) */
                static const char *const names[] = { "n", "t", "m", "w" };
                static const char *const params[] = { "#1", "#1#2", "", "#1#2#3" };
                static const int np[] = { 1, 2, 0, 3 };
                unsigned i = (unsigned)(xorshift64(&seed) % 4);
                const char *b = pick_body(&seed, names[i], np[i]);
                int global = (int)(xorshift64(&seed) % 2);
                define(a, names[i], params[i], np[i], b, global);
                define(r, names[i], params[i], np[i], b, global);
            } else if (op < 96) {
                if (xorshift64(&seed) % 2) { tex_group_begin(a); tex_group_begin(r); }
                else { tex_group_end(a); tex_group_end(r); }
            } else {
                char t[200];
                rand_text(&seed, t, sizeof t, 8);
                int line = (int)(xorshift64(&seed) % 9);
                tex_push_text(a, t, strlen(t), line);
                tex_push_text(r, t, strlen(t), line);
            }
            same_state(a, r, iter, step);
            if (tex_failed(a) || tex_failed(r)) {
                const char *m = tex_error_msg(a);
                nerr[strstr(m, "levels deep") ? 0 : strstr(m, "tokens (runaway") ? 1 :
                     strstr(m, "macro expansions") ? 2 : 3]++;
                break;
            }
        }
        tex_free(a);
        tex_free(r);
    }
    printf("test_texexp_runs: %ld checks, %ld failures (errors: %ld depth, %ld tokens, %ld expansions, %ld other)\n",
           checks, failures, nerr[0], nerr[1], nerr[2], nerr[3]);
    return failures != 0;
}
