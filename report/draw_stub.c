/* TEMPORARY stand-in for draw/draw.c (branch render) until it is merged:
 * boxes of the elements, no TeX look.  Delete on merge. */
#include "draw/draw.h"

#include <string.h>

void draw_opts_init(draw_opts *o)
{
    memset(o, 0, sizeof *o);
    o->findings = 1;
    o->margin = -1;
}

int draw_svg(FILE *f, const ir_diagram *d, const draw_opts *o)
{
    ir_box b = ir_box_empty();
    for (size_t i = 0; i < d->nelems; i++) ir_box_union(&b, ir_elem_box(&d->elems[i]));
    if (b.empty) { b.x1 = b.y1 = 0; b.x2 = b.y2 = 10; }
    double m = 5, w = b.x2 - b.x1 + 2 * m, h = b.y2 - b.y1 + 2 * m;
    if (!o->fragment) fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.1f\" height=\"%.1f\" viewBox=\"%.2f %.2f %.2f %.2f\">",
            w, h, b.x1 - m, -b.y2 - m, w, h);
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (e->kind == IR_POLY) {
            fputs("<polyline fill=\"none\" stroke=\"#000\" points=\"", f);
            for (size_t k = 0; k < e->npts; k++) fprintf(f, "%.2f,%.2f ", e->pts[k].x, -e->pts[k].y);
            fputs("\"/>", f);
        } else if (e->kind != IR_COORD && e->kind != IR_FINDING && e->kind != IR_CLIP) {
            ir_box eb = ir_elem_box(e);
            if (eb.empty) continue;
            fprintf(f, "<rect fill=\"none\" stroke=\"#888\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"/>",
                    eb.x1, -eb.y2, eb.x2 - eb.x1, eb.y2 - eb.y1);
        }
    }
    fputs("</svg>", f);
    return ferror(f) ? -1 : 0;
}

int draw_png(FILE *f, const ir_diagram *d, const draw_opts *o, double dpi, char *err, size_t errlen)
{
    (void)f; (void)d; (void)o; (void)dpi;
    snprintf(err, errlen, "no PNG in the stand-in renderer");
    return -1;
}

const char *draw_criterion_color(const char *criterion)
{
    static const char *const pal[] = { "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                       "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac" };
    unsigned h = 2166136261u;
    for (const char *p = criterion; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    return pal[h % 10];
}
