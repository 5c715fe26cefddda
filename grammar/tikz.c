/* tikz.c — the TikZ interpreter: pulls expanded tokens from the expander,
 * executes LaTeX/TikZ commands, hands each path to the bison path grammar
 * (path.y) and builds IR with absolute coordinates in pt. */
#include "grammar/tikz.h"
#include "ir/cli.h"
#include "grammar/pathgrammar.h"
#include "grammar/interp.h"
#include "grammar/texexp.h"
#include "grammar/pgfmath.h"
#include "grammar/textmetrics.h"
#include "ir/geom_2d.h"
#include "ir/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Work bounds: hostile input ends with a clear error, quickly. */
#define MAX_STATEMENTS 20000        /* drawing commands per document */

/* The commands run() executes, by control-sequence name. */
enum {
    K_UNKNOWN = 1, K_IGNORED, K_FONTSW, K_BEGIN, K_END, K_DEF, K_GDEF, K_EDEF, K_XDEF, K_NEWCOMMAND,
    K_PROVIDECOMMAND, K_LET, K_SETMACRO, K_TRUNCATEMACRO, K_PARSE, K_SETLENGTHMACRO,
    K_FOREACH, K_DRAW, K_FILL, K_FILLDRAW, K_PATH, K_CLIP, K_NODE, K_COORDINATE, K_PIC, K_MATRIX,
    K_ADDPLOT, K_TIKZSET, K_TIKZSTYLE, K_SKIP11, K_SKIP01, K_SKIP03, K_SKIP02, K_SETLENGTH, K_NEWIF,
    K_SETSEED, K_RANDLIST, K_RANDITEM, K_RANDINT, K_DECLFUNC, K_TIKZ,
    K_PLAIN_PICTURE, K_PLAIN_ENDPICTURE, K_PLAIN_SCOPE, K_PLAIN_ENDSCOPE, K_SCOPED, K_GRAPH, K_GRAPHSSET, K_CALENDAR,
    K_BEGINGROUP, K_ENDGROUP
};

/* ---- small utilities ---------------------------------------------------- */

/* ---- the IM class and TikZ defaults (what \documentclass{IM} provides) --------- */

static const char *const prelude =
    "\\def\\HalfPage{3.25in}\\def\\HP{3.25in}\\def\\ThirdPage{2.1in}\\def\\THP{2.1in}"
    "\\def\\QuarterPage{1.625in}\\def\\QP{1.625in}\\def\\TwoThirdsPage{4.2in}\\def\\TTP{4.2in}"
    "\\def\\TFP{4.875in}\\def\\FP{6.5in}\\def\\FullPage{6.5in}\\def\\ThreeFourthsPage{4.875in}"
    "\\def\\drawarc[#1](#2)(#3:#4:#5){\\draw[#1,thin,ir role=angle-mark] ($(#2)+(#3:#5)$) arc (#3:#4:#5);}"
    "\\def\\drawthickarc[#1](#2)(#3:#4:#5){\\draw[#1,ir role=angle-mark] ($(#2)+(#3:#5)$) arc (#3:#4:#5);}"
    "\\def\\centerarc[#1](#2)(#3:#4:#5){\\draw[#1,ir role=angle-mark] ($(#2)+(#3:#5)$) arc (#3:#4:#5);}"
    "\\def\\drawarcwarrow[#1](#2)(#3:#4:#5){\\draw[#1,thin,->,ir role=angle-mark] ($(#2)+(#3:#5)$) arc (#3:#4:#5);}"
    "\\def\\centerarcwarrow[#1](#2)(#3:#4:#5){\\draw[#1,->,ir role=angle-mark] ($(#2)+(#3:#5)$) arc (#3:#4:#5);}";

static const char *const class_styles =
    "vertex/.style={circle,fill,inner sep=0pt,minimum size=4pt,ir role=vertex},"
    "bigvertex/.style={circle,fill,inner sep=0pt,minimum size=5.5pt,ir role=vertex},"
    "smallvertex/.style={circle,fill,inner sep=0pt,minimum size=3pt,ir role=vertex},"
    "openvertex/.style={circle,draw,fill=white,inner sep=0pt,minimum size=4pt,ir role=vertex},"
    "bigopenvertex/.style={circle,draw,fill=white,inner sep=0pt,minimum size=4.5pt,ir role=vertex}";

/* ---- pictures ---------------------------------------------------------------- */

static void picture_begin(tikz *T, const char *opts, size_t n, int line)
{
    T->npictures++;
    char id[256];
    if (T->npictures == 1) {  /* snprintf's "%s" cut, without its cost */
        size_t n = strnlen(T->cfg->id, sizeof id - 1);
        memcpy(id, T->cfg->id, n);
        id[n] = '\0';
    } else {
        snprintf(id, sizeof id, "%s.%d", T->cfg->id, T->npictures);
    }
    T->d = ir_diagram_new(id);
    T->d->irline = line;
    ir_set_attr(&T->d->attrs, &T->d->nattrs, "src", T->cfg->fname);
    char buf[32];  /* an int: ir_fmt_num gives the digits "%d" gives */
    ir_set_attr(&T->d->attrs, &T->d->nattrs, "line", ir_fmt_num(buf, (double)line));
    T->nclips = 0;
    T->any3d = 0;
    T->pgfbox = ir_box_empty();
    tk_nodesets_free(T);   /* the sets of a picture are its own (not across pictures) */
    T->pic_base = T->ngs;
    for (size_t i = 0; i < T->nnodes; i++) free(T->nodes[i].name);
    T->nnodes = 0;
    for (size_t i = 0; i < T->npaths; i++) { free(T->paths[i].name); free(T->paths[i].pts); }
    T->npaths = 0;
    tk_gs_push(T);
    gstate *g = GS(T);
    /* a picture starts from the initial state: drop what the push copied
     * from an enclosing state (a picture inside a node, or an unclosed one),
     * but every node/.style and every label/.style set by \tikzset before
     * the picture (pgfkeys styles) hold in it, as in TeX */
    char *every_node = g->every_node, *every_label = g->every_label;
    const char *mx_amp = g->mx_amp;   /* \tikzset{ampersand replacement=} holds on */
    tk_gs_init(g);
    g->mx_amp = mx_amp;
    g->every_node = every_node;
    g->every_label = every_label;
    g->tex_depth = tex_group_depth(T->tex);
    /* IM: every picture has line width=1pt, line join=round, label distance=-0.1cm */
    g->lw = 1;
    g->label_distance = -0.1 * 28.452756;
    /* the picture's text is set in the document's font where it begins
     * (\small before it, or around it in a group): em and ex too */
    if (T->doc_fs > 0) g->font_size = T->doc_fs;
    g->bold = (T->doc_font & TM_FONT_BOLD) != 0;
    T->cmd_line = line;
    if (opts) tk_apply_opts(T, opts, n, NULL, 0);
}

/* The visible extent of an element cut by a clip rectangle: the parts of its
 * outline inside the clip, plus the clip's corners inside a filled shape. */
static ir_box clipped_box(const ir_elem *e, ir_box whole, ir_box c, double pad)
{
    if (e->kind == IR_TEXT) return whole;
    ir_pt *p = NULL;
    int closed = 0;
    size_t n = ir_elem_flatten(e, &p, &closed);
    if (n == 0) { free(p); return whole; }
    ir_box r = ir_box_empty();
    ir_box cw = ir_box_make(c.x1 - pad, c.y1 - pad, c.x2 + pad, c.y2 + pad);
    size_t segs = closed ? n : n - 1;
    for (size_t i = 0; i < segs; i++) {
        ir_pt a = p[i], b = p[(i + 1) % n];
        double t0, t1;
        if (n == 1) { if (ir_box_contains_pt(cw, a)) ir_box_add(&r, a.x, a.y); break; }
        if (!ir_seg_box_clip(a, b, cw, &t0, &t1)) continue;
        ir_pt q0 = ir_v_lerp(a, b, t0), q1 = ir_v_lerp(a, b, t1);
        ir_box_add(&r, q0.x, q0.y);
        ir_box_add(&r, q1.x, q1.y);
    }
    const char *f = ir_elem_get(e, "fill");
    if (closed && f && strcmp(f, "none") != 0) {
        ir_pt corners[4] = { { c.x1, c.y1 }, { c.x2, c.y1 }, { c.x2, c.y2 }, { c.x1, c.y2 } };
        for (int k = 0; k < 4; k++)
            if (ir_pt_in_poly(corners[k], p, n)) ir_box_add(&r, corners[k].x, corners[k].y);
    }
    free(p);
    if (!r.empty && pad > 0) { r.x1 -= pad; r.y1 -= pad; r.x2 += pad; r.y2 += pad; }
    return r;
}

/* atoi(s), without the library call for the usual plain digits */
static int clip_id(const char *s)
{
    int v = 0;
    for (int i = 0; i < 9; i++) {
        unsigned dg = (unsigned)(unsigned char)s[i] - '0';
        if (dg > 9) return i > 0 && s[i] == '\0' ? v : atoi(s);
        v = v * 10 + (int)dg;
    }
    return atoi(s);
}

/* The clips of a diagram, in element order, for compute_bbox: the id
 * (atoi of the id= attribute) of each that has one, and its box once it
 * is asked for. */
typedef struct {
    const ir_elem *e;
    int id;
    int have_box;
    ir_box box;
} clip_ref;

/* The box of the first clip with this id (as a scan of the elements for
 * the first IR_CLIP whose atoi(id=) is id), or an empty box. */
static ir_box clip_box(clip_ref *c, size_t n, int id)
{
    for (size_t i = 0; i < n; i++) {
        if (c[i].id != id) continue;
        if (!c[i].have_box) {
            c[i].box = ir_elem_box(c[i].e);
            c[i].have_box = 1;
        }
        return c[i].box;
    }
    return ir_box_empty();
}

