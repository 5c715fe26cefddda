/* draw_internal.h — what the draw/ files share (not part of the contract;
 * see draw.h). */
#ifndef DIAGRAMIR_DRAW_INTERNAL_H
#define DIAGRAMIR_DRAW_INTERNAL_H

#include <stddef.h>

#include "draw/draw.h"

/* A growable output buffer. */
typedef struct {
    char *p;
    size_t n, cap;
} dbuf;

void db_put(dbuf *b, const char *s, size_t n);
void db_puts(dbuf *b, const char *s);
void db_free(dbuf *b);

/* The canvas draw_svg_buf laid out, in SVG user units (pt, y down). */
typedef struct {
    double vx, vy, vw, vh; /* viewBox */
} draw_canvas;

/* draw_svg's document, into b (appended); *cv receives the viewBox. */
void draw_svg_buf(dbuf *b, const ir_diagram *d, const draw_opts *o, draw_canvas *cv);

#endif
