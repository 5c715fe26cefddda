/* Unit test for grammar/path.l's end sentinel: the byte tp_parse_path puts
 * after a path's text so that the last token does not end at flex's end of
 * buffer. On random texts (with the sentinel's byte inside them too), tplex
 * gives the same tokens, texts, offsets and locations with the sentinel as
 * without it (tp_sentinel_check). */
#include <stdio.h>

long tp_sentinel_check(unsigned long long seed, long iters);

int main(void)
{
    long n = tp_sentinel_check(0x94D049BB133111EBull, 300000);
    if (n < 0) {
        printf("test_path_sentinel: tplex's tokens differ with the end sentinel\n");
        return 1;
    }
    printf("test_path_sentinel: %ld checks, 0 failures\n", n);
    return 0;
}
