/* tikzopt.c — TikZ options (key=value lists), styles and the graphics
 * state stack. */
#include "grammar/tikzst.h"
#include "grammar/pgfmath.h"
#include "ir/textmetrics.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STYLE_DEPTH 32


static char *xstrndup(const char *s, size_t n) { return tp_strndup(s, n); }



const char *tk_memmem(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    if (k == 0 || k > n) return NULL;
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(s + i, w, k) == 0) return s + i;
    return NULL;
}


static void setstr(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

/* ---- graphics state -------------------------------------------------------- */

void tk_gs_init(gstate *g)
{
    memset(g, 0, sizeof *g);
    g->ctm = mat_id();
    g->xv = v2(28.452756, 0);
    g->yv = v2(0, 28.452756);
    g->zv = v2(-10.954312, -10.954312);   /* TikZ default z: (-3.85mm,-3.85mm) */
    strcpy(g->color, "black");
    g->lw = 0.4;
    strcpy(g->dash, "solid");
    g->font_size = 12;
    g->inner_sep = 3.3333;                 /* .3333em at 10pt in pgf's default */
    g->outer_sep = -1;                     /* .5\pgflinewidth */
    g->samples = 25;
    g->dom0 = -5;
    g->dom1 = 5;
    g->ra_quadrant = 1;
    g->ra_len = 0.125 * 72.27;
    g->s3 = 1;
    g->ok3 = 1;
    strcpy(g->node_distance, "1cm and 1cm");
}

void tk_gs_push(tikz *T)
{
    if (T->ngs == T->capgs) {
        T->capgs = T->capgs ? T->capgs * 2 : 16;
        T->gs = tk_xrealloc(T->gs, T->capgs * sizeof *T->gs);
    }
    if (T->ngs == 0) tk_gs_init(&T->gs[0]);
    else {
        T->gs[T->ngs] = T->gs[T->ngs - 1];
        gstate *g = &T->gs[T->ngs];
        if (g->every_node) g->every_node = xstrndup(g->every_node, strlen(g->every_node));
        if (g->every_label) g->every_label = xstrndup(g->every_label, strlen(g->every_label));
        g->name_path = NULL;
        g->name_isect = NULL;
    }
    T->ngs++;
}

void tk_gs_pop(tikz *T)
{
    if (T->ngs == 0) return;
    gstate *g = GS(T);
    free(g->every_node);
    free(g->every_label);
    free(g->name_path);
    free(g->name_isect);
    T->ngs--;
}

/* ---- styles ------------------------------------------------------------------- */

const char *tk_find_style(tikz *T, const char *name, size_t n)
{
    for (size_t i = T->nstyles; i-- > 0;)
        if (strlen(T->styles[i].name) == n && memcmp(T->styles[i].name, name, n) == 0)
            return T->styles[i].val;
    return NULL;
}

void tk_define_style(tikz *T, const char *name, size_t nn, const char *val, size_t vn, int append)
{
    tk_trim(&name, &nn);
    tk_unbrace(&val, &vn);
    const char *old = NULL;
    for (size_t i = T->nstyles; i-- > 0;) {
        tk_style *s = &T->styles[i];
        if (strlen(s->name) != nn || memcmp(s->name, name, nn) != 0) continue;
        if (i < T->style_floor) { old = s->val; break; }   /* shadow, do not modify */
        if (append) {
            size_t ol = strlen(s->val);
            s->val = tk_xrealloc(s->val, ol + vn + 2);
            s->val[ol] = ',';
            memcpy(s->val + ol + 1, val, vn);
            s->val[ol + 1 + vn] = 0;
        } else {
            free(s->val);
            s->val = xstrndup(val, vn);
        }
        return;
    }
    if (T->nstyles == T->capstyles) {
        T->capstyles = T->capstyles ? T->capstyles * 2 : 32;
        T->styles = tk_xrealloc(T->styles, T->capstyles * sizeof *T->styles);
    }
    T->styles[T->nstyles].name = xstrndup(name, nn);
    if (append && old) {
        size_t ol = strlen(old);
        char *v = tk_xrealloc(NULL, ol + vn + 2);
        memcpy(v, old, ol);
        v[ol] = ',';
        memcpy(v + ol + 1, val, vn);
        v[ol + 1 + vn] = 0;
        T->styles[T->nstyles].val = v;
    } else {
        T->styles[T->nstyles].val = xstrndup(val, vn);
    }
    T->nstyles++;
}

/* ---- colors --------------------------------------------------------------------- */

static const char *const colors[] = {
    "black", "white", "red", "green", "blue", "cyan", "magenta", "yellow", "gray", "grey",
    "darkgray", "lightgray", "brown", "lime", "olive", "orange", "pink", "purple", "teal",
    "violet", "Yellow", "Green", "Blue", "Red", "LYellow", "LGreen", "LBlue", "LRed",
    "PBlue", "PGreen", "PYellow", "PRed", "POrange", "none", NULL
};

int tk_is_color(const char *s, size_t n)
{
    tk_trim(&s, &n);
    if (n == 0) return 0;
    /* xcolor expressions: name!pct!name ... */
    size_t m = 0;
    while (m < n && s[m] != '!') m++;
    for (int i = 0; colors[i]; i++)
        if (tk_is(s, m, colors[i])) return 1;
    return 0;
}

/* ---- numbers -------------------------------------------------------------------- */

int tk_eval(tikz *T, const char *s, size_t n, double *v, int *has_unit)
{
    char err[160];
    int hu = 0;
    tk_unbrace(&s, &n);
    if (n == 0) return -1;
    if (pgfmath_eval(s, n, v, &hu, err, sizeof err) != 0) {
        (void)T;
        return -1;
    }
    if (has_unit) *has_unit = hu;
    return 0;
}

double tk_eval_dim(tikz *T, const char *s, size_t n, double dflt)
{
    double v;
    if (tk_eval(T, s, n, &v, NULL) != 0) {
        tk_warn(T, T->cmd_line, "cannot evaluate dimension '%.*s'", (int)(n > 60 ? 60 : n), s);
        return dflt;
    }
    return v;
}

/* ---- option lists ------------------------------------------------------------------ */

static const struct { const char *k; double lw; } widths[] = {
    { "ultra thin", 0.1 }, { "very thin", 0.2 }, { "thin", 0.4 }, { "semithick", 0.6 },
    { "thick", 0.8 }, { "very thick", 1.2 }, { "ultra thick", 1.6 }, { NULL, 0 }
};

static const struct { const char *k; const char *dash; } dashes[] = {
    { "solid", "solid" }, { "dashed", "dashed" }, { "dotted", "dotted" },
    { "densely dashed", "dashed" }, { "loosely dashed", "dashed" },
    { "densely dotted", "dotted" }, { "loosely dotted", "dotted" },
    { "dashdotted", "dashdotted" }, { "dash dot", "dashdotted" }, { NULL, NULL }
};

/* direction keys for node placement (as the positioning library, which
 * the IM class loads, defines them): the node's anchor, the direction,
 * the anchor of an "of" node the node is put at, and the factor of a
 * single distance (1/sqrt 2 on the diagonals) */
static const struct { const char *k; const char *anchor; double dx, dy; const char *of; double f; } dirs[] = {
    { "above", "south", 0, 1, "north", 1 }, { "below", "north", 0, -1, "south", 1 },
    { "left", "east", -1, 0, "west", 1 }, { "right", "west", 1, 0, "east", 1 },
    { "above left", "south east", -1, 1, "north west", 0.707106781 },
    { "above right", "south west", 1, 1, "north east", 0.707106781 },
    { "below left", "north east", -1, -1, "south west", 0.707106781 },
    { "below right", "north west", 1, -1, "south east", 0.707106781 },
    { NULL, NULL, 0, 0, NULL, 0 }
};

/* An arrow spec like ->, <->, -{Stealth}, |-|, -latex, {Latex[]}-{Latex[]} */
static int arrow_spec(const char *s, size_t n, char *out, size_t cap)
{
    long dash = -1;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') depth--;
        else if (c == '-' && depth == 0) {
            if (dash >= 0) return 0;
            dash = (long)i;
        } else if (depth == 0 && !(isalpha((unsigned char)c) || c == '<' || c == '>' ||
                                   c == '|' || c == ' ' || c == '.' || c == ')' || c == '('))
            return 0;
    }
    if (dash < 0) return 0;
    int start = dash > 0, end = (size_t)dash + 1 < n;
    if (!start && !end) return 0;
    snprintf(out, cap, "%s-%s", start ? "<" : "", end ? ">" : "");
    return 1;
}

