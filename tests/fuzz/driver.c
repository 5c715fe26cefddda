/* driver.c — a plain main() for libFuzzer-style harnesses, for smoke runs
 * without libFuzzer (any compiler, any sanitizer):
 *
 *   HARNESS [-runs=N] [-seed=S] [-max_len=L] [-max_total_time=SEC] [DIR|FILE]...
 *
 * Runs LLVMFuzzerTestOneInput once on every corpus file (a DIR's regular
 * files, in name order), then on N inputs made from the corpus by seeded,
 * deterministic mutation: bit flips, byte changes, inserts, deletes,
 * duplicated chunks, splices and cross-overs of corpus files, line
 * shuffles, interesting numbers, runs of braces/parens/quotes, random bytes.
 * Same seed and corpus, same inputs. Each input is passed in its own
 * malloc'd buffer of exactly its size, so sanitizers see overreads.
 *
 * Prints one summary line on stdout and exits 0; a crash ends the process
 * (sanitizers abort), after saving the input to crash-HARNESS-seedS in
 * the current directory (or $FUZZ_ARTIFACT_DIR) so that `HARNESS FILE`
 * reproduces it. Other -flags (libFuzzer's) are accepted and ignored with a
 * note; exit status 2 for a corpus path that cannot be read. */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Sanitizer runtimes call this on a report, when linked in. */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

typedef struct {
    uint8_t *p;
    size_t n;
} blob;

static blob *corpus;
static size_t ncorpus;

/* --- the input being run, for the crash handler ------------------------- */
static const uint8_t *cur_data;
static size_t cur_size;
static char crash_path[4096];
static volatile sig_atomic_t saved;

static void save_crash(void)
{
    if (saved || !crash_path[0]) return;
    saved = 1;
    int fd = open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        size_t off = 0;
        while (off < cur_size) {
            ssize_t w = write(fd, cur_data + off, cur_size - off);
            if (w <= 0) break;
            off += (size_t)w;
        }
        close(fd);
        static const char m[] = "driver: crashing input saved to ";
        if (write(2, m, sizeof m - 1) < 0 || write(2, crash_path, strlen(crash_path)) < 0 ||
            write(2, "\n", 1) < 0) {
            /* nothing more to do */
        }
    }
}

static void on_signal(int sig)
{
    save_crash();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* --- deterministic randomness (splitmix64) ------------------------------ */
static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0). */
static size_t below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* --- buffers -------------------------------------------------------------- */
typedef struct {
    uint8_t *p;
    size_t n, cap;
} buf;

static void reserve(buf *b, size_t n)
{
    if (n <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < n) cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        fputs("driver: out of memory\n", stderr);
        exit(2);
    }
    b->p = p;
    b->cap = cap;
}

static void set(buf *b, const uint8_t *p, size_t n)
{
    reserve(b, n);
    if (n) memcpy(b->p, p, n);
    b->n = n;
}

static void insert(buf *b, size_t at, const uint8_t *p, size_t n)
{
    reserve(b, b->n + n);
    memmove(b->p + at + n, b->p + at, b->n - at);
    if (n) memcpy(b->p + at, p, n);
    b->n += n;
}

static void erase(buf *b, size_t at, size_t n)
{
    memmove(b->p + at, b->p + at + n, b->n - at - n);
    b->n -= n;
}

static const char *const interesting[] = {
    "0", "-0", "1", "-1", "0.0005", "-0.0004", "1e308", "1e309", "-1e999", "1e-400",
    "99999999999999999999", "999999999999.9996", "2147483647", "2147483648", "-2147483649",
    "nan", "inf", "-inf", "0x10", "1e", ".", "-", "1.2.3", "\"", "\\", "\\\"", "\\x00",
    "\\x", "\\q", "=", "\"\"", "@", "@0", "@2147483648", "#", "\n", "\r\n", "\t", " ", "\0",
    "\xff", "\xc3\xa9", "\xed\xa0\x80", "diagramir 1\n", "diagram x\n", "end\n",
    "undirected", "open", "closed", "clip ", "rect ", "poly ", "key=\"a b\"",
};

