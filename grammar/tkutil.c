/* tkutil.c — small text helpers the TikZ interpreter's parts share. */
#include "grammar/tikzst.h"
#include "ir/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tk_unbrace(const char **s, size_t *n)
{
    tk_trim(s, n);
    while (*n >= 2 && (*s)[0] == '{' && (*s)[*n - 1] == '}') {
        int depth = 0;
        size_t i;
        for (i = 0; i < *n; i++) {
            if ((*s)[i] == '{') depth++;
            else if ((*s)[i] == '}' && --depth == 0) break;
        }
        if (i != *n - 1) return;
        (*s)++;
        *n -= 2;
        tk_trim(s, n);
    }
}

long tk_find_top(const char *s, size_t n, char ch)
{
    int d = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ch && d == 0) return (long)i;
        if (c == '(' || c == '{' || c == '[') d++;
        else if ((c == ')' || c == '}' || c == ']') && d > 0) d--;
    }
    return -1;
}

/* The old names of ir/xalloc.h's xrealloc and xstrndup, for tikzopt.c,
 * which still calls them; the rest of grammar/ calls ir/xalloc.h. */
void *tk_xrealloc(void *p, size_t n) { return xrealloc(p, n); }
char *tp_strndup(const char *s, size_t n) { return xstrndup(s, n); }
