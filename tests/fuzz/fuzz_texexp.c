/* fuzz_texexp.c — fuzz harness for the TeX tokenizer and macro expander
 * alone (grammar/texexp.h), without the TikZ interpreter.
 *
 * The input is tokenized and pulled through tex_next_x by a tiny
 * interpreter that knows just enough to reach every entry point:
 *   \def \gdef \edef  (parameter text with #n and delimiters, via tex_define)
 *   \let              (with or without =, via tex_let)
 *   \optdef\name{default}{body}  (a macro with an optional first argument)
 *   \textdef\name{text}          (tex_define_text)
 *   \arg \xarg \opt \xopt        (tex_read_arg / tex_read_opt, raw or expanding)
 *   \skip                        (tex_skip_spaces)
 *   \begingroup \endgroup, { }   (tex_group_begin / tex_group_end)
 *   \newif                       (tex_newif; the conditionals themselves,
 *                                 \ifnum ... \else ... \fi, are the expander's)
 * Everything else is collected and turned back into text (tex_to_text).
 * Contract checks (abort on violation): tex_next_x returns -1 only with
 * tex_failed() set and a non-empty message; tokens carry line >= 0 and
 * col >= 0 and lines no greater than the input's; tex_to_text's line map
 * covers its text; a failed context stays failed; the run ends (bounded
 * work: the expander's own limits, plus a cap on collected tokens here). */
#include "grammar/texexp.h"
#include "grammar/interp.h"   /* tk_params_to_args, as the interpreter runs it */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#define HARNESS "fuzz_texexp"

static const uint8_t *cur_data;
static size_t cur_size;

static void die(const char *what)
{
    fprintf(stderr, "fuzz_texexp: %s\ninput (%zu bytes): %.*s\n", what, cur_size,
            (int)(cur_size > 400 ? 400 : cur_size), (const char *)cur_data);
    abort();
}

static void do_def(tex_ctx *c, int global, int expand)
{
    tex_tok name, t;
    if (tex_next(c, &name) <= 0 || name.type != T_CS) return;
    toklist params = {0}, body = {0};
    int nparams = 0;
    for (;;) {
        if (tex_next(c, &t) <= 0) { tl_free(&params); return; }
        if (t.type == T_BEGIN) break;
        tl_push(&params, t);
        if (params.n > 10000) { tl_free(&params); return; }
    }
    tex_push_tok(c, t);
    tk_params_to_args(&params);
    for (size_t i = 0; i < params.n; i++) {
        if (params.v[i].type != T_ARG) continue;
        /* TeX requires #1 #2 ... in order; keep what the interpreter keeps */
        nparams++;
    }
    if (nparams <= 9 && tex_read_arg(c, &body, expand) > 0) {
        tk_params_to_args(&body);
        tex_define(c, name.name, &params, nparams, &body, NULL, global);
    }
    tl_free(&params);
    tl_free(&body);
}

static void do_optdef(tex_ctx *c)
{
    tex_tok name;
    if (tex_next(c, &name) <= 0 || name.type != T_CS) return;
    toklist def = {0}, body = {0};
    if (tex_read_arg(c, &def, 0) > 0 && tex_read_arg(c, &body, 0) > 0) {
        tk_params_to_args(&body);
        toklist params = {0};
        tex_tok a = { T_ARG, 2, 0, name.line, name.col };
        tl_push(&params, a);
        tex_define(c, name.name, &params, 1, &body, &def, 0);
        tl_free(&params);
    }
    tl_free(&def);
    tl_free(&body);
}

static void check_tok(const tex_tok *t, size_t nlines)
{
    if (t->line < 0 || t->col < 0) die("token with a negative line or column");
    if ((size_t)t->line > nlines) die("token line beyond the input");
    if (t->type < T_CS || t->type > T_ARG) die("token of an unknown type");
}

