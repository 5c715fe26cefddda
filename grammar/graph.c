/* graph.c — TikZ's graphs library: \graph and the graph path operation, as
 * tikzlibrarygraphs.code.tex (pgf 3.1) defines them.
 *
 * A graph's text is read the way the library reads it: a group is
 * "[options] chain, chain; ...", a chain is "element connector element ...",
 * an element a node ("name/text [options]", "\"quoted\"", "(reference)"),
 * a group "{...}", a graph macro ("subgraph K_n [n=4]") or "\foreach \x in
 * {list} {group}". Each fresh node becomes "\node [name=..., nodes styling,
 * shift=(placement), options] {text};" and each edge "\path [->] (a) edge
 * [edges styling] (b);", run by the path builder like the document's own.
 *
 * Placement is the library's online placement: the counters width and
 * depth of every chain and group (tikz@lib@graph@placement@update,
 * ...@after@chain@update, ...@hint@aftergroup), a placement key
 * (grow right, branch down, ...) computing the shift of the current
 * scope and resetting them, Cartesian, circular and grid placement, the
 * sep variants taking node sizes into account. Edges between groups join
 * the target nodes of the left group to the source nodes of the right one
 * with the joining operator (default: matching and star).
 *
 * What is out of reach (layouts of the graphdrawing library, color
 * classes, operators not listed below, sublayouts, tries, edge
 * annotations) makes the whole graph one unparsed record with a warning;
 * nothing of it is drawn. To know that before drawing, a graph is run
 * twice: once dry (nothing emitted, every key checked), then for real. */
#include "grammar/interp.h"
#include "ir/cli.h"
#include "ir/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define G_MAX_NODES 5000          /* nodes of one graph */
#define G_MAX_EDGES 20000         /* edges of one graph */
#define G_MAX_DEPTH 64            /* nested groups, foreach and macros */
#define G_MAX_LIST 1000           /* V=, foreach items */

/* logical colors */
enum { C_SRC = 1, C_TGT = 2, C_SRC1 = 4, C_SRC2 = 8, C_TGT1 = 16 };
enum { K_UND, K_FWD, K_BACK, K_BI, K_NONE };   /* -- -> <- <-> -!- */
enum { P_CART, P_NONE, P_CIRC, P_GRID };
#define C_ALL 0xffffffffu      /* the class all: every node */
#define C_USER0 5              /* color class=: bits 5..31 */
#define G_MAX_CLASSES 27
#define G_MAX_LEVELS 32
enum { OP_NONE, OP_CLIQUE, OP_PATH, OP_CYCLE, OP_GRID, OP_BIP, OP_MATCH, OP_MSTAR, OP_NOEDGES,
       OP_SIMPLE_DONE, OP_COLOR, OP_UNCOLOR, OP_RECOLOR, OP_INDEP, OP_BFLY };

typedef struct { int *v; int n, cap; } ilist;

/* the options in force (what the library keeps in pgfkeys and macros,
 * scoped as TeX groups scope them) */
typedef struct {
    struct tp_buf nodes;      /* @nodes styling */
    struct tp_buf edges;      /* @edges styling */
    struct tp_buf enodes;     /* @edges node */
    struct tp_buf path;       /* name prefix (name=) */
    struct tp_buf sep;        /* name separator */
    struct tp_buf typeset;    /* typeset= code (\tikzgraphnodetext ...) */
    int defop;                /* default edge operator (OP_...) */
    int number;               /* number nodes: on */
    struct tp_buf numsep;     /* number nodes sep */
    struct tp_buf quotes;     /* every edge quotes (edge quotes=); "@AUTO@" for auto */
    int kind;                 /* default edge kind */
    char lanchor[32], ranchor[32];
    int place;                /* P_... */
    vec2 cs, gs;              /* chain/group shift, pt */
    vec2 cps, gps;            /* polar shifts: x angle, y distance */
    double radius, phase;
    int cw_default;           /* clockwise without a value: 360/|V| when placing (-1, 1) */
    int wmode, dmode;         /* logical node width/depth: 0 one, 1 width+sep, 2 height+sep */
    double wsep, dsep;
    char auto_h[8], auto_v[8];
    int wrap;
    char **V, **W;            /* V=, W= (owned) */
    int nV, nW;
    int shoreV, shoreW;       /* name shore V/W mean name=V/W (n=, m=) */
    int fresh;
    int trie;                 /* trie: a node's name becomes part of the path */
    int level;                /* placement/level: nodes so far in the chain */
    int gat;                  /* graphs/x, graphs/y given: at=({gx},{gy}) for the nodes */
    char gx[64], gy[64];
    int putnt;                /* put node text on incoming (1) / outgoing (2) edges */
    struct tp_buf putopt;     /* its options */
    int ops[8], nops;         /* @operators of the current group */
    unsigned opa[8], opb[8];  /* their color classes (#1, #2) */
    int opl[8];               /* butterfly: its level */
} gopt;

typedef struct {
    double W, D, LW, LD;      /* placement/width, depth, local width, local depth */
} gcount;

typedef struct {
    char *full;               /* full name */
    char alias[32];           /* the picture's name for edges ("" when it is the full name) */
    unsigned col;
    int ok;                   /* exists in the picture */
    /* edge annotations (\tikz@lgca@@ / \tikz@lgcb@@ of the name): the
     * style and the nodes an edge from it (a) or to it (b) gets */
    struct tp_buf ast, anode, bst, bnode;
} gnode;

typedef struct {
    int from, to, kind;
    char *opts, *enodes;
} gedge;

typedef struct {
    tikz *T;
    int line;
    int dry;                  /* checking pass: nothing emitted */
    const char *why;          /* first reason the graph is out of reach */
    char whybuf[160];
    gnode *nodes;
    int nnodes, capnodes;
    int simple;
    gedge *sedges;            /* simple graphs: the edges kept, emitted at the end */
    int nsedges, capsedges;
    long nedges;
    int depth;
    int anon;
    long autonum;             /* number nodes: the next number */
    struct { char *name, *body; } decl[32];   /* declare= */
    char *cls[G_MAX_CLASSES]; /* color class= names (bit C_USER0 + i) */
    int ncls;
    int bfly_level;           /* the level of the butterfly being run */
    char *lev[G_MAX_LEVELS];  /* level N/.style= (graphs keys) */
    int ndecl;
    gopt o;
    gcount c;
    double gdepth, gwidth;    /* \tikz@lib@graph@group@depth/width */
} G;

/* ---- small helpers -------------------------------------------------------- */

static void buf_set(struct tp_buf *b, const char *s, size_t n)
{
    b->n = 0;
    tp_buf_add(b, s, n);
}

static void buf_addc(struct tp_buf *b, const char *s)
{
    tp_buf_add(b, s, strlen(s));
}

static void buf_free(struct tp_buf *b) { free(b->s); b->s = NULL; b->n = b->cap = 0; }

static const char *bs(const struct tp_buf *b) { return b->s ? b->s : ""; }

static void il_push(ilist *l, int x)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = x;
}

static void fail(G *g, const char *fmt, const char *arg, size_t an)
{
    if (g->why) return;
    char a[80];
    if (an > 60) an = 60;
    memcpy(a, arg ? arg : "", arg ? an : 0);
    a[arg ? an : 0] = 0;
    cli_one_line(a);
    snprintf(g->whybuf, sizeof g->whybuf, fmt, a);
    g->why = g->whybuf;
}

static char **strv_copy(char **v, int n)
{
    if (!v) return NULL;
    char **r = xmalloc((size_t)(n ? n : 1) * sizeof *r);
    for (int i = 0; i < n; i++) r[i] = xstrdup(v[i]);
    return r;
}

static void strv_free(char **v, int n)
{
    for (int i = 0; v && i < n; i++) free(v[i]);
    free(v);
}

static void opt_copy(gopt *d, const gopt *s)
{
    *d = *s;
    memset(&d->nodes, 0, sizeof d->nodes);
    memset(&d->edges, 0, sizeof d->edges);
    memset(&d->enodes, 0, sizeof d->enodes);
    memset(&d->path, 0, sizeof d->path);
    memset(&d->sep, 0, sizeof d->sep);
    memset(&d->typeset, 0, sizeof d->typeset);
    memset(&d->numsep, 0, sizeof d->numsep);
    memset(&d->quotes, 0, sizeof d->quotes);
    memset(&d->putopt, 0, sizeof d->putopt);
    tp_buf_add(&d->putopt, bs(&s->putopt), s->putopt.n);
    tp_buf_add(&d->quotes, bs(&s->quotes), s->quotes.n);
    tp_buf_add(&d->typeset, bs(&s->typeset), s->typeset.n);
    tp_buf_add(&d->numsep, bs(&s->numsep), s->numsep.n);
    tp_buf_add(&d->nodes, bs(&s->nodes), s->nodes.n);
    tp_buf_add(&d->edges, bs(&s->edges), s->edges.n);
    tp_buf_add(&d->enodes, bs(&s->enodes), s->enodes.n);
    tp_buf_add(&d->path, bs(&s->path), s->path.n);
    tp_buf_add(&d->sep, bs(&s->sep), s->sep.n);
    d->V = strv_copy(s->V, s->nV);
    d->W = strv_copy(s->W, s->nW);
}

static void opt_free(gopt *o)
{
    buf_free(&o->nodes);
    buf_free(&o->edges);
    buf_free(&o->enodes);
    buf_free(&o->path);
    buf_free(&o->sep);
    buf_free(&o->typeset);
    buf_free(&o->numsep);
    buf_free(&o->quotes);
    buf_free(&o->putopt);
    strv_free(o->V, o->nV);
    strv_free(o->W, o->nW);
    o->V = o->W = NULL;
}

/* a TeX group around the options and counters */
typedef struct { gopt o; gcount c; } gsave;

static void push(G *g, gsave *s)
{
    opt_copy(&s->o, &g->o);
    s->c = g->c;
}

static void pop(G *g, gsave *s)
{
    opt_free(&g->o);
    g->o = s->o;
    g->c = s->c;
}

/* the matching close of the bracket at s[i] (n when there is none) */
static size_t match_close(const char *s, size_t i, size_t n)
{
    char open = s[i], close = open == '{' ? '}' : open == '[' ? ']' : ')';
    int d = 0;
    for (; i < n; i++) {
        if (s[i] == '{' && open != '{') {   /* braces protect the others */
            size_t j = match_close(s, i, n);
            if (j >= n) return n;
            i = j;
            continue;
        }
        if (s[i] == open) d++;
        else if (s[i] == close && --d == 0) return i;
    }
    return n;
}

static void skip_sp(const char *s, size_t *i, size_t n)
{
    while (*i < n && tk_space((unsigned char)s[*i])) (*i)++;
}

/* the items of an option list, split at top-level commas: calls f(key, value) */
typedef void (*kv_fn)(G *g, const char *k, size_t kn, const char *v, size_t vn, int hasv, void *ctx);

static void each_kv(G *g, const char *s, size_t n, kv_fn f, void *ctx)
{
    size_t i = 0;
    while (i <= n && !g->why) {
        size_t j = tk_scan_to(s, i, n, ",", 0);
        const char *it = s + i;
        size_t in = j - i;
        tk_trim(&it, &in);
        if (in) {
            size_t e = tk_scan_to(it, 0, in, "=", 0);
            const char *k = it, *v = NULL;
            size_t kn = e, vn = 0;
            tk_trim(&k, &kn);
            if (e < in) {
                v = it + e + 1;
                vn = in - e - 1;
                tk_trim(&v, &vn);
                tk_unbrace(&v, &vn);
            }
            f(g, k, kn, v, vn, e < in, ctx);
        }
        i = j + 1;
    }
}

/* a coordinate's user-space point ("(#1,0)" as the library builds it) */
static vec2 eval_pt(G *g, const char *fmt, const char *v, size_t vn)
{
    char buf[160];
    if (vn > 60) vn = 60;
    char a[64];
    memcpy(a, v, vn);
    a[vn] = 0;
    snprintf(buf, sizeof buf, fmt, a);
    vec2 p = v2(0, 0);
    if (tk_coord_user(g->T, buf, strlen(buf), &p, g->line) != 0) fail(g, "cannot evaluate the shift (%s)", buf, strlen(buf));
    return p;
}

static double eval_num(G *g, const char *v, size_t vn, double dflt)
{
    double r;
    int hu;
    if (!vn) return dflt;
    if (tk_eval(g->T, v, vn, &r, &hu) != 0) { fail(g, "cannot evaluate %s", v, vn); return dflt; }
    return r;
}

