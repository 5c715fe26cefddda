/* test_progress.c — ir/progress: the line's text (counts, rates, percent,
 * ETA rounding, unknown, 0 and huge totals, the note, the width cut), and a
 * line driven by an injected clock into a memory stream: the delay, at most
 * 10 redraws a second, the last step drawn, the erase at the end, messages
 * through progress_stream not landing on the line; and the modes (option,
 * DIAGRAMIR_PROGRESS, off when stderr is not a terminal). */
#include "ir/progress.h"
#include "tests/unit/check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[512];

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static const char *fmt(size_t done, size_t total, double el, const char *note, int width)
{
    progress_format(buf, sizeof buf, "tikz2ir", "files", done, total, el, note, width);
    return buf;
}

#define SAME(got, want)                                                         \
    do {                                                                        \
        const char *g_ = (got), *w_ = (want);                                   \
        CHECK(strcmp(g_, w_) == 0);                                             \
        if (strcmp(g_, w_) != 0) fprintf(stderr, "  got  '%s'\n  want '%s'\n", g_, w_); \
    } while (0)

static void test_format(void)
{
    /* the example: 1234 in 3 s is 411.3/s; 3766 left: 9.16 s, rounded up */
    SAME(fmt(1234, 5000, 3.0, NULL, 0), "tikz2ir: 1,234/5,000 files  24%  411/s  ETA 0:10");
    SAME(fmt(1234, 5000, 2.995, NULL, 0), "tikz2ir: 1,234/5,000 files  24%  412/s  ETA 0:10");
    /* nothing done yet: no rate, no ETA */
    SAME(fmt(0, 40, 0.7, NULL, 0), "tikz2ir: 0/40 files  0%");
    /* no time yet: no rate */
    SAME(fmt(3, 40, 0.0, NULL, 0), "tikz2ir: 3/40 files  7%");
    /* percent is floored: 100% only when everything is done */
    SAME(fmt(999, 1000, 1.0, NULL, 0), "tikz2ir: 999/1,000 files  99%  999/s  ETA 0:01");
    SAME(fmt(1000, 1000, 2.0, NULL, 0), "tikz2ir: 1,000/1,000 files  100%  500/s  ETA 0:00");
    /* done past a total that was too small */
    SAME(fmt(12, 10, 2.0, NULL, 0), "tikz2ir: 12/10 files  100%  6/s  ETA 0:00");
    /* slow rates: two significant digits */
    SAME(fmt(1, 10, 4.0, NULL, 0), "tikz2ir: 1/10 files  10%  0.25/s  ETA 0:36");
    SAME(fmt(3, 10, 2.0, NULL, 0), "tikz2ir: 3/10 files  30%  1.5/s  ETA 0:05");
    SAME(fmt(1, 100, 1000.0, NULL, 0), "tikz2ir: 1/100 files  1%  <0.01/s  ETA 27:30:00");
    SAME(fmt(19, 20, 2.0, NULL, 0), "tikz2ir: 19/20 files  95%  9.5/s  ETA 0:01");
    /* ETA rounding: up to the next second, exact seconds stay */
    SAME(fmt(10, 20, 1.0, NULL, 0), "tikz2ir: 10/20 files  50%  10/s  ETA 0:01");
    SAME(fmt(10, 21, 1.0, NULL, 0), "tikz2ir: 10/21 files  47%  10/s  ETA 0:02");
    SAME(fmt(10, 610, 1.0, NULL, 0), "tikz2ir: 10/610 files  1%  10/s  ETA 1:00");
    SAME(fmt(10, 611, 1.0, NULL, 0), "tikz2ir: 10/611 files  1%  10/s  ETA 1:01");
    SAME(fmt(1, 3601, 1.0, NULL, 0), "tikz2ir: 1/3,601 files  0%  1/s  ETA 1:00:00");
    SAME(fmt(1, 3602, 1.0, NULL, 0), "tikz2ir: 1/3,602 files  0%  1/s  ETA 1:00:01");
    /* beyond 99 hours */
    SAME(fmt(1, 1000000, 1.0, NULL, 0), "tikz2ir: 1/1,000,000 files  0%  1/s  ETA >99h");
    /* unknown total: count and rate only */
    SAME(fmt(1234, 0, 2.0, NULL, 0), "tikz2ir: 1,234 files  617/s");
    SAME(fmt(0, 0, 2.0, NULL, 0), "tikz2ir: 0 files");
    SAME(fmt(999, 0, 1.0, NULL, 0), "tikz2ir: 999 files  999/s");
    SAME(fmt(1000000, 0, 1.0, NULL, 0), "tikz2ir: 1,000,000 files  1,000,000/s");
    /* huge totals: no overflow in the percent, thousands grouped */
    SAME(fmt(SIZE_MAX / 2, SIZE_MAX, 0.0, NULL, 0),
         SIZE_MAX == 18446744073709551615u
             ? "tikz2ir: 9,223,372,036,854,775,807/18,446,744,073,709,551,615 files  49%"
             : buf);
    fmt(SIZE_MAX - 1, SIZE_MAX, 0.0, NULL, 0);
    CHECK(ends_with(buf, " files  99%"));
    fmt(SIZE_MAX, SIZE_MAX, 0.0, NULL, 0);
    CHECK(ends_with(buf, " files  100%  ETA 0:00"));
    fmt(SIZE_MAX / 100 + 1, SIZE_MAX, 0.0, NULL, 0);
    CHECK(ends_with(buf, " files  1%"));
    fmt(SIZE_MAX / 100 * 99, SIZE_MAX, 0.0, NULL, 0);
    CHECK(ends_with(buf, " files  98%"));
    SAME(fmt(SIZE_MAX, 0, 1e-9, NULL, 0), SIZE_MAX == 18446744073709551615u
                                              ? "tikz2ir: 18,446,744,073,709,551,615 files"
                                              : buf);
    /* a note after the figures */
    SAME(fmt(2, 4, 1.0, "llm calls 3/7", 0), "tikz2ir: 2/4 files  50%  2/s  ETA 0:01  llm calls 3/7");
    SAME(fmt(2, 0, 1.0, "1 failed", 0), "tikz2ir: 2 files  2/s  1 failed");
    SAME(fmt(2, 0, 1.0, "", 0), "tikz2ir: 2 files  2/s");
    /* the terminal's width: one column left free, so the cursor never wraps */
    SAME(fmt(1234, 5000, 3.0, NULL, 20), "tikz2ir: 1,234/5,00");
    SAME(fmt(1234, 5000, 3.0, NULL, 80), "tikz2ir: 1,234/5,000 files  24%  411/s  ETA 0:10");
    /* a small buffer: cut, NUL-terminated */
    char small[10];
    CHECK(progress_format(small, sizeof small, "tikz2ir", "files", 1, 2, 1, "x", 0) == 9);
    CHECK(strcmp(small, "tikz2ir: ") == 0);
    CHECK(progress_format(small, 0, "tikz2ir", "files", 1, 2, 1, NULL, 0) == 0);
}

