#!/bin/sh
# tikz2ir --fallback=llm against the fake OpenAI-compatible server
# (tests/judge/fakellm.py, python3 standard library), on 127.0.0.1.
BUILD=${BUILD:-build}
T=$BUILD/bin/tikz2ir
LC_ALL=C
export LC_ALL
tmp=$(mktemp -d) || exit 1
. tests/judge/fakellm.sh
srv_pid=
cleanup() { [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM
fail=0
bad() { echo "FAIL  $1"; fail=1; }
ok() { echo "ok    $1"; }

fakellm_start tikz2ir-llm --broken "$tmp/broken"
llm="--fallback=llm --base-url=$url --model=fake --cache-dir=$tmp/cache"

# without the fallback: one unparsed record
"$T" tests/tikz2ir-llm/good.tex > "$tmp/plain.ir" 2>/dev/null
[ "$(grep -c '^unparsed' "$tmp/plain.ir")" = 1 ] && ok "plain run leaves \\mystery unparsed" || bad "plain run: expected one unparsed record"

# with it: the model's two records replace the unparsed one, marked src=llm, at its line
"$T" $llm tests/tikz2ir-llm/good.tex > "$tmp/good.ir" 2> "$tmp/good.err"; st=$?
[ $st = 0 ] && ok "fallback exit 0" || bad "fallback exit $st: $(cat "$tmp/good.err")"
[ "$(grep -c '^unparsed' "$tmp/good.ir")" = 0 ] && ok "no unparsed record left" || bad "unparsed record left"
grep -q '^poly open 0 0 28.453 0 draw=black fill=none lw=1 src=llm @6$' "$tmp/good.ir" && ok "poly record from the model, src=llm @6" || bad "poly record missing: $(cat "$tmp/good.ir")"
grep -q '^text 0 -12 10 -2 "M" size=12 src=llm @6$' "$tmp/good.ir" && ok "text record from the model" || bad "text record missing"
grep -q '^poly open 0 0 0 28.453 .* @5$' "$tmp/good.ir" && ok "deterministic elements unchanged" || bad "deterministic element missing"
"$T" "$tmp/good.ir" >/dev/null 2>&1
$BUILD/bin/irlint --rubric geom "$tmp/good.ir" > /dev/null 2>&1; st=$?
[ $st -le 1 ] && ok "irlint reads the result" || bad "irlint rejects the result (exit $st)"
grep -q 'Bearer' "$tmp/good.err" && bad "authorization leaked to stderr" || ok "nothing secret on stderr"

# the second run is answered from the cache: no new request
n1=$(wc -l < "$tmp/req.log")
"$T" $llm tests/tikz2ir-llm/good.tex > "$tmp/good2.ir" 2>/dev/null
n2=$(wc -l < "$tmp/req.log")
[ "$n1" = "$n2" ] && ok "rerun costs no request (cache)" || bad "rerun sent $((n2 - n1)) request(s)"
cmp -s "$tmp/good.ir" "$tmp/good2.ir" && ok "rerun gives the same bytes" || bad "rerun output differs"

# an invalid record: everything stays deterministic, a warning names the line
"$T" $llm tests/tikz2ir-llm/bad.tex > "$tmp/bad.ir" 2> "$tmp/bad.err"; st=$?
[ $st = 0 ] && ok "invalid answer: exit 0" || bad "invalid answer: exit $st"
[ "$(grep -c '^unparsed' "$tmp/bad.ir")" = 1 ] && ok "invalid answer keeps the unparsed record" || bad "invalid answer: unparsed record gone"
grep -q 'src=llm' "$tmp/bad.ir" && bad "invalid answer: llm records written" || ok "invalid answer: no llm record"
grep -q 'bad.tex:6: warning: llm fallback: record 1 is not valid IR (after a repair request); kept as unparsed$' "$tmp/bad.err" && ok "warning names file:line" || bad "warning: $(cat "$tmp/bad.err")"
[ "$(grep -c 'warning: llm fallback' "$tmp/bad.err")" = 1 ] && ok "one warning for the construct, not one per call" || bad "warnings: $(cat "$tmp/bad.err")"

# an invalid answer gets one repair request (as judge's), and neither is
# cached: a rerun asks both again
n1=$(wc -l < "$tmp/req.log")
"$T" $llm tests/tikz2ir-llm/bad.tex > "$tmp/bad2.ir" 2> "$tmp/bad2.err"
n2=$(wc -l < "$tmp/req.log")
[ $((n2 - n1)) = 2 ] && ok "invalid answers are not cached: the rerun sends request and repair" || bad "invalid rerun sent $((n2 - n1)) request(s), expected 2"
grep -q 'constructs: 0 replaced (0 from cache), 1 kept as unparsed; 1 repair request(s)$' "$tmp/bad2.err" && ok "summary counts the constructs and the repair" || bad "summary: $(cat "$tmp/bad2.err")"
grep -q '^tikz2ir: calls: 2 (2 sent, 0 retried, 0 from cache); 0 answered, 2 invalid, 0 failed;' "$tmp/bad2.err" && ok "summary counts the calls apart" || bad "calls: $(cat "$tmp/bad2.err")"

# the repair request answered: the construct is replaced, no warning
b64() { printf '%s' "$1" | base64 | tr -d '\n'; }
{ printf '%% FAKE[answer=b64;b64=%s;b64r=%s]\n' "$(b64 'I would draw a line.')" \
    "$(b64 '{"records": ["poly open 0 0 28.453 0 draw=black fill=none lw=1"]}')"
  sed 1,3d tests/tikz2ir-llm/good.tex; } > "$tmp/repair.tex"
n1=$(wc -l < "$tmp/req.log")
"$T" $llm --llm-log="$tmp/repair.jsonl" "$tmp/repair.tex" > "$tmp/repair.ir" 2> "$tmp/repair.err"; st=$?
n2=$(wc -l < "$tmp/req.log")
[ $st = 0 ] && grep -q '^poly open 0 0 28.453 0 draw=black fill=none lw=1 src=llm @4$' "$tmp/repair.ir" \
    && ok "repair request: the construct is replaced" || bad "repair: exit $st, $(cat "$tmp/repair.ir" "$tmp/repair.err")"
[ $((n2 - n1)) = 2 ] && ok "repair: request and repair sent" || bad "repair: $((n2 - n1)) requests, expected 2"
grep -q 'warning: llm fallback' "$tmp/repair.err" && bad "repair: a warning: $(cat "$tmp/repair.err")" || ok "repair: no warning"
grep -q '"type":"call",.*"status":"invalid",.*"error":"answer has no \\"records\\" list: the answer has no JSON object"' "$tmp/repair.jsonl" \
    && ok "repair: the log says why the first answer was not kept" || bad "repair log: $(grep '"call"' "$tmp/repair.jsonl")"

# garbage while the server is broken, then fixed: the next run asks for that
# construct alone, once; the run after that sends nothing; --refresh re-asks
sed 's/records=/flaky=1;records=/' tests/tikz2ir-llm/good.tex > "$tmp/flaky.tex"
cp tests/tikz2ir-llm/good.tex "$tmp/good.tex"
: > "$tmp/broken"
"$T" $llm "$tmp/good.tex" "$tmp/flaky.tex" > "$tmp/fl1.ir" 2> "$tmp/fl1.err"
n1=$(wc -l < "$tmp/req.log")
"$T" $llm "$tmp/good.tex" "$tmp/flaky.tex" > "$tmp/fl1.ir" 2> "$tmp/fl1.err"
n2=$(wc -l < "$tmp/req.log")
[ "$(grep -c '^unparsed' "$tmp/fl1.ir")" = 1 ] && ok "broken server: the flaky construct stays unparsed" || bad "broken: $(cat "$tmp/fl1.err")"
[ $((n2 - n1)) = 2 ] && ok "broken server, rerun: the flaky construct is asked again (2), the good one comes from the cache" \
    || bad "broken rerun: $((n2 - n1)) requests, expected 2"
grep -q 'constructs: 1 replaced (1 from cache), 1 kept as unparsed; 1 repair request(s)$' "$tmp/fl1.err" && ok "broken rerun: summary" || bad "broken rerun summary: $(cat "$tmp/fl1.err")"
rm -f "$tmp/broken"
"$T" $llm "$tmp/good.tex" "$tmp/flaky.tex" > "$tmp/fl2.ir" 2> "$tmp/fl2.err"; st=$?
n3=$(wc -l < "$tmp/req.log")
[ $((n3 - n2)) = 1 ] && ok "fixed server: exactly one request" || bad "fixed: $((n3 - n2)) requests, expected 1"
[ "$(tail -n 1 "$tmp/req.log" | cut -f 2)" = 3 ] && ok "  ... for the construct that failed (its 3rd time)" || bad "fixed: $(tail -n 1 "$tmp/req.log")"
[ $st = 0 ] && [ "$(grep -c '^unparsed' "$tmp/fl2.ir")" = 0 ] && ok "fixed server: replaced" || bad "fixed: exit $st, $(cat "$tmp/fl2.err")"
"$T" $llm "$tmp/good.tex" "$tmp/flaky.tex" > /dev/null 2> "$tmp/fl3.err"
n4=$(wc -l < "$tmp/req.log")
[ "$n4" = "$n3" ] && ok "then everything comes from the cache" || bad "third run sent $((n4 - n3))"
grep -q 'constructs: 2 replaced (2 from cache), 0 kept as unparsed; 0 repair request(s)$' "$tmp/fl3.err" && ok "  ... the summary says so" || bad "summary: $(cat "$tmp/fl3.err")"
"$T" $llm --refresh "$tmp/good.tex" "$tmp/flaky.tex" > /dev/null 2>&1
n5=$(wc -l < "$tmp/req.log")
[ $((n5 - n4)) = 2 ] && ok "--refresh re-asks both constructs" || bad "--refresh sent $((n5 - n4)), expected 2"

# a model missing from the price list: "price unknown", never $0.0000
grep -q 'cost: price unknown for model fake$' "$tmp/fl3.err" && ok "unknown price: price unknown" || bad "price: $(cat "$tmp/fl3.err")"
grep -q '\$0\.0000' "$tmp/fl3.err" && bad "a \$0.0000 cost printed" || ok "no \$0.0000"

# no server: a clear warning, the unparsed record stays, exit 0
"$T" --fallback=llm --base-url=http://127.0.0.1:9/v1 --model=fake --no-cache --retries=1 tests/tikz2ir-llm/good.tex > "$tmp/nos.ir" 2> "$tmp/nos.err"; st=$?
[ $st = 0 ] && [ "$(grep -c '^unparsed' "$tmp/nos.ir")" = 1 ] && grep -q 'good.tex:6: warning: llm fallback' "$tmp/nos.err" \
    && ok "unreachable server: warning, unparsed kept" || bad "unreachable server: exit $st, $(cat "$tmp/nos.err")"

# libcurl is loaded only for --fallback: without it, a clear error and exit 2
# with --fallback, and an untouched run without
DIAGRAMIR_LIBCURL=/nonexistent/libcurl.so "$T" --fallback=llm --base-url=http://127.0.0.1:9/v1 --model=fake --no-cache \
    tests/tikz2ir-llm/good.tex > /dev/null 2> "$tmp/nolib.err"; st=$?
[ $st = 2 ] && grep -q 'cannot load /nonexistent/libcurl.so' "$tmp/nolib.err" \
    && ok "no libcurl: --fallback exits 2 and says why" || bad "no libcurl: exit $st, $(cat "$tmp/nolib.err")"
DIAGRAMIR_LIBCURL=/nonexistent/libcurl.so "$T" tests/tikz2ir-llm/good.tex > "$tmp/nolib.ir" 2>/dev/null; st=$?
[ $st = 0 ] && grep -q '^unparsed' "$tmp/nolib.ir" && ok "no libcurl: a run without --fallback works" || bad "no libcurl: plain run exit $st"

# usage errors
"$T" --fallback=magic tests/tikz2ir-llm/good.tex >/dev/null 2>&1; st=$?
[ $st = 2 ] && ok "--fallback=magic is a usage error" || bad "--fallback=magic exit $st"
[ $fail = 0 ] || exit 1
echo "tikz2ir-llm: all passed"
