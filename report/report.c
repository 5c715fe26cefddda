/* report/report.c — the study report of irreport(1): the verdicts, their
 * statistics (kappa_run of stats/run.c, the same run kappa(1) makes) and
 * the HTML document.  See report/report.h. */
#include "report/report.h"

#include "draw/draw.h"
#include "ir/ir.h"
#include "ir/progress.h"
#include "stats/run.h"
#include "stats/table.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef DIAGRAMIR_VERSION
#define DIAGRAMIR_VERSION "0.1"
#endif

/* ---- the model ------------------------------------------------------------ */

struct vrow {                /* one verdict row of a table */
    int32_t item, crit, rater, value;
    size_t note;             /* offset in notes, or (size_t)-1 */
};

struct krow {                /* one row of kappa_run's output */
    int32_t crit, ra, rb;    /* ids in the report's tables */
    int stat;                /* 0 agreement, 1 cohen */
    double value, lo, hi;
    size_t n;
};

struct report {
    report_opts o;
    kappa_table *kt;
    struct kappa_strtab items, crits, raters, values;
    struct vrow *rows;
    size_t nrows, rcap;
    char *notes;
    size_t nlen, ncap;
    ir_diagram **diag;       /* per item id (NULL: none) */
    char **diag_at;          /* per item id: "file:line" of its diagram */
    int32_t dcap;
    int ntables, ndiagrams;
    /* computed by report_write */
    int32_t *sel;            /* the raters shown, reference first */
    int nsel;
    int32_t ref;
    struct krow *k;
    size_t nk;
    int32_t *pairs;          /* (ra, rb) in the order kappa printed them */
    int npairs;
    int32_t *cell;           /* (item * ncrit + crit) * nraters + rater -> row, or -1 */
    unsigned char *unit;     /* item * ncrit + crit: some rater rated it */
    unsigned char *seen;     /* item * nraters + rater: the rater rated the item */
    unsigned char *dis;      /* item * ncrit + crit: shown raters disagree */
    int *ndis;               /* per item */
};

static void *xgrow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *q = realloc(p, c * elem);
    if (!q) { fputs("irreport: out of memory\n", stderr); exit(2); }
    *cap = c;
    return q;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) { fputs("irreport: out of memory\n", stderr); exit(2); }
    return p;
}

static int32_t intern(struct kappa_strtab *s, const char *p, size_t len)
{
    int32_t id = kappa_strtab_intern(s, p, len);
    if (id < 0) { fputs("irreport: out of memory\n", stderr); exit(2); }
    return id;
}

static const char *S(const struct kappa_strtab *s, int32_t id) { return kappa_strtab_str(s, id); }

void report_opts_init(report_opts *o)
{
    memset(o, 0, sizeof *o);
    o->ci = 0.95;
    o->reps = 1000;
    o->seed = 1;
    o->digits = 3;
    o->pictures = 1;
    o->progress = PROGRESS_AUTO;
}

report *report_new(const report_opts *o)
{
    report *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->o = *o;
    r->kt = kappa_table_new("criterion", 0, KAPPA_DUP_ERROR);
    if (!r->kt) { free(r); return NULL; }
    return r;
}

void report_free(report *r)
{
    if (!r) return;
    kappa_table_free(r->kt);
    kappa_strtab_free(&r->items);
    kappa_strtab_free(&r->crits);
    kappa_strtab_free(&r->raters);
    kappa_strtab_free(&r->values);
    free(r->rows);
    free(r->notes);
    for (int32_t i = 0; i < r->dcap; i++) {
        ir_diagram_free(r->diag[i]);
        free(r->diag_at[i]);
    }
    free(r->diag);
    free(r->diag_at);
    free(r->sel);
    free(r->k);
    free(r->pairs);
    free(r->cell);
    free(r->unit);
    free(r->seen);
    free(r->dis);
    free(r->ndis);
    free(r);
}

int report_is_ir(const char *data, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && data[e] != '\n') e++;
        size_t s = i;
        while (s < e && (data[s] == ' ' || data[s] == '\t' || data[s] == '\r')) s++;
        if (s < e && data[s] != '#')
            return data[s] == '{' || (e - s >= 10 && !memcmp(data + s, "diagramir ", 10));
        i = e + 1;
    }
    return 0;
}

/* ---- reading ---------------------------------------------------------------- */

static void grow_items(report *r)
{
    int32_t n = r->items.n;
    if (n <= r->dcap) return;
    int32_t c = r->dcap ? r->dcap : 64;
    while (c < n) c *= 2;
    r->diag = realloc(r->diag, (size_t)c * sizeof *r->diag);
    r->diag_at = realloc(r->diag_at, (size_t)c * sizeof *r->diag_at);
    if (!r->diag || !r->diag_at) { fputs("irreport: out of memory\n", stderr); exit(2); }
    for (int32_t i = r->dcap; i < c; i++) { r->diag[i] = NULL; r->diag_at[i] = NULL; }
    r->dcap = c;
}

int report_add_ir(report *r, const char *data, size_t len, const char *name, FILE *err)
{
    if (len == 0) return 0;
    FILE *f = fmemopen((void *)data, len, "r");
    if (!f) { fprintf(err, "irreport: error: %s: cannot read\n", name); return -1; }
    ir_reader *rd = ir_reader_new(f, name);
    if (!rd) { fclose(f); fputs("irreport: out of memory\n", stderr); exit(2); }
    int rc = 0;
    for (;;) {
        ir_diagram *d = NULL;
        int st = ir_read_diagram(rd, &d);
        if (st == 0) break;
        if (st < 0) { fprintf(err, "%s\n", ir_reader_error(rd)); rc = -1; break; }
        const char *id = d->id ? d->id : "-";
        int32_t it = intern(&r->items, id, strlen(id));
        grow_items(r);
        if (r->diag[it]) {
            fprintf(err, "%s:%d:1: error: diagram '%s' appears twice (first at %s)\n", name,
                    d->irline, id, r->diag_at[it]);
            ir_diagram_free(d);
            rc = -1;
            break;
        }
        char at[64];
        snprintf(at, sizeof at, ":%d", d->irline);
        r->diag_at[it] = malloc(strlen(name) + strlen(at) + 1);
        if (!r->diag_at[it]) { fputs("irreport: out of memory\n", stderr); exit(2); }
        strcpy(r->diag_at[it], name);
        strcat(r->diag_at[it], at);
        r->diag[it] = d;
        r->ndiagrams++;
    }
    ir_reader_free(rd);
    fclose(f);
    return rc;
}

