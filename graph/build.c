/* graph/build.c — nodes and edges from a rendered SVG scene. See graph/build.h. */
#include "graph/build.h"
#include "ir/xalloc.h"
#include "ir/geom_2d.h"
#include "ir/box_index.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void graph_opts_init(graph_opts *o)
{
    o->k = 1.5;
    o->tau = 0.2;
    o->attach_tol = 8;
    o->join_tol = 1.5;
    o->label_k = 2.5;
    o->arrow_max = 25;
}

/* --- union-find ---------------------------------------------------------- */
static size_t uf_find(size_t *p, size_t x)
{
    while (p[x] != x) { p[x] = p[p[x]]; x = p[x]; }
    return x;
}

static void uf_union(size_t *p, size_t a, size_t b)
{
    a = uf_find(p, a);
    b = uf_find(p, b);
    if (a == b) return;
    if (a < b) p[b] = a; else p[a] = b;
}

/* --- shape geometry ------------------------------------------------------ */
typedef struct {
    ir_box box;
    double area;
    int region;      /* encloses an area (closed, or open and filled with area) */
    int visible;
    int home;        /* home of some text */
    int container;
    int role;
    long outer;      /* a home's outermost ring (3b), or -1 */
    long ring_of;    /* the home a ring is around (3b), or -1 */
    long decor;      /* the node outline a stroke decorates (3b), or -1 */
} shinfo;

static ir_box pts_box(const ir_pt *p, size_t n)
{
    ir_box b = ir_box_empty();
    for (size_t i = 0; i < n; i++) ir_box_add(&b, p[i].x, p[i].y);
    return b;
}

static int shape_contains(const svg_shape *s, const shinfo *si, ir_pt q)
{
    if (!ir_box_contains_pt(si->box, q)) return 0;
    if (s->axis_rect) return 1;
    return ir_pt_in_poly(q, s->pts, s->n);
}

/* 1 when the box b (a text's) lies in the shape, its corners within 1 pt
 * of it (a text's box is an estimate) */
static int text_inside(const svg_shape *s, const shinfo *si, ir_box b)
{
    if (!ir_box_inside(b, si->box, 1)) return 0;
    if (s->axis_rect) return 1;
    ir_pt c[4] = { { b.x1, b.y1 }, { b.x2, b.y1 }, { b.x2, b.y2 }, { b.x1, b.y2 } };
    for (int k = 0; k < 4; k++) {
        if (ir_pt_in_poly(c[k], s->pts, s->n)) continue;
        int near = 0;
        for (size_t i = 0; i < s->n && !near; i++)
            near = ir_pt_seg_dist(c[k], s->pts[i], s->pts[(i + 1) % s->n], NULL) <= 1;
        if (!near) return 0;
    }
    return 1;
}

/* distance from q to the node outline (0 inside) */
static double shape_dist(const svg_shape *s, const shinfo *si, ir_pt q)
{
    if (s->axis_rect) return ir_box_pt_dist(si->box, q);
    if (si->region && ir_pt_in_poly(q, s->pts, s->n)) return 0;
    double best = INFINITY;
    for (size_t i = 0; i < s->n; i++) {
        ir_pt a = s->pts[i], b = s->pts[(i + 1) % s->n];
        double d = ir_pt_seg_dist(q, a, b, NULL);
        if (d < best) best = d;
    }
    return best;
}

/* --- node candidates ----------------------------------------------------- */
typedef struct {
    long shape;          /* outline shape index or -1 (text box) */
    ir_box box;
    double area;
    size_t *texts;
    size_t ntexts;
    double size;         /* largest font size of its texts */
    unsigned seq;
    int line;
    int attached;        /* some connector end attaches */
    int label;           /* became an edge label */
    long vertex;
} cand;

/* how near q is to candidate c, for attaching ends: the distance to its
 * outline, and inside it at most tol (an end drawn into a shape attaches
 * to it, but where shapes overlap the outline the end is at wins) */
static double cand_dist(const svg_scene *sc, const shinfo *si, const cand *c, ir_pt q, double tol)
{
    if (c->shape < 0) return ir_box_pt_dist(c->box, q);
    const svg_shape *s = &sc->shapes[c->shape];
    const shinfo *h = &si[c->shape];
    if (!h->region || !shape_contains(s, h, q)) return shape_dist(s, h, q);
    double best = INFINITY;
    if (s->axis_rect) {
        best = fmin(fmin(q.x - h->box.x1, h->box.x2 - q.x), fmin(q.y - h->box.y1, h->box.y2 - q.y));
    } else {
        for (size_t i = 0; i < s->n && best > 0; i++) {
            double d = ir_pt_seg_dist(q, s->pts[i], s->pts[(i + 1) % s->n], NULL);
            if (d < best) best = d;
        }
    }
    return fmin(best, tol);
}

static ir_pt vsub(ir_pt a, ir_pt b) { ir_pt r = { a.x - b.x, a.y - b.y }; return r; }

/* a candidate's centre: the middle of its text, where it has any (a node
 * is placed by its text's centre: Graphviz, TikZ and most editors; a
 * triangle's box is not centred on it), else of its box */
static ir_pt cand_centre(const svg_scene *sc, const cand *c)
{
    ir_box b = ir_box_empty();
    for (size_t k = 0; k < c->ntexts; k++) ir_box_union(&b, sc->texts[c->texts[k]].box);
    return ir_box_center(b.empty ? c->box : b);
}

/* how straight ahead of q in direction u (a unit vector) candidate c's
 * centre lies: the cosine of the angle, 1 at the centre itself. Lines
 * between nodes are drawn from centre to centre (Graphviz, TikZ, most
 * editors), so what is left of one where nodes overlap points at both. */
#define ARROW_AIM 25.0   /* degrees: aimed at a centre this nearly (aims_at) */
static int aims_at(const svg_scene *sc, const cand *c, ir_pt q, ir_pt u)
{
    ir_pt v = vsub(cand_centre(sc, c), q);
    double l = hypot(v.x, v.y);
    return l < 1 || (u.x * v.x + u.y * v.y) / l >= cos(ARROW_AIM * IR_PI / 180);
}

/* --- connector pieces ----------------------------------------------------- */
typedef struct {
    size_t shape;
    ir_pt end[2];        /* effective ends (arrow tips when there are heads) */
    ir_pt dir[2];        /* outward directions */
    ir_pt base[2];       /* the back of an end's arrowhead (the end without one) */
    int head[2];
    int joined[2];
    long node[2];        /* attached candidate or -1 */
    size_t comp;
    int is_v;            /* small V candidate (maybe an open arrowhead) */
    int dead;            /* used as an arrowhead */
} piece;


static ir_pt unitv(ir_pt v)
{
    double l = hypot(v.x, v.y);
    ir_pt r = { 0, 0 };
    if (l > 0) { r.x = v.x / l; r.y = v.y / l; }
    return r;
}

static double polyline_len(const ir_pt *p, size_t n)
{
    double l = 0;
    for (size_t i = 1; i < n; i++) l += ir_v_dist(p[i - 1], p[i]);
    return l;
}

/* the V's three distinct points in *a, *m, *c; 1 when it is a small V */
static int small_v(const svg_shape *s, double maxlen, ir_pt *a, ir_pt *m, ir_pt *c)
{
    ir_pt q[3];
    size_t k = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (k && ir_v_dist(q[k - 1], s->pts[i]) < 1e-6) continue;
        if (k == 3) { k = 4; break; }
        q[k++] = s->pts[i];
    }
    if (k == 4) {
        /* a V of two curved arms (TikZ's default arrow tip, "to"): the
         * tip is the point farthest from the chord between the ends, a
         * corner, and the arms are not much longer than straight ones */
        ir_pt a0 = s->pts[0], c0 = s->pts[s->n - 1];
        double best = -1;
        size_t mi = 0;
        for (size_t i = 1; i + 1 < s->n; i++) {
            double d = ir_pt_seg_dist(s->pts[i], a0, c0, NULL);
            if (d > best) { best = d; mi = i; }
        }
        double chord = ir_v_dist(a0, c0);
        if (!(chord > 0) || best < 0.2 * chord) return 0;
        /* a corner at the tip, not a smooth bend (an arc is no V) */
        size_t lo = mi, hi = mi;
        while (lo > 0 && ir_v_dist(s->pts[lo], s->pts[mi]) < 1e-6) lo--;
        while (hi + 1 < s->n && ir_v_dist(s->pts[hi], s->pts[mi]) < 1e-6) hi++;
        ir_pt din = vsub(s->pts[mi], s->pts[lo]), dout = vsub(s->pts[hi], s->pts[mi]);
        if (hypot(din.x, din.y) < 1e-6 || hypot(dout.x, dout.y) < 1e-6 || !(ir_v_angle_deg(din, dout) >= 60)) return 0;
        q[0] = a0; q[1] = s->pts[mi]; q[2] = c0;
        if (polyline_len(s->pts, s->n) > 1.3 * (ir_v_dist(q[0], q[1]) + ir_v_dist(q[1], q[2]))) return 0;
        if (polyline_len(s->pts, mi + 1) > 1.3 * ir_v_dist(q[0], q[1])) return 0;
        k = 3;
    }
    if (k != 3) return 0;
    double l1 = ir_v_dist(q[0], q[1]), l2 = ir_v_dist(q[1], q[2]);
    if (l1 > maxlen || l2 > maxlen || l1 <= 0 || l2 <= 0) return 0;
    double ang = ir_v_angle_deg(vsub(q[0], q[1]), vsub(q[2], q[1]));
    if (ang < 15 || ang > 160) return 0;
    *a = q[0];
    *m = q[1];
    *c = q[2];
    return 1;
}

/* the DiagramEval merge rule for two text items: baselines within k x font
 * size and horizontal spans overlapping by more than tau of the shorter one;
 * or pieces of one line (same baseline, at most a word gap apart) */
static int texts_merge(const svg_text *a, const svg_text *b, const graph_opts *o)
{
    double dy = fabs(a->baseline - b->baseline);
    double fs = fmax(a->size, b->size);
    double w1 = ir_box_w(a->box), w2 = ir_box_w(b->box);
    double ov = fmin(a->box.x2, b->box.x2) - fmax(a->box.x1, b->box.x1);
    if (dy <= o->k * fs && dy > 0.25 * fs && fmin(w1, w2) > 0 && ov / fmin(w1, w2) > o->tau)
        return 1;
    return dy <= 0.25 * fs && ov > -0.6 * fs;
}

/* pieces of one line: same baseline, at most a word gap apart and not
 * written over each other (overlapping by at most about a letter) */
static int same_line(const svg_text *a, const svg_text *b)
{
    double fs = fmax(a->size, b->size);
    double ov = fmin(a->box.x2, b->box.x2) - fmax(a->box.x1, b->box.x1);
    return fabs(a->baseline - b->baseline) <= 0.25 * fs && ov > -0.6 * fs && ov < 0.3 * fs;
}

static int cmp_size_t_by_key(const void *a, const void *b, const double *key)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (key[x] != key[y]) return key[x] < key[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static const double *sort_key;
static int cmp_key(const void *a, const void *b) { return cmp_size_t_by_key(a, b, sort_key); }

static const svg_scene *text_sort_sc;
static int cmp_text_reading(const void *a, const void *b)
{
    const svg_text *x = &text_sort_sc->texts[*(const size_t *)a];
    const svg_text *y = &text_sort_sc->texts[*(const size_t *)b];
    double tol = 0.3 * fmin(x->size, y->size);
    if (fabs(x->baseline - y->baseline) > tol) return x->baseline > y->baseline ? -1 : 1;
    if (x->box.x1 != y->box.x1) return x->box.x1 < y->box.x1 ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static char *join_texts(const svg_scene *sc, size_t *idx, size_t n)
{
    text_sort_sc = sc;
    qsort(idx, n, sizeof *idx, cmp_text_reading);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) len += strlen(sc->texts[idx[i]].text) + 1;
    char *s = xcalloc(len + 1, 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(sc->texts[idx[i]].text);
        /* a chunk that goes on with the word of the one just before it */
        const svg_text *t = &sc->texts[idx[i]];
        int glued = i && t->glued && sc->texts[idx[i - 1]].seq + 1 == t->seq;
        if (o && !glued) s[o++] = ' ';
        memcpy(s + o, sc->texts[idx[i]].text, l);
        o += l;
    }
    s[o] = 0;
    return s;
}

static const char *shape_name(const svg_shape *s)
{
    switch (s->kind) {
    case SVG_SH_RECT: return "rect";
    case SVG_SH_CIRCLE: return "circle";
    case SVG_SH_ELLIPSE: return "ellipse";
    default: break;
    }
    if (s->n == 4) {
        int axis = 1;
        for (size_t i = 0; i < 4; i++) {
            ir_pt a = s->pts[i], b = s->pts[(i + 1) % 4];
            if (fabs(a.x - b.x) > 0.01 && fabs(a.y - b.y) > 0.01) axis = 0;
        }
        return axis ? "rect" : "diamond";
    }
    return s->kind == SVG_SH_PATH ? "path" : "polygon";
}

/* appends txt to the label of every edge of connector chain comp. The
 * edges are made chain by chain, the chains in increasing order
 * (make_edges): edge_comp never decreases, and comp's edges are the run
 * bisection finds. */
static void add_label(graph_edge *ed, size_t ned, const long *edge_comp, long comp, const char *txt)
{
    size_t lo = 0, hi = ned;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (edge_comp[mid] < comp) lo = mid + 1;
        else hi = mid;
    }
    for (size_t e = lo; e < ned && edge_comp[e] == comp; e++) {
        if (!ed[e].label) {
            ed[e].label = xstrdup(txt);
        } else {
            size_t l1 = strlen(ed[e].label), l2 = strlen(txt);
            ed[e].label = xrealloc(ed[e].label, l1 + l2 + 2);
            ed[e].label[l1] = ' ';
            memcpy(ed[e].label + l1 + 1, txt, l2 + 1);
        }
    }
}

