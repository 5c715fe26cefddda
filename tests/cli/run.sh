#!/bin/sh
# tests/cli/run.sh -- the command-line contract of diagramir-options(7),
# checked on every program in $BUILD/bin:
#
#   - the options table: man/diagramir-options.7 holds it (between the
#     options-table-begin/end comments); every program's page holds the
#     same block; every program's --help lists each row that names it (or
#     "all") with its letter and long name, and every "-X, --long" line of
#     a --help is a row of the table naming that program; every letter the
#     table does not give a program is an invalid option there (exit 2,
#     short usage), and every letter it gives with an argument wants it;
#   - one version: --version prints "PROG (diagramir) V", V the
#     DIAGRAMIR_VERSION of ir/cli.h, in every program;
#   - a bad option: getopt's message and a short usage of at most three
#     lines ending in "Try 'PROG --help' for more information.", exit 2,
#     nothing on stdout;
#   - -o FILE: the same bytes as stdout, in every program; an error leaves an
#     old FILE as it was and no temporary file; a run killed midway (SIGTERM,
#     SIGINT, SIGHUP) too; the new file's mode is 0666 less the umask;
#   - --exit-zero: 1 becomes 0 (irlint, tikz2ir --strict), 2 stays 2;
#   - --color: always gives the escape codes, never and NO_COLOR none, a
#     pipe none; on a terminal (script(1), when present) auto colors.
#
#   BUILD=build sh tests/cli/run.sh
LC_ALL=C
export LC_ALL
unset NO_COLOR
B=${BUILD:-build}/bin
PROGRAMS="tikz2ir irlint svg2graph graphalign kappa judge ir2svg irreport"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cli-tests.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
fails=0 checks=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { checks=$((checks + 1)); }
check() {  # NAME COMMAND...: COMMAND must succeed
    name=$1; shift
    if "$@"; then ok; else bad "$name"; fi
}
for p in $PROGRAMS; do
    [ -x "$B/$p" ] || { echo "cli: $B/$p not built" >&2; exit 2; }
done

# ------------------------------------------------------------ the table
block() {  # PAGE: the table block, as written
    sed -n '/^\.\\" options-table-begin/,/^\.\\" options-table-end/p' "$1"
}
block man/diagramir-options.7 > "$tmp/block"
[ "$(wc -l < "$tmp/block")" -gt 10 ] || { bad "no options table in diagramir-options(7)"; exit 1; }
# the rows: SHORT<TAB>LONG<TAB>ARG<TAB>PROGRAMS, without groff's escapes
# ('.' for an empty field: read would merge the tabs)
sed -e '1,/^\.ta /d' -e '/^\.fi/,$d' -e 's/\\-/-/g' "$tmp/block" | sed 1d |
    awk -F '\t' -v OFS='\t' '{ for (i = 1; i <= 4; i++) if ($i == "") $i = "."; print }' > "$tmp/table"
[ "$(wc -l < "$tmp/table")" -ge 20 ] || bad "the table has $(wc -l < "$tmp/table") rows"
# one meaning per letter, one letter per long name
dup=$(cut -f1 "$tmp/table" | grep -vx '[.]' | sort | uniq -d)
[ -z "$dup" ] && ok || bad "table: letters given twice: $dup"
dup=$(cut -f2 "$tmp/table" | sort | uniq -d)
[ -z "$dup" ] && ok || bad "table: long names given twice: $dup"

rows_of() {  # PROG: the table's rows that name PROG (or all)
    awk -F '\t' -v p="$1" '{ n = split($4, a, ","); for (i = 1; i <= n; i++) if (a[i] == p || a[i] == "all") { print; break } }' "$tmp/table"
}

