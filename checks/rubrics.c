/* rubrics.c — the table of rubrics and their checks. */
#include "checks/rubric.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/limits.h"
#include "checks/geom/request_llm.h"

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

/* The scene, and the request parsed into memory that lives with it. */
static void *geom_prepare(const ir_diagram *d, const char *request)
{
    geom_scene *s = geom_scene_build(d);
    if (s && request) {
        geom_request *r = geom_scene_alloc(s, sizeof *r);
        geom_request_read(request, r);
        s->req = r;
    }
    return s;
}
static void geom_release(void *ctx) { geom_scene_free(ctx); }

static const chk_rubric rubrics[] = {
    {"geom", "DiagramIR geometry-diagram rubric (Kumar et al., 2025)", geom_checks,
     sizeof geom_checks / sizeof geom_checks[0], geom_prepare, geom_release, geom_admit,
     geom_overrun, geom_params, GEOM_NPARAMS},
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

const chk_param *chk_param_find(const chk_rubric *r, const char *name)
{
    for (size_t i = 0; i < r->nparams; i++)
        if (strcmp(r->params[i].name, name) == 0) return &r->params[i];
    return NULL;
}

int chk_param_set(const chk_rubric *r, const char *assignment, char *err, size_t errlen)
{
    size_t n = strcspn(assignment, "= \t");
    char name[64];
    if (n == 0 || n >= sizeof name || !assignment[n]) {
        snprintf(err, errlen, "'%s': expected NAME=VALUE", assignment);
        return -1;
    }
    memcpy(name, assignment, n);
    name[n] = 0;
    const char *val = assignment + n + strspn(assignment + n, "= \t");
    const chk_param *p = chk_param_find(r, name);
    if (!p) {
        snprintf(err, errlen, "rubric %s has no parameter '%s' (see irlint --list-params)",
                 r->name, name);
        return -1;
    }
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    while (*end == ' ' || *end == '\t') end++;
    if (end == val || *end || errno == ERANGE || !isfinite(v)) {
        snprintf(err, errlen, "parameter %s: '%s' is not a number", name, val);
        return -1;
    }
    if (v < p->lo || v > p->hi) {
        snprintf(err, errlen, "parameter %s: %g is outside [%g, %g]", name, v, p->lo, p->hi);
        return -1;
    }
    *p->value = v;
    return 0;
}

void chk_set(chk_verdict *v, chk_value value, int line, const char *fmt, ...)
{
    va_list ap;
    v->value = value;
    v->line = line;
    v->nblame = 0;
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
    /* one line: tabs and line breaks become spaces */
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