static void compute_bbox(ir_diagram *d)
{
    ir_box all = ir_box_empty();
    clip_ref *clips = NULL;
    size_t nclips = 0, capclips = 0;
    int clips_known = 0;
    /* the clip= text last looked up (attribute texts of a diagram are
     * often shared records, never changed) and its box */
    const char *last_cl = NULL;
    ir_box last_c = ir_box_empty();
    /* the same for lw= (NULL too) and its half */
    const char *last_lw = NULL;
    double last_hw = 0;
    int have_hw = 0;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (e->kind == IR_CLIP || e->kind == IR_UNPARSED || e->kind == IR_COORD ||
            e->kind == IR_OTHER || e->kind == IR_EDGE || e->kind == IR_VERTEX)
            continue;
        /* overlay=, draw=, lw= and clip= in one pass (the first of each, as
         * ir_elem_get finds them) */
        const char *ov = NULL, *dr = NULL, *lw = NULL, *cl = NULL;
        for (size_t k = 0; k < e->nattrs; k++) {
            const char *key = e->attrs[k].key;
            switch (key[0]) {
            case 'o':
                if (!ov && strcmp(key, "overlay") == 0) ov = e->attrs[k].val;
                break;
            case 'd':
                if (!dr && key[1] == 'r' && key[2] == 'a' && key[3] == 'w' && key[4] == '\0')
                    dr = e->attrs[k].val;
                break;
            case 'l':
                if (!lw && key[1] == 'w' && key[2] == '\0') lw = e->attrs[k].val;
                break;
            case 'c':
                if (!cl && key[1] == 'l' && key[2] == 'i' && key[3] == 'p' && key[4] == '\0')
                    cl = e->attrs[k].val;
                break;
            default:
                break;
            }
        }
        if (ov) continue;
        ir_box b0 = ir_elem_box(e);
        if (b0.empty) continue;
        ir_box b = b0;
        if (e->kind != IR_TEXT && dr &&
            !(dr[0] == 'n' && dr[1] == 'o' && dr[2] == 'n' && dr[3] == 'e' && dr[4] == '\0')) {
            if (!have_hw || lw != last_lw) {
                double lwv;
                last_hw = (ir_parse_num(lw, &lwv) ? lwv : 0.4) / 2;
                last_lw = lw;
                have_hw = 1;
            }
            double hw = last_hw;
            b.x1 -= hw; b.y1 -= hw; b.x2 += hw; b.y2 += hw;
        }
        if (cl) {
            if (!clips_known) {
                for (size_t j = 0; j < d->nelems; j++) {
                    const ir_elem *ce = &d->elems[j];
                    if (ce->kind != IR_CLIP) continue;
                    const char *v = ir_elem_get(ce, "id");
                    if (!v) continue;
                    if (nclips == capclips) {
                        capclips = capclips ? capclips * 2 : 16;
                        clips = xrealloc(clips, capclips * sizeof *clips);
                    }
                    clips[nclips].e = ce;
                    clips[nclips].id = clip_id(v);
                    clips[nclips].have_box = 0;
                    nclips++;
                }
                clips_known = 1;
            }
            ir_box c;
            if (cl == last_cl) {
                c = last_c;
            } else {
                c = clip_box(clips, nclips, clip_id(cl));
                last_cl = cl;
                last_c = c;
            }
            if (!c.empty) {
                if (b.x1 < c.x1 || b.y1 < c.y1 || b.x2 > c.x2 || b.y2 > c.y2)
                    b = clipped_box(e, b, c, b.x1 - b0.x1);
                b.x1 = fmax(b.x1, c.x1); b.y1 = fmax(b.y1, c.y1);
                b.x2 = fmin(b.x2, c.x2); b.y2 = fmin(b.y2, c.y2);
                if (b.empty || b.x1 > b.x2 || b.y1 > b.y2) continue;
            }
        }
        ir_box_union(&all, b);
    }
    free(clips);
    if (!all.empty) {
        d->has_bbox = 1;
        d->bbox[0] = all.x1; d->bbox[1] = all.y1; d->bbox[2] = all.x2; d->bbox[3] = all.y2;
    }
}

/* ---- current bounding box --------------------------------------------------
 * pgf's picture box as the picture goes on (\pgf@picminx ... \pgf@picmaxy):
 * each path's points grow it as the path is built (pgfcorepathconstruct:
 * \pgf@protocolsizes, a curve's control points too), by half the line width
 * when the path is stroked (pgfcorepathusage); a node by its shape's box
 * (pgfmoduleshapes), drawn or not. Paths and nodes in overlay mode do not. */
void tk_bbox_add(tikz *T, ir_box b)
{
    if (!T->d || GS(T)->overlay) return;
    ir_box_union(&T->pgfbox, b);
}

void tk_bbox_add_node(tikz *T, const tk_node *sh, double os, double hlw)
{
    if (sh->shape == TK_SH_COORD) return;
    if (sh->shape == TK_SH_RRECT || sh->shape == TK_SH_CHAMF || sh->shape == TK_SH_STAR) {
        /* the box of the path pgf draws, turned with the node */
        vec2 p[TK_SHAPE_PTS];
        size_t n = tk_shape_outline(sh, p);
        ir_box b = ir_box_empty();
        double c = cos(sh->rot * DEG), s = sin(sh->rot * DEG);
        for (size_t i = 0; i < n; i++)
            ir_box_add(&b, sh->c.x + p[i].x * c - p[i].y * s, sh->c.y + p[i].x * s + p[i].y * c);
        if (b.empty || !(hlw >= 0)) return;
        b.x1 -= hlw;
        b.y1 -= hlw;
        b.x2 += hlw;
        b.y2 += hlw;
        tk_bbox_add(T, b);
        return;
    }
    double hw = sh->hw - os + hlw, hh = sh->hh - os + hlw;
    if (sh->shape == TK_SH_ELLIPSE || sh->shape == TK_SH_DIAMOND || sh->shape == TK_SH_POLYGON) {
        /* their own frame, rotated by rot: the box of the rotated one */
        double c = fabs(cos(sh->rot * DEG)), s = fabs(sin(sh->rot * DEG));
        double w = hw * c + hh * s, h = hw * s + hh * c;
        hw = w;
        hh = h;
    }
    if (!(hw >= 0) || !(hh >= 0)) return;
    ir_box b = { sh->c.x - hw, sh->c.y - hh, sh->c.x + hw, sh->c.y + hh, 0 };
    tk_bbox_add(T, b);
}

int tk_current_bbox(tikz *T, tk_node *out)
{
    if (!T->d || T->pgfbox.empty) return -1;
    memset(out, 0, sizeof *out);
    out->c = v2((T->pgfbox.x1 + T->pgfbox.x2) / 2, (T->pgfbox.y1 + T->pgfbox.y2) / 2);
    out->hw = (T->pgfbox.x2 - T->pgfbox.x1) / 2;
    out->hh = (T->pgfbox.y2 - T->pgfbox.y1) / 2;
    out->shape = TK_SH_RECT;
    return 0;
}

static void picture_end(tikz *T)
{
    if (!T->d) return;
    while (T->ngs > T->pic_base) tk_gs_pop(T);
    compute_bbox(T->d);
    if (T->sink) T->sink(T->sink_ctx, T->d);
    else ir_diagram_free(T->d);
    T->d = NULL;
}

/* ---- the interpreter ------------------------------------------------------------ */

#define MAX_INPUT_BYTES (16L * 1024 * 1024)
#define MAX_ITERATIONS 200000       /* \foreach iterations per document */
#define MAX_FOREACH_NESTING 64
#define MAX_LIST_ITEMS 100000

static int run(tikz *T, int sentinel);

/* em and ex of lengths outside nodes (pgfmath's and the expander's) are
 * the document font's: Open Sans at TM_FONT_SCALE x its size, the x-height
 * 0.5352 em (the TFM's); a picture's font= option does not change them */
static void doc_font_units(tikz *T)
{
    double em = (T->doc_fs > 0 ? T->doc_fs : 12) * TM_FONT_SCALE;
    pgfmath_set_font(em, em * 0.5352);
    tex_set_font(T->tex, em, em * 0.5352);
}

/* TeX groups opened by '{' (kind 1), by \begin (kind 2) and by \begingroup
 * (kind 3), to report a '}' that closes an environment or an \end that
 * closes a brace group */
static void open_group(tikz *T, int kind, int line, int col)
{
    if (T->ngk == T->capgk) {
        T->capgk = T->capgk ? T->capgk * 2 : 32;
        T->gk = xrealloc(T->gk, T->capgk * sizeof *T->gk);
    }
    T->gk[T->ngk].kind = kind;
    T->gk[T->ngk].line = line;
    T->gk[T->ngk].col = col;
    T->gk[T->ngk].doc_fs = T->doc_fs;
    T->gk[T->ngk].doc_font = T->doc_font;
    T->ngk++;
    tex_group_begin(T->tex);
}

/* Closes the innermost group, which must be of this kind; 0 on a mismatch
 * (the error is reported). */
static int close_group(tikz *T, int kind, const tex_tok *at, const char *what)
{
    if (T->ngk == 0) {
        tex_error(T->tex, at->line, at->col, "%s closes no group", what);
        return 0;
    }
    if (T->ngk <= T->gk_floor) {
        tex_error(T->tex, at->line, at->col,
                  "%s closes a group opened outside the code it is in (a \\tikz, \\scoped or \\foreach body, a matrix cell, pic or calendar)", what);
        return 0;
    }
    if (T->gk[T->ngk - 1].kind != kind) {
        tex_error(T->tex, at->line, at->col, "%s, but the %s opened on line %d is still open",
                  what, T->gk[T->ngk - 1].kind == 1 ? "'{'" : T->gk[T->ngk - 1].kind == 3 ? "\\begingroup" : "environment",
                  T->gk[T->ngk - 1].line);
        return 0;
    }
    T->ngk--;
    if (T->doc_fs != T->gk[T->ngk].doc_fs) {
        T->doc_fs = T->gk[T->ngk].doc_fs;
        doc_font_units(T);
    }
    T->doc_font = T->gk[T->ngk].doc_font;
    tex_group_end(T->tex);
    return 1;
}

static int name_is(tikz *T, const tex_tok *t, const char *w)
{
    return t->type == T_CS && strcmp(tex_name(T->tex, t->name), w) == 0;
}

static char *toks_text(tikz *T, const toklist *l, int **lines)
{
    return tex_to_text(T->tex, l, 0, l->n, lines);
}

static void fatal_at(tikz *T, int line, int col, const char *fmt, const char *arg)
{
    tex_error(T->tex, line, col, fmt, arg);
}

/* Reads a control-sequence name argument: \name or {\name}. */
static int read_cs_arg(tikz *T, tex_tok *out)
{
    toklist a = { 0 };
    int r = tex_read_arg(T->tex, &a, 0);
    int ok = 0;
    for (size_t i = 0; i < a.n; i++)
        if (a.v[i].type == T_CS) { *out = a.v[i]; ok = 1; break; }
    tl_free(&a);
    return r > 0 && ok;
}

void tk_params_to_args(toklist *l)
{
    size_t o = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i].type == T_PARAM && i + 1 < l->n) {
            tex_tok nx = l->v[i + 1];
            if (nx.type == T_OTHER && nx.ch >= '1' && nx.ch <= '9') {
                tex_tok a = l->v[i];
                a.type = T_ARG;
                a.ch = nx.ch - '0';
                l->v[o++] = a;
                i++;
                continue;
            }
            if (nx.type == T_PARAM) { l->v[o++] = nx; i++; continue; }
        }
        l->v[o++] = l->v[i];
    }
    l->n = o;
}

