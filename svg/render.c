/* svg/render.c — SVG element tree into absolute primitives. See svg/render.h. */
#include "svg/render.h"
#include "svg/path.h"
#include "svg/glyphs.h"
#include "ir/xalloc.h"
#include "ir/geom_2d.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RPI 3.14159265358979323846
#define MAX_USE_DEPTH 24

/* --- matrices: x' = a x + c y + e, y' = b x + d y + f ------------------- */
typedef struct { double a, b, c, d, e, f; } mat;

static mat M(double a, double b, double c, double d, double e, double f)
{
    mat m = { a, b, c, d, e, f };
    return m;
}

static mat mul(mat p, mat q) /* p then q applied first: p*q */
{
    return M(p.a * q.a + p.c * q.b, p.b * q.a + p.d * q.b, p.a * q.c + p.c * q.d,
             p.b * q.c + p.d * q.d, p.a * q.e + p.c * q.f + p.e, p.b * q.e + p.d * q.f + p.f);
}

static ir_pt apply(mat m, ir_pt p)
{
    ir_pt r = { m.a * p.x + m.c * p.y + m.e, m.b * p.x + m.d * p.y + m.f };
    return r;
}

static ir_pt apply_lin(mat m, ir_pt p)
{
    ir_pt r = { m.a * p.x + m.c * p.y, m.b * p.x + m.d * p.y };
    return r;
}

static double mat_scale(mat m)
{
    return sqrt(fabs(m.a * m.d - m.b * m.c));
}

static ir_pt unit(ir_pt v)
{
    double l = hypot(v.x, v.y);
    ir_pt r = { 0, 0 };
    if (l > 0 && isfinite(l)) { r.x = v.x / l; r.y = v.y / l; }
    return r;
}

/* --- numbers and lengths ------------------------------------------------- */
static size_t num_prefix(const char *s, double *out)
{
    char *end;
    /* strtod is locale-dependent for the decimal point; numbers here are
     * plain C-locale syntax, parsed by hand. */
    size_t i = 0;
    int neg = 0;
    if (s[i] == '+' || s[i] == '-') { neg = s[i] == '-'; i++; }
    double v = 0;
    int dg = 0;
    while (isdigit((unsigned char)s[i])) { v = v * 10 + (s[i] - '0'); i++; dg++; }
    if (s[i] == '.' && isdigit((unsigned char)s[i + 1])) {
        double sc = 0.1;
        i++;
        while (isdigit((unsigned char)s[i])) { v += (s[i] - '0') * sc; sc *= 0.1; i++; dg++; }
    }
    if (!dg) return 0;
    if ((s[i] == 'e' || s[i] == 'E') &&
        (isdigit((unsigned char)s[i + 1]) ||
         ((s[i + 1] == '-' || s[i + 1] == '+') && isdigit((unsigned char)s[i + 2])))) {
        long e = strtol(s + i + 1, &end, 10);
        if (e > 400) e = 400;
        if (e < -400) e = -400;
        v *= pow(10.0, (double)e);
        i = (size_t)(end - s);
    }
    if (!isfinite(v)) v = 1e300;
    *out = neg ? -v : v;
    return i;
}

int svg_length(const char *s, double font_px, double pct_base, double *out)
{
    if (!s) return 0;
    while (isspace((unsigned char)*s)) s++;
    double v;
    size_t l = num_prefix(s, &v);
    if (!l) return 0;
    const char *u = s + l;
    size_t ul = strlen(u);
    while (ul && isspace((unsigned char)u[ul - 1])) ul--;
    double k;
    if (ul == 0 || (ul == 2 && !strncmp(u, "px", 2))) k = 1;
    else if (ul == 2 && !strncmp(u, "pt", 2)) k = 4.0 / 3;
    else if (ul == 2 && !strncmp(u, "pc", 2)) k = 16;
    else if (ul == 2 && !strncmp(u, "mm", 2)) k = 96 / 25.4;
    else if (ul == 2 && !strncmp(u, "cm", 2)) k = 96 / 2.54;
    else if (ul == 2 && !strncmp(u, "in", 2)) k = 96;
    else if (ul == 1 && *u == 'Q') k = 96 / 101.6;
    else if (ul == 2 && !strncmp(u, "em", 2)) k = font_px;
    else if (ul == 3 && !strncmp(u, "rem", 3)) k = 16;
    else if (ul == 2 && !strncmp(u, "ex", 2)) k = font_px / 2;
    else if (ul == 1 && *u == '%') k = pct_base / 100;
    else return 0;
    *out = v * k;
    return isfinite(*out);
}

/* --- style --------------------------------------------------------------- */
enum {
    P_FILL, P_STROKE, P_STROKE_WIDTH, P_FONT_SIZE, P_TEXT_ANCHOR, P_MARKER_START, P_MARKER_END,
    P_MARKER, P_DISPLAY, P_VISIBILITY, P_OPACITY, P_DASH, P_DOMBASE, P_FILL_OP, P_STROKE_OP,
    P_FONT_WEIGHT, P_FONT_FAMILY, P_FONT, NPROPS
};
static const char *const PROPNAMES[NPROPS] = {
    "fill", "stroke", "stroke-width", "font-size", "text-anchor", "marker-start", "marker-end",
    "marker", "display", "visibility", "opacity", "stroke-dasharray", "dominant-baseline",
    "fill-opacity", "stroke-opacity", "font-weight", "font-family", "font"
};

typedef struct {
    const char *fill, *stroke, *stroke_width, *anchor, *marker_start, *marker_end;
    const char *visibility, *dash, *dombase, *weight, *family;
    double font_px;
    int fill_op0, stroke_op0;   /* fill-/stroke-opacity 0 */
} style_t;

typedef struct {
    const svg_doc *doc;
    const char *fname;
    svg_scene *sc;
    char *err;
    size_t errsz;
    int failed;
    FILE *warn;
    size_t max_points, max_items;
    unsigned seq;
    char **owned;
    size_t nowned, capowned;
    const svg_node *use_stack[MAX_USE_DEPTH];
    int use_depth;
    double vp_w, vp_h;       /* current viewport, user units (for %) */
    int in_marker;
    int in_glyph;            /* rendering the <path> target of a <use> */
    unsigned glyph_inst;     /* glyphs drawn (svg_shape.glyph) */
    unsigned glyph_cp;       /* the current glyph's character, 0 unknown */
    ir_pt glyph_org;         /* the current glyph's origin */
    unsigned label_group;    /* in a group labelled with its text: 1 + its index in labels */
    const svg_node *glyph_el;   /* the path element of the last labelled-group glyph */
    const svg_node *glyph_use;  /* the <use> drawing the current glyph */
    const char **labels;     /* the labelled groups' texts */
    size_t nlabels, caplabels;
    svg_fonts *fonts;        /* the document's SVG fonts (advances), or NULL */
    const svg_node *cur_el;  /* element being rendered, for positions */
    unsigned ngroups;        /* <g> elements entered (svg_shape.group) */
    unsigned group;          /* the innermost <g> being rendered: its number, or 0 */
} rstate;

static void fail(rstate *r, const svg_node *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(rstate *r, const svg_node *n, const char *fmt, ...)
{
    if (r->failed) return;
    r->failed = 1;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errsz, "%s:%d:%d: error: %s", r->fname, n ? n->line : 1, n ? n->col : 1, msg);
}

static const char *own(rstate *r, char *s)
{
    if (r->nowned == r->capowned) {
        r->capowned = r->capowned ? r->capowned * 2 : 64;
        r->owned = xrealloc(r->owned, r->capowned * sizeof *r->owned);
    }
    r->owned[r->nowned++] = s;
    return s;
}

static int prop_index(const char *name)
{
    for (int i = 0; i < NPROPS; i++)
        if (!strcmp(PROPNAMES[i], name)) return i;
    return -1;
}

/* The declared value of each known property for element n (NULL: none). */
static void declared(rstate *r, const svg_node *n, const char *v[NPROPS])
{
    for (int i = 0; i < NPROPS; i++) v[i] = NULL;
    for (size_t i = 0; i < n->nattrs; i++) {
        int k = prop_index(n->attrs[2 * i]);
        if (k >= 0 && k != P_FONT && k != P_MARKER) v[k] = n->attrs[2 * i + 1];
    }
    const svg_doc *d = r->doc;
    for (size_t i = 0; i < d->nrules; i++) {
        const svg_css_rule *ru = &d->rules[i];
        int any = 0;
        for (size_t k = 0; k < ru->ndecls && !any; k++) any = prop_index(ru->decls[2 * k]) >= 0;
        if (!any || !svg_css_match(ru, n)) continue;
        for (size_t k = 0; k < ru->ndecls; k++) {
            int p = prop_index(ru->decls[2 * k]);
            if (p >= 0) v[p] = ru->decls[2 * k + 1];
        }
    }
    const char *st = svg_attr(n, "style");
    if (st) {
        char **pairs;
        size_t np = svg_css_decls(st, strlen(st), &pairs);
        for (size_t k = 0; k < np; k++) {
            int p = prop_index(pairs[2 * k]);
            if (p >= 0) v[p] = own(r, pairs[2 * k + 1]);
            else free(pairs[2 * k + 1]);
            free(pairs[2 * k]);
        }
        free(pairs);
    }
    if (v[P_MARKER]) {
        if (!v[P_MARKER_START]) v[P_MARKER_START] = v[P_MARKER];
        if (!v[P_MARKER_END]) v[P_MARKER_END] = v[P_MARKER];
    }
    if (v[P_FONT] && !v[P_FONT_SIZE]) {
        /* "bold 14px sans-serif": the first word that is a length */
        const char *s = v[P_FONT];
        while (*s) {
            while (*s && isspace((unsigned char)*s)) s++;
            const char *w = s;
            while (*s && !isspace((unsigned char)*s) && *s != '/') s++;
            if (w != s && (isdigit((unsigned char)*w) || *w == '.')) {
                char buf[64];
                size_t l = (size_t)(s - w) < sizeof buf - 1 ? (size_t)(s - w) : sizeof buf - 1;
                memcpy(buf, w, l);
                buf[l] = 0;
                v[P_FONT_SIZE] = own(r, xstrdup(buf));
                break;
            }
            if (*s == '/') s++;
        }
    }
}

