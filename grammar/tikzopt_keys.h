/* tikzopt_keys.h — the option keys tikzopt.c's apply_one knows: one table
 * sorted by name (byte order), looked up by binary search. Shared with
 * tests/unit/test_tikzopt.c, which checks that the table is sorted, has no
 * key twice and finds every key. Not part of the public contract. */
#ifndef DIAGRAMIR_TIKZOPT_KEYS_H
#define DIAGRAMIR_TIKZOPT_KEYS_H

#include <stddef.h>

/* name (len bytes), what apply_one does with it (id, tikzopt.c's K_ enum)
 * and arg: the index into the widths, dashes, dirs or text_aligns table of
 * the id, else 0 */
struct opt_key {
    const char *name;
    unsigned char len, id, arg;
};

extern const struct opt_key tk_opt_keys[];
extern const size_t tk_opt_nkeys;

/* The entry of the key k[0,kn), or NULL. */
const struct opt_key *tk_opt_key_find(const char *k, size_t kn);

#endif
