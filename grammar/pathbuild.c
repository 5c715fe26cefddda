/* pathbuild.c — the path builder: the actions bison's path grammar
 * (path.y) calls for each path operation, the nodes placed along a path,
 * and tk_run_path, which runs a path and emits its pieces as IR elements. */
#include "grammar/interp.h"
#include "grammar/pathgrammar.h"
#include "ir/geom_2d.h"
#include "ir/xalloc.h"
#include "path.tab.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PIECES 20000       /* elements one path may produce */
#define MAX_GRID_LINES 2000
#define MAX_PENDING 20000     /* nodes one path operation may carry */

/* ---- the path builder ------------------------------------------------------------------ */

typedef struct {
    ir_kind kind;
    int closed;
    vec2 *p;
    size_t n;
    double t1, t2;
    int line;
    const char *role;
    vec3 *p3;                 /* xyz of each point, or NULL */
    unsigned char own_p, own_p3;   /* p, p3 malloc'd (else in the path's pool) */
} piece;

typedef struct {
    char *opts;
    char *name;
    char *at;
    char *text;
    int line;
    const int *text_lines;    /* the line of each byte of the text (NULL: line) */
} pending_node;

static void pend_free(pending_node *pn)
{
    free(pn->opts);
    free(pn->name);
    free(pn->at);
    free(pn->text);
}

enum { SEG_NONE, SEG_LINE, SEG_CURVE, SEG_HV, SEG_ARC };

struct tp_state {
    tikz *T;
    int cmd;
    const char *text;
    const int *lines;
    int base_line;
    int npts;                 /* the points below */
    /* the subpath's points (b.sub) and their xyz (b.sub3) */
    int sub3ok;               /* every point of the subpath has xyz */
    int cycle;
    size_t nsub;
    vec2 sub_start;
    int have_cur;
    vec2 cur, relbase;
    int seg_kind;
    ir_box mbox;              /* the path's move-to points (pgf's picture box) */
    vec2 seg[4];
    double seg_t1, seg_t2;
    size_t npieces;           /* in b.pieces */
    pending_node *pend;       /* nodes waiting for the segment they sit on */
    int npend, cappend;
    int pend_dropped;
    pending_node curnode;
    /* circle/arc arguments */
    double ca_rx, ca_ry, arc_a1, arc_a2;
    vec2 ca_A, ca_B;
    int ca_ok;
    int err;
    int line;
    int sub_line;
    vec3 cur3;
    int cur3ok;
    int single_control;
    int bad_coord;            /* a coordinate failed: the path's geometry is not drawn */
    int deco_depth;           /* decorate { ... } operations and path scopes being run */
    int cp_local;             /* "current point is local" in the path scope being read */
    int plot_join;            /* "-- plot": the next plot goes on from the current point */
    struct tk_pathbufs b;     /* the pool of the pieces' points */
    struct dpic { char *opts, *body; vec2 at; int line; } *dpics;   /* pics, drawn after the path */
    int ndpics, capdpics;
    struct tkids { struct tkid *v; int n, cap; } kids;   /* a tree's children, read not yet placed */
    long tree_nodes;          /* children placed (MAX_TREE_NODES) */
    /* TikZ's \tikz@moveto@waiting: the node (index + 1 in T->nodes; 0 none)
     * whose border the next line, curve or to path starts on, toward where
     * it goes; until then the current point is the node's centre */
    size_t wait_nd;
    size_t fig_nd;            /* the named node a path's node operation just
                                 placed (an edge after it starts there) */
    const char *tgt_text;     /* the last coordinate as written (in the
                                 scanner's buffer), for \tikztotarget */
    int tgt_n;
    int tgt_canvas;           /* it was +(..), ++(..), ([..]..) or ($..$): TikZ
                                 writes the point it computed instead */
    /* Last: tk_run_path zeroes the state only up to here. An entry of these
     * is read only below npts, after tp_coord (or tp_controls_single, for
     * pts and pts_rel) wrote it in this path. */
    vec2 pts[8];
    int pts_rel[8];           /* the point was written +(..) or ++(..) */
    vec2 pts_vec[8];          /* its offset, canvas */
    vec3 pts3[8];
    int pts3ok[8];
    size_t pts_nd[8];         /* a bare node name (A): its index + 1, else 0 */
};

/* n bytes (a multiple of 8) for a piece's points: from the path's pool when
 * they fit (pointers stay valid: the pool does not move during a path), else
 * malloc'd (*own = 1) and the pool grows for the next path */
static void *pool_take(struct tp_state *st, size_t n, unsigned char *own)
{
    struct tk_pathbufs *b = &st->b;
    if (n <= b->poolcap - b->poolused) {
        void *r = b->pool + b->poolused;
        b->poolused += n;
        *own = 0;
        return r;
    }
    b->poolwant += n;
    *own = 1;
    return xrealloc(NULL, n);
}

static void piece_free(piece *pc)
{
    if (pc->own_p) free(pc->p);
    if (pc->own_p3) free(pc->p3);
}

static int off_line(struct tp_state *st, int off)
{
    if (!st->lines || off < 0) return st->base_line;
    return st->lines[off];
}

void tp_syntax_error(struct tp_state *st, int off, const char *msg)
{
    if (st->err) return;
    st->err = 1;
    tikz *T = st->T;
    char buf[200];
    snprintf(buf, sizeof buf, "%s", st->text);
    tk_unparsed(T, off_line(st, off), buf, msg);
}

static void add_piece(struct tp_state *st, ir_kind kind, int closed, const vec2 *p, size_t n,
                      double t1, double t2, const char *role)
{
    if (st->npieces >= MAX_PIECES) {
        if (st->npieces == MAX_PIECES) {
            tk_warn(st->T, st->line, "path has more than %d pieces; rest dropped", MAX_PIECES);
            st->npieces++;
        }
        return;
    }
    if (st->npieces == st->b.cappieces) {
        st->b.cappieces = st->b.cappieces ? st->b.cappieces * 2 : 16;
        st->b.pieces = xrealloc(st->b.pieces, st->b.cappieces * sizeof(piece));
    }
    piece *pc = &((piece *)st->b.pieces)[st->npieces++];
    pc->kind = kind;
    pc->closed = closed;
    pc->own_p3 = 0;
    pc->p = pool_take(st, n * sizeof *p, &pc->own_p);
    memcpy(pc->p, p, n * sizeof *p);
    pc->n = n;
    pc->t1 = t1;
    pc->t2 = t2;
    pc->line = st->line;
    pc->role = role;
    pc->p3 = NULL;
}

static void flush_sub(struct tp_state *st, int closed)
{
    int saved = st->line;
    st->line = st->sub_line;
    if (st->nsub >= 2) {
        add_piece(st, IR_POLY, closed, st->b.sub, st->nsub, 0, 0, NULL);
        if (st->sub3ok && st->T->any3d && st->npieces <= MAX_PIECES) {
            piece *pc = &((piece *)st->b.pieces)[st->npieces - 1];
            pc->p3 = pool_take(st, st->nsub * sizeof *pc->p3, &pc->own_p3);
            memcpy(pc->p3, st->b.sub3, st->nsub * sizeof *pc->p3);
        }
    }
    st->line = saved;
    st->nsub = 0;
}

static void sub_add3(struct tp_state *st, vec2 p, const vec3 *p3)
{
    if (st->nsub == 0) { st->sub_line = st->line; st->sub3ok = 1; }
    if (st->nsub == st->b.capsub) {
        st->b.capsub = st->b.capsub ? st->b.capsub * 2 : 16;
        st->b.sub = xrealloc(st->b.sub, st->b.capsub * sizeof *st->b.sub);
        st->b.sub3 = xrealloc(st->b.sub3, st->b.capsub * sizeof *st->b.sub3);
    }
    if (p3) st->b.sub3[st->nsub] = *p3;
    else st->sub3ok = 0;
    st->b.sub[st->nsub++] = p;
}

static void sub_add(struct tp_state *st, vec2 p) { sub_add3(st, p, NULL); }

static vec2 seg_point(struct tp_state *st, double t, vec2 *dir)
{
    vec2 *s = st->seg;
    switch (st->seg_kind) {
    case SEG_LINE:
        if (dir) *dir = vsub(s[1], s[0]);
        return vadd(s[0], vscale(vsub(s[1], s[0]), t));
    case SEG_HV:
        if (t <= 0.5) {
            if (dir) *dir = vsub(s[1], s[0]);
            return vadd(s[0], vscale(vsub(s[1], s[0]), 2 * t));
        }
        if (dir) *dir = vsub(s[2], s[1]);
        return vadd(s[1], vscale(vsub(s[2], s[1]), 2 * t - 1));
    case SEG_CURVE: {
        double u = 1 - t;
        vec2 p = vadd(vadd(vscale(s[0], u * u * u), vscale(s[1], 3 * u * u * t)),
                      vadd(vscale(s[2], 3 * u * t * t), vscale(s[3], t * t * t)));
        if (dir) *dir = vadd(vadd(vscale(vsub(s[1], s[0]), u * u), vscale(vsub(s[2], s[1]), 2 * u * t)),
                             vscale(vsub(s[3], s[2]), t * t));
        return p;
    }
    case SEG_ARC: {
        double a = (st->seg_t1 + (st->seg_t2 - st->seg_t1) * t) * DEG;
        if (dir) *dir = vadd(vscale(s[1], -sin(a)), vscale(s[2], cos(a)));
        return vadd(s[0], vadd(vscale(s[1], cos(a)), vscale(s[2], sin(a))));
    }
    default:
        if (dir) *dir = v2(1, 0);
        return st->cur;
    }
}

static void place_pending(struct tp_state *st, int on_segment);
static void parse_nested(struct tp_state *st, const struct tp_str *body);
static void expand_lets(tikz *T, const char **text, const int **lines, size_t *n, int line,
                        char **own_text, int **own_lines);
static void place_one(struct tp_state *st, pending_node *pn, int on_segment);
static void apply_style_if(tikz *T, const char *name);

static vec2 pop_pt(struct tp_state *st)
{
    if (st->npts <= 0) return st->cur;
    return st->pts[--st->npts];
}

void tp_coord(struct tp_state *st, const struct tp_str *c, int rel)
{
    tikz *T = st->T;
    gstate *g = GS(T);
    int line = off_line(st, c->off);
    st->line = line;
    vec2 p;
    T->cur3_ok = 0;
    vec2 rel_vec = v2(0, 0);
    const char *cs = c->s;
    size_t cn = (size_t)c->n;
    {
        const char *w = cs;
        size_t wn = cn;
        tk_trim(&w, &wn);
        st->tgt_text = w;
        st->tgt_n = (int)wn;
        st->tgt_canvas = rel || (wn && (w[0] == '[' || w[0] == '$'));
    }
    if (!rel && cn > 6 && cs[0] == '[') {
        /* ([turn]coord): coord in a frame at the current point whose x axis is
         * the direction the path arrives in (tikz.code.tex, turn/.code) */
        const char *close = memchr(cs, ']', cn);
        const char *o = cs + 1;
        size_t on = close ? (size_t)(close - o) : 0;
        tk_trim(&o, &on);
        if (close && tk_is(o, on, "turn")) {
            vec2 u, d;
            size_t rest = cn - (size_t)(close + 1 - cs);
            if (tk_coord_user(T, close + 1, rest, &u, line)) {
                tk_unparsed(T, line, c->s, "cannot evaluate coordinate");
                st->bad_coord = 1;
                p = st->cur;
            } else {
                seg_point(st, 1, &d);
                double len = hypot(d.x, d.y);
                d = len > 0 ? vscale(d, 1 / len) : v2(1, 0);
                vec2 w = mat_lin(g->ctm, u);
                p = vadd(st->cur, v2(d.x * w.x - d.y * w.y, d.y * w.x + d.x * w.y));
            }
            st->relbase = p;
            if (st->npts < 8) {
                st->pts_rel[st->npts] = 0;
                st->pts_vec[st->npts] = v2(0, 0);
                st->pts3ok[st->npts] = 0;
                st->pts_nd[st->npts] = 0;
                st->pts3[st->npts] = T->cur3;
                st->pts[st->npts++] = p;
            }
            return;
        }
    }
    if (rel) {
        vec2 u;
        if (tk_coord_user(T, c->s, (size_t)c->n, &u, line)) {
            tk_unparsed(T, line, c->s, "cannot evaluate coordinate");
            st->bad_coord = 1;
            p = st->cur;
        }
        else { rel_vec = mat_lin(g->ctm, u); p = vadd(st->relbase, rel_vec); }
        if (!(fabs(p.x) <= TK_MAX_DIMEN_PT) || !(fabs(p.y) <= TK_MAX_DIMEN_PT)) {
            tk_unparsed(T, line, c->s, "relative coordinate beyond TeX's largest dimension");
            st->bad_coord = 1;
            p = st->cur;
            rel_vec = v2(0, 0);
        }
        if (rel == 2) st->relbase = p;
    } else if (tk_is(c->s, (size_t)c->n, "current subpath start")) {
        /* where the path's current subpath began (TikZ's special name) */
        p = st->nsub || st->have_cur ? st->sub_start : v2(0, 0);
    } else {
        if (tk_coord(T, c->s, (size_t)c->n, &p, line)) {
            tk_unparsed(T, line, c->s, "cannot evaluate coordinate");
            st->bad_coord = 1;
            p = st->cur;
        }
        st->relbase = p;
    }
    if (st->npts < 8) {
        /* a bare node name, not a coordinate shape: TikZ's shape border
         * point, worked out by the operation that uses it */
        size_t nd = 0;
        if (!rel && !st->bad_coord) {
            const char *nm = c->s;
            size_t nn = (size_t)c->n;
            tk_trim(&nm, &nn);
            tk_node *np = nn ? tk_find_node(T, nm, nn) : NULL;
            if (np && np->shape != TK_SH_COORD) nd = (size_t)(np - T->nodes) + 1;
        }
        st->pts_nd[st->npts] = nd;
        st->pts_rel[st->npts] = rel;
        st->pts_vec[st->npts] = rel_vec;
        st->pts3ok[st->npts] = !rel && T->cur3_ok;
        st->pts3[st->npts] = T->cur3;
        st->pts[st->npts++] = p;
    }
}

void tp_move(struct tp_state *st)
{
    int k = st->npts - 1;
    vec2 p = pop_pt(st);
    flush_sub(st, 0);
    st->npts = 0;
    sub_add3(st, p, k >= 0 && st->pts3ok[k] ? &st->pts3[k] : NULL);
    st->wait_nd = k >= 0 ? st->pts_nd[k] : 0;
    st->fig_nd = 0;
    st->cur3 = k >= 0 ? st->pts3[k] : st->cur3;
    st->cur3ok = k >= 0 && st->pts3ok[k];
    st->sub_start = p;
    st->cur = p;
    st->have_cur = 1;
    ir_box_add(&st->mbox, p.x, p.y);
    /* the last segment stays: TikZ's pos= timer survives a move, so
     * "(0,0) -- (4,0) (0,5) node[midway]" sits at (2,0) */
}

static void line_to3(struct tp_state *st, vec2 p, const vec3 *p3)
{
    if (st->nsub == 0) {
        sub_add3(st, st->cur, st->cur3ok ? &st->cur3 : NULL);
        st->sub_start = st->cur;
    }
    sub_add3(st, p, p3);
    st->cur = p;
    if (p3) st->cur3 = *p3;
    st->cur3ok = p3 != NULL;
}

static void line_to(struct tp_state *st, vec2 p) { line_to3(st, p, NULL); }

/* the node of a pts_nd or wait_nd entry (index + 1), or NULL */
static const tk_node *nd_of(const struct tp_state *st, size_t idx)
{
    return idx && idx <= st->T->nnodes ? &st->T->nodes[idx - 1] : NULL;
}

/* TikZ's \tikz@flush@moveto@toward: a moveto to a node's centre waits
 * until the operation after it says where the path goes; it then starts on
 * the node's border toward that point (a new subpath when a line ended at
 * the node). Returns where the next piece starts. */
static vec2 start_toward(struct tp_state *st, vec2 toward)
{
    const tk_node *nd = nd_of(st, st->wait_nd);
    st->wait_nd = 0;
    if (!nd) return st->cur;
    vec2 b = tk_node_border_toward(nd, toward);
    if (st->nsub >= 2) flush_sub(st, 0);
    if (st->nsub == 1) { st->b.sub[0] = b; st->sub3ok = 0; }
    else sub_add(st, b);
    st->sub_start = b;
    return b;
}

/* TikZ's \tikz@flush@moveto: the operations other than lines, curves and
 * to paths start a waiting moveto at the node's centre */
static void start_at_centre(struct tp_state *st)
{
    if (!st->wait_nd) return;
    st->wait_nd = 0;
    if (st->nsub >= 2) {
        flush_sub(st, 0);
        sub_add(st, st->cur);
    }
    st->sub_start = st->cur;
}

void tp_cycle_target(struct tp_state *st) { st->cycle = 1; }

/* "cycle" as the target of an operation other than "--" and "to" (-|, |-,
 * .. controls .., parabola): the start of the current subpath, pushed as
 * the operation's last point (TikZ 3.1: cycle is a coordinate there) */
void tp_cycle_point(struct tp_state *st)
{
    vec2 p = st->nsub || st->have_cur ? st->sub_start : v2(0, 0);
    st->cycle = 0;
    if (st->npts < 8) {
        st->pts_rel[st->npts] = 0;
        st->pts_vec[st->npts] = v2(0, 0);
        st->pts3ok[st->npts] = 0;
        st->pts_nd[st->npts] = 0;
        st->pts3[st->npts] = st->T->cur3;
        st->pts[st->npts++] = p;
    }
    st->relbase = p;
}

void tp_line(struct tp_state *st, int kind)
{
    vec2 from = st->cur, to;
    if (st->cycle && kind == 0 && st->wait_nd) {
        /* a moveto waiting at a node: TikZ moves to its centre and closes
         * that empty subpath, which draws nothing */
        start_at_centre(st);
        st->cycle = 0;
        st->nsub = 0;
        st->seg_kind = SEG_LINE;
        st->seg[0] = st->seg[1] = from;
        st->relbase = from;
        place_pending(st, 1);
        st->npts = 0;
        return;
    }
    if (st->cycle && kind == 0) {
        to = st->sub_start;
        st->cycle = 0;
        st->seg_kind = SEG_LINE;
        st->seg[0] = from;
        st->seg[1] = to;
        if (st->nsub >= 2 && st->b.sub[0].x == to.x && st->b.sub[0].y == to.y) {
            st->cur = to;
            flush_sub(st, 1);
        } else {
            line_to(st, to);
            flush_sub(st, 0);
        }
        st->cur = to;
        st->relbase = to;
        place_pending(st, 1);
        st->npts = 0;
        return;
    }
    int closing = 0;
    if (st->cycle) {
        /* "-| cycle", "|- cycle": the corner, then back to the subpath's
         * start, closing it (tikz.code.tex: cycle is the start) */
        st->cycle = 0;
        st->npts = 0;
        tp_cycle_point(st);
        closing = 1;
    }
    int k = st->npts - 1;
    to = pop_pt(st);
    size_t tnd = k >= 0 && k < 8 ? st->pts_nd[k] : 0;
    const tk_node *tn = nd_of(st, tnd);
    st->npts = 0;
    st->fig_nd = 0;
    /* a node named bare, (B): the line ends on its border toward where it
     * comes from (the corner of -| and |-), and the next one starts on it
     * (tikz.code.tex, \tikz@@lineto, \tikz@@hv@lineto) */
    if (kind == 0) {
        vec2 end = tn ? tk_node_border_toward(tn, from) : to;
        from = start_toward(st, end);
        line_to3(st, end, !tn && k >= 0 && st->pts3ok[k] ? &st->pts3[k] : NULL);
        st->seg_kind = SEG_LINE;
        st->seg[0] = from;
        st->seg[1] = end;
    } else {
        /* -| : horizontal then vertical (in canvas for untransformed pictures) */
        vec2 corner = kind == 1 ? v2(to.x, from.y) : v2(from.x, to.y);
        if (st->wait_nd) {
            from = start_toward(st, corner);
            corner = kind == 1 ? v2(to.x, from.y) : v2(from.x, to.y);
        }
        vec2 end = tn ? tk_node_border_toward(tn, corner) : to;
        line_to(st, corner);
        line_to(st, end);
        st->seg_kind = SEG_HV;
        st->seg[0] = from;
        st->seg[1] = corner;
        st->seg[2] = end;
        if (closing && st->nsub >= 3 && st->b.sub[st->nsub - 1].x == st->b.sub[0].x &&
            st->b.sub[st->nsub - 1].y == st->b.sub[0].y) {
            st->nsub--;
            flush_sub(st, 1);
        }
    }
    st->cur = to;
    st->wait_nd = tnd;
    place_pending(st, 1);
}

