/* llm/opts.h — the LLM client's command-line options and data files, one
 * copy for every program that talks to a model (judge, tikz2ir
 * --fallback=llm, svg2graph --llm).
 *
 * A program puts LLM_LONG_OPTIONS into its getopt_long table and hands
 * every option code in [LLM_OPT_FIRST, LLM_OPT_LAST] to llm_opt_parse():
 *
 *     static const struct option longopts[] = {
 *         { "quiet", no_argument, NULL, 'q' },
 *         LLM_LONG_OPTIONS,
 *         { NULL, 0, NULL, 0 }
 *     };
 *     ...
 *     default:
 *         if (LLM_OPT_IS(c)) { if (llm_opt_parse(&cfg, c, optarg, "prog") != 0) return 2; break; }
 *
 * The options (see judge(1)): --base-url URL, --model NAME, --api-key-file
 * FILE, --retries N (attempts, 1..100), --timeout SEC, --grace SEC, --backoff SEC,
 * --max-tokens N, --temperature T|none, --top-p P|none, --reasoning-effort
 * LEVEL, --no-json-mode, --rpm N, --tpm N,
 * --cache-dir DIR, --no-cache, --refresh, --llm-log FILE, --prices FILE. LLM_OPT_JOBS
 * (transfers at once) and LLM_OPT_LOG are parsed too, for programs that
 * give them a name of their own (judge's -j/--jobs and --log).
 */
#ifndef DIAGRAMIR_LLM_OPTS_H
#define DIAGRAMIR_LLM_OPTS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

#include "llm/llm.h"

enum {
    LLM_OPT_FIRST = 0x4c00,
    LLM_OPT_BASE_URL = LLM_OPT_FIRST,
    LLM_OPT_MODEL,
    LLM_OPT_KEYFILE,
    LLM_OPT_RETRIES,
    LLM_OPT_TIMEOUT,
    LLM_OPT_BACKOFF,
    LLM_OPT_MAXTOK,
    LLM_OPT_TEMP,
    LLM_OPT_NOJSON,
    LLM_OPT_RPM,
    LLM_OPT_TPM,
    LLM_OPT_CACHEDIR,
    LLM_OPT_NOCACHE,
    LLM_OPT_LOG,
    LLM_OPT_PRICES,
    LLM_OPT_JOBS,
    LLM_OPT_TOPP,
    LLM_OPT_EFFORT,
    LLM_OPT_GRACE,
    LLM_OPT_REFRESH,
    LLM_OPT_LAST = LLM_OPT_REFRESH
};

#define LLM_OPT_IS(c) ((c) >= LLM_OPT_FIRST && (c) <= LLM_OPT_LAST)

#define LLM_LONG_OPTIONS                                            \
    { "base-url", required_argument, NULL, LLM_OPT_BASE_URL },      \
    { "model", required_argument, NULL, LLM_OPT_MODEL },            \
    { "api-key-file", required_argument, NULL, LLM_OPT_KEYFILE },   \
    { "retries", required_argument, NULL, LLM_OPT_RETRIES },        \
    { "timeout", required_argument, NULL, LLM_OPT_TIMEOUT },        \
    { "grace", required_argument, NULL, LLM_OPT_GRACE },            \
    { "backoff", required_argument, NULL, LLM_OPT_BACKOFF },        \
    { "max-tokens", required_argument, NULL, LLM_OPT_MAXTOK },      \
    { "temperature", required_argument, NULL, LLM_OPT_TEMP },       \
    { "top-p", required_argument, NULL, LLM_OPT_TOPP },             \
    { "reasoning-effort", required_argument, NULL, LLM_OPT_EFFORT }, \
    { "no-json-mode", no_argument, NULL, LLM_OPT_NOJSON },          \
    { "rpm", required_argument, NULL, LLM_OPT_RPM },                \
    { "tpm", required_argument, NULL, LLM_OPT_TPM },                \
    { "cache-dir", required_argument, NULL, LLM_OPT_CACHEDIR },     \
    { "no-cache", no_argument, NULL, LLM_OPT_NOCACHE },             \
    { "refresh", no_argument, NULL, LLM_OPT_REFRESH },              \
    { "llm-log", required_argument, NULL, LLM_OPT_LOG },            \
    { "prices", required_argument, NULL, LLM_OPT_PRICES }

/* The --help lines of LLM_LONG_OPTIONS, indented like the other options. */
extern const char llm_opts_help[];

/* Sets the field of cfg that option code opt names from arg (pointers into
 * arg are kept, as getopt's optarg lives as long as argv). 0 ok; -1 with
 * "PROG: error: --NAME ..." on stderr when the value is out of range or not
 * a number; -1 too for a code that is no LLM option. */
int llm_opt_parse(llm_config *cfg, int opt, const char *arg, const char *prog);

/* Finds the data file NAME (a rubric, a prompt file, prices.tsv) in, in
 * order: user_dir (when not NULL), the directories of $DIAGRAMIR_RUBRICS
 * (colon-separated), share/diagramir/rubrics beside the program's
 * directory, the source tree's llm/rubrics above it (build/bin,
 * build/san/bin), and DIAGRAMIR_DATADIR/rubrics. 0 and the path in out, or
 * -1 when no readable file is found. */
int llm_find_data(const char *user_dir, const char *name, char *out, size_t n);

/* Finds the directory of the TeX render script and class (contrib/tex:
 * render.sh, IM.cls): $DIAGRAMIR_TEX, share/diagramir/tex beside the
 * program's directory, the source tree's contrib/tex above it, and
 * DIAGRAMIR_DATADIR/tex. 0 and the directory in out, or -1. */
int llm_find_tex_dir(char *out, size_t n);

#endif
