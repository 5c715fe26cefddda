#!/bin/sh
# Golden tests of irlint (run by tests/run-all.sh; BUILD defaults to build).
#
# Every tests/irlint/CRITERION-VALUE-WHAT.ir is a tiny diagram whose comment
# says why CRITERION must come out VALUE (yes, no or na); the test runs
# `irlint --only CRITERION --format tsv` on it and compares. A failing one
# (VALUE no) also says, in a line "# blame: I,J" (or "# blame: none"),
# which elements the verdict must blame: the elems= of the finding
# `irlint --only CRITERION --format ir` writes. A golden whose verdict
# depends on the teacher's request carries it in a line "# request: TEXT",
# which the test passes as `irlint --request TEXT` (every run on that file).
# Then the command-line
# contract: exit status, output formats, errors; --format ir's golden
# outputs (format-ir/NAME.ir -> NAME.expected); and over the dev items,
# that every blamed element is a drawn one and --format ir round-trips.
BUILD=${BUILD:-build}
IRLINT="$BUILD/bin/irlint"
dir=$(dirname "$0")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/irlint-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
fails=0
count=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

if [ ! -x "$IRLINT" ]; then
    echo "FAIL: $IRLINT not built"
    exit 1
fi

criteria=$("$IRLINT" --list | awk 'NR > 1 && /^  / { print $1 }')
[ -n "$criteria" ] || fail "irlint --list names no criteria"

# --- golden verdicts ----------------------------------------------------------
for f in "$dir"/*.ir; do
    [ -f "$f" ] || continue
    base=$(basename "$f" .ir)
    crit=
    for c in $criteria; do
        case $base in "$c"-yes-* | "$c"-no-* | "$c"-na-*) crit=$c ;; esac
    done
    if [ -z "$crit" ]; then
        fail "$base: name must be CRITERION-(yes|no|na)-WHAT"
        continue
    fi
    rest=${base#"$crit"-}
    want=${rest%%-*}
    count=$((count + 1))
    # the request, if the file states one: set as $1 for the runs below
    req=$(sed -n 's/^# request: *//p' "$f" | head -1)
    if [ -n "$req" ]; then set -- --request "$req"; else set --; fi
    got=$("$IRLINT" "$@" --only "$crit" --format tsv "$f" 2>"$tmp/err" |
        awk -F'\t' 'NR > 1 { print $4 }' | sort -u | tr '\n' ' ')
    got=${got% }
    if [ "$got" != "$want" ]; then
        note=$("$IRLINT" "$@" --only "$crit" --format tsv "$f" 2>&1 | awk -F'\t' 'NR > 1 { print $5 }')
        fail "$base: $crit is '$got', expected '$want' ($note$(cat "$tmp/err"))"
    fi
    # every verdict names a source line when it says no
    if [ "$want" = no ]; then
        line=$("$IRLINT" "$@" --only "$crit" "$f" 2>/dev/null | head -1)
        case $line in
            *:[0-9]*": $crit: no: "*"[geom/$crit]") ;;
            *) fail "$base: diagnostic '$line' lacks file:line: or [geom/$crit]" ;;
        esac
        # the elements it blames
        want_b=$(sed -n 's/^# blame: *//p' "$f" | head -1)
        if [ -z "$want_b" ]; then
            fail "$base: a failing golden needs a '# blame: I,J' (or 'none') line"
        else
            got_b=$("$IRLINT" "$@" --only "$crit" --format ir "$f" 2>/dev/null |
                sed -n 's/^finding .* elems=\([0-9,]*\).*/\1/p')
            [ -n "$got_b" ] || got_b=none
            [ "$got_b" = "$want_b" ] || fail "$base: blames '$got_b', expected '$want_b'"
        fi
    fi
done

# --- command line ---------------------------------------------------------------
ok="$dir/angle-labels-yes-right-triangle.ir"
bad="$dir/angle-labels-no-wrong-degrees.ir"

"$IRLINT" --help > "$tmp/out" 2>&1 || fail "--help exits $?"
grep -q -- '--rubric' "$tmp/out" || fail "--help does not mention --rubric"
"$IRLINT" --version > "$tmp/out" 2>&1 || fail "--version exits $?"
grep -q 'irlint' "$tmp/out" || fail "--version does not name irlint"

"$IRLINT" --no-such-option "$ok" > /dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown option must exit 2"
"$IRLINT" --rubric nosuch "$ok" > /dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown rubric must exit 2"
"$IRLINT" --only no-such-criterion "$ok" > /dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown criterion must exit 2"
"$IRLINT" --format xml "$ok" > /dev/null 2>&1
[ $? -eq 2 ] || fail "an unknown format must exit 2"

