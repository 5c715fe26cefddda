/* tikz2ir — TikZ/LaTeX source to diagramir IR. See man/tikz2ir.1. */
#include "grammar/tikz.h"
#include "ir/cli.h"
#include "ir/ir.h"
#include "ir/progress.h"
#include "llm/opts.h"
#include "llm/tikz_fallback.h"

#include <errno.h>
#include <getopt.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: tikz2ir [OPTION]... [FILE.tex]...\n"
          "Convert TikZ pictures to diagramir IR (absolute geometry in pt) on stdout.\n"
          "With no FILE, or FILE '-', read standard input.\n\n"
          "  -i, --id=ID        diagram id for stdin input (default: stdin)\n"
          "  -q, --quiet        no warnings (and no progress line) on stderr\n"
          "      --strict       exit 1 when any construct was left unparsed\n"
          "      --no-header    omit the 'diagramir 1' stream header\n"
          "      --json         write JSON (one object per diagram per line) instead of IR\n"
          "      --progress     always show the progress line on stderr (files done, ETA)\n"
          "      --no-progress  never show it (default: on a terminal, for a long run)\n"
          "%s"
          "  -h, --help         show this help and exit\n"
          "  -V, --version      show the version and exit\n\n"
          "      --fallback=llm send each construct left unparsed to a language model and\n"
          "                     keep the valid IR records it answers (marked src=llm);\n"
          "                     the LLM client's options (judge(1)):\n", cli_help(21));
    fputs(llm_opts_help, f);
    fputs("\nExit status: 0 success, 1 unparsed constructs with --strict (0 with\n"
          "--exit-zero), 2 usage or input error.\n", f);
}

/* base name without directory and .tex */
static char *base_id(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (n > 4 && strcmp(b + n - 4, ".tex") == 0) n -= 4;
    char *r = malloc(n + 1);
    if (!r) exit(2);
    memcpy(r, b, n);
    r[n] = 0;
    return r;
}

/* The progress line of a run: files, or with --fallback=llm on one input
 * the model's calls (their total grows as constructs are found). */
typedef struct {
    progress *bar;
    int of_calls;             /* the line counts calls, not files */
    size_t calls, found;      /* calls made; constructs sent or to send */
} run_progress;

static void call_done(void *ctx)
{
    run_progress *rp = ctx;
    rp->calls++;
    if (rp->of_calls) {
        progress_step(rp->bar, 1);
    } else {
        progress_note(rp->bar, "llm calls %zu/%zu", rp->calls, rp->found);
        progress_step(rp->bar, 0);
    }
}

typedef struct {
    FILE *out;
    int json;
    run_progress *rp;
    FILE *diag;
    t2l_fallback *fallback;
    const char *src;
    size_t srclen;
    const char *fname;
} sink_ctx;

