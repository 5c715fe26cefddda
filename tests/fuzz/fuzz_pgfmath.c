/* fuzz_pgfmath.c — fuzz harness for the pgfmath expression evaluator.
 *
 * Feeds the bytes to pgfmath_eval, pgfmath_eval_pos and pgfmath_dimen and checks the
 * contract: a success gives a finite value and has_unit 0 or 1; an error gives a
 * non-empty one-line message whose column lies inside the input (or just past it);
 * both entry points agree; evaluation is deterministic; and where pgfmath_dimen and
 * pgfmath_eval both accept the input they agree on its value.  A violation aborts. */
#include "grammar/pgfmath.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const uint8_t *data, size_t size)
{
    fprintf(stderr, "fuzz_pgfmath: %s\ninput (%zu bytes): %.*s\n", what, size,
            (int)(size > 200 ? 200 : size), (const char *)data);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    double v1 = 0, v2 = 0, d = 0;
    int u1 = -1, u2 = -1, r1, r2, rd;
    char e1[256], e2[256];
    size_t col = 0;

    /* the same seed before each: rnd, rand and random draw from it */
    pgfmath_set_seed(1);
    r1 = pgfmath_eval(s, size, &v1, &u1, e1, sizeof e1);
    pgfmath_set_seed(1);
    r2 = pgfmath_eval_pos(s, size, &v2, &u2, e2, sizeof e2, &col);
    if (r1 != r2)
        die("pgfmath_eval and pgfmath_eval_pos disagree on success", data, size);
    if (r1 == 0) {
        if (!isfinite(v1))
            die("non-finite result", data, size);
        if (u1 != 0 && u1 != 1)
            die("has_unit is neither 0 nor 1", data, size);
        if (memcmp(&v1, &v2, sizeof v1) != 0 || u1 != u2)
            die("evaluation is not deterministic", data, size);
    } else if (r1 == -1) {
        char prefix[64];
        if (e2[0] == '\0' || strchr(e1, '\n') || strlen(e1) >= sizeof e1)
            die("bad error message", data, size);
        if (col < 1 || col > size + 1)
            die("error column outside the input", data, size);
        snprintf(prefix, sizeof prefix, "column %zu: ", col);
        if (strncmp(e1, prefix, strlen(prefix)) != 0
            || strncmp(e1 + strlen(prefix), e2, sizeof e1 - strlen(prefix) - 1) != 0)
            die("pgfmath_eval's message is not 'column N: ' + pgfmath_eval_pos's", data, size);
    } else {
        die("return value is neither 0 nor -1", data, size);
    }

    rd = pgfmath_dimen(s, size, &d);
    if (rd != 0 && rd != -1)
        die("pgfmath_dimen: return value is neither 0 nor -1", data, size);
    if (rd == 0) {
        if (!isfinite(d))
            die("pgfmath_dimen: non-finite result", data, size);
        if (r1 == 0 && u1 == 1 && fabs(d - v1) > 1e-9 * fabs(d))
            die("pgfmath_dimen and pgfmath_eval disagree", data, size);
    }
    return 0;
}
