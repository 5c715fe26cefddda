/* labels.c — what a diagram's text says: a point's name, a length, an area,
 * an angle, an unknown, or something else (a title).
 *
 * The TeX source of the text (tex=) is preferred over the plain text, since
 * it keeps what the plain rendering may lose (^\circ, \frac, \sqrt). The
 * source is first normalised to a small ASCII token string, then classified.
 * Number parsing is locale-independent.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checks/geom/geom.h"

/* Markers used in the normalised string. */
#define MK_DEG   '\x01'   /* degree sign */
#define MK_GREEK '\x02'   /* a Greek letter used for angles */
#define MK_SQ    '\x03'   /* squared (area) */
#define MK_CUBE  '\x04'   /* cubed (volume) */
#define MK_SQRT  '\x05'   /* square root, followed by its argument */
#define MK_PI    '\x06'   /* pi */
#define MK_TRI   '\x07'   /* triangle sign */

enum { F_ANGLE = 1, F_GREEK = 2, F_SQ = 4, F_CUBE = 8, F_TRI = 16 };

typedef struct {
    char *out;
    size_t n, cap;
    int flags;
} nbuf;

static void put(nbuf *b, char c)
{
    if (b->n + 1 < b->cap) b->out[b->n++] = c;
    b->out[b->n] = 0;
}

static void puts_(nbuf *b, const char *s)
{
    while (*s) put(b, *s++);
}

/* Index just past the brace group starting at s[i] == '{' (or a single token
 * when s[i] is not a brace); *gs, *ge receive the group's inside. */
static size_t group(const char *s, size_t i, size_t *gs, size_t *ge)
{
    while (s[i] == ' ') i++;
    if (s[i] == '{') {
        int depth = 0;
        size_t j = i;
        for (; s[j]; j++) {
            if (s[j] == '\\' && s[j + 1]) { j++; continue; }
            if (s[j] == '{') depth++;
            else if (s[j] == '}' && --depth == 0) break;
        }
        *gs = i + 1;
        *ge = s[j] ? j : j;
        return s[j] ? j + 1 : j;
    }
    if (s[i] == '\\') {
        size_t j = i + 1;
        while (isalpha((unsigned char)s[j])) j++;
        if (j == i + 1 && s[j]) j++;
        *gs = i;
        *ge = j;
        return j;
    }
    *gs = i;
    *ge = s[i] ? i + 1 : i;
    return *ge;
}

static void norm(nbuf *b, const char *s, size_t len);

static void norm_range(nbuf *b, const char *s, size_t gs, size_t ge)
{
    norm(b, s + gs, ge - gs);
}

static int cmd_is(const char *name, size_t n, const char *w)
{
    return strlen(w) == n && strncmp(name, w, n) == 0;
}

