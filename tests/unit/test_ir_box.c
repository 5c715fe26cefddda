/* test_ir_box.c — ir_elem_box of point records against ir_box_add.
 *
 * ir.c takes the box of a poly (and of rect, text and vertex: their first
 * two points) in registers instead of calling ir_box_add per point. It
 * must give the very box ir_box_add does, bit for bit: random points,
 * with zeros of both signs, infinities and NaNs (a NaN first point stays;
 * a later NaN never enters), for every point count up to 40. */
#include "ir/ir.h"
#include "tests/unit/xorshift.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;
static uint64_t rng = 0x2545F4914F6CDD1Du;

static double coord(void)
{
    uint64_t r = xorshift64(&rng);
    switch (r % 16) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return 0.0;
    case 4: return -0.0;
    default: return ((double)(int64_t)(r >> 11) / (double)(1ull << 40)) * (r % 3 ? 1 : 1e-6);
    }
}

static int same_box(ir_box a, ir_box b)
{
    if (a.empty != b.empty) return 0;
    if (a.empty) return 1;
    return memcmp(&a.x1, &b.x1, sizeof a.x1) == 0 && memcmp(&a.y1, &b.y1, sizeof a.y1) == 0 &&
           memcmp(&a.x2, &b.x2, sizeof a.x2) == 0 && memcmp(&a.y2, &b.y2, sizeof a.y2) == 0;
}

int main(void)
{
    static const ir_kind kinds[] = {IR_POLY, IR_RECT, IR_TEXT, IR_VERTEX};
    ir_pt p[40];
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)(xorshift64(&rng) % 41);
        for (size_t i = 0; i < n; i++) p[i].x = coord(), p[i].y = coord();
        for (int k = 0; k < 4; k++) {
            ir_elem e;
            memset(&e, 0, sizeof e);
            e.kind = kinds[k];
            e.pts = n ? p : NULL;
            e.npts = n;
            ir_box want = ir_box_empty();
            size_t m = kinds[k] == IR_POLY ? n : n < 2 ? n : 2;
            for (size_t i = 0; i < m; i++) ir_box_add(&want, p[i].x, p[i].y);
            checks++;
            if (!same_box(ir_elem_box(&e), want)) {
                if (failures++ < 10) fprintf(stderr, "test_ir_box: kind %d, %zu points: box differs\n", k, n);
            }
            /* the same shape as a clip */
            e.sub = e.kind;
            e.kind = IR_CLIP;
            if (e.sub == IR_POLY || e.sub == IR_RECT) {
                checks++;
                if (!same_box(ir_elem_box(&e), want)) failures++;
            }
        }
    }
    printf("test_ir_box: %d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