static void do_def(tikz *T, const tex_tok *cmd, int global, int expand)
{
    tex_tok name;
    if (!tex_next(T->tex, &name) || name.type != T_CS) {
        fatal_at(T, cmd->line, cmd->col, "\\%s must be followed by a control sequence", "def");
        return;
    }
    toklist params = { 0 }, body = { 0 };
    tex_tok t;
    int nparams = 0;
    for (;;) {
        if (!tex_next(T->tex, &t)) {
            fatal_at(T, cmd->line, cmd->col, "end of input in the definition of \\%s",
                     tex_name(T->tex, name.name));
            tl_free(&params);
            return;
        }
        if (t.type == T_BEGIN) break;
        tl_push(&params, t);
    }
    tex_push_tok(T->tex, t);
    tk_params_to_args(&params);
    for (size_t i = 0; i < params.n; i++) if (params.v[i].type == T_ARG) nparams++;
    if (tex_read_arg(T->tex, &body, expand) <= 0) { tl_free(&params); tl_free(&body); return; }
    tk_params_to_args(&body);
    tex_define(T->tex, name.name, &params, nparams, &body, NULL, global);
    tl_free(&params);
    tl_free(&body);
}

static void do_newcommand(tikz *T, const tex_tok *cmd, int provide)
{
    tex_tok t;
    tex_skip_spaces(T->tex, 0);
    if (tex_next(T->tex, &t) && !(t.type == T_OTHER && t.ch == '*')) tex_push_tok(T->tex, t);
    tex_tok name;
    if (!read_cs_arg(T, &name)) {
        fatal_at(T, cmd->line, cmd->col, "\\%s needs a command name", "newcommand");
        return;
    }
    toklist n = { 0 }, def = { 0 }, body = { 0 };
    int nparams = 0, has_def = 0;
    if (tex_read_opt(T->tex, &n, 1) > 0) {
        char *s = toks_text(T, &n, NULL);
        nparams = atoi(s);
        free(s);
        if (nparams < 0 || nparams > 9) nparams = 0;
        has_def = tex_read_opt(T->tex, &def, 0) > 0;
    }
    if (tex_read_arg(T->tex, &body, 0) <= 0) { tl_free(&n); tl_free(&def); tl_free(&body); return; }
    tk_params_to_args(&body);
    if (!(provide && tex_is_defined(T->tex, name.name))) {
        toklist params = { 0 };
        for (int i = has_def ? 2 : 1; i <= nparams; i++) {
            tex_tok a = { T_ARG, i, 0, cmd->line, cmd->col };
            tl_push(&params, a);
        }
        tex_define(T->tex, name.name, &params, nparams - (has_def ? 1 : 0), &body,
                   has_def ? &def : NULL, 0);
        tl_free(&params);
    }
    tl_free(&n);
    tl_free(&def);
    tl_free(&body);
}

static void fmt_result(char *buf, size_t cap, double v, int truncate)
{
    if (truncate) { snprintf(buf, cap, "%.0f", trunc(v)); return; }
    snprintf(buf, cap, "%.5f", v);
    char *p = buf + strlen(buf) - 1;
    while (p > buf && *p == '0' && p[-1] != '.') *p-- = 0;
}

/* The expression is int(...) (with spaces and enclosing parentheses
 * around): pgf writes its value without a fractional part, "3" where any
 * other result is "3.0" (so \ifnum\pgfmathresult=3 works in TeX). */
static int is_int_call(const char *s)
{
    size_t n = strlen(s);
    for (;;) {
        while (n && isspace((unsigned char)s[n - 1])) n--;
        while (n && isspace((unsigned char)*s)) { s++; n--; }
        if (n < 2 || s[n - 1] != ')') return 0;
        /* the parenthesis closing at the end opens where? */
        size_t i = n - 1;
        int d = 0;
        for (;;) {
            if (s[i] == ')') d++;
            else if (s[i] == '(' && --d == 0) break;
            if (i == 0) return 0;
            i--;
        }
        if (i == 0) { s++; n -= 2; continue; }   /* (...) around the whole */
        size_t j = i;
        while (j && isspace((unsigned char)s[j - 1])) j--;
        return j == 3 && memcmp(s, "int", 3) == 0;
    }
}

static void do_pgfmath(tikz *T, const tex_tok *cmd, int mode)
{
    /* mode 0 setmacro, 1 truncatemacro, 2 parse, 3 setlengthmacro */
    tex_tok name = { 0 };
    if (mode != 2 && !read_cs_arg(T, &name)) {
        fatal_at(T, cmd->line, cmd->col, "\\%s needs a macro name", tex_name(T->tex, cmd->name));
        return;
    }
    toklist e = { 0 };
    if (tex_read_arg(T->tex, &e, 1) <= 0) { tl_free(&e); return; }
    char *s = toks_text(T, &e, NULL);
    tl_free(&e);
    double v;
    int hu = 0;
    char buf[64];
    if (tk_eval(T, s, strlen(s), &v, &hu) != 0) {
        tk_unparsed(T, cmd->line, s, "cannot evaluate pgfmath expression");
        free(s);
        return;
    }
    int integer = mode == 1 || ((mode == 0 || mode == 2) && is_int_call(s));
    free(s);
    fmt_result(buf, sizeof buf - 3, v, integer);
    if (mode == 3) strcat(buf, "pt");
    if (mode == 2) tex_define_text(T->tex, "pgfmathresult", buf, 0);
    else tex_define_text(T->tex, tex_name(T->tex, name.name), buf, 0);
}

/* An argument's text, macros expanded (malloc'd), or NULL */
static char *arg_text(tikz *T, int expand)
{
    toklist e = { 0 };
    if (tex_read_arg(T->tex, &e, expand) <= 0) { tl_free(&e); return NULL; }
    char *s = toks_text(T, &e, NULL);
    tl_free(&e);
    return s;
}

/* A random list's length and items are macros, as pgf keeps them:
 * pgfmath@randomlist@NAME (the length) and pgfmath@randomlist@NAME@K */
static char *randlist_name(const char *list, const char *suffix)
{
    size_t n = strlen(list) + strlen(suffix) + 24;
    char *nm = xrealloc(NULL, n);
    snprintf(nm, n, "pgfmath@randomlist@%s%s", list, suffix);
    return nm;
}

/* \pgfmathsetseed{expr}, \pgfmathdeclarerandomlist{name}{{a}{b}...},
 * \pgfmathrandomitem{\cs}{name}, \pgfmathrandominteger{\cs}{a}{b},
 * \pgfmathdeclarefunction{name}{n}{\pgfmathparse{expr}} */
static void do_pgfmath_more(tikz *T, const tex_tok *cmd, int kind)
{
    const char *nm = tex_name(T->tex, cmd->name);
    char src[200];
    snprintf(src, sizeof src, "\\%s", nm);
    if (kind == K_SETSEED) {
        char *s = arg_text(T, 1);
        double v;
        if (!s || tk_eval(T, s, strlen(s), &v, NULL) != 0 || !(fabs(v) < 2147483648.0)) {
            tk_unparsed(T, cmd->line, src, "cannot evaluate the seed");
        } else {
            pgfmath_set_seed((long)trunc(v));
            char buf[64];
            fmt_result(buf, sizeof buf, v, 0);
            tex_define_text(T->tex, "pgfmathresult", buf, 0);
        }
        free(s);
        return;
    }
    if (kind == K_RANDLIST) {
        char *name = arg_text(T, 1);
        char *items = arg_text(T, 0);
        if (!name || !items) {
            fatal_at(T, cmd->line, cmd->col, "\\%s needs a name and a list", nm);
        } else {
            long k = 0;
            size_t n = strlen(items), i = 0;
            while (i < n) {
                while (i < n && tk_space((unsigned char)items[i])) i++;
                if (i >= n) break;
                size_t st = i, en;
                if (items[i] == '{') {
                    int d = 0;
                    for (; i < n; i++) {
                        if (items[i] == '{') d++;
                        else if (items[i] == '}' && --d == 0) break;
                    }
                    st++;
                    en = i < n ? i : n;
                    if (i < n) i++;
                } else if (items[i] == '\\') {
                    i++;
                    while (i < n && isalpha((unsigned char)items[i])) i++;
                    if (i == st + 1 && i < n) i++;
                    en = i;
                } else {
                    en = ++i;
                }
                char ks[32];
                snprintf(ks, sizeof ks, "@%ld", ++k);
                char *mn = randlist_name(name, ks);
                char *it = xstrndup(items + st, en - st);
                tex_define_text(T->tex, mn, it, 1);
                free(it);
                free(mn);
                if (k >= 100000) break;
            }
            char ks[32];
            snprintf(ks, sizeof ks, "%ld", k);
            char *mn = randlist_name(name, "");
            tex_define_text(T->tex, mn, ks, 1);
            free(mn);
        }
        free(name);
        free(items);
        return;
    }
    if (kind == K_RANDITEM || kind == K_RANDINT) {
        tex_tok cs = { 0 };
        if (!read_cs_arg(T, &cs)) {
            fatal_at(T, cmd->line, cmd->col, "\\%s needs a macro name", nm);
            return;
        }
        if (kind == K_RANDINT) {
            char *a = arg_text(T, 1), *b = arg_text(T, 1);
            double x, y;
            if (!a || !b || tk_eval(T, a, strlen(a), &x, NULL) || tk_eval(T, b, strlen(b), &y, NULL) ||
                !(fabs(x) < 2147483648.0) || !(fabs(y) < 2147483648.0)) {
                tk_unparsed(T, cmd->line, src, "cannot evaluate the bounds");
            } else {
                char buf[32];
                snprintf(buf, sizeof buf, "%ld", pgfmath_random_int((long)trunc(x), (long)trunc(y)));
                tex_define_text(T->tex, tex_name(T->tex, cs.name), buf, 0);
            }
            free(a);
            free(b);
            return;
        }
        char *list = arg_text(T, 1);
        char *mn = list ? randlist_name(list, "") : NULL;
        const char *len = mn ? tex_macro_text(T->tex, tex_intern(T->tex, mn, strlen(mn))) : NULL;
        long n = len ? atol(len) : 0;
        if (n <= 0) {
            char why[200];
            snprintf(why, sizeof why, "unknown random list '%.60s'", list ? list : "");
            tk_unparsed(T, cmd->line, src, why);
        } else {
            char ks[32];
            snprintf(ks, sizeof ks, "@%ld", pgfmath_random_int(1, n));
            char *inm = randlist_name(list, ks);
            const char *it = tex_macro_text(T->tex, tex_intern(T->tex, inm, strlen(inm)));
            tex_define_text(T->tex, tex_name(T->tex, cs.name), it ? it : "", 0);
            free(inm);
        }
        free(mn);
        free(list);
        return;
    }
    /* K_DECLFUNC: \pgfmathdeclarefunction[*]{name}{nargs}{body} */
    tex_skip_spaces(T->tex, 0);
    tex_tok star;
    if (tex_next(T->tex, &star) && !(star.type == T_OTHER && star.ch == '*')) tex_push_tok(T->tex, star);
    char *name = arg_text(T, 1), *na = arg_text(T, 1), *body = arg_text(T, 0);
    if (!name || !na || !body) {
        fatal_at(T, cmd->line, cmd->col, "\\%s needs a name, a number of arguments and a body", nm);
    } else {
        /* the one body evaluated: \pgfmathparse{expr} */
        const char *b = body, *e = NULL;
        size_t bn = strlen(body), en = 0;
        tk_trim(&b, &bn);
        if (bn > 13 && memcmp(b, "\\pgfmathparse", 13) == 0) {
            const char *q = b + 13;
            size_t qn = bn - 13;
            tk_trim(&q, &qn);
            if (qn >= 2 && q[0] == '{' && q[qn - 1] == '}') {
                int d = 0;
                size_t k;
                for (k = 0; k < qn; k++) {
                    if (q[k] == '{') d++;
                    else if (q[k] == '}' && --d == 0) break;
                }
                if (k == qn - 1) { e = q + 1; en = qn - 2; }
            }
        }
        const char *nt = na;
        size_t nn = strlen(na);
        tk_trim(&nt, &nn);
        int nargs = (nn == 1 && nt[0] >= '0' && nt[0] <= '9') ? nt[0] - '0' : -1;
        if (nargs < 0 || tk_ufn_declare(T, name, strlen(name), nargs, NULL, NULL, e, en) != 0) {
            char why[200];
            snprintf(why, sizeof why, "cannot declare function '%.40s' with %.20s arguments", name, na);
            tk_unparsed(T, cmd->line, src, why);
        } else if (!e) {
            tk_warn(T, cmd->line, "function '%.40s': a body other than \\pgfmathparse{...} is not evaluated (its calls stay unparsed)", name);
        }
    }
    free(name);
    free(na);
    free(body);
}

