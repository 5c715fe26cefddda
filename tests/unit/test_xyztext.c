/* Unit test for the xyz= texts of 3D points (grammar/emit.c): through
 * the cache of texts by the point's bits, tk_xyz_text_cached writes what
 * tk_xyz_text (the plain formatting) writes, on random points drawn from a
 * pool small enough to repeat and large enough to make slots collide, with
 * -0, integers, halves and long fractions among them. */
#include "grammar/interp.h"
#include "tests/unit/check.h"
#include "tests/unit/xorshift.h"

#include <stdlib.h>
#include <string.h>

static double random_coord(uint64_t *s)
{
    switch (xorshift64(s) % 5) {
    case 0: return -0.0;
    case 1: return (double)(int)(xorshift64(s) % 41) - 20;
    case 2: return ((double)(int)(xorshift64(s) % 81) - 40) / 2;
    case 3: return ((double)(xorshift64(s) % 2000001) - 1000000) / 3e3;
    default: return ((double)(xorshift64(s) % 1000) - 500) * 1e-7;
    }
}

int main(void)
{
    uint64_t s = 0x5DEECE66Dull;
    enum { POOL = 700 };
    vec3 pool[POOL];
    for (int i = 0; i < POOL; i++)
        pool[i] = (vec3){ random_coord(&s), random_coord(&s), random_coord(&s) };
    struct tk_xyzcache *c = calloc(1, sizeof *c);
    for (long it = 0; it < 200000; it++) {
        vec3 p = pool[xorshift64(&s) % POOL];
        char want[TK_XYZ_MAX + 1], got[TK_XYZ_MAX + 1];
        size_t wl = tk_xyz_text(want, p);
        size_t gl = tk_xyz_text_cached(c, got, p);
        CHECK(wl == strlen(want) && wl <= TK_XYZ_MAX);
        CHECK(gl == wl && strcmp(got, want) == 0);
    }
    free(c);
    printf("test_xyztext: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
