/* textmetrics.c — the size of TikZ node text, as TeX would typeset it.
 *
 * A small model of TeX's typesetting, just deep enough for diagram labels:
 *  - text: OpenSans advance widths and glyph bounding boxes (as the opensans
 *    package's TFMs have them), loaded at TM_FONT_SCALE x the nominal size,
 *    TeX ligatures, interword spaces, font switches;
 *  - math in sans-serif (sfmath, sansmath): letters, capital Greek, digits
 *    and the operators' characters from OpenSans, the rest from CM;
 *  - math: the noad-to-hlist rules of TeX's Appendix G for the constructs
 *    that occur in labels (characters with italic corrections and kerns,
 *    atom spacing, rule 18 scripts, rule 15 fractions, rule 11 radicals,
 *    rule 9 overlines, rule 12 accents, rule 19 \left..\right), with LaTeX's
 *    font selection (design sizes of the .fd files, \DeclareMathSizes,
 *    amsmath's scaled cmex);
 *  - lines: TikZ's align= \halign, baseline on the last line, interline glue.
 * Font tables: grammar/textmetrics_table.c (generated, contrib/metrics/regen.sh).
 *
 * Robustness: every loop consumes input or returns; nesting deeper than
 * MAXDEPTH is flattened (groups skipped without recursion); look-ahead for
 * optional arguments is bounded.  No allocation in tm_measure_tex.
 */
#define TM_TABLE_INTERNAL
#include "grammar/textmetrics.h"

#include <stdlib.h>
#include <string.h>

#define MAXDEPTH 40

static double dmax(double a, double b) { return a > b ? a : b; }
static double dmin(double a, double b) { return a < b ? a : b; }

typedef struct { double w, h, d; } box;

static const box nullbox = {0, 0, 0};

/* ---- character classes ------------------------------------------------ */

static int is_letter(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* Decodes one UTF-8 sequence at s (s[0] != 0); returns its length. Invalid
 * bytes decode to U+FFFD, one byte each. */
static int utf8_decode(const char *s, unsigned *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] < 0x80) { *cp = u[0]; return 1; }
    int n = u[0] >= 0xF5 ? 0 : u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : u[0] >= 0xC2 ? 2 : 0;
    if (n == 0) { *cp = 0xFFFD; return 1; }
    unsigned v = u[0] & (0x7F >> n);
    for (int i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80) { *cp = 0xFFFD; return 1; }
        v = v << 6 | (u[i] & 0x3F);
    }
    if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF)) || (v >= 0xD800 && v < 0xE000)) {
        *cp = 0xFFFD;
        return 1;
    }
    *cp = v;
    return n;
}

/* ---- text fonts ---------------------------------------------------------- */

static const tm_glyph *text_glyph(int bold, int it, unsigned cp)
{
    const tm_text_font *f = &tm_text_fonts[(bold ? 1 : 0) + (it ? 2 : 0)];
    if (cp < 256) return f->glyphs[cp].adv > 0 ? &f->glyphs[cp] : NULL;
    int lo = 256, hi = f->nglyphs - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (f->glyphs[mid].cp == cp) return &f->glyphs[mid];
        if (f->glyphs[mid].cp < cp) lo = mid + 1; else hi = mid - 1;
    }
    return NULL;
}

/* Box of one text glyph at the nominal size (the font is loaded at
 * TM_FONT_SCALE x size); a code point the font lacks measures as 'o'. */
static box glyph_box(int bold, int it, unsigned cp, double size)
{
    const tm_glyph *g = text_glyph(bold, it, cp);
    if (!g) g = text_glyph(bold, it, 'o');
    size *= TM_FONT_SCALE;
    box b = {g->adv * size, dmax(0, g->top * size), dmax(0, -g->bot * size)};
    return b;
}

/* ---- the typewriter font ------------------------------------------------ */

/* \ttfamily under the IM class (T1 encoding, opensans changes no \ttdefault):
 * the EC typewriter font, at the design file t1cmtt.fd chooses for each of
 * the 12 LaTeX sizes (5..8pt: ectt0800 scaled), not scaled by opensans. */
static const tm_cm_font *const tt_fonts[] = {
    &tm_cm_ectt0800, &tm_cm_ectt0800, &tm_cm_ectt0800, &tm_cm_ectt0800, &tm_cm_ectt0900, &tm_cm_ectt1000,
    &tm_cm_ectt1095, &tm_cm_ectt1200, &tm_cm_ectt1440, &tm_cm_ectt1728, &tm_cm_ectt2074, &tm_cm_ectt2488};

/* The T1 slot of a code point in ectt: ASCII as is, the ligatures' and
 * quotes' slots; a character outside them measures as 'o' (all of ectt's
 * characters have the same width). */
static int tt_slot(unsigned cp)
{
    if (cp > 32 && cp < 127) return (int)cp;
    switch (cp) {
    case 0x2013: return 0x15;
    case 0x2014: return 0x16;
    case 0x201C: return 0x10;
    case 0x201D: return 0x11;
    case 0x2018: return '`';
    case 0x2019: return '\'';
    default: return 'o';
    }
}

/* the opensans TFMs' extra space (fontdimen 7), em */
#define OS_EXTRA_SPACE 0.0433

static double text_space(int bold, int it, double size)
{
    return tm_text_fonts[(bold ? 1 : 0) + (it ? 2 : 0)].glyphs[' '].adv * size * TM_FONT_SCALE;
}

/* ---- LaTeX sizes ---------------------------------------------------------- */

static const double latex_sizes[] = {5, 6, 7, 8, 9, 10, 10.95, 12, 14.4, 17.28, 20.74, 24.88};
#define NSIZES 12

/* Index of the LaTeX size nearest to s (NFSS substitutes the nearest). */
static int size_index(double s)
{
    int lo = 0, hi = NSIZES - 1;
    if (!(s > latex_sizes[0])) return 0; /* also NaN */
    if (s >= latex_sizes[hi]) return hi;
    while (hi - lo > 1) { /* latex_sizes[lo] < s <= latex_sizes[hi] */
        int mid = (lo + hi) / 2;
        if (latex_sizes[mid] < s) lo = mid; else hi = mid;
    }
    return s - latex_sizes[lo] < latex_sizes[hi] - s ? lo : hi;
}

