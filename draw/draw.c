/* draw.c — a diagram of the IR as one SVG document (see draw.h).
 *
 * Coordinates: the SVG user unit is the TeX point, x right, y down; an IR
 * point (x, y) is written as (x, -y). The viewBox is the diagram's bbox
 * record (or the union of its elements' boxes) grown by the margin; a
 * findings panel, when there is one, extends the canvas below (and to the
 * right when the picture is narrow), never above or to the left, so that
 * the picture's mapping to the canvas stays the same.
 *
 * Every number is written by db_num: rounded to 3 decimals, clamped to
 * +-1e9, no exponent, locale-independent; so the same diagram always gives
 * the same bytes, and no renderer sees inf or nan.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "draw/draw_internal.h"
#include "grammar/textmetrics.h"
#include "ir/xalloc.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define NUM_MAX 1e9
#define DEFAULT_MARGIN 4.0
#define DEFAULT_LW 0.4
/* Arrow tips: Stealth, 3mm long and 2mm wide (what the raters saw). */
#define TIP_LEN (3.0 * 72.27 / 25.4)
#define TIP_WID (2.0 * 72.27 / 25.4)
#define TIP_INSET 0.325
/* Beyond this extent (pt) a dashed line is drawn solid: a renderer would
 * otherwise make millions of dashes. */
#define DASH_MAX_EXTENT 1e5
/* Nested clips without an id (in force for all later elements). */
#define MAX_GLOBAL_CLIPS 32
/* Clips nested in clips (clip records with clip=): levels drawn. */
#define MAX_CLIP_DEPTH 8
/* Outlines of findings per element. */
#define MAX_OUTLINES 3
/* Text drawn of one text element: lines, and bytes a line (a label
 * longer than this is no label; the renderer's work stays bounded). */
#define TEXT_MAX_LINES 200
#define TEXT_MAX_LINE 1000
#define PANEL_FONT 9.0
#define PANEL_LINE 12.0
#define PANEL_CHAR 0.47 /* mean advance of Open Sans, em */
#define PANEL_MIN_WIDTH 320.0

/* --- output buffer ----------------------------------------------------- */