/* "a,b,c" and "1,...,n" as \foreach reads them (numbers and single letters) */
static char **expand_list(G *g, const char *s, size_t n, int *out_n)
{
    char **v = NULL;
    int nv = 0, cap = 0;
    size_t i = 0;
    while (i <= n && !g->why) {
        size_t j = tk_scan_to(s, i, n, ",", 1);
        const char *it = s + i;
        size_t in = j - i;
        tk_trim(&it, &in);
        tk_unbrace(&it, &in);
        if (tk_is(it, in, "...")) {
            /* the range from the previous item to the next */
            size_t k = j + 1 < n ? tk_scan_to(s, j + 1, n, ",", 1) : n;
            const char *nx = s + j + 1;
            size_t nn = j + 1 < n ? k - j - 1 : 0;
            tk_trim(&nx, &nn);
            if (nv == 0 || !nn) { fail(g, "a list with '...' I cannot expand: %s", s, n); break; }
            const char *pv = v[nv - 1];
            char *e1, *e2;
            double a = strtod(pv, &e1), b = strtod(nx, &e2);
            double step = 1;
            if (*e1 == 0 && e2 == nx + nn) {
                if (nv >= 2) {
                    char *e3;
                    double p2 = strtod(v[nv - 2], &e3);
                    if (*e3 == 0) step = a - p2;
                } else if (b < a) step = -1;
                if (step == 0 || (b - a) / step > G_MAX_LIST) { fail(g, "a list too long: %s", s, n); break; }
                for (double x = a + step; step > 0 ? x <= b + 1e-9 : x >= b - 1e-9; x += step) {
                    char num[40];
                    snprintf(num, sizeof num, "%.10g", x);
                    if (nv == cap) { cap = cap ? 2 * cap : 16; v = xrealloc(v, (size_t)cap * sizeof *v); }
                    v[nv++] = xstrdup(num);
                }
            } else if (strlen(pv) == 1 && nn == 1 && isalpha((unsigned char)pv[0]) &&
                       isalpha((unsigned char)nx[0])) {
                int st = pv[0] <= nx[0] ? 1 : -1;
                for (int c = pv[0] + st; st > 0 ? c <= nx[0] : c >= nx[0]; c += st) {
                    char one[2] = { (char)c, 0 };
                    if (nv == cap) { cap = cap ? 2 * cap : 16; v = xrealloc(v, (size_t)cap * sizeof *v); }
                    v[nv++] = xstrdup(one);
                }
            } else {
                fail(g, "a list with '...' I cannot expand: %s", s, n);
                break;
            }
            i = k + 1;
            continue;
        }
        if (in || j < n) {
            if (nv >= G_MAX_LIST) { fail(g, "a list too long: %s", s, n); break; }
            if (nv == cap) { cap = cap ? 2 * cap : 16; v = xrealloc(v, (size_t)cap * sizeof *v); }
            v[nv++] = xstrndup(it, in);
        }
        i = j + 1;
    }
    *out_n = nv;
    return v;
}

/* ---- options ---------------------------------------------------------------- */

static int is_layout_key(const char *k, size_t kn)
{
    return (kn > 7 && memcmp(k + kn - 7, " layout", 7) == 0) || tk_is(k, kn, "layout");
}

/* keys of the library this file does not do: the graph is out of reach */
static int unsupported_key(const char *k, size_t kn)
{
    static const char *const no[] = {
        "operator", "declare", "butterfly", "butterfly'", "quick",
        "use existing nodes",
        "source edge style", "target edge style", "source edge node",
        "target edge node", "source edge clear", "target edge clear", "parse", "level",
        "not source", "not target", "source", "target", "set", "new set", "clear >", "clear <",
        "sibling distance", "level distance", NULL
    };
    for (int i = 0; no[i]; i++) if (tk_is(k, kn, no[i])) return 1;
    if (kn >= 6 && memcmp(k, "level ", 6) == 0) return 1;
    if (kn && (k[0] == '>' || k[0] == '<' || k[0] == '!')) return 1;
    if (kn > 8 && memcmp(k, "recolor ", 8) == 0) return 1;
    if (is_layout_key(k, kn)) return 1;
    if (memchr(k, '/', kn)) return 1;   /* handlers, paths (placement/..., level 1/.style) */
    return 0;
}

static void set_list(G *g, char ***v, int *n, const char *s, size_t sn)
{
    strv_free(*v, *n);
    *v = expand_list(g, s, sn, n);
}

/* placement/place: the position of the current scope from the counters,
 * appended to the nodes styling; the counters start again */
static vec2 compute_shift(G *g)
{
    gopt *o = &g->o;
    double W = g->c.W, D = g->c.D;
    switch (o->place) {
    case P_NONE: return v2(NAN, NAN);
    case P_CIRC: {
        if (o->cw_default) o->gps = v2(o->cw_default * 360.0 / (o->V ? o->nV : 1), 0);
        double ang = W * o->cps.x + D * o->gps.x + o->phase;
        double r = W * o->cps.y + D * o->gps.y + o->radius;
        return v2(r * cos(ang * DEG), r * sin(ang * DEG));
    }
    case P_GRID: {
        int wrap = o->wrap;
        if (wrap <= 0) wrap = (int)sqrt((double)(o->V ? o->nV : 1));
        if (wrap <= 0) wrap = 1;
        double t = W > D ? W : D;
        double col = fmod(t, wrap), row = trunc(t / wrap);
        return v2(row * o->gs.x + col * o->cs.x, row * o->gs.y + col * o->cs.y);
    }
    default:
        return v2(W * o->cs.x + D * o->gs.x, W * o->cs.y + D * o->gs.y);
    }
}

static void add_shift(struct tp_buf *b, vec2 p)
{
    if (isnan(p.x)) return;
    char t[96];
    snprintf(t, sizeof t, ",shift={(%.6fpt,%.6fpt)}", p.x, p.y);
    buf_addc(b, t);
}

static void place(G *g, int *placed)
{
    add_shift(&g->o.nodes, compute_shift(g));
    g->c.W = g->c.D = g->c.LW = g->c.LD = 0;
    if (placed) *placed = 1;
}

static void auto_anchor(G *g, int horiz, const char *a)
{
    snprintf(horiz ? g->o.auto_h : g->o.auto_v, 8, "%s", a);
    buf_addc(&g->o.nodes, ",anchor=@AUTO@");
}

struct optctx { int *placed; struct tp_buf *tikz; int edge; int *op; };

/* the bit of a color class (built-in or color class=); 0 if none (with
 * user only: the classes of color class= alone) */
static unsigned class_bit(G *g, const char *n, size_t nn, int builtin)
{
    tk_trim(&n, &nn);
    tk_unbrace(&n, &nn);
    tk_trim(&n, &nn);
    for (int i = 0; i < g->ncls; i++)
        if (tk_is(n, nn, g->cls[i])) return 1u << (C_USER0 + i);
    if (!builtin) return 0;
    if (tk_is(n, nn, "all")) return C_ALL;
    if (tk_is(n, nn, "source")) return C_SRC;
    if (tk_is(n, nn, "source'")) return C_SRC1;
    if (tk_is(n, nn, "source''")) return C_SRC2;
    if (tk_is(n, nn, "target")) return C_TGT;
    if (tk_is(n, nn, "target'")) return C_TGT1;
    return 0;
}

static int new_class(G *g, const char *n, size_t nn)
{
    tk_trim(&n, &nn);
    tk_unbrace(&n, &nn);
    if (g->ncls >= G_MAX_CLASSES) { fail(g, "more than 27 color classes%s", "", 0); return 0; }
    g->cls[g->ncls++] = xstrndup(n, nn);
    return 1;
}

static void add_op(G *g, int op, unsigned c1, unsigned c2)
{
    if (g->o.nops >= 8) { fail(g, "more than 8 operators in one group%s", "", 0); return; }
    g->o.ops[g->o.nops] = op;
    g->o.opl[g->o.nops] = 0;
    g->o.opa[g->o.nops] = c1;
    g->o.opb[g->o.nops++] = c2;
}

/* an operator's classes: one (clique=red) or two ({red}{green}) */
static int op_classes(G *g, const char *v, size_t vn, int two, unsigned *c1, unsigned *c2)
{
    tk_trim(&v, &vn);
    if (!two) return (*c1 = class_bit(g, v, vn, 1)) != 0;
    if (!vn || v[0] != '{') return 0;
    size_t e = match_close(v, 0, vn);
    if (e >= vn) return 0;
    *c1 = class_bit(g, v + 1, e - 1, 1);
    const char *r = v + e + 1;
    size_t rn = vn - e - 1;
    tk_trim(&r, &rn);
    *c2 = rn ? class_bit(g, r, rn, 1) : C_SRC1;
    return *c1 && *c2 && *c1 != C_ALL && *c2 != C_ALL;
}

/* NAME, not NAME, !NAME, recolor NAME by=X of a class of color class= */
static int class_key(G *g, const char *k, size_t kn, const char *v, size_t vn, int hasv,
                     int *op, unsigned *c1, unsigned *c2)
{
    *c2 = 0;
    if (kn > 11 && memcmp(k, "recolor ", 8) == 0 && memcmp(k + kn - 3, " by", 3) == 0) {
        if (!(*c1 = class_bit(g, k + 8, kn - 11, 0)) || !hasv || !(*c2 = class_bit(g, v, vn, 0))) return 0;
        *op = OP_RECOLOR;
        return 1;
    }
    if (hasv) return 0;
    if (kn > 4 && memcmp(k, "not ", 4) == 0) { *op = OP_UNCOLOR; return (*c1 = class_bit(g, k + 4, kn - 4, 0)) != 0; }
    if (kn > 1 && k[0] == '!') { *op = OP_UNCOLOR; return (*c1 = class_bit(g, k + 1, kn - 1, 0)) != 0; }
    *op = OP_COLOR;
    return (*c1 = class_bit(g, k, kn, 0)) != 0;
}


/* a graph key (scope options of \graph, a group's or an edge's); unknown
 * keys go to ctx->tikz (TikZ options of the scope, or the edges styling) */
