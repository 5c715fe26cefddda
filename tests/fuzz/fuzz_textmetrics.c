/* fuzz_textmetrics.c — fuzz harness for the text metrics (grammar/textmetrics.h).
 *
 * Feeds the bytes (as a C string: up to the first NUL) to tm_measure_tex at a
 * size and font flags (bold, italic, typewriter) picked from the input, to
 * tm_plain_text and to tm_font_size, and checks the contract: finite extents
 * with height, depth and skip >= 0 and at least one line; one line more per
 * \\ at most; the same result twice (no hidden state); plain text that is
 * valid UTF-8; a positive finite font size and font flags among TM_FONT_*.
 * A violation aborts. */
#include "grammar/textmetrics.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const char *s)
{
    fprintf(stderr, "fuzz_textmetrics: %s\ninput: %.200s\n", what, s);
    abort();
}

static int finite(double x) { return x == x && x - x == 0; }

static int valid_utf8(const unsigned char *s)
{
    while (*s) {
        unsigned c = *s, n, v;
        if (c < 0x80) { s++; continue; }
        if (c >= 0xC2 && c < 0xE0) { n = 1; v = c & 0x1F; }
        else if (c >= 0xE0 && c < 0xF0) { n = 2; v = c & 0x0F; }
        else if (c >= 0xF0 && c < 0xF5) { n = 3; v = c & 0x07; }
        else return 0;
        for (unsigned i = 1; i <= n; i++) {
            if ((s[i] & 0xC0) != 0x80) return 0;
            v = v << 6 | (s[i] & 0x3F);
        }
        if ((n == 2 && (v < 0x800 || (v >= 0xD800 && v < 0xE000))) || (n == 3 && (v < 0x10000 || v > 0x10FFFF)))
            return 0;
        s += n + 1;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return 0;
    if (size) memcpy(s, data, size);
    s[size] = 0;
    static const double sizes[] = {12, 6, 8, 10, 10.95, 13, 17.28, 24.88, 0, -1};
    double pt = sizes[size ? data[0] % (sizeof sizes / sizeof sizes[0]) : 0];
    int bold = size > 1 ? data[1] & (TM_FONT_BOLD | TM_FONT_IT | TM_FONT_TT) : 0; /* font flags */

    tm_extent e = tm_measure_tex(s, pt, bold);
    if (!finite(e.width) || !finite(e.height) || !finite(e.depth) || !finite(e.skip))
        die("extent not finite", s);
    if (e.height < 0 || e.depth < 0 || e.skip < 0 || e.lines < 1) die("negative extent or no line", s);
    size_t breaks = 0;
    for (const char *p = s; (p = strchr(p, '\\')) != NULL; p++) breaks++;
    if ((size_t)e.lines > breaks + 1) die("more lines than line breaks", s);
    tm_extent e2 = tm_measure_tex(s, pt, bold);
    if (e.width != e2.width || e.height != e2.height || e.depth != e2.depth || e.lines != e2.lines ||
        e.skip != e2.skip)
        die("not deterministic", s);

    char *plain = tm_plain_text(s);
    if (!plain) die("tm_plain_text returned NULL", s);
    if (!valid_utf8((const unsigned char *)plain)) die("plain text is not valid UTF-8", s);
    char *plain2 = tm_plain_text(s);
    if (!plain2 || strcmp(plain, plain2) != 0) die("plain text not deterministic", s);
    free(plain);
    free(plain2);

    int b = 7;
    double fs = tm_font_size(s, 12, &b);
    if (!finite(fs) || fs <= 0) die("font size not positive", s);
    if (b & ~(TM_FONT_BOLD | TM_FONT_IT | TM_FONT_TT)) die("font flags outside TM_FONT_*", s);
    free(s);
    return 0;
}
