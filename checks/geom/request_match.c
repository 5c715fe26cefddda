/* request_match.c — the drawing against what its request states
 * (request.h): the rules core-math and shape-closed add when irlint is
 * given the request. Each rule judges only what the parser read and what
 * the drawing shows unmistakably; when either is missing, it says nothing.
 *
 * core-math (geom_request_math):
 *   - unit cubes: the number of unit cubes drawn (faces with 3D
 *     coordinates, grouped into cubes in drawing order) is the number
 *     asked for; a single requested block of unit cubes has the stated
 *     dimensions; each cube drawn with three faces shows the three faces
 *     around one corner, which the viewer can see together (not a face
 *     from the far side);
 *   - one rectangular prism: its 3D extent, in its own coordinates, is
 *     in the stated proportions (within GEOM_LENGTH_TOL);
 *   - triangles: a right, isosceles or equilateral triangle, stated
 *     angles (GEOM_ANGLE_TOL_DEG) and stated sides (in proportion, within
 *     GEOM_LENGTH_TOL) are found among the drawn triangles;
 *   - rectangles: each "A by B" is the proportion of a drawn rectangle
 *     (unless the request divides a rectangle into parts);
 *   - a requested closed shape is seen: not mostly outside its clip.
 * shape-closed (geom_request_closed):
 *   - a requested closed shape cut by a clip region keeps at least
 *     GEOM_CLOSED_VISIBLE of its outline inside, so it still reads as
 *     closed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "ir/xalloc.h"

/* --- unit cubes --------------------------------------------------------- */

/* A face that is a square with sides along two of the 3D axes. */
typedef struct {
    size_t face;     /* index into s->faces */
    int axis;        /* the axis it is perpendicular to */
    double plane;    /* its coordinate on that axis */
    double lo[3];    /* its lower corner */
    double side;
} sq_face;

static int square_face(const geom_face *f, sq_face *q)
{
    size_t n = f->n;
    if (!f->closed && n == 5) {
        /* an open polyline that returns to its start */
        ir_pt3 a = f->p3[0], b = f->p3[4];
        if (fabs(a.x - b.x) + fabs(a.y - b.y) + fabs(a.z - b.z) > 1e-6) return 0;
    } else if (!f->closed) {
        return 0;
    }
    if (n == 5) n = 4;
    if (n != 4) return 0;
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) lo[k] = 1e300, hi[k] = -1e300;
    for (size_t i = 0; i < 4; i++) {
        double c[3] = {f->p3[i].x, f->p3[i].y, f->p3[i].z};
        for (int k = 0; k < 3; k++) {
            if (!isfinite(c[k])) return 0;
            lo[k] = fmin(lo[k], c[k]);
            hi[k] = fmax(hi[k], c[k]);
        }
    }
    double ext[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    double big = fmax(ext[0], fmax(ext[1], ext[2]));
    if (!(big > 0)) return 0;
    double eps = 1e-6 * (1 + big);
    int axis = -1;
    for (int k = 0; k < 3; k++)
        if (ext[k] <= eps) {
            if (axis >= 0) return 0;
            axis = k;
        }
    if (axis < 0) return 0;
    int b = (axis + 1) % 3, c = (axis + 2) % 3;
    if (fabs(ext[b] - ext[c]) > GEOM_SAME_SIZE * big) return 0;
    /* every point a corner of that square */
    for (size_t i = 0; i < 4; i++) {
        double p[3] = {f->p3[i].x, f->p3[i].y, f->p3[i].z};
        for (int k = 0; k < 3; k++)
            if (k != axis && fabs(p[k] - lo[k]) > eps && fabs(p[k] - hi[k]) > eps) return 0;
    }
    q->axis = axis;
    q->plane = lo[axis];
    memcpy(q->lo, lo, sizeof lo);
    q->side = big;
    return 1;
}

typedef struct {
    int group;
    long c[3];
} cell;

static int cell_eq(const cell *a, const cell *b)
{
    return a->group == b->group && a->c[0] == b->c[0] && a->c[1] == b->c[1] && a->c[2] == b->c[2];
}

/* What the faces of unit cubes show. */
typedef struct {
    long count;        /* distinct cubes drawn; 0 when none is drawn */
    long ext[3];       /* extent of the cubes, in cubes, sorted descending */
    size_t first_face, last_face;   /* faces of the first and last cube counted */
    /* a cube whose three faces no viewer sees together */
    int bad;
    size_t bad_face[3];
    int bad_line;
    char bad_why[120];
} cube_view;

static int rounds(double v, long *out)
{
    double r = round(v);
    if (fabs(v - r) > 0.02 || fabs(r) > 1e6) return 0;
    *out = (long)r;
    return 1;
}

static int cmp_asc_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

static int cmp_cell(const void *a, const void *b)
{
    const cell *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    for (int k = 0; k < 3; k++)
        if (x->c[k] != y->c[k]) return x->c[k] < y->c[k] ? -1 : 1;
    return 0;
}

typedef struct {
    cell c;
    size_t face;   /* index into the squares, in drawing order */
} cube_at;

/* by cell, then by face: the first of equal cells is the earliest drawn */
static int cmp_cube_at(const void *a, const void *b)
{
    const cube_at *x = a, *y = b;
    int k = cmp_cell(&x->c, &y->c);
    if (k) return k;
    return x->face < y->face ? -1 : x->face > y->face ? 1 : 0;
}

