/* arena.h — the project's one arena (not part of the IR contract, ir.h).
 *
 * Bump allocation from malloc'd chunks, all freed at once. A diagram's
 * elements keep their points and attributes in their diagram's arena, the
 * reader keeps a borrowed diagram in its own (ir_borrow.h), and irlint's
 * scene keeps its outlines in one (checks/geom/scene.c). Memory from an
 * arena never moves. Out of memory exits (ir/xalloc.h). */
#ifndef DIAGRAMIR_IR_ARENA_H
#define DIAGRAMIR_IR_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct ir_arena_chunk ir_arena_chunk;

typedef struct {
    char *p, *end;           /* the free bytes of the newest chunk */
    ir_arena_chunk *chunks;  /* newest first */
    size_t next;             /* size of the next chunk */
} ir_arena;

/* An empty arena whose first chunk will have first bytes. */
void ir_arena_init(ir_arena *a, size_t first);
/* n > 0 bytes aligned to align (a power of two, at most 16); more than
 * SIZE_MAX / 4 bytes are out of memory. */
void *ir_arena_alloc_chunk(ir_arena *a, size_t n, size_t align);
static inline void *ir_arena_alloc(ir_arena *a, size_t n, size_t align)
{
    uintptr_t p = ((uintptr_t)a->p + (align - 1)) & ~(uintptr_t)(align - 1);
    if (p <= (uintptr_t)a->end && (uintptr_t)a->end - p >= n) {
        a->p = (char *)(p + n);
        return (void *)p;
    }
    return ir_arena_alloc_chunk(a, n, align);
}
/* s[0..n) as a NUL-terminated string in the arena. */
char *ir_arena_strndup(ir_arena *a, const char *s, size_t n);
/* Makes all of the arena free again, in one chunk as large as all its
 * chunks were (so a reader that resets it for every diagram stops
 * allocating once it has held the largest one). */
void ir_arena_reset(ir_arena *a);
void ir_arena_free(ir_arena *a);

#endif
