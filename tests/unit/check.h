/* check.h — the unit tests' CHECK: counts a check, and a failure with its
 * file:line and condition (the first 19 failures printed). Each test prints
 * its counts at the end and exits 1 when failures is not 0. */
#ifndef DIAGRAMIR_TESTS_CHECK_H
#define DIAGRAMIR_TESTS_CHECK_H
#include <stdio.h>

static int failures, checks;

#define CHECK(cond)                                                         \
    do {                                                                    \
        checks++;                                                           \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            if (failures < 20)                                              \
                fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                   \
    } while (0)

#endif
