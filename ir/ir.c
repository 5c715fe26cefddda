/* ir.c — the IR library's data structures: construction, attributes,
 * copying, number parsing and element extents. The reader is in ir_read.c,
 * the writer in ir_write.c; the contract is ir/ir.h. */
#include "ir/ir.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- allocation ------------------------------------------------------- */

static void oom(void)
{
    fputs("diagramir: out of memory\n", stderr);
    abort();
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) oom();
    return q;
}

static char *xstrdup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *p = xrealloc(NULL, n);
    memcpy(p, s, n);
    return p;
}

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

/* --- kinds ------------------------------------------------------------- */

static const char *const kind_names[] = {
    [IR_POLY] = "poly",         [IR_RECT] = "rect",     [IR_ELLIPSE] = "ellipse",
    [IR_ARC] = "arc",           [IR_CURVE] = "curve",   [IR_TEXT] = "text",
    [IR_CLIP] = "clip",         [IR_UNPARSED] = "unparsed",
    [IR_VERTEX] = "vertex",     [IR_EDGE] = "edge",     [IR_COORD] = "coord",
    [IR_OTHER] = "other",
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

/* --- diagrams and elements --------------------------------------------- */

ir_diagram *ir_diagram_new(const char *id)
{
    ir_diagram *d = xrealloc(NULL, sizeof *d);
    memset(d, 0, sizeof *d);
    d->id = xstrdup(id ? id : "");
    d->unit = xstrdup("pt");
    return d;
}

/* An attribute is one allocation: key, NUL, value, NUL; val points into it. */
void ir_attr_init(ir_attr *a, const char *key, const char *val)
{
    size_t kl = strlen(key), vl = strlen(val);
    if (kl > SIZE_MAX / 2 - 2 || vl > SIZE_MAX / 2) oom();
    char *p = xrealloc(NULL, kl + vl + 2);
    memcpy(p, key, kl + 1);
    memcpy(p + kl + 1, val, vl + 1);
    a->key = p;
    a->val = p + kl + 1;
}

/* An attribute array of n > 0 entries always has room for ir_attr_cap(n):
 * 4, 8, 16, ... so that adding one at a time is amortized O(1). */
size_t ir_attr_cap(size_t n)
{
    size_t c = 4;
    while (c < n) {
        if (c > SIZE_MAX / 2 / sizeof(ir_attr)) oom();
        c *= 2;
    }
    return c;
}

static void free_attrs(ir_attr *a, size_t n)
{
    for (size_t i = 0; i < n; i++) free(a[i].key);
    free(a);
}

/* --- an element's own attribute blocks ---------------------------------
 *
 * Attributes that ir_elem_set adds to an element that had none (and those
 * of copies) need no allocation each: their strings (key NUL value NUL) are
 * packed into blocks the element owns, chained newest first. Blocks never
 * move, so the entries point into them; a replaced value is written anew
 * and the old bytes stay until the element is cleared. The first block also
 * holds the first AM_ENTRIES entries (e->attrs points there); more go into
 * an array of their own with room for ir_attr_cap(n) entries. */

#define AM_ENTRIES 8
#define AM_FIRST 160  /* string bytes of the first block */

struct ir_attrmem {
    struct ir_attrmem *next;  /* the block before this one */
    char *s;                  /* string bytes: used of cap */
    size_t used, cap;
    ir_attr ent[];            /* first block only: AM_ENTRIES entries, then s */
};

static struct ir_attrmem *am_first(struct ir_attrmem *m)
{
    while (m->next) m = m->next;
    return m;
}

/* A new block of at least cap string bytes (none used); the first one also
 * takes the entries (e->attrs is NULL then). */
static struct ir_attrmem *am_block(ir_elem *e, size_t cap)
{
    struct ir_attrmem *m = e->attrmem;
    size_t ents = m ? 0 : AM_ENTRIES;
    size_t want = m ? (m->cap <= SIZE_MAX / 4 ? m->cap * 2 : SIZE_MAX / 2) : AM_FIRST;
    if (cap < want) cap = want;
    if (cap > SIZE_MAX / 2) oom();
    struct ir_attrmem *nm = xrealloc(NULL, sizeof *nm + ents * sizeof(ir_attr) + cap);
    nm->next = m;
    nm->s = (char *)(nm->ent + ents);
    nm->used = 0;
    nm->cap = cap;
    e->attrmem = nm;
    if (!m) e->attrs = nm->ent;
    return nm;
}

/* n bytes for strings in e's blocks */
static char *am_alloc(ir_elem *e, size_t n)
{
    struct ir_attrmem *m = e->attrmem;
    if (m && m->cap - m->used >= n) {
        char *p = m->s + m->used;
        m->used += n;
        return p;
    }
    m = am_block(e, n);
    m->used = n;
    return m->s;
}

/* Appends key=val (no check for an existing key). */
static void am_append(ir_elem *e, const char *key, const char *val)
{
    size_t kl = strlen(key) + 1, vl = strlen(val) + 1;
    if (kl > SIZE_MAX / 2 || vl > SIZE_MAX / 2) oom();
    char *p = am_alloc(e, kl + vl);
    memcpy(p, key, kl);
    memcpy(p + kl, val, vl);
    size_t n = e->nattrs;
    ir_attr *a = e->attrs;
    if (n >= AM_ENTRIES) {
        if (a == am_first(e->attrmem)->ent) {  /* the first block's entries are full */
            a = xrealloc(NULL, ir_attr_cap(n + 1) * sizeof *a);
            memcpy(a, e->attrs, n * sizeof *a);
        } else if (ir_attr_cap(n + 1) > ir_attr_cap(n)) {
            a = xrealloc(a, ir_attr_cap(n + 1) * sizeof *a);
        }
        e->attrs = a;
    }
    a[n].key = p;
    a[n].val = p + kl;
    e->nattrs = n + 1;
}

static void am_set(ir_elem *e, const char *key, const char *val)
{
    ir_attr *a = e->attrs;
    size_t n = e->nattrs;
    for (size_t i = 0; i < n; i++) {
        if (!key_eq(a[i].key, key)) continue;
        if (!val) {  /* remove, keeping the order of the others */
            memmove(&a[i], &a[i + 1], (n - i - 1) * sizeof *a);
            e->nattrs = n - 1;
        } else {
            size_t vl = strlen(val) + 1;
            char *p = am_alloc(e, vl);
            memcpy(p, val, vl);
            a[i].val = p;
        }
        return;
    }
    if (val) am_append(e, key, val);
}

static void am_free(ir_elem *e)
{
    struct ir_attrmem *m = e->attrmem;
    if (e->attrs != am_first(m)->ent) free(e->attrs);
    while (m) {
        struct ir_attrmem *next = m->next;
        free(m);
        m = next;
    }
}

void ir_elem_clear(ir_elem *e)
{
    if (!e) return;
    free(e->pts);
    if (e->str) free(e->str);  /* mostly NULL: no call */
    if (e->name) free(e->name);
    if (e->raw) free(e->raw);
    if (e->attrmem) am_free(e);
    else free_attrs(e->attrs, e->nattrs);
    memset(e, 0, sizeof *e);
}

void ir_diagram_free(ir_diagram *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->nelems; i++) ir_elem_clear(&d->elems[i]);
    free(d->elems);
    free_attrs(d->attrs, d->nattrs);
    free(d->id);
    free(d->unit);
    free(d);
}