void tp_rectangle(struct tp_state *st)
{
    tikz *T = st->T;
    start_at_centre(st);
    gstate *g = GS(T);
    vec2 a = st->cur, b = pop_pt(st);
    st->npts = 0;
    flush_sub(st, 0);
    vec2 ua = mat_inv_apply(g->ctm, a), ub = mat_inv_apply(g->ctm, b);
    vec2 q[4] = { a, mat_apply(g->ctm, v2(ub.x, ua.y)), b, mat_apply(g->ctm, v2(ua.x, ub.y)) };
    if (fabs(q[1].y - a.y) < 1e-9 && fabs(q[3].x - a.x) < 1e-9) {
        vec2 r[2] = { v2(fmin(a.x, b.x), fmin(a.y, b.y)), v2(fmax(a.x, b.x), fmax(a.y, b.y)) };
        add_piece(st, IR_RECT, 1, r, 2, 0, 0, NULL);
    } else {
        add_piece(st, IR_POLY, 1, q, 4, 0, 0, NULL);
    }
    st->seg_kind = SEG_LINE;
    st->seg[0] = a;
    st->seg[1] = b;
    st->cur = b;
    st->sub_start = b;
    place_pending(st, 1);
}

/* radius values: unitless radii use the x and y vectors */
static void radii_vectors(tikz *T, double rx, int hx, double ry, int hy, vec2 *A, vec2 *B)
{
    gstate *g = GS(T);
    vec2 ua = hx ? v2(rx, 0) : vscale(g->xv, rx);
    vec2 ub = hy ? v2(0, ry) : vscale(g->yv, ry);
    *A = mat_lin(g->ctm, ua);
    *B = mat_lin(g->ctm, ub);
}

/* The radii "R" or "RX and RY" of s[0..n) as the ellipse vectors of
 * st->ca_A and st->ca_B (st->ca_ok); 0 when a radius cannot be evaluated. */
static int read_radii(struct tp_state *st, const char *s, size_t n)
{
    tikz *T = st->T;
    const char *and = tk_memmem(s, n, " and ");
    double rx, ry;
    int hx = 0, hy = 0;
    if (and) {
        if (tk_eval(T, s, (size_t)(and - s), &rx, &hx) ||
            tk_eval(T, and + 5, n - (size_t)(and + 5 - s), &ry, &hy))
            return 0;
    } else {
        if (tk_eval(T, s, n, &rx, &hx)) return 0;
        ry = rx;
        hy = hx;
    }
    radii_vectors(T, rx, hx, ry, hy, &st->ca_A, &st->ca_B);
    st->ca_ok = 1;
    return 1;
}

void tp_circle_args(struct tp_state *st, const struct tp_str *opts, const struct tp_str *paren)
{
    tikz *T = st->T;
    gstate *g = GS(T);
    st->ca_ok = 0;
    if (opts) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
    if (paren) {
        const char *s = paren->s;
        if (!read_radii(st, s, strlen(s)))
            tk_unparsed(T, off_line(st, paren->off), s, "cannot evaluate radius");
    } else if (g->has_radius) {
        radii_vectors(T, g->radius_x, g->radius_x_unit, g->radius_y, g->radius_y_unit, &st->ca_A, &st->ca_B);
        st->ca_ok = 1;
    }
}

void tp_circle(struct tp_state *st, int ellipse)
{
    (void)ellipse;
    start_at_centre(st);
    if (!st->ca_ok) {
        tk_warn(st->T, st->line, "circle without a radius");
        return;
    }
    flush_sub(st, 0);
    /* no current point: TikZ's last position is (0pt,0pt), the origin of
     * the coordinate system in force (a shift or a pic moves the circle) */
    vec2 c = st->have_cur ? st->cur : mat_apply(GS(st->T)->ctm, v2(0, 0));
    vec2 p[3] = { c, st->ca_A, st->ca_B };
    add_piece(st, IR_ELLIPSE, 1, p, 3, 0, 0, NULL);
    st->npts = 0;
    place_pending(st, 0);
}

void tp_arc_args(struct tp_state *st, const struct tp_str *opts, const struct tp_str *paren)
{
    tikz *T = st->T;
    gstate *g = GS(T);
    st->ca_ok = 0;
    if (opts) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
    if (paren) {
        /* a1:a2:r [and r2] */
        const char *s = paren->s;
        size_t n = strlen(s);
        long c1 = tk_find_top(s, n, ':');
        long c2 = c1 >= 0 ? tk_find_top(s + c1 + 1, n - (size_t)c1 - 1, ':') : -1;
        if (c1 < 0 || c2 < 0) { tk_unparsed(T, off_line(st, paren->off), s, "cannot parse arc"); return; }
        c2 += c1 + 1;
        if (tk_eval(T, s, (size_t)c1, &st->arc_a1, NULL) ||
            tk_eval(T, s + c1 + 1, (size_t)(c2 - c1 - 1), &st->arc_a2, NULL)) {
            tk_unparsed(T, off_line(st, paren->off), s, "cannot evaluate arc angles");
            return;
        }
        if (!read_radii(st, s + c2 + 1, n - (size_t)c2 - 1))
            tk_unparsed(T, off_line(st, paren->off), s, "cannot evaluate arc radius");
    } else {
        if (!g->has_radius) return;
        double a1 = g->start_angle, a2;
        if (g->has_end) a2 = g->end_angle;
        else if (g->has_delta) a2 = a1 + g->delta_angle;
        else return;
        if (!g->has_start && g->has_delta && g->has_end) a1 = a2 - g->delta_angle;
        st->arc_a1 = a1;
        st->arc_a2 = a2;
        radii_vectors(T, g->radius_x, g->radius_x_unit, g->radius_y, g->radius_y_unit, &st->ca_A, &st->ca_B);
        st->ca_ok = 1;
    }
}

void tp_arc(struct tp_state *st)
{
    start_at_centre(st);
    if (!st->ca_ok) { tk_warn(st->T, st->line, "arc without angles and radius"); return; }
    double a1 = st->arc_a1, a2 = st->arc_a2;
    vec2 A = st->ca_A, B = st->ca_B;
    vec2 c = vsub(st->cur, vadd(vscale(A, cos(a1 * DEG)), vscale(B, sin(a1 * DEG))));
    vec2 end = vadd(c, vadd(vscale(A, cos(a2 * DEG)), vscale(B, sin(a2 * DEG))));
    flush_sub(st, 0);
    vec2 p[3] = { c, A, B };
    add_piece(st, IR_ARC, 0, p, 3, a1, a2, NULL);
    st->seg_kind = SEG_ARC;
    st->seg[0] = c;
    st->seg[1] = A;
    st->seg[2] = B;
    st->seg_t1 = a1;
    st->seg_t2 = a2;
    st->cur = end;
    st->relbase = end;
    st->npts = 0;
    place_pending(st, 1);
}

void tp_grid(struct tp_state *st, const struct tp_str *opts)
{
    tikz *T = st->T;
    start_at_centre(st);
    tk_gs_push(T);
    gstate *g = GS(T);
    if (opts && opts->s) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
    vec2 a = st->cur, b = pop_pt(st);
    st->npts = 0;
    flush_sub(st, 0);
    vec2 ua = mat_inv_apply(g->ctm, a), ub = mat_inv_apply(g->ctm, b);
    /* step in user space: unitless steps use the vectors */
    double sx, sy;
    if (g->has_step == 1) { sx = g->step.x * g->xv.x; sy = g->step.y * g->yv.y; }
    else if (g->has_step == 2) { sx = g->step.x; sy = g->step.y; }
    else { sx = 28.452756; sy = 28.452756; }
    if (sx <= 0 || sy <= 0) { tk_gs_pop(T); return; }
    double x0 = fmin(ua.x, ub.x), x1 = fmax(ua.x, ub.x), y0 = fmin(ua.y, ub.y), y1 = fmax(ua.y, ub.y);
    if ((x1 - x0) / sx > MAX_GRID_LINES || (y1 - y0) / sy > MAX_GRID_LINES) {
        tk_warn(T, st->line, "grid with more than %d lines; not drawn", MAX_GRID_LINES);
        tk_gs_pop(T);
        return;
    }
    double eps = 1e-6;
    for (double x = ceil(x0 / sx - eps) * sx; x <= x1 + eps * sx; x += sx) {
        vec2 p[2] = { mat_apply(g->ctm, v2(x, y0)), mat_apply(g->ctm, v2(x, y1)) };
        add_piece(st, IR_POLY, 0, p, 2, 0, 0, "grid");
    }
    for (double y = ceil(y0 / sy - eps) * sy; y <= y1 + eps * sy; y += sy) {
        vec2 p[2] = { mat_apply(g->ctm, v2(x0, y)), mat_apply(g->ctm, v2(x1, y)) };
        add_piece(st, IR_POLY, 0, p, 2, 0, 0, "grid");
    }
    tk_gs_pop(T);
    st->cur = b;
    st->relbase = b;
}

static void curve_to(struct tp_state *st, vec2 from, vec2 c1, vec2 c2, vec2 to)
{
    flush_sub(st, 0);
    vec2 p[4] = { from, c1, c2, to };
    add_piece(st, IR_CURVE, 0, p, 4, 0, 0, NULL);
    st->seg_kind = SEG_CURVE;
    memcpy(st->seg, p, sizeof p);
    st->cur = to;
    st->relbase = to;
}

/* The curve of a curved to path (tikzlibrarytopaths.code.tex): from p0
 * to p3 with control points c1, c2, where a node named bare at either end
 * (A, B; NULL for points) puts that end on its border. bend left/right
 * (relative): the ends on the borders at out and in turned from the line
 * between the centres, the control points 0.3915 of the distance between
 * them out at those angles. out=/in= (absolute): 0.3915 of the distance
 * between the out and in anchors, out from them; the ends on the borders
 * toward the control points. */
static void to_curve(const tk_node *A, const tk_node *B, vec2 from, vec2 to, int relative,
                     double out_r, double in_r, double out_a, double in_a, vec2 p[4])
{
    if (relative) {
        double ang = atan2(to.y - from.y, to.x - from.x) / DEG;
        vec2 p0 = A ? tk_node_border_toward(A, vadd(from, v2(cos((ang + out_r) * DEG), sin((ang + out_r) * DEG))))
                    : from;
        vec2 p3 = B ? tk_node_border_toward(B, vadd(to, v2(cos((ang + in_r) * DEG),
                                                           sin((ang + in_r) * DEG))))
                    : to;
        vec2 u = vsub(p3, p0);
        double L = 0.3915 * vlen(u), au = atan2(u.y, u.x) / DEG;
        p[0] = p0;
        p[1] = vadd(p0, vscale(v2(cos((au + out_r) * DEG), sin((au + out_r) * DEG)), L));
        p[2] = vadd(p3, vscale(v2(cos((au + in_r) * DEG), sin((au + in_r) * DEG)), L));
        p[3] = p3;
        return;
    }
    vec2 dout = v2(cos(out_a * DEG), sin(out_a * DEG)), din = v2(cos(in_a * DEG), sin(in_a * DEG));
    /* the anchors (A.out), (B.in): angles in the nodes' own frames */
    vec2 q0 = A ? tk_node_border_toward(A, vadd(from, v2(cos((out_a + A->rot) * DEG), sin((out_a + A->rot) * DEG))))
                : from;
    vec2 q3 = B ? tk_node_border_toward(B, vadd(to, v2(cos((in_a + B->rot) * DEG), sin((in_a + B->rot) * DEG))))
                : to;
    double L = 0.3915 * vlen(vsub(q3, q0));
    p[1] = vadd(q0, vscale(dout, L));
    p[2] = vadd(q3, vscale(din, L));
    p[0] = A ? tk_node_border_toward(A, p[1]) : from;
    p[3] = B ? tk_node_border_toward(B, p[2]) : to;
}

/* The quotes read so far on one to or edge (to_quotes), at most 64 */
struct to_quotes_ctx { pending_node q[64]; int nq, over; int line; };

/* tk_quote_fn of to_quotes: a quote as a pending node, every edge quotes'
 * auto (@AUTOL@, @AUTOR@) as the anchor place_one turns into the one
 * TikZ's auto picks (anchor=@autol, anchor=@autor) */
static void to_quote(void *ctx, const char *opts, size_t on, const char *text, size_t tn)
{
    struct to_quotes_ctx *c = ctx;
    if (c->nq == (int)(sizeof c->q / sizeof c->q[0])) { c->over = 1; return; }
    struct tp_buf o = { 0 };
    for (size_t a = 0; a < on;) {
        if (a + 7 <= on && !strncmp(opts + a, "@AUTO", 5) && (opts[a + 5] == 'L' || opts[a + 5] == 'R') &&
            opts[a + 6] == '@') {
            tp_buf_add(&o, opts[a + 5] == 'L' ? "anchor=@autol" : "anchor=@autor", 13);
            a += 7;
        } else {
            tp_buf_add(&o, opts + a, 1);
            a++;
        }
    }
    pending_node *pn = &c->q[c->nq++];
    memset(pn, 0, sizeof *pn);
    pn->opts = o.s ? o.s : xstrdup("");
    pn->text = xstrndup(text, tn);
    pn->line = c->line;
}

/* The quotes of a to's or an edge's options ("text"' options, the quotes
 * library's edge quotes mean=edge node={node [every edge quotes,
 * options]{text}}): nodes on that to path, before the nodes written after
 * it (to_quote). Returns the options without their quotes (malloc'd), or
 * NULL when there is no quote. */
static char *to_quotes(struct tp_state *st, const struct tp_str *opts)
{
    if (!opts || !opts->s || !strchr(opts->s, '"')) return NULL;
    tikz *T = st->T;
    const char *qs = tk_find_style(T, "every edge quotes", 17);
    struct tp_buf plain = { 0 };
    struct to_quotes_ctx c;
    c.nq = c.over = 0;
    c.line = off_line(st, opts->off);
    tk_split_quotes(opts->s, qs ? qs : "@AUTO@", &plain, to_quote, &c);
    if (!c.nq) { free(plain.s); return NULL; }
    if (c.over)
        tk_warn(T, c.line, "more than %d quotes on one to or edge; the rest not drawn", c.nq);
    int nq = c.nq;
    if (st->npend + nq > MAX_PENDING) {
        tk_warn(T, c.line, "more than %d nodes in one path operation; the rest dropped", MAX_PENDING);
        for (int k = 0; k < nq; k++) { free(c.q[k].opts); free(c.q[k].text); }
    } else {
        if (st->npend + nq > st->cappend) {
            while (st->npend + nq > st->cappend) st->cappend = st->cappend ? st->cappend * 2 : 8;
            st->pend = xrealloc(st->pend, (size_t)st->cappend * sizeof *st->pend);
        }
        memmove(st->pend + nq, st->pend, (size_t)st->npend * sizeof *st->pend);
        memcpy(st->pend, c.q, (size_t)nq * sizeof *c.q);
        st->npend += nq;
    }
    char *r = xstrdup(plain.n ? plain.s + 1 : "");
    free(plain.s);
    return r;
}

/* A point as TikZ writes \tikztostart or \tikztotarget for one that is
 * not a node: its canvas coordinates in pt */
static void canvas_text(char *buf, size_t cap, vec2 p)
{
    snprintf(buf, cap, "%.5fpt,%.5fpt", p.x, p.y);
}

/* The text of a to path with \tikztostart and \tikztotarget replaced by
 * start and target (TeX skips the spaces after a control word);
 * \tikztonodes stays, read by tp_unknown (malloc'd) */
static char *to_subst(const char *tpl, const char *start, const char *target)
{
    struct tp_buf b = { 0 };
    tp_buf_add(&b, "", 0);
    for (const char *p = tpl; *p;) {
        if (*p != '\\') {
            const char *q = strchr(p, '\\');
            size_t n = q ? (size_t)(q - p) : strlen(p);
            tp_buf_add(&b, p, n);
            p += n;
            continue;
        }
        const char *q = p + 1;
        while (isalpha((unsigned char)*q) || *q == '@') q++;
        size_t n = (size_t)(q - p);
        const char *rep = NULL;
        if (n == 12 && !memcmp(p, "\\tikztostart", 12)) rep = start;
        else if (n == 13 && !memcmp(p, "\\tikztotarget", 13)) rep = target;
        if (rep) {
            tp_buf_add(&b, rep, strlen(rep));
            while (*q == ' ' || *q == '\t' || *q == '\n') q++;
            p = q;
            continue;
        }
        if (n == 1 && *q) n = 2;   /* a control symbol */
        tp_buf_add(&b, p, n);
        p += n;
    }
    return b.s;
}

/* The end of the balanced group that opens at t[j] (any of ( [ {) */
static size_t grp_end(const char *t, size_t n, size_t j)
{
    int d = 0;
    for (; j < n; j++) {
        if (t[j] == '(' || t[j] == '[' || t[j] == '{') d++;
        else if ((t[j] == ')' || t[j] == ']' || t[j] == '}') && --d == 0) return j + 1;
    }
    return n;
}

/* 1 when the to path t has a to or an edge whose target is a plain (...)
 * naming \tikztotarget: TikZ defines that to's \tikztotarget as the text
 * "\tikztotarget", a macro that stands for itself, and TeX never ends (or
 * stops at its input stack). A computed target, ($..$) or ([..]..),
 * expands the outer one first and is fine. */
static int to_target_self(const char *t)
{
    size_t n = strlen(t);
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (c == '(' || c == '[' || c == '{') { depth++; continue; }
        if (c == ')' || c == ']' || c == '}') { if (depth) depth--; continue; }
        if (c == '\\') {   /* a control word is no keyword */
            while (i + 1 < n && isalpha((unsigned char)t[i + 1])) i++;
            continue;
        }
        if (depth || !isalpha((unsigned char)c)) continue;
        size_t w = i;
        while (w < n && isalpha((unsigned char)t[w])) w++;
        int kw = (w - i == 2 && !memcmp(t + i, "to", 2)) || (w - i == 4 && !memcmp(t + i, "edge", 4));
        i = w - 1;
        if (!kw) continue;
        size_t j = w;
        for (;;) {   /* the to's [options] and nodes */
            while (j < n && isspace((unsigned char)t[j])) j++;
            if (j < n && t[j] == '[') { j = grp_end(t, n, j); continue; }
            if (j + 4 <= n && !memcmp(t + j, "node", 4) && !isalpha((unsigned char)t[j + 4])) {
                j += 4;
                for (;;) {
                    while (j < n && isspace((unsigned char)t[j])) j++;
                    if (j < n && (t[j] == '[' || t[j] == '(')) { j = grp_end(t, n, j); continue; }
                    if (j + 2 <= n && !memcmp(t + j, "at", 2) && !isalpha((unsigned char)t[j + 2])) { j += 2; continue; }
                    if (j < n && t[j] == '{') j = grp_end(t, n, j);
                    break;
                }
                continue;
            }
            break;
        }
        if (j >= n || t[j] != '(') continue;
        size_t e = grp_end(t, n, j);
        size_t k = j + 1;
        while (k < e && isspace((unsigned char)t[k])) k++;
        if (k < e && (t[k] == '$' || t[k] == '[')) continue;
        for (; k + 13 <= e; k++)
            if (!memcmp(t + k, "\\tikztotarget", 13) && !isalpha((unsigned char)t[k + 13])) return 1;
    }
    return 0;
}

