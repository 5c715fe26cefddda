/* ir_json.c — the IR as JSON (one object per diagram, one per line), for jq
 * users: the same content as the text form. */
#include "ir/ir.h"

#include <cjson/cJSON.h>
#include <stdlib.h>

/* numbers as the text writer formats them (the same content) */
static cJSON *num(double v)
{
    char b[32];
    return cJSON_CreateRaw(ir_fmt_num(b, v));
}

static cJSON *attrs_json(const ir_attr *a, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < n; i++) cJSON_AddStringToObject(o, a[i].key, a[i].val ? a[i].val : "");
    return o;
}

static cJSON *elem_json(const ir_elem *e)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", ir_kind_name(e->kind));
    if (e->kind == IR_CLIP) cJSON_AddStringToObject(o, "shape", ir_kind_name(e->sub));
    if (e->kind == IR_POLY || (e->kind == IR_CLIP && e->sub == IR_POLY))
        cJSON_AddBoolToObject(o, "closed", e->closed);
    if (e->kind == IR_EDGE) cJSON_AddBoolToObject(o, "undirected", e->undirected);
    if (e->npts) {
        cJSON *pts = cJSON_AddArrayToObject(o, "points");
        for (size_t i = 0; i < e->npts; i++) {
            cJSON *p = cJSON_CreateArray();
            cJSON_AddItemToArray(p, num(e->pts[i].x));
            cJSON_AddItemToArray(p, num(e->pts[i].y));
            cJSON_AddItemToArray(pts, p);
        }
    }
    if (e->kind == IR_ARC) {
        cJSON_AddItemToObject(o, "t1", num(e->t1));
        cJSON_AddItemToObject(o, "t2", num(e->t2));
    }
    if (e->name)
        cJSON_AddStringToObject(o, e->kind == IR_EDGE ? "from" : e->kind == IR_FINDING ? "criterion" : "name",
                                e->name);
    if (e->str)
        cJSON_AddStringToObject(o, e->kind == IR_EDGE ? "to" : e->kind == IR_FINDING ? "reason" : "text", e->str);
    if (e->raw) cJSON_AddStringToObject(o, "raw", e->raw);
    if (e->nattrs) cJSON_AddItemToObject(o, "attrs", attrs_json(e->attrs, e->nattrs));
    if (e->line > 0) cJSON_AddNumberToObject(o, "line", e->line);
    return o;
}

int ir_write_json(FILE *f, const ir_diagram *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "diagram", d->id ? d->id : "");
    if (d->nattrs) cJSON_AddItemToObject(o, "attrs", attrs_json(d->attrs, d->nattrs));
    cJSON_AddStringToObject(o, "unit", d->unit ? d->unit : "pt");
    if (d->has_bbox) {
        cJSON *b = cJSON_AddArrayToObject(o, "bbox");
        for (int i = 0; i < 4; i++) cJSON_AddItemToArray(b, num(d->bbox[i]));
    }
    cJSON *els = cJSON_AddArrayToObject(o, "elements");
    for (size_t i = 0; i < d->nelems; i++) cJSON_AddItemToArray(els, elem_json(&d->elems[i]));
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!s) return -1;
    fputs(s, f);
    fputc('\n', f);
    free(s);
    return 0;
}