static void graph_key(G *g, const char *k, size_t kn, const char *v, size_t vn, int hasv, void *vctx)
{
    struct optctx *cx = vctx;
    gopt *o = &g->o;
    char dflt[16];
#define DEF(d) do { if (!hasv) { snprintf(dflt, sizeof dflt, "%s", d); v = dflt; vn = strlen(dflt); } } while (0)
    if (tk_is(k, kn, "nodes")) { buf_addc(&o->nodes, ","); tp_buf_add(&o->nodes, v, vn); return; }
    if (tk_is(k, kn, "edges") || tk_is(k, kn, "edge")) { buf_addc(&o->edges, ","); tp_buf_add(&o->edges, v, vn); return; }
    if (tk_is(k, kn, "edge node")) { buf_addc(&o->enodes, " "); tp_buf_add(&o->enodes, v, vn); return; }
    if (tk_is(k, kn, "edge label") || tk_is(k, kn, "edge label'")) {
        buf_addc(&o->enodes, kn == 10 ? " node[@AUTOL@]{" : " node[@AUTOR@]{");
        tp_buf_add(&o->enodes, v, vn);
        buf_addc(&o->enodes, "}");
        return;
    }
    if (tk_is(k, kn, "empty nodes")) { o->typeset.n = 0; buf_addc(&o->typeset, ""); return; }
    if ((tk_is(k, kn, "x") || tk_is(k, kn, "y")) && !cx->edge) {
        /* graphs/x, graphs/y (\tikz@lib@graphs@check@at): the nodes of the
         * scope at ({x},{y}), the other coordinate 0 until given */
        if (!hasv || vn >= sizeof o->gx) { fail(g, "graphs key %s without a short value", k, kn); return; }
        if (!o->gat) { strcpy(o->gx, "0"); strcpy(o->gy, "0"); }
        o->gat = 1;
        char *d = k[0] == 'x' ? o->gx : o->gy;
        memcpy(d, v, vn);
        d[vn] = 0;
        return;
    }
    if (tk_is(k, kn, "math nodes")) { buf_set(&o->typeset, "$\\tikzgraphnodetext$", 20); return; }
    if (tk_is(k, kn, "typeset")) { buf_set(&o->typeset, v, vn); return; }
    if (tk_is(k, kn, "quick")) {
        /* the quick syntax is a subset of the normal one; its nodes are
         * not placed (no placement/place) */
        o->place = P_NONE;
        return;
    }
    if (tk_is(k, kn, "number nodes")) {
        o->number = 1;
        g->autonum = hasv ? (long)eval_num(g, v, vn, 1) : 1;
        return;
    }
    if (tk_is(k, kn, "edge quotes")) { buf_set(&o->quotes, v, vn); return; }
    if (tk_is(k, kn, "edge quotes center")) { buf_set(&o->quotes, "anchor=center", 13); return; }
    if (tk_is(k, kn, "edge quotes mid")) { buf_set(&o->quotes, "anchor=mid", 10); return; }
    if (tk_is(k, kn, "number nodes sep")) { buf_set(&o->numsep, v, vn); return; }
    if (tk_is(k, kn, "default edge operator")) {
        int op = tk_is(v, vn, "complete bipartite") ? OP_BIP : tk_is(v, vn, "matching") ? OP_MATCH :
                 tk_is(v, vn, "matching and star") ? OP_MSTAR : tk_is(v, vn, "no edges") ? OP_NOEDGES : 0;
        if (!op) { fail(g, "the default edge operator %s", v, vn); return; }
        o->defop = op;
        return;
    }
    if (tk_is(k, kn, "declare")) {
        /* declare={name}{graph} */
        size_t a = 0;
        skip_sp(v, &a, vn);
        size_t ae = a < vn && v[a] == '{' ? match_close(v, a, vn) : vn;
        size_t b = ae + 1;
        if (ae < vn) skip_sp(v, &b, vn);
        size_t be = b < vn && v[b] == '{' ? match_close(v, b, vn) : vn;
        if (ae >= vn || be >= vn) { fail(g, "a declare= I cannot read: %s", v, vn); return; }
        if (g->ndecl >= 32) { fail(g, "more than 32 declared graphs%s", "", 0); return; }
        g->decl[g->ndecl].name = xstrndup(v + a + 1, ae - a - 1);
        g->decl[g->ndecl].body = xstrndup(v + b + 1, be - b - 1);
        g->ndecl++;
        return;
    }
    if (tk_is(k, kn, "--")) { o->kind = K_UND; return; }
    if (tk_is(k, kn, "->")) { o->kind = K_FWD; return; }
    if (tk_is(k, kn, "<-")) { o->kind = K_BACK; return; }
    if (tk_is(k, kn, "<->")) { o->kind = K_BI; return; }
    if (tk_is(k, kn, "-!-")) { o->kind = K_NONE; return; }
    if (tk_is(k, kn, "default edge kind")) {
        if (tk_is(v, vn, "--")) o->kind = K_UND;
        else if (tk_is(v, vn, "->")) o->kind = K_FWD;
        else if (tk_is(v, vn, "<-")) o->kind = K_BACK;
        else if (tk_is(v, vn, "<->")) o->kind = K_BI;
        else if (tk_is(v, vn, "-!-")) o->kind = K_NONE;
        else fail(g, "unknown edge kind %s", v, vn);
        return;
    }
    if (tk_is(k, kn, "left anchor") || tk_is(k, kn, "right anchor")) {
        char *d = k[0] == 'l' ? o->lanchor : o->ranchor;
        if (vn > 28) vn = 28;
        if (vn) { d[0] = '.'; memcpy(d + 1, v, vn); d[vn + 1] = 0; } else d[0] = 0;
        return;
    }
    if (tk_is(k, kn, "name")) { tp_buf_add(&o->path, v, vn); tp_buf_add(&o->path, bs(&o->sep), o->sep.n); return; }
    if (tk_is(k, kn, "name separator")) { buf_set(&o->sep, v, vn); return; }
    if (tk_is(k, kn, "simple")) {
        if (!g->simple) g->simple = 1;
        return;
    }
    if (tk_is(k, kn, "multi")) return;
    if (tk_is(k, kn, "fresh nodes")) { o->fresh = !hasv || tk_is(v, vn, "true"); return; }
    if (tk_is(k, kn, "trie")) { o->trie = !hasv || tk_is(v, vn, "true"); return; }
    if (tk_is(k, kn, "put node text on incoming edges") || tk_is(k, kn, "put node text on outgoing edges")) {
        o->putnt = k[17] == 'i' ? 1 : 2;
        o->putopt.n = 0;
        if (o->putopt.s) o->putopt.s[0] = 0;
        if (hasv) tp_buf_add(&o->putopt, v, vn);
        return;
    }
    if (tk_is(k, kn, "n")) { char t[80];
        snprintf(t, sizeof t, "1,...,%.*s", (int)(vn > 60 ? 60 : vn), v);
        set_list(g, &o->V, &o->nV, t, strlen(t)); o->shoreV = 1; return; }
    if (tk_is(k, kn, "m")) { char t[80];
        snprintf(t, sizeof t, "1,...,%.*s", (int)(vn > 60 ? 60 : vn), v);
        set_list(g, &o->W, &o->nW, t, strlen(t)); o->shoreW = 1; return; }
    if (tk_is(k, kn, "V") && tk_is(v, vn, "\\tikz@lg@W")) {
        strv_free(o->V, o->nV);
        o->V = o->W ? strv_copy(o->W, o->nW) : NULL;
        o->nV = o->W ? o->nW : 0;
        return;
    }
    if (tk_is(k, kn, "V")) { set_list(g, &o->V, &o->nV, v, vn); return; }
    if (tk_is(k, kn, "W")) { set_list(g, &o->W, &o->nW, v, vn); return; }
    if (tk_is(k, kn, "name shore V")) { if (o->shoreV) graph_key(g, "name", 4, "V", 1, 1, cx); return; }
    if (tk_is(k, kn, "name shore W")) { if (o->shoreW) graph_key(g, "name", 4, "W", 1, 1, cx); return; }
    if (tk_is(k, kn, "wrap after")) { o->wrap = (int)eval_num(g, v, vn, 0); return; }
    if (tk_is(k, kn, "radius")) { o->radius = tk_eval_dim(g->T, v, vn, o->radius); return; }
    if (tk_is(k, kn, "phase")) { o->phase = eval_num(g, v, vn, 90); return; }
    if (tk_is(k, kn, "chain shift")) { o->cs = eval_pt(g, "%s", v + (vn && v[0] == '(' ? 1 : 0), vn >= 2 && v[0] == '(' ? vn - 2 : vn); return; }
    if (tk_is(k, kn, "group shift")) { o->gs = eval_pt(g, "%s", v + (vn && v[0] == '(' ? 1 : 0), vn >= 2 && v[0] == '(' ? vn - 2 : vn); return; }
    if (tk_is(k, kn, "chain polar shift") || tk_is(k, kn, "group polar shift")) {
        if (k[0] == 'g') o->cw_default = 0;
        const char *p = v;
        size_t pn = vn;
        if (pn >= 2 && p[0] == '(' && p[pn - 1] == ')') { p++; pn -= 2; }
        size_t c = tk_scan_to(p, 0, pn, ":", 1);
        if (c >= pn) { fail(g, "a polar shift I cannot read: %s", v, vn); return; }
        vec2 r = v2(tk_eval_dim(g->T, p, c, 0), tk_eval_dim(g->T, p + c + 1, pn - c - 1, 0));
        if (k[0] == 'c') o->cps = r; else o->gps = r;
        return;
    }
    if (tk_is(k, kn, "Cartesian placement")) { place(g, cx->placed); o->place = P_CART; return; }
    if (tk_is(k, kn, "no placement")) { place(g, cx->placed); o->place = P_NONE; return; }
    if (tk_is(k, kn, "circular placement")) {
        place(g, cx->placed); o->place = P_CIRC; o->wmode = o->dmode = 0; return;
    }
    if (tk_is(k, kn, "grid placement")) { place(g, cx->placed); o->place = P_GRID; return; }
    if (tk_is(k, kn, "clockwise") || tk_is(k, kn, "counterclockwise")) {
        place(g, cx->placed); o->place = P_CIRC; o->wmode = o->dmode = 0;
        double sign = k[0] == 'c' && k[1] == 'l' ? -1 : 1;
        o->cw_default = 0;
        if (!hasv) { o->cw_default = (int)sign; o->gps = v2(0, 0); return; }
        double nn = eval_num(g, v, vn, 1);
        if (nn == 0) { fail(g, "clockwise=0%s", "", 0); return; }
        o->gps = v2(sign * 360.0 / nn, 0);
        return;
    }
    /* grow right/left/up/down[ sep], branch ...[ sep] */
    int grow = kn > 5 && memcmp(k, "grow ", 5) == 0, branch = kn > 7 && memcmp(k, "branch ", 7) == 0;
    if (grow || branch) {
        const char *d = k + (grow ? 5 : 7);
        size_t dn = kn - (grow ? 5 : 7);
        int sep = dn > 4 && memcmp(d + dn - 4, " sep", 4) == 0;
        if (sep) dn -= 4;
        int dir = tk_is(d, dn, "right") ? 0 : tk_is(d, dn, "left") ? 1 : tk_is(d, dn, "up") ? 2 :
                  tk_is(d, dn, "down") ? 3 : -1;
        if (dir < 0) { fail(g, "unknown key %s", k, kn); return; }
        if (!sep) {
            DEF("1");
            place(g, cx->placed);
            vec2 s = eval_pt(g, dir == 0 ? "%s,0" : dir == 1 ? "-%s,0" : dir == 2 ? "0,%s" : "0,-%s", v, vn);
            if (grow) { o->cs = s; o->wmode = 0; } else { o->gs = s; o->dmode = 0; }
            /* the library's @auto anchor: grow up and branch right say
             * horizontal=center as written there */
            int horiz = grow ? dir != 3 : dir != 2 && dir != 3;
            auto_anchor(g, horiz, "center");
        } else {
            DEF("1em");
            place(g, cx->placed);
            if (o->place != P_CART) o->place = P_CART;
            vec2 s = dir == 0 ? v2(1, 0) : dir == 1 ? v2(-1, 0) : dir == 2 ? v2(0, 1) : v2(0, -1);
            double sepv = tk_eval_dim(g->T, v, vn, 10);
            if (grow) { o->cs = s; o->wmode = dir < 2 ? 1 : 2; o->wsep = sepv; }
            else { o->gs = s; o->dmode = dir < 2 ? 1 : 2; o->dsep = sepv; }
            static const char *const an[] = { "west", "east", "south", "north" };
            auto_anchor(g, dir < 2, an[dir]);
        }
        return;
    }
    /* operators */
    int op = tk_is(k, kn, "clique") ? OP_CLIQUE : tk_is(k, kn, "path") ? OP_PATH :
             tk_is(k, kn, "cycle") ? OP_CYCLE : tk_is(k, kn, "grid") ? OP_GRID :
             tk_is(k, kn, "complete bipartite") ? OP_BIP : tk_is(k, kn, "matching") ? OP_MATCH :
             tk_is(k, kn, "matching and star") ? OP_MSTAR : tk_is(k, kn, "no edges") ? OP_NOEDGES : 0;
    if (op) {
        int joining = op == OP_BIP || op == OP_MATCH || op == OP_MSTAR;
        unsigned c1 = joining ? C_TGT1 : C_ALL, c2 = C_SRC1;
        if (hasv && !(tk_is(v, vn, "all") && !joining) &&
            !(joining && (tk_is(v, vn, "{target'}{source'}")))) {
            /* on color classes: cycle=red, complete bipartite={red}{green} */
            if (cx->edge || op == OP_GRID || op == OP_NOEDGES ||
                !op_classes(g, v, vn, joining, &c1, &c2)) {
                fail(g, "a graph operator on color classes (%s)", k, kn);
                return;
            }
        }
        if (cx->edge) {
            if (!joining && op != OP_NOEDGES) { fail(g, "a group operator on an edge (%s)", k, kn); return; }
            *cx->op = op;
            return;
        }
        if (joining && !hasv) { fail(g, "a joining operator on a group (%s)", k, kn); return; }
        add_op(g, op, c1, c2);
        return;
    }
    /* induced independent set, path, cycle={class}; induced complete
     * bipartite={a}{b}: the independent sets first, then the operator */
    {
        int ind = tk_is(k, kn, "induced independent set") ? 1 : tk_is(k, kn, "induced path") ? 2 :
                  tk_is(k, kn, "induced cycle") ? 3 : tk_is(k, kn, "induced complete bipartite") ? 4 : 0;
        if (ind) {
            unsigned c1 = ind == 4 ? C_TGT1 : C_ALL, c2 = C_SRC1;
            if (hasv && !op_classes(g, v, vn, ind == 4, &c1, &c2)) {
                fail(g, "an unknown color class in %s", k, kn);
                return;
            }
            if (cx->edge && ind != 4) { fail(g, "a group operator on an edge (%s)", k, kn); return; }
            if (!cx->edge && ind == 4 && !hasv) { fail(g, "a joining operator on a group (%s)", k, kn); return; }
            if (cx->edge) { *cx->op = -2; o->nops = 0; }
            add_op(g, OP_INDEP, c1, 0);
            if (ind == 4) add_op(g, OP_INDEP, c2, 0);
            if (ind > 1) add_op(g, ind == 2 ? OP_PATH : ind == 3 ? OP_CYCLE : OP_BIP, c1, c2);
            return;
        }
    }
    /* level N/.style={graphs keys}: applied before the N-th node of a chain */
    if (kn > 13 && memcmp(k, "level ", 6) == 0 && memcmp(k + kn - 7, "/.style", 7) == 0) {
        int lv = 0;
        size_t p = 6;
        while (p < kn - 7 && isdigit((unsigned char)k[p]) && lv < 1000) lv = lv * 10 + (k[p++] - '0');
        if (p != kn - 7 || p == 6) { fail(g, "the graphs key '%s'", k, kn); return; }
        if (lv >= G_MAX_LEVELS) return;   /* never reached: a chain that long fails first */
        free(g->lev[lv]);
        g->lev[lv] = xstrndup(hasv ? v : "", hasv ? vn : 0);
        return;
    }
    /* butterfly[={level=, from=, to=}] (butterfly' is an error in pgf 3.1:
     * its \pgfkeysalso{butterfly=} looks for /butterfly) */
    if (tk_is(k, kn, "butterfly") && cx->edge) {
        struct { long level; unsigned from, to; } bf = { 1, C_TGT1, C_SRC1 };
        size_t i = 0;
        while (hasv && i <= vn && !g->why) {
            size_t j = tk_scan_to(v, i, vn, ",", 0);
            const char *it = v + i;
            size_t in = j - i;
            tk_trim(&it, &in);
            size_t e = in ? tk_scan_to(it, 0, in, "=", 0) : 0;
            if (in && e < in) {
                const char *bk = it, *bv = it + e + 1;
                size_t bkn = e, bvn = in - e - 1;
                tk_trim(&bk, &bkn);
                tk_trim(&bv, &bvn);
                if (tk_is(bk, bkn, "level")) {
                    double d = eval_num(g, bv, bvn, -1);
                    if (d < 0 || d > 1e6 || d != floor(d)) { fail(g, "a butterfly level that is no count (%s)", bv, bvn); return; }
                    bf.level = (long)d;
                } else if (tk_is(bk, bkn, "from") || tk_is(bk, bkn, "to")) {
                    unsigned c = class_bit(g, bv, bvn, 1);
                    if (!c || c == C_ALL) { fail(g, "an unknown color class in butterfly (%s)", bv, bvn); return; }
                    if (bk[0] == 'f') bf.from = c; else bf.to = c;
                } else { fail(g, "the butterfly key '%s'", bk, bkn); return; }
            } else if (in) { fail(g, "the butterfly key '%s'", it, in); return; }
            i = j + 1;
        }
        *cx->op = -2;
        o->nops = 0;
        if (bf.level > 0) {
            add_op(g, OP_BFLY, bf.from, bf.to);
            if (o->nops) o->opl[o->nops - 1] = (int)bf.level;
        }
        add_op(g, OP_MSTAR, bf.from, bf.to);
        return;
    }
    /* color class=NAME; NAME, not NAME, !NAME, recolor NAME by=X: operators
     * coloring the group's nodes */
    if (tk_is(k, kn, "color class")) {
        if (!hasv || !vn) { fail(g, "color class without a name%s", "", 0); return; }
        if (!class_bit(g, v, vn, 0) && !new_class(g, v, vn)) return;
        return;
    }
    {
        int cop;
        unsigned c1, c2;
        if (!cx->edge && class_key(g, k, kn, v, vn, hasv, &cop, &c1, &c2)) { add_op(g, cop, c1, c2); return; }
    }
    if (unsupported_key(k, kn)) {
        if (is_layout_key(k, kn)) fail(g, "a graph drawing layout (%s) of the graphdrawing library", k, kn);
        else fail(g, "the graphs key '%s'", k, kn);
        return;
    }
    /* unknown: TikZ options (scope) or the edges styling (edges) */
    if (cx->tikz) {
        buf_addc(cx->tikz, ",");
        tp_buf_add(cx->tikz, k, kn);
        if (hasv) { buf_addc(cx->tikz, "={"); tp_buf_add(cx->tikz, v, vn); buf_addc(cx->tikz, "}"); }
    }
#undef DEF
}