/* Splits line p[0..len) at tabs into at most max fields; returns their number. */
static int split_tabs(const char *p, size_t len, const char **f, size_t *fl, int max)
{
    int n = 0;
    size_t s = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || p[i] == '\t') {
            if (n < max) { f[n] = p + s; fl[n] = i - s; }
            n++;
            s = i + 1;
        }
    }
    return n;
}

static int col_of(const char **f, const size_t *fl, int n, const char *name)
{
    size_t l = strlen(name);
    for (int i = 0; i < n && i < 64; i++)
        if (fl[i] == l && !memcmp(f[i], name, l)) return i;
    return -1;
}

int report_add_table(report *r, const char *data, size_t len, const char *name, FILE *err)
{
    /* kappa's reader first: it checks the table and reports errors as kappa does */
    if (kappa_table_read_buffer(r->kt, data, len, name, err) < 0) return -1;
    r->ntables++;
    /* then the rows, with their notes, for the matrices and the gallery (the
     * table is well formed: kappa's reader said so) */
    int have = 0, ci = -1, cc = -1, cr = -1, cv = -1, cn = -1;
    size_t i = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && data[e] != '\n') e++;
        size_t l = e - i;
        const char *p = data + i;
        i = e + 1;
        if (l && p[l - 1] == '\r') l--;
        if (l == 0 || p[0] == '#') continue;
        const char *f[64];
        size_t fl[64];
        int n = split_tabs(p, l, f, fl, 64);
        if (n > 64) continue;
        int item = col_of(f, fl, n, "item");
        if (item >= 0 && (!have || (col_of(f, fl, n, "rater") >= 0 && col_of(f, fl, n, "value") >= 0))) {
            have = 1;
            ci = item;
            cc = col_of(f, fl, n, "criterion");
            cr = col_of(f, fl, n, "rater");
            cv = col_of(f, fl, n, "value");
            cn = col_of(f, fl, n, "note");
            continue;
        }
        if (!have || cc < 0 || ci >= n || cr >= n || cv >= n || cc >= n) continue;
        struct vrow w;
        w.item = intern(&r->items, f[ci], fl[ci]);
        w.crit = intern(&r->crits, f[cc], fl[cc]);
        w.rater = intern(&r->raters, f[cr], fl[cr]);
        w.value = intern(&r->values, f[cv], fl[cv]);
        w.note = (size_t)-1;
        if (cn >= 0 && cn < n && fl[cn]) {
            r->notes = xgrow(r->notes, &r->ncap, r->nlen + fl[cn] + 1, 1);
            w.note = r->nlen;
            memcpy(r->notes + r->nlen, f[cn], fl[cn]);
            r->nlen += fl[cn];
            r->notes[r->nlen++] = 0;
        }
        r->rows = xgrow(r->rows, &r->rcap, r->nrows + 1, sizeof *r->rows);
        r->rows[r->nrows++] = w;
    }
    grow_items(r);
    return 0;
}

/* ---- statistics ---------------------------------------------------------------- */

/* Copies kappa_run's messages to err as irreport's. */
static void relay(const char *msg, FILE *err)
{
    const char *p = msg;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p + 1) : strlen(p);
        if (l >= 7 && !memcmp(p, "kappa: ", 7)) {
            fputs("irreport: ", err);
            fwrite(p + 7, 1, l - 7, err);
        } else {
            fwrite(p, 1, l, err);
        }
        p += l;
    }
}

static double json_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *json_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Runs kappa over the tables; fills r->k and r->pairs.  Returns 0 or 2. */
static int run_kappa(report *r, FILE *err)
{
    struct kappa_opts ko;
    kappa_opts_init(&ko);
    ko.by = "criterion";
    ko.raters = r->o.raters;
    ko.reference = r->o.all_pairs ? NULL : S(&r->raters, r->ref);
    ko.missing = r->o.missing;
    ko.unrated = r->o.unrated;
    ko.stats = "agreement,cohen";
    ko.ci = r->o.ci;
    ko.reps = r->o.reps;
    ko.seed = r->o.seed;
    ko.format = KAPPA_FMT_JSON;
    ko.quiet = r->o.quiet;
    char *obuf = NULL, *ebuf = NULL;
    size_t olen = 0, elen = 0;
    FILE *out = open_memstream(&obuf, &olen), *em = open_memstream(&ebuf, &elen);
    if (!out || !em) { fputs("irreport: out of memory\n", stderr); exit(2); }
    int st = kappa_opts_check(&ko, em);
    if (st == 0) st = kappa_run(r->kt, &ko, out, em);
    else st = 2;
    fclose(out);
    fclose(em);
    relay(ebuf, err);
    free(ebuf);
    if (st) { free(obuf); return 2; }
    /* kappa's JSON output is JSON Lines: one object per row */
    size_t n = 0;
    for (const char *p = obuf; p && *p; p++) n += *p == '\n';
    r->k = xcalloc(n + 1, sizeof *r->k);
    r->pairs = xcalloc(n * 2 + 2, sizeof *r->pairs);
    for (char *line = obuf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl) *nl = 0;
        cJSON *o = cJSON_Parse(line);
        if (!cJSON_IsObject(o)) {
            fputs("irreport: error: internal: a line of kappa's output is not a JSON object\n", err);
            cJSON_Delete(o);
            free(obuf);
            return 2;
        }
        const char *g = json_str(o, "group"), *s = json_str(o, "stat");
        const char *a = json_str(o, "rater-a"), *b = json_str(o, "rater-b");
        struct krow w;
        w.crit = kappa_strtab_find(&r->crits, g, strlen(g));
        w.ra = kappa_strtab_find(&r->raters, a, strlen(a));
        w.rb = kappa_strtab_find(&r->raters, b, strlen(b));
        w.stat = !strcmp(s, "cohen");
        w.value = json_num(o, "value");
        w.lo = json_num(o, "ci-low");
        w.hi = json_num(o, "ci-high");
        double nn = json_num(o, "n");
        w.n = isfinite(nn) && nn >= 0 ? (size_t)nn : 0;
        cJSON_Delete(o);
        if (w.crit < 0 || w.ra < 0 || w.rb < 0) continue;
        r->k[r->nk++] = w;
        int known = 0;
        for (int p = 0; p < r->npairs; p++)
            known |= r->pairs[2 * p] == w.ra && r->pairs[2 * p + 1] == w.rb;
        if (!known) {
            r->pairs[2 * r->npairs] = w.ra;
            r->pairs[2 * r->npairs + 1] = w.rb;
            r->npairs++;
        }
    }
    free(obuf);
    return 0;
}

static const struct krow *krow_of(const report *r, int32_t c, int stat, int32_t ra, int32_t rb)
{
    for (size_t i = 0; i < r->nk; i++)
        if (r->k[i].crit == c && r->k[i].stat == stat && r->k[i].ra == ra && r->k[i].rb == rb)
            return &r->k[i];
    return NULL;
}

