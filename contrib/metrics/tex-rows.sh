#!/bin/sh
# tex-rows.sh -- TeX's own extents for the strings of the tex_rows table of
# tests/unit/test_textmetrics.c, as the IM stand-in class typesets them
# (contrib/tex/IM.cls: pdfLaTeX, Open Sans at scale 0.95, sfmath and
# sansmath, every node in \sansmath\sffamily), plus amsmath and gensymb.
# Each string is set in a node with inner sep=0, outer sep=0,
# align=center, anchor=base; TeX logs the node's width and its north and
# south anchors relative to the base.  Prints the table's rows, C source:
#
#   sh contrib/metrics/tex-rows.sh > rows.txt
#
# Needs pdflatex and the opensans package (Debian texlive-fonts-extra).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
# the C strings of tex_rows, one a line
sed -n '/^} tex_rows\[\] = {/,/^};/s/^    {\("[^"]*\(\\"[^"]*\)*"\), .*/\1/p' \
    "$top/tests/unit/test_textmetrics.c" >"$tmp/c"
{
    printf '%s\n' '\documentclass{IM}' '\usepackage{amsmath}\usepackage{gensymb}' '\begin{document}' \
        '\newdimen\ya \newdimen\yb \newdimen\xa \newdimen\xb' \
        '\def\M#1#2{\begin{tikzpicture}\node[inner sep=0,outer sep=0,anchor=base,' \
        '  align=center] (m) at (0,0) {#2};' \
        '  \pgfextracty{\ya}{\pgfpointanchor{m}{north}}' \
        '  \pgfextracty{\yb}{\pgfpointanchor{m}{south}}' \
        '  \pgfextractx{\xa}{\pgfpointanchor{m}{west}}' \
        '  \pgfextractx{\xb}{\pgfpointanchor{m}{east}}\advance\xb-\xa' \
        '  \typeout{R #1 \the\xb\space \the\ya\space \the\yb}\end{tikzpicture}}'
    # C string -> TeX: drop the quotes, \\ -> \ ; \M{N}{TEXT}
    awk '{ s = substr($0, 2, length($0) - 2); gsub(/\\\\/, "\\", s); printf "\\M{%d}{%s}\n", NR, s }' "$tmp/c"
    printf '%s\n' '\end{document}'
} >"$tmp/m.tex"
(cd "$tmp" && TEXINPUTS="$top/contrib/tex:${TEXINPUTS-}" pdflatex -interaction=nonstopmode m.tex >/dev/null 2>&1) ||
    { echo "tex-rows.sh: pdflatex failed, see $tmp/m.log" >&2; trap - EXIT; exit 1; }
grep '^R ' "$tmp/m.log" | sed 's/pt//g' >"$tmp/r"
awk 'NR == FNR { c[NR] = $0; next }
     { printf "    {%s, %.5f, %.5f, %.5f},\n", c[$2], $3, $4, $5 }' "$tmp/c" "$tmp/r"
