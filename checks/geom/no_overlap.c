/* no_overlap.c — "Diagram elements don't problematically overlap."
 *
 * Overlap is a problem when it makes the viewer misread the figure:
 *   - two texts whose boxes share more than GEOM_TEXT_OVERLAP_FRAC of the
 *     smaller box (text over text; a text drawn in a frame takes the room
 *     of its frame);
 *   - a stroke running through the core of a text (its box shrunk by
 *     GEOM_TEXT_CORE_FRAC of its smaller side on each side), unless the text
 *     has an opaque background drawn over the stroke. This holds for the
 *     line a label measures too: a label struck through by its own line is
 *     as hard to read as any other;
 *   - a vertex dot inside the core of a text it does not label.
 *   - faces of solids painted in the wrong order: where two faces overlap
 *     (by more than GEOM_FACE_OVERLAP_FRAC of the smaller), the one drawn
 *     later must not lie behind the other (by more than GEOM_DEPTH_TOL of
 *     their size), else it shows what the solid in front should hide.
 *     Depth comes from the 3D coordinates the IR keeps (xyz=) and the
 *     projection fitted to them, or, for drawings of unit cubes, from the
 *     cube lattice (solid.c).
 * Grid lines are background and never count.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "checks/geom/geom.h"

static ir_box core_box(const geom_text *t)
{
    double h = ir_box_h(t->box), w = ir_box_w(t->box);
    double k = GEOM_TEXT_CORE_FRAC * fmin(h, w);
    return ir_box_inset(t->box, -k);
}

static double face_size(const geom_face *f)
{
    double s = 0;
    for (size_t i = 0; i < f->n; i++) {
        const ir_pt3 *a = &f->p3[i], *b = &f->p3[(i + 1) % f->n];
        s += sqrt((a->x - b->x) * (a->x - b->x) + (a->y - b->y) * (a->y - b->y) +
                  (a->z - b->z) * (a->z - b->z));
    }
    return f->n ? s / (double)f->n : 0;
}

/* Faces of solids drawn in the wrong order: a face painted over an earlier
 * one that lies in front of it shows what should be hidden. Returns the
 * number of such pairs; the worst goes into *why. */
static int depth_order(const geom_scene *s, chk_verdict *why, double *worst)
{
    if (!s->has_proj || s->nfaces < 2) return 0;
    int n = 0;
    ir_pt buf[64];
    for (size_t j = 1; j < s->nfaces; j++) {
        const geom_face *b = &s->faces[j];
        if (!b->filled || b->n > 32) continue;
        double sb = face_size(b);
        for (size_t i = 0; i < j; i++) {
            const geom_face *a = &s->faces[i];
            if (a->n > 32) continue;
            ir_box bx = ir_box_isect(a->box, b->box);
            if (bx.empty) continue;
            double small = fmin(fabs(ir_poly_area(a->p2, a->n)), fabs(ir_poly_area(b->p2, b->n)));
            /* the boxes' overlap bounds the faces' overlap */
            if (!(ir_box_area(bx) > GEOM_FACE_OVERLAP_FRAC * small)) continue;
            size_t k = ir_poly_clip_convex(a->p2, a->n, b->p2, b->n, buf, 64);
            if (k < 3) continue;
            double area = fabs(ir_poly_area(buf, k));
            if (!(area > GEOM_FACE_OVERLAP_FRAC * small)) continue;
            ir_pt c = ir_poly_centroid(buf, k);
            double da, db;
            if (!ir_plane_depth_at(a->p3, a->p2, a->n, c, s->view, &da) ||
                !ir_plane_depth_at(b->p3, b->p2, b->n, c, s->view, &db))
                continue;
            double tol = GEOM_DEPTH_TOL * fmax(face_size(a), sb);
            if (db >= da - tol) continue;      /* b is in front: it may hide a */
            n++;
            double key = 2 + (da - db) / fmax(tol, 1e-9);
            if (key > *worst) {
                *worst = key;
                chk_set(why, CHK_NO, b->line,
                        "the face drawn at line %d is painted over the face of line %d, though "
                        "it lies behind it (depth %.2f vs %.2f): hidden parts show",
                        b->line, a->line, db, da);
            }
        }
    }
    return n;
}

