/* llm/client.c — chat completions over libcurl's multi interface, with
 * limits, retries, a durable content-addressed cache and accounting.
 * The contract is llm/llm.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "llm/llm.h"
#include "llm/curl.h"
#include "ir/xalloc.h"

#define RETRY_AFTER_MAX 300.0
#define IMAGE_MAX (20u * 1024u * 1024u)

struct llm_request {
    cJSON *messages;   /* [{role, content: string | [parts]}] */
    char *tag;
};

typedef struct {
    char *model;
    double in, out, cached_in;
} price;

/* One HTTP attempt in flight. A job has one, or more while an attempt that
 * passed --timeout with nothing received is kept open (overdue) beside its
 * retry: whichever answers first is used, the others are cancelled. */
typedef struct xfer {
    struct job *job;
    CURL *easy;
    size_t slot;           /* its index in the client's act[] */
    int attempt;           /* its attempt number, 1 for the first */
    char why[16];          /* why it was made: "" for the first, else the reason */
    double t0;             /* the transfer started */
    double tsend;          /* its current send started (a libcurl re-send restarts it) */
    int overdue;           /* --timeout passed with nothing of the answer received */
    int rx;                /* the answer's status line arrived */
    char *resp;
    size_t resplen, respcap;
    int toobig;
    int sends;             /* requests this transfer sent (libcurl may re-send) */
    int capped;            /* a re-send was stopped by the attempt cap */
    double retry_after;
    char errbuf[CURL_ERROR_SIZE];
} xfer;

typedef struct job {
    struct llm_client *client;
    llm_request *req;
    llm_done_fn done;
    llm_check_fn check;    /* NULL: every answer is valid */
    void *user;
    struct job *next;
    char *body;            /* built on first start */
    size_t bodylen;
    char key[65];
    int prepared;
    int attempts;          /* attempts made (requests sent or being sent) */
    int json_dropped;
    double ready_at;
    double t_first;        /* the first attempt started */
    long est_tokens;
    int queued;            /* in the waiting list (new, or a retry) */
    int nlive;             /* its transfers in flight */
    char why[16];          /* why the queued attempt will be made ("" first) */
    int fatal;             /* an error that is not retried: no new attempt */
    char lasterr[300];
    llm_status last_status;
    long last_http;
    int last_retry;        /* the last error would have been retried */
} job;

struct llm_client {
    llm_config cfg;
    char *base_url, *model, *cache_dir, *key;
    char *url;
    struct curl_slist *headers;
    CURLM *multi;
    FILE *log;
    price *prices;
    size_t nprices;
    job *head, *tail;       /* waiting: new and retrying */
    size_t nwaiting;
    xfer **act;             /* transfers in flight, overdue ones included */
    size_t nactive, actcap;
    int json_dropped;       /* the endpoint rejected response_format */
    double next_slot;       /* RPM */
    double tokens, tokens_t;/* TPM bucket */
    double pause_until;     /* a 429's Retry-After holds every request */
    uint64_t rng;
    int cache_warned;
    llm_stats stats;
    /* llm_complete() */
    char *sync_answer;
    llm_result sync_res;
    char sync_err[300];
};

static int curl_users;

/* the log's names of the llm_status values */
static const char *const status_names[] = {"ok",     "http",   "net",    "timeout",
                                           "proto",  "toobig", "local",  "invalid"};

/* ---------------------------------------------------------------- util */

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double rnd01(llm_client *c)
{
    c->rng ^= c->rng << 13;
    c->rng ^= c->rng >> 7;
    c->rng ^= c->rng << 17;
    return (double)(c->rng >> 11) / 9007199254740992.0;
}

static void wipe(void *p, size_t n)
{
    volatile unsigned char *v = p;
    while (n--) *v++ = 0;
}