static int is_inherit(const char *v) { return v && !strcmp(v, "inherit"); }

static double font_keyword(const char *v, double parent)
{
    static const struct { const char *k; double px; } kw[] = {
        { "xx-small", 9 }, { "x-small", 10 }, { "small", 13 }, { "medium", 16 },
        { "large", 18 }, { "x-large", 24 }, { "xx-large", 32 }, { "xxx-large", 48 },
    };
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (!strcmp(v, kw[i].k)) return kw[i].px;
    if (!strcmp(v, "smaller")) return parent / 1.2;
    if (!strcmp(v, "larger")) return parent * 1.2;
    return -1;
}

static double opacity_val(const char *s)
{
    double v;
    if (!s) return 1;
    size_t l = num_prefix(s, &v);
    if (!l) return 1;
    if (s[l] == '%') v /= 100;
    return v;
}

/* Computes n's style from its parent's; returns 0 when n is display:none. */
static int compute_style(rstate *r, const svg_node *n, const style_t *parent, style_t *out,
                         int *invisible)
{
    const char *v[NPROPS];
    declared(r, n, v);
    *out = *parent;
    if (v[P_DISPLAY] && !strcmp(v[P_DISPLAY], "none")) return 0;
#define INH(field, p) if (v[p] && !is_inherit(v[p])) out->field = v[p]
    INH(fill, P_FILL);
    INH(stroke, P_STROKE);
    INH(stroke_width, P_STROKE_WIDTH);
    INH(anchor, P_TEXT_ANCHOR);
    INH(marker_start, P_MARKER_START);
    INH(marker_end, P_MARKER_END);
    INH(visibility, P_VISIBILITY);
    INH(dash, P_DASH);
    INH(dombase, P_DOMBASE);
    INH(weight, P_FONT_WEIGHT);
    INH(family, P_FONT_FAMILY);
#undef INH
    if (v[P_FILL_OP] && !is_inherit(v[P_FILL_OP])) out->fill_op0 = opacity_val(v[P_FILL_OP]) <= 0;
    if (v[P_STROKE_OP] && !is_inherit(v[P_STROKE_OP])) out->stroke_op0 = opacity_val(v[P_STROKE_OP]) <= 0;
    if (v[P_FONT_SIZE] && !is_inherit(v[P_FONT_SIZE])) {
        double px = font_keyword(v[P_FONT_SIZE], parent->font_px);
        if (px < 0 && !svg_length(v[P_FONT_SIZE], parent->font_px, parent->font_px, &px)) px = -1;
        if (px >= 0 && px < 1e6) out->font_px = px;
    }
    *invisible = v[P_OPACITY] && opacity_val(v[P_OPACITY]) <= 0;
    return 1;
}

static int paint_on(const char *p, int op0)
{
    if (!p || op0) return 0;
    return strcmp(p, "none") != 0 && strcmp(p, "transparent") != 0;
}

/* --- transforms ---------------------------------------------------------- */
static int parse_transform(const char *s, mat *out)
{
    mat m = M(1, 0, 0, 1, 0, 0);
    size_t i = 0;
    for (;;) {
        while (isspace((unsigned char)s[i]) || s[i] == ',') i++;
        if (!s[i]) break;
        size_t st = i;
        while (isalpha((unsigned char)s[i])) i++;
        size_t nl = i - st;
        while (isspace((unsigned char)s[i])) i++;
        if (!nl || s[i] != '(') return 0;
        i++;
        double a[6];
        int na = 0;
        for (;;) {
            while (isspace((unsigned char)s[i]) || s[i] == ',') i++;
            if (s[i] == ')') { i++; break; }
            if (na == 6) return 0;
            size_t l = num_prefix(s + i, &a[na]);
            if (!l) return 0;
            na++;
            i += l;
        }
        const char *nm = s + st;
        mat t;
        if (nl == 6 && !strncmp(nm, "matrix", 6) && na == 6) t = M(a[0], a[1], a[2], a[3], a[4], a[5]);
        else if (nl == 9 && !strncmp(nm, "translate", 9) && (na == 1 || na == 2))
            t = M(1, 0, 0, 1, a[0], na == 2 ? a[1] : 0);
        else if (nl == 5 && !strncmp(nm, "scale", 5) && (na == 1 || na == 2))
            t = M(a[0], 0, 0, na == 2 ? a[1] : a[0], 0, 0);
        else if (nl == 6 && !strncmp(nm, "rotate", 6) && (na == 1 || na == 3)) {
            double th = a[0] * RPI / 180, c = cos(th), sn = sin(th);
            t = M(c, sn, -sn, c, 0, 0);
            if (na == 3) t = mul(mul(M(1, 0, 0, 1, a[1], a[2]), t), M(1, 0, 0, 1, -a[1], -a[2]));
        } else if (nl == 5 && !strncmp(nm, "skewX", 5) && na == 1)
            t = M(1, 0, tan(a[0] * RPI / 180), 1, 0, 0);
        else if (nl == 5 && !strncmp(nm, "skewY", 5) && na == 1)
            t = M(1, tan(a[0] * RPI / 180), 0, 1, 0, 0);
        else return 0;
        m = mul(m, t);
    }
    *out = m;
    return 1;
}

/* viewBox + preserveAspectRatio into the viewport (0,0,w,h) */
static mat viewbox_mat(const char *vb, const char *par, double w, double h, int *ok)
{
    double *v = NULL;
    *ok = 0;
    long n = vb ? svg_parse_numbers(vb, &v) : -1;
    if (n != 4 || v[2] <= 0 || v[3] <= 0) { free(v); return M(1, 0, 0, 1, 0, 0); }
    double sx = w / v[2], sy = h / v[3];
    double ax = 0.5, ay = 0.5;
    int slice = 0, none = 0;
    if (par) {
        if (strstr(par, "none")) none = 1;
        if (strstr(par, "xMin")) ax = 0;
        if (strstr(par, "xMax")) ax = 1;
        if (strstr(par, "YMin")) ay = 0;
        if (strstr(par, "YMax")) ay = 1;
        if (strstr(par, "slice")) slice = 1;
    }
    if (!none) {
        double s = slice ? (sx > sy ? sx : sy) : (sx < sy ? sx : sy);
        sx = sy = s;
    }
    double tx = -v[0] * sx + ax * (w - v[2] * sx);
    double ty = -v[1] * sy + ay * (h - v[3] * sy);
    free(v);
    *ok = 1;
    return M(sx, 0, 0, sy, tx, ty);
}

/* --- output -------------------------------------------------------------- */
static int budget(rstate *r, const svg_node *n, size_t pts)
{
    svg_scene *sc = r->sc;
    if (sc->nshapes + sc->ntexts >= r->max_items) {
        fail(r, n, "more than %zu drawn elements (after <use> expansion)", r->max_items);
        return 0;
    }
    if (sc->npts + pts > r->max_points) {
        fail(r, n, "more than %zu outline points", r->max_points);
        return 0;
    }
    return 1;
}

static svg_shape *new_shape(rstate *r, const svg_node *n, svg_shape_kind kind, const style_t *st,
                            mat ctm, size_t npts)
{
    svg_scene *sc = r->sc;
    if (!budget(r, n, npts)) return NULL;
    if (sc->nshapes == sc->capshapes) {
        sc->capshapes = sc->capshapes ? sc->capshapes * 2 : 64;
        sc->shapes = xrealloc(sc->shapes, sc->capshapes * sizeof *sc->shapes);
    }
    svg_shape *s = &sc->shapes[sc->nshapes++];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->filled = paint_on(st->fill, st->fill_op0);
    s->stroked = paint_on(st->stroke, st->stroke_op0);
    s->fill = xstrdup(s->filled ? st->fill : "none");
    s->stroke = xstrdup(s->stroked ? st->stroke : "none");
    double lw = 1;
    if (st->stroke_width) svg_length(st->stroke_width, st->font_px, r->vp_w, &lw);
    if (!(lw >= 0) || lw > 1e6) lw = 1;
    s->lw = lw * mat_scale(ctm);
    if (s->lw == 0) s->stroked = 0;
    s->dashed = st->dash && strcmp(st->dash, "none") != 0;
    s->pts = xrealloc(NULL, (npts ? npts : 1) * sizeof *s->pts);
    s->n = 0;
    s->marker = r->in_marker;
    if (r->in_glyph && s->filled && !s->stroked) {
        s->glyph = (int)r->glyph_inst;
        s->glyph_cp = r->glyph_cp;
        s->glyph_org = r->glyph_org;
    } else if (r->label_group && !r->in_glyph && !r->in_marker && kind == SVG_SH_PATH && s->filled && !s->stroked) {
        /* a letter of a text converted to paths: one glyph per element */
        if (n != r->glyph_el) { r->glyph_el = n; r->glyph_inst++; }
        s->glyph = (int)r->glyph_inst;
        s->glyph_group = r->label_group;
        s->glyph_org = apply(ctm, (ir_pt){ 0, 0 });
    }
    s->line = n->line;
    s->col = n->col;
    if (s->glyph && r->in_glyph && r->glyph_use) { s->line = r->glyph_use->line; s->col = r->glyph_use->col; }
    s->seq = r->seq++;
    s->group = r->group;
    sc->npts += npts;
    return s;
}

