/* matrix.c — \matrix and node[matrix]: TikZ's matrices (tikz.code.tex,
 * tikzlibrarymatrix.code.tex) laid out as pgf's matrix module
 * (pgfmodulematrix.code.tex) lays them out.
 *
 * The body is split into rows at "\\" (an optional [dim] after it) and
 * into cells at "&" (or the ampersand replacement; an optional [dim]
 * after it), outside braces. Every cell is a little picture of its own: it
 * runs in a scope with the matrix's options, the cell styles (every cell,
 * column C, every odd/even column, row R, every odd/even row, row R column
 * C) and the identity transformation, so its origin is (0,0). Its extent,
 * as pgf's bounding box has it (paths by their points, nodes by their
 * shapes with outer sep), decides the layout:
 *   - the origins of a column's cells share one x, those of a row's cells
 *     one y (the cells are aligned on their origins, as TikZ does);
 *   - a column reaches as far left and right of its origin as its widest
 *     cells; column C begins column sep (plus the [dim] of the first "&"
 *     that leads into it) after column C-1 ends; "between origins" makes
 *     the distance from origin to origin instead;
 *   - a row reaches at least up to and down to its origin, further as its
 *     cells do; row sep (plus the [dim] of "\\") lies between rows, or
 *     between origins.
 * The matrix is then a node whose text is the box of all cells (its
 * baseline the last row's), placed with its options (matrix anchor= wins
 * over anchor=; "name.anchor" puts a cell node's anchor at the point), and
 * every cell's elements and named nodes move to their place.
 *
 * matrix of nodes / matrix of math nodes: a cell that does not start with a
 * path command is the text of a node named MATRIX-R-C (|[options](name)|
 * in front of the text go to the node); nodes in empty cells puts an empty
 * one in empty cells. execute at begin cell / end cell / empty cell are
 * the cell's code around or instead of its text. Not done: nested
 * matrices (pgf refuses them too), rotated or slanted matrix nodes (the
 * matrix is placed as if unrotated, with a warning), delimiters. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "grammar/interp.h"
#include "ir/xalloc.h"

struct tk_mxcell {
    ir_box box;               /* nodes placed in the cell (shapes with outer sep) */
};

#define MX_STYLE_DEPTH 16

typedef struct {
    int is_matrix;
    int of_nodes;             /* 1 matrix of nodes, 2 matrix of math nodes */
    int empty_nodes;          /* nodes in empty cells */
    char *rowsep, *colsep, *manchor, *amp, *cells;
    char *cbegin, *cend, *cempty;   /* execute at begin / end / empty cell */
    int delimiters;           /* left/right/above/below delimiter= given (not drawn) */
} mxopts;

static void mx_free(mxopts *m)
{
    free(m->rowsep); free(m->colsep); free(m->manchor); free(m->amp); free(m->cells);
    free(m->cbegin); free(m->cend); free(m->cempty);
}

/* The next item of an option list s[0,n) from *i, trimmed, in *it, *in:
 * its key and value as tk_split_kv has them, a key without a value
 * unbraced. 0 at the end. */
static int next_item(const char *s, size_t n, size_t *pi, const char **it, size_t *in,
                     const char **k, size_t *kn, const char **v, size_t *vn)
{
    while (tk_next_item(s, n, ',', pi, it, in)) {
        if (*in == 0) continue;
        if (tk_split_kv(*it, *in, k, kn, v, vn) < 0) tk_unbrace(k, kn);
        return 1;
    }
    return 0;
}

static void set_text(char **dst, const char *v, size_t vn)
{
    free(*dst);
    *dst = xstrndup(v, vn);
}

static const char *const mx_keys[] = {
    "matrix", "matrix of nodes", "matrix of math nodes", "row sep", "column sep",
    "matrix anchor", "ampersand replacement", "nodes in empty cells", "cells",
    "execute at begin cell", "execute at end cell", "execute at empty cell",
    "execute at begin matrix", "execute at end matrix", NULL
};

static int is_mx_key(const char *k, size_t kn)
{
    for (int i = 0; mx_keys[i]; i++) if (tk_is(k, kn, mx_keys[i])) return 1;
    return 0;
}

/* A user style of that name (not one of the keys' own names unless the
 * document defined it): its body copied, else NULL. Not when the item's
 * value, as written (not in braces: it ends where the item does), is a
 * coordinate. */
