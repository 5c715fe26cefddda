/* pathlex.c — the tokens of a TikZ path (the text between \draw and ';',
 * macros already expanded) and a recursive-descent front of the grammar in
 * path.y.
 *
 * The scanner reads the whole path once into an array of tokens whose texts
 * live in one buffer reused from path to path (no allocation per token).
 * Balanced groups are single tokens: (coordinate), [options], {text}.
 *
 * tp_parse_fast() recognizes path.y's language with the same choices bison
 * makes for its shift/reduce conflicts (an optional [options] or (coordinate)
 * right after circle/ellipse/arc/coordinate binds to the operation). It first
 * checks the whole token sequence; only when it parses does it run the
 * builder's actions, in the order bison runs them (each rule's action after
 * those of its parts). A path that does not parse goes to the bison parser
 * (tpparse, reading the same tokens through tplex), whose error messages and
 * partial actions are the reference. */
#include "grammar/tikz_int.h"
#include "path.tab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) { fputs("tikz2ir: out of memory\n", stderr); exit(2); }
    return q;
}

/* byte classes: the bytes that end a run inside (..), [..], {..}; letters;
 * spaces. NUL ends every run (the text is NUL-terminated). */
enum { C_PAREN = 1, C_OPTS = 2, C_BRACE = 4, C_LETTER = 8, C_SPACE = 16 };
#define L C_LETTER
static const unsigned char cls[256] = {
    [0] = C_PAREN | C_OPTS | C_BRACE,
    ['('] = C_PAREN, [')'] = C_PAREN, ['['] = C_OPTS, [']'] = C_OPTS,
    ['{'] = C_OPTS | C_BRACE, ['}'] = C_OPTS | C_BRACE,
    [' '] = C_SPACE, ['\t'] = C_SPACE, ['\r'] = C_SPACE, ['\n'] = C_SPACE, ['@'] = L,
    ['a'] = L, ['b'] = L, ['c'] = L, ['d'] = L, ['e'] = L, ['f'] = L, ['g'] = L, ['h'] = L,
    ['i'] = L, ['j'] = L, ['k'] = L, ['l'] = L, ['m'] = L, ['n'] = L, ['o'] = L, ['p'] = L,
    ['q'] = L, ['r'] = L, ['s'] = L, ['t'] = L, ['u'] = L, ['v'] = L, ['w'] = L, ['x'] = L,
    ['y'] = L, ['z'] = L,
    ['A'] = L, ['B'] = L, ['C'] = L, ['D'] = L, ['E'] = L, ['F'] = L, ['G'] = L, ['H'] = L,
    ['I'] = L, ['J'] = L, ['K'] = L, ['L'] = L, ['M'] = L, ['N'] = L, ['O'] = L, ['P'] = L,
    ['Q'] = L, ['R'] = L, ['S'] = L, ['T'] = L, ['U'] = L, ['V'] = L, ['W'] = L, ['X'] = L,
    ['Y'] = L, ['Z'] = L,
};
#undef L

static int is_letter(unsigned char c)
{
    return cls[c] & C_LETTER;
}

static int keyword(const char *s, size_t n)
{
#define KW(w, tok) if (n == sizeof w - 1 && memcmp(s, w, n) == 0) return tok
    switch (s[0]) {
    case 'a': KW("at", TP_AT); KW("arc", TP_ARC); KW("and", TP_AND); break;
    case 'b': KW("bend", TP_BEND); break;
    case 'c':
        KW("cycle", TP_CYCLE); KW("circle", TP_CIRCLE); KW("controls", TP_CONTROLS);
        KW("coordinate", TP_COORDINATE); KW("coordinates", TP_COORDINATES);
        KW("cos", TP_COS); break;
    case 'e': KW("ellipse", TP_ELLIPSE); KW("edge", TP_EDGE); break;
    case 'g': KW("grid", TP_GRID); break;
    case 'n': KW("node", TP_NODE); break;
    case 'p': KW("plot", TP_PLOT); KW("pic", TP_PIC); KW("parabola", TP_PARABOLA); break;
    case 'r': KW("rectangle", TP_RECTANGLE); break;
    case 's': KW("sin", TP_SIN); break;
    case 't': KW("to", TP_TO); break;
    default: break;
    }
#undef KW
    return TP_WORD;
}

