#!/bin/sh
# contrib/parallel/tikz-item.sh FILE.tex OUT -- one item of a TikZ dataset,
# the files and commands of contrib/dataset/Makefile: OUT/ir/ITEM.ir
# (tikz2ir -q) and OUT/verdicts/ITEM.tsv (irlint --exit-zero --format tsv),
# each written to a temporary file and renamed when complete, so a killed
# job leaves no half file. Does nothing when OUT/verdicts/ITEM.tsv exists:
# a rerun, by this script, the Makefile or another runner, resumes.
#
# Environment: BIN, the directory of the programs (default: found on PATH);
# RUBRIC (default geom); IRLINT_FLAGS (more irlint options).
# Exit status: 0 done; 2 an input error (tikz2ir's or irlint's message on
# standard error; no output file for the item).
[ $# = 2 ] || { echo "usage: tikz-item.sh FILE.tex OUT" >&2; exit 2; }
tex=$1 out=$2
item=$(basename "$tex" .tex)
ir=$out/ir/$item.ir
v=$out/verdicts/$item.tsv
[ -f "$v" ] && exit 0
mkdir -p "$out/ir" "$out/verdicts" || exit 2
bin=${BIN:+$BIN/}
if [ ! -f "$ir" ] || [ -n "$(find "$tex" -newer "$ir")" ]; then
    "${bin}tikz2ir" -q "$tex" >"$ir.tmp.$$" && mv "$ir.tmp.$$" "$ir" ||
        { rm -f "$ir.tmp.$$"; exit 2; }
fi
# shellcheck disable=SC2086 # IRLINT_FLAGS is a list of options
"${bin}irlint" --exit-zero --rubric "${RUBRIC:-geom}" --format tsv ${IRLINT_FLAGS:-} "$ir" \
    >"$v.tmp.$$" && mv "$v.tmp.$$" "$v" || { rm -f "$v.tmp.$$"; exit 2; }
