/* llm/image.c — inputs turned into the images a model sees (see image.h).
 *
 * The converters run in child processes: an SVG is rasterized by
 * draw_svgdoc_png (draw/png.c) in a forked child with RLIMIT_CPU and
 * RLIMIT_AS, so a hostile document (entity expansion, a huge canvas, a
 * filter that takes minutes) ends in a message, not in a hung or killed
 * judge; TikZ goes through contrib/tex/render.sh (sh, pdflatex, pdftoppm)
 * with TEX_TIMEOUT and the same memory limit. The child writes the PNG to
 * a temporary file beside its place in the cache, which is renamed into
 * place once the picture is checked.
 */
#include "llm/image.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "draw/draw.h"
#include "ir/xalloc.h"
#include "llm/opts.h"

#if defined(__SANITIZE_ADDRESS__)
#define IMAGE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IMAGE_ASAN 1
#endif
#endif

/* Bumped when a converter's output changes for the same input. */
#define IMAGE_CACHE_VERSION "diagramir-image 1\n"

enum { K_RASTER = LLM_IMAGE_RASTER, K_SVG = LLM_IMAGE_SVG, K_TEX = LLM_IMAGE_TEX,
       K_UNKNOWN = LLM_IMAGE_UNKNOWN };

typedef struct memo {
    char key[65];
    unsigned char *data;   /* NULL: failed */
    size_t n;
    int code;
    char *err;
    struct memo *next;
} memo;

struct llm_images {
    llm_image_opts o;
    char *cache;           /* NULL: no disk cache */
    char texdir[4096];     /* render.sh's directory; "" until looked up */
    char texkey[65];       /* SHA-256 of IM.cls and render.sh */
    memo *memos;
    llm_image_stats st;
};

void llm_image_opts_init(llm_image_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_bytes = 16u << 20;
    o->max_side = 4096;
    o->max_pixels = 16e6;
    o->dpi = 150;
    o->tex_timeout = 60;
    o->svg_cpu = 30;
    o->mem_mb = 2048;
}

void llm_image_cache_dir(const char *llm_cache_dir, char *out, size_t n)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (llm_cache_dir && *llm_cache_dir) snprintf(out, n, "%s/images", llm_cache_dir);
    else if (xdg && *xdg) snprintf(out, n, "%s/diagramir/images", xdg);
    else if (home && *home) snprintf(out, n, "%s/.cache/diagramir/images", home);
    else snprintf(out, n, ".diagramir-cache/images");
}