/* One random mutation of b (which stays within max bytes). */
static void mutate_once(buf *b, size_t max)
{
    uint8_t tmp[64];
    switch (below(14)) {
    case 0:  /* flip a bit */
        if (b->n) b->p[below(b->n)] ^= (uint8_t)(1u << below(8));
        break;
    case 1:  /* set a byte */
        if (b->n) b->p[below(b->n)] = (uint8_t)rnd();
        break;
    case 2: {  /* insert random bytes */
        size_t n = 1 + below(8);
        for (size_t i = 0; i < n; i++) tmp[i] = (uint8_t)rnd();
        insert(b, below(b->n + 1), tmp, n);
        break;
    }
    case 3:  /* delete a range */
        if (b->n) {
            size_t at = below(b->n), n = 1 + below(b->n - at < 64 ? b->n - at : 64);
            erase(b, at, n);
        }
        break;
    case 4:  /* duplicate a chunk */
        if (b->n) {
            size_t at = below(b->n), n = 1 + below(b->n - at);
            buf c = {0};
            set(&c, b->p + at, n);
            insert(b, below(b->n + 1), c.p, c.n);
            free(c.p);
        }
        break;
    case 5:  /* splice: our prefix, another file's suffix */
        if (ncorpus) {
            blob *o = &corpus[below(ncorpus)];
            size_t keep = below(b->n + 1), from = below(o->n + 1);
            b->n = keep;
            insert(b, keep, o->p + from, o->n - from);
        }
        break;
    case 6:  /* cross-over: a chunk of another file inserted */
        if (ncorpus) {
            blob *o = &corpus[below(ncorpus)];
            if (o->n) {
                size_t at = below(o->n), n = 1 + below(o->n - at);
                insert(b, below(b->n + 1), o->p + at, n);
            }
        }
        break;
    case 7: {  /* runs of brackets, quotes and backslashes */
        static const char runs[] = "{}()[]\"\\$%@#=-.0\n ";
        uint8_t c = (uint8_t)runs[below(sizeof runs - 1)];
        size_t n = 1 + below(below(4) == 0 ? 5000 : 40);
        buf r = {0};
        reserve(&r, n);
        memset(r.p, c, n);
        insert(b, below(b->n + 1), r.p, n);
        free(r.p);
        break;
    }
    case 8: {  /* an interesting token */
        const char *s = interesting[below(sizeof interesting / sizeof interesting[0])];
        size_t n = s[0] ? strlen(s) : 1;
        insert(b, below(b->n + 1), (const uint8_t *)s, n);
        break;
    }
    case 9: {  /* replace a word (up to a blank) by an interesting token */
        if (!b->n) break;
        size_t at = below(b->n), end = at;
        while (end < b->n && b->p[end] != ' ' && b->p[end] != '\n') end++;
        erase(b, at, end - at);
        const char *s = interesting[below(sizeof interesting / sizeof interesting[0])];
        insert(b, at, (const uint8_t *)s, s[0] ? strlen(s) : 1);
        break;
    }
    case 10: {  /* duplicate or delete a whole line */
        if (!b->n) break;
        size_t at = below(b->n), s = at, e = at;
        while (s > 0 && b->p[s - 1] != '\n') s--;
        while (e < b->n && b->p[e] != '\n') e++;
        if (e < b->n) e++;
        if (rnd() & 1) {
            buf c = {0};
            set(&c, b->p + s, e - s);
            insert(b, s, c.p, c.n);
            free(c.p);
        } else {
            erase(b, s, e - s);
        }
        break;
    }
    case 11:  /* truncate */
        b->n = below(b->n + 1);
        break;
    case 12: {  /* all new random bytes, sometimes printable only */
        size_t n = below(256);
        int printable = rnd() & 1;
        reserve(b, n);
        for (size_t i = 0; i < n; i++)
            b->p[i] = printable ? (uint8_t)(32 + below(95)) : (uint8_t)rnd();
        b->n = n;
        break;
    }
    default:  /* change a digit or a sign: numbers are everywhere */
        if (b->n) {
            size_t at = below(b->n);
            static const char d[] = "0123456789-+.eE";
            b->p[at] = (uint8_t)d[below(sizeof d - 1)];
        }
        break;
    }
    if (b->n > max) b->n = max;
}

