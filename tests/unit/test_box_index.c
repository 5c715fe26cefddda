/* test_box_index.c — ir/box_index.c against a loop over every box: on
 * random sets of boxes (spread out, piled on one spot, long thin ones that
 * cover many cells, empty ones, points, NaN, infinite and +-1e308 sides)
 * and random queries (boxes, points, empty, NaN, huge), every box that
 * meets the query (ir_box_isect) is in the answer, no empty box is, each
 * index at most once, in increasing order; a query that is not finite gets
 * every box but the empty ones. What the checks and svg2graph rely on to
 * find the same pairs, in the same order, as the loops they replaced. */
#include "ir/box_index.h"
#include "ir/ir.h"
#include "tests/unit/xorshift.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures, checks;
static uint64_t rng = 0x2545F4914F6CDD1DULL;

static double uni(void)
{
    return (double)(xorshift64(&rng) >> 11) / 9007199254740992.0;
}

/* a coordinate: mostly on a page, sometimes extreme */
static double coord(void)
{
    double u = uni();
    if (u < 0.01) return NAN;
    if (u < 0.02) return uni() < 0.5 ? INFINITY : -INFINITY;
    if (u < 0.03) return uni() < 0.5 ? 1e308 : -1.7e308;
    if (u < 0.05) return 1e-308 * uni();
    return 1000 * uni() - 200;
}

static ir_box rand_box(int kind)
{
    double u = uni();
    if (u < 0.05) return ir_box_empty();
    if (kind == 1) {   /* piled on one spot */
        double s = 10 * uni();
        return ir_box_make(5, 5, 5 + s, 5 + s);
    }
    double x = coord(), y = coord();
    if (u < 0.2) return ir_box_make(x, y, x, y);   /* a point */
    if (u < 0.3) return ir_box_make(x, y, coord(), y + uni());   /* long and thin */
    double w = 40 * uni() * uni(), h = 40 * uni() * uni();
    ir_box b = ir_box_make(x, y, x + w, y + h);
    return b;
}

static int meets(ir_box a, ir_box q)
{
    if (a.empty || q.empty) return 0;
    return !ir_box_isect(a, q).empty;
}

static int finite_box(ir_box b)
{
    return !b.empty && isfinite(b.x1) && isfinite(b.x2) && isfinite(b.y1) && isfinite(b.y2);
}

int main(void)
{
    size_t *buf = NULL, cap = 0;
    for (int round = 0; round < 300; round++) {
        size_t n = (size_t)(uni() * (round % 10 == 0 ? 3000 : 300));
        int kind = round % 7 == 3;
        ir_box *b = malloc((n + 1) * sizeof *b);
        for (size_t i = 0; i < n; i++) b[i] = rand_box(kind);
        ir_box_index x;
        ir_box_index_build(&x, b, n);
        unsigned char *seen = calloc(n + 1, 1);
        for (int q = 0; q < 200; q++) {
            ir_box qb = rand_box(kind && uni() < 0.5);
            if (uni() < 0.05) qb = ir_box_make(-1e308, -1e308, 1e308, 1e308);
            size_t nn = ir_box_index_query(&x, qb, &buf, &cap);
            checks++;
            int bad = 0;
            for (size_t k = 0; k < nn; k++) {
                if (buf[k] >= n) { bad = 1; break; }
                if (k && buf[k] <= buf[k - 1]) bad = 1;   /* increasing: each once */
                if (b[buf[k]].empty) bad = 1;
                seen[buf[k]] = 1;
            }
            for (size_t i = 0; i < n && !bad; i++) {
                if (meets(b[i], qb) && !seen[i]) bad = 2;
                /* a query that is not finite gets every box but the empty */
                if (!finite_box(qb) && !b[i].empty && !seen[i]) bad = 3;
            }
            for (size_t k = 0; k < nn && buf[k] < n; k++) seen[buf[k]] = 0;
            if (bad) {
                failures++;
                if (failures < 10)
                    fprintf(stderr, "test_box_index: round %d query %d: %s (q %g %g %g %g%s)\n",
                            round, q,
                            bad == 1 ? "answer out of order, repeated, or an empty box"
                            : bad == 2 ? "a box meeting the query is missing"
                                       : "a query that is not finite missed a box",
                            qb.x1, qb.y1, qb.x2, qb.y2, qb.empty ? ", empty" : "");
            }
        }
        free(seen);
        ir_box_index_free(&x);
        free(b);
    }
    free(buf);
    if (failures) {
        fprintf(stderr, "test_box_index: %d of %d queries failed\n", failures, checks);
        return 1;
    }
    printf("test_box_index: %d queries, each answer complete, in order, without repeats\n", checks);
    return 0;
}