void db_put(dbuf *b, const char *s, size_t n)
{
    if (n > b->cap - b->n) {
        size_t cap = b->cap ? b->cap : 8192;
        while (n > cap - b->n) cap *= 2;
        b->p = xrealloc(b->p, cap);
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

void db_puts(dbuf *b, const char *s) { db_put(b, s, strlen(s)); }

void db_free(dbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

static void db_c(dbuf *b, char c) { db_put(b, &c, 1); }

static double clampnum(double v)
{
    if (!(v == v)) return 0;
    if (v > NUM_MAX) return NUM_MAX;
    if (v < -NUM_MAX) return -NUM_MAX;
    return v;
}

/* v rounded to 3 decimals, trailing zeros dropped, never "-0". */
static void db_num(dbuf *b, double v)
{
    long long m = llround(clampnum(v) * 1000.0);
    char tmp[40];
    int k = (int)sizeof tmp;
    if (m == 0) { db_c(b, '0'); return; }
    int neg = m < 0;
    unsigned long long u = neg ? (unsigned long long)(-m) : (unsigned long long)m;
    unsigned frac = (unsigned)(u % 1000);
    u /= 1000;
    if (frac) {
        int digits[3] = {(int)(frac / 100), (int)(frac / 10 % 10), (int)(frac % 10)};
        int last = 2;
        while (digits[last] == 0) last--;
        for (int i = last; i >= 0; i--) tmp[--k] = (char)('0' + digits[i]);
        tmp[--k] = '.';
    }
    do tmp[--k] = (char)('0' + u % 10); while ((u /= 10) > 0);
    if (neg) tmp[--k] = '-';
    db_put(b, tmp + k, sizeof tmp - (size_t)k);
}

static void db_int(dbuf *b, long v) { db_num(b, (double)v); }

/* " name=\"v\"" */
static void db_attr_num(dbuf *b, const char *name, double v)
{
    db_c(b, ' ');
    db_puts(b, name);
    db_puts(b, "=\"");
    db_num(b, v);
    db_c(b, '"');
}

static void db_attr(dbuf *b, const char *name, const char *v)
{
    db_c(b, ' ');
    db_puts(b, name);
    db_puts(b, "=\"");
    db_puts(b, v);
    db_c(b, '"');
}

/* Appends s[0..n) as XML character data or attribute value: & < > " '
 * escaped; bytes that are not valid UTF-8, control characters and the
 * non-characters XML forbids become U+FFFD (tabs and newlines a space). */
static void db_xml_n(dbuf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    static const char repl[] = "\xEF\xBF\xBD";
    while (p < end) {
        const unsigned char *run = p;
        while (p < end && *p >= 0x20 && *p < 0x7F && *p != '&' && *p != '<' && *p != '>' &&
               *p != '"' && *p != '\'')
            p++;
        if (p > run) db_put(b, (const char *)run, (size_t)(p - run));
        if (p >= end) break;
        unsigned c = *p;
        if (c < 0x80) {
            switch (c) {
            case '&': db_puts(b, "&amp;"); break;
            case '<': db_puts(b, "&lt;"); break;
            case '>': db_puts(b, "&gt;"); break;
            case '"': db_puts(b, "&quot;"); break;
            case '\'': db_puts(b, "&#39;"); break;
            case '\t': case '\n': case '\r': db_c(b, ' '); break;
            default: db_puts(b, repl); break;
            }
            p++;
            continue;
        }
        /* a multi-byte sequence */
        int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
        if (c > 0xF4) len = 0;
        unsigned cp = 0;
        int ok = len > 0 && (size_t)(end - p) >= (size_t)len;
        if (ok) {
            cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
            for (int i = 1; i < len; i++) {
                if ((p[i] & 0xC0) != 0x80) { ok = 0; break; }
                cp = (cp << 6) | (p[i] & 0x3F);
            }
        }
        if (ok) {
            if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
                (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF ||
                (cp >= 0x80 && cp <= 0x9F))
                ok = 0;
        }
        if (ok) {
            db_put(b, (const char *)p, (size_t)len);
            p += len;
        } else {
            db_puts(b, repl);
            p++;
        }
    }
}

static void db_xml(dbuf *b, const char *s) { if (s) db_xml_n(b, s, strlen(s)); }

/* --- colours ------------------------------------------------------------- */

typedef struct {
    double r, g, b;
} rgb;

static const struct {
    const char *name;
    unsigned char r, g, b;
} named_colors[] = {
    /* xcolor's base colours */
    {"black", 0, 0, 0}, {"white", 255, 255, 255}, {"red", 255, 0, 0}, {"green", 0, 255, 0},
    {"blue", 0, 0, 255}, {"cyan", 0, 255, 255}, {"magenta", 255, 0, 255},
    {"yellow", 255, 255, 0}, {"gray", 128, 128, 128}, {"darkgray", 64, 64, 64},
    {"lightgray", 191, 191, 191}, {"brown", 191, 128, 64}, {"lime", 191, 255, 0},
    {"olive", 128, 128, 0}, {"orange", 255, 128, 0}, {"pink", 255, 191, 191},
    {"purple", 191, 0, 64}, {"teal", 0, 128, 128}, {"violet", 128, 0, 128},
    /* the IM class's (tests/data/diagramir-dev/README.md) */
    {"Yellow", 255, 184, 28}, {"Green", 67, 176, 42}, {"Blue", 0, 149, 200},
    {"Red", 224, 60, 49}, {"LYellow", 255, 215, 145}, {"LGreen", 170, 215, 165},
    {"LBlue", 125, 206, 235}, {"LRed", 249, 172, 147}, {"PBlue", 0, 0, 255},
    {"PGreen", 22, 170, 4}, {"PYellow", 255, 255, 12}, {"PRed", 251, 0, 6},
    {"POrange", 253, 134, 9},
};

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A colour name s[0..n): xcolor's names, the IM class's, #rrggbb. */
static int color_name(const char *s, size_t n, rgb *out)
{
    while (n && *s == ' ') { s++; n--; }
    while (n && s[n - 1] == ' ') n--;
    if (n == 7 && s[0] == '#') {
        int v[6];
        for (int i = 0; i < 6; i++)
            if ((v[i] = hexval((unsigned char)s[i + 1])) < 0) return 0;
        out->r = (v[0] * 16 + v[1]) / 255.0;
        out->g = (v[2] * 16 + v[3]) / 255.0;
        out->b = (v[4] * 16 + v[5]) / 255.0;
        return 1;
    }
    for (size_t i = 0; i < sizeof named_colors / sizeof named_colors[0]; i++)
        if (strlen(named_colors[i].name) == n && !memcmp(named_colors[i].name, s, n)) {
            out->r = named_colors[i].r / 255.0;
            out->g = named_colors[i].g / 255.0;
            out->b = named_colors[i].b / 255.0;
            return 1;
        }
    return 0;
}

/* "rgb,255:red,R;green,G;blue,B" (and rgb,1:, rgb: with weights) */
static int color_rgb_model(const char *s, rgb *out)
{
    double scale = 1;
    if (!strncmp(s, "rgb,", 4)) {
        char *end;
        scale = strtod(s + 4, &end);
        if (end == s + 4 || *end != ':' || !(scale > 0)) return 0;
        s = end + 1;
    } else if (!strncmp(s, "rgb:", 4)) {
        scale = 0; /* weights: normalised by their sum */
        s += 4;
    } else {
        return 0;
    }
    rgb acc = {0, 0, 0};
    double wsum = 0;
    while (*s) {
        const char *comma = strchr(s, ',');
        if (!comma) return 0;
        rgb c;
        if (!color_name(s, (size_t)(comma - s), &c)) return 0;
        char *end;
        double w = strtod(comma + 1, &end);
        if (end == comma + 1 || !(w == w)) return 0;
        acc.r += w * c.r;
        acc.g += w * c.g;
        acc.b += w * c.b;
        wsum += w;
        s = end;
        if (*s == ';') s++;
        else if (*s) return 0;
    }
    double k = scale > 0 ? 1 / scale : (wsum > 0 ? 1 / wsum : 0);
    out->r = acc.r * k;
    out->g = acc.g * k;
    out->b = acc.b * k;
    return 1;
}

/* xcolor expressions: NAME, NAME!P (P% of NAME, the rest white),
 * NAME!P!NAME2, NAME!P!NAME2!P2..., a leading '-' (the complement);
 * #rrggbb; rgb,N:... Returns 0 for what it does not know. */
static int parse_color(const char *s, rgb *out)
{
    if (!s) return 0;
    if (!strncmp(s, "rgb", 3)) return color_rgb_model(s, out);
    int complement = 0;
    while (*s == '-') { complement = !complement; s++; }
    const char *bang = strchr(s, '!');
    size_t n = bang ? (size_t)(bang - s) : strlen(s);
    rgb cur;
    if (!color_name(s, n, &cur)) return 0;
    while (bang) {
        s = bang + 1;
        char *end;
        double p = strtod(s, &end);
        if (end == s || !(p == p)) return 0;
        if (p < 0) p = 0;
        if (p > 100) p = 100;
        s = end;
        rgb other = {1, 1, 1};
        bang = NULL;
        if (*s == '!') {
            s++;
            bang = strchr(s, '!');
            n = bang ? (size_t)(bang - s) : strlen(s);
            if (!color_name(s, n, &other)) return 0;
        } else if (*s) {
            return 0;
        }
        double k = p / 100;
        cur.r = k * cur.r + (1 - k) * other.r;
        cur.g = k * cur.g + (1 - k) * other.g;
        cur.b = k * cur.b + (1 - k) * other.b;
    }
    if (complement) {
        cur.r = 1 - cur.r;
        cur.g = 1 - cur.g;
        cur.b = 1 - cur.b;
    }
    *out = cur;
    return 1;
}

static int chan(double v)
{
    if (!(v > 0)) return 0;
    if (v >= 1) return 255;
    return (int)lround(v * 255);
}

/* "#rrggbb" of the IR colour value s into buf (8 bytes); unknown colours
 * are black (TeX would stop). Returns 0 when s is none. */
static int color_hex(const char *s, char *buf)
{
    if (s && !strcmp(s, "none")) return 0;
    rgb c = {0, 0, 0};
    if (!parse_color(s, &c)) c.r = c.g = c.b = 0;
    static const char hx[] = "0123456789abcdef";
    int v[3] = {chan(c.r), chan(c.g), chan(c.b)};
    buf[0] = '#';
    for (int i = 0; i < 3; i++) {
        buf[1 + 2 * i] = hx[v[i] >> 4];
        buf[2 + 2 * i] = hx[v[i] & 15];
    }
    buf[7] = '\0';
    return 1;
}

/* --- criteria's colours ---------------------------------------------- */

/* Okabe & Ito's colour-blind-safe palette (without its yellow and black,
 * which do not show as outlines on white and black drawings), with Tol's
 * wine and olive for the last two. */
static const char *const palette[8] = {"#e69f00", "#56b4e9", "#009e73", "#cc79a7",
                                       "#0072b2", "#d55e00", "#882255", "#999933"};
static const char *const geom_criteria[8] = {"angle-labels",      "length-proportions",
                                             "in-frame",          "readable-size",
                                             "label-association", "no-overlap",
                                             "shape-closed",      "core-math"};

static uint32_t fnv1a(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

const char *draw_criterion_color(const char *criterion)
{
    if (!criterion) criterion = "";
    for (int i = 0; i < 8; i++)
        if (!strcmp(criterion, geom_criteria[i])) return palette[i];
    return palette[fnv1a(criterion, strlen(criterion)) % 8];
}

void draw_opts_init(draw_opts *o)
{
    memset(o, 0, sizeof *o);
    o->findings = 1;
    o->all_findings = 0;
    o->fragment = 0;
    o->margin = -1;
    o->scale = 0;
}

/* --- a string -> index map (clip ids, vertex names) ---------------------- */

typedef struct {
    const char **keys;
    size_t *vals;
    size_t cap, n;
} smap;

static void smap_free(smap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

static size_t smap_slot(const smap *m, const char *k)
{
    size_t i = fnv1a(k, strlen(k)) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], k)) i = (i + 1) & (m->cap - 1);
    return i;
}

static void smap_set(smap *m, const char *k, size_t v)
{
    if (2 * (m->n + 1) > m->cap) {
        smap old = *m;
        m->cap = old.cap ? old.cap * 2 : 16;
        m->keys = xcalloc(m->cap, sizeof *m->keys);
        m->vals = xcalloc(m->cap, sizeof *m->vals);
        m->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.keys[i]) {
                size_t s = smap_slot(m, old.keys[i]);
                m->keys[s] = old.keys[i];
                m->vals[s] = old.vals[i];
                m->n++;
            }
        free(old.keys);
        free(old.vals);
    }
    size_t s = smap_slot(m, k);
    if (!m->keys[s]) {
        m->keys[s] = k;
        m->n++;
    }
    m->vals[s] = v;
}

static int smap_get(const smap *m, const char *k, size_t *v)
{
    if (!m->cap || !k) return 0;
    size_t s = smap_slot(m, k);
    if (!m->keys[s]) return 0;
    *v = m->vals[s];
    return 1;
}

/* --- geometry ---------------------------------------------------------- */

typedef struct {
    double x, y;
} vec;

static vec V(double x, double y)
{
    vec v = {x, y};
    return v;
}

/* de Casteljau: the cubic q split at t into l (the part [0, t]) and r
 * ([t, 1]). */
static void bez_split(const vec q[4], double t, vec l[4], vec r[4])
{
    vec a1 = V(q[0].x + (q[1].x - q[0].x) * t, q[0].y + (q[1].y - q[0].y) * t);
    vec b1 = V(q[1].x + (q[2].x - q[1].x) * t, q[1].y + (q[2].y - q[1].y) * t);
    vec c1 = V(q[2].x + (q[3].x - q[2].x) * t, q[2].y + (q[3].y - q[2].y) * t);
    vec a2 = V(a1.x + (b1.x - a1.x) * t, a1.y + (b1.y - a1.y) * t);
    vec b2 = V(b1.x + (c1.x - b1.x) * t, b1.y + (c1.y - b1.y) * t);
    vec a3 = V(a2.x + (b2.x - a2.x) * t, a2.y + (b2.y - a2.y) * t);
    l[0] = q[0], l[1] = a1, l[2] = a2, l[3] = a3;
    r[0] = a3, r[1] = b2, r[2] = c1, r[3] = q[3];
}

static double vlen(vec a) { return hypot(a.x, a.y); }

/* A point in SVG coordinates: "x y" with y negated. */
static void db_pt(dbuf *b, vec p)
{
    db_num(b, p.x);
    db_c(b, ' ');
    db_num(b, -p.y);
}

/* A tip at the end q[3] of a cubic: its place and direction (the last
 * control point that differs from the end gives it), and the curve cut
 * back by shorten pt (at most half of it) for the tip to cover. */
static void curve_tip(vec q[4], double shorten, vec *tp, vec *td)
{
    vec d = V(q[3].x - q[2].x, q[3].y - q[2].y);
    if (vlen(d) == 0) d = V(q[3].x - q[1].x, q[3].y - q[1].y);
    if (vlen(d) == 0) d = V(q[3].x - q[0].x, q[3].y - q[0].y);
    *tp = q[3];
    *td = d;
    double sp = 3 * vlen(V(q[3].x - q[2].x, q[3].y - q[2].y));
    if (sp > 0 && isfinite(sp)) {
        vec l[4], r[4];
        bez_split(q, 1 - fmin(shorten / sp, 0.5), l, r);   /* keep the part before the cut */
        memcpy(q, l, sizeof l);
    }
}

/* The x, y, width and height attributes of an SVG rect (SVG coordinates). */
static void db_xywh(dbuf *b, double x, double y, double w, double h)
{
    db_attr_num(b, "x", x);
    db_attr_num(b, "y", y);
    db_attr_num(b, "width", w);
    db_attr_num(b, "height", h);
}

static void db_M(dbuf *b, vec p) { db_c(b, 'M'); db_pt(b, p); }
static void db_L(dbuf *b, vec p) { db_c(b, 'L'); db_pt(b, p); }
static void db_C(dbuf *b, vec p1, vec p2, vec p3)
{
    db_c(b, 'C');
    db_pt(b, p1);
    db_c(b, ' ');
    db_pt(b, p2);
    db_c(b, ' ');
    db_pt(b, p3);
}

static vec ell_pt(vec c, vec a, vec bb, double t)
{
    return V(c.x + a.x * cos(t) + bb.x * sin(t), c.y + a.y * cos(t) + bb.y * sin(t));
}

static vec ell_d(vec a, vec bb, double t)
{
    return V(-a.x * sin(t) + bb.x * cos(t), -a.y * sin(t) + bb.y * cos(t));
}

/* The elliptic arc from t0 to t1 (radians, |t1 - t0| <= 2 pi) as cubic
 * Beziers of at most 90 degrees each; with move, starts with M. */
static void db_arc(dbuf *b, vec c, vec a, vec bb, double t0, double t1, int move)
{
    double span = t1 - t0;
    int nseg = (int)ceil(fabs(span) / (M_PI / 2) - 1e-9);
    if (nseg < 1) nseg = 1;
    if (nseg > 4) nseg = 4;
    double h = span / nseg;
    double k = 4.0 / 3.0 * tan(h / 4);
    vec p = ell_pt(c, a, bb, t0);
    if (move) db_M(b, p);
    for (int i = 0; i < nseg; i++) {
        double ta = t0 + h * i, tb = (i == nseg - 1) ? t1 : t0 + h * (i + 1);
        vec da = ell_d(a, bb, ta), dbv = ell_d(a, bb, tb);
        vec q = ell_pt(c, a, bb, tb);
        db_C(b, V(p.x + k * da.x, p.y + k * da.y), V(q.x - k * dbv.x, q.y - k * dbv.y), q);
        p = q;
    }
}

/* --- styles ------------------------------------------------------------ */

typedef struct {
    int stroke, fill;
    char scol[8], fcol[8];
    double lw;
    double opacity, sop, fop;
} style;

static double attr_num(const ir_elem *e, const char *key, double dflt, double lo, double hi)
{
    double v = ir_elem_getnum(e, key, dflt);
    if (!(v == v)) v = dflt;
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    return v;
}

static void get_style(const ir_elem *e, style *s, int default_stroke)
{
    const char *dr = ir_elem_get(e, "draw"), *fi = ir_elem_get(e, "fill");
    if (dr) s->stroke = color_hex(dr, s->scol);
    else if ((s->stroke = default_stroke)) strcpy(s->scol, "#000000");
    s->fill = fi ? color_hex(fi, s->fcol) : 0;
    s->lw = attr_num(e, "lw", DEFAULT_LW, 0, 1e4);
    s->opacity = attr_num(e, "opacity", 1, 0, 1);
    s->sop = attr_num(e, "draw-opacity", 1, 0, 1);
    s->fop = attr_num(e, "fill-opacity", 1, 0, 1);
}

/* The dash array of dash= at line width lw (TikZ's patterns, from
 * tikz.code.tex): 0 when solid, else the number of entries in out[8]. */
static int dash_pattern(const char *d, double lw, double out[8])
{
    static const struct {
        const char *name;
        int n;
        double v[6]; /* -1: the line width */
    } pats[] = {
        {"dotted", 2, {-1, 2}},
        {"densely dotted", 2, {-1, 1}},
        {"loosely dotted", 2, {-1, 4}},
        {"dashed", 2, {3, 3}},
        {"densely dashed", 2, {3, 2}},
        {"loosely dashed", 2, {3, 6}},
        {"dashdotted", 4, {3, 2, -1, 2}},
        {"dash dot", 4, {3, 2, -1, 2}},
        {"densely dashdotted", 4, {3, 1, -1, 1}},
        {"densely dash dot", 4, {3, 1, -1, 1}},
        {"loosely dashdotted", 4, {3, 4, -1, 4}},
        {"loosely dash dot", 4, {3, 4, -1, 4}},
        {"dashdotdotted", 6, {3, 2, -1, 2, -1, 2}},
        {"dash dot dot", 6, {3, 2, -1, 2, -1, 2}},
        {"densely dashdotdotted", 6, {3, 1, -1, 1, -1, 1}},
        {"densely dash dot dot", 6, {3, 1, -1, 1, -1, 1}},
        {"loosely dashdotdotted", 6, {3, 4, -1, 4, -1, 4}},
        {"loosely dash dot dot", 6, {3, 4, -1, 4, -1, 4}},
    };
    if (!d || !strcmp(d, "solid")) return 0;
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++)
        if (!strcmp(d, pats[i].name)) {
            for (int k = 0; k < pats[i].n; k++) out[k] = pats[i].v[k] < 0 ? lw : pats[i].v[k];
            return pats[i].n;
        }
    /* "on 2pt off 1pt ..." */
    int n = 0;
    const char *s = d;
    while (*s && n < 8) {
        while (*s == ' ') s++;
        if (!strncmp(s, "on", 2) || !strncmp(s, "off", 3)) {
            int on = s[1] == 'n';
            if (on != !(n % 2)) return 0;
            s += on ? 2 : 3;
            char *end;
            double v = strtod(s, &end);
            if (end == s || !(v >= 0) || v > 1e4) return 0;
            s = end;
            if (!strncmp(s, "pt", 2)) s += 2;
            out[n++] = v;
        } else if (*s) {
            return 0;
        }
    }
    if (n % 2) return 0;
    double sum = 0;
    for (int k = 0; k < n; k++) sum += out[k];
    return sum > 0.01 ? n : 0;
}

