/* llm/rubric.c — rubric files for judge: parsing, prompt templates, the
 * answer's schema check and its verdict rows. See judge(1), RUBRIC FILES. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "llm/image.h"
#include "llm/llm.h"

#define FILE_MAX (4u * 1024u * 1024u)
#define NOTE_MAX 500

typedef enum { F_TEXT, F_FILE, F_IMAGES, F_LIST, F_KEYPOINTS } fkind;
typedef enum { C_ENUM, C_INT, C_BOOL, C_PERIMAGE, C_LABELS, C_MATCHES, C_GEOMEAN, C_ERRORS,
               C_COUNT, C_KEYPOINTS } ckind;

typedef struct {
    char *name;
    fkind kind;
    int required;   /* 1: a value is required; 2: the column is (a cell may be empty) */
    int moded;      /* named by some mode line */
} rfield;

typedef struct {
    char *name;
    ckind kind;
    char **args;    /* enum values; geomean criteria; errors: label key, description key
                       [, the bool criterion whose true wants no error]; count: the errors
                       criterion it counts */
    size_t nargs;
    double lo, hi;  /* int, per-image; geomean: hi = the scale's maximum */
    char *f1, *f2;  /* per-image: field; matches: pred, ref fields */
    int skip_first;
} rcrit;

typedef struct {
    char *name;
    char **fields;
    size_t n;
} rmode;

typedef struct {
    char *name;     /* variant, "" for the default */
    char *text;
    int line;
} rblock;

typedef struct {
    char *domain, *label, *desc;
} rtax;

/* MathExplain's visual keypoints: {element: description} pairs. */
typedef struct {
    char **el, **desc;
    size_t n;
} kplist;

static void kp_free(kplist *k);
static int kp_load(const llm_item *it, const char *cellv, kplist *out, char *err, size_t errlen);

/* A request group: criteria judged together from the same inputs, in one
 * request (the prompt block named like the group), or with "each FIELD" in
 * one request per image of FIELD (against-first: per image after the
 * first, the first image sent beside it). */
typedef struct {
    char *name;
    size_t *crits;      /* indices into the rubric's criteria */
    size_t ncrits;
    char *each;         /* images field, or NULL */
    int against_first;
    size_t prompt;      /* index into prompts (set by check_rubric) */
} rgroup;

struct llm_rubric {
    char *name, *title, *file;
    rfield *fields;
    size_t nfields;
    rcrit *crits;
    size_t ncrits;
    rmode *modes;
    size_t nmodes;
    rblock *prompts;
    size_t nprompts;
    char *system, *repair;
    int system_line, repair_line;
    rtax *tax;
    size_t ntax;
    char *tax_field;
    const char **rownames;
    size_t nrownames;
    rgroup *groups;
    size_t ngroups;
};

/* ------------------------------------------------------------- strings */

typedef struct {
    char *s;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_addn(sbuf *b, const char *s, size_t n)
{
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1) cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) { b->oom = 1; return; }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}
static void sb_add(sbuf *b, const char *s) { sb_addn(b, s, strlen(s)); }
static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    sb_add(b, tmp);
}

static void free_strv(char **v, size_t n)
{
    if (!v) return;
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* Splits s at blanks; tokens are malloc'd. */
static char **split_ws(const char *s, size_t *n)
{
    char **v = NULL;
    *n = 0;
    while (*s) {
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) break;
        const char *e = s;
        while (*e && *e != ' ' && *e != '\t') e++;
        char **nv = realloc(v, (*n + 1) * sizeof *nv);
        if (!nv) break;
        v = nv;
        v[*n] = strndup(s, (size_t)(e - s));
        if (!v[*n]) break;
        (*n)++;
        s = e;
    }
    return v;
}

static void norm(const char *s, char *out, size_t n)
{
    size_t k = 0;
    int dash = 0;
    for (; *s && k + 1 < n; s++) {
        unsigned char c = (unsigned char)*s;
        if (isalnum(c)) {
            if (dash && k > 0 && k + 2 < n) out[k++] = '-';
            dash = 0;
            out[k++] = (char)tolower(c);
        } else {
            dash = 1;
        }
    }
    out[k] = 0;
}

/* ------------------------------------------------------------- parsing */

void llm_rubric_free(llm_rubric *r)
{
    if (!r) return;
    free(r->name);
    free(r->title);
    free(r->file);
    for (size_t i = 0; i < r->nfields; i++) free(r->fields[i].name);
    free(r->fields);
    for (size_t i = 0; i < r->ncrits; i++) {
        free(r->crits[i].name);
        free_strv(r->crits[i].args, r->crits[i].nargs);
        free(r->crits[i].f1);
        free(r->crits[i].f2);
    }
    free(r->crits);
    for (size_t i = 0; i < r->nmodes; i++) {
        free(r->modes[i].name);
        free_strv(r->modes[i].fields, r->modes[i].n);
    }
    free(r->modes);
    for (size_t i = 0; i < r->nprompts; i++) {
        free(r->prompts[i].name);
        free(r->prompts[i].text);
    }
    free(r->prompts);
    free(r->system);
    free(r->repair);
    for (size_t i = 0; i < r->ntax; i++) {
        free(r->tax[i].domain);
        free(r->tax[i].label);
        free(r->tax[i].desc);
    }
    free(r->tax);
    free(r->tax_field);
    for (size_t i = 0; i < r->nrownames; i++) free((char *)r->rownames[i]);
    free(r->rownames);
    for (size_t i = 0; i < r->ngroups; i++) {
        free(r->groups[i].name);
        free(r->groups[i].crits);
        free(r->groups[i].each);
    }
    free(r->groups);
    free(r);
}

static const rfield *find_field(const llm_rubric *r, const char *name)
{
    for (size_t i = 0; i < r->nfields; i++)
        if (strcmp(r->fields[i].name, name) == 0) return &r->fields[i];
    return NULL;
}

static const rcrit *find_crit(const llm_rubric *r, const char *name)
{
    for (size_t i = 0; i < r->ncrits; i++)
        if (strcmp(r->crits[i].name, name) == 0) return &r->crits[i];
    return NULL;
}

static int valid_name(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.') return 0;
    return 1;
}

static int parse_num(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && !*end && errno == 0 && isfinite(*v);
}

/* Template names: {{name}}, {{#name}}, {{^name}}, {{/name}}, {{@name}};
 * checks that each is known and sections nest. repair: 0 a prompt block, 1
 * the repair block, 2 the system block. -1 with a message. */
static int check_template(const llm_rubric *r, const char *t, int line, const char *file,
                          int repair, char *err, size_t errlen)
{
    const char *stack[32];
    int depth = 0;
    int ln = line;
    for (const char *p = t; *p; p++) {
        if (*p == '\n') { ln++; continue; }
        if (p[0] != '{' || p[1] != '{') continue;
        const char *e = strstr(p + 2, "}}");
        if (!e) {
            snprintf(err, errlen, "%s:%d:1: error: unclosed {{", file, ln);
            return -1;
        }
        char name[128];
        const char *s = p + 2;
        char sig = 0;
        if (*s == '#' || *s == '^' || *s == '/' || *s == '@') sig = *s++;
        size_t n = (size_t)(e - s);
        if (n == 0 || n >= sizeof name) {
            snprintf(err, errlen, "%s:%d:1: error: bad template name", file, ln);
            return -1;
        }
        memcpy(name, s, n);
        name[n] = 0;
        if (sig == '@') {
            const rfield *f = find_field(r, name);
            if (!f || f->kind != F_IMAGES || repair) {
                snprintf(err, errlen, "%s:%d:1: error: {{@%s}} places images: '%s' must be an "
                         "images field, in a prompt block", file, ln, name, name);
                return -1;
            }
            p = e + 1;
            continue;
        }
        int known = find_field(r, name) || strcmp(name, "item") == 0 ||
                    strcmp(name, "schema") == 0 || (strcmp(name, "taxonomy") == 0 && r->ntax) ||
                    (strcmp(name, "index") == 0 && r->ngroups) ||
                    (repair == 1 && strcmp(name, "error") == 0);
        if (!known) {
            snprintf(err, errlen, "%s:%d:1: error: unknown template name '%s' (not a field)", file,
                     ln, name);
            return -1;
        }
        if (sig == '#' || sig == '^') {
            if (depth == 32) {
                snprintf(err, errlen, "%s:%d:1: error: sections nested too deep", file, ln);
                return -1;
            }
            stack[depth++] = p + 3;
        } else if (sig == '/') {
            if (depth == 0 || strncmp(stack[depth - 1], name, n) != 0 ||
                stack[depth - 1][n] != '}') {
                snprintf(err, errlen, "%s:%d:1: error: {{/%s}} closes no open section", file, ln,
                         name);
                return -1;
            }
            depth--;
        }
        p = e + 1;
    }
    if (depth) {
        snprintf(err, errlen, "%s:%d:1: error: a section is not closed", file, line);
        return -1;
    }
    return 0;
}

static int load_taxonomy(llm_rubric *r, const char *path, const char *file, int line, char *err,
                         size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s:%d:10: error: taxonomy %s: %s", file, line, path,
                 strerror(errno));
        return -1;
    }
    char buf[2048];
    int ln = 0;
    while (fgets(buf, sizeof buf, f)) {
        ln++;
        buf[strcspn(buf, "\r\n")] = 0;
        if (!buf[0] || buf[0] == '#') continue;
        char *t1 = strchr(buf, '\t');
        char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t1) {
            snprintf(err, errlen, "%s:%d:1: error: expected domain<TAB>label<TAB>description", path,
                     ln);
            fclose(f);
            return -1;
        }
        *t1 = 0;
        if (t2) *t2 = 0;
        rtax *nt = realloc(r->tax, (r->ntax + 1) * sizeof *nt);
        if (!nt) { fclose(f); snprintf(err, errlen, "out of memory"); return -1; }
        r->tax = nt;
        nt[r->ntax].domain = strdup(buf);
        nt[r->ntax].label = strdup(t1 + 1);
        nt[r->ntax].desc = strdup(t2 ? t2 + 1 : "");
        r->ntax++;
    }
    fclose(f);
    return 0;
}

/* Row names are kebab-case, one style in every table (diagramir-formats(5)):
 * a criterion named for the paper's JSON key (is_correct) rates rows
 * is-correct. */
static void kebab(char *s)
{
    for (; *s; s++)
        if (*s == '_') *s = '-';
}

static int add_rowname(llm_rubric *r, const char *name)
{
    const char **nv = realloc(r->rownames, (r->nrownames + 1) * sizeof *nv);
    if (!nv) return -1;
    r->rownames = nv;
    char *nm = strdup(name);
    if (!nm) return -1;
    kebab(nm);
    nv[r->nrownames] = nm;
    r->nrownames++;
    return 0;
}

/* --------------------------------------------------------- rubric lines */

/* What a rubric line's handler found: the line is fine, it is wrong (why
 * says how when it knows), out of memory, or an error already written to
 * the parser's err (a taxonomy file, an unclosed block). */
enum { LINE_OK, LINE_BAD, LINE_OOM, LINE_FAIL };

typedef struct {
    llm_rubric *r;
    const char *file, *dir;
    const char *p, *end;    /* the text after the current line */
    int line;               /* the current line's number */
    char why[200];          /* what is wrong with the line, or "" */
    char *err;
    size_t errlen;
} rparser;

/* field NAME KIND [required|optional|column-required] */
static int line_field(rparser *ps, char **tok, size_t ntok)
{
    llm_rubric *r = ps->r;
    fkind k = F_TEXT;
    int bad = 0;
    if (ntok < 3 || ntok > 4 || !valid_name(tok[1])) bad = 1;
    else if (strcmp(tok[2], "text") == 0) k = F_TEXT;
    else if (strcmp(tok[2], "file") == 0) k = F_FILE;
    else if (strcmp(tok[2], "images") == 0) k = F_IMAGES;
    else if (strcmp(tok[2], "list") == 0) k = F_LIST;
    else if (strcmp(tok[2], "keypoints") == 0) k = F_KEYPOINTS;
    else { bad = 1; snprintf(ps->why, sizeof ps->why, "field kind must be text, file, images, list or keypoints"); }
    if (!bad && ntok == 4 && strcmp(tok[3], "required") != 0 && strcmp(tok[3], "optional") != 0 &&
        strcmp(tok[3], "column-required") != 0)
        bad = 1;
    if (!bad && find_field(r, tok[1])) { bad = 1; snprintf(ps->why, sizeof ps->why, "field %s declared twice", tok[1]); }
    if (bad) return LINE_BAD;
    rfield *nf = realloc(r->fields, (r->nfields + 1) * sizeof *nf);
    if (!nf) return LINE_OOM;
    r->fields = nf;
    int req = ntok < 4 ? 0 : strcmp(tok[3], "required") == 0 ? 1
                           : strcmp(tok[3], "column-required") == 0 ? 2 : 0;
    nf[r->nfields] = (rfield){strdup(tok[1]), k, req, 0};
    r->nfields++;
    return LINE_OK;
}

