/* label_association.c — "Labels (if any) are associated with the correct
 * elements."
 *
 * A viewer attaches a label to the nearest element of the kind it labels:
 * a point's name to a point (vertex dot or corner), a length to a line, an
 * angle to a corner. A label is wrong when the element it was made for (the
 * node of label=, the path segment of a node placed on a path) is not the
 * one a viewer would pick — another comparable element is clearly closer
 * (by the factor GEOM_AMBIGUITY, distances from the label's box plus
 * GEOM_LABEL_SLACK_EM) — or when a length label stands away from every line
 * (farther than GEOM_LABEL_REACH_EM). Labels placed freely must not be
 * ambiguous: their nearest element must be clearly nearer than the next.
 * Titles and sentences are not labels. na when there are no labels.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/limits.h"
#include "ir/box_index.h"
#include "ir/xalloc.h"

typedef struct {
    ir_pt *p;
    size_t n;
    ir_box_index ix;     /* over p (as points) */
} points;

/* The points a name can label: vertex dots and the figure's corners. */
static points collect_points(const geom_scene *s)
{
    points pts;
    memset(&pts, 0, sizeof pts);
    /* only points a name could be near matter */
    ir_box zone = ir_box_empty();
    for (size_t i = 0; i < s->ntexts; i++) {
        const geom_text *t = &s->texts[i];
        if (t->kind == TXT_NAME || t->kind == TXT_COORD)
            ir_box_union(&zone, ir_box_inset(t->box, (GEOM_LABEL_REACH_EM * 3) * geom_em(t)));
    }
    if (zone.empty) {
        ir_box_index_build(&pts.ix, NULL, 0);
        return pts;
    }
    size_t nc = geom_corners(s, zone, NULL, 0);
    size_t cap = s->ndots + nc + 1;
    pts.p = xmalloc(cap * sizeof *pts.p);
    ir_pt *c = xmalloc((nc + 1) * sizeof *c);
    nc = geom_corners(s, zone, c, nc);
    /* each point unless it is within GEOM_DOT_MERGE_PT of one kept before
     * it: the earlier ones near it come from an index over all of them */
    size_t na = s->ndots + nc;
    ir_box *b = xmalloc((na ? na : 1) * sizeof *b);
    unsigned char *kept = xcalloc(na ? na : 1, 1);
    for (size_t i = 0; i < na; i++) {
        ir_pt p = i < s->ndots ? s->dots[i] : c[i - s->ndots];
        b[i] = ir_box_make(p.x, p.y, p.x, p.y);
    }
    ir_box_index all;
    ir_box_index_build(&all, b, na);
    size_t *near = NULL, ncap = 0;
    for (size_t i = 0; i < na; i++) {
        ir_pt p = i < s->ndots ? s->dots[i] : c[i - s->ndots];
        size_t nn = geom_ix_query(s, &all, ir_box_inset(b[i], GEOM_DOT_MERGE_PT), &near, &ncap);
        int dup = 0;
        for (size_t q = 0; q < nn && !dup; q++) {
            size_t j = near[q];
            if (j >= i) break;
            if (!kept[j]) continue;
            ir_pt o = j < s->ndots ? s->dots[j] : c[j - s->ndots];
            dup = ir_v_dist(o, p) <= GEOM_DOT_MERGE_PT;
        }
        if (!dup) {
            kept[i] = 1;
            pts.p[pts.n++] = p;
        }
    }
    free(near);
    ir_box_index_free(&all);
    for (size_t i = 0; i < pts.n; i++) b[i] = ir_box_make(pts.p[i].x, pts.p[i].y, pts.p[i].x, pts.p[i].y);
    ir_box_index_build(&pts.ix, b, pts.n);
    free(b);
    free(kept);
    free(c);
    return pts;
}

