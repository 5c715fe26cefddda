/* svg/doc.c — XML through libexpat into an element tree; CSS rules. See svg/doc.h. */
#include "svg/doc.h"
#include "ir/xalloc.h"

#include <ctype.h>
/* Debian builds expat with DTD support; the billion-laughs controls need it declared */
#ifndef XML_DTD
#define XML_DTD 1
#endif
#include <expat.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- parse state -------------------------------------------------------- */
typedef struct {
    XML_Parser p;
    svg_doc *doc;
    svg_node *cur;
    int depth, max_depth;
    int keep_text;            /* depth inside text/style/foreignObject */
    size_t kept, max_kept;
    unsigned seq;
    char *err;
    size_t errsz;
    const char *fname;
    int failed;
} pstate;

static void fail_at(pstate *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_at(pstate *s, const char *fmt, ...)
{
    if (s->failed) return;
    s->failed = 1;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(s->err, s->errsz, "%s:%lu:%lu: error: %s", s->fname,
             (unsigned long)XML_GetCurrentLineNumber(s->p),
             (unsigned long)XML_GetCurrentColumnNumber(s->p) + 1, msg);
    XML_StopParser(s->p, XML_FALSE);
}

static const char *local_name(const char *n)
{
    const char *c = strrchr(n, ':');
    return c ? c + 1 : n;
}

static int keeps_text(const char *name)
{
    return !strcmp(name, "text") || !strcmp(name, "style") || !strcmp(name, "foreignObject");
}

static void add_kid(svg_node *parent, svg_node *k)
{
    if (parent->nkids == parent->capkids) {
        parent->capkids = parent->capkids ? parent->capkids * 2 : 4;
        parent->kids = xrealloc(parent->kids, parent->capkids * sizeof *parent->kids);
    }
    parent->kids[parent->nkids++] = k;
    k->parent = parent;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **atts)
{
    pstate *s = ud;
    if (s->failed) return;
    if (++s->depth > s->max_depth) {
        fail_at(s, "elements nested deeper than %d", s->max_depth);
        return;
    }
    svg_node *n = xcalloc(1, sizeof *n);
    const char *ln = local_name(name);
    n->name = xstrndup(ln, strlen(ln));
    size_t na = 0;
    while (atts[2 * na]) na++;
    n->attrs = xmalloc((2 * na + 1) * sizeof *n->attrs);
    for (size_t i = 0; i < 2 * na; i++) {
        size_t l = strlen(atts[i]);
        s->kept += l;
        n->attrs[i] = xstrndup(atts[i], l);
    }
    n->attrs[2 * na] = NULL;
    n->nattrs = na;
    n->line = (int)XML_GetCurrentLineNumber(s->p);
    n->col = (int)XML_GetCurrentColumnNumber(s->p) + 1;
    n->seq = s->seq++;
    s->doc->nnodes++;
    if (s->cur) add_kid(s->cur, n);
    else s->doc->root = n;
    s->cur = n;
    if (s->keep_text || keeps_text(n->name)) s->keep_text++;
    if (s->kept > s->max_kept) fail_at(s, "document text larger than %zu bytes", s->max_kept);
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    (void)name;
    pstate *s = ud;
    if (s->failed || !s->cur) return;
    s->depth--;
    if (s->keep_text) s->keep_text--;
    s->cur = s->cur->parent;
}

static void XMLCALL on_chars(void *ud, const XML_Char *data, int len)
{
    pstate *s = ud;
    if (s->failed || !s->cur || !s->keep_text || len <= 0) return;
    s->kept += (size_t)len;
    if (s->kept > s->max_kept) {
        fail_at(s, "document text larger than %zu bytes", s->max_kept);
        return;
    }
    svg_node *c = s->cur;
    svg_node *last = c->nkids ? c->kids[c->nkids - 1] : NULL;
    if (last && last->text) {
        size_t ol = strlen(last->text);
        last->text = xrealloc(last->text, ol + (size_t)len + 1);
        memcpy(last->text + ol, data, (size_t)len);
        last->text[ol + (size_t)len] = 0;
        return;
    }
    svg_node *t = xcalloc(1, sizeof *t);
    t->name = xstrndup("#text", 5);
    t->attrs = xmalloc(sizeof *t->attrs);
    t->attrs[0] = NULL;
    t->text = xstrndup(data, (size_t)len);
    t->line = (int)XML_GetCurrentLineNumber(s->p);
    t->col = (int)XML_GetCurrentColumnNumber(s->p) + 1;
    t->seq = s->seq++;
    add_kid(c, t);
}

static void XMLCALL on_entity_decl(void *ud, const XML_Char *name, int is_param,
                                   const XML_Char *value, int vlen, const XML_Char *base,
                                   const XML_Char *sysid, const XML_Char *pubid,
                                   const XML_Char *notation)
{
    (void)vlen; (void)base; (void)pubid; (void)notation;
    pstate *s = ud;
    if (is_param) fail_at(s, "parameter entity '%s' not allowed", name);
    else if (!value || sysid) fail_at(s, "external entity '%s' not allowed", name);
}

static int XMLCALL on_ext_ref(XML_Parser p, const XML_Char *context, const XML_Char *base,
                              const XML_Char *sysid, const XML_Char *pubid)
{
    (void)p; (void)context; (void)base; (void)sysid; (void)pubid;
    return XML_STATUS_ERROR;
}

static void free_node(svg_node *n)
{
    /* iterative post-order, the tree may be deep */
    while (n) {
        if (n->nkids) {
            svg_node *k = n->kids[--n->nkids];
            k->parent = n;
            n = k;
            continue;
        }
        svg_node *p = n->parent;
        for (size_t i = 0; i < 2 * n->nattrs; i++) free(n->attrs[i]);
        free(n->attrs);
        free(n->kids);
        free(n->name);
        free(n->text);
        free(n);
        n = p;
    }
}

void svg_doc_free(svg_doc *d)
{
    if (!d) return;
    if (d->root) {
        d->root->parent = NULL;
        free_node(d->root);
    }
    for (size_t i = 0; i < d->nrules; i++) {
        free(d->rules[i].selector);
        svg_css_free_pairs(d->rules[i].decls, d->rules[i].ndecls);
    }
    free(d->rules);
    free(d->ids);
    free(d);
}

const char *svg_attr(const svg_node *n, const char *name)
{
    for (size_t i = 0; i < n->nattrs; i++)
        if (!strcmp(n->attrs[2 * i], name)) return n->attrs[2 * i + 1];
    if (!strcmp(name, "href"))
        for (size_t i = 0; i < n->nattrs; i++)
            if (!strcmp(n->attrs[2 * i], "xlink:href")) return n->attrs[2 * i + 1];
    return NULL;
}

/* --- ids ---------------------------------------------------------------- */
static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

svg_node *svg_doc_by_id(const svg_doc *d, const char *id)
{
    if (!d->idcap || !id) return NULL;
    size_t i = hash_str(id) & (d->idcap - 1);
    while (d->ids[i]) {
        const char *v = svg_attr(d->ids[i], "id");
        if (v && !strcmp(v, id)) return d->ids[i];
        i = (i + 1) & (d->idcap - 1);
    }
    return NULL;
}

static void index_ids(svg_doc *d)
{
    size_t cap = 16;
    while (cap < 2 * d->nnodes + 16) cap *= 2;
    d->idcap = cap;
    d->ids = xcalloc(cap, sizeof *d->ids);
    /* iterative walk in document order; first id wins */
    svg_node *n = d->root;
    size_t *stack = NULL;
    svg_node **nstack = NULL;
    size_t sp = 0, scap = 0;
    if (!n) return;
    for (;;) {
        const char *id = n->text ? NULL : svg_attr(n, "id");
        if (id && !svg_doc_by_id(d, id)) {
            size_t i = hash_str(id) & (cap - 1);
            while (d->ids[i]) i = (i + 1) & (cap - 1);
            d->ids[i] = n;
        }
        if (n->nkids) {
            if (sp == scap) {
                scap = scap ? scap * 2 : 64;
                stack = xrealloc(stack, scap * sizeof *stack);
                nstack = xrealloc(nstack, scap * sizeof *nstack);
            }
            nstack[sp] = n;
            stack[sp++] = 0;
            n = n->kids[0];
            continue;
        }
        /* next sibling up the stack */
        for (;;) {
            if (!sp) { free(stack); free(nstack); return; }
            svg_node *p = nstack[sp - 1];
            size_t k = ++stack[sp - 1];
            if (k < p->nkids) { n = p->kids[k]; break; }
            sp--;
        }
    }
}

/* --- CSS ---------------------------------------------------------------- */
void svg_css_free_pairs(char **pairs, size_t n)
{
    if (!pairs) return;
    for (size_t i = 0; i < 2 * n; i++) free(pairs[i]);
    free(pairs);
}

static size_t trim(const char **s, size_t n)
{
    while (n && isspace((unsigned char)**s)) { (*s)++; n--; }
    while (n && isspace((unsigned char)(*s)[n - 1])) n--;
    return n;
}

size_t svg_css_decls(const char *s, size_t len, char ***pairs)
{
    size_t np = 0, cap = 0;
    char **out = NULL;
    size_t i = 0;
    while (i < len) {
        size_t st = i;
        /* a declaration ends at ';' outside parentheses and quotes */
        int par = 0;
        char q = 0;
        while (i < len) {
            char c = s[i];
            if (q) { if (c == q) q = 0; }
            else if (c == '"' || c == '\'') q = c;
            else if (c == '(') par++;
            else if (c == ')' && par) par--;
            else if (c == ';' && !par) break;
            i++;
        }
        const char *d = s + st;
        size_t dl = i - st;
        i++;
        const char *colon = memchr(d, ':', dl);
        if (!colon) continue;
        const char *k = d;
        size_t kl = trim(&k, (size_t)(colon - d));
        const char *v = colon + 1;
        size_t vl = trim(&v, dl - (size_t)(colon - d) - 1);
        if (vl >= 10 && !strncmp(v + vl - 10, "!important", 10)) {
            vl -= 10;
            vl = trim(&v, vl);
        }
        if (!kl) continue;
        if (np == cap) {
            cap = cap ? cap * 2 : 8;
            out = xrealloc(out, 2 * cap * sizeof *out);
        }
        out[2 * np] = xstrndup(k, kl);
        for (char *p = out[2 * np]; *p; p++) *p = (char)tolower((unsigned char)*p);
        out[2 * np + 1] = xstrndup(v, vl);
        np++;
    }
    *pairs = out;
    return np;
}

/* A compound selector: tag? (.class | #id | [attr...] | :pseudo)* */
static int compound_match(const char *s, size_t n, const svg_node *e)
{
    if (e->text) return 0;
    size_t i = 0;
    if (i < n && s[i] == '*') i++;
    else if (i < n && (isalpha((unsigned char)s[i]) || s[i] == '_')) {
        size_t st = i;
        while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '|')) i++;
        const char *tag = s + st;
        size_t tl = i - st;
        const char *bar = memchr(tag, '|', tl);
        if (bar) { tl -= (size_t)(bar + 1 - tag); tag = bar + 1; }
        if (strlen(e->name) != tl || strncmp(e->name, tag, tl) != 0) return 0;
    }
    while (i < n) {
        char c = s[i++];
        size_t st = i;
        if (c == '.' || c == '#') {
            while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_' ||
                             (unsigned char)s[i] >= 0x80))
                i++;
            size_t wl = i - st;
            if (!wl) return 0;
            if (c == '#') {
                const char *id = svg_attr(e, "id");
                if (!id || strlen(id) != wl || strncmp(id, s + st, wl)) return 0;
            } else {
                const char *cl = svg_attr(e, "class");
                int found = 0;
                while (cl && *cl && !found) {
                    while (*cl && isspace((unsigned char)*cl)) cl++;
                    const char *w = cl;
                    while (*cl && !isspace((unsigned char)*cl)) cl++;
                    if ((size_t)(cl - w) == wl && !strncmp(w, s + st, wl)) found = 1;
                }
                if (!found) return 0;
            }
        } else {
            return 0; /* attribute selectors, pseudo-classes: unsupported, no match */
        }
    }
    return 1;
}