static void norm(nbuf *b, const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && s[i]) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\') {
            size_t j = i + 1;
            while (j < len && isalpha((unsigned char)s[j])) j++;
            const char *name = s + i + 1;
            size_t nl = j - i - 1;
            if (nl == 0) {             /* \, \; \! \\ \  \{ \% ... */
                if (j < len && (s[j] == '%' || s[j] == '$' || s[j] == '#'))
                    put(b, s[j] == '%' ? '%' : ' ');
                else
                    put(b, ' ');
                i = j < len ? j + 1 : j;
                continue;
            }
            i = j;
            size_t gs, ge;
            if (cmd_is(name, nl, "circ") || cmd_is(name, nl, "degree") ||
                cmd_is(name, nl, "textdegree") || cmd_is(name, nl, "degres")) {
                put(b, MK_DEG);
            } else if (cmd_is(name, nl, "angle") || cmd_is(name, nl, "measuredangle") ||
                       cmd_is(name, nl, "sphericalangle")) {
                b->flags |= F_ANGLE;
                put(b, ' ');
            } else if (cmd_is(name, nl, "theta") || cmd_is(name, nl, "alpha") ||
                       cmd_is(name, nl, "beta") || cmd_is(name, nl, "gamma") ||
                       cmd_is(name, nl, "phi") || cmd_is(name, nl, "varphi") ||
                       cmd_is(name, nl, "vartheta") || cmd_is(name, nl, "Theta") ||
                       cmd_is(name, nl, "omega") || cmd_is(name, nl, "psi")) {
                b->flags |= F_GREEK;
                put(b, MK_GREEK);
            } else if (cmd_is(name, nl, "pi")) {
                put(b, MK_PI);
            } else if (cmd_is(name, nl, "triangle") || cmd_is(name, nl, "Delta") ||
                       cmd_is(name, nl, "bigtriangleup") || cmd_is(name, nl, "square") ||
                       cmd_is(name, nl, "parallel") || cmd_is(name, nl, "perp") ||
                       cmd_is(name, nl, "cong") || cmd_is(name, nl, "sim") ||
                       cmd_is(name, nl, "overline") || cmd_is(name, nl, "overleftrightarrow") ||
                       cmd_is(name, nl, "overrightarrow")) {
                if (!cmd_is(name, nl, "overline") && !cmd_is(name, nl, "overleftrightarrow") &&
                    !cmd_is(name, nl, "overrightarrow"))
                    b->flags |= F_TRI;
                put(b, ' ');
                put(b, MK_TRI);
                put(b, ' ');
            } else if (cmd_is(name, nl, "frac") || cmd_is(name, nl, "dfrac") ||
                       cmd_is(name, nl, "tfrac")) {
                size_t g2s, g2e;
                i = group(s, i, &gs, &ge);
                if (ge > len) ge = len;
                i = group(s, i, &g2s, &g2e);
                if (g2e > len) g2e = len;
                put(b, '(');
                norm_range(b, s, gs, ge);
                put(b, '/');
                norm_range(b, s, g2s, g2e);
                put(b, ')');
            } else if (cmd_is(name, nl, "sqrt")) {
                put(b, MK_SQRT);
                i = group(s, i, &gs, &ge);
                if (ge > len) ge = len;
                put(b, '(');
                norm_range(b, s, gs, ge);
                put(b, ')');
            } else if (cmd_is(name, nl, "times") || cmd_is(name, nl, "cdot")) {
                puts_(b, " x ");
            } else if (cmd_is(name, nl, "prime")) {
                put(b, '\'');
            } else if (cmd_is(name, nl, "textcolor") || cmd_is(name, nl, "color")) {
                i = group(s, i, &gs, &ge);      /* skip the colour */
            } else if (cmd_is(name, nl, "hspace") || cmd_is(name, nl, "vspace") ||
                       cmd_is(name, nl, "rule") || cmd_is(name, nl, "raisebox")) {
                i = group(s, i, &gs, &ge);
                put(b, ' ');
            } else if (cmd_is(name, nl, "quad") || cmd_is(name, nl, "qquad") ||
                       cmd_is(name, nl, "ldots") || cmd_is(name, nl, "dots") ||
                       cmd_is(name, nl, "cdots") || cmd_is(name, nl, "newline") ||
                       cmd_is(name, nl, "par")) {
                put(b, ' ');
            } else if (cmd_is(name, nl, "approx") || cmd_is(name, nl, "le") ||
                       cmd_is(name, nl, "ge") || cmd_is(name, nl, "neq")) {
                put(b, '=');
            } else {
                /* formatting commands (\text, \mathrm, \small, ...): drop the
                 * command, keep what it applies to */
                put(b, ' ');
            }
            continue;
        }
        if (c == '$' || c == '{' || c == '}' || c == '_') { i++; continue; }
        if (c == '~') { put(b, ' '); i++; continue; }
        if (c == '^') {
            size_t gs, ge;
            size_t k = group(s, i + 1, &gs, &ge);
            if (ge > len) ge = len;
            char tmp[64];
            nbuf t = {tmp, 0, sizeof tmp, 0};
            tmp[0] = 0;
            norm_range(&t, s, gs, ge);
            b->flags |= t.flags;
            char *p = tmp;
            while (*p == ' ') p++;
            if (strcmp(p, "2") == 0) { put(b, MK_SQ); b->flags |= F_SQ; }
            else if (strcmp(p, "3") == 0) { put(b, MK_CUBE); b->flags |= F_CUBE; }
            else puts_(b, tmp);
            i = k;
            continue;
        }
        if (c >= 0x80) {               /* UTF-8 */
            const unsigned char *u = (const unsigned char *)s + i;
            size_t n = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
            if (i + n > len) n = len - i;
            if (n == 2 && u[0] == 0xC2 && u[1] == 0xB0) put(b, MK_DEG);
            else if (n == 2 && u[0] == 0xC2 && u[1] == 0xB2) { put(b, MK_SQ); b->flags |= F_SQ; }
            else if (n == 2 && u[0] == 0xC2 && u[1] == 0xB3) { put(b, MK_CUBE); b->flags |= F_CUBE; }
            else if (n == 2 && u[0] == 0xC3 && u[1] == 0x97) puts_(b, " x ");
            else if (n == 2 && u[0] == 0xCF && u[1] == 0x80) put(b, MK_PI);
            else if (n == 2 && (u[0] == 0xCE || u[0] == 0xCF)) {
                /* Greek: θ α β γ φ ω ψ used for angles; Δ for triangles */
                if (u[0] == 0xCE && u[1] == 0x94) { b->flags |= F_TRI; put(b, MK_TRI); }
                else { b->flags |= F_GREEK; put(b, MK_GREEK); }
            } else if (n == 3 && u[0] == 0xE2 && u[1] == 0x88 && (u[2] == 0xA0 || u[2] == 0xA1)) {
                b->flags |= F_ANGLE; put(b, ' ');
            } else if (n == 3 && u[0] == 0xE2 && u[1] == 0x88 && u[2] == 0x9A) put(b, MK_SQRT);
            else if (n == 3 && u[0] == 0xE2 && u[1] == 0x80 && (u[2] == 0xB2 || u[2] == 0x99)) put(b, '\'');
            else if (n == 3 && u[0] == 0xE2 && u[1] == 0x96 && u[2] == 0xB3) { b->flags |= F_TRI; put(b, MK_TRI); }
            else put(b, 'w');          /* some other letter */
            i += n ? n : 1;
            continue;
        }
        put(b, (char)c);
        i++;
    }
}

