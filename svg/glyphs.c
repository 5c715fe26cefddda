/* svg/glyphs.c — text drawn as glyph outlines. See svg/glyphs.h. */
#include "svg/glyphs.h"
#include "ir/xalloc.h"
#include "ir/geom_2d.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* one UTF-8 character making the whole string: its code point, else 0 */
static unsigned one_char(const char *s)
{
    if (!s) return 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p == ' ') p++;
    unsigned c = p[0];
    size_t n;
    unsigned cp;
    if (c < 0x80) { n = 1; cp = c; }
    else if (c >= 0xF0 && c < 0xF8) { n = 4; cp = c & 7; }
    else if (c >= 0xE0) { n = 3; cp = c & 15; }
    else if (c >= 0xC0) { n = 2; cp = c & 31; }
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (p[i] & 63);
    }
    p += n;
    while (*p == ' ') p++;
    if (*p || cp < 0x21 || cp == 0x7F || (cp >= 0xD800 && cp < 0xE000) || cp > 0x10FFFF) return 0;
    return cp;
}

static unsigned hex_cp(const char *s)
{
    if (!s || !*s || strlen(s) > 6) return 0;
    unsigned cp = 0;
    for (const char *p = s; *p; p++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
              : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
        if (d < 0) return 0;
        cp = cp * 16 + (unsigned)d;
    }
    return cp >= 0x21 && cp <= 0x10FFFF && !(cp >= 0xD800 && cp < 0xE000) && cp != 0x7F ? cp : 0;
}

static const char *title_of(const svg_node *n)
{
    for (size_t i = 0; n && i < n->nkids; i++) {
        const svg_node *k = n->kids[i];
        if (!k->text && !strcmp(k->name, "title") && k->nkids == 1 && k->kids[0]->text) return k->kids[0]->text;
    }
    return NULL;
}

/* dvisvgm's glyph ids: g<font number>-<code in the TeX font> */
static unsigned dvisvgm_id(const char *id)
{
    if (!id || id[0] != 'g') return 0;
    const char *p = id + 1;
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9') p++;
    if (*p++ != '-' || *p < '0' || *p > '9') return 0;
    unsigned code = 0;
    for (; *p >= '0' && *p <= '9' && code < 1000; p++) code = code * 10 + (unsigned)(*p - '0');
    if (*p) return 0;
    /* where TeX's text fonts (OT1, T1) and math letters agree with ASCII */
    if ((code >= 'A' && code <= 'Z') || (code >= 'a' && code <= 'z') || (code >= '0' && code <= '9'))
        return code;
    if (code < 128 && strchr("!'()*+,-./:;=?[]", (int)code)) return code;
    return 0;
}

unsigned svg_glyph_char(const svg_node *u, const svg_node *tg)
{
    const svg_node *el[2] = { u, tg };
    unsigned cp;
    for (int k = 0; k < 2; k++)
        if (el[k] && ((cp = one_char(svg_attr(el[k], "unicode"))) || (cp = one_char(svg_attr(el[k], "data-unicode")))))
            return cp;
    for (int k = 0; k < 2; k++)
        if (el[k] && (cp = hex_cp(svg_attr(el[k], "data-c")))) return cp;
    for (int k = 0; k < 2; k++)
        if (el[k] && ((cp = one_char(svg_attr(el[k], "aria-label"))) || (cp = one_char(title_of(el[k])))))
            return cp;
    return tg ? dvisvgm_id(svg_attr(tg, "id")) : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int svg_glyph_group_is_text(const svg_shape *sh, size_t n)
{
    if (n < 3) return 0;
    /* per glyph instance: its box */
    ir_box *b = xcalloc(n, sizeof *b);
    size_t nb = 0;
    int last = 0, ok = 1;
    ir_box all = ir_box_empty();
    for (size_t i = 0; i < n && ok; i++) {
        if (!sh[i].glyph) { ok = 0; break; }
        ir_box bi = ir_box_empty();
        for (size_t k = 0; k < sh[i].n; k++) ir_box_add(&bi, sh[i].pts[k].x, sh[i].pts[k].y);
        if (bi.empty) continue;
        ir_box_union(&all, bi);
        if (sh[i].glyph == last && nb) ir_box_union(&b[nb - 1], bi);
        else { b[nb++] = bi; last = sh[i].glyph; }
    }
    if (ok && nb >= 3) {
        double *h = xcalloc(nb, sizeof *h);
        double wsum = 0, hmax = 0;
        for (size_t i = 0; i < nb; i++) { h[i] = ir_box_h(b[i]); wsum += ir_box_w(b[i]); hmax = fmax(hmax, h[i]); }
        qsort(h, nb, sizeof *h, cmp_double);
        double med = h[nb / 2];
        ok = med > 0;
        for (size_t i = 0; i < nb && ok; i++) ok = ir_box_w(b[i]) <= 2.5 * med && ir_box_h(b[i]) <= 2 * med;
        ok = ok && ir_box_h(all) <= 2 * hmax && wsum >= 0.5 * ir_box_w(all);
        free(h);
    } else {
        ok = 0;
    }
    free(b);
    return ok;
}

/* --- texts from glyphs ---------------------------------------------------- */
typedef struct {
    ir_box box;
    ir_pt org;
    unsigned cp;
    unsigned group;
    int line, col;
    unsigned seq;
} ginst;

static void put_utf8(char **buf, size_t *len, size_t *cap, unsigned cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) { u[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { u[0] = (char)(0xC0 | (cp >> 6)); u[1] = (char)(0x80 | (cp & 63)); n = 2; }
    else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12)); u[1] = (char)(0x80 | ((cp >> 6) & 63)); u[2] = (char)(0x80 | (cp & 63)); n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18)); u[1] = (char)(0x80 | ((cp >> 12) & 63));
        u[2] = (char)(0x80 | ((cp >> 6) & 63)); u[3] = (char)(0x80 | (cp & 63)); n = 4;
    }
    if (*len + n + 1 > *cap) { *cap = (*len + n + 1) * 2; *buf = xrealloc(*buf, *cap); }
    memcpy(*buf + *len, u, n);
    *len += n;
    (*buf)[*len] = 0;
}

