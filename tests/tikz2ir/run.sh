#!/bin/sh
# tests/tikz2ir/run.sh -- golden tests of tikz2ir.
#
#   sh tests/tikz2ir/run.sh                  run everything (from any directory)
#   sh tests/tikz2ir/run.sh NAME...          only these golden tests (no dataset part)
#   sh tests/tikz2ir/run.sh --update NAME... rewrite NAME.ir from the current output
#                                            (only after checking the numbers against
#                                            TeX, see "Checking against TeX" below)
#
# The program is ${BUILD:-build}/bin/tikz2ir (BUILD relative to the repository root).
#
# 1. Golden tests. For every tests/tikz2ir/NAME.tex (each says in its first
#    comment what it tests), tikz2ir runs from the repository root as
#    `tikz2ir [ARGS] tests/tikz2ir/NAME.tex` and
#      NAME.ir      is the expected standard output, byte for byte;
#      NAME.status  holds the expected exit status (default 0);
#      NAME.errpat  holds the expected standard error as extended regular
#                   expressions, one per line: every stderr line must match one
#                   of them, and every pattern must match some stderr line
#                   unless it starts with '?' (optional). Without NAME.errpat
#                   stderr must be empty;
#      NAME.args    holds extra options (one line, split at blanks).
#    A failure prints the diff (expected vs actual) and the stderr.
#    xfail-NAME.tex are known bugs: their expected files say what TeX draws,
#    which tikz2ir does not (yet). They print XFAIL and do not fail the run;
#    when one starts to pass it prints XPASS: rename it (drop "xfail-").
# 2. Options and streams: stdin, --id, --no-header, --quiet, --strict, --help,
#    --version, a bad option, a missing file, several files in one stream.
#    Metamorphic tests (metamorphic/NAME.tex and NAME.inlined.tex): a picture
#    whose conditionals select branches gives the IR of the picture with
#    those branches written out.
# 3. The DiagramIR development items (tests/data/diagramir-dev/tikz, 232
#    files): every item exits 0 with zero `unparsed` records, except item 365
#    whose undefined \MakeAnUnitCube must give unparsed records naming it and
#    a warning with its line; the output is deterministic (two runs, same
#    bytes; one run over all files = the files one by one).
#
# Checking against TeX (how the expected files were made): every number of
# a NAME.ir was compared with what TeX draws for NAME.tex with the stand-in
# class contrib/tex/IM.cls: path coordinates with `latex` and `dvisvgm
# --no-fonts` (PGF's dvisvgm driver writes each path in pt, relative to the
# picture origin, y up); node and coordinate positions by querying
# \pgfpointanchor{NAME}{ANCHOR} under \pgftransformreset and \typeout at
# the end of the picture; text boxes and the picture's ink extent with
# pdfLaTeX and the class's fonts (Open Sans at scale 0.95 through the
# opensans package, sfmath and sansmath; before, LuaLaTeX and fontspec
# with Open Sans at full size and CM math), ink extent as
# tests/tex/check-tex.sh measures it. Where TeX's fixed-point arithmetic
# differs from the exact value by hundredths of a point (pgf's approximate
# veclen in curved `to` paths, border points), the exact value is expected;
# a test's comment says so. Avoid coordinates on rounding ties (0.125in =
# 9.03375pt): their last digit depends on the compiler.
#
# Exit status: 0 all passed, 1 a test failed, 2 tikz2ir is missing.
. "$(dirname "$0")/../lib.sh"
T2I=$bin/tikz2ir
[ -x "$T2I" ] || { echo "tikz2ir/run.sh: $T2I not found (make first)" >&2; exit 2; }
dir=tests/tikz2ir
data=tests/data/diagramir-dev/tikz
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tikz2ir-tests.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

pass=0 fail=0 xfail=0 xpass=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); printf 'FAIL  %s\n' "$1"; }

