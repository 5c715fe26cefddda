/* tikzopt.c — TikZ options (key=value lists), styles and the graphics
 * state stack. */
#include "grammar/interp.h"
#include "grammar/pgfmath.h"
#include "grammar/textmetrics.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grammar/tikzopt_keys.h"
#include "ir/xalloc.h"

#define MAX_STYLE_DEPTH 32

const char *tk_memmem(const char *s, size_t n, const char *w)
{
    char w0 = w[0];
    if (w0 == 0 || n == 0) return NULL;
    const char *p = s, *end = s + n;
    while ((p = memchr(p, w0, (size_t)(end - p))) != NULL) {
        size_t j = 1;
        while (w[j] && p + j < end && p[j] == w[j]) j++;
        if (!w[j]) return p;
        p++;
    }
    return NULL;
}



static void setstr(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
}

/* ---- graphics state -------------------------------------------------------- */

void tk_gs_init(gstate *g)
{
    memset(g, 0, sizeof *g);
    g->ctm = mat_id();
    g->xv = v2(28.452756, 0);
    g->yv = v2(0, 28.452756);
    g->zv = v2(-10.954312, -10.954312);   /* TikZ default z: (-3.85mm,-3.85mm) */
    strcpy(g->color, "black");
    g->lw = 0.4;
    g->opacity = g->draw_opacity = g->fill_opacity = 1;
    strcpy(g->dash, "solid");
    g->font_size = 12;
    g->inner_sep = 3.3333;                 /* .3333em at 10pt in pgf's default */
    g->outer_sep = -1;                     /* .5\pgflinewidth */
    g->ch_xsep = g->ch_ysep = -1;          /* .666ex */
    g->samples = 25;
    g->plot_tension = 0.5;
    g->dom0 = -5;
    g->dom1 = 5;
    g->ra_quadrant = 1;
    g->ra_len = 0.125 * 72.27;
    g->s3 = 1;
    g->ok3 = 1;
    g->node_distance = "1cm and 1cm";
    g->pin_edge = "";
    g->level_dist = g->sib_dist = 15 * 72.27 / 25.4;   /* 15mm */
    g->grow_angle = -90;
    g->grow_special = 0;
}

/* tk_intern's texts: a list, and its length. The list stays short: a text
 * is interned only when pin edge= or node distance= is set, and once it
 * reaches limit, the texts no graphics state on the stack points to are
 * freed (a gstate is the only holder of an interned text between two calls
 * of tk_intern; there are no copies of a gstate off the stack). */
struct tk_interned_text {
    struct tk_interned_text *next;
    size_t n;
    char text[];
};
struct tk_interned {
    struct tk_interned_text *head;
    size_t n, limit;
};

static int intern_used(const tikz *T, const char *t)
{
    for (size_t i = 0; i < T->ngs; i++)
        if (T->gs[i].pin_edge == t || T->gs[i].node_distance == t || T->gs[i].decoration == t ||
            T->gs[i].samples_at == t || T->gs[i].mx_amp == t || T->gs[i].to_path == t)
            return 1;
    return 0;
}

const char *tk_intern(tikz *T, const char *s, size_t n)
{
    struct tk_interned *I = T->interned;
    if (!I) {
        I = T->interned = xmalloc(sizeof *I);
        I->head = NULL;
        I->n = 0;
        I->limit = 64;
    }
    for (struct tk_interned_text *t = I->head; t; t = t->next)
        if (t->n == n && memcmp(t->text, s, n) == 0) return t->text;
    if (I->n >= I->limit) {
        for (struct tk_interned_text **pp = &I->head; *pp;) {
            struct tk_interned_text *t = *pp;
            if (intern_used(T, t->text)) { pp = &t->next; continue; }
            *pp = t->next;
            free(t);
            I->n--;
        }
        if (I->n >= I->limit / 2) I->limit *= 2;
    }
    struct tk_interned_text *t = xmalloc(sizeof *t + n + 1);
    t->n = n;
    memcpy(t->text, s, n);
    t->text[n] = 0;
    t->next = I->head;
    I->head = t;
    I->n++;
    return t->text;
}

void tk_intern_free(tikz *T)
{
    struct tk_interned *I = T->interned;
    if (!I) return;
    while (I->head) {
        struct tk_interned_text *t = I->head;
        I->head = t->next;
        free(t);
    }
    free(I);
    T->interned = NULL;
}

void tk_gs_push(tikz *T)
{
    if (T->ngs == T->capgs) {
        T->capgs = T->capgs ? T->capgs * 2 : 16;
        T->gs = xrealloc(T->gs, T->capgs * sizeof *T->gs);
    }
    if (T->ngs == 0) tk_gs_init(&T->gs[0]);
    else {
        memcpy(&T->gs[T->ngs], &T->gs[T->ngs - 1], sizeof *T->gs);
        gstate *g = &T->gs[T->ngs];
        g->every_node = xstrdup(g->every_node);
        g->every_label = xstrdup(g->every_label);
        g->name_path = NULL;
        g->name_isect = NULL;
    }
    T->gs[T->ngs].tex_depth = tk_group_depth(T);
    T->ngs++;
}

void tk_gs_pop(tikz *T)
{
    if (T->ngs == 0) return;
    gstate *g = GS(T);
    free(g->every_node);
    free(g->every_label);
    free(g->name_path);
    free(g->name_isect);
    T->ngs--;
}

/* ---- styles ------------------------------------------------------------------- */

/* A style's bit in T->style_filter: by its name's length and first byte. */
static inline unsigned style_bit(const char *name, size_t n)
{
    return (unsigned)(n * 37 + (n ? (unsigned char)name[0] : 0)) & 255;
}

const char *tk_find_style(tikz *T, const char *name, size_t n)
{
    unsigned b = style_bit(name, n);
    if (!(T->style_filter[b >> 6] >> (b & 63) & 1)) return NULL;   /* no such style */
    for (size_t i = T->nstyles; i-- > 0;)
        if (T->styles[i].nlen == n && memcmp(T->styles[i].name, name, n) == 0)
            return T->styles[i].val;
    return NULL;
}

/* A new string: the option list old, a comma, then add[0..n) (how TikZ's
 * .append style and every node/.append style extend a list). */
static char *list_append(const char *old, const char *add, size_t n)
{
    size_t ol = strlen(old);
    char *v = xmalloc(ol + n + 2);
    memcpy(v, old, ol);
    v[ol] = ',';
    memcpy(v + ol + 1, add, n);
    v[ol + 1 + n] = 0;
    return v;
}

/* The texts kept for styles, as TeX's save stack keeps what each group
 * replaced: past this, an error (TeX: "capacity exceeded") */
#define MAX_STYLE_BYTES (64L * 1024 * 1024)

static void style_bytes(tikz *T, size_t add, size_t sub)
{
    T->style_bytes = T->style_bytes + add - sub;
    if (add > sub && T->style_bytes > (size_t)MAX_STYLE_BYTES && T->tex && !tex_failed(T->tex))
        tex_error(T->tex, T->cmd_line, T->cmd_col ? T->cmd_col : 1,
                  "styles kept for nested groups take more than %ld MiB", MAX_STYLE_BYTES >> 20);
}

void tk_define_style(tikz *T, const char *name, size_t nn, const char *val, size_t vn, int append)
{
    tk_trim(&name, &nn);
    tk_unbrace(&val, &vn);
    const char *old = NULL;
    /* TeX's \pgfkeys definitions are local: one made in a group shadows the
     * definition it replaces until the group ends (tk_styles_group_end), so
     * a definition is modified in place only when made at its own depth.
     * The levels along T->styles never decrease (a group's styles go when
     * it ends), so a group's own are the top of the array. */
    int level = tk_group_depth(T);
    for (size_t i = T->nstyles; i-- > 0;) {
        tk_style *s = &T->styles[i];
        if (s->nlen != nn || memcmp(s->name, name, nn) != 0) continue;
        if (i < T->style_floor || s->level != level) { old = s->val; break; }   /* shadow, do not modify */
        char *v = append ? list_append(s->val, val, vn) : xstrndup(val, vn);
        style_bytes(T, strlen(v), strlen(s->val));
        free(s->val);
        s->val = v;
        return;
    }
    if (T->nstyles == T->capstyles) {
        T->capstyles = T->capstyles ? T->capstyles * 2 : 32;
        T->styles = xrealloc(T->styles, T->capstyles * sizeof *T->styles);
    }
    T->styles[T->nstyles].name = xstrndup(name, nn);
    T->styles[T->nstyles].nlen = strlen(T->styles[T->nstyles].name);   /* nn unless a NUL is inside */
    {
        unsigned b = style_bit(T->styles[T->nstyles].name, T->styles[T->nstyles].nlen);
        T->style_filter[b >> 6] |= (uint64_t)1 << (b & 63);
    }
    T->styles[T->nstyles].val = append && old ? list_append(old, val, vn) : xstrndup(val, vn);
    T->styles[T->nstyles].level = level;
    style_bytes(T, T->styles[T->nstyles].nlen + strlen(T->styles[T->nstyles].val), 0);
    T->nstyles++;
}

