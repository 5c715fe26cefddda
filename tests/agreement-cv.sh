#!/bin/sh
# make agreement-cv — cross-validated Cohen's kappa of `tikz2ir | irlint
# --rubric geom` against the human raters of the DiagramIR development split.
#
# The checks' fitted tolerances (irlint --list-params: origin "fitted") were
# chosen by looking at these very items, so the in-sample figure of `make
# agreement` flatters. Here the choosing is part of the procedure and sees
# only training items:
# irlint is given each item's request ($DATA/meta.tsv, --requests), as
# the raters saw it. Then:
#   1. the items are split into K fixed folds ($DATA/folds.tsv, stratified
#      by the human "no" verdicts: see --make-folds below);
#   2. for every fitted parameter and every value of its grid, irlint runs
#      over all items with that one parameter changed (the others at their
#      defaults);
#   3. for each fold, each parameter takes the grid value with the highest
#      mean kappa (over all the rubric's criteria) on the other K-1 folds;
#      the default wins ties. Parameters are chosen one at a time, each with
#      the others at their defaults;
#   4. irlint runs on the held-out fold with the values its training folds
#      chose; the held-out verdicts of all folds are pooled, and kappa is
#      computed on them per criterion with a bootstrap interval over items
#      (kappa --ci), the headline mean with its own bootstrap interval.
# The in-sample figure (every default, every item) is printed as a second
# line. What this cannot remove: the rules themselves (which checks exist,
# what they look at) were written looking at these items; the held-out
# split measured outside the project is the check on that.
#
# Environment:
#   BUILD   build directory holding bin/tikz2ir, bin/irlint, bin/kappa
#   DATA    dataset directory (default tests/data/diagramir-dev)
#   REPS    bootstrap replicates (default 1000); SEED (default 1)
#   LEVEL   interval level (default 0.95)
#   OUT     keep the pooled held-out verdicts here (a verdict table)
#   SENSITIVITY=1  also print, per fitted parameter, the all-items mean kappa
#           at each grid value (how much the figure moves with the constant)
#   FLOOR   exit 1 when the cross-validated headline mean is below this
# Usage: tests/agreement-cv.sh [--make-folds K]
#   --make-folds K  write a new stratified fold table for K folds to stdout
# Exit status: 0 ok, 1 below FLOOR, 2 missing programs or data.
BUILD=${BUILD:-build}
DATA=${DATA:-tests/data/diagramir-dev}
REPS=${REPS:-1000}
SEED=${SEED:-1}
LEVEL=${LEVEL:-0.95}
LC_ALL=C
export LC_ALL

# Folds: items sorted by which criteria the human said "no" to, rarest
# criterion first (so the few "no" items of a rare criterion are dealt to
# different folds), ties by item number, then dealt round-robin.
if [ "${1:-}" = --make-folds ]; then
    k=${2:-5}
    awk -F'\t' -v OFS='\t' -v k="$k" '
        NR == 1 { next }
        $3 == "human" { crit[$2] = 1; if ($4 == "no") { no[$1, $2] = 1; nno[$2]++ }; items[$1] = 1 }
        END {
            nc = 0
            for (c in crit) order[++nc] = c
            for (i = 1; i <= nc; i++)          # rarest "no" first
                for (j = i + 1; j <= nc; j++)
                    if (nno[order[j]] + 0 < nno[order[i]] + 0 ||
                        (nno[order[j]] + 0 == nno[order[i]] + 0 && order[j] < order[i])) {
                        t = order[i]; order[i] = order[j]; order[j] = t }
            for (it in items) {
                key = ""
                for (i = 1; i <= nc; i++) key = key ((it SUBSEP order[i]) in no ? "0" : "1")
                printf "%s\t%08d\n", key, it
            }
        }' "$DATA/ratings.tsv" | sort | awk -v OFS='\t' -v k="$k" '
        BEGIN { print "item", "fold" }
        { print $2 + 0, (NR - 1) % k + 1 }'
    exit 0
