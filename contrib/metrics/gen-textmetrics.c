/* gen-textmetrics.c — writes grammar/textmetrics_table.c, the font tables behind
 * grammar/textmetrics.c.  Not part of the normal build; contrib/metrics/regen.sh
 * builds and runs it:
 *
 *   cc -std=c11 -O2 -o gen-textmetrics gen-textmetrics.c \
 *       $(pkg-config --cflags --libs freetype2)
 *   ./gen-textmetrics OPENSANS_DIR TFM... > grammar/textmetrics_table.c
 *
 * OPENSANS_DIR holds OpenSans-{Regular,Bold,Italic,BoldItalic}.ttf (Debian
 * fonts-open-sans).  Each TFM argument is a path to a TeX font metric file
 * (kpsewhich cmmi10.tfm); its base name becomes the font's name in the table.
 *
 * OpenSans glyphs: advance width and glyph bounding box top/bottom/right, in em
 * (font units / units_per_EM), read with FreeType, unhinted and unscaled.
 * TFM: widths, heights, depths, italic corrections in units of the design
 * size, the kerning pairs of the lig/kern program (ligatures are dropped),
 * the charlist successor of each character, and the font parameters.
 */
#define _POSIX_C_SOURCE 200809L
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_TRUETYPE_TABLES_H
#include FT_OUTLINE_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const styles[4] = {"Regular", "Bold", "Italic", "BoldItalic"};

/* Code points beyond Latin-1 worth having: typography, Greek, math. */
static const unsigned extra_cps[] = {
    0x0131, 0x0152, 0x0153, 0x0160, 0x0161, 0x0178, 0x017D, 0x017E, 0x0192,
    0x02C6, 0x02DC,
    0x0391, 0x0392, 0x0393, 0x0394, 0x0395, 0x0396, 0x0397, 0x0398, 0x0399,
    0x039A, 0x039B, 0x039C, 0x039D, 0x039E, 0x039F, 0x03A0, 0x03A1, 0x03A3,
    0x03A4, 0x03A5, 0x03A6, 0x03A7, 0x03A8, 0x03A9,
    0x03B1, 0x03B2, 0x03B3, 0x03B4, 0x03B5, 0x03B6, 0x03B7, 0x03B8, 0x03B9,
    0x03BA, 0x03BB, 0x03BC, 0x03BD, 0x03BE, 0x03BF, 0x03C0, 0x03C1, 0x03C2,
    0x03C3, 0x03C4, 0x03C5, 0x03C6, 0x03C7, 0x03C8, 0x03C9, 0x03D1, 0x03D5,
    0x2002, 0x2003, 0x2009, 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015,
    0x2018, 0x2019, 0x201A, 0x201C, 0x201D, 0x201E, 0x2020, 0x2021, 0x2022,
    0x2026, 0x2030, 0x2032, 0x2033, 0x2039, 0x203A, 0x2044, 0x2070, 0x2071,
    0x2074, 0x2075, 0x2076, 0x2077, 0x2078, 0x2079, 0x207A, 0x207B, 0x207C,
    0x207D, 0x207E, 0x207F, 0x2080, 0x2081, 0x2082, 0x2083, 0x2084, 0x2085,
    0x2086, 0x2087, 0x2088, 0x2089, 0x208A, 0x208B, 0x208C, 0x208D, 0x208E,
    0x20AC, 0x2113, 0x2122, 0x2126, 0x2190, 0x2191, 0x2192, 0x2193, 0x2194,
    0x21D2, 0x21D4, 0x2202, 0x2206, 0x220F, 0x2211, 0x2212, 0x2215, 0x2219,
    0x221A, 0x221E, 0x2220, 0x2221, 0x2225, 0x2227, 0x2228, 0x2229, 0x222A,
    0x222B, 0x223C, 0x2245, 0x2248, 0x2260, 0x2261, 0x2264, 0x2265, 0x22A5,
    0x22C5, 0x25A1, 0x25B3, 0x25CB, 0xFB01, 0xFB02,
};

static void die(const char *m, const char *a)
{
    fprintf(stderr, "gen-textmetrics: %s%s%s\n", m, a ? ": " : "", a ? a : "");
    exit(1);
}

