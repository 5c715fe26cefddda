/* Unit tests for grammar/pgfmath.h, the pgfmath expression evaluator.
 * Expected values are exact (1e-9 relative tolerance); where pgf itself was consulted
 * (pgf 3.1.10 in TeX Live), the comment gives pgf's printed result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grammar/pgfmath.h"

static int failures, checks;

#define PT_CM (7227.0 / 254.0)
#define PM_PI 3.14159265358979323846

static int close_to(double got, double want)
{
    if (got == want)
        return 1;
    return fabs(got - want) <= 1e-9 * fabs(want) || (want == 0 && fabs(got) < 1e-12);
}

/* expr evaluates to want, with has_unit == unit */
static void ok(const char *expr, double want, int unit, int line)
{
    double v = -12345;
    int u = -1;
    char err[200] = "";
    checks++;
    if (pgfmath_eval(expr, strlen(expr), &v, &u, err, sizeof err) != 0) {
        printf("test_pgfmath.c:%d: '%s': unexpected error: %s\n", line, expr, err);
        failures++;
    } else if (!close_to(v, want) || u != unit) {
        printf("test_pgfmath.c:%d: '%s': got %.17g (unit %d), want %.17g (unit %d)\n", line,
               expr, v, u, want, unit);
        failures++;
    }
}

/* expr fails at column col (0: any column) with a message containing msg */
static void bad(const char *expr, size_t len, size_t col, const char *msg, int line)
{
    double v;
    int u;
    char err[200] = "", err2[200] = "";
    size_t c = 0;
    checks++;
    if (pgfmath_eval_pos(expr, len, &v, &u, err, sizeof err, &c) == 0) {
        printf("test_pgfmath.c:%d: '%.60s': expected an error, got %.17g\n", line, expr, v);
        failures++;
        return;
    }
    if ((col && c != col) || !strstr(err, msg)) {
        printf("test_pgfmath.c:%d: '%.60s': got error at column %zu '%s', want column %zu "
               "'%s'\n", line, expr, c, err, col, msg);
        failures++;
    }
    /* pgfmath_eval reports the same error prefixed with its column */
    if (pgfmath_eval(expr, len, &v, &u, err2, sizeof err2) == 0
        || strncmp(err2, "column ", 7) != 0 || !strstr(err2, err)) {
        printf("test_pgfmath.c:%d: '%.60s': pgfmath_eval said '%s'\n", line, expr, err2);
        failures++;
    }
}

static void dim(const char *s, int want_rc, double want, int line)
{
    double v = -12345;
    int rc = pgfmath_dimen(s, strlen(s), &v);
    checks++;
    if (rc != want_rc || (rc == 0 && !close_to(v, want))) {
        printf("test_pgfmath.c:%d: pgfmath_dimen('%s') = %d, %.17g; want %d, %.17g\n", line,
               s, rc, v, want_rc, want);
        failures++;
    }
}

#define OK(e, want) ok(e, want, 0, __LINE__)
#define OKU(e, want) ok(e, want, 1, __LINE__)
#define BAD(e, col, msg) bad(e, strlen(e), col, msg, __LINE__)
#define DIM(s, want) dim(s, 0, want, __LINE__)
#define NODIM(s) dim(s, -1, 0, __LINE__)

static void test_numbers(void)
{
    OK("1", 1);
    OK("123", 123);
    OK(".5", 0.5);
    OK("1.", 1);
    OK("  42  ", 42);
    OK("+3", 3);
    OK(" + 3 ", 3);
    OK("1e3", 1000);
    OK("2.5E-2", 0.025);
    OK("2e+3", 2000);
    OK("2 e3", 2000);           /* pgf skips spaces inside numbers */
    OK("0x1F", 31);
    OK("0b101", 5);
    OK("0x1e", 30);
    OK("010", 10);              /* pgf's fast path: digits only, decimal */
    OK("010+0", 8);             /* pgf: octal inside an expression */
    OK("0.5+0", 0.5);
    OK("010e1", 100);
    OK("pi", PM_PI);
    OK("e", 2.718281828459045);
    OK("2*e", 2 * 2.718281828459045);
    OK("true+1", 2);
    OK("false", 0);
    OK("{1+2}", 3);             /* pgf strips braces around the whole expression */
    OK("12345678901234567890", 12345678901234567890.0);
    OK("0.000001", 1e-6);
}

