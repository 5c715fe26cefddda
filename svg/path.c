/* svg/path.c — SVG path data into polylines. See svg/path.h. */
#include "svg/path.h"
#include "ir/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SVG_PI 3.14159265358979323846

void svg_path_free(svg_pathdata *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->sub[i].pts);
    free(p->sub);
    memset(p, 0, sizeof *p);
}

/* Locale-independent number scan: [+-]? (digits [. digits?] | . digits) ([eE][+-]?digits)?
 * Returns the length consumed (0: no number). */
static size_t scan_num(const char *s, double *out)
{
    size_t i = 0;
    int neg = 0;
    if (s[i] == '+' || s[i] == '-') { neg = s[i] == '-'; i++; }
    double v = 0;
    int digits = 0;
    while (isdigit((unsigned char)s[i])) { v = v * 10 + (s[i] - '0'); i++; digits++; }
    if (s[i] == '.') {
        size_t j = i + 1;
        double scale = 0.1;
        int fd = 0;
        while (isdigit((unsigned char)s[j])) { v += (s[j] - '0') * scale; scale *= 0.1; j++; fd++; }
        if (fd || digits) { i = j; digits += fd; }
    }
    if (!digits) return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1;
        int eneg = 0;
        if (s[j] == '+' || s[j] == '-') { eneg = s[j] == '-'; j++; }
        if (isdigit((unsigned char)s[j])) {
            int e = 0;
            while (isdigit((unsigned char)s[j])) { if (e < 10000) e = e * 10 + (s[j] - '0'); j++; }
            v *= pow(10.0, eneg ? -e : e);
            i = j;
        }
    }
    if (!isfinite(v)) v = neg ? -1e300 : 1e300;
    *out = neg ? -v : v;
    return i;
}

static size_t skip_sep(const char *s, size_t i, int comma)
{
    while (isspace((unsigned char)s[i])) i++;
    if (comma && s[i] == ',') {
        i++;
        while (isspace((unsigned char)s[i])) i++;
    }
    return i;
}

long svg_parse_numbers(const char *s, double **out)
{
    size_t i = 0, n = 0, cap = 0;
    double *v = NULL;
    *out = NULL;
    i = skip_sep(s, 0, 0);
    while (s[i]) {
        double x;
        size_t l = scan_num(s + i, &x);
        if (!l) { free(v); return -1; }
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            v = xrealloc(v, cap * sizeof *v);
        }
        v[n++] = x;
        i = skip_sep(s, i + l, 1);
    }
    *out = v;
    return (long)n;
}

typedef struct {
    svg_pathdata *out;
    size_t max_pts;
    int over;
} builder;

static svg_subpath *cur_sub(builder *b)
{
    return b->out->n ? &b->out->sub[b->out->n - 1] : NULL;
}

static void new_sub(builder *b, ir_pt p)
{
    svg_pathdata *o = b->out;
    /* a lone moveto (no drawing after it) is replaced */
    if (o->n && o->sub[o->n - 1].n == 1) {
        svg_subpath *s = &o->sub[o->n - 1];
        s->pts[0] = p;
        return;
    }
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 4;
        o->sub = xrealloc(o->sub, o->cap * sizeof *o->sub);
    }
    svg_subpath *s = &o->sub[o->n++];
    memset(s, 0, sizeof *s);
    s->cap = 8;
    s->pts = xrealloc(NULL, s->cap * sizeof *s->pts);
    s->pts[0] = p;
    s->n = 1;
    o->npts++;
}

static void add_pt(builder *b, ir_pt p)
{
    svg_subpath *s = cur_sub(b);
    if (b->max_pts && b->out->npts >= b->max_pts) { b->over = 1; return; }
    if (s->n == s->cap) {
        s->cap *= 2;
        s->pts = xrealloc(s->pts, s->cap * sizeof *s->pts);
    }
    s->pts[s->n++] = p;
    b->out->npts++;
}

static void set_tan(builder *b, ir_pt t0, ir_pt t1)
{
    svg_subpath *s = cur_sub(b);
    if (s->n == 1 || (s->tan_start.x == 0 && s->tan_start.y == 0)) s->tan_start = t0;
    if (t1.x != 0 || t1.y != 0) s->tan_end = t1;
}

static ir_pt P(double x, double y) { ir_pt p = { x, y }; return p; }
static ir_pt sub(ir_pt a, ir_pt b) { return P(a.x - b.x, a.y - b.y); }
static int nonzero(ir_pt a) { return a.x != 0 || a.y != 0; }

static void line_to(builder *b, ir_pt from, ir_pt to)
{
    ir_pt t = sub(to, from);
    if (nonzero(t)) set_tan(b, t, t);
    add_pt(b, to);
}

