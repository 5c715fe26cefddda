/* tikzaxis.c — pgfplots axis environments: the axis box, axis lines, grid,
 * tick labels, and \addplot (coordinates and functions of x). Inside an
 * axis, unitless coordinates are data coordinates (pgfplots' axis cs). */
#include "grammar/interp.h"
#include "ir/xalloc.h"
#include "grammar/textmetrics.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TICKS 400

/* The IM class's axis styles (../README: 6.5in x 4in, grid=both,
 * axis lines=middle, arrows on both axes, clip=true, an "O" origin label). */
/* The tips of the axis lines: a first quadrant's axes point one way (from
 * the origin), the four quadrants' both ways, as contrib/tex/IM.cls draws
 * them (the dataset's README says only "arrow tips on both axes"). */
static const struct {
    const char *name;
    double xmin, xmax, ymin, ymax;
    const char *xl, *yl, *arrows;
} im_styles[] = {
    { "FirstQuadrantLabeled", 0, 20, 0, 10, "$x$ label goes here", "$y$ label gets here", "->" },
    { "FirstQuadrantXY", 0, 30, 0, 10, "$x$", "$y$", "->" },
    { "FourQuadrantGrid", -10, 10, -10, 10, "$x$", "$y$", "<->" },
    { "FourQuadrantXY", -10, 10, -10, 10, "$x$", "$y$", "<->" },
    { NULL, 0, 0, 0, 0, NULL, NULL, NULL }
};

typedef struct {
    double xmin, xmax, ymin, ymax, w, h;
    int has_xmin, has_xmax, has_ymin, has_ymax;
    int middle, grid, clip, scale_only, origin_label;
    const char *arrows;   /* the axis lines' tips (axis lines=middle): "<->", "->", "<-" or NULL */
    double xticks[MAX_TICKS], yticks[MAX_TICKS];
    int nxt, nyt;        /* -1: automatic */
    char xlabel[256], ylabel[256];
    double xl_dx, xl_dy, yl_dx, yl_dy;   /* xlabel style / ylabel style shifts */
} axis_opts;

static void trimv(const char **s, size_t *n)
{
    while (*n && isspace((unsigned char)**s)) { (*s)++; (*n)--; }
    while (*n && isspace((unsigned char)(*s)[*n - 1])) (*n)--;
    if (*n >= 2 && (*s)[0] == '{' && (*s)[*n - 1] == '}') { (*s)++; *n -= 2; }
    while (*n && isspace((unsigned char)**s)) { (*s)++; (*n)--; }
    while (*n && isspace((unsigned char)(*s)[*n - 1])) (*n)--;
}


static int tick_list(tikz *T, const char *v, size_t vn, double *out)
{
    trimv(&v, &vn);
    if (vn == 0) return 0;
    char *txt = xstrndup(v, vn);
    int n = 0;
    double vals[MAX_TICKS];
    char *save = NULL;
    for (char *it = strtok_r(txt, ",", &save); it && n < MAX_TICKS; it = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*it)) it++;
        char *e = it + strlen(it);
        while (e > it && isspace((unsigned char)e[-1])) *--e = 0;
        if (strcmp(it, "...") == 0) { vals[n++] = NAN; continue; }
        double d;
        if (tk_eval(T, it, strlen(it), &d, NULL) == 0) vals[n++] = d;
    }
    free(txt);
    int m = 0;
    for (int i = 0; i < n && m < MAX_TICKS; i++) {
        if (isnan(vals[i])) {
            if (m >= 1 && i + 1 < n) {
                double step = m >= 2 ? out[m - 1] - out[m - 2] : 1;
                if (step <= 0) continue;
                for (double x = out[m - 1] + step; x < vals[i + 1] - 1e-9 && m < MAX_TICKS; x += step)
                    out[m++] = x;
            }
            continue;
        }
        out[m++] = vals[i];
    }
    return m;
}

/* The arrow tips an "axis line style={...}" value gives: its first
 * arrow specification ("<->", "->", "<-", or "-" for none), else old. */