/* keeps e on the save stack of tk_styles_group_end */
static void esave_push(tikz *T, struct tk_everysave e)
{
    if (T->nesave == T->capesave) {
        T->capesave = T->capesave ? T->capesave * 2 : 16;
        T->esave = xrealloc(T->esave, T->capesave * sizeof *T->esave);
    }
    T->esave[T->nesave++] = e;
}

void tk_set_every(tikz *T, int label, char *v)
{
    gstate *g = GS(T);
    char **f = label == 2 ? &T->graphsset : label ? &g->every_label : &g->every_node;
    int depth = tk_group_depth(T);
    if (depth > (label == 2 ? 0 : g->tex_depth)) {
        /* save the value the group found, once per group */
        int saved = 0;
        for (size_t i = T->nesave; i-- > 0 && T->esave[i].depth == depth;)
            if ((label == 2 || T->esave[i].gs == T->ngs - 1) && T->esave[i].label == label) { saved = 1; break; }
        if (!saved) {
            esave_push(T, (struct tk_everysave){ T->ngs - 1, label, depth, *f });
            style_bytes(T, *f ? strlen(*f) : 0, 0);
            *f = v;
            return;
        }
    }
    free(*f);
    *f = v;
}

void tk_gs_local(tikz *T)
{
    if (T->ngs == 0 || tk_group_depth(T) <= GS(T)->tex_depth) return;
    tk_gs_push(T);
    esave_push(T, (struct tk_everysave){ T->ngs - 1, 3, tk_group_depth(T), NULL });
}

void tk_styles_group_end(tikz *T, int depth)
{
    while (T->nstyles > T->style_floor && T->styles[T->nstyles - 1].level > depth) {
        T->nstyles--;
        style_bytes(T, 0, T->styles[T->nstyles].nlen + strlen(T->styles[T->nstyles].val));
        free(T->styles[T->nstyles].name);
        free(T->styles[T->nstyles].val);
    }
    while (T->nesave > 0 && T->esave[T->nesave - 1].depth > depth) {
        struct tk_everysave *e = &T->esave[--T->nesave];
        style_bytes(T, 0, e->old ? strlen(e->old) : 0);
        if (e->label == 3) {
            if (e->gs == T->ngs - 1) tk_gs_pop(T);   /* tk_gs_local's state */
        } else if (e->label == 2 || e->gs < T->ngs) {
            char **f = e->label == 2 ? &T->graphsset :
                       e->label ? &T->gs[e->gs].every_label : &T->gs[e->gs].every_node;
            free(*f);
            *f = e->old;
        } else {
            free(e->old);
        }
    }
}

void tk_styles_free_saves(tikz *T)
{
    for (size_t i = 0; i < T->nesave; i++) free(T->esave[i].old);
    free(T->esave);
    T->esave = NULL;
    T->nesave = T->capesave = 0;
}

/* ---- colors --------------------------------------------------------------------- */

static const char *const colors[] = {
    "black", "white", "red", "green", "blue", "cyan", "magenta", "yellow", "gray", "grey",
    "darkgray", "lightgray", "brown", "lime", "olive", "orange", "pink", "purple", "teal",
    "violet", "Yellow", "Green", "Blue", "Red", "LYellow", "LGreen", "LBlue", "LRed",
    "PBlue", "PGreen", "PYellow", "PRed", "POrange", "none", NULL
};

int tk_is_color(const char *s, size_t n)
{
    tk_trim(&s, &n);
    if (n == 0) return 0;
    /* xcolor expressions: name!pct!name ... */
    size_t m = 0;
    while (m < n && s[m] != '!') m++;
    for (int i = 0; colors[i]; i++)
        if (tk_is(s, m, colors[i])) return 1;
    return 0;
}

/* ---- caches --------------------------------------------------------------------- */

/* Two caches of results that are a pure function of a short text, both
 * direct-mapped tables in T->optcache (made on first use, freed by
 * tk_optcache_free). A text has one slot (text_slot); a slot keeps the text
 * last stored in it whole, and a lookup hits only when the whole text (and
 * whatever else the result depends on) is equal, so a hit gives exactly what
 * computing the result again would give. The same texts come again and
 * again: the option list of every path of a loop, the same numbers in them.
 *  - option lists (tk_apply_opts): the split of a list into its options, by
 *    the list's text. Only the split is kept (opt_split reads nothing but
 *    the text); every option is applied again each time, as styles, values
 *    and the state may have changed.
 *  - values (tk_eval): pgfmath_eval's value and unit flag, by the text and
 *    the font (em and ex, pgfmath's only state, pgfmath.h). Only successes
 *    are kept (a failure may leave anything in *v). */

/* One option of a list as opt_split splits it: key and value as offsets
 * into the list's text, and what apply_one derives from the key alone. */
struct opt_item {
    unsigned short k, kn, v, vn;
    short slash;                  /* offset of the first '/' in the key (has_v), else -1 */
    unsigned char has_v;
    const struct opt_key *key;
};

#define CACHE_SLOTS 256           /* each table's; text_slot's range */
#define LIST_CACHE_TEXT 96        /* longer lists are not kept */
#define LIST_CACHE_ITEMS 8        /* nor lists of more options */
#define VALUE_CACHE_TEXT 32       /* values of texts shorter than this are kept */

struct tk_optcache {
    struct {
        unsigned short n, nitems;  /* n = 0: empty */
        char text[LIST_CACHE_TEXT];
        struct opt_item it[LIST_CACHE_ITEMS];
    } list[CACHE_SLOTS];
    struct {
        unsigned char n;           /* 0: empty */
        char text[VALUE_CACHE_TEXT];
        double em, ex;             /* the font it was evaluated with */
        double v;
        int hu;
    } value[CACHE_SLOTS];
};

/* The slot of the text s[0,n): a hash of its length and its first and last
 * 8 bytes (every byte of a shorter text). Which hash does not change a
 * result, only which texts share a slot. */
static unsigned text_slot(const char *s, size_t n)
{
    uint64_t a = 0, b;
    if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
    } else {
        for (size_t i = 0; i < n; i++) a = a << 8 | (unsigned char)s[i];
        b = a;
    }
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + n) * 0xC2B2AE3D27D4EB4Full;
    return (unsigned)(h >> 56) % CACHE_SLOTS;
}

static struct tk_optcache *opt_cache(tikz *T)
{
    if (!T->optcache) T->optcache = xcalloc(1, sizeof *T->optcache);
    return T->optcache;
}

void tk_optcache_free(tikz *T)
{
    free(T->optcache);
    T->optcache = NULL;
}

/* The option list s[0,n)'s split, copied into it (room for LIST_CACHE_ITEMS):
 * its number of options, or -1 when it is not in the cache. */
static int list_cache_get(tikz *T, const char *s, size_t n, struct opt_item *it)
{
    if (n == 0 || n > LIST_CACHE_TEXT) return -1;
    struct tk_optcache *c = opt_cache(T);
    unsigned k = text_slot(s, n);
    if (c->list[k].n != n || memcmp(c->list[k].text, s, n) != 0) return -1;
    memcpy(it, c->list[k].it, c->list[k].nitems * sizeof *it);
    return c->list[k].nitems;
}

/* Keeps the split it[0,m) of the option list s[0,n) (when it fits). */
static void list_cache_put(tikz *T, const char *s, size_t n, const struct opt_item *it, int m)
{
    if (n == 0 || n > LIST_CACHE_TEXT || m > LIST_CACHE_ITEMS) return;
    struct tk_optcache *c = opt_cache(T);
    unsigned k = text_slot(s, n);
    c->list[k].n = (unsigned short)n;
    c->list[k].nitems = (unsigned short)m;
    memcpy(c->list[k].text, s, n);
    memcpy(c->list[k].it, it, (size_t)m * sizeof *it);
}

/* 1 with the value and unit flag of the text s[0,n) under the font em, ex
 * in *v, *hu when it is in the cache; else 0. */
static int value_cache_get(tikz *T, const char *s, size_t n, double em, double ex, double *v, int *hu)
{
    if (n == 0 || n >= VALUE_CACHE_TEXT) return 0;
    struct tk_optcache *c = opt_cache(T);
    unsigned k = text_slot(s, n);
    if (c->value[k].n != n || memcmp(c->value[k].text, s, n) != 0 ||
        c->value[k].em != em || c->value[k].ex != ex) return 0;
    *v = c->value[k].v;
    *hu = c->value[k].hu;
    return 1;
}

