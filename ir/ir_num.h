/* ir_num.h — fast decimal number parsing with the exact results of the
 * slower reference functions (the IR reader and irlint's scene use them).
 *
 * Both take the common short forms ([+-]digits[.digits], at most 15
 * digits, no exponent) on a fast exact path: a whole number below 10^15
 * over a power of ten of at most 15 is exact in binary, so one division
 * rounds it correctly, as strtod does. Every other input goes to the
 * reference function itself (tests/unit/test_num.c checks the functions
 * against the references). ir_num_strtod_inline is ir_num_strtod's body,
 * and the scan helpers its parts, for callers that read many numbers. */
#ifndef DIAGRAMIR_IR_NUM_H
#define DIAGRAMIR_IR_NUM_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ir/ir.h"

/* ir_parse_num_n (ir.h) is ir_num_parse: 1 and *out (may be NULL) when
 * all of s[0..len) is an IR number, else 0. ir_num_parse_ref is the plain
 * reference (the grammar checked, then strtod) that ir_num_parse takes
 * every input but the short forms to. */
int ir_num_parse(const char *s, size_t len, double *out);
int ir_num_parse_ref(const char *s, size_t len, double *out);

/* Exactly strtod(s, end) in the C locale (end may not be NULL). */
double ir_num_strtod(const char *s, char **end);

extern const double ir_num_p10_[16];

static inline int ir_num_dig_(char c) { return (unsigned)(c - '0') < 10u; }

/* The digits at p added to *m (modulo 2^64); returns the first byte after
 * them. */
static inline const char *ir_num_digits_(const char *p, unsigned long long *m)
{
    unsigned long long v = *m;
    while (ir_num_dig_(*p)) v = v * 10 + (unsigned)(*p++ - '0');
    *m = v;
    return p;
}

/* The short form's scan at p (NUL-terminated text): [+-]? then digits with
 * at most one '.'; m gets all the digits as one integer (exact while
 * *ndig <= 19), *ndig their number, *frac those after the '.'. Returns the
 * first byte after them. The value, when 0 < *ndig <= 15, is
 * ir_num_value_(neg, m, frac). */
static inline const char *ir_num_scan_(const char *p, int *neg, unsigned long long *m,
                                       size_t *ndig, size_t *frac)
{
    *neg = 0;
    if (*p == '-' || *p == '+') *neg = *p++ == '-';
    unsigned long long v = 0;
    const char *d0 = p;
    p = ir_num_digits_(p, &v);
    size_t nd = (size_t)(p - d0), fr = 0;
    if (*p == '.') {
        const char *f0 = ++p;
        p = ir_num_digits_(p, &v);
        fr = (size_t)(p - f0);
        nd += fr;
    }
    *m = v;
    *ndig = nd;
    *frac = fr;
    return p;
}

static inline double ir_num_value_(int neg, unsigned long long m, size_t frac)
{
    double v = (double)m / ir_num_p10_[frac];
    return neg ? -v : v;
}

static inline double ir_num_strtod_inline(const char *s, char **end)
{
    int neg;
    unsigned long long m;
    size_t ndig, frac;
    const char *p = ir_num_scan_(s, &neg, &m, &ndig, &frac);
    /* an exponent, or letters (hex "0x", "inf", "nan" after a sign) that
     * strtod may read on: strtod itself */
    char c = *p;
    if (ndig == 0 || ndig > 15 || c == 'e' || c == 'E' || (c >= 'a' && c <= 'z') ||
        (c >= 'A' && c <= 'Z'))
        return strtod(s, end);
    *end = (char *)(uintptr_t)p;
    return ir_num_value_(neg, m, frac);
}

#endif
