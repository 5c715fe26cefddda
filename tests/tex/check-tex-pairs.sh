#!/bin/sh
# check-tex-pairs.sh -- TeX's side of tikz2ir's metamorphic tests.
#
#   sh tests/tex/check-tex-pairs.sh          (part of make check-tex)
#
# tests/tikz2ir/run.sh checks that tikz2ir gives tests/tikz2ir/metamorphic/
# NAME.tex (conditionals selecting branches) and NAME.inlined.tex (those
# branches written out) the same IR. This checks the premise: TeX draws the
# two the same. Each file is compiled with latex and the stand-in class
# contrib/tex/IM.cls (PGF's dvisvgm driver), turned into SVG by dvisvgm
# --no-fonts, and the two SVGs must be the same bytes and draw something.
# Exit status: 0 all pairs the same, 1 a pair differs or fails to compile,
# 2 latex or dvisvgm missing.
set -u
LC_ALL=C
export LC_ALL
root=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
for p in latex dvisvgm; do
    command -v $p >/dev/null 2>&1 || { echo "check-tex-pairs: $p not found" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tex-pairs.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# svg FILE OUT: FILE drawn by TeX as SVG into OUT; 1 when it fails
svg() {
    { printf '\\def\\pgfsysdriver{pgfsys-dvisvgm.def}\n'; cat "$1"; } >"$tmp/doc.tex"
    (cd "$tmp" && TEXINPUTS="$root/contrib/tex:" timeout 120 latex -interaction=batchmode doc.tex) \
        >/dev/null 2>&1 || return 1
    (cd "$tmp" && dvisvgm --no-fonts doc.dvi -o doc.svg) >/dev/null 2>&1 || return 1
    grep -q '<path d=' "$tmp/doc.svg" || return 1
    mv "$tmp/doc.svg" "$2"
}

n=0 bad=0
for f in "$root"/tests/tikz2ir/metamorphic/*.inlined.tex; do
    [ -f "$f" ] || continue
    m=${f%.inlined.tex}.tex
    name=$(basename "$m" .tex)
    n=$((n + 1))
    if ! svg "$m" "$tmp/a.svg" || ! svg "$f" "$tmp/b.svg"; then
        bad=$((bad + 1)); echo "check-tex-pairs: $name: TeX failed or drew nothing"; continue
    fi
    if ! cmp -s "$tmp/a.svg" "$tmp/b.svg"; then
        bad=$((bad + 1)); echo "check-tex-pairs: $name: TeX draws $name.tex and $name.inlined.tex differently"
    fi
done
echo "check-tex-pairs: $n pairs, $((n - bad)) drawn the same by TeX"
[ $bad = 0 ]