static int cmp_desc_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static void view_cubes(const geom_scene *s, cube_view *cv)
{
    memset(cv, 0, sizeof *cv);
    if (!s->nfaces) return;
    sq_face *q = xcalloc(s->nfaces, sizeof *q);
    size_t nq = 0;
    for (size_t i = 0; i < s->nfaces; i++)
        if (square_face(&s->faces[i], &q[nq])) q[nq++].face = i;
    if (!nq) { free(q); return; }
    /* the unit: the side most squares have (within 1% of it), found in the
     * sorted sides with a sliding window */
    double unit = 0;
    {
        double *sd = xcalloc(nq, sizeof *sd);
        for (size_t i = 0; i < nq; i++) sd[i] = q[i].side;
        qsort(sd, nq, sizeof *sd, cmp_asc_double);
        size_t best = 0, lo = 0, hi = 0;
        for (size_t i = 0; i < nq; i++) {
            while (sd[i] - sd[lo] > GEOM_SAME_SIZE * sd[i]) lo++;
            if (hi < i) hi = i;
            while (hi + 1 < nq && sd[hi + 1] - sd[i] <= GEOM_SAME_SIZE * sd[i]) hi++;
            if (hi - lo + 1 > best) { best = hi - lo + 1; unit = sd[i]; }
        }
        free(sd);
    }
    double org[3] = {1e300, 1e300, 1e300};
    for (size_t i = 0; i < nq; i++)
        for (int k = 0; k < 3; k++) org[k] = fmin(org[k], q[i].lo[k]);
    cell *cells = xcalloc(nq + 1, sizeof *cells);
    size_t *cell_face = xcalloc(nq + 1, sizeof *cell_face);
    size_t ncells = 0;
    /* faces drawn alone (a drawing that draws all the fronts, then all the
     * tops): each bounds one of two cells */
    struct amb_face { cell c[2]; size_t face; int done; } *amb = xcalloc(nq + 1, sizeof *amb);
    size_t namb = 0;
    /* runs of faces in drawing order that share a cell: one cube each */
    cell cand[2];
    int ncand = 0, run_len = 0, run_axes = 0;
    size_t run_faces[3];
    int run_sign[3];
    long ext_lo[3] = {0, 0, 0}, ext_hi[3] = {0, 0, 0};
    ir_pt3 vw = s->view;
    double vn = sqrt(vw.x * vw.x + vw.y * vw.y + vw.z * vw.z);
    double vv[3] = {vw.x, vw.y, vw.z};
    for (size_t i = 0; i <= nq; i++) {
        cell fc[2];
        int ok = 0;
        if (i < nq && fabs(q[i].side - unit) <= GEOM_SAME_SIZE * unit) {
            long l[3];
            ok = 1;
            for (int k = 0; k < 3; k++)
                if (!rounds((q[i].lo[k] - org[k]) / unit, &l[k])) ok = 0;
            if (ok) {
                int g = s->faces[q[i].face].group;
                for (int m = 0; m < 2; m++) {
                    fc[m].group = g;
                    memcpy(fc[m].c, l, sizeof l);
                    fc[m].c[q[i].axis] -= m;   /* the cell on either side */
                }
            }
        }
        /* does face i continue the run? */
        int keep = -1;
        if (ok && ncand)
            for (int a = 0; a < ncand && keep < 0; a++)
                for (int m = 0; m < 2; m++)
                    if (cell_eq(&cand[a], &fc[m])) { keep = a; break; }
        if (keep >= 0) {
            cand[0] = cand[keep];
            ncand = 1;
        } else if (ncand || i == nq) {
            /* the run ends: count its cube */
            if (ncand == 2) {
                /* one face alone: its cube is either cell, settled below */
                amb[namb].c[0] = cand[0];
                amb[namb].c[1] = cand[1];
                amb[namb].face = run_faces[0];
                namb++;
            } else if (ncand == 1) {
                /* (a cube drawn twice is counted once: duplicates go below) */
                cell_face[ncells] = run_faces[0];
                cells[ncells++] = cand[0];
            }
            if (ncand) {
                /* three faces on three axes: the corner they share must be
                 * one a viewer sees all three faces around */
                if (ncand == 1 && run_len == 3 && run_axes == 7 && !cv->bad && s->has_proj &&
                    vn > 0) {
                    int fits[2] = {1, 1};
                    for (int m = 0; m < 3; m++) {
                        int ax = q[run_faces[m]].axis;
                        double comp = vv[ax] / vn * run_sign[m];
                        if (comp < -GEOM_EDGE_ON) fits[0] = 0;
                        if (-comp < -GEOM_EDGE_ON) fits[1] = 0;
                    }
                    if (!fits[0] && !fits[1]) {
                        cv->bad = 1;
                        for (int m = 0; m < 3; m++) cv->bad_face[m] = q[run_faces[m]].face;
                        cv->bad_line = s->faces[q[run_faces[0]].face].line;
                        static const char axn[] = "xyz";
                        size_t k = 0;
                        for (int m = 0; m < 3; m++) {
                            int w = snprintf(cv->bad_why + k, sizeof cv->bad_why - k, "%s%c%c",
                                             m ? ", " : "", run_sign[m] > 0 ? '+' : '-',
                                             axn[q[run_faces[m]].axis]);
                            if (w > 0 && (size_t)w < sizeof cv->bad_why - k) k += (size_t)w;
                        }
                    }
                }
            }
            ncand = 0;
            run_len = 0;
            run_axes = 0;
            if (ok) {
                cand[0] = fc[0];
                cand[1] = fc[1];
                ncand = 2;
            }
        } else if (ok) {
            cand[0] = fc[0];
            cand[1] = fc[1];
            ncand = 2;
        }
        if (ok && i < nq) {
            if (run_len < 3) {
                run_faces[run_len] = i;
                run_sign[run_len] = 0;
            }
            run_len++;
            run_axes |= 1 << q[i].axis;
        }
        /* the faces' outward sides, once the run's cube is known */
        if (ncand == 1)
            for (int m = 0; m < run_len && m < 3; m++) {
                const sq_face *f = &q[run_faces[m]];
                long pl;
                if (rounds((f->plane - org[f->axis]) / unit, &pl))
                    run_sign[m] = pl == cand[0].c[f->axis] ? -1 : 1;
            }
    }
    /* the faces drawn alone: those bounding a cube already counted belong
     * to it; for the rest, the fewest cubes that account for them (the cell
     * most of them bound first) */
    {
        /* the cubes of several faces, each once (the earliest-drawn face
         * names it), sorted for the look-ups below */
        cube_at *ca = xcalloc(ncells + 1, sizeof *ca);
        for (size_t c = 0; c < ncells; c++) { ca[c].c = cells[c]; ca[c].face = cell_face[c]; }
        qsort(ca, ncells, sizeof *ca, cmp_cube_at);
        size_t nu = 0;
        for (size_t c = 0; c < ncells; c++)
            if (!nu || cmp_cell(&ca[nu - 1].c, &ca[c].c)) ca[nu++] = ca[c];
        for (size_t c = 0; c < nu; c++) { cells[c] = ca[c].c; cell_face[c] = ca[c].face; }
        ncells = nu;
        free(ca);
    }
    for (size_t a = 0; a < namb; a++)
        amb[a].done = bsearch(&amb[a].c[0], cells, ncells, sizeof *cells, cmp_cell) ||
                      bsearch(&amb[a].c[1], cells, ncells, sizeof *cells, cmp_cell);
    /* past this many lone faces the count is not worth its time: unknown */
    if (namb > 4096) {
        free(amb);
        free(q);
        free(cells);
        free(cell_face);
        return;
    }
    {
        /* the distinct cells the remaining faces bound, with how many */
        size_t nd = 0;
        cell *dc = xcalloc(2 * namb + 1, sizeof *dc);
        for (size_t a = 0; a < namb; a++)
            if (!amb[a].done) { dc[nd++] = amb[a].c[0]; dc[nd++] = amb[a].c[1]; }
        qsort(dc, nd, sizeof *dc, cmp_cell);
        size_t nu = 0;
        for (size_t i = 0; i < nd; i++)
            if (!nu || cmp_cell(&dc[nu - 1], &dc[i])) dc[nu++] = dc[i];
        size_t *cnt = xcalloc(nu + 1, sizeof *cnt);
        size_t (*at)[2] = xcalloc(namb + 1, sizeof *at);
        for (size_t a = 0; a < namb; a++) {
            if (amb[a].done) continue;
            for (int m = 0; m < 2; m++) {
                cell *f = bsearch(&amb[a].c[m], dc, nu, sizeof *dc, cmp_cell);
                at[a][m] = (size_t)(f - dc);
                cnt[at[a][m]]++;
            }
        }
        for (;;) {
            size_t bi = 0, bn = 0;
            for (size_t i = 0; i < nu; i++)
                if (cnt[i] > bn) { bn = cnt[i]; bi = i; }
            if (!bn) break;
            size_t face = 0;
            int first = 1;
            for (size_t a = 0; a < namb; a++) {
                if (amb[a].done || (at[a][0] != bi && at[a][1] != bi)) continue;
                if (first) { face = amb[a].face; first = 0; }
                amb[a].done = 1;
                cnt[at[a][0]]--;
                if (at[a][1] != at[a][0]) cnt[at[a][1]]--;
            }
            cell_face[ncells] = face;
            cells[ncells++] = dc[bi];
        }
        free(dc);
        free(cnt);
        free(at);
    }
    for (size_t c = 0; c < ncells; c++)
        for (int k = 0; k < 3; k++) {
            if (!c || cells[c].c[k] < ext_lo[k]) ext_lo[k] = cells[c].c[k];
            if (!c || cells[c].c[k] > ext_hi[k]) ext_hi[k] = cells[c].c[k];
        }
    free(amb);
    cv->count = (long)ncells;
    if (ncells) {
        /* the cubes drawn first and last */
        size_t lo = cell_face[0], hi = cell_face[0];
        for (size_t c = 1; c < ncells; c++) {
            if (cell_face[c] < lo) lo = cell_face[c];
            if (cell_face[c] > hi) hi = cell_face[c];
        }
        cv->first_face = s->faces[q[lo].face].elem;
        cv->last_face = s->faces[q[hi].face].elem;
        for (int k = 0; k < 3; k++) cv->ext[k] = ext_hi[k] - ext_lo[k] + 1;
        qsort(cv->ext, 3, sizeof cv->ext[0], cmp_desc_long);
    }
    if (cv->bad)
        for (int m = 0; m < 3; m++) cv->bad_face[m] = s->faces[cv->bad_face[m]].elem;
    free(q);
    free(cells);
    free(cell_face);
}

