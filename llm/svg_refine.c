/* llm/svg_refine.c — svg2graph --llm: node refinement (merge, add, remove)
 * and edge refinement (add, remove) of the geometric graph through the
 * project's LLM client. The contract is llm/svg_refine.h; the
 * specification is svg2graph(1), LLM REFINEMENT. */
#include "llm/svg_refine.h"
#include "ir/xalloc.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/opts.h"

#define MAX_OPS 10000          /* entries of one list of an answer */
#define MAX_TEXT 1000          /* bytes of a text the model gives */
#define MAX_COORD 1e9          /* |coordinate| of a box the model gives */

struct s2l {
    llm_client *client;
    llm_rubric *prompt[2];     /* nodes, edges */
    s2l_opts o;
    llm_images *images;        /* NULL: no picture sent */
    unsigned char *png;        /* the picture of the diagram being refined */
    size_t pngn;
    long ok, failed, diagrams;
    long ok_cached;            /* steps applied with the answer from the cache */
    void (*on_step)(void *ctx);
    void *on_step_ctx;
};

void s2l_on_step(s2l *f, void (*fn)(void *ctx), void *ctx)
{
    f->on_step = fn;
    f->on_step_ctx = ctx;
}

static const char *const step_name[2] = { "nodes", "edges" };
static const char *const prompt_file[2] = { "svg2graph-nodes.prompt", "svg2graph-edges.prompt" };

s2l *s2l_new(const llm_config *cfg, const s2l_opts *o, char *err, size_t errlen)
{
    s2l *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->o = *o;
    for (int i = 0; i < 2; i++) {
        char path[4096];
        if (llm_find_data(o->prompt_dir, prompt_file[i], path, sizeof path) != 0) {
            snprintf(err, errlen, "prompt file %s not found (--prompt-dir, $DIAGRAMIR_RUBRICS)",
                     prompt_file[i]);
            s2l_free(f, NULL);
            return NULL;
        }
        f->prompt[i] = llm_prompt_load(path, err, errlen);
        if (!f->prompt[i]) {
            s2l_free(f, NULL);
            return NULL;
        }
    }
    if (!o->no_image) {
        char dir[4096];
        llm_image_opts io = o->image;
        llm_image_cache_dir(cfg->cache_dir, dir, sizeof dir);
        io.cache_dir = dir;
        io.no_cache = cfg->no_cache;
        f->images = llm_images_new(&io, err, errlen);
        if (!f->images) {
            s2l_free(f, NULL);
            return NULL;
        }
    }
    if (!o->dry_run) {
        f->client = llm_client_new(cfg, err, errlen);
        if (!f->client) {
            s2l_free(f, NULL);
            return NULL;
        }
    }
    return f;
}

void s2l_free(s2l *f, FILE *summary)
{
    if (!f) return;
    if (summary && f->client) {
        llm_summary(f->client, summary, "svg2graph");
        fprintf(summary, "svg2graph: llm refinement: %ld diagram(s), %ld step(s) applied "
                "(%ld from cache), %ld failed%s\n",
                f->diagrams, f->ok, f->ok_cached, f->failed,
                f->failed ? " (their geometric result kept)" : "");
    }
    llm_client_free(f->client);
    llm_images_free(f->images);
    free(f->png);
    llm_rubric_free(f->prompt[0]);
    llm_rubric_free(f->prompt[1]);
    free(f);
}

/* ------------------------------------------------------------ the graph */

typedef struct {
    ir_diagram *d;
    size_t *v, nv;     /* element indices of the vertex records */
    size_t *t, nt;     /* ... of the text records (t1, t2, ... in order) */
    size_t *e, ne;     /* ... of the edge records */
} view;

static void view_free(view *g)
{
    free(g->v);
    free(g->t);
    free(g->e);
    memset(g, 0, sizeof *g);
}

static int view_build(view *g, ir_diagram *d)
{
    memset(g, 0, sizeof *g);
    g->d = d;
    g->v = malloc((d->nelems + 1) * sizeof *g->v);
    g->t = malloc((d->nelems + 1) * sizeof *g->t);
    g->e = malloc((d->nelems + 1) * sizeof *g->e);
    if (!g->v || !g->t || !g->e) {
        view_free(g);
        return -1;
    }
    for (size_t i = 0; i < d->nelems; i++) {
        ir_kind k = d->elems[i].kind;
        if (k == IR_VERTEX && d->elems[i].name) g->v[g->nv++] = i;
        else if (k == IR_TEXT) g->t[g->nt++] = i;
        else if (k == IR_EDGE && d->elems[i].name && d->elems[i].str) g->e[g->ne++] = i;
    }
    return 0;
}

static ir_elem *V(const view *g, size_t slot) { return &g->d->elems[g->v[slot]]; }
static ir_elem *T(const view *g, size_t slot) { return &g->d->elems[g->t[slot]]; }
static ir_elem *E(const view *g, size_t slot) { return &g->d->elems[g->e[slot]]; }

/* The slot of the vertex named name, or -1. */
static long find_vertex(const view *g, const char *name)
{
    for (size_t i = 0; name && i < g->nv; i++)
        if (strcmp(V(g, i)->name, name) == 0) return (long)i;
    return -1;
}

/* The slot of text item "tK", or -1. */
static long find_text(const view *g, const char *id)
{
    if (id[0] != 't' || id[1] < '1' || id[1] > '9') return -1;
    size_t k = 0;
    for (const char *p = id + 1; *p; p++) {
        if (*p < '0' || *p > '9' || k > g->nt) return -1;
        k = k * 10 + (size_t)(*p - '0');
    }
    return k >= 1 && k <= g->nt ? (long)(k - 1) : -1;
}

