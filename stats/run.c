/* stats/run.c — grouping, pairing, statistics, bootstrap and output of kappa(1). */
#include "stats/run.h"
#include "stats/measures.h"
#include "stats/table.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the statistics ------------------------------------------------------ */

enum kind { PAIR, MULTI, LABEL, SINGLE };
enum sid {
    S_AGREEMENT, S_COHEN, S_COHEN_LIN, S_COHEN_QUAD, S_SCOTT,
    S_SPEARMAN, S_KENDALL, S_PEARSON, S_MAE, S_RMSE,
    S_ACCURACY, S_PRECISION, S_RECALL, S_F1, S_FNR, S_FPR, S_MCC, S_MACRO_F1, S_CONFUSION,
    S_COVERAGE,
    S_FLEISS, S_ALPHA_NOM, S_ALPHA_ORD, S_ALPHA_INT, S_ALPHA_RATIO,
    S_L_EXAMPLE_F1, S_L_MICRO_F1, S_L_MACRO_F1, S_L_RECALL, S_L_RECALL_POOLED,
    S_SET_PRECISION, S_SET_RECALL, S_SET_F1, S_MEAN
};

struct statdef {
    const char *name;
    int id, kind;
    int ordered;   /* needs numbers */
    int scalar;    /* one value per row, so it gets a bootstrap interval */
};

static const struct statdef STATS[] = {
    { "agreement", S_AGREEMENT, PAIR, 0, 1 },
    { "cohen", S_COHEN, PAIR, 0, 1 },
    { "cohen-linear", S_COHEN_LIN, PAIR, 1, 1 },
    { "cohen-quadratic", S_COHEN_QUAD, PAIR, 1, 1 },
    { "scott", S_SCOTT, PAIR, 0, 1 },
    { "spearman", S_SPEARMAN, PAIR, 1, 1 },
    { "kendall", S_KENDALL, PAIR, 1, 1 },
    { "pearson", S_PEARSON, PAIR, 1, 1 },
    { "mae", S_MAE, PAIR, 1, 1 },
    { "rmse", S_RMSE, PAIR, 1, 1 },
    { "accuracy", S_ACCURACY, PAIR, 0, 1 },
    { "precision", S_PRECISION, PAIR, 0, 1 },
    { "recall", S_RECALL, PAIR, 0, 1 },
    { "f1", S_F1, PAIR, 0, 1 },
    { "fnr", S_FNR, PAIR, 0, 1 },
    { "fpr", S_FPR, PAIR, 0, 1 },
    { "mcc", S_MCC, PAIR, 0, 1 },
    { "macro-f1", S_MACRO_F1, PAIR, 0, 1 },
    { "confusion", S_CONFUSION, PAIR, 0, 0 },
    { "coverage", S_COVERAGE, PAIR, 0, 0 },
    { "fleiss", S_FLEISS, MULTI, 0, 1 },
    { "alpha-nominal", S_ALPHA_NOM, MULTI, 0, 1 },
    { "alpha-ordinal", S_ALPHA_ORD, MULTI, 1, 1 },
    { "alpha-interval", S_ALPHA_INT, MULTI, 1, 1 },
    { "alpha-ratio", S_ALPHA_RATIO, MULTI, 1, 1 },
    { "label-example-f1", S_L_EXAMPLE_F1, LABEL, 0, 1 },
    { "label-micro-f1", S_L_MICRO_F1, LABEL, 0, 1 },
    { "label-macro-f1", S_L_MACRO_F1, LABEL, 0, 1 },
    { "label-recall", S_L_RECALL, LABEL, 0, 0 },
    { "label-recall-pooled", S_L_RECALL_POOLED, LABEL, 0, 0 },
    { "set-precision", S_SET_PRECISION, LABEL, 0, 1 },
    { "set-recall", S_SET_RECALL, LABEL, 0, 1 },
    { "set-f1", S_SET_F1, LABEL, 0, 1 },
    { "mean", S_MEAN, SINGLE, 1, 1 },
};
#define NSTATS (sizeof STATS / sizeof STATS[0])

static const struct { const char *alias, *name; } ALIASES[] = {
    { "kappa", "cohen" }, { "percent", "agreement" }, { "alpha", "alpha-nominal" },
    { "rho", "spearman" }, { "tau", "kendall" }, { "tau-b", "kendall" }, { "r", "pearson" },
    { "pi", "scott" }, { "example-f1", "label-example-f1" }, { "micro-f1", "label-micro-f1" },
};

const char *const kappa_stat_names[] = {
    "agreement", "cohen", "cohen-linear", "cohen-quadratic", "scott",
    "spearman", "kendall", "pearson", "mae", "rmse",
    "accuracy", "precision", "recall", "f1", "fnr", "fpr", "mcc", "macro-f1", "confusion",
    "coverage", "fleiss", "alpha-nominal", "alpha-ordinal", "alpha-interval", "alpha-ratio",
    "label-example-f1", "label-micro-f1", "label-macro-f1", "label-recall", "label-recall-pooled",
    "set-precision", "set-recall", "set-f1", "mean", NULL
};

static const struct statdef *find_stat(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof ALIASES / sizeof ALIASES[0]; i++)
        if (strlen(ALIASES[i].alias) == len && memcmp(ALIASES[i].alias, s, len) == 0) {
            s = ALIASES[i].name;
            len = strlen(s);
            break;
        }
    for (size_t i = 0; i < NSTATS; i++)
        if (strlen(STATS[i].name) == len && memcmp(STATS[i].name, s, len) == 0) return &STATS[i];
    return NULL;
}

int kappa_parse_long(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

void kappa_opts_init(struct kappa_opts *o)
{
    memset(o, 0, sizeof *o);
    o->positive = "yes";
    o->reps = 1000;
    o->seed = 1;
    o->digits = 6;
    o->format = KAPPA_FMT_TSV;
    o->duplicates = KAPPA_DUP_ERROR;
}

/* Parses o->stats into defs; returns the count or -1. */
static int parse_stats(const char *list, const struct statdef **defs, int max, FILE *err)
{
    int n = 0;
    if (!list) return 0;
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len) {
            const struct statdef *d = find_stat(p, len);
            if (!d) {
                if (err) fprintf(err, "kappa: unknown statistic '%.*s' (kappa --list-stats "
                                 "names them)\n", (int)len, p);
                return -1;
            }
            int dup = 0;
            for (int i = 0; i < n; i++) dup |= defs[i] == d;
            if (!dup && n < max) defs[n++] = d;
        }
        if (!e) break;
        p = e + 1;
    }
    return n;
}

int kappa_opts_check(struct kappa_opts *o, FILE *err)
{
    const struct statdef *defs[NSTATS];
    int n = parse_stats(o->stats, defs, (int)NSTATS, err);
    if (n < 0) return -1;
    if (o->stats && n == 0) { fprintf(err, "kappa: --stat names no statistic\n"); return -1; }
    int nlabel = 0;
    for (int i = 0; i < n; i++) nlabel += defs[i]->kind == LABEL;
    if (nlabel && nlabel != n) {
        fprintf(err, "kappa: label and set statistics read every row of an item and rater as "
                "one of its labels; they cannot be mixed with single-value statistics in one "
                "run\n");
        return -1;
    }
    if (o->multilabel && n > nlabel) {
        for (int i = 0; i < n; i++)
            if (defs[i]->kind != LABEL) {
                fprintf(err, "kappa: --multi-label reads every row of an item and rater as "
                        "one of its labels; single-value statistics such as %s cannot use it\n",
                        defs[i]->name);
                return -1;
            }
    }
    if (nlabel) o->multilabel = 1;
    for (int i = 0; i < n; i++)
        if (defs[i]->id == S_L_RECALL_POOLED && !o->reference) {
            fprintf(err, "kappa: label-recall-pooled pools every model against one reference: "
                    "name it with --reference\n");
            return -1;
        }
    if (o->both) {
        const char *eq = strchr(o->both, '=');
        if (!eq || eq == o->both || !eq[1]) {
            fprintf(err, "kappa: --both wants CRITERION=VALUE, such as is-correct=no\n");
            return -1;
        }
    }
    if (o->compare) {
        const char *comma = strchr(o->compare, ',');
        if (!comma || comma == o->compare || !comma[1] || strchr(comma + 1, ',')) {
            fprintf(err, "kappa: --compare wants two raters A,B\n");
            return -1;
        }
        if (!o->reference) {
            fprintf(err, "kappa: --compare compares two raters against the same gold: name it "
                    "with --reference\n");
            return -1;
        }
        if (o->multilabel) {
            fprintf(err, "kappa: --compare works on single-value statistics (agreement, cohen, "
                    "accuracy, mcc, pearson ...), not on label statistics\n");
            return -1;
        }
    }
    if ((o->both || o->taxonomy) && !o->multilabel) {
        fprintf(err, "kappa: --both and --taxonomy shape the label sets: they go with label "
                "statistics (--multi-label)\n");
        return -1;
    }
    if (o->ci != 0 && !(o->ci > 0 && o->ci < 1)) {
        fprintf(err, "kappa: --ci wants a level between 0 and 1, such as 0.95\n");
        return -1;
    }
    if (o->reps < 1 || o->reps > 100000000) {
        fprintf(err, "kappa: --reps wants a count between 1 and 100000000\n");
        return -1;
    }
    if (o->digits < 0 || o->digits > 17) {
        fprintf(err, "kappa: --digits wants a number between 0 and 17\n");
        return -1;
    }
    if (o->by) {
        const char *p = o->by;
        for (;;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (len == 0 || (len == 5 && (!memcmp(p, "rater", 5) || !memcmp(p, "value", 5)))) {
                fprintf(err, "kappa: --by '%s': group by columns other than rater and value\n",
                        o->by);
                return -1;
            }
            if (!e) break;
            p = e + 1;
        }
    }
    if (o->positive && !*o->positive) {
        fprintf(err, "kappa: --positive wants a label\n");
        return -1;
    }
    return 0;
}

/* ---- output rows ----------------------------------------------------------- */

struct row {
    int32_t group;
    int statpos, pairpos, sub;   /* sort keys */
    char *stat;
    int32_t ra, rb;              /* -1: all selected raters */
    double value;
    size_t n;
    double lo, hi;
    int has_ci;
    double p;                    /* p-value, or NAN */
};

struct run {
    kappa_table *t;
    const struct kappa_opts *o;
    FILE *err;
    struct row *rows;
    size_t nrows, rcap;
    int status;
    /* per group */
    int32_t g;
    int32_t *code_of;      /* value id -> code; -1 NA; -2 not in group */
    int k;
    double *levels;
    int numeric;
    int32_t first_label;   /* a non-numeric value of the group, for errors */
    int32_t fill_missing, fill_unrated;   /* value ids or -1 */
    int32_t none_value;    /* value id of "none" or -1 */
    int pos;               /* code of the positive class, or -1 */
    struct cov { int32_t ra, rb; size_t only_a, only_b; int ngroups; } *cov;
    size_t ncov, covcap;
    /* --both CRITERION=VALUE: the unit of each item's CRITERION (-1: none),
     * how a unit is told to be one (its criterion id, or its group when the
     * criterion is the --by column), and VALUE's id */
    int32_t *both_unit, both_crit, both_group, both_value;
    /* --taxonomy: per value id, 1 + the index of its domain when it is a
     * label DOMAIN::LABEL of the taxonomy, else 0 */
    unsigned char *tax_dom;
    /* what shaped the label sets of the current pair */
    size_t masked_g, masked_p, both_out;
    /* label-recall-pooled: per pair and value id, the gold labels found and missed */
    double *pool_tp, *pool_fn;
    int npool;
    /* per group, when --missing / --unrated fill in verdicts: bit
     * (criterion id + 1) * raters + rater is set when the rater rated some
     * unit of that criterion in the group; --missing and --unrated fill in
     * only criteria a rater rated somewhere (a judge that never rates a
     * criterion is left out there, not counted as na) */
    unsigned char *crit_rated;
    /* per group and rater: 1 when it rated some unit of the group */
    unsigned char *rated_here;
    int32_t cmp_a, cmp_b;  /* --compare A,B: rater ids, or -1 */
    /* --taxonomy: per criterion id, 1 when some rating of it is a label of
     * the taxonomy (error-type), 0 for the others (error-count, is-correct),
     * whose units are no label sets (--by domain keeps them in one group) */
    unsigned char *crit_tax;
};

static int add_row(struct run *r, int statpos, int pairpos, int sub, const char *stat,
                   int32_t ra, int32_t rb, double v, size_t n, int has_ci, double lo, double hi)
{
    if (r->nrows == r->rcap) {
        size_t nc = r->rcap ? r->rcap * 2 : 64;
        struct row *p = realloc(r->rows, nc * sizeof *p);
        if (!p) return -1;
        r->rows = p;
        r->rcap = nc;
    }
    struct row *w = &r->rows[r->nrows];
    w->stat = strdup(stat);
    if (!w->stat) return -1;
    w->group = r->g; w->statpos = statpos; w->pairpos = pairpos; w->sub = sub;
    /* an undefined value (nan, or inf from an overflow) is printed as NA,
     * as the warning says, and has no interval */
    if (!isfinite(v)) v = lo = hi = NAN;
    w->ra = ra; w->rb = rb; w->value = v; w->n = n;
    w->has_ci = has_ci; w->lo = lo; w->hi = hi;
    w->p = NAN;
    r->nrows++;
    return 0;
}