/* The stroke and fill attributes of an element. */
static void db_style(dbuf *b, const ir_elem *e, const style *s, double extent)
{
    if (s->fill) {
        db_attr(b, "fill", s->fcol);
        if (s->fop < 1) db_attr_num(b, "fill-opacity", s->fop);
    }
    if (s->stroke) {
        db_attr(b, "stroke", s->scol);
        if (s->lw != 1) db_attr_num(b, "stroke-width", s->lw);
        if (s->sop < 1) db_attr_num(b, "stroke-opacity", s->sop);
        double pat[8];
        int n = extent <= DASH_MAX_EXTENT ? dash_pattern(ir_elem_get(e, "dash"), s->lw, pat) : 0;
        if (n) {
            db_puts(b, " stroke-dasharray=\"");
            for (int k = 0; k < n; k++) {
                if (k) db_c(b, ' ');
                db_num(b, pat[k]);
            }
            db_c(b, '"');
        }
    }
    if (s->opacity < 1) db_attr_num(b, "opacity", s->opacity);
}

/* --- arrow tips ------------------------------------------------------ */

/* Which ends have tips: bit 1 the end, bit 2 the start. */
static int arrow_ends(const ir_elem *e)
{
    const char *a = ir_elem_get(e, "arrows");
    if (!a) return 0;
    const char *dash = strchr(a, '-');
    if (!dash) return 0;
    int r = 0;
    if (dash > a) r |= 2;
    if (dash[1]) r |= 1;
    return r;
}

/* A Stealth tip with its point at p, pointing along dir. */
static void db_tip(dbuf *b, vec p, vec dir, const style *s)
{
    double l = vlen(dir);
    if (!(l > 0) || !isfinite(l)) return;
    vec u = V(dir.x / l, dir.y / l), n = V(-u.y, u.x);
    vec back = V(p.x - u.x * TIP_LEN, p.y - u.y * TIP_LEN);
    vec w1 = V(back.x + n.x * TIP_WID / 2, back.y + n.y * TIP_WID / 2);
    vec w2 = V(back.x - n.x * TIP_WID / 2, back.y - n.y * TIP_WID / 2);
    vec in = V(p.x - u.x * TIP_LEN * (1 - TIP_INSET), p.y - u.y * TIP_LEN * (1 - TIP_INSET));
    db_puts(b, "<path d=\"");
    db_M(b, p);
    db_L(b, w1);
    db_L(b, in);
    db_L(b, w2);
    db_puts(b, "Z\"");
    db_attr(b, "fill", s->scol);
    if (s->sop < 1) db_attr_num(b, "fill-opacity", s->sop);
    if (s->opacity < 1) db_attr_num(b, "opacity", s->opacity);
    db_puts(b, "/>\n");
}