/* \baselineskip of the 12pt class's size commands; 1.2 * size otherwise. */
static double baselineskip(double s)
{
    static const struct { double size, skip; } t[] = {
        {6, 7}, {8, 9.5}, {10, 12}, {10.95, 13.6}, {12, 14.5}, {14.4, 18}, {17.28, 22}, {20.74, 25}, {24.88, 30}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (s > t[i].size - 0.005 && s < t[i].size + 0.005) return t[i].skip;
    return 1.2 * s;
}

/* The typewriter font of a size: the ectt file and the size it is loaded at
 * (NFSS substitutes the nearest of t1cmtt.fd's sizes). */
static const tm_cm_font *tt_font(double size, double *sz)
{
    int si = size_index(size);
    *sz = latex_sizes[si];
    return tt_fonts[si];
}

/* ---- Computer Modern math fonts ------------------------------------------- */

enum { FAM_MI, FAM_RM, FAM_SY, FAM_BX, FAM_EX, NFAM, FAM_TEXT = NFAM };

/* The design file LaTeX's .fd files choose at each of the 12 LaTeX sizes
 * (cmex: as amsmath declares it). */
static const tm_cm_font *const fd_fonts[NFAM][NSIZES] = {
    {&tm_cm_cmmi5, &tm_cm_cmmi6, &tm_cm_cmmi7, &tm_cm_cmmi8, &tm_cm_cmmi9, &tm_cm_cmmi10,
     &tm_cm_cmmi10, &tm_cm_cmmi12, &tm_cm_cmmi12, &tm_cm_cmmi12, &tm_cm_cmmi12, &tm_cm_cmmi12},
    {&tm_cm_cmr5, &tm_cm_cmr6, &tm_cm_cmr7, &tm_cm_cmr8, &tm_cm_cmr9, &tm_cm_cmr10,
     &tm_cm_cmr10, &tm_cm_cmr12, &tm_cm_cmr12, &tm_cm_cmr17, &tm_cm_cmr17, &tm_cm_cmr17},
    {&tm_cm_cmsy5, &tm_cm_cmsy6, &tm_cm_cmsy7, &tm_cm_cmsy8, &tm_cm_cmsy9, &tm_cm_cmsy10,
     &tm_cm_cmsy10, &tm_cm_cmsy10, &tm_cm_cmsy10, &tm_cm_cmsy10, &tm_cm_cmsy10, &tm_cm_cmsy10},
    {&tm_cm_cmbx5, &tm_cm_cmbx6, &tm_cm_cmbx7, &tm_cm_cmbx8, &tm_cm_cmbx9, &tm_cm_cmbx10,
     &tm_cm_cmbx10, &tm_cm_cmbx12, &tm_cm_cmbx12, &tm_cm_cmbx12, &tm_cm_cmbx12, &tm_cm_cmbx12},
    {&tm_cm_cmex7, &tm_cm_cmex7, &tm_cm_cmex7, &tm_cm_cmex8, &tm_cm_cmex9, &tm_cm_cmex10,
     &tm_cm_cmex10, &tm_cm_cmex10, &tm_cm_cmex10, &tm_cm_cmex10, &tm_cm_cmex10, &tm_cm_cmex10},
};

/* The fonts of one math size (text, script or scriptscript). */
typedef struct {
    double size;  /* nominal size (text inside math uses it) */
    double sz;    /* the LaTeX size the CM fonts are loaded at */
    const tm_cm_font *f[NFAM];
} msize;

static void msize_init(msize *m, double size)
{
    int si = size_index(size);
    m->size = size;
    m->sz = latex_sizes[si];
    for (int f = 0; f < NFAM; f++) m->f[f] = fd_fonts[f][si];
}

/* \DeclareMathSizes of fontmath.ltx; other sizes: 0.7 and 0.5. */
static void math_sizes(double t, double *s, double *ss)
{
    static const double tab[][3] = {{5, 5, 5}, {6, 5, 5}, {7, 5, 5}, {8, 6, 5}, {9, 6, 5}, {10, 7, 5},
                                    {10.95, 8, 6}, {12, 8, 6}, {14.4, 10, 7}, {17.28, 12, 10},
                                    {20.74, 14.4, 12}, {24.88, 20.74, 17.28}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (t > tab[i][0] - 0.005 && t < tab[i][0] + 0.005) { *s = tab[i][1]; *ss = tab[i][2]; return; }
    *s = 0.7 * t;
    *ss = 0.5 * t;
}

static double sy_param(const msize *m, int i) { return m->f[FAM_SY]->param[i] * m->sz; }
static double rule_thickness(const msize *m) { return m->f[FAM_EX]->param[8] * m->sz; }

static box cm_char_box(const msize *m, int fam, int ch, double *ic)
{
    const tm_cm_char *c = &m->f[fam]->ch[ch & 127];
    box b = {c->w * m->sz, dmax(0, c->h * m->sz), dmax(0, c->d * m->sz)};
    if (ic) *ic = c->ic * m->sz;
    return b;
}

static double cm_kern(const tm_cm_font *f, int a, int b)
{
    int lo = 0, hi = f->nkerns - 1, first = -1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (f->kerns[mid].a < a) lo = mid + 1;
        else { if (f->kerns[mid].a == a) first = mid; hi = mid - 1; }
    }
    if (first < 0) return 0;
    for (int i = first; i < f->nkerns && f->kerns[i].a == a; i++)
        if (f->kerns[i].b == b) return f->kerns[i].k;
    return 0;
}

/* ---- macro table -------------------------------------------------------- */

enum {
    K_MSYM = 1,   /* math char fam/ch/cls (fam FAM_TEXT: OpenSans glyph ch) */
    K_TSYM,       /* text glyph ch; in math the char val (fam, cls) if fam */
    K_SIZE,       /* val: size in pt */
    K_SERIES,     /* ch: 1 bold, 0 medium */
    K_SHAPE,      /* ch: 1 italic, 0 upright */
    K_NORMALFONT,
    K_EMSWITCH,   /* \em */
    K_TEXTARG,    /* \textbf..: ch TA_* flags; the argument in text mode */
    K_MATHFONT,   /* \mathrm..: ch alphabet */
    K_SPACE,      /* text: val em; math: val2 mu, or val em if val2 is 0 */
    K_INTERWORD,  /* "\ ", \space */
    K_LINEBREAK,
    K_HSPACE,     /* {dim} */
    K_KERN,       /* \kern, \hskip: a dimension without braces */
    K_SKIPARG,    /* ch: brace arguments skipped (after an optional [..]) */
    K_SKIP1THEN,  /* \textcolor{c}{x}: skip one, typeset the next */
    K_IGNORE,
    K_FRAC,       /* ch: 0 current style, 1 display, 2 text */
    K_BINOM,
    K_SQRT,
    K_OVERLINE,
    K_UNDERLINE,
    K_OVERARROW,  /* ch: 1 left, 2 right, 3 both */
    K_ACCENT,     /* fam ch: math accent; val: combining code point */
    K_WIDEACCENT, /* ch: first cmex char */
    K_OPNAME,     /* plain: the operator's letters */
    K_OPERATORNAME,
    K_BIGOP,      /* ch: text-style cmex char, val2: display char */
    K_MSTYLE,     /* ch: style */
    K_LEFT,
    K_RIGHT,
    K_MIDDLE,
    K_BIG,        /* val: multiple of amsmath's \big@size */
    K_ANGLE,
    K_CONG,
    K_NOTREL,     /* \neq: fam ch of the relation */
    K_DEGREE,
    K_ENSUREMATH,
    K_PHANTOM,    /* ch: 1 box, 2 width only, 3 height only */
    K_SMASH,
    K_FONTSIZE,
    K_FBOX,       /* ch: 0 \fbox, 1 \colorbox */
    K_SCALEBOX,
    K_RULE,
    K_MAKEBOX,
    K_PARBOX,
    K_RAISEBOX,
    K_TEXTSCRIPT, /* ch: 1 super, 2 sub */
    K_DOTS,       /* ch: 0 \ldots, 1 \cdots */
    K_STRUT,      /* ch: 0 \strut, 1 \mathstrut */
    K_NOT,
    K_FONTSERIES,
    K_FONTSHAPE,
    K_MATHCLASS,  /* \mathrel{..} etc.: ch class */
    K_STACK,      /* \overset, \underset, \stackrel: ch 1 over, 2 under */
    K_FAMILY,     /* ch: 1 \ttfamily, 0 \sffamily (\rmfamily: measured as it) */
    K_VERB,       /* \verb|..|: the characters in the typewriter font */
};

enum { TA_BOLD = 1, TA_IT = 2, TA_EMPH = 4, TA_MD = 8, TA_UP = 16, TA_NORMAL = 32, TA_MATHSIZE = 64, TA_BOX = 128,
       TA_TT = 256, TA_SF = 512 };
enum { MA_NONE, MA_RM, MA_BF, MA_IT, MA_CAL };
enum { C_ORD, C_OP, C_BIN, C_REL, C_OPEN, C_CLOSE, C_PUNCT, C_INNER };

typedef struct {
    const char *name;
    unsigned char kind, fam, cls;
    unsigned short ch;
    double val, val2;
    const char *plain;
} mdef;

#define MS(n, f, c, cl, p) {n, K_MSYM, f, cl, c, 0, 0, p}
#define MI(n, c, p) MS(n, FAM_MI, c, C_ORD, p)
#define MR(n, c, p) MS(n, FAM_RM, c, C_ORD, p)
#define SYO(n, c, p) MS(n, FAM_SY, c, C_ORD, p)
#define SYB(n, c, p) MS(n, FAM_SY, c, C_BIN, p)
#define SYR(n, c, p) MS(n, FAM_SY, c, C_REL, p)
#define TX(n, c, p) MS(n, FAM_TEXT, c, C_ORD, p)
#define TS(n, cp, p) {n, K_TSYM, 0, 0, cp, 0, 0, p}
#define TSM(n, cp, f, c, cl, p) {n, K_TSYM, f, cl, cp, c, 0, p}
#define KD(n, k) {n, k, 0, 0, 0, 0, 0, NULL}
#define KC(n, k, c) {n, k, 0, 0, c, 0, 0, NULL}
#define KCP(n, k, c, p) {n, k, 0, 0, c, 0, 0, p}
#define KV(n, k, v) {n, k, 0, 0, 0, v, 0, NULL}
#define SP(n, em, mu, p) {n, K_SPACE, 0, 0, 0, em, mu, p}
#define OPN(n) {n, K_OPNAME, 0, C_OP, 0, 0, 0, n}
#define ACC(n, f, c, comb) {n, K_ACCENT, f, 0, c, comb, 0, ""}
#define BIG(n, v) {n, K_BIG, 0, 0, 0, v, 0, ""}

/* Sorted by name in byte order (LC_ALL=C sort); lookup is a binary search. */
static const mdef macros[] = {
    KD(" ", K_INTERWORD),
    SP("!", -0.16667, -3, ""),
    ACC("\"", FAM_RM, 0x7F, 0x308),
    TSM("#", '#', FAM_RM, '#', C_ORD, "#"),
    TSM("$", '$', FAM_RM, '$', C_ORD, "$"),
    TSM("%", '%', FAM_RM, '%', C_ORD, "%"),
    TSM("&", '&', FAM_RM, '&', C_ORD, "&"),
    ACC("'", FAM_RM, 0x13, 0x301),
    SP(",", 0.16667, 3, " "),
    KD("-", K_IGNORE),
    ACC(".", FAM_RM, 0x5F, 0x307),
    KD("/", K_IGNORE),
    SP(":", 0.2222, 4, " "),
    SP(";", 0.2777, 5, " "),
    ACC("=", FAM_RM, 0x16, 0x304),
    SP(">", 0.2222, 4, " "),
    TX("AA", 0xC5, "Å"),
    TX("AE", 0xC6, "Æ"),
    BIG("Big", 1.5),
    BIG("Bigg", 2.5),
    BIG("Biggl", 2.5),
    BIG("Biggm", 2.5),
    BIG("Biggr", 2.5),
    BIG("Bigl", 1.5),
    BIG("Bigm", 1.5),
    BIG("Bigr", 1.5),
    TX("Box", 0x25A1, "□"),
    MR("Delta", 1, "Δ"),
    SYR("Downarrow", 0x2B, "⇓"),
    MR("Gamma", 0, "Γ"),
    ACC("H", FAM_RM, 0x7D, 0x30B),
    KV("Huge", K_SIZE, 24.88),
    KV("LARGE", K_SIZE, 20.74),
    MR("Lambda", 3, "Λ"),
    KV("Large", K_SIZE, 17.28),
    SYR("Leftarrow", 0x28, "⇐"),
    SYR("Leftrightarrow", 0x2C, "⇔"),
    SYR("Longleftarrow", 0x28, "⟸"),
    SYR("Longleftrightarrow", 0x2C, "⟺"),
    SYR("Longrightarrow", 0x29, "⟹"),
    TX("O", 0xD8, "Ø"),
    TX("OE", 0x152, "Œ"),
    MR("Omega", 0x0A, "Ω"),
    TX("P", 0xB6, "¶"),
    MR("Phi", 8, "Φ"),
    MR("Pi", 5, "Π"),
    MR("Psi", 9, "Ψ"),
    SYR("Rightarrow", 0x29, "⇒"),
    TX("S", 0xA7, "§"),
    MR("Sigma", 6, "Σ"),
    MR("Theta", 2, "Θ"),
    SYR("Uparrow", 0x2A, "⇑"),
    MR("Upsilon", 7, "Υ"),
    SYO("Vert", 0x6B, "‖"),
    MR("Xi", 4, "Ξ"),
    KD("\\", K_LINEBREAK),
    ACC("^", FAM_RM, 0x5E, 0x302),
    TSM("_", '_', FAM_TEXT, '_', C_ORD, "_"),
    ACC("`", FAM_RM, 0x12, 0x300),
    TX("aa", 0xE5, "å"),
    KC("addvspace", K_SKIPARG, 1),
    TX("ae", 0xE6, "æ"),
    MI("alpha", 0x0B, "α"),
    SYB("amalg", 0x71, "⨿"),
    KCP("angle", K_ANGLE, 0, "∠"),
    SYR("approx", 0x19, "≈"),
    OPN("arccos"),
    OPN("arcsin"),
    OPN("arctan"),
    OPN("arg"),
    SYB("ast", 0x03, "∗"),
    SYR("asymp", 0x10, "≍"),
    SYO("backslash", 0x6E, "\\"),
    ACC("bar", FAM_RM, 0x16, 0x304),
    KD("baselineskip", K_IGNORE),
    MI("beta", 0x0C, "β"),
    KC("bf", K_SERIES, 1),
    KC("bfseries", K_SERIES, 1),
    BIG("big", 1),
    SYB("bigcirc", 0x0D, "○"),
    {"bigcup", K_BIGOP, 0, C_OP, 0x53, 0, 0x5B, "⋃"},
    BIG("bigg", 2),
    BIG("biggl", 2),
    BIG("biggm", 2),
    BIG("biggr", 2),
    BIG("bigl", 1),
    BIG("bigm", 1),
    BIG("bigr", 1),
    SYB("bigtriangledown", 0x35, "▽"),
    SYB("bigtriangleup", 0x34, "△"),
    KD("binom", K_BINOM),
    KC("bm", K_MATHFONT, MA_NONE),
    KD("boldmath", K_IGNORE),
    KC("boldsymbol", K_MATHFONT, MA_NONE),
    SYR("bot", 0x3F, "⊥"),
    SYB("bullet", 0x0F, "•"),
    ACC("c", FAM_RM, 0x18, 0x327),
    SYB("cap", 0x5C, "∩"),
    SYB("cdot", 0x01, "·"),
    MS("cdotp", FAM_SY, 0x01, C_PUNCT, "·"),
    KCP("cdots", K_DOTS, 1, "⋯"),
    KD("centering", K_IGNORE),
    KC("cfrac", K_FRAC, 1),
    MI("chi", 0x1F, "χ"),
    SYB("circ", 0x0E, "∘"),
    KC("color", K_SKIPARG, 1),
    KC("colorbox", K_FBOX, 1),
    KCP("cong", K_CONG, 0, "≅"),
    TS("copyright", 0xA9, "©"),
    OPN("cos"),
    OPN("cosh"),
    OPN("cot"),
    KD("cr", K_LINEBREAK),
    OPN("csc"),
    SYB("cup", 0x5B, "∪"),
    TS("dag", 0x2020, "†"),
    SYR("dashv", 0x61, "⊣"),
    TS("ddag", 0x2021, "‡"),
    ACC("ddot", FAM_RM, 0x7F, 0x308),
    KCP("degree", K_DEGREE, 0, "°"),
    MI("delta", 0x0E, "δ"),
    OPN("det"),
    KC("dfrac", K_FRAC, 1),
    SYB("diamond", 0x05, "⋄"),
    OPN("dim"),
    KC("displaystyle", K_MSTYLE, 0),
    SYB("div", 0x04, "÷"),
    ACC("dot", FAM_RM, 0x5F, 0x307),
    KCP("dots", K_DOTS, 0, "…"),
    SYR("downarrow", 0x23, "↓"),
    MI("ell", 0x60, "ℓ"),
    KD("em", K_EMSWITCH),
    KC("emph", K_TEXTARG, TA_EMPH),
    SYO("emptyset", 0x3B, "∅"),
    SP("enskip", 0.5, 0, " "),
    SP("enspace", 0.5, 0, " "),
    KD("ensuremath", K_ENSUREMATH),
    MI("epsilon", 0x0F, "ϵ"),
    SYR("equiv", 0x11, "≡"),
    MI("eta", 0x11, "η"),
    SYO("exists", 0x39, "∃"),
    OPN("exp"),
    KC("fbox", K_FBOX, 0),
    KC("fontfamily", K_SKIPARG, 1),
    KD("fontseries", K_FONTSERIES),
    KD("fontshape", K_FONTSHAPE),
    KD("fontsize", K_FONTSIZE),
    KV("footnotesize", K_SIZE, 10),
    SYO("forall", 0x38, "∀"),
    KC("frac", K_FRAC, 0),
    MI("gamma", 0x0D, "γ"),
    OPN("gcd"),
    SYR("ge", 0x15, "≥"),
    SYR("geq", 0x15, "≥"),
    SYR("gets", 0x20, "←"),
    SYR("gg", 0x1D, "≫"),
    ACC("hat", FAM_RM, 0x5E, 0x302),
    KC("hbox", K_TEXTARG, TA_BOX),
    KD("hfil", K_IGNORE),
    KD("hfill", K_IGNORE),
    KC("hphantom", K_PHANTOM, 2),
    KD("hskip", K_KERN),
    KD("hspace", K_HSPACE),
    KV("huge", K_SIZE, 24.88),
    TX("i", 0x131, "ı"),
    SYR("iff", 0x2C, "⟺"),
    KD("ignorespaces", K_IGNORE),
    SYR("in", 0x32, "∈"),
    KC("index", K_SKIPARG, 1),
    SYO("infty", 0x31, "∞"),
    {"int", K_BIGOP, 0, C_OP, 0x52, 0, 0x5A, "∫"},
    MI("iota", 0x13, "ι"),
    KC("it", K_SHAPE, 1),
    KC("itshape", K_SHAPE, 1),
    MI("kappa", 0x14, "κ"),
    KD("kern", K_KERN),
    TX("l", 0x142, "ł"),
    KC("label", K_SKIPARG, 1),
    MI("lambda", 0x15, "λ"),
    MS("langle", FAM_SY, 0x68, C_OPEN, "⟨"),
    KV("large", K_SIZE, 14.4),
    MS("lbrace", FAM_SY, 0x66, C_OPEN, "{"),
    MS("lbrack", FAM_RM, 0x5B, C_OPEN, "["),
    MS("lceil", FAM_SY, 0x64, C_OPEN, "⌈"),
    KCP("ldots", K_DOTS, 0, "…"),
    SYR("le", 0x14, "≤"),
    KD("left", K_LEFT),
    SYR("leftarrow", 0x20, "←"),
    SYR("leftrightarrow", 0x24, "↔"),
    SYR("leq", 0x14, "≤"),
    MS("lfloor", FAM_SY, 0x62, C_OPEN, "⌊"),
    OPN("lg"),
    OPN("lim"),
    KD("limits", K_IGNORE),
    KD("linebreak", K_LINEBREAK),
    SYR("ll", 0x1C, "≪"),
    OPN("ln"),
    OPN("log"),
    SYR("longleftarrow", 0x20, "⟵"),
    SYR("longleftrightarrow", 0x24, "⟷"),
    SYR("longrightarrow", 0x21, "⟶"),
    MS("lvert", FAM_SY, 0x6A, C_OPEN, "|"),
    KD("makebox", K_MAKEBOX),
    KC("mathbb", K_MATHFONT, MA_BF),
    KC("mathbf", K_MATHFONT, MA_BF),
    KC("mathbin", K_MATHCLASS, C_BIN),
    KC("mathcal", K_MATHFONT, MA_CAL),
    KC("mathclose", K_MATHCLASS, C_CLOSE),
    KC("mathit", K_MATHFONT, MA_IT),
    KC("mathnormal", K_MATHFONT, MA_NONE),
    KC("mathop", K_MATHCLASS, C_OP),
    KC("mathopen", K_MATHCLASS, C_OPEN),
    KC("mathord", K_MATHCLASS, C_ORD),
    KC("mathpunct", K_MATHCLASS, C_PUNCT),
    KC("mathrel", K_MATHCLASS, C_REL),
    KC("mathrm", K_MATHFONT, MA_RM),
    KC("mathsf", K_MATHFONT, MA_RM),
    KC("mathstrut", K_STRUT, 1),
    KC("mathtt", K_MATHFONT, MA_RM),
    OPN("max"),
    KC("mbox", K_TEXTARG, TA_BOX),
    KC("mdseries", K_SERIES, 0),
    KCP("measuredangle", K_ANGLE, 0, "∡"),
    SYR("mid", 0x6A, "∣"),
    KD("middle", K_MIDDLE),
    OPN("min"),
    SYB("mp", 0x07, "∓"),
    MI("mu", 0x16, "μ"),
    SYO("nabla", 0x72, "∇"),
    {"ne", K_NOTREL, FAM_RM, C_REL, '=', 0, 0, "≠"},
    SYR("nearrow", 0x25, "↗"),
    SYO("neg", 0x3A, "¬"),
    {"neq", K_NOTREL, FAM_RM, C_REL, '=', 0, 0, "≠"},
    KD("newline", K_LINEBREAK),
    SYR("ni", 0x33, "∋"),
    KD("noindent", K_IGNORE),
    KD("nolimits", K_IGNORE),
    KD("normalfont", K_NORMALFONT),
    KV("normalsize", K_SIZE, 12),
    KD("not", K_NOT),
    {"notin", K_NOTREL, FAM_SY, C_REL, 0x32, 0, 0, "∉"},
    MI("nu", 0x17, "ν"),
    SYR("nwarrow", 0x2D, "↖"),
    TX("o", 0xF8, "ø"),
    SYB("odot", 0x0C, "⊙"),
    TX("oe", 0x153, "œ"),
    {"oint", K_BIGOP, 0, C_OP, 0x48, 0, 0x49, "∮"},
    MI("omega", 0x21, "ω"),
    SYB("ominus", 0x09, "⊖"),
    KD("operatorname", K_OPERATORNAME),
    SYB("oplus", 0x08, "⊕"),
    SYB("oslash", 0x0B, "⊘"),
    SYB("otimes", 0x0A, "⊗"),
    KC("overleftarrow", K_OVERARROW, 1),
    KC("overleftrightarrow", K_OVERARROW, 3),
    KD("overline", K_OVERLINE),
    KC("overrightarrow", K_OVERARROW, 2),
    KC("overset", K_STACK, 1),
    KD("par", K_LINEBREAK),
    SYR("parallel", 0x6B, "∥"),
    KD("parbox", K_PARBOX),
    MI("partial", 0x40, "∂"),
    SYR("perp", 0x3F, "⊥"),
    KC("phantom", K_PHANTOM, 1),
    MI("phi", 0x1E, "ϕ"),
    MI("pi", 0x19, "π"),
    SYB("pm", 0x06, "±"),
    TS("pounds", 0xA3, "£"),
    SYR("prec", 0x1E, "≺"),
    SYO("prime", 0x30, "′"),
    {"prod", K_BIGOP, 0, C_OP, 0x51, 0, 0x59, "∏"},
    SYR("propto", 0x2F, "∝"),
    MI("psi", 0x20, "ψ"),
    SP("qquad", 2, 0, " "),
    SP("quad", 1, 0, " "),
    KD("raggedleft", K_IGNORE),
    KD("raggedright", K_IGNORE),
    KD("raisebox", K_RAISEBOX),
    MS("rangle", FAM_SY, 0x69, C_CLOSE, "⟩"),
    MS("rbrace", FAM_SY, 0x67, C_CLOSE, "}"),
    MS("rbrack", FAM_RM, 0x5D, C_CLOSE, "]"),
    MS("rceil", FAM_SY, 0x65, C_CLOSE, "⌉"),
    KD("relax", K_IGNORE),
    KC("resizebox", K_SKIPARG, 2),
    MS("rfloor", FAM_SY, 0x63, C_CLOSE, "⌋"),
    MI("rho", 0x1A, "ρ"),
    KD("right", K_RIGHT),
    SYR("rightarrow", 0x21, "→"),
    KD("rm", K_NORMALFONT),
    KC("rmfamily", K_FAMILY, 0),
    KC("rotatebox", K_SKIPARG, 1),
    KD("rule", K_RULE),
    MS("rvert", FAM_SY, 0x6A, C_CLOSE, "|"),
    KD("scalebox", K_SCALEBOX),
    KC("scriptscriptstyle", K_MSTYLE, 3),
    KV("scriptsize", K_SIZE, 8),
    KC("scriptstyle", K_MSTYLE, 2),
    SYR("searrow", 0x26, "↘"),
    OPN("sec"),
    KD("selectfont", K_IGNORE),
    SYB("setminus", 0x6E, "∖"),
    KC("sffamily", K_FAMILY, 0),
    MI("sigma", 0x1B, "σ"),
    SYR("sim", 0x18, "∼"),
    SYR("simeq", 0x27, "≃"),
    OPN("sin"),
    OPN("sinh"),
    KC("sl", K_SHAPE, 1),
    KC("slshape", K_SHAPE, 1),
    KV("small", K_SIZE, 10.95),
    KD("smash", K_SMASH),
    KD("space", K_INTERWORD),
    SYB("sqcap", 0x75, "⊓"),
    SYB("sqcup", 0x74, "⊔"),
    KD("sqrt", K_SQRT),
    TX("square", 0x25A1, "□"),
    TX("ss", 0xDF, "ß"),
    KC("stackrel", K_STACK, 3),
    MS("star", FAM_MI, 0x3F, C_BIN, "⋆"),
    KC("strut", K_STRUT, 0),
    SYR("subset", 0x1A, "⊂"),
    SYR("subseteq", 0x12, "⊆"),
    SYR("succ", 0x1F, "≻"),
    {"sum", K_BIGOP, 0, C_OP, 0x50, 0, 0x58, "∑"},
    SYR("supset", 0x1B, "⊃"),
    SYR("supseteq", 0x13, "⊇"),
    SYO("surd", 0x70, "√"),
    SYR("swarrow", 0x2E, "↙"),
    OPN("tan"),
    OPN("tanh"),
    MI("tau", 0x1C, "τ"),
    KC("text", K_TEXTARG, TA_MATHSIZE | TA_BOX),
    TS("textasciicircum", '^', "^"),
    TS("textasciitilde", '~', "~"),
    TS("textbackslash", '\\', "\\"),
    TS("textbar", '|', "|"),
    KC("textbf", K_TEXTARG, TA_BOLD | TA_MATHSIZE),
    TS("textbullet", 0x2022, "•"),
    KD("textcolor", K_SKIP1THEN),
    TS("textdegree", 0xB0, "°"),
    TS("textellipsis", 0x2026, "…"),
    TS("textemdash", 0x2014, "—"),
    TS("textendash", 0x2013, "–"),
    TS("textgreater", '>', ">"),
    KC("textit", K_TEXTARG, TA_IT | TA_MATHSIZE),
    TS("textless", '<', "<"),
    KC("textmd", K_TEXTARG, TA_MD | TA_MATHSIZE),
    TS("textmu", 0xB5, "µ"),
    KC("textnormal", K_TEXTARG, TA_NORMAL | TA_MATHSIZE),
    TS("textonehalf", 0xBD, "½"),
    TS("textperiodcentered", 0xB7, "·"),
    TS("textperthousand", 0x2030, "‰"),
    TS("textpm", 0xB1, "±"),
    TS("textquotedblleft", 0x201C, "“"),
    TS("textquotedblright", 0x201D, "”"),
    TS("textquoteleft", 0x2018, "‘"),
    TS("textquoteright", 0x2019, "’"),
    KC("textrm", K_TEXTARG, TA_SF | TA_MATHSIZE),
    KC("textsc", K_TEXTARG, TA_MATHSIZE),
    KC("textsf", K_TEXTARG, TA_SF | TA_MATHSIZE),
    KC("textsl", K_TEXTARG, TA_IT | TA_MATHSIZE),
    KC("textstyle", K_MSTYLE, 1),
    KC("textsubscript", K_TEXTSCRIPT, 2),
    KC("textsuperscript", K_TEXTSCRIPT, 1),
    TS("texttimes", 0xD7, "×"),
    KC("texttt", K_TEXTARG, TA_TT | TA_MATHSIZE),
    KC("textup", K_TEXTARG, TA_UP | TA_MATHSIZE),
    KC("tfrac", K_FRAC, 2),
    MI("theta", 0x12, "θ"),
    SP("thinspace", 0.16667, 0, " "),
    ACC("tilde", FAM_RM, 0x7E, 0x303),
    SYB("times", 0x02, "×"),
    KV("tiny", K_SIZE, 6),
    SYR("to", 0x21, "→"),
    SYO("top", 0x3E, "⊤"),
    SYO("triangle", 0x34, "△"),
    MS("triangleleft", FAM_MI, 0x2F, C_BIN, "◁"),
    MS("triangleright", FAM_MI, 0x2E, C_BIN, "▷"),
    KC("tt", K_FAMILY, 2),
    KC("ttfamily", K_FAMILY, 1),
    ACC("u", FAM_RM, 0x15, 0x306),
    KD("underline", K_UNDERLINE),
    KC("underset", K_STACK, 2),
    SYR("uparrow", 0x22, "↑"),
    SYB("uplus", 0x5D, "⊎"),
    KC("upshape", K_SHAPE, 0),
    MI("upsilon", 0x1D, "υ"),
    ACC("v", FAM_RM, 0x14, 0x30C),
    MI("varepsilon", 0x22, "ε"),
    MI("varphi", 0x27, "φ"),
    MI("varpi", 0x24, "ϖ"),
    MI("varrho", 0x25, "ϱ"),
    MI("varsigma", 0x26, "ς"),
    MI("vartheta", 0x23, "ϑ"),
    ACC("vec", FAM_MI, 0x7E, 0x20D7),
    SYB("vee", 0x5F, "∨"),
    KD("verb", K_VERB),
    SYO("vert", 0x6A, "|"),
    KC("vphantom", K_PHANTOM, 3),
    KC("vspace", K_SKIPARG, 1),
    SYB("wedge", 0x5E, "∧"),
    {"widehat", K_WIDEACCENT, 0, 0, 0x62, 0x302, 0, ""},
    {"widetilde", K_WIDEACCENT, 0, 0, 0x65, 0x303, 0, ""},
    MI("xi", 0x18, "ξ"),
    MI("zeta", 0x10, "ζ"),
    TSM("{", '{', FAM_SY, 0x66, C_OPEN, "{"),
    SYO("|", 0x6B, "‖"),
    TSM("}", '}', FAM_SY, 0x67, C_CLOSE, "}"),
    ACC("~", FAM_RM, 0x7E, 0x303),
};
#define NMACROS (sizeof macros / sizeof macros[0])

static const mdef *lookup(const char *s, size_t n)
{
    size_t lo = 0, hi = NMACROS;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strncmp(macros[mid].name, s, n);
        if (c == 0 && macros[mid].name[n] != 0) c = 1;
        if (c == 0) return &macros[mid];
        if (c < 0) lo = mid + 1; else hi = mid;
    }
    return NULL;
}