/* Matches the selector's compounds right to left: descendant ' ' and child '>'. */
static int complex_match(const char *s, size_t n, const svg_node *e, int depth)
{
    if (depth > 64) return 0;
    n = trim(&s, n);
    if (!n) return 0;
    /* last compound */
    size_t j = n;
    while (j && !isspace((unsigned char)s[j - 1]) && s[j - 1] != '>' && s[j - 1] != '+' && s[j - 1] != '~') j--;
    if (!compound_match(s + j, n - j, e)) return 0;
    size_t k = j;
    while (k && isspace((unsigned char)s[k - 1])) k--;
    if (!k) return 1;
    char comb = ' ';
    if (s[k - 1] == '>' || s[k - 1] == '+' || s[k - 1] == '~') { comb = s[k - 1]; k--; }
    if (comb == '+' || comb == '~') return 0;
    if (comb == '>') return e->parent && complex_match(s, k, e->parent, depth + 1);
    for (const svg_node *a = e->parent; a; a = a->parent)
        if (complex_match(s, k, a, depth + 1)) return 1;
    return 0;
}

int svg_css_match(const svg_css_rule *r, const svg_node *n)
{
    return complex_match(r->selector, strlen(r->selector), n, 0);
}

static int specificity(const char *s)
{
    int ids = 0, cls = 0, tags = 0, prev_sep = 1;
    for (; *s; s++) {
        if (*s == '#') ids++;
        else if (*s == '.' || *s == ':' || *s == '[') cls++;
        else if (prev_sep && (isalpha((unsigned char)*s) || *s == '_')) tags++;
        prev_sep = isspace((unsigned char)*s) || *s == '>' || *s == '+' || *s == '~';
    }
    return ids * 10000 + cls * 100 + tags;
}

