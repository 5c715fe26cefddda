/* Unit test for the coordinates' fast path (tk_eval's cache of values is
 * tested by test_evalcache): coordinates such as (1,0) and (1,0,1); on
 * random texts of digits, commas, spaces, signs and periods, under random
 * x, y, z vectors, tk_coord_user (with its short way for integer tuples)
 * and tk_coord_user_general (the reader of every coordinate) give the same
 * result, bit for bit: return value, point, last3, last3_kind, any3d. */
#include "grammar/interp.h"
#include "tests/unit/check.h"
#include "tests/unit/xorshift.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double rnd(uint64_t *x, unsigned mod, double div, double off)
{
    return (double)(xorshift64(x) % mod) / div - off;
}

static void check_coordfast(uint64_t seed, long iters)
{
    static const char alpha[] = "0123456789012345678901234567890123456789,,,,,,,, -.+";
    tikz T;
    memset(&T, 0, sizeof T);
    tk_gs_push(&T);
    uint64_t x = seed;
    for (long it = 0; it < iters; it++) {
        gstate *g = GS(&T);
        g->xv = v2(rnd(&x, 2000, 7, 100), rnd(&x, 2000, 9, 100));
        g->yv = v2(rnd(&x, 2000, 11, 100), rnd(&x, 2000, 13, 100));
        g->zv = v2(rnd(&x, 2000, 3, 300), rnd(&x, 2000, 17, 50));
        char buf[40];
        size_t n = 1 + xorshift64(&x) % 30;
        for (size_t i = 0; i < n; i++) buf[i] = alpha[xorshift64(&x) % (sizeof alpha - 1)];
        buf[n] = 0;
        vec2 a = v2(1, 2), b = v2(1, 2);
        T.last3 = (vec3){ 5, 6, 7 }; T.last3_kind = 9; T.any3d = 0;
        int ra = tk_coord_user(&T, buf, n, &a, 1);
        vec3 la = T.last3; int ka = T.last3_kind, da = T.any3d;
        T.last3 = (vec3){ 5, 6, 7 }; T.last3_kind = 9; T.any3d = 0;
        int rb = tk_coord_user_general(&T, buf, n, &b, 1);
        vec3 lb = T.last3; int kb = T.last3_kind, db = T.any3d;
        CHECK(ra == rb && ka == kb && da == db);
        if (ra == 0) {
            CHECK(memcmp(&a, &b, sizeof a) == 0);
            if (ka == 1 || ka == 2) CHECK(memcmp(&la, &lb, sizeof la) == 0);
        }
    }
    tk_gs_pop(&T);
    free(T.gs);
    free(T.node_hash);
    tk_optcache_free(&T);
}

int main(void)
{
    check_coordfast(0x9E3779B97F4A7C15ull, 300000);
    printf("test_coordfast: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
