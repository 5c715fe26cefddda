/* arena.c — the IR library's one arena; see arena.h. */
#include "ir/arena.h"

#include <stdlib.h>
#include <string.h>

#include "ir/xalloc.h"

struct ir_arena_chunk {
    ir_arena_chunk *next;
    size_t size;          /* bytes after the header */
    _Alignas(16) char data[];
};

#define ARENA_MAX_NEXT ((size_t)1 << 20)

void ir_arena_init(ir_arena *a, size_t first)
{
    a->p = a->end = NULL;
    a->chunks = NULL;
    a->next = first ? first : 1024;
}

static void new_chunk(ir_arena *a, size_t size)
{
    ir_arena_chunk *c = xmalloc(sizeof *c + size);
    c->next = a->chunks;
    c->size = size;
    a->chunks = c;
    a->p = c->data;
    a->end = c->data + size;
}

void *ir_arena_alloc_chunk(ir_arena *a, size_t n, size_t align)
{
    if (n > SIZE_MAX / 4) xmalloc(SIZE_MAX);  /* fails: out of memory */
    size_t size = a->next;
    if (size < n + align) size = n + align;
    new_chunk(a, size);
    if (a->next < ARENA_MAX_NEXT) a->next *= 2;
    return ir_arena_alloc(a, n, align);
}

char *ir_arena_strndup(ir_arena *a, const char *s, size_t n)
{
    char *p = ir_arena_alloc(a, n + 1, 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void ir_arena_reset(ir_arena *a)
{
    ir_arena_chunk *c = a->chunks;
    if (!c) return;
    if (c->next) {
        size_t total = 0;
        while (c) {
            ir_arena_chunk *next = c->next;
            total += c->size;
            free(c);
            c = next;
        }
        a->chunks = NULL;
        new_chunk(a, total);
        return;
    }
    a->p = c->data;
    a->end = c->data + c->size;
}

void ir_arena_free(ir_arena *a)
{
    ir_arena_chunk *c = a->chunks;
    while (c) {
        ir_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->p = a->end = NULL;
    a->chunks = NULL;
}