/* Keeps the value v and unit flag hu of the text s[0,n) under the font em, ex. */
static void value_cache_put(tikz *T, const char *s, size_t n, double em, double ex, double v, int hu)
{
    if (n == 0 || n >= VALUE_CACHE_TEXT) return;
    struct tk_optcache *c = opt_cache(T);
    unsigned k = text_slot(s, n);
    c->value[k].n = (unsigned char)n;
    memcpy(c->value[k].text, s, n);
    c->value[k].em = em;
    c->value[k].ex = ex;
    c->value[k].v = v;
    c->value[k].hu = hu;
}

/* ---- numbers -------------------------------------------------------------------- */

/* s[0,n) may name rnd, rand or random (a value not to cache) */
int tk_may_random(const char *s, size_t n)
{
    for (size_t i = 0; i + 3 <= n; i++)
        if (s[i] == 'r' && ((s[i + 1] == 'n' && s[i + 2] == 'd') ||
                            (s[i + 1] == 'a' && s[i + 2] == 'n')))
            return 1;
    return 0;
}

int tk_eval(tikz *T, const char *s, size_t n, double *v, int *has_unit)
{
    int hu = 0;
    double em, ex;
    if (T->nufn || tk_may_random(s, n)) {
        /* declared functions expanded, random numbers drawn: never cached */
        char *x = NULL;
        size_t xn = 0;
        int dyn = 0;
        const char *why = NULL;
        if (tk_ufn_expand(T, s, n, &x, &xn, &dyn, &why) != 0) {
            tk_warn(T, T->cmd_line, "%s in '%.*s'", why, (int)(n > 60 ? 60 : n), s);
            return -1;
        }
        if (x || dyn) {
            const char *w = x ? x : s;
            size_t wn = x ? xn : n;
            tk_unbrace(&w, &wn);
            int r = wn ? pgfmath_eval(w, wn, v, &hu, NULL, 0) : -1;
            free(x);
            if (r != 0) return -1;
            if (has_unit) *has_unit = hu;
            return 0;
        }
    }
    pgfmath_get_font(&em, &ex);
    if (value_cache_get(T, s, n, em, ex, v, &hu)) {
        if (has_unit) *has_unit = hu;
        return 0;
    }
    const char *w = s;
    size_t wn = n;
    tk_unbrace(&w, &wn);
    if (wn == 0) return -1;
    if (pgfmath_eval(w, wn, v, &hu, NULL, 0) != 0)   /* the message is not used */
        return -1;
    value_cache_put(T, s, n, em, ex, *v, hu);
    if (has_unit) *has_unit = hu;
    return 0;
}

double tk_eval_dim(tikz *T, const char *s, size_t n, double dflt)
{
    double v;
    if (tk_eval(T, s, n, &v, NULL) != 0) {
        tk_warn(T, T->cmd_line, "cannot evaluate dimension '%.*s'", (int)(n > 60 ? 60 : n), s);
        return dflt;
    }
    return v;
}

/* ---- option lists ------------------------------------------------------------------ */

static const struct { const char *k; double lw; } widths[] = {
    { "ultra thin", 0.1 }, { "very thin", 0.2 }, { "thin", 0.4 }, { "semithick", 0.6 },
    { "thick", 0.8 }, { "very thick", 1.2 }, { "ultra thick", 1.6 }, { NULL, 0 }
};

static const struct { const char *k; const char *dash; } dashes[] = {
    { "solid", "solid" }, { "dashed", "dashed" }, { "dotted", "dotted" },
    { "densely dashed", "dashed" }, { "loosely dashed", "dashed" },
    { "densely dotted", "dotted" }, { "loosely dotted", "dotted" },
    { "dashdotted", "dashdotted" }, { "dash dot", "dashdotted" }, { NULL, NULL }
};

/* direction keys for node placement (as the positioning library, which
 * the IM class loads, defines them): the node's anchor, the direction,
 * the anchor of an "of" node the node is put at, and the factor of a
 * single distance (1/sqrt 2 on the diagonals) */
static const struct { const char *k; const char *anchor; double dx, dy; const char *of; double f; } dirs[] = {
    { "above", "south", 0, 1, "north", 1 }, { "below", "north", 0, -1, "south", 1 },
    { "left", "east", -1, 0, "west", 1 }, { "right", "west", 1, 0, "east", 1 },
    { "above left", "south east", -1, 1, "north west", 0.707106781 },
    { "above right", "south west", 1, 1, "north east", 0.707106781 },
    { "below left", "north east", -1, -1, "south west", 0.707106781 },
    { "below right", "north west", 1, -1, "south east", 0.707106781 },
    { NULL, NULL, 0, 0, NULL, 0 }
};

static const int text_aligns[] = {
    TK_ALIGN_LEFT, TK_ALIGN_CENTER, TK_ALIGN_RIGHT, TK_ALIGN_JUSTIFY, TK_ALIGN_FLUSH_LEFT,
    TK_ALIGN_FLUSH_CENTER, TK_ALIGN_FLUSH_RIGHT
};   /* text ragged, text centered, text ragged left, text justified, text badly ragged,
      * text badly centered, text badly ragged left (the K_TEXTALIGN keys' arg) */

/* An arrow spec like ->, <->, -{Stealth}, |-|, -latex, {Latex[]}-{Latex[]} */
static int arrow_spec(const char *s, size_t n, char *out, size_t cap)
{
    long dash = -1;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') depth--;
        else if (c == '-' && depth == 0) {
            if (dash >= 0) return 0;
            dash = (long)i;
        } else if (depth == 0 && !(isalpha((unsigned char)c) || c == '<' || c == '>' ||
                                   c == '|' || c == ' ' || c == '.' || c == ')' || c == '('))
            return 0;
    }
    if (dash < 0) return 0;
    int start = dash > 0, end = (size_t)dash + 1 < n;
    if (!start && !end) return 0;
    snprintf(out, cap, "%s-%s", start ? "<" : "", end ? ">" : "");
    return 1;
}

static void rotate_by(gstate *g, double a)
{
    mat r = { cos(a * DEG), sin(a * DEG), -sin(a * DEG), cos(a * DEG), 0, 0 };
    g->ctm = mat_mul(g->ctm, r);
}

/* Evaluates "(coord)" or "{(coord)}" as a user-space vector (no CTM). */
static int opt_vector(tikz *T, const char *v, size_t vn, vec2 *out)
{
    tk_unbrace(&v, &vn);
    if (vn >= 2 && v[0] == '(' && v[vn - 1] == ')') {
        gstate *g = GS(T);
        mat save = g->ctm;
        g->ctm = mat_id();
        int r = tk_coord(T, v + 1, vn - 2, out, T->cmd_line);
        g->ctm = save;
        return r;
    }
    return -1;
}

static void set_axis_vector(tikz *T, vec2 *dst, const char *v, size_t vn, vec2 unit)
{
    vec2 p;
    const char *w = v;
    size_t wn = vn;
    tk_unbrace(&w, &wn);
    if (wn && w[0] == '(') {
        if (opt_vector(T, w, wn, &p) == 0) *dst = p;
        return;
    }
    double d;
    /* x=<dimension>: \pgfpoint{d}{0pt}, so a plain number is in pt;
     * z=<dimension> is (d, d) */
    if (tk_eval(T, w, wn, &d, NULL) == 0) *dst = vscale(unit, d);
}

/* Node shape names (as keys or shape= values): 1 when k names a shape
 * tikz2ir knows (set in no); other shapes of TikZ's libraries warn once
 * and count as known (the node is taken as a rectangle). */
static int shape_key(tikz *T, const char *k, size_t kn, tk_nodeopts *no)
{
    static const struct { const char *k; int shape; } shapes[] = {
        { "rectangle", TK_SH_RECT }, { "circle", TK_SH_CIRCLE }, { "ellipse", TK_SH_ELLIPSE },
        { "diamond", TK_SH_DIAMOND }, { "regular polygon", TK_SH_POLYGON },
        { "coordinate", TK_SH_COORD }, { "rounded rectangle", TK_SH_RRECT },
        { "chamfered rectangle", TK_SH_CHAMF }, { "cross out", TK_SH_CROSSOUT },
        { "strike out", TK_SH_STRIKEOUT }, { "forbidden sign", TK_SH_FORBID },
        { "correct forbidden sign", TK_SH_CFORBID }, { "star", TK_SH_STAR }, { NULL, 0 }
    };
    for (int i = 0; shapes[i].k; i++)
        if (tk_is(k, kn, shapes[i].k)) {
            /* on a scope or path: the shape of the nodes in it */
            if (no) no->shape = shapes[i].shape;
            else GS(T)->node_shape = shapes[i].shape + 1;
            return 1;
        }
    /* the other shapes pgf declares (\pgfdeclareshape in pgf's shape
     * libraries, circuits included): the K_SHAPENAME keys of
     * tikzopt_keys.gperf; named alone, TikZ takes the name for shape=name
     * (its unknown-key handler) */
    const struct opt_key *ok = tk_opt_key_find(k, kn);
    if (!ok || ok->id != K_SHAPENAME) return 0;
    if (no) {
        tk_warn(T, T->cmd_line, "shape '%.*s' not supported; its node is taken as a rectangle", (int)kn, k);
        no->shape = TK_SH_RECT;
    }
    return 1;
}

