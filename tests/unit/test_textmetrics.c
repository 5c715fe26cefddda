/* test_textmetrics.c — grammar/textmetrics against TeX's own numbers.
 *
 * The expected extents below were measured by TeX (pdfLaTeX of TeX Live 2022)
 * typesetting each string in a TikZ node exactly as the raters' IM class
 * does (contrib/tex/IM.cls, the dataset README): 12pt, T1, Open Sans from
 * the opensans package at scale 0.95 (Debian texlive-fonts-extra), math in
 * sans-serif through sansmath and sfmath, every node in \sansmath\sffamily;
 * amsmath, gensymb; a node with inner sep=0, outer sep=0, align=center,
 * anchor=base.  contrib/metrics/tex-rows.sh writes the tex_rows table:
 *
 *   \documentclass{IM}\usepackage{amsmath}\usepackage{gensymb}
 *   \begin{document}
 *   \newdimen\ya \newdimen\yb \newdimen\xa \newdimen\xb
 *   \def\M#1#2{\begin{tikzpicture}\node[inner sep=0,outer sep=0,anchor=base,
 *     align=center] (m) at (0,0) {#2};
 *     \pgfextracty{\ya}{\pgfpointanchor{m}{north}}
 *     \pgfextracty{\yb}{\pgfpointanchor{m}{south}}
 *     \pgfextractx{\xa}{\pgfpointanchor{m}{west}}
 *     \pgfextractx{\xb}{\pgfpointanchor{m}{east}}\advance\xb-\xa
 *     \typeout{R #1 \the\xb\space \the\ya\space \the\yb}\end{tikzpicture}}
 *   \M{1}{A} \M{2}{AB} ...          (one \M per string of the table below)
 *   \end{document}
 *
 * Each row: TeX source, width, north (height above the node's base, i.e. the
 * last line's baseline) and south (minus the depth), all in pt.  The module
 * must agree within 2% (0.05pt for values near zero).  Heights differ from
 * TeX's by up to ~0.13pt: the table has the TTF glyph boxes, the opensans
 * TFMs round heights to TFM's 16 distinct values.
 */
#include "grammar/textmetrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures, checks;

#define CHECK(cond, ...)                                             \
    do {                                                             \
        checks++;                                                    \
        if (!(cond)) {                                               \
            failures++;                                              \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                            \
            fputc('\n', stderr);                                     \
        }                                                            \
    } while (0)

static int close_to(double got, double want)
{
    double tol = 0.02 * (want < 0 ? -want : want);
    if (tol < 0.05) tol = 0.05;
    double d = got - want;
    return d <= tol && d >= -tol;
}

static int finite(double x) { return x == x && x - x == 0; }

