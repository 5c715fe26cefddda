#!/bin/sh
# kappa tests: published worked examples, the DiagramIR baseline table, hand-worked
# examples, golden output, errors and degenerate input, the bootstrap, the man-page
# examples, and randomized cross-checks against scikit-learn and SciPy.
# Run from the repository root:  BUILD=build sh tests/kappa/run.sh
BUILD=${BUILD:-build}
K=$BUILD/bin/kappa
D=tests/kappa/data
DIR=tests/data/diagramir-dev
[ -x "$K" ] || { echo "no $K (run make first)"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/kappa-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
fails=0
passes=0

pass() { passes=$((passes + 1)); }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# same NAME EXPECTED ACTUAL
same() {
    if [ "$2" = "$3" ]; then pass; else fail "$1: expected '$2', got '$3'"; fi
}

# value STAT [RATER_A RATER_B] -- prints the value column of the first matching row
value() {
    awk -F'\t' -v s="$1" -v a="${2:-}" -v b="${3:-}" \
        'NR > 1 && $2 == s && (a == "" || ($3 == a && $4 == b)) { print $5; exit }'
}

# ---- 1. Krippendorff (2011) worked example -----------------------------------------
for m in nominal:0.743 ordinal:0.815 interval:0.849 ratio:0.797; do
    got=$("$K" -q -d 3 -s "alpha-${m%%:*}" "$D/krippendorff2011.tsv" | value "alpha-${m%%:*}")
    same "Krippendorff 2011 alpha-${m%%:*}" "${m#*:}" "$got"
done
got=$("$K" -q -d 3 -s alpha-interval "$D/krippendorff2011.tsv" | awk -F'\t' 'NR==2{print $6}')
same "Krippendorff 2011: 11 pairable units" 11 "$got"

# ---- 2. Fleiss (1971) worked example: 10 subjects, 14 raters, 5 categories -----------
got=$("$K" -q -d 3 -s fleiss "$D/fleiss1971.tsv" | value fleiss)
same "Fleiss kappa" 0.210 "$got"

# ---- 3. DiagramIR: every number of baseline-kappa.tsv -------------------------------
cat "$DIR/ratings.tsv" "$DIR/baselines.tsv" |
    "$K" -q --by criterion --reference human --missing na --stat cohen -d 12 > "$T/dir.tsv"
st=$?
same "DiagramIR run exit status" 0 "$st"
awk -F'\t' '
    FNR == NR { if (FNR > 1) k[$1 "|" $4] = $5; next }
    FNR == 1 { for (i = 2; i <= NF; i++) col[i] = $i; next }
    {
        sum = 0; cnt = 0
        for (i = 2; i <= NF; i++) {
            if (col[i] == "mean") {
                got = sprintf("%.3f", sum / cnt)
            } else {
                key = col[i] "|" $1
                if (!(key in k)) { print "missing " key; bad++; continue }
                v = k[key] + 0; sum += v; cnt++
                got = sprintf("%.3f", v)
            }
            if (got == "-0.000") got = "0.000"
            if (got != $i) { print $1 " " col[i] ": expected " $i ", kappa " got; bad++ }
            checked++
        }
    }
    END { if (checked != 56) { print "checked " checked " numbers, not 56"; bad++ }
          exit bad > 0 }' "$T/dir.tsv" "$DIR/baseline-kappa.tsv" > "$T/dir.out"
if [ $? -eq 0 ]; then pass; else fail "DiagramIR baseline-kappa.tsv: $(cat "$T/dir.out")"; fi

# The pipeline make agreement uses: cat human.tsv irlint.tsv | kappa --raters ...
grep -P '\tbt-gpt-5\t|^item' "$DIR/baselines.tsv" > "$T/bt5.tsv"
got=$(cat "$DIR/ratings.tsv" "$T/bt5.tsv" |
    "$K" -q --by criterion --raters human,bt-gpt-5 --missing na -d 3 | value cohen human bt-gpt-5)
same "agreement pipeline (angle-labels, bt-gpt-5)" 0.627 "$got"
# A judge that never rated item 375: its missing rows are left out and reported.
grep -P '\tjudge-gpt-5\t|^item' "$DIR/baselines.tsv" > "$T/j5.tsv"
cat "$DIR/ratings.tsv" "$T/j5.tsv" |
    "$K" --by criterion --raters human,judge-gpt-5 --missing na -d 3 > "$T/j5.out" 2> "$T/j5.err"
same "judge-gpt-5 no-overlap" 0.353 "$(awk -F'\t' '$1=="no-overlap" && $2=="cohen"{print $5}' "$T/j5.out")"
same "judge-gpt-5 n" 231 "$(awk -F'\t' '$1=="no-overlap" && $2=="cohen"{print $6}' "$T/j5.out")"
grep -q 'human vs judge-gpt-5: 8 units rated only by human' "$T/j5.err" && pass ||
    fail "unrated items not reported: $(cat "$T/j5.err")"
# The judge(1) recipe with --missing na on a judge table without shape-closed
# and core-math (the geom rubric's six criteria; issue #19): those two
# groups have no rows for the judge, with a note, instead of kappa 0.000.
{ cat "$DIR/ratings.tsv"; awk -F'\t' '$2 != "shape-closed" && $2 != "core-math"' "$T/j5.tsv"; } |
    "$K" --by criterion --missing na --stat cohen -d 3 > "$T/j6.out" 2> "$T/j6.err"
same "never-rated criteria: no rows" "" "$(awk -F'\t' '$1 == "shape-closed" || $1 == "core-math"' "$T/j6.out")"
same "never-rated criteria: the six others" 6 "$(awk -F'\t' 'NR > 1 && $2 == "cohen"' "$T/j6.out" | wc -l | tr -d ' ')"
same "  ... unchanged (no-overlap 0.353)" 0.353 "$(awk -F'\t' '$1=="no-overlap" && $2=="cohen"{print $5}' "$T/j6.out")"
same "  ... a note each" 2 "$(grep -c "rated none of its units; left out there (not counted as --missing or --unrated)" "$T/j6.err")"
# --unrated na counts them as na instead (README of the data set: "missing counts as na").
got=$(cat "$DIR/ratings.tsv" "$T/j5.tsv" |
    "$K" -q --by criterion --raters human,judge-gpt-5 --missing na --unrated na -d 3 |
    awk -F'\t' '$1=="no-overlap" && $2=="cohen"{print $6}')
same "--unrated na keeps item 375" 232 "$got"

# ---- 4. hand-worked examples ---------------------------------------------------------
"$K" -q --raters gold,model -s accuracy,precision,recall,f1,fnr,fpr,mcc,macro-f1,confusion \
    "$D/binary.tsv" > "$T/bin.tsv"
for e in accuracy:0.700000 precision:0.750000 recall:0.600000 f1:0.666667 fnr:0.400000 \
         fpr:0.200000 mcc:0.408248 macro-f1:0.696970 tp:3 fp:1 fn:2 tn:4; do
    same "binary ${e%%:*}" "${e#*:}" "$(value "${e%%:*}" < "$T/bin.tsv")"
done
"$K" -q -s label-example-f1,label-micro-f1,label-macro-f1,label-recall,set-precision,set-recall,set-f1 \
    "$D/errortypes.tsv" > "$T/ml.tsv"
for e in label-example-f1:0.666667 label-micro-f1:0.600000 label-macro-f1:0.722222 \
         label-recall:label:0.500000 label-recall:overlap:1.000000 label-recall:scale:1.000000 \
         set-precision:0.500000 set-recall:0.750000 set-f1:0.600000; do
    same "multi-label ${e%:*}" "${e##*:}" "$(value "${e%:*}" < "$T/ml.tsv")"
done

# ---- 4b. SketchJudge (Appendix E): the worked example of data/sketchjudge.tsv ------------
# (its comments hold the arithmetic): binary grading on every answer; error
# types only on the answers gold and model both call incorrect (--both),
# namespaced labels masked to the answer's domain (--taxonomy), per-class
# recall pooled over the models with their quartiles.
SJ=$D/sketchjudge.tsv
TAX=llm/rubrics/sketchjudge.taxonomy
awk -F'\t' '/^#/ || $2 != "error-type"' "$SJ" |
    "$K" -q --reference gold --stat accuracy,fnr,fpr,mcc,macro-f1 > "$T/sjb.tsv"
for e in accuracy:m1:0.600000 accuracy:m2:0.800000 fnr:m1:1.000000 fnr:m2:0.000000 \
         fpr:m1:0.250000 fpr:m2:0.250000 mcc:m1:-0.250000 mcc:m2:0.612372 \
         macro-f1:m1:0.375000 macro-f1:m2:0.761905; do
    set -- $(echo "$e" | tr ':' ' ')
    same "SketchJudge binary $1 $2" "$3" "$(value "$1" gold "$2" < "$T/sjb.tsv")"
done
"$K" -q --by criterion --reference gold --both is-correct=no --taxonomy "$TAX" \
    --stat label-example-f1,label-micro-f1,label-macro-f1,label-recall-pooled "$SJ" > "$T/sjl.tsv"
same "SketchJudge error types exit status" 0 "$?"
# value and n of a row: group error-type, STAT, rater b
vn() { awk -F'\t' -v s="$1" -v b="$2" '$1 == "error-type" && $2 == s && $4 == b { print $5 "/" $6 }' "$T/sjl.tsv"; }
same "ebF1 m1 (i1 i2 i5)" 0.777778/3 "$(vn label-example-f1 m1)"
same "ebF1 m2 (i1 i2 i3, i3 masked)" 0.333333/3 "$(vn label-example-f1 m2)"
same "microF1 m1" 0.750000/3 "$(vn label-micro-f1 m1)"
same "microF1 m2 (masked)" 0.571429/3 "$(vn label-micro-f1 m2)"
same "macroF1 m1 (namespaced: 4 labels)" 0.666667/3 "$(vn label-macro-f1 m1)"
same "macroF1 m2 (F-MS not in C+)" 0.555556/3 "$(vn label-macro-f1 m2)"
P=label-recall-pooled Q1=label-recall-q25 Q3=label-recall-q75
same "pooled recall P-CE (multiplicity: n 3)" 0.666667/3 "$(vn "$P:physics::Connection Error" '*')"
same "  ... quartiles" "0.625000/2 0.875000/2" \
    "$(vn "$Q1:physics::Connection Error" '*') $(vn "$Q3:physics::Connection Error" '*')"
same "pooled recall P-PL" "0.500000/2 0.250000/2 0.750000/2" \
    "$(vn "$P:physics::Placement Error" '*') $(vn "$Q1:physics::Placement Error" '*') $(vn "$Q3:physics::Placement Error" '*')"
same "pooled recall F-CE (another label than P-CE)" "0.500000/2 0.250000/2 0.750000/2" \
    "$(vn "$P:flowchart::Connection Error" '*') $(vn "$Q1:flowchart::Connection Error" '*') $(vn "$Q3:flowchart::Connection Error" '*')"
same "pooled recall F-MS (gold twice, m1 once: 1 of 2 instances)" "0.500000/2 0.500000/1 0.500000/1" \
    "$(vn "$P:flowchart::Missing Step" '*') $(vn "$Q1:flowchart::Missing Step" '*') $(vn "$Q3:flowchart::Missing Step" '*')"
same "no label rows for the is-correct group" 0 "$(awk -F'\t' '$1 == "is-correct"' "$T/sjl.tsv" | wc -l | tr -d ' ')"
same "no oov label among the recall rows" 0 "$(grep -c 'oov:' "$T/sjl.tsv")"
# Instances (Eq. 12) worked by hand in data/sketchjudge-instances.tsv: gold
# lists a label twice, a model finds it once, another twice, a third three
# times; the F1 scores stay on label sets.
"$K" -q --by criterion --reference gold --both is-correct=no --taxonomy "$TAX" \
    --stat label-example-f1,label-micro-f1,label-macro-f1,label-recall-pooled \
    "$D/sketchjudge-instances.tsv" > "$T/sjl.tsv"
same "instances: exit status" 0 "$?"
same "instances: pooled recall F-MS (6 of 8 gold instances found)" \
    "0.750000/8 0.666667/3 0.833333/3" \
    "$(vn "$P:flowchart::Missing Step" '*') $(vn "$Q1:flowchart::Missing Step" '*') $(vn "$Q3:flowchart::Missing Step" '*')"
same "instances: pooled recall F-CE" "0.333333/3 0.000000/3 0.500000/3" \
    "$(vn "$P:flowchart::Connection Error" '*') $(vn "$Q1:flowchart::Connection Error" '*') $(vn "$Q3:flowchart::Connection Error" '*')"
same "instances: pooled recall P-CE (m3's oov masked: 0 of 2)" "0.500000/6 0.250000/3 0.750000/3" \
    "$(vn "$P:physics::Connection Error" '*') $(vn "$Q1:physics::Connection Error" '*') $(vn "$Q3:physics::Connection Error" '*')"
same "instances: ebF1 on sets" "0.888889/3 0.555556/3 0.500000/2" \
    "$(vn label-example-f1 m1) $(vn label-example-f1 m2) $(vn label-example-f1 m3)"
same "instances: microF1 on sets" "0.857143/3 0.571429/3 0.800000/2" \
    "$(vn label-micro-f1 m1) $(vn label-micro-f1 m2) $(vn label-micro-f1 m3)"
same "instances: macroF1 m1 on sets" 0.666667/3 "$(vn label-macro-f1 m1)"
"$K" --by criterion --reference gold --stat label-recall-pooled "$D/sketchjudge-instances.tsv" \
    > /dev/null 2> "$T/sj.err"
check_note() { grep -q "$1" "$T/sj.err" && pass || fail "note: $1: $(cat "$T/sj.err")"; }
check_note "note: 7 labels listed again for the same item and rater: label-recall-pooled counts every listing"
"$K" --by criterion --reference gold --stat label-micro-f1 "$D/sketchjudge-instances.tsv" \
    > /dev/null 2> "$T/sj.err"
check_note "note: 7 labels listed again for the same item and rater: counted once (label sets"
"$K" -q --by criterion --reference gold --stat label-micro-f1 "$D/sketchjudge-instances.tsv" \
    > /dev/null 2> "$T/sj.err"
same "instances: -q: no note" "" "$(cat "$T/sj.err")"
# what each option changes: unrestricted ebF1 of m2 over all five answers;
# unmasked microF1 of m2
"$K" -q --by criterion --reference gold --taxonomy "$TAX" --stat label-example-f1 "$SJ" > "$T/sjl.tsv"
same "without --both: ebF1 m2 over 5" 0.400000/5 "$(vn label-example-f1 m2)"
"$K" -q --by criterion --reference gold --both is-correct=no --stat label-micro-f1 "$SJ" \
    | awk -F'\t' '$1 == "error-type"' > "$T/sjl.tsv"
same "without --taxonomy: microF1 m2 unmasked" 0.444444/3 "$(vn label-micro-f1 m2)"
"$K" --by criterion --reference gold --both is-correct=no --taxonomy "$TAX" \
    --stat label-micro-f1 "$SJ" > /dev/null 2> "$T/sj.err"
check_note "gold vs m1: 3 units both rated is-correct=no, 2 left out (--both)"
check_note "gold vs m2: --taxonomy masked 0 gold and 2 predicted labels"
"$K" --stat label-recall-pooled "$SJ" > /dev/null 2> "$T/sj.err"
same "label-recall-pooled without --reference exits 2" 2 "$?"
"$K" --both is-correct "$SJ" > /dev/null 2>&1
same "--both without =VALUE exits 2" 2 "$?"
"$K" --both is-correct=no --stat cohen "$SJ" > /dev/null 2>&1
same "--both with single-value statistics exits 2" 2 "$?"
"$K" --both nosuch=no --stat label-micro-f1 "$SJ" > /dev/null 2>&1
same "--both naming no criterion exits 2" 2 "$?"
"$K" --both is-correct=No --stat label-micro-f1 "$SJ" > /dev/null 2> "$T/sj.err"
same "--both naming no value exits 2" 2 "$?"
same "  ... saying so" "kappa: --both: no rating is 'No' in the input" "$(cat "$T/sj.err")"
"$K" --taxonomy "$T/none.taxonomy" --stat label-micro-f1 "$SJ" > /dev/null 2>&1
same "--taxonomy of a missing file exits 2" 2 "$?"

# ---- 4c. per-domain tables (SketchJudge reports geometry, physics, chart,
# flowchart): the worked example of data/sketchjudge.tsv with a domain
# column (i1, i3 physics; i2, i4, i5 flowchart) and judge's error-count rows;
# --by domain prints each domain's figures, worked by hand from the file's table:
#  accuracy  physics m1 1/2 (i3 wrong), m2 2/2; flowchart m1 2/3 (i4), m2 2/3 (i5)
#  ebF1      physics m1 i1 2/3; m2 (i1 1 + i3 0)/2 = 0.5
#            flowchart m1 (i2 2/3 + i5 1)/2 = 5/6; m2 i2 0
awk -F'\t' 'BEGIN { OFS = "\t" } /^#/ { next } $1 == "item" { print $0, "domain"; next }
    { d = ($1 == "i1" || $1 == "i3") ? "physics" : "flowchart"; print $0, d
      if ($2 == "is-correct") print $1, "error-count", $3, ($4 == "no" ? 2 : 0), "", d }' \
    "$SJ" > "$T/dom.tsv"
awk -F'\t' '$2 != "error-type"' "$T/dom.tsv" |
    "$K" -q --by domain,criterion --reference gold --stat accuracy > "$T/dom.out"
dv() { awk -F'\t' -v g="$1" -v s="$2" -v b="$3" '$1 == g && $2 == s && $4 == b { print $5 "/" $6 }' "$T/dom.out"; }
same "per domain: accuracy" "0.500000/2 1.000000/2 0.666667/3 0.666667/3" \
    "$(dv physics,is-correct accuracy m1) $(dv physics,is-correct accuracy m2) $(dv flowchart,is-correct accuracy m1) $(dv flowchart,is-correct accuracy m2)"
"$K" -q --by domain --reference gold --both is-correct=no --taxonomy "$TAX" \
    --stat label-example-f1 "$T/dom.tsv" > "$T/dom.out"
same "per domain: ebF1 (error-count rows are no label sets)" "0.666667/1 0.500000/2 0.833333/2 0.000000/1" \
    "$(dv physics label-example-f1 m1) $(dv physics label-example-f1 m2) $(dv flowchart label-example-f1 m1) $(dv flowchart label-example-f1 m2)"

# ---- 4d. p-values of correlations (EduIllustrate Table 9, MathExplain Table 5):
# Student's t with n - 2 degrees of freedom. By hand: x = 1 2 3 4, y = 1 3 2 4
# gives r = 4/sqrt(5*5) = 0.8 and (ranks equal the values) rho = 0.8; with
# df = 2, p = I_{1-r^2}(1, 1/2) = 1 - (r^2)^(1/2) = 1 - |r| = 0.2.
printf 'item\trater\tvalue\n1\th\t1\n1\tm\t1\n2\th\t2\n2\tm\t3\n3\th\t3\n3\tm\t2\n4\th\t4\n4\tm\t4\n' > "$T/in"
"$K" -q -s pearson,spearman,cohen < "$T/in" > "$T/out"
same "p of pearson r = 0.8, n = 4" "0.800000 0.2" "$(awk -F'\t' '$2 == "pearson" { print $5, $9 }' "$T/out")"
same "p of spearman rho = 0.8, n = 4" "0.800000 0.2" "$(awk -F'\t' '$2 == "spearman" { print $5, $9 }' "$T/out")"
same "no p for cohen" NA "$(awk -F'\t' '$2 == "cohen" { print $9 }' "$T/out")"
# the same through the table path (one-byte cells, no bootstrap) and with --ci
same "p with --ci" 0.2 "$("$K" -q -s spearman --ci 0.9 --reps 50 < "$T/in" | awk -F'\t' 'NR == 2 { print $9 }')"

# ---- 4e. --compare A,B against --reference gold: the difference of the two
# agreements, a paired bootstrap interval and a paired permutation p-value.
# By hand: 12 items, A agrees with gold on all, B on 7 (wrong on items 1-5),
# A and B differ on those 5 only: agreement-diff = 12/12 - 7/12 = 5/12.
# Permutation (swap A and B per item, probability 1/2): only the 5 items
# where they differ matter; with k of them swapped d* = (5 - 2k)/12, and
# |d*| >= 5/12 for k = 0 or 5: exact p = 2/32 = 0.0625 (Monte Carlo: within 0.01).
# Bootstrap: d* = K/12 with K ~ Binomial(12, 5/12); its CDF is 0.0149 at 1,
# 0.0671 at 2, 0.9274 at 7, 0.9794 at 8: the 95% interval is [2/12, 8/12].
{ printf 'item\tcriterion\trater\tvalue\n'
  for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
      g=no; [ "$i" -le 6 ] && g=yes
      b=$g; [ "$i" -le 5 ] && { [ "$g" = yes ] && b=no || b=yes; }
      printf '%s\tq\tgold\t%s\n%s\tq\tA\t%s\n%s\tq\tB\t%s\n' "$i" "$g" "$i" "$g" "$i" "$b"
  done; } > "$T/cmp.tsv"
"$K" -q --reference gold --compare A,B -s agreement,cohen --reps 20000 --seed 3 "$T/cmp.tsv" > "$T/out"
same "compare: exit" 0 $?
same "compare: agreement-diff, interval" "A B 0.416667 12 0.166667 0.666667" \
    "$(awk -F'\t' '$2 == "agreement-diff" { print $3, $4, $5, $6, $7, $8 }' "$T/out")"
same "compare: permutation p near 2/32" ok \
    "$(awk -F'\t' '$2 == "agreement-diff" { d = $9 - 0.0625; print (d < 0.01 && d > -0.01) ? "ok" : $9 }' "$T/out")"
same "compare: cohen-diff = cohen(gold,A) - cohen(gold,B)" ok \
    "$(awk -F'\t' '$2 == "cohen" { c[$4] = $5 } $2 == "cohen-diff" { d = $5 } END { x = c["A"] - c["B"] - d; print (x < 1e-6 && x > -1e-6) ? "ok" : d }' "$T/out")"
a=$("$K" -q --reference gold --compare A,B -s agreement --reps 500 --seed 5 "$T/cmp.tsv")
b=$("$K" -q --reference gold --compare A,B -s agreement --reps 500 --seed 5 "$T/cmp.tsv")
c=$("$K" -q --reference gold --compare A,B -s agreement --reps 500 --seed 6 "$T/cmp.tsv")
same "compare: deterministic with --seed" "$a" "$b"
[ "$a" != "$c" ] && pass || fail "compare ignores --seed"
"$K" --compare A,B "$T/cmp.tsv" > /dev/null 2> "$T/err"
same "compare without --reference exits 2" 2 $?
"$K" --reference gold --compare A "$T/cmp.tsv" > /dev/null 2>&1
same "compare of one rater exits 2" 2 $?
"$K" --reference gold --compare A,gold "$T/cmp.tsv" > /dev/null 2>&1
same "compare with the reference exits 2" 2 $?

# ---- 4f. JSON Lines: one object per row, an undefined value has no key
printf 'item\tcriterion\trater\tvalue\n1\ta\th\tyes\n1\ta\tm\tyes\n2\ta\th\tyes\n2\ta\tm\tyes\n' > "$T/in"
"$K" -q -s agreement,cohen -f json < "$T/in" > "$T/out"
same "json lines: two lines" 2 "$(wc -l < "$T/out" | tr -d ' ')"
same "json lines: cohen undefined has no value key" '{"group":"all","stat":"cohen","rater-a":"h","rater-b":"m","n":2}' "$(sed -n 2p "$T/out")"

# ---- 4g. mean: EduIllustrate's dataset-level averages (Table 2), worked in
# data/eduillustrate.tsv: dimensions as % of 5, overall as it is
E=$D/eduillustrate.tsv
awk -F'\t' '$2 != "overall"' "$E" | "$K" -q --by criterion --stat mean --percent-of 5 > "$T/out"
same "mean: LC 73.3% of 5, n 3" "m NA 73.333333 3" "$(awk -F'\t' '$1 == "logical-coherence" { print $3, $4, $5, $6 }' "$T/out")"
same "mean: VC 74.2%, na left out" "74.200000 2" "$(awk -F'\t' '$1 == "visual-consistency" { print $5, $6 }' "$T/out")"
awk -F'\t' '$1 == "item" || $2 == "overall"' "$E" | "$K" -q --by criterion --stat mean > "$T/out"
same "mean: overall over the items" "42.711000 3" "$(awk -F'\t' '$1 == "overall" { print $5, $6 }' "$T/out")"
"$K" -q --by criterion --stat mean --ci 0.9 --reps 300 "$E" > "$T/out"
same "mean: a bootstrap interval around it" "" "$(awk -F'\t' 'NR > 1 && !($7 <= $5 && $5 <= $8)' "$T/out")"
"$K" --stat mean,cohen "$E" > /dev/null 2>&1
same "mean and cohen of one rater: exit 0 (cohen warns)" 0 $?
same "mean as JSON: no rater-b key" '{"group":"logical-coherence","stat":"mean","rater-a":"m","value":3.6666666666666665,"n":3}' \
    "$("$K" -q --by criterion --stat mean -f json "$E" | head -1)"
"$K" --percent-of 0 --stat mean "$E" > /dev/null 2>&1
same "--percent-of 0 exits 2" 2 $?

# ---- 5. golden output ------------------------------------------------------------------
for g in tests/kappa/golden/*.args; do
    name=${g%.args}
    # shellcheck disable=SC2046
    "$K" $(cat "$g") > "$T/out" 2> "$T/err"
    echo "exit $?" >> "$T/out"
    if cmp -s "$T/out" "$name.out"; then pass
    else fail "golden $(basename "$name"): $(diff "$name.out" "$T/out" | head -10)"; fi
    if [ -f "$name.err" ]; then
        if cmp -s "$T/err" "$name.err"; then pass
        else fail "golden $(basename "$name") stderr: $(diff "$name.err" "$T/err" | head -10)"; fi
    fi
done

# ---- 6. errors: file:line:col, exit 2 ---------------------------------------------------
# check NAME EXPECTED-STDERR-PATTERN kappa-args... (input on stdin from $T/in)
err_case() {
    name=$1; pat=$2; shift 2
    "$K" "$@" < "$T/in" > "$T/out" 2> "$T/err"
    st=$?
    if [ $st -ne 2 ]; then fail "$name: exit $st, expected 2"; return; fi
    if [ -s "$T/out" ]; then fail "$name: printed output on error"; return; fi
    if grep -q -e "$pat" "$T/err"; then pass; else fail "$name: stderr '$(cat "$T/err")' lacks '$pat'"; fi
}
printf 'item\tcriterion\trater\tvalue\n1\ta\th\tyes\n2\ta\th\tno\textra\n' > "$T/in"
err_case "ragged row" '^<stdin>:3:10: error: expected 4 tab-separated fields'
printf 'item\tcriterion\trater\tvalue\n1\ta\th\tyes\n2\ta\th\n' > "$T/in"
err_case "short row" '^<stdin>:3:.*: error: expected 4 tab-separated fields (as the header at line 1), found 3'
printf '1\ta\th\tyes\n2\ta\tm\tno\n' > "$T/in"
err_case "missing header" '^<stdin>:1:1: error: missing header'
printf 'item\tcriterion\tvalue\n1\ta\tyes\n' > "$T/in"
err_case "header without rater" "^<stdin>:1:1: error: header lacks the column 'rater'"
printf 'item\tcriterion\trater\tvalue\n1\ta\th\tyes\n1\ta\th\tno\n1\ta\tm\tno\n' > "$T/in"
err_case "conflicting duplicate" "^<stdin>:3:1: error: conflicting ratings of item '1', criterion 'a' by rater 'h': 'no' here, 'yes' at <stdin>:2"
printf 'item\tcriterion\trater\tvalue\n1\ta\th\t3\n1\ta\tm\tgood\n2\ta\th\t1\n2\ta\tm\t2\n' > "$T/in"
err_case "non-numeric for spearman" "^<stdin>:3:7: error: 'good' is not a number, but spearman needs numeric ratings" -s spearman
err_case "non-numeric for alpha-interval" "^<stdin>:3:7: error: 'good' is not a number" -s alpha-interval
err_case "unknown statistic" "unknown statistic 'kapa'" -s kapa
err_case "unknown rater" "no rater 'zz' in the input; raters are: h m" --raters h,zz
err_case "unknown --by column" "^<stdin>:1:1: error: no column 'crit' to group by" --by crit
err_case "bad --ci" "--ci wants a level" --ci 95
err_case "bad --format" "--format wants" --format xml
err_case "--multi-label with a single-value statistic" "single-value statistics such as cohen" --multi-label -s cohen
printf 'item\tcriterion\trater\tvalue\n1\t\th\tyes\n' > "$T/in"
printf 'item\tcriterion\trater\tvalue\n1\ta\t\tyes\n' > "$T/in"
err_case "empty rater" "^<stdin>:2:5: error: empty rater field"
: > "$T/in"
err_case "empty input" "no ratings in the input"
printf 'item\trater\tvalue\n1\th\ta\0b\n' > "$T/in"
err_case "NUL byte" "^<stdin>:2:1: error: NUL byte"
"$K" /nonexistent/file.tsv > "$T/out" 2> "$T/err"
same "missing file exit" 2 $?
grep -q '^kappa: /nonexistent/file.tsv: No such file' "$T/err" && pass || fail "missing file message: $(cat "$T/err")"
# errors name the file they are in, with the line counted per file
printf 'item\tcriterion\trater\tvalue\n1\ta\th\tyes\n' > "$T/a.tsv"
printf 'item\tcriterion\trater\tvalue\n1\ta\tm\tyes\n1\ta\tm\n' > "$T/b.tsv"
"$K" "$T/a.tsv" "$T/b.tsv" > /dev/null 2> "$T/err"
same "second file exit" 2 $?
grep -q "^$T/b.tsv:3:" "$T/err" && pass || fail "second file location: $(cat "$T/err")"

# a mapped file cut short while kappa still needs it (the earlier row of a
# conflicting duplicate is looked up there at the end): an error, not SIGBUS.
# The second input (a pipe) holds more than a pipe buffer, so the file is cut
# only once kappa has read it and reads the pipe.
awk 'BEGIN { print "item\trater\tvalue"; for (i = 1; i <= 20000; i++) print i "\th\t" i % 3 }' > "$T/cut.tsv"
{
    printf 'item\trater\tvalue\n'
    awk 'BEGIN { for (i = 1; i <= 20000; i++) print i "\tm\t" i % 3 }'
    : > "$T/cut.tsv"
    printf '5\th\t9\n'
} | "$K" "$T/cut.tsv" - > "$T/out" 2> "$T/err"
same "file cut short: exit" 2 $?
grep -q "^kappa: $T/cut.tsv: the file changed (it was cut short) while kappa read it$" "$T/err" && pass ||
    fail "file cut short: $(cat "$T/err")"

# ---- 7. documented rules ------------------------------------------------------------------
# identical duplicates count once, with a warning; --duplicates first|last choose
printf 'item\tcriterion\trater\tvalue\n1\ta\th\tyes\n1\ta\th\tyes\n1\ta\tm\tyes\n2\ta\th\tno\n2\ta\tm\tno\n' > "$T/in"
"$K" -s agreement < "$T/in" > "$T/out" 2> "$T/err"
same "identical duplicate exit" 0 $?
same "identical duplicate counted once" 2 "$(awk -F'\t' 'NR==2{print $6}' "$T/out")"
grep -q 'warning: duplicate rating (same as line 2' "$T/err" && pass || fail "duplicate warning: $(cat "$T/err")"
printf 'item\tcriterion\trater\tvalue\n1\ta\th\tno\n1\ta\th\tyes\n1\ta\tm\tyes\n2\ta\th\tno\n2\ta\tm\tno\n' > "$T/in"
same "--duplicates first" 0.500000 "$("$K" -q -s agreement --duplicates first < "$T/in" | value agreement)"
same "--duplicates last" 1.000000 "$("$K" -q -s agreement --duplicates last < "$T/in" | value agreement)"
# concatenated tables: a repeated header line starts a new table (column order may differ)
printf 'item\tcriterion\trater\tvalue\n1\ta\th\tyes\n2\ta\th\tno\n' > "$T/a.tsv"
printf 'rater\tvalue\titem\tcriterion\n# comment\nm\tyes\t1\ta\nm\tyes\t2\ta\n' > "$T/b.tsv"
same "concatenated headers" 0.500000 "$(cat "$T/a.tsv" "$T/b.tsv" | "$K" -q -s agreement | value agreement)"
# a row may leave out the note (the last column): it has an empty note, also as a --by column
printf 'item\trater\tvalue\tnote\n1\th\tyes\tx\n1\tm\tyes\tx\n2\th\tno\n2\tm\tyes\t\n3\th\tno\n3\tm\tno\n' > "$T/in"
same "--by note, notes left out" "x:1:1.000000 :2:0.500000" \
    "$("$K" -q --by note -s agreement < "$T/in" | awk -F'\t' 'NR>1{printf "%s%s:%s:%s", s, $1, $6, $5; s=" "}')"
printf 'item\trater\tvalue\tnote\n1\th\tyes\tx\n1\th\tno\n' > "$T/in"
err_case "duplicate in a row without its note" "^<stdin>:3:1: error: conflicting ratings of item '1' by rater 'h': 'no' here, 'yes' at <stdin>:2"
printf 'item\trater\tvalue\tnote\n1\th\tyes\t\n1\th\tno\n' > "$T/in"
err_case "duplicate in a row without its note, --by note" "^<stdin>:3:1: error: conflicting ratings of item '1' by rater 'h': 'no' here, 'yes' at <stdin>:2" --by note
# CRLF line ends
printf 'item\tcriterion\trater\tvalue\r\n1\ta\th\tyes\r\n1\ta\tm\tyes\r\n2\ta\th\tno\r\n2\ta\tm\tyes\r\n' > "$T/in"
same "CRLF" 0.500000 "$("$K" -q -s agreement < "$T/in" | value agreement)"

# --missing fills verdicts missing from items a rater rated; --unrated the items it never rated
printf 'item\tcriterion\trater\tvalue\n1\ta\th\tyes\n1\tb\th\tna\n1\ta\tm\tyes\n2\ta\th\tno\n2\tb\th\tno\n3\tb\th\tno\n3\tb\tm\tno\n' > "$T/in"
"$K" -q --by criterion -s coverage,agreement < "$T/in" > "$T/out" 2>/dev/null
same "drop: group b pairs item 3 only" 1 "$(awk -F'\t' '$1=="b" && $2=="agreement"{print $6}' "$T/out")"
same "drop: only-a counted" 1 "$(awk -F'\t' '$1=="a" && $2=="rated-only-a"{print $5}' "$T/out")"
"$K" -q --by criterion --missing na -s agreement < "$T/in" > "$T/out"
same "--missing na fills item 1, not unrated item 2" "b:1.000000:2" \
    "$(awk -F'\t' '$1=="b"{print $1 ":" $5 ":" $6}' "$T/out")"
"$K" -q --by criterion --missing na --unrated no -s agreement < "$T/in" > "$T/out"
same "--unrated no fills item 2" "b:1.000000:3" "$(awk -F'\t' '$1=="b"{print $1 ":" $5 ":" $6}' "$T/out")"
# A criterion a rater never rated (a judge whose rubric lacks it, issue #19)
# is left out with a note, not filled in as --missing na (rows of 0.000 before).
printf 'item\tcriterion\trater\tvalue\n1\ta\th\tyes\n1\tb\th\tno\n1\ta\tm\tyes\n2\ta\th\tno\n2\tb\th\tyes\n2\ta\tm\tno\n' > "$T/in"
"$K" --by criterion --missing na -s agreement,cohen < "$T/in" > "$T/out" 2> "$T/err"
same "never rated: exit" 0 $?
same "never rated: no rows for group b" "" "$(awk -F'\t' '$1=="b"' "$T/out")"
same "never rated: group a kept" "a:1.000000:2" "$(awk -F'\t' '$1=="a" && $2=="agreement"{print $1 ":" $5 ":" $6}' "$T/out")"
grep -q "^kappa: note: group 'b': m rated none of its units; left out there (not counted as --missing or --unrated)$" "$T/err" &&
    pass || fail "never rated: note: $(cat "$T/err")"
"$K" --raters h,m --by criterion --missing na -s agreement < "$T/in" > "$T/out" 2> "$T/err"
same "never rated, --raters: no rows for group b" "" "$(awk -F'\t' '$1=="b"' "$T/out")"
# the same without --by: the units of criterion b are not filled in for m
"$K" --missing na -s agreement < "$T/in" > "$T/out" 2> "$T/err"
same "never rated, one group: the units of b left out" "1.000000:2" "$(awk -F'\t' '$2=="agreement"{print $5 ":" $6}' "$T/out")"
grep -q "^kappa: note: group 'all': m never rated criterion 'b'; its units are left out for m (not counted as --missing or --unrated)$" "$T/err" &&
    pass || fail "never rated, one group: note: $(cat "$T/err")"
"$K" -q --missing na -s agreement < "$T/in" 2> "$T/err" > /dev/null
same "never rated: -q silences the note" "" "$(grep note "$T/err")"
# lines longer than the read buffer
awk 'BEGIN { printf "item\trater\tvalue\tnote\n1\th\tyes\t"; for (i = 0; i < 300000; i++) printf "long note "; printf "\n1\tm\tyes\t\n2\th\tno\t\n2\tm\tyes\t\n" }' > "$T/in"
same "3 MB line" 0.500000 "$("$K" -q -s agreement < "$T/in" | value agreement)"

# ---- 8. degenerate input: defined value or nan with a warning, exit 0 --------------------
printf 'item\tcriterion\trater\tvalue\n1\ta\th\tyes\n1\ta\tm\tyes\n2\ta\th\tyes\n2\ta\tm\tyes\n' > "$T/in"
"$K" -s cohen,agreement < "$T/in" > "$T/out" 2> "$T/err"
same "one category exit" 0 $?
same "one category: cohen NA" NA "$(value cohen < "$T/out")"
same "one category: agreement" 1.000000 "$(value agreement < "$T/out")"
grep -q 'warning: .*cohen is undefined' "$T/err" && pass || fail "no warning for nan cohen"
# values near the largest double: mae and rmse without overflow where the
# result is representable; nan (never inf), no interval and an overflow
# warning where it is not
printf 'item\trater\tvalue\n1\th\t1e308\n1\tm\t-1e308\n2\th\t1\n2\tm\t2\n' > "$T/in"
"$K" -s mae,rmse --ci 0.9 < "$T/in" > "$T/out" 2> "$T/err"
same "1e308 exit" 0 $?
# (values from 1e15 on are printed in the exponent form)
same "1e308 mae" 1.000000e+308 "$(value mae < "$T/out")"
same "1e308 rmse" 1.414214e+308 "$(value rmse < "$T/out")"
printf 'item\trater\tvalue\n1\th\t1.7e308\n1\tm\t-1.7e308\n' > "$T/in"
"$K" -s mae --ci 0.9 < "$T/in" > "$T/out" 2> "$T/err"
same "overflow: mae NA" "NA NA NA" "$(awk -F'\t' '$2 == "mae" { print $5, $7, $8 }' "$T/out")"
grep -q 'warning: .*mae is too large to represent (overflow); printed as NA' "$T/err" && pass ||
    fail "no overflow warning: $(cat "$T/err")"
printf 'item\trater\tvalue\n1\th\t2\n1\tm\t3\n' > "$T/in"
"$K" -s pearson,spearman,kendall,mae,alpha-interval < "$T/in" > "$T/out" 2> "$T/err"
same "n=1 exit" 0 $?
same "n=1 pearson" NA "$(value pearson < "$T/out")"
same "n=1 mae" 1.000000 "$(value mae < "$T/out")"
printf 'item\trater\tvalue\n1\th\t2\n1\tm\t3\n2\th\t2\n2\tm\t5\n' > "$T/in"
same "zero variance pearson" NA "$("$K" -s pearson < "$T/in" 2>/dev/null | value pearson)"
printf 'item\trater\tvalue\n1\th\t2\n2\th\t3\n' > "$T/in"
"$K" < "$T/in" > "$T/out" 2> "$T/err"
same "one rater exit" 0 $?
grep -q 'fewer than two raters' "$T/err" && pass || fail "one rater warning: $(cat "$T/err")"

# ---- 9. bootstrap: reproducible, seeded, sensible ----------------------------------------
a=$("$K" -q --ci 0.95 --reps 500 --seed 7 -s cohen,alpha-interval "$D/likert.tsv")
b=$("$K" -q --ci 0.95 --reps 500 --seed 7 -s cohen,alpha-interval "$D/likert.tsv")
c=$("$K" -q --ci 0.95 --reps 500 --seed 8 -s cohen,alpha-interval "$D/likert.tsv")
same "bootstrap reproducible" "$a" "$b"
[ "$a" != "$c" ] && pass || fail "bootstrap ignores --seed"
# an interval does not depend on which other statistics are in the run
x=$("$K" -q --ci 0.95 --reps 300 -s alpha-interval "$D/likert.tsv" | awk -F'\t' 'NR==2{print $7, $8}')
y=$("$K" -q --ci 0.95 --reps 300 -s cohen,spearman,alpha-interval "$D/likert.tsv" |
    awk -F'\t' '$2=="alpha-interval"{print $7, $8}')
same "interval independent of other statistics" "$x" "$y"
cat "$DIR/ratings.tsv" "$DIR/baselines.tsv" |
    "$K" -q --by criterion --reference human --missing na -s cohen --ci 0.95 --reps 400 > "$T/ci.tsv"
bad=$(awk -F'\t' 'NR > 1 && $5 != "NA" && !($7 <= $5 && $5 <= $8) {print}' "$T/ci.tsv")
same "intervals contain the estimate" "" "$bad"
bad=$(awk -F'\t' 'NR > 1 && $5 != "NA" && ($8 - $7 < 0 || $8 - $7 > 0.7) {print}' "$T/ci.tsv")
same "interval widths plausible" "" "$bad"

# ---- 10. output formats agree --------------------------------------------------------------
"$K" -q -s cohen,spearman -d 6 "$D/likert.tsv" | awk -F'\t' 'NR>1{print $2, $3, $4, $5}' > "$T/t1"
"$K" -q -s cohen,spearman -d 6 -f table "$D/likert.tsv" | awk 'NR>1{print $2, $3, $4, $5}' > "$T/t2"
cmp -s "$T/t1" "$T/t2" && pass || fail "table format differs from tsv"
if command -v python3 > /dev/null 2>&1; then
    "$K" -q -s cohen,spearman -f json "$D/likert.tsv" |
        python3 -c 'import json,sys
for l in sys.stdin: r = json.loads(l); print(r["stat"], r["rater-a"], r["rater-b"], "%.6f" % r["value"])' > "$T/t3"
    cmp -s "$T/t1" "$T/t3" && pass || fail "json format differs from tsv"
fi

# ---- 11. the examples of man/kappa.1: run by tests/run-man-examples.sh with every man page

# ---- 12. cross-checks against scikit-learn and SciPy ---------------------------------------
PY=
for p in ${PYTHON:-} /usr/bin/python3 python3; do
    if "$p" -c 'import sklearn, scipy, numpy' > /dev/null 2>&1; then PY=$p; break; fi
done
if [ -n "$PY" ]; then
    if out=$("$PY" tests/kappa/crosscheck.py "$K" "${KAPPA_TRIALS:-40}" 2>&1); then pass
    else fail "cross-check: $out"; fi
else
    echo "SKIP: cross-checks need python3 with sklearn and scipy (make deps installs python3-sklearn python3-scipy)"
fi

echo "kappa: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
