/* kappa — agreement and grading statistics over long-form rating tables.
 * Argument parsing and I/O only; the work is in stats/table.c, stats/run.c
 * and stats/measures.c.  See man/kappa.1. */
#include "ir/cli.h"
#include "stats/run.h"
#include "stats/table.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: kappa [options] [file.tsv ...]\n"
          "Agreement and grading statistics over rating tables (TSV with the header\n"
          "item, criterion, rater, value [, note]); reads the files or stdin.\n"
          "\n"
          "  -b, --by COLS          one group per value of these columns (e.g. criterion)\n"
          "      --raters A,B,...   compare only these raters (default: all present)\n"
          "  -R, --reference A      pair A with every other rater (A is the reference)\n"
          "  -s, --stat LIST        statistics to compute (repeatable; --list-stats)\n"
          "  -m, --missing drop|V   a rater's missing verdict on an item it rated is left\n"
          "                         out (drop, the default) or counts as category V\n"
          "      --unrated drop|V   the same for items the rater has no row for at all\n"
          "      --positive LABEL   positive class of the binary statistics (yes)\n"
          "      --multi-label      several value rows per item and rater form a set\n"
          "      --both CRIT=VALUE  label statistics of a pair only on the items both raters\n"
          "                         rated so (SketchJudge: --both is-correct=no)\n"
          "      --taxonomy FILE    keep only the labels DOMAIN::LABEL of FILE's taxonomy\n"
          "                         applicable to the answer's domain (see kappa(1))\n"
          "      --compare A,B      with --reference GOLD: stat(GOLD,A) - stat(GOLD,B), its\n"
          "                         paired bootstrap interval and permutation p-value\n"
          "      --percent-of MAX   mean as a percentage of MAX (EduIllustrate: 5)\n"
          "      --duplicates error|first|last   conflicting duplicate rows (error)\n"
          "      --ci LEVEL         bootstrap percentile interval over items, e.g. 0.95\n"
          "      --reps N           bootstrap replicates (1000)\n"
          "      --seed N           bootstrap seed (1)\n"
          "  -f, --format tsv|table|json   output format (tsv)\n"
          "  -d, --digits N         decimals in tsv and table output (6)\n"
          "  -q, --quiet            no notes on stderr (warnings remain)\n"
          "      --list-stats       print the statistic names\n"
          "%s"
          "  -h, --help             this help\n"
          "  -V, --version          version\n"
          "\n"
          "Output: group stat rater-a rater-b value n ci-low ci-high p.  Exit status 0 on\n"
          "success, 2 on a usage or input error (no findings status: --exit-zero changes\n"
          "nothing).  See kappa(1).\n", cli_help(25));
}

static int append_list(char **list, const char *item)
{
    size_t a = *list ? strlen(*list) : 0, b = strlen(item);
    char *p = realloc(*list, a + b + 2);
    if (!p) return -1;
    if (a) p[a++] = ',';
    memcpy(p + a, item, b + 1);
    *list = p;
    return 0;
}

