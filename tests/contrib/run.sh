#!/bin/sh
# tests/contrib/run.sh -- the scale-out recipes, run locally, each merged
# table compared byte for byte with one process over the same items:
#   - contrib/dataset/Makefile: TikZ -> irlint (and kappa), judge against the
#     fake server of tests/judge (a shard with a failed item is asked again
#     on the next make, and only it; a make killed mid-run and started again
#     gives the same table), svg2graph -> graphalign; a rerun after an item's
#     output was lost redoes that item only, a half-written .tmp left by a
#     killed job is not taken as done;
#   - contrib/parallel/parallel.sh with --sshlogin ':' (GNU parallel; skipped
#     with a note when it is not installed), fresh and resumed;
#   - contrib/parallel/slurm.sbatch's per-task body with SLURM_ARRAY_TASK_ID
#     set for each task in turn, then its merge.
#
#   BUILD=build sh tests/contrib/run.sh
. "$(dirname "$0")/../lib.sh"
DIAGRAMIR_RUBRICS=$root/llm/rubrics
export DIAGRAMIR_RUBRICS
unset OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MODEL MAKEFLAGS MFLAGS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/contrib-test.XXXXXX") || exit 1
. tests/judge/fakellm.sh
srv_pid= mk_pid=
cleanup() {
    [ -n "$mk_pid" ] && kill -9 "-$mk_pid" 2>/dev/null
    [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); printf 'FAIL: %s\n' "$*"; }
check() {  # name, then a command that must succeed
    name=$1; shift
    if "$@"; then ok; else bad "$name"; fi
}
same() {  # name expected actual: byte for byte
    if cmp -s "$2" "$3"; then ok; else bad "$1"; diff "$2" "$3" | head -10; fi
}
M() { make -f contrib/dataset/Makefile BIN="$bin" "$@"; }

# ------------------------------------------------------- TikZ -> irlint
items="1 3 6 7 219 10 100 12"
mkdir -p "$tmp/src"
for i in $items; do cp "tests/data/diagramir-dev/tikz/$i.tex" "$tmp/src/"; done
# one process over the items in item order (byte order of the names)
sorted=$(for i in $items; do echo "$i"; done | sort | sed "s|.*|$tmp/src/&.tex|")
# shellcheck disable=SC2086 # one file name per word
"$bin/tikz2ir" -q $sorted | "$bin/irlint" --exit-zero --format tsv >"$tmp/single.tsv"
check "single run has every item's 8 verdicts" [ "$(tail -n +2 "$tmp/single.tsv" | wc -l)" = 64 ]
"$bin/tikz2ir" -q "$tmp/src/3.tex" | "$bin/irlint" >/dev/null; st=$?
check "irlint exits 1 on a 'no' verdict (item 3)" [ $st = 1 ]
"$bin/tikz2ir" -q "$tmp/src/3.tex" | "$bin/irlint" --exit-zero >/dev/null; st=$?
check "irlint --exit-zero exits 0 on it" [ $st = 0 ]

M -s -j2 SRC="$tmp/src" OUT="$tmp/mk" HUMAN=tests/data/diagramir-dev/ratings.tsv >"$tmp/log" 2>&1
check "make (tikz, kappa) exits 0: $(cat "$tmp/log")" [ $? = 0 ]
for i in $items; do
    [ -s "$tmp/mk/ir/$i.ir" ] && [ -s "$tmp/mk/verdicts/$i.tsv" ] || bad "no IR or verdicts for $i"
