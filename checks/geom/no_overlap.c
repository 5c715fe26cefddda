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
 *     as hard to read as any other. Not counted: a plot axis (or a line
 *     drawn along it) running into the axis' own name, set at its end; a
 *     dimension line through the length written on it, which it is there
 *     to carry; a stroke in its own fill's colour, which draws no line;
 *   - a vertex dot inside the core of a text it does not label;
 *   - an angle arc crossing a side of its angle and running on past it by
 *     more than GEOM_ARC_CROSS_DEG;
 *   - solids painted out of depth order: wherever filled faces overlap (by
 *     more than GEOM_FACE_OVERLAP_FRAC of the smaller), the face painted
 *     last must be the nearest one there (within GEOM_DEPTH_TOL of the
 *     faces' size); a solid line with 3D coordinates must not show through
 *     a face in front of it for more than GEOM_HIDDEN_LINE_PT (dashed
 *     lines are hidden edges drawn as such). Depth comes from the 3D
 *     coordinates the IR keeps (xyz=) and the parallel projection fitted to
 *     them, or, for drawings of unit cubes, from the cube lattice
 *     (solid.c); only faces and lines of one placement are compared.
 * Grid lines are background and never count.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/limits.h"
#include "checks/geom/no_overlap.h"
#include "ir/box_index.h"
#include "ir/xalloc.h"

static ir_box core_box(const geom_text *t)
{
    double h = ir_box_h(t->box), w = ir_box_w(t->box);
    double k = GEOM_TEXT_CORE_FRAC * fmin(h, w);
    return ir_box_inset(t->box, -k);
}

/* A plot axis, or a line drawn along one; axes[0..naxes) are the indices
 * of the straight axis segments, in order. */
static int on_axis(const geom_scene *s, const geom_seg *g, const size_t *axes, size_t naxes)
{
    if (g->cls == SEG_AXIS) return 1;
    if (g->curved) return 0;
    double dir = ir_v_dir_deg(ir_v_sub(g->b, g->a));
    for (size_t q = 0; q < naxes; q++) {
        const geom_seg *h = &s->segs[axes[q]];
        if (ir_line_diff_deg(ir_v_dir_deg(ir_v_sub(h->b, h->a)), dir) > GEOM_COLLINEAR_DEG) continue;
        if (ir_pt_line_dist(g->a, h->a, h->b) <= GEOM_JOIN_EPS_PT &&
            ir_pt_line_dist(g->b, h->a, h->b) <= GEOM_JOIN_EPS_PT)
            return 1;
    }
    return 0;
}

/* --- depth order of solids ---------------------------------------------
 *
 * Wherever filled faces of a solid overlap in the picture, the face painted
 * last is the one the viewer sees; it must be the face nearest the viewer
 * there. Likewise a solid line with 3D coordinates must not show where a
 * face lies in front of it. Faces and lines are compared only within one
 * placement (geom_face.group): copies moved apart in the picture plane
 * have no depth relative to each other. Toward the viewer is the scene's
 * view: the right-handed frame of the 3D coordinates, or, for cube
 * lattices recovered from the picture, the side their faces show. */

/* A filled face, ready for depth queries. */
typedef struct {
    const geom_face *f;
    double dc[3];        /* depth at picture point (x, y): dc[0] + dc[1] x + dc[2] y */
    double adc[3];       /* fabs(dc[k]) */
    double size;         /* mean edge length in 3D: the scale of depth tolerances */
    double area;         /* picture area */
    double orient;       /* 1 when its signed area is >= 0, else -1 */
    ir_box box;          /* f->box */
    int group;           /* f->group */
    double dmax, dmin;   /* depth_at over its box's corners, largest and smallest,
                            widened by a margin far above rounding (face_order) */
    int convex;          /* ir_poly_convex of its outline; -1 until asked (is_convex) */
    int strict;          /* strict_convex of its outline; -1 until asked (is_strict) */
} sface;

static double depth_at(const sface *f, ir_pt p)
{
    return f->dc[0] + f->dc[1] * p.x + f->dc[2] * p.y;
}

/* The filled faces, in drawing order, and a grid over their boxes (at most
 * 64 x 64 cells). Each cell has four lists of the faces covering it, each
 * in drawing order: FS_ALL every one; FS_ROW those whose first row of
 * cells is the cell's; FS_COL those whose first column is the cell's;
 * FS_FIRST those whose first cell (first row, first column) it is (the
 * enum is in no_overlap.h). */

typedef struct {
    sface *f;
    size_t n;
    geom_grid_plan pl;   /* cells: size, origin, counts */
    int (*cell)[4];      /* per face: its grid cells i0, j0, i1, j1 */
    size_t *start[4];    /* per cell, list L: idx[L][start[L][c] .. start[L][c+1]) */
    unsigned *idx[4];
} face_set;

void geom_depth_range(const double dc[3], ir_box b, double *dmin, double *dmax)
{
    double c00 = dc[0] + dc[1] * b.x1 + dc[2] * b.y1;
    double c10 = dc[0] + dc[1] * b.x2 + dc[2] * b.y1;
    double c01 = dc[0] + dc[1] * b.x1 + dc[2] * b.y2;
    double c11 = dc[0] + dc[1] * b.x2 + dc[2] * b.y2;
    /* the depth at any point of the box, as computed, is within some 1e-15
     * of the terms' size of the affine function's value, whose extremes are
     * at the corners: m covers that twice over */
    double m = 1e-12 * (fabs(dc[0]) + fabs(dc[1]) * (fabs(b.x1) + fabs(b.x2)) +
                        fabs(dc[2]) * (fabs(b.y1) + fabs(b.y2)));
    *dmax = fmax(fmax(c00, c10), fmax(c01, c11)) + m;
    *dmin = fmin(fmin(c00, c10), fmin(c01, c11)) - m;
    if (!isfinite(*dmax) || !isfinite(*dmin) || !isfinite(m)) {
        *dmax = INFINITY;   /* no bound */
        *dmin = -INFINITY;
    }
}

static double edge_size(const geom_face *f)
{
    double sum = 0;
    for (size_t i = 0; i < f->n; i++) {
        const ir_pt3 *a = &f->p3[i], *b = &f->p3[(i + 1) % f->n];
        sum += sqrt((a->x - b->x) * (a->x - b->x) + (a->y - b->y) * (a->y - b->y) +
                    (a->z - b->z) * (a->z - b->z));
    }
    return f->n ? sum / (double)f->n : 0;
}

/* Calls ADD(L, c) for every list L of every cell c face range r goes
 * into (see face_set), cell by cell in the order of the lists. */
#define FS_EACH(g, r, ADD)                                                        \
    do {                                                                          \
        size_t nx_ = (size_t)(g)->pl.nx;                                          \
        for (int j_ = (r)[1]; j_ <= (r)[3]; j_++)                                 \
            for (int i_ = (r)[0]; i_ <= (r)[2]; i_++) ADD(FS_ALL, (size_t)j_ * nx_ + (size_t)i_); \
        for (int i_ = (r)[0]; i_ <= (r)[2]; i_++) ADD(FS_ROW, (size_t)(r)[1] * nx_ + (size_t)i_); \
        for (int j_ = (r)[1]; j_ <= (r)[3]; j_++) ADD(FS_COL, (size_t)j_ * nx_ + (size_t)(r)[0]); \
        if ((r)[0] <= (r)[2] && (r)[1] <= (r)[3])                                 \
            ADD(FS_FIRST, (size_t)(r)[1] * nx_ + (size_t)(r)[0]);                 \
    } while (0)

void geom_face_cell_counts(size_t nx, size_t ny, const int (*r)[4], size_t n, size_t *count[4])
{
    /* A face's rectangle of cells (FS_ALL) as +1/-1 marks at its four
     * corners of an (nx+1) x (ny+1) table, its first row (FS_ROW) as +1/-1
     * at the row's two ends, its first column (FS_COL) likewise; a cell's
     * count is then the sum of the marks at or before it (size_t wraps
     * modulo 2^64 on the way and ends at the count). The guards for empty
     * ranges are FS_EACH's. This is one pass over the faces and one over
     * the cells, where FS_EACH's increments take one step per cell a face
     * covers. */
    size_t nA = (nx + 1) * (ny + 1), nR = (nx + 1) * ny, nC = nx * (ny + 1);
    size_t *marks = xcalloc(nA + nR + nC, sizeof *marks);
    size_t *dA = marks, *dR = marks + nA, *dC = marks + nA + nR;
    size_t *sa = count[FS_ALL], *sr = count[FS_ROW], *sc = count[FS_COL], *sf = count[FS_FIRST];
    for (size_t c = 0; c < nx * ny; c++) sf[c + 1] = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i0 = (size_t)r[k][0], j0 = (size_t)r[k][1];
        size_t i1 = (size_t)r[k][2] + 1, j1 = (size_t)r[k][3] + 1;
        int cols = r[k][0] <= r[k][2], rows = r[k][1] <= r[k][3];
        if (cols) {
            dR[j0 * (nx + 1) + i0]++;
            dR[j0 * (nx + 1) + i1]--;
        }
        if (rows) {
            dC[j0 * nx + i0]++;
            dC[j1 * nx + i0]--;
        }
        if (cols && rows) {
            dA[j0 * (nx + 1) + i0]++;
            dA[j0 * (nx + 1) + i1]--;
            dA[j1 * (nx + 1) + i0]--;
            dA[j1 * (nx + 1) + i1]++;
            sf[j0 * nx + i0 + 1]++;
        }
    }
    for (size_t j = 0; j < ny; j++) {
        size_t ra = 0, rr = 0;   /* the marks of row j so far */
        for (size_t i = 0; i < nx; i++) {
            ra += dA[j * (nx + 1) + i];
            rr += dR[j * (nx + 1) + i];
            sa[j * nx + i + 1] = ra + (j ? sa[(j - 1) * nx + i + 1] : 0);
            sr[j * nx + i + 1] = rr;
            sc[j * nx + i + 1] = dC[j * nx + i] + (j ? sc[(j - 1) * nx + i + 1] : 0);
        }
    }
    free(marks);
}

