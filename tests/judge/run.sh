#!/bin/sh
# tests/judge/run.sh -- judge and the LLM client against a fake
# OpenAI-compatible server (tests/judge/fakellm.py, python3 standard library):
# usage errors, every rubric, the cache (also after a SIGKILL), retries and
# the attempt cap, timeouts, dropped and truncated responses, malformed
# answers and the repair request, endless bodies, the key kept out of errors,
# logs and the cache, concurrency and the RPM limiter.
#
#   BUILD=build sh tests/judge/run.sh
#
# Exit status 0 when every test passed, 1 otherwise.
. "$(dirname "$0")/../lib.sh"
judge=$bin/judge
[ -x "$judge" ] || { echo "judge: $judge not built" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "judge: python3 is needed for the fake server" >&2; exit 1; }
DIAGRAMIR_RUBRICS=$root/llm/rubrics
export DIAGRAMIR_RUBRICS
unset OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MODEL
data=tests/judge/data

tmp=$(mktemp -d "${TMPDIR:-/tmp}/judge-test.XXXXXX") || exit 1
# the LLM cache goes under the run's directory, never into the checkout (with no
# HOME and no XDG_CACHE_HOME, as in CI, it would default to ./.diagramir-cache)
XDG_CACHE_HOME=$tmp/xdg-cache
export XDG_CACHE_HOME
. tests/judge/fakellm.sh
# manifests written to $tmp name files under $tmp (a manifest may name only
# files under its own directory)
cp "$data/tri.tex" "$tmp/tri.tex" || exit 1
srv_pid=
cleanup() {
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

# start_server [fakellm options]: a fresh server, its log in $tmp/req.log
start_server() {
    rm -f "$tmp/stats"
    fakellm_start judge --stats "$tmp/stats" "$@"
}
nreq() { wc -l <"$tmp/req.log" | tr -d ' '; }

J() { "$judge" --base-url "$url" --model fake-1 --cache-dir "$tmp/cache" -q "$@"; }

# ---------------------------------------------------------------- usage
"$judge" --help >/dev/null; check "--help exits 0" [ $? = 0 ]
"$judge" --version | grep -q '^judge (diagramir)'; check "--version" [ $? = 0 ]
"$judge" --bogus >/dev/null 2>&1; check "unknown option exits 2" [ $? = 2 ]
"$judge" --rubric nosuch $data/geom.tsv >/dev/null 2>&1; check "unknown rubric exits 2" [ $? = 2 ]
"$judge" --mode nosuch --dry-run $data/geom.tsv >/dev/null 2>&1; check "unknown mode exits 2" [ $? = 2 ]
"$judge" -j 0 --dry-run $data/geom.tsv >/dev/null 2>&1; check "-j 0 exits 2" [ $? = 2 ]
"$judge" --list >"$tmp/list"; check "--list" [ "$(grep -c -v 'not found' "$tmp/list")" = 5 ]

printf 'id\tcode\nx\ty\n' >"$tmp/noid.tsv"
"$judge" --dry-run "$tmp/noid.tsv" 2>"$tmp/err" >/dev/null; st=$?
check "manifest without item column exits 2" [ $st = 2 ]
check "  ... with file:line:col" grep -q "noid.tsv:1:1: error: .*'item'" "$tmp/err"
printf 'item\tcode\na\tmissing.tex\n' >"$tmp/missing.tsv"
"$judge" --dry-run --mode code "$tmp/missing.tsv" 2>"$tmp/err" >/dev/null; st=$?
check "missing code file exits 2" [ $st = 2 ]
check "  ... naming the line" grep -q "missing.tsv:2:1: error: item a: code: .*missing.tex" "$tmp/err"
# a manifest names files under its own directory only: not an absolute
# path elsewhere, not "..", not a symbolic link leading out; --allow-files
# allows more. Nothing is printed (nothing would be sent) for such a manifest.
mkdir "$tmp/m" && cp "$tmp/tri.tex" "$tmp/m/tri.tex" && ln -s /etc/passwd "$tmp/m/link.tex"
for cell in /etc/passwd ../tri.tex link.tex; do
    printf 'item\tcode\na\t%s\n' "$cell" >"$tmp/m/evil.tsv"
    "$judge" --dry-run --mode code "$tmp/m/evil.tsv" 2>"$tmp/err" >"$tmp/out"; st=$?
    check "file outside the manifest's directory ($cell) exits 2" [ $st = 2 ]
    check "  ... sends nothing" [ ! -s "$tmp/out" ]
    check "  ... and says why" grep -q "evil.tsv:2:1: error: item a: code: .* is outside the manifest's directory .*--allow-files DIR allows more" "$tmp/err"
done
printf 'item\tcode\na\ttri.tex\nb\t%s\n' "$tmp/m/tri.tex" >"$tmp/m/ok.tsv"
"$judge" --dry-run --mode code "$tmp/m/ok.tsv" >/dev/null 2>"$tmp/err"
check "relative and absolute paths under the manifest's directory are fine" [ $? = 0 ]
printf 'item\tcode\na\t../tri.tex\n' >"$tmp/m/up.tsv"
"$judge" --dry-run --mode code --allow-files "$tmp" "$tmp/m/up.tsv" >/dev/null 2>"$tmp/err"
check "--allow-files DIR allows files under DIR" [ $? = 0 ]
printf 'item\tcode\na\t%s\na\t%s\n' "$tmp/tri.tex" "$tmp/tri.tex" >"$tmp/dup.tsv"
"$judge" --dry-run --mode code "$tmp/dup.tsv" 2>/dev/null >/dev/null
check "duplicate item exits 2" [ $? = 2 ]
awk -v f="$tmp/tri.tex" 'BEGIN { print "item\tcode"; for (i = 1; i <= 3000; i++) print i "\t" f
                             print 2500 "\t" f }' >"$tmp/dup3000.tsv"
"$judge" --dry-run --mode code "$tmp/dup3000.tsv" 2>"$tmp/err" >/dev/null
check "duplicate item after 3000 items exits 2" [ $? = 2 ]
check "  ... naming both lines" grep -q "dup3000.tsv:3002:1: error: item 2500 again (first at .*dup3000.tsv:2501)" "$tmp/err"
printf 'item\tcode\na\tb\tc\n' >"$tmp/width.tsv"
"$judge" --dry-run "$tmp/width.tsv" 2>/dev/null >/dev/null
check "ragged manifest exits 2" [ $? = 2 ]
cp "$data/expl.txt" "$tmp/expl.txt"
printf 'item\tcode\timage\na\t%s\t%s\n' "$tmp/tri.tex" "$tmp/expl.txt" >"$tmp/notimg.tsv"
"$judge" --dry-run "$tmp/notimg.tsv" 2>"$tmp/err" >/dev/null
check "a text file as the image exits 2" [ $? = 2 ]
printf 'rubric r\ncriterion a enum yes no\nprompt\n{{nosuch}}\n.\n' >"$tmp/bad.rubric"
"$judge" --rubric-file "$tmp/bad.rubric" --dry-run $data/geom.tsv 2>"$tmp/err" >/dev/null
check "rubric with an unknown template name exits 2" [ $? = 2 ]
check "  ... at its line" grep -q "bad.rubric:4:1: error: unknown template name 'nosuch'" "$tmp/err"
printf 'rubric r\ncriterion a enum yes no\nprompt\nunclosed\n' >"$tmp/bad2.rubric"
"$judge" --rubric-file "$tmp/bad2.rubric" --dry-run $data/geom.tsv 2>"$tmp/err" >/dev/null
check "rubric with an unclosed block exits 2" [ $? = 2 ]
"$judge" --model m --api-key-file "$tmp/nokey" $data/geom.tsv >/dev/null 2>&1
check "missing key file exits 2" [ $? = 2 ]
"$judge" $data/geom.tsv >/dev/null 2>"$tmp/err"
check "no model exits 2" [ $? = 2 ]

# dry runs: every rubric builds its requests, images as data URLs
"$judge" --dry-run $data/geom.tsv >"$tmp/dry" 2>&1
check "dry run geom" [ $? = 0 ]
check "  ... images as base64 data URLs" grep -q '"url":"data:image/png;base64,<' "$tmp/dry"
"$judge" --dry-run --mode code $data/geom.tsv | grep -q image_url
check "mode code sends no image" [ $? = 1 ]
"$judge" --dry-run --mode image $data/geom.tsv | grep -q 'documentclass'
check "mode image sends no code" [ $? = 1 ]
for r in eduillustrate:edu sketchjudge:sketch mathexplain-keypoints:kp mathexplain-explanation:mx; do
    "$judge" --dry-run -r "${r%%:*}" "$data/${r#*:}.tsv" >/dev/null 2>"$tmp/err"
    check "dry run ${r%%:*}" [ $? = 0 ]
done
"$judge" --dry-run -r sketchjudge --mode noref $data/sketch.tsv | grep -q 'Reference Answer'
check "sketchjudge noref has no reference" [ $? = 1 ]
"$judge" --dry-run -r sketchjudge --variant cot $data/sketch.tsv | grep -q 'step-by-step internal reasoning'
check "sketchjudge cot variant" [ $? = 0 ]

# ---------------------------------------------------------------- happy path
start_server
J $data/geom.tsv >"$tmp/out"; st=$?
check "geom exits 0" [ $st = 0 ]
check "geom: header + 12 rows" [ "$(wc -l <"$tmp/out")" = 13 ]
check "geom: rows" grep -q '^t2	no-overlap	fake-1	yes	fake reason$' "$tmp/out"
check "geom: 2 requests" [ "$(nreq)" = 2 ]
J $data/geom.tsv >"$tmp/out2"
check "cache: same output" cmp -s "$tmp/out" "$tmp/out2"
check "cache: no new request" [ "$(nreq)" = 2 ]
J --no-cache $data/geom.tsv >/dev/null
check "--no-cache asks again" [ "$(nreq)" = 4 ]