/* Replaces the key (and any sk-... word) in s by ***, cuts at a newline. */
static void scrub(const llm_client *c, char *s)
{
    for (char *p = s; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
    if (c && c->key && *c->key) {
        size_t kl = strlen(c->key);
        char *hit;
        while ((hit = strstr(s, c->key)) != NULL) {
            memcpy(hit, "***", 3);
            memmove(hit + 3, hit + kl, strlen(hit + kl) + 1);
        }
    }
    for (char *p = s; (p = strstr(p, "sk-")) != NULL;) {
        if (p > s && !isspace((unsigned char)p[-1]) && p[-1] != '"' && p[-1] != ':') {
            p += 3;
            continue;
        }
        char *e = p;
        while (*e && !isspace((unsigned char)*e) && *e != '"' && *e != ',' && *e != '.') e++;
        memcpy(p, "***", 3);
        memmove(p + 3, e, strlen(e) + 1);
        p += 3;
    }
}

static char *read_file(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            if (cap >= max) {
                snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
                free(buf);
                buf = NULL;
                break;
            }
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0) {
            if (ferror(f)) {
                snprintf(err, errlen, "%s: read error", path);
                free(buf);
                buf = NULL;
            }
            break;
        }
    }
    fclose(f);
    if (!buf) {
        if (!err[0]) snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    if (n > max) {
        snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

int llm_mkdirs(const char *path)
{
    char *p = strdup(path);
    if (!p) return -1;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST) { free(p); return -1; }
        *s = '/';
    }
    int rc = mkdir(p, 0700) != 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

/* -------------------------------------------------------------- config */

void llm_config_init(llm_config *c)
{
    memset(c, 0, sizeof *c);
    c->temperature = 0;
    c->top_p = 1;
    c->json_mode = 1;
    c->concurrency = 4;
    c->max_attempts = 5;
    c->timeout = 120;
    c->grace = -1;
    c->connect_timeout = 10;
    c->backoff = 1;
    c->backoff_max = 60;
    c->max_response = 16u * 1024u * 1024u;
}

static int load_prices(llm_client *c, const char *path, char *err, size_t errlen)
{
    size_t len;
    char *txt = read_file(path, 1u << 20, &len, err, errlen);
    if (!txt) return -1;
    int lineno = 0, rc = 0;
    char *save = NULL;
    for (char *line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        while (*line == ' ' || *line == '\t') line++;
        if (!*line || *line == '#' || *line == '\r') continue;
        char name[256];
        double in, out, cin = -1;
        int n = sscanf(line, "%255s %lf %lf %lf", name, &in, &out, &cin);
        if (n < 3 || in < 0 || out < 0 || !isfinite(in) || !isfinite(out)) {
            snprintf(err, errlen, "%s:%d:1: error: expected \"model input output [cached-input]\" (USD per 1M tokens)",
                     path, lineno);
            rc = -1;
            break;
        }
        price *np = realloc(c->prices, (c->nprices + 1) * sizeof *np);
        if (!np) { rc = -1; snprintf(err, errlen, "out of memory"); break; }
        c->prices = np;
        np[c->nprices].model = strdup(name);
        np[c->nprices].in = in;
        np[c->nprices].out = out;
        np[c->nprices].cached_in = n == 4 && cin >= 0 && isfinite(cin) ? cin : in;
        c->nprices++;
    }
    free(txt);
    return rc;
}

static const price *find_price(const llm_client *c)
{
    const price *best = NULL;
    size_t bestlen = 0;
    for (size_t i = 0; i < c->nprices; i++) {
        const char *m = c->prices[i].model;
        if (!m) continue;
        size_t l = strlen(m);
        if (strcmp(m, c->model) == 0) return &c->prices[i];
        if (l > 0 && m[l - 1] == '*' && strncmp(m, c->model, l - 1) == 0 && l > bestlen) {
            best = &c->prices[i];
            bestlen = l;
        }
    }
    return best;
}

static double cost_of(const llm_client *c, long pin, long pout, long pcached)
{
    const price *p = find_price(c);
    if (!p) return 0;
    if (pcached > pin) pcached = pin;
    return ((double)(pin - pcached) * p->in + (double)pcached * p->cached_in +
            (double)pout * p->out) / 1e6;
}

llm_client *llm_client_new(const llm_config *cfg, char *err, size_t errlen)
{
    err[0] = 0;
    llm_client *c = calloc(1, sizeof *c);
    if (!c) { snprintf(err, errlen, "out of memory"); return NULL; }
    c->cfg = *cfg;
    if (c->cfg.concurrency < 1) c->cfg.concurrency = 1;
    if (c->cfg.max_attempts < 1) c->cfg.max_attempts = 1;
    if (!(c->cfg.timeout > 0)) c->cfg.timeout = 120;
    if (c->cfg.timeout > 1e6) c->cfg.timeout = 1e6;     /* 11 days: milliseconds fit a long */
    if (!(c->cfg.grace >= 0)) c->cfg.grace = c->cfg.timeout;
    if (c->cfg.grace > 1e6) c->cfg.grace = 1e6;
    if (c->cfg.connect_timeout <= 0) c->cfg.connect_timeout = 10;
    if (c->cfg.backoff < 0) c->cfg.backoff = 0;
    if (c->cfg.backoff_max < c->cfg.backoff) c->cfg.backoff_max = c->cfg.backoff;
    if (c->cfg.max_response < 1024) c->cfg.max_response = 1024;
    c->cfg.log_path = c->cfg.price_file = c->cfg.cache_dir = c->cfg.api_key_file = NULL;
    c->cfg.base_url = c->cfg.model = NULL;

    const char *base = cfg->base_url ? cfg->base_url : getenv("OPENAI_BASE_URL");
    if (!base || !*base) base = "https://api.openai.com/v1";
    if (strncmp(base, "http://", 7) != 0 && strncmp(base, "https://", 8) != 0) {
        snprintf(err, errlen, "base URL must start with http:// or https://");
        goto fail;
    }
    c->base_url = strdup(base);
    if (!c->base_url) goto oom;
    size_t bl = strlen(c->base_url);
    while (bl > 0 && c->base_url[bl - 1] == '/') c->base_url[--bl] = 0;
    c->url = malloc(bl + sizeof "/chat/completions");
    if (!c->url) goto oom;
    memcpy(c->url, c->base_url, bl);
    memcpy(c->url + bl, "/chat/completions", sizeof "/chat/completions");

    const char *model = cfg->model ? cfg->model : getenv("OPENAI_MODEL");
    if (!model || !*model) {
        snprintf(err, errlen, "no model: use --model or set OPENAI_MODEL");
        goto fail;
    }
    for (const char *p = model; *p; p++)
        if ((unsigned char)*p < 0x21 || *p == 0x7f) {
            snprintf(err, errlen, "model name has a blank or control character");
            goto fail;
        }
    c->model = strdup(model);
    if (!c->model) goto oom;

    /* The key: from the file, else the environment. */
    if (cfg->api_key_file) {
        size_t len;
        char *k = read_file(cfg->api_key_file, 8192, &len, err, errlen);
        if (!k) goto fail;
        char *s = k, *e = k + len;
        while (s < e && isspace((unsigned char)*s)) s++;
        while (e > s && isspace((unsigned char)e[-1])) e--;
        c->key = malloc((size_t)(e - s) + 1);
        if (c->key) {
            memcpy(c->key, s, (size_t)(e - s));
            c->key[e - s] = 0;
        }
        wipe(k, len);
        free(k);
        if (!c->key) goto oom;
        if (!*c->key) {
            snprintf(err, errlen, "%s: the key file is empty", cfg->api_key_file);
            goto fail;
        }
    } else {
        const char *k = getenv("OPENAI_API_KEY");
        if (k && *k) {
            c->key = strdup(k);
            if (!c->key) goto oom;
        }
    }
    if (c->key) {
        for (const char *p = c->key; *p; p++)
            if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e) {
                snprintf(err, errlen, "the API key has a blank or control character");
                goto fail;
            }
        struct rlimit rl = {0, 0};
        setrlimit(RLIMIT_CORE, &rl);   /* no core dump holds the key */
    }

    if (!cfg->no_cache) {
        const char *cd = cfg->cache_dir;
        char tmp[4096];
        if (!cd) {
            const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
            if (xdg && *xdg) snprintf(tmp, sizeof tmp, "%s/diagramir/llm", xdg);
            else if (home && *home) snprintf(tmp, sizeof tmp, "%s/.cache/diagramir/llm", home);
            else snprintf(tmp, sizeof tmp, ".diagramir-cache");
            cd = tmp;
        }
        c->cache_dir = strdup(cd);
        if (!c->cache_dir) goto oom;
        if (llm_mkdirs(c->cache_dir) != 0) {
            snprintf(err, errlen, "cache directory %s: %s", c->cache_dir, strerror(errno));
            goto fail;
        }
    }
    if (cfg->log_path) {
        c->log = fopen(cfg->log_path, "a");
        if (!c->log) {
            snprintf(err, errlen, "%s: %s", cfg->log_path, strerror(errno));
            goto fail;
        }
    }
    if (cfg->price_file && load_prices(c, cfg->price_file, err, errlen) != 0) goto fail;
    c->stats.price_known = find_price(c) != NULL;

    if (llm_curl_load(err, errlen) != 0) goto fail;
    if (curl_users++ == 0 && curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        snprintf(err, errlen, "curl_global_init failed");
        curl_users--;
        goto fail;
    }
    c->multi = curl_multi_init();
    if (!c->multi) goto oom;
    curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, (long)c->cfg.concurrency + 2);
    c->headers = curl_slist_append(NULL, "Content-Type: application/json");
    if (c->headers) c->headers = curl_slist_append(c->headers, "Expect:");
    if (!c->headers) goto oom;
    if (c->key) {
        size_t n = strlen(c->key) + sizeof "Authorization: Bearer ";
        char *h = malloc(n);
        if (!h) goto oom;
        snprintf(h, n, "Authorization: Bearer %s", c->key);
        struct curl_slist *nh = curl_slist_append(c->headers, h);
        wipe(h, n);
        free(h);
        if (!nh) goto oom;
        c->headers = nh;
    }
    c->rng = cfg->seed ? cfg->seed : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    if (!c->rng) c->rng = 88172645463325252ULL;
    c->tokens = c->cfg.tpm;
    c->tokens_t = mono();
    return c;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    llm_client_free(c);
    return NULL;
}

static void job_free(job *j)
{
    if (!j) return;
    llm_request_free(j->req);
    free(j->body);
    free(j);
}

void llm_client_free(llm_client *c)
{
    if (!c) return;
    /* transfers still in flight (llm_run failed): their jobs go with the
     * last of them unless they wait in the list too */
    while (c->nactive > 0) {
        xfer *x = c->act[--c->nactive];
        job *j = x->job;
        curl_multi_remove_handle(c->multi, x->easy);
        curl_easy_cleanup(x->easy);
        free(x->resp);
        free(x);
        if (--j->nlive == 0 && !j->queued) job_free(j);
    }
    free(c->act);
    for (job *j = c->head, *n; j; j = n) {
        n = j->next;
        job_free(j);
    }
    if (c->multi) {
        curl_multi_cleanup(c->multi);
        if (--curl_users == 0) curl_global_cleanup();
    }
    for (struct curl_slist *s = c->headers; s; s = s->next)
        if (s->data) wipe(s->data, strlen(s->data));
    if (c->headers) curl_slist_free_all(c->headers);  /* else libcurl may not be loaded */
    if (c->key) {
        wipe(c->key, strlen(c->key));
        free(c->key);
    }
    if (c->log) fclose(c->log);
    for (size_t i = 0; i < c->nprices; i++) free(c->prices[i].model);
    free(c->prices);
    free(c->base_url);
    free(c->url);
    free(c->model);
    free(c->cache_dir);
    free(c->sync_answer);
    free(c);
}