/* mode NAME FIELD... (the mode is kept even when it names an unknown field) */
static int line_mode(rparser *ps, char **tok, size_t ntok)
{
    llm_rubric *r = ps->r;
    int bad = 0;
    rmode *nm = realloc(r->modes, (r->nmodes + 1) * sizeof *nm);
    if (!nm) return LINE_OOM;
    r->modes = nm;
    nm[r->nmodes].name = strdup(tok[1]);
    nm[r->nmodes].n = ntok - 2;
    nm[r->nmodes].fields = calloc(ntok, sizeof(char *));
    for (size_t i = 2; i < ntok && nm[r->nmodes].fields; i++) {
        rfield *f = (rfield *)find_field(r, tok[i]);
        if (!f) { bad = 1; snprintf(ps->why, sizeof ps->why, "mode names unknown field '%s'", tok[i]); }
        else f->moded = 1;
        nm[r->nmodes].fields[i - 2] = strdup(tok[i]);
    }
    r->nmodes++;
    return bad ? LINE_BAD : LINE_OK;
}

/* taxonomy FILE DOMAIN-FIELD (FILE relative to the rubric's directory) */
static int line_taxonomy(rparser *ps, char **tok)
{
    llm_rubric *r = ps->r;
    char path[4096];
    if (tok[1][0] == '/' || !ps->dir) snprintf(path, sizeof path, "%s", tok[1]);
    else snprintf(path, sizeof path, "%s/%s", ps->dir, tok[1]);
    if (!find_field(r, tok[2])) {
        snprintf(ps->why, sizeof ps->why, "taxonomy domain field '%s' is not declared", tok[2]);
        return LINE_BAD;
    }
    if (load_taxonomy(r, path, ps->file, ps->line, ps->err, ps->errlen) != 0) return LINE_FAIL;
    free(r->tax_field);
    r->tax_field = strdup(tok[2]);
    return LINE_OK;
}

/* The kind and bounds of "criterion NAME KIND ARGS..." into c; 1 when the
 * line is wrong. */
static int criterion_kind(rparser *ps, char **tok, size_t ntok, rcrit *c)
{
    const llm_rubric *r = ps->r;
    const char *k = tok[2];
    double a, b;
    if (find_crit(r, tok[1])) {
        snprintf(ps->why, sizeof ps->why, "criterion %s declared twice", tok[1]);
        return 1;
    }
    if (strcmp(k, "enum") == 0 && ntok >= 4) {
        c->kind = C_ENUM;
    } else if (strcmp(k, "int") == 0 && ntok == 5 && parse_num(tok[3], &a) &&
               parse_num(tok[4], &b) && a <= b) {
        c->kind = C_INT;
        c->lo = a;
        c->hi = b;
    } else if (strcmp(k, "bool") == 0 && ntok == 3) {
        c->kind = C_BOOL;
    } else if (strcmp(k, "per-image") == 0 && (ntok == 6 || ntok == 7) &&
               parse_num(tok[3], &a) && parse_num(tok[4], &b) && a <= b && a >= 0) {
        const rfield *f = find_field(r, tok[5]);
        if (!f || f->kind != F_IMAGES) {
            snprintf(ps->why, sizeof ps->why, "per-image needs a declared images field");
            return 1;
        }
        if (ntok == 7 && strcmp(tok[6], "skip-first") != 0) return 1;
        c->kind = C_PERIMAGE;
        c->lo = a;
        c->hi = b;
        c->f1 = strdup(tok[5]);
        c->skip_first = ntok == 7;
    } else if (strcmp(k, "labels") == 0 && ntok == 3) {
        if (!r->ntax) {
            snprintf(ps->why, sizeof ps->why, "labels needs a taxonomy line before it");
            return 1;
        }
        c->kind = C_LABELS;
    } else if (strcmp(k, "errors") == 0 && (ntok == 5 || ntok == 6)) {
        if (!r->ntax) {
            snprintf(ps->why, sizeof ps->why, "errors needs a taxonomy line before it");
            return 1;
        }
        if (!valid_name(tok[3]) || !valid_name(tok[4])) return 1;
        if (ntok == 6) {
            const rcrit *o = find_crit(r, tok[5]);
            if (!o || o->kind != C_BOOL) {
                snprintf(ps->why, sizeof ps->why, "errors: '%s' is no earlier bool criterion", tok[5]);
                return 1;
            }
        }
        c->kind = C_ERRORS;
    } else if (strcmp(k, "count") == 0 && ntok == 4) {
        c->kind = C_COUNT;
    } else if (strcmp(k, "keypoints") == 0 && ntok == 3) {
        c->kind = C_KEYPOINTS;
    } else if (strcmp(k, "matches") == 0 && ntok == 5) {
        const rfield *f1 = find_field(r, tok[3]), *f2 = find_field(r, tok[4]);
        if (!f1 || !f2 || f1->kind != F_KEYPOINTS || f2->kind != F_KEYPOINTS) {
            snprintf(ps->why, sizeof ps->why, "matches needs two declared keypoints fields");
            return 1;
        }
        c->kind = C_MATCHES;
        c->f1 = strdup(tok[3]);
        c->f2 = strdup(tok[4]);
    } else if (strcmp(k, "geomean-percent") == 0 && ntok >= 5 && parse_num(tok[3], &b) &&
               b > 0) {
        c->kind = C_GEOMEAN;
        c->hi = b;
        for (size_t i = 4; i < ntok; i++) {
            const rcrit *o = find_crit(r, tok[i]);
            if (!o || (o->kind != C_INT && o->kind != C_PERIMAGE)) {
                snprintf(ps->why, sizeof ps->why, "geomean-percent of '%s', which is no earlier int or per-image criterion", tok[i]);
                return 1;
            }
        }
    } else {
        return 1;
    }
    return 0;
}

/* criterion NAME KIND ARGS...: the criterion and its output row names
 * (a matches criterion has six) */
static int line_criterion(rparser *ps, char **tok, size_t ntok)
{
    llm_rubric *r = ps->r;
    rcrit c = {0};
    if (criterion_kind(ps, tok, ntok, &c)) {
        free(c.f1);
        free(c.f2);
        return LINE_BAD;
    }
    if (c.kind == C_ENUM || c.kind == C_GEOMEAN || c.kind == C_ERRORS || c.kind == C_COUNT) {
        size_t from = c.kind == C_GEOMEAN ? 4 : 3;
        c.nargs = ntok - from;
        c.args = calloc(c.nargs, sizeof(char *));
        for (size_t i = 0; c.args && i < c.nargs; i++) c.args[i] = strdup(tok[from + i]);
    }
    rcrit *nc = realloc(r->crits, (r->ncrits + 1) * sizeof *nc);
    if (!nc) return LINE_OOM;
    r->crits = nc;
    c.name = strdup(tok[1]);
    nc[r->ncrits++] = c;
    if (c.kind == C_ERRORS)
        return !c.args || !c.args[0] || add_rowname(r, c.args[0]) != 0 ? LINE_OOM : LINE_OK;
    if (c.kind != C_MATCHES) return add_rowname(r, c.name) != 0 ? LINE_OOM : LINE_OK;
    static const char *suf[] = {"matched", "predicted", "reference", "precision", "recall", "f1"};
    for (int i = 0; i < 6; i++) {
        char nm[300];
        snprintf(nm, sizeof nm, "%s-%s", c.name, suf[i]);
        if (add_rowname(r, nm) != 0) return LINE_OOM;
    }
    return LINE_OK;
}

static size_t crit_index(const llm_rubric *r, const char *name)
{
    for (size_t i = 0; i < r->ncrits; i++)
        if (strcmp(r->crits[i].name, name) == 0) return i;
    return (size_t)-1;
}

/* The group criterion ci is in, or NULL. */
static const rgroup *crit_group(const llm_rubric *r, size_t ci)
{
    for (size_t g = 0; g < r->ngroups; g++)
        for (size_t k = 0; k < r->groups[g].ncrits; k++)
            if (r->groups[g].crits[k] == ci) return &r->groups[g];
    return NULL;
}

/* group NAME CRITERION... [each FIELD [against-first]] */
static int line_group(rparser *ps, char **tok, size_t ntok)
{
    llm_rubric *r = ps->r;
    size_t end = ntok;
    const char *each = NULL;
    int against = 0;
    for (size_t i = 2; i < ntok; i++) {
        if (strcmp(tok[i], "each") != 0) continue;
        end = i;
        if (i + 1 >= ntok || i + 3 < ntok ||
            (i + 2 < ntok && strcmp(tok[i + 2], "against-first") != 0)) {
            snprintf(ps->why, sizeof ps->why, "a group ends with each FIELD [against-first]");
            return LINE_BAD;
        }
        const rfield *f = find_field(r, tok[i + 1]);
        if (!f || f->kind != F_IMAGES) {
            snprintf(ps->why, sizeof ps->why, "each needs a declared images field");
            return LINE_BAD;
        }
        each = tok[i + 1];
        against = i + 2 < ntok;
        break;
    }
    if (end < 3) {
        snprintf(ps->why, sizeof ps->why, "a group names one criterion or more");
        return LINE_BAD;
    }
    for (size_t g = 0; g < r->ngroups; g++)
        if (strcmp(r->groups[g].name, tok[1]) == 0) {
            snprintf(ps->why, sizeof ps->why, "group %s declared twice", tok[1]);
            return LINE_BAD;
        }
    size_t *cs = calloc(end - 2, sizeof *cs);
    if (!cs) return LINE_OOM;
    for (size_t i = 2; i < end; i++) {
        size_t ci = crit_index(r, tok[i]);
        const char *why = NULL;
        if (ci == (size_t)-1) why = "is no earlier criterion";
        else if (r->crits[ci].kind == C_GEOMEAN) why = "is computed, not asked";
        else if (crit_group(r, ci)) why = "is in another group";
        else if (each && r->crits[ci].kind != C_INT) why = "is no int criterion (each asks one score an image)";
        for (size_t k = 2; !why && k < i; k++)
            if (strcmp(tok[k], tok[i]) == 0) why = "is named twice";
        if (why) {
            snprintf(ps->why, sizeof ps->why, "group %s: criterion '%s' %s", tok[1], tok[i], why);
            free(cs);
            return LINE_BAD;
        }
        cs[i - 2] = ci;
    }
    rgroup *ng = realloc(r->groups, (r->ngroups + 1) * sizeof *ng);
    if (!ng) { free(cs); return LINE_OOM; }
    r->groups = ng;
    ng[r->ngroups] = (rgroup){strdup(tok[1]), cs, end - 2, each ? strdup(each) : NULL, against, 0};
    r->ngroups++;
    return LINE_OK;
}

/* system | repair | prompt [VARIANT]: a text block, up to a line holding
 * only "." (a line starting ".." loses one dot) */