J --mode code $data/geom.tsv >/dev/null
check "another mode is another cache entry" [ "$(nreq)" = 6 ]
J --rater me $data/geom.tsv | grep -q '^t1	in-frame	me	yes'
check "--rater" [ $? = 0 ]
check "cache entries are files named by SHA-256" \
    [ "$(find "$tmp/cache" -name '*.json' | grep -c '/[0-9a-f][0-9a-f]/[0-9a-f]\{64\}\.json$')" = 4 ]
check "no temp files left in the cache" [ -z "$(find "$tmp/cache" -name '.tmp-*')" ]

# sampling settings go into the request body as the OpenAI API names them
start_server --capture "$tmp/bodies"
J --no-cache $data/geom.tsv >/dev/null
check "default: temperature 0, top_p 1 in both bodies" [ "$(grep -c '"temperature":0,"top_p":1}' "$tmp/bodies")" = 2 ]
check "  ... no reasoning_effort" [ "$(grep -c reasoning_effort "$tmp/bodies")" = 0 ]
rm -f "$tmp/bodies"
J --no-cache --reasoning-effort low --temperature none --top-p 0.9 $data/geom.tsv >/dev/null
check "--reasoning-effort low in both bodies" [ "$(grep -c '"reasoning_effort":"low"' "$tmp/bodies")" = 2 ]
check "--top-p 0.9 in both bodies" [ "$(grep -c '"top_p":0.9' "$tmp/bodies")" = 2 ]
check "--temperature none: not sent" [ "$(grep -c '"temperature"' "$tmp/bodies")" = 0 ]
J --reasoning-effort high $data/geom.tsv >/dev/null
check "  ... another reasoning effort is another cache key" [ "$(grep -c '"reasoning_effort":"high"' "$tmp/bodies")" = 2 ]
"$judge" --reasoning-effort extreme --model m --dry-run $data/geom.tsv >/dev/null 2>"$tmp/err"
check "--reasoning-effort extreme: exit 2" [ $? = 2 ]
check "  ... says what it wants" grep -q "minimal, low, medium or high, not 'extreme'" "$tmp/err"
"$judge" --top-p 0 --model m --dry-run $data/geom.tsv >/dev/null 2>"$tmp/err"
check "--top-p 0: exit 2" [ $? = 2 ]

# accounting: log lines and prices
"$judge" --base-url "$url" --model fake-priced --no-cache --log "$tmp/log.jsonl" \
    $data/geom.tsv >/dev/null 2>"$tmp/err"
check "one JSON log line per call" [ "$(grep -c '^{"type":"call",' "$tmp/log.jsonl")" = 2 ]
check "  ... and one per attempt" [ "$(grep -c '^{"type":"attempt",.*"attempt":1,"retry":false,"status":"ok","http":200,.*"overdue":false,"used":true}$' "$tmp/log.jsonl")" = 2 ]
check "log records tokens" grep -q '"prompt_tokens":100,"completion_tokens":20,"cached_tokens":10' "$tmp/log.jsonl"
# (90 * 1 + 10 * 0.5 + 20 * 2) / 1e6 per call, two calls
check "summary line with cost" grep -q '^judge: calls: 2 (2 sent, 0 retried, 0 from cache); 2 answered, 0 invalid, 0 failed; 2 HTTP requests;.*cost \$0.0003' "$tmp/err"
check "  ... and the items line" grep -q '^judge: items: 2 answered (0 from cache), 0 failed$' "$tmp/err"
check "  ... the log has the call's cost" [ "$(grep -c '"type":"call",.*"cost_usd":0.00013' "$tmp/log.jsonl")" = 2 ]
# a model missing from the price list: "price unknown", never $0.0000, and
# no cost in the log
"$judge" --base-url "$url" --model fake-unpriced --no-cache --log "$tmp/log2.jsonl" \
    $data/geom.tsv >/dev/null 2>"$tmp/err"
check "unknown price: the summary says so" grep -q '^judge: calls: .*; cost: price unknown for model fake-unpriced$' "$tmp/err"
check "  ... no dollar figure" [ "$(grep -c '\$0' "$tmp/err")" = 0 ]
check "  ... no cost_usd in the log's calls" [ "$(grep '"type":"call"' "$tmp/log2.jsonl" | grep -c cost_usd)" = 0 ]
printf 'other-model\t1\t2\n' >"$tmp/prices.tsv"
"$judge" --base-url "$url" --model fake-priced --prices "$tmp/prices.tsv" --no-cache \
    $data/geom.tsv >/dev/null 2>"$tmp/err"
check "  ... also with --prices FILE that lacks the model" grep -q 'cost: price unknown for model fake-priced$' "$tmp/err"

# the other rubrics, end to end
# EduIllustrate as its paper defines it (Sec. 3.4; tests/judge/paper/
# eduillustrate-rubric.txt holds the paper's text)
# 1. names and scales: the eight dimensions of Sec. 3.4, 0-5 each, overall
"$judge" --describe -r eduillustrate >"$tmp/desc"
sed -n 's/^\*[A-Za-z]* quality\*.*blocks): //p; s/^\*Visual quality\* (evaluated on rendered diagrams): //p' \
    tests/judge/paper/eduillustrate-rubric.txt | sed 's/–/-/g; s/—/@/g' | tr ';' '\n' |
    sed -n 's/^ *\([A-Z][^@]*\)@.*/\1/p' | tr 'A-Z' 'a-z' | sed 's/ & /-/; s/ /-/g' >"$tmp/paper-dims"
grep '^  row ' "$tmp/desc" | awk '$2 != "overall" { print $2 }' >"$tmp/our-dims"
check "eduillustrate: the 8 dimensions of Sec. 3.4, in its order ($(tr '\n' ' ' <"$tmp/paper-dims"))" \
    cmp -s "$tmp/paper-dims" "$tmp/our-dims"
check "  ... (eight of them)" [ "$(wc -l <"$tmp/paper-dims")" = 8 ]
check "  ... (the paper: each dimension 0-5)" grep -q 'Each dimension is scored on a 0–5 Likert scale' tests/judge/paper/eduillustrate-rubric.txt
check "  ... each of the 8 on 0-5" [ "$(grep -c '^  scale [a-z-]* 0\.\.5$' "$tmp/desc")" = 8 ]
check "  ... overall: geometric mean (Table 2), % of 5" grep -q '^  scale overall geometric mean, % of 5$' "$tmp/desc"
check "  ... no engagement" [ "$(grep -c engagement "$tmp/desc")" = 0 ]
# each dimension's name and the paper's definition of it, word for word, in
# the prompt of its request
python3 - tests/judge/paper/eduillustrate-rubric.txt llm/rubrics/eduillustrate.rubric >"$tmp/chk" <<'PY'
import re, sys
paper = open(sys.argv[1], encoding="utf-8").read().replace("\u2013", "-").replace("\u2019", "'")
ours = open(sys.argv[2], encoding="utf-8").read()
n = 0
for para in re.findall(r"^\*(?:Text|Visual) quality\* \(.*?\): (.*)$", paper, re.M):
    for part in para.rstrip(".").split("; "):
        name, _, definition = part.partition("\u2014")
        n += 1
        if not definition or ("- %s (" % name) not in ours or definition not in ours:
            print("missing:", name, "|", definition)
print(n, "definitions")
PY
check "  ... each dimension's name and definition from Sec. 3.4 in its prompt ($(tr '\n' ' ' <"$tmp/chk"))" \
    [ "$(cat "$tmp/chk")" = "8 definitions" ]
# 2. the requests, captured: text dimensions see the problem and the text
#    (Correctness & Completeness also the gold solution), visual ones the
#    diagrams as well; ELQ one request a diagram, VC one per diagram after
#    the first, with scene 1 beside it
rm -f "$tmp/cap"
start_server --capture "$tmp/cap"
J --no-cache -r eduillustrate $data/edu.tsv >"$tmp/out"; st=$?
check "eduillustrate: exit 0" [ $st = 0 ]
python3 - "$tmp/cap" "$root/$data" >"$tmp/chk" <<'PY'
import base64, json, sys
cap, data = sys.argv[1], sys.argv[2]
img = {base64.b64encode(open(f"{data}/{n}.png", "rb").read()).decode(): n for n in ("white", "black", "gray")}
for line in open(cap):
    msgs = json.loads(line)["messages"]
    parts = [p for m in msgs if m["role"] == "user" for p in (m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}])]
    text = "".join(p.get("text", "") for p in parts)
    seq = []
    for p in parts:
        if p["type"] == "image_url":
            seq.append(img.get(p["image_url"]["url"].split(",", 1)[1], "?"))
        else:
            t = p["text"]
            for key, name in (("Problem:\n", "problem"), ("Gold solution:\n", "gold"), ("Explanation (its text blocks):\n", "text")):
                if key in t:
                    seq.append((t.index(key), name))
            seq = [x for x in seq if isinstance(x, str)] + [n for _, n in sorted(x for x in seq if isinstance(x, tuple))]
    dims = sorted(k for k in ("correctness-completeness", "logical-coherence", "pedagogical-effectiveness", "typographic-clarity", "diagram-problem-alignment", "element-layout-quality", "visual-consistency", "text-diagram-coordination") if '"%s":' % k in text)
    item = "e2" if "One scene only" in text else "e1"
    print(item, " ".join(dims), "|", " ".join(seq))
