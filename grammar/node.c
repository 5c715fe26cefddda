/* node.c — nodes: the named nodes of a picture (their shapes, borders and
 * anchors), node options, and placing a node: its text box, shape and
 * outline, and its labels and pins. */
#include "grammar/interp.h"
#include "ir/geom_2d.h"
#include "grammar/textmetrics.h"
#include "ir/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LABELS 1000       /* label= and pin= options of one node */
#define PIN_DISTANCE_PT (3 * 6.10128)  /* pin distance=3ex (Open Sans 12pt at scale 0.95) */

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
    nd->mx = nd->my = nd->mr = nd->ma = nd->mchord = nd->marc = nd->mos = 0;
    nd->mflags = 0;
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


/* ---- shapes.misc: rounded rectangle, chamfered rectangle ----------------------
 * As pgflibraryshapes.misc.code.tex defines them; the node's own frame, its
 * centre at 0. */

/* a rounded rectangle's arc kinds */
#define RR_WEST(nd) ((nd)->mflags & 3)
#define RR_EAST(nd) (((nd)->mflags >> 2) & 3)

/* outer sep * cot(angle / 2): how far a miter of the border reaches along
 * the side past the corner (pgf's convexxshift and concavexshift) */
static double rr_xshift(const tk_node *nd, double angle)
{
    if (fabs(nd->ma - 90) < 1e-9) return 0;
    return nd->mos / tan(angle / 2 * DEG);
}

/* x (>= 0) of a rounded rectangle's east (side 1) or west (side -1)
 * anchor and of its north east (north west) anchor */
static double rr_end_x(const tk_node *nd, int side)
{
    int k = side > 0 ? RR_EAST(nd) : RR_WEST(nd);
    if (k == TK_ARC_CONCAVE) return nd->mx + nd->marc + rr_xshift(nd, 90 - nd->ma);
    if (k == TK_ARC_CONVEX) return nd->mx + nd->mchord + nd->mos;
    return nd->mx + nd->mos;
}

static double rr_corner_x(const tk_node *nd, int side)
{
    int k = side > 0 ? RR_EAST(nd) : RR_WEST(nd);
    if (k == TK_ARC_CONVEX) return nd->mx + nd->mchord - nd->marc + rr_xshift(nd, 90 + nd->ma);
    return rr_end_x(nd, side);
}

/* appends the arc of centre (cx, 0), radius r from a0 to a1 degrees (its
 * first point left out), at most 5 degrees a step */
static size_t put_arc(vec2 *p, size_t n, double cx, double r, double a0, double a1)
{
    int steps = (int)ceil(fabs(a1 - a0) / 5);
    if (steps < 1) steps = 1;
    for (int i = 1; i <= steps; i++) {
        double a = (a0 + (a1 - a0) * i / steps) * DEG;
        p[n++] = v2(cx + r * cos(a), r * sin(a));
    }
    return n;
}

/* The chamfered rectangle's path: pgf's twelve points (before, at and
 * after each corner) with the points that repeat or lie on a straight
 * side left out */
static size_t chamf_outline(const tk_node *nd, vec2 *p)
{
    double xa = nd->mx, ya = nd->my, xb = nd->mr, yb = nd->ma, xc = nd->mchord, yc = nd->marc;
    int m = nd->mflags;
    vec2 q[12] = {
        v2(xa + xb, ya - yc), (m & TK_CH_NE) ? v2(xa, ya) : v2(xa + xb, ya + yb), v2(xa - xc, ya + yb),
        v2(-xa + xc, ya + yb), (m & TK_CH_NW) ? v2(-xa, ya) : v2(-xa - xb, ya + yb), v2(-xa - xb, ya - yc),
        v2(-xa - xb, -ya + yc), (m & TK_CH_SW) ? v2(-xa, -ya) : v2(-xa - xb, -ya - yb), v2(-xa + xc, -ya - yb),
        v2(xa - xc, -ya - yb), (m & TK_CH_SE) ? v2(xa, -ya) : v2(xa + xb, -ya - yb), v2(xa + xb, -ya + yc),
    };
    vec2 u[12];
    size_t k = 0, n = 0;
    for (int i = 0; i < 12; i++)
        if (vlen(vsub(q[i], q[(i + 11) % 12])) > 1e-9) u[k++] = q[i];
    for (size_t i = 0; i < k; i++) {
        vec2 a = u[(i + k - 1) % k], b = u[i], c = u[(i + 1) % k];
        /* on the straight line from the previous point to the next */
        double cr = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x);
        if (fabs(cr) < 1e-9 * (1 + vlen(vsub(b, a)) * vlen(vsub(c, b)))) continue;
        p[n++] = b;
    }
    return n;
}

