/* Unit tests for grammar/tikzopt.c's option-key table (tikzopt_keys.h): apply_one
 * finds a key by binary search, so the table must be sorted (byte order) with no key
 * twice; every entry's length must be its name's, and every key must be found as
 * itself, while a prefix or an extension of a key that is not in the table is not. */
#include "grammar/tikzopt_keys.h"

#include <stdio.h>
#include <string.h>

static long checks, failures;

static void check(int ok, const char *what, const char *key)
{
    checks++;
    if (!ok) {
        failures++;
        printf("test_tikzopt: %s: '%s'\n", what, key);
    }
}

static int in_table(const char *k, size_t n)
{
    for (size_t i = 0; i < tk_opt_nkeys; i++)
        if (tk_opt_keys[i].len == n && memcmp(tk_opt_keys[i].name, k, n) == 0) return 1;
    return 0;
}

int main(void)
{
    check(tk_opt_nkeys > 100, "the table is too short", "");
    for (size_t i = 0; i < tk_opt_nkeys; i++) {
        const struct opt_key *e = &tk_opt_keys[i];
        check(e->len == strlen(e->name), "length differs from the name's", e->name);
        if (i > 0)
            check(strcmp(tk_opt_keys[i - 1].name, e->name) < 0,
                  "not sorted, or listed twice, after the key before it", e->name);
        check(tk_opt_key_find(e->name, e->len) == e, "not found", e->name);
        /* prefixes and one-byte extensions */
        for (size_t n = 0; n < e->len; n++)
            check(tk_opt_key_find(e->name, n) == NULL || in_table(e->name, n),
                  "a prefix is found", e->name);
        char buf[64];
        snprintf(buf, sizeof buf, "%sx", e->name);
        check(tk_opt_key_find(buf, e->len + 1) == NULL || in_table(buf, e->len + 1),
              "an extension is found", e->name);
    }
    check(tk_opt_key_find("", 0) == NULL, "the empty key is found", "");
    check(tk_opt_key_find("zz", 2) == NULL, "an unknown key is found", "zz");
    if (failures) {
        printf("test_tikzopt: %ld checks, %ld failures\n", checks, failures);
        return 1;
    }
    printf("test_tikzopt: %ld checks, 0 failures\n", checks);
    return 0;
}