PY
sort "$tmp/chk" >"$tmp/chk.s"
sort >"$tmp/want" <<'W'
e1 correctness-completeness | problem gold text
e1 logical-coherence pedagogical-effectiveness typographic-clarity | problem text
e1 diagram-problem-alignment text-diagram-coordination | problem text white black gray
e1 element-layout-quality | problem text white
e1 element-layout-quality | problem text black
e1 element-layout-quality | problem text gray
e1 visual-consistency | problem text white black
e1 visual-consistency | problem text white gray
e2 correctness-completeness | problem gold text
e2 logical-coherence pedagogical-effectiveness typographic-clarity | problem text
e2 diagram-problem-alignment text-diagram-coordination | problem text white
e2 element-layout-quality | problem text white
W
check "  ... each dimension's request has the paper's inputs, in order ($(diff "$tmp/want" "$tmp/chk.s" | grep '^[<>]' | head -2 | tr '\n' ' '))" \
    cmp -s "$tmp/want" "$tmp/chk.s"
# 3. the aggregation, worked by hand: e1's scores are 4, but ELQ 5, 4, 2 on
#    scenes 1-3 and VC 5, 3 on scenes 2-3 (the fake's score.CRIT= lists).
#    ELQ = (5*4*2)^(1/3) = 40^(1/3) = 3.420; VC = (5*3)^(1/2) = 3.873;
#    overall = 100/5 * (4^6 * 3.420 * 3.873)^(1/8) = 20 * 3.9066 = 78.133.
#    e2 has one scene: VC is na (N-1 = 0), overall over 7 dimensions, and a
#    zero score makes it 0.
check "  ... ELQ = geometric mean over the diagrams" grep -q '^e1	element-layout-quality	fake-1	3.42	per image: 5 4 2$' "$tmp/out"
check "  ... VC = geometric mean over scenes 2..N against scene 1" grep -q '^e1	visual-consistency	fake-1	3.873	against image 1, images 2..N: 5 3$' "$tmp/out"
check "  ... overall = geometric mean of the 8, % of 5" grep -q '^e1	overall	fake-1	78.133	geometric mean of 8 scores' "$tmp/out"
check "  ... VC na with one scene" grep -q '^e2	visual-consistency	fake-1	na	' "$tmp/out"
check "  ... overall then of 7, a zero makes it 0" grep -q '^e2	overall	fake-1	0	geometric mean of 7 scores' "$tmp/out"
check "  ... 8 + 4 requests" [ "$(wc -l <"$tmp/cap")" = 12 ]
# a request whose answer breaks the schema fails its item once (one "# failed"
# line, no rows), whatever its other requests answered; the next item is whole
cp $data/white.png $data/black.png $data/expl.txt $data/gold.txt "$tmp/"
printf 'item\tproblem\texplanation\tgold_solution\tscenes\nb1\tBroken FAKE[answer=schema]\texpl.txt\tgold.txt\twhite.png|black.png\nb2\tFine\texpl.txt\tgold.txt\twhite.png|black.png\n' >"$tmp/ebad.tsv"
: >"$tmp/req.log"
J -r eduillustrate "$tmp/ebad.tsv" >"$tmp/out" 2>/dev/null; st=$?
check "eduillustrate: an unusable answer: exit 1" [ $st = 1 ]
check "  ... the item failed once" [ "$(grep -c '^# failed	b1	' "$tmp/out")" = 1 ]
check "  ... with no rows" [ "$(grep -c '^b1	' "$tmp/out")" = 0 ]
check "  ... the other item has its 9 rows" [ "$(grep -c '^b2	' "$tmp/out")" = 9 ]
# rubric files with groups: mistakes are file:line:col errors
gerr() {  # gerr NAME EXPECTED-REGEX RUBRIC-TEXT
    printf '%b' "$3" >"$tmp/$1.rubric"
    "$judge" --rubric-file "$tmp/$1.rubric" --describe >/dev/null 2>"$tmp/err"
    st=$?
    check "group rubric $1: exit 2" [ $st = 2 ]
    check "  ... $2" grep -q "$1.rubric:$2" "$tmp/err"
}
gerr nogroup "1:1: error: criterion b is in no group" \
    'rubric g\ncriterion a int 0 5\ncriterion b int 0 5\ngroup one a\nprompt one\n{{schema}}\n.\n'
gerr noprompt "1:1: error: group two has no prompt block" \
    'rubric g\ncriterion a int 0 5\ncriterion b int 0 5\ngroup one a\ngroup two b\nprompt one\n{{schema}}\n.\n'
gerr stray "7:1: error: prompt block 'three' is no group's" \
    'rubric g\ncriterion a int 0 5\ngroup one a\nprompt one\n{{schema}}\n.\nprompt three\nx\n.\n'
gerr twice "4:1: error: group two: criterion 'a' is in another group" \
    'rubric g\ncriterion a int 0 5\ngroup one a\ngroup two a\nprompt one\nx\n.\n'
gerr eachtext "4:1: error: each needs a declared images field" \
    'rubric g\nfield t text\ncriterion a int 0 5\ngroup one a each t\nprompt one\nx\n.\n'
gerr eachbool "5:1: error: group one: criterion 'a' is no int criterion" \
    'rubric g\nfield s images\ncriterion a bool\ncriterion b int 0 5\ngroup one a each s\nprompt one\nx\n.\n'
gerr indexnogroup "4:1: error: unknown template name 'index'" \
    'rubric g\ncriterion a int 0 5\nprompt\n{{index}}\n.\n'
# 4. an input an item lacks: file:line:col, nothing sent
printf 'item\tproblem\texplanation\tscenes\nn1\tq\texpl.txt\twhite.png\n' >"$tmp/nogold.tsv"
cp $data/expl.txt "$tmp/"
"$judge" --dry-run -r eduillustrate "$tmp/nogold.tsv" >/dev/null 2>"$tmp/err"
check "eduillustrate without gold_solution: exit 2" [ $? = 2 ]
check "  ... saying so at file:line:col" grep -q "nogold.tsv:2:1: error: item n1: field 'gold_solution' is required (no such column): rubric eduillustrate reads it$" "$tmp/err"
printf 'item\treference\nm1\tmx-ref.txt\n' >"$tmp/noexpl.tsv"
cp $data/mx-ref.txt "$tmp/"
"$judge" --dry-run -r mathexplain-explanation "$tmp/noexpl.tsv" >/dev/null 2>"$tmp/err"
check "mathexplain-explanation without the model's explanation: exit 2" [ $? = 2 ]
check "  ... saying so at file:line:col" grep -q "noexpl.tsv:2:1: error: item m1: field 'explanation' is required (no such column): rubric mathexplain-explanation reads it$" "$tmp/err"
start_server
J -r sketchjudge $data/sketch.tsv >"$tmp/out" 2>"$tmp/err"
check "sketchjudge: is-correct" grep -q '^s1	is-correct	fake-1	no	$' "$tmp/out"
check "sketchjudge: error-count" grep -q '^s1	error-count	fake-1	3	$' "$tmp/out"
check "sketchjudge: a label, namespaced, its description the note" \
    grep -q '^s1	error-type	fake-1	geometry::Conceptual Cognition Error	fake: Conceptual Cognition Error$' "$tmp/out"
check "sketchjudge: a label in another case" grep -q '^s1	error-type	fake-1	geometry::Geometric Principle Error	' "$tmp/out"
check "sketchjudge: a label not in the taxonomy is kept, not mapped" \
    grep -q '^s1	error-type	fake-1	oov:Wrong Shape	not a geometry label in the taxonomy; fake: Wrong Shape$' "$tmp/out"
check "  ... and reported" grep -q '^judge: warning: 1 label (in 1 item) not in the taxonomy' "$tmp/err"
check "sketchjudge: correct, no errors" grep -q '^s2	error-count	fake-1	0	$' "$tmp/out"
check "sketchjudge: none" grep -q '^s2	error-type	fake-1	none	$' "$tmp/out"

# ---------------------------------------------------------------- SketchJudge as its paper defines it
# (tests/judge/paper/ holds the paper's text: Appendix B's taxonomy, Appendix
# C's prompts; tests/judge/sketchjudge_check.py compares.)
# 1. names, scales and labels: the 23 labels of Tables 9-12, the rows, the
#    output schema of Figure 7 (is_correct true|false, error_count integer,
#    error_list of error_type and error_description_en)
"$judge" --describe -r sketchjudge >"$tmp/desc"
python3 tests/judge/sketchjudge_check.py taxonomy tests/judge/paper/sketchjudge-taxonomy.txt "$tmp/desc" >"$tmp/chk"
st=$?
check "sketchjudge labels = the paper's Tables 9-12 ($(head -3 "$tmp/chk" | tr '\n' ' '))" [ $st = 0 ]
check "  ... 5 geometry, 7 physics, 5 chart, 6 flowchart" [ "$(grep '^  label ' "$tmp/desc" | sed 's/^  label \([a-z]*\)::.*/\1/' | sort | uniq -c | tr -s ' ' | tr '\n' ',')" = " 5 chart, 6 flowchart, 5 geometry, 7 physics," ]
check "  ... rows is-correct, error-count, error-type (kebab-case)" [ "$(grep '^  row ' "$tmp/desc" | awk '{ printf "%s ", $2 }')" = "is-correct error-count error-type " ]
sed -n '/^# ==== Figure 7/,/^Figure 7:/p' tests/judge/paper/sketchjudge-prompts.txt |
    sed -n '/^```$/,/^```$/p' | sed 's/<brie,/<brief,/' >"$tmp/paper-schema"
for v in baseline rubric cot; do
    "$judge" --dry-run -r sketchjudge --variant $v $data/sketch.tsv | head -1 |
        python3 -c 'import json, sys; m = json.load(sys.stdin)["messages"][0]["content"]; print("".join(p.get("text", "") for p in m))' |
        sed -n '/^```$/,/^```$/p' >"$tmp/schema"
    check "sketchjudge $v: the answer schema is Figure 7's" cmp -s "$tmp/paper-schema" "$tmp/schema"
