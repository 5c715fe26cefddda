/* ir_num.c — number parsing: the plain reference and the fast exact
 * short form; see ir_num.h. */
#include "ir/ir_num.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ir/xalloc.h"

const double ir_num_p10_[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* Length of the longest prefix of s (at most len bytes) that is a number in
 * the IR's grammar  [+-]? (D+ (. D*)? | . D+) ([eE] [+-]? D+)?  or 0. */
static size_t num_span(const char *s, size_t len)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') i++, digits++;
    }
    if (digits == 0) return 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1, ed = 0;
        if (j < len && (s[j] == '+' || s[j] == '-')) j++;
        while (j < len && s[j] >= '0' && s[j] <= '9') j++, ed++;
        if (ed) i = j;
    }
    return i;
}

int ir_num_parse_ref(const char *s, size_t len, double *out)
{
    if (!s || len == 0 || num_span(s, len) != len) return 0;
    /* s[0..len) is a complete decimal number: strtod (the programs only
     * ever run in the C locale) on a NUL-terminated copy */
    char small[64];
    char *t = len < sizeof small ? small : xmalloc(len + 1);
    memcpy(t, s, len);
    t[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(t, &end);
    int ok = end == t + len && isfinite(v);
    if (t != small) free(t);
    if (!ok) return 0;
    if (out) *out = v;
    return 1;
}

int ir_num_parse(const char *s, size_t len, double *out)
{
    if (s && len > 0) {
        size_t i = 0;
        int neg = 0;
        if (s[0] == '-' || s[0] == '+') neg = s[i++] == '-';
        unsigned long long m = 0;
        size_t d0 = i;
        while (i < len && ir_num_dig_(s[i])) m = m * 10 + (unsigned)(s[i++] - '0');
        size_t ndig = i - d0, frac = 0;
        if (i < len && s[i] == '.') {
            size_t f0 = ++i;
            while (i < len && ir_num_dig_(s[i])) m = m * 10 + (unsigned)(s[i++] - '0');
            frac = i - f0;
            ndig += frac;
        }
        /* [+-]? (D+ (. D*)? | . D+) with at most 15 digits: a whole
         * number below 10^15 over a power of ten of at most 15 is one
         * correctly rounded division, as strtod would round it */
        if (i == len && ndig > 0 && ndig <= 15) {
            double v = (double)m / ir_num_p10_[frac];
            if (out) *out = neg ? -v : v;
            return 1;
        }
    }
    return ir_num_parse_ref(s, len, out);
}


double ir_num_strtod(const char *s, char **end)
{
    return ir_num_strtod_inline(s, end);
}
