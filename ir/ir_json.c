/* ir_json.c — the IR as JSON Lines (one object per diagram, one per line),
 * for jq users: the same content as the text form, read back by the same
 * reader (ir_read.c hands it every line that starts with '{' outside a
 * diagram). The form is specified in diagramir-formats(5).
 *
 * Numbers are JSON numbers written as the text writer writes them (so the
 * same diagram gives the same digits in both forms); the attributes whose
 * meaning diagramir(5) fixes as numbers (lw=, size=, ...) or points (at=,
 * of=, ...) are numbers and arrays of numbers, every other attribute a
 * string. A value that is not in the writer's canonical number form stays
 * a string, so that text -> JSON -> text gives back the same bytes. */
#include "ir/ir_internal.h"
#include "ir/xalloc.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* numbers as the text writer formats them (the same content) */
static cJSON *num(double v)
{
    char b[32];
    return cJSON_CreateRaw(ir_fmt_num(b, v));
}

/* --- typed attributes ------------------------------------------------------ */

/* Attributes diagramir(5) defines as one number, and as a list of numbers
 * "X,Y[,...]" (xyz= is "X,Y,Z;X,Y,Z;...": a list of such lists). */
static const char *const num_keys[] = {
    "lw", "size", "pos", "opacity", "draw-opacity", "fill-opacity", "rotate", "line", NULL,
};
static const char *const list_keys[] = { "at", "of", "vertex", "along", NULL };

static int in(const char *const *set, const char *key)
{
    for (; *set; set++)
        if (!strcmp(*set, key)) return 1;
    return 0;
}

/* s[0..n) as a canonical number (ir_fmt_num gives back the same bytes):
 * the number, else NULL. */
static cJSON *canon_num(const char *s, size_t n)
{
    double v;
    char b[32];
    if (n == 0 || n >= 32 || !ir_parse_num_n(s, n, &v)) return NULL;
    ir_fmt_num(b, v);
    if (strlen(b) != n || memcmp(b, s, n) != 0) return NULL;
    return cJSON_CreateRaw(b);
}

/* s[0..n) as a list of canonical numbers separated by sep, else NULL. */
static cJSON *num_list(const char *s, size_t n, char sep)
{
    cJSON *a = cJSON_CreateArray();
    const char *end = s + n;
    for (;;) {
        const char *q = memchr(s, sep, (size_t)(end - s));
        if (!q) q = end;
        cJSON *v = canon_num(s, (size_t)(q - s));
        if (!v) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, v);
        if (q == end) return a;
        s = q + 1;
    }
}

static cJSON *attr_value(const char *key, const char *val)
{
    size_t n = strlen(val);
    cJSON *v = NULL;
    if (in(num_keys, key)) {
        v = canon_num(val, n);
    } else if (in(list_keys, key)) {
        v = num_list(val, n, ',');
    } else if (!strcmp(key, "xyz")) {
        v = cJSON_CreateArray();
        const char *s = val, *end = val + n;
        for (;;) {
            const char *q = memchr(s, ';', (size_t)(end - s));
            if (!q) q = end;
            cJSON *p = num_list(s, (size_t)(q - s), ',');
            if (!p) {
                cJSON_Delete(v);
                v = NULL;
                break;
            }
            cJSON_AddItemToArray(v, p);
            if (q == end) break;
            s = q + 1;
        }
    }
    return v ? v : cJSON_CreateString(val);
}

static cJSON *attrs_json(const ir_attr *a, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToObject(o, a[i].key, attr_value(a[i].key, a[i].val ? a[i].val : ""));
    return o;
}

/* --- writer -------------------------------------------------------------- */

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
    cJSON_AddStringToObject(o, "item", d->id ? d->id : "");
    if (d->nattrs) cJSON_AddItemToObject(o, "attrs", attrs_json(d->attrs, d->nattrs));
    if (d->unit) cJSON_AddStringToObject(o, "unit", d->unit);
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

/* --- reader -------------------------------------------------------------- */

/* Where a value sits in the line: the path to it (object keys and array
 * indexes) is walked again over the text, which cJSON has accepted, so
 * that an error names the column of the value it is about. */
typedef struct {
    const char *key;  /* NULL: an array index */
    int idx;          /* the index; for a key, how many earlier members of that key to pass */
} step;

