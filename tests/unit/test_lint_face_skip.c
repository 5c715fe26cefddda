/* test_lint_face_skip.c — no-overlap's face_order passes over a pair of
 * faces when overlap_not_behind shows that the clipped overlap's centroid
 * cannot find the later face behind (checks/geom/no_overlap.c). This runs
 * geom_depth_order on random faces with that skip (use_skip 1) and without
 * it (use_skip 0, every pair clipped) and requires the same tally: the
 * count of depth-order errors, the worst key and its verdict.
 * The faces are convex and not (triangles to hexagons of either winding,
 * some with a repeated point, a flat corner, a spike, a dent or a loop
 * round twice), on planes close in depth (so many pairs lie within the
 * tolerance of each other), at scales from 0.01 to 1e4. */
#include <math.h>
#include <string.h>

#include "checks/geom/no_overlap.h"

#include "tests/unit/check.h"
#include "tests/unit/xorshift.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static double uni(void)
{
    return (double)(xorshift64(&rng) >> 11) / 9007199254740992.0;
}

/* One random outline of n points (at most 14) around c, radius r. */
static size_t outline(ir_pt *p, ir_pt c, double r)
{
    size_t n = 3 + (size_t)(uni() * 4);
    double t0 = uni() * 6.283185307179586, dir = uni() < 0.5 ? 1 : -1;
    double turns = uni() < 0.05 ? 2 : 1;   /* a star: round twice */
    int shear = uni() < 0.5;
    for (size_t i = 0; i < n; i++) {
        double t = t0 + dir * turns * 6.283185307179586 * ((double)i + 0.3 * uni()) / (double)n;
        double rr = r * (0.6 + 0.4 * uni());
        p[i] = ir_v(c.x + rr * cos(t), c.y + rr * sin(t) * (shear ? 0.5 : 1));
    }
    double u = uni();
    if (u < 0.05) {
        p[n] = p[n - 1];                       /* a repeated point */
        n++;
    } else if (u < 0.1) {
        p[n] = ir_v_lerp(p[n - 1], p[0], 0.5); /* a flat corner */
        n++;
    } else if (u < 0.15) {
        p[n] = ir_v_lerp(p[n - 1], p[0], 0.5); /* a spike out and back */
        p[n + 1] = ir_v_lerp(p[n], c, -0.8);
        p[n + 2] = p[n];
        n += 3;
    } else if (u < 0.2) {
        p[n] = ir_v_lerp(p[n - 1], p[0], 0.5); /* a dent */
        p[n] = ir_v_lerp(p[n], c, 0.3 + 0.6 * uni());
        n++;
    }
    return n;
}

int main(void)
{
    enum { MAXF = 14, MAXP = 16 };
    static ir_pt p2[MAXF][MAXP];
    static ir_pt3 p3[MAXF][MAXP];
    geom_face faces[MAXF];
    long notes = 0;
    for (int it = 0; it < 40000; it++) {
        double scale = pow(10.0, -2 + 6 * uni());
        size_t nf = 2 + (size_t)(uni() * (MAXF - 1));
        geom_scene s;
        memset(&s, 0, sizeof s);
        s.faces = faces;
        s.nfaces = nf;
        s.has_proj = 1;
        s.view = (ir_pt3){0, 0, 1};
        for (size_t i = 0; i < nf; i++) {
            geom_face *f = &faces[i];
            memset(f, 0, sizeof *f);
            double cx = scale * (uni() * 2), cy = scale * (uni() * 2);   /* in this order */
            ir_pt c = ir_v(cx, cy);
            if (uni() < 0.1) c = ir_v(c.x + 1e3 * scale, c.y - 1e3 * scale);
            f->n = outline(p2[i], c, scale * (0.3 + 1.5 * uni()));
            f->p2 = p2[i];
            f->p3 = p3[i];
            /* depth z = a + b x + c y: close planes, some tilted */
            double a = scale * 0.05 * (uni() - 0.5), b = 0.05 * (uni() - 0.5), cc = 0.05 * (uni() - 0.5);
            if (uni() < 0.3) b *= 20;
            for (size_t k = 0; k < f->n; k++)
                p3[i][k] = (ir_pt3){p2[i][k].x, p2[i][k].y, a + b * p2[i][k].x + cc * p2[i][k].y};
            f->closed = f->filled = f->stroked = 1;
            f->group = uni() < 0.9 ? 0 : 1;
            f->line = (int)i + 1;
            f->elem = i;
            f->sarea = ir_poly_area(f->p2, f->n);
            f->box = ir_box_empty();
            for (size_t k = 0; k < f->n; k++) ir_box_union(&f->box, ir_box_make(f->p2[k].x, f->p2[k].y, f->p2[k].x, f->p2[k].y));
        }
        geom_depth_tally t[2];
        for (int skip = 0; skip < 2; skip++) geom_depth_order(&s, skip, &t[skip]);
        notes += t[0].n;
        CHECK(t[0].n == t[1].n);
        CHECK(memcmp(&t[0].worst, &t[1].worst, sizeof t[0].worst) == 0);
        CHECK(t[0].why.value == t[1].why.value && t[0].why.line == t[1].why.line);
        CHECK(strcmp(t[0].why.reason, t[1].why.reason) == 0);
    }
    printf("test_lint_face_skip: %d checks, %d failures (%ld notes)\n", checks, failures, notes);
    return failures != 0;
}
