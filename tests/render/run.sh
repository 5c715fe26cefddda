#!/bin/sh
# Tests of check-render's measuring tools (run by tests/run-all.sh):
# hand-made pictures with known ink distances, drawn by svgwin, measured
# by inkdist.  At --dpi 288 svgwin draws 4 pixels per SVG unit (1bp);
# inkdist at --dpi 289.08 counts 4 pixels per pt, so a shift of one unit is
# exactly 1pt and the default area (1pt^2) is 16 pixels.
BUILD=${BUILD:-build}
inkdist=$BUILD/render/inkdist
svgwin=$BUILD/render/svgwin
for t in "$inkdist" "$svgwin"; do
    [ -x "$t" ] || { echo "render/run.sh: $t not built (make check-fast builds it)"; exit 1; }
done
# GLib's and librsvg's caches are left for the end of the process
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS
tmp=$(mktemp -d "${TMPDIR:-/tmp}/diagramir-render-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# svg NAME SHAPES...: a 100x100pt page with the shapes
svg() {
    name=$1; shift
    { echo "<svg xmlns='http://www.w3.org/2000/svg' width='100pt' height='100pt' viewBox='0 0 100 100'>"
      for s; do echo "$s"; done
      echo "</svg>"; } >"$tmp/$name.svg"
}
# png NAME [X Y]: NAME.svg drawn into a 400x400 PNG from (X,Y)
png() {
    "$svgwin" --dpi 288 -- "${2:-0}" "${3:-0}" 400 400 "$tmp/$1.svg" "$tmp/$1.png" ||
        { echo "FAIL: svgwin $1"; fail=1; }
}
# expect WHAT FIELD=VALUE... -- inkdist ARGS: the fields of inkdist's line
expect() {
    what=$1; shift
    want=""
    while [ "$1" != -- ]; do want="$want $1"; shift; done
    shift
    got=$("$inkdist" --dpi 289.08 "$@" 2>&1)
    st=$?
    for kv in $want; do
        case " $got " in
        *" $kv "*) ;;
        *) echo "FAIL: $what: want $kv, got: $got (exit $st)"; fail=1; return ;;
        esac
    done
}

bar='<rect x="10" y="10" width="1" height="80"/>'
svg bar "$bar"
svg bar2 "$bar"
svg shifted '<rect x="11" y="10" width="1" height="80"/>'
svg blob "$bar" '<rect x="50" y="50" width="4" height="4"/>'
svg speck "$bar" '<rect x="50" y="50" width="0.5" height="0.5"/>'
svg empty
svg grey50 '<rect x="10" y="10" width="1" height="80" fill="#808080"/>'
svg grey '<rect x="10" y="10" width="1" height="80" fill="#7f7f7f"/>'
# a bar a quarter of a unit (one pixel) right, drawn from a window moved
# the same way: the same pixels as bar
svg offbar '<rect x="10.25" y="10" width="1" height="80"/>'
for p in bar bar2 shifted blob speck empty grey50 grey; do png $p; done
png offbar 0.25 0

expect "identical pictures" dist=0.000 ab=0.000 ba=0.000 max=0.000 inka=1280 inkb=1280 -- "$tmp/bar.png" "$tmp/bar2.png"
expect "a bar one pt (4 px) off" dist=1.000 ab=1.000 ba=1.000 max=1.000 -- "$tmp/bar.png" "$tmp/shifted.png"
# the blob's 16x16 pixels (columns 200..215) lie 157..172 px from the bar
# (columns 40..43): its 16 farthest, a whole column, 172 px = 43pt
expect "an extra 4x4pt blob" dist=43.000 ab=0.000 ba=43.000 max=43.000 -- "$tmp/bar.png" "$tmp/blob.png"
# a 2x2 pixel speck (columns 200..201: 157 and 158 px off) is less than
# 1pt^2: it decides max, not dist
expect "a stray speck" dist=0.000 ba=0.000 max=39.500 -- "$tmp/bar.png" "$tmp/speck.png"
expect "...unless the area is smaller" dist=39.250 -- --area 0.25 "$tmp/bar.png" "$tmp/speck.png"
expect "nothing on one side: the window's diagonal" ab=141.421 ba=0.000 inkb=0 -- "$tmp/bar.png" "$tmp/empty.png"
expect "both empty" dist=0.000 inka=0 inkb=0 -- "$tmp/empty.png" "$tmp/empty.png"
expect "50% grey is not ink" inka=0 -- "$tmp/grey50.png" "$tmp/bar.png"
expect "a little darker is" inka=1280 dist=0.000 -- "$tmp/grey.png" "$tmp/bar.png"
expect "a window placed to the pixel" dist=0.000 max=0.000 inka=1280 -- "$tmp/bar.png" "$tmp/offbar.png"

# text: bar plus a 10x4 block standing for a word at x 30..40, y 40..44
# (SVG, y down); in pt with y up and --origin 0,100 that is 30 56 40 60
svg word "$bar" '<rect x="30" y="40" width="10" height="4"/>'
svg wordlow "$bar" '<rect x="30" y="42" width="10" height="4"/>'
png word; png wordlow
echo "30 56 40 60" >"$tmp/box"
printf '30 56 40 60\n# a box nothing is written in\n70 10 80 14\n' >"$tmp/box2"
expect "text in its box" dist=0.000 text_a=0.000 text_b=0.000 text_ab=0.000 boxes=1 missing_a=- missing_b=- -- \
    --text-a "$tmp/word.png" --text-b "$tmp/word.png" --boxes "$tmp/box" --origin 0,100 "$tmp/bar.png" "$tmp/bar2.png"
expect "ours 2pt low" text_a=0.000 text_b=2.000 text_ab=2.000 missing_b=- -- \
    --text-a "$tmp/word.png" --text-b "$tmp/wordlow.png" --boxes "$tmp/box" --origin 0,100 "$tmp/bar.png" "$tmp/bar2.png"
expect "an empty box (line 3 of the file)" boxes=2 missing_a=3 missing_b=3 -- \
    --text-a "$tmp/word.png" --text-b "$tmp/word.png" --boxes "$tmp/box2" --origin 0,100 "$tmp/bar.png" "$tmp/bar2.png"

# errors: another size, a missing file
printf '<svg xmlns="http://www.w3.org/2000/svg" width="10pt" height="10pt"/>\n' >"$tmp/small.svg"
"$svgwin" -- 0 0 40 40 "$tmp/small.svg" "$tmp/small.png"
"$inkdist" "$tmp/bar.png" "$tmp/small.png" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: sizes that differ: want exit 2"; fail=1; }
"$inkdist" "$tmp/bar.png" "$tmp/nonesuch.png" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: a missing file: want exit 2"; fail=1; }
"$svgwin" -- 0 0 0 10 "$tmp/bar.svg" "$tmp/x.png" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: svgwin, an empty window: want exit 2"; fail=1; }
exit $fail
