#!/bin/sh
# check-tex.sh -- tikz2ir's picture extents against what TeX draws.
#
#   BUILD=build sh tests/tex/check-tex.sh          compare (make check-tex)
#   sh tests/tex/check-tex.sh --tsv                TeX's extents only, as TSV
#                                                  (tests/tex/tex-bbox.tsv)
#   sh tests/tex/check-tex.sh [--tsv] ITEM.tex...  only these items
#
# For every item of tests/data/diagramir-dev/tikz (or the files named):
#
# TeX side.  The item is compiled with pdflatex and the stand-in class
# contrib/tex/IM.cls in measure mode (\def\IMmeasure{} before \input); the
# class logs where the origin of each tikzpicture lands on the page
# (\pdfsavepos).  `dvisvgm --pdf --no-fonts' turns the PDF page into SVG
# (Ghostscript interprets the page: paths, clip paths, and glyphs as
# outlines), and the awk program below computes the ink extent of that SVG:
# every painted element, strokes cut into their dashes and widened by half
# their line width, cut to its clip paths (text too).  The extent is
# converted from bp (y down) to TeX pt, y up, relative to the origin of the
# first tikzpicture, as in the IR.
#
# Why not `latex' + `dvisvgm --bbox=min' on the DVI: with PGF's dvisvgm
# driver, dvisvgm does not bound the raw SVG graphics (the box is PGF's own
# picture box); with the dvips driver it bounds the PostScript graphics but
# ignores clipping for text and bounds curves by their control points.
# Approximations left (each well below the tolerance): a stroke adds half
# its width also beyond butt line ends and miter joins are not extended,
# and a non-rectangular clip path cuts by its bounding box.  Checked against
# the non-white pixels of the page rendered at 288 dpi: within 0.7pt on
# every dev item.
#
# IR side.  The `bbox X1 Y1 X2 Y2' record of `$BUILD/bin/tikz2ir ITEM.tex'.
#
# An item agrees when each of its four sides is within
# max(TEX_TOL_PT, TEX_TOL_PCT% of TeX's extent along that axis) of TeX's.
# Items TeX cannot compile (e.g. 365, an undefined macro) are skipped and
# listed.  Prints the number of items compared, the agreement rate and the
# worst items; exits 1 when the rate is below TEX_FLOOR percent, 2 when
# something is missing (TeX, dvisvgm, tikz2ir).
#
# When an item has several tikzpictures, TeX's extent covers all of them,
# relative to the origin of the first (flagged in the report).
#
# TeX's results are cached by content hash (item, class, method) in
# ${XDG_CACHE_HOME:-$HOME/.cache}/diagramir-tex, so a rerun only runs tikz2ir.  Items are measured in parallel (TEX_JOBS,
# default: the number of processors).
#
# Environment: BUILD (build), TEX_FLOOR (90), TEX_TOL_PT (3), TEX_TOL_PCT (3),
# TEX_WORST (15), TEX_JOBS, TEX_TIMEOUT (120 s per TeX run),
# TEX_DATA (tests/data/diagramir-dev/tikz), TEX_NOCACHE=1 to ignore the cache.

set -u
LC_ALL=C
export LC_ALL

# The TeX results are cached under a hash of the item, the class, the awk
# program and this number: bump it when the measuring changes otherwise.
METHOD=1

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cls=$root/contrib/tex/IM.cls
# without HOME (as in CI), under the build tree
cache=${XDG_CACHE_HOME:-${HOME:-$root/build}/.cache}/diagramir-tex
timeout=${TEX_TIMEOUT:-120}

hash() {
    if command -v sha256sum >/dev/null 2>&1; then sha256sum | cut -c1-64
    elif command -v shasum >/dev/null 2>&1; then shasum -a 256 | cut -c1-64
    else cksum | tr ' ' '-'
    fi
}