static int is_na_word(const char *s) { return !strcmp(s, "na") || !strcmp(s, "NA"); }

/* The categories of one criterion, as kappa codes them. */
struct cats {
    int numeric;
    int k;
    int *code_of;            /* per value id: code, -1 none (NA) */
    int32_t *label;          /* per code: a value id that has it */
};

static int is_num(const char *s, double *v)
{
    return kappa_parse_number(s, strlen(s), v);
}

static const report *cat_ctx;
static int cat_numeric;
static int cmp_cat(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    const char *sa = S(&cat_ctx->values, a), *sb = S(&cat_ctx->values, b);
    if (cat_numeric) {
        double da = 0, db = 0;
        is_num(sa, &da);
        is_num(sb, &db);
        if (da != db) return da < db ? -1 : 1;
        return strcmp(sa, sb);
    }
    /* yes, no, na first (the rubric's verdicts, in the order people read them) */
    static const char *const first[] = { "yes", "no", "na" };
    int ra = 3, rb = 3;
    for (int i = 0; i < 3; i++) {
        if (!strcmp(sa, first[i])) ra = i;
        if (!strcmp(sb, first[i])) rb = i;
    }
    if (ra != rb) return ra - rb;
    return strcmp(sa, sb);
}

static int32_t fill_value(report *r, const char *s)
{
    return s ? intern(&r->values, s, strlen(s)) : -1;
}

static void build_cats(report *r, int32_t c, struct cats *ct, int32_t fm, int32_t fu)
{
    int32_t nv = r->values.n, ncrit = r->crits.n, nr = r->raters.n;
    unsigned char *used = xcalloc((size_t)nv, 1);
    for (int32_t it = 0; it < r->items.n; it++)
        for (int s = 0; s < r->nsel; s++) {
            int32_t w = r->cell[((size_t)it * (size_t)ncrit + (size_t)c) * (size_t)nr + (size_t)r->sel[s]];
            if (w >= 0) used[r->rows[w].value] = 1;
        }
    if (fm >= 0) used[fm] = 1;
    if (fu >= 0) used[fu] = 1;
    int nnum = 0, nlab = 0;
    for (int32_t v = 0; v < nv; v++) {
        if (!used[v]) continue;
        double d;
        if (is_num(S(&r->values, v), &d)) nnum++;
        else if (!is_na_word(S(&r->values, v))) nlab++;
    }
    ct->numeric = nnum > 0 && nlab == 0;
    int32_t *ids = xcalloc((size_t)nv, sizeof *ids);
    int n = 0;
    ct->code_of = xcalloc((size_t)nv, sizeof *ct->code_of);
    for (int32_t v = 0; v < nv; v++) {
        ct->code_of[v] = -1;
        if (!used[v]) continue;
        double d;
        if (ct->numeric && !is_num(S(&r->values, v), &d)) continue;
        ids[n++] = v;
    }
    cat_ctx = r;
    cat_numeric = ct->numeric;
    if (n) qsort(ids, (size_t)n, sizeof *ids, cmp_cat);
    ct->label = xcalloc((size_t)n, sizeof *ct->label);
    ct->k = 0;
    for (int i = 0; i < n; i++) {
        double a, b;
        if (ct->numeric && i > 0 && is_num(S(&r->values, ids[i]), &a) &&
            is_num(S(&r->values, ids[i - 1]), &b) && a == b) {
            ct->code_of[ids[i]] = ct->k - 1;
            continue;
        }
        ct->label[ct->k] = ids[i];
        ct->code_of[ids[i]] = ct->k++;
    }
    free(ids);
    free(used);
}

static void free_cats(struct cats *ct)
{
    free(ct->code_of);
    free(ct->label);
}

/* The confusion matrix of raters ra (rows) and rb (columns) on criterion c,
 * paired as kappa pairs them (--missing, --unrated); m has k * k counts. */
static size_t confusion(const report *r, int32_t c, const struct cats *ct, int32_t ra, int32_t rb,
                        int32_t fm, int32_t fu, uint64_t *m, size_t *only_a, size_t *only_b)
{
    size_t n = 0, ncrit = (size_t)r->crits.n, nr = (size_t)r->raters.n;
    for (int32_t it = 0; it < r->items.n; it++) {
        size_t u = (size_t)it * ncrit + (size_t)c;
        if (!r->unit[u]) continue;
        int32_t wa = r->cell[u * nr + (size_t)ra], wb = r->cell[u * nr + (size_t)rb];
        int32_t va = wa >= 0 ? r->rows[wa].value : -1, vb = wb >= 0 ? r->rows[wb].value : -1;
        int pa = va >= 0 && ct->code_of[va] >= 0, pb = vb >= 0 && ct->code_of[vb] >= 0;
        if (!pa && !pb) continue;
        if (va < 0) va = r->seen[(size_t)it * nr + (size_t)ra] ? fm : fu;
        if (vb < 0) vb = r->seen[(size_t)it * nr + (size_t)rb] ? fm : fu;
        int ca = va >= 0 ? ct->code_of[va] : -1, cb = vb >= 0 ? ct->code_of[vb] : -1;
        if (ca < 0 || cb < 0) {
            if (ca < 0) (*only_b)++; else (*only_a)++;
            continue;
        }
        m[(size_t)ca * (size_t)ct->k + (size_t)cb]++;
        n++;
    }
    return n;
}

/* ---- HTML ------------------------------------------------------------------------ */

static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* A number as kappa prints it (%.*f, nan, no "-0.000"). */
static void fmt_num(char *buf, size_t len, double v, int digits)
{
    if (isnan(v)) { snprintf(buf, len, "nan"); return; }
    if (isinf(v)) { snprintf(buf, len, v > 0 ? "inf" : "-inf"); return; }
    snprintf(buf, len, "%.*f", digits, v);
    if (buf[0] == '-') {
        int zero = 1;
        for (const char *p = buf + 1; *p; p++) if (*p >= '1' && *p <= '9') zero = 0;
        if (zero) memmove(buf, buf + 1, strlen(buf));
    }
}

/* The class of a verdict cell: y, n, a (na) or o (other). */
static char vclass(const char *v)
{
    if (!strcmp(v, "yes")) return 'y';
    if (!strcmp(v, "no")) return 'n';
    if (is_na_word(v)) return 'a';
    return 'o';
}