static void rotate_by(gstate *g, double a)
{
    mat r = { cos(a * DEG), sin(a * DEG), -sin(a * DEG), cos(a * DEG), 0, 0 };
    g->ctm = mat_mul(g->ctm, r);
}

/* Evaluates "(coord)" or "{(coord)}" as a user-space vector (no CTM). */
static int opt_vector(tikz *T, const char *v, size_t vn, vec2 *out)
{
    tk_unbrace(&v, &vn);
    if (vn >= 2 && v[0] == '(' && v[vn - 1] == ')') {
        gstate *g = GS(T);
        mat save = g->ctm;
        g->ctm = mat_id();
        int r = tk_coord(T, v + 1, vn - 2, out, T->cmd_line);
        g->ctm = save;
        return r;
    }
    return -1;
}

static void set_axis_vector(tikz *T, vec2 *dst, const char *v, size_t vn, vec2 unit)
{
    vec2 p;
    const char *w = v;
    size_t wn = vn;
    tk_unbrace(&w, &wn);
    if (wn && w[0] == '(') {
        if (opt_vector(T, w, wn, &p) == 0) *dst = p;
        return;
    }
    double d;
    /* x=<dimension>: \pgfpoint{d}{0pt}, so a plain number is in pt;
     * z=<dimension> is (d, d) */
    if (tk_eval(T, w, wn, &d, NULL) == 0) *dst = vscale(unit, d);
}

