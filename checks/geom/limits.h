/* limits.h — what the geom checks take on, and how much work they do on it.
 *
 * irlint answers a diagram beyond these limits with an error (exit 2) naming
 * the record, instead of verdicts: never a crash, never hours. They are far
 * above any drawing made to be read (a page is 470 x 650pt; the DiagramIR
 * items have at most a few hundred elements) and are stated in irlint(1).
 */
#ifndef DIAGRAMIR_GEOM_LIMITS_H
#define DIAGRAMIR_GEOM_LIMITS_H

#include <stddef.h>

#include "ir/box_index.h"
#include "ir/ir.h"

/* No coordinate (points, an ellipse's axis vectors, vertex=, of=, along=,
 * xyz=, a text's size=) larger in magnitude than this many points: sums,
 * products and squared distances of such numbers stay far from overflow. */
#define GEOM_MAX_COORD     1e15
/* Elements per diagram. */
#define GEOM_MAX_ELEMS     1000000
/* Straight pieces the drawn elements are broken into, counted as their
 * outlines' points (ir_elem_flatten_count: a polyline's own, 4 for a
 * rectangle, up to 73 for an ellipse or arc, 25 for a curve), per diagram: the scene's memory, about 130 bytes a piece (about
 * 1 GB at the limit; 100,000 circles are 7,300,000 pieces). */
#define GEOM_MAX_PIECES    8000000
/* Pairs of elements (or of an element and a grid cell's entry) the checks
 * may examine for one diagram: a few seconds of work. Spatial indexes keep
 * a spread-out diagram of a million elements far below it; only elements
 * piled on one another in the thousands reach it. */
#define GEOM_MAX_WORK      400000000ULL
/* Looks along one 3D line for the faces in front of it (no-overlap). */
#define GEOM_MAX_LOOKS     10000

/* Counts n units of work (pairs examined) against GEOM_MAX_WORK for the
 * scene; returns 0 once the budget is spent (the caller then stops looking:
 * its verdict will not be given, geom_overrun says why). */
int geom_spend(const void *scene, unsigned long long n);
/* ir_box_index_query for a check of the scene, its answer counted as
 * work; answers nothing once the budget is spent. */
size_t geom_ix_query(const void *scene, ir_box_index *x, ir_box q, size_t **buf, size_t *cap);

/* NULL when the checks can take d; else why not (one line, into buf of n
 * bytes), and *elem the element it is about ((size_t)-1: the diagram). */
const char *geom_admit(const ir_diagram *d, size_t *elem, char *buf, size_t n);
/* After the checks ran on a scene: NULL, or why their verdicts are not
 * given (GEOM_MAX_WORK was reached), into buf. */
const char *geom_overrun(const void *scene, char *buf, size_t n);

#endif