# exit 0 when every check passes, 1 when one says no
"$IRLINT" --only angle-labels "$ok" > /dev/null 2>&1
[ $? -eq 0 ] || fail "a passing diagram must exit 0"
"$IRLINT" --only angle-labels "$bad" > /dev/null 2>&1
[ $? -eq 1 ] || fail "a failing check must exit 1"
"$IRLINT" --skip angle-labels "$bad" > /dev/null 2>&1
[ $? -eq 0 ] || fail "--skip must drop the failing check"

# parameters: --param changes what the checks accept; bad settings exit 2
# (the "60°" label sits at a 36.9° corner: 23.1° off)
"$IRLINT" --only angle-labels --param angle-tol=30 "$bad" > /dev/null 2>&1
[ $? -eq 0 ] || fail "--param angle-tol=30 must accept a 23.1 deg difference"
"$IRLINT" --only angle-labels --param angle-tol=30 --param angle-tol=20 "$bad" > /dev/null 2>&1
[ $? -eq 1 ] || fail "a later --param must win"
printf '# a comment\n\nangle-tol 30   # trailing comment\n' > "$tmp/params"
"$IRLINT" --only angle-labels --params "$tmp/params" "$bad" > /dev/null 2>&1
[ $? -eq 0 ] || fail "--params FILE must set angle-tol"
"$IRLINT" --param angle-tol=30 --list-params > "$tmp/out" 2>&1 || fail "--list-params exits $?"
awk -F'\t' 'NR == 1 && $0 != "name\tvalue\tdefault\tunit\tlo\thi\torigin\tgrid" { bad = 1 }
    $1 == "angle-tol" { seen = ($2 == 30 && $3 == 6 && $4 == "deg" && $7 == "fitted") }
    NR > 1 && NF != 8 { bad = 1 }
    END { exit bad || !seen }' "$tmp/out" || fail "--list-params table: $(head -3 "$tmp/out")"
for a in no-such=1 angle-tol=abc angle-tol=1000 angle-tol= angle-tol=nan =3; do
    "$IRLINT" --param "$a" "$ok" > /dev/null 2> "$tmp/err"
    [ $? -eq 2 ] || fail "--param $a must exit 2"
    grep -q '^irlint: error: --param: ' "$tmp/err" || fail "--param $a: no error message"
done
printf 'angle-tol 3\n  length-tol 1e999\n' > "$tmp/params"
"$IRLINT" --params "$tmp/params" "$ok" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "a bad --params file must exit 2"
grep -q "^irlint: $tmp/params:2:3: error: parameter length-tol" "$tmp/err" ||
    fail "--params: error must name file:line:col ($(cat "$tmp/err"))"

# requests: --request applies to every diagram; --requests FILE gives each
# item its own (ITEM or ITEM.N); a diagram with no request is checked as
# without one; a bad file is an error naming file:line:col (exit 2)
cube="$dir/core-math-no-request-cube-count.ir"
"$IRLINT" --only core-math "$cube" > /dev/null 2>&1
[ $? -eq 0 ] || fail "without a request the cube tower must pass core-math"
"$IRLINT" --only core-math --request "4 cubes stacked" "$cube" > /dev/null 2>&1
[ $? -eq 1 ] || fail "--request '4 cubes stacked' must fail the 3-cube tower"
"$IRLINT" --only core-math --request "3 cubes stacked" "$cube" > /dev/null 2>&1
[ $? -eq 0 ] || fail "--request '3 cubes stacked' must pass the 3-cube tower"
printf 'item\tcategory\tprompt\nother\tx\t4 cubes stacked\ntower\tx\t4 cubes stacked\n' > "$tmp/req.tsv"
"$IRLINT" --only core-math --requests "$tmp/req.tsv" "$cube" > /dev/null 2>&1
[ $? -eq 1 ] || fail "--requests: item 'tower' must get its request"
sed 's/^diagram tower /diagram tower.2 /' "$cube" > "$tmp/tower2.ir"
"$IRLINT" --only core-math --requests "$tmp/req.tsv" "$tmp/tower2.ir" > /dev/null 2>&1
[ $? -eq 1 ] || fail "--requests: diagram 'tower.2' must get item 'tower's request"
sed 's/^diagram tower /diagram towers /' "$cube" > "$tmp/towers.ir"
"$IRLINT" --only core-math --requests "$tmp/req.tsv" "$tmp/towers.ir" > /dev/null 2>&1
[ $? -eq 0 ] || fail "--requests: diagram 'towers' has no request"
"$IRLINT" --only core-math --request "3 cubes" --requests "$tmp/req.tsv" "$tmp/towers.ir" > /dev/null 2>&1
[ $? -eq 0 ] || fail "--requests: an unlisted diagram gets --request"
printf 'item\trequest\ntower\t4 cubes\n' > "$tmp/req2.tsv"
"$IRLINT" --only core-math --requests "$tmp/req2.tsv" "$cube" > /dev/null 2>&1
[ $? -eq 1 ] || fail "--requests: a 'request' column must be read"
printf 'item\tprompt\ntower\n' > "$tmp/bad.tsv"
"$IRLINT" --requests "$tmp/bad.tsv" "$cube" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "--requests: a short row must exit 2"
grep -q "^irlint: $tmp/bad.tsv:2:6: error: " "$tmp/err" ||
    fail "--requests: a short row must be named file:line:col ($(cat "$tmp/err"))"