static void test_operators(void)
{
    OK("1+2*3", 7);
    OK("(1+2)*3", 9);
    OK("7/2", 3.5);
    OK("12/2/3", 2);
    OK("3-2-1", 0);
    OK("2^10", 1024);
    OK("2^3^2", 64);            /* pgf: ^ is left associative */
    OK("-2^2", -4);
    OK("2^-2", 0.25);
    OK("2^-3*4", 1.0 / 4096);   /* pgf: unary minus takes 3*4 */
    OK("2^+3*4", 32);
    OK("-3+2", -1);
    OK("--2", 2);
    OK("2*-3", -6);
    OK("-(2)", -2);
    OK("2^0.5", sqrt(2.0));
    OK("(-2)^3", -8);
    OK("1<2", 1);
    OK("2<1", 0);
    OK("2>=2", 1);
    OK("1<=0", 0);
    OK("1==1", 1);
    OK("1!=1", 0);
    OK("0.1+0.2==0.3", 1);      /* compared in scaled points, as TeX */
    OK("1<2<3", 1);
    OK("3>2>1", 0);
    OK("1<2==1", 1);
    OK("1&&0", 0);
    OK("0||2", 1);
    OK("!0", 1);
    OK("!2^2", 0);              /* pgf: prefix ! binds tighter than ^ */
    OK("!1 || 1", 1);
    OK("1 || 0 && 0", 0);       /* pgf: && and || share one level */
    OK("1 ? 2 : 3", 2);
    OK("0 ? 2 : 3", 3);
    OK("1 > 0 ? 5 : 6", 5);
    OK("1 ? 2 : 3 ? 4 : 5", 4); /* pgf: ?: is left associative */
    OK("0?1:2?3:4", 3);
    OK("1 ? 2 ? 3 : 4 : 5", 3);   /* pgf fails on this one; nesting is the sane reading */
    OK("3!", 6);
    OK("3!!", 720);
    OK("-3!", -6);
    OK("2*3!", 12);
    OK("2^3!", 40320);
    OK("3!=2", 1);              /* != wins over postfix ! */
    OK("pi r", 180);
    OK("2r", 360 / PM_PI);
    OK("5 r", 900 / PM_PI);
}

