/* pic.c — pics: the angles library's angle and right angle (with the
 * quotes library's "text" option), and the pics a document defines. */
#include "grammar/interp.h"
#include "grammar/pathgrammar.h"
#include "ir/xalloc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANGLE_RADIUS_PT 14.226378   /* angles library: angle radius=5mm */

/* The options of an angle pic: "text"opts (quotes), pic text=, pic text
 * options= are taken out; the rest are the pic's actions (draw, fill, ->,
 * angle radius=, ...). */
static void pic_options(const char *s, struct tp_buf *actions, char **text, char **topts)
{
    size_t n = s ? strlen(s) : 0, i = 0, in;
    const char *it;
    while (tk_next_item(s, n, ',', &i, &it, &in)) {
        if (in == 0) continue;
        if (it[0] == '"') {
            const char *q = memchr(it + 1, '"', in - 1);
            size_t tl = q ? (size_t)(q - it - 1) : in - 1;
            const char *rest = q ? q + 1 : it + in;
            size_t rn = (size_t)(it + in - rest);
            tk_trim(&rest, &rn);
            if (rn && rest[0] == '\'') { rest++; rn--; }
            tk_unbrace(&rest, &rn);
            free(*text);
            *text = xstrndup(it + 1, tl);
            free(*topts);
            *topts = xrealloc(NULL, rn + 20);
            snprintf(*topts, rn + 20, "every pic quotes,%.*s", (int)rn, rest);
            continue;
        }
        long eq = tk_find_top(it, in, '=');
        if (eq > 0) {
            const char *k = it, *v = it + eq + 1;
            size_t kn = (size_t)eq, vn = in - (size_t)eq - 1;
            tk_trim(&k, &kn);
            tk_unbrace(&v, &vn);
            if (tk_is(k, kn, "pic text")) { free(*text); *text = xstrndup(v, vn); continue; }
            if (tk_is(k, kn, "pic text options")) { free(*topts); *topts = xstrndup(v, vn); continue; }
        }
        if (actions->n) tp_buf_add(actions, ",", 1);
        tp_buf_add(actions, it, in);
    }
}

/* #1 in a style's text replaced by the value (a pic {name=value}) */
static char *subst_arg1(const char *s, size_t n, const char *v, size_t vn)
{
    struct tp_buf o = { 0 };
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '#' && i + 1 < n && s[i + 1] == '1') { tp_buf_add(&o, v, vn); i++; }
        else tp_buf_add(&o, s + i, 1);
    }
    if (!o.s) tp_buf_add(&o, "", 0);
    return o.s;
}

#define MAX_PIC_DEPTH 16
#define MAX_PIC_KEYS 64

/* The keys of a pic type, as TikZ runs them in /tikz/pics/ (\pgfkeys{/tikz/
 * pics/.cd,#1}): code=, background code=, foreground code= set the code (the
 * last one of each wins), a pics/NAME style (NAME/.pic or pics/NAME/.style)
 * is expanded with its #1 and its keys are read the same way; other keys
 * are options of the pic's scope (opts). 0, or -1 with *why set when a key
 * names no pic the document defined. */
struct pic_code { const char *cd, *bg, *fg; size_t cdn, bgn, fgn; char *owned[MAX_PIC_KEYS]; int nowned; };

static int pic_keys(tikz *T, const char *s, size_t n, struct pic_code *pc, struct tp_buf *opts,
                    const char **why, int depth)
{
    if (depth > MAX_PIC_DEPTH) { *why = "pic styles nested too deep"; return -1; }
    size_t i = 0, in;
    const char *it;
    while (tk_next_item(s, n, ',', &i, &it, &in)) {
        tk_trim(&it, &in);
        if (in == 0) continue;
        const char *k, *v;
        size_t kn, vn;
        if (tk_split_kv(it, in, &k, &kn, &v, &vn) == 0) { k = it; kn = in; v = NULL; vn = 0; }   /* "=x": a key */
        if (kn > 6 && memcmp(k, "/tikz/", 6) == 0) { k += 6; kn -= 6; }
        if (kn > 5 && memcmp(k, "pics/", 5) == 0) { k += 5; kn -= 5; }
        if (v && tk_is(k, kn, "code")) { pc->cd = v; pc->cdn = vn; continue; }
        if (v && tk_is(k, kn, "background code")) { pc->bg = v; pc->bgn = vn; continue; }
        if (v && tk_is(k, kn, "foreground code")) { pc->fg = v; pc->fgn = vn; continue; }
        char sn[300];
        int l = snprintf(sn, sizeof sn, "pics/%.*s", (int)(kn > 280 ? 280 : kn), k);
        const char *style = tk_find_style(T, sn, (size_t)l);
        if (style) {
            if (pc->nowned == MAX_PIC_KEYS) { *why = "too many pic styles"; return -1; }
            /* a copy, #1 replaced: the code may redefine the style */
            char *st = subst_arg1(style, strlen(style), v ? v : "", v ? vn : 0);
            pc->owned[pc->nowned++] = st;
            if (pic_keys(T, st, strlen(st), pc, opts, why, depth + 1) != 0) return -1;
            continue;
        }
        if (depth > 0) {
            /* a style's other keys: options of the pic's scope */
            if (opts->n) tp_buf_add(opts, ",", 1);
            tp_buf_add(opts, it, in);
            continue;
        }
        *why = "pic type not supported (not defined by name/.pic or pics/name/.style)";
        return -1;
    }
    return 0;
}

