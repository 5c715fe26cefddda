/* irlint — check diagrams in the diagramir IR against a rubric.
 *
 *   tikz2ir fig.tex | irlint --rubric geom
 *   irlint --rubric geom --format tsv a.ir b.ir > irlint.tsv
 *
 * Reads IR from the named files (or stdin, or "-"), runs every check of the
 * rubric on each diagram and writes the verdicts: compiler-style diagnostics
 * (default; failures only unless --verbose), the long-form verdict table
 * (--format tsv), JSON (--format json), or the diagrams themselves with one
 * finding record per verdict (--format ir). Findings the input carries are
 * never checked: they are taken out before the checks run (and replaced in
 * --format ir). Exit status: 0 every check
 * passed, 1 some check said no, 2 usage or input error.
 * See irlint(1) and diagramir-rubrics(7).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cjson/cJSON.h>

#include "checks/rubric.h"
#include "ir/ir.h"
#include "ir/ir_borrow.h"

#ifndef DIAGRAMIR_VERSION
#define DIAGRAMIR_VERSION "0.1"
#endif

enum { FMT_TEXT, FMT_TSV, FMT_JSON, FMT_IR };

/* One row of --requests FILE: the item and what was asked for it. */
typedef struct {
    char *item;
    char *text;
    long line;      /* where it was read, for errors */
    size_t col;
} req_row;

typedef struct {
    const chk_rubric *rubric;
    const char *request;      /* --request TEXT: every diagram's, or NULL */
    req_row *reqs;            /* --requests FILE, sorted by item */
    size_t nreqs;
    int fmt;
    int verbose;
    unsigned char *enabled;   /* per check of the rubric */
    int any_no;
    int ndiagrams;
    int json_first;
} opts;

static void usage(FILE *f)
{
    fputs("usage: irlint [--rubric NAME] [--format text|tsv|json|ir] [--only LIST] [--skip LIST]\n"
          "              [--param NAME=VALUE] [--params FILE] [--request TEXT]\n"
          "              [--requests FILE] [--verbose] [--exit-zero] [--list] [--list-params]\n"
          "              [FILE...]\n"
          "Checks each diagram of the IR input (files, or stdin) against a rubric.\n"
          "\n"
          "  -r, --rubric NAME     rubric to apply (default geom; see --list)\n"
          "  -f, --format FMT      text: diagnostics \"file:line: criterion: no: reason\" (default)\n"
          "                        tsv:  verdict table \"item criterion rater value note\"\n"
          "                        json: one object per diagram, in an array\n"
          "                        ir:   each diagram, its findings replaced by one finding\n"
          "                              record per verdict (elems= the elements blamed)\n"
          "  -o, --only LIST       run only these criteria (comma-separated; repeatable)\n"
          "  -s, --skip LIST       do not run these criteria (comma-separated; repeatable)\n"
          "  -p, --param NAME=VALUE  set a tolerance of the rubric's checks (repeatable)\n"
          "  -P, --params FILE     read NAME VALUE lines (# comments) as --param\n"
          "  -q, --request TEXT    what every diagram was asked to show (the teacher's\n"
          "                        request): core-math and shape-closed check it\n"
          "  -Q, --requests FILE   TSV with an item column and a request (or prompt)\n"
          "                        column: diagram ITEM or ITEM.N gets ITEM's request\n"
          "  -v, --verbose         text format: also print yes and na verdicts\n"
          "  -l, --list            list the rubrics and their criteria, then exit\n"
          "      --list-params     list the rubric's parameters (name value default unit\n"
          "                        lo hi origin grid), after any --param, then exit\n"
          "      --exit-zero       exit 0 even when some check said no (pipelines)\n"
          "  -h, --help            this help\n"
          "  -V, --version         version\n"
          "\n"
          "Exit status: 0 every check passed, 1 some check said no, 2 usage or input error.\n",
          f);
}

/* Applies a comma-separated criteria list: on=1 for --only, 0 for --skip. */
static int apply_list(opts *o, const char *list, int on, int *only_seen)
{
    char *dup = strdup(list);
    if (!dup) return -1;
    if (on && !*only_seen) {
        for (size_t i = 0; i < o->rubric->nchecks; i++) o->enabled[i] = 0;
        *only_seen = 1;
    }
    int rc = 0;
    char *save = NULL;
    for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') tok++;
        if (!*tok) continue;
        int k = chk_rubric_index(o->rubric, tok);
        if (k < 0) {
            fprintf(stderr, "irlint: error: rubric %s has no criterion '%s'\n", o->rubric->name,
                    tok);
            rc = -1;
            continue;
        }
        o->enabled[k] = (unsigned char)on;
    }
    free(dup);
    return rc;
}

