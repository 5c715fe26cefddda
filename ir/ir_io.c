/* ir_io.c — reading a whole input (file or stdin) into memory, bounded. */
#include "ir/ir.h"

#include <stdlib.h>

char *ir_read_all(FILE *f, size_t max, size_t *len, int *too_big)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    *too_big = 0;
    if (!buf) return NULL;
    for (;;) {
        if (n == cap) {
            if (cap > max) { *too_big = 1; break; }
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) { free(buf); return NULL; }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (ferror(f)) { free(buf); return NULL; }
    if (n > max) *too_big = 1;
    *len = n;
    return buf;
}
