/* Unit tests for grammar/tikzopt.c's option-key table: apply_one finds a key by a binary
 * search over a table sorted by the keys' bytes; a key added out of order would be missed
 * silently, so this checks the order and that every key is found. */
#include <stdio.h>

int tk_opt_keys_check(void);

int main(void)
{
    if (tk_opt_keys_check() != 0) {
        printf("test_tikzopt.c: the option-key table in grammar/tikzopt.c is not sorted "
               "(strcmp order) or a key is not found\n");
        return 1;
    }
    printf("test_tikzopt: 1 check, 0 failures\n");
    return 0;
}