/* A positioning distance: a length, or a number in the units of the x
 * (horizontal) or y (vertical) vector; the vector it stands for. */
static int place_dist(tikz *T, const char *s, size_t n, int vertical, vec2 *out)
{
    double d;
    int hu = 0;
    if (tk_eval(T, s, n, &d, &hu) != 0) return -1;
    gstate *g = GS(T);
    if (hu) *out = vertical ? v2(0, d) : v2(d, 0);
    else *out = vscale(vertical ? g->yv : g->xv, d);
    return 0;
}

/* above=<dist>, right=of A, below left=1cm and 2cm of A, ... as the
 * positioning library does: the anchor is the opposite side; a distance
 * "V and H" (or one D for both, times 1/sqrt 2 on the diagonals) shifts
 * the node by (dx H, dy V); "of A" puts it at A's anchor on that side
 * (border to border; with on grid, centre to centre) shifted by the
 * distance, node distance (1cm and 1cm) when none is given. */
static void apply_direction(tikz *T, int i, const char *k, size_t kn, const char *v, size_t vn,
                            int has_v, tk_nodeopts *no)
{
    if (!no) return;
    gstate *g = GS(T);
    setstr(no->anchor, sizeof no->anchor, dirs[i].anchor, strlen(dirs[i].anchor));
    no->has_anchor = 1;
    /* without a value only the anchor changes (a shift or an "of" point
     * set before stays, as in TikZ) */
    if (!has_v) return;
    no->shift_x = no->shift_y = 0;
    const char *w = v;
    size_t wn = vn;
    tk_unbrace(&w, &wn);
    const char *nums = w;
    size_t nn = wn;
    const char *of = NULL;
    for (size_t j = 0; j + 3 <= wn; j++)
        if (memcmp(w + j, "of ", 3) == 0 && (j == 0 || w[j - 1] == ' ')) { of = w + j; break; }
    if (of) {
        nn = (size_t)(of - w);
        const char *tg = of + 3;
        size_t tn = wn - (size_t)(tg - w);
        tk_trim(&tg, &tn);
        if (tn >= 2 && tg[0] == '(' && tg[tn - 1] == ')') { tg++; tn -= 2; tk_trim(&tg, &tn); }
        tk_node *nd = tk_find_node(T, tg, tn);
        vec2 p;
        int ok;
        if (nd) {
            /* a node: its border on this side, or its centre on grid */
            const char *an = g->on_grid ? "center" : dirs[i].of;
            ok = tk_node_anchor(T, nd, an, strlen(an), &p) == 0;
            if (g->on_grid) strcpy(no->anchor, "center");
        } else {
            ok = tk_coord(T, tg, tn, &p, T->cmd_line) == 0;
        }
        if (!ok) {
            tk_warn(T, T->cmd_line, "positioning '%.*s=%.*s': cannot evaluate '%.*s'; placed at the point",
                    (int)kn, k, (int)vn, v, (int)tn, tg);
            return;
        }
        no->has_of = 1;
        no->of_at = p;
        tk_trim(&nums, &nn);
        if (nn == 0) { nums = g->node_distance; nn = strlen(nums); }
    }
    tk_trim(&nums, &nn);
    if (nn == 0) return;
    const char *and = tk_memmem(nums, nn, "and");
    vec2 pv, ph;
    double f = 1;
    int bad;
    if (and) {
        bad = place_dist(T, nums, (size_t)(and - nums), 1, &pv) ||
              place_dist(T, and + 3, nn - (size_t)(and + 3 - nums), 0, &ph);
    } else {
        bad = place_dist(T, nums, nn, 1, &pv) || place_dist(T, nums, nn, 0, &ph);
        f = dirs[i].f;
    }
    if (bad) {
        tk_warn(T, T->cmd_line, "positioning '%.*s=%.*s': cannot evaluate the distance",
                (int)kn, k, (int)vn, v);
        return;
    }
    vec2 sum = vadd(pv, ph);
    no->shift_x = dirs[i].dx * f * sum.x;
    no->shift_y = dirs[i].dy * f * sum.y;
}

/* k=v where k is name/.handler (slash: the first '/' in k): .style and
 * .append style define a style (every node and every label are kept in the
 * graphics state); other handlers are ignored. 1 when k is such a key. */
static int apply_handler_key(tikz *T, const char *k, size_t kn, const char *slash,
                             const char *v, size_t vn)
{
    gstate *g = GS(T);
    size_t nn = (size_t)(slash - k);
    const char *h = slash + 1;
    size_t hn = kn - nn - 1;
    if (tk_is(h, hn, ".style") || tk_is(h, hn, ".append style")) {
        int append = tk_is(h, hn, ".append style");
        if (tk_is(k, nn, "every node")) {
            const char *w = v; size_t wn = vn;
            tk_unbrace(&w, &wn);
            tk_set_every(T, 0, append && g->every_node ? list_append(g->every_node, w, wn) : xstrndup(w, wn));
        } else if (tk_is(k, nn, "every label")) {
            const char *w = v; size_t wn = vn;
            tk_unbrace(&w, &wn);
            tk_set_every(T, 1, xstrndup(w, wn));
        } else if (append && tk_is(k, nn, "every edge quotes") && !tk_find_style(T, k, nn)) {
            /* the quotes library's every edge quotes/.style={auto} */
            const char *w = v; size_t wn = vn;
            tk_unbrace(&w, &wn);
            char *av = list_append("auto", w, wn);
            tk_define_style(T, k, nn, av, wn + 5, 0);
            free(av);
        } else {
            tk_define_style(T, k, nn, v, vn, append);
        }
        return 1;
    }
    if (tk_is(h, hn, ".pic")) {
        /* name/.pic={code}: the style pics/name with code={code} */
        char *nm = xrealloc(NULL, nn + 6), *code = xrealloc(NULL, vn + 8);
        snprintf(nm, nn + 6, "pics/%.*s", (int)nn, k);
        snprintf(code, vn + 8, "code={%.*s}", (int)vn, v);
        tk_define_style(T, nm, strlen(nm), code, strlen(code), 0);
        free(nm);
        free(code);
        return 1;
    }
    /* pics/name/.style={...}, pics/name/.append style: a pic type */
    if (tk_is(k, nn, "pics")) {
        const char *ls = NULL;
        for (const char *q = h; q < k + kn; q++) if (*q == '/') ls = q;
        if (ls && (tk_is(ls, (size_t)(k + kn - ls), "/.style") ||
                   tk_is(ls, (size_t)(k + kn - ls), "/.append style"))) {
            tk_define_style(T, k, (size_t)(ls - k), v, vn, ls[2] == 'a');
            return 1;
        }
    }
    if (hn >= 1 && h[0] == '.') return 1;   /* other handlers: ignore */
    return 0;
}

/* A key without a value (a line width, dash, direction or shape name, a node
 * position, a flag, a color, an arrow spec); other keys without a value are
 * ignored. */
static void apply_key_alone(tikz *T, const struct opt_key *key, const char *k, size_t kn,
                            tk_nodeopts *no)
{
    gstate *g = GS(T);
    int id = key ? key->id : K_NONE;
    switch (id) {
    case K_WIDTH: g->lw = widths[key->arg].lw; if (no) no->lw = g->lw; return;
    case K_DASH: strcpy(g->dash, dashes[key->arg].dash); return;
    case K_DIR: apply_direction(T, key->arg, k, kn, NULL, 0, 0, no); return;
    case K_DRAW: g->draw = 1; g->drawc[0] = 0; if (no) { no->draw = 1; no->drawc[0] = 0; } return;
    case K_FILL: g->fill = 1; g->fillc[0] = 0; if (no) { no->fill = 1; no->fillc[0] = 0; } return;
    case K_SHAPENAME: shape_key(T, k, kn, no); return;
    case K_MIDWAY: if (no) { no->pos = 0.5; no->has_pos = 1; } return;
    case K_NEAR_START: if (no) { no->pos = 0.25; no->has_pos = 1; } return;
    case K_NEAR_END: if (no) { no->pos = 0.75; no->has_pos = 1; } return;
    case K_VERY_NEAR_START: if (no) { no->pos = 0.125; no->has_pos = 1; } return;
    case K_VERY_NEAR_END: if (no) { no->pos = 0.875; no->has_pos = 1; } return;
    case K_AT_START: if (no) { no->pos = 0; no->has_pos = 1; } return;
    case K_AT_END: if (no) { no->pos = 1; no->has_pos = 1; } return;
    case K_SLOPED: if (no) no->sloped = 1; return;
    case K_ON_GRID: g->on_grid = 1; return;
    case K_TRANSFORM_SHAPE: g->transform_shape = 1; return;
    case K_TEXTALIGN: if (no) no->align = text_aligns[key->arg]; return;
    case K_OVERLAY: g->overlay = 1; return;
    case K_ROUNDED_CORNERS: g->rounded = 4; return;
    case K_SHARP_CORNERS: g->rounded = 0; return;
    case K_HELP_LINES: strcpy(g->color, "gray"); g->lw = 0.2; return;
    case K_BEND_LEFT: g->bend = 30; g->to_kind = TK_TO_CURVE; g->to_relative = 1; return;
    case K_BEND_RIGHT: g->bend = -30; g->to_kind = TK_TO_CURVE; g->to_relative = 1; return;
    case K_SCALE_ONLY_AXIS: g->scale_only_axis = 1; return;
    case K_IGNORE: return;
    default: break;
    }
    if (tk_is_color(k, kn)) {
        setstr(g->color, sizeof g->color, k, kn);
        if (no) setstr(no->textc, sizeof no->textc, k, kn);
        return;
    }
    char arr[24];
    if (arrow_spec(k, kn, arr, sizeof arr)) { strcpy(g->arrows, arr); return; }
    if (kn == 1 && k[0] == '-') { g->arrows[0] = 0; return; }
    /* unknown key without value: ignored (does not change geometry) */
}

