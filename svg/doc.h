/* svg/doc.h — the SVG reader's front end: XML (libexpat, hardened) into a
 * small element tree, and the CSS of <style> elements.
 *
 * This header is the whole contract of svg/doc.c. Used by svg2graph
 * (through svg/render.h) and the fuzz harness tests/fuzz/fuzz_svg.c.
 *
 * Hardening (documented in man/svg2graph.1, LIMITS):
 *   - external entities and parameter entities are refused (an error: the
 *     reader never opens a file or a URL); the external DTD subset of a
 *     DOCTYPE is not read;
 *   - internal entities are expanded by expat under its billion-laughs
 *     protection (amplification at most SVG_MAX_AMPLIFICATION after the
 *     first MiB), and the text the tree keeps is bounded by max_size too;
 *   - element nesting deeper than max_depth is an error;
 *   - input larger than max_size bytes is an error (this bounds every
 *     attribute and text too).
 * Errors are "FILE:LINE:COL: error: MESSAGE" (COL 1-based, in bytes).
 */
#ifndef DIAGRAMIR_SVG_DOC_H
#define DIAGRAMIR_SVG_DOC_H

#include <stddef.h>

#define SVG_MAX_AMPLIFICATION 20.0f
#define SVG_DEFAULT_MAX_DEPTH 256
#define SVG_DEFAULT_MAX_SIZE ((size_t)64 << 20)

typedef struct svg_node {
    char *name;               /* local element name (prefix dropped); "#text" for text */
    char **attrs;             /* key, value, key, value ... (names as written) */
    size_t nattrs;            /* number of pairs */
    char *text;               /* "#text" nodes: the character data */
    struct svg_node *parent;
    struct svg_node **kids;
    size_t nkids, capkids;
    int line, col;            /* where the element starts */
    unsigned seq;             /* document order */
} svg_node;

/* One CSS declaration block applying to a selector. */
typedef struct {
    char *selector;           /* one complex selector: "g.node > rect", "#a", ... */
    int spec;                 /* specificity, ids*10000 + classes*100 + types */
    int order;                /* source order */
    char **decls;             /* property, value pairs */
    size_t ndecls;
} svg_css_rule;

typedef struct {
    svg_node *root;           /* the document element */
    svg_css_rule *rules;      /* sorted by (spec, order) */
    size_t nrules;
    /* id -> element, open addressing */
    svg_node **ids;
    size_t idcap;
    size_t nnodes;
} svg_doc;

typedef struct {
    size_t max_size;          /* bytes of input (0: SVG_DEFAULT_MAX_SIZE) */
    int max_depth;            /* element nesting (0: SVG_DEFAULT_MAX_DEPTH) */
} svg_limits;

/* Parses an SVG document from memory. Returns the document, or NULL with a
 * message "fname:line:col: error: ..." in err (err of errsz bytes). */
svg_doc *svg_doc_parse(const char *data, size_t len, const char *fname,
                       const svg_limits *lim, char *err, size_t errsz);
void svg_doc_free(svg_doc *d);

/* Attribute value of n, or NULL. A name "href" also finds "xlink:href". */
const char *svg_attr(const svg_node *n, const char *name);
/* Element with that id, or NULL. */
svg_node *svg_doc_by_id(const svg_doc *d, const char *id);

/* Parses "prop: value; prop: value" (a style attribute or a CSS block) into
 * *pairs (malloc'd property/value strings, property names lower-cased,
 * "!important" dropped). Returns the number of pairs. */
size_t svg_css_decls(const char *s, size_t len, char ***pairs);
void svg_css_free_pairs(char **pairs, size_t n);
/* 1 when the rule's selector matches element n. */
int svg_css_match(const svg_css_rule *r, const svg_node *n);

#endif
