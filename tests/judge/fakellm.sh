# Sourced by the tests that talk to the fake OpenAI-compatible server
# (tests/judge/fakellm.py, python3 standard library) on 127.0.0.1.
#
# fakellm_wait NAME [STATUS]
#   waits up to 10 s for a server just started in the background (srv_pid)
#   to write its port to $tmp/port and sets url (the API base, .../v1);
#   when it does not, prints NAME's error (and $tmp/fakellm.out, if any) and
#   exits STATUS (default 1).
# fakellm_stop
#   stops the server (srv_pid) and waits for it, so the files it writes at
#   exit (--stats) are complete; clears srv_pid.
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
    fakellm_wait "$_fk_name"
}
fakellm_wait() {
    _fk_i=0
    while [ ! -s "$tmp/port" ] && [ $_fk_i -lt 100 ]; do sleep 0.1; _fk_i=$((_fk_i + 1)); done
    if [ ! -s "$tmp/port" ]; then
        echo "$1: the fake server did not start" >&2
        [ -f "$tmp/fakellm.out" ] && cat "$tmp/fakellm.out" >&2
        exit "${2:-1}"
    fi
    url=http://127.0.0.1:$(cat "$tmp/port")/v1
}
fakellm_stop() {
    [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null && wait "$srv_pid" 2>/dev/null
    srv_pid=
}
