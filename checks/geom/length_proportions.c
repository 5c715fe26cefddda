/* length_proportions.c — "Labeled lengths and areas (if any) match visual
 * proportions."
 *
 * Each text stating a length is tied to what it measures: the path segment
 * it was placed on (along=), else the nearest straight line it stands
 * beside (a dimension line or a side of the figure; a run of collinear sides
 * when the label sits at the middle of the run), or the radius/diameter of
 * a circle for r= / d= labels. The drawn length divided by the stated one is
 * that label's scale. Within one figure (a connected group of lines), the
 * scales of labels in compatible units must agree within GEOM_LENGTH_TOL:
 * that is what the viewer compares. Separate figures may be drawn at their
 * own scales (a scaled copy drawn the same size is judged by its own labels).
 *
 * Solids are drawn in parallel projection, which keeps the ratio of lengths
 * along parallel lines but shortens receding edges. A receding edge is one
 * of at least GEOM_RECEDING_MIN parallel, equally long lines slanted by more
 * than GEOM_FRONTAL_TOL_DEG (the depth edges of a box). Compared with a
 * frontal line, a labeled receding edge may look shorter than its label says
 * (down to GEOM_FORESHORTEN_MIN of it) but not longer; receding edges are
 * compared strictly with parallel ones.
 *
 * Areas are compared with the drawn area of the region they sit in, in the
 * scale of the figure's lengths (or with each other), within GEOM_AREA_TOL.
 * na when no length or area is labeled.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/geom/geom.h"

typedef struct {
    const geom_text *t;
    double stated;      /* the stated length / area */
    double drawn;       /* drawn length (pt) / drawn area (pt^2) */
    double dir;         /* direction of the measured line (deg), -1 none */
    int receding;       /* a receding edge of a solid */
    int comp;           /* figure (connected component), -1 unknown, -2 not yet
                           found: meas_comp finds it when two are compared */
    const geom_seg *comp_seg;   /* comp -2: comp_of(comp_seg, comp_reach), or */
    double comp_reach;
    const geom_shape *comp_shape;   /* the comp of its first segment */
    char what[32];
    size_t elem;        /* the element measured (line, circle, region), or NO_ELEM */
} meas;

#define NO_ELEM ((size_t)-1)

/* Blames m's label and the element it measures. */
static void blame_meas(chk_verdict *v, const meas *m)
{
    chk_blame(v, m->t->elem);
    if (m->elem != NO_ELEM) chk_blame(v, m->elem);
}

#define MAXM 128

/* Length of the maximal straight run of figure segments through g. */
static double collinear_run(const geom_scene *s, const geom_seg *g, ir_pt *ra, ir_pt *rb)
{
    ir_pt a = g->a, b = g->b;
    double dir = ir_v_dir_deg(ir_v_sub(b, a));
    int grew = 1;
    for (int guard = 0; grew && guard < 32; guard++) {
        grew = 0;
        for (size_t i = 0; i < s->nsegs; i++) {
            const geom_seg *h = &s->segs[i];
            if (h->cls != SEG_FIGURE || h->curved || !h->visible) continue;
            if (ir_pt_line_dist(h->a, a, b) > GEOM_JOIN_EPS_PT ||
                ir_pt_line_dist(h->b, a, b) > GEOM_JOIN_EPS_PT)
                continue;
            if (ir_line_diff_deg(ir_v_dir_deg(ir_v_sub(h->b, h->a)), dir) > GEOM_COLLINEAR_DEG) continue;
            /* extend when h continues the run at one end */
            ir_pt ends[2] = {h->a, h->b};
            for (int k = 0; k < 2; k++) {
                ir_pt p = ends[k], q = ends[1 - k];
                if (ir_v_dist(p, b) <= GEOM_JOIN_EPS_PT && ir_v_dist(q, a) > ir_v_dist(b, a) + 0.5) {
                    b = q; grew = 1;
                } else if (ir_v_dist(p, a) <= GEOM_JOIN_EPS_PT &&
                           ir_v_dist(q, b) > ir_v_dist(a, b) + 0.5) {
                    a = q; grew = 1;
                }
            }
        }
    }
    *ra = a;
    *rb = b;
    return ir_v_dist(a, b);
}