/* --- boxes: three faces around one corner ------------------------------ */

/* A face that is a rectangle with sides along two of the 3D axes. */
typedef struct {
    int axis;         /* the axis it is perpendicular to */
    double lo[3], hi[3];
} rect_face;

static int rectangle_face(const geom_face *f, rect_face *q)
{
    size_t n = f->n;
    if (n == 5) {
        /* a polyline that returns to its start */
        ir_pt3 a = f->p3[0], b = f->p3[4];
        if (fabs(a.x - b.x) + fabs(a.y - b.y) + fabs(a.z - b.z) > 1e-6) return 0;
        n = 4;
    } else if (!f->closed) {
        return 0;
    }
    if (n != 4) return 0;
    for (int k = 0; k < 3; k++) q->lo[k] = 1e300, q->hi[k] = -1e300;
    for (size_t i = 0; i < 4; i++) {
        double c[3] = {f->p3[i].x, f->p3[i].y, f->p3[i].z};
        for (int k = 0; k < 3; k++) {
            if (!isfinite(c[k])) return 0;
            q->lo[k] = fmin(q->lo[k], c[k]);
            q->hi[k] = fmax(q->hi[k], c[k]);
        }
    }
    double big = 0;
    for (int k = 0; k < 3; k++) big = fmax(big, q->hi[k] - q->lo[k]);
    if (!(big > 0)) return 0;
    double eps = 1e-6 * (1 + big);
    q->axis = -1;
    for (int k = 0; k < 3; k++)
        if (q->hi[k] - q->lo[k] <= eps) {
            if (q->axis >= 0) return 0;
            q->axis = k;
        }
    if (q->axis < 0) return 0;
    /* every point a corner of that rectangle */
    for (size_t i = 0; i < 4; i++) {
        double p[3] = {f->p3[i].x, f->p3[i].y, f->p3[i].z};
        for (int k = 0; k < 3; k++)
            if (k != q->axis && fabs(p[k] - q->lo[k]) > eps && fabs(p[k] - q->hi[k]) > eps)
                return 0;
    }
    return 1;
}

/* The side most square faces share (within GEOM_SAME_SIZE), as view_cubes finds the
 * unit; 0 when no face is a square. */