static void cubic(builder *b, ir_pt p0, ir_pt p1, ir_pt p2, ir_pt p3)
{
    ir_pt t0 = sub(p1, p0), t1 = sub(p3, p2);
    if (!nonzero(t0)) t0 = sub(p2, p0);
    if (!nonzero(t0)) t0 = sub(p3, p0);
    if (!nonzero(t1)) t1 = sub(p3, p1);
    if (!nonzero(t1)) t1 = sub(p3, p0);
    set_tan(b, t0, t1);
    cur_sub(b)->curved = 1;
    for (int i = 1; i <= SVG_PATH_STEPS; i++) {
        double t = (double)i / SVG_PATH_STEPS, u = 1 - t;
        double a = u * u * u, c1 = 3 * u * u * t, c2 = 3 * u * t * t, d = t * t * t;
        add_pt(b, P(a * p0.x + c1 * p1.x + c2 * p2.x + d * p3.x,
                    a * p0.y + c1 * p1.y + c2 * p2.y + d * p3.y));
    }
}

static void quad(builder *b, ir_pt p0, ir_pt p1, ir_pt p2)
{
    ir_pt c1 = P(p0.x + 2.0 / 3 * (p1.x - p0.x), p0.y + 2.0 / 3 * (p1.y - p0.y));
    ir_pt c2 = P(p2.x + 2.0 / 3 * (p1.x - p2.x), p2.y + 2.0 / 3 * (p1.y - p2.y));
    cubic(b, p0, c1, c2, p2);
}

/* SVG arc implementation notes F.6: endpoint to centre parameterization. */
static void arc(builder *b, ir_pt p0, double rx, double ry, double phi_deg, int large, int sweep,
                ir_pt p1)
{
    if (p0.x == p1.x && p0.y == p1.y) return;
    rx = fabs(rx);
    ry = fabs(ry);
    if (rx == 0 || ry == 0 || !isfinite(rx) || !isfinite(ry)) { line_to(b, p0, p1); return; }
    double phi = fmod(phi_deg, 360.0) * SVG_PI / 180.0;
    double cp = cos(phi), sp = sin(phi);
    double dx = (p0.x - p1.x) / 2, dy = (p0.y - p1.y) / 2;
    double x1 = cp * dx + sp * dy, y1 = -sp * dx + cp * dy;
    double lam = x1 * x1 / (rx * rx) + y1 * y1 / (ry * ry);
    if (lam > 1) { double s = sqrt(lam); rx *= s; ry *= s; }
    double num = rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1;
    double den = rx * rx * y1 * y1 + ry * ry * x1 * x1;
    double co = den > 0 && num > 0 ? sqrt(num / den) : 0;
    if (large == sweep) co = -co;
    double cxp = co * rx * y1 / ry, cyp = -co * ry * x1 / rx;
    double cx = cp * cxp - sp * cyp + (p0.x + p1.x) / 2;
    double cy = sp * cxp + cp * cyp + (p0.y + p1.y) / 2;
    double ux = (x1 - cxp) / rx, uy = (y1 - cyp) / ry;
    double vx = (-x1 - cxp) / rx, vy = (-y1 - cyp) / ry;
    double th1 = atan2(uy, ux);
    double dth = atan2(vy, vx) - th1;
    if (sweep && dth < 0) dth += 2 * SVG_PI;
    if (!sweep && dth > 0) dth -= 2 * SVG_PI;
    if (!isfinite(cx) || !isfinite(cy) || !isfinite(dth)) { line_to(b, p0, p1); return; }
    /* tangents */
    double s0 = dth > 0 ? 1 : -1;
    ir_pt t0 = P(s0 * (-rx * sin(th1) * cp - ry * cos(th1) * sp),
                 s0 * (-rx * sin(th1) * sp + ry * cos(th1) * cp));
    double th2 = th1 + dth;
    ir_pt t1 = P(s0 * (-rx * sin(th2) * cp - ry * cos(th2) * sp),
                 s0 * (-rx * sin(th2) * sp + ry * cos(th2) * cp));
    set_tan(b, t0, t1);
    cur_sub(b)->curved = 1;
    int steps = (int)ceil(fabs(dth) / (SVG_PI / 2) * SVG_PATH_STEPS / 2);
    if (steps < 2) steps = 2;
    if (steps > 4 * SVG_PATH_STEPS) steps = 4 * SVG_PATH_STEPS;
    for (int i = 1; i < steps; i++) {
        double t = th1 + dth * i / steps;
        double ex = rx * cos(t), ey = ry * sin(t);
        add_pt(b, P(cp * ex - sp * ey + cx, sp * ex + cp * ey + cy));
    }
    add_pt(b, p1);
}

static int nargs(char c)
{
    switch (toupper((unsigned char)c)) {
    case 'M': case 'L': case 'T': return 2;
    case 'H': case 'V': return 1;
    case 'C': return 6;
    case 'S': case 'Q': return 4;
    case 'A': return 7;
    case 'Z': return 0;
    default: return -1;
    }
}