int main(int argc, char **argv)
{
    enum { O_UNRATED = 256, O_POSITIVE, O_MULTI, O_DUP, O_CI, O_REPS, O_SEED, O_LIST, O_BOTH,
           O_TAXONOMY, O_COMPARE, O_PERCENT };
    static const struct option longopts[] = {
        { "by", required_argument, NULL, 'b' },
        { "raters", required_argument, NULL, 'r' },
        { "reference", required_argument, NULL, 'R' },
        { "stat", required_argument, NULL, 's' },
        { "missing", required_argument, NULL, 'm' },
        { "unrated", required_argument, NULL, O_UNRATED },
        { "positive", required_argument, NULL, O_POSITIVE },
        { "multi-label", no_argument, NULL, O_MULTI },
        { "both", required_argument, NULL, O_BOTH },
        { "taxonomy", required_argument, NULL, O_TAXONOMY },
        { "compare", required_argument, NULL, O_COMPARE },
        { "percent-of", required_argument, NULL, O_PERCENT },
        { "duplicates", required_argument, NULL, O_DUP },
        { "ci", required_argument, NULL, O_CI },
        { "reps", required_argument, NULL, O_REPS },
        { "seed", required_argument, NULL, O_SEED },
        { "format", required_argument, NULL, 'f' },
        { "digits", required_argument, NULL, 'd' },
        { "quiet", no_argument, NULL, 'q' },
        { "list-stats", no_argument, NULL, O_LIST },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        CLI_LONG_OPTIONS,
        { NULL, 0, NULL, 0 }
    };
    cli_init("kappa");
    struct kappa_opts o;
    kappa_opts_init(&o);
    char *stats = NULL;
    int c, status = 0;
    long long v;
    while ((c = getopt_long(argc, argv, "b:R:s:m:f:d:qo:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'b': o.by = optarg; break;
        case 'r': o.raters = optarg; break;
        case 'R': o.reference = optarg; break;
        case 's':
            if (append_list(&stats, optarg) < 0) { fputs("kappa: out of memory\n", stderr); return 2; }
            break;
        case 'm': o.missing = strcmp(optarg, "drop") ? optarg : NULL; break;
        case O_UNRATED: o.unrated = strcmp(optarg, "drop") ? optarg : NULL; break;
        case O_POSITIVE: o.positive = optarg; break;
        case O_MULTI: o.multilabel = 1; break;
        case O_BOTH: o.both = optarg; break;
        case O_TAXONOMY: o.taxonomy = optarg; break;
        case O_COMPARE: o.compare = optarg; break;
        case O_PERCENT: {
            char *end;
            errno = 0;
            o.percent_of = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(o.percent_of > 0 && o.percent_of < 1e300)) {
                fprintf(stderr, "kappa: --percent-of wants the scale's maximum, such as 5\n");
                status = 2;
            }
            break;
        }
        case O_DUP:
            if (!strcmp(optarg, "error")) o.duplicates = KAPPA_DUP_ERROR;
            else if (!strcmp(optarg, "first")) o.duplicates = KAPPA_DUP_FIRST;
            else if (!strcmp(optarg, "last")) o.duplicates = KAPPA_DUP_LAST;
            else { fprintf(stderr, "kappa: --duplicates wants error, first or last\n"); status = 2; }
            break;
        case O_CI: {
            char *end;
            errno = 0;
            o.ci = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(o.ci > 0 && o.ci < 1)) {
                fprintf(stderr, "kappa: --ci wants a level between 0 and 1, such as 0.95\n");
                status = 2;
            }
            break;
        }
        case O_REPS:
            if (kappa_parse_long(optarg, 1, 100000000, &v) < 0) {
                fprintf(stderr, "kappa: --reps wants a count between 1 and 100000000\n");
                status = 2;
            } else o.reps = (long)v;
            break;
        case O_SEED:
            if (kappa_parse_long(optarg, 0, INT64_MAX, &v) < 0) {
                fprintf(stderr, "kappa: --seed wants a non-negative integer\n");
                status = 2;
            } else o.seed = (uint64_t)v;
            break;
        case 'f':
            if (!strcmp(optarg, "tsv")) o.format = KAPPA_FMT_TSV;
            else if (!strcmp(optarg, "table")) o.format = KAPPA_FMT_TABLE;
            else if (!strcmp(optarg, "json")) o.format = KAPPA_FMT_JSON;
            else { fprintf(stderr, "kappa: --format wants tsv, table or json\n"); status = 2; }
            break;
        case 'd':
            if (kappa_parse_long(optarg, 0, 17, &v) < 0) {
                fprintf(stderr, "kappa: --digits wants a number between 0 and 17\n");
                status = 2;
            } else o.digits = (int)v;
            break;
        case 'q': o.quiet = 1; break;
        case O_LIST:
            for (const char *const *p = kappa_stat_names; *p; p++) puts(*p);
            free(stats);
            return 0;
        case 'h': usage(stdout); free(stats); return 0;
        case 'V': free(stats); return cli_version();
        default:
            if (cli_opt(c, optarg, "[OPTION]... [FILE.tsv]...")) break;
            free(stats);
            return 2;
        }
    }
    o.stats = stats;
    if (status || kappa_opts_check(&o, stderr) < 0) { free(stats); return 2; }
    if (cli_output_begin() != 0) { free(stats); return 2; }

    kappa_table *t = kappa_table_new(o.by, o.multilabel, o.duplicates);
    if (!t) { fputs("kappa: out of memory\n", stderr); free(stats); return 2; }
    int bad = 0;
    if (optind == argc) {
        bad |= kappa_table_read(t, stdin, "<stdin>", stderr) < 0;
    } else {
        for (int i = optind; i < argc && !bad; i++) {
            const char *name = argv[i];
            FILE *f = strcmp(name, "-") ? fopen(name, "r") : stdin;
            if (!f) {
                fprintf(stderr, "kappa: %s: %s\n", name, strerror(errno));
                bad = 1;
                break;
            }
            bad |= kappa_table_read(t, f, strcmp(name, "-") ? name : "<stdin>", stderr) < 0;
            if (f != stdin) fclose(f);
        }
    }
    status = bad ? 2 : kappa_run(t, &o, stdout, stderr);
    kappa_table_free(t);
    free(stats);
    return cli_exit(status);
}