/* ---- nodes and edges ------------------------------------------------------- */

static int find_gnode(G *g, const char *full)
{
    for (int i = 0; i < g->nnodes; i++) if (!strcmp(g->nodes[i].full, full)) return i;
    return -1;
}

static int new_gnode(G *g, const char *full)
{
    if (g->nnodes >= G_MAX_NODES) { fail(g, "more than 5000 nodes in one graph%s", "", 0); return -1; }
    if (g->nnodes == g->capnodes) {
        g->capnodes = g->capnodes ? 2 * g->capnodes : 32;
        g->nodes = xrealloc(g->nodes, (size_t)g->capnodes * sizeof *g->nodes);
    }
    gnode *n = &g->nodes[g->nnodes];
    memset(n, 0, sizeof *n);
    n->full = xstrdup(full);
    return g->nnodes++;
}

/* the name edges use for a node: its own when plain, an alias otherwise */
static void make_alias(G *g, int id)
{
    gnode *n = &g->nodes[id];
    int plain = n->full[0] != 0;
    for (const char *p = n->full; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == ' ' || *p == '_' || *p == '@')) plain = 0;
    if (plain) return;
    tk_node *nd = tk_find_node(g->T, n->full, strlen(n->full));
    if (!nd) return;
    tk_node copy = *nd;
    snprintf(n->alias, sizeof n->alias, "tikz@lg@%d", ++g->T->sentinel_id);
    /* the alias is the path builder's only: no coord record of its own */
    ir_diagram *d = g->T->d;
    g->T->d = NULL;
    tk_add_node_geom(g->T, n->alias, &copy);
    g->T->d = d;
}

static const char *pic_name(G *g, int id)
{
    return g->nodes[id].alias[0] ? g->nodes[id].alias : g->nodes[id].full;
}

static void emit_edge(G *g, int from, int to, int kind, const char *opts, const char *enodes)
{
    if (kind == K_NONE) return;
    if (++g->nedges > G_MAX_EDGES) { fail(g, "more than 20000 edges in one graph%s", "", 0); return; }
    if (g->dry) return;
    if (!g->nodes[from].ok || !g->nodes[to].ok) return;
    static const char *const arr[] = { "-", "->", "<-", "<->" };
    /* \path [->, every new ->] (a) edge [options] nodes (b): the edge is a
     * path of its own, drawn (every edge) with the options */
    struct tp_buf b = { 0 }, plain = { 0 }, qn = { 0 };
    tk_split_quotes(opts, bs(&g->o.quotes), &plain, tk_quote_as_node, &qn);
    buf_addc(&b, "[draw,");
    buf_addc(&b, arr[kind]);
    char every[16];
    snprintf(every, sizeof every, "every new %s", kind == K_UND ? "--" : arr[kind]);
    if (tk_find_style(g->T, every, strlen(every))) { buf_addc(&b, ","); buf_addc(&b, every); }
    if (tk_find_style(g->T, "every edge", 10)) buf_addc(&b, ",every edge");
    buf_addc(&b, bs(&plain));
    buf_addc(&b, "] (");
    buf_addc(&b, pic_name(g, from));
    buf_addc(&b, g->o.lanchor);
    buf_addc(&b, ") to[");
    buf_addc(&b, plain.n ? plain.s + 1 : "");
    buf_addc(&b, "] ");
    {
        /* auto (every edge quotes, edge label): the anchor TikZ's auto
         * picks for a straight edge (\tikz@auto@anchor), from the
         * direction between the nodes; a curved edge keeps auto */
        struct tp_buf en = { 0 };
        buf_addc(&en, enodes);
        buf_addc(&en, bs(&qn));
        const char *al = "auto", *ar = "auto,swap";
        int curved = tk_memmem(bs(&plain), plain.n, "bend") || tk_memmem(bs(&plain), plain.n, "in=") ||
                     tk_memmem(bs(&plain), plain.n, "out=") || tk_memmem(bs(&plain), plain.n, "loop");
        tk_node *na = tk_find_node(g->T, pic_name(g, from), strlen(pic_name(g, from)));
        vec2 pa = na ? na->c : v2(0, 0);
        tk_node *nb = tk_find_node(g->T, pic_name(g, to), strlen(pic_name(g, to)));
        if (!curved && na && nb) {
            vec2 d = vsub(nb->c, pa);
            double l = vlen(d);
            if (l > 0) {
                double x = d.x / l, y = d.y / l;
                al = x > 0.05 ? (y > 0.05 ? "anchor=south east" : y < -0.05 ? "anchor=south west" : "anchor=south")
                   : x < -0.05 ? (y > 0.05 ? "anchor=north east" : y < -0.05 ? "anchor=north west" : "anchor=north")
                   : (y > 0 ? "anchor=east" : "anchor=west");
                ar = x > 0.05 ? (y > 0.05 ? "anchor=north west" : y < -0.05 ? "anchor=north east" : "anchor=north")
                   : x < -0.05 ? (y > 0.05 ? "anchor=south west" : y < -0.05 ? "anchor=south east" : "anchor=south")
                   : (y > 0 ? "anchor=west" : "anchor=east");
            }
        }
        for (const char *p = bs(&en); *p;) {
            const char *q = strstr(p, "@AUTO");
            if (!q || !q[5] || q[6] != '@') { buf_addc(&b, p); break; }
            tp_buf_add(&b, p, (size_t)(q - p));
            buf_addc(&b, q[5] == 'L' ? al : ar);
            p = q + 7;
        }
        buf_free(&en);
    }
    buf_addc(&b, " (");
    buf_addc(&b, pic_name(g, to));
    buf_addc(&b, g->o.ranchor);
    buf_addc(&b, ");");
    tk_run_path(g->T, CMD_PATH, b.s, NULL, g->line);
    buf_free(&b);
    buf_free(&plain);
    buf_free(&qn);
}

/* \tikz@lib@graph@default@new@edge: with the default edge kind and the
 * edges styling in force */
static void new_edge(G *g, int from, int to)
{
    if (g->why) return;
    /* \tikz@lib@graph@add@edge@annotations: the source's (a) then the
     * target's (b) style after the edges styling, their nodes after the
     * edges' nodes */
    struct tp_buf ob = { 0 }, eb = { 0 };
    gnode *na = &g->nodes[from], *nb = &g->nodes[to];
    buf_addc(&ob, bs(&g->o.edges));
    buf_addc(&eb, bs(&g->o.enodes));
    if (na->ast.n) { buf_addc(&ob, ","); buf_addc(&ob, bs(&na->ast)); }
    if (nb->bst.n) { buf_addc(&ob, ","); buf_addc(&ob, bs(&nb->bst)); }
    buf_addc(&eb, bs(&na->anode));
    buf_addc(&eb, bs(&nb->bnode));
    const char *opts = bs(&ob), *en = bs(&eb);
    if (!g->simple) { emit_edge(g, from, to, g->o.kind, opts, en); buf_free(&ob); buf_free(&eb); return; }
    /* simple: the last edge between two nodes wins, either direction */
    if (g->nsedges >= G_MAX_EDGES) {
        fail(g, "more than 20000 edges in one graph%s", "", 0);
        buf_free(&ob); buf_free(&eb);
        return;
    }
    for (int i = 0; i < g->nsedges; i++) {
        gedge *e = &g->sedges[i];
        if ((e->from == to && e->to == from) || (e->from == from && e->to == to)) {
            free(e->opts); free(e->enodes);
            g->sedges[i] = g->sedges[--g->nsedges];
            i--;
        }
    }
    if (g->nsedges == g->capsedges) {
        g->capsedges = g->capsedges ? 2 * g->capsedges : 16;
        g->sedges = xrealloc(g->sedges, (size_t)g->capsedges * sizeof *g->sedges);
    }
    gedge *e = &g->sedges[g->nsedges++];
    e->from = from; e->to = to; e->kind = g->o.kind;
    e->opts = xstrdup(opts); e->enodes = xstrdup(en);
    buf_free(&ob);
    buf_free(&eb);
}

