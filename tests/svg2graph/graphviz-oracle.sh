#!/bin/sh
# tests/svg2graph/graphviz-oracle.sh -- svg2graph against Graphviz, whose graphs are known.
#
#   BUILD=build sh tests/svg2graph/graphviz-oracle.sh [N [SEED]]
#
# Generates N random graphs (default $GRAPHVIZ_N or 120; seed $GRAPHVIZ_SEED or 1):
# 3-40 nodes with unique labels (some over two lines), shapes box, ellipse and
# diamond, rankdir TB or LR, some edge labels, some double-headed (dir=both) and
# plain (dir=none) edges, laid out by dot, neato and fdp in turn (neato and fdp
# with overlap=false: overlapping nodes are ambiguous to people too). Each is
# rendered with `ENGINE -Tsvg`, read back with svg2graph, and compared with the
# DOT truth by graphalign. A graph passes when node, edge and path F1 are all 1.
# Prints the pass rate per engine and overall, the mean F1s, and each failure
# (its files are kept in $GRAPHVIZ_KEEP when set). Exits 1 when the overall
# rate is below $GRAPHVIZ_FLOOR (default 0.99), 0 otherwise; 0 with a note
# when Graphviz is not installed (the test is skipped).
. "$(dirname "$0")/lib.sh"
if ! command -v dot >/dev/null 2>&1; then
    echo "graphviz-oracle: SKIP (graphviz not installed: apt-get install graphviz)"
    exit 0
fi
N=${1:-${GRAPHVIZ_N:-120}}
SEED=${2:-${GRAPHVIZ_SEED:-1}}
FLOOR=${GRAPHVIZ_FLOOR:-0.99}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gv-oracle.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# one awk run writes every graph: g<i>.dot, g<i>.ir (truth) and g<i>.engine
awk -v n="$N" -v seed="$SEED" -v dir="$tmp" '
function ri(a, b) { return a + int(rand() * (b - a + 1)) }
BEGIN {
    srand(seed)
    nw = split("parse lexer token graph node edge input output model train eval loss data " \
               "cache query index store merge split filter render layout score rank judge " \
               "align match kernel buffer stream queue worker server client router proxy " \
               "encoder decoder vision prompt", W, " ")
    ne = split("yes no next data ok err call read write", EL, " ")
    split("box ellipse diamond", SH, " ")
    split("dot neato fdp", EN, " ")
    for (g = 1; g <= n; g++) {
        engine = EN[(g - 1) % 3 + 1]
        nn = ri(3, 40)
        rank = rand() < 0.5 ? "LR" : "TB"
        shape_all = rand() < 0.5 ? SH[ri(1, 3)] : ""
        dotf = dir "/g" g ".dot"; irf = dir "/g" g ".ir"
        printf "digraph g%d {\n  rankdir=%s;\n", g, rank > dotf
        if (engine != "dot") printf "  overlap=false; sep=\"+8\";\n" > dotf
        printf "diagramir 1\ndiagram g%d\nunit pt\n", g > irf
        for (i = 1; i <= nn; i++) {
            w = W[ri(1, nw)] " " i
            lab = w; txt = w
            if (rand() < 0.2) { w2 = W[ri(1, nw)]; lab = w "\\n" w2; txt = w " " w2 }
            sh = shape_all != "" ? shape_all : SH[ri(1, 3)]
            printf "  v%d [shape=%s, label=\"%s\"];\n", i, sh, lab > dotf
            printf "vertex v%d 0 0 0 0 \"%s\"\n", i, txt > irf
        }
        m = ri(nn - 1, int(nn * 1.4))
        delete seen
        for (k = 0; k < m; k++) {
            a = ri(1, nn); b = ri(1, nn)
            if (a == b || ((a, b) in seen) || ((b, a) in seen)) continue
            seen[a, b] = 1
            attr = ""
            r = rand()
            if (r < 0.1) attr = "dir=both"
            else if (r < 0.2) attr = "dir=none"
            if (rand() < 0.25) attr = attr (attr != "" ? ", " : "") "label=\"" EL[ri(1, ne)] "\""
            printf "  v%d -> v%d%s;\n", a, b, attr != "" ? " [" attr "]" : "" > dotf
            if (attr ~ /dir=none/) printf "edge v%d v%d undirected\n", a, b > irf
            else {
                printf "edge v%d v%d\n", a, b > irf
                if (attr ~ /dir=both/) printf "edge v%d v%d\n", b, a > irf
            }
        }
        printf "}\n" > dotf
        printf "end\n" > irf
        printf "%s\n", engine > (dir "/g" g ".engine")
        close(dotf); close(irf); close(dir "/g" g ".engine")
    }
}'