static const struct {
    const char *tex;
    double width, north, south;
} tex_rows[] = {
    {"A", 7.21390, 8.26324, 0.00000},
    {"AB", 14.59991, 8.26324, 0.00000},
    {"Hello World", 62.38165, 8.61380, -0.11170},
    {"8 cm", 25.51193, 8.26326, -0.11171},
    {"\\textbf{8 cm}", 26.52426, 8.17433, -0.10600},
    {"\\textit{x-axis}", 28.67084, 8.26326, -0.13680},
    {"base", 25.16083, 8.61380, -0.11170},
    {"height", 33.54318, 8.61380, -2.74966},
    {"12.5", 22.58899, 8.26326, -0.16188},
    {"\\small label", 23.25775, 7.86008, -0.10193},
    {"\\Large A", 10.38800, 11.89908, 0.00000},
    {"\\footnotesize 3 in", 16.13376, 6.88605, -0.09308},
    {"A\\\\B", 7.38602, 22.76324, 0.00000},
    {"Line one\\\\Line two", 45.43219, 22.76326, -0.11171},
    {"\\textbf{Bold} and normal", 90.02194, 8.68106, -0.11170},
    {"$x$", 5.73303, 6.10126, 0.00000},
    {"$A$", 6.32925, 8.15497, 0.00000},
    {"$ABC$", 20.32840, 8.27124, -0.11170},
    {"$\\angle ABC$", 26.93960, 8.27124, -0.11170},
    {"$\\angle ABC = 30^\\circ$", 57.91171, 8.27693, -0.11171},
    {"$30^\\circ$", 17.78705, 8.27693, -0.11171},
    {"$x^2$", 10.57867, 9.87265, 0.00000},
    {"$x_1$", 10.29483, 6.10126, -1.79999},
    {"$x_1^2$", 10.57867, 9.87265, -3.00183},
    {"$\\frac{1}{2}$", 6.74564, 10.16140, -4.13809},
    {"$\\frac{a+b}{2}$", 15.42480, 10.52316, -4.13809},
    {"$\\sqrt{2}$", 16.51852, 11.15842, -1.32153},
    {"$\\sqrt{x+1}$", 34.10330, 11.09741, -1.38254},
    {"$\\overline{AB}$", 13.14755, 10.55487, 0.00000},
    {"$\\overleftrightarrow{AB}$", 14.66687, 12.55746, 0.00000},
    {"$\\overrightarrow{AB}$", 13.14758, 12.55746, 0.00000},
    {"$\\triangle ABC$", 30.99509, 8.33333, -2.33333},
    {"$\\pi r^2$", 16.79553, 9.87265, 0.00000},
    {"$\\theta$", 5.80200, 8.33331, 0.00000},
    {"$2\\pi$", 13.61426, 8.27692, 0.00000},
    {"$\\alpha + \\beta = 90^\\circ$", 57.67230, 8.33331, -2.33331},
    {"$3 \\times 4$", 27.70358, 8.27692, -1.00000},
    {"$a \\cdot b$", 21.68536, 8.69760, -0.11170},
    {"$x = \\frac{-b}{2a}$", 32.31522, 10.52318, -4.21257},
    {"$5\\text{ cm}$", 25.51193, 8.15495, -0.11171},
    {"$\\mathrm{cm}^2$", 20.87741, 9.87265, -0.11170},
    {"$\\sin \\theta$", 23.12122, 8.37726, -0.11170},
    {"$(x, y)$", 23.07391, 8.15495, -2.73827},
    {"$y = mx + b$", 53.09094, 8.69760, -2.73825},
    {"$\\dfrac{1}{2}$", 8.91849, 16.27304, -8.23141},
    {"$A'$", 9.13480, 8.79916, 0.00000},
    {"$\\left( \\frac{1}{2} \\right)$", 17.74570, 10.20004, -4.20007},
    {"$10\\,\\text{cm}$", 31.06870, 8.27693, -0.11171},
    /* without amsmath (the IM class and the dev items do not load it); with
     * it, \vec is class 7 and \sansmath's \fam takes it: north 8.37726 */
    {"$\\vec{v}$", 5.80030, 9.48790, 0.00000},
    {"$\\sqrt[3]{8}$", 16.44449, 11.10257, -1.37738},
    {"$a \\neq b$", 26.20383, 8.69760, -2.33331},
    {"$\\triangle ABC \\cong \\triangle DEF$", 77.83392, 8.94058, -2.33331},
    {"$AB \\parallel CD$", 40.58734, 9.00000, -3.00000},
    {"$AB \\perp CD$", 43.92068, 8.33333, -0.11171},
    {"$m\\angle A = 45^{\\circ}$", 53.85446, 8.15497, -0.11170},
    {"Area $= 12$ cm$^2$", 74.29294, 9.87265, -0.11170},
    {"\\Large $x$", 8.25555, 8.78580, 0.00000},
    {"\\tiny tiny text", 21.51334, 4.13162, -1.37482},
    {"$\\frac{3}{4}$ in", 19.58768, 10.24270, -4.13809},
    {"$x^{2}+y^{2}=r^{2}$", 55.96121, 9.87265, -2.73825},
    {"\\textbf{$A$}", 6.32925, 8.15497, 0.00000},
    {"$\\theta_1$", 10.32129, 8.33331, -1.79999},
    {"$P_1 P_2$", 22.59378, 8.15497, -1.79999},
    {"$\\overline{AB} = 5$", 32.85110, 10.55487, -0.11170},
    {"\\huge B", 15.31369, 17.13248, 0.00000},
    {"A\\\\\\Huge B", 15.31369, 26.39575, 0.00000},
    {"A\\\\[2pt]B", 7.38602, 24.76324, 0.00000},
    {"one\\\\two\\\\three", 28.46564, 35.17877, -0.11170},
    {"$\\frac{\\sqrt{3}}{2}$", 13.82907, 12.21152, -4.13809},
    {"$\\sqrt{\\frac{1}{2}}$", 18.74567, 14.83173, -7.24844},
    {"$\\left(\\frac{\\frac12}{2}\\right)$", 22.39261, 14.20541, -7.80011},
    {"$x^{y^z}$", 13.12952, 10.22867, 0.00000},
    {"$\\sum_{i=1}^n i$", 28.89484, 9.96740, -3.50006},
    {"$\\text{Area} = \\pi r^2$", 54.58398, 9.87265, -0.11170},
    {"\\textbf{Figure 1:} Triangle", 94.45993, 8.68106, -2.74966},
    {"$\\overline{AB}\\cong\\overline{CD}$", 43.92068, 10.67114, -0.50000},
    {"$60\\degree$", 17.78705, 8.27693, -0.11171},
    {"$\\mathbf{v}$", 6.48428, 6.22324, 0.00000},
    {"$\\binom{n}{k}$", 15.38599, 10.20004, -4.20007},
    {"$\\hat{x}$", 5.73303, 8.69760, 0.00000},
    {"$\\widehat{ABC}$", 20.32840, 12.10458, -0.11170},
    {"$a\\,b\\;c\\quad d$", 41.75839, 8.69760, -0.11170},
    {"A~B", 17.56161, 8.26324, 0.00000},
    {"x\\hspace{1cm}y", 40.16959, 6.17877, -2.74966},
    {"\\fbox{A}", 14.01389, 11.66324, -3.40000},
    {"$\\tfrac{1}{2}$", 6.74564, 10.16140, -4.13809},
    {"45\\textdegree", 17.91843, 8.26326, -0.11171},
    {"$f'(x)$", 20.28964, 8.79916, -2.73825},
    {"$x''$", 10.84415, 8.79916, 0.00000},
    {"$\\lim_{x\\to 0} f(x)$", 53.02219, 8.69760, -2.73825},
    {"\\textit{\\textbf{bi}}", 10.42352, 8.68106, -0.10599},
    {"$\\{1, 2, 3\\}$", 41.14370, 9.00000, -3.00000},
    {"$|x - 3| \\le 5$", 56.10324, 9.00000, -3.00000},
    {"$-5$", 15.85184, 8.15494, -1.00000},
    {"$\\sqrt{x^2+y^2}$", 45.07642, 11.34320, -3.53690},
    {"\\small $\\frac{1}{2}$", 6.74564, 9.74799, -3.77600},
    {"$\\frac{1}{2}\\text{ ft}$", 17.59494, 10.16140, -4.13809},
    {"\\scriptsize $x_1$", 7.39203, 4.06750, -1.32190},
    {"$\\displaystyle\\frac{a}{b}$", 8.97891, 14.31910, -8.34312},
    {"$2^{10}$", 15.70981, 9.87265, 0.00000},
    {"$e^{i\\pi}$", 13.30533, 9.93954, -0.11170},
    {"$\\Delta ABC$", 26.69070, 8.27124, -0.11170},
    {"$\\angle 1$", 13.12970, 8.15494, 0.00000},
    {"$x\\%$", 15.11746, 8.27693, -0.11171},
    {"$90^\\circ - \\theta$", 38.25568, 8.33331, -1.00000},
    {"\\textit{f}", 5.00455, 8.66452, -2.74966},
    {"{\\itshape f}", 3.56818, 8.66452, -2.74966},
    {"\\textit{i}", 3.02210, 8.26324, 0.00000},
    {"{\\itshape i}", 2.89444, 8.26324, 0.00000},
    {"\\textit{bi}", 9.60101, 8.66454, -0.13680},
    {"{\\itshape bi}", 9.47333, 8.66454, -0.13680},
    {"\\textbf{\\textit{bi}}", 10.42352, 8.68106, -0.10599},
    {"{\\bfseries\\itshape bi}", 10.16989, 8.68106, -0.10599},
    {"\\textit{A}", 6.32925, 8.26324, 0.00000},
    {"{\\itshape A}", 6.32925, 8.26324, 0.00000},
    {"\\textit{T}", 6.70087, 8.26324, 0.00000},
    {"{\\itshape T}", 5.67715, 8.26324, 0.00000},
    {"\\textit{f}.", 6.60168, 8.66452, -2.74966},
    {"Figure 1: Triangle", 91.73303, 8.61380, -2.74966},
    {"A. B", 20.59512, 8.26326, -0.16188},
    {"a. b", 19.81537, 8.61380, -0.16187},
    {"a) b", 19.66147, 8.61380, -1.78976},
    {"a.) b", 23.18860, 8.61380, -1.78976},
    {"x:  y", 18.20569, 6.17877, -2.74966},
};

