#!/bin/sh
# merge-tsv.sh FILE... -- merge verdict tables (item criterion rater value
# note, each with its header) written per item or per shard into one table on
# standard output: one header, the rows sorted by item (byte order, LC_ALL=C;
# an item's rows keep their order, and a "# failed<TAB>ITEM..." comment line
# of judge(1) stays with its item). That is the table one process writes
# when given the items in that order, whatever order the pieces were made in.
#
# A file whose header differs from the first one's is an error (exit 2):
# pieces of different runs (another rubric, another program) are not merged.
# A file without a header (empty: a shard with no items) adds nothing.
#   sh contrib/dataset/merge-tsv.sh out/verdicts/*.tsv > out/irlint.tsv.tmp &&
#     mv out/irlint.tsv.tmp out/irlint.tsv
LC_ALL=C
export LC_ALL
[ $# -gt 0 ] || { echo "usage: merge-tsv.sh FILE..." >&2; exit 2; }
for f in "$@"; do
    [ -r "$f" ] || { echo "merge-tsv.sh: $f: cannot read" >&2; exit 2; }
done
tab=$(printf '\t')
tmp=$(mktemp "${TMPDIR:-/tmp}/merge-tsv.XXXXXX") || exit 2
trap 'rm -f "$tmp"' EXIT
trap 'exit 2' HUP INT TERM
# each row decorated with its sort key (H for the header, R and the item),
# its file's number and its line number: a stable sort on the item
awk -F '\t' '
FNR == 1 {
    fileno++
    if (hdr == "") { hdr = $0; first = FILENAME; print "H\t0\t0\t" $0; next }
    if ($0 != hdr) {
        printf "%s:1:1: error: header differs from the one of %s\n", FILENAME, first > "/dev/stderr"
        exit 2
    }
    next
}
{ k = ($0 ~ /^#/) ? $2 : $1; printf "R%s\t%d\t%d\t%s\n", k, fileno, FNR, $0 }
' "$@" >"$tmp" || exit 2
sort -t "$tab" -k1,1 -k2,2n -k3,3n "$tmp" | cut -f4-
