#!/bin/sh
# tests/bench-graph.sh -- speed of svg2graph and graphalign (issue 5 targets:
# each under 1 second).
#
#   BUILD=build sh tests/bench-graph.sh
#
#   svg2graph   an SVG of 2,000 boxed text nodes (a 50 x 40 grid) and 2,000
#               connectors with marker arrows (right and down neighbours)
#   graphalign  two 2,000-node graphs of 4,000 edges whose texts differ by
#               one edit in every tenth node (all pairs compared)
# Prints the median of BENCH_RUNS runs (default 5) and checks the graph that
# came out (2,000 vertices, 2,000 edges). Exit 1 when a target is missed and
# BENCH_STRICT=1, else 0.
LC_ALL=C
export LC_ALL
BUILD=${BUILD:-build}
S2G=$BUILD/bin/svg2graph
GA=$BUILD/bin/graphalign
[ -x "$S2G" ] && [ -x "$GA" ] || { echo "bench-graph: build first" >&2; exit 2; }
RUNS=${BENCH_RUNS:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-graph.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
awk 'BEGIN {
    W = 50; H = 40
    print "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " W * 200 " " H * 120 "\">"
    print "<defs><marker id=\"a\" markerWidth=\"10\" markerHeight=\"7\" refX=\"10\" refY=\"3.5\" orient=\"auto\"><polygon points=\"0 0, 10 3.5, 0 7\"/></marker></defs>"
    n = 0; e = 0
    for (y = 0; y < H; y++) for (x = 0; x < W; x++) {
        n++
        printf "<rect x=\"%d\" y=\"%d\" width=\"120\" height=\"50\" fill=\"#eef\" stroke=\"#333\"/>", x * 200, y * 120
        printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"14\">node %d</text>\n", x * 200 + 60, y * 120 + 30, n
    }
    for (y = 0; y < H && e < 2000; y++) for (x = 0; x < W && e < 2000; x++) {
        if (x + 1 < W) { printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" marker-end=\"url(#a)\"/>\n", x * 200 + 120, y * 120 + 25, x * 200 + 200, y * 120 + 25; e++ }
        if (e < 2000 && y + 1 < H && x % 2 == 0) { printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\" marker-end=\"url(#a)\"/>\n", x * 200 + 60, y * 120 + 50, x * 200 + 60, y * 120 + 120; e++ }
    }
    print "</svg>" }' > "$tmp/big.svg"
awk -v seed=3 'BEGIN {
    srand(seed)
    split("alpha beta gamma delta encoder decoder attention layer norm residual input output", w, " ")
    for (g = 0; g < 2; g++) {
        f = "'"$tmp"'/g" g ".ir"
        print "diagramir 1\ndiagram big" > f
        for (i = 1; i <= 2000; i++) {
            t = w[(i % 12) + 1] " " w[(int(i / 12) % 12) + 1] " " i
            if (g == 1 && i % 10 == 0) t = t "x"
            printf "vertex v%d 0 0 1 1 \"%s\"\n", i, t > f
        }
        srand(seed + 1)
        for (k = 0; k < 4000; k++) printf "edge v%d v%d\n", 1 + int(rand() * 2000), 1 + int(rand() * 2000) > f
        print "end" > f
        close(f)
    }
}'
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
now() { date +%s.%N; }
: > "$tmp/t1"; : > "$tmp/t2"
r=0
while [ $r -lt "$RUNS" ]; do
    s=$(now); "$S2G" -g "$tmp/big.svg" > "$tmp/big.ir"; e=$(now)
    echo "$s $e" | awk '{ print $2 - $1 }' >> "$tmp/t1"
    s=$(now); "$GA" "$tmp/g0.ir" "$tmp/g1.ir" > "$tmp/ga.tsv"; e=$(now)
    echo "$s $e" | awk '{ print $2 - $1 }' >> "$tmp/t2"
    r=$((r + 1))
done
nv=$(grep -c '^vertex' "$tmp/big.ir"); ne=$(grep -c '^edge' "$tmp/big.ir")
t1=$(median < "$tmp/t1"); t2=$(median < "$tmp/t2")
f1=$(awk -F '\t' '$6 == "mean" && $2 == "node-f1" { print $4 }' "$tmp/ga.tsv")
printf 'bench-graph: svg2graph  2000 texts + 2000 connectors: %.3f s (median of %d; %d vertices, %d edges found)\n' "$t1" "$RUNS" "$nv" "$ne"
printf 'bench-graph: graphalign 2000 x 2000 nodes, 4000 edges each: %.3f s (median of %d; node F1 %s)\n' "$t2" "$RUNS" "$f1"
miss=0
awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(a < 1 && b < 1) }' || miss=1
[ "$nv" -eq 2000 ] && [ "$ne" -eq 2000 ] || { echo "bench-graph: wrong graph ($nv vertices, $ne edges)"; miss=1; }
[ "${BENCH_STRICT:-0}" = 1 ] && exit $miss
exit 0
