/* paths.c — which files a manifest may name.
 *
 * A manifest's cells name files (TikZ code, images) that judge reads and
 * sends to a remote model. A manifest from someone else must not send the
 * reader's own files (/etc/passwd, ~/.ssh/id_rsa): a cell names a file
 * under the manifest's own directory, or under a directory the user allowed
 * on the command line (judge --allow-files DIR). Both sides are compared as
 * real paths, so neither ".." nor a symbolic link leads out.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/llm.h"

/* Whether real path p lies in real directory d (or is d). */
static int under(const char *p, const char *d)
{
    size_t n = strlen(d);
    if (n == 1 && d[0] == '/') return 1;
    return strncmp(p, d, n) == 0 && (p[n] == '/' || p[n] == 0);
}

static int under_dir(const char *real, const char *dir)
{
    char rd[PATH_MAX];
    return realpath(dir, rd) && under(real, rd);
}

int llm_path_allowed(const llm_item *it, const char *path, char *err, size_t errlen)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    const char *dir = it->dir && *it->dir ? it->dir : ".";
    if (under_dir(real, dir)) return 0;
    for (size_t i = 0; i < it->nroots; i++)
        if (under_dir(real, it->roots[i])) return 0;
    snprintf(err, errlen,
             "%s is outside the manifest's directory %s: a manifest names files under its own "
             "directory (--allow-files DIR allows more)",
             path, dir);
    return -1;
}
