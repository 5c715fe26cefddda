/* test_depth_range.c — the bound no-overlap's face_order relies on to pass
 * over a pair of faces (checks/geom/no_overlap.c, geom_depth_range): an
 * affine depth dc0 + dc1 x + dc2 y, as computed at any point of a box, lies
 * within the range geom_depth_range gives for the box. Random
 * coefficients and boxes of many sizes, random points in them and on their
 * edges. */
#include "tests/unit/xorshift.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "checks/geom/no_overlap.h"

static int failures, checks;
static uint64_t rng = 0xD1B54A32D192ED03ULL;

static double uni(void)
{
    return (double)(xorshift64(&rng) >> 11) / 9007199254740992.0;
}

static double num(double lo, double hi)
{
    return pow(10.0, lo + (hi - lo) * uni()) * (uni() < 0.5 ? -1 : 1);
}

int main(void)
{
    for (int it = 0; it < 100000; it++) {
        double dc[3] = {num(-3, 4), num(-6, 2), num(-6, 2)};
        double x1 = num(-2, 3), x2 = x1 + fabs(num(-3, 3)), y1 = num(-2, 3), y2 = y1 + fabs(num(-3, 3));
        double dmin, dmax;
        geom_depth_range(dc, ir_box_make(x1, y1, x2, y2), &dmin, &dmax);
        for (int k = 0; k < 8; k++) {
            double x = x1 + (x2 - x1) * uni(), y = y1 + (y2 - y1) * uni();
            if (k == 1) x = x1;
            if (k == 2) y = y2;
            if (x > x2) x = x2;
            if (y > y2) y = y2;
            double d = dc[0] + dc[1] * x + dc[2] * y;
            checks++;
            if (!(d <= dmax && d >= dmin)) {
                if (failures++ < 5)
                    fprintf(stderr, "depth %.17g at (%.17g,%.17g) outside [%.17g, %.17g]\n", d, x, y,
                            dmin, dmax);
            }
        }
    }
    if (failures) {
        fprintf(stderr, "test_depth_range: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_depth_range: %d checks passed\n", checks);
    return 0;
}
