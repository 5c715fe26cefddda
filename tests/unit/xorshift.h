/* xorshift.h — the unit tests' seeded pseudo-random numbers: one step of
 * Marsaglia's xorshift64 (13, 7, 17) on the caller's state, which must not
 * be zero. The same seed gives the same sequence on every machine. */
#ifndef DIAGRAMIR_TESTS_XORSHIFT_H
#define DIAGRAMIR_TESTS_XORSHIFT_H

#include <stdint.h>

static inline uint64_t xorshift64(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#endif