llm_images *llm_images_new(const llm_image_opts *o, char *err, size_t errlen)
{
    llm_images *im = calloc(1, sizeof *im);
    if (!im) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (o) im->o = *o;
    else llm_image_opts_init(&im->o);
    if (!im->o.no_cache) {
        char dir[4096];
        llm_image_cache_dir(NULL, dir, sizeof dir);
        im->cache = strdup(im->o.cache_dir ? im->o.cache_dir : dir);
        if (!im->cache) {
            free(im);
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        if (llm_mkdirs(im->cache) != 0) {
            snprintf(err, errlen, "image cache directory %s: %s", im->cache, strerror(errno));
            free(im->cache);
            free(im);
            return NULL;
        }
    }
    im->o.cache_dir = NULL;
    return im;
}

void llm_images_free(llm_images *im)
{
    if (!im) return;
    for (memo *m = im->memos, *next; m; m = next) {
        next = m->next;
        free(m->data);
        free(m->err);
        free(m);
    }
    free(im->cache);
    free(im);
}

const llm_image_stats *llm_images_stats(const llm_images *im) { return &im->st; }

int llm_images_take_error(llm_images *im)
{
    int c = im->st.last_error;
    im->st.last_error = 0;
    return c;
}

/* ------------------------------------------------------------ helpers */

static int fail(llm_images *im, int code, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(llm_images *im, int code, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    im->st.last_error = code;
    return code;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Reads the whole file, at most max bytes; NULL with the reason. */
static unsigned char *read_all(const char *path, size_t max, size_t *n, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (unsigned long long)sb.st_size > max) {
        snprintf(err, errlen, "%lld bytes, over the limit of %zu bytes (--image-max-bytes)",
                 (long long)sb.st_size, max);
        close(fd);
        return NULL;
    }
    size_t cap = 65536, len = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        if (len == cap) {
            if (cap > max) break;
            unsigned char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
        ssize_t k = read(fd, buf + len, cap - len);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            snprintf(err, errlen, "read error: %s", strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (k == 0) break;
        len += (size_t)k;
    }
    close(fd);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (len > max) {
        snprintf(err, errlen, "over the limit of %zu bytes (--image-max-bytes)", max);
        free(buf);
        return NULL;
    }
    *n = len;
    return buf;
}

static int has(const unsigned char *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++)
        if (p[i] == (unsigned char)s[0] && memcmp(p + i, s, k) == 0) return 1;
    return 0;
}

/* Whether s starts a line of p[0..n) (after blanks): a command, not a
 * mention of it in a comment or text. */
static int has_at_line(const unsigned char *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++) {
        if (p[i] != (unsigned char)s[0] || memcmp(p + i, s, k) != 0) continue;
        size_t j = i;
        while (j > 0 && (p[j - 1] == ' ' || p[j - 1] == '\t')) j--;
        if (j == 0 || p[j - 1] == '\n' || p[j - 1] == '\r') return 1;
    }
    return 0;
}

static int kind_of(const unsigned char *p, size_t n)
{
    if ((n >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0) ||
        (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff) ||
        (n >= 6 && (memcmp(p, "GIF87a", 6) == 0 || memcmp(p, "GIF89a", 6) == 0)) ||
        (n >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0))
        return K_RASTER;
    size_t i = 0;
    if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) i = 3;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) i++;
    if (i < n && p[i] == '<' && has(p + i, n - i, "<svg")) return K_SVG;
    if (has_at_line(p, n, "\\documentclass") || has(p, n, "\\begin{tikzpicture}") ||
        has(p, n, "\\tikz"))
        return K_TEX;
    return K_UNKNOWN;
}

static unsigned long be32(const unsigned char *p)
{
    return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

/* The pixel size of a PNG, JPEG or GIF; 0 when it cannot be read (WebP,
 * or a file too short). */
static int raster_size(const unsigned char *p, size_t n, double *w, double *h)
{
    if (n >= 24 && memcmp(p, "\x89PNG", 4) == 0 && memcmp(p + 12, "IHDR", 4) == 0) {
        *w = (double)be32(p + 16);
        *h = (double)be32(p + 20);
        return 1;
    }
    if (n >= 10 && memcmp(p, "GIF", 3) == 0) {
        *w = (double)(p[6] | p[7] << 8);
        *h = (double)(p[8] | p[9] << 8);
        return 1;
    }
    if (n >= 4 && p[0] == 0xff && p[1] == 0xd8) {
        size_t i = 2;
        while (i + 9 < n) {
            if (p[i] != 0xff) return 0;
            unsigned m = p[i + 1];
            if (m == 0xff) { i++; continue; }
            if (m == 0xd8 || m == 0x01 || (m >= 0xd0 && m <= 0xd7)) { i += 2; continue; }
            size_t len = (size_t)p[i + 2] << 8 | p[i + 3];
            if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc) {
                *h = (double)(p[i + 5] << 8 | p[i + 6]);
                *w = (double)(p[i + 7] << 8 | p[i + 8]);
                return 1;
            }
            if (len < 2) return 0;
            i += 2 + len;
        }
    }
    return 0;
}

int llm_image_probe(const void *data, size_t n, double *w, double *h)
{
    *w = *h = 0;
    int k = kind_of(data, n);
    if (k == K_RASTER && !raster_size(data, n, w, h)) *w = *h = 0;
    return k;
}