/* --- tokens ------------------------------------------------------------- */
typedef enum { T_NUM, T_WORD, T_SYM } tok_kind;
typedef struct {
    tok_kind k;
    double v;
    char w[24];
    char sym;
} tok;

static int is_unit(const char *w)
{
    static const char *units[] = {"cm", "mm", "m", "km", "in", "inch", "inches", "ft", "feet",
                                  "foot", "yd", "yard", "yards", "units", "unit", "u", "mi",
                                  "miles", "meters", "meter", "centimeters", "sq", "square",
                                  "dm", "pt", NULL};
    for (int i = 0; units[i]; i++)
        if (strcmp(w, units[i]) == 0) return 1;
    return 0;
}

static int is_length_word(const char *w)
{
    static const char *names[] = {"base", "height", "width", "length", "side", "radius",
                                  "diameter", "edge", "depth", "leg", "hypotenuse", "altitude",
                                  "slant", "distance", "apothem", "chord", "arc", "top", "bottom",
                                  "left", "right", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(w, names[i]) == 0) return 1;
    return 0;
}

/* Was the word (lower-cased in w) written all in capitals in s? */
static int upper_word(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = s; *p; p++) {
        size_t k = 0;
        while (k < n && p[k] && tolower((unsigned char)p[k]) == w[k]) k++;
        if (k == n && (p == s || !isalpha((unsigned char)p[-1])) && !isalpha((unsigned char)p[n])) {
            for (size_t j = 0; j < n; j++)
                if (!isupper((unsigned char)p[j])) return 0;
            return 1;
        }
    }
    return 0;
}

