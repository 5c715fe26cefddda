/* ir_internal.h — what the IR library's own files (and its unit tests)
 * share beyond the contract in ir.h: the memory behind a diagram's
 * elements and the reader's ways of filling it. Programs include ir.h
 * (and ir_borrow.h), never this. */
#ifndef DIAGRAMIR_IR_INTERNAL_H
#define DIAGRAMIR_IR_INTERNAL_H

#include <stdint.h>

#include "ir/arena.h"
#include "ir/ir.h"

/* The memory of elements (ir_elem.mem): their diagram's (ir_diagram.mem,
 * made by ir_diagram_new and freed with the diagram) or, for an element
 * outside any diagram (ir_elem_copy, ir_elem_set on a zeroed element),
 * the element's own, freed by ir_elem_clear. Points and attributes live in
 * its arena; a replaced or removed one's bytes stay until the arena goes. */
#define IR_MEM_RECENT 32
struct ir_mem {
    ir_arena arena;
    int elem_owned;  /* 1: the element's own memory */
    /* by a hash of the key, the attribute record (its key) made last in
     * this memory, or NULL: records are never changed once made, so a new
     * attribute equal to it shares it (a diagram's elements mostly have
     * the same draw=, fill=, lw=, ...) */
    const char *recent[IR_MEM_RECENT];
};

/* Each attribute of an element with memory (e->mem not NULL) is a record
 * there: this head, then key NUL value NUL (a->key points just after the
 * head, a->val just after the key's NUL). The head says whether the value
 * is a bare word as ir_word_is_bare has it, so that the writer copies
 * " key=value" as it is. Attributes of other elements (a borrowed
 * diagram's) have no head. */
typedef struct {
    uint32_t keylen;
    uint32_t vallen;  /* | IR_ATTR_BARE when the value is a bare ASCII word */
} ir_attr_head;
#define IR_ATTR_BARE 0x80000000u

static inline const ir_attr_head *ir_attr_head_of(const ir_attr *a)
{
    return (const ir_attr_head *)(const void *)(a->key - sizeof(ir_attr_head));
}

/* The byte classes of a bare word (ir_word_is_bare), by byte: IR_W_OK is
 * written as it is; IR_W_END is the NUL; IR_W_BAD (blank, control, DEL,
 * '"', '\\', '=') needs quotes; IR_W_HI starts a UTF-8 sequence that must
 * be valid. */
enum { IR_W_OK, IR_W_END, IR_W_BAD, IR_W_HI };
extern const unsigned char ir_word_class[256];

/* Appends key=val (keylen and vallen bytes) to a diagram's attribute
 * array in the form ir_set_attr keeps (no check for an existing key). */
void ir_attrs_append(ir_attr **attrs, size_t *n, const char *key, size_t keylen, const char *val,
                     size_t vallen);
/* Appends key=val to e's attributes (no check for an existing key). */
void ir_elem_append_attr(ir_elem *e, const char *key, size_t keylen, const char *val,
                         size_t vallen);
/* Room for n > 0 points in e's memory (the caller fills them and sets
 * e->pts and e->npts). */
ir_pt *ir_elem_alloc_pts(ir_elem *e, size_t n);

/* The JSON form of one diagram (diagramir-formats(5)), line[0..len) being
 * one line of input (line number lineno, for irline): the diagram (its
 * elements' irline set to lineno), or NULL with *col (the 1-based byte
 * column of the problem) and msg set (ir_json.c). */
ir_diagram *ir_json_read_(const char *line, size_t len, int lineno, int *col, char *msg,
                          size_t msgsz);

#endif