static const char *axis_tips(const char *v, size_t n, const char *old)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i] == '{' || v[i] == ' ' || v[i] == ',') continue;
        if (v[i] == '<') return i + 2 < n && v[i + 1] == '-' && v[i + 2] == '>' ? "<->" : "<-";
        if (v[i] == '-')   /* "->", "-stealth", "-Latex": a tip at the end; "-" alone none */
            return i + 1 < n && (v[i + 1] == '>' || isalpha((unsigned char)v[i + 1])) ? "->" : NULL;
        /* another key: skip to the next comma */
        while (i < n && v[i] != ',') i++;
    }
    return old;
}

static void parse_axis_opts(tikz *T, const char *s, size_t n, axis_opts *a, int depth)
{
    size_t i = 0;
    while (i < n) {
        size_t st = i;
        int d = 0;
        while (i < n && !(s[i] == ',' && d == 0)) {
            if (s[i] == '{' || s[i] == '[' || s[i] == '(') d++;
            else if ((s[i] == '}' || s[i] == ']' || s[i] == ')') && d > 0) d--;
            i++;
        }
        const char *it = s + st;
        size_t in = i - st;
        i++;
        while (in && isspace((unsigned char)*it)) { it++; in--; }
        while (in && isspace((unsigned char)it[in - 1])) in--;
        if (!in) continue;
        const char *eq = memchr(it, '=', in);
        const char *k = it, *v = NULL;
        size_t kn = in, vn = 0;
        if (eq) { kn = (size_t)(eq - it); v = eq + 1; vn = in - kn - 1; }
        while (kn && isspace((unsigned char)k[kn - 1])) kn--;
        if (v) trimv(&v, &vn);
        double x;
        if (!v) {
            int found = 0;
            for (int j = 0; im_styles[j].name; j++) {
                if (!tk_is(k, kn, im_styles[j].name)) continue;
                a->xmin = im_styles[j].xmin; a->xmax = im_styles[j].xmax;
                a->ymin = im_styles[j].ymin; a->ymax = im_styles[j].ymax;
                a->has_xmin = a->has_xmax = a->has_ymin = a->has_ymax = 1;
                a->w = 6.5 * 72.27; a->h = 4 * 72.27;
                a->grid = 1; a->middle = 1; a->clip = 1; a->origin_label = 1;
                a->arrows = im_styles[j].arrows;
                snprintf(a->xlabel, sizeof a->xlabel, "%s", im_styles[j].xl);
                snprintf(a->ylabel, sizeof a->ylabel, "%s", im_styles[j].yl);
                found = 1;
            }
            if (!found && tk_is(k, kn, "scale only axis")) a->scale_only = 1;
            if (!found && depth < 8) {
                const char *stl = tk_find_style(T, k, kn);
                if (stl) parse_axis_opts(T, stl, strlen(stl), a, depth + 1);
            }
            continue;
        }
        if (tk_is(k, kn, "xmin") && tk_eval(T, v, vn, &x, NULL) == 0) { a->xmin = x; a->has_xmin = 1; }
        else if (tk_is(k, kn, "xmax") && tk_eval(T, v, vn, &x, NULL) == 0) { a->xmax = x; a->has_xmax = 1; }
        else if (tk_is(k, kn, "ymin") && tk_eval(T, v, vn, &x, NULL) == 0) { a->ymin = x; a->has_ymin = 1; }
        else if (tk_is(k, kn, "ymax") && tk_eval(T, v, vn, &x, NULL) == 0) { a->ymax = x; a->has_ymax = 1; }
        else if (tk_is(k, kn, "width") && tk_eval(T, v, vn, &x, NULL) == 0) a->w = x;
        else if (tk_is(k, kn, "height") && tk_eval(T, v, vn, &x, NULL) == 0) a->h = x;
        else if (tk_is(k, kn, "axis lines") || tk_is(k, kn, "axis lines*")) a->middle = tk_is(v, vn, "middle") || tk_is(v, vn, "center");
        else if (tk_is(k, kn, "grid")) a->grid = !tk_is(v, vn, "none");
        else if (tk_is(k, kn, "axis line style")) a->arrows = axis_tips(v, vn, a->arrows);
        else if (tk_is(k, kn, "clip")) a->clip = tk_is(v, vn, "true");
        else if (tk_is(k, kn, "scale only axis")) a->scale_only = tk_is(v, vn, "true");
        else if (tk_is(k, kn, "xtick")) a->nxt = tick_list(T, v, vn, a->xticks);
        else if (tk_is(k, kn, "ytick")) a->nyt = tick_list(T, v, vn, a->yticks);
        else if (tk_is(k, kn, "xlabel")) snprintf(a->xlabel, sizeof a->xlabel, "%.*s", (int)vn, v);
        else if (tk_is(k, kn, "ylabel")) snprintf(a->ylabel, sizeof a->ylabel, "%.*s", (int)vn, v);
        else if (tk_is(k, kn, "xlabel style") || tk_is(k, kn, "ylabel style")) {
            double *dx = k[0] == 'x' ? &a->xl_dx : &a->yl_dx, *dy = k[0] == 'x' ? &a->xl_dy : &a->yl_dy;
            const char *xs = tk_memmem(v, vn, "xshift="), *ys = tk_memmem(v, vn, "yshift=");
            if (xs) { const char *e = xs + 7; size_t l = 0; while (e + l < v + vn && e[l] != ',' && e[l] != '}') l++; tk_eval(T, e, l, dx, NULL); }
            if (ys) { const char *e = ys + 7; size_t l = 0; while (e + l < v + vn && e[l] != ',' && e[l] != '}') l++; tk_eval(T, e, l, dy, NULL); }
        }
    }
}

