/* request_llm.c — a language model reads what the request parser cannot
 * (request_llm.h). */
#include "checks/geom/request_llm.h"
#include "ir/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* --- what the parser missed ---------------------------------------------- */

int geom_request_unread(const geom_request *r, const char *text)
{
    if (!text) return 0;
    int digits = 0, letters = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p >= '0' && *p <= '9') digits = 1;
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) letters = 1;
    }
    if (!letters && !digits) return 0;   /* nothing to read */
    if (!r->kinds) return 1;
    int measured = r->ncubes || r->nsolids || r->nflats || r->nsides || r->nangles;
    return digits && !measured;
}

/* --- the model's answer --------------------------------------------------- */

static int name_bit(const char *const *names, const char *s)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], s)) return i;
    return -1;
}

/* A list of {"dims": [n numbers], "unit": "..."} into list (n = want, or 2
 * or 3 when want is 0). */
static int read_dims_list(const cJSON *a, int want, geom_rq_dims *list, int *nlist,
                          const char *what, char *err, size_t errlen)
{
    *nlist = 0;
    if (!a) return 0;
    if (!cJSON_IsArray(a)) {
        snprintf(err, errlen, "\"%s\" is not a list", what);
        return -1;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        const cJSON *dims = cJSON_IsObject(it) ? cJSON_GetObjectItemCaseSensitive(it, "dims") : NULL;
        const cJSON *unit = cJSON_IsObject(it) ? cJSON_GetObjectItemCaseSensitive(it, "unit") : NULL;
        int n = cJSON_IsArray(dims) ? cJSON_GetArraySize(dims) : -1;
        if (n < 2 || n > 3 || (want && n != want)) {
            snprintf(err, errlen, "an entry of \"%s\" has no \"dims\" list of %s numbers", what,
                     want == 3 ? "3" : want == 2 ? "2" : "2 or 3");
            return -1;
        }
        if (unit && !cJSON_IsString(unit)) {
            snprintf(err, errlen, "a \"unit\" of \"%s\" is not a string", what);
            return -1;
        }
        geom_rq_dims d;
        memset(&d, 0, sizeof d);
        d.n = n;
        for (int k = 0; k < n; k++) {
            const cJSON *v = cJSON_GetArrayItem(dims, k);
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || !(v->valuedouble > 0) ||
                v->valuedouble >= 1e6) {
                snprintf(err, errlen, "a dimension of \"%s\" is not a positive number", what);
                return -1;
            }
            d.v[k] = v->valuedouble;
        }
        if (unit) snprintf(d.unit, sizeof d.unit, "%s", unit->valuestring);
        if (*nlist < RQ_MAX) list[(*nlist)++] = d;
    }
    return 0;
}