void geom_no_overlap(const ir_diagram *d, const void *ctx, chk_verdict *v)
{
    (void)d;
    const geom_scene *s = ctx;
    int n = 0;
    double worst = 0;
    chk_verdict why;
    memset(&why, 0, sizeof why);

    for (size_t i = 0; i < s->ntexts; i++) {
        const geom_text *a = &s->texts[i];
        /* a framed label takes the room of its frame */
        ir_box ab = a->framed ? a->frame_box : a->box;
        for (size_t j = i + 1; j < s->ntexts; j++) {
            const geom_text *b = &s->texts[j];
            ir_box bb = b->framed ? b->frame_box : b->box;
            ir_box x = ir_box_isect(ab, bb);
            if (x.empty) continue;
            double frac = ir_box_area(x) / fmin(ir_box_area(ab), ir_box_area(bb));
            if (!(frac > GEOM_TEXT_OVERLAP_FRAC)) continue;
            n++;
            double key = 1 + frac;
            if (key > worst) {
                worst = key;
                chk_set(&why, CHK_NO, b->line,
                        "text \"%s\" overlaps text \"%s\" (line %d) by %.0f%% of the smaller box",
                        b->show, a->show, a->line, frac * 100);
            }
        }
    }
    for (size_t i = 0; i < s->ntexts; i++) {
        const geom_text *t = &s->texts[i];
        ir_box core = core_box(t);
        if (core.empty || ir_box_w(core) <= 0 || ir_box_h(core) <= 0) continue;
        for (size_t k = 0; k < s->nsegs; k++) {
            const geom_seg *g = &s->segs[k];
            if (!g->visible || g->cls == SEG_GRID) continue;
            const ir_elem *ge = &d->elems[g->elem];
            {
                const char *dr = ir_elem_get(ge, "draw");
                if (dr && !strcmp(dr, "none")) continue;   /* fill edge only */
            }
            if (t->opaque && g->elem < t->elem) continue;
            double t0, t1;
            if (!ir_seg_box_clip(g->a, g->b, core, &t0, &t1) || t1 <= t0) continue;
            double inside = (t1 - t0) * g->len;
            if (inside < 0.5) continue;
            if (getenv("NOV_DEBUG")) {
                /* penetration: max over the clipped part of the distance to the box edge */
                double best = 0;
                ir_box B = t->box;
                for (int q = 0; q <= 20; q++) {
                    double tt = t0 + (t1 - t0) * q / 20.0;
                    double tb0, tb1;
                    (void)tb0; (void)tb1;
                    ir_pt pp = ir_v_lerp(g->a, g->b, tt);
                    double dd = fmin(fmin(pp.x - B.x1, B.x2 - pp.x), fmin(pp.y - B.y1, B.y2 - pp.y));
                    if (dd > best) best = dd;
                }
                const char *role = ir_elem_get(ge, "role");
                const char *trole = ir_elem_get(&d->elems[t->elem], "role");
                fprintf(stderr, "DBG\t%s\tline\ttext=%s\tkind=%d\ttrole=%s\tsegline=%d\tcls=%d\trole=%s\tdash=%d\tpen=%.2f\tw=%.1f\th=%.1f\tin=%.1f\n",
                        d->id, t->show, t->kind, trole ? trole : "-", g->line, g->cls, role ? role : "-", g->dashed,
                        best / (0.5 * fmin(ir_box_w(B), ir_box_h(B))), ir_box_w(B), ir_box_h(B), inside);
            }
            n++;
            double key = inside / fmax(ir_box_w(core), 1e-9);
            if (key > 1) key = 1;
            if (key > worst) {
                worst = key;
                chk_set(&why, CHK_NO, t->line, "a line from line %d runs through text \"%s\"",
                        g->line, t->show);
            }
            break;
        }
        for (size_t k = 0; k < s->ndots; k++) {
            if (t->has_of && ir_v_dist(s->dots[k], t->of) <= GEOM_JOIN_EPS_PT) continue;
            if (!ir_box_contains_pt(core, s->dots[k])) continue;
            n++;
            if (0.5 > worst) {
                worst = 0.5;
                chk_set(&why, CHK_NO, t->line, "a vertex dot at (%.1f,%.1f) lies on text \"%s\"",
                        s->dots[k].x, s->dots[k].y, t->show);
            }
            break;
        }
    }
    n += depth_order(s, &why, &worst);
    if (n == 0) {
        chk_set(v, CHK_YES, 0, "no text overlaps another text, a line or a dot");
        return;
    }
    *v = why;
    if (n > 1) {
        size_t l = strlen(v->reason);
        snprintf(v->reason + l, sizeof v->reason - l, " (%d overlaps in all)", n);
    }
}
