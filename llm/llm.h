/* llm/llm.h — the LLM client shared by judge, tikz2ir --fallback llm and
 * svg2graph: chat completions against any OpenAI-compatible endpoint.
 *
 * One client holds the endpoint, the model, the key, the limits and the
 * cache. Requests are built from text and image parts, queued with
 * llm_submit() and driven by llm_run() with the curl multi interface:
 * at most `concurrency` transfers at once, a requests-per-minute and a
 * tokens-per-minute limiter, retries with exponential backoff and jitter on
 * 429, 5xx, connection errors, timeouts and unusable 200 bodies (Retry-After
 * honoured), a hard cap on attempts. An attempt that has received nothing
 * `timeout` seconds after it started is overdue: its retry is scheduled, but
 * the attempt stays open `grace` seconds more, and whichever answer comes
 * first is used (the other attempt is cancelled), so a late answer is not
 * thrown away and asked for again. The log has a line per attempt and one
 * per call. Every answer that passed validation is written to a
 * content-addressed cache (temp file + fsync + rename) before the caller
 * sees it, so a killed run re-run pays nothing twice. Validation: a
 * request submitted with a check function (llm_submit_checked) has its
 * answer checked before it is cached; an answer the check rejects is
 * never written (its call ends LLM_EINVALID, the log says why) and is
 * asked again on the next run. Cache entries are checked on read too: an
 * entry the check rejects (written by an older version, or under another
 * rule) is removed, logged, and asked again. --refresh (cfg.refresh) reads
 * nothing from the cache and still writes it.
 *
 * The key is read from a file (--api-key-file) or $OPENAI_API_KEY, kept in
 * one header buffer, zeroed when the client is freed; it never appears in
 * logs, errors or cache entries (the cache key covers the endpoint and the
 * request body, which never holds it). Core dumps are disabled while a key
 * is loaded. TLS peer and host verification are always on; redirects are
 * not followed.
 *
 * Synchronous use (one request, e.g. tikz2ir):
 *
 *     llm_config cfg; llm_config_init(&cfg);
 *     cfg.model = "gpt-4.1-mini";
 *     char err[256];
 *     llm_client *c = llm_client_new(&cfg, err, sizeof err);
 *     llm_request *r = llm_request_new();
 *     llm_request_add_text(r, "system", "...");
 *     llm_request_add_text(r, "user", "...");
 *     llm_result res;
 *     char *answer = llm_complete(c, r, &res);   // frees r; NULL on failure
 *     ... res.error says why ...
 *     free(answer); llm_client_free(c);
 */
#ifndef DIAGRAMIR_LLM_H
#define DIAGRAMIR_LLM_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

typedef struct llm_client llm_client;
typedef struct llm_request llm_request;

typedef struct {
    const char *base_url;      /* NULL: $OPENAI_BASE_URL, else https://api.openai.com/v1 */
    const char *model;         /* NULL: $OPENAI_MODEL; required */
    const char *api_key_file;  /* NULL: $OPENAI_API_KEY (may be unset: local servers) */
    double temperature;        /* 0; NaN: not sent (the server's default) */
    double top_p;              /* 1; NaN: not sent */
    const char *reasoning_effort; /* NULL: not sent; else sent as reasoning_effort */
    int max_tokens;            /* 0: not sent */
    int json_mode;             /* 1: response_format json_object (dropped once on a 400) */
    int concurrency;           /* transfers at once, 4 */
    int max_attempts;          /* hard cap on HTTP attempts per request, 5 */
    double timeout;            /* seconds without an answer before an attempt is
                                  overdue and a retry may go out, 120 */
    double grace;              /* seconds an overdue attempt stays open besides its
                                  retry (its hard limit: timeout + grace);
                                  negative: as timeout (the default -1); 0: none */
    double connect_timeout;    /* seconds, 10 */
    double backoff;            /* first retry delay in seconds, 1 (doubles, jittered) */
    double backoff_max;        /* longest delay, 60 (Retry-After is honoured up to 300) */
    double rpm, tpm;           /* requests / tokens per minute, 0: unlimited */
    const char *cache_dir;     /* NULL: $XDG_CACHE_HOME/diagramir/llm or ~/.cache/... */
    int no_cache;              /* neither read nor write the cache */
    int refresh;               /* do not read the cache (ask everything again), but
                                  write the valid answers to it */
    const char *log_path;      /* JSONL record per attempt and per call, NULL: none */
    const char *price_file;    /* "model in out [cached-in]" USD per 1M tokens; NULL */
    size_t max_response;       /* bytes of one response body, 16 MiB */
    unsigned long seed;        /* jitter seed, 0: from the clock */
} llm_config;