/* Node shape names (as keys or shape= values): 1 when k names a shape
 * tikz2ir knows (set in no); other shapes of TikZ's libraries warn once
 * and count as known (the node is taken as a rectangle). */
static int shape_key(tikz *T, const char *k, size_t kn, tk_nodeopts *no)
{
    static const struct { const char *k; int shape; } shapes[] = {
        { "rectangle", TK_SH_RECT }, { "circle", TK_SH_CIRCLE }, { "ellipse", TK_SH_ELLIPSE },
        { "diamond", TK_SH_DIAMOND }, { "regular polygon", TK_SH_POLYGON }, { NULL, 0 }
    };
    static const char *const other[] = {
        "star", "trapezium", "semicircle", "isosceles triangle", "kite", "dart",
        "circular sector", "cylinder", "rounded rectangle", "chamfered rectangle",
        "cloud", "circle split", "rectangle split", "ellipse split", "starburst",
        "signal", "tape", "single arrow", "double arrow", "forbidden sign",
        "circle cross split", "magnifying glass", "correct forbidden sign", NULL
    };
    for (int i = 0; shapes[i].k; i++)
        if (tk_is(k, kn, shapes[i].k)) { if (no) no->shape = shapes[i].shape; return 1; }
    for (int i = 0; other[i]; i++)
        if (tk_is(k, kn, other[i])) {
            if (no) {
                tk_warn(T, T->cmd_line, "shape '%s' not supported; its node is taken as a rectangle",
                        other[i]);
                no->shape = TK_SH_RECT;
            }
            return 1;
        }
    return 0;
}

/* A positioning distance: a length, or a number in the units of the x
 * (horizontal) or y (vertical) vector; the vector it stands for. */
static int place_dist(tikz *T, const char *s, size_t n, int vertical, vec2 *out)
{
    double d;
    int hu = 0;
    if (tk_eval(T, s, n, &d, &hu) != 0) return -1;
    gstate *g = GS(T);
    if (hu) *out = vertical ? v2(0, d) : v2(d, 0);
    else *out = vscale(vertical ? g->yv : g->xv, d);
    return 0;
}

/* above=<dist>, right=of A, below left=1cm and 2cm of A, ... as the
 * positioning library does: the anchor is the opposite side; a distance
 * "V and H" (or one D for both, times 1/sqrt 2 on the diagonals) shifts
 * the node by (dx H, dy V); "of A" puts it at A's anchor on that side
 * (border to border; with on grid, centre to centre) shifted by the
 * distance, node distance (1cm and 1cm) when none is given. */
static int apply_direction(tikz *T, const char *k, size_t kn, const char *v, size_t vn,
                           int has_v, tk_nodeopts *no)
{
    for (int i = 0; dirs[i].k; i++) {
        if (!tk_is(k, kn, dirs[i].k)) continue;
        if (!no) return 1;
        gstate *g = GS(T);
        setstr(no->anchor, sizeof no->anchor, dirs[i].anchor, strlen(dirs[i].anchor));
        no->has_anchor = 1;
        /* without a value only the anchor changes (a shift or an "of" point
         * set before stays, as in TikZ) */
        if (!has_v) return 1;
        no->shift_x = no->shift_y = 0;
        const char *w = v;
        size_t wn = vn;
        tk_unbrace(&w, &wn);
        const char *nums = w;
        size_t nn = wn;
        const char *of = NULL;
        for (size_t j = 0; j + 3 <= wn; j++)
            if (memcmp(w + j, "of ", 3) == 0 && (j == 0 || w[j - 1] == ' ')) { of = w + j; break; }
        if (of) {
            nn = (size_t)(of - w);
            const char *tg = of + 3;
            size_t tn = wn - (size_t)(tg - w);
            tk_trim(&tg, &tn);
            if (tn >= 2 && tg[0] == '(' && tg[tn - 1] == ')') { tg++; tn -= 2; tk_trim(&tg, &tn); }
            tk_node *nd = tk_find_node(T, tg, tn);
            vec2 p;
            int ok;
            if (nd) {
                /* a node: its border on this side, or its centre on grid */
                const char *an = g->on_grid ? "center" : dirs[i].of;
                ok = tk_node_anchor(T, nd, an, strlen(an), &p) == 0;
                if (g->on_grid) strcpy(no->anchor, "center");
            } else {
                ok = tk_coord(T, tg, tn, &p, T->cmd_line) == 0;
            }
            if (!ok) {
                tk_warn(T, T->cmd_line, "positioning '%.*s=%.*s': cannot evaluate '%.*s'; placed at the point",
                        (int)kn, k, (int)vn, v, (int)tn, tg);
                return 1;
            }
            no->has_of = 1;
            no->of_at = p;
            tk_trim(&nums, &nn);
            if (nn == 0) { nums = g->node_distance; nn = strlen(nums); }
        }
        tk_trim(&nums, &nn);
        if (nn == 0) return 1;
        const char *and = tk_memmem(nums, nn, "and");
        vec2 pv, ph;
        double f = 1;
        int bad;
        if (and) {
            bad = place_dist(T, nums, (size_t)(and - nums), 1, &pv) ||
                  place_dist(T, and + 3, nn - (size_t)(and + 3 - nums), 0, &ph);
        } else {
            bad = place_dist(T, nums, nn, 1, &pv) || place_dist(T, nums, nn, 0, &ph);
            f = dirs[i].f;
        }
        if (bad) {
            tk_warn(T, T->cmd_line, "positioning '%.*s=%.*s': cannot evaluate the distance",
                    (int)kn, k, (int)vn, v);
            return 1;
        }
        vec2 sum = vadd(pv, ph);
        no->shift_x = dirs[i].dx * f * sum.x;
        no->shift_y = dirs[i].dy * f * sum.y;
        return 1;
    }
    return 0;
}