int svg_path_parse(const char *d, svg_pathdata *out, size_t max_pts, size_t *errpos,
                   const char **errmsg)
{
    builder b = { out, max_pts, 0 };
    size_t i = skip_sep(d, 0, 0);
    ir_pt cur = { 0, 0 }, start = { 0, 0 }, lastc = { 0, 0 };
    char prev = 0;   /* previous command (upper case) */
    char cmd = 0;
    int have = 0;
    while (d[i]) {
        if (isalpha((unsigned char)d[i])) {
            cmd = d[i];
            if (nargs(cmd) < 0) { *errpos = i; *errmsg = "unknown path command"; return -1; }
            i = skip_sep(d, i + 1, 0);
        } else if (!cmd) {
            *errpos = i;
            *errmsg = "path data must start with a moveto";
            return -1;
        } else if (toupper((unsigned char)cmd) == 'Z') {
            *errpos = i;
            *errmsg = "number after closepath";
            return -1;
        }
        if (!have && toupper((unsigned char)cmd) != 'M') {
            *errpos = i;
            *errmsg = "path data must start with a moveto";
            return -1;
        }
        int na = nargs(cmd);
        double a[7];
        size_t at = i;
        for (int k = 0; k < na; k++) {
            if (toupper((unsigned char)cmd) == 'A' && (k == 3 || k == 4)) {
                if (d[i] != '0' && d[i] != '1') {
                    *errpos = i;
                    *errmsg = "arc flag must be 0 or 1";
                    return -1;
                }
                a[k] = d[i] - '0';
                i = skip_sep(d, i + 1, 1);
                continue;
            }
            size_t l = scan_num(d + i, &a[k]);
            if (!l) {
                *errpos = i;
                *errmsg = k ? "missing coordinate" : "expected a number or a command";
                return -1;
            }
            i = skip_sep(d, i + l, 1);
        }
        (void)at;
        int rel = islower((unsigned char)cmd);
        char up = (char)toupper((unsigned char)cmd);
        ir_pt o = rel ? cur : P(0, 0);
        switch (up) {
        case 'M':
            cur = P(o.x + a[0], o.y + a[1]);
            start = cur;
            new_sub(&b, cur);
            have = 1;
            cmd = rel ? 'l' : 'L'; /* implicit lineto after the first pair */
            break;
        case 'L': { ir_pt p = P(o.x + a[0], o.y + a[1]); line_to(&b, cur, p); cur = p; break; }
        case 'H': { ir_pt p = P((rel ? cur.x : 0) + a[0], cur.y); line_to(&b, cur, p); cur = p; break; }
        case 'V': { ir_pt p = P(cur.x, (rel ? cur.y : 0) + a[0]); line_to(&b, cur, p); cur = p; break; }
        case 'C': {
            ir_pt p1 = P(o.x + a[0], o.y + a[1]), p2 = P(o.x + a[2], o.y + a[3]),
                  p3 = P(o.x + a[4], o.y + a[5]);
            cubic(&b, cur, p1, p2, p3);
            lastc = p2;
            cur = p3;
            break;
        }
        case 'S': {
            ir_pt p1 = (prev == 'C' || prev == 'S') ? P(2 * cur.x - lastc.x, 2 * cur.y - lastc.y) : cur;
            ir_pt p2 = P(o.x + a[0], o.y + a[1]), p3 = P(o.x + a[2], o.y + a[3]);
            cubic(&b, cur, p1, p2, p3);
            lastc = p2;
            cur = p3;
            break;
        }
        case 'Q': {
            ir_pt p1 = P(o.x + a[0], o.y + a[1]), p2 = P(o.x + a[2], o.y + a[3]);
            quad(&b, cur, p1, p2);
            lastc = p1;
            cur = p2;
            break;
        }
        case 'T': {
            ir_pt p1 = (prev == 'Q' || prev == 'T') ? P(2 * cur.x - lastc.x, 2 * cur.y - lastc.y) : cur;
            ir_pt p2 = P(o.x + a[0], o.y + a[1]);
            quad(&b, cur, p1, p2);
            lastc = p1;
            cur = p2;
            break;
        }
        case 'A': {
            ir_pt p = P(o.x + a[5], o.y + a[6]);
            arc(&b, cur, a[0], a[1], a[2], a[3] != 0, a[4] != 0, p);
            cur = p;
            break;
        }
        case 'Z': {
            svg_subpath *s = cur_sub(&b);
            if (s) {
                ir_pt t = sub(start, cur);
                if (nonzero(t)) { set_tan(&b, t, t); }
                s->closed = 1;
            }
            cur = start;
            /* a drawing command after Z starts a new subpath at the start point */
            new_sub(&b, cur);
            cur_sub(&b)->n = 1;
            break;
        }
        }
        prev = up == 'M' ? 'L' : up;
        if (b.over) {
            *errpos = i;
            *errmsg = "too many points";
            return -1;
        }
    }
    /* drop a trailing lone point (after Z or a final moveto) */
    if (out->n && out->sub[out->n - 1].n == 1) {
        out->npts--;
        free(out->sub[--out->n].pts);
    }
    return 0;
}
