#!/bin/sh
# tests/svg2graph/plantuml-oracle.sh -- svg2graph against PlantUML: random
# activity and component diagrams whose graph is known.
#
#   BUILD=build sh tests/svg2graph/plantuml-oracle.sh [N [SEED]]
#   make plantuml-shapes            (needs plantuml, hence Java; not in check)
#
# Generates N random diagrams (default $PUML_N or 200; seed $PUML_SEED or
# 1), odd ones activity diagrams, even ones component diagrams, renders
# them all with one `plantuml -tsvg` run, reads each SVG back with
# svg2graph -g and compares it with the graph it asked for by graphalign.
# A diagram is exact when node, edge and path F1 are all 1 and every edge
# label is on its edge (the labelled edges, by their ends' texts, are the
# same on both sides). Prints the exact rate per diagram kind and per
# element kind (the diagrams that hold at least one element of that kind),
# then overall, and each failure (the .puml, .svg, truth and svg2graph's
# graph are kept in $PUML_KEEP when set). Exits 1 when the overall rate is
# below $PUML_FLOOR (default 0.95), 0 otherwise; 0 with a note when
# plantuml is not installed. PUML_SAVE=DIR writes the first $PUML_SAVE_N
# (default 20) diagrams there as NAME.puml, NAME.svg and NAME.truth.ir (how
# tests/svg2graph/plantuml/ was made).
#
# What is a vertex (the graph a person reads in the picture):
#   activity diagrams: the start (a filled dot) and the stop (a ringed
#     dot), each without text; every action (its rounded box; its text is
#     its 1-3 lines joined by blanks); every decision of an if and every
#     while test (the hexagon, with its condition as text); the merge
#     diamond that closes an if (no text); the fork bar and the join bar of
#     a fork (no text). Edges are the arrows: start -> first, each element
#     -> the next, decision -> first element of each branch (an if without
#     else: decision -> merge), last element of each branch -> merge,
#     while -> body, end of body -> while (the loop back), while -> what
#     follows the loop, fork bar -> each branch, each branch -> join bar.
#     The if's then/else labels and the while's is/endwhile labels are the
#     labels of the edges that leave the decision.
#   component diagrams: every component (its box; the two small tabs on its
#     side are part of it), every interface (the small circle; its name,
#     written under it, is its text), every package and node (a container:
#     a vertex whose text is its title, with no edges: arrows go between
#     the components and interfaces in them). Arrows --> and ..> are
#     directed edges, -- and - undirected ones; ": text" is the edge's
#     label.
# Texts are unique words with a number (a vertex without text is matched
# by its place in the graph: graphalign pairs equal texts by degree, then
# by record order, and the truth lists vertices in the order PlantUML
# draws them).
. "$(dirname "$0")/lib.sh"
if ! command -v plantuml >/dev/null 2>&1; then
    echo "plantuml-oracle: SKIP (plantuml not installed: apt-get install plantuml)"
    exit 0