static int line_block(rparser *ps, const char *kw, char **tok, size_t ntok)
{
    llm_rubric *r = ps->r;
    int start = ps->line + 1;
    sbuf b = {0};
    int closed = 0;
    while (ps->p < ps->end) {
        const char *nl2 = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
        size_t l2 = nl2 ? (size_t)(nl2 - ps->p) : (size_t)(ps->end - ps->p);
        ps->line++;
        const char *q = ps->p;
        ps->p = nl2 ? nl2 + 1 : ps->end;
        if (l2 && q[l2 - 1] == '\r') l2--;
        if (l2 == 1 && q[0] == '.') { closed = 1; break; }
        if (l2 >= 2 && q[0] == '.' && q[1] == '.') { q++; l2--; }
        sb_addn(&b, q, l2);
        sb_add(&b, "\n");
    }
    if (!closed) {
        snprintf(ps->err, ps->errlen, "%s:%d:1: error: %s block has no closing \".\" line",
                 ps->file, start - 1, kw);
        free(b.s);
        return LINE_FAIL;
    }
    if (b.oom) { free(b.s); return LINE_OOM; }
    if (!b.s) b.s = strdup("");
    if (kw[0] == 's') { free(r->system); r->system = b.s; r->system_line = start; return LINE_OK; }
    if (kw[0] == 'r') { free(r->repair); r->repair = b.s; r->repair_line = start; return LINE_OK; }
    const char *vn = ntok == 2 ? tok[1] : "";
    for (size_t i = 0; i < r->nprompts; i++)
        if (strcmp(r->prompts[i].name, vn) == 0) {
            snprintf(ps->why, sizeof ps->why, "prompt variant '%s' defined twice", vn);
            free(b.s);
            ps->line = start - 1;   /* the error is the prompt line's */
            return LINE_BAD;
        }
    rblock *nb = realloc(r->prompts, (r->nprompts + 1) * sizeof *nb);
    if (!nb) { free(b.s); return LINE_OOM; }
    r->prompts = nb;
    nb[r->nprompts++] = (rblock){strdup(vn), b.s, start};
    return LINE_OK;
}

/* One rubric line (s: after its leading blanks, split into tok). */
static int rubric_line(rparser *ps, const char *s, char **tok, size_t ntok)
{
    llm_rubric *r = ps->r;
    const char *kw = tok[0];
    if (strcmp(kw, "rubric") == 0 && ntok == 2 && valid_name(tok[1])) {
        free(r->name);
        r->name = strdup(tok[1]);
        return LINE_OK;
    }
    if (strcmp(kw, "title") == 0) {
        free(r->title);
        r->title = strdup(s + 5 + strspn(s + 5, " \t"));
        return LINE_OK;
    }
    if (strcmp(kw, "field") == 0) return line_field(ps, tok, ntok);
    if (strcmp(kw, "mode") == 0 && ntok >= 2 && valid_name(tok[1])) return line_mode(ps, tok, ntok);
    if (strcmp(kw, "taxonomy") == 0 && ntok == 3) return line_taxonomy(ps, tok);
    if (strcmp(kw, "criterion") == 0 && ntok >= 3 && valid_name(tok[1]))
        return line_criterion(ps, tok, ntok);
    if (strcmp(kw, "group") == 0 && ntok >= 3 && valid_name(tok[1]))
        return line_group(ps, tok, ntok);
    if ((strcmp(kw, "system") == 0 && ntok == 1) || (strcmp(kw, "repair") == 0 && ntok == 1) ||
        (strcmp(kw, "prompt") == 0 && ntok <= 2))
        return line_block(ps, kw, tok, ntok);
    return LINE_BAD;
}

/* With groups: every asked criterion in one group, one prompt block per
 * group, named like it, and no other. -1 after writing the error. */
static int check_groups(llm_rubric *r, const char *file, char *err, size_t errlen)
{
    for (size_t ci = 0; ci < r->ncrits; ci++)
        if (r->crits[ci].kind != C_GEOMEAN && !crit_group(r, ci)) {
            snprintf(err, errlen, "%s:1:1: error: criterion %s is in no group (a rubric with "
                     "groups asks each criterion in one)", file, r->crits[ci].name);
            return -1;
        }
    for (size_t g = 0; g < r->ngroups; g++) {
        size_t k = 0;
        while (k < r->nprompts && strcmp(r->prompts[k].name, r->groups[g].name) != 0) k++;
        if (k == r->nprompts) {
            snprintf(err, errlen, "%s:1:1: error: group %s has no prompt block (prompt %s)", file,
                     r->groups[g].name, r->groups[g].name);
            return -1;
        }
        r->groups[g].prompt = k;
    }
    for (size_t k = 0; k < r->nprompts; k++) {
        size_t g = 0;
        while (g < r->ngroups && strcmp(r->prompts[k].name, r->groups[g].name) != 0) g++;
        if (g == r->ngroups) {
            snprintf(err, errlen, "%s:%d:1: error: prompt block '%s' is no group's (a rubric with "
                     "groups has one prompt block per group, named like it)", file,
                     r->prompts[k].line - 1, r->prompts[k].name);
            return -1;
        }
    }
    return 0;
}

/* The checks of the whole rubric once every line is read; -1 after
 * writing the error. */
static int check_rubric(llm_rubric *r, const char *file, int prompts_only, char *err,
                        size_t errlen)
{
    if (!r->name) { snprintf(err, errlen, "%s:1:1: error: no 'rubric NAME' line", file); return -1; }
    if (!r->nprompts) { snprintf(err, errlen, "%s:1:1: error: no prompt block", file); return -1; }
    if (!r->ncrits && !prompts_only) {
        snprintf(err, errlen, "%s:1:1: error: no criterion", file);
        return -1;
    }
    if (r->ncrits && prompts_only) {
        snprintf(err, errlen, "%s:1:1: error: a prompt file has no criterion lines (the program checks the answer)", file);
        return -1;
    }
    for (size_t i = 0; i < r->ncrits; i++)
        if (r->crits[i].kind == C_COUNT &&
            (!r->crits[i].args || !find_crit(r, r->crits[i].args[0]) ||
             find_crit(r, r->crits[i].args[0])->kind != C_ERRORS)) {
            snprintf(err, errlen, "%s:1:1: error: criterion %s counts '%s', which is no errors "
                     "criterion", file, r->crits[i].name, r->crits[i].args[0]);
            return -1;
        }
    if (r->ngroups && check_groups(r, file, err, errlen) != 0) return -1;
    if (r->system && check_template(r, r->system, r->system_line, file, 2, err, errlen)) return -1;
    if (r->repair && check_template(r, r->repair, r->repair_line, file, 1, err, errlen)) return -1;
    for (size_t i = 0; i < r->nprompts; i++)
        if (check_template(r, r->prompts[i].text, r->prompts[i].line, file, 0, err, errlen))
            return -1;
    return 0;
}

static llm_rubric *parse(const char *text, size_t n, const char *file, const char *dir,
                         int prompts_only, char *err, size_t errlen)
{
    err[0] = 0;
    char *buf = NULL;
    llm_rubric *r = calloc(1, sizeof *r);
    if (!r) { snprintf(err, errlen, "out of memory"); return NULL; }
    r->file = strdup(file);
    if (memchr(text, 0, n)) {
        snprintf(err, errlen, "%s:1:1: error: NUL byte in rubric", file);
        goto fail;
    }
    rparser ps = {.r = r, .file = file, .dir = dir, .p = text, .end = text + n,
                  .err = err, .errlen = errlen};
    while (ps.p < ps.end) {
        const char *nl = memchr(ps.p, '\n', (size_t)(ps.end - ps.p));
        size_t len = nl ? (size_t)(nl - ps.p) : (size_t)(ps.end - ps.p);
        ps.line++;
        free(buf);
        buf = strndup(ps.p, len);
        ps.p = nl ? nl + 1 : ps.end;
        if (!buf) goto oom;
        size_t bl = strlen(buf);
        if (bl && buf[bl - 1] == '\r') buf[--bl] = 0;
        char *s = buf;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s || *s == '#') continue;
        size_t ntok;
        char **tok = split_ws(s, &ntok);
        if (!tok || ntok == 0) { free(tok); goto oom; }
        ps.why[0] = 0;
        int st = rubric_line(&ps, s, tok, ntok);
        free_strv(tok, ntok);
        if (st == LINE_OOM) goto oom;
        if (st == LINE_FAIL) goto fail;
        if (st == LINE_BAD) {
            snprintf(err, errlen, "%s:%d:1: error: %s", file, ps.line,
                     ps.why[0] ? ps.why : "not a rubric line (rubric, title, field, mode, taxonomy, criterion, group, system, prompt, repair)");
            goto fail;
        }
    }
    free(buf);
    buf = NULL;
    if (check_rubric(r, file, prompts_only, err, errlen) != 0) goto fail;
    return r;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    free(buf);
    llm_rubric_free(r);
    return NULL;
}

llm_rubric *llm_rubric_parse(const char *text, size_t n, const char *file, const char *dir,
                             char *err, size_t errlen)
{
    return parse(text, n, file, dir, 0, err, errlen);
}

static llm_rubric *load(const char *path, int prompts_only, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    sbuf b = {0};
    char chunk[8192];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0 && b.n < FILE_MAX) sb_addn(&b, chunk, k);
    fclose(f);
    if (b.oom || b.n >= FILE_MAX) {
        free(b.s);
        snprintf(err, errlen, "%s: too large or out of memory", path);
        return NULL;
    }
    char *dir = strdup(path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash) *slash = 0;
    llm_rubric *r = parse(b.s ? b.s : "", b.n, path, slash ? dir : ".", prompts_only, err, errlen);
    free(dir);
    free(b.s);
    return r;
}

llm_rubric *llm_rubric_load(const char *path, char *err, size_t errlen)
{
    return load(path, 0, err, errlen);
}

llm_rubric *llm_prompt_load(const char *path, char *err, size_t errlen)
{
    return load(path, 1, err, errlen);
}

const char *llm_rubric_name(const llm_rubric *r) { return r->name; }
const char *llm_rubric_title(const llm_rubric *r) { return r->title ? r->title : r->name; }
const char *llm_rubric_default_mode(const llm_rubric *r)
{
    return r->nmodes ? r->modes[0].name : "";
}
int llm_rubric_has_mode(const llm_rubric *r, const char *mode)
{
    for (size_t i = 0; i < r->nmodes; i++)
        if (strcmp(r->modes[i].name, mode) == 0) return 1;
    return 0;
}
int llm_rubric_has_variant(const llm_rubric *r, const char *variant)
{
    for (size_t i = 0; i < r->nprompts; i++)
        if (strcmp(r->prompts[i].name, variant) == 0) return 1;
    return 0;
}
size_t llm_rubric_row_names(const llm_rubric *r, const char ***names)
{
    *names = r->rownames;
    return r->nrownames;
}

void llm_rubric_describe(const llm_rubric *r, FILE *f)
{
    static const char *fk[] = {"text", "file", "images", "list", "keypoints"};
    fprintf(f, "%s\t%s\n", r->name, llm_rubric_title(r));
    for (size_t i = 0; i < r->nfields; i++)
        fprintf(f, "  field %-18s %s%s\n", r->fields[i].name, fk[r->fields[i].kind],
                r->fields[i].required == 1 ? " required"
                : r->fields[i].required == 2 ? " column-required" : "");
    for (size_t i = 0; i < r->nmodes; i++) {
        fprintf(f, "  mode  %-18s", r->modes[i].name);
        for (size_t k = 0; k < r->modes[i].n; k++) fprintf(f, " %s", r->modes[i].fields[k]);
        fputc('\n', f);
    }
    for (size_t i = 0; i < r->nprompts && !r->ngroups; i++)
        fprintf(f, "  variant %s\n", r->prompts[i].name[0] ? r->prompts[i].name : "(default)");
    for (size_t g = 0; g < r->ngroups; g++) {
        const rgroup *G = &r->groups[g];
        fprintf(f, "  group %s", G->name);
        for (size_t k = 0; k < G->ncrits; k++) fprintf(f, " %s", r->crits[G->crits[k]].name);
        if (G->each) fprintf(f, " each %s%s", G->each, G->against_first ? " against-first" : "");
        fputc('\n', f);
    }
    for (size_t i = 0; i < r->nrownames; i++) fprintf(f, "  row   %s\n", r->rownames[i]);
    for (size_t i = 0; i < r->ncrits; i++) {
        const rcrit *c = &r->crits[i];
        if (c->kind == C_INT || c->kind == C_PERIMAGE) fprintf(f, "  scale %s %g..%g\n", c->name, c->lo, c->hi);
        if (c->kind == C_GEOMEAN) fprintf(f, "  scale %s geometric mean, %% of %g\n", c->name, c->hi);
    }
    for (size_t i = 0; i < r->ntax; i++)
        fprintf(f, "  label %s::%s\t%s\n", r->tax[i].domain, r->tax[i].label, r->tax[i].desc);
}

