/* llm/image.h — the pictures a model sees: what judge and svg2graph --llm
 * are given, turned into an image a chat model takes.
 *
 *   PNG, JPEG, GIF, WebP   sent as they are (their size checked)
 *   SVG                    rasterized by librsvg (draw_svgdoc_png, the code of
 *                          ir2svg --png) at its own size, physical units at
 *                          opts.dpi, in a child process with a CPU-time and a
 *                          memory limit
 *   TikZ / LaTeX           typeset by TeX through contrib/tex/render.sh (the
 *                          stand-in class IM.cls; pdflatex, pdftoppm at
 *                          opts.dpi); a bare tikzpicture is wrapped in
 *                          \documentclass{IM} \usepackage{tikz}
 *
 * The kind is found by content, not by the file name. Converted pictures
 * are cached by content: the key is the SHA-256 of the input bytes, the
 * converter and its settings (and for TikZ the class and script), the file
 * DIR/HH/KEY.png (temp file + rename), DIR the image cache directory
 * (llm_image_cache_dir). A conversion that failed is remembered for the
 * run, not on disk. With no cache directory, converted pictures are kept in
 * memory for the run, so no picture is converted twice in one run.
 *
 * Errors come in two kinds: a picture the input cannot make because of
 * the input itself or a limit (too many bytes, too many pixels, TeX's
 * time, no TeX installed, not an image: LLM_IMAGE_EINPUT, judge exits 2)
 * and a TikZ source TeX rejects (LLM_IMAGE_ETEX: that item fails, its
 * TeX error recorded). judge(1), IMAGES, is the specification. */
#ifndef DIAGRAMIR_LLM_IMAGE_H
#define DIAGRAMIR_LLM_IMAGE_H

#include <getopt.h>
#include <stddef.h>

#include "llm/llm.h"

typedef struct {
    const char *cache_dir;   /* NULL: llm_image_cache_dir's default */
    int no_cache;            /* no cache on disk (memory only, for the run) */
    size_t max_bytes;        /* bytes of one input file: 16 MiB */
    double max_side;         /* pixels a side of a picture: 4096 */
    double max_pixels;       /* pixels of a picture in all: 16 million */
    double dpi;              /* SVG physical units and TeX's page: 150 */
    double tex_timeout;      /* seconds of one TeX run: 60 */
    double svg_cpu;          /* CPU seconds of one SVG rasterization: 30 */
    double mem_mb;           /* address space of a converter process, MiB: 2048 */
} llm_image_opts;

enum { LLM_IMAGE_OK = 0, LLM_IMAGE_EINPUT = -1, LLM_IMAGE_ETEX = -2 };

typedef struct llm_images llm_images;

typedef struct {
    long converted;      /* pictures converted (SVG, TikZ) */
    long cache_hits;     /* taken from the cache (disk or memory) */
    double seconds;      /* wall time of the conversions */
    int last_error;      /* the code of the last failed call (0: none yet) */
} llm_image_stats;

/* What data[0..n) is, by content, as llm_images_convert decides it, and
 * for a PNG, JPEG or GIF its pixel size in *w, *h (0 when unknown; read
 * from the header, never past n). */
enum { LLM_IMAGE_RASTER, LLM_IMAGE_SVG, LLM_IMAGE_TEX, LLM_IMAGE_UNKNOWN };
int llm_image_probe(const void *data, size_t n, double *w, double *h);

void llm_image_opts_init(llm_image_opts *o);
/* The image cache directory for an LLM cache directory (--cache-dir DIR:
 * DIR/images; NULL: $XDG_CACHE_HOME/diagramir/images, else
 * ~/.cache/diagramir/images) into out. */
void llm_image_cache_dir(const char *llm_cache_dir, char *out, size_t n);

/* NULL with the reason when the cache directory cannot be made. */
llm_images *llm_images_new(const llm_image_opts *o, char *err, size_t errlen);
void llm_images_free(llm_images *im);
const llm_image_stats *llm_images_stats(const llm_images *im);
/* The code of the last failure since the last call (0: none), reset. */
int llm_images_take_error(llm_images *im);

/* The image of the input bytes data[0..n) (name: for messages), as
 * malloc'd PNG bytes (or the input's own bytes for PNG, JPEG, GIF, WebP) in
 * *out, *outn. LLM_IMAGE_OK, or an error code with the reason in err. */
int llm_images_convert(llm_images *im, const void *data, size_t n, const char *name,
                       unsigned char **out, size_t *outn, char *err, size_t errlen);
/* The same for a file (read up to max_bytes). */
int llm_images_convert_file(llm_images *im, const char *path, unsigned char **out, size_t *outn,
                            char *err, size_t errlen);

/* Converts the file and attaches the image to r's user message. With im
 * NULL, the file is attached as it is (llm_request_add_image_file).
 * LLM_IMAGE_OK, or an error code with "PATH: reason" in err. */
int llm_images_attach_file(llm_images *im, llm_request *r, const char *path, char *err,
                           size_t errlen);
int llm_images_attach(llm_images *im, llm_request *r, const void *data, size_t n,
                      const char *name, char *err, size_t errlen);

/* The options that set llm_image_opts (judge, svg2graph --llm): put
 * LLM_IMAGE_LONG_OPTIONS into the getopt_long table and hand the codes
 * LLM_IMAGE_OPT_IS accepts to llm_image_opt_parse (0 ok; -1 after
 * "PROG: error: --NAME ..." on stderr). */
enum {
    LLM_IMAGE_OPT_FIRST = 0x4d00,
    LLM_IMAGE_OPT_BYTES = LLM_IMAGE_OPT_FIRST,
    LLM_IMAGE_OPT_SIDE,
    LLM_IMAGE_OPT_PIXELS,
    LLM_IMAGE_OPT_DPI,
    LLM_IMAGE_OPT_TEXTIME,
    LLM_IMAGE_OPT_CPU,
    LLM_IMAGE_OPT_MEM,
    LLM_IMAGE_OPT_LAST = LLM_IMAGE_OPT_MEM
};
#define LLM_IMAGE_OPT_IS(c) ((c) >= LLM_IMAGE_OPT_FIRST && (c) <= LLM_IMAGE_OPT_LAST)
#define LLM_IMAGE_LONG_OPTIONS                                          \
    { "image-max-bytes", required_argument, NULL, LLM_IMAGE_OPT_BYTES }, \
    { "image-max-side", required_argument, NULL, LLM_IMAGE_OPT_SIDE },   \
    { "image-max-pixels", required_argument, NULL, LLM_IMAGE_OPT_PIXELS }, \
    { "image-dpi", required_argument, NULL, LLM_IMAGE_OPT_DPI },         \
    { "tex-timeout", required_argument, NULL, LLM_IMAGE_OPT_TEXTIME },   \
    { "image-cpu", required_argument, NULL, LLM_IMAGE_OPT_CPU },         \
    { "image-mem", required_argument, NULL, LLM_IMAGE_OPT_MEM }
extern const char llm_image_opts_help[];
int llm_image_opt_parse(llm_image_opts *o, int opt, const char *arg, const char *prog);

#endif
