#!/bin/sh
# bench-judge.sh -- judge's overhead (make bench, via tests/bench.sh): with a
# fake server that answers at once, how many requests per second judge
# sustains at -j 32, and how much CPU judge spends per call.
#
#   BUILD=build sh tests/bench-judge.sh
#   BENCH_JUDGE_N=2000 BENCH_JUDGE_J=32 BENCH_JUDGE_RUNS=3   (the defaults)
#
# The server is tests/judge/fakellm_fast.c (compiled here with ${CC:-cc}):
# one thread, epoll, keep-alive, a canned answer, about 10 us of CPU per
# request, so the figure measures judge (and libcurl and the loopback), not
# the server; its CPU share is printed to show that. The Python fake server
# (tests/judge/fakellm.py) tops out near 650 requests/s on two cores, which
# is why it is not used here; it is used (the figure is then the server's)
# only when the C compiler is missing.
#
# Every run is `judge --no-cache --mode code -j J` over N distinct geom items
# (so every call is an HTTP request; the cache is not measured). Printed,
# medians of the runs: wall time, requests/s (N / wall), judge's CPU time
# (user + system, /usr/bin/time or the shell's `times`) per call, and the
# mean latency from judge's summary line. Each run is checked: N requests
# seen by the server, 6 N verdict rows, exit 0; a failed check exits 1.
LC_ALL=C
export LC_ALL
root=$(cd "$(dirname "$0")/.." && pwd) || exit 2
cd "$root" || exit 2
BUILD=${BUILD:-build}
case $BUILD in /*) bin=$BUILD/bin ;; *) bin=$root/$BUILD/bin ;; esac
judge=$bin/judge
N=${BENCH_JUDGE_N:-2000}
J=${BENCH_JUDGE_J:-32}
RUNS=${BENCH_JUDGE_RUNS:-3}
[ -x "$judge" ] || { echo "bench-judge: $judge not built" >&2; exit 2; }
DIAGRAMIR_RUBRICS=$root/llm/rubrics
export DIAGRAMIR_RUBRICS
unset OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MODEL

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-judge.XXXXXX") || exit 2
srv_pid=
. tests/judge/fakellm.sh
cleanup() {
    [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' HUP INT TERM

# N distinct items (distinct questions, so distinct requests)
# the code file beside the manifest (a manifest names files under its own
# directory)
cp tests/judge/data/tri.tex "$tmp/tri.tex" || exit 2
printf 'item\tcode\tquestion\n' >"$tmp/m.tsv"
awk -v n="$N" -v f="$tmp/tri.tex" \
    'BEGIN { for (i = 1; i <= n; i++) printf "b%d\t%s\tquestion %d\n", i, f, i }' >>"$tmp/m.tsv"

# the canned answer: a valid geom verdict for every criterion
ans='{\"angle-labels\": {\"answer\": \"yes\", \"reason\": \"fake reason\"}, \"length-proportions\": {\"answer\": \"yes\", \"reason\": \"fake reason\"}, \"in-frame\": {\"answer\": \"yes\", \"reason\": \"fake reason\"}, \"readable-size\": {\"answer\": \"yes\", \"reason\": \"fake reason\"}, \"label-association\": {\"answer\": \"yes\", \"reason\": \"fake reason\"}, \"no-overlap\": {\"answer\": \"yes\", \"reason\": \"fake reason\"}}'
printf '{"id": "chatcmpl-fake", "object": "chat.completion", "model": "fake", "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "%s"}}], "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120, "prompt_tokens_details": {"cached_tokens": 10}}}' \
    "$ans" >"$tmp/body.json"

server=fast
if ! ${CC:-cc} -O2 -o "$tmp/fakellm_fast" tests/judge/fakellm_fast.c 2>"$tmp/cc.err"; then
    server=python
    echo "bench-judge: cannot compile tests/judge/fakellm_fast.c; using fakellm.py (the figure is then the server's)" >&2
    command -v python3 >/dev/null 2>&1 || { echo "bench-judge: no C compiler and no python3" >&2; exit 2; }
fi

start_server() {  # start_server fast|python
    rm -f "$tmp/port" "$tmp/stats" "$tmp/req.log"
    if [ "$1" = fast ]; then
        "$tmp/fakellm_fast" --port-file "$tmp/port" --body "$tmp/body.json" --stats "$tmp/stats" &
    else
        python3 tests/judge/fakellm.py --port-file "$tmp/port" --log "$tmp/req.log" &
    fi
    srv_pid=$!
    fakellm_wait bench-judge 2
}
now() { date +%s.%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

have_time=0
/usr/bin/time -f '%U %S' -o "$tmp/t" true 2>/dev/null && have_time=1

# one_run KIND: appends wall, CPU and latency to $tmp/wall, $tmp/cpu, $tmp/lat
# and the server's CPU seconds to $tmp/scpu; returns 1 when a check failed
one_run() {
    start_server "$1"
    s=$(now)
    if [ $have_time = 1 ]; then
        /usr/bin/time -f '%U %S' -o "$tmp/t" "$judge" --base-url "$url" --model fake-1 \
            --no-cache --mode code -j "$J" "$tmp/m.tsv" >"$tmp/out" 2>"$tmp/err"
        st=$?
    else
        # POSIX fallback: the children's times of a subshell that runs judge only
        ( "$judge" --base-url "$url" --model fake-1 --no-cache --mode code -j "$J" \
              "$tmp/m.tsv" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/st"; times >"$tmp/times" )
        st=$(cat "$tmp/st")
        sed -n 2p "$tmp/times" | awk '{ gsub(/m/, " "); gsub(/s/, ""); print $1 * 60 + $2, $3 * 60 + $4 }' >"$tmp/t"
    fi
    e=$(now)
    fakellm_stop
    rows=$(grep -c '	fake-1	yes	' "$tmp/out")
    if [ "$1" = fast ]; then
        nreq=$(awk '$1 == "requests" { print $2 }' "$tmp/stats")
        awk '$1 == "cpu" { print $2 }' "$tmp/stats" >>"$tmp/scpu"
    else
        nreq=$(wc -l <"$tmp/req.log" | tr -d ' ')
    fi
    if [ "$st" != 0 ] || [ "$rows" != $((6 * N)) ] || [ "$nreq" != "$N" ]; then
        echo "bench-judge: FAIL: exit $st, $rows rows (want $((6 * N))), $nreq requests (want $N)" >&2
        sed -n 1,5p "$tmp/err" >&2
        return 1
    fi
    echo "$s $e" | awk '{ print $2 - $1 }' >>"$tmp/wall"
    awk '{ print $1 + $2 }' "$tmp/t" >>"$tmp/cpu"
    sed -n 's/.*mean latency \([0-9.]*\)s.*/\1/p' "$tmp/err" >>"$tmp/lat"
    return 0
}

