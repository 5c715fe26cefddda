/* box_index.h — which of n boxes may meet a box: a uniform grid over the
 * boxes, for the checks and svg2graph wherever elements are compared in
 * pairs (work near n, not n^2, when the boxes are spread out).
 *
 * About one cell per box (at most IR_BOX_INDEX_MAX_SIDE cells a side). A box
 * is listed in every cell it covers, unless it covers more than
 * IR_BOX_INDEX_MAX_COVER cells or is not finite (a NaN or infinite side):
 * then it is on a list every query returns. An empty box (b.empty) is in no
 * answer: a way to leave an entry out. A query answers a superset of the
 * boxes that
 * meet it (the caller tests each), each once, in increasing index order, so
 * a loop over the answer visits the boxes in the order a loop over all of
 * them would. Safe for any double: NaN and infinities are never cast to an
 * integer; memory is O(n) (at most IR_BOX_INDEX_MAX_COVER entries a box). */
#ifndef DIAGRAMIR_BOX_INDEX_H
#define DIAGRAMIR_BOX_INDEX_H

#include <stddef.h>

#include "ir/geom_2d.h"

#define IR_BOX_INDEX_MAX_SIDE  2048
#define IR_BOX_INDEX_MAX_COVER 64

typedef struct {
    size_t n;              /* boxes indexed */
    double x0, y0;         /* the grid's lower left corner */
    double ix, iy;         /* cells per unit, across and up */
    int nx, ny;            /* cells across and up */
    size_t *start;         /* nx * ny + 1 offsets into idx */
    size_t *idx;           /* per cell, the boxes covering it (increasing) */
    size_t *every;         /* boxes every query returns (increasing) */
    size_t nevery;
    size_t *all;           /* the boxes that are not empty (increasing) */
    size_t nall;
    unsigned *stamp;       /* per box: the last query that returned it */
    unsigned cur;
} ir_box_index;

/* Indexes boxes b[0..n) (the array need not outlive the index). */
void ir_box_index_build(ir_box_index *x, const ir_box *b, size_t n);
void ir_box_index_free(ir_box_index *x);
/* The boxes that may meet q, into *buf (grown as needed, *cap its room),
 * each once, in increasing order; returns how many. An empty or not finite
 * q gets every box that is not empty. */
size_t ir_box_index_query(ir_box_index *x, ir_box q, size_t **buf, size_t *cap);
/* The cell range [*i0..*i1] x [*j0..*j1] box q covers, clamped to the grid;
 * 0 when q is empty or not finite. */
int ir_box_index_cells(const ir_box_index *x, ir_box q, int *i0, int *j0, int *i1, int *j1);
/* Sorts n indices in increasing order. */
void ir_index_sort(size_t *a, size_t n);

#endif
