/* rubrics.c — the table of rubrics and their checks. */
#include "checks/rubric.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checks/geom/geom.h"

static const chk_check geom_checks[] = {
    {"angle-labels", "Labeled angles (if any) match the drawn angle.", 1, geom_angle_labels},
    {"length-proportions", "Labeled lengths and areas (if any) match visual proportions.", 1,
     geom_length_proportions},
    {"in-frame", "The diagram is fully in frame (nothing clipped or cut off).", 1, geom_in_frame},
    {"readable-size", "Diagram elements are scaled to be readable.", 1, geom_readable_size},
    {"label-association", "Labels (if any) are associated with the correct elements.", 1,
     geom_label_association},
    {"no-overlap", "Diagram elements don't problematically overlap.", 1, geom_no_overlap},
    {"shape-closed", "The shape(s) are closed.", 0, geom_shape_closed},
    {"core-math", "Core math properties of the shape(s) are correct.", 0, geom_core_math},
};

static void *geom_prepare(const ir_diagram *d) { return geom_scene_build(d); }
static void geom_release(void *ctx) { geom_scene_free(ctx); }

static const chk_rubric rubrics[] = {
    {"geom", "DiagramIR geometry-diagram rubric (Kumar et al., 2025)", geom_checks,
     sizeof geom_checks / sizeof geom_checks[0], geom_prepare, geom_release},
};

const chk_rubric *chk_rubric_find(const char *name)
{
    for (size_t i = 0; i < sizeof rubrics / sizeof rubrics[0]; i++)
        if (strcmp(rubrics[i].name, name) == 0) return &rubrics[i];
    return NULL;
}

const chk_rubric *chk_rubric_at(size_t i)
{
    return i < sizeof rubrics / sizeof rubrics[0] ? &rubrics[i] : NULL;
}

int chk_rubric_index(const chk_rubric *r, const char *criterion)
{
    for (size_t i = 0; i < r->nchecks; i++)
        if (strcmp(r->checks[i].name, criterion) == 0) return (int)i;
    return -1;
}

/* The bytes vsnprintf(out, cap, fmt, ap) writes, for formats of the
 * checks' usual conversions only: %s (not NULL), %d, %zu, %c, %% and %.Nf
 * with N 0 to 2 whose rounding is certain. Returns 0, having perhaps
 * written part of out and taken arguments from *ap, for anything else;
 * the caller then runs vsnprintf on a copy of the arguments.
 *
 * %.Nf: glibc prints the exact binary value rounded to N decimals (ties
 * to even), with a '-' for every negative value and -0.0. Here a = |x|
 * 10^N as computed is within 2^-53 a (< 1.2e-7 below 1e9) of the exact
 * product, so when its fraction is at least 1e-6 away from one half the
 * exact product rounds to the same integer (near an integer both round
 * to it); else, and for |x| 10^N of 1e9 or more, or not finite: 0. */
static int fast_format(char *out, size_t cap, const char *fmt, va_list *ap)
{
    size_t o = 0;
#define PUT(p_, n_)                                                             \
    do {                                                                        \
        size_t n__ = (n_);                                                      \
        const char *p__ = (p_);                                                 \
        for (size_t i__ = 0; i__ < n__; i__++, o++)                             \
            if (o + 1 < cap) out[o] = p__[i__];                                 \
    } while (0)
    char num[40];
    for (const char *f = fmt;;) {
        const char *pct = strchr(f, '%');
        if (!pct) {
            PUT(f, strlen(f));
            break;
        }
        PUT(f, (size_t)(pct - f));
        f = pct + 1;
        if (*f == 's') {
            const char *str = va_arg(*ap, const char *);
            if (!str) return 0;
            PUT(str, strlen(str));
            f++;
        } else if (*f == '%') {
            PUT("%", 1);
            f++;
        } else if (*f == 'c') {
            char c = (char)va_arg(*ap, int);
            PUT(&c, 1);
            f++;
        } else if (*f == 'd' || (f[0] == 'z' && f[1] == 'u')) {
            int neg = 0;
            unsigned long long u;
            if (*f == 'd') {
                long long d = va_arg(*ap, int);
                neg = d < 0;
                u = (unsigned long long)(neg ? -d : d);
                f++;
            } else {
                u = va_arg(*ap, size_t);
                f += 2;
            }
            size_t k = sizeof num;
            do num[--k] = (char)('0' + u % 10); while ((u /= 10) > 0);
            if (neg) num[--k] = '-';
            PUT(num + k, sizeof num - k);
        } else if (f[0] == '.' && f[1] >= '0' && f[1] <= '2' && f[2] == 'f') {
            int prec = f[1] - '0';
            double x = va_arg(*ap, double);
            double a = fabs(x) * (prec == 0 ? 1.0 : prec == 1 ? 10.0 : 100.0);
            if (!(a < 1e9)) return 0;
            double fl = floor(a), fr = a - fl;
            if (fabs(fr - 0.5) < 1e-6) return 0;
            unsigned long long u = (unsigned long long)fl + (fr > 0.5);
            size_t k = sizeof num;
            for (int i = 0; i < prec; i++, u /= 10) num[--k] = (char)('0' + u % 10);
            if (prec) num[--k] = '.';
            do num[--k] = (char)('0' + u % 10); while ((u /= 10) > 0);
            if (signbit(x)) num[--k] = '-';
            PUT(num + k, sizeof num - k);
            f += 3;
        } else {
            return 0;
        }
    }
#undef PUT
    if (cap) out[o < cap ? o : cap - 1] = '\0';
    return 1;
}

void chk_set(chk_verdict *v, chk_value value, int line, const char *fmt, ...)
{
    va_list ap;
    v->value = value;
    v->line = line;
    /* a format without conversions, or just "%s": the text itself, cut as
     * vsnprintf would cut it */
    const char *text = NULL;
    va_start(ap, fmt);
    if (fmt[0] == '%' && fmt[1] == 's' && fmt[2] == '\0') text = va_arg(ap, const char *);
    else if (!strchr(fmt, '%')) text = fmt;
    if (text) {
        size_t n = strlen(text);
        if (n > sizeof v->reason - 1) n = sizeof v->reason - 1;
        memcpy(v->reason, text, n);
        v->reason[n] = '\0';
    } else {
        va_list ap2;
        va_copy(ap2, ap);
        if (!fast_format(v->reason, sizeof v->reason, fmt, &ap2))
            vsnprintf(v->reason, sizeof v->reason, fmt, ap);
        va_end(ap2);
    }
    va_end(ap);
    /* tabs and line breaks become spaces (strpbrk: the library's scan of
     * the usually clean text) */
    for (char *p = strpbrk(v->reason, "\t\n\r"); p; p = strpbrk(p + 1, "\t\n\r")) *p = ' ';
}

const char *chk_value_name(chk_value v)
{
    switch (v) {
    case CHK_YES: return "yes";
    case CHK_NO: return "no";
    default: return "na";
    }
}
