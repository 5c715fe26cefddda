#!/bin/sh
# bench-render.sh -- ir2svg's speed (part of make bench; BUILD defaults to build).
#
# The dev items' IR (tikz2ir -q over tests/data/diagramir-dev/tikz, one
# stream) drawn by one ir2svg process pinned to one core (taskset -c 0),
# one file per diagram in a scratch directory (in /dev/shm when there is
# one: the figure is ir2svg's, not the disk's):
#   SVG   ir2svg --dir DIR dev.ir         (SVG_PASSES copies of the stream)
#   PNG   ir2svg --png --dir DIR dev.ir   (100 dpi, the default)
# Printed: diagrams per second of wall time and of CPU time (user + system;
# on a shared, loaded machine wall time also counts the waits for the
# core), medians of BENCH_RUNS runs (default 7), with the spread of the wall
# figures. Targets: 5,000 SVGs/s and 200 PNGs/s.
LC_ALL=C
export LC_ALL
BUILD=${BUILD:-build}
RUNS=${BENCH_RUNS:-7}
SVG_PASSES=${SVG_PASSES:-10}
T=$BUILD/bin/tikz2ir
R=$BUILD/bin/ir2svg
[ -x "$T" ] && [ -x "$R" ] || { echo "bench-render: build first" >&2; exit 2; }
base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
tmp=$(mktemp -d "$base/bench-render.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
"$T" -q tests/data/diagramir-dev/tikz/*.tex > "$tmp/dev.ir" 2>/dev/null
n=$(grep -c '^diagram ' "$tmp/dev.ir")
i=0
: > "$tmp/devx.ir"
while [ $i -lt "$SVG_PASSES" ]; do cat "$tmp/dev.ir" >> "$tmp/devx.ir"; i=$((i + 1)); done
one=""
command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null && one="taskset -c 0"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# run LABEL NDIAG ARGS...: RUNS timings of ir2svg ARGS --dir DIR (wall and CPU)
run() {
    label=$1 nd=$2
    shift 2
    : > "$tmp/wall"
    : > "$tmp/cpu"
    r=0
    while [ $r -lt "$RUNS" ]; do
        rm -rf "$tmp/out"
        /usr/bin/time -f '%e %U %S' -o "$tmp/t" $one "$R" "$@" --dir "$tmp/out" || { echo "bench-render: ir2svg failed" >&2; exit 1; }
        awk '{ print $1 }' "$tmp/t" >> "$tmp/wall"
        awk '{ print $2 + $3 }' "$tmp/t" >> "$tmp/cpu"
        r=$((r + 1))
    done
    awk -v n="$nd" -v w="$(median < "$tmp/wall")" -v c="$(median < "$tmp/cpu")" -v l="$label" \
        -v lo="$(sort -n "$tmp/wall" | tail -1)" -v hi="$(sort -n "$tmp/wall" | head -1)" '
        function rate(t) { return t > 0 ? n / t : 0 }
        BEGIN { printf "%-22s %6d diagrams  %8.0f/s wall  %8.0f/s CPU  (wall runs %.0f-%.0f/s)\n",
                       l, n, rate(w), rate(c), rate(lo), rate(hi) }'
}
echo "bench-render: ir2svg over the dev items' IR ($n diagrams), median of $RUNS runs$([ -n "$one" ] && echo ", on one core")"
run "ir2svg (SVG)" $((n * SVG_PASSES)) "$tmp/devx.ir"
run "ir2svg --png (100 dpi)" "$n" --png "$tmp/dev.ir"