static const char CSS[] =
    ":root{--fg:#1d2430;--mut:#5b6575;--line:#d9dee6;--bg:#f6f7f9;--card:#fff;--y:#1f7a3a;--yb:#e3f4e7;"
    "--n:#b3261e;--nb:#fbe5e3;--a:#59616d;--ab:#eceef1;--o:#2d4f9e;--ob:#e5ebf8}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Open Sans',sans-serif;"
    "color:var(--fg);background:var(--bg)}\n"
    "header,main>section{max-width:1400px;margin:0 auto;padding:0 24px}\n"
    "header{padding-top:20px}\nh1{font-size:24px;margin:0 0 4px}\n"
    "h2{font-size:18px;margin:28px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}\n"
    "h3{font-size:14px;margin:0}\n.meta{color:var(--mut);margin:0}\n"
    "nav{margin:8px 0 0}nav a{margin-right:14px;color:var(--o)}\n"
    "table{border-collapse:collapse}\n"
    ".kt{background:var(--card);border:1px solid var(--line)}\n"
    ".kt th,.kt td{padding:3px 10px;border-bottom:1px solid var(--line);text-align:left;"
    "font-variant-numeric:tabular-nums}\n"
    ".kt td.v,.kt td.n,.kt td.ci{text-align:right}.kt td.ci{color:var(--mut)}\n"
    ".kt tbody{border-top:2px solid var(--line)}.kt tbody th{vertical-align:top;padding-top:5px}\n"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;"
    "vertical-align:baseline}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:16px;margin:8px 0 16px}\n"
    ".chart{background:var(--card);border:1px solid var(--line);padding:8px}\n"
    ".chart h3{margin:0 0 4px}.chart p{margin:0;color:var(--mut);font-size:12px}\n"
    ".cmh{margin:14px 0 6px}\n"
    ".cms{display:flex;flex-wrap:wrap;gap:12px}\n"
    ".cm{background:var(--card);border:1px solid var(--line);padding:8px;width:min-content;min-width:200px}\n"
    ".cm h4{margin:0;font-size:13px}.cm h4 small{color:var(--mut);font-weight:400}\n"
    ".cm th.cn{font-weight:400;color:var(--mut);font-size:11px;text-align:left;white-space:nowrap}\n"
    ".cm table{margin-top:4px;font-variant-numeric:tabular-nums}\n"
    ".cm th,.cm td{padding:2px 8px;text-align:right;border:1px solid var(--line)}\n"
    ".cm th{background:#fafbfc;font-weight:600}.cm td.d{background:var(--yb);font-weight:600}\n"
    ".cm td.z{color:#b0b6bf}.cm p{margin:4px 0 0;color:var(--mut);font-size:12px}\n"
    ".filters{position:sticky;top:0;z-index:2;background:var(--bg);padding:8px 0;"
    "border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:6px 18px;align-items:center}\n"
    "#g{display:flex;flex-direction:column;gap:12px;margin:14px 0 40px}\n"
    ".card{background:var(--card);border:1px solid var(--line);border-radius:6px;padding:10px 12px;"
    "display:grid;grid-template-columns:minmax(200px,360px) minmax(0,1fr);gap:6px 18px;"
    "align-items:start;content-visibility:auto;contain-intrinsic-size:auto 380px;scroll-margin-top:56px}\n"
    ".np .card{grid-template-columns:minmax(0,1fr);contain-intrinsic-size:auto 300px}\n"
    "@media (max-width:820px){.card{grid-template-columns:minmax(0,1fr)}}\n"
    ".card h3{grid-column:1/-1}\n"
    ".card h3 small{color:var(--mut);font-weight:400;margin-left:6px}\n"
    ".card h3 .nd{float:right;color:var(--n);font-weight:600}\n"
    ".pic{text-align:center;background:#fff}\n"
    ".pic svg{max-width:100%;height:auto;max-height:360px}\n"
    ".nopic{color:var(--mut);font-style:italic;padding:20px 0}\n"
    ".vt{width:100%;table-layout:fixed;font-size:12.5px}.vt col.cr{width:150px}\n"
    ".vt th,.vt td{border-top:1px solid var(--line);padding:3px 4px;vertical-align:top;"
    "text-align:left;overflow-wrap:anywhere}\n"
    ".vt thead th{font-weight:600;color:var(--mut)}.vt tbody th{font-weight:500}\n"
    ".vt tr.x th{box-shadow:inset 3px 0 var(--n)}\n"
    ".vt td b{display:inline-block;padding:0 6px;border-radius:8px;font-weight:600}\n"
    ".y b{color:var(--y);background:var(--yb)}.n b{color:var(--n);background:var(--nb)}\n"
    ".a b{color:var(--a);background:var(--ab)}.o b{color:var(--o);background:var(--ob)}\n"
    ".vt small{display:block;color:var(--mut);line-height:1.3}\n"
    ".vt td.m{color:#b0b6bf}\n"
    "footer{max-width:1400px;margin:0 auto 30px;padding:0 24px;color:var(--mut);font-size:12px}\n";

/* The filters: one class on the gallery; CSS rules per criterion do the rest. */
static void write_filter_css(const report *r, FILE *f)
{
    fputs("#g.fd.fa .card:not(.dx){display:none}\n", f);
    for (int32_t c = 0; c < r->crits.n; c++)
        fprintf(f, ".k%d{background:%s}#g.f%d tbody tr:not(.c%d){display:none}"
                "#g.f%d.fd .card:not(.d%d){display:none}\n",
                c, draw_criterion_color(S(&r->crits, c)), c, c, c, c);
}

/* The filters: written before the gallery, so that they work while it
 * loads; they set one class on it and count the cards shown. */
static const char JS[] =
    "(function(){var fc=document.getElementById('fc'),fd=document.getElementById('fd'),"
    "cnt=document.getElementById('cnt');"
    "function up(){var g=document.getElementById('g'),c=fc.value,d=fd.checked;if(!g)return;"
    "g.className=(c===''?'fa':'f'+c)+(d?' fd':'');"
    "var s='.card'+(d?(c===''?'.dx':'.d'+c):'');"
    "cnt.textContent=g.querySelectorAll(s).length+' of '+g.querySelectorAll('.card').length+' items';}"
    "fc.addEventListener('change',up);fd.addEventListener('change',up);"
    "function show(c){var p=c.querySelector('.pic'),s=p&&p.firstElementChild;"
    "if(s&&s.tagName==='SCRIPT')p.innerHTML=s.textContent;c.classList.remove('lz');}"
    "document.addEventListener('DOMContentLoaded',function(){up();"
    "var l=document.querySelectorAll('.card.lz');"
    "if('IntersectionObserver' in window){var io=new IntersectionObserver(function(es){"
    "es.forEach(function(e){if(e.isIntersecting){io.unobserve(e.target);show(e.target);}});},"
    "{rootMargin:'1200px 0px'});l.forEach(function(c){io.observe(c);});}"
    "else l.forEach(show);"
    "window.addEventListener('beforeprint',function(){document.querySelectorAll('.card.lz').forEach(show);});"
    "document.documentElement.setAttribute('data-ready','1');});})();\n";