static double unit_side(const geom_scene *s)
{
    double *sd = xcalloc(s->nfaces + 1, sizeof *sd);
    size_t n = 0;
    for (size_t i = 0; i < s->nfaces; i++) {
        sq_face f;
        if (square_face(&s->faces[i], &f)) sd[n++] = f.side;
    }
    qsort(sd, n, sizeof *sd, cmp_asc_double);
    double unit = 0;
    size_t best = 0, lo = 0;
    for (size_t i = 0; i < n; i++) {
        while (sd[i] - sd[lo] > GEOM_SAME_SIZE * sd[i]) lo++;
        if (i - lo + 1 > best) { best = i - lo + 1; unit = sd[i]; }
    }
    free(sd);
    return unit;
}

/* Three faces drawn one after another, on the three axes, that meet at one
 * corner of a box (each has the corner, each pair shares an edge) are the
 * three faces a drawing of a box shows. Each face's outward side is away
 * from the box, which lies where the other two extend; a parallel
 * projection shows all three only when the direction it looks along has
 * no component against any of them (the cube rule of view_cubes, for any
 * box). Returns 1 and fills *bad (faces' elements), *line and why when
 * some box's faces cannot be seen together. */
int geom_box_faces_unseen(const geom_scene *s, size_t bad[3], int *line, char *why, size_t nwhy)
{
    if (!s->has_proj || s->nfaces < 3) return 0;
    ir_pt3 vw = s->view;
    double vn = sqrt(vw.x * vw.x + vw.y * vw.y + vw.z * vw.z);
    if (!(vn > 0)) return 0;
    double vv[3] = {vw.x / vn, vw.y / vn, vw.z / vn};
    rect_face q[3];
    size_t fi[3];
    int nq = 0;
    double unit = -1;
    for (size_t i = 0; i < s->nfaces; i++) {
        rect_face r;
        if (!rectangle_face(&s->faces[i], &r) || s->faces[i].group < 0) { nq = 0; continue; }
        if (nq == 3) {
            q[0] = q[1]; q[1] = q[2]; fi[0] = fi[1]; fi[1] = fi[2];
            nq = 2;
        }
        q[nq] = r;
        fi[nq++] = i;
        if (nq < 3) continue;
        const geom_face *f0 = &s->faces[fi[0]];
        if (s->faces[fi[1]].group != f0->group || s->faces[fi[2]].group != f0->group) continue;
        if ((1 << q[0].axis | 1 << q[1].axis | 1 << q[2].axis) != 7) continue;
        /* the shared corner: each face's plane on its axis */
        double c[3], big = 0;
        for (int m = 0; m < 3; m++) c[q[m].axis] = q[m].lo[q[m].axis];
        for (int m = 0; m < 3; m++)
            for (int k = 0; k < 3; k++) big = fmax(big, q[m].hi[k] - q[m].lo[k]);
        double eps = 1e-6 * (1 + big);
        int ok = 1, sign[3];
        for (int m = 0; m < 3 && ok; m++) {
            int ax = q[m].axis;
            for (int k = 0; k < 3; k++) {
                if (k == ax) continue;
                /* the corner is a corner of face m */
                if (fabs(c[k] - q[m].lo[k]) > eps && fabs(c[k] - q[m].hi[k]) > eps) ok = 0;
            }
            /* the box lies along axis ax where the other two faces extend */
            int dir = 0;
            for (int o = 0; o < 3; o++) {
                if (o == m) continue;
                int d = fabs(q[o].lo[ax] - c[ax]) <= eps && q[o].hi[ax] - c[ax] > eps ? 1
                        : fabs(q[o].hi[ax] - c[ax]) <= eps && c[ax] - q[o].lo[ax] > eps ? -1
                                                                                       : 0;
                if (!d || (dir && d != dir)) ok = 0;
                dir = d;
            }
            sign[m] = -dir;   /* outward */
        }
        /* one box: the faces agree on its extent along each axis */
        for (int k = 0; k < 3 && ok; k++) {
            double e = -1;
            for (int m = 0; m < 3; m++) {
                if (q[m].axis == k) continue;
                double em = q[m].hi[k] - q[m].lo[k];
                if (e >= 0 && fabs(em - e) > eps) ok = 0;
                e = em;
            }
        }
        /* a cube's faces are the unit-cube rule's (view_cubes), which
         * tells a face shared by two cubes from one cube's own */
        {
            double e0 = -1;
            int cube = 1;
            for (int m = 0; m < 3; m++)
                for (int k = 0; k < 3; k++) {
                    if (k == q[m].axis) continue;
                    double em = q[m].hi[k] - q[m].lo[k];
                    if (e0 >= 0 && fabs(em - e0) > eps) cube = 0;
                    e0 = em;
                }
            if (cube) {
                /* the side of the unit cubes, when cubes are drawn */
                if (unit < 0) unit = unit_side(s);
                if (fabs(e0 - unit) <= GEOM_SAME_SIZE * unit) ok = 0;
            }
        }
        /* drawn with a face opposite one of the three, the box is drawn
         * whole (a wireframe, or painted back to front): the three faces
         * are not what it shows */
        for (int m = 0; m < 3 && ok; m++) {
            int ax = q[m].axis;
            int o1 = (m + 1) % 3;
            double opp = c[ax] - sign[m] * (q[o1].hi[ax] - q[o1].lo[ax]);
            for (size_t j = 0; j < s->nfaces && ok; j++) {
                rect_face o;
                if (s->faces[j].group != f0->group || !rectangle_face(&s->faces[j], &o)) continue;
                if (o.axis != ax || fabs(o.lo[ax] - opp) > eps) continue;
                int same = 1;
                for (int k = 0; k < 3; k++)
                    if (k != ax && (fabs(o.lo[k] - q[m].lo[k]) > eps || fabs(o.hi[k] - q[m].hi[k]) > eps))
                        same = 0;
                if (same) ok = 0;
            }
        }
        if (!ok) continue;
        int fits[2] = {1, 1};
        for (int m = 0; m < 3; m++) {
            double comp = vv[q[m].axis] * sign[m];
            if (comp < -GEOM_EDGE_ON) fits[0] = 0;
            if (-comp < -GEOM_EDGE_ON) fits[1] = 0;
        }
        if (fits[0] || fits[1]) continue;
        static const char axn[] = "xyz";
        size_t k = 0;
        why[0] = 0;
        for (int m = 0; m < 3; m++) {
            bad[m] = s->faces[fi[m]].elem;
            int w = snprintf(why + k, nwhy - k, "%s%c%c", m ? ", " : "", sign[m] > 0 ? '+' : '-',
                             axn[q[m].axis]);
            if (w > 0 && (size_t)w < nwhy - k) k += (size_t)w;
        }
        *line = f0->line;
        return 1;
    }
    return 0;
}