/* ------------------------------------------------------------ items */

static const char *cell(const llm_item *it, const char *name)
{
    for (size_t i = 0; i < it->n; i++)
        if (strcmp(it->names[i], name) == 0) return it->values[i];
    return NULL;
}

/* The cell of a field as this mode sees it: NULL when absent, empty or left
 * out by the mode. */
static const char *field_value(const llm_rubric *r, const char *mode, const llm_item *it,
                               const rfield *f)
{
    if (f->moded && mode) {
        int used = 0;
        for (size_t i = 0; i < r->nmodes; i++) {
            if (strcmp(r->modes[i].name, mode) != 0) continue;
            for (size_t k = 0; k < r->modes[i].n; k++)
                if (strcmp(r->modes[i].fields[k], f->name) == 0) used = 1;
        }
        if (!used) return NULL;
    }
    const char *v = cell(it, f->name);
    return v && *v ? v : NULL;
}

static void resolve(const llm_item *it, const char *rel, char *out, size_t n)
{
    if (rel[0] == '/' || !it->dir || !*it->dir) snprintf(out, n, "%s", rel);
    else snprintf(out, n, "%s/%s", it->dir, rel);
}

/* Splits a list cell at '|' (blanks around items trimmed; empty items
 * dropped). Returns the count; items (if not NULL) get malloc'd copies. */
static size_t split_list(const char *v, char ***items)
{
    size_t n = 0;
    if (items) *items = NULL;
    if (!v) return 0;
    const char *p = v;
    for (;;) {
        const char *e = strchr(p, '|');
        const char *s = p, *t = e ? e : p + strlen(p);
        while (s < t && isspace((unsigned char)*s)) s++;
        while (t > s && isspace((unsigned char)t[-1])) t--;
        if (t > s) {
            if (items) {
                char **nv = realloc(*items, (n + 1) * sizeof *nv);
                if (!nv) return n;
                *items = nv;
                nv[n] = strndup(s, (size_t)(t - s));
                if (!nv[n]) return n;
            }
            n++;
        }
        if (!e) break;
        p = e + 1;
    }
    return n;
}

static const char *item_domain(const llm_rubric *r, const llm_item *it)
{
    return r->tax_field ? cell(it, r->tax_field) : NULL;
}

int llm_rubric_check_item(const llm_rubric *r, const char *mode, const llm_item *it, char *err,
                          size_t errlen)
{
    for (size_t i = 0; i < r->nfields; i++) {
        const rfield *f = &r->fields[i];
        const char *v = field_value(r, mode, it, f);
        if (!v) {
            int used = !f->moded;
            for (size_t m = 0; m < r->nmodes && !used; m++)
                if (mode && strcmp(r->modes[m].name, mode) == 0)
                    for (size_t k = 0; k < r->modes[m].n; k++)
                        if (strcmp(r->modes[m].fields[k], f->name) == 0) used = 1;
            if (f->required == 1 && used) {
                if (cell(it, f->name))
                    snprintf(err, errlen, "item %s: field '%s' is required (empty)", it->id, f->name);
                else
                    snprintf(err, errlen, "item %s: field '%s' is required (no such column): rubric "
                             "%s reads it", it->id, f->name, r->name);
                return -1;
            }
            if (f->required == 2 && used && !cell(it, f->name)) {
                snprintf(err, errlen, "item %s: the manifest has no column '%s', which rubric %s "
                         "reads (leave its cell empty for an item without one)", it->id, f->name,
                         r->name);
                return -1;
            }
            continue;
        }
        if (f->kind == F_KEYPOINTS) {
            kplist k;
            char e2[600];
            if (kp_load(it, v, &k, e2, sizeof e2) != 0) {
                snprintf(err, errlen, "item %s: %s: %s", it->id, f->name, e2);
                return -1;
            }
            kp_free(&k);
            continue;
        }
        if (f->kind == F_FILE || f->kind == F_IMAGES) {
            char **paths = NULL;
            size_t np = f->kind == F_FILE ? 1 : split_list(v, &paths);
            for (size_t k = 0; k < np; k++) {
                char path[4096];
                resolve(it, f->kind == F_FILE ? v : paths[k], path, sizeof path);
                char why[4400];
                if (access(path, R_OK) != 0) {
                    snprintf(err, errlen, "item %s: %s: %s: %s", it->id, f->name, path,
                             strerror(errno));
                    free_strv(paths, np);
                    return -1;
                }
                if (llm_path_allowed(it, path, why, sizeof why) != 0) {
                    snprintf(err, errlen, "item %s: %s: %s", it->id, f->name, why);
                    free_strv(paths, np);
                    return -1;
                }
            }
            free_strv(paths, np);
        }
    }
    if (r->tax_field) {
        const char *d = item_domain(r, it);
        int ok = 0;
        for (size_t i = 0; d && i < r->ntax; i++)
            if (strcmp(r->tax[i].domain, d) == 0) ok = 1;
        if (!ok) {
            snprintf(err, errlen, "item %s: %s '%s' is not a taxonomy domain", it->id, r->tax_field,
                     d ? d : "");
            return -1;
        }
    }
    return 0;
}

static char *slurp(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    sbuf b = {0};
    char chunk[8192];
    size_t k;
    while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
        sb_addn(&b, chunk, k);
        if (b.n > FILE_MAX) break;
    }
    fclose(f);
    if (b.oom || b.n > FILE_MAX) {
        free(b.s);
        snprintf(err, errlen, "%s: larger than %u bytes", path, FILE_MAX);
        return NULL;
    }
    if (!b.s) return strdup("");
    if (memchr(b.s, 0, b.n)) {
        free(b.s);
        snprintf(err, errlen, "%s: binary file (NUL byte)", path);
        return NULL;
    }
    return b.s;
}

/* ------------------------------------------------------------ keypoints */

static const cJSON *entry(const cJSON *ans, const char *name);

static void kp_free(kplist *k)
{
    free_strv(k->el, k->n);
    free_strv(k->desc, k->n);
    *k = (kplist){0};
}

static int kp_add(kplist *k, const char *el, const char *desc)
{
    char **a = realloc(k->el, (k->n + 1) * sizeof *a);
    if (!a) return -1;
    k->el = a;
    char **b = realloc(k->desc, (k->n + 1) * sizeof *b);
    if (!b) return -1;
    k->desc = b;
    a[k->n] = strdup(el);
    b[k->n] = strdup(desc);
    if (!a[k->n] || !b[k->n]) { free(a[k->n]); free(b[k->n]); return -1; }
    k->n++;
    return 0;
}

/* The keypoint rows of item id in a judge table (tab-separated, a header
 * naming item, criterion, value and, optionally, note): what judge --rubric
 * mathexplain-parse writes (Figure 8's parsing step), a row "none" for no
 * keypoints.  Returns the number of rows found (a "none" row counts), -1
 * when the header lacks a column, -2 when out of memory. */
static int kp_from_table(char *txt, const char *id, kplist *out)
{
    int ci = -1, cc = -1, cv = -1, cn = -1, rows = 0, line = 0;
    for (char *p = txt, *nl; p && *p; p = nl ? nl + 1 : NULL, line++) {
        nl = strchr(p, '\n');
        if (nl) *nl = 0;
        size_t len = strlen(p);
        if (len && p[len - 1] == '\r') p[--len] = 0;
        char *f[16];
        int nf = 0;
        for (char *q = p; nf < 16;) {
            f[nf++] = q;
            char *t = strchr(q, '\t');
            if (!t) break;
            *t = 0;
            q = t + 1;
        }
        if (line == 0) {
            for (int k = 0; k < nf; k++) {
                if (!strcmp(f[k], "item")) ci = k;
                else if (!strcmp(f[k], "criterion")) cc = k;
                else if (!strcmp(f[k], "value")) cv = k;
                else if (!strcmp(f[k], "note")) cn = k;
            }
            if (ci < 0 || cc < 0 || cv < 0) return -1;
            continue;
        }
        if (p[0] == '#' || nf <= ci || nf <= cc || nf <= cv) continue;
        if (strcmp(f[ci], id) != 0 || strcmp(f[cc], "keypoint") != 0) continue;
        rows++;
        if (!strcmp(f[cv], "none")) continue;
        if (kp_add(out, f[cv], cn >= 0 && nf > cn ? f[cn] : "") != 0) { kp_free(out); return -2; }
    }
    return rows;
}

/* Reads the keypoints file of a cell: the JSON a model wrote (whole, fenced
 * or embedded): an array of {"element": E, "description": D} objects (the
 * paper's Figure 8 form), or one object {E: D, ...}. -1 with the reason. */
static int kp_load(const llm_item *it, const char *cellv, kplist *out, char *err, size_t errlen)
{
    char path[4096], e2[300];
    *out = (kplist){0};
    resolve(it, cellv, path, sizeof path);
    char *txt = slurp(path, err, errlen);
    if (!txt) return -1;
    if (strncmp(txt, "item\t", 5) == 0) {   /* a judge table: its keypoint rows of this item */
        int rc = kp_from_table(txt, it->id, out);
        free(txt);
        if (rc == -2) snprintf(err, errlen, "out of memory");
        else if (rc < 0) snprintf(err, errlen, "%s: a table without the columns item, criterion, "
                                  "value (judge's)", path);
        else if (rc == 0) snprintf(err, errlen, "%s: no keypoint row of item %s (judge --rubric "
                                   "mathexplain-parse writes them)", path, it->id);
        return rc > 0 ? 0 : -1;
    }
    cJSON *j = llm_answer_json_value(txt, strlen(txt), e2, sizeof e2);
    free(txt);
    if (!j) {
        snprintf(err, errlen, "%s: no keypoints JSON (%s)", path, e2);
        return -1;
    }
    int bad = 0;
    const cJSON *e;
    if (cJSON_IsArray(j)) {
        cJSON_ArrayForEach(e, j)
        {
            const cJSON *el = cJSON_IsObject(e) ? entry(e, "element") : NULL;
            const cJSON *d = cJSON_IsObject(e) ? entry(e, "description") : NULL;
            if (!cJSON_IsString(el) || !*el->valuestring || (d && !cJSON_IsString(d))) { bad = 1; break; }
            if (kp_add(out, el->valuestring, d ? d->valuestring : "") != 0) { bad = 2; break; }
        }
    } else {
        cJSON_ArrayForEach(e, j)
        {
            if (!e->string || !*e->string || !cJSON_IsString(e)) { bad = 1; break; }
            if (kp_add(out, e->string, e->valuestring) != 0) { bad = 2; break; }
        }
    }
    cJSON_Delete(j);
    if (bad) {
        kp_free(out);
        if (bad == 2) snprintf(err, errlen, "out of memory");
        else snprintf(err, errlen, "%s: keypoints must be an array of {\"element\": \"...\", "
                      "\"description\": \"...\"} objects or one {\"element\": \"description\"} object", path);
        return -1;
    }
    return 0;
}

/* The keypoints as the paper's prompts list them: a JSON array of
 * {"element", "description"} objects, one a line. */
static void kp_text(const kplist *k, sbuf *b)
{
    if (!k->n) { sb_add(b, "[]\n"); return; }
    sb_add(b, "[\n");
    for (size_t i = 0; i < k->n; i++) {
        cJSON *el = cJSON_CreateString(k->el[i]), *d = cJSON_CreateString(k->desc[i]);
        char *se = el ? cJSON_PrintUnformatted(el) : NULL, *sd = d ? cJSON_PrintUnformatted(d) : NULL;
        if (!se || !sd) b->oom = 1;
        else sb_printf(b, "  { \"element\": %s, \"description\": %s }%s\n", se, sd, i + 1 < k->n ? "," : "");
        free(se);
        free(sd);
        cJSON_Delete(el);
        cJSON_Delete(d);
    }
    sb_add(b, "]\n");
}

static int in_group(const rgroup *g, size_t ci)
{
    for (size_t k = 0; g && k < g->ncrits; k++)
        if (g->crits[k] == ci) return 1;
    return !g;
}