/* How far a line of width lw is shortened under a tip (it ends inside
 * the tip): as PGF's Stealth (arrows.meta, mitred), the tip's end less its
 * line end, which is the inset plus the inset's miter less a quarter of
 * the arrow's line width (the line's, at most a quarter of length minus
 * inset). 5.31pt at 1pt: where the dashes of a dashed line start. */
static double tip_shorten(double lw)
{
    double inset = TIP_INSET * TIP_LEN;
    double alw = fmin(lw, 0.25 * (TIP_LEN - inset));
    double q = inset / TIP_WID;
    return TIP_LEN - (inset + 0.5 * alw * sqrt(1 + 4 * q * q) - 0.25 * alw);
}

/* --- shapes ------------------------------------------------------------ */

/* The path data of a shape element (poly, rect, ellipse, arc, curve;
 * clip's shape). Tips: which ends are shortened (arrow_ends). The tips'
 * points and directions are returned in tip_p/tip_d ([0] end, [1] start). */
static void shape_path(dbuf *b, const ir_elem *e, ir_kind kind, int tips, vec tip_p[2],
                       vec tip_d[2])
{
    const ir_pt *p = e->pts;
    size_t n = e->npts;
    const double shorten = tips ? tip_shorten(attr_num(e, "lw", DEFAULT_LW, 0, 1e4)) : 0;
    switch (kind) {
    case IR_POLY: {
        if (n == 0) return;
        double r = attr_num(e, "rounded", 0, 0, 1e4);
        if (r > 0.5 && n >= 3 && !tips) {
            /* rounded corners: each corner cut by r (at most half of the
             * neighbouring sides) and joined by a quadratic curve */
            int closed = e->closed;
            for (size_t i = 0; i < n; i++) {
                vec c = V(p[i].x, p[i].y);
                int corner = closed || (i > 0 && i + 1 < n);
                if (!corner) {
                    if (i == 0) db_M(b, c);
                    else db_L(b, c);
                    continue;
                }
                vec pv = V(p[(i + n - 1) % n].x, p[(i + n - 1) % n].y);
                vec nx = V(p[(i + 1) % n].x, p[(i + 1) % n].y);
                vec d1 = V(pv.x - c.x, pv.y - c.y), d2 = V(nx.x - c.x, nx.y - c.y);
                double l1 = vlen(d1), l2 = vlen(d2);
                double r1 = fmin(r, l1 / 2), r2 = fmin(r, l2 / 2);
                vec q1 = l1 > 0 && isfinite(l1) ? V(c.x + d1.x / l1 * r1, c.y + d1.y / l1 * r1) : c;
                vec q2 = l2 > 0 && isfinite(l2) ? V(c.x + d2.x / l2 * r2, c.y + d2.y / l2 * r2) : c;
                if (i == 0) db_M(b, q1);
                else db_L(b, q1);
                db_c(b, 'Q');
                db_pt(b, c);
                db_c(b, ' ');
                db_pt(b, q2);
            }
            if (closed) db_c(b, 'Z');
            return;
        }
        /* with tips, the ends move back along the last segment of non-zero
         * length (and the repeated end points with them) */
        vec z = V(p[n - 1].x, p[n - 1].y), a = V(p[0].x, p[0].y);
        size_t zj = n, aj = 0; /* p[zj..n) become z, p[0..aj] become a */
        if (!e->closed && (tips & 1)) {
            size_t j = n - 1;
            while (j > 0 && p[j - 1].x == p[n - 1].x && p[j - 1].y == p[n - 1].y) j--;
            if (j > 0) {
                vec d = V(p[n - 1].x - p[j - 1].x, p[n - 1].y - p[j - 1].y);
                double l = vlen(d), s = l < shorten ? l : shorten;
                tip_p[0] = z;
                tip_d[0] = d;
                if (l > 0 && isfinite(l)) z = V(z.x - d.x / l * s, z.y - d.y / l * s);
                zj = j;
            }
        }
        if (!e->closed && (tips & 2)) {
            size_t j = 0;
            while (j + 1 < n && p[j + 1].x == p[0].x && p[j + 1].y == p[0].y) j++;
            if (j + 1 < n) {
                vec d = V(p[0].x - p[j + 1].x, p[0].y - p[j + 1].y);
                double l = vlen(d), s = l < shorten ? l : shorten;
                tip_p[1] = a;
                tip_d[1] = d;
                if (l > 0 && isfinite(l)) a = V(a.x - d.x / l * s, a.y - d.y / l * s);
                aj = j;
            }
        }
        for (size_t i = 0; i < n; i++) {
            vec q = i >= zj ? z : i <= aj ? a : V(p[i].x, p[i].y);
            if (i == 0) db_M(b, q);
            else db_L(b, q);
        }
        if (e->closed) db_c(b, 'Z');
        else if (n == 1 || (n == 2 && p[0].x == p[1].x && p[0].y == p[1].y)) db_puts(b, "h0");
        return;
    }
    case IR_RECT: {
        if (n < 2) return;
        double x1 = fmin(p[0].x, p[1].x), x2 = fmax(p[0].x, p[1].x);
        double y1 = fmin(p[0].y, p[1].y), y2 = fmax(p[0].y, p[1].y);
        /* as TeX's rectangles come out of the PDF's re operator (drawn
         * by Ghostscript and poppler alike): from the lower-left corner
         * up first, which decides where the dashes fall */
        db_M(b, V(x1, y1));
        db_L(b, V(x1, y2));
        db_L(b, V(x2, y2));
        db_L(b, V(x2, y1));
        db_c(b, 'Z');
        return;
    }
    case IR_ELLIPSE:
    case IR_ARC: {
        if (n < 3) return;
        vec c = V(p[0].x, p[0].y), a = V(p[1].x, p[1].y), bb = V(p[2].x, p[2].y);
        if (kind == IR_ELLIPSE || !(fabs(e->t2 - e->t1) < 360)) {
            db_arc(b, c, a, bb, 0, 2 * M_PI, 1);
            db_c(b, 'Z');
            return;
        }
        double t1 = e->t1 * M_PI / 180, t2 = e->t2 * M_PI / 180;
        double dir = t2 >= t1 ? 1 : -1;
        if (tips & 1) {
            vec d = ell_d(a, bb, t2);
            double sp = vlen(d);
            tip_p[0] = ell_pt(c, a, bb, t2);
            tip_d[0] = V(d.x * dir, d.y * dir);
            if (sp > 0 && isfinite(sp)) {
                double dt = fmin(shorten / sp, fabs(t2 - t1) / 2);
                t2 -= dir * dt;
            }
        }
        if (tips & 2) {
            vec d = ell_d(a, bb, t1);
            double sp = vlen(d);
            tip_p[1] = ell_pt(c, a, bb, t1);
            tip_d[1] = V(-d.x * dir, -d.y * dir);
            if (sp > 0 && isfinite(sp)) {
                double dt = fmin(shorten / sp, fabs(t2 - t1) / 2);
                t1 += dir * dt;
            }
        }
        db_arc(b, c, a, bb, t1, t2, 1);
        return;
    }
    case IR_CURVE: {
        if (n < 4) return;
        vec q[4];
        for (int i = 0; i < 4; i++) q[i] = V(p[i].x, p[i].y);
        if (tips & 1) curve_tip(q, shorten, &tip_p[0], &tip_d[0]);
        if (tips & 2) {   /* the same at the start: on the curve run backwards */
            vec r[4] = {q[3], q[2], q[1], q[0]};
            curve_tip(r, shorten, &tip_p[1], &tip_d[1]);
            for (int i = 0; i < 4; i++) q[i] = r[3 - i];
        }
        db_M(b, q[0]);
        db_C(b, q[1], q[2], q[3]);
        return;
    }
    default:
        return;
    }
}

static int is_shape(ir_kind k)
{
    return k == IR_POLY || k == IR_RECT || k == IR_ELLIPSE || k == IR_ARC || k == IR_CURVE;
}

static double box_extent(ir_box bx)
{
    if (bx.empty) return 0;
    double w = bx.x2 - bx.x1, h = bx.y2 - bx.y1;
    double m = w > h ? w : h;
    return isfinite(m) ? m : HUGE_VAL;
}