static int rule_cmp(const void *a, const void *b)
{
    const svg_css_rule *x = a, *y = b;
    if (x->spec != y->spec) return x->spec < y->spec ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

static void add_rules(svg_doc *d, const char *css, int *order)
{
    size_t n = strlen(css);
    char *buf = xmalloc(n + 1);
    /* drop comments */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (css[i] == '/' && i + 1 < n && css[i + 1] == '*') {
            const char *e = strstr(css + i + 2, "*/");
            if (!e) break;
            i = (size_t)(e - css) + 1;
            buf[m++] = ' ';
            continue;
        }
        buf[m++] = css[i];
    }
    buf[m] = 0;
    size_t i = 0;
    while (i < m) {
        while (i < m && (isspace((unsigned char)buf[i]) || buf[i] == ';' || buf[i] == '}')) i++;
        if (i >= m) break;
        size_t st = i;
        while (i < m && buf[i] != '{' && buf[i] != ';') i++;
        if (i >= m) break;
        if (buf[st] == '@') {
            if (buf[i] == ';') { i++; continue; }
            /* skip the at-rule's block (nested braces) */
            int depth = 0;
            for (; i < m; i++) {
                if (buf[i] == '{') depth++;
                else if (buf[i] == '}' && --depth == 0) { i++; break; }
            }
            continue;
        }
        if (buf[i] == ';') { i++; continue; }
        size_t sel_end = i;
        size_t bst = ++i;
        while (i < m && buf[i] != '}') i++;
        char **pairs;
        size_t np = svg_css_decls(buf + bst, i - bst, &pairs);
        i++;
        /* one rule per comma-separated selector */
        size_t a = st;
        while (a < sel_end) {
            size_t b = a;
            while (b < sel_end && buf[b] != ',') b++;
            const char *sp = buf + a;
            size_t sl = trim(&sp, b - a);
            if (sl && d->nrules < 10000) {
                d->rules = xrealloc(d->rules, (d->nrules + 1) * sizeof *d->rules);
                svg_css_rule *r = &d->rules[d->nrules++];
                r->selector = xstrndup(sp, sl);
                r->spec = specificity(r->selector);
                r->order = (*order)++;
                r->ndecls = np;
                r->decls = xmalloc((2 * np + 1) * sizeof *r->decls);
                for (size_t k = 0; k < 2 * np; k++)
                    r->decls[k] = xstrndup(pairs[k], strlen(pairs[k]));
            }
            a = b + 1;
        }
        svg_css_free_pairs(pairs, np);
    }
    free(buf);
}