static char *user_style(tikz *T, const char *it, size_t in, const char *k, size_t kn,
                        const char *v, size_t vn)
{
    if (v && v[0] == '(' && v + vn == it + in) return NULL;
    const char *st = tk_find_style(T, k, kn);
    return st ? xstrndup(st, strlen(st)) : NULL;
}

/* cells=: every cell/.append style */
static void add_cells(mxopts *m, const char *w, size_t wn)
{
    size_t ol = m->cells ? strlen(m->cells) : 0;
    m->cells = xrealloc(m->cells, ol + wn + 2);
    if (ol) m->cells[ol++] = ',';
    memcpy(m->cells + ol, w, wn);
    m->cells[ol + wn] = 0;
}

/* The matrix keys of an option list (and of the styles it names) */
static void mx_walk(tikz *T, const char *s, size_t n, mxopts *m, int depth)
{
    size_t i = 0, in, kn, vn;
    const char *it, *k, *v;
    while (next_item(s, n, &i, &it, &in, &k, &kn, &v, &vn)) {
        char *st = user_style(T, it, in, k, kn, v, vn);
        if (st) {
            if (depth < MX_STYLE_DEPTH) mx_walk(T, st, strlen(st), m, depth + 1);
            free(st);
            continue;
        }
        if (tk_is(k, kn, "matrix")) {
            m->is_matrix = !(v && tk_is(v, vn, "false"));
        } else if ((tk_is(k, kn, "matrix of nodes") || tk_is(k, kn, "matrix of math nodes")) && !v) {
            /* the library's style: matrix, cells={anchor=base}, its cell code */
            m->is_matrix = 1;
            m->of_nodes = kn == 15 ? 1 : 2;
            add_cells(m, "anchor=base", 11);
        } else if (!v) {
            if (tk_is(k, kn, "nodes in empty cells")) m->empty_nodes = 1;
        } else if (tk_is(k, kn, "nodes in empty cells"))
            m->empty_nodes = !tk_is(v, vn, "false");
        else if (tk_is(k, kn, "row sep")) set_text(&m->rowsep, v, vn);
        else if (tk_is(k, kn, "column sep")) set_text(&m->colsep, v, vn);
        else if (tk_is(k, kn, "matrix anchor")) set_text(&m->manchor, v, vn);
        else if (tk_is(k, kn, "ampersand replacement")) set_text(&m->amp, v, vn);
        else if (tk_is(k, kn, "execute at begin cell")) set_text(&m->cbegin, v, vn);
        else if (tk_is(k, kn, "execute at end cell")) set_text(&m->cend, v, vn);
        else if (tk_is(k, kn, "execute at empty cell")) set_text(&m->cempty, v, vn);
        else if (tk_is(k, kn, "left delimiter") || tk_is(k, kn, "right delimiter") ||
                 tk_is(k, kn, "above delimiter") || tk_is(k, kn, "below delimiter"))
            m->delimiters = 1;
        else if (tk_is(k, kn, "cells"))
            add_cells(m, v, vn);
    }
}

int tk_matrix_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn)
{
    if (!tk_is(k, kn, "ampersand replacement")) return 0;
    /* \tikzset{ampersand replacement=\&}: TikZ keeps it in the scope, for
     * every matrix after it (the graphics state, scoped as TeX's group);
     * a matrix's own options come after it (tk_matrix) */
    tk_unbrace(&v, &vn);
    GS(T)->mx_amp = tk_intern(T, v, vn);
    return 1;
}

int tk_matrix_wanted(tikz *T, const char *opts)
{
    /* every node with options comes here: only a list that names a
     * matrix key is walked (\matrix gives node[matrix]; a style of the
     * document's that alone says matrix is not seen) */
    if (!opts || !strstr(opts, "matrix")) return 0;
    mxopts m;
    memset(&m, 0, sizeof m);
    mx_walk(T, opts, strlen(opts), &m, 0);
    int r = m.is_matrix;
    mx_free(&m);
    return r;
}

/* every node gets opts appended (for the nodes of a cell) */
static void every_node_add(tikz *T, const char *pre, const char *v, size_t vn)
{
    gstate *g = GS(T);
    size_t ol = g->every_node ? strlen(g->every_node) : 0, pl = strlen(pre);
    char *e = xrealloc(NULL, ol + pl + vn + 2);
    size_t o = 0;
    if (ol) { memcpy(e, g->every_node, ol); e[ol] = ','; o = ol + 1; }
    memcpy(e + o, pre, pl);
    memcpy(e + o + pl, v, vn);
    e[o + pl + vn] = 0;
    free(g->every_node);
    g->every_node = e;
}