ir_elem *ir_add(ir_diagram *d, ir_kind kind)
{
    if (d->nelems == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        if (cap > SIZE_MAX / sizeof *d->elems) oom();
        d->elems = xrealloc(d->elems, cap * sizeof *d->elems);
        d->cap = cap;
    }
    ir_elem *e = &d->elems[d->nelems++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    return e;
}

void ir_elem_set_pts(ir_elem *e, const ir_pt *pts, size_t n)
{
    free(e->pts);
    e->pts = NULL;
    e->npts = 0;
    if (n == 0) return;
    if (n > SIZE_MAX / sizeof *pts) oom();
    e->pts = xrealloc(NULL, n * sizeof *pts);
    memcpy(e->pts, pts, n * sizeof *pts);
    e->npts = n;
}

void ir_elem_copy(ir_elem *dst, const ir_elem *src)
{
    *dst = *src;
    dst->pts = NULL;
    dst->npts = 0;
    ir_elem_set_pts(dst, src->pts, src->npts);
    dst->str = xstrdup(src->str);
    dst->name = xstrdup(src->name);
    dst->raw = xstrdup(src->raw);
    /* the copy's attributes in its own blocks: one for all the strings */
    dst->attrs = NULL;
    dst->nattrs = 0;
    dst->attrmem = NULL;
    if (src->nattrs == 0) return;
    size_t total = 0;
    for (size_t i = 0; i < src->nattrs; i++) {
        size_t l = strlen(src->attrs[i].key) + strlen(src->attrs[i].val) + 2;
        if (l > SIZE_MAX / 2 - total) oom();
        total += l;
    }
    am_block(dst, total);
    for (size_t i = 0; i < src->nattrs; i++) am_append(dst, src->attrs[i].key, src->attrs[i].val);
}

ir_elem *ir_add_copy(ir_diagram *d, const ir_elem *src)
{
    /* src may point into d->elems, which ir_add may move: copy it first. */
    ir_elem tmp;
    ir_elem_copy(&tmp, src);
    ir_elem *e = ir_add(d, src->kind);
    *e = tmp;
    return e;
}

/* --- attributes -------------------------------------------------------- */

void ir_set_attr(ir_attr **attrs, size_t *n, const char *key, const char *val)
{
    for (size_t i = 0; i < *n; i++) {
        if (!key_eq((*attrs)[i].key, key)) continue;
        char *old = (*attrs)[i].key;
        if (!val) {  /* remove, keeping the order of the others */
            memmove(&(*attrs)[i], &(*attrs)[i + 1], (*n - i - 1) * sizeof **attrs);
            (*n)--;
        } else {
            ir_attr_init(&(*attrs)[i], old, val);
        }
        free(old);
        return;
    }
    if (!val) return;
    if (*n == 0 || ir_attr_cap(*n + 1) > ir_attr_cap(*n))
        *attrs = xrealloc(*attrs, ir_attr_cap(*n + 1) * sizeof **attrs);
    ir_attr_init(&(*attrs)[*n], key, val);
    (*n)++;
}

void ir_elem_set(ir_elem *e, const char *key, const char *val)
{
    /* attributes the reader (or a program) built stay in their form */
    if (e->attrmem || !e->attrs) am_set(e, key, val);
    else ir_set_attr(&e->attrs, &e->nattrs, key, val);
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
    char *big = xrealloc(NULL, (size_t)n + 1);
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

int ir_parse_num_n(const char *s, size_t len, double *out)
{
    if (!s || len == 0 || num_span(s, len) != len) return 0;
    /* the usual short form (at most 15 digits, no exponent) exactly: a
     * whole number below 2^53 over a power of ten up to 1e22 is one
     * correctly rounded division, as strtod would round it */
    {
        static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
        size_t i = 0;
        int neg = 0, digits = 0, frac = -1;
        unsigned long long m = 0;
        if (s[0] == '-' || s[0] == '+') neg = s[i++] == '-';
        for (; i < len; i++) {
            if (s[i] == '.') { frac = 0; continue; }
            if (s[i] < '0' || s[i] > '9') break;
            m = m * 10 + (unsigned)(s[i] - '0');
            digits++;
            if (frac >= 0) frac++;
        }
        if (i == len && digits <= 15) {
            double v = (double)m / p10[frac > 0 ? frac : 0];
            if (out) *out = neg ? -v : v;
            return 1;
        }
    }
    /* s[0..len) is a complete decimal number: strtod, which the programs
     * only ever run in the C locale, stops exactly at its end. */
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end != s + len || !isfinite(v)) return 0;
    if (out) *out = v;
    return 1;
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

static ir_box shape_box(ir_kind kind, const ir_elem *e)
{
    ir_box b = ir_box_empty();
    const ir_pt *p = e->pts;
    size_t n = p ? e->npts : 0;
    switch (kind) {
    case IR_POLY:
        for (size_t i = 0; i < n; i++) ir_box_add(&b, p[i].x, p[i].y);
        break;
    case IR_RECT:
    case IR_TEXT:
    case IR_VERTEX:
        for (size_t i = 0; i < n && i < 2; i++) ir_box_add(&b, p[i].x, p[i].y);
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
