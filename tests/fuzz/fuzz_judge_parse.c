/* fuzz_judge_parse.c — judge's answer parser: finding the JSON object in a
 * model's answer (whole text, fenced block, balanced span) and checking it
 * against a rubric with every criterion kind; inputs starting with "R:" are
 * parsed as rubric files instead. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llm/llm.h"

static const char RUBRIC[] =
    "rubric fuzz\n"
    "field domain text\n"
    "field scenes images\n"
    "field predicted list\n"
    "field reference list\n"
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
    "field predicted list\n"
    "field reference list\n"
    "criterion angle-labels enum yes no na\n"
    "criterion score int 0 5\n"
    "criterion layout per-image 0 5 scenes\n"
    "criterion keypoints matches predicted reference\n"
    "prompt\n{{schema}}\n.\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static llm_rubric *rubric;
    char err[512];
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
    static char *values[] = {"x", "geometry", "a.png|b.png|c.png", "p1 | p2 | p3", "r1|r2"};
    llm_item it = {.id = "x", .names = names, .values = values, .n = 5, .dir = ".",
                   .file = "fuzz", .line = 1};
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