# errpat_check PATFILE ERRFILE: 0 when stderr matches the patterns (see above)
errpat_check() {
    awk -v pats="$1" '
        BEGIN {
            while ((getline p < pats) > 0) {
                if (p == "") continue
                n++
                opt[n] = (substr(p, 1, 1) == "?")
                pat[n] = opt[n] ? substr(p, 2) : p
            }
        }
        {
            hit = 0
            for (i = 1; i <= n; i++) if ($0 ~ pat[i]) { hit = 1; seen[i] = 1 }
            if (!hit) { printf "unexpected stderr line: %s\n", $0; bad = 1 }
        }
        END {
            for (i = 1; i <= n; i++)
                if (!opt[i] && !seen[i]) { printf "no stderr line matches: %s\n", pat[i]; bad = 1 }
            exit bad
        }' "$2"
}

# golden NAME: runs one golden test; returns 0 when it passes
golden() {
    name=$1
    tex=$dir/$name.tex
    args=
    [ -f "$dir/$name.args" ] && args=$(cat "$dir/$name.args")
    want_status=0
    [ -f "$dir/$name.status" ] && want_status=$(cat "$dir/$name.status")
    # shellcheck disable=SC2086
    "$T2I" $args "$tex" >"$tmp/out" 2>"$tmp/err"
    status=$?
    good=0
    msg=
    if [ "$status" -ge 128 ]; then
        msg="crashed (exit status $status)"
    elif [ "$status" != "$want_status" ]; then
        msg="exit status $status, expected $want_status"
    elif ! cmp -s "$dir/$name.ir" "$tmp/out"; then
        msg="output differs (diff expected actual):
$(diff "$dir/$name.ir" "$tmp/out" | head -40)"
    elif [ -f "$dir/$name.errpat" ]; then
        if ! e=$(errpat_check "$dir/$name.errpat" "$tmp/err"); then msg="stderr: $e"; fi
    elif [ -s "$tmp/err" ]; then
        msg="unexpected stderr"
    fi
    [ -z "$msg" ] && good=1
    if [ $good = 0 ] && [ -s "$tmp/err" ]; then
        msg="$msg
stderr was:
$(head -10 "$tmp/err")"
    fi
    LAST_MSG=$msg
    [ $good = 1 ]
}

run_golden() {
    name=$1
    [ -f "$dir/$name.tex" ] || { bad "$name: no $dir/$name.tex"; return; }
    [ -f "$dir/$name.ir" ] || { bad "$name: no expected output $dir/$name.ir"; return; }
    case $name in
    xfail-*)
        if golden "$name"; then
            xpass=$((xpass + 1))
            printf 'XPASS %s (fixed? rename it without xfail-)\n' "$name"
        else
            xfail=$((xfail + 1))
            printf 'XFAIL %s\n' "$name"
        fi ;;
    *)
        if golden "$name"; then ok; else bad "$name: $LAST_MSG"; fi ;;
    esac
}