/* Rows measured with the node's font given by the caller (font= option). */
static const struct {
    const char *tex;
    double size;
    int bold;
    double width, north, south; /* TeX's numbers for the equivalent row above */
} font_rows[] = {
    {"8 cm", 12, 1, 26.52426, 8.17433, -0.10600},     /* = \textbf{8 cm} */
    {"label", 10.95, 0, 23.25775, 7.86008, -0.10193}, /* = \small label */
    {"A", 17.28, 0, 10.38800, 11.89908, 0.00000},         /* = \Large A */
    {"B", 24.88, 0, 15.31369, 17.13248, 0.00000},         /* = \huge B */
    {"$x$", 17.28, 0, 8.25555, 8.78580, 0.00000},         /* = \Large $x$ */
};

static void test_against_tex(void)
{
    double worst = 0;
    const char *worst_tex = "";
    for (size_t i = 0; i < sizeof tex_rows / sizeof tex_rows[0]; i++) {
        tm_extent e = tm_measure_tex(tex_rows[i].tex, 12, 0);
        double north = e.height + e.skip;
        CHECK(close_to(e.width, tex_rows[i].width), "%s: width %.3f, TeX %.3f", tex_rows[i].tex, e.width,
              tex_rows[i].width);
        CHECK(close_to(north, tex_rows[i].north), "%s: height above base %.3f, TeX %.3f", tex_rows[i].tex,
              north, tex_rows[i].north);
        CHECK(close_to(-e.depth, tex_rows[i].south), "%s: depth %.3f, TeX %.3f", tex_rows[i].tex, e.depth,
              -tex_rows[i].south);
        if (tex_rows[i].width > 0) {
            double rel = (e.width - tex_rows[i].width) / tex_rows[i].width;
            if (rel < 0) rel = -rel;
            if (rel > worst) { worst = rel; worst_tex = tex_rows[i].tex; }
        }
    }
    for (size_t i = 0; i < sizeof font_rows / sizeof font_rows[0]; i++) {
        tm_extent e = tm_measure_tex(font_rows[i].tex, font_rows[i].size, font_rows[i].bold);
        CHECK(close_to(e.width, font_rows[i].width), "%s at %.2fpt: width %.3f, TeX %.3f", font_rows[i].tex,
              font_rows[i].size, e.width, font_rows[i].width);
        CHECK(close_to(e.height + e.skip, font_rows[i].north), "%s: height %.3f, TeX %.3f", font_rows[i].tex,
              e.height + e.skip, font_rows[i].north);
        CHECK(close_to(-e.depth, font_rows[i].south), "%s: depth", font_rows[i].tex);
    }
    printf("textmetrics: %zu strings against TeX, worst width error %.3f%% (%s)\n",
           sizeof tex_rows / sizeof tex_rows[0], 100 * worst, worst_tex);
}