typedef struct { double d; size_t end, sh; ir_pt tip, base, f; int attip; } ahc;

/* 1 when corner j of closed polygon p (n points, a repeated last point
 * allowed) turns against the polygon's orientation: an inner corner, as
 * the notch of a dart-shaped arrowhead */
static int reflex_corner(const ir_pt *p, size_t n, size_t j)
{
    if (n >= 2 && p[0].x == p[n - 1].x && p[0].y == p[n - 1].y) n--;
    if (n < 4 || j >= n) return 0;
    double area = 0;
    for (size_t i = 0; i < n; i++) area += p[i].x * p[(i + 1) % n].y - p[(i + 1) % n].x * p[i].y;
    ir_pt a = p[(j + n - 1) % n], b = p[j], c = p[(j + 1) % n];
    double cr = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x);
    return area * cr < 0;
}
static int cmp_ahc(const void *a, const void *b)
{
    const ahc *x = a, *y = b;
    if (x->d != y->d) return x->d < y->d ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return (x->sh > y->sh) - (x->sh < y->sh);
}

/* --- the build ------------------------------------------------------------
 * graph_build() runs the steps below in order; each reads what the steps
 * before it left in the build and adds its own part. */
typedef struct {
    const svg_scene *sc;
    const graph_opts *o;
    graph_result *out;
    size_t ns, nt;           /* shapes, texts */
    shinfo *si;              /* per shape */
    long *home;              /* per text: its home shape, or -1 */
    size_t *uf;              /* per text: union-find of its node's texts */
    size_t *sub;             /* per text: union-find of its line within a home */
    int *tlabel;             /* per text: became (part of) an edge label */
    long *title;             /* per text: 1 + the container it is in (step 3), or 0 */
    long *group_cand;        /* per text group root: its candidate */
    cand *cd;                /* node candidates: text groups first, then shapes */
    size_t ncd, ntextcand, cdcap;
    piece *pc;               /* connector pieces */
    size_t npc;
    size_t *puf;             /* per piece: union-find of its chain */
    int *arrow_cand;         /* per shape: 1 may be a closed arrowhead, 2 is one */
    graph_edge *ed;          /* edges, between candidate indices until the end */
    size_t ned, edcap;
    long *edge_comp;         /* per edge: its chain */
    size_t *chain_next;      /* per piece: the next piece of its chain, or npc */
    ir_box_index cand_ix;    /* over the candidates' boxes grown by attach_tol */
    ir_box_index conn_ix;    /* over the connector pieces' shapes' boxes */
    size_t *conn_pc;         /* conn_ix entry -> piece */
    size_t *near, nearcap;   /* an index's answer */
    struct gfacts *gf;       /* per group number (svg_shape.group): what it holds */
    unsigned long long work; /* pairs examined (spend) */
    int over;                /* past GRAPH_MAX_WORK: the steps look no further */
} build;

/* What a group (<g>: svg_shape.group) holds. Most producers draw each
 * node and each edge of a diagram in a group of its own (Graphviz,
 * draw.io, most hand-written SVG); others put the whole drawing in one
 * (PlantUML). A group that draws one object is read as one: a node's
 * holds its outline (with rings and decorations) and its text, an edge's
 * one stroke, its arrowheads and its label. */
struct gfacts {
    unsigned char regions;   /* visible regions (counted up to 255) */
    unsigned char open;      /* visible open strokes (up to 255) */
    unsigned char homes;     /* regions that are some text's home (find_homes; up to 255) */
    long chain;              /* its connector pieces' chain: -1 none, -2 several (group_chains) */
};
#define GROUP_OBJ_REGIONS 4  /* one object's regions at most: an outline and its rings */

static void count_up(unsigned char *n) { if (*n < 255) (*n)++; }

/* g draws one node: one text's home, among few regions */
static int node_group(const build *gb, unsigned g)
{
    return g && gb->gf[g].homes == 1 && gb->gf[g].regions <= GROUP_OBJ_REGIONS;
}

/* g draws at most one object: few regions, and one text's home or at
 * most one open stroke (a node, an edge, a text alone) */
static int object_group(const build *gb, unsigned g)
{
    const struct gfacts *f = &gb->gf[g];
    return g && f->regions <= GROUP_OBJ_REGIONS && (f->homes == 1 || (!f->homes && f->open <= 1));
}

/* texts drawn in two groups that each draw one object are two objects' */
static int texts_apart(const build *gb, const svg_text *a, const svg_text *b)
{
    return a->group != b->group && object_group(gb, a->group) && object_group(gb, b->group);
}

/* g draws (at most) one edge: one open stroke, no text's home (before
 * group_chains, which tells edge_group) */
static int stroke_group(const build *gb, unsigned g)
{
    return g && gb->gf[g].open == 1 && !gb->gf[g].homes && gb->gf[g].regions <= GROUP_OBJ_REGIONS;
}

/* g draws one edge: its pieces are one chain, no text's home */
static int edge_group(const build *gb, unsigned g)
{
    return g && gb->gf[g].chain >= 0 && !gb->gf[g].homes && gb->gf[g].regions <= GROUP_OBJ_REGIONS;
}

/* Counts n pairs examined; 0 once GRAPH_MAX_WORK is passed. */
static int spend(build *gb, unsigned long long n)
{
    if (gb->over) return 0;
    gb->work += n;
    if (gb->work > GRAPH_MAX_WORK) gb->over = 1;
    return !gb->over;
}

/* The indexes' answers go into gb->near (counted as work; nothing once
 * the work allowed is done). */
static size_t query(build *gb, ir_box_index *ix, ir_box q)
{
    if (gb->over) return 0;
    size_t nn = ir_box_index_query(ix, q, &gb->near, &gb->nearcap);
    return spend(gb, (unsigned long long)nn + 1) ? nn : 0;
}

/* 0. shape facts */
static void shape_facts(build *gb)
{
    const svg_scene *sc = gb->sc;
    shinfo *si = gb->si;
    size_t ns = gb->ns;
    for (size_t i = 0; i < ns; i++) {
        const svg_shape *s = &sc->shapes[i];
        si[i].box = pts_box(s->pts, s->n);
        double a = s->n >= 3 ? fabs(ir_poly_area(s->pts, s->n)) : 0;
        si[i].area = a;
        si[i].visible = s->filled || s->stroked;
        double diag = hypot(ir_box_w(si[i].box), ir_box_h(si[i].box));
        /* an outline that comes back to where it started is closed, Z or
         * not (Graphviz draws cylinders and Mrecords so) */
        int back = s->n >= 4 && ir_v_dist(s->pts[0], s->pts[s->n - 1]) <= 0.01 * fmax(diag, 1);
        si[i].region = s->n >= 3 && (s->closed || back || (s->filled && a > 0.05 * diag * diag));
        si[i].outer = si[i].ring_of = si[i].decor = -1;
        /* glyph outlines are letters: no node, connector or arrowhead
         * (held apart as markers are, reported as other shapes) */
        si[i].role = s->marker || s->glyph ? GRAPH_SH_MARKER : GRAPH_SH_OTHER;
    }
    unsigned ng = 0;
    for (size_t i = 0; i < ns; i++) if (sc->shapes[i].group > ng) ng = sc->shapes[i].group;
    for (size_t t = 0; t < gb->nt; t++) if (sc->texts[t].group > ng) ng = sc->texts[t].group;
    gb->gf = xcalloc((size_t)ng + 1, sizeof *gb->gf);
    for (size_t i = 0; i < ns; i++) {
        struct gfacts *f = &gb->gf[sc->shapes[i].group];
        f->chain = -1;
        if (si[i].role || !si[i].visible) continue;
        if (si[i].region) count_up(&f->regions);
        else if (sc->shapes[i].stroked && sc->shapes[i].n >= 2) count_up(&f->open);
    }
}

/* 1. backgrounds: a region that contains the centre of everything else */
static void mark_backgrounds(build *gb)
{
    const svg_scene *sc = gb->sc;
    shinfo *si = gb->si;
    size_t ns = gb->ns, nt = gb->nt;
    size_t nitems = 0;
    for (size_t i = 0; i < ns; i++) if (!sc->shapes[i].marker) nitems++;
    nitems += nt;
    /* every other item's centre inside a box: the box holds the box of
     * those centres (a shape's own centre lies in its grown box). A centre
     * not finite is in no box: counted apart. */
    ir_box shc = ir_box_empty(), txc = ir_box_empty();
    size_t sh_nan = 0, tx_nan = 0;
    long sh_nan_at = -1;
    for (size_t j = 0; j < ns; j++) {
        if (sc->shapes[j].marker) continue;
        ir_pt c = ir_box_center(si[j].box);
        if (!isfinite(c.x) || !isfinite(c.y)) { sh_nan++; sh_nan_at = (long)j; }
        else ir_box_add(&shc, c.x, c.y);
    }
    for (size_t j = 0; j < nt; j++) {
        ir_pt c = ir_box_center(sc->texts[j].box);
        if (!isfinite(c.x) || !isfinite(c.y)) tx_nan++;
        else ir_box_add(&txc, c.x, c.y);
    }
    for (size_t i = 0; i < ns; i++) {
        if (si[i].role || !si[i].region || nitems < 4) continue;
        /* at most one item outside: the shape itself, which is not counted */
        if (tx_nan || sh_nan > 1 || (sh_nan == 1 && sh_nan_at != (long)i)) continue;
        ir_box g = ir_box_inset(si[i].box, 0.5);
        if (!shc.empty && !(ir_box_contains_pt(g, ir_v(shc.x1, shc.y1)) &&
                            ir_box_contains_pt(g, ir_v(shc.x2, shc.y2))))
            continue;
        if (!txc.empty && !(ir_box_contains_pt(si[i].box, ir_v(txc.x1, txc.y1)) &&
                            ir_box_contains_pt(si[i].box, ir_v(txc.x2, txc.y2))))
            continue;
        si[i].role = GRAPH_SH_BACKGROUND;
    }
}

/* 1b. boxes painted in the page's colour with no outline (a label's white
 * backing box beside its line) cannot be seen: no text's home. The page's
 * colour is a filled background's, else white. */
static int paint_is_white(const char *c)
{
    if (!c) return 0;
    char b[32];
    size_t k = 0;
    for (const char *p = c; *p && k + 1 < sizeof b; p++)
        if (*p != ' ') b[k++] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    b[k] = 0;
    return !strcmp(b, "white") || !strcmp(b, "#fff") || !strcmp(b, "#ffffff") ||
           !strcmp(b, "rgb(255,255,255)");
}

static void mark_unseen_boxes(build *gb)
{
    const svg_scene *sc = gb->sc;
    shinfo *si = gb->si;
    const char *page = NULL;
    for (size_t i = 0; i < gb->ns && !page; i++)
        if (si[i].role == GRAPH_SH_BACKGROUND && sc->shapes[i].filled) page = sc->shapes[i].fill;
    for (size_t i = 0; i < gb->ns; i++) {
        const svg_shape *s = &sc->shapes[i];
        if (si[i].role || s->stroked || !s->filled) continue;
        if (page ? !strcmp(s->fill, page) || (paint_is_white(s->fill) && paint_is_white(page))
                 : paint_is_white(s->fill))
            si[i].visible = 0;
    }
}

/* 1 when box b (less 1 pt all round) lies in region s: its corners do */
static int box_in_shape(const svg_shape *s, const shinfo *si, ir_box b)
{
    ir_box in = ir_box_inset(b, -1);
    return shape_contains(s, si, ir_v(in.x1, in.y1)) && shape_contains(s, si, ir_v(in.x2, in.y1)) &&
           shape_contains(s, si, ir_v(in.x1, in.y2)) && shape_contains(s, si, ir_v(in.x2, in.y2));
}

/* 2. home shape of each text: the smallest region around its centre;
 * 3. containers (homes that contain another home) are no text's home */
static void find_homes(build *gb)
{
    const svg_scene *sc = gb->sc;
    shinfo *si = gb->si;
    size_t ns = gb->ns, nt = gb->nt;
    long *home = gb->home = xcalloc(nt, sizeof *home);
    /* the regions a text's centre may lie in: an index over their boxes
     * (the others' boxes empty: in none), answers in shape order */
    ir_box *b = xcalloc(ns + 1, sizeof *b);
    for (size_t i = 0; i < ns; i++) {
        b[i] = si[i].box;
        if (si[i].role || !si[i].region || !si[i].visible) b[i] = ir_box_empty();
    }
    ir_box_index ix;
    ir_box_index_build(&ix, b, ns);
    for (size_t t = 0; t < nt; t++) {
        const svg_text *tx = &sc->texts[t];
        ir_pt c = ir_box_center(tx->box);
        double ta = ir_box_area(tx->box);
        long best = -1;
        int bestwhole = 0, bestown = 0;
        size_t nn = query(gb, &ix, ir_box_make(c.x, c.y, c.x, c.y));
        for (size_t q = 0; q < nn; q++) {
            size_t i = gb->near[q];
            if (si[i].role || !si[i].region || !si[i].visible) continue;
            if (si[i].area < 0.3 * ta) continue;
            if (!shape_contains(&sc->shapes[i], &si[i], c)) continue;
            /* the smallest; but where shapes overlap (neither inside the
             * other), the one the whole text is in */
            int whole = text_inside(&sc->shapes[i], &si[i], tx->box);
            /* the outline drawn in the text's own group (one object's)
             * is its node's, whatever else overlaps it; a text in the
             * group of one stroke and no outline of its own around it is
             * that stroke's label, not the text of a node it is written
             * over */
            unsigned tg = tx->group;
            int own = tg && sc->shapes[i].group == tg && gb->gf[tg].regions <= GROUP_OBJ_REGIONS;
            if (!own && tg && gb->gf[tg].open == 1 && gb->gf[tg].regions <= GROUP_OBJ_REGIONS) continue;
            if (best >= 0 && own != bestown) {
                if (!own) continue;
            } else if (best >= 0) {
                int nested = ir_box_inside(si[i].box, si[best].box, 0.5) || ir_box_inside(si[best].box, si[i].box, 0.5);
                if (nested || whole == bestwhole) {
                    if (si[i].area >= si[best].area) continue;
                } else if (whole < bestwhole) {
                    continue;
                }
            }
            best = (long)i;
            bestwhole = whole;
            bestown = own;
        }
        home[t] = best;
        if (best >= 0) {
            if (!si[best].home) count_up(&gb->gf[sc->shapes[best].group].homes);
            si[best].home = 1;
        }
    }
    ir_box_index_free(&ix);
    /* 3. containers: homes that contain another home (the homes' centres
     * in an index) */
    for (size_t i = 0; i < ns; i++) {
        ir_pt c = ir_box_center(si[i].box);
        b[i] = si[i].home ? ir_box_make(c.x, c.y, c.x, c.y) : ir_box_empty();
    }
    ir_box_index_build(&ix, b, ns);
    free(b);
    for (size_t i = 0; i < ns; i++) {
        if (!si[i].home) continue;
        size_t nn = query(gb, &ix, si[i].box);
        for (size_t q = 0; q < nn && !si[i].container; q++) {
            size_t j = gb->near[q];
            if (j != i && si[j].home && si[j].area < si[i].area &&
                shape_contains(&sc->shapes[i], &si[i], ir_box_center(si[j].box)) &&
                box_in_shape(&sc->shapes[i], &si[i], si[j].box))
                si[i].container = 1;
        }
    }
    ir_box_index_free(&ix);
    /* a container's text is its title (a labelled group or cluster): a
     * node of its own, never an edge's label */
    gb->title = xcalloc(nt + 1, sizeof *gb->title);
    for (size_t t = 0; t < nt; t++)
        if (home[t] >= 0 && si[home[t]].container) { gb->title[t] = home[t] + 1; home[t] = -1; }
}

