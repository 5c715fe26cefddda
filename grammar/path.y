/* path.y — the grammar of a TikZ path: what follows \draw, \fill, \path,
 * \clip, \node, \coordinate up to the ';'. Actions call the path builder
 * (grammar/pathbuild.c) which evaluates coordinates and emits IR. Every
 * path is parsed here; the tokens come from the flex scanner path.l. */
%define api.pure full
%define api.prefix {tp}
%define api.token.raw
%define parse.error verbose
%parse-param {void *scanner} {struct tp_state *st}
%lex-param {void *scanner}

%code requires {
#include "grammar/pathgrammar.h"
}

%union {
    struct tp_str str;
}

%code {
/* No %locations: the only location ever read is the lookahead's, in
 * tperror, and bison reports an error on the lookahead just read, before
 * it reads another token; so it is the scanner's last one (tp_scanner_loc:
 * the byte offset path.l kept for the last token, the column bison's
 * yylloc had). Bison's location stacks cost a copy per shift and per
 * reduction. */
int tplex(TPSTYPE *lval, void *scanner);
static void tperror(void *scanner, struct tp_state *st, const char *msg)
{
    tp_syntax_error(st, tp_scanner_loc(scanner), msg);
}
}

%token TP_LINE TP_HV TP_VH TP_DOTS TP_PLUS TP_PLUSPLUS TP_SEMI
%token TP_NODE TP_COORDINATE TP_AT TP_CYCLE TP_RECTANGLE TP_CIRCLE TP_ELLIPSE
%token TP_ARC TP_GRID TP_TO TP_EDGE TP_CONTROLS TP_AND TP_PLOT TP_PIC TP_COORDINATES
%token TP_SIN TP_COS TP_PARABOLA TP_BEND TP_CHILD TP_GRAPH TP_DECORATE TP_SVG
%token TP_ERROR_TOKEN
%token <str> TP_COORD TP_OPTS TP_BRACE TP_WORD TP_JUNK
/* "--" and a coordinate, one token (path.l): where TP_LINE TP_COORD would
 * be, so the same states read it, and named as TP_LINE in messages (an
 * error can only be found on the TP_LINE of the two) */
%token <str> TP_LINE_COORD "TP_LINE"

%type <str> opt_opts

/* token texts live in the scanner's buffers (path.l): nothing to free */

/* circle/ellipse/arc/grid/to/plot take an optional [options] right after
 * the keyword: the shift binds it to the operation, as TikZ does. */
%expect 12
/* and two of a path-local scope "{...}" after an item that may take a
 * text or body in braces: "\coordinate (a) {...}" and "child {...}" keep
 * the braces as their text/body (the shift), as TikZ reads them; */
/* and three of trees, each resolved by the shift as TikZ reads it: "child"
 * takes the [options] right after it, and the children of a node are all
 * the "child" operations that follow it (two states) */

%%
path
    : items
    | items TP_SEMI
    ;

/* The items of a path, each one alternative here (not a nonterminal "item"
 * of its own): one reduction per item instead of two. The common
 * operations also read their TP_COORD (and "--" its nodes) without the
 * nonterminals coord, target and nodes, whose reductions cost as much as
 * the work. This changes no state that reads a lookahead: the states left
 * out reduced by default (one rule, no shift), and the states that shift
 * expect the same tokens, so errors are found at the same token with the
 * same message; the actions run in the same order. */