/* --- markers ------------------------------------------------------------- */
static int contains_arrowish(const svg_node *n, int depth)
{
    if (depth > 32) return 0;
    for (size_t i = 0; i < n->nkids; i++) {
        const svg_node *k = n->kids[i];
        if (k->text) continue;
        if (!strcmp(k->name, "path") || !strcmp(k->name, "polygon") ||
            !strcmp(k->name, "polyline") || !strcmp(k->name, "line"))
            return 1;
        if (contains_arrowish(k, depth + 1)) return 1;
        if (!strcmp(k->name, "use")) return 1;
    }
    return 0;
}

static const svg_node *url_ref(rstate *r, const char *v)
{
    if (!v) return NULL;
    while (isspace((unsigned char)*v)) v++;
    if (strncmp(v, "url(", 4) != 0) return NULL;
    v += 4;
    while (isspace((unsigned char)*v) || *v == '"' || *v == '\'') v++;
    if (*v != '#') return NULL;
    v++;
    char id[256];
    size_t l = 0;
    while (v[l] && v[l] != ')' && v[l] != '"' && v[l] != '\'' && !isspace((unsigned char)v[l]) &&
           l < sizeof id - 1) {
        id[l] = v[l];
        l++;
    }
    id[l] = 0;
    return svg_doc_by_id(r->doc, id);
}

static void render_node(rstate *r, const svg_node *n, mat ctm, const style_t *ps, int depth);
static style_t root_style(void);

/* Places marker mk at user-space point v with user-space tangent t (end:
 * pointing out; start: pointing along the path), start = 1 for marker-start.
 * Returns 1 and *tip when the marker is arrow-like. */
static int place_marker(rstate *r, const svg_node *mk, const style_t *pst, mat ctm, ir_pt v,
                        ir_pt t, int start, ir_pt out_dir_ir, ir_pt *tip)
{
    if (r->in_marker || r->failed) return 0;
    double sw = 1;
    if (pst->stroke_width) svg_length(pst->stroke_width, pst->font_px, r->vp_w, &sw);
    if (!(sw >= 0) || sw > 1e6) sw = 1;
    const char *units = svg_attr(mk, "markerUnits");
    double k = units && !strcmp(units, "userSpaceOnUse") ? 1 : sw;
    double mw = 3, mh = 3, rx = 0, ry = 0;
    svg_length(svg_attr(mk, "markerWidth"), pst->font_px, r->vp_w, &mw);
    svg_length(svg_attr(mk, "markerHeight"), pst->font_px, r->vp_h, &mh);
    svg_length(svg_attr(mk, "refX"), pst->font_px, r->vp_w, &rx);
    svg_length(svg_attr(mk, "refY"), pst->font_px, r->vp_h, &ry);
    const char *orient = svg_attr(mk, "orient");
    double ang = 0;
    if (orient && (!strcmp(orient, "auto") || !strcmp(orient, "auto-start-reverse"))) {
        ang = atan2(t.y, t.x);
        if (start && !strcmp(orient, "auto-start-reverse")) ang += RPI;
    } else if (orient) {
        double a;
        if (num_prefix(orient, &a)) ang = a * RPI / 180;
    }
    int ok;
    mat vb = viewbox_mat(svg_attr(mk, "viewBox"), svg_attr(mk, "preserveAspectRatio"), mw, mh, &ok);
    ir_pt ref = apply(vb, (ir_pt){ rx, ry });
    mat m = mul(ctm, M(1, 0, 0, 1, v.x, v.y));
    m = mul(m, M(cos(ang), sin(ang), -sin(ang), cos(ang), 0, 0));
    m = mul(m, M(k, 0, 0, k, 0, 0));
    m = mul(m, M(1, 0, 0, 1, -ref.x, -ref.y));
    m = mul(m, vb);
    size_t before = r->sc->nshapes;
    style_t ms = root_style();
    int inv = 0;
    style_t mst;
    if (!compute_style(r, mk, &ms, &mst, &inv)) return 0;
    r->in_marker = 1;
    double svw = r->vp_w, svh = r->vp_h;
    r->vp_w = mw;
    r->vp_h = mh;
    for (size_t i = 0; i < mk->nkids; i++) render_node(r, mk->kids[i], m, &mst, 1);
    r->in_marker = 0;
    r->vp_w = svw;
    r->vp_h = svh;
    ir_pt vir = apply(ctm, v);
    double best = 0;
    *tip = vir;
    for (size_t i = before; i < r->sc->nshapes; i++) {
        const svg_shape *s = &r->sc->shapes[i];
        for (size_t j = 0; j < s->n; j++) {
            double pr = (s->pts[j].x - vir.x) * out_dir_ir.x + (s->pts[j].y - vir.y) * out_dir_ir.y;
            if (pr > best) { best = pr; *tip = s->pts[j]; }
        }
    }
    return contains_arrowish(mk, 0);
}

/* --- shapes -------------------------------------------------------------- */
static double attr_len(rstate *r, const svg_node *n, const char *name, const style_t *st,
                       double pct, double dflt)
{
    (void)r;
    double v;
    const char *s = svg_attr(n, name);
    if (s && svg_length(s, st->font_px, pct, &v)) return v;
    return dflt;
}

/* Emits one outline (user-space points) as a shape; markers applied by caller. */
static svg_shape *emit_outline(rstate *r, const svg_node *n, svg_shape_kind kind,
                               const style_t *st, mat ctm, const ir_pt *pts, size_t np,
                               int closed)
{
    if (np == 0) return NULL;
    svg_shape *s = new_shape(r, n, kind, st, ctm, np);
    if (!s) return NULL;
    for (size_t i = 0; i < np; i++) s->pts[i] = apply(ctm, pts[i]);
    s->n = np;
    s->closed = closed;
    if (np >= 2) {
        s->dir_start = unit((ir_pt){ s->pts[0].x - s->pts[1].x, s->pts[0].y - s->pts[1].y });
        s->dir_end = unit((ir_pt){ s->pts[np - 1].x - s->pts[np - 2].x, s->pts[np - 1].y - s->pts[np - 2].y });
    }
    return s;
}

static void apply_markers(rstate *r, const svg_node *n, const style_t *st, mat ctm,
                          size_t first_shape, ir_pt v0, ir_pt t0, ir_pt v1, ir_pt t1)
{
    if (r->in_marker || r->sc->nshapes <= first_shape) return;
    const svg_node *ms = url_ref(r, st->marker_start), *me = url_ref(r, st->marker_end);
    if (ms && strcmp(ms->name, "marker")) ms = NULL;
    if (me && strcmp(me->name, "marker")) me = NULL;
    if (!ms && !me) return;
    size_t last_shape = r->sc->nshapes - 1;
    ir_pt ds = unit(apply_lin(ctm, (ir_pt){ -t0.x, -t0.y }));
    ir_pt de = unit(apply_lin(ctm, t1));
    ir_pt tip;
    (void)n;
    if (ms && place_marker(r, ms, st, ctm, v0, t0, 1, ds, &tip)) {
        svg_shape *s = &r->sc->shapes[first_shape];
        s->arrow_start = 1;
        s->tip_start = tip;
        s->tip_start_set = 1;
        if (ds.x || ds.y) s->dir_start = ds;
    }
    if (me && place_marker(r, me, st, ctm, v1, t1, 0, de, &tip)) {
        svg_shape *s = &r->sc->shapes[last_shape];
        s->arrow_end = 1;
        s->tip_end = tip;
        s->tip_end_set = 1;
        if (de.x || de.y) s->dir_end = de;
    }
}

/* --- hand-drawn strokes (Excalidraw, rough.js, a pen) --------------------- */
static void shape_free(svg_shape *s)
{
    free(s->pts);
    free(s->fill);
    free(s->stroke);
}

static double pt_polyline_dist(ir_pt p, const ir_pt *q, size_t n)
{
    double best = HUGE_VAL;
    for (size_t i = 0; i + 1 < n; i++) best = fmin(best, ir_pt_seg_dist(p, q[i], q[i + 1], NULL));
    return n == 1 ? ir_v_dist(p, q[0]) : best;
}

/* One path whose open subpaths, taken in any order and either way round,
 * run end to end around loops (each piece starting within 6% of the
 * drawing's size of where another ends), every loop enclosing an area (at
 * least 0.3 of its box): a reader sees closed shapes (a box drawn side by
 * side, twice over, an ellipse drawn as a curve that runs a little past its
 * start). Emits each loop as one closed outline; 1 when it did. */
