/* ir2svg — draw the diagrams of the IR as SVG (or PNG), as TeX would.
 *
 *   tikz2ir fig.tex | ir2svg > fig.svg
 *   tikz2ir fig.tex | irlint --format ir | ir2svg --png -o fig.png
 *   ir2svg -d pictures/ --png dataset.ir
 *
 * Reads IR from the named files (or stdin, or "-"); all of the input is
 * read and checked before anything is written. One diagram goes to stdout
 * or to -o FILE; with -d DIR each diagram goes to DIR/ID.svg (or .png).
 * Files are written under a temporary name and renamed when complete.
 * Exit status: 0 success, 2 usage, input or output error.
 * See ir2svg(1); the drawing itself is draw/draw.h's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "draw/draw.h"
#include "ir/cli.h"
#include "ir/ir.h"
#include "ir/progress.h"
#include "ir/xalloc.h"

/* where messages go: stderr, or the progress line's stream while it is up */
static FILE *diag;


static void usage(FILE *f)
{
    fprintf(f, "usage: ir2svg [-o FILE | --dir DIR] [--png [--dpi N]] [--margin PT] [--no-findings]\n"
          "              [--all-findings] [--fragment] [FILE...]\n"
          "Draws each diagram of the IR input (files, or stdin) as SVG or PNG.\n"
          "\n"
          "      --dir DIR        one file per diagram: DIR/ID.svg or DIR/ID.png (ID sanitized)\n"
          "      --png            PNG (librsvg + cairo) instead of SVG\n"
          "      --dpi N          PNG resolution, dots per inch of 72.27 pt (default 100)\n"
          "      --margin PT      white around the picture (default 4; 0: the viewBox is the\n"
          "                       IR's bbox exactly)\n"
          "      --no-findings    do not draw the finding records\n"
          "      --all-findings   draw yes and na findings too (default: only verdict=no)\n"
          "      --fragment       SVG: an <svg> element without the XML declaration\n"
          "      --progress, --no-progress  a progress line on stderr with --dir (default:\n"
          "                       on a terminal, when stdout is not one, after 0.5 s)\n"
          "%s"
          "  -h, --help           this help\n"
          "  -V, --version        version\n"
          "\n"
          "Exit status: 0 success, 2 usage, input or output error (no findings status:\n"
          "--exit-zero changes nothing).\n",
          cli_help(23));
}

typedef struct {
    ir_diagram **d;
    size_t n, cap;
} dlist;

/* Reads every diagram of f into l. Returns 0, or 2 after an error message. */
static int read_stream(dlist *l, FILE *f, const char *name)
{
    ir_reader *rd = ir_reader_new(f, name);
    if (!rd) { fprintf(diag, "ir2svg: %s\n", strerror(errno)); return 2; }
    int rc = 0;
    for (;;) {
        ir_diagram *d = NULL;
        int st = ir_read_diagram(rd, &d);
        if (st == 0) break;
        if (st < 0) {
            fprintf(diag, "%s\n", ir_reader_error(rd));
            rc = 2;
            break;
        }
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 16;
            l->d = xrealloc(l->d, l->cap * sizeof *l->d);
        }
        l->d[l->n++] = d;
    }
    ir_reader_free(rd);
    return rc;
}

/* A file name from a diagram id: bytes other than letters, digits, '.',
 * '-' and '_' become '_', a leading '.' too; at most 120 bytes; "diagram"
 * for an empty id. */
static char *sanitize(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n > 120) n = 120;
    if (n == 0) return xstrdup("diagram");
    char *s = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || (c == '.' && i > 0);
        s[i] = ok ? c : '_';
    }
    s[n] = '\0';
    return s;
}

typedef struct {
    char *name;
    size_t idx;
} named;

