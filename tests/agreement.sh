#!/bin/sh
# make agreement — Cohen's kappa of `tikz2ir | irlint --rubric geom` against the
# human raters of the DiagramIR development split, per criterion and as the
# mean of the six headline criteria, printed beside the published systems
# (tests/data/diagramir-dev/baseline-kappa.tsv).
#
# Labels yes/no/na are three categories; an item without an irlint verdict
# counts as na (as in baseline-kappa.tsv).
#
# Environment:
#   BUILD   build directory holding bin/tikz2ir and bin/irlint (default build)
#   DATA    dataset directory (default tests/data/diagramir-dev)
#   OUT     keep the verdict table here (default: a temporary file)
#   FLOOR   exit 1 when the headline mean falls below this number
# Exit status: 0 ok, 1 below FLOOR, 2 missing programs or data.
BUILD=${BUILD:-build}
DATA=${DATA:-tests/data/diagramir-dev}
LC_ALL=C
export LC_ALL

for p in tikz2ir irlint; do
    if [ ! -x "$BUILD/bin/$p" ]; then
        echo "agreement: $BUILD/bin/$p not built" >&2
        exit 2
    fi
done
if [ ! -f "$DATA/ratings.tsv" ]; then
    echo "agreement: $DATA/ratings.tsv missing" >&2
    exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agreement.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
ours=${OUT:-$tmp/irlint.tsv}

# Verdicts: one tikz2ir | irlint pipeline per item; the item column is the
# file's base name (what ratings.tsv uses). irlint is given the items'
# requests (meta.tsv's prompt column, --requests), which core-math and
# shape-closed check the drawing against.
REQ=
[ -f "$DATA/meta.tsv" ] && REQ="--requests $DATA/meta.tsv"
printf 'item\tcriterion\trater\tvalue\tnote\n' > "$ours"
nitems=0
nfail=0
for f in "$DATA"/tikz/*.tex; do
    item=$(basename "$f" .tex)
    nitems=$((nitems + 1))
    if ! "$BUILD/bin/tikz2ir" "$f" 2>>"$tmp/tikz2ir.err" > "$tmp/item.ir"; then
        nfail=$((nfail + 1))
    fi
    # a source with several pictures gets one verdict per criterion: the
    # worst of its pictures' (no over yes over na)
    "$BUILD/bin/irlint" --rubric geom --format tsv $REQ "$tmp/item.ir" 2>>"$tmp/irlint.err" |
        awk -F'\t' -v OFS='\t' -v item="$item" '
            NR == 1 { next }
            { sev = $4 == "no" ? 3 : $4 == "yes" ? 2 : 1
              if (!($2 in best)) order[++n] = $2
              if (sev > best[$2]) { best[$2] = sev; row[$2] = $0 } }
            END { for (i = 1; i <= n; i++) { $0 = row[order[i]]; $1 = item; print } }' >> "$ours"
done
nrows=$(($(wc -l < "$ours") - 1))
echo "agreement: $nitems items, tikz2ir exit status nonzero on $nfail, $nrows irlint verdicts"
if [ -s "$tmp/irlint.err" ]; then
    echo "agreement: irlint reported input errors:" >&2
    head -5 "$tmp/irlint.err" >&2
fi

# Kappa per criterion: the kappa program when built, else a small awk version.
awk -F'\t' -v OFS='\t' 'NR == 1 || $3 == "human"' "$DATA/ratings.tsv" > "$tmp/human.tsv"
if [ -x "$BUILD/bin/kappa" ] &&
    "$BUILD/bin/kappa" --by criterion --raters human,irlint --missing na --unrated na \
        --stat cohen "$tmp/human.tsv" "$ours" > "$tmp/kappa.out" 2>"$tmp/kappa.err"; then
    # group stat rater-a rater-b value n ...
    awk -F'\t' -v OFS='\t' '$2 ~ /cohen/ && $1 != "group" { print $1, $5 }' "$tmp/kappa.out" \
        > "$tmp/k.tsv"
    how="kappa --by criterion --raters human,irlint --missing na --unrated na"
else
    awk -F'\t' -v OFS='\t' '
        FNR == 1 { next }
        FILENAME == ARGV[1] { h[$1 SUBSEP $2] = $4; crit[$2] = 1; next }
        $3 == "irlint" { r[$1 SUBSEP $2] = $4 }
        END {
            for (k in h) {
                split(k, p, SUBSEP); c = p[2]
                hv = h[k]; rv = (k in r) ? r[k] : "na"
                n[c]++; if (hv == rv) agree[c]++
                mh[c SUBSEP hv]++; mr[c SUBSEP rv]++
            }
            for (c in crit) {
                po = agree[c] / n[c]; pe = 0
                split("yes no na", cats, " ")
                for (i = 1; i <= 3; i++)
                    pe += (mh[c SUBSEP cats[i]] / n[c]) * (mr[c SUBSEP cats[i]] / n[c])
                if (pe >= 1) k = (po >= 1) ? 1 : 0; else k = (po - pe) / (1 - pe)
                printf "%s\t%.6f\n", c, k
            }
        }' "$tmp/human.tsv" "$ours" > "$tmp/k.tsv"
    how="awk (Cohen, 3 categories, missing = na)"
fi

# Side by side with the published systems.
awk -F'\t' -v floor="${FLOOR:-}" -v how="$how" '
    FILENAME == ARGV[1] { k[$1] = $2; next }
    FNR == 1 { ncol = NF; for (i = 1; i <= NF; i++) hdr[i] = $i; next }
    { rows[++nr] = $0 }
    END {
        printf "%-20s", "rater"
        for (i = 2; i <= ncol; i++) printf " %9.9s", hdr[i]
        printf "\n"
        for (j = 1; j <= nr; j++) {
            split(rows[j], f, "\t")
            printf "%-20s", f[1]
            for (i = 2; i <= ncol; i++) {
                printf " %9s", f[i]
                if (i < ncol && (!(i in best) || f[i] + 0 > best[i])) best[i] = f[i] + 0
            }
            printf "\n"
        }
        printf "%-20s", "irlint"
        sum = 0; m = 0
        for (i = 2; i < ncol; i++) {
            v = (hdr[i] in k) ? k[hdr[i]] : "nan"
            printf " %9.3f", v; sum += v; m++
        }
        mean = sum / m
        printf " %9.3f\n", mean
        printf "%-20s", "best published"
        for (i = 2; i < ncol; i++) printf " %9.3f", best[i]
        printf "\n\nirlint, not headline: shape-closed %.3f  core-math %.3f\n",
            k["shape-closed"], k["core-math"]
        printf "kappa computed with: %s\n", how
        if (floor != "" && mean < floor + 0) {
            printf "agreement: headline mean %.3f is below FLOOR %s\n", mean, floor
            exit 1
        }
    }' "$tmp/k.tsv" "$DATA/baseline-kappa.tsv"