typedef enum {
    LLM_OK = 0,
    LLM_EHTTP,      /* the last attempt got an HTTP error status */
    LLM_ENET,       /* connection error */
    LLM_ETIMEOUT,   /* the last attempt timed out */
    LLM_EPROTO,     /* 200, but the body is not a chat completion */
    LLM_ETOOBIG,    /* the body exceeded max_response (not retried) */
    LLM_ELOCAL,     /* out of memory, cache or request error on our side */
    LLM_EINVALID    /* an answer came, but the request's check rejected it:
                       content holds it, error the problem; never cached */
} llm_status;

typedef struct {
    llm_status status;
    const char *content;   /* the assistant's text (OK and EINVALID); valid during
                              the callback */
    const char *finish;    /* finish_reason, or "" */
    const char *error;     /* why it failed: one line, never holds the key */
    long http;             /* last HTTP status, 0 none */
    int attempts;          /* HTTP attempts made (0 for a cache hit) */
    int cached;            /* answered from the cache */
    long prompt_tokens, completion_tokens, cached_tokens;
    double latency;        /* seconds from the first attempt's start to the end */
    double cost;           /* USD, 0 for a cache hit, NaN when the model's price is
                              unknown (not in the price file, or none given) */
    const char *key;       /* the cache key (64 hex digits, "" before one is made):
                              for llm_cache_forget */
} llm_result;

typedef struct {
    long calls, cache_hits, http_requests, retries, failures;
    long invalid;              /* calls answered, the answer rejected by the check */
    long retried;              /* calls that took more than one HTTP attempt */
    long cache_rejected;       /* cache entries the check rejected on read (removed) */
    int price_known;           /* the model is in the price file */
    long late;                 /* answers used from overdue attempts */
    long cancelled;            /* attempts cancelled: another one's answer was used */
    long prompt_tokens, completion_tokens, cached_tokens;
    double cost, saved_cost;   /* saved: what the cache hits had cost */
    double latency_sum;
} llm_stats;

/* Called once per submitted request, from inside llm_run(). The client
 * frees the request after it returns; it may submit new requests (say, a
 * repair request built with llm_request_clone()). */
typedef void (*llm_done_fn)(llm_client *c, llm_request *req, const llm_result *res,
                            void *user);
/* Checks an answer (the assistant's text) before it is used and cached:
 * 0 when it is valid; -1 with the problem in err (the ground for a repair
 * request). Called from inside llm_run(), for an answer from the server
 * and for a cache entry alike; user is the one given to
 * llm_submit_checked. It must not submit requests. */
typedef int (*llm_check_fn)(const char *content, void *user, char *err, size_t errlen);
/* Called by llm_run() whenever fewer requests wait than can be started; it
 * submits more and returns 1, or returns 0 when it has nothing left. */
typedef int (*llm_feed_fn)(llm_client *c, void *user);

void llm_config_init(llm_config *cfg);
llm_client *llm_client_new(const llm_config *cfg, char *err, size_t errlen);
void llm_client_free(llm_client *c);
const char *llm_client_model(const llm_client *c);
const llm_stats *llm_client_stats(const llm_client *c);

llm_request *llm_request_new(void);
void llm_request_free(llm_request *r);
llm_request *llm_request_clone(const llm_request *r);
/* role: "system", "user" or "assistant"; a part of the same role as the
 * message before it joins that message. 0 ok, -1 out of memory/bad role. */
int llm_request_add_text(llm_request *r, const char *role, const char *text);
/* Attaches an image (PNG, JPEG, GIF, WebP; found by content) to the user
 * message as a base64 data URL. -1 with a message in err on failure. */
int llm_request_add_image_file(llm_request *r, const char *path, char *err, size_t errlen);
int llm_request_add_image(llm_request *r, const void *data, size_t n, char *err,
                          size_t errlen);
/* A label for the log (an item id); copied. */
int llm_request_set_tag(llm_request *r, const char *tag);
const char *llm_request_tag(const llm_request *r);

/* The request's messages as JSON (malloc'd); abbreviate shortens image data
 * URLs to "data:image/png;base64,<N bytes>" for people to read. */
