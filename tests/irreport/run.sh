#!/bin/sh
# tests/irreport/run.sh — irreport (run by tests/run-all.sh; BUILD defaults
# to build): on a hand-made study (4 items, 3 criteria, 3 raters, tests/irreport/data)
# the report's numbers — agreement, Cohen's kappa, their bootstrap intervals,
# n, the confusion counts — are kappa's for the same tables and options; the
# gallery holds every item, disagreements first; the file is self-contained
# and the same bytes every run; bad input is an error with its place and
# leaves no file; then the report in headless Chromium (browser.sh).
BUILD=${BUILD:-build}
B=$BUILD/bin
D=tests/irreport/data
export LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/irreport-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
status=0
fail() { echo "FAIL: $*"; status=1; }
T="$D/human.tsv $D/irlint.tsv $D/judge.tsv"

# same_numbers NAME IRREPORT-OPTIONS -- KAPPA-OPTIONS: the kappa table and the
# confusion counts of the report equal kappa's
same_numbers() {
    name=$1; shift
    ro=""; while [ "$1" != -- ]; do ro="$ro $1"; shift; done; shift
    # shellcheck disable=SC2086
    "$B/irreport" -q $ro -o "$tmp/$name.html" $D/study.ir $T || { fail "$name: irreport exit $?"; return; }
    # shellcheck disable=SC2086
    "$B/kappa" -q --by criterion --stat agreement,cohen --digits 3 "$@" $T | cut -f1-8 > "$tmp/$name.kappa"
    python3 tests/irreport/extract.py "$tmp/$name.html" kappa > "$tmp/$name.shown"
    cmp -s "$tmp/$name.kappa" "$tmp/$name.shown" ||
        { fail "$name: the report's kappa table is not kappa's"; diff "$tmp/$name.kappa" "$tmp/$name.shown" | head; }
    # shellcheck disable=SC2086
    "$B/kappa" -q --by criterion --stat confusion,coverage "$@" $T |
        awk -F'\t' 'NR > 1 && $2 !~ /only/ { print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 }' | sort > "$tmp/$name.kc"
    python3 tests/irreport/extract.py "$tmp/$name.html" confusion | tail -n +2 | sort > "$tmp/$name.rc"
    cmp -s "$tmp/$name.kc" "$tmp/$name.rc" ||
        { fail "$name: the confusion matrices do not sum to kappa's counts"; diff "$tmp/$name.kc" "$tmp/$name.rc" | head; }
}
same_numbers default -- --reference human --ci 0.95
same_numbers missing-na --missing na -- --reference human --ci 0.95 --missing na
same_numbers all-pairs --all-pairs --digits 4 --seed 7 --reps 500 -- --ci 0.95 --digits 4 --seed 7 --reps 500
same_numbers no-ci --ci 0 -R irlint -- --reference irlint
same_numbers raters --raters judge,human --ci 0.9 -- --reference human --raters judge,human --ci 0.9
# the hand-checked figure: in-frame, human vs irlint, kappa -1/3
grep -q '<td class=v data-s=cohen>-0.333' "$tmp/default.html" || fail "in-frame kappa is not -0.333"

# the gallery: every item, the one with two disagreements first, then by name
python3 tests/irreport/extract.py "$tmp/default.html" cards > "$tmp/cards"
printf 'i-a2\tdx d0 d2\ni-a1\tdx d1\ni-a3\tdx d1\ni-a4\tdx d0\n' | cmp -s - "$tmp/cards" ||
    { fail "gallery cards or their order"; cat "$tmp/cards"; }
[ "$(grep -o '<svg' "$tmp/default.html" | wc -l)" -ge 6 ] || fail "pictures missing (4 items, 2 charts)"
grep -q '&quot;x&quot; &amp; &lt;y&gt; collide' "$tmp/default.html" || fail "notes are not escaped"
grep -q 'the 30° mark is at the right angle' "$tmp/default.html" || fail "notes missing"

# self-contained: nothing to fetch
grep -o 'https\?://[^"]*' "$tmp/default.html" | grep -v '^http://www.w3.org/' > "$tmp/urls"
[ -s "$tmp/urls" ] && { fail "the report refers to the network"; head -3 "$tmp/urls"; }
grep -qi '<link\|<img\|<script src\|@import' "$tmp/default.html" && fail "the report loads other files"

