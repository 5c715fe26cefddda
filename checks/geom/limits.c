/* limits.c — what the geom checks take on, and the work they may do
 * (limits.h). */
#include "checks/geom/limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/geom.h"
#include "checks/geom/scene_internal.h"

static int too_big(double v)
{
    return isfinite(v) && !(fabs(v) <= GEOM_MAX_COORD);
}

/* The first finite number in text v larger than GEOM_MAX_COORD, into *out
 * (the attributes' numbers: those that are not finite, their readers
 * refuse). */
static int attr_too_big(const char *v, double *out)
{
    while (v && *v) {
        char *end;
        double x = strtod(v, &end);
        if (end == v) {
            v++;
            continue;
        }
        if (too_big(x)) {
            *out = x;
            return 1;
        }
        v = end;
    }
    return 0;
}

const char *geom_admit(const ir_diagram *d, size_t *elem, char *buf, size_t n)
{
    *elem = (size_t)-1;
    if (d->nelems > GEOM_MAX_ELEMS) {
        snprintf(buf, n, "the diagram has %zu elements, more than the %d the geom checks take",
                 d->nelems, GEOM_MAX_ELEMS);
        return buf;
    }
    static const char *const keys[] = {"vertex", "of", "along", "xyz", "size"};
    size_t pieces = 0;
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        *elem = i;
        for (size_t k = 0; k < e->npts; k++) {
            double v = too_big(e->pts[k].x) ? e->pts[k].x : e->pts[k].y;
            if (too_big(v)) {
                snprintf(buf, n, "coordinate %g is beyond what the geom checks measure "
                         "(at most %g in magnitude)", v, GEOM_MAX_COORD);
                return buf;
            }
        }
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
            double v;
            if (attr_too_big(ir_elem_get(e, keys[k]), &v)) {
                snprintf(buf, n, "%s= holds %g, beyond what the geom checks measure "
                         "(at most %g in magnitude)", keys[k], v, GEOM_MAX_COORD);
                return buf;
            }
        }
        ir_kind k = e->kind;
        if (k == IR_POLY || k == IR_RECT || k == IR_ELLIPSE || k == IR_ARC || k == IR_CURVE)
            pieces += ir_elem_flatten_count(e);
        if (pieces > GEOM_MAX_PIECES) {
            snprintf(buf, n, "the drawn elements up to here make more than %d straight pieces, "
                     "more than the geom checks take", GEOM_MAX_PIECES);
            return buf;
        }
    }
    *elem = (size_t)-1;
    return NULL;
}

int geom_spend(const void *scene, unsigned long long n)
{
    scene_priv *p = scene_priv_of((const geom_scene *)scene);
    if (p->over) return 0;
    p->work += n;
    if (p->work > GEOM_MAX_WORK) p->over = 1;
    return !p->over;
}

size_t geom_ix_query(const void *scene, ir_box_index *x, ir_box q, size_t **buf, size_t *cap)
{
    if (scene_priv_of((const geom_scene *)scene)->over) return 0;
    size_t nn = ir_box_index_query(x, q, buf, cap);
    return geom_spend(scene, (unsigned long long)nn + 1) ? nn : 0;
}

const char *geom_overrun(const void *scene, char *buf, size_t n)
{
    const scene_priv *p = scene_priv_of((const geom_scene *)scene);
    if (!p->over) return NULL;
    snprintf(buf, n, "the geom checks would examine more than %llu pairs of elements "
             "(elements piled on one another in the thousands): no verdicts",
             (unsigned long long)GEOM_MAX_WORK);
    return buf;
}