static void warnf(struct run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(r->err, "kappa: warning: ");
    vfprintf(r->err, fmt, ap);
    fputc('\n', r->err);
    va_end(ap);
}

static const char *gname(const struct run *r) { return kappa_strtab_str(&r->t->groups, r->g); }
static const char *rname(const struct run *r, int32_t id)
{
    return id == -2 ? "NA" : id < 0 ? "*" : kappa_strtab_str(&r->t->raters, id);
}

/* ---- seeds ----------------------------------------------------------------- */

static uint64_t mix_str(uint64_t h, const char *s)
{
    for (; *s; s++) { h ^= (unsigned char)*s; h *= 0x100000001b3ULL; }
    h ^= 0xff; h *= 0x100000001b3ULL;
    return h;
}

static uint64_t row_seed(const struct run *r, const char *stat, int32_t ra, int32_t rb)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    h = mix_str(h, gname(r));
    h = mix_str(h, stat);
    h = mix_str(h, rname(r, ra));
    h = mix_str(h, rname(r, rb));
    uint64_t s = r->o->seed ^ h;
    kappa_rand_next(&s);
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentile interval of the finite replicate values. */
static void percentile_ci(double *rep, size_t nrep, double level, double *lo, double *hi)
{
    size_t w = 0;
    for (size_t i = 0; i < nrep; i++)
        if (isfinite(rep[i])) rep[w++] = rep[i];
    if (w == 0) { *lo = *hi = NAN; return; }
    qsort(rep, w, sizeof *rep, cmp_double);
    double a = (1 - level) / 2;
    *lo = kappa_quantile(rep, w, a);
    *hi = kappa_quantile(rep, w, 1 - a);
}

/* ---- per-group codes ----------------------------------------------------- */

static int is_na_word(const char *s) { return !strcmp(s, "na") || !strcmp(s, "NA"); }

static struct run *sort_ctx;
static int cmp_vid(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    const kappa_table *t = sort_ctx->t;
    if (sort_ctx->numeric) {
        double dx = t->vnum[x], dy = t->vnum[y];
        if (dx != dy) return dx < dy ? -1 : 1;
    } else {
        int c = strcmp(kappa_strtab_str(&t->values, x), kappa_strtab_str(&t->values, y));
        if (c) return c;
    }
    return (x > y) - (x < y);
}

/* Unit i of a group: units[i], or i when the group has every unit (units NULL). */
#define UNIT(units, i) ((units) ? (units)[i] : (int32_t)(i))

static int32_t cell_at(const struct run *r, int32_t u, int32_t rater)
{
    return kappa_cell(r->t, (size_t)u * (size_t)r->t->raters.n + (size_t)rater);
}

/* The value id of (unit, rater) after the --missing / --unrated rules; -1 if none. */
static int32_t filled(const struct run *r, int32_t u, int32_t rater)
{
    int32_t v = cell_at(r, u, rater);
    if (v >= 0 || !r->t->seen) return v;
    if (r->crit_rated) {
        size_t k = (size_t)(kappa_unit_crit(r->t, u) + 1) * (size_t)r->t->raters.n + (size_t)rater;
        if (!((r->crit_rated[k / 8] >> (k % 8)) & 1)) return -1;
    }
    size_t b = (size_t)kappa_unit_item(r->t, u) * (size_t)r->t->raters.n + (size_t)rater;
    int seen = (r->t->seen[b / 8] >> (b % 8)) & 1;
    return seen ? r->fill_missing : r->fill_unrated;
}

static int build_codes(struct run *r, const int32_t *units, size_t nu, const int32_t *sel, int nsel)
{
    kappa_table *t = r->t;
    int32_t *vids = NULL;
    size_t nv = 0, cap = 0;
    int32_t *code_of = r->code_of;
    for (int32_t i = 0; i < t->values.n; i++) code_of[i] = -2;
    /* the values in the cells (in any order: they are sorted below), then
     * those --missing and --unrated fill in */
    size_t R = (size_t)t->raters.n;
    if (t->cw == 1) {
        unsigned char seen[256] = { 0 };
        const unsigned char *cell = t->cell;
        if (!units && (size_t)nsel == R) {
            /* by blocks, until every value has been seen */
            size_t nv = t->values.n < 255 ? (size_t)t->values.n : 255, found = 0;
            for (size_t i = 0; i < nu * R && found < nv;) {
                size_t e = nu * R - i < 4096 ? nu * R : i + 4096;
                for (; i < e; i++) seen[cell[i]] = 1;
                found = 0;
                for (size_t v = 0; v < nv; v++) found += seen[v];
            }
        } else {
            for (size_t i = 0; i < nu; i++)
                for (int s = 0; s < nsel; s++)
                    seen[cell[(size_t)UNIT(units, i) * R + (size_t)sel[s]]] = 1;
        }
        for (int32_t v = 0; v < 255 && v < t->values.n; v++)
            if (seen[v]) code_of[v] = -1;   /* marked; collected below */
    } else {
        for (size_t i = 0; i < nu; i++)
            for (int s = 0; s < nsel; s++) {
                int32_t v = cell_at(r, UNIT(units, i), sel[s]);
                if (v >= 0) code_of[v] = -1;
            }
    }
    int32_t extra[2] = { r->fill_missing, r->fill_unrated };
    for (int32_t v = 0; v < t->values.n + 2; v++) {
        int32_t x = v < t->values.n ? v : extra[v - t->values.n];
        if (x < 0 || (v < t->values.n ? code_of[x] != -1 : code_of[x] != -2)) continue;
        code_of[x] = -3;
        if (nv == cap) {
            cap = cap ? cap * 2 : 16;
            int32_t *p = realloc(vids, cap * sizeof *p);
            if (!p) { free(vids); return -1; }
            vids = p;
        }
        vids[nv++] = x;
    }
    int nnum = 0, nlabel = 0;
    r->first_label = -1;
    for (size_t i = 0; i < nv; i++) {
        if (t->visnum[vids[i]]) nnum++;
        else if (!is_na_word(kappa_strtab_str(&t->values, vids[i]))) {
            nlabel++;
            if (r->first_label < 0 || (t->vloc[vids[i]].file >= 0 &&
                (t->vloc[r->first_label].file < 0 ||
                 t->vloc[vids[i]].file < t->vloc[r->first_label].file ||
                 (t->vloc[vids[i]].file == t->vloc[r->first_label].file &&
                  t->vloc[vids[i]].line < t->vloc[r->first_label].line))))
                r->first_label = vids[i];
        }
    }
    r->numeric = nnum > 0 && nlabel == 0;
    size_t w = 0;
    if (r->numeric) {
        for (size_t i = 0; i < nv; i++) {
            if (t->visnum[vids[i]]) vids[w++] = vids[i];
            else r->code_of[vids[i]] = -1;   /* NA */
        }
        nv = w;
    }
    sort_ctx = r;
    if (nv) qsort(vids, nv, sizeof *vids, cmp_vid);
    free(r->levels);
    r->levels = malloc((nv ? nv : 1) * sizeof *r->levels);
    if (!r->levels) { free(vids); return -1; }
    int k = 0;
    for (size_t i = 0; i < nv; i++) {
        if (r->numeric && i > 0 && t->vnum[vids[i]] == t->vnum[vids[i - 1]]) {
            r->code_of[vids[i]] = k - 1;
            continue;
        }
        r->levels[k] = r->numeric ? t->vnum[vids[i]] : NAN;
        r->code_of[vids[i]] = k++;
    }
    r->k = k;
    r->pos = -1;
    int32_t pv = kappa_strtab_find(&t->values, r->o->positive, strlen(r->o->positive));
    if (pv >= 0 && r->code_of[pv] >= 0) r->pos = r->code_of[pv];
    free(vids);
    return 0;
}

static int code(const struct run *r, int32_t v) { return v < 0 ? -1 : r->code_of[v]; }

/* ---- pairwise statistics --------------------------------------------------- */

/* Recode a and b to the codes present in them (weighted kappa weights use the
 * categories the two raters used, as Cohen 1968, irr and scikit-learn do). */
static int compact(const int *a, const int *b, size_t n, int k, int *ca, int *cb)
{
    int *map = calloc((size_t)k, sizeof *map);
    if (!map) return -1;
    for (size_t i = 0; i < n; i++) map[a[i]] = map[b[i]] = 1;
    int m = 0;
    for (int c = 0; c < k; c++) map[c] = map[c] ? m++ : -1;
    for (size_t i = 0; i < n; i++) { ca[i] = map[a[i]]; cb[i] = map[b[i]]; }
    free(map);
    return m;
}

static double pair_value(const struct run *r, int id, const int *a, const int *b, size_t n)
{
    struct kappa_confusion c;
    double v = NAN;
    switch (id) {
    case S_AGREEMENT: return kappa_agreement(a, b, n);
    case S_COHEN: return kappa_cohen(a, b, n, r->k, KAPPA_W_NONE);
    case S_SCOTT: return kappa_scott(a, b, n, r->k);
    case S_COHEN_LIN: case S_COHEN_QUAD: {
        int *ca = malloc((n ? n : 1) * sizeof *ca), *cb = malloc((n ? n : 1) * sizeof *cb);
        if (ca && cb) {
            int m = compact(a, b, n, r->k, ca, cb);
            if (m > 0)
                v = kappa_cohen(ca, cb, n, m, id == S_COHEN_LIN ? KAPPA_W_LINEAR : KAPPA_W_QUADRATIC);
        }
        free(ca); free(cb);
        return v;
    }
    case S_SPEARMAN: return kappa_spearman(a, b, n, r->k, r->k);
    case S_KENDALL: return kappa_kendall(a, b, n, r->k, r->k);
    case S_PEARSON: case S_MAE: case S_RMSE: {
        double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
        if (x && y) {
            for (size_t i = 0; i < n; i++) { x[i] = r->levels[a[i]]; y[i] = r->levels[b[i]]; }
            v = id == S_PEARSON ? kappa_pearson(x, y, n)
              : id == S_MAE ? kappa_mae(x, y, n) : kappa_rmse(x, y, n);
        }
        free(x); free(y);
        return v;
    }
    default: break;
    }
    kappa_confusion_count(a, b, n, r->pos, &c);
    switch (id) {
    case S_ACCURACY: return kappa_bin_accuracy(&c);
    case S_PRECISION: return kappa_bin_precision(&c);
    case S_RECALL: return kappa_bin_recall(&c);
    case S_F1: return kappa_bin_f1(&c);
    case S_FNR: return kappa_bin_fnr(&c);
    case S_FPR: return kappa_bin_fpr(&c);
    case S_MCC: return kappa_bin_mcc(&c);
    case S_MACRO_F1: return kappa_bin_macro_f1(&c);
    default: return NAN;
    }
}

static void undefined_warning(struct run *r, const char *stat, int32_t ra, int32_t rb, size_t n,
                              double v)
{
    if (isinf(v)) {
        if (ra < 0)
            warnf(r, "group '%s': %s is too large to represent (overflow); printed as NA",
                  gname(r), stat);
        else
            warnf(r, "group '%s', %s vs %s: %s is too large to represent (overflow); printed "
                  "as NA", gname(r), rname(r, ra), rname(r, rb), stat);
        return;
    }
    if (ra < 0)
        warnf(r, "group '%s': %s is undefined here (n = %zu: too few units, a single "
              "category or no variation); printed as NA", gname(r), stat, n);
    else
        warnf(r, "group '%s', %s vs %s: %s is undefined here (n = %zu: too few units, a "
              "single category or no variation); printed as NA",
              gname(r), rname(r, ra), rname(r, rb), stat, n);
}

static int do_pair(struct run *r, const struct statdef *sd, int statpos, int pairpos,
                   int32_t ra, int32_t rb, const int *a, const int *b, size_t n,
                   size_t only_a, size_t only_b)
{
    if (sd->id == S_COVERAGE) {
        if (add_row(r, statpos, pairpos, 0, "rated-both", ra, rb, (double)n, n, 0, 0, 0) ||
            add_row(r, statpos, pairpos, 1, "rated-only-a", ra, rb, (double)only_a, only_a, 0, 0, 0) ||
            add_row(r, statpos, pairpos, 2, "rated-only-b", ra, rb, (double)only_b, only_b, 0, 0, 0))
            return -1;
        return 0;
    }
    if (sd->id == S_CONFUSION) {
        struct kappa_confusion c;
        kappa_confusion_count(a, b, n, r->pos, &c);
        const char *nm[] = { "tp", "fp", "fn", "tn" };
        uint64_t val[] = { c.tp, c.fp, c.fn, c.tn };
        for (int i = 0; i < 4; i++)
            if (add_row(r, statpos, pairpos, i, nm[i], ra, rb, (double)val[i], n, 0, 0, 0))
                return -1;
        return 0;
    }
    double v = pair_value(r, sd->id, a, b, n);
    double lo = NAN, hi = NAN;
    if (!isfinite(v)) undefined_warning(r, sd->name, ra, rb, n, v);
    if (r->o->ci > 0 && n > 0) {
        uint64_t st = row_seed(r, sd->name, ra, rb);
        double *rep = malloc((size_t)r->o->reps * sizeof *rep);
        int *ba = malloc(n * sizeof *ba), *bb = malloc(n * sizeof *bb);
        if (!rep || !ba || !bb) { free(rep); free(ba); free(bb); return -1; }
        for (long i = 0; i < r->o->reps; i++) {
            for (size_t j = 0; j < n; j++) {
                size_t u = (size_t)kappa_rand_below(&st, n);
                ba[j] = a[u]; bb[j] = b[u];
            }
            rep[i] = pair_value(r, sd->id, ba, bb, n);
        }
        percentile_ci(rep, (size_t)r->o->reps, r->o->ci, &lo, &hi);
        free(rep); free(ba); free(bb);
    }
    if (add_row(r, statpos, pairpos, 0, sd->name, ra, rb, v, n, r->o->ci > 0, lo, hi) < 0) return -1;
    if (sd->id == S_PEARSON || sd->id == S_SPEARMAN) r->rows[r->nrows - 1].p = kappa_corr_pvalue(v, n);
    return 0;
}