static void list_rubrics(void)
{
    for (size_t i = 0; chk_rubric_at(i); i++) {
        const chk_rubric *r = chk_rubric_at(i);
        printf("%s\t%s\n", r->name, r->title);
        for (size_t k = 0; k < r->nchecks; k++)
            printf("  %-20s %s%s\n", r->checks[k].name, r->checks[k].question,
                   r->checks[k].headline ? "" : " (not headline)");
    }
}

static void list_params(const chk_rubric *r)
{
    printf("name\tvalue\tdefault\tunit\tlo\thi\torigin\tgrid\n");
    for (size_t i = 0; i < r->nparams; i++) {
        const chk_param *p = &r->params[i];
        printf("%s\t%.15g\t%.15g\t%s\t%.15g\t%.15g\t%s\t%s\n", p->name, *p->value, p->def,
               *p->unit ? p->unit : "-", p->lo, p->hi, p->fitted ? "fitted" : "derived",
               *p->grid ? p->grid : "-");
    }
}

/* Reads --params FILE: "NAME VALUE" or "NAME=VALUE" per line, blank lines
 * and # comments ignored. Errors are reported as FILE:LINE:COL. */
static int read_params(const chk_rubric *r, const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        fprintf(stderr, "irlint: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[512], err[256];
    int ln = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t n = strlen(line);
        if (n == sizeof line - 1 && line[n - 1] != '\n') {
            fprintf(stderr, "irlint: %s:%d:1: error: line longer than %zu bytes\n", path, ln,
                    sizeof line - 2);
            rc = -1;
            break;
        }
        line[strcspn(line, "#\r\n")] = 0;
        char *s = line + strspn(line, " \t");
        size_t e = strlen(s);
        while (e && (s[e - 1] == ' ' || s[e - 1] == '\t')) s[--e] = 0;
        if (!*s) continue;
        if (chk_param_set(r, s, err, sizeof err) < 0) {
            fprintf(stderr, "irlint: %s:%d:%d: error: %s\n", path, ln, (int)(s - line) + 1, err);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, "irlint: %s: read error\n", path);
        rc = -1;
    }
    if (f != stdin) fclose(f);
    return rc;
}

static int req_cmp(const void *a, const void *b)
{
    return strcmp(((const req_row *)a)->item, ((const req_row *)b)->item);
}

/* Splits line (its end of line removed) at tabs into at most max fields;
 * returns the count and each field's column (1-based) in col. */
static size_t split_tabs(char *line, char **f, size_t *col, size_t max)
{
    size_t n = 0;
    char *p = line;
    for (;;) {
        if (n < max) {
            f[n] = p;
            col[n] = (size_t)(p - line) + 1;
        }
        n++;
        char *t = strchr(p, '\t');
        if (!t) break;
        *t = 0;
        p = t + 1;
    }
    return n;
}

/* Reads --requests FILE: a TSV whose header names an "item" column and a
 * "request" (else "prompt") column; one row per item. Errors are reported
 * as FILE:LINE:COL and return -1. */
