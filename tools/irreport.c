/* irreport — one self-contained HTML study report from diagrams and verdicts.
 *
 *   irreport -o study.html dev.ir human.tsv irlint.tsv judge.tsv
 *
 * Reads IR (tikz2ir, irlint --format ir: the diagrams, with their finding
 * records) and long-form verdict tables (item criterion rater value [note])
 * from the files named (or stdin), each file recognized by its first line,
 * and writes one HTML file: the agreement of every rater with the reference
 * per criterion (kappa's numbers, with bootstrap intervals), confusion
 * matrices, a bar chart and a gallery of every item.  Argument parsing and
 * I/O only; the work is in report/report.c.  See irreport(1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ir/cli.h"
#include "ir/ir.h"
#include "ir/progress.h"
#include "report/report.h"
#include "stats/run.h"


static void usage(FILE *f)
{
    fprintf(f, "usage: irreport [options] [-o FILE] [file.ir|file.tsv ...]\n"
          "Writes one self-contained HTML report of a study: the diagrams (IR, with\n"
          "irlint's findings) and verdict tables (item, criterion, rater, value [, note])\n"
          "read from the files or stdin; IR is recognized by its first line.\n"
          "\n"
          "  -t, --title TEXT       the report's title (diagramir study)\n"
          "  -R, --reference A      the rater the others are compared with (human, else\n"
          "                         the first rater)\n"
          "      --raters A,B,...   show only these raters, in this order\n"
          "      --all-pairs        compare every pair of raters, not only with the reference\n"
          "  -m, --missing drop|V   as kappa: a missing verdict on a rated item (drop)\n"
          "      --unrated drop|V   as kappa: an item the rater never rated (drop)\n"
          "      --ci LEVEL         bootstrap interval level (0.95; 0: none)\n"
          "      --reps N           bootstrap replicates (1000)\n"
          "      --seed N           bootstrap seed (1)\n"
          "  -d, --digits N         decimals shown (3)\n"
          "      --no-pictures      no drawings in the gallery (a smaller file)\n"
          "      --all-findings     draw yes and na findings too, not only failing ones\n"
          "  -q, --quiet            no notes on stderr (and no progress line)\n"
          "      --progress, --no-progress  the pictures' progress line on stderr (default:\n"
          "                         on a terminal, when stdout is not one, after 0.5 s)\n"
          "%s"
          "  -h, --help             this help\n"
          "  -V, --version          version\n"
          "\n"
          "Exit status: 0 success, 2 usage or input error (nothing is written; no findings\n"
          "status: --exit-zero changes nothing).  See irreport(1).\n", cli_help(25));
}

/* Adds one input; returns 0 or -1 (reported). */
static int add_input(report *rep, const char *name, FILE *err)
{
    size_t len = 0;
    int too_big = 0, open_failed = 0;
    char *data;
    const char *shown = name;
    if (!strcmp(name, "-")) {
        data = ir_read_all(stdin, (size_t)1 << 34, &len, &too_big);
        shown = "<stdin>";
    } else {
        data = ir_read_file(name, (size_t)1 << 34, &len, &too_big, &open_failed);
    }
    if (!data) {
        fprintf(err, "irreport: error: %s: %s\n", shown, strerror(errno));
        return -1;
    }
    if (too_big) {
        fprintf(err, "irreport: error: %s: too big\n", shown);
        free(data);
        return -1;
    }
    int rc = report_is_ir(data, len) ? report_add_ir(rep, data, len, shown, err)
                                     : report_add_table(rep, data, len, shown, err);
    free(data);
    return rc;
}