static void test_lines(void)
{
    tm_extent e = tm_measure_tex("A\\\\B", 12, 0);
    CHECK(e.lines == 2, "A\\\\B: %d lines", e.lines);
    CHECK(close_to(e.skip, 14.5), "A\\\\B: skip %.3f (LaTeX's 12pt \\baselineskip is 14.5pt)", e.skip);
    CHECK(close_to(e.height, 8.26324), "A\\\\B: first line height %.3f", e.height);
    e = tm_measure_tex("one\\\\two\\\\three", 12, 0);
    CHECK(e.lines == 3 && close_to(e.skip, 29), "three lines: %d, skip %.3f", e.lines, e.skip);
    /* TikZ typesets a final \\ as an empty row (TeX: north 22.76324pt, and
     * 27.76324pt for A\\[5pt]; \\A: 14.5pt) */
    e = tm_measure_tex("A\\\\", 12, 0);
    CHECK(e.lines == 2 && close_to(e.height + e.skip, 22.76324), "a final \\\\ adds an empty row (%d)", e.lines);
    e = tm_measure_tex("A\\\\[5pt]", 12, 0);
    CHECK(close_to(e.height + e.skip, 27.76324), "A\\\\[5pt]: %.3f", e.height + e.skip);
    e = tm_measure_tex("\\\\A", 12, 0);
    CHECK(e.lines == 2 && close_to(e.height + e.skip, 14.5), "\\\\A: %.3f", e.height + e.skip);
    e = tm_measure_tex("A\\\\\\\\B", 12, 0);
    CHECK(e.lines == 3, "an empty middle line counts (%d)", e.lines);
    e = tm_measure_tex("A\\\\B", 17.28, 0);
    CHECK(close_to(e.skip, 22), "\\Large node: skip %.3f", e.skip);
    e = tm_measure_tex("A\\\\B", 13, 0);
    CHECK(close_to(e.skip, 15.6), "13pt node: skip 1.2*size, got %.3f", e.skip);
    e = tm_measure_tex("A\\newline B", 12, 0);
    CHECK(e.lines == 2, "\\newline: %d lines", e.lines);
    e = tm_measure_tex("", 12, 0);
    CHECK(e.lines == 1 && e.width == 0 && e.height == 0 && e.depth == 0 && e.skip == 0, "empty text");
    e = tm_measure_tex(NULL, 12, 0);
    CHECK(e.lines == 1 && e.width == 0, "NULL text");
    e = tm_measure_tex("  A  ", 12, 0);
    tm_extent a = tm_measure_tex("A", 12, 0);
    CHECK(e.width == a.width, "leading and trailing spaces are dropped, as TikZ does");
    e = tm_measure_tex("A~", 12, 0);
    CHECK(e.width == a.width, "a trailing ~ is dropped");
    e = tm_measure_tex("\\mbox{ A }", 12, 0);
    CHECK(e.width > a.width + 5, "an \\mbox keeps its spaces");
}

