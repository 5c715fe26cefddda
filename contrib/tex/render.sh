#!/bin/sh
# render.sh -- render one DiagramIR item (a LaTeX document using the IM class)
# with TeX, using the stand-in class in this directory.
#
#   sh contrib/tex/render.sh ITEM.tex OUT.png [OUT.svg]
#
# PNG: pdflatex, then pdftoppm -png -r RENDER_DPI (default 100; the page is the picture's PGF
#      bounding box, border 0pt, as with the real class).
# SVG: latex (PGF's dvisvgm driver), then dvisvgm --bbox=min --no-fonts
#      (glyphs as paths, so the SVG needs no fonts).
# Work happens in a temporary directory; nothing is written beside ITEM.tex.
# Exit status: 0 rendered; 1 TeX or a converter failed (TeX's error line,
# file:line: message, on stderr); 2 usage.
# Environment: TEX_TIMEOUT (seconds per TeX run, default 120), RENDER_DPI
# (the PNG's resolution, default 100; judge's images: 150).

usage() {
    echo "usage: render.sh ITEM.tex OUT.png [OUT.svg]" >&2
    exit 2
}
[ $# -eq 2 ] || [ $# -eq 3 ] || usage
item=$1 png=$2 svg=${3-}
[ -r "$item" ] || { echo "render.sh: $item: cannot read" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
abspath() {
    case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$(pwd)" "$1" ;; esac
}
png=$(abspath "$png")
[ -n "$svg" ] && svg=$(abspath "$svg")
name=$(basename "$item" .tex)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/diagramir-render.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
cp "$item" "$tmp/$name.tex" || exit 1
cd "$tmp" || exit 1

TEXINPUTS="$here:${TEXINPUTS-}"
export TEXINPUTS
timeout=${TEX_TIMEOUT:-120}

# runtex ENGINE: runs ENGINE on the item; on failure prints TeX's first
# error (file:line: message) with the item's path and returns 1.
runtex() {
    if ! timeout "$timeout" "$1" -file-line-error -interaction=nonstopmode \
            -halt-on-error "$name.tex" >"$1.out" 2>&1 </dev/null; then
        msg=$(grep -m1 -E '^(\./)?[^:]*:[0-9]+: |^! ' "$name.log" 2>/dev/null)
        [ -n "$msg" ] || msg="$1 failed (timeout or no log)"
        case $msg in
        "! "*) msg="$item: $1: ${msg#! }" ;;
        ./"$name.tex:"*|"$name.tex:"*) msg="$item:${msg#*"$name.tex:"}" ;;
        *) msg="$item: $1: $msg" ;;
        esac
        printf '%s\n' "$msg" >&2
        return 1
    fi
}

runtex pdflatex || exit 1
pdftoppm -png -r "${RENDER_DPI:-100}" -singlefile "$name.pdf" page >pdftoppm.out 2>&1 ||
    { echo "$item: pdftoppm failed: $(head -1 pdftoppm.out)" >&2; exit 1; }
mkdir -p "$(dirname "$png")" && cp page.png "$png" || exit 1

if [ -n "$svg" ]; then
    runtex latex || exit 1
    dvisvgm --bbox=min --no-fonts -o page.svg "$name.dvi" >dvisvgm.out 2>&1 &&
        [ -s page.svg ] ||
        { echo "$item: dvisvgm failed: $(grep -m1 -i error dvisvgm.out)" >&2; exit 1; }
    mkdir -p "$(dirname "$svg")" && cp page.svg "$svg" || exit 1
fi
exit 0
