#!/bin/sh
# tests/svg2graph-llm/run.sh -- svg2graph --llm against the fake
# OpenAI-compatible server (tests/judge/fakellm.py, python3 standard
# library) on 127.0.0.1.
#
#   BUILD=build sh tests/svg2graph-llm/run.sh
#
# pipeline.svg has a placeholder @FAKE@ in a comment; each case puts the
# server's script there (FAKE[answer=b64;b64.nodes=...;b64.edges=...]: the
# answers, base64, to the node and the edge request) and reads the diagram
# from stdin (--id pipeline), so the IR does not depend on temporary paths.
# Cases: valid node operations (merge, remove, add from texts and from a
# box), valid edge operations (add with direction and label, remove), both
# steps (the edge request sees the refined nodes; merged ends are redirected,
# copies dropped), malformed JSON, unknown ids, contradictory operations, a
# repair request that fixes an answer, server errors and timeouts with
# retries, retries exhausted, no server, the cache, --graph-only, --json,
# several files, --dry-run, usage errors. Expected IR: NAME.ir beside this
# script, compared byte for byte; a failed step must leave the geometric
# result byte for byte.
# Exit status: 0 all passed, 1 a test failed, 2 missing build or python3.
. "$(dirname "$0")/../lib.sh"
S2G=$bin/svg2graph
[ -x "$S2G" ] || { echo "svg2graph-llm: $S2G not built" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "svg2graph-llm: python3 is needed for the fake server" >&2; exit 2; }
unset OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MODEL DIAGRAMIR_RUBRICS
# The prompts are found beside an in-tree build (build/bin/../../llm/rubrics);
# a BUILD outside the tree (make check BUILD=/tmp/b) is pointed at them.
case $bin in "$root"/*) ;; *) DIAGRAMIR_RUBRICS=$root/llm/rubrics; export DIAGRAMIR_RUBRICS ;; esac
dir=tests/svg2graph-llm

tmp=$(mktemp -d "${TMPDIR:-/tmp}/svg2graph-llm.XXXXXX") || exit 2
. tests/judge/fakellm.sh
srv_pid=
cleanup() { [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
fail=0
n=0
bad() { echo "FAIL  $*"; fail=1; }
ok() { n=$((n + 1)); }

fakellm_start svg2graph-llm --capture "$tmp/capture.jsonl"
nreq() { wc -l < "$tmp/req.log" | tr -d ' '; }

b64() { printf '%s' "$1" | base64 | tr -d '\n'; }
# svg NAME SCRIPT: $tmp/NAME.svg, pipeline.svg with FAKE[SCRIPT]
svg() { sed "s|@FAKE@|FAKE[$2]|" "$dir/pipeline.svg" > "$tmp/$1.svg"; }
# run NAME [options]: svg2graph on $tmp/NAME.svg (stdin, id pipeline);
# output in $tmp/NAME.out, stderr in $tmp/NAME.err, status in $st.
# --llm-svg-source: the fake server reads its script from the request's
# text, here the SVG's comment (by default only the picture is sent)
run() {
    name=$1; shift
    "$S2G" --base-url="$url" --model=fake --cache-dir="$tmp/cache" --backoff=0.01 --llm-svg-source \
        --id pipeline "$@" < "$tmp/$name.svg" > "$tmp/$name.out" 2> "$tmp/$name.err"
    st=$?
}
# same NAME FILE: the output is FILE byte for byte
same() {
    if cmp -s "$tmp/$1.out" "$2"; then ok
    else bad "$1: output differs from $2"; diff "$2" "$tmp/$1.out" | head -20; fi
}
# geometric NAME: the output is the plain geometric result
geometric() { same "$1" "$tmp/plain.ir"; }
status() { if [ "$st" = "$2" ]; then ok; else bad "$1: exit $st, expected $2: $(head -3 "$tmp/$1.err")"; fi; }
warns() { if grep -q -- "$2" "$tmp/$1.err"; then ok; else bad "$1: no warning '$2' in: $(cat "$tmp/$1.err")"; fi; }

svg plain 'answer=prose'
"$S2G" --id pipeline < "$tmp/plain.svg" > "$tmp/plain.ir" 2>/dev/null || bad "plain run failed"
"$S2G" -g --id pipeline < "$tmp/plain.svg" > "$tmp/plain-g.ir" 2>/dev/null || bad "plain -g run failed"

# --- valid node operations: merge n4+n5, remove the title n1, add the edge
# label t6 as a node, add a node given by its box
nodes='{"merge": [{"nodes": ["n5", "n4"]}], "remove": ["n1"],
 "add": [{"texts": ["t6"]}, {"text": "Loss", "box": [340, -130, 300, -150]}]}'
svg nodes "answer=b64;b64.nodes=$(b64 "$nodes")"
r0=$(nreq)
run nodes --llm=nodes
status nodes 0
same nodes "$dir/nodes.ir"
[ $(($(nreq) - r0)) = 1 ] && ok || bad "nodes: $(($(nreq) - r0)) requests, expected 1"
grep -q 'llm refinement: 1 diagram(s), 1 step(s) applied (0 from cache), 0 failed' "$tmp/nodes.err" && ok || bad "nodes: summary: $(cat "$tmp/nodes.err")"
# again: answered from the cache, the same bytes
r0=$(nreq)
run nodes --llm=nodes
[ "$(nreq)" = "$r0" ] && ok || bad "nodes rerun: $(($(nreq) - r0)) requests, expected 0 (cache)"
same nodes "$dir/nodes.ir"
grep -q 'llm refinement: 1 diagram(s), 1 step(s) applied (1 from cache), 0 failed' "$tmp/nodes.err" && ok || bad "nodes rerun: summary: $(cat "$tmp/nodes.err")"
grep -q '^svg2graph: calls: 1 (0 sent, 0 retried, 1 from cache);' "$tmp/nodes.err" && ok || bad "nodes rerun: calls: $(cat "$tmp/nodes.err")"
# --refresh asks again, and still writes the cache
r0=$(nreq)
run nodes --llm=nodes --refresh
[ $(($(nreq) - r0)) = 1 ] && ok || bad "--refresh: $(($(nreq) - r0)) requests, expected 1"
same nodes "$dir/nodes.ir"
r0=$(nreq)
run nodes --llm=nodes
[ "$(nreq)" = "$r0" ] && ok || bad "after --refresh: $(($(nreq) - r0)) requests, expected 0 (cache)"
# --graph-only and --json carry the same refinement
run nodes --llm=nodes -g -q
grep -v '^\(rect\|poly\|text\|bbox\) ' "$dir/nodes.ir" > "$tmp/nodes-g.ir"
same nodes "$tmp/nodes-g.ir"
[ -s "$tmp/nodes.err" ] && bad "-q: stderr not empty: $(cat "$tmp/nodes.err")" || ok
run nodes --llm=nodes --json
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
s = json.dumps(d)
assert "Multi-Head Attention" in s and s.count("\"llm\"") >= 6, s[:300]
' "$tmp/nodes.out" 2>/dev/null && ok || bad "--json: $(head -c 300 "$tmp/nodes.out")"

# --- valid edge operations: remove n2 -> n4, add n3 -> n2 and an
# undirected, labelled n1 -- n2
edges='{"add": [{"from": "n3", "to": "n2"}, {"from": "n1", "to": "n2", "undirected": true, "label": "see"}],
 "remove": [{"from": "n2", "to": "n4"}], "reason": "the arrow points the other way"}'
svg edges "answer=b64;b64.edges=$(b64 "$edges")"
run edges --llm=edges
status edges 0
same edges "$dir/edges.ir"

# --- both steps: merge Decoder (n3) with Multi-Head (n4) under a text of the
# model's: n2 -> n4 becomes a copy of n2 -> n3 and goes; the edge request
# sees the merged node and names it
nodes2='{"merge": [{"nodes": ["n4", "n3"], "text": "Decoder stack"}]}'
edges2='```json
{"add": [{"from": "n3", "to": "n5"}], "remove": [{"from": "n3", "to": "n2", "undirected": false}, {"from": "n2", "to": "n3"}]}
```'
svg both "answer=b64;b64.nodes=$(b64 "$nodes2");b64.edges=$(b64 "$edges2")"
run both --llm
# n3 -> n2 is no edge: the edge answer is rejected, after a repair request
status both 1
warns both 'warning: llm edges: unusable answer after a repair request: remove 1: n3 -> n2 is not an edge; the geometric edges are kept'
# the invalid answers were not cached: a rerun takes the nodes from the
# cache and asks for the edges again (request and repair)
r0=$(nreq)
run both --llm
status both 1
[ $(($(nreq) - r0)) = 2 ] && ok || bad "invalid edge answers cached? rerun: $(($(nreq) - r0)) requests, expected 2"
grep -q '1 step(s) applied (1 from cache), 1 failed' "$tmp/both.err" && ok || bad "both rerun: summary: $(cat "$tmp/both.err")"
edges2='```json
{"add": [{"from": "n3", "to": "n5"}], "remove": [{"from": "n2", "to": "n3"}]}
```'
svg both "answer=b64;b64.nodes=$(b64 "$nodes2");b64.edges=$(b64 "$edges2")"
r0=$(nreq)
run both --llm
status both 0
same both "$dir/both.ir"
[ $(($(nreq) - r0)) = 2 ] && ok || bad "both: $(($(nreq) - r0)) requests, expected 2"

# --- answers that are not used: the geometric result, byte for byte, a
# warning naming the problem, exit 1; one repair request each
reject() {  # name, steps, b64 key, answer, warning
    svg "$1" "answer=b64;$3=$(b64 "$4")"
    r0=$(nreq)
    run "$1" --llm="$2"
    status "$1" 1
    geometric "$1"
    warns "$1" "$5"
    [ $(($(nreq) - r0)) = 2 ] && ok || bad "$1: $(($(nreq) - r0)) requests, expected 2 (one repair)"
}
reject malformed nodes b64 '{"merge": [{"nodes": ["n4" "n5"]}]}' \
    "<stdin>: warning: llm nodes: unusable answer after a repair request: the answer's JSON does not parse; the geometric nodes are kept"
reject prose nodes b64 'The nodes look fine to me.' \
    'llm nodes: unusable answer after a repair request: the answer has no JSON object'
reject unknown-node nodes b64 '{"merge": [{"nodes": ["n2", "n9"]}]}' 'merge 1: unknown node id "n9"'
reject unknown-text nodes b64 '{"add": [{"texts": ["t99"]}]}' 'add 1: unknown text item id "t99"'
reject unknown-edge-node edges b64 '{"add": [{"from": "n2", "to": "n42"}]}' 'add 1: unknown node id "n42"'
reject merge-remove nodes b64 '{"merge": [{"nodes": ["n4", "n5"]}], "remove": ["n5"]}' 'node n5 is in more than one operation'
reject two-merges nodes b64 '{"merge": [{"nodes": ["n4", "n5"]}, {"nodes": ["n5", "n1"]}]}' 'node n5 is in more than one operation'
reject merge-one nodes b64 '{"merge": [{"nodes": ["n4"]}]}' 'merge 1 names fewer than two nodes'
reject text-kept nodes b64 '{"add": [{"texts": ["t2"]}]}' 'add 1: text item t2 belongs to node n2, which the answer does not remove'
reject text-twice nodes b64 '{"add": [{"texts": ["t6"]}, {"texts": ["t6"]}]}' 'text item t6 is in more than one added node'
reject box-no-text nodes b64 '{"add": [{"box": [0, 0, 10, 10]}]}' 'add 1 has a box but no "text"'
reject bad-box nodes b64 '{"add": [{"text": "x", "box": [0, 0, 10]}]}' 'add 1: "box" is not a list of four numbers'
reject bad-key nodes b64 '{"merge": [], "split": ["n2"]}' 'the answer has the key "split"'
reject not-a-list nodes b64 '{"remove": "n1"}' '"remove" is not a list'
reject add-remove edges b64 '{"add": [{"from": "n3", "to": "n4"}], "remove": [{"from": "n3", "to": "n4"}]}' 'remove 1: n3 -> n4 is not an edge'
reject add-twice edges b64 '{"add": [{"from": "n3", "to": "n4"}, {"from": "n3", "to": "n4"}]}' 'the edge n3 -> n4 is in more than one operation'
reject add-existing edges b64 '{"add": [{"from": "n2", "to": "n3"}]}' 'add 1: n2 -> n3 is already an edge'
reject self-loop edges b64 '{"add": [{"from": "n2", "to": "n2"}]}' 'add 1: an edge from n2 to itself'
reject remove-missing edges b64 '{"remove": [{"from": "n3", "to": "n2"}]}' 'remove 1: n3 -> n2 is not an edge'
reject bad-undirected edges b64 '{"add": [{"from": "n3", "to": "n4", "undirected": "yes"}]}' '"undirected" is not true or false'
reject not-json-object edges b64 '["n1", "n2"]' 'the answer is JSON but not an object'

# the repair request fixes a bad answer: applied, exit 0, two requests
svg repaired "answer=b64;b64=$(b64 '{"merge": [{"nodes": ["n5", "n9"]}]}');b64r=$(b64 "$nodes")"
r0=$(nreq)
run repaired --llm=nodes
status repaired 0
same repaired "$dir/nodes.ir"
[ $(($(nreq) - r0)) = 2 ] && ok || bad "repaired: $(($(nreq) - r0)) requests, expected 2"

# --- the server: errors and a timeout, retried; retries exhausted; no server
svg retry "faults=500,503,stall;answer=b64;b64.nodes=$(b64 "$nodes")"
r0=$(nreq)
run retry --llm=nodes --retries=4 --timeout=1
status retry 0
same retry "$dir/nodes.ir"
[ $(($(nreq) - r0)) = 4 ] && ok || bad "retry: $(($(nreq) - r0)) requests, expected 4"
svg exhausted "faults=500,500,500;answer=b64;b64.nodes=$(b64 "$nodes")"
r0=$(nreq)
run exhausted --llm=nodes --retries=3
status exhausted 1
geometric exhausted
warns exhausted '<stdin>: warning: llm nodes: .*500.*; the geometric nodes are kept'
[ $(($(nreq) - r0)) = 3 ] && ok || bad "exhausted: $(($(nreq) - r0)) requests, expected 3"
svg timeout "faults=stall,stall;answer=b64;b64.nodes=$(b64 "$nodes")"
run timeout --llm=nodes --retries=2 --timeout=0.5
status timeout 1
geometric timeout
warns timeout 'warning: llm nodes: .*; the geometric nodes are kept'
svg noserver "answer=b64;b64.nodes=$(b64 "$nodes")"
"$S2G" --llm --base-url=http://127.0.0.1:9/v1 --model=fake --no-cache --retries=1 --id pipeline --llm-svg-source \
    < "$tmp/noserver.svg" > "$tmp/noserver.out" 2> "$tmp/noserver.err"; st=$?
status noserver 1
geometric noserver
warns noserver 'warning: llm nodes: '
warns noserver 'warning: llm edges: '
grep -q '0 step(s) applied (0 from cache), 2 failed' "$tmp/noserver.err" && ok || bad "noserver: summary: $(tail -1 "$tmp/noserver.err")"

# --- several files: one refined, one whose step fails; both written, exit 1
cp "$tmp/nodes.svg" "$tmp/f1.svg"
cp "$tmp/malformed.svg" "$tmp/f2.svg"
"$S2G" --llm=nodes --base-url="$url" --model=fake --cache-dir="$tmp/cache" -q --llm-svg-source \
    "$tmp/f1.svg" "$tmp/f2.svg" > "$tmp/multi.out" 2> "$tmp/multi.err"; st=$?
status multi 1
[ "$(grep -c '^diagram ' "$tmp/multi.out")" = 2 ] && [ "$(grep -c 'src=llm' "$tmp/multi.out")" -ge 6 ] && ok ||
    bad "multi: $(grep '^diagram' "$tmp/multi.out")"

# --- --dry-run: the requests, nothing sent, no model needed
r0=$(nreq)
"$S2G" --llm --dry-run --id pipeline < "$tmp/nodes.svg" > "$tmp/dry.out" 2> "$tmp/dry.err"; st=$?
status dry 0
[ "$(nreq)" = "$r0" ] && ok || bad "dry-run sent requests"
python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["step"] for r in rows] == ["nodes", "edges"], rows
assert all(r["item"] == "pipeline" for r in rows)
def parts(m):   # the text of a user message, and its images (the rendered SVG)
    c = m["content"]
    assert isinstance(c, list), c
    return ("".join(p["text"] for p in c if p["type"] == "text"),
            [p["image_url"]["url"] for p in c if p["type"] == "image_url"])
u, img = parts(rows[0]["messages"][1])
assert len(img) == 1 and img[0].startswith("data:image/png;base64,<"), img
assert parts(rows[1]["messages"][1])[1] == img, "the edge step sees the same picture"
assert "n4 \"Multi-Head\" box=128.22,-122.25,171.78,-113.25 shape=text" in u, u
assert "t6 \"latent\" box=140.475,-57.375,159.525,-49.875 label" in u, u
assert "n2 -> n3 label=\"latent\"" in u, u
assert "<svg" not in u and "FAKE[" not in u, "the SVG source is sent only on request: " + u
e = parts(rows[1]["messages"][1])[0]
assert "Text items" not in e and "n2 -> n4" in e, e
' "$tmp/dry.out" 2>"$tmp/dry.py" && ok || bad "dry-run requests: $(cat "$tmp/dry.py")"
"$S2G" --llm --dry-run --llm-svg-source --id pipeline < "$tmp/nodes.svg" > "$tmp/drysrc.out" 2>/dev/null
[ "$(grep -c '<svg xmlns' "$tmp/drysrc.out")" = 2 ] && grep -q 'FAKE\[' "$tmp/drysrc.out" && ok ||
    bad "--llm-svg-source: the source is not in both requests"
"$S2G" --llm=edges --dry-run --llm-svg-source --llm-svg-max=0 --id pipeline < "$tmp/nodes.svg" > "$tmp/dry0.out" 2>/dev/null
[ "$(wc -l < "$tmp/dry0.out" | tr -d ' ')" = 1 ] && ! grep -q '<svg' "$tmp/dry0.out" && ok || bad "--llm-svg-max=0 still sends the source"
"$S2G" --llm=nodes --dry-run --llm-svg-max=200 --id pipeline < "$tmp/nodes.svg" > "$tmp/dry200.out" 2>/dev/null
grep -q "SVG source (its first 200 of [0-9]* bytes)" "$tmp/dry200.out" && ok || bad "--llm-svg-max=200: no truncation note"

# --- by default the server gets the picture, not the SVG source (DiagramEval
# Sec. 3: "the rendered SVG image and draft node list"): the captured request
: > "$tmp/capture.jsonl"
"$S2G" --llm=nodes --base-url="$url" --model=fake --no-cache --retries=1 --id pipeline \
    < "$tmp/nodes.svg" > /dev/null 2>&1
python3 -c '
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
assert len(reqs) >= 1, "no request captured"
for r in reqs:
    user = [m for m in r["messages"] if m["role"] == "user"][0]["content"]
    assert isinstance(user, list), user
    imgs = [p for p in user if p["type"] == "image_url"]
    text = "".join(p["text"] for p in user if p["type"] == "text")
    assert len(imgs) == 1 and imgs[0]["image_url"]["url"].startswith("data:image/png;base64,iVBOR"), imgs
    assert "<svg" not in text and "FAKE[" not in text and "SVG source" not in text, text
' "$tmp/capture.jsonl" 2> "$tmp/cap.py" && ok || bad "default request: $(cat "$tmp/cap.py")"

# --- usage and setup errors: exit 2, nothing sent
r0=$(nreq)
"$S2G" --llm=everything "$dir/pipeline.svg" > /dev/null 2> "$tmp/u.err"; st=$?
status u 2
"$S2G" --dry-run "$dir/pipeline.svg" > /dev/null 2> "$tmp/u.err"; st=$?
status u 2
"$S2G" --llm "$dir/pipeline.svg" > "$tmp/u.out" 2> "$tmp/u.err"; st=$?
status u 2
warns u 'model'
[ -s "$tmp/u.out" ] && bad "no model: output written" || ok
"$S2G" --llm --model=fake --retries=0 "$dir/pipeline.svg" > /dev/null 2> "$tmp/u.err"; st=$?
status u 2
warns u 'svg2graph: error: --retries wants a whole number from 1 to 100'
mkdir -p "$tmp/prompts"
printf 'rubric broken\nfield nodes text\nprompt\n{{nosuch}}\n.\n' > "$tmp/prompts/svg2graph-nodes.prompt"
"$S2G" --llm --model=fake --prompt-dir="$tmp/prompts" "$dir/pipeline.svg" > /dev/null 2> "$tmp/u.err"; st=$?
status u 2
warns u "svg2graph-nodes.prompt:4:1: error: unknown template name 'nosuch'"
[ "$(nreq)" = "$r0" ] && ok || bad "usage errors sent requests"
grep -q 'yes$' "$tmp/req.log" && bad "a key was sent to the fake server" || ok

[ $fail = 0 ] || exit 1
echo "svg2graph-llm: $n checks passed"