done
same "make's irlint.tsv = one tikz2ir | irlint" "$tmp/single.tsv" "$tmp/mk/irlint.tsv"
k=$(grep -c "	cohen	human	irlint	" "$tmp/mk/kappa.tsv")
check "kappa.tsv has 8 cohen rows (has $k)" [ "$k" = 8 ]
out=$(M SRC="$tmp/src" OUT="$tmp/mk" HUMAN=tests/data/diagramir-dev/ratings.tsv 2>&1)
check "a second make does nothing: $out" sh -c 'echo "$1" | grep -q "Nothing to be done\|is up to date"' - "$out"
# an item's verdicts lost, another's half written by a killed job (the
# .tmp beside a missing target): make redoes just those two irlint runs
rm "$tmp/mk/verdicts/6.tsv" "$tmp/mk/verdicts/12.tsv"
head -c 100 "$tmp/single.tsv" >"$tmp/mk/verdicts/12.tsv.tmp"
M SRC="$tmp/src" OUT="$tmp/mk" >"$tmp/log" 2>&1
check "resumed make exits 0" [ $? = 0 ]
check "  ... ran irlint twice: $(cat "$tmp/log")" [ "$(grep -c '/irlint ' "$tmp/log")" = 2 ]
check "  ... and tikz2ir never" [ "$(grep -c '/tikz2ir ' "$tmp/log")" = 0 ]
same "  ... and gives the same table" "$tmp/single.tsv" "$tmp/mk/irlint.tsv"
# a file tikz2ir rejects: make fails, leaves no IR or verdicts for it, and
# the merged table is not rewritten
printf '\\begin{tikzpicture}\n\\draw (0,0) -- (1,1);\n' >"$tmp/src/zz-bad.tex"   # no \end
M SRC="$tmp/src" OUT="$tmp/mk" >"$tmp/log" 2>&1; st=$?
check "make fails on a bad item (status $st)" [ $st != 0 ]
check "  ... with no IR for it" [ ! -e "$tmp/mk/ir/zz-bad.ir" ]
same "  ... and the old table" "$tmp/single.tsv" "$tmp/mk/irlint.tsv"
rm "$tmp/src/zz-bad.tex"

# ------------------------------------------------------- GNU parallel
if command -v parallel >/dev/null 2>&1; then
    # GNU parallel keeps state under \$HOME/.parallel and warns when HOME is
    # unset (as in CI): give it one of its own
    mkdir -p "$tmp/home"
    HOME=$tmp/home
    export HOME
    sh contrib/parallel/parallel.sh -j 2 -b "$bin" "$tmp/src" "$tmp/par" >"$tmp/log" 2>&1
    check "parallel.sh -S : exits 0: $(cat "$tmp/log")" [ $? = 0 ]
    check "  ... quietly" [ ! -s "$tmp/log" ]
    same "  ... irlint.tsv = one tikz2ir | irlint" "$tmp/single.tsv" "$tmp/par/irlint.tsv"
    same "  ... the Makefile's per-item files" "$tmp/mk/verdicts/219.tsv" "$tmp/par/verdicts/219.tsv"
    touch "$tmp/marker"
    sleep 1
    rm "$tmp/par/verdicts/1.tsv" "$tmp/par/verdicts/7.tsv" "$tmp/par/irlint.tsv"
    sh contrib/parallel/parallel.sh -S : -b "$bin" "$tmp/src" "$tmp/par" >"$tmp/log" 2>&1
    check "resumed parallel.sh exits 0: $(cat "$tmp/log")" [ $? = 0 ]
    redone=$(cd "$tmp/par/verdicts" && find . -newer "$tmp/marker" -name '*.tsv' | sort | tr '\n' ' ')
    check "  ... redid items 1 and 7 only ($redone)" [ "$redone" = "./1.tsv ./7.tsv " ]
    same "  ... and gives the same table" "$tmp/single.tsv" "$tmp/par/irlint.tsv"
    # the Makefile takes over a parallel.sh run: nothing left to do
    out=$(M SRC="$tmp/src" OUT="$tmp/par" 2>&1)
    check "make after parallel.sh has nothing to do: $out" sh -c 'echo "$1" | grep -q "Nothing to be done\|is up to date"' - "$out"
    sh contrib/parallel/parallel.sh -b "$bin" "$tmp/nosuch" "$tmp/par2" >/dev/null 2>&1
    check "parallel.sh without .tex files exits 2" [ $? = 2 ]
    # two "remote" hosts: GNU parallel's ssh (and rsync's) is a stand-in
    # that runs the command here, in a directory of its own per host (its
    # home), so the transfers (--transferfile, --wd ..., --return) and
    # --cleanup are real; relative SRC and OUT, as parallel.sh asks
    if command -v rsync >/dev/null 2>&1; then
        mkdir -p "$tmp/remote" "$tmp/local"
        cat >"$tmp/remote/ssh" <<EOF2
#!/bin/sh
while [ \$# -gt 0 ]; do
    case \$1 in -[lopSFiEcmLRDWJbeIQw]) shift 2 ;; -*) shift ;; *) break ;; esac
