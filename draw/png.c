/* png.c — draw_png: draw_svg's document rasterized by librsvg into a cairo
 * image surface, written as PNG (see draw.h); draw_svgdoc_png: the same for
 * any SVG document (the images llm/image.c makes for a model).
 *
 * The only file of the project that uses librsvg, glib, cairo and libpng:
 * the Makefile gives this object their pkg-config compiler flags. No
 * program links them: like libcurl (llm/curl.h), they are dlopen()ed the
 * first time a picture is drawn (load_libs), because linking librsvg maps
 * some fifty shared libraries into every run (about 50 ms of start-up for
 * judge and svg2graph, which draw a picture only for a model, and for
 * ir2svg writing SVG). The names below map the libraries' API onto a table
 * of entry points, so the code reads as ordinary librsvg/cairo/libpng code.
 *
 * Mapping: the document's viewBox (vx, vy, vw, vh; pt) is rendered into a
 * viewport of vw*k x vh*k pixels at the origin, k = dpi / 72.27, so that
 * pixel (0, 0) is the point (vx, vy) exactly; the image is that size
 * rounded up. The surface is opaque (RGB24, painted white first) and is
 * written as an 8-bit RGB PNG by libpng (see write_png).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cairo.h>
#include <librsvg/rsvg.h>
#include <png.h>
#include <stdint.h>
#include <stdlib.h>

#include <dlfcn.h>

#include "draw/draw_internal.h"

/* ------------------------------------------------ the libraries, loaded */

/* X(library index, function): the entry points this file calls. */
#define DL_FUNCS(X)                                                                           \
    X(0, rsvg_handle_new_from_data) X(0, rsvg_handle_set_dpi)                                 \
    X(0, rsvg_handle_get_intrinsic_size_in_pixels) X(0, rsvg_handle_get_intrinsic_dimensions) \
    X(0, rsvg_handle_render_document)                                                         \
    X(1, g_object_unref) X(2, g_error_free)                                                   \
    X(3, cairo_image_surface_create) X(3, cairo_surface_status) X(3, cairo_status_to_string)  \
    X(3, cairo_surface_destroy) X(3, cairo_create) X(3, cairo_set_source_rgb)                  \
    X(3, cairo_paint) X(3, cairo_destroy) X(3, cairo_surface_flush)                           \
    X(3, cairo_image_surface_get_width) X(3, cairo_image_surface_get_height)                  \
    X(3, cairo_image_surface_get_stride) X(3, cairo_image_surface_get_data)                   \
    X(4, png_create_write_struct) X(4, png_create_info_struct) X(4, png_destroy_write_struct) \
    X(4, png_set_write_fn) X(4, png_set_IHDR) X(4, png_set_compression_level)                 \
    X(4, png_set_filter) X(4, png_write_info) X(4, png_write_row) X(4, png_write_end)         \
    X(4, png_get_io_ptr) X(4, png_set_longjmp_fn) X(4, png_longjmp)

/* The SONAMEs (Debian: librsvg2-2, libglib2.0-0, libcairo2, libpng16-16). */
static const char *const dl_libs[] = {"librsvg-2.so.2", "libgobject-2.0.so.0",
                                      "libglib-2.0.so.0", "libcairo.so.2", "libpng16.so.16"};

#define DL_FIELD(lib, name) __typeof__(&name) name;
static struct {
    DL_FUNCS(DL_FIELD)
} dl;
static int dl_loaded;

