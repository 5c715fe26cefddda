/* ref_statement.h — the reference the statement-reader tests compare
 * tex_read_statement with (test_texstmt, test_texexp_runs): the interpreter's
 * former statement loop (grammar/tikz.c collect_statement and do_path), that
 * is tex_next_x per token up to ';' at brace depth 0 (or '}' / \begin / \end
 * at depth 0 or a sentinel, pushed back), then tex_to_text_ex of the tokens.
 * Kept verbatim on purpose: it is what the fast reader must agree with. */
#ifndef DIAGRAMIR_TESTS_REF_STATEMENT_H
#define DIAGRAMIR_TESTS_REF_STATEMENT_H
#include "grammar/texexp.h"

static int ref_statement(tex_ctx *c, const char *prefix, int prefix_line, char **text, int **lines)
{
    int b = tex_intern(c, "begin", 5), e = tex_intern(c, "end", 3);
    toklist out = { 0 };
    int depth = 0, bline = 0, bcol = 0, ret = 0;
    for (;;) {
        tex_tok t;
        int r = tex_next_x(c, &t);
        if (r <= 0) {
            if (r < 0) { tl_free(&out); return -1; }
            if (depth > 0) {
                tex_error(c, bline, bcol, "unbalanced braces: end of input inside a group opened here");
                tl_free(&out);
                return -1;
            }
            ret = 0;
            break;
        }
        int stop = 0;
        switch (t.type) {
        case T_OTHER:
            if (t.ch == -2) { tex_push_tok(c, t); stop = 1; }
            else if (t.ch == ';' && depth == 0) { stop = 1; ret = 1; }
            break;
        case T_CS:
            if (depth == 0 && (t.name == b || t.name == e)) { tex_push_tok(c, t); stop = 1; }
            break;
        case T_BEGIN:
            if (depth++ == 0) { bline = t.line; bcol = t.col; }
            break;
        case T_END:
            if (depth == 0) { tex_push_tok(c, t); stop = 1; }
            else depth--;
            break;
        default:
            break;
        }
        if (stop) break;
        if (out.n > 2000000) {
            tex_error(c, t.line, t.col, "statement longer than %d tokens", 2000000);
            tl_free(&out);
            return -1;
        }
        tl_push(&out, t);
    }
    *text = tex_to_text_ex(c, &out, 0, out.n, prefix, prefix_line, lines);
    tl_free(&out);
    return ret;
}

#endif
