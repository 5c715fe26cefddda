#!/bin/sh
# bench-irreport.sh — irreport's speed and the size of its reports (called by
# tests/bench.sh).
#
#   irreport, 232 dev items x 4 raters: the report of the DiagramIR dev split
#     (tikz2ir | irlint --format ir for the pictures and findings; human,
#     irlint, bt-gpt-5 and judge-gpt-5 as raters; 1000 bootstrap replicates,
#     kappa's default), whole program, median of IRREPORT_BENCH_RUNS runs
#     (default 9); the target is under 2 s
#   irreport, 5,000 items: copies of the dev items (tests/irreport/synth.py),
#     median of 3 runs, and the file's size
#   Chromium: the 5,000-item report opened headless (tests/irreport/browser.js):
#     DOMContentLoaded, load and first contentful paint, median of 3 (skipped
#     without /usr/bin/chromium or node)
BUILD=${BUILD:-build}
B=$BUILD/bin
RUNS=${IRREPORT_BENCH_RUNS:-9}
D=tests/data/diagramir-dev
[ -x "$B/irreport" ] || { echo "bench-irreport: no $B/irreport (run make first)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-irreport.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }
"$B/tikz2ir" -q $D/tikz/*.tex > "$tmp/dev.ir" 2>/dev/null
"$B/irlint" --rubric geom --format ir "$tmp/dev.ir" > "$tmp/devf.ir"
"$B/irlint" --rubric geom --format tsv "$tmp/dev.ir" > "$tmp/irlint.tsv"
R=human,irlint,bt-gpt-5,judge-gpt-5
# time_runs N OUT ARGS...: N runs of irreport ARGS -o OUT, seconds one per line
time_runs() {
    n=$1 out=$2; shift 2
    i=0
    while [ $i -lt "$n" ]; do
        s=$(now); "$B/irreport" -q -o "$out" "$@" || exit 1; e=$(now)
        echo "$s $e" | awk '{print $2-$1}'
        i=$((i + 1))
    done
}
time_runs "$RUNS" "$tmp/dev.html" -r $R "$tmp/devf.ir" $D/ratings.tsv "$tmp/irlint.tsv" $D/baselines.tsv > "$tmp/t1"
printf 'irreport, 232 dev items x 4 raters: %.3f s (median of %d; runs %s-%s s), %d bytes\n' \
    "$(median < "$tmp/t1")" "$RUNS" "$(sort -n "$tmp/t1" | head -1)" "$(sort -n "$tmp/t1" | tail -1)" \
    "$(wc -c < "$tmp/dev.html")"
python3 tests/irreport/synth.py 5000 "$tmp/s" "$tmp/devf.ir" $D/ratings.tsv "$tmp/irlint.tsv" $D/baselines.tsv
time_runs 3 "$tmp/s5k.html" -r $R "$tmp/s/devf.ir" "$tmp/s/ratings.tsv" "$tmp/s/irlint.tsv" "$tmp/s/baselines.tsv" > "$tmp/t2"
"$B/irreport" -q --no-pictures -o "$tmp/s5knp.html" --raters $R "$tmp/s/devf.ir" "$tmp/s/ratings.tsv" "$tmp/s/irlint.tsv" "$tmp/s/baselines.tsv"
printf 'irreport, 5000 items x 4 raters: %.3f s (median of 3), %d bytes (%d with --no-pictures)\n' \
    "$(median < "$tmp/t2")" "$(wc -c < "$tmp/s5k.html")" "$(wc -c < "$tmp/s5knp.html")"
if [ -x "${CHROMIUM:-/usr/bin/chromium}" ] && command -v node >/dev/null 2>&1; then
    for i in 1 2 3; do
        node tests/irreport/browser.js "$tmp/s5k.html" > "$tmp/page.$i.json" || exit 1
    done
    python3 - "$tmp"/page.*.json <<'PY'
import json, statistics, sys
pages = [json.load(open(p)) for p in sys.argv[1:]]
t = {k: statistics.median(p['timing'][k] for p in pages) for k in ('domContentLoaded', 'load', 'firstContentfulPaint')}
bad = sum(len(p['console']) for p in pages)
print('Chromium, the 5000-item report: first contentful paint %.0f ms, DOMContentLoaded %.0f ms, '
      'load %.0f ms (median of %d; %d cards, %d console messages)'
      % (t['firstContentfulPaint'], t['domContentLoaded'], t['load'], len(pages), pages[0]['cards'], bad))
PY
else
    echo "Chromium: skipped (no /usr/bin/chromium or node)"
fi