const char *llm_client_model(const llm_client *c) { return c->model; }
const llm_stats *llm_client_stats(const llm_client *c) { return &c->stats; }

/* ------------------------------------------------------------- request */

llm_request *llm_request_new(void)
{
    llm_request *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->messages = cJSON_CreateArray();
    if (!r->messages) { free(r); return NULL; }
    return r;
}

void llm_request_free(llm_request *r)
{
    if (!r) return;
    cJSON_Delete(r->messages);
    free(r->tag);
    free(r);
}

llm_request *llm_request_clone(const llm_request *r)
{
    llm_request *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->messages = cJSON_Duplicate(r->messages, 1);
    n->tag = xstrdup(r->tag);
    if (!n->messages) { llm_request_free(n); return NULL; }
    return n;
}

int llm_request_set_tag(llm_request *r, const char *tag)
{
    char *t = strdup(tag ? tag : "");
    if (!t) return -1;
    free(r->tag);
    r->tag = t;
    return 0;
}

const char *llm_request_tag(const llm_request *r) { return r->tag ? r->tag : ""; }

static cJSON *last_message(llm_request *r, const char *role, int create)
{
    cJSON *last = NULL;
    int n = cJSON_GetArraySize(r->messages);
    if (n > 0) last = cJSON_GetArrayItem(r->messages, n - 1);
    if (last) {
        const cJSON *lr = cJSON_GetObjectItemCaseSensitive(last, "role");
        if (cJSON_IsString(lr) && strcmp(lr->valuestring, role) == 0) return last;
    }
    if (!create) return NULL;
    cJSON *m = cJSON_CreateObject();
    if (!m) return NULL;
    if (!cJSON_AddStringToObject(m, "role", role) || !cJSON_AddStringToObject(m, "content", "")) {
        cJSON_Delete(m);
        return NULL;
    }
    cJSON_AddItemToArray(r->messages, m);
    return m;
}

int llm_request_add_text(llm_request *r, const char *role, const char *text)
{
    if (strcmp(role, "system") != 0 && strcmp(role, "user") != 0 &&
        strcmp(role, "assistant") != 0)
        return -1;
    cJSON *m = last_message(r, role, 1);
    if (!m) return -1;
    cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
    if (cJSON_IsString(content)) {
        const char *old = content->valuestring;
        size_t ol = strlen(old), tl = strlen(text);
        char *joined = malloc(ol + tl + 3);
        if (!joined) return -1;
        memcpy(joined, old, ol);
        size_t k = ol;
        if (ol) { joined[k++] = '\n'; joined[k++] = '\n'; }
        memcpy(joined + k, text, tl + 1);
        cJSON *s = cJSON_CreateString(joined);
        free(joined);
        if (!s) return -1;
        cJSON_ReplaceItemInObjectCaseSensitive(m, "content", s);
        return 0;
    }
    cJSON *part = cJSON_CreateObject();
    if (!part || !cJSON_AddStringToObject(part, "type", "text") ||
        !cJSON_AddStringToObject(part, "text", text)) {
        cJSON_Delete(part);
        return -1;
    }
    cJSON_AddItemToArray(content, part);
    return 0;
}

static const char *sniff_mime(const unsigned char *p, size_t n)
{
    if (n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0) return "image/png";
    if (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff) return "image/jpeg";
    if (n >= 6 && (memcmp(p, "GIF87a", 6) == 0 || memcmp(p, "GIF89a", 6) == 0)) return "image/gif";
    if (n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0) return "image/webp";
    return NULL;
}

int llm_request_add_image(llm_request *r, const void *data, size_t n, char *err, size_t errlen)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = data;
    const char *mime = sniff_mime(p, n);
    if (!mime) {
        int svg = 0;
        for (size_t i = 0; i + 4 <= n && i < 1024; i++)
            if (memcmp(p + i, "<svg", 4) == 0) svg = 1;
        snprintf(err, errlen, svg ? "SVG is not sent as is: render it to PNG first (rsvg-convert, dvisvgm)"
                                  : "not a PNG, JPEG, GIF or WebP image");
        return -1;
    }
    if (n > IMAGE_MAX) {
        snprintf(err, errlen, "image larger than %u bytes", IMAGE_MAX);
        return -1;
    }
    size_t ml = strlen(mime);
    size_t len = 5 + ml + 8 + 4 * ((n + 2) / 3) + 1;
    char *url = malloc(len);
    if (!url) { snprintf(err, errlen, "out of memory"); return -1; }
    size_t k = (size_t)sprintf(url, "data:%s;base64,", mime);
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
        url[k++] = b64[v >> 18];
        url[k++] = b64[(v >> 12) & 63];
        url[k++] = b64[(v >> 6) & 63];
        url[k++] = b64[v & 63];
    }
    if (i < n) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0);
        url[k++] = b64[v >> 18];
        url[k++] = b64[(v >> 12) & 63];
        url[k++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        url[k++] = '=';
    }
    url[k] = 0;
    cJSON *m = last_message(r, "user", 1);
    cJSON *content = m ? cJSON_GetObjectItemCaseSensitive(m, "content") : NULL;
    if (cJSON_IsString(content)) {   /* turn the text into parts */
        cJSON *arr = cJSON_CreateArray();
        if (arr && *content->valuestring) {
            cJSON *part = cJSON_CreateObject();
            if (part) {
                cJSON_AddStringToObject(part, "type", "text");
                cJSON_AddStringToObject(part, "text", content->valuestring);
                cJSON_AddItemToArray(arr, part);
            }
        }
        if (arr) cJSON_ReplaceItemInObjectCaseSensitive(m, "content", arr);
        content = arr;
    }
    cJSON *part = cJSON_CreateObject(), *iu = cJSON_CreateObject();
    if (!content || !part || !iu || !cJSON_AddStringToObject(part, "type", "image_url") ||
        !cJSON_AddStringToObject(iu, "url", url)) {
        cJSON_Delete(part);
        cJSON_Delete(iu);
        free(url);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    free(url);
    cJSON_AddItemToObject(part, "image_url", iu);
    cJSON_AddItemToArray(content, part);
    return 0;
}

int llm_request_add_image_file(llm_request *r, const char *path, char *err, size_t errlen)
{
    size_t n;
    char e2[300] = "";
    char *data = read_file(path, IMAGE_MAX, &n, e2, sizeof e2);
    if (!data) {
        snprintf(err, errlen, "%s", e2);
        return -1;
    }
    int rc = llm_request_add_image(r, data, n, e2, sizeof e2);
    if (rc) snprintf(err, errlen, "%s: %s", path, e2);
    free(data);
    return rc;
}

char *llm_request_json(const llm_request *r, int abbreviate)
{
    cJSON *m = cJSON_Duplicate(r->messages, 1);
    if (!m) return NULL;
    if (abbreviate) {
        cJSON *msg;
        cJSON_ArrayForEach(msg, m)
        {
            cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content"), *part;
            if (!cJSON_IsArray(content)) continue;
            cJSON_ArrayForEach(part, content)
            {
                cJSON *iu = cJSON_GetObjectItemCaseSensitive(part, "image_url");
                cJSON *u = iu ? cJSON_GetObjectItemCaseSensitive(iu, "url") : NULL;
                if (!cJSON_IsString(u)) continue;
                const char *comma = strchr(u->valuestring, ',');
                if (!comma) continue;
                size_t b64 = strlen(comma + 1);
                char buf[160];
                snprintf(buf, sizeof buf, "%.*s<%zu bytes>", (int)(comma - u->valuestring + 1 < 100 ? comma - u->valuestring + 1 : 100),
                         u->valuestring, b64 / 4 * 3);
                cJSON_ReplaceItemInObjectCaseSensitive(iu, "url", cJSON_CreateString(buf));
            }
        }
    }
    char *s = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    return s;
}