/* ---- multi-rater statistics ------------------------------------------------ */

static double multi_value(const struct run *r, int id, const int *v, const size_t *off,
                          size_t nu, int m, size_t *nused)
{
    if (id == S_FLEISS) {
        int k = r->k > 0 ? r->k : 1;
        size_t full = 0;
        for (size_t u = 0; u < nu; u++) full += off[u + 1] - off[u] == (size_t)m;
        *nused = full;
        int *cnt = calloc((full ? full : 1) * (size_t)k, sizeof *cnt);
        if (!cnt) return NAN;
        size_t w = 0;
        for (size_t u = 0; u < nu; u++) {
            if (off[u + 1] - off[u] != (size_t)m) continue;
            for (size_t i = off[u]; i < off[u + 1]; i++) cnt[w * (size_t)k + (size_t)v[i]]++;
            w++;
        }
        double x = kappa_fleiss(cnt, full, k);
        free(cnt);
        return x;
    }
    int metric = id == S_ALPHA_NOM ? KAPPA_M_NOMINAL : id == S_ALPHA_ORD ? KAPPA_M_ORDINAL
               : id == S_ALPHA_INT ? KAPPA_M_INTERVAL : KAPPA_M_RATIO;
    size_t pairable = 0;
    *nused = 0;
    for (size_t u = 0; u < nu; u++) *nused += off[u + 1] - off[u] >= 2;
    return kappa_alpha(v, off, nu, r->k, r->levels, metric, &pairable);
}

static int do_multi(struct run *r, const struct statdef *sd, int statpos, int m,
                    const int *v, const size_t *off, size_t nu)
{
    size_t n = 0, dummy;
    if (sd->id == S_ALPHA_RATIO && r->k > 0 && r->levels[0] < 0) {
        warnf(r, "group '%s': alpha-ratio needs values >= 0 (ratio scale); printed as NA",
              gname(r));
        return add_row(r, statpos, 0, 0, sd->name, -1, -1, NAN, nu, r->o->ci > 0, NAN, NAN);
    }
    double x = multi_value(r, sd->id, v, off, nu, m, &n);
    if (sd->id == S_FLEISS && n < nu && !r->o->quiet)
        fprintf(r->err, "kappa: note: group '%s': fleiss uses the %zu units rated by all %d "
                "raters; %zu unit%s left out\n", gname(r), n, m, nu - n, nu - n == 1 ? "" : "s");
    if (!isfinite(x)) undefined_warning(r, sd->name, -1, -1, n, x);
    double lo = NAN, hi = NAN;
    if (r->o->ci > 0 && nu > 0) {
        uint64_t st = row_seed(r, sd->name, -1, -1);
        double *rep = malloc((size_t)r->o->reps * sizeof *rep);
        size_t *boff = malloc((nu + 1) * sizeof *boff);
        int *bv = malloc((off[nu] ? off[nu] : 1) * (size_t)1 * sizeof *bv);
        size_t bcap = off[nu] ? off[nu] : 1;
        if (!rep || !boff || !bv) { free(rep); free(boff); free(bv); return -1; }
        for (long i = 0; i < r->o->reps; i++) {
            size_t w = 0;
            boff[0] = 0;
            for (size_t j = 0; j < nu; j++) {
                size_t u = (size_t)kappa_rand_below(&st, nu);
                size_t len = off[u + 1] - off[u];
                if (w + len > bcap) {
                    while (w + len > bcap) bcap *= 2;
                    int *p = realloc(bv, bcap * sizeof *p);
                    if (!p) { free(rep); free(boff); free(bv); return -1; }
                    bv = p;
                }
                memcpy(bv + w, v + off[u], len * sizeof *bv);
                w += len;
                boff[j + 1] = w;
            }
            rep[i] = multi_value(r, sd->id, bv, boff, nu, m, &dummy);
        }
        percentile_ci(rep, (size_t)r->o->reps, r->o->ci, &lo, &hi);
        free(rep); free(boff); free(bv);
    }
    return add_row(r, statpos, 0, 0, sd->name, -1, -1, x, n, r->o->ci > 0, lo, hi);
}

/* ---- label-set statistics -------------------------------------------------- */

struct sets {             /* per unit, the gold (a) and predicted (b) label sets */
    int32_t *ga, *pb;     /* value ids, sorted, unique */
    uint32_t *gm, *pm;    /* how often each is listed (label-recall-pooled's instances) */
    size_t *goff, *poff;
    size_t n;
};

static size_t inter(const int32_t *x, size_t nx, const int32_t *y, size_t ny)
{
    size_t i = 0, j = 0, c = 0;
    while (i < nx && j < ny) {
        if (x[i] < y[j]) i++;
        else if (x[i] > y[j]) j++;
        else { c++; i++; j++; }
    }
    return c;
}

/* Scalar label statistic over the units idx[0..n-1] (idx NULL: all). */
static double label_value(const struct run *r, int id, const struct sets *s,
                          const size_t *idx, size_t n)
{
    if (n == 0) return NAN;
    double tp = 0, ng = 0, np = 0, ex = 0;
    double *ltp = NULL, *lfp = NULL, *lfn = NULL;
    size_t nv = (size_t)r->t->values.n;
    if (id == S_L_MACRO_F1) {
        ltp = calloc(nv, sizeof *ltp); lfp = calloc(nv, sizeof *lfp); lfn = calloc(nv, sizeof *lfn);
        if (!ltp || !lfp || !lfn) { free(ltp); free(lfp); free(lfn); return NAN; }
    }
    for (size_t j = 0; j < n; j++) {
        size_t u = idx ? idx[j] : j;
        const int32_t *g = s->ga + s->goff[u], *p = s->pb + s->poff[u];
        size_t lg = s->goff[u + 1] - s->goff[u], lp = s->poff[u + 1] - s->poff[u];
        size_t c = inter(g, lg, p, lp);
        tp += (double)c; ng += (double)lg; np += (double)lp;
        ex += lg + lp ? 2.0 * (double)c / (double)(lg + lp) : 1.0;
        if (ltp) {
            size_t a = 0, b = 0;
            while (a < lg || b < lp) {
                if (b == lp || (a < lg && g[a] < p[b])) lfn[g[a++]] += 1;
                else if (a == lg || p[b] < g[a]) lfp[p[b++]] += 1;
                else { ltp[g[a]] += 1; a++; b++; }
            }
        }
    }
    double v = NAN;
    switch (id) {
    case S_L_EXAMPLE_F1: v = ex / (double)n; break;
    case S_L_MICRO_F1: case S_SET_F1: v = ng + np > 0 ? 2 * tp / (ng + np) : NAN; break;
    case S_SET_PRECISION: v = np > 0 ? tp / np : NAN; break;
    case S_SET_RECALL: v = ng > 0 ? tp / ng : NAN; break;
    case S_L_MACRO_F1: {
        double sum = 0;
        size_t cnt = 0;
        for (size_t l = 0; l < nv; l++)
            if (ltp[l] + lfn[l] > 0) { sum += 2 * ltp[l] / (2 * ltp[l] + lfp[l] + lfn[l]); cnt++; }
        v = cnt ? sum / (double)cnt : NAN;
        break;
    }
    default: break;
    }
    free(ltp); free(lfp); free(lfn);
    return v;
}

static int cmp_str_id_ctx_values(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return strcmp(kappa_strtab_str(&sort_ctx->t->values, x), kappa_strtab_str(&sort_ctx->t->values, y));
}

static int do_label(struct run *r, const struct statdef *sd, int statpos, int pairpos,
                    int32_t ra, int32_t rb, const struct sets *s)
{
    size_t n = s->n;
    if (sd->id == S_L_RECALL_POOLED) {   /* counted here, printed by pooled_rows */
        /* instances: of g gold and p predicted listings of a label in a
         * unit, min(g, p) are found and max(g - p, 0) missed */
        size_t nv = (size_t)r->t->values.n;
        double *tp = r->pool_tp + (size_t)pairpos * nv, *fn = r->pool_fn + (size_t)pairpos * nv;
        for (size_t u = 0; u < n; u++) {
            const int32_t *g = s->ga + s->goff[u], *p = s->pb + s->poff[u];
            const uint32_t *gm = s->gm + s->goff[u], *pm = s->pm + s->poff[u];
            size_t lg = s->goff[u + 1] - s->goff[u], lp = s->poff[u + 1] - s->poff[u];
            size_t j = 0;
            for (size_t i = 0; i < lg; i++) {   /* both sorted */
                while (j < lp && p[j] < g[i]) j++;
                uint32_t cg = gm[i], cp = j < lp && p[j] == g[i] ? pm[j] : 0;
                tp[g[i]] += cg < cp ? cg : cp;
                fn[g[i]] += cg > cp ? cg - cp : 0;
            }
        }
        return 0;
    }
    if (sd->id == S_L_RECALL) {
        size_t nv = (size_t)r->t->values.n;
        double *ltp = calloc(nv ? nv : 1, sizeof *ltp), *lfn = calloc(nv ? nv : 1, sizeof *lfn);
        int32_t *labs = malloc((nv ? nv : 1) * sizeof *labs);
        int rc = 0;
        if (!ltp || !lfn || !labs) { free(ltp); free(lfn); free(labs); return -1; }
        for (size_t u = 0; u < n; u++) {
            const int32_t *g = s->ga + s->goff[u], *p = s->pb + s->poff[u];
            size_t lg = s->goff[u + 1] - s->goff[u], lp = s->poff[u + 1] - s->poff[u];
            for (size_t i = 0; i < lg; i++) {
                int hit = 0;
                for (size_t j = 0; j < lp; j++) hit |= p[j] == g[i];
                if (hit) ltp[g[i]] += 1; else lfn[g[i]] += 1;
            }
        }
        size_t nl = 0;
        for (size_t l = 0; l < nv; l++) if (ltp[l] + lfn[l] > 0) labs[nl++] = (int32_t)l;
        sort_ctx = r;
        qsort(labs, nl, sizeof *labs, cmp_str_id_ctx_values);
        for (size_t i = 0; i < nl && rc == 0; i++) {
            const char *ls = kappa_strtab_str(&r->t->values, labs[i]);
            char *nm = malloc(strlen(ls) + 16);
            if (!nm) { rc = -1; break; }
            sprintf(nm, "label-recall:%s", ls);
            double tot = ltp[labs[i]] + lfn[labs[i]];
            rc = add_row(r, statpos, pairpos, (int)i, nm, ra, rb, ltp[labs[i]] / tot,
                         (size_t)tot, 0, 0, 0);
            free(nm);
        }
        free(ltp); free(lfn); free(labs);
        return rc;
    }
    double v = label_value(r, sd->id, s, NULL, n);
    if (!isfinite(v)) undefined_warning(r, sd->name, ra, rb, n, v);
    double lo = NAN, hi = NAN;
    if (r->o->ci > 0 && n > 0) {
        uint64_t st = row_seed(r, sd->name, ra, rb);
        double *rep = malloc((size_t)r->o->reps * sizeof *rep);
        size_t *idx = malloc(n * sizeof *idx);
        if (!rep || !idx) { free(rep); free(idx); return -1; }
        for (long i = 0; i < r->o->reps; i++) {
            for (size_t j = 0; j < n; j++) idx[j] = (size_t)kappa_rand_below(&st, n);
            rep[i] = label_value(r, sd->id, s, idx, n);
        }
        percentile_ci(rep, (size_t)r->o->reps, r->o->ci, &lo, &hi);
        free(rep); free(idx);
    }
    return add_row(r, statpos, pairpos, 0, sd->name, ra, rb, v, n, r->o->ci > 0, lo, hi);
}

/* Appends the label set of (unit, rater) to *arr, sorted and unique, and how
 * often each label is listed to *mult (both of capacity *cap); returns 0, -1
 * when the rater has no rating (after the missing-value rules), -2 when out
 * of memory. */
