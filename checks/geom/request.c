/* request.c — reads what a teacher's request states (request.h).
 *
 * The text is cut into tokens: numbers (digits, a decimal point; number
 * words one to twelve), words (ASCII letters, lowered), the multiplication
 * signs "x", "by", "×" and "*" between numbers, the degree sign, and
 * punctuation. Then a few passes read what requests state:
 *   - shape words: "triangle", "rectangle", "square" (not "square units"),
 *     "rectangular prism", "cube", "cylinder", ...; qualities before them
 *     ("right", "isosceles") and words that make a solid composite
 *     ("composite", "L-shaped", "split", "plus", "attached", "stacked"
 *     with several prisms) or overlapping ("overlapping", "cross");
 *   - dimensions: NUM [unit] x NUM [unit] [x NUM [unit]], and "NUM [unit]
 *     long/wide/tall" or "length NUM" lists (three in one clause);
 *   - triangle sides: "sides a, b, c" (three numbers, units allowed);
 *   - angles: a number followed by "°" or "degree(s)" (not part of an
 *     expression such as "(2x + 10)°");
 *   - unit cubes: "N (unit) cubes", "L layers, M cubes per layer", "A x B
 *     x C" of unit cubes (summed over parts that do not overlap). When two
 *     readings disagree, the count is unknown.
 * Nothing here knows a dataset; every rule is about the language.
 */
#include "checks/geom/request.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { T_NUM, T_WORD, T_TIMES, T_DEG, T_PUNCT };

typedef struct {
    int kind;
    double num;
    int numword;       /* a number written as a word ("two") */
    int glued;         /* no space before it */
    char w[24];        /* T_WORD: the word, lowered; T_PUNCT: the character */
} tok;

#define MAXTOK 1024

static int is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static const char *const numwords[] = {"zero", "one", "two", "three", "four", "five", "six",
                                       "seven", "eight", "nine", "ten", "eleven", "twelve"};

/* Cuts s into at most max tokens; returns the count. */
static int tokenize(const char *s, tok *t, int max)
{
    int n = 0;
    const unsigned char *p = (const unsigned char *)s;
    int space = 1;
    while (*p && n < max) {
        tok *k = &t[n];
        memset(k, 0, sizeof *k);
        k->glued = !space;
        if (is_digit(*p) || (*p == '.' && is_digit(p[1]))) {
            double v = 0;
            int digits = 0;
            while (is_digit(*p)) {
                /* the first 15 digits; each later one multiplies by ten, up
                 * to a magnitude past any use (readers reject it) */
                if (digits < 15) v = v * 10 + (*p - '0');
                else if (v < 1e30) v *= 10;
                digits++;
                p++;
            }
            if (*p == '.' && is_digit(p[1])) {
                double f = 0.1;
                p++;
                while (is_digit(*p)) {
                    if (f > 1e-15) v += f * (*p - '0');
                    f *= 0.1;
                    p++;
                }
            }
            k->kind = T_NUM;
            k->num = v;
            n++;
            space = 0;
            continue;
        }
        if (is_alpha(*p)) {
            size_t m = 0;
            while (is_alpha(*p)) {
                if (m < sizeof k->w - 1) k->w[m++] = (char)(*p | 0x20);
                p++;
            }
            k->w[m] = 0;
            k->kind = T_WORD;
            for (int i = 1; i < (int)(sizeof numwords / sizeof numwords[0]); i++)
                if (!strcmp(k->w, numwords[i])) {
                    k->kind = T_NUM;
                    k->num = i;
                    k->numword = 1;
                }
            n++;
            space = 0;
            continue;
        }
        if (p[0] == 0xC3 && p[1] == 0x97) {   /* × */
            k->kind = T_TIMES;
            p += 2;
            n++;
            space = 0;
            continue;
        }
        if (p[0] == 0xC2 && p[1] == 0xB0) {   /* ° */
            k->kind = T_DEG;
            p += 2;
            n++;
            space = 0;
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            space = 1;
            p++;
            continue;
        }
        if (*p < 0x80) {
            k->kind = *p == '*' ? T_TIMES : T_PUNCT;
            k->w[0] = (char)*p;
            n++;
        } else {
            /* other UTF-8: skip the whole character, it separates words */
            p++;
            while ((*p & 0xC0) == 0x80) p++;
            space = 1;
            continue;
        }
        p++;
        space = 0;
    }
    return n;
}

