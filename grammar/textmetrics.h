/* textmetrics.h — the size of TikZ node text, as TeX would typeset it.
 *
 * This header is the whole contract of the text-metrics module. The model is
 * the IM document class of the DiagramIR sources as the raters saw it (the
 * dataset README; contrib/tex/IM.cls): 12pt, text in Open Sans (Regular,
 * Bold, Italic, Bold Italic) through \usepackage[scale=0.95]{opensans}, so
 * every text glyph, interword space and em is TM_FONT_SCALE x the nominal
 * size while \baselineskip stays the nominal size's; math in sans-serif as
 * sfmath and sansmath set it in \sansmath nodes: letters and capital Greek
 * in Open Sans Italic (with its italic corrections), digits, + = ( ) [ ] ,
 * . ; : ! ? \mathrm and operator names in Open Sans Regular (\mathbf: Bold),
 * all at TM_FONT_SCALE x the math size; lowercase Greek, < > / in cmmi,
 * - * | and the other symbols in cmsy, fractions, radicals and scripts with
 * TeX's rules and the CM fonts' parameters (LaTeX's design sizes and math
 * sizes); text in a TikZ node with `align=` (lines stacked in an
 * \halign whose baseline is the LAST line's baseline).  The font tables are
 * generated (grammar/textmetrics_table.c, contrib/metrics/regen.sh).
 *
 * All functions are pure, thread-safe, never crash or loop on any input
 * (unbalanced braces, a lone $, unknown macros, NUL-free text of any length)
 * and take time linear in the input.
 */
#ifndef DIAGRAMIR_TEXTMETRICS_H
#define DIAGRAMIR_TEXTMETRICS_H

/* Extent of a node's text, in pt.
 *   width   widest line (natural width, no inner sep)
 *   height  height of the first line above the first line's baseline
 *   depth   depth of the last line below the last line's baseline
 *   lines   number of lines (>= 1; each \\ starts one, also at the end: TikZ
 *           typesets "A\\" as two rows, the second empty)
 *   skip    distance from the first line's baseline down to the last one's
 *           (0 for one line): TeX's interline glue, the node font's
 *           \baselineskip (14.5pt at 12pt), or previous depth + next height
 *           + 1pt where lines would touch, plus any \\[dim]
 * The TikZ text box (anchor `base` = the last line's baseline) therefore
 * reaches from base - depth up to base + skip + height; its total height is
 * height + skip + depth. */
/* The opensans package's scale: the text font is loaded at this fraction of
 * the nominal size (\fontsize{12}{14.5} gives 11.4pt glyphs, 1em = 11.4pt). */
#define TM_FONT_SCALE 0.95

typedef struct {
    double width, height, depth;
    int lines;
    double skip;
} tm_extent;

/* Measures TeX node text as TeX would typeset it at size_pt (the node's font
 * size; its baselineskip is LaTeX's for the standard sizes, 1.2*size_pt for
 * others).  Handles text (OpenSans glyph advances and bounding boxes at TM_FONT_SCALE, TeX
 * ligatures -- --- `` '', \% \& ~ etc., \textbf \textit \emph \mbox
 * \textcolor, \bfseries \itshape, size switches \tiny..\Huge and \fontsize,
 * braces as groups, spacing \, \; \quad \hspace), math $...$ \(...\) \[...\]
 * (sans-serif letters with italic corrections, atom spacing, ^ and _ in script
 * sizes placed as TeX does, \frac \dfrac \sqrt \overline \overleftrightarrow
 * \vec \hat, \text \mathrm \mathbf \operatorname \sin.., Greek, \angle
 * \triangle \circ \degree \cdot \times \pm \le \ne \approx \cong \parallel
 * \perp ..), and \\ line breaks.  Unknown macros are skipped (their brace
 * arguments are typeset; a character OpenSans lacks measures as an "o").
 * font: the node's font from its font= option, TM_FONT_* flags (0: the
 * class's Open Sans, upright, medium): bold, italic, and TM_FONT_TT, the
 * typewriter font \ttfamily selects under the IM class (T1 encoding): the
 * EC font ectt at the design size t1cmtt.fd chooses for the nearest LaTeX
 * size, NOT scaled by opensans' 0.95 (ectt1200 at 12pt: 6.17pt a
 * character); \texttt, \tt and \verb|..| select it too, \sffamily,
 * \textsf, \normalfont go back to Open Sans (\rmfamily, whose EC Roman the
 * model lacks, is measured as Open Sans).
 * A NULL or empty text gives width 0, height 0, depth 0, lines 1; a size_pt
 * outside (0, 16384) is taken as 12.  Leading and trailing spaces of the
 * node text and of each line are dropped (as TikZ does); sentence-ending
 * punctuation widens the following space and \textit{..} ends with an italic
 * correction, as in LaTeX.  Typical labels take well under a microsecond. */
