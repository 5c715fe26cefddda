/* tikzpath.c — coordinates, the path builder behind path.y, and nodes. */
#include "grammar/tikzst.h"
#include "grammar/tikz_int.h"
#include "grammar/pgfmath.h"
#include "grammar/textmetrics.h"
#include "ir/geom_2d.h"
#include "ir/xalloc.h"
#include "path.tab.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PIECES 20000       /* elements one path may produce */
#define MAX_GRID_LINES 2000
#define MAX_PENDING 20000     /* nodes one path operation may carry */
#define MAX_LABELS 1000       /* label= and pin= options of one node */
#define ANGLE_RADIUS_PT 14.226378   /* angles library: angle radius=5mm */
#define PIN_DISTANCE_PT (3 * 6.421875)  /* pin distance=3ex (Open Sans 12pt) */






/* ---- named nodes ------------------------------------------------------------ */

static unsigned long name_hash(const char *s, size_t n)
{
    unsigned long h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

/* node names are indexed by an open-addressing hash (slots hold index+1) */
static void node_index_rebuild(tikz *T, size_t cap)
{
    free(T->node_hash);
    T->node_hash = xrealloc(NULL, cap * sizeof *T->node_hash);
    memset(T->node_hash, 0, cap * sizeof *T->node_hash);
    T->node_hcap = cap;
    for (size_t i = 0; i < T->nnodes; i++) {
        size_t k = name_hash(T->nodes[i].name, strlen(T->nodes[i].name)) & (cap - 1);
        while (T->node_hash[k]) k = (k + 1) & (cap - 1);
        T->node_hash[k] = i + 1;
    }
}

tk_node *tk_find_node(tikz *T, const char *name, size_t n)
{
    if (!T->node_hcap || T->node_hidx != T->nnodes) {
        size_t cap = 64;
        while (cap < 2 * T->nnodes + 2) cap *= 2;
        node_index_rebuild(T, cap);
        T->node_hidx = T->nnodes;
    }
    size_t k = name_hash(name, n) & (T->node_hcap - 1);
    while (T->node_hash[k]) {
        tk_node *nd = &T->nodes[T->node_hash[k] - 1];
        if (strlen(nd->name) == n && memcmp(nd->name, name, n) == 0) return nd;
        k = (k + 1) & (T->node_hcap - 1);
    }
    return NULL;
}

void tk_add_node(tikz *T, const char *name, vec2 c, double hw, double hh, double by, int shape)
{
    size_t n = strlen(name);
    tk_node *nd = tk_find_node(T, name, n);
    if (!nd) {
        if (T->nnodes == T->capnodes) {
            T->capnodes = T->capnodes ? T->capnodes * 2 : 32;
            T->nodes = xrealloc(T->nodes, T->capnodes * sizeof *T->nodes);
        }
        nd = &T->nodes[T->nnodes++];
        nd->name = xstrndup(name, n);
        /* keep the index current: insert, or rebuild when it is too full */
        if (T->node_hcap && T->node_hidx == T->nnodes - 1 && 2 * T->nnodes + 2 <= T->node_hcap) {
            size_t k = name_hash(name, n) & (T->node_hcap - 1);
            while (T->node_hash[k]) k = (k + 1) & (T->node_hcap - 1);
            T->node_hash[k] = T->nnodes;
            T->node_hidx = T->nnodes;
        }
    }
    nd->c = c;
    nd->hw = hw;
    nd->hh = hh;
    nd->by = by;
    nd->shape = shape;
    nd->has3 = 0;
    nd->sides = 0;
    nd->start = 0;
    nd->rot = 0;
    if (T->d) {
        ir_elem *e = ir_add(T->d, IR_COORD);
        e->name = xstrndup(name, n);
        ir_pt p = { c.x, c.y };
        ir_elem_set_pts(e, &p, 1);
        e->line = T->cmd_line;
    }
}

static vec2 rot_deg(vec2 p, double deg)
{
    if (deg == 0) return p;
    double c = cos(deg * DEG), s = sin(deg * DEG);
    return v2(p.x * c - p.y * s, p.x * s + p.y * c);
}

/* corner k (1-based) of a regular polygon, in its own frame, as pgf's
 * corner k anchor: at the anchor radius */
static vec2 polygon_corner(const tk_node *nd, long k)
{
    int n = nd->sides >= 3 ? nd->sides : 5;
    double a = nd->start + (double)(k - 1) * 360.0 / n;
    return v2(nd->hw * cos(a * DEG), nd->hw * sin(a * DEG));
}

/* border point in direction ang (degrees) in the node's own frame, offset
 * from the centre, as each shape's anchorborder computes it */
static vec2 shape_border(const tk_node *nd, double ang)
{
    double ca = cos(ang * DEG), sa = sin(ang * DEG);
    switch (nd->shape) {
    case TK_SH_COORD:
        return v2(0, 0);
    case TK_SH_CIRCLE:
        return v2(nd->hw * ca, nd->hw * sa);
    case TK_SH_ELLIPSE: {
        /* \pgfpointborderellipse: the ellipse point in that direction */
        if (nd->hw <= 0 || nd->hh <= 0) return v2(0, 0);
        double t = 1 / sqrt((ca / nd->hw) * (ca / nd->hw) + (sa / nd->hh) * (sa / nd->hh));
        return v2(t * ca, t * sa);
    }
    case TK_SH_DIAMOND: {
        /* the ray meets the side from (+-x,0) to (0,+-y) */
        if (nd->hw <= 0 || nd->hh <= 0) return v2(0, 0);
        double t = 1 / (fabs(ca) / nd->hw + fabs(sa) / nd->hh);
        return v2(t * ca, t * sa);
    }
    case TK_SH_POLYGON: {
        /* the side between the corners around the direction (pgf: the
         * corners at the anchor radius) */
        int n = nd->sides >= 3 ? nd->sides : 5;
        double step = 360.0 / n;
        double d = fmod(ang - nd->start, 360);
        if (d < 0) d += 360;
        double k = floor(d / step);
        double mid = nd->start + (k + 0.5) * step;
        double c = cos((ang - mid) * DEG);
        double t = c > 1e-12 ? nd->hw * cos(step / 2 * DEG) / c : 0;
        return v2(t * ca, t * sa);
    }
    default: {
        double tx = fabs(ca) > 1e-12 ? nd->hw / fabs(ca) : 1e300;
        double ty = fabs(sa) > 1e-12 ? nd->hh / fabs(sa) : 1e300;
        double t = tx < ty ? tx : ty;
        return v2(t * ca, t * sa);
    }
    }
}

void tk_add_node_geom(tikz *T, const char *name, const tk_node *geom)
{
    tk_add_node(T, name, geom->c, geom->hw, geom->hh, geom->by, geom->shape);
    tk_node *nd = tk_find_node(T, name, strlen(name));
    if (!nd) return;
    nd->sides = geom->sides;
    nd->start = geom->start;
    nd->rot = geom->rot;
}

/* border point of a node in direction ang (degrees), canvas offset from centre */
static vec2 node_border(const tk_node *nd, double ang)
{
    return rot_deg(shape_border(nd, ang - nd->rot), nd->rot);
}

static const struct { const char *name; double x, y; double ang; } anchors[] = {
    { "north", 0, 1, 90 }, { "south", 0, -1, 270 }, { "east", 1, 0, 0 }, { "west", -1, 0, 180 },
    { "north east", 1, 1, 45 }, { "north west", -1, 1, 135 },
    { "south east", 1, -1, 315 }, { "south west", -1, -1, 225 },
    { "center", 0, 0, -1 }, { "mid", 0, 0, -1 }, { "base", 0, 0, -1 }, { NULL, 0, 0, 0 }
};

/* Offset of a named anchor from the centre (canvas, the node's rotation
 * applied): compass anchors, center, mid, base, and a regular polygon's
 * corner N and side N. -1 when a is no anchor name. */
static int anchor_offset(const char *a, size_t an, const tk_node *nd, vec2 *off)
{
    if (nd->shape == TK_SH_POLYGON && an > 5 &&
        (memcmp(a, "corner ", 7) == 0 || memcmp(a, "side ", 5) == 0)) {
        int side = a[0] == 's';
        const char *num = a + (side ? 5 : 7);
        size_t nn = an - (size_t)(side ? 5 : 7);
        long k = 0;
        size_t i = 0;
        while (i < nn && num[i] == ' ') i++;
        if (i == nn) return -1;
        for (; i < nn; i++) {
            if (num[i] < '0' || num[i] > '9' || k > 100000) return -1;
            k = k * 10 + (num[i] - '0');
        }
        if (k < 1) return -1;
        vec2 p = polygon_corner(nd, k);
        if (side) p = vscale(vadd(p, polygon_corner(nd, k + 1)), 0.5);
        *off = rot_deg(p, nd->rot);
        return 0;
    }
    for (int i = 0; anchors[i].name; i++) {
        if (!tk_is(a, an, anchors[i].name)) continue;
        vec2 p;
        if (anchors[i].ang < 0) {
            p = v2(0, (tk_is(a, an, "base") || tk_is(a, an, "mid")) ? nd->by : 0);
        } else if (nd->shape == TK_SH_CIRCLE || nd->shape == TK_SH_POLYGON) {
            /* a circle's compass anchors lie on the circle; a polygon's are
             * its border points toward (0,r), (r,r), ... */
            p = shape_border(nd, anchors[i].ang);
        } else if (nd->shape == TK_SH_ELLIPSE && anchors[i].x != 0 && anchors[i].y != 0) {
            p = v2(0.707107 * anchors[i].x * nd->hw, 0.707107 * anchors[i].y * nd->hh);
        } else if (nd->shape == TK_SH_DIAMOND && anchors[i].x != 0 && anchors[i].y != 0) {
            p = v2(0.5 * anchors[i].x * nd->hw, 0.5 * anchors[i].y * nd->hh);
        } else {
            p = v2(anchors[i].x * nd->hw, anchors[i].y * nd->hh);
        }
        *off = rot_deg(p, nd->rot);
        return 0;
    }
    return -1;
}

/* ---- coordinates -------------------------------------------------------------- */


static int eval_num(tikz *T, const char *s, size_t n, double *v, int *hu, int line)
{
    if (tk_eval(T, s, n, v, hu) != 0) {
        tk_warn(T, line, "cannot evaluate '%.*s'", (int)(n > 60 ? 60 : n), s);
        return -1;
    }
    return 0;
}

int tk_node_anchor(tikz *T, const tk_node *nd, const char *a, size_t an, vec2 *out)
{
    vec2 off;
    double ang;
    tk_trim(&a, &an);
    if (nd->shape == TK_SH_COORD) { *out = nd->c; return 0; }
    if (anchor_offset(a, an, nd, &off) == 0) { *out = vadd(nd->c, off); return 0; }
    if (tk_eval(T, a, an, &ang, NULL) == 0) { *out = vadd(nd->c, node_border(nd, ang)); return 0; }
    return -1;
}

static int named_point(tikz *T, const char *s, size_t n, vec2 *canvas)
{
    tk_node *nd = tk_find_node(T, s, n);
    if (nd) { *canvas = nd->c; return 0; }
    /* name.anchor or name.angle */
    for (size_t i = n; i-- > 0;) {
        if (s[i] != '.') continue;
        nd = tk_find_node(T, s, i);
        if (!nd) continue;
        return tk_node_anchor(T, nd, s + i + 1, n - i - 1, canvas);
    }
    return -1;
}

/* ($ ... $) in user space */
static int calc_coord(tikz *T, const char *s, size_t n, vec2 *out, int line)
{
    size_t i = 0;
    vec2 acc = v2(0, 0);
    int first = 1;
    while (i < n) {
        while (i < n && isspace((unsigned char)s[i])) i++;
        if (i >= n) break;
        double sign = 1;
        if (!first) {
            if (s[i] == '+') i++;
            else if (s[i] == '-') { sign = -1; i++; }
            else return -1;
            while (i < n && isspace((unsigned char)s[i])) i++;
        }
        first = 0;
        double factor = 1;
        if (i < n && s[i] != '(') {
            /* factor up to a top-level '*' */
            long star = tk_find_top(s + i, n - i, '*');
            if (star < 0) return -1;
            if (eval_num(T, s + i, (size_t)star, &factor, NULL, line)) return -1;
            i += (size_t)star + 1;
            while (i < n && isspace((unsigned char)s[i])) i++;
        }
        if (i >= n || s[i] != '(') return -1;
        long close = tk_find_top(s + i + 1, n - i - 1, ')');
        if (close < 0) return -1;
        vec2 p;
        if (tk_coord_user(T, s + i + 1, (size_t)close, &p, line)) return -1;
        i += (size_t)close + 2;
        /* modifiers */
        for (;;) {
            while (i < n && isspace((unsigned char)s[i])) i++;
            if (i >= n || s[i] != '!') break;
            i++;
            long bang = tk_find_top(s + i, n - i, '!');
            if (bang < 0) return -1;
            const char *spec = s + i;
            size_t sn = (size_t)bang;
            i += (size_t)bang + 1;
            while (i < n && isspace((unsigned char)s[i])) i++;
            double rot = 0;
            if (i < n && s[i] != '(') {
                long colon = tk_find_top(s + i, n - i, ':');
                if (colon < 0) return -1;
                if (eval_num(T, s + i, (size_t)colon, &rot, NULL, line)) return -1;
                i += (size_t)colon + 1;
                while (i < n && isspace((unsigned char)s[i])) i++;
            }
            if (i >= n || s[i] != '(') return -1;
            close = tk_find_top(s + i + 1, n - i - 1, ')');
            if (close < 0) return -1;
            vec2 q;
            if (tk_coord_user(T, s + i + 1, (size_t)close, &q, line)) return -1;
            i += (size_t)close + 2;
            /* rotate q around p */
            if (rot != 0) {
                vec2 d = vsub(q, p);
                double c = cos(rot * DEG), sn2 = sin(rot * DEG);
                q = vadd(p, v2(d.x * c - d.y * sn2, d.x * sn2 + d.y * c));
            }
            const char *sp = spec;
            size_t spn = sn;
            tk_trim(&sp, &spn);
            if (spn && sp[0] == '(') {
                /* projection of a point onto line p-q */
                vec2 c3;
                if (spn < 2 || tk_coord_user(T, sp + 1, spn - 2, &c3, line)) return -1;
                vec2 d = vsub(q, p);
                double L2 = d.x * d.x + d.y * d.y;
                double t = L2 > 0 ? ((c3.x - p.x) * d.x + (c3.y - p.y) * d.y) / L2 : 0;
                p = vadd(p, vscale(d, t));
            } else {
                double v;
                int hu = 0;
                if (eval_num(T, sp, spn, &v, &hu, line)) return -1;
                vec2 d = vsub(q, p);
                if (hu) {
                    double L = vlen(d);
                    p = L > 0 ? vadd(p, vscale(d, v / L)) : p;
                } else {
                    p = vadd(p, vscale(d, v));
                }
            }
        }
        acc = vadd(acc, vscale(p, sign * factor));
    }
    *out = acc;
    return 0;
}

static vec2 xyz_point(const gstate *g, double x, double y, double z)
{
    return vadd(vadd(vscale(g->xv, x), vscale(g->yv, y)), vscale(g->zv, z));
}

/* the first "cs:" in s[0,n) (tk_memmem(s, n, "cs:"), by its ':'s) */
static const char *find_cs(const char *s, size_t n)
{
    for (size_t i = 2; i < n;) {
        const char *c = memchr(s + i, ':', n - i);
        if (!c) return NULL;
        if (c[-1] == 's' && c[-2] == 'c') return c - 2;
        i = (size_t)(c - s) + 1;
    }
    return NULL;
}

/* The most common coordinate by far, (1,0) or (1,0,1): two or three unsigned
 * integers of 1 to 9 digits separated by single commas, nothing else (no
 * spaces, signs, units). Their count, their values in v; 0 for any other text.
 * Exactly what the general path below finds for such a text: no trim, no
 * '[', '$', "cs:", "intersection of" or ':'; the commas are c1 and c2; and
 * tk_eval reads each part by its digits-only fast path as (double)m with no
 * unit (tests/unit/test_coordfast.c compares the two). */
static int int_tuple(const char *s, size_t n, double v[3])
{
    int k = 0;
    size_t i = 0;
    for (;;) {
        unsigned m = 0;
        size_t st = i;
        while (i < n && (unsigned)(s[i] - '0') <= 9) m = m * 10 + (unsigned)(s[i++] - '0');
        if (i == st || i - st > 9) return 0;
        v[k++] = (double)m;
        if (i == n) return k >= 2 ? k : 0;
        if (s[i] != ',' || k == 3) return 0;
        i++;
    }
}

int tk_coord_user(tikz *T, const char *s, size_t n, vec2 *out, int line)
{
    double v[3];
    int k = int_tuple(s, n, v);
    if (k == 3) {
        *out = xyz_point(GS(T), v[0], v[1], v[2]);
        T->last3 = (vec3){ v[0], v[1], v[2] };
        T->last3_kind = 2;
        T->any3d = 1;
        return 0;
    }
    if (k == 2) {
        gstate *g = GS(T);
        *out = vadd(vscale(g->xv, v[0]), vscale(g->yv, v[1]));
        T->last3 = (vec3){ v[0], v[1], 0 };
        T->last3_kind = 1;
        return 0;
    }
    return tk_coord_user_general(T, s, n, out, line);
}

int tk_coord_user_general(tikz *T, const char *s, size_t n, vec2 *out, int line)
{
    gstate *g = GS(T);
    T->last3_kind = 0;
    tk_trim(&s, &n);
    if (n && s[0] == '[') {
        /* ([options]coordinate): the options' transformations apply to this
         * point only, e.g. ([xshift=1cm]A) is 1cm right of A */
        long e = tk_find_top(s + 1, n - 1, ']');
        if (e < 0) return -1;
        const char *o = s + 1;
        size_t on = (size_t)e;
        s += e + 2;
        n -= (size_t)e + 2;
        vec2 u;
        if (tk_coord_user(T, s, n, &u, line)) return -1;
        mat old = g->ctm;
        tk_gs_push(T);
        tk_apply_opts(T, o, on, NULL, 0);
        vec2 c = mat_apply(GS(T)->ctm, u);
        tk_gs_pop(T);
        *out = mat_inv_apply(old, c);
        return 0;
    }
    if (n == 0) return -1;
    if (n >= 2 && s[0] == '$' && s[n - 1] == '$') return calc_coord(T, s + 1, n - 2, out, line);
    const char *cs = find_cs(s, n);
    if (cs) {
        const char *body = cs + 3;
        size_t bn = n - (size_t)(body - s);
        const char *kind = s;
        size_t kn = (size_t)(cs - s);
        tk_trim(&kind, &kn);
        if (tk_is(kind, kn, "axis") && T->axis.active) {
            long comma = tk_find_top(body, bn, ',');
            double x, y;
            if (comma < 0 || eval_num(T, body, (size_t)comma, &x, NULL, line) ||
                eval_num(T, body + comma + 1, bn - (size_t)comma - 1, &y, NULL, line))
                return -1;
            *out = xyz_point(g, x, y, 0);
            return 0;
        }
        if (tk_is(kind, kn, "canvas") || tk_is(kind, kn, "xyz")) {
            /* x=..,y=.. */
            double x = 0, y = 0, z = 0;
            size_t i = 0;
            while (i < bn) {
                long comma = tk_find_top(body + i, bn - i, ',');
                size_t len = comma < 0 ? bn - i : (size_t)comma;
                const char *it = body + i;
                size_t itn = len;
                tk_trim(&it, &itn);
                if (itn > 2 && it[1] == '=') {
                    double v;
                    if (eval_num(T, it + 2, itn - 2, &v, NULL, line)) return -1;
                    if (it[0] == 'x') x = v; else if (it[0] == 'y') y = v; else if (it[0] == 'z') z = v;
                }
                i += len + 1;
            }
            *out = tk_is(kind, kn, "canvas") ? v2(x, y) : xyz_point(g, x, y, z);
            return 0;
        }
        return -1;
    }
    if (n > 16 && memcmp(s, "intersection of", 15) == 0) {
        /* intersection of A--B and C--D */
        const char *b = s + 15;
        size_t bn = n - 15;
        const char *and = tk_memmem(b, bn, " and ");
        if (!and) return -1;
        vec2 p[4];
        const char *parts[2] = { b, and + 5 };
        size_t plen[2] = { (size_t)(and - b), bn - (size_t)(and + 5 - b) };
        for (int k = 0; k < 2; k++) {
            const char *dd = tk_memmem(parts[k], plen[k], "--");
            if (!dd) return -1;
            if (tk_coord_user(T, parts[k], (size_t)(dd - parts[k]), &p[2 * k], line) ||
                tk_coord_user(T, dd + 2, plen[k] - (size_t)(dd + 2 - parts[k]), &p[2 * k + 1], line))
                return -1;
        }
        vec2 d1 = vsub(p[1], p[0]), d2 = vsub(p[3], p[2]);
        double den = d1.x * d2.y - d1.y * d2.x;
        if (fabs(den) < 1e-12) return -1;
        double t = ((p[2].x - p[0].x) * d2.y - (p[2].y - p[0].y) * d2.x) / den;
        *out = vadd(p[0], vscale(d1, t));
        return 0;
    }
    /* the first ':' and the first two ','s outside (), {}, [] in one pass
     * (as tk_find_top finds them) */
    long colon = -1, c1 = -1, c2 = -1;
    {
        int d = 0;
        for (size_t i = 0; i < n; i++) {
            char c = s[i];
            if (d == 0) {
                if (c == ':') { if (colon < 0) colon = (long)i; continue; }
                if (c == ',') {
                    if (c1 < 0) c1 = (long)i;
                    else if (c2 < 0) c2 = (long)i;
                    continue;
                }
            }
            if (c == '(' || c == '{' || c == '[') d++;
            else if ((c == ')' || c == '}' || c == ']') && d > 0) d--;
        }
    }
    if (colon >= 0) {
        double a, r, r2;
        int hu = 0, hu2 = 0;
        const char *rs = s + colon + 1;
        size_t rn = n - (size_t)colon - 1;
        const char *and = tk_memmem(rs, rn, " and ");
        if (eval_num(T, s, (size_t)colon, &a, NULL, line)) return -1;
        if (and) {
            if (eval_num(T, rs, (size_t)(and - rs), &r, &hu, line) ||
                eval_num(T, and + 5, rn - (size_t)(and + 5 - rs), &r2, &hu2, line))
                return -1;
        } else {
            if (eval_num(T, rs, rn, &r, &hu, line)) return -1;
            r2 = r;
            hu2 = hu;
        }
        vec2 px = hu ? v2(r * cos(a * DEG), 0) : vscale(g->xv, r * cos(a * DEG));
        vec2 py = hu2 ? v2(0, r2 * sin(a * DEG)) : vscale(g->yv, r2 * sin(a * DEG));
        *out = vadd(px, py);
        return 0;
    }
    if (c1 >= 0) {
        double x, y, z = 0;
        int hx = 0, hy = 0, hz = 0;
        if (c2 >= 0) {
            if (eval_num(T, s, (size_t)c1, &x, &hx, line) ||
                eval_num(T, s + c1 + 1, (size_t)(c2 - c1 - 1), &y, &hy, line) ||
                eval_num(T, s + c2 + 1, n - (size_t)c2 - 1, &z, &hz, line))
                return -1;
            *out = xyz_point(g, x, y, z);
            T->last3 = (vec3){ x, y, z };
            T->last3_kind = 2;
            T->any3d = 1;
            return 0;
        }
        if (eval_num(T, s, (size_t)c1, &x, &hx, line) ||
            eval_num(T, s + c1 + 1, n - (size_t)c1 - 1, &y, &hy, line))
            return -1;
        vec2 px = hx ? v2(x, 0) : vscale(g->xv, x);
        vec2 py = hy ? v2(0, y) : vscale(g->yv, y);
        *out = vadd(px, py);
        if (!hx && !hy) { T->last3 = (vec3){ x, y, 0 }; T->last3_kind = 1; }
        return 0;
    }
    vec2 c;
    if (named_point(T, s, n, &c) == 0) {
        *out = mat_inv_apply(g->ctm, c);
        tk_node *nd = tk_find_node(T, s, n);
        if (nd && nd->has3) { T->last3 = nd->p3; T->last3_kind = 3; }
        return 0;
    }
    tk_warn(T, line, "undefined coordinate or node '%.*s'", (int)(n > 60 ? 60 : n), s);
    return -1;
}

/* TeX's largest dimension: a point beyond it is "Dimension too large" */
#define MAX_DIMEN_PT 16383.99998

int tk_coord(tikz *T, const char *s, size_t n, vec2 *out, int line)
{
    vec2 u;
    T->cur3_ok = 0;
    if (tk_coord_user(T, s, n, &u, line)) return -1;
    /* after coord_user: ([options]A) pushes a graphics state, which may move
     * the stack */
    gstate *g = GS(T);
    *out = mat_apply(g->ctm, u);
    if (!(fabs(out->x) <= MAX_DIMEN_PT) || !(fabs(out->y) <= MAX_DIMEN_PT)) {
        tk_warn(T, line, "coordinate '%.*s' lies beyond TeX's largest dimension (16384pt)",
                (int)(n > 60 ? 60 : n), s);
        return -1;
    }
    if (T->last3_kind == 3) { T->cur3 = T->last3; T->cur3_ok = 1; }
    else if ((T->last3_kind == 1 || T->last3_kind == 2) && g->ok3) {
        T->cur3 = (vec3){ g->s3 * T->last3.x + g->t3.x, g->s3 * T->last3.y + g->t3.y,
                          g->s3 * T->last3.z + g->t3.z };
        T->cur3_ok = 1;
    }
    return 0;
}

/* ---- node options ---------------------------------------------------------------- */

void tk_nodeopts_init(tikz *T, tk_nodeopts *no)
{
    gstate *g = GS(T);
    memset(no, 0, sizeof *no);
    no->shape = 1;
    no->inner_sep_x = no->inner_sep_y = -1;
    no->outer_sep = -1;
    no->font_size = g->font_size;
    no->bold = g->bold;
    no->lw = g->lw;
    no->sides = g->poly_sides ? g->poly_sides : 5;
    no->aspect = g->aspect > 0 ? g->aspect : 1;
    no->border_rotate = g->border_rotate;
    strcpy(no->anchor, "center");
}

void tk_nodeopts_free(tk_nodeopts *no)
{
    for (int i = 0; i < no->nlabels; i++) free(no->labels[i].spec);
    free(no->labels);
    no->labels = NULL;
    no->nlabels = no->caplabels = 0;
    free(no->name);
    no->name = NULL;
}

void tk_nodeopts_add_label(tikz *T, tk_nodeopts *no, const char *spec, size_t n, int pin)
{
    if (no->nlabels >= MAX_LABELS) {
        if (no->nlabels++ == MAX_LABELS)
            tk_warn(T, T->cmd_line, "node with more than %d label= and pin= options; the rest dropped",
                    MAX_LABELS);
        return;
    }
    if (no->nlabels == no->caplabels) {
        no->caplabels = no->caplabels ? no->caplabels * 2 : 4;
        no->labels = xrealloc(no->labels, (size_t)no->caplabels * sizeof *no->labels);
    }
    no->labels[no->nlabels].spec = xstrndup(spec, n);
    no->labels[no->nlabels].pin = pin;
    no->nlabels++;
}

/* Keys of the angles library and of pins; their values are kept in the
 * graphics state (scoped as TikZ scopes them). */
int tk_apply_lib_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn)
{
    gstate *g = GS(T);
    double d;
    if (tk_is(k, kn, "angle radius") || tk_is(k, kn, "angle eccentricity") ||
        tk_is(k, kn, "pin distance")) {
        if (tk_eval(T, v, vn, &d, NULL) != 0) {
            tk_warn(T, T->cmd_line, "cannot evaluate %.*s '%.*s'", (int)kn, k,
                    (int)(vn > 60 ? 60 : vn), v);
            return 1;
        }
        if (k[0] == 'p') { g->pin_distance = d; g->lib_set |= TK_SET_PIN_DISTANCE; }
        else if (k[6] == 'r') { g->angle_radius = d; g->lib_set |= TK_SET_ANGLE_RADIUS; }
        else { g->angle_ecc = d; g->lib_set |= TK_SET_ANGLE_ECC; }
        return 1;
    }
    if (tk_is(k, kn, "pin edge")) {
        const char *w = v;
        size_t wn = vn;
        tk_unbrace(&w, &wn);
        if (wn >= TK_PIN_EDGE_MAX) {
            tk_warn(T, T->cmd_line, "pin edge options longer than %d bytes ignored",
                    TK_PIN_EDGE_MAX - 1);
            return 1;
        }
        g->pin_edge = tk_intern(T, w, wn);
        return 1;
    }
    return 0;
}