/* --- solids: the extent of everything drawn with 3D coordinates ---------- */
static int solid_extent(const geom_scene *s, double ext[3])
{
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    int any = 0;
    for (size_t i = 0; i < s->nfaces; i++) {
        const geom_face *f = &s->faces[i];
        for (size_t j = 0; j < f->n; j++) {
            double c[3] = {f->p3[j].x, f->p3[j].y, f->p3[j].z};
            for (int k = 0; k < 3; k++) {
                if (!isfinite(c[k])) return 0;
                lo[k] = fmin(lo[k], c[k]);
                hi[k] = fmax(hi[k], c[k]);
            }
            any = 1;
        }
    }
    if (!any) return 0;
    for (int k = 0; k < 3; k++) ext[k] = hi[k] - lo[k];
    return 1;
}

static int cmp_desc_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Largest ratio between the proportions of a (n numbers) and b, matched
 * largest to largest; 0 when a number is not positive. */
static double proportion_misfit(const double *a, const double *b, int n)
{
    double x[3], y[3];
    memcpy(x, a, (size_t)n * sizeof *x);
    memcpy(y, b, (size_t)n * sizeof *y);
    qsort(x, (size_t)n, sizeof *x, cmp_desc_double);
    qsort(y, (size_t)n, sizeof *y, cmp_desc_double);
    double lo = 1e300, hi = 0;
    for (int k = 0; k < n; k++) {
        if (!(x[k] > 0) || !(y[k] > 0)) return 0;
        double r = x[k] / y[k];
        lo = fmin(lo, r);
        hi = fmax(hi, r);
    }
    return hi / lo;
}

/* --- triangles and rectangles drawn ------------------------------------- */
#define MAXC 48

typedef struct {
    ir_pt p[3];
    double side[3];   /* side[k]: opposite p[k] */
    double ang[3];    /* angle at p[k], deg */
} tri;

/* Is the straight line from a to b drawn (covered by visible figure
 * lines running along it)? */
static int drawn_between(const geom_scene *s, ir_pt a, ir_pt b, size_t **buf, size_t *cap)
{
    double len = ir_v_dist(a, b);
    if (len < 4 * GEOM_JOIN_EPS_PT) return 0;
    double dir = ir_v_dir_deg(ir_v_sub(b, a));
    double tol = 2 * GEOM_JOIN_EPS_PT;
    for (int k = 1; k <= 9; k++) {
        ir_pt p = ir_v_lerp(a, b, k / 10.0);
        size_t nn = geom_segs_near(s, ir_box_inset(ir_box_make(p.x, p.y, p.x, p.y), tol), buf, cap);
        int on = 0;
        for (size_t q = 0; q < nn && !on; q++) {
            const geom_seg *g = &s->segs[(*buf)[q]];
            if (g->cls != SEG_FIGURE || !g->visible || g->curved) continue;
            if (ir_line_diff_deg(ir_v_dir_deg(ir_v_sub(g->b, g->a)), dir) > GEOM_ALONG_DEG) continue;
            on = ir_pt_seg_dist(p, g->a, g->b, NULL) <= tol;
        }
        if (!on) return 0;
    }
    return 1;
}

static size_t find_triangles(const geom_scene *s, tri *out, size_t max)
{
    ir_pt c[MAXC];
    size_t nc = geom_corners(s, s->figure, c, MAXC);
    if (nc < 3) return 0;
    unsigned char e[MAXC][MAXC];
    memset(e, 0, sizeof e);
    size_t *buf = NULL, cap = 0;
    for (size_t i = 0; i < nc; i++)
        for (size_t j = i + 1; j < nc; j++) e[i][j] = e[j][i] = (unsigned char)drawn_between(s, c[i], c[j], &buf, &cap);
    free(buf);
    size_t n = 0;
    for (size_t i = 0; i < nc; i++)
        for (size_t j = i + 1; j < nc; j++) {
            if (!e[i][j]) continue;
            for (size_t k = j + 1; k < nc && n < max; k++) {
                if (!e[i][k] || !e[j][k]) continue;
                tri t;
                t.p[0] = c[i];
                t.p[1] = c[j];
                t.p[2] = c[k];
                int ok = 1;
                for (int m = 0; m < 3; m++) {
                    ir_pt a = t.p[m], b = t.p[(m + 1) % 3], d = t.p[(m + 2) % 3];
                    t.side[m] = ir_v_dist(b, d);
                    t.ang[m] = ir_v_angle_deg(ir_v_sub(b, a), ir_v_sub(d, a));
                    if (!(t.ang[m] > GEOM_CORNER_MIN_DEG)) ok = 0;
                }
                if (ok) out[n++] = t;
            }
        }
    return n;
}

/* The figure lines along a triangle's sides. */
static void blame_tri(const geom_scene *s, const tri *t, chk_verdict *v)
{
    for (int m = 0; m < 3; m++) {
        ir_pt a = t->p[m], b = t->p[(m + 1) % 3];
        ir_pt mid = ir_v_lerp(a, b, 0.5);
        for (size_t i = 0; i < s->nsegs; i++) {
            const geom_seg *g = &s->segs[i];
            if (g->cls != SEG_FIGURE || !g->visible) continue;
            if (ir_pt_seg_dist(mid, g->a, g->b, NULL) <= 2 * GEOM_JOIN_EPS_PT) chk_blame(v, g->elem);
        }
    }
}

typedef struct {
    double w, h;      /* sides, w >= h */
    size_t elem;
    int line;
} rect;

