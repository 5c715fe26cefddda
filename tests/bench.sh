#!/bin/sh
# bench.sh — speed figures (make bench). Timings are medians of BENCH_RUNS
# runs, measured side by side in one run; machines are shared and noisy.
#
#   tikz2ir            diagrams per second over the dev corpus (PASSES passes
#                      of all items in one process), peak memory (max RSS)
#   tikz2ir | irlint   diagrams per second of the main job, same corpus
#   kappa              tests/bench-kappa.sh (beside scikit-learn / SciPy)
#   svg2graph, graphalign   tests/bench-graph.sh (2,000 texts and connectors)
#   judge              tests/bench-judge.sh (requests/s at -j 32 against a local fake server)
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
: > "$tmp/t1"; : > "$tmp/t2"; : > "$tmp/t3"; : > "$tmp/rss"
r=0
while [ $r -lt "$RUNS" ]; do
    # The previous run's IR (35 MB) is removed before the clock starts:
    # truncating it in the redirection cost ~20 ms, 4-5% of the run, and is
    # the shell freeing pages, not tikz2ir converting diagrams.
    rm -f "$tmp/ir"
    s=$(now); "$T" -q $args > "$tmp/ir" 2>/dev/null; e=$(now)
    echo "$s $e" | awk '{print $2-$1}' >> "$tmp/t1"
    s=$(now); "$T" -q $args 2>/dev/null | "$L" --rubric geom --format tsv > "$tmp/v2"; e=$(now)
    echo "$s $e" | awk '{print $2-$1}' >> "$tmp/t2"
    if [ -n "$one" ]; then
        # the file names as separate arguments (one argument may not exceed 128 KiB)
        s=$(now); $one sh -c 't=$1 l=$2 o=$3; shift 3; "$t" -q "$@" 2>/dev/null | "$l" --rubric geom --format tsv > "$o"' \
            sh "$T" "$L" "$tmp/v3" $args; e=$(now)
        echo "$s $e" | awk '{print $2-$1}' >> "$tmp/t3"
        # a run that failed must not pass for a fast one: the same verdicts
        cmp -s "$tmp/v2" "$tmp/v3" && [ -s "$tmp/v3" ] || { echo "bench: the one-core run's verdicts differ from the other run's" >&2; exit 1; }
    fi
    r=$((r + 1))
done
/usr/bin/time -f '%M' -o "$tmp/rss" "$T" -q $args > /dev/null 2>&1
/usr/bin/time -f '%M' -o "$tmp/rss1" "$T" -q $DATA/219.tex > /dev/null 2>&1
t1=$(median < "$tmp/t1"); t2=$(median < "$tmp/t2")
# the spread of the runs, slowest to fastest in diagrams/s: on a shared
# machine a single figure hides how far apart the runs were
spread() { sort -n "$1" | awk -v n="$ndiag" 'NR==1 {lo=$1} {hi=$1} END {printf "runs %.0f-%.0f/s", n/hi, n/lo}'; }
pgo="without a profile (PGO=0)"
grep -q -- -fprofile-use "$BUILD/cflags" 2>/dev/null && pgo="profile-guided (PGO=1, trained on $DATA)"
echo "bench: $nitems dev items x $PASSES passes = $ndiag diagrams, median of $RUNS runs; build $pgo"
awk -v n="$ndiag" -v t="$t1" -v r="$(spread "$tmp/t1")" 'BEGIN { printf "tikz2ir                    %8.3f s   %9.0f diagrams/s   %7.1f us/diagram  (%s)\n", t, n/t, 1e6*t/n, r }'
awk -v n="$ndiag" -v t="$t2" -v r="$(spread "$tmp/t2")" 'BEGIN { printf "tikz2ir | irlint --rubric  %8.3f s   %9.0f diagrams/s   %7.1f us/diagram  (%s)\n", t, n/t, 1e6*t/n, r }'
if [ -n "$one" ]; then
    t3=$(median < "$tmp/t3")
    awk -v n="$ndiag" -v t="$t3" -v r="$(spread "$tmp/t3")" 'BEGIN { printf "the same on one core        %8.3f s   %9.0f diagrams/s   %7.1f us/diagram  (%s; taskset -c 0)\n", t, n/t, 1e6*t/n, r }'
fi
echo "tikz2ir peak memory (max RSS): $(cat "$tmp/rss") KiB over all passes; $(cat "$tmp/rss1") KiB for one item"
[ -f tests/bench-kappa.sh ] && BUILD=$BUILD sh tests/bench-kappa.sh
[ -f tests/bench-graph.sh ] && BUILD=$BUILD sh tests/bench-graph.sh
[ -f tests/bench-judge.sh ] && BUILD=$BUILD sh tests/bench-judge.sh
exit 0
