#!/bin/sh
# tests/hostile/run.sh -- tikz2ir against hostile input.
#
#   BUILD=build sh tests/hostile/run.sh [-v]
#
# Every input is generated here (deterministically, into a scratch
# directory): truncated DiagramIR items, binary bytes (with and without NUL
# bytes, from a fixed-seed generator), 10,000 nested braces (balanced,
# unclosed, an extra '}'), brackets and parentheses nested 10,000 deep,
# 10,000 nested scopes (and groups each appending to a style), recursive macros (\def\a{\a}, \def\a{\a\a}, an
# argument that grows with every call), a 20 MB input, 11 MB of plain text
# after a picture (legal: source text is not expansion), a \foreach over
# 10^9 items, a nested \foreach whose product is 10^10, a line of a million
# characters; conditionals: an \if never closed (its branch taken, or 11 MB
# skipped), a \fi with no \if, \newif of a primitive, 10,000 nested
# conditionals (over the limit), 4,000 (legal), 100,000 nested in a skipped
# branch (legal), conditions 10,000 deep in conditions, recursion through
# conditionals, a number of a million digits; \pgfmathsetseed in a 10^9
# loop, a random list of 200,000 items, declared functions and pics that
# call themselves, to paths that use themselves (to path={to (x)}, a to
# in a to path going to (\tikztotarget)), 10,000 nested \scoped and \tikz{, a \tikz never ended;
# a decoration of 10^7 segments, decoration dimensions past TeX's largest,
# 1000 nested decorate operations, a matrix row of 100,000 cells, 40,000
# empty cells and rows, a matrix in a matrix, a plot sampled at 10^9
# points.
# For each, tikz2ir must
#   - finish within HOSTILE_LIMIT seconds of CPU time (default 1; CPU time,
#     user + system, so that a busy machine does not fail the test; killed by
#     `timeout` after 5 x HOSTILE_LIMIT seconds of wall time, in case it
#     hangs without using the CPU), in at most 1 GB of address space
#     (ulimit -v 1000000, in a subshell);
#   - never crash (exit status >= 128);
#   - exit 2 with a "FILE:LINE:COL: error: " line on stderr and nothing on
#     stdout but the "diagramir 1" header, or exit 0 (without an error line)
#     where the input is legal; each case says which it expects;
#   - write every diagnostic as one line starting with "FILE:LINE";
#   - on exit 0, write valid IR: no nan or inf, and irlint (when built)
#     reads it without an input error.
# Under a sanitizer build (ASan is detected in the binary) the time limit is
# multiplied by 10 and the address-space limit is left out (ASan reserves
# terabytes of it).
#
# HOSTILE_ONLY=ERE runs only the cases whose names match.
# Exit status: 0 all passed, 1 some case failed, 2 tikz2ir missing.
. "$(dirname "$0")/../lib.sh"
T2I=$bin/tikz2ir
[ -x "$T2I" ] || { echo "hostile/run.sh: $T2I not found (make first)" >&2; exit 2; }
IRLINT=$(dirname "$T2I")/irlint   # validates the output when it is there
verbose=0
[ "${1-}" = -v ] && verbose=1
data=tests/data/diagramir-dev/tikz
limit=${HOSTILE_LIMIT:-1}
vmem=1000000
if grep -aq __asan_init "$T2I" 2>/dev/null; then
    limit=$((limit * 10))
    vmem=
fi
have_timeout=0
command -v timeout >/dev/null 2>&1 && have_timeout=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tikz2ir-hostile.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

. tests/cputime.sh
wall=$((limit * 5))