if [ "${1-}" = --update ]; then
    shift
    [ $# -gt 0 ] || { echo "usage: run.sh --update NAME..." >&2; exit 2; }
    for name in "$@"; do
        name=$(basename "$name" .tex)
        args=
        [ -f "$dir/$name.args" ] && args=$(cat "$dir/$name.args")
        # shellcheck disable=SC2086
        "$T2I" $args "$dir/$name.tex" >"$dir/$name.ir"
        echo "updated $dir/$name.ir (exit status $?)"
    done
    exit 0
fi

# ---- 1. golden tests ---------------------------------------------------------
if [ $# -gt 0 ]; then
    for name in "$@"; do run_golden "$(basename "$name" .tex)"; done
else
    for tex in "$dir"/*.tex; do run_golden "$(basename "$tex" .tex)"; done
fi
if [ $# -gt 0 ]; then
    printf 'tikz2ir: %d passed, %d failed, %d xfail, %d xpass\n' $pass $fail $xfail $xpass
    [ $fail = 0 ]
    exit
fi

# ---- 2. options and streams --------------------------------------------------
# expect DESC WANT_STATUS CMD...: runs CMD (stdout -> $tmp/o, stderr -> $tmp/e)
expect() {
    desc=$1 want=$2
    shift 2
    "$@" >"$tmp/o" 2>"$tmp/e"
    st=$?
    if [ "$st" != "$want" ]; then
        bad "$desc: exit status $st, expected $want
$(head -5 "$tmp/e")"
        return 1
    fi
    return 0
}
# has FILE DESC ERE: FILE has a line matching ERE
has() {
    if grep -Eq -- "$3" "$1"; then ok; else bad "$2: no line matching '$3' in:
$(head -10 "$1")"; fi
}
hasnt() {
    if grep -Eq -- "$3" "$1"; then bad "$2: unexpected line matching '$3'"; else ok; fi
}

t=$dir/path-lines.tex
u=$dir/undefined-macro.tex
# standard input: id "stdin" (or --id), src=<stdin>, same geometry as the file
if expect "stdin" 0 sh -c '"$1" <"$2"' sh "$T2I" "$t"; then
    has "$tmp/o" "stdin" '^diagram stdin src=<stdin> line=6$'
    grep -v '^diagram ' "$tmp/o" >"$tmp/o1"
    grep -v '^diagram ' "$dir/path-lines.ir" >"$tmp/o2"
    if cmp -s "$tmp/o1" "$tmp/o2"; then ok; else bad "stdin: geometry differs from the file's"; fi
fi
if expect "--id" 0 sh -c '"$1" --id=fig7 - <"$2"' sh "$T2I" "$t"; then
    has "$tmp/o" "--id" '^diagram fig7 src=<stdin> '
fi
if expect "-i" 0 sh -c '"$1" -i fig8 <"$2"' sh "$T2I" "$t"; then
    has "$tmp/o" "-i" '^diagram fig8 src=<stdin> '
fi
if expect "--no-header" 0 "$T2I" --no-header "$t"; then
    hasnt "$tmp/o" "--no-header" '^diagramir '
    tail -n +2 "$dir/path-lines.ir" >"$tmp/o2"
    if cmp -s "$tmp/o" "$tmp/o2"; then ok; else bad "--no-header: output is not the golden output minus its header"; fi
fi
# an unparsed construct: warning, exit 0; --quiet drops the warning; --strict exits 1
if expect "unparsed: exit 0" 0 "$T2I" "$u"; then
    has "$tmp/e" "unparsed: warning" "^$u:8:([0-9]+:)? warning: .*MakeAnUnitCube"
fi
if expect "--quiet" 0 "$T2I" --quiet "$u"; then
    if [ -s "$tmp/e" ]; then bad "--quiet: stderr not empty"; else ok; fi
    if cmp -s "$tmp/o" "$dir/undefined-macro.ir"; then ok; else bad "--quiet: output differs"; fi
fi
expect "-q" 0 "$T2I" -q "$u" && ok
if expect "--strict with unparsed" 1 "$T2I" --strict "$u"; then
    if cmp -s "$tmp/o" "$dir/undefined-macro.ir"; then ok; else bad "--strict: output differs"; fi
fi
expect "--strict -q with unparsed" 1 "$T2I" --strict -q "$u" && ok
expect "--strict without unparsed" 0 "$T2I" --strict "$t" && ok
# --strict does not hide an input error: 2 wins over 1
expect "--strict with an input error" 2 "$T2I" --strict -q "$u" "$dir/err-truncated.tex" && ok
if expect "--help" 0 "$T2I" --help; then
    has "$tmp/o" "--help" '^usage: tikz2ir '
fi
expect "-h" 0 "$T2I" -h && ok
if expect "--version" 0 "$T2I" --version; then
    has "$tmp/o" "--version" '^tikz2ir '
fi
if expect "bad option" 2 "$T2I" --no-such-option "$t"; then
    has "$tmp/e" "bad option" 'usage: tikz2ir'
    if [ -s "$tmp/o" ]; then bad "bad option: output on stdout"; else ok; fi
fi
if expect "missing file" 2 "$T2I" "$dir/no-such-file.tex"; then
    has "$tmp/e" "missing file" 'no-such-file\.tex'
fi
# several files: one stream, one header, records in argument order
if expect "several files" 0 "$T2I" "$t" "$dir/let.tex" "$dir/multi-picture.tex"; then
    n=$(grep -c '^diagramir 1$' "$tmp/o")
    [ "$n" = 1 ] && ok || bad "several files: $n stream headers"
    ids=$(sed -n 's/^diagram \([^ ]*\) .*/\1/p' "$tmp/o" | tr '\n' ' ')
    [ "$ids" = "path-lines let multi-picture multi-picture.2 multi-picture.3 " ] && ok ||
        bad "several files: ids '$ids'"
fi
# a file with an error among good ones: exit 2, the error named, the others converted
if expect "one bad file among good ones" 2 "$T2I" "$t" "$dir/err-recursive.tex" "$dir/let.tex"; then
    has "$tmp/e" "one bad file" "^$dir/err-recursive\\.tex:[0-9]+:[0-9]+: error: "
    ids=$(sed -n 's/^diagram \([^ ]*\) .*/\1/p' "$tmp/o" | tr '\n' ' ')
    [ "$ids" = "path-lines let " ] && ok || bad "one bad file: ids '$ids'"
fi

# ---- 2b. metamorphic tests: conditionals --------------------------------------
# For every tests/tikz2ir/metamorphic/NAME.tex with NAME.inlined.tex (the
# branches TeX takes written out on the same lines, no conditional): both
# exit 0 without warnings, and their IR is the same but for the diagram line.
for f in "$dir"/metamorphic/*.inlined.tex; do
    [ -f "$f" ] || continue
    m=${f%.inlined.tex}.tex
    mn=$(basename "$m" .tex)
    "$T2I" "$m" >"$tmp/m1" 2>"$tmp/e1"; s1=$?
    "$T2I" "$f" >"$tmp/m2" 2>"$tmp/e2"; s2=$?
    if [ $s1 != 0 ] || [ $s2 != 0 ] || [ -s "$tmp/e1" ] || [ -s "$tmp/e2" ]; then
        bad "metamorphic $mn: exit status $s1 / $s2 (inlined), stderr: $(head -3 "$tmp/e1" "$tmp/e2")"
        continue
    fi
    grep -v '^diagram ' "$tmp/m1" >"$tmp/m1b"
    grep -v '^diagram ' "$tmp/m2" >"$tmp/m2b"
    if [ "$(grep -c . "$tmp/m1b")" -gt 3 ] && cmp -s "$tmp/m1b" "$tmp/m2b"; then ok
    else bad "metamorphic $mn: IR differs from $mn.inlined's (diff):
$(diff "$tmp/m1b" "$tmp/m2b" | head -20)"; fi
done

# ---- 2c. metamorphic tests: the same picture moved ------------------------------
# For every tests/tikz2ir/metamorphic/NAME.moved-*.tex beside NAME.tex: its
# comment lines "% moved: DX DY" (pt) and "% rename: OLD NEW ..." say how it
# differs (shifted by a scope, reformatted, a graph written otherwise, nodes
# renamed); both exit 0 without warnings, NAME draws more than three text
# and poly records, and NAME's IR moved and renamed so (ir-moved.awk) is
# the variant's, numbers within 0.003pt (ir-close.awk).
for f in "$dir"/metamorphic/*.moved-*.tex; do
    [ -f "$f" ] || continue
    m=${f%%.moved-*}.tex
    vn=$(basename "$f" .tex)
    mv=$(sed -n 's/^% moved: *//p' "$f" | head -1)
    rn=$(sed -n 's/^% rename: *//p' "$f" | tr '\n' ' ')
    set -- $mv
    if [ $# != 2 ]; then bad "metamorphic $vn: no '% moved: DX DY' line"; continue; fi
    "$T2I" "$m" >"$tmp/m1" 2>"$tmp/e1"; s1=$?
    "$T2I" "$f" >"$tmp/m2" 2>"$tmp/e2"; s2=$?
    if [ $s1 != 0 ] || [ $s2 != 0 ] || [ -s "$tmp/e1" ] || [ -s "$tmp/e2" ]; then
        bad "metamorphic $vn: exit status $s1 / $s2, stderr: $(head -3 "$tmp/e1" "$tmp/e2")"
        continue
    fi
    awk -v dx="$1" -v dy="$2" -v ren="$rn" -f "$dir/ir-moved.awk" "$tmp/m1" >"$tmp/m1b"
    awk -v dx=0 -v dy=0 -f "$dir/ir-moved.awk" "$tmp/m2" >"$tmp/m2b"
    if [ "$(grep -c '^\(text\|poly\) ' "$tmp/m1b")" -le 3 ]; then
        bad "metamorphic $vn: $(basename "$m") draws 3 text and poly records or fewer"
    elif awk -f "$dir/ir-close.awk" "$tmp/m1b" "$tmp/m2b" 2>"$tmp/d"; then ok
    else bad "metamorphic $vn: not the IR of $(basename "$m") moved by ($1, $2): $(cat "$tmp/d")"; fi
done

# ---- 3. the DiagramIR development items --------------------------------------
if [ -d "$data" ]; then
    n=0 crashed=0 nonzero=0 withunp=0
    for f in "$data"/*.tex; do
        n=$((n + 1))
        item=$(basename "$f" .tex)
        "$T2I" "$f" >"$tmp/o" 2>"$tmp/e"
        st=$?
        if [ $st -ge 128 ]; then crashed=$((crashed + 1)); bad "dataset $item: crashed ($st)"; continue; fi
        if [ $st != 0 ]; then nonzero=$((nonzero + 1)); bad "dataset $item: exit status $st: $(head -1 "$tmp/e")"; continue; fi
        u=$(grep -c '^unparsed ' "$tmp/o")
        if [ "$item" = 365 ]; then
            if [ "$u" -gt 0 ] && ! grep '^unparsed ' "$tmp/o" | grep -qv 'MakeAnUnitCube'; then ok
            else bad "dataset 365: expected only unparsed records naming \\MakeAnUnitCube, got $u:
$(grep '^unparsed ' "$tmp/o" | head -5)"; fi
            has "$tmp/e" "dataset 365: warning" "^$data/365\\.tex:15:([0-9]+:)? warning: .*MakeAnUnitCube"
        elif [ "$u" != 0 ]; then
            withunp=$((withunp + 1))
            bad "dataset $item: $u unparsed record(s): $(grep -m1 '^unparsed ' "$tmp/o")"
        else
            ok
        fi
    done
    [ $n = 232 ] && ok || bad "dataset: $n items, expected 232"
    # deterministic: two runs give the same bytes; all files at once = one by one
    "$T2I" -q "$data"/*.tex >"$tmp/run1" 2>/dev/null
    "$T2I" -q "$data"/*.tex >"$tmp/run2" 2>/dev/null
    if cmp -s "$tmp/run1" "$tmp/run2"; then ok; else bad "dataset: two runs differ"; fi
    : >"$tmp/run3"
    echo "diagramir 1" >"$tmp/run3"
    for f in "$data"/*.tex; do "$T2I" -q --no-header "$f" >>"$tmp/run3" 2>/dev/null; done
    if cmp -s "$tmp/run1" "$tmp/run3"; then ok; else bad "dataset: one run over all files differs from the files one by one"; fi
else
    bad "dataset: $data missing"
fi

printf 'tikz2ir: %d passed, %d failed, %d xfail, %d xpass\n' $pass $fail $xfail $xpass
[ $fail = 0 ]