/* The answer's JSON schema: every asked criterion, or a group's. */
static void schema_text(const llm_rubric *r, const rgroup *grp, sbuf *b)
{
    sb_add(b, "{\n");
    int first = 1;
    for (size_t i = 0; i < r->ncrits; i++) {
        const rcrit *c = &r->crits[i];
        if (c->kind == C_GEOMEAN || !in_group(grp, i)) continue;
        sb_printf(b, "%s  \"%s\": ", first ? "" : ",\n", c->name);
        first = 0;
        switch (c->kind) {
        case C_ENUM:
            sb_add(b, "{\"answer\": ");
            for (size_t k = 0; k < c->nargs; k++) sb_printf(b, "%s\"%s\"", k ? " | " : "", c->args[k]);
            sb_add(b, ", \"reason\": \"<one sentence>\"}");
            break;
        case C_INT:
            sb_printf(b, "{\"score\": <integer %g to %g>, \"reason\": \"<one sentence>\"}", c->lo, c->hi);
            break;
        case C_BOOL:
            sb_add(b, "{\"answer\": true | false, \"reason\": \"<one sentence>\"}");
            break;
        case C_PERIMAGE:
            sb_printf(b, "[<integer %g to %g>, ... one per %simage, in order]", c->lo, c->hi,
                      c->skip_first ? "image after the first " : "");
            break;
        case C_LABELS:
            sb_add(b, "[\"<label from the taxonomy>\", ...]  (empty when there is no error)");
            break;
        case C_MATCHES:
            sb_add(b, "[{\"Reference\": \"<reference element>\", \"Generated\": \"<matched generated element>\" | null}, ...]  (one per reference element)");
            break;
        case C_KEYPOINTS:
            sb_add(b, "[{\"element\": \"<element>\", \"description\": \"<what it shows>\"}, ...]");
            break;
        case C_ERRORS:
            sb_printf(b, "[{\"%s\": \"<label from the taxonomy>\", \"%s\": \"<one sentence>\"}, ...]",
                      c->args[0], c->args[1]);
            break;
        case C_COUNT:
            sb_printf(b, "<integer: the number of entries of \"%s\">", c->args[0]);
            break;
        case C_GEOMEAN:
            break;
        }
    }
    sb_add(b, "\n}");
}

/* Renders template t for the item; sections {{#f}}..{{/f}} keep their text
 * when f has a value, {{^f}}..{{/f}} when it has none. */
/* Attaches the images of field f (this item, this mode) to req's user
 * message, in order. -1 with the reason. */
static int add_images(const llm_rubric *r, const char *mode, const llm_item *it,
                      const rfield *f, llm_request *req, int labelled, char *err, size_t errlen)
{
    char **paths;
    size_t np = split_list(field_value(r, mode, it, f), &paths);
    int rc = 0;
    for (size_t k = 0; k < np && rc == 0; k++) {
        char path[4096], label[300];
        resolve(it, paths[k], path, sizeof path);
        if (labelled) {
            snprintf(label, sizeof label, "[%s %zu]", f->name, k + 1);
            llm_request_add_text(req, "user", label);
        }
        rc = llm_images_attach_file(it->images, req, path, err, errlen) ? -1 : 0;
    }
    free_strv(paths, np);
    return rc;
}

/* Whether the prompt places f's images itself ({{@f}}). */
static int placed(const char *t, const char *name)
{
    for (const char *p = strstr(t, "{{@"); p; p = strstr(p + 3, "{{@")) {
        size_t n = strlen(name);
        if (strncmp(p + 3, name, n) == 0 && strncmp(p + 3 + n, "}}", 2) == 0) return 1;
    }
    return 0;
}

/* Renders template t for the item into out; with req, {{@field}} ends the
 * text so far (a user text part of req) and attaches the field's images
 * there, so text and images alternate as the template has them. */
static int render(const llm_rubric *r, const rgroup *grp, size_t index, const char *mode,
                  const llm_item *it, const char *t, const char *error, sbuf *out,
                  llm_request *req, char *err, size_t errlen)
{
    int skip = 0;           /* depth of sections being skipped */
    const char *p = t;
    while (*p) {
        const char *o = strstr(p, "{{");
        if (!o) {
            if (!skip) sb_add(out, p);
            break;
        }
        if (!skip) sb_addn(out, p, (size_t)(o - p));
        const char *e = strstr(o + 2, "}}");
        if (!e) break;   /* checked at load */
        const char *s = o + 2;
        char sig = 0;
        if (*s == '#' || *s == '^' || *s == '/' || *s == '@') sig = *s++;
        char name[128];
        size_t n = (size_t)(e - s) < sizeof name - 1 ? (size_t)(e - s) : sizeof name - 1;
        memcpy(name, s, n);
        name[n] = 0;
        p = e + 2;
        const rfield *f = find_field(r, name);
        const char *v = f ? field_value(r, mode, it, f) : NULL;
        int has = f ? v != NULL : strcmp(name, "error") == 0 ? error && *error
                                : strcmp(name, "index") == 0 ? index > 0 : 1;
        if (sig == '#' || sig == '^') {
            if (skip) skip++;
            else if ((sig == '#') != (has != 0)) skip = 1;
            /* a section's opening line break is dropped */
            if (*p == '\n') p++;
            continue;
        }
        if (sig == '/') {
            if (skip) skip--;
            if (*p == '\n') p++;
            continue;
        }
        if (skip) continue;
        if (sig == '@') {
            if (!req || !f || !v) continue;
            if (out->oom) break;
            if (out->n && llm_request_add_text(req, "user", out->s) != 0) out->oom = 1;
            out->n = 0;
            if (out->s) out->s[0] = 0;
            if (add_images(r, mode, it, f, req, 0, err, errlen) != 0) return -1;
            continue;
        }
        if (strcmp(name, "item") == 0 && !f) sb_add(out, it->id);
        else if (strcmp(name, "schema") == 0 && !f) schema_text(r, grp, out);
        else if (strcmp(name, "index") == 0 && !f) sb_printf(out, "%zu", index);
        else if (strcmp(name, "error") == 0 && !f) sb_add(out, error ? error : "");
        else if (strcmp(name, "taxonomy") == 0 && !f) {
            const char *d = item_domain(r, it);
            for (size_t i = 0; d && i < r->ntax; i++)
                if (strcmp(r->tax[i].domain, d) == 0)
                    sb_printf(out, "- %s: %s\n", r->tax[i].label, r->tax[i].desc);
        } else if (f && v) {
            if (f->kind == F_TEXT) {
                for (const char *q = v; *q; q++) {
                    if (*q == '\\' && (q[1] == 'n' || q[1] == 't' || q[1] == '\\')) {
                        sb_addn(out, q[1] == 'n' ? "\n" : q[1] == 't' ? "\t" : "\\", 1);
                        q++;
                    } else {
                        sb_addn(out, q, 1);
                    }
                }
            } else if (f->kind == F_FILE) {
                char path[4096];
                resolve(it, v, path, sizeof path);
                char *txt = slurp(path, err, errlen);
                if (!txt) return -1;
                sb_add(out, txt);
                free(txt);
            } else if (f->kind == F_KEYPOINTS) {
                kplist k;
                if (kp_load(it, v, &k, err, errlen) != 0) return -1;
                kp_text(&k, out);
                kp_free(&k);
            } else if (f->kind == F_LIST) {
                char **items;
                size_t k = split_list(v, &items);
                for (size_t i = 0; i < k; i++) sb_printf(out, "%zu. %s\n", i + 1, items[i]);
                free_strv(items, k);
            } else {
                sb_printf(out, "%zu", split_list(v, NULL));
            }
        }
    }
    if (out->oom) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

/* Request k of an item: its group (NULL without groups) and the image of
 * an each group it scores (0-based; SIZE_MAX none). -1 when k is past the
 * item's last request. */
static int request_slot(const llm_rubric *r, const char *mode, const llm_item *it, size_t k,
                        const rgroup **grp, size_t *img)
{
    *grp = NULL;
    *img = (size_t)-1;
    if (!r->ngroups) return k == 0 ? 0 : -1;
    for (size_t g = 0; g < r->ngroups; g++) {
        const rgroup *G = &r->groups[g];
        size_t n = 1, first = 0;
        if (G->each) {
            n = split_list(field_value(r, mode, it, find_field(r, G->each)), NULL);
            if (G->against_first) { first = 1; n = n ? n - 1 : 0; }
        }
        if (k < n) {
            *grp = G;
            if (G->each) *img = first + k;
            return 0;
        }
        k -= n;
    }
    return -1;
}

size_t llm_rubric_nrequests(const llm_rubric *r, const char *mode, const llm_item *it)
{
    size_t n = 0;
    const rgroup *g;
    size_t img;
    while (request_slot(r, mode, it, n, &g, &img) == 0) n++;
    return n;
}

const char *llm_rubric_request_group(const llm_rubric *r, const char *mode, const llm_item *it,
                                     size_t k, size_t *image)
{
    const rgroup *g;
    size_t img;
    if (request_slot(r, mode, it, k, &g, &img) != 0 || !g) {
        if (image) *image = 0;
        return NULL;
    }
    if (image) *image = img == (size_t)-1 ? 0 : img + 1;
    return g->name;
}

static llm_request *build_request(const llm_rubric *r, const char *mode, const rblock *pr,
                                  const rgroup *grp, size_t index, const llm_item *it, char *err,
                                  size_t errlen)
{
    llm_request *req = llm_request_new();
    if (!req) { snprintf(err, errlen, "out of memory"); return NULL; }
    llm_request_set_tag(req, it->id);
    sbuf b = {0};
    if (r->system) {
        if (render(r, grp, index, mode, it, r->system, NULL, &b, NULL, err, errlen) != 0) goto fail;
        if (llm_request_add_text(req, "system", b.s ? b.s : "") != 0) goto oom;
        free(b.s);
        b = (sbuf){0};
    }
    /* images the prompt places ({{@field}}) go where it places them */
    int inline_any = 0;
    for (size_t i = 0; i < r->nfields; i++)
        if (r->fields[i].kind == F_IMAGES && placed(pr->text, r->fields[i].name)) inline_any = 1;
    if (render(r, grp, index, mode, it, pr->text, NULL, &b, req, err, errlen) != 0) goto fail;
    if (b.oom) goto oom;
    if ((b.n || !inline_any) && llm_request_add_text(req, "user", b.s ? b.s : "") != 0) goto oom;
    free(b.s);
    b = (sbuf){0};
    /* without groups, the others after the text, labelled when there is more
     * than one; a group's request has only the images its prompt places */
    if (r->ngroups) return req;
    size_t total = 0;
    for (size_t i = 0; i < r->nfields; i++)
        if (r->fields[i].kind == F_IMAGES && !placed(pr->text, r->fields[i].name))
            total += split_list(field_value(r, mode, it, &r->fields[i]), NULL);
    for (size_t i = 0; i < r->nfields; i++) {
        const rfield *f = &r->fields[i];
        if (f->kind != F_IMAGES || placed(pr->text, f->name)) continue;
        if (add_images(r, mode, it, f, req, total > 1, err, errlen) != 0) goto fail;
    }
    return req;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    free(b.s);
    llm_request_free(req);
    return NULL;
}

llm_request *llm_rubric_request_at(const llm_rubric *r, const char *mode, const char *variant,
                                   const llm_item *it, size_t k, char *err, size_t errlen)
{
    err[0] = 0;
    const rgroup *grp;
    size_t img;
    if (request_slot(r, mode, it, k, &grp, &img) != 0) {
        snprintf(err, errlen, "item %s has no request %zu", it->id, k + 1);
        return NULL;
    }
    const rblock *pr = &r->prompts[0];
    if (grp) pr = &r->prompts[grp->prompt];
    else
        for (size_t i = 0; variant && i < r->nprompts; i++)
            if (strcmp(r->prompts[i].name, variant) == 0) pr = &r->prompts[i];
    if (!grp || !grp->each) return build_request(r, mode, pr, grp, 0, it, err, errlen);
    /* an each group's request sees its field as the image it scores (after
     * the first image with against-first) */
    size_t fi = 0;
    while (fi < it->n && strcmp(it->names[fi], grp->each) != 0) fi++;
    char **paths;
    size_t np = split_list(field_value(r, mode, it, find_field(r, grp->each)), &paths);
    char **vals = calloc(it->n ? it->n : 1, sizeof *vals);
    sbuf v = {0};
    llm_request *req = NULL;
    if (vals && fi < it->n && img < np) {
        if (grp->against_first) { sb_add(&v, paths[0]); sb_add(&v, "|"); }
        sb_add(&v, paths[img]);
        for (size_t i = 0; i < it->n; i++) vals[i] = i == fi ? v.s : it->values[i];
        llm_item view = *it;
        view.values = vals;
        if (!v.oom) req = build_request(r, mode, pr, grp, img + 1, &view, err, errlen);
        else snprintf(err, errlen, "out of memory");
    } else {
        snprintf(err, errlen, "out of memory");
    }
    free(v.s);
    free(vals);
    free_strv(paths, np);
    return req;
}

llm_request *llm_rubric_request(const llm_rubric *r, const char *mode, const char *variant,
                                const llm_item *it, char *err, size_t errlen)
{
    return llm_rubric_request_at(r, mode, variant, it, 0, err, errlen);
}

llm_request *llm_rubric_repair(const llm_rubric *r, const llm_request *req, const char *answer,
                               const char *problem)
{
    llm_request *n = llm_request_clone(req);
    if (!n) return NULL;
    char *a = strndup(answer, 20000);
    if (!a || llm_request_add_text(n, "assistant", *a ? a : "(empty)") != 0) {
        free(a);
        llm_request_free(n);
        return NULL;
    }
    free(a);
    sbuf b = {0};
    const char *t = r->repair ? r->repair
                              : "Your answer could not be used: {{error}}.\n"
                                "Reply again with only the JSON object described above, "
                                "nothing else.\n";
    llm_item none = {.id = "", .n = 0};
    char err[64];
    render(r, NULL, 0, NULL, &none, t, problem, &b, NULL, err, sizeof err);
    int rc = b.s ? llm_request_add_text(n, "user", b.s) : -1;
    free(b.s);
    if (rc != 0) {
        llm_request_free(n);
        return NULL;
    }
    return n;
}

/* ------------------------------------------------------------- answers */

int llm_rows_add(llm_rows *rows, const char *criterion, const char *value, const char *note)
{
    if (rows->n == rows->cap) {
        size_t cap = rows->cap ? rows->cap * 2 : 8;
        llm_row *nv = realloc(rows->v, cap * sizeof *nv);
        if (!nv) return -1;
        rows->v = nv;
        rows->cap = cap;
    }
    llm_row *rw = &rows->v[rows->n];
    rw->criterion = strdup(criterion);
    if (rw->criterion) kebab(rw->criterion);
    rw->value = strdup(value);
    rw->note = strndup(note ? note : "", NOTE_MAX);
    if (!rw->criterion || !rw->value || !rw->note) {
        free(rw->criterion);
        free(rw->value);
        free(rw->note);
        return -1;
    }
    for (char *p = rw->note; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
    for (char *p = rw->value; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r') *p = ' ';
    rows->n++;
    return 0;
}

void llm_rows_free(llm_rows *rows)
{
    for (size_t i = 0; i < rows->n; i++) {
        free(rows->v[i].criterion);
        free(rows->v[i].value);
        free(rows->v[i].note);
    }
    free(rows->v);
    rows->v = NULL;
    rows->n = rows->cap = 0;
}

/* The answer's entry for a criterion: exact key, else the same key with
 * case, '-', '_' and blanks ignored. */
static const cJSON *entry(const cJSON *ans, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ans, name);
    if (v) return v;
    char want[160], got[160];
    norm(name, want, sizeof want);
    const cJSON *hit = NULL;
    cJSON *it;
    cJSON_ArrayForEach(it, ans)
    {
        if (!it->string) continue;
        norm(it->string, got, sizeof got);
        if (strcmp(got, want) == 0) {
            if (hit) return NULL;   /* two spellings: ambiguous */
            hit = it;
        }
    }
    return hit;
}

static const cJSON *member(const cJSON *o, const char *const *keys)
{
    for (; *keys; keys++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, *keys);
        if (v) return v;
    }
    return NULL;
}

static void fmt_num(double v, char *out, size_t n)
{
    snprintf(out, n, "%.3f", v);
    char *dot = strchr(out, '.');
    if (dot) {
        char *e = out + strlen(out) - 1;
        while (e > dot && *e == '0') *e-- = 0;
        if (e == dot) *e = 0;
    }
    if (strcmp(out, "-0") == 0) snprintf(out, n, "0");
}

static int as_int(const cJSON *v, double lo, double hi, double *out)
{
    double d;
    if (cJSON_IsNumber(v)) d = v->valuedouble;
    else if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        while (*s == ' ') s++;
        if (!*s) return 0;
        char *end;
        d = strtod(s, &end);
        while (*end == ' ') end++;
        if (*end || end == s) return 0;
    } else return 0;
    if (!isfinite(d) || d != floor(d) || d < lo || d > hi) return 0;
    *out = d;
    return 1;
}