typedef struct {
    const char *s, *end;
    step path[6];
    int depth;
    int col;          /* the error's column */
    char *msg;
    size_t msgsz;
    int lineno;
} jctx;

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* Past the JSON value at p (valid JSON). */
static const char *skip_value(const char *p, const char *end)
{
    if (p >= end) return end;
    if (*p == '"') {
        for (p++; p < end && *p != '"'; p++)
            if (*p == '\\') p++;
        return p < end ? p + 1 : end;
    }
    if (*p == '{' || *p == '[') {
        int nest = 0;
        for (; p < end; p++) {
            if (*p == '"') {
                p = skip_value(p, end) - 1;
            } else if (*p == '{' || *p == '[') {
                nest++;
            } else if (*p == '}' || *p == ']') {
                if (--nest == 0) return p + 1;
            }
        }
        return end;
    }
    while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\t') p++;
    return p;
}

/* The byte offset of the value at the path's first n steps, or of the
 * deepest one found. */
static size_t locate(const jctx *c, int n)
{
    const char *p = skip_ws(c->s, c->end), *found = p;
    for (int k = 0; k < n && p < c->end; k++) {
        const step *st = &c->path[k];
        if (st->key ? *p != '{' : *p != '[') break;
        p = skip_ws(p + 1, c->end);
        int i = 0, hit = 0, passed = 0;
        while (p < c->end && *p != '}' && *p != ']') {
            if (st->key) {
                const char *k0 = p + 1, *k1 = skip_value(p, c->end) - 1;
                p = skip_ws(k1 + 1, c->end);
                if (p < c->end && *p == ':') p = skip_ws(p + 1, c->end);
                if ((size_t)(k1 - k0) == strlen(st->key) && !memcmp(k0, st->key, (size_t)(k1 - k0)) &&
                    passed++ == st->idx)
                    hit = 1;
            } else if (i == st->idx) {
                hit = 1;
            }
            if (hit) break;
            p = skip_ws(skip_value(p, c->end), c->end);
            if (p < c->end && *p == ',') p = skip_ws(p + 1, c->end);
            i++;
        }
        if (!hit) break;
        found = p;
    }
    return (size_t)(found - c->s);
}

static void path_text(const jctx *c, char *b, size_t n)
{
    size_t o = 0;
    b[0] = '\0';
    for (int k = 0; k < c->depth && o < n; k++) {
        if (c->path[k].key)
            o += (size_t)snprintf(b + o, n - o, "%s%s", o ? "." : "", c->path[k].key);
        else
            o += (size_t)snprintf(b + o, n - o, "[%d]", c->path[k].idx);
    }
}

static int jfail(jctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The error about the value at the current path: "PATH: MESSAGE". */
static int jfail(jctx *c, const char *fmt, ...)
{
    char what[400], where[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    path_text(c, where, sizeof where);
    c->col = (int)locate(c, c->depth) + 1;
    snprintf(c->msg, c->msgsz, "%s%s%s", where, *where ? ": " : "", what);
    return -1;
}

static void push_key(jctx *c, const char *key)
{
    c->path[c->depth].key = key;
    c->path[c->depth++].idx = 0;
}

static void push_idx(jctx *c, int i)
{
    c->path[c->depth].key = NULL;
    c->path[c->depth++].idx = i;
}

static int jnum(jctx *c, const cJSON *v, const char *key, double *out)
{
    push_key(c, key);
    if (!cJSON_IsNumber(v)) return jfail(c, "expected a number");
    if (!isfinite(v->valuedouble)) return jfail(c, "number out of range");
    *out = v->valuedouble;
    c->depth--;
    return 0;
}

static int valid_key(const char *k)
{
    if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || *k == '_')) return 0;
    for (k++; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
              *k == '_' || *k == '-' || *k == '.' || *k == ':'))
            return 0;
    return 1;
}

/* An attribute's JSON value as its text: a string as it is, a number as
 * the writer writes it, an array of numbers joined with ',', an array of
 * such arrays joined with ';'. Malloc'd, or NULL after jfail. */
