/* llm/tikz_fallback.c — tikz2ir's LLM fallback: each `unparsed` record is sent,
 * with the source lines around it and the IR record syntax, to a language
 * model through the project's LLM client; IR records that come back valid
 * replace it, marked src=llm. An answer that is not valid gets one repair
 * request quoting the problem (as judge's); when that one is not valid
 * either, the unparsed record stays, with one warning for the construct.
 * The client caches only valid answers (the check below), so an invalid
 * one is asked again on the next run. */
#include "llm/tikz_fallback.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTEXT_LINES 6       /* source lines shown before and after the construct */
#define MAX_RECORDS 200       /* records accepted for one construct */

static const char *const system_prompt =
    "You translate one TikZ construct that a deterministic parser could not evaluate into "
    "diagramir IR records (man diagramir(5)). Coordinates are absolute TeX points (pt), "
    "y up, after every transformation; use the IR of the rest of the picture, given below, "
    "to place the construct. One record per string, one of:\n"
    "  poly open|closed X Y X Y ... [key=value ...]\n"
    "  rect X1 Y1 X2 Y2 [key=value ...]\n"
    "  ellipse CX CY AX AY BX BY [key=value ...]   (C + A cos t + B sin t)\n"
    "  arc CX CY AX AY BX BY T1 T2 [key=value ...]  (t from T1 to T2 degrees)\n"
    "  curve X0 Y0 X1 Y1 X2 Y2 X3 Y3 [key=value ...]  (cubic Bezier)\n"
    "  text X1 Y1 X2 Y2 \"PLAIN TEXT\" [key=value ...]  (the text's box)\n"
    "Useful keys: draw=COLOR|none fill=COLOR|none lw=PT dash=dashed|dotted arrows=->|<-|<-> "
    "role=vertex|right-angle|angle-mark. Reply with JSON only: "
    "{\"records\": [\"poly open 0 0 28.45 0 draw=black fill=none lw=1\", ...]} "
    "and an empty list when the construct draws nothing.";

struct t2l_fallback {
    llm_client *client;
    int accepted, rejected;
    int accepted_cached;   /* replaced, every call answered from the cache */
    int repairs;           /* repair requests sent */
    void (*on_call)(void *ctx);
    void *on_call_ctx;
};

void t2l_on_call(t2l_fallback *f, void (*fn)(void *ctx), void *ctx)
{
    f->on_call = fn;
    f->on_call_ctx = ctx;
}

t2l_fallback *t2l_new(const llm_config *cfg, char *err, size_t errlen)
{
    llm_client *c = llm_client_new(cfg, err, errlen);
    if (!c) return NULL;
    t2l_fallback *f = calloc(1, sizeof *f);
    if (!f) { llm_client_free(c); snprintf(err, errlen, "out of memory"); return NULL; }
    f->client = c;
    return f;
}

void t2l_free(t2l_fallback *f, FILE *summary)
{
    if (!f) return;
    if (summary) {
        llm_summary(f->client, summary, "tikz2ir");
        fprintf(summary, "tikz2ir: llm fallback: constructs: %d replaced (%d from cache), %d kept "
                "as unparsed; %d repair request(s)\n",
                f->accepted, f->accepted_cached, f->rejected, f->repairs);
    }
    llm_client_free(f->client);
    free(f);
}

/* appends s to a growing buffer */
static void put(char **b, size_t *n, size_t *cap, const char *s, size_t len)
{
    if (*n + len + 1 > *cap) {
        size_t nc = *cap ? *cap : 1024;
        while (*n + len + 1 > nc) nc *= 2;
        char *p = realloc(*b, nc);
        if (!p) return;
        *b = p;
        *cap = nc;
    }
    memcpy(*b + *n, s, len);
    *n += len;
    (*b)[*n] = 0;
}