/* The taxonomy entry of a predicted label in the item's domain: the label
 * whose name is the same once case, blanks and punctuation are set aside
 * ("Concept Target Error" is "Concept/Target Error"); NULL when none is.
 * Nothing closer is guessed: judge(1) keeps such a label as "oov:TEXT". */
static const rtax *map_label(const llm_rubric *r, const char *domain, const char *label)
{
    char want[256], got[256];
    norm(label, want, sizeof want);
    if (!*want) return NULL;
    for (size_t i = 0; i < r->ntax; i++) {
        if (strcmp(r->tax[i].domain, domain) != 0) continue;
        norm(r->tax[i].label, got, sizeof got);
        if (strcmp(got, want) == 0) return &r->tax[i];
    }
    return NULL;
}

/* The row value of a predicted label: DOMAIN::LABEL, or oov:TEXT (the text
 * as the model wrote it) when it is not a label of the domain. */
static void label_value(const llm_rubric *r, const char *domain, const char *label, char *out,
                        size_t n)
{
    const rtax *t = map_label(r, domain, label);
    if (t) snprintf(out, n, "%s::%s", t->domain, t->label);
    else snprintf(out, n, "oov:%s", label);
}

/* What a criterion's rows step found: rows added, an answer that breaks the
 * schema (err says how), or out of memory. */
enum { ROWS_OK = 0, ROWS_BAD = -1, ROWS_OOM = -2 };

/* One answer being checked: the rows so far, and the numbers of the int and
 * per-image criteria that geomean-percent criteria combine. */
typedef struct {
    const llm_rubric *r;
    const char *mode;
    const llm_item *it;
    llm_rows rows;
    double *nums;      /* per criterion */
    int *hasnum;
    char *err;
    size_t errlen;
} rowcheck;

/* geomean-percent: the geometric mean of the earlier scores it names, as a
 * percentage of its scale's maximum */
static int geomean_row(rowcheck *rc, size_t ci)
{
    const rcrit *c = &rc->r->crits[ci];
    char val[64], note[NOTE_MAX + 1];
    double lsum = 0;
    int k = 0, zero = 0;
    for (size_t a = 0; a < c->nargs; a++)
        for (size_t o = 0; o < ci; o++)
            if (strcmp(rc->r->crits[o].name, c->args[a]) == 0 && rc->hasnum[o]) {
                if (rc->nums[o] <= 0) zero = 1;
                else lsum += log(rc->nums[o]);
                k++;
            }
    if (!k) snprintf(val, sizeof val, "na");
    else fmt_num(zero ? 0 : 100.0 * exp(lsum / k) / c->hi, val, sizeof val);
    snprintf(note, sizeof note, "geometric mean of %d scores, %% of %g", k, c->hi);
    return llm_rows_add(&rc->rows, c->name, val, note) ? ROWS_OOM : ROWS_OK;
}

/* The answer's value for criterion c: its key, or for the enum, int and
 * bool kinds the "answer" (or "value", ...) member of an object there,
 * whose "reason" (or ...) goes to note. NULL after writing the error. */
static const cJSON *answer_value(rowcheck *rc, const rcrit *c, const cJSON *answer, char *note,
                                 size_t notelen)
{
    static const char *const vkeys[] = {"answer", "value", "score", "rating", "label", NULL};
    static const char *const rkeys[] = {"reason", "explanation", "justification", "rationale",
                                        NULL};
    const cJSON *v = entry(answer, c->name);
    if (!v) {
        snprintf(rc->err, rc->errlen, "the answer has no key \"%s\"", c->name);
        return NULL;
    }
    if (cJSON_IsObject(v) && (c->kind == C_ENUM || c->kind == C_INT || c->kind == C_BOOL)) {
        const cJSON *why = member(v, rkeys);
        if (cJSON_IsString(why)) snprintf(note, notelen, "%s", why->valuestring);
        v = member(v, vkeys);
        if (!v) {
            snprintf(rc->err, rc->errlen, "\"%s\" has no \"answer\" member", c->name);
            return NULL;
        }
    }
    return v;
}

/* enum: one of the values (case and punctuation aside; true/false as yes/no) */
static int enum_row(rowcheck *rc, const rcrit *c, const cJSON *v, const char *note)
{
    const char *got = NULL;
    char tmp[64];
    if (cJSON_IsString(v)) {
        norm(v->valuestring, tmp, sizeof tmp);
        if (strcmp(tmp, "n-a") == 0 || strcmp(tmp, "not-applicable") == 0)
            snprintf(tmp, sizeof tmp, "na");
        for (size_t k = 0; k < c->nargs; k++)
            if (strcasecmp(tmp, c->args[k]) == 0) got = c->args[k];
    } else if (cJSON_IsBool(v)) {
        for (size_t k = 0; k < c->nargs; k++)
            if (strcmp(c->args[k], cJSON_IsTrue(v) ? "yes" : "no") == 0) got = c->args[k];
    }
    if (!got) {
        sbuf b = {0};
        for (size_t k = 0; k < c->nargs; k++) sb_printf(&b, "%s%s", k ? ", " : "", c->args[k]);
        snprintf(rc->err, rc->errlen, "\"%s\" must be one of %s", c->name, b.s ? b.s : "");
        free(b.s);
        return ROWS_BAD;
    }
    return llm_rows_add(&rc->rows, c->name, got, note) ? ROWS_OOM : ROWS_OK;
}

/* int: an integer in the criterion's range */
static int int_row(rowcheck *rc, size_t ci, const cJSON *v, const char *note)
{
    const rcrit *c = &rc->r->crits[ci];
    char val[64];
    double d;
    if (!as_int(v, c->lo, c->hi, &d)) {
        snprintf(rc->err, rc->errlen, "\"%s\" must be an integer from %g to %g", c->name, c->lo, c->hi);
        return ROWS_BAD;
    }
    rc->nums[ci] = d;
    rc->hasnum[ci] = 1;
    fmt_num(d, val, sizeof val);
    return llm_rows_add(&rc->rows, c->name, val, note) ? ROWS_OOM : ROWS_OK;
}

/* bool: true/false (or the strings true, yes, false, no) as yes/no */
static int bool_row(rowcheck *rc, const rcrit *c, const cJSON *v, const char *note)
{
    int b = -1;
    if (cJSON_IsBool(v)) b = cJSON_IsTrue(v);
    else if (cJSON_IsString(v)) {
        if (!strcasecmp(v->valuestring, "true") || !strcasecmp(v->valuestring, "yes")) b = 1;
        if (!strcasecmp(v->valuestring, "false") || !strcasecmp(v->valuestring, "no")) b = 0;
    }
    if (b < 0) {
        snprintf(rc->err, rc->errlen, "\"%s\" must be true or false", c->name);
        return ROWS_BAD;
    }
    return llm_rows_add(&rc->rows, c->name, b ? "yes" : "no", note) ? ROWS_OOM : ROWS_OK;
}

/* per-image: one score per image of the field (less the first with
 * skip-first); the row is their geometric mean */