static int run(tikz *T, int until);

/* Runs the tokens pushed up to the sentinel until as a body (a \tikz,
 * \scoped or \foreach body, a matrix cell's, pic's or calendar's code):
 * a group in TeX, so it closes no group opened before it (close_group
 * refuses below T->gk_floor). Returns the number of groups it left open. */
static size_t run_body(tikz *T, int until)
{
    size_t floor = T->gk_floor, base = T->ngk;
    T->gk_floor = base;
    run(T, until);
    T->gk_floor = floor;
    return T->ngk - base;
}

/* Runs TeX code as the document's own, in a group (a pic's code). */
void tk_run_code(tikz *T, const char *code, size_t n, int line)
{
    toklist l = { 0 };
    tex_tokenize(T->tex, code, n, line, &l);
    tex_group_begin(T->tex);
    tex_tok sen = { T_OTHER, -2, ++T->sentinel_id, line, 1 };
    tex_push_list_tok(T->tex, &l, sen);
    if (run_body(T, sen.name) && !tex_failed(T->tex))
        tex_error(T->tex, T->gk[T->ngk - 1].line, T->gk[T->ngk - 1].col,
                  "a group opened in a matrix cell, pic or calendar is not closed in it%s", "");
    tex_group_end(T->tex);
    tl_free(&l);
}

static int cs_kind(tikz *T, int id);

static void do_path(tikz *T, const tex_tok *cmd, int kind)
{
    T->cmd_line = cmd->line;
    if (++T->statements > MAX_STATEMENTS) {
        tex_error(T->tex, cmd->line, cmd->col, "more than %d drawing commands in one document", MAX_STATEMENTS);
        return;
    }
    const char *prefix = kind == CMD_NODE ? "node " : kind == CMD_COORDINATE ? "coordinate " :
                         kind == CMD_PIC ? "pic " : kind == CMD_GRAPH ? "graph " :
                         kind == CMD_MATRIX ? "node[matrix] " : "";
    /* the statement's text: up to ';' at brace depth 0, or to a '}', \begin,
     * \end or the end of a \foreach body (not ended); the buffers are the
     * expander's (reused, not freed here) */
    char *text;
    int *lines;
    int r = tex_read_statement(T->tex, prefix, cmd->line, &text, &lines);
    if (r < 0) return;
    int ended = r > 0;
    if (!ended) {
        char src[200];
        snprintf(src, sizeof src, "\\%s %s", tex_name(T->tex, cmd->name), text + strlen(prefix));
        tk_unparsed(T, cmd->line, src, "path not terminated by ';'");
    } else if (!T->d) {
        /* outside a picture: nothing to draw */
    } else if (kind == CMD_ADDPLOT) {
        tk_addplot(T, text, cmd->line);
    } else if (kind == CMD_CALENDAR) {
        tk_calendar(T, text, cmd->line);
    } else {
        /* a path is a TeX group: the styles its options define end with it */
        tex_group_begin(T->tex);
        tk_run_path(T, kind == CMD_GRAPH || kind == CMD_MATRIX ? CMD_PATH : kind, text, lines, cmd->line);
        tex_group_end(T->tex);
    }
}

/* ---- \foreach ---- */

/* A list of strings whose bytes live in chunks the list owns (chained
 * through their first word; a string never moves once added). */
typedef struct { char **v; size_t n, cap; void *chunks; char *p, *end; size_t next; } strlist;

/* Appends a copy of s[0..n) (NUL-terminated). */
static void sl_push_copy(strlist *l, const char *s, size_t n)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    if ((size_t)(l->end - l->p) < n + 1 || !l->p) {
        size_t size = l->next ? l->next : 512;
        if (size < n + 1) size = n + 1;
        if (l->next < 65536) l->next = l->next ? l->next * 2 : 1024;
        void **c = xrealloc(NULL, sizeof(void *) + size);
        *c = l->chunks;
        l->chunks = c;
        l->p = (char *)(c + 1);
        l->end = l->p + size;
    }
    char *d = l->p;
    if (n) memcpy(d, s, n);
    d[n] = '\0';
    l->p = d + n + 1;
    l->v[l->n++] = d;
}

static void sl_free(strlist *l)
{
    for (void *c = l->chunks, *next; c; c = next) {
        next = *(void **)c;
        free(c);
    }
    free(l->v);
}

static int is_number(const char *s, double *v)
{
    char *end;
    while (isspace((unsigned char)*s)) s++;
    if (!*s) return 0;
    *v = strtod(s, &end);
    while (isspace((unsigned char)*end)) end++;
    return *end == 0;
}

/* Appends v as a \foreach range item: a whole number as "%.0f", else
 * "%.6f" without trailing zeros. */
static void push_num(strlist *out, double v)
{
    char buf[64];
    if (fabs(v - round(v)) < 1e-9) {
        double r = round(v);
        if (fabs(r) < 1e15) {
            /* "%.0f" of a whole number below 2^53: its digits ("-0" for -0) */
            long long u = (long long)fabs(r);
            char *p = buf + sizeof buf;
            do { *--p = (char)('0' + u % 10); u /= 10; } while (u);
            if (signbit(r)) *--p = '-';
            sl_push_copy(out, p, (size_t)(buf + sizeof buf - p));
            return;
        }
        snprintf(buf, sizeof buf, "%.0f", r);
    } else {
        snprintf(buf, sizeof buf, "%.6f", v);
        char *p = buf + strlen(buf) - 1;
        while (*p == '0') *p-- = 0;
    }
    sl_push_copy(out, buf, strlen(buf));
}

/* Splits a \foreach list and expands "..." ranges. Returns -1 when too long. */
static int foreach_items(tikz *T, const char *s, strlist *out, int line)
{
    size_t n = strlen(s), i = 0;
    strlist raw = { 0 };
    while (i <= n) {
        long c = tk_find_top(s + i, n - i, ',');
        size_t len = c < 0 ? n - i : (size_t)c;
        const char *it = s + i;
        size_t itn = len;
        tk_trim(&it, &itn);
        if (itn) {
            tk_unbrace(&it, &itn);
            sl_push_copy(&raw, it, itn);
        }
        i += len + 1;
        if (c < 0) break;
    }
    int skip_end = 0;
    for (size_t k = 0; k < raw.n; k++) {
        if (skip_end) { skip_end = 0; continue; }
        if (strcmp(raw.v[k], "...") != 0) {
            sl_push_copy(out, raw.v[k], strlen(raw.v[k]));
            continue;
        }
        /* a range whose end is its start ({0,...,0}, {a,...,a}) has one item */
        if (out->n && k + 1 < raw.n && strcmp(out->v[out->n - 1], raw.v[k + 1]) == 0) {
            skip_end = 1;
            continue;
        }
        if (out->n == 0 || k + 1 >= raw.n) continue;
        double a, b, end;
        const char *last = out->v[out->n - 1];
        const char *nxt = raw.v[k + 1];
        if (is_number(last, &b) && is_number(nxt, &end)) {
            double step = end >= b ? 1 : -1;
            if (out->n >= 2 && is_number(out->v[out->n - 2], &a)) step = b - a;
            if (step == 0 || (end - b) / step > MAX_LIST_ITEMS) {
                tk_warn(T, line, "\\foreach range too long or empty step; truncated");
                if (step == 0) continue;
            }
            long cnt = 0;
            for (double x = b + step; step > 0 ? x <= end + 1e-9 : x >= end - 1e-9; x += step) {
                if (fabs(x - end) < 1e-9) break;   /* the end item follows */
                push_num(out, x);
                if (++cnt > MAX_LIST_ITEMS) break;
            }
        } else if (strlen(last) == 1 && strlen(nxt) == 1 && isalpha((unsigned char)last[0])) {
            for (char ch = (char)(last[0] + 1); ch < nxt[0]; ch++) {
                sl_push_copy(out, &ch, 1);
            }
        }
        if (out->n > MAX_LIST_ITEMS) break;
    }
    sl_free(&raw);
    return out->n > MAX_LIST_ITEMS ? -1 : 0;
}

/* Reads a \foreach body: a group, a nested \foreach, or tokens through ';'. */
static int read_foreach_tail(tikz *T, toklist *vars, toklist *opts, toklist *list, int *list_is_macro);

static int read_body(tikz *T, toklist *body)
{
    tex_tok t;
    tex_skip_spaces(T->tex, 0);
    if (!tex_next(T->tex, &t)) return 0;
    if (t.type == T_BEGIN) { tex_push_tok(T->tex, t); return tex_read_arg(T->tex, body, 0); }
    if (name_is(T, &t, "foreach")) {
        /* the nested loop, raw, as the body */
        tl_push(body, t);
        int depth = 0, seen_in = 0;
        tex_tok u;
        /* vars/opts/in/list */
        while (tex_next(T->tex, &u)) {
            tl_push(body, u);
            if (u.type == T_LETTER && u.ch == 'n' && body->n >= 2 &&
                body->v[body->n - 2].type == T_LETTER && body->v[body->n - 2].ch == 'i') {
                seen_in = 1;
                break;
            }
        }
        if (!seen_in) return 0;
        toklist lst = { 0 };
        if (tex_read_arg(T->tex, &lst, 0) <= 0) { tl_free(&lst); return 0; }
        tex_tok ob = { T_BEGIN, '{', 0, t.line, t.col }, cb = { T_END, '}', 0, t.line, t.col };
        tl_push(body, ob);
        tl_append(body, &lst);
        tl_push(body, cb);
        tl_free(&lst);
        toklist inner = { 0 };
        int r = read_body(T, &inner);
        tl_push(body, ob);
        tl_append(body, &inner);
        tl_push(body, cb);
        tl_free(&inner);
        (void)depth;
        return r;
    }
    tl_push(body, t);
    int depth = 0;
    for (;;) {
        if (!tex_next(T->tex, &t)) return 1;
        tl_push(body, t);
        if (t.type == T_BEGIN) depth++;
        else if (t.type == T_END) depth--;
        else if (depth == 0 && t.type == T_OTHER && t.ch == ';') return 1;
    }
}