/* A to or an edge whose to path is the user's (to path={...}, move to;
 * tikz.code.tex \tikz@do@to, \tikz@do@edge): the path's text with
 * \tikztostart the node the to starts at (for an edge, the node just
 * placed) or the current point, \tikztotarget the target as written (the
 * computed point for +(..), ++(..), ([options]..) and ($..$)), and
 * \tikztonodes the nodes written in the to (tp_unknown places them where it
 * stands). A to goes on in the path as a path scope; an edge is a path of
 * its own, "(\tikztostart) <to path>", drawn with every edge and the
 * edge's options. The state holds the to's options (every to, or every
 * edge, applied). */
static void user_to(struct tp_state *st, const struct tp_str *opts, int edge)
{
    tikz *T = st->T;
    int line = st->line;
    char start[96], target[96];
    int was_cycle = st->cycle;
    st->cycle = 0;
    vec2 to = pop_pt(st);
    int tgt_ok = st->tgt_text != NULL && !was_cycle;
    st->npts = 0;
    if (!tgt_ok) {
        tk_unparsed(T, line, st->text, "to path to cycle");
        st->bad_coord = 1;
        return;
    }
    if (tex_failed(T->tex)) {   /* an error already: unwind (a to path that uses itself twice) */
        st->err = st->bad_coord = 1;
        return;
    }
    if (GS(T)->to_path && to_target_self(GS(T)->to_path)) {
        tex_error(T->tex, line, 1,
                  "a to or edge in a to path goes to (\\tikztotarget): TikZ makes that \\tikztotarget "
                  "stand for itself, and TeX never ends");
        st->err = st->bad_coord = 1;
        return;
    }
    if (T->to_depth >= TK_MAX_TO_DEPTH) {
        tex_error(T->tex, line, 1, "to path nested more than %d deep (a to path that uses itself?)",
                  TK_MAX_TO_DEPTH);
        st->err = st->bad_coord = 1;
        return;
    }
    const tk_node *A = nd_of(st, edge && st->fig_nd ? st->fig_nd : st->wait_nd);
    if (A && A->name) snprintf(start, sizeof start, "%s", A->name);
    else canvas_text(start, sizeof start, st->cur);
    if (A && A->name && strlen(A->name) >= sizeof start) canvas_text(start, sizeof start, A->c);
    char *tgt = NULL;
    if (st->tgt_canvas) {
        canvas_text(target, sizeof target, to);
        tgt = xstrdup(target);
    } else {
        tgt = xstrndup(st->tgt_text, (size_t)st->tgt_n);
    }
    const char *tpl = GS(T)->to_path;
    char *body = to_subst(tpl ? tpl : "", start, tgt);
    free(tgt);
    /* the to's nodes, for \tikztonodes */
    void *onodes = T->to_nodes;
    int on = T->n_to_nodes;
    pending_node *mine = NULL;
    int nmine = st->npend;
    if (nmine) {
        mine = xmalloc((size_t)nmine * sizeof *mine);
        memcpy(mine, st->pend, (size_t)nmine * sizeof *mine);
        st->npend = 0;
    }
    T->to_nodes = mine;
    T->n_to_nodes = nmine;
    T->to_depth++;
    if (edge) {
        /* \path[style=every edge][options] (\tikztostart) <to path>: the
         * state already holds every edge and the options; an edge draws */
        gstate *g = GS(T);
        size_t bl = strlen(body) + strlen(start) + sizeof g->drawc + sizeof g->arrows + 32;
        char *text = xmalloc(bl);
        /* tk_run_path starts a path without a draw colour or arrows: the
         * edge's (the main path's, every edge's, its own) are given again */
        snprintf(text, bl, "[%s%s%s%s] (%s) %s", g->drawc[0] ? "draw=" : "", g->drawc,
                 g->drawc[0] ? "," : "", g->arrows, start, body);
        tk_run_path(T, CMD_DRAW, text, NULL, line);
        free(text);
    } else {
        /* let ... in in the to path, as tk_run_path reads it in a path */
        const char *bt = body;
        const int *blines = NULL;
        size_t bn = strlen(body);
        char *let_text = NULL;
        int *let_lines = NULL;
        expand_lets(T, &bt, &blines, &bn, line, &let_text, &let_lines);
        struct tp_str b = { (char *)bt, -1, (int)bn };
        (void)opts;
        int obase = st->base_line;
        const int *olines = st->lines;
        st->base_line = line;
        st->lines = NULL;
        place_pending(st, 0);
        /* the target is text until the to path reads it: relative points
         * in the to path are from the start (TikZ's last point) */
        st->relbase = st->cur;
        vec2 relbase = st->relbase;
        int oloc = st->cp_local;
        st->cp_local = 0;
        parse_nested(st, &b);
        if (st->cp_local) st->relbase = relbase;
        st->cp_local = oloc;
        st->lines = olines;
        st->base_line = obase;
        st->fig_nd = 0;
        free(let_text);
        free(let_lines);
    }
    T->to_depth--;
    /* nodes the to path did not place (no \tikztonodes): not drawn, as in TikZ */
    pending_node *left = T->to_nodes;
    for (int i = 0; i < T->n_to_nodes; i++) {
        pend_free(&left[i]);
    }
    free(mine);
    T->to_nodes = onodes;
    T->n_to_nodes = on;
    free(body);
}

static void to_op(struct tp_state *st, const struct tp_str *opts, int edge)
{
    tikz *T = st->T;
    char *unq = to_quotes(st, opts);
    struct tp_str uo;
    if (unq) {
        uo = *opts;
        uo.s = unq;
        uo.n = (int)strlen(unq);
        opts = &uo;
    }
    tk_gs_push(T);
    gstate *g = GS(T);
    /* the curve's parameters hold where a scope or the path switched the
     * curve on (out=, in=, bend left on the picture: topaths library) */
    if (g->to_kind != TK_TO_CURVE) {
        g->bend = 0;
        g->has_in = g->has_out = 0;
    }
    /* \tikz@do@to: [style=every to][options]; \tikz@do@edge:
     * \path[style=every edge][options] */
    apply_style_if(T, edge ? "every edge" : "every to");
    if (opts && opts->s) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
    if (g->to_kind == TK_TO_USER) {
        user_to(st, opts, edge);
        tk_gs_pop(T);
        free(unq);
        return;
    }
    vec2 from = st->cur, to;
    int was_cycle = st->cycle;
    size_t tnd = 0;
    if (st->cycle) { to = st->sub_start; st->cycle = 0; }
    else {
        if (st->npts > 0 && st->npts <= 8) tnd = st->pts_nd[st->npts - 1];
        to = pop_pt(st);
    }
    st->npts = 0;
    /* a node named bare at either end: the to path starts (ends) on its
     * border, as "-- (B)" and ".. controls .. (B)" do; an edge starts from
     * the node the path is at (\tikztostart) */
    const tk_node *A = nd_of(st, edge && st->fig_nd ? st->fig_nd : st->wait_nd), *B = nd_of(st, tnd);
    if (A) from = A->c;
    double bend = g->bend;
    int curved = bend != 0 || g->has_in || g->has_out;
    /* relative: bend left/right, or the relative key with out=/in= */
    int relative = g->to_relative || (!g->has_in && !g->has_out);
    double out_r = g->has_out ? g->out_a : bend, in_r = g->has_in ? g->in_a : 180 - bend;
    vec2 d = vsub(to, from);
    double ang = atan2(d.y, d.x) / DEG;
    double out_a = g->has_out ? g->out_a : ang + bend;
    double in_a = g->has_in ? g->in_a : ang + 180 - bend;
    tk_gs_pop(T);
    vec2 cp[4];
    if (curved) {
        to_curve(A, B, from, to, relative, out_r, in_r, out_a, in_a, cp);
    } else {
        cp[1] = B ? tk_node_border_toward(B, from) : to;
        cp[0] = A ? tk_node_border_toward(A, cp[1]) : from;
    }
    if (edge) {
        /* an edge is a path of its own from the current point (which does
         * not move), drawn whatever the main path does: with the main
         * path's options, "every edge" (draw) and its own options
         * (tikz.code.tex, \tikz@edge) */
        vec2 saved_cur = st->cur;
        tk_gs_push(T);
        GS(T)->bend = 0;
        GS(T)->has_in = GS(T)->has_out = 0;
        apply_style_if(T, "every edge");
        if (opts && opts->s) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
        st->seg_kind = curved ? SEG_CURVE : SEG_LINE;
        memcpy(st->seg, cp, (curved ? 4 : 2) * sizeof *cp);
        if (T->d) {
            ir_elem *e = ir_add(T->d, curved ? IR_CURVE : IR_POLY);
            ir_pt p[4];
            int n = curved ? 4 : 2;
            for (int i = 0; i < n; i++) p[i] = (ir_pt){ st->seg[i].x, st->seg[i].y };
            ir_elem_set_pts(e, p, (size_t)n);
            e->closed = 0;
            e->line = st->line;
            tk_emit_attrs(T, e, 1, 0);
        }
        tk_gs_pop(T);
        place_pending(st, 1);
        st->cur = saved_cur;
        free(unq);
        return;
    }
    st->fig_nd = 0;
    if (curved) {
        if (A && relative) {
            /* TikZ moves to the border point itself */
            st->wait_nd = 0;
            flush_sub(st, 0);
        } else {
            start_toward(st, cp[1]);
        }
        curve_to(st, cp[0], cp[1], cp[2], cp[3]);
        if (B && !relative) {
            st->cur = to;
            st->wait_nd = tnd;
        }
    } else if (was_cycle && st->nsub >= 2 && !st->wait_nd) {
        /* "to cycle" closes the subpath, as "-- cycle" does */
        st->seg_kind = SEG_LINE;
        st->seg[0] = from;
        st->seg[1] = to;
        st->cur = to;
        flush_sub(st, 1);
    } else {
        start_toward(st, cp[1]);
        line_to(st, cp[1]);
        st->seg_kind = SEG_LINE;
        st->seg[0] = cp[0];
        st->seg[1] = cp[1];
        st->cur = to;
        st->wait_nd = tnd;
    }
    place_pending(st, 1);
    free(unq);
}

void tp_to(struct tp_state *st, const struct tp_str *opts) { to_op(st, opts, 0); }
void tp_edge(struct tp_state *st, const struct tp_str *opts) { to_op(st, opts, 1); }

void tp_controls_single(struct tp_state *st)
{
    /* one control point: duplicate it */
    if (st->npts >= 1 && st->npts < 8) {
        st->pts[st->npts] = st->pts[st->npts - 1];
        st->pts_rel[st->npts] = 0;
        st->pts_nd[st->npts] = 0;
        st->npts++;
    }
    st->single_control = 1;
}

void tp_controls(struct tp_state *st)
{
    if (st->cycle) tp_cycle_point(st);
    if (st->npts < 3) { st->npts = 0; return; }
    vec2 to = st->pts[st->npts - 1], c2 = st->pts[st->npts - 2], c1 = st->pts[st->npts - 3];
    /* TikZ: a relative second control point is relative to the end point */
    if (st->pts_rel[st->npts - 2] && !st->single_control) c2 = vadd(to, st->pts_vec[st->npts - 2]);
    st->single_control = 0;
    /* a node named bare at the end: the curve ends on its border toward
     * the second control point, and starts on a waiting node's border
     * toward the first (tikz.code.tex, \tikz@@curveto@auto) */
    size_t tnd = st->pts_nd[st->npts - 1];
    const tk_node *tn = nd_of(st, tnd);
    st->npts = 0;
    st->fig_nd = 0;
    vec2 from = start_toward(st, c1);
    curve_to(st, from, c1, c2, tn ? tk_node_border_toward(tn, c2) : to);
    st->cur = to;
    st->wait_nd = tnd;
    place_pending(st, 1);
}

/* A curve from the current point given by control points in the picture's
 * coordinates relative to it (k1, k2 times the offset d, componentwise),
 * transformed by the linear part of the CTM, as pgf's \pgfpathsine,
 * \pgfpathcosine and \pgfpathparabola do. */
static void rel_curve(struct tp_state *st, vec2 d_user, const double k[4])
{
    mat m = GS(st->T)->ctm;
    m.e = m.f = 0;
    start_at_centre(st);
    vec2 c0 = st->cur;
    vec2 c1 = vadd(c0, mat_apply(m, v2(k[0] * d_user.x, k[1] * d_user.y)));
    vec2 c2 = vadd(c0, mat_apply(m, v2(k[2] * d_user.x, k[3] * d_user.y)));
    vec2 to = vadd(c0, mat_apply(m, d_user));
    curve_to(st, c0, c1, c2, to);
}

static vec2 user_delta(struct tp_state *st, vec2 from, vec2 to)
{
    mat m = GS(st->T)->ctm;
    m.e = m.f = 0;
    return mat_inv_apply(m, vsub(to, from));
}

/* sin (p) / cos (p): a quarter period of a sine (from 0 to pi/2) or cosine
 * from the current point to p (tikz.code.tex \tikz@@sine, pgf's control
 * points). */
void tp_sine(struct tp_state *st, int cosine)
{
    if (st->npts < 1) { st->npts = 0; return; }
    vec2 to = st->pts[st->npts - 1];
    st->npts = 0;
    static const double ks[4] = { .3260, .5120, .6380, 1 }, kc[4] = { .3620, 0, .6740, .4880 };
    rel_curve(st, user_delta(st, st->cur, to), cosine ? kc : ks);
    place_pending(st, 1);
}

/* parabola [bend pos=f, parabola height=h] [bend (b)] (p): from the current
 * point to p with its bend (apex) at b, by default at the start plus f of the
 * way to p (tikz.code.tex \tikz@parabola@semifinal, \pgfpathparabola). */
void tp_parabola(struct tp_state *st, const struct tp_str *opts, int has_bend)
{
    tikz *T = st->T;
    if (st->cycle) tp_cycle_point(st);
    if (st->npts < 1 + has_bend) { st->npts = 0; return; }
    vec2 start = st->cur, end = st->pts[st->npts - 1];
    vec2 bend_given = has_bend ? st->pts[st->npts - 2] : v2(0, 0);
    int bend_rel = has_bend && st->pts_rel[st->npts - 2];
    vec2 bend_vec = has_bend ? st->pts_vec[st->npts - 2] : v2(0, 0);
    st->npts = 0;
    double f = 0, h = 0;
    int has_h = 0;
    if (opts && opts->s) {
        const char *o = opts->s;
        size_t on = strlen(o);
        while (on > 0) {
            long comma = tk_find_top(o, on, ',');
            const char *kv = o;
            size_t kvn = comma >= 0 ? (size_t)comma : on;
            tk_trim(&kv, &kvn);
            long eq = tk_find_top(kv, kvn, '=');
            const char *k = kv, *v = eq >= 0 ? kv + eq + 1 : "";
            size_t kn = eq >= 0 ? (size_t)eq : kvn, vn = eq >= 0 ? kvn - (size_t)eq - 1 : 0;
            tk_trim(&k, &kn);
            double x;
            if (tk_is(k, kn, "bend pos") && tk_eval(T, v, vn, &x, NULL) == 0) f = x;
            else if (tk_is(k, kn, "parabola height") && tk_eval(T, v, vn, &x, NULL) == 0) { f = .5; h = x; has_h = 1; }
            else if (tk_is(k, kn, "bend at end")) f = 1;
            else if (tk_is(k, kn, "bend at start")) f = 0;
            if (comma < 0) break;
            o += comma + 1;
            on -= (size_t)comma + 1;
        }
    }
    /* the default bend, and the base of a relative one */
    vec2 saved = vadd(start, vscale(vsub(end, start), f));
    vec2 bend = saved;
    if (has_h) {
        mat m = GS(T)->ctm;
        m.e = m.f = 0;
        bend = vadd(saved, mat_apply(m, v2(0, h)));
    }
    if (has_bend) bend = bend_rel ? vadd(saved, bend_vec) : bend_given;
    static const double k1[4] = { .1125, .225, .5, 1 }, k2[4] = { .5, 0, .8875, .775 };
    vec2 a = user_delta(st, start, bend), e = user_delta(st, bend, end);
    if (a.x != 0 || a.y != 0) rel_curve(st, a, k1);
    if (e.x != 0 || e.y != 0) rel_curve(st, e, k2);
    place_pending(st, 1);
}

void tp_coordinate_op(struct tp_state *st)
{
    tikz *T = st->T;
    pending_node *pn = &st->curnode;
    /* no current point: the origin of the coordinate system */
    vec2 p = st->have_cur ? st->cur : mat_apply(GS(T)->ctm, v2(0, 0));
    T->cur3_ok = 0;
    if (pn->at) {
        if (tk_coord(T, pn->at, strlen(pn->at), &p, st->line)) {
            tk_unparsed(T, st->line, pn->at, "cannot evaluate coordinate");
        }
    }
    if (pn->opts) {
        /* name=... and label=/pin= in the options */
        tk_nodeopts no;
        tk_nodeopts_init(T, &no);
        tk_gs_push(T);
        tk_apply_opts(T, pn->opts, strlen(pn->opts), &no, 0);
        if (no.name && !pn->name) pn->name = xstrndup(no.name, strlen(no.name));
        tk_node pt;
        memset(&pt, 0, sizeof pt);
        pt.c = p;
        for (int i = 0; i < no.nlabels; i++)
            tk_place_label(T, no.labels[i].spec, &pt, st->line, no.labels[i].pin);
        tk_gs_pop(T);
        tk_nodeopts_free(&no);
    }
    if (pn->name) {
        tk_add_node(T, pn->name, p, 0, 0, 0, 0);
        tk_node *nd = tk_find_node(T, pn->name, strlen(pn->name));
        if (nd && pn->at && T->cur3_ok) { nd->p3 = T->cur3; nd->has3 = 1; }
        else if (nd && !pn->at && st->cur3ok) { nd->p3 = st->cur3; nd->has3 = 1; }
    }
    /* a tree's parent may be a coordinate */
    memset(&T->last_placed, 0, sizeof T->last_placed);
    T->last_placed.shape = TK_SH_COORD;
    T->last_placed.c = p;
    T->last_placed_ok = 1;
    T->last_placed_name[0] = 0;
    if (pn->name && strlen(pn->name) < sizeof T->last_placed_name) strcpy(T->last_placed_name, pn->name);
    free(pn->opts); free(pn->name); free(pn->at); free(pn->text);
    memset(pn, 0, sizeof *pn);
}

/* A plot's points through its handler (plot.c): a polyline (sharp, smooth
 * curves sampled), closed (cycles), combs, steps or nothing (only marks);
 * then its marks. The current point is the last point. */