static ir_box elem_box(const ir_elem *e)
{
    ir_box b = ir_box_empty();
    if (e->npts >= 2) {
        ir_box_add(&b, e->pts[0].x, e->pts[0].y);
        ir_box_add(&b, e->pts[1].x, e->pts[1].y);
    }
    return b;
}

/* ----------------------------------------------------- the prompt fields */

/* A field value for the prompt templates, which turn \n, \t and \\ into
 * characters: every backslash doubled. */
static char *field(const char *s, size_t n)
{
    size_t extra = 0;
    for (size_t i = 0; i < n; i++) extra += s[i] == '\\';
    char *r = malloc(n + extra + 1), *q = r;
    if (!r) return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\') *q++ = '\\';
        *q++ = s[i] ? s[i] : ' ';
    }
    *q = 0;
    return r;
}

static void put_box(FILE *m, const ir_elem *e)
{
    char a[32], b[32], c[32], d[32];
    ir_box x = elem_box(e);
    if (x.empty) return;
    fprintf(m, " box=%s,%s,%s,%s", ir_fmt_num(a, x.x1), ir_fmt_num(b, x.y1), ir_fmt_num(c, x.x2),
            ir_fmt_num(d, x.y2));
}

typedef struct {
    char *mem;
    size_t n;
    FILE *f;
} mbuf;

static int mb_open(mbuf *b)
{
    b->mem = NULL;
    b->n = 0;
    b->f = open_memstream(&b->mem, &b->n);
    return b->f ? 0 : -1;
}

/* Closes the stream; returns the text as a field value (malloc'd). */
static char *mb_field(mbuf *b)
{
    if (!b->f) return NULL;
    fclose(b->f);
    b->f = NULL;
    while (b->n > 0 && b->mem[b->n - 1] == '\n') b->n--;
    char *r = b->mem ? field(b->mem, b->n) : NULL;
    free(b->mem);
    b->mem = NULL;
    return r;
}

static char *nodes_table(const view *g)
{
    mbuf b;
    if (mb_open(&b)) return NULL;
    for (size_t i = 0; i < g->nv; i++) {
        const ir_elem *v = V(g, i);
        fputs(v->name, b.f);
        fputc(' ', b.f);
        ir_write_quoted(b.f, v->str ? v->str : "");
        put_box(b.f, v);
        const char *sh = ir_elem_get(v, "shape");
        if (sh) fprintf(b.f, " shape=%s", sh);
        fputc('\n', b.f);
    }
    return mb_field(&b);
}

static char *texts_table(const view *g)
{
    mbuf b;
    if (mb_open(&b)) return NULL;
    for (size_t i = 0; i < g->nt; i++) {
        const ir_elem *t = T(g, i);
        fprintf(b.f, "t%zu ", i + 1);
        ir_write_quoted(b.f, t->str ? t->str : "");
        put_box(b.f, t);
        const char *node = ir_elem_get(t, "node"), *role = ir_elem_get(t, "role");
        if (node) fprintf(b.f, " node=%s\n", node);
        else fputs(role && strcmp(role, "label") == 0 ? " label\n" : " free\n", b.f);
    }
    return mb_field(&b);
}

static char *edges_table(const view *g)
{
    mbuf b;
    if (mb_open(&b)) return NULL;
    for (size_t i = 0; i < g->ne; i++) {
        const ir_elem *e = E(g, i);
        fprintf(b.f, "%s %s %s", e->name, e->undirected ? "--" : "->", e->str);
        if (e->undirected) fputs(" (undirected)", b.f);
        const char *lab = ir_elem_get(e, "label");
        if (lab) {
            fputs(" label=", b.f);
            ir_write_quoted(b.f, lab);
        }
        fputc('\n', b.f);
    }
    return mb_field(&b);
}

/* The request of a step for the diagram as it is now. */
static llm_request *build_request(s2l *f, int step, const view *g, const char *svg, size_t svglen,
                                  char *err, size_t errlen)
{
    while (svglen > 0 && (svg[svglen - 1] == '\n' || svg[svglen - 1] == '\r' ||
                          svg[svglen - 1] == ' ' || svg[svglen - 1] == '\t'))
        svglen--;
    size_t n = svglen < f->o.svg_max ? svglen : f->o.svg_max;
    while (n > 0 && n < svglen && ((unsigned char)svg[n] & 0xC0) == 0x80) n--;   /* whole UTF-8 */
    char trunc[128] = "";
    if (n < svglen && n > 0)
        snprintf(trunc, sizeof trunc, "its first %zu of %zu bytes", n, svglen);
    char *nodes = nodes_table(g), *texts = step == 0 ? texts_table(g) : NULL;
    char *edges = edges_table(g), *src = n ? field(svg, n) : NULL;
    char *names[] = { "nodes", "texts", "edges", "svg", "truncated" };
    char *values[] = { nodes ? nodes : "", texts ? texts : "", edges ? edges : "",
                       src ? src : "", trunc };
    llm_item it = { .id = g->d->id ? g->d->id : "", .names = names, .values = values, .n = 5 };
    llm_request *r = NULL;
    if (!nodes || !edges || (step == 0 && !texts) || (n && !src))
        snprintf(err, errlen, "out of memory");
    else
        r = llm_rubric_request(f->prompt[step], NULL, NULL, &it, err, errlen);
    if (r && f->png && llm_request_add_image(r, f->png, f->pngn, err, errlen) != 0) {
        llm_request_free(r);
        r = NULL;
    }
    if (r) {
        char tag[512];
        snprintf(tag, sizeof tag, "%s:%s", g->d->id ? g->d->id : "", step_name[step]);
        llm_request_set_tag(r, tag);
    }
    free(nodes);
    free(texts);
    free(edges);
    free(src);
    return r;
}