static int read_foreach_tail(tikz *T, toklist *vars, toklist *opts, toklist *list, int *list_is_macro)
{
    (void)list_is_macro;
    tex_tok t;
    /* variables up to [ or 'in' */
    for (;;) {
        if (!tex_next(T->tex, &t)) return 0;
        if (t.type == T_SPACE) continue;
        if (t.type == T_CS || (t.type == T_OTHER && t.ch == '/')) { tl_push(vars, t); continue; }
        if (t.type == T_OTHER && t.ch == '[') {
            tex_push_tok(T->tex, t);
            if (tex_read_opt(T->tex, opts, 0) < 0) return -1;
            continue;
        }
        if (t.type == T_LETTER && t.ch == 'i') {
            tex_tok u;
            if (tex_next(T->tex, &u) && u.type == T_LETTER && u.ch == 'n') break;
            return 0;
        }
        return 0;
    }
    /* list: a group or a macro */
    tex_skip_spaces(T->tex, 0);
    if (!tex_next(T->tex, &t)) return 0;
    if (t.type == T_BEGIN) {
        tex_push_tok(T->tex, t);
        return tex_read_arg(T->tex, list, 1);
    }
    if (t.type == T_CS) {
        /* \foreach \x in \list: the list is the whole expansion of \list */
        const char *body = tex_macro_text(T->tex, t.name);
        if (body) {
            char *x = tk_expand_text(T, body, strlen(body));
            tex_tokenize(T->tex, x, strlen(x), t.line, list);
            free(x);
            return 1;
        }
    }
    tex_push_tok(T->tex, t);
    /* expand a macro holding the list */
    tex_tok u;
    if (tex_next_x(T->tex, &u) <= 0) return 0;
    if (u.type == T_BEGIN) {
        tex_push_tok(T->tex, u);
        return tex_read_arg(T->tex, list, 1);
    }
    tl_push(list, u);
    return 1;
}

static void do_foreach(tikz *T, const tex_tok *cmd)
{
    toklist vars = { 0 }, opts = { 0 }, list = { 0 }, body = { 0 };
    int lim = 0;
    if (read_foreach_tail(T, &vars, &opts, &list, &lim) <= 0 || read_body(T, &body) <= 0) {
        if (!tex_failed(T->tex))
            tex_error(T->tex, cmd->line, cmd->col, "malformed \\foreach (expected \\var in {list} body)");
        goto out;
    }
    if (T->foreach_depth >= MAX_FOREACH_NESTING) {
        tex_error(T->tex, cmd->line, cmd->col, "\\foreach nested more than %d deep", MAX_FOREACH_NESTING);
        goto out;
    }
    /* variable names */
    int vn[16], nv = 0;
    for (size_t i = 0; i < vars.n && nv < 16; i++)
        if (vars.v[i].type == T_CS) vn[nv++] = vars.v[i].name;
    if (nv == 0) { tex_error(T->tex, cmd->line, cmd->col, "\\foreach without a variable"); goto out; }
    char *ltext = toks_text(T, &list, NULL);
    strlist items = { 0 };
    if (foreach_items(T, ltext, &items, cmd->line) < 0) {
        tex_error(T->tex, cmd->line, cmd->col, "\\foreach list longer than %d items", MAX_LIST_ITEMS);
        free(ltext);
        sl_free(&items);
        goto out;
    }
    free(ltext);
    /* options: count=\i [from n], evaluate=\x as \y using expr */
    char *otext = toks_text(T, &opts, NULL);
    /* remember=\x as \lastx (initially v): \lastx is, in each iteration,
     * the value \x had at the end of the one before (v, or undefined, in
     * the first) */
    struct { char src[64], dst[64]; char *val; } rem[4];
    int nrem = 0;
    for (const char *o = otext; *o && nrem < 4;) {
        while (*o == ' ' || *o == ',') o++;
        const char *e = o;
        int d = 0;
        while (*e && !(*e == ',' && d == 0)) { if (*e == '{' || *e == '(') d++; else if ((*e == '}' || *e == ')') && d) d--; e++; }
        if (strncmp(o, "remember", 8) == 0) {
            const char *b1 = memchr(o, '\\', (size_t)(e - o));
            const char *as = tk_memmem(o, (size_t)(e - o), " as ");
            const char *b2 = as ? memchr(as, '\\', (size_t)(e - as)) : NULL;
            if (b1 && b2) {
                const char *n1 = b1 + 1, *n2 = b2 + 1;
                while (n1 < e && isalpha((unsigned char)*n1)) n1++;
                while (n2 < e && isalpha((unsigned char)*n2)) n2++;
                snprintf(rem[nrem].src, sizeof rem[nrem].src, "%.*s", (int)(n1 - b1 - 1), b1 + 1);
                snprintf(rem[nrem].dst, sizeof rem[nrem].dst, "%.*s", (int)(n2 - b2 - 1), b2 + 1);
                rem[nrem].val = NULL;
                const char *in = tk_memmem(n2, (size_t)(e - n2), "initially");
                if (in) {
                    const char *a = in + 9, *z = e;
                    while (z > a && (z[-1] == ' ' || z[-1] == ')')) { if (z[-1] == ')') { z--; break; } z--; }
                    const char *q = a;
                    size_t qn = (size_t)(z - a);
                    tk_trim(&q, &qn);
                    rem[nrem].val = xstrndup(q, qn);
                }
                nrem++;
            }
        }
        o = *e ? e + 1 : e;
    }
    T->foreach_depth++;
    for (size_t k = 0; k < items.n && !tex_failed(T->tex); k++) {
        if (++T->iterations > MAX_ITERATIONS) {
            tex_error(T->tex, cmd->line, cmd->col, "more than %d \\foreach iterations", MAX_ITERATIONS);
            break;
        }
        tex_group_begin(T->tex);
        /* split the item by '/' among the variables */
        const char *it = items.v[k];
        for (int v = 0; v < nv; v++) {
            const char *slash = v < nv - 1 ? strchr(it, '/') : NULL;
            size_t len = slash ? (size_t)(slash - it) : strlen(it);
            const char *p = it;
            size_t pn = len;
            tk_unbrace(&p, &pn);
            char vbuf[256];
            char *val = pn < sizeof vbuf ? vbuf : xstrndup(p, pn);
            if (val == vbuf) {
                memcpy(vbuf, p, pn);
                vbuf[pn] = '\0';
            }
            tex_define_text(T->tex, tex_name(T->tex, vn[v]), val, 0);
            if (val != vbuf) free(val);
            if (slash) it = slash + 1;
        }
        /* options */
        const char *o = otext;
        while (*o) {
            while (*o == ' ' || *o == ',') o++;
            const char *e = o;
            int d = 0;
            while (*e && !(*e == ',' && d == 0)) { if (*e == '{') d++; else if (*e == '}') d--; e++; }
            if (strncmp(o, "count", 5) == 0) {
                const char *bs = memchr(o, '\\', (size_t)(e - o));
                if (bs) {
                    const char *ne = bs + 1;
                    while (ne < e && isalpha((unsigned char)*ne)) ne++;
                    char nm[64];
                    snprintf(nm, sizeof nm, "%.*s", (int)(ne - bs - 1), bs + 1);
                    long from = 1;
                    const char *fr = tk_memmem(o, (size_t)(e - o), "from");
                    if (fr) from = atol(fr + 4);
                    char num[32];
                    snprintf(num, sizeof num, "%ld", from + (long)k);
                    tex_define_text(T->tex, nm, num, 0);
                }
            } else if (strncmp(o, "evaluate", 8) == 0) {
                /* evaluate=\x as \y using expr  |  evaluate=\x */
                const char *as = tk_memmem(o, (size_t)(e - o), " as ");
                const char *us = tk_memmem(o, (size_t)(e - o), " using ");
                if (as && us) {
                    const char *bs = memchr(as, '\\', (size_t)(us - as));
                    if (bs) {
                        const char *ne = bs + 1;
                        while (ne < us && isalpha((unsigned char)*ne)) ne++;
                        char nm[64];
                        snprintf(nm, sizeof nm, "%.*s", (int)(ne - bs - 1), bs + 1);
                        char *x = tk_expand_text(T, us + 7, (size_t)(e - us - 7));
                        double v;
                        if (tk_eval(T, x, strlen(x), &v, NULL) == 0) {
                            char num[64];
                            fmt_result(num, sizeof num, v, 0);
                            tex_define_text(T->tex, nm, num, 0);
                        }
                        free(x);
                    }
                }
            }
            o = *e ? e + 1 : e;
        }
        for (int r = 0; r < nrem; r++)
            if (rem[r].val) tex_define_text(T->tex, rem[r].dst, rem[r].val, 0);
        tex_tok sen = { T_OTHER, -2, ++T->sentinel_id, cmd->line, cmd->col };
        tex_push_list_tok(T->tex, &body, sen);
        size_t conds = tex_cond_depth(T->tex);
        run_body(T, sen.name);
        for (int r = 0; r < nrem; r++) {
            const char *cur = tex_macro_text(T->tex, tex_intern(T->tex, rem[r].src, strlen(rem[r].src)));
            free(rem[r].val);
            rem[r].val = cur ? xstrndup(cur, strlen(cur)) : NULL;
        }
        if (!tex_failed(T->tex) && tex_cond_depth(T->tex) != conds) {
            /* a conditional opened in the body and not closed there, or a
             * \fi closing one opened before the loop */
            int l = cmd->line, c = cmd->col;
            if (tex_cond_depth(T->tex) > conds) {
                int nm = tex_cond_open(T->tex, 0, &l, &c);
                tex_error(T->tex, l, c, "\\%s opened here is not closed (\\fi) within its \\foreach body",
                          tex_name(T->tex, nm));
            } else {
                tex_error(T->tex, l, c, "a \\fi in this \\foreach body closes a conditional opened before the loop%s", "");
            }
        }
        tex_group_end(T->tex);
    }
    T->foreach_depth--;
    for (int r = 0; r < nrem; r++) free(rem[r].val);
    free(otext);
    sl_free(&items);
out:
    tl_free(&vars);
    tl_free(&opts);
    tl_free(&list);
    tl_free(&body);
}

/* ---- environments ---- */

/* The environment name after \begin or \end: in buf (cap bytes) when it
 * fits, else malloc'd (free it when it is not buf). */