static int is_word(const tok *t, int n, int i, const char *w)
{
    return i >= 0 && i < n && t[i].kind == T_WORD && !strcmp(t[i].w, w);
}

static int word_in(const tok *t, int n, int i, const char *const *list)
{
    if (i < 0 || i >= n || t[i].kind != T_WORD) return 0;
    for (; *list; list++)
        if (!strcmp(t[i].w, *list)) return 1;
    return 0;
}

static const char *const unit_words[] = {"cm", "mm", "m", "in", "inch", "inches", "ft", "feet",
                                         "foot", "yd", "yards", "units", "unit", "km",
                                         "meters", "meter", "centimeters", "cubes", "cube",
                                         NULL};
static const char *const dim_words[] = {"long", "wide", "high", "tall", "deep", "length",
                                        "width", "height", "depth", NULL};

/* the multiplication sign between numbers: x, by, ×, * */
static int is_times(const tok *t, int n, int i)
{
    return i < n && (t[i].kind == T_TIMES || is_word(t, n, i, "x") || is_word(t, n, i, "by"));
}

/* After a number at i: its unit words (and "unit cubes") and a dimension
 * word; returns the index past them, the unit into u (first seen). */
static int skip_units(const tok *t, int n, int i, char *u, size_t ulen)
{
    while (i < n && (word_in(t, n, i, unit_words) || word_in(t, n, i, dim_words))) {
        if (u && !*u && word_in(t, n, i, unit_words)) {
            const char *w = t[i].w;
            /* "unit cubes": the unit is the cube */
            if (!strcmp(w, "unit") && is_word(t, n, i + 1, "cubes")) w = "cubes";
            if (!strcmp(w, "cube")) w = "cubes";
            if (!strcmp(w, "unit")) w = "units";
            if (!strcmp(w, "inch") || !strcmp(w, "inches")) w = "in";
            if (!strcmp(w, "feet") || !strcmp(w, "foot")) w = "ft";
            if (!strcmp(w, "meters") || !strcmp(w, "meter")) w = "m";
            if (!strcmp(w, "centimeters")) w = "cm";
            if (!strcmp(w, "yards")) w = "yd";
            snprintf(u, ulen, "%s", w);
        }
        i++;
    }
    return i;
}

static void add_dims(geom_rq_dims *list, int *nlist, const double *v, int nv, const char *unit)
{
    if (*nlist >= RQ_MAX) return;
    geom_rq_dims *d = &list[(*nlist)++];
    memset(d, 0, sizeof *d);
    for (int k = 0; k < nv && k < 3; k++) d->v[k] = v[k];
    d->n = nv;
    snprintf(d->unit, sizeof d->unit, "%s", unit);
}

/* A number usable as a length: finite, positive, not absurd. */
static int good_len(double v) { return isfinite(v) && v > 0 && v < 1e6; }

/* 0 length, 1 width, 2 height, 3 depth */
static int dim_axis(const char *w);

/* Dimensions "A [u] x B [u] [x C [u]]" starting at the number at i.
 * Returns the index past them (i when there are none); *nv, v, unit; *lwh
 * is 1 when each number was named length, width (or depth) and height
 * ("8 cubes long by 2 cubes wide by 2 cubes high"), and v is then in that
 * order. */
static int read_dims(const tok *t, int n, int i, double *v, int *nv, char *unit, size_t ulen,
                     int *lwh)
{
    *nv = 0;
    *lwh = 0;
    unit[0] = 0;
    int axis[3] = {-1, -1, -1};
    int j = i;
    while (j < n && t[j].kind == T_NUM && !t[j].numword && *nv < 3) {
        v[(*nv)++] = t[j].num;
        int k = skip_units(t, n, j + 1, unit, ulen);
        for (int m = j + 1; m < k; m++)
            if (word_in(t, n, m, dim_words)) axis[*nv - 1] = dim_axis(t[m].w);
        if (*nv < 3 && is_times(t, n, k) && k + 1 < n && t[k + 1].kind == T_NUM &&
            !t[k + 1].numword) {
            j = k + 1;
            continue;
        }
        j = k;
        break;
    }
    if (*nv < 2) return i;
    for (int k = 0; k < *nv; k++)
        if (!good_len(v[k])) return i;
    if (*nv == 3) {
        int seen[4] = {0, 0, 0, 0}, ok = 1;
        for (int k = 0; k < 3; k++) {
            if (axis[k] < 0 || seen[axis[k]]) ok = 0;
            else seen[axis[k]] = 1;
        }
        if (ok && seen[2]) {
            double o[4] = {0, 0, 0, 0};
            for (int k = 0; k < 3; k++) o[axis[k]] = v[k];
            if (seen[3]) o[seen[0] ? 1 : 0] = o[3];
            v[0] = o[0];
            v[1] = o[1];
            v[2] = o[2];
            *lwh = 1;
        }
    }
    return j;
}