static const geom_seg *seg_matching(const geom_scene *s, ir_pt a, ir_pt b)
{
    for (size_t i = 0; i < s->nsegs; i++) {
        const geom_seg *g = &s->segs[i];
        if ((ir_v_dist(g->a, a) <= GEOM_JOIN_EPS_PT && ir_v_dist(g->b, b) <= GEOM_JOIN_EPS_PT) ||
            (ir_v_dist(g->a, b) <= GEOM_JOIN_EPS_PT && ir_v_dist(g->b, a) <= GEOM_JOIN_EPS_PT))
            return g;
    }
    return NULL;
}

static int units_compatible(const geom_text *a, const geom_text *b);

/* A line within GEOM_FRONTAL_TOL_DEG of horizontal or vertical is read as
 * lying in the picture plane. */
static int axis_aligned(double dir)
{
    double d = fmod(dir, 90.0);
    return d <= GEOM_FRONTAL_TOL_DEG || d >= 90.0 - GEOM_FRONTAL_TOL_DEG;
}

/* A receding edge: slanted, and one of at least GEOM_RECEDING_MIN parallel
 * figure lines of the same length on distinct lines (a box's depth edges). */
static int receding(const geom_scene *s, ir_pt a, ir_pt b)
{
    double dir = ir_v_dir_deg(ir_v_sub(b, a)), len = ir_v_dist(a, b);
    if (len <= 0 || axis_aligned(dir)) return 0;
    int n = 1;
    for (size_t i = 0; i < s->nsegs && n < GEOM_RECEDING_MIN; i++) {
        const geom_seg *h = &s->segs[i];
        if (h->cls != SEG_FIGURE || h->curved) continue;
        if (fabs(h->len - len) > GEOM_DIM_MATCH * len) continue;
        if (ir_line_diff_deg(ir_v_dir_deg(ir_v_sub(h->b, h->a)), dir) > GEOM_ALONG_DEG) continue;
        if (ir_pt_line_dist(h->a, a, b) <= GEOM_JOIN_EPS_PT) continue;  /* same line */
        n++;
    }
    return n >= GEOM_RECEDING_MIN;
}

/* The figure a line belongs to; for a dimension line, the figure of the
 * parallel side it measures. */
static int comp_of(const geom_scene *s, const geom_seg *g, double reach)
{
    geom_need_comps(s);
    if (g->cls == SEG_FIGURE) return g->comp;
    double dir = ir_v_dir_deg(ir_v_sub(g->b, g->a)), best = reach;
    int comp = -1;
    for (size_t i = 0; i < s->nsegs; i++) {
        const geom_seg *h = &s->segs[i];
        if (h->cls != SEG_FIGURE || h->curved) continue;
        if (ir_line_diff_deg(ir_v_dir_deg(ir_v_sub(h->b, h->a)), dir) > GEOM_SAME_DIR_DEG) continue;
        double d = ir_seg_seg_dist(g->a, g->b, h->a, h->b);
        if (d <= best) { best = d; comp = h->comp; }
    }
    return comp;
}

/* m's figure is comp_of(s, g, reach), found when asked (meas_comp). */
static void meas_comp_later(meas *m, const geom_seg *g, double reach)
{
    m->comp = -2;
    m->comp_seg = g;
    m->comp_reach = reach;
    m->comp_shape = NULL;
}

/* m's figure (the components are found only if some label needs them). */
static int meas_comp(const geom_scene *s, meas *m)
{
    if (m->comp != -2) return m->comp;
    if (m->comp_shape) {
        m->comp = -1;
        geom_need_comps(s);
        for (size_t i = 0; i < s->nsegs; i++)
            if (s->segs[i].elem == m->comp_shape->elem) { m->comp = s->segs[i].comp; break; }
    } else {
        m->comp = comp_of(s, m->comp_seg, m->comp_reach);
    }
    return m->comp;
}