static void add_text(svg_scene *sc, const char *s, ir_box box, double size, double baseline, const ginst *first)
{
    if (sc->ntexts == sc->captexts) {
        sc->captexts = sc->captexts ? sc->captexts * 2 : 64;
        sc->texts = xrealloc(sc->texts, sc->captexts * sizeof *sc->texts);
    }
    svg_text *t = &sc->texts[sc->ntexts++];
    memset(t, 0, sizeof *t);
    t->text = xstrdup(s);
    t->box = box;
    t->size = size;
    t->baseline = baseline;
    t->line = first->line;
    t->col = first->col;
    t->seq = first->seq;
}

/* a run's text box: its glyphs' span, from 0.25 em under the baseline to
 * 0.75 em over it, as the boxes of text items are */
static ir_box run_box(ir_box ink, double base, double size)
{
    return ir_box_make(ink.x1, fmin(ink.y1, base - 0.25 * size), ink.x2, fmax(ink.y2, base + 0.75 * size));
}

void svg_glyph_texts(svg_scene *sc, const char *const *labels, size_t nlabels, svg_glyph_stats *st)
{
    memset(st, 0, sizeof *st);
    /* the glyph instances, in document order (a glyph's subpaths are
     * shapes of one instance) */
    ginst *g = NULL;
    size_t ng = 0, cap = 0;
    int last = 0;
    for (size_t i = 0; i < sc->nshapes; i++) {
        const svg_shape *s = &sc->shapes[i];
        if (!s->glyph) continue;
        ir_box b = ir_box_empty();
        for (size_t k = 0; k < s->n; k++) ir_box_add(&b, s->pts[k].x, s->pts[k].y);
        if (s->glyph == last && ng) { ir_box_union(&g[ng - 1].box, b); continue; }
        last = s->glyph;
        if (ng == cap) { cap = cap ? 2 * cap : 64; g = xrealloc(g, cap * sizeof *g); }
        g[ng].box = b;
        g[ng].org = s->glyph_org;
        g[ng].cp = s->glyph_cp;
        g[ng].group = s->glyph_group;
        g[ng].line = s->line;
        g[ng].col = s->col;
        g[ng].seq = s->seq;
        ng++;
    }
    st->nglyphs = ng;
    if (ng) { st->line = g[0].line; st->col = g[0].col; }
    char *buf = NULL;
    size_t len = 0, bcap = 0;
    for (size_t i = 0; i < ng;) {
        size_t j = i + 1;
        if (g[i].group) {
            /* a labelled group: one text, the label */
            ir_box ink = g[i].box;
            for (; j < ng && g[j].group == g[i].group; j++) ir_box_union(&ink, g[j].box);
            st->ntexts++;
            const char *lab = g[i].group <= nlabels ? labels[g[i].group - 1] : NULL;
            if (lab && *lab && !ink.empty) {
                /* the tallest letter is about 0.7 em (capitals, ascenders);
                 * the baseline is where most letters stand: the median of
                 * their bottoms */
                double size = 1;
                double *bot = xcalloc(j - i, sizeof *bot);
                for (size_t k = i; k < j; k++) {
                    size = fmax(size, ir_box_h(g[k].box) / 0.7);
                    bot[k - i] = g[k].box.y1;
                }
                qsort(bot, j - i, sizeof *bot, cmp_double);
                double base = bot[(j - i) / 2];
                free(bot);
                add_text(sc, lab, run_box(ink, base, size), size, base, &g[i]);
                st->nrecovered++;
            }
            i = j;
            continue;
        }
        /* a run on one baseline */
        double size = fmax((g[i].box.y2 - g[i].org.y) / 0.7, 1);
        int known = g[i].cp != 0;
        len = 0;
        if (known) put_utf8(&buf, &len, &bcap, g[i].cp);
        ir_box ink = g[i].box;
        for (; j < ng && !g[j].group; j++) {
            double s2 = fmax(size, (g[j].box.y2 - g[j].org.y) / 0.7);
            double gap = g[j].box.x1 - g[j - 1].box.x2;
            if (fabs(g[j].org.y - g[i].org.y) > 0.2 * s2 || g[j].org.x < g[j - 1].org.x - 0.1 * s2 || gap > 0.8 * s2)
                break;
            size = s2;
            if (!g[j].cp) known = 0;
            if (known) {
                if (gap > 0.2 * size) put_utf8(&buf, &len, &bcap, ' ');
                put_utf8(&buf, &len, &bcap, g[j].cp);
            }
            ir_box_union(&ink, g[j].box);
        }
        st->ntexts++;
        if (known && len) {
            add_text(sc, buf, run_box(ink, g[i].org.y, size), size, g[i].org.y, &g[i]);
            st->nrecovered++;
        }
        i = j;
    }
    free(buf);
    free(g);
}