static int label_set(const struct run *r, int32_t u, int32_t rater, int32_t **arr,
                     uint32_t **mult, size_t *len, size_t *cap)
{
    int32_t v = filled(r, u, rater);
    if (v < 0) return -1;
    const kappa_table *t = r->t;
    size_t start = *len;
    size_t c = (size_t)u * (size_t)t->raters.n + (size_t)rater;
    size_t lo = 0, hi = t->nx;
    while (lo < hi) { size_t mid = (lo + hi) / 2; if (t->x_cell[mid] < c) lo = mid + 1; else hi = mid; }
    size_t need = *len + 1;
    for (size_t i = lo; i < t->nx && t->x_cell[i] == c; i++) need++;
    if (need > *cap) {
        size_t nc = *cap ? *cap : 64;
        while (nc < need) nc *= 2;
        uint32_t *m = realloc(*mult, nc * sizeof *m);
        if (!m) return -2;
        *mult = m;
        int32_t *p = realloc(*arr, nc * sizeof *p);
        if (!p) return -2;
        *arr = p;
        *cap = nc;
    }
    if (v != r->none_value) (*arr)[(*len)++] = v;
    if (cell_at(r, u, rater) >= 0)
        for (size_t i = lo; i < t->nx && t->x_cell[i] == c; i++)
            if (t->x_value[i] != r->none_value) (*arr)[(*len)++] = t->x_value[i];
    /* sort the small set, unique, counting the listings of each label */
    int32_t *s = *arr + start;
    uint32_t *k = *mult + start;
    size_t m = *len - start;
    for (size_t i = 1; i < m; i++) {
        int32_t x = s[i];
        size_t j = i;
        while (j > 0 && s[j - 1] > x) { s[j] = s[j - 1]; j--; }
        s[j] = x;
    }
    size_t w = 0;
    for (size_t i = 0; i < m; i++) {
        if (w == 0 || s[i] != s[w - 1]) { s[w] = s[i]; k[w++] = 1; }
        else k[w - 1]++;
    }
    *len = start + w;
    return 0;
}

/* ---- one group ----------------------------------------------------------- */

/* Units rated by only one rater of a pair: summed over groups, printed once per pair. */
static int coverage_note(struct run *r, int32_t ra, int32_t rb, size_t only_a, size_t only_b)
{
    if (!only_a && !only_b) return 0;
    size_t i;
    for (i = 0; i < r->ncov; i++)
        if (r->cov[i].ra == ra && r->cov[i].rb == rb) break;
    if (i == r->ncov) {
        if (r->ncov == r->covcap) {
            size_t nc = r->covcap ? r->covcap * 2 : 16;
            struct cov *p = realloc(r->cov, nc * sizeof *p);
            if (!p) return -1;
            r->cov = p;
            r->covcap = nc;
        }
        r->cov[r->ncov++] = (struct cov){ ra, rb, 0, 0, 0 };
    }
    r->cov[i].only_a += only_a;
    r->cov[i].only_b += only_b;
    r->cov[i].ngroups++;
    return 0;
}

static void print_coverage(struct run *r)
{
    if (r->o->quiet) return;
    for (size_t i = 0; i < r->ncov; i++) {
        const struct cov *c = &r->cov[i];
        fprintf(r->err, "kappa: note: %s vs %s: %zu unit%s rated only by %s and %zu only by "
                "%s (in %d group%s) left out; see --missing and --unrated\n",
                rname(r, c->ra), rname(r, c->rb), c->only_a, c->only_a == 1 ? "" : "s",
                rname(r, c->ra), c->only_b, rname(r, c->rb), c->ngroups,
                c->ngroups == 1 ? "" : "s");
    }
}

static int ordered_error(struct run *r, const struct statdef *sd)
{
    const kappa_table *t = r->t;
    int32_t v = r->first_label;
    if (v >= 0 && t->vloc[v].file >= 0)
        fprintf(r->err, "%s:%d:%d: error: '%s' is not a number, but %s needs numeric "
                "ratings (group '%s')\n", t->fname[t->vloc[v].file], t->vloc[v].line,
                t->vloc[v].col, kappa_strtab_str(&t->values, v), sd->name, gname(r));
    else
        fprintf(r->err, "kappa: error: %s needs numeric ratings, group '%s' has labels%s%s\n",
                sd->name, gname(r), v >= 0 ? " such as " : "",
                v >= 0 ? kappa_strtab_str(&t->values, v) : "");
    r->status = 2;
    return -1;
}

/* The codes of unit u's ratings by the selected raters (after --missing and
 * --unrated) in out[], their number; -1 when none of them rated it. */
static inline int unit_codes(const struct run *r, int32_t u, const int32_t *sel, int nsel, int *out)
{
    const kappa_table *t = r->t;
    int m = 0;
    if (t->cw == 1 && !t->seen) {
        const unsigned char *row = t->cell + (size_t)u * (size_t)t->raters.n;
        for (int i = 0; i < nsel; i++) {
            unsigned v = row[sel[i]];
            int c = v == 0xff ? -1 : r->code_of[v];
            if (c >= 0) out[m++] = c;
        }
        return m ? m : -1;
    }
    int any = 0;
    for (int i = 0; i < nsel && !any; i++) any = code(r, cell_at(r, u, sel[i])) >= 0;
    if (!any) return -1;
    for (int i = 0; i < nsel; i++) {
        int c = code(r, filled(r, u, sel[i]));
        if (c >= 0) out[m++] = c;
    }
    return m;
}

/* Units u of [lo, hi) of a group rated by raters s0 and s1 (one-byte cells,
 * nothing filled in): the number of units coded (i, j), of units with a
 * value, of units with two. */
struct pair_count {
    const kappa_table *t;
    const int32_t *units, *cmap;
    size_t lo, hi, s0, s1, k;
    uint64_t *pairs;
    size_t nm, nused, only0, only1;
};

#define PAIR_HIST_MIN 65536   /* units from which count_pairs counts the byte pairs first */

static void *count_pairs(void *arg)
{
    struct pair_count *p = arg;
    const unsigned char *cell = p->t->cell;
    size_t R = (size_t)p->t->raters.n, nm = 0, nused = 0;
    uint32_t *hist = p->hi - p->lo >= PAIR_HIST_MIN ? calloc(65536, sizeof *hist) : NULL;
    if (hist) {
        /* how often each pair of cells (two bytes) occurs, then the codes of
         * the pairs that do: the same sums, without a lookup per unit */
        if (!p->units) {
            const unsigned char *x = cell + p->lo * R + p->s0, *y = cell + p->lo * R + p->s1;
            size_t n = p->hi - p->lo;
            for (size_t q = 0; q < n; q++) hist[(unsigned)x[q * R] << 8 | y[q * R]]++;
        } else {
            for (size_t q = p->lo; q < p->hi; q++) {
                const unsigned char *row = cell + (size_t)p->units[q] * R;
                hist[(unsigned)row[p->s0] << 8 | row[p->s1]]++;
            }
        }
        /* cells hold value ids below values.n, or 0xff (unrated) */
        unsigned nv = p->t->values.n < 255 ? (unsigned)p->t->values.n : 255;
        for (unsigned a = 0; a < 256; a = a + 1 == nv ? 255 : a + 1) {
            if (a >= nv && a != 255) continue;
            for (unsigned b = 0; b < 256; b = b + 1 == nv ? 255 : b + 1) {
                if (b >= nv && b != 255) continue;
                size_t n = hist[a << 8 | b];
                int c0 = p->cmap[a], c1 = p->cmap[b];
                if (!n) continue;
                if (c0 >= 0 && c1 >= 0) {
                    p->pairs[(size_t)c0 * p->k + (size_t)c1] += n;
                    nused += n;
                }
                if (c0 >= 0 || c1 >= 0) nm += n;
                if (c0 >= 0 && c1 < 0) p->only0 += n;
                if (c1 >= 0 && c0 < 0) p->only1 += n;
            }
        }
        free(hist);
        p->nm = nm;
        p->nused = nused;
        return NULL;
    }
    for (size_t q = p->lo; q < p->hi; q++) {
        const unsigned char *row = cell + (size_t)UNIT(p->units, q) * R;
        int c0 = p->cmap[row[p->s0]], c1 = p->cmap[row[p->s1]];
        if (c0 >= 0 && c1 >= 0) {
            p->pairs[(size_t)c0 * p->k + (size_t)c1]++;
            nused++;
        }
        nm += c0 >= 0 || c1 >= 0;
        p->only0 += c0 >= 0 && c1 < 0;
        p->only1 += c1 >= 0 && c0 < 0;
    }
    p->nm = nm;
    p->nused = nused;
    return NULL;
}

/* count_pairs over [0, nu), by two threads when there are many units. */
static void count_all_pairs(const kappa_table *t, const int32_t *units, size_t nu, size_t s0,
                            size_t s1, const int32_t *cmap, size_t k, uint64_t *pairs,
                            size_t *nm, size_t *nused, size_t *only0, size_t *only1)
{
    struct pair_count a = { t, units, cmap, 0, nu, s0, s1, k, pairs, 0, 0, 0, 0 }, b = a;
    pthread_t th;
    int two = nu >= ((size_t)1 << 20) && sysconf(_SC_NPROCESSORS_ONLN) > 1;
    if (two) {
        b.pairs = calloc(k * k, sizeof *b.pairs);
        a.hi = b.lo = nu / 2;
        two = b.pairs && pthread_create(&th, NULL, count_pairs, &b) == 0;
        if (!two) { free(b.pairs); a.hi = nu; }
    }
    count_pairs(&a);
    if (two) {
        pthread_join(th, NULL);
        for (size_t i = 0; i < k * k; i++) pairs[i] += b.pairs[i];
        a.nm += b.nm;
        a.nused += b.nused;
        a.only0 += b.only0;
        a.only1 += b.only1;
        free(b.pairs);
    }
    if (nm) *nm = a.nm;
    if (nused) *nused = a.nused;
    if (only0) *only0 = a.only0;
    if (only1) *only1 = a.only1;
}

/* Spearman's rho of raters ra and rb (one-byte cells, nothing filled in)
 * from their table of code pairs and one pass over the units in order. */
static double spearman_stream(const struct run *r, const int32_t *units, size_t nu, int32_t ra,
                              int32_t rb, const int32_t *cmap, const uint64_t *tab)
{
    enum { BLOCK = 4096 };
    struct kappa_spearman_acc acc;
    if (r->k <= 0 || kappa_spearman_begin(&acc, tab, r->k) < 0) return NAN;
    int x[BLOCK], y[BLOCK];
    const unsigned char *cell = r->t->cell;
    size_t R = (size_t)r->t->raters.n;
    for (size_t q = 0; q < nu;) {
        size_t nb = 0;
        for (; q < nu && nb < BLOCK; q++) {
            const unsigned char *row = cell + (size_t)UNIT(units, q) * R;
            x[nb] = cmap[row[ra]];
            y[nb] = cmap[row[rb]];
            nb += x[nb] >= 0 && y[nb] >= 0;
        }
        kappa_spearman_units(&acc, x, y, nb);
    }
    return kappa_spearman_end(&acc);
}

/* do_multi for Krippendorff's alpha without a bootstrap: two passes over the
 * cells, a block of units at a time, instead of the group's codes in memory
 * (the same arithmetic). */
static int alpha_stream(struct run *r, const struct statdef *sd, int statpos,
                        const int32_t *units, size_t nu, const int32_t *sel, int nsel)
{
    enum { BLOCK = 4096 };
    int *v = malloc((size_t)BLOCK * (size_t)(nsel ? nsel : 1) * sizeof *v);
    size_t *off = malloc((BLOCK + 1) * sizeof *off);
    if (!v || !off) { free(v); free(off); return -1; }
    int metric = sd->id == S_ALPHA_NOM ? KAPPA_M_NOMINAL : sd->id == S_ALPHA_ORD ? KAPPA_M_ORDINAL
               : sd->id == S_ALPHA_INT ? KAPPA_M_INTERVAL : KAPPA_M_RATIO;
    struct kappa_alpha_acc acc;
    int begun = r->k > 0 && kappa_alpha_begin(&acc, r->k, r->levels, metric) == 0, ok = begun;
    int ratio_bad = sd->id == S_ALPHA_RATIO && r->k > 0 && r->levels[0] < 0;
    size_t nm = 0, nused = 0;
    const kappa_table *t = r->t;
    int fast = t->cw == 1 && !t->seen;
    int32_t cmap[256];
    for (int c = 0; c < 256; c++) cmap[c] = c < 255 && c < t->values.n ? code(r, c) : -1;
    size_t R = (size_t)t->raters.n;
    int passes = begun ? kappa_alpha_passes(&acc) : 1, counted = 0;
    if (fast && nsel == 2 && r->k <= 64) {
        /* units of two values counted by their pair of codes; alpha's sums
         * from the counts when they are exact (else units one at a time) */
        size_t k = (size_t)(r->k > 0 ? r->k : 1);
        uint64_t *pairs = calloc(k * k, sizeof *pairs);
        if (pairs) {
            count_all_pairs(t, units, nu, (size_t)sel[0], (size_t)sel[1], cmap, k, pairs, &nm, &nused,
                            NULL, NULL);
            counted = 1;
            if (ok && !ratio_bad && kappa_alpha_pair_counts(&acc, pairs)) passes = 0;
            free(pairs);
        }
    }
    for (int pass = 0; pass < passes; pass++) {
        if (pass == 1 && (!ok || ratio_bad)) break;
        if (pass == 0 && counted && (!ok || ratio_bad)) break;
        size_t q = 0;
        while (fast && nsel == 2 && q < nu && (pass == 0 || ok)) {
            /* two raters: units of two values, or of one (which alpha leaves out) */
            int *x = v, *y = v + BLOCK;
            size_t nb = 0;
            size_t s0 = (size_t)sel[0], s1 = (size_t)sel[1];
            for (; q < nu && nb < BLOCK; q++) {
                const unsigned char *row = t->cell + (size_t)UNIT(units, q) * R;
                int c0 = cmap[row[s0]], c1 = cmap[row[s1]];
                x[nb] = c0;
                y[nb] = c1;
                if (c0 >= 0 && c1 >= 0) nb++;
                else if (pass == 0 && !counted && (c0 >= 0 || c1 >= 0)) nm++;
            }
            if (pass == 0 && !counted) { nm += nb; nused += nb; }
            if (ok && !(ratio_bad && pass == 0) && kappa_alpha_units2(&acc, pass, x, y, nb) < 0)
                ok = 0;
        }
        while (!(fast && nsel == 2) && q < nu && (pass == 0 || ok)) {
            size_t nb = 0;
            off[0] = 0;
            if (fast) {   /* unit_codes on one-byte cells with nothing to fill in */
                for (; q < nu && nb < BLOCK; q++) {
                    const unsigned char *row = t->cell + (size_t)UNIT(units, q) * R;
                    size_t o = off[nb], m = 0;
                    for (int i = 0; i < nsel; i++) {
                        int c = cmap[row[sel[i]]];
                        v[o + m] = c;
                        m += c >= 0;
                    }
                    if (m) off[++nb] = o + m;
                }
            } else {
                for (; q < nu && nb < BLOCK; q++) {
                    int m = unit_codes(r, UNIT(units, q), sel, nsel, v + off[nb]);
                    if (m < 0) continue;
                    off[nb + 1] = off[nb] + (size_t)m;
                    nb++;
                }
            }
            if (pass == 0) {
                nm += nb;
                for (size_t i = 0; i < nb; i++) nused += off[i + 1] - off[i] >= 2;
            }
            if (ok && !(ratio_bad && pass == 0) && kappa_alpha_units(&acc, pass, v, off, nb) < 0)
                ok = 0;
        }
    }
    double x = begun ? kappa_alpha_end(&acc, NULL) : NAN;
    if (!ok) x = NAN;
    free(v);
    free(off);
    if (ratio_bad) {
        warnf(r, "group '%s': alpha-ratio needs values >= 0 (ratio scale); printed as NA",
              gname(r));
        return add_row(r, statpos, 0, 0, sd->name, -1, -1, NAN, nm, r->o->ci > 0, NAN, NAN);
    }
    if (!isfinite(x)) undefined_warning(r, sd->name, -1, -1, nused, x);
    return add_row(r, statpos, 0, 0, sd->name, -1, -1, x, nused, r->o->ci > 0, NAN, NAN);
}