fi

for p in tikz2ir irlint kappa; do
    if [ ! -x "$BUILD/bin/$p" ]; then
        echo "agreement-cv: $BUILD/bin/$p not built" >&2
        exit 2
    fi
done
for f in ratings.tsv folds.tsv baseline-kappa.tsv; do
    if [ ! -f "$DATA/$f" ]; then
        echo "agreement-cv: $DATA/$f missing" >&2
        exit 2
    fi
done

# The teacher's requests (meta.tsv: item, prompt): core-math and
# shape-closed check the drawing against them (irlint --requests).
REQ=
[ -f "$DATA/meta.tsv" ] && REQ="--requests $DATA/meta.tsv"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agreement-cv.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
mkdir "$tmp/ir"

# The IR of every item, once.
for f in "$DATA"/tikz/*.tex; do
    "$BUILD/bin/tikz2ir" "$f" > "$tmp/ir/$(basename "$f" .tex).ir" 2>>"$tmp/tikz2ir.err"
done
awk -F'\t' -v OFS='\t' 'NR == 1 || $3 == "human"' "$DATA/ratings.tsv" > "$tmp/human.tsv"

# verdicts RUN [irlint options...] < item list: one row "run item criterion
# value" per item and criterion; an item with several pictures gets the
# worst verdict of its pictures (no over yes over na), as make agreement.
verdicts() {
    run=$1
    shift
    sed "s|^|$tmp/ir/|; s|\$|.ir|" | xargs "$BUILD/bin/irlint" --rubric geom --format tsv $REQ "$@" \
        2>>"$tmp/irlint.err" |
        awk -F'\t' -v OFS='\t' -v run="$run" '
            NR == 1 || $1 == "item" { next }
            { it = $1; sub(/\..*/, "", it); k = it SUBSEP $2
              sev = $4 == "no" ? 3 : $4 == "yes" ? 2 : 1
              if (!(k in best)) order[++n] = k
              if (sev > best[k]) { best[k] = sev; val[k] = $4 } }
            END { for (i = 1; i <= n; i++) { split(order[i], p, SUBSEP)
                                            print run, p[1], p[2], val[order[i]] } }'
}

awk -F'\t' 'NR > 1 { print $1 }' "$DATA/folds.tsv" > "$tmp/items"
"$BUILD/bin/irlint" --list-params | awk -F'\t' -v OFS='\t' 'NR > 1 && $7 == "fitted"' \
    > "$tmp/params"

# Run 0: every default. Then one run per fitted parameter and grid value.
printf '0\t-\t-\n' > "$tmp/runs"
verdicts 0 < "$tmp/items" > "$tmp/verdicts"
r=0
while IFS='	' read -r name value def unit lo hi origin grid; do
    for v in $(echo "$grid" | tr , ' '); do
        same=$(awk -v a="$v" -v b="$def" 'BEGIN { print (a + 0 == b + 0) }')
        [ "$same" = 1 ] && continue
        r=$((r + 1))
        printf '%s\t%s\t%s\n' "$r" "$name" "$v" >> "$tmp/runs"
        verdicts "$r" --param "$name=$v" < "$tmp/items" >> "$tmp/verdicts"
    done
done < "$tmp/params"

# The kappa of a confusion table, shared by the awk programs below.
KAPPA_AWK='
# kappa_of(conf, prefix): the Cohen kappa of the cells conf[prefix, h, v]
# for h, v in yes/no/na.
function kappa_of(conf, pre,    c, n, po, pe, mh, mv, i, j, cat) {
    split("yes no na", cat, " ")
    n = 0; po = 0
    for (i = 1; i <= 3; i++) { mh[i] = 0; mv[i] = 0 }
    for (i = 1; i <= 3; i++) for (j = 1; j <= 3; j++) {
        c = conf[pre, cat[i], cat[j]] + 0
        n += c; mh[i] += c; mv[j] += c; if (i == j) po += c
    }
    if (n == 0) return 0
    po /= n; pe = 0
    for (i = 1; i <= 3; i++) pe += (mh[i] / n) * (mv[i] / n)
    if (pe >= 1) return po >= 1 ? 1 : 0
    return (po - pe) / (1 - pe)
}
'