done
check "  ... (which has is_correct, error_count, error_list)" [ "$(grep -c '"is_correct": true | false,\|"error_count": <integer>,\|"error_type": "one of the error labels",\|"error_description_en":' "$tmp/paper-schema")" = 4 ]

# 2. the requests, captured by the fake server: each variant, each of Table
#    16's four cases (question diagram or not, reference or not), carries the
#    paper's inputs in the paper's order with the images, and its template
start_server --capture "$tmp/cap"
for v in baseline rubric cot; do
    for m in withref noref; do
        rm -f "$tmp/cap"
        J --no-cache -r sketchjudge --variant $v --mode $m $data/sketch-cases.tsv >"$tmp/out"
        st=$?
        python3 tests/judge/sketchjudge_check.py requests tests/judge/paper/sketchjudge-prompts.txt \
            "$tmp/cap" $v $m $data >"$tmp/chk"
        cst=$?
        check "sketchjudge $v $m: the paper's inputs, order, images and text ($(head -2 "$tmp/chk" | tr '\n' ' '))" [ $cst = 0 ]
        check "  ... exit 0" [ $st = 0 ]
        check "  ... both items judged" [ "$(grep -c '	is-correct	fake-1	yes	$' "$tmp/out")" = 2 ]
    done
done
check "  ... 12 requests" [ "$(nreq)" = 12 ]

# 3. answers in the paper's schema: labels namespaced by the item's domain
#    (the same name in two domains is two labels), matched after case, blanks
#    and punctuation are set aside (Table 13's "Concept Target Error"), never
#    to a near label; the constraints of Figure 7 hold or the answer is
#    repaired, then failed
{
    printf 'item\tdomain\tquestion\tquestion_diagram\treference\tsketch\n'
    printf 'p1\tphysics\tWire it. FAKE[bool=false;labels=Connection Error,Concept Target Error,connection error]\t\twhite.png\tgray.png\n'
    printf 'f1\tflowchart\tFlow it. FAKE[bool=false;labels=Connection Error,Shape Error,Wrong Shape]\t\twhite.png\tgray.png\n'
    printf 'c1\tphysics\tCount it. FAKE[bool=false;labels=Placement Error;count=3]\t\twhite.png\tgray.png\n'
    printf 'c2\tchart\tChart it. FAKE[bool=true;labels=Omission Error]\t\twhite.png\tgray.png\n'
} >"$tmp/answers.tsv"
cp $data/white.png $data/gray.png "$tmp/"
: >"$tmp/req.log"
J -r sketchjudge "$tmp/answers.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "sketchjudge answers: exit 1 (two broke the schema)" [ $st = 1 ]
check "  ... physics::Connection Error" grep -q '^p1	error-type	fake-1	physics::Connection Error	fake: Connection Error$' "$tmp/out"
check "  ... Concept Target Error is physics::Concept/Target Error" grep -q '^p1	error-type	fake-1	physics::Concept/Target Error	' "$tmp/out"
check "  ... an entry given twice stays (error_count counts it)" [ "$(grep -c '^p1	error-type	fake-1	physics::Connection Error	' "$tmp/out")" = 2 ]
check "  ... error-count 3" grep -q '^p1	error-count	fake-1	3	$' "$tmp/out"
check "  ... flowchart::Connection Error, another label" grep -q '^f1	error-type	fake-1	flowchart::Connection Error	' "$tmp/out"
check "  ... Wrong Shape is not Shape Error" grep -q '^f1	error-type	fake-1	oov:Wrong Shape	' "$tmp/out"
check "  ... Shape Error" grep -q '^f1	error-type	fake-1	flowchart::Shape Error	' "$tmp/out"
check "  ... error_count must equal len(error_list)" \
    grep -q '^# failed	c1	fake-1	unusable answer after a repair request: "error_count" is 3 but "error_list" has 1 entry$' "$tmp/out"
check "  ... is_correct true wants no errors" \
    grep -q '^# failed	c2	fake-1	unusable answer after a repair request: "is_correct" is true but "error_list" is not empty$' "$tmp/out"
check "  ... 4 + 2 repair requests" [ "$(nreq)" = 6 ]

# inputs an item lacks: clear errors, nothing sent
printf 'item\tdomain\tquestion\treference\tsketch\nq1\tphysics\tq\twhite.png\tgray.png\n' >"$tmp/noqd.tsv"
"$judge" --dry-run -r sketchjudge "$tmp/noqd.tsv" >/dev/null 2>"$tmp/err"
check "no question_diagram column: exit 2" [ $? = 2 ]
check "  ... saying so" grep -q "noqd.tsv:2:1: error: item q1: the manifest has no column 'question_diagram', which rubric sketchjudge reads" "$tmp/err"
printf 'item\tdomain\tquestion\tquestion_diagram\treference\tsketch\nq2\tphysics\tq\t\t\tgray.png\n' >"$tmp/noref.tsv"
"$judge" --dry-run -r sketchjudge "$tmp/noref.tsv" >/dev/null 2>"$tmp/err"
check "withref without a reference: exit 2" [ $? = 2 ]
check "  ... saying so" grep -q "item q2: field 'reference' is required (empty)" "$tmp/err"
"$judge" --dry-run -r sketchjudge --mode noref "$tmp/noref.tsv" >/dev/null 2>&1
check "  ... noref needs none" [ $? = 0 ]
printf 'item\tdomain\tquestion\tquestion_diagram\treference\tsketch\nq3\tbiology\tq\t\twhite.png\tgray.png\n' >"$tmp/dom.tsv"
"$judge" --dry-run -r sketchjudge "$tmp/dom.tsv" >/dev/null 2>"$tmp/err"
check "a domain of no taxonomy: exit 2" [ $? = 2 ]

# ---------------------------------------------------------------- MathExplain as its paper defines it
# (tests/judge/paper/mathexplain-prompts.txt: Sec. 5.1, 5.2, Figures 9 and 10)
# 1. the explanation rubric: Figure 9's four criteria and scales, its two
#    texts (reference, then the model's), its prompt
"$judge" --describe -r mathexplain-explanation >"$tmp/desc"
check "mathexplain-explanation: rows correctness fidelity referencing mathematical-accuracy" \
    [ "$(grep '^  row ' "$tmp/desc" | awk '{ printf "%s ", $2 }')" = "correctness fidelity referencing mathematical-accuracy " ]
check "  ... scales 1-5 (Table 4) and 0/1 (Figure 9)" \
    [ "$(grep '^  scale ' "$tmp/desc" | awk '{ printf "%s ", $3 }')" = "1..5 1..5 1..5 0..1 " ]
check "  ... the paper says 1-5 and 1 or 0" grep -q 'rated on a 1–5 Likert scale' tests/judge/paper/mathexplain-prompts.txt
check "  ... inputs: reference and explanation only" \
    [ "$(grep '^  field ' "$tmp/desc" | awk '{ printf "%s ", $2 }')" = "reference explanation " ]
sed -n '/^# ==== Figure 9/,/^Output Format/p' tests/judge/paper/mathexplain-prompts.txt | grep -v '^#' |
    grep -v '^—*$' | grep -v '^Output Format' >"$tmp/fig9"
"$judge" --dry-run -r mathexplain-explanation $data/mx.tsv | head -1 |
    python3 -c 'import json, sys; m = json.load(sys.stdin)["messages"]; print("".join(p.get("text", "") for x in m for p in (x["content"] if isinstance(x["content"], list) else [{"text": x["content"]}])))' >"$tmp/mxreq"
missing=$(while IFS= read -r l; do grep -qF -- "$l" "$tmp/mxreq" || echo "$l"; done <"$tmp/fig9" | head -1)
check "  ... every line of Figure 9's criteria in the request ($missing)" [ -z "$missing" ]
check "  ... ($(wc -l <"$tmp/fig9") lines)" [ "$(wc -l <"$tmp/fig9")" -gt 20 ]
rm -f "$tmp/cap"
start_server --capture "$tmp/cap"
J --no-cache -r mathexplain-explanation $data/mx.tsv >"$tmp/out"; st=$?
check "  ... exit 0" [ $st = 0 ]
python3 -c '
import json, sys
for line in open(sys.argv[1]):
    t = "".join(p.get("text", "") for m in json.loads(line)["messages"] for p in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}]))
    r, e = t.index("Reference explanation:\n"), t.index("AI-generated explanation:\n")
    ref = open(sys.argv[2] + "/mx-ref.txt").read()
    print("ok" if r < e and t.index(ref) > r and t.index(ref) < e and "image_url" not in line else "bad")
' "$tmp/cap" "$data" >"$tmp/chk"
check "  ... each request: the reference, then the model's explanation, no image" [ "$(sort -u "$tmp/chk")" = ok ]
check "  ... answers as rows" grep -q '^x2	fidelity	fake-1	3	fake$' "$tmp/out"
check "  ... mathematical accuracy 0 or 1" grep -q '^x2	mathematical-accuracy	fake-1	0	fake$' "$tmp/out"
# 2. element matching: Figure 10's inputs (Reference JSON, then AI-Generated
#    JSON, as {element, description} arrays parsed from the files), its
#    answer (an array of {Reference, Generated|null}), Eq. 1 on its matches
"$judge" --describe -r mathexplain-keypoints >"$tmp/desc"
check "mathexplain-keypoints: inputs are keypoints" [ "$(grep -c '^  field [a-z]* *keypoints required$' "$tmp/desc")" = 2 ]
sed -n '/^# ==== Figure 10/,/^If there is no meaningful/p' tests/judge/paper/mathexplain-prompts.txt |
    grep -v '^#' | grep -v '^ *$' | grep -v '^```$' | grep -v '^"json$' | grep -v '^"$' >"$tmp/fig10"
