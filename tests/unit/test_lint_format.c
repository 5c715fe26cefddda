/* test_lint_format.c — chk_set (checks/rubrics.c): a verdict's value and
 * line as given, its reason formatted printf-style, cut to
 * CHK_REASON_MAX - 1 bytes, tabs and line breaks turned into spaces, its
 * blame emptied; chk_blame (checks/rubric.h): each element once, in the
 * order named, the first CHK_BLAME_MAX kept. */
#include <string.h>

#include "checks/rubric.h"
#include "tests/unit/check.h"

int main(void)
{
    chk_verdict v;

    chk_set(&v, CHK_NO, 12, "text \"%s\" is %.1fpt off (line %d), %.0f%%", "AB", 2.25, 7, 49.5);
    CHECK(v.value == CHK_NO && v.line == 12);
    CHECK(strcmp(v.reason, "text \"AB\" is 2.2pt off (line 7), 50%") == 0);

    chk_set(&v, CHK_YES, 0, "%zu labels: %.2f x %.2f, the %c one", (size_t)3, -0.0, 1e9, 'x');
    CHECK(v.value == CHK_YES && v.line == 0);
    CHECK(strcmp(v.reason, "3 labels: -0.00 x 1000000000.00, the x one") == 0);

    chk_set(&v, CHK_NA, 1, "a\tb\nc\rd%s", "\te\n");
    CHECK(v.value == CHK_NA && v.line == 1);
    CHECK(strcmp(v.reason, "a b c d e ") == 0);

    /* a long reason is cut, and what is past the cut is not looked at */
    char big[3 * CHK_REASON_MAX];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[CHK_REASON_MAX + 5] = '\t';
    chk_set(&v, CHK_NO, 2, "x%s", big);
    CHECK(strlen(v.reason) == CHK_REASON_MAX - 1);
    CHECK(v.reason[0] == 'x' && v.reason[1] == 'y' && v.reason[CHK_REASON_MAX - 2] == 'y');
    CHECK(strchr(v.reason, '\t') == NULL);

    /* blame: set after chk_set, deduplicated, in order, capped */
    chk_blame(&v, 7);
    CHECK(v.nblame == 1 && v.blame[0] == 7);
    chk_set(&v, CHK_NO, 3, "again");
    CHECK(v.nblame == 0);
    chk_blame(&v, 5);
    chk_blame(&v, 2);
    chk_blame(&v, 5);
    chk_blame(&v, 0);
    chk_blame(&v, 2);
    CHECK(v.nblame == 3 && v.blame[0] == 5 && v.blame[1] == 2 && v.blame[2] == 0);
    for (size_t k = 100; k < 100 + 2 * CHK_BLAME_MAX; k++) chk_blame(&v, k);
    CHECK(v.nblame == CHK_BLAME_MAX);
    CHECK(v.blame[3] == 100 && v.blame[CHK_BLAME_MAX - 1] == 100 + CHK_BLAME_MAX - 4);
    chk_blame(&v, 5);   /* already there: nothing changes */
    CHECK(v.nblame == CHK_BLAME_MAX && v.blame[0] == 5);
    /* a verdict copied (as checks keep their worst) keeps its blame */
    chk_verdict w = v;
    CHECK(w.nblame == CHK_BLAME_MAX && w.blame[1] == 2);

    printf("test_lint_format: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
