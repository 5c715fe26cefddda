/* xalloc.h — the one allocation helper every part of diagramir uses.
 *
 * Each function behaves as its libc namesake, except that it never returns
 * NULL: when memory runs out it writes "diagramir: out of memory" on stderr
 * and exits with status 2 (an input the tools cannot hold is an input error;
 * the size limits of each reader keep this from happening on real input).
 * A size of 0 is taken as 1, so the result is always a fresh pointer.
 * xstrdup(NULL) and xstrndup(NULL, n) return NULL. */
#ifndef DIAGRAMIR_XALLOC_H
#define DIAGRAMIR_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);   /* at most n bytes, NUL-terminated */

#endif
