#!/bin/sh
# tests/progress/run.sh -- the progress line (ir/progress.h) end to end.
#
#   BUILD=build sh tests/progress/run.sh
#
# By default stderr is not a terminal here, so no program may write a byte
# of it: stderr is the same with --no-progress, and carries no "\r" or
# escape. Forced on (DIAGRAMIR_PROGRESS=1, --progress) through a pipe, the
# line is written as a terminal would get it: "\r", the line, "ESC[K", the
# last state drawn, erased at the end; and what a terminal shows of it
# (screen.py) is exactly the plain stderr: warnings never land on the line.
# Options beat the environment; -q turns the line off unless --progress.
# The LLM runs (tikz2ir --fallback=llm, svg2graph --llm, judge) against the
# fake server (tests/judge/fakellm.py) count calls, steps and items.
# Exit status: 0 all passed, 1 a test failed, 2 missing build or python3.
. "$(dirname "$0")/../lib.sh"
for p in tikz2ir svg2graph judge; do
    [ -x "$bin/$p" ] || { echo "progress: $bin/$p not built" >&2; exit 2; }
done
command -v python3 >/dev/null 2>&1 || { echo "progress: python3 is needed" >&2; exit 2; }
unset DIAGRAMIR_PROGRESS OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MODEL DIAGRAMIR_RUBRICS
case $bin in "$root"/*) ;; *) DIAGRAMIR_RUBRICS=$root/llm/rubrics; export DIAGRAMIR_RUBRICS ;; esac
T=$bin/tikz2ir
S=$bin/svg2graph
J=$bin/judge
dev=tests/data/diagramir-dev/tikz
tmp=$(mktemp -d "${TMPDIR:-/tmp}/progress-test.XXXXXX") || exit 2
. tests/judge/fakellm.sh
srv_pid=
cleanup() { [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
[ -n "$PROGRESS_KEEP" ] && cleanup() { [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; echo "kept $tmp"; }
trap 'exit 1' HUP INT TERM
fail=0
n=0
ok() { n=$((n + 1)); }
bad() { echo "FAIL  $*"; fail=1; }
check() { name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }
esc=$(printf '\033')
cr=$(printf '\r')
# the lines the progress line drew in FILE (one per "\r", escapes dropped)
drawn() { tr '\r' '\n' < "$1" | sed "s/$esc\\[K\$//" | grep -a -v '^$'; }
# what a terminal shows of FILE
screen() { python3 tests/progress/screen.py "$1"; }
# FILE has no "\r" and no escape
clean() { ! grep -q "[$cr$esc]" "$1"; }
# FILE ends with the erase "\r ESC[K"
erased() { [ "$(tail -c 4 "$1" | od -An -c | tr -d ' ')" = '\r033[K' ]; }

set -- $dev/*.tex
nf=$#

# --- tikz2ir over the dev items: silent by default off a terminal
"$T" "$@" > "$tmp/plain.ir" 2> "$tmp/plain.err"
check "plain stderr has the warnings" grep -q 'warning:' "$tmp/plain.err"
check "default: no \\r or escape on stderr" clean "$tmp/plain.err"
"$T" --no-progress "$@" > "$tmp/np.ir" 2> "$tmp/np.err"
check "default is --no-progress off a terminal" cmp -s "$tmp/plain.err" "$tmp/np.err"
DIAGRAMIR_PROGRESS=auto "$T" "$@" > /dev/null 2> "$tmp/auto.err"
check "DIAGRAMIR_PROGRESS=auto is the default" cmp -s "$tmp/plain.err" "$tmp/auto.err"

# forced on through a pipe
DIAGRAMIR_PROGRESS=1 "$T" "$@" > "$tmp/forced.ir" 2> "$tmp/forced.err"
check "forced: the IR is the same" cmp -s "$tmp/plain.ir" "$tmp/forced.ir"
check "forced: first state drawn" [ "$(drawn "$tmp/forced.err" | grep -a '^tikz2ir: ' | head -1)" = "tikz2ir: 0/$nf files  0%" ]
drawn "$tmp/forced.err" | grep -a '^tikz2ir: [0-9,]*/' > "$tmp/lines"
check "forced: every drawn line has the form" \
    sh -c "! grep -a -v -E '^tikz2ir: [0-9,]+/$nf files  [0-9]+%(  [0-9.,<]+/s  ETA (>99h|[0-9:]+))?\$' '$tmp/lines'"
check "forced: the last state drawn" sh -c "grep -a -q -E '^tikz2ir: $nf/$nf files  100%(  [0-9.,<]+/s)?  ETA 0:00\$' '$tmp/lines'"
check "forced: erased at the end" erased "$tmp/forced.err"
screen "$tmp/forced.err" > "$tmp/forced.screen"
check "forced: the terminal shows only the plain messages" cmp -s "$tmp/plain.err" "$tmp/forced.screen"
"$T" --progress "$@" > /dev/null 2> "$tmp/opt.err"
check "--progress: drawn" grep -a -q "tikz2ir: $nf/$nf files  100%" "$tmp/opt.err"
screen "$tmp/opt.err" > "$tmp/opt.screen"
check "--progress: screen is the plain stderr" cmp -s "$tmp/plain.err" "$tmp/opt.screen"

