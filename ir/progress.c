/* ir/progress.c — the progress line of long runs; ir/progress.h is the
 * contract. */
#if !defined(__APPLE__) && !defined(__FreeBSD__) && !defined(__NetBSD__) && !defined(__OpenBSD__)
#define _GNU_SOURCE 1   /* fopencookie */
#else
#define _DARWIN_C_SOURCE 1
#define _BSD_SOURCE 1   /* funopen */
#endif
#include "ir/progress.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_EVERY 0.1   /* seconds between two redraws at most */
#define AUTO_DELAY 0.5     /* seconds before the line first shows (auto) */
#define LINE_MAX_BYTES 256

struct progress {
    char prog[32], what[32], note[64];
    size_t done, total;
    size_t drawn;           /* done when last drawn */
    int dirty;              /* the note or the total changed since */
    progress_opts o;
    int tty;                /* out is a terminal: its width is asked at each draw */
    double t0, last;        /* start; last draw */
    int shown;              /* the line is on the screen */
    int bol;                /* the messages stream ended its last line */
    FILE *stream;           /* progress_stream's, made on demand */
    char line[LINE_MAX_BYTES];
    size_t linelen;
};

/* ------------------------------------------------------------ the line */

/* v with a comma between groups of three digits (at most 26 bytes) */
static void fmt_count(char *b, size_t n, size_t v)
{
    char d[32];
    int k = snprintf(d, sizeof d, "%zu", v);
    size_t w = 0;
    for (int i = 0; i < k && w + 2 < n; i++) {
        if (i > 0 && (k - i) % 3 == 0) b[w++] = ',';
        b[w++] = d[i];
    }
    b[w] = 0;
}

static void fmt_rate(char *b, size_t n, double r)
{
    if (r >= 10) {
        double v = floor(r + 0.5);
        if (v < 1e18) fmt_count(b, n, (size_t)v);
        else snprintf(b, n, "%.3g", v);
    } else if (r >= 0.01) {
        snprintf(b, n, "%.2g", r);
    } else {
        snprintf(b, n, "<0.01");
    }
}