# Choose each parameter's value per fold, on the training folds only.
awk -F'\t' -v OFS='\t' "$KAPPA_AWK"'
    FILENAME == ARGV[1] { if (FNR > 1) fold[$1] = $2; if ($2 + 0 > nf) nf = $2 + 0; next }
    FILENAME == ARGV[2] { if (FNR > 1) { hum[$1, $2] = $4; crit[$2] = 1 }; next }
    FILENAME == ARGV[3] { pname[$1] = $2; pval[$1] = $3; if ($1 > nr) nr = $1 + 0; next }
    { got[$1, $2, $3] = $4 }
    END {
        # confusion per run, fold, criterion (irlint silent = na)
        for (k in hum) {
            split(k, p, SUBSEP); it = p[1]; c = p[2]
            if (!(it in fold)) continue
            for (r = 0; r <= nr; r++) {
                v = ((r SUBSEP it SUBSEP c) in got) ? got[r, it, c] : "na"
                conf[r, fold[it], c, hum[k], v]++
            }
        }
        split("yes no na", cat, " ")
        for (f = 1; f <= nf; f++) {
            for (r = 0; r <= nr; r++) {
                s = 0; m = 0
                for (c in crit) {
                    delete tc
                    for (g = 1; g <= nf; g++) if (g != f)
                        for (i = 1; i <= 3; i++) for (j = 1; j <= 3; j++)
                            tc[c, cat[i], cat[j]] += conf[r, g, c, cat[i], cat[j]]
                    s += kappa_of(tc, c); m++
                }
                score[r] = s / m
            }
            for (r = 1; r <= nr; r++) {
                q = pname[r]
                if (!(q in bestr)) { bestr[q] = 0; bests[q] = score[0] }
                if (score[r] > bests[q] + 1e-12) { bestr[q] = r; bests[q] = score[r] }
            }
            for (q in bestr) {
                if (bestr[q] != 0) print f, q, pval[bestr[q]]
                else print f, q, "default"
            }
            delete bestr; delete bests
        }
    }' "$DATA/folds.tsv" "$tmp/human.tsv" "$tmp/runs" "$tmp/verdicts" | sort > "$tmp/chosen"

# Held-out verdicts: each fold checked with the values its training chose.
printf 'item\tcriterion\trater\tvalue\tnote\n' > "$tmp/heldout.tsv"
nf=$(awk -F'\t' 'NR > 1 && $2 + 0 > n { n = $2 + 0 } END { print n }' "$DATA/folds.tsv")
f=1
while [ "$f" -le "$nf" ]; do
    awk -F'\t' -v f="$f" '$1 == f && $3 != "default" { printf "--param\n%s=%s\n", $2, $3 }' \
        "$tmp/chosen" > "$tmp/args.$f"
    awk -F'\t' -v f="$f" 'NR > 1 && $2 == f { print $1 }' "$DATA/folds.tsv" > "$tmp/items.$f"
    # shellcheck disable=SC2046
    IFS='
'
    set -- $(cat "$tmp/args.$f")
    unset IFS
    verdicts cv "$@" < "$tmp/items.$f" |
        awk -F'\t' -v OFS='\t' '{ print $2, $3, "irlint", $4, "" }' >> "$tmp/heldout.tsv"
    f=$((f + 1))
done
[ -n "${OUT:-}" ] && cp "$tmp/heldout.tsv" "$OUT"
awk -F'\t' -v OFS='\t' 'BEGIN { print "item", "criterion", "rater", "value", "note" }
    $1 == 0 { print $2, $3, "irlint", $4, "" }' "$tmp/verdicts" > "$tmp/insample.tsv"