static int hand_drawn_loops(rstate *r, const svg_node *n, const style_t *st, mat ctm,
                            const svg_pathdata *pd)
{
    enum { MAXP = 256 };
    /* hand-drawn shapes are small: bounded work on hostile paths */
    if (pd->n < 2 || pd->n > MAXP || pd->npts > 20000) return 0;
    double x1 = HUGE_VAL, y1 = HUGE_VAL, x2 = -HUGE_VAL, y2 = -HUGE_VAL;
    for (size_t i = 0; i < pd->n; i++) {
        const svg_subpath *s = &pd->sub[i];
        if (s->closed || s->n < 2) return 0;
        for (size_t j = 0; j < s->n; j++) {
            x1 = fmin(x1, s->pts[j].x); x2 = fmax(x2, s->pts[j].x);
            y1 = fmin(y1, s->pts[j].y); y2 = fmax(y2, s->pts[j].y);
        }
    }
    double tol = 0.06 * hypot(x2 - x1, y2 - y1);
    if (!(tol > 0)) return 0;
    unsigned char used[MAXP] = { 0 };
    size_t order[MAXP], rev[MAXP], loopstart[MAXP + 1], nl = 0, k = 0;
    for (size_t seed = 0; seed < pd->n; seed++) {
        if (used[seed]) continue;
        used[seed] = 1;
        loopstart[nl++] = k;
        order[k] = seed; rev[k++] = 0;
        const svg_subpath *s0 = &pd->sub[seed];
        ir_pt start = s0->pts[0], end = s0->pts[s0->n - 1];
        /* one piece that comes back to its start (or runs past it) */
        size_t early = s0->n / 4 + 1;
        if (ir_v_dist(end, start) <= tol || (s0->n >= 8 && pt_polyline_dist(end, s0->pts, early) <= tol))
            continue;
        for (;;) {
            size_t bj = MAXP;
            int brev = 0;
            double bd = tol;
            const svg_subpath *cur = &pd->sub[order[k - 1]];
            for (size_t j = 0; j < pd->n; j++) {
                if (used[j]) continue;
                const svg_subpath *q = &pd->sub[j];
                double d0 = ir_v_dist(end, q->pts[0]), d1 = ir_v_dist(end, q->pts[q->n - 1]);
                if (d0 > bd && d1 >= bd) continue;
                /* not the same stroke again, back the way it came */
                if (pt_polyline_dist(q->pts[q->n / 2], cur->pts, cur->n) <= tol) continue;
                if (d0 <= bd) { bd = d0; bj = j; brev = 0; }
                if (d1 < bd) { bd = d1; bj = j; brev = 1; }
            }
            if (bj == MAXP) return 0;
            used[bj] = 1;
            order[k] = bj; rev[k++] = (size_t)brev;
            const svg_subpath *q = &pd->sub[bj];
            end = brev ? q->pts[0] : q->pts[q->n - 1];
            if (ir_v_dist(end, start) <= tol) break;
        }
    }
    loopstart[nl] = k;
    /* every loop encloses an area (a line drawn twice does not) */
    ir_pt *buf = NULL;
    size_t *cnt = xrealloc(NULL, nl * sizeof *cnt);
    size_t total = 0;
    for (size_t l = 0; l < nl; l++) {
        cnt[l] = 0;
        for (size_t i = loopstart[l]; i < loopstart[l + 1]; i++) cnt[l] += pd->sub[order[i]].n;
        total += cnt[l];
    }
    buf = xrealloc(NULL, total * sizeof *buf);
    size_t at = 0;
    int ok = 1;
    for (size_t l = 0; l < nl && ok; l++) {
        size_t from = at;
        double lx1 = HUGE_VAL, ly1 = HUGE_VAL, lx2 = -HUGE_VAL, ly2 = -HUGE_VAL;
        for (size_t i = loopstart[l]; i < loopstart[l + 1]; i++) {
            const svg_subpath *q = &pd->sub[order[i]];
            for (size_t j = 0; j < q->n; j++) {
                ir_pt p = q->pts[rev[i] ? q->n - 1 - j : j];
                buf[at++] = p;
                lx1 = fmin(lx1, p.x); lx2 = fmax(lx2, p.x); ly1 = fmin(ly1, p.y); ly2 = fmax(ly2, p.y);
            }
        }
        double area = 0;
        for (size_t i = from; i < at; i++) {
            ir_pt p = buf[i], q = buf[i + 1 < at ? i + 1 : from];
            area += p.x * q.y - q.x * p.y;
        }
        if (!(fabs(area) / 2 >= 0.3 * (lx2 - lx1) * (ly2 - ly1)) || lx2 - lx1 < 2 * tol || ly2 - ly1 < 2 * tol) ok = 0;
    }
    if (ok) {
        at = 0;
        for (size_t l = 0; l < nl; l++) {
            emit_outline(r, n, SVG_SH_PATH, st, ctm, buf + at, cnt[l], 1);
            at += cnt[l];
        }
    }
    free(buf);
    free(cnt);
    return ok;
}

/* One path whose open subpaths all run along the first (their ends at its
 * ends, every point within a tenth of its length of it): one stroke drawn
 * over several times by hand. 1 when so. */
static int redrawn_stroke(const svg_pathdata *pd)
{
    if (pd->n < 2 || pd->npts > 20000) return 0;
    const svg_subpath *f = &pd->sub[0];
    if (f->n > 2000) return 0;
    if (f->closed || f->n < 2) return 0;
    double len = 0;
    for (size_t i = 1; i < f->n; i++) len += ir_v_dist(f->pts[i - 1], f->pts[i]);
    double tol = 0.1 * len;
    if (!(tol > 0)) return 0;
    ir_pt a = f->pts[0], b = f->pts[f->n - 1];
    for (size_t k = 1; k < pd->n; k++) {
        const svg_subpath *q = &pd->sub[k];
        if (q->closed || q->n < 2) return 0;
        ir_pt c = q->pts[0], d = q->pts[q->n - 1];
        if (!((ir_v_dist(a, c) <= tol && ir_v_dist(b, d) <= tol) || (ir_v_dist(a, d) <= tol && ir_v_dist(b, c) <= tol)))
            return 0;
        for (size_t j = 0; j < q->n; j++)
            if (pt_polyline_dist(q->pts[j], f->pts, f->n) > tol) return 0;
    }
    return 1;
}

/* Two straight strokes of separate elements drawn one after the other
 * (within the next four such strokes), each at most 25 pt long (the
 * default --arrow-max), their lengths within 1.5 of each other, one end of
 * each at one point (within 0.15 of the shorter) and between 15 and 80
 * degrees apart there: the two arms of an open arrowhead drawn one by one
 * (Excalidraw). They become one V (wing, tip, wing). */
static int straight_short(const svg_shape *s, double maxlen)
{
    if (s->closed || s->marker || s->glyph || !s->stroked || s->n < 2) return 0;
    double l = ir_v_dist(s->pts[0], s->pts[s->n - 1]);
    if (!(l > 0) || l > maxlen) return 0;
    for (size_t i = 1; i + 1 < s->n; i++)
        if (ir_pt_seg_dist(s->pts[i], s->pts[0], s->pts[s->n - 1], NULL) > 0.05 * l) return 0;
    return 1;
}

static void join_drawn_arms(svg_scene *sc)
{
    const double maxlen = 25;
    size_t *c = xrealloc(NULL, (sc->nshapes ? sc->nshapes : 1) * sizeof *c), nc = 0;
    unsigned char *dead = xcalloc(sc->nshapes ? sc->nshapes : 1, 1);
    for (size_t i = 0; i < sc->nshapes; i++)
        if (straight_short(&sc->shapes[i], maxlen)) c[nc++] = i;
    int any = 0;
    for (size_t x = 0; x < nc; x++) {
        svg_shape *A = &sc->shapes[c[x]];
        if (dead[c[x]]) continue;
        /* the two arms are drawn one after the other: the next few
         * candidates in document order */
        for (size_t y = x + 1; y < nc && y <= x + 4; y++) {
            svg_shape *B = &sc->shapes[c[y]];
            if (dead[c[y]] || (A->line == B->line && A->col == B->col)) continue;
            ir_pt ae[2] = { A->pts[0], A->pts[A->n - 1] }, be[2] = { B->pts[0], B->pts[B->n - 1] };
            double la = ir_v_dist(ae[0], ae[1]), lb = ir_v_dist(be[0], be[1]);
            if (fmax(la, lb) > 1.5 * fmin(la, lb)) continue;
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) {
                    if (dead[c[y]] || ir_v_dist(ae[i], be[j]) > 0.15 * fmin(la, lb)) continue;
                    ir_pt tip = { (ae[i].x + be[j].x) / 2, (ae[i].y + be[j].y) / 2 };
                    ir_pt wa = ae[1 - i], wb = be[1 - j];
                    double ang = ir_v_angle_deg((ir_pt){ wa.x - tip.x, wa.y - tip.y }, (ir_pt){ wb.x - tip.x, wb.y - tip.y });
                    if (!(ang >= 15 && ang <= 80)) continue;
                    A->pts = xrealloc(A->pts, 3 * sizeof *A->pts);
                    A->pts[0] = wa; A->pts[1] = tip; A->pts[2] = wb;
                    A->n = 3;
                    A->dir_start = unit((ir_pt){ wa.x - tip.x, wa.y - tip.y });
                    A->dir_end = unit((ir_pt){ wb.x - tip.x, wb.y - tip.y });
                    dead[c[y]] = 1;
                    any = 1;
                }
            if (A->n == 3 && dead[c[y]]) break;
        }
    }
    if (any) {
        size_t k = 0;
        for (size_t i = 0; i < sc->nshapes; i++) {
            if (dead[i]) {
                shape_free(&sc->shapes[i]);
                continue;
            }
            sc->shapes[k++] = sc->shapes[i];
        }
        sc->nshapes = k;
    }
    free(c);
    free(dead);
}