static char *user_prompt(const ir_diagram *d, const ir_elem *u, const char *src, size_t srclen)
{
    char *b = NULL;
    size_t n = 0, cap = 0;
    char line[64];
    const char *hdr = "The construct (source line ";
    put(&b, &n, &cap, hdr, strlen(hdr));
    snprintf(line, sizeof line, "%d", u->line);
    put(&b, &n, &cap, line, strlen(line));
    put(&b, &n, &cap, "):\n", 3);
    put(&b, &n, &cap, u->str ? u->str : "", u->str ? strlen(u->str) : 0);
    put(&b, &n, &cap, "\n\nThe source around it:\n", 24);
    int ln = 1;
    for (size_t i = 0; i < srclen;) {
        size_t e = i;
        while (e < srclen && src[e] != '\n') e++;
        if (ln >= u->line - CONTEXT_LINES && ln <= u->line + CONTEXT_LINES) {
            snprintf(line, sizeof line, "%4d| ", ln);
            put(&b, &n, &cap, line, strlen(line));
            put(&b, &n, &cap, src + i, e - i);
            put(&b, &n, &cap, "\n", 1);
        }
        ln++;
        i = e + 1;
    }
    put(&b, &n, &cap, "\nThe IR of the rest of the picture:\n", 36);
    char *mem = NULL;
    size_t msz = 0;
    FILE *m = open_memstream(&mem, &msz);
    if (m) {
        ir_write_diagram(m, d);
        fclose(m);
        put(&b, &n, &cap, mem, msz);
        free(mem);
    }
    return b;
}

/* Reads one IR record through the IR reader; NULL when it is not valid. */
static ir_diagram *read_record(const char *rec)
{
    if (strchr(rec, '\n')) return NULL;
    size_t len = strlen(rec) + 64;
    char *text = malloc(len);
    if (!text) return NULL;
    snprintf(text, len, "diagramir 1\ndiagram llm\n%s\nend\n", rec);
    FILE *f = fmemopen(text, strlen(text), "r");
    ir_diagram *d = NULL;
    if (f) {
        ir_reader *r = ir_reader_new(f, "llm");
        if (ir_read_diagram(r, &d) != 1 || d->nelems != 1) {
            if (d) ir_diagram_free(d);
            d = NULL;
        } else {
            ir_kind k = d->elems[0].kind;
            if (!(k == IR_POLY || k == IR_RECT || k == IR_ELLIPSE || k == IR_ARC ||
                  k == IR_CURVE || k == IR_TEXT)) {
                ir_diagram_free(d);
                d = NULL;
            }
        }
        ir_reader_free(r);
        fclose(f);
    }
    free(text);
    return d;
}

static void free_records(ir_diagram **got, int nrec)
{
    for (int i = 0; got && i < nrec; i++)
        if (got[i]) ir_diagram_free(got[i]);
    free(got);
}

/* The records of an answer, each read through the IR reader: 0 with
 * *got (nrec of them) to free with free_records; -1 with the problem. */
static int parse_records(const char *ans, ir_diagram ***got, int *nrec, char *err, size_t errlen)
{
    char e[256];
    *got = NULL;
    *nrec = 0;
    cJSON *j = llm_answer_json(ans, strlen(ans), e, sizeof e);
    cJSON *recs = j ? cJSON_GetObjectItemCaseSensitive(j, "records") : NULL;
    if (!cJSON_IsArray(recs)) {
        snprintf(err, errlen, "answer has no \"records\" list%s%s", j ? "" : ": ", j ? "" : e);
        cJSON_Delete(j);
        return -1;
    }
    int n = cJSON_GetArraySize(recs);
    if (n > MAX_RECORDS) {
        snprintf(err, errlen, "answer has %d records, more than %d", n, MAX_RECORDS);
        cJSON_Delete(j);
        return -1;
    }
    ir_diagram **g = calloc((size_t)n + 1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        cJSON_Delete(j);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        cJSON *s = cJSON_GetArrayItem(recs, i);
        if (!cJSON_IsString(s) || !(g[i] = read_record(s->valuestring))) {
            snprintf(err, errlen, "record %d is not valid IR", i + 1);
            free_records(g, n);
            cJSON_Delete(j);
            return -1;
        }
    }
    cJSON_Delete(j);
    *got = g;
    *nrec = n;
    return 0;
}

/* The client's check (llm_check_fn): only an answer whose records are all
 * valid IR is cached, or served from the cache. */
static int check_records(const char *content, void *user, char *err, size_t errlen)
{
    (void)user;
    ir_diagram **got;
    int n;
    if (parse_records(content, &got, &n, err, errlen) != 0) return -1;
    free_records(got, n);
    return 0;
}

