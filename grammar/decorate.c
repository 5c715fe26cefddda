/* decorate.c — decorations (TikZ's decorate / decoration= options and the
 * decorate { ... } path operation), as pgf's decoration module runs them
 * (pgfmoduledecorations.code.tex) with the automata of the libraries
 * decorations.pathmorphing (zigzag, saw, snake, coil, bumps, random steps)
 * and decorations.pathreplacing (brace), plus lineto and curveto (the path
 * itself).
 *
 * An automaton walks the path by its length: each state draws in a frame
 * whose origin is the point of the path where the state begins and whose x
 * axis is the path's direction there (y to its left), then moves on by its
 * width; a state switches to another when less than its "switch if less
 * than" length of the path is left, and to the final state when less than
 * its width is left. The final state draws a line to the path's last
 * point. pre length / post length leave that much of the path's start /
 * end undecorated (drawn as it is, or left out with pre=moveto /
 * post=moveto); raise= moves the decoration to the left
 * of the path, mirror to its other side.
 *
 * The paths are followed as polylines (curves and arcs sampled), and the
 * decorations' curves are sampled into the polyline they give, so a
 * decorated path is a poly record. What differs from pgf: random steps
 * draws its own pseudo-random numbers (the same for every run, not pgf's);
 * the corners of the path are not treated apart (pgf's auto corner on
 * length: a state simply goes on in the direction of the path where it
 * began). decorations.shapes' crosses draws a cross at every segment
 * length (its output has move-tos: NaN points between its strokes, read by
 * the path builder only). decorations.fractals' Koch snowflake and Cantor
 * set replace each segment of a path of straight segments (a curve in the
 * path: not drawn). Other decorations (text along path, markings, ...) are
 * not drawn: the path stays unparsed. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "grammar/interp.h"
#include "ir/xalloc.h"

/* the decoration options of the graphics state (decoration=, decorate) */
int tk_deco_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn, int has_v)
{
    gstate *g = GS(T);
    if (tk_is(k, kn, "decorate")) {
        const char *w = v;
        size_t wn = vn;
        if (has_v) tk_unbrace(&w, &wn);
        g->decorate = !(has_v && tk_is(w, wn, "false"));
        return 1;
    }
    if (!has_v || !tk_is(k, kn, "decoration")) return 0;
    const char *w = v;
    size_t wn = vn;
    tk_unbrace(&w, &wn);
    /* decoration= sets keys: the later ones add to the earlier */
    size_t ol = g->decoration ? strlen(g->decoration) : 0;
    if (ol + wn + 2 > 4096) {
        tk_warn(T, T->cmd_line, "decoration options longer than 4096 bytes; the later ones ignored");
        return 1;
    }
    char *x = xrealloc(NULL, ol + wn + 2);
    size_t o = 0;
    if (ol) { memcpy(x, g->decoration, ol); x[ol] = ','; o = ol + 1; }
    memcpy(x + o, w, wn);
    x[o + wn] = 0;
    g->decoration = tk_intern(T, x, o + wn);
    free(x);
    return 1;
}

static const char *const deco_names[] = {
    "zigzag", "saw", "snake", "coil", "bumps", "random steps", "brace", "lineto", "curveto",
    NULL
};

/* names pgf knows that are not drawn here */
static const char *const other_names[] = {
    "straight zigzag", "bent", "moveto", "ticks", "expanding waves", "waves", "border",
    "crosses", "triangles", "shape backgrounds", "text along path", "text effects along path",
    "markings", "footprints", "Koch curve type 1", "Koch curve type 2", "Koch snowflake",
    "Cantor set", "show path construction", "calligraphic brace", NULL
};

static int deco_get(tikz *T, tk_deco *d, int moves_ok);

int tk_deco_get(tikz *T, tk_deco *d) { return deco_get(T, d, 0); }
int tk_deco_get_moves(tikz *T, tk_deco *d) { return deco_get(T, d, 1); }