/* What a length label measures. Returns 0 when nothing is near. */
static int measure_length(const geom_scene *s, const geom_text *t, meas *m)
{
    double em = geom_em(t);
    m->t = t;
    m->stated = t->value;
    m->comp = -1;
    m->dir = -1;
    m->receding = 0;
    m->drawn = 0;
    m->elem = NO_ELEM;
    if (t->has_along) {
        const geom_seg *g = seg_matching(s, t->along_a, t->along_b);
        m->drawn = ir_v_dist(t->along_a, t->along_b);
        m->dir = ir_v_dir_deg(ir_v_sub(t->along_b, t->along_a));
        m->receding = receding(s, t->along_a, t->along_b);
        if (g) {
            meas_comp_later(m, g, 3 * em);
            m->elem = g->elem;
        }
        snprintf(m->what, sizeof m->what, "the segment it is placed on");
        return m->drawn > 0;
    }
    /* circles: r = / d = */
    if (t->quantity == 'r' || t->quantity == 'd') {
        const geom_shape *best = NULL;
        double bd = 0;
        for (size_t i = 0; i < s->nshapes; i++) {
            const geom_shape *sh = &s->shapes[i];
            if (!sh->round) continue;
            double dd = ir_v_dist(sh->centre, t->c);
            if (dd > sh->radius + GEOM_LABEL_REACH_EM * em) continue;
            if (!best || dd < bd) { best = sh; bd = dd; }
        }
        if (best) {
            /* a drawn radius/diameter line near the label wins below; the
             * circle is the fallback */
            m->drawn = t->quantity == 'r' ? best->radius : 2 * best->radius;
            m->elem = best->elem;
            snprintf(m->what, sizeof m->what, "the circle's %s",
                     t->quantity == 'r' ? "radius" : "diameter");
        }
    }
    const geom_seg *best = NULL;
    double bd = 0;
    for (size_t i = 0; i < s->nsegs; i++) {
        const geom_seg *g = &s->segs[i];
        if (!geom_seg_measurable(g)) continue;
        if (g->len < GEOM_MIN_SEGMENT_EM * em) continue;
        /* the label must stand beside the segment, not beyond its ends */
        ir_pt ab = ir_v_sub(g->b, g->a);
        double proj = ir_v_dot(ir_v_sub(t->c, g->a), ab) / (g->len * g->len);
        if (proj < -GEOM_LABEL_OVERHANG || proj > 1 + GEOM_LABEL_OVERHANG) continue;
        /* certainly out of reach (dd is at least the bound): pass over */
        if (geom_text_seg_gap(t, g) > GEOM_LABEL_REACH_EM * em) continue;
        double dd = geom_text_seg_dist(t, g);
        if (dd > GEOM_LABEL_REACH_EM * em) continue;
        /* prefer dimension lines: they say what is measured */
        double key = dd - (g->cls == SEG_DIM ? 0.5 * em : 0);
        if (!best || key < bd) { best = g; bd = key; }
    }
    if (!best) return m->drawn > 0;
    double len = best->len;
    ir_pt ma = best->a, mb = best->b;
    /* a run of collinear sides, when the label sits at its middle */
    if (best->cls == SEG_FIGURE) {
        ir_pt ra, rb;
        double run = collinear_run(s, best, &ra, &rb);
        if (run > best->len + 1.0) {
            ir_pt mid_seg = ir_v_lerp(best->a, best->b, 0.5), mid_run = ir_v_lerp(ra, rb, 0.5);
            ir_pt dir = ir_v_scale(ir_v_sub(rb, ra), 1.0 / run);
            double ps = fabs(ir_v_dot(ir_v_sub(t->c, mid_seg), dir));
            double pr = fabs(ir_v_dot(ir_v_sub(t->c, mid_run), dir));
            if (pr < ps) len = run;
        }
    }
    m->drawn = len;
    m->dir = ir_v_dir_deg(ir_v_sub(mb, ma));
    m->receding = receding(s, ma, mb);
    meas_comp_later(m, best, 3 * em);
    m->elem = best->elem;
    snprintf(m->what, sizeof m->what, "%s at line %d",
             best->cls == SEG_DIM ? "the dimension line" : "the line", best->line);
    return 1;
}

/* May the scales of two labels be compared? 0 no, 1 strictly (ratio
 * within the tolerance), 2 a receding line (a) against a frontal one (b):
 * a may be drawn shorter, down to GEOM_FORESHORTEN_MIN, but not longer. */
static int comparable(const geom_scene *s, meas *a, meas *b)
{
    if (!units_compatible(a->t, b->t)) return 0;
    int ca = meas_comp(s, a), cb = meas_comp(s, b);
    if (ca >= 0 && cb >= 0 && ca != cb) return 0;
    if (a->receding && b->receding) {
        if (a->dir < 0 || b->dir < 0) return 0;
        return ir_line_diff_deg(a->dir, b->dir) <= GEOM_SAME_DIR_DEG;
    }
    if (a->receding) return 2;
    if (b->receding) return 0;   /* judged from a's side */
    return 1;
}

