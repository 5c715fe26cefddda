#!/bin/sh
# check-render.sh -- ir2svg's pictures against what TeX draws (issue #16).
#
#   BUILD=build sh tests/render/check-render.sh         compare (make check-render)
#   sh tests/render/check-render.sh ITEM.tex...         only these items
#   sh tests/render/check-render.sh --tex-only [ITEM.tex...]
#                                                       only fill TeX's cache
#   sh tests/render/check-render.sh --self-test [ITEM.tex...]
#                                                       the TeX side against
#       itself: each page with text hidden drawn by pdftoppm from the PDF and
#       by svgwin from dvisvgm's SVG (how faithful the SVG that TeX's side is
#       drawn from is; the items over RENDER_TOL/2 are listed)
#
# For every item of tests/data/diagramir-dev/tikz (or the files named):
#
# TeX side.  pdflatex with the stand-in class contrib/tex/IM.cls in measure
# mode (a 1in border; the class logs the page position of each
# tikzpicture's origin, \pdfsavepos; it sets the raters' fonts and
# defaults: Open Sans at scale 0.95, sans-serif nodes and math,
# Stealth[length=3mm,width=2mm] tips, \footnotesize tick labels), twice:
# as is, and with node text made
# invisible (every node/.append style={text opacity=0}: node texts,
# label= and pin= texts, pgfplots tick and axis labels).  dvisvgm --pdf
# turns each PDF page into SVG, cached by content hash (item, class,
# method) in ${XDG_CACHE_HOME:-$HOME/.cache}/diagramir-render (with no HOME, under build/).
#
# Our side.  `tikz2ir ITEM | ir2svg --png --dpi D --margin 0 --no-findings',
# as is and without the IR's text records.
#
# Alignment.  Both sides are drawn into one window of the picture's
# coordinates (IR pt, y up, origin the first tikzpicture's origin): the
# union of the IR's bbox and TeX's page less its border, grown by
# RENDER_PAD pt, its sides on the D-dpi pixel grid.  Ours: the IR's bbox
# record becomes the window, which ir2svg makes its viewBox.  TeX's: the
# window is placed on the SVG page from the logged origin (svgwin, librsvg).
# No fitting: a pixel is the same point on both sides.
#
# Measure (inkdist, see tests/render/README): strokes, the pictures with
# their text hidden, by the partial Hausdorff distance of the ink over
# RENDER_AREA pt^2; text, TeX's text ink (its two pictures' difference)
# against the IR's text boxes: how far TeX's text falls outside every box
# (text_tex), how far ir2svg's does (text_ours), and the boxes with no TeX
# text within RENDER_TEXT_TOL pt.
#
# Prints the number of items compared, how many are within RENDER_TOL pt
# (the figure), the items over it with their distances and where, the text
# findings and the skipped items with the reason; exits 1 when the share
# within RENDER_TOL is below RENDER_FLOOR percent, 2 when a tool is missing.
#
# Reasons: tests/render/reasons.tsv (item, whose, why, from looking at
# the pictures) is printed beside each item over RENDER_TOL.
#
# Environment: BUILD (build), RENDER_DPI (288), RENDER_TOL (1),
# RENDER_FLOOR (85), RENDER_AREA (1), RENDER_TEXT_TOL (3), RENDER_PAD (18),
# RENDER_JOBS (2), RENDER_KEEP=DIR (keep each item's ITEM-tex.png,
# ITEM-ours.png, ITEM-diff.png (inkdist --diff), its text boxes and its
# window there), RENDER_DATA (tests/data/diagramir-dev/tikz), TEX_TIMEOUT
# (120 s per TeX run), RENDER_NOCACHE=1 to ignore the cache, IR2SVG (the
# renderer, default $BUILD/bin/ir2svg).

set -u
LC_ALL=C
export LC_ALL

# TeX's results are cached under a hash of the item, the class and this
# number: bump it when the TeX side changes otherwise.
METHOD=4

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cls=$root/contrib/tex/IM.cls
# without HOME (as in CI), under the build tree
cache=${XDG_CACHE_HOME:-${HOME:-$root/build}/.cache}/diagramir-render
timeout=${TEX_TIMEOUT:-120}
dpi=${RENDER_DPI:-288}
pad=${RENDER_PAD:-18}
thr=${RENDER_THRESHOLD:-128}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
tikz2ir=$BUILD/bin/tikz2ir
ir2svg=${IR2SVG:-$BUILD/bin/ir2svg}
inkdist=$BUILD/render/inkdist
svgwin=$BUILD/render/svgwin