static int fs_build(const geom_scene *s, face_set *g)
{
    memset(g, 0, sizeof *g);
    g->f = xmalloc(s->nfaces * sizeof *g->f);
    ir_box all = ir_box_empty();
    for (size_t i = 0; i < s->nfaces; i++) {
        const geom_face *f = &s->faces[i];
        if (!f->filled || !f->closed || f->n < 3 || f->group < 0) continue;
        sface *q = &g->f[g->n];
        if (!ir_plane_depth_fn(f->p3, f->p2, f->n, s->view, q->dc)) continue;
        q->f = f;
        for (int k = 0; k < 3; k++) q->adc[k] = fabs(q->dc[k]);
        q->box = f->box;
        q->group = f->group;
        geom_depth_range(q->dc, f->box, &q->dmin, &q->dmax);
        q->size = edge_size(f);
        double sa = f->sarea;   /* ir_poly_area(f->p2, f->n) */
        q->area = fabs(sa);
        q->orient = sa >= 0 ? 1.0 : -1.0;
        q->convex = -1;
        q->strict = -1;
        ir_box_union(&all, f->box);
        g->n++;
    }
    if (g->n == 0 || all.empty) return 0;
    /* about one face per cell, at most 64 x 64 cells */
    geom_grid_plan pl = geom_grid_layout(all, g->n, 1.0, 64);
    g->pl = pl;
    size_t nx = (size_t)g->pl.nx, ny = (size_t)g->pl.ny, ncell = nx * ny;
    g->cell = xmalloc(g->n * sizeof *g->cell);
    for (size_t k = 0; k < g->n; k++) {
        int *r = g->cell[k];
        geom_grid_cells(&g->pl, g->f[k].box, &r[0], &r[1], &r[2], &r[3]);
    }
    /* each list's count per cell, then where each cell's part of the list
     * starts: start[L][c] is the count of the cells before c */
    for (int L = 0; L < 4; L++) {
        g->start[L] = xmalloc((ncell + 1) * sizeof *g->start[L]);
        g->start[L][0] = 0;
    }
    geom_face_cell_counts(nx, ny, (const int(*)[4])g->cell, g->n, g->start);
    size_t *fill = xmalloc(4 * ncell * sizeof *fill);   /* per list and cell: the next free entry */
    for (int L = 0; L < 4; L++) {
        size_t *st = g->start[L];
        for (size_t c = 0; c < ncell; c++) st[c + 1] += st[c];
        g->idx[L] = xmalloc(st[ncell] * sizeof *g->idx[L]);
        memcpy(fill + (size_t)L * ncell, st, ncell * sizeof *fill);
    }
    for (size_t k = 0; k < g->n; k++) {
        const int *r = g->cell[k];
#define FS_FILL(L, c) g->idx[L][fill[(size_t)(L) * ncell + (c)]++] = (unsigned)k
        FS_EACH(g, r, FS_FILL);
#undef FS_FILL
    }
    free(fill);
    return 1;
}

