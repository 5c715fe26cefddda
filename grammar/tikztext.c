/* tikztext.c — node text with text width=: the paragraph TikZ typesets in
 * a \begin{minipage}[t]{width} (tikz.code.tex), broken into lines as TeX's
 * line breaker does (Knuth and Plass: total demerits, \pretolerance=100,
 * then LaTeX's minipage \sloppy: \tolerance=9999 and a final pass with
 * \emergencystretch=3em; \linepenalty=10, \adjdemerits=10000), without
 * hyphenation (TeX hyphenates in its second pass: a long word after a
 * long word may be broken there, "con-verts", and not here).
 *
 * The interword glue is what align= makes it: align=left/center/right
 * (text ragged, text centered, text ragged left) set \spaceskip=.3333em
 * and \xspaceskip=.5em (rigid) and stretch the margins by 2em
 * (\rightskip, both sides for center, \leftskip for right; \parfillskip
 * is 0 for center and right, so their last line is judged too); no
 * align= is text ragged too (TikZ's default); flush
 * left/center/right stretch them infinitely; align=justify (and none) keep
 * the font's interword glue (Open Sans through fontspec: stretch 1/2 and
 * shrink 1/3 of the space, extra space 1/3 after a sentence end) and set
 * every line but the last to the width. \\ ends a line (a paragraph in the
 * ragged modes; \hfil\break when justified: the same here).
 *
 * Words are measured with grammar/textmetrics; a word is a run between spaces
 * outside braces and math, so a brace group or a formula never breaks.
 * Size and series switches written as words of their own (\small text)
 * carry on to the following words. */
#include "grammar/interp.h"
#include "ir/xalloc.h"
#include "grammar/textmetrics.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 2000     /* words per line of the source (between \\); more are dropped */
#define INF_BAD 10000

typedef struct {
    const char *s;        /* the word's source */
    size_t n;
    double w;             /* natural width */
    int sf;               /* space factor it leaves */
    size_t ctx;           /* length of the context (switches) before it */
} word;

typedef struct {
    double w, st, sh;     /* a space: width, stretch, shrink */
    double xw, xst, xsh;  /* after a sentence end (space factor >= 2000) */
    double lst, rst;      /* margin stretch (left, right); < 0: infinite */
    int last_fil;         /* the last line ends with \parfillskip 0pt plus 1fil */
    int justify;          /* lines are set to the width (glue set) */
    double emergency;     /* \emergencystretch */
} parstyle;

/* TeX's badness of stretching (or shrinking) t with s, both in pt (TeX
 * works in sp: the same rounding) */
static int badness(double tp, double sp)
{
    long t = (long)(tp * 65536 + 0.5), s = (long)(sp * 65536 + 0.5);
    if (t == 0) return 0;
    if (s <= 0) return INF_BAD;
    long r;
    if (t <= 7230584) r = (t * 297) / s;
    else if (s >= 1663497) r = t / (s / 297);
    else r = t;
    if (r > 1290) return INF_BAD;
    return (int)((r * r * r + 0x20000) / 0x40000);
}

/* the space factor a word leaves (LaTeX's \nonfrenchspacing sfcodes) */
static int word_sf(const char *s, size_t n)
{
    int sf = 1000;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int code = c == '.' || c == '?' || c == '!' ? 3000 : c == ':' ? 2000 : c == ';' ? 1500
                 : c == ',' ? 1250 : (c >= 'A' && c <= 'Z') ? 999
                 : (c == ')' || c == ']' || c == '}' || c == '\'' || c == '$') ? 0 : 1000;
        if (c == '\\') {            /* a control word: no character */
            i++;
            while (i < n && isalpha((unsigned char)s[i])) i++;
            i--;
            continue;
        }
        sf = code == 0 ? sf : code <= 1000 ? code : sf < 1000 ? 1000 : code;
    }
    return sf;
}

/* only control words (\small, \bfseries): a switch, not a word */
static int is_switch(const char *s, size_t n)
{
    size_t i = 0;
    if (n == 0) return 0;
    while (i < n) {
        if (s[i] != '\\' || i + 1 >= n || !isalpha((unsigned char)s[i + 1])) return 0;
        i++;
        while (i < n && isalpha((unsigned char)s[i])) i++;
    }
    return 1;
}

