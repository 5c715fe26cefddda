/* diag.c — the interpreter's diagnostics: warnings (file:line:col, one
 * line each, at most MAX_WARNINGS shown) and unparsed records (a construct
 * the front end cannot evaluate, kept in the IR with a warning). */
#include "grammar/interp.h"
#include "ir/cli.h"
#include "ir/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_WARNINGS 50             /* printed per document; the rest are counted */
#define MAX_UNPARSED 1000           /* unparsed constructs per document */

void tk_warn(tikz *T, int line, const char *fmt, ...)
{
    if (!T->cfg) return;
    T->cfg->nwarnings++;
    if (T->cfg->quiet || !T->cfg->diag) return;
    int col = line == T->cmd_line && T->cmd_col > 0 ? T->cmd_col : 1;
    if (T->cfg->nwarnings > MAX_WARNINGS) {
        if (T->cfg->nwarnings == MAX_WARNINGS + 1)
            fprintf(T->cfg->diag, "%s:%d:%d: warning: more than %d warnings; the rest are not shown\n",
                    T->cfg->fname, line, col, MAX_WARNINGS);
        return;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_one_line(msg);
    fprintf(T->cfg->diag, "%s:%d:%d: warning: %s\n", T->cfg->fname, line, col, msg);
}

void tk_unparsed(tikz *T, int line, const char *src, const char *why)
{
    if (T->d) {
        ir_elem *e = ir_add(T->d, IR_UNPARSED);
        e->str = xstrdup(src);
        e->line = line;
        if (T->cfg && ++T->cfg->nunparsed > MAX_UNPARSED)
            tex_error(T->tex, line, 1, "more than %d constructs could not be evaluated; giving up", MAX_UNPARSED);
    }
    /* one line per diagnostic: control characters become spaces */
    char snip[84];
    size_t k = 0;
    for (const char *p = src; *p && k < 80; p++)
        snip[k++] = (unsigned char)*p < 32 || *p == 127 ? ' ' : *p;
    snip[k] = 0;
    tk_warn(T, line, "%s: %s%s (kept as unparsed)", why, snip, strlen(src) > 80 ? "..." : "");
}