/* Does a number follow or precede the dimension word at i (skipping unit
 * words)? "5 units long", "length 5", "4 units length". */
static int dim_value(const tok *t, int n, int i, double *v)
{
    /* before: NUM [units] WORD */
    int j = i - 1;
    while (j >= 0 && word_in(t, n, j, unit_words)) j--;
    if (j >= 0 && t[j].kind == T_NUM && !t[j].numword && good_len(t[j].num)) {
        /* not the last of a product: "2 x 3 long" is read as dimensions */
        if (!(j > 0 && is_times(t, n, j - 1))) {
            *v = t[j].num;
            return 1;
        }
    }
    /* after: WORD [=|:|of] NUM */
    j = i + 1;
    if (j < n && t[j].kind == T_PUNCT && (t[j].w[0] == '=' || t[j].w[0] == ':')) j++;
    if (is_word(t, n, j, "of")) j++;
    if (j < n && t[j].kind == T_NUM && !t[j].numword && good_len(t[j].num)) {
        *v = t[j].num;
        return 1;
    }
    return 0;
}

static int dim_axis(const char *w)
{
    if (!strcmp(w, "long") || !strcmp(w, "length")) return 0;
    if (!strcmp(w, "wide") || !strcmp(w, "width")) return 1;
    if (!strcmp(w, "deep") || !strcmp(w, "depth")) return 3;
    return 2;
}

/* "right triangle", "right angle", "right-angled" */
static int right_here(const tok *t, int n, int i)
{
    if (!is_word(t, n, i, "right")) return 0;
    int j = i + 1;
    if (j < n && t[j].kind == T_PUNCT && t[j].w[0] == '-') j++;
    return is_word(t, n, j, "triangle") || is_word(t, n, j, "triangles") ||
           is_word(t, n, j, "angle") || is_word(t, n, j, "angled") ||
           is_word(t, n, j, "angles") || is_word(t, n, j, "isosceles");
}