items
    : %empty
    | items TP_OPTS                   { tp_options(st, &$2); }
    | items TP_COORD                  { tp_coord(st, &$2, 0); tp_move(st); }
    | items rel_coord                 { tp_move(st); }
    | items TP_LINE_COORD             { tp_coord(st, &$2, 0); tp_line(st, 0); }
    | items TP_LINE TP_COORD          { tp_coord(st, &$3, 0); tp_line(st, 0); }
    | items TP_LINE nodes1 TP_COORD   { tp_coord(st, &$4, 0); tp_line(st, 0); }
    | items TP_LINE rel_coord         { tp_line(st, 0); }
    | items TP_LINE nodes1 rel_coord  { tp_line(st, 0); }
    | items TP_LINE TP_CYCLE          { tp_cycle_target(st); tp_line(st, 0); }
    | items TP_LINE nodes1 TP_CYCLE   { tp_cycle_target(st); tp_line(st, 0); }
    | items TP_HV nodes target        { tp_line(st, 1); }
    | items TP_VH nodes target        { tp_line(st, 2); }
    | items TP_RECTANGLE nodes coord  { tp_rectangle(st); }
    | items TP_CIRCLE circle_args     { tp_circle(st, 0); }
    | items TP_ELLIPSE circle_args    { tp_circle(st, 1); }
    | items TP_ARC arc_args           { tp_arc(st); }
    | items TP_GRID opt_opts coord    { tp_grid(st, &$3); }
    | items TP_TO opt_opts nodes target { tp_to(st, &$3); }
    | items TP_EDGE opt_opts nodes coord { tp_edge(st, &$3); }
    | items TP_DOTS TP_CONTROLS coord controls_and TP_DOTS nodes target { tp_controls(st); }
    | items TP_SIN coord              { tp_sine(st, 0); }
    | items TP_COS coord              { tp_sine(st, 1); }
    | items TP_PARABOLA opt_opts target { tp_parabola(st, &$3, 0); }
    | items TP_PARABOLA opt_opts TP_BEND coord target { tp_parabola(st, &$3, 1); }
    | items node                      { tp_node_flush(st); }
    | items TP_COORDINATE node_parts  { tp_coordinate_op(st); }
    | items TP_COORDINATE node_parts TP_BRACE { tp_coordinate_op(st); }
    | items TP_PLOT plot_args
    | items TP_LINE TP_PLOT { tp_plot_join(st); } plot_args
    | items TP_DECORATE opt_opts TP_BRACE { tp_decorate(st, &$3, &$4); }
    | items TP_PIC node_parts TP_BRACE { tp_pic(st, &$4); }
    | items TP_GRAPH opt_opts TP_BRACE { tp_graph(st, &$3, &$4); }
    | items TP_BRACE                  { tp_scope(st, &$2); }
    | items TP_SVG opt_opts TP_BRACE  { tp_svg(st, &$3, &$4); }
    | items children                  { tp_tree(st); }
    | items TP_WORD                   { tp_unknown(st, &$2); }
    | items TP_JUNK                   { tp_unknown(st, &$2); }
    | items TP_ERROR_TOKEN            { tp_unterminated(st); }
    ;

/* a tree's children (after a node): all of them are read before any is
 * placed (the spread depends on their number); a child's body is read by
 * the tree builder (pathbuild.c). "child" then a word reads "foreach \x in
 * {list} {body}" (the shift wins over ending the child without a body) */
children
    : child1
    | children child1
    ;

child1
    : TP_CHILD opt_opts               { tp_child(st, &$2, NULL, NULL, NULL, NULL, NULL); }
    | TP_CHILD opt_opts TP_BRACE      { tp_child(st, &$2, NULL, NULL, NULL, NULL, &$3); }
    | TP_CHILD opt_opts TP_WORD TP_WORD TP_WORD TP_BRACE TP_BRACE
                                      { tp_child(st, &$2, &$3, &$4, &$5, &$6, &$7); }
    ;

opt_opts
    : %empty                          { $$.s = NULL; $$.off = -1; $$.n = 0; }
    | TP_OPTS                         { $$ = $1; }
    ;

coord
    : TP_COORD                        { tp_coord(st, &$1, 0); }
    | rel_coord
    ;

rel_coord
    : TP_PLUS TP_COORD                { tp_coord(st, &$2, 1); }
    | TP_PLUSPLUS TP_COORD            { tp_coord(st, &$2, 2); }
    ;

target
    : coord
    | TP_CYCLE                        { tp_cycle_target(st); }
    ;

controls_and
    : %empty                          { tp_controls_single(st); }
    | TP_AND coord
    ;

circle_args
    : %empty                          { tp_circle_args(st, NULL, NULL); }
    | TP_OPTS                         { tp_circle_args(st, &$1, NULL); }
    | TP_COORD                        { tp_circle_args(st, NULL, &$1); }
    ;

arc_args
    : TP_OPTS                         { tp_arc_args(st, &$1, NULL); }
    | TP_COORD                        { tp_arc_args(st, NULL, &$1); }
    | TP_OPTS TP_COORD                { tp_arc_args(st, &$1, &$2); }
    ;

plot_args
    : opt_opts TP_COORDINATES TP_BRACE { tp_plot_coordinates(st, &$1, &$3); }
    | opt_opts TP_COORD                { tp_plot_expr(st, &$1, &$2); }
    | opt_opts TP_WORD TP_BRACE        { tp_plot_other(st, &$1, &$2, &$3); }
    ;

/* nodes written inside an operation: placed on the segment it makes */
nodes
    : %empty
    | nodes node
    ;

/* the same, at least one (after "--") */
nodes1
    : node
    | nodes1 node
    ;

node
    : TP_NODE node_parts TP_BRACE     { tp_node_op(st, &$3); }
    ;

node_parts
    : %empty                          { tp_node_begin(st); }
    | node_parts TP_OPTS              { tp_node_opts(st, &$2); }
    | node_parts TP_COORD             { tp_node_name(st, &$2); }
    | node_parts TP_AT TP_COORD       { tp_node_at(st, &$3); }
    ;
%%