# deterministic, and the same from stdin
"$B/irreport" -q -o "$tmp/again.html" $D/study.ir $T
cmp -s "$tmp/default.html" "$tmp/again.html" || fail "two runs differ"
cat $D/study.ir | "$B/irreport" -q - $T > "$tmp/stdin.html"
cmp -s "$tmp/default.html" "$tmp/stdin.html" || fail "stdin gives another report"
"$B/irreport" -q --no-pictures $D/study.ir $T > "$tmp/nopic.html" || fail "--no-pictures"
[ "$(grep -c '<div class=pic>' "$tmp/nopic.html")" = 0 ] || fail "--no-pictures draws"
"$B/irreport" -q $T > "$tmp/noir.html" && grep -q '<article' "$tmp/noir.html" || fail "tables alone"
"$B/irreport" -q $D/study.ir > "$tmp/noverdicts.html" && grep -q 'id="i-a4"' "$tmp/noverdicts.html" ||
    fail "IR alone"
"$B/irreport" --help | grep -q '^usage: irreport' || fail "--help"
"$B/irreport" --version | grep -q '^irreport (diagramir) ' || fail "--version"

# errors: exit 2, the place named, no output, an old output left as it was
err() {  # NAME PATTERN ARGS...: irreport ARGS -o $tmp/out.html fails with PATTERN on stderr
    name=$1 pat=$2; shift 2
    echo old > "$tmp/out.html"
    "$B/irreport" "$@" -o "$tmp/out.html" > "$tmp/err.out" 2> "$tmp/err"
    st=$?
    [ $st = 2 ] || fail "$name: exit $st, not 2"
    grep -q -- "$pat" "$tmp/err" || { fail "$name: stderr lacks '$pat'"; cat "$tmp/err"; }
    [ "$(cat "$tmp/out.html")" = old ] || fail "$name: the old output was overwritten"
    [ -s "$tmp/err.out" ] && fail "$name: wrote to stdout"
    ls "$tmp" | grep -q '\.tmp' && fail "$name: a temporary file was left"
}
printf 'item\tcriterion\trater\tvalue\na1\tin-frame\thuman\tyes\na2\tin-frame\n' > "$tmp/ragged.tsv"
printf 'diagramir 1\ndiagram x\nrect 1 2 3\nend\n' > "$tmp/bad.ir"
printf 'item\trater\tvalue\na1\thuman\tyes\n' > "$tmp/nocrit.tsv"
printf 'item\tcriterion\trater\tvalue\na1\tin-frame\thuman\tyes\na1\tin-frame\thuman\tno\na1\tin-frame\tjudge\tno\n' > "$tmp/dup.tsv"
err missing-file 'irreport: error: .*nosuch.tsv: No such file' $D/study.ir "$tmp/nosuch.tsv"
err ragged "ragged.tsv:3:[0-9]*: error: expected 4" $D/study.ir "$tmp/ragged.tsv"
err bad-ir "bad.ir:3:[0-9]*: error:" "$tmp/bad.ir" $T
err duplicate-diagram "study.ir:[0-9]*:1: error: diagram 'a1' appears twice" $D/study.ir $D/study.ir $T
err no-criterion "nocrit.tsv:1:1: error: no column 'criterion'" "$tmp/nocrit.tsv"
err conflicting "dup.tsv:3:1: error: conflicting ratings" "$tmp/dup.tsv"
err reference "irreport: error: --reference: no rater 'nobody'" -R nobody $T
err raters "irreport: error: --raters: no rater 'x'" --raters human,x $T
err ci "irreport: error: --ci wants" --ci 1.5 $T
err digits "irreport: error: --digits wants" --digits x $T
err option "usage: irreport" --no-such-option $T
err one-rater "fewer than two raters" $D/human.tsv
"$B/irreport" -q -o "$tmp/no/such/dir/x.html" $T 2> "$tmp/err"; st=$?
[ $st = 2 ] && grep -q 'irreport: error: .*x.html' "$tmp/err" || fail "unwritable output: exit $st"

# the pictures' progress line: forced on it counts them and is erased, and
# the report is the same; by default (stderr not a terminal) nothing
"$B/irreport" -q --progress -o "$tmp/p1.html" $D/study.ir $T 2> "$tmp/err" || fail "--progress: exit $?"
grep -q 'irreport: 4/4 pictures  100%' "$tmp/err" || fail "--progress: no count of the pictures"
[ "$(tail -c 4 "$tmp/err" | od -An -c | tr -d ' ')" = '\r033[K' ] || fail "--progress: not erased at the end"
"$B/irreport" -q -o "$tmp/p2.html" $D/study.ir $T 2> "$tmp/err" && [ ! -s "$tmp/err" ] || fail "default: stderr not empty"
cmp -s "$tmp/p1.html" "$tmp/p2.html" || fail "--progress changed the report"

sh tests/irreport/browser.sh || status=1
exit $status