void geom_request_parse(const char *text, geom_request *r)
{
    memset(r, 0, sizeof *r);
    if (!text) return;
    static const tok zero;
    tok t[MAXTOK];
    int n = tokenize(text, t, MAXTOK);
    (void)zero;

    static const char *const composite_words[] = {
        "composite", "composed", "compose", "split", "plus", "combined", "attached", "attach",
        "stacked", "connected", "decomposed", "decomposition", "removed", "subtraction",
        "stepped", "step", "shaped", "add", "extends", "extending", "arms", "arm", "bar",
        "section", "sections", "part", "parts", NULL};
    static const char *const overlap_words[] = {"overlap", "overlapping", "overlaps",
                                                "intersect", "intersecting", "cross",
                                                "crossing", "center", "centre", NULL};
    int nprism_words = 0;
    int has_left = 0;   /* "left ... right ...": right is a position */
    for (int i = 0; i < n; i++)
        if (is_word(t, n, i, "left")) has_left = 1;
    int several_solids = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].kind != T_WORD) continue;
        const char *w = t[i].w;
        if (!strcmp(w, "triangle") || !strcmp(w, "triangles") || !strcmp(w, "triangular")) {
            if (!strcmp(w, "triangular") && (is_word(t, n, i + 1, "prism") ||
                                            is_word(t, n, i + 1, "prisms") ||
                                            is_word(t, n, i + 1, "pyramid")))
                continue;
            r->kinds |= RQ_TRIANGLE;
        } else if (!strcmp(w, "rectangle") || !strcmp(w, "rectangles")) {
            r->kinds |= RQ_RECTANGLE;
        } else if (!strcmp(w, "rectangular")) {
            if (is_word(t, n, i + 1, "prism") || is_word(t, n, i + 1, "prisms"))
                r->kinds |= RQ_PRISM;
            else if (is_word(t, n, i + 1, "pyramid"))
                r->kinds |= RQ_PYRAMID;
            else if (!is_word(t, n, i + 1, "grid"))
                r->kinds |= RQ_RECTANGLE;
        } else if (!strcmp(w, "prism") || !strcmp(w, "prisms")) {
            if (!(i > 0 && (is_word(t, n, i - 1, "triangular"))))
                r->kinds |= RQ_PRISM;
            nprism_words++;
            if (!strcmp(w, "prisms")) several_solids = 1;
        } else if (!strcmp(w, "square") || !strcmp(w, "squares")) {
            /* "square units", "square inches", "c squared" are not shapes */
            if (!word_in(t, n, i + 1, unit_words) && !is_word(t, n, i + 1, "centimeters") &&
                !is_word(t, n, i + 1, "meters") && !is_word(t, n, i + 1, "feet") &&
                !is_word(t, n, i + 1, "inches"))
                r->kinds |= RQ_SQUARE;
        } else if (!strcmp(w, "circle") || !strcmp(w, "circles")) {
            r->kinds |= RQ_CIRCLE;
        } else if (!strcmp(w, "cube") || !strcmp(w, "cubes")) {
            r->kinds |= RQ_CUBE;
            if (!strcmp(w, "cubes") || is_word(t, n, i - 1, "unit")) r->props |= RQ_UNIT_CUBES;
            /* "dot cubes" are dice */
            if (is_word(t, n, i - 1, "dot")) r->props &= ~(unsigned)RQ_UNIT_CUBES;
        } else if (!strcmp(w, "cylinder") || !strcmp(w, "cylinders")) {
            r->kinds |= RQ_CYLINDER;
        } else if (!strcmp(w, "cone") || !strcmp(w, "cones")) {
            r->kinds |= RQ_CONE;
        } else if (!strcmp(w, "pyramid") || !strcmp(w, "pyramids")) {
            r->kinds |= RQ_PYRAMID;
        } else if (!strcmp(w, "sphere") || !strcmp(w, "spheres")) {
            r->kinds |= RQ_SPHERE;
        } else if (!strcmp(w, "net") || !strcmp(w, "nets")) {
            r->kinds |= RQ_NET;
        } else if (!strcmp(w, "quadrilateral") || !strcmp(w, "parallelogram") ||
                   !strcmp(w, "trapezoid") || !strcmp(w, "pentagon") ||
                   !strcmp(w, "pentagons") || !strcmp(w, "hexagon") ||
                   !strcmp(w, "polygon") || !strcmp(w, "rhombus") || !strcmp(w, "octagon")) {
            r->kinds |= RQ_POLYGON;
        } else if (!strcmp(w, "coordinate") || !strcmp(w, "grid") || !strcmp(w, "axes")) {
            r->kinds |= RQ_PLANE;
        } else if (!strcmp(w, "isosceles")) {
            r->props |= RQ_ISOSCELES;
        } else if (!strcmp(w, "equilateral")) {
            r->props |= RQ_EQUILATERAL;
        } else if (!strcmp(w, "parallel")) {
            r->props |= RQ_PARALLEL;
        } else if (!strcmp(w, "equal") || !strcmp(w, "congruent") || !strcmp(w, "identical")) {
            r->props |= RQ_EQUAL;
        } else if (!has_left && right_here(t, n, i)) {
            r->props |= RQ_RIGHT;
        }
        if (word_in(t, n, i, composite_words)) r->props |= RQ_COMPOSITE;
        if (!strcmp(w, "underneath") || !strcmp(w, "beneath") || !strcmp(w, "below") ||
            !strcmp(w, "above") || !strcmp(w, "stacked") ||
            (!strcmp(w, "on") && is_word(t, n, i + 1, "top")))
            r->props |= RQ_STACKED;
        if (word_in(t, n, i, overlap_words)) r->props |= RQ_OVERLAP;
        /* "made of unit cubes", "unit cubes visible" */
        if (!strcmp(w, "unit") && is_word(t, n, i + 1, "cubes")) r->props |= RQ_UNIT_CUBES;
    }
    for (int i = 0; i < n; i++) {
        static const char *const divided_words[] = {
            "split", "divided", "divide", "decomposition", "decomposed", "decompose",
            "composed", "composite", "compose", "strips", "parts", NULL};
        if (word_in(t, n, i, divided_words)) r->props |= RQ_DIVIDED;
    }
    /* "two prisms", "2 rectangular prisms", "three separate prisms" */
    if (nprism_words > 1 || several_solids) r->props |= RQ_COMPOSITE;
    if (!(r->kinds & (RQ_PRISM | RQ_CUBE))) r->props &= ~(unsigned)RQ_COMPOSITE;

    /* dimensions "A x B [x C]" */
    long cube_dims_sum = 0;
    int cube_dims_parts = 0, cube_dims_bad = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].kind != T_NUM || t[i].numword) continue;
        if (i > 0 && (is_times(t, n, i - 1))) continue;   /* inside a product */
        double v[3];
        int nv;
        char unit[8];
        int lwh;
        int j = read_dims(t, n, i, v, &nv, unit, sizeof unit, &lwh);
        if (j == i) continue;
        /* "3 × 9 = 27": an array, its dimensions */
        if (nv == 3) {
            int before = r->nsolids;
            add_dims(r->solids, &r->nsolids, v, nv, unit);
            if (lwh && r->nsolids > before) r->solids[r->nsolids - 1].lwh = 1;
        } else {
            add_dims(r->flats, &r->nflats, v, nv, unit);
        }
        /* of unit cubes: "A x B x C unit cubes", "2 by 3 cubes" */
        int cubes_here = !strcmp(unit, "cubes") || is_word(t, n, j, "cubes") ||
                         (is_word(t, n, j, "unit") && is_word(t, n, j + 1, "cubes"));
        if (nv == 3 || cubes_here) {
            int whole = 1;
            double prod = 1;
            for (int k = 0; k < nv; k++) {
                if (v[k] != floor(v[k]) || v[k] > 1000) whole = 0;
                prod *= v[k];
            }
            if (!whole) cube_dims_bad = 1;
            else {
                cube_dims_sum += (long)prod;
                cube_dims_parts++;
            }
        }
        i = j - 1;
    }

    /* "A cubes long, B cubes wide, C cubes high", "length 5, width 3,
     * height 4": three dimension words, each with its number, in one
     * clause (no sentence end between them) */
    long lwh_sum = 0;
    int lwh_parts = 0;
    {
        double got[4];
        int have[4] = {0, 0, 0, 0};
        int start = -1;
        for (int i = 0; i <= n; i++) {
            int end = i == n || (t[i].kind == T_PUNCT && (t[i].w[0] == '.' || t[i].w[0] == ';'));
            if (!end && word_in(t, n, i, dim_words)) {
                double v;
                int ax = dim_axis(t[i].w);
                if (dim_value(t, n, i, &v)) {
                    if (have[ax]) {   /* a new group starts */
                        have[0] = have[1] = have[2] = have[3] = 0;
                        start = -1;
                    }
                    got[ax] = v;
                    have[ax] = 1;
                    if (start < 0) start = i;
                }
            }
            /* depth stands in for whichever of length and width is missing */
            if (have[3] && have[2] && (have[0] + have[1] == 1)) {
                got[have[0] ? 1 : 0] = got[3];
                have[0] = have[1] = 1;
            }
            if (have[0] && have[1] && have[2]) {
                /* unless the same numbers were read as A x B x C */
                int dup = 0;
                for (int k = 0; k < r->nsolids; k++)
                    if (r->solids[k].v[0] == got[0] && r->solids[k].v[1] == got[1] &&
                        r->solids[k].v[2] == got[2])
                        dup = 1;
                if (!dup) {
                    char unit[8] = "";
                    for (int k = start - 1; k <= i && k < n; k++)
                        if (k >= 0 && t[k].kind == T_NUM) {
                            skip_units(t, n, k + 1, unit, sizeof unit);
                            if (*unit) break;
                        }
                    int before = r->nsolids;
                    add_dims(r->solids, &r->nsolids, got, 3, unit);
                    if (r->nsolids > before) r->solids[r->nsolids - 1].lwh = 1;
                    if (got[0] == floor(got[0]) && got[1] == floor(got[1]) &&
                        got[2] == floor(got[2]) && got[0] * got[1] * got[2] <= 1e6) {
                        lwh_sum += (long)(got[0] * got[1] * got[2]);
                        lwh_parts++;
                    }
                }
                have[0] = have[1] = have[2] = have[3] = 0;
                start = -1;
            }
            if (end) {
                have[0] = have[1] = have[2] = have[3] = 0;
                start = -1;
            }
        }
    }

    /* triangle sides: "sides 3, 4, 5", "sides 3cm, 4cm, 5cm", "sides 4, 5,
     * and 6" */
    for (int i = 0; i < n; i++) {
        if (!is_word(t, n, i, "sides")) continue;
        int j = i + 1;
        if (is_word(t, n, j, "labeled") || is_word(t, n, j, "of")) j++;
        double v[3];
        int nv = 0;
        char unit[8] = "";
        while (j < n && nv < 3 && t[j].kind == T_NUM && !t[j].numword && good_len(t[j].num)) {
            v[nv++] = t[j].num;
            j = skip_units(t, n, j + 1, unit, sizeof unit);
            if (j < n && t[j].kind == T_PUNCT && t[j].w[0] == ',') j++;
            if (is_word(t, n, j, "and")) j++;
        }
        if (nv == 3 && !(j < n && t[j].kind == T_NUM)) add_dims(r->sides, &r->nsides, v, 3, unit);
    }

    /* angles: NUM ° or NUM degree(s), not inside an expression */
    for (int i = 0; i < n; i++) {
        if (t[i].kind != T_NUM || t[i].numword) continue;
        int deg = (i + 1 < n && t[i + 1].kind == T_DEG) || is_word(t, n, i + 1, "degree") ||
                  is_word(t, n, i + 1, "degrees");
        if (!deg) continue;
        if (i > 0 && t[i - 1].kind == T_PUNCT &&
            (t[i - 1].w[0] == '+' || t[i - 1].w[0] == '-' || t[i - 1].w[0] == '/'))
            continue;
        if (i > 0 && t[i - 1].kind == T_WORD && t[i].glued) continue;   /* "x10°" */
        /* rotations and turns are not angles of the shape */
        if (is_word(t, n, i - 1, "rotated") || is_word(t, n, i - 1, "rotate") ||
            is_word(t, n, i - 1, "turn") || is_word(t, n, i - 2, "rotated") ||
            is_word(t, n, i - 2, "rotation") || is_word(t, n, i - 1, "rotation"))
            continue;
        if (is_word(t, n, i + 2, "rotation") || is_word(t, n, i + 2, "turn")) continue;
        double a = t[i].num;
        if (!(a > 0 && a < 360)) continue;
        if (r->nangles < RQ_MAX) r->angles[r->nangles++] = a;
        if (a == 90) r->props |= RQ_RIGHT;
    }

    /* unit cubes: how many */
    long explicit_n = 0, layer_sum = 0;
    int nexplicit = 0, nlayer_counts = 0, bad = cube_dims_bad;
    long layers = 0, per_layer = 0;
    for (int i = 0; i < n; i++) {
        if (t[i].kind != T_NUM) continue;
        double v = t[i].num;
        if (!(v >= 1 && v <= 100000 && v == floor(v))) continue;
        int j = i + 1;
        if (is_word(t, n, j, "layers") && !t[i].numword) {
            layers = (long)v;
            continue;
        }
        int unit = is_word(t, n, j, "unit");
        if (unit) j++;
        if (!is_word(t, n, j, "cubes") && !(v == 1 && is_word(t, n, j, "cube"))) continue;
        if (is_word(t, n, i - 1, "dot") || is_word(t, n, j - 1 - unit, "dot")) continue;
        /* a dimension in cubes ("8 cubes long") is read above */
        if (word_in(t, n, j + 1, dim_words)) continue;
        /* "2 by 3 cubes": the product, read above */
        if (i > 0 && is_times(t, n, i - 1)) continue;
        if (is_word(t, n, j + 1, "per") || is_word(t, n, j + 1, "in")) {
            per_layer = (long)v;
            continue;
        }
        /* "bottom layer has 6 unit cubes", "top layer has 6" */
        if (is_word(t, n, i - 1, "has") && is_word(t, n, i - 2, "layer")) {
            layer_sum += (long)v;
            nlayer_counts++;
            continue;
        }
        explicit_n = nexplicit && explicit_n != (long)v ? -1 : (long)v;
        nexplicit++;
    }
    /* numbered layers ("Layer 1 has ..., Layer 2 identical") or "identical"
     * copies are more than these passes read */
    for (int i = 0; i + 1 < n; i++)
        if (is_word(t, n, i, "layer") && t[i + 1].kind == T_NUM) bad = 1;
    if ((r->props & RQ_EQUAL) && (r->kinds & RQ_CUBE)) bad = 1;
    if (explicit_n < 0) bad = 1;
    /* "partially filled", "incomplete layer": fewer than the numbers say */
    for (int i = 0; i < n; i++)
        if (is_word(t, n, i, "partially") || is_word(t, n, i, "partial") ||
            is_word(t, n, i, "incomplete"))
            bad = 1;

    long candidates[4];
    int nc = 0;
    if (nexplicit) candidates[nc++] = explicit_n;
    if (nlayer_counts >= 2) candidates[nc++] = layer_sum;
    if (layers && per_layer) candidates[nc++] = layers * per_layer;
    int unit_cubes = (r->props & RQ_UNIT_CUBES) != 0;
    /* products of dimensions count cubes only when the request is about unit
     * cubes, and parts add up only when they do not overlap */
    if (unit_cubes && !(r->props & RQ_OVERLAP)) {
        if (cube_dims_parts && !lwh_parts) candidates[nc++] = cube_dims_sum;
        else if (lwh_parts && !cube_dims_parts) candidates[nc++] = lwh_sum;
        else if (lwh_parts && cube_dims_parts) bad = 1;
    }
    if (!bad && nc > 0) {
        long c = candidates[0];
        for (int k = 1; k < nc; k++)
            if (candidates[k] != c) c = 0;
        if (c > 0 && c <= 100000) r->ncubes = c;
    }
    if (r->ncubes) r->props |= RQ_UNIT_CUBES, r->kinds |= RQ_CUBE;
}