static double measure(const char *ctx, size_t cn, const char *s, size_t n, double fs, int bold)
{
    char *b = xrealloc(NULL, cn + n + 2);
    memcpy(b, ctx, cn);
    b[cn] = ' ';
    memcpy(b + cn + 1, s, n);
    b[cn + n + 1] = 0;
    double w = tm_measure_tex(b, fs, bold).width;
    free(b);
    return w;
}

typedef struct { int pos, fit, pidx, alive; double tot; } active;
typedef struct { int pos, prev; } passive;

static double demerits(int b)
{
    double d = 10 + b;                   /* \linepenalty=10 */
    return d >= 10000 ? 1e8 : d * d;
}

/* Breaks words[0..n) into lines of width W as TeX's line_break does (its
 * active list, fitness classes, artificial demerits in the final pass);
 * brk receives the index after each line's last word (the last is n);
 * returns the number of lines. */
static int break_lines(const word *wd, int n, double W, const parstyle *ps, int *brk)
{
    /* prefix sums: widths of words [0, j), spaces after words [0, j) */
    double *pw = xrealloc(NULL, (size_t)(n + 1) * 4 * sizeof *pw);
    double *sw = pw + n + 1, *sst = sw + n + 1, *ssh = sst + n + 1;
    pw[0] = sw[0] = sst[0] = ssh[0] = 0;
    for (int j = 0; j < n; j++) {
        int x = wd[j].sf >= 2000;
        pw[j + 1] = pw[j] + wd[j].w;
        sw[j + 1] = sw[j] + (x ? ps->xw : ps->w);
        sst[j + 1] = sst[j] + (x ? ps->xst : ps->st);
        ssh[j + 1] = ssh[j] + (x ? ps->xsh : ps->sh);
    }
    size_t cap = (size_t)(n + 1) * 4 + 1;
    active *act = xrealloc(NULL, cap * sizeof *act);
    passive *pas = xrealloc(NULL, cap * sizeof *pas);
    int nl = 0, done = 0;
    for (int pass = 0; pass < 3 && !done; pass++) {
        /* \pretolerance=100; then \tolerance=9999 (\sloppy, which LaTeX's
         * minipage sets) twice, the final pass with \emergencystretch=3em */
        int thr = pass ? 9999 : 100;
        int final = pass == 2;
        int na = 0, np = 0, alive = 1;
        act[na++] = (active){ 0, 2, -1, 1, 0 };
        for (int b = 1; b <= n && alive; b++) {
            double mind[4] = { -1, -1, -1, -1 }, minimum = -1;
            int mina[4] = { 0, 0, 0, 0 };
            for (int r = 0; r < na; r++) {
                if (!act[r].alive) continue;
                int a = act[r].pos;
                double L = pw[b] - pw[a] + (b - a > 1 ? sw[b - 1] - sw[a] : 0);
                double st = b - a > 1 ? sst[b - 1] - sst[a] : 0;
                double sh = b - a > 1 ? ssh[b - 1] - ssh[a] : 0;
                int last = b == n;
                int fil = (last && ps->last_fil) || ps->lst < 0 || ps->rst < 0;
                st += ps->lst + ps->rst;
                if (final) st += ps->emergency;
                int bad, fit;
                if (L <= W) {
                    double t = W - L;
                    if (fil) bad = 0;
                    else if (t > 110.326 && st < 25.383) bad = INF_BAD;  /* TeX's shortcut */
                    else bad = badness(t, st);
                    fit = bad > 99 ? 0 : bad > 12 ? 1 : 2;
                } else {
                    if (L - W > sh + 1e-9) bad = INF_BAD + 1;
                    else bad = badness(L - W, sh);
                    fit = bad > 12 ? 3 : 2;
                }
                int stays, artificial = 0;
                if (bad > INF_BAD || last) {
                    int only = 1;
                    for (int q = 0; q < na && only; q++) if (q != r && act[q].alive) only = 0;
                    if (final && minimum < 0 && only) artificial = 1;
                    else if (bad > thr) { act[r].alive = 0; continue; }
                    stays = 0;
                } else {
                    if (bad > thr) continue;
                    stays = 1;
                }
                double d = 0;
                if (!artificial) {
                    d = demerits(bad);
                    if (abs(fit - act[r].fit) > 1) d += 10000;   /* \adjdemerits */
                }
                else fit = 2;
                d += act[r].tot;
                if (mind[fit] < 0 || d <= mind[fit]) {
                    mind[fit] = d;
                    mina[fit] = r;
                    if (minimum < 0 || d < minimum) minimum = d;
                }
                if (!stays) act[r].alive = 0;
            }
            if (minimum >= 0) {
                minimum += 10000;
                for (int f = 0; f < 4; f++) {
                    if (mind[f] < 0 || mind[f] > minimum) continue;
                    if ((size_t)na >= cap || (size_t)np >= cap) break;
                    pas[np] = (passive){ b, act[mina[f]].pidx };
                    act[na++] = (active){ b, f, np, 1, mind[f] };
                    np++;
                }
            }
            alive = 0;
            for (int r = 0; r < na && !alive; r++) alive = act[r].alive;
        }
        int best = -1;
        for (int r = 0; r < na; r++)
            if (act[r].alive && act[r].pos == n && (best < 0 || act[r].tot < act[best].tot)) best = r;
        if (best < 0) continue;
        done = 1;
        for (int p = act[best].pidx; p >= 0; p = pas[p].prev) brk[nl++] = pas[p].pos;
        for (int a = 0, b = nl - 1; a < b; a++, b--) { int t = brk[a]; brk[a] = brk[b]; brk[b] = t; }
    }
    if (!done) {   /* cannot happen (the final pass always ends); one line per word */
        for (int i = 0; i < n; i++) brk[i] = i + 1;
        nl = n;
    }
    free(pw);
    free(act);
    free(pas);
    return nl;
}