for p in $PROGRAMS; do
    # the same block in the program's page
    block "man/$p.1" > "$tmp/pblock"
    cmp -s "$tmp/block" "$tmp/pblock" && ok || bad "$p.1: the options table differs from diagramir-options(7)'s"

    "$B/$p" --help > "$tmp/help" 2> "$tmp/err"; st=$?
    [ $st = 0 ] && [ -s "$tmp/help" ] && [ ! -s "$tmp/err" ] && ok || bad "$p --help: exit $st or not on stdout"
    # every row naming the program is in its --help
    rows_of "$p" > "$tmp/rows"
    while IFS='	' read -r short long arg progs; do
        [ "$arg" = . ] && arg=
        if [ "$short" != . ]; then
            grep -Eq -- "^ +$short, $long([ =[,]|\$)" "$tmp/help" && ok ||
                bad "$p --help: no '$short, $long' (table: $short $long $arg)"
        else
            grep -Eq -- "^ +$long([ =[,]|\$)" "$tmp/help" && ok ||
                bad "$p --help: no '$long' (table: $long $arg)"
        fi
    done < "$tmp/rows"
    # every "-X, --long" of the --help is the table's
    grep -Eo -- '^ +-[A-Za-z], --[a-z][-a-z]*' "$tmp/help" | sed 's/^ *//; s/, /	/' > "$tmp/helpopts"
    [ -s "$tmp/helpopts" ] || bad "$p --help: no short options found"
    while IFS='	' read -r short long; do
        cut -f1,2 "$tmp/rows" | grep -qxF -- "$short	$long" && ok ||
            bad "$p --help: '$short, $long' is not in the table (for $p)"
    done < "$tmp/helpopts"
    # the letters: the table's, and no other
    for l in a b c d e f g h i j k l m n o p q r s t u v w x y z \
             A B C D E F G H I J K L M N O P Q R S T U V W X Y Z; do
        row=$(awk -F '\t' -v s="-$l" '$1 == s' "$tmp/rows")
        if [ -z "$row" ]; then
            "$B/$p" "-$l" < /dev/null > "$tmp/out" 2> "$tmp/err"; st=$?
            [ $st = 2 ] && grep -q "invalid option" "$tmp/err" && grep -qF "Try '$p --help'" "$tmp/err" &&
                [ ! -s "$tmp/out" ] && ok || bad "$p -$l: not an invalid option (exit $st: $(head -1 "$tmp/err"))"
        elif [ "$(printf '%s\n' "$row" | cut -f3)" != . ]; then
            "$B/$p" "-$l" < /dev/null > "$tmp/out" 2> "$tmp/err"; st=$?
            [ $st = 2 ] && grep -q "requires an argument" "$tmp/err" && grep -qF "Try '$p --help'" "$tmp/err" &&
                ok || bad "$p -$l without its argument: exit $st: $(head -1 "$tmp/err")"
        fi
    done
done

