/* graph/align.h — DiagramEval's graph metrics: node alignment by text
 * similarity, then edge and path alignment on the matched nodes.
 *
 * This header is the whole contract of graph/align.c; graphalign(1)
 * documents the definitions.
 */
#ifndef DIAGRAMIR_GRAPH_ALIGN_H
#define DIAGRAMIR_GRAPH_ALIGN_H

#include <stddef.h>

typedef struct {
    size_t n;
    char **text;            /* node texts (as written; normalized inside) */
    size_t ne;
    size_t *from, *to;      /* edges */
    unsigned char *undirected;
} graph_g;

typedef enum { GRAPH_SIM_EDIT = 0, GRAPH_SIM_TOKENS = 1 } graph_sim_kind;

typedef struct {
    double threshold;       /* a pair matches when similarity >= threshold (0.8) */
    int greedy;             /* 1: the paper's greedy procedure; 0: max total similarity */
    graph_sim_kind sim;
} graph_align_opts;

typedef struct {
    size_t tp, fp, fn;
    double p, r, f1;
} graph_prf;

typedef struct {
    graph_prf node, edge, path;
    long *match;            /* per reference node: generated node or -1 (malloc'd) */
    double total_sim;
} graph_align_result;

void graph_align_opts_init(graph_align_opts *o);
/* Normalized text: lower case (ASCII), white space collapsed and trimmed. */
char *graph_norm_text(const char *s);
/* Similarity of two normalized texts in [0, 1]. */
double graph_similarity(const char *a, const char *b, graph_sim_kind kind);
/* Aligns gen against ref. Returns 0 (out of memory aborts). */
int graph_align(const graph_g *ref, const graph_g *gen, const graph_align_opts *o,
                graph_align_result *res);
void graph_align_result_free(graph_align_result *res);
/* P, R, F1 from counts: a ratio whose denominator is 0 is 1 when the other
 * denominator is 0 too (both sides empty: perfect agreement), else 0. */
void graph_prf_finish(graph_prf *m);

#endif