/* ------------------------------------------------------ checking answers */

static int bad(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* The object's keys are all among allowed (NULL-terminated). */
static int only_keys(const cJSON *o, const char *const *allowed, const char *what, char *err,
                     size_t errlen)
{
    const cJSON *k;
    cJSON_ArrayForEach(k, o)
    {
        int ok = 0;
        for (size_t i = 0; allowed[i]; i++)
            if (k->string && strcmp(k->string, allowed[i]) == 0) ok = 1;
        if (!ok) {
            char list[200] = "";
            for (size_t i = 0; allowed[i]; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", i ? ", " : "",
                         allowed[i]);
            return bad(err, errlen, "%s has the key \"%.60s\" (expected %s)", what,
                       k->string ? k->string : "", list);
        }
    }
    return 0;
}

/* The list under key: NULL (absent, null) is an empty list; anything but
 * an array of at most MAX_OPS entries is an error. */
static int get_list(const cJSON *o, const char *key, const cJSON **out, char *err, size_t errlen)
{
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NULL;
    if (!l || cJSON_IsNull(l)) return 0;
    if (!cJSON_IsArray(l)) return bad(err, errlen, "\"%s\" is not a list", key);
    if (cJSON_GetArraySize(l) > MAX_OPS)
        return bad(err, errlen, "\"%s\" has more than %d entries", key, MAX_OPS);
    *out = l;
    return 0;
}

/* An optional text the model gives under key: NULL when absent; -1 when
 * it is not a usable string (empty, too long, control characters). */
static int get_text(const cJSON *o, const char *key, const char *what, char **out, char *err,
                    size_t errlen)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = NULL;
    if (!t || cJSON_IsNull(t)) return 0;
    if (!cJSON_IsString(t)) return bad(err, errlen, "%s: \"%s\" is not a string", what, key);
    const char *s = t->valuestring;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    while (n && (*s == ' ' || *s == '\t')) { s++; n--; }
    if (n == 0) return bad(err, errlen, "%s: \"%s\" is empty", what, key);
    if (n > MAX_TEXT)
        return bad(err, errlen, "%s: \"%s\" is longer than %d bytes", what, key, MAX_TEXT);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20)
            return bad(err, errlen, "%s: \"%s\" holds a control character", what, key);
    *out = strndup(s, n);
    return *out ? 0 : bad(err, errlen, "out of memory");
}

/* --- nodes */

typedef struct {
    size_t *v, n;          /* vertex slots, survivor (the first in document order) first */
    char *text;            /* NULL: the texts joined in reading order */
} mergeop;

typedef struct {
    char *text;            /* NULL: the texts joined in reading order */
    size_t *t, nt;         /* text slots */
    int has_box;
    double box[4];
} addop;

typedef struct {
    mergeop *m;
    size_t nm;
    size_t *rm, nrm;
    addop *a;
    size_t na;
} nplan;

static void nplan_free(nplan *p)
{
    for (size_t i = 0; i < p->nm; i++) {
        free(p->m[i].v);
        free(p->m[i].text);
    }
    for (size_t i = 0; i < p->na; i++) {
        free(p->a[i].t);
        free(p->a[i].text);
    }
    free(p->m);
    free(p->rm);
    free(p->a);
    memset(p, 0, sizeof *p);
}

enum { FREE_NODE = 0, IN_MERGE, REMOVED };

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static int node_id(const cJSON *s, const view *g, const char *what, char *err, size_t errlen)
{
    if (!cJSON_IsString(s)) return bad(err, errlen, "%s: a node id is not a string", what);
    long k = find_vertex(g, s->valuestring);
    if (k < 0) return bad(err, errlen, "%s: unknown node id \"%.60s\"", what, s->valuestring);
    return (int)k;
}