/* The raters of a group into sel: sel_all when given, else every rater
 * present here (rated a unit, or would have a verdict filled in by
 * --missing / --unrated) and the reference. Returns their number. */
static int group_raters(const struct run *r, const int32_t *units, size_t nu,
                        const int32_t *sel_all, int nsel_all, int32_t ref, int32_t *sel)
{
    int nsel = 0;
    if (sel_all) {
        for (int i = 0; i < nsel_all; i++) sel[nsel++] = sel_all[i];
        return nsel;
    }
    for (int32_t q = 0; q < r->t->raters.n; q++) {
        int present = 0;
        for (size_t i = 0; i < nu && !present; i++) present = filled(r, UNIT(units, i), q) >= 0;
        if (present || q == ref) sel[nsel++] = q;
    }
    return nsel;
}

/* The statistics to compute into defs: --stat's, else the defaults for the
 * kind of data (labels, numbers, categories; the all-raters ones with more
 * than two raters and no reference). Returns their number. */
static int group_stats(const struct run *r, int nsel, int32_t ref, const struct statdef **defs)
{
    const struct kappa_opts *o = r->o;
    int nd = 0;
    if (o->stats) {
        nd = parse_stats(o->stats, defs, (int)NSTATS, NULL);
    } else if (o->multilabel) {
        defs[nd++] = find_stat("label-example-f1", 16);
        defs[nd++] = find_stat("label-micro-f1", 14);
        defs[nd++] = find_stat("label-macro-f1", 14);
    } else if (r->numeric) {
        const char *d[] = { "cohen-quadratic", "spearman", "kendall", "pearson", "mae", "rmse" };
        for (size_t i = 0; i < 6; i++) defs[nd++] = find_stat(d[i], strlen(d[i]));
        if (nsel > 2 && ref < 0) defs[nd++] = find_stat("alpha-interval", 14);
    } else {
        defs[nd++] = find_stat("agreement", 9);
        defs[nd++] = find_stat("cohen", 5);
        if (nsel > 2 && ref < 0) {
            defs[nd++] = find_stat("fleiss", 6);
            defs[nd++] = find_stat("alpha-nominal", 13);
        }
    }
    return nd;
}

/* The rater pairs into pairs (two ids each): every pair of the selected
 * raters, or the reference (first) with each other one. Returns their number. */
static int make_pairs(const int32_t *sel, int nsel, int32_t ref, int32_t *pairs)
{
    int npairs = 0;
    for (int i = 0; i < nsel; i++)
        for (int j = i + 1; j < nsel; j++) {
            if (ref >= 0 && sel[i] != ref && sel[j] != ref) continue;
            int32_t x = sel[i], y = sel[j];
            if (ref >= 0 && y == ref) { y = x; x = ref; }
            pairs[2 * npairs] = x;
            pairs[2 * npairs + 1] = y;
            npairs++;
        }
    return npairs;
}

/* Whether every pair statistic can come from each pair's table of code
 * pairs (whole counts, no bootstrap, one-byte cells with nothing to fill
 * in), without the codes of every unit in memory. */
static int pairs_by_table(const struct run *r, const struct statdef *const *defs, int nd, size_t nu)
{
    const struct kappa_opts *o = r->o;
    const kappa_table *t = r->t;
    if (o->multilabel || o->ci > 0 || t->cw != 1 || t->seen || r->k > 64) return 0;
    for (int d = 0; d < nd; d++)
        if (defs[d]->kind == PAIR && defs[d]->id != S_AGREEMENT && defs[d]->id != S_COHEN &&
            defs[d]->id != S_SCOTT && defs[d]->id != S_COVERAGE &&
            !(defs[d]->id == S_SPEARMAN && nu < ((size_t)1 << 25)))   /* its means exact */
            return 0;
    return 1;
}

/* code() of every one-byte cell value (255: unrated) */
static void cell_codes(const struct run *r, int32_t cmap[256])
{
    for (int v = 0; v < 256; v++) cmap[v] = v < 255 && v < r->t->values.n ? code(r, v) : -1;
}

/* The pair statistics of raters ra, rb from their table of code pairs. */
static int pair_by_table(struct run *r, const struct statdef *const *defs, int nd,
                         const int32_t *units, size_t nu, int pairpos, int32_t ra, int32_t rb)
{
    size_t k = (size_t)(r->k > 0 ? r->k : 1), n = 0, only_a = 0, only_b = 0;
    int32_t cmap[256];
    cell_codes(r, cmap);
    uint64_t *tab = calloc(k * k, sizeof *tab);
    if (!tab) return -1;
    count_all_pairs(r->t, units, nu, (size_t)ra, (size_t)rb, cmap, k, tab, NULL, &n, &only_a, &only_b);
    int e = coverage_note(r, ra, rb, only_a, only_b);
    for (int d = 0; d < nd && e >= 0; d++) {
        if (defs[d]->kind != PAIR) continue;
        const struct statdef *sd = defs[d];
        if (sd->id == S_COVERAGE) {
            e = do_pair(r, sd, d, pairpos, ra, rb, NULL, NULL, n, only_a, only_b);
        } else if (sd->id == S_SPEARMAN) {
            double v = spearman_stream(r, units, nu, ra, rb, cmap, tab);
            if (!isfinite(v)) undefined_warning(r, sd->name, ra, rb, n, v);
            e = add_row(r, d, pairpos, 0, sd->name, ra, rb, v, n, 0, NAN, NAN);
            if (e >= 0) r->rows[r->nrows - 1].p = kappa_corr_pvalue(v, n);
        } else {
            double v = sd->id == S_AGREEMENT ? kappa_agreement_table(tab, r->k)
                     : sd->id == S_COHEN ? (r->k > 0 ? kappa_cohen_table(tab, r->k) : NAN)
                     : (r->k > 0 ? kappa_scott_table(tab, r->k) : NAN);
            if (!isfinite(v)) undefined_warning(r, sd->name, ra, rb, n, v);
            e = add_row(r, d, pairpos, 0, sd->name, ra, rb, v, n, 0, NAN, NAN);
        }
    }
    free(tab);
    return e < 0 ? -1 : 0;
}

/* Whether unit u is one of the --both criterion's (not a label unit). */
static int both_crit_unit(const struct run *r, int32_t u)
{
    int32_t c = kappa_unit_crit(r->t, u);
    if (c >= 0) return c == r->both_crit;
    return r->both_group >= 0 && kappa_unit_group(r->t, u) == r->both_group;
}

/* --both: whether raters ra and rb both rated unit u's item CRITERION=VALUE. */
static int both_rated(const struct run *r, int32_t u, int32_t ra, int32_t rb)
{
    int32_t cu = r->both_unit[kappa_unit_item(r->t, u)];
    return cu >= 0 && r->both_value >= 0 && cell_at(r, cu, ra) == r->both_value &&
           cell_at(r, cu, rb) == r->both_value;
}

/* --taxonomy: keeps, of the gold set g, the labels of the taxonomy, and of
 * the predicted set p those of the taxonomy in a domain of the kept gold
 * labels (in any domain when there are none: the answer's domain is then
 * unknown), with their multiplicities gm, pm; adds the labels it drops to
 * r->masked_g and r->masked_p. */
static void mask_sets(struct run *r, int32_t *g, uint32_t *gm, size_t *lg, int32_t *p,
                      uint32_t *pm, size_t *lp)
{
    uint64_t doms = 0;
    size_t w = 0;
    for (size_t i = 0; i < *lg; i++)
        if (r->tax_dom[g[i]]) {
            doms |= (uint64_t)1 << (r->tax_dom[g[i]] - 1);
            gm[w] = gm[i];
            g[w++] = g[i];
        }
    r->masked_g += *lg - w;
    *lg = w;
    w = 0;
    for (size_t i = 0; i < *lp; i++)
        if (r->tax_dom[p[i]] && (!doms || (doms >> (r->tax_dom[p[i]] - 1) & 1))) {
            pm[w] = pm[i];
            p[w++] = p[i];
        }
    r->masked_p += *lp - w;
    *lp = w;
}

/* The label sets of raters ra, rb over the units both rated into s
 * (--multilabel), restricted by --both and masked by --taxonomy; *gcap,
 * *pcap: the capacities of s->ga, s->pb. Returns the number of units, or
 * -1 when out of memory. */
static long pair_label_sets(struct run *r, const int32_t *units, size_t nu, int32_t ra,
                            int32_t rb, struct sets *s, size_t *gcap, size_t *pcap,
                            size_t *only_a, size_t *only_b)
{
    r->masked_g = r->masked_p = r->both_out = 0;
    s->n = 0;
    size_t gl = 0, pl = 0;
    free(s->goff); free(s->poff);
    s->goff = malloc((nu + 1) * sizeof *s->goff);
    s->poff = malloc((nu + 1) * sizeof *s->poff);
    if (!s->goff || !s->poff) return -1;
    s->goff[0] = s->poff[0] = 0;
    for (size_t q = 0; q < nu; q++) {
        int pa = cell_at(r, UNIT(units, q), ra) >= 0, pb = cell_at(r, UNIT(units, q), rb) >= 0;
        if (!pa && !pb) continue;
        if (r->crit_tax) {
            int32_t c = kappa_unit_crit(r->t, UNIT(units, q));
            if (c >= 0 && !r->crit_tax[c]) continue;
        }
        if (r->both_unit) {
            if (both_crit_unit(r, UNIT(units, q))) continue;
            if (!both_rated(r, UNIT(units, q), ra, rb)) { r->both_out++; continue; }
        }
        size_t g0 = gl, p0 = pl;
        int ea = label_set(r, UNIT(units, q), ra, &s->ga, &s->gm, &gl, gcap);
        int eb = label_set(r, UNIT(units, q), rb, &s->pb, &s->pm, &pl, pcap);
        if (ea == -2 || eb == -2) return -1;
        if (ea < 0 || eb < 0) {
            gl = g0; pl = p0;
            if (ea < 0) (*only_b)++; else (*only_a)++;
            continue;
        }
        if (r->tax_dom) {
            size_t lg = gl - g0, lp = pl - p0;
            mask_sets(r, s->ga + g0, s->gm + g0, &lg, s->pb + p0, s->pm + p0, &lp);
            gl = g0 + lg;
            pl = p0 + lp;
        }
        s->n++;
        s->goff[s->n] = gl;
        s->poff[s->n] = pl;
    }
    return (long)s->n;
}

/* The codes of raters ra, rb on the units both rated (with --missing /
 * --unrated filled in) into a and b. Returns their number. */