/* The image's pixels within the limits; LLM_IMAGE_OK or the error. */
static int check_pixels(llm_images *im, const unsigned char *p, size_t n, const char *what,
                        char *err, size_t errlen)
{
    double w, h;
    if (!raster_size(p, n, &w, &h)) return LLM_IMAGE_OK;
    if (w > im->o.max_side || h > im->o.max_side || w * h > im->o.max_pixels)
        return fail(im, LLM_IMAGE_EINPUT, err, errlen,
                    "%s is %.0f x %.0f pixels, over the limit of %.0f a side and %.0f in all "
                    "(--image-max-side, --image-max-pixels)",
                    what, w, h, im->o.max_side, im->o.max_pixels);
    return LLM_IMAGE_OK;
}

static memo *memo_find(llm_images *im, const char *key)
{
    for (memo *m = im->memos; m; m = m->next)
        if (strcmp(m->key, key) == 0) return m;
    return NULL;
}

static void memo_add(llm_images *im, const char *key, const unsigned char *data, size_t n, int code,
                     const char *err)
{
    memo *m = calloc(1, sizeof *m);
    if (!m) return;
    snprintf(m->key, sizeof m->key, "%s", key);
    if (data) {
        m->data = malloc(n ? n : 1);
        if (!m->data) { free(m); return; }
        memcpy(m->data, data, n);
        m->n = n;
    }
    m->code = code;
    m->err = err ? strdup(err) : NULL;
    m->next = im->memos;
    im->memos = m;
}

/* ------------------------------------------------------ the converters */

/* Waits for the child, reading what it writes on fd (at most msgn - 1
 * bytes kept) until it exits. Returns the wait status. */
static int wait_child(pid_t pid, int fd, char *msg, size_t msgn)
{
    size_t k = 0;
    char buf[1024];
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) != 0) {
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (ssize_t i = 0; i < r && k + 1 < msgn; i++) msg[k++] = buf[i];
    }
    msg[k] = 0;
    close(fd);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return st;
}

static void limit(int res, double v)
{
    struct rlimit rl;
    rl.rlim_cur = rl.rlim_max = (rlim_t)v;
    setrlimit(res, &rl);
}

/* svg[0..n) rasterized into the file out by a child process. */
static int convert_svg(llm_images *im, const unsigned char *svg, size_t n, const char *out,
                       char *err, size_t errlen)
{
    int pfd[2];
    if (pipe(pfd) != 0) return fail(im, LLM_IMAGE_EINPUT, err, errlen, "pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return fail(im, LLM_IMAGE_EINPUT, err, errlen, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        close(pfd[0]);
        /* one second of grace above the soft CPU limit (SIGXCPU), then SIGKILL */
        struct rlimit rl;
        rl.rlim_cur = (rlim_t)ceil(im->o.svg_cpu);
        rl.rlim_max = rl.rlim_cur + 1;
        setrlimit(RLIMIT_CPU, &rl);
#ifndef IMAGE_ASAN
        limit(RLIMIT_AS, im->o.mem_mb * 1048576.0);
#endif
        draw_svgdoc_opts o = {im->o.dpi, im->o.max_side, im->o.max_pixels};
        char e[512] = "";
        int w, h, rc = -1;
        FILE *f = fopen(out, "wb");
        if (!f) snprintf(e, sizeof e, "%.300s: %s", out, strerror(errno));
        else {
            rc = draw_svgdoc_png(f, svg, n, &o, &w, &h, e, sizeof e);
            if (fclose(f) != 0 && rc == 0) {
                rc = -1;
                snprintf(e, sizeof e, "%.300s: write error", out);
            }
        }
        if (rc != 0 && write(pfd[1], e, strlen(e)) < 0) rc = -2;
        _exit(rc == 0 ? 0 : 3);
    }
    close(pfd[1]);
    char msg[600];
    int st = wait_child(pid, pfd[0], msg, sizeof msg);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return LLM_IMAGE_OK;
    if (WIFSIGNALED(st) && (WTERMSIG(st) == SIGXCPU || WTERMSIG(st) == SIGKILL))
        return fail(im, LLM_IMAGE_EINPUT, err, errlen,
                    "rasterizing the SVG took over %g s of CPU time, the limit (--image-cpu)",
                    im->o.svg_cpu);
    if (WIFSIGNALED(st))
        return fail(im, LLM_IMAGE_EINPUT, err, errlen,
                    "rasterizing the SVG failed (signal %d; the memory limit is %g MiB, "
                    "--image-mem)",
                    WTERMSIG(st), im->o.mem_mb);
    return fail(im, LLM_IMAGE_EINPUT, err, errlen, "%s%s", *msg ? msg : "rasterizing the SVG failed",
                strstr(msg, "over the limit") ? " (--image-max-side, --image-max-pixels)" : "");
}

