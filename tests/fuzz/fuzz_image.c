/* fuzz_image.c — the in-process part of the model's pictures (llm/image.h,
 * draw/draw.h): what a file is (llm_image_probe: PNG/JPEG/GIF header
 * sizes, SVG, TikZ), a raster image through llm_images_convert (no cache,
 * so nothing is written; a raster input never forks), and an SVG through
 * draw_svgdoc_png, the rasterizer judge runs in a child process, here run
 * in the harness itself with small limits. Checked: a raster image over
 * the limits is refused and one within them comes back as it was; a
 * rasterized SVG is a PNG within the limits, of the size reported. A
 * violation aborts. TikZ is only probed (TeX is not run). */
#define HARNESS "fuzz_image"
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "draw/draw.h"
#include "llm/image.h"
#include "tests/fuzz/watchdog.h"

static llm_images *im;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    watchdog_arm(1);
    if (!im) {
        llm_image_opts o;
        llm_image_opts_init(&o);
        o.no_cache = 1;
        o.max_side = 512;
        o.max_pixels = 100000;
        char err[256];
        im = llm_images_new(&o, err, sizeof err);
        if (!im) abort();
    }
    double w, h;
    int kind = llm_image_probe(data, size, &w, &h);
    if (kind == LLM_IMAGE_RASTER) {
        unsigned char *out;
        size_t n;
        char err[600];
        int rc = llm_images_convert(im, data, size, "fuzz", &out, &n, err, sizeof err);
        int over = w > 512 || h > 512 || w * h > 100000;
        if (rc == LLM_IMAGE_OK && (over || n != size || memcmp(out, data, size) != 0)) abort();
        if (rc != LLM_IMAGE_OK && (!over || !strstr(err, "over the limit"))) abort();
        free(out);
    } else if (kind == LLM_IMAGE_SVG && size < 65536) {
        char *png = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&png, &n);
        if (!f) abort();
        draw_svgdoc_opts o = {150, 512, 100000};
        int pw, ph;
        char err[600];
        int rc = draw_svgdoc_png(f, data, size, &o, &pw, &ph, err, sizeof err);
        fclose(f);
        if (rc == 0) {
            double rw, rh;
            if (llm_image_probe(png, n, &rw, &rh) != LLM_IMAGE_RASTER || rw != pw || rh != ph ||
                pw < 1 || ph < 1 || pw > 512 || ph > 512 || (double)pw * ph > 100000)
                abort();
        }
        free(png);
    }
    watchdog_arm(0);
    return 0;
}