done
host=\${1#*@}; shift; [ "\$1" = -- ] && shift
echo "\$host" >>"$tmp/remote/log"
mkdir -p "$tmp/remote/\$host" && cd "$tmp/remote/\$host" || exit 255
# as sshd does: the login's HOME and SHELL (GNU parallel's remote
# wrapper runs the job with \$SHELL; CI's environment may have none)
HOME=$tmp/remote/\$host SHELL=/bin/sh exec sh -c "\$*"
EOF2
        chmod +x "$tmp/remote/ssh"
        cp -r "$tmp/src" "$tmp/local/src"
        (cd "$tmp/local" && PARALLEL="--ssh $tmp/remote/ssh" \
            sh "$root/contrib/parallel/parallel.sh" -S 2/hostA,2/hostB -b "$bin" src out) >"$tmp/log" 2>&1
        check "parallel.sh -S 2/hostA,2/hostB exits 0: $(cat "$tmp/log")" [ $? = 0 ]
        check "  ... both hosts were used" [ "$(sort -u "$tmp/remote/log" | tr '\n' ' ')" = "hostA hostB " ]
        check "  ... and cleaned up" [ -z "$(find "$tmp/remote/hostA" "$tmp/remote/hostB" -type f)" ]
        # shellcheck disable=SC2086 # one file name per word
        # shellcheck disable=SC2046 # one file name per word
        (cd "$tmp/local" && "$bin/tikz2ir" -q $(echo "$sorted" | sed "s|^$tmp/src/|src/|") |
            "$bin/irlint" --exit-zero --format tsv) >"$tmp/single-rel.tsv"
        same "  ... irlint.tsv = one tikz2ir | irlint" "$tmp/single-rel.tsv" "$tmp/local/out/irlint.tsv"
    else
        echo "contrib: NOTE: rsync is not installed (Debian: rsync): parallel.sh over ssh hosts is not tested"
    fi
else
    echo "contrib: NOTE: GNU parallel is not installed (Debian: parallel): the parallel recipe is not tested"
fi

# ------------------------------------------------------- Slurm job array
# the per-task body as tasks 1..3 of --array=1-3 would run it, then the merge
for t in 1 2 3; do
    SRC=$tmp/src OUT=$tmp/slurm BIN=$bin SLURM_ARRAY_TASK_ID=$t SLURM_ARRAY_TASK_MIN=1 \
        SLURM_ARRAY_TASK_COUNT=3 sh contrib/parallel/slurm.sbatch >"$tmp/log.$t" 2>&1
    check "slurm task $t exits 0: $(cat "$tmp/log.$t")" [ $? = 0 ]
done
check "  ... shard 0 of 3 did items 0, 3 and 6" grep -q "shard 0 of 3: 3 of 8 items" "$tmp/log.1"
check "  ... shard 2 of 3 did items 2 and 5" grep -q "shard 2 of 3: 2 of 8 items" "$tmp/log.3"
MERGE=1 SRC=$tmp/slurm-none OUT=$tmp/slurm sh contrib/parallel/slurm.sbatch >/dev/null 2>&1
check "slurm merge of no items exits 2" [ $? = 2 ]
rm "$tmp/slurm/verdicts/10.tsv"
MERGE=1 SRC=$tmp/src OUT=$tmp/slurm sh contrib/parallel/slurm.sbatch >"$tmp/log" 2>&1
check "slurm merge with an item missing exits 1" [ $? = 1 ]
check "  ... and writes no table" [ ! -e "$tmp/slurm/irlint.tsv" ]
SRC=$tmp/src OUT=$tmp/slurm BIN=$bin SLURM_ARRAY_TASK_ID=1 NSHARDS=3 sh contrib/parallel/slurm.sbatch >"$tmp/log" 2>&1
check "requeued task 1 of 3 redoes the missing item" [ -s "$tmp/slurm/verdicts/10.tsv" ]
MERGE=1 SRC=$tmp/src OUT=$tmp/slurm sh contrib/parallel/slurm.sbatch >"$tmp/log" 2>&1
check "slurm merge exits 0: $(cat "$tmp/log")" [ $? = 0 ]
same "  ... irlint.tsv = one tikz2ir | irlint" "$tmp/single.tsv" "$tmp/slurm/irlint.tsv"
SRC=$tmp/src OUT=$tmp/slurm BIN=$bin SLURM_ARRAY_TASK_ID=3 NSHARDS=3 sh contrib/parallel/slurm.sbatch >/dev/null 2>&1
check "slurm task outside the array exits 2" [ $? = 2 ]

# ------------------------------------------------------- svg2graph -> graphalign
mkdir -p "$tmp/svg" "$tmp/gold"
for n in flow labels orthogonal; do
    cp "tests/svg2graph/llm-$n.svg" "$tmp/svg/"
    cp "tests/svg2graph/llm-$n.truth.ir" "$tmp/gold/llm-$n.ir"
done
# a gold graph that disagrees (one label, one edge fewer), so that the
# scores and their means are not all 1
sed -e '0,/^vertex/s/"\([^"]*\)"/"\1 unrelated words here"/' -e '0,/^edge/{/^edge/d}' \
    "tests/svg2graph/llm-flow.truth.ir" >"$tmp/gold/llm-flow.ir"
"$bin/svg2graph" -q "$tmp/svg/llm-flow.svg" "$tmp/svg/llm-labels.svg" "$tmp/svg/llm-orthogonal.svg" >"$tmp/gen.ir"
cat "$tmp/gold/llm-flow.ir" "$tmp/gold/llm-labels.ir" "$tmp/gold/llm-orthogonal.ir" |
    "$bin/graphalign" - "$tmp/gen.ir" >"$tmp/galign.tsv"
check "graphalign single run: 3 items and the means" [ "$(wc -l <"$tmp/galign.tsv")" = 37 ]
check "  ... not all 1" grep -q "	0\.[0-9]*	" "$tmp/galign.tsv"
M -s -j2 OUT="$tmp/g" SVG="$tmp/svg" GOLD="$tmp/gold" graphalign >"$tmp/log" 2>&1
check "make graphalign exits 0: $(cat "$tmp/log")" [ $? = 0 ]
same "  ... graphalign.tsv = one svg2graph, one graphalign" "$tmp/galign.tsv" "$tmp/g/graphalign.tsv"
rm "$tmp/g/align/llm-labels.tsv"
M OUT="$tmp/g" SVG="$tmp/svg" GOLD="$tmp/gold" graphalign >"$tmp/log" 2>&1
check "resumed make graphalign redoes one alignment: $(cat "$tmp/log")" \
    [ "$(grep -c -- '--no-mean' "$tmp/log")" = 1 ]
check "  ... and no svg2graph" [ "$(grep -c '/svg2graph ' "$tmp/log")" = 0 ]
same "  ... and gives the same table" "$tmp/galign.tsv" "$tmp/g/graphalign.tsv"

# ------------------------------------------------------- judge
if command -v python3 >/dev/null 2>&1; then
    start_server() {  # [fakellm options]
        fakellm_start contrib "$@"
    }
    nreq() { wc -l <"$tmp/req.log" | tr -d ' '; }
    mkdir -p "$tmp/jd"
    cp tests/judge/data/tri.tex tests/judge/data/white.png "$tmp/jd/"
    # item c4's first two attempts get 500 (with --retries 2 it fails); the
    # next attempt of the same request, on the next make, gets its answer
    { printf 'item\tcode\timage\tquestion\n'
      for i in a1 a2 b3 c4 c5 d6 e7; do
          q="right triangle $i"
          [ $i = c4 ] && q="$q FAKE[faults=500,500]"
          printf '%s\ttri.tex\twhite.png\t%s\n' "$i" "$q"
      done; } >"$tmp/jd/items.tsv"
    start_server
    J() { M OUT="$tmp/j" MANIFEST="$tmp/jd/items.tsv" MODEL=fake-1 BASE_URL="$url" \
            CACHE_DIR="$tmp/cache" JUDGE_SHARDS=3 JUDGE_FLAGS="-q --retries 2 --backoff 0.01" "$@" judge; }
    J -k -j2 >"$tmp/log" 2>&1; st=$?
    check "make judge with a failing item fails (status $st)" [ $st != 0 ]
    check "  ... c4's shard (0: items 0, 3, 6) is not done" [ ! -e "$tmp/j/judge/shard-0.tsv" ]
    check "  ... the other shards are" [ -s "$tmp/j/judge/shard-1.tsv" ] && [ -s "$tmp/j/judge/shard-2.tsv" ]
    check "  ... no merged table" [ ! -e "$tmp/j/judge.tsv" ]
    check "  ... 6 items asked once, c4 twice: $(nreq) requests" [ "$(nreq)" = 8 ]
    J >"$tmp/log" 2>&1
    check "make judge again exits 0: $(cat "$tmp/log")" [ $? = 0 ]
    check "  ... asking c4 alone again: $(nreq) requests" [ "$(nreq)" = 9 ]
    # the server's log: a line per request, the request's hash first
    counts=$(cut -f1 "$tmp/req.log" | sort | uniq -c | awk '{ print $1 }' | sort | uniq -c | tr -s ' \n' ' ')
    check "  ... 6 items asked once, c4 three times, a1 and d6 not again ($counts)" [ "$counts" = " 6 1 1 3 " ]
    check "  ... every item is in the table" [ "$(cut -f1 "$tmp/j/judge.tsv" | sort -u | wc -l)" = 8 ]
    "$bin/judge" --base-url "$url" --model fake-1 --cache-dir "$tmp/cache1" -q "$tmp/jd/items.tsv" \
        >"$tmp/jsingle.tsv" 2>"$tmp/log"
    check "single judge run exits 0: $(cat "$tmp/log")" [ $? = 0 ]
    same "  ... judge.tsv = the single run" "$tmp/jsingle.tsv" "$tmp/j/judge.tsv"

    # a make killed mid-run (every process of it, SIGKILL), then started
    # again: no shard is taken as done half-written, the table is the same
    start_server --delay 0.3
    sed 's/ FAKE\[[^]]*\]//' "$tmp/jd/items.tsv" >"$tmp/jd/plain.tsv"
    "$bin/judge" --base-url "$url" --model fake-1 --cache-dir "$tmp/cache3" -q "$tmp/jd/plain.tsv" \
        >"$tmp/jsingle2.tsv" 2>"$tmp/log"
    check "single judge run exits 0: $(cat "$tmp/log")" [ $? = 0 ]
    # setsid: make and its children in a process group of their own
    setsid make -f contrib/dataset/Makefile BIN="$bin" OUT="$tmp/j2" \
        MANIFEST="$tmp/jd/plain.tsv" MODEL=fake-1 BASE_URL="$url" CACHE_DIR="$tmp/cache2" \
        JUDGE_SHARDS=7 JUDGE_JOBS=1 JUDGE_FLAGS=-q judge >/dev/null 2>&1 &
    mk_pid=$!
    i=0
    while [ ! -e "$tmp/j2/judge/shard-1.tsv" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    kill -9 "-$mk_pid" 2>/dev/null
    wait "$mk_pid" 2>/dev/null
    mk_pid=
    check "the killed make left no table" [ ! -e "$tmp/j2/judge.tsv" ]
    done1=0
    for f in "$tmp"/j2/judge/shard-*.tsv; do [ -e "$f" ] && done1=$((done1 + 1)); done
    check "  ... and shards done ($done1) < 7" [ "$done1" -lt 7 ]
    for f in "$tmp"/j2/judge/shard-*.tsv; do
        [ -e "$f" ] || continue
        [ "$(wc -l <"$f")" = 7 ] || bad "killed make left $f with $(wc -l <"$f") lines"
    done
    n1=$(nreq)
    M OUT="$tmp/j2" MANIFEST="$tmp/jd/plain.tsv" MODEL=fake-1 BASE_URL="$url" \
        CACHE_DIR="$tmp/cache2" JUDGE_SHARDS=7 JUDGE_JOBS=1 JUDGE_FLAGS=-q judge >"$tmp/log" 2>&1
    check "make judge after the kill exits 0: $(cat "$tmp/log")" [ $? = 0 ]
    n2=$(($(nreq) - n1))
    # the finished shards' items are not asked again (one in flight at the
    # kill may be)
    check "  ... asked at most the items not done ($n2 requests, $done1 shards were done)" \
        [ "$n2" -le $((7 - done1)) ]
    same "  ... and gives the same table" "$tmp/jsingle2.tsv" "$tmp/j2/judge.tsv"
    kill "$srv_pid" 2>/dev/null
    wait "$srv_pid" 2>/dev/null
    srv_pid=
else
    echo "contrib: NOTE: python3 is missing: the judge target is not tested"
fi

echo "contrib: $pass passed, $fail failed"
[ "$fail" = 0 ]
