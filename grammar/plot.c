/* plot.c — the plot path operation's options and handlers, as TikZ
 * defines them (tikz.code.tex) with pgf's plot handlers
 * (pgflibraryplothandlers.code.tex) and marks (pgflibraryplotmarks):
 *   variable=\t (default \x), samples at={list} (default: samples= points
 *   spread evenly over domain=), smooth and smooth cycle (pgf's curveto
 *   handler: Bezier curves through the points with tension=, default 0.5,
 *   sampled into the path's polyline), sharp plot, sharp cycle, only
 *   marks, xcomb, ycomb, polar comb, ybar and xbar (bar width=, bar
 *   shift=), ybar interval and xbar interval (bars from a point to the
 *   next, pgf's default bar interval width and shift), const plot (const plot mark left), "-- plot" (the plot's
 *   first point joined to the path), mark= with
 *   mark size= (*, o, x, +, |, -, square, square*, triangle, triangle*,
 *   diamond, diamond*, drawn after the path as TikZ draws them).
 * Other handlers (const plot mark right/mid, jump marks) leave the path unparsed
 * (pathbuild.c asks tk_plot_handler_ok); marks of other names are not
 * drawn, with a warning. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "grammar/interp.h"
#include "ir/xalloc.h"

static const struct { const char *name; int h; } handlers[] = {
    { "smooth", TK_PLOT_SMOOTH }, { "smooth cycle", TK_PLOT_SMOOTH_CYCLE },
    { "sharp plot", TK_PLOT_SHARP }, { "sharp cycle", TK_PLOT_SHARP_CYCLE },
    { "only marks", TK_PLOT_MARKS_ONLY }, { "xcomb", TK_PLOT_XCOMB }, { "ycomb", TK_PLOT_YCOMB },
    { "const plot", TK_PLOT_CONST }, { "const plot mark left", TK_PLOT_CONST },
    { "const plot mark right", TK_PLOT_OTHER }, { "const plot mark mid", TK_PLOT_OTHER },
    { "jump mark left", TK_PLOT_OTHER }, { "jump mark right", TK_PLOT_OTHER },
    { "jump mark mid", TK_PLOT_OTHER }, { "ybar", TK_PLOT_YBAR }, { "xbar", TK_PLOT_XBAR },
    { "ybar interval", TK_PLOT_YBAR_INTERVAL }, { "xbar interval", TK_PLOT_XBAR_INTERVAL },
    { "polar comb", TK_PLOT_POLAR_COMB }, { NULL, 0 }
};

int tk_plot_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn, int has_v)
{
    if (kn < 4) return 0;
    char c = k[0];
    if (c != 's' && c != 'o' && c != 'x' && c != 'y' && c != 'c' && c != 'j' && c != 'p' &&
        c != 't' && c != 'm' && c != 'v' && c != 'b')
        return 0;
    gstate *g = GS(T);
    if (!has_v) {
        for (int i = 0; handlers[i].name; i++)
            if (tk_is(k, kn, handlers[i].name)) {
                g->plot_handler = handlers[i].h;
                g->plot_other = (unsigned char)i;
                return 1;
            }
        return 0;
    }
    const char *w = v;
    size_t wn = vn;
    tk_unbrace(&w, &wn);
    double d;
    if (tk_is(k, kn, "tension")) {
        if (tk_eval(T, w, wn, &d, NULL) == 0 && isfinite(d) && fabs(d) <= 1000) g->plot_tension = d;
        return 1;
    }
    if (tk_is(k, kn, "mark")) {
        if (tk_is(w, wn, "none") || wn == 0) g->plot_mark[0] = 0;
        else snprintf(g->plot_mark, sizeof g->plot_mark, "%.*s",
                      (int)(wn < sizeof g->plot_mark ? wn : sizeof g->plot_mark - 1), w);
        return 1;
    }
    if (tk_is(k, kn, "bar width") || tk_is(k, kn, "bar shift")) {
        if (tk_eval(T, w, wn, &d, NULL) == 0 && isfinite(d) && fabs(d) < 16384) {
            if (k[4] == 'w') g->bar_width = d; else g->bar_shift = d;
        }
        return 1;
    }
    if (tk_is(k, kn, "mark size")) {
        if (tk_eval(T, w, wn, &d, NULL) == 0 && isfinite(d) && d >= 0 && d < 1000) g->mark_size = d;
        return 1;
    }
    if (tk_is(k, kn, "variable")) {
        if (wn >= 2 && wn < sizeof g->plot_var && w[0] == '\\') snprintf(g->plot_var, sizeof g->plot_var, "%.*s", (int)wn, w);
        else tk_warn(T, T->cmd_line, "variable '%.*s' is not a control sequence; \\x kept",
                     (int)(wn > 40 ? 40 : wn), w);
        return 1;
    }
    if (tk_is(k, kn, "samples at")) {
        g->samples_at = tk_intern(T, w, wn < 4000 ? wn : 4000);
        return 1;
    }
    return 0;
}

const char *tk_plot_handler_name(const tikz *T)
{
    const gstate *g = &T->gs[T->ngs - 1];
    return handlers[g->plot_other].name;
}

/* samples at's list: a, b, ..., c ranges as \foreach reads them */
static size_t samples_at(tikz *T, const char *s, double **out, int line)
{
    size_t n = strlen(s), i = 0, nv = 0, cap = 0;
    double *v = NULL;
    double prev2 = NAN, prev = NAN;
    int dots = 0;
    const char *it;
    size_t in;
    while (nv < TK_MAX_SAMPLES && tk_next_item(s, n, ',', &i, &it, &in)) {
        if (in == 0) continue;
        if (tk_is(it, in, "...")) { dots = 1; continue; }
        double x;
        if (tk_eval(T, it, in, &x, NULL) != 0 || !isfinite(x)) {
            tk_warn(T, line, "samples at: cannot evaluate '%.*s' (left out)", (int)(in > 40 ? 40 : in), it);
            continue;
        }
        if (dots && !isnan(prev)) {
            double step = !isnan(prev2) ? prev - prev2 : (x >= prev ? 1 : -1);
            if (step != 0 && (x - prev) / step > 0) {
                for (double y = prev + step; (step > 0 ? y < x - 1e-9 : y > x + 1e-9) && nv < TK_MAX_SAMPLES;
                     y += step) {
                    if (nv == cap) { cap = cap ? cap * 2 : 32; v = xrealloc(v, cap * sizeof *v); }
                    v[nv++] = y;
                }
            }
        }
        dots = 0;
        if (nv == cap) { cap = cap ? cap * 2 : 32; v = xrealloc(v, cap * sizeof *v); }
        v[nv++] = x;
        prev2 = prev;
        prev = x;
    }
    *out = v;
    return nv;
}