static char *attr_text(jctx *c, const cJSON *v)
{
    char b[32];
    if (cJSON_IsString(v)) return xstrdup(v->valuestring);
    if (cJSON_IsNumber(v)) {
        if (!isfinite(v->valuedouble)) return jfail(c, "number out of range"), NULL;
        return xstrdup(ir_fmt_num(b, v->valuedouble));
    }
    if (!cJSON_IsArray(v) || !v->child)
        return jfail(c, "an attribute is a string, a number or a non-empty array of numbers"), NULL;
    size_t cap = 64, n = 0;
    char *s = xmalloc(cap);
    int i = 0, nested = cJSON_IsArray(v->child);
    for (const cJSON *x = v->child; x; x = x->next, i++) {
        const cJSON *inner = nested ? x->child : x;
        push_idx(c, i);
        if (nested && (!cJSON_IsArray(x) || !inner)) {
            free(s);
            return jfail(c, "expected a non-empty array of numbers"), NULL;
        }
        int j = 0;
        for (; inner; inner = nested ? inner->next : NULL, j++) {
            if (nested) push_idx(c, j);
            if (!cJSON_IsNumber(inner) || !isfinite(inner->valuedouble)) {
                free(s);
                return jfail(c, "expected a number"), NULL;
            }
            if (nested) c->depth--;
            ir_fmt_num(b, inner->valuedouble);
            size_t l = strlen(b);
            if (n + l + 2 > cap) s = xrealloc(s, cap = 2 * (n + l + 2));
            if (n) s[n++] = !nested || j ? ',' : ';';
            memcpy(s + n, b, l);
            n += l;
        }
        c->depth--;
    }
    s[n] = '\0';
    return s;
}

/* obj's members as attributes, by set(ctx, key, value). */
static int read_attrs(jctx *c, const cJSON *obj, ir_elem *e, ir_diagram *d)
{
    push_key(c, "attrs");
    if (!cJSON_IsObject(obj)) return jfail(c, "expected an object of attributes");
    for (const cJSON *a = obj->child; a; a = a->next) {
        push_key(c, a->string);
        if (!valid_key(a->string))
            return jfail(c, "bad attribute name (letters, digits, _ - . : allowed)");
        if (e ? ir_elem_get(e, a->string) != NULL
              : ir_get_attr(d->attrs, d->nattrs, a->string) != NULL) {
            c->path[c->depth - 1].idx = 1;  /* the second member of that key */
            return jfail(c, "duplicate attribute");
        }
        char *v = attr_text(c, a);
        if (!v) return -1;
        if (e) ir_elem_set(e, a->string, v);
        else ir_set_attr(&d->attrs, &d->nattrs, a->string, v);
        free(v);
        c->depth--;
    }
    c->depth--;
    return 0;
}

static const cJSON *member(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A string member: NULL (and *out untouched) when absent and optional. */
static int get_string(jctx *c, const cJSON *o, const char *key, int required, char **out)
{
    const cJSON *v = member(o, key);
    if (!v) {
        if (!required) return 0;
        return jfail(c, "'%s' needs the key \"%s\"", cJSON_GetStringValue(member(o, "kind")) ?
                     cJSON_GetStringValue(member(o, "kind")) : "diagram", key);
    }
    push_key(c, key);
    if (!cJSON_IsString(v)) return jfail(c, "expected a string");
    *out = xstrdup(v->valuestring);
    c->depth--;
    return 0;
}

static int get_bool(jctx *c, const cJSON *o, const char *key, int required, int *out)
{
    const cJSON *v = member(o, key);
    if (!v) {
        if (required) return jfail(c, "needs the key \"%s\" (true or false)", key);
        return 0;
    }
    push_key(c, key);
    if (!cJSON_IsBool(v)) return jfail(c, "expected true or false");
    *out = cJSON_IsTrue(v);
    c->depth--;
    return 0;
}

/* "points": exactly npts points, or at least 2 (npts -1, a poly). */
static int get_points(jctx *c, const cJSON *o, ir_elem *e, int npts, const char *kind)
{
    const cJSON *a = member(o, "points");
    if (!a) return jfail(c, "'%s' needs the key \"points\"", kind);
    push_key(c, "points");
    if (!cJSON_IsArray(a)) return jfail(c, "expected an array of [x, y] points");
    int n = cJSON_GetArraySize(a);
    if (npts >= 0 && n != npts) return jfail(c, "'%s' needs %d points, found %d", kind, npts, n);
    if (npts < 0 && n < 2) return jfail(c, "'%s' needs at least 2 points, found %d", kind, n);
    ir_pt *pts = xmalloc((size_t)n * sizeof *pts);
    int i = 0;
    for (const cJSON *p = a->child; p; p = p->next, i++) {
        push_idx(c, i);
        if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 2) {
            free(pts);
            return jfail(c, "expected a point [x, y]");
        }
        for (int k = 0; k < 2; k++) {
            const cJSON *v = cJSON_GetArrayItem(p, k);
            push_idx(c, k);
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
                free(pts);
                return jfail(c, "expected a finite number");
            }
            c->depth--;
            if (k) pts[i].y = v->valuedouble;
            else pts[i].x = v->valuedouble;
        }
        c->depth--;
    }
    c->depth--;
    ir_elem_set_pts(e, pts, (size_t)n);
    free(pts);
    return 0;
}