"$judge" --dry-run -r mathexplain-keypoints $data/kp.tsv >"$tmp/kpreq"
missing=$(while IFS= read -r l; do grep -qF -- "$(printf '%s' "$l" | sed 's/"/\\"/g')" "$tmp/kpreq" || echo "$l"; done <"$tmp/fig10" | head -1)
check "  ... every line of Figure 10 in the request ($missing)" [ -z "$missing" ]
J --no-cache -r mathexplain-keypoints $data/kp.tsv >"$tmp/out"; st=$?
check "  ... exit 0" [ $st = 0 ]
python3 -c '
import json, sys
b = json.loads(open(sys.argv[1]).readlines()[-1])
t = "".join(p.get("text", "") for m in b["messages"] for p in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}]))
r, g = t.index("Reference JSON\n\n["), t.index("AI-Generated JSON\n\n[")
ref = json.loads(t[r + len("Reference JSON\n\n"):g])
gen = json.loads(t[g + len("AI-Generated JSON\n\n"):].split("\n]\n")[0] + "\n]")
print(r < g, [x["element"] for x in ref], [x["element"] for x in gen], sorted(ref[0]))
' "$tmp/cap" >"$tmp/chk"
check "  ... the request: Reference JSON, then AI-Generated JSON, parsed ($(cat "$tmp/chk"))" \
    [ "$(cat "$tmp/chk")" = "True ['Line AE', 'Line BE', 'Line CE', 'Line DE'] ['Line AE', 'Segment BE', 'Point A', 'Ray AD', 'Line CE'] ['description', 'element']" ]
# Eq. 1 by hand: VK^GT = 4 (AE, BE, CE, DE), VK^Model = 5 (from a fenced
# block in prose). The model matches AE = Line AE, BE = "segment be" (Segment
# BE), CE = Line AE again (one reference element to one AI element: not
# counted), DE = null. |VK^Match| = 2: EM_P = 2/5 = 0.4, EM_R = 2/4 = 0.5,
# EM_F1 = 2 * 0.4 * 0.5 / 0.9 = 0.444.
check "  ... |VK^Match| = 2, the pairs noted" grep -q '^k1	keypoints-matched	fake-1	2	Line AE = Line AE; Line BE = Segment BE; Line CE = Line AE (taken already)$' "$tmp/out"
check "  ... |VK^Model| = 5" grep -q '^k1	keypoints-predicted	fake-1	5	$' "$tmp/out"
check "  ... |VK^GT| = 4" grep -q '^k1	keypoints-reference	fake-1	4	$' "$tmp/out"
check "  ... EM_P = 0.4" grep -q '^k1	keypoints-precision	fake-1	0.4	$' "$tmp/out"
check "  ... EM_R = 0.5" grep -q '^k1	keypoints-recall	fake-1	0.5	$' "$tmp/out"
check "  ... EM_F1 = 0.444" grep -q '^k1	keypoints-f1	fake-1	0.444	$' "$tmp/out"
# answers that break Figure 10's schema are repaired, then failed
mkkp() {  # mkkp NAME ANSWER-JSON: an item whose model answers ANSWER-JSON
    cp $data/kp-ref.json "$tmp/"
    printf '[{"element": "Line AE", "description": "x FAKE[answer=b64;b64=%s]"}]\n' \
        "$(printf '%s' "$2" | base64 | tr -d '\n')" >"$tmp/$1.json"
    printf 'item\treference\tpredicted\n%s\tkp-ref.json\t%s.json\n' "$1" "$1" >"$tmp/$1.tsv"
}
mkkp short '[{"Reference": "Line AE", "Generated": "Line AE"}]'
J -r mathexplain-keypoints "$tmp/short.tsv" >"$tmp/out" 2>/dev/null
check "  ... a reference element without an entry: failed" grep -q '^# failed	short	fake-1	.*no entry for the reference element "Line BE"' "$tmp/out"
mkkp ghost '[{"Reference": "Line AE", "Generated": "Line ZZ"}, {"Reference": "Line BE", "Generated": null}, {"Reference": "Line CE", "Generated": null}, {"Reference": "Line DE", "Generated": null}]'
J -r mathexplain-keypoints "$tmp/ghost.tsv" >"$tmp/out" 2>/dev/null
check "  ... a generated element that is none: failed" grep -q '^# failed	ghost	fake-1	.*"Line ZZ" is no element of the generated keypoints' "$tmp/out"
printf 'item\treference\tpredicted\nb1\tkp-ref.json\texpl.txt\n' >"$tmp/badkp.tsv"
"$judge" --dry-run -r mathexplain-keypoints "$tmp/badkp.tsv" >/dev/null 2>"$tmp/err"
check "  ... keypoints that are no JSON: exit 2 at file:line:col" grep -q "badkp.tsv:2:1: error: item b1: predicted: .*expl.txt: no keypoints JSON" "$tmp/err"

# 3. Figure 8's parsing step (mathexplain-parse): the model's raw output for
#    the keypoint task, after "Input:", turned into {element, description}
#    pairs, one keypoint row each; the rows feed the matching step
"$judge" --describe -r mathexplain-parse >"$tmp/desc"
check "mathexplain-parse: one input, the model's output" \
    [ "$(grep '^  field ' "$tmp/desc" | awk '{ printf "%s %s ", $2, $3 }')" = "output file " ]
check "  ... rows keypoint" [ "$(grep '^  row ' "$tmp/desc" | awk '{ printf "%s ", $2 }')" = "keypoint " ]
sed -n '/^# ==== Figure 8/,/^# ==== end/p' tests/judge/paper/mathexplain-prompts.txt |
    grep -v '^#' | grep -v '^ *$' | grep -v '^```$' | grep -v '^"json$' >"$tmp/fig8"
"$judge" --dry-run -r mathexplain-parse $data/kp-parse.tsv >"$tmp/kpreq"
missing=$(while IFS= read -r l; do grep -qF -- "$(printf '%s' "$l" | sed 's/\\/\\\\/g; s/"/\\"/g')" "$tmp/kpreq" || echo "$l"; done <"$tmp/fig8" | head -1)
check "  ... every line of Figure 8 in the request ($missing)" [ -z "$missing" ]
check "  ... ($(wc -l <"$tmp/fig8") lines)" [ "$(wc -l <"$tmp/fig8")" -gt 60 ]
python3 -c '
import json, sys
t = json.loads(open(sys.argv[1]).readline())["messages"][-1]["content"]
raw = open(sys.argv[2]).read().rstrip("\n")
i = t.index("Input:\n\n```\n")
print("ok" if t[i + 12:].startswith(raw) and t.index("Your Task:") < i else "bad")
' "$tmp/kpreq" $data/kp-raw.txt >"$tmp/chk"
check "  ... the model's output in the fence after Input:, last" [ "$(cat "$tmp/chk")" = ok ]
J --no-cache -r mathexplain-parse $data/kp-parse.tsv >"$tmp/parsed"; st=$?
check "  ... exit 0" [ $st = 0 ]
check "  ... a keypoint row per pair, the description its note" \
    [ "$(grep -c '^k1	keypoint	fake-1	' "$tmp/parsed")" = 2 ]
check "  ... Line AE" grep -q '^k1	keypoint	fake-1	Line AE	A line from A to E$' "$tmp/parsed"
check "  ... Right angle mark 1" grep -q '^k1	keypoint	fake-1	Right angle mark 1	Angle AEB is a right angle$' "$tmp/parsed"
# the parsed table is the predicted keypoints of the matching step
cp $data/kp-ref.json "$tmp/"
printf 'item\treference\tpredicted\nk1\tkp-ref.json\tparsed\n' >"$tmp/chain.tsv"
"$judge" --dry-run -r mathexplain-keypoints "$tmp/chain.tsv" >"$tmp/chainreq" 2>"$tmp/err"
check "  ... feeds mathexplain-keypoints: exit 0" [ $? = 0 ]
python3 -c '
import json, sys
t = "".join(p.get("text", "") for m in json.loads(open(sys.argv[1]).readline())["messages"] for p in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}]))
g = t.index("AI-Generated JSON\n\n")
print([x["element"] for x in json.loads(t[g + len("AI-Generated JSON\n\n"):].split("\n]\n")[0] + "\n]")])
' "$tmp/chainreq" >"$tmp/chk"
check "  ... as the AI-Generated JSON ($(cat "$tmp/chk"))" [ "$(cat "$tmp/chk")" = "['Line AE', 'Right angle mark 1']" ]
printf 'item\treference\tpredicted\nk9\tkp-ref.json\tparsed\n' >"$tmp/chain9.tsv"
"$judge" --dry-run -r mathexplain-keypoints "$tmp/chain9.tsv" >/dev/null 2>"$tmp/err"
check "  ... an item the table lacks: exit 2, saying so" grep -q "no keypoint row of item k9" "$tmp/err"
# answers that break Figure 8's requirements: repaired, then failed
mkraw() {  # mkraw NAME ANSWER: an item whose parsing model answers ANSWER
    printf 'text FAKE[answer=b64;b64=%s]\n' "$(printf '%s' "$2" | base64 | tr -d '\n')" >"$tmp/$1.txt"
    printf 'item\toutput\n%s\t%s.txt\n' "$1" "$1" >"$tmp/$1.tsv"
}
mkraw dupel '[{"element": "Line AE", "description": "a"}, {"element": "line  AE", "description": "b"}]'
J -r mathexplain-parse "$tmp/dupel.tsv" >"$tmp/out" 2>/dev/null
check "  ... the same element twice: failed" grep -q '^# failed	dupel	fake-1	.*no two items may refer to the same element: "line  AE" is items 1 and 2' "$tmp/out"
mkraw threekeys '[{"element": "Line AE", "description": "a", "note": "c"}]'
J -r mathexplain-parse "$tmp/threekeys.tsv" >"$tmp/out" 2>/dev/null
check "  ... a third key: failed" grep -q '^# failed	threekeys	fake-1	.*exactly two keys' "$tmp/out"
mkraw empty '[]'
J -r mathexplain-parse "$tmp/empty.tsv" >"$tmp/out" 2>/dev/null
check "  ... no keypoints: one row none" grep -q '^empty	keypoint	fake-1	none	$' "$tmp/out"