static size_t tokenize(const char *s, tok *t, size_t max)
{
    size_t n = 0;
    size_t i = 0;
    while (s[i] && n < max) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\n') { i++; continue; }
        if (isdigit(c) || (c == '.' && isdigit((unsigned char)s[i + 1])) ||
            (c == '-' && (isdigit((unsigned char)s[i + 1]) || s[i + 1] == '.'))) {
            /* locale-independent decimal */
            int neg = 0;
            if (c == '-') { neg = 1; i++; }
            double v = 0, frac = 0.1;
            while (isdigit((unsigned char)s[i])) v = v * 10 + (s[i++] - '0');
            if (s[i] == '.' && isdigit((unsigned char)s[i + 1])) {
                i++;
                while (isdigit((unsigned char)s[i])) { v += (s[i++] - '0') * frac; frac /= 10; }
            }
            t[n].k = T_NUM;
            t[n].v = neg ? -v : v;
            n++;
            continue;
        }
        if (isalpha(c)) {
            size_t k = 0, start = i;
            while (isalpha((unsigned char)s[i])) {
                if (k + 1 < sizeof t[n].w) t[n].w[k++] = (char)tolower((unsigned char)s[i]);
                i++;
            }
            t[n].w[k] = 0;
            t[n].k = T_WORD;
            /* remember whether the word started upper-case */
            t[n].sym = isupper((unsigned char)s[start]) ? 'U' : 'l';
            n++;
            continue;
        }
        t[n].k = T_SYM;
        t[n].sym = (char)c;
        n++;
        i++;
    }
    return n;
}

/* Folds "5 R ( 2 )" into 5*sqrt(2), "9 P" into 9*pi, "( 1 / 2 )" into 0.5.
 * Returns the new token count. */
static size_t fold_numbers(tok *t, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        /* ( a / b ) */
        if (t[i].k == T_SYM && t[i].sym == '(' && i + 4 < n && t[i + 1].k == T_NUM &&
            t[i + 2].k == T_SYM && t[i + 2].sym == '/' && t[i + 3].k == T_NUM &&
            t[i + 4].k == T_SYM && t[i + 4].sym == ')' && t[i + 3].v != 0) {
            tok x = t[i + 1];
            x.v = t[i + 1].v / t[i + 3].v;
            /* a whole number before it: 2 1/2 */
            if (o > 0 && t[o - 1].k == T_NUM) t[o - 1].v += x.v;
            else t[o++] = x;
            i += 4;
            continue;
        }
        /* R ( a ) */
        if (t[i].k == T_SYM && t[i].sym == MK_SQRT && i + 3 < n && t[i + 1].k == T_SYM &&
            t[i + 1].sym == '(' && t[i + 2].k == T_NUM && t[i + 3].k == T_SYM &&
            t[i + 3].sym == ')') {
            double r = sqrt(fabs(t[i + 2].v));
            if (o > 0 && t[o - 1].k == T_NUM) t[o - 1].v *= r;
            else { t[o] = t[i + 2]; t[o].v = r; o++; }
            i += 3;
            continue;
        }
        if (t[i].k == T_SYM && t[i].sym == MK_PI) {
            if (o > 0 && t[o - 1].k == T_NUM) t[o - 1].v *= IR_PI;
            else { t[o].k = T_NUM; t[o].v = IR_PI; o++; }
            continue;
        }
        t[o++] = t[i];
    }
    return o;
}

static void set_show(geom_text *t, const char *plain, const char *tex)
{
    const char *s = plain && *plain ? plain : (tex ? tex : "");
    size_t k = 0;
    for (size_t i = 0; s[i] && k + 1 < sizeof t->show; i++) {
        char c = s[i];
        if (c == '"' || c == '\t' || c == '\n') c = ' ';
        t->show[k++] = c;
    }
    /* do not cut a UTF-8 sequence */
    while (k > 0 && s[k] && ((unsigned char)t->show[k - 1] & 0xC0) == 0x80) k--;
    if (k > 0 && s[k] && ((unsigned char)t->show[k - 1] & 0xC0) == 0xC0) k--;
    t->show[k] = 0;
}

