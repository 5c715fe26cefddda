/* readable_size.c — "Diagram elements are scaled to be readable."
 *
 * Teaching diagrams end up on a page. A picture wider than the page's text
 * width (GEOM_PAGE_W_PT, 6.5in) or taller than its text height
 * (GEOM_PAGE_H_PT, 9in) is shown scaled down to fit, and its labels and
 * lines shrink with it: it is unreadable when its labels, on average, come
 * out smaller than GEOM_MIN_FITTED_FONT_PT (the class's \footnotesize), or
 * when it has no labels at all to keep readable (its lines just shrink).
 * The picture is also unreadable when
 *   - the whole picture is smaller than GEOM_MIN_FIGURE_PT;
 *   - a text is set below GEOM_MIN_FONT_PT;
 *   - the figure itself (its lines and shapes, without texts) is smaller
 *     than GEOM_MIN_SHAPE_EM times the font size of its labels.
 * The picture's extent is what TeX shows: everything drawn, cut to its clip
 * regions, together with the clip regions themselves.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/geom/geom.h"

void geom_readable_size(const ir_diagram *d, const void *ctx, chk_verdict *v)
{
    const geom_scene *s = ctx;
    ir_box pic = ir_box_empty();
    if (d->has_bbox) ir_box_union(&pic, ir_box_make(d->bbox[0], d->bbox[1], d->bbox[2], d->bbox[3]));
    else ir_box_union(&pic, s->ink);
    for (size_t i = 0; i < s->nclips; i++) ir_box_union(&pic, s->clips[i].box);
    if (pic.empty) {
        chk_set(v, CHK_YES, 0, "nothing is drawn");
        return;
    }
    double w = ir_box_w(pic), h = ir_box_h(pic);
    if (fmax(w, h) < GEOM_MIN_FIGURE_PT) {
        chk_set(v, CHK_NO, 0, "the whole picture is only %.1f x %.1fpt (minimum %.0fpt)", w, h,
                GEOM_MIN_FIGURE_PT);
        return;
    }
    double fit = fmin(1.0, fmin(GEOM_PAGE_W_PT / w, GEOM_PAGE_H_PT / h));
    double maxfont = 0, sumfont = 0;
    int line = 0;
    size_t largest = 0;   /* the text set largest */
    for (size_t i = 0; i < s->ntexts; i++) {
        const geom_text *t = &s->texts[i];
        if (t->size < GEOM_MIN_FONT_PT) {
            chk_set(v, CHK_NO, t->line, "text \"%s\" is set at %.1fpt (minimum %.0fpt)", t->show,
                    t->size, GEOM_MIN_FONT_PT);
            chk_blame(v, t->elem);
            return;
        }
        if (t->size > maxfont) { maxfont = t->size; line = t->line; largest = t->elem; }
        sumfont += t->size;
    }
    int fitted = fit < 1.0 - 1e-3;
    double meanfont = s->ntexts ? sumfont / (double)s->ntexts : 0;
    if (fitted && (!s->ntexts || fit * meanfont < GEOM_MIN_FITTED_FONT_PT)) {
        if (s->ntexts)
            chk_set(v, CHK_NO, 0,
                    "the picture is %.0f x %.0fpt, larger than the %.0f x %.0fpt page: fitted to "
                    "it, the %.0fpt labels shrink to %.1fpt (minimum %.0fpt)",
                    w, h, GEOM_PAGE_W_PT, GEOM_PAGE_H_PT, meanfont, fit * meanfont,
                    GEOM_MIN_FITTED_FONT_PT);
        else
            chk_set(v, CHK_NO, 0,
                    "the picture is %.0f x %.0fpt, larger than the %.0f x %.0fpt page: it is "
                    "shown at %.0f%% of its size",
                    w, h, GEOM_PAGE_W_PT, GEOM_PAGE_H_PT, fit * 100);
        return;
    }
    if (!s->figure.empty && s->ntexts > 0) {
        double fw = ir_box_w(s->figure), fh = ir_box_h(s->figure);
        if (fmax(fw, fh) < GEOM_MIN_SHAPE_EM * maxfont) {
            chk_set(v, CHK_NO, line,
                    "the figure is only %.1f x %.1fpt, smaller than its %.0fpt labels", fw, fh,
                    maxfont);
            chk_blame(v, largest);
            return;
        }
    }
    if (fitted)
        chk_set(v, CHK_YES, 0,
                "the picture is %.0f x %.0fpt, larger than the page: fitted to it, the %.0fpt "
                "labels shrink to %.1fpt, still at least %.0fpt",
                w, h, meanfont, fit * meanfont, GEOM_MIN_FITTED_FONT_PT);
    else
        chk_set(v, CHK_YES, 0,
                "the picture is %.0f x %.0fpt, fits the page, text at least %.0fpt", w, h,
                GEOM_MIN_FONT_PT);
}