/* ---------------------------------------------------------------- cache */

static void cache_path(const llm_client *c, const char *key, char *out, size_t n)
{
    snprintf(out, n, "%s/%.2s/%s.json", c->cache_dir, key, key);
}

/* Parses a chat completion body. 0 ok (content, finish and usage set),
 * -1 with a reason in err. */
static int parse_completion(const char *body, size_t n, cJSON **root, const char **content,
                            const char **finish, long usage[3], char *err, size_t errlen)
{
    *root = cJSON_ParseWithLength(body, n);
    if (!*root) {
        snprintf(err, errlen, "response is not JSON");
        return -1;
    }
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(*root, "choices");
    const cJSON *ch0 = cJSON_IsArray(choices) ? cJSON_GetArrayItem(choices, 0) : NULL;
    const cJSON *msg = ch0 ? cJSON_GetObjectItemCaseSensitive(ch0, "message") : NULL;
    const cJSON *ct = msg ? cJSON_GetObjectItemCaseSensitive(msg, "content") : NULL;
    if (!cJSON_IsString(ct)) {
        snprintf(err, errlen, "response has no choices[0].message.content string");
        cJSON_Delete(*root);
        *root = NULL;
        return -1;
    }
    *content = ct->valuestring;
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(ch0, "finish_reason");
    *finish = cJSON_IsString(fr) ? fr->valuestring : "";
    usage[0] = usage[1] = usage[2] = 0;
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(*root, "usage");
    if (cJSON_IsObject(u)) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(u, "prompt_tokens");
        if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e12) usage[0] = (long)v->valuedouble;
        v = cJSON_GetObjectItemCaseSensitive(u, "completion_tokens");
        if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e12) usage[1] = (long)v->valuedouble;
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(u, "prompt_tokens_details");
        v = d ? cJSON_GetObjectItemCaseSensitive(d, "cached_tokens") : NULL;
        if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e12) usage[2] = (long)v->valuedouble;
    }
    return 0;
}

/* Durably stores a response: temp file, fsync, rename, fsync the directory. */
static int cache_store(llm_client *c, const char *key, const char *body, size_t n)
{
    char dir[4200], path[4300], tmp[4300];
    snprintf(dir, sizeof dir, "%s/%.2s", c->cache_dir, key);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) return -1;
    cache_path(c, key, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s/.tmp-%.16s-XXXXXX", dir, key);
    int fd = mkstemp(tmp);
    if (fd < 0) return -1;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, body + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    int ok = off == n && fsync(fd) == 0;
    if (close(fd) != 0) ok = 0;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    int dfd = open(dir, O_RDONLY);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return 0;
}

/* ------------------------------------------------------------ accounting */

static cJSON *log_start(const job *j, const char *type);
static void log_put(llm_client *c, cJSON *o);

/* One line per call, when it ends: status "invalid" with the check's
 * problem as its error for an answer the check rejected (not cached);
 * cost_usd left out when the model's price is unknown. */
static void log_call(llm_client *c, const job *j, const llm_result *r)
{
    if (!c->log) return;
    cJSON *o = log_start(j, "call");
    if (!o) return;
    cJSON_AddStringToObject(o, "model", c->model);
    cJSON_AddStringToObject(o, "status", status_names[r->status]);
    cJSON_AddBoolToObject(o, "cached", r->cached);
    cJSON_AddNumberToObject(o, "http", (double)r->http);
    cJSON_AddNumberToObject(o, "attempts", r->attempts);
    cJSON_AddNumberToObject(o, "latency_ms", floor(r->latency * 1000 + 0.5));
    cJSON_AddNumberToObject(o, "prompt_tokens", (double)r->prompt_tokens);
    cJSON_AddNumberToObject(o, "completion_tokens", (double)r->completion_tokens);
    cJSON_AddNumberToObject(o, "cached_tokens", (double)r->cached_tokens);
    if (!isnan(r->cost)) cJSON_AddNumberToObject(o, "cost_usd", r->cost);
    if (r->finish && *r->finish) cJSON_AddStringToObject(o, "finish", r->finish);
    if (r->status != LLM_OK) cJSON_AddStringToObject(o, "error", r->error ? r->error : "");
    log_put(c, o);
}

/* A cache entry the check rejected on read: removed, asked again. */
static void log_cache_rejected(llm_client *c, const job *j, const char *problem)
{
    if (!c->log) return;
    cJSON *o = log_start(j, "cache");
    if (!o) return;
    cJSON_AddStringToObject(o, "status", "rejected");
    char buf[512];
    snprintf(buf, sizeof buf, "%s", problem);
    scrub(c, buf);
    cJSON_AddStringToObject(o, "error", buf);
    log_put(c, o);
}

/* The result of an answer (content, finish and usage parsed from its
 * completion), from the server or (cached) from the cache. */
static void answer_result(llm_result *r, const char *content, const char *fin,
                          const long usage[3], int cached)
{
    memset(r, 0, sizeof *r);
    r->status = LLM_OK;
    r->content = content;
    r->finish = fin;
    r->error = "";
    r->key = "";
    r->http = 200;
    r->cached = cached;
    r->prompt_tokens = usage[0];
    r->completion_tokens = usage[1];
    r->cached_tokens = usage[2];
}

/* Hands a finished job to its owner and frees it. */
static void finish(llm_client *c, job *j, llm_result *r)
{
    c->stats.calls++;
    if (r->cached) c->stats.cache_hits++;
    if (r->status == LLM_EINVALID) c->stats.invalid++;
    else if (r->status != LLM_OK) c->stats.failures++;
    if (r->attempts > 1) c->stats.retried++;
    r->key = j->key;
    if (!r->cached) {
        c->stats.prompt_tokens += r->prompt_tokens;
        c->stats.completion_tokens += r->completion_tokens;
        c->stats.cached_tokens += r->cached_tokens;
        c->stats.latency_sum += r->latency;
    }
    if (!find_price(c)) {
        r->cost = r->cached ? 0 : NAN;
    } else if (r->cached) {
        c->stats.saved_cost += cost_of(c, r->prompt_tokens, r->completion_tokens, r->cached_tokens);
    } else {
        r->cost = cost_of(c, r->prompt_tokens, r->completion_tokens, r->cached_tokens);
        c->stats.cost += r->cost;
    }
    log_call(c, j, r);
    if (j->done) j->done(c, j->req, r, j->user);
    job_free(j);
}

static int try_cache(llm_client *c, job *j)
{
    if (!c->cache_dir || c->cfg.refresh) return 0;
    char path[4300], e[200] = "";
    cache_path(c, j->key, path, sizeof path);
    if (access(path, R_OK) != 0) return 0;
    size_t n;
    char *body = read_file(path, c->cfg.max_response, &n, e, sizeof e);
    if (!body) return 0;
    cJSON *root;
    const char *content, *fin;
    long usage[3];
    if (parse_completion(body, n, &root, &content, &fin, usage, e, sizeof e) != 0) {
        free(body);
        return 0;   /* a damaged entry: ask again and overwrite it */
    }
    char problem[512] = "";
    if (j->check && j->check(content, j->user, problem, sizeof problem) != 0) {
        /* an entry the check rejects (an older version kept every answer):
         * never served; removed, and asked again */
        log_cache_rejected(c, j, problem);
        unlink(path);
        c->stats.cache_rejected++;
        cJSON_Delete(root);
        free(body);
        return 0;
    }
    llm_result r;
    answer_result(&r, content, fin, usage, 1);
    finish(c, j, &r);
    cJSON_Delete(root);
    free(body);
    return 1;
}

