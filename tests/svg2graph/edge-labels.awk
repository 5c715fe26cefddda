# edge-labels.awk -- the labelled edges of a graph in the IR (svg2graph -g
# output, or a known graph), one line each: the texts of its two ends and
# the label, tab-separated; an undirected edge's ends in text order. Used
# by graphviz-shapes.sh, plantuml-oracle.sh and run.sh to compare edge
# labels with the known graph's.
#
#   awk -f tests/svg2graph/edge-labels.awk GRAPH.ir | sort
$1 == "vertex" { id = $2; s = $0; sub(/^[^"]*"/, "", s); sub(/".*$/, "", s); T[id] = s }
$1 == "edge" {
    lab = ""; und = 0
    for (i = 4; i <= NF; i++) {
        if ($i == "undirected") und = 1
        if ($i ~ /^label=/) { lab = substr($i, 7); gsub(/"/, "", lab) }
    }
    if (lab == "") next
    a = T[$2]; b = T[$3]
    if (und && b < a) { t = a; a = b; b = t }
    printf "%s\t%s\t%s\n", a, b, lab
}