/* the largest distance from a point of a to the outline of b (at most
 * lim + 1: it stops looking past lim) */
static double outline_gap(build *gb, const svg_shape *a, const svg_shape *b, double lim)
{
    double worst = 0;
    if (!spend(gb, (unsigned long long)a->n * b->n + 1)) return INFINITY;
    for (size_t i = 0; i < a->n && worst <= lim; i++) {
        double best = INFINITY;
        for (size_t j = 0; j < b->n && best > worst; j++) {
            double d = ir_pt_seg_dist(a->pts[i], b->pts[j], b->pts[(j + 1) % b->n], NULL);
            if (d < best) best = d;
        }
        if (best > worst) worst = best;
    }
    return worst;
}

#define LABEL_MID_W 0.25 /* a label's distance to its connector's middle counts a quarter */
#define BOX_TOL 2.0      /* pt: an end attaches to a shape's box this close when to no outline */
#define RING_GAP 6.0     /* pt: outlines this close all round are one node's rings */
#define JOIN_AT_NODE 2.0  /* pt: piece ends meeting this near a node are at the node */
#define DECOR_TOL 1.0    /* pt: a decoration may reach this far out of its outline */

/* distance from q to the outline itself (inside or out) */
static double outline_dist(const svg_shape *s, const shinfo *si, ir_pt q)
{
    if (s->axis_rect && si->region && ir_box_contains_pt(si->box, q))
        return fmin(fmin(q.x - si->box.x1, si->box.x2 - q.x), fmin(q.y - si->box.y1, si->box.y2 - q.y));
    double best = INFINITY;
    for (size_t i = 0; i < s->n; i++) best = fmin(best, ir_pt_seg_dist(q, s->pts[i], s->pts[(i + 1) % s->n], NULL));
    return best;
}

/* 3b. a frame's own strokes: open strokes inside a frame (a container)
 * that meet one another end to end and whose other ends all lie on the
 * frame's outline (the line under a folder's or package's tab, the front
 * edges of a 3D box) are part of the frame's drawing, not connectors (a
 * connector between nodes in the frame ends at those nodes). */
static void frame_decorations(build *gb, ir_box_index *ix)
{
    const svg_scene *sc = gb->sc;
    shinfo *si = gb->si;
    size_t ns = gb->ns;
    long *frame = xcalloc(ns + 1, sizeof *frame);
    size_t *uf = xcalloc(ns + 1, sizeof *uf);
    size_t *list = xcalloc(ns + 1, sizeof *list);
    size_t nl = 0;
    for (size_t i = 0; i < ns; i++) {
        uf[i] = i;
        frame[i] = -1;
        const svg_shape *s = &sc->shapes[i];
        if (si[i].role || si[i].region || si[i].decor >= 0 || !s->stroked || s->n < 2 || s->marker) continue;
        size_t nn = query(gb, ix, si[i].box);
        for (size_t q = 0; q < nn; q++) {
            size_t r = gb->near[q];
            if (!si[r].container || !ir_box_inside(si[i].box, si[r].box, DECOR_TOL)) continue;
            if (frame[i] >= 0 && si[r].area >= si[frame[i]].area) continue;
            if (!spend(gb, (unsigned long long)s->n * sc->shapes[r].n + 1)) break;
            int inside = 1;
            for (size_t k = 0; k < s->n && inside; k++) inside = shape_dist(&sc->shapes[r], &si[r], s->pts[k]) <= DECOR_TOL;
            if (inside) frame[i] = (long)r;
        }
        if (frame[i] >= 0) list[nl++] = i;
    }
    /* strokes of one frame meeting end to end: one group */
    for (size_t a = 0; a < nl; a++)
        for (size_t b = a + 1; b < nl && spend(gb, 1); b++) {
            size_t i = list[a], j = list[b];
            if (frame[i] != frame[j]) continue;
            const svg_shape *s = &sc->shapes[i], *t = &sc->shapes[j];
            ir_pt e1[2] = { s->pts[0], s->pts[s->n - 1] }, e2[2] = { t->pts[0], t->pts[t->n - 1] };
            for (int x = 0; x < 4; x++)
                if (ir_v_dist(e1[x / 2], e2[x % 2]) <= gb->o->join_tol) uf_union(uf, i, j);
        }
    /* a group fails when an end meets no other stroke of it and is not on
     * the frame's outline, or touches another closed outline */
    int *bad = xcalloc(ns + 1, sizeof *bad);
    for (size_t a = 0; a < nl; a++) {
        size_t i = list[a];
        const svg_shape *s = &sc->shapes[i];
        for (int e = 0; e < 2; e++) {
            ir_pt p = s->pts[e ? s->n - 1 : 0];
            int met = 0;
            for (size_t b = 0; b < nl && !met && spend(gb, 1); b++) {
                size_t j = list[b];
                if (j == i || uf_find(uf, j) != uf_find(uf, i)) continue;
                const svg_shape *t = &sc->shapes[j];
                met = ir_v_dist(p, t->pts[0]) <= gb->o->join_tol || ir_v_dist(p, t->pts[t->n - 1]) <= gb->o->join_tol;
            }
            if (!met && outline_dist(&sc->shapes[frame[i]], &si[frame[i]], p) > DECOR_TOL) bad[uf_find(uf, i)] = 1;
            size_t nn = query(gb, ix, ir_box_inset(ir_box_make(p.x, p.y, p.x, p.y), DECOR_TOL));
            for (size_t q = 0; q < nn; q++) {
                size_t r = gb->near[q];
                if ((long)r == frame[i]) continue;
                if (shape_dist(&sc->shapes[r], &si[r], p) <= DECOR_TOL) bad[uf_find(uf, i)] = 1;
            }
        }
    }
    for (size_t a = 0; a < nl; a++)
        if (!bad[uf_find(uf, list[a])]) si[list[a]].decor = frame[list[a]];
    free(bad);
    free(frame);
    free(uf);
    free(list);
}

/* 3b. a node's tabs: a textless painted closed shape that straddles a
 * home's outline (some corner inside it, some outside, none far from
 * it) and that no arrowhead could be (a rectangle, an ellipse, more than
 * 8 corners or larger than --arrow-max: UML's component tabs, a port
 * drawn on a box's side) is part of the node's drawing: never a node of
 * its own, and the ends that touch it attach to the node. */
static void closed_decorations(build *gb, ir_box_index *ix)
{
    const svg_scene *sc = gb->sc;
    shinfo *si = gb->si;
    for (size_t i = 0; i < gb->ns; i++) {
        const svg_shape *s = &sc->shapes[i];
        if (si[i].role || !si[i].region || !si[i].visible || si[i].home || si[i].ring_of >= 0 || si[i].decor >= 0)
            continue;
        int arrowish = !s->ellipse && !s->axis_rect && s->n <= 8 &&
                       hypot(ir_box_w(si[i].box), ir_box_h(si[i].box)) <= gb->o->arrow_max;
        if (arrowish) continue;
        long host = -1;
        size_t nn = query(gb, ix, si[i].box);
        for (size_t q = 0; q < nn; q++) {
            size_t r = gb->near[q];
            if (r == i || !si[r].home || si[r].container || si[r].area < 4 * si[i].area) continue;
            if (!ir_box_inside(si[i].box, si[r].box, 0.5 * fmax(ir_box_w(si[i].box), ir_box_h(si[i].box)))) continue;
            if (!spend(gb, (unsigned long long)s->n * sc->shapes[r].n + 1)) break;
            int in = 0, out = 0;
            for (size_t k = 0; k < s->n; k++) {
                if (shape_contains(&sc->shapes[r], &si[r], s->pts[k])) in++;
                else if (shape_dist(&sc->shapes[r], &si[r], s->pts[k]) > 0.5) out++;
            }
            if (in && out && (host < 0 || si[r].area < si[host].area)) host = (long)r;
        }
        if (host >= 0) si[i].decor = host;
    }
}

/* 3b. one node, many strokes. Rings: a painted closed outline around a
 * home (a closed outline some text is in), within RING_GAP of it all round (and it of the outline), is that
 * node's outer ring (Graphviz peripheries: doublecircle, doubleoctagon,
 * tripleoctagon); edges end at the outermost ring. Decorations: an open
 * stroke that lies inside a home (within DECOR_TOL of its outline) and
 * whose ends touch no other closed outline (on it or in it) (record field
 * separators, the fold of a note, the lid of a cylinder, the corners of
 * Msquare, the depth of box3d) is part of the smallest such home's
 * drawing, not a connector: it could only join the node to itself. */
static void node_outlines(build *gb)
{
    const svg_scene *sc = gb->sc;
    shinfo *si = gb->si;
    size_t ns = gb->ns;
    ir_box *b = xcalloc(ns + 1, sizeof *b);
    for (size_t i = 0; i < ns; i++)
        b[i] = si[i].role || !si[i].region || !si[i].visible ? ir_box_empty() : si[i].box;
    ir_box_index ix;
    ir_box_index_build(&ix, b, ns);
    free(b);
    /* rings, from each home outwards */
    for (size_t h = 0; h < ns; h++) {
        if (!si[h].home || si[h].container || si[h].role) continue;
        size_t cur = h;
        for (;;) {
            long best = -1;
            size_t nn = query(gb, &ix, ir_box_inset(si[cur].box, RING_GAP));
            for (size_t q = 0; q < nn; q++) {
                size_t r = gb->near[q];
                if (r == cur || si[r].home || si[r].ring_of >= 0 || si[r].area <= si[cur].area) continue;
                if (!ir_box_inside(si[cur].box, si[r].box, 0) || !ir_box_inside(si[r].box, ir_box_inset(si[cur].box, RING_GAP), 0))
                    continue;
                if (best >= 0 && si[r].area >= si[best].area) continue;
                if (outline_gap(gb, &sc->shapes[r], &sc->shapes[cur], RING_GAP) > RING_GAP ||
                    outline_gap(gb, &sc->shapes[cur], &sc->shapes[r], RING_GAP) > RING_GAP)
                    continue;
                best = (long)r;
            }
            if (best < 0) break;
            si[best].ring_of = (long)h;   /* a ring of h: no candidate of its own */
            si[h].outer = best;
            cur = (size_t)best;
        }
    }
    /* decorations */
    for (size_t i = 0; i < ns; i++) {
        const svg_shape *s = &sc->shapes[i];
        if (si[i].role || si[i].region || !s->stroked || s->n < 2 || s->marker) continue;
        long host = -1;
        size_t nn = query(gb, &ix, si[i].box);
        for (size_t q = 0; q < nn; q++) {
            size_t r = gb->near[q];
            if (r == i || !si[r].home || si[r].container) continue;
            if (!ir_box_inside(si[i].box, si[r].box, DECOR_TOL)) continue;
            if (host >= 0 && si[r].area >= si[host].area) continue;
            if (!spend(gb, (unsigned long long)s->n * sc->shapes[r].n + 1)) break;
            int inside = 1;
            for (size_t k = 0; k < s->n && inside; k++)
                inside = shape_dist(&sc->shapes[r], &si[r], s->pts[k]) <= DECOR_TOL;
            if (inside) host = (long)r;
        }
        if (host < 0) continue;
        /* an end at another outline (in or on it): a connector between
         * things inside the host (nodes in a cluster's frame, nodes that
         * overlap: the end at the other node lies off the host's
         * outline); not the end on the host's outline of a stroke whose
         * other end lies inside (a note's fold, whose corner another
         * node's outline may touch) */
        const svg_shape *hs = &sc->shapes[host];
        int on[2];
        for (int e = 0; e < 2; e++) on[e] = outline_dist(hs, &si[host], s->pts[e ? s->n - 1 : 0]) <= DECOR_TOL;
        int touches = 0;
        for (int e = 0; e < 2 && !touches; e++) {
            ir_pt p = s->pts[e ? s->n - 1 : 0];
            if (on[e] && !on[1 - e]) continue;
            nn = query(gb, &ix, ir_box_inset(ir_box_make(p.x, p.y, p.x, p.y), DECOR_TOL));
            for (size_t q = 0; q < nn && !touches; q++) {
                size_t r = gb->near[q];
                if ((long)r == host || si[r].ring_of == host) continue;
                touches = shape_dist(&sc->shapes[r], &si[r], p) <= DECOR_TOL;
            }
        }
        /* drawn in the host's own group, it is the host's, touching or not */
        if (!touches || (s->group == hs->group && node_group(gb, s->group))) si[i].decor = host;
    }
    closed_decorations(gb, &ix);
    frame_decorations(gb, &ix);
    ir_box_index_free(&ix);
}