# ---------------------------------------------------------------- DiagramEval's LLM steps
# every instruction line of the paper's Listings 3 and 4 is in svg2graph's
# prompts (Listing 4's {diagram_type} as "block")
for l in 3:nodes 4:edges; do
    sed -n "/^# ==== Listing ${l%%:*}/,/^# ====/p" tests/judge/paper/diagrameval-prompts.txt | grep -v '^#' |
        sed 's/{diagram_type}/block/' >"$tmp/listing"
    missing=$(while IFS= read -r x; do grep -qF -- "$x" "llm/rubrics/svg2graph-${l#*:}.prompt" || echo "$x"; done <"$tmp/listing" | head -1)
    check "svg2graph-${l#*:}.prompt has Listing ${l%%:*}'s $(wc -l <"$tmp/listing") lines ($missing)" [ -z "$missing" ]
done
check "  ... the three removal policies, and no other" [ "$(grep -c '^[abc]) .*Remove nodes' llm/rubrics/svg2graph-nodes.prompt)" = 3 ]
check "  ... no removal of titles, captions or legends of our own" [ "$(grep -ci 'caption, legend' llm/rubrics/svg2graph-nodes.prompt)" = 0 ]

# ---------------------------------------------------------------- faults
mk() {  # mk FILE ITEM MARKER...: a geom code-mode manifest
    f=$1; shift
    printf 'item\tcode\tquestion\n' >"$f"
    while [ $# -ge 2 ]; do
        printf '%s\t%s\tFAKE[%s]\n' "$1" "$tmp/tri.tex" "$2" >>"$f"
        shift 2
    done
}
start_server
mk "$tmp/f1.tsv" r1 'faults=429,500' r2 'faults=503,drop' r3 'faults=trunc,badjson' r4 'faults=slow'
t0=$(date +%s)
J --mode code --backoff 0.05 --timeout 5 "$tmp/f1.tsv" >"$tmp/out"; st=$?
t1=$(date +%s)
check "transient faults: exit 0" [ $st = 0 ]
check "transient faults: all 24 rows" [ "$(grep -c 'fake-1' "$tmp/out")" = 24 ]
check "transient faults: 3+3+3+1 requests" [ "$(nreq)" = 10 ]
check "Retry-After: 1 honoured" [ $((t1 - t0)) -ge 1 ]

start_server
mk "$tmp/f2.tsv" c1 'faults=500,500,500,500,500,500' c2 'faults=stall' c3 'faults=huge'
J --mode code --backoff 0.01 --retries 3 --timeout 1 "$tmp/f2.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "failures: exit 1" [ $st = 1 ]
check "attempt cap: c1 asked 3 times" [ "$(grep -c '	500	' "$tmp/req.log")" = 3 ]
check "attempt cap: recorded failure" grep -q '^# failed	c1	fake-1	HTTP 500: server trouble (gave up after 3 attempts)$' "$tmp/out"
check "attempt cap: diagnostic" grep -q "f2.tsv:2:1: error: item c1: HTTP 500" "$tmp/err"
check "timeout: retried and answered" grep -q '^c2	in-frame	fake-1	yes' "$tmp/out"
check "endless body: failed, not retried" grep -q '^# failed	c3	fake-1	response larger than' "$tmp/out"
check "endless body: one request" [ "$(grep -c '	huge	' "$tmp/req.log")" = 1 ]
J --mode code --fail-value na --backoff 0.01 --retries 2 --timeout 1 "$tmp/f2.tsv" >"$tmp/out" 2>/dev/null
check "--fail-value: rows" grep -q '^c1	no-overlap	fake-1	na	failed: HTTP 500' "$tmp/out"

# An answer that comes after --timeout is used, not thrown away and asked
# for again (issue #20 item 6). The server answers the first attempt after
# 2 s; --timeout is 1 s. With -j 1 the overdue attempt keeps the only slot,
# so its retry waits, and the late answer comes first: the prompt is sent
# once and answered once (the old client cut it at 1 s and asked again:
# two answers). Counts only, no timing: the answer comes 29 s before --grace
# would end the wait.
start_server --answers "$tmp/answers"
mk "$tmp/late.tsv" l1 'faults=late;late=2'
J --mode code --no-cache --backoff 0.01 --timeout 1 --grace 30 -j 1 --log "$tmp/late.jsonl" \
    "$tmp/late.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "late answer: exit 0" [ $st = 0 ]
check "  ... all 6 rows" [ "$(grep -c '^l1	.*	fake-1	yes	' "$tmp/out")" = 6 ]
check "  ... one request" [ "$(nreq)" = 1 ]
check "  ... answered once" [ "$(wc -l <"$tmp/answers")" = 1 ]
check "  ... the log: attempt 1 overdue, its answer used" \
    grep -q '"tag":"l1",.*"attempt":1,"retry":false,"status":"ok","http":200,.*"overdue":true,"used":true}$' "$tmp/late.jsonl"
check "  ... one attempt line" [ "$(grep -c '"type":"attempt"' "$tmp/late.jsonl")" = 1 ]
check "  ... the call: 1 attempt" grep -q '"type":"call",.*"tag":"l1",.*"status":"ok",.*"attempts":1,' "$tmp/late.jsonl"
# the same with the retry out: the first attempt answers after 2 s, the
# retry (sent at 1 s, a free slot) after 3 s; the first answer is used and
# the retry cancelled, both in the log
start_server
mk "$tmp/late2.tsv" l2 'faults=late,late;late=2'
"$judge" --base-url "$url" --model fake-1 --no-progress --mode code --no-cache --backoff 0.01 \
    --timeout 1 --grace 30 -j 2 --log "$tmp/late2.jsonl" "$tmp/late2.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "late answer, retry out: exit 0" [ $st = 0 ]
check "  ... two requests" [ "$(nreq)" = 2 ]
check "  ... the log: attempt 1 overdue, its answer used" \
    grep -q '"tag":"l2",.*"attempt":1,"retry":false,"status":"ok","http":200,.*"overdue":true,"used":true}$' "$tmp/late2.jsonl"
check "  ... attempt 2, a retry for the timeout, cancelled" \
    grep -q '"tag":"l2",.*"attempt":2,"retry":true,"why":"timeout","status":"cancelled",.*"used":false}$' "$tmp/late2.jsonl"
check "  ... the call: 2 attempts, ok" grep -q '"type":"call",.*"tag":"l2",.*"status":"ok",.*"attempts":2,' "$tmp/late2.jsonl"
check "  ... the summary counts them" grep -q '^judge: calls: 1 (1 sent, 1 retried, 0 from cache);.*; late answers used 1, attempts cancelled 1$' "$tmp/err"
# and the other way: the first attempt stalls (5 s), the retry answers, the
# stalled one is cancelled
mk "$tmp/late3.tsv" l3 'faults=stall'
J --mode code --no-cache --backoff 0.01 --timeout 1 --grace 30 -j 2 --log "$tmp/late3.jsonl" \
    "$tmp/late3.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "stalled attempt, retry answers: exit 0" [ $st = 0 ]
check "  ... the log: attempt 1 overdue, cancelled" \
    grep -q '"tag":"l3",.*"attempt":1,"retry":false,"status":"cancelled",.*"overdue":true,"used":false}$' "$tmp/late3.jsonl"
check "  ... attempt 2, a retry for the timeout, used" \
    grep -q '"tag":"l3",.*"attempt":2,"retry":true,"why":"timeout","status":"ok","http":200,.*"used":true}$' "$tmp/late3.jsonl"
# --grace 0 is the old client: the attempt is cut at --timeout, the retry
# answers, the late answer is thrown away (and the server answers twice)
start_server --answers "$tmp/answers0"
J --mode code --no-cache --backoff 0.01 --timeout 1 --grace 0 -j 1 --log "$tmp/late0.jsonl" \
    "$tmp/late.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "--grace 0: exit 0" [ $st = 0 ]
check "  ... two requests" [ "$(nreq)" = 2 ]
check "  ... attempt 1 timed out, not used" \
    grep -q '"tag":"l1",.*"attempt":1,"retry":false,"status":"timeout","http":0,.*"used":false,"error":"timed out after 1s"}$' "$tmp/late0.jsonl"
check "  ... attempt 2 used" grep -q '"tag":"l1",.*"attempt":2,"retry":true,"why":"timeout","status":"ok",.*"used":true}$' "$tmp/late0.jsonl"
i=0
while [ "$(wc -l <"$tmp/answers0")" -lt 2 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
check "  ... the server answered the prompt twice" [ "$(wc -l <"$tmp/answers0")" = 2 ]
# every failed attempt of a call is in the log, with why the next was made
start_server
mk "$tmp/why.tsv" w1 'faults=429,503,drop'
J --mode code --no-cache --backoff 0.01 --log "$tmp/why.jsonl" "$tmp/why.tsv" >/dev/null 2>&1
check "every attempt logged: 429, 503, network, ok" \
    [ "$(sed -n 's/.*"attempt":\([0-9]\),"retry":[a-z]*,\("why":"\([^"]*\)",\)\{0,1\}"status":"\([a-z]*\)","http":\([0-9]*\),.*"used":\([a-z]*\).*/\1 \3 \4 \5 \6/p' "$tmp/why.jsonl" | tr '\n' ,)" = \
      "1  http 429 false,2 429 http 503 false,3 503 net 0 false,4 network ok 200 true," ]

# malformed answers: fenced JSON is fine; prose and schema breaks get one repair
start_server
mk "$tmp/f3.tsv" m1 'answer=fenced' m2 'answer=prose' m3 'answer=schema' m4 'answer=repairok'
J --mode code "$tmp/f3.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "malformed: exit 1" [ $st = 1 ]
check "fenced answer accepted" grep -q '^m1	angle-labels	fake-1	yes' "$tmp/out"
check "prose: recorded after repair" grep -q '^# failed	m2	fake-1	unusable answer after a repair request: the answer has no JSON object' "$tmp/out"
check "schema break: recorded" grep -q '^# failed	m3	fake-1	unusable answer after a repair request: the answer has no key "angle-labels"' "$tmp/out"
check "repair request answered" grep -q '^m4	no-overlap	fake-1	yes' "$tmp/out"
check "malformed: 1 + 2 + 2 + 2 requests" [ "$(nreq)" = 7 ]
check "no guessed rows for failed items" [ "$(grep -c '^m[23]	' "$tmp/out")" = 0 ]
# the cache keeps only answers that passed the rubric's check: the rerun asks
# m2 and m3 again (request and repair, 2 + 2), and m4's first request (its
# repair's answer is valid, cached); m1 comes from the cache
J --mode code "$tmp/f3.tsv" >"$tmp/out2" 2>/dev/null
check "invalid answers are not cached: the rerun sends 2 + 2 + 1 ($(nreq) - 7)" [ "$(nreq)" = 12 ]
check "  ... valid answers are: m1's request is not sent again" \
    [ "$(awk -F'\t' '{ n[$1]++ } END { for (k in n) if (n[k] > 1) c++; print c + 0 }' "$tmp/req.log")" = 5 ]
check "  ... same output" cmp -s "$tmp/out" "$tmp/out2"
check "  ... the cache holds only valid answers (m1, m4's repair)" \
    [ "$(find "$tmp/cache" -newer "$tmp/f3.tsv" -name '*.json' | wc -l)" = 2 ]

# garbage for one item, then the server is fixed: the next run re-asks that
# item alone (the server's request count proves it); --refresh re-asks all
start_server --broken "$tmp/broken"
mk "$tmp/fl.tsv" g1 'answer=good;n=1' g2 'answer=good;n=2' g3 'flaky=1' g4 'answer=fenced;n=4'
: >"$tmp/broken"
J --mode code --log "$tmp/fl1.jsonl" "$tmp/fl.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "garbage for one item: exit 1" [ $st = 1 ]
check "  ... the item failed" grep -q '^# failed	g3	fake-1	unusable answer after a repair request: the answer has no JSON object$' "$tmp/out"
check "  ... 3 + 2 requests" [ "$(nreq)" = 5 ]
check "  ... the log says why each answer was not kept" \
    [ "$(grep -c '"type":"call",.*"tag":"g3",.*"status":"invalid",.*"error":"the answer has no JSON object"' "$tmp/fl1.jsonl")" = 2 ]
"$judge" --base-url "$url" --model fake-1 --cache-dir "$tmp/cache" --mode code "$tmp/fl.tsv" >/dev/null 2>"$tmp/err"
check "  ... the summary counts items: 3 answered (3 from cache), 1 failed" \
    grep -q '^judge: items: 3 answered (3 from cache), 1 failed$' "$tmp/err"
check "  ... and calls: 3 from cache, 2 sent and invalid" \
    grep -q '^judge: calls: 5 (2 sent, 0 retried, 3 from cache); 3 answered, 2 invalid, 0 failed; 2 HTTP requests;' "$tmp/err"
check "  ... (two runs: 5 + 2 requests)" [ "$(nreq)" = 7 ]
rm -f "$tmp/broken"
before=$(nreq)
J --mode code "$tmp/fl.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "fixed server: exit 0" [ $st = 0 ]
check "  ... exactly one request, for the item that failed" [ "$(($(nreq) - before))" = 1 ]
last=$(tail -n 1 "$tmp/req.log" | cut -f 1)
check "  ... and it is that item's (asked in each of the 3 runs)" \
    [ "$(awk -F'\t' -v k="$last" '$1 == k' "$tmp/req.log" | wc -l | tr -d ' ')" = 3 ]
check "  ... its rows are there" [ "$(grep -c '^g3	[a-z-]*	fake-1	' "$tmp/out")" = 6 ]
before=$(nreq)
J --mode code "$tmp/fl.tsv" >"$tmp/out2" 2>/dev/null
check "  ... a third run sends nothing" [ "$(nreq)" = "$before" ]
J --mode code --refresh "$tmp/fl.tsv" >"$tmp/out3" 2>/dev/null
check "--refresh re-asks every item" [ "$(($(nreq) - before))" = 4 ]
check "  ... same output" cmp -s "$tmp/out" "$tmp/out3"
before=$(nreq)
J --mode code "$tmp/fl.tsv" >/dev/null 2>&1
check "  ... and still wrote the cache" [ "$(nreq)" = "$before" ]
# a cache written by an older version holds an invalid answer: it is not
# served, but removed and asked again
badkey=$(sed -n 's/.*"type":"call",.*"tag":"g3",.*"key":"\([0-9a-f]*\)",.*/\1/p' "$tmp/fl1.jsonl" | head -n 1)
g3file=$tmp/cache/$(echo "$badkey" | cut -c1-2)/$badkey.json
check "  (g3's cache entry is there)" [ -f "$g3file" ]
printf '{"choices":[{"message":{"role":"assistant","content":"no JSON here"},"finish_reason":"stop"}]}' >"$g3file"
before=$(nreq)
J --mode code --log "$tmp/fl3.jsonl" "$tmp/fl.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "an invalid answer in an old cache: not served (exit $st)" [ $st = 0 ]
check "  ... asked again: one request" [ "$(($(nreq) - before))" = 1 ]
check "  ... the log says why" grep -q '"type":"cache",.*"tag":"g3",.*"status":"rejected","error":"the answer has no JSON object"' "$tmp/fl3.jsonl"
check "  ... the entry now holds the valid answer" grep -q 'angle-labels' "$g3file"

# Table 1 of the DiagramIR paper: in-frame, readable-size and no-overlap are
# yes or no; an "na" there is no answer
mk "$tmp/f4.tsv" v1 'value=na' v2 'value=no'
J --mode code "$tmp/f4.tsv" >"$tmp/out" 2>"$tmp/err"
check "geom: na for in-frame is refused" grep -q '^# failed	v1	fake-1	unusable answer after a repair request: .*in-frame' "$tmp/out"
check "geom: no for every criterion is an answer" [ "$(grep -c '^v2	[a-z-]*	fake-1	no	' "$tmp/out")" = 6 ]

# the key: sent, but never in errors, logs or the cache
start_server
mk "$tmp/f4.tsv" k1 'faults=401' k2 ''
printf 'sk-test-SECRET-0123456789\n' >"$tmp/key"
"$judge" --base-url "$url" --model fake-1 --cache-dir "$tmp/kcache" --api-key-file "$tmp/key" \
    --log "$tmp/klog" --mode code "$tmp/f4.tsv" >"$tmp/out" 2>"$tmp/err"
check "401 is not retried" [ "$(grep -c '	401	' "$tmp/req.log")" = 1 ]
check "the key is sent" grep -q '	yes$' "$tmp/req.log"
check "key not in stdout" [ "$(grep -c SECRET "$tmp/out")" = 0 ]
check "key not in stderr" [ "$(grep -c SECRET "$tmp/err")" = 0 ]
check "key not in the log" [ "$(grep -c SECRET "$tmp/klog")" = 0 ]
check "key not in the cache" [ -z "$(grep -rl SECRET "$tmp/kcache")" ]
check "the error says 401" grep -q '^# failed	k1	fake-1	HTTP 401' "$tmp/out"
OPENAI_API_KEY=sk-env-SECRET-42 "$judge" --base-url "$url" --model fake-1 --no-cache \
    --mode code "$tmp/f4.tsv" >"$tmp/out" 2>"$tmp/err"
check "env key not in output" [ "$(cat "$tmp/out" "$tmp/err" | grep -c SECRET)" = 0 ]

# connection refused: retried up to the cap, then recorded
fakellm_stop  # writes the max concurrency seen to $tmp/stats
"$judge" --base-url "$url" --model fake-1 --no-cache -q --backoff 0.01 --retries 2 \
    --mode code "$tmp/f4.tsv" >"$tmp/out" 2>/dev/null
check "connection refused: recorded" [ "$(grep -c '^# failed	k[12]	fake-1	.*gave up after 2 attempts' "$tmp/out")" = 2 ]

# ---------------------------------------------------------------- scale
# The issue's bar: 1,000 items against the fake server with 30% injected
# faults (429 with retry-after-ms, 500, 503, stalls past the timeout, dropped
# connections, truncated bodies, invalid JSON), -j 32, at most 3 attempts a
# request. Every count below is the server's (its log: one line per request
# it received, "key attempt behaviour auth", key = the messages' hash).
gen() {  # gen FILE N PREFIX
    printf 'item\tcode\tquestion\n' >"$1"
    awk -v n="$2" -v p="$3" -v f="$tmp/tri.tex" \
        'BEGIN { for (i = 1; i <= n; i++) printf "%s%d\t%s\tquestion %d\n", p, i, f, i }' >>"$1"
}
# jlog FILE: "tag status cached attempts" for each complete line of a --log file
jlog() {
    sed -n 's/.*"tag":"\([^"]*\)".*"status":"\([a-z]*\)","cached":\([a-z]*\),.*"attempts":\([0-9]*\),.*/\1 \2 \3 \4/p' "$1"
}
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }  # between N LO HI
# accounted OUT N PREFIX: every item PREFIX1..PREFIXN is in OUT exactly once,
# as 6 rows or as one "# failed" line with a reason, in manifest order
accounted() {
    awk -F'\t' -v n="$2" -v p="$3" '
        NR == 1 { next }
        $1 == "# failed" { if ($2 in seen || $4 == "") bad++; seen[$2] = 1; order[++k] = $2; next }
        { if (!($1 in rows)) order[++k] = $1; rows[$1]++; if ($1 in seen) bad++ }
        END {
            for (r in rows) if (rows[r] != 6) bad++
            for (i = 1; i <= n; i++) if (order[i] != p i) bad++
            exit !(bad == 0 && k == n)
        }' "$1"
}
N=1000
gen "$tmp/big.tsv" $N b
start_server --fault-rate 0.3 --seed 7
"$judge" --base-url "$url" --model fake-1 --cache-dir "$tmp/bcache" -q --mode code -j 32 \
    --backoff 0.01 --timeout 1 --retries 3 --log "$tmp/big.jsonl" \
    "$tmp/big.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
fakellm_stop
n=$(nreq)
nfault=$(awk -F'\t' '$3 != "ok"' "$tmp/req.log" | wc -l | tr -d ' ')
maxatt=$(awk -F'\t' '$2 > m { m = $2 } END { print m + 0 }' "$tmp/req.log")
keys=$(cut -f1 "$tmp/req.log" | sort -u | wc -l | tr -d ' ')
okkeys=$(awk -F'\t' '$3 == "ok" { print $1 }' "$tmp/req.log" | sort -u | wc -l | tr -d ' ')
# keys never answered, and how many requests each got
nokeys=$(awk -F'\t' '{ c[$1]++ } $3 == "ok" { ok[$1] = 1 } END { for (k in c) if (!(k in ok)) print c[k] }' "$tmp/req.log")
nfailed=$(grep -c '^# failed	' "$tmp/out")
ncomplete=$(awk -F'\t' 'NR > 1 && $1 !~ /^#/ { print $1 }' "$tmp/out" | sort -u | wc -l | tr -d ' ')
check "$N items, 30% faults: exit 1 (some items failed) ($st)" [ $st = 1 ]
check "  ... every item: 6 rows or one '# failed' line, in manifest order" accounted "$tmp/out" $N b
check "  ... every item was asked ($keys keys)" [ "$keys" = $N ]
check "  ... faults on 20-40% of the requests ($nfault of $n)" \
    awk -v f="$nfault" -v n="$n" 'BEGIN { exit !(f >= 0.2 * n && f <= 0.4 * n) }'
check "  ... no request sent more than 3 times (server saw at most $maxatt)" [ "$maxatt" -le 3 ]
check "  ... $n requests, within 3 x $N" [ "$n" -le $((3 * N)) ]
check "  ... every answered item completed ($okkeys answered, $ncomplete completed)" [ "$okkeys" = "$ncomplete" ]
check "  ... every unanswered item recorded as failed ($nfailed of $((N - okkeys)))" \
    [ "$nfailed" = $((N - okkeys)) ]
check "  ... (some did fail)" [ "$nfailed" -gt 0 ]
check "  ... failed items were asked exactly 3 times (no early give-up)" \
    [ -z "$(echo "$nokeys" | grep -v '^3$' | grep .)" ]
check "  ... each failure says why and that it gave up after 3 attempts" \
    [ "$(grep -c '^# failed	b[0-9]*	fake-1	[^	].* (gave up after 3 attempts)$' "$tmp/out")" = "$nfailed" ]
check "  ... and a diagnostic on stderr for each" \
    [ "$(grep -c 'big.tsv:[0-9]*:1: error: item b[0-9]*: ' "$tmp/err")" = "$nfailed" ]
lsum=$(jlog "$tmp/big.jsonl" | awk '{ s += $4 } END { print s + 0 }')
check "  ... judge's log counts the server's requests ($lsum = $n)" [ "$lsum" = "$n" ]

# -j bounds the requests in flight (no faults here: the server counts a
# stalled request as active until it wakes, after judge has given up on it)
gen "$tmp/conc.tsv" 200 c
start_server --delay 0.01
J --mode code -j 32 --no-cache "$tmp/conc.tsv" >/dev/null 2>&1; st=$?
fakellm_stop
m=$(cat "$tmp/stats")
check "-j 32: exit 0" [ $st = 0 ]
check "-j 32: 200 requests" [ "$(nreq)" = 200 ]
check "-j 32: concurrent requests 2..32 (saw $m)" between "$m" 2 32

# Killed run: the same 1,000 items and faults, SIGKILL about halfway, then the
# same command again. Nothing that was answered and stored is asked again.
gen "$tmp/kill.tsv" $N k
start_server --fault-rate 0.3 --seed 8
# (judge itself in the background, not a shell function: $! must be judge)
"$judge" --base-url "$url" --model fake-1 --cache-dir "$tmp/killcache" -q --mode code -j 32 \
    --backoff 0.01 --timeout 1 --retries 3 --log "$tmp/k1.jsonl" "$tmp/kill.tsv" >/dev/null 2>&1 &
jp=$!
i=0
while [ "$(nreq)" -lt 700 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
kill -9 $jp 2>/dev/null
wait $jp 2>/dev/null
# what the killed run had sent reaches the log: wait until it stops growing
first=$(nreq); i=0
while sleep 0.3 && [ "$(nreq)" != "$first" ] && [ $i -lt 20 ]; do first=$(nreq); i=$((i + 1)); done
"$judge" --base-url "$url" --model fake-1 --cache-dir "$tmp/killcache" -q --mode code -j 32 \
    --backoff 0.01 --timeout 1 --retries 3 --log "$tmp/k2.jsonl" "$tmp/kill.tsv" >"$tmp/out" 2>/dev/null
st=$?
fakellm_stop
total=$(nreq)
jlog "$tmp/k1.jsonl" | awk '$2 == "ok" { print $1 }' | sort >"$tmp/k1.ok"
jlog "$tmp/k2.jsonl" >"$tmp/k2.calls"
stored=$(wc -l <"$tmp/k1.ok" | tr -d ' ')
check "killed run: cut about halfway ($stored of $N answered, $first requests)" \
    between "$stored" 100 900
check "  ... re-run: exit 0 or 1 ($st)" [ $st -le 1 ]
check "  ... re-run: every item accounted for, in order" accounted "$tmp/out" $N k
# every item run 1 had answered (and logged, so stored) is a cache hit now
resent=$(awk 'NR == FNR { ok[$1] = 1; next } ($1 in ok) && ($3 != "true" || $4 != 0)' \
    "$tmp/k1.ok" "$tmp/k2.calls" | wc -l | tr -d ' ')
hits=$(awk '$3 == "true"' "$tmp/k2.calls" | wc -l | tr -d ' ')
check "  ... all $stored stored answers came from the cache ($hits hits, $resent re-sent)" \
    [ "$resent" = 0 ]
check "  ... (and were cache hits)" between "$hits" "$stored" $N
# the server's view: answers it gave before the kill that are asked again
# are only those in flight when judge died (at most -j 32)
lost=$(awk -F'\t' -v f="$first" 'NR <= f && $3 == "ok" { ok[$1] = 1 } NR > f && ($1 in ok) && !($1 in again) { again[$1] = 1; n++ } END { print n + 0 }' "$tmp/req.log")
check "  ... answered before the kill and asked again: $lost (in flight, <= 32)" [ "$lost" -le 32 ]
n2=$((total - first))
l2=$(awk '{ s += $4 } END { print s + 0 }' "$tmp/k2.calls")
check "  ... re-run's requests: server $n2 = judge's log $l2" [ "$n2" = "$l2" ]
max2=$(awk -F'\t' -v f="$first" 'NR > f { c[$1]++ } END { for (k in c) if (c[k] > m) m = c[k]; print m + 0 }' "$tmp/req.log")
check "  ... re-run: no request sent more than 3 times ($max2)" [ "$max2" -le 3 ]
asked2=$(awk -F'\t' -v f="$first" 'NR > f { print $1 }' "$tmp/req.log" | sort -u | wc -l | tr -d ' ')
check "  ... re-run asked only what had no stored answer ($asked2 <= $N - $stored)" \
    [ "$asked2" -le $((N - stored)) ]
done2=$(awk -F'\t' 'NR > 1 && $1 !~ /^#/ { print $1 }' "$tmp/out" | sort -u | wc -l | tr -d ' ')
ncache=$(find "$tmp/killcache" -name '*.json' | wc -l | tr -d ' ')
check "  ... one cache entry per completed item ($ncache = $done2)" [ "$ncache" = "$done2" ]

# RPM limiter: 4 requests at 120/min are 0.5 s apart
gen "$tmp/rpm.tsv" 4 p
start_server
t0=$(date +%s.%N 2>/dev/null || date +%s)
J --mode code --no-cache --rpm 120 -j 4 "$tmp/rpm.tsv" >/dev/null; st=$?
t1=$(date +%s.%N 2>/dev/null || date +%s)
check "rpm: exit 0" [ $st = 0 ]
check "rpm: took >= 1.4 s" awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 1.4) }'
fakellm_stop

printf '%d passed, %d failed\n' "$pass" "$fail"
[ "$fail" = 0 ]
