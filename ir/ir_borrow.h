/* ir_borrow.h — reading diagrams into the reader's own memory.
 *
 * ir_read_diagram (ir.h) gives the caller a diagram to own and free. A
 * program that looks at one diagram at a time (irlint) can instead borrow
 * it from the reader: everything the diagram holds then lives in the
 * reader's arena, which it reuses for the next diagram, so reading costs
 * no allocation once that arena has grown to the largest diagram. Same
 * syntax, same errors, same diagram contents. */
#ifndef DIAGRAMIR_IR_BORROW_H
#define DIAGRAMIR_IR_BORROW_H

#include "ir/ir.h"

/* As ir_read_diagram, but *out belongs to the reader: it stays valid until
 * the next read from r or ir_reader_free(r), must not be changed, and must
 * not be given to ir_diagram_free. */
int ir_read_diagram_borrowed(ir_reader *r, const ir_diagram **out);

#endif