/* --- corpus --------------------------------------------------------------- */
static int load_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    buf b = {0};
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) insert(&b, b.n, chunk, n);
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(b.p);
        return -1;
    }
    corpus = realloc(corpus, (ncorpus + 1) * sizeof *corpus);
    if (!corpus) exit(2);
    corpus[ncorpus].p = b.p;
    corpus[ncorpus].n = b.n;
    ncorpus++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) return load_file(path);
    DIR *dir = opendir(path);
    if (!dir) return -1;
    char **names = NULL;
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.') continue;
        names = realloc(names, (n + 1) * sizeof *names);
        size_t len = strlen(path) + strlen(de->d_name) + 2;
        names[n] = malloc(len);
        if (!names || !names[n]) exit(2);
        snprintf(names[n], len, "%s/%s", path, de->d_name);
        n++;
    }
    closedir(dir);
    if (n) qsort(names, n, sizeof *names, by_name);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode) && load_file(names[i]) != 0) rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

/* --- running ---------------------------------------------------------- */
static void run_one(const uint8_t *p, size_t n)
{
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy) exit(2);
    if (n) memcpy(copy, p, n);
    else copy[0] = 0;   /* nothing to read, but never uninitialized */
    cur_data = copy;
    cur_size = n;
    LLVMFuzzerTestOneInput(copy, n);
    free(copy);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int num_flag(const char *arg, const char *name, unsigned long long *out)
{
    size_t l = strlen(name);
    if (strncmp(arg, name, l) != 0) return 0;
    char *end;
    *out = strtoull(arg + l, &end, 10);
    if (end == arg + l || *end) {
        fprintf(stderr, "driver: bad value in %s\n", arg);
        exit(2);
    }
    return 1;
}

int main(int argc, char **argv)
{
    unsigned long long runs = 0, seed = 1, max_len = 65536, max_time = 0, v;
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (num_flag(a, "-runs=", &v)) runs = v;
        else if (num_flag(a, "-seed=", &v)) seed = v;
        else if (num_flag(a, "-max_len=", &v)) max_len = v ? v : 1;
        else if (num_flag(a, "-max_total_time=", &v)) max_time = v;
        else if (a[0] == '-' && a[1]) fprintf(stderr, "driver: ignoring %s\n", a);
        else {
            if (load_path(a) != 0) {
                fprintf(stderr, "%s: cannot read corpus %s\n", name, a);
                return 2;
            }
        }
    }

    const char *dir = getenv("FUZZ_ARTIFACT_DIR");
    snprintf(crash_path, sizeof crash_path, "%s%scrash-%s-seed%llu", dir ? dir : "",
             dir ? "/" : "", name, seed);
    signal(SIGABRT, on_signal);  /* harness assertions; sanitizers leave it alone */
    if (__sanitizer_set_death_callback) {
        /* the sanitizer reports (with its stack trace), then calls us */
        __sanitizer_set_death_callback(save_crash);
    } else {
        signal(SIGSEGV, on_signal);
        signal(SIGBUS, on_signal);
        signal(SIGFPE, on_signal);
        signal(SIGILL, on_signal);
    }

    double t0 = now();
    size_t biggest = 0;
    for (size_t i = 0; i < ncorpus; i++) {
        run_one(corpus[i].p, corpus[i].n);
        if (corpus[i].n > biggest) biggest = corpus[i].n;
    }

    rng_state = seed * 0x2545F4914F6CDD1DULL + 1;
    buf b = {0};
    unsigned long long done = 0;
    for (; done < runs; done++) {
        if (max_time && (done & 255) == 0 && now() - t0 > (double)max_time) break;
        /* Usually start again from a corpus file; sometimes keep mutating
         * the last input, to get further from the corpus. */
        if (done == 0 || below(4) != 0) {
            if (ncorpus) {
                blob *c = &corpus[below(ncorpus)];
                set(&b, c->p, c->n < max_len ? c->n : max_len);
            } else {
                b.n = 0;
            }
        }
        size_t k = 1 + below(below(3) == 0 ? 12 : 4);
        for (size_t j = 0; j < k; j++) mutate_once(&b, max_len);
        run_one(b.p, b.n);
    }
    free(b.p);
    printf("%s: %zu corpus files + %llu mutated inputs (seed %llu, max_len %llu), "
           "no crash, %.2f s\n", name, ncorpus, done, seed, max_len, now() - t0);
    for (size_t i = 0; i < ncorpus; i++) free(corpus[i].p);
    free(corpus);
    return 0;
}
