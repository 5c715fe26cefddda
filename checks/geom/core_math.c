/* core_math.c — "Core math properties of the shape(s) are correct."
 *
 * What the figure asserts through its marks must hold in its geometry:
 *   - a right-angle mark sits on a drawn angle of 90 +- GEOM_RIGHT_TOL_DEG;
 *   - sides carrying the same number of tick marks are equal in length
 *     (within GEOM_LENGTH_TOL); strokes given with 3D coordinates are edges
 *     of a solid, never tick marks;
 *   - a quadrilateral drawn with right-angle marks at three or more corners
 *     is a rectangle: all four angles within GEOM_RIGHT_TOL_DEG of 90;
 *   - a box drawn as three of its faces (axis-aligned rectangles with 3D
 *     coordinates, one after another, meeting at a corner, the opposite
 *     faces not drawn) shows faces a viewer can see together: no face
 *     turned away from the direction the projection looks along
 *     (geom_box_faces_unseen, request_match.c).
 * Given the request (irlint --request), what it states must hold too
 * (request_match.c: geom_request_math).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/request_llm.h"

#define MAXT 64

/* A tick mark: a SEG_TICK stroke without 3D coordinates (a short stroke
 * given in 3D is an edge of a solid, which says nothing about equal sides). */
static int is_tick(const geom_seg *h)
{
    return h->cls == SEG_TICK && h->len3 < 0;
}

/* Blames the tick marks across figure segment g. */
static void blame_ticks(const geom_scene *s, const geom_seg *g, chk_verdict *v)
{
    for (size_t i = 0; i < s->nsegs; i++) {
        const geom_seg *h = &s->segs[i];
        if (is_tick(h) && ir_seg_intersect(g->a, g->b, h->a, h->b, NULL, NULL))
            chk_blame(v, h->elem);
    }
}

static void geom_core_math_body(const ir_diagram *d, const void *ctx, chk_verdict *v)
{
    (void)d;
    const geom_scene *s = ctx;
    char nm[64];
    int checked = 0;
    for (size_t i = 0; i < s->nmarks; i++) {
        const geom_mark *m = &s->marks[i];
        if (m->kind != MARK_RIGHT) continue;
        checked++;
        double r1 = 0, r2 = 0;
        double drawn = geom_mark_angle(s, m, &r1, &r2);
        if (drawn < 0) continue;   /* not at a corner: angle-labels reports it */
        if (fabs(drawn - 90) > GEOM_RIGHT_TOL_DEG) {
            chk_set(v, CHK_NO, m->line,
                    "the right-angle mark at %s sits on an angle of %.1f deg (tolerance %.0f)",
                    geom_point_name(s, m->vertex, nm, sizeof nm), drawn, GEOM_RIGHT_TOL_DEG);
            chk_blame(v, m->elem);
            geom_blame_ray(s, m->vertex, r1, v);
            geom_blame_ray(s, m->vertex, r2, v);
            return;
        }
    }
    /* a box drawn with three faces that no viewer sees together */
    {
        size_t bad[3];
        int line = 0;
        char why[120];
        checked++;
        if (geom_box_faces_unseen(s, bad, &line, why, sizeof why)) {
            chk_set(v, CHK_NO, line,
                    "the box drawn at line %d shows its faces %s, which no viewer sees together "
                    "(one of them faces away): it is not drawn as a solid seen from outside",
                    line, why);
            for (int m = 0; m < 3; m++) chk_blame(v, bad[m]);
            return;
        }
        checked--;
    }
    /* tick marks: count ticks on each figure segment */
    size_t idx[MAXT];
    int nt[MAXT];
    size_t k = 0;
    size_t *near = NULL, cap = 0;
    int any_tick = 0;
    if (s->has_ticks)   /* find_ticks made some (nothing else makes SEG_TICK) */
        for (size_t i = 0; i < s->nsegs && !any_tick; i++) any_tick = is_tick(&s->segs[i]);
    for (size_t i = 0; any_tick && i < s->nsegs && k < MAXT; i++) {
        const geom_seg *g = &s->segs[i];
        if (g->cls != SEG_FIGURE || g->curved) continue;
        int c = 0;
        size_t nn = geom_segs_near(s, ir_box_make(g->a.x, g->a.y, g->b.x, g->b.y), &near, &cap);
        for (size_t q = 0; q < nn; q++) {
            const geom_seg *h = &s->segs[near[q]];
            if (!is_tick(h)) continue;
            if (ir_seg_intersect(g->a, g->b, h->a, h->b, NULL, NULL)) c++;
        }
        if (c > 0) { idx[k] = i; nt[k] = c; k++; }
    }
    free(near);
    for (size_t a = 0; a < k; a++)
        for (size_t b = a + 1; b < k; b++) {
            if (nt[a] != nt[b]) continue;
            const geom_seg *ga = &s->segs[idx[a]], *gb = &s->segs[idx[b]];
            double la = ga->len3 >= 0 && gb->len3 >= 0 ? ga->len3 : ga->len;
            double lb = ga->len3 >= 0 && gb->len3 >= 0 ? gb->len3 : gb->len;
            checked++;
            double r = la > lb ? la / lb : lb / la;
            if (r > 1 + GEOM_LENGTH_TOL) {
                chk_set(v, CHK_NO, ga->line,
                        "sides with %d tick mark(s) differ in length: %.1f (line %d) vs %.1f "
                        "(line %d)",
                        nt[a], la, ga->line, lb, gb->line);
                /* the two sides, then their tick marks */
                chk_blame(v, ga->elem);
                chk_blame(v, gb->elem);
                blame_ticks(s, ga, v);
                blame_ticks(s, gb, v);
                return;
            }
        }
    int asked = 0;
    if (geom_request_math(s, v, &asked)) return;
    if (s->req)
        chk_set(v, CHK_YES, 0,
                "%d marked propert%s and %d stated in the request hold in the drawing", checked,
                checked == 1 ? "y" : "ies", asked);
    else
        chk_set(v, CHK_YES, 0, "%d marked propert%s hold%s in the drawing", checked,
                checked == 1 ? "y" : "ies", checked == 1 ? "s" : "");
}

void geom_core_math(const ir_diagram *d, const void *ctx, chk_verdict *v)
{
    geom_core_math_body(d, ctx, v);
    if (ctx) geom_request_note(((const geom_scene *)ctx)->req, v);
}
