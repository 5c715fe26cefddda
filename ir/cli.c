/* ir/cli.c — the command-line contract of every program; see ir/cli.h. */
#if !defined(__APPLE__) && !defined(__FreeBSD__) && !defined(__NetBSD__) && !defined(__OpenBSD__)
#define _GNU_SOURCE 1   /* fopencookie */
#endif

#include "ir/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* The --help lines: the option, then its description in lines. */
static const struct { const char *opt, *desc[3]; } help_rows[] = {
    { "  -o, --output FILE", { "write the output to FILE whole or not at all (a",
                               "temporary file beside it, renamed at the end)", NULL } },
    { "      --exit-zero", { "exit 0, not 1, on findings (errors still exit 2)", NULL } },
    { "      --color[=WHEN]", { "color the diagnostics: auto (on a terminal without",
                                "NO_COLOR; the default), always or never", NULL } },
};

const char *cli_help(int col)
{
    static char buf[1024];
    size_t n = 0;
    buf[0] = 0;
    for (size_t r = 0; r < sizeof help_rows / sizeof help_rows[0]; r++) {
        for (int k = 0; k < 3 && help_rows[r].desc[k]; k++) {
            const char *left = k ? "" : help_rows[r].opt;
            int pad = col - (int)strlen(left);
            int w = snprintf(buf + n, sizeof buf - n, "%s%*s%s\n", left, pad > 1 ? pad : 1, "",
                             help_rows[r].desc[k]);
            if (w < 0 || (size_t)w >= sizeof buf - n) return buf;
            n += (size_t)w;
        }
    }
    return buf;
}

static const char *prog_name = "diagramir";
static int exit_zero;
static int color_on;
static const char *out_path;

/* ------------------------------------------------------------ colors */

#if defined(__GLIBC__)
#define CLI_CAN_COLOR 1
static FILE *color_stream;   /* what stderr is once colored */
static int color_bol = 1;    /* the next byte starts a line */

static void put_fd(const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}
static void put_str(const char *s) { put_fd(s, strlen(s)); }

/* One line (or the part of it in this write), from its first byte when
 * bol: the keyword at its start or after ": " is colored, what is before
 * it (the location) made bold. */
static void color_line(const char *s, size_t n, int bol)
{
    static const struct { const char *word; const char *sgr; } kw[] = {
        { "error:", "\033[1;31m" }, { "warning:", "\033[1;35m" }, { "note:", "\033[1;36m" },
    };
    if (!bol || !color_on) { put_fd(s, n); return; }
    size_t start = 0;
    while (start + 3 <= n && !memcmp(s + start, "\033[K", 3)) start += 3;
    for (size_t i = start; i < n; i++) {
        if (i > start && !(i >= start + 2 && s[i - 2] == ':' && s[i - 1] == ' ')) continue;
        for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++) {
            size_t wl = strlen(kw[k].word);
            if (n - i < wl || memcmp(s + i, kw[k].word, wl)) continue;
            put_fd(s, start);
            if (i > start) {
                put_str("\033[1m");
                put_fd(s + start, i - start - 1);
                put_str("\033[0m ");
            }
            put_str(kw[k].sgr);
            put_fd(s + i, wl);
            put_str("\033[0m");
            put_fd(s + i + wl, n - i - wl);
            return;
        }
    }
    put_fd(s, n);
}

static ssize_t color_write(void *cookie, const char *buf, size_t n)
{
    (void)cookie;
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && buf[j] != '\n' && buf[j] != '\r') j++;
        if (j < n) j++;   /* with its end */
        color_line(buf + i, j - i, color_bol);
        color_bol = buf[j - 1] == '\n' || buf[j - 1] == '\r';
        i = j;
    }
    return (ssize_t)n;
}

static void color_install(void)
{
    if (color_stream) return;
    cookie_io_functions_t io = { NULL, color_write, NULL, NULL };
    FILE *f = fopencookie(NULL, "w", io);
    if (!f) return;
    setvbuf(f, NULL, _IOLBF, BUFSIZ);
    fflush(stderr);
    color_stream = f;
    stderr = f;   /* glibc: stderr is a variable */
}
#else
#define CLI_CAN_COLOR 0
static void color_install(void) {}
#endif

static int color_auto(void)
{
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc) return 0;
    const char *term = getenv("TERM");
    if (term && !strcmp(term, "dumb")) return 0;
    return isatty(STDERR_FILENO);
}

static void color_set(int on)
{
    color_on = on && CLI_CAN_COLOR;
    if (color_on) color_install();
}

void cli_init(const char *prog)
{
    if (prog) prog_name = prog;
    color_set(color_auto());
}