/* Whether prog is an executable file in $PATH. */
static int in_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/bin:/bin";
    char buf[4096];
    while (*path) {
        const char *c = strchr(path, ':');
        size_t k = c ? (size_t)(c - path) : strlen(path);
        snprintf(buf, sizeof buf, "%.*s/%s", (int)(k ? k : 1), k ? path : ".", prog);
        if (access(buf, X_OK) == 0) return 1;
        path += k + (c != NULL);
    }
    return 0;
}

/* The programs render.sh runs are installed; LLM_IMAGE_OK or the error. */
static int have_tex(llm_images *im, char *err, size_t errlen)
{
    static const char *const tools[] = {"pdflatex", "pdftoppm", "timeout", NULL};
    for (int i = 0; tools[i]; i++)
        if (!in_path(tools[i]))
            return fail(im, LLM_IMAGE_EINPUT, err, errlen,
                        "a TikZ input needs TeX, and %s is not installed (Debian: "
                        "texlive-pictures texlive-latex-extra poppler-utils); or give a PNG or SVG",
                        tools[i]);
    return LLM_IMAGE_OK;
}

/* Finds render.sh and the hash of the class and script once (the cache
 * key of a TikZ picture: a cached one needs no TeX). */
static int find_tex(llm_images *im, char *err, size_t errlen)
{
    if (im->texdir[0]) return 0;
    char dir[4096];
    if (llm_find_tex_dir(dir, sizeof dir) != 0)
        return fail(im, LLM_IMAGE_EINPUT, err, errlen,
                    "a TikZ input needs contrib/tex/render.sh and IM.cls, not found "
                    "($DIAGRAMIR_TEX names their directory)");
    llm_sha256_ctx s;
    llm_sha256_init(&s);
    static const char *const files[] = {"IM.cls", "render.sh", NULL};
    for (int i = 0; files[i]; i++) {
        char p[4200], e[300];
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        size_t n;
        unsigned char *d = read_all(p, 1u << 20, &n, e, sizeof e);
        if (!d) return fail(im, LLM_IMAGE_EINPUT, err, errlen, "%s: %s", p, e);
        llm_sha256_update(&s, d, n);
        free(d);
    }
    unsigned char h[32];
    llm_sha256_final(&s, h);
    for (int i = 0; i < 32; i++) snprintf(im->texkey + 2 * i, 3, "%02x", h[i]);
    snprintf(im->texdir, sizeof im->texdir, "%s", dir);
    return 0;
}

/* The lines put before a bare tikzpicture. */
#define WRAP_HEAD "\\documentclass{IM}\n\\usepackage{tikz}\n\\begin{document}\n"
#define WRAP_LINES 3