/* The location bison's error message gets is the start of the last scanner
 * rule matched (a whitespace run, a group's last piece, ...), as the flex
 * scanner this replaces set it; 1 before any. */
void tp_tokenize(struct tp_toks *tk, const char *text, size_t len)
{
    const unsigned char *u = (const unsigned char *)text;   /* u[len] == 0 */
    /* texts: the text's copy, then at most the bytes plus a terminator
     * each (a token is at least one byte); the token array grows as needed */
    if (tk->cap < 64) {
        tk->cap = 64;
        free(tk->v);
        tk->v = xrealloc(NULL, tk->cap * sizeof *tk->v);
    }
    if (tk->acap < 3 * len + 3) {
        tk->acap = 3 * len + 3;
        free(tk->arena);
        tk->arena = xrealloc(NULL, tk->acap);
    }
    /* the arena: a copy of the text, where a group's text is terminated in
     * place (over its closing delimiter), then the words and other bytes */
    char *copy = tk->arena;
    memcpy(copy, text, len + 1);
    char *a = copy + len + 1;
    size_t nt = 0;
    int last = 1;
    size_t i = 0;
#define GROW() do { \
        if (nt + 2 > tk->cap) { tk->cap *= 2; tk->v = xrealloc(tk->v, tk->cap * sizeof *tk->v); } \
    } while (0)
#define STR(kind_, from, n_, off_, loc_) do { \
        struct tp_tok *t_ = &tk->v[nt++]; \
        t_->kind = (kind_); t_->off = (int)(off_); t_->loc = (loc_); t_->s = a; t_->n = (int)(n_); \
        memcpy(a, text + (from), (n_)); a[(n_)] = 0; a += (n_) + 1; \
    } while (0)