/* The pic's own options: pic type= (the alias of node contents) and the
 * pics/... keys taken out (to *type and pc), the rest kept in rest. */
static void pic_own_options(const char *s, struct tp_buf *rest, const char **type, size_t *typen,
                            struct tp_buf *pickeys)
{
    size_t n = s ? strlen(s) : 0, i = 0, in;
    const char *it;
    while (tk_next_item(s, n, ',', &i, &it, &in)) {
        tk_trim(&it, &in);
        if (in == 0) continue;
        const char *k, *v;
        size_t kn, vn;
        long eq = tk_split_kv(it, in, &k, &kn, &v, &vn);
        if (eq == 0) { k = it; kn = in; }   /* "=x": a key */
        if (kn > 6 && memcmp(k, "/tikz/", 6) == 0) { k += 6; kn -= 6; }
        if (eq > 0 && tk_is(k, kn, "pic type")) {
            *type = v;
            *typen = vn;
            continue;
        }
        if (kn > 5 && memcmp(k, "pics/", 5) == 0) {
            if (pickeys->n) tp_buf_add(pickeys, ",", 1);
            tp_buf_add(pickeys, it, in);
            continue;
        }
        if (rest->n) tp_buf_add(rest, ",", 1);
        tp_buf_add(rest, it, in);
    }
}

/* A pic the document defines (or whose code its keys give): the code run in
 * a scope whose origin is at, with every pic, the pic type's other keys and
 * the pic's options applied (they may shift, rotate and scale it):
 * background code, code, foreground code, in that order. 1 when the pic was
 * such a pic (drawn, or an unparsed record with the reason), 0 when its type
 * is none of these (the angles library's pics are tried next). */
static int user_pic(tikz *T, const char *opts, const char *body, vec2 at, int line, const char *src)
{
    struct tp_buf rest = { 0 }, pickeys = { 0 }, sopts = { 0 };
    const char *type = body, *why = NULL;
    size_t typen = strlen(body);
    tk_trim(&type, &typen);
    const char *ptype = NULL;
    size_t ptypen = 0;
    pic_own_options(opts, &rest, &ptype, &ptypen, &pickeys);
    if (typen == 0 && ptype) { type = ptype; typen = ptypen; }
    struct pic_code pc = { 0 };
    int r = 0;
    if (pickeys.n && pic_keys(T, pickeys.s, pickeys.n, &pc, &sopts, &why, 0) != 0) r = -1;
    if (r == 0 && typen && pic_keys(T, type, typen, &pc, &sopts, &why, 0) != 0) r = -1;
    if (r != 0) {
        int builtin = why && strncmp(why, "pic type", 8) == 0;
        if (!builtin) tk_unparsed(T, line, src, why);
        r = builtin ? 0 : 1;
    } else if (!pc.cd && !pc.bg && !pc.fg) {
        tk_unparsed(T, line, src, "pic without code");
        r = 1;
    } else if (T->pic_depth >= MAX_PIC_DEPTH) {
        tk_unparsed(T, line, src, "pics nested too deep");
        r = 1;
    } else {
        struct tp_buf code = { 0 };
        if (pc.bg) { tp_buf_add(&code, pc.bg, pc.bgn); tp_buf_add(&code, "\n", 1); }
        if (pc.cd) { tp_buf_add(&code, pc.cd, pc.cdn); tp_buf_add(&code, "\n", 1); }
        if (pc.fg) tp_buf_add(&code, pc.fg, pc.fgn);
        tk_gs_push(T);
        gstate *g = GS(T);
        /* as TikZ places a node (\tikz@node@transformations): shifted to
         * at; the picture's scale, rotation and slant only with transform
         * shape (given around the pic or in its options), else reset; the
         * pic's own options transform it either way */
        mat outer = g->ctm;
        g->ctm = mat_id();
        g->ctm.e = at.x;
        g->ctm.f = at.y;
        tk_apply_opts(T, "every pic", 9, NULL, 0);
        if (sopts.n) tk_apply_opts(T, sopts.s, sopts.n, NULL, 0);
        if (rest.n) tk_apply_opts(T, rest.s, rest.n, NULL, 0);
        if (g->transform_shape) {
            /* T(at) L O, with O the options' own transformation */
            mat to = mat_id(), back = mat_id(), lin = outer;
            to.e = at.x; to.f = at.y;
            back.e = -at.x; back.f = -at.y;
            lin.e = lin.f = 0;
            g->ctm = mat_mul(to, mat_mul(lin, mat_mul(back, g->ctm)));
        }
        T->pic_depth++;
        tk_run_code(T, code.s, code.n, line);
        T->pic_depth--;
        tk_gs_pop(T);
        free(code.s);
        r = 1;
    }
    for (int k = 0; k < pc.nowned; k++) free(pc.owned[k]);
    free(rest.s);
    free(pickeys.s);
    free(sopts.s);
    return r;
}