if [ -s "$tmp/irlint.err" ]; then
    echo "agreement-cv: irlint reported errors:" >&2
    head -5 "$tmp/irlint.err" >&2
    exit 2
fi

# Kappa per criterion with its bootstrap interval (kappa --ci), held out and
# in-sample.
kap() {
    "$BUILD/bin/kappa" --by criterion --raters human,irlint --missing na --unrated na \
        --stat cohen --ci "$LEVEL" --reps "$REPS" --seed "$SEED" "$tmp/human.tsv" "$1" |
        awk -F'\t' -v OFS='\t' '$1 != "group" { print $1, $5, $7, $8 }'
}
kap "$tmp/heldout.tsv" > "$tmp/k.cv" || exit 2
kap "$tmp/insample.tsv" > "$tmp/k.in" || exit 2

# The headline mean's interval: the same bootstrap over items, the mean of
# the six headline kappas per replicate (percentile interval).
headline=$(head -1 "$DATA/baseline-kappa.tsv" | cut -f2- | tr '\t' '\n' | grep -v '^mean$' |
    paste -sd, -)
meanci() {
    awk -F'\t' -v OFS='\t' -v reps="$REPS" -v seed="$SEED" -v level="$LEVEL" \
        -v heads="$headline" "$KAPPA_AWK"'
        FILENAME == ARGV[1] { if (FNR > 1) { hum[$1, $2] = $4; items[$1] = 1 }; next }
        FNR > 1 { got[$1, $2] = $4 }
        END {
            nh = split(heads, hc, ",")
            n = 0
            for (it in items) idx[++n] = it
            srand(seed)
            for (b = 1; b <= reps; b++) {
                delete conf
                for (s = 1; s <= n; s++) {
                    it = idx[int(rand() * n) + 1]
                    for (h = 1; h <= nh; h++) {
                        c = hc[h]
                        if (!((it SUBSEP c) in hum)) continue
                        v = ((it SUBSEP c) in got) ? got[it, c] : "na"
                        conf[c, hum[it, c], v]++
                    }
                }
                m = 0
                for (h = 1; h <= nh; h++) m += kappa_of(conf, hc[h])
                rep[b] = m / nh
            }
            # percentile interval: sort the replicates
            for (i = 2; i <= reps; i++) { x = rep[i]; j = i - 1
                while (j >= 1 && rep[j] > x) { rep[j + 1] = rep[j]; j-- }
                rep[j + 1] = x }
            lo = int((1 - level) / 2 * reps + 0.5); if (lo < 1) lo = 1
            hi = int((1 + level) / 2 * reps + 0.5); if (hi > reps) hi = reps
            printf "%.3f\t%.3f\n", rep[lo], rep[hi]
        }' "$tmp/human.tsv" "$1"
}
meanci "$tmp/heldout.tsv" > "$tmp/m.cv"
meanci "$tmp/insample.tsv" > "$tmp/m.in"

nitems=$(wc -l < "$tmp/items")
nruns=$(($(wc -l < "$tmp/runs") - 1))
nparams=$(wc -l < "$tmp/params")
echo "agreement-cv: $nitems items in $nf folds ($DATA/folds.tsv); $nparams fitted parameters," \
    "$nruns grid runs; kappa with ${LEVEL} bootstrap intervals over items ($REPS replicates)"
