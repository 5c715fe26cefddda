/* Unit test for grammar/tikzopt.c's cache of tk_eval's values (by text and
 * font): on random texts of digits, units, operators, braces and spaces,
 * tk_eval with the cache cold, then warm, then under another font, gives what
 * pgfmath_eval gives on the unbraced text: return value, value bit for bit,
 * unit flag. */
#include "grammar/interp.h"
#include "grammar/pgfmath.h"
#include "tests/unit/check.h"
#include "tests/unit/xorshift.h"

#include <stdio.h>
#include <string.h>

static const char *const parts[] = {
    "0", "1", "2", "7", "12", ".5", "1.25", "-", "+", "*", "/", "(", ")", " ", "{", "}",
    "pt", "cm", "mm", "em", "ex", "in", "sin", "2^", "e3", "x", ",", "pi"
};

/* tk_eval's meaning: pgfmath_eval of the text without its spaces and braces around */
static int ref_eval(const char *s, size_t n, double *v, int *hu)
{
    tk_unbrace(&s, &n);
    if (n == 0) return -1;
    return pgfmath_eval(s, n, v, hu, NULL, 0) != 0 ? -1 : 0;
}

int main(void)
{
    static const double fonts[][2] = { { 10, 4.3 }, { 12, 5.2 } };
    tikz T;
    memset(&T, 0, sizeof T);
    uint64_t x = 0xD1B54A32D192ED03ull;
    for (long it = 0; it < 100000; it++) {
        char buf[64];
        size_t n = 0;
        int np = 1 + (int)(xorshift64(&x) % 6);
        for (int p = 0; p < np; p++) {
            const char *w = parts[xorshift64(&x) % (sizeof parts / sizeof *parts)];
            size_t wl = strlen(w);
            if (n + wl >= sizeof buf) break;
            memcpy(buf + n, w, wl);
            n += wl;
        }
        buf[n] = 0;
        for (int round = 0; round < 3; round++) {
            pgfmath_set_font(fonts[round / 2][0], fonts[round / 2][1]);
            double a = 0, b = 0;
            int ha = 0, hb = 0;
            int ra = tk_eval(&T, buf, n, &a, &ha);
            int rb = ref_eval(buf, n, &b, &hb);
            CHECK(ra == rb);
            if (ra == 0 && rb == 0) {
                CHECK(memcmp(&a, &b, sizeof a) == 0);
                CHECK(ha == hb);
            }
        }
    }
    tk_optcache_free(&T);
    printf("test_evalcache: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