static int deco_get(tikz *T, tk_deco *d, int moves_ok)
{
    memset(d, 0, sizeof d->name);
    d->shape_w = d->shape_h = 2.5;
    d->shift_only = 0;
    int other_transform = 0;
    d->name[0] = 0;
    d->amp = 2.5;
    d->seglen = 10;
    d->aspect = 0.5;
    d->raise = 0;
    d->mirror = 0;
    d->pre = d->post = 0;
    d->pre_move = d->post_move = 0;
    d->truncated = 0;
    const char *s = GS(T)->decoration;
    if (!s) return -1;
    size_t n = strlen(s), i = 0;
    while (i < n) {
        size_t st = i, eq = (size_t)-1;
        int dd = 0;
        for (; i < n; i++) {
            char c = s[i];
            if (c == '{' || c == '(' || c == '[') dd++;
            else if ((c == '}' || c == ')' || c == ']') && dd) dd--;
            else if (dd == 0 && c == ',') break;
            else if (dd == 0 && c == '=' && eq == (size_t)-1) eq = i;
        }
        const char *k = s + st, *v = NULL;
        size_t kn = (eq == (size_t)-1 ? i : eq) - st, vn = 0;
        if (eq != (size_t)-1) { v = s + eq + 1; vn = i - eq - 1; tk_trim(&v, &vn); tk_unbrace(&v, &vn); }
        i++;
        tk_trim(&k, &kn);
        if (kn && k[0] == '/') {
            /* /pgf/decoration/amplitude: the last part */
            const char *sl = k;
            for (size_t j = 0; j < kn; j++) if (k[j] == '/') sl = k + j;
            kn -= (size_t)(sl + 1 - k);
            k = sl + 1;
        }
        if (kn == 0) continue;
        double x;
        /* a dimension past TeX's largest is TeX's error; here the key is
         * ignored (the 200000-point limit bounds the rest) */
#define DIM_OK(v, vn) (tk_eval(T, v, vn, &x, NULL) == 0 && isfinite(x) && fabs(x) <= TK_MAX_DIMEN_PT)
        if (v && tk_is(k, kn, "name")) {
            snprintf(d->name, sizeof d->name, "%.*s", (int)(vn < sizeof d->name ? vn : sizeof d->name - 1), v);
        } else if (v && tk_is(k, kn, "amplitude")) {
            if (DIM_OK(v, vn)) d->amp = x;
        } else if (v && tk_is(k, kn, "segment length")) {
            if (DIM_OK(v, vn)) d->seglen = x;
        } else if (v && tk_is(k, kn, "aspect")) {
            if (DIM_OK(v, vn)) d->aspect = x;
        } else if (v && tk_is(k, kn, "raise")) {
            if (DIM_OK(v, vn)) d->raise = x;
        } else if (v && tk_is(k, kn, "pre length")) {
            if (DIM_OK(v, vn)) d->pre = x;
        } else if (v && (tk_is(k, kn, "pre") || tk_is(k, kn, "post"))) {
            /* what the undecorated stretch is: lineto (drawn) or moveto (not) */
            int mv = tk_is(v, vn, "moveto");
            if (kn == 3) d->pre_move = mv; else d->post_move = mv;
        } else if (v && tk_is(k, kn, "post length")) {
            if (DIM_OK(v, vn)) d->post = x;
        } else if (v && (tk_is(k, kn, "shape start width") || tk_is(k, kn, "shape width"))) {
            if (DIM_OK(v, vn)) d->shape_w = x;
        } else if (v && (tk_is(k, kn, "shape start height") || tk_is(k, kn, "shape height"))) {
            if (DIM_OK(v, vn)) d->shape_h = x;
        } else if (v && (tk_is(k, kn, "shape start size") || tk_is(k, kn, "shape size"))) {
            if (DIM_OK(v, vn)) d->shape_w = d->shape_h = x;
        } else if (v && tk_is(k, kn, "transform")) {
            /* the transformation of each state's frame: shift only keeps
             * the frame's axes (not turned along the path); others not read */
            const char *w = v;
            size_t wn = vn;
            tk_trim(&w, &wn);
            if (tk_is(w, wn, "shift only")) d->shift_only = 1;
            else if (wn) other_transform = 1;
        } else if (tk_is(k, kn, "mirror")) {
            d->mirror = !(v && tk_is(v, vn, "false"));
        } else if (!v) {
            /* an unknown key alone: a decoration's name, as pgf takes it */
            snprintf(d->name, sizeof d->name, "%.*s", (int)(kn < sizeof d->name ? kn : sizeof d->name - 1), k);
        }
    }
#undef DIM_OK
    if (!d->name[0]) return -1;
    if (other_transform) {
        char nm[sizeof d->name];
        snprintf(nm, sizeof nm, "%.14s with transform=", d->name);
        memcpy(d->name, nm, sizeof nm);
        return -1;
    }
    /* (and the fractals, which go by a path's input segments: the path
     * builder's, not a node outline's) */
    if (moves_ok && (strcmp(d->name, "crosses") == 0 || strcmp(d->name, "Cantor set") == 0 ||
                     strcmp(d->name, "Koch snowflake") == 0))
        return 0;
    for (int j = 0; deco_names[j]; j++) if (strcmp(d->name, deco_names[j]) == 0) return 0;
    (void)other_names;
    return -1;
}

