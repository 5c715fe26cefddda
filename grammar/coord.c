/* coord.c — coordinates: the text inside a path's parentheses, (1,2),
 * (30:1cm), (A.north), ($(A)!0.5!(B)$), (axis cs:1,2), ... to a point. */
#include "grammar/interp.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int eval_num(tikz *T, const char *s, size_t n, double *v, int *hu, int line)
{
    if (tk_eval(T, s, n, v, hu) != 0) {
        tk_warn(T, line, "cannot evaluate '%.*s'", (int)(n > 60 ? 60 : n), s);
        return -1;
    }
    return 0;
}


/* s[0..n) is the node name nm, alone or with an anchor (nm.anchor) */
static int names_node(const char *s, size_t n, const char *nm)
{
    size_t l = strlen(nm);
    return n >= l && memcmp(s, nm, l) == 0 && (n == l || s[l] == '.');
}

int tk_named_point(tikz *T, const char *s, size_t n, vec2 *canvas)
{
    /* the picture's box so far, a rectangle node (tikz.c) */
    if (names_node(s, n, "current bounding box")) {
        tk_node cb;
        if (tk_current_bbox(T, &cb) != 0) return -1;
        if (n == 20) { *canvas = cb.c; return 0; }
        return tk_node_anchor(T, &cb, s + 21, n - 21, canvas);
    }
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
            /* factor up to the top-level '*' that a '(' follows (the calc
             * library reads <factor>*(<coordinate>): cos(0)*sin(90)*(1,1)) */
            long star = -1;
            for (size_t j = i; j < n;) {
                long k = tk_find_top(s + j, n - j, '*');
                if (k < 0) break;
                size_t e = j + (size_t)k + 1;
                while (e < n && isspace((unsigned char)s[e])) e++;
                if (e < n && s[e] == '(') { star = (long)(j - i) + k; break; }
                j += (size_t)k + 1;
            }
            if (star < 0) return -1;
            const char *f = s + i;
            size_t fn = (size_t)star;
            tk_unbrace(&f, &fn);
            if (eval_num(T, f, fn, &factor, NULL, line)) return -1;
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
            if (spn && sp[0] == '{') tk_unbrace(&sp, &spn);   /* !{sin(60)*2}! */
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

/* ([options]coordinate): the options' transformations apply to this point
 * only, e.g. ([xshift=1cm]A) is 1cm right of A; s[0] is the '[' */
static int coord_with_options(tikz *T, const char *s, size_t n, vec2 *out, int line)
{
    gstate *g = GS(T);
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

/* The key=value list of a coordinate system, body[0,bn): key k, its value
 * (trimmed, enclosing braces stripped) in *v, *vn; 0 when absent. A key
 * given twice: the last one, as \tikzset keeps it. */
static int cs_key(const char *body, size_t bn, const char *k, const char **v, size_t *vn)
{
    int found = 0;
    size_t i = 0, itn, keyn, valn;
    const char *it, *key, *val;
    while (tk_next_item(body, bn, ',', &i, &it, &itn))
        if (tk_split_kv(it, itn, &key, &keyn, &val, &valn) >= 0 && tk_is(key, keyn, k)) {
            *v = val;
            *vn = valn;
            found = 1;
        }
    return found;
}

/* a cs key's value as a number (*hu: it has a unit), dflt when absent */
static int cs_num(tikz *T, const char *body, size_t bn, const char *k, double dflt,
                  double *out, int *hu, int line)
{
    const char *v;
    size_t vn;
    if (hu) *hu = 0;
    if (!cs_key(body, bn, k, &v, &vn)) { *out = dflt; return 0; }
    return eval_num(T, v, vn, out, hu, line);
}

/* polar cs keys: angle=, radius= (or x radius=, y radius=); defaults 0 */
static int cs_polar(tikz *T, const char *body, size_t bn, double *a, double *rx, double *ry,
                    int *hux, int *huy, int line)
{
    double r;
    int hu;
    if (cs_num(T, body, bn, "angle", 0, a, NULL, line) ||
        cs_num(T, body, bn, "radius", 0, &r, &hu, line))
        return -1;
    *rx = *ry = r;
    *hux = *huy = hu;
    const char *v;
    size_t vn;
    if (cs_key(body, bn, "x radius", &v, &vn) && eval_num(T, v, vn, rx, hux, line)) return -1;
    if (cs_key(body, bn, "y radius", &v, &vn) && eval_num(T, v, vn, ry, huy, line)) return -1;
    return 0;
}

static tk_node *cs_node(tikz *T, const char *nm, size_t nn, const char *cs, int line)
{
    tk_node *nd = tk_find_node(T, nm, nn);
    if (!nd) tk_warn(T, line, "undefined node '%.*s' in %s cs", (int)(nn > 60 ? 60 : nn), nm, cs);
    return nd;
}

/* (node cs:name=N, anchor=A | angle=X): the node's anchor, its border
 * point at that angle, or (a name only) its center: as (N.A), (N.X), (N) */
static int coord_node_cs(tikz *T, const char *body, size_t bn, vec2 *out, int line)
{
    const char *nm, *a = NULL;
    size_t nn, an = 0;
    if (!cs_key(body, bn, "name", &nm, &nn) || nn == 0) return -1;
    if (!cs_key(body, bn, "anchor", &a, &an)) cs_key(body, bn, "angle", &a, &an);
    tk_node *nd = cs_node(T, nm, nn, "node", line);
    if (!nd) return -1;
    vec2 c = nd->c;
    if (a && an && !tk_is(a, an, "none")) {
        char buf[64];
        const char *ax = a;
        size_t axn = an;
        double v;
        /* an angle is evaluated (angle=-90+10) before it names a border point */
        if ((isdigit((unsigned char)a[0]) || a[0] == '-' || a[0] == '+' || a[0] == '.' || a[0] == '(') &&
            tk_eval(T, a, an, &v, NULL) == 0) {
            snprintf(buf, sizeof buf, "%.6g", v);
            ax = buf;
            axn = strlen(buf);
        }
        if (tk_node_anchor(T, nd, ax, axn, &c)) return -1;
    }
    *out = mat_inv_apply(GS(T)->ctm, c);
    return 0;
}

/* (barycentric cs:A=1,B=2,...): the weighted mean of the nodes' centers */
static int coord_barycentric(tikz *T, const char *body, size_t bn, vec2 *out, int line)
{
    vec2 acc = v2(0, 0);
    double sum = 0;
    size_t i = 0, itn, nn, wn;
    const char *it, *nm, *w;
    while (tk_next_item(body, bn, ',', &i, &it, &itn)) {
        if (itn == 0) continue;
        if (tk_split_kv(it, itn, &nm, &nn, &w, &wn) <= 0) return -1;
        tk_node *nd = cs_node(T, nm, nn, "barycentric", line);
        double wv;
        if (!nd || eval_num(T, w, wn, &wv, NULL, line)) return -1;
        acc = vadd(acc, vscale(nd->c, wv));
        sum += wv;
    }
    if (fabs(sum) < 1e-12) {
        tk_warn(T, line, "barycentric cs: the weights add up to 0");
        return -1;
    }
    *out = mat_inv_apply(GS(T)->ctm, vscale(acc, 1 / sum));
    return 0;
}

/* (tangent cs:node=C, point={P}, solution=1|2): where a line through P
 * touches the circle of node C (its center, the radius to its east
 * anchor), as the calc library computes it: the point of the circle at
 * acos(r/|P-C|) from the direction of P, counterclockwise for solution 1,
 * clockwise for 2 */
static int coord_tangent_cs(tikz *T, const char *body, size_t bn, vec2 *out, int line)
{
    const char *nm, *pt, *sol;
    size_t nn, pn, sn;
    if (!cs_key(body, bn, "node", &nm, &nn) || !cs_key(body, bn, "point", &pt, &pn)) return -1;
    tk_node *nd = cs_node(T, nm, nn, "tangent", line);
    if (!nd) return -1;
    tk_unbrace(&pt, &pn);
    if (pn >= 2 && pt[0] == '(' && pt[pn - 1] == ')') { pt++; pn -= 2; }
    vec2 pu, east;
    if (T->perp_depth >= 16) return -1;
    T->perp_depth++;
    int bad = tk_coord_user(T, pt, pn, &pu, line);
    T->perp_depth--;
    if (bad || tk_node_anchor(T, nd, "east", 4, &east)) return -1;
    int k = 1;
    if (cs_key(body, bn, "solution", &sol, &sn)) {
        double v;
        if (eval_num(T, sol, sn, &v, NULL, line)) return -1;
        k = v > 1.5 ? 2 : 1;
    }
    vec2 c = nd->c, d = vsub(mat_apply(GS(T)->ctm, pu), c);
    double r = hypot(east.x - c.x, east.y - c.y), len = hypot(d.x, d.y);
    if (!(len >= r) || len < 1e-9) {
        tk_warn(T, line, "tangent cs: the point lies inside the circle of node '%.*s'",
                (int)(nn > 60 ? 60 : nn), nm);
        return -1;
    }
    double t = acos(r / len) * (k == 1 ? 1 : -1);
    vec2 u = vscale(d, 1 / len);
    vec2 q = v2(c.x + r * (u.x * cos(t) - u.y * sin(t)), c.y + r * (u.y * cos(t) + u.x * sin(t)));
    *out = mat_inv_apply(GS(T)->ctm, q);
    return 0;
}

/* (kind cs:body): axis cs (in a pgfplots axis), canvas cs and xyz cs
 * (x=..,y=..,z=..), canvas polar and xyz polar cs, node, barycentric and
 * tangent cs, the 3d library's xyz cylindrical and xyz spherical cs; cs
 * points at the "cs:" */
static int coord_cs(tikz *T, const char *s, size_t n, const char *cs, vec2 *out, int line)
{
    gstate *g = GS(T);
    const char *body = cs + 3;
    size_t bn = n - (size_t)(body - s);
    const char *kind = s;
    size_t kn = (size_t)(cs - s);
    tk_trim(&kind, &kn);
    if (tk_is(kind, kn, "node")) return coord_node_cs(T, body, bn, out, line);
    if (tk_is(kind, kn, "barycentric")) return coord_barycentric(T, body, bn, out, line);
    if (tk_is(kind, kn, "tangent")) return coord_tangent_cs(T, body, bn, out, line);
    if (tk_is(kind, kn, "canvas polar") || tk_is(kind, kn, "xyz polar") || tk_is(kind, kn, "xy polar")) {
        double a, rx, ry;
        int hx, hy;
        if (cs_polar(T, body, bn, &a, &rx, &ry, &hx, &hy, line)) return -1;
        if (kind[0] == 'c') {
            /* \pgfpointpolar: dimensions (a number is in pt) */
            *out = v2(rx * cos(a * DEG), ry * sin(a * DEG));
        } else {
            /* \pgfpointpolarxy: along the x and y vectors (a dimension as is) */
            vec2 px = hx ? v2(rx * cos(a * DEG), 0) : vscale(g->xv, rx * cos(a * DEG));
            vec2 py = hy ? v2(0, ry * sin(a * DEG)) : vscale(g->yv, ry * sin(a * DEG));
            *out = vadd(px, py);
        }
        return 0;
    }
    if (tk_is(kind, kn, "xyz cylindrical")) {
        double a, rx, ry, z;
        int hx, hy;
        if (cs_polar(T, body, bn, &a, &rx, &ry, &hx, &hy, line) ||
            cs_num(T, body, bn, "z", 0, &z, NULL, line))
            return -1;
        /* \pgfpointcylindrical{angle}{radius}{z} */
        vec3 q = { rx * cos(a * DEG), rx * sin(a * DEG), z };
        *out = xyz_point(g, q.x, q.y, q.z);
        T->last3 = q;
        T->last3_kind = 2;
        T->any3d = 1;
        return 0;
    }
    if (tk_is(kind, kn, "xyz spherical")) {
        double a, rx, ry, lat;
        int hx, hy;
        const char *v;
        size_t vn;
        if (cs_polar(T, body, bn, &a, &rx, &ry, &hx, &hy, line) ||
            cs_num(T, body, bn, "latitude", 0, &lat, NULL, line))
            return -1;
        if (cs_key(body, bn, "longitude", &v, &vn) && eval_num(T, v, vn, &a, NULL, line)) return -1;
        /* \pgfpointspherical{longitude}{latitude}{radius}: r (cos(lat)
         * (sin(lon) x + cos(lon) y) + sin(lat) z), as pgfcorepoints has it */
        vec3 q = { rx * cos(lat * DEG) * sin(a * DEG), rx * cos(lat * DEG) * cos(a * DEG),
                   rx * sin(lat * DEG) };
        *out = xyz_point(g, q.x, q.y, q.z);
        T->last3 = q;
        T->last3_kind = 2;
        T->any3d = 1;
        return 0;
    }
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

/* (intersection of A--B and C--D): b is the text after "intersection of" */
static int coord_intersection_of(tikz *T, const char *b, size_t bn, vec2 *out, int line)
{
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

/* (angle:radius) or (angle:x radius and y radius), colon at s[colon] */
static int coord_polar(tikz *T, const char *s, size_t n, long colon, vec2 *out, int line)
{
    gstate *g = GS(T);
    double a, r, r2;
    int hu = 0, hu2 = 0;
    const char *rs = s + colon + 1;
    size_t rn = n - (size_t)colon - 1;
    const char *and = tk_memmem(rs, rn, " and ");
    /* TikZ's direction names (\tikz@polar@dir@...) */
    static const struct { const char *n; double a; } dirs[] = {
        { "up", 90 }, { "down", -90 }, { "left", 180 }, { "right", 0 }, { "north", 90 },
        { "south", -90 }, { "east", 0 }, { "west", 180 }, { "north east", 45 },
        { "north west", 135 }, { "south east", -45 }, { "south west", -135 }, { NULL, 0 }
    };
    const char *an = s;
    size_t ann = (size_t)colon;
    tk_trim(&an, &ann);
    int named = 0;
    for (int i = 0; dirs[i].n; i++)
        if (tk_is(an, ann, dirs[i].n)) { a = dirs[i].a; named = 1; break; }
    if (!named && eval_num(T, s, (size_t)colon, &a, NULL, line)) return -1;
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

/* (x,y) or (x,y,z), the commas at s[c1] and s[c2] (c2 < 0: none); sets last3 */
static int coord_tuple(tikz *T, const char *s, size_t n, long c1, long c2, vec2 *out, int line)
{
    gstate *g = GS(T);
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
    const char *ys = s + c1 + 1;
    size_t yn = n - (size_t)c1 - 1;
    if (eval_num(T, s, (size_t)c1, &x, &hx, line) || eval_num(T, ys, yn, &y, &hy, line))
        return -1;
    if (tk_may_random(s, n)) {
        /* TikZ parses each part once to see whether it has a unit
         * (\tikz@checkunit) and again to make the point (\pgfpointxy, or
         * \pgfpoint): a random number is drawn each time, the second one is
         * used; y before x when only y has a unit */
        int ok = hy && !hx ? eval_num(T, ys, yn, &y, NULL, line) == 0 &&
                             eval_num(T, s, (size_t)c1, &x, NULL, line) == 0
                           : eval_num(T, s, (size_t)c1, &x, NULL, line) == 0 &&
                             eval_num(T, ys, yn, &y, NULL, line) == 0;
        if (!ok) return -1;
    }
    vec2 px = hx ? v2(x, 0) : vscale(g->xv, x);
    vec2 py = hy ? v2(0, y) : vscale(g->yv, y);
    *out = vadd(px, py);
    if (!hx && !hy) { T->last3 = (vec3){ x, y, 0 }; T->last3_kind = 1; }
    return 0;
}

int tk_coord_user_general(tikz *T, const char *s, size_t n, vec2 *out, int line)
{
    T->last3_kind = 0;
    tk_trim(&s, &n);
    if (n && s[0] == '[') return coord_with_options(T, s, n, out, line);
    if (n == 0) return -1;
    if (n >= 2 && s[0] == '$' && s[n - 1] == '$') return calc_coord(T, s + 1, n - 2, out, line);
    const char *cs = find_cs(s, n);
    if (cs) return coord_cs(T, s, n, cs, out, line);
    if (n > 16 && memcmp(s, "intersection of", 15) == 0)
        return coord_intersection_of(T, s + 15, n - 15, out, line);
    /* (p |- q): p's x and q's y on the canvas; (p -| q): q's x and p's y */
    {
        int d = 0;
        for (size_t i = 0; i + 1 < n; i++) {
            char c = s[i];
            if (c == '(' || c == '{' || c == '[') d++;
            else if ((c == ')' || c == '}' || c == ']') && d > 0) d--;
            else if (d == 0 && ((c == '|' && s[i + 1] == '-') || (c == '-' && s[i + 1] == '|'))) {
                const char *a = s, *b = s + i + 2;
                size_t an = i, bn = n - i - 2;
                tk_unbrace(&a, &an);
                tk_unbrace(&b, &bn);
                vec2 pa, pb;
                if (an == 0 || bn == 0 || T->perp_depth >= 16) return -1;
                T->perp_depth++;
                int bad = tk_coord_user_general(T, a, an, &pa, line) ||
                          tk_coord_user_general(T, b, bn, &pb, line);
                T->perp_depth--;
                if (bad) return -1;
                mat m = GS(T)->ctm;
                vec2 ca = mat_apply(m, pa), cb = mat_apply(m, pb);
                vec2 r = c == '|' ? v2(ca.x, cb.y) : v2(cb.x, ca.y);
                *out = mat_inv_apply(m, r);
                T->last3_kind = 0;
                return 0;
            }
        }
    }
    /* the first ':' and the first two ','s outside (), {}, [] in one pass
     * (as tk_find_top finds them) */
    long colon = -1, c1 = -1, c2 = -1;
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
    if (colon >= 0) return coord_polar(T, s, n, colon, out, line);
    if (c1 >= 0) return coord_tuple(T, s, n, c1, c2, out, line);
    vec2 c;
    if (tk_named_point(T, s, n, &c) == 0) {
        *out = mat_inv_apply(GS(T)->ctm, c);
        tk_node *nd = tk_find_node(T, s, n);
        if (nd && nd->has3) { T->last3 = nd->p3; T->last3_kind = 3; }
        return 0;
    }
    if (names_node(s, n, "current page"))
        tk_warn(T, line, "'%.*s': the page and where the picture lands on it are not known "
                "(remember picture, overlay)", (int)(n > 60 ? 60 : n), s);
    else if (names_node(s, n, "current bounding box"))
        tk_warn(T, line, "'%.*s': the picture's bounding box is still empty, or no such anchor",
                (int)(n > 60 ? 60 : n), s);
    else
        tk_warn(T, line, "undefined coordinate or node '%.*s'", (int)(n > 60 ? 60 : n), s);
    return -1;
}

int tk_coord(tikz *T, const char *s, size_t n, vec2 *out, int line)
{
    vec2 u;
    T->cur3_ok = 0;
    if (tk_coord_user(T, s, n, &u, line)) return -1;
    /* after coord_user: ([options]A) pushes a graphics state, which may move
     * the stack */
    gstate *g = GS(T);
    *out = mat_apply(g->ctm, u);
    if (!(fabs(out->x) <= TK_MAX_DIMEN_PT) || !(fabs(out->y) <= TK_MAX_DIMEN_PT)) {
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
