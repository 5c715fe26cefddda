# tests/svg2graph/lib.sh -- sourced by the scripts of tests/svg2graph (run.sh,
# graphviz-oracle.sh, graphviz-shapes.sh, plantuml-oracle.sh) as
#     . "$(dirname "$0")/lib.sh"
# the suites' preamble (tests/lib.sh), $S2G and $GA (svg2graph and
# graphalign; exit 2 when they are not built), the check of graphalign's
# F1 scores, and the whole comparison of one drawing with its truth
# (svg2graph run with $S2G_ARGS too, e.g. S2G_ARGS=--no-groups).
. "$(dirname "$0")/../lib.sh"
S2G=$bin/svg2graph
GA=$bin/graphalign
[ -x "$S2G" ] && [ -x "$GA" ] || { echo "$0: $S2G or $GA not found (make first)" >&2; exit 2; }

# f1_failures TSV: the F1 scores below 1 in graphalign's TSV (one row a
# criterion: item, criterion, rater, value, note), as "node-f1=0.8 (NOTE) "
# each; nothing when they are all 1. Returns 2, saying so on stderr, when
# node-f1, edge-f1 or path-f1 is not there: a check that looks for criteria
# graphalign does not write (any more) must not pass.
f1_failures() {
    awk -F '\t' -v tsv="$1" '
        NR > 1 && $2 ~ /-f1$/ { seen[$2] = 1; if ($4 != 1) printf "%s=%s (%s) ", $2, $4, $5 }
        END {
            n = split("node-f1 edge-f1 path-f1", c, " ")
            for (k = 1; k <= n; k++) if (!(c[k] in seen)) miss = miss " " c[k]
            if (miss != "") {
                printf "f1_failures: %s has no%s (graphalign renamed its criteria?)\n", tsv, miss | "cat >&2"
                exit 2
            }
        }' "$1"
}

# graph_check ID SVG TRUTH LAB G: reads the graph of SVG (svg2graph -g --id
# ID) and compares it with the truth graph TRUTH (graphalign: every F1 must be
# 1) and with the labelled edges LAB (edge-labels.awk's lines, any order),
# writing the work files G.gen.ir, G.tsv, G.err, G.lab.s and G.glab.s. Sets
# ok (1: exact, 0: not) and why (what differs). Exits 2 when graphalign's F1
# criteria are missing (f1_failures).
graph_check() {
    ok=1 why=""
    if ! "$S2G" $S2G_ARGS -g --id "$1" < "$2" > "$5.gen.ir" 2> "$5.err"; then
        ok=0 why="svg2graph: $(head -1 "$5.err")"
    elif ! "$GA" --no-mean "$3" "$5.gen.ir" > "$5.tsv" 2> "$5.err"; then
        ok=0 why="graphalign: $(head -1 "$5.err")"
    else
        why=$(f1_failures "$5.tsv") || exit 2
        [ -z "$why" ] || ok=0
        if [ $ok = 1 ]; then
            sort "$4" > "$5.lab.s"
            awk -f "$root/tests/svg2graph/edge-labels.awk" "$5.gen.ir" | sort > "$5.glab.s"
            if ! cmp -s "$5.lab.s" "$5.glab.s"; then
                ok=0 why="edge labels: $(diff "$5.lab.s" "$5.glab.s" | grep '^[<>]' | head -3 | tr '\t\n' ', ')"
            fi
        fi
    fi
}