/* The nearest and second nearest of the points to box tb (by
 * ir_box_pt_dist, the earlier of equals first): *b1, *d1 and *b2, *d2, as
 * the loop over all the points in order (strict <) finds them. The two
 * first of (distance, index) among the points within r of the box are the
 * first two of all: r doubles until two are within it, or the loop over
 * all of them is run -- or r reaches enough: past it the caller only needs
 * to know that what is not found is farther than enough (a second point
 * not found is (size_t)-1 at 1e300, a first one 0 at 1e300). */
static void nearest_two(const geom_scene *s, points *pts, ir_box tb, double r, double enough,
                        size_t **buf, size_t *cap, size_t *b1, double *d1, size_t *b2, double *d2)
{
    while (pts->n >= 2 && r < 1e300) {
        *b1 = 0;
        *b2 = (size_t)-1;
        *d1 = *d2 = 1e300;
        size_t nn = geom_ix_query(s, &pts->ix, ir_box_inset(tb, r), buf, cap), within = 0;
        for (size_t k = 0; k < nn; k++) {
            size_t i = (*buf)[k];
            double dd = ir_box_pt_dist(tb, pts->p[i]);
            if (!(dd <= r)) continue;
            within++;
            if (dd < *d1) { *d2 = *d1; *b2 = *b1; *d1 = dd; *b1 = i; }
            else if (dd < *d2) { *d2 = dd; *b2 = i; }
        }
        if (within >= 2 || r >= enough) return;
        if (nn == pts->n) break;   /* the query had them all: the full loop */
        r *= 2;
    }
    *b1 = 0;
    *b2 = (size_t)-1;
    *d1 = *d2 = 1e300;
    if (!geom_spend(s, pts->n)) return;
    for (size_t i = 0; i < pts->n; i++) {
        double dd = ir_box_pt_dist(tb, pts->p[i]);
        if (dd < *d1) { *d2 = *d1; *b2 = *b1; *d1 = dd; *b1 = i; }
        else if (dd < *d2) { *d2 = dd; *b2 = i; }
    }
}

/* Are two segments parts of one straight line (collinear and touching)? */
static int same_line(const geom_seg *a, const geom_seg *b)
{
    if (ir_line_diff_deg(ir_v_dir_deg(ir_v_sub(a->b, a->a)), ir_v_dir_deg(ir_v_sub(b->b, b->a))) >
        2.0)
        return 0;
    return ir_pt_line_dist(b->a, a->a, a->b) <= GEOM_JOIN_EPS_PT &&
           ir_pt_line_dist(b->b, a->a, a->b) <= GEOM_JOIN_EPS_PT;
}

/* The length a viewer reads off a segment: 3D when the source gives it. */
static double seg_measure(const geom_seg *g)
{
    return g->len3 >= 0 ? g->len3 : g->len;
}

/* Two lines a label could be read against that measure the same: then the
 * label says the same whichever one the viewer picks. */
static int same_measure(const geom_seg *a, const geom_seg *b)
{
    double la = a->len3 >= 0 && b->len3 >= 0 ? a->len3 : a->len;
    double lb = a->len3 >= 0 && b->len3 >= 0 ? b->len3 : b->len;
    double r = la > lb ? la / lb : lb / la;
    return r <= 1.0 + GEOM_LENGTH_TOL;
}

static int beside(const geom_text *t, const geom_seg *g)
{
    ir_pt ab = ir_v_sub(g->b, g->a);
    double proj = ir_v_dot(ir_v_sub(t->c, g->a), ab) / (g->len * g->len);
    return proj >= 0.0 && proj <= 1.0;
}

/* Whether p lies in one of the closed shapes: those whose box holds it,
 * from an index over the boxes (built on first use into *ix, *done). */
