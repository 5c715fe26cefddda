#!/bin/sh
# irlint --request-llm against the fake OpenAI-compatible server
# (tests/judge/fakellm.py, python3 standard library), on 127.0.0.1.
#
# The fake answers what a FAKE[...] marker in the request scripts: with
# answer=b64 the text base64-decoded from b64=..., here the JSON structure
# the model is asked for. A marker is no shape word and no number the
# parser reads, so the parser's reading of these requests is empty and the
# request goes to the model.
BUILD=${BUILD:-build}
I=$BUILD/bin/irlint
LC_ALL=C
export LC_ALL
dir=$(dirname "$0")
command -v python3 >/dev/null 2>&1 || { echo "irlint-llm: python3 is needed for the fake server" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/irlint-llm.XXXXXX") || exit 1
. tests/judge/fakellm.sh
srv_pid=
cleanup() { [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
fail=0
bad() { echo "FAIL  $1"; fail=1; }
ok() { echo "ok    $1"; }

fakellm_start irlint-llm
llm="--request-llm --base-url=$url --model=fake --cache-dir=$tmp/cache"

b64() { printf '%s' "$1" | base64 | tr -d '\n'; }
# what the model answers: a right triangle with a 37 degree angle
ans=$(b64 '{"kinds": ["triangle"], "props": ["right"], "angles": [37]}')
req="the usual figure for lesson 7 FAKE[answer=b64;b64=$ans]"
verdict() { awk -F'\t' 'NR > 1 { print $4 }'; }
note() { awk -F'\t' 'NR > 1 { print $5 }'; }

# without --request-llm: the parser reads only "7", no shape: nothing to hold
"$I" --only core-math --format tsv --request "$req" "$dir/tri.ir" > "$tmp/plain.tsv" 2>"$tmp/plain.err"
[ "$(verdict < "$tmp/plain.tsv")" = yes ] && ok "plain run: core-math yes (request read as nothing)" \
    || bad "plain run: $(cat "$tmp/plain.tsv" "$tmp/plain.err")"
[ -s "$tmp/req.log" ] && bad "plain run sent a request" || ok "plain run sends nothing"

# with it: the model reads a right triangle; the drawn one has none
"$I" $llm --only core-math --format tsv --request "$req" "$dir/tri.ir" > "$tmp/llm.tsv" 2>"$tmp/llm.err"; st=$?
[ $st = 1 ] && ok "--request-llm: exit 1 (a check said no)" || bad "--request-llm: exit $st: $(cat "$tmp/llm.err")"
[ "$(verdict < "$tmp/llm.tsv")" = no ] && ok "--request-llm: core-math no" || bad "--request-llm: $(cat "$tmp/llm.tsv")"
note < "$tmp/llm.tsv" | grep -q 'asks for a right triangle.*src=llm:kinds,props,angles' \
    && ok "the reason says what the model read (src=llm)" || bad "reason: $(note < "$tmp/llm.tsv")"
[ "$(wc -l < "$tmp/req.log")" = 1 ] && ok "one request sent" || bad "$(wc -l < "$tmp/req.log") requests sent"

# two diagrams with the same request: asked once; a rerun: from the cache
{ cat "$dir/tri.ir"; grep -v -e '^#' -e '^diagramir' "$dir/tri.ir" | sed 's/^diagram t /diagram u /'; } > "$tmp/two.ir"
n1=$(wc -l < "$tmp/req.log")
"$I" $llm --only core-math --format tsv --request "$req" "$tmp/two.ir" > "$tmp/two.tsv" 2>/dev/null
n2=$(wc -l < "$tmp/req.log")
[ "$n1" = "$n2" ] && ok "rerun and a repeated request cost no request (cache)" || bad "sent $((n2 - n1)) more request(s)"
[ "$(verdict < "$tmp/two.tsv" | tr '\n' ' ')" = "no no " ] && ok "both diagrams judged with the model's reading" \
    || bad "two diagrams: $(cat "$tmp/two.tsv")"

# a request the parser reads: not sent
"$I" $llm --only core-math --format tsv --request "right triangle, angle 37 degrees FAKE[answer=prose]" \
    "$dir/tri.ir" > "$tmp/read.tsv" 2>/dev/null
n3=$(wc -l < "$tmp/req.log")
[ "$n2" = "$n3" ] && ok "a request the parser reads is not sent" || bad "a parsed request was sent"
note < "$tmp/read.tsv" | grep -q 'src=llm' && bad "src=llm on a parsed request" || ok "no src=llm when the parser read it"

# answers that break the form: a warning, the parser's reading alone
for a in prose schema; do
    "$I" $llm --only core-math --format tsv --request "a figure FAKE[answer=$a]" "$dir/tri.ir" \
        > "$tmp/$a.tsv" 2> "$tmp/$a.err"; st=$?
    [ $st = 0 ] && [ "$(verdict < "$tmp/$a.tsv")" = yes ] && grep -q 'irlint: warning: --request-llm: ' "$tmp/$a.err" \
        && ok "answer=$a: warning, parser's reading kept" || bad "answer=$a: exit $st, $(cat "$tmp/$a.tsv" "$tmp/$a.err")"
done
badkind=$(b64 '{"kinds": ["hexahedron"]}')
"$I" $llm --only core-math --format tsv --request "a figure FAKE[answer=b64;b64=$badkind]" "$dir/tri.ir" \
    > /dev/null 2> "$tmp/kind.err"
grep -q "names 'hexahedron', which is none of the names" "$tmp/kind.err" && ok "an unknown kind is refused" \
    || bad "unknown kind: $(cat "$tmp/kind.err")"

# no server: a warning, the parser's reading, the usual exit status
"$I" --request-llm --base-url=http://127.0.0.1:9/v1 --model=fake --no-cache --retries=1 --only core-math \
    --format tsv --request "$req" "$dir/tri.ir" > "$tmp/nos.tsv" 2> "$tmp/nos.err"; st=$?
[ $st = 0 ] && grep -q 'irlint: warning: --request-llm: ' "$tmp/nos.err" \
    && ok "unreachable server: warning, exit 0" || bad "unreachable server: exit $st, $(cat "$tmp/nos.err")"
grep -q 'Bearer' "$tmp/llm.err" "$tmp/nos.err" && bad "authorization leaked to stderr" || ok "nothing secret on stderr"

# usage: a bad client option is exit 2
"$I" --request-llm --retries=0 --model=fake "$dir/tri.ir" > /dev/null 2>&1; st=$?
[ $st = 2 ] && ok "--retries=0 is a usage error" || bad "--retries=0: exit $st"
[ $fail = 0 ] || exit 1
echo "irlint-llm: all passed"