/* --- SVG fonts ------------------------------------------------------------ */
#define MAX_FONTS 64
#define MAX_FONT_GLYPHS 65536

typedef struct { unsigned cp; double adv; } fglyph;
typedef struct {
    char *family;
    fglyph *g;
    size_t ng;
} sfont;
struct svg_fonts {
    sfont f[MAX_FONTS];
    size_t nf;
};

static double num_attr(const svg_node *n, const char *name, double dflt)
{
    const char *s = n ? svg_attr(n, name) : NULL;
    if (!s) return dflt;
    char *end;
    double v = strtod(s, &end);
    return end != s && isfinite(v) ? v : dflt;
}

static int cmp_fglyph(const void *a, const void *b)
{
    const fglyph *x = a, *y = b;
    return (x->cp > y->cp) - (x->cp < y->cp);
}

static void read_font(svg_fonts *fs, const svg_node *font)
{
    if (fs->nf >= MAX_FONTS) return;
    const svg_node *face = NULL;
    for (size_t i = 0; i < font->nkids && !face; i++)
        if (!font->kids[i]->text && !strcmp(font->kids[i]->name, "font-face")) face = font->kids[i];
    const char *fam = face ? svg_attr(face, "font-family") : NULL;
    if (!fam || !*fam) fam = svg_attr(font, "id");
    if (!fam || !*fam) return;
    double upem = num_attr(face, "units-per-em", 1000);
    if (!(upem > 0)) return;
    double dflt = num_attr(font, "horiz-adv-x", 0);
    sfont *f = &fs->f[fs->nf];
    memset(f, 0, sizeof *f);
    size_t cap = 0;
    for (size_t i = 0; i < font->nkids && f->ng < MAX_FONT_GLYPHS; i++) {
        const svg_node *g = font->kids[i];
        if (g->text || strcmp(g->name, "glyph") != 0) continue;
        unsigned cp = one_char(svg_attr(g, "unicode"));
        if (!cp) continue;
        double adv = num_attr(g, "horiz-adv-x", dflt) / upem;
        if (!(adv >= 0) || adv > 100) continue;
        if (f->ng == cap) { cap = cap ? 2 * cap : 64; f->g = xrealloc(f->g, cap * sizeof *f->g); }
        f->g[f->ng].cp = cp;
        f->g[f->ng++].adv = adv;
    }
    if (!f->ng) { free(f->g); return; }
    qsort(f->g, f->ng, sizeof *f->g, cmp_fglyph);
    f->family = xstrdup(fam);
    fs->nf++;
}

static void find_fonts(svg_fonts **fs, const svg_node *n, int depth)
{
    if (depth > 64) return;
    for (size_t i = 0; i < n->nkids; i++) {
        const svg_node *k = n->kids[i];
        if (k->text) continue;
        if (!strcmp(k->name, "font")) {
            if (!*fs) *fs = xcalloc(1, sizeof **fs);
            read_font(*fs, k);
        } else {
            find_fonts(fs, k, depth + 1);
        }
    }
}

svg_fonts *svg_fonts_read(const svg_doc *d)
{
    svg_fonts *fs = NULL;
    if (d && d->root) find_fonts(&fs, d->root, 0);
    if (fs && !fs->nf) { free(fs); fs = NULL; }
    return fs;
}

double svg_fonts_advance(const svg_fonts *fs, const char *family, unsigned cp)
{
    if (!fs || !family) return -1;
    /* the first family named, without quotes or blanks */
    while (*family == ' ' || *family == '"' || *family == '\'') family++;
    size_t len = strcspn(family, ",\"'");
    while (len && family[len - 1] == ' ') len--;
    for (size_t i = 0; i < fs->nf; i++) {
        const sfont *f = &fs->f[i];
        if (strlen(f->family) != len || strncmp(f->family, family, len) != 0) continue;
        fglyph key = { cp, 0 };
        const fglyph *g = bsearch(&key, f->g, f->ng, sizeof *f->g, cmp_fglyph);
        if (g) return g->adv;
    }
    return -1;
}

void svg_fonts_free(svg_fonts *fs)
{
    if (!fs) return;
    for (size_t i = 0; i < fs->nf; i++) { free(fs->f[i].family); free(fs->f[i].g); }
    free(fs);
}