static int inside_region(const geom_scene *s, ir_pt p, ir_box_index *ix, int *done)
{
    if (!*done) {
        *done = 1;
        ir_box *b = xmalloc((s->nshapes ? s->nshapes : 1) * sizeof *b);
        for (size_t i = 0; i < s->nshapes; i++) {
            b[i] = ir_box_empty();
            for (size_t k = 0; k < s->shapes[i].n; k++)
                ir_box_add(&b[i], s->shapes[i].pts[k].x, s->shapes[i].pts[k].y);
            /* a NaN point: any p may be found in it (every query has it) */
            for (size_t k = 0; k < s->shapes[i].n; k++)
                if (!isfinite(s->shapes[i].pts[k].x) || !isfinite(s->shapes[i].pts[k].y))
                    b[i] = ir_box_make(NAN, NAN, NAN, NAN);
        }
        ir_box_index_build(ix, b, s->nshapes);
        free(b);
    }
    size_t *near = NULL, cap = 0;
    size_t nn = geom_ix_query(s, ix, ir_box_make(p.x, p.y, p.x, p.y), &near, &cap);
    int in = 0;
    for (size_t q = 0; q < nn && !in; q++)
        in = ir_pt_in_poly(p, s->shapes[near[q]].pts, s->shapes[near[q]].n);
    free(near);
    return in;
}

static int competing_seg(const geom_seg *g)
{
    return geom_seg_measurable(g);
}

typedef struct {
    int n, bad;
    chk_verdict why;
} tally;

/* Counts a bad label; the first one's reason is kept, and bad returns 1
 * for it (then name its elements in ty->why). */
