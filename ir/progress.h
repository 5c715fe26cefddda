/* ir/progress.h — a progress line with an ETA on stderr for long runs
 * (many files, LLM calls, judged items), shared by every program.
 *
 *     tikz2ir: 1,234/5,000 files  24%  412/s  ETA 0:09
 *     tikz2ir: 17 llm calls  0.42/s                       (total unknown)
 *     judge: 40/120 items  33%  1.9/s  ETA 0:42  2 failed (with a note)
 *
 * The line is redrawn in place ("\r", the line, "\033[K") at most 10 times a
 * second (CLOCK_MONOTONIC), and erased at the end, so the terminal keeps
 * only the real messages. It is shown only when it is worth it:
 *
 *   PROGRESS_AUTO  the default: when stderr is a terminal and standard
 *                  output is not (the results would mix with the line),
 *                  and only once the run has lasted 0.5 s. The environment
 *                  variable DIAGRAMIR_PROGRESS=0 turns it off, =1 on (as
 *                  PROGRESS_ON); any other value or none: automatic.
 *   PROGRESS_ON    always, from the first step, even into a pipe or file
 *                  (--progress; tests capture it so). Same bytes as on a
 *                  terminal.
 *   PROGRESS_OFF   never (--no-progress; -q of most programs).
 *
 * The options beat the environment. Whether to show it is decided once, in
 * progress_start: when it is off, progress_start returns NULL, every other
 * function takes NULL and does nothing, and progress_stream(NULL) is
 * stderr — no system call and no clock read per step.
 *
 * Messages written while the line is up must not land on it: write them
 * to progress_stream(p) (pass it as the diagnostics FILE of the libraries),
 * which erases the line before each message and draws it again after, or
 * call progress_clear(p) before writing to stderr yourself.
 *
 * Usage (ir2svg, irreport, ...): parse the options with the rest,
 *
 *     static const struct option longopts[] = {
 *         ...
 *         PROGRESS_LONG_OPTIONS,          // --progress, --no-progress
 *         { NULL, 0, NULL, 0 }
 *     };
 *     int pmode = PROGRESS_AUTO;
 *     ...
 *         case PROGRESS_OPT_ON:  pmode = PROGRESS_ON;  break;
 *         case PROGRESS_OPT_OFF: pmode = PROGRESS_OFF; break;
 *         case 'q': quiet = 1; break;
 *     ...
 *     if (quiet && pmode == PROGRESS_AUTO) pmode = PROGRESS_OFF;
 *     progress *bar = nfiles > 1 ? progress_start("ir2svg", "files", nfiles, pmode) : NULL;
 *     FILE *diag = progress_stream(bar);          // warnings go here
 *     for (int i = 0; i < nfiles; i++) {
 *         convert(argv[optind + i], diag);
 *         progress_step(bar, 1);
 *     }
 *     progress_done(bar);                          // erases the line, frees
 *
 * and add a line on it to the program's man page (OPTIONS and ENVIRONMENT;
 * see tikz2ir(1)).
 */
#ifndef DIAGRAMIR_PROGRESS_H
#define DIAGRAMIR_PROGRESS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

typedef struct progress progress;

enum { PROGRESS_AUTO = -1, PROGRESS_OFF = 0, PROGRESS_ON = 1 };

/* getopt_long codes of --progress and --no-progress (out of the way of
 * characters and of llm/opts.h's codes). */
enum { PROGRESS_OPT_ON = 0x5000, PROGRESS_OPT_OFF };
#define PROGRESS_LONG_OPTIONS                                   \
    { "progress", no_argument, NULL, PROGRESS_OPT_ON },         \
    { "no-progress", no_argument, NULL, PROGRESS_OPT_OFF }

/* A progress line "PROG: DONE/TOTAL WHAT ..." (total 0: unknown) on
 * stderr, or NULL when it is not to be shown (see the modes above). prog
 * and what are copied (at most 31 bytes each). */
progress *progress_start(const char *prog, const char *what, size_t total, int mode);
/* n more done (0: only redraw when due). */
void progress_step(progress *p, size_t n);
/* done set to an absolute count. */
void progress_set(progress *p, size_t done);
/* A new total (one that grows as work is found; 0: unknown). */
void progress_set_total(progress *p, size_t total);
/* A short note after the figures ("2 failed", "llm calls 3/7"), printf
 * style; "" for none. Shown at the next redraw. */
void progress_note(progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Erases the line now (it comes back at the next step); for a message
 * written to stderr directly. */
void progress_clear(progress *p);
/* Where messages go while the line may be up: stderr when p is NULL, else
 * a line-buffered stream that erases the line before each message and
 * draws it again once the message's line is complete. Valid until
 * progress_done. */
FILE *progress_stream(progress *p);
/* Erases the line and frees p (flushing progress_stream's last bytes). */
void progress_done(progress *p);

/* ---- for tests: the line itself, and a line with its own clock and output */

/* Formats the line (no "\r", no escape) for done of total (0: unknown)
 * after elapsed seconds into buf (n bytes, truncated, NUL-terminated);
 * width > 0 cuts it to width - 1 bytes. Returns the length written. */
size_t progress_format(char *buf, size_t n, const char *prog, const char *what, size_t done,
                       size_t total, double elapsed, const char *note, int width);

typedef struct {
    FILE *out;                  /* where the line is drawn (stderr) */
    double delay;               /* seconds before it first shows (0.5 auto, 0 forced) */
    double (*now)(void *ctx);   /* the clock in seconds (CLOCK_MONOTONIC) */
    void *now_ctx;
    int width;                  /* terminal width; 0: no cut */
} progress_opts;

/* A line that is always on, drawn on o->out with o->now; NULL out of memory. */
progress *progress_start_opts(const char *prog, const char *what, size_t total,
                              const progress_opts *o);

#endif