hash() {
    if command -v sha256sum >/dev/null 2>&1; then sha256sum | cut -c1-64
    else cksum | tr ' ' '-'
    fi
}

# texside ITEM.tex: TeX's two pages of the item in the cache; prints the
# cache entry's path (a directory with m.svgz, t.svgz, their PDFs m.pdf and
# t.pdf, and info: "OX OY NPICS", the first picture's origin in the SVG's
# root user units), or "fail<TAB>MESSAGE".
texside() {
    f=$1
    key=$( { cat "$f" "$cls"; echo "render method $METHOD"; } | hash)
    d=$cache/$key
    if [ "${RENDER_NOCACHE:-0}" != 1 ]; then
        if [ -s "$d/info" ]; then echo "$d"; return; fi
        if [ -s "$d.fail" ]; then printf 'fail\t%s\n' "$(cat "$d.fail")"; return; fi
    fi
    mkdir -p "$cache" || { printf 'fail\tcannot create %s\n' "$cache"; return; }
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/diagramir-render.XXXXXX") || return 1
    cp "$f" "$tmp/item.tex"
    msg=$(
        cd "$tmp" || exit 1
        TEXINPUTS="$root/contrib/tex:${TEXINPUTS-}"
        export TEXINPUTS
        # runtex JOB PRELUDE: the item with PRELUDE before it
        runtex() {
            timeout "$timeout" pdflatex -file-line-error -interaction=nonstopmode \
                -halt-on-error -jobname="$1" "\\def\\IMmeasure{}$2\\input{item.tex}" \
                >"$1.out" 2>&1 </dev/null && return 0
            [ -s "$1.log" ] && return 1
            timeout "$timeout" pdflatex -file-line-error -interaction=nonstopmode \
                -halt-on-error -jobname="$1" "\\def\\IMmeasure{}$2\\input{item.tex}" \
                >"$1.out" 2>&1 </dev/null
        }
        # the raters' fonts and defaults (the dev set's README) are the
        # class's own (contrib/tex/IM.cls)
        for job in m t; do
            if [ $job = m ]; then pre=
            else pre="\\AddToHook{begindocument/before}{\\tikzset{every node/.append style={text opacity=0}}}"
            fi
            if ! runtex $job "$pre"; then
                m=$(grep -m1 -E '^(\./)?[^:]*:[0-9]+: |^! ' $job.log 2>/dev/null |
                    sed 's|^\(\./\)\{0,1\}item\.tex:|line |; s|^! ||')
                echo "${m:-pdflatex failed (timeout or no log)}"
                exit 0
            fi
            dvisvgm --pdf --no-fonts -o $job.svg $job.pdf >dvisvgm.out 2>&1 && [ -s $job.svg ] ||
                { echo "dvisvgm: $(grep -m1 -i error dvisvgm.out)"; exit 0; }
            gzip -n -9 $job.svg || { echo "gzip failed"; exit 0; }
            mv $job.svg.gz $job.svgz
        done
        # IMORIGIN N DEPTH X Y: sp from the page's lower-left corner; the
        # SVG root has y down with that corner at (0,0)
        awk '$1 == "IMORIGIN" && $3 == 1 { n++; if (n == 1) { x = $4; y = $5 } }
             END { if (n) printf "%.6f %.6f %d\n", x / 65536 * 72 / 72.27, -y / 65536 * 72 / 72.27, n }' \
            m.log >info
        [ -s info ] || { echo "no tikzpicture origin in the log"; exit 0; }
        echo ok
    )
    if [ "$msg" = ok ]; then
        rm -rf "$d.$$" && mkdir "$d.$$" && mv "$tmp/m.svgz" "$tmp/t.svgz" "$tmp/m.pdf" "$tmp/t.pdf" "$tmp/info" "$d.$$/" &&
            { rm -rf "$d"; mv "$d.$$" "$d"; }
        rm -rf "$tmp" "$d.$$"
        echo "$d"
    else
        rm -rf "$tmp"
        printf '%s\n' "${msg:-TeX side failed}" >"$d.fail.$$" && mv "$d.fail.$$" "$d.fail"
        printf 'fail\t%s\n' "${msg:-TeX side failed}"
    fi
}