static int bad(tally *ty, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(tally *ty, int line, const char *fmt, ...)
{
    if (ty->bad++ != 0) return 0;
    va_list ap;
    va_start(ap, fmt);
    char buf[CHK_REASON_MAX];
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    chk_set(&ty->why, CHK_NO, line, "%s", buf);
    return 1;
}

void geom_label_association(const ir_diagram *d, const void *ctx, chk_verdict *v)
{
    (void)d;
    const geom_scene *s = ctx;
    tally ty;
    memset(&ty, 0, sizeof ty);
    points pts = collect_points(s);
    char n1[64], n2[64];
    size_t *near = NULL, ncap = 0;
    ir_box_index shix;
    int shdone = 0;
    memset(&shix, 0, sizeof shix);

    for (size_t i = 0; i < s->ntexts; i++) {
        const geom_text *t = &s->texts[i];
        double em = geom_em(t), slack = GEOM_LABEL_SLACK_EM * em;
        switch (t->kind) {
        case TXT_NAME:
        case TXT_COORD: {
            ty.n++;
            if (pts.n == 0) break;
            size_t b1, b2;
            double d1, d2;
            /* enough: beyond it a nearest point changes nothing below (not
             * ambiguous, not nearer than of=, out of reach) */
            double enough = (GEOM_LABEL_REACH_EM * em + slack) * GEOM_AMBIGUITY + slack;
            if (t->has_of) enough = fmax(enough, ir_box_pt_dist(t->box, t->of) + slack);
            nearest_two(s, &pts, t->box, 2 * GEOM_LABEL_REACH_EM * em, enough, &near, &ncap, &b1,
                        &d1, &b2, &d2);
            if (t->has_of) {
                double dof = ir_box_pt_dist(t->box, t->of);
                if (ir_v_dist(pts.p[b1], t->of) > 2 * GEOM_JOIN_EPS_PT &&
                    (d1 + slack) * GEOM_AMBIGUITY < dof + slack)
                    if (bad(&ty, t->line,
                            "label \"%s\" belongs to the point %s but sits nearer to %s "
                            "(%.1fpt vs %.1fpt)",
                            t->show, geom_point_name(s, t->of, n1, sizeof n1),
                            geom_point_name(s, pts.p[b1], n2, sizeof n2), d1, dof)) {
                        chk_blame(&ty.why, t->elem);
                        geom_blame_point(s, pts.p[b1], &ty.why);
                        geom_blame_point(s, t->of, &ty.why);
                    }
                break;
            }
            if (d1 > GEOM_LABEL_REACH_EM * em) break;   /* names a region or a shape */
            if (b2 != (size_t)-1 && (d2 + slack) < (d1 + slack) * GEOM_AMBIGUITY &&
                t->kind == TXT_NAME)
                if (bad(&ty, t->line, "label \"%s\" is as near to %s as to %s (%.1fpt vs %.1fpt)",
                        t->show, geom_point_name(s, pts.p[b2], n2, sizeof n2),
                        geom_point_name(s, pts.p[b1], n1, sizeof n1), d2, d1)) {
                    chk_blame(&ty.why, t->elem);
                    geom_blame_point(s, pts.p[b2], &ty.why);
                    geom_blame_point(s, pts.p[b1], &ty.why);
                }
            break;
        }
        case TXT_LENGTH:
        case TXT_VAR: {
            ty.n++;
            const geom_seg *own = NULL;
            double down = 1e300;
            if (t->has_along) {
                /* the first segment, in order, through the middle of the
                 * path piece: among those near it */
                ir_pt mid = ir_v_lerp(t->along_a, t->along_b, 0.5);
                size_t nn = geom_segs_near(
                    s, ir_box_inset(ir_box_make(mid.x, mid.y, mid.x, mid.y), GEOM_JOIN_EPS_PT), &near,
                    &ncap);
                ir_index_sort(near, nn);
                /* a NaN middle is near no segment: the loop over all found none */
                if (!(isfinite(mid.x) && isfinite(mid.y))) nn = 0;
                for (size_t q = 0; q < nn; q++) {
                    const geom_seg *g = &s->segs[near[q]];
                    if (ir_pt_seg_dist(ir_v_lerp(t->along_a, t->along_b, 0.5), g->a, g->b, NULL) <=
                            GEOM_JOIN_EPS_PT &&
                        ir_line_diff_deg(ir_v_dir_deg(ir_v_sub(g->b, g->a)),
                                         ir_v_dir_deg(ir_v_sub(t->along_b, t->along_a))) < GEOM_ALONG_DEG) {
                        own = g;
                        break;
                    }
                }
                down = ir_seg_box_dist(t->along_a, t->along_b, t->box);
            }
            const geom_seg *s1 = NULL, *s2 = NULL;
            double d1 = 1e300, d2 = 1e300;
            /* The loop over every segment in order, over those within r of
             * the box only: one farther off comes nearest only when none is
             * within r, and second only behind the nearest at less than
             * (d1 + slack) * GEOM_AMBIGUITY - slack, where it would not
             * count; else it only ever stands in for another as far off
             * (s2 is never read then). r doubles until the nearest
             * within it proves both, or covers every segment. */
            double r = 2 * GEOM_LABEL_REACH_EM * em + slack;
            size_t nn, *cand = NULL;
            for (;;) {
                s1 = s2 = NULL;
                d1 = d2 = 1e300;
                ir_box q = ir_box_inset(t->box, r);
                int all = !(r < 1e300) || !(isfinite(q.x1) && isfinite(q.x2) && isfinite(q.y1) &&
                                            isfinite(q.y2));
                nn = all ? (geom_spend(s, s->nsegs) ? s->nsegs : 0) : geom_segs_near(s, q, &near, &ncap);
                if (!all) {
                    ir_index_sort(near, nn);
                    cand = near;
                }
                for (size_t kk = 0; kk < nn; kk++) {
                    const geom_seg *g = &s->segs[all ? kk : cand[kk]];
                    if (!competing_seg(g)) continue;
                if (g->len < GEOM_MIN_SEGMENT_EM * em) continue;
                /* a label is read against a line it stands beside, not one
                 * it lies beyond the end of */
                if (!beside(t, g)) continue;
                /* certainly farther than the second nearest (d1 <= d2):
                 * neither is replaced */
                if (geom_text_seg_gap(t, g) > d2) continue;
                double dd = geom_text_seg_dist(t, g);
                if (dd < d1) {
                    if (s1 && !same_line(s1, g)) { d2 = d1; s2 = s1; }
                    d1 = dd; s1 = g;
                } else if (dd < d2 && s1 && !same_line(s1, g)) {
                    d2 = dd; s2 = g;
                }
                }
                if (all || nn == s->nsegs ||
                    (s1 && (d1 + slack) * GEOM_AMBIGUITY - slack <= r && d1 <= r))
                    break;
                /* Past the reach (and what could be ambiguous within it),
                 * a line farther off or none makes no difference below --
                 * unless the label is placed on a path (the line nearest
                 * it is compared with its own), or it is a length label
                 * that will be the first reported (its reason tells the
                 * distance) and not a number inside a region. */
                double enough = (GEOM_LABEL_REACH_EM * em + slack) * GEOM_AMBIGUITY + slack;
                if (r >= enough && !t->has_along &&
                    !(t->kind == TXT_LENGTH && ty.bad == 0 &&
                      !(!t->unit[0] && inside_region(s, t->c, &shix, &shdone)))) {
                    /* what lies within r was seen: s1 is then out of reach */
                    s1 = s2 = NULL;
                    d1 = d2 = 1e300;
                    break;
                }
                r *= 2;
            }
            if (t->has_along) {
                /* placed on its segment and standing by it: attached */
                if (own && s1 && down > em && !same_line(own, s1) && !same_measure(own, s1) &&
                    (d1 + slack) * GEOM_AMBIGUITY < down + slack) {
                    snprintf(n1, sizeof n1, "line %d", s1->line);
                    if (bad(&ty, t->line,
                            "\"%s\" is placed on a segment of line %d but sits nearer to another "
                            "line (%s): %.1fpt vs %.1fpt",
                            t->show, own->line, n1, d1, down)) {
                        chk_blame(&ty.why, t->elem);
                        chk_blame(&ty.why, s1->elem);
                        chk_blame(&ty.why, own->elem);
                    }
                }
                break;
            }
            if (!s1 || d1 > GEOM_LABEL_REACH_EM * em) {
                /* a bare number inside a region, away from its sides, states
                 * the region's measure (an area, a count); with a length unit
                 * it is a length with no line to measure */
                if (t->kind == TXT_VAR || (!t->unit[0] && inside_region(s, t->c, &shix, &shdone)))
                    break;
                int first;
                if (s1)
                    first = bad(&ty, t->line, "length label \"%s\" stands apart from every line "
                                "(nearest %.1fpt away, reach %.0fpt)",
                                t->show, d1, GEOM_LABEL_REACH_EM * em);
                else
                    first = bad(&ty, t->line, "length label \"%s\" has no line to measure",
                                t->show);
                if (first) chk_blame(&ty.why, t->elem);
                break;
            }
            if (s2 && (d2 + slack) < (d1 + slack) * GEOM_AMBIGUITY && !same_measure(s1, s2)) {
                if (bad(&ty, t->line, "\"%s\" is as near to the line of line %d (length %.1f) as "
                        "to that of line %d (length %.1f): %.1fpt vs %.1fpt",
                        t->show, s2->line, seg_measure(s2), s1->line, seg_measure(s1), d2, d1)) {
                    chk_blame(&ty.why, t->elem);
                    chk_blame(&ty.why, s2->elem);
                    chk_blame(&ty.why, s1->elem);
                }
            }
            break;
        }
        default:
            /* angles are placed by angle-labels; titles and words label
             * what they stand by, which geometry alone cannot tell */
            ty.n++;
            break;
        }
    }
    free(pts.p);
    ir_box_index_free(&pts.ix);
    ir_box_index_free(&shix);
    free(near);
    if (ty.n == 0) {
        chk_set(v, CHK_NA, 0, "no labels");
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
    chk_set(v, CHK_YES, 0, "%d label(s), each nearest to the element it labels", ty.n);
}