/* ---- the automaton -------------------------------------------------------- */

#define DECO_MAX_POINTS 200000
#define BEZ_STEPS 8

typedef struct {
    const vec2 *p;            /* the path */
    const double *cum;        /* length up to each point */
    size_t n;
    const tk_deco *d;
    vec2 *out;
    size_t nout, cap;
    int full;                 /* DECO_MAX_POINTS reached */
    /* the frame of the current state */
    vec2 o, t, nrm;
    vec2 cur;                 /* the current point, local to the frame */
    unsigned rnd;
} deco_run;

static void put(deco_run *r, vec2 q)
{
    if (r->nout >= DECO_MAX_POINTS) { r->full = 1; return; }
    if (r->nout && fabs(r->out[r->nout - 1].x - q.x) < 1e-9 && fabs(r->out[r->nout - 1].y - q.y) < 1e-9)
        return;
    if (r->nout == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->out = xrealloc(r->out, r->cap * sizeof *r->out);
    }
    r->out[r->nout++] = q;
}

/* the path's point and direction at length s */
static vec2 path_at(const deco_run *r, double s, vec2 *dir)
{
    size_t lo = 0, hi = r->n - 1;
    if (s <= 0) s = 0;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (r->cum[mid] <= s) lo = mid; else hi = mid;
    }
    /* skip zero-length segments for the direction */
    size_t a = lo;
    while (a + 1 < r->n && r->cum[a + 1] - r->cum[a] < 1e-9) a++;
    if (a + 1 >= r->n) {
        a = lo;
        while (a > 0 && r->cum[a + 1] - r->cum[a] < 1e-9) a--;
    }
    double len = r->cum[a + 1] - r->cum[a];
    vec2 dv = len > 1e-9 ? vscale(vsub(r->p[a + 1], r->p[a]), 1 / len) : v2(1, 0);
    if (dir) *dir = dv;
    if (s >= r->cum[r->n - 1]) return r->p[r->n - 1];
    double seg = r->cum[lo + 1] - r->cum[lo];
    double f = seg > 1e-12 ? (s - r->cum[lo]) / seg : 0;
    return vadd(r->p[lo], vscale(vsub(r->p[lo + 1], r->p[lo]), f));
}

static void frame(deco_run *r, double s)
{
    r->o = path_at(r, s, &r->t);
    if (r->d->shift_only) r->t = v2(1, 0);
    r->nrm = v2(-r->t.y, r->t.x);
}