static void plot_points(struct tp_state *st, vec2 *p, size_t n)
{
    tikz *T = st->T;
    gstate *g = GS(T);
    if (n == 0) return;
    int h = g->plot_handler;
    if (h == TK_PLOT_OTHER) {
        if (!st->err) {
            char buf[300], why[120];
            snprintf(buf, sizeof buf, "%s", st->text);
            snprintf(why, sizeof why, "plot handler '%s' is not drawn", tk_plot_handler_name(T));
            tk_unparsed(T, st->line, buf, why);
        }
        st->err = st->bad_coord = 1;
        return;
    }
    int join = st->plot_join && st->have_cur && h != TK_PLOT_MARKS_ONLY && h != TK_PLOT_XCOMB &&
               h != TK_PLOT_YCOMB && h != TK_PLOT_POLAR_COMB && h != TK_PLOT_YBAR && h != TK_PLOT_XBAR &&
               h != TK_PLOT_YBAR_INTERVAL && h != TK_PLOT_XBAR_INTERVAL;
    st->plot_join = 0;
    if (join && st->nsub == 0) sub_add(st, st->cur);
    if (!join) flush_sub(st, 0);
    if (h == TK_PLOT_SMOOTH || h == TK_PLOT_SMOOTH_CYCLE) {
        vec2 *q = NULL;
        size_t m = tk_plot_smooth(p, n, g->plot_tension, h == TK_PLOT_SMOOTH_CYCLE, &q);
        for (size_t i = 0; i < m; i++) sub_add(st, q[i]);
        free(q);
        if (h == TK_PLOT_SMOOTH_CYCLE) flush_sub(st, 1);
    } else if (h == TK_PLOT_XCOMB || h == TK_PLOT_YCOMB) {
        /* from the axis (x = 0 or y = 0 of the coordinate system) to each point */
        vec2 o = mat_apply(g->ctm, v2(0, 0));
        for (size_t i = 0; i < n; i++) {
            sub_add(st, h == TK_PLOT_YCOMB ? v2(p[i].x, o.y) : v2(o.x, p[i].y));
            sub_add(st, p[i]);
            flush_sub(st, 0);
        }
    } else if (h == TK_PLOT_POLAR_COMB) {
        vec2 o = mat_apply(g->ctm, v2(0, 0));
        for (size_t i = 0; i < n; i++) {
            sub_add(st, o);
            sub_add(st, p[i]);
            flush_sub(st, 0);
        }
    } else if (h == TK_PLOT_YBAR || h == TK_PLOT_XBAR) {
        /* a bar from the axis to each point, bar width wide, moved by bar shift */
        vec2 o = mat_apply(g->ctm, v2(0, 0));
        double bw = g->bar_width > 0 ? g->bar_width : 10, sh = g->bar_shift;
        for (size_t i = 0; i < n; i++) {
            double a = (h == TK_PLOT_YBAR ? p[i].x : p[i].y) - bw / 2 + sh, b = a + bw;
            vec2 q[4];
            if (h == TK_PLOT_YBAR) {
                q[0] = v2(a, o.y); q[1] = v2(b, o.y); q[2] = v2(b, p[i].y); q[3] = v2(a, p[i].y);
            } else {
                q[0] = v2(o.x, a); q[1] = v2(p[i].x, a); q[2] = v2(p[i].x, b); q[3] = v2(o.x, b);
            }
            for (int k = 0; k < 4; k++) sub_add(st, q[k]);
            flush_sub(st, 1);
        }
    } else if (h == TK_PLOT_YBAR_INTERVAL || h == TK_PLOT_XBAR_INTERVAL) {
        /* from each point to the next, as high (wide) as the first */
        vec2 o = mat_apply(g->ctm, v2(0, 0));
        for (size_t i = 0; i + 1 < n; i++) {
            vec2 q[4];
            if (h == TK_PLOT_YBAR_INTERVAL) {
                q[0] = v2(p[i].x, o.y); q[1] = v2(p[i + 1].x, o.y);
                q[2] = v2(p[i + 1].x, p[i].y); q[3] = v2(p[i].x, p[i].y);
            } else {
                q[0] = v2(o.x, p[i].y); q[1] = v2(p[i].x, p[i].y);
                q[2] = v2(p[i].x, p[i + 1].y); q[3] = v2(o.x, p[i + 1].y);
            }
            for (int k = 0; k < 4; k++) sub_add(st, q[k]);
            flush_sub(st, 1);
        }
    } else if (h == TK_PLOT_CONST) {
        for (size_t i = 0; i < n; i++) {
            if (i) sub_add(st, v2(p[i].x, p[i - 1].y));
            sub_add(st, p[i]);
        }
    } else if (h != TK_PLOT_MARKS_ONLY) {
        for (size_t i = 0; i < n; i++) sub_add(st, p[i]);
        if (h == TK_PLOT_SHARP_CYCLE) flush_sub(st, 1);
    }
    st->sub_start = p[0];
    st->cur = p[n - 1];
    st->relbase = st->cur;
    tk_plot_marks(T, p, n, st->line);
}

void tp_plot_coordinates(struct tp_state *st, const struct tp_str *opts, const struct tp_str *body)
{
    tikz *T = st->T;
    if (opts && opts->s) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
    const char *s = body->s;
    size_t n = strlen(s), i = 0;
    vec2 *pts = NULL;
    size_t np = 0, cap = 0;
    while (i < n) {
        while (i < n && s[i] != '(') i++;
        if (i >= n) break;
        long close = tk_find_top(s + i + 1, n - i - 1, ')');
        if (close < 0) break;
        vec2 p;
        if (tk_coord(T, s + i + 1, (size_t)close, &p, st->line) == 0) {
            if (np == cap) { cap = cap ? cap * 2 : 16; pts = xrealloc(pts, cap * sizeof *pts); }
            pts[np++] = p;
        }
        i += (size_t)close + 2;
        if (np > 100000) break;
    }
    plot_points(st, pts, np);
    free(pts);
}

void tp_plot_expr(struct tp_state *st, const struct tp_str *opts, const struct tp_str *c)
{
    tikz *T = st->T;
    if (opts && opts->s) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
    vec2 *pts = NULL;
    size_t np = tk_plot_expr_points(T, c->s, &pts, st->line);
    plot_points(st, pts, np);
    free(pts);
}

void tp_plot_join(struct tp_state *st) { st->plot_join = 1; }

void tp_plot_other(struct tp_state *st, const struct tp_str *opts, const struct tp_str *kw,
                   const struct tp_str *body)
{
    (void)opts;
    (void)body;
    if (st->err) return;
    st->err = 1;
    st->bad_coord = 1;
    char buf[300], why[160];
    snprintf(buf, sizeof buf, "%s", st->text);
    if (tk_is(kw->s, (size_t)kw->n, "file"))
        snprintf(why, sizeof why, "plot file: the data file is not read");
    else if (tk_is(kw->s, (size_t)kw->n, "function"))
        snprintf(why, sizeof why, "plot function: the function is for gnuplot, which is not run");
    else
        snprintf(why, sizeof why, "unsupported plot '%.40s'", kw->s);
    tk_unparsed(st->T, off_line(st, kw->off), buf, why);
}

/* The pieces from k0 on, joined where one ends where the next begins,
 * each chain decorated into one polyline piece */
static void decorate_pieces(struct tp_state *st, size_t k0, tk_deco *d)
{
    piece *pcs = st->b.pieces;
    size_t n = st->npieces < MAX_PIECES ? st->npieces : MAX_PIECES;
    size_t w = k0;
    /* the decorated pieces of a decoration with move-tos (more than it
     * was given), put in place at the end */
    piece *extra = NULL;
    size_t nextra = 0, capextra = 0;
    for (size_t i = k0; i < n;) {
        vec2 *pts = NULL;
        size_t np = 0, cap = 0;
        int closed = 0;
        size_t j = i;
        const char *role = pcs[i].role;
        int line = pcs[i].line;
        for (; j < n; j++) {
            const piece *pc = &pcs[j];
            ir_pt *fl = NULL;
            size_t fn;
            int cl = 0;
            if (pc->kind == IR_POLY) {
                fn = pc->n;
                fl = xrealloc(NULL, (fn ? fn : 1) * sizeof *fl);
                for (size_t k = 0; k < fn; k++) { fl[k].x = pc->p[k].x; fl[k].y = pc->p[k].y; }
                cl = pc->closed;
            } else {
                ir_elem tmp;
                memset(&tmp, 0, sizeof tmp);
                tmp.kind = pc->kind;
                tmp.closed = pc->closed;
                tmp.t1 = pc->t1;
                tmp.t2 = pc->t2;
                ir_pt q[4];
                size_t qn = pc->n < 4 ? pc->n : 4;
                for (size_t k = 0; k < qn; k++) { q[k].x = pc->p[k].x; q[k].y = pc->p[k].y; }
                tmp.pts = q;
                tmp.npts = qn;
                fn = ir_elem_flatten(&tmp, &fl, &cl);
            }
            if (fn == 0) { free(fl); continue; }
            /* a piece joins the chain when it starts where the chain ends */
            if (np && (closed || cl || fabs(fl[0].x - pts[np - 1].x) > 1e-6 ||
                       fabs(fl[0].y - pts[np - 1].y) > 1e-6)) { free(fl); break; }
            if (np + fn + 1 > cap) {
                cap = (np + fn + 1) * 2;
                pts = xrealloc(pts, cap * sizeof *pts);
            }
            for (size_t k = np ? 1 : 0; k < fn; k++) pts[np++] = v2(fl[k].x, fl[k].y);
            if (cl) { pts[np++] = v2(fl[0].x, fl[0].y); closed = 1; }
            free(fl);
        }
        if (j == i) j = i + 1;
        /* the fractal decorations go by the path's input segments: on
         * straight ones only (a curve is one input segment to pgf, its
         * polyline here is not) */
        int curved = 0;
        for (size_t k = i; k < j; k++) curved |= pcs[k].kind != IR_POLY;
        if (curved && (!strcmp(d->name, "Koch snowflake") || !strcmp(d->name, "Cantor set"))) {
            char why[80];
            snprintf(why, sizeof why, "decoration '%s' of a curve is not drawn", d->name);
            free(pts);
            for (size_t k = 0; k < nextra; k++) piece_free(&extra[k]);
            free(extra);
            for (size_t k = i; k < n; k++) piece_free(&pcs[k]);
            st->npieces = w;
            if (!st->err) tk_unparsed(st->T, line, st->text, why);
            st->err = st->bad_coord = 1;
            return;
        }
        vec2 *out = NULL;
        size_t no = np >= 2 ? tk_decorate(d, pts, np, &out) : 0;
        if (d->truncated)
            tk_warn(st->T, line, "decoration %s: more than 200000 points; the rest of the path left out",
                    d->name);
        free(pts);
        for (size_t k = i; k < j; k++) piece_free(&pcs[k]);
        int moves = 0;
        for (size_t k = 0; k < no && !moves; k++) moves = isnan(out[k].x);
        if (moves || nextra) {
            /* each run of points between move-tos, a piece of its own */
            for (size_t a = 0; a < no;) {
                size_t b = a;
                while (b < no && !isnan(out[b].x)) b++;
                if (b - a >= 2) {
                    if (nextra == capextra) {
                        capextra = capextra ? 2 * capextra : 16;
                        extra = xrealloc(extra, capextra * sizeof *extra);
                    }
                    piece *pc = &extra[nextra++];
                    memset(pc, 0, sizeof *pc);
                    pc->kind = IR_POLY;
                    pc->p = xrealloc(NULL, (b - a) * sizeof *pc->p);
                    memcpy(pc->p, out + a, (b - a) * sizeof *pc->p);
                    pc->own_p = 1;
                    pc->n = b - a;
                    pc->line = line;
                    pc->role = role;
                }
                a = b + 1;
            }
            free(out);
        } else if (no >= 2) {
            piece *pc = &pcs[w++];
            memset(pc, 0, sizeof *pc);
            pc->kind = IR_POLY;
            if (closed && no > 2 && fabs(out[0].x - out[no - 1].x) < 1e-6 &&
                fabs(out[0].y - out[no - 1].y) < 1e-6) {
                no--;
                pc->closed = 1;
            }
            pc->p = out;
            pc->own_p = 1;
            pc->n = no;
            pc->line = line;
            pc->role = role;
        } else {
            free(out);
        }
        i = j;
    }
    st->npieces = w;
    if (nextra) {
        size_t room = st->npieces + nextra > MAX_PIECES ? MAX_PIECES - st->npieces : nextra;
        if (room < nextra) tk_warn(st->T, st->line, "path has more than %d pieces; rest dropped", MAX_PIECES);
        if (st->npieces + room > st->b.cappieces) {
            st->b.cappieces = st->npieces + room;
            st->b.pieces = xrealloc(st->b.pieces, st->b.cappieces * sizeof(piece));
        }
        memcpy((piece *)st->b.pieces + st->npieces, extra, room * sizeof *extra);
        for (size_t k = room; k < nextra; k++) piece_free(&extra[k]);
        st->npieces += room;
        free(extra);
    }
}

/* The decoration of the graphics state, or an unparsed path saying why not */
static int deco_or_unparsed(struct tp_state *st, tk_deco *d, int line)
{
    if (tk_deco_get_moves(st->T, d) == 0) {
        if (!strcmp(d->name, "random steps"))
            tk_warn(st->T, line, "decoration random steps: its random numbers are tikz2ir's, not pgf's");
        return 0;
    }
    if (!st->err) {
        char buf[300], why[120];
        snprintf(buf, sizeof buf, "%s", st->text);
        if (d->name[0]) snprintf(why, sizeof why, "decoration '%s' is not drawn", d->name);
        else snprintf(why, sizeof why, "decorate without a decoration");
        tk_unparsed(st->T, line, buf, why);
    }
    st->err = 1;
    st->bad_coord = 1;
    return -1;
}

/* A nested part of a path (decorate {...}, a scope {...}) may begin: 1, or
 * 0 when it would nest more than 4 deep (decorations and scopes counted
 * together), the path then unparsed with why */
static int nested_ok(struct tp_state *st, int line, const char *why)
{
    if (st->deco_depth < 4) return 1;
    tk_unparsed(st->T, line, st->text, why);
    st->err = st->bad_coord = 1;
    return 0;
}

/* Reads body, a nested part of the path, with a scanner of its own (its
 * text and lines the body's meanwhile), and places its nodes */
static void parse_nested(struct tp_state *st, const struct tp_str *body)
{
    const char *otext = st->text;
    const int *olines = st->lines;
    st->text = body->s;
    st->lines = olines && body->off >= 0 ? olines + body->off : NULL;
    struct tp_extra x;
    void *sc = tp_scanner_new(&x);
    st->deco_depth++;
    tp_parse_path(sc, body->s, strlen(body->s), st);
    st->deco_depth--;
    tp_scanner_free(sc);
    place_pending(st, 0);
    st->text = otext;
    st->lines = olines;
}

void tp_decorate(struct tp_state *st, const struct tp_str *opts, const struct tp_str *body)
{
    tikz *T = st->T;
    if (st->err || st->bad_coord) return;
    int line = off_line(st, body->off);
    if (!nested_ok(st, line, "decorate nested more than 4 deep")) return;
    place_pending(st, 0);
    size_t kpre = st->npieces;
    flush_sub(st, 0);
    int prefix = st->npieces == kpre + 1;   /* the subpath so far, now a piece */
    size_t k0 = st->npieces;
    tk_gs_push(T);
    if (opts->s) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
    tk_deco d;
    int ok = deco_or_unparsed(st, &d, line);
    if (ok == 0) {
        /* the subpath from the current point */
        if (st->have_cur) sub_add(st, st->cur);
        parse_nested(st, body);
        flush_sub(st, 0);
    }
    tk_gs_pop(T);
    if (ok != 0 || st->bad_coord) return;
    decorate_pieces(st, k0, &d);
    /* one open polyline decorated: the subpath goes on through it, after
     * the subpath before it when that ends where it begins (a path such as
     * (0,0) decorate {-- (1,0)} -- (1,1) -- cycle stays one path) */
    piece *pcs = st->b.pieces;
    if (st->npieces == k0 + 1 && k0 < MAX_PIECES && pcs[k0].kind == IR_POLY && !pcs[k0].closed) {
        size_t first = k0;
        if (prefix && k0 >= 1 && pcs[k0 - 1].kind == IR_POLY && !pcs[k0 - 1].closed &&
            pcs[k0 - 1].n >= 1 &&
            vlen(vsub(pcs[k0 - 1].p[pcs[k0 - 1].n - 1], pcs[k0].p[0])) < 1e-6)
            first = k0 - 1;
        int line2 = pcs[first].line;
        st->nsub = 0;
        for (size_t k = first; k <= k0; k++) {
            for (size_t q = (k > first ? 1 : 0); q < pcs[k].n; q++) sub_add(st, pcs[k].p[q]);
            piece_free(&pcs[k]);
        }
        st->sub_line = line2;
        st->npieces = first;
        return;
    }
    if (st->have_cur) sub_add(st, st->cur);
}

/* "{ ... }" on a path: a scope (tikz.code.tex \tikz@beginscope,
 * \tikz@@endscope): its options hold up to the "}" and the path goes on
 * through it; at the "}" the base of relative coordinates reverts to the
 * one at the "{" when "current point is local" is set then. Options that
 * change how segments are built apply to the whole path in the IR (one
 * "rounded" per element), so "[rounded corners]" inside the braces rounds
 * no corner (the outer path's setting holds). */
void tp_scope(struct tp_state *st, const struct tp_str *body)
{
    tikz *T = st->T;
    if (st->err || st->bad_coord) return;
    int line = off_line(st, body->off);
    if (!nested_ok(st, line, "path scopes or decorate nested more than 4 deep")) return;
    place_pending(st, 0);
    vec2 relbase = st->relbase;
    int oloc = st->cp_local;
    st->cp_local = 0;
    tk_gs_push(T);
    parse_nested(st, body);
    tk_gs_pop(T);
    if (st->cp_local) st->relbase = relbase;
    st->cp_local = oloc;
}

/* svg [options] {path data}: SVG 1.1 path data (M L H V C S Q T A Z, and
 * their relative forms) added to the path, in pt, through the options'
 * transformation and the picture's (tikz.code.tex \tikz@svg, pgf's
 * svg.path library); without a first moveto it starts at the current
 * point. Data it cannot read leaves the path unparsed. */
