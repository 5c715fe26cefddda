/* texexp_internal.h — what grammar/texexp.c gives its unit tests beyond the
 * public texexp.h. Not part of the contract. */
#ifndef DIAGRAMIR_TEXEXP_INTERNAL_H
#define DIAGRAMIR_TEXEXP_INTERNAL_H

#include "grammar/texexp.h"

/* On, a macro whose body takes arguments is expanded by copying its body
 * with the arguments substituted onto the token stack (the reference); off
 * (the default), its literal pieces are read in place. Both read the same
 * tokens with the same errors (tests/unit/test_texexp_runs.c compares
 * them). */
void tex_set_copying_expansion(tex_ctx *c, int on);

#endif