/* a move-to: the subpath ends here (a NaN point, once) */
static void put_break(deco_run *r)
{
    if (r->nout == 0 || isnan(r->out[r->nout - 1].x)) return;
    put(r, v2(NAN, NAN));   /* never the same as the point before: NaN */
}

/* a point of the frame, raised and mirrored */
static vec2 at_local(const deco_run *r, vec2 q)
{
    double y = q.y + r->d->raise;
    if (r->d->mirror) y = -y;
    return vadd(r->o, vadd(vscale(r->t, q.x), vscale(r->nrm, y)));
}

/* decorations.shapes' cross at the frame's origin: two strokes of shape
 * start width by shape start height */
static void cross(deco_run *r)
{
    double w = r->d->shape_w / 2, h = r->d->shape_h / 2;
    put_break(r);
    put(r, at_local(r, v2(-w, h)));
    put(r, at_local(r, v2(w, -h)));
    put_break(r);
    put(r, at_local(r, v2(-w, -h)));
    put(r, at_local(r, v2(w, h)));
    r->cur = v2(w, h);
}

static void lineto(deco_run *r, double x, double y)
{
    r->cur = v2(x, y);
    put(r, at_local(r, r->cur));
}

static void curveto(deco_run *r, double x1, double y1, double x2, double y2, double x3, double y3)
{
    vec2 a = r->cur;
    for (int k = 1; k <= BEZ_STEPS; k++) {
        double t = (double)k / BEZ_STEPS, u = 1 - t;
        vec2 q = v2(u * u * u * a.x + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t * x3,
                    u * u * u * a.y + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t * t * t * y3);
        put(r, at_local(r, q));
    }
    r->cur = v2(x3, y3);
}

/* pgf's \pgfpathsine / \pgfpathcosine: a quarter wave from the current point
 * by (w, h) */
static void wave(deco_run *r, double w, double h, int cosine)
{
    vec2 a = r->cur;
    for (int k = 1; k <= BEZ_STEPS; k++) {
        double t = (double)k / BEZ_STEPS;
        double y = cosine ? h * (1 - cos(t * M_PI / 2)) : h * sin(t * M_PI / 2);
        put(r, at_local(r, v2(a.x + w * t, a.y + y)));
    }
    r->cur = v2(a.x + w, a.y + h);
}

/* a state begins at length s of the decorated stretch (s0 + s on the path):
 * its frame, with the current point carried over */
static void begin_state(deco_run *r, double s0, double s)
{
    vec2 canvas = at_local(r, r->cur);
    frame(r, s0 + s);
    /* the current point in the new frame (for the states that draw from it) */
    vec2 dv = vsub(canvas, r->o);
    double y = dv.x * r->nrm.x + dv.y * r->nrm.y;
    if (r->d->mirror) y = -y;
    r->cur = v2(dv.x * r->t.x + dv.y * r->t.y, y - r->d->raise);
}

static double rnd(deco_run *r)
{
    r->rnd = r->rnd * 1103515245u + 12345u;
    return ((r->rnd >> 8) & 0xffff) / 32767.5 - 1;
}

