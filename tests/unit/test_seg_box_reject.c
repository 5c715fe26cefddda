/* test_seg_box_reject.c — what no-overlap relies on to pass over a segment
 * before clipping it to a text's core (checks/geom/no_overlap.c): when both
 * ends lie beyond one side of the box, ir_seg_box_clip returns 0 or a
 * piece with t1 <= t0. Random segments of many sizes, near and far, many
 * of them touching the side's line. */
#include "ir/ir.h"
#include "ir/geom_2d.h"
#include "tests/unit/xorshift.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

static int failures, checks;
static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static double uni(void)
{
    return (double)(xorshift64(&rng) >> 11) / 9007199254740992.0;
}

static double num(void)
{
    double v = pow(10.0, -4 + 8 * uni()) * (uni() < 0.5 ? -1 : 1);
    return uni() < 0.3 ? round(v * 1000) / 1000 : v;
}

int main(void)
{
    for (int it = 0; it < 400000; it++) {
        ir_box b = ir_box_make(num(), num(), num(), num());
        if (b.empty || !(b.x2 > b.x1) || !(b.y2 > b.y1)) continue;
        ir_pt a = {num(), num()}, c = {num(), num()};
        /* sometimes on or just by a side's line */
        if (uni() < 0.3) a.x = uni() < 0.5 ? b.x1 : nextafter(b.x1, -INFINITY);
        if (uni() < 0.3) c.y = uni() < 0.5 ? b.y2 : nextafter(b.y2, INFINITY);
        if (uni() < 0.2) c.x = a.x;
        int beyond = (a.x < b.x1 && c.x < b.x1) || (a.x > b.x2 && c.x > b.x2) ||
                     (a.y < b.y1 && c.y < b.y1) || (a.y > b.y2 && c.y > b.y2);
        if (!beyond) continue;
        double t0 = -7, t1 = -7;
        checks++;
        if (ir_seg_box_clip(a, c, b, &t0, &t1) && t1 > t0) {
            if (failures++ < 5)
                fprintf(stderr, "(%.17g,%.17g)-(%.17g,%.17g) in [%.17g,%.17g]x[%.17g,%.17g]: %.17g..%.17g\n",
                        a.x, a.y, c.x, c.y, b.x1, b.x2, b.y1, b.y2, t0, t1);
        }
    }
    if (failures) {
        fprintf(stderr, "test_seg_box_reject: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_seg_box_reject: %d checks passed\n", checks);
    return 0;
}
