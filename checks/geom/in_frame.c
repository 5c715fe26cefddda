/* in_frame.c — "The diagram is fully in frame (nothing clipped or cut off)."
 *
 * The picture shows everything it draws unless a clip region hides part of
 * it (the IM class is standalone with no border, so the page is the
 * picture's own extent). So the question is what each clip does to what is
 * drawn after it: a text or stroke partly inside and partly outside the clip
 * (by more than GEOM_FRAME_TOL_PT) is visibly cut off; one entirely outside
 * is missing from the picture. Grids and axes are drawn to be clipped and
 * are not counted. With no clip, everything is in frame.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"

static int skip_role(const geom_attrs *a)
{
    return a->role == ROLE_GRID || a->role == ROLE_AXIS;
}

/* 1 when the outline ir_elem_flatten gives ellipse or arc e (not empty)
 * certainly lies in the rectangle clip cl grown by GEOM_FRAME_TOL_PT (the
 * points geom_clip_relation counts as inside a rectangle): its points
 * c + a cos t + b sin t stay within |a| + |b| of the centre c, per axis, up
 * to rounding far below the margin of 1e-12 of the terms' size. */
static int inside_rect_clip(const geom_clip *cl, const ir_elem *e)
{
    if (cl->pts || (e->kind != IR_ELLIPSE && e->kind != IR_ARC) || e->npts < 3) return 0;
    if (ir_elem_flatten_count(e) == 0) return 0;
    ir_box g = ir_box_inset(cl->box, GEOM_FRAME_TOL_PT);
    if (g.empty) return 0;
    ir_pt c = e->pts[0], a = e->pts[1], b = e->pts[2];
    double mx = fabs(a.x) + fabs(b.x), my = fabs(a.y) + fabs(b.y);
    double ex = 1e-12 * (fabs(c.x) + mx), ey = 1e-12 * (fabs(c.y) + my);
    return c.x - mx - ex >= g.x1 && c.x + mx + ex <= g.x2 && c.y - my - ey >= g.y1 &&
           c.y + my + ey <= g.y2;
}

void geom_in_frame(const ir_diagram *d, const void *ctx, chk_verdict *v)
{
    const geom_scene *s = ctx;
    if (s->nclips == 0) {
        chk_set(v, CHK_YES, 0, "no clip region: the whole picture is shown");
        return;
    }
    int cut = 0, hidden = 0, checked = 0;
    double worst = -1;
    chk_verdict why;
    memset(&why, 0, sizeof why);
    size_t cutoff[CHK_BLAME_MAX];   /* the first elements cut or hidden */
    unsigned ncut = 0;
    char buf[64];
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (s->clip_of[i] < 0) continue;
        const geom_clip *cl = &s->clips[s->clip_of[i]];
        if (skip_role(&s->attrs[i]) || s->frame[i]) continue;
        ir_pt *pts = NULL;
        const ir_pt *outline;
        size_t n = 0;
        const char *what = "stroke";
        if (e->kind == IR_TEXT) {
            /* labels are judged by label-association and no-overlap */
            continue;
        } else {
            if (!s->attrs[i].stroked && !s->attrs[i].filled) continue;
            int closed;
            if (e->kind == IR_POLY) {
                outline = e->pts;   /* a polyline is its own outline */
                n = e->npts;
            } else if (s->flat[i]) {
                outline = s->flat[i];   /* flattened by the scene already */
                n = s->nflat[i];
            } else {
                if (inside_rect_clip(cl, e)) {
                    /* geom_clip_relation would find every point of the
                     * outline inside: nothing cut */
                    checked++;
                    continue;
                }
                n = ir_elem_flatten(e, &pts, &closed);
                outline = pts;
            }
            if (n == 0) continue;
            what = "stroke";
        }
        if (!cl->pts && !cl->grown.empty) {
            /* a rectangle: every point inside it grown by the tolerance is
             * what geom_clip_relation calls nothing cut (0) */
            size_t k = 0;
            const ir_box g = cl->grown;
            while (k < n && outline[k].x >= g.x1 && outline[k].x <= g.x2 && outline[k].y >= g.y1 &&
                   outline[k].y <= g.y2)
                k++;
            if (k == n) {
                free(pts);
                checked++;
                continue;
            }
        }
        double out, o1, o2;
        int rel = geom_clip_relation(s, i, outline, n, &out);
        /* a straight line running across the whole region, in at one side
         * and out at the other, is an (infinite) line shown as far as the
         * picture goes, not a shape cut off */
        if (rel == 1 && e->kind == IR_POLY && e->npts == 2 &&
            geom_clip_relation(s, i, &e->pts[0], 1, &o1) == 2 &&
            geom_clip_relation(s, i, &e->pts[1], 1, &o2) == 2)
            rel = 0;
        free(pts);
        checked++;
        if (rel == 0) continue;
        if (rel == 1) cut++;
        else hidden++;
        if (ncut < CHK_BLAME_MAX) cutoff[ncut++] = i;
        double key = out + (rel == 1 ? 1e6 : 0);
        if (key > worst) {
            worst = key;
            if (e->kind == IR_TEXT)
                snprintf(buf, sizeof buf, "text \"%.30s\"", e->str);
            else
                snprintf(buf, sizeof buf, "a %s", what);
            chk_set(&why, CHK_NO, e->line, "%s is %s by the clip region of line %d "
                    "(it reaches %.1fpt outside)",
                    buf, rel == 1 ? "cut" : "hidden entirely", cl->e->line, out);
            chk_blame(&why, i);
        }
    }
    if (cut + hidden == 0) {
        chk_set(v, CHK_YES, s->clips[0].e->line,
                "all %d elements lie inside the clip region", checked);
        return;
    }
    *v = why;
    /* the worst first, then the others cut or hidden */
    for (unsigned k = 0; k < ncut; k++) chk_blame(v, cutoff[k]);
    if (cut + hidden > 1) {
        size_t l = strlen(v->reason);
        snprintf(v->reason + l, sizeof v->reason - l, "; %d cut, %d hidden in all", cut, hidden);
    }
}