/* A key with a value for paths (positioning directions, draw, fill, colors,
 * line width, dashes, corners, arrows, radii, angles, grid steps, bends,
 * plot domain and samples, names of paths, right angles, the IR role): 1 when
 * key is one. */
static int apply_path_key(tikz *T, const struct opt_key *key, const char *k, size_t kn,
                          const char *v, size_t vn, tk_nodeopts *no)
{
    gstate *g = GS(T);
    double d;
    int hu;
    vec2 p;
    switch (key->id) {
    case K_DIR: apply_direction(T, key->arg, k, kn, v, vn, 1, no); return 1;
    case K_DRAW: {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        if (tk_is(w, wn, "none")) { g->draw = 0; if (no) no->draw = 0; }
        else {
            g->draw = 1; setstr(g->drawc, sizeof g->drawc, w, wn);
            if (no) { no->draw = 1; setstr(no->drawc, sizeof no->drawc, w, wn); }
        }
        return 1;
    }
    case K_FILL: {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        if (tk_is(w, wn, "none")) { g->fill = 0; if (no) no->fill = 0; }
        else {
            g->fill = 1; setstr(g->fillc, sizeof g->fillc, w, wn);
            if (no) { no->fill = 1; setstr(no->fillc, sizeof no->fillc, w, wn); }
        }
        return 1;
    }
    case K_COLOR: { setstr(g->color, sizeof g->color, v, vn); if (no) setstr(no->textc, sizeof no->textc, v, vn); return 1; }
    case K_TEXT: { if (no) setstr(no->textc, sizeof no->textc, v, vn); return 1; }
    case K_LINE_WIDTH: { g->lw = tk_eval_dim(T, v, vn, g->lw); if (no) no->lw = g->lw; return 1; }
    case K_DASH_PATTERN: { strcpy(g->dash, "dashed"); return 1; }
    case K_ROUNDED_CORNERS: { g->rounded = tk_eval_dim(T, v, vn, 4); return 1; }
    case K_ARROWS: { char arr[24]; if (arrow_spec(v, vn, arr, sizeof arr)) strcpy(g->arrows, arr); return 1; }
    case K_RADIUS: case K_X_RADIUS: case K_Y_RADIUS: {
        if (tk_eval(T, v, vn, &d, &hu) != 0) {
            tk_warn(T, T->cmd_line, "cannot evaluate radius '%.*s'", (int)(vn > 60 ? 60 : vn), v);
            return 1;
        }
        if (key->id != K_Y_RADIUS) { g->radius_x = d; g->radius_x_unit = hu; }
        if (key->id != K_X_RADIUS) { g->radius_y = d; g->radius_y_unit = hu; }
        g->has_radius = 1;
        return 1;
    }
    case K_START_ANGLE: { if (tk_eval(T, v, vn, &d, NULL) == 0) { g->start_angle = d; g->has_start = 1; } return 1; }
    case K_END_ANGLE: { if (tk_eval(T, v, vn, &d, NULL) == 0) { g->end_angle = d; g->has_end = 1; } return 1; }
    case K_DELTA_ANGLE: { if (tk_eval(T, v, vn, &d, NULL) == 0) { g->delta_angle = d; g->has_delta = 1; } return 1; }
    case K_STEP: {
        if (opt_vector(T, v, vn, &p) == 0) { g->step = p; g->has_step = 2; }
        else if (tk_eval(T, v, vn, &d, &hu) == 0) { g->step = v2(d, d); g->has_step = hu ? 2 : 1; }
        return 1;
    }
    case K_BEND_LEFT: { if (tk_eval(T, v, vn, &d, NULL) == 0) g->bend = d; g->to_kind = TK_TO_CURVE; g->to_relative = 1; return 1; }
    case K_BEND_RIGHT: { if (tk_eval(T, v, vn, &d, NULL) == 0) g->bend = -d; g->to_kind = TK_TO_CURVE; g->to_relative = 1; return 1; }
    case K_IN: { if (tk_eval(T, v, vn, &d, NULL) == 0) { g->in_a = d; g->has_in = 1; } g->to_kind = TK_TO_CURVE; return 1; }
    case K_OUT: { if (tk_eval(T, v, vn, &d, NULL) == 0) { g->out_a = d; g->has_out = 1; } g->to_kind = TK_TO_CURVE; return 1; }
    case K_DOMAIN: {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        const char *colon = memchr(w, ':', wn);
        double a, b;
        if (colon && tk_eval(T, w, (size_t)(colon - w), &a, NULL) == 0 &&
            tk_eval(T, colon + 1, wn - (size_t)(colon - w) - 1, &b, NULL) == 0) {
            g->dom0 = a; g->dom1 = b;
        }
        return 1;
    }
    case K_SAMPLES: {
        if (tk_eval(T, v, vn, &d, NULL) != 0 || isnan(d)) {
            tk_warn(T, T->cmd_line, "cannot evaluate samples '%.*s'; %d samples kept",
                    (int)(vn > 60 ? 60 : vn), v, g->samples);
        } else if (d < 2 || d > TK_MAX_SAMPLES) {
            int n = d < 2 ? 2 : TK_MAX_SAMPLES;
            tk_warn(T, T->cmd_line, "samples=%g is outside 2 to %d; %d samples used", d,
                    TK_MAX_SAMPLES, n);
            g->samples = n;
        } else {
            g->samples = (int)d;
        }
        return 1;
    }
    case K_NAME_PATH: case K_NAME_PATH_GLOBAL: {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        free(g->name_path);
        g->name_path = xstrndup(w, wn);
        return 1;
    }
    case K_NAME_INTERSECTIONS: {
        /* kept whole ("of=A and B, by={P,Q}"); the path reads it */
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        free(g->name_isect);
        g->name_isect = xstrndup(w, wn);
        return 1;
    }
    case K_RIGHT_ANGLE_QUADRANT: { if (tk_eval(T, v, vn, &d, NULL) == 0) g->ra_quadrant = (int)d; return 1; }
    case K_RIGHT_ANGLE_LENGTH: { g->ra_len = tk_eval_dim(T, v, vn, g->ra_len); return 1; }
    case K_IR_ROLE: {
        setstr(g->role, sizeof g->role, v, vn);
        if (no) setstr(no->role, sizeof no->role, v, vn);
        return 1;
    }
    default: return 0;
    }
}

/* A key with a value that transforms the coordinates (scale, shift, rotate,
 * slant, cm, the x, y and z vectors): 1 when key is one. */