static int cmp_named(const void *a, const void *b)
{
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The file names of -d: sanitized ids; the second, third... diagram with
 * the same name gets "~2", "~3"... ('~' is never in a sanitized name). */
static char **file_names(const dlist *l)
{
    named *v = xcalloc(l->n ? l->n : 1, sizeof *v);
    for (size_t i = 0; i < l->n; i++) {
        v[i].name = sanitize(l->d[i]->id);
        v[i].idx = i;
    }
    qsort(v, l->n, sizeof *v, cmp_named);
    char **names = xcalloc(l->n ? l->n : 1, sizeof *names);
    for (size_t i = 0, run = 0; i < l->n; i++) {
        run = (i > 0 && !strcmp(v[i].name, v[i - 1].name)) ? run + 1 : 0;
        if (run) {
            size_t len = strlen(v[i].name) + 24;
            char *s = xmalloc(len);
            snprintf(s, len, "%s~%zu", v[i].name, run + 1);
            names[v[i].idx] = s;
        } else {
            names[v[i].idx] = xstrdup(v[i].name);
        }
    }
    for (size_t i = 0; i < l->n; i++) free(v[i].name);
    free(v);
    return names;
}

typedef struct {
    draw_opts dopt;
    int png;
    double dpi;
} opts;

/* Draws d to f. Returns 0, or 2 after an error message. */
static int render(FILE *f, const ir_diagram *d, const opts *o)
{
    if (o->png) {
        char err[512];
        if (draw_png(f, d, &o->dopt, o->dpi, err, sizeof err) < 0) {
            fprintf(diag, "ir2svg: error: diagram %s: %s\n", d->id ? d->id : "-", err);
            return 2;
        }
        return 0;
    }
    if (draw_svg(f, d, &o->dopt) < 0) {
        fprintf(diag, "ir2svg: error writing diagram %s: %s\n", d->id ? d->id : "-",
                strerror(errno));
        return 2;
    }
    return 0;
}

/* Draws d into path, through path.tmp-PID and a rename. */
static int render_file(const char *path, const ir_diagram *d, const opts *o)
{
    size_t len = strlen(path) + 32;
    char *tmp = xmalloc(len);
    snprintf(tmp, len, "%s.tmp-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(diag, "ir2svg: error: %s: %s\n", tmp, strerror(errno));
        free(tmp);
        return 2;
    }
    int rc = render(f, d, o);
    if (fclose(f) != 0 && rc == 0) {
        fprintf(diag, "ir2svg: error writing %s: %s\n", tmp, strerror(errno));
        rc = 2;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        fprintf(diag, "ir2svg: error: %s: %s\n", path, strerror(errno));
        rc = 2;
    }
    if (rc != 0) remove(tmp);
    free(tmp);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"dir", required_argument, NULL, 'd'},
        {"png", no_argument, NULL, 'p'},           {"dpi", required_argument, NULL, 'r'},
        {"margin", required_argument, NULL, 'm'},  {"no-findings", no_argument, NULL, 'n'},
        {"all-findings", no_argument, NULL, 'a'},  {"fragment", no_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},          {"version", no_argument, NULL, 'V'},
        PROGRESS_LONG_OPTIONS,
        CLI_LONG_OPTIONS,
        {NULL, 0, NULL, 0}};
    cli_init("ir2svg");
    int pmode = PROGRESS_AUTO;
    diag = stderr;
    opts o;
    memset(&o, 0, sizeof o);
    draw_opts_init(&o.dopt);
    o.dpi = 100;
    const char *dir = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "o:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': dir = optarg; break;
        case 'p': o.png = 1; break;
        case 'r':
            if (!ir_parse_num(optarg, &o.dpi) || !(o.dpi >= 1 && o.dpi <= 10000)) {
                fprintf(stderr, "ir2svg: error: --dpi wants a number from 1 to 10000, not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'm':
            if (!ir_parse_num(optarg, &o.dopt.margin) || !(o.dopt.margin >= 0 && o.dopt.margin <= 1e4)) {
                fprintf(stderr, "ir2svg: error: --margin wants a number of pt from 0 to 10000, not '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'n': o.dopt.findings = 0; break;
        case 'a': o.dopt.all_findings = 1; break;
        case 'f': o.dopt.fragment = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': return cli_version();
        case PROGRESS_OPT_ON: pmode = PROGRESS_ON; break;
        case PROGRESS_OPT_OFF: pmode = PROGRESS_OFF; break;
        default:
            if (!cli_opt(c, optarg, "[-o FILE | --dir DIR] [OPTION]... [FILE]...")) return 2;
            break;
        }
    }
    if (cli_output_path() && dir) {
        fprintf(stderr, "ir2svg: error: -o and --dir exclude each other\n");
        return 2;
    }
    if (o.png && o.dopt.fragment) {
        fprintf(stderr, "ir2svg: error: --fragment is for SVG output, not --png\n");
        return 2;
    }
    if (o.png && !cli_output_path() && !dir && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "ir2svg: error: will not write a PNG to a terminal (use -o FILE or redirect)\n");
        return 2;
    }
    if (cli_output_begin() != 0) return 2;
    diag = stderr;   /* again: --color=always may have made stderr the colored stream */

#if defined(__GLIBC__)
    /* A PNG's surface (a few MB) is allocated and freed per diagram: keep
     * it in the heap instead of mapping and unmapping it each time (page
     * faults were 10% of ir2svg --png's time over the dev items). */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
    /* all of the input first: nothing is written when any of it is bad */
    dlist l = {0};
    int rc = 0;
    if (optind >= argc) {
        rc = read_stream(&l, stdin, "<stdin>");
    } else {
        for (int i = optind; i < argc && rc == 0; i++) {
            if (!strcmp(argv[i], "-")) {
                rc = read_stream(&l, stdin, "<stdin>");
                continue;
            }
            FILE *f = fopen(argv[i], "r");
            if (!f) {
                fprintf(stderr, "ir2svg: %s: %s\n", argv[i], strerror(errno));
                rc = 2;
                break;
            }
            rc = read_stream(&l, f, argv[i]);
            fclose(f);
        }
    }
    if (rc == 0 && l.n == 0) {
        fprintf(stderr, "ir2svg: error: no diagram in the input\n");
        rc = 2;
    }
    if (rc == 0 && !dir && l.n > 1) {
        fprintf(stderr, "ir2svg: error: the input holds %zu diagrams; --dir DIR writes one file per "
                        "diagram\n",
                l.n);
        rc = 2;
    }
    if (rc == 0 && dir) {
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "ir2svg: error: %s: %s\n", dir, strerror(errno));
            rc = 2;
        }
        char **names = rc == 0 ? file_names(&l) : NULL;
        progress *bar = rc == 0 && l.n > 1 ? progress_start("ir2svg", "diagrams", l.n, pmode) : NULL;
        diag = progress_stream(bar);
        for (size_t i = 0; rc == 0 && i < l.n; i++) {
            size_t len = strlen(dir) + strlen(names[i]) + 8;
            char *path = xmalloc(len);
            snprintf(path, len, "%s/%s.%s", dir, names[i], o.png ? "png" : "svg");
            rc = render_file(path, l.d[i], &o);
            free(path);
            progress_step(bar, 1);
        }
        progress_done(bar);
        diag = stderr;
        if (names)
            for (size_t i = 0; i < l.n; i++) free(names[i]);
        free(names);
    } else if (rc == 0) {
        /* drawn into memory first: stdout gets all of it or nothing */
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m) { perror("ir2svg"); rc = 2; }
        else {
            rc = render(m, l.d[0], &o);
            if (fclose(m) != 0 && rc == 0) { perror("ir2svg"); rc = 2; }
            if (rc == 0 && fwrite(buf, 1, len, stdout) != len) rc = 2;
            free(buf);
        }
    }
    for (size_t i = 0; i < l.n; i++) ir_diagram_free(l.d[i]);
    free(l.d);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ir2svg: error writing output: %s\n", strerror(errno));
        rc = 2;
    }
    return cli_exit(rc);
}