static int check_nodes_into(const cJSON *ans, const view *g, nplan *p, char *fate, char *tused,
                            char *err, size_t errlen)
{
    static const char *const top[] = { "merge", "remove", "add", "reason", NULL };
    static const char *const mkeys[] = { "nodes", "text", NULL };
    static const char *const akeys[] = { "text", "texts", "box", NULL };
    if (only_keys(ans, top, "the answer", err, errlen)) return -1;
    const cJSON *merge, *remove, *add, *x;
    if (get_list(ans, "merge", &merge, err, errlen) || get_list(ans, "remove", &remove, err, errlen) ||
        get_list(ans, "add", &add, err, errlen))
        return -1;
    char what[64];
    size_t n = (size_t)cJSON_GetArraySize(merge) + 1;
    p->m = calloc(n, sizeof *p->m);
    p->rm = calloc((size_t)cJSON_GetArraySize(remove) + 1, sizeof *p->rm);
    p->a = calloc((size_t)cJSON_GetArraySize(add) + 1, sizeof *p->a);
    if (!p->m || !p->rm || !p->a) return bad(err, errlen, "out of memory");
    cJSON_ArrayForEach(x, merge)
    {
        snprintf(what, sizeof what, "merge %zu", p->nm + 1);
        if (!cJSON_IsObject(x)) return bad(err, errlen, "%s is not an object", what);
        if (only_keys(x, mkeys, what, err, errlen)) return -1;
        const cJSON *ids = cJSON_GetObjectItemCaseSensitive(x, "nodes"), *s;
        if (!cJSON_IsArray(ids)) return bad(err, errlen, "%s: \"nodes\" is not a list", what);
        mergeop *m = &p->m[p->nm++];
        m->v = calloc((size_t)cJSON_GetArraySize(ids) + 1, sizeof *m->v);
        if (!m->v) return bad(err, errlen, "out of memory");
        cJSON_ArrayForEach(s, ids)
        {
            int k = node_id(s, g, what, err, errlen);
            if (k < 0) return -1;
            if (fate[k] != FREE_NODE)
                return bad(err, errlen, "node %s is in more than one operation", V(g, (size_t)k)->name);
            fate[k] = IN_MERGE;
            m->v[m->n++] = (size_t)k;
        }
        if (m->n < 2) return bad(err, errlen, "%s names fewer than two nodes", what);
        qsort(m->v, m->n, sizeof *m->v, cmp_size);
        if (get_text(x, "text", what, &m->text, err, errlen)) return -1;
    }
    cJSON_ArrayForEach(x, remove)
    {
        snprintf(what, sizeof what, "remove %zu", p->nrm + 1);
        int k = node_id(x, g, what, err, errlen);
        if (k < 0) return -1;
        if (fate[k] != FREE_NODE)
            return bad(err, errlen, "node %s is in more than one operation", V(g, (size_t)k)->name);
        fate[k] = REMOVED;
        p->rm[p->nrm++] = (size_t)k;
    }
    cJSON_ArrayForEach(x, add)
    {
        snprintf(what, sizeof what, "add %zu", p->na + 1);
        if (!cJSON_IsObject(x)) return bad(err, errlen, "%s is not an object", what);
        if (only_keys(x, akeys, what, err, errlen)) return -1;
        addop *a = &p->a[p->na++];
        if (get_text(x, "text", what, &a->text, err, errlen)) return -1;
        const cJSON *texts = cJSON_GetObjectItemCaseSensitive(x, "texts");
        const cJSON *box = cJSON_GetObjectItemCaseSensitive(x, "box"), *s;
        if (texts && !cJSON_IsNull(texts)) {
            if (!cJSON_IsArray(texts)) return bad(err, errlen, "%s: \"texts\" is not a list", what);
            a->t = calloc((size_t)cJSON_GetArraySize(texts) + 1, sizeof *a->t);
            if (!a->t) return bad(err, errlen, "out of memory");
            cJSON_ArrayForEach(s, texts)
            {
                if (!cJSON_IsString(s)) return bad(err, errlen, "%s: a text item id is not a string", what);
                long k = find_text(g, s->valuestring);
                if (k < 0) return bad(err, errlen, "%s: unknown text item id \"%.60s\"", what, s->valuestring);
                if (tused[k]) return bad(err, errlen, "text item %s is in more than one added node", s->valuestring);
                tused[k] = 1;
                const char *owner = ir_elem_get(T(g, (size_t)k), "node");
                long o = owner ? find_vertex(g, owner) : -1;
                if (owner && (o < 0 || fate[o] != REMOVED))
                    return bad(err, errlen, "%s: text item %s belongs to node %s, which the answer does not remove",
                               what, s->valuestring, owner);
                a->t[a->nt++] = (size_t)k;
            }
        }
        if (box && !cJSON_IsNull(box)) {
            if (!cJSON_IsArray(box) || cJSON_GetArraySize(box) != 4)
                return bad(err, errlen, "%s: \"box\" is not a list of four numbers", what);
            int i = 0;
            cJSON_ArrayForEach(s, box)
            {
                if (!cJSON_IsNumber(s) || !isfinite(s->valuedouble) || fabs(s->valuedouble) > MAX_COORD)
                    return bad(err, errlen, "%s: \"box\" is not a list of four numbers", what);
                a->box[i++] = s->valuedouble;
            }
            a->has_box = 1;
        }
        if (a->nt == 0 && !a->has_box)
            return bad(err, errlen, "%s has neither \"texts\" nor \"box\"", what);
        if (a->nt == 0 && !a->text) return bad(err, errlen, "%s has a box but no \"text\"", what);
    }
    return 0;
}

static int check_nodes(const cJSON *ans, const view *g, nplan *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    char *fate = calloc(g->nv + 1, 1), *tused = calloc(g->nt + 1, 1);
    int rc = fate && tused ? check_nodes_into(ans, g, p, fate, tused, err, errlen)
                           : bad(err, errlen, "out of memory");
    free(fate);
    free(tused);
    if (rc) nplan_free(p);
    return rc;
}

/* --- edges */

typedef struct {
    size_t from, to;       /* vertex slots */
    int undirected;
    char *label;           /* add only */
} eop;

typedef struct {
    eop *a, *r;
    size_t na, nr;
} eplan;

static void eplan_free(eplan *p)
{
    for (size_t i = 0; i < p->na; i++) free(p->a[i].label);
    free(p->a);
    free(p->r);
    memset(p, 0, sizeof *p);
}

static int same_edge(size_t f1, size_t t1, int u1, size_t f2, size_t t2, int u2)
{
    if (u1 != u2) return 0;
    return (f1 == f2 && t1 == t2) || (u1 && f1 == t2 && t1 == f2);
}