/* ------------------------------------------------------------ transfers */

static char *build_body(const llm_client *c, const llm_request *r, int json)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "model", c->model);
    cJSON_AddItemReferenceToObject(o, "messages", r->messages);
    if (!isnan(c->cfg.temperature)) cJSON_AddNumberToObject(o, "temperature", c->cfg.temperature);
    if (!isnan(c->cfg.top_p)) cJSON_AddNumberToObject(o, "top_p", c->cfg.top_p);
    if (c->cfg.reasoning_effort) cJSON_AddStringToObject(o, "reasoning_effort", c->cfg.reasoning_effort);
    if (c->cfg.max_tokens > 0) cJSON_AddNumberToObject(o, "max_tokens", c->cfg.max_tokens);
    if (json) {
        cJSON *rf = cJSON_AddObjectToObject(o, "response_format");
        if (rf) cJSON_AddStringToObject(rf, "type", "json_object");
    }
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return s;
}

static int prepare(llm_client *c, job *j)
{
    int json = c->cfg.json_mode;
    char *keybody = build_body(c, j->req, json);
    if (!keybody) return -1;
    llm_sha256_ctx s;
    unsigned char d[32];
    static const char dig[] = "0123456789abcdef";
    llm_sha256_init(&s);
    llm_sha256_update(&s, "diagramir-llm-cache 1\n", 22);
    llm_sha256_update(&s, c->base_url, strlen(c->base_url));
    llm_sha256_update(&s, "\n", 1);
    llm_sha256_update(&s, keybody, strlen(keybody));
    llm_sha256_final(&s, d);
    for (int i = 0; i < 32; i++) {
        j->key[2 * i] = dig[d[i] >> 4];
        j->key[2 * i + 1] = dig[d[i] & 15];
    }
    j->key[64] = 0;
    /* tokens: ~4 bytes of text each, images by a flat rate */
    long est = 0, imgs = 0;
    for (const char *p = keybody; (p = strstr(p, "\"image_url\"")) != NULL; p++) imgs++;
    est = (long)(strlen(keybody) / 4);
    if (imgs) est = est / 8 + imgs * 1000;   /* base64 is not text */
    est += c->cfg.max_tokens > 0 ? c->cfg.max_tokens : 500;
    j->est_tokens = est;
    j->body = keybody;
    j->bodylen = strlen(keybody);
    j->prepared = 1;
    return 0;
}

static size_t on_body(char *p, size_t sz, size_t nm, void *ud)
{
    xfer *x = ud;
    size_t n = sz * nm;
    if (x->resplen + n > x->job->client->cfg.max_response) {
        x->toobig = 1;
        return 0;
    }
    if (x->resplen + n + 1 > x->respcap) {
        size_t cap = x->respcap ? x->respcap : 4096;
        while (cap < x->resplen + n + 1) cap *= 2;
        char *nb = realloc(x->resp, cap);
        if (!nb) return 0;
        x->resp = nb;
        x->respcap = cap;
    }
    memcpy(x->resp + x->resplen, p, n);
    x->resplen += n;
    x->resp[x->resplen] = 0;
    return n;
}

static size_t on_header(char *p, size_t sz, size_t nm, void *ud)
{
    xfer *x = ud;
    size_t n = sz * nm;
    x->rx = 1;
    if (n > 5 && memcmp(p, "HTTP/", 5) == 0) x->retry_after = 0;
    static const char h1[] = "retry-after:", h2[] = "retry-after-ms:";
    if (n > sizeof h2 - 1 && strncasecmp(p, h2, sizeof h2 - 1) == 0) {
        char buf[64];
        size_t k = n - (sizeof h2 - 1) < 63 ? n - (sizeof h2 - 1) : 63;
        memcpy(buf, p + sizeof h2 - 1, k);
        buf[k] = 0;
        char *end;
        double v = strtod(buf, &end);
        if (end != buf && isfinite(v) && v > 0) x->retry_after = v / 1000;
    } else if (n > sizeof h1 - 1 && strncasecmp(p, h1, sizeof h1 - 1) == 0) {
        char buf[128];
        size_t k = n - (sizeof h1 - 1) < 127 ? n - (sizeof h1 - 1) : 127;
        memcpy(buf, p + sizeof h1 - 1, k);
        buf[k] = 0;
        char *s = buf;
        while (*s == ' ' || *s == '\t') s++;
        char *end;
        double v = strtod(s, &end);
        if (end != s && isfinite(v) && v >= 0) {
            x->retry_after = v;
        } else {
            time_t t = curl_getdate(s, NULL);
            if (t != (time_t)-1) {
                double d = difftime(t, time(NULL));
                x->retry_after = d > 0 ? d : 0;
            }
        }
    }
    return n;
}

/* ------------------------------------------------------------ the log */

/* A log record's first fields: its type, the time, the call's tag and
 * key. NULL out of memory. */
static cJSON *log_start(const job *j, const char *type)
{
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    cJSON_AddStringToObject(o, "type", type);
    char ts[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(o, "time", ts);
    cJSON_AddStringToObject(o, "tag", llm_request_tag(j->req));
    cJSON_AddStringToObject(o, "key", j->key);
    return o;
}

static void log_put(llm_client *c, cJSON *o)
{
    char *s = cJSON_PrintUnformatted(o);
    if (s) {
        fprintf(c->log, "%s\n", s);
        fflush(c->log);
        free(s);
    }
    cJSON_Delete(o);
}

/* One line per attempt, when it ends: which call (tag, key), its number,
 * whether it was a retry and why, how it ended (status: ok, http, net,
 * timeout, proto, toobig, or cancelled when another attempt's answer was
 * used), the HTTP status, its latency and the bytes of the answer, whether
 * it was overdue (passed --timeout with nothing received) and whether its
 * answer is the one used. */
static void log_attempt(llm_client *c, const xfer *x, const char *status, long http, int used,
                        const char *error)
{
    if (!c->log) return;
    cJSON *o = log_start(x->job, "attempt");
    if (!o) return;
    cJSON_AddNumberToObject(o, "attempt", x->attempt);
    cJSON_AddBoolToObject(o, "retry", x->why[0] != 0);
    if (x->why[0]) cJSON_AddStringToObject(o, "why", x->why);
    cJSON_AddStringToObject(o, "status", status);
    cJSON_AddNumberToObject(o, "http", (double)http);
    cJSON_AddNumberToObject(o, "latency_ms", floor((mono() - x->tsend) * 1000 + 0.5));
    cJSON_AddNumberToObject(o, "bytes", (double)x->resplen);
    cJSON_AddBoolToObject(o, "overdue", x->overdue);
    cJSON_AddBoolToObject(o, "used", used);
    if (error && *error) {
        char buf[300];
        snprintf(buf, sizeof buf, "%s", error);
        scrub(c, buf);
        cJSON_AddStringToObject(o, "error", buf);
    }
    log_put(c, o);
}

#if LIBCURL_VERSION_NUM >= 0x075000
/* Called by libcurl right before it sends the request on a connection. On a
 * reused keep-alive connection that dies without an answer, libcurl sends
 * the request again on a fresh connection by itself, inside one transfer;
 * the server may well have seen the first one (it closed the connection
 * after reading it). Each send is an attempt: counted, logged, and stopped
 * at the cap, so --retries bounds what the server receives. */
static int on_prereq(void *ud, char *ip, char *lip, int port, int lport)
{
    (void)ip;
    (void)lip;
    (void)port;
    (void)lport;
    xfer *x = ud;
    job *j = x->job;
    llm_client *c = j->client;
    if (x->sends++ == 0) return CURL_PREREQFUNC_OK;   /* start() counted this one */
    if (j->attempts >= c->cfg.max_attempts) {
        x->capped = 1;
        return CURL_PREREQFUNC_ABORT;
    }
    log_attempt(c, x, "net", 0, 0, "connection closed without a response (sent again by libcurl)");
    x->attempt = ++j->attempts;
    snprintf(x->why, sizeof x->why, "network");
    x->tsend = mono();
    x->resplen = 0;
    c->stats.http_requests++;
    c->stats.retries++;
    return CURL_PREREQFUNC_OK;
}
#endif

/* ------------------------------------------------------------ transfers */

static int start(llm_client *c, job *j)
{
    if (c->nactive == c->actcap) {
        size_t cap = c->actcap ? 2 * c->actcap : 16;
        xfer **na = realloc(c->act, cap * sizeof *na);
        if (!na) return -1;
        c->act = na;
        c->actcap = cap;
    }
    xfer *x = calloc(1, sizeof *x);
    CURL *e = x ? curl_easy_init() : NULL;
    if (!e) {
        free(x);
        return -1;
    }
    x->job = j;
    x->easy = e;
    j->client = c;
    double hard = c->cfg.timeout + c->cfg.grace;   /* both at most 1e6 s */
    curl_easy_setopt(e, CURLOPT_URL, c->url);
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    /* copied: a retry may change the job's body (JSON mode dropped) while an
     * overdue attempt still sends the old one */
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)j->bodylen);
    curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, j->body);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, c->headers);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(hard * 1000));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)(c->cfg.connect_timeout * 1000));
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)c->cfg.max_response);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "diagramir-llm/0.1");
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(e, CURLOPT_PRIVATE, x);
#if LIBCURL_VERSION_NUM >= 0x075000
    curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, on_prereq);
    curl_easy_setopt(e, CURLOPT_PREREQDATA, x);