static void test_plain(void)
{
    static const struct { const char *tex, *plain; } rows[] = {
        {"$\\angle ABC = 30^\\circ$", "∠ABC = 30°"},
        {"\\textbf{8 cm}", "8 cm"},
        {"$\\frac{1}{2}$", "1/2"},
        {"$x^2$", "x²"},
        {"\\Large A", "A"},
        {"a\\\\b", "a\nb"},
        {"\\\\", ""},
        {"A\\\\[2pt] B", "A\nB"},
        {"$x^{n+1}$", "x^(n+1)"},
        {"$x^{-1}$", "x⁻¹"},
        {"$h_a$", "h_a"},
        {"$h_{12}$", "h₁₂"},
        {"$x^{ab}$", "x^(ab)"},
        {"$P_1$", "P₁"},
        {"$A_B$", "A_B"},
        {"$30^{\\circ}$", "30°"},
        {"$45\\degree$", "45°"},
        {"45\\textdegree", "45°"},
        {"$\\frac{a+b}{2}$", "(a+b)/2"},
        {"$x = \\frac{-b}{2a}$", "x = -b/2a"},
        {"$\\sqrt{2}$", "√2"},
        {"$\\sqrt{x+1}$", "√(x+1)"},
        {"$\\sqrt[3]{8}$", "³√8"},
        {"$\\overline{AB}$", "AB"},
        {"$\\overleftrightarrow{AB}$", "AB"},
        {"$\\triangle ABC \\cong \\triangle DEF$", "△ABC ≅ △DEF"},
        {"$\\alpha + \\beta = 90^\\circ$", "α + β = 90°"},
        {"$3 \\times 4$", "3 × 4"},
        {"$\\pi r^2$", "πr²"},
        {"$\\theta$", "θ"},
        {"$a \\neq b$", "a ≠ b"},
        {"$AB \\parallel CD$", "AB ∥ CD"},
        {"$AB \\perp CD$", "AB ⊥ CD"},
        {"$5\\text{ cm}$", "5 cm"},
        {"$10\\,\\text{cm}$", "10 cm"},
        {"$\\mathrm{cm}^2$", "cm²"},
        {"$\\sin \\theta$", "sin θ"},
        {"$(x, y)$", "(x, y)"},
        {"$\\left( \\frac{1}{2} \\right)$", "(1/2)"},
        {"$A'$", "A′"},
        {"Area $= 12$ cm$^2$", "Area = 12 cm²"},
        {"\\textcolor{red}{hot}", "hot"},
        {"{\\color{blue} B}", "B"},
        {"10--20", "10–20"},
        {"``quoted''", "“quoted”"},
        {"50\\%", "50%"},
        {"A~B", "A B"},
        {"\\(x\\)", "x"},
        {"  spaced   out  ", "spaced out"},
        {"\\unknownmacro{kept}", "kept"},
        {"\\hspace{1cm}x", "x"},
        {"\\'e", "é"},
        {"$\\vec{v}$", "v⃗"},
        {"", ""},
        {"line one\\\\line two", "line one\nline two"},
        {"Scale factor 3 (\\phantom{6 × 9})", "Scale factor 3 ( )"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *p = tm_plain_text(rows[i].tex);
        CHECK(p && strcmp(p, rows[i].plain) == 0, "plain(\"%s\") = \"%s\", want \"%s\"", rows[i].tex,
              p ? p : "(null)", rows[i].plain);
        free(p);
    }
    char *p = tm_plain_text(NULL);
    CHECK(p && *p == 0, "plain(NULL) is \"\"");
    free(p);
}

static void test_font_size(void)
{
    int bold = 0;
    CHECK(tm_font_size("\\Large", 12, &bold) == 17.28 && bold == 0, "\\Large");
    CHECK(tm_font_size("\\small\\bfseries", 12, &bold) == 10.95 && bold == 1, "\\small\\bfseries");
    bold = 1;
    CHECK(tm_font_size("\\sffamily", 12, &bold) == 12 && bold == 1, "no size: base, bold unchanged");
    CHECK(tm_font_size("\\normalfont", 12, &bold) == 12 && bold == 0, "\\normalfont resets bold");
    bold = 0;
    CHECK(tm_font_size("\\ttfamily\\itshape", 12, &bold) == 12 && bold == (TM_FONT_TT | TM_FONT_IT),
          "\\ttfamily\\itshape: tt and italic flags");
    CHECK(tm_font_size("\\sffamily\\upshape\\bfseries", 12, &bold) == 12 && bold == TM_FONT_BOLD,
          "\\sffamily clears tt, \\upshape italic");
    bold = TM_FONT_BOLD;
    CHECK(tm_font_size("\\tt", 12, &bold) == 12 && bold == TM_FONT_TT, "\\tt: \\normalfont\\ttfamily");
    {
        /* ectt1200: 0.514458 x 12pt a character, ectt1095 at \\small */
        tm_extent e = tm_measure_tex("illicit", 12, TM_FONT_TT);
        CHECK(fabs(e.width - 7 * 0.514458 * 12) < 1e-3, "tt width: 7 ectt1200 characters");
        tm_extent v = tm_measure_tex("a\\verb!i i!b", 12, 0);
        tm_extent w = tm_measure_tex("a\\texttt{iii}b", 12, 0);
        CHECK(fabs(v.width - w.width) < 1e-9, "\\verb: every character (the space too) in tt");
        tm_extent d = tm_measure_tex("---", 12, TM_FONT_TT);
        CHECK(fabs(d.width - 2 * 0.514458 * 12) < 1e-3, "tt ---: en-dash ligature and a hyphen");
        char *pl = tm_plain_text("at \\verb!node 1!");
        CHECK(pl && strcmp(pl, "at node 1") == 0, "\\verb plain text");
        free(pl);
    }
    CHECK(tm_font_size("\\fontsize{9}{11}\\selectfont", 12, NULL) == 9, "\\fontsize");
    CHECK(tm_font_size("\\Huge\\bfseries", 12, NULL) == 24.88, "\\Huge");
    CHECK(tm_font_size("\\tiny", 12, NULL) == 6, "\\tiny");
    CHECK(tm_font_size("\\scriptsize", 12, NULL) == 8, "\\scriptsize");
    CHECK(tm_font_size("\\footnotesize", 12, NULL) == 10, "\\footnotesize");
    CHECK(tm_font_size("\\normalsize", 10, NULL) == 12, "\\normalsize");
    CHECK(tm_font_size("\\large", 12, NULL) == 14.4, "\\large");
    CHECK(tm_font_size("\\LARGE", 12, NULL) == 20.74, "\\LARGE");
    CHECK(tm_font_size("\\huge", 12, NULL) == 24.88, "\\huge");
    CHECK(tm_font_size("", 11, NULL) == 11, "empty");
    CHECK(tm_font_size(NULL, 11, NULL) == 11, "NULL");
    CHECK(tm_font_size("\\fontsize{", 11, NULL) == 11, "truncated \\fontsize");
    /* a size switch in the text overrides the node's size */
    tm_extent a = tm_measure_tex("\\Large A", 12, 0), b = tm_measure_tex("A", 17.28, 0);
    CHECK(a.width == b.width && a.height == b.height, "\\Large in the text = a 17.28pt node");
    tm_extent c = tm_measure_tex("\\textbf{8 cm}", 12, 0), d = tm_measure_tex("8 cm", 12, 1);
    CHECK(c.width == d.width, "bold from font= equals \\textbf");
}

static void check_sane(const char *what, const char *tex)
{
    for (int bold = 0; bold < 2; bold++) {
        tm_extent e = tm_measure_tex(tex, 12, bold);
        CHECK(finite(e.width) && finite(e.height) && finite(e.depth) && finite(e.skip) && e.lines >= 1 &&
                  e.height >= 0 && e.depth >= 0 && e.skip >= 0,
              "%s: insane extent %g %g %g %d %g", what, e.width, e.height, e.depth, e.lines, e.skip);
    }
    char *p = tm_plain_text(tex);
    CHECK(p != NULL, "%s: plain text failed", what);
    free(p);
}

static char *repeat(const char *unit, size_t times)
{
    size_t n = strlen(unit);
    char *s = malloc(n * times + 1);
    if (!s) abort();
    for (size_t i = 0; i < times; i++) memcpy(s + i * n, unit, n);
    s[n * times] = 0;
    return s;
}

static void test_malformed(void)
{
    static const char *const bad[] = {
        "{", "}", "{{{", "}}}", "$", "$$", "$x", "x$", "$x^$", "$x_$", "$^$", "$_$", "$'$", "\\", "\\\\",
        "$\\frac$", "$\\frac{1}$", "$\\frac{$", "$\\sqrt[$", "$\\sqrt[3$", "$\\sqrt[]{}$", "$\\left($",
        "$\\right)$", "$\\left(\\right$", "\\left(", "$\\left\\right$", "\\right", "$\\begin{array}$",
        "\\(", "\\)", "\\[x", "\\]", "\\textbf", "\\textbf{", "\\textbf}", "\\hspace{", "\\hspace{-1e99cm}x",
        "\\hspace{99999999999pt}", "\\fontsize{0}{0}\\selectfont x", "\\fontsize{-5}{1}x",
        "\\fontsize{1e400}{1}x", "\\scalebox{}{x}", "\\rule{}{}", "\\kern", "\\kern-", "$x^{y^{z^{w}}}$",
        "$\\sqrt{\\sqrt{\\sqrt{x}}}$", "\\'", "\\'{", "\\c", "\\^{}", "$\\mathrm$", "$\\text$", "$\\text{$x$}$",
        "$\\text{\\frac}$", "\\textsuperscript", "\\colorbox", "\\parbox{}", "\\raisebox", "$\\binom$",
        "\xff\xfe\xfd", "\xe2\x88", "a\xc3", "\xf4\x90\x80\x80", "%", "% comment only", "x % comment\ny",
        "$\\big$", "$\\big($", "$\\Bigg\\{$", "$\\middle|$", "\\\\[", "\\\\[2pt", "\\\\*[1cm]x", "~~~",
        "#1#2", "&&", "^_^", "$\\overset{}{}$", "$\\stackrel$", "$\\operatorname*$", "$\\not$",
        "\\ensuremath", "\\ensuremath{", "$\\displaystyle$", "\\char`\\x", "$\\sum\\int\\prod$",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) check_sane(bad[i], bad[i]);

    /* huge and deeply nested input: must be fast and must not overflow the stack */
    static const char *const units[] = {"{", "}", "$", "$$", "{$", "x^{", "x_", "^", "'", "\\frac", "\\frac{",
                                        "\\sqrt[", "\\left(", "\\right)", "\\\\", "\\textbf{", "$\\text{",
                                        "\\(\\text{", "[", "\\mbox{", "\\left.\\frac{\\sqrt", "%\n", "A ",
                                        "$\\mathrm{\\left(\\overline{", "\\'{\\textit{", "\\fbox{\\scalebox{2}{"};
    clock_t t0 = clock();
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        char *s = repeat(units[i], 200000 / strlen(units[i]) + 1);
        check_sane(units[i], s);
        free(s);
    }
    /* random bytes and random TeX-ish tokens (fixed seed) */
    static const char *const toks[] = {"{", "}", "$", "\\frac", "\\sqrt", "[", "]", "^", "_", "x", "1", " ",
                                       "\\\\", "\\left(", "\\right)", "\\text{", "\\textbf{", "\\Large",
                                       "\\angle", "\\circ", "\\(", "\\)", "'", "~", "%", "\n", "\\", "\\'",
                                       "\\overline{", "\\hspace{", "2cm}", "\xc3\xa9", "\xff"};
    unsigned long r = 12345;
    char buf[4096];
    for (int round = 0; round < 3000; round++) {
        size_t n = 0;
        int ntok = (int)(r % 60);
        for (int k = 0; k < ntok; k++) {
            r = r * 6364136223846793005UL + 1442695040888963407UL;
            const char *t = toks[(r >> 33) % (sizeof toks / sizeof toks[0])];
            size_t l = strlen(t);
            if (n + l >= sizeof buf) break;
            memcpy(buf + n, t, l);
            n += l;
        }
        buf[n] = 0;
        r = r * 6364136223846793005UL + 1442695040888963407UL;
        check_sane("random tokens", buf);
    }
    for (int round = 0; round < 1000; round++) {
        size_t n = 1 + r % 200;
        for (size_t k = 0; k < n; k++) {
            r = r * 6364136223846793005UL + 1442695040888963407UL;
            buf[k] = (char)(1 + (r >> 33) % 255);
        }
        buf[n] = 0;
        check_sane("random bytes", buf);
    }
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(secs < 60, "hostile input took %.1f s", secs);
}

static void test_speed(void)
{
    static const char *const labels[] = {"A", "$x$", "8 cm", "$\\angle ABC = 30^\\circ$", "$\\frac{1}{2}$",
                                         "\\textbf{B}", "$45^\\circ$", "base"};
    int n = 200000;
    double sum = 0;
    clock_t t0 = clock();
    for (int i = 0; i < n; i++) sum += tm_measure_tex(labels[i & 7], 12, 0).width;
    double us = (double)(clock() - t0) / CLOCKS_PER_SEC / n * 1e6;
    printf("textmetrics: %.3f us per label (checksum %.0f)\n", us, sum);
    CHECK(us < 50, "too slow: %.3f us per label", us); /* generous: sanitizers, valgrind */
}

int main(void)
{
    test_against_tex();
    test_lines();
    test_plain();
    test_font_size();
    test_malformed();
    test_speed();
    printf("%d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