static void test_functions(void)
{
    OK("sin(30)", 0.5);
    OK("sin 30", 0.5);
    OK("sin 30^2", 0.25);
    OK("sin(-30)", -0.5);
    OK("sin(180)", 0);
    OK("sin(45)", sqrt(0.5));
    OK("cos(60)", 0.5);
    OK("cos(90)", 0);
    OK("cos(-720)", 1);
    OK("tan(45)", 1);
    OK("tan(135)", -1);
    OK("tan(60)", sqrt(3.0));
    OK("sec(60)", 2);
    OK("cosec(30)", 2);
    OK("cot(45)", 1);
    OK("asin(1)", 90);
    OK("acos(0)", 90);
    OK("acos(-1)", 180);
    OK("atan(1)", 45);
    OK("atan2(1,1)", 45);
    OK("atan2(1,2)", atan2(1.0, 2.0) * 180 / PM_PI);
    OK("atan2(0,-1)", 180);
    OK("atan2(-1,0)", -90);
    OK("atan2(0,0)", 90);       /* pgf's convention */
    OK("sinh(0)", 0);
    OK("cosh(0)", 1);
    OK("tanh(0)", 0);
    OK("deg(pi)", 180);
    OK("rad(180)", PM_PI);
    OK("radians(pi)", 180);     /* pgf's radians converts to degrees, like deg */
    OK("exp(1)", 2.718281828459045);
    OK("ln(e)", 1);
    OK("log10(1000)", 3);
    OK("log2(8)", 3);
    OK("sqrt(16)", 4);
    OK("pow(2,10)", 1024);
    OK("veclen(3,4)", 5);
    OK("abs(-2.5)", 2.5);
    OK("sign(-3)", -1);
    OK("sign(0)", 0);
    OK("round(2.5)", 3);
    OK("round(-2.5)", -3);
    OK("floor(-2.5)", -3);
    OK("ceil(-2.5)", -2);
    OK("int(-3.7)", -3);
    OK("frac(3.75)", 0.75);
    OK("frac(-3.4)", 0.4);      /* pgf: the digits after the point */
    OK("real(2)", 2);
    OK("min(3,-1,2)", -1);
    OK("max(1,5,3)", 5);
    OK("max(2)", 2);
    OK("max(1,2,3,4,5,-6)", 5);
    OK("min(4, 5, 6, 1, 2)", 1);
    OK("max(1,min(2,3),4)+1", 5);
    OK("mod(-7,3)", -1);
    OK("Mod(-7,3)", 2);
    OK("Mod(7,-3)", 1);
    OK("div(-7,2)", -3);
    OK("gcd(12,18)", 6);
    OK("factorial(5)", 120);
    OK("isprime(7)", 1);
    OK("isprime(9)", 0);
    OK("iseven(-4)", 1);
    OK("isodd(3)", 1);
    OK("reciprocal(4)", 0.25);
    OK("neg(2)", -2);
    OK("add(1,2)", 3);
    OK("notless(2,2)", 1);
    OK("ifthenelse(0,1,2)", 2);
    OK("approxequalto(1,1.00001)", 1);
    OK("sin (30) + 1", 1.5);
    OK("max (1,2)^2", 4);
}

static void test_units(void)
{
    OKU("1cm", PT_CM);
    OKU("2*3cm", 6 * PT_CM);    /* only the number is scaled: 170.71653pt */
    OKU("2 cm", 2 * PT_CM);
    OKU("-.1cm", -0.1 * PT_CM);
    OKU("1in", 72.27);
    OKU("1mm", PT_CM / 10);
    OKU("1bp", 72.27 / 72);
    OKU("1pc", 12);
    OKU("1dd", 1238.0 / 1157);
    OKU("1cc", 12 * 1238.0 / 1157);
    OKU("1sp", 1.0 / 65536);
    OKU("3pt", 3);
    OKU("117.43126pt/2", 58.71563);
    OKU("2em", 22.8);   /* Open Sans at scale 0.95: 1em = 11.4pt */
    OKU("1ex", 6.10128);
    OKU("3 + 2pt", 5);
    OKU("1cm/1cm", 1);
    OKU("010pt", 10);
    OKU("2mu", 2);
    OKU("sin(30)*2cm", PT_CM);
    OKU("{ {2pt} }", 2);
    OK("scalar(1cm)+1", PT_CM + 1); /* scalar drops the flag when evaluated, as pgf: */
    OK("1pt+scalar(2)", 3);         /* pgf: 3.0, units not declared */
    OKU("scalar(2)+1pt", 3);        /* pgf: 3.0, units declared */
    pgfmath_set_font(10, 4.3);
    OKU("2em+1ex", 24.3);
    pgfmath_set_font(-1, NAN);  /* ignored */
    OKU("1em", 10);
    pgfmath_set_font(11.4, 6.10128);
    OKU("1em", 11.4);
}