#define TOK(kind_, loc_) do { \
        struct tp_tok *t_ = &tk->v[nt++]; \
        t_->kind = (kind_); t_->off = -1; t_->loc = (loc_); t_->s = NULL; t_->n = 0; \
    } while (0)
    while (i < len) {
        GROW();   /* room for this step's token and the end */
        unsigned char c = (unsigned char)text[i];
        unsigned char d = i + 1 < len ? (unsigned char)text[i + 1] : 0;
        switch (c) {
        case ' ': case '\t': case '\r': case '\n':
            last = (int)i;
            while (cls[u[i]] & C_SPACE) i++;
            continue;
        case '(': case '[': case '{': {
            /* a balanced group: ( ) nest in (), [ ] outside braces in [],
             * { } in {} */
            size_t start = i + 1, j = i + 1;
            int depth = 1, bdepth = 0, done = 0;
            last = (int)i;
            while (j < len) {
                char e = text[j];
                if (c == '(') {
                    if (e == '(') { last = (int)j; depth++; j++; continue; }
                    if (e == ')') { last = (int)j; if (--depth == 0) { done = 1; break; } j++; continue; }
                    last = (int)j;
                    while (!(cls[u[j]] & C_PAREN)) j++;
                } else if (c == '[') {
                    if (e == '{') { last = (int)j; bdepth++; j++; continue; }
                    if (e == '}') { last = (int)j; if (bdepth > 0) bdepth--; j++; continue; }
                    if (e == '[') { last = (int)j; if (!bdepth) depth++; j++; continue; }
                    if (e == ']') {
                        last = (int)j;
                        if (!bdepth && --depth == 0) { done = 1; break; }
                        j++;
                        continue;
                    }
                    last = (int)j;
                    while (!(cls[u[j]] & C_OPTS)) j++;
                } else {
                    if (e == '{') { last = (int)j; depth++; j++; continue; }
                    if (e == '}') { last = (int)j; if (--depth == 0) { done = 1; break; } j++; continue; }
                    last = (int)j;
                    while (!(cls[u[j]] & C_BRACE)) j++;
                }
            }
            if (!done) {
                TOK(TP_ERROR_TOKEN, last);
                i = len;
                continue;
            }
            {
                struct tp_tok *t = &tk->v[nt++];
                t->kind = c == '(' ? TP_COORD : c == '[' ? TP_OPTS : TP_BRACE;
                t->off = (int)start;
                t->loc = last;
                t->n = (int)(j - start);
                t->s = copy + start;
                copy[j] = 0;
            }
            i = j + 1;
            continue;
        }
        case '-':
            if (d == '-') { last = (int)i; TOK(TP_LINE, last); i += 2; continue; }
            if (d == '|') { last = (int)i; TOK(TP_HV, last); i += 2; continue; }
            break;
        case '|':
            if (d == '-') { last = (int)i; TOK(TP_VH, last); i += 2; continue; }
            break;
        case '.':
            if (d == '.') { last = (int)i; TOK(TP_DOTS, last); i += 2; continue; }
            break;
        case '+':
            last = (int)i;
            if (d == '+') { TOK(TP_PLUSPLUS, last); i += 2; continue; }
            TOK(TP_PLUS, last);
            i++;
            continue;
        case ';':
            last = (int)i;
            TOK(TP_SEMI, last);
            i++;
            continue;
        case '\\':
            if (is_letter(d)) {
                size_t j = i + 2;
                while (cls[u[j]] & C_LETTER) j++;
                last = (int)i;
                STR(TP_WORD, i, j - i, i, last);
                i = j;
                continue;
            }
            break;
        default:
            if (is_letter(c)) {
                size_t j = i + 1;
                while (cls[u[j]] & C_LETTER) j++;
                last = (int)i;
                int k = keyword(text + i, j - i);
                if (k == TP_WORD) STR(TP_WORD, i, j - i, i, last);
                else TOK(k, last);
                i = j;
                continue;
            }
            break;
        }
        /* any other byte */
        last = (int)i;
        STR(TP_JUNK, i, 1, i, last);
        i++;
    }
    TOK(0, last);
#undef GROW
#undef STR
#undef TOK
    tk->n = nt;
    tk->pos = 0;
}

void tp_toks_free(struct tp_toks *tk)
{
    free(tk->v);
    free(tk->arena);
    memset(tk, 0, sizeof *tk);
}

/* bison's scanner: the tokens in order, then the end again and again */
int tplex(TPSTYPE *lval, TPLTYPE *lloc, void *scanner)
{
    struct tp_toks *tk = scanner;
    const struct tp_tok *t = &tk->v[tk->pos];
    if (tk->pos + 1 < tk->n) tk->pos++;
    lloc->first_column = t->loc;
    if (t->s) {
        lval->str.s = t->s;
        lval->str.off = t->off;
        lval->str.n = t->n;
    }
    return t->kind;
}

/* ---- the recursive-descent front ------------------------------------------ */

typedef struct {
    const struct tp_tok *t;
    size_t i;
    struct tp_state *st;
    int ex;                   /* run the actions (else only recognize) */
} rd;

#define K(r) ((r)->t[(r)->i].kind)

static struct tp_str str_of(const struct tp_tok *t)
{
    struct tp_str s = { t->s, t->off, t->n };
    return s;
}

/* coord: TP_COORD | TP_PLUS TP_COORD | TP_PLUSPLUS TP_COORD */
static inline int rd_coord(rd *r)
{
    int rel = 0;
    if (K(r) == TP_PLUS) rel = 1;
    else if (K(r) == TP_PLUSPLUS) rel = 2;
    else if (K(r) != TP_COORD) return -1;
    if (rel) {
        r->i++;
        if (K(r) != TP_COORD) return -1;
    }
    if (r->ex) {
        struct tp_str s = str_of(&r->t[r->i]);
        tp_coord(r->st, &s, rel);
    }
    r->i++;
    return 0;
}

