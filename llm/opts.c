/* llm/opts.c — the LLM client's command-line options and the search for
 * its data files, shared by judge, tikz2ir and svg2graph. The contract is
 * llm/opts.h. */
#include "llm/opts.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef DIAGRAMIR_DATADIR
#define DIAGRAMIR_DATADIR "/usr/local/share/diagramir"
#endif
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

const char llm_opts_help[] =
    "      --base-url=URL       endpoint (default $OPENAI_BASE_URL, else OpenAI's)\n"
    "      --model=NAME         model (default $OPENAI_MODEL)\n"
    "      --api-key-file=FILE  read the key from FILE (default $OPENAI_API_KEY)\n"
    "      --retries=N          attempts per request at most (default 5)\n"
    "      --timeout=SEC        no answer in SEC s: a retry goes out (default 120)\n"
    "      --grace=SEC          keep an overdue attempt SEC more; first answer wins\n"
    "                           (default: as --timeout; 0: cut it at --timeout)\n"
    "      --backoff=SEC        first retry delay, doubling, jittered (default 1)\n"
    "      --max-tokens=N       answer length cap sent to the model\n"
    "      --temperature=T      sampling temperature (default 0; none: not sent)\n"
    "      --top-p=P            nucleus sampling, 0 < P <= 1 (default 1; none: not sent)\n"
    "      --reasoning-effort=LEVEL  minimal, low, medium or high (default: not sent)\n"
    "      --no-json-mode       do not ask for response_format json_object\n"
    "      --rpm=N, --tpm=N     requests / tokens per minute (default unlimited)\n"
    "      --cache-dir=DIR      response cache (default ~/.cache/diagramir/llm)\n"
    "      --no-cache           neither read nor write the cache\n"
    "      --refresh            ask every request again (cached answers are not read),\n"
    "                           still writing the valid answers to the cache\n"
    "      --llm-log=FILE       append one JSON line per attempt and one per call\n"
    "      --prices=FILE        USD per 1M tokens: \"model input output [cached]\"\n";

static const char *opt_name(int opt)
{
    switch (opt) {
    case LLM_OPT_RETRIES: return "--retries";
    case LLM_OPT_TIMEOUT: return "--timeout";
    case LLM_OPT_GRACE: return "--grace";
    case LLM_OPT_BACKOFF: return "--backoff";
    case LLM_OPT_MAXTOK: return "--max-tokens";
    case LLM_OPT_TEMP: return "--temperature";
    case LLM_OPT_TOPP: return "--top-p";
    case LLM_OPT_RPM: return "--rpm";
    case LLM_OPT_TPM: return "--tpm";
    case LLM_OPT_JOBS: return "--jobs";
    default: return "option";
    }
}

/* A finite number in [lo, hi] (whole when integer is set), else -1 with
 * the message. */
static int number(int opt, const char *arg, double lo, double hi, int integer,
                  const char *prog, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = arg ? strtod(arg, &end) : 0;
    if (!arg || end == arg || *end || errno || !isfinite(v) || v < lo || v > hi ||
        (integer && v != floor(v))) {
        if (integer)
            fprintf(stderr, "%s: error: %s wants a whole number from %g to %g, not '%s'\n", prog,
                    opt_name(opt), lo, hi, arg ? arg : "");
        else
            fprintf(stderr, "%s: error: %s wants a number >= %g, not '%s'\n", prog,
                    opt_name(opt), lo, arg ? arg : "");
        return -1;
    }
    *out = v;
    return 0;
}