static int perimage_row(rowcheck *rc, size_t ci, const cJSON *v)
{
    const rcrit *c = &rc->r->crits[ci];
    const rfield *f = find_field(rc->r, c->f1);
    size_t want = split_list(f ? field_value(rc->r, rc->mode, rc->it, f) : NULL, NULL);
    if (c->skip_first) want = want ? want - 1 : 0;
    if (!cJSON_IsArray(v) || (size_t)cJSON_GetArraySize(v) != want) {
        snprintf(rc->err, rc->errlen, "\"%s\" must be an array of %zu scores", c->name, want);
        return ROWS_BAD;
    }
    if (want == 0)
        return llm_rows_add(&rc->rows, c->name, "na", "no images to score") ? ROWS_OOM : ROWS_OK;
    double lsum = 0;
    int zero = 0;
    sbuf b = {0};
    sb_add(&b, "per image:");
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        double d;
        if (!as_int(e, c->lo, c->hi, &d)) {
            free(b.s);
            snprintf(rc->err, rc->errlen, "\"%s\" scores must be integers from %g to %g", c->name, c->lo, c->hi);
            return ROWS_BAD;
        }
        if (d <= 0) zero = 1;
        else lsum += log(d);
        sb_printf(&b, " %g", d);
    }
    double g = zero ? 0 : exp(lsum / (double)want);
    rc->nums[ci] = g;
    rc->hasnum[ci] = 1;
    char val[64];
    fmt_num(g, val, sizeof val);
    int st = llm_rows_add(&rc->rows, c->name, val, b.s ? b.s : "");
    free(b.s);
    return st ? ROWS_OOM : ROWS_OK;
}

/* labels: a label or an array of them, each mapped to the item's domain in
 * the taxonomy (DOMAIN::LABEL; oov:TEXT when it has no such label; "none"
 * for no label); a label given twice is one row */
static int labels_row(rowcheck *rc, const rcrit *c, const cJSON *v)
{
    llm_rows *rows = &rc->rows;
    const char *domain = item_domain(rc->r, rc->it);
    if (!domain) domain = "";
    if (cJSON_IsString(v) && !*v->valuestring) v = NULL;
    const cJSON *e;
    size_t before = rows->n;
    char val[600];
    if (v && cJSON_IsString(v)) {
        label_value(rc->r, domain, v->valuestring, val, sizeof val);
        if (llm_rows_add(rows, c->name, val, "")) return ROWS_OOM;
    } else if (v && !cJSON_IsArray(v)) {
        snprintf(rc->err, rc->errlen, "\"%s\" must be an array of labels", c->name);
        return ROWS_BAD;
    } else if (v) {
        cJSON_ArrayForEach(e, v)
        {
            if (!cJSON_IsString(e)) {
                snprintf(rc->err, rc->errlen, "\"%s\" must hold only strings", c->name);
                return ROWS_BAD;
            }
            label_value(rc->r, domain, e->valuestring, val, sizeof val);
            int dup = 0;
            for (size_t k = before; k < rows->n; k++)
                if (strcmp(rows->v[k].value, val) == 0) dup = 1;
            if (dup) continue;
            if (llm_rows_add(rows, c->name, val, "")) return ROWS_OOM;
        }
    }
    if (rows->n == before && llm_rows_add(rows, c->name, "none", "")) return ROWS_OOM;
    return ROWS_OK;
}

/* The errors criterion named n, and its array in the answer (NULL when the
 * answer has none or it is no array). */
static const cJSON *errors_array(const rowcheck *rc, const char *n, const cJSON *answer)
{
    const rcrit *e = find_crit(rc->r, n);
    const cJSON *v = e ? entry(answer, e->name) : NULL;
    return cJSON_IsArray(v) ? v : NULL;
}

/* errors (SketchJudge's error_list): an array of objects, each with a label
 * (args[0], mapped as labels are) and a description (args[1]); one row per
 * entry named args[0], the description as its note, duplicates kept (the
 * model's error_count counts them); "none" for an empty list. With args[2],
 * that bool criterion's true wants an empty list. */
static int errors_rows(rowcheck *rc, const rcrit *c, const cJSON *v, const cJSON *answer)
{
    llm_rows *rows = &rc->rows;
    const char *domain = item_domain(rc->r, rc->it);
    if (!domain) domain = "";
    if (!cJSON_IsArray(v)) {
        snprintf(rc->err, rc->errlen, "\"%s\" must be an array of {\"%s\", \"%s\"} objects",
                 c->name, c->args[0], c->args[1]);
        return ROWS_BAD;
    }
    if (c->nargs > 2 && cJSON_GetArraySize(v) > 0) {
        const cJSON *b = entry(answer, c->args[2]);
        if (cJSON_IsObject(b)) b = cJSON_GetObjectItemCaseSensitive(b, "answer");
        if (cJSON_IsTrue(b) || (cJSON_IsString(b) && (!strcasecmp(b->valuestring, "true") ||
                                                      !strcasecmp(b->valuestring, "yes")))) {
            snprintf(rc->err, rc->errlen, "\"%s\" is true but \"%s\" is not empty", c->args[2],
                     c->name);
            return ROWS_BAD;
        }
    }
    size_t before = rows->n;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        const cJSON *l = cJSON_IsObject(e) ? entry(e, c->args[0]) : NULL;
        const cJSON *d = cJSON_IsObject(e) ? entry(e, c->args[1]) : NULL;
        if (!d && cJSON_IsObject(e)) d = cJSON_GetObjectItemCaseSensitive(e, "error_description");
        if (!cJSON_IsString(l) || !*l->valuestring || (d && !cJSON_IsString(d))) {
            snprintf(rc->err, rc->errlen, "each entry of \"%s\" must be an object with a string "
                     "\"%s\" and a string \"%s\"", c->name, c->args[0], c->args[1]);
            return ROWS_BAD;
        }
        char val[600], note[NOTE_MAX + 1];
        label_value(rc->r, domain, l->valuestring, val, sizeof val);
        if (strncmp(val, "oov:", 4) == 0)
            snprintf(note, sizeof note, "not a %s label in the taxonomy%s%s", domain,
                     d && *d->valuestring ? "; " : "", d ? d->valuestring : "");
        else
            snprintf(note, sizeof note, "%s", d ? d->valuestring : "");
        if (llm_rows_add(rows, c->args[0], val, note)) return ROWS_OOM;
    }
    if (rows->n == before && llm_rows_add(rows, c->args[0], "none", "")) return ROWS_OOM;
    return ROWS_OK;
}

/* count (SketchJudge's error_count): a whole number equal to the number of
 * entries of the errors criterion it names */
static int count_row(rowcheck *rc, const rcrit *c, const cJSON *v, const cJSON *answer)
{
    double d;
    if (!as_int(v, 0, 1e6, &d)) {
        snprintf(rc->err, rc->errlen, "\"%s\" must be a whole number", c->name);
        return ROWS_BAD;
    }
    const cJSON *list = errors_array(rc, c->args[0], answer);
    int n = list ? cJSON_GetArraySize(list) : -1;
    if (n >= 0 && (double)n != d) {
        snprintf(rc->err, rc->errlen, "\"%s\" is %g but \"%s\" has %d entr%s", c->name, d,
                 c->args[0], n, n == 1 ? "y" : "ies");
        return ROWS_BAD;
    }
    char val[64];
    fmt_num(d, val, sizeof val);
    return llm_rows_add(&rc->rows, c->name, val, "") ? ROWS_OOM : ROWS_OK;
}

/* The index of the keypoint named name (case, blanks and punctuation
 * aside; the first of equal names, as the paper's Figure 10 says for
 * duplicates), or -1. */
static long kp_find(const kplist *k, const char *name)
{
    char want[256], got[256];
    norm(name, want, sizeof want);
    for (size_t i = 0; i < k->n; i++)
        if (strcmp(k->el[i], name) == 0) return (long)i;
    for (size_t i = 0; *want && i < k->n; i++) {
        norm(k->el[i], got, sizeof got);
        if (strcmp(got, want) == 0) return (long)i;
    }
    return -1;
}

/* keypoints (MathExplain's parsing step, Appendix C, Figure 8): the answer
 * is the model's output turned into "a valid JSON array" whose items are
 * objects "containing exactly two keys: "element" and "description"" and
 * where "no two items should refer to the same element" (compared without
 * case and spaces); one row per item, the element its value (tabs and line
 * breaks made spaces), the description its note, in the answer's order;
 * "none" for an empty array.  The element formats the figure lists (Point
 * A, Line AB, Angle ABC, Region S.1, Right angle mark N ...) are asked
 * for, not enforced: the matching step compares elements by meaning. */
static int keypoints_rows(rowcheck *rc, const rcrit *c, const cJSON *v)
{
    if (!cJSON_IsArray(v)) {
        snprintf(rc->err, rc->errlen, "\"%s\" must be a JSON array of {\"element\": ..., \"description\": ...}", c->name);
        return ROWS_BAD;
    }
    size_t n = (size_t)cJSON_GetArraySize(v), i = 0;
    char (*seen)[256] = calloc(n ? n : 1, sizeof *seen);
    if (!seen) return ROWS_OOM;
    int st = ROWS_OK;
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        const cJSON *el = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "element") : NULL;
        const cJSON *d = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "description") : NULL;
        if (!cJSON_IsString(el) || !cJSON_IsString(d) || cJSON_GetArraySize(e) != 2) {
            snprintf(rc->err, rc->errlen, "each item must be an object with exactly two keys, "
                     "\"element\" and \"description\" (strings): item %zu is not", i + 1);
            st = ROWS_BAD;
            break;
        }
        norm(el->valuestring, seen[i], sizeof seen[i]);
        if (!seen[i][0]) snprintf(seen[i], sizeof seen[i], "%s", el->valuestring);   /* no letter or digit */
        if (!seen[i][0] || strspn(seen[i], " \t\r\n") == strlen(seen[i])) {
            snprintf(rc->err, rc->errlen, "item %zu: the element is empty", i + 1);
            st = ROWS_BAD;
            break;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(seen[j], seen[i]) == 0) {
                snprintf(rc->err, rc->errlen, "no two items may refer to the same element: "
                         "\"%s\" is items %zu and %zu", el->valuestring, j + 1, i + 1);
                st = ROWS_BAD;
                break;
            }
        if (st != ROWS_OK) break;
        char *val = strdup(el->valuestring);
        if (!val) { st = ROWS_OOM; break; }
        for (char *q = val; *q; q++)
            if (*q == '\t' || *q == '\n' || *q == '\r') *q = ' ';
        int bad = llm_rows_add(&rc->rows, c->name, val, d->valuestring);
        free(val);
        if (bad) { st = ROWS_OOM; break; }
        i++;
    }
    free(seen);
    if (st == ROWS_OK && n == 0 && llm_rows_add(&rc->rows, c->name, "none", "")) st = ROWS_OOM;
    return st;
}

/* matches (MathExplain's element matching, Sec. 5.1 and Figure 10): the
 * answer is an array of {"Reference": R, "Generated": G | null}, one entry
 * per reference keypoint. |VK^Match| counts the reference keypoints matched
 * to a generated one that no earlier entry took (one to one); six rows:
 * matched, predicted (|VK^Model|), reference (|VK^GT|), EM_P, EM_R, EM_F1. */