/* The TikZ / LaTeX source src[0..n) typeset into the file out. */
static int convert_tex(llm_images *im, const unsigned char *src, size_t n, const char *name,
                       const char *out, char *err, size_t errlen)
{
    char tmpl[4200];
    const char *td = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/diagramir-tikz.XXXXXX", td && *td ? td : "/tmp");
    if (!mkdtemp(tmpl))
        return fail(im, LLM_IMAGE_EINPUT, err, errlen, "%s: %s", tmpl, strerror(errno));
    char tex[4300], png[4300];
    snprintf(tex, sizeof tex, "%s/picture.tex", tmpl);
    snprintf(png, sizeof png, "%s/picture.png", tmpl);
    FILE *f = fopen(tex, "wb");
    int wrap = !has_at_line(src, n, "\\documentclass"), ok = f != NULL;
    if (f) {
        if (wrap) fputs(WRAP_HEAD, f);
        ok = fwrite(src, 1, n, f) == n;
        if (wrap) fputs("\n\\end{document}\n", f);
        ok = fclose(f) == 0 && ok;
    }
    int rc = LLM_IMAGE_OK;
    if (!ok) {
        rc = fail(im, LLM_IMAGE_EINPUT, err, errlen, "%s: cannot write", tex);
        goto done;
    }
    int pfd[2];
    if (pipe(pfd) != 0) {
        rc = fail(im, LLM_IMAGE_EINPUT, err, errlen, "pipe: %s", strerror(errno));
        goto done;
    }
    char script[4200], tmo[64], dpi[64];
    snprintf(script, sizeof script, "%s/render.sh", im->texdir);
    snprintf(tmo, sizeof tmo, "TEX_TIMEOUT=%g", im->o.tex_timeout);
    snprintf(dpi, sizeof dpi, "RENDER_DPI=%g", im->o.dpi);
    /* the child's environment, made before fork: after the memory limit the
     * child may not allocate (an ASan build's allocator aborts when it needs
     * a new mapping over RLIMIT_AS) */
    extern char **environ;
    size_t ne = 0;
    while (environ[ne]) ne++;
    char **envp = xmalloc((ne + 3) * sizeof *envp), **ep = envp;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], "TEX_TIMEOUT=", 12) != 0 && strncmp(environ[i], "RENDER_DPI=", 11) != 0)
            *ep++ = environ[i];
    *ep++ = tmo;
    *ep++ = dpi;
    *ep = NULL;
    char *argv[] = {"sh", script, tex, png, NULL};
    fflush(stdout);
    fflush(stderr);
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) {
        free(envp);
        close(pfd[0]);
        close(pfd[1]);
        rc = fail(im, LLM_IMAGE_EINPUT, err, errlen, "fork: %s", strerror(errno));
        goto done;
    }
    if (pid == 0) {
        close(pfd[0]);
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
        }
        dup2(pfd[1], 2);
        limit(RLIMIT_AS, im->o.mem_mb * 1048576.0);
        /* each process (pdftoppm too) at most twice TeX's time of CPU */
        limit(RLIMIT_CPU, ceil(2 * im->o.tex_timeout) + 10);
        execve("/bin/sh", argv, envp);
        _exit(127);
    }
    free(envp);
    close(pfd[1]);
    char msg[1024];
    int st = wait_child(pid, pfd[0], msg, sizeof msg);
    double took = now() - t0;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        f = fopen(png, "rb");
        FILE *o = fopen(out, "wb");
        char buf[65536];
        size_t k;
        ok = f && o;
        while (ok && (k = fread(buf, 1, sizeof buf, f)) > 0) ok = fwrite(buf, 1, k, o) == k;
        if (f) fclose(f);
        if (o && fclose(o) != 0) ok = 0;
        if (!ok) rc = fail(im, LLM_IMAGE_EINPUT, err, errlen, "%s: cannot copy TeX's picture", out);
        goto done;
    }
    if (took >= im->o.tex_timeout) {
        rc = fail(im, LLM_IMAGE_EINPUT, err, errlen,
                  "TeX took over %g s, the limit (--tex-timeout)", im->o.tex_timeout);
        goto done;
    }
    /* render.sh's first line, the temporary file's name replaced by the input's */
    char *nl = strchr(msg, '\n');
    if (nl) *nl = 0;
    const char *m = msg;
    size_t tl = strlen(tex);
    if (strncmp(m, tex, tl) == 0) m += tl;
    else if (*m == 0) m = ": TeX failed";
    /* ":LINE: message": the line of the input, not of the wrapped file */
    char lm[1100];
    long line;
    int used = 0;
    if (wrap && sscanf(m, ":%ld:%n", &line, &used) == 1 && used > 0 && line > WRAP_LINES) {
        snprintf(lm, sizeof lm, ":%ld:%s", line - WRAP_LINES, m + used);
        m = lm;
    }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 1)
        rc = fail(im, LLM_IMAGE_ETEX, err, errlen, "TeX: %s%s%s", name, *m == ':' ? "" : ": ", m);
    else
        rc = fail(im, LLM_IMAGE_EINPUT, err, errlen, "render.sh failed: %s", *msg ? msg : "no message");