static void emit_opensans(FT_Library lib, const char *dir)
{
    for (int s = 0; s < 4; s++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/OpenSans-%s.ttf", dir, styles[s]);
        FT_Face f;
        if (FT_New_Face(lib, path, 0, &f)) die("cannot open", path);
        double em = f->units_per_EM;
        TT_OS2 *os2 = FT_Get_Sfnt_Table(f, FT_SFNT_OS2);
        if (!os2) die("no OS/2 table", path);
        unsigned cps[256 + sizeof extra_cps / sizeof extra_cps[0]];
        size_t n = 0;
        for (unsigned c = 0; c < 256; c++) cps[n++] = c;
        for (size_t i = 0; i < sizeof extra_cps / sizeof extra_cps[0]; i++) cps[n++] = extra_cps[i];
        printf("static const tm_glyph os_%s_glyphs[] = {\n", styles[s]);
        size_t nextra = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned c = cps[i];
            FT_UInt gi = (c < 32 || (c >= 127 && c < 160)) ? 0 : FT_Get_Char_Index(f, c);
            double adv = 0, top = 0, bot = 0, right = 0;
            if (gi) {
                if (FT_Load_Glyph(f, gi, FT_LOAD_NO_SCALE | FT_LOAD_NO_HINTING)) die("load glyph", path);
                FT_BBox bb;
                FT_Outline_Get_CBox(&f->glyph->outline, &bb);
                adv = f->glyph->metrics.horiAdvance / em;
                if (f->glyph->outline.n_points > 0) {
                    top = bb.yMax / em;
                    bot = bb.yMin / em;
                    right = bb.xMax / em;
                }
            } else if (c >= 256) {
                continue; /* extras: only the glyphs the font has */
            }
            if (c >= 256) nextra++;
            printf("    {0x%04X, %.6f, %.6f, %.6f, %.6f},\n", c, adv, top, bot, right);
        }
        printf("};\n\n");
        printf("/* %s: %s %s, units_per_EM %d */\n", styles[s], f->family_name, f->style_name,
               f->units_per_EM);
        printf("#define OS_%s_INFO %.6f, %.6f, %.6f, %.6f, os_%s_glyphs, %zu\n\n", styles[s],
               f->ascender / em, f->descender / em, os2->sCapHeight / em, os2->sxHeight / em,
               styles[s], 256 + nextra);
        FT_Done_Face(f);
    }
    printf("const tm_text_font tm_text_fonts[4] = {\n");
    for (int s = 0; s < 4; s++) printf("    {\"OpenSans-%s\", OS_%s_INFO},\n", styles[s], styles[s]);
    printf("};\n\n");
}

/* --- TFM ------------------------------------------------------------------ */

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) die("cannot open", path);
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, fp)) > 0) {
        n += r;
        if (n == cap) b = realloc(b, cap *= 2);
    }
    fclose(fp);
    if (!b) die("out of memory", NULL);
    *len = n;
    return b;
}

static double fixword(const unsigned char *p)
{
    int32_t v = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
    return v / 1048576.0;
}

