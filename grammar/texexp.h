/* texexp.h — TeX tokens, token lists and the small macro expander in front
 * of the TikZ grammar.
 *
 * The expander knows user macros (\def, \newcommand, \let, and definitions
 * made by the interpreter such as \foreach variables and \pgfmathsetmacro
 * results) and TeX's conditionals (see tex_newif below). It expands them on
 * demand while the interpreter pulls tokens; every other control sequence
 * is returned untouched for the interpreter to act on. Groups ({...}, scopes) save and restore local definitions as TeX
 * does. Expansion is bounded: too deep a nesting or too many expansions is an
 * error, never a hang. */
#ifndef DIAGRAMIR_TEXEXP_H
#define DIAGRAMIR_TEXEXP_H

#include <stddef.h>

enum {
    T_CS = 1, T_BEGIN, T_END, T_MATH, T_PARAM, T_SPACE, T_LETTER, T_OTHER,
    T_ARG, /* in a macro body or parameter text: #n, n in .ch */
    T_NTYPES /* (not a type: one more than the last; texexp.c checks its
              * PLAIN_TYPES mask against the list at compile time) */
};

typedef struct {
    unsigned char type;
    int ch;      /* character (T_CS: unused) */
    int name;    /* T_CS: interned name id (without backslash) */
    int line, col;
} tex_tok;

typedef struct {
    tex_tok *v;
    size_t n, cap;
} toklist;

/* Grows l's capacity for at least one more token (tl_push's slow path). */
void tl_grow(toklist *l);
static inline void tl_push(toklist *l, tex_tok t)
{
    if (l->n == l->cap) tl_grow(l);
    l->v[l->n++] = t;
}
void tl_append(toklist *l, const toklist *o);
void tl_free(toklist *l);
void tl_clear(toklist *l);

/* The flex scanner's (grammar/tex.l) extra data and actions. */
struct texlex_extra {
    struct tex_ctx *ctx;
    toklist *out;
    int line;
    size_t off, lstart;   /* offset of the match, of the line's start */
};
void texlex_one(struct texlex_extra *x, int type, int ch, size_t len);
/* a run of letters (type T_LETTER) or of other characters (T_OTHER): one
 * token per byte */
void texlex_run(struct texlex_extra *x, int type, const char *text, size_t len);
void texlex_space(struct texlex_extra *x, const char *text, size_t len);
void texlex_skip(struct texlex_extra *x, const char *text, size_t len);
void texlex_cs(struct texlex_extra *x, const char *text, size_t len);

typedef struct tex_ctx tex_ctx;

/* What the expander asks of the interpreter (tex_set_hooks; every member
 * may be NULL). known: 1 when the control sequence name (not a macro) is a
 * command the interpreter knows, so defined in TeX (\ifx and \ifdefined
 * take any other one for undefined). unparsed: a conditional the expander
 * cannot evaluate (a condition on something it does not know, such as
 * \ifnum\value{page}>1 or \ifmmode) has been skipped whole, up to its
 * \fi: src is its text, why the reason, line and col where it began.
 * group_end: a group has ended (tex_group_end, after the expander undid its
 * macro definitions); depth is the number of groups still open, so the
 * interpreter undoes what it keeps per group (styles: tikzopt.c) above it. */
typedef struct {
    void *ctx;
    int (*known)(void *ctx, int name);
    void (*unparsed)(void *ctx, int line, int col, const char *src, const char *why);
    void (*group_end)(void *ctx, int depth);
} tex_hooks;

tex_ctx *tex_new(void);
void tex_set_hooks(tex_ctx *c, const tex_hooks *h);
void tex_free(tex_ctx *c);
int tex_intern(tex_ctx *c, const char *name, size_t len);
const char *tex_name(const tex_ctx *c, int id);
/* The TeX text of tokens [from,to) (control sequences as \name, with a
 * space after a letter-named one when a letter follows), malloc'd. When
 * lines is non-NULL it receives a malloc'd array: the source line of each
 * byte of the text. */
char *tex_to_text(const tex_ctx *c, const toklist *l, size_t from, size_t to, int **lines);
/* The same with a prefix text (its bytes get line prefix_line, as do tokens
 * without a line). */
char *tex_to_text_ex(const tex_ctx *c, const toklist *l, size_t from, size_t to,
                     const char *prefix, int prefix_line, int **lines);
/* Tokenizes text (line numbers start at first_line). */
void tex_tokenize(tex_ctx *c, const char *text, size_t len, int first_line, toklist *out);

/* Macros. params: parameter text (T_ARG tokens and delimiter tokens);
 * nparams; opt_default: when non-NULL, #1 is an optional [..] argument. */
void tex_define(tex_ctx *c, int name, const toklist *params, int nparams,
                const toklist *body, const toklist *opt_default, int global);
/* Defines name as a parameterless macro whose body is the tokenized text. */
void tex_define_text(tex_ctx *c, const char *name, const char *text, int global);
int tex_is_defined(const tex_ctx *c, int name);
/* \let name = other (other a macro: copies it; else name expands to other's token). */
void tex_let(tex_ctx *c, int name, tex_tok other, int global);
/* The body of a parameterless macro as text, or NULL. */
const char *tex_macro_text(tex_ctx *c, int name);