/* ---- IR emission ------------------------------------------------------------------ */

/* numeric attributes, formatted as the IR writer formats numbers */
void tk_set_nums(ir_elem *e, const char *key, const double *v, int n)
{
    char buf[160], num[32];
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        const char *s = ir_fmt_num(num, v[i]);
        size_t l = strlen(s);
        if (k + l + 2 >= sizeof buf) break;
        if (i) buf[k++] = ',';
        memcpy(buf + k, s, l);
        k += l;
    }
    buf[k] = 0;
    ir_elem_set(e, key, buf);
}

void tk_set_num(ir_elem *e, const char *key, double v) { tk_set_nums(e, key, &v, 1); }

size_t tk_xyz_text(char *o, vec3 p)
{
    const double v[3] = { p.x, p.y, p.z };
    size_t k = 0;
    for (int c = 0; c < 3; c++) {
        char num[32];
        const char *t = ir_fmt_num(num, v[c]);
        size_t l = strlen(t);
        if (c) o[k++] = ',';
        memcpy(o + k, t, l);
        k += l;
    }
    o[k] = 0;
    return k;
}

size_t tk_xyz_text_cached(struct tk_xyzcache *c, char *o, vec3 p)
{
    uint64_t k[3];
    memcpy(&k[0], &p.x, sizeof k[0]);
    memcpy(&k[1], &p.y, sizeof k[1]);
    memcpy(&k[2], &p.z, sizeof k[2]);
    unsigned h = (unsigned)((k[0] * 0x9E3779B97F4A7C15ull ^ k[1] * 0xC2B2AE3D27D4EB4Full ^
                             k[2] * 0x165667B19E3779F9ull) >> 56) % TK_XYZ_SLOTS;
    struct tk_xyzslot *e = &c->e[h];
    if (e->len && memcmp(e->k, k, sizeof k) == 0) {
        memcpy(o, e->text, (size_t)e->len + 1);
        return e->len;
    }
    size_t len = tk_xyz_text(o, p);
    memcpy(e->k, k, sizeof k);
    e->len = (unsigned char)len;
    memcpy(e->text, o, len + 1);
    return len;
}