printf 'id\tprompt\n' > "$tmp/bad.tsv"
"$IRLINT" --requests "$tmp/bad.tsv" "$cube" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "--requests: a header without 'item' must exit 2"
grep -q "^irlint: $tmp/bad.tsv:1:1: error: .*'item'" "$tmp/err" || fail "--requests: no item column ($(cat "$tmp/err"))"
printf 'item\tprompt\ntower\ta\ntower\tb\n' > "$tmp/bad.tsv"
"$IRLINT" --requests "$tmp/bad.tsv" "$cube" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "--requests: two requests for one item must exit 2"
grep -q "^irlint: $tmp/bad.tsv:3:7: error: item 'tower'" "$tmp/err" || fail "--requests: duplicate ($(cat "$tmp/err"))"
"$IRLINT" --requests "$tmp/no-such.tsv" "$cube" > /dev/null 2>&1
[ $? -eq 2 ] || fail "--requests: a missing file must exit 2"

# stdin, "-", several diagrams in one stream, TSV shape
cat "$ok" "$bad" | "$IRLINT" --format tsv > "$tmp/tsv" 2>&1
[ $? -eq 1 ] || fail "two diagrams on stdin, one failing, must exit 1"
head -1 "$tmp/tsv" | grep -q "^item	criterion	rater	value	note$" || fail "TSV header"
n=$(awk -F'\t' 'NR > 1 && NF == 5 && $3 == "irlint"' "$tmp/tsv" | wc -l)
[ "$n" -eq 16 ] || fail "TSV: expected 16 rows of 5 fields, got $n"
"$IRLINT" --format tsv - < "$ok" > /dev/null 2>&1 || fail "'-' must read stdin"

# JSON Lines: one object per verdict, as the TSV rows; "line" only when known
"$IRLINT" --format json "$ok" "$bad" > "$tmp/json" 2>&1
if command -v python3 > /dev/null 2>&1; then
    python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 16 and all(isinstance(r, dict) for r in rows), rows
assert all(r["rater"] == "irlint" and r["rubric"] == "geom" for r in rows)
assert len(set(r["item"] for r in rows[:8])) == 1 and len(set(r["item"] for r in rows[8:])) == 1
assert rows[8]["value"] == "no", rows[8]
assert all(type(r["line"]) is int and r["line"] > 0 for r in rows if "line" in r)
assert any("line" not in r for r in rows)
' "$tmp/json" || fail "JSON output"
fi
"$IRLINT" --format json < /dev/null > "$tmp/json" 2>&1 || fail "empty input must succeed"
[ ! -s "$tmp/json" ] || fail "empty input gives no output"

# input errors: file:line:col: error, exit 2, earlier diagrams still reported
printf 'diagramir 1\ndiagram x src=x.tex\nunit pt\npoly closed 0 0 10 @1\nend\n' > "$tmp/broken.ir"
cat "$ok" "$tmp/broken.ir" | "$IRLINT" --format tsv > "$tmp/out" 2> "$tmp/err"
[ $? -eq 2 ] || fail "bad IR must exit 2"
grep -q '^<stdin>:[0-9]*:[0-9]*: error: ' "$tmp/err" || fail "bad IR: no file:line:col: error ($(cat "$tmp/err"))"
[ "$(awk 'NR > 1' "$tmp/out" | wc -l)" -eq 8 ] || fail "the diagram before the error must be reported"
"$IRLINT" "$tmp/no-such-file.ir" > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] || fail "a missing file must exit 2"
grep -q 'no-such-file' "$tmp/err" || fail "a missing file must be named"