size_t tk_shape_outline(const tk_node *nd, vec2 *p)
{
    size_t n = 0;
    if (nd->shape == TK_SH_CHAMF) return chamf_outline(nd, p);
    if (nd->shape == TK_SH_STAR) {
        /* pgf's path: the outer points from start, the inner ones between */
        int k = nd->sides >= 2 && nd->sides <= TK_SHAPE_PTS / 2 ? nd->sides : 5;
        for (int i = 0; i < 2 * k; i++) {
            double a = (nd->start + i * 180.0 / k) * DEG, r = i % 2 ? nd->ma : nd->mr;
            p[n++] = v2(r * cos(a), r * sin(a));
        }
        return n;
    }
    if (nd->shape != TK_SH_RRECT) return 0;
    /* pgf's path: from the top's middle to the east end, then the west */
    double hw = nd->mx, hh = nd->my, r = nd->mr, a = nd->ma, ch = nd->mchord, aw = nd->marc;
    p[n++] = v2(0, hh);
    switch (RR_EAST(nd)) {
    case TK_ARC_CONCAVE:
        p[n++] = v2(hw + aw, hh);
        n = put_arc(p, n, hw + r, r, 180 - a, 180 + a);
        break;
    case TK_ARC_CONVEX:
        p[n++] = v2(hw + ch - aw, hh);
        n = put_arc(p, n, hw + ch - r, r, a, -a);
        break;
    default:
        p[n++] = v2(hw, hh);
        p[n++] = v2(hw, -hh);
    }
    switch (RR_WEST(nd)) {
    case TK_ARC_CONCAVE:
        p[n++] = v2(-hw - aw, -hh);
        n = put_arc(p, n, -hw - r, r, -a, a);
        break;
    case TK_ARC_CONVEX:
        p[n++] = v2(-hw - ch + aw, -hh);
        n = put_arc(p, n, -hw - ch + r, r, 180 + a, 180 - a);
        break;
    default:
        p[n++] = v2(-hw, -hh);
        p[n++] = v2(-hw, hh);
    }
    /* the last point of a full convex arc is the first of the next side */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || vlen(vsub(p[i], p[k - 1])) > 1e-9) p[k++] = p[i];
    while (k > 1 && vlen(vsub(p[k - 1], p[0])) < 1e-9) k--;
    return k;
}

/* b moved out by os along the mitre of the sides of outward normals n1, n2 */
static vec2 mitre(vec2 b, vec2 n1, vec2 n2, double os)
{
    double den = 1 + n1.x * n2.x + n1.y * n2.y;
    return den > 1e-9 ? vadd(b, vscale(vadd(n1, n2), os / den)) : b;
}

/* The counter-clockwise polygon p with every side moved out by os, the
 * corners mitred (as pgf's anchors of chamfered rectangles and stars are) */
static void offset_polygon(const vec2 *p, size_t n, double os, vec2 *o)
{
    for (size_t i = 0; i < n; i++) {
        vec2 a = p[(i + n - 1) % n], b = p[i], c = p[(i + 1) % n];
        vec2 d1 = vsub(b, a), d2 = vsub(c, b);
        double l1 = vlen(d1), l2 = vlen(d2);
        /* outward normals of a counter-clockwise polygon */
        vec2 n1 = l1 > 0 ? v2(d1.y / l1, -d1.x / l1) : v2(0, 0);
        vec2 n2 = l2 > 0 ? v2(d2.y / l2, -d2.x / l2) : v2(0, 0);
        o[i] = mitre(b, n1, n2, os);
    }
}

/* The border of a chamfered rectangle or star: its path moved out by the
 * outer sep */
static size_t polygon_border(const tk_node *nd, vec2 *o)
{
    vec2 p[TK_SHAPE_PTS];
    size_t n = tk_shape_outline(nd, p);
    offset_polygon(p, n, nd->mos, o);
    return n;
}

/* the ray from 0 at angle ang meets the polygon p (0 inside it) */
static vec2 ray_polygon(const vec2 *p, size_t n, double ang)
{
    double ca = cos(ang * DEG), sa = sin(ang * DEG);
    double best = -1;
    for (size_t i = 0; i < n; i++) {
        vec2 a = p[i], b = p[(i + 1) % n], e = vsub(b, a);
        double den = ca * e.y - sa * e.x;
        if (fabs(den) < 1e-12) continue;
        double t = (a.x * e.y - a.y * e.x) / den;
        double s = (a.x * sa - a.y * ca) / den;
        if (t > 0 && s >= -1e-9 && s <= 1 + 1e-9 && (best < 0 || t < best)) best = t;
    }
    return best > 0 ? v2(best * ca, best * sa) : v2(0, 0);
}

/* a rounded rectangle's border (pgf's anchorborder): the line through its
 * north (south) anchors between the corner anchors' angles, else the end:
 * a convex arc's circle grown by outer sep, or the vertical line through
 * the end's anchors */
static vec2 rr_border(const tk_node *nd, double ang)
{
    double ca = cos(ang * DEG), sa = sin(ang * DEG);
    double top = nd->my + nd->mos;
    double xe = rr_corner_x(nd, 1), xw = rr_corner_x(nd, -1);
    double a = fmod(ang, 360);
    if (a < 0) a += 360;
    double ane = atan2(top, xe) / DEG, anw = atan2(top, -xw) / DEG;
    double asw = 360 - anw, ase = 360 - ane;
    double t;
    if (a >= ane && a < anw) t = top / sa;
    else if (a >= asw && a < ase) t = -top / sa;
    else {
        int side = (a < ane || a >= ase) ? 1 : -1;
        int k = side > 0 ? RR_EAST(nd) : RR_WEST(nd);
        if (k == TK_ARC_CONVEX) {
            double cx = side * (nd->mx + nd->mchord - nd->mr), R = nd->mr + nd->mos;
            double bq = cx * ca, disc = bq * bq - cx * cx + R * R;
            t = bq + sqrt(disc > 0 ? disc : 0);
        } else {
            t = rr_end_x(nd, side) / fabs(ca);
        }
    }
    if (!isfinite(t) || t < 0) t = 0;
    return v2(t * ca, t * sa);
}

