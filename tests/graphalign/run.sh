#!/bin/sh
# tests/graphalign/run.sh -- tests of graphalign.
#
#   BUILD=build sh tests/graphalign/run.sh
#
#   - golden: ref.ir against gen.ir (threshold 0.7) prints expected.tsv, whose
#     numbers are worked by hand in the comments of this script;
#   - identical graphs give F1 = 1 everywhere;
#   - symmetry: swapping REF and GEN swaps precision and recall (and tp/fp/fn
#     become tp/fn/fp), F1 unchanged;
#   - order independence: gen-shuffled.ir (other record order, other ids)
#     gives the same table as gen.ir;
#   - the greedy procedure differs from max total similarity on "kitten"
#     (gen "Kitting" is closer to "sitting", but the best one-to-one pairing
#     gives Kitting-kitten and sittin-sitting);
#   - errors: an edge to an unknown vertex (FILE:LINE:1, exit 2), a missing
#     argument, a bad threshold, a diagram id twice in one file (FILE:LINE:1
#     at the second, exit 2; fine with --by-order).
# Exit status: 0 all passed, 1 a test failed, 2 graphalign missing.
#
# expected.tsv by hand, diagram "chain": nodes Encoder=encoder (1),
# Attention="Attention  " (1 after normalization), Decoder~Decoders
# (1 - 1/8 = 0.875 >= 0.7); Output and Softmax unmatched: tp 3 fp 1 fn 1.
# Edges: ref a->b, b->c, c-d; gen x->y (= a->b), x->z (a->c, not in ref),
# z->w (w unmatched): tp 1 fp 2 fn 2. Paths among {a, b, c}: ref a->b,
# b->c, a->c; gen a->b, a->c: tp 2 fp 0 fn 1, P 1, R 0.6667, F1 0.8.
. "$(dirname "$0")/../lib.sh"
GA=$bin/graphalign
[ -x "$GA" ] || { echo "graphalign/run.sh: $GA not found (make first)" >&2; exit 2; }
d=tests/graphalign
tmp=$(mktemp -d "${TMPDIR:-/tmp}/graphalign-tests.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL $*"; fail=1; }

"$GA" --threshold 0.7 $d/ref.ir $d/gen.ir > "$tmp/out" 2> "$tmp/err" || bad "golden: exit $?"
cmp -s "$tmp/out" $d/expected.tsv || { bad "golden differs"; diff $d/expected.tsv "$tmp/out" | head; }

"$GA" $d/ref.ir $d/ref.ir > "$tmp/out" 2>&1 || bad "identical: exit $?"
awk -F '\t' 'NR > 1 && $4 != 1 { bad = 1 } END { exit bad }' "$tmp/out" || bad "identical graphs: not all 1"

"$GA" --threshold 0.7 --no-mean $d/ref.ir $d/gen.ir > "$tmp/ab" 2>/dev/null
"$GA" --threshold 0.7 --no-mean $d/gen.ir $d/ref.ir > "$tmp/ba" 2>/dev/null
awk -F '\t' 'FNR == 1 { next }
    NR == FNR { split($2, c, "-"); v[$1, c[1], c[2]] = $4; split($5, n, /[ =]/); t[$1, c[1]] = n[2] " " n[4] " " n[6]; next }
    { split($2, c, "-"); split($5, n, /[ =]/)
      o = c[2] == "precision" ? "recall" : c[2] == "recall" ? "precision" : "f1"
      if (v[$1, c[1], o] != $4) { print "asymmetric " $1 " " $2; bad = 1 }
      if (t[$1, c[1]] != n[2] " " n[6] " " n[4]) { print "counts not swapped " $1 " " $2; bad = 1 } }
    END { exit bad }' "$tmp/ab" "$tmp/ba" || bad "symmetry"

"$GA" --threshold 0.7 $d/ref.ir $d/gen-shuffled.ir > "$tmp/out" 2>&1 && cmp -s "$tmp/out" $d/expected.tsv ||
    bad "order independence: $(diff $d/expected.tsv "$tmp/out" | head -5)"

n=$("$GA" --threshold 0.7 --mean-only $d/ref.ir $d/gen.ir | awk -F '\t' '$2 == "node-f1" { print $5 }')
g=$("$GA" --threshold 0.7 --greedy --mean-only $d/ref.ir $d/gen.ir | awk -F '\t' '$2 == "node-f1" { print $5 }')
case $n in *"tp=5 "*) ;; *) bad "optimal matching: $n" ;; esac
case $g in *"tp=4 "*) ;; *) bad "greedy matching: $g" ;; esac

"$GA" $d/ref.ir $d/bad-edge.ir > /dev/null 2> "$tmp/err"; st=$?
[ $st -eq 2 ] && grep -q "^$d/bad-edge.ir:4:1: error: edge refers to unknown vertex 'zz'$" "$tmp/err" ||
    bad "unknown vertex: exit $st: $(cat "$tmp/err")"
printf 'diagramir 1\ndiagram x\nvertex a 0 0 1 1 "A"\nend\ndiagram x\nvertex b 0 0 1 1 "B"\nend\n' > "$tmp/dup.ir"
printf 'diagramir 1\ndiagram x\nvertex a 0 0 1 1 "A"\nend\ndiagram y\nvertex a 0 0 1 1 "A"\nend\n' > "$tmp/xy.ir"
for pair in "$tmp/dup.ir $tmp/xy.ir" "$tmp/xy.ir $tmp/dup.ir"; do
    # shellcheck disable=SC2086
    "$GA" $pair > "$tmp/out" 2> "$tmp/err"; st=$?
    [ $st -eq 2 ] && [ ! -s "$tmp/out" ] &&
        grep -q "^$tmp/dup.ir:5:1: error: diagram id 'x' appears twice (first at line 2)" "$tmp/err" ||
        bad "duplicate id ($pair): exit $st: $(cat "$tmp/err")"
done
"$GA" --by-order "$tmp/dup.ir" "$tmp/xy.ir" > /dev/null 2>&1 || bad "duplicate id with --by-order: exit $?"
"$GA" $d/ref.ir > /dev/null 2>&1; [ $? -eq 2 ] || bad "one argument: exit status"
"$GA" --threshold 2 $d/ref.ir $d/gen.ir > /dev/null 2>&1; [ $? -eq 2 ] || bad "bad threshold: exit status"
"$GA" --help | grep -q '^usage: graphalign' || bad "--help"
"$GA" --version | grep -q '^graphalign (diagramir) ' || bad "--version"
[ $fail -eq 0 ] && echo "graphalign: all tests passed"
exit $fail