/* A normalised label's tokens and what kinds they are. */
typedef struct {
    const char *nb;   /* the normalised text */
    int flags;        /* F_* found while normalising */
    const tok *tk;
    size_t n;
    size_t nnum, nword, ndeg, nq, ngreek, neq, nother_sym;
    size_t first_num; /* the first number's token, n when none */
} label_toks;

static void count_tokens(label_toks *L)
{
    L->first_num = L->n;
    for (size_t i = 0; i < L->n; i++) {
        const tok *k = &L->tk[i];
        if (k->k == T_NUM) { if (L->nnum++ == 0) L->first_num = i; }
        else if (k->k == T_WORD) L->nword++;
        else switch (k->sym) {
            case MK_DEG: L->ndeg++; break;
            case '?': L->nq++; break;
            case MK_GREEK: L->ngreek++; break;
            case '=': case ':': L->neq++; break;
            case MK_SQ: case MK_CUBE: case MK_TRI: case '\'': case '"': case ',': case '.': case '(':
            case ')': case '-': case '+': case '/': break;
            default: L->nother_sym++; break;
        }
    }
}

/* A point's coordinates: "( a , b )", possibly after a name. */
static int label_coord(const label_toks *L, geom_text *t)
{
    const tok *tk = L->tk;
    if (L->nnum != 2) return 0;
    for (size_t i = 0; i + 4 < L->n; i++) {
        if (tk[i].k == T_SYM && tk[i].sym == '(' && tk[i + 1].k == T_NUM &&
            tk[i + 2].k == T_SYM && tk[i + 2].sym == ',' && tk[i + 3].k == T_NUM &&
            tk[i + 4].k == T_SYM && tk[i + 4].sym == ')') {
            t->kind = TXT_COORD;
            t->dims[0] = tk[i + 1].v;
            t->dims[1] = tk[i + 3].v;
            t->ndims = 2;
            return 1;
        }
    }
    return 0;
}

/* An angle: a degree sign, an angle command or a Greek letter. */
static int label_angle(const label_toks *L, geom_text *t)
{
    const tok *tk = L->tk;
    if (L->ndeg == 0 && !(L->flags & (F_ANGLE | F_GREEK))) return 0;
    /* a letter on the value's side makes it an expression ((x + 10)°,
     * 2x°): it names the angle without stating it */
    size_t eq_at = 0;
    for (size_t i = 0; i < L->n; i++)
        if (tk[i].k == T_SYM && tk[i].sym == '=') eq_at = i + 1;
    int expr = 0;
    for (size_t i = eq_at; i < L->n; i++)
        if (tk[i].k == T_WORD || (tk[i].k == T_SYM && tk[i].sym == MK_GREEK)) expr = 1;
    if (L->nnum == 1 && expr) {
        t->kind = TXT_ANGLE_NAME;
    } else if (L->nnum == 1) {
        t->kind = TXT_ANGLE;
        t->value = tk[L->first_num].v;
        t->has_value = 1;
    } else if (L->nnum == 0) {
        t->kind = TXT_ANGLE_NAME;
    } else {
        t->kind = TXT_OTHER;
    }
    return 1;
}