/* the packed node list (each node once, first occurrence) */
static void pack(G *g, const ilist *l, ilist *out)
{
    char *seen = xcalloc((size_t)g->nnodes + 1, 1);
    for (int i = 0; i < l->n; i++)
        if (!seen[l->v[i]]) { seen[l->v[i]] = 1; il_push(out, l->v[i]); }
    free(seen);
}

static void colored(G *g, const ilist *l, unsigned col, ilist *out)
{
    ilist p = { 0 };
    pack(g, l, &p);
    for (int i = 0; i < p.n; i++) if (col == C_ALL || (g->nodes[p.v[i]].col & col)) il_push(out, p.v[i]);
    free(p.v);
}

static void recolor(G *g, const ilist *l, unsigned from, unsigned to)
{
    for (int i = 0; i < l->n; i++) {
        gnode *n = &g->nodes[l->v[i]];
        if (n->col & from) { n->col &= ~from; n->col |= to; }
    }
}

static void run_op(G *g, int op, unsigned c1, unsigned c2, const ilist *list)
{
    ilist a = { 0 }, b = { 0 };
    switch (op) {
    case OP_COLOR: case OP_UNCOLOR: case OP_RECOLOR:
        /* \tikz@lg@colorize, \tikz@lg@change@color: every node of the list */
        for (int i = 0; i < list->n; i++) {
            gnode *n = &g->nodes[list->v[i]];
            if (op == OP_COLOR) n->col |= c1;
            else if (n->col & c1) { n->col &= ~c1; if (op == OP_RECOLOR) n->col |= c2; }
        }
        break;
    case OP_INDEP: {
        /* \tikz@lg@indep@loop: -!- between each two nodes of the class
         * (simple graphs: removes their edge) */
        colored(g, list, c1, &a);
        int kind = g->o.kind;
        g->o.kind = K_NONE;
        for (int i = a.n; i >= 1; i--)
            for (int j = i - 1; j >= 1; j--) new_edge(g, a.v[i - 1], a.v[j - 1]);
        g->o.kind = kind;
        break;
    }
    case OP_BFLY: {
        /* \tikz@lib@graph@butterfly@do: the j-th node of the second class
         * from the node of the first at j-1 +- level (as j-1 mod 2 level is
         * below level or not), the last one at most */
        colored(g, list, c1, &a);
        colored(g, list, c2, &b);
        long L = g->bfly_level;
        for (int j = 1; j <= b.n && a.n > 0; j++) {
            long k = j - 1, m = k % (2 * L);
            long c = (m < L ? k + L : k - L) + 1;
            if (c > a.n) c = a.n;
            if (c >= 1) new_edge(g, a.v[c - 1], b.v[j - 1]);
        }
        break;
    }
    case OP_CLIQUE:
        colored(g, list, c1, &a);
        for (int i = a.n; i >= 1; i--)
            for (int j = i - 1; j >= 1; j--) new_edge(g, a.v[j - 1], a.v[i - 1]);
        break;
    case OP_PATH: case OP_CYCLE:
        colored(g, list, c1, &a);
        for (int i = 1; i < a.n; i++) new_edge(g, a.v[i - 1], a.v[i]);
        if (op == OP_CYCLE && a.n > 0) new_edge(g, a.v[a.n - 1], a.v[0]);
        break;
    case OP_GRID: {
        pack(g, list, &a);
        int wrap = g->o.wrap;
        if (wrap <= 0) wrap = (int)sqrt((double)(g->o.V ? g->o.nV : 1));
        if (wrap <= 0) wrap = 1;
        for (int k = 1; k <= a.n; k++) {
            if ((k - 1) % wrap > 0) new_edge(g, a.v[k - 1], a.v[k - 2]);
            if (k > wrap) new_edge(g, a.v[k - wrap - 1], a.v[k - 1]);
        }
        break;
    }
    case OP_BIP:
        colored(g, list, c1, &a);
        colored(g, list, c2, &b);
        for (int i = 0; i < a.n; i++)
            for (int j = 0; j < b.n; j++) if (a.v[i] != b.v[j]) new_edge(g, a.v[i], b.v[j]);
        break;
    case OP_MATCH:
        colored(g, list, c1, &a);
        colored(g, list, c2, &b);
        for (int j = 0; j < b.n && j < a.n; j++) new_edge(g, a.v[j], b.v[j]);
        break;
    case OP_MSTAR: {
        colored(g, list, c1, &a);
        colored(g, list, c2, &b);
        int cb = 0, prev = -1;
        for (int j = 0; j < b.n; j++) {
            if (++cb > a.n) cb = a.n;
            if (cb > 0) new_edge(g, a.v[cb - 1], b.v[j]);
            prev = b.v[j];
        }
        while (cb < a.n && cb > 0 && prev >= 0) { cb++; new_edge(g, a.v[cb - 1], prev); }
        break;
    }
    default:
        break;
    }
    free(a.v);
    free(b.v);
}

/* the logical width or depth of a node */
static double logical(G *g, int id, int mode, double sep)
{
    if (mode == 0) return 1;
    if (g->dry || !g->nodes[id].ok) return sep;
    tk_node *nd = tk_find_node(g->T, g->nodes[id].full, strlen(g->nodes[id].full));
    if (!nd) return sep;
    /* anchors east - west (north - south) in the picture's frame */
    vec2 a, b;
    if (mode == 1) {
        if (tk_node_anchor(g->T, nd, "west", 4, &a) || tk_node_anchor(g->T, nd, "east", 4, &b)) return sep;
        vec2 d = mat_inv_apply(GS(g->T)->ctm, b);
        vec2 e = mat_inv_apply(GS(g->T)->ctm, a);
        return sep + (d.x - e.x);
    }
    if (tk_node_anchor(g->T, nd, "south", 5, &a) || tk_node_anchor(g->T, nd, "north", 5, &b)) return sep;
    vec2 d = mat_inv_apply(GS(g->T)->ctm, b);
    vec2 e = mat_inv_apply(GS(g->T)->ctm, a);
    return sep + (d.y - e.y);
}

/* the options of a node: graph keys it may carry, the rest for TikZ */
struct nodectx { struct tp_buf *tikz; const char *as; size_t asn; int has_as; struct tp_buf *at;
                 unsigned add, del;      /* colors given (source, target, not ...) */
                 unsigned rfrom[4], rto[4]; int nrec;   /* recolor X by=Y, after them */
                 const char *atv; size_t atn; };   /* at= */

/* the edge annotation keys of a node (source/target edge style, node,
 * clear; the first-char syntax > and <, with quotes as edge nodes):
 * 1 and the side (a, b) and what (0 style, 1 node, 2 clear) when k is one */
static int ann_kind(const char *k, size_t kn, int *side, int *what)
{
    static const char *const names[] = { "source edge style", "source edge node", "source edge clear",
                                         "target edge style", "target edge node", "target edge clear", NULL };
    for (int i = 0; names[i]; i++)
        if (tk_is(k, kn, names[i])) { *side = i / 3; *what = i % 3; return 1; }
    if (tk_is(k, kn, "clear >")) { *side = 1; *what = 2; return 1; }
    if (tk_is(k, kn, "clear <")) { *side = 0; *what = 2; return 1; }
    if (kn && (k[0] == '>' || k[0] == '<')) { *side = k[0] == '>'; *what = 3; return 1; }
    return 0;
}

static void ann_key(G *g, const char *k, size_t kn, const char *v, size_t vn, int hasv, void *vctx)
{
    int side, what;
    if (!ann_kind(k, kn, &side, &what)) return;
    gnode *n = &g->nodes[*(int *)vctx];
    struct tp_buf *st = side ? &n->bst : &n->ast, *nd = side ? &n->bnode : &n->anode;
    if (what == 2) { st->n = 0; nd->n = 0; if (st->s) st->s[0] = 0; if (nd->s) nd->s[0] = 0; return; }
    if (what == 1) { if (hasv) tp_buf_add(nd, v, vn); buf_addc(nd, " "); return; }
    /* style: "text"' options are edge quotes (node quotes mean= target
     * edge node={node [every edge quotes, ...]{text}}): kept in the
     * style, where the edge's quotes become its nodes */
    const char *t = k, *end = hasv ? v + vn : k + kn;
    size_t tn = (size_t)(end - k);
    if (what == 3) { t++; tn--; }
    else { t = v; tn = hasv ? vn : 0; }
    if (what == 3 && hasv) {
        /* >key=value: the item as written after the mark */
        tn = (size_t)(end - t);
        if (end[0] == '}') tn++;
    }
    tk_trim(&t, &tn);
    if (!tn) return;
    if (st->n) buf_addc(st, ",");
    tp_buf_add(st, t, tn);
}

static void node_key(G *g, const char *k, size_t kn, const char *v, size_t vn, int hasv, void *vctx)
{
    struct nodectx *cx = vctx;
    int side, what;
    if (ann_kind(k, kn, &side, &what)) return;   /* ann_key, once the node is known */
    if (tk_is(k, kn, "as")) { cx->as = v; cx->asn = vn; cx->has_as = 1; return; }
    if (tk_is(k, kn, "source")) { cx->add |= C_SRC; cx->del &= ~(unsigned)C_SRC; return; }
    if (tk_is(k, kn, "target")) { cx->add |= C_TGT; cx->del &= ~(unsigned)C_TGT; return; }
    if (tk_is(k, kn, "not source") || tk_is(k, kn, "!source")) { cx->del |= C_SRC; cx->add &= ~(unsigned)C_SRC; return; }
    if (tk_is(k, kn, "not target") || tk_is(k, kn, "!target")) { cx->del |= C_TGT; cx->add &= ~(unsigned)C_TGT; return; }
    {
        int cop;
        unsigned c1, c2;
        if (class_key(g, k, kn, v, vn, hasv, &cop, &c1, &c2)) {
            if (cop == OP_COLOR) { cx->add |= c1; cx->del &= ~c1; }
            else if (cop == OP_UNCOLOR) { cx->del |= c1; cx->add &= ~c1; }
            else if (cx->nrec < 4) { cx->rfrom[cx->nrec] = c1; cx->rto[cx->nrec++] = c2; }
            else fail(g, "more than 4 recolor keys on a node%s", "", 0);
            return;
        }
    }
    if (tk_is(k, kn, "at")) {
        /* at={(p)}: the node's position (written after the options) */
        if (!hasv) { fail(g, "at without a value%s", "", 0); return; }
        cx->atv = v;
        cx->atn = vn;
        return;
    }
    if (tk_is(k, kn, "x") || tk_is(k, kn, "y")) {
        /* graphs/x, graphs/y: at=({x},{y}) */
        struct tp_buf *b = cx->at;
        char *xs = NULL, *ys = NULL;
        if (b->n) {
            const char *c = strchr(b->s, '\t');
            xs = xstrndup(b->s, (size_t)(c - b->s));
            ys = xstrdup(c + 1);
        } else {
            xs = xstrdup("0");
            ys = xstrdup("0");
        }
        b->n = 0;
        if (k[0] == 'x') { tp_buf_add(b, v, vn); buf_addc(b, "\t"); buf_addc(b, ys); }
        else { buf_addc(b, xs); buf_addc(b, "\t"); tp_buf_add(b, v, vn); }
        free(xs);
        free(ys);
        return;
    }
    if (unsupported_key(k, kn) || tk_is(k, kn, "nodes") || tk_is(k, kn, "edges") ||
        tk_is(k, kn, "math nodes") || tk_is(k, kn, "empty nodes") || tk_is(k, kn, "name")) {
        fail(g, "the graphs key '%s' on a node", k, kn);
        return;
    }
    buf_addc(cx->tikz, ",");
    tp_buf_add(cx->tikz, k, kn);
    if (hasv) { buf_addc(cx->tikz, "={"); tp_buf_add(cx->tikz, v, vn); buf_addc(cx->tikz, "}"); }
}

static void node_recolor(gnode *n, const struct nodectx *cx)
{
    for (int i = 0; i < cx->nrec; i++)
        if (n->col & cx->rfrom[i]) { n->col &= ~cx->rfrom[i]; n->col |= cx->rto[i]; }
}

/* trie: name=<the node's name> after each node (the path grows in the
 * current scope) */
static void trie_step(G *g, const char *full)
{
    if (!g->o.trie) return;
    size_t pn = g->o.path.n;
    char *only = xstrdup(full + pn);
    buf_addc(&g->o.path, only);
    buf_addc(&g->o.path, bs(&g->o.sep));
    free(only);
}

