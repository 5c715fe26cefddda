/* pgfmath.y — the pgfmath expression evaluator (see pgfmath.h for the contract).
 *
 * A pure bison parser; its tokens come from the flex scanner grammar/pgfmath.l (through
 * pmlex below).  The precedence declarations below
 * reproduce pgf's operator-precedence table (pgfmathparser.code.tex): bison's shift/reduce
 * resolution by precedence is the same algorithm as pgf's operator stack, so the grouping
 * of every expression, including pgf's quirks (left-associative ^ and ?:, unary minus at
 * the level of binary minus), is the same as pgf's.  Values are computed in the semantic
 * actions; nothing recurses in C and nothing is allocated.
 */

%code top {
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Bison's parser stack grows up to this many entries (each pending operator, operand and
   parenthesis takes about one); beyond it parsing fails with "nested too deeply".  The
   lexer separately limits parentheses to PGFMATH_MAX_DEPTH. */
#define YYMAXDEPTH 2000
}

%code requires {
#include <stddef.h>
typedef struct pm_ctx pm_ctx;
/* A value: a number (n == 1) or a parenthesized list (n >= 2), which only function
   application accepts.  A list keeps its first three elements and its running min/max,
   which is all any pgf function needs.  fn is the function id of a FUNC token. */
typedef struct pm_val {
    double a[3];
    double mn, mx;
    int n;
    int fn;
} pm_val;

/* The state of one evaluation, shared by the parser (here) and its scanner (pgfmath.l).
   Columns (the locations' first_column and last_column, errcol) are 1-based byte offsets
   in the whole input s, also when only s[lo..hi) is parsed (pgf's outer braces stripped). */
struct pm_ctx {
    const char *s;      /* the whole input (columns are relative to it) */
    size_t pos, end;    /* the scanner's position (offset in s of its next byte) and the
                           end of the part being parsed */
    void *scanner;      /* the flex scanner reading s[pos..end) (pgfmath.l) */
    int depth;          /* open parentheses */
    int has_unit;
    int failed;
    size_t errcol;
    double result;
    char msg[200];
};
}