/* 4. text groups: the texts of one home are one node, and within it, its
 * lines (pieces of one line joined) are kept apart for step 10b */
static void group_home_texts(build *gb)
{
    const svg_scene *sc = gb->sc;
    size_t ns = gb->ns, nt = gb->nt;
    const long *home = gb->home;
    size_t *uf = gb->uf, *sub = gb->sub;
    long *first = xcalloc(ns, sizeof *first);
    long *nexth = xcalloc(nt, sizeof *nexth);
    for (size_t i = 0; i < ns; i++) first[i] = -1;
    for (size_t t = nt; t-- > 0;) {
        if (home[t] < 0) continue;
        nexth[t] = first[home[t]];
        first[home[t]] = (long)t;
    }
    for (size_t t = 0; t < nt; t++) {
        if (home[t] < 0 || first[home[t]] != (long)t) continue;
        for (long a = (long)t; a >= 0; a = nexth[a]) {
            if (a != (long)t) uf_union(uf, t, (size_t)a);
            for (long c = nexth[a]; c >= 0 && spend(gb, 1); c = nexth[c])
                if (same_line(&sc->texts[a], &sc->texts[c])) uf_union(sub, (size_t)a, (size_t)c);
        }
    }
    free(first);
    free(nexth);
}

/* 4. text groups: free texts merge by the DiagramEval rule, in baseline order */
static void group_free_texts(build *gb)
{
    const svg_scene *sc = gb->sc;
    const graph_opts *o = gb->o;
    size_t nt = gb->nt;
    const long *home = gb->home;
    size_t *uf = gb->uf;
    size_t nf = 0;
    size_t *fr = xcalloc(nt, sizeof *fr);
    double *key = xcalloc(nt, sizeof *key);
    for (size_t t = 0; t < nt; t++) {
        key[t] = -sc->texts[t].baseline;
        if (home[t] < 0) fr[nf++] = t;
    }
    sort_key = key;
    qsort(fr, nf, sizeof *fr, cmp_key);
    double maxsize = 0;
    for (size_t i = 0; i < nf; i++) maxsize = fmax(maxsize, sc->texts[fr[i]].size);
    /* Two texts merge only when their baselines are within k x maxsize and
     * (with tau >= 0) their spans within 0.6 maxsize across: an index over
     * (span, baseline) finds those pairs, each a union; the groups (the
     * components) do not depend on the order of the unions. */
    double gx = 0.6 * maxsize, gy = o->k * maxsize;
    if (o->tau >= 0 && gx >= 0 && gy >= 0 && isfinite(gx) && isfinite(gy)) {
        ir_box *b = xcalloc(nf + 1, sizeof *b);
        for (size_t i = 0; i < nf; i++) {
            const svg_text *a = &sc->texts[fr[i]];
            b[i] = ir_box_make(a->box.x1, a->baseline, a->box.x2, a->baseline);
        }
        ir_box_index ix;
        ir_box_index_build(&ix, b, nf);
        size_t *near = NULL, cap = 0;
        for (size_t i = 0; i < nf; i++) {
            const svg_text *a = &sc->texts[fr[i]];
            ir_box q = b[i];
            q.x1 -= gx; q.x2 += gx; q.y1 -= gy; q.y2 += gy;
            size_t nn = ir_box_index_query(&ix, q, &near, &cap);
            if (!spend(gb, (unsigned long long)nn + 1)) break;
            for (size_t k = 0; k < nn; k++) {
                size_t j = near[k];
                if (j <= i) continue;
                const svg_text *c = &sc->texts[fr[j]];
                if (fabs(a->baseline - c->baseline) > o->k * maxsize) continue;
                /* a frame's text (its title, or an edge's label drawn in
                 * it) joins no other text but pieces of its line */
                if ((gb->title[fr[i]] || gb->title[fr[j]]) && (gb->title[fr[i]] != gb->title[fr[j]] || !same_line(a, c)))
                    continue;
                if (texts_merge(a, c, o) && !texts_apart(gb, a, c)) uf_union(uf, fr[i], fr[j]);
            }
        }
        free(near);
        ir_box_index_free(&ix);
        free(b);
        free(fr);
        free(key);
        return;
    }
    for (size_t i = 0; i < nf; i++) {
        const svg_text *a = &sc->texts[fr[i]];
        for (size_t j = i + 1; j < nf; j++) {
            const svg_text *b = &sc->texts[fr[j]];
            double dy = fabs(a->baseline - b->baseline);
            if (dy > o->k * maxsize || !spend(gb, 1)) break;
            if ((gb->title[fr[i]] || gb->title[fr[j]]) && (gb->title[fr[i]] != gb->title[fr[j]] || !same_line(a, b)))
                continue;
            if (texts_merge(a, b, o) && !texts_apart(gb, a, b)) uf_union(uf, fr[i], fr[j]);
        }
    }
    free(fr);
    free(key);
}

/* candidates from text groups, in document order */
static void text_candidates(build *gb)
{
    const svg_scene *sc = gb->sc;
    shinfo *si = gb->si;
    size_t nt = gb->nt;
    cand *cd = NULL;
    size_t ncd = 0, cap = 0;
    long *group_cand = gb->group_cand = xcalloc(nt, sizeof *group_cand);
    size_t *tcap = xcalloc(nt + 1, sizeof *tcap);   /* per candidate: room in texts */
    for (size_t t = 0; t < nt; t++) group_cand[t] = -1;
    for (size_t t = 0; t < nt; t++) {
        size_t r = uf_find(gb->uf, t);
        if (group_cand[r] < 0) {
            if (ncd >= cap) {
                cap = cap ? 2 * cap : 16;
                cd = xrealloc(cd, cap * sizeof *cd);
            }
            memset(&cd[ncd], 0, sizeof *cd);
            cd[ncd].shape = -1;
            cd[ncd].box = ir_box_empty();
            cd[ncd].seq = sc->texts[t].seq;
            cd[ncd].line = sc->texts[t].line;
            cd[ncd].vertex = -1;
            group_cand[r] = (long)ncd++;
        }
        cand *c = &cd[group_cand[r]];
        size_t *tc = &tcap[group_cand[r]];
        if (c->ntexts >= *tc) {
            *tc = *tc ? 2 * *tc : 4;
            c->texts = xrealloc(c->texts, *tc * sizeof *c->texts);
        }
        c->texts[c->ntexts++] = t;
        ir_box_union(&c->box, sc->texts[t].box);
        c->size = fmax(c->size, sc->texts[t].size);
        if (gb->home[t] >= 0) c->shape = gb->home[t];
    }
    for (size_t i = 0; i < ncd; i++) {
        if (cd[i].shape >= 0) {
            /* the node's outline is its outermost ring */
            if (si[cd[i].shape].outer >= 0) cd[i].shape = si[cd[i].shape].outer;
            cd[i].box = si[cd[i].shape].box;
            cd[i].area = si[cd[i].shape].area;
            gb->out->shape_role[cd[i].shape] = GRAPH_SH_NODE;
            si[cd[i].shape].role = GRAPH_SH_NODE;
        } else {
            cd[i].area = ir_box_area(cd[i].box);
        }
    }
    for (size_t r = 0; r < gb->ns; r++)
        if (si[r].ring_of >= 0) { si[r].role = GRAPH_SH_NODE; gb->out->shape_role[r] = GRAPH_SH_NODE; }
    free(tcap);
    gb->cd = cd;
    gb->ncd = gb->ntextcand = ncd;
    gb->cdcap = cap;
}

/* 5. connector pieces (open stroked lines, V's among them) */
static void find_pieces(build *gb)
{
    const svg_scene *sc = gb->sc;
    const graph_opts *o = gb->o;
    const shinfo *si = gb->si;
    size_t ns = gb->ns;
    piece *pc = NULL;
    size_t npc = 0, cap = 0;
    for (size_t i = 0; i < ns; i++) {
        const svg_shape *s = &sc->shapes[i];
        if (si[i].role || si[i].region || si[i].decor >= 0 || !s->stroked || s->n < 2) continue;
        /* a speck is no stroke, unless drawn as an edge of its own (what
         * is left of one between nodes that overlap) */
        double len = polyline_len(s->pts, s->n);
        if (len < 0.05 && !(len > 0 && stroke_group(gb, s->group))) continue;
        if (npc >= cap) {
            cap = cap ? 2 * cap : 16;
            pc = xrealloc(pc, cap * sizeof *pc);
        }
        piece *p = &pc[npc++];
        memset(p, 0, sizeof *p);
        p->shape = i;
        p->end[0] = s->pts[0];
        p->end[1] = s->pts[s->n - 1];
        p->base[0] = p->end[0];
        p->base[1] = p->end[1];
        p->dir[0] = s->dir_start;
        p->dir[1] = s->dir_end;
        p->node[0] = p->node[1] = -1;
        ir_pt a, m, c;
        p->is_v = !s->arrow_start && !s->arrow_end && small_v(s, o->arrow_max, &a, &m, &c);
        if (s->arrow_start) { p->head[0] = 1; if (s->tip_start_set) p->end[0] = s->tip_start; }
        if (s->arrow_end) { p->head[1] = 1; if (s->tip_end_set) p->end[1] = s->tip_end; }
    }
    gb->pc = pc;
    gb->npc = npc;
}

/* 1 when s is a triangle (closed or coming back to its start) with one
 * side clearly the shortest, and the vertex across from it in *apex */
static int tri_apex(const svg_shape *s, ir_pt *apex)
{
    size_t n = s->n;
    if (n == 4 && ir_v_dist(s->pts[0], s->pts[3]) < 1e-6) n = 3;
    if (n != 3) return 0;
    double l[3];
    for (int k = 0; k < 3; k++) l[k] = ir_v_dist(s->pts[k], s->pts[(k + 1) % 3]);
    int m = l[0] < l[1] ? (l[0] < l[2] ? 0 : 2) : (l[1] < l[2] ? 1 : 2);
    for (int k = 0; k < 3; k++)
        if (k != m && l[m] > 0.85 * l[k]) return 0;
    *apex = s->pts[(m + 2) % 3];
    return 1;
}

/* 5. closed arrowheads: every (end, polygon) pair that fits, assigned one
 * to one, nearest first (ends of different edges meet at a node) */
static void closed_arrowheads(build *gb)
{
    const svg_scene *sc = gb->sc;
    const graph_opts *o = gb->o;
    const shinfo *si = gb->si;
    size_t ns = gb->ns, npc = gb->npc;
    piece *pc = gb->pc;
    int *arrow_cand = gb->arrow_cand = xcalloc(ns, sizeof *arrow_cand);
    for (size_t i = 0; i < ns; i++) {
        const svg_shape *s = &sc->shapes[i];
        if (si[i].role || !si[i].region || si[i].home || s->ellipse || s->axis_rect) continue;
        if (s->n > 8 || hypot(ir_box_w(si[i].box), ir_box_h(si[i].box)) > o->arrow_max) continue;
        arrow_cand[i] = 1;
    }
    ahc *cs = NULL;
    size_t ncs = 0, cscap = 0;
    /* the arrowhead candidates near an end: an index over their boxes */
    ir_box *b = xcalloc(ns + 1, sizeof *b);
    for (size_t i = 0; i < ns; i++) b[i] = arrow_cand[i] ? si[i].box : ir_box_empty();
    ir_box_index ix;
    ir_box_index_build(&ix, b, ns);
    free(b);
    for (size_t pi = 0; pi < npc; pi++)
        for (int e = 0; e < 2; e++) {
            piece *p = &pc[pi];
            if (p->head[e]) continue;
            ir_pt q = p->end[e], pu = p->dir[e];
            /* an edge drawn in a group of its own has its own heads; a
             * speck of one (what is left of it under its head where nodes
             * overlap) has no direction to tell but which way it goes */
            const svg_shape *ps = &sc->shapes[p->shape];
            unsigned pg = ps->group;
            int own = stroke_group(gb, pg), speck = own && polyline_len(ps->pts, ps->n) < 1;
            size_t nn = query(gb, &ix, ir_box_inset(ir_box_make(q.x, q.y, q.x, q.y), 1.5));
            for (size_t qq = 0; qq < nn; qq++) {
                size_t i = gb->near[qq];
                if (!arrow_cand[i]) continue;
                if (ir_box_pt_dist(si[i].box, q) > 1.5) continue;
                const svg_shape *s = &sc->shapes[i];
                if (s->group != pg && (own || stroke_group(gb, s->group))) continue;
                double d = ir_pt_in_poly(q, s->pts, s->n) ? 0 : shape_dist(s, &si[i], q);
                if (d > 1.5) continue;
                ir_pt c = ir_poly_centroid(s->pts, s->n);
                double bestp = -INFINITY;
                ir_pt f = c;
                /* a speck's direction: the apex of the head in its group */
                ir_pt apex, u = pu;
                if (speck && s->group == pg && tri_apex(s, &apex) && ir_v_dot(vsub(apex, c), pu) > 0)
                    u = unitv(vsub(apex, c));
                for (size_t j = 0; j < s->n; j++) {
                    double pr = ir_v_dot(vsub(s->pts[j], c), u);
                    if (pr > bestp) { bestp = pr; f = s->pts[j]; }
                }
                if (ir_v_dot(unitv(vsub(f, c)), u) < 0.7) continue;
                /* a triangle with a short base points its apex: the
                 * piece goes on beyond the base, not from a side (a stub
                 * shorter than its arrowhead has it at both ends) */
                if (tri_apex(s, &apex) && ir_v_dist(apex, f) > 1e-9) continue;
                ir_pt bm = { 0, 0 };
                size_t nb = 0;
                for (size_t j = 0; j < s->n; j++)
                    if (s->pts[j].x != f.x || s->pts[j].y != f.y) { bm.x += s->pts[j].x; bm.y += s->pts[j].y; nb++; }
                if (nb) { bm.x /= (double)nb; bm.y /= (double)nb; }
                if (ncs >= cscap) {
                    cscap = cscap ? 2 * cscap : 16;
                    cs = xrealloc(cs, cscap * sizeof *cs);
                }
                /* the end sits at the middle of the base (Graphviz), at an
                 * inner corner of the head (a dart's notch) or at the tip */
                double dbase = ir_v_dist(q, bm);
                for (size_t j = 0; j < s->n; j++)   /* a notch: an inner (reflex) corner */
                    if (reflex_corner(s->pts, s->n, j)) dbase = fmin(dbase, ir_v_dist(q, s->pts[j]));
                double dtip = ir_v_dist(q, f);
                cs[ncs].d = d + fmin(dbase, dtip);
                cs[ncs].attip = dtip < dbase;
                cs[ncs].f = f;
                cs[ncs].end = 2 * pi + (size_t)e;
                cs[ncs].sh = i;
                cs[ncs].tip = ir_v_dot(vsub(f, q), u) > 0 ? f : q;
                cs[ncs].base = bm;
                ncs++;
            }
        }
    ir_box_index_free(&ix);
    /* an end nearer a polygon's tip than its base (a line drawn up to the
     * tip) comes after an end at the base of the same polygon: where an
     * edge leaves a node at the point another's arrow points to, the head
     * is the arriving edge's */
    /* (the same tip: an end that takes another corner for the tip points
     * elsewhere) */
    ir_pt *basetip = xcalloc(ns + 1, sizeof *basetip);
    for (size_t a = 0; a < ncs; a++)
        if (!cs[a].attip) { arrow_cand[cs[a].sh] |= 4; basetip[cs[a].sh] = cs[a].f; }
    for (size_t a = 0; a < ncs; a++)
        if (cs[a].attip && (arrow_cand[cs[a].sh] & 4) && ir_v_dist(basetip[cs[a].sh], cs[a].f) < 1e-9) cs[a].d += 1;
    for (size_t i = 0; i < ns; i++) arrow_cand[i] &= 3;
    free(basetip);
    /* nearest first; ties in document order */
    if (ncs) qsort(cs, ncs, sizeof *cs, cmp_ahc);
    for (size_t a = 0; a < ncs; a++) {
        piece *p = &pc[cs[a].end / 2];
        int e = (int)(cs[a].end % 2);
        if (p->head[e] || arrow_cand[cs[a].sh] != 1) continue;
        p->head[e] = 1;
        p->end[e] = cs[a].tip;
        p->base[e] = cs[a].base;
        arrow_cand[cs[a].sh] = 2;
    }
    free(cs);
}

