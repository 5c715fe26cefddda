/* test_num.c — ir/ir_num.h against the reference parsers: ir_num_parse
 * (which is ir_parse_num_n) must give what ir_num_parse_ref gives
 * (accepts the same strings, the same bits), ir_num_strtod what strtod
 * gives (value bits and end), on edge
 * cases and on many random strings. */
#include "ir/ir.h"
#include "tests/unit/xorshift.h"
#include "ir/ir_num.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

static uint64_t bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static void compare(const char *s, size_t len)
{
    double a = 12345.0, b = 12345.0;
    int ra = ir_num_parse(s, len, &a), rb = ir_num_parse_ref(s, len, &b);
    checks++;
    if (ra != rb || (ra && bits(a) != bits(b))) {
        failures++;
        fprintf(stderr, "ir_num_parse(\"%.*s\"): %d %.17g, ir_num_parse_ref: %d %.17g\n", (int)len,
                s, ra, a, rb, b);
    }
    /* and without an output */
    checks++;
    if (ir_num_parse(s, len, NULL) != rb) {
        failures++;
        fprintf(stderr, "ir_num_parse(\"%.*s\", NULL) differs\n", (int)len, s);
    }
    /* strtod on the NUL-terminated copy */
    char buf[128];
    if (len >= sizeof buf) return;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *ea, *eb;
    double x = ir_num_strtod(buf, &ea), y = strtod(buf, &eb);
    checks++;
    if (ea != eb || bits(x) != bits(y)) {
        failures++;
        fprintf(stderr, "ir_num_strtod(\"%s\"): %.17g end %td, strtod: %.17g end %td\n", buf, x,
                ea - buf, y, eb - buf);
    }
}

static void compare_str(const char *s)
{
    compare(s, strlen(s));
}

static uint64_t rng = 88172645463325252ULL;
static unsigned rnd(unsigned n)
{
    return (unsigned)(xorshift64(&rng) % n);
}

int main(void)
{
    static const char *const edge[] = {
        "", "0", "-0", "+0", "0.", ".0", ".", "-", "+", "-.", "1", "-1", "+1", "1.5", "-1.5",
        "144.54", "-36.135", "424.755", "0.001", "-0.001", "000001", "00.100", "1.",
        "123456789012345", "1234567890123456", "12345678901234567", "999999999999999",
        "9999999999999999", "0.123456789012345", "0.1234567890123456", "1.23456789012345",
        "-999999999999999.", ".999999999999999", ".9999999999999999", "100000000000000.0",
        "9007199254740993", "9007199254740992.5", "1e5", "1E5", "1e", "1e+", "1e-5", "1.5e300",
        "1e400", "1e-400", "-1e400", "0x10", "0X1p3", "inf", "-inf", "nan", "infinity", "1.5.3",
        "1..5", "--1", "+-1", " 1", "1 ", "1,2", "1;2", "1a", "1z", "1Z", "1_", "1.5x", "0.5e",
        "4.9406564584124654e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
        "0.1", "0.2", "0.3", "0.7", "2.675", "1.005", "1234.5678", "89.999", "-0.0", "0.000",
        "3.14159265358979", "2.71828182845904", "0.000000000000001", "0.0000000000000001",
    };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) compare_str(edge[i]);

    /* random strings over the characters numbers are made of */
    static const char alpha[] = "0123456789012345678901234567890123456789..--++eEx, a";
    char buf[64];
    for (int it = 0; it < 300000; it++) {
        size_t len = 1 + rnd(24);
        for (size_t k = 0; k < len; k++) buf[k] = alpha[rnd(sizeof alpha - 1)];
        buf[len] = '\0';
        compare(buf, len);
        /* a prefix of it, not NUL-terminated at its end */
        compare(buf, rnd((unsigned)len + 1));
    }
    /* random well-formed numbers, as the IR writer and others write them */
    for (int it = 0; it < 300000; it++) {
        size_t k = 0;
        int r = (int)rnd(4);
        if (r == 0) buf[k++] = '-';
        else if (r == 1 && rnd(4) == 0) buf[k++] = '+';
        size_t ni = rnd(12), nf = rnd(12);
        for (size_t j = 0; j < ni; j++) buf[k++] = (char)('0' + rnd(10));
        if (nf || rnd(3) == 0) buf[k++] = '.';
        for (size_t j = 0; j < nf; j++) buf[k++] = (char)('0' + rnd(10));
        if (rnd(10) == 0) {
            buf[k++] = rnd(2) ? 'e' : 'E';
            if (rnd(2)) buf[k++] = rnd(2) ? '-' : '+';
            size_t ne = rnd(4);
            for (size_t j = 0; j < ne; j++) buf[k++] = (char)('0' + rnd(10));
        }
        buf[k] = '\0';
        compare(buf, k);
    }
    /* writer output: every value ir_fmt_num gives reads back the same way */
    for (int it = 0; it < 200000; it++) {
        double v = ((double)rnd(2000000000u) - 1e9) / (double)(1u << rnd(20));
        char out[40];
        ir_fmt_num(out, v);
        compare_str(out);
    }
    if (failures) {
        fprintf(stderr, "test_num: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_num: %d checks passed\n", checks);
    return 0;
}