/* replaces the variable var by a number in an expression */
static char *subst_var(const char *s, const char *var, double v)
{
    char num[40];
    snprintf(num, sizeof num, "(%.10g)", v);
    size_t vl = strlen(var), nl = strlen(num), n = strlen(s);
    struct tp_buf b = { 0 };
    tp_buf_add(&b, "", 0);
    for (size_t i = 0; i < n;) {
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

size_t tk_plot_expr_points(tikz *T, const char *expr, vec2 **out, int line)
{
    gstate *g = GS(T);
    double *xs = NULL;
    size_t nx;
    if (g->samples_at) {
        nx = samples_at(T, g->samples_at, &xs, line);
    } else {
        int ns = g->samples;
        xs = xrealloc(NULL, (size_t)ns * sizeof *xs);
        for (int k = 0; k < ns; k++) xs[k] = g->dom0 + (g->dom1 - g->dom0) * k / (ns - 1);
        nx = (size_t)ns;
    }
    const char *var = g->plot_var[0] ? g->plot_var : "\\x";
    vec2 *pts = xrealloc(NULL, (nx ? nx : 1) * sizeof *pts);
    size_t np = 0;
    for (size_t k = 0; k < nx; k++) {
        char *e = subst_var(expr, var, xs[k]);
        vec2 p;
        if (tk_coord(T, e, strlen(e), &p, line) == 0) pts[np++] = p;
        free(e);
    }
    free(xs);
    *out = pts;
    return np;
}

#define SMOOTH_STEPS 8

static void bez_add(vec2 **o, size_t *n, size_t *cap, vec2 a, vec2 b, vec2 c, vec2 d)
{
    if (*n + SMOOTH_STEPS + 1 > *cap) {
        *cap = (*n + SMOOTH_STEPS + 1) * 2;
        *o = xrealloc(*o, *cap * sizeof **o);
    }
    for (int k = 1; k <= SMOOTH_STEPS; k++) {
        double t = (double)k / SMOOTH_STEPS, u = 1 - t;
        (*o)[(*n)++] = v2(u * u * u * a.x + 3 * u * u * t * b.x + 3 * u * t * t * c.x + t * t * t * d.x,
                          u * u * u * a.y + 3 * u * u * t * b.y + 3 * u * t * t * c.y + t * t * t * d.y);
    }
}

size_t tk_plot_smooth(const vec2 *p, size_t n, double tension, int cycle, vec2 **out)
{
    /* pgf: \pgfsetplottension{t} keeps 0.2775 t; the support points of
     * point i are p_i -/+ f (p_{i+1} - p_{i-1}); the first curve leaves p_0
     * from p_0 itself, the last enters p_{n-1} at p_{n-1} */
    double f = 0.2775 * tension;
    vec2 *o = NULL;
    size_t m = 0, cap = 0;
    *out = NULL;
    if (n == 0) return 0;
    o = xrealloc(NULL, sizeof *o);
    cap = 1;
    o[m++] = p[0];
    if (n == 1) { *out = o; return m; }
    if (!cycle) {
        if (n == 2) { bez_add(&o, &m, &cap, p[0], p[0], p[1], p[1]); *out = o; return m; }
        vec2 sup = p[0];
        for (size_t i = 1; i + 1 < n; i++) {
            vec2 d = vscale(vsub(p[i + 1], p[i - 1]), f);
            bez_add(&o, &m, &cap, p[i - 1], sup, vsub(p[i], d), p[i]);
            sup = vadd(p[i], d);
        }
        bez_add(&o, &m, &cap, p[n - 2], sup, p[n - 1], p[n - 1]);
    } else {
        /* pgf's closed curve: every point has both supports (neighbours
         * taken around the cycle) */
        for (size_t i = 0; i < n; i++) {
            size_t a = i, b = (i + 1) % n;
            vec2 da = vscale(vsub(p[(a + 1) % n], p[(a + n - 1) % n]), f);
            vec2 db = vscale(vsub(p[(b + 1) % n], p[(b + n - 1) % n]), f);
            bez_add(&o, &m, &cap, p[a], vadd(p[a], da), vsub(p[b], db), p[b]);
        }
    }
    *out = o;
    return m;
}

/* a mark's element with the path's colours and line width */
static void mark_elem(tikz *T, ir_kind kind, const ir_pt *q, size_t n, int closed, int fill, int line)
{
    ir_elem *e = ir_add(T->d, kind);
    ir_elem_set_pts(e, q, n);
    e->closed = closed;
    e->line = line;
    tk_emit_attrs(T, e, 1, fill);
}

void tk_plot_marks(tikz *T, const vec2 *p, size_t n, int line)
{
    gstate *g = GS(T);
    const char *m = g->plot_mark;
    if (!m[0] || !T->d) return;
    double s = g->mark_size > 0 ? g->mark_size : 2;
    static const char *const known[] = { "*", "o", "x", "+", "|", "-", "square", "square*",
                                         "triangle", "triangle*", "diamond", "diamond*", NULL };
    int ok = 0;
    for (int i = 0; known[i]; i++) if (!strcmp(m, known[i])) ok = 1;
    if (!ok) {
        tk_warn(T, line, "plot mark '%s' is not drawn (*, o, x, +, |, -, square, triangle, diamond)", m);
        return;
    }
    int filled = m[strlen(m) - 1] == '*';
    for (size_t i = 0; i < n && i < TK_MAX_SAMPLES; i++) {
        double x = p[i].x, y = p[i].y, r = 0.70710678 * s;
        if (!strcmp(m, "*") || !strcmp(m, "o")) {
            ir_pt q[3] = { { x, y }, { s, 0 }, { 0, s } };
            mark_elem(T, IR_ELLIPSE, q, 3, 1, filled, line);
        } else if (!strcmp(m, "x") || !strcmp(m, "+")) {
            int xx = m[0] == 'x';
            ir_pt a[2] = { { x - (xx ? r : s), y - (xx ? r : 0) }, { x + (xx ? r : s), y + (xx ? r : 0) } };
            ir_pt b[2] = { { x - (xx ? r : 0), y + (xx ? r : s) }, { x + (xx ? r : 0), y - (xx ? r : s) } };
            mark_elem(T, IR_POLY, a, 2, 0, 0, line);
            mark_elem(T, IR_POLY, b, 2, 0, 0, line);
        } else if (!strcmp(m, "|") || !strcmp(m, "-")) {
            int v = m[0] == '|';
            ir_pt a[2] = { { x - (v ? 0 : s), y - (v ? s : 0) }, { x + (v ? 0 : s), y + (v ? s : 0) } };
            mark_elem(T, IR_POLY, a, 2, 0, 0, line);
        } else if (!strncmp(m, "square", 6)) {
            ir_pt a[2] = { { x - s, y - s }, { x + s, y + s } };
            mark_elem(T, IR_RECT, a, 2, 1, filled, line);
        } else if (!strncmp(m, "triangle", 8)) {
            ir_pt a[3] = { { x, y + s }, { x + s * cos(-30 * DEG), y + s * sin(-30 * DEG) },
                           { x + s * cos(-150 * DEG), y + s * sin(-150 * DEG) } };
            mark_elem(T, IR_POLY, a, 3, 1, filled, line);
        } else {
            ir_pt a[4] = { { x, y + s }, { x + .75 * s, y }, { x, y - s }, { x - .75 * s, y } };
            mark_elem(T, IR_POLY, a, 4, 1, filled, line);
        }
    }
}