/* 5. open arrowheads: small V's at a piece's end, in two passes: ordinary
 * pieces first, then V's that are not arrowheads */
static void open_arrowheads(build *gb)
{
    const svg_scene *sc = gb->sc;
    const graph_opts *o = gb->o;
    size_t npc = gb->npc;
    piece *pc = gb->pc;
    /* the V's whose tip or triangle may hold an end: an index over their
     * triangles' boxes grown by 2 (V's only ever stop being V's) */
    ir_box *b = xcalloc(npc + 1, sizeof *b);
    for (size_t vj = 0; vj < npc; vj++) {
        ir_pt a, m, c;
        b[vj] = ir_box_empty();
        if (!pc[vj].is_v || !small_v(&sc->shapes[pc[vj].shape], o->arrow_max, &a, &m, &c)) continue;
        b[vj] = ir_box_make(a.x, a.y, a.x, a.y);
        ir_box_add(&b[vj], m.x, m.y);
        ir_box_add(&b[vj], c.x, c.y);
        b[vj] = ir_box_inset(b[vj], 2);
    }
    ir_box_index ix;
    ir_box_index_build(&ix, b, npc);
    free(b);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t pi = 0; pi < npc; pi++) {
            piece *p = &pc[pi];
            if (p->dead || (pass == 0) == (p->is_v != 0)) continue;
            if (pass == 1 && p->is_v) p->is_v = 0;
            for (int e = 0; e < 2; e++) {
                if (p->head[e]) continue;
                ir_pt q = p->end[e], u = p->dir[e];
                /* an open V whose tip is at the end */
                size_t nn = query(gb, &ix, ir_box_make(q.x, q.y, q.x, q.y));
                for (size_t qq = 0; qq < nn; qq++) {
                    size_t vj = gb->near[qq];
                    piece *v = &pc[vj];
                    if (vj == pi || !v->is_v || v->dead) continue;
                    const svg_shape *s = &sc->shapes[v->shape];
                    ir_pt a, m, c;
                    if (!small_v(s, o->arrow_max, &a, &m, &c)) continue;
                    ir_pt tri[3] = { a, m, c };
                    if (ir_v_dist(m, q) > 2 && !ir_pt_in_poly(q, tri, 3)) continue;
                    ir_pt mid = { (a.x + c.x) / 2, (a.y + c.y) / 2 };
                    if (ir_v_dot(unitv(vsub(m, mid)), u) < 0.7) continue;
                    p->head[e] = 1;
                    if (ir_v_dot(vsub(m, q), u) > 0) p->end[e] = m;
                    p->base[e] = mid;
                    v->dead = 1;
                    break;
                }
            }
        }
    }
    ir_box_index_free(&ix);
}

/* 5. the shapes that became arrowheads */
static void mark_arrowheads(build *gb)
{
    for (size_t i = 0; i < gb->ns; i++)
        if (gb->arrow_cand[i] == 2) { gb->si[i].role = GRAPH_SH_ARROWHEAD; gb->out->shape_role[i] = GRAPH_SH_ARROWHEAD; }
    for (size_t pi = 0; pi < gb->npc; pi++)
        if (gb->pc[pi].dead) { gb->si[gb->pc[pi].shape].role = GRAPH_SH_ARROWHEAD; gb->out->shape_role[gb->pc[pi].shape] = GRAPH_SH_ARROWHEAD; }
}

/* 6. captions: free text centred just under or over a small textless
 * shape (within its font size, its centre within a tenth of the wider
 * of the two, or 2 pt, of the shape's; the shape at most four font
 * sizes across) is that shape's name, as UML writes an interface's or
 * an actor's: the shape takes the text and the text is no node of its
 * own. A text has at most one such shape (the nearest), a shape one
 * caption (the nearest). */
static void attach_captions(build *gb)
{
    cand *cd = gb->cd;
    for (size_t c = 0; c < gb->ntextcand; c++) {
        cand *t = &cd[c];
        if (t->shape >= 0 || !t->ntexts || gb->title[t->texts[0]]) continue;
        double fs = t->size;
        ir_pt tc = ir_box_center(t->box);
        long best = -1;
        double bd = INFINITY;
        for (size_t k = gb->ntextcand; k < gb->ncd; k++) {
            const cand *sh = &cd[k];
            if (sh->ntexts || sh->shape < 0) continue;
            if (fmax(ir_box_w(sh->box), ir_box_h(sh->box)) > 4 * fs) continue;
            ir_pt sc2 = ir_box_center(sh->box);
            if (fabs(sc2.x - tc.x) > fmax(2, 0.1 * fmax(ir_box_w(t->box), ir_box_w(sh->box)))) continue;
            double gap = t->box.y2 <= sh->box.y1 + 0.5 ? sh->box.y1 - t->box.y2
                       : t->box.y1 >= sh->box.y2 - 0.5 ? t->box.y1 - sh->box.y2 : -1;
            if (gap < -0.5 || gap > fs || !spend(gb, 1)) continue;
            if (gap < bd) { bd = gap; best = (long)k; }
        }
        if (best < 0) continue;
        cand *sh = &cd[best];
        /* the shape's nearest caption: no other free text nearer to it */
        sh->texts = t->texts;
        sh->ntexts = t->ntexts;
        sh->size = t->size;
        t->texts = NULL;
        t->ntexts = 0;
        t->box = ir_box_empty();
        gb->group_cand[uf_find(gb->uf, sh->texts[0])] = best;
    }
}

/* 6. textless shapes as candidates (vertices only when an edge attaches) */
static void shape_candidates(build *gb)
{
    const svg_scene *sc = gb->sc;
    const shinfo *si = gb->si;
    size_t ns = gb->ns, nt = gb->nt;
    cand *cd = gb->cd;
    size_t ncd = gb->ncd, cap = gb->cdcap;
    /* the texts' centres in an index */
    ir_box *b = xcalloc(nt + 1, sizeof *b);
    for (size_t t = 0; t < nt; t++) {
        ir_pt c = ir_box_center(sc->texts[t].box);
        b[t] = ir_box_make(c.x, c.y, c.x, c.y);
    }
    ir_box_index ix;
    ir_box_index_build(&ix, b, nt);
    free(b);
    for (size_t i = 0; i < ns; i++) {
        if (si[i].role || !si[i].region || !si[i].visible || si[i].home || si[i].decor >= 0) continue;
        if (hypot(ir_box_w(si[i].box), ir_box_h(si[i].box)) < 2) continue;
        int holds = 0;
        size_t nn = query(gb, &ix, si[i].box);
        for (size_t q = 0; q < nn && !holds; q++)
            holds = shape_contains(&sc->shapes[i], &si[i], ir_box_center(sc->texts[gb->near[q]].box));
        if (holds) continue;
        if (ncd >= cap) {
            cap = cap ? 2 * cap : 16;
            cd = xrealloc(cd, cap * sizeof *cd);
        }
        memset(&cd[ncd], 0, sizeof *cd);
        cd[ncd].shape = (long)i;
        cd[ncd].box = si[i].box;
        cd[ncd].area = si[i].area;
        cd[ncd].seq = sc->shapes[i].seq;
        cd[ncd].line = sc->shapes[i].line;
        cd[ncd].vertex = -1;
        ncd++;
    }
    ir_box_index_free(&ix);
    gb->cd = cd;
    gb->ncd = ncd;
    gb->cdcap = cap;
    attach_captions(gb);
    /* the candidates near a point (within attach_tol of their box), for
     * steps 7 and 8 */
    b = xcalloc(ncd + 1, sizeof *b);
    for (size_t c = 0; c < ncd; c++) b[c] = ir_box_inset(cd[c].box, gb->o->attach_tol);
    ir_box_index_build(&gb->cand_ix, b, ncd);
    free(b);
}

/* 7. chains: join piece ends that meet away from nodes */
static void join_chains(build *gb)
{
    const svg_scene *sc = gb->sc;
    const graph_opts *o = gb->o;
    const shinfo *si = gb->si;
    const cand *cd = gb->cd;
    size_t npc = gb->npc;
    piece *pc = gb->pc;
    size_t *puf = gb->puf = xcalloc(npc ? npc : 1, sizeof *puf);
    for (size_t i = 0; i < npc; i++) puf[i] = i;
    size_t nends = 0;
    size_t *ends = xcalloc(2 * npc + 1, sizeof *ends);
    double *key = xcalloc(2 * npc + 1, sizeof *key);
    for (size_t i = 0; i < npc; i++) {
        if (pc[i].dead) continue;
        for (int e = 0; e < 2; e++) {
            if (pc[i].head[e]) continue;
            key[2 * i + (size_t)e] = pc[i].end[e].x;
            ends[nends++] = 2 * i + (size_t)e;
        }
    }
    sort_key = key;
    qsort(ends, nends, sizeof *ends, cmp_key);
    for (size_t a = 0; a < nends; a++) {
        size_t ea = ends[a];
        piece *pa = &pc[ea / 2];
        ir_pt qa = pa->end[ea % 2];
        for (size_t b = a + 1; b < nends; b++) {
            size_t eb = ends[b];
            if (key[eb] - key[ea] > o->join_tol || !spend(gb, 1)) break;
            if (eb / 2 == ea / 2) continue;
            piece *pb = &pc[eb / 2];
            ir_pt qb = pb->end[eb % 2];
            if (ir_v_dist(qa, qb) > o->join_tol) continue;
            /* two edges drawn each in a group of its own may meet end
             * to end; they are two */
            unsigned ga = sc->shapes[pa->shape].group, gr = sc->shapes[pb->shape].group;
            if (ga != gr && stroke_group(gb, ga) && stroke_group(gb, gr)) continue;
            /* not at a node: on its outline or its box, or in it (JOIN_AT_NODE), where
             * the ends of two edges may meet; a corner a few points off a
             * node (a short stub out of it, then a turn), or at free text
             * (an edge label written at the corner), still joins */
            int near = 0;
            size_t nn = query(gb, &gb->cand_ix, ir_box_make(qa.x, qa.y, qa.x, qa.y));
            for (size_t q = 0; q < nn && !near; q++) {
                size_t c = gb->near[q];
                if (ir_box_pt_dist(cd[c].box, qa) > o->attach_tol || cd[c].shape < 0) continue;
                near = cand_dist(sc, si, &cd[c], qa, o->attach_tol) <= fmin(o->attach_tol, JOIN_AT_NODE) ||
                       ir_box_pt_dist(cd[c].box, qa) <= JOIN_AT_NODE;   /* edges clipped to the box */
            }
            if (near) continue;
            pa->joined[ea % 2] = pb->joined[eb % 2] = 1;
            uf_union(puf, ea / 2, eb / 2);
        }
    }
    free(ends);
    free(key);
}

/* 1 when the ray from q along u meets box b */
static int ray_hits_box(ir_pt q, ir_pt u, ir_box b)
{
    double t0 = 0, t1 = INFINITY;
    double o[2] = { q.x, q.y }, d[2] = { u.x, u.y }, lo[2] = { b.x1, b.y1 }, hi[2] = { b.x2, b.y2 };
    for (int k = 0; k < 2; k++) {
        if (fabs(d[k]) < 1e-12) {
            if (o[k] < lo[k] || o[k] > hi[k]) return 0;
            continue;
        }
        double ta = (lo[k] - o[k]) / d[k], tb = (hi[k] - o[k]) / d[k];
        if (ta > tb) { double t = ta; ta = tb; tb = t; }
        t0 = fmax(t0, ta);
        t1 = fmin(t1, tb);
        if (t0 > t1) return 0;
    }
    return 1;
}