/* A text without numbers: a point's name, an unknown, or other text. */
static void label_without_number(const label_toks *L, geom_text *t)
{
    const tok *tk = L->tk;
    size_t n = L->n;
    if (L->nq > 0 && L->nword == 0) { t->kind = TXT_VAR; return; }
    if (L->nword == 1 && L->nother_sym == 0) {
        const tok *w = NULL;
        for (size_t i = 0; i < n; i++) if (tk[i].k == T_WORD) w = &tk[i];
        size_t wl = strlen(w->w);
        /* capitals: a point's name; ABC names a triangle or an angle's points */
        if (w->sym == 'U' && wl <= 3 && L->neq == 0) { t->kind = TXT_NAME; return; }
        if (w->sym == 'l' && wl == 1) { t->kind = TXT_VAR; return; }
        /* a word naming a length ("height", "base") labels that length */
        if (is_length_word(w->w) && L->neq == 0) { t->kind = TXT_VAR; return; }
    }
    /* "x cm", "h = ?" */
    if (L->nword >= 1 && L->nword <= 2 && L->nother_sym == 0) {
        int ok = 1, var = 0;
        for (size_t i = 0; i < n; i++) {
            if (tk[i].k != T_WORD) continue;
            if (strlen(tk[i].w) == 1 && !var) var = 1;
            else if (!is_unit(tk[i].w)) ok = 0;
        }
        if (ok && (var || L->nq)) { t->kind = TXT_VAR; return; }
    }
    t->kind = TXT_OTHER;
}

/* Dimensions: "3 x 4", "2 cm by 5 cm", "Length = 2, Width = 1.2": two or
 * three positive numbers joined by x/by/commas, with units and names of
 * sides; words before the first number name the shape ("Scaled 4 x 6"). */
static int label_dims(const label_toks *L, geom_text *t)
{
    const tok *tk = L->tk;
    if (!(L->nnum == 2 || L->nnum == 3) || L->nother_sym != 0 || L->ndeg != 0 ||
        (L->flags & (F_SQ | F_CUBE)))
        return 0;
    int ok = 1;
    size_t k = 0, joins = 0;
    for (size_t i = 0; i < L->n && ok; i++) {
        if (tk[i].k == T_NUM) {
            if (k < 3) t->dims[k++] = tk[i].v;
            continue;
        }
        if (i < L->first_num) continue;
        if (tk[i].k == T_WORD) {
            const char *w = tk[i].w;
            if (!strcmp(w, "x") || !strcmp(w, "by")) joins++;
            else if (!is_unit(w) && !is_length_word(w) && strcmp(w, "l") && strcmp(w, "w") &&
                     strcmp(w, "h"))
                ok = 0;
        } else if (tk[i].sym == ',') {
            joins++;
        } else if (tk[i].sym != '=' && tk[i].sym != ':') {
            ok = 0;
        }
    }
    if (!ok || joins + 1 < L->nnum || k != L->nnum) return 0;
    for (size_t i = 0; i < k; i++)
        if (!(t->dims[i] > 0)) return 0;
    t->kind = TXT_DIMS;
    t->ndims = (int)k;
    return 1;
}

