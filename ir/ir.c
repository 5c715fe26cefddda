/* ir.c — the IR library's data structures: construction, attributes,
 * copying, number parsing and element extents. The reader is in ir_read.c,
 * the writer in ir_write.c; the contract is ir/ir.h. */
#include "ir/ir_internal.h"
#include "ir/ir_num.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/xalloc.h"

/* --- kinds ------------------------------------------------------------- */

static const char *const kind_names[] = {
    [IR_POLY] = "poly",         [IR_RECT] = "rect",     [IR_ELLIPSE] = "ellipse",
    [IR_ARC] = "arc",           [IR_CURVE] = "curve",   [IR_TEXT] = "text",
    [IR_CLIP] = "clip",         [IR_UNPARSED] = "unparsed",
    [IR_VERTEX] = "vertex",     [IR_EDGE] = "edge",     [IR_COORD] = "coord",
    [IR_FINDING] = "finding",   [IR_OTHER] = "other",
};

const char *ir_kind_name(ir_kind k)
{
    if ((unsigned)k < sizeof kind_names / sizeof kind_names[0] && kind_names[k])
        return kind_names[k];
    return "?";
}

int ir_kind_from_name(const char *name, ir_kind *out)
{
    for (unsigned k = 0; k < sizeof kind_names / sizeof kind_names[0]; k++) {
        if (k == IR_OTHER) continue;
        if (kind_names[k] && strcmp(kind_names[k], name) == 0) {
            *out = (ir_kind)k;
            return 1;
        }
    }
    return 0;
}

/* --- memory ------------------------------------------------------------ */

#define DIAGRAM_ARENA_FIRST 8192
#define ELEM_ARENA_FIRST 256

/* The memory of e, made now (its own) when it has none. An element that
 * has attributes but no memory of its own (a program set e->attrs itself)
 * gets copies of them in it. */
static struct ir_mem *elem_mem(ir_elem *e)
{
    if (e->mem) return e->mem;
    struct ir_mem *m = xcalloc(1, sizeof *m);
    ir_arena_init(&m->arena, ELEM_ARENA_FIRST);
    m->elem_owned = 1;
    const ir_attr *old = e->attrs;
    size_t n = e->nattrs;
    e->mem = m;
    e->attrs = NULL;
    e->nattrs = 0;
    for (size_t i = 0; i < n; i++)
        ir_elem_append_attr(e, old[i].key, strlen(old[i].key), old[i].val, strlen(old[i].val));
    return m;
}

ir_pt *ir_elem_alloc_pts(ir_elem *e, size_t n)
{
    size_t bytes = n <= SIZE_MAX / sizeof(ir_pt) ? n * sizeof(ir_pt) : SIZE_MAX;
    return ir_arena_alloc(&elem_mem(e)->arena, bytes, _Alignof(ir_pt));
}

/* --- diagrams and elements --------------------------------------------- */

/* a diagram and its memory in one allocation */
typedef struct {
    ir_diagram d;
    struct ir_mem mem;
} diagram_mem;

ir_diagram *ir_diagram_new(const char *id)
{
    diagram_mem *m = xcalloc(1, sizeof *m);
    ir_arena_init(&m->mem.arena, DIAGRAM_ARENA_FIRST);
    ir_diagram *d = &m->d;
    d->mem = &m->mem;
    d->id = xstrdup(id ? id : "");
    d->unit = xstrdup("pt");
    return d;
}

/* An attribute array of n > 0 entries always has room for attr_cap(n):
 * 4, 8, 16, ... so that adding one at a time is amortized O(1). */
static size_t attr_cap(size_t n)
{
    size_t c = 4;
    while (c < n) c *= 2;
    return c;
}

/* "key\0val\0" written at p (kl + vl + 2 bytes), and a pointed at it */
static void put_key_val(ir_attr *a, char *p, const char *key, size_t kl, const char *val, size_t vl)
{
    memcpy(p, key, kl);
    p[kl] = '\0';
    memcpy(p + kl + 1, val, vl);
    p[kl + 1 + vl] = '\0';
    a->key = p;
    a->val = p + kl + 1;
}