/* Options applied in a cell's scope: nodes= and anchor= reach the cell's
 * nodes (through every node), matrix keys are the matrix's, the rest is
 * applied to the scope */
static void cell_opts(tikz *T, const char *s, size_t n, int depth)
{
    size_t i = 0, in, kn, vn;
    const char *it, *k, *v;
    while (next_item(s, n, &i, &it, &in, &k, &kn, &v, &vn)) {
        char *st = user_style(T, it, in, k, kn, v, vn);
        if (st) {
            if (depth < MX_STYLE_DEPTH) cell_opts(T, st, strlen(st), depth + 1);
            free(st);
            continue;
        }
        if (is_mx_key(k, kn) || tk_is(k, kn, "name") || tk_is(k, kn, "at")) continue;
        if (v && tk_is(k, kn, "nodes")) {
            every_node_add(T, "", v, vn);
        } else if (v && tk_is(k, kn, "anchor")) {
            every_node_add(T, "", it, in);   /* the item as written */
        } else {
            char *x = v ? xstrndup(it, in) : xstrndup(k, kn);
            tk_apply_opts(T, x, strlen(x), NULL, 0);
            free(x);
        }
    }
}

/* a style applied in a cell when the document defines it */
static void cell_style(tikz *T, const char *name)
{
    const char *st = tk_find_style(T, name, strlen(name));
    if (!st) return;
    char *x = xstrndup(st, strlen(st));
    cell_opts(T, x, strlen(x), 1);
    free(x);
}

/* pgf's \pgf@matrix@addtolength: the dimensions of a list added to *x,
 * "between origins" / "between borders" set *fixed */
static void sep_add(tikz *T, const char *s, size_t n, double *x, int *fixed)
{
    if (!s) return;
    tk_unbrace(&s, &n);
    size_t i = 0, in;
    const char *it;
    while (tk_next_item(s, n, ',', &i, &it, &in)) {
        if (in == 0) continue;
        if (tk_is(it, in, "between origins")) *fixed = 1;
        else if (tk_is(it, in, "between borders")) *fixed = 0;
        else {
            double d2;
            if (tk_eval(T, it, in, &d2, NULL) == 0 && isfinite(d2)) *x += d2;
            else tk_warn(T, T->cmd_line, "matrix: cannot evaluate the separation '%.*s' (taken as 0pt)",
                         (int)(in > 60 ? 60 : in), it);
        }
    }
}

typedef struct {
    const char *s;            /* the cell's text in the body (trimmed) */
    size_t n;
    const char *next;         /* [opts] of the '&' after it (NULL: none) */
    size_t nextn;
    int line;
    size_t e0, e1;            /* its elements */
    ir_box box;               /* its extent (empty: nothing) */
    int row, col;             /* 0-based */
} mxcell;

typedef struct {
    size_t c0, nc;            /* its cells */
    int eol;                  /* ended by \\ */
    const char *opt;          /* [opts] of its \\ */
    size_t optn;
} mxrow;

/* a bracket group at s[*i] (after spaces): its inside, *i past it */
static int read_bracket(const char *s, size_t n, size_t *i, const char **o, size_t *on)
{
    size_t j = *i;
    while (j < n && tk_space((unsigned char)s[j])) j++;
    if (j >= n || s[j] != '[') return 0;
    int d = 0;
    size_t k;
    for (k = j; k < n; k++) {
        if (s[k] == '[' || s[k] == '{') d++;
        else if ((s[k] == ']' || s[k] == '}') && --d == 0) break;
    }
    if (k >= n) return 0;
    *o = s + j + 1;
    *on = k - j - 1;
    *i = k + 1;
    return 1;
}

static void add_cell(mxcell **cells, size_t *nc, size_t *cap, const char *s, size_t a, size_t b,
                     int line)
{
    if (*nc == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *cells = xrealloc(*cells, *cap * sizeof **cells);
    }
    mxcell *c = &(*cells)[(*nc)++];
    memset(c, 0, sizeof *c);
    c->s = s + a;
    c->n = b - a;
    tk_trim(&c->s, &c->n);
    c->line = line;
}

