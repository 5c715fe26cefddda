/* Unit tests for grammar/tikzopt.c's option-key table: apply_one looks a key up in the
 * list of the keys with its first byte; a key added to another list would be missed
 * silently, so this checks that every key is in its list, has the right length and is
 * found. */
#include <stdio.h>

int tk_opt_keys_check(void);

int main(void)
{
    if (tk_opt_keys_check() != 0) {
        printf("test_tikzopt.c: the option-key table in grammar/tikzopt.c is wrong: a key "
               "is not in its first byte's list, has a wrong length or is not found\n");
        return 1;
    }
    printf("test_tikzopt: 1 check, 0 failures\n");
    return 0;
}