static void draw_shape(dbuf *b, const ir_elem *e)
{
    style s;
    get_style(e, &s, 1);
    if (!s.stroke && !s.fill) return;
    int tips = 0;
    if (s.stroke && e->kind != IR_RECT && e->kind != IR_ELLIPSE && !(e->kind == IR_POLY && e->closed))
        tips = arrow_ends(e);
    if (e->kind == IR_ARC && !(fabs(e->t2 - e->t1) < 360)) tips = 0;
    vec tip_p[2] = {{0, 0}, {0, 0}}, tip_d[2] = {{0, 0}, {0, 0}};
    db_puts(b, "<path d=\"");
    shape_path(b, e, e->kind, tips, tip_p, tip_d);
    db_c(b, '"');
    db_style(b, e, &s, box_extent(ir_elem_box(e)));
    db_puts(b, "/>\n");
    if (tips & 1) db_tip(b, tip_p[0], tip_d[0], &s);
    if (tips & 2) db_tip(b, tip_p[1], tip_d[1], &s);
}

/* --- text ------------------------------------------------------------- */

/* s[0..n) with TeX's special characters replaced, for measuring plain
 * text with tm_measure_tex. */
static double plain_width(const char *s, size_t n, double size, char **scratch, size_t *cap)
{
    if (n + 1 > *cap) {
        *cap = n + 1 > 2 * *cap ? n + 1 : 2 * *cap;
        *scratch = xrealloc(*scratch, *cap);
    }
    char *t = *scratch;
    for (size_t i = 0; i < n; i++) t[i] = strchr("\\{}$&%#_^~", s[i]) && s[i] ? 'x' : s[i];
    t[n] = '\0';
    return tm_measure_tex(t, size, 0).width;
}

typedef struct {
    char *scratch;
    size_t cap;
} text_ctx;

/* The bytes of a line s[0..n) that are drawn: at most TEXT_MAX_LINE, cut
 * before a UTF-8 continuation byte. */
static size_t cut_line(const char *s, size_t n)
{
    if (n <= TEXT_MAX_LINE) return n;
    n = TEXT_MAX_LINE;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    return n;
}

/* A text's box: the upright box (w x h) rotated by rot degrees about the
 * centre of the IR box; the baseline where TeX puts it. */
static void draw_text_elem(dbuf *b, const ir_elem *e, text_ctx *tc)
{
    if (e->npts < 2 || !e->str || !*e->str) return;
    double x1 = fmin(e->pts[0].x, e->pts[1].x), x2 = fmax(e->pts[0].x, e->pts[1].x);
    double y1 = fmin(e->pts[0].y, e->pts[1].y), y2 = fmax(e->pts[0].y, e->pts[1].y);
    double W = clampnum(x2 - x1), H = clampnum(y2 - y1);
    double size = attr_num(e, "size", 12, 0.1, 1000);
    double rot = attr_num(e, "rotate", 0, -1e6, 1e6);
    rot = fmod(rot, 360);
    const char *tex = ir_elem_get(e, "tex");
    const char *str = e->str;
    /* in math, TeX's minus is a minus sign, not the hyphen of the plain
     * text: drawn as U+2212, of about the width TeX gave it */
    char *minus = NULL;
    if (tex && strchr(tex, '$') && strchr(str, '-')) {
        size_t n = strlen(str), k = 0;
        minus = xmalloc(3 * n + 1);
        for (size_t i = 0; i < n; i++) {
            if (str[i] == '-') {
                memcpy(minus + k, "\xE2\x88\x92", 3);
                k += 3;
            } else {
                minus[k++] = str[i];
            }
        }
        minus[k] = '\0';
        str = minus;
    }
    size_t slen = strlen(str);
    tm_extent m;
    if (tex) m = tm_measure_tex(tex, size, 0);
    else {
        /* measured as plain text */
        plain_width(str, slen, size, &tc->scratch, &tc->cap);
        m = tm_measure_tex(tc->scratch, size, 0);
    }
    double total = m.height + m.skip + m.depth;
    double w = W, h = H;
    double rr = rot * M_PI / 180;
    double c = cos(rr), s = sin(rr);
    if (fabs(s) > 1e-9) {
        if (fabs(c) < 1e-9) {
            w = H;
            h = W;
        } else if (m.width > 0 && total > 0) {
            w = m.width;
            h = total;
        }
    }
    /* lines and their natural widths */
    size_t nlines = 1;
    for (const char *q = str; nlines < TEXT_MAX_LINES && (q = strchr(q, '\n')); q++) nlines++;
    double maxnat = 0;
    /* first pass: the widest line */
    const char *ls = str;
    for (size_t i = 0; i < nlines; i++) {
        const char *le = strchr(ls, '\n');
        size_t ln = le ? (size_t)(le - ls) : strlen(ls);
        size_t dn = cut_line(ls, ln);
        double nat = plain_width(ls, dn, size, &tc->scratch, &tc->cap);
        if (nat > maxnat) maxnat = nat;
        ls = le ? le + 1 : ls + ln;
    }
    double sx = maxnat > 0 ? w / maxnat : 1;
    /* fitted to the box, within reason (a box far from the text's own
     * size is not what TeX made) */
    if (!(sx > 0.5)) sx = 0.5;
    if (sx > 2) sx = 2;
    double k = total > 0 ? h / total : 1;
    double first = total > 0 ? m.height * k : 0.78 * h;
    double rest = total > 0 ? m.depth * k : 0.22 * h;
    double gap = nlines > 1 ? (h - first - rest) / (double)(nlines - 1) : 0;
    double cx = (x1 + x2) / 2, cy = -(y1 + y2) / 2; /* SVG */
    char col[8];
    const char *cs = ir_elem_get(e, "color");
    if (!cs) cs = ir_elem_get(e, "text");
    color_hex(cs ? cs : "black", col);
    if (cs && !strcmp(cs, "none")) {
        free(minus);
        return;
    }
    double op = attr_num(e, "opacity", 1, 0, 1);
    /* the glyphs' size: the IM class loads Open Sans at TM_FONT_SCALE x
     * the nominal size (tikz2ir's boxes are measured so) */
    double fs = size * TM_FONT_SCALE;
    /* the SVG rotation is -rot (y down) */
    double a = c * sx, bm = -s * sx, cm = s, d = c;
    ls = str;
    for (size_t i = 0; i < nlines; i++) {
        const char *le = strchr(ls, '\n');
        size_t ln = le ? (size_t)(le - ls) : strlen(ls);
        size_t dn = cut_line(ls, ln);
        double nat = nlines > 1 ? plain_width(ls, dn, size, &tc->scratch, &tc->cap) : maxnat;
        double lx = -w / 2 + (w - nat * sx) / 2;
        double ly = -h / 2 + first + gap * (double)i;
        /* translation: R(-rot) (lx, ly) + centre */
        double ex = c * lx + s * ly + cx, ey = -s * lx + c * ly + cy;
        if (dn > 0) {
            db_puts(b, "<text");
            if (fabs(s) < 1e-12 && fabs(sx - 1) < 1e-4 && c > 0) {
                db_attr_num(b, "x", ex);
                db_attr_num(b, "y", ey);
            } else {
                db_puts(b, " transform=\"matrix(");
                db_num(b, a);
                db_c(b, ' ');
                /* 3 decimals would distort long texts: scale factors with 5 */
                db_num(b, bm);
                db_c(b, ' ');
                db_num(b, cm);
                db_c(b, ' ');
                db_num(b, d);
                db_c(b, ' ');
                db_num(b, ex);
                db_c(b, ' ');
                db_num(b, ey);
                db_puts(b, ")\"");
            }
            db_attr_num(b, "font-size", fs);
            db_attr(b, "fill", col);
            if (op < 1) db_attr_num(b, "opacity", op);
            db_c(b, '>');
            db_xml_n(b, ls, dn);
            db_puts(b, "</text>\n");
        }
        ls = le ? le + 1 : ls + ln;
    }
    free(minus);
}

/* --- graph records ------------------------------------------------------ */

static void draw_vertex(dbuf *b, const ir_elem *e)
{
    if (e->npts < 2) return;
    double x1 = fmin(e->pts[0].x, e->pts[1].x), x2 = fmax(e->pts[0].x, e->pts[1].x);
    double y1 = fmin(e->pts[0].y, e->pts[1].y), y2 = fmax(e->pts[0].y, e->pts[1].y);
    style s;
    get_style(e, &s, 1);
    if (!ir_elem_get(e, "lw")) s.lw = 0.8;
    db_puts(b, "<rect");
    db_xywh(b, x1, -y2, x2 - x1, y2 - y1);
    db_style(b, e, &s, 0);
    db_puts(b, "/>\n");
    if (!e->str || !*e->str) return;
    const char *nl = strchr(e->str, '\n');
    size_t ln = cut_line(e->str, nl ? (size_t)(nl - e->str) : strlen(e->str));
    double fs = attr_num(e, "size", 10, 0.1, 1000);
    db_puts(b, "<text text-anchor=\"middle\" fill=\"#000000\"");
    db_attr_num(b, "x", (x1 + x2) / 2);
    db_attr_num(b, "y", -(y1 + y2) / 2 + fs * 0.35);
    db_attr_num(b, "font-size", fs);
    db_c(b, '>');
    db_xml_n(b, e->str, ln);
    db_puts(b, "</text>\n");
}

