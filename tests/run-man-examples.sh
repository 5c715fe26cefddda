#!/bin/sh
# tests/run-man-examples.sh -- runs every example command of the man pages.
#
#   BUILD=build sh tests/run-man-examples.sh [-v] [man/PAGE.N ...]
#
# Convention for man/*.[157]: in the EXAMPLES section, between .EX and .EE,
# a line that starts with "$ " is a command (the rest of the line, with the
# usual groff escapes \- \e \\ \(aq \(dq \(ga \(ti \(ha \& \| and font
# changes undone); other lines there show output and are not run. A command
# whose line ends in a backslash (\e in the page) continues on the next
# line. Example:
#
#   .SH EXAMPLES
#   .EX
#   $ tikz2ir contrib/examples/right\-triangle.tex | irlint \-\-rubric geom
#   .EE
#
# Each command runs with sh from the top of the source tree (in a scratch
# directory that links to its entries, so a command that writes a file
# does not litter the tree), with $BUILD/bin first on PATH, standard input
# from /dev/null, a time limit (EXAMPLE_TIMEOUT seconds, default 60), and
# its output discarded (-v shows it). A command fails when any stage of it
# exits with status 2 or more (usage or input error) or is killed by a
# signal (a crash, or the time limit); exit status 1 (irlint's "a check
# failed", --strict's "unparsed") is fine. In a pipeline every stage is
# checked, not just the last, and a stage killed by SIGPIPE because a later
# stage (head, grep -q) stopped reading is fine.
#
# Exit status: 0 all examples passed (or there were none), 1 some failed,
# 2 usage or a missing build.
LC_ALL=C
export LC_ALL
root=$(cd "$(dirname "$0")/.." && pwd) || exit 2
BUILD=${BUILD:-build}
case $BUILD in /*) bin=$BUILD/bin ;; *) bin=$root/$BUILD/bin ;; esac
# A build outside the tree cannot find the rubric and prompt files beside
# its binaries (bin/../../llm/rubrics): name them. In-tree builds keep
# testing the lookup beside the binary.
case $bin in "$root"/*) ;; *) export DIAGRAMIR_RUBRICS="${DIAGRAMIR_RUBRICS:-$root/llm/rubrics}" ;; esac
[ -d "$bin" ] || { echo "run-man-examples: $bin not found (make first)" >&2; exit 2; }
verbose=0
if [ "${1-}" = -v ]; then verbose=1; shift; fi
if [ $# -eq 0 ]; then
    set -- "$root"/man/*.[157]
fi
timeout=${EXAMPLE_TIMEOUT:-60}
have_timeout=0
command -v timeout >/dev/null 2>&1 && have_timeout=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/man-examples.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
work=$tmp/work
mkdir "$work" || exit 2
for e in "$root"/* "$root"/.[!.]*; do
    [ -e "$e" ] || continue
    ln -s "$e" "$work/$(basename "$e")"
done

# extract PAGE: prints the commands of PAGE, one per line, as "LINE<TAB>CMD"
extract() {
    awk '
        function unescape(s,   out, c, n, i) {
            out = ""
            n = length(s)
            for (i = 1; i <= n; i++) {
                c = substr(s, i, 1)
                if (c != "\\") { out = out c; continue }
                c = substr(s, i + 1, 1)
                if (c == "-" || c == "\\" || c == "e") { out = out (c == "-" ? "-" : "\\"); i++ }
                else if (c == "&" || c == "|" || c == "^" || c == ")") { i++ }
                else if (c == "(") {
                    c = substr(s, i + 2, 2)
                    if (c == "aq") out = out "\047"
                    else if (c == "dq") out = out "\""
                    else if (c == "ga") out = out "`"
                    else if (c == "ti") out = out "~"
                    else if (c == "ha") out = out "^"
                    else if (c == "rs") out = out "\\"
                    else if (c == "lq" || c == "rq") out = out "\""
                    else if (c == "em" || c == "en" || c == "hy") out = out "-"
                    else out = out "?"
                    i += 3
                }
                else if (c == "f") {
                    # \fB \fI \fR \fP \f(XX \f[XX]
                    c = substr(s, i + 2, 1)
                    if (c == "(") i += 4
                    else if (c == "[") { while (i <= n && substr(s, i, 1) != "]") i++ }
                    else i += 2
                }
                else if (c == " ") { out = out " "; i++ }
                else { out = out c; i++ }
            }
            return out
        }
        /^\.SH/ { inex = ($0 ~ /^\.SH[ \t]+"?EXAMPLES?"?[ \t]*$/); inblock = 0; next }
        !inex { next }
        /^\.EX/ { inblock = 1; next }
        /^\.EE/ { inblock = 0; next }
        !inblock { next }
        cont != "" {
            line = unescape($0)
            if (line ~ /\\$/) { cont = cont substr(line, 1, length(line) - 1); next }
            printf "%d\t%s\n", start, cont line
            cont = ""
            next
        }
        /^\$ / {
            line = unescape(substr($0, 3))
            if (line ~ /\\$/) { cont = substr(line, 1, length(line) - 1); start = NR; next }
            printf "%d\t%s\n", NR, line
        }
    ' "$1"
}

# stages CMD: the pipeline CMD rewritten so that each stage writes its exit
# status to $st/N; prints the number of stages on the first line, then the
# rewritten command. Stages are split at "|" outside quotes, (), {} and
# ${...} ("||" is not a pipe).
stages() {
    CMD=$1 ST=$2 awk '
        BEGIN {
            cmd = ENVIRON["CMD"]; st = ENVIRON["ST"]
            n = length(cmd); depth = 0; q = ""; cur = ""; k = 0
            for (i = 1; i <= n; i++) {
                c = substr(cmd, i, 1)
                if (q != "") {
                    cur = cur c
                    if (c == "\\" && q == "\"") { cur = cur substr(cmd, i + 1, 1); i++ }
                    else if (c == q) q = ""
                    continue
                }
                if (c == "\\") { cur = cur c substr(cmd, i + 1, 1); i++; continue }
                if (c == "\047" || c == "\"") { q = c; cur = cur c; continue }
                if (c == "(" || c == "{") depth++
                if ((c == ")" || c == "}") && depth > 0) depth--
                if (c == "|" && depth == 0) {
                    if (substr(cmd, i + 1, 1) == "|") { cur = cur "||"; i++; continue }
                    part[++k] = cur; cur = ""; continue
                }
                cur = cur c
            }
            part[++k] = cur
            out = ""
            for (j = 1; j <= k; j++) {
                s = "{ " part[j] "\n}; echo $? >\"" st "/" j "\""
                out = out (j > 1 ? " | " : "") "{ " s "; }"
            }
            print k
            print out
        }'
}

total=0 failed=0
for page in "$@"; do
    [ -f "$page" ] || { echo "run-man-examples: $page: no such file" >&2; failed=$((failed + 1)); continue; }
    rel=${page#"$root"/}
    extract "$page" >"$tmp/cmds"
    while IFS='	' read -r line cmd; do
        total=$((total + 1))
        st=$tmp/st.$total
        mkdir "$st"
        stages "$cmd" "$st" >"$tmp/rewritten"
        nst=$(head -1 "$tmp/rewritten")
        tail -n +2 "$tmp/rewritten" >"$tmp/script"
        if [ $have_timeout = 1 ]; then
            (cd "$work" && PATH="$bin:$PATH" BUILD="$BUILD" timeout -k 5 "$timeout" sh "$tmp/script") \
                </dev/null >"$tmp/out" 2>"$tmp/err"
        else
            (cd "$work" && PATH="$bin:$PATH" BUILD="$BUILD" sh "$tmp/script") \
                </dev/null >"$tmp/out" 2>"$tmp/err"
        fi
        whole=$?
        why=
        if [ $have_timeout = 1 ] && { [ $whole = 124 ] || [ $whole = 137 ]; }; then
            why="timed out after ${timeout}s"
        fi
        j=1
        while [ -z "$why" ] && [ $j -le "$nst" ]; do
            if [ ! -f "$st/$j" ]; then
                why="stage $j did not finish (sh exit status $whole: syntax error or killed?)"
                break
            fi
            s=$(cat "$st/$j")
            if [ "$s" -ge 128 ] && [ "$s" != 141 ] || { [ "$s" = 141 ] && [ $j = "$nst" ]; }; then
                why="stage $j killed by signal $((s - 128)) (exit status $s)"
            elif [ "$s" -ge 2 ] && [ "$s" -lt 128 ]; then
                why="stage $j exited with status $s"
            fi
            j=$((j + 1))
        done
        if [ -n "$why" ]; then
            failed=$((failed + 1))
            printf 'FAIL  %s:%s: %s\n      $ %s\n' "$rel" "$line" "$why" "$cmd"
            sed 's/^/      | /' "$tmp/err" | head -10
        elif [ $verbose = 1 ]; then
            printf 'ok    %s:%s: $ %s\n' "$rel" "$line" "$cmd"
            sed 's/^/      > /' "$tmp/out" | head -20
        fi
    done <"$tmp/cmds"
done
printf 'man examples: %d run, %d failed\n' "$total" "$failed"
[ $failed = 0 ]