/* Loads the libraries once per process: 0, or -1 with the reason. */
static int load_libs(char *err, size_t errlen)
{
    if (dl_loaded) return 0;
    void *h[sizeof dl_libs / sizeof dl_libs[0]];
    for (size_t i = 0; i < sizeof dl_libs / sizeof dl_libs[0]; i++) {
        h[i] = dlopen(dl_libs[i], RTLD_NOW | RTLD_LOCAL);
        if (!h[i]) {
            snprintf(err, errlen, "cannot load %s (librsvg2-2, libcairo2, libpng16-16): %s",
                     dl_libs[i], dlerror());
            return -1;
        }
    }
    /* dlsym returns void *: ISO C has no conversion from it to a function
     * pointer, POSIX guarantees the representation, so copy the bytes */
#define DL_SYM(lib, name)                                                          \
    {                                                                              \
        void *p = dlsym(h[lib], #name);                                            \
        if (!p) {                                                                  \
            snprintf(err, errlen, "%s has no %s: %s", dl_libs[lib], #name, dlerror()); \
            return -1;                                                             \
        }                                                                          \
        memcpy(&dl.name, &p, sizeof dl.name);                                      \
    }
    DL_FUNCS(DL_SYM)
#undef DL_SYM
    dl_loaded = 1;
    return 0;
}

#define rsvg_handle_new_from_data dl.rsvg_handle_new_from_data
#define rsvg_handle_set_dpi dl.rsvg_handle_set_dpi
#define rsvg_handle_get_intrinsic_size_in_pixels dl.rsvg_handle_get_intrinsic_size_in_pixels
#define rsvg_handle_get_intrinsic_dimensions dl.rsvg_handle_get_intrinsic_dimensions
#define rsvg_handle_render_document dl.rsvg_handle_render_document
#define g_object_unref dl.g_object_unref
#define g_error_free dl.g_error_free
#define cairo_image_surface_create dl.cairo_image_surface_create
#define cairo_surface_status dl.cairo_surface_status
#define cairo_status_to_string dl.cairo_status_to_string
#define cairo_surface_destroy dl.cairo_surface_destroy
#define cairo_create dl.cairo_create
#define cairo_set_source_rgb dl.cairo_set_source_rgb
#define cairo_paint dl.cairo_paint
#define cairo_destroy dl.cairo_destroy
#define cairo_surface_flush dl.cairo_surface_flush
#define cairo_image_surface_get_width dl.cairo_image_surface_get_width
#define cairo_image_surface_get_height dl.cairo_image_surface_get_height
#define cairo_image_surface_get_stride dl.cairo_image_surface_get_stride
#define cairo_image_surface_get_data dl.cairo_image_surface_get_data
#define png_create_write_struct dl.png_create_write_struct
#define png_create_info_struct dl.png_create_info_struct
#define png_destroy_write_struct dl.png_destroy_write_struct
#define png_set_write_fn dl.png_set_write_fn
#define png_set_IHDR dl.png_set_IHDR
#define png_set_compression_level dl.png_set_compression_level
#define png_set_filter dl.png_set_filter
#define png_write_info dl.png_write_info
#define png_write_row dl.png_write_row
#define png_write_end dl.png_write_end
#define png_get_io_ptr dl.png_get_io_ptr
#define png_set_longjmp_fn dl.png_set_longjmp_fn
#define png_longjmp dl.png_longjmp

/* Limits: pixels of one image, pixels of a side (cairo's), and an estimate
 * of the pixels the elements cover in total (the work of rasterizing). */
#define PNG_MAX_PIXELS 40000000.0
#define PNG_MAX_SIDE 32767.0
#define PNG_MAX_WORK 2e9

/* zlib level and row filter of the PNG: cairo_surface_write_to_png_stream
 * uses libpng's defaults (level 6, every filter tried on every row), which
 * took 40% of ir2svg --png's time; a mostly white picture compresses about
 * as well with the Sub filter alone at level 3. PNG_LEVEL in the environment
 * is not read: output depends on nothing but the input. */
#define PNG_ZLEVEL 3

typedef struct {
    FILE *f;
    int failed;
} png_sink;

static void png_write_cb(png_structp p, png_bytep data, png_size_t len)
{
    png_sink *s = png_get_io_ptr(p);
    if (!s->failed && fwrite(data, 1, len, s->f) != len) s->failed = 1;
}

static void png_flush_cb(png_structp p) { (void)p; }

static void png_error_cb(png_structp p, png_const_charp msg)
{
    (void)msg;
    png_longjmp(p, 1);
}

static void png_warning_cb(png_structp p, png_const_charp msg)
{
    (void)p;
    (void)msg;
}

/* The RGB24 surface s as an 8-bit RGB PNG. Returns 0, or -1. */
static int write_png(cairo_surface_t *s, FILE *f, char *err, size_t errlen)
{
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *data = cairo_image_surface_get_data(s);
    png_sink sink = {f, 0};
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, png_error_cb, png_warning_cb);
    png_infop info = p ? png_create_info_struct(p) : NULL;
    /* volatile: assigned between setjmp and a longjmp back */
    unsigned char *volatile row = malloc((size_t)w * 3 + 1);
    if (!p || !info || !row || !data) {
        snprintf(err, errlen, "writing the PNG: out of memory");
        png_destroy_write_struct(p ? &p : NULL, info ? &info : NULL);
        free(row);
        return -1;
    }
    if (setjmp(png_jmpbuf(p))) {
        snprintf(err, errlen, "writing the PNG failed");
        png_destroy_write_struct(&p, &info);
        free(row);
        return -1;
    }
    png_set_write_fn(p, &sink, png_write_cb, png_flush_cb);
    png_set_IHDR(p, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(p, PNG_ZLEVEL);
    png_set_filter(p, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_write_info(p, info);
    for (int y = 0; y < h; y++) {
        const uint32_t *px = (const uint32_t *)(const void *)(data + (size_t)y * (size_t)stride);
        unsigned char *o = row;
        for (int x = 0; x < w; x++) {
            uint32_t v = px[x];
            *o++ = (unsigned char)(v >> 16);
            *o++ = (unsigned char)(v >> 8);
            *o++ = (unsigned char)v;
        }
        png_write_row(p, row);
    }
    png_write_end(p, info);
    png_destroy_write_struct(&p, &info);
    free(row);
    if (sink.failed) {
        snprintf(err, errlen, "writing the PNG: write error");
        return -1;
    }
    return 0;
}

static int render_png(FILE *f, RsvgHandle *h, double pw, double ph, int wpx, int hpx, char *err,
                      size_t errlen);

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
        /* shaping text costs about as much as filling 2000 pixels a byte
         * (draw.c draws at most 200 lines of 1000 bytes) */
        if ((e->kind == IR_TEXT || e->kind == IR_VERTEX) && e->str) {
            size_t n = strlen(e->str);
            work += 2000.0 * (double)(n < 200000 ? n : 200000);
        }
        if (work > 1e18) break;
    }
    return work;
}

int draw_png(FILE *f, const ir_diagram *d, const draw_opts *o, double dpi, char *err, size_t errlen)
{
    if (load_libs(err, errlen) != 0) return -1;
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
    int rc = render_png(f, h, pw, ph, (int)wpx, (int)hpx, err, errlen);
    g_object_unref(h);
    return rc;
}

/* The SVG document of h rendered into a viewport of pw x ph pixels at the
 * origin of an opaque white wpx x hpx image, written as PNG to f. */
static int render_png(FILE *f, RsvgHandle *h, double pw, double ph, int wpx, int hpx, char *err,
                      size_t errlen)
{
    GError *gerr = NULL;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, wpx, hpx);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "cairo: %s", cairo_status_to_string(cairo_surface_status(s)));
        cairo_surface_destroy(s);
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
    if (rc == 0) rc = write_png(s, f, err, errlen);
    cairo_surface_destroy(s);
    return rc;
}