static int read_names(const cJSON *a, const char *const *names, unsigned *bits, const char *what,
                      char *err, size_t errlen)
{
    *bits = 0;
    if (!a) return 0;
    if (!cJSON_IsArray(a)) {
        snprintf(err, errlen, "\"%s\" is not a list", what);
        return -1;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
    {
        int b = cJSON_IsString(it) ? name_bit(names, it->valuestring) : -1;
        if (b < 0) {
            snprintf(err, errlen, "\"%s\" names %s%s%s, which is none of the names asked for", what,
                     cJSON_IsString(it) ? "'" : "a non-string", cJSON_IsString(it) ? it->valuestring : "",
                     cJSON_IsString(it) ? "'" : "");
            return -1;
        }
        *bits |= 1u << b;
    }
    return 0;
}

/* Fills the fields of r the parser left empty from m, marking them. */
static void merge(geom_request *r, const geom_request *m)
{
    if (m->kinds & ~r->kinds) r->llm |= RQF_KINDS;
    r->kinds |= m->kinds;
    if (m->props & ~r->props) r->llm |= RQF_PROPS;
    r->props |= m->props;
    if (!r->ncubes && m->ncubes) {
        r->ncubes = m->ncubes;
        r->llm |= RQF_CUBES;
    }
#define FILL(list, cnt, bit)                                         \
    if (!r->cnt && m->cnt) {                                         \
        memcpy(r->list, m->list, (size_t)m->cnt * sizeof m->list[0]); \
        r->cnt = m->cnt;                                             \
        r->llm |= bit;                                               \
    }
    FILL(solids, nsolids, RQF_SOLIDS)
    FILL(flats, nflats, RQF_FLATS)
    FILL(sides, nsides, RQF_SIDES)
    FILL(angles, nangles, RQF_ANGLES)
#undef FILL
    /* unit cubes asked for: as the parser marks them */
    if (r->ncubes) r->props |= RQ_UNIT_CUBES, r->kinds |= RQ_CUBE;
}

static int merge_json(geom_request *r, const char *json, size_t n, char *err, size_t errlen);

int geom_request_merge_json(geom_request *r, const char *json, size_t n, char *err, size_t errlen)
{
    int rc = merge_json(r, json, n, err, errlen);
    if (rc != 0 && errlen) cli_one_line(err);
    return rc;
}

static int merge_json(geom_request *r, const char *json, size_t n, char *err, size_t errlen)
{
    cJSON *j = llm_answer_json(json, n, err, errlen);
    if (!j) return -1;
    /* the fields asked for, and nothing else */
    static const char *const fields[] = {"kinds", "props", "cubes", "solids",
                                         "flats", "sides", "angles", NULL};
    const cJSON *f;
    int known = 0;
    cJSON_ArrayForEach(f, j)
    {
        int k = 0;
        while (fields[k] && strcmp(fields[k], f->string ? f->string : "")) k++;
        if (!fields[k]) {
            snprintf(err, errlen, "the answer has a field \"%.40s\" that was not asked for",
                     f->string ? f->string : "");
            cJSON_Delete(j);
            return -1;
        }
        known++;
    }
    if (!known) {
        snprintf(err, errlen, "the answer states none of the fields asked for");
        cJSON_Delete(j);
        return -1;
    }
    geom_request m;
    memset(&m, 0, sizeof m);
    int rc = -1;
    unsigned kinds, props;
    if (read_names(cJSON_GetObjectItemCaseSensitive(j, "kinds"), geom_rq_kind_names, &kinds,
                   "kinds", err, errlen) < 0 ||
        read_names(cJSON_GetObjectItemCaseSensitive(j, "props"), geom_rq_prop_names, &props,
                   "props", err, errlen) < 0)
        goto out;
    m.kinds = kinds;
    m.props = props;
    const cJSON *cubes = cJSON_GetObjectItemCaseSensitive(j, "cubes");
    if (cubes && !cJSON_IsNull(cubes)) {
        double c = cJSON_IsNumber(cubes) ? cubes->valuedouble : -1;
        if (!(c >= 0 && c <= 100000 && c == floor(c))) {
            snprintf(err, errlen, "\"cubes\" is not a whole number from 0 to 100000");
            goto out;
        }
        m.ncubes = (long)c;
    }
    if (read_dims_list(cJSON_GetObjectItemCaseSensitive(j, "solids"), 3, m.solids, &m.nsolids,
                       "solids", err, errlen) < 0 ||
        read_dims_list(cJSON_GetObjectItemCaseSensitive(j, "flats"), 2, m.flats, &m.nflats,
                       "flats", err, errlen) < 0 ||
        read_dims_list(cJSON_GetObjectItemCaseSensitive(j, "sides"), 3, m.sides, &m.nsides,
                       "sides", err, errlen) < 0)
        goto out;
    const cJSON *angles = cJSON_GetObjectItemCaseSensitive(j, "angles");
    if (angles) {
        if (!cJSON_IsArray(angles)) {
            snprintf(err, errlen, "\"angles\" is not a list");
            goto out;
        }
        const cJSON *it;
        cJSON_ArrayForEach(it, angles)
        {
            if (!cJSON_IsNumber(it) || !(it->valuedouble > 0 && it->valuedouble < 360)) {
                snprintf(err, errlen, "an angle is not a number of degrees between 0 and 360");
                goto out;
            }
            if (m.nangles < RQ_MAX) m.angles[m.nangles++] = it->valuedouble;
        }
    }
    merge(r, &m);
    rc = 0;
out:
    cJSON_Delete(j);
    return rc;
}

/* --- the client ------------------------------------------------------------ */

static const char system_prompt[] =
    "You read a teacher's request for a geometry diagram and state what it asks for, as one "
    "JSON object and nothing else:\n"
    "{\"kinds\": [...], \"props\": [...], \"cubes\": N, \"solids\": [{\"dims\": [a, b, c], "
    "\"unit\": \"cm\"}], \"flats\": [{\"dims\": [a, b], \"unit\": \"\"}], \"sides\": "
    "[{\"dims\": [a, b, c], \"unit\": \"\"}], \"angles\": [degrees]}\n"
    "kinds: the shapes named, from: triangle rectangle square circle polygon prism cube "
    "cylinder cone pyramid sphere net plane (prism: a rectangular prism; cube: a cube or unit "
    "cubes; polygon: any other polygon; plane: a coordinate plane or grid).\n"
    "props: qualities stated, from: right isosceles equilateral parallel equal composite "
    "overlap unit-cubes stacked divided.\n"
    "cubes: the number of unit cubes the figure is made of, 0 when the request does not say.\n"
    "solids: each box's three dimensions as stated; flats: each rectangle's two; sides: each "
    "triangle's three side lengths; angles: each angle of the shape stated in degrees.\n"
    "Leave out (or give empty lists for) what the request does not state; never guess.";

typedef struct memo {
    struct memo *next;
    char *text;
    geom_request got;   /* the model's fields merged into an empty reading */
    int ok;
} memo;

static struct {
    llm_client *client;
    FILE *diag;
    memo *memos;
    long asked, used, failed;
} fb;

int geom_request_llm_open(const llm_config *cfg, FILE *diag, char *err, size_t errlen)
{
    llm_client *c = llm_client_new(cfg, err, errlen);
    if (!c) return -1;
    geom_request_llm_close(NULL);
    fb.client = c;
    fb.diag = diag;
    return 0;
}

void geom_request_llm_close(FILE *summary)
{
    if (fb.client && summary) {
        llm_summary(fb.client, summary, "irlint");
        fprintf(summary,
                "irlint: --request-llm: %ld request(s) sent to the model, %ld read, %ld not\n",
                fb.asked, fb.used, fb.failed);
    }
    if (fb.client) llm_client_free(fb.client);
    for (memo *m = fb.memos, *next; m; m = next) {
        next = m->next;
        free(m->text);
        free(m);
    }
    memset(&fb, 0, sizeof fb);
}

/* The model's reading of text (an empty reading merged with its answer),
 * asked once per text. NULL when it gave none usable. */
static const memo *ask(const char *text, const geom_request *parsed)
{
    for (memo *m = fb.memos; m; m = m->next)
        if (!strcmp(m->text, text)) return m->ok ? m : NULL;
    memo *m = calloc(1, sizeof *m);
    char *t = m ? strdup(text) : NULL;
    if (!t) {
        free(m);
        return NULL;
    }
    m->text = t;
    m->next = fb.memos;
    fb.memos = m;
    fb.asked++;
    char have[512];
    geom_request_describe(parsed, have, sizeof have);
    size_t ulen = strlen(text) + strlen(have) + 128;
    char *user = malloc(ulen);
    llm_request *rq = llm_request_new();
    char err[256] = "out of memory";
    char *ans = NULL;
    llm_result res;
    memset(&res, 0, sizeof res);
    if (user && rq) {
        snprintf(user, ulen, "Request: %s\n\nA word-based reader found: %s\n", text, have);
        llm_request_set_tag(rq, "request");
        llm_request_add_text(rq, "system", system_prompt);
        llm_request_add_text(rq, "user", user);
        ans = llm_complete(fb.client, rq, &res);   /* frees rq */
        rq = NULL;
        if (!ans) snprintf(err, sizeof err, "%s", res.error && *res.error ? res.error : "no answer");
    }
    if (rq) llm_request_free(rq);
    free(user);
    if (ans && geom_request_merge_json(&m->got, ans, strlen(ans), err, sizeof err) == 0) m->ok = 1;
    free(ans);
    if (!m->ok) {
        fb.failed++;
        if (fb.diag) {
            char head[61];
            snprintf(head, sizeof head, "%s", text);
            cli_one_line(head);
            fprintf(fb.diag, "irlint: warning: --request-llm: %s; the request \"%s%s\" is read "
                             "by the parser alone\n",
                    err, head, strlen(text) > 60 ? "..." : "");
        }
        return NULL;
    }
    fb.used++;
    return m;
}

void geom_request_read(const char *text, geom_request *r)
{
    geom_request_parse(text, r);
    if (!fb.client || !text || !geom_request_unread(r, text)) return;
    const memo *m = ask(text, r);
    if (!m) return;
    merge(r, &m->got);
}

void geom_request_note(const geom_request *r, chk_verdict *v)
{
    if (!r || !r->llm || v->value == CHK_NA) return;
    char d[1024];
    geom_request_describe(r, d, sizeof d);
    const char *src = strstr(d, " src=llm:");
    size_t k = strlen(v->reason);
    if (src && k < sizeof v->reason)
        snprintf(v->reason + k, sizeof v->reason - k, " (request read in part by a model:%s)", src);
}
