/* fakellm_fast.c -- a fast fake chat-completions server for tests/bench-judge.sh.
 *
 *   cc -O2 -o fakellm_fast tests/judge/fakellm_fast.c
 *   fakellm_fast --port-file F --body FILE [--stats FILE]
 *
 * Listens on 127.0.0.1 on a free port (written to F, via a rename, once it
 * listens) and answers every HTTP/1.1 request at once with 200 and the bytes
 * of FILE (a chat completion) as an application/json body, keeping the
 * connection alive. One thread, epoll, no faults, no scripting: it exists so
 * that judge's throughput is measured, not the Python fake server's
 * (tests/judge/fakellm.py does the faults and the per-request log).
 *
 * On SIGTERM or SIGINT it writes "requests N\nconnections N\ncpu SECONDS\n"
 * (its own user+system CPU time) to the --stats file and exits 0.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAXCONN 4096
#define HDR_MAX 65536
#define BODY_MAX (64L * 1024 * 1024)

typedef struct {
    int fd;
    char *in;
    size_t inlen, incap;
    char *out;
    size_t outlen, outoff, outcap;
    int sent_continue;
} conn;

static conn *conns[MAXCONN];
static volatile sig_atomic_t stop;
static long nrequests, nconnections;
static char *resp;      /* the whole response: headers and body */
static size_t resplen;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void die(const char *what)
{
    perror(what);
    exit(2);
}

static int reserve(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 8192;
    while (c < need) c *= 2;
    char *nb = realloc(*buf, c);
    if (!nb) return -1;
    *buf = nb;
    *cap = c;
    return 0;
}

static void conn_close(int epfd, conn *c)
{
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    conns[c->fd] = NULL;
    free(c->in);
    free(c->out);
    free(c);
}

static int queue_out(conn *c, const char *p, size_t n)
{
    if (reserve(&c->out, &c->outcap, c->outlen + n) != 0) return -1;
    memcpy(c->out + c->outlen, p, n);
    c->outlen += n;
    return 0;
}

/* The value of header name in the header block h (NUL-terminated), or NULL. */
static const char *header(const char *h, const char *name, size_t *vlen)
{
    size_t nl = strlen(name);
    for (const char *p = strstr(h, "\r\n"); p; p = strstr(p, "\r\n")) {
        p += 2;
        if (strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (*v == ' ' || *v == '\t') v++;
            const char *e = strstr(v, "\r\n");
            *vlen = e ? (size_t)(e - v) : strlen(v);
            return v;
        }
    }
    return NULL;
}

/* Handles every complete request in c->in. -1: close the connection. */
static int parse(conn *c)
{
    for (;;) {
        if (c->inlen == 0) return 0;
        if (reserve(&c->in, &c->incap, c->inlen + 1) != 0) return -1;
        c->in[c->inlen] = 0;
        char *end = strstr(c->in, "\r\n\r\n");
        if (!end) return c->inlen > HDR_MAX ? -1 : 0;
        size_t hlen = (size_t)(end - c->in) + 4;
        char save = c->in[hlen - 2];
        c->in[hlen - 2] = 0;   /* header block ends after the last header's CRLF */
        size_t vl;
        long blen = 0;
        const char *v = header(c->in, "Content-Length", &vl);
        if (v) blen = strtol(v, NULL, 10);
        int expect = header(c->in, "Expect", &vl) != NULL;
        int te = header(c->in, "Transfer-Encoding", &vl) != NULL;
        c->in[hlen - 2] = save;
        if (te || blen < 0 || blen > BODY_MAX) return -1;   /* not needed here */
        if (c->inlen < hlen + (size_t)blen) {
            if (expect && !c->sent_continue) {
                static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
                if (queue_out(c, cont, sizeof cont - 1) != 0) return -1;
                c->sent_continue = 1;
            }
            return 0;
        }
        size_t used = hlen + (size_t)blen;
        memmove(c->in, c->in + used, c->inlen - used);
        c->inlen -= used;
        c->sent_continue = 0;
        nrequests++;
        if (queue_out(c, resp, resplen) != 0) return -1;
    }
}

