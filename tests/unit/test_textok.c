/* Unit test for grammar/texexp.c's cache of short tokenized texts: tex_tokenize
 * of a text that is in the cache must append exactly the tokens flex gave it
 * (type, character, name, line, column), whatever was tokenized in between
 * (other texts in the same or other slots, the same text at another first
 * line, texts too long for the cache). */
#include "grammar/texexp.h"
#include "xorshift.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const pieces[] = {
    "a", "xy", " ", "\n", "(", ")", "-", ";", "{", "}", "1", ".5", ",", "=", "\\m", "\\m ",
    "\\foo a", "\\,", "\\\\", "$", "~", "#", "%c\n", "\\", "  \n  ",
};

int main(void)
{
    uint64_t seed = 0x2545f4914f6cdd1dull;
    long checks = 0, failures = 0;
    enum { N = 600 };
    static char texts[N][48];
    static int lines[N];
    static toklist first[N];
    tex_ctx *c = tex_new();
    for (int i = 0; i < N; i++) {
        size_t n = 0, k = xorshift64(&seed) % 14;
        for (size_t j = 0; j < k; j++) {
            const char *p = pieces[xorshift64(&seed) % (sizeof pieces / sizeof *pieces)];
            size_t l = strlen(p);
            if (n + l >= sizeof texts[i]) break;
            memcpy(texts[i] + n, p, l);
            n += l;
        }
        texts[i][n] = 0;
        lines[i] = (int)(xorshift64(&seed) % 3);
    }
    for (int round = 0; round < 40; round++) {
        for (int i = 0; i < N; i++) {
            int k = (int)(xorshift64(&seed) % N);
            toklist l = { 0 };
            /* something in front: tokens are appended */
            tex_tok pre = { T_OTHER, 'p', 0, 9, 9 };
            tl_push(&l, pre);
            tex_tokenize(c, texts[k], strlen(texts[k]), lines[k], &l);
            if (!first[k].v && !first[k].n) {
                tl_append(&first[k], &l);
                if (!first[k].v) tl_push(&first[k], pre);
            } else {
                int same = l.n == first[k].n;
                for (size_t j = 0; same && j < l.n; j++) {
                    const tex_tok *a = &l.v[j], *b = &first[k].v[j];
                    same = a->type == b->type && a->ch == b->ch && a->name == b->name &&
                           a->line == b->line && a->col == b->col;
                }
                checks++;
                if (!same) {
                    failures++;
                    if (failures < 10) printf("test_textok: \"%s\" (line %d) tokenized differently\n", texts[k], lines[k]);
                }
            }
            tl_free(&l);
        }
    }
    for (int i = 0; i < N; i++) tl_free(&first[i]);
    tex_free(c);
    printf("test_textok: %ld checks, %ld failures\n", checks, failures);
    return failures != 0;
}