static int svg_num(const char **p, double *v)
{
    const char *s = *p;
    while (*s == ' ' || *s == ',' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    char *end;
    if (!(*s == '-' || *s == '+' || *s == '.' || isdigit((unsigned char)*s))) return 0;
    *v = strtod(s, &end);
    if (end == s || !isfinite(*v) || fabs(*v) > 16383) return 0;
    *p = end;
    return 1;
}

/* an elliptical arc (SVG's endpoint form, F.6.5) as up to four Beziers, in
 * the SVG's own coordinates, each mapped by m */
static void svg_arc(struct tp_state *st, mat m, vec2 a, double rx, double ry, double phi,
                    int large, int sweep, vec2 b)
{
    rx = fabs(rx); ry = fabs(ry);
    if ((a.x == b.x && a.y == b.y)) return;
    if (rx == 0 || ry == 0) { curve_to(st, st->cur, mat_apply(m, a), mat_apply(m, b), mat_apply(m, b)); return; }
    double c = cos(phi * DEG), s = sin(phi * DEG);
    double dx = (a.x - b.x) / 2, dy = (a.y - b.y) / 2;
    double x1 = c * dx + s * dy, y1 = -s * dx + c * dy;
    double lam = x1 * x1 / (rx * rx) + y1 * y1 / (ry * ry);
    if (lam > 1) { rx *= sqrt(lam); ry *= sqrt(lam); }
    double num = rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1;
    double den = rx * rx * y1 * y1 + ry * ry * x1 * x1;
    double k = den > 0 && num > 0 ? sqrt(num / den) : 0;
    if (large == sweep) k = -k;
    double cx1 = k * rx * y1 / ry, cy1 = -k * ry * x1 / rx;
    double cx = c * cx1 - s * cy1 + (a.x + b.x) / 2, cy = s * cx1 + c * cy1 + (a.y + b.y) / 2;
    double t1 = atan2((y1 - cy1) / ry, (x1 - cx1) / rx);
    double t2 = atan2((-y1 - cy1) / ry, (-x1 - cx1) / rx);
    double dt = t2 - t1;
    if (sweep && dt < 0) dt += 2 * M_PI;
    else if (!sweep && dt > 0) dt -= 2 * M_PI;
    int n = (int)ceil(fabs(dt) / (M_PI / 2) - 1e-9);
    if (n < 1) n = 1;
    double h = dt / n, kk = 4.0 / 3 * tan(h / 4);
    for (int i = 0; i < n; i++) {
        double u0 = t1 + i * h, u1 = u0 + h;
        vec2 e0 = v2(cos(u0), sin(u0)), e1 = v2(cos(u1), sin(u1));
        vec2 q[4] = { e0, v2(e0.x - kk * e0.y, e0.y + kk * e0.x),
                      v2(e1.x + kk * e1.y, e1.y - kk * e1.x), e1 };
        for (int j = 1; j < 4; j++) {
            double px = rx * q[j].x, py = ry * q[j].y;
            q[j] = mat_apply(m, v2(c * px - s * py + cx, s * px + c * py + cy));
        }
        curve_to(st, st->cur, q[1], q[2], q[3]);
    }
}

void tp_svg(struct tp_state *st, const struct tp_str *opts, const struct tp_str *body)
{
    tikz *T = st->T;
    if (st->err || st->bad_coord) return;
    start_at_centre(st);
    int line = off_line(st, body->off);
    place_pending(st, 0);
    tk_gs_push(T);
    if (opts->s) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
    mat m = GS(T)->ctm;
    tk_gs_pop(T);
    /* the SVG's current point, in its own coordinates */
    vec2 cur = st->have_cur ? mat_inv_apply(m, st->cur) : v2(0, 0), start = cur;
    vec2 lastc = cur;          /* the last control point (S, T) */
    char prev = 0, cmd = 0;
    const char *p = body->s;
    for (;;) {
        while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) break;
        int letter = isalpha((unsigned char)*p);
        if (letter) cmd = *p++;
        else if (!cmd) goto bad;
        else if (cmd == 'M') cmd = 'L';
        else if (cmd == 'm') cmd = 'l';
        /* a number after Z repeats nothing (Z takes no arguments): an
         * error, as in SVG, not a loop that never moves on */
        if (!letter && (cmd == 'Z' || cmd == 'z')) goto bad;
        int rel = islower((unsigned char)cmd);
        char U = (char)toupper((unsigned char)cmd);
        vec2 o = rel ? cur : v2(0, 0);
        double v[7];
        static const char arity[] = "M2L2H1V1C6S4Q4T2A7Z0";
        const char *ar = strchr(arity, U);
        if (!ar || !isupper((unsigned char)U)) goto bad;
        int na = ar[1] - '0';
        for (int i = 0; i < na; i++) if (!svg_num(&p, &v[i])) goto bad;
        vec2 c1, c2, to;
        switch (U) {
        case 'M':
            cur = start = vadd(o, v2(v[0], v[1]));
            st->npts = 0;
            flush_sub(st, 0);
            st->cur = st->sub_start = mat_apply(m, cur);
            st->have_cur = 1;
            break;
        case 'Z':
            if (!st->have_cur) goto bad;
            line_to(st, mat_apply(m, start));
            flush_sub(st, 1);
            cur = start;
            break;
        case 'L': case 'H': case 'V':
            to = U == 'L' ? vadd(o, v2(v[0], v[1])) :
                 U == 'H' ? v2((rel ? cur.x : 0) + v[0], cur.y) : v2(cur.x, (rel ? cur.y : 0) + v[0]);
            if (!st->have_cur) { st->cur = st->sub_start = mat_apply(m, cur); st->have_cur = 1; }
            line_to(st, mat_apply(m, to));
            cur = to;
            break;
        case 'C': case 'S': case 'Q': case 'T':
            if (U == 'C') { c1 = vadd(o, v2(v[0], v[1])); c2 = vadd(o, v2(v[2], v[3])); to = vadd(o, v2(v[4], v[5])); }
            else if (U == 'S') {
                c1 = strchr("CcSs", prev) ? vsub(vscale(cur, 2), lastc) : cur;
                c2 = vadd(o, v2(v[0], v[1])); to = vadd(o, v2(v[2], v[3]));
            } else {
                vec2 q = U == 'Q' ? vadd(o, v2(v[0], v[1])) :
                         strchr("QqTt", prev) ? vsub(vscale(cur, 2), lastc) : cur;
                to = U == 'Q' ? vadd(o, v2(v[2], v[3])) : vadd(o, v2(v[0], v[1]));
                c1 = vadd(cur, vscale(vsub(q, cur), 2.0 / 3));
                c2 = vadd(to, vscale(vsub(q, to), 2.0 / 3));
                lastc = q;
            }
            if (!st->have_cur) { st->cur = st->sub_start = mat_apply(m, cur); st->have_cur = 1; }
            curve_to(st, st->cur, mat_apply(m, c1), mat_apply(m, c2), mat_apply(m, to));
            if (U == 'C' || U == 'S') lastc = c2;
            cur = to;
            break;
        case 'A':
            to = vadd(o, v2(v[5], v[6]));
            if (!st->have_cur) { st->cur = st->sub_start = mat_apply(m, cur); st->have_cur = 1; }
            /* pgf draws the sweep flag's arc as it looks in SVG (whose y
             * axis points down): the other turning sense in its y-up
             * coordinates (pgf's picture of its own example) */
            svg_arc(st, m, cur, v[0], v[1], v[2], v[3] != 0, v[4] == 0, to);
            st->cur = mat_apply(m, to);
            cur = to;
            break;
        }
        prev = cmd;
    }
    st->relbase = st->cur;
    st->npts = 0;
    return;
bad:
    tk_unparsed(T, line, st->text, "svg path data it cannot read");
    st->err = st->bad_coord = 1;
}

void tp_pic(struct tp_state *st, const struct tp_str *body)
{
    pending_node *pn = &st->curnode;
    st->line = off_line(st, body->off);
    /* no current point: the origin of the coordinate system */
    vec2 at = st->have_cur ? st->cur : mat_apply(GS(st->T)->ctm, v2(0, 0));
    if (pn->at && tk_coord(st->T, pn->at, strlen(pn->at), &at, st->line) != 0) {
        tk_unparsed(st->T, st->line, pn->at, "cannot evaluate the pic's position");
        free(pn->opts); free(pn->name); free(pn->at); free(pn->text);
        memset(pn, 0, sizeof *pn);
        return;
    }
    /* pos= (midway, ...) puts it on the path's last segment, as a node */
    double t;
    if (pn->opts && st->seg_kind != SEG_NONE && tk_pic_pos(st->T, pn->opts, &t)) at = seg_point(st, t, NULL);
    if (st->cmd == CMD_PIC) {
        tk_pic(st->T, pn->opts, body->s, at, st->line);
    } else {
        /* TikZ draws a path's pics after the path, as its nodes */
        if (st->ndpics == st->capdpics) {
            st->capdpics = st->capdpics ? 2 * st->capdpics : 4;
            st->dpics = xrealloc(st->dpics, (size_t)st->capdpics * sizeof *st->dpics);
        }
        struct dpic *d = &st->dpics[st->ndpics++];
        d->opts = pn->opts ? xstrndup(pn->opts, strlen(pn->opts)) : NULL;
        d->body = xstrndup(body->s, strlen(body->s));
        d->at = at;
        d->line = st->line;
    }
    free(pn->opts); free(pn->name); free(pn->at); free(pn->text);
    memset(pn, 0, sizeof *pn);
}

/* the graphs library's graph operation (graph.c) */
void tp_graph(struct tp_state *st, const struct tp_str *opts, const struct tp_str *body)
{
    st->line = off_line(st, body->off);
    tk_graph(st->T, opts->s, body->s, st->line);
}

/* ---- trees ---------------------------------------------------------------------------
 * TikZ's child operation (tikz.code.tex, \tikz@children and \tikz@childnode):
 * the children of a node are read first, then placed in a group where the
 * tree level is one more and the styles "level" (its #1 the level) and
 * "level N" apply. Child i of n is put, from the parent's center, at
 * polar(grow, level distance) + polar(grow - 90, (n+1)/2 sibling distance)
 * (from its growth parent anchor= when one is given)
 * + polar(grow + 90, i sibling distance) (grow' swaps the two sides), in its
 * own scope with "every child" and its options; when grow= was set at the
 * children's own level (the child's options) the spread is left out. A
 * child's body is its node (node or coordinate; an empty body is a
 * coordinate) and then its own children and "edge from parent" with its
 * labels; the edge from parent, drawn whatever the path's command, goes from
 * the parent's border (or parent anchor=) to the child's (child anchor=). A
 * child of a named parent P without a name of its own is named P-i. */

#define MAX_TREE_KIDS 1000
#define MAX_TREE_DEPTH 50
#define MAX_TREE_NODES 20000  /* children one path may place, all levels */

struct tkid { char *opts, *body; int line; };

static void kid_add(struct tkids *k, const char *opts, const char *body, int line)
{
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 8;
        k->v = xrealloc(k->v, (size_t)k->cap * sizeof *k->v);
    }
    struct tkid *c = &k->v[k->n++];
    c->opts = opts && *opts ? xstrndup(opts, strlen(opts)) : NULL;
    c->body = body ? xstrndup(body, strlen(body)) : NULL;
    c->line = line;
}

static void kids_free(struct tkids *k)
{
    for (int i = 0; i < k->n; i++) { free(k->v[i].opts); free(k->v[i].body); }
    free(k->v);
    memset(k, 0, sizeof *k);
}

/* body with every \var (not followed by a letter) replaced by val */
static char *subst_macro(const char *body, const char *var, size_t vl, const char *val)
{
    struct tp_buf b = { 0 };
    size_t n = strlen(body);
    for (size_t i = 0; i < n;) {
        if (body[i] == '\\' && i + vl <= n && memcmp(body + i, var, vl) == 0 &&
            !isalpha((unsigned char)body[i + vl]) && body[i + vl] != '@') {
            tp_buf_add(&b, val, strlen(val));
            i += vl;
        } else {
            tp_buf_add(&b, body + i, 1);
            i++;
        }
    }
    if (!b.s) tp_buf_add(&b, "", 0);
    return b.s;
}

/* child foreach \var in {list} {body}: one child per item of the list
 * (items split at commas; "a,...,c" and "a,b,...,c" numeric ranges as
 * \foreach has them); -1 when the list cannot be read */
static int kids_foreach(struct tkids *k, const char *opts, const char *var, const char *list,
                        const char *body, int line)
{
    char items[MAX_TREE_KIDS][32];
    int ni = 0;
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        const char *q = p;
        int depth = 0;
        while (*q && (depth || *q != ',')) { if (*q == '{') depth++; else if (*q == '}') depth--; q++; }
        const char *e = q;
        while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r')) e--;
        if (e - p == 3 && memcmp(p, "...", 3) == 0) {
            if (ni < 1 || !*q) return -1;
            const char *r = q + 1;
            while (*r == ' ') r++;
            char *end;
            double last = strtod(r, &end);
            char *e0;
            double a = strtod(items[ni - 1], &e0);
            if (end == r || *e0) return -1;
            double step = 1;
            if (ni >= 2) { step = a - strtod(items[ni - 2], NULL); }
            else if (last < a) step = -1;
            if (step == 0) return -1;
            for (double x = a + step; step > 0 ? x <= last + 1e-9 : x >= last - 1e-9; x += step) {
                if (ni == MAX_TREE_KIDS) return -1;
                snprintf(items[ni++], sizeof items[0], "%.10g", x);
            }
            /* the range's last item was read above: skip it */
            q = r;
            while (*q && *q != ',') q++;
        } else if (e > p || *q) {
            if (ni == MAX_TREE_KIDS || e - p >= (long)sizeof items[0]) return -1;
            memcpy(items[ni], p, (size_t)(e - p));
            items[ni++][e - p] = 0;
        }
        p = *q ? q + 1 : q;
    }
    size_t vl = strlen(var);
    for (int i = 0; i < ni; i++) {
        if (k->n >= MAX_TREE_KIDS) return -1;
        char *b = subst_macro(body, var, vl, items[i]);
        char *o = opts ? subst_macro(opts, var, vl, items[i]) : NULL;
        kid_add(k, o, b, line);
        free(b);
        free(o);
    }
    return 0;
}

void tp_child(struct tp_state *st, const struct tp_str *opts, const struct tp_str *kw,
              const struct tp_str *var, const struct tp_str *in, const struct tp_str *list,
              const struct tp_str *body)
{
    int line = off_line(st, body ? body->off : opts->s ? opts->off : -1);
    if (st->err) return;
    if (st->kids.n >= MAX_TREE_KIDS) {
        st->err = 1;
        tk_unparsed(st->T, line, st->text, "more than 1000 children of one node");
        return;
    }
    if (kw) {
        if (strcmp(kw->s, "foreach") != 0 || var->s[0] != '\\' || strcmp(in->s, "in") != 0) {
            st->err = 1;
            tk_unparsed(st->T, line, st->text, "unsupported child operation (child foreach \\x in {list} {body} is read)");
        } else if (kids_foreach(&st->kids, opts->s, var->s + 1, list->s, body->s, line) != 0) {
            st->err = 1;
            tk_unparsed(st->T, line, st->text, "cannot read the child foreach list (items, ranges a,...,c; "
                        "at most 1000 children)");
        }
        return;
    }
    kid_add(&st->kids, opts->s, body ? body->s : NULL, line);
}

/* the skip of spaces, comments excluded (the text is expanded already) */
static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

/* a balanced group opening at *p (one of "([{"): its inside [*in, *in + *n),
 * the byte after it returned; NULL when it is not closed */
static const char *read_group(const char *p, const char **in, size_t *n)
{
    char open = *p, close = open == '(' ? ')' : open == '[' ? ']' : '}';
    int depth = 0, braces = 0;
    for (const char *q = p; *q; q++) {
        if (open != '{' && *q == '{') { braces++; continue; }
        if (open != '{' && *q == '}') { if (braces) braces--; continue; }
        if (braces) continue;
        if (*q == open) depth++;
        else if (*q == close && --depth == 0) {
            *in = p + 1;
            *n = (size_t)(q - p - 1);
            return q + 1;
        }
    }
    return NULL;
}

static int word_at(const char *p, const char *w)
{
    size_t n = strlen(w);
    return strncmp(p, w, n) == 0 && !isalpha((unsigned char)p[n]);
}

static void append_opts(char **dst, const char *s, size_t n)
{
    size_t ol = *dst ? strlen(*dst) : 0;
    *dst = xrealloc(*dst, ol + n + 2);
    if (ol) (*dst)[ol++] = ',';
    memcpy(*dst + ol, s, n);
    (*dst)[ol + n] = 0;
}

/* a node's parts after "node" or "coordinate": [options], (name), at (..),
 * and for a node its {text}; the byte after them, or NULL */
static const char *read_node_parts(const char *p, pending_node *pn, int coordinate)
{
    for (;;) {
        p = skip_ws(p);
        const char *in;
        size_t n;
        if (*p == '[') {
            if (!(p = read_group(p, &in, &n))) return NULL;
            append_opts(&pn->opts, in, n);
        } else if (*p == '(') {
            if (!(p = read_group(p, &in, &n))) return NULL;
            tk_trim(&in, &n);
            free(pn->name);
            pn->name = xstrndup(in, n);
        } else if (word_at(p, "at")) {
            p = skip_ws(p + 2);
            if (*p != '(' || !(p = read_group(p, &in, &n))) return NULL;
            free(pn->at);
            pn->at = xstrndup(in, n);
        } else if (*p == '{' && !coordinate) {
            if (!(p = read_group(p, &in, &n))) return NULL;
            pn->text = xstrndup(in, n);
            return p;
        } else {
            return coordinate ? p : NULL;
        }
    }
}

static void pn_free(pending_node *pn)
{
    free(pn->opts); free(pn->name); free(pn->at); free(pn->text);
    memset(pn, 0, sizeof *pn);
}

/* the point of a node toward target (its border, or its anchor a) */
static vec2 node_toward(tikz *T, const tk_node *nd, const char *a, vec2 target)
{
    vec2 out = nd->c;
    if (a && *a) {
        if (tk_node_anchor(T, nd, a, strlen(a), &out) == 0) return out;
        return nd->c;
    }
    vec2 d = vsub(target, nd->c);
    if (vlen(d) < 1e-9) return nd->c;
    char ang[40];
    snprintf(ang, sizeof ang, "%.6f", atan2(d.y, d.x) / DEG);
    if (tk_node_anchor(T, nd, ang, strlen(ang), &out) != 0) out = nd->c;
    return out;
}

static void apply_style_if(tikz *T, const char *name)
{
    if (tk_find_style(T, name, strlen(name))) tk_apply_opts(T, name, strlen(name), NULL, 0);
}

static void tree_children(struct tp_state *st, struct tkids *kids, const tk_node *parent,
                          const char *pname, int depth);

/* the edge from parent of a child (parent, child: their shapes), with its
 * options and label nodes */
static void tree_edge(struct tp_state *st, const tk_node *parent, const tk_node *child,
                      const char *opts, pending_node *labels, int nlabels, int line)
{
    tikz *T = st->T;
    tk_gs_push(T);
    gstate *g = GS(T);
    apply_style_if(T, "edge from parent");
    if (opts) tk_apply_opts(T, opts, strlen(opts), NULL, 0);
    g = GS(T);
    /* (parent) -- (child) as a line to a node does it: the child's end on
     * its border toward the parent's start (its centre, or its parent
     * anchor), then the parent's border toward that end */
    vec2 a = node_toward(T, parent, g->parent_anchor, parent->c);
    vec2 b = node_toward(T, child, g->child_anchor, a);
    if (!g->parent_anchor[0]) a = node_toward(T, parent, NULL, b);
    if (T->d) {
        ir_elem *e = ir_add(T->d, IR_POLY);
        ir_pt p[2] = { { a.x, a.y }, { b.x, b.y } };
        ir_elem_set_pts(e, p, 2);
        e->closed = 0;
        e->line = line;
        tk_emit_attrs(T, e, 1, 0);
    }
    /* its labels: nodes on the edge (midway unless pos= says otherwise) */
    int kind = st->seg_kind;
    vec2 seg0 = st->seg[0], seg1 = st->seg[1], cur = st->cur;
    st->seg_kind = SEG_LINE;
    st->seg[0] = a;
    st->seg[1] = b;
    for (int i = 0; i < nlabels; i++) place_one(st, &labels[i], 1);
    st->seg_kind = kind;
    st->seg[0] = seg0;
    st->seg[1] = seg1;
    st->cur = cur;
    tk_gs_pop(T);
}