/* the automaton of d->name over the stretch [s0, s0 + len] of the path */
static void run_automaton(deco_run *r, double s0, double len)
{
    const tk_deco *d = r->d;
    double L = d->seglen, a = d->amp, s = 0;
    long guard = 0;
    if (L < 0.01) L = 0.01;   /* a state of width 0 forever: pgf loops; here 100 per pt */
    frame(r, s0);
    r->cur = v2(0, 0);
    const char *nm = d->name;
    if (!strcmp(nm, "lineto") || !strcmp(nm, "curveto")) return;
    if (!strcmp(nm, "zigzag")) {
        if (len >= .5 * L) {
            lineto(r, .25 * L, a);
            s += .5 * L;
            int up = 0;
            while (len - s >= .5 * L && ++guard < DECO_MAX_POINTS && !r->full) {
                begin_state(r, s0, s);
                lineto(r, .25 * L, up ? a : -a);
                up = !up;
                s += .5 * L;
            }
            begin_state(r, s0, s);
            lineto(r, 0, 0);
        }
    } else if (!strcmp(nm, "saw")) {
        while (len - s >= L && ++guard < DECO_MAX_POINTS && !r->full) {
            begin_state(r, s0, s);
            lineto(r, L, a);
            lineto(r, L, 0);
            s += L;
        }
    } else if (!strcmp(nm, "bumps")) {
        while (len - s >= .51 * L && ++guard < DECO_MAX_POINTS && !r->full) {
            begin_state(r, s0, s);
            curveto(r, 0, .555 * a, .11125 * L, a, .25 * L, a);
            curveto(r, .38875 * L, a, .5 * L, .5 * a, .5 * L, 0);
            s += .5 * L;
        }
    } else if (!strcmp(nm, "random steps")) {
        r->rnd = 12345u;
        while (len - s >= 1.5 * L && ++guard < DECO_MAX_POINTS && !r->full) {
            begin_state(r, s0, s);
            double dx = rnd(r) * a, dy = rnd(r) * a;
            lineto(r, L + dx, dy);
            s += L;
        }
    } else if (!strcmp(nm, "snake")) {
        if (len - s >= .625 * L && .3125 * L <= len) {
            curveto(r, .125 * L, 0, .1875 * L, a, .3125 * L, a);
            s += .3125 * L;
            int down = 1;
            for (;;) {
                if (++guard > DECO_MAX_POINTS || r->full) break;
                begin_state(r, s0, s);
                if (len - s < .8125 * L) {
                    /* end down / end up: back to the path */
                    if (.3125 * L <= len - s) {
                        double sg = down ? 1 : -1;
                        curveto(r, .125 * L, sg * a, .1875 * L, 0, .3125 * L, 0);
                    }
                    break;
                }
                double sg = down ? -1 : 1;
                wave(r, .25 * L, sg * a, 1);
                wave(r, .25 * L, sg * a, 0);
                s += .5 * L;
                down = !down;
            }
        }
    } else if (!strcmp(nm, "coil")) {
        double asp = d->aspect, ext = 2 * asp * a;
        /* \pgfpoint@oncoil{u}{v}{k}: (aspect a u + k L/12, a v) */
#define OC(u, v, k) asp * a * (u) + (k) * L / 12, a * (v)
        while (len - s >= 1.5 * L + ext && ++guard < DECO_MAX_POINTS && !r->full) {
            begin_state(r, s0, s);
            curveto(r, OC(0, .555, 1), OC(.445, 1, 2), OC(1, 1, 3));
            curveto(r, OC(1.555, 1, 4), OC(2, .555, 5), OC(2, 0, 6));
            curveto(r, OC(2, -.555, 7), OC(1.555, -1, 8), OC(1, -1, 9));
            curveto(r, OC(.445, -1, 10), OC(0, -.555, 11), OC(0, 0, 12));
            s += L;
        }
        if (len - s >= .5 * L + ext) {
            begin_state(r, s0, s);
            curveto(r, OC(0, .555, 1), OC(.445, 1, 2), OC(1, 1, 3));
            curveto(r, OC(1.555, 1, 4), OC(2, .555, 5), OC(2, 0, 6));
        }
#undef OC
    } else if (!strcmp(nm, "Koch snowflake") || !strcmp(nm, "Cantor set")) {
        /* decorations.fractals: one state per input segment, its width the
         * segment's length W: Koch snowflake's lines to (.3333W, 0),
         * (.5W, .2886751347W), (.6666W, 0), (W, 0); Cantor set's line to
         * (.3333W, 0), move to (.6666W, 0), line to (W, 0) */
        int koch = nm[0] == 'K';
        for (size_t i = 0; i + 1 < r->n && !r->full; i++) {
            double w = r->cum[i + 1] - r->cum[i];
            if (w < 1e-9) continue;
            r->o = r->p[i];
            r->t = vscale(vsub(r->p[i + 1], r->p[i]), 1 / w);
            r->nrm = v2(-r->t.y, r->t.x);
            r->cur = v2(0, 0);
            put(r, at_local(r, r->cur));
            if (koch) {
                lineto(r, .3333 * w, 0);
                lineto(r, .5 * w, .2886751347 * w);
                lineto(r, .6666 * w, 0);
            } else {
                lineto(r, .3333 * w, 0);
                put_break(r);
                r->cur = v2(.6666 * w, 0);
                put(r, at_local(r, r->cur));
            }
            lineto(r, w, 0);
        }
        (void)s0;
        (void)len;
        return;
    } else if (!strcmp(nm, "crosses")) {
        /* state crosses: width L, to state last when less than L is left;
         * last: its width the rest, a cross too; final: a move-to */
        for (;;) {
            if (++guard > DECO_MAX_POINTS || r->full) break;
            begin_state(r, s0, s);
            cross(r);
            if (len - s < L) break;
            s += L;
        }
        put_break(r);
        return;
    } else if (!strcmp(nm, "brace")) {
        /* one state over the whole stretch (pathreplacing: the brace alone) */
        double w = len, yc, xc;
        yc = d->aspect * w;
        if (2 * a > yc) yc = 0.5 * yc; else yc = a;
        xc = d->aspect * w - w;
        if (-2 * a < xc) xc = -0.5 * xc; else xc = a;
        r->cur = v2(0, 0);
        put(r, at_local(r, r->cur));
        curveto(r, .15 * yc, .3 * a, .5 * yc, .5 * a, yc, .5 * a);
        double m = d->aspect * w;
        lineto(r, m - yc, .5 * a);
        curveto(r, m - .5 * yc, .5 * a, m - .15 * yc, .7 * a, m, a);
        curveto(r, m + .15 * xc, .7 * a, m + .5 * xc, .5 * a, m + xc, .5 * a);
        lineto(r, w - xc, .5 * a);
        curveto(r, w - .5 * xc, .5 * a, w - .15 * xc, .3 * a, w, 0);
        return;
    }
}