/* Splits the body into rows and cells */
static void split_body(const char *s, size_t n, const char *amp, const int *lines, int line0,
                       mxcell **cells,
                       size_t *ncells, mxrow **rows, size_t *nrows)
{
    size_t capc = 0, capr = 0;
    size_t amn = amp ? strlen(amp) : 0;
    int amp_letters = amn > 1 && isalpha((unsigned char)amp[1]);
    size_t start = 0, i = 0, rowc0 = 0;
    int d = 0, cell_line = line0;
    int begun = 0;            /* the cell has a byte other than space */
    *ncells = *nrows = 0;
    *cells = NULL;
    *rows = NULL;
#define END_ROW(EOL, O, ON) do { \
        if (*nrows == capr) { capr = capr ? capr * 2 : 8; *rows = xrealloc(*rows, capr * sizeof **rows); } \
        mxrow *r_ = &(*rows)[(*nrows)++]; \
        r_->c0 = rowc0; r_->nc = *ncells - rowc0; r_->eol = (EOL); r_->opt = (O); r_->optn = (ON); \
        rowc0 = *ncells; } while (0)
    while (i < n) {
        char c = s[i];
        if (!begun && !tk_space((unsigned char)c)) { begun = 1; cell_line = lines ? lines[i] : line0; }
        if (c == '{') { d++; i++; continue; }
        if (c == '}') { if (d) d--; i++; continue; }
        int is_amp = 0;
        size_t alen = 1;
        if (d == 0) {
            if (amp) {
                if (amn && i + amn <= n && memcmp(s + i, amp, amn) == 0 &&
                    !(amp_letters && i + amn < n && isalpha((unsigned char)s[i + amn])))
                    { is_amp = 1; alen = amn; }
            } else if (c == '&') is_amp = 1;
        }
        if (is_amp) {
            add_cell(cells, ncells, &capc, s, start, i, cell_line);
            i += alen;
            const char *o;
            size_t on;
            if (read_bracket(s, n, &i, &o, &on)) { (*cells)[*ncells - 1].next = o; (*cells)[*ncells - 1].nextn = on; }
            start = i;
            begun = 0;
            continue;
        }
        if (c == '\\') {
            if (d == 0 && i + 1 < n && s[i + 1] == '\\') {
                add_cell(cells, ncells, &capc, s, start, i, cell_line);
                i += 2;
                const char *o = NULL;
                size_t on = 0;
                read_bracket(s, n, &i, &o, &on);
                END_ROW(1, o, on);
                start = i;
                begun = 0;
                continue;
            }
            i++;
            if (i < n && isalpha((unsigned char)s[i])) while (i < n && isalpha((unsigned char)s[i])) i++;
            else if (i < n) i++;
            continue;
        }
        i++;
    }
    /* a last row without \\ (pgf wants one): taken as a row when it has text */
    size_t a = start, b = n;
    while (a < b && tk_space((unsigned char)s[a])) a++;
    if (a < b || *ncells > rowc0) {
        add_cell(cells, ncells, &capc, s, start, n, cell_line);
        END_ROW(0, NULL, 0);
    }
#undef END_ROW
}

static int starts_path_command(const char *s, size_t n)
{
    static const char *const cmds[] = {
        "path", "draw", "fill", "filldraw", "node", "coordinate", "clip", "shade", "shadedraw",
        "pattern", "pic", "matrix", "useasboundingbox", "graph", NULL
    };
    if (n < 2 || s[0] != '\\') return 0;
    size_t k = 1;
    while (k < n && isalpha((unsigned char)s[k])) k++;
    for (int i = 0; cmds[i]; i++) if (tk_is(s + 1, k - 1, cmds[i])) return 1;
    return 0;
}

/* appends s[0,n) to a growing text */
static void cat(char **b, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *b = xrealloc(*b, *cap);
    }
    memcpy(*b + *len, s, n);
    *len += n;
    (*b)[*len] = 0;
}

/* \bgroup and \egroup as braces (execute at begin cell=\node\bgroup) */
static void cat_code(char **b, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        if (s[i] == '\\' && (tk_is(s + i, n - i < 7 ? n - i : 7, "\\bgroup") ||
                             tk_is(s + i, n - i < 7 ? n - i : 7, "\\egroup")) &&
            !(i + 7 < n && isalpha((unsigned char)s[i + 7]))) {
            cat(b, len, cap, s[i + 1] == 'b' ? "{" : "}", 1);
            i += 7;
            continue;
        }
        cat(b, len, cap, s + i, 1);
        i++;
    }
}