int draw_svgdoc_png(FILE *f, const void *svg, size_t n, const draw_svgdoc_opts *o, int *w, int *h,
                    char *err, size_t errlen)
{
    *w = *h = 0;
    if (load_libs(err, errlen) != 0) return -1;
    if (!(o->dpi > 0) || !isfinite(o->dpi)) {
        snprintf(err, errlen, "bad resolution %g dpi", o->dpi);
        return -1;
    }
    GError *gerr = NULL;
    /* no base file: the document cannot pull in other files (images, CSS) */
    RsvgHandle *hd = rsvg_handle_new_from_data((const guint8 *)svg, (gsize)n, &gerr);
    if (!hd) {
        snprintf(err, errlen, "not a readable SVG document: %s",
                 gerr && gerr->message ? gerr->message : "librsvg cannot read it");
        if (gerr) g_error_free(gerr);
        return -1;
    }
    rsvg_handle_set_dpi(hd, o->dpi);
    double pw = 0, ph = 0;
    if (!rsvg_handle_get_intrinsic_size_in_pixels(hd, &pw, &ph)) {
        /* width or height missing or relative: the viewBox's size, as pixels */
        gboolean has_w, has_h, has_vb;
        RsvgLength lw, lh;
        RsvgRectangle vb;
        rsvg_handle_get_intrinsic_dimensions(hd, &has_w, &lw, &has_h, &lh, &has_vb, &vb);
        if (!has_vb) {
            snprintf(err, errlen, "the SVG has no absolute width and height and no viewBox: "
                     "its size is unknown");
            g_object_unref(hd);
            return -1;
        }
        pw = vb.width;
        ph = vb.height;
    }
    if (!(pw > 0 && ph > 0)) {
        snprintf(err, errlen, "the SVG's size is %g x %g pixels: nothing to draw", pw, ph);
        g_object_unref(hd);
        return -1;
    }
    double wpx = ceil(pw - 1e-6), hpx = ceil(ph - 1e-6);
    if (!(wpx <= o->max_side && hpx <= o->max_side && wpx * hpx <= o->max_pixels &&
          wpx <= PNG_MAX_SIDE && hpx <= PNG_MAX_SIDE)) {
        snprintf(err, errlen,
                 "the SVG is %.0f x %.0f pixels (at %g dpi), over the limit of %.0f a side and "
                 "%.0f in all",
                 fmin(wpx, 1e15), fmin(hpx, 1e15), o->dpi, fmin(o->max_side, PNG_MAX_SIDE),
                 o->max_pixels);
        g_object_unref(hd);
        return -1;
    }
    int rc = render_png(f, hd, pw, ph, (int)wpx, (int)hpx, err, errlen);
    g_object_unref(hd);
    if (rc == 0) {
        *w = (int)wpx;
        *h = (int)hpx;
    }
    return rc;
}