char *llm_request_json(const llm_request *r, int abbreviate);

/* Queues r (the client owns it from here). 0 ok, -1 out of memory. */
int llm_submit(llm_client *c, llm_request *r, llm_done_fn done, void *user);
/* The same, the answer checked by check(content, user, ...) before it is
 * cached or served from the cache (see the top of this file). */
int llm_submit_checked(llm_client *c, llm_request *r, llm_check_fn check, llm_done_fn done,
                       void *user);
/* Removes the cache entry of key (an llm_result's key), for an answer that
 * passed its own check but was rejected later, with the other answers of
 * its item: so it is asked again. 0, or -1 when there was none. */
int llm_cache_forget(llm_client *c, const char *key);
/* Runs until nothing is queued or in flight and feed (may be NULL) has
 * nothing more. 0, or -1 when curl itself failed. */
int llm_run(llm_client *c, llm_feed_fn feed, void *user);
/* One request, synchronously: returns the answer (malloc'd) or NULL; *res
 * (optional) is filled, its strings then point to static "" or stay valid
 * only until the next call. Frees r. */
char *llm_complete(llm_client *c, llm_request *r, llm_result *res);
/* The same with a check (llm_submit_checked): the answer is returned when
 * one came, valid (res->status LLM_OK) or not (LLM_EINVALID, res->error the
 * problem: the ground for a repair request); NULL when none came. */
char *llm_complete_checked(llm_client *c, llm_request *r, llm_check_fn check, void *user,
                           llm_result *res);

/* The calls' line: "PROG: calls: N (N sent, N retried, N from cache); N
 * answered, N invalid, N failed; N HTTP requests; tokens in N (cached N),
 * out N; mean latency Xs; cost $X (cache saved $X)", the cost "price
 * unknown for model M" when the price file does not have it, then "; late
 * answers used N, attempts cancelled N" when there were any, and "; N
 * cache entries rejected by the check (asked again)" when there were. */
void llm_summary(const llm_client *c, FILE *f, const char *prog);

/* --- helpers shared with the tools ------------------------------------- */
/* SHA-256 of data as 64 lowercase hex digits (+ NUL) in hex[65]. */
void llm_sha256_hex(const void *data, size_t n, char hex[65]);
/* Incremental form. */
typedef struct {
    unsigned int h[8];
    unsigned char buf[64];
    unsigned long long len;
    size_t nbuf;
} llm_sha256_ctx;
void llm_sha256_init(llm_sha256_ctx *s);
void llm_sha256_update(llm_sha256_ctx *s, const void *data, size_t n);
void llm_sha256_final(llm_sha256_ctx *s, unsigned char out[32]);

/* The JSON object of a model's answer: the whole text, else the one fenced
 * block that parses as an object, else the one balanced {...} span that
 * does. NULL with the reason in err when there is none or more than one. */
cJSON *llm_answer_json(const char *text, size_t n, char *err, size_t errlen);
/* The same, a JSON array also taken (whole, fenced, or a balanced [...]). */
cJSON *llm_answer_json_value(const char *text, size_t n, char *err, size_t errlen);

/* --- rubrics (judge) ----------------------------------------------------
 * A rubric file (man judge(1), RUBRIC FILES) declares the manifest fields a
 * rubric reads, its modes, its criteria (the answer's JSON schema and how
 * each turns into verdict rows), and its prompt templates. */
typedef struct llm_rubric llm_rubric;

/* One manifest row: column names and cells (cells unescaped: \t \n \\). */
typedef struct {
    const char *id;
    char *const *names;
    char *const *values;
    size_t n;
    const char *dir;    /* relative paths in cells are relative to this */
    char *const *roots; /* directories besides dir cells may name files under */
    size_t nroots;
    const char *file;   /* manifest name and line, for messages */
    int line;
    struct llm_images *images;  /* converts image fields (llm/image.h); NULL: sent as they are */
} llm_item;

typedef struct {
    char *criterion, *value, *note;
} llm_row;

typedef struct {
    llm_row *v;
    size_t n, cap;
} llm_rows;

/* Parses a rubric; dir is where its taxonomy file is looked up. Errors are
 * "file:line:col: error: message". */
llm_rubric *llm_rubric_parse(const char *text, size_t n, const char *file, const char *dir,
                             char *err, size_t errlen);
