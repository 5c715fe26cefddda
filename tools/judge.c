/* judge — LLM-as-a-judge over an OpenAI-compatible endpoint.
 *
 *   judge --rubric geom --mode both items.tsv > llm.tsv
 *
 * Reads item manifests (TSV with a header; column "item" plus the fields
 * the rubric reads), sends each item to the model with the rubric's prompt,
 * checks the answer against the rubric's schema (one repair request when it
 * does not fit) and writes the verdict table "item criterion rater value
 * note" in manifest order. Items that cannot be judged are recorded as
 * "# failed" lines (or rows, --fail-value) with the reason. Exit status: 0
 * every item judged, 1 some failed, 2 usage or input error. See judge(1).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ir/cli.h"
#include "ir/progress.h"
#include "llm/image.h"
#include "llm/llm.h"
#include "llm/opts.h"


enum { ST_WAIT, ST_SENT, ST_DONE };

typedef struct {
    char **names;
    size_t n;
    char *file, *dir;
} manifest;

struct jitem;

/* One request of an item (a rubric with groups asks several). */
typedef struct {
    struct jitem *item;
    size_t k;
    int repaired;
    char key[65];      /* the cache key of its valid answer ("" until then) */
} jreq;

typedef struct jitem {
    llm_item it;
    char **values;
    int state;
    size_t nreq, next_req, nans;
    jreq *reqs;
    cJSON **answers;   /* per request, kept until all are in */
    llm_rows rows;
    char *fail;
    int sent;          /* a call of it went to the server (not all from the cache) */
    struct judge *judge;
} jitem;

typedef struct judge {
    const llm_rubric *rubric;
    const char *mode, *variant, *rater, *fail_value;
    jitem *items;
    size_t nitems, next_feed, next_out, ndone, nfailed;
    size_t ncached;            /* items answered with every call from the cache */
    size_t noov, noov_items;   /* label rows out of the taxonomy (oov:TEXT), their items */
    progress *bar;   /* the progress line on stderr; NULL when not shown */
} judge;

static void usage(FILE *f)
{
    fputs("usage: judge [--rubric NAME | --rubric-file FILE] [--mode MODE] [--variant NAME]\n"
          "             [--model NAME] [--base-url URL] [--api-key-file FILE] [-j N]\n"
          "             [--rpm N] [--tpm N] [--retries N] [--timeout SEC] [--grace SEC]\n"
          "             [--backoff SEC]\n"
          "             [--cache-dir DIR] [--no-cache] [--refresh] [--llm-log FILE]\n"
          "             [--prices FILE] [--rater NAME] [--fail-value VALUE] [--dry-run]\n"
          "             [MANIFEST...]\n"
          "Asks a language model to rate each item of the manifests (TSV) by a rubric\n"
          "and writes the verdict table \"item criterion rater value note\".\n"
          "\n"
          "  -r, --rubric NAME        built-in rubric: geom, eduillustrate, sketchjudge,\n"
          "                           mathexplain-keypoints, mathexplain-explanation\n"
          "      --rubric-file FILE   a rubric file of your own (judge(1), RUBRIC FILES)\n"
          "      --rubric-dir DIR     look for rubrics (NAME.rubric) and prices.tsv here first\n"
          "  -M, --mode MODE          which inputs to send (geom: code, image, both)\n"
          "      --variant NAME       prompt variant (sketchjudge: baseline, rubric, cot)\n"
          "      --model NAME         model (default $OPENAI_MODEL)\n"
          "      --base-url URL       endpoint (default $OPENAI_BASE_URL, else OpenAI's)\n"
          "      --api-key-file FILE  read the key from FILE (default $OPENAI_API_KEY)\n"
          "  -j, --jobs N             requests in flight at once (default 4)\n"
          "      --rpm N, --tpm N     requests / tokens per minute (default unlimited)\n"
          "      --retries N          attempts per request at most (default 5)\n"
          "      --timeout SEC        no answer in SEC s: a retry goes out (default 120)\n"
          "      --grace SEC          keep an overdue attempt SEC more; first answer wins\n"
          "                           (default: as --timeout; 0: cut it at --timeout)\n"
          "      --backoff SEC        first retry delay, doubling, jittered (default 1)\n"
          "      --max-tokens N       answer length cap sent to the model\n"
          "      --temperature T      sampling temperature (default 0; none: not sent)\n"
          "      --top-p P            nucleus sampling, 0 < P <= 1 (default 1; none: not sent)\n"
          "      --reasoning-effort LEVEL  minimal, low, medium or high (default: not sent)\n"
          "      --no-json-mode       do not ask for response_format json_object\n"
          "      --cache-dir DIR      response cache (default ~/.cache/diagramir/llm)\n"
          "      --no-cache           neither read nor write the cache\n"
          "      --refresh            ask every request again, still writing the cache\n"
          "                           (it keeps only answers that pass the rubric's check)\n"
          "      --llm-log FILE       append one JSON line per attempt and one per call\n"
          "                           (--log FILE: the same, deprecated)\n"
          "      --prices FILE        USD per 1M tokens: \"model input output [cached]\"\n"
          "      --rater NAME         rater column (default: the model name)\n"
          "      --fail-value VALUE   write failed items as rows with VALUE, not \"# failed\"\n"
          "      --no-header          leave out the header line\n"
          "      --allow-files DIR    cells may also name files under DIR (repeatable; by\n"
          "                           default only under the manifest's own directory)\n"
          "Images (judge(1), IMAGES: SVG and TikZ inputs become PNG, cached by content):\n",
          f);
    fputs(llm_image_opts_help, f);
    fprintf(f, "\n"
          "  -n, --dry-run            print each item's request as JSON, send nothing\n"
          "  -l, --list               list the built-in rubrics\n"
          "      --describe           print the rubric's fields, modes, variants and rows\n"
          "  -q, --quiet              no progress or summary on stderr\n"
          "      --progress           always show the progress line (items done, ETA)\n"
          "      --no-progress        never show it (default: on a terminal, for a long run)\n"
          "%s"
          "  -h, --help               show this help and exit\n"
          "  -V, --version            show the version and exit\n"
          "\n"
          "Exit status: 0 every item judged, 1 some items failed (recorded; 0 with\n"
          "--exit-zero), 2 usage or input error.\n",
          cli_help(27));
}