done:
    unlink(tex);
    unlink(png);
    /* TeX's leftovers, should render.sh have been killed */
    rmdir(tmpl);
    return rc;
}

/* ---------------------------------------------------------- the entry */

int llm_images_convert(llm_images *im, const void *data, size_t n, const char *name,
                       unsigned char **out, size_t *outn, char *err, size_t errlen)
{
    const unsigned char *p = data;
    *out = NULL;
    *outn = 0;
    if (n > im->o.max_bytes)
        return fail(im, LLM_IMAGE_EINPUT, err, errlen,
                    "%zu bytes, over the limit of %zu bytes (--image-max-bytes)", n,
                    im->o.max_bytes);
    int kind = kind_of(p, n);
    if (kind == K_UNKNOWN)
        return fail(im, LLM_IMAGE_EINPUT, err, errlen,
                    "not an image: PNG, JPEG, GIF, WebP, SVG or TikZ/LaTeX source expected");
    if (kind == K_RASTER) {
        int rc = check_pixels(im, p, n, "the image", err, errlen);
        if (rc) return rc;
        *out = malloc(n ? n : 1);
        if (!*out) return fail(im, LLM_IMAGE_EINPUT, err, errlen, "out of memory");
        memcpy(*out, p, n);
        *outn = n;
        return LLM_IMAGE_OK;
    }
    if (kind == K_TEX) {
        int rc = find_tex(im, err, errlen);
        if (rc) return rc;
    }
    /* the key: converter, settings, (class and script,) input */
    llm_sha256_ctx s;
    llm_sha256_init(&s);
    char head[200];
    snprintf(head, sizeof head, "%s%s dpi=%g\n", IMAGE_CACHE_VERSION, kind == K_SVG ? "svg" : "tex",
             im->o.dpi);
    llm_sha256_update(&s, head, strlen(head));
    if (kind == K_TEX) llm_sha256_update(&s, im->texkey, 64);
    llm_sha256_update(&s, p, n);
    unsigned char h[32];
    llm_sha256_final(&s, h);
    char key[65];
    for (int i = 0; i < 32; i++) snprintf(key + 2 * i, 3, "%02x", h[i]);
    const char *what = kind == K_SVG ? "the SVG's picture" : "TeX's picture";

    memo *m = memo_find(im, key);
    if (m) {
        if (!m->data) return fail(im, m->code, err, errlen, "%s", m->err ? m->err : "failed");
        im->st.cache_hits++;
        *out = malloc(m->n ? m->n : 1);
        if (!*out) return fail(im, LLM_IMAGE_EINPUT, err, errlen, "out of memory");
        memcpy(*out, m->data, m->n);
        *outn = m->n;
        return LLM_IMAGE_OK;
    }
    char final[4300] = "", tmp[4400];
    if (im->cache) {
        char dir[4200];
        snprintf(dir, sizeof dir, "%s/%.2s", im->cache, key);
        snprintf(final, sizeof final, "%s/%s.png", dir, key);
        char e[300];
        unsigned char *d = read_all(final, (size_t)1 << 30, outn, e, sizeof e);
        if (d && *outn > 8 && memcmp(d, "\x89PNG", 4) == 0) {
            int rc = check_pixels(im, d, *outn, what, err, errlen);
            if (rc) {
                free(d);
                *outn = 0;
                return rc;
            }
            im->st.cache_hits++;
            *out = d;
            return LLM_IMAGE_OK;
        }
        free(d);
        *outn = 0;
        if (llm_mkdirs(dir) != 0)
            return fail(im, LLM_IMAGE_EINPUT, err, errlen, "image cache %s: %s", dir,
                        strerror(errno));
        snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, key);
    } else {
        const char *td = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/diagramir-image.XXXXXX", td && *td ? td : "/tmp");
    }
    if (kind == K_TEX) {
        int rc = have_tex(im, err, errlen);
        if (rc) {
            memo_add(im, key, NULL, 0, rc, err);
            return rc;
        }
    }
    int fd = mkstemp(tmp);
    if (fd < 0) return fail(im, LLM_IMAGE_EINPUT, err, errlen, "%s: %s", tmp, strerror(errno));
    close(fd);
    double t0 = now();
    int rc = kind == K_SVG ? convert_svg(im, p, n, tmp, err, errlen)
                           : convert_tex(im, p, n, name, tmp, err, errlen);
    im->st.seconds += now() - t0;
    im->st.converted++;
    unsigned char *d = NULL;
    if (rc == LLM_IMAGE_OK) {
        char e[300];
        d = read_all(tmp, (size_t)1 << 30, outn, e, sizeof e);
        if (!d) rc = fail(im, LLM_IMAGE_EINPUT, err, errlen, "%s: %s", tmp, e);
        else if (*outn < 8 || memcmp(d, "\x89PNG", 4) != 0)
            rc = fail(im, LLM_IMAGE_EINPUT, err, errlen, "the converter wrote no PNG");
        else rc = check_pixels(im, d, *outn, what, err, errlen);
    }
    if (rc == LLM_IMAGE_OK && im->cache) {
        /* durable before it is named: a killed run leaves a temp file, never half a PNG */
        fd = open(tmp, O_RDONLY);
        if (fd >= 0) {
            fsync(fd);
            close(fd);
        }
        if (rename(tmp, final) != 0) unlink(tmp);
    } else {
        unlink(tmp);
    }
    if (rc != LLM_IMAGE_OK) {
        free(d);
        *outn = 0;
        memo_add(im, key, NULL, 0, rc, err);
        return rc;
    }
    if (!im->cache) memo_add(im, key, d, *outn, 0, NULL);
    *out = d;
    return LLM_IMAGE_OK;
}