static int apply_transform_key(tikz *T, const struct opt_key *key, const char *k, size_t kn,
                               const char *v, size_t vn, tk_nodeopts *no)
{
    gstate *g = GS(T);
    double d;
    vec2 p;
    switch (key->id) {
    case K_SCALE: {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { mat s = { d, 0, 0, d, 0, 0 }; g->ctm = mat_mul(g->ctm, s); g->s3 *= d; }
        return 1;
    }
    case K_XSCALE: {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { mat s = { d, 0, 0, 1, 0, 0 }; g->ctm = mat_mul(g->ctm, s); g->ok3 = 0; }
        return 1;
    }
    case K_YSCALE: {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { mat s = { 1, 0, 0, d, 0, 0 }; g->ctm = mat_mul(g->ctm, s); g->ok3 = 0; }
        return 1;
    }
    case K_XSHIFT: {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { mat s = { 1, 0, 0, 1, d, 0 }; g->ctm = mat_mul(g->ctm, s); }
        return 1;
    }
    case K_YSHIFT: {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { mat s = { 1, 0, 0, 1, 0, d }; g->ctm = mat_mul(g->ctm, s); }
        return 1;
    }
    case K_SHIFT: {
        if (opt_vector(T, v, vn, &p) == 0) {
            mat s = { 1, 0, 0, 1, p.x, p.y };
            g->ctm = mat_mul(g->ctm, s);
            if (T->last3_kind == 1 || T->last3_kind == 2) {
                g->t3.x += g->s3 * T->last3.x;
                g->t3.y += g->s3 * T->last3.y;
                g->t3.z += g->s3 * T->last3.z;
            }
        }
        else tk_warn(T, T->cmd_line, "cannot evaluate shift '%.*s'", (int)vn, v);
        return 1;
    }
    case K_ROTATE: {
        if (tk_eval(T, v, vn, &d, NULL) == 0) {
            if (no) no->rotate = d;
            else { rotate_by(g, d); g->ok3 = 0; }
        }
        return 1;
    }
    case K_ROTATE_AROUND: {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        long colon = -1;
        for (size_t i = 0; i < wn; i++) if (w[i] == ':') { colon = (long)i; break; }
        if (colon > 0 && tk_eval(T, w, (size_t)colon, &d, NULL) == 0 &&
            opt_vector(T, w + colon + 1, wn - (size_t)colon - 1, &p) == 0) {
            mat t1 = { 1, 0, 0, 1, p.x, p.y }, t2 = { 1, 0, 0, 1, -p.x, -p.y };
            g->ctm = mat_mul(g->ctm, t1);
            rotate_by(g, d);
            g->ctm = mat_mul(g->ctm, t2);
            g->ok3 = 0;
        }
        return 1;
    }
    case K_XSLANT: case K_YSLANT: {
        /* \pgftransformxslant: x' = x + s y; yslant: y' = s x + y */
        if (tk_eval(T, v, vn, &d, NULL) == 0) {
            mat s = { 1, key->id == K_YSLANT ? d : 0, key->id == K_XSLANT ? d : 0, 1, 0, 0 };
            g->ctm = mat_mul(g->ctm, s);
            g->ok3 = 0;
        }
        else tk_warn(T, T->cmd_line, "cannot evaluate %.*s '%.*s'", (int)kn, k, (int)vn, v);
        return 1;
    }
    case K_CM: {
        /* cm={a,b,c,d,(point)}: x' = a x + c y + px, y' = b x + d y + py */
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        double m[4];
        int ok = 1;
        for (int i = 0; i < 4 && ok; i++) {
            long c = tk_find_top(w, wn, ',');
            if (c < 0 || tk_eval(T, w, (size_t)c, &m[i], NULL) != 0) ok = 0;
            else { w += c + 1; wn -= (size_t)c + 1; }
        }
        if (ok && opt_vector(T, w, wn, &p) == 0) {
            mat s = { m[0], m[1], m[2], m[3], p.x, p.y };
            g->ctm = mat_mul(g->ctm, s);
            g->ok3 = 0;
        }
        else tk_warn(T, T->cmd_line, "cannot evaluate cm '%.*s' (want {a,b,c,d,(x,y)})", (int)vn, v);
        return 1;
    }
    case K_X: { set_axis_vector(T, &g->xv, v, vn, v2(1, 0)); return 1; }
    case K_Y: { set_axis_vector(T, &g->yv, v, vn, v2(0, 1)); return 1; }
    case K_Z: { set_axis_vector(T, &g->zv, v, vn, v2(1, 1)); return 1; }
    default: return 0;
    }
}

/* A key with a value for nodes (font, anchor, pos, separations, sizes, shape,
 * text width, align, node distance, on grid, polygon and shape parameters,
 * label, pin, name): 1 when key is one. */
static int apply_node_key(tikz *T, const struct opt_key *key, const char *v, size_t vn,
                          tk_nodeopts *no)
{
    gstate *g = GS(T);
    double d;
    switch (key->id) {
    case K_FONT: {
        int bold = 0;
        char buf[64];
        setstr(buf, sizeof buf, v, vn);
        double fs = tm_font_size(buf, g->font_size, &bold);
        if (no) { no->font_size = fs; no->bold = bold; }
        else { g->font_size = fs; g->bold = bold; }
        return 1;
    }
    case K_ANCHOR: {
        if (no) { setstr(no->anchor, sizeof no->anchor, v, vn); no->has_anchor = 1; }
        return 1;
    }
    case K_POS: { if (no && tk_eval(T, v, vn, &d, NULL) == 0) { no->pos = d; no->has_pos = 1; } return 1; }
    case K_INNER_SEP: {
        d = tk_eval_dim(T, v, vn, 3.33);
        if (no) no->inner_sep_x = no->inner_sep_y = d; else g->inner_sep = d;
        return 1;
    }
    case K_INNER_XSEP: { if (no) no->inner_sep_x = tk_eval_dim(T, v, vn, 3.33); return 1; }
    case K_INNER_YSEP: { if (no) no->inner_sep_y = tk_eval_dim(T, v, vn, 3.33); return 1; }
    case K_OUTER_SEP: { d = tk_eval_dim(T, v, vn, 0.5); if (no) no->outer_sep = d; else g->outer_sep = d; return 1; }
    case K_MINIMUM_SIZE: { d = tk_eval_dim(T, v, vn, 0); if (no) no->min_w = no->min_h = d; return 1; }
    case K_MINIMUM_WIDTH: { if (no) no->min_w = tk_eval_dim(T, v, vn, 0); return 1; }
    case K_MINIMUM_HEIGHT: { if (no) no->min_h = tk_eval_dim(T, v, vn, 0); return 1; }
    case K_SHAPE: {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        if (!shape_key(T, w, wn, no) && no) {
            tk_warn(T, T->cmd_line, "shape '%.*s' not supported; its node is taken as a rectangle",
                    (int)(wn > 40 ? 40 : wn), w);
            no->shape = TK_SH_RECT;
        }
        return 1;
    }
    case K_TEXT_WIDTH: {
        if (no) {
            const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
            if (wn == 0) no->text_width = 0;
            else if (tk_eval(T, w, wn, &d, NULL) == 0 && d > 0 && d < 16384) no->text_width = d;
            else tk_warn(T, T->cmd_line, "cannot evaluate text width '%.*s'; the text is set on one line",
                         (int)(wn > 60 ? 60 : wn), w);
        }
        return 1;
    }
    case K_ALIGN: {
        static const struct { const char *k; int a; } al[] = {
            { "left", TK_ALIGN_LEFT }, { "center", TK_ALIGN_CENTER }, { "right", TK_ALIGN_RIGHT },
            { "justify", TK_ALIGN_JUSTIFY }, { "none", TK_ALIGN_NONE },
            { "flush left", TK_ALIGN_FLUSH_LEFT }, { "flush center", TK_ALIGN_FLUSH_CENTER },
            { "flush right", TK_ALIGN_FLUSH_RIGHT }, { NULL, 0 }
        };
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        for (int i = 0; al[i].k; i++)
            if (tk_is(w, wn, al[i].k)) { if (no) no->align = al[i].a; return 1; }
        tk_warn(T, T->cmd_line, "align '%.*s' unknown (left, center, right, justify, ...)",
                (int)(wn > 40 ? 40 : wn), w);
        return 1;
    }
    case K_NODE_DISTANCE: {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        g->node_distance = tk_intern(T, w, wn < TK_NODE_DISTANCE_MAX ? wn : TK_NODE_DISTANCE_MAX - 1);
        return 1;
    }
    case K_ON_GRID: {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        g->on_grid = !tk_is(w, wn, "false");
        return 1;
    }
    case K_TRANSFORM_SHAPE: {
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        g->transform_shape = !tk_is(w, wn, "false");
        return 1;
    }
    case K_REGULAR_POLYGON_SIDES: {
        if (tk_eval(T, v, vn, &d, NULL) == 0 && d >= 3 && d <= 1000) {
            if (no) no->sides = (int)d; else g->poly_sides = (int)d;
        }
        else tk_warn(T, T->cmd_line, "regular polygon sides '%.*s' ignored (want 3 to 1000)", (int)vn, v);
        return 1;
    }
    case K_SHAPE_BORDER_ROTATE: case K_REGULAR_POLYGON_ROTATE: case K_STAR_ROTATE: {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { if (no) no->border_rotate = d; else g->border_rotate = d; }
        return 1;
    }
    case K_ASPECT: case K_SHAPE_ASPECT: {
        if (tk_eval(T, v, vn, &d, NULL) == 0 && d > 0) { if (no) no->aspect = d; else g->aspect = d; }
        return 1;
    }
    case K_RR_ARC_LENGTH: {
        if (tk_eval(T, v, vn, &d, NULL) == 0 && d > 0 && d <= 180) { if (no) no->rr_arc = d; else g->rr_arc = d; }
        else tk_warn(T, T->cmd_line, "rounded rectangle arc length '%.*s' ignored (want more than 0 and at most 180)",
                     (int)(vn > 40 ? 40 : vn), v);
        return 1;
    }
    case K_RR_WEST_ARC: case K_RR_EAST_ARC: {
        /* convex, concave, or anything else (none): a straight end */
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        int a = tk_is(w, wn, "convex") ? TK_ARC_CONVEX : tk_is(w, wn, "concave") ? TK_ARC_CONCAVE : TK_ARC_NONE;
        int *dst = key->id == K_RR_WEST_ARC ? (no ? &no->rr_west : &g->rr_west) : (no ? &no->rr_east : &g->rr_east);
        *dst = no ? a : a + 1;
        return 1;
    }
    case K_CH_ANGLE: {
        if (tk_eval(T, v, vn, &d, NULL) == 0) { if (no) no->ch_angle = d; else g->ch_angle = d; }
        return 1;
    }
    case K_CH_XSEP: case K_CH_YSEP: case K_CH_SEP: {
        d = tk_eval_dim(T, v, vn, -1);
        if (d < 0) return 1;
        if (key->id != K_CH_YSEP) { if (no) no->ch_xsep = d; else g->ch_xsep = d; }
        if (key->id != K_CH_XSEP) { if (no) no->ch_ysep = d; else g->ch_ysep = d; }
        return 1;
    }
    case K_CH_CORNERS: {
        /* pgf's list: chamfer all, or the corners (north east or top left,
         * south east or bottom right, south west or bottom left, north
         * west or top right, as pgf pairs them) */
        const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn);
        int m = 0;
        while (wn) {
            long cm = tk_find_top(w, wn, ',');
            size_t in = cm < 0 ? wn : (size_t)cm;
            const char *it = w;
            size_t itn = in;
            tk_trim(&it, &itn);
            if (tk_is(it, itn, "chamfer all")) m |= TK_CH_ALL;
            else if (tk_is(it, itn, "north east") || tk_is(it, itn, "top left")) m |= TK_CH_NE;
            else if (tk_is(it, itn, "south east") || tk_is(it, itn, "bottom right")) m |= TK_CH_SE;
            else if (tk_is(it, itn, "south west") || tk_is(it, itn, "bottom left")) m |= TK_CH_SW;
            else if (tk_is(it, itn, "north west") || tk_is(it, itn, "top right")) m |= TK_CH_NW;
            if (cm < 0) break;
            w += in + 1;
            wn -= in + 1;
        }
        if (no) no->ch_corners = m; else g->ch_corners = m | TK_CH_SET;
        return 1;
    }
    case K_STAR_POINTS: {
        if (tk_eval(T, v, vn, &d, NULL) == 0 && d >= 2 && d <= 60) {
            if (no) no->star_points = (int)d; else g->star_points = (int)d;
        } else {
            tk_warn(T, T->cmd_line, "star points '%.*s' ignored (want 2 to 60)", (int)(vn > 40 ? 40 : vn), v);
        }
        return 1;
    }
    case K_STAR_RATIO: case K_STAR_HEIGHT: {
        /* pgf: the one set last decides the outer radius */
        int h = key->id == K_STAR_HEIGHT;
        if (h) d = tk_eval_dim(T, v, vn, -1);
        else if (tk_eval(T, v, vn, &d, NULL) != 0) d = -1;
        if (!(d > 0)) return 1;
        if (no) { if (h) no->star_height = d; else no->star_ratio = d; no->star_by_height = h; }
        else { if (h) g->star_height = d; else g->star_ratio = d; g->star_by_height = h + 1; }
        return 1;
    }
    case K_LABEL: case K_PIN: {
        if (no) { const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn); tk_nodeopts_add_label(T, no, w, wn, key->id == K_PIN); }
        return 1;
    }
    case K_LABEL_DISTANCE: { g->label_distance = tk_eval_dim(T, v, vn, 0); return 1; }
    case K_NAME: {
        if (no) { free(no->name); const char *w = v; size_t wn = vn; tk_unbrace(&w, &wn); no->name = xstrndup(w, wn); }
        return 1;
    }
    /* radius keys: a plain number is in xy units, a dimension in pt */
    default: return 0;
    }
}

