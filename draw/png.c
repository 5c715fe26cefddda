/* png.c — draw_png: draw_svg's document rasterized by librsvg into a cairo
 * image surface, written as PNG (see draw.h).
 *
 * The only file of the project that uses librsvg, glib and cairo: the
 * Makefile gives this object (and the programs that call draw_png) their
 * pkg-config flags.
 *
 * Mapping: the document's viewBox (vx, vy, vw, vh; pt) is rendered into a
 * viewport of vw*k x vh*k pixels at the origin, k = dpi / 72.27, so that
 * pixel (0, 0) is the point (vx, vy) exactly; the image is that size
 * rounded up.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cairo.h>
#include <librsvg/rsvg.h>

#include "draw/draw_internal.h"

/* Limits: pixels of one image, pixels of a side (cairo's), and an estimate
 * of the pixels the elements cover in total (the work of rasterizing). */
#define PNG_MAX_PIXELS 40000000.0
#define PNG_MAX_SIDE 32767.0
#define PNG_MAX_WORK 2e9

static cairo_status_t write_png(void *closure, const unsigned char *data, unsigned int len)
{
    FILE *f = closure;
    return fwrite(data, 1, len, f) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* The pixels each element covers, at most the image's, summed. */
static double raster_work(const ir_diagram *d, double k, double img)
{
    double work = img; /* the background */
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        ir_box b = ir_elem_box(e);
        double a = img;
        if (!b.empty) {
            double lw = ir_elem_getnum(e, "lw", 0.4);
            if (!(lw >= 0)) lw = 0;
            double w = ((b.x2 - b.x1) + lw + 8) * k, h = ((b.y2 - b.y1) + lw + 8) * k;
            a = w * h;
            if (!(a < img)) a = img;
        } else if (e->kind != IR_EDGE) {
            continue;
        }
        work += a;
        if (work > 1e18) break;
    }
    return work;
}

int draw_png(FILE *f, const ir_diagram *d, const draw_opts *o, double dpi, char *err, size_t errlen)
{
    if (!(dpi > 0) || !isfinite(dpi)) {
        snprintf(err, errlen, "bad resolution %g dpi", dpi);
        return -1;
    }
    draw_opts oo = *o;
    oo.fragment = 0;
    oo.scale = 0;
    dbuf b = {0};
    draw_canvas cv;
    draw_svg_buf(&b, d, &oo, &cv);
    double k = dpi / 72.27;
    double pw = cv.vw * k, ph = cv.vh * k;
    double wpx = ceil(pw - 1e-6), hpx = ceil(ph - 1e-6);
    if (wpx < 1) wpx = 1;
    if (hpx < 1) hpx = 1;
    if (!(wpx <= PNG_MAX_SIDE && hpx <= PNG_MAX_SIDE && wpx * hpx <= PNG_MAX_PIXELS)) {
        snprintf(err, errlen,
                 "the picture would be %.0f x %.0f pixels at %g dpi, over the limit of %.0f pixels "
                 "(%.0f a side): lower the resolution",
                 fmin(wpx, 1e15), fmin(hpx, 1e15), dpi, PNG_MAX_PIXELS, PNG_MAX_SIDE);
        db_free(&b);
        return -1;
    }
    double work = raster_work(d, k, wpx * hpx);
    if (!(work <= PNG_MAX_WORK)) {
        snprintf(err, errlen,
                 "the picture's %zu elements would cover about %.3g pixels at %g dpi, over the "
                 "limit of %.3g: lower the resolution",
                 d->nelems, work, dpi, PNG_MAX_WORK);
        db_free(&b);
        return -1;
    }
    GError *gerr = NULL;
    RsvgHandle *h =
        rsvg_handle_new_from_data((const guint8 *)b.p, (gsize)b.n, &gerr);
    db_free(&b);
    if (!h) {
        snprintf(err, errlen, "librsvg: %s", gerr && gerr->message ? gerr->message : "cannot read the SVG");
        if (gerr) g_error_free(gerr);
        return -1;
    }
    rsvg_handle_set_dpi(h, 72.27);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)wpx, (int)hpx);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "cairo: %s", cairo_status_to_string(cairo_surface_status(s)));
        cairo_surface_destroy(s);
        g_object_unref(h);
        return -1;
    }
    cairo_t *cr = cairo_create(s);
    /* white where the document does not reach (the rounded-up edge) */
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    RsvgRectangle vp = {0, 0, pw, ph};
    int rc = 0;
    if (!rsvg_handle_render_document(h, cr, &vp, &gerr)) {
        snprintf(err, errlen, "librsvg: %s", gerr && gerr->message ? gerr->message : "cannot render");
        if (gerr) g_error_free(gerr);
        rc = -1;
    }
    cairo_destroy(cr);
    cairo_surface_flush(s);
    if (rc == 0) {
        cairo_status_t st = cairo_surface_write_to_png_stream(s, write_png, f);
        if (st != CAIRO_STATUS_SUCCESS) {
            snprintf(err, errlen, "writing the PNG: %s", cairo_status_to_string(st));
            rc = -1;
        }
    }
    cairo_surface_destroy(s);
    g_object_unref(h);
    return rc;
}