int llm_images_convert_file(llm_images *im, const char *path, unsigned char **out, size_t *outn,
                            char *err, size_t errlen)
{
    size_t n;
    char e[400];
    *out = NULL;
    *outn = 0;
    unsigned char *d = read_all(path, im->o.max_bytes, &n, e, sizeof e);
    if (!d) return fail(im, LLM_IMAGE_EINPUT, err, errlen, "%s", e);
    int rc = llm_images_convert(im, d, n, path, out, outn, err, errlen);
    free(d);
    return rc;
}

/* The end of an attach: on a conversion that went well (rc), the PNG goes
 * into r; png is freed either way. On failure err gets e, after the input's
 * name unless TeX's own message (which names its file) says it. */
static int attach_png(llm_images *im, llm_request *r, int rc, unsigned char *png, size_t pn,
                      const char *name, char *e, size_t elen, char *err, size_t errlen)
{
    if (rc == LLM_IMAGE_OK && llm_request_add_image(r, png, pn, e, elen) != 0)
        rc = fail(im, LLM_IMAGE_EINPUT, e, elen, "%s", e);
    free(png);
    if (rc != LLM_IMAGE_OK)
        snprintf(err, errlen, "%s%s%s", rc == LLM_IMAGE_ETEX ? "" : name,
                 rc == LLM_IMAGE_ETEX ? "" : ": ", e);
    return rc;
}

