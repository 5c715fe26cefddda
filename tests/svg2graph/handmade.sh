#!/bin/sh
# tests/svg2graph/handmade.sh -- svg2graph on SVG written as people,
# language models and SVG editors write it (not Graphviz's): the exact rate
# per style and per kind of graph.
#
#   BUILD=build sh tests/svg2graph/handmade.sh [N [SEED]]
#
# handmade/gen.py writes N diagrams (default $HANDMADE_N or 60:
# each of its 12 styles with each of its 5 kinds of graph; seed
# $HANDMADE_SEED or 1), each with its truth graph and its labelled edges;
# the hand-picked files of tests/svg2graph/handmade/ (NAME.svg with
# NAME.truth.ir and NAME.lab) are added, counted as style "picked". Each SVG
# is read by svg2graph -g and compared with its truth by graphalign. A
# diagram is exact when node, edge and path F1 are all 1 and every edge label
# is on its edge (tests/svg2graph/edge-labels.awk, by the ends' texts).
# Prints each failure, the exact rate per style and per kind, then overall.
# Files are kept in $HANDMADE_KEEP when set. Exits 1 when the overall rate is
# below $HANDMADE_FLOOR (default 0), 0 otherwise; 0 with a note when there is
# no python3.
. "$(dirname "$0")/lib.sh"
here=$root/tests/svg2graph/handmade
command -v python3 >/dev/null 2>&1 || { echo "handmade: SKIP (no python3)"; exit 0; }
N=${1:-${HANDMADE_N:-60}}
SEED=${2:-${HANDMADE_SEED:-1}}
FLOOR=${HANDMADE_FLOOR:-0}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/handmade.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
python3 "$here/gen.py" "$tmp" "$N" "$SEED" || { echo "handmade: gen.py failed" >&2; exit 2; }
for f in "$here"/*.svg; do
    [ -f "$f" ] || continue
    b=$(basename "$f" .svg)
    cp "$f" "$tmp/picked-$b.svg"; cp "$here/$b.truth.ir" "$tmp/picked-$b.truth.ir"; cp "$here/$b.lab" "$tmp/picked-$b.lab"
done
: > "$tmp/results"
for svg in "$tmp"/*.svg; do
    name=$(basename "$svg" .svg)
    g=$tmp/$name
    style=${name%%-*} rest=${name#*-} kind=${rest%%-*}
    [ "$style" = picked ] && kind=picked
    graph_check "$name" "$svg" "$g.truth.ir" "$g.lab" "$g"
    printf '%s\t%s\t%s\t%s\n' "$style" "$kind" "$ok" "$name" >> "$tmp/results"
    if [ $ok = 0 ]; then
        echo "FAIL $name: $why"
        if [ -n "${HANDMADE_KEEP-}" ]; then
            mkdir -p "$HANDMADE_KEEP" && cp "$svg" "$g.truth.ir" "$g.gen.ir" "$g.lab" "$HANDMADE_KEEP/"
        fi
    fi
done
awk -F '\t' -v floor="$FLOOR" '
    { s[$1] += $3; cs[$1]++; k[$2] += $3; ck[$2]++; p += $3; n++ }
    END {
        for (x in cs) printf "handmade: style %-10s %3d/%-3d %.4f\n", x, s[x], cs[x], s[x] / cs[x] | "sort"
        close("sort")
        for (x in ck) printf "handmade: kind  %-10s %3d/%-3d %.4f\n", x, k[x], ck[x], k[x] / ck[x] | "sort"
        close("sort")
        r = n ? p / n : 0
        printf "handmade: %d of %d diagrams exact (node, edge and path F1 = 1, edge labels on their edges): rate %.4f (floor %s)\n", p, n, r, floor
        exit !(r + 0 >= floor + 0)
    }' "$tmp/results"
