/* angle_labels.c — "Labeled angles (if any) match the drawn angle."
 *
 * What labels an angle: a text stating degrees (30°) or naming an angle
 * (θ, x°, ∠B), an angle arc, a right-angle mark. Each is tied to the corner
 * it marks — the arc or square it sits by, else the nearest corner within
 * GEOM_ANGLE_REACH_EM — and compared with the angle actually drawn there,
 * in the sector the label or mark occupies:
 *   - a stated angle within GEOM_ANGLE_TOL_DEG of the drawn one;
 *   - an arc that singles out its angle: the sector holding the arc's middle
 *     is spanned by the arc within the ratios GEOM_ARC_SPAN_MIN..MAX;
 *   - a right-angle mark on a drawn angle of 90 +- GEOM_RIGHT_TOL_DEG.
 * na when nothing labels or marks an angle.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/limits.h"
#include "ir/box_index.h"
#include "ir/xalloc.h"

typedef struct {
    int n;             /* labels and marks judged */
    int bad;
    double worst;      /* largest excess over tolerance */
    chk_verdict why;   /* reason for the worst */
    double maxdiff;    /* largest difference among the good ones */
    int maxline;
} tally;

static void fail(tally *ty, double excess)
{
    ty->bad++;
    if (ty->bad == 1 || excess > ty->worst) ty->worst = excess;
}

/* 1 when this failure is the worst so far (so its reason is kept). */
static int worst_now(const tally *ty, double excess)
{
    return ty->bad == 1 || excess >= ty->worst;
}

static void pass(tally *ty, double diff, int line)
{
    if (diff > ty->maxdiff || ty->maxline == 0) {
        ty->maxdiff = diff;
        ty->maxline = line;
    }
}

/* An index over the marks with a vertex, each as the box of its ink's
 * centre and its vertex grown by its reach from the largest em of an
 * angle label (built on first use). */
typedef struct {
    int done;
    ir_box_index ix;
    size_t *near, cap;
} marks_ix;

/* The marks a text may be within reach of, in their order (mx->near). */
static size_t marks_near(const geom_scene *s, marks_ix *mx, const geom_text *t)
{
    if (!mx->done) {
        mx->done = 1;
        double em = 0;
        for (size_t i = 0; i < s->ntexts; i++)
            if ((s->texts[i].kind == TXT_ANGLE || s->texts[i].kind == TXT_ANGLE_NAME) &&
                geom_em(&s->texts[i]) > em)
                em = geom_em(&s->texts[i]);
        ir_box *b = xmalloc((s->nmarks ? s->nmarks : 1) * sizeof *b);
        for (size_t i = 0; i < s->nmarks; i++) {
            const geom_mark *m = &s->marks[i];
            b[i] = ir_box_inset(ir_box_make(m->c.x, m->c.y, m->vertex.x, m->vertex.y),
                                m->size + GEOM_LABEL_REACH_EM * em);
            /* a NaN reach counts every text in reach: every query gets it */
            if (!(m->size + GEOM_LABEL_REACH_EM * em >= 0)) b[i] = ir_box_make(NAN, NAN, NAN, NAN);
        }
        ir_box_index_build(&mx->ix, b, s->nmarks);
        free(b);
    }
    return geom_ix_query(s, &mx->ix, t->box, &mx->near, &mx->cap);
}

/* The mark a text labels: the arc or square nearest to it, when the text
 * lies within reach of the mark's ink. */
static const geom_mark *mark_of_text(const geom_scene *s, const geom_text *t, marks_ix *mx)
{
    const geom_mark *best = NULL;
    double bd = 0, em = geom_em(t);
    size_t nn = marks_near(s, mx, t);
    for (size_t q = 0; q < nn; q++) {
        const geom_mark *m = &s->marks[mx->near[q]];
        if (!m->has_vertex) continue;
        double d = ir_box_pt_dist(t->box, m->c);
        double dv = ir_box_pt_dist(t->box, m->vertex);
        double reach = m->size + GEOM_LABEL_REACH_EM * em;
        if (d > reach && dv > reach) continue;
        double key = fmin(d, dv);
        if (!best || key < bd) { best = m; bd = key; }
    }
    return best;
}

/* Blames the label (text element, or (size_t)-1), the mark (or NULL) and
 * the two lines of the angle at V (rays r1, r2). */
static void blame_angle(const geom_scene *s, chk_verdict *why, size_t text, const geom_mark *m,
                        ir_pt V, double r1, double r2)
{
    if (text != (size_t)-1) chk_blame(why, text);
    if (m) chk_blame(why, m->elem);
    geom_blame_ray(s, V, r1, why);
    geom_blame_ray(s, V, r2, why);
}

