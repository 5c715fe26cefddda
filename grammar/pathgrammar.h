/* pathgrammar.h — the TikZ path grammar (the scanner path.l, the parser
 * path.y) and the path builder its actions call (pathbuild.c). Internal to
 * grammar/. */
#ifndef DIAGRAMIR_PATHGRAMMAR_H
#define DIAGRAMIR_PATHGRAMMAR_H

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

/* the path scanner's state (path.l): the path's copy flex scans in place
 * and the texts of words, both kept from path to path */
struct tp_extra {
    int off;          /* byte offset of the next match */
    int loc;          /* byte offset of the last rule matched (tp_scanner_loc) */
    int eof_loc;      /* the location at the end of the text, when not loc (-1) */
    int depth, bdepth, start;
    char *text;       /* the path's copy, ending in two NULs */
    size_t cap, len;
    char *words;      /* the words' and stray bytes' texts */
    size_t wcap, wn;
    void *buf;        /* flex's buffer header over text (YY_BUFFER_STATE), reused */
};

struct tp_state;      /* the path builder, defined in pathbuild.c */

/* textutil.c */
void tp_buf_add(struct tp_buf *b, const char *s, size_t n);   /* appends s[0,n), NUL-terminated */

/* path.l: a scanner (its state in *x, which must outlive it), kept for a
 * session; tp_parse_path runs bison's tpparse over text[0, len) (no NUL
 * inside) with it */
void *tp_scanner_new(struct tp_extra *x);
void tp_scanner_free(void *scanner);
int tp_parse_path(void *scanner, const char *text, size_t len, struct tp_state *st);
/* the location of the scanner's last token: the byte offset of the last rule
 * it matched (for a group, its closing delimiter) */
int tp_scanner_loc(void *scanner);

/* the path builder's actions (pathbuild.c) */
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
/* "-- plot": the plot's first point is joined to the path by a line */
void tp_plot_join(struct tp_state *st);
/* plot file {...}, plot function {...}: unparsed, named */
void tp_plot_other(struct tp_state *st, const struct tp_str *opts, const struct tp_str *kw,
                   const struct tp_str *body);
/* decorate [options] {subpath}: the subpath decorated (decorate.c) */
void tp_decorate(struct tp_state *st, const struct tp_str *opts, const struct tp_str *body);
void tp_pic(struct tp_state *st, const struct tp_str *body);
void tp_cycle_point(struct tp_state *st);
void tp_scope(struct tp_state *st, const struct tp_str *body);
void tp_svg(struct tp_state *st, const struct tp_str *opts, const struct tp_str *body);
void tp_graph(struct tp_state *st, const struct tp_str *opts, const struct tp_str *body);
void tp_child(struct tp_state *st, const struct tp_str *opts, const struct tp_str *kw,
              const struct tp_str *var, const struct tp_str *in, const struct tp_str *list,
              const struct tp_str *body);
void tp_tree(struct tp_state *st);
void tp_unknown(struct tp_state *st, const struct tp_str *w);
void tp_unterminated(struct tp_state *st);
void tp_node_begin(struct tp_state *st);
void tp_node_opts(struct tp_state *st, const struct tp_str *opts);
void tp_node_name(struct tp_state *st, const struct tp_str *name);
void tp_node_at(struct tp_state *st, const struct tp_str *c);
void tp_node_op(struct tp_state *st, const struct tp_str *text);
void tp_node_flush(struct tp_state *st);

#endif