static void apply_one(tikz *T, const char *k, size_t kn, const char *v, size_t vn,
                      int has_v, tk_nodeopts *no, int depth)
{
    gstate *g = GS(T);
    double d;
    int hu;
    vec2 p;

    /* .style / .append style definitions inside option lists */
    {
        const char *slash = memchr(k, '/', kn);
        if (slash && has_v) {
            size_t nn = (size_t)(slash - k);
            const char *h = slash + 1;
            size_t hn = kn - nn - 1;
            if (tk_is(h, hn, ".style") || tk_is(h, hn, ".append style")) {
                int append = tk_is(h, hn, ".append style");
                if (tk_is(k, nn, "every node")) {
                    const char *w = v; size_t wn = vn;
                    tk_unbrace(&w, &wn);
                    if (append && g->every_node) {
                        size_t ol = strlen(g->every_node);
                        g->every_node = tk_xrealloc(g->every_node, ol + wn + 2);
                        g->every_node[ol] = ',';
                        memcpy(g->every_node + ol + 1, w, wn);
                        g->every_node[ol + 1 + wn] = 0;
                    } else {
                        free(g->every_node);
                        g->every_node = xstrndup(w, wn);
                    }
                } else if (tk_is(k, nn, "every label")) {
                    const char *w = v; size_t wn = vn;
                    tk_unbrace(&w, &wn);
                    free(g->every_label);
                    g->every_label = xstrndup(w, wn);
                } else {
                    tk_define_style(T, k, nn, v, vn, append);
                }
                return;
            }
            if (hn >= 1 && h[0] == '.') return;   /* other handlers: ignore */
        }
    }
    /* user styles */
    if (!has_v || (vn && v[0] != '(')) {
        const char *st = tk_find_style(T, k, kn);
        if (st) {
            if (depth < MAX_STYLE_DEPTH) {
                /* macros in a style body are expanded when it is used */
                char *x = strchr(st, '\\') ? tk_expand_text(T, st, strlen(st))
                                            : xstrndup(st, strlen(st));
                tk_apply_opts(T, x, strlen(x), no, depth + 1);
                free(x);
            }
            else tk_warn(T, T->cmd_line, "style '%.*s' nested too deeply", (int)kn, k);
            return;
        }
    }
    if (!has_v) {
        for (int i = 0; widths[i].k; i++)
            if (tk_is(k, kn, widths[i].k)) { g->lw = widths[i].lw; if (no) no->lw = g->lw; return; }
        for (int i = 0; dashes[i].k; i++)
            if (tk_is(k, kn, dashes[i].k)) { strcpy(g->dash, dashes[i].dash); return; }
        if (apply_direction(T, k, kn, v, vn, 0, no)) return;
        if (tk_is(k, kn, "draw")) { g->draw = 1; g->drawc[0] = 0; if (no) { no->draw = 1; no->drawc[0] = 0; } return; }
        if (tk_is(k, kn, "fill")) { g->fill = 1; g->fillc[0] = 0; if (no) { no->fill = 1; no->fillc[0] = 0; } return; }
        if (shape_key(T, k, kn, no)) return;
        if (tk_is(k, kn, "midway")) { if (no) { no->pos = 0.5; no->has_pos = 1; } return; }
        if (tk_is(k, kn, "near start")) { if (no) { no->pos = 0.25; no->has_pos = 1; } return; }
        if (tk_is(k, kn, "near end")) { if (no) { no->pos = 0.75; no->has_pos = 1; } return; }
        if (tk_is(k, kn, "very near start")) { if (no) { no->pos = 0.125; no->has_pos = 1; } return; }
        if (tk_is(k, kn, "very near end")) { if (no) { no->pos = 0.875; no->has_pos = 1; } return; }
        if (tk_is(k, kn, "at start")) { if (no) { no->pos = 0; no->has_pos = 1; } return; }
        if (tk_is(k, kn, "at end")) { if (no) { no->pos = 1; no->has_pos = 1; } return; }
        if (tk_is(k, kn, "sloped")) { if (no) no->sloped = 1; return; }
        if (tk_is(k, kn, "on grid")) { g->on_grid = 1; return; }
        {
            static const struct { const char *k; int a; } ta[] = {
                { "text ragged", TK_ALIGN_LEFT }, { "text centered", TK_ALIGN_CENTER },
                { "text ragged left", TK_ALIGN_RIGHT }, { "text justified", TK_ALIGN_JUSTIFY },
                { "text badly ragged", TK_ALIGN_FLUSH_LEFT },
                { "text badly centered", TK_ALIGN_FLUSH_CENTER },
                { "text badly ragged left", TK_ALIGN_FLUSH_RIGHT }, { NULL, 0 }
            };
            for (int i = 0; ta[i].k; i++)
                if (tk_is(k, kn, ta[i].k)) { if (no) no->align = ta[i].a; return; }
        }
        if (tk_is(k, kn, "overlay")) { g->overlay = 1; return; }
        if (tk_is(k, kn, "rounded corners")) { g->rounded = 4; return; }
        if (tk_is(k, kn, "sharp corners")) { g->rounded = 0; return; }
        if (tk_is(k, kn, "help lines")) { strcpy(g->color, "gray"); g->lw = 0.2; return; }
        if (tk_is(k, kn, "bend left")) { g->bend = 30; return; }
        if (tk_is(k, kn, "bend right")) { g->bend = -30; return; }
        if (tk_is(k, kn, "scale only axis")) { g->scale_only_axis = 1; return; }
        if (tk_is(k, kn, "transform shape") || tk_is(k, kn, "smooth") || tk_is(k, kn, "thin") ||
            tk_is(k, kn, "behind path") || tk_is(k, kn, "on background layer") ||
            tk_is(k, kn, "use as bounding box") || tk_is(k, kn, "nodes near coords") ||
            tk_is(k, kn, "mark options") || tk_is(k, kn, "only marks"))
            return;
        if (tk_is_color(k, kn)) {
            setstr(g->color, sizeof g->color, k, kn);
            if (no) setstr(no->textc, sizeof no->textc, k, kn);
            return;
        }
        char arr[24];
        if (arrow_spec(k, kn, arr, sizeof arr)) { strcpy(g->arrows, arr); return; }
        if (tk_is(k, kn, "-")) { g->arrows[0] = 0; return; }
        /* unknown key without value: ignored (does not change geometry) */
        return;
    }
    /* keys with values */
    if (apply_direction(T, k, kn, v, vn, 1, no)) return;
    if (tk_is(k, kn, "draw")) {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        if (tk_is(w, wn, "none")) { g->draw = 0; if (no) no->draw = 0; }
        else {
            g->draw = 1; setstr(g->drawc, sizeof g->drawc, w, wn);
            if (no) { no->draw = 1; setstr(no->drawc, sizeof no->drawc, w, wn); }
        }
        return;
    }
    if (tk_is(k, kn, "fill")) {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        if (tk_is(w, wn, "none")) { g->fill = 0; if (no) no->fill = 0; }
        else {
            g->fill = 1; setstr(g->fillc, sizeof g->fillc, w, wn);
            if (no) { no->fill = 1; setstr(no->fillc, sizeof no->fillc, w, wn); }
        }
        return;
    }
    if (tk_is(k, kn, "color")) { setstr(g->color, sizeof g->color, v, vn); if (no) setstr(no->textc, sizeof no->textc, v, vn); return; }
    if (tk_is(k, kn, "text")) { if (no) setstr(no->textc, sizeof no->textc, v, vn); return; }
    if (tk_is(k, kn, "line width")) { g->lw = tk_eval_dim(T, v, vn, g->lw); if (no) no->lw = g->lw; return; }
    if (tk_is(k, kn, "dash pattern")) { strcpy(g->dash, "dashed"); return; }
    if (tk_is(k, kn, "rounded corners")) { g->rounded = tk_eval_dim(T, v, vn, 4); return; }
    if (tk_is(k, kn, "arrows")) { char arr[24]; if (arrow_spec(v, vn, arr, sizeof arr)) strcpy(g->arrows, arr); return; }
    if (tk_is(k, kn, "scale")) {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { mat s = { d, 0, 0, d, 0, 0 }; g->ctm = mat_mul(g->ctm, s); g->s3 *= d; }
        return;
    }
    if (tk_is(k, kn, "xscale")) {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { mat s = { d, 0, 0, 1, 0, 0 }; g->ctm = mat_mul(g->ctm, s); g->ok3 = 0; }
        return;
    }
    if (tk_is(k, kn, "yscale")) {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { mat s = { 1, 0, 0, d, 0, 0 }; g->ctm = mat_mul(g->ctm, s); g->ok3 = 0; }
        return;
    }
    if (tk_is(k, kn, "xshift")) {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { mat s = { 1, 0, 0, 1, d, 0 }; g->ctm = mat_mul(g->ctm, s); }
        return;
    }
    if (tk_is(k, kn, "yshift")) {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { mat s = { 1, 0, 0, 1, 0, d }; g->ctm = mat_mul(g->ctm, s); }
        return;
    }
    if (tk_is(k, kn, "shift")) {
        if (opt_vector(T, v, vn, &p) == 0) {
            mat s = { 1, 0, 0, 1, p.x, p.y };
            g->ctm = mat_mul(g->ctm, s);
            if (T->last3_kind == 1 || T->last3_kind == 2) {
                g->t3.x += g->s3 * T->last3.x;
                g->t3.y += g->s3 * T->last3.y;
                g->t3.z += g->s3 * T->last3.z;
            }
        }
        else tk_warn(T, T->cmd_line, "cannot evaluate shift '%.*s'", (int)vn, v);
        return;
    }
    if (tk_is(k, kn, "rotate")) {
        if (tk_eval(T, v, vn, &d, NULL) == 0) {
            if (no) no->rotate = d;
            else { rotate_by(g, d); g->ok3 = 0; }
        }
        return;
    }
    if (tk_is(k, kn, "rotate around")) {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        long colon = -1;
        for (size_t i = 0; i < wn; i++) if (w[i] == ':') { colon = (long)i; break; }
        if (colon > 0 && tk_eval(T, w, (size_t)colon, &d, NULL) == 0 &&
            opt_vector(T, w + colon + 1, wn - (size_t)colon - 1, &p) == 0) {
            mat t1 = { 1, 0, 0, 1, p.x, p.y }, t2 = { 1, 0, 0, 1, -p.x, -p.y };
            g->ctm = mat_mul(g->ctm, t1);
            rotate_by(g, d);
            g->ctm = mat_mul(g->ctm, t2);
            g->ok3 = 0;
        }
        return;
    }
    if (tk_is(k, kn, "xslant") || tk_is(k, kn, "yslant")) {
        /* \pgftransformxslant: x' = x + s y; yslant: y' = s x + y */
        if (tk_eval(T, v, vn, &d, NULL) == 0) {
            mat s = { 1, k[0] == 'y' ? d : 0, k[0] == 'x' ? d : 0, 1, 0, 0 };
            g->ctm = mat_mul(g->ctm, s);
            g->ok3 = 0;
        }
        else tk_warn(T, T->cmd_line, "cannot evaluate %.*s '%.*s'", (int)kn, k, (int)vn, v);
        return;
    }
    if (tk_is(k, kn, "cm")) {
        /* cm={a,b,c,d,(point)}: x' = a x + c y + px, y' = b x + d y + py */
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        double m[4];
        int ok = 1;
        for (int i = 0; i < 4 && ok; i++) {
            long c = tk_find_top(w, wn, ',');
            if (c < 0 || tk_eval(T, w, (size_t)c, &m[i], NULL) != 0) ok = 0;
            else { w += c + 1; wn -= (size_t)c + 1; }
        }
        if (ok && opt_vector(T, w, wn, &p) == 0) {
            mat s = { m[0], m[1], m[2], m[3], p.x, p.y };
            g->ctm = mat_mul(g->ctm, s);
            g->ok3 = 0;
        }
        else tk_warn(T, T->cmd_line, "cannot evaluate cm '%.*s' (want {a,b,c,d,(x,y)})", (int)vn, v);
        return;
    }
    if (tk_is(k, kn, "x")) { set_axis_vector(T, &g->xv, v, vn, v2(1, 0)); return; }
    if (tk_is(k, kn, "y")) { set_axis_vector(T, &g->yv, v, vn, v2(0, 1)); return; }
    if (tk_is(k, kn, "z")) { set_axis_vector(T, &g->zv, v, vn, v2(1, 1)); return; }
    if (tk_is(k, kn, "font")) {
        int bold = 0;
        char buf[64];
        setstr(buf, sizeof buf, v, vn);
        double fs = tm_font_size(buf, g->font_size, &bold);
        if (no) { no->font_size = fs; no->bold = bold; }
        else { g->font_size = fs; g->bold = bold; }
        return;
    }
    if (tk_is(k, kn, "anchor")) {
        if (no) { setstr(no->anchor, sizeof no->anchor, v, vn); no->has_anchor = 1; }
        return;
    }
    if (tk_is(k, kn, "pos")) { if (no && tk_eval(T, v, vn, &d, NULL) == 0) { no->pos = d; no->has_pos = 1; } return; }
    if (tk_is(k, kn, "inner sep")) {
        d = tk_eval_dim(T, v, vn, 3.33);
        if (no) no->inner_sep_x = no->inner_sep_y = d; else g->inner_sep = d;
        return;
    }
    if (tk_is(k, kn, "inner xsep")) { if (no) no->inner_sep_x = tk_eval_dim(T, v, vn, 3.33); return; }
    if (tk_is(k, kn, "inner ysep")) { if (no) no->inner_sep_y = tk_eval_dim(T, v, vn, 3.33); return; }
    if (tk_is(k, kn, "outer sep")) { d = tk_eval_dim(T, v, vn, 0.5); if (no) no->outer_sep = d; else g->outer_sep = d; return; }
    if (tk_is(k, kn, "minimum size")) { d = tk_eval_dim(T, v, vn, 0); if (no) no->min_w = no->min_h = d; return; }
    if (tk_is(k, kn, "minimum width")) { if (no) no->min_w = tk_eval_dim(T, v, vn, 0); return; }
    if (tk_is(k, kn, "minimum height")) { if (no) no->min_h = tk_eval_dim(T, v, vn, 0); return; }
    if (tk_is(k, kn, "shape")) {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        if (!shape_key(T, w, wn, no) && no) {
            tk_warn(T, T->cmd_line, "shape '%.*s' not supported; its node is taken as a rectangle",
                    (int)(wn > 40 ? 40 : wn), w);
            no->shape = TK_SH_RECT;
        }
        return;
    }
    if (tk_is(k, kn, "text width")) {
        if (no) {
            const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
            if (wn == 0) no->text_width = 0;
            else if (tk_eval(T, w, wn, &d, NULL) == 0 && d > 0 && d < 16384) no->text_width = d;
            else tk_warn(T, T->cmd_line, "cannot evaluate text width '%.*s'; the text is set on one line",
                         (int)(wn > 60 ? 60 : wn), w);
        }
        return;
    }
    if (tk_is(k, kn, "align")) {
        static const struct { const char *k; int a; } al[] = {
            { "left", TK_ALIGN_LEFT }, { "center", TK_ALIGN_CENTER }, { "right", TK_ALIGN_RIGHT },
            { "justify", TK_ALIGN_JUSTIFY }, { "none", TK_ALIGN_NONE },
            { "flush left", TK_ALIGN_FLUSH_LEFT }, { "flush center", TK_ALIGN_FLUSH_CENTER },
            { "flush right", TK_ALIGN_FLUSH_RIGHT }, { NULL, 0 }
        };
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        for (int i = 0; al[i].k; i++)
            if (tk_is(w, wn, al[i].k)) { if (no) no->align = al[i].a; return; }
        tk_warn(T, T->cmd_line, "align '%.*s' unknown (left, center, right, justify, ...)",
                (int)(wn > 40 ? 40 : wn), w);
        return;
    }
    if (tk_is(k, kn, "node distance")) {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        setstr(g->node_distance, sizeof g->node_distance, w, wn);
        return;
    }
    if (tk_is(k, kn, "on grid")) {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        g->on_grid = !tk_is(w, wn, "false");
        return;
    }
    if (tk_is(k, kn, "regular polygon sides")) {
        if (tk_eval(T, v, vn, &d, NULL) == 0 && d >= 3 && d <= 1000) {
            if (no) no->sides = (int)d; else g->poly_sides = (int)d;
        }
        else tk_warn(T, T->cmd_line, "regular polygon sides '%.*s' ignored (want 3 to 1000)", (int)vn, v);
        return;
    }
    if (tk_is(k, kn, "shape border rotate") || tk_is(k, kn, "regular polygon rotate")) {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { if (no) no->border_rotate = d; else g->border_rotate = d; }
        return;
    }
    if (tk_is(k, kn, "aspect") || tk_is(k, kn, "shape aspect")) {
        if (tk_eval(T, v, vn, &d, NULL) == 0 && d > 0) { if (no) no->aspect = d; else g->aspect = d; }
        return;
    }
    if (tk_is(k, kn, "label") || tk_is(k, kn, "pin")) {
        if (no) { const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn); tk_nodeopts_add_label(T, no, w, wn, k[0] == 'p'); }
        return;
    }
    if (tk_is(k, kn, "label distance")) { g->label_distance = tk_eval_dim(T, v, vn, 0); return; }
    if (tk_is(k, kn, "name")) {
        if (no) { free(no->name); const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn); no->name = xstrndup(w, wn); }
        return;
    }
    /* radius keys: a plain number is in xy units, a dimension in pt */
    if (tk_is(k, kn, "radius") || tk_is(k, kn, "x radius") || tk_is(k, kn, "y radius")) {
        if (tk_eval(T, v, vn, &d, &hu) != 0) {
            tk_warn(T, T->cmd_line, "cannot evaluate radius '%.*s'", (int)(vn > 60 ? 60 : vn), v);
            return;
        }
        if (k[0] != 'y') { g->radius_x = d; g->radius_x_unit = hu; }
        if (k[0] != 'x') { g->radius_y = d; g->radius_y_unit = hu; }
        g->has_radius = 1;
        return;
    }
    if (tk_is(k, kn, "start angle")) { if (tk_eval(T, v, vn, &d, NULL) == 0) { g->start_angle = d; g->has_start = 1; } return; }
    if (tk_is(k, kn, "end angle")) { if (tk_eval(T, v, vn, &d, NULL) == 0) { g->end_angle = d; g->has_end = 1; } return; }
    if (tk_is(k, kn, "delta angle")) { if (tk_eval(T, v, vn, &d, NULL) == 0) { g->delta_angle = d; g->has_delta = 1; } return; }
    if (tk_is(k, kn, "step")) {
        if (opt_vector(T, v, vn, &p) == 0) { g->step = p; g->has_step = 2; }
        else if (tk_eval(T, v, vn, &d, &hu) == 0) { g->step = v2(d, d); g->has_step = hu ? 2 : 1; }
        return;
    }
    if (tk_is(k, kn, "bend left")) { if (tk_eval(T, v, vn, &d, NULL) == 0) g->bend = d; return; }
    if (tk_is(k, kn, "bend right")) { if (tk_eval(T, v, vn, &d, NULL) == 0) g->bend = -d; return; }
    if (tk_is(k, kn, "in")) { if (tk_eval(T, v, vn, &d, NULL) == 0) { g->in_a = d; g->has_in = 1; } return; }
    if (tk_is(k, kn, "out")) { if (tk_eval(T, v, vn, &d, NULL) == 0) { g->out_a = d; g->has_out = 1; } return; }
    if (tk_is(k, kn, "domain")) {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        const char *colon = memchr(w, ':', wn);
        double a, b;
        if (colon && tk_eval(T, w, (size_t)(colon - w), &a, NULL) == 0 &&
            tk_eval(T, colon + 1, wn - (size_t)(colon - w) - 1, &b, NULL) == 0) {
            g->dom0 = a; g->dom1 = b;
        }
        return;
    }
    if (tk_is(k, kn, "samples")) {
        if (tk_eval(T, v, vn, &d, NULL) == 0 && d >= 2 && d <= 10000) g->samples = (int)d;
        return;
    }
    if (tk_is(k, kn, "name path") || tk_is(k, kn, "name path global")) {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        free(g->name_path);
        g->name_path = xstrndup(w, wn);
        return;
    }
    if (tk_is(k, kn, "name intersections")) {
        /* kept whole ("of=A and B, by={P,Q}"); the path reads it */
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        free(g->name_isect);
        g->name_isect = xstrndup(w, wn);
        return;
    }
    if (tk_is(k, kn, "right angle quadrant")) { if (tk_eval(T, v, vn, &d, NULL) == 0) g->ra_quadrant = (int)d; return; }
    if (tk_is(k, kn, "right angle length")) { g->ra_len = tk_eval_dim(T, v, vn, g->ra_len); return; }
    if (tk_is(k, kn, "ir role")) {
        setstr(g->role, sizeof g->role, v, vn);
        if (no) setstr(no->role, sizeof no->role, v, vn);
        return;
    }
    if (tk_apply_lib_key(T, k, kn, v, vn)) return;
    /* everything else (opacity, pattern, decorations, text width, align, ...) does
     * not change geometry; ignored */
}