/* \tikz@lib@graph@node@opt@normal for a fresh node, or a referenced one */
static void do_node(G *g, const char *name, size_t nn, const char *text, size_t tn, int has_text,
                    const char *opts, size_t on, ilist *list)
{
    /* placement/level + 1, then level N/.try in the chain's scope */
    if (++g->o.level < G_MAX_LEVELS && g->lev[g->o.level]) {
        int placed = 0;
        struct tp_buf tk = { 0 };
        struct optctx lcx = { &placed, &tk, 0, NULL };
        const char *st = g->lev[g->o.level];
        each_kv(g, st, strlen(st), graph_key, &lcx);
        if (tk.n && !g->why) fail(g, "TikZ options in a level style (%s)", tk.s + 1, tk.n - 1);
        buf_free(&tk);
        if (g->why) return;
    }
    struct tp_buf full = { 0 };
    tp_buf_add(&full, bs(&g->o.path), g->o.path.n);
    if (!nn && has_text) {
        char t[32];
        snprintf(t, sizeof t, "tikz@f@%d", ++g->anon);
        buf_addc(&full, t);
    } else {
        tp_buf_add(&full, name, nn);
        if (g->o.number && nn) {
            char t[32];
            snprintf(t, sizeof t, "%ld", g->autonum++);
            buf_addc(&full, bs(&g->o.numsep));
            buf_addc(&full, t);
        }
    }
    if (!full.s) buf_addc(&full, "");
    int id = find_gnode(g, full.s);
    if (id >= 0 && g->o.fresh) {
        while (find_gnode(g, full.s) >= 0) buf_addc(&full, "'");
        id = -1;
    }
    struct tp_buf tk = { 0 }, at = { 0 };
    struct nodectx cx = { .tikz = &tk, .at = &at };
    if (g->o.gat) { buf_addc(&at, g->o.gx); buf_addc(&at, "\t"); buf_addc(&at, g->o.gy); }
    each_kv(g, opts, on, node_key, &cx);
    if (id >= 0) {
        /* referenced: \node also with its options; source and target again */
        if (tk.n > 1) fail(g, "options on a node referenced again (\\node also)%s", "", 0);
        g->nodes[id].col |= C_SRC | C_TGT;
        g->nodes[id].col = (g->nodes[id].col | cx.add) & ~cx.del;
        node_recolor(&g->nodes[id], &cx);
        each_kv(g, opts, on, ann_key, &id);
        il_push(list, id);
        trie_step(g, full.s);
        buf_free(&full); buf_free(&tk); buf_free(&at);
        return;
    }
    if (g->why) { buf_free(&full); buf_free(&tk); buf_free(&at); return; }
    id = new_gnode(g, full.s);
    if (id < 0) { buf_free(&full); buf_free(&tk); buf_free(&at); return; }
    g->nodes[id].col = ((C_SRC | C_TGT) | cx.add) & ~cx.del;
    node_recolor(&g->nodes[id], &cx);
    if (g->o.putnt) {
        /* \tikz@lg@make@edge@node (nodes styling, before the node's own
         * options): the text as a node of its incoming or outgoing edges,
         * the node itself empty unless its as= says otherwise */
        struct tp_buf *nd = g->o.putnt == 1 ? &g->nodes[id].bnode : &g->nodes[id].anode;
        buf_addc(nd, "node[");
        buf_addc(nd, bs(&g->o.putopt));
        buf_addc(nd, "]{");
        tp_buf_add(nd, text ? text : "", text ? tn : 0);
        buf_addc(nd, "} ");
        if (!cx.has_as) { cx.has_as = 1; cx.as = ""; cx.asn = 0; }
    }
    each_kv(g, opts, on, ann_key, &id);
    /* placement/place inside the node's group: its shift only */
    vec2 sh = compute_shift(g);
    if (!g->dry) {
        struct tp_buf b = { 0 };
        buf_addc(&b, "node[name={");
        buf_addc(&b, full.s);
        buf_addc(&b, "}");
        /* the nodes styling, with the automatic anchor in place */
        const char *st = bs(&g->o.nodes);
        char an[24];
        const char *h = g->o.auto_h[0] ? g->o.auto_h : "center", *v = g->o.auto_v[0] ? g->o.auto_v : "center";
        if (!strcmp(h, "center")) snprintf(an, sizeof an, "%s", v);
        else if (!strcmp(v, "center")) snprintf(an, sizeof an, "%s", h);
        else snprintf(an, sizeof an, "%s %s", v, h);
        for (const char *p = st; *p;) {
            const char *q = strstr(p, "@AUTO@");
            if (!q) { buf_addc(&b, p); break; }
            tp_buf_add(&b, p, (size_t)(q - p));
            buf_addc(&b, an);
            p = q + 6;
        }
        add_shift(&b, sh);
        tp_buf_add(&b, bs(&tk), tk.n);
        buf_addc(&b, "]");
        if (at.n) {
            const char *c = strchr(at.s, '\t');
            buf_addc(&b, " at ({");
            tp_buf_add(&b, at.s, (size_t)(c - at.s));
            buf_addc(&b, "},{");
            buf_addc(&b, c + 1);
            buf_addc(&b, "})");
        } else if (cx.atv) {
            buf_addc(&b, " at ");
            tp_buf_add(&b, cx.atv, cx.atn);
        } else {
            /* \node without at: the origin of the current coordinates */
            buf_addc(&b, " at (0,0)");
        }
        buf_addc(&b, " {");
        if (cx.has_as) {
            tp_buf_add(&b, cx.as, cx.asn);
        } else {
            /* the typeset code with the node's text and names in place */
            const char *ts = bs(&g->o.typeset);
            static const char *const mac[] = { "\\tikzgraphnodetext", "\\tikzgraphnodefullname",
                                               "\\tikzgraphnodename", "\\tikzgraphnodepath", NULL };
            for (const char *p = ts; *p;) {
                int m = -1;
                for (int k = 0; mac[k]; k++) {
                    size_t ml = strlen(mac[k]);
                    if (!strncmp(p, mac[k], ml) && !isalpha((unsigned char)p[ml])) { m = k; break; }
                }
                if (m == 0) tp_buf_add(&b, text, tn);
                else if (m == 1) buf_addc(&b, full.s);
                else if (m == 2) buf_addc(&b, full.s + g->o.path.n);
                else if (m == 3) buf_addc(&b, bs(&g->o.path));
                if (m >= 0) { p += strlen(mac[m]); while (*p == ' ') p++; continue; }
                tp_buf_add(&b, p, 1);
                p++;
            }
        }
        buf_addc(&b, "};");
        if (tk_memmem(b.s, b.n, "\\pgfkeys") || tk_memmem(b.s, b.n, "\\tikzgraph")) {
            fail(g, "node text that reads the graph's keys: %s", b.s, b.n);
            buf_free(&b); buf_free(&full); buf_free(&tk); buf_free(&at);
            return;
        }
        size_t before = g->T->nnodes;
        tk_run_path(g->T, CMD_NODE, b.s, NULL, g->line);
        buf_free(&b);
        g->nodes[id].ok = g->T->nnodes > before || tk_find_node(g->T, full.s, full.n) != NULL;
        if (g->nodes[id].ok) make_alias(g, id);
    } else {
        g->nodes[id].ok = 1;
    }
    /* placement update */
    double w = logical(g, id, g->o.wmode, g->o.wsep), d = logical(g, id, g->o.dmode, g->o.dsep);
    g->c.W += w;
    g->c.LW += w;
    if (d > g->c.LD) g->c.LD = d;
    il_push(list, id);
    trie_step(g, full.s);
    buf_free(&full); buf_free(&tk); buf_free(&at);
}

/* (a, b): existing nodes of the graph or of the picture */
static void do_reference(G *g, const char *s, size_t n, ilist *list)
{
    size_t i = 0;
    while (i <= n && !g->why) {
        size_t j = tk_scan_to(s, i, n, ",", 0);
        const char *it = s + i;
        size_t in = j - i;
        tk_trim(&it, &in);
        tk_unbrace(&it, &in);
        const struct tk_nodeset *set = in ? tk_nodeset_find(g->T, it, in) : NULL;
        if (set) {
            /* a node set: each of its nodes (they are the picture's) */
            for (size_t k = 0; k < set->n && !g->why; k++) {
                const char *nm = set->nodes[k];
                int id = find_gnode(g, nm);
                if (id < 0) {
                    if (!tk_find_node(g->T, nm, strlen(nm))) {
                        fail(g, "no node named '%s' in the picture", nm, strlen(nm));
                        break;
                    }
                    id = new_gnode(g, nm);
                    if (id >= 0) { g->nodes[id].ok = 1; make_alias(g, id); }
                }
                if (id >= 0) { g->nodes[id].col |= C_SRC | C_TGT; il_push(list, id); }
            }
        } else if (in) {
            char *nm = xstrndup(it, in);
            int id = find_gnode(g, nm);
            if (id < 0) {
                if (!tk_find_node(g->T, nm, in)) {
                    fail(g, "no node named '%s' in the picture", nm, in);
                } else {
                    id = new_gnode(g, nm);
                    if (id >= 0) { g->nodes[id].ok = 1; make_alias(g, id); }
                }
            }
            if (id >= 0) { g->nodes[id].col |= C_SRC | C_TGT; il_push(list, id); }
            free(nm);
        }
        i = j + 1;
    }
}

static void eval_group_body(G *g, const char *s, size_t n, ilist *list, const char *extra, size_t en);

/* \tikz@lib@graph@scope: a group as an element of a chain */
static void do_group(G *g, const char *s, size_t n, ilist *list, const char *extra, size_t en)
{
    if (++g->depth > G_MAX_DEPTH) { fail(g, "groups nested more than 64 deep%s", "", 0); g->depth--; return; }
    gsave sv;
    push(g, &sv);
    g->c.LD = g->c.LW = 0;
    ilist inner = { 0 };
    int placed = 0;
    g->o.nops = 0;
    /* the group's options may place it: then it adds nothing to the
     * width and depth around it (reset locals after the group) */
    const char *b = s;
    size_t bn = n;
    (void)placed;
    eval_group_body(g, b, bn, &inner, extra, en);
    double gd = g->gdepth, gw = g->gwidth;
    pop(g, &sv);
    g->depth--;
    for (int i = 0; i < inner.n; i++) il_push(list, inner.v[i]);
    free(inner.v);
    g->c.W += gw;
    g->c.LW += gw;
    if (gd > g->c.LD) g->c.LD = gd;
}

/* the graph macros the standard library declares */
static int do_macro(G *g, const char *name, size_t nn, const char *opts, size_t on, ilist *list)
{
    static const char *const macros[] = { "subgraph I_n", "subgraph K_n", "subgraph P_n", "subgraph C_n",
                                          "subgraph Grid_n", "subgraph I_nm", "subgraph K_nm", NULL };
    int m = -1;
    char norm[40];
    size_t k = 0;
    for (size_t i = 0; i < nn && k < sizeof norm - 1; i++) {
        if (tk_space((unsigned char)name[i])) { if (k && norm[k - 1] != ' ') norm[k++] = ' '; }
        else norm[k++] = name[i];
    }
    norm[k] = 0;
    for (int i = 0; macros[i]; i++) if (!strcmp(norm, macros[i])) m = i;
    for (int i = g->ndecl - 1; i >= 0 && m < 0; i--) {
        if (strcmp(norm, g->decl[i].name)) continue;
        /* a declared graph: its text as a group with the node's options */
        if (++g->depth > G_MAX_DEPTH) { fail(g, "graph macros nested more than 64 deep%s", "", 0); g->depth--; return 1; }
        char *body = xstrdup(g->decl[i].body);
        gsave sv;
        push(g, &sv);
        g->c.LD = g->c.LW = 0;
        g->o.nops = 0;
        ilist inner = { 0 };
        eval_group_body(g, body, strlen(body), &inner, opts, on);
        double gd = g->gdepth, gw = g->gwidth;
        pop(g, &sv);
        g->depth--;
        free(body);
        for (int k = 0; k < inner.n; k++) il_push(list, inner.v[k]);
        free(inner.v);
        g->c.W += gw;
        g->c.LW += gw;
        if (gd > g->c.LD) g->c.LD = gd;
        return 1;
    }
    if (m < 0) {
        if (!strncmp(norm, "subgraph ", 9)) { fail(g, "the graph macro '%s'", norm, strlen(norm)); return 1; }
        return 0;
    }
    if (++g->depth > G_MAX_DEPTH) { fail(g, "graph macros nested more than 64 deep%s", "", 0); g->depth--; return 1; }
    /* \tikz@lib@graph@handle@graph: a group with the node's options as
     * extra group options; the declared body is its text */
    static const char *const op[] = { "", "clique", "path", "cycle", "grid" };
    struct tp_buf body = { 0 };
    if (m <= 4) {
        /* [op] \foreach \x in \tikzgraphV { \x }: read after the options */
        if (m > 0) { buf_addc(&body, "["); buf_addc(&body, op[m]); buf_addc(&body, "]"); }
        buf_addc(&body, "\\tikz@lg@V");
    } else {
        if (m == 6) buf_addc(&body, "[complete bipartite@shores]");
        buf_addc(&body, "subgraph I_n [name shore V] -- [no edges] subgraph I_n [name shore W, V=\\tikz@lg@W]");
    }
    gsave sv;
    push(g, &sv);
    g->c.LD = g->c.LW = 0;
    g->o.nops = 0;
    ilist inner = { 0 };
    eval_group_body(g, body.s, body.n, &inner, opts, on);
    double gd = g->gdepth, gw = g->gwidth;
    pop(g, &sv);
    g->depth--;
    for (int i = 0; i < inner.n; i++) il_push(list, inner.v[i]);
    free(inner.v);
    buf_free(&body);
    g->c.W += gw;
    g->c.LW += gw;
    if (gd > g->c.LD) g->c.LD = gd;
    return 1;
}