static char *read_env_name(tikz *T, char *buf, size_t cap, size_t *len)
{
    const char *s = tex_read_arg_text(T->tex, 1);
    if (!s) s = "";
    size_t n = strlen(s);
    *len = n;
    if (n < cap) { memcpy(buf, s, n + 1); return buf; }
    return xstrndup(s, n);
}

/* The environments do_begin and do_end know, by name (strcmp(env, name) == 0
 * as a length and a memcmp) */
enum { ENV_OTHER, ENV_TIKZPICTURE, ENV_SCOPE, ENV_AXIS, ENV_DOCUMENT };

static int env_kind(const char *env, size_t n)
{
    switch (n) {
    case 11: return memcmp(env, "tikzpicture", 11) == 0 ? ENV_TIKZPICTURE : ENV_OTHER;
    case 5: return memcmp(env, "scope", 5) == 0 ? ENV_SCOPE : ENV_OTHER;
    case 4: return memcmp(env, "axis", 4) == 0 ? ENV_AXIS : ENV_OTHER;
    case 8: return memcmp(env, "document", 8) == 0 ? ENV_DOCUMENT : ENV_OTHER;
    default: return ENV_OTHER;
    }
}

/* The options after \begin{env}: the expander's buffer, valid until the
 * next read_opts_text (nothing the options are applied with reads options
 * of an environment). */
static const char *read_opts_text(tikz *T, int *present)
{
    return tex_read_opt_text(T->tex, present);
}

static void begin_env(tikz *T, const tex_tok *cmd, int kind, const char *env);
static int classify_cs(const char *nm);

static void do_begin(tikz *T, const tex_tok *cmd)
{
    char ebuf[64];
    size_t envn;
    char *env = read_env_name(T, ebuf, sizeof ebuf, &envn);
    begin_env(T, cmd, env_kind(env, envn), env);
    if (env != ebuf) free(env);
}

/* An environment's beginning: \begin{env}, or plain TeX's \tikzpicture
 * and \scope, ConTeXt's \starttikzpicture and \startscope */
static void begin_env(tikz *T, const tex_tok *cmd, int kind, const char *env)
{
    int present;
    T->cmd_line = cmd->line;
    /* the environment's group opens before its options are applied: what
     * they define (styles) ends with it */
    if (kind == ENV_TIKZPICTURE) {
        if (T->d) {
            tex_error(T->tex, cmd->line, cmd->col, "nested tikzpicture%s", "");
        } else {
            const char *o = read_opts_text(T, &present);
            open_group(T, 2, cmd->line, cmd->col);
            picture_begin(T, o, strlen(o), cmd->line);
            return;
        }
        open_group(T, 2, cmd->line, cmd->col);
    } else if (kind == ENV_SCOPE) {
        const char *o = read_opts_text(T, &present);
        open_group(T, 2, cmd->line, cmd->col);
        tk_gs_push(T);
        if (T->d) tk_apply_opts(T, o, strlen(o), NULL, 0);
    } else if (kind == ENV_AXIS) {
        const char *o = read_opts_text(T, &present);
        open_group(T, 2, cmd->line, cmd->col);
        tk_gs_push(T);
        if (T->d) tk_axis_begin(T, o, strlen(o), cmd->line);
    } else {
        open_group(T, 2, cmd->line, cmd->col);
        /* LaTeX's size environments: \begin{small} is {\small */
        if (!T->d && kind == ENV_OTHER && classify_cs(env) == K_FONTSW && strcmp(env, "fontsize") != 0) {
            char buf[80];
            snprintf(buf, sizeof buf, "\\%.60s", env);
            double base = T->doc_fs > 0 ? T->doc_fs : 12;
            T->doc_fs = tm_font_size(buf, base, &T->doc_font);
            doc_font_units(T);
        }
        if (T->d && kind != ENV_DOCUMENT)
            tk_warn(T, cmd->line, "environment '%s' inside a picture ignored", env);
    }
}

/* \endtikzpicture, \endscope, \stoptikzpicture, \stopscope */
static void do_plain_end(tikz *T, const tex_tok *cmd, int kind)
{
    char what[96] = "";
    if (T->ngk == 0 || T->gk[T->ngk - 1].kind != 2 || T->ngk <= T->gk_floor)
        snprintf(what, sizeof what, "\\%.60s", tex_name(T->tex, cmd->name));
    if (!close_group(T, 2, cmd, what)) return;
    if (kind == ENV_TIKZPICTURE) picture_end(T);
    else if (T->ngs > T->pic_base + 1) tk_gs_pop(T);
}

static void do_end(tikz *T, const tex_tok *cmd)
{
    char ebuf[64];
    size_t envn;
    char *env = read_env_name(T, ebuf, sizeof ebuf, &envn);
    /* the \end{...} text only for close_group's error message (it needs
     * none when the innermost group is an environment) */
    char what[96] = "";
    if (T->ngk == 0 || T->gk[T->ngk - 1].kind != 2 || T->ngk <= T->gk_floor)
        snprintf(what, sizeof what, "\\end{%.60s}", env);
    if (!close_group(T, 2, cmd, what)) { if (env != ebuf) free(env); return; }
    int kind = env_kind(env, envn);
    if (kind == ENV_TIKZPICTURE) {
        picture_end(T);
    } else if (kind == ENV_SCOPE) {
        if (T->ngs > T->pic_base + 1) tk_gs_pop(T);
    } else if (kind == ENV_AXIS) {
        if (T->d) tk_axis_end(T);
        if (T->ngs > T->pic_base + 1) tk_gs_pop(T);
    }
    if (env != ebuf) free(env);
}

/* The body of \tikz or \scoped: a {...} group or one command up to its
 * ';' outside braces (unexpanded). 0 when there is none. */
static int read_cmd_body(tikz *T, toklist *body)
{
    tex_skip_spaces(T->tex, 0);
    tex_tok t;
    if (!tex_next(T->tex, &t)) return 0;
    if (t.type == T_BEGIN) {
        tex_push_tok(T->tex, t);
        return tex_read_arg(T->tex, body, 0) > 0;
    }
    int depth = 0;
    for (;;) {
        tl_push(body, t);
        if (t.type == T_BEGIN) depth++;
        else if (t.type == T_END && --depth < 0) return 0;
        else if (depth == 0 && t.type == T_OTHER && t.ch == ';') return 1;
        if (body->n > 1000000 || !tex_next(T->tex, &t)) return 0;
    }
}

/* \scoped[options] command; or {...}: the command in a scope */
static void do_scoped(tikz *T, const tex_tok *cmd)
{
    int present;
    T->cmd_line = cmd->line;
    const char *otext = read_opts_text(T, &present);
    char *opts = xstrdup(otext ? otext : "");
    toklist body = { 0 };
    if (!read_cmd_body(T, &body) || tex_failed(T->tex)) {
        if (!tex_failed(T->tex))
            tex_error(T->tex, cmd->line, cmd->col, "\\scoped without a body (a command up to ';' or a {...} group)%s", "");
    } else if (T->scoped_depth >= MAX_FOREACH_NESTING) {
        tex_error(T->tex, cmd->line, cmd->col, "\\scoped nested more than %d deep", MAX_FOREACH_NESTING);
    } else {
        T->scoped_depth++;
        tex_group_begin(T->tex);   /* before the options: what they define ends with it */
        tk_gs_push(T);
        if (T->d) tk_apply_opts(T, opts, strlen(opts), NULL, 0);
        size_t ngs = T->ngs;
        tex_tok sen = { T_OTHER, -2, ++T->sentinel_id, cmd->line, cmd->col };
        tex_push_list_tok(T->tex, &body, sen);
        run_body(T, sen.name);
        tex_group_end(T->tex);
        while (T->ngs >= ngs && T->ngs > T->pic_base + 1) tk_gs_pop(T);
        T->scoped_depth--;
    }
    tl_free(&body);
    free(opts);
}

/* \tikz[options]{commands} and \tikz[options] command; : a picture */
static void do_tikz(tikz *T, const tex_tok *cmd)
{
    int present;
    T->cmd_line = cmd->line;
    const char *otext = read_opts_text(T, &present);
    char *opts = xstrdup(otext ? otext : "");
    toklist body = { 0 };
    int ok = read_cmd_body(T, &body);
    if (!ok || tex_failed(T->tex)) {
        if (!tex_failed(T->tex))
            tex_error(T->tex, cmd->line, cmd->col, "\\tikz without a body (a command up to ';' or a {...} group)%s", "");
    } else if (T->d) {
        tk_unparsed(T, cmd->line, "\\tikz", "a \\tikz picture inside a picture");
    } else {
        open_group(T, 2, cmd->line, cmd->col);
        picture_begin(T, opts, strlen(opts), cmd->line);
        tex_tok sen = { T_OTHER, -2, ++T->sentinel_id, cmd->line, cmd->col };
        tex_push_list_tok(T->tex, &body, sen);
        /* the body cannot close the picture's own group */
        size_t open = run_body(T, sen.name);
        if (!tex_failed(T->tex)) {
            if (open) {
                tex_error(T->tex, T->gk[T->ngk - 1].line, T->gk[T->ngk - 1].col,
                          "a group opened in this \\tikz picture is not closed in it%s", "");
            } else {
                tex_tok at = *cmd;
                close_group(T, 2, &at, "\\tikz");
                picture_end(T);
            }
        }
    }
    tl_free(&body);
    free(opts);
}

static void do_tikzset(tikz *T)
{
    toklist a = { 0 };
    if (tex_read_arg(T->tex, &a, 0) > 0) {
        char *s = toks_text(T, &a, NULL);
        if (T->d) tk_gs_local(T);   /* in a { } group or loop body: the keys end with it */
        tk_apply_opts(T, s, strlen(s), NULL, 0);
        free(s);
    }
    tl_free(&a);
}

static void do_tikzstyle(tikz *T, const tex_tok *cmd)
{
    toklist name = { 0 }, val = { 0 };
    if (tex_read_arg(T->tex, &name, 0) <= 0) { tl_free(&name); return; }
    tex_skip_spaces(T->tex, 0);
    tex_tok t;
    int append = 0;
    if (tex_next(T->tex, &t)) {
        if (t.type == T_OTHER && t.ch == '+') { append = 1; tex_next(T->tex, &t); }
        if (!(t.type == T_OTHER && t.ch == '=')) tex_push_tok(T->tex, t);
    }
    if (tex_read_opt(T->tex, &val, 0) <= 0) {
        tk_warn(T, cmd->line, "\\tikzstyle without [options]");
    } else {
        char *n = toks_text(T, &name, NULL), *v = toks_text(T, &val, NULL);
        if (strcmp(n, "every node") == 0) {
            char *opt = xmalloc(strlen(v) + 40);
            sprintf(opt, "every node/.style={%s}", v);
            tk_apply_opts(T, opt, strlen(opt), NULL, 0);
            free(opt);
        } else {
            tk_define_style(T, n, strlen(n), v, strlen(v), append);
        }
        free(n);
        free(v);
    }
    tl_free(&name);
    tl_free(&val);
}

