/* ir_num.c — fast exact number parsing; see ir_num.h. */
#include "ir/ir_num.h"

#include <stdint.h>
#include <stdlib.h>

#include "ir/ir.h"

static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                             1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                             1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int is_dig(char c) { return (unsigned)(c - '0') < 10u; }

int ir_num_parse(const char *s, size_t len, double *out)
{
    if (s && len > 0) {
        size_t i = 0;
        int neg = 0;
        if (s[0] == '-' || s[0] == '+') neg = s[i++] == '-';
        unsigned long long m = 0;
        size_t d0 = i;
        while (i < len && is_dig(s[i])) m = m * 10 + (unsigned)(s[i++] - '0');
        size_t ndig = i - d0, frac = 0;
        if (i < len && s[i] == '.') {
            size_t f0 = ++i;
            while (i < len && is_dig(s[i])) m = m * 10 + (unsigned)(s[i++] - '0');
            frac = i - f0;
            ndig += frac;
        }
        /* [+-]? (D+ (. D*)? | . D+), at most 15 digits: ir_parse_num_n's
         * own exact short form, computed the same way */
        if (i == len && ndig > 0 && ndig <= 15) {
            double v = (double)m / p10[frac];
            if (out) *out = neg ? -v : v;
            return 1;
        }
    }
    return ir_parse_num_n(s, len, out);
}

double ir_num_strtod(const char *s, char **end)
{
    const char *p = s;
    int neg = 0;
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    unsigned long long m = 0;
    const char *d0 = p;
    while (is_dig(*p)) m = m * 10 + (unsigned)(*p++ - '0');
    size_t ndig = (size_t)(p - d0), frac = 0;
    if (*p == '.') {
        const char *f0 = ++p;
        while (is_dig(*p)) m = m * 10 + (unsigned)(*p++ - '0');
        frac = (size_t)(p - f0);
        ndig += frac;
    }
    /* an exponent, or letters (hex "0x", "inf", "nan" after a sign) that
     * strtod may read on: strtod itself */
    char c = *p;
    if (ndig == 0 || ndig > 15 || c == 'e' || c == 'E' || (c >= 'a' && c <= 'z') ||
        (c >= 'A' && c <= 'Z'))
        return strtod(s, end);
    *end = (char *)(uintptr_t)p;
    double v = (double)m / p10[frac];
    return neg ? -v : v;
}
