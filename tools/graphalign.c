/* graphalign — DiagramEval node, edge and path alignment of two IR graphs.
 * See man/graphalign.1. */
#include "ir/cli.h"
#include "ir/ir.h"
#include "graph/align.h"
#include "ir/xalloc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void usage(FILE *f)
{
    fprintf(f, "usage: graphalign [OPTION]... REF.ir GEN.ir\n"
          "Align the graphs (vertex and edge records) of generated diagrams with reference\n"
          "diagrams and print node, edge and path precision, recall and F1 as a rating\n"
          "table (item criterion rater value note scope; scope is item, or mean on the\n"
          "mean rows). Diagrams are paired by id (two streams of one diagram each are\n"
          "paired whatever their ids). Text or JSON IR; '-' reads standard input.\n\n"
          "      --threshold=S      nodes match when their text similarity is >= S (0.8)\n"
          "      --similarity=KIND  edit (normalized edit distance, default) or tokens (Jaccard)\n"
          "      --greedy           the paper's greedy matching instead of max total similarity\n"
          "      --rater=NAME       the rater column (default graphalign)\n"
          "      --by-order         pair diagrams by position instead of id\n"
          "      --no-mean          no mean rows\n"
          "      --mean-only        only the mean rows\n"
          "      --json             JSON Lines (one object per row) instead of TSV\n"
          "%s"
          "  -h, --help             show this help and exit\n"
          "  -V, --version          show the version and exit\n\n"
          "Exit status: 0 success, 2 usage or input error (no findings status: --exit-zero\n"
          "changes nothing).\n", cli_help(25));
}

typedef struct {
    ir_diagram **d;
    size_t n;
} stream;

static int read_stream(const char *path, FILE *f, stream *s)
{
    ir_reader *r = ir_reader_new(f, path);
    ir_diagram *d;
    int rc;
    while ((rc = ir_read_diagram(r, &d)) == 1) {
        s->d = xrealloc(s->d, (s->n + 1) * sizeof *s->d);
        s->d[s->n++] = d;
    }
    if (rc < 0) fprintf(stderr, "%s\n", ir_reader_error(r));
    ir_reader_free(r);
    return rc < 0 ? -1 : 0;
}

typedef struct { const char *name; size_t idx; } nameidx;

static int cmp_name(const void *a, const void *b)
{
    const nameidx *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The graph of a diagram; -1 with a message on a bad reference. */
static int to_graph(const ir_diagram *d, const char *path, graph_g *g)
{
    memset(g, 0, sizeof *g);
    size_t nv = 0, ne = 0;
    for (size_t i = 0; i < d->nelems; i++) {
        if (d->elems[i].kind == IR_VERTEX) nv++;
        else if (d->elems[i].kind == IR_EDGE) ne++;
    }
    g->text = xcalloc(nv + 1, sizeof *g->text);
    nameidx *names = xcalloc(nv + 1, sizeof *names);
    g->from = xcalloc(ne + 1, sizeof *g->from);
    g->to = xcalloc(ne + 1, sizeof *g->to);
    g->undirected = xcalloc(ne + 1, 1);
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (e->kind != IR_VERTEX) continue;
        names[g->n].name = e->name ? e->name : "";
        names[g->n].idx = g->n;
        g->text[g->n++] = e->str ? e->str : "";
    }
    qsort(names, g->n, sizeof *names, cmp_name);
    for (size_t i = 1; i < g->n; i++)
        if (!strcmp(names[i].name, names[i - 1].name)) {
            /* find its line */
            for (size_t k = 0, seen = 0; k < d->nelems; k++) {
                const ir_elem *e = &d->elems[k];
                if (e->kind == IR_VERTEX && e->name && !strcmp(e->name, names[i].name) && seen++) {
                    fprintf(stderr, "%s:%d:1: error: vertex '%s' defined twice\n", path, e->irline,
                            names[i].name);
                    break;
                }
            }
            free(names);
            return -1;
        }
    for (size_t i = 0; i < d->nelems; i++) {
        const ir_elem *e = &d->elems[i];
        if (e->kind != IR_EDGE) continue;
        const char *ends[2] = { e->name ? e->name : "", e->str ? e->str : "" };
        size_t idx[2];
        for (int k = 0; k < 2; k++) {
            nameidx key = { ends[k], 0 };
            size_t lo = 0, hi = g->n;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (strcmp(names[mid].name, key.name) < 0) lo = mid + 1;
                else hi = mid;
            }
            if (lo >= g->n || strcmp(names[lo].name, key.name) != 0) {
                fprintf(stderr, "%s:%d:1: error: edge refers to unknown vertex '%s'\n", path,
                        e->irline, ends[k]);
                free(names);
                return -1;
            }
            idx[k] = names[lo].idx;
        }
        g->from[g->ne] = idx[0];
        g->to[g->ne] = idx[1];
        g->undirected[g->ne++] = (unsigned char)(e->undirected != 0);
    }
    free(names);
    return 0;
}

