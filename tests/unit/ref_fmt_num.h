/* ref_fmt_num.h — the number formatter of the previous IR writer,
 * verbatim (llround + snprintf): the reference test_ir_fmt and
 * test_ir_numcache compare ir_write.c's formatting and its cache with. */
#ifndef DIAGRAMIR_TESTS_REF_FMT_NUM_H
#define DIAGRAMIR_TESTS_REF_FMT_NUM_H
#include <math.h>
#include <stdio.h>
#include <string.h>

static char *ref_fmt_num(char *buf, double v)
{
    if (isnan(v)) {
        strcpy(buf, "nan");
        return buf;
    }
    if (isinf(v)) {
        strcpy(buf, v < 0 ? "-inf" : "inf");
        return buf;
    }
    if (fabs(v) < 1e9) {
        /* Fast path (the writer's hot spot): v rounded to thousandths in
         * integer arithmetic, half away from zero. */
        long long r = llround(v * 1000.0);
        char tmp[32];
        int n = 0, neg = r < 0;
        unsigned long long u = neg ? (unsigned long long)(-r) : (unsigned long long)r;
        unsigned frac = (unsigned)(u % 1000);
        unsigned long long ip = u / 1000;
        char *p = buf;
        if (neg && u != 0) *p++ = '-';
        do { tmp[n++] = (char)('0' + ip % 10); ip /= 10; } while (ip);
        while (n) *p++ = tmp[--n];
        if (frac) {
            *p++ = '.';
            *p++ = (char)('0' + frac / 100);
            if (frac % 100) {
                *p++ = (char)('0' + frac / 10 % 10);
                if (frac % 10) *p++ = (char)('0' + frac % 10);
            }
        }
        *p = 0;
        return buf;
    }
    if (fabs(v) < 1e12) {
        /* At most 12 + 3 significant digits: reading this back gives a
         * double that prints as the same text (DBL_DIG is 15). */
        snprintf(buf, 32, "%.3f", v);
        char *dot = strchr(buf, '.');
        if (dot) {
            char *end = buf + strlen(buf);
            while (end > dot + 1 && end[-1] == '0') *--end = '\0';
            if (end == dot + 1) *dot = '\0';
        }
    } else {
        snprintf(buf, 32, "%.15g", v);
    }
    if (strcmp(buf, "-0") == 0) strcpy(buf, "0");
    return buf;
}

#endif
