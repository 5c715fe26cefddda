/* fuzz_judge_parse.c — judge's answer parser: finding the JSON object in a
 * model's answer (whole text, fenced block, balanced span) and checking it
 * against a rubric with every criterion kind, and (as a JSON value, arrays
 * taken) against MathExplain's element matching and a rubric of request
 * groups; inputs starting with "R:" are parsed as rubric files instead.
 * Run from the source tree's top (the taxonomy and keypoints files). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llm/llm.h"

static const char RUBRIC[] =
    "rubric fuzz\n"
    "field domain text\n"
    "field scenes images\n"
    "field predicted keypoints\n"
    "field reference keypoints\n"
    "field code file\n"
    "mode both code scenes\n"
    "taxonomy llm/rubrics/sketchjudge.taxonomy domain\n"
    "criterion angle-labels enum yes no na\n"
    "criterion score int 0 5\n"
    "criterion is_correct bool\n"
    "criterion layout per-image 0 5 scenes\n"
    "criterion consistency per-image 0 5 scenes skip-first\n"
    "criterion overall geomean-percent 5 score layout consistency\n"
    "criterion error-type labels\n"
    "criterion keypoints matches predicted reference\n"
    "criterion error_count count error_list\n"
    "criterion error_list errors error_type error_description_en is_correct\n"
    "prompt\n{{schema}}\n{{#code}}{{code}}{{/code}}{{^scenes}}none{{/scenes}}{{@scenes}}\n.\n";

static const char RUBRIC_NOTAX[] =
    "rubric fuzz\n"
    "field scenes images\n"
    "field predicted keypoints\n"
    "field reference keypoints\n"
    "criterion angle-labels enum yes no na\n"
    "criterion score int 0 5\n"
    "criterion layout per-image 0 5 scenes\n"
    "criterion keypoints matches predicted reference\n"
    "prompt\n{{schema}}\n.\n";

static const char RUBRIC_KP[] =
    "rubric kp\n"
    "field reference keypoints\n"
    "field predicted keypoints\n"
    "criterion keypoints matches predicted reference\n"
    "prompt\n{{reference}}{{predicted}}\n.\n";

static const char RUBRIC_GROUPS[] =
    "rubric groups\n"
    "field scenes images\n"
    "criterion a int 0 5\n"
    "criterion b int 0 5\n"
    "criterion c int 0 5\n"
    "criterion all geomean-percent 5 a b c\n"
    "group one a\n"
    "group each b each scenes\n"
    "group pair c each scenes against-first\n"
    "prompt one\n{{schema}}\n.\n"
    "prompt each\n{{index}}{{@scenes}}{{schema}}\n.\n"
    "prompt pair\n{{index}}{{@scenes}}{{schema}}\n.\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static llm_rubric *rubric, *kp, *groups;
    char err[512];
    if (!kp) {
        kp = llm_rubric_parse(RUBRIC_KP, sizeof RUBRIC_KP - 1, "kp.rubric", ".", err, sizeof err);
        groups = llm_rubric_parse(RUBRIC_GROUPS, sizeof RUBRIC_GROUPS - 1, "groups.rubric", ".",
                                  err, sizeof err);
        if (!kp || !groups) abort();
    }
    if (!rubric) {
        rubric = llm_rubric_parse(RUBRIC, sizeof RUBRIC - 1, "fuzz.rubric", ".", err, sizeof err);
        if (!rubric)
            rubric = llm_rubric_parse(RUBRIC_NOTAX, sizeof RUBRIC_NOTAX - 1, "fuzz.rubric", ".",
                                      err, sizeof err);
        if (!rubric) abort();
    }
    if (size >= 2 && data[0] == 'R' && data[1] == ':') {
        llm_rubric *r = llm_rubric_parse((const char *)data + 2, size - 2, "in.rubric", "/nonexistent",
                                         err, sizeof err);
        if (r) {
            const char **names;
            llm_rubric_row_names(r, &names);
            llm_rubric_free(r);
        }
        return 0;
    }
    static char *names[] = {"item", "domain", "scenes", "predicted", "reference"};
    static char *values[] = {"x", "geometry", "a.png|b.png|c.png",
                             "tests/judge/data/kp-gen.txt", "tests/judge/data/kp-ref.json"};
    llm_item it = {.id = "x", .names = names, .values = values, .n = 5, .dir = ".",
                   .file = "fuzz", .line = 1};
    cJSON *v = llm_answer_json_value((const char *)data, size, err, sizeof err);
    if (v) {
        llm_rows rows = {0};
        if (llm_rubric_rows(kp, "", &it, v, &rows, err, sizeof err) == 0 && rows.n != 6)
            abort();   /* matching gives its six rows */
        llm_rows_free(&rows);
        /* the groups rubric: the same answer to each of its 1 + 3 + 2 requests */
        size_t n = llm_rubric_nrequests(groups, "", &it);
        const cJSON *all[8];
        for (size_t k = 0; k < n && k < 8; k++) {
            all[k] = v;
            llm_rubric_check_answer(groups, "", &it, k, v, err, sizeof err);
        }
        if (n != 6) abort();
        if (llm_rubric_rows_all(groups, "", &it, all, n, &rows, err, sizeof err) == 0 && rows.n != 4)
            abort();
        llm_rows_free(&rows);
        cJSON_Delete(v);
    }
    cJSON *ans = llm_answer_json((const char *)data, size, err, sizeof err);
    if (ans) {
        llm_rows rows = {0};
        if (llm_rubric_rows(rubric, "both", &it, ans, &rows, err, sizeof err) == 0 && rows.n == 0)
            abort();   /* a checked answer always gives rows */
        llm_rows_free(&rows);
        cJSON_Delete(ans);
    }
    return 0;
}