static int read_requests(opts *o, const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) {
        fprintf(stderr, "irlint: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long ln = 0;
    int rc = 0;
    long icol = -1, rcol = -1;
    size_t ncols = 0;
    enum { MAXF = 256 };
    char *fld[MAXF];
    size_t col[MAXF];
    size_t rcap = o->nreqs;
    while ((len = getline(&line, &cap, f)) != -1) {
        ln++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (memchr(line, 0, (size_t)len)) {
            fprintf(stderr, "irlint: %s:%ld:%zu: error: NUL byte in the line\n", path, ln,
                    strlen(line) + 1);
            rc = -1;
            break;
        }
        size_t nf = split_tabs(line, fld, col, MAXF);
        if (ln == 1) {
            if (nf >= MAXF) {
                fprintf(stderr, "irlint: %s:1:1: error: %d columns or more\n", path, MAXF);
                rc = -1;
                break;
            }
            long pcol = -1;
            for (size_t i = 0; i < nf; i++) {
                if (!strcmp(fld[i], "item") && icol < 0) icol = (long)i;
                if (!strcmp(fld[i], "request") && rcol < 0) rcol = (long)i;
                if (!strcmp(fld[i], "prompt") && pcol < 0) pcol = (long)i;
            }
            if (rcol < 0) rcol = pcol;
            if (icol < 0 || rcol < 0) {
                fprintf(stderr,
                        "irlint: %s:1:1: error: the header names no '%s' column (it needs "
                        "'item' and 'request' or 'prompt')\n",
                        path, icol < 0 ? "item" : "request");
                rc = -1;
                break;
            }
            ncols = nf;
            continue;
        }
        if (len == 0) continue;   /* a blank line */
        if (nf != ncols) {
            /* where the row goes wrong: its end, or its first extra field */
            size_t at = nf < ncols ? (size_t)len + 1 : col[ncols];
            fprintf(stderr, "irlint: %s:%ld:%zu: error: %zu field(s), the header has %zu\n",
                    path, ln, at, nf, ncols);
            rc = -1;
            break;
        }
        if (!*fld[icol]) {
            fprintf(stderr, "irlint: %s:%ld:%zu: error: empty item\n", path, ln, col[icol]);
            rc = -1;
            break;
        }
        if (o->nreqs == rcap) {
            rcap = rcap ? 2 * rcap : 64;
            req_row *p = realloc(o->reqs, rcap * sizeof *p);
            if (!p) { perror("irlint"); exit(2); }
            o->reqs = p;
        }
        req_row *r = &o->reqs[o->nreqs];
        r->item = strdup(fld[icol]);
        r->text = strdup(fld[rcol]);
        if (!r->item || !r->text) { perror("irlint"); exit(2); }
        r->line = ln;
        r->col = col[rcol];
        o->nreqs++;
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, "irlint: %s: read error\n", path);
        rc = -1;
    }
    if (rc == 0 && ln == 0) {
        fprintf(stderr, "irlint: %s:1:1: error: empty file (no header)\n", path);
        rc = -1;
    }
    free(line);
    if (f != stdin) fclose(f);
    if (o->nreqs) qsort(o->reqs, o->nreqs, sizeof *o->reqs, req_cmp);
    /* an item given twice: the rows must agree (the later one is named) */
    for (size_t k = 1; rc == 0 && k < o->nreqs; k++) {
        const req_row *a = &o->reqs[k - 1], *b = &o->reqs[k];
        if (strcmp(a->item, b->item) || !strcmp(a->text, b->text)) continue;
        const req_row *later = a->line > b->line ? a : b;
        fprintf(stderr, "irlint: %s:%ld:%zu: error: item '%s' has another request on line %ld\n",
                path, later->line, later->col, later->item, (later == a ? b : a)->line);
        rc = -1;
    }
    return rc;
}

/* The request of diagram d: its item's in --requests (the id, or the id
 * without a trailing ".N"), else --request, else NULL. */
static const char *request_of(const opts *o, const ir_diagram *d)
{
    if (o->nreqs && d->id) {
        req_row key = {(char *)d->id, NULL, 0, 0};
        const req_row *r = bsearch(&key, o->reqs, o->nreqs, sizeof *o->reqs, req_cmp);
        if (!r) {
            const char *dot = strrchr(d->id, '.');
            size_t n = dot ? (size_t)(dot - d->id) : 0;
            if (dot && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1) && n < 256) {
                char item[256];
                memcpy(item, d->id, n);
                item[n] = 0;
                key.item = item;
                r = bsearch(&key, o->reqs, o->nreqs, sizeof *o->reqs, req_cmp);
            }
        }
        if (r) return *r->text ? r->text : NULL;
    }
    return o->request;
}

/* One diagram's output, written with one fwrite (the same bytes the
 * stdio calls piece by piece would write). */
typedef struct {
    char *p;
    size_t n, cap;
} obuf;