/* node_parts: (TP_OPTS | TP_COORD | TP_AT TP_COORD)*, greedy */
static int rd_node_parts(rd *r)
{
    if (r->ex) tp_node_begin(r->st);
    for (;;) {
        int k = K(r);
        if (k == TP_OPTS || k == TP_COORD) {
            if (r->ex) {
                struct tp_str s = str_of(&r->t[r->i]);
                if (k == TP_OPTS) tp_node_opts(r->st, &s);
                else tp_node_name(r->st, &s);
            }
            r->i++;
        } else if (k == TP_AT) {
            r->i++;
            if (K(r) != TP_COORD) return -1;
            if (r->ex) {
                struct tp_str s = str_of(&r->t[r->i]);
                tp_node_at(r->st, &s);
            }
            r->i++;
        } else {
            return 0;
        }
    }
}

/* node: TP_NODE node_parts TP_BRACE */
static int rd_node(rd *r)
{
    r->i++;
    if (rd_node_parts(r)) return -1;
    if (K(r) != TP_BRACE) return -1;
    if (r->ex) {
        struct tp_str s = str_of(&r->t[r->i]);
        tp_node_op(r->st, &s);
    }
    r->i++;
    return 0;
}

static int rd_nodes(rd *r)
{
    while (K(r) == TP_NODE)
        if (rd_node(r)) return -1;
    return 0;
}

/* target: coord | TP_CYCLE */
static int rd_target(rd *r)
{
    if (K(r) == TP_CYCLE) {
        if (r->ex) tp_cycle_target(r->st);
        r->i++;
        return 0;
    }
    return rd_coord(r);
}

static struct tp_str rd_opt_opts(rd *r)
{
    struct tp_str s = { NULL, -1, 0 };
    if (K(r) == TP_OPTS) s = str_of(&r->t[r->i++]);
    return s;
}