static size_t pair_codes(const struct run *r, const int32_t *units, size_t nu, int32_t ra,
                         int32_t rb, int *a, int *b, size_t *only_a, size_t *only_b)
{
    const kappa_table *t = r->t;
    size_t n = 0;
    if (t->cw == 1 && !t->seen) {
        /* the same, on one-byte cells with nothing to fill in */
        int32_t cmap[256];
        cell_codes(r, cmap);
        const unsigned char *cell = t->cell;
        size_t R = (size_t)t->raters.n;
        for (size_t q = 0; q < nu; q++) {
            size_t row = (size_t)UNIT(units, q) * R;
            int ca = cmap[cell[row + (size_t)ra]], cb = cmap[cell[row + (size_t)rb]];
            if (ca < 0 || cb < 0) {
                if (ca >= 0) (*only_a)++;
                else if (cb >= 0) (*only_b)++;
                continue;
            }
            a[n] = ca; b[n] = cb; n++;
        }
        return n;
    }
    for (size_t q = 0; q < nu; q++) {
        int32_t u = UNIT(units, q);
        int pa = code(r, cell_at(r, u, ra)) >= 0, pb = code(r, cell_at(r, u, rb)) >= 0;
        if (!pa && !pb) continue;
        int ca = code(r, filled(r, u, ra)), cb = code(r, filled(r, u, rb));
        if (ca < 0 || cb < 0) {
            if (ca < 0) (*only_b)++; else (*only_a)++;
            continue;
        }
        a[n] = ca; b[n] = cb; n++;
    }
    return n;
}

/* The statistics of all selected raters at once: alpha straight from the
 * cells when there is no bootstrap (and no Fleiss), else from every unit's
 * codes. */
static int multi_stats(struct run *r, const struct statdef *const *defs, int nd,
                       const int32_t *units, size_t nu, const int32_t *sel, int nsel)
{
    int any_multi = 0;
    for (int d = 0; d < nd; d++) any_multi |= defs[d]->kind == MULTI;
    if (!any_multi) return 0;
    int stream = r->o->ci <= 0;
    for (int d = 0; d < nd; d++) stream &= defs[d]->kind != MULTI || defs[d]->id != S_FLEISS;
    if (stream) {
        for (int d = 0; d < nd; d++)
            if (defs[d]->kind == MULTI && alpha_stream(r, defs[d], d, units, nu, sel, nsel) < 0)
                return -1;
        return 0;
    }
    int rc = -1;
    int *mv = malloc(((size_t)nu * (size_t)nsel + 1) * sizeof *mv);
    size_t *moff = malloc((nu + 1) * sizeof *moff);
    if (!mv || !moff) goto out;
    size_t w = 0, nm = 0;
    moff[0] = 0;
    for (size_t q = 0; q < nu; q++) {
        int m = unit_codes(r, UNIT(units, q), sel, nsel, mv + w);
        if (m < 0) continue;
        w += (size_t)m;
        moff[++nm] = w;
    }
    for (int d = 0; d < nd; d++)
        if (defs[d]->kind == MULTI && do_multi(r, defs[d], d, nsel, mv, moff, nm) < 0) goto out;
    rc = 0;
out:
    free(mv);
    free(moff);
    return rc;
}

/* label-recall-pooled (SketchJudge, Appendix E.2, Eq. 12): per label with a
 * gold instance, the recall pooled over the models (the pairs of the
 * reference with each), sum of found / sum of gold instances.  An instance
 * is a listing: a unit whose gold lists a label g times and whose model
 * lists it p times has min(g, p) found and max(g - p, 0) missed (do_label),
 * and a gold instance counts once for every model whose sets hold its unit;
 * and the quartiles (25%, 75%) of the models' own recalls of it, over the
 * models with a gold instance of it. Rater b is "*": every model. */
static int pooled_rows(struct run *r, int statpos, int npairs, int32_t ref)
{
    size_t nv = (size_t)r->t->values.n;
    int32_t *labs = malloc((nv ? nv : 1) * sizeof *labs);
    double *rec = malloc(((size_t)npairs + 1) * sizeof *rec);
    int rc = 0;
    if (!labs || !rec) { free(labs); free(rec); return -1; }
    size_t nl = 0;
    for (size_t l = 0; l < nv; l++) {
        double tot = 0;
        for (int m = 0; m < npairs; m++)
            tot += r->pool_tp[(size_t)m * nv + l] + r->pool_fn[(size_t)m * nv + l];
        if (tot > 0) labs[nl++] = (int32_t)l;
    }
    sort_ctx = r;
    qsort(labs, nl, sizeof *labs, cmp_str_id_ctx_values);
    for (size_t i = 0; i < nl && rc == 0; i++) {
        size_t l = (size_t)labs[i];
        double tp = 0, tot = 0;
        size_t k = 0;
        for (int m = 0; m < npairs; m++) {
            double a = r->pool_tp[(size_t)m * nv + l], b = a + r->pool_fn[(size_t)m * nv + l];
            tp += a;
            tot += b;
            if (b > 0) rec[k++] = a / b;
        }
        qsort(rec, k, sizeof *rec, cmp_double);
        const char *ls = kappa_strtab_str(&r->t->values, labs[i]);
        char *nm = malloc(strlen(ls) + 32);
        if (!nm) { rc = -1; break; }
        sprintf(nm, "label-recall-pooled:%s", ls);
        rc = add_row(r, statpos, 0, (int)(3 * i), nm, ref, -1, tp / tot, (size_t)tot, 0, 0, 0);
        sprintf(nm, "label-recall-q25:%s", ls);
        if (!rc) rc = add_row(r, statpos, 0, (int)(3 * i + 1), nm, ref, -1,
                              kappa_quantile(rec, k, 0.25), k, 0, 0, 0);
        sprintf(nm, "label-recall-q75:%s", ls);
        if (!rc) rc = add_row(r, statpos, 0, (int)(3 * i + 2), nm, ref, -1,
                              kappa_quantile(rec, k, 0.75), k, 0, 0, 0);
        free(nm);
    }
    free(labs);
    free(rec);
    return rc;
}

/* The notes of the label sets of a pair: what --both left out, what
 * --taxonomy masked. */
static void label_notes(const struct run *r, int32_t ra, int32_t rb, size_t n)
{
    if (r->o->quiet) return;
    if (r->both_unit)
        fprintf(r->err, "kappa: note: group '%s', %s vs %s: %zu unit%s both rated %s, %zu "
                "left out (--both)\n", gname(r), rname(r, ra), rname(r, rb), n,
                n == 1 ? "" : "s", r->o->both, r->both_out);
    if (r->masked_g || r->masked_p)
        fprintf(r->err, "kappa: note: group '%s', %s vs %s: --taxonomy masked %zu gold and %zu "
                "predicted label%s (not in the taxonomy, or not of the answer's domain)\n",
                gname(r), rname(r, ra), rname(r, rb), r->masked_g, r->masked_p,
                r->masked_g + r->masked_p == 1 ? "" : "s");
}

static double mean_of(const double *x, const size_t *idx, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[idx ? idx[i] : i];
    return n ? s / (double)n : NAN;
}

/* mean: per selected rater, the mean of its numeric ratings over the units
 * of the group it rated (after --missing / --unrated; na left out), as a
 * percentage of --percent-of when given (EduIllustrate's Table 2: each
 * dimension's 0-5 scores averaged over the items, as 0-100%).  rater-b NA. */
static int single_rows(struct run *r, const struct statdef *const *defs, int nd,
                       const int32_t *units, size_t nu, const int32_t *sel, int nsel)
{
    double *x = malloc((nu ? nu : 1) * sizeof *x), *rep = NULL;
    size_t *idx = malloc((nu ? nu : 1) * sizeof *idx);
    int rc = -1;
    if (!x || !idx) goto out;
    for (int d = 0; d < nd; d++) {
        if (defs[d]->kind != SINGLE) continue;
        for (int k = 0; k < nsel; k++) {
            size_t n = 0;
            for (size_t q = 0; q < nu; q++) {
                int c = code(r, filled(r, UNIT(units, q), sel[k]));
                if (c >= 0) x[n++] = r->levels[c];
            }
            double scale = r->o->percent_of > 0 ? 100 / r->o->percent_of : 1;
            for (size_t i = 0; i < n; i++) x[i] *= scale;
            double v = mean_of(x, NULL, n), lo = NAN, hi = NAN;
            if (!isfinite(v)) undefined_warning(r, defs[d]->name, sel[k], sel[k], n, v);
            if (r->o->ci > 0 && n > 0) {
                if (!rep && !(rep = malloc((size_t)r->o->reps * sizeof *rep))) goto out;
                uint64_t st = row_seed(r, defs[d]->name, sel[k], -2);
                for (long i = 0; i < r->o->reps; i++) {
                    for (size_t j = 0; j < n; j++) idx[j] = (size_t)kappa_rand_below(&st, n);
                    rep[i] = mean_of(x, idx, n);
                }
                percentile_ci(rep, (size_t)r->o->reps, r->o->ci, &lo, &hi);
            }
            if (add_row(r, d, k, 0, defs[d]->name, sel[k], -2, v, n, r->o->ci > 0, lo, hi) < 0)
                goto out;
        }
    }
    rc = 0;
out:
    free(x); free(idx); free(rep);
    return rc;
}

/* --compare A,B: per scalar pair statistic, the difference
 * stat(reference, A) - stat(reference, B) on the units all three rated, its
 * paired bootstrap percentile interval (the units resampled, both
 * statistics computed on the same resample) and the p-value of a paired
 * permutation test (approximate randomization: each unit's ratings by A and
 * B swapped with probability 1/2; p = (1 + #{|d*| >= |d|}) / (1 + reps),
 * two-sided).  Both streams are seeded from --seed and the row. */
static int compare_rows(struct run *r, const struct statdef *const *defs, int nd,
                        const int32_t *units, size_t nu, int32_t ref, int pairpos)
{
    int32_t xa = r->cmp_a, xb = r->cmp_b;
    int *g = malloc((nu ? nu : 1) * sizeof *g), *x = malloc((nu ? nu : 1) * sizeof *x),
        *y = malloc((nu ? nu : 1) * sizeof *y);
    int *bg = malloc((nu ? nu : 1) * sizeof *bg), *bx = malloc((nu ? nu : 1) * sizeof *bx),
        *by = malloc((nu ? nu : 1) * sizeof *by);
    double *rep = malloc((size_t)r->o->reps * sizeof *rep);
    int rc = -1;
    if (!g || !x || !y || !bg || !bx || !by || !rep) goto out;
    size_t n = 0;
    for (size_t q = 0; q < nu; q++) {
        int32_t u = UNIT(units, q);
        int cg = code(r, filled(r, u, ref)), cx = code(r, filled(r, u, xa)), cy = code(r, filled(r, u, xb));
        if (cg < 0 || cx < 0 || cy < 0) continue;
        g[n] = cg; x[n] = cx; y[n] = cy; n++;
    }
    double level = r->o->ci > 0 ? r->o->ci : 0.95;
    for (int d = 0; d < nd; d++) {
        const struct statdef *sd = defs[d];
        if (sd->kind != PAIR || !sd->scalar) continue;
        char name[64];
        snprintf(name, sizeof name, "%s-diff", sd->name);
        double va = pair_value(r, sd->id, g, x, n), vb = pair_value(r, sd->id, g, y, n);
        double diff = va - vb, lo = NAN, hi = NAN, p = NAN;
        if (!isfinite(diff)) undefined_warning(r, name, xa, xb, n, diff);
        else if (n > 0) {
            uint64_t st = row_seed(r, name, xa, xb);
            for (long i = 0; i < r->o->reps; i++) {
                for (size_t j = 0; j < n; j++) {
                    size_t u = (size_t)kappa_rand_below(&st, n);
                    bg[j] = g[u]; bx[j] = x[u]; by[j] = y[u];
                }
                rep[i] = pair_value(r, sd->id, bg, bx, n) - pair_value(r, sd->id, bg, by, n);
            }
            percentile_ci(rep, (size_t)r->o->reps, level, &lo, &hi);
            uint64_t pt = st ^ 0x5bd1e9955bd1e995ULL;
            kappa_rand_next(&pt);
            long ge = 0;
            double tol = 1e-12 * (fabs(diff) > 1 ? fabs(diff) : 1);
            for (long i = 0; i < r->o->reps; i++) {
                for (size_t j = 0; j < n; j++) {
                    int sw = (int)(kappa_rand_next(&pt) >> 63);
                    bx[j] = sw ? y[j] : x[j];
                    by[j] = sw ? x[j] : y[j];
                }
                double dd = pair_value(r, sd->id, g, bx, n) - pair_value(r, sd->id, g, by, n);
                if (isfinite(dd) && fabs(dd) >= fabs(diff) - tol) ge++;
            }
            p = (double)(1 + ge) / (double)(1 + r->o->reps);
        }
        if (add_row(r, d, pairpos, 0, name, xa, xb, diff, n, 1, lo, hi) < 0) goto out;
        r->rows[r->nrows - 1].p = isfinite(diff) ? p : NAN;
    }
    rc = 0;
out:
    free(g); free(x); free(y); free(bg); free(bx); free(by); free(rep);
    return rc;
}

/* The criterion of unit u as the name a note gives it. */
static const char *crit_name(const struct run *r, int32_t key)
{
    return key > 0 ? kappa_strtab_str(&r->t->crits, key - 1) : gname(r);
}

/* r->rated_here and r->crit_rated (see struct run) for the units of the
 * current group; notes, per rater that rated the group, the criteria of it
 * that it never rated, which --missing / --unrated then leave out.  -1 when
 * out of memory. */