static int auto_ticks(double lo, double hi, double *out)
{
    double range = hi - lo;
    if (!(range > 0)) return 0;
    double raw = range / 8, mag = pow(10, floor(log10(raw)));
    double step = raw / mag < 1.5 ? mag : raw / mag < 3 ? 2 * mag : raw / mag < 7 ? 5 * mag : 10 * mag;
    int n = 0;
    for (double x = ceil(lo / step - 1e-9) * step; x <= hi + 1e-9 && n < MAX_TICKS; x += step) out[n++] = x;
    return n;
}

static void emit_line(tikz *T, vec2 a, vec2 b, const char *role, double lw, const char *color, const char *arrows, int line)
{
    ir_elem *e = ir_add(T->d, IR_POLY);
    ir_pt p[2] = { { a.x, a.y }, { b.x, b.y } };
    ir_elem_set_pts(e, p, 2);
    e->line = line;
    ir_elem_set(e, "draw", color);
    ir_elem_set(e, "fill", "none");
    tk_set_num(e, "lw", lw);
    if (arrows) ir_elem_set(e, "arrows", arrows);
    ir_elem_set(e, "role", role);
}

/* fs: the node's font size, pt (0: the picture's) */
/* the IM class's tick labels: \footnotesize, 10pt in a 12pt document (the
 * dataset README) */
#define TICK_FONT_PT 10.0

static void emit_text(tikz *T, vec2 at, const char *anchor, const char *tex, const char *role, double fs,
                      int line)
{
    tk_nodeopts no;
    tk_nodeopts_init(T, &no);
    if (fs > 0) no.font_size = fs;
    snprintf(no.anchor, sizeof no.anchor, "%s", anchor);
    no.has_anchor = 1;
    snprintf(no.role, sizeof no.role, "%s", role);
    tk_place_node(T, &no, at, tex, line, NULL, 0);
    tk_nodeopts_free(&no);
}