/* An attribute of ir_set_attr's arrays is one allocation: key, NUL, value,
 * NUL; val points into it. */
static void attr_init(ir_attr *a, const char *key, size_t kl, const char *val, size_t vl)
{
    put_key_val(a, xmalloc(kl + vl + 2), key, kl, val, vl);
}

static void free_attrs(ir_attr *a, size_t n)
{
    for (size_t i = 0; i < n; i++) free(a[i].key);
    free(a);
}

/* Frees what e owns (not its struct; no zeroing). */
static void elem_free(ir_elem *e)
{
    free(e->str);
    free(e->name);
    free(e->raw);
    if (e->mem && e->mem->elem_owned) {
        ir_arena_free(&e->mem->arena);
        free(e->mem);
    }
}

void ir_elem_clear(ir_elem *e)
{
    if (!e) return;
    elem_free(e);
    memset(e, 0, sizeof *e);
}

void ir_diagram_free(ir_diagram *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->nelems; i++) elem_free(&d->elems[i]);
    free_attrs(d->attrs, d->nattrs);
    free(d->id);
    free(d->unit);
    free(d->elems);
    if (d->mem) ir_arena_free(&d->mem->arena);
    free(d);  /* the start of its diagram_mem */
}

ir_elem *ir_add(ir_diagram *d, ir_kind kind)
{
    if (d->nelems == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        d->elems = xrealloc(d->elems, cap * sizeof *d->elems);
        d->cap = cap;
    }
    ir_elem *e = &d->elems[d->nelems++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->mem = d->mem;
    return e;
}

void ir_elem_set_pts(ir_elem *e, const ir_pt *pts, size_t n)
{
    e->pts = NULL;
    e->npts = 0;
    if (n == 0) return;
    ir_pt *p = ir_elem_alloc_pts(e, n);
    memcpy(p, pts, n * sizeof *pts);
    e->pts = p;
    e->npts = n;
}

/* Deep copy of src into dst, whose mem is set (and nothing else that it
 * owns): the points and attributes go into dst's memory. */
static void copy_into(ir_elem *dst, const ir_elem *src)
{
    struct ir_mem *m = dst->mem;
    *dst = *src;
    dst->mem = m;
    dst->str = xstrdup(src->str);
    dst->name = xstrdup(src->name);
    dst->raw = xstrdup(src->raw);
    dst->attrs = NULL;
    dst->nattrs = 0;
    ir_elem_set_pts(dst, src->pts, src->pts ? src->npts : 0);
    for (size_t i = 0; i < src->nattrs; i++) {
        const ir_attr *a = &src->attrs[i];
        ir_elem_append_attr(dst, a->key, strlen(a->key), a->val, strlen(a->val));
    }
}

void ir_elem_copy(ir_elem *dst, const ir_elem *src)
{
    dst->mem = NULL;  /* made by the first point or attribute copied */
    copy_into(dst, src);
}

ir_elem *ir_add_copy(ir_diagram *d, const ir_elem *src)
{
    /* src may point into d->elems, which ir_add may move; what it points
     * to does not move */
    ir_elem tmp = *src;
    ir_elem *e = ir_add(d, src->kind);
    copy_into(e, &tmp);
    return e;
}

/* --- attributes -------------------------------------------------------- */

/* strcmp(a, b) == 0 for the short keys of attributes, without a call */
static int key_eq(const char *a, const char *b)
{
    while (*a == *b) {
        if (!*a) return 1;
        a++;
        b++;
    }
    return 0;
}

void ir_attrs_append(ir_attr **attrs, size_t *n, const char *key, size_t keylen, const char *val,
                     size_t vallen)
{
    if (*n == 0 || attr_cap(*n + 1) > attr_cap(*n))
        *attrs = xrealloc(*attrs, attr_cap(*n + 1) * sizeof **attrs);
    attr_init(&(*attrs)[*n], key, keylen, val, vallen);
    (*n)++;
}

void ir_set_attr(ir_attr **attrs, size_t *n, const char *key, const char *val)
{
    for (size_t i = 0; i < *n; i++) {
        if (!key_eq((*attrs)[i].key, key)) continue;
        char *old = (*attrs)[i].key;
        if (!val) {  /* remove, keeping the order of the others */
            memmove(&(*attrs)[i], &(*attrs)[i + 1], (*n - i - 1) * sizeof **attrs);
            (*n)--;
        } else {
            attr_init(&(*attrs)[i], old, strlen(old), val, strlen(val));
        }
        free(old);
        return;
    }
    if (val) ir_attrs_append(attrs, n, key, strlen(key), val, strlen(val));
}

/* 1 when s[0..n) is a bare word of ASCII bytes (ir_word_is_bare) */
static int ascii_bare(const char *s, size_t n)
{
    if (n == 0 || s[0] == '@') return 0;
    for (size_t i = 0; i < n; i++)
        if (ir_word_class[(unsigned char)s[i]] != IR_W_OK) return 0;
    return 1;
}

/* A record (ir_internal.h) for key=val in m (or the recent one, when it
 * is the same); sets *a. */
static void attr_record(struct ir_mem *m, ir_attr *a, const char *key, size_t kl, const char *val,
                        size_t vl)
{
    unsigned slot = ((unsigned char)key[0] * 3u + (unsigned)kl) % IR_MEM_RECENT;
    const char *r = m->recent[slot];
    if (r) {
        const ir_attr_head *h = (const ir_attr_head *)(const void *)(r - sizeof *h);
        if (h->keylen == kl && (h->vallen & ~IR_ATTR_BARE) == vl && memcmp(r, key, kl) == 0 &&
            memcmp(r + kl + 1, val, vl) == 0) {
            a->key = (char *)r;
            a->val = (char *)r + kl + 1;
            return;
        }
    }
    /* lengths from 2^31 on: a head of zeros, never shared or copied as it is */
    int big = kl >= IR_ATTR_BARE || vl >= IR_ATTR_BARE;
    ir_attr_head h = {big ? 0 : (uint32_t)kl, big ? 0 : (uint32_t)vl};
    if (!big && ascii_bare(val, vl)) h.vallen |= IR_ATTR_BARE;
    char *p = ir_arena_alloc(&m->arena, sizeof h + kl + vl + 2, _Alignof(ir_attr_head));
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    put_key_val(a, p, key, kl, val, vl);
    if (!big) m->recent[slot] = p;
}

/* An element's attribute array is in its memory, with room for
 * attr_cap(nattrs) entries. */
static inline void elem_append(ir_elem *e, const char *key, size_t keylen, const char *val,
                               size_t vallen)
{
    struct ir_mem *m = elem_mem(e);
    size_t n = e->nattrs;
    if (n == 0 || attr_cap(n + 1) > attr_cap(n)) {
        ir_attr *a = ir_arena_alloc(&m->arena, attr_cap(n + 1) * sizeof *a, _Alignof(ir_attr));
        if (n) memcpy(a, e->attrs, n * sizeof *a);
        e->attrs = a;
    }
    attr_record(m, &e->attrs[n], key, keylen, val, vallen);
    e->nattrs = n + 1;
}

void ir_elem_append_attr(ir_elem *e, const char *key, size_t keylen, const char *val,
                         size_t vallen)
{
    elem_append(e, key, keylen, val, vallen);
}

void ir_elem_set(ir_elem *e, const char *key, const char *val)
{
    size_t n = e->nattrs;
    for (size_t i = 0; i < n; i++) {
        if (!key_eq(e->attrs[i].key, key)) continue;
        /* the array in the element's memory first (it may be one the
         * program filled in): the change goes there, not into the program's */
        struct ir_mem *m = elem_mem(e);
        ir_attr *a = e->attrs;
        if (!val) {  /* remove, keeping the order of the others */
            memmove(&a[i], &a[i + 1], (n - i - 1) * sizeof *a);
            e->nattrs = n - 1;
        } else {
            attr_record(m, &a[i], key, strlen(key), val, strlen(val));
        }
        return;
    }
    if (val) elem_append(e, key, strlen(key), val, strlen(val));
}

void ir_elem_setf(ir_elem *e, const char *key, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0, small[0] = '\0';
    if ((size_t)n < sizeof small) {
        ir_elem_set(e, key, small);
        return;
    }
    char *big = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    ir_elem_set(e, key, big);
    free(big);
}

const char *ir_get_attr(const ir_attr *attrs, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (key_eq(attrs[i].key, key)) return attrs[i].val;
    return NULL;
}

const char *ir_elem_get(const ir_elem *e, const char *key)
{
    return ir_get_attr(e->attrs, e->nattrs, key);
}

/* --- numbers ----------------------------------------------------------- */

int ir_parse_num_n(const char *s, size_t len, double *out)
{
    return ir_num_parse(s, len, out);
}

int ir_parse_num(const char *s, double *out)
{
    return s ? ir_parse_num_n(s, strlen(s), out) : 0;
}

int ir_parse_nums(const char *s, char sep, double *out, size_t max)
{
    if (!s || !*s) return -1;
    size_t n = 0;
    for (;;) {
        const char *e = strchr(s, sep);
        size_t len = e ? (size_t)(e - s) : strlen(s);
        double v;
        if (!ir_parse_num_n(s, len, &v)) return -1;
        if (n < max && out) out[n] = v;
        if (n == (size_t)INT_MAX) return -1;
        n++;
        if (!e) break;
        s = e + 1;
    }
    return (int)n;
}

double ir_elem_getnum(const ir_elem *e, const char *key, double dflt)
{
    double v;
    return ir_parse_num(ir_elem_get(e, key), &v) ? v : dflt;
}

int ir_elem_getpt(const ir_elem *e, const char *key, ir_pt *out)
{
    double v[2];
    if (ir_parse_nums(ir_elem_get(e, key), ',', v, 2) != 2) return 0;
    out->x = v[0];
    out->y = v[1];
    return 1;
}

/* --- boxes -------------------------------------------------------------- */

ir_box ir_box_empty(void)
{
    ir_box b = {0, 0, 0, 0, 1};
    return b;
}

#define DEG (3.14159265358979323846 / 180.0)

/* One coordinate of the ellipse point C + A cos t + B sin t. */
static void ellipse_pt(const ir_pt *p, double tdeg, double *x, double *y)
{
    double c = cos(tdeg * DEG), s = sin(tdeg * DEG);
    *x = p[0].x + p[1].x * c + p[2].x * s;
    *y = p[0].y + p[1].y * c + p[2].y * s;
}

static void box_ellipse(ir_box *b, const ir_pt *p)
{
    double rx = hypot(p[1].x, p[2].x), ry = hypot(p[1].y, p[2].y);
    ir_box_add(b, p[0].x - rx, p[0].y - ry);
    ir_box_add(b, p[0].x + rx, p[0].y + ry);
}

static void box_arc(ir_box *b, const ir_pt *p, double t1, double t2)
{
    double lo = t1 < t2 ? t1 : t2, hi = t1 < t2 ? t2 : t1;
    if (!(hi - lo < 360.0)) {  /* a full turn or more (or not finite) */
        box_ellipse(b, p);
        return;
    }
    double x, y;
    ellipse_pt(p, t1, &x, &y);
    ir_box_add(b, x, y);
    ellipse_pt(p, t2, &x, &y);
    ir_box_add(b, x, y);
    /* Bring the interval near zero so the candidate angles below are few. */
    double span = hi - lo;
    lo = fmod(lo, 360.0);
    hi = lo + span;
    /* x(t) is extreme where tan t = Bx/Ax, y(t) where tan t = By/Ay. */
    double t0[2] = {atan2(p[2].x, p[1].x) / DEG, atan2(p[2].y, p[1].y) / DEG};
    for (int axis = 0; axis < 2; axis++) {
        for (int k = -6; k <= 6; k++) {
            double t = t0[axis] + 180.0 * k;
            if (t < lo || t > hi) continue;
            ellipse_pt(p, t, &x, &y);
            ir_box_add(b, x, y);
        }
    }
}

/* Adds the extremes of one coordinate of a cubic Bezier to *ts. */
static int bezier_extrema(double p0, double p1, double p2, double p3, double ts[2])
{
    double a = p1 - p0, b = p2 - p1, c = p3 - p2;
    double qa = a - 2 * b + c, qb = 2 * (b - a), qc = a;
    int n = 0;
    if (fabs(qa) < 1e-12) {
        if (fabs(qb) > 1e-12) {
            double t = -qc / qb;
            if (t > 0 && t < 1) ts[n++] = t;
        }
        return n;
    }
    double disc = qb * qb - 4 * qa * qc;
    if (disc < 0) return 0;
    double sq = sqrt(disc);
    double r[2] = {(-qb + sq) / (2 * qa), (-qb - sq) / (2 * qa)};
    for (int i = 0; i < 2; i++)
        if (r[i] > 0 && r[i] < 1) ts[n++] = r[i];
    return n;
}

static void bezier_pt(const ir_pt *p, double t, double *x, double *y)
{
    double s = 1 - t;
    double b0 = s * s * s, b1 = 3 * s * s * t, b2 = 3 * s * t * t, b3 = t * t * t;
    *x = b0 * p[0].x + b1 * p[1].x + b2 * p[2].x + b3 * p[3].x;
    *y = b0 * p[0].y + b1 * p[1].y + b2 * p[2].y + b3 * p[3].y;
}

static void box_curve(ir_box *b, const ir_pt *p)
{
    ir_box_add(b, p[0].x, p[0].y);
    ir_box_add(b, p[3].x, p[3].y);
    double ts[4];
    int n = bezier_extrema(p[0].x, p[1].x, p[2].x, p[3].x, ts);
    n += bezier_extrema(p[0].y, p[1].y, p[2].y, p[3].y, ts + n);
    for (int i = 0; i < n; i++) {
        double x, y;
        bezier_pt(p, ts[i], &x, &y);
        ir_box_add(b, x, y);
    }
}

/* The box of n > 0 points: ir_box_add of each in turn (the first point as
 * it is, even NaN; a later coordinate only when it compares below or
 * above, so never a NaN). */
static ir_box box_pts(const ir_pt *p, size_t n)
{
    double x1 = p[0].x, x2 = x1, y1 = p[0].y, y2 = y1;
    for (size_t i = 1; i < n; i++) {
        double x = p[i].x, y = p[i].y;
        x1 = x < x1 ? x : x1;
        x2 = x > x2 ? x : x2;
        y1 = y < y1 ? y : y1;
        y2 = y > y2 ? y : y2;
    }
    ir_box b = {x1, y1, x2, y2, 0};
    return b;
}

static ir_box shape_box(ir_kind kind, const ir_elem *e)
{
    ir_box b = ir_box_empty();
    const ir_pt *p = e->pts;
    size_t n = p ? e->npts : 0;
    switch (kind) {
    case IR_POLY:
        if (n) b = box_pts(p, n);
        break;
    case IR_RECT:
    case IR_TEXT:
    case IR_VERTEX:
        if (n) b = box_pts(p, n < 2 ? n : 2);
        break;
    case IR_ELLIPSE:
        if (n >= 3) box_ellipse(&b, p);
        break;
    case IR_ARC:
        if (n >= 3) box_arc(&b, p, e->t1, e->t2);
        break;
    case IR_CURVE:
        if (n >= 4) box_curve(&b, p);
        break;
    case IR_COORD:
        if (n >= 1) ir_box_add(&b, p[0].x, p[0].y);
        break;
    default:
        break;
    }
    return b;
}

ir_box ir_elem_box(const ir_elem *e)
{
    if (e->kind == IR_CLIP) return e->sub == IR_CLIP ? ir_box_empty() : shape_box(e->sub, e);
    return shape_box(e->kind, e);
}