/* Writes what is queued. -1: close. */
static int flush_out(conn *c)
{
    while (c->outoff < c->outlen) {
        ssize_t w = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            return -1;
        }
        c->outoff += (size_t)w;
    }
    c->outoff = c->outlen = 0;
    return 0;
}

int main(int argc, char **argv)
{
    const char *port_file = NULL, *body_file = NULL, *stats_file = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--port-file") == 0) port_file = argv[i + 1];
        else if (strcmp(argv[i], "--body") == 0) body_file = argv[i + 1];
        else if (strcmp(argv[i], "--stats") == 0) stats_file = argv[i + 1];
        else {
            fprintf(stderr, "fakellm_fast: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!port_file || !body_file) {
        fprintf(stderr, "usage: fakellm_fast --port-file F --body FILE [--stats FILE]\n");
        return 2;
    }
    FILE *bf = fopen(body_file, "rb");
    if (!bf) die(body_file);
    char body[1 << 16];
    size_t blen = fread(body, 1, sizeof body, bf);
    fclose(bf);
    char head[256];
    int hl = snprintf(head, sizeof head,
                      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                      "Content-Length: %zu\r\n\r\n", blen);
    resplen = (size_t)hl + blen;
    resp = malloc(resplen);
    if (!resp) die("malloc");
    memcpy(resp, head, (size_t)hl);
    memcpy(resp + hl, body, blen);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (ls < 0) die("socket");
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    if (bind(ls, (struct sockaddr *)&a, sizeof a) != 0) die("bind");
    if (listen(ls, 1024) != 0) die("listen");
    socklen_t al = sizeof a;
    if (getsockname(ls, (struct sockaddr *)&a, &al) != 0) die("getsockname");
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
    FILE *pf = fopen(tmp, "w");
    if (!pf) die(tmp);
    fprintf(pf, "%d\n", ntohs(a.sin_port));
    if (fclose(pf) != 0 || rename(tmp, port_file) != 0) die(port_file);

    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) die("epoll_create1");
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev) != 0) die("epoll_ctl");
    struct epoll_event evs[256];
    while (!stop) {
        int n = epoll_wait(ep, evs, 256, 200);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("epoll_wait");
        }
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == ls) {
                for (;;) {
                    int cfd = accept4(ls, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                    if (cfd < 0) break;
                    if (cfd >= MAXCONN) {
                        close(cfd);
                        continue;
                    }
                    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    conn *c = calloc(1, sizeof *c);
                    if (!c) {
                        close(cfd);
                        continue;
                    }
                    c->fd = cfd;
                    conns[cfd] = c;
                    nconnections++;
                    struct epoll_event ce = {.events = EPOLLIN | EPOLLRDHUP, .data.fd = cfd};
                    if (epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ce) != 0) conn_close(ep, c);
                }
                continue;
            }
            conn *c = conns[fd];
            if (!c) continue;
            int bad = 0;
            if (evs[i].events & EPOLLIN) {
                for (;;) {
                    if (reserve(&c->in, &c->incap, c->inlen + 65536) != 0) {
                        bad = 1;
                        break;
                    }
                    ssize_t r = recv(fd, c->in + c->inlen, c->incap - c->inlen - 1, 0);
                    if (r > 0) {
                        c->inlen += (size_t)r;
                        continue;
                    }
                    if (r == 0) bad = 1;
                    else if (errno == EINTR) continue;
                    else if (errno != EAGAIN && errno != EWOULDBLOCK) bad = 1;
                    break;
                }
                if (parse(c) != 0) bad = 1;
            }
            if (!bad && (evs[i].events & (EPOLLERR | EPOLLHUP))) bad = 1;
            if (!bad && flush_out(c) != 0) bad = 1;
            if (bad) {
                conn_close(ep, c);
                continue;
            }
            struct epoll_event ce = {.events = EPOLLIN | EPOLLRDHUP | (c->outlen ? EPOLLOUT : 0),
                                     .data.fd = fd};
            epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ce);
        }
    }
    if (stats_file) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                     (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
        FILE *sf = fopen(stats_file, "w");
        if (sf) {
            fprintf(sf, "requests %ld\nconnections %ld\ncpu %.3f\n", nrequests, nconnections, cpu);
            fclose(sf);
        }
    }
    return 0;
}