/* one element (node, reference, group, macro); returns the end of what it read */
static size_t do_element(G *g, const char *s, size_t i, size_t n, ilist *list, int *back)
{
    *back = 0;
    skip_sp(s, &i, n);
    if (i >= n) return n;
    if (s[i] == '{') {
        size_t e = match_close(s, i, n);
        if (e >= n) { fail(g, "a group not closed: %s", s + i, n - i); return n; }
        do_group(g, s + i + 1, e - i - 1, list, NULL, 0);
        return e + 1;
    }
    if (n - i > 8 && !strncmp(s + i, "\\foreach", 8) && !isalpha((unsigned char)s[i + 8])) {
        /* \foreach \x in {list} {group} */
        size_t p = i + 8;
        skip_sp(s, &p, n);
        size_t v0 = p;
        if (p < n && s[p] == '\\') { p++; while (p < n && isalpha((unsigned char)s[p])) p++; }
        size_t v1 = p;
        skip_sp(s, &p, n);
        if (v1 == v0 || n - p < 2 || strncmp(s + p, "in", 2)) { fail(g, "a \\foreach I cannot read: %s", s + i, n - i); return n; }
        p += 2;
        skip_sp(s, &p, n);
        if (p >= n || s[p] != '{') { fail(g, "a \\foreach whose list is not in braces: %s", s + i, n - i); return n; }
        size_t le = match_close(s, p, n);
        if (le >= n) { fail(g, "a \\foreach I cannot read: %s", s + i, n - i); return n; }
        size_t q = le + 1;
        skip_sp(s, &q, n);
        if (q >= n || s[q] != '{') { fail(g, "a \\foreach without a {body}: %s", s + i, n - i); return n; }
        size_t be = match_close(s, q, n);
        if (be >= n) { fail(g, "a \\foreach I cannot read: %s", s + i, n - i); return n; }
        int nv = 0;
        char **vals = expand_list(g, s + p + 1, le - p - 1, &nv);
        /* the loop runs the body as a group's text, the placement going on
         * from one value to the next */
        for (int k = 0; k < nv && !g->why; k++) {
            struct tp_buf body = { 0 };
            size_t vl = v1 - v0;
            for (size_t r = q + 1; r < be;) {
                if (r + vl <= be && !strncmp(s + r, s + v0, vl) && (r + vl >= be || !isalpha((unsigned char)s[r + vl]))) {
                    buf_addc(&body, vals[k]);
                    r += vl;
                } else {
                    tp_buf_add(&body, s + r, 1);
                    r++;
                }
            }
            if (++g->depth > G_MAX_DEPTH) { fail(g, "\\foreach nested more than 64 deep%s", "", 0); g->depth--; }
            else {
                /* \tikz@lib@graph@parse@group: no group of its own */
                int saved_nops = g->o.nops, saved_ops[8];
                unsigned saved_a[8], saved_b[8];
                memcpy(saved_ops, g->o.ops, sizeof saved_ops);
                memcpy(saved_a, g->o.opa, sizeof saved_a);
                memcpy(saved_b, g->o.opb, sizeof saved_b);
                g->o.nops = 0;
                ilist inner = { 0 };
                eval_group_body(g, bs(&body), body.n, &inner, NULL, 0);
                for (int t = 0; t < inner.n; t++) il_push(list, inner.v[t]);
                free(inner.v);
                g->o.nops = saved_nops;
                memcpy(g->o.ops, saved_ops, sizeof saved_ops);
                memcpy(g->o.opa, saved_a, sizeof saved_a);
                memcpy(g->o.opb, saved_b, sizeof saved_b);
                g->depth--;
            }
            buf_free(&body);
        }
        strv_free(vals, nv);
        return be + 1;
    }
    if (n - i >= 10 && !strncmp(s + i, "\\tikz@lg@V", 10)) {
        /* the standard macros' \foreach \x in \tikzgraphV { \x } */
        gopt *o = &g->o;
        int nv = o->V ? o->nV : 1;
        for (int k = 0; k < nv && !g->why; k++) {
            const char *v = o->V ? o->V[k] : "1";
            double ld = g->c.LD, lw = g->c.LW;
            gsave sv;
            push(g, &sv);
            g->c.LD = g->c.LW = 0;
            do_node(g, v, strlen(v), v, strlen(v), 1, "", 0, list);
            double cd = g->c.LD, cw = g->c.LW;
            pop(g, &sv);
            (void)ld; (void)lw;
            g->c.D += cd;
            g->c.LD += cd;
            if (cw > g->c.LW) g->c.LW = cw;
        }
        return i + 10;
    }
    if (s[i] == '(') {
        size_t e = match_close(s, i, n);
        if (e >= n) { fail(g, "a reference not closed: %s", s + i, n - i); return n; }
        do_reference(g, s + i + 1, e - i - 1, list);
        size_t p = e + 1;
        skip_sp(s, &p, n);
        if (p < n && s[p] == '<') { *back = 1; p++; }
        return p;
    }
    /* a direct node: up to the first '-' (braces, brackets, quotes protect) */
    size_t e = tk_scan_to(s, i, n, "-", 0);
    size_t lt = tk_scan_to(s, i, e, "<", 0);
    if (lt < e) *back = 1;
    const char *t = s + i;
    size_t tn = lt - i;
    /* name [/text] [options] */
    size_t ob = tk_scan_to(t, 0, tn, "[", 0);
    size_t oq = 0;
    /* '[' inside quotes is not the options' */
    {
        int q = 0;
        for (oq = 0; oq < tn; oq++) {
            if (t[oq] == '"') q = !q;
            else if (!q && t[oq] == '{') { size_t m = match_close(t, oq, tn); if (m >= tn) break; oq = m; }
            else if (!q && t[oq] == '[') break;
        }
        ob = oq;
    }
    const char *opts = "";
    size_t on = 0;
    if (ob < tn) {
        size_t oe = match_close(t, ob, tn);
        if (oe >= tn) { fail(g, "node options not closed: %s", t, tn); return n; }
        opts = t + ob + 1;
        on = oe - ob - 1;
    }
    const char *nm = t;
    size_t nmn = ob;
    tk_trim(&nm, &nmn);
    if (!nmn && !on) return e;   /* an empty element */
    if (tk_memmem(nm, nmn, "//")) { fail(g, "a sublayout (//) of the graphdrawing library: %s", nm, nmn); return n; }
    const char *name = nm, *text = nm;
    size_t namen = nmn, textn = nmn;
    int has_text = 0;
    if (nmn && nm[0] == '"') {
        size_t qe = 1;
        while (qe < nmn && nm[qe] != '"') qe++;
        if (qe >= nmn) { fail(g, "a quoted node name not closed: %s", nm, nmn); return n; }
        name = nm + 1;
        namen = qe - 1;
        text = name;
        textn = namen;
        size_t r = qe + 1;
        skip_sp(nm, &r, nmn);
        if (r < nmn && nm[r] == '/') { text = nm + r + 1; textn = nmn - r - 1; has_text = 1; }
    } else {
        size_t sl = tk_scan_to(nm, 0, nmn, "/", 0);
        size_t du = nmn;
        if (sl >= nmn) {
            const char *d = tk_memmem(nm, nmn, "__");
            if (d) du = (size_t)(d - nm);
        }
        if (sl < nmn || du < nmn) {
            size_t cut = sl < nmn ? sl : du;
            name = nm;
            namen = cut;
            text = nm + cut + (sl < nmn ? 1 : 2);
            textn = nmn - cut - (sl < nmn ? 1 : 2);
            has_text = 1;
        }
    }
    tk_trim(&name, &namen);
    if (has_text) {
        tk_trim(&text, &textn);
        if (textn >= 2 && text[0] == '"' && text[textn - 1] == '"') { text++; textn -= 2; }
        else tk_unbrace(&text, &textn);
    }
    if (!has_text && namen && do_macro(g, name, namen, opts, on, list)) return e;
    do_node(g, name, namen, text, textn, has_text, opts, on, list);
    return e;
}

/* after an element: the connector, or the end of the chain */
static size_t read_connector(G *g, const char *s, size_t i, size_t n, int back, int *kind,
                             const char **opts, size_t *on)
{
    *opts = "";
    *on = 0;
    skip_sp(s, &i, n);
    if (!back && i >= n) return n;
    if (back) {
        /* the '<' was read: '-' and maybe '>' */
        if (i >= n || s[i] != '-') { fail(g, "an edge '<-' or '<->' expected: %s", s + i, n - i); return n; }
        i++;
        if (i < n && s[i] == '>') { *kind = K_BI; i++; } else *kind = K_BACK;
    } else {
        if (s[i] == '<') {
            if (n - i >= 3 && s[i + 1] == '-' && s[i + 2] == '>') { *kind = K_BI; i += 3; }
            else if (n - i >= 2 && s[i + 1] == '-') { *kind = K_BACK; i += 2; }
            else { fail(g, "one of the edges <-, --, ->, -!- or <-> expected: %s", s + i, n - i); return n; }
        } else if (s[i] == '-' && i + 1 < n && s[i + 1] == '>') { *kind = K_FWD; i += 2; }
        else if (s[i] == '-' && i + 1 < n && s[i + 1] == '-') { *kind = K_UND; i += 2; }
        else if (s[i] == '-' && i + 2 < n && s[i + 1] == '!' && s[i + 2] == '-') { *kind = K_NONE; i += 3; }
        else { fail(g, "one of the edges <-, --, ->, -!- or <-> expected: %s", s + i, n - i); return n; }
    }
    skip_sp(s, &i, n);
    if (i < n && s[i] == '[') {
        size_t e = match_close(s, i, n);
        if (e >= n) { fail(g, "edge options not closed: %s", s + i, n - i); return n; }
        *opts = s + i + 1;
        *on = e - i - 1;
        i = e + 1;
    }
    return i;
}

/* a chain: elements joined by edges (\tikz@lib@graph@main@parser) */
static void eval_chain(G *g, const char *s, size_t n, ilist *out)
{
    gsave sv;
    push(g, &sv);
    g->c.LD = g->c.LW = 0;
    ilist list = { 0 };
    size_t i = 0;
    int have_left = 0, kind = K_UND;
    const char *eo = "";
    size_t eon = 0;
    while (i < n && !g->why) {
        if (have_left) {
            /* after the arrow: the left side's sources kept aside, its targets marked */
            recolor(g, &list, C_SRC, C_SRC2);
            recolor(g, &list, C_TGT, C_TGT1);
        }
        int back = 0;
        size_t before = (size_t)list.n;
        i = do_element(g, s, i, n, &list, &back);
        (void)before;
        if (g->why) break;
        if (have_left) {
            /* the joiner */
            recolor(g, &list, C_SRC, C_SRC1);
            recolor(g, &list, C_SRC2, C_SRC);
            gsave js;
            push(g, &js);
            g->o.kind = kind;
            int op = 0;
            struct optctx cx = { NULL, &g->o.edges, 1, &op };
            each_kv(g, eo, eon, graph_key, &cx);
            if (op == -2)   /* several (induced complete bipartite) */
                for (int k = 0; k < g->o.nops && !g->why; k++) {
                    g->bfly_level = g->o.opl[k];
                    run_op(g, g->o.ops[k], g->o.opa[k], g->o.opb[k], &list);
                }
            else if (!g->why) run_op(g, op ? op : g->o.defop ? g->o.defop : OP_MSTAR, C_TGT1, C_SRC1, &list);
            pop(g, &js);
            for (int k = 0; k < list.n; k++) g->nodes[list.v[k]].col &= ~(unsigned)(C_SRC1 | C_TGT1);
        }
        i = read_connector(g, s, i, n, back, &kind, &eo, &eon);
        have_left = 1;
    }
    double cd = g->c.LD, cw = g->c.LW;
    pop(g, &sv);
    for (int k = 0; k < list.n; k++) il_push(out, list.v[k]);
    free(list.v);
    /* after the chain */
    g->c.D += cd;
    g->c.LD += cd;
    if (cw > g->c.LW) g->c.LW = cw;
}