/* The code a cell runs (malloc'd; NULL: nothing) */
static char *cell_code(const mxopts *m, const mxcell *c, const char *mname)
{
    char *b = NULL;
    size_t len = 0, cap = 0;
    char nm[300];
    nm[0] = 0;
    if (mname && strlen(mname) < 200)
        snprintf(nm, sizeof nm, "[name=%s-%d-%d]", mname, c->row + 1, c->col + 1);
    if (c->n == 0) {
        if (m->cempty) cat_code(&b, &len, &cap, m->cempty);
        else if (m->of_nodes && m->empty_nodes) {
            cat(&b, &len, &cap, "\\node", 5);
            cat(&b, &len, &cap, nm, strlen(nm));
            cat(&b, &len, &cap, "{};", 3);
        }
        return b;
    }
    if (m->of_nodes && !starts_path_command(c->s, c->n)) {
        const char *t = c->s, *bar = NULL;
        size_t tn = c->n, barn = 0;
        if (tn && t[0] == '|') {
            const char *e = memchr(t + 1, '|', tn - 1);
            if (e) {
                bar = t + 1;
                barn = (size_t)(e - bar);
                tn -= (size_t)(e + 1 - t);
                t = e + 1;
                tk_trim(&t, &tn);
            }
        }
        /* |(name)| names the node (TikZ's later name wins) */
        int named = 0;
        for (size_t i = 0, d = 0; i < barn; i++) {
            if (bar[i] == '[' || bar[i] == '{') d++;
            else if ((bar[i] == ']' || bar[i] == '}') && d) d--;
            else if (bar[i] == '(' && d == 0) named = 1;
        }
        cat(&b, &len, &cap, "\\node", 5);
        if (!named) cat(&b, &len, &cap, nm, strlen(nm));
        if (bar) cat(&b, &len, &cap, bar, barn);
        cat(&b, &len, &cap, m->of_nodes == 2 ? "{$" : "{", m->of_nodes == 2 ? 2 : 1);
        cat(&b, &len, &cap, t, tn);
        cat(&b, &len, &cap, m->of_nodes == 2 ? "$};" : "};", m->of_nodes == 2 ? 3 : 2);
        return b;
    }
    if (m->cbegin && !m->of_nodes) cat_code(&b, &len, &cap, m->cbegin);
    cat(&b, &len, &cap, c->s, c->n);
    if (m->cend && !m->of_nodes) cat_code(&b, &len, &cap, m->cend);
    return b;
}

void tk_matrix_note_node(tikz *T, const tk_node *sh, double os, double stroke)
{
    if (!T->mxcell) return;
    /* the shape's path (its border, inside the anchors' outer sep), and
     * half the line width when it is stroked, as pgf's bounding box has a
     * path */
    double hw = sh->hw - os + stroke / 2, hh = sh->hh - os + stroke / 2;
    if (hw < 0) hw = 0;
    if (hh < 0) hh = 0;
    if (sh->rot != 0 && sh->shape != TK_SH_CIRCLE) {
        /* a rotated node: the box around its turned shape */
        double cr = fabs(cos(sh->rot * DEG)), sr = fabs(sin(sh->rot * DEG));
        double rw = hw * cr + hh * sr, rh = hw * sr + hh * cr;
        hw = rw;
        hh = rh;
    }
    ir_box_add(&T->mxcell->box, sh->c.x - hw, sh->c.y - hh);
    ir_box_add(&T->mxcell->box, sh->c.x + hw, sh->c.y + hh);
}

/* Moves an element by (dx, dy): its points and the points among its
 * attributes; xyz= no longer holds and is dropped */
