/* test_grid_diff.c — geom_face_cell_counts (checks/geom/no_overlap.c), the
 * lengths of the face grid's lists per cell that no-overlap's fs_build
 * finds from +1/-1 marks at a rectangle's corners (and at a row's or
 * column's two ends) summed once over the cells: per cell of an nx x ny
 * grid, how many face rectangles cover it (FS_ALL), have their first row
 * through it (FS_ROW), their first column (FS_COL), their first cell there
 * (FS_FIRST). They must equal the counts of one increment per cell for
 * each face (as FS_EACH adds them, written out here as the reference).
 * Random grids and rectangles, some of them empty ranges. */
#include "tests/unit/xorshift.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/geom/no_overlap.h"

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
        int (*rs)[4] = malloc((nf ? nf : 1) * sizeof *rs);
        if (!rs) abort();
        for (size_t k = 0; k < nf; k++) {
            int *r = rs[k];
            r[0] = (int)(xorshift64(&rng) % nx);
            r[1] = (int)(xorshift64(&rng) % ny);
            r[2] = r[0] + (int)(xorshift64(&rng) % (nx - (size_t)r[0]));
            r[3] = r[1] + (int)(xorshift64(&rng) % (ny - (size_t)r[1]));
            if (xorshift64(&rng) % 16 == 0) r[2] = r[0] - 1;   /* an empty range */
            if (xorshift64(&rng) % 16 == 0) r[3] = r[1] - 1;
            /* one increment per cell */
            for (int j = r[1]; j <= r[3]; j++)
                for (int i = r[0]; i <= r[2]; i++) want[FS_ALL][(size_t)j * nx + (size_t)i + 1]++;
            for (int i = r[0]; i <= r[2]; i++) want[FS_ROW][(size_t)r[1] * nx + (size_t)i + 1]++;
            for (int j = r[1]; j <= r[3]; j++) want[FS_COL][(size_t)j * nx + (size_t)r[0] + 1]++;
            if (r[0] <= r[2] && r[1] <= r[3]) want[FS_FIRST][(size_t)r[1] * nx + (size_t)r[0] + 1]++;
        }
        geom_face_cell_counts(nx, ny, (const int(*)[4])rs, nf, got);
        free(rs);
        for (int L = 0; L < 4; L++) {
            checks++;
            if (memcmp(want[L], got[L], (ncell + 1) * sizeof(size_t)) != 0) {
                failures++;
                if (failures < 5) fprintf(stderr, "grid %zux%zu, %zu faces: list %d differs\n", nx, ny, nf, L);
            }
            free(want[L]);
            free(got[L]);
        }
    }
    if (failures) {
        fprintf(stderr, "test_grid_diff: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_grid_diff: %d checks passed\n", checks);
    return 0;
}