fi
N=${1:-${PUML_N:-200}}
SEED=${2:-${PUML_SEED:-1}}
FLOOR=${PUML_FLOOR:-0.95}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/puml-oracle.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# one awk run writes every diagram: p<i>.puml, p<i>.ir (truth), p<i>.lab
# (the labelled edges by their ends' texts) and p<i>.meta (kind, then the
# element kinds it holds)
awk -v n="$N" -v seed="$SEED" -v dir="$tmp" '
function ri(a, b) { return a + int(rand() * (b - a + 1)) }
function word() { return W[ri(1, nw)] }
# a vertex of the truth; returns its id
function vert(txt, kind) {
    nv++; V[nv] = txt
    printf "vertex v%d 0 0 0 0 \"%s\"\n", nv, txt > irf
    K[kind] = 1
    return nv
}
function edge(a, b, lab, und) {
    printf "edge v%d v%d%s\n", a, b, und ? " undirected" : "" > irf
    if (lab != "") {
        K["edge label"] = 1
        if (und && V[b] < V[a]) printf "%s\t%s\t%s\n", V[b], V[a], lab > labf
        else printf "%s\t%s\t%s\n", V[a], V[b], lab > labf
    }
}
# the pending edges (from, label) all go to vertex v
function arrive(v,   i) {
    for (i = 1; i <= np; i++) edge(PF[i], v, PL[i], 0)
    np = 1; PF[1] = v; PL[1] = ""
}
function lines(   nl, t, s, l, w) {
    nl = rand() < 0.6 ? 1 : ri(2, 3)
    w = word() " " (++nt)
    t = w; s = w
    for (l = 2; l <= nl; l++) { w = word(); t = t " " w; s = s "\n" w }
    if (nl > 1) K["2-3 lines"] = 1
    LT = t
    return s
}
function stmt(depth, ind,   r, s, v, d, m, f, j, k, nb, save, sl, i, lab, lab2, br) {
    r = rand()
    if (depth >= 2 || r < 0.55 || nact < 2) {
        s = lines()
        printf "%s:%s;\n", ind, s > pf
        v = vert(LT, "action"); nact++
        arrive(v)
    } else if (r < 0.75) {
        lab = rand() < 0.8 ? CL[ri(1, ncl)] : ""
        lab2 = rand() < 0.8 ? CL2[ri(1, ncl)] : ""
        s = word() " " (++nt) "?"
        printf "%sif (%s) then%s\n", ind, s, lab != "" ? " (" lab ")" : "" > pf
        d = vert(s, "if"); arrive(d)
        PL[1] = lab
        seq(depth + 1, ind "  ", ri(1, 2))
        nb = np; for (i = 1; i <= np; i++) { BF[depth, i] = PF[i]; BL[depth, i] = PL[i] }
        np = 1; PF[1] = d; PL[1] = ""
        if (rand() < 0.7) {
            printf "%selse%s\n", ind, lab2 != "" ? " (" lab2 ")" : "" > pf
            PL[1] = lab2
            seq(depth + 1, ind "  ", ri(1, 2))
        }
        printf "%sendif\n", ind > pf
        for (i = 1; i <= nb; i++) { np++; PF[np] = BF[depth, i]; PL[np] = BL[depth, i] }
        m = vert("", "merge")
        arrive(m)
    } else if (r < 0.88) {
        lab = rand() < 0.7 ? CL[ri(1, ncl)] : ""
        lab2 = rand() < 0.7 ? CL2[ri(1, ncl)] : ""
        s = word() " " (++nt) "?"
        printf "%swhile (%s)%s\n", ind, s, lab != "" ? " is (" lab ")" : "" > pf
        d = vert(s, "while"); arrive(d)
        PL[1] = lab
        seq(depth + 1, ind "  ", ri(1, 2))
        for (i = 1; i <= np; i++) edge(PF[i], d, PL[i], 0)
        printf "%sendwhile%s\n", ind, lab2 != "" ? " (" lab2 ")" : "" > pf
        np = 1; PF[1] = d; PL[1] = lab2
    } else {
        printf "%sfork\n", ind > pf
        f = vert("", "fork"); arrive(f)
        k = ri(2, 3); nb = 0
        for (br = 1; br <= k; br++) {
            if (br > 1) printf "%sfork again\n", ind > pf
            np = 1; PF[1] = f; PL[1] = ""
            seq(depth + 1, ind "  ", 1)
            for (i = 1; i <= np; i++) { nb++; FF[depth, nb] = PF[i]; FL[depth, nb] = PL[i] }
        }
        printf "%send fork\n", ind > pf
        np = nb; for (i = 1; i <= nb; i++) { PF[i] = FF[depth, i]; PL[i] = FL[depth, i] }
        j = vert("", "fork")
        arrive(j)
    }
}
function seq(depth, ind, cnt,   i) { for (i = 0; i < cnt; i++) stmt(depth, ind) }
function activity(   v, total) {
    printf "@startuml\nstart\n" > pf
    v = vert("", "start/stop"); np = 1; PF[1] = v; PL[1] = ""
    nact = 0
    seq(0, "", ri(2, 5))
    printf "stop\n@enduml\n" > pf
    v = vert("", "start/stop"); arrive(v)
}
function component(   nc, ni, i, j, a, b, nk, k, at, len, last, c, typ, t, m, lab, arr, und, r) {
    printf "@startuml\n" > pf
    nc = ri(3, 9); ni = rand() < 0.6 ? ri(1, 2) : 0
    for (i = 1; i <= nc; i++) {
        s = lines(); CT[i] = LT
        gsub(/\n/, "\\n", s)
        CD[i] = sprintf("component \"%s\" as c%d\n", s, i)
    }
    # containers: runs of components in a package or node, titled
    at = 1; nk = rand() < 0.5 ? ri(1, 2) : 0
    for (k = 1; k <= nk && at + 1 <= nc; k++) {
        len = ri(1, 3); last = at + len - 1
        if (last > nc) last = nc
        typ = rand() < 0.5 ? "package" : "node"
        t = typ " " (++nt)
        printf "%s \"%s\" {\n", typ, t > pf
        CV[nc + ni + k] = vert(t, typ)
        for (i = at; i <= last; i++) { printf "  %s", CD[i] > pf; CV[i] = vert(CT[i], "component") }
        printf "}\n" > pf
        at = last + 1
    }
    for (i = at; i <= nc; i++) { printf "%s", CD[i] > pf; CV[i] = vert(CT[i], "component") }
    for (i = 1; i <= ni; i++) {
        t = word() " " (++nt)
        printf "interface \"%s\" as c%d\n", t, nc + i > pf
        CV[nc + i] = vert(t, "interface")
    }
    m = ri(nc + ni - 1, int((nc + ni) * 1.3))
    delete seen
    for (k = 0; k < m; k++) {
        a = ri(1, nc + ni); b = ri(1, nc + ni)
        if (a == b || ((a, b) in seen) || ((b, a) in seen)) continue
        if (a > nc && b > nc) continue
        seen[a, b] = 1
        r = rand()
        if (r < 0.55) { arr = "-->"; und = 0 }
        else if (r < 0.75) { arr = "..>"; und = 0; K["dashed arrow"] = 1 }
        else if (r < 0.9) { arr = "--"; und = 1; K["undirected"] = 1 }
        else { arr = "->"; und = 0 }
        lab = rand() < 0.35 ? EL[ri(1, ne)] : ""
        printf "c%d %s c%d%s\n", a, arr, b, lab != "" ? " : " lab : "" > pf
        edge(CV[a], CV[b], lab, und)
    }
    printf "@enduml\n" > pf
}
BEGIN {
    srand(seed)
    nw = split("parse lexer token graph node edge input output model train eval loss data " \
               "cache query index store merge split filter render layout score rank judge " \
               "align match kernel buffer stream queue worker server client router proxy " \
               "encoder decoder vision prompt", W, " ")
    ne = split("uses calls reads writes sends feeds", EL, " ")
    ncl = split("yes ok true valid more", CL, " ")
    split("no error false invalid done", CL2, " ")
    for (g = 1; g <= n; g++) {
        pf = dir "/p" g ".puml"; irf = dir "/p" g ".ir"; labf = dir "/p" g ".lab"
        kind = g % 2 ? "activity" : "component"
        printf "diagramir 1\ndiagram p%d\nunit pt\n", g > irf
        printf "" > labf
        delete K; delete V; nv = 0; nt = 0
        if (kind == "activity") activity(); else component()
        printf "end\n" > irf
        printf "%s", kind > (dir "/p" g ".meta")
        for (k in K) printf "\t%s", k > (dir "/p" g ".meta")
        printf "\n" > (dir "/p" g ".meta")
        close(pf); close(irf); close(labf); close(dir "/p" g ".meta")
    }
}'

