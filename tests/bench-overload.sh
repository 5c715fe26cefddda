#!/bin/sh
# bench-overload.sh -- judge against an overloaded server with faults (make
# bench, via tests/bench.sh; issue #20 item 6): how many prompts the server
# answers more than once because judge stopped waiting for an answer that
# was still coming and asked again.
#
#   BUILD=build sh tests/bench-overload.sh
#   BENCH_OVERLOAD_N=1000 BENCH_OVERLOAD_J=128 BENCH_OVERLOAD_TIMEOUTS="5 60"
#   BENCH_OVERLOAD_SLOW_N=400 BENCH_OVERLOAD_SLOW_TIMEOUTS="2 10" BENCH_OVERLOAD_SLOW_GRACE=20
#   BENCH_OVERLOAD_ARGS="--grace 0"   (more judge options, e.g. the old behaviour)
#   BENCH_OVERLOAD_JUDGE=/path/to/judge   (another build's judge, for a before figure)
#
# The server is tests/judge/fakellm.py with --fault-rate 0.3 (429, 500, 503,
# stalls of 5 s, dropped connections, truncated bodies, invalid JSON, chosen
# by a hash of seed, request and attempt, so every run asks the same) and
# --answers, which notes every valid answer it produces, whether or not
# the client still waits for it. judge runs --no-cache --mode code -j J
# --timeout T over N distinct geom items, every other setting its default.
# A second table does the same against a server that is slow for everyone
# (fakellm.py --capacity 8 --delay 0.25: 32 answers a second, so about 4 s
# an answer at -j 128, no faults), with --timeout 2 and 10 s, and 2 s with a
# --grace of 20 s.
# Printed per timeout: HTTP requests the server saw, valid answers it
# produced, prompts answered more than once and the answers beyond the
# first, items that failed, and the wall time. Counts, not times, are the
# figure; they vary a little from run to run (which attempt a stall meets
# depends on timing), the wall time more.
LC_ALL=C
export LC_ALL
root=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$root" || exit 2
BUILD=${BUILD:-build}
case $BUILD in /*) bin=$BUILD/bin ;; *) bin=$root/$BUILD/bin ;; esac
judge=${BENCH_OVERLOAD_JUDGE:-$bin/judge}
N=${BENCH_OVERLOAD_N:-1000}
J=${BENCH_OVERLOAD_J:-128}
TIMEOUTS=${BENCH_OVERLOAD_TIMEOUTS:-5 60}
SLOW_N=${BENCH_OVERLOAD_SLOW_N:-400}
SLOW_TIMEOUTS=${BENCH_OVERLOAD_SLOW_TIMEOUTS:-2 10}
SLOW_GRACE=${BENCH_OVERLOAD_SLOW_GRACE-20}
ARGS=${BENCH_OVERLOAD_ARGS:-}
[ -x "$judge" ] || { echo "bench-overload: $judge not built" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "bench-overload: python3 is needed for the fake server" >&2; exit 2; }
DIAGRAMIR_RUBRICS=$root/llm/rubrics
export DIAGRAMIR_RUBRICS
unset OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MODEL

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-overload.XXXXXX") || exit 2
srv_pid=
. tests/judge/fakellm.sh
cleanup() {
    [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' HUP INT TERM

cp tests/judge/data/tri.tex "$tmp/tri.tex" || exit 2
printf 'item\tcode\tquestion\n' >"$tmp/m.tsv"
awk -v n="$N" -v f="$tmp/tri.tex" \
    'BEGIN { for (i = 1; i <= n; i++) printf "o%d\t%s\tquestion %d\n", i, f, i }' >>"$tmp/m.tsv"

start_server() {  # start_server [fakellm options]
    rm -f "$tmp/port" "$tmp/req.log" "$tmp/answers"
    python3 tests/judge/fakellm.py --port-file "$tmp/port" --log "$tmp/req.log" \
        --answers "$tmp/answers" "$@" &
    srv_pid=$!
    fakellm_wait bench-overload 2
}

# one_case N "JUDGE OPTIONS" [fakellm options]: one row of the table
one_case() {
    n=$1 opts=$2
    shift 2
    head -n $((n + 1)) "$tmp/m.tsv" >"$tmp/mn.tsv"
    start_server "$@"
    s=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$judge" --base-url "$url" --model fake-1 --no-cache -q --mode code -j "$J" $opts \
        $ARGS "$tmp/mn.tsv" >"$tmp/out" 2>"$tmp/err"
    st=$?
    e=$(date +%s.%N)
    if [ $st -gt 1 ]; then   # (an older judge without --grace, say)
        fakellm_stop
        printf '%-22s judge exited %s: %s\n' "$opts" "$st" "$(sed -n 1p "$tmp/err")"
        return
    fi
    # what the server had in hand when judge ended is still answered: let
    # the stalls (5 s) and the overloaded server's queue finish
    touch "$tmp/answers"
    prev=-1
    while sleep 6 && [ "$(wc -l <"$tmp/answers")" != "$prev" ]; do prev=$(wc -l <"$tmp/answers"); done
    fakellm_stop
    nreq=$(wc -l <"$tmp/req.log" | tr -d ' ')
    nans=$(wc -l <"$tmp/answers" | tr -d ' ')
    twice=$(cut -f1 "$tmp/answers" | sort | uniq -d | wc -l | tr -d ' ')
    extra=$(cut -f1 "$tmp/answers" | sort | uniq -c | awk '$1 > 1 { s += $1 - 1 } END { print s + 0 }')
    failed=$(grep -c '^# failed	' "$tmp/out")
    printf '%-22s %8s %8s %23s %14s %7s %7.1fs\n' "$opts" "$nreq" "$nans" "$twice" "$extra" "$failed" \
        "$(echo "$s $e" | awk '{ print $2 - $1 }')"
}

header() {
    printf '%-22s %8s %8s %23s %14s %7s %8s\n' options requests answers "answered more than once" \
        "extra answers" failed wall
}

echo "bench-overload: $N geom items, -j $J, 30% injected faults (stalls of 5 s among them), --no-cache${ARGS:+ $ARGS}"
header
for t in $TIMEOUTS; do one_case "$N" "--timeout $t" --fault-rate 0.3 --seed 20; done
echo "bench-overload: $SLOW_N geom items, -j $J, a server that answers 8 at a time, 0.25 s each (about 4 s an answer at -j 128), --no-cache${ARGS:+ $ARGS}"
header
for t in $SLOW_TIMEOUTS; do one_case "$SLOW_N" "--timeout $t" --capacity 8 --delay 0.25; done
# the same with a grace of several answer times: attempts are not cut
[ -n "$SLOW_GRACE" ] && one_case "$SLOW_N" "--timeout 2 --grace $SLOW_GRACE" --capacity 8 --delay 0.25
exit 0
