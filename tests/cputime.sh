# tests/cputime.sh -- sourced by test scripts that bound how long a program runs.
#
# cpu_ms VAR sets VAR to the CPU time (user + system, in milliseconds) used so
# far by the shell's finished children; the difference of two calls around
# one command is that command's CPU time (plus a millisecond or so of awk).
# Unlike wall time it does not grow when the machine is busy, so a bound on it
# does not fail on a loaded machine. `times` is a POSIX shell builtin and must
# run in this shell, not in a subshell: hence a variable name, not $(cpu_ms).
# Needs $tmp, a scratch directory.
cpu_ms() {
    times > "$tmp/.times"
    awk 'NR == 2 { t = 0
                   for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] }
                   printf "%d\n", t * 1000 }' "$tmp/.times" > "$tmp/.ms"
    read -r "$1" < "$tmp/.ms"
}

# bounded_run PROG ARG...: runs PROG ARG... with stdout in $tmp/out and
# stderr in $tmp/err, in at most $vmem KB of address space (empty: no
# bound) and, when $have_timeout is 1, killed after $wall seconds of wall
# time; sets st (its exit status), ms (its CPU time) and why: empty, or
# which bound it broke (killed, crashed, more than $limit s of CPU time).
bounded_run() {
    cpu_ms _br_t0
    (
        [ -n "$vmem" ] && ulimit -v "$vmem" 2>/dev/null
        if [ "$have_timeout" = 1 ]; then
            exec timeout -k 2 "$wall" "$@"
        else
            exec "$@"
        fi
    ) >"$tmp/out" 2>"$tmp/err"
    st=$?
    cpu_ms _br_t1
    ms=$((_br_t1 - _br_t0))
    why=
    if [ "$have_timeout" = 1 ] && { [ $st = 124 ] || [ $st = 137 ]; }; then
        why="did not finish within $wall s (killed)"
    elif [ $st -ge 128 ]; then
        why="crashed: exit status $st (signal $((st - 128)))"
    elif [ $ms -gt $((limit * 1000)) ]; then
        why="took $ms ms of CPU time (limit ${limit} s)"
    fi
}