/* 8. attach free ends */
static void attach_ends(build *gb)
{
    const svg_scene *sc = gb->sc;
    const graph_opts *o = gb->o;
    const shinfo *si = gb->si;
    const cand *cd = gb->cd;
    size_t npc = gb->npc;
    piece *pc = gb->pc;
    for (size_t i = 0; i < npc; i++) {
        piece *p = &pc[i];
        if (p->dead) continue;
        p->comp = uf_find(gb->puf, i);
        for (int e = 0; e < 2; e++) {
            if (p->joined[e]) continue;
            ir_pt q = p->end[e];
            long best = -1;
            double bd = INFINITY;
            size_t nn = query(gb, &gb->cand_ix, ir_box_make(q.x, q.y, q.x, q.y));
            for (size_t qq = 0; qq < nn; qq++) {
                size_t c = gb->near[qq];
                if (ir_box_pt_dist(cd[c].box, q) > o->attach_tol) continue;
                double d = cand_dist(sc, si, &cd[c], q, o->attach_tol);
                if (d > o->attach_tol) continue;
                /* a shape's outline wins over free text a little closer
                 * (edge labels sit near the ends of short edges) */
                if (cd[c].shape < 0) d += 3;
                if (d > bd + 0.01) continue;
                if (best >= 0 && fabs(d - bd) <= 0.01) {
                    /* tie: the text node, then the smaller */
                    int bt = cd[best].ntexts > 0, ct = cd[c].ntexts > 0;
                    if (bt && !ct) continue;
                    if (bt == ct && cd[c].area >= cd[best].area) continue;
                } else if (d > bd) {
                    continue;
                }
                best = (long)c;
                bd = fmin(bd, d);
            }
            /* an arrowhead points into its node, and so does the other
             * end of an edge drawn in a group of its own (a stroke that
             * is not, a node's decoration, may end at its outline from
             * inside): where shapes overlap at the end, the one just
             * beyond it */
            if (best >= 0 && cd[best].shape >= 0 &&
                (p->head[e] || stroke_group(gb, sc->shapes[p->shape].group))) {
                /* the way it points: its arrowhead's axis (what is left of
                 * the stroke under a head may be too short to tell) */
                ir_pt u = p->head[e] && ir_v_dist(q, p->base[e]) > 1 ? unitv(vsub(q, p->base[e])) : unitv(p->dir[e]);
                ir_pt f = { q.x + 2 * u.x, q.y + 2 * u.y };
                if (!shape_contains(&sc->shapes[cd[best].shape], &si[cd[best].shape], f)) {
                    /* the nearest there; but of nodes that overlap there,
                     * the one whose centre is straight ahead (aims_at) */
                    double bi = INFINITY;
                    int baim = 0;
                    for (size_t qq = 0; qq < nn; qq++) {
                        size_t c = gb->near[qq];
                        if (cd[c].shape < 0 || (long)c == best) continue;
                        double d = cand_dist(sc, si, &cd[c], q, o->attach_tol);
                        if (d > o->attach_tol || !si[cd[c].shape].region ||
                            !shape_contains(&sc->shapes[cd[c].shape], &si[cd[c].shape], f))
                            continue;
                        int aim = aims_at(sc, &cd[c], q, u);
                        if (aim < baim || (aim == baim && d >= bi)) continue;
                        bi = d;
                        baim = aim;
                        best = (long)c;
                    }
                    /* no outline there, nor its box: a node with text
                     * whose box the tip is at (within BOX_TOL) and points
                     * into (Graphviz ends edges at the box of rarrow,
                     * larrow, rpromoter and lpromoter, beside the drawn
                     * arrow) */
                    for (size_t qq = 0; qq < nn && p->head[e] && isinf(bi) && !ir_box_contains_pt(cd[best].box, f); qq++) {
                        size_t c = gb->near[qq];
                        if (cd[c].shape < 0 || (long)c == best || !cd[c].ntexts) continue;
                        double d = ir_box_pt_dist(cd[c].box, q);
                        if (d <= BOX_TOL && d < bi && ir_box_contains_pt(cd[c].box, f)) {
                            bi = d;
                            best = (long)c;
                        }
                    }
                }
                /* where nodes overlap the end (it is in, or on the outline
                 * of, several), the one it aims at (aims_at: an arrowhead
                 * Graphviz could not clip sits at its node's centre) */
                if (!aims_at(sc, &cd[best], q, u))
                    for (size_t qq = 0; qq < nn; qq++) {
                        size_t c = gb->near[qq];
                        if (cd[c].shape < 0 || (long)c == best || !si[cd[c].shape].region ||
                            (!shape_contains(&sc->shapes[cd[c].shape], &si[cd[c].shape], q) &&
                             cand_dist(sc, si, &cd[c], q, o->attach_tol) > JOIN_AT_NODE) ||
                            !aims_at(sc, &cd[c], q, u))
                            continue;
                        best = (long)c;
                        break;
                    }
            }
            /* no outline, only free text: a shape whose box the end
             * touches (Graphviz clips edges to the bounding box of shapes
             * it cannot clip to, the arrows rarrow, larrow, lpromoter,
             * rpromoter; a short edge's label may be nearer) */
            if (best < 0 || cd[best].shape < 0) {
                double bb = INFINITY;
                for (size_t qq = 0; qq < nn; qq++) {
                    size_t c = gb->near[qq];
                    double d = ir_box_pt_dist(cd[c].box, q);
                    if (cd[c].shape >= 0 && d <= BOX_TOL && d < bb) { best = (long)c; bb = d; }
                }
            }
            /* still none: a shape whose box the end points into, within
             * attach_tol (Graphviz clips the edges of cds and of shapes
             * it pads at the box, a few points off the drawn outline) */
            if (best < 0 || cd[best].shape < 0) {
                double bb = INFINITY;
                ir_pt u = unitv(p->dir[e]);
                for (size_t qq = 0; qq < nn; qq++) {
                    size_t c = gb->near[qq];
                    if (cd[c].shape < 0 || !cd[c].ntexts) continue;
                    double d = ir_box_pt_dist(cd[c].box, q);
                    if (d <= o->attach_tol && d < bb && ray_hits_box(q, u, ir_box_inset(cd[c].box, 1))) {
                        best = (long)c;
                        bb = d;
                    }
                }
            }
            p->node[e] = best;
        }
    }
}

/* 8b. each group's chain (struct gfacts) */
static void group_chains(build *gb)
{
    for (size_t i = 0; i < gb->npc; i++) {
        const piece *p = &gb->pc[i];
        if (p->dead) continue;
        long *ch = &gb->gf[gb->sc->shapes[p->shape].group].chain;
        if (*ch == -1) *ch = (long)p->comp;
        else if (*ch != (long)p->comp) *ch = -2;
    }
}

/* the node whose centre lies straight ahead of q in direction u (aims_at;
 * the nearest such centre: a line between two nodes' centres points on at
 * the nodes beyond them too), among those whose outline is within
 * attach_tol or, with
 * text, whose box is within BOX_TOL (Graphviz clips at the box of the
 * arrow shapes), other than except; -1 none */
static long points_at(build *gb, ir_pt q, ir_pt u, long except)
{
    const cand *cd = gb->cd;
    long best = -1;
    double bd = INFINITY;
    size_t nn = query(gb, &gb->cand_ix, ir_box_make(q.x, q.y, q.x, q.y));
    for (size_t qq = 0; qq < nn; qq++) {
        size_t c = gb->near[qq];
        if (cd[c].shape < 0 || (long)c == except || !aims_at(gb->sc, &cd[c], q, u)) continue;
        if (cand_dist(gb->sc, gb->si, &cd[c], q, gb->o->attach_tol) > gb->o->attach_tol &&
            !(cd[c].ntexts && ir_box_pt_dist(cd[c].box, q) <= BOX_TOL))
            continue;
        double dc = ir_v_dist(cand_centre(gb->sc, &cd[c]), q);
        if (dc < bd) { bd = dc; best = (long)c; }
    }
    return best;
}

/* the shaped node other than except whose outline is nearest q, within
 * attach_tol (*d: how near); -1 none */
static long nearest_other(build *gb, ir_pt q, long except, double *d)
{
    const cand *cd = gb->cd;
    long best = -1;
    *d = INFINITY;
    size_t nn = query(gb, &gb->cand_ix, ir_box_make(q.x, q.y, q.x, q.y));
    for (size_t qq = 0; qq < nn; qq++) {
        size_t c = gb->near[qq];
        if ((long)c == except || cd[c].shape < 0) continue;
        double dc = cand_dist(gb->sc, gb->si, &cd[c], q, gb->o->attach_tol);
        if (dc <= gb->o->attach_tol && dc < *d) { *d = dc; best = (long)c; }
    }
    return best;
}

/* 9a. a stub: what is left of connector chain comp where the two nodes it
 * joins overlap and hide it, both its ends attached to nodes[0]. A stub
 * with a head, or drawn as an edge of its own (edge_group), points from
 * one node's centre to the other's, as lines between nodes are drawn:
 * each end at the node straight ahead of it. Failing that, the stub under
 * an arrowhead lies inside the node it points into and its plain end is
 * on or in the node it comes from; a headless one's end nearer another
 * node's outline is that node's. 1 with nodes[0..1] set, 0 when it is no
 * edge. */
static int stub_nodes(build *gb, size_t comp, long *nodes, const ir_pt *at, const ir_pt *base, const int *heads)
{
    const svg_scene *sc = gb->sc;
    int own = edge_group(gb, sc->shapes[gb->pc[comp].shape].group);
    if (heads[0] != heads[1] || own) {
        /* the stub's axis: its arrowhead's, else its ends' */
        size_t h = heads[0] ? 0 : 1;
        ir_pt ax = heads[h] && ir_v_dist(at[h], base[h]) > 1 ? unitv(vsub(at[h], base[h])) : unitv(vsub(at[h], at[1 - h]));
        ir_pt back = { -ax.x, -ax.y };
        long a = points_at(gb, at[h], ax, -1), b = a >= 0 ? points_at(gb, at[1 - h], back, a) : -1;
        if (a >= 0 && b >= 0 && a != b) {
            nodes[h] = a;
            nodes[1 - h] = b;
            return 1;
        }
    }
    if (heads[0] == heads[1]) {
        if (!own) return 0;
        double d0, d1;
        long b0 = nearest_other(gb, at[0], nodes[0], &d0), b1 = nearest_other(gb, at[1], nodes[0], &d1);
        if (b0 < 0 && b1 < 0) return 0;
        if (b1 >= 0 && d1 < d0) nodes[1] = b1;
        else nodes[0] = b0;
        return 1;
    }
    size_t t = heads[0] ? 1 : 0;
    double d;
    /* from the plain end, or else from the back of the arrowhead (a stub
     * shorter than its arrowhead: only the head shows, its back in the
     * node it comes from) */
    long best = nearest_other(gb, at[t], nodes[0], &d);
    if (best < 0) best = nearest_other(gb, base[1 - t], nodes[0], &d);
    if (best < 0) return 0;
    nodes[t] = best;
    return 1;
}

/* 9. the edges of chain comp: between the nodes its free ends attach to,
 * from the ends without heads to the ends with them */
static void chain_edges(build *gb, size_t comp)
{
    const svg_scene *sc = gb->sc;
    size_t npc = gb->npc;
    const piece *pc = gb->pc;
    cand *cd = gb->cd;
    graph_edge *ed = gb->ed;
    size_t ned = gb->ned;
    long *edge_comp = gb->edge_comp;
    long nodes[64];
    int heads[64];
    ir_pt at[64], base[64];
    size_t na = 0;
    int line = sc->shapes[pc[comp].shape].line;
    const size_t *next = gb->chain_next;
    for (size_t i = comp; i < npc; i = next[i]) {
        if (pc[i].dead || pc[i].comp != comp) continue;
        for (int e = 0; e < 2; e++)
            if (!pc[i].joined[e] && pc[i].node[e] >= 0 && na < 64) {
                nodes[na] = pc[i].node[e];
                at[na] = pc[i].end[e];
                base[na] = pc[i].base[e];
                heads[na++] = pc[i].head[e];
            }
    }
    if (na < 2) return;
    /* a chain from a node to itself that never leaves its outline is part
     * of its drawing: a self-loop is drawn outside the node */
    int self = 1;
    for (size_t a = 1; a < na && self; a++) self = nodes[a] == nodes[0];
    int tiny = 0;
    if (self) {
        /* a stroke shorter than attach_tol between the two (nodes that
         * nearly touch): no self-loop is drawn so small */
        double len = 0;
        for (size_t i = comp; i < npc; i = next[i])
            if (!pc[i].dead && pc[i].comp == comp)
                len += polyline_len(sc->shapes[pc[i].shape].pts, sc->shapes[pc[i].shape].n);
        tiny = len <= gb->o->attach_tol;
    }
    if (self) {
        const cand *c = &cd[nodes[0]];
        for (size_t i = comp; i < npc && self; i = next[i]) {
            if (pc[i].dead || pc[i].comp != comp) continue;
            const svg_shape *s = &sc->shapes[pc[i].shape];
            if (!spend(gb, (unsigned long long)s->n * (c->shape >= 0 ? sc->shapes[c->shape].n : 1) + 1)) return;
            for (size_t k = 0; k < s->n && self; k++)
                self = c->shape >= 0 ? shape_dist(&sc->shapes[c->shape], &gb->si[c->shape], s->pts[k]) <= DECOR_TOL
                                     : ir_box_pt_dist(c->box, s->pts[k]) <= DECOR_TOL;
        }
        if ((self || tiny) && !(na == 2 && stub_nodes(gb, comp, nodes, at, base, heads))) return;
    }
    size_t nh = 0;
    for (size_t a = 0; a < na; a++) nh += heads[a] != 0;
    size_t before = ned;
    for (size_t a = 0; a < na; a++)
        for (size_t b = 0; b < na; b++) {
            if (a == b) continue;
            int undirected = 0;
            if (nh == 0) { if (b < a) continue; undirected = 1; }
            else if (nh == na) { /* double-headed: both ways */ }
            else if (heads[a] || !heads[b]) continue;
            if (nodes[a] == nodes[b] && na > 2) continue;
            int dup = 0;
            for (size_t q = before; q < ned && !dup; q++)
                dup = ed[q].from == (size_t)nodes[a] && ed[q].to == (size_t)nodes[b];
            if (dup) continue;
            if (ned >= gb->edcap) {
                gb->edcap = gb->edcap ? 2 * gb->edcap : 16;
                ed = xrealloc(ed, gb->edcap * sizeof *ed);
                edge_comp = xrealloc(edge_comp, gb->edcap * sizeof *edge_comp);
            }
            memset(&ed[ned], 0, sizeof *ed);
            ed[ned].from = (size_t)nodes[a];  /* candidate index for now */
            ed[ned].to = (size_t)nodes[b];
            ed[ned].undirected = undirected;
            ed[ned].line = line;
            edge_comp[ned] = (long)comp;
            ned++;
            cd[nodes[a]].attached = cd[nodes[b]].attached = 1;
        }
    gb->ed = ed;
    gb->ned = ned;
    gb->edge_comp = edge_comp;
    for (size_t i = comp; i < npc && ned > before; i = next[i])
        if (!pc[i].dead && pc[i].comp == comp) {
            gb->si[pc[i].shape].role = GRAPH_SH_CONNECTOR;
            gb->out->shape_role[pc[i].shape] = GRAPH_SH_CONNECTOR;
        }
}