static int measure_area(const geom_scene *s, const geom_text *t, meas *m)
{
    const geom_shape *best = NULL;
    double em = geom_em(t);
    for (size_t i = 0; i < s->nshapes; i++) {
        const geom_shape *sh = &s->shapes[i];
        if (sh->area <= 0 || !ir_pt_in_poly(t->c, sh->pts, sh->n)) continue;
        if (!best || sh->area < best->area) best = sh;
    }
    if (!best) {
        double bd = 0;
        for (size_t i = 0; i < s->nshapes; i++) {
            const geom_shape *sh = &s->shapes[i];
            if (sh->area <= 0) continue;
            double dd = 1e300;
            for (size_t k = 0; k < sh->n; k++) {
                double x = ir_seg_box_dist(sh->pts[k], sh->pts[(k + 1) % sh->n], t->box);
                if (x < dd) dd = x;
            }
            if (dd > GEOM_LABEL_REACH_EM * em) continue;
            if (!best || dd < bd) { best = sh; bd = dd; }
        }
    }
    if (!best) return 0;
    m->t = t;
    m->stated = t->value;
    m->drawn = best->area;
    m->dir = -1;
    m->receding = 0;
    m->comp = -1;
    m->elem = best->elem;
    snprintf(m->what, sizeof m->what, "the region at line %d", best->line);
    return 1;
}

/* The closed shape a text sits in (the smallest), else the nearest one
 * within reach. */
static const geom_shape *shape_of_text(const geom_scene *s, const geom_text *t)
{
    const geom_shape *best = NULL;
    for (size_t i = 0; i < s->nshapes; i++) {
        const geom_shape *sh = &s->shapes[i];
        if (sh->area <= 0 || !ir_pt_in_poly(t->c, sh->pts, sh->n)) continue;
        if (!best || sh->area < best->area) best = sh;
    }
    if (best) return best;
    double bd = GEOM_LABEL_REACH_EM * geom_em(t);
    for (size_t i = 0; i < s->nshapes; i++) {
        const geom_shape *sh = &s->shapes[i];
        if (sh->area <= 0) continue;
        for (size_t k = 0; k < sh->n; k++) {
            double x = ir_seg_box_dist(sh->pts[k], sh->pts[(k + 1) % sh->n], t->box);
            if (x <= bd) { bd = x; best = sh; }
        }
    }
    return best;
}

/* "a x b" on a rectangle: its two sides, longer with longer. Fills two
 * measurements; returns how many (0 when no rectangle carries the label). */
static int measure_dims(const geom_scene *s, const geom_text *t, meas *m)
{
    const geom_shape *sh = shape_of_text(s, t);
    if (!sh || sh->round || sh->n != 4) return 0;
    double w = ir_v_dist(sh->pts[0], sh->pts[1]), h = ir_v_dist(sh->pts[1], sh->pts[2]);
    if (w <= 0 || h <= 0) return 0;
    double a = t->dims[0], b = t->dims[1];
    double side[2] = {fmax(w, h), fmin(w, h)}, val[2] = {fmax(a, b), fmin(a, b)};
    ir_pt dirs[2] = {ir_v_sub(sh->pts[1], sh->pts[0]), ir_v_sub(sh->pts[2], sh->pts[1])};
    for (int k = 0; k < 2; k++) {
        m[k].t = t;
        m[k].stated = val[k];
        m[k].drawn = side[k];
        m[k].dir = ir_v_dir_deg(dirs[(w >= h) == (k == 0) ? 0 : 1]);
        m[k].receding = 0;
        m[k].comp = -2;   /* its first segment's (meas_comp) */
        m[k].comp_shape = sh;
        m[k].elem = sh->elem;
        snprintf(m[k].what, sizeof m[k].what, "the shape at line %d", sh->line);
    }
    return 2;
}

/* Points labeled with their coordinates must sit where one scale per axis,
 * the same for both axes (within GEOM_LENGTH_TOL), puts them. Returns 1 and
 * fills v when they do not. */