#endif
    if (curl_multi_add_handle(c->multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        free(x);
        return -1;
    }
    x->attempt = ++j->attempts;
    snprintf(x->why, sizeof x->why, "%s", j->why);
    x->t0 = x->tsend = mono();
    if (x->attempt == 1) j->t_first = x->t0;
    c->stats.http_requests++;
    if (x->why[0]) c->stats.retries++;
    x->slot = c->nactive;
    c->act[c->nactive++] = x;
    j->nlive++;
    return 0;
}

/* Ends a transfer: out of the multi handle and act[], freed. */
static void xfer_end(llm_client *c, xfer *x)
{
    curl_multi_remove_handle(c->multi, x->easy);
    curl_easy_cleanup(x->easy);
    c->act[x->slot] = c->act[--c->nactive];
    c->act[x->slot]->slot = x->slot;
    x->job->nlive--;
    free(x->resp);
    free(x);
}

static void enqueue(llm_client *c, job *j)
{
    j->next = NULL;
    if (c->tail) c->tail->next = j;
    else c->head = j;
    c->tail = j;
    c->nwaiting++;
    j->queued = 1;
}

static void unlink_job(llm_client *c, job *prev, job *j)
{
    if (prev) prev->next = j->next;
    else c->head = j->next;
    if (c->tail == j) c->tail = prev;
    j->next = NULL;
    c->nwaiting--;
    j->queued = 0;
}

/* Takes j out of the waiting list, wherever it is. */
static void dequeue(llm_client *c, job *j)
{
    job *prev = NULL;
    for (job *k = c->head; k; prev = k, k = k->next)
        if (k == j) {
            unlink_job(c, prev, j);
            return;
        }
}

int llm_submit(llm_client *c, llm_request *r, llm_done_fn done, void *user)
{
    return llm_submit_checked(c, r, NULL, done, user);
}

int llm_submit_checked(llm_client *c, llm_request *r, llm_check_fn check, llm_done_fn done,
                       void *user)
{
    job *j = calloc(1, sizeof *j);
    if (!j) {
        llm_request_free(r);
        return -1;
    }
    j->req = r;
    j->check = check;
    j->done = done;
    j->user = user;
    j->ready_at = 0;
    j->client = c;
    enqueue(c, j);
    return 0;
}

static void fail_job(llm_client *c, job *j, llm_status st, long http, const char *msg)
{
    llm_result r = {0};
    r.status = st;
    r.http = http;
    r.attempts = j->attempts;
    r.latency = j->attempts ? mono() - j->t_first : 0;
    r.content = "";
    r.finish = "";
    r.key = "";
    char buf[300];                     /* msg cut short to fit */
    size_t n = strnlen(msg, sizeof buf - 1);
    memcpy(buf, msg, n);
    buf[n] = '\0';
    scrub(c, buf);
    r.error = buf;
    finish(c, j, &r);
}

/* The error an HTTP error body carries, cut short and scrubbed. */
static void http_error(llm_client *c, const xfer *x, long http, char *out, size_t outlen)
{
    char msg[200] = "";
    if (x->resp && x->resplen) {
        cJSON *root = cJSON_ParseWithLength(x->resp, x->resplen);
        const cJSON *e = root ? cJSON_GetObjectItemCaseSensitive(root, "error") : NULL;
        const cJSON *m = cJSON_IsObject(e) ? cJSON_GetObjectItemCaseSensitive(e, "message") : e;
        if (cJSON_IsString(m)) snprintf(msg, sizeof msg, "%s", m->valuestring);
        cJSON_Delete(root);
    }
    snprintf(out, outlen, "HTTP %ld%s%s", http, msg[0] ? ": " : "", msg);
    scrub(c, out);
}

/* Does j have an attempt in flight that is not overdue (its current one)? */
static int has_current(const llm_client *c, const job *j)
{
    for (size_t i = 0; i < c->nactive; i++)
        if (c->act[i]->job == j && !c->act[i]->overdue) return 1;
    return 0;
}

/* Cancels j's transfers other than keep (an answer was used, or the job
 * failed), each logged as cancelled. */
static void cancel_others(llm_client *c, job *j, const xfer *keep)
{
    for (size_t i = c->nactive; i-- > 0;) {
        xfer *x = c->act[i];
        if (x->job != j || x == keep) continue;
        log_attempt(c, x, "cancelled", 0, 0, "");
        c->stats.cancelled++;
        if (c->cfg.tpm > 0) c->tokens += (double)j->est_tokens / 2;
        xfer_end(c, x);
    }
}

/* Rebuilds j's body without response_format (the endpoint has no JSON
 * mode). 0, or -1 out of memory (the body unchanged). */
static int drop_json_mode(llm_client *c, job *j)
{
    char *nb = build_body(c, j->req, 0);
    if (!nb) return -1;
    free(j->body);
    j->body = nb;
    j->bodylen = strlen(nb);
    j->json_dropped = 1;
    return 0;
}

/* Schedules j's next attempt after the backoff (or Retry-After). */
static void schedule_retry(llm_client *c, job *j, double now, const char *why, double retry_after)
{
    double d = c->cfg.backoff * pow(2, j->attempts - 1);
    if (d > c->cfg.backoff_max) d = c->cfg.backoff_max;
    d *= 0.5 + 0.5 * rnd01(c);
    if (retry_after > d) d = retry_after < RETRY_AFTER_MAX ? retry_after : RETRY_AFTER_MAX;
    if (j->json_dropped && j->attempts == 1) d = 0;
    j->ready_at = now + d;
    snprintf(j->why, sizeof j->why, "%s", why);
    enqueue(c, j);
}