pass=0 fail=0
# run_case NAME EXPECT FILE: EXPECT is 2 (input error), 0 (legal) or 0|2
run_case() {
    name=$1 expect=$2 f=$3
    if [ -n "${HOSTILE_ONLY:-}" ] && ! printf '%s\n' "$name" | grep -Eq -- "$HOSTILE_ONLY"; then
        return 0
    fi
    bounded_run "$T2I" "$f"
    if [ -z "$why" ]; then
        case "|$expect|" in
        *"|$st|"*) ;;
        *) why="exit status $st, expected $expect" ;;
        esac
    fi
    if [ -z "$why" ] && [ $st = 2 ]; then
        if ! grep -Eq "^$f:[0-9]+:[0-9]+: error: " "$tmp/err"; then
            why="exit status 2 without a '$f:LINE:COL: error: ' line"
        elif [ "$(cat "$tmp/out")" != "diagramir 1" ]; then
            why="exit status 2 but diagrams on stdout"
        fi
    fi
    if [ -z "$why" ] && grep -v "^$f:[0-9]" "$tmp/err" | grep -q .; then
        why="a diagnostic that is not one 'FILE:LINE...' line: $(grep -v "^$f:[0-9]" "$tmp/err" | head -1 | cut -c1-80)"
    fi
    if [ -z "$why" ] && [ $st = 0 ] && grep -q ': error: ' "$tmp/err"; then
        why="an error line, but exit status 0"
    fi
    if [ -z "$why" ] && [ $st = 0 ]; then
        if grep -Eq '(^| |=|,)-?(nan|inf)( |,|$)' "$tmp/out"; then
            why="nan or inf in the IR: $(grep -Em1 '(^| |=|,)-?(nan|inf)( |,|$)' "$tmp/out" | cut -c1-100)"
        elif [ -x "$IRLINT" ]; then
            "$IRLINT" "$tmp/out" >/dev/null 2>"$tmp/lint"
            [ $? -ge 2 ] && why="output is not valid IR: $(head -1 "$tmp/lint")"
        fi
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        [ $verbose = 1 ] && printf 'ok    %-28s exit %s, %5d ms  %s\n' "$name" "$st" "$ms" \
            "$(grep -m1 'error:' "$tmp/err" | cut -c1-100)"
    else
        fail=$((fail + 1))
        printf 'FAIL  %s: %s\n' "$name" "$why"
        head -3 "$tmp/err" | cut -c1-200 | sed 's/^/      | /'
    fi
    return 0
}

# gen_random FILE BYTES SEED NUL: BYTES pseudo-random bytes (Park-Miller,
# the same on every awk); NUL=0 leaves out NUL bytes
gen_random() {
    awk -v n="$2" -v x="$3" -v nul="$4" 'BEGIN {
        for (i = 0; i < n; i++) {
            x = (x * 16807) % 2147483647
            b = x % 256
            if (!nul && b == 0) b = 32
            printf "%c", b
        }
    }' >"$1"
}

# repeat STRING COUNT: STRING COUNT times, no newline
rep() {
    REP_S=$1 awk -v n="$2" 'BEGIN { s = ENVIRON["REP_S"]; for (i = 0; i < n; i++) printf "%s", s }'
}

pic() { printf '\\begin{tikzpicture}\n'; }
endpic() { printf '\\end{tikzpicture}\n'; }

