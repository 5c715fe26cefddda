/* test_lint_seg_gap.c — geom_text_seg_gap (checks/geom/geom.h) is never
 * above geom_text_seg_dist as computed: length-proportions and
 * label-association pass over a segment when the gap alone exceeds what
 * they look for, which is only the same when the distance would exceed it
 * too. Random text boxes and segments at scales from 1e-3 to 1e9, near
 * and far, degenerate (a point, a flat box), touching and crossing. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "tests/unit/check.h"
#include "tests/unit/xorshift.h"

static uint64_t rng = 0xA0761D6478BD642FULL;

static double uni(void)
{
    return (double)(xorshift64(&rng) >> 11) / 9007199254740992.0;
}

int main(void)
{
    long positive = 0;
    for (int it = 0; it < 2000000; it++) {
        double scale = pow(10.0, -3 + 12 * uni());
        double off = uni() < 0.3 ? scale * 1e3 * (uni() - 0.5) : 0;
        geom_text t;
        geom_seg g;
        memset(&t, 0, sizeof t);
        memset(&g, 0, sizeof g);
        double x1 = off + scale * (uni() - 0.5), y1 = off + scale * (uni() - 0.5);
        double w = uni() < 0.1 ? 0 : scale * uni(), h = uni() < 0.1 ? 0 : scale * uni();
        t.box = ir_box_make(x1, y1, x1 + w, y1 + h);
        /* the draws in this order on every compiler */
        double ax = off + scale * 2 * (uni() - 0.5), ay = off + scale * 2 * (uni() - 0.5);
        g.a = ir_v(ax, ay);
        if (uni() < 0.1) {
            g.b = g.a;
        } else {
            double bx = off + scale * 2 * (uni() - 0.5), by = off + scale * 2 * (uni() - 0.5);
            g.b = ir_v(bx, by);
        }
        if (uni() < 0.1) g.b.x = g.a.x;                 /* vertical */
        if (uni() < 0.1) g.a.x = t.box.x2;              /* on the box's side */
        if (uni() < 0.05) g.a.y = nextafter(t.box.y2, INFINITY);
        double gap = geom_text_seg_gap(&t, &g), dist = geom_text_seg_dist(&t, &g);
        positive += gap > 0;
        CHECK(gap <= dist);
    }
    printf("test_lint_seg_gap: %d checks, %d failures (%ld with a positive bound)\n", checks,
           failures, positive);
    return failures != 0;
}