/* The point where the ray from the centre of box bx towards d leaves it. */
static vec box_exit(const ir_elem *v, vec d)
{
    double x1 = fmin(v->pts[0].x, v->pts[1].x), x2 = fmax(v->pts[0].x, v->pts[1].x);
    double y1 = fmin(v->pts[0].y, v->pts[1].y), y2 = fmax(v->pts[0].y, v->pts[1].y);
    vec c = V((x1 + x2) / 2, (y1 + y2) / 2);
    double hw = (x2 - x1) / 2, hh = (y2 - y1) / 2;
    double t = HUGE_VAL;
    if (fabs(d.x) > 0) t = fmin(t, hw / fabs(d.x));
    if (fabs(d.y) > 0) t = fmin(t, hh / fabs(d.y));
    if (!(t < 1)) t = 0;
    return V(c.x + d.x * t, c.y + d.y * t);
}

static int edge_ends(const ir_diagram *d, const smap *verts, const ir_elem *e, vec *pa, vec *pb)
{
    size_t ia, ib;
    if (!smap_get(verts, e->name, &ia) || !smap_get(verts, e->str, &ib)) return 0;
    const ir_elem *va = &d->elems[ia], *vb = &d->elems[ib];
    vec ca = V((va->pts[0].x + va->pts[1].x) / 2, (va->pts[0].y + va->pts[1].y) / 2);
    vec cb = V((vb->pts[0].x + vb->pts[1].x) / 2, (vb->pts[0].y + vb->pts[1].y) / 2);
    vec dv = V(cb.x - ca.x, cb.y - ca.y);
    *pa = box_exit(va, dv);
    *pb = box_exit(vb, V(-dv.x, -dv.y));
    return 1;
}

static void draw_edge(dbuf *b, const ir_diagram *d, const smap *verts, const ir_elem *e)
{
    vec pa, pb;
    if (!edge_ends(d, verts, e, &pa, &pb)) return;
    style s;
    get_style(e, &s, 1);
    if (!s.stroke) return;
    if (!ir_elem_get(e, "lw")) s.lw = 0.8;
    vec dv = V(pb.x - pa.x, pb.y - pa.y);
    double l = vlen(dv);
    vec end = pb;
    int tip = !e->undirected && l > 0 && isfinite(l);
    if (tip) {
        double sh = fmin(tip_shorten(s.lw), l);
        end = V(pb.x - dv.x / l * sh, pb.y - dv.y / l * sh);
    }
    db_puts(b, "<path d=\"");
    db_M(b, pa);
    db_L(b, end);
    db_c(b, '"');
    db_style(b, e, &s, fmax(fabs(dv.x), fabs(dv.y)));
    db_puts(b, "/>\n");
    if (tip) db_tip(b, pb, dv, &s);
}

/* --- findings ------------------------------------------------------------ */

typedef struct {
    const ir_elem *f;
    size_t first_elem; /* 1-based; 0: none drawable */
    const char *color;
} shown_finding;

static int finding_shown(const ir_elem *f, const draw_opts *o)
{
    const char *v = ir_elem_get(f, "verdict");
    if (o->all_findings) return 1;
    return v && !strcmp(v, "no");
}

/* Calls back for each element number of elems= (1-based, in range). */
static size_t next_elem(const char **sp, size_t nelems)
{
    const char *s = *sp;
    while (*s) {
        while (*s == ',' || *s == ' ') s++;
        if (!*s) break;
        size_t v = 0;
        int ok = 1, digits = 0;
        while (*s && *s != ',') {
            if (*s >= '0' && *s <= '9' && ok) {
                if (v > (size_t)1 << 40) ok = 0;
                else v = v * 10 + (size_t)(*s - '0');
                digits++;
            } else {
                ok = 0;
            }
            s++;
        }
        if (ok && digits && v >= 1 && v <= nelems) {
            *sp = s;
            return v;
        }
    }
    *sp = s;
    return 0;
}

static int outlinable(const ir_elem *e)
{
    return is_shape(e->kind) || e->kind == IR_CLIP || e->kind == IR_TEXT ||
           e->kind == IR_VERTEX || e->kind == IR_EDGE || e->kind == IR_COORD;
}

static void box_rect(dbuf *b, const ir_elem *e, double grow)
{
    double x1 = fmin(e->pts[0].x, e->pts[1].x) - grow, x2 = fmax(e->pts[0].x, e->pts[1].x) + grow;
    double y1 = fmin(e->pts[0].y, e->pts[1].y) - grow, y2 = fmax(e->pts[0].y, e->pts[1].y) + grow;
    db_xywh(b, x1, -y2, x2 - x1, y2 - y1);
}

/* An outline of element e in colour col; level: 0.. for the n-th outline
 * of the same element (wider each time, so that all show). */
static void draw_outline(dbuf *b, const ir_diagram *d, const smap *verts, const ir_elem *e,
                         const char *col, int level)
{
    double extra = 3.5 + 3 * level;
    if (e->kind == IR_TEXT || e->kind == IR_VERTEX) {
        if (e->npts < 2) return;
        db_puts(b, "<rect");
        box_rect(b, e, 1 + 1.5 * level);
        db_puts(b, " rx=\"1.5\" fill=\"none\"");
        db_attr(b, "stroke", col);
        db_attr_num(b, "stroke-width", 1.6);
        db_puts(b, "/>\n");
        return;
    }
    if (e->kind == IR_COORD) {
        if (e->npts < 1) return;
        db_puts(b, "<circle");
        db_attr_num(b, "cx", e->pts[0].x);
        db_attr_num(b, "cy", -e->pts[0].y);
        db_attr_num(b, "r", 3 + 2 * level);
        db_puts(b, " fill=\"none\"");
        db_attr(b, "stroke", col);
        db_attr_num(b, "stroke-width", 1.6);
        db_puts(b, "/>\n");
        return;
    }
    double lw = is_shape(e->kind) ? attr_num(e, "lw", DEFAULT_LW, 0, 50) : 0.8;
    db_puts(b, "<path d=\"");
    if (e->kind == IR_EDGE) {
        vec pa, pb;
        if (!edge_ends(d, verts, e, &pa, &pb)) {
            db_puts(b, "M0 0\"/>\n");
            return;
        }
        db_M(b, pa);
        db_L(b, pb);
    } else {
        vec tp[2], td[2];
        shape_path(b, e, e->kind == IR_CLIP ? e->sub : e->kind, 0, tp, td);
    }
    db_puts(b, "\" fill=\"none\"");
    db_attr(b, "stroke", col);
    db_attr_num(b, "stroke-width", lw + extra);
    db_puts(b, " stroke-opacity=\"0.5\" stroke-linecap=\"round\"/>\n");
}

/* A circled number at (x, y) (SVG coordinates). */
static void draw_badge(dbuf *b, double x, double y, size_t num, const char *col)
{
    db_puts(b, "<circle");
    db_attr_num(b, "cx", x);
    db_attr_num(b, "cy", y);
    db_puts(b, " r=\"5.5\"");
    db_attr(b, "fill", col);
    db_puts(b, " stroke=\"#ffffff\" stroke-width=\"0.8\"/>\n<text text-anchor=\"middle\" "
               "font-size=\"7.5\" font-weight=\"bold\" fill=\"#ffffff\"");
    db_attr_num(b, "x", x);
    db_attr_num(b, "y", y + 2.7);
    db_c(b, '>');
    db_int(b, (long)num);
    db_puts(b, "</text>\n");
}

/* Writes text[0..n) as lines of at most maxc characters, broken at
 * blanks; returns the number of lines (0 when it only counts). */
static size_t wrap_lines(dbuf *b, const char *s, size_t n, size_t maxc, double x, double y)
{
    size_t lines = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && s[i] == ' ') i++;
        if (i >= n) break;
        /* take up to maxc characters (UTF-8 lead bytes) */
        size_t j = i, chars = 0, brk = 0;
        while (j < n && chars < maxc) {
            if (s[j] == ' ') brk = j;
            j++;
            while (j < n && ((unsigned char)s[j] & 0xC0) == 0x80) j++;
            chars++;
        }
        if (j < n && brk > i) j = brk;
        if (b) {
            db_puts(b, "<text");
            db_attr_num(b, "x", x);
            db_attr_num(b, "y", y + PANEL_LINE * (double)lines);
            db_c(b, '>');
            db_xml_n(b, s + i, j - i);
            db_puts(b, "</text>\n");
        }
        lines++;
        i = j;
    }
    return lines ? lines : 1;
}

