/* test_ellipse_box.c — what in-frame relies on to pass over an ellipse or
 * arc in a rectangular clip without flattening it (checks/geom/in_frame.c,
 * inside_rect_clip): every point ir_elem_flatten gives for centre c and
 * axes a, b lies within |a| + |b| of c on each axis, plus a margin of
 * 1e-12 (|c| + |a| + |b|). Random ellipses and arcs of many sizes and
 * places. */
#include "ir/ir.h"
#include "ir/geom_2d.h"
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

/* a number of magnitude 10^-3 .. 10^6, either sign, sometimes 0 */
static double num(void)
{
    if (uni() < 0.05) return 0;
    double v = pow(10.0, -3 + 9 * uni()) * (uni() < 0.5 ? -1 : 1);
    /* IR numbers are written to 0.001 */
    return uni() < 0.5 ? round(v * 1000) / 1000 : v;
}

int main(void)
{
    for (int it = 0; it < 50000; it++) {
        ir_pt pts[3] = {{num(), num()}, {num(), num()}, {num(), num()}};
        if (uni() < 0.5) { pts[1].y = 0; pts[2].x = 0; }   /* axis-aligned */
        ir_elem e = {0};
        e.kind = uni() < 0.5 ? IR_ELLIPSE : IR_ARC;
        e.pts = pts;
        e.npts = 3;
        e.t1 = 720 * uni() - 360;
        e.t2 = e.t1 + 720 * uni() - 360;
        ir_pt *out;
        int closed;
        size_t n = ir_elem_flatten(&e, &out, &closed);
        ir_pt c = pts[0], a = pts[1], b = pts[2];
        double mx = fabs(a.x) + fabs(b.x), my = fabs(a.y) + fabs(b.y);
        double ex = 1e-12 * (fabs(c.x) + mx), ey = 1e-12 * (fabs(c.y) + my);
        for (size_t i = 0; i < n; i++) {
            checks++;
            if (!(out[i].x >= c.x - mx - ex && out[i].x <= c.x + mx + ex &&
                  out[i].y >= c.y - my - ey && out[i].y <= c.y + my + ey)) {
                if (failures++ < 5)
                    fprintf(stderr, "point %zu (%.17g, %.17g) outside c=(%g,%g) a=(%g,%g) b=(%g,%g)\n",
                            i, out[i].x, out[i].y, c.x, c.y, a.x, a.y, b.x, b.y);
            }
        }
        free(out);
    }
    if (failures) {
        fprintf(stderr, "test_ellipse_box: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_ellipse_box: %d checks passed\n", checks);
    return 0;
}
