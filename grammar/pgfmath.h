/* pgfmath.h — the pgfmath expression evaluator (TikZ's math engine) used by tikz2ir.
 *
 * This header is the module's whole contract.  The grammar is grammar/pgfmath.y (bison,
 * prefix "pm", pure); its tokens come from the flex scanner grammar/pgfmath.l (reentrant,
 * prefix "pm", full tables; no rule gives bytes back).
 *
 * Input is an expression whose TeX macros the caller has already expanded, e.g.
 * "117.43126pt/2", "sin(30)*2cm", "max(1,2,3) ? 1 : 0".  What is accepted, and how it
 * is evaluated, follows pgf 3.1 (pgfmathparser.code.tex, pgfmathfunctions.*.code.tex),
 * except that arithmetic is IEEE double instead of TeX's 16.16 fixed point (so results are
 * more precise than pgf's five decimals and are not limited to |x| < 16384):
 *
 *   numbers     123  .5  1.  1e3  2.5E-2  0x1F  0b101  010 (octal, as pgf: a leading 0 on an
 *               integer literal inside an expression means base 8; an expression that is only
 *               digits and periods, such as "010", is returned as the decimal number 10, as
 *               pgf's fast path does)
 *   units       a number followed (spaces allowed) by pt cm mm in bp pc dd cc sp em ex px nd nc
 *               (mu counts as pt) is converted to pt with TeX's exact ratios (1in = 72.27pt,
 *               1cm = 7227/254 pt, 1bp = 7227/7200 pt, 1dd = 1238/1157 pt, 1sp = 1/65536 pt,
 *               1px = 1bp as pdfTeX's default \pdfpxdimen, em/ex from pgfmath_set_font).  Only
 *               the number is scaled: 2*3cm is 170.71653pt.  A unit cannot follow a number
 *               written with an exponent (1e3cm is an error, as in pgf).
 *   operators   by pgf's precedence table, all binary operators LEFT associative (as pgf:
 *               2^3^2 = 64):
 *                 ?:  (lowest; left associative: 1?2:3?4:5 = 4)
 *                 || &&               (same level)
 *                 < > <= >= == !=     (same level)
 *                 + -  and unary minus (so -2^2 = -4 and 2^-3*4 = 2^-(3*4), as pgf)
 *                 postfix r (radians to degrees: pi r = 180)
 *                 * /
 *                 postfix ! (factorial: 3! = 6)
 *                 ^
 *                 prefix ! (not: !2^2 = 0)
 *                 function application (sin 30 and sin(30) both work; sin 30^2 = 0.25)
 *               Unary plus is ignored.  Both sides of && || ?: are always evaluated (pgf
 *               does the same), so 0 ? 1/0 : 1 is a division-by-zero error.  Comparisons
 *               and truth tests (< > <= >= == != && || ! ?: sign ifthenelse ...) look at
 *               values rounded to scaled points (1/65536 pt), as TeX's \ifdim does in pgf,
 *               so 0.1+0.2 == 0.3 is true.
 *   functions   sin cos tan sec cosec cot asin acos atan atan2(y,x)  (degrees)
 *               sinh cosh tanh  deg rad radians  exp ln log10 log2 sqrt pow veclen
 *               abs sign round floor ceil int frac real min max (any number of arguments)
 *               mod Mod div gcd factorial isprime iseven isodd reciprocal neg
 *               add subtract multiply divide greater less equal notequal notless notgreater
 *               and or not ifthenelse approxequalto scalar (drops the "unit seen" flag)
 *               random() (as rnd), random(m) (an integer in 1..m), random(a,b) (in a..b)
 *   constants   pi e true false; rnd (0..1) and rand (-1..1) draw a pseudo-random number
 *               each time they are read (pgfmath_set_seed below)
 *   not supported (error): width height
 *               depth, hex Hex oct bin, array dim, "quoted strings", {arrays} and [indices].
 *               One pair of braces around the whole expression is stripped, as pgf does.
 *
 * Deliberate differences from pgf, besides the precision: pgf reads "1 2" as 12 and
 * "1 < = 2" as "1 <= 2" (it skips spaces everywhere); here they are syntax errors.  pgf
 * gives 0^-1 = 0; here it is an error.  "1 ? 2 ? 3 : 4 : 5", which breaks pgf, nests.
 *
 * Errors (return -1 and a message): syntax errors, unknown identifiers, a TeX control
 * sequence left in the input ("\foo"), trailing garbage, division (or mod/div) by zero,
 * domain errors (sqrt(-1), ln(0), asin(2), tan(90), 0^-1, (-8)^(1/3)), any non-finite
 * intermediate or final result, and nesting deeper than PGFMATH_MAX_DEPTH parentheses.
 * Evaluation never recurses in C and keeps no state between calls except the font
 * parameters, the random generator's seed and, per thread, one flex scanner made on first use (its state in a
 * thread-local arena, not the heap).  An expression longer than 254 bytes is copied to
 * the heap for the scanner and freed before the call returns.  It is locale-independent.
 */