/* --- the document -------------------------------------------------------- */

static void put_id(dbuf *b, uint32_t h, size_t idx)
{
    static const char hx[] = "0123456789abcdef";
    char t[16];
    t[0] = 'd';
    for (int i = 0; i < 8; i++) t[1 + i] = hx[(h >> (28 - 4 * i)) & 15];
    t[9] = '-';
    t[10] = 'c';
    db_put(b, t, 11);
    db_int(b, (long)idx);
}

void draw_svg_buf(dbuf *b, const ir_diagram *d, const draw_opts *o, draw_canvas *cv)
{
    double margin = o->margin < 0 || !(o->margin == o->margin) ? DEFAULT_MARGIN : o->margin;
    if (margin > 1e6) margin = 1e6;
    double scale = o->scale > 0 && isfinite(o->scale) ? o->scale : 1;
    /* the picture's extent, IR coordinates */
    ir_box bx = ir_box_empty();
    if (d->has_bbox) {
        ir_box_add(&bx, d->bbox[0], d->bbox[1]);
        ir_box_add(&bx, d->bbox[2], d->bbox[3]);
    } else {
        double maxlw = 0;
        for (size_t i = 0; i < d->nelems; i++) {
            const ir_elem *e = &d->elems[i];
            if (!(is_shape(e->kind) || e->kind == IR_TEXT || e->kind == IR_VERTEX)) continue;
            ir_box_union(&bx, ir_elem_box(e));
            if (is_shape(e->kind)) maxlw = fmax(maxlw, attr_num(e, "lw", DEFAULT_LW, 0, 100));
        }
        if (!bx.empty) {
            bx.x1 -= maxlw / 2;
            bx.y1 -= maxlw / 2;
            bx.x2 += maxlw / 2;
            bx.y2 += maxlw / 2;
        }
    }
    if (bx.empty) bx.x1 = bx.y1 = bx.x2 = bx.y2 = 0;
    double x1 = clampnum(bx.x1), y1 = clampnum(bx.y1), x2 = clampnum(bx.x2), y2 = clampnum(bx.y2);
    double vx = clampnum(x1 - margin), vy = clampnum(-y2 - margin);
    double vw = clampnum(x2 - x1 + 2 * margin), vh = clampnum(y2 - y1 + 2 * margin);
    if (vw < 0) vw = 0;
    if (vh < 0) vh = 0;

    /* findings: which are shown, their numbers and colours */
    shown_finding *sf = NULL;
    size_t nsf = 0;
    if (o->findings) {
        size_t cnt = 0;
        for (size_t i = 0; i < d->nelems; i++)
            if (d->elems[i].kind == IR_FINDING && finding_shown(&d->elems[i], o)) cnt++;
        if (cnt) sf = xcalloc(cnt, sizeof *sf);
        for (size_t i = 0; i < d->nelems; i++) {
            const ir_elem *f = &d->elems[i];
            if (f->kind != IR_FINDING || !finding_shown(f, o)) continue;
            sf[nsf].f = f;
            sf[nsf].color = draw_criterion_color(f->name);
            const char *el = ir_elem_get(f, "elems");
            if (el) {
                size_t j;
                while ((j = next_elem(&el, d->nelems)))
                    if (outlinable(&d->elems[j - 1])) {
                        sf[nsf].first_elem = j;
                        break;
                    }
            }
            nsf++;
        }
    }
    /* the panel below the picture: its lines */
    double pw = vw > PANEL_MIN_WIDTH ? vw : PANEL_MIN_WIDTH;
    size_t maxc = (size_t)((pw - 26) / (PANEL_FONT * PANEL_CHAR));
    if (maxc < 10) maxc = 10;
    const char **crits = NULL; /* criteria in order of first appearance */
    size_t ncrits = 0;
    double ph = 0;
    if (nsf) {
        crits = xcalloc(nsf, sizeof *crits);
        ph = 8;
        for (size_t i = 0; i < nsf; i++) {
            const char *name = sf[i].f->name ? sf[i].f->name : "";
            size_t k = 0;
            while (k < ncrits && strcmp(crits[k], name)) k++;
            if (k == ncrits) crits[ncrits++] = name;
        }
        ph += PANEL_LINE; /* legend heading */
        ph += PANEL_LINE * (double)((ncrits + 2) / 3);
        ph += 4;
    }
    /* reasons: counted while writing, below; first count them */
    dbuf reasons = {0};
    if (nsf) {
        double y = 0;
        for (size_t i = 0; i < nsf; i++) {
            const ir_elem *f = sf[i].f;
            dbuf line = {0};
            db_puts(&line, f->name ? f->name : "");
            const char *v = ir_elem_get(f, "verdict");
            if (o->all_findings && v) {
                db_puts(&line, " (");
                db_puts(&line, v);
                db_c(&line, ')');
            }
            db_puts(&line, ": ");
            if (f->str) db_put(&line, f->str, cut_line(f->str, strlen(f->str)));
            if (f->line > 0) {
                db_puts(&line, " [line ");
                db_int(&line, f->line);
                db_c(&line, ']');
            }
            double ty = y + PANEL_LINE - 3;
            /* the number's badge */
            dbuf *rb = &reasons;
            db_puts(rb, "<circle");
            db_attr_num(rb, "cx", 8);
            db_attr_num(rb, "cy", ty - 3);
            db_puts(rb, " r=\"5.5\"");
            db_attr(rb, "fill", sf[i].color);
            db_puts(rb, "/>\n<text text-anchor=\"middle\" font-size=\"7.5\" font-weight=\"bold\" fill=\"#ffffff\"");
            db_attr_num(rb, "x", 8);
            db_attr_num(rb, "y", ty - 0.3);
            db_c(rb, '>');
            db_int(rb, (long)(i + 1));
            db_puts(rb, "</text>\n");
            size_t nl = wrap_lines(rb, line.p, line.n, maxc, 18, ty);
            y += PANEL_LINE * (double)nl + 2;
            db_free(&line);
        }
        /* what the picture lacks: the constructs the front end could not
         * evaluate (unparsed records) are not drawn */
        size_t nun = 0, nlisted = 0;
        int last = 0;
        dbuf line = {0};
        for (size_t i = 0; i < d->nelems; i++) {
            if (d->elems[i].kind != IR_UNPARSED) continue;
            nun++;
            int l = d->elems[i].line;
            if (l <= 0 || l == last) continue;
            last = l;
            if (nlisted < 10) {
                db_puts(&line, nlisted ? ", " : " (source line ");
                db_int(&line, l);
            } else if (nlisted == 10) {
                db_puts(&line, ", ...");
            }
            nlisted++;
        }
        if (nun) {
            dbuf msg = {0};
            db_puts(&msg, "Not drawn: ");
            db_int(&msg, (long)nun);
            db_puts(&msg, nun == 1 ? " construct" : " constructs");
            db_puts(&msg, " the front end could not evaluate (unparsed)");
            if (line.n) db_put(&msg, line.p, line.n);
            if (line.n) db_c(&msg, ')');
            size_t nl = wrap_lines(&reasons, msg.p, msg.n, maxc, 2, y + PANEL_LINE - 3);
            y += PANEL_LINE * (double)nl + 2;
            db_free(&msg);
        }
        db_free(&line);
        ph += y + 6;
    }
    double cw = vw, ch = vh;
    if (nsf) {
        cw = pw;
        ch = vh + ph;
    }
    cv->vx = vx;
    cv->vy = vy;
    cv->vw = cw;
    cv->vh = ch;

    uint32_t idh = fnv1a(d->id ? d->id : "", d->id ? strlen(d->id) : 0);
    if (!o->fragment) db_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    db_puts(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"");
    db_attr_num(b, "width", cw * scale);
    db_attr_num(b, "height", ch * scale);
    db_puts(b, " viewBox=\"");
    db_num(b, vx);
    db_c(b, ' ');
    db_num(b, vy);
    db_c(b, ' ');
    db_num(b, cw);
    db_c(b, ' ');
    db_num(b, ch);
    db_puts(b, "\">\n");
    if (d->id) {
        db_puts(b, "<title>");
        db_xml(b, d->id);
        db_puts(b, "</title>\n");
    }
    db_puts(b, "<rect");
    db_xywh(b, vx, vy, cw, ch);
    db_puts(b, " fill=\"#ffffff\"/>\n");
    smap clips = {0}, verts = {0};
    for (size_t i = 0; i < d->nelems; i++)
        if (d->elems[i].kind == IR_VERTEX && d->elems[i].name && d->elems[i].npts >= 2)
            smap_set(&verts, d->elems[i].name, i);
    if (nsf) {
        /* the outlines of the blamed elements under the picture, so that
         * its ink stays on top */
        unsigned char *count = xcalloc(d->nelems, 1);
        /* outlines are clipped to the picture's area: none spills into
         * the panel */
        db_puts(b, "<clipPath id=\"");
        put_id(b, idh, d->nelems);
        db_puts(b, "\"><rect");
        db_xywh(b, vx, vy, vw, vh);
        db_puts(b, "/></clipPath>\n<g class=\"outlines\" clip-path=\"url(#");
        put_id(b, idh, d->nelems);
        db_puts(b, ")\">\n");
        for (size_t i = 0; i < nsf; i++) {
            const char *el = ir_elem_get(sf[i].f, "elems");
            if (!el) continue;
            size_t j;
            while ((j = next_elem(&el, d->nelems))) {
                const ir_elem *e = &d->elems[j - 1];
                if (!outlinable(e) || count[j - 1] >= MAX_OUTLINES) continue;
                draw_outline(b, d, &verts, e, sf[i].color, count[j - 1]);
                count[j - 1]++;
            }
        }
        db_puts(b, "</g>\n");
        free(count);
    }
    db_puts(b, "<g fill=\"none\" stroke-linejoin=\"round\" stroke-miterlimit=\"10\" "
               "font-family=\"Open Sans, sans-serif\">\n");
    text_ctx tc = {NULL, 0};
    int nglobal = 0;
    size_t open_clip = (size_t)-1; /* the clip whose groups are open now (element index) */
    int open_depth = 0;            /* how many groups that is */
    size_t *cparent = xmalloc((d->nelems ? d->nelems : 1) * sizeof *cparent);
    for (size_t i = 0; i < d->nelems; i++) cparent[i] = (size_t)-1;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (e->kind == IR_CLIP) {
            /* a clipPath; one that names another clip (clip=) is in force
             * inside it: elements it clips get the groups of both */
            size_t ci;
            const char *cref = ir_elem_get(e, "clip");
            if (cref && smap_get(&clips, cref, &ci)) cparent[i] = ci;
            db_puts(b, "<clipPath id=\"");
            put_id(b, idh, i);
            db_c(b, '"');
            db_puts(b, "><path d=\"");
            vec tp[2], td[2];
            shape_path(b, e, e->sub, 0, tp, td);
            db_puts(b, "\"/></clipPath>\n");
            const char *id = ir_elem_get(e, "id");
            if (id) {
                smap_set(&clips, id, i);
            } else if (nglobal < MAX_GLOBAL_CLIPS) {
                for (int k = 0; k < open_depth; k++) db_puts(b, "</g>\n");
                open_clip = (size_t)-1;
                open_depth = 0;
                db_puts(b, "<g clip-path=\"url(#");
                put_id(b, idh, i);
                db_puts(b, ")\">\n");
                nglobal++;
            }
            continue;
        }
        if (!(is_shape(e->kind) || e->kind == IR_TEXT || e->kind == IR_VERTEX || e->kind == IR_EDGE))
            continue;
        const char *cref = ir_elem_get(e, "clip");
        size_t ci = (size_t)-1;
        if (cref && !smap_get(&clips, cref, &ci)) ci = (size_t)-1;
        if (ci != open_clip) {
            for (int k = 0; k < open_depth; k++) db_puts(b, "</g>\n");
            open_depth = 0;
            /* the clip and the clips it is nested in, outermost first */
            size_t chain[MAX_CLIP_DEPTH];
            int n = 0;
            for (size_t c = ci; c != (size_t)-1 && n < MAX_CLIP_DEPTH; c = cparent[c]) chain[n++] = c;
            while (n-- > 0) {
                db_puts(b, "<g clip-path=\"url(#");
                put_id(b, idh, chain[n]);
                db_puts(b, ")\">\n");
                open_depth++;
            }
            open_clip = ci;
        }
        if (is_shape(e->kind)) draw_shape(b, e);
        else if (e->kind == IR_TEXT) draw_text_elem(b, e, &tc);
        else if (e->kind == IR_VERTEX) draw_vertex(b, e);
        else draw_edge(b, d, &verts, e);
    }
    for (int k = 0; k < open_depth; k++) db_puts(b, "</g>\n");
    for (int k = 0; k < nglobal; k++) db_puts(b, "</g>\n");
    free(cparent);
    free(tc.scratch);

    if (nsf) {
        /* the numbers over the picture (the outlines are under it) */
        vec *bp = xcalloc(nsf, sizeof *bp); /* the badges placed */
        size_t nbp = 0;
        db_puts(b, "<g class=\"findings\">\n");
        for (size_t i = 0; i < nsf; i++) {
            size_t j = sf[i].first_elem;
            if (!j) continue;
            ir_box eb = ir_elem_box(&d->elems[j - 1]);
            double bx2, by2;
            if (eb.empty) { /* an edge: its middle */
                vec pa, pb;
                if (!edge_ends(d, &verts, &d->elems[j - 1], &pa, &pb)) continue;
                bx2 = (pa.x + pb.x) / 2;
                by2 = (pa.y + pb.y) / 2;
            } else {
                bx2 = eb.x2;
                by2 = eb.y2;
            }
            double x = clampnum(bx2) + 3, y = -clampnum(by2) - 3;
            /* inside the picture's area, and clear of the badges before
             * it (the last 64 looked at: moved left, then down) */
            for (int tries = 0; tries < 40; tries++) {
                if (x > vx + vw - 6) x = vx + vw - 6;
                if (x < vx + 6) x = vx + 6;
                if (y > vy + vh - 6) y = vy + vh - 6;
                if (y < vy + 6) y = vy + 6;
                int clash = 0;
                for (size_t q = nbp > 64 ? nbp - 64 : 0; q < nbp && !clash; q++)
                    clash = fabs(bp[q].x - x) < 11 && fabs(bp[q].y - y) < 11;
                if (!clash) break;
                if (x - 12 >= vx + 6) x -= 12;
                else y += 12;
            }
            bp[nbp++] = V(x, y);
            draw_badge(b, x, y, i + 1, sf[i].color);
        }
        free(bp);
        /* the panel */
        double py = vy + vh;
        db_puts(b, "<line");
        db_attr_num(b, "x1", vx);
        db_attr_num(b, "y1", py + 2);
        db_attr_num(b, "x2", vx + cw);
        db_attr_num(b, "y2", py + 2);
        db_puts(b, " stroke=\"#999999\" stroke-width=\"0.5\"/>\n");
        db_puts(b, "<g font-size=\"9\" fill=\"#000000\"");
        db_puts(b, " transform=\"translate(");
        db_num(b, vx + 4);
        db_c(b, ' ');
        db_num(b, py + 8);
        db_puts(b, ")\">\n");
        db_puts(b, "<text x=\"0\" y=\"9\" font-weight=\"bold\">Criteria</text>\n");
        double colw = (pw - 8) / 3;
        for (size_t k = 0; k < ncrits; k++) {
            double x = colw * (double)(k % 3), y = PANEL_LINE * (double)(k / 3 + 1);
            db_puts(b, "<rect");
            db_attr_num(b, "x", x);
            db_attr_num(b, "y", y + 1.5);
            db_puts(b, " width=\"9\" height=\"9\"");
            db_attr(b, "fill", draw_criterion_color(crits[k]));
            db_puts(b, "/>\n<text");
            db_attr_num(b, "x", x + 12);
            db_attr_num(b, "y", y + 9.5);
            db_c(b, '>');
            /* a long name is cut: the legend keeps its columns */
            size_t ln = strlen(crits[k]), maxn = (size_t)((colw - 14) / (PANEL_FONT * PANEL_CHAR));
            db_xml_n(b, crits[k], ln < maxn ? ln : maxn);
            db_puts(b, "</text>\n");
        }
        db_puts(b, "<g");
        db_puts(b, " transform=\"translate(0 ");
        db_num(b, PANEL_LINE * (double)((ncrits + 2) / 3 + 1) + 4);
        db_puts(b, ")\">\n");
        db_put(b, reasons.p, reasons.n);
        db_puts(b, "</g>\n</g>\n</g>\n");
    }
    db_free(&reasons);
    free(crits);
    free(sf);
    smap_free(&clips);
    smap_free(&verts);
    db_puts(b, "</g>\n</svg>\n");
}

int draw_svg(FILE *f, const ir_diagram *d, const draw_opts *o)
{
    dbuf b = {0};
    draw_canvas cv;
    draw_svg_buf(&b, d, o, &cv);
    size_t w = fwrite(b.p, 1, b.n, f);
    int rc = w == b.n ? 0 : -1;
    db_free(&b);
    return rc;
}