static void free_graph(graph_g *g)
{
    free(g->text);
    free(g->from);
    free(g->to);
    free(g->undirected);
}

/* A value as the table writes it: at most 4 decimals, trailing zeros
 * trimmed (1, 0.5, 0.3333); NA when undefined. */
static const char *fmt_value(char buf[64], double v)
{
    if (!isfinite(v)) return strcpy(buf, "NA");
    snprintf(buf, 64, "%.4f", v);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *e = buf + strlen(buf) - 1;
        while (e > dot && *e == '0') *e-- = 0;
        if (e == dot) *e = 0;
    }
    if (!strcmp(buf, "-0")) strcpy(buf, "0");
    return buf;
}

static void put_tsv_field(const char *s)
{
    for (; *s; s++) putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* One row: of an item (item not NULL) or a mean row over nitems items. */
typedef struct {
    const char *item;
    const char *crit;
    const char *rater;
    double value;
    const graph_prf *counts;
    size_t nitems;
} out_row;

static void row(int json, const out_row *w)
{
    char vb[64];
    const char *v = fmt_value(vb, w->value);
    if (json) {
        cJSON *o = cJSON_CreateObject();
        if (w->item) cJSON_AddStringToObject(o, "item", w->item);
        cJSON_AddStringToObject(o, "criterion", w->crit);
        cJSON_AddStringToObject(o, "rater", w->rater);
        if (strcmp(v, "NA") != 0) cJSON_AddRawToObject(o, "value", v);
        cJSON_AddStringToObject(o, "scope", w->item ? "item" : "mean");
        if (!w->item) cJSON_AddNumberToObject(o, "items", (double)w->nitems);
        cJSON_AddNumberToObject(o, "tp", (double)w->counts->tp);
        cJSON_AddNumberToObject(o, "fp", (double)w->counts->fp);
        cJSON_AddNumberToObject(o, "fn", (double)w->counts->fn);
        char *txt = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        if (txt) {
            puts(txt);
            free(txt);
        }
        return;
    }
    put_tsv_field(w->item ? w->item : "NA");
    putchar('\t');
    fputs(w->crit, stdout);
    putchar('\t');
    put_tsv_field(w->rater);
    putchar('\t');
    fputs(v, stdout);
    putchar('\t');
    if (!w->item) printf("mean over %zu items; ", w->nitems);
    printf("tp=%zu fp=%zu fn=%zu\t%s\n", w->counts->tp, w->counts->fp, w->counts->fn,
           w->item ? "item" : "mean");
}

static void prf_rows(int json, const char *item, const char *what, const char *rater,
                     const graph_prf *m)
{
    static const char *const part[3] = { "precision", "recall", "f1" };
    const double v[3] = { m->p, m->r, m->f1 };
    char crit[64];
    for (int q = 0; q < 3; q++) {
        snprintf(crit, sizeof crit, "%s-%s", what, part[q]);
        out_row w = { item, crit, rater, v[q], m, 0 };
        row(json, &w);
    }
}

typedef struct {
    graph_align_opts ga;
    const char *rater;
    int by_order, no_mean, mean_only, json;
} options;

/* Reads the options; -1 to go on, else the exit status (--help, --version,
 * a wrong option or file count). */
static int parse_options(int argc, char **argv, options *o)
{
    enum { O_BYORDER = 256, O_NOMEAN, O_MEANONLY };
    static const struct option longopts[] = {
        { "threshold", required_argument, NULL, 't' },
        { "similarity", required_argument, NULL, 's' },
        { "greedy", no_argument, NULL, 'g' },
        { "rater", required_argument, NULL, 'r' },
        { "by-order", no_argument, NULL, O_BYORDER },
        { "no-mean", no_argument, NULL, O_NOMEAN },
        { "mean-only", no_argument, NULL, O_MEANONLY },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        CLI_LONG_OPTIONS,
        { NULL, 0, NULL, 0 }
    };
    cli_init("graphalign");
    memset(o, 0, sizeof *o);
    graph_align_opts_init(&o->ga);
    o->rater = "graphalign";
    int c;
    while ((c = getopt_long(argc, argv, "o:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (!ir_parse_num(optarg, &o->ga.threshold) || o->ga.threshold < 0 || o->ga.threshold > 1) {
                fprintf(stderr, "graphalign: --threshold: '%s' is not a number in [0, 1]\n", optarg);
                return 2;
            }
            break;
        case 's':
            if (!strcmp(optarg, "edit")) o->ga.sim = GRAPH_SIM_EDIT;
            else if (!strcmp(optarg, "tokens")) o->ga.sim = GRAPH_SIM_TOKENS;
            else {
                fprintf(stderr, "graphalign: --similarity: '%s' is not edit or tokens\n", optarg);
                return 2;
            }
            break;
        case 'g': o->ga.greedy = 1; break;
        case 'r': o->rater = optarg; break;
        case O_BYORDER: o->by_order = 1; break;
        case O_NOMEAN: o->no_mean = 1; break;
        case O_MEANONLY: o->mean_only = 1; break;
        case 'j': o->json = 1; break;
        case 'h': usage(stdout); return 0;
        case 'V': return cli_version();
        default:
            if (!cli_opt(c, optarg, "[OPTION]... REF.ir GEN.ir")) return 2;
            break;
        }
    }
    if (argc - optind != 2) {
        fputs("graphalign: need two files: REF.ir GEN.ir\n", stderr);
        return cli_usage_error("[OPTION]... REF.ir GEN.ir");
    }
    if (!strcmp(argv[optind], "-") && !strcmp(argv[optind + 1], "-")) {
        fputs("graphalign: only one of the two files can be standard input\n", stderr);
        return 2;
    }
    return -1;
}

/* Reads the reference (s[0]) and generated (s[1]) streams; 0, or 2 after
 * an error. */
static int read_streams(char *const paths[2], stream s[2])
{
    for (int k = 0; k < 2; k++) {
        const char *path = paths[k];
        int is_stdin = !strcmp(path, "-");
        FILE *f = is_stdin ? stdin : fopen(path, "r");
        if (!f) {
            fprintf(stderr, "graphalign: %s: %s\n", path, strerror(errno));
            return 2;
        }
        int bad = read_stream(is_stdin ? "<stdin>" : path, f, &s[k]) < 0;
        if (!is_stdin) fclose(f);
        if (bad) return 2;
    }
    return 0;
}

/* Diagrams are paired by id: an id twice in one stream is an input error
 * (which of the two would be paired?). 0, or 2 after the message. */
static int unique_ids(const char *path, const stream *s)
{
    nameidx *ix = xcalloc(s->n + 1, sizeof *ix);
    for (size_t i = 0; i < s->n; i++) { ix[i].name = s->d[i]->id; ix[i].idx = i; }
    qsort(ix, s->n, sizeof *ix, cmp_name);
    int rc = 0;
    for (size_t i = 1; i < s->n && !rc; i++)
        if (!strcmp(ix[i].name, ix[i - 1].name)) {
            fprintf(stderr,
                    "%s:%d:1: error: diagram id '%s' appears twice (first at line %d): diagrams "
                    "are paired by id (--by-order pairs them by position)\n",
                    !strcmp(path, "-") ? "<stdin>" : path, s->d[ix[i].idx]->irline, ix[i].name,
                    s->d[ix[i - 1].idx]->irline);
            rc = 2;
        }
    free(ix);
    return rc;
}

/* The generated diagram of each reference diagram (gi[i], -1: none): the
 * same id, or by order (--by-order, or one diagram each); warns of the
 * diagrams left without a partner. */
static long *pair_diagrams(const stream s[2], int by_order, const char *gpath)
{
    size_t npairs = s[0].n;
    long *gi = xcalloc(npairs + 1, sizeof *gi);
    char *used = xcalloc(s[1].n + 1, 1);
    for (size_t i = 0; i < npairs; i++) {
        gi[i] = -1;
        if (by_order || (s[0].n == 1 && s[1].n == 1)) {
            if (i < s[1].n) gi[i] = (long)i;
        } else {
            for (size_t j = 0; j < s[1].n; j++)
                if (!used[j] && !strcmp(s[0].d[i]->id, s[1].d[j]->id)) { gi[i] = (long)j; break; }
        }
        if (gi[i] >= 0) used[gi[i]] = 1;
        else fprintf(stderr, "graphalign: %s: warning: no generated diagram '%s' (scored as empty)\n",
                     gpath, s[0].d[i]->id);
    }
    for (size_t j = 0; j < s[1].n; j++)
        if (!used[j])
            fprintf(stderr, "graphalign: %s: warning: diagram '%s' has no reference (skipped)\n",
                    gpath, s[1].d[j]->id);
    free(used);
    return gi;
}

/* The sums behind the mean rows. */
typedef struct {
    graph_prf sum[3];    /* node, edge, path counts */
    double msum[9];      /* their precision, recall, f1 */
    size_t nitems;
} totals;

/* Aligns reference diagram i with its generated one (none: an empty graph)
 * and prints its rows; 0, or 2 after an error. */
static int align_pair(const options *o, const stream s[2], const long *gi, size_t i,
                      const char *rpath, const char *gpath, totals *tot)
{
    graph_g rg, gg;
    if (to_graph(s[0].d[i], rpath, &rg) < 0) { free_graph(&rg); return 2; }
    ir_diagram *gd = gi[i] >= 0 ? s[1].d[gi[i]] : NULL;
    if (gd) {
        if (to_graph(gd, gpath, &gg) < 0) { free_graph(&rg); free_graph(&gg); return 2; }
    } else {
        memset(&gg, 0, sizeof gg);
    }
    graph_align_result res;
    graph_align(&rg, &gg, &o->ga, &res);
    const graph_prf *m[3] = { &res.node, &res.edge, &res.path };
    static const char *const what[3] = { "node", "edge", "path" };
    for (int k = 0; k < 3; k++) {
        if (!o->mean_only) prf_rows(o->json, s[0].d[i]->id, what[k], o->rater, m[k]);
        tot->msum[3 * k] += m[k]->p;
        tot->msum[3 * k + 1] += m[k]->r;
        tot->msum[3 * k + 2] += m[k]->f1;
        tot->sum[k].tp += m[k]->tp;
        tot->sum[k].fp += m[k]->fp;
        tot->sum[k].fn += m[k]->fn;
    }
    tot->nitems++;
    graph_align_result_free(&res);
    free_graph(&rg);
    free_graph(&gg);
    return 0;
}

/* The mean rows over every item (scope mean, no item). */
static void mean_rows(int json, const totals *tot, const char *rater)
{
    static const char *const what[3] = { "node", "edge", "path" };
    static const char *const part[3] = { "precision", "recall", "f1" };
    char crit[64];
    for (int k = 0; k < 3; k++)
        for (int q = 0; q < 3; q++) {
            snprintf(crit, sizeof crit, "%s-%s", what[k], part[q]);
            out_row w = { NULL, crit, rater, tot->msum[3 * k + q] / (double)tot->nitems,
                          &tot->sum[k], tot->nitems };
            row(json, &w);
        }
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) return rc;
    if (cli_output_begin() != 0) return 2;
    stream s[2] = { { NULL, 0 }, { NULL, 0 } };
    rc = read_streams(argv + optind, s);
    const char *rpath = argv[optind], *gpath = argv[optind + 1];
    if (!rc && !o.by_order && !(s[0].n == 1 && s[1].n == 1))
        rc = unique_ids(rpath, &s[0]) ? 2 : unique_ids(gpath, &s[1]);
    long *gi = NULL;
    totals tot;
    memset(&tot, 0, sizeof tot);
    if (!rc) {
        gi = pair_diagrams(s, o.by_order, gpath);
        if (!o.json) puts("item\tcriterion\trater\tvalue\tnote\tscope");
    }
    for (size_t i = 0; !rc && i < s[0].n; i++) rc = align_pair(&o, s, gi, i, rpath, gpath, &tot);
    if (!rc && !o.no_mean && tot.nitems) mean_rows(o.json, &tot, o.rater);
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < s[k].n; i++) ir_diagram_free(s[k].d[i]);
        free(s[k].d);
    }
    free(gi);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "graphalign: write error: %s\n", strerror(errno));
        return cli_exit(2);
    }
    return cli_exit(rc);
}