const char *cli_prog(void) { return prog_name; }
int cli_exit_zero(void) { return exit_zero; }
int cli_color(void) { return color_on; }
const char *cli_output_path(void) { return out_path; }

int cli_opt(int c, const char *arg, const char *synopsis)
{
    switch (c) {
    case 'o':
        if (!*arg) {
            fprintf(stderr, "%s: error: --output wants a file name\n", prog_name);
            return 0;
        }
        out_path = strcmp(arg, "-") ? arg : NULL;
        return 1;
    case CLI_OPT_EXIT_ZERO:
        exit_zero = 1;
        return 1;
    case CLI_OPT_COLOR:
        if (!arg || !strcmp(arg, "always") || !strcmp(arg, "yes") || !strcmp(arg, "force"))
            color_set(1);
        else if (!strcmp(arg, "never") || !strcmp(arg, "no") || !strcmp(arg, "none"))
            color_set(0);
        else if (!strcmp(arg, "auto") || !strcmp(arg, "tty") || !strcmp(arg, "if-tty"))
            color_set(color_auto());
        else {
            fprintf(stderr, "%s: error: --color: unknown value '%s' (auto, always or never)\n",
                    prog_name, arg);
            return 0;
        }
        return 1;
    default:
        cli_usage_error(synopsis);
        return 0;
    }
}

int cli_version(void)
{
    printf("%s (diagramir) %s\n", prog_name, DIAGRAMIR_VERSION);
    return 0;
}

int cli_usage_error(const char *synopsis)
{
    fprintf(stderr, "usage: %s %s\nTry '%s --help' for more information.\n", prog_name,
            synopsis, prog_name);
    return 2;
}

/* ------------------------------------------------------ atomic output */

static char tmp_path[4096];
static volatile sig_atomic_t tmp_live;   /* tmp_path exists and is ours */

static void tmp_remove(void)
{
    if (tmp_live) {
        tmp_live = 0;
        unlink(tmp_path);
    }
}

static void on_signal(int sig)
{
    if (tmp_live) unlink(tmp_path);
    tmp_live = 0;
    signal(sig, SIG_DFL);
    raise(sig);
}

int cli_output_begin(void)
{
    if (!out_path) return 0;
    const char *slash = strrchr(out_path, '/');
    size_t dirlen = slash ? (size_t)(slash - out_path) + 1 : 0;
    const char *base = slash ? slash + 1 : out_path;
    if (!*base) {
        fprintf(stderr, "%s: error: %s: not a file name\n", prog_name, out_path);
        return 2;
    }
    int n = snprintf(tmp_path, sizeof tmp_path, "%.*s.%s.tmpXXXXXX", (int)dirlen, out_path, base);
    if (n < 0 || (size_t)n >= sizeof tmp_path) {
        fprintf(stderr, "%s: error: %s: file name too long\n", prog_name, out_path);
        return 2;
    }
    struct stat st;
    if (stat(out_path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "%s: error: %s: %s\n", prog_name, out_path, strerror(EISDIR));
        return 2;
    }
    int fd = mkstemp(tmp_path);
    if (fd < 0) {
        fprintf(stderr, "%s: error: %s: %s\n", prog_name, out_path, strerror(errno));
        return 2;
    }
    tmp_live = 1;
    static int registered;
    if (!registered) {
        registered = 1;
        atexit(tmp_remove);
        static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
            struct sigaction sa, old;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigemptyset(&sa.sa_mask);
            /* an ignored signal (nohup) stays ignored */
            if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
            sigaction(sigs[i], &sa, NULL);
        }
    }
    /* the mode a new file would get (mkstemp's is 0600) */
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0) { /* keep 0600 */ }
    fflush(stdout);
    if (dup2(fd, STDOUT_FILENO) < 0) {
        fprintf(stderr, "%s: error: %s: %s\n", prog_name, out_path, strerror(errno));
        close(fd);
        tmp_remove();
        return 2;
    }
    close(fd);
    return 0;
}

int cli_exit(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (rc != 2)
            fprintf(stderr, "%s: error writing %s: %s\n", prog_name,
                    out_path ? out_path : "output", strerror(errno));
        rc = 2;
    }
    if (tmp_live) {
        if (rc == 0 || rc == 1) {
            if (rename(tmp_path, out_path) != 0) {
                fprintf(stderr, "%s: error: %s: %s\n", prog_name, out_path, strerror(errno));
                tmp_remove();
                rc = 2;
            } else {
                tmp_live = 0;
            }
        } else {
            tmp_remove();
        }
    }
    if (rc == 1 && exit_zero) rc = 0;
    return rc;
}

void cli_one_line(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = ' ';
}
