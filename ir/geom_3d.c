/* geom_3d.c — parallel projections; see geom_3d.h. */
#include "ir/geom_3d.h"

#include <math.h>

/* Solves the n x n system a x = b in place (partial pivoting). */
static int solve(double a[4][4], double b[4], int n)
{
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c])) piv = r;
        if (fabs(a[piv][c]) < 1e-12) return 0;
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

int ir_fit_projection(const ir_pt3 *p3, const ir_pt *p2, size_t n, double m[2][3], double t[2])
{
    if (n < 4) return 0;
    /* centre the 3D points for conditioning */
    double cx = 0, cy = 0, cz = 0;
    for (size_t i = 0; i < n; i++) { cx += p3[i].x; cy += p3[i].y; cz += p3[i].z; }
    cx /= (double)n; cy /= (double)n; cz /= (double)n;
    double ata[4][4] = {{0}};
    double atb[2][4] = {{0}};
    for (size_t i = 0; i < n; i++) {
        double row[4] = {p3[i].x - cx, p3[i].y - cy, p3[i].z - cz, 1.0};
        for (int r = 0; r < 4; r++) {
            for (int c = 0; c < 4; c++) ata[r][c] += row[r] * row[c];
            atb[0][r] += row[r] * p2[i].x;
            atb[1][r] += row[r] * p2[i].y;
        }
    }
    for (int k = 0; k < 2; k++) {
        double a[4][4], b[4];
        for (int r = 0; r < 4; r++) {
            for (int c = 0; c < 4; c++) a[r][c] = ata[r][c];
            b[r] = atb[k][r];
        }
        if (!solve(a, b, 4)) return 0;
        m[k][0] = b[0]; m[k][1] = b[1]; m[k][2] = b[2];
        t[k] = b[3] - b[0] * cx - b[1] * cy - b[2] * cz;
    }
    return 1;
}

ir_pt3 ir_view_dir(const double m[2][3])
{
    ir_pt3 v = {m[0][1] * m[1][2] - m[0][2] * m[1][1], m[0][2] * m[1][0] - m[0][0] * m[1][2],
                m[0][0] * m[1][1] - m[0][1] * m[1][0]};
    double l = sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    if (l > 0) { v.x /= l; v.y /= l; v.z /= l; }
    return v;
}

int ir_plane_depth_at(const ir_pt3 *p3, const ir_pt *p2, size_t n, ir_pt c, ir_pt3 view,
                      double *depth)
{
    if (n < 3) return 0;
    /* the corner triple spanning the largest picture area */
    size_t bi = 0, bj = 1, bk = 2;
    double best = 0;
    for (size_t j = 1; j + 1 < n; j++) {
        size_t k = j + 1;
        double cr = (p2[j].x - p2[0].x) * (p2[k].y - p2[0].y) - (p2[j].y - p2[0].y) * (p2[k].x - p2[0].x);
        if (fabs(cr) > best) { best = fabs(cr); bi = 0; bj = j; bk = k; }
    }
    if (best < 1e-6) return 0;
    double e1x = p2[bj].x - p2[bi].x, e1y = p2[bj].y - p2[bi].y;
    double e2x = p2[bk].x - p2[bi].x, e2y = p2[bk].y - p2[bi].y;
    double rx = c.x - p2[bi].x, ry = c.y - p2[bi].y;
    double det = e1x * e2y - e1y * e2x;
    double a = (rx * e2y - ry * e2x) / det, b = (e1x * ry - e1y * rx) / det;
    ir_pt3 X = {p3[bi].x + a * (p3[bj].x - p3[bi].x) + b * (p3[bk].x - p3[bi].x),
                p3[bi].y + a * (p3[bj].y - p3[bi].y) + b * (p3[bk].y - p3[bi].y),
                p3[bi].z + a * (p3[bj].z - p3[bi].z) + b * (p3[bk].z - p3[bi].z)};
    *depth = X.x * view.x + X.y * view.y + X.z * view.z;
    return 1;
}
