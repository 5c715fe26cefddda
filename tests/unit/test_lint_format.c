/* test_lint_format.c — chk_set (checks/rubrics.c) formats the checks' usual
 * conversions (%s %d %zu %c %% %.0f %.1f %.2f) itself and hands the rest,
 * and numbers whose rounding it is not sure of, to vsnprintf. Its reason
 * must be what snprintf gives (cut to CHK_REASON_MAX - 1 bytes, tabs and
 * line breaks as spaces): random numbers of every size, halfway cases
 * (k + 1/2) / 10^N and their neighbours, -0.0, infinities, NaN, the
 * extremes of int and size_t, texts long enough to be cut, and formats
 * the fast path does not take. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "checks/rubric.h"
#include "tests/unit/check.h"
#include "tests/unit/xorshift.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static double uni(void)
{
    return (double)(xorshift64(&rng) >> 11) / 9007199254740992.0;
}

static double rnum(void)
{
    double u = uni();
    double x;
    if (u < 0.3) {
        /* a halfway case or its neighbour, at 0, 1 or 2 decimals */
        int prec = (int)(uni() * 3);
        double u1 = uni(), u2 = uni();   /* in this order on every compiler */
        double k = floor(u1 * pow(10.0, 1 + u2 * 8));
        x = (k + 0.5) / (prec == 0 ? 1 : prec == 1 ? 10 : 100);
        double w = uni();
        if (w < 0.3) x = nextafter(x, INFINITY);
        else if (w < 0.6) x = nextafter(x, -INFINITY);
    } else if (u < 0.8) {
        x = pow(10.0, -4 + 14 * uni());
    } else if (u < 0.9) {
        x = (double)(int64_t)(uni() * 2000) / 8.0;   /* exact binary fractions */
    } else {
        static const double special[] = {0.0, -0.0, 0.5, 1.5, 2.5, 0.25, 0.125, 0.05, 0.005,
                                         1e9, 999999999.5, 1e9 - 1, 1e8 + 0.05, DBL_MAX, DBL_MIN};
        x = special[(size_t)(uni() * (sizeof special / sizeof special[0]))];
        if (uni() < 0.05) x = uni() < 0.5 ? INFINITY : NAN;
    }
    return uni() < 0.3 ? -x : x;
}

/* What chk_set must give: snprintf's text, cut, with tabs and line breaks
 * as spaces. */
static void want(char *out, const char *txt)
{
    size_t n = strlen(txt);
    if (n > CHK_REASON_MAX - 1) n = CHK_REASON_MAX - 1;
    memcpy(out, txt, n);
    out[n] = '\0';
    for (char *p = out; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
}

int main(void)
{
    char big[2048], exp[CHK_REASON_MAX], txt[4096];
    chk_verdict v;
    for (int it = 0; it < 300000; it++) {
        double a = rnum(), b = rnum(), c = rnum();
        int d = (int)(xorshift64(&rng) >> 32);
        if (it % 97 == 0) d = it % 2 ? INT_MIN : INT_MAX;
        uint64_t z0 = xorshift64(&rng), z1 = xorshift64(&rng);
        size_t z = (size_t)(z0 >> (z1 % 64));
        if (it % 89 == 0) z = SIZE_MAX;
        char ch = (char)(32 + xorshift64(&rng) % 95);
        if (it % 13 == 0) ch = '\t';
        size_t nb = (size_t)(uni() * (it % 10 == 0 ? 600 : 40));
        for (size_t i = 0; i < nb; i++) big[i] = (char)(32 + xorshift64(&rng) % 95);
        if (nb > 3 && it % 7 == 0) big[nb / 2] = '\n';
        big[nb] = '\0';
        switch (it % 6) {
        case 0:
            snprintf(txt, sizeof txt, "text \"%s\" is %.1fpt off (line %d), %.0f%%", big, a, d, b);
            chk_set(&v, CHK_NO, 3, "text \"%s\" is %.1fpt off (line %d), %.0f%%", big, a, d, b);
            break;
        case 1:
            snprintf(txt, sizeof txt, "%zu labels: %.2f x %.2f, the %c one %.0f", z, a, b, ch, c);
            chk_set(&v, CHK_NO, 3, "%zu labels: %.2f x %.2f, the %c one %.0f", z, a, b, ch, c);
            break;
        case 2:
            snprintf(txt, sizeof txt, "%.0f x %.0fpt, %s%.1f", a, b, big, c);
            chk_set(&v, CHK_YES, 0, "%.0f x %.0fpt, %s%.1f", a, b, big, c);
            break;
        case 3:
            /* conversions the fast path leaves to vsnprintf */
            snprintf(txt, sizeof txt, "%d %.3f %s %g", d, a, big, b);
            chk_set(&v, CHK_YES, 0, "%d %.3f %s %g", d, a, big, b);
            break;
        case 4:
            snprintf(txt, sizeof txt, "%s: %.1f%%, %.30s|%d", big, a, big, d);
            chk_set(&v, CHK_NO, 1, "%s: %.1f%%, %.30s|%d", big, a, big, d);
            break;
        default:
            snprintf(txt, sizeof txt, "%.2f%.1f%.0f%s%d", a, b, c, big, d);
            chk_set(&v, CHK_NO, 1, "%.2f%.1f%.0f%s%d", a, b, c, big, d);
            break;
        }
        want(exp, txt);
        CHECK(strcmp(v.reason, exp) == 0);
        if (failures && failures < 5 && strcmp(v.reason, exp) != 0)
            fprintf(stderr, "  got  '%s'\n  want '%s'\n", v.reason, exp);
    }
    printf("test_lint_format: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