/* ---- a line with an injected clock, drawn into a memory stream */

static double clk;
static double fake_now(void *ctx) { (void)ctx; return clk; }

static char *mem;
static size_t memlen;

static progress *start(FILE *out, size_t total, double delay)
{
    progress_opts o = { out, delay, fake_now, NULL, 0 };
    return progress_start_opts("judge", "items", total, &o);
}

static const char *text(FILE *out)
{
    fflush(out);
    return mem ? mem : "";
}

static void test_drawing(void)
{
    clk = 100.0;
    FILE *out = open_memstream(&mem, &memlen);
    progress *p = start(out, 4, 0);
    CHECK(p != NULL);
    progress_step(p, 0);               /* drawn at once (delay 0) */
    SAME(text(out), "\rjudge: 0/4 items  0%\033[K");
    clk = 100.05;
    progress_step(p, 1);               /* 0.05 s later: not yet */
    SAME(text(out), "\rjudge: 0/4 items  0%\033[K");
    clk = 100.5;
    progress_step(p, 1);               /* 2 in 0.5 s: 4/s, 2 left: 0.5 s */
    SAME(text(out), "\rjudge: 0/4 items  0%\033[K\rjudge: 2/4 items  50%  4/s  ETA 0:01\033[K");
    progress_done(p);
    fclose(out);
    free(mem);
    mem = NULL;

    out = open_memstream(&mem, &memlen);
    p = start(out, 3, 0);
    progress_step(p, 1);
    clk += 0.01;
    progress_note(p, "%d failed", 1);
    progress_step(p, 1);               /* throttled */
    clk += 0.01;
    progress_step(p, 1);               /* the last one is always drawn */
    SAME(text(out), "\rjudge: 1/3 items  33%\033[K"
                    "\rjudge: 3/3 items  100%  150/s  ETA 0:00  1 failed\033[K");
    progress_done(p);                  /* erased */
    SAME(text(out), "\rjudge: 1/3 items  33%\033[K"
                    "\rjudge: 3/3 items  100%  150/s  ETA 0:00  1 failed\033[K\r\033[K");
    fclose(out);
    free(mem);
    mem = NULL;

    /* the delay: nothing before 0.5 s, and nothing at all for a short run */
    out = open_memstream(&mem, &memlen);
    clk = 0;
    p = start(out, 10, 0.5);
    clk = 0.2;
    progress_step(p, 5);
    clk = 0.4;
    progress_step(p, 5);
    SAME(text(out), "");
    fprintf(progress_stream(p), "a warning\n");
    progress_done(p);
    SAME(text(out), "a warning\n");
    fclose(out);
    free(mem);
    mem = NULL;

    out = open_memstream(&mem, &memlen);
    clk = 0;
    p = start(out, 0, 0.5);
    clk = 1.0;
    progress_step(p, 3);
    SAME(text(out), "\rjudge: 3 items  3/s\033[K");
    progress_done(p);
    SAME(text(out), "\rjudge: 3 items  3/s\033[K\r\033[K");
    fclose(out);
    free(mem);
    mem = NULL;
}

/* nothing new, nothing drawn: a redraw needs a count, the note or the
 * total to change */
