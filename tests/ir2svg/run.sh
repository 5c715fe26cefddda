#!/bin/sh
# tests/ir2svg/run.sh -- tests of ir2svg (run by tests/run-all.sh).
#
#   BUILD=build sh tests/ir2svg/run.sh        (UPDATE=1: rewrite the golden SVGs)
#
# 1. Golden SVGs: every tests/ir2svg/NAME.ir (each a small hand-written
#    diagram whose comment says what it covers) drawn with the defaults
#    (NAME-all.ir: --all-findings) must give NAME.svg byte for byte, and
#    every golden file is well-formed XML.
# 2. Determinism: two runs give the same bytes (SVG and PNG).
# 3. The coordinate mapping: with --margin 0 --no-findings at D dpi the PNG
#    is ceil(W*D/72.27) x ceil(H*D/72.27) pixels for a bbox of W x H pt
#    (checked in the IHDR bytes with od), and the IR point (x, y) is the
#    pixel ((x-x1)*D/72.27, (y2-y)*D/72.27): a filled quarter of the bbox
#    lands on the right pixels.
# 4. Metamorphic: the diagrams of shapes.ir, text.ir and clip.ir shifted by
#    (7, 3) pt, their bbox left where it was, drawn at 72.27 dpi (1 pt = 1
#    pixel), are the same pictures moved by (7, -3) pixels.
# 5. Errors: bad IR (exit 2, FILE:LINE:COL, nothing written), several
#    diagrams without -d, bad options, -d names, a PNG too big.
# 6. Hostile input within HOSTILE_LIMIT seconds of CPU time each (default 5,
#    x10 under ASan): 100,000 elements, an extent that overflows, enormous
#    text.
# Exit status: 0 all passed, 1 a test failed, 2 ir2svg is missing.
. "$(dirname "$0")/../lib.sh"
R=$bin/ir2svg
[ -x "$R" ] || { echo "ir2svg/run.sh: $R not found (make first)" >&2; exit 2; }
dir=tests/ir2svg
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ir2svg-tests.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
# under the sanitizers: fontconfig's process-lifetime caches (tests/lsan.supp)
case ${LSAN_OPTIONS-} in *lsan.supp*) ;; *)
    LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    export LSAN_OPTIONS ;;
esac
limit=${HOSTILE_LIMIT:-5}
grep -aq __asan_init "$R" 2>/dev/null && limit=$((limit * 10))
. tests/cputime.sh
fail=0
bad() { echo "FAIL $*"; fail=1; }
PIX="python3 $dir/pngpix.py"

