/* llm/tikz_fallback.h — tikz2ir's LLM fallback for constructs left `unparsed`. */
#ifndef DIAGRAMIR_TIKZ2IR_LLM_H
#define DIAGRAMIR_TIKZ2IR_LLM_H

#include "ir/ir.h"
#include "llm/llm.h"

typedef struct t2l_fallback t2l_fallback;

t2l_fallback *t2l_new(const llm_config *cfg, char *err, size_t errlen);
/* Writes the client's accounting summary to summary (when non-NULL). */
void t2l_free(t2l_fallback *f, FILE *summary);
/* Replaces each unparsed record of d by the model's valid IR records (src=llm);
 * the source text is what the records' lines refer to. Warnings go to diag. */
void t2l_apply(t2l_fallback *f, ir_diagram *d, const char *src, size_t srclen,
               const char *fname, FILE *diag);
/* fn(ctx) is called after each construct sent to the model, answered or
 * not (tikz2ir's progress line). */
void t2l_on_call(t2l_fallback *f, void (*fn)(void *ctx), void *ctx);

#endif
