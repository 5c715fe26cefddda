/* calendar.c: TikZ's calendar library (\calendar), as
 * tikzlibrarycalendar.code.tex and pgfcalendar.code.tex define it. The
 * statement's parts ((name), at (p), [options], if (cond) [opts] {code}
 * else ...) are read here; each day then runs as TikZ code: a scope shifted
 * to the day's place (day list downward/upward/right/left, week list, month
 * list; day/month x/yshift), the options and code of the conditions that
 * hold for it (pgf's \ifdate tests: all, Monday..Sunday, workday, weekend,
 * equals=, day of month=, end of month=, at least=, at most=, between=),
 * and the day's node, named cal-YYYY-MM-DD after the calendar's name, with
 * the day text (the shorthands \%d- \%d= \%d0 \%m- \%m= \%m0 \%y- \%y= \%y0
 * \%w. \%wt \%m. \%mt), the month labels. Keys it does not build (day code, month code,
 * execute ... day scope, ...) make the calendar one unparsed record. */
#include "grammar/interp.h"
#include "ir/xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAL_MAX_DAYS 4000     /* about eleven years: past that, unparsed */

typedef struct { char *s; size_t n, cap; } cbuf;

static void cb_put(cbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

static void cb_puts(cbuf *b, const char *s) { cb_put(b, s, strlen(s)); }

static void cb_printf(cbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cb_printf(cbuf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k > 0) cb_put(b, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
}

/* ---- dates: Julian day numbers, weekday 0 Monday .. 6 Sunday, as pgf ---- */

static long to_julian(long y, long m, long d)
{
    long a = (14 - m) / 12, yy = y + 4800 - a, mm = m + 12 * a - 3;
    return d + (153 * mm + 2) / 5 + 365 * yy + yy / 4 - yy / 100 + yy / 400 - 32045;
}

static void from_julian(long j, long *y, long *m, long *d)
{
    long a = j + 32044, b = (4 * a + 3) / 146097, c = a - 146097 * b / 4;
    long dd = (4 * c + 3) / 1461, e = c - 1461 * dd / 4, mm = (5 * e + 2) / 153;
    *d = e - (153 * mm + 2) / 5 + 1;
    *m = mm + 3 - 12 * (mm / 10);
    *y = 100 * b + dd - 4800 + mm / 10;
}

static int weekday(long j) { return (int)(j % 7); }   /* JDN mod 7: 0 Monday */

static int read_long(const char **p, const char *e, long *v)
{
    const char *s = *p;
    while (s < e && tk_space((unsigned char)*s)) s++;
    int neg = 0;
    if (s < e && (*s == '-' || *s == '+')) neg = *s++ == '-';
    if (s >= e || *s < '0' || *s > '9') return -1;
    long x = 0;
    while (s < e && *s >= '0' && *s <= '9' && x < 100000) x = x * 10 + (*s++ - '0');
    while (s < e && tk_space((unsigned char)*s)) s++;
    *v = neg ? -x : x;
    *p = s;
    return 0;
}

/* A date YYYY-MM-DD, YYYY-MM-last or MM-DD (the year cur_year), with an
 * optional +N days; its Julian day number, or -1. */
static int parse_date(const char *s, size_t n, long cur_year, long *jd)
{
    const char *p = s, *e = s + n;
    long f[3];
    int nf = 0, last = 0;
    while (nf < 3) {
        while (p < e && tk_space((unsigned char)*p)) p++;
        if (nf == 2 && e - p >= 4 && memcmp(p, "last", 4) == 0) { last = 1; p += 4; nf++; break; }
        if (p >= e || *p < '0' || *p > '9') return -1;
        if (read_long(&p, e, &f[nf]) != 0) return -1;
        nf++;
        if (p < e && *p == '-' && nf < 3) p++;
        else break;
    }
    long y, m, d;
    if (nf == 3) { y = f[0]; m = f[1]; d = last ? 0 : f[2]; }
    else if (nf == 2) { y = cur_year; m = f[0]; d = f[1]; }
    else return -1;
    if (y < 1 || y > 9999 || m < 1 || m > 12 || (!last && (d < 1 || d > 31))) return -1;
    long j = last ? to_julian(m == 12 ? y + 1 : y, m == 12 ? 1 : m + 1, 1) - 1 : to_julian(y, m, d);
    while (p < e && tk_space((unsigned char)*p)) p++;
    if (p < e && *p == '+') {
        long k;
        p++;
        if (read_long(&p, e, &k) != 0) return -1;
        j += k;
    }
    if (p != e) return -1;
    *jd = j;
    return 0;
}

/* pgf's \ifdate{cond}: 1 when one test of the comma list holds, 0 when none
 * does, -1 when one cannot be evaluated. */
static int date_matches(const char *c, size_t cn, long j)
{
    long y, m, d;
    from_julian(j, &y, &m, &d);
    int wd = weekday(j), hit = 0;
    static const char *const days[] = { "Monday", "Tuesday", "Wednesday", "Thursday",
                                        "Friday", "Saturday", "Sunday" };
    size_t i = 0, in;
    const char *it;
    while (tk_next_item(c, cn, ',', &i, &it, &in)) {
        if (in == 0) continue;
        const char *k, *v;
        size_t kn, vn;
        tk_split_kv(it, in, &k, &kn, &v, &vn);
        int ok = -1;
        if (!v && tk_is(k, kn, "all")) ok = 1;
        else if (!v && tk_is(k, kn, "workday")) ok = wd < 5;
        else if (!v && tk_is(k, kn, "weekend")) ok = wd > 4;
        else if (v && tk_is(k, kn, "day of month")) {
            long x;
            const char *p = v;
            if (read_long(&p, v + vn, &x) == 0 && p == v + vn) ok = x == d;
        } else if (tk_is(k, kn, "end of month")) {
            long x = 1;
            const char *p = v;
            if (!v || (read_long(&p, v + vn, &x) == 0 && p == v + vn)) {
                long yy, mm, dd;
                from_julian(j + x, &yy, &mm, &dd);
                ok = dd == 1;
            }
        } else if (v && (tk_is(k, kn, "equals") || tk_is(k, kn, "at least") || tk_is(k, kn, "at most"))) {
            long t;
            if (parse_date(v, vn, y, &t) == 0)
                ok = tk_is(k, kn, "equals") ? j == t : tk_is(k, kn, "at least") ? j >= t : j <= t;
        } else if (v && tk_is(k, kn, "between")) {
            const char *a = tk_memmem(v, vn, "and");
            long t0, t1;
            if (a && parse_date(v, (size_t)(a - v), y, &t0) == 0 &&
                parse_date(a + 3, vn - (size_t)(a + 3 - v), y, &t1) == 0)
                ok = j >= t0 && j <= t1;
        } else if (!v) {
            for (int w = 0; w < 7; w++)
                if (tk_is(k, kn, days[w])) ok = wd == w;
        }
        if (ok < 0) return -1;
        hit |= ok;
    }
    return hit;
}

/* ---- the statement ---- */

enum { ARR_NONE, ARR_DOWN, ARR_UP, ARR_RIGHT, ARR_LEFT, ARR_WEEK, ARR_MONTH };

typedef struct {
    char *cond, *opts[2], *code[2];   /* opts/code: then [0] and else [1], NULL when absent */
} cal_if;

typedef struct {
    tikz *T;
    char *name, *at, *dates;
    cbuf pass;                        /* the options handed on to the calendar's scope */
    cbuf days;                        /* days={...}: the day nodes' options */
    char *xs, *ys, *mxs, *mys;        /* day/month x/yshift texts */
    char *daytext, *monthtext, *yeartext;
    int arr;
    int label;                        /* month label ...: 1 + its index in labels[], 0 none */
    cal_if *ifs;
    size_t nifs;
    const char *why;                  /* set: out of reach */
} cal;

static char *dup_n(const char *s, size_t n)
{
    char *r = xrealloc(NULL, n + 1);
    if (n) memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

static void set_str(char **dst, const char *s, size_t n)
{
    free(*dst);
    *dst = dup_n(s, n);
}

/* The end of the group opened at s[i] (one of ( [ {): the index of its
 * closing character, braces nesting; -1 when unclosed. */
static long group_end(const char *s, size_t n, size_t i)
{
    char open = s[i], close = open == '(' ? ')' : open == '[' ? ']' : '}';
    int brace = 0, depth = 0;
    for (size_t k = i; k < n; k++) {
        char c = s[k];
        if (c == '\\' && k + 1 < n) { k++; continue; }
        if (c == '{') { if (open == '{') depth++; else brace++; }
        else if (c == '}') {
            if (open == '{') { if (--depth == 0) return (long)k; }
            else if (brace > 0) brace--;
        } else if (brace == 0 && c == open && open != '{') depth++;
        else if (brace == 0 && c == close && open != '{' && --depth == 0) return (long)k;
    }
    return -1;
}

/* the month labels: where the month's node goes (in multiples of the day
 * xshift w = (width - 1) * day xshift, of 1.25 day yshift, plus a fixed
 * xshift) and its every month options, as tikzlibrarycalendar.code.tex */
static const struct {
    const char *k;
    double wf, yf;            /* x += wf * w; y += yf * day yshift */
    const char *dx;           /* then x += this (NULL: none) */
    const char *opts;
} labels[] = {
    { "month label left", 0, 0, NULL, "anchor=base east,xshift=-3.5ex" },
    { "month label left vertical", 0, 0, NULL, "anchor=base east,xshift=-4.5ex,yshift=2.25ex,rotate=90" },
    { "month label right", 1, 0, NULL, "anchor=base west,xshift=1ex" },
    { "month label right vertical", 1, 0, NULL, "anchor=base west,xshift=2ex,yshift=2.25ex,rotate=-90" },
    { "month label above centered", 0.5, 1.25, "-1.5ex", "anchor=base" },
    { "month label above left", 0, 1.25, "-3.25ex", "anchor=base west" },
    { "month label above right", 1, 1.25, NULL, "anchor=base east" },
    { "month label below centered", 0.5, -1.25, "-1.5ex", "anchor=base" },
    { "month label below left", 0, -1.25, "-3.25ex", "anchor=base west" },
};

static void cal_option(cal *C, const char *it, size_t in)
{
    const char *k, *v;
    size_t kn, vn;
    long eq = tk_split_kv(it, in, &k, &kn, &v, &vn);
    if (!v) v = "";
    static const struct { const char *k; int arr; } arrs[] = {
        { "day list downward", ARR_DOWN }, { "day list upward", ARR_UP },
        { "day list right", ARR_RIGHT }, { "day list left", ARR_LEFT },
        { "week list", ARR_WEEK }, { "month list", ARR_MONTH },
    };
    for (size_t a = 0; a < sizeof arrs / sizeof *arrs; a++)
        if (eq < 0 && tk_is(k, kn, arrs[a].k)) { C->arr = arrs[a].arr; return; }
    for (size_t a = 0; a < sizeof labels / sizeof *labels; a++)
        if (eq < 0 && tk_is(k, kn, labels[a].k)) { C->label = (int)a + 1; return; }
    if (tk_is(k, kn, "dates")) set_str(&C->dates, v, vn);
    else if (tk_is(k, kn, "name")) set_str(&C->name, v, vn);
    else if (tk_is(k, kn, "at")) set_str(&C->at, v, vn);
    else if (tk_is(k, kn, "day xshift")) set_str(&C->xs, v, vn);
    else if (tk_is(k, kn, "day yshift")) set_str(&C->ys, v, vn);
    else if (tk_is(k, kn, "month xshift")) set_str(&C->mxs, v, vn);
    else if (tk_is(k, kn, "month yshift")) set_str(&C->mys, v, vn);
    else if (tk_is(k, kn, "day text")) set_str(&C->daytext, v, vn);
    else if (tk_is(k, kn, "month text")) set_str(&C->monthtext, v, vn);
    else if (tk_is(k, kn, "year text")) set_str(&C->yeartext, v, vn);
    else if (tk_is(k, kn, "days")) {
        if (C->days.n) cb_puts(&C->days, ",");
        cb_put(&C->days, v, vn);
    } else if (tk_is(k, kn, "day code") || tk_is(k, kn, "month code") || tk_is(k, kn, "year code") ||
               tk_is(k, kn, "if") || (kn > 12 && memcmp(k, "month label ", 12) == 0) ||  /* one not listed */
               (kn > 8 && memcmp(k, "execute ", 8) == 0)) {
        C->why = "a calendar key not built here (day code, month code, execute ... day scope, if=)";
    } else {
        if (C->pass.n) cb_puts(&C->pass, ",");
        cb_put(&C->pass, it, in);
    }
}

static void cal_options(cal *C, const char *s, size_t n)
{
    size_t i = 0, in;
    const char *it;
    while (tk_next_item(s, n, ',', &i, &it, &in))
        if (in) cal_option(C, it, in);
}

static size_t skip_sp(const char *s, size_t n, size_t i)
{
    while (i < n && tk_space((unsigned char)s[i])) i++;
    return i;
}

/* Reads [opts] and/or {code} at s[*i] (either may be absent). */
static void read_branch(const char *s, size_t n, size_t *i, char **opts, char **code, const char **why)
{
    size_t k = skip_sp(s, n, *i);
    if (k < n && s[k] == '[') {
        long e = group_end(s, n, k);
        if (e < 0) { *why = "unclosed '['"; return; }
        *opts = dup_n(s + k + 1, (size_t)e - k - 1);
        k = skip_sp(s, n, (size_t)e + 1);
    }
    if (k < n && s[k] == '{') {
        long e = group_end(s, n, k);
        if (e < 0) { *why = "unclosed '{'"; return; }
        *code = dup_n(s + k + 1, (size_t)e - k - 1);
        k = (size_t)e + 1;
    }
    *i = k;
}

static void cal_parse(cal *C, const char *s, size_t n)
{
    size_t i = 0;
    while (!C->why) {
        i = skip_sp(s, n, i);
        if (i >= n || s[i] == ';') break;
        if (s[i] == '(' || s[i] == '[') {
            long e = group_end(s, n, i);
            if (e < 0) { C->why = "unclosed group"; break; }
            if (s[i] == '(') set_str(&C->name, s + i + 1, (size_t)e - i - 1);
            else cal_options(C, s + i + 1, (size_t)e - i - 1);
            i = (size_t)e + 1;
        } else if (n - i >= 2 && memcmp(s + i, "at", 2) == 0) {
            size_t k = skip_sp(s, n, i + 2);
            long e = k < n && s[k] == '(' ? group_end(s, n, k) : -1;
            if (e < 0) { C->why = "'at' without a coordinate"; break; }
            set_str(&C->at, s + k + 1, (size_t)e - k - 1);
            i = (size_t)e + 1;
        } else if (n - i >= 2 && memcmp(s + i, "if", 2) == 0) {
            size_t k = skip_sp(s, n, i + 2);
            long e = k < n && s[k] == '(' ? group_end(s, n, k) : -1;
            if (e < 0) { C->why = "'if' without a condition"; break; }
            C->ifs = xrealloc(C->ifs, (C->nifs + 1) * sizeof *C->ifs);
            cal_if *f = &C->ifs[C->nifs++];
            memset(f, 0, sizeof *f);
            f->cond = dup_n(s + k + 1, (size_t)e - k - 1);
            i = (size_t)e + 1;
            read_branch(s, n, &i, &f->opts[0], &f->code[0], &C->why);
            size_t j = skip_sp(s, n, i);
            if (!C->why && n - j >= 4 && memcmp(s + j, "else", 4) == 0) {
                i = j + 4;
                read_branch(s, n, &i, &f->opts[1], &f->code[1], &C->why);
            }
        } else {
            C->why = "a calendar part not understood";
        }
    }
}

static const char *const month_names[] = { "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December" };
static const char *const day_names[] = { "Monday", "Tuesday", "Wednesday", "Thursday", "Friday",
    "Saturday", "Sunday" };

/* text with pgf's calendar shorthands (\%d- ...) replaced for day j */
static void shorthands(cbuf *o, const char *t, long j)
{
    long y, m, d;
    from_julian(j, &y, &m, &d);
    int wd = weekday(j);
    for (const char *p = t; *p; ) {
        if (p[0] == '\\' && p[1] == '%' && p[2] && p[3]) {
            char a = p[2], b = p[3];
            int done = 1;
            if (a == 'd' && (b == '-' || b == '=')) cb_printf(o, "%ld", d);
            else if (a == 'd' && b == '0') cb_printf(o, "%02ld", d);
            else if (a == 'm' && (b == '-' || b == '=')) cb_printf(o, "%ld", m);
            else if (a == 'm' && b == '0') cb_printf(o, "%02ld", m);
            else if (a == 'y' && (b == '-' || b == '=' || b == '0')) cb_printf(o, "%ld", y);
            else if (a == 'w' && b == '.') cb_printf(o, "%.3s", day_names[wd]);
            else if (a == 'w' && b == 't') cb_puts(o, day_names[wd]);
            else if (a == 'm' && b == '.') cb_printf(o, "%.3s", month_names[m - 1]);
            else if (a == 'm' && b == 't') cb_puts(o, month_names[m - 1]);
            else done = 0;
            if (done) { p += 4; continue; }
        }
        cb_put(o, p, 1);
        p++;
    }
}

static double dim(cal *C, const char *s, const char *dflt, int line)
{
    const char *t = s ? s : dflt;
    C->T->cmd_line = line;
    return tk_eval_dim(C->T, t, strlen(t), 0);
}

/* code with \tikzdaytext, \tikzmonthtext and \tikzyeartext in place (the
 * days run after all are written, so no macro can hold one day's text) */
static void day_code(cal *C, cbuf *o, const char *code, long j)
{
    static const char *const mac[] = { "\\tikzdaytext", "\\tikzmonthtext", "\\tikzyeartext" };
    const char *tm[3] = { C->daytext ? C->daytext : "\\%d-", C->monthtext ? C->monthtext : "\\%mt",
                          C->yeartext ? C->yeartext : "\\%y0" };
    cbuf t = { 0 };
    for (const char *p = code; *p; ) {
        int k;
        for (k = 0; k < 3; k++) {
            size_t l = strlen(mac[k]);
            if (strncmp(p, mac[k], l) == 0 && !((p[l] >= 'a' && p[l] <= 'z') || (p[l] >= 'A' && p[l] <= 'Z'))) {
                cb_puts(&t, tm[k]);
                p += l;
                break;
            }
        }
        if (k == 3) cb_put(&t, p++, 1);
    }
    if (t.s) shorthands(o, t.s, j);
    free(t.s);
}

static void cal_free(cal *C)
{
    free(C->name); free(C->at); free(C->dates);
    free(C->xs); free(C->ys); free(C->mxs); free(C->mys);
    free(C->daytext); free(C->monthtext); free(C->yeartext);
    free(C->pass.s); free(C->days.s);
    for (size_t k = 0; k < C->nifs; k++) {
        free(C->ifs[k].cond);
        for (int b = 0; b < 2; b++) { free(C->ifs[k].opts[b]); free(C->ifs[k].code[b]); }
    }
    free(C->ifs);
}

void tk_calendar(tikz *T, const char *text, int line)
{
    cal C = { 0 };
    C.T = T;
    size_t n = strlen(text);
    char *src = dup_n(text, n);     /* the expander's buffer is reused by the days' statements */
    cal_parse(&C, src, n);
    long j0 = 0, j1 = -1;
    if (!C.why) {
        const char *to = C.dates ? tk_memmem(C.dates, strlen(C.dates), "to") : NULL;
        if (!to) C.why = "no dates=A to B";
        else if (parse_date(C.dates, (size_t)(to - C.dates), 2000, &j0) != 0 ||
                 parse_date(to + 2, strlen(to + 2), 2000, &j1) != 0)
            C.why = "dates not of the form YYYY-MM-DD to YYYY-MM-DD";
        else if (j1 - j0 >= CAL_MAX_DAYS)
            C.why = "more than 4000 days";
    }
    for (long j = j0; !C.why && j <= j1; j++)
        for (size_t k = 0; k < C.nifs && !C.why; k++)
            if (date_matches(C.ifs[k].cond, strlen(C.ifs[k].cond), j) < 0)
                C.why = "a date condition not evaluated here";
    if (C.why) {
        char s[200];
        snprintf(s, sizeof s, "\\calendar %.160s", src);
        tk_unparsed(T, line, s, C.why);
        free(src);
        cal_free(&C);
        return;
    }
    double xs = dim(&C, C.xs, "3.5ex", line), ys = dim(&C, C.ys, "3ex", line);
    double mxs = dim(&C, C.mxs, "9ex", line), mys = dim(&C, C.mys, "9ex", line);
    int every_day = tk_find_style(T, "every day", 9) != NULL;
    int every_month = tk_find_style(T, "every month", 11) != NULL;
    /* the arrangement's width in days (tikz@lib@cal@width) */
    double width = C.arr == ARR_RIGHT || C.arr == ARR_LEFT ? 30 : C.arr == ARR_WEEK ? 7 :
                   C.arr == ARR_MONTH ? 37 : 1;
    cbuf code = { 0 };
    cb_puts(&code, "\\begin{scope}[");
    if (C.pass.n) { cb_put(&code, C.pass.s, C.pass.n); cb_puts(&code, ","); }
    cb_printf(&code, "shift={(%s)}] ", C.at ? C.at : "0,0");
    double x = 0, y = 0;
    long month_start = 0;
    for (long j = j0; j <= j1; j++) {
        long yy, mm, dd;
        from_julian(j, &yy, &mm, &dd);
        int wd = weekday(j);
        /* execute before day scope */
        if (dd == 1 && j != j0) {
            if (C.arr == ARR_DOWN || C.arr == ARR_WEEK || C.arr == ARR_MONTH) y -= mys;
            else if (C.arr == ARR_UP) y += mys;
            else if (C.arr == ARR_RIGHT) x += mxs;
            else if (C.arr == ARR_LEFT) x -= mxs;
        }
        if (C.label && dd == 1) {
            /* the month's label, \node[every month]{\tikzmonthtext} */
            int a = C.label - 1;
            double lx = x + labels[a].wf * (width - 1) * xs, ly = y + labels[a].yf * ys;
            if (labels[a].dx) lx += dim(&C, labels[a].dx, "0pt", line);
            cb_printf(&code, "\\begin{scope}[xshift=%.5fpt,yshift=%.5fpt] \\node[%s%s]{", lx, ly,
                      labels[a].opts, every_month ? ",every month" : "");
            shorthands(&code, C.monthtext ? C.monthtext : "\\%mt", j);
            cb_puts(&code, "}; \\end{scope} ");
        }
        if (C.arr == ARR_MONTH) {
            if (dd == 1) month_start = wd;
            if (j == j0) month_start = weekday(j - dd + 1);
        }
        /* execute at begin day scope */
        double bx = 0;
        if (C.arr == ARR_WEEK) bx = xs * wd;
        else if (C.arr == ARR_MONTH) bx = xs * (double)(dd + month_start - 1);
        cb_printf(&code, "\\begin{scope}[xshift=%.5fpt,yshift=%.5fpt] ", x + bx, y);
        int open = 1;
        for (size_t k = 0; k < C.nifs; k++) {
            int b = date_matches(C.ifs[k].cond, strlen(C.ifs[k].cond), j) ? 0 : 1;
            if (C.ifs[k].opts[b]) {
                cb_printf(&code, "\\begin{scope}[%s] ", C.ifs[k].opts[b]);
                open++;
            }
            if (C.ifs[k].code[b]) {
                day_code(&C, &code, C.ifs[k].code[b], j);
                cb_puts(&code, " ");
            }
        }
        /* every day's default style is anchor=base east; a document's
         * every day/.style replaces it (days= appends to either) */
        cb_puts(&code, every_day ? "\\node[every day" : "\\node[anchor=base east");
        if (C.days.n) { cb_puts(&code, ","); cb_put(&code, C.days.s, C.days.n); }
        if (C.name && *C.name) cb_printf(&code, ",name={%s-%04ld-%02ld-%02ld}", C.name, yy, mm, dd);
        cb_puts(&code, "]{");
        shorthands(&code, C.daytext ? C.daytext : "\\%d-", j);
        cb_puts(&code, "}; ");
        while (open--) cb_puts(&code, "\\end{scope} ");
        /* execute after day scope */
        if (C.arr == ARR_DOWN) y -= ys;
        else if (C.arr == ARR_UP) y += ys;
        else if (C.arr == ARR_RIGHT) x += xs;
        else if (C.arr == ARR_LEFT) x -= xs;
        else if (C.arr == ARR_WEEK && wd == 6) y -= ys;
    }
    cb_puts(&code, "\\end{scope} ");
    free(src);
    cal_free(&C);
    tk_run_code(T, code.s, code.n, line);
    free(code.s);
}
