/* geom_3d.c — parallel projections; see geom_3d.h. */
#include "ir/geom_3d.h"

#include <math.h>

/* Solves the n x n system a x = b in place (partial pivoting); fails on a
 * pivot below tol. */
static int solve_tol(double a[4][4], double b[4], int n, double tol)
{
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c])) piv = r;
        if (fabs(a[piv][c]) < tol) return 0;
        if (piv != c) {
            for (int k = 0; k < n; k++) { double t = a[c][k]; a[c][k] = a[piv][k]; a[piv][k] = t; }
            double t = b[c]; b[c] = b[piv]; b[piv] = t;
        }
        for (int r = c + 1; r < n; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < n; k++) a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = n - 1; c >= 0; c--) {
        double s = b[c];
        for (int k = c + 1; k < n; k++) s -= a[c][k] * b[k];
        b[c] = s / a[c][c];
    }
    return 1;
}

int ir_fit_projection_shifts(const ir_pt3 *p3, const ir_pt *p2, const size_t *off, size_t ne,
                             double m[2][3], double *resid, ir_pt *shift)
{
    /* the normal equations; ata is symmetric: its upper triangle is summed
     * (each product the same as its mirror's) and copied down at the end */
    double ata[4][4] = {{0}};
    double atb[2][3] = {{0}};
    size_t npts = 0;
    for (size_t e = 0; e < ne; e++) {
        size_t a = off[e], b = off[e + 1];
        if (b <= a + 1) continue;
        double c3[3] = {0, 0, 0}, c2[2] = {0, 0};
        for (size_t i = a; i < b; i++) {
            c3[0] += p3[i].x; c3[1] += p3[i].y; c3[2] += p3[i].z;
            c2[0] += p2[i].x; c2[1] += p2[i].y;
        }
        double k = (double)(b - a);
        for (int j = 0; j < 3; j++) c3[j] /= k;
        c2[0] /= k;
        c2[1] /= k;
        for (size_t i = a; i < b; i++) {
            double r0 = p3[i].x - c3[0], r1 = p3[i].y - c3[1], r2 = p3[i].z - c3[2];
            double px = p2[i].x - c2[0], py = p2[i].y - c2[1];
            ata[0][0] += r0 * r0;
            ata[0][1] += r0 * r1;
            ata[0][2] += r0 * r2;
            atb[0][0] += r0 * px;
            atb[1][0] += r0 * py;
            ata[1][1] += r1 * r1;
            ata[1][2] += r1 * r2;
            atb[0][1] += r1 * px;
            atb[1][1] += r1 * py;
            ata[2][2] += r2 * r2;
            atb[0][2] += r2 * px;
            atb[1][2] += r2 * py;
        }
        npts += b - a;
    }
    ata[1][0] = ata[0][1];
    ata[2][0] = ata[0][2];
    ata[2][1] = ata[1][2];
    if (npts < 4) return 0;
    /* the offsets must span three dimensions: compare the system's scale */
    double tr = ata[0][0] + ata[1][1] + ata[2][2];
    if (!(tr > 0)) return 0;
    for (int k = 0; k < 2; k++) {
        double a[4][4], b[4];
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) a[r][c] = ata[r][c] / tr;
            b[r] = atb[k][r] / tr;
        }
        /* pivots below this fraction of the trace mean a flat point set */
        if (!solve_tol(a, b, 3, 1e-9)) return 0;
        m[k][0] = b[0];
        m[k][1] = b[1];
        m[k][2] = b[2];
    }
    if (resid || shift) {
        /* the largest distance, as the root of the largest square (the
         * square root is monotonic and correctly rounded: the same) */
        double worst2 = 0;
        for (size_t e = 0; e < ne; e++) {
            size_t a = off[e], b = off[e + 1];
            if (b <= a) continue;
            double tx = 0, ty = 0;
            for (size_t i = a; i < b; i++) {
                ir_pt q = ir_project(m, p3[i]);
                tx += p2[i].x - q.x;
                ty += p2[i].y - q.y;
            }
            tx /= (double)(b - a);
            ty /= (double)(b - a);
            if (shift) shift[e] = (ir_pt){tx, ty};
            if (!resid) continue;
            for (size_t i = a; i < b; i++) {
                ir_pt q = ir_project(m, p3[i]);
                double dx = p2[i].x - q.x - tx, dy = p2[i].y - q.y - ty;
                double dd = dx * dx + dy * dy;
                if (dd > worst2) worst2 = dd;
            }
        }
        if (resid) *resid = sqrt(worst2);
    }
    return 1;
}

int ir_fit_projection_shifted(const ir_pt3 *p3, const ir_pt *p2, const size_t *off, size_t ne,
                              double m[2][3], double *resid)
{
    return ir_fit_projection_shifts(p3, p2, off, ne, m, resid, NULL);
}

ir_pt ir_project(const double m[2][3], ir_pt3 p)
{
    ir_pt r = {m[0][0] * p.x + m[0][1] * p.y + m[0][2] * p.z,
               m[1][0] * p.x + m[1][1] * p.y + m[1][2] * p.z};
    return r;
}

ir_pt3 ir_view_dir(const double m[2][3])
{
    ir_pt3 v = {m[0][1] * m[1][2] - m[0][2] * m[1][1], m[0][2] * m[1][0] - m[0][0] * m[1][2],
                m[0][0] * m[1][1] - m[0][1] * m[1][0]};
    double l = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    if (l > 0) { v.x /= l; v.y /= l; v.z /= l; }
    return v;
}

int ir_plane_depth_fn(const ir_pt3 *p3, const ir_pt *p2, size_t n, ir_pt3 view, double coef[3])
{
    if (n < 3) return 0;
    /* the corner triple spanning the largest picture area */
    size_t bj = 1, bk = 2;
    double best = 0;
    for (size_t j = 1; j + 1 < n; j++) {
        size_t k = j + 1;
        double cr = (p2[j].x - p2[0].x) * (p2[k].y - p2[0].y) - (p2[j].y - p2[0].y) * (p2[k].x - p2[0].x);
        if (fabs(cr) > best) { best = fabs(cr); bj = j; bk = k; }
    }
    if (best < 1e-6) return 0;
    double e1x = p2[bj].x - p2[0].x, e1y = p2[bj].y - p2[0].y;
    double e2x = p2[bk].x - p2[0].x, e2y = p2[bk].y - p2[0].y;
    double det = e1x * e2y - e1y * e2x;
    double d0 = p3[0].x * view.x + p3[0].y * view.y + p3[0].z * view.z;
    double d1 = p3[bj].x * view.x + p3[bj].y * view.y + p3[bj].z * view.z - d0;
    double d2 = p3[bk].x * view.x + p3[bk].y * view.y + p3[bk].z * view.z - d0;
    /* depth = d0 + a d1 + b d2 with (a, b) the picture point's coordinates
     * along the triangle's two edges */
    double dx = (e2y * d1 - e1y * d2) / det, dy = (e1x * d2 - e2x * d1) / det;
    coef[0] = d0 - dx * p2[0].x - dy * p2[0].y;
    coef[1] = dx;
    coef[2] = dy;
    return 1;
}