/* seconds, rounded up, as M:SS or H:MM:SS (">99h" past 99 hours) */
static void fmt_eta(char *b, size_t n, double s)
{
    if (!(s < 99.0 * 3600 + 3599)) { snprintf(b, n, ">99h"); return; }
    long t = (long)ceil(s - 1e-6);
    if (t < 0) t = 0;
    if (t < 3600) snprintf(b, n, "%ld:%02ld", t / 60, t % 60);
    else snprintf(b, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

/* floor(100 done / total), exact for any size_t */
static unsigned percent(size_t done, size_t total)
{
    if (done >= total) return 100;
    if (done <= SIZE_MAX / 100) return (unsigned)(done * 100 / total);
    unsigned q = 0;          /* 100 additions of done modulo total */
    size_t acc = 0;
    for (int i = 0; i < 100; i++) {
        if (acc >= total - done) { acc -= total - done; q++; }
        else acc += done;
    }
    return q;
}

size_t progress_format(char *buf, size_t n, const char *prog, const char *what, size_t done,
                       size_t total, double elapsed, const char *note, int width)
{
    if (n == 0) return 0;
    char a[32], b[32], r[32], e[32];
    fmt_count(a, sizeof a, done);
    double rate = elapsed > 1e-3 && done > 0 ? (double)done / elapsed : 0;
    r[0] = 0;
    if (rate > 0) fmt_rate(r, sizeof r, rate);
    int k;
    if (total) {
        fmt_count(b, sizeof b, total);
        e[0] = 0;
        if (done >= total) snprintf(e, sizeof e, "0:00");
        else if (rate > 0) fmt_eta(e, sizeof e, (double)(total - done) / rate);
        k = snprintf(buf, n, "%s: %s/%s %s  %u%%%s%s%s%s%s", prog, a, b, what,
                     percent(done, total), r[0] ? "  " : "", r, r[0] ? "/s" : "",
                     e[0] ? "  ETA " : "", e);
    } else {
        k = snprintf(buf, n, "%s: %s %s%s%s%s", prog, a, what, r[0] ? "  " : "", r,
                     r[0] ? "/s" : "");
    }
    size_t len = k < 0 ? 0 : (size_t)k >= n ? n - 1 : (size_t)k;
    if (note && *note && len + 2 < n) {
        k = snprintf(buf + len, n - len, "  %s", note);
        len = k < 0 ? len : len + (size_t)k >= n ? n - 1 : len + (size_t)k;
    }
    if (width > 0 && len > (size_t)width - 1) {
        len = (size_t)width - 1;
        buf[len] = 0;
    }
    return len;
}

/* ------------------------------------------------------------- drawing */

static double mono_now(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int term_width(int fd)
{
#ifdef TIOCGWINSZ
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
#else
    (void)fd;
#endif
    return 80;
}

static void put(progress *p, const char *s, size_t n)
{
    fwrite(s, 1, n, p->o.out);
}

/* erases the line when it is up */
static void erase(progress *p)
{
    if (!p->shown) return;
    put(p, "\r\033[K", 4);
    fflush(p->o.out);
    p->shown = 0;
}

/* draws the stored line */
static void show(progress *p)
{
    char b[LINE_MAX_BYTES + 8];
    size_t n = 0;
    b[n++] = '\r';
    memcpy(b + n, p->line, p->linelen);
    n += p->linelen;
    memcpy(b + n, "\033[K", 3);
    n += 3;
    put(p, b, n);
    fflush(p->o.out);
    p->shown = 1;
}

/* formats the line for now and draws it */
static void draw(progress *p, double t)
{
    int width = p->tty ? term_width(fileno(p->o.out)) : p->o.width;
    p->linelen = progress_format(p->line, sizeof p->line, p->prog, p->what, p->done, p->total,
                                 t - p->t0, p->note, width);
    p->last = t;
    p->drawn = p->done;
    p->dirty = 0;
    show(p);
}

/* draws when due: past the delay, 0.1 s after the last draw or when the
 * work is complete (once), when something changed, and not in the middle
 * of a message */
static void maybe_draw(progress *p)
{
    if (!p->bol || (p->last >= 0 && p->done == p->drawn && !p->dirty)) return;
    double t = p->o.now(p->o.now_ctx);
    if (t - p->t0 < p->o.delay) return;
    int finished = p->total && p->done >= p->total && p->done != p->drawn;
    if (p->last >= 0 && t - p->last < REDRAW_EVERY && !finished) return;
    draw(p, t);
}

/* ------------------------------------------------- the messages stream */

static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
    progress *p = cookie;
    erase(p);
    put(p, buf, n);
    if (n) p->bol = buf[n - 1] == '\n';
    if (p->bol && p->last >= 0) draw(p, p->o.now(p->o.now_ctx));   /* back, once it has shown */
    else fflush(p->o.out);
    return (ssize_t)n;
}

#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)
static int stream_write_bsd(void *cookie, const char *buf, int n)
{
    return (int)stream_write(cookie, buf, n > 0 ? (size_t)n : 0);
}
static FILE *open_stream(progress *p) { return funopen(p, NULL, stream_write_bsd, NULL, NULL); }
#else
static FILE *open_stream(progress *p)
{
    cookie_io_functions_t io = { NULL, stream_write, NULL, NULL };
    return fopencookie(p, "w", io);
}
#endif

FILE *progress_stream(progress *p)
{
    if (!p) return stderr;
    if (!p->stream) {
        p->stream = open_stream(p);
        if (!p->stream) return p->o.out;
        setvbuf(p->stream, NULL, _IOLBF, BUFSIZ);
    }
    return p->stream;
}

/* ---------------------------------------------------------------- API */

progress *progress_start_opts(const char *prog, const char *what, size_t total,
                              const progress_opts *o)
{
    progress *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    snprintf(p->prog, sizeof p->prog, "%s", prog ? prog : "");
    snprintf(p->what, sizeof p->what, "%s", what ? what : "");
    p->total = total;
    p->o = *o;
    if (!p->o.out) p->o.out = stderr;
    if (!p->o.now) p->o.now = mono_now;
    p->t0 = p->o.now(p->o.now_ctx);
    p->last = -1;
    p->bol = 1;
    return p;
}

/* whether a line in mode is to be shown; delay: before it shows */
static int wanted(int mode, double *delay)
{
    *delay = 0;
    if (mode == PROGRESS_AUTO) {
        const char *e = getenv("DIAGRAMIR_PROGRESS");
        if (e && (!strcmp(e, "0") || !strcmp(e, "no") || !strcmp(e, "off") || !strcmp(e, "never")))
            mode = PROGRESS_OFF;
        else if (e && (!strcmp(e, "1") || !strcmp(e, "yes") || !strcmp(e, "on") || !strcmp(e, "always")))
            mode = PROGRESS_ON;
    }
    if (mode == PROGRESS_ON) return 1;
    if (mode == PROGRESS_OFF) return 0;
    *delay = AUTO_DELAY;
    return isatty(STDERR_FILENO) && !isatty(STDOUT_FILENO);
}

progress *progress_start(const char *prog, const char *what, size_t total, int mode)
{
    progress_opts o = { stderr, 0, NULL, NULL, 0 };
    if (!wanted(mode, &o.delay)) return NULL;
    progress *p = progress_start_opts(prog, what, total, &o);
    if (p) p->tty = isatty(STDERR_FILENO);
    if (p) maybe_draw(p);
    return p;
}

void progress_step(progress *p, size_t n)
{
    if (!p) return;
    p->done += n;
    maybe_draw(p);
}

void progress_set(progress *p, size_t done)
{
    if (!p) return;
    p->done = done;
    maybe_draw(p);
}

void progress_set_total(progress *p, size_t total)
{
    if (p && p->total != total) {
        p->total = total;
        p->dirty = 1;
    }
}

void progress_note(progress *p, const char *fmt, ...)
{
    if (!p) return;
    va_list ap;
    va_start(ap, fmt);
    char note[sizeof p->note];
    vsnprintf(note, sizeof note, fmt, ap);
    va_end(ap);
    if (strcmp(note, p->note) != 0) {
        memcpy(p->note, note, sizeof note);
        p->dirty = 1;
    }
}

void progress_clear(progress *p)
{
    if (p) erase(p);
}

void progress_done(progress *p)
{
    if (!p) return;
    if (p->stream) fclose(p->stream);   /* its last bytes, through stream_write */
    erase(p);
    free(p);
}