/* The unit's usual short name ("inches" -> "in"), in place. */
static void canonical_unit(char *u)
{
    static const char *const names[][2] = {
        {"inch", "in"},   {"inches", "in"}, {"feet", "ft"},   {"foot", "ft"},
        {"unit", "units"}, {"u", "units"},  {"meters", "m"},  {"meter", "m"},
        {"centimeters", "cm"}, {"yard", "yd"}, {"yards", "yd"}, {"miles", "mi"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(u, names[i][0])) {
            strcpy(u, names[i][1]);
            return;
        }
}

/* Exactly one number: a length, an area, or other text, after the words
 * around it (a unit after it, a quantity's name and = before it). */
static void label_one_number(const label_toks *L, geom_text *t)
{
    const tok *tk = L->tk;
    size_t n = L->n, first_num = L->first_num;
    int area = (L->flags & F_SQ) != 0, volume = (L->flags & F_CUBE) != 0, perim = 0;
    int bad = 0;
    char quantity = 0;
    for (size_t i = 0; i < n; i++) {
        if (tk[i].k != T_WORD) continue;
        const char *w = tk[i].w;
        int before_eq = 0;
        for (size_t j = i + 1; j < n; j++)
            if (tk[j].k == T_SYM && (tk[j].sym == '=' || tk[j].sym == ':')) { before_eq = 1; break; }
        if (strcmp(w, "area") == 0 || (strcmp(w, "a") == 0 && tk[i].sym == 'U' && before_eq) ||
            strcmp(w, "sq") == 0 || strcmp(w, "square") == 0) {
            area = 1;
            continue;
        }
        if (strcmp(w, "volume") == 0 || (strcmp(w, "v") == 0 && tk[i].sym == 'U' && before_eq)) {
            volume = 1;
            continue;
        }
        if (strcmp(w, "perimeter") == 0 || strcmp(w, "circumference") == 0 ||
            (strcmp(w, "p") == 0 && tk[i].sym == 'U' && before_eq) ||
            (strcmp(w, "c") == 0 && tk[i].sym == 'U' && before_eq)) {
            perim = 1;
            continue;
        }
        if (i > first_num) {
            if (is_unit(w)) {
                if (!t->unit[0] && strcmp(w, "sq") && strcmp(w, "square")) {
                    snprintf(t->unit, sizeof t->unit, "%s", w);
                }
                continue;
            }
            bad = 1;
            continue;
        }
        /* before the number: a quantity's name followed by = (a letter, a
         * segment's name such as AB, or a word naming a length) */
        if (before_eq && (strlen(w) == 1 || (tk[i].sym == 'U' && strlen(w) <= 3 && upper_word(L->nb, w)) ||
                          is_length_word(w))) {
            if (!strcmp(w, "r") || !strcmp(w, "radius")) quantity = 'r';
            else if (!strcmp(w, "d") || !strcmp(w, "diameter")) quantity = 'd';
            else if (!strcmp(w, "h") || !strcmp(w, "height")) quantity = 'h';
            continue;
        }
        bad = 1;
    }
    if (bad || volume) { t->kind = TXT_OTHER; return; }
    /* primes after the number: 5' (feet), 5'' or 5" (inches) */
    if (!t->unit[0] && first_num + 1 < n && tk[first_num + 1].k == T_SYM &&
        (tk[first_num + 1].sym == '\'' || tk[first_num + 1].sym == '"')) {
        int two = tk[first_num + 1].sym == '"' ||
                  (first_num + 2 < n && tk[first_num + 2].k == T_SYM && tk[first_num + 2].sym == '\'');
        strcpy(t->unit, two ? "in" : "ft");
    }
    canonical_unit(t->unit);
    t->value = tk[first_num].v;
    t->has_value = 1;
    if (perim) { t->kind = TXT_OTHER; t->quantity = 'p'; return; }
    if (area) { t->kind = TXT_AREA; return; }
    if (t->value <= 0) { t->kind = TXT_OTHER; return; }
    t->kind = TXT_LENGTH;
    t->quantity = quantity;
}

void geom_parse_label(const char *plain, const char *tex, geom_text *t)
{
    char nb[512];
    nbuf b = {nb, 0, sizeof nb, 0};
    nb[0] = 0;
    const char *src = tex && *tex ? tex : (plain ? plain : "");
    norm(&b, src, strlen(src));
    set_show(t, plain, tex);
    t->kind = TXT_OTHER;
    t->has_value = 0;
    t->value = 0;
    t->unit[0] = 0;
    t->quantity = 0;
    t->ndims = 0;

    tok tk[48];
    size_t n = tokenize(nb, tk, sizeof tk / sizeof tk[0]);
    label_toks L = {nb, b.flags, tk, fold_numbers(tk, n), 0, 0, 0, 0, 0, 0, 0, 0};
    count_tokens(&L);
    if (L.n == 0) { t->kind = TXT_EMPTY; return; }
    if (label_coord(&L, t) || label_angle(&L, t)) return;
    if (L.flags & F_TRI) { t->kind = TXT_OTHER; return; }
    if (L.nnum == 0) { label_without_number(&L, t); return; }
    if (label_dims(&L, t)) return;
    if (L.nnum > 1 || L.nother_sym > 0) { t->kind = TXT_OTHER; return; }
    label_one_number(&L, t);
}