static void render_subpaths(rstate *r, const svg_node *n, svg_shape_kind kind, const style_t *st,
                            mat ctm, const svg_pathdata *pd)
{
    size_t first = r->sc->nshapes;
    int any = 0;
    ir_pt v0 = { 0, 0 }, t0 = { 0, 0 }, v1 = { 0, 0 }, t1 = { 0, 0 };
    for (size_t i = 0; i < pd->n && !r->failed; i++) {
        svg_subpath *s = &pd->sub[i];
        if (s->n < 2) continue;
        if (!any) { v0 = s->pts[0]; t0 = s->tan_start; first = r->sc->nshapes; any = 1; }
        v1 = s->pts[s->n - 1];
        t1 = s->tan_end;
        svg_shape *sh = emit_outline(r, n, kind, st, ctm, s->pts, s->n, s->closed);
        if (sh && (s->tan_start.x || s->tan_start.y))
            sh->dir_start = unit(apply_lin(ctm, (ir_pt){ -s->tan_start.x, -s->tan_start.y }));
        if (sh && (s->tan_end.x || s->tan_end.y)) sh->dir_end = unit(apply_lin(ctm, s->tan_end));
    }
    if (any && !r->failed) apply_markers(r, n, st, ctm, first, v0, t0, v1, t1);
}

static void render_pathdata(rstate *r, const svg_node *n, svg_shape_kind kind, const style_t *st,
                            mat ctm, svg_pathdata *pd)
{
    if (kind == SVG_SH_PATH && !r->in_marker && !r->in_glyph) {
        if (hand_drawn_loops(r, n, st, ctm, pd)) return;
        if (redrawn_stroke(pd)) {
            svg_pathdata one = *pd;
            one.n = 1;
            render_subpaths(r, n, kind, st, ctm, &one);
            return;
        }
    }
    render_subpaths(r, n, kind, st, ctm, pd);
}

static void render_shape(rstate *r, const svg_node *n, const style_t *st, mat ctm)
{
    const char *nm = n->name;
    double diag = sqrt((r->vp_w * r->vp_w + r->vp_h * r->vp_h) / 2);
    if (!strcmp(nm, "rect")) {
        double x = attr_len(r, n, "x", st, r->vp_w, 0), y = attr_len(r, n, "y", st, r->vp_h, 0);
        double w = attr_len(r, n, "width", st, r->vp_w, 0), h = attr_len(r, n, "height", st, r->vp_h, 0);
        if (!(w > 0) || !(h > 0)) return;
        ir_pt p[4] = { { x, y + h }, { x + w, y + h }, { x + w, y }, { x, y } };
        svg_shape *s = emit_outline(r, n, SVG_SH_RECT, st, ctm, p, 4, 1);
        if (s && ctm.b == 0 && ctm.c == 0) {
            /* axis-aligned: store lower-left first, upper-right third */
            double x1 = fmin(s->pts[0].x, s->pts[2].x), x2 = fmax(s->pts[0].x, s->pts[2].x);
            double y1 = fmin(s->pts[0].y, s->pts[2].y), y2 = fmax(s->pts[0].y, s->pts[2].y);
            s->pts[0] = (ir_pt){ x1, y1 };
            s->pts[1] = (ir_pt){ x2, y1 };
            s->pts[2] = (ir_pt){ x2, y2 };
            s->pts[3] = (ir_pt){ x1, y2 };
            s->axis_rect = 1;
        }
        return;
    }
    if (!strcmp(nm, "circle") || !strcmp(nm, "ellipse")) {
        double cx = attr_len(r, n, "cx", st, r->vp_w, 0), cy = attr_len(r, n, "cy", st, r->vp_h, 0);
        double rx, ry;
        if (nm[0] == 'c') rx = ry = attr_len(r, n, "r", st, diag, 0);
        else {
            rx = attr_len(r, n, "rx", st, r->vp_w, -1);
            ry = attr_len(r, n, "ry", st, r->vp_h, -1);
            if (rx < 0) rx = ry;
            if (ry < 0) ry = rx;
        }
        if (!(rx > 0) || !(ry > 0)) return;
        enum { NE = 32 };
        ir_pt p[NE];
        for (int i = 0; i < NE; i++) {
            double t = 2 * RPI * i / NE;
            p[i] = (ir_pt){ cx + rx * cos(t), cy + ry * sin(t) };
        }
        svg_shape *s = emit_outline(r, n, nm[0] == 'c' ? SVG_SH_CIRCLE : SVG_SH_ELLIPSE, st, ctm, p, NE, 1);
        if (s) {
            s->ellipse = 1;
            s->ec = apply(ctm, (ir_pt){ cx, cy });
            s->ea = apply_lin(ctm, (ir_pt){ rx, 0 });
            s->eb = apply_lin(ctm, (ir_pt){ 0, ry });
        }
        return;
    }
    svg_pathdata pd = { 0 };
    svg_shape_kind kind = SVG_SH_PATH;
    if (!strcmp(nm, "line")) {
        kind = SVG_SH_LINE;
        ir_pt a = { attr_len(r, n, "x1", st, r->vp_w, 0), attr_len(r, n, "y1", st, r->vp_h, 0) };
        ir_pt b = { attr_len(r, n, "x2", st, r->vp_w, 0), attr_len(r, n, "y2", st, r->vp_h, 0) };
        pd.cap = pd.n = 1;
        pd.sub = xcalloc(1, sizeof *pd.sub);
        pd.sub[0].pts = xrealloc(NULL, 2 * sizeof(ir_pt));
        pd.sub[0].pts[0] = a;
        pd.sub[0].pts[1] = b;
        pd.sub[0].n = pd.sub[0].cap = 2;
        pd.sub[0].tan_start = pd.sub[0].tan_end = (ir_pt){ b.x - a.x, b.y - a.y };
    } else if (!strcmp(nm, "polyline") || !strcmp(nm, "polygon")) {
        kind = nm[4] == 'g' ? SVG_SH_POLYGON : SVG_SH_POLYLINE;
        const char *ps = svg_attr(n, "points");
        double *v = NULL;
        long nv = ps ? svg_parse_numbers(ps, &v) : 0;
        if (nv < 0) {
            fail(r, n, "malformed points list");
            return;
        }
        size_t np = (size_t)nv / 2;
        if (np < 2) { free(v); return; }
        pd.cap = pd.n = 1;
        pd.sub = xcalloc(1, sizeof *pd.sub);
        pd.sub[0].pts = xrealloc(NULL, np * sizeof(ir_pt));
        for (size_t i = 0; i < np; i++) pd.sub[0].pts[i] = (ir_pt){ v[2 * i], v[2 * i + 1] };
        pd.sub[0].n = pd.sub[0].cap = np;
        /* a polygon repeating its first point at the end (Graphviz) */
        if (kind == SVG_SH_POLYGON && np > 2 && pd.sub[0].pts[0].x == pd.sub[0].pts[np - 1].x &&
            pd.sub[0].pts[0].y == pd.sub[0].pts[np - 1].y)
            pd.sub[0].n--;
        pd.sub[0].closed = kind == SVG_SH_POLYGON;
        size_t m = pd.sub[0].n;
        ir_pt *q = pd.sub[0].pts;
        pd.sub[0].tan_start = (ir_pt){ q[1].x - q[0].x, q[1].y - q[0].y };
        pd.sub[0].tan_end = (ir_pt){ q[m - 1].x - q[m - 2].x, q[m - 1].y - q[m - 2].y };
        free(v);
    } else {
        const char *d = svg_attr(n, "d");
        if (!d) return;
        size_t pos;
        const char *msg;
        size_t room = r->max_points > r->sc->npts ? r->max_points - r->sc->npts : 1;
        if (svg_path_parse(d, &pd, room, &pos, &msg) < 0) {
            if (!strcmp(msg, "too many points")) fail(r, n, "more than %zu outline points", r->max_points);
            else fail(r, n, "path data: %s at offset %zu of d=", msg, pos);
            svg_path_free(&pd);
            return;
        }
    }
    render_pathdata(r, n, kind, st, ctm, &pd);
    svg_path_free(&pd);
}

/* --- text ---------------------------------------------------------------- */
/* advance of a character in em, a sans-serif approximation */
static double char_em(unsigned cp)
{
    if (cp == ' ') return 0.28;
    if (cp < 128) {
        if (strchr("iljI.,:;'|!`", (int)cp)) return 0.26;
        if (strchr("ftr()[]{}\"-/\\", (int)cp)) return 0.36;
        if (strchr("mwMW", (int)cp)) return 0.86;
        if (cp >= 'A' && cp <= 'Z') return 0.66;
        if (cp >= '0' && cp <= '9') return 0.55;
        return 0.52;
    }
    if (cp >= 0x2E80) return 1.0; /* CJK */
    return 0.56;
}

typedef struct {
    const double *v;
    long n, start;
} poslist;