#ifndef DIAGRAMIR_PGFMATH_H
#define DIAGRAMIR_PGFMATH_H

#include <stddef.h>

/* Maximum parenthesis nesting accepted by pgfmath_eval. */
#define PGFMATH_MAX_DEPTH 200

/* Evaluates the expression expr[0..len) (NUL bytes are invalid characters).
   On success returns 0, stores the value in *out (in pt when any unit appeared) and sets
   *has_unit to 1 when a unit appeared (pgf's \ifpgfmathunitsdeclared), else 0.
   On error returns -1 and writes a one-line NUL-terminated message of the form
   "column N: message" into err (when err != NULL and errlen > 0; truncated to errlen),
   N being the 1-based byte column in expr.  *out and *has_unit are then unspecified.
   out and has_unit may be NULL. */
int pgfmath_eval(const char *expr, size_t len, double *out, int *has_unit,
                 char *err, size_t errlen);

/* Same as pgfmath_eval, but on error the message in err carries no "column N: " prefix
   and the 1-based column is stored in *errcol instead (when errcol != NULL), so a caller
   can map it to a position in its own file. */
int pgfmath_eval_pos(const char *expr, size_t len, double *out, int *has_unit,
                     char *err, size_t errlen, size_t *errcol);

/* Font parameters for the em and ex units, in pt.  Defaults: em = 11.4pt, ex = 6.10128pt
   (Open Sans at scale 0.95 and 12pt, the text font of the DiagramIR sources' IM class; Computer Modern
   at 10pt would be 10.00002pt / 4.30554pt).  Non-finite or non-positive values are
   ignored.  This is the module's only global state: set it before evaluating, not
   concurrently with evaluations in other threads. */
void pgfmath_set_font(double em_pt, double ex_pt);

/* pgf's pseudo-random generator (rnd, rand, random), reproduced: the Park-Miller minimal
   standard LCG z <- 69621 z mod (2^31 - 1) computed as pgf does (Schrage's method with
   truncating division), rnd = (z mod 100001) / 100000, rand = (z mod 200001 - 100000) /
   100000 (each rounded to 1/65536, as pgf reads it as a dimension), random(a,b) = z mod (b-a+1)
   + a.  So after the same \pgfmathsetseed the values equal pgf's.  pgf seeds with
   \time * \year (a new sequence every minute); here the seed is 1 until it is set.
   pgfmath_random_int draws one integer in lo..hi (swapped when lo > hi), as
   \pgfmathrandominteger.  This is global state, like the font: not for concurrent use. */
void pgfmath_set_seed(long seed);
long pgfmath_get_seed(void);
long pgfmath_random_int(long lo, long hi);
void pgfmath_get_font(double *em_pt, double *ex_pt);

/* Parses a TeX dimension s[0..len): optional spaces, optional signs (+ and -, any number,
   as TeX), a decimal number ("3", "1.625", ".5", "2.", or with TeX's decimal comma "1,5"),
   optional spaces, an optional "true", a unit as above (case-insensitive, as TeX), and
   optional trailing spaces.  Stores the value in pt and returns 0; returns -1 (leaving
   *pt untouched) when s is not exactly one dimension.  Examples: "1.625in" 117.43875,
   "-.1cm" -2.845276, "2 cm" 56.90551, "3pt" 3. */
int pgfmath_dimen(const char *s, size_t len, double *pt);

/* Size of one unit in pt: name[0..len) is one of the unit names above (case-sensitive, as
   pgfmath).  Returns 0 and stores the size, or -1 for an unknown unit. */
int pgfmath_unit(const char *name, size_t len, double *pt);

#endif