/* The quotes library's syntax, "text" options: in a node's options a
 * label (quotes mean label: label={[direction shorthands, options]text}, a
 * direction among the options being the label's position). A to's or an
 * edge's quotes are its nodes, taken out before (pathbuild.c, to_quotes);
 * elsewhere (a path's or a scope's options) what a quote means is not
 * drawn here, so it is said, never dropped silently. k[0] is '"'. */
static void apply_quotes(tikz *T, const char *k, size_t kn, const char *v, size_t vn, int has_v,
                         tk_nodeopts *no)
{
    size_t tn, rn;
    const char *rest;
    int closed = tk_quote_parts(k, kn, &tn, &rest, &rn) >= 0;   /* a ' (an edge's side) means nothing here */
    if (!no || !closed) {
        tk_warn(T, T->cmd_line, "the quotes syntax %s: '%.*s%s%.*s' not drawn",
                !closed ? "without a closing quote" : "outside the options of a node, a to or an edge",
                (int)(kn > 60 ? 60 : kn), k, has_v ? "=" : "", (int)(vn > 40 ? 40 : vn), has_v ? v : "");
        return;
    }
    static const char *const dirs[][2] = {
        { "above", "above" }, { "below", "below" }, { "left", "left" }, { "right", "right" },
        { "above left", "above left" }, { "above right", "above right" },
        { "below left", "below left" }, { "below right", "below right" }, { "centered", "center" },
    };
    char spec[1024];
    size_t sn = 0;
    const char *dir = NULL;
    sn += (size_t)snprintf(spec, sizeof spec, "[");
    size_t i = 0;
    const char *it;
    size_t in;
    while (tk_next_item(rest, rn, ',', &i, &it, &in)) {
        if (!in) continue;
        int d = -1;
        for (size_t j = 0; j < sizeof dirs / sizeof dirs[0]; j++)
            if (tk_is(it, in, dirs[j][0])) d = (int)j;
        if (d >= 0) { dir = dirs[d][1]; continue; }
        if (sn < sizeof spec) sn += (size_t)snprintf(spec + sn, sizeof spec - sn, "%s%.*s", sn > 1 ? "," : "", (int)in, it);
    }
    if (has_v && sn < sizeof spec)   /* an option with a value after the quote: "x" color=red */
        sn += (size_t)snprintf(spec + sn, sizeof spec - sn, "=%.*s", (int)vn, v);
    if (sn < sizeof spec)
        sn += (size_t)snprintf(spec + sn, sizeof spec - sn, "]%s%s%.*s", dir ? dir : "", dir ? ":" : "",
                               (int)tn, k + 1);
    if (sn >= sizeof spec) {
        tk_warn(T, T->cmd_line, "a quoted label longer than %zu characters not drawn", sizeof spec);
        return;
    }
    tk_nodeopts_add_label(T, no, spec, sn, 0);
}

/* One option. slash and key are what the key alone gives (tk_apply_opts
 * finds them once per text): slash = has_v ? memchr(k, '/', kn) : NULL,
 * key = tk_opt_key_find(k, kn). */
/* to path={...} (tikz.code.tex) and the to-path library's styles line to,
 * move to, curve to: which path a to or an edge makes (pathbuild.c,
 * to_op). 1 when k is one of them. */
static int to_path_key(tikz *T, const char *k, size_t kn, const char *v, size_t vn, int has_v)
{
    gstate *g = GS(T);
    if (has_v && tk_is(k, kn, "to path")) {
        tk_unbrace(&v, &vn);
        tk_trim(&v, &vn);
        g->to_kind = TK_TO_USER;
        g->to_path = tk_intern(T, v, vn);
        return 1;
    }
    if (tk_is(k, kn, "relative")) {
        tk_unbrace(&v, &vn);
        g->to_relative = !has_v || tk_is(v, vn, "true");
        return 1;
    }
    if (has_v) return 0;
    if (tk_is(k, kn, "line to")) {
        g->to_kind = TK_TO_LINE;
        g->bend = 0;
        g->has_in = g->has_out = 0;
        return 1;
    }
    if (tk_is(k, kn, "move to")) {
        g->to_kind = TK_TO_USER;
        g->to_path = tk_intern(T, "(\\tikztotarget) \\tikztonodes", 28);
        return 1;
    }
    if (tk_is(k, kn, "curve to")) {
        g->to_kind = TK_TO_CURVE;
        return 1;
    }
    return 0;
}