# 1. golden SVGs
for ir in "$dir"/*.ir; do
    name=$(basename "$ir" .ir)
    args=
    case $name in *-all) args=--all-findings ;; esac
    if ! "$R" $args "$ir" > "$tmp/$name.svg" 2> "$tmp/err"; then
        bad "$name: exit status $? ($(cat "$tmp/err"))"
        continue
    fi
    if [ "${UPDATE:-0}" = 1 ]; then
        cp "$tmp/$name.svg" "$dir/$name.svg"
    elif ! cmp -s "$tmp/$name.svg" "$dir/$name.svg"; then
        bad "$name: output differs from $dir/$name.svg:"
        diff "$dir/$name.svg" "$tmp/$name.svg" | head -10
    fi
done
python3 - "$dir"/*.svg <<'EOF' || bad "golden SVGs are not well-formed XML"
import sys
import xml.dom.minidom
for p in sys.argv[1:]:
    try:
        xml.dom.minidom.parse(p)
    except Exception as e:
        sys.exit("%s: %s" % (p, e))
EOF

# 2. determinism
for f in shapes text findings; do
    "$R" "$dir/$f.ir" > "$tmp/a.svg"; "$R" "$dir/$f.ir" > "$tmp/b.svg"
    cmp -s "$tmp/a.svg" "$tmp/b.svg" || bad "$f: two SVG runs differ"
    "$R" --png "$dir/$f.ir" > "$tmp/a.png"; "$R" --png "$dir/$f.ir" > "$tmp/b.png"
    cmp -s "$tmp/a.png" "$tmp/b.png" || bad "$f: two PNG runs differ"
done
# the same under another locale's number format, when there is one
if locale -a 2>/dev/null | grep -qi '^de_DE.utf'; then
    LC_ALL=$(locale -a | grep -i '^de_DE.utf' | head -1) "$R" "$dir/shapes.ir" > "$tmp/de.svg"
    cmp -s "$tmp/de.svg" "$dir/shapes.svg" || bad "output depends on the locale"
fi

# 3. the mapping: bbox 10 20 82.27 92.27 (72.27 pt = 1 in square), lower-left
# quarter filled black, at 100 dpi: 100 x 100 pixels, black at (25, 75)
cat > "$tmp/map.ir" <<'EOF'
diagramir 1
diagram map
unit pt
bbox 10 20 82.27 92.27
rect 10 20 46.135 56.135 fill=black draw=none
end
EOF
"$R" --png --margin 0 --no-findings --dpi 100 -o "$tmp/map.png" "$tmp/map.ir" || bad "mapping: exit $?"
# IHDR: bytes 16-23 are width and height, big-endian
ihdr=$(od -An -tu1 -j16 -N8 "$tmp/map.png" | tr -s ' ' | sed 's/^ //;s/ $//')
[ "$ihdr" = "0 0 0 100 0 0 0 100" ] || bad "mapping: IHDR width/height bytes '$ihdr', expected 100 x 100"
sig=$(od -An -c -j1 -N3 "$tmp/map.png" | tr -d ' ')
[ "$sig" = PNG ] || bad "mapping: not a PNG signature ($sig)"
for p in "25 75 0 0 0" "75 25 255 255 255" "10 90 0 0 0" "48 52 0 0 0" "52 48 255 255 255"; do
    set -- $p
    got=$($PIX pixel "$tmp/map.png" "$1" "$2")
    [ "$got" = "$3 $4 $5" ] || bad "mapping: pixel ($1, $2) is '$got', expected '$3 $4 $5'"
done
# other resolutions: ceil(W * D / 72.27)
for d in 72.27 150 300; do
    "$R" --png --margin 0 --no-findings --dpi $d -o "$tmp/m.png" "$tmp/map.ir" || bad "dpi $d: exit $?"
    want=$(awk -v d=$d 'BEGIN { v = 72.27 * d / 72.27; c = int(v); if (c < v - 1e-6) c++; print c, c }')
    got=$($PIX size "$tmp/m.png")
    [ "$got" = "$want" ] || bad "dpi $d: size $got, expected $want"
done
# findings never move the picture: the panel only adds canvas below/right
"$R" --margin 0 "$dir/findings.ir" | grep -q 'viewBox="-1 -51 ' || bad "findings moved the viewBox origin"
"$R" --margin 0 --no-findings "$dir/findings.ir" | grep -q 'viewBox="-1 -51 102 63"' ||
    bad "--margin 0 --no-findings: the viewBox is not the bbox"

# 4. metamorphic: shift everything but the bbox by (7, 3) pt
shift_ir() {
    awk -v dx=7 -v dy=3 'BEGIN { CONVFMT = "%.10g" }
    function pts(k, n,   i) { for (i = k; i < k + 2 * n; i += 2) { $i += dx; $(i + 1) += dy } }
    function poly(k,   i) { for (i = k; i < NF && $i !~ /[=@"]/; i += 2) { $i += dx; $(i + 1) += dy } }
    function shape(kind, k) {
        if (kind == "rect") pts(k, 2)
        else if (kind == "poly") poly(k + 1)
        else if (kind == "ellipse" || kind == "arc") pts(k, 1)
        else if (kind == "curve") pts(k, 4)
        else if (kind == "text") pts(k, 2)
    }
    $1 == "clip" { shape($2, 3) }
    $1 != "clip" { shape($1, 2) }
    $1 == "vertex" { pts(3, 2) }
    $1 == "coord" { pts(3, 1) }
    { print }' "$1"
}
for f in shapes text clip; do
    shift_ir "$dir/$f.ir" > "$tmp/$f-shift.ir"
    "$R" --png --dpi 72.27 --margin 20 --no-findings -o "$tmp/$f-a.png" "$dir/$f.ir" &&
        "$R" --png --dpi 72.27 --margin 20 --no-findings -o "$tmp/$f-b.png" "$tmp/$f-shift.ir" ||
        { bad "$f: shifted: exit $?"; continue; }
    out=$($PIX shifted "$tmp/$f-a.png" "$tmp/$f-b.png" 7 -3 2) || bad "$f: shifted by (7, 3) pt is not the picture moved by (7, -3) pixels: $out"
done

# 5. errors
printf 'diagramir 1\ndiagram x\nunit pt\nrect 0 0 1\nend\n' > "$tmp/bad.ir"
"$R" "$tmp/bad.ir" > "$tmp/out" 2> "$tmp/err"
st=$?
[ $st -eq 2 ] || bad "bad IR: exit $st, expected 2"
grep -q "bad.ir:4:[0-9]*: error" "$tmp/err" || bad "bad IR: no FILE:LINE:COL error ($(cat "$tmp/err"))"
[ -s "$tmp/out" ] && bad "bad IR: something was written to stdout"
# a good diagram before the bad one: still nothing written
cat "$dir/shapes.ir" "$tmp/bad.ir" > "$tmp/goodbad.ir"
rm -rf "$tmp/d"
"$R" --dir "$tmp/d" "$tmp/goodbad.ir" 2> "$tmp/err"
[ $? -eq 2 ] || bad "good then bad IR: exit status not 2"
[ -n "$(ls "$tmp/d" 2>/dev/null)" ] && bad "good then bad IR: files were written"
"$R" -o "$tmp/o.svg" "$tmp/bad.ir" 2>/dev/null
[ -e "$tmp/o.svg" ] && bad "bad IR: -o FILE was written"
cat "$dir/shapes.ir" "$dir/text.ir" > "$tmp/two.ir"
"$R" "$tmp/two.ir" > "$tmp/out" 2> "$tmp/err"
[ $? -eq 2 ] && grep -q -- '--dir DIR' "$tmp/err" || bad "two diagrams without --dir: not an error naming --dir"
"$R" --dpi 0 "$dir/shapes.ir" > /dev/null 2>&1; [ $? -eq 2 ] || bad "--dpi 0 accepted"
"$R" --margin x "$dir/shapes.ir" > /dev/null 2>&1; [ $? -eq 2 ] || bad "--margin x accepted"
"$R" --no-such-option > /dev/null 2>&1; [ $? -eq 2 ] || bad "a bad option: exit status not 2"
"$R" "$tmp/missing.ir" > /dev/null 2>&1; [ $? -eq 2 ] || bad "a missing file: exit status not 2"
"$R" -o a --dir b "$dir/shapes.ir" > /dev/null 2>&1; [ $? -eq 2 ] || bad "-o with --dir accepted"
"$R" --fragment "$dir/clip.ir" > "$tmp/frag.svg" || bad "--fragment: exit $?"
head -c 5 "$tmp/frag.svg" | grep -q '^<svg ' || bad "--fragment: does not start with <svg"
grep -q 'url(#d[0-9a-f]\{8\}-c' "$tmp/frag.svg" || bad "--fragment: clip ids lack the diagram's prefix"
"$R" --fragment --png "$dir/clip.ir" > /dev/null 2>&1; [ $? -eq 2 ] || bad "--fragment --png accepted"
"$R" --help | grep -q 'usage: ir2svg' || bad "--help"
"$R" --version | grep -q '^ir2svg ' || bad "--version"
printf 'diagramir 1\n' | "$R" > /dev/null 2>&1; [ $? -eq 2 ] || bad "no diagram: exit status not 2"
# -d: one file per diagram, ids sanitized, the same id twice kept apart
printf 'diagramir 1\ndiagram ../a/b\nunit pt\nend\ndiagram ../a/b\nunit pt\nend\ndiagram .x\nunit pt\nend\n' > "$tmp/ids.ir"
rm -rf "$tmp/d"
"$R" --dir "$tmp/d" "$tmp/ids.ir" || bad "--dir: exit $?"
names=$(ls "$tmp/d" | tr '\n' ' ')
[ "$names" = "_._a_b.svg _._a_b~2.svg _x.svg " ] || bad "-d: files '$names'"
"$R" --dir "$tmp/d" --png "$tmp/two.ir" && [ -s "$tmp/d/shapes.png" ] && [ -s "$tmp/d/text.png" ] || bad "--dir --png"
# the progress line: forced on it counts the diagrams and is erased; by
# default (stderr not a terminal) nothing is written
"$R" --progress --dir "$tmp/p1" "$tmp/two.ir" 2> "$tmp/err" || bad "--progress: exit $?"
grep -q 'ir2svg: 2/2 diagrams  100%' "$tmp/err" || bad "--progress: no count"
[ "$(tail -c 4 "$tmp/err" | od -An -c | tr -d ' ')" = '\r033[K' ] || bad "--progress: not erased at the end"
"$R" --dir "$tmp/p2" "$tmp/two.ir" 2> "$tmp/err" && [ ! -s "$tmp/err" ] || bad "default: stderr not empty"
DIAGRAMIR_PROGRESS=1 "$R" --no-progress --dir "$tmp/p3" "$tmp/two.ir" 2> "$tmp/err" && [ ! -s "$tmp/err" ] \
    || bad "--no-progress beats DIAGRAMIR_PROGRESS=1"
ls "$tmp/d" | grep -q tmp && bad "-d: a temporary file was left"
# a PNG over the pixel limit: refused with a message, no file
"$R" --png --dpi 10000 -o "$tmp/big.png" "$dir/shapes.ir" 2> "$tmp/err"
[ $? -eq 2 ] && grep -q 'limit' "$tmp/err" || bad "a PNG over the limit: not refused ($(cat "$tmp/err"))"
[ -e "$tmp/big.png" ] && bad "a PNG over the limit: a file was written"

# 6. hostile input
awk 'BEGIN { print "diagramir 1\ndiagram many\nunit pt\nbbox 0 0 500 500"
             for (i = 0; i < 100000; i++)
                 printf "poly open %d %d %d %d draw=red!50!blue dash=dashed arrows=-> clip=%d\n", i % 500, i % 7, (i * 7) % 500, 500 - i % 3, i % 50
             print "end" }' > "$tmp/many.ir"
awk 'BEGIN { print "diagramir 1\ndiagram huge\nunit pt\nbbox -1e308 -1e308 1e308 1e308"
             print "poly open -1e308 0 1e308 0 draw=black dash=dashed arrows=<->"
             print "ellipse 1e300 -1e300 1e300 0 0 1e-300 fill=red lw=1e300"
             print "arc 0 0 1e-300 0 0 1e300 0 1e300 draw=black arrows=->"
             print "text 1e308 1e308 -1e308 -1e308 \"x\" size=1e300 rotate=1e300"
             print "finding in-frame \"x\" verdict=no elems=1,2,3,4,99999999999999999999999"
             print "end"
             print "diagram tiny\nunit pt\nbbox 0 0 0 0\nrect 1e-300 1e-300 2e-300 2e-300\nend" }' > "$tmp/huge.ir"
awk 'BEGIN { printf "diagramir 1\ndiagram text\nunit pt\ntext 0 0 100 10 \""
             for (i = 0; i < 200000; i++) printf "A&<>\\\\n\\x01 "
             print "\" size=12\nend" }' > "$tmp/text.ir"
for f in many huge text; do
    for mode in svg png; do
        opt=; [ $mode = png ] && opt=--png
        rm -rf "$tmp/h"
        cpu_ms t0
        "$R" $opt --dir "$tmp/h" "$tmp/$f.ir" > /dev/null 2> "$tmp/err"
        st=$?
        cpu_ms t1
        [ $st -le 2 ] || bad "hostile $f ($mode): exit status $st ($(head -c 300 "$tmp/err"))"
        [ $st -eq 2 ] && ! grep -q 'ir2svg: error' "$tmp/err" && bad "hostile $f ($mode): exit 2 without a message"
        ms=$((t1 - t0))
        [ $ms -le $((limit * 1000)) ] || bad "hostile $f ($mode): $ms ms of CPU time (limit ${limit}s)"
    done
done

# The README's one-line way to see why a diagram failed, on the example it
# shows: three findings drawn, and a PNG of the size of the picture committed
# beside it (the pixels depend on librsvg's and the fonts' versions)
ex=contrib/examples/flawed-triangle
"$BUILD/bin/tikz2ir" "$ex.tex" | "$BUILD/bin/irlint" --rubric geom --format ir > "$tmp/ex.ir"
[ "$(grep -c '^finding .* verdict=no' "$tmp/ex.ir")" = 3 ] || bad "README example: not 3 failing findings"
"$R" --png < "$tmp/ex.ir" > "$tmp/ex.png" || bad "README example: ir2svg exit $?"
[ "$(od -An -tu1 -j16 -N8 "$tmp/ex.png")" = "$(od -An -tu1 -j16 -N8 "$ex.png")" ] ||
    bad "README example: $ex.png is not the size ir2svg draws now (remake it with the README's command)"

[ $fail -eq 0 ] || exit 1
exit 0