static void ob_put(obuf *b, const char *s, size_t n)
{
    if (n > b->cap - b->n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (n > cap - b->n) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) { perror("irlint"); exit(2); }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void ob_puts(obuf *b, const char *s) { ob_put(b, s, strlen(s)); }

/* TSV fields must not contain tabs or newlines. */
static void put_field(obuf *b, const char *s)
{
    for (;;) {
        size_t n = strcspn(s, "\t\n\r");
        ob_put(b, s, n);
        if (!s[n]) return;
        ob_put(b, " ", 1);
        s += n + 1;
    }
}

/* "SRC:LINE: " */
static void put_src_line(obuf *b, const char *src, int line)
{
    char num[16];
    size_t k = sizeof num;
    unsigned v = (unsigned)line;
    do num[--k] = (char)('0' + v % 10); while ((v /= 10) > 0);
    ob_puts(b, src);
    ob_put(b, ":", 1);
    ob_put(b, num + k, sizeof num - k);
    ob_put(b, ": ", 2);
}

/* Scratch memory reused from diagram to diagram (grown, never shrunk). */
static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    p = realloc(p, c * size);
    if (!p) { perror("irlint"); exit(2); }
    *cap = c;
    return p;
}

/* --format ir: d (its findings already taken out) with one finding record
 * per verdict appended, "finding CRITERION "REASON" verdict=V rubric=R
 * elems=I,J @LINE". elems are 1-based places of element records: with the
 * findings last, element i of d is number i + 1. */
static void emit_ir(opts *o, const ir_diagram *d, const chk_verdict *vs)
{
    static ir_elem *el;
    static size_t elcap;
    /* per finding: verdict=, rubric=, elems= and the elems= text */
    enum { ELEMS_LEN = CHK_BLAME_MAX * 21 + 1 };
    static ir_attr *at;
    static size_t atcap;
    static char (*txt)[ELEMS_LEN];
    static size_t txtcap;
    const chk_rubric *r = o->rubric;
    el = grow(el, &elcap, d->nelems + r->nchecks, sizeof *el);
    at = grow(at, &atcap, 3 * r->nchecks, sizeof *at);
    txt = grow(txt, &txtcap, r->nchecks, sizeof *txt);
    if (d->nelems) memcpy(el, d->elems, d->nelems * sizeof *el);
    size_t n = d->nelems;
    for (size_t k = 0; k < r->nchecks; k++) {
        if (!o->enabled[k]) continue;
        const chk_verdict *v = &vs[k];
        ir_elem *e = &el[n++];
        memset(e, 0, sizeof *e);
        e->kind = IR_FINDING;
        e->name = (char *)r->checks[k].name;
        e->str = (char *)v->reason;
        e->line = v->line > 0 ? v->line : 0;
        ir_attr *a = &at[3 * k];
        a[0].key = (char *)"verdict";
        a[0].val = (char *)chk_value_name(v->value);
        a[1].key = (char *)"rubric";
        a[1].val = (char *)r->name;
        e->attrs = a;
        e->nattrs = 2;
        if (v->nblame) {
            char *p = txt[k];
            for (unsigned i = 0; i < v->nblame; i++)
                p += sprintf(p, "%s%zu", i ? "," : "", v->blame[i] + 1);
            a[2].key = (char *)"elems";
            a[2].val = txt[k];
            e->nattrs = 3;
        }
    }
    ir_diagram out = *d;
    out.elems = el;
    out.nelems = n;
    out.cap = n;
    ir_write_diagram(stdout, &out);
}