void tk_apply_opts(tikz *T, const char *s, size_t n, tk_nodeopts *no, int depth)
{
    size_t i = 0;
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
        const char *item = s + st;
        size_t in = i - st;
        i++;
        tk_trim(&item, &in);
        if (in == 0) continue;
        /* key = value: first top-level '=' */
        long eqp = -1;
        int d2 = 0;
        for (size_t j = 0; j < in; j++) {
            char c = item[j];
            if (c == '{' || c == '(' || c == '[') d2++;
            else if ((c == '}' || c == ')' || c == ']') && d2 > 0) d2--;
            else if (c == '=' && d2 == 0) { eqp = (long)j; break; }
        }
        if (eqp < 0) {
            /* "right angle symbol" has its value in braces without '=' sometimes */
            const char *k = item;
            size_t kn = in;
            tk_unbrace(&k, &kn);
            if (kn && k[0] == '/') {
                /* /tikz/... path keys: strip the family */
                const char *sl = memchr(k + 1, '/', kn - 1);
                if (sl) { kn -= (size_t)(sl + 1 - k); k = sl + 1; }
            }
            apply_one(T, k, kn, NULL, 0, 0, no, depth);
        } else {
            const char *k = item, *v = item + eqp + 1;
            size_t kn = (size_t)eqp, vn = in - (size_t)eqp - 1;
            tk_trim(&k, &kn);
            tk_trim(&v, &vn);
            apply_one(T, k, kn, v, vn, 1, no, depth);
        }
    }
}
