#!/bin/sh
# Golden tests of irlint (run by tests/run-all.sh; BUILD defaults to build).
#
# Every tests/irlint/CRITERION-VALUE-WHAT.ir is a tiny diagram whose comment
# says why CRITERION must come out VALUE (yes, no or na); the test runs
# `irlint --only CRITERION --format tsv` on it and compares. Then the
# command-line contract: exit status, output formats, errors.
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
    got=$("$IRLINT" --only "$crit" --format tsv "$f" 2>"$tmp/err" |
        awk -F'\t' 'NR > 1 { print $4 }' | sort -u | tr '\n' ' ')
    got=${got% }
    if [ "$got" != "$want" ]; then
        note=$("$IRLINT" --only "$crit" --format tsv "$f" 2>&1 | awk -F'\t' 'NR > 1 { print $5 }')
        fail "$base: $crit is '$got', expected '$want' ($note$(cat "$tmp/err"))"
    fi
    # every verdict names a source line when it says no
    if [ "$want" = no ]; then
        line=$("$IRLINT" --only "$crit" "$f" 2>/dev/null | head -1)
        case $line in
            *:[0-9]*": $crit: no: "*"[geom/$crit]") ;;
            *) fail "$base: diagnostic '$line' lacks file:line: or [geom/$crit]" ;;
        esac
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

# stdin, "-", several diagrams in one stream, TSV shape
cat "$ok" "$bad" | "$IRLINT" --format tsv > "$tmp/tsv" 2>&1
[ $? -eq 1 ] || fail "two diagrams on stdin, one failing, must exit 1"
head -1 "$tmp/tsv" | grep -q "^item	criterion	rater	value	note$" || fail "TSV header"
n=$(awk -F'\t' 'NR > 1 && NF == 5 && $3 == "irlint"' "$tmp/tsv" | wc -l)
[ "$n" -eq 16 ] || fail "TSV: expected 16 rows of 5 fields, got $n"
"$IRLINT" --format tsv - < "$ok" > /dev/null 2>&1 || fail "'-' must read stdin"

# JSON: one object per diagram, in an array
"$IRLINT" --format json "$ok" "$bad" > "$tmp/json" 2>&1
if command -v python3 > /dev/null 2>&1; then
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and len(d) == 2, d
assert all(len(x["verdicts"]) == 8 for x in d)
assert d[1]["verdicts"][0]["value"] == "no"
' "$tmp/json" || fail "JSON output"
fi
"$IRLINT" --format json < /dev/null > "$tmp/json" 2>&1 || fail "empty input must succeed"
[ "$(tr -d ' \n' < "$tmp/json")" = "[]" ] || fail "empty input gives []"

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

if [ $fails -ne 0 ]; then
    echo "irlint: $fails failure(s) ($count golden files)"
    exit 1
fi
echo "irlint: $count golden files and the command line OK"