/* ---- scanning helpers --------------------------------------------------- */

/* Reads a control sequence at s (s[0] == '\\'): sets *name, *len and
 * returns the position after it (after the spaces a control word eats). */
static const char *read_cs(const char *s, const char **name, size_t *len)
{
    const char *t = s + 1;
    if (is_letter((unsigned char)*t)) {
        const char *e = t;
        while (is_letter((unsigned char)*e)) e++;
        *name = t;
        *len = (size_t)(e - t);
        while (is_space((unsigned char)*e)) e++;
        return e;
    }
    if (*t == 0) { *name = t; *len = 0; return t; }
    *name = t;
    *len = 1;
    return t + 1;
}

static const char *skip_ws(const char *s)
{
    for (;;) {
        while (is_space((unsigned char)*s)) s++;
        if (*s != '%') return s;
        while (*s && *s != '\n') s++;
    }
}

/* Skips one argument without typesetting it: a balanced group, a control
 * sequence or one character. */
static const char *skip_arg(const char *s)
{
    s = skip_ws(s);
    if (*s == '{') {
        int n = 0;
        for (; *s; s++) {
            if (*s == '\\' && s[1]) { s++; continue; }
            if (*s == '{') n++;
            else if (*s == '}' && --n == 0) return s + 1;
        }
        return s;
    }
    if (*s == '\\') {
        const char *nm;
        size_t len;
        return read_cs(s, &nm, &len);
    }
    if (*s) {
        unsigned cp;
        return s + utf8_decode(s, &cp);
    }
    return s;
}

/* An optional argument [..] at s (after spaces): returns its end (after
 * ']') and sets *in and *inlen, or returns NULL.  Look-ahead is bounded. */
static const char *opt_arg(const char *s, const char **in, size_t *inlen);

/* A macro that typesets nothing: its optional [..] and n arguments skipped. */
static const char *skip_macro_args(const char *s, int n)
{
    const char *in;
    size_t inlen;
    const char *after = opt_arg(s, &in, &inlen);
    if (after) s = after;
    for (int i = 0; i < n; i++) s = skip_arg(s);
    return s;
}

static const char *opt_arg(const char *s, const char **in, size_t *inlen)
{
    s = skip_ws(s);
    if (*s != '[') return NULL;
    int n = 0;
    for (const char *t = s + 1; *t && t - s < 256; t++) {
        if (*t == '{') n++;
        else if (*t == '}') { if (--n < 0) return NULL; }
        else if (*t == ']' && n == 0) {
            *in = s + 1;
            *inlen = (size_t)(t - s - 1);
            return t + 1;
        }
    }
    return NULL;
}

/* The text of a braced argument (no nested groups needed by callers):
 * sets *in and *inlen and returns the position after it. */
static const char *brace_arg(const char *s, const char **in, size_t *inlen)
{
    s = skip_ws(s);
    const char *e = skip_arg(s);
    if (*s == '{') {
        *in = s + 1;
        *inlen = (size_t)(e - s) >= 2 && e[-1] == '}' ? (size_t)(e - s - 2) : (size_t)(e - s - 1);
    } else {
        *in = s;
        *inlen = (size_t)(e - s);
    }
    return e;
}

/* A TeX number, locale-independent: [+-]digits[.digits] */
static int parse_number(const char **ps, const char *end, double *v)
{
    const char *s = *ps;
    while (s < end && is_space((unsigned char)*s)) s++;
    int neg = 0;
    while (s < end && (*s == '-' || *s == '+')) { if (*s == '-') neg = !neg; s++; }
    double x = 0, scale = 1;
    int digits = 0;
    while (s < end && is_digit((unsigned char)*s) && digits < 30) { x = x * 10 + (*s - '0'); s++; digits++; }
    while (s < end && is_digit((unsigned char)*s)) s++;
    if (s < end && (*s == '.' || *s == ',')) {
        s++;
        while (s < end && is_digit((unsigned char)*s)) {
            if (scale > 1e-12) { scale /= 10; x += (*s - '0') * scale; }
            s++;
            digits++;
        }
    }
    if (!digits) return 0;
    if (x > 16383.99998) x = 16383.99998; /* TeX's largest dimension */
    *v = neg ? -x : x;
    *ps = s;
    return 1;
}

/* A TeX dimension in [s, end): number and unit, to pt. em and ex are
 * relative to the given font size; a missing unit means pt. */
static int parse_dim(const char *s, const char *end, double size, double *pt, const char **after)
{
    double v;
    if (!parse_number(&s, end, &v)) return 0;
    while (s < end && is_space((unsigned char)*s)) s++;
    static const struct { char u[3]; double f; } units[] = {
        {"pt", 1}, {"bp", 72.27 / 72}, {"cm", 72.27 / 2.54}, {"mm", 72.27 / 25.4}, {"in", 72.27},
        {"pc", 12}, {"sp", 1 / 65536.0}, {"dd", 1238.0 / 1157}, {"cc", 12 * 1238.0 / 1157},
        {"em", -1}, {"ex", -2}, {"mu", -3}};
    double f = 1;
    if (end - s >= 2) {
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (s[0] == units[i].u[0] && s[1] == units[i].u[1]) {
                f = units[i].f;
                s += 2;
                break;
            }
    }
    if (f == -1) f = size * TM_FONT_SCALE;      /* the text font's quad */
    else if (f == -2) f = tm_text_fonts[0].x_height * size * TM_FONT_SCALE;
    else if (f == -3) f = size / 18;
    *pt = v * f;
    if (after) *after = s;
    return 1;
}

/* ---- the typesetter ----------------------------------------------------- */

typedef struct {
    double size;
    int bold, it;
    int tt;         /* \ttfamily: the EC typewriter font */
} tfont;

/* A horizontal list being built: natural width, height, depth. */
typedef struct {
    double w, h, d;
    double pend;    /* interword glue not yet typeset (dropped at the end) */
    int start;      /* nothing typeset yet: spaces are skipped */
    int sf;         /* TeX's space factor */
    double last_ic; /* italic correction of the last glyph (0: not a glyph) */
} hlist;

typedef struct {
    const char *s;
    int depth;
    hlist *line;        /* the outermost list: \\ breaks it */
    double bskip;       /* the node's \baselineskip */
    double first_h, prev_d, skip, maxw, extra;
    int lines;
    int got_right;      /* the last MK_RIGHT list ended at \right */
} P;

static void hl_init(hlist *hl)
{
    hl->w = hl->h = hl->d = hl->pend = hl->last_ic = 0;
    hl->start = 1;
    hl->sf = 1000;
}

static void hl_box(hlist *hl, box b)
{
    hl->w += hl->pend + b.w;
    hl->pend = 0;
    hl->h = dmax(hl->h, b.h);
    hl->d = dmax(hl->d, b.d);
    hl->start = 0;
    hl->sf = 1000;
    hl->last_ic = 0;
}

/* A glyph of the text font: its box, the space factor it leaves (LaTeX's
 * \nonfrenchspacing sfcodes, 999 for capitals) and its italic correction
 * (the opensans TFMs' CHARIC of the italic fonts: bbox right - advance). */
static void hl_tt_glyph(hlist *hl, const tfont *f, unsigned cp);

static void hl_glyph(hlist *hl, const tfont *f, unsigned cp)
{
    if (f->tt) { hl_tt_glyph(hl, f, cp); return; }
    const tm_glyph *g = text_glyph(f->bold, f->it, cp);
    if (!g) g = text_glyph(f->bold, f->it, 'o');
    double sz = f->size * TM_FONT_SCALE;
    box b = {g->adv * sz, dmax(0, g->top * sz), dmax(0, -g->bot * sz)};
    int sf = hl->sf;
    hl_box(hl, b);
    int code = cp == '.' || cp == '?' || cp == '!' ? 3000 : cp == ':' ? 2000 : cp == ';' ? 1500
             : cp == ',' ? 1250 : (cp >= 'A' && cp <= 'Z') ? 999
             : (cp == ')' || cp == ']' || cp == 0x2019 || cp == 0x201D) ? 0 : 1000;
    hl->sf = code == 0 ? sf : code <= 1000 ? code : sf < 1000 ? 1000 : code;
    double ic = g->right - g->adv;
    hl->last_ic = f->it && ic > 0 ? ic * sz : 0;
}

/* A glyph of the typewriter font: its TFM box (ectt has no kerns; bold
 * and italic are substituted by the upright medium font or measure as it:
 * t1cmtt.fd's bx is ectt, its italic has the same widths); --- is the
 * en dash ligature and a hyphen, as ectt's ligature table makes it. */
static void hl_tt_glyph(hlist *hl, const tfont *f, unsigned cp)
{
    double sz;
    const tm_cm_font *tf = tt_font(f->size, &sz);
    int n = 1;
    if (cp == 0x2014) { cp = 0x2013; n = 2; }
    for (int i = 0; i < n; i++) {
        const tm_cm_char *c = &tf->ch[tt_slot(i ? '-' : cp)];
        box b = {c->w * sz, dmax(0, c->h * sz), dmax(0, c->d * sz)};
        int sf = hl->sf;
        hl_box(hl, b);
        unsigned q = i ? '-' : cp;
        int code = q == '.' || q == '?' || q == '!' ? 3000 : q == ':' ? 2000 : q == ';' ? 1500
                 : q == ',' ? 1250 : (q >= 'A' && q <= 'Z') ? 999
                 : (q == ')' || q == ']' || q == 0x2019 || q == 0x201D) ? 0 : 1000;
        hl->sf = code == 0 ? sf : code <= 1000 ? code : sf < 1000 ? 1000 : code;
    }
}

static void hl_kern(hlist *hl, double k)
{
    hl->w += hl->pend + k;
    hl->pend = 0;
    hl->start = 0;
    hl->last_ic = 0;
}

/* Interword glue: a space token (skipped at the start of a list; wider by
 * the font's extra space, fontdimen 7, after a sentence end) or a
 * hard space (~, "\ "). */
static void hl_space(hlist *hl, const tfont *f, int hard)
{
    if (hl->start && !hard) return;
    double w;
    if (f->tt) { /* ectt's interword space and extra space (fontdimens 2, 7) */
        double sz;
        const tm_cm_font *tf = tt_font(f->size, &sz);
        w = tf->param[2] * sz;
        if (!hard && hl->sf >= 2000) w += tf->param[7] * sz;
    } else {
        w = text_space(f->bold, f->it, f->size);
        if (!hard && hl->sf >= 2000) w += OS_EXTRA_SPACE * f->size * TM_FONT_SCALE;
    }
    hl->pend += w;
    hl->start = 0;
    hl->last_ic = 0;
}

static box hl_box_of(const hlist *hl)
{
    box b = {hl->w, hl->h, hl->d};
    return b;
}

static void finish_line(P *p, double extra_after)
{
    hlist *l = p->line;
    p->maxw = dmax(p->maxw, l->w);
    if (p->lines == 0) {
        p->first_h = l->h;
    } else {
        double dist = p->bskip - p->prev_d - l->h >= 0 ? p->bskip : p->prev_d + l->h + 1.0;
        p->skip += dist + p->extra;
    }
    p->extra = extra_after;
    p->prev_d = l->d;
    p->lines++;
    hl_init(l);
}

/* -- math lists -- */

enum { MK_DOLLAR, MK_DDOLLAR, MK_PAREN, MK_BRACKET, MK_GROUP, MK_RIGHT, MK_OPT };
enum { ST_D, ST_T, ST_S, ST_SS };

typedef struct {
    msize m[3];   /* text, script, scriptscript */
    tfont tf;     /* the text font around the formula */
} mctx;

typedef struct {
    int cls;
    box b;
    const tm_cm_font *nf;  /* nucleus is a character of this font */
    int ch;
    double ic;             /* italic correction included in b.w */
    int kernable;          /* a character without scripts */
} atom;

typedef struct {
    P *p;
    const mctx *c;
    int style, cramped, alpha;
    double w, h, d;
    int last;              /* class of the last atom typeset; -1: none */
    int has_pend;
    atom pend;
} ml;

static const msize *ml_size(const ml *L) { return &L->c->m[L->style <= ST_T ? 0 : L->style - 1]; }
static const msize *style_size(const mctx *c, int st) { return &c->m[st <= ST_T ? 0 : st - 1]; }

static void ml_init(ml *L, P *p, const mctx *c, int style, int cramped, int alpha)
{
    L->p = p;
    L->c = c;
    L->style = style;
    L->cramped = cramped;
    L->alpha = alpha;
    L->w = L->h = L->d = 0;
    L->last = -1;
    L->has_pend = 0;
}

static double ml_mu(const ml *L) { return sy_param(ml_size(L), 6) / 18; }