/* 9. edges per chain */
static void make_edges(build *gb)
{
    size_t npc = gb->npc;
    const piece *pc = gb->pc;
    size_t *order = xcalloc(npc + 1, sizeof *order);
    size_t no = 0;
    for (size_t i = 0; i < npc; i++)
        if (!pc[i].dead && pc[i].comp == i) order[no++] = i;
    /* each chain's pieces in order, from its root (a chain's pieces all
     * come at or after its root: uf_union keeps the smaller index as root) */
    size_t *next = gb->chain_next = xcalloc(npc + 1, sizeof *next);
    size_t *last = xcalloc(npc + 1, sizeof *last);
    for (size_t i = 0; i < npc; i++) { next[i] = npc; last[i] = i; }
    for (size_t i = 0; i < npc; i++)
        if (!pc[i].dead && pc[i].comp != i) {
            next[last[pc[i].comp]] = i;
            last[pc[i].comp] = i;
        }
    free(last);
    for (size_t k = 0; k < no; k++)
        chain_edges(gb, order[k]);
    free(order);
    /* the connectors (pieces of chains that made edges) near a box, for
     * step 10: an index over their shapes' boxes */
    ir_box *b = xcalloc(npc + 1, sizeof *b);
    for (size_t i = 0; i < npc; i++)
        b[i] = !pc[i].dead && gb->si[pc[i].shape].role == GRAPH_SH_CONNECTOR ? gb->si[pc[i].shape].box
                                                                             : ir_box_empty();
    ir_box_index_build(&gb->conn_ix, b, npc);
    free(b);
}

/* the point halfway along an outline */
static ir_pt piece_mid(const svg_shape *s)
{
    double half = polyline_len(s->pts, s->n) / 2, l = 0;
    for (size_t i = 1; i < s->n; i++) {
        double d = ir_v_dist(s->pts[i - 1], s->pts[i]);
        if (l + d >= half && d > 0) {
            double t = (half - l) / d;
            ir_pt r = { s->pts[i - 1].x + t * (s->pts[i].x - s->pts[i - 1].x),
                        s->pts[i - 1].y + t * (s->pts[i].y - s->pts[i - 1].y) };
            return r;
        }
        l += d;
    }
    return s->pts[0];
}

/* 10. a text that may label a chain, and how well (lower is better) */
typedef struct { double score; size_t cand; long comp; } lpair;
static int cmp_lpair(const void *a, const void *b)
{
    const lpair *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? -1 : 1;
    if (x->cand != y->cand) return x->cand < y->cand ? -1 : 1;
    return (x->comp > y->comp) - (x->comp < y->comp);
}

/* 1 when shape s draws a plain rectangle: a <rect>, or an outline of four
 * corners joined by horizontal and vertical sides (a polygon closed back to
 * its first point, as Graphviz draws a cluster's frame) */
static int rect_outline(const svg_shape *s)
{
    if (s->axis_rect) return 1;
    size_t n = s->n;
    while (n > 1 && fabs(s->pts[n - 1].x - s->pts[0].x) < 1e-6 && fabs(s->pts[n - 1].y - s->pts[0].y) < 1e-6) n--;
    if (n != 4) return 0;
    for (size_t i = 0; i < 4; i++) {
        ir_pt a = s->pts[i], b = s->pts[(i + 1) % 4];
        if (!(fabs(a.x - b.x) < 1e-6) == !(fabs(a.y - b.y) < 1e-6)) return 0;
    }
    return 1;
}

/* 10. edge labels: unattached text near a connector of an edge */
static void free_text_labels(build *gb)
{
    const svg_scene *sc = gb->sc;
    const graph_opts *o = gb->o;
    shinfo *si = gb->si;
    cand *cd = gb->cd;
    const piece *pc = gb->pc;
    /* each frame's title: of the free text in it (a container, step 3),
     * the one nearest its top, within twice its font size (a group's or
     * cluster's name sits there); with none there, the one nearest its
     * bottom. Not a text off the frame's middle that a connector of an
     * edge passes nearer than that side, nor any such text at the bottom
     * (an edge's label in an untitled frame). y is up. */
    long *ftitle = xcalloc(gb->ns + 1, sizeof *ftitle);
    long *fbot = xcalloc(gb->ns + 1, sizeof *fbot);
    double *fdist = xcalloc(2 * gb->ns + 1, sizeof *fdist);
    for (size_t i = 0; i < gb->ns; i++) { ftitle[i] = fbot[i] = -1; fdist[2 * i] = fdist[2 * i + 1] = INFINITY; }
    for (size_t c = 0; c < gb->ntextcand; c++) {
        long f = cd[c].ntexts ? gb->title[cd[c].texts[0]] - 1 : -1;
        if (f < 0) continue;
        ir_box fb = si[f].box, tb = cd[c].box;
        double dtop = fabs(fb.y2 - tb.y2), dbot = fabs(tb.y1 - fb.y1);
        int bottom = dbot < dtop;
        double df = bottom ? dbot : dtop;
        if (df > 2 * cd[c].size || df >= fdist[2 * f + bottom]) continue;
        int edge_near = 0;
        int centred = fabs(ir_box_center(tb).x - ir_box_center(fb).x) <= 0.5 * cd[c].size;
        /* a frame drawn with a tab (a folder, a UML package: no plain
         * rectangle) shows where its title goes: the top text is it */
        int plain = rect_outline(&sc->shapes[f]);
        size_t nn = bottom || (!centred && plain) ? query(gb, &gb->conn_ix, ir_box_inset(tb, df)) : 0;
        for (size_t q = 0; q < nn && !edge_near; q++) {
            const piece *p = &pc[gb->near[q]];
            if (p->dead || si[p->shape].role != GRAPH_SH_CONNECTOR) continue;
            const svg_shape *s = &sc->shapes[p->shape];
            for (size_t j = 1; j < s->n && !edge_near; j++)
                edge_near = ir_seg_box_dist(s->pts[j - 1], s->pts[j], tb) < df;
        }
        if (edge_near) continue;
        fdist[2 * f + bottom] = df;
        if (bottom) fbot[f] = (long)c; else ftitle[f] = (long)c;
    }
    for (size_t i = 0; i < gb->ns; i++) if (ftitle[i] < 0) ftitle[i] = fbot[i];
    free(fbot);
    free(fdist);
    /* every (text, chain) pair that may be a label and its edge, scored */
    lpair *lp = NULL;
    size_t nlp = 0, lpcap = 0;
    for (size_t c = 0; c < gb->ntextcand; c++) {
        cand *cn = &cd[c];
        if (cn->attached || !cn->ntexts) continue;   /* no texts: a caption (step 6) */
        long frame = -1;
        for (size_t k = 0; k < cn->ntexts && frame < 0; k++) frame = gb->title[cn->texts[k]] - 1;
        /* a frame's title: a node */
        if (frame >= 0 && ftitle[frame] == (long)c) continue;
        double tol = o->label_k * cn->size;
        int crossed = 0;
        double bestd = INFINITY;
        size_t first = nlp;
        size_t nn = query(gb, &gb->conn_ix, ir_box_inset(cn->box, tol));
        for (size_t q = 0; q < nn; q++) {
            const piece *p = &pc[gb->near[q]];
            if (p->dead || si[p->shape].role != GRAPH_SH_CONNECTOR) continue;
            if (ir_box_box_dist(si[p->shape].box, cn->box) > tol) continue;
            const svg_shape *s = &sc->shapes[p->shape];
            double pd = INFINITY;
            for (size_t j = 1; j < s->n; j++) {
                double d = ir_seg_box_dist(s->pts[j - 1], s->pts[j], cn->box);
                if (d < pd) pd = d;
                /* crossed: the shape, filled and painted later, hides the
                 * connector where it passes (a label's backing box); a
                 * connector drawn across a shape leaves it a node */
                if (cn->shape >= 0 && d == 0 && sc->shapes[cn->shape].filled &&
                    sc->shapes[cn->shape].seq > s->seq)
                    crossed = 1;
            }
            if (pd < bestd) bestd = pd;
            if (pd > tol) continue;
            /* free text beside two connectors: the one whose middle it is
             * nearer counts too (a label is placed at the middle of its
             * edge) */
            double score = pd;
            if (cn->shape < 0) score += LABEL_MID_W * ir_v_dist(piece_mid(s), ir_box_center(cn->box));
            /* a label drawn in its edge's own group is that edge's */
            if (edge_group(gb, s->group) && sc->texts[cn->texts[0]].group == s->group) score = -1;
            if (nlp == lpcap) { lpcap = lpcap ? 2 * lpcap : 16; lp = xrealloc(lp, lpcap * sizeof *lp); }
            lp[nlp++] = (lpair){ score, c, (long)p->comp };
        }
        if (bestd > tol || (cn->shape >= 0 && !crossed)) nlp = first;
    }
    /* each label to one edge, each edge one label: the pairs best first
     * (two labels beside two crossing connectors go one to each); a label
     * whose every chain took another keeps its best */
    if (nlp) qsort(lp, nlp, sizeof *lp, cmp_lpair);
    long *got = xcalloc(gb->ntextcand + 1, sizeof *got);
    unsigned char *taken = xcalloc(gb->npc + 1, 1);
    for (size_t c = 0; c < gb->ntextcand; c++) got[c] = -1;
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < nlp; k++) {
            if (got[lp[k].cand] >= 0 || (pass == 0 && taken[lp[k].comp])) continue;
            got[lp[k].cand] = lp[k].comp;
            taken[lp[k].comp] = 1;
        }
    for (size_t c = 0; c < gb->ntextcand; c++) {
        if (got[c] < 0) continue;
        cand *cn = &cd[c];
        cn->label = 1;
        char *txt = join_texts(sc, cn->texts, cn->ntexts);
        add_label(gb->ed, gb->ned, gb->edge_comp, got[c], txt);
        free(txt);
        if (cn->shape >= 0) { si[cn->shape].role = GRAPH_SH_OTHER; gb->out->shape_role[cn->shape] = GRAPH_SH_OTHER; }
    }
    free(got);
    free(taken);
    free(lp);
    free(ftitle);
}

/* 10b. the chain whose label a line of candidate c's text (lb: its box,
 * size: its font size) is: the nearest connector of an edge within half
 * the font size that does not end at c -- unless the line reaches out of
 * the shape's box (a short edge) or is written over the node's other
 * text (over: nodes that overlap), when it may belong to a connector that
 * ends at the node, and the connector whose middle is nearer wins. -1
 * when there is none. */
static long line_label_chain(build *gb, size_t c, ir_box lb, double size,
                             const long *comp_next, int over)
{
    const svg_scene *sc = gb->sc;
    const shinfo *si = gb->si;
    const cand *cn = &gb->cd[c];
    const piece *pc = gb->pc;
    double tol = 0.5 * size, bestd = INFINITY;
    long bestcomp = -1;
    ir_box sb = si[cn->shape].box;
    int spills = lb.x1 < sb.x1 - 0.5 || lb.x2 > sb.x2 + 0.5 || lb.y1 < sb.y1 - 0.5 || lb.y2 > sb.y2 + 0.5;
    size_t *near = NULL, cap = 0;
    size_t nn = ir_box_index_query(&gb->conn_ix, ir_box_inset(lb, tol), &near, &cap);
    if (!spend(gb, (unsigned long long)nn + 1)) nn = 0;
    for (size_t qq = 0; qq < nn; qq++) {
        const piece *p = &pc[near[qq]];
        if (p->dead || si[p->shape].role != GRAPH_SH_CONNECTOR) continue;
        if (ir_box_box_dist(si[p->shape].box, lb) > tol) continue;
        int ends_here = 0;
        for (long q = (long)p->comp; q >= 0 && !ends_here; q = comp_next[q])
            for (int e = 0; e < 2; e++)
                if (!pc[q].joined[e] && pc[q].node[e] == (long)c) ends_here = 1;
        if (ends_here && !spills && !over) continue;
        const svg_shape *s = &sc->shapes[p->shape];
        double pd = INFINITY;
        for (size_t j = 1; j < s->n; j++)
            pd = fmin(pd, ir_seg_box_dist(s->pts[j - 1], s->pts[j], lb));
        /* an arrowhead is drawn connector too: from the stroke's end to
         * the tip */
        for (int e = 0; e < 2 && s->n; e++)
            if (p->head[e]) pd = fmin(pd, ir_seg_box_dist(s->pts[e ? s->n - 1 : 0], p->end[e], lb));
        if (pd > tol) continue;
        /* written over a node's text, beside two connectors: the one
         * whose middle it is nearer (a label is placed at the middle of
         * its edge), as for free text (step 10) */
        double score = pd + (over ? LABEL_MID_W * ir_v_dist(piece_mid(s), ir_box_center(lb)) : 0);
        if (score < bestd) { bestd = score; bestcomp = (long)p->comp; }
    }
    free(near);
    return bestcomp;
}