static void shift_elem(ir_elem *e, double dx, double dy)
{
    ir_kind k = e->kind == IR_CLIP ? e->sub : e->kind;
    if (e->kind == IR_UNPARSED || e->kind == IR_EDGE || e->kind == IR_FINDING ||
        e->kind == IR_OTHER)
        return;
    size_t np = (k == IR_ELLIPSE || k == IR_ARC) ? (e->npts ? 1 : 0) : e->npts;
    for (size_t i = 0; i < np; i++) { e->pts[i].x += dx; e->pts[i].y += dy; }
    static const char *const keys[] = { "at", "of", "along", "vertex", NULL };
    for (int j = 0; keys[j]; j++) {
        const char *v = ir_elem_get(e, keys[j]);
        if (!v) continue;
        double nums[8];
        int m = 0;
        const char *p = v;
        while (*p && m < 8) {
            char *end;
            double x = strtod(p, &end);
            if (end == p) break;
            nums[m] = x + (m % 2 ? dy : dx);
            m++;
            p = end;
            if (*p == ',') p++;
        }
        if (m >= 2 && !*p) tk_set_nums(e, keys[j], nums, m);
    }
    if (ir_elem_get(e, "xyz")) ir_elem_set(e, "xyz", NULL);
}

/* runs a cell: its elements and extent */
static void run_cell(tikz *T, const mxopts *m, const char *opts, mxcell *c, const char *mname,
                     size_t **nodes, size_t *nnodes, size_t *capn, int **nodecell, size_t idx)
{
    c->e0 = T->d->nelems;
    c->box = ir_box_empty();
    char *code = cell_code(m, c, mname);
    if (code) {
        struct tk_mxcell mc;
        mc.box = ir_box_empty();
        tk_gs_push(T);
        if (opts) cell_opts(T, opts, strlen(opts), 0);
        if (m->cells) cell_opts(T, m->cells, strlen(m->cells), 0);
        char nm[64];
        cell_style(T, "every cell");
        snprintf(nm, sizeof nm, "column %d", c->col + 1);
        cell_style(T, nm);
        cell_style(T, (c->col + 1) % 2 ? "every odd column" : "every even column");
        snprintf(nm, sizeof nm, "row %d", c->row + 1);
        cell_style(T, nm);
        cell_style(T, (c->row + 1) % 2 ? "every odd row" : "every even row");
        snprintf(nm, sizeof nm, "row %d column %d", c->row + 1, c->col + 1);
        cell_style(T, nm);
        gstate *g = GS(T);
        g->ctm = mat_id();
        g->draw = g->fill = 0;
        T->mxcell = &mc;
        tk_run_code(T, code, strlen(code), c->line);
        T->mxcell = NULL;
        tk_gs_pop(T);
        free(code);
        c->box = mc.box;
    }
    c->e1 = T->d ? T->d->nelems : c->e0;
    for (size_t i = c->e0; i < c->e1; i++) {
        const ir_elem *e = &T->d->elems[i];
        if (e->kind == IR_COORD && e->name) {
            tk_node *nd = tk_find_node(T, e->name, strlen(e->name));
            if (nd) {
                if (*nnodes == *capn) {
                    *capn = *capn ? *capn * 2 : 16;
                    *nodes = xrealloc(*nodes, *capn * sizeof **nodes);
                    *nodecell = xrealloc(*nodecell, *capn * sizeof **nodecell);
                }
                (*nodes)[*nnodes] = (size_t)(nd - T->nodes);
                (*nodecell)[(*nnodes)++] = (int)idx;
            }
            continue;
        }
        if (e->kind == IR_TEXT || e->kind == IR_UNPARSED || e->kind == IR_CLIP ||
            e->kind == IR_OTHER)
            continue;
        ir_box b = ir_elem_box(e);
        if (b.empty) continue;
        /* a stroked path: pgf's bounding box has half its line width
         * around the path's extent (pgfcorepathusage.code.tex) */
        const char *dr = ir_elem_get(e, "draw");
        if (dr && strcmp(dr, "none") != 0) {
            double hw = ir_elem_getnum(e, "lw", 0.4) / 2;
            b.x1 -= hw; b.y1 -= hw; b.x2 += hw; b.y2 += hw;
        }
        ir_box_union(&c->box, b);
    }
}