/* TeX's math_spacing table: rows left class, columns right class. */
static const char spacing_tab[] = "02340001"
                                  "22*40001"
                                  "33**3**3"
                                  "44*04004"
                                  "00*00000"
                                  "02340001"
                                  "11*11111"
                                  "12341011";

static void ml_commit(ml *L)
{
    atom *q = &L->pend;
    if (L->last >= 0) {
        double mu = ml_mu(L);
        int big = L->style <= ST_T;
        switch (spacing_tab[L->last * 8 + q->cls]) {
        case '1': if (big) L->w += 3 * mu; break;
        case '2': L->w += 3 * mu; break;
        case '3': if (big) L->w += 4 * mu; break;
        case '4': if (big) L->w += 5 * mu; break;
        default: break;
        }
    }
    L->w += q->b.w;
    L->h = dmax(L->h, q->b.h);
    L->d = dmax(L->d, q->b.d);
    L->last = q->cls;
    L->has_pend = 0;
}

static void ml_add(ml *L, atom a)
{
    if (L->has_pend) {
        atom *q = &L->pend;
        if (q->cls == C_BIN && (a.cls == C_REL || a.cls == C_CLOSE || a.cls == C_PUNCT)) q->cls = C_ORD;
        if (q->kernable && q->cls == C_ORD && a.nf && a.nf == q->nf) {
            double scale = ml_size(L)->sz;
            q->b.w += cm_kern(q->nf, q->ch, a.ch) * scale;
            if (q->nf->param[2] != 0) q->b.w -= q->ic; /* text font: no italic correction mid-word */
        }
        ml_commit(L);
    }
    if (a.cls == C_BIN && (L->last < 0 || L->last == C_BIN || L->last == C_OP || L->last == C_REL ||
                           L->last == C_OPEN || L->last == C_PUNCT))
        a.cls = C_ORD;
    L->pend = a;
    L->has_pend = 1;
}

static void ml_kern(ml *L, double k) { L->w += k; }

static box ml_finish(ml *L)
{
    if (L->has_pend) {
        if (L->pend.cls == C_BIN) L->pend.cls = C_ORD;
        ml_commit(L);
    }
    box b = {L->w, L->h, L->d};
    return b;
}

static box math_list(P *p, const mctx *c, int style, int cramped, int alpha, int kind);
static void math_item(ml *L, int no_scripts);
static void text_run(P *p, tfont *f, hlist *hl, int group);
static int text_token(P *p, tfont *f, hlist *hl, int group);

static void mctx_init(mctx *c, const tfont *f)
{
    double s, ss;
    math_sizes(f->size, &s, &ss);
    msize_init(&c->m[0], f->size);
    msize_init(&c->m[1], s);
    msize_init(&c->m[2], ss);
    c->tf = *f;
}

static int sup_style(int st) { return st <= ST_T ? ST_S : ST_SS; }
static int frac_style(int st) { return st == ST_D ? ST_T : st == ST_T ? ST_S : ST_SS; }

/* Is s at something that ends a math argument or list? */
static int math_stop(const char *s)
{
    if (*s == 0 || *s == '}' || *s == '$') return 1;
    if (*s == '\\') {
        if (s[1] == ')' || s[1] == ']') return 1;
        if (strncmp(s + 1, "right", 5) == 0 && !is_letter((unsigned char)s[6])) return 1;
    }
    return 0;
}

/* A math argument: a group or one item, in the given style. */
static box math_arg(ml *L, int style, int cramped, int alpha)
{
    P *p = L->p;
    p->s = skip_ws(p->s);
    if (*p->s == '{') {
        if (p->depth >= MAXDEPTH) { p->s = skip_arg(p->s); return nullbox; }
        p->s++;
        return math_list(p, L->c, style, cramped, alpha, MK_GROUP);
    }
    if (math_stop(p->s)) return nullbox;
    if (p->depth >= MAXDEPTH) { p->s = skip_arg(p->s); return nullbox; }
    ml T;
    ml_init(&T, p, L->c, style, cramped, alpha);
    p->depth++;
    math_item(&T, 1);
    p->depth--;
    return ml_finish(&T);
}

/* A text-mode argument (of \text, \mbox, \fbox ...) as a box. */
static box text_arg(P *p, tfont f)
{
    hlist hl;
    hl_init(&hl);
    hl.start = 0;
    p->s = skip_ws(p->s);
    if (p->depth >= MAXDEPTH) { p->s = skip_arg(p->s); return nullbox; }
    p->depth++;
    if (*p->s == '{') {
        p->s++;
        text_run(p, &f, &hl, 1);
    } else if (*p->s && *p->s != '}') {
        text_token(p, &f, &hl, 1);
    }
    p->depth--;
    hl.w += hl.pend; /* an \\hbox keeps its spaces */
    return hl_box_of(&hl);
}

/* TeX rule 18: attach scripts to a nucleus.  is_char: the nucleus is one
 * character (its italic correction ic is not yet in nuc.w). */
static box make_scripts(const ml *L, box nuc, int is_char, double ic, const box *sup, const box *sub)
{
    const msize *m = ml_size(L);
    const msize *ms = style_size(L->c, sup_style(L->style));
    double delta = is_char ? ic : 0;
    if (!sup && !sub) { nuc.w += delta; return nuc; }
    double up = 0, dn = 0;
    if (!is_char) {
        up = nuc.h - sy_param(ms, 18);
        dn = nuc.d + sy_param(ms, 19);
    }
    double xh = sy_param(m, 5), ss = 0.5; /* \scriptspace */
    box r = nuc;
    if (!sup) {
        box x = *sub;
        x.w += ss;
        dn = dmax(dmax(dn, sy_param(m, 16)), x.h - 0.8 * xh);
        r.w += x.w;
        r.h = dmax(r.h, x.h - dn);
        r.d = dmax(r.d, x.d + dn);
        return r;
    }
    box x = *sup;
    x.w += ss;
    double clr = L->cramped ? sy_param(m, 15) : L->style == ST_D ? sy_param(m, 13) : sy_param(m, 14);
    up = dmax(dmax(up, clr), x.d + 0.25 * xh);
    if (!sub) {
        r.w += delta + x.w;
        r.h = dmax(r.h, up + x.h);
        r.d = dmax(r.d, x.d - up);
        return r;
    }
    box y = *sub;
    y.w += ss;
    dn = dmax(dn, sy_param(m, 17));
    double theta = rule_thickness(m);
    double c2 = 4 * theta - ((up - x.d) - (y.h - dn));
    if (c2 > 0) {
        dn += c2;
        c2 = 0.8 * xh - (up - x.d);
        if (c2 > 0) { up += c2; dn -= c2; }
    }
    r.w += dmax(x.w + delta, y.w);
    r.h = dmax(r.h, dmax(up + x.h, y.h - dn));
    r.d = dmax(r.d, dmax(y.d + dn, x.d - up));
    return r;
}

/* Reads scripts after a nucleus and appends the atom. */
static void finish_atom(ml *L, int cls, box nuc, int is_char, double ic, const tm_cm_font *nf, int ch,
                        int no_scripts)
{
    P *p = L->p;
    box supb = nullbox, subb = nullbox;
    int has_sup = 0, has_sub = 0;
    if (!no_scripts) {
        for (;;) {
            const char *t = skip_ws(p->s);
            if (*t == '\'' && !has_sup) {
                const msize *ms = style_size(L->c, sup_style(L->style));
                int n = 0;
                while (*t == '\'') { t++; n++; }
                box pr = cm_char_box(ms, FAM_SY, 0x30, NULL);
                supb.w = n * pr.w;
                supb.h = pr.h;
                supb.d = pr.d;
                p->s = t;
                t = skip_ws(t);
                if (*t == '^') {
                    p->s = t + 1;
                    box a = math_arg(L, sup_style(L->style), L->cramped, L->alpha);
                    supb.w += a.w;
                    supb.h = dmax(supb.h, a.h);
                    supb.d = dmax(supb.d, a.d);
                }
                has_sup = 1;
            } else if (*t == '^' && !has_sup) {
                p->s = t + 1;
                supb = math_arg(L, sup_style(L->style), L->cramped, L->alpha);
                has_sup = 1;
            } else if (*t == '_' && !has_sub) {
                p->s = t + 1;
                subb = math_arg(L, sup_style(L->style), 1, L->alpha);
                has_sub = 1;
            } else {
                break;
            }
        }
    }
    atom a;
    a.cls = cls;
    a.b = make_scripts(L, nuc, is_char, ic, has_sup ? &supb : NULL, has_sub ? &subb : NULL);
    a.nf = is_char ? nf : NULL;
    a.ch = ch;
    a.ic = is_char && !has_sub ? ic : 0;
    a.kernable = is_char && !has_sup && !has_sub;
    ml_add(L, a);
}

static void char_atom(ml *L, int fam, int ch, int cls, int no_scripts)
{
    const msize *m = ml_size(L);
    double ic;
    box b = cm_char_box(m, fam, ch, &ic);
    finish_atom(L, cls, b, 1, ic, m->f[fam], ch & 127, no_scripts);
}

static void box_atom(ml *L, int cls, box b, int no_scripts)
{
    finish_atom(L, cls, b, 0, 0, NULL, 0, no_scripts);
}

/* Sans-serif math (sfmath and sansmath): a character of OpenSans at
 * TM_FONT_SCALE x the style's size; face OS_UP (operators: digits, + = ( ..,
 * \mathrm, operator names), OS_IT (letters: sfmath's m/sl, which opensans
 * substitutes by m/it) or OS_BF (\mathbf, sansmath's \mathsfbf: b/n).  Its
 * italic correction is the TFM's (bbox right - advance); sansmath's math
 * fonts have no interword space, so TeX adds it even mid-word (no kerns:
 * the opensans TFMs have none). */
enum { OS_UP, OS_IT, OS_BF };
static void os_atom(ml *L, int face, unsigned cp, int cls, int no_scripts)
{
    const msize *m = ml_size(L);
    int bold = face == OS_BF, it = face == OS_IT;
    const tm_glyph *g = text_glyph(bold, it, cp);
    if (!g) g = text_glyph(bold, it, 'o');
    double sz = m->size * TM_FONT_SCALE;
    box b = {g->adv * sz, dmax(0, g->top * sz), dmax(0, -g->bot * sz)};
    double ic = it && g->right > g->adv ? (g->right - g->adv) * sz : 0;
    finish_atom(L, cls, b, 1, ic, NULL, (int)(cp & 127), no_scripts);
}

/* The face of a letter (or capital Greek, mathcode class 7) under a math
 * alphabet. */
static int os_letter_face(int alpha)
{
    return alpha == MA_RM ? OS_UP : alpha == MA_BF ? OS_BF : OS_IT;
}

static void text_glyph_atom(ml *L, unsigned cp, int no_scripts)
{
    const msize *m = ml_size(L);
    box_atom(L, C_ORD, glyph_box(L->c->tf.bold, L->c->tf.it, cp, m->size), no_scripts);
}

/* -- delimiters (TeX's var_delimiter) -- */

typedef struct { int sfam, sch, lch; } delim; /* sch < 0: null delimiter */

/* Scans a delimiter token at s (after spaces): returns the position after
 * it, or NULL if there is none. */
static const char *scan_delim(const char *s, delim *d)
{
    static const struct { const char *tok; int sfam, sch, lch; } tab[] = {
        {"(", FAM_RM, 0x28, 0x00}, {")", FAM_RM, 0x29, 0x01}, {"[", FAM_RM, 0x5B, 0x02},
        {"]", FAM_RM, 0x5D, 0x03}, {"<", FAM_SY, 0x68, 0x0A}, {">", FAM_SY, 0x69, 0x0B},
        {"|", FAM_SY, 0x6A, 0x0C}, {"/", FAM_MI, 0x3D, 0x0E}, {".", -1, -1, -1},
        {"\\{", FAM_SY, 0x66, 0x08}, {"\\}", FAM_SY, 0x67, 0x09}, {"\\|", FAM_SY, 0x6B, 0x0D},
        {"\\lbrace", FAM_SY, 0x66, 0x08}, {"\\rbrace", FAM_SY, 0x67, 0x09},
        {"\\langle", FAM_SY, 0x68, 0x0A}, {"\\rangle", FAM_SY, 0x69, 0x0B},
        {"\\lfloor", FAM_SY, 0x62, 0x04}, {"\\rfloor", FAM_SY, 0x63, 0x05},
        {"\\lceil", FAM_SY, 0x64, 0x06}, {"\\rceil", FAM_SY, 0x65, 0x07},
        {"\\vert", FAM_SY, 0x6A, 0x0C}, {"\\Vert", FAM_SY, 0x6B, 0x0D},
        {"\\lvert", FAM_SY, 0x6A, 0x0C}, {"\\rvert", FAM_SY, 0x6A, 0x0C},
        {"\\lVert", FAM_SY, 0x6B, 0x0D}, {"\\rVert", FAM_SY, 0x6B, 0x0D},
        {"\\lbrack", FAM_RM, 0x5B, 0x02}, {"\\rbrack", FAM_RM, 0x5D, 0x03},
        {"\\backslash", FAM_SY, 0x6E, 0x0F}, {"\\uparrow", FAM_SY, 0x22, 0x78},
        {"\\downarrow", FAM_SY, 0x23, 0x79}};
    s = skip_ws(s);
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        size_t n = strlen(tab[i].tok);
        if (strncmp(s, tab[i].tok, n) == 0 && !(n > 2 && is_letter((unsigned char)s[n]))) {
            d->sfam = tab[i].sfam;
            d->sch = tab[i].sch;
            d->lch = tab[i].lch;
            return s + n;
        }
    }
    return NULL;
}

static int read_delim(P *p, delim *d)
{
    const char *e = scan_delim(p->s, d);
    if (!e) return 0;
    p->s = e;
    return 1;
}

static box var_delim(const ml *L, delim dl, double v)
{
    if (dl.sch < 0) { box b = {1.2, 0, 0}; return b; } /* \nulldelimiterspace */
    int cur = L->style <= ST_T ? 0 : L->style - 1;
    box best = nullbox;
    double bestsize = -1;
    for (int k = cur; k >= 0; k--) {
        const msize *m = &L->c->m[k];
        box b = cm_char_box(m, dl.sfam, dl.sch, NULL);
        if (b.h + b.d >= v) return b;
        if (b.h + b.d > bestsize) { best = b; bestsize = b.h + b.d; }
    }
    const msize *m = ml_size(L);
    const tm_cm_font *ex = m->f[FAM_EX];
    int ch = dl.lch;
    for (int guard = 0; ch >= 0 && ch < 128 && guard < 16; guard++) {
        const tm_cm_char *c = &ex->ch[ch];
        box b = {c->w * m->sz, c->h * m->sz, c->d * m->sz};
        if (b.h + b.d >= v) return b;
        if (b.h + b.d > bestsize) { best = b; bestsize = b.h + b.d; }
        if (c->next < 0) {
            /* an extensible character: built to the size asked for */
            double hd = b.h + b.d;
            if (hd > 0) { b.h = b.h / hd * v; b.d = b.d / hd * v; } else { b.h = v / 2; b.d = v / 2; }
            return b;
        }
        ch = c->next;
    }
    return best;
}

static box center_on_axis(const ml *L, box b)
{
    double a = sy_param(ml_size(L), 22), hd = b.h + b.d;
    b.h = hd / 2 + a;
    b.d = hd / 2 - a;
    return b;
}

/* -- math macros -- */

static box frac_box(ml *L, int fs, int rule)
{
    const msize *m = style_size(L->c, fs);
    box x = math_arg(L, frac_style(fs), L->cramped, L->alpha);
    box z = math_arg(L, frac_style(fs), 1, L->alpha);
    double theta = rule_thickness(m), a = sy_param(m, 22), up, dn;
    if (fs == ST_D) { up = sy_param(m, rule ? 8 : 8); dn = sy_param(m, 11); }
    else { up = sy_param(m, rule ? 9 : 10); dn = sy_param(m, 12); }
    if (rule) {
        double clr = fs == ST_D ? 3 * theta : theta;
        double d1 = clr - ((up - x.d) - (a + theta / 2));
        double d2 = clr - ((a - theta / 2) - (z.h - dn));
        if (d1 > 0) up += d1;
        if (d2 > 0) dn += d2;
    } else {
        double clr = fs == ST_D ? 7 * theta : 3 * theta;
        double dl = (clr - ((up - x.d) - (z.h - dn))) / 2;
        if (dl > 0) { up += dl; dn += dl; }
    }
    box b = {dmax(x.w, z.w), up + x.h, dn + z.d};
    return b;
}