void tk_axis_begin(tikz *T, const char *opts, size_t n, int line)
{
    axis_opts a;
    memset(&a, 0, sizeof a);
    a.arrows = "<->";
    a.w = 240; a.h = 207;
    a.xmin = 0; a.xmax = 10; a.ymin = 0; a.ymax = 10;
    a.nxt = a.nyt = -1;
    parse_axis_opts(T, opts, n, &a, 0);
    if (!(a.xmax > a.xmin)) { a.xmin = 0; a.xmax = 1; }
    if (!(a.ymax > a.ymin)) { a.ymin = 0; a.ymax = 1; }
    /* the axis box: width/height include the labels unless scale only axis */
    double W = a.scale_only ? a.w : a.w - 45, H = a.scale_only ? a.h : a.h - 45;
    if (W < 10) W = 10;
    if (H < 10) H = 10;
    gstate *g = GS(T);
    vec2 o = mat_apply(g->ctm, v2(0, 0));
    double sx = W / (a.xmax - a.xmin), sy = H / (a.ymax - a.ymin);
    T->axis.active = 1;
    T->axis.xmin = a.xmin; T->axis.xmax = a.xmax; T->axis.ymin = a.ymin; T->axis.ymax = a.ymax;
    T->axis.w = W; T->axis.h = H;
    T->axis.origin = o;
    g->ctm = mat_id();
    g->ctm.e = o.x - a.xmin * sx;
    g->ctm.f = o.y - a.ymin * sy;
    g->xv = v2(sx, 0);
    g->yv = v2(0, sy);
    g->in_axis = 1;
    /* grid and ticks */
    double xt[MAX_TICKS], yt[MAX_TICKS];
    int nx = a.nxt >= 0 ? a.nxt : auto_ticks(a.xmin, a.xmax, xt);
    int ny = a.nyt >= 0 ? a.nyt : auto_ticks(a.ymin, a.ymax, yt);
    if (a.nxt >= 0) memcpy(xt, a.xticks, (size_t)nx * sizeof *xt);
    if (a.nyt >= 0) memcpy(yt, a.yticks, (size_t)ny * sizeof *yt);
    vec2 ll = o, ur = v2(o.x + W, o.y + H);
    if (a.grid) {
        for (int i = 0; i < nx; i++) {
            if (xt[i] < a.xmin - 1e-9 || xt[i] > a.xmax + 1e-9) continue;
            double x = o.x + (xt[i] - a.xmin) * sx;
            emit_line(T, v2(x, ll.y), v2(x, ur.y), "grid", 0.4, "gray", NULL, line);
        }
        for (int i = 0; i < ny; i++) {
            if (yt[i] < a.ymin - 1e-9 || yt[i] > a.ymax + 1e-9) continue;
            double y = o.y + (yt[i] - a.ymin) * sy;
            emit_line(T, v2(ll.x, y), v2(ur.x, y), "grid", 0.4, "gray", NULL, line);
        }
    }
    double x0 = a.middle && a.xmin <= 0 && a.xmax >= 0 ? o.x - a.xmin * sx : ll.x;
    double y0 = a.middle && a.ymin <= 0 && a.ymax >= 0 ? o.y - a.ymin * sy : ll.y;
    if (a.middle) {
        emit_line(T, v2(ll.x, y0), v2(ur.x, y0), "axis", 0.4, "black", a.arrows, line);
        emit_line(T, v2(x0, ll.y), v2(x0, ur.y), "axis", 0.4, "black", a.arrows, line);
    } else {
        ir_elem *e = ir_add(T->d, IR_RECT);
        ir_pt p[2] = { { ll.x, ll.y }, { ur.x, ur.y } };
        ir_elem_set_pts(e, p, 2);
        e->line = line;
        ir_elem_set(e, "draw", "black");
        ir_elem_set(e, "fill", "none");
        ir_elem_set(e, "lw", "0.4");
        ir_elem_set(e, "role", "axis");
    }
    char buf[64];
    for (int i = 0; i < nx; i++) {
        if (xt[i] < a.xmin - 1e-9 || xt[i] > a.xmax + 1e-9) continue;
        if (a.middle && fabs(xt[i]) < 1e-12) continue;
        snprintf(buf, sizeof buf, "$%g$", xt[i]);
        emit_text(T, v2(o.x + (xt[i] - a.xmin) * sx, y0), "north", buf, "tick", TICK_FONT_PT, line);
    }
    for (int i = 0; i < ny; i++) {
        if (yt[i] < a.ymin - 1e-9 || yt[i] > a.ymax + 1e-9) continue;
        if (a.middle && fabs(yt[i]) < 1e-12) continue;
        snprintf(buf, sizeof buf, "$%g$", yt[i]);
        emit_text(T, v2(x0, o.y + (yt[i] - a.ymin) * sy), "east", buf, "tick", TICK_FONT_PT, line);
    }
    /* pgfplots, axis lines=middle: the x label at the end of the x axis on the
     * side opposite its tick labels (above, aligned inside), the y label at the
     * top of the y axis to its right */
    if (a.xlabel[0])
        emit_text(T, v2(ur.x + a.xl_dx, y0 + a.xl_dy), a.middle ? "south east" : "north", a.xlabel, "axis-label", 0, line);
    if (a.ylabel[0])
        emit_text(T, v2(x0 + a.yl_dx, ur.y + a.yl_dy), a.middle ? "north west" : "east", a.ylabel, "axis-label", 0, line);
    if (a.origin_label && a.middle) emit_text(T, v2(x0, y0), "north east", "O", "tick", 0, line);
    if (a.clip) {
        ir_elem *e = ir_add(T->d, IR_CLIP);
        e->sub = IR_RECT;
        ir_pt p[2] = { { ll.x, ll.y }, { ur.x, ur.y } };
        ir_elem_set_pts(e, p, 2);
        e->closed = 1;
        e->line = line;
        T->nclips++;
        tk_set_num(e, "id", T->nclips);
        ir_elem_set(e, "role", "axis");
        g->clip = T->nclips;
    }
}