/* A valid record kind word starting s, and not one of version 1 (the raw
 * line of an unknown record, as the text reader keeps it). */
static int valid_raw(const char *s)
{
    const char *p = s;
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) return 0;
    while (*p && *p != ' ' && *p != '\t') {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-'))
            return 0;
        p++;
    }
    static const char *const known[] = { "diagram", "diagramir", "unit", "bbox", "end", NULL };
    size_t n = (size_t)(p - s);
    char w[32];
    if (n < sizeof w) {
        memcpy(w, s, n);
        w[n] = '\0';
        ir_kind k;
        if (ir_kind_from_name(w, &k)) return 0;
        for (int i = 0; known[i]; i++)
            if (!strcmp(known[i], w)) return 0;
    }
    for (; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7F) return 0;
    return p[-1] != ' ' && p[-1] != '\t';
}

static int read_elem(jctx *c, const cJSON *o, ir_diagram *d)
{
    if (!cJSON_IsObject(o)) return jfail(c, "expected an element object");
    const cJSON *kv = member(o, "kind");
    if (!kv) return jfail(c, "an element needs the key \"kind\"");
    push_key(c, "kind");
    if (!cJSON_IsString(kv)) return jfail(c, "expected a string");
    const char *kind = kv->valuestring;
    ir_kind k;
    int other = !strcmp(kind, "other");
    if (!other && !ir_kind_from_name(kind, &k))
        return jfail(c, "unknown element kind '%.40s' (a record of another kind is "
                     "{\"kind\":\"other\",\"raw\":LINE})", kind);
    c->depth--;
    ir_elem *e = ir_add(d, other ? IR_OTHER : k);
    e->irline = c->lineno;
    const cJSON *lv = member(o, "line");
    if (lv) {
        push_key(c, "line");
        if (!cJSON_IsNumber(lv) || lv->valuedouble < 0 || lv->valuedouble > INT_MAX ||
            lv->valuedouble != floor(lv->valuedouble))
            return jfail(c, "expected a source line number from 0 to %d", INT_MAX);
        e->line = (int)lv->valuedouble;
        c->depth--;
    }
    if (other) {
        if (get_string(c, o, "raw", 1, &e->raw) < 0) return -1;
        push_key(c, "raw");
        if (!valid_raw(e->raw))
            return jfail(c, "not the line of an unknown record (a record kind word that "
                         "version 1 does not define, no control characters, no blank at the end)");
        c->depth--;
        return 0;
    }
    int npts = 0;
    ir_kind shape = k;
    switch (k) {
    case IR_CLIP: {
        char *sh = NULL;
        if (get_string(c, o, "shape", 1, &sh) < 0) return -1;
        int ok = ir_kind_from_name(sh, &shape) &&
                 (shape == IR_RECT || shape == IR_POLY || shape == IR_ELLIPSE);
        free(sh);
        push_key(c, "shape");
        if (!ok) return jfail(c, "'clip' needs a shape: rect, poly or ellipse");
        c->depth--;
        e->sub = shape;
        break;
    }
    default: break;
    }
    switch (shape) {
    case IR_POLY:
        if (get_bool(c, o, "closed", 1, &e->closed) < 0) return -1;
        npts = -1;
        break;
    case IR_RECT: case IR_TEXT: case IR_VERTEX: npts = 2; break;
    case IR_ELLIPSE: case IR_ARC: npts = 3; break;
    case IR_CURVE: npts = 4; break;
    case IR_COORD: npts = 1; break;
    default: npts = 0; break;
    }
    if (npts) {
        if (get_points(c, o, e, npts, kind) < 0) return -1;
    } else if (member(o, "points")) {
        push_key(c, "points");
        return jfail(c, "'%s' has no points", kind);
    }
    if (k == IR_ARC) {
        if (!member(o, "t1") || !member(o, "t2")) return jfail(c, "'arc' needs the keys \"t1\" and \"t2\"");
        if (jnum(c, member(o, "t1"), "t1", &e->t1) < 0 || jnum(c, member(o, "t2"), "t2", &e->t2) < 0)
            return -1;
    }
    switch (k) {
    case IR_TEXT: case IR_UNPARSED:
        if (get_string(c, o, "text", 1, &e->str) < 0) return -1;
        break;
    case IR_VERTEX:
        if (get_string(c, o, "name", 1, &e->name) < 0 || get_string(c, o, "text", 1, &e->str) < 0)
            return -1;
        break;
    case IR_COORD:
        if (get_string(c, o, "name", 1, &e->name) < 0) return -1;
        break;
    case IR_EDGE:
        if (get_string(c, o, "from", 1, &e->name) < 0 || get_string(c, o, "to", 1, &e->str) < 0 ||
            get_bool(c, o, "undirected", 0, &e->undirected) < 0)
            return -1;
        break;
    case IR_FINDING:
        if (get_string(c, o, "criterion", 1, &e->name) < 0 ||
            get_string(c, o, "reason", 1, &e->str) < 0)
            return -1;
        break;
    default: break;
    }
    const cJSON *at = member(o, "attrs");
    if (at && read_attrs(c, at, e, NULL) < 0) return -1;
    return 0;
}