static box sqrt_box(ml *L)
{
    P *p = L->p;
    const char *in;
    size_t inlen;
    box idx = nullbox;
    int has_idx = 0;
    const char *after = opt_arg(p->s, &in, &inlen);
    if (after && p->depth < MAXDEPTH) {
        p->s = skip_ws(p->s) + 1;
        idx = math_list(p, L->c, ST_SS, 0, L->alpha, MK_OPT);
        has_idx = 1;
    }
    box x = math_arg(L, L->style, 1, L->alpha);
    const msize *m = ml_size(L);
    double theta = rule_thickness(m);
    double clr = L->style == ST_D ? theta + sy_param(m, 5) / 4 : theta + theta / 4;
    delim dl = {FAM_SY, 0x70, 0x70};
    box y = var_delim(L, dl, x.h + x.d + clr + theta);
    double t = y.h;
    double delta = y.d - (x.h + x.d + clr);
    if (delta > 0) clr += delta / 2;
    box b = {y.w + x.w, x.h + clr + 2 * t, dmax(x.d, y.d - (x.h + clr))};
    if (has_idx) {
        double mu = ml_mu(L), raise = 0.6 * (b.h - b.d);
        b.w += 5 * mu + idx.w - 10 * mu;
        b.h = dmax(b.h, raise + idx.h);
        b.d = dmax(b.d, idx.d - raise);
    }
    return b;
}

static box accent_box(ml *L, const tm_cm_font *af, int ach, int wide)
{
    box x = math_arg(L, L->style, 1, L->alpha);
    const msize *m = ml_size(L);
    const tm_cm_char *c = &af->ch[ach & 127];
    if (wide) { /* the widest variant not wider than the base */
        for (int guard = 0; c->next >= 0 && guard < 8; guard++) {
            const tm_cm_char *n = &af->ch[c->next & 127];
            if (n->w * m->sz > x.w) break;
            c = n;
        }
    }
    double delta = dmin(x.h, af->param[5] * m->sz);
    double h = c->h * m->sz + c->d * m->sz - delta + x.h;
    box b = {x.w, dmax(h, x.h), x.d};
    return b;
}

/* A math accent of the operators family (\hat \bar \tilde ..: LaTeX
 * declares them \mathalpha, so \sansmath's \fam, OpenSans Italic, takes
 * them): the accent's spacing glyph (comb: its combining code point) over
 * the nucleus, TeX's rule 12 with the x-height of that font. */
static box os_accent_box(ml *L, unsigned comb)
{
    static const unsigned short map[][2] = {{0x300, 0x60}, {0x301, 0xB4}, {0x302, 0x2C6}, {0x303, 0x2DC},
                                            {0x304, 0xAF}, {0x308, 0xA8}, {0x327, 0xB8}};
    unsigned cp = 0x2C6; /* breve, caron, dot, double acute: the table lacks them */
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i][0] == comb) cp = map[i][1];
    box x = math_arg(L, L->style, 1, L->alpha);
    const msize *m = ml_size(L);
    const tm_glyph *g = text_glyph(0, 1, cp);
    if (!g) g = text_glyph(0, 1, 0x2C6);
    double sz = m->size * TM_FONT_SCALE;
    double delta = dmin(x.h, tm_text_fonts[2].x_height * sz);
    double h = dmax(0, g->top * sz) + dmax(0, -g->bot * sz) - delta + x.h;
    box b = {x.w, dmax(h, x.h), x.d};
    return b;
}

static box overarrow_box(ml *L, int which)
{
    box x = math_arg(L, L->style, 0, L->alpha);
    const msize *m = ml_size(L);
    double mu = ml_mu(L);
    box l = cm_char_box(m, FAM_SY, which & 1 ? 0x20 : 0x00, NULL);
    box r = cm_char_box(m, FAM_SY, which & 2 ? 0x21 : 0x00, NULL);
    double rh = dmax(which & 1 ? l.h : 0, which & 2 ? r.h : 0);
    double rd = dmax(which & 1 ? l.d : 0, which & 2 ? r.d : 0);
    box b = {dmax(x.w, l.w + r.w - 14 * mu), rh + rd + x.h, x.d};
    return b;
}

static box text_in_math(ml *L, const mdef *d)
{
    tfont f = L->c->tf;
    if (d->ch & TA_MATHSIZE) f.size = ml_size(L)->size;
    if (d->ch & TA_BOLD) f.bold = 1;
    if (d->ch & TA_MD) f.bold = 0;
    if (d->ch & TA_IT) f.it = 1;
    if (d->ch & TA_UP) f.it = 0;
    if (d->ch & TA_EMPH) f.it = !f.it;
    if (d->ch & TA_NORMAL) f.bold = f.it = f.tt = 0;
    if (d->ch & TA_TT) f.tt = 1;
    if (d->ch & TA_SF) f.tt = 0;
    return text_arg(L->p, f);
}

static box opname_box(const ml *L, const char *name, size_t n)
{
    const msize *m = ml_size(L);
    box b = nullbox;
    /* \operator@font: the operators font, OpenSans Regular (no kerns) */
    for (size_t i = 0; i < n; i++) {
        box c = glyph_box(0, 0, (unsigned char)name[i], m->size);
        b.w += c.w;
        b.h = dmax(b.h, c.h);
        b.d = dmax(b.d, c.d);
    }
    return b;
}

/* The common handling of box-making macros in both modes; returns 1 and
 * the box if d is one of them. */
static int generic_box(P *p, const mdef *d, tfont f, box *out)
{
    const char *in;
    size_t inlen;
    double v;
    switch (d->kind) {
    case K_FBOX: {
        if (d->ch == 1) p->s = skip_arg(p->s);
        box b = text_arg(p, f);
        double pad = d->ch == 1 ? 3 : 3.4;
        b.w += 2 * pad;
        b.h += pad;
        b.d += pad;
        *out = b;
        return 1;
    }
    case K_SCALEBOX: {
        p->s = brace_arg(p->s, &in, &inlen);
        double s = 1, vs = 1;
        const char *t = in;
        if (!parse_number(&t, in + inlen, &s)) s = 1;
        const char *o;
        size_t ol;
        const char *after = opt_arg(p->s, &o, &ol);
        double vscale = s;
        if (after) {
            t = o;
            if (parse_number(&t, o + ol, &vs)) vscale = vs;
            p->s = after;
        }
        box b = text_arg(p, f);
        b.w *= s < 0 ? -s : s;
        b.h *= vscale < 0 ? -vscale : vscale;
        b.d *= vscale < 0 ? -vscale : vscale;
        *out = b;
        return 1;
    }
    case K_RULE: {
        const char *o;
        size_t ol;
        double raise = 0, w = 0, h = 0;
        const char *after = opt_arg(p->s, &o, &ol);
        if (after) { parse_dim(o, o + ol, f.size, &raise, NULL); p->s = after; }
        p->s = brace_arg(p->s, &in, &inlen);
        parse_dim(in, in + inlen, f.size, &w, NULL);
        p->s = brace_arg(p->s, &in, &inlen);
        parse_dim(in, in + inlen, f.size, &h, NULL);
        box b = {w, dmax(0, h + raise), dmax(0, -raise)};
        *out = b;
        return 1;
    }
    case K_MAKEBOX: {
        const char *o;
        size_t ol;
        int has_w = 0;
        double w = 0;
        const char *after = opt_arg(p->s, &o, &ol);
        if (after) { has_w = parse_dim(o, o + ol, f.size, &w, NULL); p->s = after; }
        after = opt_arg(p->s, &o, &ol);
        if (after) p->s = after;
        box b = text_arg(p, f);
        if (has_w) b.w = w;
        *out = b;
        return 1;
    }
    case K_PARBOX: {
        const char *o;
        size_t ol;
        for (int i = 0; i < 3; i++) {
            const char *after = opt_arg(p->s, &o, &ol);
            if (!after) break;
            p->s = after;
        }
        p->s = brace_arg(p->s, &in, &inlen);
        v = 0;
        parse_dim(in, in + inlen, f.size, &v, NULL);
        box b = text_arg(p, f);
        b.w = v;
        *out = b;
        return 1;
    }
    case K_RAISEBOX: {
        p->s = brace_arg(p->s, &in, &inlen);
        v = 0;
        parse_dim(in, in + inlen, f.size, &v, NULL);
        const char *o;
        size_t ol;
        for (int i = 0; i < 2; i++) {
            const char *after = opt_arg(p->s, &o, &ol);
            if (!after) break;
            p->s = after;
        }
        box b = text_arg(p, f);
        b.h = dmax(0, b.h + v);
        b.d = dmax(0, b.d - v);
        *out = b;
        return 1;
    }
    default:
        return 0;
    }
}

/* Skips an optional star, spaces and an optional [dim]; returns the dim. */
static double linebreak_args(P *p, double size)
{
    const char *s = skip_ws(p->s);
    if (*s == '*') s++;
    p->s = s;
    const char *in;
    size_t inlen;
    const char *after = opt_arg(p->s, &in, &inlen);
    double v = 0;
    if (after) {
        parse_dim(in, in + inlen, size, &v, NULL);
        p->s = after;
    }
    return v;
}

/* a symbol, or a symbol made of several (\cong, \not=, \dots, a big operator, a strut) */
static void math_symbol_macro(ml *L, const mdef *d, int no_scripts)
{
    const msize *m = ml_size(L);
    box b;
    switch (d->kind) {
    case K_MSYM:
        if (d->fam == FAM_TEXT) text_glyph_atom(L, d->ch, no_scripts);
        else if (d->fam == FAM_RM && d->ch <= 10) {
            /* capital Greek: sfmath makes it class 7, and \sansmath's \fam
             * (the OpenSans m/sl = m/it math alphabet) takes it */
            static const unsigned short greek[11] = {0x393, 0x394, 0x398, 0x39B, 0x39E, 0x3A0,
                                                     0x3A3, 0x3A5, 0x3A6, 0x3A8, 0x3A9};
            os_atom(L, os_letter_face(L->alpha), greek[d->ch], d->cls, no_scripts);
        } else char_atom(L, d->fam, d->ch, d->cls, no_scripts);
        return;
    case K_TSYM: /* \# \$ \% \&: mathcode class 0, the operators font */
        if (d->fam == FAM_RM) os_atom(L, OS_UP, (unsigned)d->val, d->cls, no_scripts);
        else if (d->fam == FAM_SY) char_atom(L, d->fam, (int)d->val, d->cls, no_scripts);
        else text_glyph_atom(L, d->ch, no_scripts);
        return;
    case K_DEGREE: { /* gensymb without a TS1 text font: \ensuremath{^\circ} */
        box c = cm_char_box(style_size(L->c, sup_style(L->style)), FAM_SY, 0x0E, NULL);
        box_atom(L, C_ORD, make_scripts(L, nullbox, 0, 0, &c, NULL), no_scripts);
        return;
    }
    case K_BIGOP: {
        int ch = L->style == ST_D ? (int)d->val2 : d->ch;
        b = center_on_axis(L, cm_char_box(m, FAM_EX, ch, NULL));
        box_atom(L, C_OP, b, no_scripts);
        return;
    }
    case K_ANGLE: {
        const msize *s = &L->c->m[1];
        box n = cm_char_box(s, FAM_SY, 0x36, NULL);
        box t = {14 * sy_param(s, 6) / 18, n.h + n.d + 0.34, 0};
        box_atom(L, C_ORD, t, no_scripts);
        return;
    }
    case K_CONG: {
        /* \@vereq: \sim over a math "=", the operators font's */
        box t = cm_char_box(m, FAM_SY, 0x18, NULL), e = glyph_box(0, 0, '=', m->size);
        box c = {dmax(t.w, e.w), t.h + t.d - 0.5 + e.h - 0.5, e.d + 0.5};
        box_atom(L, C_REL, c, no_scripts);
        return;
    }
    case K_NOTREL: {
        box n = cm_char_box(m, FAM_SY, 0x36, NULL);
        box e = d->fam == FAM_RM ? glyph_box(0, 0, d->ch, m->size) : cm_char_box(m, d->fam, d->ch, NULL);
        box c = {e.w, dmax(n.h, e.h), dmax(n.d, e.d)};
        box_atom(L, C_REL, c, no_scripts);
        return;
    }
    case K_NOT: {
        box n = cm_char_box(m, FAM_SY, 0x36, NULL);
        n.w = 0;
        box_atom(L, C_REL, n, 1);
        return;
    }
    case K_DOTS: {
        box dot = d->ch ? cm_char_box(m, FAM_SY, 0x01, NULL) : cm_char_box(m, FAM_MI, 0x3A, NULL);
        double thin = L->style <= ST_T ? 3 * ml_mu(L) : 0;
        box t = {3 * dot.w + 2 * thin, dot.h, dot.d};
        box_atom(L, C_INNER, t, no_scripts);
        return;
    }
    case K_STRUT: {
        box t;
        if (d->ch == 1) {
            t = cm_char_box(m, FAM_RM, '(', NULL);
        } else {
            double bs = baselineskip(L->c->tf.size);
            t.h = 0.7 * bs;
            t.d = 0.3 * bs;
        }
        t.w = 0;
        box_atom(L, C_ORD, t, no_scripts);
        return;
    }
    default:
        return;
    }
}
/* math spacing: \, \quad \hspace \kern ... */
static void math_space_macro(ml *L, const mdef *d)
{
    P *p = L->p;
    switch (d->kind) {
    case K_SPACE:
        ml_kern(L, d->val2 != 0 ? d->val2 * ml_mu(L) : d->val * L->c->tf.size * TM_FONT_SCALE);
        return;
    case K_INTERWORD:
        ml_kern(L, text_space(L->c->tf.bold, L->c->tf.it, L->c->tf.size));
        return;
    case K_HSPACE: {
        const char *in;
        size_t inlen;
        if (*p->s == '*') p->s++;
        p->s = brace_arg(p->s, &in, &inlen);
        double v = 0;
        if (parse_dim(in, in + inlen, L->c->tf.size, &v, NULL)) ml_kern(L, v);
        return;
    }
    case K_KERN: {
        double v = 0;
        const char *e = p->s;
        while (*e && e - p->s < 32) e++;
        const char *after;
        if (parse_dim(p->s, e, L->c->tf.size, &v, &after)) {
            p->s = after;
            ml_kern(L, v);
        }
        return;
    }
    default:
        return;
    }
}
/* \left ... \right, \middle and \big delimiters */
static void math_delim_macro(ml *L, const mdef *d, int no_scripts)
{
    P *p = L->p;
    const msize *m = ml_size(L);
    switch (d->kind) {
    case K_LEFT: {
        delim l = {-1, -1, -1}, r = {-1, -1, -1};
        read_delim(p, &l);
        if (p->depth >= MAXDEPTH) return;
        box in = math_list(p, L->c, L->style, L->cramped, L->alpha, MK_RIGHT);
        if (p->got_right) { p->got_right = 0; read_delim(p, &r); }
        double a = sy_param(m, 22);
        double d1 = dmax(in.h - a, in.d + a);
        double need = dmax(d1 / 500 * 901, 2 * d1 - 5);
        box lb = center_on_axis(L, var_delim(L, l, need)), rb = center_on_axis(L, var_delim(L, r, need));
        if (l.sch < 0) lb.h = lb.d = 0;
        if (r.sch < 0) rb.h = rb.d = 0;
        box t = {lb.w + in.w + rb.w, dmax(in.h, dmax(lb.h, rb.h)), dmax(in.d, dmax(lb.d, rb.d))};
        box_atom(L, C_INNER, t, no_scripts);
        return;
    }
    case K_RIGHT: { /* a \right without \left */
        delim r;
        read_delim(p, &r);
        return;
    }
    case K_MIDDLE:
    case K_BIG: {
        delim dl;
        if (!read_delim(p, &dl)) return;
        double need = 0;
        if (d->kind == K_BIG) {
            double x = d->val * 1.2 * 0.7 * baselineskip(L->c->m[0].size);
            need = dmax(x / 2 / 500 * 901, x - 5);
        }
        box_atom(L, dl.sch < 0 ? C_ORD : C_ORD, center_on_axis(L, var_delim(L, dl, need)), no_scripts);
        return;
    }
    default:
        return;
    }
}
/* fractions, roots, lines, arrows and accents over and under an argument, stacked relations */
static void math_layout_macro(ml *L, const mdef *d, int no_scripts)
{
    const msize *m = ml_size(L);
    box b;
    switch (d->kind) {
    case K_FRAC: {
        int fs = d->ch == 1 ? ST_D : d->ch == 2 ? ST_T : L->style;
        b = frac_box(L, fs, 1);
        b.w += 2 * 1.2; /* \nulldelimiterspace on both sides */
        box_atom(L, C_ORD, b, no_scripts);
        return;
    }
    case K_BINOM: {
        b = frac_box(L, L->style, 0);
        const msize *mm = ml_size(L);
        double size = L->style == ST_D ? sy_param(mm, 20) : sy_param(mm, 21);
        delim lp = {FAM_RM, 0x28, 0x00}, rp = {FAM_RM, 0x29, 0x01};
        box l = center_on_axis(L, var_delim(L, lp, size)), r = center_on_axis(L, var_delim(L, rp, size));
        b.w += l.w + r.w;
        b.h = dmax(b.h, dmax(l.h, r.h));
        b.d = dmax(b.d, dmax(l.d, r.d));
        box_atom(L, C_ORD, b, no_scripts);
        return;
    }
    case K_SQRT:
        box_atom(L, C_ORD, sqrt_box(L), no_scripts);
        return;
    case K_OVERLINE: {
        b = math_arg(L, L->style, 1, L->alpha);
        b.h += 5 * rule_thickness(m);
        box_atom(L, C_ORD, b, no_scripts);
        return;
    }
    case K_UNDERLINE: {
        b = math_arg(L, L->style, L->cramped, L->alpha);
        b.d += 5 * rule_thickness(m);
        box_atom(L, C_ORD, b, no_scripts);
        return;
    }
    case K_OVERARROW:
        box_atom(L, C_ORD, overarrow_box(L, d->ch), no_scripts);
        return;
    case K_ACCENT:
        if (d->fam == FAM_RM) box_atom(L, C_ORD, os_accent_box(L, (unsigned)d->val), no_scripts);
        else box_atom(L, C_ORD, accent_box(L, m->f[d->fam], d->ch, 0), no_scripts);
        return;
    case K_WIDEACCENT:
        box_atom(L, C_ORD, accent_box(L, m->f[FAM_EX], d->ch, 1), no_scripts);
        return;
    case K_STACK: {
        box top = math_arg(L, sup_style(L->style), 0, L->alpha);
        box base = math_arg(L, L->style, L->cramped, L->alpha);
        double theta = rule_thickness(m);
        box t = base;
        t.w = dmax(base.w, top.w);
        if (d->ch != 2) t.h = base.h + 3 * theta + top.h + top.d;
        else t.d = base.d + 3 * theta + top.h + top.d;
        box_atom(L, d->ch == 3 ? C_REL : C_ORD, t, no_scripts);
        return;
    }
    default:
        return;
    }
}
/* a macro typesetting its argument: \text, \mathbf, \operatorname, \phantom, \fbox, ... */
static void math_arg_macro(ml *L, const mdef *d, int no_scripts)
{
    P *p = L->p;
    const msize *m = ml_size(L);
    box b;
    switch (d->kind) {
    case K_TEXTARG:
        box_atom(L, C_ORD, text_in_math(L, d), no_scripts);
        return;
    case K_MATHFONT:
        box_atom(L, C_ORD, math_arg(L, L->style, L->cramped, d->ch), no_scripts);
        return;
    case K_MATHCLASS:
        box_atom(L, d->ch, math_arg(L, L->style, L->cramped, L->alpha), no_scripts);
        return;
    case K_OPERATORNAME:
        if (*skip_ws(p->s) == '*') p->s = skip_ws(p->s) + 1;
        box_atom(L, C_OP, math_arg(L, L->style, L->cramped, MA_RM), no_scripts);
        return;
    case K_OPNAME:
        box_atom(L, C_OP, opname_box(L, d->name, strlen(d->name)), no_scripts);
        return;
    case K_PHANTOM:
    case K_SMASH: {
        b = math_arg(L, L->style, L->cramped, L->alpha);
        if (d->kind == K_SMASH) b.h = b.d = 0;
        else if (d->ch == 2) b.h = b.d = 0;
        else if (d->ch == 3) b.w = 0;
        box_atom(L, C_ORD, b, no_scripts);
        return;
    }
    case K_ENSUREMATH:
        box_atom(L, C_ORD, math_arg(L, L->style, L->cramped, L->alpha), no_scripts);
        return;
    case K_SKIP1THEN:
        p->s = skip_arg(p->s);
        box_atom(L, C_ORD, math_arg(L, L->style, L->cramped, L->alpha), no_scripts);
        return;
    case K_FBOX: case K_SCALEBOX: case K_RULE: case K_MAKEBOX: case K_PARBOX: case K_RAISEBOX: {
        tfont f = L->c->tf;
        f.size = m->size;
        if (generic_box(p, d, f, &b)) box_atom(L, C_ORD, b, no_scripts);
        return;
    }
    default:
        return;
    }
}