int llm_opt_parse(llm_config *cfg, int opt, const char *arg, const char *prog)
{
    double d;
    switch (opt) {
    case LLM_OPT_BASE_URL: cfg->base_url = arg; return 0;
    case LLM_OPT_MODEL: cfg->model = arg; return 0;
    case LLM_OPT_KEYFILE: cfg->api_key_file = arg; return 0;
    case LLM_OPT_CACHEDIR: cfg->cache_dir = arg; return 0;
    case LLM_OPT_NOCACHE: cfg->no_cache = 1; return 0;
    case LLM_OPT_REFRESH: cfg->refresh = 1; return 0;
    case LLM_OPT_LOG: cfg->log_path = arg; return 0;
    case LLM_OPT_PRICES: cfg->price_file = arg; return 0;
    case LLM_OPT_NOJSON: cfg->json_mode = 0; return 0;
    case LLM_OPT_RETRIES:
        if (number(opt, arg, 1, 100, 1, prog, &d)) return -1;
        cfg->max_attempts = (int)d;
        return 0;
    case LLM_OPT_JOBS:
        if (number(opt, arg, 1, 1024, 1, prog, &d)) return -1;
        cfg->concurrency = (int)d;
        return 0;
    case LLM_OPT_MAXTOK:
        if (number(opt, arg, 1, 1e7, 1, prog, &d)) return -1;
        cfg->max_tokens = (int)d;
        return 0;
    case LLM_OPT_TIMEOUT: return number(opt, arg, 0.001, HUGE_VAL, 0, prog, &cfg->timeout);
    case LLM_OPT_GRACE: return number(opt, arg, 0, HUGE_VAL, 0, prog, &cfg->grace);
    case LLM_OPT_BACKOFF:
        if (number(opt, arg, 0, HUGE_VAL, 0, prog, &cfg->backoff)) return -1;
        if (cfg->backoff_max < cfg->backoff) cfg->backoff_max = cfg->backoff;
        return 0;
    case LLM_OPT_TEMP:
        if (arg && strcmp(arg, "none") == 0) {
            cfg->temperature = NAN;
            return 0;
        }
        return number(opt, arg, 0, HUGE_VAL, 0, prog, &cfg->temperature);
    case LLM_OPT_TOPP:
        if (arg && strcmp(arg, "none") == 0) {
            cfg->top_p = NAN;
            return 0;
        }
        {
            char *end = NULL;
            errno = 0;
            d = arg ? strtod(arg, &end) : 0;
            if (!arg || end == arg || *end || errno) d = 0;
        }
        if (!(d > 0 && d <= 1)) {
            fprintf(stderr, "%s: error: --top-p wants a number above 0 and at most 1, not '%s'\n", prog, arg);
            return -1;
        }
        cfg->top_p = d;
        return 0;
    case LLM_OPT_EFFORT:
        if (!arg || (strcmp(arg, "minimal") && strcmp(arg, "low") && strcmp(arg, "medium") && strcmp(arg, "high"))) {
            fprintf(stderr, "%s: error: --reasoning-effort wants minimal, low, medium or high, not '%s'\n", prog,
                    arg ? arg : "");
            return -1;
        }
        cfg->reasoning_effort = arg;
        return 0;
    case LLM_OPT_RPM: return number(opt, arg, 0, HUGE_VAL, 0, prog, &cfg->rpm);
    case LLM_OPT_TPM: return number(opt, arg, 0, HUGE_VAL, 0, prog, &cfg->tpm);
    default:
        fprintf(stderr, "%s: error: internal: option %d is no LLM option\n", prog, opt);
        return -1;
    }
}

/* The directory of the running program ("." when unknown). */
static void exe_dir(char *out, size_t n)
{
    char buf[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (k <= 0) {
        snprintf(out, n, ".");
        return;
    }
    buf[k] = 0;
    char *slash = strrchr(buf, '/');
    if (slash) *slash = 0;
    snprintf(out, n, "%s", slash ? buf : ".");
}

int llm_find_data(const char *user_dir, const char *name, char *out, size_t n)
{
    char cand[12][PATH_MAX];
    int k = 0;
    if (user_dir) snprintf(cand[k++], PATH_MAX, "%.4000s", user_dir);
    const char *env = getenv("DIAGRAMIR_RUBRICS");
    char envcopy[PATH_MAX * 2];
    if (env && *env) {
        snprintf(envcopy, sizeof envcopy, "%s", env);
        char *save = NULL;
        for (char *t = strtok_r(envcopy, ":", &save); t && k < 6; t = strtok_r(NULL, ":", &save))
            snprintf(cand[k++], PATH_MAX, "%.4000s", t);
    }
    char dir[PATH_MAX];
    exe_dir(dir, sizeof dir);
    snprintf(cand[k++], PATH_MAX, "%.4000s/../share/diagramir/rubrics", dir);
    snprintf(cand[k++], PATH_MAX, "%.4000s/../../llm/rubrics", dir);
    snprintf(cand[k++], PATH_MAX, "%.4000s/../../../llm/rubrics", dir);
    snprintf(cand[k++], PATH_MAX, "%s/rubrics", DIAGRAMIR_DATADIR);
    for (int i = 0; i < k; i++) {
        snprintf(out, n, "%.4000s/%s", cand[i], name);
        if (access(out, R_OK) == 0) return 0;
    }
    return -1;
}

int llm_find_tex_dir(char *out, size_t n)
{
    char cand[6][PATH_MAX], dir[PATH_MAX];
    int k = 0;
    const char *env = getenv("DIAGRAMIR_TEX");
    if (env && *env) snprintf(cand[k++], PATH_MAX, "%.4000s", env);
    exe_dir(dir, sizeof dir);
    snprintf(cand[k++], PATH_MAX, "%.4000s/../share/diagramir/tex", dir);
    snprintf(cand[k++], PATH_MAX, "%.4000s/../../contrib/tex", dir);
    snprintf(cand[k++], PATH_MAX, "%.4000s/../../../contrib/tex", dir);
    snprintf(cand[k++], PATH_MAX, "%s/tex", DIAGRAMIR_DATADIR);
    for (int i = 0; i < k; i++) {
        char f[PATH_MAX + 16];
        snprintf(f, sizeof f, "%.4000s/render.sh", cand[i]);
        if (access(f, R_OK) == 0) {
            snprintf(out, n, "%s", cand[i]);
            return 0;
        }
    }
    return -1;
}