/* One item; 1 when the next token starts none. */
static int rd_item(rd *r)
{
    struct tp_state *st = r->st;
    int k = K(r);
    struct tp_str o, s;
    switch (k) {
    case TP_OPTS:
        if (r->ex) { s = str_of(&r->t[r->i]); tp_options(st, &s); }
        r->i++;
        return 0;
    case TP_COORD: case TP_PLUS: case TP_PLUSPLUS:
        if (rd_coord(r)) return -1;
        if (r->ex) tp_move(st);
        return 0;
    case TP_LINE:
        r->i++;
        if (rd_nodes(r) || rd_target(r)) return -1;
        if (r->ex) tp_line(st, 0);
        return 0;
    case TP_HV: case TP_VH:
        r->i++;
        if (rd_nodes(r) || rd_coord(r)) return -1;
        if (r->ex) tp_line(st, k == TP_HV ? 1 : 2);
        return 0;
    case TP_RECTANGLE:
        r->i++;
        if (rd_nodes(r) || rd_coord(r)) return -1;
        if (r->ex) tp_rectangle(st);
        return 0;
    case TP_CIRCLE: case TP_ELLIPSE:
        r->i++;
        if (K(r) == TP_OPTS) {
            if (r->ex) { s = str_of(&r->t[r->i]); tp_circle_args(st, &s, NULL); }
            r->i++;
        } else if (K(r) == TP_COORD) {
            if (r->ex) { s = str_of(&r->t[r->i]); tp_circle_args(st, NULL, &s); }
            r->i++;
        } else if (r->ex) {
            tp_circle_args(st, NULL, NULL);
        }
        if (r->ex) tp_circle(st, k == TP_ELLIPSE);
        return 0;
    case TP_ARC:
        r->i++;
        if (K(r) == TP_OPTS) {
            o = str_of(&r->t[r->i++]);
            if (K(r) == TP_COORD) {
                if (r->ex) { s = str_of(&r->t[r->i]); tp_arc_args(st, &o, &s); }
                r->i++;
            } else if (r->ex) {
                tp_arc_args(st, &o, NULL);
            }
        } else if (K(r) == TP_COORD) {
            if (r->ex) { s = str_of(&r->t[r->i]); tp_arc_args(st, NULL, &s); }
            r->i++;
        } else {
            return -1;
        }
        if (r->ex) tp_arc(st);
        return 0;
    case TP_GRID:
        r->i++;
        o = rd_opt_opts(r);
        if (rd_coord(r)) return -1;
        if (r->ex) tp_grid(st, &o);
        return 0;
    case TP_TO: case TP_EDGE:
        r->i++;
        o = rd_opt_opts(r);
        if (rd_nodes(r)) return -1;
        if (k == TP_TO ? rd_target(r) : rd_coord(r)) return -1;
        if (r->ex) {
            if (k == TP_TO) tp_to(st, &o);
            else tp_edge(st, &o);
        }
        return 0;
    case TP_DOTS:
        r->i++;
        if (K(r) != TP_CONTROLS) return -1;
        r->i++;
        if (rd_coord(r)) return -1;
        if (K(r) == TP_DOTS) {
            if (r->ex) tp_controls_single(st);
        } else if (K(r) == TP_AND) {
            r->i++;
            if (rd_coord(r)) return -1;
        } else {
            return -1;
        }
        if (K(r) != TP_DOTS) return -1;
        r->i++;
        if (rd_coord(r)) return -1;
        if (r->ex) tp_controls(st);
        return 0;
    case TP_SIN: case TP_COS:
        r->i++;
        if (rd_coord(r)) return -1;
        if (r->ex) tp_sine(st, k == TP_COS);
        return 0;
    case TP_PARABOLA:
        r->i++;
        o = rd_opt_opts(r);
        if (K(r) == TP_BEND) {
            r->i++;
            if (rd_coord(r) || rd_coord(r)) return -1;
            if (r->ex) tp_parabola(st, &o, 1);
        } else {
            if (rd_coord(r)) return -1;
            if (r->ex) tp_parabola(st, &o, 0);
        }
        return 0;
    case TP_NODE:
        if (rd_node(r)) return -1;
        if (r->ex) tp_node_flush(st);
        return 0;
    case TP_COORDINATE:
        r->i++;
        if (rd_node_parts(r)) return -1;
        if (r->ex) tp_coordinate_op(st);
        return 0;
    case TP_PLOT:
        r->i++;
        o = rd_opt_opts(r);
        if (K(r) == TP_COORDINATES) {
            r->i++;
            if (K(r) != TP_BRACE) return -1;
            if (r->ex) { s = str_of(&r->t[r->i]); tp_plot_coordinates(st, &o, &s); }
            r->i++;
        } else if (K(r) == TP_COORD) {
            if (r->ex) { s = str_of(&r->t[r->i]); tp_plot_expr(st, &o, &s); }
            r->i++;
        } else {
            return -1;
        }
        return 0;
    case TP_PIC:
        r->i++;
        if (rd_node_parts(r)) return -1;
        if (K(r) != TP_BRACE) return -1;
        if (r->ex) { s = str_of(&r->t[r->i]); tp_pic(st, &s); }
        r->i++;
        return 0;
    case TP_WORD: case TP_JUNK:
        if (r->ex) { s = str_of(&r->t[r->i]); tp_unknown(st, &s); }
        r->i++;
        return 0;
    case TP_ERROR_TOKEN:
        if (r->ex) tp_unterminated(st);
        r->i++;
        return 0;
    default:
        return 1;
    }
}

/* path: items | items TP_SEMI, then the end */
static int rd_path(rd *r)
{
    int k;
    while ((k = rd_item(r)) == 0) {}
    if (k < 0) return -1;
    if (K(r) == TP_SEMI) r->i++;
    return K(r) == 0 ? 0 : -1;
}

int tp_parse_fast(const struct tp_toks *tk, struct tp_state *st)
{
    rd r = { tk->v, 0, st, 0 };
    if (rd_path(&r)) return -1;
    r.i = 0;
    r.ex = 1;
    rd_path(&r);
    return 0;
}
