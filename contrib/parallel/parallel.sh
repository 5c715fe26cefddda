#!/bin/sh
# contrib/parallel/parallel.sh [-S LOGINS] [-j N] [-b BINDIR] SRC OUT
#
# The TikZ half of contrib/dataset/Makefile with GNU parallel, on this
# machine or several: every SRC/ITEM.tex through tikz2ir and irlint (the
# per-item job is contrib/parallel/tikz-item.sh), OUT/ir/ITEM.ir and
# OUT/verdicts/ITEM.tsv per item, then OUT/irlint.tsv, the merged table (one
# header, rows sorted by item: the bytes of one tikz2ir | irlint over the
# items in that order). Items whose OUT/verdicts/ITEM.tsv exists are not run
# again, so after an interruption the same command finishes the rest; the
# same layout as the Makefile's, so either can resume the other's run.
#
#   -S LOGINS   GNU parallel's --sshlogin: ':' (default) is this machine;
#               'host1,host2,:' or '8/user@host1,4/host2' (N/ = jobs there)
#               spread the items over those hosts through ssh: each job's
#               .tex and the job script go to a directory of its own there
#               (--transferfile, --wd ...),
#               its two output files come back (--return) and are removed
#               there (--cleanup). Every host needs tikz2ir and irlint (-b, or
#               on its PATH), rsync (GNU parallel's transfers) and ssh
#               without a password prompt; SRC and OUT
#               are then best given as relative paths (they are made under
#               the job's directory there the same way).
#               (tests/contrib runs two such hosts through a stand-in ssh.)
#   -j N        jobs per host (default: one per CPU core of the host)
#   -b BINDIR   where the programs are (on every host); default: PATH
#
# Environment: RUBRIC (default geom), IRLINT_FLAGS, as tikz-item.sh reads.
# Exit status: 0 every item done and merged; 1 some items failed (their
# errors above; rerun to retry them); 2 usage error. irlint runs with
# --exit-zero, so "no" verdicts are results, not failures.
#
#   sh contrib/parallel/parallel.sh -b build/bin tests/data/diagramir-dev/tikz out/dev
#   sh contrib/parallel/parallel.sh -S 4/node1,4/node2 -b /opt/diagramir/bin data/tikz out/run1
logins=: jobs= bindir=
while getopts S:j:b: opt; do
    case $opt in
    S) logins=$OPTARG ;;
    j) jobs=$OPTARG ;;
    b) bindir=$OPTARG ;;
    *) echo "usage: parallel.sh [-S LOGINS] [-j N] [-b BINDIR] SRC OUT" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || { echo "usage: parallel.sh [-S LOGINS] [-j N] [-b BINDIR] SRC OUT" >&2; exit 2; }
src=${1%/} out=${2%/}
here=$(dirname "$0")
command -v parallel >/dev/null 2>&1 || { echo "parallel.sh: GNU parallel is not installed (Debian: apt-get install parallel)" >&2; exit 2; }
LC_ALL=C
export LC_ALL
mkdir -p "$out/ir" "$out/verdicts" || exit 2
# the items, and those not done yet, in item order
all=$out/items.$$ todo=$out/todo.$$
trap 'rm -f "$all" "$todo"' EXIT
trap 'exit 2' HUP INT TERM
for f in "$src"/*.tex; do
    [ -f "$f" ] && printf '%s\t%s\n' "$(basename "$f" .tex)" "$f"
done | sort -t "$(printf '\t')" -k1,1 | cut -f2 >"$all"
[ -s "$all" ] || { echo "parallel.sh: no $src/*.tex" >&2; exit 2; }
while IFS= read -r f; do
    [ -f "$out/verdicts/$(basename "$f" .tex).tsv" ] || printf '%s\n' "$f"
done <"$all" >"$todo"
st=0
if [ -s "$todo" ]; then
    # the job script travels with each job (--transferfile), so remote hosts need
    # only the programs; --return brings both outputs home
    cp "$here/tikz-item.sh" "$out/tikz-item.sh" || exit 2
    # ':' alone: no transfers (GNU parallel would warn that it ignores them)
    if [ "$logins" = : ]; then
        set --
    else
        # --wd ...: each job its own directory on the host, the job script
        # sent with each (jobs sharing one race: one's --cleanup removes a
        # directory another is transferring into)
        set -- --wd ... --transferfile {} --transferfile "$out/tikz-item.sh" \
            --return "$out/ir/{/.}.ir" --return "$out/verdicts/{/.}.tsv" --cleanup
    fi
    parallel --sshlogin "$logins" ${jobs:+-j "$jobs"} --halt never "$@" \
        "BIN='$bindir' RUBRIC='${RUBRIC:-geom}' IRLINT_FLAGS='${IRLINT_FLAGS:-}' sh '$out/tikz-item.sh' {} '$out'" \
        <"$todo" || st=1
    rm -f "$out/tikz-item.sh"
fi
# merge only when every item is there
missing=0 set --
while IFS= read -r f; do
    v=$out/verdicts/$(basename "$f" .tex).tsv
    if [ -f "$v" ]; then set -- "$@" "$v"; else missing=$((missing + 1)); fi
done <"$all"
if [ $missing -gt 0 ]; then
    echo "parallel.sh: $missing items not done; run the same command again to retry them" >&2
    exit 1
fi
sh "$here/../dataset/merge-tsv.sh" "$@" >"$out/irlint.tsv.tmp" &&
    mv "$out/irlint.tsv.tmp" "$out/irlint.tsv" || exit 2
exit $st