static int rated_in_group(struct run *r, const int32_t *units, size_t nu)
{
    const kappa_table *t = r->t;
    size_t R = (size_t)t->raters.n, K = (size_t)t->crits.n + 1;
    free(r->rated_here);
    free(r->crit_rated);
    r->crit_rated = NULL;
    r->rated_here = calloc(R ? R : 1, 1);
    if (!r->rated_here) return -1;
    if (!t->seen) {   /* nothing is filled in: only whether each rater rated the group */
        size_t left = R;
        for (size_t q = 0; q < nu && left; q++)
            for (size_t k = 0; k < R; k++)
                if (!r->rated_here[k] && cell_at(r, UNIT(units, q), (int32_t)k) >= 0) {
                    r->rated_here[k] = 1;
                    left--;
                }
        return 0;
    }
    unsigned char *present = calloc(K, 1);
    size_t *keys = malloc(K * sizeof *keys), nkeys = 0;   /* the criteria present, in order */
    r->crit_rated = calloc((K * R + 7) / 8 + 1, 1);
    if (!present || !keys || !r->crit_rated) { free(present); free(keys); return -1; }
    for (size_t q = 0; q < nu; q++) {
        int32_t u = UNIT(units, q);
        size_t c = (size_t)(kappa_unit_crit(t, u) + 1);
        if (!present[c]) keys[nkeys++] = c;
        present[c] = 1;
        for (size_t k = 0; k < R; k++)
            if (cell_at(r, u, (int32_t)k) >= 0) {
                size_t b = c * R + k;
                r->crit_rated[b / 8] |= (unsigned char)(1u << (b % 8));
                r->rated_here[k] = 1;
            }
    }
    if (!r->o->quiet)
        for (size_t k = 0; k < R; k++) {
            if (!r->rated_here[k]) continue;
            for (size_t i = 0; i < nkeys; i++) {
                size_t c = keys[i], b = c * R + k;
                if (!((r->crit_rated[b / 8] >> (b % 8)) & 1))
                    fprintf(r->err, "kappa: note: group '%s': %s never rated criterion '%s'; its "
                            "units are left out for %s (not counted as --missing or --unrated)\n",
                            gname(r), rname(r, (int32_t)k), crit_name(r, (int32_t)c),
                            rname(r, (int32_t)k));
            }
        }
    free(present);
    free(keys);
    return 0;
}

static int run_group(struct run *r, const int32_t *units, size_t nu, const int32_t *sel_all,
                     int nsel_all, int32_t ref)
{
    kappa_table *t = r->t;
    int rc = -1;
    int32_t *sel = malloc(((size_t)t->raters.n + 1) * sizeof *sel);
    int *a = NULL, *b = NULL;
    int32_t *pairs = NULL;
    struct sets s = { 0 };
    size_t gcap = 0, pcap = 0;
    const struct statdef *defs[NSTATS + 4];
    if (!sel) goto out;
    if (r->both_unit) {   /* a group of the --both criterion alone has no label sets */
        size_t q = 0;
        while (q < nu && both_crit_unit(r, UNIT(units, q))) q++;
        if (q == nu) { rc = 0; goto out; }
    }

    if (rated_in_group(r, units, nu) < 0) goto out;
    int nsel = group_raters(r, units, nu, sel_all, nsel_all, ref, sel);
    int nout = 0;
    {   /* a rater that rated no unit of the group is left out of it, with a note */
        int w = 0;
        for (int i = 0; i < nsel; i++)
            if (r->rated_here[sel[i]]) sel[w++] = sel[i];
        nsel = w;
        int ncand = sel_all ? nsel_all : (int)t->raters.n;
        for (int i = 0; i < ncand; i++) {
            int32_t q = sel_all ? sel_all[i] : (int32_t)i;
            if (r->rated_here[q] || (!sel_all && ref >= 0 && q != ref && !r->rated_here[ref]))
                continue;
            nout++;
            if (!r->o->quiet)
                fprintf(r->err, "kappa: note: group '%s': %s rated none of its units; left out "
                        "there%s\n", gname(r), rname(r, q),
                        t->seen ? " (not counted as --missing or --unrated)" : "");
        }
    }
    int only_single = 0;   /* --stat names single-rater statistics only (mean) */
    if (r->o->stats) {
        const struct statdef *sd[NSTATS];
        int ns = parse_stats(r->o->stats, sd, (int)NSTATS, NULL);
        only_single = ns > 0;
        for (int i = 0; i < ns; i++) only_single &= sd[i]->kind == SINGLE;
    }
    if (nsel < 1 || (nsel < 2 && !only_single && nout)) { rc = 0; goto out; }
    if (nsel < 2 && !only_single) {
        warnf(r, "group '%s': fewer than two raters, nothing to compare", gname(r));
        rc = 0;
        goto out;
    }
    if (build_codes(r, units, nu, sel, nsel) < 0) goto out;
    if (r->tax_dom) {   /* --taxonomy: a group with no label of it (error-count) is no label group */
        int any = 0;
        for (int32_t v = 0; v < t->values.n && !any; v++) any = r->code_of[v] >= 0 && r->tax_dom[v];
        if (!any) {
            if (!r->o->quiet)
                fprintf(r->err, "kappa: note: group '%s' holds no label of the taxonomy; left "
                        "out\n", gname(r));
            rc = 0;
            goto out;
        }
    }
    int nd = group_stats(r, nsel, ref, defs);
    for (int i = 0; i < nd; i++)
        if (defs[i]->ordered && !r->numeric) { ordered_error(r, defs[i]); goto out; }

    int any_pair = 0;
    for (int d = 0; d < nd; d++) any_pair |= defs[d]->kind == PAIR || defs[d]->kind == LABEL;
    int npairs = 0;
    pairs = malloc(((size_t)nsel * (size_t)nsel + 1) * 2 * sizeof *pairs);
    if (!pairs) goto out;
    if (any_pair) {
        a = malloc((nu ? nu : 1) * sizeof *a);
        b = malloc((nu ? nu : 1) * sizeof *b);
        if (!a || !b) goto out;
        npairs = make_pairs(sel, nsel, ref, pairs);
    }
    int by_table = pairs_by_table(r, defs, nd, nu);
    int pooled = -1;
    for (int d = 0; d < nd; d++)
        if (defs[d]->id == S_L_RECALL_POOLED) pooled = d;
    free(r->pool_tp);
    free(r->pool_fn);
    r->pool_tp = r->pool_fn = NULL;
    if (pooled >= 0) {
        size_t cells = ((size_t)npairs + 1) * ((size_t)t->values.n + 1);
        r->pool_tp = calloc(cells, sizeof *r->pool_tp);
        r->pool_fn = calloc(cells, sizeof *r->pool_fn);
        if (!r->pool_tp || !r->pool_fn) goto out;
    }
    for (int pairpos = 0; pairpos < npairs; pairpos++) {
        int32_t ra = pairs[2 * pairpos], rb = pairs[2 * pairpos + 1];
        if (by_table) {
            if (pair_by_table(r, defs, nd, units, nu, pairpos, ra, rb) < 0) goto out;
            continue;
        }
        size_t n = 0, only_a = 0, only_b = 0;
        if (r->o->multilabel) {
            long m = pair_label_sets(r, units, nu, ra, rb, &s, &gcap, &pcap, &only_a, &only_b);
            if (m < 0) goto out;
            n = (size_t)m;
            label_notes(r, ra, rb, n);
        } else {
            n = pair_codes(r, units, nu, ra, rb, a, b, &only_a, &only_b);
        }
        if (coverage_note(r, ra, rb, only_a, only_b) < 0) goto out;
        for (int d = 0; d < nd; d++) {
            int e = 0;
            if (defs[d]->kind == PAIR) e = do_pair(r, defs[d], d, pairpos, ra, rb, a, b, n, only_a, only_b);
            else if (defs[d]->kind == LABEL) e = do_label(r, defs[d], d, pairpos, ra, rb, &s);
            if (e < 0) goto out;
        }
    }
    if (pooled >= 0 && pooled_rows(r, pooled, npairs, ref) < 0) goto out;
    if (r->cmp_a >= 0 && ref >= 0) {
        int ina = 0, inb = 0;
        for (int i = 0; i < nsel; i++) { ina |= sel[i] == r->cmp_a; inb |= sel[i] == r->cmp_b; }
        if (ina && inb && compare_rows(r, defs, nd, units, nu, ref, npairs) < 0) goto out;
    }
    if (multi_stats(r, defs, nd, units, nu, sel, nsel) < 0) goto out;
    if (single_rows(r, defs, nd, units, nu, sel, nsel) < 0) goto out;
    rc = 0;
out:
    if (rc < 0 && r->status == 0) { fprintf(r->err, "kappa: out of memory\n"); r->status = 2; }
    free(sel); free(a); free(b); free(pairs);
    free(s.ga); free(s.pb); free(s.gm); free(s.pm); free(s.goff); free(s.poff);
    return rc;
}

/* ---- printing ---------------------------------------------------------------- */

static void fmt_num(char *buf, size_t len, double v, int digits)
{
    if (!isfinite(v)) { snprintf(buf, len, "NA"); return; }   /* as the warnings say */
    /* fixed decimals up to 1e15; beyond, the exponent form (a fixed form of
     * 1e308 has 309 digits: it would not fit the cell) */
    snprintf(buf, len, fabs(v) < 1e15 ? "%.*f" : "%.*e", digits, v);
    if (buf[0] == '-') {   /* no "-0.000" */
        int zero = 1;
        for (const char *p = buf + 1; *p; p++) if (*p >= '1' && *p <= '9') zero = 0;
        if (zero) memmove(buf, buf + 1, strlen(buf));
    }
}

static int is_count(const struct row *w)
{
    return !strcmp(w->stat, "tp") || !strcmp(w->stat, "fp") || !strcmp(w->stat, "fn") ||
           !strcmp(w->stat, "tn") || !strncmp(w->stat, "rated-", 6);
}

/* Printed cells are cut at CELL bytes (a label-recall row names its label). */
#define CELL 256
static void cells_of(const struct run *r, const struct row *w, char c[9][CELL])
{
    snprintf(c[0], CELL, "%s", kappa_strtab_str(&r->t->groups, w->group));
    snprintf(c[1], CELL, "%s", w->stat);
    snprintf(c[2], CELL, "%s", rname(r, w->ra));
    snprintf(c[3], CELL, "%s", rname(r, w->rb));
    if (is_count(w)) snprintf(c[4], CELL, "%.0f", w->value);
    else fmt_num(c[4], CELL, w->value, r->o->digits);
    snprintf(c[5], CELL, "%zu", w->n);
    if (w->has_ci) {
        fmt_num(c[6], CELL, w->lo, r->o->digits);
        fmt_num(c[7], CELL, w->hi, r->o->digits);
    } else {
        snprintf(c[6], CELL, "NA");
        snprintf(c[7], CELL, "NA");
    }
    if (isfinite(w->p)) snprintf(c[8], CELL, "%.*g", r->o->digits > 0 ? r->o->digits : 1, w->p);
    else snprintf(c[8], CELL, "NA");
}

static const char *const HEAD[9] = { "group", "stat", "rater-a", "rater-b", "value", "n",
                                     "ci-low", "ci-high", "p" };

static int print_rows(struct run *r, FILE *out)
{
    const struct kappa_opts *o = r->o;
    if (o->format == KAPPA_FMT_JSON) {   /* JSON Lines: one object per row */
        for (size_t i = 0; i < r->nrows; i++) {
            const struct row *w = &r->rows[i];
            cJSON *obj = cJSON_CreateObject();
            if (!obj) return -1;
            cJSON_AddStringToObject(obj, "group", kappa_strtab_str(&r->t->groups, w->group));
            cJSON_AddStringToObject(obj, "stat", w->stat);
            cJSON_AddStringToObject(obj, "rater-a", rname(r, w->ra));
            if (w->rb != -2) cJSON_AddStringToObject(obj, "rater-b", rname(r, w->rb));
            if (isfinite(w->value)) cJSON_AddNumberToObject(obj, "value", w->value);
            cJSON_AddNumberToObject(obj, "n", (double)w->n);
            if (w->has_ci && isfinite(w->lo)) cJSON_AddNumberToObject(obj, "ci-low", w->lo);
            if (w->has_ci && isfinite(w->hi)) cJSON_AddNumberToObject(obj, "ci-high", w->hi);
            if (isfinite(w->p)) cJSON_AddNumberToObject(obj, "p", w->p);
            char *js = cJSON_PrintUnformatted(obj);
            cJSON_Delete(obj);
            if (!js) return -1;
            fputs(js, out);
            fputc('\n', out);
            cJSON_free(js);
        }
        return 0;
    }
    char c[9][CELL];
    if (o->format == KAPPA_FMT_TSV) {
        fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", HEAD[0], HEAD[1], HEAD[2], HEAD[3],
                HEAD[4], HEAD[5], HEAD[6], HEAD[7], HEAD[8]);
        for (size_t i = 0; i < r->nrows; i++) {
            cells_of(r, &r->rows[i], c);
            fprintf(out, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c[0], c[1], c[2], c[3], c[4],
                    c[5], c[6], c[7], c[8]);
        }
        return 0;
    }
    /* table: aligned columns, text left, numbers right; no CI columns unless
     * asked or a row has one, no p column unless a row has a p-value */
    int anyci = o->ci > 0, anyp = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        anyci |= r->rows[i].has_ci;
        anyp |= isfinite(r->rows[i].p);
    }
    int col[9], ncol = 0;
    for (int j = 0; j < 9; j++)
        if ((j < 6) || (j < 8 && anyci) || (j == 8 && anyp)) col[ncol++] = j;
    size_t wd[9];
    for (int j = 0; j < 9; j++) wd[j] = strlen(HEAD[j]);
    for (size_t i = 0; i < r->nrows; i++) {
        cells_of(r, &r->rows[i], c);
        for (int j = 0; j < 9; j++) if (strlen(c[j]) > wd[j]) wd[j] = strlen(c[j]);
    }
    for (int x = 0; x < ncol; x++) {
        int j = col[x];
        fprintf(out, j < 4 ? "%-*s%s" : "%*s%s", (int)wd[j], HEAD[j], x + 1 < ncol ? "  " : "\n");
    }
    for (size_t i = 0; i < r->nrows; i++) {
        cells_of(r, &r->rows[i], c);
        for (int x = 0; x < ncol; x++) {
            int j = col[x];
            fprintf(out, j < 4 ? "%-*s%s" : "%*s%s", (int)wd[j], c[j], x + 1 < ncol ? "  " : "\n");
        }
    }
    return 0;
}