static void math_macro(ml *L, const mdef *d, const char *name, size_t len, int no_scripts)
{
    P *p = L->p;
    switch (d ? d->kind : 0) {
    case K_MSYM: case K_TSYM: case K_DEGREE: case K_BIGOP: case K_ANGLE: case K_CONG:
    case K_NOTREL: case K_NOT: case K_DOTS: case K_STRUT:
        math_symbol_macro(L, d, no_scripts);
        return;
    case K_SPACE: case K_INTERWORD: case K_HSPACE: case K_KERN:
        math_space_macro(L, d);
        return;
    case K_LEFT: case K_RIGHT: case K_MIDDLE: case K_BIG:
        math_delim_macro(L, d, no_scripts);
        return;
    case K_FRAC: case K_BINOM: case K_SQRT: case K_OVERLINE: case K_UNDERLINE: case K_OVERARROW:
    case K_ACCENT: case K_WIDEACCENT: case K_STACK:
        math_layout_macro(L, d, no_scripts);
        return;
    case K_TEXTARG: case K_MATHFONT: case K_MATHCLASS: case K_OPERATORNAME: case K_OPNAME:
    case K_PHANTOM: case K_SMASH: case K_ENSUREMATH: case K_SKIP1THEN: case K_FBOX:
    case K_SCALEBOX: case K_RULE: case K_MAKEBOX: case K_PARBOX: case K_RAISEBOX:
        math_arg_macro(L, d, no_scripts);
        return;
    case K_MSTYLE:
        L->style = d->ch;
        return;
    case K_TEXTSCRIPT:
        return;
    case K_LINEBREAK:
        linebreak_args(p, L->c->tf.size);
        return;
    case K_SKIPARG:
        p->s = skip_macro_args(p->s, d->ch);
        return;
    default:
        /* unknown or text-only macros: skipped (their arguments follow as
         * ordinary groups) */
        (void)name;
        (void)len;
        return;
    }
}

/* Mathcodes of the ASCII characters: LaTeX's, with sfmath's letters
 * (SFMath: OpenSans m/sl, i.e. Italic) and sansmath's digits and
 * punctuation (operators: OpenSans Regular); the operators family also
 * gives + = : ; ( ) [ ] ! ? and every character without a mathcode. */
static void ascii_math(ml *L, int c, int no_scripts)
{
    int alpha = L->alpha;
    if (is_letter(c)) {
        if (alpha == MA_CAL && c >= 'A' && c <= 'Z') char_atom(L, FAM_SY, c, C_ORD, no_scripts);
        else os_atom(L, os_letter_face(alpha), (unsigned)c, C_ORD, no_scripts);
        return;
    }
    if (is_digit(c)) { /* sansmath: class 0, so no math alphabet changes them */
        os_atom(L, OS_UP, (unsigned)c, C_ORD, no_scripts);
        return;
    }
    switch (c) {
    case '+': os_atom(L, OS_UP, c, C_BIN, no_scripts); return;
    case '-': char_atom(L, FAM_SY, 0x00, C_BIN, no_scripts); return;
    case '*': char_atom(L, FAM_SY, 0x03, C_BIN, no_scripts); return;
    case '=': os_atom(L, OS_UP, c, C_REL, no_scripts); return;
    case ':': os_atom(L, OS_UP, c, C_REL, no_scripts); return;
    case '<': case '>': char_atom(L, FAM_MI, c, C_REL, no_scripts); return;
    case ',': os_atom(L, OS_UP, c, C_PUNCT, no_scripts); return;
    case ';': os_atom(L, OS_UP, c, C_PUNCT, no_scripts); return;
    case '.': os_atom(L, OS_UP, c, C_ORD, no_scripts); return;
    case '/': char_atom(L, FAM_MI, 0x3D, C_ORD, no_scripts); return;
    case '(': case '[': os_atom(L, OS_UP, c, C_OPEN, no_scripts); return;
    case ')': case ']': case '!': case '?': os_atom(L, OS_UP, c, C_CLOSE, no_scripts); return;
    case '|': char_atom(L, FAM_SY, 0x6A, C_ORD, no_scripts); return;
    default: os_atom(L, OS_UP, c, C_ORD, no_scripts); return;
    }
}

/* One item of a math list (consumes at least one byte unless at a stop). */
static void math_item(ml *L, int no_scripts)
{
    P *p = L->p;
    const char *s = p->s;
    unsigned char c = (unsigned char)*s;
    if (is_space(c)) { p->s++; return; }
    if (c == '%') { while (*p->s && *p->s != '\n') p->s++; return; }
    if (c == '{') {
        if (p->depth >= MAXDEPTH) { p->s = skip_arg(p->s); return; }
        p->s++;
        box b = math_list(p, L->c, L->style, L->cramped, L->alpha, MK_GROUP);
        box_atom(L, C_ORD, b, no_scripts);
        return;
    }
    if (c == '^' || c == '_' || c == '\'') { /* scripts with an empty nucleus */
        if (no_scripts) { p->s++; return; }
        box_atom(L, C_ORD, nullbox, 0);
        return;
    }
    if (c == '~') {
        p->s++;
        ml_kern(L, text_space(L->c->tf.bold, L->c->tf.it, L->c->tf.size));
        return;
    }
    if (c == '&' || c == '#' || c == '}' || c == '$') { p->s++; return; }
    if (c == '\\') {
        const char *name;
        size_t len;
        p->s = read_cs(s, &name, &len);
        if (len == 0) return;
        const mdef *d = lookup(name, len);
        math_macro(L, d, name, len, no_scripts);
        return;
    }
    if (c < 0x80) {
        p->s++;
        ascii_math(L, c, no_scripts);
        return;
    }
    unsigned cp;
    p->s += utf8_decode(s, &cp);
    text_glyph_atom(L, cp, no_scripts);
}

/* What a math terminator at *ps means to a list of the given kind:
 * 0 not a terminator, 1 ours (consumed), 2 an outer list's (not consumed),
 * 3 stray (consumed and ignored).  *got_right: the list ended at \\right. */
static int math_term(const char **ps, int kind, int *got_right)
{
    const char *s = *ps;
    int top = kind == MK_DOLLAR || kind == MK_DDOLLAR || kind == MK_PAREN || kind == MK_BRACKET;
    if (*s == '$') {
        if (kind == MK_DOLLAR) { *ps = s + 1; return 1; }
        if (kind == MK_DDOLLAR) { *ps = s + (s[1] == '$' ? 2 : 1); return 1; }
        if (top) { *ps = s + 1; return 3; }
        return 2;
    }
    if (*s == '}') {
        if (kind == MK_GROUP) { *ps = s + 1; return 1; }
        if (top) { *ps = s + 1; return 3; }
        return 2;
    }
    if (*s == ']' && kind == MK_OPT) { *ps = s + 1; return 1; }
    if (*s == '\\' && (s[1] == ')' || s[1] == ']')) {
        int mine = (s[1] == ')' && kind == MK_PAREN) || (s[1] == ']' && kind == MK_BRACKET);
        if (mine) { *ps = s + 2; return 1; }
        if (top) { *ps = s + 2; return 3; }
        return 2;
    }
    if (*s == '\\' && strncmp(s + 1, "right", 5) == 0 && !is_letter((unsigned char)s[6])) {
        if (kind == MK_RIGHT) { *ps = s + 6; *got_right = 1; return 1; }
        if (top) {
            delim r;
            const char *e = scan_delim(s + 6, &r);
            *ps = e ? e : s + 6;
            return 3;
        }
        return 2;
    }
    return 0;
}

static box math_list(P *p, const mctx *c, int style, int cramped, int alpha, int kind)
{
    ml L;
    ml_init(&L, p, c, style, cramped, alpha);
    p->depth++;
    for (;;) {
        if (!*p->s) break;
        int t = math_term(&p->s, kind, &p->got_right);
        if (t == 1 || t == 2) break;
        if (t == 3) continue;
        math_item(&L, 0);
    }
    p->depth--;
    return ml_finish(&L);
}

/* A formula started in text mode (kind: how it ends). */
static box math_formula(P *p, const tfont *f, int kind, int style)
{
    mctx c;
    mctx_init(&c, f);
    if (p->depth >= MAXDEPTH) {
        /* too deep: skip to the end of the formula without typesetting */
        while (*p->s) {
            int t = math_term(&p->s, kind, &p->got_right);
            if (t == 1) break;
            if (t == 0) p->s++;
        }
        return nullbox;
    }
    return math_list(p, &c, style, 0, MA_NONE, kind);
}

/* A single math construct met in text mode (TeX would insert $): measured
 * as a one-atom formula. */
static box math_in_text(P *p, const tfont *f, const mdef *d, const char *name, size_t len)
{
    mctx c;
    mctx_init(&c, f);
    ml L;
    ml_init(&L, p, &c, ST_T, 0, MA_NONE);
    p->depth++;
    math_macro(&L, d, name, len, 0);
    p->depth--;
    return ml_finish(&L);
}

/* -- text mode -- */

/* Precomposed Latin-1 letters for the text accents \' \` \^ \" \~. */
static unsigned compose(int acc, unsigned base)
{
    static const char *const rows[] = {"'AEIOUYaeiouy", "`AEIOUaeiou", "^AEIOUaeiou", "\"AEIOUaeiouy", "~ANOano"};
    static const unsigned short cps[][12] = {
        {0xC1, 0xC9, 0xCD, 0xD3, 0xDA, 0xDD, 0xE1, 0xE9, 0xED, 0xF3, 0xFA, 0xFD},
        {0xC0, 0xC8, 0xCC, 0xD2, 0xD9, 0xE0, 0xE8, 0xEC, 0xF2, 0xF9},
        {0xC2, 0xCA, 0xCE, 0xD4, 0xDB, 0xE2, 0xEA, 0xEE, 0xF4, 0xFB},
        {0xC4, 0xCB, 0xCF, 0xD6, 0xDC, 0xE4, 0xEB, 0xEF, 0xF6, 0xFC, 0xFF},
        {0xC3, 0xD1, 0xD5, 0xE3, 0xF1, 0xF5}};
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        if (rows[r][0] != acc) continue;
        const char *q = strchr(rows[r] + 1, (int)base);
        if (base && base < 128 && q) return cps[r][q - rows[r] - 1];
    }
    return base;
}