typedef struct {
    rstate *r;
    mat ctm;
    const svg_node *el;      /* the <text> element */
    char *buf;
    size_t len, cap;
    double x0, y0, w, fs_px;
    int anchor;              /* 0 start, 1 middle, 2 end */
    double base_shift;       /* em fraction, from dominant-baseline */
    int bold;
    int open;
    double cx, cy;
    long g;                  /* index of the next addressable character */
    int last_space;
    int glue;                /* the open chunk continues the word of the one before */
    int exact;               /* the open chunk's advances all from an SVG font */
    poslist lx[48], ly[48], ldx[48], ldy[48];
    int nl;
    int line, col;
} tlayout;

static int anchor_of(const char *a)
{
    if (!a) return 0;
    if (!strcmp(a, "middle")) return 1;
    if (!strcmp(a, "end")) return 2;
    return 0;
}

static double dombase_shift(const char *d)
{
    if (!d) return 0;
    if (!strcmp(d, "middle") || !strcmp(d, "central")) return 0.35;
    if (!strcmp(d, "hanging") || !strcmp(d, "text-before-edge") || !strcmp(d, "text-top"))
        return 0.8;
    if (!strcmp(d, "text-after-edge") || !strcmp(d, "ideographic") || !strcmp(d, "text-bottom"))
        return -0.2;
    return 0;
}

static void add_text_item(rstate *r, mat ctm, const char *s, size_t len, double x0, double base,
                          double w, double fs, int line, int col, const svg_node *n, int glued)
{
    if (!budget(r, n, 0)) return;
    svg_scene *sc = r->sc;
    if (sc->ntexts == sc->captexts) {
        sc->captexts = sc->captexts ? sc->captexts * 2 : 64;
        sc->texts = xrealloc(sc->texts, sc->captexts * sizeof *sc->texts);
    }
    svg_text *t = &sc->texts[sc->ntexts++];
    memset(t, 0, sizeof *t);
    t->text = xrealloc(NULL, len + 1);
    memcpy(t->text, s, len);
    t->text[len] = 0;
    ir_pt c[4] = { { x0, base - 0.75 * fs }, { x0 + w, base - 0.75 * fs }, { x0 + w, base + 0.25 * fs },
                   { x0, base + 0.25 * fs } };
    ir_box b = ir_box_empty();
    for (int i = 0; i < 4; i++) {
        ir_pt p = apply(ctm, c[i]);
        ir_box_add(&b, p.x, p.y);
    }
    t->box = b;
    t->size = fs * mat_scale(ctm);
    t->baseline = apply(ctm, (ir_pt){ x0 + w / 2, base }).y;
    t->line = line;
    t->col = col;
    t->seq = r->seq++;
    t->group = r->group;
    t->glued = glued;
}

static void chunk_end(tlayout *t)
{
    if (!t->open) return;
    t->open = 0;
    /* trim trailing spaces */
    while (t->len && t->buf[t->len - 1] == ' ') {
        t->len--;
        t->w -= char_em(' ') * t->fs_px;
    }
    if (!t->len) return;
    double x0 = t->x0;
    if (t->anchor == 1) x0 -= t->w / 2;
    else if (t->anchor == 2) x0 -= t->w;
    add_text_item(t->r, t->ctm, t->buf, t->len, x0, t->y0 + t->base_shift * t->fs_px, t->w,
                  t->fs_px, t->line, t->col, t->el, t->glue);
}

static int lookup(const poslist *l, int nl, long g, double *out)
{
    for (int i = nl - 1; i >= 0; i--)
        if (l[i].v && g >= l[i].start && g - l[i].start < l[i].n) {
            *out = l[i].v[g - l[i].start];
            return 1;
        }
    return 0;
}

static void put_char(tlayout *t, const char *c, size_t clen, unsigned cp, const style_t *st,
                     const svg_node *src)
{
    double x = 0, y = 0, dx = 0, dy = 0;
    int hx = lookup(t->lx, t->nl, t->g, &x), hy = lookup(t->ly, t->nl, t->g, &y);
    int hdx = lookup(t->ldx, t->nl, t->g, &dx), hdy = lookup(t->ldy, t->nl, t->g, &dy);
    int glue = 0;
    if (hx || hy || (hdy && dy != 0)) {
        /* a new position inside a word (no blank before this letter) on
         * the same line: the next chunk goes on with the word */
        glue = t->open && t->len && t->buf[t->len - 1] != ' ' && cp != ' ' &&
               (!hy || y == t->cy) && !(hdy && dy != 0);
        /* with the font's true advances, a jump forward of more than a
         * fifth of an em is a word space (dvisvgm drops the blank) */
        if (glue && hx && t->exact && x - t->cx > 0.2 * st->font_px) glue = 0;
        chunk_end(t);
        if (hx) t->cx = x;
        if (hy) t->cy = y;
    }
    if (hdx) t->cx += dx;
    if (hdy) t->cy += dy;
    t->g++;
    double em = svg_fonts_advance(t->r->fonts, st->family, cp);
    int exact = em >= 0;
    if (!exact) em = char_em(cp) * (st->weight && (strstr(st->weight, "bold") || atoi(st->weight) >= 600) ? 1.08 : 1);
    double adv = em * st->font_px;
    if (!t->open) {
        if (cp == ' ') { t->cx += adv; return; }
        t->open = 1;
        t->len = 0;
        t->x0 = t->cx;
        t->y0 = t->cy;
        t->w = 0;
        t->fs_px = st->font_px;
        t->anchor = anchor_of(st->anchor);
        t->base_shift = dombase_shift(st->dombase);
        t->line = src->line;
        t->col = src->col;
        t->glue = glue;
        t->exact = 1;
    } else if (hdx && dx != 0) {
        t->w += dx;
    }
    if (st->font_px > t->fs_px) t->fs_px = st->font_px;
    if (t->len + clen + 1 > t->cap) {
        t->cap = (t->len + clen + 1) * 2;
        t->buf = xrealloc(t->buf, t->cap);
    }
    memcpy(t->buf + t->len, c, clen);
    t->len += clen;
    if (!exact) t->exact = 0;
    t->w += adv;
    t->cx += adv;
}

static unsigned utf8_cp(const unsigned char *s, size_t *len)
{
    unsigned c = s[0];
    if (c < 0x80) { *len = 1; return c; }
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    unsigned cp = n == 4 ? c & 7 : n == 3 ? c & 15 : c & 31;
    size_t i;
    for (i = 1; i < n && (s[i] & 0xC0) == 0x80; i++) cp = (cp << 6) | (s[i] & 63);
    *len = i;
    return i == n ? cp : 0xFFFD;
}

static void push_lists(tlayout *t, rstate *r, const svg_node *n, const style_t *st, double **mem)
{
    (void)r;
    const char *names[4] = { "x", "y", "dx", "dy" };
    poslist *ls[4] = { t->lx, t->ly, t->ldx, t->ldy };
    for (int k = 0; k < 4; k++) {
        ls[k][t->nl].v = NULL;
        ls[k][t->nl].n = 0;
        ls[k][t->nl].start = t->g;
        const char *a = svg_attr(n, names[k]);
        if (!a) continue;
        /* lengths with units: split at blanks/commas, each through svg_length */
        size_t cap = 8, cnt = 0;
        double *v = xrealloc(NULL, cap * sizeof *v);
        const char *s = a;
        while (*s) {
            while (*s && (isspace((unsigned char)*s) || *s == ',')) s++;
            if (!*s) break;
            const char *w = s;
            while (*s && !isspace((unsigned char)*s) && *s != ',') s++;
            char buf[64];
            size_t l = (size_t)(s - w) < 63 ? (size_t)(s - w) : 63;
            memcpy(buf, w, l);
            buf[l] = 0;
            double x;
            if (!svg_length(buf, st->font_px, (k & 1) ? t->r->vp_h : t->r->vp_w, &x)) break;
            if (cnt == cap) { cap *= 2; v = xrealloc(v, cap * sizeof *v); }
            v[cnt++] = x;
        }
        ls[k][t->nl].v = v;
        ls[k][t->nl].n = (long)cnt;
        mem[k] = v;
    }
}

static void layout_kids(tlayout *t, const svg_node *n, const style_t *st, int depth)
{
    rstate *r = t->r;
    for (size_t i = 0; i < n->nkids && !r->failed; i++) {
        const svg_node *k = n->kids[i];
        if (k->text) {
            const unsigned char *s = (const unsigned char *)k->text;
            while (*s) {
                size_t cl;
                unsigned cp = utf8_cp(s, &cl);
                const char *c = (const char *)s;
                s += cl;
                if (cp == '\n' || cp == '\r' || cp == '\t') cp = ' ';
                if (cp == ' ') {
                    if (t->last_space) continue;
                    t->last_space = 1;
                    put_char(t, " ", 1, ' ', st, k);
                    continue;
                }
                if (cp < 32 || cp == 0xFEFF) continue;
                t->last_space = 0;
                put_char(t, c, cl, cp, st, k);
            }
            continue;
        }
        if (strcmp(k->name, "tspan") && strcmp(k->name, "a") && strcmp(k->name, "textPath") &&
            strcmp(k->name, "tref"))
            continue;
        style_t ks;
        int inv = 0;
        if (!compute_style(r, k, st, &ks, &inv)) continue;
        if (depth >= 40 || t->nl >= 47) { layout_kids(t, k, &ks, depth + 1); continue; }
        double *mem[4] = { NULL, NULL, NULL, NULL };
        push_lists(t, r, k, &ks, mem);
        t->nl++;
        layout_kids(t, k, &ks, depth + 1);
        t->nl--;
        for (int q = 0; q < 4; q++) free(mem[q]);
    }
}

