/* Unit test for the TeX tokenizer (grammar/tex.l and its actions in
 * grammar/texexp.c): the tokens of random texts (every byte value, control
 * sequences, comments, runs of spaces and newlines, runs of letters mixed
 * with other characters, which the scanner takes as one match) must be
 * what a byte-by-byte reading of the catcode rules in tex.l's header gives:
 * type, character, name, line and column of every token. */
#include "grammar/texexp.h"
#include "xorshift.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long checks, failures;

static int is_letter(unsigned char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); }
static int is_space(unsigned char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

static void put(toklist *out, int type, int ch, int name, int line, size_t off, size_t lstart)
{
    tex_tok t;
    memset(&t, 0, sizeof t);
    t.type = (unsigned char)type;
    t.ch = ch;
    t.name = name;
    t.line = line;
    t.col = (int)(off - lstart + 1);
    tl_push(out, t);
}

/* the reference: tex.l's rules, one byte at a time */
static void ref_tokenize(tex_ctx *c, const char *s, size_t n, int line, toklist *out)
{
    size_t i = 0, lstart = 0;
    while (i < n) {
        unsigned char ch = (unsigned char)s[i];
        size_t st = i;
        if (ch == '%') {
            while (i < n && s[i] != '\n') i++;
            if (i < n) {
                i++;
                line++;
                lstart = i;
                while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
            }
        } else if (ch == '\\') {
            if (i + 1 == n) { put(out, T_OTHER, '\\', 0, line, st, lstart); i++; continue; }
            unsigned char d = (unsigned char)s[i + 1];
            if (is_letter(d) || d == '@') {
                size_t j = i + 1;
                while (j < n && (is_letter((unsigned char)s[j]) || s[j] == '@')) j++;
                put(out, T_CS, 0, tex_intern(c, s + i + 1, j - i - 1), line, st, lstart);
                while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
                if (j < n && s[j] == '\n') {
                    j++;
                    line++;
                    lstart = j;
                    while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
                }
                i = j;
            } else {
                put(out, T_CS, 0, tex_intern(c, s + i + 1, 1), line, st, lstart);
                i += 2;
                if (d == '\n') { line++; lstart = i; }
            }
        } else if (is_space(ch)) {
            put(out, T_SPACE, ' ', 0, line, st, lstart);
            while (i < n && is_space((unsigned char)s[i])) {
                if (s[i] == '\n') { line++; lstart = i + 1; }
                i++;
            }
        } else {
            int type = ch == '{' ? T_BEGIN : ch == '}' ? T_END : ch == '$' ? T_MATH : ch == '#' ? T_PARAM
                     : ch == '~' ? T_SPACE : is_letter(ch) ? T_LETTER : T_OTHER;
            put(out, type, ch == '~' ? ' ' : ch, 0, line, st, lstart);
            i++;
        }
    }
}

/* names are compared by their text: a name with a NUL byte in it is
 * interned anew every time (tex_intern) */
static int same_name(const tex_ctx *c, int a, int b)
{
    return a == b || strcmp(tex_name(c, a), tex_name(c, b)) == 0;
}

static const char *const pieces[] = {
    "a", "xy", "Zq", " ", "\n", "(", ")", "-", ";", "{", "}", "1", ".5", ",", "=", "\\m", "\\m ",
    "\\foo a", "\\,", "\\\\", "$", "~", "#", "%c\n", "\\", "  \n  ", "1cm", "red!50", "x=1.5pt",
    "\\@x@", "\t", "\r\n", "\\\n", "@", "[a]", "^_", "\\ab \n \t c",
};

int main(void)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    tex_ctx *c = tex_new();
    char buf[600];
    for (unsigned long iter = 0; iter < 40000; iter++) {
        size_t n = 0;
        int k = (int)(xorshift64(&seed) % 60);
        for (int i = 0; i < k; i++) {
            if (xorshift64(&seed) % 5 == 0) {
                buf[n++] = (char)(xorshift64(&seed) % 256);   /* any byte */
            } else {
                const char *p = pieces[xorshift64(&seed) % (sizeof pieces / sizeof *pieces)];
                size_t l = strlen(p);
                if (n + l >= sizeof buf) break;
                memcpy(buf + n, p, l);
                n += l;
            }
        }
        int line = 1 + (int)(xorshift64(&seed) % 4);
        toklist a = { 0 }, r = { 0 };
        tex_tokenize(c, buf, n, line, &a);
        ref_tokenize(c, buf, n, line, &r);
        checks++;
        int same = a.n == r.n;
        for (size_t i = 0; same && i < a.n; i++)
            same = a.v[i].type == r.v[i].type && a.v[i].ch == r.v[i].ch && same_name(c, a.v[i].name, r.v[i].name) &&
                   a.v[i].line == r.v[i].line && a.v[i].col == r.v[i].col;
        if (!same && ++failures < 10) {
            printf("test_texexp_lex: case %lu differs (%zu vs %zu tokens)\n", iter, a.n, r.n);
        }
        tl_free(&a);
        tl_free(&r);
    }
    tex_free(c);
    printf("test_texexp_lex: %ld checks, %ld failures\n", checks, failures);
    return failures != 0;
}