static void fs_free(face_set *g)
{
    free(g->f);
    free(g->cell);
    for (int L = 0; L < 4; L++) {
        free(g->start[L]);
        free(g->idx[L]);
    }
}

/* 1 when p lies inside face f, farther than GEOM_JOIN_EPS_PT from its
 * drawn outline (next to an edge, p is seen on either side of it). */
static int face_holds(const geom_face *f, ir_pt p)
{
    const double e = GEOM_JOIN_EPS_PT;
    if (p.x < f->box.x1 + e || p.x > f->box.x2 - e || p.y < f->box.y1 + e || p.y > f->box.y2 - e)
        return 0;
    int in = 0;
    for (size_t i = 0, j = f->n - 1; i < f->n; j = i++) {
        ir_pt a = f->p2[j], b = f->p2[i];
        double abx = b.x - a.x, aby = b.y - a.y, apx = p.x - a.x, apy = p.y - a.y;
        double l2 = abx * abx + aby * aby, t = l2 > 0 ? (apx * abx + apy * aby) / l2 : 0;
        if (t < 0) t = 0;
        if (t > 1) t = 1;
        double dx = apx - t * abx, dy = apy - t * aby;
        if (dx * dx + dy * dy <= e * e) return 0;
        if ((a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * abx / aby) in = !in;
    }
    return in;
}

/* The filled face painted last whose inside holds p, or NULL. */
static const sface *top_at(const face_set *g, ir_pt p)
{
    int i0, j0, i1, j1;
    geom_grid_cells(&g->pl, ir_box_make(p.x, p.y, p.x, p.y), &i0, &j0, &i1, &j1);
    if (i0 > i1 || j0 > j1) return NULL;
    size_t c = (size_t)j0 * (size_t)g->pl.nx + (size_t)i0;
    for (size_t q = g->start[FS_ALL][c + 1]; q-- > g->start[FS_ALL][c];)
        if (face_holds(g->f[g->idx[FS_ALL][q]].f, p)) return &g->f[g->idx[FS_ALL][q]];
    return NULL;
}

/* Counts a depth-order error; keeps the worst one's reason, blaming e1
 * (what shows though it should be hidden) and e2 (what should hide it). */
static void depth_note(geom_depth_tally *t, double key, int line, size_t e1, size_t e2,
                       const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void depth_note(geom_depth_tally *t, double key, int line, size_t e1, size_t e2,
                       const char *fmt, ...)
{
    t->n++;
    if (!(key > t->worst)) return;
    t->worst = key;
    char buf[CHK_REASON_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    chk_set(&t->why, CHK_NO, line, "%s", buf);
    chk_blame(&t->why, e1);
    chk_blame(&t->why, e2);
}

/* Faces painted over each other. For every two filled faces a and b of one
 * placement, b painted later, that overlap by more than
 * GEOM_FACE_OVERLAP_FRAC of the smaller face and where b lies behind a at
 * the overlap's centroid: the finished picture must not show a face behind
 * a there — looked at in the centroid and half way to each corner of the
 * overlap (a later, nearer face may have covered b again). */

/* Sets F->convex to ir_poly_convex of its outline (the same sums in the
 * same order, so the same result) and F->strict to 1 when, more than
 * that, every corner turns the same way by more than ir_poly_convex's
 * tolerance (so the computed turns have the true signs: no flat corner,
 * no repeated point, no spike) and the outline goes round once: the turns
 * add up to 360 degrees times the number of times the edge directions
 * cross the vertical halfway (x of the edges changes sign twice a round),
 * and going round once, it is a simple convex polygon. */
static void convexity(sface *F)
{
    const ir_pt *p = F->f->p2;
    size_t n = F->f->n;
    F->convex = F->strict = 0;
    if (n < 3) return;
    double scale = 0;
    for (size_t i = 0; i + 1 < n; i++) scale += ir_v_dist(p[i], p[i + 1]);
    scale += ir_v_dist(p[n - 1], p[0]);
    scale /= (double)n;
    const double tol = 1e-6 * scale * scale;
    int sign = 0, strict = 1, changes = 0, xs0 = 0, xs = 0;
    ir_pt a = p[0], b = p[1];
    for (size_t i = 0; i < n; i++) {
        size_t k = i + 2 < n ? i + 2 : i + 2 - n;
        ir_pt c = p[k];
        double cr = ir_v_cross(ir_v_sub(b, a), ir_v_sub(c, b));
        /* edge a b: the sign of b.x - a.x is exact (0 only when equal) */
        int x = b.x > a.x ? 1 : b.x < a.x ? -1 : 0;
        a = b;
        b = c;
        if (x != 0) {
            if (xs0 == 0) xs0 = x;
            else if (x != xs) changes++;
            xs = x;
        }
        if (!isfinite(cr)) strict = 0;
        if (fabs(cr) <= tol) {
            strict = 0;
            continue;
        }
        int sg = cr > 0 ? 1 : -1;
        if (sign == 0) sign = sg;
        else if (sg != sign) return;
    }
    if (xs0 != 0 && xs != xs0) changes++;
    F->convex = sign != 0;
    /* tol > 0 and not NaN: no corner was skipped for a NaN */
    F->strict = F->convex && strict && tol > 0 && changes == 2;
}

/* Whether face F's outline is convex, found on first use. */
static int is_convex(sface *F)
{
    if (F->convex < 0) convexity(F);
    return F->convex;
}

static int is_strict(sface *F)
{
    if (F->strict < 0) convexity(F);
    return F->strict;
}

/* The largest depth_at(A, p) - depth_at(B, p) over the points p[0..n). */
static double gap_max(const sface *A, const sface *B, const ir_pt *p, size_t n)
{
    double v = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double d = depth_at(A, p[i]) - depth_at(B, p[i]);
        if (isnan(d)) return d;   /* no bound */
        if (d > v) v = d;
    }
    return v;
}

/* 1 when face_order's look at the overlap of A and B (b painted later,
 * behind tol at some corner of their boxes' overlap) certainly ends
 * before a note: the depth difference at the centroid of the clipped
 * polygon, as computed, is not above tol. The clip's subject S (a when b
 * is convex, else b when a is; with neither, nothing is clipped) must be
 * strict_convex: then the clipped polygon is S cut by half-planes, whose
 * centroid lies in S (and in the clip polygon C too when C is
 * strict_convex), where the affine difference is at most its largest
 * value at S's (C's) corners. The margin covers rounding: 1e-12 of the
 * terms' size for each evaluation, and for the clip's points and the
 * centroid (whose sums of products of coordinates up to X, over an area
 * of at least GEOM_FACE_OVERLAP_FRAC * small, or there is no look) a
 * displacement of 1e-10 (ns + nc) X^3 / small, many thousand times their
 * rounding. Not finite: no skip. tests/unit/test_lint_face_skip.c runs
 * face_order with and without this on random faces. */

__attribute__((noinline)) static int overlap_not_behind(sface *A, sface *B, double tol, double small)
{
    sface *S = is_convex(B) ? A : is_convex(A) ? B : NULL;
    if (!S || !is_strict(S)) return 0;
    sface *C = S == A ? B : A;
    /* the largest magnitude of the boxes' coordinates (a NaN among them
     * comes from a NaN corner, which gap_max returns: no skip) */
    const double co[8] = {A->box.x1, A->box.x2, A->box.y1, A->box.y2,
                          B->box.x1, B->box.x2, B->box.y1, B->box.y2};
    double X = 0;
    for (int i = 0; i < 8; i++)
        if (fabs(co[i]) > X) X = fabs(co[i]);
    double size = A->adc[0] + B->adc[0] + (A->adc[1] + B->adc[1] + A->adc[2] + B->adc[2]) * 2 * X;
    double grad = fabs(A->dc[1] - B->dc[1]) + fabs(A->dc[2] - B->dc[2]);
    double m = 1e-12 * size + grad * (1e-10 * (double)(A->f->n + B->f->n) * X * X * X / small);
    if (gap_max(A, B, S->f->p2, S->f->n) + m < tol) return 1;
    return is_strict(C) && gap_max(A, B, C->f->p2, C->f->n) + m < tol;
}

/* 1 when convex polygons a and b (either winding) meet in no more than a
 * line: some edge of one has the other entirely on its outer side or on
 * its line (as faces sharing an edge do). */
static int convex_apart(const ir_pt *a, size_t na, double oa, const ir_pt *b, size_t nb, double ob)
{
    for (int pass = 0; pass < 2; pass++) {
        const ir_pt *p = pass ? b : a, *q = pass ? a : b;
        size_t np = pass ? nb : na, nq = pass ? na : nb;
        double o = pass ? ob : oa;   /* ir_poly_area(p, np) >= 0 ? 1 : -1 */
        for (size_t i = 0; i < np; i++) {
            ir_pt e0 = p[i], e1 = p[(i + 1) % np];
            double ex = e1.x - e0.x, ey = e1.y - e0.y;
            double tol = 1e-9 * (ex * ex + ey * ey);
            size_t k = 0;
            for (; k < nq; k++)
                if (o * (ex * (q[k].y - e0.y) - ey * (q[k].x - e0.x)) > tol) break;
            if (k == nq) return 1;
        }
    }
    return 0;
}

/* Faces painted over each other. For every two filled faces a and b of one
 * placement, b painted later, that overlap by more than
 * GEOM_FACE_OVERLAP_FRAC of the smaller face and where b lies behind a at
 * the overlap's centroid: the finished picture must not show a face behind
 * a there — looked at in the centroid and half way to each corner of the
 * overlap (a later, nearer face may have covered b again). */
static void face_order(const face_set *g, int use_skip, geom_depth_tally *t)
{
    ir_pt buf[128];
    for (size_t j = 0; j < g->n; j++) {
        sface *B = &g->f[j];
        const geom_face *b = B->f;
        const int *rb = g->cell[j];
        const unsigned jj = (unsigned)j;
        const ir_box bb = B->box;
        const int bgroup = B->group;
        /* the earlier faces sharing a grid cell with b, in the first cell
         * they share: the first of b's cells, row by row, that holds them.
         * That cell is (max of the first columns, max of the first rows):
         * in b's first cell every face there, in the rest of b's first row
         * those starting in the cell's column, in the rest of b's first
         * column those starting in its row, elsewhere those starting in it
         * (the lists of fs_build). So each pair comes once, in the order of
         * a look through every face of every cell that skips faces seen. */
        for (int y = rb[1]; y <= rb[3]; y++)
            for (int x = rb[0]; x <= rb[2]; x++) {
                size_t c = (size_t)y * (size_t)g->pl.nx + (size_t)x;
                int L = x == rb[0] ? (y == rb[1] ? FS_ALL : FS_ROW) : (y == rb[1] ? FS_COL : FS_FIRST);
                const unsigned *en = g->idx[L] + g->start[L][c], *end = g->idx[L] + g->start[L][c + 1];
                for (; en < end; en++) {
                    unsigned ai = *en;
                    if (ai >= jj) break;
                    sface *A = &g->f[ai];
                    if (A->group != bgroup) continue;
                    /* (the tests before the clip only pass pairs over that
                     * the clip would find nothing behind in) */
                    double tol = GEOM_DEPTH_TOL * (A->size > B->size ? A->size : B->size);
                    /* a nowhere nearer than b by tol over their whole boxes,
                     * which hold the overlap's corners: no corner below finds
                     * b behind a */
                    if (A->dmax - B->dmin < tol) continue;
                    ir_box bx = ir_box_isect(A->box, bb);
                    if (bx.empty) continue;
                    double small = A->area < B->area ? A->area : B->area;
                    /* the boxes' overlap bounds the faces' overlap */
                    if (!(ir_box_area(bx) > GEOM_FACE_OVERLAP_FRAC * small)) continue;
                    const geom_face *a = A->f;
                    /* b behind a anywhere in the boxes' overlap? (the depth
                     * difference is affine: its largest value is at a corner) */
                    ir_pt cs4[4] = {{bx.x1, bx.y1}, {bx.x2, bx.y1}, {bx.x1, bx.y2}, {bx.x2, bx.y2}};
                    int behind = 0;
                    for (int k = 0; k < 4 && !behind; k++)
                        behind = depth_at(A, cs4[k]) - depth_at(B, cs4[k]) > tol;
                    if (!behind) continue;
                    if (use_skip && overlap_not_behind(A, B, tol, small)) continue;
                    size_t k = 0;
                    if (is_convex(B)) {
                        if (is_convex(A) && convex_apart(a->p2, a->n, A->orient, b->p2, b->n, B->orient)) continue;
                        /* orient: ir_poly_area(clip) >= 0 ? 1 : -1, as kept */
                        k = ir_poly_clip_convex_o(a->p2, a->n, b->p2, b->n, B->orient, buf, 128);
                    } else if (is_convex(A)) {
                        k = ir_poly_clip_convex_o(b->p2, b->n, a->p2, a->n, A->orient, buf, 128);
                    }
                    if (k < 3) continue;
                    double ka = ir_poly_area(buf, k);
                    if (!(fabs(ka) > GEOM_FACE_OVERLAP_FRAC * small)) continue;
                    ir_pt cc = ir_poly_centroid_a(buf, k, ka);
                    if (!(depth_at(A, cc) - depth_at(B, cc) > tol)) continue;
                    /* b is painted over a, though behind it: does it still show? */
                    for (size_t r = 0; r <= k; r++) {
                        ir_pt p = r == 0 ? cc : ir_v_lerp(cc, buf[r - 1], 0.5);
                        const sface *T = top_at(g, p);
                        if (!T || T->f->group != a->group) continue;
                        double da = depth_at(A, p), dt = depth_at(T, p);
                        double tl = GEOM_DEPTH_TOL * fmax(A->size, T->size);
                        if (!(da - dt > tl)) continue;
                        depth_note(t, (da - dt) / fmax(tl, 1e-9), T->f->line, T->f->elem, a->elem,
                                   "the face drawn at line %d is painted over the face of line %d, "
                                   "though it lies behind it (depth %.2f vs %.2f): hidden parts show",
                                   T->f->line, a->line, dt, da);
                        break;
                    }
                }
            }
    }
}

/* Solid lines with 3D coordinates (edges, outlines) drawn over a face that
 * lies in front of them, where no later face covers them, for more than
 * GEOM_HIDDEN_LINE_PT of their length: what the solid hides shows through
 * it. Dashed lines are hidden edges drawn as such. */
static void line_order(const geom_scene *s, const face_set *g, geom_depth_tally *t)
{
    for (size_t e = 0; e < s->nfaces; e++) {
        const geom_face *l = &s->faces[e];
        if (l->filled || !l->stroked || l->dashed || l->group < 0 || l->n < 2) continue;
        double shown = 0, dl = 0, dh = 0;
        const geom_face *hid = NULL;
        size_t nseg = l->closed ? l->n : l->n - 1;
        for (size_t k = 0; k < nseg; k++) {
            ir_pt a = l->p2[k], b = l->p2[(k + 1) % l->n];
            ir_pt3 A = l->p3[k], B = l->p3[(k + 1) % l->n];
            double len = ir_v_dist(a, b);
            /* a look every 2pt or so (at most GEOM_MAX_LOOKS a piece,
             * counted in double: a NaN or huge length is no int) */
            double mm = ceil(len / 2.0);
            int m = mm > 0 ? (mm < GEOM_MAX_LOOKS ? (int)mm : GEOM_MAX_LOOKS) : 0;
            for (int q = 0; q < m; q++) {
                double u = (q + 0.5) / m;
                ir_pt p = ir_v_lerp(a, b, u);
                double dp = (A.x + (B.x - A.x) * u) * s->view.x +
                            (A.y + (B.y - A.y) * u) * s->view.y +
                            (A.z + (B.z - A.z) * u) * s->view.z;
                int i0, j0, i1, j1;
                geom_grid_cells(&g->pl, ir_box_make(p.x, p.y, p.x, p.y), &i0, &j0, &i1, &j1);
                if (i0 > i1 || j0 > j1) continue;
                size_t c = (size_t)j0 * (size_t)g->pl.nx + (size_t)i0;
                /* latest face first: a later face over p covers the line */
                for (size_t r = g->start[FS_ALL][c + 1]; r-- > g->start[FS_ALL][c];) {
                    const sface *F = &g->f[g->idx[FS_ALL][r]];
                    if (F->f->elem > l->elem) {
                        if (face_holds(F->f, p)) break;
                        continue;
                    }
                    if (F->f->group != l->group) continue;
                    double df = depth_at(F, p);
                    if (!(df - dp > GEOM_DEPTH_TOL * F->size) || !face_holds(F->f, p)) continue;
                    shown += len / m;
                    hid = F->f;
                    dl = dp;
                    dh = df;
                    break;
                }
            }
        }
        if (!(shown > GEOM_HIDDEN_LINE_PT)) continue;
        depth_note(t, shown, l->line, l->elem, hid->elem,
                   "the line drawn at line %d shows through the face of line %d, which lies in "
                   "front of it (depth %.2f vs %.2f), for %.0fpt: hidden parts show",
                   l->line, hid->line, dl, dh, shown);
    }
}

void geom_depth_order(const geom_scene *s, int use_skip, geom_depth_tally *t)
{
    memset(t, 0, sizeof *t);
    if (!s->has_proj || s->nfaces < 2) return;
    face_set g;
    if (fs_build(s, &g)) {
        face_order(&g, use_skip, t);
        line_order(s, &g, t);
    }
    fs_free(&g);
}

/* Angle arcs that cross a side of their angle and run on past it by more
 * than GEOM_ARC_CROSS_DEG: the arc no longer stops at the lines that bound
 * the angle, it crosses one of them. Returns the count; the worst goes
 * into *why. */
static int arcs_crossing(const geom_scene *s, chk_verdict *why, double *worst)
{
    int n = 0;
    char nm[64];
    for (size_t i = 0; i < s->nmarks; i++) {
        const geom_mark *m = &s->marks[i];
        if (m->kind != MARK_ARC || !m->has_vertex) continue;
        double r[32];
        size_t k = geom_rays_at(s, m->vertex, GEOM_RAY_MIN_PT, r, 32);
        double span = ir_ccw_sweep_deg(m->d1, m->d2);
        double most = 0, crossed = 0;
        for (size_t j = 0; j < k; j++) {
            double in = ir_ccw_sweep_deg(m->d1, r[j]);
            if (in >= span) continue;
            double beyond = fmin(in, span - in);
            if (beyond > most) { most = beyond; crossed = r[j]; }
        }
        if (!(most > GEOM_ARC_CROSS_DEG)) continue;
        n++;
        double key = 0.5 + most / 360.0;
        if (key > *worst) {
            *worst = key;
            chk_set(why, CHK_NO, m->line,
                    "the angle arc at %s crosses a side of its angle and runs %.0f deg past it",
                    geom_point_name(s, m->vertex, nm, sizeof nm), most);
            chk_blame(why, m->elem);
            geom_blame_ray(s, m->vertex, crossed, why);
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

    /* a framed label takes the room of its frame; the texts whose boxes
     * may meet a text's come from an index over the boxes (box_index.h),
     * in the order of a loop over all of them */
    ir_box *tbox = xmalloc((s->ntexts ? s->ntexts : 1) * sizeof *tbox);
    for (size_t i = 0; i < s->ntexts; i++)
        tbox[i] = s->texts[i].framed ? s->texts[i].frame_box : s->texts[i].box;
    ir_box_index tix;
    ir_box_index_build(&tix, tbox, s->ntexts);
    size_t *near = NULL, ncap = 0;
    for (size_t i = 0; i < s->ntexts; i++) {
        const geom_text *a = &s->texts[i];
        ir_box ab = tbox[i];
        size_t nn = geom_ix_query(s, &tix, ab, &near, &ncap);
        for (size_t q = 0; q < nn; q++) {
            size_t j = near[q];
            if (j <= i) continue;
            const geom_text *b = &s->texts[j];
            ir_box bb = tbox[j];
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
                chk_blame(&why, b->elem);
                chk_blame(&why, a->elem);
            }
        }
    }
    /* the segments that draw a visible line: stroked (not only the edge of
     * a fill, nor stroked in the fill's own colour), not a grid */
    unsigned char *draws_line = xmalloc(s->nsegs);
    for (size_t k = 0; k < s->nsegs && s->ntexts; k++) {   /* read only for texts */
        const geom_seg *g = &s->segs[k];
        const geom_attrs *at = &s->attrs[g->elem];
        draws_line[k] = g->visible && g->cls != SEG_GRID && at->stroked && !at->self_fill;
    }
    ir_box_index_free(&tix);
    free(tbox);
    /* the straight axis segments (for on_axis), the dots (an index over
     * them, as points) */
    size_t *axes = NULL, naxes = 0;
    for (size_t k = 0; k < s->nsegs && s->ntexts; k++)
        if (s->segs[k].cls == SEG_AXIS && !s->segs[k].curved) {
            if (!axes) axes = xmalloc(s->nsegs * sizeof *axes);
            axes[naxes++] = k;
        }
    ir_box *dbox = xmalloc((s->ndots ? s->ndots : 1) * sizeof *dbox);
    for (size_t k = 0; k < s->ndots; k++)
        dbox[k] = ir_box_make(s->dots[k].x, s->dots[k].y, s->dots[k].x, s->dots[k].y);
    ir_box_index dix;
    ir_box_index_build(&dix, dbox, s->ntexts ? s->ndots : 0);
    free(dbox);
    for (size_t i = 0; i < s->ntexts; i++) {
        const geom_text *t = &s->texts[i];
        ir_box core = core_box(t);
        if (core.empty || ir_box_w(core) <= 0 || ir_box_h(core) <= 0) continue;
        /* the segments near the core, in the order of the segments: those
         * whose box does not meet the core are passed over below anyway */
        size_t nn = geom_segs_near(s, core, &near, &ncap);
        ir_index_sort(near, nn);
        for (size_t q = 0; q < nn; q++) {
            size_t k = near[q];
            const geom_seg *g = &s->segs[k];
            if (!draws_line[k]) continue;
            /* both ends beyond one side of the core: ir_seg_box_clip below
             * finds no piece inside (it returns 0, or t1 == t0 == 0 or 1;
             * the steps are monotonic), and the tests before it are pure */
            if ((g->a.x < core.x1 && g->b.x < core.x1) || (g->a.x > core.x2 && g->b.x > core.x2) ||
                (g->a.y < core.y1 && g->b.y < core.y1) || (g->a.y > core.y2 && g->b.y > core.y2))
                continue;
            if (t->opaque && g->elem < t->elem) continue;
            /* an axis runs into its own name, set at its end (so does a
             * line drawn along the axis) */
            if (t->axis_label && on_axis(s, g, axes, naxes)) continue;
            /* a dimension line carries its length written on it */
            if (g->cls == SEG_DIM && (t->kind == TXT_LENGTH || t->kind == TXT_VAR)) continue;
            double t0, t1;
            if (!ir_seg_box_clip(g->a, g->b, core, &t0, &t1) || t1 <= t0) continue;
            double inside = (t1 - t0) * g->len;
            if (inside < GEOM_TEXT_CROSS_PT) continue;
            n++;
            double key = inside / fmax(ir_box_w(core), 1e-9);
            if (key > 1) key = 1;
            if (key > worst) {
                worst = key;
                chk_set(&why, CHK_NO, t->line, "a line from line %d runs through text \"%s\"",
                        g->line, t->show);
                chk_blame(&why, t->elem);
                chk_blame(&why, g->elem);
            }
            break;
        }
        nn = geom_ix_query(s, &dix, core, &near, &ncap);
        for (size_t q = 0; q < nn; q++) {
            size_t k = near[q];
            if (t->has_of && ir_v_dist(s->dots[k], t->of) <= GEOM_JOIN_EPS_PT) continue;
            if (!ir_box_contains_pt(core, s->dots[k])) continue;
            n++;
            if (0.5 > worst) {
                worst = 0.5;
                chk_set(&why, CHK_NO, t->line, "a vertex dot at (%.1f,%.1f) lies on text \"%s\"",
                        s->dots[k].x, s->dots[k].y, t->show);
                chk_blame(&why, t->elem);
                geom_blame_point(s, s->dots[k], &why);
            }
            break;
        }
    }
    free(draws_line);
    free(axes);
    free(near);
    ir_box_index_free(&dix);
    geom_depth_tally dt;
    geom_depth_order(s, 1, &dt);
    if (dt.n > 0 && 2 + dt.worst > worst) {
        worst = 2 + dt.worst;
        why = dt.why;
    }
    n += dt.n;
    n += arcs_crossing(s, &why, &worst);
    if (n == 0) {
        chk_set(v, CHK_YES, 0, "no text overlaps another text, a line or a dot; no arc crosses a line; solids are painted in depth order");
        return;
    }
    *v = why;
    if (n > 1) {
        size_t l = strlen(v->reason);
        snprintf(v->reason + l, sizeof v->reason - l, " (%d overlaps in all)", n);
    }
}