static int read_root(jctx *c, const cJSON *o, ir_diagram **out)
{
    if (!cJSON_IsObject(o)) return jfail(c, "expected a JSON object (one diagram per line)");
    const cJSON *id = member(o, "item");
    if (!id) return jfail(c, "a diagram needs the key \"item\" (its id)");
    push_key(c, "item");
    if (!cJSON_IsString(id)) return jfail(c, "expected a string");
    c->depth--;
    ir_diagram *d = *out = ir_diagram_new(id->valuestring);
    d->irline = c->lineno;
    free(d->unit);
    d->unit = NULL;
    const cJSON *v;
    if ((v = member(o, "attrs")) && read_attrs(c, v, NULL, d) < 0) return -1;
    if (member(o, "unit") && get_string(c, o, "unit", 1, &d->unit) < 0) return -1;
    if ((v = member(o, "bbox"))) {
        push_key(c, "bbox");
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 4)
            return jfail(c, "expected [x1, y1, x2, y2]");
        for (int i = 0; i < 4; i++) {
            const cJSON *x = cJSON_GetArrayItem(v, i);
            push_idx(c, i);
            if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble)) return jfail(c, "expected a number");
            d->bbox[i] = x->valuedouble;
            c->depth--;
        }
        d->has_bbox = 1;
        c->depth--;
    }
    if ((v = member(o, "elements"))) {
        push_key(c, "elements");
        if (!cJSON_IsArray(v)) return jfail(c, "expected an array of elements");
        int i = 0;
        for (const cJSON *e = v->child; e; e = e->next, i++) {
            push_idx(c, i);
            if (read_elem(c, e, d) < 0) return -1;
            c->depth--;
        }
        c->depth--;
    }
    return 0;
}

ir_diagram *ir_json_read_(const char *line, size_t len, int lineno, int *col, char *msg,
                          size_t msgsz)
{
    jctx c = { line, line + len, { { NULL, 0 } }, 0, 1, msg, msgsz, lineno };
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(line, len, &end, 0);
    if (!root) {
        size_t off = end && end >= line && end <= line + len ? (size_t)(end - line) : 0;
        *col = (int)off + 1;
        if (off + 1 >= len)
            snprintf(msg, msgsz, "invalid JSON, or the line ends inside the object (the JSON "
                     "IR is one object per line, as jq -c writes it)");
        else
            snprintf(msg, msgsz, "invalid JSON");
        return NULL;
    }
    const char *rest = skip_ws(end, line + len);
    if (rest < line + len) {
        cJSON_Delete(root);
        *col = (int)(rest - line) + 1;
        snprintf(msg, msgsz, "text after the JSON object (one object per line)");
        return NULL;
    }
    ir_diagram *d = NULL;
    if (read_root(&c, root, &d) < 0) {
        ir_diagram_free(d);
        d = NULL;
        *col = c.col;
    }
    cJSON_Delete(root);
    return d;
}
