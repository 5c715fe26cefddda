/* Unit tests for two fast paths of the TikZ interpreter:
 * - grammar/tikzpath.c: coordinates such as (1,0) and (1,0,1); on random
 *   texts of digits, commas, spaces, signs and periods, coord_user with the
 *   fast path and the general reader without it give the same result, bit
 *   for bit (tk_coordfast_check);
 * - grammar/tikzopt.c: tk_eval's cache of values by text; on random
 *   expressions, tk_eval (cache cold, then warm) gives what pgfmath_eval
 *   gives (tk_evalcache_check). */
#include <stdio.h>

long tk_coordfast_check(unsigned long long seed, long iters);
long tk_evalcache_check(unsigned long long seed, long iters);

int main(void)
{
    long n = tk_coordfast_check(0x9E3779B97F4A7C15ull, 300000);
    if (n < 0) {
        printf("test_coordfast: the coordinate fast path differs from the general reader\n");
        return 1;
    }
    long m = tk_evalcache_check(0xD1B54A32D192ED03ull, 100000);
    if (m < 0) {
        printf("test_coordfast: tk_eval's cached value differs from pgfmath_eval\n");
        return 1;
    }
    printf("test_coordfast: %ld checks, 0 failures\n", n + m);
    return 0;
}
