/* pic.c — pics: the angles library's angle and right angle (with the
 * quotes library's "text" option), and the pics a document defines. */
#include "grammar/interp.h"
#include "grammar/pathgrammar.h"
#include "ir/xalloc.h"

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

/* pic {angle=A--B--C} and pic {right angle=A--B--C}, as tikzlibraryangles
 * draws them: at B, from the direction of A counter-clockwise to that of C,
 * an arc (or the square mark) of angle radius, drawn and filled only as the
 * pic's own options say, and the pic text at angle eccentricity times the
 * radius along the bisector. */
/* The code of a pic style's value (code=, background code=, foreground code=,
 * in that drawing order) and its other keys (options), each malloc'd */
static void pic_style_split(const char *s, size_t n, struct tp_buf *code, struct tp_buf *opts)
{
    const char *bg = NULL, *fg = NULL, *cd = NULL;
    size_t bgn = 0, fgn = 0, cdn = 0, i = 0, in;
    const char *it;
    while (tk_next_item(s, n, ',', &i, &it, &in)) {
        if (in == 0) continue;
        long eq = tk_find_top(it, in, '=');
        if (eq > 0) {
            const char *k = it, *v = it + eq + 1;
            size_t kn = (size_t)eq, vn = in - (size_t)eq - 1;
            tk_trim(&k, &kn);
            tk_unbrace(&v, &vn);
            if (tk_is(k, kn, "code")) { cd = v; cdn = vn; continue; }
            if (tk_is(k, kn, "background code")) { bg = v; bgn = vn; continue; }
            if (tk_is(k, kn, "foreground code")) { fg = v; fgn = vn; continue; }
        }
        if (opts->n) tp_buf_add(opts, ",", 1);
        tp_buf_add(opts, it, in);
    }
    if (bg) { tp_buf_add(code, bg, bgn); tp_buf_add(code, "\n", 1); }
    if (cd) { tp_buf_add(code, cd, cdn); tp_buf_add(code, "\n", 1); }
    if (fg) tp_buf_add(code, fg, fgn);
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

/* A pic the document defined: its code run in a scope whose origin is at,
 * with every pic, the style's other keys and the pic's options applied
 * (they may shift, rotate and scale it). */
static void user_pic(tikz *T, const char *style, const char *opts, const char *val, size_t vn,
                     vec2 at, int line, const char *src)
{
    if (T->pic_depth >= MAX_PIC_DEPTH) { tk_unparsed(T, line, src, "pics nested too deep"); return; }
    char *st = subst_arg1(style, strlen(style), val ? val : "", val ? vn : 0);
    struct tp_buf code = { 0 }, sopts = { 0 };
    pic_style_split(st, strlen(st), &code, &sopts);
    free(st);
    if (!code.n) {
        tk_unparsed(T, line, src, "pic without code");
        free(code.s);
        free(sopts.s);
        return;
    }
    tk_gs_push(T);
    gstate *g = GS(T);
    g->ctm.e = at.x;
    g->ctm.f = at.y;
    tk_apply_opts(T, "every pic", 9, NULL, 0);
    if (sopts.n) tk_apply_opts(T, sopts.s, sopts.n, NULL, 0);
    if (opts) tk_apply_opts(T, opts, strlen(opts), NULL, 0);
    T->pic_depth++;
    tk_run_code(T, code.s, code.n, line);
    T->pic_depth--;
    tk_gs_pop(T);
    free(code.s);
    free(sopts.s);
}

void tk_pic(tikz *T, const char *opts, const char *body, vec2 at, int line)
{
    char src[300];
    snprintf(src, sizeof src, "pic%s%s%s {%s}", opts ? "[" : "", opts ? opts : "",
             opts ? "]" : "", body);
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
    {
        char sn[300];
        int l = snprintf(sn, sizeof sn, "pics/%.*s", (int)(kn > 280 ? 280 : kn), key);
        const char *style = tk_find_style(T, sn, (size_t)l);
        if (style) {
            char *copy = xstrndup(style, strlen(style));   /* the code may redefine it */
            user_pic(T, copy, opts, eq >= 0 ? val : NULL, vn, at, line, src);
            free(copy);
            return;
        }
    }
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