/* Whether the diagram has the edge; -1 when it has neither kind (for a
 * remove whose direction kind is not given: the directed one first). */
static int has_edge(const view *g, const long *slot_from, const long *slot_to, size_t f, size_t t,
                    int undirected)
{
    for (size_t i = 0; i < g->ne; i++)
        if (slot_from[i] >= 0 && slot_to[i] >= 0 &&
            same_edge((size_t)slot_from[i], (size_t)slot_to[i], E(g, i)->undirected, f, t, undirected))
            return 1;
    return 0;
}

static int check_edges_into(const cJSON *ans, const view *g, eplan *p, const long *sf,
                            const long *st, char *err, size_t errlen)
{
    static const char *const top[] = { "add", "remove", "reason", NULL };
    static const char *const akeys[] = { "from", "to", "undirected", "label", NULL };
    static const char *const rkeys[] = { "from", "to", "undirected", NULL };
    if (only_keys(ans, top, "the answer", err, errlen)) return -1;
    const cJSON *lists[2], *x;
    if (get_list(ans, "add", &lists[0], err, errlen) || get_list(ans, "remove", &lists[1], err, errlen))
        return -1;
    p->a = calloc((size_t)cJSON_GetArraySize(lists[0]) + 1, sizeof *p->a);
    p->r = calloc((size_t)cJSON_GetArraySize(lists[1]) + 1, sizeof *p->r);
    if (!p->a || !p->r) return bad(err, errlen, "out of memory");
    for (int l = 0; l < 2; l++) {
        int adding = l == 0;
        cJSON_ArrayForEach(x, lists[l])
        {
            char what[64];
            snprintf(what, sizeof what, "%s %zu", adding ? "add" : "remove", (adding ? p->na : p->nr) + 1);
            if (!cJSON_IsObject(x)) return bad(err, errlen, "%s is not an object", what);
            if (only_keys(x, adding ? akeys : rkeys, what, err, errlen)) return -1;
            const cJSON *jf = cJSON_GetObjectItemCaseSensitive(x, "from");
            const cJSON *jt = cJSON_GetObjectItemCaseSensitive(x, "to");
            const cJSON *ju = cJSON_GetObjectItemCaseSensitive(x, "undirected");
            if (!jf || !jt) return bad(err, errlen, "%s needs \"from\" and \"to\"", what);
            int f = node_id(jf, g, what, err, errlen);
            if (f < 0) return -1;
            int t = node_id(jt, g, what, err, errlen);
            if (t < 0) return -1;
            if (ju && !cJSON_IsNull(ju) && !cJSON_IsBool(ju))
                return bad(err, errlen, "%s: \"undirected\" is not true or false", what);
            int given = ju && cJSON_IsBool(ju), und = given && cJSON_IsTrue(ju);
            const char *fn = V(g, (size_t)f)->name, *tn = V(g, (size_t)t)->name;
            eop op = { (size_t)f, (size_t)t, und, NULL };
            if (adding) {
                if (f == t) return bad(err, errlen, "%s: an edge from %s to itself", what, fn);
                if (has_edge(g, sf, st, op.from, op.to, und))
                    return bad(err, errlen, "%s: %s %s %s is already an edge", what, fn, und ? "--" : "->", tn);
            } else if (given) {
                if (!has_edge(g, sf, st, op.from, op.to, und))
                    return bad(err, errlen, "%s: %s %s %s is not an edge", what, fn, und ? "--" : "->", tn);
            } else if (has_edge(g, sf, st, op.from, op.to, 0)) {
                op.undirected = 0;
            } else if (has_edge(g, sf, st, op.from, op.to, 1)) {
                op.undirected = 1;
            } else {
                return bad(err, errlen, "%s: %s -> %s is not an edge", what, fn, tn);
            }
            for (size_t i = 0; i < p->na + p->nr; i++) {
                const eop *o = i < p->na ? &p->a[i] : &p->r[i - p->na];
                if (same_edge(o->from, o->to, o->undirected, op.from, op.to, op.undirected))
                    return bad(err, errlen, "the edge %s %s %s is in more than one operation", fn,
                               op.undirected ? "--" : "->", tn);
            }
            if (adding) {
                if (get_text(x, "label", what, &op.label, err, errlen)) return -1;
                p->a[p->na++] = op;
            } else {
                p->r[p->nr++] = op;
            }
        }
    }
    return 0;
}

/* The vertex slots of each edge's ends (-1: not a vertex). */
static int edge_slots(const view *g, long **sf, long **st)
{
    *sf = malloc((g->ne + 1) * sizeof **sf);
    *st = malloc((g->ne + 1) * sizeof **st);
    if (!*sf || !*st) return -1;
    for (size_t i = 0; i < g->ne; i++) {
        (*sf)[i] = find_vertex(g, E(g, i)->name);
        (*st)[i] = find_vertex(g, E(g, i)->str);
    }
    return 0;
}

static int check_edges(const cJSON *ans, const view *g, eplan *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    long *sf = NULL, *st = NULL;
    int rc = edge_slots(g, &sf, &st) == 0 ? check_edges_into(ans, g, p, sf, st, err, errlen)
                                          : bad(err, errlen, "out of memory");
    free(sf);
    free(st);
    if (rc) eplan_free(p);
    return rc;
}

/* --------------------------------------------------- applying the plans */