static void skip_args(tikz *T, int nopt, int nargs)
{
    toklist a = { 0 };
    for (int i = 0; i < nopt; i++) { tex_read_opt(T->tex, &a, 0); a.n = 0; }
    for (int i = 0; i < nargs; i++) { tex_read_arg(T->tex, &a, 0); a.n = 0; }
    tl_free(&a);
}

static const char *const ignored_cs[] = {
    "relax", "par", "noindent", "centering", "itshape",
    "sffamily", "rmfamily", "\\", " ", "vspace", "hspace", "makeatletter", "makeatother",
    "pagestyle", "thispagestyle", "maketitle", "clearpage", "newpage", "vfill", "hfill",
    "quad", "qquad", ",", ";", "!", "displaystyle", "color", "selectfont", NULL
};

/* font switches: outside a picture they set the document's font, which a
 * picture starts in; inside one they are ignored (as before) */
static const char *const font_cs[] = {
    "tiny", "scriptsize", "footnotesize", "small", "normalsize", "large", "Large",
    "LARGE", "huge", "Huge", "bfseries", "mdseries", "normalfont", "fontsize", NULL
};

/* A font switch outside a picture (\small, \bfseries, \fontsize{9}{11}):
 * the document's font from here to the end of the enclosing group. */
static void doc_font_switch(tikz *T, const tex_tok *t)
{
    const char *nm = tex_name(T->tex, t->name);
    char buf[160];
    if (strcmp(nm, "fontsize") == 0) {
        toklist a = { 0 }, b = { 0 };
        if (tex_read_arg(T->tex, &a, 0) > 0 && tex_read_arg(T->tex, &b, 0) > 0 && !T->d) {
            char *s = toks_text(T, &a, NULL);
            snprintf(buf, sizeof buf, "\\fontsize{%.100s}{}", s);
            free(s);
        } else {
            buf[0] = '\0';
        }
        tl_free(&a);
        tl_free(&b);
    } else {
        snprintf(buf, sizeof buf, "\\%.100s", nm);
    }
    if (T->d || !buf[0]) return;
    double base = T->doc_fs > 0 ? T->doc_fs : 12;
    T->doc_fs = tm_font_size(buf, base, &T->doc_font);
    doc_font_units(T);
}

static int classify_cs(const char *nm)
{
    static const struct { const char *name; int k; } tab[] = {
        { "begin", K_BEGIN }, { "end", K_END }, { "def", K_DEF }, { "gdef", K_GDEF },
        { "begingroup", K_BEGINGROUP }, { "endgroup", K_ENDGROUP },
        { "edef", K_EDEF }, { "xdef", K_XDEF }, { "newcommand", K_NEWCOMMAND },
        { "renewcommand", K_NEWCOMMAND }, { "providecommand", K_PROVIDECOMMAND },
        { "let", K_LET }, { "pgfmathsetmacro", K_SETMACRO },
        { "pgfmathtruncatemacro", K_TRUNCATEMACRO }, { "pgfmathparse", K_PARSE },
        { "pgfmathsetlengthmacro", K_SETLENGTHMACRO }, { "foreach", K_FOREACH },
        { "draw", K_DRAW }, { "fill", K_FILL }, { "shade", K_FILL }, { "pattern", K_FILL },
        { "filldraw", K_FILLDRAW }, { "shadedraw", K_FILLDRAW }, { "path", K_PATH },
        /* a path not drawn that sets pgf's picture box: the IR's bbox is the
         * ink extent (diagramir(5)), which it does not change: as \path */
        { "useasboundingbox", K_PATH },
        { "clip", K_CLIP }, { "node", K_NODE }, { "coordinate", K_COORDINATE }, { "pic", K_PIC }, { "graph", K_GRAPH }, { "tikzgraphsset", K_GRAPHSSET },
        { "matrix", K_MATRIX }, { "calendar", K_CALENDAR },
        { "addplot", K_ADDPLOT }, { "addplot3", K_ADDPLOT }, { "tikzset", K_TIKZSET },
        { "pgfplotsset", K_TIKZSET }, { "tikzstyle", K_TIKZSTYLE },
        { "documentclass", K_SKIP11 }, { "usepackage", K_SKIP11 },
        { "usetikzlibrary", K_SKIP01 }, { "usepgfplotslibrary", K_SKIP01 },
        { "newlength", K_SKIP01 }, { "title", K_SKIP01 }, { "author", K_SKIP01 },
        { "date", K_SKIP01 }, { "definecolor", K_SKIP03 }, { "colorlet", K_SKIP02 },
        { "setlength", K_SETLENGTH }, { "newif", K_NEWIF },
        { "pgfmathsetseed", K_SETSEED }, { "pgfmathdeclarerandomlist", K_RANDLIST },
        { "pgfmathrandomitem", K_RANDITEM }, { "pgfmathrandominteger", K_RANDINT },
        { "pgfmathdeclarefunction", K_DECLFUNC }, { "tikz", K_TIKZ }, { "scoped", K_SCOPED },
        { "tikzpicture", K_PLAIN_PICTURE }, { "endtikzpicture", K_PLAIN_ENDPICTURE },
        { "starttikzpicture", K_PLAIN_PICTURE }, { "stoptikzpicture", K_PLAIN_ENDPICTURE },
        { "scope", K_PLAIN_SCOPE }, { "endscope", K_PLAIN_ENDSCOPE },
        { "startscope", K_PLAIN_SCOPE }, { "stopscope", K_PLAIN_ENDSCOPE }, { NULL, 0 }
    };
    for (int i = 0; tab[i].name; i++) if (!strcmp(nm, tab[i].name)) return tab[i].k;
    for (int i = 0; ignored_cs[i]; i++) if (!strcmp(nm, ignored_cs[i])) return K_IGNORED;
    for (int i = 0; font_cs[i]; i++) if (!strcmp(nm, font_cs[i])) return K_FONTSW;
    return K_UNKNOWN;
}

/* The command of a control sequence, by its interned name id (cached: the
 * ids of one expander never change). */
static int cs_kind(tikz *T, int id)
{
    if (id < 0) return classify_cs(tex_name(T->tex, id));
    if ((size_t)id >= T->ncskind) {
        size_t n = T->ncskind ? T->ncskind : 256;
        while (n <= (size_t)id) n *= 2;
        T->cskind = xrealloc(T->cskind, n);
        memset(T->cskind + T->ncskind, 0, n - T->ncskind);
        T->ncskind = n;
    }
    if (!T->cskind[id]) T->cskind[id] = (unsigned char)classify_cs(tex_name(T->tex, id));
    return T->cskind[id];
}

static int run(tikz *T, int sentinel)
{
    tex_tok t;
    for (;;) {
        int r = tex_next_x(T->tex, &t);
        if (r < 0 || tex_failed(T->tex)) return -1;
        if (r == 0) return 0;
        if (t.type == T_OTHER && t.ch == -2) {
            if (t.name == sentinel) return 0;
            continue;
        }
        if (t.type == T_BEGIN) { open_group(T, 1, t.line, t.col); continue; }
        if (t.type == T_END) {
            if (!close_group(T, 1, &t, "'}'")) return -1;
            continue;
        }
        if (t.type != T_CS) continue;
        T->cmd_line = t.line;
        T->cmd_col = t.col;
        switch (cs_kind(T, t.name)) {
        case K_BEGIN: do_begin(T, &t); break;
        case K_END: do_end(T, &t); break;
        case K_BEGINGROUP: open_group(T, 3, t.line, t.col); break;
        case K_ENDGROUP:
            if (!close_group(T, 3, &t, "\\endgroup")) return -1;
            break;
        case K_DEF: do_def(T, &t, 0, 0); break;
        case K_GDEF: do_def(T, &t, 1, 0); break;
        case K_EDEF: do_def(T, &t, 0, 1); break;
        case K_XDEF: do_def(T, &t, 1, 1); break;
        case K_NEWCOMMAND: do_newcommand(T, &t, 0); break;
        case K_PROVIDECOMMAND: do_newcommand(T, &t, 1); break;
        case K_LET: {
            tex_tok a, b;
            if (tex_next(T->tex, &a) && a.type == T_CS) {
                tex_skip_spaces(T->tex, 0);
                if (tex_next(T->tex, &b)) {
                    if (b.type == T_OTHER && b.ch == '=') { tex_skip_spaces(T->tex, 0); tex_next(T->tex, &b); }
                    tex_let(T->tex, a.name, b, 0);
                }
            }
            break;
        }
        case K_SETMACRO: do_pgfmath(T, &t, 0); break;
        case K_TRUNCATEMACRO: do_pgfmath(T, &t, 1); break;
        case K_PARSE: do_pgfmath(T, &t, 2); break;
        case K_SETLENGTHMACRO: do_pgfmath(T, &t, 3); break;
        case K_FOREACH: do_foreach(T, &t); break;
        case K_TIKZ: do_tikz(T, &t); break;
        case K_SCOPED: do_scoped(T, &t); break;
        case K_PLAIN_PICTURE: begin_env(T, &t, ENV_TIKZPICTURE, "tikzpicture"); break;
        case K_PLAIN_SCOPE: begin_env(T, &t, ENV_SCOPE, "scope"); break;
        case K_PLAIN_ENDPICTURE: do_plain_end(T, &t, ENV_TIKZPICTURE); break;
        case K_PLAIN_ENDSCOPE: do_plain_end(T, &t, ENV_SCOPE); break;
        case K_SETSEED: case K_RANDLIST: case K_RANDITEM: case K_RANDINT: case K_DECLFUNC:
            do_pgfmath_more(T, &t, cs_kind(T, t.name));
            break;
        case K_DRAW: do_path(T, &t, CMD_DRAW); break;
        case K_FILL: do_path(T, &t, CMD_FILL); break;
        case K_FILLDRAW: do_path(T, &t, CMD_FILLDRAW); break;
        case K_PATH: do_path(T, &t, CMD_PATH); break;
        case K_CLIP: do_path(T, &t, CMD_CLIP); break;
        case K_NODE: do_path(T, &t, CMD_NODE); break;
        case K_COORDINATE: do_path(T, &t, CMD_COORDINATE); break;
        case K_PIC: do_path(T, &t, CMD_PIC); break;
        case K_GRAPH: do_path(T, &t, CMD_GRAPH); break;
        case K_GRAPHSSET: {
            /* the graphs library's keys: kept for the graphs that follow
             * (graph.c reads them before a graph's own options) until the
             * group ends (\pgfkeys: local) */
            toklist a = { 0 };
            if (tex_read_arg(T->tex, &a, 0) > 0) {
                char *s = toks_text(T, &a, NULL);
                size_t o = T->graphsset ? strlen(T->graphsset) : 0, n = strlen(s);
                char *v = xmalloc(o + n + 2);
                if (o) { memcpy(v, T->graphsset, o); v[o++] = ','; }
                memcpy(v + o, s, n + 1);
                tk_set_every(T, 2, v);
                free(s);
            }
            tl_free(&a);
            break;
        }
        case K_MATRIX: do_path(T, &t, CMD_MATRIX); break;
        case K_CALENDAR: do_path(T, &t, CMD_CALENDAR); break;
        case K_ADDPLOT: do_path(T, &t, CMD_ADDPLOT); break;
        case K_TIKZSET: do_tikzset(T); break;
        case K_TIKZSTYLE: do_tikzstyle(T, &t); break;
        case K_SKIP11: skip_args(T, 1, 1); break;
        case K_SKIP01: skip_args(T, 0, 1); break;
        case K_SKIP03: skip_args(T, 0, 3); break;
        case K_SKIP02: skip_args(T, 0, 2); break;
        case K_SETLENGTH: {
            tex_tok name;
            toklist v = { 0 };
            if (read_cs_arg(T, &name) && tex_read_arg(T->tex, &v, 1) > 0) {
                char *s = toks_text(T, &v, NULL);
                tex_define_text(T->tex, tex_name(T->tex, name.name), s, 0);
                free(s);
            }
            tl_free(&v);
            break;
        }
        case K_NEWIF: {
            tex_tok name;
            if (!tex_next(T->tex, &name)) name.type = 0;
            tex_newif(T->tex, &t, &name);
            break;
        }
        case K_IGNORED: break;
        case K_FONTSW: if (!T->d) doc_font_switch(T, &t); break;
        default:
            if (T->d) {
                char src[160];
                snprintf(src, sizeof src, "\\%s", tex_name(T->tex, t.name));
                T->cmd_line = t.line;
                tk_unparsed(T, t.line, src, "undefined control sequence");
            }
            break;
        }
        if (tex_failed(T->tex)) return -1;
    }
}