static int check_coords(const geom_scene *s, chk_verdict *v)
{
    enum { MAXC = 64 };
    const geom_text *lab[MAXC];
    ir_pt at[MAXC];
    size_t n = 0;
    for (size_t i = 0; i < s->ntexts && n < MAXC; i++) {
        const geom_text *t = &s->texts[i];
        if (t->kind != TXT_COORD || t->ndims != 2) continue;
        ir_pt p;
        if (t->has_of) {
            p = t->of;
        } else {
            /* the nearest vertex dot or corner */
            double bd = GEOM_LABEL_REACH_EM * geom_em(t);
            int found = 0;
            for (size_t k = 0; k < s->ndots; k++) {
                double d = ir_box_pt_dist(t->box, s->dots[k]);
                if (d <= bd) { bd = d; p = s->dots[k]; found = 1; }
            }
            ir_pt c;
            double dc;
            if (geom_nearest_corner(s, t->c, bd + 2 * geom_em(t), &c, &dc) &&
                ir_box_pt_dist(t->box, c) <= bd) {
                p = c;
                found = 1;
            }
            if (!found) continue;
        }
        lab[n] = t;
        at[n] = p;
        n++;
    }
    if (n < 2) return 0;
    /* least squares per axis: drawn = k * stated + c */
    double k[2] = {0, 0};
    int have[2] = {0, 0};
    for (int ax = 0; ax < 2; ax++) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (size_t i = 0; i < n; i++) {
            double x = lab[i]->dims[ax], y = ax ? at[i].y : at[i].x;
            sx += x; sy += y; sxx += x * x; sxy += x * y;
        }
        double den = (double)n * sxx - sx * sx;
        if (fabs(den) < 1e-9) continue;
        k[ax] = ((double)n * sxy - sx * sy) / den;
        have[ax] = 1;
        double c = (sy - k[ax] * sx) / (double)n;
        /* every point on the fitted scale, within the tolerance of the span */
        double lo = 1e300, hi = -1e300;
        for (size_t i = 0; i < n; i++) {
            double y = ax ? at[i].y : at[i].x;
            if (y < lo) lo = y;
            if (y > hi) hi = y;
        }
        for (size_t i = 0; i < n; i++) {
            double y = ax ? at[i].y : at[i].x;
            double r = fabs(y - (k[ax] * lab[i]->dims[ax] + c));
            if (k[ax] <= 0 || r > GEOM_LENGTH_TOL * (hi - lo)) {
                chk_set(v, CHK_NO, lab[i]->line,
                        "the point labeled \"%s\" is drawn %.1fpt off the %c position its "
                        "coordinates give among the %zu labeled points",
                        lab[i]->show, r, ax ? 'y' : 'x', n);
                chk_blame(v, lab[i]->elem);
                return 1;
            }
        }
    }
    if (have[0] && have[1]) {
        double r = k[0] > k[1] ? k[0] / k[1] : k[1] / k[0];
        if (k[0] > 0 && k[1] > 0 && r > 1.0 + GEOM_LENGTH_TOL) {
            chk_set(v, CHK_NO, lab[0]->line,
                    "the labeled coordinates are drawn %.1fpt per unit across and %.1fpt per "
                    "unit up (off by %.0f%%; tolerance %.0f%%)",
                    k[0], k[1], (r - 1) * 100, GEOM_LENGTH_TOL * 100);
            for (size_t i = 0; i < n; i++) chk_blame(v, lab[i]->elem);
            return 1;
        }
    }
    return 0;
}

static int units_compatible(const geom_text *a, const geom_text *b)
{
    return !a->unit[0] || !b->unit[0] || strcmp(a->unit, b->unit) == 0;
}