#include "tests/fuzz/watchdog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cur_data = data;
    cur_size = size;
    watchdog_arm(1);
    size_t nlines = 1;
    for (size_t i = 0; i < size; i++) nlines += data[i] == '\n';

    tex_ctx *c = tex_new();
    toklist in = {0}, out = {0}, tmp = {0};
    tex_tokenize(c, (const char *)data, size, 1, &in);
    for (size_t i = 0; i < in.n; i++) check_tok(&in.v[i], nlines);
    tex_push_list(c, &in);
    tl_free(&in);

    tex_tok t;
    long steps = 0;
    for (;;) {
        int r = tex_next_x(c, &t);
        if (r < 0) {
            if (!tex_failed(c)) die("tex_next_x returned -1 without an error");
            if (!tex_error_msg(c)[0]) die("an error without a message");
            if (tex_error_line(c) < 0 || tex_error_col(c) < 0) die("an error with a negative position");
            if (tex_next_x(c, &t) != -1) die("a failed context did not stay failed");
            break;
        }
        if (r == 0) break;
        if (r != 1) die("tex_next_x returned neither -1, 0 nor 1");
        check_tok(&t, nlines);
        if (++steps > 50000000) die("more than 50000000 tokens came out: unbounded expansion");
        if (t.type == T_BEGIN) { tex_group_begin(c); continue; }
        if (t.type == T_END) { tex_group_end(c); continue; }
        if (t.type == T_CS) {
            const char *nm = tex_name(c, t.name);
            if (!strcmp(nm, "def")) { do_def(c, 0, 0); continue; }
            if (!strcmp(nm, "gdef")) { do_def(c, 1, 0); continue; }
            if (!strcmp(nm, "edef")) { do_def(c, 0, 1); continue; }
            if (!strcmp(nm, "optdef")) { do_optdef(c); continue; }
            if (!strcmp(nm, "let")) {
                tex_tok a, b;
                if (tex_next(c, &a) > 0 && a.type == T_CS) {
                    tex_skip_spaces(c, 0);
                    if (tex_next(c, &b) > 0) {
                        if (b.type == T_OTHER && b.ch == '=') {
                            tex_skip_spaces(c, 0);
                            if (tex_next(c, &b) <= 0) continue;
                        }
                        tex_let(c, a.name, b, 0);
                    }
                }
                continue;
            }
            if (!strcmp(nm, "textdef")) {
                tex_tok name;
                if (tex_next(c, &name) > 0 && name.type == T_CS && tex_read_arg(c, &tmp, 0) > 0) {
                    char *s = tex_to_text(c, &tmp, 0, tmp.n, NULL);
                    tex_define_text(c, tex_name(c, name.name), s, 0);
                    free(s);
                }
                tl_clear(&tmp);
                continue;
            }
            if (!strcmp(nm, "arg") || !strcmp(nm, "xarg")) {
                tex_read_arg(c, &tmp, nm[0] == 'x');
                tl_append(&out, &tmp);
                tl_clear(&tmp);
                continue;
            }
            if (!strcmp(nm, "opt") || !strcmp(nm, "xopt")) {
                tex_read_opt(c, &tmp, nm[0] == 'x');
                tl_append(&out, &tmp);
                tl_clear(&tmp);
                continue;
            }
            if (!strcmp(nm, "newif")) {
                tex_tok name = { 0 };
                if (tex_next(c, &name) <= 0) name.type = 0;
                if (!tex_newif(c, &t, &name) && !tex_failed(c)) die("tex_newif failed without an error");
                continue;
            }
            if (!strcmp(nm, "skip")) { tex_skip_spaces(c, 1); continue; }
            if (!strcmp(nm, "begingroup")) { tex_group_begin(c); continue; }
            if (!strcmp(nm, "endgroup")) { tex_group_end(c); continue; }
            if (tex_macro_text(c, t.name) && strlen(tex_macro_text(c, t.name)) > (1u << 24))
                die("a parameterless macro's text is absurdly long");
        }
        tl_push(&out, t);
        if (out.n > 100000) tl_clear(&out);  /* bounded memory here; the text of the tail */
    }

    /* the conditionals still open: each with a name and a position in the input */
    for (size_t i = 0; i < tex_cond_depth(c); i++) {
        int l, col;
        if (tex_cond_open(c, i, &l, &col) < 0) die("tex_cond_open: no conditional below the depth");
        if (l < 0 || col < 0 || (size_t)l > nlines) die("an open conditional with a bad position");
    }
    int *lines = NULL;
    char *s = tex_to_text(c, &out, 0, out.n, &lines);
    size_t sl = strlen(s);
    for (size_t i = 0; i <= sl; i++)
        if (lines[i] < 0 || (size_t)lines[i] > nlines) die("tex_to_text: bad line map");
    free(s);
    free(lines);
    if (out.n > 2) {
        /* a slice, as the interpreter takes them */
        s = tex_to_text(c, &out, 1, out.n - 1, NULL);
        free(s);
    }
    tl_free(&out);
    tl_free(&tmp);
    tex_free(c);
    watchdog_arm(0);
    return 0;
}