static void collect_styles(svg_doc *d, svg_node *n, int *order, int depth)
{
    if (depth > 1000) return;
    if (!n->text && !strcmp(n->name, "style")) {
        size_t tl = 0;
        for (size_t i = 0; i < n->nkids; i++)
            if (n->kids[i]->text) tl += strlen(n->kids[i]->text);
        char *css = xmalloc(tl + 1);
        size_t o = 0;
        for (size_t i = 0; i < n->nkids; i++)
            if (n->kids[i]->text) {
                size_t l = strlen(n->kids[i]->text);
                memcpy(css + o, n->kids[i]->text, l);
                o += l;
            }
        css[o] = 0;
        add_rules(d, css, order);
        free(css);
        return;
    }
    for (size_t i = 0; i < n->nkids; i++) collect_styles(d, n->kids[i], order, depth + 1);
}

/* --- entry -------------------------------------------------------------- */
svg_doc *svg_doc_parse(const char *data, size_t len, const char *fname,
                       const svg_limits *lim, char *err, size_t errsz)
{
    size_t max_size = lim && lim->max_size ? lim->max_size : SVG_DEFAULT_MAX_SIZE;
    int max_depth = lim && lim->max_depth ? lim->max_depth : SVG_DEFAULT_MAX_DEPTH;
    if (len > max_size) {
        snprintf(err, errsz, "%s:1:1: error: input larger than %zu bytes (--max-size)", fname,
                 max_size);
        return NULL;
    }
    svg_doc *d = xcalloc(1, sizeof *d);
    pstate s = { 0 };
    s.doc = d;
    s.max_depth = max_depth;
    s.max_kept = max_size;
    s.err = err;
    s.errsz = errsz;
    s.fname = fname;
    s.p = XML_ParserCreate(NULL);
    if (!s.p) abort();
    XML_SetUserData(s.p, &s);
    XML_SetElementHandler(s.p, on_start, on_end);
    XML_SetCharacterDataHandler(s.p, on_chars);
    XML_SetEntityDeclHandler(s.p, on_entity_decl);
    XML_SetExternalEntityRefHandler(s.p, on_ext_ref);
    XML_SetParamEntityParsing(s.p, XML_PARAM_ENTITY_PARSING_NEVER);
#if XML_MAJOR_VERSION > 2 || (XML_MAJOR_VERSION == 2 && XML_MINOR_VERSION >= 4)
    XML_SetBillionLaughsAttackProtectionMaximumAmplification(s.p, SVG_MAX_AMPLIFICATION);
    XML_SetBillionLaughsAttackProtectionActivationThreshold(s.p, 1u << 20);
#endif
    /* feed in chunks so that expat's positions stay exact and memory bounded */
    size_t off = 0;
    const size_t chunk = 1 << 20;
    int ok = 1;
    do {
        size_t n = len - off < chunk ? len - off : chunk;
        int final = off + n == len;
        if (XML_Parse(s.p, data + off, (int)n, final) == XML_STATUS_ERROR) {
            ok = 0;
            break;
        }
        off += n;
    } while (off < len);
    if (!ok && !s.failed) {
        snprintf(err, errsz, "%s:%lu:%lu: error: %s", fname,
                 (unsigned long)XML_GetCurrentLineNumber(s.p),
                 (unsigned long)XML_GetCurrentColumnNumber(s.p) + 1,
                 XML_ErrorString(XML_GetErrorCode(s.p)));
    }
    if (ok && !s.failed && !d->root) {
        snprintf(err, errsz, "%s:1:1: error: no document element", fname);
        ok = 0;
    }
    if (ok && !s.failed && strcmp(d->root->name, "svg") != 0) {
        snprintf(err, errsz, "%s:%d:%d: error: document element is <%s>, not <svg>", fname,
                 d->root->line, d->root->col, d->root->name);
        ok = 0;
    }
    XML_ParserFree(s.p);
    if (!ok || s.failed) {
        svg_doc_free(d);
        return NULL;
    }
    index_ids(d);
    int order = 0;
    collect_styles(d, d->root, &order, 0);
    if (d->nrules) qsort(d->rules, d->nrules, sizeof *d->rules, rule_cmp);
    return d;
}