# ------------------------------------------------------------ version
v=$(sed -n 's/^#define DIAGRAMIR_VERSION "\(.*\)"$/\1/p' ir/cli.h)
[ -n "$v" ] || bad "no DIAGRAMIR_VERSION in ir/cli.h"
for m in man/*.[157]; do
    head -1 "$m" | grep -qF "\"diagramir $v\"" && ok || bad "$m: .TH does not say diagramir $v"
done
for p in $PROGRAMS; do
    out=$("$B/$p" --version); st=$?
    [ $st = 0 ] && [ "$out" = "$p (diagramir) $v" ] && ok || bad "$p --version: '$out' (exit $st)"
    out=$("$B/$p" -V)
    [ "$out" = "$p (diagramir) $v" ] && ok || bad "$p -V: '$out'"
done

# ------------------------------------------------------------ usage errors
for p in $PROGRAMS; do
    "$B/$p" --no-such-option < /dev/null > "$tmp/out" 2> "$tmp/err"; st=$?
    n=$(wc -l < "$tmp/err")
    [ $st = 2 ] && [ "$n" -le 3 ] && [ ! -s "$tmp/out" ] &&
        grep -q "unrecognized option '--no-such-option'" "$tmp/err" &&
        grep -q "^usage: $p " "$tmp/err" &&
        [ "$(tail -1 "$tmp/err")" = "Try '$p --help' for more information." ] && ok ||
        { bad "$p --no-such-option: exit $st, $n lines:"; cat "$tmp/err"; }
    "$B/$p" --color=purple < /dev/null > /dev/null 2> "$tmp/err"; st=$?
    [ $st = 2 ] && grep -q "color" "$tmp/err" && ok || bad "$p --color=purple: exit $st"
done

# ------------------------------------------------------------ -o FILE
tex=contrib/examples/flawed-triangle.tex
"$B/tikz2ir" "$tex" > "$tmp/fig.ir" || bad "tikz2ir $tex"
"$B/svg2graph" tests/svg2graph/llm-flow.svg > "$tmp/flow.ir" 2>/dev/null || bad "svg2graph llm-flow.svg"
# PROG ARGS...: the same bytes with -o FILE as on stdout, status the same
same_o() {
    p=$1; shift
    "$B/$p" "$@" > "$tmp/stdout" 2>/dev/null; st1=$?
    rm -f "$tmp/o/out"; mkdir -p "$tmp/o"
    "$B/$p" -o "$tmp/o/out" "$@" > "$tmp/o-stdout" 2>/dev/null; st2=$?
    [ $st1 = $st2 ] && [ $st1 -le 1 ] && cmp -s "$tmp/stdout" "$tmp/o/out" && [ ! -s "$tmp/o-stdout" ] &&
        [ "$(ls -A "$tmp/o")" = out ] && ok ||
        bad "$p -o FILE $*: exit $st1/$st2, or not the bytes of stdout, or stdout not empty, or files: $(ls -A "$tmp/o")"
    [ -s "$tmp/stdout" ] || bad "$p $*: no output to compare"
}
same_o tikz2ir "$tex"
same_o irlint --format tsv "$tmp/fig.ir"
same_o svg2graph tests/svg2graph/llm-flow.svg
same_o graphalign tests/graphalign/ref.ir tests/graphalign/gen.ir
same_o kappa --by criterion tests/irreport/data/human.tsv tests/irreport/data/irlint.tsv
same_o judge --dry-run tests/judge/data/geom.tsv
same_o ir2svg "$tmp/fig.ir"
same_o irreport -q --no-pictures tests/irreport/data/study.ir tests/irreport/data/human.tsv tests/irreport/data/irlint.tsv
# the long spelling and "-o -"
"$B/tikz2ir" --output "$tmp/long.ir" "$tex" && cmp -s "$tmp/long.ir" "$tmp/fig.ir" && ok || bad "--output FILE"
"$B/tikz2ir" -o - "$tex" | cmp -s - "$tmp/fig.ir" && ok || bad "-o -: not stdout"
# the mode of a new file: 0666 less the umask
( umask 027; "$B/tikz2ir" -o "$tmp/mode.ir" "$tex" )
[ "$(ls -l "$tmp/mode.ir" | cut -c1-10)" = "-rw-r-----" ] && ok || bad "mode under umask 027: $(ls -l "$tmp/mode.ir" | cut -c1-10)"
# irlint's findings (1): the file is written
"$B/irlint" --format tsv -o "$tmp/v.tsv" "$tmp/fig.ir"; st=$?
[ $st = 1 ] && grep -q '	no	' "$tmp/v.tsv" && ok || bad "irlint -o with findings: exit $st, or no file"
# errors: an old file is left as it was, no temporary file, exit 2
errs() {  # NAME PROG ARGS...: PROG -o $tmp/e/old ARGS fails (2) and leaves old alone
    name=$1; p=$2; shift 2
    rm -rf "$tmp/e"; mkdir "$tmp/e"; echo old > "$tmp/e/old"
    "$B/$p" -o "$tmp/e/old" "$@" < /dev/null > /dev/null 2>&1; st=$?
    [ $st = 2 ] && [ "$(cat "$tmp/e/old")" = old ] && [ "$(ls -A "$tmp/e")" = old ] && ok ||
        bad "$name: exit $st, old file '$(head -c 20 "$tmp/e/old")', files $(ls -A "$tmp/e" | tr '\n' ' ')"
}
printf 'diagramir 1\ndiagram x\nrect 1 2 3\nend\n' > "$tmp/bad.ir"
errs "tikz2ir: missing file" tikz2ir "$tmp/nosuch.tex"
errs "irlint: bad IR after a good one" irlint "$tmp/fig.ir" "$tmp/bad.ir"
errs "irlint --exit-zero: bad IR still 2" irlint --exit-zero "$tmp/fig.ir" "$tmp/bad.ir"
errs "svg2graph: bad XML" svg2graph tests/svg2graph/bad-xml.svg
errs "graphalign: bad IR" graphalign tests/graphalign/ref.ir "$tmp/bad.ir"
errs "kappa: missing file" kappa "$tmp/nosuch.tsv"
errs "judge: missing manifest" judge --dry-run "$tmp/nosuch.tsv"
errs "ir2svg: bad IR" ir2svg "$tmp/bad.ir"
errs "irreport: bad IR" irreport -q "$tmp/bad.ir"
# -o into a directory that does not exist: 2, a message
"$B/tikz2ir" -o "$tmp/no/such/dir/x.ir" "$tex" 2> "$tmp/err"; st=$?
[ $st = 2 ] && grep -q 'x.ir' "$tmp/err" && ok || bad "-o in a missing directory: exit $st"
"$B/tikz2ir" -o "$tmp" "$tex" 2> "$tmp/err"; st=$?
[ $st = 2 ] && grep -q 'Is a directory' "$tmp/err" && ok || bad "-o DIRECTORY: exit $st"

# killed midway: irlint has read one diagram of a stream that is still
# open (a FIFO) when the signal comes; the temporary file exists then, and
# after the signal the old file is as it was and the temporary file gone.
kill_midway() {  # SIGNAL
    sig=$1
    rm -rf "$tmp/k"; mkdir "$tmp/k"; echo old > "$tmp/k/v.tsv"
    mkfifo "$tmp/k/fifo" || { bad "mkfifo"; return; }
    # a background job of sh ignores SIGINT: env puts it back to the default
    env --default-signal="$sig" "$B/irlint" --format tsv -o "$tmp/k/v.tsv" < "$tmp/k/fifo" 2> "$tmp/k.err" &
    pid=$!
    exec 9> "$tmp/k/fifo"
    cat "$tmp/fig.ir" >&9
    i=0
    while [ -z "$(ls -A "$tmp/k" | grep '^\.v\.tsv\.tmp')" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    midway=$(ls -A "$tmp/k" | grep -c '^\.v\.tsv\.tmp')
    sleep 0.2   # irlint reads and checks the diagram, then waits for more
    kill -"$sig" "$pid"
    wait "$pid"; st=$?
    exec 9>&-
    [ "$midway" = 1 ] && ok || bad "SIG$sig: no temporary file while running (the test did not catch it midway)"
    [ $st -gt 128 ] && ok || bad "SIG$sig: irlint exit $st, not killed by the signal"
    [ "$(cat "$tmp/k/v.tsv")" = old ] && ok || bad "SIG$sig: the old file was changed"
    [ "$(ls -A "$tmp/k")" = "fifo
v.tsv" ] && ok || bad "SIG$sig: files left: $(ls -A "$tmp/k" | tr '\n' ' ')"
}
if env --default-signal=INT true 2>/dev/null; then
    kill_midway TERM
    kill_midway INT
    kill_midway HUP
else
    echo "cli: env --default-signal missing (coreutils < 8.31): the kill tests are skipped" >&2
    bad "kill tests not run"
fi

# ------------------------------------------------------------ --exit-zero
"$B/irlint" --format tsv "$tmp/fig.ir" > /dev/null; st=$?
[ $st = 1 ] && ok || bad "irlint on a flawed figure: exit $st, not 1"
"$B/irlint" --exit-zero --format tsv "$tmp/fig.ir" > "$tmp/ez"; st=$?
[ $st = 0 ] && grep -q '	no	' "$tmp/ez" && ok || bad "irlint --exit-zero: exit $st"
"$B/tikz2ir" --strict tests/tikz2ir/pic-angle.tex > /dev/null 2>&1; st=$?
[ $st = 1 ] && ok || bad "tikz2ir --strict on unparsed: exit $st, not 1"
"$B/tikz2ir" --strict --exit-zero tests/tikz2ir/pic-angle.tex > /dev/null 2>&1; st=$?
[ $st = 0 ] && ok || bad "tikz2ir --strict --exit-zero: exit $st"
for p in $PROGRAMS; do
    "$B/$p" --exit-zero "$tmp/nosuch" < /dev/null > /dev/null 2>&1; st=$?
    [ $st = 2 ] && ok || bad "$p --exit-zero with a missing file: exit $st, not 2"
done

# ------------------------------------------------------------ --color
esc=$(printf '\033')
printf '\\begin{tikzpicture}\n\\draw (0,0) -- (1,1) {;\n\\end{tikzpicture}\n' > "$tmp/bad.tex"
"$B/tikz2ir" --color=always "$tmp/bad.tex" > /dev/null 2> "$tmp/err"; st=$?
[ $st = 2 ] && ok || bad "tikz2ir bad.tex: exit $st"
grep -q "^${esc}\[1m$tmp/bad.tex:[0-9]*:[0-9]*:${esc}\[0m ${esc}\[1;31merror:${esc}\[0m " "$tmp/err" && ok ||
    { bad "--color=always: no colored 'file:line:col: error:'"; od -c "$tmp/err" | head -5; }
NO_COLOR=1 "$B/tikz2ir" --color=always "$tmp/bad.tex" 2>&1 >/dev/null | grep -q "$esc" && ok ||
    bad "--color=always with NO_COLOR: not colored (the option beats the variable)"
"$B/tikz2ir" "$tmp/bad.tex" 2> "$tmp/err" > /dev/null
grep -q "error:" "$tmp/err" && ! grep -q "$esc" "$tmp/err" && ok || bad "a pipe: colored"
"$B/tikz2ir" --color=always --color=never "$tmp/bad.tex" 2> "$tmp/err" > /dev/null
! grep -q "$esc" "$tmp/err" && ok || bad "--color=never: colored"
"$B/irlint" --color --rubric nosuch /dev/null 2> "$tmp/err"
grep -q "${esc}\[1;31merror:" "$tmp/err" && ok || bad "irlint --color: not colored"
# a warning in magenta, the rest of the line as it was
printf '\\begin{tikzpicture}\n\\pic{angle=A--B--C};\n\\end{tikzpicture}\n' > "$tmp/warn.tex"
"$B/tikz2ir" "$tmp/warn.tex" 2> "$tmp/plain" > /dev/null
"$B/tikz2ir" --color=always "$tmp/warn.tex" 2> "$tmp/col" > /dev/null
if grep -q 'warning:' "$tmp/plain"; then
    grep -q "${esc}\[1;35mwarning:" "$tmp/col" && ok || bad "warning: not magenta"
    sed "s/${esc}\[[0-9;]*m//g" "$tmp/col" | cmp -s - "$tmp/plain" && ok || bad "colors changed the text"
else
    bad "no warning from $tmp/warn.tex to color"
fi
# on a terminal: auto colors, NO_COLOR and --color=never do not
if command -v script > /dev/null 2>&1; then
    script -qec "'$B/tikz2ir' '$tmp/bad.tex' > /dev/null" /dev/null > "$tmp/tty" 2>&1
    grep -q "$esc\[1;31merror:" "$tmp/tty" && ok || bad "a terminal: auto did not color"
    NO_COLOR=1 script -qec "'$B/tikz2ir' '$tmp/bad.tex' > /dev/null" /dev/null > "$tmp/tty" 2>&1
    grep -q "error:" "$tmp/tty" && ! grep -q "$esc\[1;31m" "$tmp/tty" && ok || bad "a terminal, NO_COLOR: colored"
    script -qec "'$B/tikz2ir' --color=never '$tmp/bad.tex' > /dev/null" /dev/null > "$tmp/tty" 2>&1
    grep -q "error:" "$tmp/tty" && ! grep -q "$esc\[1;31m" "$tmp/tty" && ok || bad "a terminal, --color=never: colored"
else
    echo "cli: script(1) missing: the terminal checks are skipped" >&2
fi

if [ $fails -ne 0 ]; then
    echo "cli: $fails of $((checks + fails)) checks FAILED"
    exit 1
fi
echo "cli: all $checks checks passed"
