/* svgwin — draws a window of an SVG document into a PNG, through librsvg,
 * with the window placed exactly (to a fraction of a pixel):
 *
 *   svgwin [--dpi D] [--transparent] X Y W H IN.svg OUT.png
 *
 * Pixel (0,0)'s top-left corner is the point (X, Y) of IN.svg's root user
 * space (the viewBox's space, y down); the PNG is W x H pixels; a root user
 * unit is as long as the document's width says (width="585pt" with a
 * viewBox 585 wide: one unit is 1bp, 1/72 inch), and D pixels make an inch.
 * The page is white unless --transparent.
 *
 * check-render.sh draws TeX's page (dvisvgm's SVG of pdflatex's PDF) with it
 * so that TeX's raster has exactly the pixel grid of ours.
 * Exit status: 0 written; 2 usage or an unreadable input; 1 a write error.
 */
#include <librsvg/rsvg.h>
#include <cairo.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fputs("usage: svgwin [--dpi D] [--transparent] X Y W H IN.svg OUT.png\n"
          "  draws the window of IN.svg whose top-left corner is the root user point\n"
          "  (X,Y) into a W x H pixel PNG at D dots per inch (default 288)\n", f);
}

static int num(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return end != s && *end == '\0';
}

/* A length of the root's width or height in bp (72 per inch). */
static double in_bp(RsvgLength l, double vb)
{
    switch (l.unit) {
    case RSVG_UNIT_PT: return l.length;
    case RSVG_UNIT_IN: return l.length * 72.0;
    case RSVG_UNIT_CM: return l.length * 72.0 / 2.54;
    case RSVG_UNIT_MM: return l.length * 72.0 / 25.4;
    case RSVG_UNIT_PC: return l.length * 12.0;
    case RSVG_UNIT_PX: return l.length * 72.0 / 96.0;
    case RSVG_UNIT_PERCENT: return l.length * vb * 72.0 / 96.0;
    default: return vb * 72.0 / 96.0;  /* em, ex: as CSS pixels (rare) */
    }
}

int main(int argc, char **argv)
{
    double dpi = 288;
    int transparent = 0;
    static const struct option lo[] = {
        {"dpi", required_argument, 0, 'd'},
        {"transparent", no_argument, 0, 'T'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "d:Th", lo, 0)) != -1) {
        switch (c) {
        case 'd':
            if (!num(optarg, &dpi) || dpi <= 0 || dpi > 10000) {
                fprintf(stderr, "svgwin: bad --dpi %s\n", optarg);
                return 2;
            }
            break;
        case 'T': transparent = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (argc - optind != 6) { usage(stderr); return 2; }
    double x, y, w, h;
    if (!num(argv[optind], &x) || !num(argv[optind + 1], &y) ||
        !num(argv[optind + 2], &w) || !num(argv[optind + 3], &h) ||
        w < 1 || h < 1 || w > 30000 || h > 30000 || w * h > 4e8) {
        fprintf(stderr, "svgwin: bad window (X Y W H, W and H whole pixels)\n");
        return 2;
    }
    const char *in = argv[optind + 4], *out = argv[optind + 5];
    GError *err = NULL;
    RsvgHandle *hd = rsvg_handle_new_from_file(in, &err);
    if (!hd) {
        fprintf(stderr, "svgwin: %s: %s\n", in, err ? err->message : "cannot read");
        return 2;
    }
    gboolean hw, hh, hvb;
    RsvgLength lw, lh;
    RsvgRectangle vb;
    rsvg_handle_get_intrinsic_dimensions(hd, &hw, &lw, &hh, &lh, &hvb, &vb);
    if (!hvb) {  /* no viewBox: user units are CSS pixels */
        vb.x = vb.y = 0;
        vb.width = hw ? in_bp(lw, 0) * 96.0 / 72.0 : 100;
        vb.height = hh ? in_bp(lh, 0) * 96.0 / 72.0 : 100;
    }
    double unit_bp = hw && vb.width > 0 ? in_bp(lw, vb.width) / vb.width : 72.0 / 96.0;
    double k = dpi / 72.0 * unit_bp;  /* pixels per root user unit */

    int iw = (int)w, ih = (int)h;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, iw, ih);
    cairo_t *cr = cairo_create(s);
    if (!transparent) {
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_paint(cr);
    }
    cairo_scale(cr, k, k);
    cairo_translate(cr, -x, -y);
    RsvgRectangle vp = {vb.x, vb.y, vb.width, vb.height};
    if (!rsvg_handle_render_document(hd, cr, &vp, &err)) {
        fprintf(stderr, "svgwin: %s: %s\n", in, err ? err->message : "cannot draw");
        return 2;
    }
    cairo_destroy(cr);
    cairo_status_t st = cairo_surface_write_to_png(s, out);
    cairo_surface_destroy(s);
    g_object_unref(hd);
    if (st != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "svgwin: %s: %s\n", out, cairo_status_to_string(st));
        return 1;
    }
    return 0;
}