static int cmp_row(const void *x, const void *y)
{
    const struct row *a = x, *b = y;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->statpos != b->statpos) return a->statpos < b->statpos ? -1 : 1;
    if (a->pairpos != b->pairpos) return a->pairpos < b->pairpos ? -1 : 1;
    return (a->sub > b->sub) - (a->sub < b->sub);
}

/* ---- the run --------------------------------------------------------------- */

static int32_t rater_id(struct run *r, const char *name, size_t len, const char *opt)
{
    int32_t id = kappa_strtab_find(&r->t->raters, name, len);
    if (id < 0) {
        fprintf(r->err, "kappa: %s: no rater '%.*s' in the input; raters are:", opt, (int)len, name);
        for (int32_t i = 0; i < r->t->raters.n && i < 50; i++)
            fprintf(r->err, " %s", kappa_strtab_str(&r->t->raters, i));
        if (r->t->raters.n > 50) fprintf(r->err, " ...");
        fputc('\n', r->err);
    }
    return id;
}

/* --taxonomy FILE: r->tax_dom for the labels DOMAIN::LABEL of the file
 * (lines domain<TAB>label[<TAB>definition], # comments). -1 after the error. */
static int load_taxonomy(struct run *r, const char *path)
{
    kappa_table *t = r->t;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(r->err, "kappa: --taxonomy %s: %s\n", path, strerror(errno));
        return -1;
    }
    r->tax_dom = calloc((size_t)t->values.n + 1, 1);
    char line[4096], doms[64][128];
    int ndom = 0, ln = 0, rc = r->tax_dom ? 0 : -1;
    if (rc) fprintf(r->err, "kappa: out of memory\n");
    while (rc == 0 && fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#') continue;
        char *tab = strchr(line, '\t');
        char *end = tab ? strchr(tab + 1, '\t') : NULL;
        if (end) *end = 0;
        if (!tab || tab == line || !tab[1] || tab - line >= 128) {
            fprintf(r->err, "%s:%d:1: error: expected domain<TAB>label<TAB>definition\n", path, ln);
            rc = -1;
            break;
        }
        *tab = 0;
        int d = 0;
        while (d < ndom && strcmp(doms[d], line) != 0) d++;
        if (d == ndom) {
            if (ndom == 64) {
                fprintf(r->err, "%s:%d:1: error: more than 64 domains\n", path, ln);
                rc = -1;
                break;
            }
            memcpy(doms[ndom++], line, (size_t)(tab - line) + 1);   /* < 128, checked */
        }
        char key[4200];
        int kl = snprintf(key, sizeof key, "%s::%s", line, tab + 1);
        int32_t v = kappa_strtab_find(&t->values, key, (size_t)kl);
        if (v >= 0) r->tax_dom[v] = (unsigned char)(d + 1);
    }
    fclose(f);
    return rc;
}

/* A note on the labels listed more than once for the same item and rater
 * (judge writes one error-type row per error): how they count. */
static void repeat_note(const struct run *r)
{
    const kappa_table *t = r->t;
    long n = 0;
    for (size_t i = 0; i < t->nx; i++) {   /* the extras, sorted by cell and label */
        int32_t v = t->x_value[i];
        size_t c = t->x_cell[i];
        if (v != r->none_value &&
            ((i > 0 && t->x_cell[i - 1] == c && t->x_value[i - 1] == v) || kappa_cell(t, c) == v))
            n++;
    }
    if (n == 0 || r->o->quiet) return;
    const struct statdef *defs[NSTATS];
    int nd = parse_stats(r->o->stats, defs, (int)NSTATS, NULL), pooled = 0;
    for (int i = 0; i < nd; i++) pooled |= defs[i]->id == S_L_RECALL_POOLED;
    fprintf(r->err, "kappa: note: %ld label%s listed again for the same item and rater: %s\n",
            n, n == 1 ? "" : "s",
            pooled ? "label-recall-pooled counts every listing (an instance), the other label "
                     "statistics a label once (sets)"
                   : "counted once (label sets; label-recall-pooled would count instances)");
}

/* --both CRITERION=VALUE: r->both_* (see struct run). -1 after the error. */
static int prepare_both(struct run *r)
{
    kappa_table *t = r->t;
    const char *eq = strchr(r->o->both, '=');
    size_t cl = (size_t)(eq - r->o->both);
    r->both_crit = kappa_strtab_find(&t->crits, r->o->both, cl);
    r->both_group = -1;
    for (int i = 0; i < t->nby; i++)
        if (strcmp(t->by[i], "criterion") == 0) {
            if (t->nby > 1) {
                fprintf(r->err, "kappa: --both: group by criterion alone, or not by it\n");
                return -1;
            }
            r->both_group = kappa_strtab_find(&t->groups, r->o->both, cl);
        }
    r->both_value = kappa_strtab_find(&t->values, eq + 1, strlen(eq + 1));
    r->both_unit = malloc(((size_t)t->nitems + 1) * sizeof *r->both_unit);
    if (!r->both_unit) { fprintf(r->err, "kappa: out of memory\n"); return -1; }
    for (int32_t i = 0; i < t->nitems; i++) r->both_unit[i] = -1;
    int any = 0;
    for (int32_t u = 0; u < t->nunits; u++)
        if (both_crit_unit(r, u)) {
            r->both_unit[kappa_unit_item(t, u)] = u;
            any = 1;
        }
    if (!any) {
        fprintf(r->err, "kappa: --both: no rating of criterion '%.*s' in the input\n", (int)cl,
                r->o->both);
        return -1;
    }
    if (r->both_value < 0) {
        fprintf(r->err, "kappa: --both: no rating is '%s' in the input\n", eq + 1);
        return -1;
    }
    return 0;
}

int kappa_run(kappa_table *t, const struct kappa_opts *o, FILE *out, FILE *err)
{
    struct run r = { 0 };
    r.t = t; r.o = o; r.err = err;
    r.fill_missing = r.fill_unrated = -1;
    r.cmp_a = r.cmp_b = -1;
    int32_t *sel = NULL, *gstart = NULL, *gunits = NULL;
    int nsel = 0;
    int32_t ref = -1;

    if (t->nerrors) return 2;
    if (t->nrows == 0) {
        fprintf(err, "kappa: no ratings in the input\n");
        return 2;
    }
    if (o->missing && kappa_table_value(t, o->missing) < 0) goto oom;
    if (o->unrated && kappa_table_value(t, o->unrated) < 0) goto oom;
    if (kappa_table_cells(t, o->missing || o->unrated, err) < 0) { r.status = 2; goto done; }
    if (o->missing) r.fill_missing = kappa_strtab_find(&t->values, o->missing, strlen(o->missing));
    if (o->unrated) r.fill_unrated = kappa_strtab_find(&t->values, o->unrated, strlen(o->unrated));
    r.none_value = kappa_strtab_find(&t->values, "none", 4);
    if (o->both && prepare_both(&r) < 0) { r.status = 2; goto done; }
    if (o->taxonomy && load_taxonomy(&r, o->taxonomy) < 0) { r.status = 2; goto done; }
    if (o->taxonomy && t->crits.n > 0) {   /* r.crit_tax: which criteria hold taxonomy labels */
        size_t R = (size_t)t->raters.n;
        r.crit_tax = calloc((size_t)t->crits.n, 1);
        if (!r.crit_tax) goto oom;
        for (int32_t u = 0; u < t->nunits; u++) {
            int32_t c = kappa_unit_crit(t, u);
            if (c < 0 || r.crit_tax[c]) continue;
            for (size_t k = 0; k < R && !r.crit_tax[c]; k++) {
                int32_t v = kappa_cell(t, (size_t)u * R + k);
                if (v >= 0 && r.tax_dom[v]) r.crit_tax[c] = 1;
            }
        }
        for (size_t i = 0; i < t->nx; i++) {
            int32_t c = kappa_unit_crit(t, (int32_t)(t->x_cell[i] / R));
            if (c >= 0 && r.tax_dom[t->x_value[i]]) r.crit_tax[c] = 1;
        }
    }

    if (o->raters) {
        sel = malloc(((size_t)t->raters.n + 1) * sizeof *sel);
        if (!sel) goto oom;
        const char *p = o->raters;
        for (;;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (len) {
                int32_t id = rater_id(&r, p, len, "--raters");
                if (id < 0) { r.status = 2; goto done; }
                int dup = 0;
                for (int i = 0; i < nsel; i++) dup |= sel[i] == id;
                if (!dup) sel[nsel++] = id;
            }
            if (!e) break;
            p = e + 1;
        }
        if (nsel < 2 && !o->reference) {
            fprintf(err, "kappa: --raters names fewer than two raters\n");
            r.status = 2;
            goto done;
        }
    }
    if (o->reference) {
        ref = rater_id(&r, o->reference, strlen(o->reference), "--reference");
        if (ref < 0) { r.status = 2; goto done; }
        if (sel) {
            int in = 0;
            for (int i = 0; i < nsel; i++) in |= sel[i] == ref;
            if (!in) {
                memmove(sel + 1, sel, (size_t)nsel * sizeof *sel);
                sel[0] = ref;
                nsel++;
            }
        }
    }

    if (o->compare) {   /* --compare A,B: the two raters (checked: A,B with a reference) */
        const char *comma = strchr(o->compare, ',');
        r.cmp_a = rater_id(&r, o->compare, (size_t)(comma - o->compare), "--compare");
        r.cmp_b = r.cmp_a < 0 ? -1 : rater_id(&r, comma + 1, strlen(comma + 1), "--compare");
        if (r.cmp_a < 0 || r.cmp_b < 0) { r.status = 2; goto done; }
        if (r.cmp_a == ref || r.cmp_b == ref || r.cmp_a == r.cmp_b) {
            fprintf(err, "kappa: --compare names two raters other than the reference\n");
            r.status = 2;
            goto done;
        }
        if (!sel) {   /* compare the reference and these two only */
            sel = malloc(4 * sizeof *sel);
            if (!sel) goto oom;
            sel[0] = ref; sel[1] = r.cmp_a; sel[2] = r.cmp_b;
            nsel = 3;
        } else {
            int32_t want[2] = { r.cmp_a, r.cmp_b };
            for (int k = 0; k < 2; k++) {
                int in = 0;
                for (int i = 0; i < nsel; i++) in |= sel[i] == want[k];
                if (!in) sel[nsel++] = want[k];
            }
        }
    }
    r.code_of = malloc(((size_t)t->values.n + 1) * sizeof *r.code_of);
    gstart = calloc((size_t)t->groups.n + 1, sizeof *gstart);
    gunits = t->groups.n > 1 ? malloc(((size_t)t->nunits + 1) * sizeof *gunits) : NULL;
    if (!r.code_of || !gstart || (t->groups.n > 1 && !gunits)) goto oom;
    if (t->groups.n == 1) gstart[1] = t->nunits;
    else for (int32_t u = 0; u < t->nunits; u++) gstart[kappa_unit_group(t, u) + 1]++;
    for (int32_t g = 0; g < t->groups.n; g++) gstart[g + 1] += gstart[g];
    {
        int32_t *fill = malloc(((size_t)t->groups.n + 1) * sizeof *fill);
        if (!fill) goto oom;
        memcpy(fill, gstart, (size_t)t->groups.n * sizeof *fill);
        if (gunits)
            for (int32_t u = 0; u < t->nunits; u++) gunits[fill[kappa_unit_group(t, u)]++] = u;
        free(fill);
    }
    if (o->multilabel) repeat_note(&r);
    for (int32_t g = 0; g < t->groups.n; g++) {
        r.g = g;
        if (run_group(&r, gunits ? gunits + gstart[g] : NULL, (size_t)(gstart[g + 1] - gstart[g]),
                      sel, nsel, ref) < 0)
            goto done;
    }
    if (r.nrows) qsort(r.rows, r.nrows, sizeof *r.rows, cmp_row);
    print_coverage(&r);
    if (print_rows(&r, out) < 0) goto oom;
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(err, "kappa: write error\n");
        r.status = 2;
    }
    goto done;
oom:
    fprintf(err, "kappa: out of memory\n");
    r.status = 2;
done:
    for (size_t i = 0; i < r.nrows; i++) free(r.rows[i].stat);
    free(r.rows); free(r.cov); free(r.code_of); free(r.levels); free(sel); free(gstart); free(gunits);
    free(r.both_unit); free(r.tax_dom); free(r.pool_tp); free(r.pool_fn);
    free(r.crit_rated); free(r.rated_here); free(r.crit_tax);
    return r.status;
}