/* The colour mark of criterion c (its colour is a rule of the style sheet). */
static void write_swatch(FILE *f, int32_t c)
{
    fprintf(f, "<i class=\"sw k%d\"></i>", c);
}

/* The bar chart of one pair: Cohen's kappa per criterion with its interval. */
static void write_chart(const report *r, FILE *f, int p)
{
    int32_t ra = r->pairs[2 * p], rb = r->pairs[2 * p + 1];
    int nc = r->crits.n;
    double lo = 0;
    double sum = 0;
    int nsum = 0;
    for (int32_t c = 0; c < nc; c++) {
        const struct krow *k = krow_of(r, c, 1, ra, rb);
        if (!k) continue;
        if (isfinite(k->value)) { sum += k->value; nsum++; if (k->value < lo) lo = k->value; }
        if (isfinite(k->lo) && k->lo < lo) lo = k->lo;
    }
    lo = lo < 0 ? floor(lo * 5) / 5 : 0;   /* to a multiple of 0.2 */
    const int lw = 132, cw = 220, bh = 15, gap = 7, top = 22;
    int h = top + nc * (bh + gap) + 8, W = lw + cw + 56;
    double scale = cw / (1.0 - lo);
#define X(v) (lw + ((v) - lo) * scale)
    fputs("<div class=chart>", f);
    fputs("<h3>", f);
    esc(f, S(&r->raters, rb));
    fputs(" <small>vs</small> ", f);
    esc(f, S(&r->raters, ra));
    fputs("</h3>", f);
    char buf[64];
    if (nsum) {
        fmt_num(buf, sizeof buf, sum / nsum, r->o.digits);
        fputs("<p>Cohen's &kappa;", f);
        if (r->o.ci > 0) fprintf(f, ", %g%% interval", r->o.ci * 100);
        if (nsum == nc) fprintf(f, "; mean of the %d criteria %s</p>", nc, buf);
        else fprintf(f, "; mean of the %d defined %s</p>", nsum, buf);
    }
    fprintf(f, "<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=img "
            "font-family=\"system-ui,sans-serif\" font-size=\"12\">", W, h, W, h);
    /* grid at every 0.2 */
    for (int t = (int)lround(lo * 5); t <= 5; t++) {
        double v = t / 5.0, x = X(v);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>", x, top - 4,
                x, h - 6, t == 0 ? "#7a828e" : "#e3e6eb");
        fmt_num(buf, sizeof buf, v, 1);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#5b6575\" "
                "font-size=\"10\">%s</text>", x, top - 8, buf);
    }
    for (int32_t c = 0; c < nc; c++) {
        int y = top + c * (bh + gap);
        const struct krow *k = krow_of(r, c, 1, ra, rb);
        const char *name = S(&r->crits, c);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#1d2430\">", lw - 6,
                y + bh - 4);
        esc(f, name);
        fputs("</text>", f);
        if (!k || !isfinite(k->value)) {
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"#5b6575\">undefined</text>", X(0) + 4,
                    y + bh - 4);
            continue;
        }
        double x0 = X(0), x1 = X(k->value);
        fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>",
                x1 < x0 ? x1 : x0, y, fabs(x1 - x0) < 0.5 ? 0.5 : fabs(x1 - x0), bh,
                draw_criterion_color(name));
        esc(f, name);
        fmt_num(buf, sizeof buf, k->value, r->o.digits);
        fprintf(f, ": kappa %s", buf);
        if (isfinite(k->lo) && isfinite(k->hi)) {
            char b2[64];
            fmt_num(buf, sizeof buf, k->lo, r->o.digits);
            fmt_num(b2, sizeof b2, k->hi, r->o.digits);
            fprintf(f, " [%s, %s]", buf, b2);
        }
        fprintf(f, ", n %zu</title></rect>", k->n);
        double xe = x1;
        if (isfinite(k->lo) && isfinite(k->hi)) {
            double a = X(k->lo), b = X(k->hi);
            int ym = y + bh / 2;
            fprintf(f, "<path d=\"M%.1f %dH%.1fM%.1f %dv8M%.1f %dv8\" stroke=\"#1d2430\" "
                    "fill=\"none\"/>", a, ym, b, a, ym - 4, b, ym - 4);
            if (b > xe) xe = b;
        }
        fmt_num(buf, sizeof buf, k->value, r->o.digits);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" fill=\"#1d2430\">%s</text>", xe + 4, y + bh - 4, buf);
    }
#undef X
    fputs("</svg></div>\n", f);
}

static void write_kappa_table(const report *r, FILE *f)
{
    char a[64], b[64], c2[64];
    fputs("<table class=kt id=kappa><thead><tr><th>criterion<th>rater&nbsp;a<th>rater&nbsp;b"
          "<th>n<th>agreement", f);
    if (r->o.ci > 0) fprintf(f, "<th>%g%% interval", r->o.ci * 100);
    fputs("<th>Cohen's &kappa;", f);
    if (r->o.ci > 0) fprintf(f, "<th>%g%% interval", r->o.ci * 100);
    fputs("</thead>\n", f);
    for (int32_t c = 0; c < r->crits.n; c++) {
        int rows = 0;
        for (int p = 0; p < r->npairs; p++)
            rows += krow_of(r, c, 0, r->pairs[2 * p], r->pairs[2 * p + 1]) != NULL;
        if (!rows) continue;
        fputs("<tbody>", f);
        int first = 1;
        for (int p = 0; p < r->npairs; p++) {
            int32_t ra = r->pairs[2 * p], rb = r->pairs[2 * p + 1];
            const struct krow *ka = krow_of(r, c, 0, ra, rb), *kc = krow_of(r, c, 1, ra, rb);
            if (!ka) continue;
            fputs("<tr data-g=\"", f);
            esc(f, S(&r->crits, c));
            fputs("\" data-a=\"", f);
            esc(f, S(&r->raters, ra));
            fputs("\" data-b=\"", f);
            esc(f, S(&r->raters, rb));
            fputs("\">", f);
            if (first) {
                fprintf(f, "<th rowspan=%d>", rows);
                write_swatch(f, c);
                esc(f, S(&r->crits, c));
            }
            first = 0;
            fputs("<td>", f);
            esc(f, S(&r->raters, ra));
            fputs("<td>", f);
            esc(f, S(&r->raters, rb));
            fprintf(f, "<td class=n>%zu", ka->n);
            const struct krow *ks[2] = { ka, kc };
            const char *st[2] = { "agreement", "cohen" };
            for (int s = 0; s < 2; s++) {
                const struct krow *k = ks[s];
                fmt_num(a, sizeof a, k ? k->value : NAN, r->o.digits);
                fprintf(f, "<td class=v data-s=%s>%s", st[s], a);
                if (r->o.ci > 0) {
                    fmt_num(b, sizeof b, k ? k->lo : NAN, r->o.digits);
                    fmt_num(c2, sizeof c2, k ? k->hi : NAN, r->o.digits);
                    fprintf(f, "<td class=ci data-s=%s><span class=lo>%s</span> &ndash; "
                            "<span class=hi>%s</span>", st[s], b, c2);
                }
            }
            fputs("</tr>\n", f);
        }
        fputs("</tbody>\n", f);
    }
    fputs("</table>\n", f);
}