static void render_text(rstate *r, const svg_node *n, const style_t *st, mat ctm)
{
    tlayout t;
    memset(&t, 0, sizeof t);
    t.r = r;
    t.ctm = ctm;
    t.el = n;
    t.last_space = 1;
    double *mem[4] = { NULL, NULL, NULL, NULL };
    push_lists(&t, r, n, st, mem);
    t.nl = 1;
    size_t before = r->sc->ntexts;
    layout_kids(&t, n, st, 0);
    chunk_end(&t);
    /* textLength: the producer's own advance of the whole text, better
     * than the estimate when the element is one text item */
    double tl = 0;
    if (r->sc->ntexts == before + 1 && svg_length(svg_attr(n, "textLength"), st->font_px, r->vp_w, &tl) &&
        tl > 0 && isfinite(tl) && t.w > 0) {
        svg_text *it = &r->sc->texts[before];
        double x0 = t.x0 - (t.anchor == 1 ? tl / 2 : t.anchor == 2 ? tl : 0);
        double base = t.y0 + t.base_shift * t.fs_px;
        ir_pt c[4] = { { x0, base - 0.75 * t.fs_px }, { x0 + tl, base - 0.75 * t.fs_px },
                       { x0 + tl, base + 0.25 * t.fs_px }, { x0, base + 0.25 * t.fs_px } };
        it->box = ir_box_empty();
        for (int i = 0; i < 4; i++) {
            ir_pt p = apply(ctm, c[i]);
            ir_box_add(&it->box, p.x, p.y);
        }
        it->baseline = apply(ctm, (ir_pt){ x0 + tl / 2, base }).y;
    }
    for (int q = 0; q < 4; q++) free(mem[q]);
    free(t.buf);
}

static void collect_text(const svg_node *n, char **buf, size_t *len, size_t *cap, int depth)
{
    if (depth > 64) return;
    for (size_t i = 0; i < n->nkids; i++) {
        const svg_node *k = n->kids[i];
        if (k->text) {
            for (const char *s = k->text; *s; s++) {
                char c = *s;
                if (c == '\n' || c == '\t' || c == '\r') c = ' ';
                if (c == ' ' && (*len == 0 || (*buf)[*len - 1] == ' ')) continue;
                if (*len + 2 > *cap) { *cap = (*len + 2) * 2; *buf = xrealloc(*buf, *cap); }
                (*buf)[(*len)++] = c;
            }
        } else {
            /* block elements break lines: a space */
            if (*len && (*buf)[*len - 1] != ' ') {
                if (*len + 2 > *cap) { *cap = (*len + 2) * 2; *buf = xrealloc(*buf, *cap); }
                (*buf)[(*len)++] = ' ';
            }
            collect_text(k, buf, len, cap, depth + 1);
        }
    }
}

static void render_foreign(rstate *r, const svg_node *n, const style_t *st, mat ctm)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    collect_text(n, &buf, &len, &cap, 0);
    while (len && buf[len - 1] == ' ') len--;
    if (!len) { free(buf); return; }
    double x = attr_len(r, n, "x", st, r->vp_w, 0), y = attr_len(r, n, "y", st, r->vp_h, 0);
    double w = attr_len(r, n, "width", st, r->vp_w, 0), h = attr_len(r, n, "height", st, r->vp_h, 0);
    double tw = 0;
    for (size_t i = 0; i < len; i++) tw += char_em((unsigned char)buf[i]) * st->font_px;
    double fs = st->font_px;
    if (tw > w && w > 0) {
        /* wraps: the text fills the box */
        add_text_item(r, ctm, buf, len, x, y + h - 0.25 * fs, w, fs, n->line, n->col, n, 0);
        if (r->sc->ntexts) {
            svg_text *t = &r->sc->texts[r->sc->ntexts - 1];
            ir_box b = ir_box_empty();
            ir_pt c[2] = { apply(ctm, (ir_pt){ x, y }), apply(ctm, (ir_pt){ x + w, y + h }) };
            ir_box_add(&b, c[0].x, c[0].y);
            ir_box_add(&b, c[1].x, c[1].y);
            t->box = b;
        }
    } else {
        add_text_item(r, ctm, buf, len, x + (w - tw) / 2, y + h / 2 + 0.35 * fs, tw, fs, n->line,
                      n->col, n, 0);
    }
    free(buf);
}

/* --- the walk ------------------------------------------------------------ */
static style_t root_style(void)
{
    style_t s;
    memset(&s, 0, sizeof s);
    s.fill = "black";
    s.stroke = "none";
    s.font_px = 16;
    return s;
}

static int skipped_container(const char *nm)
{
    static const char *const skip[] = {
        "defs", "marker", "symbol", "clipPath", "mask", "pattern", "linearGradient",
        "radialGradient", "filter", "title", "desc", "metadata", "style", "script", "image",
        "font", "font-face", "cursor", "view", "animate", "set", "animateTransform",
        "animateMotion", "feGaussianBlur", NULL
    };
    for (int i = 0; skip[i]; i++)
        if (!strcmp(nm, skip[i])) return 1;
    return 0;
}

static void render_use(rstate *r, const svg_node *n, const style_t *st, mat ctm, int depth)
{
    const char *href = svg_attr(n, "href");
    if (!href || href[0] != '#') return;
    const svg_node *tg = svg_doc_by_id(r->doc, href + 1);
    if (!tg) return;
    for (int i = 0; i < r->use_depth; i++)
        if (r->use_stack[i] == tg) {
            fail(r, n, "<use> refers to itself (through '%s')", href + 1);
            return;
        }
    if (r->use_depth >= MAX_USE_DEPTH) {
        fail(r, n, "<use> nested deeper than %d", MAX_USE_DEPTH);
        return;
    }
    for (const svg_node *a = n; a; a = a->parent)
        if (a == tg) {
            fail(r, n, "<use> refers to its own ancestor '%s'", href + 1);
            return;
        }
    double x = attr_len(r, n, "x", st, r->vp_w, 0), y = attr_len(r, n, "y", st, r->vp_h, 0);
    mat m = mul(ctm, M(1, 0, 0, 1, x, y));
    r->use_stack[r->use_depth++] = tg;
    if (!strcmp(tg->name, "symbol")) {
        style_t ss;
        int inv = 0;
        if (compute_style(r, tg, st, &ss, &inv)) {
            double w = attr_len(r, n, "width", st, r->vp_w, -1), h = attr_len(r, n, "height", st, r->vp_h, -1);
            int ok = 0;
            mat vb = M(1, 0, 0, 1, 0, 0);
            if (w > 0 && h > 0) vb = viewbox_mat(svg_attr(tg, "viewBox"), svg_attr(tg, "preserveAspectRatio"), w, h, &ok);
            /* a symbol that names its character is a glyph */
            int g = r->in_glyph;
            unsigned cp = g ? 0 : svg_glyph_char(n, tg);
            if (cp) { r->in_glyph = 1; r->glyph_inst++; r->glyph_cp = cp; r->glyph_org = apply(m, (ir_pt){ 0, 0 }); r->glyph_use = n; }
            m = mul(m, vb);
            for (size_t i = 0; i < tg->nkids && !r->failed; i++) render_node(r, tg->kids[i], m, &ss, depth + 1);
            r->in_glyph = g;
        }
    } else {
        /* a <use> of a bare <path>: how dvisvgm (--no-fonts) and MathJax
         * draw letters; filled and unstroked, it is a glyph */
        int g = r->in_glyph;
        if (!strcmp(tg->name, "path") && !g) {
            r->in_glyph = 1;
            r->glyph_inst++;
            r->glyph_cp = svg_glyph_char(n, tg);
            r->glyph_org = apply(m, (ir_pt){ 0, 0 });
            r->glyph_use = n;
        }
        render_node(r, tg, m, st, depth + 1);
        r->in_glyph = g;
    }
    r->use_depth--;
}

static void render_kids(rstate *r, const svg_node *n, mat ctm, const style_t *st, int depth)
{
    for (size_t i = 0; i < n->nkids && !r->failed; i++) render_node(r, n->kids[i], ctm, st, depth + 1);
}

/* <switch> draws its first child element whose conditions hold
 * (requiredFeatures holds, as in SVG 2; requiredExtensions holds only when
 * empty; systemLanguage holds when it names English, the language
 * svg2graph reads). A chosen <foreignObject> is HTML laid out by CSS,
 * which svg2graph does not do: where a later child of the switch is a
 * <text> (draw.io's fallback for viewers without HTML), that is read
 * instead, the same words placed by SVG. */
static int switch_cond_ok(const svg_node *k)
{
    const char *ext = svg_attr(k, "requiredExtensions");
    if (ext && ext[strspn(ext, " \t\r\n")]) return 0;
    const char *lang = svg_attr(k, "systemLanguage");
    if (lang) {
        for (const char *p = lang; *p;) {
            p += strspn(p, " ,\t\r\n");
            if ((p[0] == 'e' || p[0] == 'E') && (p[1] == 'n' || p[1] == 'N') &&
                (!p[2] || p[2] == '-' || p[2] == ',' || p[2] == ' '))
                return 1;
            p += strcspn(p, ",");
        }
        return 0;
    }
    return 1;
}

