/* ir_io.c — reading a whole input (file or stdin) into memory, bounded. */
#include "ir/ir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

char *ir_read_all(FILE *f, size_t max, size_t *len, int *too_big)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    *too_big = 0;
    if (!buf) return NULL;
    for (;;) {
        if (n == cap) {
            if (cap > max) { *too_big = 1; break; }
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) { free(buf); return NULL; }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (ferror(f)) { free(buf); return NULL; }
    if (n > max) *too_big = 1;
    *len = n;
    return buf;
}

/* The usual case, a regular file smaller than max, is read with one read()
 * of its size plus one byte: a short read of a regular file is its end, so
 * open, fstat, read, close are all the system calls (fopen + fread make
 * three reads, the FILE and its buffer). Everything else (stdio's way)
 * goes through fdopen and ir_read_all, so pipes, directories, devices,
 * big files and files of size 0 (empty, or /proc files whose size says
 * nothing) give the same results and errors as fopen + ir_read_all. */
char *ir_read_file(const char *path, size_t max, size_t *len, int *too_big, int *open_failed)
{
    *open_failed = 0;
    *too_big = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        *open_failed = 1;
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (unsigned long long)st.st_size < max && (unsigned long long)st.st_size < SIZE_MAX / 4) {
        size_t cap = (size_t)st.st_size + 1, n = 0;
        char *buf = malloc(cap);
        if (!buf) {
            close(fd);
            errno = ENOMEM;
            return NULL;
        }
        for (;;) {
            ssize_t r = read(fd, buf + n, cap - n);
            if (r < 0) {
                if (errno == EINTR) continue;
                int e = errno;
                free(buf);
                close(fd);
                errno = e;
                return NULL;
            }
            if (r == 0) break;
            n += (size_t)r;
            if (n < cap) break;  /* short: the end of the file */
            /* the file grew since fstat: read on, up to a little past max */
            if (n > max) {
                *too_big = 1;
                break;
            }
            size_t nc = cap * 2;
            char *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                close(fd);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
            cap = nc;
        }
        close(fd);
        if (n < cap) buf[n] = '\0';
        *len = n;
        return buf;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
        *open_failed = 1;
        return NULL;
    }
    char *buf = ir_read_all(f, max, len, too_big);
    fclose(f);  /* errno as after fopen, ir_read_all, fclose */
    return buf;
}
