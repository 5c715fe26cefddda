/* test_ir_readfile.c — ir_read_file (open, fstat, one read for a regular
 * file) against what it replaces in tikz2ir: fopen(path, "rb"),
 * ir_read_all, fclose. Same bytes, length, too_big, and the same failure
 * (open or read) with the same errno, for regular files of sizes around
 * the old reader's 64 KiB steps and max, an empty file, a directory, a
 * missing file, /dev/null and /proc/version (fstat says size 0). */
#include "ir/ir.h"
#include "tests/unit/check.h"
#include "tests/unit/xorshift.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    char *buf;
    size_t len;
    int too_big, open_failed, err;
} result;

static result old_way(const char *path, size_t max)
{
    result r = {0};
    FILE *f = fopen(path, "rb");
    if (!f) {
        r.open_failed = 1;
        r.err = errno;
        return r;
    }
    r.buf = ir_read_all(f, max, &r.len, &r.too_big);
    fclose(f);
    if (!r.buf) r.err = errno;
    return r;
}

static result new_way(const char *path, size_t max)
{
    result r = {0};
    r.buf = ir_read_file(path, max, &r.len, &r.too_big, &r.open_failed);
    if (!r.buf) r.err = errno;
    return r;
}

static void compare(const char *path, size_t max)
{
    result a = old_way(path, max), b = new_way(path, max);
    CHECK(a.open_failed == b.open_failed);
    CHECK((a.buf == NULL) == (b.buf == NULL));
    if (!a.buf || !b.buf) CHECK(a.err == b.err);
    if (a.buf && b.buf) {
        CHECK(a.len == b.len);
        CHECK(a.too_big == b.too_big);
        CHECK(a.len != b.len || memcmp(a.buf, b.buf, a.len) == 0);
    }
    free(a.buf);
    free(b.buf);
}

int main(void)
{
    char dir[] = "/tmp/test_ir_readfile.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char path[256];
    snprintf(path, sizeof path, "%s/f", dir);
    static const size_t sizes[] = {0, 1, 2, 100, 4095, 4096, 4097, 65535, 65536, 65537,
                                   131072, 131073, 300000};
    static const size_t maxes[] = {1000, 65536, 100000, (size_t)17 << 20};
    char *data = malloc(300001);
    uint64_t s = 12345;
    for (size_t i = 0; i < 300001; i++) data[i] = (char)(xorshift64(&s) & 0xff);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(data, 1, sizes[i], f) != sizes[i] || fclose(f) != 0) {
            perror(path);
            return 1;
        }
        for (size_t m = 0; m < sizeof maxes / sizeof maxes[0]; m++) compare(path, maxes[m]);
    }
    free(data);
    /* not regular files and failures */
    compare(dir, (size_t)17 << 20);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/missing", dir);
    compare(missing, (size_t)17 << 20);
    compare("/dev/null", (size_t)17 << 20);
    compare("/proc/version", (size_t)17 << 20);  /* size 0 in fstat, text to read */
    unlink(path);
    rmdir(dir);
    printf("test_ir_readfile: %d passed, %d failed\n", checks - failures, failures);
    return failures != 0;
}