/* A pic the document defines (user_pic), else */
/* pic {angle=A--B--C} and pic {right angle=A--B--C}, as tikzlibraryangles
 * draws them: at B, from the direction of A counter-clockwise to that of C,
 * an arc (or the square mark) of angle radius, drawn and filled only as the
 * pic's own options say, and the pic text at angle eccentricity times the
 * radius along the bisector. */
void tk_pic(tikz *T, const char *opts, const char *body, vec2 at, int line)
{
    char src[300];
    snprintf(src, sizeof src, "pic%s%s%s {%s}", opts ? "[" : "", opts ? opts : "",
             opts ? "]" : "", body);
    if (user_pic(T, opts, body, at, line, src)) return;
    const char *b = body, *val = "A--B--C";
    size_t bn = strlen(b), vn = 7;
    tk_trim(&b, &bn);
    long eq = tk_find_top(b, bn, '=');
    const char *key = b;
    size_t kn = bn;
    if (eq >= 0) { kn = (size_t)eq; val = b + eq + 1; vn = bn - (size_t)eq - 1; }
    tk_trim(&key, &kn);
    tk_unbrace(&val, &vn);
    int right;
    if (tk_is(key, kn, "angle")) right = 0;
    else if (tk_is(key, kn, "right angle")) right = 1;
    else { tk_unparsed(T, line, src, "pic type not supported (not defined by name/.pic or pics/name/.style)"); return; }
    const char *nm[3];
    size_t nl[3];
    {
        const char *d1 = tk_memmem(val, vn, "--");
        const char *d2 = d1 ? tk_memmem(d1 + 2, vn - (size_t)(d1 + 2 - val), "--") : NULL;
        if (!d2) { tk_unparsed(T, line, src, "angle pic needs three points A--B--C"); return; }
        nm[0] = val; nl[0] = (size_t)(d1 - val);
        nm[1] = d1 + 2; nl[1] = (size_t)(d2 - d1 - 2);
        nm[2] = d2 + 2; nl[2] = vn - (size_t)(d2 + 2 - val);
    }
    vec2 P[3];
    for (int k = 0; k < 3; k++) {
        tk_trim(&nm[k], &nl[k]);
        if (tk_named_point(T, nm[k], nl[k], &P[k]) != 0) {
            char why[120];
            snprintf(why, sizeof why, "angle pic: no node or coordinate named '%.*s'",
                     (int)(nl[k] > 40 ? 40 : nl[k]), nm[k]);
            tk_unparsed(T, line, src, why);
            return;
        }
    }
    struct tp_buf actions = { 0 };
    char *text = NULL, *topts = NULL;
    pic_options(opts, &actions, &text, &topts);
    tk_gs_push(T);
    gstate *g = GS(T);
    /* the pic draws and fills only when its own options say so */
    g->draw = g->fill = 0;
    g->drawc[0] = g->fillc[0] = 0;
    g->role[0] = 0;
    tk_apply_opts(T, "every pic", 9, NULL, 0);
    if (actions.n) tk_apply_opts(T, actions.s, actions.n, NULL, 0);
    free(actions.s);
    g = GS(T);   /* the options may have grown the state stack */
    /* the angles, in the pic's coordinate system */
    vec2 U[3];
    for (int k = 0; k < 3; k++) U[k] = mat_inv_apply(g->ctm, P[k]);
    double a1 = atan2(U[0].y - U[1].y, U[0].x - U[1].x) / DEG;
    double a2 = atan2(U[2].y - U[1].y, U[2].x - U[1].x) / DEG;
    if (a2 < a1) a1 -= 360;
    double r = g->lib_set & TK_SET_ANGLE_RADIUS ? g->angle_radius : ANGLE_RADIUS_PT;
    if (!(r > 0)) r = 12;
    double ecc = g->lib_set & TK_SET_ANGLE_ECC ? g->angle_ecc : 0.6;
    vec2 V = P[1];
    if (T->d && (g->draw || g->fill)) {
        ir_elem *e;
        if (!right) {
            e = ir_add(T->d, IR_ARC);
            vec2 ax = mat_lin(g->ctm, v2(r, 0)), ay = mat_lin(g->ctm, v2(0, r));
            ir_pt p[3] = { { V.x, V.y }, { ax.x, ax.y }, { ay.x, ay.y } };
            ir_elem_set_pts(e, p, 3);
            e->t1 = a1;
            e->t2 = a2;
        } else {
            vec2 us = mat_lin(g->ctm, v2(r * cos(a1 * DEG), r * sin(a1 * DEG)));
            vec2 ue = mat_lin(g->ctm, v2(r * cos(a2 * DEG), r * sin(a2 * DEG)));
            vec2 q1 = vadd(V, us), q2 = vadd(q1, ue), q3 = vadd(V, ue);
            e = ir_add(T->d, IR_POLY);
            if (g->fill) {
                /* the filled square with its vertex */
                ir_pt p[4] = { { V.x, V.y }, { q1.x, q1.y }, { q2.x, q2.y }, { q3.x, q3.y } };
                ir_elem_set_pts(e, p, 4);
                e->closed = 1;
            } else {
                ir_pt p[3] = { { q1.x, q1.y }, { q2.x, q2.y }, { q3.x, q3.y } };
                ir_elem_set_pts(e, p, 3);
            }
        }
        e->line = line;
        snprintf(g->role, sizeof g->role, "%s", right ? "right-angle" : "angle-mark");
        tk_emit_attrs(T, e, g->draw, g->fill);
        g->role[0] = 0;
        tk_set_nums(e, "vertex", (double[]){ V.x, V.y }, 2);
    }
    if (text) {
        double mid = 0.5 * a1 + 0.5 * a2, dist = ecc * r * (right ? 1.4142136 : 1);
        vec2 at = vadd(V, mat_lin(g->ctm, v2(dist * cos(mid * DEG), dist * sin(mid * DEG))));
        tk_nodeopts no;
        tk_nodeopts_init(T, &no);
        mat pic_ctm = g->ctm;
        tk_gs_push(T);
        gstate *ng = GS(T);
        if (ng->every_node) tk_apply_opts(T, ng->every_node, strlen(ng->every_node), &no, 0);
        if (topts) tk_apply_opts(T, topts, strlen(topts), &no, 0);
        /* node-local shifts move the node */
        at = vadd(at, vsub(mat_apply(GS(T)->ctm, v2(0, 0)), mat_apply(pic_ctm, v2(0, 0))));
        size_t before = T->d ? T->d->nelems : 0;
        tk_place_node(T, &no, at, text, line, NULL, 0);
        for (size_t i = before; T->d && i < T->d->nelems; i++) {
            ir_elem *e = &T->d->elems[i];
            if (e->kind != IR_TEXT) continue;
            if (!ir_elem_get(e, "role")) ir_elem_set(e, "role", "angle-label");
            tk_set_nums(e, "vertex", (double[]){ V.x, V.y }, 2);
            break;
        }
        tk_gs_pop(T);
        tk_nodeopts_free(&no);
    }
    free(text);
    free(topts);
    tk_gs_pop(T);
}