#define TM_FONT_BOLD 1
#define TM_FONT_IT 2
#define TM_FONT_TT 4
tm_extent tm_measure_tex(const char *tex, double size_pt, int font);

/* TeX source to readable plain text (UTF-8); the caller frees the result
 * (NULL only when out of memory; NULL tex gives "").
 *   "$\angle ABC = 30^\circ$" -> "∠ABC = 30°"   "\textbf{8 cm}" -> "8 cm"
 *   "$\frac{1}{2}$" -> "1/2"   "$\frac{a+b}{2}$" -> "(a+b)/2"   "$\sqrt{2}$" -> "√2"
 *   "$x^2$" -> "x²"   "$x^{-1}$" -> "x⁻¹"   "$x^{n+1}$" -> "x^(n+1)"   "$P_1$" -> "P₁"
 *   "$h_a$" -> "h_a"
 *   "\Large A" -> "A"   "a\\b" -> "a\nb"   "\textcolor{red}{x}" -> "x"
 * Runs of white space collapse to one space; lines are trimmed; in math,
 * spaces are kept beside relations, operators and punctuation only.  Invalid
 * UTF-8 bytes become U+FFFD: the result is always valid UTF-8. */
char *tm_plain_text(const char *tex);

/* Font size in pt selected by a TikZ font= value or a size command:
 * "\Large" -> 17.28, "\small\bfseries" -> 10.95, "\fontsize{9}{11}\selectfont"
 * -> 9, or base_pt when it selects no size.  When font is not NULL, the
 * switches in the value update its TM_FONT_* flags in order: \bfseries, \bf,
 * \textbf, \fontseries{b} set TM_FONT_BOLD, \mdseries clears it; \itshape,
 * \slshape, \fontshape{it} set TM_FONT_IT, \upshape clears it, \em flips
 * it; \ttfamily sets TM_FONT_TT, \sffamily and \rmfamily clear it;
 * \normalfont clears all, \tt is \normalfont\ttfamily.  A flag no switch
 * names is left as it was. */
double tm_font_size(const char *font_option, double base_pt, int *font);

#ifdef TM_TABLE_INTERNAL
/* Internal: the layout of the generated tables in grammar/textmetrics_table.c.
 * Not part of the API. */
typedef struct {
    unsigned cp;            /* Unicode code point */
    float adv, top, bot;    /* advance; glyph bbox yMax, yMin; em */
    float right;            /* glyph bbox xMax (italic correction: right - adv) */
} tm_glyph;
typedef struct {
    const char *name;
    float ascender, descender, cap_height, x_height; /* em */
    const tm_glyph *glyphs; /* [0..255] indexed by code point (adv 0: none),
                               then extra code points in ascending order */
    int nglyphs;
} tm_text_font;
typedef struct {
    float w, h, d, ic;      /* units of the design size */
    short next;             /* charlist successor (larger variant), -1: none */
    unsigned char exists;
} tm_cm_char;
typedef struct {
    unsigned char a, b;     /* kern between a and b, sorted by a */
    float k;
} tm_kern;
typedef struct {
    const char *name;       /* "cmmi10" */
    float design;           /* design size, pt */
    tm_cm_char ch[128];
    float param[23];        /* TFM parameters 1..22 (units of design size) */
    const tm_kern *kerns;
    int nkerns;
} tm_cm_font;
extern const tm_text_font tm_text_fonts[4]; /* Regular, Bold, Italic, BoldItalic */
extern const tm_cm_font *const tm_cm_fonts[];  /* all of the below */
extern const int tm_cm_nfonts;
/* The TFM files contrib/metrics/regen.sh reads (keep the two lists equal). */
#define TM_CM_FONTS(X) \
    X(cmmi5) X(cmmi6) X(cmmi7) X(cmmi8) X(cmmi9) X(cmmi10) X(cmmi12) \
    X(cmr5) X(cmr6) X(cmr7) X(cmr8) X(cmr9) X(cmr10) X(cmr12) X(cmr17) \
    X(cmsy5) X(cmsy6) X(cmsy7) X(cmsy8) X(cmsy9) X(cmsy10) \
    X(cmbx5) X(cmbx6) X(cmbx7) X(cmbx8) X(cmbx9) X(cmbx10) X(cmbx12) \
    X(cmex7) X(cmex8) X(cmex9) X(cmex10) \
    X(ectt0800) X(ectt0900) X(ectt1000) X(ectt1095) X(ectt1200) X(ectt1440) \
    X(ectt1728) X(ectt2074) X(ectt2488)
#define TM_CM_DECLARE(n) extern const tm_cm_font tm_cm_##n;
TM_CM_FONTS(TM_CM_DECLARE)
#undef TM_CM_DECLARE
#endif

#endif