/* xyz=X,Y,Z;X,Y,Z;... the 3D points of a polyline */
static void set_xyz(tikz *T, ir_elem *e, const vec3 *p, size_t n)
{
    if (!n) return;
    if (!T->xyzcache) T->xyzcache = xcalloc(1, sizeof *T->xyzcache);
    char small[1024];
    size_t cap = n * (TK_XYZ_MAX + 1);
    char *b = cap <= sizeof small ? small : xmalloc(cap);
    char *o = b;
    for (size_t i = 0; i < n; i++) {
        if (i) *o++ = ';';
        o += tk_xyz_text_cached(T->xyzcache, o, p[i]);
    }
    ir_elem_set(e, "xyz", b);
    if (b != small) free(b);
}

static void color_attr(ir_elem *e, const char *key, const char *c)
{
    ir_elem_set(e, key, c && c[0] ? c : "black");
}

void tk_emit_attrs(tikz *T, ir_elem *e, int draw, int fill)
{
    gstate *g = GS(T);
    if (draw) color_attr(e, "draw", g->drawc[0] ? g->drawc : g->color);
    else ir_elem_set(e, "draw", "none");
    if (fill) color_attr(e, "fill", g->fillc[0] ? g->fillc : g->color);
    else ir_elem_set(e, "fill", "none");
    if (draw) {
        tk_set_num(e, "lw", g->lw);
        if (strcmp(g->dash, "solid") != 0) ir_elem_set(e, "dash", g->dash);
        if (g->arrows[0]) ir_elem_set(e, "arrows", g->arrows);
    }
    if (g->rounded > 0) tk_set_num(e, "rounded", g->rounded);
    if (g->role[0]) ir_elem_set(e, "role", g->role);
    if (g->clip) tk_set_num(e, "clip", g->clip);
    if (g->overlay) ir_elem_set(e, "overlay", "1");
}

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
} pending_node;

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
    struct tk_pathbufs b;     /* the pool of the pieces' points */
    /* Last: tk_run_path zeroes the state only up to here. An entry of these
     * is read only below npts, after tp_coord (or tp_controls_single, for
     * pts and pts_rel) wrote it in this path. */
    vec2 pts[8];
    int pts_rel[8];           /* the point was written +(..) or ++(..) */
    vec2 pts_vec[8];          /* its offset, canvas */
    vec3 pts3[8];
    int pts3ok[8];
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
static void place_node_geom(tikz *T, tk_nodeopts *no, vec2 at, const char *text, int line,
                            const vec2 *seg, int nseg, tk_node *geom);