# one JVM for all (PlantUML starts slowly)
if ! plantuml -tsvg -charset UTF-8 "$tmp"/p*.puml > "$tmp/plantuml.log" 2>&1; then
    echo "plantuml-oracle: plantuml failed: $(head -3 "$tmp/plantuml.log")" >&2
fi


pass=0 total=0 skipped=0
: > "$tmp/results"
i=1
while [ $i -le "$N" ]; do
    g=$tmp/p$i
    kind=$(cut -f1 "$g.meta")
    if [ ! -s "$g.svg" ]; then
        echo "SKIP p$i ($kind): plantuml drew nothing"
        skipped=$((skipped + 1)) i=$((i + 1))
        continue
    fi
    total=$((total + 1))
    graph_check "p$i" "$g.svg" "$g.ir" "$g.lab" "$g"
    printf '%s\t%s\n' "$ok" "$(cat "$g.meta")" >> "$tmp/results"
    if [ $ok = 1 ]; then pass=$((pass + 1))
    else
        echo "FAIL p$i ($kind): $why"
        if [ -n "${PUML_KEEP-}" ]; then
            mkdir -p "$PUML_KEEP" && cp "$g.puml" "$g.svg" "$g.ir" "$g.gen.ir" "$g.lab" "$PUML_KEEP/" 2>/dev/null
        fi
    fi
    if [ -n "${PUML_SAVE-}" ] && [ $i -le "${PUML_SAVE_N:-20}" ]; then
        mkdir -p "$PUML_SAVE" && cp "$g.puml" "$PUML_SAVE/p$i.puml" && cp "$g.ir" "$PUML_SAVE/p$i.truth.ir" &&
            cp "$g.lab" "$PUML_SAVE/p$i.lab" &&
            # the SVG without PlantUML's comments (one repeats the source)
            perl -0pe 's/<!--.*?-->//gs' "$g.svg" > "$PUML_SAVE/p$i.svg"
    fi
    i=$((i + 1))
done
awk -F '\t' '
    { k[$2] += $1; ck[$2]++; for (i = 3; i <= NF; i++) { e[$2 ": " $i] += $1; ce[$2 ": " $i]++ } }
    END {
        for (x in ck) printf "plantuml-oracle: kind    %-28s %4d/%-4d %.4f\n", x, k[x], ck[x], k[x] / ck[x] | "sort"
        close("sort")
        for (x in ce) printf "plantuml-oracle: element %-28s %4d/%-4d %.4f\n", x, e[x], ce[x], e[x] / ce[x] | "sort"
        close("sort")
    }' "$tmp/results"
rate=$(awk -v p="$pass" -v t="$total" 'BEGIN { printf "%.4f", t ? p / t : 0 }')
echo "plantuml-oracle: $pass of $total diagrams exact (node, edge and path F1 = 1, edge labels on their edges): rate $rate (floor $FLOOR; $skipped not drawn)"
awk -v r="$rate" -v f="$FLOOR" 'BEGIN { exit !(r + 0 >= f + 0) }'
