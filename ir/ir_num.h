/* ir_num.h — fast decimal number parsing with the exact results of the
 * slower reference functions (the IR reader and irlint's scene use them).
 *
 * Both take the common short forms ([+-]digits[.digits], at most 15
 * digits, no exponent) on a fast exact path: a whole number below 10^15
 * over a power of ten of at most 22 is exact in binary, so one division
 * rounds it correctly, as strtod does. Every other input goes to the
 * reference function itself. */
#ifndef DIAGRAMIR_IR_NUM_H
#define DIAGRAMIR_IR_NUM_H

#include <stddef.h>

/* Exactly ir_parse_num_n(s, len, out) (ir.h): 1 and *out (may be NULL)
 * when all of s[0..len) is an IR number, else 0. */
int ir_num_parse(const char *s, size_t len, double *out);

/* Exactly strtod(s, end) in the C locale (end may not be NULL). */
double ir_num_strtod(const char *s, char **end);

#endif