int llm_images_attach(llm_images *im, llm_request *r, const void *data, size_t n,
                      const char *name, char *err, size_t errlen)
{
    char e[1200];
    if (!im) {
        if (llm_request_add_image(r, data, n, e, sizeof e) == 0) return LLM_IMAGE_OK;
        snprintf(err, errlen, "%s: %s", name, e);
        return LLM_IMAGE_EINPUT;
    }
    unsigned char *png;
    size_t pn;
    int rc = llm_images_convert(im, data, n, name, &png, &pn, e, sizeof e);
    return attach_png(im, r, rc, png, pn, name, e, sizeof e, err, errlen);
}

int llm_images_attach_file(llm_images *im, llm_request *r, const char *path, char *err,
                           size_t errlen)
{
    if (!im) return llm_request_add_image_file(r, path, err, errlen) == 0 ? LLM_IMAGE_OK
                                                                          : LLM_IMAGE_EINPUT;
    unsigned char *png;
    size_t pn;
    char e[1200];
    int rc = llm_images_convert_file(im, path, &png, &pn, e, sizeof e);
    return attach_png(im, r, rc, png, pn, path, e, sizeof e, err, errlen);
}

/* ---------------------------------------------------------- options */

const char llm_image_opts_help[] =
    "      --image-max-bytes N  bytes of one image input at most (default 16777216)\n"
    "      --image-max-side N   pixels a side of an image at most (default 4096)\n"
    "      --image-max-pixels N pixels of an image in all at most (default 16000000)\n"
    "      --image-dpi N        SVG physical units and TikZ pages at N dpi (default 150)\n"
    "      --tex-timeout SEC    seconds of one TeX run of a TikZ input (default 60)\n"
    "      --image-cpu SEC      CPU seconds of one SVG rasterization (default 30)\n"
    "      --image-mem MIB      memory of a converter process (default 2048)\n";

int llm_image_opt_parse(llm_image_opts *o, int opt, const char *arg, const char *prog)
{
    static const struct {
        const char *name;
        double lo, hi;
    } spec[] = {{"image-max-bytes", 1, 1073741824.0}, {"image-max-side", 1, 32767},
                {"image-max-pixels", 1, 1e9},         {"image-dpi", 1, 2400},
                {"tex-timeout", 0.1, 86400},           {"image-cpu", 1, 86400},
                {"image-mem", 64, 1048576}};
    if (!LLM_IMAGE_OPT_IS(opt)) return -1;
    int i = opt - LLM_IMAGE_OPT_FIRST;
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || *end || errno || !(v >= spec[i].lo && v <= spec[i].hi)) {
        fprintf(stderr, "%s: error: --%s '%s': expected a number from %g to %g\n", prog,
                spec[i].name, arg, spec[i].lo, spec[i].hi);
        return -1;
    }
    switch (opt) {
    case LLM_IMAGE_OPT_BYTES: o->max_bytes = (size_t)v; break;
    case LLM_IMAGE_OPT_SIDE: o->max_side = floor(v); break;
    case LLM_IMAGE_OPT_PIXELS: o->max_pixels = floor(v); break;
    case LLM_IMAGE_OPT_DPI: o->dpi = v; break;
    case LLM_IMAGE_OPT_TEXTIME: o->tex_timeout = v; break;
    case LLM_IMAGE_OPT_CPU: o->svg_cpu = v; break;
    default: o->mem_mb = v; break;
    }
    return 0;
}