static int matches_rows(rowcheck *rc, const rcrit *c, const cJSON *v)
{
    llm_rows *rows = &rc->rows;
    kplist P = {0}, R = {0};
    char e2[600];
    const char *pc = cell(rc->it, c->f1), *rcl = cell(rc->it, c->f2);
    if ((pc && *pc && kp_load(rc->it, pc, &P, e2, sizeof e2) != 0) ||
        (rcl && *rcl && kp_load(rc->it, rcl, &R, e2, sizeof e2) != 0)) {
        snprintf(rc->err, rc->errlen, "%s", e2);
        kp_free(&P);
        kp_free(&R);
        return ROWS_BAD;
    }
    int st = ROWS_OK;
    unsigned char *refdone = calloc(R.n + 1, 1), *gentaken = calloc(P.n + 1, 1);
    sbuf note = {0};
    size_t tp = 0;
    if (!refdone || !gentaken) { st = ROWS_OOM; goto out; }
    if (!cJSON_IsArray(v)) {
        snprintf(rc->err, rc->errlen, "\"%s\" must be an array of {\"Reference\": ..., \"Generated\": ... | null}", c->name);
        st = ROWS_BAD;
        goto out;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        const cJSON *re = cJSON_IsObject(e) ? entry(e, "Reference") : NULL;
        const cJSON *ge = cJSON_IsObject(e) ? entry(e, "Generated") : NULL;
        if (!cJSON_IsString(re) || (ge && !cJSON_IsNull(ge) && !cJSON_IsString(ge))) {
            snprintf(rc->err, rc->errlen, "each entry of \"%s\" must be {\"Reference\": \"<element>\", \"Generated\": \"<element>\" | null}", c->name);
            st = ROWS_BAD;
            goto out;
        }
        /* the first reference keypoint of that name not yet answered */
        long ri = -1;
        char want[256], got[256];
        norm(re->valuestring, want, sizeof want);
        for (size_t i = 0; i < R.n && ri < 0; i++) {
            norm(R.el[i], got, sizeof got);
            if (!refdone[i] && (strcmp(R.el[i], re->valuestring) == 0 || (*want && strcmp(got, want) == 0)))
                ri = (long)i;
        }
        if (ri < 0) {
            snprintf(rc->err, rc->errlen, "\"%s\": \"%s\" is no reference element (or is answered twice)",
                     c->name, re->valuestring);
            st = ROWS_BAD;
            goto out;
        }
        refdone[ri] = 1;
        const char *g = cJSON_IsString(ge) ? ge->valuestring : "";
        if (!*g || strcasecmp(g, "null") == 0 || strcasecmp(g, "none") == 0) continue;
        long gi = kp_find(&P, g);
        if (gi < 0) {
            snprintf(rc->err, rc->errlen, "\"%s\": \"%s\" is no element of the generated keypoints",
                     c->name, g);
            st = ROWS_BAD;
            goto out;
        }
        if (gentaken[gi]) {
            sb_printf(&note, "%s%s = %s (taken already)", note.n ? "; " : "", R.el[ri], P.el[gi]);
            continue;
        }
        gentaken[gi] = 1;
        tp++;
        sb_printf(&note, "%s%s = %s", note.n ? "; " : "", R.el[ri], P.el[gi]);
    }
    for (size_t i = 0; i < R.n; i++)
        if (!refdone[i]) {
            snprintf(rc->err, rc->errlen, "\"%s\" has no entry for the reference element \"%s\" "
                     "(one entry per reference element)", c->name, R.el[i]);
            st = ROWS_BAD;
            goto out;
        }
    if (note.oom) { st = ROWS_OOM; goto out; }
    {
        size_t np = P.n, nr = R.n;
        char nm[300], a[64];
        double Pr = np ? (double)tp / (double)np : -1, Rc = nr ? (double)tp / (double)nr : -1;
        double F = Pr > 0 && Rc > 0 ? 2 * Pr * Rc / (Pr + Rc) : (Pr == 0 || Rc == 0) ? 0 : -1;
        const size_t cnt[3] = {tp, np, nr};
        static const char *suf[6] = {"matched", "predicted", "reference", "precision", "recall", "f1"};
        const double pr[3] = {Pr, Rc, F};
        for (int k = 0; k < 6 && st == ROWS_OK; k++) {
            if (k < 3) snprintf(a, sizeof a, "%zu", cnt[k]);
            else if (pr[k - 3] < 0) snprintf(a, sizeof a, "na");
            else fmt_num(pr[k - 3], a, sizeof a);
            snprintf(nm, sizeof nm, "%s-%s", c->name, suf[k]);
            if (llm_rows_add(rows, nm, a, k == 0 && note.s ? note.s : "")) st = ROWS_OOM;
        }
    }
out:
    free(note.s);
    free(refdone);
    free(gentaken);
    kp_free(&P);
    kp_free(&R);
    return st;
}

/* An each group's criterion: the answers' scores, one an image, aggregated
 * by geometric mean (EduIllustrate's ELQ over every diagram, VC over the
 * diagrams after the first, each against it); "na" with no image to score. */
static int each_row(rowcheck *rc, size_t ci, const rgroup *g, const cJSON *const *answers,
                    size_t n)
{
    const rcrit *c = &rc->r->crits[ci];
    sbuf b = {0};
    sb_add(&b, g->against_first ? "against image 1, images 2..N:" : "per image:");
    double lsum = 0;
    int zero = 0;
    for (size_t k = 0; k < n; k++) {
        char note[NOTE_MAX + 1];
        const cJSON *v = answer_value(rc, c, answers[k], note, sizeof note);
        double d;
        if (!v || !as_int(v, c->lo, c->hi, &d)) {
            if (v) snprintf(rc->err, rc->errlen, "\"%s\" must be an integer from %g to %g", c->name, c->lo, c->hi);
            free(b.s);
            return ROWS_BAD;
        }
        if (d <= 0) zero = 1;
        else lsum += log(d);
        sb_printf(&b, " %g", d);
    }
    if (!n) {
        free(b.s);
        return llm_rows_add(&rc->rows, c->name, "na", "no image to score") ? ROWS_OOM : ROWS_OK;
    }
    double gm = zero ? 0 : exp(lsum / (double)n);
    rc->nums[ci] = gm;
    rc->hasnum[ci] = 1;
    char val[64];
    fmt_num(gm, val, sizeof val);
    int st = b.oom ? -1 : llm_rows_add(&rc->rows, c->name, val, b.s);
    free(b.s);
    return st ? ROWS_OOM : ROWS_OK;
}

/* The rows of criterion ci. */
static int criterion_rows(rowcheck *rc, size_t ci, const cJSON *answer)
{
    const rcrit *c = &rc->r->crits[ci];
    if (c->kind == C_GEOMEAN) return geomean_row(rc, ci);
    char note[NOTE_MAX + 1] = "";
    if (c->kind == C_MATCHES && cJSON_IsArray(answer)) return matches_rows(rc, c, answer);
    if (c->kind == C_KEYPOINTS && cJSON_IsArray(answer)) return keypoints_rows(rc, c, answer);
    const cJSON *v = answer_value(rc, c, answer, note, sizeof note);
    if (!v) return ROWS_BAD;
    switch (c->kind) {
    case C_ENUM: return enum_row(rc, c, v, note);
    case C_INT: return int_row(rc, ci, v, note);
    case C_BOOL: return bool_row(rc, c, v, note);
    case C_PERIMAGE: return perimage_row(rc, ci, v);
    case C_LABELS: return labels_row(rc, c, v);
    case C_ERRORS: return errors_rows(rc, c, v, answer);
    case C_COUNT: return count_row(rc, c, v, answer);
    case C_MATCHES: return matches_rows(rc, c, v);
    case C_KEYPOINTS: return keypoints_rows(rc, c, v);
    case C_GEOMEAN: break;
    }
    return ROWS_OK;
}

int llm_rubric_answer_array(const llm_rubric *r)
{
    size_t asked = 0, matches = 0;
    for (size_t i = 0; i < r->ncrits; i++) {
        asked += r->crits[i].kind != C_GEOMEAN;
        matches += r->crits[i].kind == C_MATCHES || r->crits[i].kind == C_KEYPOINTS;
    }
    return asked == 1 && matches == 1;
}

static int answer_shape(const llm_rubric *r, const cJSON *answer, char *err, size_t errlen)
{
    if (cJSON_IsObject(answer) || (cJSON_IsArray(answer) && llm_rubric_answer_array(r))) return 0;
    snprintf(err, errlen, "the answer is not a JSON object");
    return -1;
}

/* The first request of group g for this item and how many it has. */
static void group_span(const llm_rubric *r, const char *mode, const llm_item *it, const rgroup *g,
                       size_t *start, size_t *count)
{
    *start = *count = 0;
    const rgroup *sg;
    size_t img;
    int seen = 0;
    for (size_t k = 0; request_slot(r, mode, it, k, &sg, &img) == 0; k++) {
        if (sg != g) continue;
        if (!seen++) *start = k;
        (*count)++;
    }
}

int llm_rubric_check_answer(const llm_rubric *r, const char *mode, const llm_item *it, size_t k,
                            const cJSON *answer, char *err, size_t errlen)
{
    err[0] = 0;
    const rgroup *g;
    size_t img;
    if (request_slot(r, mode, it, k, &g, &img) != 0) {
        snprintf(err, errlen, "no request %zu", k + 1);
        return -1;
    }
    if (answer_shape(r, answer, err, errlen) != 0) return -1;
    rowcheck rc = {.r = r, .mode = mode, .it = it, .err = err, .errlen = errlen};
    rc.nums = calloc(r->ncrits ? r->ncrits : 1, sizeof *rc.nums);
    rc.hasnum = calloc(r->ncrits ? r->ncrits : 1, sizeof *rc.hasnum);
    int st = rc.nums && rc.hasnum ? ROWS_OK : ROWS_OOM;
    for (size_t ci = 0; ci < r->ncrits && st == ROWS_OK; ci++) {
        if (r->crits[ci].kind == C_GEOMEAN || !in_group(g, ci)) continue;
        if (g && g->each) st = each_row(&rc, ci, g, &answer, 1);
        else st = criterion_rows(&rc, ci, answer);
    }
    free(rc.nums);
    free(rc.hasnum);
    llm_rows_free(&rc.rows);
    if (st == ROWS_OOM) snprintf(err, errlen, "out of memory");
    return st == ROWS_OK ? 0 : -1;
}

int llm_rubric_rows_all(const llm_rubric *r, const char *mode, const llm_item *it,
                        const cJSON *const *answers, size_t n, llm_rows *out, char *err,
                        size_t errlen)
{
    err[0] = 0;
    if (n != llm_rubric_nrequests(r, mode, it)) {
        snprintf(err, errlen, "%zu answers for %zu requests", n, llm_rubric_nrequests(r, mode, it));
        return -1;
    }
    for (size_t k = 0; k < n; k++)
        if (answer_shape(r, answers[k], err, errlen) != 0) return -1;
    rowcheck rc = {.r = r, .mode = mode, .it = it, .err = err, .errlen = errlen};
    rc.nums = calloc(r->ncrits ? r->ncrits : 1, sizeof *rc.nums);
    rc.hasnum = calloc(r->ncrits ? r->ncrits : 1, sizeof *rc.hasnum);
    int st = rc.nums && rc.hasnum ? ROWS_OK : ROWS_OOM;
    for (size_t ci = 0; ci < r->ncrits && st == ROWS_OK; ci++) {
        const rgroup *g = r->ngroups && r->crits[ci].kind != C_GEOMEAN ? crit_group(r, ci) : NULL;
        size_t start = 0, count = 1;
        if (g) group_span(r, mode, it, g, &start, &count);
        if (g && g->each) st = each_row(&rc, ci, g, answers + start, count);
        else if (start < n) st = criterion_rows(&rc, ci, answers[start]);
        else if (r->crits[ci].kind == C_GEOMEAN) st = geomean_row(&rc, ci);
        else { snprintf(err, errlen, "no answer for criterion %s", r->crits[ci].name); st = ROWS_BAD; }
    }
    free(rc.nums);
    free(rc.hasnum);
    if (st == ROWS_OOM) snprintf(err, errlen, "out of memory");
    if (st != ROWS_OK) {
        llm_rows_free(&rc.rows);
        return -1;
    }
    llm_rows rows = rc.rows;
    for (size_t i = 0; i < rows.n; i++) {
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 8;
            while (cap < out->n + rows.n - i) cap *= 2;
            llm_row *nv = realloc(out->v, cap * sizeof *nv);
            if (!nv) { snprintf(err, errlen, "out of memory"); llm_rows_free(&rows); return -1; }
            out->v = nv;
            out->cap = cap;
        }
        out->v[out->n++] = rows.v[i];
    }
    free(rows.v);
    return 0;
}

int llm_rubric_rows(const llm_rubric *r, const char *mode, const llm_item *it,
                    const cJSON *answer, llm_rows *out, char *err, size_t errlen)
{
    if (llm_rubric_nrequests(r, mode, it) != 1) {
        snprintf(err, errlen, "rubric %s asks %zu requests for item %s (llm_rubric_rows_all)",
                 r->name, llm_rubric_nrequests(r, mode, it), it->id);
        return -1;
    }
    return llm_rubric_rows_all(r, mode, it, &answer, 1, out, err, errlen);
}
