/* box_index.c — a uniform grid over boxes (box_index.h). */
#include "ir/box_index.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/xalloc.h"

static int box_finite(ir_box b)
{
    return !b.empty && isfinite(b.x1) && isfinite(b.x2) && isfinite(b.y1) && isfinite(b.y2);
}

/* The cell of coordinate v (origin o, inv cells per unit, n cells), clamped
 * in double before the cast (NaN goes to cell 0). */
static int cell_of(double v, double o, double inv, int n)
{
    double c = floor((v - o) * inv);
    if (!(c >= 0)) return 0;
    if (c > (double)(n - 1)) return n - 1;
    return (int)c;
}

int ir_box_index_cells(const ir_box_index *x, ir_box q, int *i0, int *j0, int *i1, int *j1)
{
    if (!box_finite(q)) return 0;
    *i0 = cell_of(q.x1, x->x0, x->ix, x->nx);
    *i1 = cell_of(q.x2, x->x0, x->ix, x->nx);
    *j0 = cell_of(q.y1, x->y0, x->iy, x->ny);
    *j1 = cell_of(q.y2, x->y0, x->iy, x->ny);
    return 1;
}

/* n cells along a side of length len, of a grid of about `want` cells
 * over a box len x other (in double, clamped before any cast). */
static int side_cells(double len, double other, double want)
{
    double k;
    if (!(len > 0) || !isfinite(len)) return 1;
    if (!(other > 0) || !isfinite(other)) k = want;
    else k = sqrt(want * len / other);
    if (!(k >= 1)) k = 1;
    if (k > IR_BOX_INDEX_MAX_SIDE) k = IR_BOX_INDEX_MAX_SIDE;
    return (int)k;
}

void ir_box_index_build(ir_box_index *x, const ir_box *b, size_t n)
{
    memset(x, 0, sizeof *x);
    x->n = n;
    x->nx = x->ny = 1;
    double X1 = INFINITY, Y1 = INFINITY, X2 = -INFINITY, Y2 = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!box_finite(b[i])) continue;
        if (b[i].x1 < X1) X1 = b[i].x1;
        if (b[i].y1 < Y1) Y1 = b[i].y1;
        if (b[i].x2 > X2) X2 = b[i].x2;
        if (b[i].y2 > Y2) Y2 = b[i].y2;
    }
    if (X1 <= X2) {
        double w = X2 - X1, h = Y2 - Y1;   /* may be infinite: side_cells copes */
        double want = (double)n;
        x->nx = side_cells(w, h, want);
        x->ny = side_cells(h, w, want);
        x->x0 = X1;
        x->y0 = Y1;
        x->ix = w > 0 && isfinite(w) ? (double)x->nx / w : 0;
        x->iy = h > 0 && isfinite(h) ? (double)x->ny / h : 0;
    }
    size_t ncell = (size_t)x->nx * (size_t)x->ny;
    x->start = xcalloc(ncell + 1, sizeof *x->start);
    x->stamp = xcalloc(n ? n : 1, sizeof *x->stamp);
    int (*r)[4] = xmalloc((n ? n : 1) * sizeof *r);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        int *c = r[i];
        if (b[i].empty) {
            c[0] = -2;   /* in no cell, on no list */
            continue;
        }
        if (!ir_box_index_cells(x, b[i], &c[0], &c[1], &c[2], &c[3]) ||
            (double)(c[2] - c[0] + 1) * (double)(c[3] - c[1] + 1) > IR_BOX_INDEX_MAX_COVER) {
            c[0] = -1;   /* on the list every query gets */
            x->nevery++;
            continue;
        }
        for (int j = c[1]; j <= c[3]; j++)
            for (int k = c[0]; k <= c[2]; k++) x->start[(size_t)j * (size_t)x->nx + (size_t)k + 1]++;
        total += (size_t)(c[2] - c[0] + 1) * (size_t)(c[3] - c[1] + 1);
    }
    for (size_t c = 0; c < ncell; c++) x->start[c + 1] += x->start[c];
    x->idx = xmalloc((total ? total : 1) * sizeof *x->idx);
    x->every = xmalloc((x->nevery ? x->nevery : 1) * sizeof *x->every);
    size_t *fill = xmalloc(ncell * sizeof *fill);
    memcpy(fill, x->start, ncell * sizeof *fill);
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        const int *c = r[i];
        if (c[0] == -2) continue;
        if (c[0] < 0) {
            x->every[ne++] = i;
            continue;
        }
        for (int j = c[1]; j <= c[3]; j++)
            for (int k = c[0]; k <= c[2]; k++) x->idx[fill[(size_t)j * (size_t)x->nx + (size_t)k]++] = i;
    }
    free(fill);
    /* what a query that is not finite gets: every box but the empty ones */
    x->nall = 0;
    x->all = xmalloc((n ? n : 1) * sizeof *x->all);
    for (size_t i = 0; i < n; i++)
        if (r[i][0] != -2) x->all[x->nall++] = i;
    free(r);
}

void ir_box_index_free(ir_box_index *x)
{
    free(x->start);
    free(x->idx);
    free(x->every);
    free(x->all);
    free(x->stamp);
    memset(x, 0, sizeof *x);
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

void ir_index_sort(size_t *a, size_t n)
{
    if (n > 1) qsort(a, n, sizeof *a, cmp_size);
}

static void put(size_t **buf, size_t *cap, size_t *n, size_t v)
{
    if (*n >= *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        *buf = xrealloc(*buf, nc * sizeof **buf);
        *cap = nc;
    }
    (*buf)[(*n)++] = v;
}

size_t ir_box_index_query(ir_box_index *x, ir_box q, size_t **buf, size_t *cap)
{
    size_t n = 0;
    if (x->n == 0) return 0;
    int i0, j0, i1, j1;
    if (!ir_box_index_cells(x, q, &i0, &j0, &i1, &j1)) {
        for (size_t i = 0; i < x->nall; i++) put(buf, cap, &n, x->all[i]);
        return n;
    }
    if (++x->cur == 0) {   /* stamps wrapped: start again */
        memset(x->stamp, 0, x->n * sizeof *x->stamp);
        x->cur = 1;
    }
    for (int j = j0; j <= j1; j++)
        for (int i = i0; i <= i1; i++) {
            size_t c = (size_t)j * (size_t)x->nx + (size_t)i;
            for (size_t k = x->start[c]; k < x->start[c + 1]; k++) {
                size_t e = x->idx[k];
                if (x->stamp[e] == x->cur) continue;
                x->stamp[e] = x->cur;
                put(buf, cap, &n, e);
            }
        }
    /* one cell's list is in order already; the union of several is not */
    if (n > 1 && (i1 > i0 || j1 > j0)) qsort(*buf, n, sizeof **buf, cmp_size);
    if (x->nevery) {
        /* merged with the list every query gets (also in order; no box is
         * on both), from the back, in place */
        size_t nc = n;
        for (size_t k = 0; k < x->nevery; k++) put(buf, cap, &n, 0);
        size_t *b = *buf, i = nc, j = x->nevery, k = n;
        while (j > 0) {
            if (i > 0 && b[i - 1] > x->every[j - 1]) b[--k] = b[--i];
            else b[--k] = x->every[--j];
        }
    }
    return n;
}