# options beat the environment; -q
DIAGRAMIR_PROGRESS=1 "$T" --no-progress "$@" > /dev/null 2> "$tmp/e1.err"
check "--no-progress beats DIAGRAMIR_PROGRESS=1" cmp -s "$tmp/plain.err" "$tmp/e1.err"
DIAGRAMIR_PROGRESS=0 "$T" --progress "$@" > /dev/null 2> "$tmp/e0.err"
check "--progress beats DIAGRAMIR_PROGRESS=0" grep -a -q "tikz2ir: $nf/$nf files" "$tmp/e0.err"
DIAGRAMIR_PROGRESS=0 "$T" "$@" > /dev/null 2> "$tmp/e00.err"
check "DIAGRAMIR_PROGRESS=0: off" cmp -s "$tmp/plain.err" "$tmp/e00.err"
DIAGRAMIR_PROGRESS=1 "$T" -q "$@" > /dev/null 2> "$tmp/q.err"
check "-q: no line" [ ! -s "$tmp/q.err" ]
"$T" -q --progress "$@" > /dev/null 2> "$tmp/qp.err"
check "-q --progress: the line only, erased" sh -c "grep -a -q 'tikz2ir: $nf/$nf files' '$tmp/qp.err' && [ -z \"\$(python3 tests/progress/screen.py '$tmp/qp.err')\" ]"
# one file: no line, even forced
DIAGRAMIR_PROGRESS=1 "$T" $dev/365.tex > /dev/null 2> "$tmp/one.err"
"$T" $dev/365.tex > /dev/null 2> "$tmp/one-plain.err"
check "one file: no line" cmp -s "$tmp/one.err" "$tmp/one-plain.err"
# an error for a missing file lands on a line of its own
DIAGRAMIR_PROGRESS=1 "$T" $dev/1.tex "$tmp/missing.tex" $dev/2.tex > /dev/null 2> "$tmp/miss.err"
"$T" $dev/1.tex "$tmp/missing.tex" $dev/2.tex > /dev/null 2> "$tmp/miss-plain.err"
screen "$tmp/miss.err" > "$tmp/miss.screen"
check "an error: its own line on the screen" cmp -s "$tmp/miss-plain.err" "$tmp/miss.screen"
check "an error: counted" grep -a -q 'tikz2ir: 3/3 files  100%' "$tmp/miss.err"

# --- svg2graph over several files (some of them bad: errors between)
set -- tests/svg2graph/*.svg
ns=$#
"$S" "$@" > "$tmp/s.ir" 2> "$tmp/s.err"
check "svg2graph: default silent" clean "$tmp/s.err"
DIAGRAMIR_PROGRESS=1 "$S" "$@" > "$tmp/sf.ir" 2> "$tmp/sf.err"
check "svg2graph: same IR" cmp -s "$tmp/s.ir" "$tmp/sf.ir"
check "svg2graph: files counted" grep -a -q "svg2graph: $ns/$ns files  100%" "$tmp/sf.err"
screen "$tmp/sf.err" > "$tmp/sf.screen"
check "svg2graph: screen is the plain stderr" cmp -s "$tmp/s.err" "$tmp/sf.screen"

# --- the LLM runs, against the fake server
fakellm_start progress
llm="--base-url=$url --model=fake --cache-dir=$tmp/cache"

# tikz2ir --fallback=llm on one file: a line of calls (total found on the way);
# a run shorter than 1 ms shows no rate (progress_format), so the rate may be
# absent from the last line
good=tests/tikz2ir-llm/good.tex
"$T" --fallback=llm $llm --no-cache $good > "$tmp/fb-plain.ir" 2> "$tmp/fb-plain.err"
check "fallback: default silent" clean "$tmp/fb-plain.err"
"$T" --fallback=llm $llm --no-cache --progress $good > "$tmp/fb.ir" 2> "$tmp/fb.err"
check "fallback: same IR" cmp -s "$tmp/fb-plain.ir" "$tmp/fb.ir"
check "fallback: calls, total unknown at first" [ "$(drawn "$tmp/fb.err" | head -1)" = "tikz2ir: 0 llm calls" ]
check "fallback: calls done/total" sh -c "drawn() { tr '\\r' '\\n' < \"\$1\" | sed 's/$esc\\[K\$//'; }; drawn '$tmp/fb.err' | grep -a -q -E '^tikz2ir: 1/1 llm calls  100%(  [0-9.,<]+/s)?  ETA 0:00\$'"
check "fallback: erased before the summary" sh -c "screen() { python3 tests/progress/screen.py \"\$1\"; }; ! screen '$tmp/fb.err' | grep -q 'llm calls'"
# several files: files, with the calls in the note
"$T" --fallback=llm $llm --no-cache --progress $good tests/tikz2ir-llm/bad.tex $dev/1.tex > /dev/null 2> "$tmp/fb3.err"
check "fallback, 3 files: the calls in the note" grep -a -q 'tikz2ir: 3/3 files  100%  [0-9.,<]*/s  ETA 0:00  llm calls 2/2' "$tmp/fb3.err"
check "fallback, 3 files: the warning on a line of its own" sh -c "python3 tests/progress/screen.py '$tmp/fb3.err' | grep -q '^tests/tikz2ir-llm/bad.tex:6: warning: llm fallback: record 1 is not valid IR'"