llm_rubric *llm_rubric_load(const char *path, char *err, size_t errlen);
/* A prompt file: the rubric syntax without criterion lines (rubric, title,
 * field, mode, system, prompt, repair), for a program that checks the
 * answer itself (svg2graph --llm). llm_rubric_request and
 * llm_rubric_repair build its requests; llm_rubric_rows is not for it. */
llm_rubric *llm_prompt_load(const char *path, char *err, size_t errlen);
void llm_rubric_free(llm_rubric *r);
const char *llm_rubric_name(const llm_rubric *r);
const char *llm_rubric_title(const llm_rubric *r);
/* The default mode ("" when the rubric has none) and the check of a name. */
const char *llm_rubric_default_mode(const llm_rubric *r);
int llm_rubric_has_mode(const llm_rubric *r, const char *mode);
int llm_rubric_has_variant(const llm_rubric *r, const char *variant);
/* Prints the rubric's summary (fields, modes, variants, criteria) to f. */
void llm_rubric_describe(const llm_rubric *r, FILE *f);
/* The criterion names of its output rows, in order (for failure rows). */
size_t llm_rubric_row_names(const llm_rubric *r, const char ***names);

/* mkdir -p with mode 0700 (the caches' directories; llm/client.c): 0, or
 * -1 with errno. */
int llm_mkdirs(const char *path);

/* Checks an item before anything is sent: required fields, readable
 * files and images under the item's directory or roots
 * (llm_path_allowed), a known taxonomy domain. -1 with the reason. */
int llm_rubric_check_item(const llm_rubric *r, const char *mode, const llm_item *it,
                          char *err, size_t errlen);
/* Whether a file a cell of it names (path: as resolved against it->dir)
 * lies, as a real path, under it->dir or one of it->roots (llm/paths.c).
 * 0, or -1 with the reason. */
int llm_path_allowed(const llm_item *it, const char *path, char *err, size_t errlen);
/* Builds the request for an item (system prompt, the variant's prompt with
 * the item's fields, its images). NULL with the reason. */
llm_request *llm_rubric_request(const llm_rubric *r, const char *mode, const char *variant,
                                const llm_item *it, char *err, size_t errlen);
/* An item's requests: 1 without groups; with groups (judge(1), RUBRIC
 * FILES) one per group, an each group's one per image it scores. */
size_t llm_rubric_nrequests(const llm_rubric *r, const char *mode, const llm_item *it);
/* Request k (0-based) of an item; llm_rubric_request is request 0. */
llm_request *llm_rubric_request_at(const llm_rubric *r, const char *mode, const char *variant,
                                   const llm_item *it, size_t k, char *err, size_t errlen);
/* The group of request k (NULL without groups) and the image it scores
 * (*image 1-based, 0 when none). */
const char *llm_rubric_request_group(const llm_rubric *r, const char *mode, const llm_item *it,
                                     size_t k, size_t *image);
/* Whether the answer is a JSON array as the paper asks (a rubric whose one
 * criterion is a matches criterion): parse it with llm_answer_json_value. */
int llm_rubric_answer_array(const llm_rubric *r);
/* Schema-checks the answer to request k alone (0, or -1 with the problem:
 * the ground for a repair request). */
int llm_rubric_check_answer(const llm_rubric *r, const char *mode, const llm_item *it, size_t k,
                            const cJSON *answer, char *err, size_t errlen);
/* The verdict rows from the answers to all n requests of an item (n =
 * llm_rubric_nrequests), appended to out; -1 (nothing appended) with the
 * first problem in err. */
int llm_rubric_rows_all(const llm_rubric *r, const char *mode, const llm_item *it,
                        const cJSON *const *answers, size_t n, llm_rows *out, char *err,
                        size_t errlen);
/* The repair request: req, the bad answer, and the rubric's repair text. */
llm_request *llm_rubric_repair(const llm_rubric *r, const llm_request *req,
                               const char *answer, const char *problem);
/* Schema-checks an answer and appends its verdict rows. -1 (nothing
 * appended) with the first problem in err. */
int llm_rubric_rows(const llm_rubric *r, const char *mode, const llm_item *it,
                    const cJSON *answer, llm_rows *out, char *err, size_t errlen);
int llm_rows_add(llm_rows *rows, const char *criterion, const char *value, const char *note);
void llm_rows_free(llm_rows *rows);

#endif