/* 10b. a line (box lb, font size, baseline) written over text o: across
 * it, and their boxes overlapping or their baselines nearer than the font
 * size (the lines of one text are at least that far apart) */
static int written_over(ir_box lb, double size, double baseline, const svg_text *o)
{
    const ir_box *b = &o->box;
    return fmin(lb.x2, b->x2) - fmax(lb.x1, b->x1) > 0.3 * size &&
           (fmin(lb.y2, b->y2) - fmax(lb.y1, b->y1) > 0.3 * size ||
            fabs(o->baseline - baseline) < 0.9 * fmin(size, o->size));
}

/* 10b. the line of candidate c's text (the root of its line in gb->sub)
 * that is a connector's label drawn over the node, and that chain in
 * *chain; -1 when no line is. */
static long label_line_of(build *gb, size_t c, const long *comp_next, long *chain)
{
    const svg_scene *sc = gb->sc;
    const cand *cn = &gb->cd[c];
    size_t *sub = gb->sub;
    const int *tlabel = gb->tlabel;
    *chain = -1;
    /* a look at every pair of its texts (the node's lines) */
    if (!spend(gb, (unsigned long long)cn->ntexts * cn->ntexts)) return -1;
    ir_pt centre = ir_box_center(gb->si[cn->shape].box);
    ir_box all = ir_box_empty();
    size_t nrest = 0;
    for (size_t k = 0; k < cn->ntexts; k++)
        if (!tlabel[cn->texts[k]]) { ir_box_union(&all, sc->texts[cn->texts[k]].box); nrest++; }
    double dall = ir_v_dist(ir_box_center(all), centre);
    long bestline = -1, bestlcomp = -1;
    double bestrest = INFINITY;
    int bestclean = 0;
    for (size_t k = 0; k < cn->ntexts; k++) {
        size_t l = cn->texts[k];
        if (tlabel[l] || uf_find(sub, l) != l) continue;
        ir_box lb = ir_box_empty(), rest = ir_box_empty();
        double size = 0;
        size_t nl = 0;
        for (size_t j = 0; j < cn->ntexts; j++) {
            size_t t = cn->texts[j];
            if (tlabel[t]) continue;
            if (uf_find(sub, t) == l) { ir_box_union(&lb, sc->texts[t].box); size = fmax(size, sc->texts[t].size); nl++; }
            else ir_box_union(&rest, sc->texts[t].box);
        }
        if (nl == nrest) continue;
        double drest = ir_v_dist(ir_box_center(rest), centre);
        /* written over the node's other text (across it, and their
         * boxes overlapping or their baselines nearer than the font size:
         * the lines of one text are at least that far apart), it leaves
         * the rest no less centred */
        int over = 0;
        for (size_t j = 0; j < cn->ntexts && !over; j++) {
            const svg_text *o = &sc->texts[cn->texts[j]];
            if (tlabel[cn->texts[j]] || uf_find(sub, cn->texts[j]) == l) continue;
            over = written_over(lb, size, sc->texts[l].baseline, o);
        }
        if (drest > dall - (over ? -0.05 : 0.05) * size) continue;
        /* a line of the node's own text block: inside its outline,
         * centred on the same axis as a neighbouring line of the rest and
         * one line below or above it (as a producer sets a node's lines,
         * wherever the shape puts the block: a triangle's is off its box's
         * centre); a label placed by its edge lines up so only by chance */
        if (!over && text_inside(&sc->shapes[cn->shape], &gb->si[cn->shape], lb)) {
            int aligned = 0;
            double lcx = 0.5 * (lb.x1 + lb.x2), lbase = sc->texts[l].baseline;
            for (size_t j = 0; j < cn->ntexts && !aligned; j++) {
                size_t t = cn->texts[j];
                if (tlabel[t] || uf_find(sub, t) == l || uf_find(sub, t) != t) continue;
                ir_box ob = ir_box_empty();
                for (size_t i = 0; i < cn->ntexts; i++)
                    if (!tlabel[cn->texts[i]] && uf_find(sub, cn->texts[i]) == t) ir_box_union(&ob, sc->texts[cn->texts[i]].box);
                double gap = fabs(sc->texts[t].baseline - lbase);
                aligned = fabs(0.5 * (ob.x1 + ob.x2) - lcx) <= fmax(1, 0.08 * size) &&
                          gap >= 0.9 * size && gap <= 1.35 * size;
            }
            if (aligned) continue;
        }
        /* the rest clean: no two of its lines written over each other
         * (taking off the line a label overlaps instead of the label
         * leaves the label over another line) */
        int clean = 1;
        if (over && spend(gb, (unsigned long long)cn->ntexts * cn->ntexts))
            for (size_t j = 0; j < cn->ntexts && clean; j++) {
                size_t t = cn->texts[j];
                if (tlabel[t] || uf_find(sub, t) == l) continue;
                for (size_t i = j + 1; i < cn->ntexts && clean; i++) {
                    size_t u = cn->texts[i];
                    if (tlabel[u] || uf_find(sub, u) == l || uf_find(sub, u) == uf_find(sub, t)) continue;
                    clean = !written_over(sc->texts[t].box, sc->texts[t].size, sc->texts[t].baseline, &sc->texts[u]);
                }
            }
        if (clean < bestclean || (clean == bestclean && drest >= bestrest)) continue;
        long bestcomp = line_label_chain(gb, c, lb, size, comp_next, over);
        if (bestcomp < 0) continue;
        bestline = (long)l;
        bestlcomp = bestcomp;
        bestrest = drest;
        bestclean = clean;
    }
    *chain = bestlcomp;
    return bestline;
}

/* 10b. a line of text in a node's shape, off the centre of the node's
 * text, that a connector of an edge passes through (within half its
 * font size) and that does not end at that node: the connector's label
 * drawn over the node. A node's text is what is centred in its shape:
 * a line goes only when the rest is then nearer the shape's centre. */
static void label_lines_over_nodes(build *gb)
{
    const svg_scene *sc = gb->sc;
    cand *cd = gb->cd;
    size_t npc = gb->npc;
    const piece *pc = gb->pc;
    size_t *sub = gb->sub;
    int *tlabel = gb->tlabel;
    long *comp_next = xcalloc(npc + 1, sizeof *comp_next);  /* pieces of a chain, from its root */
    {
        long *last = xcalloc(npc + 1, sizeof *last);
        for (size_t i = 0; i < npc; i++) { comp_next[i] = -1; last[i] = (long)i; }
        for (size_t i = 0; i < npc; i++)
            if (!pc[i].dead && pc[i].comp != i) {
                comp_next[last[pc[i].comp]] = (long)i;
                last[pc[i].comp] = (long)i;
            }
        free(last);
    }
    for (size_t c = 0; c < gb->ntextcand; c++) {
        cand *cn = &cd[c];
        if (cn->shape < 0 || cn->label || cn->ntexts < 2) continue;
        for (;;) {
            long bestlcomp = -1;
            long bestline = label_line_of(gb, c, comp_next, &bestlcomp);
            if (bestline < 0) break;
            size_t *grp = xcalloc(cn->ntexts, sizeof *grp);
            size_t ng = 0;
            for (size_t j = 0; j < cn->ntexts; j++)
                if (!tlabel[cn->texts[j]] && uf_find(sub, cn->texts[j]) == (size_t)bestline) grp[ng++] = cn->texts[j];
            for (size_t j = 0; j < ng; j++) tlabel[grp[j]] = 1;
            char *txt = join_texts(sc, grp, ng);
            add_label(gb->ed, gb->ned, gb->edge_comp, bestlcomp, txt);
            free(txt);
            free(grp);
        }
        size_t kept = 0;
        for (size_t k = 0; k < cn->ntexts; k++)
            if (!tlabel[cn->texts[k]]) cn->texts[kept++] = cn->texts[k];
        cn->ntexts = kept;
    }
    free(comp_next);
}

/* 11. vertices in document order; every text's vertex (or label), the
 * roles of the shapes left, and the edges between vertex indices */
static void make_vertices(build *gb)
{
    const svg_scene *sc = gb->sc;
    graph_result *out = gb->out;
    const shinfo *si = gb->si;
    cand *cd = gb->cd;
    size_t ncd = gb->ncd, ns = gb->ns, nt = gb->nt;
    size_t *vorder = xcalloc(ncd + 1, sizeof *vorder);
    size_t nvo = 0;
    for (size_t c = 0; c < ncd; c++) {
        if (cd[c].label) continue;
        if (cd[c].ntexts == 0 && !cd[c].attached) continue;
        vorder[nvo++] = c;
    }
    double *vkey = xcalloc(ncd + 1, sizeof *vkey);
    for (size_t c = 0; c < ncd; c++) vkey[c] = (double)cd[c].seq;
    sort_key = vkey;
    qsort(vorder, nvo, sizeof *vorder, cmp_key);
    out->v = xcalloc(nvo + 1, sizeof *out->v);
    out->nv = nvo;
    for (size_t k = 0; k < nvo; k++) {
        cand *c = &cd[vorder[k]];
        c->vertex = (long)k;
        graph_vertex *v = &out->v[k];
        v->box = c->box;
        v->text = c->ntexts ? join_texts(sc, c->texts, c->ntexts) : xstrdup("");
        v->shape = c->shape >= 0 ? shape_name(&sc->shapes[c->shape]) : "text";
        v->line = c->line;
        v->seq = c->seq;
        if (c->shape >= 0 && !c->ntexts) { out->shape_role[c->shape] = GRAPH_SH_NODE; }
    }
    for (size_t t = 0; t < nt; t++) {
        cand *c = &cd[gb->group_cand[uf_find(gb->uf, t)]];
        out->text_vertex[t] = c->label || gb->tlabel[t] ? -2 : c->vertex;
    }
    for (size_t i = 0; i < ns; i++) {
        if (si[i].role == GRAPH_SH_BACKGROUND || (si[i].role == GRAPH_SH_MARKER && !sc->shapes[i].glyph))
            out->shape_role[i] = si[i].role;
        if (si[i].decor >= 0 && out->shape_role[si[i].decor] == GRAPH_SH_NODE)
            out->shape_role[i] = GRAPH_SH_NODE;
    }
    /* edges: candidate indices into vertex indices */
    graph_edge *ed = gb->ed;
    out->e = ed;
    out->ne = gb->ned;
    for (size_t e = 0; e < gb->ned; e++) {
        ed[e].from = (size_t)cd[ed[e].from].vertex;
        ed[e].to = (size_t)cd[ed[e].to].vertex;
    }
    free(vorder);
    free(vkey);
}

int graph_build(const svg_scene *sc, const graph_opts *o, graph_result *out)
{
    memset(out, 0, sizeof *out);
    build gb = { .sc = sc, .o = o, .out = out, .ns = sc->nshapes, .nt = sc->ntexts };
    gb.si = xcalloc(gb.ns, sizeof *gb.si);
    out->shape_role = xcalloc(gb.ns, sizeof *out->shape_role);
    out->text_vertex = xcalloc(gb.nt, sizeof *out->text_vertex);
    gb.uf = xcalloc(gb.nt, sizeof *gb.uf);
    gb.sub = xcalloc(gb.nt, sizeof *gb.sub);
    gb.tlabel = xcalloc(gb.nt, sizeof *gb.tlabel);
    for (size_t t = 0; t < gb.nt; t++) gb.uf[t] = gb.sub[t] = t;

    shape_facts(&gb);
    mark_backgrounds(&gb);
    mark_unseen_boxes(&gb);
    find_homes(&gb);
    node_outlines(&gb);
    group_home_texts(&gb);
    group_free_texts(&gb);
    text_candidates(&gb);
    find_pieces(&gb);
    closed_arrowheads(&gb);
    open_arrowheads(&gb);
    mark_arrowheads(&gb);
    shape_candidates(&gb);
    join_chains(&gb);
    attach_ends(&gb);
    group_chains(&gb);
    make_edges(&gb);
    free_text_labels(&gb);
    label_lines_over_nodes(&gb);
    make_vertices(&gb);
    int over = gb.over;

    for (size_t c = 0; c < gb.ncd; c++) free(gb.cd[c].texts);
    free(gb.cd);
    free(gb.edge_comp);
    free(gb.chain_next);
    free(gb.near);
    ir_box_index_free(&gb.cand_ix);
    ir_box_index_free(&gb.conn_ix);
    free(gb.pc);
    free(gb.puf);
    free(gb.arrow_cand);
    free(gb.group_cand);
    free(gb.uf);
    free(gb.sub);
    free(gb.tlabel);
    free(gb.title);
    free(gb.gf);
    free(gb.home);
    free(gb.si);
    if (over) {
        /* the work allowed was done before the steps looked at everything:
         * no graph rather than a wrong one */
        graph_result_free(out);
        return -1;
    }
    return 0;
}

void graph_result_free(graph_result *g)
{
    for (size_t i = 0; i < g->nv; i++) free(g->v[i].text);
    for (size_t i = 0; i < g->ne; i++) free(g->e[i].label);
    free(g->v);
    free(g->e);
    free(g->shape_role);
    free(g->text_vertex);
    memset(g, 0, sizeof *g);
}
