#!/bin/sh
# bench-scale.sh — the scaling table of make bench (issue #20): irlint and
# svg2graph on generated inputs (tests/scale/gen.awk) of 10,000, 20,000,
# 40,000 and 80,000 elements -- rects, texts, crossing lines, arcs (and
# labeled triangles for irlint, rects with texts for svg2graph) -- with the
# CPU time (user + system, median of BENCH_SCALE_RUNS runs: unlike wall
# time it does not grow when the shared machine is busy), the peak memory
# (max RSS, from GNU time when installed) and the ratio of times per
# doubling. Near-linear work shows as ratios near 2; the target is at most
# 2.5 (a ratio above it is marked "!"). Times of a few tens of ms are
# mostly start-up and reading: their ratios say little.
#
# Environment: BUILD (default build), BENCH_SCALE_RUNS (default 3),
# BENCH_SCALE_SIZES (default "10000 20000 40000 80000").
BUILD=${BUILD:-build}
RUNS=${BENCH_SCALE_RUNS:-3}
SIZES=${BENCH_SCALE_SIZES:-"10000 20000 40000 80000"}
L=$BUILD/bin/irlint
S=$BUILD/bin/svg2graph
[ -x "$L" ] && [ -x "$S" ] || { echo "bench-scale: build first" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
gnutime=
[ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1 && gnutime=/usr/bin/time

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
. tests/cputime.sh

# row PROGRAM-NAME PROGRAM KIND FMT: one line per size
row() {
    name=$1 prog=$2 kind=$3 fmt=$4
    prev= worst=0
    line=$(printf '%-10s %-9s' "$name" "$kind")
    for n in $SIZES; do
        awk -v kind="$kind" -v n="$n" -v fmt="$fmt" -f tests/scale/gen.awk > "$tmp/in"
        : > "$tmp/t"
        # CPU time is counted in ticks (10 ms): a measurement is reps runs
        # back to back (as many as make 160,000 elements), divided
        reps=$((160000 / n))
        [ $reps -lt 1 ] && reps=1
        r=0
        while [ $r -lt "$RUNS" ]; do
            cpu_ms t0
            k=0
            while [ $k -lt $reps ]; do
                "$prog" "$tmp/in" >/dev/null 2>&1
                k=$((k + 1))
            done
            cpu_ms t1
            echo "$t0 $t1 $reps" | awk '{printf "%.4f\n", ($2 - $1) / 1000 / $3}' >> "$tmp/t"
            r=$((r + 1))
        done
        t=$(median < "$tmp/t")
        mem=-
        if [ -n "$gnutime" ]; then
            $gnutime -f %M -o "$tmp/mem" "$prog" "$tmp/in" >/dev/null 2>&1
            mem=$(tail -n 1 "$tmp/mem" | awk '{printf "%.0f", $1 / 1024}')
        fi
        ratio=
        if [ -n "$prev" ]; then
            ratio=$(echo "$t $prev" | awk '{ if ($2 > 0) printf "%.2f", $1 / $2; else print "-" }')
            worst=$(echo "$ratio $worst" | awk '{ print ($1 > $2) ? $1 : $2 }')
        fi
        line="$line$(printf ' %8.3fs %5sMB %-6s' "$t" "$mem" "${ratio:+x$ratio}")"
        prev=$t
    done
    mark=
    [ "$(echo "$worst" | awk '{ print ($1 > 2.5) }')" = 1 ] && mark=" !"
    printf '%s  worst x%s%s\n' "$line" "$worst" "$mark"
}

printf 'scaling (median of %s runs; CPU time, peak RSS, ratio to the size before; target <= x2.5 per doubling)\n' "$RUNS"
printf '%-10s %-9s' program input
for n in $SIZES; do printf ' %-24s' "$n elements"; done
printf '\n'
for k in rects texts lines arcs figures; do row irlint "$L" $k ir; done
for k in rects texts lines arcs nodes; do row svg2graph "$S" $k svg; done