static void test_changes(void)
{
    clk = 0;
    FILE *out = open_memstream(&mem, &memlen);
    progress *p = start(out, 0, 0);
    progress_step(p, 2);
    clk = 1;
    progress_step(p, 0);
    progress_set(p, 2);
    SAME(text(out), "\rjudge: 2 items\033[K");
    clk = 2;
    progress_note(p, "llm calls %d/%d", 1, 3);
    progress_step(p, 0);
    clk = 3;
    progress_note(p, "llm calls %d/%d", 1, 3);
    progress_step(p, 0);
    clk = 4;
    progress_set_total(p, 4);
    progress_step(p, 0);
    SAME(text(out), "\rjudge: 2 items\033[K"
                    "\rjudge: 2 items  1/s  llm calls 1/3\033[K"
                    "\rjudge: 2/4 items  50%  0.5/s  ETA 0:04  llm calls 1/3\033[K");
    progress_done(p);
    fclose(out);
    free(mem);
    mem = NULL;
}

/* messages through progress_stream erase the line and bring it back */
static void test_messages(void)
{
    clk = 0;
    FILE *out = open_memstream(&mem, &memlen);
    progress *p = start(out, 10, 0);
    FILE *diag = progress_stream(p);
    CHECK(diag != NULL && diag != out && diag != stderr);
    progress_step(p, 1);
    fprintf(diag, "f.tex:3:1: warning: %s\n", "odd");
    SAME(text(out), "\rjudge: 1/10 items  10%\033[K"
                    "\r\033[Kf.tex:3:1: warning: odd\n"
                    "\rjudge: 1/10 items  10%\033[K");
    /* a message in two pieces: the line waits for its end */
    fputs("part one, ", diag);
    fflush(diag);
    clk = 1;
    progress_step(p, 1);
    fputs("part two\n", diag);
    clk = 2;
    progress_step(p, 1);
    SAME(text(out), "\rjudge: 1/10 items  10%\033[K"
                    "\r\033[Kf.tex:3:1: warning: odd\n"
                    "\rjudge: 1/10 items  10%\033[K"
                    "\r\033[Kpart one, part two\n"
                    "\rjudge: 2/10 items  20%  2/s  ETA 0:04\033[K"
                    "\rjudge: 3/10 items  30%  1.5/s  ETA 0:05\033[K");
    /* progress_clear: erased now, back at the next step */
    progress_clear(p);
    progress_clear(p);
    clk = 3;
    progress_step(p, 1);
    CHECK(ends_with(text(out), "0:05\033[K\r\033[K\rjudge: 4/10 items  40%  1.3/s  ETA 0:05\033[K"));
    /* the stream's last bytes come out at the end, then the erase */
    fputs("no newline", diag);
    progress_done(p);
    CHECK(ends_with(text(out), "ETA 0:05\033[K\r\033[Kno newline"));
    fclose(out);
    free(mem);
    mem = NULL;
}

/* the modes: the option beats the environment; automatic is off here
 * unless stderr and not stdout is a terminal */
static void test_modes(void)
{
    unsetenv("DIAGRAMIR_PROGRESS");
    CHECK(progress_start("t", "x", 1, PROGRESS_OFF) == NULL);
    CHECK(progress_stream(NULL) == stderr);
    progress_step(NULL, 1);
    progress_set(NULL, 1);
    progress_set_total(NULL, 1);
    progress_note(NULL, "%s", "x");
    progress_clear(NULL);
    progress_done(NULL);
    int autotty = isatty(2) && !isatty(1);
    progress *p = progress_start("t", "x", 1, PROGRESS_AUTO);
    CHECK((p != NULL) == autotty);
    progress_done(p);
    setenv("DIAGRAMIR_PROGRESS", "0", 1);
    CHECK(progress_start("t", "x", 1, PROGRESS_AUTO) == NULL);
    /* forced on: drawn at once, on stderr (a temporary file here) */
    setenv("DIAGRAMIR_PROGRESS", "1", 1);
    char path[] = "/tmp/test_progress.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    p = progress_start("t", "x", 1, PROGRESS_AUTO);
    CHECK(p != NULL);
    progress_done(p);
    setenv("DIAGRAMIR_PROGRESS", "1", 1);
    CHECK(progress_start("t", "x", 1, PROGRESS_OFF) == NULL);
    setenv("DIAGRAMIR_PROGRESS", "0", 1);
    p = progress_start("t", "x", 1, PROGRESS_ON);
    CHECK(p != NULL);
    progress_step(p, 1);
    progress_done(p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char got[256] = "";
    ssize_t k = pread(fd, got, sizeof got - 1, 0);
    got[k > 0 ? k : 0] = 0;
    close(fd);
    unlink(path);
    SAME(got, "\rt: 0/1 x  0%\033[K\r\033[K\rt: 0/1 x  0%\033[K\rt: 1/1 x  100%  ETA 0:00\033[K\r\033[K");
    unsetenv("DIAGRAMIR_PROGRESS");
}

int main(void)
{
    test_format();
    test_drawing();
    test_changes();
    test_messages();
    test_modes();
    printf("test_progress: %d passed, %d failed\n", checks - failures, failures);
    return failures != 0;
}