/* An attempt passed --timeout with nothing received: it stays open (up to
 * --grace more), and its retry is scheduled unless one is already waiting
 * or running, or the cap is reached. */
static void overdue(llm_client *c, xfer *x, double now)
{
    job *j = x->job;
    x->overdue = 1;
    if (j->queued || j->fatal || j->attempts >= c->cfg.max_attempts || has_current(c, j)) return;
    schedule_retry(c, j, now, "timeout", 0);
}

/* A finished transfer: its answer used, a retry, or the job's failure. */
static void done_transfer(llm_client *c, xfer *x, CURLcode code)
{
    job *j = x->job;
    long http = 0;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &http);
    double now = mono();
    int retry = 0;
    llm_status st = LLM_OK;
    char err[300] = "", why[16] = "";
    if (code == CURLE_OK && http == 200) {
        cJSON *root;
        const char *content, *fin;
        long usage[3];
        char e[200];
        if (parse_completion(x->resp ? x->resp : "", x->resplen, &root, &content, &fin, usage,
                             e, sizeof e) == 0) {
            /* TPM: charge what was really used */
            if (c->cfg.tpm > 0) c->tokens -= (double)(usage[0] + usage[1] - j->est_tokens);
            /* only an answer that passed the check is cached */
            char problem[512] = "";
            int valid = !j->check || j->check(content, j->user, problem, sizeof problem) == 0;
            if (valid && c->cache_dir && cache_store(c, j->key, x->resp, x->resplen) != 0 &&
                !c->cache_warned) {
                fprintf(stderr, "llm: warning: cannot write the cache in %s: %s\n",
                        c->cache_dir, strerror(errno));
                c->cache_warned = 1;
            }
            log_attempt(c, x, "ok", 200, 1, "");
            if (x->overdue) c->stats.late++;
            cancel_others(c, j, x);
            if (j->queued) dequeue(c, j);   /* a retry not sent yet: never sent */
            llm_result r;
            answer_result(&r, content, fin, usage, 0);
            if (!valid) {
                scrub(c, problem);
                r.status = LLM_EINVALID;
                r.error = problem;
            }
            r.attempts = j->attempts;
            r.latency = now - j->t_first;
            xfer_end(c, x);            /* content points into root */
            finish(c, j, &r);
            cJSON_Delete(root);
            return;
        }
        st = LLM_EPROTO;
        retry = 1;
        snprintf(why, sizeof why, "bad-answer");
        snprintf(err, sizeof err, "HTTP 200 but %s", e);
    } else if (code == CURLE_OK) {
        st = LLM_EHTTP;
        http_error(c, x, http, err, sizeof err);
        snprintf(why, sizeof why, "%ld", http);
        if (http == 429 || http == 408 || http >= 500) {
            retry = 1;
        } else if (http == 400 && c->cfg.json_mode && !j->json_dropped && x->resp &&
                   strstr(x->resp, "response_format")) {
            /* The endpoint has no JSON mode: ask again without it, once. */
            if (drop_json_mode(c, j) == 0) {
                c->json_dropped = 1;
                retry = 1;
                snprintf(why, sizeof why, "no-json-mode");
            }
        }
        if (http == 429 && x->retry_after > 0) {
            double until = now + (x->retry_after < RETRY_AFTER_MAX ? x->retry_after : RETRY_AFTER_MAX);
            if (until > c->pause_until) c->pause_until = until;
        }
    } else if (code == CURLE_WRITE_ERROR && x->toobig) {
        st = LLM_ETOOBIG;
        snprintf(err, sizeof err, "response larger than %zu bytes", c->cfg.max_response);
    } else if (code == CURLE_FILESIZE_EXCEEDED) {
        st = LLM_ETOOBIG;
        snprintf(err, sizeof err, "response larger than %zu bytes", c->cfg.max_response);
    } else if (code == CURLE_ABORTED_BY_CALLBACK && x->capped) {
        /* the connection died without an answer and the cap forbids a re-send */
        st = LLM_ENET;
        retry = 1;
        snprintf(why, sizeof why, "network");
        snprintf(err, sizeof err, "connection closed without a response");
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
        st = LLM_ETIMEOUT;
        retry = 1;
        snprintf(why, sizeof why, "timeout");
        if (x->overdue || c->cfg.grace > 0)
            snprintf(err, sizeof err, "no answer after %gs (--timeout %g, --grace %g)",
                     c->cfg.timeout + c->cfg.grace, c->cfg.timeout, c->cfg.grace);
        else
            snprintf(err, sizeof err, "timed out after %gs", c->cfg.timeout);
    } else {
        st = LLM_ENET;
        retry = !(code == CURLE_PEER_FAILED_VERIFICATION || code == CURLE_SSL_CACERT_BADFILE ||
                  code == CURLE_URL_MALFORMAT || code == CURLE_UNSUPPORTED_PROTOCOL ||
                  code == CURLE_SSL_CERTPROBLEM || code == CURLE_OUT_OF_MEMORY);
        snprintf(why, sizeof why, "network");
        snprintf(err, sizeof err, "%s%s%s", curl_easy_strerror(code), x->errbuf[0] ? ": " : "",
                 x->errbuf);
        scrub(c, err);
    }
    log_attempt(c, x, status_names[st], http, 0, err);
    double retry_after = x->retry_after;
    xfer_end(c, x);
    if (c->cfg.tpm > 0) c->tokens += (double)j->est_tokens / 2;  /* partly refund */
    /* the job's error: a final one (not retried) stays */
    if (!j->fatal) {
        snprintf(j->lasterr, sizeof j->lasterr, "%s", err);
        j->last_status = st;
        j->last_http = http;
        j->last_retry = retry;
    }
    if (!retry) {
        j->fatal = 1;
        if (j->queued) dequeue(c, j);
    } else if (!j->fatal && !j->queued && !has_current(c, j) &&
               j->attempts < c->cfg.max_attempts) {
        /* (an overdue attempt that failed had its retry scheduled when it
         * became overdue: it is queued or running) */
        schedule_retry(c, j, now, why, retry_after);
        return;
    }
    if (j->nlive > 0 || j->queued) return;   /* an attempt may still answer */
    char msg[400];
    if (j->last_retry)
        snprintf(msg, sizeof msg, "%s (gave up after %d attempts)", j->lasterr, j->attempts);
    else
        snprintf(msg, sizeof msg, "%s", j->lasterr);
    fail_job(c, j, j->last_status, j->last_http, msg);
}

/* May j start now as far as the limiters go? Sets *wait when not. */
static int limiter_ok(llm_client *c, const job *j, double now, double *wait)
{
    if (now < c->pause_until) {
        *wait = c->pause_until - now;
        return 0;
    }
    if (c->cfg.rpm > 0 && now < c->next_slot) {
        *wait = c->next_slot - now;
        return 0;
    }
    if (c->cfg.tpm > 0) {
        c->tokens += (now - c->tokens_t) * c->cfg.tpm / 60;
        c->tokens_t = now;
        if (c->tokens > c->cfg.tpm) c->tokens = c->cfg.tpm;
        double need = (double)j->est_tokens;
        if (need > c->cfg.tpm) need = c->cfg.tpm;
        if (c->tokens < need) {
            *wait = (need - c->tokens) * 60 / c->cfg.tpm;
            return 0;
        }
    }
    return 1;
}

static void charge(llm_client *c, const job *j, double now)
{
    if (c->cfg.rpm > 0) {
        double slot = c->next_slot > now ? c->next_slot : now;
        c->next_slot = slot + 60.0 / c->cfg.rpm;
    }
    if (c->cfg.tpm > 0) c->tokens -= (double)j->est_tokens;
}