/* child i (from 1) of n */
static void tree_child(struct tp_state *st, const struct tkid *kid, int i, int n,
                       const tk_node *parent, vec2 origin, const char *pname, int depth)
{
    tikz *T = st->T;
    if (++st->tree_nodes > MAX_TREE_NODES) {
        if (st->tree_nodes == MAX_TREE_NODES + 1)
            tk_unparsed(T, kid->line, kid->body ? kid->body : "child",
                        "more than 20000 children in one path: the rest is not drawn");
        return;
    }
    mat outer = GS(T)->ctm;
    tk_gs_push(T);
    gstate *g = GS(T);
    g->child_missing = 0;
    apply_style_if(T, "every child");
    if (kid->opts) tk_apply_opts(T, kid->opts, strlen(kid->opts), NULL, 0);
    g = GS(T);
    if (g->child_missing) { tk_gs_pop(T); return; }
    /* the child's point: from the parent's center, in the child's transform
     * (its own shifts move it) */
    double ga = g->grow_angle * DEG;
    vec2 u = v2(g->level_dist * cos(ga), g->level_dist * sin(ga));
    if (g->tree_level != g->grow_special) {
        double left = ga - (g->grow_swap ? -1 : 1) * 90 * DEG, right = ga + (g->grow_swap ? -1 : 1) * 90 * DEG;
        double dl = (n + 1) * 0.5 * g->sib_dist, dr = i * g->sib_dist;
        u = vadd(u, v2(dl * cos(left) + dr * cos(right), dl * sin(left) + dr * sin(right)));
    }
    vec2 o = mat_apply(g->ctm, v2(0, 0));
    vec2 pos = vadd(vadd(origin, vsub(mat_apply(g->ctm, u), o)), vsub(o, mat_apply(outer, v2(0, 0))));
    /* the body: its node, then its children and edge from parent */
    const char *p = kid->body ? skip_ws(kid->body) : "";
    pending_node pn;
    memset(&pn, 0, sizeof pn);
    pn.line = kid->line;
    int is_node = 0;
    const char *bad = NULL;
    if (word_at(p, "node")) {
        is_node = 1;
        p = read_node_parts(p + 4, &pn, 0);
    } else if (word_at(p, "coordinate")) {
        p = read_node_parts(p + 10, &pn, 1);
    }
    if (!p) bad = "cannot read the child's node";
    struct tkids sub = { 0 };
    char *eopts = NULL;
    pending_node labels[16];
    int nlabels = 0;
    while (!bad && *(p = skip_ws(p))) {
        const char *in;
        size_t len;
        if (word_at(p, "child")) {
            p = skip_ws(p + 5);
            char *copts = NULL;
            if (*p == '[') {
                if (!(p = read_group(p, &in, &len))) { bad = "unterminated group in a child"; break; }
                copts = xstrndup(in, len);
            }
            p = skip_ws(p);
            if (word_at(p, "foreach")) {
                const char *v = skip_ws(p + 7), *ve = v;
                if (*v == '\\') { ve++; while (isalpha((unsigned char)*ve) || *ve == '@') ve++; }
                const char *w = skip_ws(ve), *lin, *bin;
                size_t ln, bn;
                if (ve == v + 1 || v[0] != '\\' || !word_at(w, "in") || *(w = skip_ws(w + 2)) != '{' ||
                    !(w = read_group(w, &lin, &ln))) {
                    bad = "unsupported child foreach";
                    free(copts);
                    break;
                }
                /* the body is optional (an empty child: a coordinate) */
                w = skip_ws(w);
                if (*w == '{') {
                    if (!(w = read_group(w, &bin, &bn))) {
                        bad = "unterminated group in a child";
                        free(copts);
                        break;
                    }
                } else {
                    bin = "";
                    bn = 0;
                }
                char *var = xstrndup(v + 1, (size_t)(ve - v - 1));
                char *list = xstrndup(lin, ln), *body = xstrndup(bin, bn);
                int r = kids_foreach(&sub, copts, var, list, body, kid->line);
                free(var); free(list); free(body);
                p = w;
                if (r) bad = "cannot read a child foreach list";
            } else if (*p == '{') {
                if (!(p = read_group(p, &in, &len))) { bad = "unterminated group in a child"; free(copts); break; }
                char *body = xstrndup(in, len);
                if (sub.n < MAX_TREE_KIDS) kid_add(&sub, copts, body, kid->line);
                else bad = "more than 1000 children of one node";
                free(body);
            } else {
                if (sub.n < MAX_TREE_KIDS) kid_add(&sub, copts, NULL, kid->line);
                else bad = "more than 1000 children of one node";
            }
            free(copts);
        } else if (word_at(p, "edge") && word_at(skip_ws(p + 4), "from")) {
            const char *q = skip_ws(skip_ws(p + 4) + 4);
            if (!word_at(q, "parent")) { bad = "unsupported element in a child"; break; }
            p = skip_ws(q + 6);
            if (*p == '[') {
                if (!(p = read_group(p, &in, &len))) { bad = "unterminated group in a child"; break; }
                append_opts(&eopts, in, len);
            }
            for (p = skip_ws(p); !bad && word_at(p, "node"); p = skip_ws(p)) {
                if (nlabels == 16) { bad = "more than 16 labels on an edge from parent"; break; }
                memset(&labels[nlabels], 0, sizeof labels[nlabels]);
                labels[nlabels].line = kid->line;
                p = read_node_parts(p + 4, &labels[nlabels], 0);
                nlabels++;
                if (!p) bad = "cannot read a label of an edge from parent";
            }
        } else if (*p == '[') {
            /* options in the body: the child's scope from here on (its
             * children and its edge from parent), as on a path */
            if (!(p = read_group(p, &in, &len))) { bad = "unterminated group in a child"; break; }
            tk_apply_opts(T, in, len, NULL, 0);
        } else {
            bad = "unsupported element in a child's body";
        }
    }
    if (bad) {
        char why[120];
        snprintf(why, sizeof why, "%s: the subtree is not drawn", bad);
        tk_unparsed(T, kid->line, kid->body ? kid->body : "child", why);
    } else {
        char name[64];
        name[0] = 0;
        if (pname && *pname && strlen(pname) + 12 < sizeof name) snprintf(name, sizeof name, "%s-%d", pname, i);
        tk_node child;
        if (is_node) {
            if (!pn.name && name[0]) pn.name = xstrndup(name, strlen(name));
            /* every child node first: its node keys (draw, shape) go to the node */
            if (tk_find_style(T, "every child node", 16)) {
                char *o = xstrndup("every child node", 16);
                if (pn.opts) append_opts(&o, pn.opts, strlen(pn.opts));
                free(pn.opts);
                pn.opts = o;
            }
            vec2 cur = st->cur;
            int had_cur = st->have_cur;
            st->cur = pos;
            st->have_cur = 1;
            int kind = st->seg_kind;
            st->seg_kind = SEG_NONE;
            T->last_placed_ok = 0;
            place_one(st, &pn, 0);
            st->cur = cur;
            st->have_cur = had_cur;
            st->seg_kind = kind;
            if (T->last_placed_ok) {
                child = T->last_placed;
            } else {
                memset(&child, 0, sizeof child);
                child.shape = TK_SH_COORD;
                child.c = pos;
            }
        } else {
            memset(&child, 0, sizeof child);
            child.shape = TK_SH_COORD;
            child.c = pos;
            const char *nm = pn.name ? pn.name : name;
            if (*nm) tk_add_node(T, nm, pos, 0, 0, 0, TK_SH_COORD);
        }
        char cname[64];
        const char *own = pn.name ? pn.name : name;
        snprintf(cname, sizeof cname, "%s", strlen(own) < sizeof cname ? own : "");
        if (sub.n) {
            if (depth >= MAX_TREE_DEPTH) tk_unparsed(T, kid->line, kid->body, "tree deeper than 50 levels");
            else tree_children(st, &sub, &child, cname, depth + 1);
        }
        tree_edge(st, parent, &child, eopts, labels, nlabels, kid->line);
    }
    for (int k = 0; k < nlabels; k++) pn_free(&labels[k]);
    free(eopts);
    kids_free(&sub);
    pn_free(&pn);
    tk_gs_pop(T);
}

static void tree_children(struct tp_state *st, struct tkids *kids, const tk_node *parent,
                          const char *pname, int depth)
{
    tikz *T = st->T;
    tk_gs_push(T);
    gstate *g = GS(T);
    g->tree_level++;
    char lv[32];
    if (tk_find_style(T, "level", 5)) {
        /* level/.style={...#1...}: its argument is the level */
        const char *body = tk_find_style(T, "level", 5);
        snprintf(lv, sizeof lv, "%d", g->tree_level);
        struct tp_buf b = { 0 };
        for (const char *q = body; *q; q++) {
            if (q[0] == '#' && q[1] == '1') { tp_buf_add(&b, lv, strlen(lv)); q++; }
            else tp_buf_add(&b, q, 1);
        }
        if (b.s) tk_apply_opts(T, b.s, strlen(b.s), NULL, 0);
        free(b.s);
    }
    snprintf(lv, sizeof lv, "level %d", GS(T)->tree_level);
    apply_style_if(T, lv);
    /* the children grow from the parent's growth parent anchor (center) */
    vec2 origin = parent->c;
    const char *ga = GS(T)->growth_anchor;
    if (*ga && tk_node_anchor(T, parent, ga, strlen(ga), &origin) != 0) origin = parent->c;
    for (int i = 0; i < kids->n; i++)
        tree_child(st, &kids->v[i], i + 1, kids->n, parent, origin, pname, depth);
    tk_gs_pop(T);
}

void tp_tree(struct tp_state *st)
{
    tikz *T = st->T;
    if (st->err) { kids_free(&st->kids); return; }
    tk_node parent;
    char pname[64];
    pname[0] = 0;
    if (T->last_placed_ok) {
        parent = T->last_placed;
        strcpy(pname, T->last_placed_name);
    } else {
        memset(&parent, 0, sizeof parent);
        parent.shape = TK_SH_COORD;
        parent.c = st->cur;
    }
    struct tkids kids = st->kids;
    memset(&st->kids, 0, sizeof st->kids);
    tree_children(st, &kids, &parent, pname, 0);
    kids_free(&kids);
}

int tk_tree_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn, int has_v)
{
    gstate *g = GS(T);
    if (!has_v) {
        if (tk_is(k, kn, "missing")) { g->child_missing = 1; return 1; }
        return 0;
    }
    const char *w = v;
    size_t wn = vn;
    tk_unbrace(&w, &wn);
    if (tk_is(k, kn, "level distance") || tk_is(k, kn, "sibling distance")) {
        /* also TikZ's dimen registers \tikzleveldistance and
         * \tikzsiblingdistance (tikz.code.tex: \pgfmathsetlength of them),
         * here macros of the length in pt, for the coordinates after it */
        int level = kn == 14;
        double *d = level ? &g->level_dist : &g->sib_dist;
        *d = tk_eval_dim(T, w, wn, *d);
        if (T->tex) {
            char len[48];
            snprintf(len, sizeof len, "%.5fpt", *d);
            tex_define_text(T->tex, level ? "tikzleveldistance" : "tikzsiblingdistance", len, 0);
        }
        return 1;
    }
    if (tk_is(k, kn, "missing")) { g->child_missing = tk_is(w, wn, "true"); return 1; }
    if (tk_is(k, kn, "grow") || tk_is(k, kn, "grow'")) {
        static const struct { const char *n; double a; } dirs[] = {
            { "down", -90 }, { "up", 90 }, { "left", 180 }, { "right", 0 }, { "south", -90 },
            { "north", 90 }, { "west", 180 }, { "east", 0 }, { "north east", 45 },
            { "north west", 135 }, { "south east", -45 }, { "south west", -135 }, { NULL, 0 } };
        double a = 0;
        int found = 0;
        for (int i = 0; dirs[i].n; i++) if (tk_is(w, wn, dirs[i].n)) { a = dirs[i].a; found = 1; break; }
        if (!found && tk_eval(T, w, wn, &a, NULL) != 0) {
            tk_warn(T, T->cmd_line, "grow=%.*s: not a direction or an angle; ignored", (int)(wn > 40 ? 40 : wn), w);
            return 1;
        }
        /* TeX's \c@pgf@counta=: an integer angle */
        g->grow_angle = found ? a : trunc(a);
        g->grow_swap = kn == 5;
        g->grow_special = g->tree_level;
        return 1;
    }
    if (tk_is(k, kn, "parent anchor") || tk_is(k, kn, "child anchor")) {
        char *dst = k[0] == 'p' ? g->parent_anchor : g->child_anchor;
        if (tk_is(w, wn, "border") || wn >= sizeof g->parent_anchor) dst[0] = 0;
        else { memcpy(dst, w, wn); dst[wn] = 0; }
        return 1;
    }
    if (tk_is(k, kn, "growth parent anchor")) {
        if (tk_is(w, wn, "center") || wn >= sizeof g->growth_anchor) g->growth_anchor[0] = 0;
        else { memcpy(g->growth_anchor, w, wn); g->growth_anchor[wn] = 0; }
        return 1;
    }
    if (tk_is(k, kn, "edge from parent path") || tk_is(k, kn, "growth function")) {
        tk_warn(T, T->cmd_line, "%.*s= is not supported: trees keep straight edges from parent and the "
                "default growth", (int)kn, k);
        return 1;
    }
    return 0;
}

#define T_IS_TONODES(w) ((w)->n == 12 && !memcmp((w)->s, "\\tikztonodes", 12))

void tp_unknown(struct tp_state *st, const struct tp_str *w)
{
    if (st->err) return;
    if (T_IS_TONODES(w)) {
        /* a to path's \tikztonodes: the to's nodes, on the segment before
         * it (TikZ makes them labels: pos=.5 unless they say otherwise) */
        tikz *T = st->T;
        pending_node *v = T->to_nodes;
        int n = T->n_to_nodes;
        T->n_to_nodes = 0;
        place_pending(st, 0);
        for (int i = 0; i < n; i++) {
            place_one(st, &v[i], 1);
            pend_free(&v[i]);
        }
        return;
    }
    st->err = 1;
    char buf[300];
    snprintf(buf, sizeof buf, "%s", st->text);
    char why[120];
    snprintf(why, sizeof why, "unsupported path element '%.40s'", w->s);
    tk_unparsed(st->T, off_line(st, w->off), buf, why);
}

void tp_unterminated(struct tp_state *st)
{
    if (st->err) return;
    st->err = 1;
    char buf[300];
    snprintf(buf, sizeof buf, "%s", st->text);
    tk_unparsed(st->T, st->line, buf, "unterminated group in path");
}

/* ---- nodes ------------------------------------------------------------------------- */

void tp_node_begin(struct tp_state *st)
{
    pending_node *pn = &st->curnode;
    free(pn->opts); free(pn->name); free(pn->at); free(pn->text);
    memset(pn, 0, sizeof *pn);
    pn->line = st->line;
}

void tp_node_opts(struct tp_state *st, const struct tp_str *opts)
{
    pending_node *pn = &st->curnode;
    size_t ol = pn->opts ? strlen(pn->opts) : 0, nl = strlen(opts->s);
    pn->opts = xrealloc(pn->opts, ol + nl + 2);
    if (ol) pn->opts[ol++] = ',';
    memcpy(pn->opts + ol, opts->s, nl + 1);
    pn->line = off_line(st, opts->off);
}

void tp_node_name(struct tp_state *st, const struct tp_str *name)
{
    pending_node *pn = &st->curnode;
    free(pn->name);
    const char *s = name->s;
    size_t n = strlen(s);
    tk_trim(&s, &n);
    pn->name = xstrndup(s, n);
}

void tp_node_at(struct tp_state *st, const struct tp_str *c)
{
    pending_node *pn = &st->curnode;
    free(pn->at);
    pn->at = xstrndup(c->s, strlen(c->s));
    pn->line = off_line(st, c->off);
}

void tp_node_op(struct tp_state *st, const struct tp_str *text)
{
    pending_node *pn = &st->curnode;
    pn->text = xstrndup(text->s, strlen(text->s));
    if (pn->line == 0) pn->line = off_line(st, text->off);
    pn->text_lines = st->lines && text->off >= 0 ? st->lines + text->off : NULL;
    if (st->npend < MAX_PENDING) {
        if (st->npend == st->cappend) {
            st->cappend = st->cappend ? st->cappend * 2 : 8;
            st->pend = xrealloc(st->pend, (size_t)st->cappend * sizeof *st->pend);
        }
        st->pend[st->npend++] = *pn;
    } else {
        if (!st->pend_dropped++)
            tk_warn(st->T, pn->line, "more than %d nodes in one path operation; the rest dropped",
                    MAX_PENDING);
        free(pn->opts); free(pn->name); free(pn->at); free(pn->text);
    }
    memset(pn, 0, sizeof *pn);
}

void tp_node_flush(struct tp_state *st) { place_pending(st, 0); }

/* name path= on a node: the node's border (its anchors at every
 * degree, outer sep included) as a closed named path, for name
 * intersections (the through library's circle through= nodes of the
 * tutorials) */
static void remember_node_path(tikz *T, const tk_node *nd, const char *name)
{
    if (T->npaths == T->cappaths) {
        T->cappaths = T->cappaths ? T->cappaths * 2 : 8;
        T->paths = xrealloc(T->paths, T->cappaths * sizeof *T->paths);
    }
    tk_namedpath *np = &T->paths[T->npaths];
    np->n = 0;
    np->pts = xrealloc(NULL, 362 * sizeof *np->pts);
    for (int a = 0; a <= 360; a++) {
        char buf[8];
        vec2 p;
        snprintf(buf, sizeof buf, "%d", a % 360);
        if (tk_node_anchor(T, nd, buf, strlen(buf), &p)) { free(np->pts); return; }
        np->pts[np->n++] = p;
    }
    np->pts[np->n++] = v2(NAN, NAN);
    np->name = xstrdup(name);
    T->npaths++;
}

/* circle through=P (the through library) among a node's options o: a
 * circle about the node's position at (canvas) through P, with no inner
 * and outer sep, as tikzlibrarythrough.code.tex sets it */
static void circle_through(tikz *T, const char *o, vec2 at, tk_nodeopts *no, int line)
{
    size_t n = strlen(o), i = 0;
    while (i < n) {
        long comma = tk_find_top(o + i, n - i, ',');
        size_t len = comma < 0 ? n - i : (size_t)comma;
        const char *it = o + i;
        size_t itn = len;
        i += len + 1;
        long eq = tk_find_top(it, itn, '=');
        if (eq <= 0) continue;
        const char *k = it, *v = it + eq + 1;
        size_t kn = (size_t)eq, vn = itn - (size_t)eq - 1;
        tk_trim(&k, &kn);
        if (!tk_is(k, kn, "circle through")) continue;
        tk_unbrace(&v, &vn);
        if (vn >= 2 && v[0] == '(' && v[vn - 1] == ')') { v++; vn -= 2; }
        vec2 p;
        if (tk_coord(T, v, vn, &p, line)) {
            tk_warn(T, line, "circle through: cannot evaluate '%.*s'", (int)(vn > 60 ? 60 : vn), v);
            return;
        }
        char buf[128];
        snprintf(buf, sizeof buf, "shape=circle,inner sep=0pt,outer sep=0pt,minimum size=%.6fpt",
                 2 * hypot(p.x - at.x, p.y - at.y));
        tk_apply_opts(T, buf, strlen(buf), no, 0);
    }
}