static void render_switch(rstate *r, const svg_node *n, mat ctm, const style_t *st, int depth)
{
    for (size_t i = 0; i < n->nkids; i++) {
        const svg_node *k = n->kids[i];
        if (k->text || !switch_cond_ok(k)) continue;
        if (!strcmp(k->name, "foreignObject"))
            for (size_t j = i + 1; j < n->nkids; j++)
                if (!n->kids[j]->text && !strcmp(n->kids[j]->name, "text")) {
                    k = n->kids[j];
                    break;
                }
        render_node(r, k, ctm, st, depth + 1);
        return;
    }
}

static void render_node(rstate *r, const svg_node *n, mat ctm, const style_t *ps, int depth)
{
    if (r->failed || n->text || depth > 2000) return;
    const char *nm = n->name;
    if (skipped_container(nm)) return;
    style_t st;
    int invisible = 0;
    if (!compute_style(r, n, ps, &st, &invisible)) return;
    if (invisible) return;
    const char *tf = svg_attr(n, "transform");
    if (tf && strcmp(nm, "svg") != 0) {
        mat t;
        if (!parse_transform(tf, &t)) {
            fail(r, n, "malformed transform '%.60s'", tf);
            return;
        }
        ctm = mul(ctm, t);
    }
    int hidden = st.visibility && (!strcmp(st.visibility, "hidden") || !strcmp(st.visibility, "collapse"));
    if (!strcmp(nm, "switch")) {
        render_switch(r, n, ctm, &st, depth);
    } else if (!strcmp(nm, "g") || !strcmp(nm, "a")) {
        /* a group of paths only, labelled with a text: the text converted
         * to paths (Inkscape keeps it in aria-label) */
        const char *lab = svg_attr(n, "aria-label");
        int paths = !r->label_group && !r->in_glyph && !r->in_marker;
        size_t np = 0;
        for (size_t i = 0; i < n->nkids && paths; i++) {
            if (n->kids[i]->text) continue;
            paths = !strcmp(n->kids[i]->name, "path");
            np++;
        }
        /* without a label, a group of 3 or more paths that draws one line
         * of letters (svg_glyph_group_is_text) is text whose characters
         * are lost: counted for the warning, and no shapes of a diagram */
        if (paths && (lab && *lab ? np > 0 : np >= 3)) {
            if (r->nlabels == r->caplabels) {
                r->caplabels = r->caplabels ? 2 * r->caplabels : 16;
                r->labels = xrealloc(r->labels, r->caplabels * sizeof *r->labels);
            }
            r->labels[r->nlabels++] = lab && *lab ? lab : NULL;
            r->label_group = (unsigned)r->nlabels;
            size_t from = r->sc->nshapes;
            render_kids(r, n, ctm, &st, depth);
            r->label_group = 0;
            if (!(lab && *lab) && !svg_glyph_group_is_text(r->sc->shapes + from, r->sc->nshapes - from))
                for (size_t i = from; i < r->sc->nshapes; i++) {
                    svg_shape *s = &r->sc->shapes[i];
                    if (s->glyph_group) { s->glyph = 0; s->glyph_group = 0; }
                }
        } else if (!strcmp(nm, "g")) {
            /* the group, one object of the drawing as most producers
             * write it (svg_shape.group) */
            unsigned outer = r->group;
            r->group = ++r->ngroups;
            render_kids(r, n, ctm, &st, depth);
            r->group = outer;
        } else {
            render_kids(r, n, ctm, &st, depth);
        }
    } else if (!strcmp(nm, "svg")) {
        /* nested viewport */
        double x = attr_len(r, n, "x", &st, r->vp_w, 0), y = attr_len(r, n, "y", &st, r->vp_h, 0);
        double w = attr_len(r, n, "width", &st, r->vp_w, r->vp_w), h = attr_len(r, n, "height", &st, r->vp_h, r->vp_h);
        int ok;
        mat vb = viewbox_mat(svg_attr(n, "viewBox"), svg_attr(n, "preserveAspectRatio"), w, h, &ok);
        mat m = mul(mul(ctm, M(1, 0, 0, 1, x, y)), vb);
        double sw = r->vp_w, sh = r->vp_h;
        if (ok) {
            double *v = NULL;
            if (svg_parse_numbers(svg_attr(n, "viewBox"), &v) == 4) { r->vp_w = v[2]; r->vp_h = v[3]; }
            free(v);
        } else {
            r->vp_w = w;
            r->vp_h = h;
        }
        render_kids(r, n, m, &st, depth);
        r->vp_w = sw;
        r->vp_h = sh;
    } else if (!strcmp(nm, "use")) {
        render_use(r, n, &st, ctm, depth);
    } else if (!strcmp(nm, "text")) {
        if (!hidden) render_text(r, n, &st, ctm);
    } else if (!strcmp(nm, "foreignObject")) {
        if (!hidden) render_foreign(r, n, &st, ctm);
    } else if (!strcmp(nm, "rect") || !strcmp(nm, "circle") || !strcmp(nm, "ellipse") ||
               !strcmp(nm, "line") || !strcmp(nm, "polyline") || !strcmp(nm, "polygon") ||
               !strcmp(nm, "path")) {
        if (!hidden) render_shape(r, n, &st, ctm);
    }
}

int svg_render(const svg_doc *d, const char *fname, const svg_render_limits *lim, svg_scene *sc,
               char *err, size_t errsz, FILE *warn)
{
    rstate r;
    memset(&r, 0, sizeof r);
    r.doc = d;
    r.fname = fname;
    r.sc = sc;
    r.err = err;
    r.errsz = errsz;
    r.warn = warn;
    r.max_points = lim && lim->max_points ? lim->max_points : 4000000;
    r.max_items = lim && lim->max_items ? lim->max_items : 1000000;
    r.fonts = svg_fonts_read(d);
    const svg_node *root = d->root;
    style_t st0 = root_style();
    style_t st;
    int inv = 0;
    /* the root viewport: width/height in px, viewBox into it */
    double w = -1, h = -1;
    svg_length(svg_attr(root, "width"), 16, 0, &w);
    svg_length(svg_attr(root, "height"), 16, 0, &h);
    double *vb = NULL;
    long nvb = svg_attr(root, "viewBox") ? svg_parse_numbers(svg_attr(root, "viewBox"), &vb) : -1;
    int has_vb = nvb == 4 && vb[2] > 0 && vb[3] > 0;
    if (has_vb) {
        if (!(w > 0) && !(h > 0)) { w = vb[2]; h = vb[3]; }
        else if (!(w > 0)) w = h * vb[2] / vb[3];
        else if (!(h > 0)) h = w * vb[3] / vb[2];
    }
    if (!(w > 0)) w = 300;
    if (!(h > 0)) h = 150;
    mat ctm = M(0.75, 0, 0, -0.75, 0, 0); /* px -> pt, y up */
    if (has_vb) {
        int ok;
        ctm = mul(ctm, viewbox_mat(svg_attr(root, "viewBox"), svg_attr(root, "preserveAspectRatio"), w, h, &ok));
        r.vp_w = vb[2];
        r.vp_h = vb[3];
    } else {
        r.vp_w = w;
        r.vp_h = h;
    }
    free(vb);
    sc->extent = ir_box_make(0, -0.75 * h, 0.75 * w, 0);
    if (compute_style(&r, root, &st0, &st, &inv) && !inv) {
        const char *tf = svg_attr(root, "transform");
        mat t;
        if (tf && parse_transform(tf, &t)) ctm = mul(ctm, t);
        render_kids(&r, root, ctm, &st, 0);
    }
    if (!r.failed) join_drawn_arms(sc);
    /* letters drawn as outlines: texts read back where the SVG names the
     * characters, and a warning either way */
    if (!r.failed) {
        svg_glyph_stats gs;
        svg_glyph_texts(sc, r.labels, r.nlabels, &gs);
        if (warn && gs.ntexts && (gs.nglyphs >= 3 || gs.nrecovered)) {
            const char *hint = "(dvisvgm: convert without --no-fonts; an editor: keep text as text)";
            fprintf(warn, "%s:%d:%d: warning: %zu text%s drawn as glyph outlines (%zu glyphs): ", fname, gs.line,
                    gs.col, gs.ntexts, gs.ntexts == 1 ? "" : "s", gs.nglyphs);
            if (gs.nrecovered == gs.ntexts)
                fprintf(warn, "read back from the glyphs' names or labels\n");
            else if (!gs.nrecovered)
                fprintf(warn, "the characters are not in the SVG, so their nodes have no text %s\n", hint);
            else
                fprintf(warn, "%zu read back from the glyphs' names or labels; the characters of the other %zu are "
                              "not in the SVG, so their nodes have no text %s\n",
                        gs.nrecovered, gs.ntexts - gs.nrecovered, hint);
        }
    }
    free(r.labels);
    svg_fonts_free(r.fonts);
    for (size_t i = 0; i < r.nowned; i++) free(r.owned[i]);
    free(r.owned);
    return r.failed ? -1 : 0;
}

void svg_scene_free(svg_scene *sc)
{
    for (size_t i = 0; i < sc->nshapes; i++) shape_free(&sc->shapes[i]);
    for (size_t i = 0; i < sc->ntexts; i++) free(sc->texts[i].text);
    free(sc->shapes);
    free(sc->texts);
    memset(sc, 0, sizeof *sc);
}
