/* svg/glyphs.h — text drawn as glyph outlines: which character a glyph
 * stands for, where the SVG says it, and the texts the glyphs make.
 *
 * Producers draw letters as outlines in three ways this module knows:
 * a <use> of a filled <path> per letter (dvisvgm --no-fonts, MathJax), a
 * <use> of a <symbol> marked with its character, and a group of filled
 * paths, one per letter, carrying the text in aria-label (Inkscape's text
 * converted to paths). svg/render.c marks such shapes (svg_shape.glyph,
 * glyph_cp, glyph_org, glyph_group); svg_glyph_texts() then turns runs of
 * them into text items where the characters are known.
 */
#ifndef DIAGRAMIR_SVG_GLYPHS_H
#define DIAGRAMIR_SVG_GLYPHS_H

#include "svg/doc.h"
#include "svg/render.h"

#include <stddef.h>

/* The character that glyph element tg (a <path> or <symbol>), drawn by
 * <use> u, stands for, or 0 when the SVG does not say. In order: a
 * unicode or data-unicode attribute of u or tg (one character), data-c of
 * u or tg (a hexadecimal code point, MathJax 3), an aria-label or <title>
 * of one character, then tg's id: "g<font>-<code>" as dvisvgm names its
 * glyphs (the code is the TeX font's; letters, digits and the punctuation
 * that TeX's text and math fonts put at their ASCII codes are taken, the
 * rest is unknown). */
unsigned svg_glyph_char(const svg_node *u, const svg_node *tg);

typedef struct {
    size_t nglyphs;          /* glyph instances drawn */
    size_t ntexts;           /* texts they make (runs on one baseline, or a labelled group) */
    size_t nrecovered;       /* of those, read back as text items */
    int line, col;           /* the first glyph's element */
} svg_glyph_stats;

/* Groups the glyph shapes of sc into texts and appends a text item for
 * each text whose characters are all known: a labelled group's text is
 * its label (labels[glyph_group - 1]); other glyphs in document order form
 * runs (one baseline, at most 0.8 em apart; a gap over 0.2 em is a blank).
 * Counts go to *st. */
void svg_glyph_texts(svg_scene *sc, const char *const *labels, size_t nlabels, svg_glyph_stats *st);

/* 1 when shapes sh[0..n) (what a group of paths without a label drew)
 * look like one line of letters: at least 3 paths, all filled and
 * unstroked glyph candidates, of letter proportions (no wider than 2.5
 * and no taller than 2 median heights), side by side (their widths
 * cover half the group's), the group no taller than two letters. Such a
 * group is text converted to outlines whose characters are lost. */
int svg_glyph_group_is_text(const svg_shape *sh, size_t n);

/* SVG fonts (<font> with <font-face font-family units-per-em> and
 * <glyph unicode horiz-adv-x>, as dvisvgm writes them by default): the
 * advances of their characters, so that text set in them has its true
 * width. At most 64 fonts of at most 65536 glyphs are read. */
typedef struct svg_fonts svg_fonts;

/* The fonts of document d, or NULL when it has none. */
svg_fonts *svg_fonts_read(const svg_doc *d);

/* The advance of cp in font family (a font-family value: its first name,
 * quotes dropped), in em; -1 when no SVG font of that family has it. */
double svg_fonts_advance(const svg_fonts *f, const char *family, unsigned cp);

void svg_fonts_free(svg_fonts *f);

#endif