/* ------------------------------------------------------------ rubrics */

static const char *const builtin[] = {"geom", "eduillustrate", "sketchjudge",
                                      "mathexplain-keypoints", "mathexplain-explanation", NULL};

/* ----------------------------------------------------------- manifests */

static char *unescape_cell(const char *s)
{
    return strdup(s);   /* \n, \t, \\ are undone where text fields are rendered */
}

/* Reads one manifest; appends its items. 0 ok, 2 input error (reported). */
static int read_manifest(const char *path, manifest *m, jitem **items, size_t *nitems)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    if (!f) {
        fprintf(stderr, "judge: %s: %s\n", path, strerror(errno));
        return 2;
    }
    memset(m, 0, sizeof *m);
    m->file = strdup(shown);
    char *d = strdup(strcmp(path, "-") == 0 ? "." : path);
    char *slash = d ? strrchr(d, '/') : NULL;
    if (slash) *slash = 0;
    m->dir = slash ? d : strdup(".");
    if (!slash) free(d);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, rc = 0, idcol = -1;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if ((size_t)len != strlen(line)) {
            fprintf(stderr, "%s:%d:1: error: NUL byte in the manifest\n", shown, lineno);
            rc = 2;
            break;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (len == 0 || line[0] == '#') continue;
        /* split at tabs */
        size_t nf = 1;
        for (char *p = line; *p; p++) nf += *p == '\t';
        char **cells = calloc(nf, sizeof *cells);
        if (!cells) { rc = 2; break; }
        size_t k = 0;
        char *s = line;
        for (;;) {
            char *t = strchr(s, '\t');
            if (t) *t = 0;
            cells[k++] = unescape_cell(s);
            if (!t) break;
            s = t + 1;
        }
        if (!m->names) {
            m->names = cells;
            m->n = nf;
            for (size_t i = 0; i < nf; i++) {
                if (strcmp(cells[i], "item") == 0) idcol = (int)i;
                for (size_t j = 0; j < i; j++)
                    if (strcmp(cells[i], cells[j]) == 0) {
                        fprintf(stderr, "%s:%d:1: error: column '%s' twice in the header\n",
                                shown, lineno, cells[i]);
                        rc = 2;
                    }
            }
            if (idcol < 0) {
                fprintf(stderr, "%s:%d:1: error: the header has no 'item' column\n", shown, lineno);
                rc = 2;
            }
            if (rc) break;
            continue;
        }
        if (nf != m->n) {
            fprintf(stderr, "%s:%d:1: error: %zu fields, the header has %zu\n", shown, lineno, nf,
                    m->n);
            for (size_t i = 0; i < nf; i++) free(cells[i]);
            free(cells);
            rc = 2;
            continue;
        }
        if (!*cells[idcol]) {
            fprintf(stderr, "%s:%d:1: error: empty item id\n", shown, lineno);
            for (size_t i = 0; i < nf; i++) free(cells[i]);
            free(cells);
            rc = 2;
            continue;
        }
        jitem *ni = realloc(*items, (*nitems + 1) * sizeof *ni);
        if (!ni) { rc = 2; break; }
        *items = ni;
        jitem *it = &ni[(*nitems)++];
        memset(it, 0, sizeof *it);
        it->values = cells;
        it->it.id = cells[idcol];
        it->it.names = m->names;
        it->it.values = cells;
        it->it.n = nf;
        it->it.dir = m->dir;
        it->it.file = m->file;
        it->it.line = lineno;
    }
    if (!m->names && rc == 0) {
        fprintf(stderr, "%s:1:1: error: empty manifest (no header)\n", shown);
        rc = 2;
    }
    free(line);
    if (f != stdin) fclose(f);
    return rc;
}