static void test_errors(void)
{
    char deep[100001];
    char ok200[403], bad201[405];
    double v;

    BAD("1/0", 2, "division by zero");
    BAD("0 ? 1/0 : 1", 6, "division by zero"); /* both branches are evaluated, as pgf */
    BAD("mod(7,0)", 1, "division by zero");
    BAD("sqrt(-1)", 1, "sqrt");
    BAD("ln(0)", 1, "ln");
    BAD("asin(2)", 1, "asin");
    BAD("tan(90)", 1, "tan");
    BAD("0^-1", 2, "zero raised");
    BAD("(-8)^(1/3)", 5, "non-integer power");
    BAD("1e400", 1, "too large");
    BAD("10^400", 3, "too large");
    BAD("factorial(200)", 1, "too large");
    BAD("foo(3)", 1, "unknown function 'foo'");
    BAD("2*bar", 3, "unknown function 'bar'");
    BAD("\\QP/2", 1, "unexpanded TeX macro '\\QP'");
    BAD("1+\\pgfmathresult", 3, "unexpanded TeX macro");
    BAD("1 2", 3, "unexpected '2'");
    BAD("2 pi", 3, "missing operator");
    BAD("2(3)", 2, "unexpected '('");
    BAD("1+", 3, "unexpected end of expression");
    BAD("", 1, "unexpected end of expression");
    BAD("   ", 4, "unexpected end of expression");
    BAD("(", 2, "missing ')'");
    BAD("sin(30", 7, "missing ')'");
    BAD(")", 1, "unexpected ')'");
    BAD("sin(30))", 8, "unexpected ')'");
    BAD("sin()", 1, "sin takes 1 argument, not 0");
    BAD("1+*2", 3, "unexpected '*'");
    BAD("1 = 2", 3, "unexpected '='");
    BAD("1 & 2", 3, "unexpected '&'");
    BAD("atan2(1)", 1, "atan2 takes 2 arguments, not 1");
    BAD("sin(1,2)", 1, "sin takes 1 argument, not 2");
    BAD("(1,2)", 1, "only allowed as the arguments of a function");
    BAD("max((1,2),3)", 5, "only allowed as the arguments");
    /* pgf's generator (pgfmathfunctions.random.code.tex), values as TeX holds them; the
       sequence for seed 42 is the one TeX draws in tests/tikz2ir/metamorphic/random.tex */
    pgfmath_set_seed(42);
    OK("rnd", 0.2405242919921875);              /* z = 2924082, 0.24053pt in sp */
    OK("rnd", 0.3296356201171875);
    OK("rnd", 0.06805419921875);
    OK("rand", 0.0654754638671875);
    OK("random(3,8)", 4);
    OK("random()", 0.1549530029296875);
    OK("random(5)+0*rnd", 4);                   /* random(5) draws first */
    pgfmath_set_seed(0);                        /* pgf's generator stays at 0 */
    OK("rnd", 0);
    pgfmath_set_seed(1);
    OK("random(10,2)", 2 + 69621 % 9);          /* bounds swapped, as pgf */
    if (pgfmath_get_seed() != 69621) { printf("test_pgfmath.c:%d: seed %ld, want 69621\n", __LINE__, pgfmath_get_seed()); failures++; }
    checks++;
    BAD("rand()", 5, "unexpected '('");   /* rnd and rand are constants: pgf's too */
    BAD("random(1,2,3)", 1, "random takes at most 2 arguments, not 3");
    BAD("width(\"x\")", 1, "not supported");
    BAD("\"a\"", 1, "quoted strings");
    BAD("{1}+{2}", 1, "braces");
    BAD("a[1]", 1, "unknown function 'a'");
    BAD("08+1", 2, "octal");
    BAD("1.2.3", 1, "malformed number");
    BAD("1e3cm", 4, "unexpected 'cm'"); /* pgf: no unit after an exponent */
    BAD("0x", 1, "hexadecimal digits");
    BAD("1 ? 2", 6, "unexpected end");
    BAD("3 ! = 2", 5, "unexpected '='");
    BAD("1+\x01", 3, "unexpected '\\x01'");
    bad("1\0+2", 4, 2, "unexpected '\\x00'", __LINE__);

    /* deep nesting fails fast, without recursion */
    memset(deep, '(', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    BAD(deep, 201, "nested more than 200");
    memset(deep, '-', sizeof deep - 1);
    deep[sizeof deep - 2] = '1';
    BAD(deep, 0, "nested too deeply");
    memset(ok200, '(', 200);
    ok200[200] = '1';
    memset(ok200 + 201, ')', 200);
    ok200[401] = '\0';
    OK(ok200, 1);
    memset(bad201, '(', 201);
    bad201[201] = '1';
    memset(bad201 + 202, ')', 201);
    bad201[403] = '\0';
    BAD(bad201, 201, "nested more than 200");

    /* NULL outputs and short error buffers are fine */
    checks++;
    if (pgfmath_eval("1+1", 3, NULL, NULL, NULL, 0) != 0
        || pgfmath_eval("1+", 2, NULL, NULL, NULL, 0) != -1
        || pgfmath_eval(NULL, 0, &v, NULL, NULL, 0) != -1) {
        printf("test_pgfmath.c:%d: NULL arguments mishandled\n", __LINE__);
        failures++;
    }
    {
        char small[8];
        checks++;
        memset(small, 'x', sizeof small);
        if (pgfmath_eval("foo", 3, &v, NULL, small, sizeof small) != -1
            || strcmp(small, "column ") != 0) {
            printf("test_pgfmath.c:%d: error truncation: '%.8s'\n", __LINE__, small);
            failures++;
        }
    }
    /* the length, not a NUL, ends the expression */
    checks++;
    if (pgfmath_eval("1+2junk", 3, &v, NULL, NULL, 0) != 0 || v != 3) {
        printf("test_pgfmath.c:%d: length not honoured\n", __LINE__);
        failures++;
    }
}

/* ---- the scanner (grammar/pgfmath.l) ------------------------------------------------- */

/* A number's unit is spelled out in the scanner's rules: every two-byte word after a
   number is a unit exactly when pgfmath_unit knows it, and then the value is the unit's.
   The braces make the parser read it (the fast path takes no braces). */
static void test_scanner_units(void)
{
    static const char *const fmt[] = { "{1%c%c}", "{1 %c%c}", "{.5%c%c}" };
    static const double num[] = { 1, 1, 0.5 };
    int a, b;
    size_t f;
    for (f = 0; f < sizeof fmt / sizeof fmt[0]; f++)
        for (a = 1; a < 256; a++)
            for (b = 1; b < 256; b++) {
                char e[16];
                double v = 0, unit = 0;
                int u = 0, rc, known;
                size_t n = (size_t)snprintf(e, sizeof e, fmt[f], a, b);
                char w[2];
                w[0] = (char)a;
                w[1] = (char)b;
                known = pgfmath_unit(w, 2, &unit) == 0;
                rc = pgfmath_eval(e, n, &v, &u, NULL, 0);
                checks++;
                if ((rc == 0 && u == 1) != known || (known && v != num[f] * unit)) {
                    printf("test_pgfmath.c:%d: '%s': rc %d %.17g (unit %d), unit known %d\n",
                           __LINE__, e, rc, v, u, known);
                    failures++;
                }
            }
}

/* Tokens end where pgf ends them (a word after a number that is no unit, "0bp", postfix r
   and !); long texts and state left by an evaluation that stopped at an error. */
static void test_scanner(void)
{
    char *big;
    size_t i, n = 20000;

    BAD("-2EX", 3, "unexpected 'EX'");
    BAD("2EX+1", 2, "unexpected 'EX'");
    BAD("2 eq", 3, "unexpected 'eq'");
    BAD("2e5m", 4, "unexpected 'm'");
    BAD("2 rad", 4, "unexpected 'ad'");
    BAD("0bp", 1, "missing binary digits after '0b'");
    BAD("0b pt", 1, "missing binary digits after '0b'");
    BAD("0B1p", 4, "unexpected 'p'");
    BAD("0x1G", 4, "unexpected 'G'");
    BAD("1.2.3pt", 1, "malformed number '1.2.3'");
    BAD("1..2", 1, "malformed number '1..2'");
    BAD("..5", 1, "unexpected '.'");
    BAD("1 ! = 2", 5, "unexpected '='");
    BAD("1+\\", 3, "unexpanded TeX macro '\\'");
    BAD("\\1", 1, "unexpanded TeX macro '\\1'");
    BAD("\\@x_", 1, "unexpanded TeX macro '\\@x'");
    bad("\\\0", 2, 1, "unexpanded TeX macro '\\\\x00'", __LINE__);
    OKU("2 em", 22.8);
    OKU("0 bp", 0);
    OK("2e3", 2000);
    OK("2 r", 2 * 180 / PM_PI);
    OK("pi rr", 180 * 180 / PM_PI);
    OK("3!!", 720);
    OK("!0", 1);
    OK("!!3", 1);
    OK("3!=2", 1);
    /* after an error in operator position the next evaluation starts afresh */
    BAD("1 2", 3, "unexpected '2'");
    BAD("r", 1, "unknown function 'r'");
    BAD("1 2", 3, "unexpected '2'");
    OK("!0", 1);

    /* long texts (the scanner copies them to the heap) */
    big = malloc(n + 1);
    if (big == NULL)
        return;
    memset(big, 'a', n);
    big[n] = '\0';
    BAD(big, 1, "unknown function 'aaaaaaaaaaaaaaaaaaaaaaaa...'");
    memset(big, ' ', n);
    big[n - 1] = '1';
    OK(big, 1);
    for (i = 0; i + 1 < n; i++) /* 1+1+...+1, n - 1 bytes */
        big[i] = i % 2 ? '+' : '1';
    big[n - 1] = '\0';
    OK(big, (double)(n / 2));
    free(big);
}

static void test_dimen(void)
{
    double v;
    DIM("1.625in", 117.43875);
    DIM("-.1cm", -0.1 * PT_CM);
    DIM("3pt", 3);
    DIM("2 cm", 2 * PT_CM);
    DIM("  3 pt  ", 3);
    DIM("1,5pt", 1.5);
    DIM("--3pt", 3);
    DIM("- +3pt", -3);
    DIM("3truept", 3);
    DIM("1PT", 1);
    DIM("1em", 11.4);
    DIM("1sp", 1.0 / 65536);
    DIM("0.5\tbp", 0.5 * 72.27 / 72);
    NODIM("3");
    NODIM("pt");
    NODIM("3 pt x");
    NODIM("3mu");
    NODIM("1.2.3pt");
    NODIM("");
    NODIM("3 p t");
    NODIM("1e3pt");
    checks++;
    if (pgfmath_unit("cm", 2, &v) != 0 || !close_to(v, PT_CM) || pgfmath_unit("xx", 2, &v) != -1
        || pgfmath_unit("CM", 2, &v) != -1 || pgfmath_unit("c", 1, &v) != -1) {
        printf("test_pgfmath.c:%d: pgfmath_unit\n", __LINE__);
        failures++;
    }
}

/* ---- the fast path against the parser ------------------------------------------------ */

/* pgfmath_eval reads plain numbers ("1", ".25", "-2 in", ".1mm") without the parser; the
   value, the unit flag and success must be exactly the parser's.  "{expr}" forces the
   parser (the fast path takes no braces; the parser strips the pair), so the two are
   compared bit for bit.  An expression of only digits and periods is pgf's fast path in
   both (decimal even with a leading 0, which the parser would read as octal): it is
   compared with strtod, which rounds correctly as the evaluator does. */
static void same_as_parser(const char *e, size_t n, int line)
{
    char braced[80];
    double v1 = -1, v2 = -2;
    int u1 = -1, u2 = -2, r1, r2;
    size_t i, points = 0, digits = 0;
    int plain = n > 0;
    checks++;
    for (i = 0; i < n; i++) {
        if (e[i] == '.')
            points++;
        else if (e[i] >= '0' && e[i] <= '9')
            digits++;
        else
            plain = 0;
    }
    r1 = pgfmath_eval(e, n, &v1, &u1, NULL, 0);
    if (plain) {
        char buf[80];
        int valid = points <= 1 && digits > 0;
        memcpy(buf, e, n);
        buf[n] = '\0';
        v2 = valid ? strtod(buf, NULL) : 0;
        if ((r1 == 0) != valid || (valid && (memcmp(&v1, &v2, sizeof v1) != 0 || u1 != 0))) {
            printf("test_pgfmath.c:%d: '%.*s': got rc %d %.17g (unit %d), want %s %.17g\n",
                   line, (int)n, e, r1, v1, u1, valid ? "ok" : "an error", v2);
            failures++;
        }
        return;
    }
    if (n + 3 > sizeof braced)
        return;
    braced[0] = '{';
    memcpy(braced + 1, e, n);
    braced[n + 1] = '}';
    r2 = pgfmath_eval(braced, n + 2, &v2, &u2, NULL, 0);
    if (r1 != r2 || (r1 == 0 && (memcmp(&v1, &v2, sizeof v1) != 0 || u1 != u2))) {
        printf("test_pgfmath.c:%d: '%.*s': rc %d %.17g (unit %d), parser rc %d %.17g (unit %d)\n",
               line, (int)n, e, r1, v1, u1, r2, v2, u2);
        failures++;
    }
    /* pgfmath_eval_pos takes the same path */
    r2 = pgfmath_eval_pos(e, n, &v2, &u2, NULL, 0, NULL);
    if (r1 != r2 || (r1 == 0 && (memcmp(&v1, &v2, sizeof v1) != 0 || u1 != u2))) {
        printf("test_pgfmath.c:%d: '%.*s': pgfmath_eval_pos differs\n", line, (int)n, e);
        failures++;
    }
}

static void test_fast_path(void)
{
    static const char *const edge[] = {
        "1", "0", "00", "010", "-010", "+010", "010pt", "-010pt", "0bp", "0 bp", "0Bp", "0x1F",
        "0X1", "0b1", " 1", "1 ", " 1 ", "- 1", "-  1pt", "--1", "+-1", "-+1", "+ 1", ".",
        "-.", "-.5", ".5", "5.", "-5.", "5.pt", ".5pt", "1.2.3", "-1.2.3", "1e3", "1E3",
        "1e3cm", "2em", "2 ex", "-2EX", "2r", "2 r", "-2r", "2 pt x", "2 pt 3", "1 2", "1pt2",
        "1ptpt", "1p", "1 p", "-1p", "0.0000000000000001", "-0.0000000000000001",
        "12345678901234567", "-12345678901234567", "123456789012345", "-123456789012345",
        "1234567890123456", "-1234567890123456", "-1234567890123456pt", "1,5", "-1,5",
        "\t-\t2\tcm\t", "\n1\n", "\v-1\f", "\r2pt\r", "2PT", "-2Pt", "1mu", "2sp", "-1.5nd",
        "1nc", "1cc", "1dd", "1pc", "1px", "1bp", "1in", "1mm", "1cm", "-2 in", ".1mm",
        "99999999999999999999999999999999999999999999999999999999999999999999999999pt",
        "-0", "-0pt", "-0.0", "0.", "-", "+", "", " ", "pt", "-pt", "1_", "1 _x", "2in/2",
        "-1.625in/2", "1+1", "-1-1", "1-", "(1)", "-(1)", "1\\x", "1!", "-3!", "1 !", "1?",
        "2.5e-1", "1.e2", ".e2", "1 e 2", "-0x10", "- 0b10", "1 mm", "1m m", "1 m",
    };
    static const char alphabet[] = "0123456789..  \t--++ptcmminexbpsdr0010xXB,e/_";
    unsigned long x = 12345;
    size_t i;
    for (i = 0; i < sizeof edge / sizeof edge[0]; i++)
        same_as_parser(edge[i], strlen(edge[i]), __LINE__);
    same_as_parser("1\0", 2, __LINE__); /* a NUL byte is invalid */
    same_as_parser("-1\0pt", 5, __LINE__);
    for (i = 0; i < 300000; i++) {
        char e[24];
        size_t n, k;
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        n = (x >> 33) % 12;
        for (k = 0; k < n; k++) {
            x = x * 6364136223846793005UL + 1442695040888963407UL;
            e[k] = alphabet[(x >> 33) % (sizeof alphabet - 1)];
        }
        same_as_parser(e, n, __LINE__);
    }
    /* number-shaped strings: [spaces][sign][spaces]digits[.digits][spaces][unit][spaces] */
    for (i = 0; i < 300000; i++) {
        static const char *const units[] = { "", "pt", "cm", "mm", "in", "bp", "pc", "dd",
                                             "cc", "sp", "px", "nd", "nc", "mu", "em", "ex",
                                             "PT", "xx", "e", "e5", "r" };
        char e[64];
        size_t n = 0, k, nd;
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        if (x >> 63)
            e[n++] = ' ';
        if ((x >> 60) & 1)
            e[n++] = (x >> 59) & 1 ? '-' : '+';
        if (((x >> 58) & 3) == 0)
            e[n++] = ' ';
        nd = (x >> 40) % 19;
        for (k = 0; k < nd; k++) {
            x = x * 6364136223846793005UL + 1442695040888963407UL;
            e[n++] = (x >> 61) == 0 ? '.' : (char)('0' + (x >> 33) % 10);
        }
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        if ((x >> 62) == 0)
            e[n++] = ' ';
        k = (x >> 33) % (sizeof units / sizeof units[0]);
        memcpy(e + n, units[k], strlen(units[k]));
        n += strlen(units[k]);
        if (((x >> 58) & 7) == 0)
            e[n++] = ' ';
        same_as_parser(e, n, __LINE__);
    }
    /* the units, all two-byte names: pgfmath_unit (case-sensitive) and pgfmath_dimen */
    {
        static const struct { const char *u; double pt; } units[] = {
            {"pt", 1.0}, {"in", 72.27}, {"cm", 7227.0 / 254.0}, {"mm", 7227.0 / 2540.0},
            {"bp", 7227.0 / 7200.0}, {"pc", 12.0}, {"dd", 1238.0 / 1157.0},
            {"cc", 14856.0 / 1157.0}, {"sp", 1.0 / 65536.0}, {"px", 7227.0 / 7200.0},
            {"nd", 685.0 / 642.0}, {"nc", 1370.0 / 107.0}, {"mu", 1.0}, {"em", 11.4},
            {"ex", 6.10128},
        };
        int a, b;
        for (a = 0; a < 256; a++)
            for (b = 0; b < 256; b++) {
                char u[2];
                double v = -1, want = 0;
                int found = 0, rc;
                size_t j;
                u[0] = (char)a;
                u[1] = (char)b;
                for (j = 0; j < sizeof units / sizeof units[0]; j++)
                    if (units[j].u[0] == u[0] && units[j].u[1] == u[1]) {
                        found = 1;
                        want = units[j].pt;
                    }
                checks++;
                rc = pgfmath_unit(u, 2, &v);
                if ((rc == 0) != found || (found && v != want)) {
                    printf("test_pgfmath.c:%d: pgfmath_unit '\\x%02X\\x%02X': rc %d %.17g\n",
                           __LINE__, a, b, rc, v);
                    failures++;
                }
            }
    }
}

int main(void)
{
    test_numbers();
    test_operators();
    test_functions();
    test_units();
    test_errors();
    test_scanner_units();
    test_scanner();
    test_dimen();
    test_fast_path();
    printf("test_pgfmath: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