/* Reading order of boxes: top to bottom (y up), then left to right. */
static const view *sort_view;
static int sort_texts;
static int cmp_reading(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    ir_box bx = elem_box(sort_texts ? T(sort_view, x) : V(sort_view, x));
    ir_box by = elem_box(sort_texts ? T(sort_view, y) : V(sort_view, y));
    if (bx.y2 != by.y2) return bx.y2 > by.y2 ? -1 : 1;
    if (bx.x1 != by.x1) return bx.x1 < by.x1 ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The strs of the slots joined by blanks in reading order (malloc'd). */
static char *join_reading(const view *g, const size_t *slots, size_t n, int texts)
{
    size_t *s = malloc((n + 1) * sizeof *s);
    if (!s) return NULL;
    memcpy(s, slots, n * sizeof *s);
    sort_view = g;
    sort_texts = texts;
    qsort(s, n, sizeof *s, cmp_reading);
    size_t len = 1;
    for (size_t i = 0; i < n; i++) {
        const ir_elem *e = texts ? T(g, s[i]) : V(g, s[i]);
        len += (e->str ? strlen(e->str) : 0) + 1;
    }
    char *r = malloc(len), *q = r;
    for (size_t i = 0; r && i < n; i++) {
        const ir_elem *e = texts ? T(g, s[i]) : V(g, s[i]);
        if (!e->str || !*e->str) continue;
        if (q > r) *q++ = ' ';
        size_t k = strlen(e->str);
        memcpy(q, e->str, k);
        q += k;
    }
    if (r) *q = 0;
    free(s);
    return r;
}

static void set_box(ir_elem *e, ir_box b)
{
    ir_pt p[2] = { { b.x1, b.y1 }, { b.x2, b.y2 } };
    ir_elem_set_pts(e, p, 2);
}

static void set_name(char **dst, const char *name)
{
    char *c = xstrdup(name);
    free(*dst);
    *dst = c;
}

static void set_str(ir_elem *e, char *s)
{
    if (!s) abort();
    free(e->str);
    e->str = s;
}

/* Removes the flagged elements, then orders the graph records last:
 * vertices, then edges, each in their order. */
static void compact(ir_diagram *d, const char *del, size_t ndel)
{
    size_t w = 0;
    for (size_t i = 0; i < d->nelems; i++) {
        if (i < ndel && del[i]) {
            ir_elem_clear(&d->elems[i]);
            continue;
        }
        d->elems[w++] = d->elems[i];
    }
    d->nelems = w;
    ir_elem *tmp = xmalloc((w + 1) * sizeof *tmp);
    size_t k = 0;
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < w; i++) {
            ir_kind kd = d->elems[i].kind;
            int cls = kd == IR_VERTEX ? 1 : kd == IR_EDGE ? 2 : 0;
            if (cls == pass) tmp[k++] = d->elems[i];
        }
    memcpy(d->elems, tmp, w * sizeof *tmp);
    free(tmp);
}

/* The first free vertex number: one past the largest nK in use. */
static unsigned long next_vertex_number(const view *g)
{
    unsigned long mx = 0;
    for (size_t i = 0; i < g->nv; i++) {
        const char *s = V(g, i)->name;
        if (s[0] != 'n' || !s[1]) continue;
        char *end;
        unsigned long k = strtoul(s + 1, &end, 10);
        if (!*end && k > mx && k < 1000000000UL) mx = k;
    }
    return mx + 1;
}

static void apply_nodes(const view *g, const nplan *p)
{
    ir_diagram *d = g->d;
    size_t nel = d->nelems;
    char *del = xcalloc(nel + 1, 1);
    long *to = xmalloc((g->nv + 1) * sizeof *to);   /* vertex slot -> survivor slot, -1 removed */
    for (size_t i = 0; i < g->nv; i++) to[i] = (long)i;
    for (size_t i = 0; i < p->nrm; i++) {
        to[p->rm[i]] = -1;
        del[g->v[p->rm[i]]] = 1;
    }
    for (size_t i = 0; i < p->nm; i++) {
        const mergeop *m = &p->m[i];
        size_t s = m->v[0];
        ir_box b = ir_box_empty();
        int line = 0;
        double best = -1;
        const char *shape = NULL;
        int same = 1;
        for (size_t k = 0; k < m->n; k++) {
            const ir_elem *v = V(g, m->v[k]);
            ir_box vb = elem_box(v);
            ir_box_union(&b, vb);
            if (v->line > 0 && (line == 0 || v->line < line)) line = v->line;
            const char *sh = ir_elem_get(v, "shape");
            double area = vb.empty ? 0 : (vb.x2 - vb.x1) * (vb.y2 - vb.y1);
            if (area > best) { best = area; shape = sh; }
            const char *s0 = ir_elem_get(V(g, s), "shape");
            if (!sh || !s0 || strcmp(sh, s0) != 0) same = 0;
            if (k) {
                to[m->v[k]] = (long)s;
                del[g->v[m->v[k]]] = 1;
            }
        }
        char *text = m->text ? strdup(m->text) : join_reading(g, m->v, m->n, 0);
        char *shp = same ? NULL : shape ? strdup(shape) : NULL;
        ir_elem *v = V(g, s);
        set_str(v, text);
        if (!b.empty) set_box(v, b);
        v->line = line;
        if (!same) ir_elem_set(v, "shape", shp);
        free(shp);
        ir_elem_set(v, "src", "llm");
    }
    /* edges: ends follow the merges; edges of removed nodes go, and so do
     * self-loops and copies of other edges that the merges made */
    long *ef = xmalloc((g->ne + 1) * sizeof *ef), *et = xmalloc((g->ne + 1) * sizeof *et);
    char *moved = xcalloc(g->ne + 1, 1);
    size_t *kept = xmalloc((g->ne + 1) * sizeof *kept), nk = 0;
    for (size_t i = 0; i < g->ne; i++) {
        long f = find_vertex(g, E(g, i)->name), t = find_vertex(g, E(g, i)->str);
        if ((f >= 0 && to[f] < 0) || (t >= 0 && to[t] < 0)) {
            del[g->e[i]] = 1;
            continue;
        }
        moved[i] = (f >= 0 && to[f] != f) || (t >= 0 && to[t] != t);
        ef[i] = f >= 0 ? to[f] : -1;
        et[i] = t >= 0 ? to[t] : -1;
        if (!moved[i]) kept[nk++] = i;
    }
    for (size_t i = 0; i < g->ne; i++) {
        if (!moved[i]) continue;
        ir_elem *e = E(g, i);
        int drop = ef[i] == et[i];
        for (size_t k = 0; k < nk && !drop; k++)
            drop = same_edge((size_t)ef[kept[k]], (size_t)et[kept[k]], E(g, kept[k])->undirected,
                             (size_t)ef[i], (size_t)et[i], e->undirected);
        if (drop) {
            del[g->e[i]] = 1;
            continue;
        }
        kept[nk++] = i;
        if (ef[i] >= 0) set_name(&e->name, V(g, (size_t)ef[i])->name);
        if (et[i] >= 0) set_name(&e->str, V(g, (size_t)et[i])->name);
        ir_elem_set(e, "src", "llm");
    }
    free(ef);
    free(et);
    free(moved);
    free(kept);
    /* text records follow their node */
    for (size_t i = 0; i < g->nt; i++) {
        ir_elem *t = T(g, i);
        const char *node = ir_elem_get(t, "node");
        long k = node ? find_vertex(g, node) : -1;
        if (k < 0 || to[k] == k) continue;
        if (to[k] < 0) ir_elem_set(t, "node", NULL);
        else ir_elem_set(t, "node", V(g, (size_t)to[k])->name);
        ir_elem_set(t, "src", "llm");
    }
    /* added nodes (element indices stay valid; pointers do not) */
    unsigned long next = next_vertex_number(g);
    for (size_t i = 0; i < p->na; i++) {
        const addop *a = &p->a[i];
        char id[32];
        snprintf(id, sizeof id, "n%lu", next++);
        ir_box b = ir_box_empty();
        int line = 0;
        for (size_t k = 0; k < a->nt; k++) {
            ir_elem *t = T(g, a->t[k]);
            ir_box_union(&b, elem_box(t));
            if (t->line > 0 && (line == 0 || t->line < line)) line = t->line;
            ir_elem_set(t, "node", id);
            const char *role = ir_elem_get(t, "role");
            if (role && strcmp(role, "label") == 0) ir_elem_set(t, "role", NULL);
            ir_elem_set(t, "src", "llm");
        }
        if (a->has_box) {
            b = ir_box_empty();
            ir_box_add(&b, a->box[0], a->box[1]);
            ir_box_add(&b, a->box[2], a->box[3]);
        }
        char *text = a->text ? xstrdup(a->text) : join_reading(g, a->t, a->nt, 1);
        ir_elem *v = ir_add(d, IR_VERTEX);
        v->name = xstrdup(id);
        set_str(v, text);
        set_box(v, b);
        if (a->nt) ir_elem_set(v, "shape", "text");
        ir_elem_set(v, "src", "llm");
        v->line = line;
    }
    compact(d, del, nel);
    free(del);
    free(to);
}

static void apply_edges(const view *g, const eplan *p)
{
    ir_diagram *d = g->d;
    size_t nel = d->nelems;
    char *del = xcalloc(nel + 1, 1);
    long *sf = NULL, *st = NULL;
    if (edge_slots(g, &sf, &st)) abort();
    for (size_t i = 0; i < g->ne; i++)
        for (size_t k = 0; k < p->nr; k++)
            if (sf[i] >= 0 && st[i] >= 0 &&
                same_edge((size_t)sf[i], (size_t)st[i], E(g, i)->undirected, p->r[k].from,
                          p->r[k].to, p->r[k].undirected))
                del[g->e[i]] = 1;
    /* names first: ir_add moves the elements */
    for (size_t k = 0; k < p->na; k++) {
        const eop *o = &p->a[k];
        char *from = xstrdup(V(g, o->from)->name), *to = xstrdup(V(g, o->to)->name);
        ir_elem *e = ir_add(d, IR_EDGE);
        e->name = from;
        e->str = to;
        e->undirected = o->undirected;
        if (o->label) ir_elem_set(e, "label", o->label);
        ir_elem_set(e, "src", "llm");
    }
    compact(d, del, nel);
    free(del);
    free(sf);
    free(st);
}

/* ------------------------------------------------------------ the steps */

typedef struct {
    int step;
    nplan np;
    eplan ep;
} plan;

static int check(const cJSON *ans, const view *g, plan *p, char *err, size_t errlen)
{
    return p->step == 0 ? check_nodes(ans, g, &p->np, err, errlen)
                        : check_edges(ans, g, &p->ep, err, errlen);
}

/* The client's check (llm_check_fn) of a step's answer: only an answer
 * that makes a valid plan is cached, or served from the cache. The plan of
 * the last valid answer stays in the context's plan. */
typedef struct {
    const view *g;
    plan *p;
} check_ctx;

static int check_answer(const char *content, void *user, char *err, size_t errlen)
{
    check_ctx *k = user;
    nplan_free(&k->p->np);
    eplan_free(&k->p->ep);
    cJSON *j = llm_answer_json(content, strlen(content), err, errlen);
    int ok = j && check(j, k->g, k->p, err, errlen) == 0;
    cJSON_Delete(j);
    return ok ? 0 : -1;
}

/* Sends the step's request (and one repair request when the answer is
 * unusable); 0 with a valid plan, -1 with the reason in why. */
static int ask(s2l *f, llm_request *req, const view *g, plan *p, char *why, size_t whylen)
{
    check_ctx ctx = {g, p};
    for (int round = 0;; round++) {
        llm_request *keep = round == 0 ? llm_request_clone(req) : NULL;
        llm_result res;
        char *ans = llm_complete_checked(f->client, req, check_answer, &ctx, &res);
        if (!ans) {
            snprintf(why, whylen, "%s%s", res.error && *res.error ? res.error : "no answer",
                     round ? " (the repair request)" : "");
            llm_request_free(keep);
            return -1;
        }
        if (res.status == LLM_OK) {
            if (res.cached && round == 0) f->ok_cached++;   /* applied, no call sent */
            free(ans);
            llm_request_free(keep);
            return 0;
        }
        char err[512];
        snprintf(err, sizeof err, "%s", res.error ? res.error : "");
        if (round > 0 || !keep) {
            snprintf(why, whylen, "unusable answer%s: %s", round ? " after a repair request" : "", err);
            free(ans);
            llm_request_free(keep);
            return -1;
        }
        req = llm_rubric_repair(f->prompt[p->step], keep, ans, err);
        free(ans);
        llm_request_free(keep);
        if (!req) {
            snprintf(why, whylen, "out of memory building the repair request");
            return -1;
        }
    }
}

int s2l_apply_answer(ir_diagram *d, unsigned step, const char *answer, size_t n, char *err,
                     size_t errlen)
{
    view g;
    plan p;
    memset(&p, 0, sizeof p);
    p.step = step == S2L_EDGES;
    if (view_build(&g, d) != 0) return bad(err, errlen, "out of memory");
    cJSON *j = llm_answer_json(answer, n, err, errlen);
    int rc = j && check(j, &g, &p, err, errlen) == 0 ? 0 : -1;
    cJSON_Delete(j);
    if (rc == 0) {
        if (p.step == 0) apply_nodes(&g, &p.np);
        else apply_edges(&g, &p.ep);
    }
    nplan_free(&p.np);
    eplan_free(&p.ep);
    view_free(&g);
    return rc;
}

static void print_dry(FILE *out, const char *id, int step, llm_request *r)
{
    char *js = llm_request_json(r, 1);
    cJSON *o = cJSON_CreateString(id ? id : "");
    char *ids = o ? cJSON_PrintUnformatted(o) : NULL;
    fprintf(out, "{\"item\":%s,\"step\":\"%s\",\"messages\":%s}\n", ids ? ids : "\"\"",
            step_name[step], js ? js : "[]");
    free(ids);
    cJSON_Delete(o);
    free(js);
}

int s2l_apply(s2l *f, ir_diagram *d, const char *svg, size_t svglen, const char *fname, FILE *diag)
{
    int rc = 0;
    f->diagrams++;
    free(f->png);
    f->png = NULL;
    if (f->images) {
        char err[1200];
        if (llm_images_convert(f->images, svg, svglen, fname, &f->png, &f->pngn, err, sizeof err) !=
            LLM_IMAGE_OK) {
            fprintf(diag ? diag : stderr, "%s: error: llm: the picture for the model: %s\n", fname,
                    err);
            return 2;
        }
    }
    for (int step = 0; step < 2; step++) {
        if (!(f->o.steps & (step == 0 ? S2L_NODES : S2L_EDGES))) continue;
        view g;
        char err[512], why[700];
        if (view_build(&g, d) != 0) {
            if (diag) fprintf(diag, "%s: warning: llm %s: out of memory\n", fname, step_name[step]);
            f->failed++;
            rc = 1;
            goto next;
        }
        llm_request *req = build_request(f, step, &g, svg, svglen, err, sizeof err);
        if (!req) {
            if (diag) fprintf(diag, "%s: warning: llm %s: %s\n", fname, step_name[step], err);
            view_free(&g);
            f->failed++;
            rc = 1;
            goto next;
        }
        if (f->o.dry_run) {
            print_dry(f->o.dry_run, d->id, step, req);
            llm_request_free(req);
            view_free(&g);
            goto next;
        }
        plan p;
        memset(&p, 0, sizeof p);
        p.step = step;
        if (ask(f, req, &g, &p, why, sizeof why) != 0) {
            if (diag)
                fprintf(diag, "%s: warning: llm %s: %s; the geometric %s are kept\n", fname,
                        step_name[step], why, step_name[step]);
            f->failed++;
            rc = 1;
        } else {
            if (step == 0) apply_nodes(&g, &p.np);
            else apply_edges(&g, &p.ep);
            f->ok++;
        }
        nplan_free(&p.np);
        eplan_free(&p.ep);
        view_free(&g);
    next:
        if (f->on_step) f->on_step(f->on_step_ctx);
    }
    return rc;
}
