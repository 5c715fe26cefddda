/* Unit test for a fast path of the TikZ interpreter (tk_eval's cache of
 * values is tested by test_evalcache):
 * - grammar/tikzpath.c: coordinates such as (1,0) and (1,0,1); on random
 *   texts of digits, commas, spaces, signs and periods, coord_user with the
 *   fast path and the general reader without it give the same result, bit
 *   for bit (tk_coordfast_check). */
#include <stdio.h>

long tk_coordfast_check(unsigned long long seed, long iters);

int main(void)
{
    long n = tk_coordfast_check(0x9E3779B97F4A7C15ull, 300000);
    if (n < 0) {
        printf("test_coordfast: the coordinate fast path differs from the general reader\n");
        return 1;
    }
    printf("test_coordfast: %ld checks, 0 failures\n", n);
    return 0;
}