fail=0
: >"$tmp/wall"; : >"$tmp/cpu"; : >"$tmp/lat"; : >"$tmp/scpu"
r=0
while [ $r -lt "$RUNS" ]; do
    one_run $server || fail=1
    r=$((r + 1))
done
[ -s "$tmp/wall" ] || exit 1
wall=$(median <"$tmp/wall"); cpu=$(median <"$tmp/cpu"); lat=$(median <"$tmp/lat")
echo "bench-judge: $N geom items, --no-cache, -j $J, server $server, median of $RUNS runs"
awk -v n="$N" -v w="$wall" -v c="$cpu" -v l="$lat" -v j="$J" 'BEGIN {
    printf "judge -j %-3d              %8.3f s   %9.0f requests/s   (floor: 500)\n", j, w, n / w
    printf "judge CPU per call          %8.3f ms  (user + system, %.2f s over %d calls; floor: < 1 ms)\n", 1000 * c / n, c, n
    printf "judge mean latency          %8.0f ms  (its summary line, 1 ms resolution; request start to answer)\n", 1000 * l
}'
if [ $server = fast ]; then
    scpu=$(median <"$tmp/scpu")
    awk -v n="$N" -v s="$scpu" -v w="$wall" 'BEGIN {
        printf "fake server CPU             %8.3f ms per request (%.0f%% of the wall time: judge is what is measured)\n", 1000 * s / n, 100 * s / w
    }'
fi
exit $fail
