/* llm/answer.c — finds the one JSON object in a model's answer: the whole
 * text, else the one fenced block that parses as an object, else the one
 * top-level balanced {...} span that does. Strict: zero or several
 * candidates is an error, never a guess. llm_answer_json_value takes a JSON
 * array as well (an answer the paper asks as an array: MathExplain's
 * element matching), its spans then [...] as well as {...}. */
#include <stdio.h>
#include <string.h>

#include "llm/llm.h"

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Parses s[0..n) as exactly one JSON value (blanks around allowed). */
static cJSON *parse_exact(const char *s, size_t n)
{
    while (n > 0 && is_space(*s)) { s++; n--; }
    while (n > 0 && is_space(s[n - 1])) n--;
    if (n == 0) return NULL;
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(s, n, &end, 0);
    if (!v) return NULL;
    if (end != s + n) {
        cJSON_Delete(v);
        return NULL;
    }
    return v;
}

static const char *find(const char *s, size_t n, const char *pat)
{
    size_t m = strlen(pat);
    for (size_t i = 0; i + m <= n; i++)
        if (memcmp(s + i, pat, m) == 0) return s + i;
    return NULL;
}

/* Keeps the one object (or array, with arrays) among candidates: *found
 * counts them. */
static void consider(cJSON **best, int *found, cJSON *v, int arrays)
{
    if (!v) return;
    if (!cJSON_IsObject(v) && !(arrays && cJSON_IsArray(v))) {
        cJSON_Delete(v);
        return;
    }
    (*found)++;
    if (*found == 1) *best = v;
    else cJSON_Delete(v);
}

static cJSON *answer_json(const char *text, size_t n, int arrays, char *err, size_t errlen)
{
    err[0] = 0;
    if (memchr(text, 0, n)) {
        snprintf(err, errlen, "the answer holds a NUL byte");
        return NULL;
    }
    cJSON *whole = parse_exact(text, n);
    if (whole) {
        if (cJSON_IsObject(whole) || (arrays && cJSON_IsArray(whole))) return whole;
        cJSON_Delete(whole);
        snprintf(err, errlen, "the answer is JSON but not an object%s", arrays ? " or array" : "");
        return NULL;
    }
    /* fenced blocks */
    cJSON *best = NULL;
    int found = 0, fences = 0;
    const char *p = text, *e = text + n;
    for (;;) {
        const char *open = find(p, (size_t)(e - p), "```");
        if (!open) break;
        const char *body = open + 3;
        while (body < e && *body != '\n') body++;   /* the info string: json, ... */
        const char *close = find(body, (size_t)(e - body), "```");
        if (!close) break;
        fences++;
        consider(&best, &found, parse_exact(body, (size_t)(close - body)), arrays);
        p = close + 3;
    }
    if (found == 1) return best;
    if (found > 1) {
        cJSON_Delete(best);
        snprintf(err, errlen, "the answer has %d JSON blocks; expected one", found);
        return NULL;
    }
    /* top-level balanced {...} spans, strings taken into account */
    int depth = 0, instr = 0, spans = 0;
    const char *start = NULL;
    for (const char *q = text; q < e; q++) {
        char c = *q;
        if (instr) {
            if (c == '\\' && q + 1 < e) q++;
            else if (c == '"') instr = 0;
            continue;
        }
        if (c == '"' && depth > 0) instr = 1;
        else if (c == '{' || (arrays && c == '[')) {
            if (depth++ == 0) start = q;
        } else if ((c == '}' || (arrays && c == ']')) && depth > 0) {
            if (--depth == 0) {
                spans++;
                consider(&best, &found, parse_exact(start, (size_t)(q - start + 1)), arrays);
            }
        }
    }
    if (found == 1) return best;
    if (found > 1) {
        cJSON_Delete(best);
        snprintf(err, errlen, "the answer has %d JSON objects; expected one", found);
        return NULL;
    }
    if (spans || fences)
        snprintf(err, errlen, "the answer's JSON does not parse");
    else
        snprintf(err, errlen, "the answer has no JSON object");
    return NULL;
}

cJSON *llm_answer_json(const char *text, size_t n, char *err, size_t errlen)
{
    return answer_json(text, n, 0, err, errlen);
}

cJSON *llm_answer_json_value(const char *text, size_t n, char *err, size_t errlen)
{
    return answer_json(text, n, 1, err, errlen);
}
