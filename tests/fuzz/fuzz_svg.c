/* fuzz_svg.c — fuzz harness for svg2graph's front end: the XML reader
 * (libexpat with its limits), the renderer (cascade, transforms, text,
 * markers, <use>), the path-data parser and the graph builder.
 *
 * Byte 0 selects: even -> the bytes after it are a whole SVG document,
 * parsed, rendered, turned into a graph and written as IR (to a memory
 * stream); odd -> they are path data for svg_path_parse alone. Whatever the
 * input: no crash, no leak, no hang; a rejected document must come with a
 * "FILE:LINE:COL: error: " message, and every graph edge must name vertices
 * that exist. A violation aborts. */
#include "graph/build.h"
#include "svg/doc.h"
#include "svg/path.h"
#include "svg/render.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const char *body = (const char *)data + 1;
    size_t len = size - 1;
    if (data[0] & 1) {
        char *d = malloc(len + 1);
        if (!d) abort();
        memcpy(d, body, len);
        d[len] = 0;
        svg_pathdata pd;
        memset(&pd, 0, sizeof pd);
        size_t pos = 0;
        const char *msg = NULL;
        if (svg_path_parse(d, &pd, 100000, &pos, &msg) < 0 && (!msg || pos > len)) abort();
        svg_path_free(&pd);
        double *v = NULL;
        long n = svg_parse_numbers(d, &v);
        if (n > 0 && !v) abort();
        free(v);
        free(d);
        return 0;
    }
    char err[1024] = "";
    svg_limits lim = { 1 << 20, 64 };
    svg_doc *doc = svg_doc_parse(body, len, "fuzz.svg", &lim, err, sizeof err);
    if (!doc) {
        if (strncmp(err, "fuzz.svg:", 9) != 0 || !strstr(err, ": error: ")) abort();
        return 0;
    }
    svg_scene sc;
    memset(&sc, 0, sizeof sc);
    svg_render_limits rl = { 200000, 20000 };
    if (svg_render(doc, "fuzz.svg", &rl, &sc, err, sizeof err, NULL) < 0) {
        if (strncmp(err, "fuzz.svg:", 9) != 0 || !strstr(err, ": error: ")) abort();
    } else {
        graph_opts go;
        graph_opts_init(&go);
        graph_result g;
        graph_build(&sc, &go, &g);
        for (size_t i = 0; i < g.ne; i++)
            if (g.e[i].from >= g.nv || g.e[i].to >= g.nv) abort();
        graph_result_free(&g);
    }
    svg_scene_free(&sc);
    svg_doc_free(doc);
    return 0;
}
