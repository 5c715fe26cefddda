/* Unit test for grammar/tikzopt.c's tk_intern, which keeps the graphics
 * state's pin_edge and node_distance texts out of the struct: a text stays
 * valid while a graphics state on the stack points to it, even when later
 * calls free the others (the list reaching its limit); the same text gives
 * the same pointer. Random pushes, pops and sets; every state's texts are
 * compared with a shadow copy after each step (ASan, in make check-san, sees
 * a read of a freed text). */
#include "grammar/interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xorshift.h"

#define DEPTH 12

int main(void)
{
    tikz T;
    memset(&T, 0, sizeof T);
    tk_gs_push(&T);
    char want_pe[DEPTH][32], want_nd[DEPTH][32];
    strcpy(want_pe[0], "");
    strcpy(want_nd[0], "1cm and 1cm");
    uint64_t x = 0x9E3779B97F4A7C15ull;
    long checks = 0, bad = 0;
    for (long it = 0; it < 200000 && !bad; it++) {
        uint64_t r = xorshift64(&x);
        size_t d = T.ngs - 1;
        if (r % 4 == 0 && T.ngs < DEPTH) {
            tk_gs_push(&T);
            memcpy(want_pe[d + 1], want_pe[d], sizeof want_pe[d]);
            memcpy(want_nd[d + 1], want_nd[d], sizeof want_nd[d]);
        } else if (r % 4 == 1 && T.ngs > 1) {
            tk_gs_pop(&T);
        } else {
            char buf[32];
            /* up to 500 distinct texts: more than the list's first limit */
            int n = snprintf(buf, sizeof buf, "t%u", (unsigned)(xorshift64(&x) % 500));
            const char *t = tk_intern(&T, buf, (size_t)n);
            if (tk_intern(&T, buf, (size_t)n) != t) bad = 1;
            if (r & 8) { T.gs[d].pin_edge = t; strcpy(want_pe[d], buf); }
            else { T.gs[d].node_distance = t; strcpy(want_nd[d], buf); }
        }
        for (size_t i = 0; i < T.ngs; i++, checks += 2)
            if (strcmp(T.gs[i].pin_edge, want_pe[i]) != 0 || strcmp(T.gs[i].node_distance, want_nd[i]) != 0)
                bad = 1;
    }
    while (T.ngs) tk_gs_pop(&T);
    free(T.gs);
    tk_intern_free(&T);
    if (bad) {
        printf("test_opt_intern: an interned text changed or was freed while a graphics state pointed to it\n");
        return 1;
    }
    printf("test_opt_intern: %ld checks, 0 failures\n", checks);
    return 0;
}
