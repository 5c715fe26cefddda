/* llm/svg_refine.h — svg2graph --llm: DiagramEval's node refinement (merge,
 * add, remove) and edge refinement (add, remove, with direction) through
 * the project's LLM client, applied on top of the geometric graph.
 *
 * The prompts are data files (llm/rubrics/svg2graph-nodes.prompt and
 * svg2graph-edges.prompt, judge(1)'s rubric syntax without criteria); the
 * answers are strict JSON, checked here; an answer that is not valid (no
 * JSON object, a key or value out of the schema, an unknown id, operations
 * that contradict each other) gets one repair request and is otherwise
 * dropped with a warning: the diagram keeps the geometric result of that
 * step. Records the model changed or added carry src=llm. svg2graph(1),
 * LLM REFINEMENT, is the specification. */
#ifndef DIAGRAMIR_SVG2GRAPH_LLM_H
#define DIAGRAMIR_SVG2GRAPH_LLM_H

#include <stdio.h>

#include "ir/ir.h"
#include "llm/image.h"
#include "llm/llm.h"

enum { S2L_NODES = 1, S2L_EDGES = 2 };

typedef struct {
    unsigned steps;          /* S2L_NODES | S2L_EDGES */
    size_t svg_max;          /* bytes of SVG source sent; 0: none */
    const char *prompt_dir;  /* looked in first for the prompt files; NULL: none */
    FILE *dry_run;           /* not NULL: print the requests here as JSON lines, send nothing */
    int no_image;            /* send no picture of the SVG */
    llm_image_opts image;    /* how the picture is made (llm/image.h); its cache follows cfg's */
} s2l_opts;

typedef struct s2l s2l;

/* Loads the prompt files and (unless dry-running) starts the client. NULL
 * with the reason in err. */
s2l *s2l_new(const llm_config *cfg, const s2l_opts *o, char *err, size_t errlen);
/* Writes the client's accounting and a count of the steps to summary (when
 * not NULL), then frees everything. */
void s2l_free(s2l *f, FILE *summary);
/* Refines d, the complete geometric IR of one diagram (text records with
 * node=, vertex and edge records), svg its source. Each request carries
 * the SVG rendered to PNG (llm/image.h), as DiagramEval's model sees it.
 * Warnings go to diag as "FILE: warning: ...". Returns 0 when every step
 * was answered and applied (an answer without operations included), 1 when
 * a step failed (its geometric result is kept), 2 when the SVG cannot be
 * made into a picture (over a limit, or librsvg cannot read it: nothing is
 * sent; the error on diag, else on stderr). */
int s2l_apply(s2l *f, ir_diagram *d, const char *svg, size_t svglen, const char *fname,
              FILE *diag);
/* fn(ctx) is called after each step s2l_apply takes (nodes, edges), applied
 * or not (svg2graph's progress line). */
void s2l_on_step(s2l *f, void (*fn)(void *ctx), void *ctx);

/* Checks a model's answer text for step S2L_NODES or S2L_EDGES against d and,
 * when it is valid, applies it (what s2l_apply does with an answer; no
 * model involved). 0 applied; -1 with the reason in err, d unchanged. */
int s2l_apply_answer(ir_diagram *d, unsigned step, const char *answer, size_t n, char *err,
                     size_t errlen);

#endif