static void write_diagram(void *ctx, ir_diagram *d)
{
    sink_ctx *s = ctx;
    if (s->fallback) {
        run_progress *rp = s->rp;
        if (rp->bar) {
            for (size_t i = 0; i < d->nelems; i++) rp->found += d->elems[i].kind == IR_UNPARSED;
            if (rp->of_calls) progress_set_total(rp->bar, rp->found);
            else if (rp->found) progress_note(rp->bar, "llm calls %zu/%zu", rp->calls, rp->found);
        }
        t2l_apply(s->fallback, d, s->src, s->srclen, s->fname, s->diag);
    }
    if (s->json) ir_write_json(s->out, d);
    else ir_write_diagram(s->out, d);
    ir_diagram_free(d);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "id", required_argument, NULL, 'i' },
        { "quiet", no_argument, NULL, 'q' },
        { "strict", no_argument, NULL, 's' },
        { "no-header", no_argument, NULL, 'H' },
        { "json", no_argument, NULL, 'j' },
        { "fallback", required_argument, NULL, 'F' },
        LLM_LONG_OPTIONS,
        PROGRESS_LONG_OPTIONS,
        CLI_LONG_OPTIONS,
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 }
    };
    cli_init("tikz2ir");
    const char *stdin_id = "stdin";
    int quiet = 0, strict = 0, header = 1, json = 0, fallback = 0, pmode = PROGRESS_AUTO, c;
    llm_config lc;
    llm_config_init(&lc);
    while ((c = getopt_long(argc, argv, "i:qo:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'i': stdin_id = optarg; break;
        case 'q': quiet = 1; break;
        case 's': strict = 1; break;
        case 'H': header = 0; break;
        case 'j': json = 1; break;
        case PROGRESS_OPT_ON: pmode = PROGRESS_ON; break;
        case PROGRESS_OPT_OFF: pmode = PROGRESS_OFF; break;
        case 'F':
            if (strcmp(optarg, "llm") == 0) fallback = 1;
            else if (strcmp(optarg, "none") == 0) fallback = 0;
            else { fprintf(stderr, "tikz2ir: --fallback: unknown value '%s' (llm or none)\n", optarg); return 2; }
            break;
        case 'h': usage(stdout); return 0;
        case 'V': return cli_version();
        default:
            if (LLM_OPT_IS(c)) {
                if (llm_opt_parse(&lc, c, optarg, "tikz2ir") != 0) return 2;
                break;
            }
            if (!cli_opt(c, optarg, "[OPTION]... [FILE.tex]...")) return 2;
            break;
        }
    }
    if (cli_output_begin() != 0) return 2;
    int rc = 0, unparsed = 0;
#if defined(__GLIBC__) && defined(M_TRIM_THRESHOLD)
    /* Many files in one process: the heap grows to the same peak for each
     * larger input; without this glibc gives the top back (brk) after each
     * and the next one faults the pages in again. */
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
    /* The writer hands stdio one diagram at a time (a few KiB): with the
     * default buffer (st_blksize, 4 KiB) nearly every diagram became its own
     * write(2). A 64 KiB buffer makes it one system call per ~10 diagrams
     * into a file or pipe; a terminal keeps stdio's own line buffering. */
    static char outbuf[1 << 16];
    if (!isatty(STDOUT_FILENO)) setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (header && !json) ir_write_header(stdout);
    int nfiles = argc - optind;
    t2l_fallback *fb = NULL;
    if (fallback) {
        char err[512];
        fb = t2l_new(&lc, err, sizeof err);
        if (!fb) { fprintf(stderr, "tikz2ir: error: --fallback=llm: %s\n", err); return 2; }
    }
    /* Many files: a line of files (llm calls in its note); one input with
     * the fallback: a line of calls. Decided once: NULL when not shown. */
    if (quiet && pmode == PROGRESS_AUTO) pmode = PROGRESS_OFF;
    run_progress rp = { NULL, 0, 0, 0 };
    if (nfiles > 1) rp.bar = progress_start("tikz2ir", "files", (size_t)nfiles, pmode);
    else if (fb) {
        rp.bar = progress_start("tikz2ir", "llm calls", 0, pmode);
        rp.of_calls = 1;
    }
    if (fb && rp.bar) t2l_on_call(fb, call_done, &rp);
    FILE *diag = progress_stream(rp.bar);
    tikz_session *session = tikz_session_new();
    for (int i = 0; i < (nfiles ? nfiles : 1); i++) {
        const char *path = nfiles ? argv[optind + i] : "-";
        int is_stdin = strcmp(path, "-") == 0;
        size_t len = 0;
        int too_big = 0, open_failed = 0;
        /* a little over the front end's own limit, so that it reports the size */
        char *src = is_stdin ? ir_read_all(stdin, (size_t)17 << 20, &len, &too_big)
                             : ir_read_file(path, (size_t)17 << 20, &len, &too_big, &open_failed);
        if (open_failed) {
            fprintf(diag, "tikz2ir: %s: %s\n", path, strerror(errno));
            rc = 2;
            progress_step(rp.bar, !rp.of_calls);
            continue;
        }
        if (!src) {
            fprintf(diag, "tikz2ir: %s: read error: %s\n", path, strerror(errno));
            rc = 2;
            progress_step(rp.bar, !rp.of_calls);
            continue;
        }
        char *id = is_stdin ? NULL : base_id(path);
        tikz_config cfg = { is_stdin ? "<stdin>" : path, is_stdin ? stdin_id : id, quiet, diag, 0, 0, session };
        sink_ctx sc = { stdout, json, &rp, diag, fb, src, len, cfg.fname };
        int r = tikz_convert(src, len, &cfg, write_diagram, &sc);
        if (r != 0) rc = 2;
        unparsed += cfg.nunparsed;
        free(id);
        free(src);
        progress_step(rp.bar, !rp.of_calls);
    }
    progress_done(rp.bar);
    tikz_session_free(session);
    t2l_free(fb, fb && !quiet ? stderr : NULL);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "tikz2ir: write error: %s\n", strerror(errno));
        return 2;
    }
    if (rc == 0 && strict && unparsed) rc = 1;
    return cli_exit(rc);
}