awk -F'\t' -v heads="$headline" -v floor="${FLOOR:-}" '
    FILENAME == ARGV[1] { cv[$1] = $2; cvl[$1] = $3; cvh[$1] = $4; next }
    FILENAME == ARGV[2] { ins[$1] = $2; inl[$1] = $3; inh[$1] = $4; next }
    FILENAME == ARGV[3] { split($0, mc, "\t"); next }
    FILENAME == ARGV[4] { split($0, mi, "\t"); next }
    FNR == 1 { next }
    { for (i = 2; i < NF; i++) { if ($i + 0 > best[i - 1]) best[i - 1] = $i + 0 }
      if ($NF + 0 > bestmean) bestmean = $NF + 0 }
    END {
        nh = split(heads, hc, ",")
        printf "%-20s %-8s %-17s %-8s %-17s %s\n", "criterion", "cv", "interval", "in-sample",
            "interval", "best published"
        for (h = 1; h <= nh; h++) {
            c = hc[h]; scv += cv[c]; sumin += ins[c]
            printf "%-20s %-8.3f [%6.3f, %6.3f] %-8.3f [%6.3f, %6.3f] %.3f%s\n", c, cv[c], cvl[c],
                cvh[c], ins[c], inl[c], inh[c], best[h], cv[c] < best[h] ? "  (cv below)" : ""
        }
        printf "%-20s %-8.3f [%6.3f, %6.3f] %-8.3f [%6.3f, %6.3f] %.3f\n", "mean (headline)",
            scv / nh, mc[1], mc[2], sumin / nh, mi[1], mi[2], bestmean
        for (c in cv) {
            isHead = 0
            for (h = 1; h <= nh; h++) if (hc[h] == c) isHead = 1
            if (!isHead)
                printf "%-20s %-8.3f [%6.3f, %6.3f] %-8.3f [%6.3f, %6.3f] (not headline)\n", c,
                    cv[c], cvl[c], cvh[c], ins[c], inl[c], inh[c]
        }
        if (floor != "" && scv / nh < floor + 0) {
            printf "agreement-cv: cross-validated headline mean %.3f is below FLOOR %s\n",
                scv / nh, floor
            exit 1
        }
    }' "$tmp/k.cv" "$tmp/k.in" "$tmp/m.cv" "$tmp/m.in" "$DATA/baseline-kappa.tsv" || exit 1

# Which values the folds chose.
awk -F'\t' '
    { v[$2] = v[$2] (v[$2] == "" ? "" : " ") $3; if ($3 != "default") moved[$2] = 1 }
    END { for (p in moved) printf "  %-16s %s\n", p, v[p] }' "$tmp/chosen" | sort > "$tmp/moved"
if [ -s "$tmp/moved" ]; then
    printf '\nchosen per fold (folds 1 to %s; parameters every fold left at the default not shown):\n' "$nf"
    cat "$tmp/moved"
fi

if [ "${SENSITIVITY:-0}" = 1 ]; then
    echo
    echo "sensitivity: all-items headline mean kappa at each grid value (default in brackets)"
    awk -F'\t' -v OFS='\t' -v heads="$headline" "$KAPPA_AWK"'
        FILENAME == ARGV[1] { if (FNR > 1) hum[$1, $2] = $4; next }
        FILENAME == ARGV[2] { pname[$1] = $2; pval[$1] = $3; nr = $1 + 0; next }
        FILENAME == ARGV[3] { def[$1] = $3; order[++np] = $1; next }
        { got[$1, $2, $3] = $4 }
        END {
            nh = split(heads, hc, ",")
            for (r = 0; r <= nr; r++) {
                delete conf
                for (k in hum) { split(k, ic, SUBSEP)
                    v = ((r SUBSEP k) in got) ? got[r, ic[1], ic[2]] : "na"
                    conf[ic[2], hum[k], v]++ }
                m = 0
                for (h = 1; h <= nh; h++) m += kappa_of(conf, hc[h])
                mean[r] = m / nh
            }
            for (i = 1; i <= np; i++) {
                p = order[i]; line = sprintf("  %-16s [%s] %.3f", p, def[p], mean[0])
                for (r = 1; r <= nr; r++) if (pname[r] == p)
                    line = line sprintf("  %s:%.3f", pval[r], mean[r])
                print line
            }
        }' "$tmp/human.tsv" "$tmp/runs" "$tmp/params" "$tmp/verdicts"
fi