static void buf_add(char **b, size_t *n, size_t *cap, const char *s, size_t k)
{
    if (*n + k + 1 > *cap) {
        *cap = (*n + k + 1) * 2;
        *b = xrealloc(*b, *cap);
    }
    memcpy(*b + *n, s, k);
    *n += k;
    (*b)[*n] = 0;
}

void tk_text_layout(const char *text, double fs, int bold, double W, int align, double em,
                    tk_textbox *out)
{
    memset(out, 0, sizeof *out);
    parstyle ps;
    memset(&ps, 0, sizeof ps);
    ps.emergency = 3 * em;
    if (align == TK_ALIGN_NONE) align = TK_ALIGN_LEFT;   /* TikZ's default: text ragged */
    if (align == TK_ALIGN_JUSTIFY) {
        /* the font's interword glue, measured in the node font */
        double sp = tm_measure_tex("x x", fs, bold).width - tm_measure_tex("xx", fs, bold).width;
        ps.w = sp; ps.st = sp / 2; ps.sh = sp / 3;
        ps.xw = sp + sp / 3; ps.xst = 3 * ps.st; ps.xsh = ps.sh / 3;
        ps.last_fil = 1;
        ps.justify = 1;
    } else {
        double fem = fs * TM_FONT_SCALE;   /* 1em of the node font */
        ps.w = 0.3333 * fem;
        ps.xw = 0.5 * fem;
        int flush = align == TK_ALIGN_FLUSH_LEFT || align == TK_ALIGN_FLUSH_CENTER ||
                    align == TK_ALIGN_FLUSH_RIGHT;
        double m = flush ? -1 : 2 * fem;
        int kind = align == TK_ALIGN_LEFT || align == TK_ALIGN_FLUSH_LEFT ? 0
                 : align == TK_ALIGN_CENTER || align == TK_ALIGN_FLUSH_CENTER ? 1 : 2;
        ps.lst = kind >= 1 ? m : 0;
        ps.rst = kind <= 1 ? m : 0;
        ps.last_fil = kind == 0;
    }
    /* words, with the lines \\ forces */
    size_t len = strlen(text);
    word *wd = xrealloc(NULL, (MAX_WORDS + 1) * sizeof *wd);
    int *brk = xrealloc(NULL, (MAX_WORDS + 1) * sizeof *brk);
    char *ctx = xrealloc(NULL, len + 1);
    size_t cn = 0;
    ctx[0] = 0;
    char *lines = NULL;        /* the broken text, lines joined by \\ */
    size_t ln = 0, lcap = 0;
    buf_add(&lines, &ln, &lcap, "", 0);
    double maxw = 0, x0 = 1e300, x1 = -1e300;
    size_t i = 0;
    int nlines = 0;
    while (i <= len) {
        /* one segment up to a top-level \\ (or the end) */
        int n = 0, depth = 0, math = 0;
        size_t seg_end = i;
        while (seg_end < len) {
            char c = text[seg_end];
            if (c == '\\' && seg_end + 1 < len && text[seg_end + 1] == '\\' && !depth && !math) break;
            if (c == '\\' && seg_end + 1 < len) { seg_end += 2; continue; }
            if (c == '{') depth++;
            else if (c == '}' && depth) depth--;
            else if (c == '$') math = !math;
            seg_end++;
        }
        size_t k = i;
        depth = math = 0;
        while (k < seg_end) {
            while (k < seg_end && isspace((unsigned char)text[k])) k++;
            if (k >= seg_end) break;
            size_t st = k;
            while (k < seg_end) {
                char c = text[k];
                if (isspace((unsigned char)c) && !depth && !math) break;
                if (c == '\\' && k + 1 < seg_end) { k += 2; continue; }
                if (c == '{') depth++;
                else if (c == '}' && depth) depth--;
                else if (c == '$') math = !math;
                k++;
            }
            if (is_switch(text + st, k - st)) {
                /* a switch acts on the words after it */
                memcpy(ctx + cn, text + st, k - st);
                cn += k - st;
                ctx[cn] = 0;
                continue;
            }
            if (n >= MAX_WORDS) { out->dropped++; continue; }
            wd[n].s = text + st;
            wd[n].n = k - st;
            wd[n].ctx = cn;
            wd[n].w = measure(ctx, cn, text + st, k - st, fs, bold);
            wd[n].sf = word_sf(text + st, k - st);
            n++;
        }
        int nl = n ? break_lines(wd, n, W, &ps, brk) : 0;
        int a = 0;
        for (int l = 0; l < (n ? nl : 1); l++) {
            int b = n ? brk[l] : 0;
            double w = 0;
            for (int j = a; j < b; j++) {
                if (j > a) w += wd[j - 1].sf >= 2000 ? ps.xw : ps.w;
                w += wd[j].w;
            }
            int last = l == nl - 1 || !n;
            /* justified lines but the last are set to the width when they
             * have glue (an underfull line of one word stays as it is) */
            if (ps.justify && !last && b - a > 1 && w < W) w = W;
            if (ps.justify && !last && b - a > 1 && w > W) w = W;
            double l0;
            if (w >= W || align == TK_ALIGN_JUSTIFY ||
                align == TK_ALIGN_LEFT || align == TK_ALIGN_FLUSH_LEFT) l0 = 0;
            else if (align == TK_ALIGN_CENTER || align == TK_ALIGN_FLUSH_CENTER) l0 = (W - w) / 2;
            else l0 = W - w;
            if (w > 0) {
                if (l0 < x0) x0 = l0;
                if (l0 + w > x1) x1 = l0 + w;
            }
            if (w > maxw) maxw = w;
            if (nlines++) buf_add(&lines, &ln, &lcap, "\\\\", 2);
            /* the line's source: from its first word to its last */
            if (b > a) {
                const char *s0 = wd[a].s, *s1 = wd[b - 1].s + wd[b - 1].n;
                /* switches met before (in this text) are kept in front */
                if (wd[a].ctx) buf_add(&lines, &ln, &lcap, ctx, wd[a].ctx);
                buf_add(&lines, &ln, &lcap, " ", 1);
                buf_add(&lines, &ln, &lcap, s0, (size_t)(s1 - s0));
            }
            a = b;
        }
        if (seg_end >= len) break;
        i = seg_end + 2;
        /* \\[dim] and \\*: the optional parts are dropped */
        if (i < len && text[i] == '*') i++;
        if (i < len && text[i] == '[') {
            const char *e = memchr(text + i, ']', len - i);
            if (e) i = (size_t)(e - text) + 1;
        }
    }
    out->ex = tm_measure_tex(lines, fs, bold);
    out->x0 = x0 <= x1 ? x0 : 0;
    out->x1 = x0 <= x1 ? x1 : 0;
    out->lines = lines;
    free(ctx);
    free(wd);
    free(brk);
}
