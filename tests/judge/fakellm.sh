# Sourced by the tests that talk to the fake OpenAI-compatible server
# (tests/judge/fakellm.py, python3 standard library) on 127.0.0.1.
#
# fakellm_start NAME [fakellm.py options]
#   (re)starts the server with its port in $tmp/port, its request log in
#   $tmp/req.log (one line per request) and its own output in
#   $tmp/fakellm.out; sets srv_pid and url (the API base, .../v1). The
#   caller's cleanup kills $srv_pid. NAME prefixes the error when the server
#   does not come up within 10 s (the test then exits 1).
fakellm_start() {
    _fk_name=$1; shift
    [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null && wait "$srv_pid" 2>/dev/null
    rm -f "$tmp/port" "$tmp/req.log"
    python3 tests/judge/fakellm.py --port-file "$tmp/port" --log "$tmp/req.log" "$@" \
        >>"$tmp/fakellm.out" 2>&1 &
    srv_pid=$!
    _fk_i=0
    while [ ! -s "$tmp/port" ] && [ $_fk_i -lt 100 ]; do sleep 0.1; _fk_i=$((_fk_i + 1)); done
    [ -s "$tmp/port" ] || { echo "$_fk_name: the fake server did not start" >&2; cat "$tmp/fakellm.out" >&2; exit 1; }
    url=http://127.0.0.1:$(cat "$tmp/port")/v1
}