static size_t find_rects(const geom_scene *s, rect *out, size_t max)
{
    const ir_diagram *d = s->d;
    size_t n = 0;
    for (size_t i = 0; i < d->nelems && n < max; i++) {
        const ir_elem *e = &d->elems[i];
        const geom_attrs *a = &s->attrs[i];
        if (a->role != ROLE_NONE || s->frame[i] || !(a->stroked || a->filled)) continue;
        double w = 0, h = 0;
        if (e->kind == IR_RECT && e->npts >= 2) {
            w = fabs(e->pts[1].x - e->pts[0].x);
            h = fabs(e->pts[1].y - e->pts[0].y);
        } else if (e->kind == IR_POLY && e->npts >= 4) {
            /* four corners, right angles: drop repeated and collinear points */
            ir_pt p[8];
            size_t m = 0;
            size_t np = e->npts;
            if (np > 1 && ir_v_dist(e->pts[0], e->pts[np - 1]) <= GEOM_JOIN_EPS_PT) np--;
            else if (!e->closed) continue;
            if (np > 16) continue;
            for (size_t k = 0; k < np; k++) {
                ir_pt prev = e->pts[(k + np - 1) % np], cur = e->pts[k], next = e->pts[(k + 1) % np];
                if (ir_v_dist(prev, cur) <= GEOM_JOIN_EPS_PT) continue;
                double turn = ir_v_angle_deg(ir_v_sub(prev, cur), ir_v_sub(next, cur));
                if (turn > 177) continue;
                if (m >= 8) { m = 9; break; }
                p[m++] = cur;
            }
            if (m != 4) continue;
            int right = 1;
            for (int k = 0; k < 4; k++) {
                double ang = ir_v_angle_deg(ir_v_sub(p[(k + 3) % 4], p[k]), ir_v_sub(p[(k + 1) % 4], p[k]));
                if (fabs(ang - 90) > GEOM_RIGHT_TOL_DEG) right = 0;
            }
            if (!right) continue;
            w = ir_v_dist(p[0], p[1]);
            h = ir_v_dist(p[1], p[2]);
        } else {
            continue;
        }
        if (!(w > 0 && h > 0)) continue;
        rect r = {fmax(w, h), fmin(w, h), i, e->line};
        out[n++] = r;
    }
    return n;
}

/* --- outlines a clip region cuts ----------------------------------------- */
static int in_clip(const geom_clip *c, ir_pt p)
{
    if (!ir_box_contains_pt(c->box, p)) return 0;
    return c->pts ? ir_pt_in_poly(p, c->pts, c->n) : 1;
}

/* The fraction of element i's outline (a closed one) inside its clip; 1
 * when it is not clipped or is no closed outline. *len: its length. */
static double visible_frac(const geom_scene *s, size_t i, double *len)
{
    const ir_elem *e = &s->d->elems[i];
    *len = 0;
    if (s->clip_of[i] < 0) return 1;
    const geom_clip *c = &s->clips[s->clip_of[i]];
    const ir_pt *p;
    size_t n;
    int closed;
    if (e->kind == IR_POLY) {
        p = e->pts;
        n = e->npts;
        closed = e->closed;
        if (!closed && n > 3 && ir_v_dist(p[0], p[n - 1]) <= 1.5 * GEOM_JOIN_EPS_PT) closed = 1;
    } else if ((e->kind == IR_RECT || e->kind == IR_ELLIPSE) && s->flat[i]) {
        p = s->flat[i];
        n = s->nflat[i];
        closed = 1;
    } else {
        return 1;
    }
    if (!closed || n < 3) return 1;
    double in = 0, all = 0;
    for (size_t k = 0; k < n; k++) {
        ir_pt a = p[k], b = p[(k + 1) % n];
        double l = ir_v_dist(a, b);
        if (!(l > 0)) continue;
        int steps = (int)fmin(200, ceil(l / 2));
        for (int t = 0; t < steps; t++) {
            ir_pt q = ir_v_lerp(a, b, (t + 0.5) / steps);
            if (in_clip(c, q)) in += l / steps;
        }
        all += l;
    }
    *len = all;
    return all > 0 ? in / all : 1;
}

/* The closed outline the request's shape is drawn as that its clip shows
 * least of: its element (or (size_t)-1) and the fraction shown. */
static size_t worst_cut(const geom_scene *s, double *frac)
{
    const geom_request *r = s->req;
    size_t worst = (size_t)-1;
    *frac = 1;
    if (!(r->kinds & (RQ_TRIANGLE | RQ_RECTANGLE | RQ_SQUARE | RQ_CIRCLE | RQ_POLYGON)) ||
        (r->kinds & (RQ_PRISM | RQ_CUBE | RQ_CYLINDER | RQ_CONE | RQ_PYRAMID | RQ_SPHERE)))
        return worst;
    /* outlines as large as the figure's largest closed outline, or half */
    double longest = 0;
    for (size_t i = 0; i < s->d->nelems; i++) {
        if (s->attrs[i].role != ROLE_NONE || !s->attrs[i].stroked || s->frame[i]) continue;
        double len;
        (void)visible_frac(s, i, &len);
        const ir_elem *e = &s->d->elems[i];
        if (s->clip_of[i] < 0 && e->kind == IR_POLY) len = ir_poly_perimeter(e->pts, e->npts, e->closed);
        longest = fmax(longest, len);
    }
    for (size_t i = 0; i < s->d->nelems; i++) {
        if (s->attrs[i].role != ROLE_NONE || !s->attrs[i].stroked || s->frame[i]) continue;
        /* the shape asked for is drawn solid: a dashed or dotted outline is
         * an auxiliary one (an image, a construction); a circle's arc still
         * shows the circle */
        if (s->attrs[i].dashed || s->d->elems[i].kind == IR_ELLIPSE) continue;
        double len, f = visible_frac(s, i, &len);
        if (len < GEOM_OUTLINE_FRAC * longest) continue;
        if (f < *frac) { *frac = f; worst = i; }
    }
    return worst;
}

/* --- the rules ------------------------------------------------------------ */

int geom_request_closed(const geom_scene *s, chk_verdict *v, int *checked)
{
    if (!s->req) return 0;
    double frac;
    size_t i = worst_cut(s, &frac);
    if (i == (size_t)-1) return 0;
    (*checked)++;
    if (frac >= GEOM_CLOSED_VISIBLE) return 0;
    const ir_elem *e = &s->d->elems[i];
    chk_set(v, CHK_NO, e->line,
            "the request asks for a closed shape, but the clip region shows only %.0f%% of the "
            "outline drawn at line %d (at least %.0f%% to read as closed)",
            100 * frac, e->line, 100 * GEOM_CLOSED_VISIBLE);
    chk_blame(v, i);
    return 1;
}