void geom_length_proportions(const ir_diagram *d, const void *ctx, chk_verdict *v)
{
    (void)d;
    const geom_scene *s = ctx;
    meas len[MAXM], area[MAXM];
    size_t nl = 0, na = 0, nlabels = 0, ncoord = 0;
    for (size_t i = 0; i < s->ntexts; i++) {
        const geom_text *t = &s->texts[i];
        if (t->kind == TXT_LENGTH && t->has_value && t->value > 0) {
            nlabels++;
            if (nl < MAXM && measure_length(s, t, &len[nl])) nl++;
        } else if (t->kind == TXT_AREA && t->has_value && t->value > 0) {
            nlabels++;
            if (na < MAXM && measure_area(s, t, &area[na])) na++;
        } else if (t->kind == TXT_DIMS && t->ndims == 2) {
            nlabels++;
            if (nl + 2 <= MAXM) nl += (size_t)measure_dims(s, t, &len[nl]);
        } else if (t->kind == TXT_COORD) {
            ncoord++;
        }
    }
    if (ncoord >= 2 && check_coords(s, v)) return;
    nlabels += ncoord;
    if (nlabels == 0) {
        chk_set(v, CHK_NA, 0, "no length or area is labeled");
        return;
    }
    if (nl + na == 0) {
        if (ncoord >= 2)
            chk_set(v, CHK_YES, 0, "%zu points labeled with coordinates sit where the "
                    "coordinates put them", ncoord);
        else
            chk_set(v, CHK_NA, 0,
                    "%zu length/area label(s), none next to a line or region it could "
                    "measure",
                    nlabels);
        return;
    }
    /* lengths: the scale factors drawn/stated must agree */
    double worst = 1.0;
    size_t wi = 0, wj = 0;
    for (size_t i = 0; i < nl; i++)
        for (size_t j = 0; j < nl; j++) {
            int how = i == j ? 0 : comparable(s, &len[i], &len[j]);
            if (!how) continue;
            double ki = len[i].drawn / len[i].stated, kj = len[j].drawn / len[j].stated;
            if (kj <= 0 || ki <= 0) continue;
            double r = ki / kj;
            /* receding: shortened down to GEOM_FORESHORTEN_MIN is faithful */
            if (how == 2 && r < 1.0) {
                r = r >= GEOM_FORESHORTEN_MIN ? 1.0 : (1.0 + GEOM_LENGTH_TOL) * GEOM_FORESHORTEN_MIN / r;
            }
            if (r > worst) { worst = r; wi = i; wj = j; }
        }
    if (worst > 1.0 + GEOM_LENGTH_TOL) {
        const meas *a = &len[wi], *b = &len[wj];
        double ka = a->drawn / a->stated, kb = b->drawn / b->stated;
        if (a->receding && !b->receding && ka < kb) {
            chk_set(v, CHK_NO, a->t->line,
                    "the receding edge \"%s\" (line %d) is drawn at %.2f of the scale of \"%s\" "
                    "(line %d): shorter than any view foreshortens it (at least %.2f)",
                    a->t->show, a->t->line, ka / kb, b->t->show, b->t->line,
                    GEOM_FORESHORTEN_MIN);
            blame_meas(v, a);
            blame_meas(v, b);
            return;
        }
        /* a/b: a is drawn too long relative to b */
        chk_set(v, CHK_NO, a->t->line,
                "\"%s\" (line %d) is drawn %.1fpt long and \"%s\" (line %d) %.1fpt: ratio %.2f drawn "
                "vs %.2f stated (off by %.0f%%; tolerance %.0f%%)",
                a->t->show, a->t->line, a->drawn, b->t->show, b->t->line, b->drawn,
                a->drawn / b->drawn, a->stated / b->stated, (worst - 1) * 100,
                GEOM_LENGTH_TOL * 100);
        blame_meas(v, a);
        blame_meas(v, b);
        return;
    }
    /* areas: in the lengths' scale, or against each other */
    double k2 = 0;
    int have_scale = 0;
    for (size_t i = 0; i < nl; i++)
        if (!len[i].receding) {
            double k = len[i].drawn / len[i].stated;
            k2 += log(k);
            have_scale++;
        }
    if (have_scale) k2 = exp(2 * k2 / have_scale);
    for (size_t i = 0; i < na; i++) {
        const meas *a = &area[i];
        double r = 0;
        const meas *b = NULL;
        if (have_scale) {
            r = a->drawn / (a->stated * k2);
        } else if (na > 1) {
            b = &area[(i + 1) % na];
            r = (a->drawn / a->stated) / (b->drawn / b->stated);
        } else {
            continue;
        }
        if (r < 1) r = 1 / r;
        if (r > 1.0 + GEOM_AREA_TOL) {
            if (b)
                chk_set(v, CHK_NO, a->t->line,
                        "areas \"%s\" (line %d) and \"%s\" (line %d) are drawn in the ratio %.2f, "
                        "stated %.2f (tolerance %.0f%%)",
                        a->t->show, a->t->line, b->t->show, b->t->line, a->drawn / b->drawn,
                        a->stated / b->stated, GEOM_AREA_TOL * 100);
            else
                chk_set(v, CHK_NO, a->t->line,
                        "\"%s\" labels %s, whose drawn area is %.2f times the stated area in the "
                        "scale of the labeled lengths (tolerance %.0f%%)",
                        a->t->show, a->what, a->drawn / (a->stated * k2), GEOM_AREA_TOL * 100);
            blame_meas(v, a);
            if (b) blame_meas(v, b);
            return;
        }
    }
    if (nl + na == 1) {
        const meas *m = nl ? &len[0] : &area[0];
        chk_set(v, CHK_YES, m->t->line, "one labeled %s (\"%s\"): nothing to compare it with",
                nl ? "length" : "area", m->t->show);
        return;
    }
    chk_set(v, CHK_YES, (nl ? len[0].t : area[0].t)->line,
            "%zu labeled lengths and %zu areas agree with the drawing (largest scale difference "
            "%.0f%%; tolerance %.0f%%)",
            nl, na, (worst - 1) * 100, GEOM_LENGTH_TOL * 100);
}