static void emit(opts *o, const ir_diagram *d, const chk_verdict *vs)
{
    if (o->fmt == FMT_IR) {
        emit_ir(o, d, vs);
        return;
    }
    static obuf ob;
    obuf *b = &ob;
    b->n = 0;
    const chk_rubric *r = o->rubric;
    const char *src = ir_get_attr(d->attrs, d->nattrs, "src");
    const char *id = d->id ? d->id : "-";
    if (!src) src = id;
    if (o->fmt == FMT_TEXT) {
        for (size_t k = 0; k < r->nchecks; k++) {
            if (!o->enabled[k]) continue;
            const chk_verdict *v = &vs[k];
            if (v->value != CHK_NO && !o->verbose) continue;
            if (v->line > 0) {
                put_src_line(b, src, v->line);
            } else {
                ob_puts(b, src);
                ob_put(b, ": ", 2);
            }
            ob_puts(b, r->checks[k].name);
            ob_put(b, ": ", 2);
            ob_puts(b, chk_value_name(v->value));
            ob_put(b, ": ", 2);
            ob_puts(b, v->reason);
            ob_put(b, " [", 2);
            ob_puts(b, r->name);
            ob_put(b, "/", 1);
            ob_puts(b, r->checks[k].name);
            ob_put(b, "]\n", 2);
        }
    } else if (o->fmt == FMT_TSV) {
        for (size_t k = 0; k < r->nchecks; k++) {
            if (!o->enabled[k]) continue;
            put_field(b, id);
            ob_put(b, "\t", 1);
            ob_puts(b, r->checks[k].name);
            ob_put(b, "\tirlint\t", 8);
            ob_puts(b, chk_value_name(vs[k].value));
            ob_put(b, "\t", 1);
            if (vs[k].line > 0) put_src_line(b, src, vs[k].line);
            put_field(b, vs[k].reason);
            ob_put(b, "\n", 1);
        }
    } else {
        cJSON *obj = cJSON_CreateObject();
        cJSON_AddStringToObject(obj, "item", id);
        cJSON_AddStringToObject(obj, "src", src);
        cJSON_AddStringToObject(obj, "rubric", r->name);
        cJSON *arr = cJSON_AddArrayToObject(obj, "verdicts");
        for (size_t k = 0; k < r->nchecks; k++) {
            if (!o->enabled[k]) continue;
            cJSON *it = cJSON_CreateObject();
            cJSON_AddStringToObject(it, "criterion", r->checks[k].name);
            cJSON_AddStringToObject(it, "value", chk_value_name(vs[k].value));
            cJSON_AddNumberToObject(it, "line", vs[k].line);
            cJSON_AddStringToObject(it, "reason", vs[k].reason);
            cJSON_AddItemToArray(arr, it);
        }
        char *txt = cJSON_PrintUnformatted(obj);
        if (txt) {
            printf("%s%s", o->json_first ? "" : ",\n", txt);
            o->json_first = 0;
            free(txt);
        }
        cJSON_Delete(obj);
    }
    if (b->n) fwrite(b->p, 1, b->n, stdout);
}

/* The line verdicts about the whole picture point to: the diagram's line=
 * (where the picture starts), else its first element's line. */
static int picture_line(const ir_diagram *d)
{
    const char *l = ir_get_attr(d->attrs, d->nattrs, "line");
    if (l) {
        char *end;
        long v = strtol(l, &end, 10);
        if (end != l && !*end && v > 0 && v < 1000000000L) return (int)v;
    }
    int best = 0;
    for (size_t i = 0; i < d->nelems; i++)
        if (d->elems[i].line > 0 && (best == 0 || d->elems[i].line < best)) best = d->elems[i].line;
    return best;
}

/* d without its finding records (d itself when it has none): what a
 * checker found before is not part of the picture. The view shares d's
 * elements and lives until the next call. */
static const ir_diagram *without_findings(const ir_diagram *d)
{
    size_t i = 0;
    while (i < d->nelems && d->elems[i].kind != IR_FINDING) i++;
    if (i == d->nelems) return d;
    static ir_diagram view;
    static ir_elem *el;
    static size_t cap;
    el = grow(el, &cap, d->nelems, sizeof *el);
    size_t n = 0;
    for (i = 0; i < d->nelems; i++)
        if (d->elems[i].kind != IR_FINDING) el[n++] = d->elems[i];
    view = *d;
    view.elems = el;
    view.nelems = n;
    view.cap = n;
    return &view;
}

/* "NAME:LINE:1: error: the diagram ID (src SRC) is not checked: WHY" on
 * stderr, LINE the IR line of element elem, or of the diagram record. */
static void refuse(const char *name, const ir_diagram *d, size_t elem, const char *why)
{
    int line = elem < d->nelems && d->elems[elem].irline > 0 ? d->elems[elem].irline : d->irline;
    const char *src = ir_get_attr(d->attrs, d->nattrs, "src");
    fflush(stdout);
    fprintf(stderr, "%s:%d:1: error: diagram %s%s%s%s not checked: %s\n", name, line,
            d->id ? d->id : "-", src ? " (src=" : "", src ? src : "", src ? ")" : "", why);
}

