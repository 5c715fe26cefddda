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