/* a font switch: \large, \bfseries, \itshape, \em, \fontsize, ... */
static void text_font_macro(P *p, tfont *f, const mdef *d)
{
    switch (d->kind) {
    case K_SIZE:
        f->size = d->val;
        return;
    case K_SERIES:
        f->bold = d->ch;
        return;
    case K_SHAPE:
        f->it = d->ch;
        return;
    case K_NORMALFONT:
        f->bold = f->it = f->tt = 0;
        return;
    case K_FAMILY: /* \tt: \normalfont\ttfamily */
        if (d->ch == 2) f->bold = f->it = 0;
        f->tt = d->ch != 0;
        return;
    case K_EMSWITCH:
        f->it = !f->it;
        return;
    case K_FONTSIZE: {
        const char *in;
        size_t inlen;
        p->s = brace_arg(p->s, &in, &inlen);
        double v;
        if (parse_dim(in, in + inlen, f->size, &v, NULL) && v > 0) f->size = v;
        p->s = skip_arg(p->s);
        return;
    }
    case K_FONTSERIES: case K_FONTSHAPE: {
        const char *in;
        size_t inlen;
        p->s = brace_arg(p->s, &in, &inlen);
        if (d->kind == K_FONTSERIES) f->bold = inlen > 0 && (in[0] == 'b' || in[0] == 's');
        else f->it = inlen > 0 && (in[0] == 'i' || in[0] == 's');
        return;
    }
    default:
        return;
    }
}
/* text spacing and line breaks: \, \quad \hspace \kern \\ */
static void text_space_macro(P *p, const tfont *f, hlist *hl, const mdef *d)
{
    switch (d->kind) {
    case K_SPACE: /* em of the text font */
        hl_kern(hl, d->val * f->size * TM_FONT_SCALE);
        return;
    case K_INTERWORD:
        hl_space(hl, f, 1);
        return;
    case K_LINEBREAK: {
        double extra = linebreak_args(p, f->size);
        if (hl == p->line) finish_line(p, extra);
        return;
    }
    case K_HSPACE: {
        const char *in;
        size_t inlen;
        if (*p->s == '*') p->s++;
        p->s = brace_arg(p->s, &in, &inlen);
        double v;
        if (parse_dim(in, in + inlen, f->size, &v, NULL)) hl_kern(hl, v);
        return;
    }
    case K_KERN: {
        double v = 0;
        const char *e = p->s;
        while (*e && e - p->s < 32) e++;
        const char *after;
        if (parse_dim(p->s, e, f->size, &v, &after)) {
            p->s = after;
            hl_kern(hl, v);
        }
        return;
    }
    default:
        return;
    }
}
/* a macro typesetting its argument in text: \textbf, \mbox, \underline, accents, \ensuremath, \phantom, scripts, \fbox, ... */
static void text_arg_macro(P *p, const tfont *f, hlist *hl, const mdef *d, const char *name)
{
    box b;
    switch (d->kind) {
    case K_OVERLINE: case K_UNDERLINE: { /* text-mode \underline / \overline */
        tfont g = *f;
        b = text_arg(p, g);
        if (d->kind == K_UNDERLINE) b.d = dmax(b.d, 0.4 * f->size / 10 * 4);
        else b.h += 0.4 * f->size / 10 * 5;
        hl_box(hl, b);
        return;
    }
    case K_TEXTARG: {
        tfont g = *f;
        if (d->ch & TA_BOLD) g.bold = 1;
        if (d->ch & TA_MD) g.bold = 0;
        if (d->ch & TA_IT) g.it = 1;
        if (d->ch & TA_UP) g.it = 0;
        if (d->ch & TA_EMPH) g.it = !g.it;
        if (d->ch & TA_NORMAL) g.bold = g.it = g.tt = 0;
        if (d->ch & TA_TT) g.tt = 1;
        if (d->ch & TA_SF) g.tt = 0;
        if (d->ch & TA_BOX) { /* \mbox, \hbox, \text: a box, spaces kept */
            hl_box(hl, text_arg(p, g));
            return;
        }
        p->s = skip_ws(p->s);
        if (*p->s == '{' && p->depth < MAXDEPTH) {
            p->s++;
            p->depth++;
            text_run(p, &g, hl, 1); /* same list: spaces and \\ behave as in a group */
            p->depth--;
        } else if (*p->s == '{') {
            p->s = skip_arg(p->s);
        } else if (*p->s && *p->s != '}') {
            p->depth++;
            text_token(p, &g, hl, 0);
            p->depth--;
        }
        /* LaTeX's \check@icr: a slanted argument ends with \/ unless a
         * period or comma follows */
        if (g.it && hl->last_ic > 0 && *p->s != '.' && *p->s != ',') hl_kern(hl, hl->last_ic);
        return;
    }
    case K_ACCENT: {
        p->s = skip_ws(p->s);
        const char *s = p->s;
        int braced = *s == '{';
        if (braced) s++;
        unsigned cp = 0;
        int n = 0;
        if (*s && *s != '}' && *s != '\\') n = utf8_decode(s, &cp);
        if (n && (!braced || s[n] == '}')) {
            p->s = s + n + (braced ? 1 : 0);
            unsigned comp = compose(name[0], cp);
            b = glyph_box(f->bold, f->it, comp, f->size);
            if (comp == cp) b.h = dmax(b.h, (tm_text_fonts[0].cap_height + 0.2) * f->size * TM_FONT_SCALE);
            hl_box(hl, b);
        } else {
            hl_box(hl, text_arg(p, *f));
        }
        return;
    }
    case K_ENSUREMATH: {
        p->s = skip_ws(p->s);
        if (*p->s == '{' && p->depth < MAXDEPTH) {
            p->s++;
            mctx c;
            mctx_init(&c, f);
            hl_box(hl, math_list(p, &c, ST_T, 0, MA_NONE, MK_GROUP));
        } else {
            p->s = skip_arg(p->s);
        }
        return;
    }
    case K_PHANTOM: case K_SMASH: {
        b = text_arg(p, *f);
        if (d->kind == K_SMASH || d->ch == 2) b.h = b.d = 0;
        if (d->ch == 3) b.w = 0;
        hl_box(hl, b);
        return;
    }
    case K_TEXTSCRIPT: {
        tfont g = *f;
        double s, ss;
        math_sizes(f->size, &s, &ss);
        g.size = s;
        box x = text_arg(p, g);
        mctx c;
        mctx_init(&c, f);
        ml L;
        ml_init(&L, p, &c, ST_T, 0, MA_NONE);
        b = d->ch == 1 ? make_scripts(&L, nullbox, 0, 0, &x, NULL) : make_scripts(&L, nullbox, 0, 0, NULL, &x);
        hl_box(hl, b);
        return;
    }
    case K_FBOX: case K_SCALEBOX: case K_RULE: case K_MAKEBOX: case K_PARBOX: case K_RAISEBOX:
        if (generic_box(p, d, *f, &b)) hl_box(hl, b);
        return;
    default:
        return;
    }
}

static void text_macro(P *p, tfont *f, hlist *hl, const char *name, size_t len)
{
    const mdef *d = lookup(name, len);
    if (!d) return; /* unknown: skipped; its arguments follow as groups */
    switch (d->kind) {
    case K_SIZE: case K_SERIES: case K_SHAPE: case K_NORMALFONT: case K_EMSWITCH: case K_FONTSIZE:
    case K_FONTSERIES: case K_FONTSHAPE: case K_FAMILY:
        text_font_macro(p, f, d);
        return;
    case K_VERB: { /* \verb*?<c>...<c>: every character (a space too) in tt */
        tfont g = *f;
        g.tt = 1;
        if (*p->s == '*') p->s++;
        unsigned delim;
        if (!*p->s) return;
        p->s += utf8_decode(p->s, &delim);
        while (*p->s) {
            unsigned cp;
            p->s += utf8_decode(p->s, &cp);
            if (cp == delim) break;
            hl_tt_glyph(hl, &g, cp == ' ' ? 'o' : cp);
        }
        return;
    }
    case K_SPACE: case K_INTERWORD: case K_LINEBREAK: case K_HSPACE: case K_KERN:
        text_space_macro(p, f, hl, d);
        return;
    case K_TEXTARG: case K_OVERLINE: case K_UNDERLINE: case K_ACCENT: case K_ENSUREMATH:
    case K_PHANTOM: case K_SMASH: case K_TEXTSCRIPT: case K_FBOX: case K_SCALEBOX: case K_RULE:
    case K_MAKEBOX: case K_PARBOX: case K_RAISEBOX:
        text_arg_macro(p, f, hl, d, name);
        return;
    case K_TSYM:
        hl_glyph(hl, f, d->ch);
        return;
    case K_MSYM:
        if (d->fam == FAM_TEXT) { hl_glyph(hl, f, d->ch); return; }
        /* fall through */
    case K_DEGREE: case K_ANGLE: case K_CONG: case K_NOTREL: case K_FRAC: case K_BINOM: case K_SQRT:
    case K_OVERARROW: case K_BIGOP: case K_OPNAME: case K_OPERATORNAME: case K_MATHFONT:
    case K_WIDEACCENT: case K_LEFT: case K_BIG: case K_STACK: case K_MATHCLASS:
        hl_box(hl, math_in_text(p, f, d, name, len));
        return;
    case K_DOTS:
        hl_glyph(hl, f, 0x2026);
        return;
    case K_SKIPARG:
        p->s = skip_macro_args(p->s, d->ch);
        return;
    case K_SKIP1THEN:
        p->s = skip_arg(p->s);
        return; /* the next group is typeset as an ordinary group */
    case K_STRUT: {
        box t = {0, 0.7 * baselineskip(f->size), 0.3 * baselineskip(f->size)};
        if (d->ch == 1) { hl_box(hl, math_in_text(p, f, d, name, len)); return; }
        hl_box(hl, t);
        return;
    }
    default:
        return;
    }
}

/* One token of text; returns 1 when the group (or input) ended. */
static int text_token(P *p, tfont *f, hlist *hl, int group)
{
    const char *s = p->s;
    unsigned char c = (unsigned char)*s;
    switch (c) {
    case 0:
        return 1;
    case '}':
        p->s++;
        return group;
    case '{':
        p->s++;
        if (p->depth < MAXDEPTH) {
            tfont g = *f;
            p->depth++;
            text_run(p, &g, hl, 1);
            p->depth--;
        }
        return 0;
    case '$':
        if (s[1] == '$') { p->s += 2; hl_box(hl, math_formula(p, f, MK_DDOLLAR, ST_D)); }
        else { p->s++; hl_box(hl, math_formula(p, f, MK_DOLLAR, ST_T)); }
        return 0;
    case '%':
        while (*p->s && *p->s != '\n') p->s++;
        while (is_space((unsigned char)*p->s)) p->s++;
        return 0;
    case '~':
        p->s++;
        hl_space(hl, f, 1);
        return 0;
    case '&': case '#': case '^': case '_':
        p->s++;
        return 0;
    case '\\': {
        if (s[1] == '(' || s[1] == '[') {
            p->s += 2;
            hl_box(hl, math_formula(p, f, s[1] == '(' ? MK_PAREN : MK_BRACKET, s[1] == '(' ? ST_T : ST_D));
            return 0;
        }
        if (s[1] == ')' || s[1] == ']') { p->s += 2; return 0; }
        const char *name;
        size_t len;
        p->s = read_cs(s, &name, &len);
        if (len) text_macro(p, f, hl, name, len);
        return 0;
    }
    default:
        break;
    }
    if (is_space(c)) {
        while (is_space((unsigned char)*p->s)) p->s++;
        hl_space(hl, f, 0);
        return 0;
    }
    unsigned cp;
    if (c == '-') {
        if (s[1] == '-' && s[2] == '-') { cp = 0x2014; p->s += 3; }
        else if (s[1] == '-') { cp = 0x2013; p->s += 2; }
        else { cp = '-'; p->s++; }
    } else if (c == '`') {
        if (s[1] == '`') { cp = 0x201C; p->s += 2; } else { cp = 0x2018; p->s++; }
    } else if (c == '\'') {
        if (s[1] == '\'') { cp = 0x201D; p->s += 2; } else { cp = 0x2019; p->s++; }
    } else {
        p->s += utf8_decode(s, &cp);
    }
    hl_glyph(hl, f, cp);
    return 0;
}

static void text_run(P *p, tfont *f, hlist *hl, int group)
{
    while (!text_token(p, f, hl, group)) {}
}

tm_extent tm_measure_tex(const char *tex, double size_pt, int font)
{
    tm_extent e = {0, 0, 0, 1, 0};
    if (!(size_pt > 0 && size_pt < 16384)) size_pt = 12; /* also NaN */
    if (!tex || !*tex) return e;
    hlist line;
    hl_init(&line);
    P p;
    memset(&p, 0, sizeof p);
    p.s = tex;
    p.line = &line;
    p.bskip = baselineskip(size_pt);
    tfont f = {size_pt, font & TM_FONT_BOLD ? 1 : 0, font & TM_FONT_IT ? 1 : 0, font & TM_FONT_TT ? 1 : 0};
    text_run(&p, &f, &line, 0);
    finish_line(&p, 0); /* after a final \\ an empty row, as in TikZ's \halign */
    e.width = p.maxw;
    e.height = p.first_h;
    e.depth = p.prev_d;
    e.lines = p.lines;
    e.skip = p.skip;
    return e;
}

/* ---- font= options ------------------------------------------------------ */

double tm_font_size(const char *opt, double base_pt, int *font)
{
    double size = base_pt;
    if (!opt) return size;
    int fl = font ? *font : 0;
    const char *s = opt;
    while (*s) {
        if (*s != '\\') { s++; continue; }
        const char *name;
        size_t len;
        s = read_cs(s, &name, &len);
        const mdef *d = len ? lookup(name, len) : NULL;
        if (!d) continue;
        if (d->kind == K_SIZE) size = d->val;
        else if (d->kind == K_SERIES) fl = d->ch ? fl | TM_FONT_BOLD : fl & ~TM_FONT_BOLD;
        else if (d->kind == K_SHAPE) fl = d->ch ? fl | TM_FONT_IT : fl & ~TM_FONT_IT;
        else if (d->kind == K_EMSWITCH) fl ^= TM_FONT_IT;
        else if (d->kind == K_NORMALFONT) fl = 0;
        else if (d->kind == K_FAMILY) {
            if (d->ch == 2) fl = 0;
            fl = d->ch ? fl | TM_FONT_TT : fl & ~TM_FONT_TT;
        }
        else if (d->kind == K_TEXTARG && (d->ch & TA_BOLD)) fl |= TM_FONT_BOLD;
        else if (d->kind == K_FONTSIZE) {
            const char *in;
            size_t inlen;
            double v;
            s = brace_arg(s, &in, &inlen);
            if (parse_dim(in, in + inlen, size, &v, NULL) && v > 0) size = v;
        } else if (d->kind == K_FONTSERIES || d->kind == K_FONTSHAPE) {
            const char *in;
            size_t inlen;
            s = brace_arg(s, &in, &inlen);
            int on = inlen > 0 && (in[0] == (d->kind == K_FONTSERIES ? 'b' : 'i') || in[0] == 's');
            int bit = d->kind == K_FONTSERIES ? TM_FONT_BOLD : TM_FONT_IT;
            fl = on ? fl | bit : fl & ~bit;
        }
    }
    if (font) *font = fl;
    return size;
}

/* ---- plain text --------------------------------------------------------- */

typedef struct {
    const char *s;
    char *b;        /* the output: sbuf until it needs more, then malloc'd */
    char *sbuf;     /* tm_plain_text's stack buffer (not freed) */
    size_t n, cap;
    size_t floor;  /* no space is written at this offset (start of a part) */
    int oom, depth, got_right;
    int msp, last_op; /* math: a source space is pending; the last output was an operator */
} PT;

static void pt_put(PT *t, const char *s, size_t n)
{
    if (t->oom || n == 0) return;
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (t->n + n + 1 > cap) cap *= 2;
        char *b = t->b == t->sbuf ? malloc(cap) : realloc(t->b, cap);
        if (!b) { t->oom = 1; return; }
        if (t->b == t->sbuf && t->n) memcpy(b, t->b, t->n);
        t->b = b;
        t->cap = cap;
    }
    memcpy(t->b + t->n, s, n);
    t->n += n;
}

static void pt_str(PT *t, const char *s) { if (s) pt_put(t, s, strlen(s)); }

static void pt_cp(PT *t, unsigned cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) { u[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { u[0] = (char)(0xC0 | cp >> 6); u[1] = (char)(0x80 | (cp & 63)); n = 2; }
    else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | cp >> 12); u[1] = (char)(0x80 | (cp >> 6 & 63)); u[2] = (char)(0x80 | (cp & 63)); n = 3;
    } else {
        u[0] = (char)(0xF0 | cp >> 18); u[1] = (char)(0x80 | (cp >> 12 & 63));
        u[2] = (char)(0x80 | (cp >> 6 & 63)); u[3] = (char)(0x80 | (cp & 63)); n = 4;
    }
    pt_put(t, u, n);
}

/* Copies the UTF-8 character at s; an invalid byte becomes U+FFFD, so the
 * plain text is always valid UTF-8. */
static int pt_char(PT *t, const char *s)
{
    unsigned cp;
    int n = utf8_decode(s, &cp);
    if (cp == 0xFFFD && n == 1) pt_cp(t, 0xFFFD);
    else pt_put(t, s, (size_t)n);
    return n;
}

static void pt_space(PT *t)
{
    if (t->n <= t->floor || t->oom) return;
    char last = t->b[t->n - 1];
    if (last != ' ' && last != '\n') pt_put(t, " ", 1);
}

static void pt_run(PT *t, int math, int kind);
static void pt_macro(PT *t, int math, const char *name, size_t len);

/* Math-mode output.  Source spaces are kept only beside relations, binary
 * operators (op 1: spaced on both sides if on either) and punctuation (op 2:
 * space after only), so "\\alpha + \\beta" reads "α + β" and "P_1 P_2" "P₁P₂". */
static void pt_mathput(PT *t, const char *s, size_t n, int op, int space_after)
{
    if (op == 1 && (t->msp || space_after)) pt_space(t);
    else if (op == 0 && t->msp && t->last_op) pt_space(t);
    t->msp = op && space_after;
    pt_put(t, s, n);
    t->last_op = op != 0;
}

/* Renders one argument (group or token) in the given mode. */
static void pt_arg(PT *t, int math)
{
    t->s = skip_ws(t->s);
    if (t->depth >= MAXDEPTH) { t->s = skip_arg(t->s); return; }
    if (*t->s == '{') {
        t->s++;
        t->depth++;
        pt_run(t, math, MK_GROUP);
        t->depth--;
        return;
    }
    if (!*t->s || *t->s == '}' || (math && math_stop(t->s))) return;
    /* a single token */
    const char *e = skip_arg(t->s);
    if (*t->s == '\\') {
        const char *name;
        size_t len;
        t->s = read_cs(t->s, &name, &len);
        if (len) {
            t->depth++;
            pt_macro(t, math, name, len);
            t->depth--;
        }
        return;
    }
    pt_char(t, t->s);
    t->s = e;
}

/* Renders an argument into a fresh malloc'd string (NULL when empty). */
static char *pt_sub(PT *t, int math)
{
    size_t o = t->n, fl = t->floor;
    t->floor = t->n;
    t->msp = t->last_op = 0;
    pt_arg(t, math);
    t->msp = t->last_op = 0;
    t->floor = fl;
    if (t->oom) return NULL;
    size_t n = t->n - o;
    while (n > 0 && t->b[o + n - 1] == ' ') n--;
    char *r = malloc(n + 1);
    if (!r) { t->oom = 1; return NULL; }
    if (n) memcpy(r, t->b + o, n);
    r[n] = 0;
    t->n = o;
    return r;
}

static int needs_parens(const char *s)
{
    int cps = 0;
    if (*s == '-') s++; /* a leading minus sign binds */
    for (const char *p = s; *p;) {
        unsigned cp;
        p += utf8_decode(p, &cp);
        cps++;
        if (strchr(" +-*/=<>,:;", (int)cp) && cp) return 1;
        if (cp == 0x2212 || cp == 0xB7 || cp == 0xD7 || cp == 0xF7 || cp == 0x2264 || cp == 0x2265) return 1;
    }
    return 0;
}

static void pt_wrapped(PT *t, const char *s)
{
    if (needs_parens(s)) { pt_put(t, "(", 1); pt_str(t, s); pt_put(t, ")", 1); }
    else pt_str(t, s);
}