/* Returns 0, or 2 when the rubric refused the diagram (no verdicts). */
static int check_diagram(opts *o, const char *name, const ir_diagram *d, chk_verdict *vs)
{
    const chk_rubric *r = o->rubric;
    d = without_findings(d);
    char why[CHK_REASON_MAX];
    size_t elem = (size_t)-1;
    const char *no = r->admit ? r->admit(d, &elem, why, sizeof why) : NULL;
    if (no) {
        refuse(name, d, elem, no);
        return 2;
    }
    void *ctx = r->prepare ? r->prepare(d, request_of(o, d)) : NULL;
    int any_no = 0;
    for (size_t k = 0; k < r->nchecks; k++) {
        if (!o->enabled[k]) continue;
        /* chk_set(&vs[k], CHK_NA, 0, "not evaluated"), without its scans */
        static const char not_evaluated[] = "not evaluated";
        vs[k].value = CHK_NA;
        vs[k].line = 0;
        vs[k].nblame = 0;
        memcpy(vs[k].reason, not_evaluated, sizeof not_evaluated);
        r->checks[k].run(d, ctx, &vs[k]);
        if (vs[k].value == CHK_NO) any_no = 1;
        if (vs[k].line <= 0 && vs[k].value != CHK_NA) vs[k].line = picture_line(d);
    }
    no = r->overrun ? r->overrun(ctx, why, sizeof why) : NULL;
    if (r->release) r->release(ctx);
    if (no) {
        refuse(name, d, (size_t)-1, no);
        return 2;
    }
    if (any_no) o->any_no = 1;
    emit(o, d, vs);
    o->ndiagrams++;
    return 0;
}