static void place_one(struct tp_state *st, pending_node *pn, int on_segment)
{
    tikz *T = st->T;
    tk_nodeopts no;
    tk_nodeopts_init(T, &no);
    gstate *outer = GS(T);
    mat outer_ctm = outer->ctm;
    /* no current point (\node without at): the origin of the coordinate
     * system, as for a pic (a shifted scope moves the node) */
    vec2 at = st->have_cur ? st->cur : mat_apply(outer_ctm, v2(0, 0));
    int have_at = 0;
    if (pn->at) {
        if (tk_coord(T, pn->at, strlen(pn->at), &at, pn->line)) {
            tk_unparsed(T, pn->line, pn->at, "cannot evaluate node position");
            tk_nodeopts_free(&no);
            return;
        }
        have_at = 1;
    }
    /* a name path= among the node's own options names its border */
    char *outer_np = GS(T)->name_path ? xstrdup(GS(T)->name_path) : NULL;
    tk_gs_push(T);
    gstate *g = GS(T);
    g->role[0] = 0;
    g->decorate = 0;          /* the path's decorate is not the node's */
    if (g->every_node) tk_apply_opts(T, g->every_node, strlen(g->every_node), &no, 0);
    if (pn->opts) tk_apply_opts(T, pn->opts, strlen(pn->opts), &no, 0);
    if (pn->opts) circle_through(T, pn->opts, at, &no, pn->line);
    /* positioning (right=of A): the node is put at A's border, whatever
     * point the path is at; an explicit "at" comes later and wins */
    if (no.has_of && !have_at) {
        at = no.of_at;
        have_at = 1;
    }
    /* node-local shifts move the node */
    vec2 o0 = mat_apply(outer_ctm, v2(0, 0)), o1 = mat_apply(g->ctm, v2(0, 0));
    at = vadd(at, vsub(o1, o0));
    vec2 seg[4];
    int nseg = 0;
    /* pos= (midway, near end, ...) places the node on the path's last
     * segment, whatever its "at" says; without a segment in the path, at the
     * origin of the coordinate system (TikZ's timer is unset) */
    if (no.has_pos && st->seg_kind == SEG_NONE) {
        if (have_at)
            tk_warn(T, pn->line, "node with pos= (midway, near start, ...) but no segment before it in "
                    "the path: placed at the origin, as TikZ does; its 'at' is ignored");
        at = vsub(vadd(mat_apply(outer_ctm, v2(0, 0)), o1), o0);
        no.has_pos = 0;
    } else if ((no.has_pos || (!have_at && on_segment)) && st->seg_kind != SEG_NONE) {
        double t = no.has_pos ? no.pos : 0.5;
        vec2 dir;
        at = seg_point(st, t, &dir);
        at = vadd(at, vsub(o1, o0));
        if (st->seg_kind == SEG_HV) {
            seg[0] = t <= 0.5 ? st->seg[0] : st->seg[1];
            seg[1] = t <= 0.5 ? st->seg[1] : st->seg[2];
        } else if (st->seg_kind == SEG_ARC) {
            seg[0] = seg_point(st, 0, NULL);
            seg[1] = seg_point(st, 1, NULL);
        } else {
            seg[0] = st->seg[0];
            seg[1] = st->seg_kind == SEG_CURVE ? st->seg[3] : st->seg[1];
        }
        nseg = 2;
        if (!no.has_pos) no.pos = t;
        no.has_pos = 1;
        if (no.sloped) no.rotate = atan2(dir.y, dir.x) / DEG;
        if (!strncmp(no.anchor, "@auto", 5)) {
            /* auto (\tikz@auto@anchor, \tikz@auto@anchor@prime): the
             * anchor from the path's direction at the node, left of it (or
             * right: swap) */
            int right = no.anchor[5] == 'r';
            double l = vlen(dir), x = l > 0 ? dir.x / l : 0, y = l > 0 ? dir.y / l : 0;
            const char *a = !right
                ? (x > 0.05 ? (y > 0.05 ? "south east" : y < -0.05 ? "south west" : "south")
                   : x < -0.05 ? (y > 0.05 ? "north east" : y < -0.05 ? "north west" : "north")
                   : (y > 0 ? "east" : "west"))
                : (x > 0.05 ? (y > 0.05 ? "north west" : y < -0.05 ? "north east" : "north")
                   : x < -0.05 ? (y > 0.05 ? "south west" : y < -0.05 ? "south east" : "south")
                   : (y > 0 ? "west" : "east"));
            snprintf(no.anchor, sizeof no.anchor, "%s", a);
        }
    } else {
        no.has_pos = 0;
    }
    if (!strncmp(no.anchor, "@auto", 5)) snprintf(no.anchor, sizeof no.anchor, "center");
    if (pn->name && !no.name) no.name = xstrndup(pn->name, strlen(pn->name));
    if (tk_matrix_wanted(T, pn->opts))
        tk_matrix(T, &no, at, pn->opts, pn->text ? pn->text : "", pn->line, pn->text_lines);
    else
        tk_place_node(T, &no, at, pn->text ? pn->text : "", pn->line, nseg ? seg : NULL, nseg);
    /* an edge after it starts from this node (\tikz@to@use@last@fig@name) */
    const tk_node *fig = no.name ? tk_find_node(T, no.name, strlen(no.name)) : NULL;
    st->fig_nd = fig && fig->shape != TK_SH_COORD ? (size_t)(fig - T->nodes) + 1 : 0;
    g = GS(T);
    if (g->name_path && (!outer_np || strcmp(outer_np, g->name_path)) && T->last_placed_ok)
        remember_node_path(T, &T->last_placed, g->name_path);
    free(outer_np);
    tk_gs_pop(T);
    tk_nodeopts_free(&no);
}

static void place_pending(struct tp_state *st, int on_segment)
{
    for (int i = 0; i < st->npend; i++) {
        place_one(st, &st->pend[i], on_segment);
        pend_free(&st->pend[i]);
    }
    st->npend = 0;
}

/* ---- running a path ----------------------------------------------------------------- */

/* right angle symbol={A}{B}{C}: the IM class's mark at B */
static void right_angle_symbol(struct tp_state *st, const char *v)
{
    tikz *T = st->T;
    gstate *g = GS(T);
    const char *names[3];
    size_t lens[3];
    const char *s = v;
    for (int k = 0; k < 3; k++) {
        while (*s && *s != '{') s++;
        if (!*s) return;
        const char *e = strchr(s, '}');
        if (!e) return;
        names[k] = s + 1;
        lens[k] = (size_t)(e - s - 1);
        s = e + 1;
    }
    vec2 P[3];
    for (int k = 0; k < 3; k++) {
        if (tk_named_point(T, names[k], lens[k], &P[k])) {
            tk_warn(T, st->line, "right angle symbol: unknown point '%.*s'", (int)lens[k], names[k]);
            return;
        }
    }
    /* foot of the perpendicular from C onto AB */
    vec2 A = P[0], B = P[1], C = P[2];
    vec2 d = vsub(B, A);
    double L2 = d.x * d.x + d.y * d.y;
    if (L2 <= 0) return;
    double t = ((C.x - A.x) * d.x + (C.y - A.y) * d.y) / L2;
    vec2 P0 = vadd(A, vscale(d, t));
    vec2 toC = vsub(C, P0), toB = vsub(B, P0);
    double lc = vlen(toC), lb = vlen(toB);
    /* the usual call, right angle symbol={C}{A}{B}, puts the foot on B
     * itself: then the second leg runs along the line, toward A */
    if (lb <= 1e-9) { toB = vsub(A, P0); lb = vlen(toB); }
    if (lc <= 1e-9 || lb <= 1e-9) return;
    static const int qa[4] = { 1, 1, -1, -1 }, qb[4] = { 1, -1, -1, 1 };
    int q = g->ra_quadrant;
    if (q < 1 || q > 4) q = 1;
    double len = g->ra_len;
    vec2 P1 = vadd(P0, vscale(toC, qa[q - 1] * len / lc));
    vec2 P2 = vadd(P0, vscale(toB, qb[q - 1] * len / lb));
    vec2 P3 = vsub(vadd(P1, P2), P0);
    vec2 pts[3] = { P1, P3, P2 };
    add_piece(st, IR_POLY, 0, pts, 3, 0, 0, "right-angle");
    g->lw = 0.5;
    g->draw = 1;
}

void tp_options(struct tp_state *st, const struct tp_str *opts)
{
    tikz *T = st->T;
    tk_apply_opts(T, opts->s, (size_t)opts->n, NULL, 0);
    const char *cpl = strstr(opts->s, "current point is local");
    if (cpl) {
        /* a key of path scopes (tp_scope): true, or =true / =false */
        const char *v = cpl + 22;
        while (*v == ' ') v++;
        st->cp_local = 1;
        if (*v == '=') {
            v++;
            while (*v == ' ' || *v == '{') v++;
            st->cp_local = strncmp(v, "false", 5) != 0;
        }
    }
    const char *ra = strstr(opts->s, "right angle symbol");
    if (ra) {
        const char *eq = strchr(ra, '=');
        if (eq) right_angle_symbol(st, eq + 1);
    }
    gstate *g = GS(T);
    if (g->name_isect) {
        /* name intersections={of=A and B, by={P,Q}}: nodes intersection-1,
         * intersection-2, ... (and the by= names) at the crossings of the
         * two named paths, in the order of path A */
        const char *s = g->name_isect;
        size_t sn = strlen(s);
        char a[64] = "", b[64] = "";
        const char *by = NULL;
        size_t byn = 0;
        while (sn > 0) {
            long comma = tk_find_top(s, sn, ',');
            size_t kn = comma >= 0 ? (size_t)comma : sn;
            const char *kv = s;
            size_t kvn = kn;
            tk_trim(&kv, &kvn);
            long eq = tk_find_top(kv, kvn, '=');
            if (eq > 0) {
                const char *k = kv, *v = kv + eq + 1;
                size_t k_n = (size_t)eq, vn = kvn - (size_t)eq - 1;
                tk_trim(&k, &k_n);
                tk_unbrace(&v, &vn);
                if (tk_is(k, k_n, "of")) {
                    const char *and = tk_memmem(v, vn, " and ");
                    if (and) {
                        const char *b0 = and + 5;
                        size_t an = (size_t)(and - v), bn = vn - an - 5;
                        tk_trim(&v, &an);
                        tk_trim(&b0, &bn);
                        snprintf(a, sizeof a, "%.*s", (int)an, v);
                        snprintf(b, sizeof b, "%.*s", (int)bn, b0);
                    }
                } else if (tk_is(k, k_n, "by")) {
                    by = v;
                    byn = vn;
                }
            }
            if (comma < 0) break;
            s += comma + 1;
            sn -= (size_t)comma + 1;
        }
        tk_namedpath *pa = NULL, *pb = NULL;
        for (size_t i = 0; i < T->npaths; i++) {
            if (strcmp(T->paths[i].name, a) == 0) pa = &T->paths[i];
            if (strcmp(T->paths[i].name, b) == 0) pb = &T->paths[i];
        }
        int k = 0;
        vec2 found[64];
        if (pa && pb) {
            for (size_t i = 0; i + 1 < pa->n; i++)
                for (size_t j = 0; j + 1 < pb->n; j++) {
                    vec2 p = pa->pts[i], r = vsub(pa->pts[i + 1], p);
                    vec2 q = pb->pts[j], sv = vsub(pb->pts[j + 1], q);
                    if (isnan(r.x) || isnan(sv.x)) continue;  /* between two pieces */
                    double den = r.x * sv.y - r.y * sv.x;
                    if (fabs(den) < 1e-12) continue;
                    double t = ((q.x - p.x) * sv.y - (q.y - p.y) * sv.x) / den;
                    double u = ((q.x - p.x) * r.y - (q.y - p.y) * r.x) / den;
                    if (t < -1e-9 || t > 1 + 1e-9 || u < -1e-9 || u > 1 + 1e-9) continue;
                    vec2 x = vadd(p, vscale(r, t));
                    int dup = 0;  /* a crossing at a shared segment end is found twice */
                    for (int m = 0; m < k && !dup; m++)
                        dup = fabs(found[m].x - x.x) < 1e-3 && fabs(found[m].y - x.y) < 1e-3;
                    if (dup || k >= (int)(sizeof found / sizeof *found)) continue;
                    found[k++] = x;
                    char nm[32];
                    snprintf(nm, sizeof nm, "intersection-%d", k);
                    tk_add_node(T, nm, x, 0, 0, 0, 0);
                }
        }
        if (!k) tk_warn(T, st->line, "no intersections of %s and %s", a, b);
        for (int m = 0; by && m < k; m++) {
            /* by={P,Q}: the m-th name (a name may carry [options]; they are ignored) */
            long comma = tk_find_top(by, byn, ',');
            const char *nm = by;
            size_t nn = comma >= 0 ? (size_t)comma : byn;
            tk_trim(&nm, &nn);
            if (nn && nm[0] == '[') {
                const char *close = memchr(nm, ']', nn);
                if (close) { nn -= (size_t)(close + 1 - nm); nm = close + 1; tk_trim(&nm, &nn); }
            }
            if (nn) {
                char name[64];
                snprintf(name, sizeof name, "%.*s", (int)nn, nm);
                tk_add_node(T, name, found[m], 0, 0, 0, 0);
            }
            if (comma < 0) break;
            by += comma + 1;
            byn -= (size_t)comma + 1;
        }
        free(g->name_isect);
        g->name_isect = NULL;
    }
}

void tk_pathbufs_free(struct tk_pathbufs *b)
{
    free(b->sub);
    free(b->sub3);
    free(b->pieces);
    free(b->pool);
    memset(b, 0, sizeof *b);
}

void tk_path_scanner_free(tikz *T)
{
    tk_optcache_free(T);
    free(T->xyzcache);
    T->xyzcache = NULL;
    tp_scanner_free(T->path_scanner);
    T->path_scanner = NULL;
    tk_intern_free(T);
    tk_pathbufs_free(&T->pbufs);
}

/* The path's text with its let operations expanded, one at a time (a later
 * let sees the values of an earlier one): *text, *lines and *n become the
 * expanded text's (malloc'd in *own_text and *own_lines, which the caller
 * frees) */
/* ---- foreach inside a path ---------------------------------------------------------
 * TikZ's foreach operation (\tikz \draw (0,0) foreach \x in {1,2} { -- (\x,1) };)
 * and the foreach statements of a node (node foreach \x in {1,2} at (\x,0)
 * {\x}): expanded in the text before it is parsed, one foreach a round: the
 * body (the operation's {group}; for a node, what follows its foreach
 * statements up to and including its {text}, written after "node" again)
 * once per item, its variables replaced. Variables: \x or \a/\b/..., the
 * items split at '/'; the list: items at commas and numeric ranges
 * a,...,c and a,b,...,c, as \foreach reads them. Anything else (options
 * after the variables, a list that is a macro) is left alone: the path
 * then stays unparsed as before. */

#define MAX_FE_ITEMS 1000
#define MAX_FE_TEXT (1 << 20)

struct fe_out { char *s; int *l; size_t n, cap; };

static void fe_put(struct fe_out *o, const char *s, size_t n, const int *lines, int line, int fixed)
{
    if (o->n + n + 1 > o->cap) {
        o->cap = (o->n + n + 1) * 2;
        o->s = xrealloc(o->s, o->cap);
        o->l = xrealloc(o->l, o->cap * sizeof *o->l);
    }
    memcpy(o->s + o->n, s, n);
    for (size_t i = 0; i < n; i++) o->l[o->n + i] = fixed >= 0 || !lines ? (fixed >= 0 ? fixed : line) : lines[i];
    o->n += n;
    o->s[o->n] = 0;
}

/* the end of the balanced group opening at t[i] (its closing byte + 1), or 0 */
static size_t fe_group_end(const char *t, size_t n, size_t i)
{
    char open = t[i], close = open == '(' ? ')' : open == '[' ? ']' : '}';
    int depth = 0;
    for (size_t j = i; j < n; j++) {
        if (t[j] == open) depth++;
        else if (t[j] == close && --depth == 0) return j + 1;
    }
    return 0;
}

static int fe_word(const char *t, size_t n, size_t i, const char *w)
{
    size_t k = strlen(w);
    return i + k <= n && memcmp(t + i, w, k) == 0 && (i + k == n || !isalpha((unsigned char)t[i + k])) &&
           (i == 0 || (!isalpha((unsigned char)t[i - 1]) && t[i - 1] != '\\'));
}

static size_t fe_ws(const char *t, size_t n, size_t i)
{
    while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) i++;
    return i;
}

/* the items of a list (items[k] in buf), -1 when it cannot be read */
static int fe_items(const char *list, size_t ln, char (*items)[48], int max)
{
    int ni = 0;
    size_t i = 0;
    while (i < ln) {
        i = fe_ws(list, ln, i);
        size_t j = i;
        int depth = 0;
        while (j < ln && (depth || list[j] != ',')) { if (list[j] == '{') depth++; else if (list[j] == '}') depth--; j++; }
        size_t e = j;
        while (e > i && (list[e - 1] == ' ' || list[e - 1] == '\t' || list[e - 1] == '\n' || list[e - 1] == '\r')) e--;
        if (e - i == 3 && memcmp(list + i, "...", 3) == 0) {
            if (ni < 1 || j >= ln) return -1;
            size_t r = fe_ws(list, ln, j + 1), re = r;
            while (re < ln && list[re] != ',') re++;
            char last_s[48];
            size_t ll = re - r;
            while (ll && (list[r + ll - 1] == ' ' || list[r + ll - 1] == '\n')) ll--;
            if (ll == 0 || ll >= sizeof last_s) return -1;
            memcpy(last_s, list + r, ll);
            last_s[ll] = 0;
            char *end, *e0;
            double last = strtod(last_s, &end), a = strtod(items[ni - 1], &e0);
            if (*end || *e0) return -1;
            double step = last < a ? -1 : 1;
            if (ni >= 2) {
                char *e1;
                double b = strtod(items[ni - 2], &e1);
                if (*e1) return -1;
                step = a - b;
            }
            if (step == 0) return -1;
            for (int k = 1;; k++) {
                double x = a + k * step;
                if (step > 0 ? x > last + 1e-9 : x < last - 1e-9) break;
                if (ni == max) return -1;
                if (fabs(x - round(x)) < 1e-9) x = round(x);
                snprintf(items[ni++], 48, "%.10g", x);
            }
            j = re;
        } else if (e > i) {
            if (ni == max || e - i >= 48) return -1;
            memcpy(items[ni], list + i, e - i);
            items[ni++][e - i] = 0;
        }
        i = j < ln ? j + 1 : j;
    }
    return ni;
}

/* one round: the first foreach at the top level of the path expanded; NULL
 * when there is none or it cannot be read */
