/* graph/build.h — a rendered SVG scene into a graph: nodes from text items
 * (merged by geometry, grown to the shape that encloses them), directed
 * edges from connectors whose ends attach to two nodes.
 *
 * This header is the whole contract of graph/build.c; svg2graph(1)
 * documents the rules (NODES, EDGES). Pure geometry, deterministic: the
 * result depends only on the scene, in document order.
 */
#ifndef DIAGRAMIR_GRAPH_BUILD_H
#define DIAGRAMIR_GRAPH_BUILD_H

#include "svg/render.h"

typedef struct {
    double k;           /* baselines within k x font size merge (DiagramEval K, 1.5) */
    double tau;         /* ... when horizontal spans overlap by more than tau (0.2) */
    double attach_tol;  /* a connector end attaches within this many pt of a node (8) */
    double join_tol;    /* connector pieces whose ends are this close form a chain (1.5) */
    double label_k;     /* free text within label_k x font size of a connector is its label (2.5) */
    double arrow_max;   /* arrowhead polygons and V's are at most this big, pt (25) */
} graph_opts;

void graph_opts_init(graph_opts *o);

typedef enum {
    GRAPH_SH_OTHER = 0, GRAPH_SH_NODE, GRAPH_SH_ARROWHEAD, GRAPH_SH_CONNECTOR,
    GRAPH_SH_BACKGROUND, GRAPH_SH_MARKER
} graph_shape_role;

typedef struct {
    ir_box box;
    char *text;              /* texts joined top to bottom, left to right, by one blank */
    const char *shape;       /* rect, diamond, ellipse, circle, polygon, path, text */
    int line;                /* source line of its first text (or shape) */
    unsigned seq;
} graph_vertex;

typedef struct {
    size_t from, to;         /* vertex indices */
    int undirected;
    char *label;             /* edge label text or NULL */
    int line;                /* source line of the connector */
} graph_edge;

typedef struct {
    graph_vertex *v;
    size_t nv;
    graph_edge *e;
    size_t ne;
    int *shape_role;         /* per scene shape: graph_shape_role */
    long *text_vertex;       /* per scene text: vertex index, or -1 (label: -2) */
} graph_result;

/* Pairs of elements (and index answers) graph_build may examine for one
 * scene: a few seconds. Spatial indexes keep spread-out drawings of a
 * million elements far below it; only elements piled on one another in the
 * thousands reach it. */
#define GRAPH_MAX_WORK 400000000ULL

/* Builds the graph of a scene. Returns 0, or -1 when GRAPH_MAX_WORK was
 * reached (*out is then empty: graph_result_free it all the same). Out of
 * memory exits (ir/xalloc.h). */
int graph_build(const svg_scene *sc, const graph_opts *o, graph_result *out);
void graph_result_free(graph_result *g);

#endif