/* pos= (midway, near end, ...) among a pic's options: 1 and *t, else 0 */
int tk_pic_pos(tikz *T, const char *opts, double *t)
{
    tk_nodeopts no;
    tk_nodeopts_init(T, &no);
    tk_gs_push(T);
    tk_apply_opts(T, opts, strlen(opts), &no, 0);
    tk_gs_pop(T);
    int r = no.has_pos;
    if (r) *t = no.pos;
    tk_nodeopts_free(&no);
    return r;
}

/* the end of the balanced group opening at t[i] (its closing byte + 1), or 0 */
static size_t group_end(const char *t, size_t n, size_t i)
{
    char open = t[i], close = open == '(' ? ')' : open == '[' ? ']' : '}';
    int depth = 0;
    for (size_t j = i; j < n; j++) {
        if (t[j] == '\\' && j + 1 < n) { j++; continue; }
        if (t[j] == open) depth++;
        else if (t[j] == close && --depth == 0) return j + 1;
    }
    return 0;
}

static int is_word(const char *t, size_t n, size_t i, const char *w)
{
    size_t k = strlen(w);
    return i + k <= n && memcmp(t + i, w, k) == 0 && (i + k == n || !isalpha((unsigned char)t[i + k])) &&
           (i == 0 || (!isalpha((unsigned char)t[i - 1]) && t[i - 1] != '\\'));
}