%code provides {
/* The scanner (grammar/pgfmath.l): pm_scan_parse runs pmparse over c->s[c->pos..c->end)
   with the thread's scanner; pm_scan_token is the scanner's pmlex. */
int pm_scan_parse(pm_ctx *c);
int pm_scan_token(PMSTYPE *lval, PMLTYPE *lloc, pm_ctx *c);

/* What the scanner's actions call (here).  A number token is one of these kinds; start and
   n are its offset in c->s and its length. */
enum { PM_K_DEC, PM_K_UNIT, PM_K_EXP, PM_K_HEX, PM_K_BIN, PM_K_BAD };
int pm_lex_number(pm_ctx *c, PMSTYPE *lval, int kind, size_t start, size_t n);
int pm_lex_name(pm_ctx *c, PMSTYPE *lval, size_t start, size_t n, int operator_position);
void pm_fail(pm_ctx *c, size_t col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void pm_quote(const char *s, size_t from, size_t to, char *out, size_t outlen);
}

%define api.pure full
%define api.prefix {pm}
%define api.token.prefix {PM_}
%define api.value.type {pm_val}
%define parse.error custom
%define parse.lac full
%locations
%param {pm_ctx *ctx}

%code {
#include "grammar/pgfmath.h"

static void pmerror(PMLTYPE *lloc, pm_ctx *ctx, const char *msg);

static void pm_number(pm_val *v, double x);

/* The parser's lexer: the flex scanner (pgfmath.l).  A token's value is the number 0
   unless the scanner sets it (NUM, FUNC). */
static int pmlex(PMSTYPE *lval, PMLTYPE *lloc, pm_ctx *c)
{
    lloc->first_line = lloc->last_line = 1;
    pm_number(lval, 0);
    if (c->failed) {
        lloc->first_column = lloc->last_column = (int)(c->pos + 1);
        return PM_PMerror;
    }
    return pm_scan_token(lval, lloc, c);
}

void pm_fail(pm_ctx *c, size_t col, const char *fmt, ...)
{
    va_list ap;
    if (c->failed)
        return; /* the first error is the one worth reporting */
    c->failed = 1;
    c->errcol = col;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
}

/* Quotes s[from..to) for a message: at most 24 bytes, non-printable bytes as \xNN. */
void pm_quote(const char *s, size_t from, size_t to, char *out, size_t outlen)
{
    size_t k = 0, i;
    for (i = from; i < to && k + 8 < outlen; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (i - from >= 24) {
            memcpy(out + k, "...", 3);
            k += 3;
            break;
        }
        if (ch >= 0x20 && ch < 0x7f) {
            out[k++] = (char)ch;
        } else {
            snprintf(out + k, outlen - k, "\\x%02X", ch);
            k += 4;
        }
    }
    out[k] = '\0';
}

enum {
    F_SIN, F_COS, F_TAN, F_SEC, F_COSEC, F_COT, F_ASIN, F_ACOS, F_ATAN, F_ATAN2,
    F_SINH, F_COSH, F_TANH, F_DEG, F_RAD, F_RADIANS, F_EXP, F_LN, F_LOG10, F_LOG2,
    F_SQRT, F_POW, F_VECLEN, F_ABS, F_SIGN, F_ROUND, F_FLOOR, F_CEIL, F_INT, F_FRAC,
    F_REAL, F_MIN, F_MAX, F_MOD, F_MODP, F_DIV, F_GCD, F_FACTORIAL, F_ISPRIME,
    F_ISEVEN, F_ISODD, F_RECIPROCAL, F_NEG, F_ADD, F_SUBTRACT, F_MULTIPLY, F_DIVIDE,
    F_GREATER, F_LESS, F_EQUAL, F_NOTEQUAL, F_NOTLESS, F_NOTGREATER, F_AND, F_OR,
    F_NOT, F_IFTHENELSE, F_APPROX, F_SCALAR, F_RANDOM
};

static const struct pm_fn {
    const char *name;
    int id;
    int arity; /* -1: one or more */
} pm_fns[] = {
    {"sin", F_SIN, 1}, {"cos", F_COS, 1}, {"tan", F_TAN, 1}, {"sec", F_SEC, 1},
    {"cosec", F_COSEC, 1}, {"cot", F_COT, 1}, {"asin", F_ASIN, 1}, {"acos", F_ACOS, 1},
    {"atan", F_ATAN, 1}, {"atan2", F_ATAN2, 2}, {"sinh", F_SINH, 1}, {"cosh", F_COSH, 1},
    {"tanh", F_TANH, 1}, {"deg", F_DEG, 1}, {"rad", F_RAD, 1}, {"radians", F_RADIANS, 1},
    {"exp", F_EXP, 1}, {"ln", F_LN, 1}, {"log10", F_LOG10, 1}, {"log2", F_LOG2, 1},
    {"sqrt", F_SQRT, 1}, {"pow", F_POW, 2}, {"veclen", F_VECLEN, 2}, {"abs", F_ABS, 1},
    {"sign", F_SIGN, 1}, {"round", F_ROUND, 1}, {"floor", F_FLOOR, 1},
    {"ceil", F_CEIL, 1}, {"int", F_INT, 1}, {"frac", F_FRAC, 1}, {"real", F_REAL, 1},
    {"min", F_MIN, -1}, {"max", F_MAX, -1}, {"mod", F_MOD, 2}, {"Mod", F_MODP, 2},
    {"div", F_DIV, 2}, {"gcd", F_GCD, 2}, {"factorial", F_FACTORIAL, 1},
    {"isprime", F_ISPRIME, 1}, {"iseven", F_ISEVEN, 1}, {"isodd", F_ISODD, 1},
    {"reciprocal", F_RECIPROCAL, 1}, {"neg", F_NEG, 1}, {"add", F_ADD, 2},
    {"subtract", F_SUBTRACT, 2}, {"multiply", F_MULTIPLY, 2}, {"divide", F_DIVIDE, 2},
    {"greater", F_GREATER, 2}, {"less", F_LESS, 2}, {"equal", F_EQUAL, 2},
    {"notequal", F_NOTEQUAL, 2}, {"notless", F_NOTLESS, 2},
    {"notgreater", F_NOTGREATER, 2}, {"and", F_AND, 2}, {"or", F_OR, 2},
    {"not", F_NOT, 1}, {"ifthenelse", F_IFTHENELSE, 3}, {"approxequalto", F_APPROX, 2},
    {"scalar", F_SCALAR, 1}, {"random", F_RANDOM, -1},
};

static int pm_check_scalar(pm_ctx *c, const pm_val *v, const PMLTYPE *loc);
static int pm_finite(pm_ctx *c, double v, size_t col, const char *what);
static int pm_binary(pm_ctx *c, int op, const pm_val *x, const PMLTYPE *lx,
                     const PMLTYPE *lop, const pm_val *y, const PMLTYPE *ly, pm_val *out);
static int pm_apply(pm_ctx *c, const pm_val *f, const PMLTYPE *lf, const pm_val *arg,
                    const PMLTYPE *larg, pm_val *out);
static void pm_number(pm_val *v, double x);
static double pm_sp(double x);
}

%token END 0 "end of expression"
%token NUM "number"
%token FUNC "function"
%token LE "<=" GE ">=" EQ "==" NE "!=" AND "&&" OR "||"
%token NOT "prefix '!'" FACT "postfix '!'" DEGR "postfix 'r'"

/* pgf's precedence table, lowest first (pgf's numbers in comments). */
%precedence '?'                     /* 100 */
%precedence ':'                     /* 101 */
%left OR AND                        /* 200 */
%left '<' '>' LE GE EQ NE           /* 250 */
%left '+' '-'                       /* 500, and unary minus */
%precedence DEGR                    /* 600 */
%left '*' '/'                       /* 700 */
%precedence FACT                    /* 800 */
%left '^'                           /* 900 */
%precedence NOT                     /* 975 */
%precedence FUNC                    /* 1000 */
%precedence UPLUS                   /* unary plus is dropped by pgf: binds tightest */

%%

input
    : expr              { if (pm_check_scalar(ctx, &$1, &@1)) YYABORT;
                          ctx->result = $1.a[0]; }
    ;

expr
    : NUM               { $$ = $1; }
    | '(' list ')'      { $$ = $2; }
    | FUNC expr         { if (pm_apply(ctx, &$1, &@1, &$2, &@2, &$$)) YYABORT; }
    | FUNC '(' ')'      { pm_val none; pm_number(&none, 0); none.n = 0;
                          if (pm_apply(ctx, &$1, &@1, &none, &@2, &$$)) YYABORT; }
    | '-' expr %prec '-'
                        { if (pm_check_scalar(ctx, &$2, &@2)) YYABORT;
                          pm_number(&$$, -$2.a[0]); }
    | '+' expr %prec UPLUS
                        { if (pm_check_scalar(ctx, &$2, &@2)) YYABORT; $$ = $2; }
    | NOT expr          { if (pm_check_scalar(ctx, &$2, &@2)) YYABORT;
                          pm_number(&$$, pm_sp($2.a[0]) == 0); }
    | expr FACT         { pm_val f; f.fn = F_FACTORIAL;
                          if (pm_apply(ctx, &f, &@2, &$1, &@1, &$$)) YYABORT; }
    | expr DEGR         { pm_val f; f.fn = F_DEG;
                          if (pm_apply(ctx, &f, &@2, &$1, &@1, &$$)) YYABORT; }
    | expr '+' expr     { if (pm_binary(ctx, '+', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr '-' expr     { if (pm_binary(ctx, '-', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr '*' expr     { if (pm_binary(ctx, '*', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr '/' expr     { if (pm_binary(ctx, '/', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr '^' expr     { if (pm_binary(ctx, '^', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr '<' expr     { if (pm_binary(ctx, '<', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr '>' expr     { if (pm_binary(ctx, '>', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr LE expr      { if (pm_binary(ctx, 'l', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr GE expr      { if (pm_binary(ctx, 'g', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr EQ expr      { if (pm_binary(ctx, '=', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr NE expr      { if (pm_binary(ctx, 'n', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr AND expr     { if (pm_binary(ctx, '&', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr OR expr      { if (pm_binary(ctx, '|', &$1, &@1, &@2, &$3, &@3, &$$)) YYABORT; }
    | expr '?' expr ':' expr
                        { if (pm_check_scalar(ctx, &$1, &@1) || pm_check_scalar(ctx, &$3, &@3)
                              || pm_check_scalar(ctx, &$5, &@5)) YYABORT;
                          $$ = pm_sp($1.a[0]) != 0 ? $3 : $5; }
    ;

list
    : expr              { if (pm_check_scalar(ctx, &$1, &@1)) YYABORT; $$ = $1; }
    | list ',' expr     { if (pm_check_scalar(ctx, &$3, &@3)) YYABORT;
                          $$ = $1;
                          if ($$.n < 3) $$.a[$$.n] = $3.a[0];
                          if ($3.a[0] < $$.mn) $$.mn = $3.a[0];
                          if ($3.a[0] > $$.mx) $$.mx = $3.a[0];
                          if ($$.n < 1000000) $$.n++; }
    ;

%%

#define PM_PI 3.14159265358979323846

/* the IM class's text font: Open Sans at scale 0.95 (TM_FONT_SCALE), 12pt */
static double pm_em = 11.4;      /* its quad: 0.95 x 12pt */
static double pm_ex = 6.10128;   /* its x-height: 0.5352 (the TFM's) x 11.4pt */

/* pgf's pseudo-random generator (pgfmathfunctions.random.code.tex): Park and Miller's
   minimal standard LCG, z <- 69621 z mod (2^31 - 1), by Schrage's method as pgf computes it
   with TeX's integer division (truncating).  pgf seeds it with \time * \year; here the
   seed is 1 until pgfmath_set_seed. */
static long pm_rnd_z = 1;

void pgfmath_set_seed(long seed)
{
    pm_rnd_z = seed;
}

long pgfmath_get_seed(void)
{
    return pm_rnd_z;
}

static long pm_rnd_next(void)
{
    const long m = 2147483647, a = 69621, q = 30845, r = 23902;
    long z = pm_rnd_z;
    long t = (z - (z / q) * q) * a - (z / q) * r;
    if (t < 0)
        t += m;
    pm_rnd_z = t;
    return t;
}

/* A decimal with five fractional digits d (0 <= d <= 99999) as TeX reads "0.ddddd pt":
   round_decimals of tex.web, in units of 1/65536. */
static double pm_tex_frac5(long d)
{
    long a = 0;
    for (int k = 0; k < 5; k++) {
        a = (a + (d % 10) * 131072) / 10;
        d /= 10;
    }
    return (double)((a + 1) / 2) / 65536.0;
}

/* rnd (0 <= x <= 1) or rand (-1 <= x <= 1), as pgf: five decimals read as a TeX
   dimension (pgf's value is that multiple of 1/65536: 0.24053 is 0.2405242919921875,
   which pgf prints 0.24052). */
static double pm_rnd_value(int signed_)
{
    long z = pm_rnd_next();
    if (!signed_) {
        long b = z % 100001;
        return b == 100000 ? 1.0 : pm_tex_frac5(b);
    }
    long b = z % 200001 - 100000;
    long m = b < 0 ? -b : b;
    double v = m == 100000 ? 1.0 : pm_tex_frac5(m);
    return b < 0 ? -v : v;
}

long pgfmath_random_int(long lo, long hi)
{
    if (lo > hi) {
        long t = lo;
        lo = hi;
        hi = t;
    }
    long n = hi + 1 - lo;
    long z = pm_rnd_next();
    return n > 0 ? z % n + lo : lo;
}

void pgfmath_set_font(double em_pt, double ex_pt)
{
    if (isfinite(em_pt) && em_pt > 0)
        pm_em = em_pt;
    if (isfinite(ex_pt) && ex_pt > 0)
        pm_ex = ex_pt;
}

void pgfmath_get_font(double *em_pt, double *ex_pt)
{
    if (em_pt)
        *em_pt = pm_em;
    if (ex_pt)
        *ex_pt = pm_ex;
}

/* ---- values ----------------------------------------------------------------------- */

static void pm_number(pm_val *v, double x)
{
    v->a[0] = x;
    v->a[1] = v->a[2] = 0;
    v->mn = v->mx = x;
    v->n = 1;
    v->fn = -1;
}

/* The value TeX compares: rounded to scaled points (1/65536 pt), as \ifdim does. */
static double pm_sp(double x)
{
    return round(x * 65536.0);
}

static int pm_check_scalar(pm_ctx *c, const pm_val *v, const PMLTYPE *loc)
{
    if (v->n == 1)
        return 0;
    pm_fail(c, (size_t)loc->first_column,
            "a parenthesized list is only allowed as the arguments of a function");
    return -1;
}

static int pm_finite(pm_ctx *c, double v, size_t col, const char *what)
{
    if (isfinite(v))
        return 0;
    if (isnan(v))
        pm_fail(c, col, "%s is not a number", what);
    else
        pm_fail(c, col, "%s is too large", what);
    return -1;
}

static int pm_binary(pm_ctx *c, int op, const pm_val *x, const PMLTYPE *lx,
                     const PMLTYPE *lop, const pm_val *y, const PMLTYPE *ly, pm_val *out)
{
    size_t col = (size_t)lop->first_column;
    double a, b, r = 0;
    if (pm_check_scalar(c, x, lx) || pm_check_scalar(c, y, ly))
        return -1;
    a = x->a[0];
    b = y->a[0];
    switch (op) {
    case '+': r = a + b; break;
    case '-': r = a - b; break;
    case '*': r = a * b; break;
    case '/':
        if (b == 0) {
            pm_fail(c, col, "division by zero");
            return -1;
        }
        r = a / b;
        break;
    case '^':
        if (a == 0 && b < 0) {
            pm_fail(c, col, "zero raised to a negative power");
            return -1;
        }
        if (a < 0 && b != floor(b)) {
            pm_fail(c, col, "negative number raised to a non-integer power");
            return -1;
        }
        r = pow(a, b);
        break;
    case '<': r = pm_sp(a) < pm_sp(b); break;
    case '>': r = pm_sp(a) > pm_sp(b); break;
    case 'l': r = pm_sp(a) <= pm_sp(b); break;
    case 'g': r = pm_sp(a) >= pm_sp(b); break;
    case '=': r = pm_sp(a) == pm_sp(b); break;
    case 'n': r = pm_sp(a) != pm_sp(b); break;
    case '&': r = pm_sp(a) != 0 && pm_sp(b) != 0; break;
    case '|': r = pm_sp(a) != 0 || pm_sp(b) != 0; break;
    default: break;
    }
    if (pm_finite(c, r, col, "the result"))
        return -1;
    pm_number(out, r);
    return 0;
}

/* ---- functions -------------------------------------------------------------------- */

/* Sine of x degrees, exact at multiples of 30 degrees. */
static double pm_sind(double x)
{
    double r = fmod(x, 360.0);
    if (r < 0)
        r += 360.0;
    if (r == 0 || r == 180)
        return 0;
    if (r == 90)
        return 1;
    if (r == 270)
        return -1;
    if (r == 30 || r == 150)
        return 0.5;
    if (r == 210 || r == 330)
        return -0.5;
    return sin(r * (PM_PI / 180.0));
}

static double pm_cosd(double x)
{
    double r = fmod(x, 360.0);
    return pm_sind(r + 90.0);
}

static double pm_rad2deg(double x) { return x * (180.0 / PM_PI); }
static double pm_deg2rad(double x) { return x * (PM_PI / 180.0); }

static int pm_domain(pm_ctx *c, size_t col, const char *name, const char *why)
{
    pm_fail(c, col, "%s: %s", name, why);
    return -1;
}

/* pm_apply's trigonometric functions, in degrees as pgf has them: the
 * value in *r, or -1 after a domain error */
static int pm_trig(pm_ctx *c, const struct pm_fn *fn, double x, double y, size_t col,
                   double *r)
{
    switch (fn->id) {
    case F_SIN: *r = pm_sind(x); break;
    case F_COS: *r = pm_cosd(x); break;
    case F_TAN: case F_COT: {
        double s = pm_sind(x), k = pm_cosd(x);
        if (fn->id == F_TAN) {
            if (k == 0)
                return pm_domain(c, col, "tan", "infinite at odd multiples of 90 degrees");
            /* exact at multiples of 45 degrees */
            *r = fabs(s) == fabs(k) ? (s == k ? 1.0 : -1.0) : s / k;
        } else {
            if (s == 0)
                return pm_domain(c, col, "cot", "infinite at multiples of 180 degrees");
            *r = fabs(s) == fabs(k) ? (s == k ? 1.0 : -1.0) : k / s;
        }
        break;
    }
    case F_SEC:
        if (pm_cosd(x) == 0)
            return pm_domain(c, col, "sec", "infinite at odd multiples of 90 degrees");
        *r = 1.0 / pm_cosd(x);
        break;
    case F_COSEC:
        if (pm_sind(x) == 0)
            return pm_domain(c, col, "cosec", "infinite at multiples of 180 degrees");
        *r = 1.0 / pm_sind(x);
        break;
    case F_ASIN:
    case F_ACOS:
        if (x < -1 || x > 1)
            return pm_domain(c, col, fn->name, "argument outside [-1, 1]");
        *r = pm_rad2deg(fn->id == F_ASIN ? asin(x) : acos(x));
        break;
    case F_ATAN: *r = pm_rad2deg(atan(x)); break;
    case F_ATAN2: /* atan2(y, x), in (-180, 180]; pgf's conventions on the x axis */
        if (x == 0)
            *r = y < 0 ? 180.0 : y > 0 ? 0.0 : 90.0;
        else
            *r = pm_rad2deg(atan2(x, y));
        break;
    default:
        break;
    }
    return 0;
}

/* pm_apply's integer functions (mod, Mod, div, gcd, factorial, isprime,
 * iseven, isodd): the value in *r, or -1 after a domain error */
static int pm_integer_fn(pm_ctx *c, const struct pm_fn *fn, double x, double y, size_t col,
                         double *r)
{
    switch (fn->id) {
    case F_MOD: case F_MODP: case F_DIV:
        if (y == 0) {
            pm_fail(c, col, "%s: division by zero", fn->name);
            return -1;
        }
        if (fn->id == F_DIV) {
            *r = trunc(x / y);
        } else {
            *r = fmod(x, y);
            if (fn->id == F_MODP && *r < 0)
                *r += y;
        }
        break;
    case F_GCD: {
        double a = fabs(trunc(x)), b = fabs(trunc(y));
        int guard = 0;
        while (b != 0 && guard++ < 10000) {
            double t = fmod(a, b);
            a = b;
            b = t;
        }
        *r = a;
        break;
    }
    case F_FACTORIAL: {
        double n = trunc(x), k;
        if (n > 170)
            return pm_domain(c, col, "factorial", "argument too large");
        *r = 1;
        for (k = 2; k <= n; k++)
            *r *= k;
        break;
    }
    case F_ISPRIME: {
        double n = fabs(trunc(x));
        long v, d;
        if (n > 2147483647.0)
            return pm_domain(c, col, "isprime", "argument too large");
        v = (long)n;
        *r = v >= 2;
        for (d = 2; d * d <= v; d++)
            if (v % d == 0) {
                *r = 0;
                break;
            }
        break;
    }
    case F_ISEVEN: *r = fmod(trunc(x), 2.0) == 0; break;
    case F_ISODD: *r = fmod(trunc(x), 2.0) != 0; break;
    default:
        break;
    }
    return 0;
}

static int pm_apply(pm_ctx *c, const pm_val *f, const PMLTYPE *lf, const pm_val *arg,
                    const PMLTYPE *larg, pm_val *out)
{
    size_t col = (size_t)lf->first_column;
    const struct pm_fn *fn = NULL;
    size_t i;
    double x, y, r = 0;
    for (i = 0; i < sizeof pm_fns / sizeof pm_fns[0]; i++)
        if (pm_fns[i].id == f->fn)
            fn = &pm_fns[i];
    if (fn == NULL) { /* cannot happen: the lexer only makes FUNC tokens from the table */
        pm_fail(c, col, "internal error: unknown function id");
        return -1;
    }
    if (fn->id == F_RANDOM) {
        if (arg->n > 2) {
            pm_fail(c, col, "random takes at most 2 arguments, not %d", arg->n);
            return -1;
        }
        if (arg->n == 0) {
            pm_number(out, pm_rnd_value(0));
            return 0;
        }
        x = arg->n == 1 ? 1 : arg->a[0];
        y = arg->n == 1 ? arg->a[0] : arg->a[1];
        if (fabs(x) > 2147483647.0 || fabs(y) > 2147483647.0) {
            pm_fail(c, col, "random: bound out of TeX's integer range");
            return -1;
        }
        pm_number(out, (double)pgfmath_random_int((long)x, (long)y));
        return 0;
    }
    if (fn->arity == -1 && arg->n == 0) {
        pm_fail(c, col, "%s needs an argument", fn->name);
        return -1;
    }
    if (fn->arity > 0 && arg->n != fn->arity) {
        pm_fail(c, col, "%s takes %d argument%s, not %d", fn->name, fn->arity,
                fn->arity == 1 ? "" : "s", arg->n);
        return -1;
    }
    (void)larg;
    x = arg->a[0];
    y = arg->a[1];
    switch (fn->id) {
    case F_SIN: case F_COS: case F_TAN: case F_COT: case F_SEC: case F_COSEC: case F_ASIN:
    case F_ACOS: case F_ATAN: case F_ATAN2:
        if (pm_trig(c, fn, x, y, col, &r)) return -1;
        break;
    case F_MOD: case F_MODP: case F_DIV: case F_GCD: case F_FACTORIAL: case F_ISPRIME:
    case F_ISEVEN: case F_ISODD:
        if (pm_integer_fn(c, fn, x, y, col, &r)) return -1;
        break;
    case F_SINH: r = sinh(x); break;
    case F_COSH: r = cosh(x); break;
    case F_TANH: r = tanh(x); break;
    case F_DEG: case F_RADIANS: r = pm_rad2deg(x); break;
    case F_RAD: r = pm_deg2rad(x); break;
    case F_EXP: r = exp(x); break;
    case F_LN: case F_LOG10: case F_LOG2:
        if (x <= 0)
            return pm_domain(c, col, fn->name, "argument is not positive");
        r = fn->id == F_LN ? log(x) : fn->id == F_LOG10 ? log10(x) : log2(x);
        break;
    case F_SQRT:
        if (x < 0)
            return pm_domain(c, col, "sqrt", "argument is negative");
        r = sqrt(x);
        break;
    case F_POW: {
        PMLTYPE l = *lf;
        pm_val a, b;
        pm_number(&a, x);
        pm_number(&b, y);
        return pm_binary(c, '^', &a, &l, &l, &b, &l, out);
    }
    case F_VECLEN: r = hypot(x, y); break;
    case F_ABS: r = fabs(x); break;
    case F_SIGN: r = pm_sp(x) > 0 ? 1 : pm_sp(x) < 0 ? -1 : 0; break;
    case F_ROUND: r = round(x); break; /* halves away from zero, as pgf */
    case F_FLOOR: r = floor(x); break;
    case F_CEIL: r = ceil(x); break;
    case F_INT: r = trunc(x); break;
    case F_FRAC: r = fabs(x - trunc(x)); break; /* pgf: the digits after the point */
    case F_REAL: r = x; break;
    case F_MIN: r = arg->mn; break;
    case F_MAX: r = arg->mx; break;
    case F_RECIPROCAL:
        if (x == 0) {
            pm_fail(c, col, "reciprocal: division by zero");
            return -1;
        }
        r = 1.0 / x;
        break;
    case F_NEG: r = -x; break;
    case F_ADD: case F_SUBTRACT: case F_MULTIPLY: case F_DIVIDE:
    case F_GREATER: case F_LESS: case F_EQUAL: case F_NOTEQUAL: case F_NOTLESS:
    case F_NOTGREATER: case F_AND: case F_OR: {
        static const char ops[] = "+-*/><=ngl&|";
        PMLTYPE l = *lf;
        pm_val a, b;
        pm_number(&a, x);
        pm_number(&b, y);
        return pm_binary(c, ops[fn->id - F_ADD], &a, &l, &l, &b, &l, out);
    }
    case F_NOT: r = pm_sp(x) == 0; break;
    case F_IFTHENELSE: r = pm_sp(x) != 0 ? y : arg->a[2]; break;
    case F_APPROX: r = fabs(x - y) < 0.0001; break;
    case F_SCALAR: r = x; c->has_unit = 0; break;
    default: break;
    }
    if (pm_finite(c, r, col, "the result"))
        return -1;
    pm_number(out, r);
    return 0;
}

/* ---- lexer ------------------------------------------------------------------------ */

/* The units and their size in pt (a switch, not a table scan: units are looked up for
   every dimension).  mu counts as pt (pgf treats math units as pt); px is pdfTeX's
   \pdfpxdimen, 1bp by default; nd and nc are pdfTeX's new didot and new cicero; em and ex
   come from the font (pgfmath_set_font). */
#define PM_U2(a, b) ((unsigned)(unsigned char)(a) << 8 | (unsigned char)(b))

static int pm_unit_lookup(const char *name, size_t len, int fold, double *pt)
{
    char u0, u1;
    if (len != 2)
        return -1;
    u0 = name[0];
    u1 = name[1];
    if (fold) {
        if (u0 >= 'A' && u0 <= 'Z')
            u0 = (char)(u0 - 'A' + 'a');
        if (u1 >= 'A' && u1 <= 'Z')
            u1 = (char)(u1 - 'A' + 'a');
    }
    switch (PM_U2(u0, u1)) {
    case PM_U2('p', 't'): *pt = 1.0; return 0;
    case PM_U2('i', 'n'): *pt = 72.27; return 0;
    case PM_U2('c', 'm'): *pt = 7227.0 / 254.0; return 0;
    case PM_U2('m', 'm'): *pt = 7227.0 / 2540.0; return 0;
    case PM_U2('b', 'p'): *pt = 7227.0 / 7200.0; return 0;
    case PM_U2('p', 'c'): *pt = 12.0; return 0;
    case PM_U2('d', 'd'): *pt = 1238.0 / 1157.0; return 0;
    case PM_U2('c', 'c'): *pt = 14856.0 / 1157.0; return 0;
    case PM_U2('s', 'p'): *pt = 1.0 / 65536.0; return 0;
    case PM_U2('p', 'x'): *pt = 7227.0 / 7200.0; return 0;
    case PM_U2('n', 'd'): *pt = 685.0 / 642.0; return 0;
    case PM_U2('n', 'c'): *pt = 1370.0 / 107.0; return 0;
    case PM_U2('m', 'u'): *pt = 1.0; return 0;
    case PM_U2('e', 'm'): *pt = pm_em; return 0;
    case PM_U2('e', 'x'): *pt = pm_ex; return 0;
    default: return -1;
    }
}

int pgfmath_unit(const char *name, size_t len, double *pt)
{
    double v;
    if (name == NULL || pm_unit_lookup(name, len, 0, &v) != 0)
        return -1;
    if (pt)
        *pt = v;
    return 0;
}

static int pm_isdigit(int ch) { return ch >= '0' && ch <= '9'; }
static int pm_isalpha(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
static int pm_isspace(int ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

/* Exact powers of ten for the short decimals below. */
static const double pm_p10[16] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
                                   1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };

/* The decimal number p[0..n) (digits with at most one '.' or ','), times 10^exp10,
   converted without depending on the locale: the digits are rewritten as an integer
   mantissa and an exponent ("125e-1"), which strtod reads the same in every locale. */
static double pm_decimal(const char *p, size_t n, long exp10)
{
    char buf[64];
    size_t k = 0, i;
    long e = 0;
    int seen_point = 0;
    if (exp10 == 0 && n <= 16) {
        /* at most 15 digits: the integer m of all the digits (leading zeros add nothing)
           and the exponent -(digits after the point) are the mantissa and exponent the
           general case below finds, so m / 10^after is what it computes */
        long long m = 0;
        size_t after = 0, digits = 0;
        for (i = 0; i < n; i++) {
            unsigned d = (unsigned)(unsigned char)p[i] - (unsigned)'0';
            if (d <= 9) {
                m = m * 10 + d;
                digits++;
                after += (size_t)seen_point;
            } else {
                seen_point = 1; /* '.' or ',' */
            }
        }
        if (digits <= 15)
            return after ? (double)m / pm_p10[after] : (double)m;
        seen_point = 0;
    }
    for (i = 0; i < n; i++) {
        char ch = p[i];
        if (ch == '.' || ch == ',') {
            seen_point = 1;
            continue;
        }
        if (k == 0 && ch == '0') {
            if (seen_point)
                e--;
            continue;
        }
        if (k < 40) {
            buf[k++] = ch;
            if (seen_point)
                e--;
        } else if (!seen_point) {
            e++;
        }
    }
    if (k == 0)
        return 0.0;
    if (exp10 > 1000000)
        exp10 = 1000000;
    if (exp10 < -1000000)
        exp10 = -1000000;
    e += exp10;
    if (k <= 15 && e >= -22 && e <= 22) {
        /* exact integer mantissa and exact power of ten: one correctly
         * rounded operation gives what strtod gives, much faster */
        static const double p10[23] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
            1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };
        long long m = 0;
        for (i = 0; i < k; i++) m = m * 10 + (buf[i] - '0');
        return e < 0 ? (double)m / p10[-e] : (double)m * p10[e];
    }
    snprintf(buf + k, sizeof buf - k, "e%ld", e);
    return strtod(buf, NULL);
}

/* The value of the number token pgfmath.l matched at s[start..start+n), of the given kind
   (see the scanner's rules for what each kind matches exactly): stores it in *lval and
   returns 0, or reports the error and returns -1. */
int pm_lex_number(pm_ctx *c, PMSTYPE *lval, int kind, size_t start, size_t n)
{
    const char *s = c->s + start;
    size_t m, q, i;
    double v;

    switch (kind) {
    case PM_K_HEX:
    case PM_K_BIN: {
        /* "0x" or "0b" and the digits; "0bp" (a unit after 0 would be a longer match) has
           none */
        int base = kind == PM_K_HEX ? 16 : 2;
        v = 0;
        for (i = 2; i < n; i++) {
            int ch = (unsigned char)s[i], d;
            if (pm_isdigit(ch))
                d = ch - '0';
            else if (base == 16 && ch >= 'a' && ch <= 'f')
                d = ch - 'a' + 10;
            else if (base == 16 && ch >= 'A' && ch <= 'F')
                d = ch - 'A' + 10;
            else
                break;
            if (d >= base)
                break;
            v = v * base + d;
        }
        if (i == 2) {
            pm_fail(c, start + 1, "missing %s digits after '0%c'",
                    base == 16 ? "hexadecimal" : "binary", s[1]);
            return -1;
        }
        if (pm_finite(c, v, start + 1, "the number"))
            return -1;
        break;
    }
    case PM_K_BAD: {
        /* digits and two or more periods */
        char q2[40];
        pm_quote(c->s, start, start + n, q2, sizeof q2);
        pm_fail(c, start + 1, "malformed number '%s'", q2);
        return -1;
    }
    case PM_K_UNIT: {
        /* a decimal number, spaces (pgf skips them: "2 cm" is 2cm) and a unit */
        double unit;
        for (m = 0; s[m] == '.' || pm_isdigit((unsigned char)s[m]); m++)
            ;
        if (pm_unit_lookup(s + n - 2, 2, 0, &unit) != 0) {
            /* cannot happen: the scanner's units are pm_unit_lookup's (test_pgfmath) */
            pm_fail(c, start + 1, "internal error: unknown unit");
            return -1;
        }
        c->has_unit = 1;
        v = pm_decimal(s, m, 0) * unit;
        if (pm_finite(c, v, start + 1, "the dimension"))
            return -1;
        break;
    }
    case PM_K_EXP: {
        /* a decimal number, spaces, e or E, an optional sign and digits */
        long e = 0;
        int neg;
        for (m = 0; s[m] == '.' || pm_isdigit((unsigned char)s[m]); m++)
            ;
        for (q = m; pm_isspace((unsigned char)s[q]); q++)
            ;
        q++; /* the e */
        neg = s[q] == '-';
        if (s[q] == '-' || s[q] == '+')
            q++;
        for (; q < n; q++)
            if (e < 10000000)
                e = e * 10 + (s[q] - '0');
        v = pm_decimal(s, m, neg ? -e : e);
        if (pm_finite(c, v, start + 1, "the number"))
            return -1;
        break;
    }
    default: /* PM_K_DEC: digits with at most one period */
        if (s[0] == '0' && n > 1 && memchr(s, '.', n) == NULL) {
            /* pgf reads an integer with a leading zero as octal */
            v = 0;
            for (i = 0; i < n; i++) {
                if (s[i] > '7') {
                    pm_fail(c, start + i + 1, "digit '%c' is invalid in an octal number (a "
                            "leading 0 means base 8)", s[i]);
                    return -1;
                }
                v = v * 8 + (s[i] - '0');
            }
        } else {
            v = pm_decimal(s, n, 0);
        }
        if (pm_finite(c, v, start + 1, "the number"))
            return -1;
        break;
    }
    pm_number(lval, v);
    return 0;
}

/* The name pgfmath.l matched at s[start..start+n) (a letter or '_', then letters, '_' and
   digits): a constant (NUM), a function (FUNC), in operator position anything else is
   PMUNDEF (the parser reports "unexpected 'name'"), and in operand position an error. */
int pm_lex_name(pm_ctx *c, PMSTYPE *lval, size_t start, size_t n, int operator_position)
{
    static const struct { const char *name; double v; } consts[] = {
        {"pi", PM_PI}, {"e", 2.71828182845904523536}, {"true", 1}, {"false", 0},
    };
    static const struct { const char *names, *why; } unsupported[] = {
        {" width height depth ", "text measurement is not supported"},
        {" hex Hex oct bin ", "functions returning strings are not supported"},
        {" array dim ", "arrays are not supported"},
    };
    const char *s = c->s + start;
    size_t i;
    char name[40];

    if ((n == 3 && memcmp(s, "rnd", 3) == 0) || (n == 4 && memcmp(s, "rand", 4) == 0)) {
        pm_number(lval, pm_rnd_value(n == 4));
        return PM_NUM;
    }
    for (i = 0; i < sizeof consts / sizeof consts[0]; i++)
        if (strlen(consts[i].name) == n && memcmp(consts[i].name, s, n) == 0) {
            pm_number(lval, consts[i].v);
            return PM_NUM;
        }
    for (i = 0; i < sizeof pm_fns / sizeof pm_fns[0]; i++)
        if (strlen(pm_fns[i].name) == n && memcmp(pm_fns[i].name, s, n) == 0) {
            lval->fn = pm_fns[i].id;
            lval->n = 0;
            return PM_FUNC;
        }
    if (operator_position)
        return PM_PMUNDEF; /* the parser reports "unexpected 'name'" */
    pm_quote(c->s, start, start + n, name, sizeof name);
    if (n < 16) {
        char key[20];
        key[0] = ' ';
        memcpy(key + 1, s, n);
        key[n + 1] = ' ';
        key[n + 2] = '\0';
        for (i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
            if (strstr(unsupported[i].names, key)) {
                pm_fail(c, start + 1, "%s: %s", name, unsupported[i].why);
                return PM_PMerror;
            }
    }
    pm_fail(c, start + 1, "unknown function '%s'", name);
    return PM_PMerror;
}

/* ---- errors ----------------------------------------------------------------------- */

static void pmerror(PMLTYPE *lloc, pm_ctx *ctx, const char *msg)
{
    if (strstr(msg, "exhausted"))
        pm_fail(ctx, (size_t)lloc->first_column, "expression nested too deeply");
    else
        pm_fail(ctx, (size_t)lloc->first_column, "%s", msg);
}

static int yyreport_syntax_error(const yypcontext_t *yyctx, pm_ctx *ctx)
{
    const PMLTYPE *loc = yypcontext_location(yyctx);
    yysymbol_kind_t tok = yypcontext_token(yyctx);
    yysymbol_kind_t expected[4];
    int nexp = yypcontext_expected_tokens(yyctx, expected, 4);
    char what[64], exp[120];
    size_t col = (size_t)loc->first_column;
    int i, first = 0;

    if (ctx->failed)
        return 0;
    if (tok == YYSYMBOL_YYEOF) {
        snprintf(what, sizeof what, "unexpected end of expression%s",
                 ctx->depth > 0 ? " (missing ')')" : "");
    } else {
        char text[40];
        size_t from = col - 1, to = (size_t)loc->last_column - 1;
        if (to <= from)
            to = from + 1;
        if (to > ctx->end)
            to = ctx->end;
        first = from < to ? (unsigned char)ctx->s[from] : 0;
        pm_quote(ctx->s, from, to, text, sizeof text);
        snprintf(what, sizeof what, "unexpected '%s'", text);
    }
    exp[0] = '\0';
    if (nexp > 0 && nexp <= 3) {
        size_t k = (size_t)snprintf(exp, sizeof exp, ", expecting ");
        for (i = 0; i < nexp && k < sizeof exp; i++)
            k += (size_t)snprintf(exp + k, sizeof exp - k, "%s%s", i ? " or " : "",
                                  yysymbol_name(expected[i]));
    } else if (tok == YYSYMBOL_NUM || tok == YYSYMBOL_FUNC || first == '('
               || pm_isalpha(first) || pm_isdigit(first)) {
        /* an operand where an operator should be */
        snprintf(exp, sizeof exp, " (missing operator?)");
    }
    pm_fail(ctx, col, "%s%s", what, exp);
    return 0;
}

/* ---- entry points ----------------------------------------------------------------- */

static void pm_report(const pm_ctx *c, int with_col, char *err, size_t errlen)
{
    if (err == NULL || errlen == 0)
        return;
    if (with_col)
        snprintf(err, errlen, "column %zu: %s", c->errcol, c->msg);
    else
        snprintf(err, errlen, "%s", c->msg);
}

/* The expressions tikz2ir evaluates most often are one number, optionally signed and with
   a unit ("1", ".25", "-2 in", ".1mm").  pm_fast reads exactly those without the parser and
   gives the value the parser gives: the same mantissa and exponent as pm_decimal (for at
   most 15 digits m / 10^k, which is pm_decimal's exact case, else pm_decimal itself), the
   same unit factor, and the unary minus applied after the unit, as the grammar does.
   Anything else, including every input the parser would reject or read differently (octal
   "010" inside an expression, "0bp", "2e3", "2r", braces, "1 2", "--1"), returns -1 and
   goes through the parser.  An expression of only digits and periods is pgf's own fast
   path: a decimal number (so "010" is 10).  tests/unit/test_pgfmath compares it with the
   parser on 600k strings. */
static int pm_fast(const char *s, size_t n, double *out, int *has_unit)
{
    const char *p = s, *end = s + n, *m0, *q;
    unsigned long long m = 0; /* the digits; wraps past 19 of them, used for at most 15 */
    size_t digits, after = 0;
    int neg = 0, points = 0;
    double v, unit = 1;

    if ((unsigned char)*p <= ' ' || *p == '-' || *p == '+') {
        while (p < end && pm_isspace((unsigned char)*p))
            p++;
        if (p < end && (*p == '-' || *p == '+')) {
            neg = *p == '-';
            p++;
            while (p < end && pm_isspace((unsigned char)*p))
                p++;
        }
    }
    /* a number: digits with at most one period, and a digit (a period alone is no number;
       the lexer starts one at a digit, or at a period followed by a digit) */
    m0 = p;
    for (; p < end && (unsigned)(unsigned char)*p - '0' <= 9; p++)
        m = m * 10 + (unsigned)(*p - '0');
    digits = (size_t)(p - m0);
    if (p < end && *p == '.') {
        const char *f0 = ++p;
        for (; p < end && (unsigned)(unsigned char)*p - '0' <= 9; p++)
            m = m * 10 + (unsigned)(*p - '0');
        after = (size_t)(p - f0);
        digits += after;
        points = 1;
        if (p < end && *p == '.')
            return -1; /* a second period: malformed */
    }
    if (digits == 0)
        return -1;
    if (p == end && m0 == s) {
        /* pgf's fast path: decimal even with a leading 0 */
        *has_unit = 0;
    } else {
        /* not 0x, 0X, 0b, 0B (hexadecimal, binary: "0bp" is an error) */
        if (p == m0 + 1 && *m0 == '0' && p < end
            && (*p == 'x' || *p == 'X' || *p == 'b' || *p == 'B'))
            return -1;
        for (q = p; q < end && pm_isspace((unsigned char)*q); q++)
            ;
        if (q == end) {
            if (!points && *m0 == '0' && digits > 1)
                return -1; /* octal */
            *has_unit = 0;
        } else {
            /* a unit: two letters (pm_unit_lookup knows no other names) */
            if (end - q < 2 || pm_unit_lookup(q, 2, 0, &unit) != 0)
                return -1;
            for (q += 2; q < end && pm_isspace((unsigned char)*q); q++)
                ;
            if (q != end)
                return -1;
            *has_unit = 1;
        }
    }
    if (digits <= 15)
        v = after ? (double)m / pm_p10[after] : (double)m;
    else
        v = pm_decimal(m0, (size_t)(p - m0), 0);
    v *= unit;
    if (!isfinite(v))
        return -1;
    *out = neg ? -v : v;
    return 0;
}

static int pm_eval(const char *expr, size_t len, double *out, int *has_unit, char *err,
                   size_t errlen, size_t *errcol, int with_col) __attribute__((noinline));

static int pm_eval(const char *expr, size_t len, double *out, int *has_unit, char *err,
                   size_t errlen, size_t *errcol, int with_col)
{
    pm_ctx c;
    size_t lo = 0, hi = len;
    int rc;

    memset(&c, 0, sizeof c);
    c.s = expr;
    if (expr == NULL)
        len = hi = 0, c.s = "";
    if (len > 100000000) { /* columns are ints in bison's locations */
        pm_fail(&c, 1, "expression too long");
        if (errcol)
            *errcol = c.errcol;
        pm_report(&c, with_col, err, errlen);
        return -1;
    }

    /* pgf strips braces around the whole expression. */
    for (;;) {
        size_t depth = 0, j;
        while (lo < hi && pm_isspace((unsigned char)c.s[lo]))
            lo++;
        while (hi > lo && pm_isspace((unsigned char)c.s[hi - 1]))
            hi--;
        if (hi - lo < 2 || c.s[lo] != '{' || c.s[hi - 1] != '}')
            break;
        for (j = lo; j < hi; j++) {
            if (c.s[j] == '{')
                depth++;
            else if (c.s[j] == '}' && --depth == 0)
                break;
        }
        if (j != hi - 1)
            break;
        lo++;
        hi--;
    }
    c.pos = lo;
    c.end = hi;

    rc = pm_scan_parse(&c);
    if (rc == 0 && !c.failed && !isfinite(c.result)) /* defensive: actions check already */
        pm_fail(&c, lo + 1, "the result is not finite");
    if (rc != 0 || c.failed) {
        if (!c.failed)
            pm_fail(&c, c.pos + 1, "invalid expression");
        if (errcol)
            *errcol = c.errcol;
        pm_report(&c, with_col, err, errlen);
        return -1;
    }
    if (out)
        *out = c.result + 0.0; /* no negative zero */
    if (has_unit)
        *has_unit = c.has_unit;
    return 0;
}

int pgfmath_eval(const char *expr, size_t len, double *out, int *has_unit, char *err,
                 size_t errlen)
{
    double v;
    int hu;
    if (expr != NULL && len > 0 && len <= 100000000 && pm_fast(expr, len, &v, &hu) == 0) {
        if (out)
            *out = v + 0.0; /* no negative zero */
        if (has_unit)
            *has_unit = hu;
        return 0;
    }
    return pm_eval(expr, len, out, has_unit, err, errlen, NULL, 1);
}

int pgfmath_eval_pos(const char *expr, size_t len, double *out, int *has_unit, char *err,
                     size_t errlen, size_t *errcol)
{
    double v;
    int hu;
    if (expr != NULL && len > 0 && len <= 100000000 && pm_fast(expr, len, &v, &hu) == 0) {
        if (out)
            *out = v + 0.0; /* no negative zero */
        if (has_unit)
            *has_unit = hu;
        return 0;
    }
    return pm_eval(expr, len, out, has_unit, err, errlen, errcol, 0);
}

int pgfmath_dimen(const char *s, size_t len, double *pt)
{
    size_t p = 0, m0, m1;
    int neg = 0, digits = 0, points = 0;
    double unit, v;

    if (s == NULL)
        return -1;
    for (;;) { /* TeX: optional signs and spaces */
        while (p < len && pm_isspace((unsigned char)s[p]))
            p++;
        if (p < len && (s[p] == '+' || s[p] == '-')) {
            neg ^= s[p] == '-';
            p++;
            continue;
        }
        break;
    }
    m0 = p;
    while (p < len && (pm_isdigit((unsigned char)s[p]) || s[p] == '.' || s[p] == ',')) {
        if (pm_isdigit((unsigned char)s[p]))
            digits++;
        else
            points++;
        p++;
    }
    m1 = p;
    if (digits == 0 || points > 1)
        return -1;
    while (p < len && pm_isspace((unsigned char)s[p]))
        p++;
    if (p + 4 <= len && (s[p] == 't' || s[p] == 'T') && (s[p + 1] == 'r' || s[p + 1] == 'R')
        && (s[p + 2] == 'u' || s[p + 2] == 'U') && (s[p + 3] == 'e' || s[p + 3] == 'E')) {
        p += 4; /* "true": magnification is 1000, so it changes nothing */
        while (p < len && pm_isspace((unsigned char)s[p]))
            p++;
    }
    if (p + 2 > len || pm_unit_lookup(s + p, 2, 1, &unit) != 0)
        return -1;
    if ((s[p] == 'm' || s[p] == 'M') && (s[p + 1] == 'u' || s[p + 1] == 'U'))
        return -1; /* mu is not a dimension unit in TeX */
    p += 2;
    while (p < len && pm_isspace((unsigned char)s[p]))
        p++;
    if (p != len)
        return -1;
    v = pm_decimal(s + m0, m1 - m0, 0) * unit;
    if (!isfinite(v))
        return -1;
    if (pt)
        *pt = (neg ? -v : v) + 0.0;
    return 0;
}