# svgbbox_awk: the awk program that computes the ink box of an SVG written
# by dvisvgm --pdf (root user units: bp, y down).  It walks the elements
# with their transforms and the fill, stroke, stroke width, dash pattern and
# clip path they have or inherit from their groups; curves are flattened
# finely; a stroke is cut into its dashes and widened by half its width; an
# element is cut to the bounding box of its clip paths segment by segment
# (a filled area also keeps the clip box corners inside it).
svgbbox_awk() {
    cat <<'AWK'
# svgbbox.awk -- ink extent of an SVG written by dvisvgm: prints
# "X1 Y1 X2 Y2" (root user units, y down) or "empty".  -v debug=1 prints
# every painted element's box to stderr.
function min(a, b) { return a < b ? a : b }
function max(a, b) { return a > b ? a : b }
function attr(s, name,   p) {
    if (match(s, "[ \t\n]" name "='[^']*'") || match(s, "[ \t\n]" name "=\"[^\"]*\"")) {
        p = length(name) + 3
        return substr(s, RSTART + p, RLENGTH - p - 1)
    }
    return ""
}
# --- path data -> polylines: points PX/PY[1..np], subpaths SB/SN/SZ[1..ns]
# (first point, number of points, closed)
function pt(x, y) { np++; PX[np] = x; PY[np] = y; SN[ns]++ }
function newsub(x, y) { ns++; SB[ns] = np + 1; SN[ns] = 0; SZ[ns] = 0; pt(x, y) }
function segs(x0, y0, x3, y3, len,   n) {
    # pieces for a curve whose control polygon is len long (bp): fine enough
    # that a piece's sagitta is far below 0.01bp for the sizes met here
    n = int(len / 1.5) + 4
    return n > 64 ? 64 : n
}
function cubic(x0, y0, x1, y1, x2, y2, x3, y3,   n, i, t, u, len) {
    len = sqrt((x1-x0)^2 + (y1-y0)^2) + sqrt((x2-x1)^2 + (y2-y1)^2) + sqrt((x3-x2)^2 + (y3-y2)^2)
    n = segs(x0, y0, x3, y3, len)
    for (i = 1; i <= n; i++) {
        t = i / n; u = 1 - t
        pt(u*u*u*x0 + 3*u*u*t*x1 + 3*u*t*t*x2 + t*t*t*x3, u*u*u*y0 + 3*u*u*t*y1 + 3*u*t*t*y2 + t*t*t*y3)
    }
}
function quad(x0, y0, x1, y1, x2, y2) {
    cubic(x0, y0, x0 + 2/3*(x1-x0), y0 + 2/3*(y1-y0), x2 + 2/3*(x1-x2), y2 + 2/3*(y1-y2), x2, y2)
}
function tokenize(d,   n, i, tok, a) {
    gsub(/[MmLlHhVvCcSsQqTtAaZz]/, " & ", d)
    gsub(/-/, " -", d)
    gsub(/[eE] -/, "e-", d)
    gsub(/,/, " ", d)
    n = split(d, a, /[ \t\n\r]+/)
    nt = 0
    for (i = 1; i <= n; i++) {
        tok = a[i]
        if (tok == "") continue
        while (tok ~ /\..*\./) {          # "1.5.5" is 1.5 and .5
            match(tok, /^[-+]?[0-9]*\.[0-9]*/)
            T[++nt] = substr(tok, 1, RLENGTH); tok = substr(tok, RLENGTH + 1)
        }
        T[++nt] = tok
    }
}
function isnum(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
function pathgeom(d,   i, c, cx, cy, sx, sy, x1, y1, x2, y2, x, y, lc, qx, qy, rel, rx, ry, k) {
    tokenize(d)
    np = 0; ns = 0
    cx = cy = sx = sy = 0; lc = ""; i = 1; c = ""
    while (i <= nt) {
        if (!isnum(T[i])) {
            c = T[i++]
            if (c == "Z" || c == "z") { if (ns) SZ[ns] = 1; cx = sx; cy = sy; lc = c; started = 0; continue }
        }
        else if (c == "" || c == "Z" || c == "z") { i++; continue }
        else if (c == "M") c = "L"; else if (c == "m") c = "l"
        rel = (c ~ /[a-z]/); rx = rel ? cx : 0; ry = rel ? cy : 0
        if (c != "M" && c != "m" && (lc == "Z" || lc == "z" || ns == 0)) newsub(cx, cy)
        if (c == "M" || c == "m") { cx = T[i] + rx; cy = T[i+1] + ry; i += 2; sx = cx; sy = cy; newsub(cx, cy) }
        else if (c == "L" || c == "l") { cx = T[i] + rx; cy = T[i+1] + ry; i += 2; pt(cx, cy) }
        else if (c == "H" || c == "h") { cx = T[i++] + rx; pt(cx, cy) }
        else if (c == "V" || c == "v") { cy = T[i++] + ry; pt(cx, cy) }
        else if (c == "C" || c == "c") {
            x1 = T[i] + rx; y1 = T[i+1] + ry; x2 = T[i+2] + rx; y2 = T[i+3] + ry
            x = T[i+4] + rx; y = T[i+5] + ry; i += 6
            cubic(cx, cy, x1, y1, x2, y2, x, y); qx = x2; qy = y2; cx = x; cy = y }
        else if (c == "S" || c == "s") {
            if (lc ~ /[CcSs]/) { x1 = 2*cx - qx; y1 = 2*cy - qy } else { x1 = cx; y1 = cy }
            x2 = T[i] + rx; y2 = T[i+1] + ry; x = T[i+2] + rx; y = T[i+3] + ry; i += 4
            cubic(cx, cy, x1, y1, x2, y2, x, y); qx = x2; qy = y2; cx = x; cy = y }
        else if (c == "Q" || c == "q") {
            qx = T[i] + rx; qy = T[i+1] + ry; x = T[i+2] + rx; y = T[i+3] + ry; i += 4
            quad(cx, cy, qx, qy, x, y); cx = x; cy = y }
        else if (c == "T" || c == "t") {
            if (lc ~ /[QqTt]/) { qx = 2*cx - qx; qy = 2*cy - qy } else { qx = cx; qy = cy }
            x = T[i] + rx; y = T[i+1] + ry; i += 2
            quad(cx, cy, qx, qy, x, y); cx = x; cy = y }
        else if (c == "A" || c == "a") {
            # not written by dvisvgm; bounded by the circle through both ends
            x = T[i+5] + rx; y = T[i+6] + ry; i += 7
            r = sqrt((x-cx)^2 + (y-cy)^2)
            pt((x+cx)/2 - r, (y+cy)/2 - r); pt((x+cx)/2 + r, (y+cy)/2 + r); pt(x, y)
            cx = x; cy = y }
        else { i++ }
        lc = c
    }
}
function ellipsepts(x, y, rx, ry,   k) {
    newsub(x + rx, y); SZ[ns] = 1
    for (k = 1; k < 64; k++) pt(x + rx*cos(k*3.14159265358979/32), y + ry*sin(k*3.14159265358979/32))
}
function boxpts(x1, y1, x2, y2) { newsub(x1, y1); pt(x2, y1); pt(x2, y2); pt(x1, y2); SZ[ns] = 1 }
# geometry of an element (local coordinates); 0 when it has none
function geom(tag, s,   x, y, w, h, r, rx, ry, pts, n, i, a) {
    np = 0; ns = 0
    if (tag == "path") pathgeom(attr(s, "d"))
    else if (tag == "rect" || tag == "image") {
        x = attr(s, "x") + 0; y = attr(s, "y") + 0
        boxpts(x, y, x + attr(s, "width"), y + attr(s, "height")) }
    else if (tag == "circle" || tag == "ellipse") {
        r = attr(s, "r"); rx = (r != "") ? r : attr(s, "rx"); ry = (r != "") ? r : attr(s, "ry")
        ellipsepts(attr(s, "cx") + 0, attr(s, "cy") + 0, rx + 0, ry + 0) }
    else if (tag == "line") {
        newsub(attr(s, "x1") + 0, attr(s, "y1") + 0); pt(attr(s, "x2") + 0, attr(s, "y2") + 0) }
    else if (tag == "polyline" || tag == "polygon") {
        pts = attr(s, "points"); gsub(/,/, " ", pts); gsub(/-/, " -", pts); n = split(pts, a, /[ \t\n]+/)
        c = 0; for (i = 1; i <= n; i++) if (a[i] != "") a[++c] = a[i]
        for (i = 1; i + 1 <= c; i += 2) { if (i == 1) newsub(a[1] + 0, a[2] + 0); else pt(a[i] + 0, a[i+1] + 0) }
        if (tag == "polygon" && ns) SZ[ns] = 1 }
    else if (tag == "use") {
        r = attr(s, "xlink:href"); if (r == "") r = attr(s, "href"); sub(/^#/, "", r)
        if (!(r in DX1)) return 0
        x = attr(s, "x") + 0; y = attr(s, "y") + 0
        boxpts(DX1[r] + x, DY1[r] + y, DX2[r] + x, DY2[r] + y) }
    return np > 0
}
# --- affine transforms: A = parsed transform attribute
function parsetf(s,   t, name, args, a, n, m1, m2, m3, m4, m5, m6, c, sn, r, tx, ty, k) {
    A[1] = 1; A[2] = 0; A[3] = 0; A[4] = 1; A[5] = 0; A[6] = 0
    t = s
    while (match(t, /[a-zA-Z]+[ \t]*\([^)]*\)/)) {
        name = substr(t, RSTART, RLENGTH); t = substr(t, RSTART + RLENGTH)
        args = name; sub(/^[a-zA-Z]+[ \t]*\(/, "", args); sub(/\)$/, "", args)
        sub(/[ \t]*\(.*/, "", name)
        gsub(/,/, " ", args); gsub(/-/, " -", args); gsub(/[eE] -/, "e-", args)
        n = split(args, a, /[ \t\n]+/)
        c = 0; for (k = 1; k <= n; k++) if (a[k] != "") a[++c] = a[k]; n = c
        if (name == "matrix") { m1 = a[1]; m2 = a[2]; m3 = a[3]; m4 = a[4]; m5 = a[5]; m6 = a[6] }
        else if (name == "translate") { m1 = 1; m2 = 0; m3 = 0; m4 = 1; m5 = a[1]; m6 = (n > 1) ? a[2] : 0 }
        else if (name == "scale") { m1 = a[1]; m4 = (n > 1) ? a[2] : a[1]; m2 = m3 = m5 = m6 = 0 }
        else if (name == "rotate") {
            r = a[1] * 3.14159265358979 / 180; c = cos(r); sn = sin(r)
            tx = (n > 2) ? a[2] : 0; ty = (n > 2) ? a[3] : 0
            m1 = c; m2 = sn; m3 = -sn; m4 = c; m5 = tx - c*tx + sn*ty; m6 = ty - sn*tx - c*ty }
        else if (name == "skewX") { r = a[1]*3.14159265358979/180; m1 = 1; m2 = 0; m3 = sin(r)/cos(r); m4 = 1; m5 = m6 = 0 }
        else if (name == "skewY") { r = a[1]*3.14159265358979/180; m1 = 1; m2 = sin(r)/cos(r); m3 = 0; m4 = 1; m5 = m6 = 0 }
        else continue
        tx = A[1]*m1 + A[3]*m2; ty = A[2]*m1 + A[4]*m2
        c  = A[1]*m3 + A[3]*m4; sn = A[2]*m3 + A[4]*m4
        A[5] = A[1]*m5 + A[3]*m6 + A[5]; A[6] = A[2]*m5 + A[4]*m6 + A[6]
        A[1] = tx; A[2] = ty; A[3] = c; A[4] = sn
    }
}
# C = M[d] * A
function ctm(d) {
    C[1] = M[d,1]*A[1] + M[d,3]*A[2]; C[2] = M[d,2]*A[1] + M[d,4]*A[2]
    C[3] = M[d,1]*A[3] + M[d,3]*A[4]; C[4] = M[d,2]*A[3] + M[d,4]*A[4]
    C[5] = M[d,1]*A[5] + M[d,3]*A[6] + M[d,5]; C[6] = M[d,2]*A[5] + M[d,4]*A[6] + M[d,6]
}
# box (local) of clip path id v mapped through C into K1..K4; 0 if unknown
function clipbox(v,   k, x, y, xs, ys) {
    sub(/^url\(#/, "", v); sub(/\).*/, "", v)
    if (!(v in CX1)) return 0
    xs[1] = CX1[v]; ys[1] = CY1[v]; xs[2] = CX2[v]; ys[2] = CY1[v]
    xs[3] = CX1[v]; ys[3] = CY2[v]; xs[4] = CX2[v]; ys[4] = CY2[v]
    for (k = 1; k <= 4; k++) {
        x = C[1]*xs[k] + C[3]*ys[k] + C[5]; y = C[2]*xs[k] + C[4]*ys[k] + C[6]
        if (k == 1 || x < K1) K1 = x; if (k == 1 || x > K3) K3 = x
        if (k == 1 || y < K2) K2 = y; if (k == 1 || y > K4) K4 = y
    }
    return 1
}
# --- the ink of the current points (already in root coordinates)
function bx_add(x, y) {
    if (bxe) { bx1 = bx2 = x; by1 = by2 = y; bxe = 0; return }
    if (x < bx1) bx1 = x; if (x > bx2) bx2 = x
    if (y < by1) by1 = y; if (y > by2) by2 = y
}
# Liang-Barsky: clips segment (x0,y0)-(x1,y1) to [a,b]x[c,e]; adds the rest
function clipseg(x0, y0, x1, y1, a, c, b, e,   t0, t1, dx, dy, p, q, k, r) {
    t0 = 0; t1 = 1; dx = x1 - x0; dy = y1 - y0
    for (k = 1; k <= 4; k++) {
        if (k == 1) { p = -dx; q = x0 - a } else if (k == 2) { p = dx; q = b - x0 }
        else if (k == 3) { p = -dy; q = y0 - c } else { p = dy; q = e - y0 }
        if (p == 0) { if (q < 0) return }
        else { r = q / p
            if (p < 0) { if (r > t1) return; if (r > t0) t0 = r }
            else { if (r < t0) return; if (r < t1) t1 = r } }
    }
    bx_add(x0 + t0*dx, y0 + t0*dy); bx_add(x0 + t1*dx, y0 + t1*dy)
}
# is (x,y) inside the filled area (fill rule evenodd when eo)
function inside(x, y, eo,   s, k, j, i0, i1, wn, cr, xa, ya, xb, yb) {
    wn = 0; cr = 0
    for (s = 1; s <= ns; s++) {
        if (SN[s] < 2) continue
        for (k = 0; k < SN[s]; k++) {
            i0 = SB[s] + k; i1 = (k + 1 < SN[s]) ? i0 + 1 : SB[s]
            xa = PX[i0]; ya = PY[i0]; xb = PX[i1]; yb = PY[i1]
            if ((ya <= y) != (yb <= y)) {
                if (xa + (y - ya) * (xb - xa) / (yb - ya) > x) { cr++; wn += (yb > ya) ? 1 : -1 }
            }
        }
    }
    return eo ? (cr % 2) : (wn != 0)
}
# the stroke as segments G0X/G0Y-G1X/G1Y[1..ng]: every subpath's pieces
# (closing piece when closed), cut into dashes when dash pattern DA[1..nd]
# (root units, phase doff) is set
function strokesegs(nd, doff,   s, k, i0, i1, j, rem, on, t, L, dx, dy, tot, m) {
    ng = 0
    if (nd) {                      # an odd-length pattern repeats twice
        tot = 0; for (k = 1; k <= nd; k++) tot += DA[k]
        if (nd % 2) { for (k = 1; k <= nd; k++) DA[nd + k] = DA[k]; nd *= 2; tot *= 2 }
        if (tot <= 0) nd = 0
    }
    for (s = 1; s <= ns; s++) {
        if (SN[s] == 1) { ng++; G0X[ng] = G1X[ng] = PX[SB[s]]; G0Y[ng] = G1Y[ng] = PY[SB[s]]; continue }
        if (nd) {                  # the pattern restarts at every subpath
            j = 1; rem = DA[1]; on = 1; t = doff - int(doff / tot) * tot
            while (t > 0) { if (t >= rem) { t -= rem; j = j % nd + 1; rem = DA[j]; on = !on } else { rem -= t; t = 0 } }
        }
        for (k = 0; k < SN[s] - 1 + SZ[s]; k++) {
            i0 = SB[s] + k; i1 = (k + 1 < SN[s]) ? i0 + 1 : SB[s]
            if (!nd) { ng++; G0X[ng] = PX[i0]; G0Y[ng] = PY[i0]; G1X[ng] = PX[i1]; G1Y[ng] = PY[i1]; continue }
            dx = PX[i1] - PX[i0]; dy = PY[i1] - PY[i0]; L = sqrt(dx*dx + dy*dy)
            if (L == 0) continue
            t = 0
            while (L - t > rem) {
                if (on) { ng++; G0X[ng] = PX[i0] + dx*t/L; G0Y[ng] = PY[i0] + dy*t/L
                          G1X[ng] = PX[i0] + dx*(t+rem)/L; G1Y[ng] = PY[i0] + dy*(t+rem)/L }
                t += rem; j = j % nd + 1; rem = DA[j]; on = !on
            }
            if (on) { ng++; G0X[ng] = PX[i0] + dx*t/L; G0Y[ng] = PY[i0] + dy*t/L; G1X[ng] = PX[i1]; G1Y[ng] = PY[i1] }
            rem -= L - t
        }
    }
}
# ink box of the current element into bx*: fill flag, stroke half width hw
# (0: not stroked), dash pattern (nd, doff), clip box K1..K4 when clipped
function ink(dofill, hw, nd, doff, clipped, eo,   s, k, i0, i1) {
    bxe = 1
    if (hw > 0) {
        strokesegs(nd, doff)
        for (k = 1; k <= ng; k++) {
            if (clipped) clipseg(G0X[k], G0Y[k], G1X[k], G1Y[k], K1 - hw, K2 - hw, K3 + hw, K4 + hw)
            else { bx_add(G0X[k], G0Y[k]); bx_add(G1X[k], G1Y[k]) }
        }
        if (!bxe) { bx1 -= hw; by1 -= hw; bx2 += hw; by2 += hw }
    }
    if (dofill) {
        if (!clipped) for (k = 1; k <= np; k++) bx_add(PX[k], PY[k])
        else {              # the clipped outline, and the clip corners inside the area
            for (s = 1; s <= ns; s++)
                for (k = 0; k < SN[s]; k++) {
                    i0 = SB[s] + k; i1 = (k + 1 < SN[s]) ? i0 + 1 : SB[s]
                    clipseg(PX[i0], PY[i0], PX[i1], PY[i1], K1, K2, K3, K4)
                }
            if (inside(K1, K2, eo)) bx_add(K1, K2); if (inside(K3, K2, eo)) bx_add(K3, K2)
            if (inside(K1, K4, eo)) bx_add(K1, K4); if (inside(K3, K4, eo)) bx_add(K3, K4)
        }
    }
    if (bxe) return 0
    if (!clipped) return 1
    bx1 = max(bx1, K1); by1 = max(by1, K2); bx2 = min(bx2, K3); by2 = min(by2, K4)
    return bx1 <= bx2 && by1 <= by2
}
function paint(v) { return v != "" && v != "none" && v != "transparent" }
function copy(d,   k) {
    for (k = 1; k <= 6; k++) M[d,k] = M[d-1,k]
    F[d] = F[d-1]; S[d] = S[d-1]; W[d] = W[d-1]; FR[d] = FR[d-1]; CL[d] = CL[d-1]
    DASH[d] = DASH[d-1]; DOFF[d] = DOFF[d-1]
    G1[d] = G1[d-1]; G2[d] = G2[d-1]; G3[d] = G3[d-1]; G4[d] = G4[d-1]
}
function style(d, s,   v) {
    v = attr(s, "fill"); if (v != "") F[d] = v
    v = attr(s, "stroke"); if (v != "") S[d] = v
    v = attr(s, "stroke-width"); if (v != "") W[d] = v
    v = attr(s, "fill-rule"); if (v != "") FR[d] = v
    v = attr(s, "stroke-dasharray"); if (v != "") DASH[d] = v
    v = attr(s, "stroke-dashoffset"); if (v != "") DOFF[d] = v
    if (attr(s, "fill-opacity") == "0" || attr(s, "opacity") == "0") F[d] = "none"
    if (attr(s, "stroke-opacity") == "0" || attr(s, "opacity") == "0") S[d] = "none"
}
function isdef(tag) {
    return tag ~ /^(defs|pattern|mask|marker|symbol|linearGradient|radialGradient|filter)$/
}
BEGIN {
    RS = "<"; dep = 0
    M[0,1] = 1; M[0,2] = 0; M[0,3] = 0; M[0,4] = 1; M[0,5] = 0; M[0,6] = 0
    F[0] = "#000"; S[0] = "none"; W[0] = 1; FR[0] = "nonzero"; CL[0] = 0
    DASH[0] = ""; DOFF[0] = 0
    skip = 0; inclip = ""; tot = 0
}
NR == 1 { next }
{
    s = $0; sub(/>[^>]*$/, "", s)
    tag = s; sub(/[ \t\n]+.*/, "", tag)
    if (tag ~ /.\/$/) tag = substr(tag, 1, length(tag) - 1)
    selfclose = (s ~ /\/$/)
    if (tag ~ /^[!?]/) next
    if (tag ~ /^\//) {
        tag = substr(tag, 2)
        if (tag == "clipPath") { inclip = ""; skip--; next }
        if (isdef(tag)) { skip--; next }
        if (tag == "g" || tag == "svg" || tag == "a") { if (dep > 0) dep--; next }
        next
    }
    if (isdef(tag)) { if (!selfclose) skip++; next }
    if (tag == "clipPath") { inclip = attr(s, "id"); if (!selfclose) skip++; CNEW[inclip] = 1; next }
    if (tag == "g" || tag == "a" || tag == "svg") {
        if (selfclose) next
        dep++; copy(dep)
        if (skip) next
        parsetf(attr(s, "transform")); ctm(dep - 1)
        for (k = 1; k <= 6; k++) M[dep,k] = C[k]
        style(dep, s)
        v = attr(s, "clip-path")
        if (v != "" && clipbox(v)) {
            if (CL[dep]) { K1 = max(K1, G1[dep]); K2 = max(K2, G2[dep]); K3 = min(K3, G3[dep]); K4 = min(K4, G4[dep]) }
            G1[dep] = K1; G2[dep] = K2; G3[dep] = K3; G4[dep] = K4; CL[dep] = 1
        }
        next
    }
    if (tag !~ /^(path|rect|circle|ellipse|line|polyline|polygon|use|image)$/) next
    if (!geom(tag, s)) next
    if (skip) {
        # a definition (for <use>) or a clip path shape: remember its box;
        # a clip shape is in the user space of the clipped element
        parsetf(attr(s, "transform")); bxe = 1
        for (k = 1; k <= np; k++) bx_add(A[1]*PX[k] + A[3]*PY[k] + A[5], A[2]*PX[k] + A[4]*PY[k] + A[6])
        if (inclip == "") {
            id = attr(s, "id")
            if (id != "") { DX1[id] = bx1; DY1[id] = by1; DX2[id] = bx2; DY2[id] = by2 }
        } else if (CNEW[inclip]) {
            CX1[inclip] = bx1; CY1[inclip] = by1; CX2[inclip] = bx2; CY2[inclip] = by2; CNEW[inclip] = 0
        } else {
            CX1[inclip] = min(CX1[inclip], bx1); CY1[inclip] = min(CY1[inclip], by1)
            CX2[inclip] = max(CX2[inclip], bx2); CY2[inclip] = max(CY2[inclip], by2)
        }
        next
    }
    # a painted element?
    f = attr(s, "fill"); if (f == "") f = F[dep]
    st = attr(s, "stroke"); if (st == "") st = S[dep]
    w = attr(s, "stroke-width"); if (w == "") w = W[dep]
    fr = attr(s, "fill-rule"); if (fr == "") fr = FR[dep]
    if (attr(s, "fill-opacity") == "0" || attr(s, "opacity") == "0") f = "none"
    if (attr(s, "stroke-opacity") == "0" || attr(s, "opacity") == "0") st = "none"
    if (attr(s, "visibility") == "hidden" || attr(s, "display") == "none") next
    if (tag == "line" || tag == "polyline") f = "none"
    if (tag == "image" || tag == "use") { if (!paint(f)) f = "#000" }
    if (!paint(f) && !paint(st)) next
    parsetf(attr(s, "transform")); ctm(dep)
    # to root coordinates
    for (k = 1; k <= np; k++) { x = PX[k]; PX[k] = C[1]*x + C[3]*PY[k] + C[5]; PY[k] = C[2]*x + C[4]*PY[k] + C[6] }
    hw = paint(st) ? w / 2 * sqrt(max(C[1]*C[4] - C[2]*C[3], -(C[1]*C[4] - C[2]*C[3]))) : 0
    clipped = CL[dep]
    if (clipped) { K1 = G1[dep]; K2 = G2[dep]; K3 = G3[dep]; K4 = G4[dep] }
    v = attr(s, "clip-path")
    if (v != "") {
        o1 = K1; o2 = K2; o3 = K3; o4 = K4
        if (!clipbox(v)) next
        if (clipped) { K1 = max(K1, o1); K2 = max(K2, o2); K3 = min(K3, o3); K4 = min(K4, o4) }
        clipped = 1
    }
    if (clipped && (K1 > K3 || K2 > K4)) next
    # dashes (scaled like the line width); "none" or absent: solid
    nd = 0; doff = 0
    v = attr(s, "stroke-dasharray"); if (v == "") v = DASH[dep]
    if (hw > 0 && v != "" && v != "none") {
        gsub(/,/, " ", v); n = split(v, a, /[ \t\n]+/)
        sc = sqrt(max(C[1]*C[4] - C[2]*C[3], -(C[1]*C[4] - C[2]*C[3])))
        for (k = 1; k <= n; k++) if (a[k] != "") { if (a[k] + 0 < 0) { nd = 0; break } DA[++nd] = a[k] * sc }
        v = attr(s, "stroke-dashoffset"); if (v == "") v = DOFF[dep]
        doff = v * sc
    }
    if (!ink(paint(f), hw, nd, doff, clipped, fr == "evenodd")) next
    if (debug) printf "%s %.3f %.3f %.3f %.3f fill=%s stroke=%s hw=%.3f clip=%d\n", tag, bx1, by1, bx2, by2, f, st, hw, clipped > "/dev/stderr"
    if (!tot) { X1 = bx1; Y1 = by1; X2 = bx2; Y2 = by2; tot = 1 }
    else { X1 = min(X1, bx1); Y1 = min(Y1, by1); X2 = max(X2, bx2); Y2 = max(Y2, by2) }
}
END {
    if (!tot) { print "empty"; exit }
    printf "%.4f %.4f %.4f %.4f\n", X1, Y1, X2, Y2
}
AWK
}

# measure ITEM.tex: prints "ITEM<TAB>ok<TAB>X1<TAB>Y1<TAB>X2<TAB>Y2<TAB>ORIGIN<TAB>NPICS"
# (TeX pt, y up; ORIGIN: yes when relative to the origin of the first
# tikzpicture, no when relative to the lower-left corner of the ink),
# "ITEM<TAB>empty" (nothing drawn) or "ITEM<TAB>fail<TAB>MESSAGE" (TeX's error).
measure() {
    f=$1
    item=$(basename "$f" .tex)
    key=$( { cat "$f" "$cls"; svgbbox_awk; echo "method $METHOD"; } | hash)
    if [ "${TEX_NOCACHE:-0}" != 1 ] && [ -s "$cache/$key" ]; then
        printf '%s\t%s\n' "$item" "$(cat "$cache/$key")"
        return
    fi
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/diagramir-tex.XXXXXX") || return 1
    cp "$f" "$tmp/item.tex"
    res=$(
        cd "$tmp" || exit 1
        TEXINPUTS="$root/contrib/tex:${TEXINPUTS-}"
        export TEXINPUTS
        runtex() {
            timeout "$timeout" pdflatex -file-line-error -interaction=nonstopmode \
                -halt-on-error -jobname=m '\def\IMmeasure{}\input{item.tex}' \
                >tex.out 2>&1 </dev/null
        }
        # a second try when TeX left no log at all (a transient failure)
        done=0
        runtex && done=1
        if [ $done = 0 ] && [ ! -s m.log ]; then runtex && done=1; fi
        if [ $done = 0 ]; then
            msg=$(grep -m1 -E '^(\./)?[^:]*:[0-9]+: |^! ' m.log 2>/dev/null |
                  sed 's|^\(\./\)\{0,1\}item\.tex:|line |; s|^! ||')
            printf 'fail\t%s\n' "${msg:-pdflatex failed (timeout or no log)}"
            exit 0
        fi
        dvisvgm --pdf --no-fonts -o m.svg m.pdf >dvisvgm.out 2>&1 && [ -s m.svg ] || {
            printf 'fail\tdvisvgm: %s\n' "$(grep -m1 -i error dvisvgm.out)"
            exit 0
        }
        svgbbox_awk >bbox.awk
        box=$(awk -f bbox.awk m.svg)
        # IMORIGIN N DEPTH X Y: sp from the page's lower-left corner; the
        # SVG root has y down with the page's lower-left corner at (0,0)
        awk -v box="$box" '
            $1 == "IMORIGIN" && $3 == 1 {
                npics++
                if (npics == 1) { ox = $4 / 65536 * 72 / 72.27; oy = -$5 / 65536 * 72 / 72.27; have = 1 }
            }
            END {
                n = split(box, v, " ")
                if (box == "empty") { print "empty"; exit }
                if (n != 4) { printf "fail\tno ink box (%s)\n", box; exit }
                if (!have) { ox = v[1]; oy = v[4] }
                k = 72.27 / 72
                printf "ok\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t%d\n", (v[1] - ox) * k, -(v[4] - oy) * k, \
                    (v[3] - ox) * k, -(v[2] - oy) * k, have ? "yes" : "no", npics
            }' m.log
    )
    rm -rf "$tmp"
    case $res in
    ok*|empty*|fail*)
        if mkdir -p "$cache" 2>/dev/null; then
            printf '%s\n' "$res" >"$cache/$key.$$" && mv "$cache/$key.$$" "$cache/$key"
        fi ;;
    *) res="fail	measuring failed" ;;
    esac
    printf '%s\t%s\n' "$item" "$res"
}

# Internal entry point for the parallel workers.
if [ "${1-}" = --measure-one ]; then
    shift
    for f; do measure "$f"; done
    exit 0
fi

tsv=0
if [ "${1-}" = --tsv ]; then tsv=1; shift; fi
case ${1-} in
-h|--help)
    sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
    exit 0 ;;
-*) echo "check-tex.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
esac