/* the value of key (pic type, node contents) set at the top level of the
 * option list [s, s+n), the last one: 1 and *v, *vn; else 0 */
static int contents_key(const char *s, size_t n, const char *key, const char **v, size_t *vn)
{
    size_t i = 0, in;
    const char *it;
    int found = 0;
    while (tk_next_item(s, n, ',', &i, &it, &in)) {
        const char *k, *w;
        size_t kn, wn;
        if (tk_split_kv(it, in, &k, &kn, &w, &wn) <= 0) continue;
        if (kn > 6 && memcmp(k, "/tikz/", 6) == 0) { k += 6; kn -= 6; }
        if (!tk_is(k, kn, key)) continue;
        *v = w;
        *vn = wn;
        found = 1;
    }
    return found;
}

/* A pic whose options set pic type=, or a node whose options set node
 * contents=, ends with those options, as TikZ reads it (tikz.code.tex,
 * \tikz@fig@scan@options: the rest of the node is not scanned): "pic
 * [pic type=X] (1,0)" is the pic, then the point (1,0). The grammar wants
 * the {text}: an empty one is written after a pic's options (its type is
 * taken from them, tk_pic), the node contents in braces after a node's. */
void tk_pic_type_braces(const char **text, const int **lines, size_t *n, char **own_text, int **own_lines)
{
    const char *t = *text;
    size_t len = *n;
    if (!tk_memmem(t, len, "pic type") && !tk_memmem(t, len, "node contents")) return;
    struct tp_buf o = { 0 };
    int *nl = NULL;
    size_t from = 0, cap = 0, nn = 0;
    int any = 0;
    for (size_t i = 0; i < len;) {
        char c = t[i];
        if (c == '\\') { i += 2; continue; }
        if (c == '(' || c == '[' || c == '{') {
            size_t e = group_end(t, len, i);
            if (!e) break;
            i = e;
            continue;
        }
        int pic = is_word(t, len, i, "pic");
        if (!pic && !is_word(t, len, i, "node")) { i++; continue; }
        size_t p = i + (pic ? 3 : 4), ins = 0;
        const char *cv = NULL;
        size_t cvn = 0;
        for (;;) {
            while (p < len && isspace((unsigned char)t[p])) p++;
            if (p >= len || t[p] == '{') break;
            if (t[p] == '(') { size_t e = group_end(t, len, p); if (!e) break; p = e; continue; }
            if (is_word(t, len, p, "at")) { p += 2; continue; }
            if (t[p] != '[') break;
            size_t e = group_end(t, len, p);
            if (!e) break;
            if (contents_key(t + p + 1, e - p - 2, pic ? "pic type" : "node contents", &cv, &cvn)) {
                ins = e;
                break;
            }
            p = e;
        }
        if (ins) {
            /* the text up to the options, then "{}" or "{contents}" */
            size_t add = ins - from + 2 + (pic ? 0 : cvn);
            tp_buf_add(&o, t + from, ins - from);
            tp_buf_add(&o, "{", 1);
            if (!pic) tp_buf_add(&o, cv, cvn);
            tp_buf_add(&o, "}", 1);
            if (*lines) {
                if (nn + add > cap) { cap = 2 * (nn + add); nl = xrealloc(nl, cap * sizeof *nl); }
                memcpy(nl + nn, *lines + from, (ins - from) * sizeof *nl);
                for (size_t k = nn + ins - from; k < nn + add; k++) nl[k] = (*lines)[ins - 1];
                nn += add;
            }
            from = ins;
            any = 1;
            i = ins;
            continue;
        }
        i = p > i + 3 ? p : i + 3;
    }
    if (!any) { free(o.s); free(nl); return; }
    tp_buf_add(&o, t + from, len - from);
    if (*lines) {
        size_t add = len - from;
        if (nn + add + 1 > cap) { cap = nn + add + 1; nl = xrealloc(nl, cap * sizeof *nl); }
        memcpy(nl + nn, *lines + from, add * sizeof *nl);
        nn += add;
    }
    free(*own_text);
    free(*own_lines);
    *text = *own_text = o.s;
    *lines = *own_lines = nl;
    *n = o.n;
}