# ---- truncated items: every item cut at 1/4, 1/2 and 3/4 of its bytes ----
if [ -d "$data" ]; then
    for f in "$data"/*.tex; do
        item=$(basename "$f" .tex)
        size=$(wc -c <"$f")
        for part in 1 2 3; do
            cut=$((size * part / 4))
            g=$tmp/trunc-$item-$part.tex
            dd if="$f" of="$g" bs="$cut" count=1 2>/dev/null
            run_case "truncated $item at $cut/$size" "0|2" "$g"
        done
    done
    # cut just after \begin{tikzpicture}: always an error
    for item in 1 100 219; do
        f=$data/$item.tex
        [ -f "$f" ] || continue
        g=$tmp/trunc-$item-begin.tex
        awk '{ print } /\\begin\{tikzpicture\}/ { exit }' "$f" >"$g"
        run_case "truncated $item after begin" 2 "$g"
    done
else
    fail=$((fail + 1))
    echo "FAIL  $data missing"
fi

# ---- binary input ----
gen_random "$tmp/binary.tex" 100000 42 1
run_case "binary (with NUL bytes)" 2 "$tmp/binary.tex"
for seed in 1 2 3 4 5; do
    gen_random "$tmp/binary-nonul-$seed.tex" 20000 "$seed" 0
    run_case "binary without NUL, seed $seed" "0|2" "$tmp/binary-nonul-$seed.tex"
done
# random bytes inside a picture
{ pic; gen_random /dev/stdout 20000 7 0; printf '\n'; endpic; } >"$tmp/binary-in-pic.tex"
run_case "binary inside a picture" "0|2" "$tmp/binary-in-pic.tex"

# ---- deep nesting ----
{ pic; rep '{' 10000; printf '\\draw (0,0) -- (1,1);'; rep '}' 10000; printf '\n'; endpic; } >"$tmp/braces.tex"
run_case "10000 nested braces" 0 "$tmp/braces.tex"
{ pic; rep '{' 10000; printf '\\draw (0,0) -- (1,1);\n'; endpic; } >"$tmp/braces-open.tex"
run_case "10000 unclosed braces" 2 "$tmp/braces-open.tex"
{ pic; printf '\\draw (0,0) -- (1,1);\n'; rep '}' 10000; printf '\n'; endpic; } >"$tmp/braces-close.tex"
run_case "10000 extra closing braces" 2 "$tmp/braces-close.tex"
{ rep '{' 10000; printf '\n'; } >"$tmp/braces-only.tex"
run_case "10000 braces, nothing else" 2 "$tmp/braces-only.tex"
{ pic; printf '\\node at (0,0) {'; rep '{' 10000; printf 'x'; rep '}' 10000; printf '};\n'; endpic; } >"$tmp/braces-node.tex"
run_case "10000 nested braces in a node" 0 "$tmp/braces-node.tex"
{ pic; printf '\\draw (0,0) -- ({'; rep '(' 10000; printf '1'; rep ')' 10000; printf '},1);\n'; endpic; } >"$tmp/parens.tex"
run_case "10000 nested parentheses" "0|2" "$tmp/parens.tex"
{ pic; printf '\\draw['; rep '[' 10000; rep ']' 10000; printf '] (0,0) -- (1,1);\n'; endpic; } >"$tmp/brackets.tex"
run_case "10000 nested brackets" "0|2" "$tmp/brackets.tex"
{ pic; rep '\begin{scope}[shift={(0.001,0)}]' 10000; printf '\\draw (0,0) -- (1,1);'; rep '\end{scope}' 10000; printf '\n'; endpic; } >"$tmp/scopes.tex"
run_case "10000 nested scopes" "0|2" "$tmp/scopes.tex"
# a style (every node's) appended to in each of 10,000 nested groups: TeX
# keeps what each group replaced, tikz2ir too, up to a bound (an error)
{ printf '\\tikzset{s/.style={draw}}\n'; pic; rep '\begin{scope}[s/.append style={draw}]' 10000; printf '\\node[s] {};'; rep '\end{scope}' 10000; printf '\n'; endpic; } >"$tmp/scopes-style.tex"
run_case "a style appended to in 10000 nested scopes" "0|2" "$tmp/scopes-style.tex"
{ pic; rep '{\tikzset{every node/.append style={draw}}' 10000; printf '\\node {};'; rep '}' 10000; printf '\n'; endpic; } >"$tmp/groups-every.tex"
run_case "every node appended to in 10000 nested groups" "0|2" "$tmp/groups-every.tex"
{ pic; rep '\foreach \x in {1} ' 100; printf '\\draw (0,0) -- (1,1);\n'; endpic; } >"$tmp/foreach-nest.tex"
run_case "100 nested \\foreach" "0|2" "$tmp/foreach-nest.tex"
{ printf '\\tikzset{s0/.style={draw}}'; i=1; while [ $i -le 200 ]; do printf '\\tikzset{s%d/.style={s%d}}' $i $((i - 1)); i=$((i + 1)); done
  printf '\n'; pic; printf '\\draw[s200] (0,0) -- (1,1);\n'; endpic; } >"$tmp/styles.tex"
run_case "styles nested 200 deep" "0|2" "$tmp/styles.tex"
{ pic; printf '\\tikzset{a/.style={a}}\\draw[a] (0,0) -- (1,1);\n'; endpic; } >"$tmp/style-loop.tex"
run_case "a style that uses itself" "0|2" "$tmp/style-loop.tex"

# ---- recursive macros ----
{ printf '\\def\\a{\\a}\n'; pic; printf '\\a\n'; endpic; } >"$tmp/rec1.tex"
run_case "\\def\\a{\\a}" 2 "$tmp/rec1.tex"
{ printf '\\def\\a{\\a\\a}\n'; pic; printf '\\a\n'; endpic; } >"$tmp/rec2.tex"
run_case "\\def\\a{\\a\\a}" 2 "$tmp/rec2.tex"
{ printf '\\def\\a{x\\a}\n'; pic; printf '\\draw (0,0) -- (\\a,1);\n'; endpic; } >"$tmp/rec3.tex"
run_case "\\def\\a{x\\a} in a path" 2 "$tmp/rec3.tex"
{ printf '\\def\\a#1{\\a{#1#1}}\n'; pic; printf '\\a{x}\n'; endpic; } >"$tmp/rec4.tex"
run_case "argument doubling" 2 "$tmp/rec4.tex"
{ printf '\\def\\a#1{\\a{xy#1}}\n'; pic; printf '\\a{x}\n'; endpic; } >"$tmp/rec5.tex"
run_case "argument growing by 2" 2 "$tmp/rec5.tex"
{ printf '\\newcommand{\\a}[1]{\\a{#1}}\n'; pic; printf '\\a{x}\n'; endpic; } >"$tmp/rec6.tex"
run_case "\\newcommand recursion" 2 "$tmp/rec6.tex"
{ printf '\\def\\a{\\b}\\def\\b{\\a}\n'; pic; printf '\\a\n'; endpic; } >"$tmp/rec7.tex"
run_case "mutual recursion" 2 "$tmp/rec7.tex"
{ pic; printf '\\foreach \\x in {1,2} {\\def\\a{\\a}\\a}\n'; endpic; } >"$tmp/rec8.tex"
run_case "recursion in a \\foreach" 2 "$tmp/rec8.tex"
{ printf '\\def\\a{\\draw (0,0) -- (1,1); \\a}\n'; pic; printf '\\a\n'; endpic; } >"$tmp/rec9.tex"
run_case "recursive macro that draws" 2 "$tmp/rec9.tex"
{ printf '\\def\\a{\\draw (0,0) -- (nowhere); \\a}\n'; pic; printf '\\a\n'; endpic; } >"$tmp/rec10.tex"
run_case "recursive macro, unparsed" 2 "$tmp/rec10.tex"
{ printf '\\def\\a{'; rep x 1000; printf '\\a}\n'; pic; printf '\\a\n'; endpic; } >"$tmp/rec11.tex"
run_case "recursive macro, wide body" 2 "$tmp/rec11.tex"
{ printf '\\def\\a#1{#1#1}\n'; pic; printf '\\node at (0,0) {'; rep '\a{' 40; printf 'x'; rep '}' 40; printf '};\n'; endpic; } >"$tmp/expo.tex"
run_case "2^40 tokens by nesting" "0|2" "$tmp/expo.tex"

# ---- huge input ----
# lines BYTES LINE: LINE (taken as it is) repeated to about BYTES bytes
lines() {
    LINE=$2 awk -v bytes="$1" 'BEGIN { line = ENVIRON["LINE"]; n = int(bytes / (length(line) + 1)) + 1
                                     for (i = 0; i < n; i++) print line }'
}
# also_check NAME WHY CONDITION...: a further condition on the case just run
# (its $tmp/out and $tmp/err); fails the case with WHY unless it holds
also_check() {
    name=$1 why=$2
    shift 2
    if [ -z "${HOSTILE_ONLY:-}" ] && ! "$@"; then
        fail=$((fail + 1))
        printf 'FAIL  %s: %s\n' "$name" "$why"
    fi
}
{ pic; lines 20000000 '\draw (0,0) -- (1,1) -- (2,0) -- cycle; % padding padding padding'; endpic; } \
    >"$tmp/huge.tex"
run_case "20 MB input" 2 "$tmp/huge.tex"
# samples=10^8: clamped to 10,000 with a warning, not 10^8 points
{ pic; printf '\\draw[samples=100000000,domain=0:1] plot (\\x,{\\x*\\x});\n'; endpic; } >"$tmp/samples.tex"
run_case "samples=10^8" 0 "$tmp/samples.tex"
also_check "samples=10^8" "expected a warning and 10000 points" sh -c '
    grep -q "warning: samples=1e+08 is outside 2 to 10000" "$1" &&
    [ "$(awk "/^poly/ { print (NF - 6) / 2 }" "$2")" = 10000 ]' sh "$tmp/err" "$tmp/out"
# 11 MB of plain text after a complete picture (under the 16 MiB limit):
# source text is not macro expansion, so it is legal and the picture is kept
{ pic; printf '\\draw (0,0) -- (1,0) -- (0,1) -- cycle;\n'; endpic
  lines 11000000 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod'; } \
    >"$tmp/text-after.tex"
run_case "11 MB of text after a picture" 0 "$tmp/text-after.tex"
also_check "11 MB of text after a picture" "the picture before the text was lost" \
    grep -q '^poly closed' "$tmp/out"
{ pic; printf '\\draw (0,0)'; rep ' -- (1,1)' 100000; printf ';\n'; endpic; } >"$tmp/longline.tex"
run_case "a 1 MB path on one line" "0|2" "$tmp/longline.tex"
{ pic; awk 'BEGIN { for (i = 0; i < 20000; i++) printf "\\node[draw] (n%d) at (%d,%d) {%d};\n", i, i % 100, i / 100, i }'; endpic; } >"$tmp/nodes.tex"
run_case "20000 named nodes" "0|2" "$tmp/nodes.tex"
{ pic; printf '\\draw (0,0) grid (100000,100000);\n'; endpic; } >"$tmp/grid.tex"
run_case "a 10^5 x 10^5 grid" "0|2" "$tmp/grid.tex"
{ pic; printf '\\draw[samples=100000000] plot (\\x,\\x);\n'; endpic; } >"$tmp/samples.tex"
run_case "plot with 10^8 samples" "0|2" "$tmp/samples.tex"

# ---- code run inside a path (matrix cells, pics, calendars) ----
# found by fuzz_tikz: a cell's \end{tikzpicture} closed the picture from
# inside the matrix, and the matrix went on with no graphics state
{ pic; printf '\\matrix{\\end{tikzpicture}};\n'; endpic; } >"$tmp/cell-end.tex"
run_case "\\end{tikzpicture} in a matrix cell" 2 "$tmp/cell-end.tex"
{ pic; printf '\\matrix{\\begin{scope}\\draw (0,0)--(1,1);\\\\};\n'; endpic; } >"$tmp/cell-open.tex"
run_case "a scope opened in a matrix cell, never closed" 2 "$tmp/cell-open.tex"
{ pic; printf '\\matrix{\\begin{scope}\\draw (0,0)--(1,1);\\end{scope}\\\\};\n'; endpic; } >"$tmp/cell-scope.tex"
run_case "a scope opened and closed in a matrix cell" 0 "$tmp/cell-scope.tex"
also_check "a scope opened and closed in a matrix cell" "the cell's segment was lost" grep -q '^poly open -14.226 -14.226 14.226 14.226 ' "$tmp/out"

# found by fuzz_tikz: \tikz's body closed the picture's own group (\end
# with no \begin), and the picture's end then read before the group stack
printf '\\tikz\\end;\n' >"$tmp/tikz-end.tex"
run_case "\\end in a \\tikz body" 2 "$tmp/tikz-end.tex"
printf '\\tikz{\\end{tikzpicture}}\n' >"$tmp/tikz-end2.tex"
run_case "\\end{tikzpicture} in a \\tikz body" 2 "$tmp/tikz-end2.tex"
{ pic; printf '\\foreach \\x in {1,2} {\\end{tikzpicture}}\n\\draw (0,0) -- (1,1);\n'; endpic; } >"$tmp/foreach-end.tex"
run_case "\\end{tikzpicture} in a \\foreach body" 2 "$tmp/foreach-end.tex"
{ pic; printf '\\scoped{\\end{tikzpicture}}\n\\draw (0,0) -- (1,1);\n'; endpic; } >"$tmp/scoped-end.tex"
run_case "\\end{tikzpicture} in a \\scoped body" 2 "$tmp/scoped-end.tex"
# found by fuzz_tikz: a number after an svg path's Z looped forever (Z takes
# no arguments, so nothing was read)
{ pic; printf '\\draw svg {M 0 0 L 20 20 z 5};\n\\draw (0,0) -- (1,1);\n'; endpic; } >"$tmp/svg-z.tex"
run_case "a number after an svg path's Z" 0 "$tmp/svg-z.tex"
also_check "a number after an svg path's Z" "no warning naming the svg data" grep -q "warning: svg path data it cannot read" "$tmp/err"

# ---- conditionals ----
{ pic; printf '\\draw (0,0) -- (1,1);\n\\ifnum 1<2 \\draw (0,0) -- (1,0);\n'; endpic; } >"$tmp/if-open.tex"
run_case "an \\if never closed (taken)" 2 "$tmp/if-open.tex"
{ pic; printf '\\ifnum 1>2 \\draw (0,0) -- (1,0);\n'; lines 11000000 '\draw (0,0) -- (1,1); \ifx\a\b \else \or \fi'; endpic; } >"$tmp/if-open-skip.tex"
run_case "an \\if never closed, 11 MB skipped" 2 "$tmp/if-open-skip.tex"
{ pic; printf '\\draw (0,0) -- (1,1); \\fi\n'; endpic; } >"$tmp/extra-fi.tex"
run_case "a \\fi with no \\if" 2 "$tmp/extra-fi.tex"
{ printf '\\newif\\ifnum\n'; pic; printf '\\draw (0,0) -- (1,1);\n'; endpic; } >"$tmp/newif-prim.tex"
run_case "\\newif of a primitive" 2 "$tmp/newif-prim.tex"
{ pic; rep '\iftrue ' 10000; printf '\\draw (0,0) -- (1,1);'; rep '\fi ' 10000; printf '\n'; endpic; } >"$tmp/if-nest.tex"
run_case "10000 nested conditionals" 2 "$tmp/if-nest.tex"
{ pic; rep '\iftrue ' 4000; printf '\\draw (0,0) -- (1,1);'; rep '\fi ' 4000; printf '\n'; endpic; } >"$tmp/if-nest-ok.tex"
run_case "4000 nested conditionals" 0 "$tmp/if-nest-ok.tex"
also_check "4000 nested conditionals" "the segment inside them was lost" grep -q '^poly open' "$tmp/out"
{ pic; printf '\\iffalse'; rep '\ifnum1=1 \else\or ' 100000; rep '\fi' 100000; printf '\\fi\\draw (0,0) -- (1,1);\n'; endpic; } >"$tmp/if-nest-skip.tex"
run_case "100000 nested conditionals skipped" 0 "$tmp/if-nest-skip.tex"
also_check "100000 nested conditionals skipped" "the segment after them was lost" grep -q '^poly open' "$tmp/out"
{ pic; rep '\ifnum\ifnum' 5000; printf '1'; endpic; } >"$tmp/if-in-if.tex"
run_case "conditions 10000 deep in conditions" 2 "$tmp/if-in-if.tex"
{ printf '\\def\\a{\\ifnum 1=1 \\a\\fi}\n'; pic; printf '\\a\n'; endpic; } >"$tmp/if-rec.tex"
run_case "recursion through a conditional" 2 "$tmp/if-rec.tex"
{ printf '\\def\\a{\\iftrue\\a\\else\\fi}\\def\\b{\\ifx\\a\\a\\b\\fi}\n'; pic; printf '\\b\n'; endpic; } >"$tmp/if-rec2.tex"
run_case "tail recursion leaving \\fi behind" 2 "$tmp/if-rec2.tex"
{ pic; printf '\\foreach \\x in {1,...,100000} {\\ifodd\\x \\else\\ifnum\\x>0 \\fi\\fi}\n'; endpic; } >"$tmp/if-loop.tex"
run_case "100000 conditionals in a \\foreach" "0|2" "$tmp/if-loop.tex"
{ pic; printf '\\ifnum 1=%s 2 \\fi\n' "$(rep 0 1000000)"; endpic; } >"$tmp/if-zeros.tex"
run_case "a number of a million digits" "0|2" "$tmp/if-zeros.tex"
{ pic; printf '\\foreach \\x in {1,2} {\\ifnum\\x=1 }\\draw (0,0) -- (1,1);\\fi\n'; endpic; } >"$tmp/if-foreach.tex"
run_case "a conditional left open in a \\foreach body" 2 "$tmp/if-foreach.tex"

# ---- loops ----
{ pic; printf '\\foreach \\x in {1,...,1000000000} {\\draw (0,0) -- (\\x,0);}\n'; endpic; } >"$tmp/foreach9.tex"
run_case "\\foreach over 10^9 items" 2 "$tmp/foreach9.tex"
{ pic; printf '\\foreach \\x in {1,...,100000} \\foreach \\y in {1,...,100000} {\\coordinate (p) at (\\x,\\y);}\n'; endpic; } >"$tmp/foreach10.tex"
run_case "nested \\foreach, 10^10 iterations" 2 "$tmp/foreach10.tex"
{ pic; printf '\\foreach \\x in {0,0.0000001,...,1} {\\coordinate (p) at (\\x,0);}\n'; endpic; } >"$tmp/foreach-step.tex"
run_case "\\foreach with a tiny step" 2 "$tmp/foreach-step.tex"
{ pic; printf '\\foreach \\x in {1,1,...,5} {\\coordinate (p) at (\\x,0);}\n'; endpic; } >"$tmp/foreach-zero.tex"
run_case "\\foreach with step 0" "0|2" "$tmp/foreach-zero.tex"

# ---- odd but short input ----
{ pic; printf '\\draw () -- (1,1);\n'; endpic; } >"$tmp/empty-coord.tex"
run_case "empty coordinate ()" "0|2" "$tmp/empty-coord.tex"
{ pic; printf '\\draw;\\draw -- ;\\path;\\node{};\\fill[] ;\\draw (0,0) -- cycle;\\draw cycle;\\draw [] () [] {};\n'; endpic; } >"$tmp/empty-paths.tex"
run_case "empty and degenerate paths" "0|2" "$tmp/empty-paths.tex"
{ pic; printf '\\draw (1e308,0) -- (1,0);\n\\draw[scale=1e300] (0,0) -- (1e10,0);\n\\node at (1e307,0) {x};\n'; endpic; } >"$tmp/huge-numbers.tex"
run_case "coordinates that overflow" "0|2" "$tmp/huge-numbers.tex"
{ pic; printf '\\draw (0,0) circle (1e-320);\\draw[scale=0] (0,0) -- (1,1) node {x};\\draw[xscale=0] (0,0) rectangle (1,1);\n'; endpic; } >"$tmp/tiny-numbers.tex"
run_case "zero and denormal scales" "0|2" "$tmp/tiny-numbers.tex"
{ pic; printf '\\begin{foo\\\n}\\end{foo\\\n}\\draw (0,0) -- (1,1);\n'; endpic; } >"$tmp/ctrl-newline.tex"
run_case "control symbol \\<newline> in a name" "0|2" "$tmp/ctrl-newline.tex"

# ---- pgfmath and pics (issue #17): random numbers, declared functions, pics, \tikz ----
{ pic; printf '\\foreach \\i in {1,...,1000000000} {\\pgfmathsetseed{\\i}\\draw (rnd,rand) -- (random(9),0);}\n'; endpic; } >"$tmp/seed-loop.tex"
run_case "\\pgfmathsetseed in a 10^9 loop" 2 "$tmp/seed-loop.tex"
{ pic; printf '\\pgfmathdeclarerandomlist{L}{'; rep '{a}' 200000; printf '}\\pgfmathrandomitem{\\c}{L}\\draw (0,0) -- (1,1);\n'; endpic; } >"$tmp/randlist.tex"
run_case "a random list of 200000 items" "0|2" "$tmp/randlist.tex"
{ printf '\\begin{tikzpicture}[declare function={f(\\x)=f(\\x)*f(\\x);}]\n\\draw (0,0) -- ({f(1)},1);\n'; endpic; } >"$tmp/fn-rec.tex"
run_case "a declared function calling itself twice" 0 "$tmp/fn-rec.tex"
{ printf '\\pgfmathdeclarefunction{g}{1}{\\pgfmathparse{g(#1)+g(#1)}}\n'; pic; rep '\draw (0,0) -- ({g(1)},1); ' 2000; printf '\n'; endpic; } >"$tmp/fn-rec2.tex"
run_case "2000 calls of a recursive \\pgfmathdeclarefunction" "0|2" "$tmp/fn-rec2.tex"
{ pic; printf '\\tikzset{a/.pic={\\pic {a}; \\pic {a};}}\n\\pic {a};\n'; endpic; } >"$tmp/pic-rec.tex"
run_case "a pic drawing itself twice" 2 "$tmp/pic-rec.tex"
{ pic; printf '\\draw[to path={to (x)}] (0,0) to (1,1);\n'; endpic; } >"$tmp/topath-rec.tex"
run_case "a to path that uses itself" 2 "$tmp/topath-rec.tex"
{ pic; printf '\\tikzset{t/.style={to path={to (\\tikztotarget) to (\\tikztotarget) edge (\\tikztotarget)}}}\n\\draw[t] (0,0) to (1,1);\n'; endpic; } >"$tmp/topath-rec3.tex"
run_case "a to path that uses itself three times" 2 "$tmp/topath-rec3.tex"
{ pic; printf '\\node (a) {};\\path (a) edge[to path={edge (\\tikztotarget)}] (1,1);\n'; endpic; } >"$tmp/topath-edge-rec.tex"
run_case "an edge whose to path is an edge" 2 "$tmp/topath-edge-rec.tex"
{ pic; printf '\\draw[to path={to (1,1) to (2,2) edge (3,3)}] (0,0) to (1,1);\n'; endpic; } >"$tmp/topath-rec-abs.tex"
run_case "a to path that uses itself three times, to points" 2 "$tmp/topath-rec-abs.tex"
{ pic; printf '\\draw[to path={-- (\\tikztotarget) to[line to] +(1,0)}] (0,0) to (1,1);\n'; endpic; } >"$tmp/topath-inner-rel.tex"
run_case "a to in a to path to a computed point (legal)" 0 "$tmp/topath-inner-rel.tex"
{ pic; rep '\scoped[red] ' 10000; printf '\\draw (0,0) -- (1,1);\n'; endpic; } >"$tmp/scoped-nest.tex"
run_case "10000 nested \\scoped" "0|2" "$tmp/scoped-nest.tex"
{ printf '\\tikz \\draw (0,0) -- (1,1)\n'; rep 'x ' 100000; } >"$tmp/tikz-open.tex"
run_case "\\tikz without its ;" 2 "$tmp/tikz-open.tex"
{ rep '\tikz{' 10000; printf '\\draw (0,0) -- (1,1);\n'; } >"$tmp/tikz-nest.tex"
run_case "10000 nested \\tikz{" 2 "$tmp/tikz-nest.tex"

# ---- matrices, decorations, plots (issue #17) ----
{ pic; printf '\\draw[decorate, decoration={zigzag, segment length=0.001pt}] (0,0) -- (10,0);\n'; endpic; } >"$tmp/deco-limit.tex"
run_case "a decoration of 10^7 segments (its point limit)" 0 "$tmp/deco-limit.tex"
{ pic; printf '\\draw[decorate, decoration={coil, amplitude=1e300pt, raise=1e308pt, segment length=1e-300pt}] (0,0) -- (1,0);\n'; endpic; } >"$tmp/deco-huge.tex"
run_case "decoration dimensions past TeX's largest" 0 "$tmp/deco-huge.tex"
{ pic; printf '\\draw (0,0) '; rep 'decorate[decoration=zigzag]{ -- (1,0) ' 1000; rep '}' 1000; printf ';\n'; endpic; } >"$tmp/deco-nest.tex"
run_case "1000 nested decorate operations" "0|2" "$tmp/deco-nest.tex"
{ pic; printf '\\matrix[matrix of nodes]{'; rep 'a & ' 100000; printf '\\\\};\n'; endpic; } >"$tmp/matrix-wide.tex"
run_case "a matrix row of 100000 cells" "0|2" "$tmp/matrix-wide.tex"
{ pic; printf '\\matrix{'; rep '& ' 20000; printf '\\\\'; rep '\\\\ ' 20000; printf '};\n'; endpic; } >"$tmp/matrix-empty.tex"
run_case "a matrix of 40000 empty cells and rows" "0|2" "$tmp/matrix-empty.tex"
{ pic; printf '\\matrix{\\matrix{\\node{a};\\\\};\\\\};\n'; endpic; } >"$tmp/matrix-nest.tex"
run_case "a matrix inside a matrix" 0 "$tmp/matrix-nest.tex"
{ pic; printf '\\draw plot[samples at={1,...,1000000000}, smooth, mark=*] (\\x,{\\x*\\x});\n\\draw plot[tension=1e300, smooth] coordinates {(0,0) (1,1) (2,0)};\n'; endpic; } >"$tmp/plot-samples.tex"
run_case "plot samples at 10^9 points, tension 1e300" 0 "$tmp/plot-samples.tex"

printf 'hostile: %d passed, %d failed (CPU time limit %s s)\n' $pass $fail "$limit"
[ $fail = 0 ]