static void place_label(tikz *T, const char *spec, const tk_node *main, int line,
                        int pin);

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
        if (!(fabs(p.x) <= MAX_DIMEN_PT) || !(fabs(p.y) <= MAX_DIMEN_PT)) {
            tk_unparsed(T, line, c->s, "relative coordinate beyond TeX's largest dimension");
            st->bad_coord = 1;
            p = st->cur;
            rel_vec = v2(0, 0);
        }
        if (rel == 2) st->relbase = p;
    } else {
        if (tk_coord(T, c->s, (size_t)c->n, &p, line)) {
            tk_unparsed(T, line, c->s, "cannot evaluate coordinate");
            st->bad_coord = 1;
            p = st->cur;
        }
        st->relbase = p;
    }
    if (st->npts < 8) {
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
    st->cur3 = k >= 0 ? st->pts3[k] : st->cur3;
    st->cur3ok = k >= 0 && st->pts3ok[k];
    st->sub_start = p;
    st->cur = p;
    st->have_cur = 1;
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

void tp_cycle_target(struct tp_state *st) { st->cycle = 1; }

void tp_line(struct tp_state *st, int kind)
{
    vec2 from = st->cur, to;
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
    int k = st->npts - 1;
    to = pop_pt(st);
    st->npts = 0;
    if (kind == 0) {
        line_to3(st, to, k >= 0 && st->pts3ok[k] ? &st->pts3[k] : NULL);
        st->seg_kind = SEG_LINE;
        st->seg[0] = from;
        st->seg[1] = to;
    } else {
        /* -| : horizontal then vertical (in canvas for untransformed pictures) */
        vec2 corner = kind == 1 ? v2(to.x, from.y) : v2(from.x, to.y);
        line_to(st, corner);
        line_to(st, to);
        st->seg_kind = SEG_HV;
        st->seg[0] = from;
        st->seg[1] = corner;
        st->seg[2] = to;
    }
    place_pending(st, 1);
}

void tp_rectangle(struct tp_state *st)
{
    tikz *T = st->T;
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

void tp_circle_args(struct tp_state *st, const struct tp_str *opts, const struct tp_str *paren)
{
    tikz *T = st->T;
    gstate *g = GS(T);
    st->ca_ok = 0;
    if (opts) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
    if (paren) {
        const char *s = paren->s;
        size_t n = strlen(s);
        const char *and = tk_memmem(s, n, " and ");
        double rx, ry;
        int hx = 0, hy = 0;
        if (and) {
            if (tk_eval(T, s, (size_t)(and - s), &rx, &hx) || tk_eval(T, and + 5, n - (size_t)(and + 5 - s), &ry, &hy)) {
                tk_unparsed(T, off_line(st, paren->off), s, "cannot evaluate radius");
                return;
            }
        } else {
            if (tk_eval(T, s, n, &rx, &hx)) {
                tk_unparsed(T, off_line(st, paren->off), s, "cannot evaluate radius");
                return;
            }
            ry = rx;
            hy = hx;
        }
        radii_vectors(T, rx, hx, ry, hy, &st->ca_A, &st->ca_B);
        st->ca_ok = 1;
    } else if (g->has_radius) {
        radii_vectors(T, g->radius_x, g->radius_x_unit, g->radius_y, g->radius_y_unit, &st->ca_A, &st->ca_B);
        st->ca_ok = 1;
    }
}

void tp_circle(struct tp_state *st, int ellipse)
{
    (void)ellipse;
    if (!st->ca_ok) {
        tk_warn(st->T, st->line, "circle without a radius");
        return;
    }
    flush_sub(st, 0);
    vec2 p[3] = { st->cur, st->ca_A, st->ca_B };
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
        double rx, ry;
        int hx = 0, hy = 0;
        const char *rs = s + c2 + 1;
        size_t rn = n - (size_t)c2 - 1;
        const char *and = tk_memmem(rs, rn, " and ");
        if (tk_eval(T, s, (size_t)c1, &st->arc_a1, NULL) ||
            tk_eval(T, s + c1 + 1, (size_t)(c2 - c1 - 1), &st->arc_a2, NULL)) {
            tk_unparsed(T, off_line(st, paren->off), s, "cannot evaluate arc angles");
            return;
        }
        if (and) {
            if (tk_eval(T, rs, (size_t)(and - rs), &rx, &hx) ||
                tk_eval(T, and + 5, rn - (size_t)(and + 5 - rs), &ry, &hy)) {
                tk_unparsed(T, off_line(st, paren->off), s, "cannot evaluate arc radius");
                return;
            }
        } else {
            if (tk_eval(T, rs, rn, &rx, &hx)) {
                tk_unparsed(T, off_line(st, paren->off), s, "cannot evaluate arc radius");
                return;
            }
            ry = rx;
            hy = hx;
        }
        radii_vectors(T, rx, hx, ry, hy, &st->ca_A, &st->ca_B);
        st->ca_ok = 1;
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

static void curve_to(struct tp_state *st, vec2 c1, vec2 c2, vec2 to)
{
    flush_sub(st, 0);
    vec2 p[4] = { st->cur, c1, c2, to };
    add_piece(st, IR_CURVE, 0, p, 4, 0, 0, NULL);
    st->seg_kind = SEG_CURVE;
    memcpy(st->seg, p, sizeof p);
    st->cur = to;
    st->relbase = to;
}

static void to_op(struct tp_state *st, const struct tp_str *opts, int edge)
{
    tikz *T = st->T;
    tk_gs_push(T);
    gstate *g = GS(T);
    g->bend = 0;
    g->has_in = g->has_out = 0;
    if (opts && opts->s) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
    vec2 from = st->cur, to;
    int was_cycle = st->cycle;
    if (st->cycle) { to = st->sub_start; st->cycle = 0; }
    else to = pop_pt(st);
    st->npts = 0;
    double bend = g->bend;
    int curved = bend != 0 || g->has_in || g->has_out;
    vec2 d = vsub(to, from);
    double L = vlen(d);
    double ang = atan2(d.y, d.x) / DEG;
    double out_a = g->has_out ? g->out_a : ang + bend;
    double in_a = g->has_in ? g->in_a : ang + 180 - bend;
    tk_gs_pop(T);
    if (edge) {
        /* an edge is a separate path from the current point */
        vec2 saved_cur = st->cur;
        flush_sub(st, 0);
        if (curved) {
            vec2 c1 = vadd(from, vscale(v2(cos(out_a * DEG), sin(out_a * DEG)), 0.3915 * L));
            vec2 c2 = vadd(to, vscale(v2(cos(in_a * DEG), sin(in_a * DEG)), 0.3915 * L));
            curve_to(st, c1, c2, to);
        } else {
            vec2 p[2] = { from, to };
            add_piece(st, IR_POLY, 0, p, 2, 0, 0, NULL);
            st->seg_kind = SEG_LINE;
            st->seg[0] = from;
            st->seg[1] = to;
        }
        place_pending(st, 1);
        st->cur = saved_cur;
        return;
    }
    if (curved) {
        vec2 c1 = vadd(from, vscale(v2(cos(out_a * DEG), sin(out_a * DEG)), 0.3915 * L));
        vec2 c2 = vadd(to, vscale(v2(cos(in_a * DEG), sin(in_a * DEG)), 0.3915 * L));
        curve_to(st, c1, c2, to);
    } else if (was_cycle && st->nsub >= 2) {
        /* "to cycle" closes the subpath, as "-- cycle" does */
        st->seg_kind = SEG_LINE;
        st->seg[0] = from;
        st->seg[1] = to;
        st->cur = to;
        flush_sub(st, 1);
    } else {
        line_to(st, to);
        st->seg_kind = SEG_LINE;
        st->seg[0] = from;
        st->seg[1] = to;
    }
    place_pending(st, 1);
}

void tp_to(struct tp_state *st, const struct tp_str *opts) { to_op(st, opts, 0); }
void tp_edge(struct tp_state *st, const struct tp_str *opts) { to_op(st, opts, 1); }

void tp_controls_single(struct tp_state *st)
{
    /* one control point: duplicate it */
    if (st->npts >= 1 && st->npts < 8) {
        st->pts[st->npts] = st->pts[st->npts - 1];
        st->pts_rel[st->npts] = 0;
        st->npts++;
    }
    st->single_control = 1;
}

void tp_controls(struct tp_state *st)
{
    if (st->npts < 3) { st->npts = 0; return; }
    vec2 to = st->pts[st->npts - 1], c2 = st->pts[st->npts - 2], c1 = st->pts[st->npts - 3];
    /* TikZ: a relative second control point is relative to the end point */
    if (st->pts_rel[st->npts - 2] && !st->single_control) c2 = vadd(to, st->pts_vec[st->npts - 2]);
    st->single_control = 0;
    st->npts = 0;
    curve_to(st, c1, c2, to);
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
    vec2 c0 = st->cur;
    vec2 c1 = vadd(c0, mat_apply(m, v2(k[0] * d_user.x, k[1] * d_user.y)));
    vec2 c2 = vadd(c0, mat_apply(m, v2(k[2] * d_user.x, k[3] * d_user.y)));
    vec2 to = vadd(c0, mat_apply(m, d_user));
    curve_to(st, c1, c2, to);
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
    vec2 p = st->cur;
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
            place_label(T, no.labels[i].spec, &pt, st->line, no.labels[i].pin);
        tk_gs_pop(T);
        tk_nodeopts_free(&no);
    }
    if (pn->name) {
        tk_add_node(T, pn->name, p, 0, 0, 0, 0);
        tk_node *nd = tk_find_node(T, pn->name, strlen(pn->name));
        if (nd && pn->at && T->cur3_ok) { nd->p3 = T->cur3; nd->has3 = 1; }
        else if (nd && !pn->at && st->cur3ok) { nd->p3 = st->cur3; nd->has3 = 1; }
    }
    free(pn->opts); free(pn->name); free(pn->at); free(pn->text);
    memset(pn, 0, sizeof *pn);
}

static void plot_points(struct tp_state *st, vec2 *p, size_t n)
{
    if (n == 0) return;
    flush_sub(st, 0);
    for (size_t i = 0; i < n; i++) sub_add(st, p[i]);
    st->sub_start = p[0];
    st->cur = p[n - 1];
    st->relbase = st->cur;
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

/* replaces \x by a number in an expression */
static char *subst_var(const char *s, const char *var, double v)
{
    char num[40];
    snprintf(num, sizeof num, "(%.10g)", v);
    size_t vl = strlen(var), nl = strlen(num);
    struct tp_buf b = { 0 };
    tp_buf_add(&b, "", 0);
    for (size_t i = 0; s[i];) {
        if (strncmp(s + i, var, vl) == 0 && !isalpha((unsigned char)s[i + vl])) {
            tp_buf_add(&b, num, nl);
            i += vl;
        } else {
            tp_buf_add(&b, s + i, 1);
            i++;
        }
    }
    return b.s;
}

void tp_plot_expr(struct tp_state *st, const struct tp_str *opts, const struct tp_str *c)
{
    tikz *T = st->T;
    gstate *g = GS(T);
    if (opts && opts->s) tk_apply_opts(T, opts->s, strlen(opts->s), NULL, 0);
    int ns = g->samples;
    vec2 *pts = xrealloc(NULL, (size_t)ns * sizeof *pts);
    size_t np = 0;
    for (int k = 0; k < ns; k++) {
        double x = g->dom0 + (g->dom1 - g->dom0) * k / (ns - 1);
        char *e = subst_var(c->s, "\\x", x);
        vec2 p;
        if (tk_coord(T, e, strlen(e), &p, st->line) == 0) pts[np++] = p;
        free(e);
    }
    plot_points(st, pts, np);
    free(pts);
}

/* ---- pics: the angles library (with quotes) ------------------------------------- */

/* The options of an angle pic: "text"opts (quotes), pic text=, pic text
 * options= are taken out; the rest are the pic's actions (draw, fill, ->,
 * angle radius=, ...). */
static void pic_options(const char *s, struct tp_buf *actions, char **text, char **topts)
{
    size_t n = s ? strlen(s) : 0, i = 0;
    while (i < n) {
        size_t st = i;
        int dd = 0;
        while (i < n) {
            char c = s[i];
            if (c == '{' || c == '(' || c == '[') dd++;
            else if ((c == '}' || c == ')' || c == ']') && dd > 0) dd--;
            else if (c == ',' && dd == 0) break;
            i++;
        }
        const char *it = s + st;
        size_t in = i - st;
        i++;
        tk_trim(&it, &in);
        if (in == 0) continue;
        if (it[0] == '"') {
            const char *q = memchr(it + 1, '"', in - 1);
            size_t tl = q ? (size_t)(q - it - 1) : in - 1;
            const char *rest = q ? q + 1 : it + in;
            size_t rn = (size_t)(it + in - rest);
            tk_trim(&rest, &rn);
            if (rn && rest[0] == '\'') { rest++; rn--; }
            tk_unbrace(&rest, &rn);
            free(*text);
            *text = xstrndup(it + 1, tl);
            free(*topts);
            *topts = xrealloc(NULL, rn + 20);
            snprintf(*topts, rn + 20, "every pic quotes,%.*s", (int)rn, rest);
            continue;
        }
        long eq = tk_find_top(it, in, '=');
        if (eq > 0) {
            const char *k = it, *v = it + eq + 1;
            size_t kn = (size_t)eq, vn = in - (size_t)eq - 1;
            tk_trim(&k, &kn);
            tk_unbrace(&v, &vn);
            if (tk_is(k, kn, "pic text")) { free(*text); *text = xstrndup(v, vn); continue; }
            if (tk_is(k, kn, "pic text options")) { free(*topts); *topts = xstrndup(v, vn); continue; }
        }
        if (actions->n) tp_buf_add(actions, ",", 1);
        tp_buf_add(actions, it, in);
    }
}

/* pic {angle=A--B--C} and pic {right angle=A--B--C}, as tikzlibraryangles
 * draws them: at B, from the direction of A counter-clockwise to that of C,
 * an arc (or the square mark) of angle radius, drawn and filled only as the
 * pic's own options say, and the pic text at angle eccentricity times the
 * radius along the bisector. */
void tp_pic(struct tp_state *st, const struct tp_str *body)
{
    tikz *T = st->T;
    pending_node *pn = &st->curnode;
    int line = off_line(st, body->off);
    st->line = line;
    char src[300];
    snprintf(src, sizeof src, "pic%s%s%s {%s}", pn->opts ? "[" : "", pn->opts ? pn->opts : "",
             pn->opts ? "]" : "", body->s);
    const char *b = body->s, *val = "A--B--C";
    size_t bn = strlen(b), vn = 7;
    tk_trim(&b, &bn);
    long eq = tk_find_top(b, bn, '=');
    const char *key = b;
    size_t kn = bn;
    if (eq >= 0) { kn = (size_t)eq; val = b + eq + 1; vn = bn - (size_t)eq - 1; }
    tk_trim(&key, &kn);
    tk_unbrace(&val, &vn);
    int right;
    if (tk_is(key, kn, "angle")) right = 0;
    else if (tk_is(key, kn, "right angle")) right = 1;
    else { tk_unparsed(T, line, src, "pic type not supported"); goto done; }
    const char *nm[3];
    size_t nl[3];
    {
        const char *d1 = tk_memmem(val, vn, "--");
        const char *d2 = d1 ? tk_memmem(d1 + 2, vn - (size_t)(d1 + 2 - val), "--") : NULL;
        if (!d2) { tk_unparsed(T, line, src, "angle pic needs three points A--B--C"); goto done; }
        nm[0] = val; nl[0] = (size_t)(d1 - val);
        nm[1] = d1 + 2; nl[1] = (size_t)(d2 - d1 - 2);
        nm[2] = d2 + 2; nl[2] = vn - (size_t)(d2 + 2 - val);
    }
    vec2 P[3];
    for (int k = 0; k < 3; k++) {
        tk_trim(&nm[k], &nl[k]);
        if (named_point(T, nm[k], nl[k], &P[k]) != 0) {
            char why[120];
            snprintf(why, sizeof why, "angle pic: no node or coordinate named '%.*s'",
                     (int)(nl[k] > 40 ? 40 : nl[k]), nm[k]);
            tk_unparsed(T, line, src, why);
            goto done;
        }
    }
    struct tp_buf actions = { 0 };
    char *text = NULL, *topts = NULL;
    pic_options(pn->opts, &actions, &text, &topts);
    tk_gs_push(T);
    gstate *g = GS(T);
    /* the pic draws and fills only when its own options say so */
    g->draw = g->fill = 0;
    g->drawc[0] = g->fillc[0] = 0;
    g->role[0] = 0;
    tk_apply_opts(T, "every pic", 9, NULL, 0);
    if (actions.n) tk_apply_opts(T, actions.s, actions.n, NULL, 0);
    free(actions.s);
    g = GS(T);   /* the options may have grown the state stack */
    /* the angles, in the pic's coordinate system */
    vec2 U[3];
    for (int k = 0; k < 3; k++) U[k] = mat_inv_apply(g->ctm, P[k]);
    double a1 = atan2(U[0].y - U[1].y, U[0].x - U[1].x) / DEG;
    double a2 = atan2(U[2].y - U[1].y, U[2].x - U[1].x) / DEG;
    if (a2 < a1) a1 -= 360;
    double r = g->lib_set & TK_SET_ANGLE_RADIUS ? g->angle_radius : ANGLE_RADIUS_PT;
    if (!(r > 0)) r = 12;
    double ecc = g->lib_set & TK_SET_ANGLE_ECC ? g->angle_ecc : 0.6;
    vec2 V = P[1];
    if (T->d && (g->draw || g->fill)) {
        ir_elem *e;
        if (!right) {
            e = ir_add(T->d, IR_ARC);
            vec2 ax = mat_lin(g->ctm, v2(r, 0)), ay = mat_lin(g->ctm, v2(0, r));
            ir_pt p[3] = { { V.x, V.y }, { ax.x, ax.y }, { ay.x, ay.y } };
            ir_elem_set_pts(e, p, 3);
            e->t1 = a1;
            e->t2 = a2;
        } else {
            vec2 us = mat_lin(g->ctm, v2(r * cos(a1 * DEG), r * sin(a1 * DEG)));
            vec2 ue = mat_lin(g->ctm, v2(r * cos(a2 * DEG), r * sin(a2 * DEG)));
            vec2 q1 = vadd(V, us), q2 = vadd(q1, ue), q3 = vadd(V, ue);
            e = ir_add(T->d, IR_POLY);
            if (g->fill) {
                /* the filled square with its vertex */
                ir_pt p[4] = { { V.x, V.y }, { q1.x, q1.y }, { q2.x, q2.y }, { q3.x, q3.y } };
                ir_elem_set_pts(e, p, 4);
                e->closed = 1;
            } else {
                ir_pt p[3] = { { q1.x, q1.y }, { q2.x, q2.y }, { q3.x, q3.y } };
                ir_elem_set_pts(e, p, 3);
            }
        }
        e->line = line;
        snprintf(g->role, sizeof g->role, "%s", right ? "right-angle" : "angle-mark");
        tk_emit_attrs(T, e, g->draw, g->fill);
        g->role[0] = 0;
        tk_set_nums(e, "vertex", (double[]){ V.x, V.y }, 2);
    }
    if (text) {
        double mid = 0.5 * a1 + 0.5 * a2, dist = ecc * r * (right ? 1.4142136 : 1);
        vec2 at = vadd(V, mat_lin(g->ctm, v2(dist * cos(mid * DEG), dist * sin(mid * DEG))));
        tk_nodeopts no;
        tk_nodeopts_init(T, &no);
        mat pic_ctm = g->ctm;
        tk_gs_push(T);
        gstate *ng = GS(T);
        if (ng->every_node) tk_apply_opts(T, ng->every_node, strlen(ng->every_node), &no, 0);
        if (topts) tk_apply_opts(T, topts, strlen(topts), &no, 0);
        /* node-local shifts move the node */
        at = vadd(at, vsub(mat_apply(GS(T)->ctm, v2(0, 0)), mat_apply(pic_ctm, v2(0, 0))));
        size_t before = T->d ? T->d->nelems : 0;
        tk_place_node(T, &no, at, text, line, NULL, 0);
        for (size_t i = before; T->d && i < T->d->nelems; i++) {
            ir_elem *e = &T->d->elems[i];
            if (e->kind != IR_TEXT) continue;
            if (!ir_elem_get(e, "role")) ir_elem_set(e, "role", "angle-label");
            tk_set_nums(e, "vertex", (double[]){ V.x, V.y }, 2);
            break;
        }
        tk_gs_pop(T);
        tk_nodeopts_free(&no);
    }
    free(text);
    free(topts);
    tk_gs_pop(T);
done:
    free(pn->opts); free(pn->name); free(pn->at); free(pn->text);
    memset(pn, 0, sizeof *pn);
}

void tp_unknown(struct tp_state *st, const struct tp_str *w)
{
    if (st->err) return;
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

static void place_one(struct tp_state *st, pending_node *pn, int on_segment)
{
    tikz *T = st->T;
    tk_nodeopts no;
    tk_nodeopts_init(T, &no);
    gstate *outer = GS(T);
    mat outer_ctm = outer->ctm;
    vec2 at = st->cur;
    int have_at = 0;
    if (pn->at) {
        if (tk_coord(T, pn->at, strlen(pn->at), &at, pn->line)) {
            tk_unparsed(T, pn->line, pn->at, "cannot evaluate node position");
            tk_nodeopts_free(&no);
            return;
        }
        have_at = 1;
    }
    tk_gs_push(T);
    gstate *g = GS(T);
    g->role[0] = 0;
    if (g->every_node) tk_apply_opts(T, g->every_node, strlen(g->every_node), &no, 0);
    if (pn->opts) tk_apply_opts(T, pn->opts, strlen(pn->opts), &no, 0);
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
    } else {
        no.has_pos = 0;
    }
    if (pn->name && !no.name) no.name = xstrndup(pn->name, strlen(pn->name));
    tk_place_node(T, &no, at, pn->text ? pn->text : "", pn->line, nseg ? seg : NULL, nseg);
    tk_gs_pop(T);
    tk_nodeopts_free(&no);
}

static void place_pending(struct tp_state *st, int on_segment)
{
    for (int i = 0; i < st->npend; i++) {
        place_one(st, &st->pend[i], on_segment);
        free(st->pend[i].opts); free(st->pend[i].name); free(st->pend[i].at); free(st->pend[i].text);
    }
    st->npend = 0;
}

/* The pin edge: a line from the node's border to the pin's, drawn with
 * every pin edge (help lines) and the pin edge= options. */
static void pin_edge(tikz *T, const tk_node *main, const tk_node *pn, int line)
{
    if (!T->d) return;
    vec2 d = vsub(pn->c, main->c);
    if (vlen(d) < 1e-9) return;
    double a = atan2(d.y, d.x) / DEG;
    vec2 p[2] = { vadd(main->c, node_border(main, a)), vadd(pn->c, node_border(pn, a + 180)) };
    const char *opts = GS(T)->pin_edge;   /* interned: stays */
    tk_gs_push(T);
    gstate *g = GS(T);
    g->role[0] = 0;
    g->drawc[0] = 0;
    const char *every = tk_find_style(T, "every pin edge", 14);
    tk_apply_opts(T, every ? "every pin edge" : "help lines", every ? 14 : 10, NULL, 0);
    tk_apply_opts(T, opts, strlen(opts), NULL, 0);
    g = GS(T);
    snprintf(g->role, sizeof g->role, "pin-edge");
    ir_elem *e = ir_add(T->d, IR_POLY);
    ir_pt q[2] = { { p[0].x, p[0].y }, { p[1].x, p[1].y } };
    ir_elem_set_pts(e, q, 2);
    e->closed = 0;
    e->line = line;
    tk_emit_attrs(T, e, 1, 0);
    tk_gs_pop(T);
}

/* label spec "[opts]pos:text" */
static void place_label(tikz *T, const char *spec, const tk_node *main, int line,
                        int pin)
{
    const char *s = spec;
    size_t n = strlen(s);
    tk_trim(&s, &n);
    const char *lopts = NULL;
    size_t lon = 0;
    if (n && s[0] == '[') {
        long e = tk_find_top(s + 1, n - 1, ']');
        if (e < 0) return;
        lopts = s + 1;
        lon = (size_t)e;
        s += e + 2;
        n -= (size_t)e + 2;
    }
    long colon = tk_find_top(s, n, ':');
    const char *pos = "above", *text = s;
    size_t posn = 5, tn = n;
    if (colon >= 0) { pos = s; posn = (size_t)colon; text = s + colon + 1; tn = n - (size_t)colon - 1; }
    tk_trim(&pos, &posn);
    tk_unbrace(&text, &tn);
    static const struct { const char *k; double ang; int corner; } dirs[] = {
        { "above", 90, 0 }, { "below", 270, 0 }, { "left", 180, 0 }, { "right", 0, 0 },
        { "above left", 135, 1 }, { "above right", 45, 1 }, { "below left", 225, 1 },
        { "below right", 315, 1 }, { "north", 90, 0 }, { "south", 270, 0 }, { "east", 0, 0 },
        { "west", 180, 0 }, { "north east", 45, 1 }, { "north west", 135, 1 },
        { "south east", 315, 1 }, { "south west", 225, 1 }, { "center", -1, 0 }, { NULL, 0, 0 }
    };
    double ang = 90;
    int corner = 0, found = 0;
    for (int i = 0; dirs[i].k; i++)
        if (tk_is(pos, posn, dirs[i].k)) { ang = dirs[i].ang; corner = dirs[i].corner; found = 1; break; }
    if (!found) {
        /* an angle, any sign: -45 is 315 */
        if (tk_eval(T, pos, posn, &ang, NULL) != 0) ang = 90;
        ang = fmod(ang, 360);
        if (ang < 0) ang += 360;
    }
    vec2 c = main->c;
    char *txt = xstrndup(text, tn);
    tk_nodeopts no;
    tk_nodeopts_init(T, &no);
    tk_gs_push(T);
    GS(T)->role[0] = 0;
    /* a pin is a node of its own, drawn with neither border nor fill
     * (every pin), pin distance away from the node */
    if (pin) {
        /* the node's own pin distance= and pin edge= do not reach its pins
         * (TikZ makes them after the node's options are gone); the
         * surrounding scope's and the pin's own options do */
        const gstate *outer = T->ngs >= 3 ? &T->gs[T->ngs - 3] : GS(T);
        gstate *pg = GS(T);
        pg->pin_distance = outer->pin_distance;
        pg->lib_set = (pg->lib_set & ~(unsigned)TK_SET_PIN_DISTANCE) | (outer->lib_set & TK_SET_PIN_DISTANCE);
        pg->pin_edge = outer->pin_edge;
        static const char every_pin[] = "draw=none,fill=none,every pin";
        tk_apply_opts(T, every_pin, sizeof every_pin - 1, &no, 0);
    }
    else if (T->gs[T->ngs - 2].every_label)
        tk_apply_opts(T, T->gs[T->ngs - 2].every_label, strlen(T->gs[T->ngs - 2].every_label), &no, 0);
    if (lopts) tk_apply_opts(T, lopts, lon, &no, 0);
    gstate *lg = GS(T);
    double dist = !pin ? lg->label_distance
                       : lg->lib_set & TK_SET_PIN_DISTANCE ? lg->pin_distance : PIN_DISTANCE_PT;
    vec2 base;
    if (ang < 0) base = c;
    /* TikZ: the node's border point at the label's angle (above left is
     * 135 degrees: on a wide rectangle a point of its top side, not its
     * corner) */
    else base = vadd(c, node_border(main, ang));
    if (ang >= 0) base = vadd(base, v2(dist * cos(ang * DEG), dist * sin(ang * DEG)));
    /* anchor opposite to the direction */
    if (ang >= 0) {
        double oa = fmod(ang + 180, 360);
        snprintf(no.anchor, sizeof no.anchor, "@%.6g", oa);
        if (fmod(oa, 90) == 0) {
            static const char *const side[4] = { "east", "north", "west", "south" };
            snprintf(no.anchor, sizeof no.anchor, "%s", side[(int)(oa / 90) % 4]);
        }
        if (!corner && fmod(ang, 90) != 0) {
            /* TikZ: an angle strictly inside a quadrant anchors the label at
             * the opposite corner (0 < angle < 90: south west, ...) */
            static const char *const q[4] = { "south west", "south east", "north east", "north west" };
            snprintf(no.anchor, sizeof no.anchor, "%s", q[(int)(ang / 90) % 4]);
        }
        if (corner) {
            const char *opp = ang == 135 ? "south east" : ang == 45 ? "south west" :
                              ang == 225 ? "north east" : "north west";
            snprintf(no.anchor, sizeof no.anchor, "%s", opp);
        }
        no.has_anchor = 1;
    }
    strcpy(no.role, pin ? "pin" : "label");
    tk_node pn;
    size_t before = T->d ? T->d->nelems : 0;
    place_node_geom(T, &no, base, txt, line, NULL, 0, &pn);
    /* record what the label belongs to on the text just emitted */
    if (T->d) {
        for (size_t i = before; i < T->d->nelems; i++) {
            if (T->d->elems[i].kind != IR_TEXT) continue;
            double v[2] = { c.x, c.y };
            tk_set_nums(&T->d->elems[i], "of", v, 2);
            break;
        }
    }
    if (pin) pin_edge(T, main, &pn, line);
    tk_gs_pop(T);
    tk_nodeopts_free(&no);
    free(txt);
}

static int is_blank(const char *s)
{
    for (; *s; s++) if (!isspace((unsigned char)*s)) return 0;
    return 1;
}

void tk_place_node(tikz *T, tk_nodeopts *no, vec2 at, const char *text, int line,
                   const vec2 *seg, int nseg)
{
    place_node_geom(T, no, at, text, line, seg, nseg, NULL);
}

/* Places a node; geom (when not NULL) receives its centre, shape and half
 * sizes including the outer sep. */
static void place_node_geom(tikz *T, tk_nodeopts *no, vec2 at, const char *text, int line,
                            const vec2 *seg, int nseg, tk_node *geom)
{
    gstate *g = GS(T);
    double fs = no->font_size > 0 ? no->font_size : 12;
    tm_extent ex;
    memset(&ex, 0, sizeof ex);
    int empty = is_blank(text);
    if (!empty) ex = tm_measure_tex(text, fs, no->bold);
    /* the default inner sep, .3333em, is measured in the font around the
     * node, not in the node's own font= */
    double em = g->font_size > 0 ? g->font_size : 12;
    double isx = no->inner_sep_x >= 0 ? no->inner_sep_x : 0.3333 * em;
    double isy = no->inner_sep_y >= 0 ? no->inner_sep_y : 0.3333 * em;
    double os = no->outer_sep >= 0 ? no->outer_sep : (g->outer_sep >= 0 ? g->outer_sep : 0.5 * g->lw);
    /* multi-line text: the base anchor sits on the last line's baseline;
     * ex.skip is the distance from the first baseline to the last */
    double w = ex.width, h = ex.height + ex.skip, dp = ex.depth;
    double tx0 = -w / 2, tx1 = w / 2;   /* the text's extent around the box centre */
    tk_textbox tlay;
    memset(&tlay, 0, sizeof tlay);
    if (no->text_width > 0) {
        /* text width=: a minipage[t] that wide (even for empty text), the
         * lines broken as TeX breaks them; its baseline is the FIRST line's */
        if (!empty) tk_text_layout(text, fs, no->bold, no->text_width, no->align, em, &tlay);
        if (tlay.dropped)
            tk_warn(T, line, "node text with more than 2000 words in one line; %d words left out of its lines",
                    tlay.dropped);
        w = no->text_width;
        h = tlay.ex.height;
        dp = tlay.ex.skip + tlay.ex.depth;
        tx0 = tlay.x0 - w / 2;
        tx1 = tlay.x1 - w / 2;
    }
    /* a rotated node (rotate=): its anchors are in its own, rotated frame */
    double th = no->rotate * DEG, cr = cos(th), sr = sin(th);
    double hw, hh, by;
    double top = h + isy, bot = -(dp + isy);
    double boxh = top - bot;
    double boxw = w + 2 * isx;
    /* the anchor geometry (outer sep included), in the node's own frame */
    tk_node sh;
    memset(&sh, 0, sizeof sh);
    sh.shape = no->shape;
    double dx = 0, dy = 0;    /* drawn radii / half diagonals of the new shapes */
    if (no->shape == TK_SH_CIRCLE) {
        double r = sqrt(boxw * boxw + boxh * boxh) / 2;
        double m = fmax(no->min_w, no->min_h) / 2;
        if (r < m) r = m;
        hw = hh = r;
    } else if (no->shape == TK_SH_ELLIPSE) {
        /* shapes.geometric: the ellipse through the corners of the text
         * box plus inner sep (radii times sqrt 2), at least the minimum
         * size; anchors outer sep further out */
        dx = fmax(M_SQRT2 * boxw / 2, no->min_w / 2);
        dy = fmax(M_SQRT2 * boxh / 2, no->min_h / 2);
        hw = dx;
        hh = dy;
    } else if (no->shape == TK_SH_DIAMOND) {
        /* half diagonals x = a + aspect b, y = a / aspect + b of the box
         * half sizes a, b; the anchors outer sep further out, the border
         * sqrt 2 outer sep inside them */
        double asp = no->aspect > 0 ? no->aspect : 1;
        double x = fmax(boxw / 2 + asp * boxh / 2, no->min_w / 2);
        double y = fmax(boxw / 2 / asp + boxh / 2, no->min_h / 2);
        hw = x;
        hh = y;
        dx = x + os - M_SQRT2 * os;
        dy = y + os - M_SQRT2 * os;
    } else if (no->shape == TK_SH_POLYGON) {
        /* radius: the incircle through the corners of the square around the
         * larger half size of the box, at least half the minimum size; the
         * first corner points up (odd sides) or the bottom side is flat
         * (even), turned by shape border rotate */
        int n = no->sides >= 3 ? no->sides : 5;
        double half = cos(180.0 / n * DEG);
        double r = M_SQRT2 * fmax(boxw / 2, boxh / 2) / half;
        double m = fmax(no->min_w, no->min_h) / 2;
        if (r < m) r = m;
        dx = dy = r;
        hw = hh = r;
        sh.sides = n;
        sh.start = (n % 2 ? 90 : 90 - 180.0 / n) + no->border_rotate;
    } else {
        if (boxw < no->min_w) boxw = no->min_w;
        if (boxh < no->min_h) boxh = no->min_h;
        hw = boxw / 2;
        hh = boxh / 2;
    }
    by = -(h - dp) / 2;   /* baseline relative to centre */
    sh.hw = hw + os;
    sh.hh = hh + os;
    if (no->shape == TK_SH_POLYGON) sh.hw = sh.hh = hw + os / cos(180.0 / sh.sides * DEG);
    sh.by = by;
    int newshape = no->shape >= TK_SH_ELLIPSE;
    /* anchor offset (anchors sit outer sep outside the border), local frame */
    vec2 off = v2(0, 0);
    const char *a = no->anchor;
    if (a[0] == '@') {
        off = shape_border(&sh, atof(a + 1));
    } else if (anchor_offset(a, strlen(a), &sh, &off) != 0) {
        double ang;
        if (tk_eval(T, a, strlen(a), &ang, NULL) == 0) off = shape_border(&sh, ang);
    }
    off = v2(off.x * cr - off.y * sr, off.x * sr + off.y * cr);
    /* from here on, hw/hh are the half sizes of the (rotated) node's box;
     * the shapes of shapes.geometric keep their own frame and rotation */
    if (no->rotate != 0 && !newshape) {
        double ahw = fabs(hw * cr) + fabs(hh * sr), ahh = fabs(hw * sr) + fabs(hh * cr);
        if (no->shape != 2) { hw = ahw; hh = ahh; }
    }
    if (newshape) sh.rot = no->rotate;
    else { sh.hw = hw + os; sh.hh = hh + os; }
    vec2 c = vsub(vadd(at, v2(no->shift_x, no->shift_y)), off);
    sh.c = c;
    if (T->d) {
        if (no->draw || no->fill) {
            ir_elem *e;
            if (no->shape == TK_SH_CIRCLE) {
                e = ir_add(T->d, IR_ELLIPSE);
                ir_pt p[3] = { { c.x, c.y }, { hw, 0 }, { 0, hh } };
                ir_elem_set_pts(e, p, 3);
            } else if (no->shape == TK_SH_ELLIPSE) {
                e = ir_add(T->d, IR_ELLIPSE);
                ir_pt p[3] = { { c.x, c.y }, { dx * cr, dx * sr }, { -dy * sr, dy * cr } };
                ir_elem_set_pts(e, p, 3);
            } else if (no->shape == TK_SH_DIAMOND || no->shape == TK_SH_POLYGON) {
                /* pgf's path: from the east corner (diamond) or the first
                 * corner (polygon) counter-clockwise */
                int n = no->shape == TK_SH_DIAMOND ? 4 : sh.sides;
                double a0 = no->shape == TK_SH_DIAMOND ? 0 : sh.start;
                ir_pt *p = xrealloc(NULL, (size_t)n * sizeof *p);
                static const int dia[4][2] = { { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 } };
                for (int i = 0; i < n; i++) {
                    double t = (a0 + i * 360.0 / n) * DEG;
                    vec2 q = no->shape == TK_SH_DIAMOND ? v2(dia[i][0] * dx, dia[i][1] * dy)
                                                        : v2(dx * cos(t), dy * sin(t));
                    q = vadd(c, rot_deg(q, no->rotate));
                    p[i].x = q.x;
                    p[i].y = q.y;
                }
                e = ir_add(T->d, IR_POLY);
                ir_elem_set_pts(e, p, (size_t)n);
                e->closed = 1;
                free(p);
            } else {
                e = ir_add(T->d, IR_RECT);
                ir_pt p[2] = { { c.x - hw, c.y - hh }, { c.x + hw, c.y + hh } };
                ir_elem_set_pts(e, p, 2);
            }
            e->line = line;
            char saved_d[TK_COLOR], saved_f[TK_COLOR];
            strcpy(saved_d, g->drawc);
            strcpy(saved_f, g->fillc);
            double saved_lw = g->lw;
            if (no->drawc[0]) strcpy(g->drawc, no->drawc);
            if (no->fillc[0]) strcpy(g->fillc, no->fillc);
            g->lw = no->lw;
            char saved_role[24];
            strcpy(saved_role, g->role);
            if (no->role[0]) strcpy(g->role, no->role);
            if (strcmp(g->role, "label") == 0 || strcmp(g->role, "pin") == 0) g->role[0] = 0;
            tk_emit_attrs(T, e, no->draw, no->fill);
            strcpy(g->role, saved_role);
            g->lw = saved_lw;
            strcpy(g->drawc, saved_d);
            strcpy(g->fillc, saved_f);
        }
        if (!empty) {
            ir_elem *e = ir_add(T->d, IR_TEXT);
            /* the text's box around the centre, rotated with the node */
            double lx[2] = { tx0, tx1 }, ly[2] = { by - dp, by + h };
            ir_box tb = ir_box_empty();
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    ir_box_add(&tb, c.x + lx[i] * cr - ly[j] * sr, c.y + lx[i] * sr + ly[j] * cr);
            ir_pt p[2] = { { tb.x1, tb.y1 }, { tb.x2, tb.y2 } };
            ir_elem_set_pts(e, p, 2);
            char *plain = tm_plain_text(tlay.lines ? tlay.lines : text);
            e->str = plain;
            e->line = line;
            if (no->role[0]) ir_elem_set(e, "role", no->role);
            { double v[2] = { at.x, at.y }; tk_set_nums(e, "at", v, 2); }
            if (no->has_anchor) ir_elem_set(e, "anchor", a[0] == '@' ? a + 1 : a);
            /* a size command inside the text (\Large 15) sets what is shown */
            tk_set_num(e, "size", strchr(text, '\\') ? tm_font_size(text, fs, NULL) : fs);
            if (no->name) ir_elem_set(e, "id", no->name);
            if (nseg == 2) {
                { double v[4] = { seg[0].x, seg[0].y, seg[1].x, seg[1].y }; tk_set_nums(e, "along", v, 4); }
                tk_set_num(e, "pos", no->pos);
            }
            if (no->rotate != 0) tk_set_num(e, "rotate", no->rotate);
            if (g->clip) tk_set_num(e, "clip", g->clip);
            if (no->textc[0] && strcmp(no->textc, "black") != 0) ir_elem_set(e, "color", no->textc);
            ir_elem_set(e, "tex", text);
        }
    }
    if (no->name) tk_add_node_geom(T, no->name, &sh);
    if (geom) *geom = sh;
    for (int i = 0; i < no->nlabels; i++)
        place_label(T, no->labels[i].spec, &sh, line, no->labels[i].pin);
    free(tlay.lines);
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
        if (named_point(T, names[k], lens[k], &P[k])) {
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

static int draw_of(int cmd, const gstate *g)
{
    (void)cmd;
    return g->draw;
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

/* ---- let (calc library) ---------------------------------------------------------------
 * "let \p1 = (coord), \n2 = {expr}, \p{name} = ... in" defines, for the rest
 * of the path, \p1 = "Xpt,Ypt" (the point in the picture's coordinates, as
 * TikZ's scanner gives it), \x1 = "Xpt", \y1 = "Ypt", and \n2 = the value of
 * expr ("pt" appended when it has units). The path text is rewritten with
 * the values in place, as TeX would expand them. */
typedef struct { char kind; char name[32]; char val[96]; char xv[48], yv[48]; } let_var;

static int let_word_at(const char *s, size_t n, size_t i, const char *w)
{
    size_t wl = strlen(w);
    if (i + wl > n || memcmp(s + i, w, wl) != 0) return 0;
    if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '\\' || s[i - 1] == '@')) return 0;
    if (i + wl < n && (isalnum((unsigned char)s[i + wl]) || s[i + wl] == '@')) return 0;
    return 1;
}

/* The top-level (outside (), {}, []) position of word w at or after from, or -1. */
static long let_find_word(const char *s, size_t n, size_t from, const char *w)
{
    int depth = 0;
    for (size_t i = from; i < n; i++) {
        char c = s[i];
        if (c == '(' || c == '{' || c == '[') depth++;
        else if ((c == ')' || c == '}' || c == ']') && depth > 0) depth--;
        else if (depth == 0 && let_word_at(s, n, i, w)) return (long)i;
    }
    return -1;
}

/* A let name after \p, \x, \y or \n: one character or {name}; its length in
 * the text, 0 when none. */
static size_t let_name(const char *s, size_t n, char *name, size_t cap)
{
    if (n == 0) return 0;
    if (s[0] == '{') {
        const char *close = memchr(s, '}', n);
        if (!close || (size_t)(close - s - 1) >= cap) return 0;
        snprintf(name, cap, "%.*s", (int)(close - s - 1), s + 1);
        return (size_t)(close - s) + 1;
    }
    if (isspace((unsigned char)s[0])) return 0;
    snprintf(name, cap, "%c", s[0]);
    return 1;
}

/* s[0,n) with the let variables in place; lines follow (each inserted byte
 * gets the line of the \ it replaces). */
static void let_subst(const char *s, size_t n, const int *ln, int line, const let_var *v, int nv,
                      struct tp_buf *out, int **lo, size_t *lcap)
{
    for (size_t i = 0; i < n;) {
        const char *rep = NULL;
        size_t used = 0;
        if (s[i] == '\\' && i + 2 < n + 1 && strchr("pxyn", s[i + 1]) && i + 2 <= n) {
            char name[32];
            size_t k = let_name(s + i + 2, n - i - 2, name, sizeof name);
            for (int j = 0; k && j < nv && !rep; j++) {
                if (strcmp(v[j].name, name) != 0) continue;
                char c = s[i + 1];
                if (v[j].kind == 'p' && c == 'p') rep = v[j].val;
                else if (v[j].kind == 'p' && c == 'x') rep = v[j].xv;
                else if (v[j].kind == 'p' && c == 'y') rep = v[j].yv;
                else if (v[j].kind == 'n' && c == 'n') rep = v[j].val;
            }
            if (rep) used = 2 + k;
        }
        const char *add = rep ? rep : s + i;
        size_t an = rep ? strlen(rep) : 1;
        int li = ln ? ln[i] : line;
        if (out->n + an + 1 > *lcap) {
            *lcap = (out->n + an + 1) * 2;
            *lo = xrealloc(*lo, *lcap * sizeof **lo);
        }
        for (size_t k = 0; k < an; k++) (*lo)[out->n + k] = li;
        tp_buf_add(out, add, an);
        i += rep ? used : 1;
    }
}

/* Returns the rewritten text (and *lines_out, *nout: its length) when
 * text[0,n) has a let operation, else NULL. */
static char *expand_let(tikz *T, const char *text, size_t n, const int *lines, int line, int **lines_out,
                        size_t *nout)
{
    /* most paths have no "let" anywhere (text[n] is its NUL) */
    if (!strstr(text, "let")) return NULL;
    long at = let_find_word(text, n, 0, "let");
    if (at < 0) return NULL;
    long in = let_find_word(text, n, (size_t)at + 3, "in");
    int ll = lines ? lines[at] : line;
    if (in < 0) {
        tk_warn(T, ll, "let without 'in'");
        return NULL;
    }
    let_var vars[16];
    int nv = 0;
    const char *a = text + at + 3;
    size_t an = (size_t)(in - at - 3);
    while (an > 0) {
        long comma = tk_find_top(a, an, ',');
        const char *d = a;
        size_t dn = comma >= 0 ? (size_t)comma : an;
        tk_trim(&d, &dn);
        if (dn) {
            char name[32];
            size_t k = dn >= 2 && d[0] == '\\' && (d[1] == 'p' || d[1] == 'n')
                       ? let_name(d + 2, dn - 2, name, sizeof name) : 0;
            const char *eq = k ? memchr(d, '=', dn) : NULL;
            if (!eq || nv >= (int)(sizeof vars / sizeof *vars)) {
                tk_warn(T, ll, "let: cannot read '%.*s' (want \\p1 = (coordinate) or \\n1 = {expression})",
                        (int)(dn > 60 ? 60 : dn), d);
                return NULL;
            }
            /* the right side sees the variables defined before it */
            const char *r = eq + 1;
            size_t rn = dn - (size_t)(eq + 1 - d);
            struct tp_buf rb = { 0 };
            int *rl = NULL;
            size_t rcap = 0;
            let_subst(r, rn, NULL, ll, vars, nv, &rb, &rl, &rcap);
            free(rl);
            const char *rv = rb.s ? rb.s : "";
            size_t rvn = rb.n;
            tk_trim(&rv, &rvn);
            let_var *v = &vars[nv];
            memset(v, 0, sizeof *v);
            v->kind = d[1];
            snprintf(v->name, sizeof v->name, "%s", name);
            int ok;
            if (v->kind == 'p') {
                vec2 u;
                ok = rvn >= 2 && rv[0] == '(' && rv[rvn - 1] == ')' &&
                     tk_coord_user(T, rv + 1, rvn - 2, &u, ll) == 0;
                if (ok) {
                    snprintf(v->xv, sizeof v->xv, "%.5fpt", u.x);
                    snprintf(v->yv, sizeof v->yv, "%.5fpt", u.y);
                    snprintf(v->val, sizeof v->val, "%.5fpt,%.5fpt", u.x, u.y);
                }
            } else {
                double x;
                int hu = 0;
                ok = tk_eval(T, rv, rvn, &x, &hu) == 0;
                if (ok) snprintf(v->val, sizeof v->val, "%.5f%s", x, hu ? "pt" : "");
            }
            if (!ok) {
                tk_warn(T, ll, "let: cannot evaluate '%.*s'", (int)(rvn > 60 ? 60 : rvn), rv);
                free(rb.s);
                return NULL;
            }
            free(rb.s);
            nv++;
        }
        if (comma < 0) break;
        a += comma + 1;
        an -= (size_t)comma + 1;
    }
    struct tp_buf out = { 0 };
    size_t lcap = (size_t)at + 16;
    int *lo = xrealloc(NULL, lcap * sizeof *lo);
    for (long i = 0; i < at; i++) lo[i] = lines ? lines[i] : line;
    tp_buf_add(&out, text, (size_t)at);
    let_subst(text + in + 2, n - (size_t)in - 2, lines ? lines + in + 2 : NULL, line, vars, nv,
              &out, &lo, &lcap);
    if (out.n + 1 > lcap) lo = xrealloc(lo, (out.n + 1) * sizeof *lo);
    lo[out.n] = out.n ? lo[out.n - 1] : line;
    *lines_out = lo;
    *nout = out.n;
    return out.s ? out.s : xstrndup("", 0);
}

void tk_run_path(tikz *T, int cmd, const char *text, const int *lines, int line)
{
    char *let_text = NULL;
    int *let_lines = NULL;
    size_t text_n = strlen(text);
    for (int round = 0; round < 16; round++) {
        /* one let at a time: a later let sees the values of an earlier one */
        int *nl = NULL;
        size_t nn = 0;
        char *nt = expand_let(T, text, text_n, lines, line, &nl, &nn);
        if (!nt) break;
        free(let_text);
        free(let_lines);
        text = let_text = nt;
        lines = let_lines = nl;
        text_n = nn;
    }
    struct tp_state st;
    memset(&st, 0, offsetof(struct tp_state, pts));   /* not the points: see there */
    /* the buffers of the previous path, reused (a path run from inside
     * another, none today, gets its own) */
    int reuse = !T->path_busy;
    if (reuse) {
        st.b = T->pbufs;
        if (st.b.poolwant > st.b.poolcap) {
            free(st.b.pool);
            st.b.poolcap = st.b.poolwant + st.b.poolwant / 2;
            st.b.pool = xrealloc(NULL, st.b.poolcap);
        }
        st.b.poolwant = st.b.poolcap;
    }
    st.b.poolused = 0;
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
    if (cmd == CMD_PATH || cmd == CMD_NODE || cmd == CMD_COORDINATE) g->role[0] = g->role[0];

    /* the session's scanner and its buffers are reused; a path run from
     * inside another (none today) gets its own */
    struct tp_extra own_x;
    void *sc;
    if (T->path_busy) {
        sc = tp_scanner_new(&own_x);
    } else {
        if (!T->path_scanner) T->path_scanner = tp_scanner_new(&T->path_x);
        sc = T->path_scanner;
    }
    T->path_busy++;
    tp_parse_path(sc, text, text_n, &st);
    T->path_busy--;
    if (sc != T->path_scanner) tp_scanner_free(sc);
    place_pending(&st, 0);
    if (st.curnode.opts || st.curnode.name || st.curnode.at || st.curnode.text) {
        free(st.curnode.opts); free(st.curnode.name); free(st.curnode.at); free(st.curnode.text);
    }
    flush_sub(&st, 0);

    g = GS(T);
    int draw = draw_of(cmd, g), fill = g->fill;
    if (g->name_path && st.npieces) {
        /* remember the polyline for name intersections */
        if (T->npaths == T->cappaths) {
            T->cappaths = T->cappaths ? T->cappaths * 2 : 8;
            T->paths = xrealloc(T->paths, T->cappaths * sizeof *T->paths);
        }
        tk_namedpath *np = &T->paths[T->npaths++];
        np->name = xstrndup(g->name_path, strlen(g->name_path));
        np->n = 0;
        np->pts = NULL;
        /* every piece as a polyline (curves, circles and arcs sampled finely),
         * pieces separated by a NaN point */
        for (size_t i = 0; i < st.npieces && i < MAX_PIECES; i++) {
            const piece *pc = &((piece *)st.b.pieces)[i];
            ir_elem tmp;
            memset(&tmp, 0, sizeof tmp);
            tmp.kind = pc->kind;
            tmp.closed = pc->closed;
            tmp.t1 = pc->t1;
            tmp.t2 = pc->t2;
            ir_pt q[4];
            if (pc->kind == IR_POLY) {
                np->pts = xrealloc(np->pts, (np->n + pc->n + 2) * sizeof *np->pts);
                memcpy(np->pts + np->n, pc->p, pc->n * sizeof *np->pts);
                np->n += pc->n;
                if (pc->closed && pc->n > 2) np->pts[np->n++] = pc->p[0];
            } else if (pc->n <= 4) {
                for (size_t k = 0; k < pc->n; k++) { q[k].x = pc->p[k].x; q[k].y = pc->p[k].y; }
                tmp.pts = q;
                tmp.npts = pc->n;
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
    if (st.bad_coord) {
        /* the unparsed record says what could not be evaluated; drawing the
         * rest would invent geometry (a segment to a point that is not there) */
        for (size_t i = 0; i < st.npieces && i < MAX_PIECES; i++) piece_free(&((piece *)st.b.pieces)[i]);
        st.npieces = 0;
    }
    for (size_t i = 0; i < st.npieces && i < MAX_PIECES; i++) {
        piece *pc = &((piece *)st.b.pieces)[i];
        if (T->d && cmd == CMD_CLIP) {
            ir_elem *e = ir_add(T->d, IR_CLIP);
            e->sub = pc->kind == IR_RECT ? IR_RECT : pc->kind == IR_ELLIPSE ? IR_ELLIPSE : IR_POLY;
            ir_pt small[64];
            ir_pt *p = pc->n <= 64 ? small : xrealloc(NULL, pc->n * sizeof *p);
            for (size_t k = 0; k < pc->n; k++) { p[k].x = pc->p[k].x; p[k].y = pc->p[k].y; }
            ir_elem_set_pts(e, p, pc->n);
            if (p != small) free(p);
            e->closed = 1;
            e->line = pc->line;
            T->nclips++;
            tk_set_num(e, "id", T->nclips);
            if (T->ngs >= 2) T->gs[T->ngs - 2].clip = T->nclips;
            if (draw) tk_emit_attrs(T, e, draw, 0);
        } else if (T->d && (draw || fill || pc->role)) {
            int d2 = draw || (pc->role && strcmp(pc->role, "right-angle") == 0);
            if (!d2 && !fill) continue;
            ir_elem *e = ir_add(T->d, pc->kind);
            ir_pt small[64];
            ir_pt *p = pc->n <= 64 ? small : xrealloc(NULL, pc->n * sizeof *p);
            for (size_t k = 0; k < pc->n; k++) { p[k].x = pc->p[k].x; p[k].y = pc->p[k].y; }
            ir_elem_set_pts(e, p, pc->n);
            if (p != small) free(p);
            e->closed = pc->closed;
            e->t1 = pc->t1;
            e->t2 = pc->t2;
            e->line = pc->line;
            /* a piece's role stands in for the path's while its attributes
             * are written (tk_emit_attrs does not change g->role) */
            char saved[24];
            if (pc->role) {
                strcpy(saved, g->role);
                snprintf(g->role, sizeof g->role, "%s", pc->role);
            }
            tk_emit_attrs(T, e, d2, fill && pc->kind != IR_POLY ? 1 : fill && (pc->closed || pc->n > 2));
            if (pc->role) strcpy(g->role, saved);
            if (pc->p3) set_xyz(T, e, pc->p3, pc->n);
            if (pc->kind == IR_ARC && strcmp(ir_elem_get(e, "role") ? ir_elem_get(e, "role") : "", "angle-mark") == 0)
                tk_set_nums(e, "vertex", (double[]){ pc->p[0].x, pc->p[0].y }, 2);
        }
    }
    for (size_t i = 0; i < st.npieces && i < MAX_PIECES; i++) piece_free(&((piece *)st.b.pieces)[i]);
    if (st.pend) free(st.pend);   /* usually NULL, as let_text and let_lines: no call then */
    if (reuse) {
        st.b.poolwant = st.b.poolused + (st.b.poolwant - st.b.poolcap);
        T->pbufs = st.b;
    } else {
        tk_pathbufs_free(&st.b);
    }
    if (let_text) free(let_text);
    if (let_lines) free(let_lines);
    tk_gs_pop(T);
}