# svg2graph --llm: the steps of every input (a failing one warns between)
sed 's|@FAKE@|FAKE[answer=prose]|' tests/svg2graph-llm/pipeline.svg > "$tmp/p1.svg"
cp "$tmp/p1.svg" "$tmp/p2.svg"
"$S" --llm $llm --no-cache --backoff=0.01 "$tmp/p1.svg" "$tmp/p2.svg" > "$tmp/sl-plain.ir" 2> "$tmp/sl-plain.err"
check "svg2graph --llm: default silent" clean "$tmp/sl-plain.err"
"$S" --llm $llm --no-cache --backoff=0.01 --progress "$tmp/p1.svg" "$tmp/p2.svg" > "$tmp/sl.ir" 2> "$tmp/sl.err"
check "svg2graph --llm: same IR" cmp -s "$tmp/sl-plain.ir" "$tmp/sl.ir"
check "svg2graph --llm: steps counted" grep -a -q 'svg2graph: 4/4 llm steps  100%' "$tmp/sl.err"
# (the client's summary, with its latency, left out)
screen "$tmp/sl.err" | grep -v '^svg2graph: ' > "$tmp/sl.screen"
grep -v '^svg2graph: ' "$tmp/sl-plain.err" > "$tmp/sl-plain.msgs"
check "svg2graph --llm: the last state drawn once" [ "$(grep -a -o 'svg2graph: 4/4 llm steps' "$tmp/sl.err" | wc -l)" = 1 ]
check "svg2graph --llm: the warnings on lines of their own" cmp -s "$tmp/sl-plain.msgs" "$tmp/sl.screen"

# judge: items answered of all, unified with the line of ir/progress.h
mkdir "$tmp/jd"
cp tests/judge/data/tri.tex tests/judge/data/white.png "$tmp/jd/"
{
    printf 'item\tcode\timage\tquestion\n'
    for k in 1 2 3 4 5; do printf 't%s\ttri.tex\twhite.png\tright triangle %s\n' $k $k; done
    printf 't6\ttri.tex\twhite.png\tFAKE[answer=prose]\n'
} > "$tmp/jd/m.tsv"
"$J" --base-url "$url" --model fake-1 --no-cache --backoff 0.01 "$tmp/jd/m.tsv" > "$tmp/j-plain.tsv" 2> "$tmp/j-plain.err"
check "judge: default silent" clean "$tmp/j-plain.err"
"$J" --base-url "$url" --model fake-1 --no-cache --backoff 0.01 --progress "$tmp/jd/m.tsv" > "$tmp/j.tsv" 2> "$tmp/j.err"
check "judge: same verdicts" cmp -s "$tmp/j-plain.tsv" "$tmp/j.tsv"
check "judge: first state drawn" [ "$(drawn "$tmp/j.err" | head -1)" = "judge: 0/6 items  0%" ]
check "judge: items counted, the failed in the note" grep -a -q 'judge: 6/6 items  100%  [0-9.,<]*/s  ETA 0:00  1 failed' "$tmp/j.err"
check "judge: erased at the end" sh -c "! python3 tests/progress/screen.py '$tmp/j.err' | grep -q '/6 items'"
check "judge: the failure on a line of its own" sh -c "python3 tests/progress/screen.py '$tmp/j.err' | grep -q '^$tmp/jd/m.tsv:7:1: error: item t6: '"
"$J" --base-url "$url" --model fake-1 --no-cache --progress -q "$tmp/jd/m.tsv" > /dev/null 2> "$tmp/jq.err"
check "judge -q --progress: the line" grep -a -q 'judge: 6/6 items' "$tmp/jq.err"
DIAGRAMIR_PROGRESS=1 "$J" --base-url "$url" --model fake-1 --no-cache -q "$tmp/jd/m.tsv" > /dev/null 2> "$tmp/jq2.err"
check "judge -q: no line" sh -c "! grep -q items '$tmp/jq2.err'"

[ $fail = 0 ] || exit 1
echo "progress: all $n passed"