/* Returns 0 on success, 2 on an input error. */
static int run_stream(opts *o, FILE *f, const char *name)
{
    ir_reader *rd = ir_reader_new(f, name);
    if (!rd) { perror("irlint"); return 2; }
    int rc = 0;
    /* the verdicts of one diagram: each check's is set before it runs */
    chk_verdict *vs = malloc(o->rubric->nchecks * sizeof *vs);
    if (!vs) { perror("irlint"); exit(2); }
    for (;;) {
        /* one diagram at a time, in the reader's memory */
        const ir_diagram *d = NULL;
        int st = ir_read_diagram_borrowed(rd, &d);
        if (st == 0) break;
        if (st < 0) {
            fflush(stdout);
            fprintf(stderr, "%s\n", ir_reader_error(rd));
            rc = 2;
            break;
        }
        /* a diagram the checks cannot take is an error; the others are
         * still checked */
        if (check_diagram(o, name, d, vs)) rc = 2;
    }
    ir_reader_free(rd);
    free(vs);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"rubric", required_argument, NULL, 'r'}, {"format", required_argument, NULL, 'f'},
        {"only", required_argument, NULL, 'o'},   {"skip", required_argument, NULL, 's'},
        {"verbose", no_argument, NULL, 'v'},      {"list", no_argument, NULL, 'l'},
        {"param", required_argument, NULL, 'p'},  {"params", required_argument, NULL, 'P'},
        {"list-params", no_argument, NULL, 'L'},
        {"request", required_argument, NULL, 'q'}, {"requests", required_argument, NULL, 'Q'},
        {"exit-zero", no_argument, NULL, 'Z'},
        {"help", no_argument, NULL, 'h'},         {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}};
    opts o;
    memset(&o, 0, sizeof o);
    o.fmt = FMT_TEXT;
    o.json_first = 1;
    const char *rubric = "geom";
    /* --only/--skip and the parameters need the rubric: collect them
     * first (list_on: 1 --only, 0 --skip, 2 --param, 3 --params) */
    const char **lists = calloc((size_t)argc + 1, sizeof *lists);
    int *list_on = calloc((size_t)argc + 1, sizeof *list_on);
    int nlists = 0, rc = 0, done = 0, show_params = 0, exit_zero = 0;
    const char *requests_file = NULL;
    if (!lists || !list_on) { perror("irlint"); rc = 2; goto out; }
    int c;
    while (!done && (c = getopt_long(argc, argv, "r:f:o:s:p:P:q:Q:vlhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'r': rubric = optarg; break;
        case 'f':
            if (!strcmp(optarg, "text")) o.fmt = FMT_TEXT;
            else if (!strcmp(optarg, "tsv")) o.fmt = FMT_TSV;
            else if (!strcmp(optarg, "json")) o.fmt = FMT_JSON;
            else if (!strcmp(optarg, "ir")) o.fmt = FMT_IR;
            else {
                fprintf(stderr, "irlint: error: unknown format '%s' (text, tsv, json or ir)\n",
                        optarg);
                rc = 2;
                goto out;
            }
            break;
        case 'o': lists[nlists] = optarg; list_on[nlists++] = 1; break;
        case 's': lists[nlists] = optarg; list_on[nlists++] = 0; break;
        case 'p': lists[nlists] = optarg; list_on[nlists++] = 2; break;
        case 'P': lists[nlists] = optarg; list_on[nlists++] = 3; break;
        case 'L': show_params = 1; break;
        case 'Z': exit_zero = 1; break;
        case 'q': o.request = optarg; break;
        case 'Q': requests_file = optarg; break;
        case 'v': o.verbose = 1; break;
        case 'l': list_rubrics(); done = 1; break;
        case 'h': usage(stdout); done = 1; break;
        case 'V': printf("irlint (diagramir) %s\n", DIAGRAMIR_VERSION); done = 1; break;
        default: usage(stderr); rc = 2; goto out;
        }
    }
    if (done) goto out;
    o.rubric = chk_rubric_find(rubric);
    if (!o.rubric) {
        fprintf(stderr, "irlint: error: unknown rubric '%s' (see irlint --list)\n", rubric);
        rc = 2;
        goto out;
    }
    o.enabled = malloc(o.rubric->nchecks);
    if (!o.enabled) { perror("irlint"); rc = 2; goto out; }
    memset(o.enabled, 1, o.rubric->nchecks);
    int only_seen = 0;
    /* --only lists first (they reset the selection), then --skip */
    for (int i = 0; i < nlists; i++)
        if (list_on[i] == 1 && apply_list(&o, lists[i], 1, &only_seen) < 0) rc = 2;
    for (int i = 0; i < nlists; i++)
        if (!list_on[i] && apply_list(&o, lists[i], 0, &only_seen) < 0) rc = 2;
    /* parameters in command-line order: a later setting wins */
    for (int i = 0; i < nlists; i++) {
        char err[256];
        if (list_on[i] == 3 && read_params(o.rubric, lists[i]) < 0) rc = 2;
        if (list_on[i] == 2 && chk_param_set(o.rubric, lists[i], err, sizeof err) < 0) {
            fprintf(stderr, "irlint: error: --param: %s\n", err);
            rc = 2;
        }
    }
    if (requests_file && read_requests(&o, requests_file) < 0) rc = 2;
    if (rc) goto out;
    if (show_params) {
        list_params(o.rubric);
        goto out;
    }

    /* Larger stdio buffers: a 64 KiB read or write per system call, not 4
     * KiB (the same bytes; stdin is read only through these FILEs).
     * Output to a terminal stays as it is. */
    static char inbuf[1 << 16], outbuf[1 << 16];
#if defined(__GLIBC__)
    /* Each diagram allocates and frees the same few hundred KiB: keep the
     * freed heap (no trim and regrow, with their page faults, per
     * diagram; 219 brk calls over 20 passes of the dev IR before). */
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_TOP_PAD, 1 << 20);
#endif
    setvbuf(stdin, inbuf, _IOFBF, sizeof inbuf);
    if (!isatty(STDOUT_FILENO)) setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    if (o.fmt == FMT_TSV) printf("item\tcriterion\trater\tvalue\tnote\n");
    if (o.fmt == FMT_JSON) printf("[");
    if (o.fmt == FMT_IR) ir_write_header(stdout);
    if (optind >= argc) {
        rc = run_stream(&o, stdin, "<stdin>");
    } else {
        for (int i = optind; i < argc; i++) {
            if (!strcmp(argv[i], "-")) {
                if (run_stream(&o, stdin, "<stdin>")) rc = 2;
                continue;
            }
            FILE *f = fopen(argv[i], "r");
            if (!f) {
                fflush(stdout);
                fprintf(stderr, "irlint: %s: %s\n", argv[i], strerror(errno));
                rc = 2;
                continue;
            }
            static char filebuf[1 << 16];   /* one file open at a time */
            setvbuf(f, filebuf, _IOFBF, sizeof filebuf);
            if (run_stream(&o, f, argv[i])) rc = 2;
            fclose(f);
        }
    }
    if (o.fmt == FMT_JSON) printf("%s]\n", o.json_first ? "" : "\n");
    if (rc == 0 && o.any_no && !exit_zero) rc = 1;
out:
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "irlint: error writing output: %s\n", strerror(errno));
        rc = 2;
    }
    free(o.enabled);
    for (size_t i = 0; i < o.nreqs; i++) {
        free(o.reqs[i].item);
        free(o.reqs[i].text);
    }
    free(o.reqs);
    free(lists);
    free(list_on);
    return rc;
}