static char *expand_one_foreach(const char *t, size_t n, const int *lines, int line, int **lines_out,
                                size_t *nout)
{
    size_t i = 0, node_at = (size_t)-1;
    int last_node = 0;   /* the last top-level word was "node" or "pic" (or a node's foreach) */
    int node_pic = 0;    /* ... it was "pic" */
    int last_child = 0;  /* ... was "child": its foreach is the tree builder's (tp_child) */
    while (i < n) {
        char c = t[i];
        if (c == '(' || c == '[' || c == '{') {
            size_t e = fe_group_end(t, n, i);
            if (!e) return NULL;
            i = e;
            if (c != '[') last_node = last_child = 0;
            continue;
        }
        if (fe_word(t, n, i, "node") || fe_word(t, n, i, "pic")) {
            last_node = 1;
            last_child = 0;
            node_at = i;
            node_pic = t[i] == 'p';
            i += node_pic ? 3 : 4;
            continue;
        }
        if (fe_word(t, n, i, "child")) { last_child = 1; last_node = 0; i += 5; continue; }
        if (last_child && fe_word(t, n, i, "foreach")) { last_child = 0; i += 7; continue; }
        if (fe_word(t, n, i, "foreach") || (i + 8 <= n && memcmp(t + i, "\\foreach", 8) == 0 &&
                                            (i + 8 == n || !isalpha((unsigned char)t[i + 8])))) {
            size_t start = i, p = i + (t[i] == '\\' ? 8 : 7);
            /* variables */
            char vars[8][32];
            int nv = 0;
            p = fe_ws(t, n, p);
            while (p < n && t[p] == '\\') {
                size_t q = p + 1;
                while (q < n && (isalpha((unsigned char)t[q]) || t[q] == '@')) q++;
                if (q == p + 1 || q - p >= 32 || nv == 8) return NULL;
                memcpy(vars[nv], t + p, q - p);
                vars[nv++][q - p] = 0;
                p = fe_ws(t, n, q);
                if (p < n && t[p] == '/') p = fe_ws(t, n, p + 1);
                else break;
            }
            if (!nv || !fe_word(t, n, p, "in")) return NULL;
            p = fe_ws(t, n, p + 2);
            if (p >= n || t[p] != '{') return NULL;
            size_t le = fe_group_end(t, n, p);
            if (!le) return NULL;
            static char items[MAX_FE_ITEMS][48];
            int ni = fe_items(t + p + 1, le - p - 2, items, MAX_FE_ITEMS);
            if (ni < 0) return NULL;
            p = fe_ws(t, n, le);
            size_t bs, be, after;   /* the body [bs, be) and where the text goes on */
            int node = last_node && node_at != (size_t)-1;
            if (node) {
                /* the node's parts up to and including its {text} */
                size_t q = p;
                for (;;) {
                    q = fe_ws(t, n, q);
                    if (q >= n) return NULL;
                    if (t[q] == '{') { q = fe_group_end(t, n, q); if (!q) return NULL; break; }
                    if (t[q] == '(' || t[q] == '[') { q = fe_group_end(t, n, q); if (!q) return NULL; continue; }
                    /* a further foreach statement: up to its {list}, expanded in a later round */
                    if (fe_word(t, n, q, "foreach")) {
                        size_t w = q + 7;
                        while (w < n && !fe_word(t, n, w, "in") && t[w] != '{') w++;
                        if (w >= n || t[w] == '{') return NULL;
                        w = fe_ws(t, n, w + 2);
                        if (w >= n || t[w] != '{' || !(q = fe_group_end(t, n, w))) return NULL;
                        continue;
                    }
                    /* words: at, foreach, variables, in */
                    size_t w = q;
                    while (w < n && t[w] != '(' && t[w] != '[' && t[w] != '{' && t[w] != ' ' && t[w] != '\n' &&
                           t[w] != '\t' && t[w] != '\r' && t[w] != ';')
                        w++;
                    if (w == q) return NULL;
                    q = w;
                }
                bs = p;
                be = q;
                after = q;
            } else {
                if (p >= n || t[p] != '{') return NULL;
                size_t e = fe_group_end(t, n, p);
                if (!e) return NULL;
                bs = p + 1;
                be = e - 1;
                after = e;
            }
            struct fe_out o = { 0 };
            size_t head = node ? node_at : start;
            fe_put(&o, t, head, lines, line, -1);
            for (int k = 0; k < ni; k++) {
                /* the item's values, split at '/' for several variables */
                char vals[8][48];
                const char *it = items[k];
                for (int v = 0; v < nv; v++) {
                    const char *sl = v < nv - 1 ? strchr(it, '/') : NULL;
                    size_t vl = sl ? (size_t)(sl - it) : strlen(it);
                    memcpy(vals[v], it, vl);
                    vals[v][vl] = 0;
                    /* a value in braces loses them, as \foreach's */
                    if (vl >= 2 && vals[v][0] == '{' && vals[v][vl - 1] == '}') {
                        memmove(vals[v], vals[v] + 1, vl - 2);
                        vals[v][vl - 2] = 0;
                    }
                    it = sl ? sl + 1 : it + vl;
                }
                int bl = lines ? lines[bs < n ? bs : n - 1] : line;
                if (node) fe_put(&o, node_pic ? " pic " : " node ", node_pic ? 5 : 6, NULL, bl, bl);
                else fe_put(&o, " ", 1, NULL, bl, bl);
                for (size_t j = bs; j < be;) {
                    int hit = -1;
                    if (t[j] == '\\')
                        for (int v = 0; v < nv; v++) {
                            size_t vl = strlen(vars[v]);
                            if (j + vl <= be && memcmp(t + j, vars[v], vl) == 0 &&
                                (j + vl == be || (!isalpha((unsigned char)t[j + vl]) && t[j + vl] != '@'))) {
                                hit = v;
                                break;
                            }
                        }
                    if (hit >= 0) {
                        int vline = lines ? lines[j] : line;
                        fe_put(&o, vals[hit], strlen(vals[hit]), NULL, vline, vline);
                        j += strlen(vars[hit]);
                    } else {
                        fe_put(&o, t + j, 1, lines ? lines + j : NULL, line, -1);
                        j++;
                    }
                }
                if (o.n > MAX_FE_TEXT) { free(o.s); free(o.l); return NULL; }
            }
            fe_put(&o, " ", 1, NULL, line, lines ? lines[after < n ? after : n - 1] : line);
            fe_put(&o, t + after, n - after, lines ? lines + after : NULL, line, -1);
            *lines_out = o.l;
            *nout = o.n;
            return o.s;
        }
        if (isalpha((unsigned char)c) || c == '\\') {
            size_t w = i + 1;
            while (w < n && isalpha((unsigned char)t[w])) w++;
            last_node = last_child = 0;
            i = w;
            continue;
        }
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') last_node = last_child = 0;
        i++;
    }
    return NULL;
}

static void expand_foreach(const char **text, const int **lines, size_t *n, int line,
                           char **own_text, int **own_lines)
{
    for (int round = 0; round < 64; round++) {
        if (!tk_memmem(*text, *n, "foreach")) return;
        int *nl = NULL;
        size_t nn = 0;
        char *nt = expand_one_foreach(*text, *n, *lines, line, &nl, &nn);
        if (!nt) return;
        free(*own_text);
        free(*own_lines);
        *text = *own_text = nt;
        *lines = *own_lines = nl;
        *n = nn;
    }
}

static void expand_lets(tikz *T, const char **text, const int **lines, size_t *n, int line,
                        char **own_text, int **own_lines)
{
    for (int round = 0; round < 16; round++) {
        int *nl = NULL;
        size_t nn = 0;
        char *nt = tk_expand_let(T, *text, *n, *lines, line, &nl, &nn);
        if (!nt) break;
        free(*own_text);
        free(*own_lines);
        *text = *own_text = nt;
        *lines = *own_lines = nl;
        *n = nn;
    }
}

/* The session's buffers for st (reused from the previous path, the pool
 * grown to what that path wanted), or none for a path run from inside
 * another (none today): 1 when they are the session's */
static int take_path_buffers(tikz *T, struct tp_state *st)
{
    int reuse = !T->path_busy;
    if (reuse) {
        st->b = T->pbufs;
        if (st->b.poolwant > st->b.poolcap) {
            free(st->b.pool);
            st->b.poolcap = st->b.poolwant + st->b.poolwant / 2;
            st->b.pool = xrealloc(NULL, st->b.poolcap);
        }
        st->b.poolwant = st->b.poolcap;
    }
    st->b.poolused = 0;
    return reuse;
}

static void give_back_path_buffers(tikz *T, struct tp_state *st, int reuse)
{
    if (reuse) {
        st->b.poolwant = st->b.poolused + (st->b.poolwant - st->b.poolcap);
        T->pbufs = st->b;
    } else {
        tk_pathbufs_free(&st->b);
    }
}

/* Runs bison's path grammar over text[0,n) with the session's scanner (a
 * path run from inside another, none today, gets its own), then places the
 * nodes still waiting and ends the last subpath */
static void parse_path(tikz *T, struct tp_state *st, const char *text, size_t n)
{
    struct tp_extra own_x;
    void *sc;
    if (T->path_busy) {
        sc = tp_scanner_new(&own_x);
    } else {
        if (!T->path_scanner) T->path_scanner = tp_scanner_new(&T->path_x);
        sc = T->path_scanner;
    }
    T->path_busy++;
    tp_parse_path(sc, text, n, st);
    T->path_busy--;
    if (sc != T->path_scanner) tp_scanner_free(sc);
    place_pending(st, 0);
    pend_free(&st->curnode);
    flush_sub(st, 0);
}

/* A piece of at most 4 points (an arc, an ellipse, a curve) as an IR
 * element e, without allocating: its points go in q */
static void piece_as_elem(const piece *pc, ir_elem *e, ir_pt q[4])
{
    memset(e, 0, sizeof *e);
    e->kind = pc->kind;
    e->closed = pc->closed;
    e->t1 = pc->t1;
    e->t2 = pc->t2;
    for (size_t k = 0; k < pc->n && k < 4; k++) { q[k].x = pc->p[k].x; q[k].y = pc->p[k].y; }
    e->pts = q;
    e->npts = pc->n;
}

/* name path=: the path's pieces as one polyline for name intersections
 * (curves, circles and arcs sampled finely), pieces separated by a NaN point */
static void remember_named_path(tikz *T, const struct tp_state *st, const char *name)
{
    if (T->npaths == T->cappaths) {
        T->cappaths = T->cappaths ? T->cappaths * 2 : 8;
        T->paths = xrealloc(T->paths, T->cappaths * sizeof *T->paths);
    }
    tk_namedpath *np = &T->paths[T->npaths++];
    np->name = xstrdup(name);
    np->n = 0;
    np->pts = NULL;
    for (size_t i = 0; i < st->npieces && i < MAX_PIECES; i++) {
        const piece *pc = &((piece *)st->b.pieces)[i];
        if (pc->kind == IR_POLY) {
            np->pts = xrealloc(np->pts, (np->n + pc->n + 2) * sizeof *np->pts);
            memcpy(np->pts + np->n, pc->p, pc->n * sizeof *np->pts);
            np->n += pc->n;
            if (pc->closed && pc->n > 2) np->pts[np->n++] = pc->p[0];
        } else if (pc->n <= 4) {
            ir_elem tmp;
            ir_pt q[4];
            piece_as_elem(pc, &tmp, q);
            ir_pt *fl = NULL;
            int closed = 0;
            size_t fn = ir_elem_flatten(&tmp, &fl, &closed);
            np->pts = xrealloc(np->pts, (np->n + fn + 2) * sizeof *np->pts);
            for (size_t k = 0; k < fn; k++) np->pts[np->n++] = v2(fl[k].x, fl[k].y);
            if (closed && fn > 2) np->pts[np->n++] = v2(fl[0].x, fl[0].y);
            free(fl);
        }
        np->pts = xrealloc(np->pts, (np->n + 1) * sizeof *np->pts);
        np->pts[np->n++] = v2(NAN, NAN);
    }
}

/* A new element of kind with a piece's points */
static ir_elem *add_piece_elem(tikz *T, ir_kind kind, const piece *pc)
{
    ir_elem *e = ir_add(T->d, kind);
    ir_pt small[64];
    ir_pt *p = pc->n <= 64 ? small : xrealloc(NULL, pc->n * sizeof *p);
    for (size_t k = 0; k < pc->n; k++) { p[k].x = pc->p[k].x; p[k].y = pc->p[k].y; }
    ir_elem_set_pts(e, p, pc->n);
    if (p != small) free(p);
    e->line = pc->line;
    return e;
}

/* \clip: a clip element, the clip of what the enclosing scope draws next */
static void emit_clip_piece(tikz *T, const piece *pc, int draw)
{
    ir_elem *e = add_piece_elem(T, IR_CLIP, pc);
    e->sub = pc->kind == IR_RECT ? IR_RECT : pc->kind == IR_ELLIPSE ? IR_ELLIPSE : IR_POLY;
    e->closed = 1;
    T->nclips++;
    tk_set_num(e, "id", T->nclips);
    if (T->ngs >= 2) T->gs[T->ngs - 2].clip = T->nclips;
    if (draw) tk_emit_attrs(T, e, draw, 0);
}

/* A drawn or filled piece (a right angle mark is drawn even on \path) */
static void emit_drawn_piece(tikz *T, const piece *pc, int draw, int fill)
{
    gstate *g = GS(T);
    int d2 = draw || (pc->role && strcmp(pc->role, "right-angle") == 0);
    if (!d2 && !fill) return;
    ir_elem *e = add_piece_elem(T, pc->kind, pc);
    e->closed = pc->closed;
    e->t1 = pc->t1;
    e->t2 = pc->t2;
    /* a piece's role stands in for the path's while its attributes
     * are written (tk_emit_attrs does not change g->role) */
    char saved[24];
    if (pc->role) {
        strcpy(saved, g->role);
        snprintf(g->role, sizeof g->role, "%s", pc->role);
    }
    tk_emit_attrs(T, e, d2, fill && pc->kind != IR_POLY ? 1 : fill && (pc->closed || pc->n > 2));
    if (pc->role) strcpy(g->role, saved);
    if (pc->p3) tk_set_xyz(T, e, pc->p3, pc->n);
    if (pc->kind == IR_ARC && strcmp(ir_elem_get(e, "role") ? ir_elem_get(e, "role") : "", "angle-mark") == 0)
        tk_set_nums(e, "vertex", (double[]){ pc->p[0].x, pc->p[0].y }, 2);
}

/* An animation of the animations library, ":attribute = {timeline}" after
 * a node, a pic, a coordinate or at the start of a path, at the path's top
 * level: its length from t[i] (the ':'), or 0. */
static size_t anim_len(const char *t, size_t n, size_t i)
{
    size_t j = i + 1;
    while (j < n && t[j] == ' ') j++;
    size_t name = j;
    while (j < n && (isalpha((unsigned char)t[j]) || t[j] == ' ')) j++;
    if (j == name || j >= n || t[j] != '=') return 0;
    j++;
    while (j < n && (t[j] == ' ' || t[j] == '\n' || t[j] == '\t')) j++;
    if (j >= n || t[j] != '{') return 0;
    size_t e = fe_group_end(t, n, j);
    return e ? e - i : 0;
}

/* The animations are left out: a PDF shows the picture as drawn without
 * them (TikZ writes them for SVG output and snapshots); each becomes one
 * space. NULL when the text has none. */
static char *strip_animations(const char *t, size_t n, const int *lines, int line,
                              int **lines_out, size_t *n_out)
{
    if (!memchr(t, ':', n)) return NULL;
    struct fe_out o = { 0 };
    int depth = 0, any = 0;
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (c == '(' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == ']' || c == '}') && depth > 0) depth--;
        else if (c == ':' && depth == 0 && (i == 0 || strchr(" \t\n)]}", t[i - 1]))) {
            size_t len = anim_len(t, n, i);
            if (!len) continue;
            fe_put(&o, t + from, i - from, lines ? lines + from : NULL, line, -1);
            fe_put(&o, " ", 1, NULL, lines ? lines[i] : line, lines ? lines[i] : line);
            i += len - 1;
            from = i + 1;
            any = 1;
        }
    }
    if (!any) return NULL;
    fe_put(&o, t + from, n - from, lines ? lines + from : NULL, line, -1);
    *lines_out = o.l;
    *n_out = o.n;
    return o.s;
}

/* the pieces' share of pgf's picture box (tk_bbox_add): their points, a
 * curve's control points too, an ellipse's bounding parallelogram, with
 * b (its move-to points), widened
 * by half the line width hlw when stroked */
static void note_pgf_box(tikz *T, ir_box b, const piece *pcs, size_t n, double hlw)
{
    for (size_t i = 0; i < n; i++) {
        const piece *pc = &pcs[i];
        if (pc->kind == IR_ELLIPSE && pc->n == 3) {
            double w = fabs(pc->p[1].x) + fabs(pc->p[2].x), h = fabs(pc->p[1].y) + fabs(pc->p[2].y);
            ir_box_add(&b, pc->p[0].x - w, pc->p[0].y - h);
            ir_box_add(&b, pc->p[0].x + w, pc->p[0].y + h);
        } else if (pc->kind == IR_POLY || pc->kind == IR_CURVE || pc->kind == IR_RECT) {
            for (size_t k = 0; k < pc->n; k++) ir_box_add(&b, pc->p[k].x, pc->p[k].y);
        } else if (pc->n <= 4) {
            ir_elem tmp;
            ir_pt q[4];
            piece_as_elem(pc, &tmp, q);
            ir_box_union(&b, ir_elem_box(&tmp));
        }
    }
    if (b.empty) return;
    b.x1 -= hlw; b.y1 -= hlw; b.x2 += hlw; b.y2 += hlw;
    tk_bbox_add(T, b);
}

void tk_run_path(tikz *T, int cmd, const char *text, const int *lines, int line)
{
    char *let_text = NULL;
    int *let_lines = NULL;
    size_t text_n = strlen(text);
    {
        int *al = NULL;
        size_t an = 0;
        char *at = strip_animations(text, text_n, lines, line, &al, &an);
        if (at) { text = let_text = at; lines = let_lines = al; text_n = an; }
    }
    expand_lets(T, &text, &lines, &text_n, line, &let_text, &let_lines);
    expand_foreach(&text, &lines, &text_n, line, &let_text, &let_lines);
    tk_pic_type_braces(&text, &lines, &text_n, &let_text, &let_lines);
    struct tp_state st;
    memset(&st, 0, offsetof(struct tp_state, pts));   /* not the points: see there */
    st.mbox = ir_box_empty();
    int reuse = take_path_buffers(T, &st);
    st.T = T;
    st.cmd = cmd;
    st.text = text;
    st.lines = lines;
    st.base_line = line;
    st.line = line;
    tk_gs_push(T);
    gstate *g = GS(T);
    g->draw = cmd == CMD_DRAW || cmd == CMD_FILLDRAW;
    g->fill = cmd == CMD_FILL || cmd == CMD_FILLDRAW;
    g->drawc[0] = g->fillc[0] = 0;
    g->has_radius = g->has_start = g->has_end = g->has_delta = 0;
    g->arrows[0] = 0;
    g->decorate = 0;
    T->last_placed_ok = 0;
    size_t e0 = T->d ? T->d->nelems : 0;
    parse_path(T, &st, text, text_n);
    g = GS(T);
    if (g->decorate && !st.bad_coord && st.npieces) {
        tk_deco d;
        if (deco_or_unparsed(&st, &d, line) == 0) decorate_pieces(&st, 0, &d);
    }
    if (g->name_path && st.npieces) remember_named_path(T, &st, g->name_path);
    piece *pieces = st.b.pieces;
    size_t npieces = st.npieces < MAX_PIECES ? st.npieces : MAX_PIECES;
    if (!st.bad_coord) note_pgf_box(T, st.mbox, pieces, npieces, g->draw ? g->lw / 2 : 0);
    /* a coordinate failed: the unparsed record says what could not be
     * evaluated; drawing the rest would invent geometry (a segment to a
     * point that is not there) */
    size_t e1 = T->d ? T->d->nelems : 0;
    for (size_t i = 0; T->d && !st.bad_coord && i < npieces; i++) {
        if (cmd == CMD_CLIP) emit_clip_piece(T, &pieces[i], g->draw);
        else if (g->draw || g->fill || pieces[i].role) emit_drawn_piece(T, &pieces[i], g->draw, g->fill);
    }
    /* TikZ draws the path first, then its nodes and edges (collected while
     * the path was read): the path's elements go before theirs */
    if (T->d && cmd != CMD_CLIP) tk_elems_rotate(T->d, e0, e1);
    for (size_t i = 0; i < npieces; i++) piece_free(&pieces[i]);
    free(st.pend);
    kids_free(&st.kids);
    /* the path's buffers go back first: a pic's code runs paths of its own */
    give_back_path_buffers(T, &st, reuse);
    for (int i = 0; i < st.ndpics; i++) {
        if (!st.bad_coord) tk_pic(T, st.dpics[i].opts, st.dpics[i].body, st.dpics[i].at, st.dpics[i].line);
        free(st.dpics[i].opts);
        free(st.dpics[i].body);
    }
    free(st.dpics);
    free(let_text);
    free(let_lines);
    tk_gs_pop(T);
}
