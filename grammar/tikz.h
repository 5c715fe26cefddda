/* tikz.h — the TikZ front end: LaTeX/TikZ source in, IR diagrams out.
 *
 * One call converts one source file. Every tikzpicture becomes one IR
 * diagram (ids: the base id, then base.2, base.3, ...). Constructs the front
 * end cannot evaluate become `unparsed` records plus a warning. */
#ifndef DIAGRAMIR_TIKZ_H
#define DIAGRAMIR_TIKZ_H

#include <stddef.h>
#include <stdio.h>
#include "ir/ir.h"

/* A session keeps what every file starts from (the IM class's macros and
 * styles, tokenized once), so converting many files costs no set-up each.
 * Files never see each other's definitions. */
typedef struct tikz_session tikz_session;
tikz_session *tikz_session_new(void);
void tikz_session_free(tikz_session *s);

typedef struct {
    const char *fname;    /* for diagnostics and src= */
    const char *id;       /* base diagram id */
    int quiet;            /* no warnings on diag */
    FILE *diag;           /* warnings and errors ("file:line:col: ...") */
    int nwarnings;        /* out: warnings of the last tikz_convert call */
    int nunparsed;        /* out: unparsed records written */
    tikz_session *session; /* optional: reuse the class set-up across files */
} tikz_config;

/* Called for every finished diagram; the callee may keep or free it
 * (ownership passes to the callee). */
typedef void (*tikz_sink)(void *ctx, ir_diagram *d);

/* Returns 0 on success (warnings allowed), 2 on an input error (the error
 * was written to cfg->diag; no diagram of this file was passed to sink). */
int tikz_convert(const char *src, size_t len, tikz_config *cfg,
                 tikz_sink sink, void *sink_ctx);

#endif