/* The repair request: req, the bad answer, and what was wrong with it. */
static llm_request *repair_request(const llm_request *req, const char *answer,
                                   const char *problem)
{
    llm_request *n = llm_request_clone(req);
    if (!n) return NULL;
    char *a = strndup(answer, 20000);
    size_t len = strlen(problem) + 300;
    char *msg = malloc(len);
    int rc = a && msg ? 0 : -1;
    if (rc == 0) {
        snprintf(msg, len,
                 "Your answer could not be used: %s.\n"
                 "Reply again with only the JSON object described above, "
                 "{\"records\": [...]} with one IR record per string, nothing else.\n",
                 problem);
        rc = llm_request_add_text(n, "assistant", *a ? a : "(empty)");
        if (rc == 0) rc = llm_request_add_text(n, "user", msg);
    }
    free(a);
    free(msg);
    if (rc != 0) {
        llm_request_free(n);
        return NULL;
    }
    return n;
}

/* Asks for the construct's records (one repair request when the answer is
 * not valid): 0 with them, -1 with the reason in why. */
static int ask(t2l_fallback *f, llm_request *r, ir_diagram ***got, int *nrec, int *cached,
               char *why, size_t whylen)
{
    llm_request *keep = llm_request_clone(r);
    llm_result res;
    char *ans = llm_complete_checked(f->client, r, check_records, NULL, &res);
    *cached = ans && res.cached;
    if (ans && res.status == LLM_EINVALID && keep) {
        char problem[512];
        snprintf(problem, sizeof problem, "%s", res.error ? res.error : "");
        llm_request *rep = repair_request(keep, ans, problem);
        free(ans);
        f->repairs++;
        ans = rep ? llm_complete_checked(f->client, rep, check_records, NULL, &res) : NULL;
        *cached = 0;
        if (!rep) snprintf(why, whylen, "out of memory building the repair request");
        else if (!ans) snprintf(why, whylen, "%s (the repair request)", res.error ? res.error : "no answer");
        else if (res.status != LLM_OK) snprintf(why, whylen, "%s (after a repair request)", res.error);
    } else if (!ans) {
        snprintf(why, whylen, "%s", res.error && *res.error ? res.error : "no answer");
    } else if (res.status != LLM_OK) {
        snprintf(why, whylen, "%s", res.error);   /* (no repair: out of memory) */
    }
    llm_request_free(keep);
    int rc = -1;
    if (ans && res.status == LLM_OK)
        rc = parse_records(ans, got, nrec, why, whylen);
    free(ans);
    return rc;
}

static int replace_one(t2l_fallback *f, ir_diagram *d, size_t idx, const char *src, size_t srclen,
                       const char *fname, FILE *diag)
{
    ir_elem *u = &d->elems[idx];
    int line = u->line;
    char *prompt = user_prompt(d, u, src, srclen);
    llm_request *r = llm_request_new();
    char tag[256];
    snprintf(tag, sizeof tag, "%s:%d", fname, line);
    llm_request_set_tag(r, tag);
    llm_request_add_text(r, "system", system_prompt);
    llm_request_add_text(r, "user", prompt ? prompt : "");
    free(prompt);
    ir_diagram **got = NULL;
    int nrec = 0, cached = 0;
    char why[700];
    if (ask(f, r, &got, &nrec, &cached, why, sizeof why) != 0) {
        /* one warning for the construct, whatever the calls it took */
        if (diag) fprintf(diag, "%s:%d: warning: llm fallback: %s; kept as unparsed\n", fname, line, why);
        return 0;
    }
    if (cached) f->accepted_cached++;
    /* the construct's records replace the unparsed one */
    ir_elem_clear(&d->elems[idx]);
    memmove(&d->elems[idx], &d->elems[idx + 1], (d->nelems - idx - 1) * sizeof *d->elems);
    d->nelems--;
    for (int i = 0; i < nrec; i++) {
        ir_elem *e = ir_add_copy(d, &got[i]->elems[0]);
        e->line = line;
        ir_elem_set(e, "src", "llm");
    }
    free_records(got, nrec);
    return 1;
}

void t2l_apply(t2l_fallback *f, ir_diagram *d, const char *src, size_t srclen,
               const char *fname, FILE *diag)
{
    for (size_t i = 0; i < d->nelems;) {
        if (d->elems[i].kind != IR_UNPARSED) { i++; continue; }
        size_t before = d->nelems;
        if (replace_one(f, d, i, src, srclen, fname, diag)) {
            f->accepted++;
            /* the replacement went to the end; the next element moved to i */
            (void)before;
        } else {
            f->rejected++;
            i++;
        }
        if (f->on_call) f->on_call(f->on_call_ctx);
    }
}