size_t tk_decorate(tk_deco *d, const vec2 *p, size_t n, vec2 **out)
{
    d->truncated = 0;
    *out = NULL;
    if (n < 2) return 0;
    double *cum = xrealloc(NULL, n * sizeof *cum);
    cum[0] = 0;
    for (size_t i = 1; i < n; i++) cum[i] = cum[i - 1] + vlen(vsub(p[i], p[i - 1]));
    deco_run r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.cum = cum;
    r.n = n;
    r.d = d;
    double total = cum[n - 1];
    double pre = d->pre > 0 ? d->pre : 0, post = d->post > 0 ? d->post : 0;
    if (pre + post > total) { pre = total; post = 0; }
    int replacing = strcmp(d->name, "brace") == 0;
    int moving = strcmp(d->name, "crosses") == 0;   /* its final state: a move-to */
    /* the undecorated start (pre length) */
    size_t i = 0;
    if (!replacing || pre > 0) {
        if (!(d->pre_move && pre > 0)) {
            put(&r, p[0]);
            for (i = 1; i < n && cum[i] < pre; i++) put(&r, p[i]);
        }
        put(&r, path_at(&r, pre, NULL));
    }
    run_automaton(&r, pre, total - pre - post);
    /* the final state: a line to where the decoration ends, then the
     * undecorated end (post length) */
    if (!replacing || post > 0) {
        double se = total - post;
        if (!moving) put(&r, path_at(&r, se, NULL));
        if (!(d->post_move && post > 0))
            for (i = 0; i < n; i++) if (cum[i] > se) put(&r, p[i]);
    }
    free(cum);
    d->truncated = r.full;
    *out = r.out;
    return r.nout;
}