void tk_matrix(tikz *T, tk_nodeopts *no, vec2 at, const char *opts, const char *body,
               int line, const int *body_lines)
{
    if (!T->d) return;
    if (T->mxcell) {
        tk_unparsed(T, line, "\\matrix", "a matrix inside a matrix cell (pgf cannot nest them)");
        return;
    }
    mxopts m;
    memset(&m, 0, sizeof m);
    if (GS(T)->mx_amp) m.amp = xstrndup(GS(T)->mx_amp, strlen(GS(T)->mx_amp));
    const char *em = tk_find_style(T, "every matrix", 12);
    char *emc = em ? xstrndup(em, strlen(em)) : NULL;
    if (emc) {
        tk_apply_opts(T, emc, strlen(emc), no, 0);
        mx_walk(T, emc, strlen(emc), &m, 0);
    }
    if (opts) mx_walk(T, opts, strlen(opts), &m, 0);
    const char *mname = no->name;
    if (m.delimiters) tk_warn(T, line, "matrix: its delimiters are not drawn");

    mxcell *cells;
    mxrow *rows;
    size_t ncells, nrows;
    split_body(body, strlen(body), m.amp, body_lines, line, &cells, &ncells, &rows, &nrows);
    size_t *nodes = NULL, nnodes = 0, capn = 0;
    int *nodecell = NULL;
    size_t start = T->d->nelems;
    /* the cells, each at its own origin */
    for (size_t r = 0; r < nrows; r++)
        for (size_t j = 0; j < rows[r].nc; j++) {
            mxcell *c = &cells[rows[r].c0 + j];
            c->row = (int)r;
            c->col = (int)j;
            run_cell(T, &m, opts, c, mname, &nodes, &nnodes, &capn, &nodecell, rows[r].c0 + j);
            if (!T->d || tex_failed(T->tex)) goto out;
        }

    /* the layout, as pgf's \pgf@matrix@endcell and \pgfmatrixendrow */
    {
    size_t maxc = 0;
    for (size_t r = 0; r < nrows; r++) if (rows[r].nc > maxc) maxc = rows[r].nc;
    size_t ac = maxc + 2;
    double *sep = xrealloc(NULL, ac * sizeof *sep), *minx = xrealloc(NULL, ac * sizeof *minx),
           *maxx = xrealloc(NULL, ac * sizeof *maxx), *ox = xrealloc(NULL, ac * sizeof *ox);
    unsigned char *fin_minx0 = xrealloc(NULL, ac), *fin_maxx0 = xrealloc(NULL, ac);
    double *maxy = xrealloc(NULL, (nrows + 1) * sizeof *maxy),
           *miny = xrealloc(NULL, (nrows + 1) * sizeof *miny),
           *oy = xrealloc(NULL, (nrows + 1) * sizeof *oy);
    for (size_t j = 0; j < ac; j++) { sep[j] = minx[j] = maxx[j] = ox[j] = 0; fin_minx0[j] = fin_maxx0[j] = 0; }
    size_t ncols = 0;
    int rowfin = 0;
    double depth_last = 0;
    for (size_t r = 0; r < nrows; r++) {
        maxy[r] = miny[r] = 0;
        for (size_t jj = 0; jj < rows[r].nc; jj++) {
            size_t j = jj + 1;           /* pgf's column number */
            mxcell *c = &cells[rows[r].c0 + jj];
            int last = jj + 1 == rows[r].nc;
            if (j >= ncols && !last) {
                int fixed = 0;
                double x = 0;
                sep_add(T, m.colsep, m.colsep ? strlen(m.colsep) : 0, &x, &fixed);
                sep_add(T, c->next, c->nextn, &x, &fixed);
                if (fixed) fin_maxx0[j] = 1;
                sep[j + 1] = x;
                fin_minx0[j + 1] = (unsigned char)fixed;
                fin_maxx0[j + 1] = 0;
            }
            double bx1 = 0, bx2 = 0, by1 = 0, by2 = 0;
            if (!c->box.empty) { bx1 = c->box.x1; bx2 = c->box.x2; by1 = c->box.y1; by2 = c->box.y2; }
            if (fin_minx0[j]) bx1 = 0;
            if (fin_maxx0[j]) bx2 = 0;
            if (rowfin) by2 = 0;
            if (j > 1) bx1 -= sep[j];
            if (by2 > maxy[r]) maxy[r] = by2;
            if (by1 < miny[r]) miny[r] = by1;
            if (j > ncols) { maxx[j] = bx2; minx[j] = bx1; ncols = j; }
            else { if (bx2 > maxx[j]) maxx[j] = bx2; if (bx1 < minx[j]) minx[j] = bx1; }
        }
        depth_last = -miny[r];
        if (rows[r].eol) {
            int fixed = 0;
            double y = 0;
            sep_add(T, m.rowsep, m.rowsep ? strlen(m.rowsep) : 0, &y, &fixed);
            sep_add(T, rows[r].opt, rows[r].optn, &y, &fixed);
            miny[r] -= y;
            if (r + 1 < nrows) {
                if (fixed) miny[r] = -y;
                rowfin = fixed;
            }
        }
    }
    double W = 0, H = 0, D = 0;
    if (nrows) {
        oy[nrows - 1] = 0;
        for (size_t r = nrows - 1; r > 0; r--) oy[r - 1] = oy[r] + maxy[r] - miny[r - 1];
        H = oy[0] + maxy[0];
        D = depth_last;
    }
    if (ncols) {
        ox[1] = -minx[1];
        for (size_t j = 1; j < ncols; j++) ox[j + 1] = ox[j] + maxx[j] - minx[j + 1];
        W = ox[ncols] + maxx[ncols];
    }

    /* the matrix node */
    no->has_box = 1;
    no->box_w = W;
    no->box_h = H;
    no->box_d = D;
    if (no->rotate != 0)
        tk_warn(T, line, "matrix: rotate= of the matrix node is not applied to its cells (placed unrotated)");
    no->rotate = 0;
    int inner = 0;
    if (m.manchor) {
        const char *dot = strrchr(m.manchor, '.');
        tk_node *nd = NULL;
        if (dot) nd = tk_find_node(T, m.manchor, (size_t)(dot - m.manchor));
        if (dot && nd) {
            /* a cell node's anchor at the point: its place in the box, the
             * box's origin from there, the node's centre from the box */
            tk_node tmp = *nd;
            size_t ni = (size_t)(nd - T->nodes);
            int cell = -1;
            for (size_t q = 0; q < nnodes; q++) if (nodes[q] == ni) cell = nodecell[q];
            if (cell >= 0) {
                tmp.c.x += ox[cells[cell].col + 1];
                tmp.c.y += oy[cells[cell].row];
            }
            vec2 p;
            if (tk_node_anchor(T, &tmp, dot + 1, strlen(dot + 1), &p) == 0) {
                vec2 o = vsub(at, p);
                at = v2(o.x + W / 2, o.y + (H - D) / 2);
                strcpy(no->anchor, "center");
                no->has_anchor = 1;
                inner = 1;
            }
        }
        if (!inner) {
            if (dot) tk_warn(T, line, "matrix anchor '%.60s': no such node in the matrix; its anchor= is used",
                             m.manchor);
            else if (strlen(m.manchor) < sizeof no->anchor) {
                strcpy(no->anchor, m.manchor);
                no->has_anchor = 1;
            }
        }
    }
    size_t frame0 = T->d->nelems;
    tk_node geom;
    memset(&geom, 0, sizeof geom);
    tk_place_node_geom(T, no, at, "", line, &geom);
    vec2 origin = v2(geom.c.x - W / 2, geom.c.y + geom.by);

    /* every cell to its place */
    for (size_t q = 0; q < ncells; q++) {
        mxcell *c = &cells[q];
        double dx = origin.x + ox[c->col + 1], dy = origin.y + oy[c->row];
        for (size_t i = c->e0; i < c->e1 && i < T->d->nelems; i++) shift_elem(&T->d->elems[i], dx, dy);
    }
    {
        int *last = xrealloc(NULL, (T->nnodes + 1) * sizeof *last);
        for (size_t i = 0; i < T->nnodes; i++) last[i] = -1;
        for (size_t q = 0; q < nnodes; q++) if (nodes[q] < T->nnodes) last[nodes[q]] = nodecell[q];
        for (size_t i = 0; i < T->nnodes; i++) {
            if (last[i] < 0) continue;
            const mxcell *c = &cells[last[i]];
            T->nodes[i].c.x += origin.x + ox[c->col + 1];
            T->nodes[i].c.y += origin.y + oy[c->row];
        }
        free(last);
    }
    /* the matrix's own path and text first, as TikZ draws them */
    tk_elems_rotate(T->d, start, frame0);
    free(sep); free(minx); free(maxx); free(ox); free(fin_minx0); free(fin_maxx0);
    free(maxy); free(miny); free(oy);
    }
out:
    free(nodes);
    free(nodecell);
    free(cells);
    free(rows);
    free(emc);
    mx_free(&m);
}