void tk_axis_end(tikz *T) { T->axis.active = 0; }

void tk_addplot(tikz *T, const char *text, int line)
{
    /* \addplot[opts] coordinates {...};  \addplot[opts] {expr};  \addplot+ ... */
    const char *s = text;
    while (*s == '+' || isspace((unsigned char)*s)) s++;
    char *path = NULL;
    const char *rest = s;
    char opts[512] = "";
    if (*rest == '[') {
        int d = 0;
        const char *e = rest;
        for (; *e; e++) {
            if (*e == '[' || *e == '{') d++;
            else if ((*e == ']' || *e == '}') && --d == 0) break;
        }
        if (!*e) { tk_unparsed(T, line, text, "unterminated \\addplot options"); return; }
        snprintf(opts, sizeof opts, "%.*s", (int)(e - rest - 1), rest + 1);
        rest = e + 1;
    }
    while (isspace((unsigned char)*rest)) rest++;
    size_t need = strlen(rest) + strlen(opts) + 64;
    path = xmalloc(need);
    if (strncmp(rest, "coordinates", 11) == 0) {
        snprintf(path, need, "[draw,%s] plot coordinates %s", opts, rest + 11);
    } else if (*rest == '{') {
        /* function of x: plot (\x, {expr}) */
        const char *e = rest + strlen(rest);
        while (e > rest && e[-1] != '}') e--;
        size_t bl = e > rest + 1 ? (size_t)(e - rest - 2) : 0;
        /* replace the variable x by \x */
        struct tp_buf b = { 0 };
        tp_buf_add(&b, "", 0);
        for (size_t i = 1; i <= bl; i++) {
            char c = rest[i];
            int prev_alpha = i > 1 && (isalpha((unsigned char)rest[i - 1]) || rest[i - 1] == '\\');
            int next_alpha = i + 1 <= bl && isalpha((unsigned char)rest[i + 1]);
            if (c == 'x' && !prev_alpha && !next_alpha) tp_buf_add(&b, "\\x", 2);
            else tp_buf_add(&b, &c, 1);
        }
        char dom[96];
        snprintf(dom, sizeof dom, "domain=%.10g:%.10g", T->axis.xmin, T->axis.xmax);
        free(path);
        need = (b.s ? strlen(b.s) : 0) + strlen(opts) + 200;
        path = xmalloc(need);
        snprintf(path, need, "[draw,%s,%s] plot (\\x, {%s})", dom, opts, b.s ? b.s : "0");
        free(b.s);
    } else {
        free(path);
        tk_unparsed(T, line, text, "unsupported \\addplot form");
        return;
    }
    tk_run_path(T, CMD_PATH, path, NULL, line);
    free(path);
}
