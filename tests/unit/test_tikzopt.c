/* Unit tests for grammar/tikzopt.c's option keys (tikzopt_keys.h): apply_one finds a
 * key with tk_opt_key_find, the perfect hash gperf generates from
 * grammar/tikzopt_keys.gperf. Its reference twin here is a plain scan of the
 * generated table's slots. Every key must be found as itself, listed once; every
 * other text (prefixes, extensions and one-byte changes of the keys, texts that
 * are no key at all) must be found as the scan finds it, that is not at all. A key
 * is read as k[0,kn), not up to a NUL: the texts are taken from longer buffers. */
#include "grammar/tikzopt_keys.h"

#include <stdio.h>
#include <string.h>

static long checks, failures;

static void check(int ok, const char *what, const char *key, size_t n)
{
    checks++;
    if (!ok) {
        failures++;
        printf("test_tikzopt: %s: '%.*s'\n", what, (int)n, key);
    }
}

/* the reference: the first slot whose name is k[0,kn) */
static const struct opt_key *find_plain(const char *k, size_t kn)
{
    for (size_t i = 0; i < tk_opt_nslots; i++) {
        const struct opt_key *e = &tk_opt_key_slots[i];
        if (e->name[0] && strlen(e->name) == kn && memcmp(e->name, k, kn) == 0) return e;
    }
    return NULL;
}

static void same_as_plain(const char *k, size_t kn, const char *what)
{
    check(tk_opt_key_find(k, kn) == find_plain(k, kn), what, k, kn);
}

int main(void)
{
    size_t nkeys = 0;
    for (size_t i = 0; i < tk_opt_nslots; i++) {
        const struct opt_key *e = &tk_opt_key_slots[i];
        if (!e->name[0]) continue;
        nkeys++;
        size_t len = strlen(e->name);
        check(tk_opt_key_find(e->name, len) == e, "not found as itself", e->name, len);
        check(find_plain(e->name, len) == e, "listed twice", e->name, len);
        char buf[64];
        snprintf(buf, sizeof buf, "%s=x,y", e->name);
        check(tk_opt_key_find(buf, len) == e, "not found inside a longer text", buf, len);
        for (size_t n = 0; n < len; n++) same_as_plain(e->name, n, "a prefix");
        for (size_t n = len + 1; n <= strlen(buf); n++) same_as_plain(buf, n, "an extension");
        /* every byte changed to a few others */
        static const char repl[] = " aez-/\x80";
        for (size_t j = 0; j < len; j++)
            for (const char *r = repl; *r; r++) {
                memcpy(buf, e->name, len);
                buf[j] = *r;
                same_as_plain(buf, len, "a changed key");
            }
    }
    check(nkeys == tk_opt_nkeys, "the table's slots do not hold every key", "", 0);
    check(nkeys > 100, "the table is too short", "", 0);
    static const char *const others[] = {
        "", "zz", "Above", "draw ", " draw", "ultra thick line", "\xff\xfe",
        "minimum height minimum height minimum height"
    };
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        check(tk_opt_key_find(others[i], strlen(others[i])) == NULL, "a non-key is found",
              others[i], strlen(others[i]));
        same_as_plain(others[i], strlen(others[i]), "a non-key");
    }
    if (failures) {
        printf("test_tikzopt: %ld checks, %ld failures\n", checks, failures);
        return 1;
    }
    printf("test_tikzopt: %ld checks, 0 failures\n", checks);
    return 0;
}
