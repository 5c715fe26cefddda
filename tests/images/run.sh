#!/bin/sh
# tests/images/run.sh -- the pictures judge and svg2graph --llm send a model
# (llm/image.c; judge(1), IMAGES), against the fake server
# tests/judge/fakellm.py --capture, which records every request body:
#
#   - an SVG input arrives as a PNG of the SVG's size at 150 dpi (box.svg:
#     200pt x 100pt -> 417 x 209), a PNG input as it is;
#   - a TikZ input (a whole document, and a bare tikzpicture) arrives as a
#     PNG of TeX's picture (needs TeX: skipped with a message without it);
#   - the second run takes the pictures from the cache: the cached file is
#     what is sent (a planted PNG comes back), and TikZ needs no TeX then;
#   - the limits (--image-max-bytes, --image-max-side, --tex-timeout), a
#     hostile SVG (billion laughs, a huge canvas) and a missing TeX give exit
#     2 with a message naming the limit, in bounded time, with nothing sent;
#   - a TikZ source TeX rejects fails its item (exit 1), at its own line;
#   - svg2graph --llm sends the SVG's picture with both steps' requests.
#
#   BUILD=build sh tests/images/run.sh
. "$(dirname "$0")/../lib.sh"
judge=$bin/judge S2G=$bin/svg2graph
[ -x "$judge" ] && [ -x "$S2G" ] || { echo "images: $judge or $S2G not built" >&2; exit 1; }
command -v python3 >/dev/null 2>&1 || { echo "images: python3 is needed for the fake server" >&2; exit 1; }
DIAGRAMIR_RUBRICS=$root/llm/rubrics
export DIAGRAMIR_RUBRICS
unset OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MODEL DIAGRAMIR_TEX
d=tests/images
tmp=$(mktemp -d "${TMPDIR:-/tmp}/images-test.XXXXXX") || exit 1
. tests/judge/fakellm.sh
XDG_CACHE_HOME=$tmp/xdg   # nothing of the tests in the user's cache
export XDG_CACHE_HOME
srv_pid=
cleanup() {
    [ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null
    [ -n "$KEEP" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

pass=0 fail=0
bad() { fail=$((fail + 1)); printf 'FAIL: %s\n' "$*"; }
check() {  # name, then a command that must succeed
    name=$1; shift
    if "$@"; then pass=$((pass + 1)); else bad "$name"; fi
}

fakellm_start images --capture "$tmp/cap"
nreq() { wc -l <"$tmp/req.log" | tr -d ' '; }
# sizes: the images of the requests captured since the last call, one line each
sizes() { python3 $d/pngsize.py "$tmp/cap"; : >"$tmp/cap"; }

have_tex=1
for t in pdflatex pdftoppm; do command -v $t >/dev/null 2>&1 || have_tex=0; done

# manifest FILE IMAGE...: a geom manifest, one item per image (mode image)
manifest() {
    f=$1; shift
    printf 'item\tcode\timage\tquestion\n' >"$f"
    k=0
    for img in "$@"; do
        k=$((k + 1))
        printf 'i%d\t%s\t%s\tq\n' $k "$root/tests/judge/data/tri.tex" "$img" >>"$f"
    done
}
# (the manifests, written to $tmp, name the project's test files: allowed)
J() { "$judge" --mode image --base-url "$url" --model fake -j 1 --cache-dir "$tmp/cache" \
        --allow-files "$root" "$@"; }

# --- SVG and PNG: what the model sees
manifest "$tmp/svg.tsv" "$root/$d/box.svg" "$root/tests/judge/data/white.png"
J "$tmp/svg.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "svg: judged (exit 0)" [ $st = 0 ]
printf '417x209\n%s\n' "$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
print("%dx%d" % struct.unpack(">II", b[16:24]))' tests/judge/data/white.png)" >"$tmp/want"
sizes >"$tmp/got"
check "svg: a 417x209 PNG for box.svg, white.png as it is ($(tr '\n' ' ' <"$tmp/got"))" \
    cmp -s "$tmp/want" "$tmp/got"
check "svg: stats name one conversion" grep -q 'images: 1 converted' "$tmp/err"
png=$(find "$tmp/cache/images" -name '*.png' | head -1)
check "svg: the picture is in the cache (cache-dir/images/HH/KEY.png)" \
    sh -c "[ -n '$png' ] && [ \$(find '$tmp/cache/images' -name '*.png' | wc -l) = 1 ]"

# --- the second run: from the cache. A PNG planted in the cache file is
# what goes out, so nothing was converted again.
cp tests/judge/data/gray.png "$png"
J --no-header "$tmp/svg.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
check "cache: judged (exit 0)" [ $st = 0 ]
gray=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
print("%dx%d" % struct.unpack(">II", b[16:24]))' tests/judge/data/gray.png)
sizes >"$tmp/got"
# the LLM cache answers an identical request: only a changed one is sent
check "cache: the planted picture went out ($(tr '\n' ' ' <"$tmp/got"))" \
    sh -c "head -1 '$tmp/got' | grep -qx '$gray'"
check "cache: stats say 0 converted" grep -q 'images: 0 converted.*1 from the cache' "$tmp/err"

# --- the limits: exit 2, the limit named, nothing sent
r0=$(nreq)
J --no-cache --image-max-side 300 "$tmp/svg.tsv" >/dev/null 2>"$tmp/err"; st=$?
check "max-side: exit 2" [ $st = 2 ]
check "max-side: message" grep -q 'box.svg: .*417 x 209 pixels.*over the limit of 300 a side.*--image-max-side' "$tmp/err"
J --no-cache --image-max-bytes 100 "$tmp/svg.tsv" >/dev/null 2>"$tmp/err"; st=$?
check "max-bytes: exit 2" [ $st = 2 ]
check "max-bytes: message" grep -q 'box.svg: [0-9]* bytes, over the limit of 100 bytes (--image-max-bytes)' "$tmp/err"
J --no-cache --image-max-pixels 50000 "$tmp/svg.tsv" >/dev/null 2>"$tmp/err"; st=$?
check "max-pixels: exit 2" [ $st = 2 ]
check "max-pixels: message" grep -q '50000 in all' "$tmp/err"
check "limits: no request sent" [ "$(nreq)" = "$r0" ]
: >"$tmp/cap"

# --- hostile SVG: a clear error in bounded time and memory (4 GB of address
# space for judge and its children; not under AddressSanitizer, whose shadow
# memory alone reserves terabytes: there judge does not even start)
vlimit=4000000
# (the probe's own shell reports the abort: its stderr goes too)
sh -c 'ulimit -v "$1" && "$2" --version' - "$vlimit" "$judge" >/dev/null 2>&1 || vlimit=unlimited
for h in laughs huge; do
    manifest "$tmp/h.tsv" "$root/$d/$h.svg"
    start=$(date +%s)
    (ulimit -v $vlimit; J --no-cache "$tmp/h.tsv") >/dev/null 2>"$tmp/err"; st=$?
    took=$(($(date +%s) - start))
    check "$h.svg: exit 2" [ $st = 2 ]
    check "$h.svg: within 20 s (took $took)" [ $took -le 20 ]
    case $h in
    laughs) check "laughs.svg: message" grep -q 'laughs.svg: not a readable SVG document: .*entity' "$tmp/err" ;;
    huge) check "huge.svg: message" grep -q 'huge.svg: the SVG is 1000000 x 1000000 pixels.*over the limit' "$tmp/err" ;;
    esac
done
check "hostile: no request sent" [ "$(nreq)" = "$r0" ]

# --- not an image
manifest "$tmp/t.tsv" "$root/tests/judge/data/expl.txt"
J "$tmp/t.tsv" >/dev/null 2>"$tmp/err"; st=$?
check "text file: exit 2" [ $st = 2 ]
check "text file: message" grep -q 'expl.txt: not an image: PNG, JPEG, GIF, WebP, SVG or TikZ' "$tmp/err"

# --- no TeX: a TikZ input is a clear error (PATH without TeX, no cache)
manifest "$tmp/tex.tsv" "$root/$d/bare.tex"
PATH=/nonexistent "$judge" --mode image --base-url "$url" --model fake --no-cache --allow-files "$root" \
    "$tmp/tex.tsv" >/dev/null 2>"$tmp/err"; st=$?
check "no TeX: exit 2" [ $st = 2 ]
check "no TeX: message" grep -q 'bare.tex: a TikZ input needs TeX, and pdflatex is not installed' "$tmp/err"

# --- TikZ through TeX
if [ $have_tex = 1 ]; then
    manifest "$tmp/tex.tsv" "$root/$d/bare.tex" "$root/tests/judge/data/tri.tex"
    start=$(date +%s)
    J "$tmp/tex.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
    took=$(($(date +%s) - start))
    check "tikz: judged (exit 0)" [ $st = 0 ]
    sizes >"$tmp/got"
    # bare.tex: 2cm x 1cm, 0.4pt line: 118.1 + 0.8 by 59.1 + 0.8 pixels at 150 dpi
    check "tikz: bare.tex a PNG of about 120 x 61 ($(head -1 "$tmp/got"))" \
        awk -Fx 'NR == 1 { exit !($1 >= 117 && $1 <= 122 && $2 >= 58 && $2 <= 63) }' "$tmp/got"
    # tri.tex: legs 4cm and 3cm at 1cm = 1 unit... as drawn, wider than high
    check "tikz: tri.tex a PNG, wider than high, 100..1500 px ($(sed -n 2p "$tmp/got"))" \
        awk -Fx 'NR == 2 { exit !($1 > $2 && $1 >= 100 && $1 <= 1500 && $2 >= 100) }' "$tmp/got"
    check "tikz: two conversions" grep -q 'images: 2 converted' "$tmp/err"
    echo "images: TeX converted 2 TikZ inputs in ${took}s (judge's whole run)" >&2
    # the cache: the same run again needs no TeX at all
    PATH=/nonexistent "$judge" --mode image --base-url "$url" --model fake --cache-dir "$tmp/cache" --allow-files "$root" \
        -j 1 "$tmp/tex.tsv" >/dev/null 2>"$tmp/err"; st=$?
    check "tikz cache: judged without TeX on PATH (exit 0)" [ $st = 0 ]
    check "tikz cache: 0 converted" grep -q 'images: 0 converted.*2 from the cache' "$tmp/err"
    : >"$tmp/cap"

    # the TeX time limit
    manifest "$tmp/loop.tsv" "$root/$d/loop.tex"
    start=$(date +%s)
    J --no-cache --tex-timeout 2 "$tmp/loop.tsv" >/dev/null 2>"$tmp/err"; st=$?
    took=$(($(date +%s) - start))
    check "tex-timeout: exit 2" [ $st = 2 ]
    check "tex-timeout: message" grep -q 'loop.tex: TeX took over 2 s, the limit (--tex-timeout)' "$tmp/err"
    check "tex-timeout: stopped in time (took $took s)" [ $took -le 10 ]

    # a TikZ source TeX rejects: that item fails, at the input's own line
    manifest "$tmp/broken.tsv" "$root/$d/broken.tex" "$root/$d/box.svg"
    J "$tmp/broken.tsv" >"$tmp/out" 2>"$tmp/err"; st=$?
    check "broken tikz: exit 1 (the item failed)" [ $st = 1 ]
    check "broken tikz: TeX's error at line 3 of the input" \
        grep -q "^# failed	i1	fake	TeX: .*broken.tex:3: Undefined control sequence" "$tmp/out"
    check "broken tikz: the other item judged" grep -q '^i2	' "$tmp/out"
    : >"$tmp/cap"
else
    echo "images: TeX (pdflatex, pdftoppm) not installed: the TikZ cases are skipped" >&2
fi

# --- svg2graph --llm: both steps carry the SVG's picture
"$S2G" --llm --base-url "$url" --model fake --cache-dir "$tmp/cache" -q \
    tests/svg2graph-llm/pipeline.svg >/dev/null 2>"$tmp/err"; st=$?
check "svg2graph: refined (exit 0 or 1: the fake's answers)" [ $st -le 1 ]
sizes >"$tmp/got"
want=$(python3 -c '
import re, sys, math
s = open(sys.argv[1]).read()
w = re.search(r"<svg[^>]*\swidth=\"([0-9.]+)(pt|px)?\"", s); h = re.search(r"<svg[^>]*\sheight=\"([0-9.]+)(pt|px)?\"", s)
k = 150 / 72 if w.group(2) == "pt" else 1
print("%dx%d" % (math.ceil(float(w.group(1)) * k - 1e-6), math.ceil(float(h.group(1)) * k - 1e-6)))' \
    tests/svg2graph-llm/pipeline.svg)
check "svg2graph: two requests, each with one ${want} PNG ($(tr '\n' ' ' <"$tmp/got"))" \
    sh -c "[ \"\$(cat '$tmp/got')\" = \"$(printf '%s\n%s' "$want" "$want")\" ]"
"$S2G" --llm --llm-no-image --base-url "$url" --model fake --no-cache -q \
    tests/svg2graph-llm/pipeline.svg >/dev/null 2>&1
check "svg2graph --llm-no-image: no picture" sh -c "[ \"\$(python3 $d/pngsize.py '$tmp/cap' | sort -u)\" = - ]"
: >"$tmp/cap"
r0=$(nreq)
"$S2G" --llm --base-url "$url" --model fake --no-cache --image-max-side 100 \
    tests/svg2graph-llm/pipeline.svg >"$tmp/out" 2>"$tmp/err"; st=$?
check "svg2graph: over the limit exits 2" [ $st = 2 ]
check "svg2graph: ... with the message" grep -q 'pipeline.svg: error: llm: the picture for the model: .*over the limit of 100 a side' "$tmp/err"
check "svg2graph: ... nothing sent" [ "$(nreq)" = "$r0" ]

echo "images: $pass passed, $fail failed"
[ $fail = 0 ]
