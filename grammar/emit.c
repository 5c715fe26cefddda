/* emit.c — attributes of IR elements: numbers as the IR writer formats
 * them, the xyz= texts of 3D points, and what the graphics state says
 * about an element (draw=, fill=, lw=, dash=, ...). */
#include "grammar/interp.h"
#include "ir/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* numeric attributes, formatted as the IR writer formats numbers */
void tk_set_nums(ir_elem *e, const char *key, const double *v, int n)
{
    char buf[160], num[32];
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        const char *s = ir_fmt_num(num, v[i]);
        size_t l = strlen(s);
        if (k + l + 2 >= sizeof buf) break;
        if (i) buf[k++] = ',';
        memcpy(buf + k, s, l);
        k += l;
    }
    buf[k] = 0;
    ir_elem_set(e, key, buf);
}

void tk_set_num(ir_elem *e, const char *key, double v) { tk_set_nums(e, key, &v, 1); }

size_t tk_xyz_text(char *o, vec3 p)
{
    const double v[3] = { p.x, p.y, p.z };
    size_t k = 0;
    for (int c = 0; c < 3; c++) {
        char num[32];
        const char *t = ir_fmt_num(num, v[c]);
        size_t l = strlen(t);
        if (c) o[k++] = ',';
        memcpy(o + k, t, l);
        k += l;
    }
    o[k] = 0;
    return k;
}

size_t tk_xyz_text_cached(struct tk_xyzcache *c, char *o, vec3 p)
{
    uint64_t k[3];
    memcpy(&k[0], &p.x, sizeof k[0]);
    memcpy(&k[1], &p.y, sizeof k[1]);
    memcpy(&k[2], &p.z, sizeof k[2]);
    unsigned h = (unsigned)((k[0] * 0x9E3779B97F4A7C15ull ^ k[1] * 0xC2B2AE3D27D4EB4Full ^
                             k[2] * 0x165667B19E3779F9ull) >> 56) % TK_XYZ_SLOTS;
    struct tk_xyzslot *e = &c->e[h];
    if (e->len && memcmp(e->k, k, sizeof k) == 0) {
        memcpy(o, e->text, (size_t)e->len + 1);
        return e->len;
    }
    size_t len = tk_xyz_text(o, p);
    memcpy(e->k, k, sizeof k);
    e->len = (unsigned char)len;
    memcpy(e->text, o, len + 1);
    return len;
}

/* xyz=X,Y,Z;X,Y,Z;... the 3D points of a polyline */
void tk_set_xyz(tikz *T, ir_elem *e, const vec3 *p, size_t n)
{
    if (!n) return;
    if (!T->xyzcache) T->xyzcache = xcalloc(1, sizeof *T->xyzcache);
    char small[1024];
    size_t cap = n * (TK_XYZ_MAX + 1);
    char *b = cap <= sizeof small ? small : xmalloc(cap);
    char *o = b;
    for (size_t i = 0; i < n; i++) {
        if (i) *o++ = ';';
        o += tk_xyz_text_cached(T->xyzcache, o, p[i]);
    }
    ir_elem_set(e, "xyz", b);
    if (b != small) free(b);
}

static void color_attr(ir_elem *e, const char *key, const char *c)
{
    ir_elem_set(e, key, c && c[0] ? c : "black");
}

void tk_emit_attrs(tikz *T, ir_elem *e, int draw, int fill)
{
    gstate *g = GS(T);
    if (draw) color_attr(e, "draw", g->drawc[0] ? g->drawc : g->color);
    else ir_elem_set(e, "draw", "none");
    if (fill) color_attr(e, "fill", g->fillc[0] ? g->fillc : g->color);
    else ir_elem_set(e, "fill", "none");
    if (draw) {
        tk_set_num(e, "lw", g->lw);
        if (strcmp(g->dash, "solid") != 0) ir_elem_set(e, "dash", g->dash);
        if (g->arrows[0]) ir_elem_set(e, "arrows", g->arrows);
    }
    if (g->opacity < 1) tk_set_num(e, "opacity", g->opacity);
    if (draw && g->draw_opacity < 1) tk_set_num(e, "draw-opacity", g->draw_opacity);
    if (fill && g->fill_opacity < 1) tk_set_num(e, "fill-opacity", g->fill_opacity);
    if (g->rounded > 0) tk_set_num(e, "rounded", g->rounded);
    if (g->role[0]) ir_elem_set(e, "role", g->role);
    if (g->clip) tk_set_num(e, "clip", g->clip);
    if (g->overlay) ir_elem_set(e, "overlay", "1");
}

void tk_elems_rotate(ir_diagram *d, size_t start, size_t mid)
{
    if (start >= mid || mid >= d->nelems) return;
    size_t nb = d->nelems - mid, na = mid - start;
    ir_elem *tmp = xrealloc(NULL, nb * sizeof *tmp);
    memcpy(tmp, d->elems + mid, nb * sizeof *tmp);
    memmove(d->elems + start + nb, d->elems + start, na * sizeof *tmp);
    memcpy(d->elems + start, tmp, nb * sizeof *tmp);
    free(tmp);
}