static void apply_one(tikz *T, const char *k, size_t kn, const char *v, size_t vn,
                      int has_v, tk_nodeopts *no, int depth, const char *slash,
                      const struct opt_key *key)
{
    if (slash && has_v && apply_handler_key(T, k, kn, slash, v, vn)) return;
    if (kn && k[0] == '"') { apply_quotes(T, k, kn, v, vn, has_v, no); return; }
    if (has_v && tk_is(k, kn, "declare function")) {
        if (tk_ufn_declare_key(T, v, vn) != 0)
            tk_warn(T, T->cmd_line, "declare function: cannot read '%.*s' (kept what could be read)",
                    (int)(vn > 60 ? 60 : vn), v);
        return;
    }
    if (!key && has_v && tk_nodeset_key(T, k, kn, v, vn, no != NULL)) return;
    if (!key && !no && has_v && tk_is(k, kn, "nodes")) {
        /* nodes={...} of a scope or path: every node/.append style (a
         * node's own nodes= is the matrix's or the graph's, read there) */
        gstate *g = GS(T);
        const char *w = v;
        size_t wn = vn;
        tk_unbrace(&w, &wn);
        tk_set_every(T, 0, g->every_node ? list_append(g->every_node, w, wn) : xstrndup(w, wn));
        return;
    }
    /* user styles */
    if (!has_v || (vn && v[0] != '(')) {
        const char *st = tk_find_style(T, k, kn);
        char *arg_st = NULL;
        if (st && has_v && strstr(st, "#1")) {
            /* name/.style={... #1 ...} used as name=value: #1 is the
             * value (pgfkeys); the other uses of it stay as they were */
            const char *w = v;
            size_t wn = vn;
            tk_unbrace(&w, &wn);
            struct tp_buf o = { 0 };
            for (const char *q = st; *q; q++) {
                if (q[0] == '#' && q[1] == '1') { tp_buf_add(&o, w, wn); q++; }
                else tp_buf_add(&o, q, 1);
            }
            st = arg_st = o.s;
        }
        if (st) {
            if (depth < MAX_STYLE_DEPTH) {
                /* macros in a style body are expanded when it is used; the body is
                 * copied (applying it can redefine the style) */
                size_t sl = strlen(st);
                if (memchr(st, '\\', sl)) {
                    char *x = tk_expand_text(T, st, sl);
                    tk_apply_opts(T, x, strlen(x), no, depth + 1);
                    free(x);
                } else if (sl < 256) {
                    char x[256];
                    memcpy(x, st, sl + 1);
                    tk_apply_opts(T, x, sl, no, depth + 1);
                } else {
                    char *x = xstrndup(st, sl);
                    tk_apply_opts(T, x, sl, no, depth + 1);
                    free(x);
                }
            }
            else tk_warn(T, T->cmd_line, "style '%.*s' nested too deeply", (int)kn, k);
            free(arg_st);
            return;
        }
    }
    if (!key && to_path_key(T, k, kn, v, vn, has_v)) return;
    if (!no && has_v && tk_matrix_key(T, k, kn, v, vn)) return;
    if (tk_plot_key(T, k, kn, v, vn, has_v)) return;
    if (!key && tk_tree_key(T, k, kn, v, vn, has_v)) return;
    if (!has_v) {
        if (!key && tk_deco_key(T, k, kn, NULL, 0, 0)) return;
        apply_key_alone(T, key, k, kn, no);
        return;
    }
    if (key && (apply_path_key(T, key, k, kn, v, vn, no) ||
                apply_transform_key(T, key, k, kn, v, vn, no) ||
                apply_node_key(T, key, v, vn, no)))
        return;
    if (tk_apply_lib_key(T, k, kn, v, vn)) return;
    if (tk_deco_key(T, k, kn, v, vn, has_v)) return;
    if (tk_is(k, kn, "opacity") || tk_is(k, kn, "draw opacity") || tk_is(k, kn, "fill opacity")) {
        /* not geometry, but what is seen: the IR carries it (opacity=,
         * draw-opacity=, fill-opacity=) */
        double x;
        if (tk_eval(T, v, vn, &x, NULL) != 0 || !isfinite(x)) return;
        x = x < 0 ? 0 : x > 1 ? 1 : x;
        gstate *g = GS(T);
        if (kn == 7) g->opacity = x;
        else if (k[0] == 'd') g->draw_opacity = x;
        else g->fill_opacity = x;
        return;
    }
    /* everything else (pattern, decorations, text width, align, ...) does not
     * change geometry; ignored */
}

/* Bytes that matter when an option list is split: 1 opens a group, 2 closes one,
 * 3 separates options, 4 separates a key from its value. */
static const unsigned char opt_class[256] = {
    ['{'] = 1, ['('] = 1, ['['] = 1, ['}'] = 2, [')'] = 2, [']'] = 2, [','] = 3, ['='] = 4
};

/* The next option of s[0,n) from *i on: one option runs up to the first ','
 * outside {} () []; its key ends at the first '=' outside them. Sets the
 * key (without a /tikz/-style family when there is no value; unbraced),
 * the value (NULL without '='), and the key's first '/' when there is a
 * value (else NULL). Returns 0 at the end of the list. Empty options are
 * skipped. */
static inline int opt_next(const char *s, size_t n, size_t *pi, const char **pk, size_t *pkn,
                    const char **pv, size_t *pvn, const char **pslash)
{
    size_t i = *pi;
    while (i < n) {
        size_t st = i, eq = (size_t)-1;
        int dd = 0;
        for (; i < n; i++) {
            unsigned c = opt_class[(unsigned char)s[i]];
            if (c == 0) continue;
            if (c == 1) dd++;
            else if (c == 2) { if (dd > 0) dd--; }
            else if (dd == 0) {
                if (c == 3) break;
                if (eq == (size_t)-1) eq = i;
            }
        }
        const char *item = s + st;
        size_t in = i - st;
        i++;
        tk_trim(&item, &in);
        if (in == 0) continue;
        const char *k = item, *v = NULL, *slash = NULL;
        size_t kn, vn = 0;
        if (eq == (size_t)-1) {
            /* "right angle symbol" has its value in braces without '=' sometimes */
            kn = in;
            if (k[0] == '{') tk_unbrace(&k, &kn);
            if (kn && k[0] == '/') {
                /* /tikz/... path keys: strip the family */
                const char *sl = memchr(k + 1, '/', kn - 1);
                if (sl) { kn -= (size_t)(sl + 1 - k); k = sl + 1; }
            }
        } else {
            v = s + eq + 1;
            kn = (size_t)(s + eq - item);
            vn = (size_t)(item + in - v);
            tk_trim(&k, &kn);
            tk_trim(&v, &vn);
            slash = memchr(k, '/', kn);
        }
        *pi = i;
        *pk = k; *pkn = kn; *pv = v; *pvn = vn; *pslash = slash;
        return 1;
    }
    *pi = i;
    return 0;
}

/* tk_apply_opts for a list of more than OPT_MAX_ITEMS options */
static void apply_opts_long(tikz *T, const char *s, size_t n, tk_nodeopts *no, int depth)
{
    size_t i = 0, kn, vn;
    const char *k, *v, *slash;
    while (opt_next(s, n, &i, &k, &kn, &v, &vn, &slash))
        apply_one(T, k, kn, v, vn, v != NULL, no, depth, slash, tk_opt_key_find(k, kn));
}

#define OPT_MAX_ITEMS 64

/* Splits s[0,n) into its options (at most max; -1 when there are more, or an
 * offset does not fit), as opt_next reads them. */
static int opt_split(const char *s, size_t n, struct opt_item *it, int max)
{
    if (n > 65535) return -1;
    int m = 0;
    size_t i = 0, kn, vn;
    const char *k, *v, *slash;
    while (opt_next(s, n, &i, &k, &kn, &v, &vn, &slash)) {
        if (m == max) return -1;
        struct opt_item *o = &it[m++];
        o->k = (unsigned short)(k - s);
        o->kn = (unsigned short)kn;
        o->v = (unsigned short)(v ? v - s : 0);
        o->vn = (unsigned short)vn;
        o->has_v = v != NULL;
        o->slash = (short)(slash ? slash - k : -1);
        o->key = tk_opt_key_find(k, kn);
    }
    return m;
}

void tk_apply_opts(tikz *T, const char *s, size_t n, tk_nodeopts *no, int depth)
{
    /* a copy of the split, not the cache's own: applying an option can apply
     * other lists (styles), which may take the slot */
    struct opt_item it[OPT_MAX_ITEMS];
    int m = list_cache_get(T, s, n, it);
    if (m < 0) {
        m = opt_split(s, n, it, OPT_MAX_ITEMS);
        if (m < 0) {
            apply_opts_long(T, s, n, no, depth);
            return;
        }
        list_cache_put(T, s, n, it, m);
    }
    /* The whole list is split before its first option is applied: the same
     * as splitting option by option, as applying an option never writes
     * into the text of the list being applied. */
    for (int j = 0; j < m; j++) {
        const struct opt_item *o = &it[j];
        const char *k = s + o->k;
        apply_one(T, k, o->kn, o->has_v ? s + o->v : NULL, o->vn, o->has_v, no, depth,
                  o->slash >= 0 ? k + o->slash : NULL, o->key);
    }
}