/* a group's text: [options] chain, chain; ... (\tikz@lib@graph@parse@group);
 * extra: options before the group's own (@extra group options) */
static void eval_group_body(G *g, const char *s, size_t n, ilist *list, const char *extra, size_t en)
{
    size_t i = 0;
    skip_sp(s, &i, n);
    int placed = 0;
    struct tp_buf tk = { 0 };
    struct optctx cx = { &placed, &tk, 0, NULL };
    if (extra && en) each_kv(g, extra, en, graph_key, &cx);
    if (i < n && s[i] == '[') {
        size_t e = match_close(s, i, n);
        if (e >= n) { fail(g, "group options not closed: %s", s + i, n - i); return; }
        const char *o = s + i + 1;
        size_t on = e - i - 1;
        if (tk_is(o, on, "complete bipartite@shores")) {
            if (g->o.nops < 8) g->o.ops[g->o.nops++] = -1;
        } else {
            each_kv(g, o, on, graph_key, &cx);
        }
        i = e + 1;
    }
    if (tk.n) {
        /* TikZ keys in a group's options: pgf errors on them ("I do not
         * know the key") unless a library defines them */
        fail(g, "TikZ options in a graph group (%s)", tk.s + 1, tk.n - 1);
    }
    buf_free(&tk);
    while (i <= n && !g->why) {
        size_t j = tk_scan_to(s, i, n, ",;", 0);
        /* a chain ends at a top-level ',' or ';' (a group's braces protect) */
        eval_chain(g, s + i, j - i, list);
        i = j + 1;
    }
    if (g->why) return;
    /* the group's operators, on all its nodes */
    for (int k = 0; k < g->o.nops; k++) {
        if (g->o.ops[k] == -1) {
            /* K_nm: complete bipartite from shore V to shore W */
            ilist p = { 0 };
            pack(g, list, &p);
            int nv = g->o.V ? g->o.nV : 1;
            for (int a = 0; a < nv && a < p.n; a++)
                for (int b = nv; b < p.n; b++) new_edge(g, p.v[a], p.v[b]);
            free(p.v);
        } else {
            run_op(g, g->o.ops[k], g->o.opa[k], g->o.opb[k], list);
        }
    }
    g->gdepth = placed ? 0 : g->c.LD;
    g->gwidth = placed ? 0 : g->c.LW;
}

static void graph_free(G *g)
{
    for (int i = 0; i < g->nnodes; i++) {
        gnode *n = &g->nodes[i];
        free(n->full);
        buf_free(&n->ast); buf_free(&n->anode); buf_free(&n->bst); buf_free(&n->bnode);
    }
    free(g->nodes);
    g->nodes = NULL;
    g->nnodes = g->capnodes = 0;
    for (int i = 0; i < g->nsedges; i++) { free(g->sedges[i].opts); free(g->sedges[i].enodes); }
    free(g->sedges);
    g->sedges = NULL;
    g->nsedges = g->capsedges = 0;
    opt_free(&g->o);
    for (int i = 0; i < g->ndecl; i++) { free(g->decl[i].name); free(g->decl[i].body); }
    g->ndecl = 0;
    for (int i = 0; i < g->ncls; i++) free(g->cls[i]);
    g->ncls = 0;
    for (int i = 0; i < G_MAX_LEVELS; i++) { free(g->lev[i]); g->lev[i] = NULL; }
}

static int cmp_long(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static void graph_run(G *g, const char *opts, const char *body)
{
    memset(&g->o, 0, sizeof g->o);
    memset(&g->c, 0, sizeof g->c);
    buf_addc(&g->o.sep, " ");
    buf_addc(&g->o.numsep, " ");
    buf_addc(&g->o.quotes, "@AUTO@");
    buf_addc(&g->o.typeset, "\\tikzgraphnodetext");
    g->o.kind = K_UND;
    g->o.place = P_CART;
    g->o.cs = eval_pt(g, "%s", "1,0", 3);
    g->o.gs = eval_pt(g, "%s", "0,-1", 4);
    g->o.cps = v2(0, 28.452756);
    g->o.gps = v2(60, 0);
    g->o.radius = 28.452756;
    g->o.phase = 90;
    int placed = 0;
    struct tp_buf tk = { 0 };
    struct optctx cx = { &placed, &tk, 0, NULL };
    if (g->T->graphsset) each_kv(g, g->T->graphsset, strlen(g->T->graphsset), graph_key, &cx);
    if (opts) each_kv(g, opts, strlen(opts), graph_key, &cx);
    if (g->why) { buf_free(&tk); return; }
    /* \scope[graphs/.cd, ..., options]: TikZ keys of the scope */
    tk_gs_push(g->T);
    if (tk.n > 1 && !g->dry) tk_apply_opts(g->T, tk.s + 1, tk.n - 1, NULL, 0);
    buf_free(&tk);
    int outer_ops[8], nouter = g->o.nops;
    unsigned outer_a[8], outer_b[8];
    memcpy(outer_ops, g->o.ops, sizeof outer_ops);
    memcpy(outer_a, g->o.opa, sizeof outer_a);
    memcpy(outer_b, g->o.opb, sizeof outer_b);
    g->o.nops = 0;
    g->c.W = g->c.D = g->c.LD = g->c.LW = 0;
    ilist list = { 0 };
    eval_group_body(g, body, strlen(body), &list, NULL, 0);
    for (int k = 0; k < nouter && !g->why; k++) run_op(g, outer_ops[k], outer_a[k], outer_b[k], &list);
    if (g->simple && !g->why) {
        /* \tikz@lib@graph@simple@done: for each node of the packed list,
         * its edges to the nodes of the list, in the list's order */
        ilist p = { 0 };
        pack(g, &list, &p);
        int *pos = xmalloc(((size_t)g->nnodes + 1) * sizeof *pos);
        for (int a = 0; a < g->nnodes; a++) pos[a] = -1;
        for (int a = 0; a < p.n; a++) pos[p.v[a]] = a;
        long long *key = xmalloc(((size_t)g->nsedges + 1) * sizeof *key);
        int nk = 0;
        for (int k = 0; k < g->nsedges; k++) {
            int a = pos[g->sedges[k].from], b = pos[g->sedges[k].to];
            if (a >= 0 && b >= 0) key[nk++] = ((long long)a * G_MAX_NODES + b) * (G_MAX_EDGES + 1LL) + k;
        }
        qsort(key, (size_t)nk, sizeof *key, cmp_long);
        for (int i = 0; i < nk && !g->why; i++) {
            gedge *e = &g->sedges[key[i] % (G_MAX_EDGES + 1LL)];
            emit_edge(g, e->from, e->to, e->kind, e->opts, e->enodes);
        }
        free(key);
        free(pos);
        free(p.v);
    }
    free(list.v);
    tk_gs_pop(g->T);
}

void tk_graph(tikz *T, const char *opts, const char *body, int line)
{
    G g;
    memset(&g, 0, sizeof g);
    g.T = T;
    g.line = line;
    g.dry = 1;
    graph_run(&g, opts, body);
    const char *why = g.why;
    char whybuf[160];
    if (why) snprintf(whybuf, sizeof whybuf, "%s", why);
    int anon = g.anon;
    graph_free(&g);
    if (why) {
        struct tp_buf src = { 0 };
        buf_addc(&src, "graph ");
        if (opts) { buf_addc(&src, "["); buf_addc(&src, opts); buf_addc(&src, "] "); }
        buf_addc(&src, "{");
        buf_addc(&src, body);
        buf_addc(&src, "}");
        cli_one_line(src.s);
        char msg[200];
        snprintf(msg, sizeof msg, "graph: %s", whybuf);
        tk_unparsed(T, line, src.s, msg);
        buf_free(&src);
        return;
    }
    memset(&g, 0, sizeof g);
    g.T = T;
    g.line = line;
    g.anon = anon - anon;
    graph_run(&g, opts, body);
    graph_free(&g);
}

/* ---- node sets ------------------------------------------------------------
 * tikzlibrarygraphs: new set=NAME makes an empty set; set=NAME in a node's
 * options adds the node (by its name) to it; in a graph, (NAME) is every
 * node of the set, in the order they joined (\tikz@lib@graph@handle@use). */
#define MAX_NODESETS 1000
#define MAX_SET_NODES 100000

const struct tk_nodeset *tk_nodeset_find(tikz *T, const char *name, size_t n)
{
    for (size_t i = 0; i < T->nsets; i++)
        if (strlen(T->sets[i].name) == n && memcmp(T->sets[i].name, name, n) == 0) return &T->sets[i];
    return NULL;
}

int tk_nodeset_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn, int node)
{
    int is_new = tk_is(k, kn, "new set");
    if (!is_new && !(node && tk_is(k, kn, "set"))) return 0;
    tk_unbrace(&v, &vn);
    tk_trim(&v, &vn);
    if (vn == 0 || memchr(v, '\n', vn)) return 1;
    struct tk_nodeset *s = (struct tk_nodeset *)tk_nodeset_find(T, v, vn);
    if (is_new) {
        if (s) {
            for (size_t i = 0; i < s->n; i++) free(s->nodes[i]);
            s->n = 0;
            return 1;
        }
        if (T->nsets >= MAX_NODESETS) {
            tk_warn(T, T->cmd_line, "more than %d node sets; new set=%.*s ignored", MAX_NODESETS,
                    (int)(vn > 40 ? 40 : vn), v);
            return 1;
        }
        if (T->nsets == T->capsets) {
            T->capsets = T->capsets ? 2 * T->capsets : 8;
            T->sets = xrealloc(T->sets, T->capsets * sizeof *T->sets);
        }
        s = &T->sets[T->nsets++];
        memset(s, 0, sizeof *s);
        s->name = xstrndup(v, vn);
        return 1;
    }
    if (!s) {
        /* TikZ: "Undefined set" (an error); the node is drawn */
        tk_warn(T, T->cmd_line, "set=%.*s: no such set (new set= makes one)", (int)(vn > 40 ? 40 : vn), v);
        return 1;
    }
    size_t ol = T->set_pending ? strlen(T->set_pending) : 0;
    if (ol > 4096) return 1;
    T->set_pending = xrealloc(T->set_pending, ol + vn + 2);
    memcpy(T->set_pending + ol, v, vn);
    T->set_pending[ol + vn] = '\n';
    T->set_pending[ol + vn + 1] = 0;
    return 1;
}

void tk_nodeset_join(tikz *T, const char *name, const tk_node *sh)
{
    char *p = T->set_pending;
    T->set_pending = NULL;
    if (!p) return;
    char internal[40];
    if (!name && sh) {
        /* \tikz@fig@mustbenamed: a node in a set gets a name of its own
         * (the path builder's only: no coord record) */
        snprintf(internal, sizeof internal, "tikz@set@%d", ++T->sentinel_id);
        tk_node copy = *sh;
        ir_diagram *d = T->d;
        T->d = NULL;
        tk_add_node_geom(T, internal, &copy);
        T->d = d;
        name = internal;
    }
    if (name)
        for (char *q = p; *q;) {
            char *e = strchr(q, '\n');
            struct tk_nodeset *s = (struct tk_nodeset *)tk_nodeset_find(T, q, (size_t)(e - q));
            if (s && s->n < MAX_SET_NODES) {
                if (s->n == s->cap) {
                    s->cap = s->cap ? 2 * s->cap : 8;
                    s->nodes = xrealloc(s->nodes, s->cap * sizeof *s->nodes);
                }
                s->nodes[s->n++] = xstrdup(name);
            }
            q = e + 1;
        }
    free(p);
}

void tk_nodesets_free(tikz *T)
{
    for (size_t i = 0; i < T->nsets; i++) {
        for (size_t j = 0; j < T->sets[i].n; j++) free(T->sets[i].nodes[j]);
        free(T->sets[i].nodes);
        free(T->sets[i].name);
    }
    free(T->sets);
    T->sets = NULL;
    T->nsets = T->capsets = 0;
    free(T->set_pending);
    T->set_pending = NULL;
}
