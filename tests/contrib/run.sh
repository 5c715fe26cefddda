#!/bin/sh
# contrib/dataset/Makefile on a few dev items: per-item IR and verdicts,
# the merged verdict table, the kappa table; a second make does nothing.
BUILD=${BUILD:-build}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/src"
for i in 1 3 6 7 219; do cp tests/data/diagramir-dev/tikz/$i.tex "$tmp/src/"; done
fail=0
make -s -f contrib/dataset/Makefile -j2 SRC="$tmp/src" OUT="$tmp/out" BIN="$BUILD/bin" \
    HUMAN=tests/data/diagramir-dev/ratings.tsv >"$tmp/log" 2>&1 || { echo "FAIL make: $(cat "$tmp/log")"; fail=1; }
for i in 1 3 6 7 219; do
    [ -s "$tmp/out/ir/$i.ir" ] || { echo "FAIL no IR for $i"; fail=1; }
    [ -s "$tmp/out/verdicts/$i.tsv" ] || { echo "FAIL no verdicts for $i"; fail=1; }
done
n=$(tail -n +2 "$tmp/out/irlint.tsv" | wc -l)
[ "$n" = 40 ] || { echo "FAIL irlint.tsv has $n verdicts, expected 5 items x 8 criteria"; fail=1; }
[ "$(head -n 1 "$tmp/out/irlint.tsv" | cut -f1-4)" = "$(printf 'item\tcriterion\trater\tvalue')" ] || { echo "FAIL header"; fail=1; }
k=$(grep -c "	cohen	human	irlint	" "$tmp/out/kappa.tsv")
[ "$k" = 8 ] || { echo "FAIL kappa.tsv has $k cohen rows"; fail=1; }
out=$(make -f contrib/dataset/Makefile SRC="$tmp/src" OUT="$tmp/out" BIN="$BUILD/bin" HUMAN=tests/data/diagramir-dev/ratings.tsv 2>&1)
echo "$out" | grep -q "Nothing to be done\|is up to date" || { echo "FAIL second make did work: $out"; fail=1; }
[ $fail = 0 ] && echo "contrib: dataset Makefile ok"
exit $fail