/* ------------------------------------------------------------- output */

static void put_field(const char *s)
{
    for (; *s; s++) putchar(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

static void flush_done(judge *J)
{
    while (J->next_out < J->nitems && J->items[J->next_out].state == ST_DONE) {
        jitem *it = &J->items[J->next_out++];
        if (it->fail) {
            const char **names;
            size_t nn = llm_rubric_row_names(J->rubric, &names);
            if (J->fail_value) {
                for (size_t i = 0; i < nn; i++) {
                    put_field(it->it.id);
                    printf("\t%s\t", names[i]);
                    put_field(J->rater);
                    printf("\t%s\tfailed: ", J->fail_value);
                    put_field(it->fail);
                    putchar('\n');
                }
            } else {
                printf("# failed\t");
                put_field(it->it.id);
                putchar('\t');
                put_field(J->rater);
                putchar('\t');
                put_field(it->fail);
                putchar('\n');
            }
        }
        for (size_t i = 0; i < it->rows.n; i++) {
            put_field(it->it.id);
            printf("\t%s\t", it->rows.v[i].criterion);
            put_field(J->rater);
            printf("\t%s\t", it->rows.v[i].value);
            put_field(it->rows.v[i].note);
            putchar('\n');
        }
        llm_rows_free(&it->rows);
    }
    fflush(stdout);
}

/* the progress line (ir/progress.h): items answered of all, the failed */
static void show_progress(judge *J)
{
    if (J->nfailed) progress_note(J->bar, "%zu failed", J->nfailed);
    progress_set(J->bar, J->ndone);
}

static void free_answers(jitem *it)
{
    for (size_t k = 0; it->answers && k < it->nreq; k++) cJSON_Delete(it->answers[k]);
    free(it->answers);
    it->answers = NULL;
}

static void item_failed(judge *J, jitem *it, const char *why)
{
    free(it->fail);
    it->fail = strdup(why);
    llm_rows_free(&it->rows);
    free_answers(it);
    it->state = ST_DONE;
    J->ndone++;
    J->nfailed++;
    fprintf(progress_stream(J->bar), "%s:%d:1: error: item %s: %s\n", it->it.file, it->it.line,
            it->it.id, why);
}

/* Every answer of the item is in: its rows. */
static void item_answered(llm_client *c, judge *J, jitem *it)
{
    char err[600];
    if (llm_rubric_rows_all(J->rubric, J->mode, &it->it, (const cJSON *const *)it->answers,
                            it->nreq, &it->rows, err, sizeof err) != 0) {
        /* each answer passed its own check, but not all of them together:
         * none stays in the cache, so the item is asked again next time */
        for (size_t k = 0; c && k < it->nreq; k++) llm_cache_forget(c, it->reqs[k].key);
        item_failed(J, it, err);
        return;
    }
    free_answers(it);
    it->state = ST_DONE;
    J->ndone++;
    if (!it->sent) J->ncached++;
    size_t k = 0;
    for (size_t i = 0; i < it->rows.n; i++) k += strncmp(it->rows.v[i].value, "oov:", 4) == 0;
    J->noov += k;
    J->noov_items += k > 0;
}

/* The answer to request q parsed and schema-checked: the answer, or NULL
 * with the problem in err. */
static cJSON *parse_answer(const jreq *q, const char *content, char *err, size_t errlen)
{
    const judge *J = q->item->judge;
    size_t n = strlen(content);
    cJSON *ans = llm_rubric_answer_array(J->rubric) ? llm_answer_json_value(content, n, err, errlen)
                                                    : llm_answer_json(content, n, err, errlen);
    if (ans && llm_rubric_check_answer(J->rubric, J->mode, &q->item->it, q->k, ans, err,
                                       errlen) != 0) {
        cJSON_Delete(ans);
        ans = NULL;
    }
    return ans;
}

/* The client's check (llm_check_fn): only an answer that passes it is
 * cached, or served from the cache. */
static int check_answer(const char *content, void *user, char *err, size_t errlen)
{
    cJSON *ans = parse_answer(user, content, err, errlen);
    cJSON_Delete(ans);
    return ans ? 0 : -1;
}

static void answer_done(llm_client *c, llm_request *req, const llm_result *res, void *user)
{
    jreq *q = user;
    jitem *it = q->item;
    judge *J = it->judge;
    if (!res->cached) it->sent = 1;
    if (it->state == ST_DONE) {
        /* another request of the item failed already */
    } else if (res->status != LLM_OK && res->status != LLM_EINVALID) {
        item_failed(J, it, res->error);
    } else {
        char err[600];
        cJSON *ans = NULL;
        if (res->status == LLM_OK) ans = parse_answer(q, res->content, err, sizeof err);
        else snprintf(err, sizeof err, "%s", res->error);
        if (ans) {
            it->answers[q->k] = ans;
            snprintf(q->key, sizeof q->key, "%s", res->key ? res->key : "");
            if (++it->nans == it->nreq) item_answered(c, J, it);
        } else if (!q->repaired) {
            q->repaired = 1;
            llm_request *rep = llm_rubric_repair(J->rubric, req, res->content, err);
            if (!rep || llm_submit_checked(c, rep, check_answer, answer_done, q) != 0)
                item_failed(J, it, "out of memory building the repair request");
        } else {
            char why[700];
            snprintf(why, sizeof why, "unusable answer after a repair request: %s", err);
            item_failed(J, it, why);
        }
    }
    flush_done(J);
    show_progress(J);
}

/* Submits the next request of the next item; 0 when none is left. */
static int feed(llm_client *c, void *user)
{
    judge *J = user;
    while (J->next_feed < J->nitems) {
        jitem *it = &J->items[J->next_feed];
        if (it->state == ST_WAIT && !it->reqs) {   /* (reqs live until free_items:
                                                       a failed item's others may be in flight) */
            it->nreq = llm_rubric_nrequests(J->rubric, J->mode, &it->it);
            it->reqs = calloc(it->nreq ? it->nreq : 1, sizeof *it->reqs);
            it->answers = calloc(it->nreq ? it->nreq : 1, sizeof *it->answers);
            if (!it->reqs || !it->answers) {
                J->next_feed++;
                item_failed(J, it, "out of memory");
                flush_done(J);
                return 1;
            }
            if (it->nreq == 0) {
                J->next_feed++;
                item_answered(c, J, it);
                flush_done(J);
                return 1;
            }
        }
        if (it->state == ST_DONE || it->next_req >= it->nreq) {
            J->next_feed++;
            continue;
        }
        size_t k = it->next_req++;
        if (it->next_req >= it->nreq) J->next_feed++;
        char err[400];
        llm_request *r = llm_rubric_request_at(J->rubric, J->mode, J->variant, &it->it, k, err,
                                               sizeof err);
        if (!r) {
            item_failed(J, it, err);
            flush_done(J);
            return 1;
        }
        it->state = ST_SENT;
        it->reqs[k] = (jreq){it, k, 0, ""};
        if (llm_submit_checked(c, r, check_answer, answer_done, &it->reqs[k]) != 0) {
            item_failed(J, it, "out of memory");
            flush_done(J);
        }
        return 1;
    }
    return 0;
}

/* -------------------------------------------------------------- main */

typedef struct {
    llm_config cfg;
    llm_image_opts img;
    const char *rubric_name, *rubric_file, *rubric_dir, *mode, *variant, *rater, *fail_value;
    int dry, list, describe, quiet, header, pmode;
    char **allow;   /* --allow-files: directories cells may name files under */
    size_t nallow;
} options;

/* Reads the options; -1 to go on, else the exit status (--help, --version,
 * a wrong option). */
static int parse_options(int argc, char **argv, options *o)
{
    enum { O_RUBRIC_DIR = 256, O_VARIANT, O_RATER, O_FAILVAL, O_NOHEADER, O_DESCRIBE, O_ALLOW };
    static const struct option longopts[] = {
        {"rubric", required_argument, 0, 'r'},     {"rubric-file", required_argument, 0, 'R'},
        {"rubric-dir", required_argument, 0, O_RUBRIC_DIR},
        {"mode", required_argument, 0, 'M'},       {"variant", required_argument, 0, O_VARIANT},
        {"jobs", required_argument, 0, 'j'},       {"log", required_argument, 0, LLM_OPT_LOG},
        LLM_LONG_OPTIONS,
        {"rater", required_argument, 0, O_RATER},
        {"fail-value", required_argument, 0, O_FAILVAL},
        {"no-header", no_argument, 0, O_NOHEADER}, {"dry-run", no_argument, 0, 'n'},
        {"allow-files", required_argument, 0, O_ALLOW},
        {"list", no_argument, 0, 'l'},             {"describe", no_argument, 0, O_DESCRIBE},
        {"quiet", no_argument, 0, 'q'},            {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},          PROGRESS_LONG_OPTIONS,
        LLM_IMAGE_LONG_OPTIONS,
        CLI_LONG_OPTIONS,
        {0, 0, 0, 0}};
    cli_init("judge");
    memset(o, 0, sizeof *o);
    llm_config_init(&o->cfg);
    llm_image_opts_init(&o->img);
    o->header = 1;
    o->pmode = PROGRESS_AUTO;
    int opt;
    while ((opt = getopt_long(argc, argv, "r:M:j:nlqo:hV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'r': o->rubric_name = optarg; break;
        case 'R': o->rubric_file = optarg; break;
        case O_RUBRIC_DIR: o->rubric_dir = optarg; break;
        case 'M': o->mode = optarg; break;
        case O_VARIANT: o->variant = optarg; break;
        case 'j':
            if (llm_opt_parse(&o->cfg, LLM_OPT_JOBS, optarg, "judge") != 0) return 2;
            break;
        case O_RATER: o->rater = optarg; break;
        case O_FAILVAL: o->fail_value = optarg; break;
        case O_NOHEADER: o->header = 0; break;
        case O_ALLOW: {
            char **a = realloc(o->allow, (o->nallow + 1) * sizeof *a);
            if (!a) { perror("judge"); return 2; }
            o->allow = a;
            o->allow[o->nallow++] = optarg;
            break;
        }
        case 'n': o->dry = 1; break;
        case 'l': o->list = 1; break;
        case O_DESCRIBE: o->describe = 1; break;
        case 'q': o->quiet = 1; break;
        case PROGRESS_OPT_ON: o->pmode = PROGRESS_ON; break;
        case PROGRESS_OPT_OFF: o->pmode = PROGRESS_OFF; break;
        case 'h': usage(stdout); return 0;
        case 'V': return cli_version();
        default:
            if (LLM_OPT_IS(opt)) {
                if (llm_opt_parse(&o->cfg, opt, optarg, "judge") != 0) return 2;
                break;
            }
            if (LLM_IMAGE_OPT_IS(opt)) {
                if (llm_image_opt_parse(&o->img, opt, optarg, "judge") != 0) return 2;
                break;
            }
            if (!cli_opt(opt, optarg, "[OPTION]... [MANIFEST.tsv]...")) return 2;
            break;
        }
    }
    return -1;
}

/* --list: the built-in rubrics and their titles; the exit status. */
static int list_rubrics(const char *rubric_dir)
{
    char path[PATH_MAX], err[1024];
    for (int i = 0; builtin[i]; i++) {
        char name[300];
        snprintf(name, sizeof name, "%s.rubric", builtin[i]);
        if (llm_find_data(rubric_dir, name, path, sizeof path) != 0) {
            printf("%s\t(rubric file not found)\n", builtin[i]);
            continue;
        }
        llm_rubric *r = llm_rubric_load(path, err, sizeof err);
        if (!r) { fprintf(stderr, "%s\n", err); return 2; }
        printf("%s\t%s\n", builtin[i], llm_rubric_title(r));
        llm_rubric_free(r);
    }
    return 0;
}

/* The rubric of --rubric-file, or of --rubric (geom by default) found as a
 * data file; NULL after the error. */
static llm_rubric *open_rubric(const options *o)
{
    char path[PATH_MAX], err[1024];
    const char *file = o->rubric_file, *name = o->rubric_name;
    if (name && file) {
        fprintf(stderr, "judge: error: --rubric and --rubric-file exclude each other\n");
        return NULL;
    }
    if (!file) {
        if (!name) name = "geom";
        char fname[300];
        snprintf(fname, sizeof fname, "%s.rubric", name);
        if (strchr(name, '/') || llm_find_data(o->rubric_dir, fname, path, sizeof path) != 0) {
            fprintf(stderr, "judge: error: no rubric '%s' (judge --list; --rubric-file FILE)\n",
                    name);
            return NULL;
        }
        file = path;
    }
    llm_rubric *rubric = llm_rubric_load(file, err, sizeof err);
    if (!rubric) fprintf(stderr, "%s\n", err);
    return rubric;
}

/* The mode (the rubric's default when none is given) and the variant must
 * be the rubric's; NULL after the error. */
static const char *check_mode(const llm_rubric *rubric, const char *mode, const char *variant)
{
    if (!mode) mode = llm_rubric_default_mode(rubric);
    else if (!llm_rubric_has_mode(rubric, mode)) {
        fprintf(stderr, "judge: error: rubric %s has no mode '%s'\n", llm_rubric_name(rubric), mode);
        return NULL;
    }
    if (variant && !llm_rubric_has_variant(rubric, variant)) {
        fprintf(stderr, "judge: error: rubric %s has no prompt variant '%s'\n",
                llm_rubric_name(rubric), variant);
        return NULL;
    }
    return mode;
}

/* The items of every manifest (standard input without one): 0, or 2 after
 * an error (a manifest, an item id given twice, an item the rubric cannot
 * take). */
static const jitem *sort_items;
static int cmp_item_id(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    int c = strcmp(sort_items[a].it.id, sort_items[b].it.id);
    return c ? c : (a > b) - (a < b);
}

static int read_items(int nman, char **paths, manifest *mans, jitem **items, size_t *nitems,
                      const llm_rubric *rubric, const char *mode, const options *o)
{
    char err[1024];
    int rc = 0;
    for (int i = 0; i < nman; i++)
        if (read_manifest(paths ? paths[i] : "-", &mans[i], items, nitems) != 0) rc = 2;
    jitem *it = *items;
    for (size_t i = 0; i < *nitems; i++) {
        it[i].it.roots = o->allow;
        it[i].it.nroots = o->nallow;
    }
    /* an item id twice: sorted by id, then by position, the repeats follow
     * their first */
    size_t *ord = rc == 0 ? malloc((*nitems + 1) * sizeof *ord) : NULL;
    if (rc == 0 && !ord) rc = 2;
    for (size_t i = 0; ord && i < *nitems; i++) ord[i] = i;
    if (ord) {
        sort_items = it;
        qsort(ord, *nitems, sizeof *ord, cmp_item_id);
    }
    for (size_t i = 1; ord && i < *nitems; i++) {
        const llm_item *a = &it[ord[i - 1]].it, *b = &it[ord[i]].it;
        if (strcmp(a->id, b->id) == 0 && ord[i - 1] < ord[i]) {
            fprintf(stderr, "%s:%d:1: error: item %s again (first at %s:%d)\n", b->file, b->line,
                    b->id, a->file, a->line);
            rc = 2;
            break;
        }
    }
    free(ord);
    for (size_t i = 0; rc == 0 && i < *nitems; i++)
        if (llm_rubric_check_item(rubric, mode, &it[i].it, err, sizeof err) != 0) {
            fprintf(stderr, "%s:%d:1: error: %s\n", it[i].it.file, it[i].it.line, err);
            rc = 2;
        }
    return rc;
}

/* --dry-run: each item's request as one JSON line; the exit status. */
static int dry_run(const llm_rubric *rubric, const char *mode, const char *variant,
                   const jitem *items, size_t nitems)
{
    char err[1024];
    for (size_t i = 0; i < nitems; i++) {
        size_t n = llm_rubric_nrequests(rubric, mode, &items[i].it);
        for (size_t k = 0; k < n; k++) {
            llm_request *r = llm_rubric_request_at(rubric, mode, variant, &items[i].it, k, err,
                                                   sizeof err);
            if (!r) {
                fprintf(stderr, "%s:%d:1: error: item %s: %s\n", items[i].it.file,
                        items[i].it.line, items[i].it.id, err);
                return 2;
            }
            char *js = llm_request_json(r, 1);
            printf("{\"item\":");
            cJSON *id = cJSON_CreateString(items[i].it.id);
            char *ids = id ? cJSON_PrintUnformatted(id) : NULL;
            printf("%s,", ids ? ids : "\"\"");
            size_t image;
            const char *g = llm_rubric_request_group(rubric, mode, &items[i].it, k, &image);
            if (g) printf("\"group\":\"%s\",", g);   /* group names are [A-Za-z0-9._-] */
            if (g && image) printf("\"image\":%zu,", image);
            printf("\"messages\":%s}\n", js ? js : "[]");
            free(ids);
            cJSON_Delete(id);
            free(js);
            llm_request_free(r);
        }
    }
    return 0;
}

/* Makes every item's images before anything is sent (filling the image
 * cache): 0, or 2 after an input error (a limit, no TeX, not an image).
 * An item whose TikZ source TeX rejects is left to fail when it is rated.
 * Once a picture has been converted (TeX takes seconds an item), a
 * progress line counts the items (pmode as the run's). */
static int prepare_images(const llm_rubric *rubric, const char *mode, const char *variant,
                          jitem *items, size_t nitems, llm_images *im, int pmode)
{
    char err[1024];
    progress *bar = NULL;
    int rc = 0;
    for (size_t i = 0; i < nitems && rc == 0; i++) {
        llm_images_take_error(im);
        llm_request *r = llm_rubric_request(rubric, mode, variant, &items[i].it, err, sizeof err);
        if (r) {
            llm_request_free(r);
        } else if (llm_images_take_error(im) == LLM_IMAGE_EINPUT) {
            fprintf(progress_stream(bar), "%s:%d:1: error: item %s: %s\n", items[i].it.file,
                    items[i].it.line, items[i].it.id, err);
            rc = 2;
        }
        if (!bar && llm_images_stats(im)->converted > 0 && i + 1 < nitems)
            bar = progress_start("judge", "items' images", nitems, pmode);
        progress_set(bar, i + 1);
    }
    progress_done(bar);
    return rc;
}

/* Rates every item through the model and prints the rows; the exit status
 * (1 when some item failed). */
static int judge_items(const options *o, const llm_rubric *rubric, const char *mode,
                       jitem *items, size_t nitems)
{
    char err[1024];
    llm_images *items_images = nitems ? items[0].it.images : NULL;
    if (items_images &&
        prepare_images(rubric, mode, o->variant, items, nitems, items_images,
                       o->quiet && o->pmode == PROGRESS_AUTO ? PROGRESS_OFF : o->pmode) != 0)
        return 2;
    /* the images' work is done: the requests read them again from the cache */
    llm_image_stats istats = {0};
    if (items_images) istats = *llm_images_stats(items_images);
    llm_client *client = llm_client_new(&o->cfg, err, sizeof err);
    if (!client) {
        fprintf(stderr, "judge: error: %s\n", err);
        return 2;
    }
    int rc = 0;
    judge J = {0};
    J.rubric = rubric;
    J.mode = mode;
    J.variant = o->variant;
    J.rater = o->rater ? o->rater : llm_client_model(client);
    J.fail_value = o->fail_value;
    J.items = items;
    J.nitems = nitems;
    J.bar = progress_start("judge", "items", nitems,
                           o->quiet && o->pmode == PROGRESS_AUTO ? PROGRESS_OFF : o->pmode);
    for (size_t i = 0; i < nitems; i++) items[i].judge = &J;
    if (o->header) printf("item\tcriterion\trater\tvalue\tnote\n");
    fflush(stdout);
    if (llm_run(client, feed, &J) != 0) {
        fprintf(stderr, "judge: error: curl failed\n");
        rc = 2;
    }
    /* whatever did not finish (curl failure) is recorded as failed */
    for (size_t i = 0; i < nitems; i++)
        if (items[i].state != ST_DONE) item_failed(&J, &items[i], "not run");
    flush_done(&J);
    progress_done(J.bar);
    if (J.noov)
        fprintf(stderr, "judge: warning: %zu label%s (in %zu item%s) not in the taxonomy of "
                "the item's domain: kept as oov:LABEL rows, not mapped to another label\n",
                J.noov, J.noov == 1 ? "" : "s", J.noov_items, J.noov_items == 1 ? "" : "s");
    if (!o->quiet) {
        /* items first (what the exit status says), then the calls */
        fprintf(stderr, "judge: items: %zu answered (%zu from cache), %zu failed\n",
                J.ndone - J.nfailed, J.ncached, J.nfailed);
        llm_summary(client, stderr, "judge");
    }
    if (!o->quiet && (istats.converted || istats.cache_hits))
        fprintf(stderr, "judge: images: %ld converted (%.2fs), %ld from the cache\n",
                istats.converted, istats.seconds, istats.cache_hits);
    if (rc == 0 && J.nfailed) rc = 1;
    llm_client_free(client);
    return rc;
}

static void free_items(jitem *items, size_t nitems, manifest *mans, int nman)
{
    for (size_t i = 0; i < nitems; i++) {
        for (size_t k = 0; k < items[i].it.n; k++) free(items[i].values[k]);
        free(items[i].values);
        free(items[i].fail);
        llm_rows_free(&items[i].rows);
        free_answers(&items[i]);
        free(items[i].reqs);
    }
    free(items);
    for (int i = 0; i < nman; i++) {
        for (size_t k = 0; k < mans[i].n; k++) free(mans[i].names[k]);
        free(mans[i].names);
        free(mans[i].file);
        free(mans[i].dir);
    }
    free(mans);
}

int main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) return rc;
    if (cli_output_begin() != 0) return 2;
    if (o.list) return cli_exit(list_rubrics(o.rubric_dir));
    llm_rubric *rubric = open_rubric(&o);
    if (!rubric) return 2;
    if (o.describe) {
        llm_rubric_describe(rubric, stdout);
        llm_rubric_free(rubric);
        return cli_exit(0);
    }
    const char *mode = check_mode(rubric, o.mode, o.variant);
    if (!mode) {
        llm_rubric_free(rubric);
        return 2;
    }
    char price_path[PATH_MAX];
    if (!o.cfg.price_file &&
        llm_find_data(o.rubric_dir, "prices.tsv", price_path, sizeof price_path) == 0)
        o.cfg.price_file = price_path;

    int nman = argc - optind > 0 ? argc - optind : 1;
    manifest *mans = calloc((size_t)nman, sizeof *mans);
    jitem *items = NULL;
    size_t nitems = 0;
    if (!mans) return 2;
    rc = read_items(nman, optind < argc ? argv + optind : NULL, mans, &items, &nitems, rubric, mode,
                    &o);
    /* the images: one converter and cache for every item */
    char icache[4096], err[1024];
    llm_image_cache_dir(o.cfg.cache_dir, icache, sizeof icache);
    o.img.cache_dir = icache;
    o.img.no_cache = o.cfg.no_cache;
    llm_images *im = rc == 0 ? llm_images_new(&o.img, err, sizeof err) : NULL;
    if (rc == 0 && !im) {
        fprintf(stderr, "judge: error: %s\n", err);
        rc = 2;
    }
    for (size_t i = 0; i < nitems; i++) items[i].it.images = im;
    if (rc == 0) rc = o.dry ? dry_run(rubric, mode, o.variant, items, nitems)
                            : judge_items(&o, rubric, mode, items, nitems);
    free_items(items, nitems, mans, nman);
    llm_images_free(im);
    free(o.allow);
    llm_rubric_free(rubric);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "judge: error writing the output\n");
        return cli_exit(2);
    }
    return cli_exit(rc);
}