# selftest ITEM DIR: the measure of TeX's page with text hidden drawn two
# ways: pdftoppm from the PDF, svgwin from dvisvgm's SVG; the same grid
# (the page's corner).  Prints "ITEM<TAB>ok<TAB>inkdist's fields".
selftest() {
    w=$(mktemp -d "${TMPDIR:-/tmp}/diagramir-render-self.XXXXXX") || return 1
    res=$(
        cd "$w" || exit 1
        pdftoppm -r "$dpi" -png -singlefile "$2/t.pdf" p >/dev/null 2>&1 ||
            { printf 'error\tpdftoppm failed\n'; exit 0; }
        zcat "$2/t.svgz" >t.svg
        size=$(od -An -tu1 -j16 -N8 p.png | awk '{ printf "%d %d", $1*16777216 + $2*65536 + $3*256 + $4, $5*16777216 + $6*65536 + $7*256 + $8 }')
        h=$(sed -n "s/.*<svg [^>]*height='\([0-9.]*\)pt'.*/\1/p" t.svg | head -1)
        "$svgwin" --dpi "$dpi" -- 0 "-$h" $size t.svg s.png 2>/dev/null ||
            { printf 'error\tsvgwin failed\n'; exit 0; }
        m=$("$inkdist" --dpi "$dpi" --threshold "$thr" --area "${RENDER_AREA:-1}" p.png s.png) ||
            { printf 'error\tinkdist failed\n'; exit 0; }
        printf 'ok\t%s\n' "$m"
    )
    rm -rf "$w"
    printf '%s\t%s\n' "$1" "$res"
}