/* Is j a hedge: a retry waiting while its overdue attempt is still open? */
static int is_hedge(const job *j) { return j->nlive > 0; }

/* Starts the waiting jobs that may start, hedges (pass 1) or the others
 * (pass 0); lowers *wait to the next time one may. 1 when a slot or a
 * limiter stopped it. */
static int start_waiting(llm_client *c, int pass, double now, double *wait)
{
    job *prev = NULL;
    for (job *j = c->head; j;) {
        job *next = j->next;
        if (is_hedge(j) != pass) {
            prev = j;
            j = next;
            continue;
        }
        if (j->ready_at > now) {
            if (j->ready_at - now < *wait) *wait = j->ready_at - now;
            prev = j;
            j = next;
            continue;
        }
        if (!j->prepared) {
            if (prepare(c, j) != 0) {
                unlink_job(c, prev, j);
                fail_job(c, j, LLM_ELOCAL, 0, "out of memory building the request");
                j = prev ? prev->next : c->head;
                continue;
            }
            if (!c->cfg.no_cache) {
                unlink_job(c, prev, j);
                if (try_cache(c, j)) {
                    j = prev ? prev->next : c->head;
                    continue;
                }
                /* put it back where it was */
                if (prev) { j->next = prev->next; prev->next = j; }
                else { j->next = c->head; c->head = j; }
                if (!j->next) c->tail = j;
                c->nwaiting++;
                j->queued = 1;
                next = j->next;
            }
            if (c->json_dropped && c->cfg.json_mode && !j->json_dropped) drop_json_mode(c, j);
        }
        if (c->nactive >= (size_t)c->cfg.concurrency) {
            return 1;
        }
        double w;
        if (!limiter_ok(c, j, now, &w)) {
            if (w < *wait) *wait = w;
            return 1;
        }
        unlink_job(c, prev, j);
        if (start(c, j) != 0) {
            if (j->nlive == 0) fail_job(c, j, LLM_ELOCAL, 0, "cannot start a transfer");
            /* else its overdue attempt may still answer */
        } else {
            charge(c, j, now);
        }
        j = prev ? prev->next : c->head;
    }
    return 0;
}

int llm_run(llm_client *c, llm_feed_fn feed, void *user)
{
    for (;;) {
        /* hedges do not count: new work is fed (and started) before them */
        size_t nhedge = 0;
        for (const job *j = c->head; j; j = j->next) nhedge += is_hedge(j);
        while (feed && c->nwaiting - nhedge < (size_t)c->cfg.concurrency) {
            size_t before = c->nwaiting;
            if (!feed(c, user)) {
                feed = NULL;
                break;
            }
            if (c->nwaiting == before) break;
        }
        double now = mono();
        double wait = 1.0;
        /* attempts that passed --timeout with nothing received: overdue */
        if (c->cfg.grace > 0)
            for (size_t i = 0; i < c->nactive; i++) {
                xfer *x = c->act[i];
                if (x->overdue || x->rx) continue;
                double due = x->t0 + c->cfg.timeout;
                if (now >= due) overdue(c, x, now);
                else if (due - now < wait) wait = due - now;
            }
        /* new requests and plain retries first, then hedges with the slots
         * left: under load the slots go to work not yet asked, while the
         * overdue attempts may still answer */
        if (!start_waiting(c, 0, now, &wait)) start_waiting(c, 1, now, &wait);
        if (!c->head && c->nactive == 0) {
            if (!feed) break;
            continue;
        }
        int running = 0;
        if (c->nactive > 0 && curl_multi_perform(c->multi, &running) != CURLM_OK) return -1;
        CURLMsg *m;
        int left;
        int progressed = 0;
        while ((m = curl_multi_info_read(c->multi, &left)) != NULL) {
            if (m->msg != CURLMSG_DONE) continue;
            xfer *x = NULL;
            CURLcode code = m->data.result;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
            if (x) {
                done_transfer(c, x, code);
                progressed = 1;
            }
        }
        if (progressed) continue;
        if (wait < 0) wait = 0;
        int ms = (int)(wait * 1000) + 1;
        if (ms > 1000) ms = 1000;
        if (c->nactive > 0) {
            if (curl_multi_poll(c->multi, NULL, 0, ms, NULL) != CURLM_OK) return -1;
        } else {
            struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    return 0;
}

static void sync_done(llm_client *c, llm_request *req, const llm_result *res, void *user)
{
    (void)req;
    (void)user;
    free(c->sync_answer);
    c->sync_answer = res->status == LLM_OK || res->status == LLM_EINVALID ? strdup(res->content)
                                                                          : NULL;
    c->sync_res = *res;
    snprintf(c->sync_err, sizeof c->sync_err, "%s", res->error ? res->error : "");
    c->sync_res.error = c->sync_err;
    c->sync_res.content = c->sync_answer ? c->sync_answer : "";
    c->sync_res.finish = "";
}

char *llm_complete(llm_client *c, llm_request *r, llm_result *res)
{
    return llm_complete_checked(c, r, NULL, NULL, res);
}

char *llm_complete_checked(llm_client *c, llm_request *r, llm_check_fn check, void *user,
                           llm_result *res)
{
    free(c->sync_answer);
    c->sync_answer = NULL;
    memset(&c->sync_res, 0, sizeof c->sync_res);
    c->sync_res.status = LLM_ELOCAL;
    snprintf(c->sync_err, sizeof c->sync_err, "not run");
    c->sync_res.error = c->sync_err;
    c->sync_res.content = c->sync_res.finish = c->sync_res.key = "";
    if (llm_submit_checked(c, r, check, sync_done, user) != 0 || llm_run(c, NULL, NULL) != 0) {
        snprintf(c->sync_err, sizeof c->sync_err, "out of memory or curl failure");
    }
    if (res) *res = c->sync_res;
    char *a = c->sync_answer;
    c->sync_answer = NULL;
    if (res) res->content = a ? a : "";
    if (res) res->key = "";
    return a;
}

int llm_cache_forget(llm_client *c, const char *key)
{
    if (!c->cache_dir || !key || strlen(key) != 64 || strspn(key, "0123456789abcdef") != 64)
        return -1;
    char path[4300];
    cache_path(c, key, path, sizeof path);
    return unlink(path) == 0 ? 0 : -1;
}

void llm_summary(const llm_client *c, FILE *f, const char *prog)
{
    const llm_stats *s = &c->stats;
    long net = s->calls - s->cache_hits;
    fprintf(f,
            "%s: calls: %ld (%ld sent, %ld retried, %ld from cache); %ld answered, %ld invalid, "
            "%ld failed; %ld HTTP requests; tokens in %ld (cached %ld), out %ld; "
            "mean latency %.3fs; ",
            prog, s->calls, net, s->retried, s->cache_hits, s->calls - s->invalid - s->failures,
            s->invalid, s->failures, s->http_requests, s->prompt_tokens, s->cached_tokens,
            s->completion_tokens, net > 0 ? s->latency_sum / (double)net : 0.0);
    if (find_price(c))
        fprintf(f, "cost $%.4f (cache saved $%.4f)", s->cost, s->saved_cost);
    else
        fprintf(f, "cost: price unknown for model %s", c->model);
    if (s->late || s->cancelled)
        fprintf(f, "; late answers used %ld, attempts cancelled %ld", s->late, s->cancelled);
    if (s->cache_rejected)
        fprintf(f, "; %ld cache entr%s rejected by the check (asked again)", s->cache_rejected,
                s->cache_rejected == 1 ? "y" : "ies");
    fputc('\n', f);
}
