#!/bin/sh
# bench.sh — speed figures (make bench). Timings are medians of BENCH_RUNS
# runs, measured side by side in one run; machines are shared and noisy.
#
#   tikz2ir            diagrams per second over the dev corpus (PASSES passes
#                      of all items in one process), peak memory (max RSS)
#   tikz2ir | irlint   diagrams per second of the main job, same corpus
#   kappa              tests/bench-kappa.sh (beside scikit-learn / SciPy)
#   svg2graph, graphalign   tests/bench-graph.sh (2,000 texts and connectors)
#   irlint, svg2graph  tests/bench-scale.sh (the scaling table: 10k to 80k
#                      generated elements, time, memory, ratio per doubling)
#   judge              tests/bench-judge.sh (requests/s at -j 32 against a local fake server)
#   judge overload     tests/bench-overload.sh (prompts a faulty or overloaded server answers
#                      more than once, at -j 128)
#   ir2svg             tests/bench-render.sh (SVGs/s and PNGs/s over the dev IR, one core)
#   irreport           tests/bench-irreport.sh (the dev report, a 5,000-item one, its load in Chromium)
#
# BENCH_BASE=DIR compares with the tikz2ir and irlint in DIR instead (below).
BUILD=${BUILD:-build}
# 9 runs (about 15 s): on a shared two-core machine single runs of the same
# binary spread by 10-30%, and the median of 5 moved by up to 10% between
# consecutive invocations
RUNS=${BENCH_RUNS:-9}
PASSES=${BENCH_PASSES:-20}
DATA=tests/data/diagramir-dev/tikz
T=$BUILD/bin/tikz2ir
L=$BUILD/bin/irlint
[ -x "$T" ] && [ -x "$L" ] || { echo "bench: build first" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
files=$(ls $DATA/*.tex)
nitems=$(echo "$files" | wc -l)
args=""
i=0
while [ $i -lt "$PASSES" ]; do args="$args $files"; i=$((i + 1)); done
ndiag=$((nitems * PASSES))

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }

# "on one core": the pipeline pinned to one CPU (taskset), so that the two
# programs share it instead of running side by side on two.
one=""
command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null && one="taskset -c 0"

# BENCH_BASE=DIR (a folder with an older build's tikz2ir and irlint) times
# that build too, alternating with this one run by run, and prints the ratio
# of this build's speed to it: side by side in one run, the only comparison
# a shared machine allows.
BASE=${BENCH_BASE:-}
if [ -n "$BASE" ]; then
    [ -x "$BASE/tikz2ir" ] && [ -x "$BASE/irlint" ] || { echo "bench: BENCH_BASE=$BASE has no tikz2ir and irlint" >&2; exit 2; }
    builds="base new"
else
    builds="new"
fi
bin_of() { if [ "$1" = base ]; then echo "$BASE"; else echo "$BUILD/bin"; fi; }
for b in $builds; do : > "$tmp/t1.$b"; : > "$tmp/t2.$b"; : > "$tmp/t3.$b"; done

# one_run BUILD: the three timings of one build, appended to its files
one_run() {
    t=$(bin_of "$1")/tikz2ir l=$(bin_of "$1")/irlint
    # The previous run's IR (35 MB) is removed before the clock starts:
    # truncating it in the redirection cost ~20 ms, 4-5% of the run, and is
    # the shell freeing pages, not tikz2ir converting diagrams.
    rm -f "$tmp/ir"
    s=$(now); "$t" -q $args > "$tmp/ir" 2>/dev/null; e=$(now)
    echo "$s $e" | awk '{print $2-$1}' >> "$tmp/t1.$1"
    s=$(now); "$t" -q $args 2>/dev/null | "$l" --rubric geom --format tsv > "$tmp/v2"; e=$(now)
    echo "$s $e" | awk '{print $2-$1}' >> "$tmp/t2.$1"
    if [ -n "$one" ]; then
        # the file names as separate arguments (one argument may not exceed 128 KiB)
        s=$(now); $one sh -c 't=$1 l=$2 o=$3; shift 3; "$t" -q "$@" 2>/dev/null | "$l" --rubric geom --format tsv > "$o"' \
            sh "$t" "$l" "$tmp/v3" $args; e=$(now)
        echo "$s $e" | awk '{print $2-$1}' >> "$tmp/t3.$1"
        # a run that failed must not pass for a fast one: the same verdicts
        cmp -s "$tmp/v2" "$tmp/v3" && [ -s "$tmp/v3" ] || { echo "bench: the one-core run's verdicts differ from the other run's" >&2; exit 1; }
    fi
}

r=0
while [ $r -lt "$RUNS" ]; do
    # alternate which build goes first, so neither always runs on a warmer machine
    if [ $((r % 2)) = 1 ] && [ -n "$BASE" ]; then order="new base"; else order=$builds; fi
    for b in $order; do one_run "$b" || exit 1; done
    r=$((r + 1))
done
/usr/bin/time -f '%M' -o "$tmp/rss" "$T" -q $args > /dev/null 2>&1
/usr/bin/time -f '%M' -o "$tmp/rss1" "$T" -q $DATA/219.tex > /dev/null 2>&1
# the spread of the runs, slowest to fastest in diagrams/s: on a shared
# machine a single figure hides how far apart the runs were
spread() { sort -n "$1" | awk -v n="$ndiag" 'NR==1 {lo=$1} {hi=$1} END {printf "runs %.0f-%.0f/s", n/hi, n/lo}'; }
pgo="without a profile (PGO=0)"
grep -q -- -fprofile-use "$BUILD/cflags" 2>/dev/null && pgo="profile-guided (PGO=1, trained on $DATA)"
echo "bench: $nitems dev items x $PASSES passes = $ndiag diagrams, median of $RUNS runs; build $pgo"
line() {  # LABEL FILE NOTE
    awk -v n="$ndiag" -v t="$(median < "$2")" -v r="$(spread "$2")" -v l="$1" -v x="$3" \
        'BEGIN { printf "%-27s%8.3f s   %9.0f diagrams/s   %7.1f us/diagram  (%s%s)\n", l, t, n/t, 1e6*t/n, r, x }'
}
for b in $builds; do
    [ -n "$BASE" ] && echo "${b}: $(bin_of "$b")"
    line "tikz2ir" "$tmp/t1.$b" ""
    line "tikz2ir | irlint --rubric" "$tmp/t2.$b" ""
    [ -n "$one" ] && line "the same on one core" "$tmp/t3.$b" "; taskset -c 0"
done
if [ -n "$BASE" ]; then
    ratio() { awk -v a="$(median < "$1")" -v b="$(median < "$2")" 'BEGIN { printf "%.3f", a/b }'; }
    echo "speed of new / base (medians): tikz2ir $(ratio "$tmp/t1.base" "$tmp/t1.new")," \
        "main job $(ratio "$tmp/t2.base" "$tmp/t2.new")$([ -n "$one" ] && echo ", main job on one core $(ratio "$tmp/t3.base" "$tmp/t3.new")")"
    exit 0
fi
echo "tikz2ir peak memory (max RSS): $(cat "$tmp/rss") KiB over all passes; $(cat "$tmp/rss1") KiB for one item"
[ -f tests/bench-kappa.sh ] && BUILD=$BUILD sh tests/bench-kappa.sh
[ -f tests/bench-graph.sh ] && BUILD=$BUILD sh tests/bench-graph.sh
[ -f tests/bench-scale.sh ] && BUILD=$BUILD sh tests/bench-scale.sh
[ -f tests/bench-judge.sh ] && BUILD=$BUILD sh tests/bench-judge.sh
[ -f tests/bench-overload.sh ] && BUILD=$BUILD sh tests/bench-overload.sh
[ -f tests/bench-render.sh ] && BUILD=$BUILD sh tests/bench-render.sh
[ -f tests/bench-irreport.sh ] && BUILD=$BUILD sh tests/bench-irreport.sh
exit 0