void tex_group_begin(tex_ctx *c);
void tex_group_end(tex_ctx *c);
int tex_group_depth(const tex_ctx *c);

/* Input stack. tex_push_list copies the tokens. */
void tex_push_list(tex_ctx *c, const toklist *l);
void tex_push_tok(tex_ctx *c, tex_tok t);
/* tex_push_list of l's tokens followed by t (one level). */
void tex_push_list_tok(tex_ctx *c, const toklist *l, tex_tok t);
/* tex_tokenize(text) and tex_push_list of the tokens, without a list
 * between. */
void tex_push_text(tex_ctx *c, const char *text, size_t len, int first_line);
/* Next raw token; 0 at end of input. */
int tex_next(tex_ctx *c, tex_tok *t);
/* Next token with user macros expanded; 0 at end of input, -1 on error. */
int tex_next_x(tex_ctx *c, tex_tok *t);
/* Reads one argument: skips spaces, then one token or a balanced group
 * (braces stripped). expand: expand macros while reading. 0 at EOF/-1 err. */
int tex_read_arg(tex_ctx *c, toklist *out, int expand);
/* Reads an optional [..] argument (balanced, expanding when asked);
 * returns 1 when present, 0 when absent, -1 on error. */
int tex_read_opt(tex_ctx *c, toklist *out, int expand);
/* Skips spaces (expanding). */
void tex_skip_spaces(tex_ctx *c, int expand);

/* Reads a TikZ statement: expanded tokens up to ';' at brace depth 0 (read,
 * not part of the statement; returns 1). A '}' at depth 0, \begin or \end at
 * depth 0 (not user macros) or a sentinel token
 * (T_OTHER, ch -2) ends it too and is pushed back (returns 0), as does the
 * end of input (returns 0; -1 with an error inside an open brace). -1 on
 * error. *text, *lines: the statement's text as tex_to_text_ex(prefix,
 * prefix_line, lines) gives it for the tokens read; the buffers belong to c
 * and hold until the next tex_read_statement (do not free them). */
int tex_read_statement(tex_ctx *c, const char *prefix, int prefix_line, char **text, int **lines);

/* tex_read_opt(c, list, 1) and the tex_to_text of the list (what was read
 * of it, on an error too) in one pass; *present: tex_read_opt returned 1.
 * The text belongs to c and holds until the next tex_read_opt_text. */
const char *tex_read_opt_text(tex_ctx *c, int *present);

/* tex_read_arg(c, list, expand) and the tex_to_text of the list; NULL when
 * tex_read_arg returns 0 or -1. The text belongs to c and holds until the
 * next tex_read_arg_text. */
const char *tex_read_arg_text(tex_ctx *c, int expand);

/* Conditionals are expanded as TeX expands them (the TeXbook, ch. 20):
 * \if, \ifcat, \ifx, \ifnum, \ifdim, \ifodd, \ifcase (with \or),
 * \iftrue, \iffalse, \ifdefined, e-TeX's \unless, \else and \fi, also
 * under other names (\let, tex_newif); a skipped branch is read without
 * expansion, counting only conditionals. Conditionals TeX has but the
 * expander cannot evaluate (\ifmmode, \ifvoid, ...) and conditions on
 * quantities it does not know go to the unparsed hook.
 * tex_newif: \newif\iffoo (name: the token after \newif, cmd: \newif for
 * messages): \iffoo (false), \footrue and \foofalse, local definitions;
 * 0 with the error set when the name does not begin with "if" or is a TeX
 * conditional. tex_cond_depth: conditionals open (their \fi not read yet);
 * tex_cond_open: the i-th of them from the innermost (0) — its name id,
 * and where it began; -1 when there is no such one. */
int tex_newif(tex_ctx *c, const tex_tok *cmd, const tex_tok *name);
/* The em and ex of \ifdim's units, in pt (default: TeX's cmr10, 10.00002pt
 * and 4.30554pt). */
void tex_set_font(tex_ctx *c, double em_pt, double ex_pt);
size_t tex_cond_depth(const tex_ctx *c);
int tex_cond_open(const tex_ctx *c, size_t i, int *line, int *col);

/* Errors: the first error is kept (with line/col); the interpreter checks. */
void tex_error(tex_ctx *c, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
const char *tex_error_msg(const tex_ctx *c);
int tex_error_line(const tex_ctx *c);
int tex_error_col(const tex_ctx *c);
int tex_failed(const tex_ctx *c);
/* Line/col of the most recently read token. */
int tex_cur_line(const tex_ctx *c);
/* Clears the error state, the input stack and the expansion counter (a new
 * document in the same context); groups are closed down to depth. */
void tex_reset(tex_ctx *c, int depth);
/* Restarts the work bounds (expansions, tokens produced) — after pushing a
 * document's own tokens, which do not count. */
void tex_reset_budget(tex_ctx *c);

#endif