static void emit_tfm(const char *path, int idx, char names[][32])
{
    size_t len;
    unsigned char *t = slurp(path, &len);
    if (len < 24) die("short TFM", path);
#define H(i) ((unsigned)t[2 * (i)] << 8 | t[2 * (i) + 1])
    unsigned lf = H(0), lh = H(1), bc = H(2), ec = H(3), nw = H(4), nh = H(5), nd = H(6),
             ni = H(7), nl = H(8), nk = H(9), ne = H(10), np = H(11);
#undef H
    if ((size_t)lf * 4 > len || ec > 255 || bc > ec + 1) die("bad TFM header", path);
    const unsigned char *hdr = t + 24, *ci = hdr + 4 * lh, *wd = ci + 4 * (ec - bc + 1),
                        *ht = wd + 4 * nw, *dp = ht + 4 * nh, *it = dp + 4 * nd, *lk = it + 4 * ni,
                        *kn = lk + 4 * nl, *pa = kn + 4 * nk + 4 * ne;
    if (pa + 4 * np > t + len) die("truncated TFM", path);
    double design = fixword(hdr + 4);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(names[idx], 32, "%.*s", (int)strcspn(base, "."), base);
    const char *nm = names[idx];

    printf("static const tm_kern %s_kerns[] = {\n", nm);
    unsigned nkern = 0;
    for (unsigned c = bc; c <= ec && c < 128; c++) {
        const unsigned char *q = ci + 4 * (c - bc);
        if ((q[2] & 3) != 1) continue;
        unsigned i = q[3];
        const unsigned char *l = lk + 4 * i;
        if (l[0] > 128) i = 256u * l[2] + l[3];
        for (unsigned guard = 0; i < nl && guard < 1024; guard++) {
            l = lk + 4 * i;
            if (l[0] <= 128 && l[2] >= 128 && l[1] < 128) {
                unsigned k = 256u * (l[2] - 128) + l[3];
                if (k < nk) {
                    printf("    {%u, %u, %.6f},\n", c, l[1], fixword(kn + 4 * k));
                    nkern++;
                }
            }
            if (l[0] >= 128) break;
            i += l[0] + 1u;
        }
    }
    if (!nkern) printf("    {0, 0, 0},\n");
    printf("};\n");
    printf("const tm_cm_font tm_cm_%s = {\"%s\", %.6f, {\n", nm, nm, design);
    for (unsigned c = 0; c < 128; c++) {
        double w = 0, h = 0, d = 0, ic = 0;
        int next = -1, exists = 0;
        if (c >= bc && c <= ec) {
            const unsigned char *q = ci + 4 * (c - bc);
            if (q[0]) {
                exists = 1;
                w = fixword(wd + 4 * q[0]);
                h = fixword(ht + 4 * (q[1] >> 4));
                d = fixword(dp + 4 * (q[1] & 15));
                ic = fixword(it + 4 * (q[2] >> 2));
                if ((q[2] & 3) == 2) next = q[3];
            }
        }
        printf("    {%.6f, %.6f, %.6f, %.6f, %d, %d},\n", w, h, d, ic, next, exists);
    }
    printf("}, {0");
    for (unsigned i = 1; i <= 22; i++) printf(", %.6f", i <= np ? fixword(pa + 4 * (i - 1)) : 0.0);
    printf("}, %s_kerns, %u};\n\n", nm, nkern);
    (void)lf;
    free(t);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: gen-textmetrics OPENSANS_DIR TFM...\n");
        return 2;
    }
    FT_Library lib;
    if (FT_Init_FreeType(&lib)) die("FreeType init failed", NULL);
    printf("/* textmetrics_table.c — GENERATED by contrib/metrics/gen-textmetrics.c; do not edit.\n"
           " *\n"
           " * Regenerate with:  sh contrib/metrics/regen.sh   (needs libfreetype-dev,\n"
           " * fonts-open-sans and texlive-base)\n"
           " *\n"
           " * Sources and licenses of the metrics below:\n"
           " *  - Open Sans Regular, Bold, Italic, Bold Italic (Debian fonts-open-sans,\n"
           " *    /usr/share/fonts/truetype/open-sans), by Steve Matteson, Ascender Corp.,\n"
           " *    Apache License 2.0.  Advance widths and glyph bounding boxes in em.\n"
           " *  - Computer Modern TFM files (cmmi, cmr, cmsy, cmex, cmbx) from TeX Live, by\n"
           " *    Donald E. Knuth, under Knuth's license: the files may be used and copied\n"
           " *    freely, but changed files must not keep the original names.  Widths,\n"
           " *    heights, depths, italic corrections, kerns and parameters in units of\n"
           " *    the design size.\n"
           " */\n"
           "#define TM_TABLE_INTERNAL\n"
           "#include \"grammar/textmetrics.h\"\n\n");
    emit_opensans(lib, argv[1]);
    static char names[64][32];
    int nf = 0;
    for (int i = 2; i < argc && nf < 64; i++, nf++) emit_tfm(argv[i], nf, names);
    printf("const tm_cm_font *const tm_cm_fonts[] = {\n");
    for (int i = 0; i < nf; i++) printf("    &tm_cm_%s,\n", names[i]);
    printf("};\nconst int tm_cm_nfonts = %d;\n", nf);
    FT_Done_FreeType(lib);
    return 0;
}
