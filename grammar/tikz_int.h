/* tikz_int.h — internals shared by the TikZ path grammar (pathlex.c, path.y)
 * and the interpreter (tikz.c). Not part of the public contract (tikz.h). */
#ifndef DIAGRAMIR_TIKZ_INT_H
#define DIAGRAMIR_TIKZ_INT_H

#include <stddef.h>

struct tp_str {
    char *s;
    int off;      /* byte offset in the path text */
    int n;        /* strlen(s) */
};

struct tp_buf {
    char *s;
    size_t n, cap;
};

/* a token of a path (pathlex.c): kind is path.y's token number (0 at the
 * end); s, for (..), [..], {..}, words and other bytes, the text (inside
 * the delimiters), off its byte offset in the path text; loc the offset a
 * syntax error at this token names */
struct tp_tok {
    int kind;
    int off, loc;
    int n;                    /* strlen(s) */
    char *s;
};

struct tp_toks {
    struct tp_tok *v;
    size_t n, cap, pos;
    char *arena;              /* the tokens' texts */
    size_t acap;
};

struct tp_state;      /* the path builder, defined in tikz.c */

char *tp_strndup(const char *s, size_t n);
void tp_buf_add(struct tp_buf *b, const char *s, size_t n);

/* pathlex.c: the path's tokens, and the grammar for paths that parse
 * (-1, nothing done, for one that does not: bison's tpparse reports it,
 * reading the tokens through tplex with the struct tp_toks as scanner) */
void tp_tokenize(struct tp_toks *tk, const char *text, size_t len);   /* text[len] == 0 */
void tp_toks_free(struct tp_toks *tk);
int tp_parse_fast(const struct tp_toks *tk, struct tp_state *st);

/* path builder actions (tikz.c) */
void tp_syntax_error(struct tp_state *st, int off, const char *msg);
void tp_options(struct tp_state *st, const struct tp_str *opts);
void tp_coord(struct tp_state *st, const struct tp_str *c, int rel);
void tp_move(struct tp_state *st);
void tp_line(struct tp_state *st, int kind);
void tp_cycle_target(struct tp_state *st);
void tp_rectangle(struct tp_state *st);
void tp_circle_args(struct tp_state *st, const struct tp_str *opts, const struct tp_str *paren);
void tp_circle(struct tp_state *st, int ellipse);
void tp_arc_args(struct tp_state *st, const struct tp_str *opts, const struct tp_str *paren);
void tp_arc(struct tp_state *st);
void tp_grid(struct tp_state *st, const struct tp_str *opts);
void tp_to(struct tp_state *st, const struct tp_str *opts);
void tp_edge(struct tp_state *st, const struct tp_str *opts);
void tp_controls_single(struct tp_state *st);
void tp_controls(struct tp_state *st);
void tp_sine(struct tp_state *st, int cosine);
void tp_parabola(struct tp_state *st, const struct tp_str *opts, int has_bend);
void tp_coordinate_op(struct tp_state *st);
void tp_plot_coordinates(struct tp_state *st, const struct tp_str *opts, const struct tp_str *body);
void tp_plot_expr(struct tp_state *st, const struct tp_str *opts, const struct tp_str *c);
void tp_pic(struct tp_state *st, const struct tp_str *body);
void tp_unknown(struct tp_state *st, const struct tp_str *w);
void tp_unterminated(struct tp_state *st);
void tp_node_begin(struct tp_state *st);
void tp_node_opts(struct tp_state *st, const struct tp_str *opts);
void tp_node_name(struct tp_state *st, const struct tp_str *name);
void tp_node_at(struct tp_state *st, const struct tp_str *c);
void tp_node_op(struct tp_state *st, const struct tp_str *text);
void tp_node_flush(struct tp_state *st);

#endif