static void write_matrices(report *r, FILE *f, int32_t fm, int32_t fu, int *bad, FILE *err)
{
    for (int32_t c = 0; c < r->crits.n; c++) {
        struct cats ct;
        build_cats(r, c, &ct, fm, fu);
        int any = 0;
        for (int p = 0; p < r->npairs; p++) any |= krow_of(r, c, 0, r->pairs[2 * p], r->pairs[2 * p + 1]) != NULL;
        if (any) {
            fputs("<h3 class=cmh>", f);
            write_swatch(f, c);
            esc(f, S(&r->crits, c));
            fputs("</h3><div class=cms>\n", f);
        }
        for (int p = 0; p < r->npairs; p++) {
            int32_t ra = r->pairs[2 * p], rb = r->pairs[2 * p + 1];
            const struct krow *ka = krow_of(r, c, 0, ra, rb);
            if (!ka) continue;
            uint64_t *m = xcalloc((size_t)(ct.k ? ct.k * ct.k : 1), sizeof *m);
            size_t oa = 0, ob = 0;
            size_t n = confusion(r, c, &ct, ra, rb, fm, fu, m, &oa, &ob);
            uint64_t diag = 0;
            for (int i = 0; i < ct.k; i++) diag += m[(size_t)i * (size_t)ct.k + (size_t)i];
            /* the same units kappa paired, or the report is wrong: say so */
            if (n != ka->n || (n && isfinite(ka->value) && fabs((double)diag / (double)n - ka->value) > 1e-9)) {
                fprintf(err, "irreport: error: internal: the confusion matrix of %s, %s vs %s "
                        "(n %zu) disagrees with kappa (n %zu)\n", S(&r->crits, c),
                        S(&r->raters, ra), S(&r->raters, rb), n, ka->n);
                *bad = 1;
            }
            fputs("<div class=cm data-g=\"", f);
            esc(f, S(&r->crits, c));
            fputs("\" data-a=\"", f);
            esc(f, S(&r->raters, ra));
            fputs("\" data-b=\"", f);
            esc(f, S(&r->raters, rb));
            fputs("\"><h4>", f);
            esc(f, S(&r->raters, rb));
            fputs(" <small>vs ", f);
            esc(f, S(&r->raters, ra));
            fputs("</small></h4><table><tr><th class=cn>", f);
            esc(f, S(&r->raters, ra));
            fputs("&nbsp;&darr;<br>", f);
            esc(f, S(&r->raters, rb));
            fputs("&nbsp;&rarr;", f);
            for (int j = 0; j < ct.k; j++) {
                fputs("<th>", f);
                esc(f, S(&r->values, ct.label[j]));
            }
            fputs("<th>&Sigma;</tr>", f);
            for (int i = 0; i < ct.k; i++) {
                fputs("<tr><th>", f);
                esc(f, S(&r->values, ct.label[i]));
                uint64_t rs = 0;
                for (int j = 0; j < ct.k; j++) {
                    uint64_t v = m[(size_t)i * (size_t)ct.k + (size_t)j];
                    rs += v;
                    fprintf(f, "<td data-r=\"%d\" data-c=\"%d\"%s>%llu", i, j,
                            i == j ? " class=d" : v == 0 ? " class=z" : "", (unsigned long long)v);
                }
                fprintf(f, "<td>%llu</tr>", (unsigned long long)rs);
            }
            fputs("<tr><th>&Sigma;", f);
            for (int j = 0; j < ct.k; j++) {
                uint64_t cs = 0;
                for (int i = 0; i < ct.k; i++) cs += m[(size_t)i * (size_t)ct.k + (size_t)j];
                fprintf(f, "<td>%llu", (unsigned long long)cs);
            }
            fprintf(f, "<td>%zu</tr></table>", n);
            fprintf(f, "<p>%zu paired units, %llu agree", n, (unsigned long long)diag);
            if (oa || ob) {
                fprintf(f, "; left out: %zu rated only by ", oa);
                esc(f, S(&r->raters, ra));
                fprintf(f, ", %zu only by ", ob);
                esc(f, S(&r->raters, rb));
            }
            fputs("</p></div>\n", f);
            free(m);
        }
        if (any) fputs("</div>\n", f);
        free_cats(&ct);
    }
}

/* Natural order of item names: runs of digits compare as numbers. */
static int natcmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            const char *sa = a, *sb = b;
            while (*sa == '0') sa++;
            while (*sb == '0') sb++;
            const char *ea = sa, *eb = sb;
            while (*ea >= '0' && *ea <= '9') ea++;
            while (*eb >= '0' && *eb <= '9') eb++;
            if (ea - sa != eb - sb) return ea - sa < eb - sb ? -1 : 1;
            int c = memcmp(sa, sb, (size_t)(ea - sa));
            if (c) return c;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static const report *order_ctx;
static int cmp_item(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    const report *r = order_ctx;
    if (r->ndis[a] != r->ndis[b]) return r->ndis[a] > r->ndis[b] ? -1 : 1;
    int c = natcmp(S(&r->items, a), S(&r->items, b));
    if (c) return c;
    c = strcmp(S(&r->items, a), S(&r->items, b));
    return c ? c : (a > b) - (a < b);
}

/* Whether an SVG document may stand as the text of a <script> element: no
 * "</script" (any case) and no "<!--" (which changes how the text ends). */
static int script_safe(const char *p, size_t n)
{
    for (size_t i = 0; i + 4 <= n; i++) {
        if (p[i] != '<') continue;
        if (!memcmp(p + i, "<!--", 4)) return 0;
        if (i + 8 <= n && p[i + 1] == '/' && !strncasecmp(p + i + 2, "script", 6)) return 0;
    }
    return 1;
}

/* One gallery card.  The first EAGER cards carry their picture; the others
 * carry it as the text of a <script type=text/x-svg> that the page's script
 * puts in place when the card nears the window (class lz): the browser
 * then neither builds nor styles thousands of pictures nobody looks at. */
enum { EAGER = 24 };