void geom_angle_labels(const ir_diagram *d, const void *ctx, chk_verdict *v)
{
    (void)d;
    const geom_scene *s = ctx;
    tally ty;
    memset(&ty, 0, sizeof ty);
    char nm[64];
    int unplaced = 0, unplaced_line = 0;
    marks_ix mx;
    memset(&mx, 0, sizeof mx);

    for (size_t i = 0; i < s->ntexts; i++) {
        const geom_text *t = &s->texts[i];
        if (t->kind != TXT_ANGLE && t->kind != TXT_ANGLE_NAME) continue;
        double em = geom_em(t);
        const geom_mark *m = mark_of_text(s, t, &mx);
        ir_pt V;
        double dir;
        if (m) {
            V = m->vertex;
            dir = ir_v_dir_deg(ir_v_sub(m->c, V));
        } else {
            double dist;
            if (!geom_nearest_corner(s, t->c, GEOM_ANGLE_REACH_EM * em, &V, &dist)) {
                if (!unplaced++) unplaced_line = t->line;
                continue;
            }
            dir = ir_v_dir_deg(ir_v_sub(t->c, V));
        }
        double r1 = 0, r2 = 0;
        double drawn = geom_angle_at(s, V, dir, &r1, &r2);
        if (drawn < 0) {
            if (!unplaced++) unplaced_line = t->line;
            continue;
        }
        ty.n++;
        if (t->kind != TXT_ANGLE) { pass(&ty, 0, t->line); continue; }
        double stated = t->value;
        if (stated > 180 && stated < 360) drawn = 360 - drawn;
        double diff = fabs(stated - drawn);
        if (diff > GEOM_ANGLE_TOL_DEG) {
            double ex = diff - GEOM_ANGLE_TOL_DEG;
            fail(&ty, ex);
            if (worst_now(&ty, ex))
                chk_set(&ty.why, CHK_NO, t->line,
                        "\"%s\" labels the angle at %s, but the angle drawn there is %.1f deg "
                        "(tolerance %.0f)",
                        t->show, geom_point_name(s, V, nm, sizeof nm), drawn,
                        GEOM_ANGLE_TOL_DEG);
            if (worst_now(&ty, ex)) blame_angle(s, &ty.why, t->elem, m, V, r1, r2);
        } else {
            pass(&ty, diff, t->line);
        }
    }
    ir_box_index_free(&mx.ix);
    free(mx.near);

    for (size_t i = 0; i < s->nmarks; i++) {
        const geom_mark *m = &s->marks[i];
        ty.n++;
        double r1 = 0, r2 = 0;
        double drawn = geom_mark_angle(s, m, &r1, &r2);
        const char *what = m->kind == MARK_RIGHT ? "right-angle mark" : "angle arc";
        if (drawn < 0) {
            fail(&ty, 90);
            if (worst_now(&ty, 90)) {
                chk_set(&ty.why, CHK_NO, m->line, "the %s at %s is not at a corner of the figure",
                        what, geom_point_name(s, m->has_vertex ? m->vertex : m->c, nm, sizeof nm));
                chk_blame(&ty.why, m->elem);
            }
            continue;
        }
        if (m->kind == MARK_RIGHT) {
            double diff = fabs(drawn - 90.0);
            if (diff > GEOM_RIGHT_TOL_DEG) {
                double ex = diff - GEOM_RIGHT_TOL_DEG;
                fail(&ty, ex);
                if (worst_now(&ty, ex)) {
                    chk_set(&ty.why, CHK_NO, m->line,
                            "the right-angle mark at %s sits on an angle of %.1f deg "
                            "(tolerance %.0f)",
                            geom_point_name(s, m->vertex, nm, sizeof nm), drawn,
                            GEOM_RIGHT_TOL_DEG);
                    blame_angle(s, &ty.why, (size_t)-1, m, m->vertex, r1, r2);
                }
            } else {
                pass(&ty, diff, m->line);
            }
        } else {
            /* the arc must single out the angle it sits in: the sector
             * holding its middle, spanned neither by much less nor by much
             * more than the arc */
            double sweep = ir_ccw_sweep_deg(m->d1, m->d2);
            double ratio = drawn > 0 ? sweep / drawn : 0;
            if (ratio < GEOM_ARC_SPAN_MIN || ratio > GEOM_ARC_SPAN_MAX) {
                double ex = fabs(log(ratio > 0 ? ratio : 1e-3));
                fail(&ty, ex);
                if (worst_now(&ty, ex)) {
                    chk_set(&ty.why, CHK_NO, m->line,
                            "the angle arc at %s spans %.0f deg but sits in an angle of %.1f deg "
                            "(sides at %.0f and %.0f deg)",
                            geom_point_name(s, m->vertex, nm, sizeof nm), sweep, drawn, r1, r2);
                    blame_angle(s, &ty.why, (size_t)-1, m, m->vertex, r1, r2);
                }
            } else {
                pass(&ty, fabs(sweep - drawn), m->line);
            }
        }
    }

    if (ty.n == 0) {
        if (unplaced)
            chk_set(v, CHK_YES, unplaced_line,
                    "%d angle label(s) stand away from every corner; nothing to compare", unplaced);
        else
            chk_set(v, CHK_NA, 0, "no angle is labeled or marked");
        return;
    }
    if (ty.bad) {
        *v = ty.why;
        if (ty.bad > 1) {
            size_t l = strlen(v->reason);
            snprintf(v->reason + l, sizeof v->reason - l, " (and %d more)", ty.bad - 1);
        }
        return;
    }
    chk_set(v, CHK_YES, ty.maxline,
            "%d angle label(s)/mark(s) match the drawn angles (largest difference %.1f deg)", ty.n,
            ty.maxdiff);
}
