/* test_grid_diff.c — the counting no-overlap's fs_build relies on
 * (checks/geom/no_overlap.c): per cell of an nx x ny grid, how many face
 * rectangles cover it (FS_ALL), have their first row through it (FS_ROW),
 * their first column (FS_COL), their first cell there (FS_FIRST), found from
 * +1/-1 marks at a rectangle's corners (and a row's or column's two ends)
 * summed once over the cells, equal the counts of one increment per cell
 * as FS_EACH adds them. Random grids and rectangles (with the same guards
 * for empty ranges). The formulas are fs_build's, written out again. */
#include "tests/unit/xorshift.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

int main(void)
{
    int failures = 0, checks = 0;
    for (int it = 0; it < 3000; it++) {
        size_t nx = 1 + xorshift64(&rng) % 64, ny = 1 + xorshift64(&rng) % 64, ncell = nx * ny;
        size_t nf = xorshift64(&rng) % 200;
        size_t *want[4], *got[4];
        for (int L = 0; L < 4; L++) {
            want[L] = calloc(ncell + 1, sizeof(size_t));
            got[L] = calloc(ncell + 1, sizeof(size_t));
            if (!want[L] || !got[L]) abort();
        }
        size_t nA = (nx + 1) * (ny + 1), nR = (nx + 1) * ny, nC = nx * (ny + 1);
        size_t *d = calloc(nA + nR + nC, sizeof *d);
        if (!d) abort();
        size_t *dA = d, *dR = d + nA, *dC = d + nA + nR;
        for (size_t k = 0; k < nf; k++) {
            int r[4];
            r[0] = (int)(xorshift64(&rng) % nx);
            r[1] = (int)(xorshift64(&rng) % ny);
            r[2] = r[0] + (int)(xorshift64(&rng) % (nx - (size_t)r[0]));
            r[3] = r[1] + (int)(xorshift64(&rng) % (ny - (size_t)r[1]));
            if (xorshift64(&rng) % 16 == 0) r[2] = r[0] - 1;   /* an empty range */
            if (xorshift64(&rng) % 16 == 0) r[3] = r[1] - 1;
            /* FS_EACH */
            for (int j = r[1]; j <= r[3]; j++)
                for (int i = r[0]; i <= r[2]; i++) want[0][(size_t)j * nx + (size_t)i + 1]++;
            for (int i = r[0]; i <= r[2]; i++) want[1][(size_t)r[1] * nx + (size_t)i + 1]++;
            for (int j = r[1]; j <= r[3]; j++) want[2][(size_t)j * nx + (size_t)r[0] + 1]++;
            if (r[0] <= r[2] && r[1] <= r[3]) want[3][(size_t)r[1] * nx + (size_t)r[0] + 1]++;
            /* the differences */
            size_t i0 = (size_t)r[0], j0 = (size_t)r[1], i1 = (size_t)r[2] + 1, j1 = (size_t)r[3] + 1;
            if (r[0] <= r[2]) {
                dR[j0 * (nx + 1) + i0]++;
                dR[j0 * (nx + 1) + i1]--;
            }
            if (r[1] <= r[3]) {
                dC[j0 * nx + i0]++;
                dC[j1 * nx + i0]--;
            }
            if (r[0] <= r[2] && r[1] <= r[3]) {
                dA[j0 * (nx + 1) + i0]++;
                dA[j0 * (nx + 1) + i1]--;
                dA[j1 * (nx + 1) + i0]--;
                dA[j1 * (nx + 1) + i1]++;
                got[3][j0 * nx + i0 + 1]++;
            }
        }
        size_t *sa = got[0], *sr = got[1], *sc = got[2];
        for (size_t j = 0; j < ny; j++) {
            size_t ra = 0, rr = 0;
            for (size_t i = 0; i < nx; i++) {
                ra += dA[j * (nx + 1) + i];
                rr += dR[j * (nx + 1) + i];
                sa[j * nx + i + 1] = ra + (j ? sa[(j - 1) * nx + i + 1] : 0);
                sr[j * nx + i + 1] = rr;
                sc[j * nx + i + 1] = dC[j * nx + i] + (j ? sc[(j - 1) * nx + i + 1] : 0);
            }
        }
        for (int L = 0; L < 4; L++) {
            checks++;
            if (memcmp(want[L], got[L], (ncell + 1) * sizeof(size_t)) != 0) {
                failures++;
                if (failures < 5) fprintf(stderr, "grid %zux%zu, %zu faces: list %d differs\n", nx, ny, nf, L);
            }
            free(want[L]);
            free(got[L]);
        }
        free(d);
    }
    if (failures) {
        fprintf(stderr, "test_grid_diff: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_grid_diff: %d checks passed\n", checks);
    return 0;
}