static void write_card(const report *r, FILE *f, int32_t it, const draw_opts *dopt, int lazy,
                       char **pic, size_t *piclen)
{
    int32_t ncrit = r->crits.n, nr = r->raters.n;
    const char *id = S(&r->items, it);
    const ir_diagram *d = it < r->dcap ? r->diag[it] : NULL;
    if (r->o.pictures && d) {
        free(*pic);   /* open_memstream makes a new buffer every time */
        *pic = NULL;
        FILE *m = open_memstream(pic, piclen);
        if (!m) { fputs("irreport: out of memory\n", stderr); exit(2); }
        draw_svg(m, d, dopt);
        if (fclose(m) != 0) { fputs("irreport: out of memory\n", stderr); exit(2); }
        lazy = lazy && script_safe(*pic, *piclen);
    } else {
        lazy = 0;
    }
    fputs("<article class=\"card", f);
    if (lazy) fputs(" lz", f);
    if (r->ndis[it]) fputs(" dx", f);
    for (int32_t c = 0; c < ncrit; c++)
        if (r->dis[(size_t)it * (size_t)ncrit + (size_t)c]) fprintf(f, " d%d", c);
    fputs("\" id=\"i-", f);
    esc(f, id);
    fputs("\"><h3>", f);
    esc(f, id);
    const char *src = d ? ir_get_attr(d->attrs, d->nattrs, "src") : NULL;
    if (src) {
        fputs("<small>", f);
        esc(f, src);
        fputs("</small>", f);
    }
    if (r->ndis[it])
        fprintf(f, "<span class=nd>%d disagreement%s</span>", r->ndis[it], r->ndis[it] == 1 ? "" : "s");
    fputs("</h3>", f);
    if (r->o.pictures) {
        fputs("<div class=pic>", f);
        if (!d) fputs("<div class=nopic>no IR for this item</div>", f);
        else {
            if (lazy) fputs("<script type=text/x-svg>", f);
            fwrite(*pic, 1, *piclen, f);
            if (lazy) fputs("</script>", f);
        }
        fputs("</div>", f);
    }
    /* verdicts: criteria down, raters across */
    int any = 0;
    for (int32_t c = 0; c < ncrit && !any; c++)
        any = r->unit[(size_t)it * (size_t)ncrit + (size_t)c];
    if (!any || !r->nsel) { fputs("</article>\n", f); return; }
    fputs("<table class=vt><col class=cr><thead><tr><th>", f);
    for (int s = 0; s < r->nsel; s++) {
        fputs("<th>", f);
        esc(f, S(&r->raters, r->sel[s]));
    }
    fputs("</thead><tbody>", f);
    for (int32_t c = 0; c < ncrit; c++) {
        size_t u = (size_t)it * (size_t)ncrit + (size_t)c;
        if (!r->unit[u]) continue;
        fprintf(f, "<tr class=\"c%d%s\"><th>", c, r->dis[u] ? " x" : "");
        write_swatch(f, c);
        esc(f, S(&r->crits, c));
        for (int s = 0; s < r->nsel; s++) {
            int32_t w = r->cell[u * (size_t)nr + (size_t)r->sel[s]];
            if (w < 0) { fputs("<td class=m>&ndash;", f); continue; }
            const char *v = S(&r->values, r->rows[w].value);
            fprintf(f, "<td class=%c><b>", vclass(v));
            esc(f, v);
            fputs("</b>", f);
            if (r->rows[w].note != (size_t)-1) {
                const char *note = r->notes + r->rows[w].note;
                size_t sl = src ? strlen(src) : 0;
                fputs("<small>", f);
                /* "SRC:LINE: reason" (irlint's) of this item's own source: "line LINE: reason" */
                if (sl && !strncmp(note, src, sl) && note[sl] == ':' && note[sl + 1] >= '0' &&
                    note[sl + 1] <= '9') {
                    fputs("line ", f);
                    note += sl + 1;
                }
                esc(f, note);
                fputs("</small>", f);
            }
        }
        fputs("</tr>", f);
    }
    fputs("</tbody></table></article>\n", f);
}

/* Parses the comma-separated --raters list into ids; -1 on an unknown name. */
static int select_raters(report *r, FILE *err)
{
    int32_t nr = r->raters.n;
    r->sel = xcalloc((size_t)nr + 1, sizeof *r->sel);
    r->nsel = 0;
    r->sel[r->nsel++] = r->ref;
    if (r->o.raters) {
        const char *p = r->o.raters;
        for (;;) {
            const char *e = strchr(p, ',');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            if (len) {
                int32_t id = kappa_strtab_find(&r->raters, p, len);
                if (id < 0) {
                    fprintf(err, "irreport: error: --raters: no rater '%.*s' in the input; raters are:",
                            (int)len, p);
                    for (int32_t i = 0; i < nr; i++) fprintf(err, " %s", S(&r->raters, i));
                    fputc('\n', err);
                    return -1;
                }
                int dup = 0;
                for (int i = 0; i < r->nsel; i++) dup |= r->sel[i] == id;
                if (!dup) r->sel[r->nsel++] = id;
            }
            if (!e) break;
            p = e + 1;
        }
    } else {
        for (int32_t i = 0; i < nr; i++)
            if (i != r->ref) r->sel[r->nsel++] = i;
    }
    return 0;
}