# determinism: same input, same bytes
"$IRLINT" --format tsv "$dir"/*.ir > "$tmp/a" 2>/dev/null
"$IRLINT" --format tsv "$dir"/*.ir > "$tmp/b" 2>/dev/null
cmp -s "$tmp/a" "$tmp/b" || fail "output differs between runs"

# --- --format ir ---------------------------------------------------------------
fir="$dir/format-ir"
for f in "$fir"/*.ir; do
    base=$(basename "$f" .ir)
    "$IRLINT" --format ir "$f" > "$tmp/out" 2>&1
    [ $? -eq 1 ] || fail "format-ir/$base: a failing check must exit 1"
    cmp -s "$tmp/out" "$fir/$base.expected" ||
        fail "format-ir/$base: output differs: $(diff "$fir/$base.expected" "$tmp/out" | head -5)"
done
"$IRLINT" --only in-frame,core-math --format ir "$fir/several.ir" > "$tmp/out" 2>&1
cmp -s "$tmp/out" "$fir/several-only.expected" ||
    fail "format-ir: --only: $(diff "$fir/several-only.expected" "$tmp/out" | head -5)"
"$IRLINT" --skip angle-labels,length-proportions,readable-size,label-association,no-overlap,shape-closed \
    --format ir "$fir/several.ir" > "$tmp/out2" 2>&1
cmp -s "$tmp/out" "$tmp/out2" || fail "format-ir: --skip must give what the matching --only gives"
# old findings never change a verdict (nor the line of one)
grep -v '^finding ' "$fir/old-findings.ir" > "$tmp/nofind.ir"
for fmt in text tsv json ir; do
    "$IRLINT" --verbose --format $fmt "$fir/old-findings.ir" > "$tmp/a" 2>&1
    "$IRLINT" --verbose --format $fmt "$tmp/nofind.ir" > "$tmp/b" 2>&1
    cmp -s "$tmp/a" "$tmp/b" || fail "format-ir: findings in the input change --format $fmt"
done
# round trip: the output is IR irlint reads again, to the same verdicts and
# the same bytes
"$IRLINT" --format tsv "$dir"/*.ir "$fir"/*.ir > "$tmp/a" 2>/dev/null
"$IRLINT" --format ir "$dir"/*.ir "$fir"/*.ir > "$tmp/ir" 2>/dev/null
"$IRLINT" --format tsv "$tmp/ir" > "$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b" || fail "format-ir: irlint --format ir | irlint --format tsv differs"
"$IRLINT" --format ir "$tmp/ir" > "$tmp/ir2" 2>&1
cmp -s "$tmp/ir" "$tmp/ir2" || fail "format-ir: irlint --format ir of its own output differs"
"$IRLINT" --format ir < /dev/null > "$tmp/out" 2>&1 || fail "format-ir: empty input must succeed"
[ "$(cat "$tmp/out")" = "diagramir 1" ] || fail "format-ir: empty input gives the header only"

# --- over the dev items: blame names drawn elements; the round trip --------------
TIKZ2IR="$BUILD/bin/tikz2ir"
dev=tests/data/diagramir-dev/tikz
if [ -x "$TIKZ2IR" ] && [ -d "$dev" ]; then
    for f in "$dev"/*.tex; do "$TIKZ2IR" "$f"; done > "$tmp/dev.ir" 2>/dev/null
    "$IRLINT" --format tsv "$tmp/dev.ir" > "$tmp/dev.tsv" 2>&1
    "$IRLINT" --format ir "$tmp/dev.ir" > "$tmp/dev-out.ir" 2>&1
    [ $? -le 1 ] || fail "dev: irlint --format ir failed"
    "$IRLINT" --format tsv "$tmp/dev-out.ir" > "$tmp/dev2.tsv" 2>&1
    cmp -s "$tmp/dev.tsv" "$tmp/dev2.tsv" ||
        fail "dev: irlint --format ir | irlint --format tsv differs from irlint --format tsv"
    # every elems= number is the place of a drawn element of its diagram
    # (poly, rect, ellipse, arc, curve, text); every no but a whole-picture
    # readable-size names one
    bad=$(awk '
        /^diagram / { n = 0; split("", kind); item = $2; next }
        /^(diagramir|unit|bbox|end)( |$)/ || /^#/ || /^$/ { next }
        { kind[++n] = $1 }
        /^finding / {
            if (match($0, / elems=[0-9,]+/)) {
                m = split(substr($0, RSTART + 7, RLENGTH - 7), a, ",")
                for (i = 1; i <= m; i++) {
                    k = kind[a[i] + 0]
                    if (a[i] + 0 < 1 || a[i] + 0 >= n || k !~ /^(poly|rect|ellipse|arc|curve|text)$/)
                        print item ": " $2 " blames element " a[i] " (" k ")"
                }
            } else if ($0 ~ / verdict=no( |$)/ && !($2 == "readable-size" && $0 ~ /"the (whole )?picture is/)) {
                print item ": " $2 " says no and blames nothing"
            }
        }' "$tmp/dev-out.ir" | head -5)
    [ -z "$bad" ] || fail "dev: $bad"
fi

if [ $fails -ne 0 ]; then
    echo "irlint: $fails failure(s) ($count golden files)"
    exit 1
fi
echo "irlint: $count golden files and the command line OK"