for tool in pdflatex dvisvgm; do
    command -v $tool >/dev/null 2>&1 ||
        { echo "check-tex.sh: $tool not found (make deps installs TeX)" >&2; exit 2; }
done
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
tikz2ir=$BUILD/bin/tikz2ir
if [ $tsv = 0 ] && [ ! -x "$tikz2ir" ]; then
    echo "check-tex.sh: $tikz2ir not found (run make first)" >&2
    exit 2
fi

data=${TEX_DATA:-$root/tests/data/diagramir-dev/tikz}
list=$(mktemp "${TMPDIR:-/tmp}/diagramir-tex-list.XXXXXX") || exit 2
texres=$(mktemp "${TMPDIR:-/tmp}/diagramir-tex-res.XXXXXX") || exit 2
trap 'rm -f "$list" "$texres" "$texres.ir"' EXIT
trap 'exit 2' HUP INT TERM
if [ $# -gt 0 ]; then
    for f; do
        case $f in /*) printf '%s\n' "$f" ;; *) printf '%s/%s\n' "$(pwd)" "$f" ;; esac
    done >"$list"
else
    ls "$data"/*.tex >"$list" 2>/dev/null ||
        { echo "check-tex.sh: no items in $data" >&2; exit 2; }
fi

jobs=${TEX_JOBS:-$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
[ -t 2 ] && echo "check-tex.sh: measuring $(wc -l <"$list") items with TeX ($jobs jobs)..." >&2
xargs -P "$jobs" -n 4 sh "$0" --measure-one <"$list" | sort -n >"$texres"

if [ $tsv = 1 ]; then
    printf '# TeX-measured ink extents of the DiagramIR dev items (TeX pt, y up,\n'
    printf '# relative to the origin of the first tikzpicture when origin=yes).\n'
    printf '# Regenerate: sh tests/tex/check-tex.sh --tsv > tests/tex/tex-bbox.tsv\n'
    printf '# Method: pdflatex + contrib/tex/IM.cls (measure mode) + dvisvgm --pdf, ink\n'
    printf '# extent after clipping, strokes included; see tests/tex/check-tex.sh.\n'
    printf '# status: ok | empty (nothing drawn) | fail (TeX error; note has it).\n'
    printf 'item\tstatus\tx1\ty1\tx2\ty2\twidth\theight\torigin\tpictures\tnote\n'
    awk -F '\t' -v OFS='\t' '
        $2 == "ok" { printf "%s\tok\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t%s\t%s\n", $1, $3, $4, $5, $6, $5 - $3, $6 - $4, $7, $8, \
                     ($8 > 1 ? "extent of all " $8 " pictures, origin of the first" : ""); next }
        $2 == "empty" { print $1, "empty", "", "", "", "", "", "", "", "", ""; next }
        { print $1, "fail", "", "", "", "", "", "", "", "", $3 }' "$texres"
    exit 0
fi

# IR side: one line "ITEM<TAB>X1 Y1 X2 Y2" or "ITEM<TAB>-" (no bbox record).
while IFS='	' read -r item status rest; do
    [ "$status" = ok ] || continue
    f=$(grep -m1 "/$item\.tex\$" "$list")
    b=$(timeout 60 "$tikz2ir" "$f" 2>/dev/null | awk '$1 == "bbox" { print $2, $3, $4, $5; exit }')
    printf '%s\t%s\n' "$item" "${b:--}"
done <"$texres" >"$texres.ir"

awk -F '\t' -v floor="${TEX_FLOOR:-90}" -v tolpt="${TEX_TOL_PT:-3}" \
    -v tolpct="${TEX_TOL_PCT:-3}" -v nworst="${TEX_WORST:-15}" '
    function abs(v) { return v < 0 ? -v : v }
    function max(a, b) { return a > b ? a : b }
    NR == FNR {
        if ($2 == "ok") { ok[$1] = 1; tx1[$1] = $3; ty1[$1] = $4; tx2[$1] = $5; ty2[$1] = $6; org[$1] = $7; npic[$1] = $8 }
        else if ($2 == "empty") { skipped = skipped "\n    " $1 ": TeX draws nothing"; nskip++ }
        else { skipped = skipped "\n    " $1 ": " $3; nskip++ }
        next
    }
    !($1 in ok) { next }
    {
        it = $1; n++
        tolx = max(tolpt, tolpct / 100 * (tx2[it] - tx1[it]))
        toly = max(tolpt, tolpct / 100 * (ty2[it] - ty1[it]))
        if ($2 == "-") {
            bad[it] = 1e9; line[it] = sprintf("%-8s %s", it, "no bbox record from tikz2ir")
            next
        }
        split($2, b, " ")
        if (org[it] == "yes") {
            d1 = b[1] - tx1[it]; d2 = b[2] - ty1[it]; d3 = b[3] - tx2[it]; d4 = b[4] - ty2[it]
        } else {   # origin unknown: compare sizes, lower-left corners aligned
            d1 = 0; d2 = 0; d3 = (b[3] - b[1]) - (tx2[it] - tx1[it]); d4 = (b[4] - b[2]) - (ty2[it] - ty1[it])
        }
        worst = max(max(abs(d1) / tolx, abs(d3) / tolx), max(abs(d2) / toly, abs(d4) / toly))
        if (worst <= 1) agree++
        bad[it] = worst
        note = (org[it] == "yes" ? "" : " (sizes only)") (npic[it] > 1 ? " (" npic[it] " pictures)" : "")
        line[it] = sprintf("%-8s %8.2f %8.2f %8.2f %8.2f   %5.2f %5.2f   %6.2f%s", it, d1, d2, d3, d4, tolx, toly, worst, note)
    }
    END {
        rate = n ? 100 * agree / n : 0
        printf "check-tex: %d items compared, %d agree with TeX (%.1f%%; floor %s%%)\n", n, agree, rate, floor
        printf "  agreement: each side within max(%spt, %s%% of the extent) of TeX ink extent\n", tolpt, tolpct
        if (skipped != "") printf "  skipped %d item(s) TeX gives no extent for:%s\n", nskip, skipped
        m = 0
        for (it in bad) if (bad[it] > 1) { ids[++m] = it }
        # sort the disagreeing items by how far off they are (worst first)
        for (i = 2; i <= m; i++) { v = ids[i]; j = i - 1
            while (j > 0 && (bad[ids[j]] < bad[v] || (bad[ids[j]] == bad[v] && ids[j] + 0 > v + 0))) { ids[j + 1] = ids[j]; j-- }
            ids[j + 1] = v }
        if (m > 0) {
            printf "  worst %d of %d disagreeing items (sides: IR minus TeX, pt; off: worst side / its tolerance):\n", (m < nworst ? m : nworst), m
            printf "  %-8s %8s %8s %8s %8s   %5s %5s   %6s\n", "item", "dx1", "dy1", "dx2", "dy2", "tolx", "toly", "off"
            for (i = 1; i <= m && i <= nworst; i++) print "  " line[ids[i]]
        }
        exit (rate + 1e-9 < floor) ? 1 : 0
    }' "$texres" "$texres.ir"