int main(int argc, char **argv)
{
    enum { O_ALL_PAIRS = 256, O_UNRATED, O_CI, O_REPS, O_SEED, O_NO_PICTURES, O_ALL_FINDINGS };
    static const struct option longopts[] = {
        { "title", required_argument, NULL, 't' },
        { "reference", required_argument, NULL, 'R' },
        { "raters", required_argument, NULL, 'r' },
        { "all-pairs", no_argument, NULL, O_ALL_PAIRS },
        { "missing", required_argument, NULL, 'm' },
        { "unrated", required_argument, NULL, O_UNRATED },
        { "ci", required_argument, NULL, O_CI },
        { "reps", required_argument, NULL, O_REPS },
        { "seed", required_argument, NULL, O_SEED },
        { "digits", required_argument, NULL, 'd' },
        { "no-pictures", no_argument, NULL, O_NO_PICTURES },
        { "all-findings", no_argument, NULL, O_ALL_FINDINGS },
        { "quiet", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        PROGRESS_LONG_OPTIONS,
        CLI_LONG_OPTIONS,
        { NULL, 0, NULL, 0 }
    };
    cli_init("irreport");
    report_opts o;
    report_opts_init(&o);
    int c, status = 0;
    long long v;
    while ((c = getopt_long(argc, argv, "o:t:R:m:d:qhV", longopts, NULL)) != -1) {
        switch (c) {
        case 't': o.title = optarg; break;
        case 'R': o.reference = optarg; break;
        case 'r': o.raters = optarg; break;
        case O_ALL_PAIRS: o.all_pairs = 1; break;
        case 'm': o.missing = strcmp(optarg, "drop") ? optarg : NULL; break;
        case O_UNRATED: o.unrated = strcmp(optarg, "drop") ? optarg : NULL; break;
        case O_CI: {
            char *end;
            errno = 0;
            o.ci = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(o.ci >= 0 && o.ci < 1)) {
                fprintf(stderr, "irreport: error: --ci wants a level between 0 and 1, such as 0.95 "
                        "(0: no intervals)\n");
                status = 2;
            }
            break;
        }
        case O_REPS:
            if (kappa_parse_long(optarg, 1, 100000000, &v) < 0) {
                fprintf(stderr, "irreport: error: --reps wants a count between 1 and 100000000\n");
                status = 2;
            } else o.reps = (long)v;
            break;
        case O_SEED:
            if (kappa_parse_long(optarg, 0, INT64_MAX, &v) < 0) {
                fprintf(stderr, "irreport: error: --seed wants a non-negative integer\n");
                status = 2;
            } else o.seed = (uint64_t)v;
            break;
        case 'd':
            if (kappa_parse_long(optarg, 0, 17, &v) < 0) {
                fprintf(stderr, "irreport: error: --digits wants a number between 0 and 17\n");
                status = 2;
            } else o.digits = (int)v;
            break;
        case O_NO_PICTURES: o.pictures = 0; break;
        case O_ALL_FINDINGS: o.all_findings = 1; break;
        case 'q': o.quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': return cli_version();
        case PROGRESS_OPT_ON: o.progress = PROGRESS_ON; break;
        case PROGRESS_OPT_OFF: o.progress = PROGRESS_OFF; break;
        default:
            if (!cli_opt(c, optarg, "[OPTION]... [-o FILE] [FILE.ir|FILE.tsv]...")) return 2;
            break;
        }
    }
    if (status) return 2;
    if (o.quiet && o.progress == PROGRESS_AUTO) o.progress = PROGRESS_OFF;
    if (cli_output_begin() != 0) return 2;
    report *rep = report_new(&o);
    if (!rep) { fputs("irreport: out of memory\n", stderr); return 2; }
    int bad = 0;
    if (optind == argc) bad = add_input(rep, "-", stderr) < 0;
    for (int i = optind; i < argc && !bad; i++) bad = add_input(rep, argv[i], stderr) < 0;
    if (bad) { report_free(rep); return 2; }

    /* the whole document in memory first: nothing half-written */
    char *doc = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&doc, &len);
    if (!m) { fputs("irreport: out of memory\n", stderr); report_free(rep); return 2; }
    status = report_write(rep, m, stderr);
    if (fclose(m) != 0) { fputs("irreport: out of memory\n", stderr); status = 2; }
    report_free(rep);
    if (status) { free(doc); return status; }

    if (fwrite(doc, 1, len, stdout) != len || fflush(stdout) != 0) {
        fprintf(stderr, "irreport: error writing output: %s\n", strerror(errno));
        status = 2;
    }
    free(doc);
    return cli_exit(status);
}