# compare ITEM.tex: prints "ITEM<TAB>ok<TAB>inkdist's fields<TAB>npics" or
# "ITEM<TAB>skip<TAB>REASON" or "ITEM<TAB>error<TAB>REASON".
compare() {
    f=$1
    item=$(basename "$f" .tex)
    t=$(texside "$f")
    case $t in
    fail*) printf '%s\tskip\tTeX: %s\n' "$item" "${t#fail	}"; return ;;
    esac
    [ "${TEX_ONLY:-0}" = 1 ] && { printf '%s\ttex\n' "$item"; return; }
    [ "${SELF_TEST:-0}" = 1 ] && { selftest "$item" "$t"; return; }
    w=$(mktemp -d "${TMPDIR:-/tmp}/diagramir-render-cmp.XXXXXX") || return 1
    res=$(
        cd "$w" || exit 1
        timeout 60 "$tikz2ir" "$f" >ir 2>/dev/null
        st=$?
        if [ $st -gt 1 ] || [ ! -s ir ]; then printf 'error\ttikz2ir exit %s\n' $st; exit 0; fi
        nd=$(grep -c '^diagram ' ir)
        if [ "$nd" -gt 1 ]; then
            printf 'skip\tthe IR holds %s diagrams (one per tikzpicture), TeX one page: not compared\n' "$nd"; exit 0
        fi
        zcat "$t/m.svgz" >m.svg && zcat "$t/t.svgz" >t.svg || { printf 'error\tcache unreadable\n'; exit 0; }
        # the page size (bp) from the SVG root
        page=$(sed -n "s/.*<svg [^>]*width='\([0-9.]*\)pt' height='\([0-9.]*\)pt'.*/\1 \2/p" m.svg | head -1)
        [ -n "$page" ] || { printf 'error\tno page size in the SVG\n'; exit 0; }
        read -r ox oy npics <"$t/info"
        # the window: IR pt and pixel counts; the IR's bbox replaced by it
        win=$(awk -v page="$page" -v ox="$ox" -v oy="$oy" -v dpi="$dpi" -v pad="$pad" '
            function fl(v) { return v == int(v) ? v : (v < 0 ? int(v) - 1 : int(v)) }
            function ce(v) { return -fl(-v) }
            $1 == "bbox" && !have { x1 = $2; y1 = $3; x2 = $4; y2 = $5; have = 1 }
            END {
                split(page, p, " "); k = 72.27 / 72
                # the page less its 1in border, in IR pt (origin: ox, -oy bp)
                tx1 = (72 - ox) * k; tx2 = (p[1] - 72 - ox) * k
                ty1 = (72 + oy) * k; ty2 = (p[2] - 72 + oy) * k
                if (!have) { x1 = tx1; y1 = ty1; x2 = tx2; y2 = ty2 }
                if (tx1 < x1) x1 = tx1; if (ty1 < y1) y1 = ty1
                if (tx2 > x2) x2 = tx2; if (ty2 > y2) y2 = ty2
                s = dpi / 72.27
                px1 = fl((x1 - pad) * s); px2 = ce((x2 + pad) * s)
                py1 = fl((y1 - pad) * s); py2 = ce((y2 + pad) * s)
                printf "%.9f %.9f %.9f %.9f %d %d\n", px1 / s, py1 / s, px2 / s, py2 / s, px2 - px1, py2 - py1
            }' ir)
        set -- $win
        wx1=$1 wy1=$2 wx2=$3 wy2=$4 W=$5 H=$6
        if [ "$W" -gt 12000 ] || [ "$H" -gt 12000 ]; then
            printf 'skip\tpicture too large (%sx%s px)\n' "$W" "$H"; exit 0
        fi
        # (ir2svg makes the PNG ceil((X2-X1)*D/72.27) pixels wide: X2 and Y1
        # a hair inside, so that rounding never adds a pixel)
        b=$(awk -v a="$wx1 $wy1 $wx2 $wy2" 'BEGIN { split(a, v, " ")
            printf "bbox %s %.9f %.9f %s", v[1], v[2] + 1e-6, v[3] - 1e-6, v[4] }')
        awk -v b="$b" '$1 == "bbox" { print b; next } { print }' ir >full.ir
        grep -q '^bbox ' full.ir || sed "s/^unit pt\$/unit pt\\n$b/" ir >full.ir
        grep -v '^text ' full.ir >notext.ir
        # the IR's text boxes with some text in them
        awk '$1 == "text" && $6 != "\"\"" && $6 != "\" \"" { print $2, $3, $4, $5 }' full.ir >boxes
        "$ir2svg" --png --dpi "$dpi" --margin 0 --no-findings full.ir >ours.png 2>ir2svg.err &&
            "$ir2svg" --png --dpi "$dpi" --margin 0 --no-findings notext.ir >oursn.png 2>>ir2svg.err ||
            { printf 'error\tir2svg: %s\n' "$(head -1 ir2svg.err)"; exit 0; }
        X=$(awk -v ox="$ox" -v wx1="$wx1" 'BEGIN { printf "%.9f", ox + wx1 * 72 / 72.27 }')
        Y=$(awk -v oy="$oy" -v wy2="$wy2" 'BEGIN { printf "%.9f", oy - wy2 * 72 / 72.27 }')
        "$svgwin" --dpi "$dpi" -- "$X" "$Y" "$W" "$H" m.svg tex.png 2>svgwin.err &&
            "$svgwin" --dpi "$dpi" -- "$X" "$Y" "$W" "$H" t.svg texn.png 2>>svgwin.err ||
            { printf 'error\tsvgwin: %s\n' "$(head -1 svgwin.err)"; exit 0; }
        diffopt=
        [ -n "${RENDER_KEEP:-}" ] && diffopt="--diff diff.png"
        m=$("$inkdist" --dpi "$dpi" --threshold "$thr" --area "${RENDER_AREA:-1}" --tol "${RENDER_TEXT_TOL:-3}" \
                --text-a tex.png --text-b ours.png --boxes boxes --origin "$wx1,$wy2" \
                $diffopt texn.png oursn.png 2>inkdist.err) ||
            { printf 'error\tinkdist: %s\n' "$(head -1 inkdist.err)"; exit 0; }
        if [ -n "${RENDER_KEEP:-}" ]; then
            mkdir -p "$RENDER_KEEP" && cp tex.png "$RENDER_KEEP/$item-tex.png" &&
                cp ours.png "$RENDER_KEEP/$item-ours.png" && cp diff.png "$RENDER_KEEP/$item-diff.png" &&
                cp boxes "$RENDER_KEEP/$item-boxes.txt" &&
                echo "window $wx1 $wy1 $wx2 $wy2 pixels $W $H dpi $dpi" >"$RENDER_KEEP/$item-window.txt"
        fi
        printf 'ok\t%s npics=%s\n' "$m" "$npics"
    )
    rm -rf "$w"
    printf '%s\t%s\n' "$item" "${res:-error	comparing failed}"
}

# Internal entry point for the parallel workers.
if [ "${1-}" = --one ]; then
    shift
    for f; do compare "$f"; done
    exit 0
fi

