/* Unit test for grammar/tikzpath.c's has_let, the scan that tells a path
 * without "let" (16 positions at a step with SSE2): on random texts it says
 * what strstr(text, "let") says (tk_haslet_check). */
#include <stdio.h>

long tk_haslet_check(unsigned long long seed, long iters);

int main(void)
{
    long n = tk_haslet_check(0x2545F4914F6CDD1Dull, 200000);
    if (n < 0) {
        printf("test_path_let: has_let differs from strstr\n");
        return 1;
    }
    printf("test_path_let: %ld checks, 0 failures\n", n);
    return 0;
}