struct tikz_session {
    tikz T;                   /* the state after the class prelude */
    size_t base_styles;
};

/* The expander's hooks (tex_hooks): a control sequence the interpreter
 * knows is defined (\ifx, \ifdefined); a conditional it cannot evaluate
 * becomes an unparsed record (outside a picture: the warning only). */
static int hook_known(void *ctx, int name)
{
    int k = cs_kind(ctx, name);
    return k != K_UNKNOWN;
}

static void hook_unparsed(void *ctx, int line, int col, const char *src, const char *why)
{
    tikz *T = ctx;
    int ol = T->cmd_line, oc = T->cmd_col;
    T->cmd_line = line;
    T->cmd_col = col;
    tk_unparsed(T, line, src, why);
    T->cmd_line = ol;
    T->cmd_col = oc;
}

/* A TeX group ended: the styles, every node/label values and pgfmath
 * functions set in it go */
static void hook_group_end(void *ctx, int depth)
{
    tk_styles_group_end(ctx, depth);
    tk_ufn_group_end(ctx, depth);
}

static void tikz_init(tikz *T)
{
    memset(T, 0, sizeof *T);
    T->tex = tex_new();
    tex_hooks h = { T, hook_known, hook_unparsed, hook_group_end };
    tex_set_hooks(T->tex, &h);
    double em, ex;
    pgfmath_get_font(&em, &ex);   /* the picture's font, as for lengths in em */
    tex_set_font(T->tex, em, ex);
    tk_gs_push(T);
    tex_define_text(T->tex, "pgfmathresult", "0", 1);
    pgfmath_set_seed(1);   /* pgf: \time * \year; here the same sequence every run */
    toklist pre = { 0 };
    tex_tokenize(T->tex, prelude, strlen(prelude), 0, &pre);
    tex_push_list(T->tex, &pre);
    tl_free(&pre);
    run(T, 0);
    tk_apply_opts(T, class_styles, strlen(class_styles), NULL, 0);
}

static void free_nodes_paths(tikz *T)
{
    for (size_t i = 0; i < T->nnodes; i++) free(T->nodes[i].name);
    T->nnodes = 0;
    free(T->node_hash);
    T->node_hash = NULL;
    T->node_hcap = T->node_hidx = 0;
    for (size_t i = 0; i < T->npaths; i++) { free(T->paths[i].name); free(T->paths[i].pts); }
    T->npaths = 0;
}

static void tikz_fini(tikz *T)
{
    free(T->gk);
    free(T->cskind);
    free(T->graphsset);
    tk_path_scanner_free(T);
    while (T->ngs) tk_gs_pop(T);
    free(T->gs);
    free_nodes_paths(T);
    free(T->nodes);
    for (size_t i = 0; i < T->nstyles; i++) { free(T->styles[i].name); free(T->styles[i].val); }
    free(T->styles);
    tk_styles_free_saves(T);
    free(T->paths);
    tk_nodesets_free(T);
    tk_ufn_free(T);
    tex_free(T->tex);
}

tikz_session *tikz_session_new(void)
{
    tikz_session *s = xmalloc(sizeof *s);
    tikz_init(&s->T);
    s->base_styles = s->T.nstyles;
    s->T.style_floor = s->T.nstyles;
    return s;
}

void tikz_session_free(tikz_session *s)
{
    if (!s) return;
    tikz_fini(&s->T);
    free(s);
}

typedef struct { ir_diagram **v; size_t n, cap; } diagram_list;

static void collect(void *ctx, ir_diagram *d)
{
    diagram_list *done = ctx;
    if (done->n == done->cap) {
        done->cap = done->cap ? done->cap * 2 : 4;
        done->v = xrealloc(done->v, done->cap * sizeof *done->v);
    }
    done->v[done->n++] = d;
}

/* The number of '\n' in s[0..n) */
static size_t count_newlines(const char *s, size_t n)
{
    size_t c = 0;
    for (const char *p = s, *end = s + n; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) c++;
    return c;
}

int tikz_convert(const char *src, size_t len, tikz_config *cfg, tikz_sink sink, void *sink_ctx)
{
    cfg->nwarnings = 0;
    cfg->nunparsed = 0;
    if ((long)len > MAX_INPUT_BYTES) {
        if (cfg->diag) fprintf(cfg->diag, "%s:1:1: error: input larger than %ld bytes\n", cfg->fname, MAX_INPUT_BYTES);
        return 2;
    }
    /* binary input */
    int line = 1, col = 1;
    if (len && memchr(src, 0, len)) {
        for (size_t i = 0; i < len; i++) {
            if (src[i] == 0) {
                if (cfg->diag) fprintf(cfg->diag, "%s:%d:%d: error: NUL byte: binary input, not TeX\n", cfg->fname, line, col);
                return 2;
            }
            if (src[i] == '\n') { line++; col = 1; } else col++;
        }
    }
    /* the number of the last line */
    line += (int)count_newlines(src, len);
    tikz_session *own = cfg->session ? NULL : tikz_session_new();
    tikz_session *S = cfg->session ? cfg->session : own;
    tikz *T = &S->T;
    T->cfg = cfg;
    /* finished diagrams are handed over only when the whole file converted
     * without an input error */
    diagram_list done = { 0 };
    T->sink = collect;
    T->sink_ctx = &done;
    tex_group_begin(T->tex);      /* the file's definitions end with it */
    T->doc_fs = 0;                /* the class's font, 12pt */
    T->doc_font = 0;
    doc_font_units(T);
    tk_gs_push(T);
    size_t base_gs = T->ngs;
    tex_push_text(T->tex, src, len, 1);
    tex_reset_budget(T->tex);
    run(T, 0);
    int rc = 0;
    if (tex_failed(T->tex)) {
        if (cfg->diag) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", tex_error_msg(T->tex));
            cli_one_line(msg);
            fprintf(cfg->diag, "%s:%d:%d: error: %s\n", cfg->fname, tex_error_line(T->tex),
                    tex_error_col(T->tex), msg);
        }
        rc = 2;
    } else if (tex_cond_depth(T->tex) > 0) {
        if (cfg->diag) {
            int l, c;
            int nm = tex_cond_open(T->tex, 0, &l, &c);
            fprintf(cfg->diag, "%s:%d:%d: error: end of input inside \\%s begun here (no \\fi)",
                    cfg->fname, l, c, tex_name(T->tex, nm));
            if (tex_cond_depth(T->tex) > 1)
                fprintf(cfg->diag, " (%zu conditionals unclosed)", tex_cond_depth(T->tex));
            fputc('\n', cfg->diag);
        }
        rc = 2;
    } else if (T->ngk > 0 && T->gk[T->ngk - 1].kind != 2) {
        /* the innermost open group is a brace or \begingroup: name it, not the end */
        if (cfg->diag) {
            fprintf(cfg->diag, "%s:%d:%d: error: %s", cfg->fname, T->gk[T->ngk - 1].line, T->gk[T->ngk - 1].col,
                    T->gk[T->ngk - 1].kind == 1 ? "unbalanced braces: end of input inside a group opened here" :
                    "end of input inside the \\begingroup begun here (no \\endgroup)");
            if (T->ngk > 1) fprintf(cfg->diag, " (%zu groups unclosed)", T->ngk);
            fputc('\n', cfg->diag);
        }
        rc = 2;
    } else if (T->d) {
        if (cfg->diag)
            fprintf(cfg->diag, "%s:%d:1: error: end of input inside the tikzpicture begun here\n",
                    cfg->fname, T->d->irline);
        rc = 2;
    } else if (T->ngk > 0) {
        if (cfg->diag) {
            fprintf(cfg->diag, "%s:%d:%d: error: end of input inside the environment begun here",
                    cfg->fname, T->gk[T->ngk - 1].line, T->gk[T->ngk - 1].col);
            if (T->ngk > 1) fprintf(cfg->diag, " (%zu groups unclosed)", T->ngk);
            fputc('\n', cfg->diag);
        }
        rc = 2;
    } else if (tex_group_depth(T->tex) > 1) {
        if (cfg->diag)
            fprintf(cfg->diag, "%s:%d:1: error: end of input with %d unclosed group(s)\n",
                    cfg->fname, line, tex_group_depth(T->tex) - 1);
        rc = 2;
    }
    if (T->d) { ir_diagram_free(T->d); T->d = NULL; }
    for (size_t i = 0; i < done.n; i++) {
        if (rc == 0 && sink) sink(sink_ctx, done.v[i]);
        else ir_diagram_free(done.v[i]);
    }
    free(done.v);
    /* back to the session's state */
    tex_reset(T->tex, 0);
    while (T->ngs >= base_gs) tk_gs_pop(T);
    free_nodes_paths(T);
    while (T->nstyles > S->base_styles) {
        T->nstyles--;
        free(T->styles[T->nstyles].name);
        free(T->styles[T->nstyles].val);
    }
    free(T->graphsset);
    T->graphsset = NULL;
    T->npictures = 0;
    T->iterations = 0;
    T->statements = 0;
    T->ngk = 0;
    T->foreach_depth = 0;
    T->nclips = 0;
    T->axis.active = 0;
    T->cfg = NULL;
    T->sink = NULL;
    T->sink_ctx = NULL;
    tikz_session_free(own);
    return rc;
}