/* x^s and x_s: Unicode super/subscripts when every character has one. */
static void pt_script(PT *t, const char *s, int sup)
{
    /* digits and signs only: "h_a" stays "h_a" like "h_b" (Unicode has no
     * subscript b), so labels read and grep alike */
    static const char sup_from[] = "0123456789+-=()";
    static const unsigned sup_to[] = {0x2070, 0xB9, 0xB2, 0xB3, 0x2074, 0x2075, 0x2076, 0x2077,
                                      0x2078, 0x2079, 0x207A, 0x207B, 0x207C, 0x207D, 0x207E};
    static const char sub_from[] = "0123456789+-=()";
    static const unsigned sub_to[] = {0x2080, 0x2081, 0x2082, 0x2083, 0x2084, 0x2085, 0x2086, 0x2087,
                                      0x2088, 0x2089, 0x208A, 0x208B, 0x208C, 0x208D, 0x208E};
    if (!s || !*s) return;
    if (sup && (strcmp(s, "∘") == 0 || strcmp(s, "°") == 0)) { pt_str(t, "°"); return; }
    if (sup && strspn(s, "′") == strlen(s)) { pt_str(t, s); return; }
    const char *from = sup ? sup_from : sub_from;
    const unsigned *to = sup ? sup_to : sub_to;
    int ok = 1, ncp = 0;
    for (const char *p = s; *p;) {
        unsigned cp;
        p += utf8_decode(p, &cp);
        ncp++;
        if (cp == 0x2212) cp = '-';
        if (cp >= 128 || !strchr(from, (int)cp)) ok = 0;
    }
    if (ok) {
        for (const char *p = s; *p;) {
            unsigned cp;
            p += utf8_decode(p, &cp);
            if (cp == 0x2212) cp = '-';
            pt_cp(t, to[strchr(from, (int)cp) - from]);
        }
        return;
    }
    pt_put(t, sup ? "^" : "_", 1);
    if (ncp == 1) pt_str(t, s);
    else { pt_put(t, "(", 1); pt_str(t, s); pt_put(t, ")", 1); }
}

static void pt_newline(PT *t)
{
    while (t->n > 0 && t->b[t->n - 1] == ' ') t->n--;
    pt_put(t, "\n", 1);
}

static void pt_delim(PT *t)
{
    delim d;
    const char *s = skip_ws(t->s);
    const char *e = scan_delim(s, &d);
    if (!e) return;
    if (*s == '\\') s++;
    if (*s != '.') {
        if (is_letter((unsigned char)*s)) {
            const mdef *m = lookup(s, (size_t)(e - s));
            if (m) pt_str(t, m->plain);
        } else {
            pt_put(t, s, 1);
        }
    }
    t->s = e;
}

/* In math, before pt_macro's text-mode cases: a symbol's text with the
 * spaces around it (op 1: a binary operator or relation, 2: punctuation),
 * and for the macros that write math text, pt_mathput with no text; 1 when
 * the macro is done */
static int pt_math_macro(PT *t, const mdef *d, const char *name, size_t len)
{
    int op = 0;
    if ((d->kind == K_MSYM || d->kind == K_TSYM) && (d->cls == C_BIN || d->cls == C_REL)) op = 1;
    else if (d->kind == K_MSYM && d->cls == C_PUNCT) op = 2;
    else if (d->kind == K_CONG || d->kind == K_NOTREL) op = 1;
    int ate = is_space((unsigned char)name[len]); /* the control word ate a space */
    switch (d->kind) {
    case K_MSYM: case K_TSYM: case K_DEGREE: case K_ANGLE: case K_CONG: case K_NOTREL:
    case K_DOTS: case K_BIGOP:
        pt_mathput(t, d->plain, strlen(d->plain), op, ate);
        return 1;
    case K_OPNAME: {
        pt_mathput(t, d->plain, strlen(d->plain), 0, 0);
        const char *n = skip_ws(t->s);
        if (*n && !strchr("(^_[", *n)) t->msp = t->last_op = 1;
        return 1;
    }
    case K_SPACE: case K_INTERWORD: case K_HSPACE: case K_KERN: case K_SKIPARG: case K_SKIP1THEN:
    case K_LINEBREAK: case K_FONTSIZE: case K_FONTSERIES: case K_FONTSHAPE: case K_MSTYLE:
    case K_IGNORE: case K_SIZE: case K_SERIES: case K_SHAPE: case K_NORMALFONT: case K_EMSWITCH:
    case K_STRUT: case K_NOT: case K_FAMILY:
        break;
    default:
        pt_mathput(t, "", 0, 0, 0);
        break;
    }
    return 0;
}

/* fractions, roots, stacks and delimiters as plain text: a/b, C(a,b), √a */
static void pt_layout_macro(PT *t, const mdef *d)
{
    const char *in;
    size_t inlen;
    switch (d->kind) {
    case K_FRAC: case K_BINOM: {
        char *a = pt_sub(t, 1);
        char *b = pt_sub(t, 1);
        if (d->kind == K_BINOM) {
            pt_str(t, "C(");
            pt_str(t, a);
            pt_put(t, ",", 1);
            pt_str(t, b);
            pt_put(t, ")", 1);
        } else {
            if (a) pt_wrapped(t, a);
            pt_put(t, "/", 1);
            if (b) pt_wrapped(t, b);
        }
        free(a);
        free(b);
        return;
    }
    case K_SQRT: {
        char *idx = NULL;
        const char *after = opt_arg(t->s, &in, &inlen);
        if (after && t->depth < MAXDEPTH) {
            size_t o = t->n;
            t->s = skip_ws(t->s) + 1;
            t->depth++;
            pt_run(t, 1, MK_OPT);
            t->depth--;
            if (!t->oom) {
                idx = malloc(t->n - o + 1);
                if (idx) {
                    if (t->n > o) memcpy(idx, t->b + o, t->n - o);
                    idx[t->n - o] = 0;
                }
                t->n = o;
            }
        }
        char *a = pt_sub(t, 1);
        if (idx) pt_script(t, idx, 1);
        pt_str(t, "√");
        if (a) pt_wrapped(t, a);
        free(a);
        free(idx);
        return;
    }
    case K_STACK:
        t->s = skip_arg(t->s);
        pt_arg(t, 1);
        return;
    case K_LEFT:
        pt_delim(t);
        if (t->depth < MAXDEPTH) {
            t->depth++;
            pt_run(t, 1, MK_RIGHT);
            t->depth--;
        }
        return;
    case K_RIGHT: case K_MIDDLE: case K_BIG:
        pt_delim(t);
        return;
    default:
        return;
    }
}
/* macros that leave no text, or a space: their arguments skipped */
static void pt_skip_macro(PT *t, const mdef *d)
{
    const char *in;
    size_t inlen;
    switch (d->kind) {
    case K_SKIPARG: {
        const char *after = opt_arg(t->s, &in, &inlen);
        if (after) t->s = after;
        for (int i = 0; i < d->ch; i++) t->s = skip_arg(t->s);
        return;
    }
    case K_SKIP1THEN:
        t->s = skip_arg(t->s);
        return;
    case K_FONTSIZE:
        t->s = skip_arg(skip_arg(t->s));
        return;
    case K_FONTSERIES: case K_FONTSHAPE:
        t->s = skip_arg(t->s);
        return;
    case K_HSPACE:
        if (*t->s == '*') t->s++;
        t->s = skip_arg(t->s);
        pt_space(t);
        return;
    case K_KERN: {
        double v;
        const char *e = t->s, *after;
        while (*e && e - t->s < 32) e++;
        if (parse_dim(t->s, e, 12, &v, &after)) t->s = after;
        return;
    }
    case K_PHANTOM:
        t->s = skip_arg(t->s);
        if (d->ch != 3) pt_space(t); /* blank space where the phantom is */
        return;
    case K_RULE: {
        const char *after = opt_arg(t->s, &in, &inlen);
        if (after) t->s = after;
        t->s = skip_arg(skip_arg(t->s));
        return;
    }
    default:
        return;
    }
}
/* boxes (their text) and text-mode scripts */
static void pt_box_macro(PT *t, const mdef *d)
{
    const char *in;
    size_t inlen;
    switch (d->kind) {
    case K_FBOX:
        if (d->ch == 1) t->s = skip_arg(t->s);
        pt_arg(t, 0);
        return;
    case K_SCALEBOX: case K_RAISEBOX: {
        t->s = skip_arg(t->s);
        for (int i = 0; i < 2; i++) {
            const char *after = opt_arg(t->s, &in, &inlen);
            if (!after) break;
            t->s = after;
        }
        pt_arg(t, 0);
        return;
    }
    case K_MAKEBOX: case K_PARBOX: {
        for (int i = 0; i < 3; i++) {
            const char *after = opt_arg(t->s, &in, &inlen);
            if (!after) break;
            t->s = after;
        }
        if (d->kind == K_PARBOX) t->s = skip_arg(t->s);
        pt_arg(t, 0);
        return;
    }
    case K_TEXTSCRIPT: {
        char *a = pt_sub(t, 0);
        pt_script(t, a, d->ch == 1);
        free(a);
        return;
    }
    default:
        return;
    }
}

static void pt_macro(PT *t, int math, const char *name, size_t len)
{
    const mdef *d = lookup(name, len);
    const char *in;
    size_t inlen;
    if (!d) return;
    if (math && pt_math_macro(t, d, name, len)) return;
    switch (d->kind) {
    case K_FRAC: case K_BINOM: case K_SQRT: case K_STACK: case K_LEFT: case K_RIGHT: case K_MIDDLE:
    case K_BIG:
        pt_layout_macro(t, d);
        return;
    case K_SKIPARG: case K_SKIP1THEN: case K_FONTSIZE: case K_FONTSERIES: case K_FONTSHAPE:
    case K_HSPACE: case K_KERN: case K_PHANTOM: case K_RULE:
        pt_skip_macro(t, d);
        return;
    case K_FBOX: case K_SCALEBOX: case K_RAISEBOX: case K_MAKEBOX: case K_PARBOX:
    case K_TEXTSCRIPT:
        pt_box_macro(t, d);
        return;
    case K_MSYM: case K_TSYM: case K_DEGREE: case K_ANGLE: case K_CONG: case K_NOTREL: case K_DOTS:
    case K_BIGOP: case K_OPNAME:
        pt_str(t, d->plain);
        return;
    case K_SPACE:
        if (strcmp(d->plain, " ") == 0) pt_space(t);
        t->msp = 0;
        return;
    case K_INTERWORD:
        pt_space(t);
        t->msp = 0;
        return;
    case K_VERB: { /* \verb*?<c>...<c>: the characters as they are */
        if (*t->s == '*') t->s++;
        unsigned delim, cp;
        if (!*t->s) return;
        t->s += utf8_decode(t->s, &delim);
        while (*t->s) {
            t->s += utf8_decode(t->s, &cp);
            if (cp == delim) break;
            if (cp == ' ') pt_space(t); else pt_cp(t, cp);
        }
        return;
    }
    case K_LINEBREAK:
        {
            const char *s = skip_ws(t->s);
            if (*s == '*') s++;
            const char *after = opt_arg(s, &in, &inlen);
            t->s = after ? after : s;
        }
        pt_newline(t);
        return;
    case K_TEXTARG:
        pt_arg(t, 0);
        return;
    case K_MATHFONT: case K_MATHCLASS: case K_ENSUREMATH: case K_OVERLINE: case K_UNDERLINE:
    case K_OVERARROW: case K_SMASH:
        pt_arg(t, 1);
        return;
    case K_OPERATORNAME:
        if (*skip_ws(t->s) == '*') t->s = skip_ws(t->s) + 1;
        pt_arg(t, 1);
        return;
    case K_ACCENT: case K_WIDEACCENT: {
        if (!math && d->kind == K_ACCENT) {
            const char *s = skip_ws(t->s);
            int braced = *s == '{';
            if (braced) s++;
            unsigned cp = 0;
            int n = (*s && *s != '\\' && *s != '}') ? utf8_decode(s, &cp) : 0;
            if (n && (!braced || s[n] == '}')) {
                unsigned c = compose(name[0], cp);
                t->s = s + n + braced;
                pt_cp(t, c);
                if (c == cp) pt_cp(t, (unsigned)d->val);
                return;
            }
        }
        pt_arg(t, math);
        if (d->val > 0) pt_cp(t, (unsigned)d->val);
        return;
    }
    default:
        return;
    }
}

static void pt_run(PT *t, int math, int kind)
{
    while (*t->s && !t->oom) {
        const char *s = t->s;
        unsigned char c = (unsigned char)*s;
        if (math) {
            int r = math_term(&t->s, kind, &t->got_right);
            if (r == 1 || r == 2) {
                if (kind == MK_RIGHT && r == 1) { t->got_right = 0; pt_delim(t); }
                return;
            }
            if (r == 3) continue;
        } else if (c == '}') {
            t->s++;
            if (kind == MK_GROUP) return;
            continue;
        }
        if (is_space(c)) {
            while (is_space((unsigned char)*t->s)) t->s++;
            if (math) t->msp = 1;
            else pt_space(t);
            continue;
        }
        if (math && c != '\\' && c != '^' && c != '_' && c != '\'' && c != '%') {
            int op = strchr("=<>+-*:", c) ? 1 : strchr(",;", c) ? 2 : 0;
            if (op) {
                t->s++;
                pt_mathput(t, s, 1, op, is_space((unsigned char)*t->s));
                continue;
            }
            pt_mathput(t, "", 0, 0, 0);
        }
        switch (c) {
        case '{':
            t->s++;
            if (t->depth < MAXDEPTH) {
                t->depth++;
                pt_run(t, math, MK_GROUP);
                t->depth--;
            }
            continue;
        case '%':
            while (*t->s && *t->s != '\n') t->s++;
            continue;
        case '~':
            t->s++;
            pt_space(t);
            t->msp = 0;
            continue;
        case '&': case '#':
            t->s++;
            continue;
        case '$':
            if (!math) {
                int dd = s[1] == '$';
                t->s += dd ? 2 : 1;
                if (t->depth < MAXDEPTH) {
                    t->depth++;
                    pt_run(t, 1, dd ? MK_DDOLLAR : MK_DOLLAR);
                    t->depth--;
                }
                continue;
            }
            t->s++;
            continue;
        case '^': case '_':
            t->s++;
            if (math) {
                char *a = pt_sub(t, 1);
                pt_script(t, a, c == '^');
                free(a);
            }
            continue;
        case '\'':
            if (math) {
                t->s++;
                pt_mathput(t, "′", strlen("′"), 0, 0);
                continue;
            }
            if (s[1] == '\'') { t->s += 2; pt_str(t, "”"); continue; }
            t->s++;
            pt_put(t, "'", 1);
            continue;
        case '`':
            if (!math && s[1] == '`') { t->s += 2; pt_str(t, "“"); continue; }
            t->s++;
            pt_str(t, math ? "`" : "‘");
            continue;
        case '-':
            if (!math && s[1] == '-') {
                int em = s[2] == '-';
                t->s += em ? 3 : 2;
                pt_str(t, em ? "—" : "–");
                continue;
            }
            t->s++;
            pt_put(t, "-", 1);
            continue;
        case '\\': {
            if (!math && (s[1] == '(' || s[1] == '[')) {
                t->s += 2;
                if (t->depth < MAXDEPTH) {
                    t->depth++;
                    pt_run(t, 1, s[1] == '(' ? MK_PAREN : MK_BRACKET);
                    t->depth--;
                }
                continue;
            }
            if (!math && (s[1] == ')' || s[1] == ']')) { t->s += 2; continue; }
            const char *name;
            size_t len;
            t->s = read_cs(s, &name, &len);
            if (len && t->depth < MAXDEPTH) {
                t->depth++;
                pt_macro(t, math, name, len);
                t->depth--;
            }
            continue;
        }
        default:
            break;
        }
        t->s += pt_char(t, s);
    }
}

char *tm_plain_text(const char *tex)
{
    PT t;
    char sbuf[512];
    memset(&t, 0, sizeof t);
    t.s = tex ? tex : "";
    t.b = t.sbuf = sbuf;
    t.cap = sizeof sbuf;
    pt_put(&t, "", 0);
    pt_run(&t, 0, MK_GROUP + 100);
    if (t.oom) { if (t.b != sbuf) free(t.b); return NULL; }
    /* trim each line; drop trailing empty lines */
    char *out = malloc(t.n + 1);
    if (!out) { if (t.b != sbuf) free(t.b); return NULL; }
    size_t o = 0, i = 0;
    while (i < t.n) {
        size_t e = i;
        while (e < t.n && t.b[e] != '\n') e++;
        size_t a = i, z = e;
        while (a < z && t.b[a] == ' ') a++;
        while (z > a && t.b[z - 1] == ' ') z--;
        memcpy(out + o, t.b + a, z - a);
        o += z - a;
        if (e < t.n) out[o++] = '\n';
        i = e + 1;
    }
    while (o > 0 && out[o - 1] == '\n') o--;
    out[o] = 0;
    if (t.b != sbuf) free(t.b);
    return out;
}