pass=0 total=0 fails=""
: > "$tmp/scores"
i=1
while [ $i -le "$N" ]; do
    g=$tmp/g$i
    eng=$(cat "$g.engine")
    total=$((total + 1))
    ok=1
    if ! "$eng" -Tsvg "$g.dot" > "$g.svg" 2> "$g.gverr"; then
        echo "graphviz-oracle: g$i: $eng failed:" >&2; cat "$g.gverr" >&2; exit 2
    fi
    if ! "$S2G" -g --id "g$i" < "$g.svg" > "$g.gen.ir" 2> "$g.err"; then
        ok=0
        echo "FAIL g$i ($eng): svg2graph: $(head -1 "$g.err")"
    elif ! "$GA" --no-mean "$g.ir" "$g.gen.ir" > "$g.tsv" 2> "$g.err"; then
        ok=0
        echo "FAIL g$i ($eng): graphalign: $(head -1 "$g.err")"
    fi
    if [ $ok = 1 ]; then
        awk -F '\t' -v e="$eng" -v g="g$i" 'NR > 1 && $2 ~ /-f1$/ { printf "%s\t%s\t%s\t%s\t%s\n", g, e, $2, $4, $5 }' \
            "$g.tsv" >> "$tmp/scores"
        bad=$(f1_failures "$g.tsv") || exit 2
        if [ -n "$bad" ]; then
            ok=0
            echo "FAIL g$i ($eng): $bad"
        fi
    fi
    if [ $ok = 1 ]; then pass=$((pass + 1))
    elif [ -n "${GRAPHVIZ_KEEP-}" ]; then
        mkdir -p "$GRAPHVIZ_KEEP" && cp "$g.dot" "$g.svg" "$g.ir" "$g.gen.ir" "$GRAPHVIZ_KEEP/" 2>/dev/null
    fi
    i=$((i + 1))
done
awk -F '\t' -v pass="$pass" -v total="$total" -v floor="$FLOOR" '
    { s[$2 SUBSEP $3] += $4; c[$2 SUBSEP $3]++; a[$3] += $4; ca[$3]++
      if ($3 == "node-f1") { eng[$2]++; if (!($1 in bad)) good[$2]++ } }
    $4 != 1 { bad[$1] = 1 }
    END {
        for (e in eng) {
            printf "graphviz-oracle: %-5s", e
            split("node-f1 edge-f1 path-f1", K, " ")
            for (k = 1; k <= 3; k++) printf "  mean %s %.4f", K[k], s[e SUBSEP K[k]] / c[e SUBSEP K[k]]
            printf "\n"
        }
        printf "graphviz-oracle: all    mean node-f1 %.4f  mean edge-f1 %.4f  mean path-f1 %.4f\n",
            a["node-f1"] / ca["node-f1"], a["edge-f1"] / ca["edge-f1"], a["path-f1"] / ca["path-f1"]
    }' "$tmp/scores" | sort
rate=$(awk -v p="$pass" -v t="$total" 'BEGIN { printf "%.4f", t ? p / t : 0 }')
echo "graphviz-oracle: $pass of $total graphs exact (node, edge and path F1 = 1): rate $rate (floor $FLOOR)"
awk -v r="$rate" -v f="$FLOOR" 'BEGIN { exit !(r + 0 >= f + 0) }'