int report_write(report *r, FILE *out, FILE *err)
{
    const report_opts *o = &r->o;
    int32_t nr = r->raters.n, ncrit = r->crits.n, nitems = r->items.n;
    grow_items(r);
    if (r->ntables && r->nrows == 0) {
        fputs("irreport: error: the verdict tables hold no verdicts\n", err);
        return 2;
    }
    if (!r->ntables && !r->ndiagrams) {
        fputs("irreport: error: no diagrams and no verdicts in the input\n", err);
        return 2;
    }
    /* the reference */
    r->ref = -1;
    if (nr) {
        const char *ref = o->reference ? o->reference : "human";
        r->ref = kappa_strtab_find(&r->raters, ref, strlen(ref));
        if (r->ref < 0 && o->reference) {
            fprintf(err, "irreport: error: --reference: no rater '%s' in the input; raters are:", ref);
            for (int32_t i = 0; i < nr; i++) fprintf(err, " %s", S(&r->raters, i));
            fputc('\n', err);
            return 2;
        }
        if (r->ref < 0) {
            r->ref = 0;
            if (!o->quiet)
                fprintf(err, "irreport: note: no rater 'human': %s is the reference\n", S(&r->raters, 0));
        }
        if (select_raters(r, err) < 0) return 2;
        if (r->nsel < 2) {
            fputs("irreport: error: fewer than two raters to compare\n", err);
            return 2;
        }
        if (run_kappa(r, err)) return 2;
    }
    /* the cells */
    size_t nu = (size_t)nitems * (size_t)ncrit;
    r->cell = xcalloc(nu * (size_t)nr + 1, sizeof *r->cell);
    for (size_t i = 0; i < nu * (size_t)nr; i++) r->cell[i] = -1;
    r->unit = xcalloc(nu + 1, 1);
    r->seen = xcalloc((size_t)nitems * (size_t)nr + 1, 1);
    r->dis = xcalloc(nu + 1, 1);
    r->ndis = xcalloc((size_t)nitems + 1, sizeof *r->ndis);
    for (size_t i = 0; i < r->nrows; i++) {
        const struct vrow *w = &r->rows[i];
        size_t u = (size_t)w->item * (size_t)ncrit + (size_t)w->crit;
        r->unit[u] = 1;
        r->seen[(size_t)w->item * (size_t)nr + (size_t)w->rater] = 1;
        if (r->cell[u * (size_t)nr + (size_t)w->rater] < 0) r->cell[u * (size_t)nr + (size_t)w->rater] = (int32_t)i;
    }
    int32_t fm = fill_value(r, o->missing), fu = fill_value(r, o->unrated);
    /* disagreements among the shown raters (categories as kappa codes them) */
    for (int32_t c = 0; c < ncrit; c++) {
        struct cats ct;
        build_cats(r, c, &ct, fm, fu);
        for (int32_t it = 0; it < nitems; it++) {
            size_t u = (size_t)it * (size_t)ncrit + (size_t)c;
            if (!r->unit[u]) continue;
            int first = -2;
            for (int s = 0; s < r->nsel; s++) {
                int32_t w = r->cell[u * (size_t)nr + (size_t)r->sel[s]];
                if (w < 0) continue;
                int code = ct.code_of[r->rows[w].value];
                if (first == -2) first = code;
                else if (code != first) { r->dis[u] = 1; break; }
            }
            r->ndis[it] += r->dis[u];
        }
        free_cats(&ct);
    }

    /* the document */
    const char *title = o->title ? o->title : "diagramir study";
    int bad = 0;
    fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>\n"
          "<meta name=viewport content=\"width=device-width,initial-scale=1\">\n"
          "<meta name=generator content=\"irreport (diagramir) " DIAGRAMIR_VERSION "\">\n<title>", out);
    esc(out, title);
    fputs("</title>\n<style>\n", out);
    fputs(CSS, out);
    write_filter_css(r, out);
    fputs("</style></head><body>\n<header><h1>", out);
    esc(out, title);
    fputs("</h1><p class=meta>", out);
    fprintf(out, "%d item%s, %d criteri%s", nitems, nitems == 1 ? "" : "s", ncrit,
            ncrit == 1 ? "on" : "a");
    if (r->nsel) {
        fputs("; raters: ", out);
        for (int s = 0; s < r->nsel; s++) {
            if (s) fputs(", ", out);
            fputs("<b>", out);
            esc(out, S(&r->raters, r->sel[s]));
            fputs("</b>", out);
            if (r->sel[s] == r->ref) fputs(" (reference)", out);
        }
    }
    fputs("</p>\n<nav>", out);
    if (r->nsel) fputs("<a href=\"#agreement\">Agreement</a><a href=\"#confusion\">Confusion matrices</a>", out);
    fputs("<a href=\"#gallery\">Gallery</a></nav></header>\n<main>\n", out);
    if (r->nsel) {
        fputs("<section id=agreement><h2>Agreement", out);
        if (!o->all_pairs) {
            fputs(" with ", out);
            esc(out, S(&r->raters, r->ref));
        }
        fputs("</h2>\n<div class=charts>\n", out);
        for (int p = 0; p < r->npairs; p++) write_chart(r, out, p);
        fputs("</div>\n", out);
        write_kappa_table(r, out);
        fputs("<p class=meta>The numbers are kappa's: <code>kappa --by criterion", out);
        if (!o->all_pairs) { fputs(" --reference ", out); esc(out, S(&r->raters, r->ref)); }
        fputs(" --stat agreement,cohen", out);
        if (o->raters) { fputs(" --raters ", out); esc(out, o->raters); }
        if (o->missing) { fputs(" --missing ", out); esc(out, o->missing); }
        if (o->unrated) { fputs(" --unrated ", out); esc(out, o->unrated); }
        if (o->ci > 0)
            fprintf(out, " --ci %g --reps %ld --seed %llu", o->ci, o->reps, (unsigned long long)o->seed);
        fprintf(out, " --digits %d</code> prints the same.</p>\n</section>\n", o->digits);
        fputs("<section id=confusion><h2>Confusion matrices</h2>\n", out);
        write_matrices(r, out, fm, fu, &bad, err);
        fputs("</section>\n", out);
    }
    /* the gallery */
    int32_t *order = xcalloc((size_t)nitems + 1, sizeof *order);
    for (int32_t i = 0; i < nitems; i++) order[i] = i;
    order_ctx = r;
    if (nitems) qsort(order, (size_t)nitems, sizeof *order, cmp_item);
    int ndisag = 0;
    for (int32_t i = 0; i < nitems; i++) ndisag += r->ndis[i] > 0;
    fprintf(out, "<section id=gallery%s><h2>Gallery</h2>\n<div class=filters><label>Criterion "
          "<select id=fc><option value=\"\">all</option>", o->pictures ? "" : " class=np");
    for (int32_t c = 0; c < ncrit; c++) {
        fprintf(out, "<option value=\"%d\">", c);
        esc(out, S(&r->crits, c));
        fputs("</option>", out);
    }
    fprintf(out, "</select></label><label><input type=checkbox id=fd> raters disagree</label>"
            "<span id=cnt>%d items</span><span class=meta>%d with a disagreement, listed first</span>"
            "</div>\n<script>%s</script>\n<div id=g class=fa>\n", nitems, ndisag, JS);
    draw_opts dopt;
    draw_opts_init(&dopt);
    dopt.fragment = 1;
    dopt.findings = 1;
    dopt.all_findings = o->all_findings;
    dopt.scale = 96 / 72.27;   /* real size: a TeX inch is 96 CSS pixels */
    char *pic = NULL;
    size_t piclen = 0;
    progress *bar = o->pictures && nitems > 1
                        ? progress_start("irreport", "pictures", (size_t)nitems, o->progress)
                        : NULL;
    for (int32_t i = 0; i < nitems; i++) {
        write_card(r, out, order[i], &dopt, i >= EAGER, &pic, &piclen);
        progress_step(bar, 1);
    }
    progress_done(bar);
    free(pic);
    free(order);
    fputs("</div></section>\n</main>\n<footer>Made by irreport (diagramir) " DIAGRAMIR_VERSION
          ".</footer>\n</body></html>\n", out);
    if (bad) return 2;
    return 0;
}