static const char *kind_word(unsigned kinds)
{
    if (kinds & RQ_TRIANGLE) return "triangle";
    if (kinds & RQ_SQUARE) return "square";
    if (kinds & RQ_RECTANGLE) return "rectangle";
    if (kinds & RQ_CIRCLE) return "circle";
    return "shape";
}

int geom_request_math(const geom_scene *s, chk_verdict *v, int *checked)
{
    const geom_request *r = s->req;
    if (!r) return 0;
    char a[64], b[64];

    /* unit cubes */
    if ((r->props & RQ_UNIT_CUBES) || (r->kinds & RQ_CUBE)) {
        cube_view cv;
        view_cubes(s, &cv);
        if (cv.count > 0) {
            (*checked)++;
            if (cv.bad) {
                chk_set(v, CHK_NO, cv.bad_line,
                        "a cube drawn at line %d shows its faces %s, which no viewer sees "
                        "together (one of them faces away): it is not drawn as a cube seen from "
                        "outside",
                        cv.bad_line, cv.bad_why);
                for (int m = 0; m < 3; m++) chk_blame(v, cv.bad_face[m]);
                return 1;
            }
            if (r->ncubes > 0 && cv.count >= 2 && cv.count != r->ncubes) {
                chk_set(v, CHK_NO, s->d->elems[cv.first_face].line,
                        "the request asks for %ld unit cube%s; the drawing shows %ld", r->ncubes,
                        r->ncubes == 1 ? "" : "s", cv.count);
                chk_blame(v, cv.first_face);
                chk_blame(v, cv.last_face);
                return 1;
            }
            if (r->nsolids == 1 && !(r->props & (RQ_COMPOSITE | RQ_OVERLAP)) && cv.count >= 2 &&
                !strcmp(r->solids[0].unit[0] ? r->solids[0].unit : "cubes", "cubes") &&
                (r->props & RQ_UNIT_CUBES)) {
                double want[3], got[3];
                for (int k = 0; k < 3; k++) {
                    want[k] = r->solids[0].v[k];
                    got[k] = (double)cv.ext[k];
                }
                if (proportion_misfit(want, got, 3) > 1 + 1e-9 ||
                    (double)(cv.ext[0] * cv.ext[1] * cv.ext[2]) !=
                        want[0] * want[1] * want[2]) {
                    geom_rq_dims d = {{got[0], got[1], got[2]}, 3, 0, "cubes"};
                    chk_set(v, CHK_NO, s->d->elems[cv.first_face].line,
                            "the request asks for a block of %s; the cubes drawn span %s",
                            geom_rq_dims_show(&r->solids[0], a, sizeof a),
                            geom_rq_dims_show(&d, b, sizeof b));
                    chk_blame(v, cv.first_face);
                    chk_blame(v, cv.last_face);
                    return 1;
                }
            }
        }
    }

    /* one rectangular prism: its proportions */
    if ((r->kinds & RQ_PRISM) && r->nsolids == 1 && !(r->props & (RQ_COMPOSITE | RQ_OVERLAP)) &&
        !(r->kinds & RQ_NET) && s->nfaces) {
        double ext[3];
        if (solid_extent(s, ext) && ext[0] > 0 && ext[1] > 0 && ext[2] > 0) {
            (*checked)++;
            double mis = proportion_misfit(r->solids[0].v, ext, 3);
            if (mis > 1 + GEOM_LENGTH_TOL) {
                double sorted[3] = {ext[0], ext[1], ext[2]};
                qsort(sorted, 3, sizeof sorted[0], cmp_desc_double);
                /* the drawn extent scaled to the request's largest side */
                double want[3] = {r->solids[0].v[0], r->solids[0].v[1], r->solids[0].v[2]};
                qsort(want, 3, sizeof want[0], cmp_desc_double);
                geom_rq_dims d = {{0, 0, 0}, 3, 0, ""};
                for (int k = 0; k < 3; k++)
                    d.v[k] = round(sorted[k] / sorted[0] * want[0] * 10) / 10;
                chk_set(v, CHK_NO, s->faces[0].line,
                        "the request asks for a %s prism; the solid drawn is in the proportions "
                        "%s (scaled to the same longest side; off by a factor %.2f, tolerance "
                        "%.2f)",
                        geom_rq_dims_show(&r->solids[0], a, sizeof a),
                        geom_rq_dims_show(&d, b, sizeof b), mis, 1 + GEOM_LENGTH_TOL);
                for (size_t i = 0; i < s->nfaces; i++) chk_blame(v, s->faces[i].elem);
                return 1;
            }
        }
    }

    /* a requested closed shape that is mostly outside the picture */
    {
        double frac;
        size_t i = worst_cut(s, &frac);
        if (i != (size_t)-1 && frac < GEOM_CLOSED_VISIBLE) {
            const ir_elem *e = &s->d->elems[i];
            chk_set(v, CHK_NO, e->line,
                    "the request asks for a %s, but only %.0f%% of the outline drawn at line %d "
                    "is inside the picture: its shape cannot be seen",
                    kind_word(r->kinds), 100 * frac, e->line);
            chk_blame(v, i);
            return 1;
        }
    }

    /* triangles */
    int solid = (r->kinds & (RQ_PRISM | RQ_CUBE | RQ_PYRAMID | RQ_NET)) != 0;
    if ((r->kinds & RQ_TRIANGLE) && !solid &&
        ((r->props & (RQ_RIGHT | RQ_ISOSCELES | RQ_EQUILATERAL)) || r->nangles || r->nsides)) {
        tri t[64];
        size_t nt = find_triangles(s, t, 64);
        if (nt) {
            /* right, isosceles, equilateral */
            static const unsigned want_p[] = {RQ_RIGHT, RQ_ISOSCELES, RQ_EQUILATERAL};
            static const char *const pname[] = {"right", "isosceles", "equilateral"};
            for (int w = 0; w < 3; w++) {
                if (!(r->props & want_p[w])) continue;
                (*checked)++;
                int found = 0;
                for (size_t k = 0; k < nt && !found; k++)
                    for (int m = 0; m < 3; m++) {
                        double s1 = t[k].side[(m + 1) % 3], s2 = t[k].side[(m + 2) % 3];
                        double eq = fmax(s1, s2) / fmin(s1, s2);
                        if (w == 0 && fabs(t[k].ang[m] - 90) <= GEOM_RIGHT_TOL_DEG) found = 1;
                        if (w == 1 && eq <= 1 + GEOM_LENGTH_TOL) found = 1;
                        if (w == 2) {
                            double mx = fmax(t[k].side[0], fmax(t[k].side[1], t[k].side[2]));
                            double mn = fmin(t[k].side[0], fmin(t[k].side[1], t[k].side[2]));
                            if (mx / mn <= 1 + GEOM_LENGTH_TOL) found = 1;
                        }
                    }
                if (!found) {
                    /* the drawn triangle nearest to being one, for the reason */
                    size_t bk = 0;
                    double bd = 1e300, bv = 0;
                    for (size_t k = 0; k < nt; k++)
                        for (int m = 0; m < 3; m++) {
                            double s1 = t[k].side[(m + 1) % 3], s2 = t[k].side[(m + 2) % 3];
                            double val = w == 0 ? t[k].ang[m]
                                                : w == 1 ? fmax(s1, s2) / fmin(s1, s2)
                                                         : fmax(t[k].side[0], fmax(t[k].side[1], t[k].side[2])) /
                                                               fmin(t[k].side[0], fmin(t[k].side[1], t[k].side[2]));
                            double dd = w == 0 ? fabs(val - 90) : val;
                            if (dd < bd) { bd = dd; bv = val; bk = k; }
                        }
                    if (w == 0)
                        chk_set(v, CHK_NO, 0,
                                "the request asks for a right triangle; no triangle drawn has a "
                                "right angle (%zu drawn, the angle nearest 90 is %.1f deg, "
                                "tolerance %.0f)",
                                nt, bv, GEOM_RIGHT_TOL_DEG);
                    else
                        chk_set(v, CHK_NO, 0,
                                "the request asks for an %s triangle; no triangle drawn has %s "
                                "sides (%zu drawn, the nearest differ by a factor %.2f, "
                                "tolerance %.2f)",
                                pname[w], w == 1 ? "two equal" : "three equal", nt, bv,
                                1 + GEOM_LENGTH_TOL);
                    blame_tri(s, &t[bk], v);
                    return 1;
                }
            }
        }
    }

    /* stated angles and sides against the drawing's labels: when the
     * drawing labels angles (lengths), each one the request states is
     * among them (the drawn geometry against the labels is angle-labels' and
     * length-proportions' business) */
    if (!solid) {
        for (int pass = 0; pass < 2; pass++) {
            geom_text_kind kind = pass ? TXT_LENGTH : TXT_ANGLE;
            double want[RQ_MAX * 3];
            int nw = 0;
            if (!pass) {
                for (int q = 0; q < r->nangles; q++)
                    if (r->angles[q] != 90) want[nw++] = r->angles[q];
            } else {
                for (int q = 0; q < r->nsides; q++)
                    for (int k = 0; k < 3; k++) want[nw++] = r->sides[q].v[k];
            }
            size_t nl = 0, first = 0;
            for (size_t i = 0; i < s->ntexts; i++)
                if (s->texts[i].kind == kind && s->texts[i].has_value) {
                    if (!nl) first = i;
                    nl++;
                }
            if (!nl || !nw) continue;
            for (int q = 0; q < nw; q++) {
                (*checked)++;
                int found = 0;
                for (size_t i = 0; i < s->ntexts && !found; i++) {
                    const geom_text *tx = &s->texts[i];
                    if (tx->kind == kind && tx->has_value &&
                        fabs(tx->value - want[q]) <= 1e-6 * (1 + fabs(want[q])))
                        found = 1;
                }
                if (!found) {
                    const geom_text *tx = &s->texts[first];
                    chk_set(v, CHK_NO, tx->line,
                            "the request states %s %g%s, but no %s label of the drawing says so "
                            "(%zu %s label%s, the first \"%s\")",
                            pass ? "a side of" : "an angle of", want[q], pass ? "" : " deg",
                            pass ? "length" : "angle", nl, pass ? "length" : "angle",
                            nl == 1 ? "" : "s", tx->show);
                    for (size_t i = 0; i < s->ntexts; i++)
                        if (s->texts[i].kind == kind && s->texts[i].has_value)
                            chk_blame(v, s->texts[i].elem);
                    return 1;
                }
            }
        }
    }

    /* rectangles "A by B" */
    /* (a rectangle split into parts shows them as lines, not rectangles) */
    if ((r->kinds & RQ_RECTANGLE) && !solid && r->nflats && !(r->props & RQ_DIVIDED)) {
        rect rc[128];
        size_t nr = find_rects(s, rc, 128);
        if (nr) {
            for (int q = 0; q < r->nflats; q++) {
                const double *fv = r->flats[q].v;
                (*checked)++;
                double want = fmax(fv[0], fv[1]) / fmin(fv[0], fv[1]);
                double best = 1e300;
                size_t bk = 0;
                for (size_t k = 0; k < nr; k++) {
                    double got = rc[k].w / rc[k].h;
                    double mis = fmax(got, want) / fmin(got, want);
                    if (mis < best) { best = mis; bk = k; }
                }
                if (best > 1 + GEOM_LENGTH_TOL) {
                    chk_set(v, CHK_NO, rc[bk].line,
                            "the request asks for a %s rectangle; no rectangle drawn has those "
                            "proportions (the closest, at line %d, is %.1f by %.1fpt: %.2f to 1 "
                            "against %.2f to 1)",
                            geom_rq_dims_show(&r->flats[q], a, sizeof a), rc[bk].line, rc[bk].w,
                            rc[bk].h, rc[bk].w / rc[bk].h, want);
                    chk_blame(v, rc[bk].elem);
                    return 1;
                }
            }
        }
    }
    return 0;
}