/* border point in direction ang (degrees) in the node's own frame, offset
 * from the centre, as each shape's anchorborder computes it */
static vec2 shape_border(const tk_node *nd, double ang)
{
    double ca = cos(ang * DEG), sa = sin(ang * DEG);
    switch (nd->shape) {
    case TK_SH_COORD:
        return v2(0, 0);
    case TK_SH_RRECT:
        return rr_border(nd, ang);
    case TK_SH_CHAMF: case TK_SH_STAR: {
        vec2 o[TK_SHAPE_PTS];
        size_t n = polygon_border(nd, o);
        return ray_polygon(o, n, ang);
    }
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
    nd->mx = geom->mx;
    nd->my = geom->my;
    nd->mr = geom->mr;
    nd->ma = geom->ma;
    nd->mchord = geom->mchord;
    nd->marc = geom->marc;
    nd->mos = geom->mos;
    nd->mflags = geom->mflags;
}

/* border point of a node in direction ang (degrees), canvas offset from centre */
static vec2 node_border(const tk_node *nd, double ang)
{
    return rot_deg(shape_border(nd, ang - nd->rot), nd->rot);
}

/* TikZ's \pgfpointshapeborder: the point of nd's border (outer sep
 * included) on the ray from its centre toward target (canvas); the centre
 * for a coordinate, or when target is the centre */
vec2 tk_node_border_toward(const tk_node *nd, vec2 target)
{
    vec2 d = vsub(target, nd->c);
    if (nd->shape == TK_SH_COORD || hypot(d.x, d.y) < 1e-9) return nd->c;
    return vadd(nd->c, node_border(nd, atan2(d.y, d.x) / DEG));
}


/* a rounded rectangle's compass anchor (x, y in -1, 0, 1) */
static vec2 rr_anchor(const tk_node *nd, int x, int y)
{
    double top = nd->my + nd->mos;
    if (y == 0) return v2(x > 0 ? rr_end_x(nd, 1) : x < 0 ? -rr_end_x(nd, -1) : 0, 0);
    return v2(x > 0 ? rr_corner_x(nd, 1) : x < 0 ? -rr_corner_x(nd, -1) : 0, y * top);
}

/* a chamfered rectangle's compass anchor (x, y in -1, 0, 1): the middle
 * of a cut corner's side moved out by outer sep, else the corner (or the
 * side's middle) outer sep out */
static vec2 chamf_anchor(const tk_node *nd, int x, int y)
{
    double xa = nd->mx, ya = nd->my, xb = nd->mr, yb = nd->ma, xc = nd->mchord, yc = nd->marc, os = nd->mos;
    if (x == 0 || y == 0) return v2(x * (xa + xb + os), y * (ya + yb + os));
    int bit = x > 0 ? (y > 0 ? TK_CH_NE : TK_CH_SE) : (y > 0 ? TK_CH_NW : TK_CH_SW);
    if (!(nd->mflags & bit)) return v2(x * (xa + xb + os), y * (ya + yb + os));
    /* the north east corner's cut, mirrored */
    vec2 b = v2(xa + xb, ya - yc), a = v2(xa - xc, ya + yb), d = vsub(a, b);
    double l = vlen(d);
    vec2 nc = l > 0 ? v2(d.y / l, -d.x / l) : v2(M_SQRT2 / 2, M_SQRT2 / 2);
    vec2 m = vscale(vadd(mitre(b, v2(1, 0), nc, os), mitre(a, v2(0, 1), nc, os)), 0.5);
    return v2(x * m.x, y * m.y);
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
        } else if (nd->shape == TK_SH_RRECT) {
            p = rr_anchor(nd, (int)anchors[i].x, (int)anchors[i].y);
        } else if (nd->shape == TK_SH_CHAMF) {
            p = chamf_anchor(nd, (int)anchors[i].x, (int)anchors[i].y);
        } else if (nd->shape == TK_SH_CIRCLE || nd->shape == TK_SH_POLYGON || nd->shape == TK_SH_STAR) {
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
    /* base west, base east, mid west, mid east: the west (east) border's
     * x on the base (mid) line, as the shapes define them */
    if (an >= 8 && (memcmp(a, "base ", 5) == 0 || memcmp(a, "mid ", 4) == 0)) {
        const char *side = a + (a[0] == 'b' ? 5 : 4);
        size_t sn = an - (size_t)(side - a);
        if (!tk_is(side, sn, "west") && !tk_is(side, sn, "east")) return -1;
        double x = side[0] == 'w' ? -nd->hw : nd->hw;
        if (nd->shape == TK_SH_RRECT) {
            x = rr_anchor(nd, side[0] == 'w' ? -1 : 1, 0).x;
        } else if (nd->shape == TK_SH_CHAMF) {
            /* the border on that line */
            vec2 o[TK_SHAPE_PTS];
            size_t n = polygon_border(nd, o);
            for (size_t i = 0; i < n; i++) o[i].y -= nd->by;
            x = ray_polygon(o, n, side[0] == 'w' ? 180 : 0).x;
        }
        *off = rot_deg(v2(x, nd->by), nd->rot);
        return 0;
    }
    return -1;
}

int tk_node_anchor(tikz *T, const tk_node *nd, const char *a, size_t an, vec2 *out)
{
    vec2 off;
    double ang;
    tk_trim(&a, &an);
    if (nd->shape == TK_SH_COORD) { *out = nd->c; return 0; }
    if (anchor_offset(a, an, nd, &off) == 0) { *out = vadd(nd->c, off); return 0; }
    /* (A.30): the border point at 30 degrees in the node's own (turned) frame */
    if (tk_eval(T, a, an, &ang, NULL) == 0) { *out = vadd(nd->c, node_border(nd, ang + nd->rot)); return 0; }
    return -1;
}


/* ---- node options ---------------------------------------------------------------- */

void tk_nodeopts_init(tikz *T, tk_nodeopts *no)
{
    gstate *g = GS(T);
    memset(no, 0, sizeof *no);
    tk_nodeset_join(T, NULL, NULL);   /* set= keys of a node never placed: dropped */
    no->shape = g->node_shape ? g->node_shape - 1 : TK_SH_RECT;
    no->inner_sep_x = no->inner_sep_y = -1;
    no->outer_sep = -1;
    no->font_size = g->font_size;
    no->bold = g->bold;
    no->lw = g->lw;
    no->sides = g->poly_sides ? g->poly_sides : 5;
    no->aspect = g->aspect > 0 ? g->aspect : 1;
    no->border_rotate = g->border_rotate;
    no->rr_arc = g->rr_arc > 0 ? g->rr_arc : 180;
    no->rr_west = g->rr_west ? g->rr_west - 1 : TK_ARC_CONVEX;
    no->rr_east = g->rr_east ? g->rr_east - 1 : TK_ARC_CONVEX;
    no->ch_angle = g->ch_angle != 0 ? g->ch_angle : 45;
    no->ch_xsep = g->ch_xsep;
    no->ch_ysep = g->ch_ysep;
    no->ch_corners = g->ch_corners ? g->ch_corners & TK_CH_ALL : TK_CH_ALL;
    no->star_points = g->star_points ? g->star_points : 5;
    no->star_ratio = g->star_ratio > 0 ? g->star_ratio : 1.5;
    no->star_height = g->star_height > 0 ? g->star_height : 14.22638;   /* .5cm */
    no->star_by_height = g->star_by_height ? g->star_by_height - 1 : 0;
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

static void place_node_geom(tikz *T, tk_nodeopts *no, vec2 at, const char *text, int line,
                            const vec2 *seg, int nseg, tk_node *geom);

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
void tk_place_label(tikz *T, const char *spec, const tk_node *main, int line,
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

void tk_place_node_geom(tikz *T, tk_nodeopts *no, vec2 at, const char *text, int line,
                        tk_node *geom)
{
    place_node_geom(T, no, at, text, line, NULL, 0, geom);
}

/* Places a node; geom (when not NULL) receives its centre, shape and half
 * sizes including the outer sep. */
/* A node's text and box in its own frame, as place_node_geom's steps
 * work them out */
typedef struct {
    int empty;                /* the text is blank */
    double w, h, dp;          /* the text's width, height (to the first baseline's
                                 top, plus the skip to the last) and depth */
    double tx0, tx1;          /* the text's extent around the box centre */
    tk_textbox lay;           /* text width=: the text broken into lines */
    double hw, hh;            /* half sizes of the box; for a rotated rectangle
                                 or circle, of the rotated box */
    double uhw, uhh;          /* half sizes of the box, unrotated */
    double dx, dy;            /* shapes.geometric: drawn radii / half diagonals */
    double by;                /* the baseline below the centre */
    double cr, sr;            /* cos and sin of rotate= */
} node_box;

/* The text's size: as TeX typesets it, or broken into lines of text width= */
static void measure_node_text(tikz *T, const tk_nodeopts *no, const char *text, double fs,
                              double em, int line, node_box *b)
{
    tm_extent ex;
    memset(&ex, 0, sizeof ex);
    memset(&b->lay, 0, sizeof b->lay);
    if (no->has_box) {
        /* a matrix: its cells' box, no text of its own */
        b->empty = 1;
        b->w = no->box_w;
        b->h = no->box_h;
        b->dp = no->box_d;
        b->tx0 = -b->w / 2;
        b->tx1 = b->w / 2;
        return;
    }
    b->empty = is_blank(text);
    if (!b->empty) ex = tm_measure_tex(text, fs, no->bold);
    /* multi-line text: the base anchor sits on the last line's baseline;
     * ex.skip is the distance from the first baseline to the last */
    b->w = ex.width;
    b->h = ex.height + ex.skip;
    b->dp = ex.depth;
    b->tx0 = -b->w / 2;
    b->tx1 = b->w / 2;
    memset(&b->lay, 0, sizeof b->lay);
    if (no->text_width > 0) {
        /* text width=: a minipage[t] that wide (even for empty text), the
         * lines broken as TeX breaks them; its baseline is the FIRST line's */
        if (!b->empty) tk_text_layout(text, fs, no->bold, no->text_width, no->align, em, &b->lay);
        if (b->lay.dropped)
            tk_warn(T, line, "node text with more than 2000 words in one line; %d words left out of its lines",
                    b->lay.dropped);
        b->w = no->text_width;
        b->h = b->lay.ex.height;
        b->dp = b->lay.ex.skip + b->lay.ex.depth;
        b->tx0 = b->lay.x0 - b->w / 2;
        b->tx1 = b->lay.x1 - b->w / 2;
    }
}

/* The shape around a text box of boxw x boxh (inner sep included): b->hw,
 * hh, dx, dy, and sh's shape, half sizes (outer sep os included) and
 * polygon corners, in the node's own frame */
static void size_node_shape(const tk_nodeopts *no, double boxw, double boxh, double isx,
                            double isy, double ex, double os, node_box *b, tk_node *sh)
{
    double hw, hh;
    b->dx = b->dy = 0;
    sh->shape = no->shape;
    if (no->shape == TK_SH_CROSSOUT || no->shape == TK_SH_STRIKEOUT) sh->shape = TK_SH_RECT;
    if (no->shape == TK_SH_FORBID || no->shape == TK_SH_CFORBID) sh->shape = TK_SH_CIRCLE;
    if (no->shape == TK_SH_RRECT) {
        /* pgf's rounded rectangle: the ends are arcs of arc length
         * through the top and bottom corners of a box as high as the text
         * plus inner sep (at least minimum height): radius y / sin(a/2);
         * the text box's corners sit on a convex arc (chord) or the box
         * ends where a concave one begins; minimum width, as pgf has it,
         * counts the text and the ends without the inner xsep */
        double a = (no->rr_arc > 0 && no->rr_arc <= 180 ? no->rr_arc : 180) / 2;
        double htw = boxw / 2 - isx, hth = boxh / 2 - isy;
        double y = fmax(boxh / 2, no->min_h / 2);
        double r = y / sin(a * DEG);
        double arcw = r - r * cos(a * DEG);
        double q = r > 0 ? hth / r : 0;
        if (q > 1) q = 1;
        if (q < -1) q = -1;
        double chord = r - r * cos(asin(q));
        double tot = boxw;
        int ends[2] = { no->rr_west, no->rr_east };
        for (int i = 0; i < 2; i++)
            tot += ends[i] == TK_ARC_CONCAVE ? arcw : ends[i] == TK_ARC_CONVEX ? chord : 0;
        double xoff = tot < no->min_w ? (no->min_w - tot) / 2 : isx;
        /* convex arcs do not overlap */
        if (r - chord > htw + xoff) xoff = r - chord - htw;
        sh->mx = htw + xoff;
        sh->my = y;
        sh->mr = r;
        sh->ma = a;
        sh->mchord = chord;
        sh->marc = arcw;
        sh->mos = os;
        sh->mflags = no->rr_west | no->rr_east << 2;
        double ext = 0;
        for (int i = 0; i < 2; i++) {
            double e = sh->mx + (ends[i] == TK_ARC_CONCAVE ? arcw : ends[i] == TK_ARC_CONVEX ? chord : 0);
            if (e > ext) ext = e;
        }
        hw = ext;
        hh = y;
    } else if (no->shape == TK_SH_CHAMF) {
        /* pgf's chamfered rectangle: the text box plus inner sep (xa, ya),
         * the cut corners chamfered rectangle xsep and ysep further out
         * (at most the box's half sizes, along the angle), the whole at
         * least the minimum size */
        double xa = boxw / 2, ya = boxh / 2;
        double ang = no->ch_angle;
        if (!(ang >= 1)) ang = 1;
        if (ang > 89) ang = 89;
        double tn = tan((90 - ang) * DEG), ct = 1 / tn;
        double xb = no->ch_xsep >= 0 ? no->ch_xsep : 0.666 * ex;
        double yc = tn * xb;
        if (yc > ya) { yc = ya; xb = ct * yc; }
        double yb = no->ch_ysep >= 0 ? no->ch_ysep : 0.666 * ex;
        double xc = ct * yb;
        if (xc > xa) { xc = xa; yb = tn * xc; }
        if (xa + xb < no->min_w / 2) xa = no->min_w / 2 - xb;
        if (ya + yb < no->min_h / 2) ya = no->min_h / 2 - yb;
        sh->mx = xa;
        sh->my = ya;
        sh->mr = xb;
        sh->ma = yb;
        sh->mchord = xc;
        sh->marc = yc;
        sh->mos = os;
        sh->mflags = no->ch_corners & TK_CH_ALL;
        hw = xa + xb;
        hh = ya + yb;
    } else if (no->shape == TK_SH_STAR) {
        /* pgf's star: the inner radius through the corners of the square
         * around the larger half size of the text box plus inner sep, the
         * outer one star point ratio times it (or star point height
         * more), at least half the minimum size (the inner radius then
         * follows) */
        double ri = M_SQRT2 * fmax(boxw / 2, boxh / 2);
        double ro = no->star_by_height ? ri + no->star_height : ri * no->star_ratio;
        double m = fmax(no->min_w, no->min_h) / 2;
        if (ro < m) {
            ro = m;
            ri = no->star_by_height ? ro - no->star_height : ro / no->star_ratio;
        }
        sh->sides = no->star_points >= 2 && no->star_points <= TK_SHAPE_PTS / 2 ? no->star_points : 5;
        sh->start = 90 + no->border_rotate;
        sh->mr = ro;
        sh->ma = ri;
        sh->mos = os;
        hw = hh = ro;
    } else if (sh->shape == TK_SH_CIRCLE) {
        double r = sqrt(boxw * boxw + boxh * boxh) / 2;
        double m = fmax(no->min_w, no->min_h) / 2;
        if (r < m) r = m;
        hw = hh = r;
    } else if (no->shape == TK_SH_ELLIPSE) {
        /* shapes.geometric: the ellipse through the corners of the text
         * box plus inner sep (radii times sqrt 2), at least the minimum
         * size; anchors outer sep further out */
        b->dx = fmax(M_SQRT2 * boxw / 2, no->min_w / 2);
        b->dy = fmax(M_SQRT2 * boxh / 2, no->min_h / 2);
        hw = b->dx;
        hh = b->dy;
    } else if (no->shape == TK_SH_DIAMOND) {
        /* half diagonals x = a + aspect b, y = a / aspect + b of the box
         * half sizes a, b; the anchors outer sep further out, the border
         * sqrt 2 outer sep inside them */
        double asp = no->aspect > 0 ? no->aspect : 1;
        double x = fmax(boxw / 2 + asp * boxh / 2, no->min_w / 2);
        double y = fmax(boxw / 2 / asp + boxh / 2, no->min_h / 2);
        hw = x;
        hh = y;
        b->dx = x + os - M_SQRT2 * os;
        b->dy = y + os - M_SQRT2 * os;
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
        b->dx = b->dy = r;
        hw = hh = r;
        sh->sides = n;
        sh->start = (n % 2 ? 90 : 90 - 180.0 / n) + no->border_rotate;
    } else {
        if (boxw < no->min_w) boxw = no->min_w;
        if (boxh < no->min_h) boxh = no->min_h;
        hw = boxw / 2;
        hh = boxh / 2;
    }
    b->hw = hw;
    b->hh = hh;
    sh->hw = hw + os;
    sh->hh = hh + os;
    if (no->shape == TK_SH_POLYGON) sh->hw = sh->hh = hw + os / cos(180.0 / sh->sides * DEG);
}

/* decorate in a node's options: its outline decorated (decorate.c), as
 * pgf decorates the shape's path (counter-clockwise from its first
 * point); a decoration not drawn here leaves the plain outline, with a
 * warning */
static void decorate_outline(tikz *T, ir_elem *e, int line)
{
    tk_deco d;
    if (tk_deco_get(T, &d) != 0) {
        tk_warn(T, line, "decoration '%s' of a node is not drawn; its plain outline is",
                d.name[0] ? d.name : "(none)");
        return;
    }
    ir_pt *fl = NULL;
    int closed = 0;
    size_t fn = ir_elem_flatten(e, &fl, &closed);
    if (fn < 2) { free(fl); return; }
    vec2 *p = xrealloc(NULL, (fn + 1) * sizeof *p);
    for (size_t k = 0; k < fn; k++) p[k] = v2(fl[k].x, fl[k].y);
    p[fn] = p[0];
    free(fl);
    vec2 *out = NULL;
    size_t no = tk_decorate(&d, p, fn + 1, &out);
    if (d.truncated)
        tk_warn(T, line, "decoration %s: more than 200000 points; the rest of the outline left out", d.name);
    free(p);
    if (no >= 3) {
        if (vlen(vsub(out[0], out[no - 1])) < 1e-6) no--;
        ir_pt *q = xrealloc(NULL, no * sizeof *q);
        for (size_t k = 0; k < no; k++) { q[k].x = out[k].x; q[k].y = out[k].y; }
        e->kind = IR_POLY;
        e->closed = 1;
        ir_elem_set_pts(e, q, no);
        free(q);
    }
    free(out);
}

/* The attributes of a node's outline: the node's colours, line width and
 * role standing in for the state's while they are written */
static void emit_outline_attrs(tikz *T, const tk_nodeopts *no, ir_elem *e, int draw, int fill)
{
    gstate *g = GS(T);
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
    tk_emit_attrs(T, e, draw, fill);
    strcpy(g->role, saved_role);
    g->lw = saved_lw;
    strcpy(g->drawc, saved_d);
    strcpy(g->fillc, saved_f);
}

/* The node's outline (draw= or fill=) centred at c, with the node's
 * colours, line width and role standing in for the state's while its
 * attributes are written */
static void draw_node_outline(tikz *T, const tk_nodeopts *no, const tk_node *sh, const node_box *b,
                              vec2 c, int line)
{
    gstate *g = GS(T);
    double hw = b->hw, hh = b->hh, dx = b->dx, dy = b->dy, cr = b->cr, sr = b->sr;
    ir_elem *e;
    int forbid = no->shape == TK_SH_FORBID || no->shape == TK_SH_CFORBID;
    if (no->shape == TK_SH_CIRCLE || forbid) {
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
        int n = no->shape == TK_SH_DIAMOND ? 4 : sh->sides;
        double a0 = no->shape == TK_SH_DIAMOND ? 0 : sh->start;
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
    } else if (no->shape == TK_SH_RRECT || no->shape == TK_SH_CHAMF || no->shape == TK_SH_STAR) {
        /* the path pgf draws, its arcs as points 5 degrees apart at most */
        vec2 q[TK_SHAPE_PTS];
        size_t n = tk_shape_outline(sh, q);
        ir_pt *p = xrealloc(NULL, (n ? n : 1) * sizeof *p);
        for (size_t i = 0; i < n; i++) {
            vec2 t = vadd(c, rot_deg(q[i], no->rotate));
            p[i].x = t.x;
            p[i].y = t.y;
        }
        e = ir_add(T->d, IR_POLY);
        ir_elem_set_pts(e, p, n);
        e->closed = 1;
        free(p);
    } else if (no->rotate != 0 && no->shape != TK_SH_CIRCLE) {
        /* a rotated rectangle: pgf's path from the north east corner,
         * counter-clockwise */
        static const int cor[4][2] = { { 1, 1 }, { -1, 1 }, { -1, -1 }, { 1, -1 } };
        ir_pt p[4];
        for (int i = 0; i < 4; i++) {
            vec2 q = vadd(c, rot_deg(v2(cor[i][0] * b->uhw, cor[i][1] * b->uhh), no->rotate));
            p[i].x = q.x;
            p[i].y = q.y;
        }
        e = ir_add(T->d, IR_POLY);
        ir_elem_set_pts(e, p, 4);
        e->closed = 1;
    } else {
        e = ir_add(T->d, IR_RECT);
        ir_pt p[2] = { { c.x - hw, c.y - hh }, { c.x + hw, c.y + hh } };
        ir_elem_set_pts(e, p, 2);
    }
    e->line = line;
    if (g->decorate) decorate_outline(T, e, line);
    emit_outline_attrs(T, no, e, no->draw, no->fill);
}

/* The strokes pgf draws over a node's text (its foreground path; drawn
 * only, without arrow tips): cross out's two diagonals and strike out's
 * one (south west to north east) of the text box plus inner sep, and the
 * stroke across a forbidden sign's circle at 45 degrees (correct
 * forbidden sign: south east to north west) */
static void draw_node_foreground(tikz *T, const tk_nodeopts *no, const node_box *b, vec2 c,
                                 int line)
{
    int n = 0;
    vec2 ends[2][2];
    if (no->shape == TK_SH_CROSSOUT || no->shape == TK_SH_STRIKEOUT) {
        n = no->shape == TK_SH_CROSSOUT ? 2 : 1;
        for (int k = 0; k < n; k++) {
            ends[k][0] = v2(-b->uhw, k ? b->uhh : -b->uhh);
            ends[k][1] = v2(b->uhw, k ? -b->uhh : b->uhh);
        }
    } else if (no->shape == TK_SH_FORBID || no->shape == TK_SH_CFORBID) {
        double k = 0.707107 * b->hw, sx = no->shape == TK_SH_FORBID ? -1 : 1;
        n = 1;
        ends[0][0] = v2(sx * k, -k);
        ends[0][1] = v2(-sx * k, k);
    }
    for (int k = 0; k < n; k++) {
        vec2 a = vadd(c, rot_deg(ends[k][0], no->rotate));
        vec2 z = vadd(c, rot_deg(ends[k][1], no->rotate));
        ir_pt p[2] = { { a.x, a.y }, { z.x, z.y } };
        ir_elem *e = ir_add(T->d, IR_POLY);
        ir_elem_set_pts(e, p, 2);
        e->closed = 0;
        e->line = line;
        emit_outline_attrs(T, no, e, 1, 0);
    }
}

/* The node's text element: the box of the (rotated) text around the centre
 * c, the plain text, and at=, anchor=, size=, id=, along=, pos=, ... */
static void emit_node_text(tikz *T, const tk_nodeopts *no, const char *text, const node_box *b,
                           vec2 c, vec2 at, double fs, const vec2 *seg, int nseg, int line)
{
    const char *a = no->anchor;
    double cr = b->cr, sr = b->sr;
    ir_elem *e = ir_add(T->d, IR_TEXT);
    /* the text's box around the centre, rotated with the node */
    double lx[2] = { b->tx0, b->tx1 }, ly[2] = { b->by - b->dp, b->by + b->h };
    ir_box tb = ir_box_empty();
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            ir_box_add(&tb, c.x + lx[i] * cr - ly[j] * sr, c.y + lx[i] * sr + ly[j] * cr);
    ir_pt p[2] = { { tb.x1, tb.y1 }, { tb.x2, tb.y2 } };
    ir_elem_set_pts(e, p, 2);
    e->str = tm_plain_text(b->lay.lines ? b->lay.lines : text);
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
    if (GS(T)->clip) tk_set_num(e, "clip", GS(T)->clip);
    if (no->textc[0] && strcmp(no->textc, "black") != 0) ir_elem_set(e, "color", no->textc);
    ir_elem_set(e, "tex", text);
}

/* Places a node: its text measured, its shape sized around it, its anchor
 * put at at, then its outline, its text, its name and its labels. The
 * node's geometry goes to *geom when geom is not NULL. */
static void place_node_geom(tikz *T, tk_nodeopts *no, vec2 at, const char *text, int line,
                            const vec2 *seg, int nseg, tk_node *geom)
{
    gstate *g = GS(T);
    double fs = no->font_size > 0 ? no->font_size : 12;
    /* the default inner sep, .3333em, is measured in the font around the
     * node, not in the node's own font= */
    double em = (g->font_size > 0 ? g->font_size : 12) * TM_FONT_SCALE;
    double isx = no->inner_sep_x >= 0 ? no->inner_sep_x : 0.3333 * em;
    double isy = no->inner_sep_y >= 0 ? no->inner_sep_y : 0.3333 * em;
    double os = no->outer_sep >= 0 ? no->outer_sep : (g->outer_sep >= 0 ? g->outer_sep : 0.5 * g->lw);
    node_box b;
    measure_node_text(T, no, text, fs, em, line, &b);
    /* transform shape: the node takes the scale and rotation of the
     * coordinate transformation (its text, seps, sizes and outline; not
     * its line width) */
    double ts = 1;
    if (g->transform_shape) {
        mat m = g->ctm;
        double det = m.a * m.d - m.b * m.c;
        if (isfinite(det) && fabs(det) > 1e-12 && fabs(det) < 1e12) {
            ts = sqrt(fabs(det));
            no->rotate += atan2(m.b, m.a) / DEG;
        }
        if (ts != 1) {
            isx *= ts;
            isy *= ts;
            os *= ts;
            no->min_w *= ts;
            no->min_h *= ts;
            b.w *= ts;
            b.h *= ts;
            b.dp *= ts;
            b.tx0 *= ts;
            b.tx1 *= ts;
        }
    }
    /* a rotated node (rotate=): its anchors are in its own, rotated frame */
    double th = no->rotate * DEG;
    b.cr = cos(th);
    b.sr = sin(th);
    double top = b.h + isy, bot = -(b.dp + isy);
    /* the anchor geometry (outer sep included), in the node's own frame */
    tk_node sh;
    memset(&sh, 0, sizeof sh);
    /* 1ex of the font around the node (as 1em) */
    double ex = em * (6.10128 / (12 * TM_FONT_SCALE));
    size_node_shape(no, b.w + 2 * isx, top - bot, isx, isy, ex, os, &b, &sh);
    b.by = -(b.h - b.dp) / 2;   /* baseline relative to centre */
    sh.by = b.by;
    /* shapes with their own frame (cross out and strike out are rectangles) */
    int newshape = sh.shape >= TK_SH_ELLIPSE;
    /* anchor offset (anchors sit outer sep outside the border), local frame */
    vec2 off = v2(0, 0);
    const char *a = no->anchor;
    if (a[0] == '@') {
        off = shape_border(&sh, atof(a + 1));
    } else if (anchor_offset(a, strlen(a), &sh, &off) != 0) {
        double ang;
        if (tk_eval(T, a, strlen(a), &ang, NULL) == 0) off = shape_border(&sh, ang);
    }
    off = v2(off.x * b.cr - off.y * b.sr, off.x * b.sr + off.y * b.cr);
    /* from here on, b's hw/hh are the half sizes of the (rotated) node's
     * box; the node's anchors and border (sh) stay in its own frame,
     * turned by its rotation, as pgf keeps a node's transformation */
    b.uhw = b.hw;
    b.uhh = b.hh;
    if (no->rotate != 0 && !newshape) {
        double ahw = fabs(b.hw * b.cr) + fabs(b.hh * b.sr), ahh = fabs(b.hw * b.sr) + fabs(b.hh * b.cr);
        if (sh.shape != TK_SH_CIRCLE) { b.hw = ahw; b.hh = ahh; }
    }
    sh.rot = no->rotate;
    if (no->shape == TK_SH_COORD) {
        /* shape=coordinate: a point; no text, no outline */
        sh.shape = TK_SH_COORD;
        sh.hw = sh.hh = sh.by = 0;
        off = v2(0, 0);
        b.empty = 1;
        no->draw = no->fill = 0;
    }
    vec2 c = vsub(vadd(at, v2(no->shift_x, no->shift_y)), off);
    sh.c = c;
    tk_bbox_add_node(T, &sh, os, no->draw ? no->lw / 2 : 0);
    if (T->mxcell) tk_matrix_note_node(T, &sh, os, no->draw ? no->lw : 0);
    if (T->d) {
        /* cross out and strike out have no outline (no background path) */
        int outline = no->shape != TK_SH_CROSSOUT && no->shape != TK_SH_STRIKEOUT;
        if (outline && (no->draw || no->fill)) draw_node_outline(T, no, &sh, &b, c, line);
        if (!b.empty) emit_node_text(T, no, text, &b, c, at, fs * ts, seg, nseg, line);
        if (no->draw) draw_node_foreground(T, no, &b, c, line);
    }
    if (no->name) tk_add_node_geom(T, no->name, &sh);
    if (T->set_pending) tk_nodeset_join(T, no->name, &sh);
    if (geom) *geom = sh;
    for (int i = 0; i < no->nlabels; i++)
        tk_place_label(T, no->labels[i].spec, &sh, line, no->labels[i].pin);
    /* after its labels, which are nodes too */
    T->last_placed = sh;
    T->last_placed.name = NULL;
    T->last_placed_ok = 1;
    T->last_placed_name[0] = 0;
    if (no->name && strlen(no->name) < sizeof T->last_placed_name) strcpy(T->last_placed_name, no->name);
    free(b.lay.lines);
}