TEX_ONLY=0 SELF_TEST=0
if [ "${1-}" = --tex-only ]; then TEX_ONLY=1; shift; fi
if [ "${1-}" = --self-test ]; then SELF_TEST=1; shift; fi
export TEX_ONLY SELF_TEST
case ${1-} in
-h|--help)
    sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
-*) echo "check-render.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
esac

for tool in pdflatex dvisvgm gzip; do
    command -v $tool >/dev/null 2>&1 ||
        { echo "check-render.sh: $tool not found (make deps installs TeX)" >&2; exit 2; }
done
if [ $SELF_TEST = 1 ]; then
    for tool in "$inkdist" "$svgwin" "$(command -v pdftoppm || echo pdftoppm)"; do
        [ -x "$tool" ] || { echo "check-render.sh: $tool not found" >&2; exit 2; }
    done
elif [ $TEX_ONLY = 0 ]; then
    for tool in "$tikz2ir" "$ir2svg" "$inkdist" "$svgwin"; do
        [ -x "$tool" ] || { echo "check-render.sh: $tool not found (run make first)" >&2; exit 2; }
    done
fi

data=${RENDER_DATA:-$root/tests/data/diagramir-dev/tikz}
list=$(mktemp "${TMPDIR:-/tmp}/diagramir-render-list.XXXXXX") || exit 2
res=$(mktemp "${TMPDIR:-/tmp}/diagramir-render-res.XXXXXX") || exit 2
trap 'rm -f "$list" "$res"' EXIT
trap 'exit 2' HUP INT TERM
if [ $# -gt 0 ]; then
    for f; do
        case $f in /*) printf '%s\n' "$f" ;; *) printf '%s/%s\n' "$(pwd)" "$f" ;; esac
    done >"$list"
else
    ls "$data"/*.tex >"$list" 2>/dev/null ||
        { echo "check-render.sh: no items in $data" >&2; exit 2; }
fi

export BUILD RENDER_KEEP="${RENDER_KEEP:-}"
case $RENDER_KEEP in ''|/*) ;; *) RENDER_KEEP=$(pwd)/$RENDER_KEEP ;; esac
jobs=${RENDER_JOBS:-2}
[ -t 2 ] && echo "check-render.sh: $(wc -l <"$list") items, $jobs jobs..." >&2
xargs -P "$jobs" -n 2 sh "$0" --one <"$list" | sort -n >"$res"

if [ $TEX_ONLY = 1 ]; then
    awk -F '\t' '$2 == "skip" { s = s "\n    " $1 ": " $3; n++ } END {
        printf "check-render: TeX side of %d items cached, %d skipped%s\n", NR - n, n, s }' "$res"
    exit 0
fi

if [ $SELF_TEST = 1 ]; then
    awk -F '\t' -v tol="${RENDER_TOL:-1}" '
        function field(s, name,   a, n, i) {
            n = split(s, a, " ")
            for (i = 1; i <= n; i++) if (index(a[i], name "=") == 1) return substr(a[i], length(name) + 2)
            return ""
        }
        $2 == "skip" { next }
        $2 != "ok" { print "  " $1 ": " $3; bad++; next }
        { n++; v = field($3, "dist") + 0; if (v > worst) { worst = v; wi = $1 }
          if (v <= tol / 2) good++; else list = list sprintf("\n    %-6s %s", $1, $3) }
        END {
            printf "check-render --self-test: %d TeX pages, text hidden, pdftoppm vs dvisvgm+svgwin: %d within %.2fpt; worst %.3fpt (%s)%s\n", n, good, tol / 2, worst, wi, list
            exit bad ? 1 : 0
        }' "$res"
    exit
fi

awk -F '\t' -v reasons="$here/reasons.tsv" -v floor="${RENDER_FLOOR:-85}" -v tol="${RENDER_TOL:-1}" -v dpi="$dpi" \
    -v area="${RENDER_AREA:-1}" -v ttol="${RENDER_TEXT_TOL:-3}" '
    function field(s, name,   a, n, i) {
        n = split(s, a, " ")
        for (i = 1; i <= n; i++) if (index(a[i], name "=") == 1) return substr(a[i], length(name) + 2)
        return ""
    }
    # the numbers of list a ("1,4,7" or "-") not in list b
    function minus(a, b,   x, y, n, i, r) {
        if (a == "-") return ""
        split(b, y, ","); for (i in y) in_b[y[i]] = 1
        n = split(a, x, ","); r = ""
        for (i = 1; i <= n; i++) if (!(x[i] in in_b)) r = r (r == "" ? "" : ",") x[i]
        for (i in y) delete in_b[y[i]]
        return r
    }
    function sortby(ids, m, val,   i, j, v) {
        for (i = 2; i <= m; i++) { v = ids[i]; j = i - 1
            while (j > 0 && (val[ids[j]] < val[v] || (val[ids[j]] == val[v] && ids[j] + 0 > v + 0))) { ids[j + 1] = ids[j]; j-- }
            ids[j + 1] = v }
    }
    BEGIN {
        while ((getline l < reasons) > 0) {
            if (l ~ /^#/ || l == "") continue
            split(l, r, "\t"); why[r[1]] = r[2] ": " r[3]
        }
    }
    $2 == "skip" { skipped = skipped "\n    " $1 ": " $3; nskip++; next }
    $2 != "ok" { errors = errors "\n    " $1 ": " $3; nerr++; next }
    {
        it = $1; n++; m = $3
        d[it] = field(m, "dist") + 0
        if (d[it] <= tol) { within++; if (it in why) gone = gone " " it }
        else { over[++nover] = it }
        line[it] = sprintf("%-6s %6.2f %6.2f %6.2f   %-13s %-13s", it, d[it], field(m, "ab"), field(m, "ba"),
                           field(m, "at_ab"), field(m, "at_ba"))
        if (field(m, "npics") > 1) line[it] = line[it] " (" field(m, "npics") " pictures)"
        tt = field(m, "text_a") + 0; to = field(m, "text_b") + 0
        # boxes one side writes in and the other not (a box neither does is
        # text clipped away on both sides)
        ma = minus(field(m, "missing_a"), field(m, "missing_b"))
        mb = minus(field(m, "missing_b"), field(m, "missing_a"))
        if (tt > ttol || to > ttol || ma != "" || mb != "") {
            tx[it] = (tt > to ? tt : to); if (ma != "" || mb != "") tx[it] += 1000
            ntx++; tlist[ntx] = it
            tline[it] = sprintf("%-6s %8.2f %-13s %9.2f %-13s %s%s", it, tt, field(m, "at_text_a"), to, field(m, "at_text_b"),
                                ma == "" ? "" : " TeX none in box " ma ";", mb == "" ? "" : " ir2svg none in box " mb)
        }
        if (tt <= ttol) ttok++
        if (to <= ttol) took++
        nbox += field(m, "boxes"); if (ma != "") nmiss += split(ma, junk, ",")
    }
    END {
        rate = n ? 100 * within / n : 0
        printf "check-render: %d items compared, %d within %spt of TeX (%.1f%%; floor %s%%)\n", n, within, tol, rate, floor
        printf "  strokes: partial Hausdorff distance of the ink, text hidden (%s pt^2, %s dpi)\n", area, dpi
        printf "  text: TeX text within %spt of the IR text boxes in %d items, ir2svg text in %d; %d of %d boxes hold no TeX text\n", ttol, ttok, took, nmiss, nbox
        if (nskip) printf "  skipped %d item(s):%s\n", nskip, skipped
        if (nerr) printf "  errors in %d item(s):%s\n", nerr, errors
        if (nover) {
            sortby(over, nover, d)
            printf "  %d item(s) over %spt (dist; TeX ink to ours, ours to TeX, pt; where each is decided, pt):\n", nover, tol
            printf "  %-6s %6s %6s %6s   %-13s %-13s\n", "item", "dist", "tex>", "ours>", "at tex>ours", "at ours>tex"
            for (i = 1; i <= nover; i++) {
                print "  " line[over[i]]
                print "           " (over[i] in why ? why[over[i]] : "(not looked at yet: tests/render/reasons.tsv)")
            }
        }
        if (gone != "") printf "  within %spt now, reasons.tsv can lose them:%s\n", tol, gone
        if (ntx) {
            sortby(tlist, ntx, tx)
            printf "  %d item(s) with text off the IR boxes by more than %spt (pt outside the boxes; box: line of ITEM-boxes.txt):\n", ntx, ttol
            printf "  %-6s %8s %-13s %9s %-13s\n", "item", "TeX text", "at", "ir2svg", "at"
            for (i = 1; i <= ntx; i++) print "  " tline[tlist[i]]
        }
        exit (rate + 1e-9 < floor || nerr) ? 1 : 0
    }' "$res"
