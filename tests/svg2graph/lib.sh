# tests/svg2graph/lib.sh -- sourced by the scripts of tests/svg2graph (run.sh,
# graphviz-oracle.sh, graphviz-shapes.sh, plantuml-oracle.sh) as
#     . "$(dirname "$0")/lib.sh"
# the suites' preamble (tests/lib.sh), $S2G and $GA (svg2graph and
# graphalign; exit 2 when they are not built), and the check of graphalign's
# F1 scores.
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