const char *geom_rq_dims_show(const geom_rq_dims *d, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < d->n && k < n; i++) {
        int w = snprintf(buf + k, n - k, "%s%g", i ? " x " : "", d->v[i]);
        if (w < 0) break;
        k += (size_t)w;
    }
    if (*d->unit && k < n) snprintf(buf + k, n - k, " %s", d->unit);
    return buf;
}

const char *const geom_rq_kind_names[] = {"triangle", "rectangle", "square", "circle",
                                           "polygon",  "prism",     "cube",   "cylinder",
                                           "cone",     "pyramid",   "sphere", "net",
                                           "plane",    NULL};
const char *const geom_rq_prop_names[] = {"right",     "isosceles", "equilateral",
                                          "parallel",  "equal",     "composite",
                                          "overlap",   "unit-cubes", "stacked",
                                          "divided",   NULL};

size_t geom_request_describe(const geom_request *r, char *buf, size_t n)
{
    const char *const *kind_names = geom_rq_kind_names;
    const char *const *prop_names = geom_rq_prop_names;
    char tmp[1024], d[64];
    size_t k = 0;
#define PUT(...)                                                                       \
    do {                                                                               \
        int w_ = snprintf(tmp + k, sizeof tmp - k, __VA_ARGS__);                       \
        if (w_ > 0) k = k + (size_t)w_ < sizeof tmp ? k + (size_t)w_ : sizeof tmp - 1; \
    } while (0)
    PUT("kinds=");
    int any = 0;
    for (unsigned i = 0; kind_names[i]; i++)
        if (r->kinds & (1u << i)) PUT("%s%s", any++ ? "," : "", kind_names[i]);
    if (!any) PUT("-");
    PUT(" props=");
    any = 0;
    for (unsigned i = 0; prop_names[i]; i++)
        if (r->props & (1u << i)) PUT("%s%s", any++ ? "," : "", prop_names[i]);
    if (!any) PUT("-");
    if (r->ncubes) PUT(" cubes=%ld", r->ncubes);
    for (int i = 0; i < r->nsolids; i++)
        PUT(" solid%s=%s", r->solids[i].lwh ? "(lwh)" : "",
            geom_rq_dims_show(&r->solids[i], d, sizeof d));
    for (int i = 0; i < r->nflats; i++)
        PUT(" flat=%s", geom_rq_dims_show(&r->flats[i], d, sizeof d));
    for (int i = 0; i < r->nsides; i++)
        PUT(" sides=%s", geom_rq_dims_show(&r->sides[i], d, sizeof d));
    for (int i = 0; i < r->nangles; i++) PUT(" angle=%g", r->angles[i]);
    if (r->llm) {
        static const char *const field_names[] = {"kinds", "props", "cubes", "solids",
                                                  "flats", "sides", "angles"};
        any = 0;
        PUT(" src=llm:");
        for (unsigned i = 0; i < sizeof field_names / sizeof field_names[0]; i++)
            if (r->llm & (1u << i)) PUT("%s%s", any++ ? "," : "", field_names[i]);
    }
#undef PUT
    return (size_t)snprintf(buf, n, "%s", tmp);
}
