/* shape_closed.c — "The shape(s) are closed."
 *
 * A shape is meant to be closed when its outline comes back near where it
 * started; it fails to close when the ends come within GEOM_CLOSE_GAP_FRAC
 * of its perimeter but do not meet (a visible gap wider than
 * GEOM_JOIN_EPS_PT). The same holds between separate strokes: a line that
 * ends just short of another line's end (closer than GEOM_CLOSE_GAP_FRAC of
 * the shorter of the two, but not touching) leaves a gap in the outline.
 * A line that ends on a node (on its drawn outline, or on its border aimed
 * at a named node's centre, as TikZ draws "(A) -- (B)": geom_end_on_node)
 * is attached there and leaves no gap.
 * A shape cut by a clip region is judged by in-frame, not here, unless the
 * request (irlint --request) asks for a closed shape and the clip leaves
 * too little of its outline to read as closed (request_match.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/request_llm.h"

static void geom_shape_closed_body(const ir_diagram *d, const void *ctx, chk_verdict *v)
{
    const geom_scene *s = ctx;
    int nshapes = 0;
    /* open outlines whose ends nearly meet */
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (e->kind != IR_POLY || e->closed || e->npts < 3) continue;
        if (s->attrs[i].role != ROLE_NONE || !s->attrs[i].stroked) continue;
        double per = ir_poly_perimeter(e->pts, e->npts, 0);
        double gap = ir_v_dist(e->pts[0], e->pts[e->npts - 1]);
        if (gap <= GEOM_JOIN_EPS_PT * 1.5) { nshapes++; continue; }
        if (gap < GEOM_CLOSE_GAP_FRAC * per) {
            chk_set(v, CHK_NO, e->line,
                    "the outline drawn at line %d ends %.1fpt short of its start "
                    "(perimeter %.0fpt)",
                    e->line, gap, per);
            chk_blame(v, i);
            return;
        }
    }
    /* separate strokes that stop just short of each other */
    size_t *near = NULL, cap = 0;
    for (size_t i = 0; i < s->nsegs; i++) {
        const geom_seg *g = &s->segs[i];
        if (g->cls != SEG_FIGURE || g->curved || !g->visible) continue;
        if (g->shared[0] && g->shared[1]) continue;   /* both ends meet another line */
        ir_pt ends[2] = {g->a, g->b};
        for (int k = 0; k < 2; k++) {
            if (g->shared[k]) continue;    /* another line ends right there */
            ir_pt p = ends[k];
            int joined = 0;
            double best = 1e300;
            const geom_seg *bh = NULL;
            /* most ends meet another line: look close by first */
            size_t nn = geom_segs_near(
                s, ir_box_inset(ir_box_make(p.x, p.y, p.x, p.y), 1.5 * GEOM_JOIN_EPS_PT), &near,
                &cap);
            for (size_t q = 0; q < nn && !joined; q++) {
                const geom_seg *h = &s->segs[near[q]];
                /* a line ending on a node's drawn outline is joined to it */
                if (near[q] == i || (h->cls != SEG_FIGURE && h->cls != SEG_FRAME) || !h->visible) continue;
                joined = ir_pt_seg_dist(p, h->a, h->b, NULL) <= GEOM_JOIN_EPS_PT * 1.5;
            }
            if (joined) continue;
            double r = GEOM_CLOSE_GAP_FRAC * g->len + 2 * GEOM_JOIN_EPS_PT;
            nn = geom_segs_near(s, ir_box_inset(ir_box_make(p.x, p.y, p.x, p.y), r), &near, &cap);
            for (size_t q = 0; q < nn && !joined; q++) {
                size_t j = near[q];
                const geom_seg *h = &s->segs[j];
                if (j == i || h->cls != SEG_FIGURE || !h->visible) continue;
                double dd = ir_pt_seg_dist(p, h->a, h->b, NULL);
                if (dd <= GEOM_JOIN_EPS_PT * 1.5) { joined = 1; break; }
                double de = fmin(ir_v_dist(p, h->a), ir_v_dist(p, h->b));
                if (de < best) { best = de; bh = h; }
            }
            if (joined || !bh) continue;
            double lim = GEOM_CLOSE_GAP_FRAC * fmin(g->len, bh->len);
            /* a line ending on a named node's border is attached to it */
            if (best < lim && best > GEOM_JOIN_EPS_PT * 1.5 && !geom_end_on_node(s, p, ends[1 - k])) {
                chk_set(v, CHK_NO, g->line,
                        "the line at line %d stops %.1fpt short of the line at line %d",
                        g->line, best, bh->line);
                chk_blame(v, g->elem);
                chk_blame(v, bh->elem);
                free(near);
                return;
            }
        }
    }
    free(near);
    int asked = 0;
    if (geom_request_closed(s, v, &asked)) return;
    nshapes += (int)s->nshapes;
    chk_set(v, CHK_YES, 0, "%d closed outline(s); no outline stops short of closing", nshapes);
}

void geom_shape_closed(const ir_diagram *d, const void *ctx, chk_verdict *v)
{
    geom_shape_closed_body(d, ctx, v);
    if (ctx) geom_request_note(((const geom_scene *)ctx)->req, v);
}
