# graph-meta.awk -- tests/tikz2ir/run.sh's comparison of two IR streams for
# the metamorphic graph tests (tests/tikz2ir/graph-meta/): the second must
# be the first moved by (dx, dy) pt, within 0.002 pt per number (the IR
# writes three decimals). With rename=1, node names (id= and the name of a
# coord record) are not compared. The diagram line is not compared. Prints
# one line per difference (nothing when they agree).
#   awk -v dx=DX -v dy=DY -v rename=0|1 -f graph-meta.awk A.ir B.ir
function isnum(s) { return s ~ /^-?[0-9]+(\.[0-9]+)?$/ }
# the numbers of a record that are points (x, y alternating): 1 when the
# i-th token of a record of this kind is an x, 2 a y, 0 neither
function role(kind, i, tok,    k) {
    if (kind == "bbox" || kind == "rect" || kind == "text") { k = i - 1; if (k >= 1 && k <= 4) return (k % 2) ? 1 : 2; return 0 }
    if (kind == "ellipse") { k = i - 1; if (k == 1) return 1; if (k == 2) return 2; return 0 }
    if (kind == "coord") { if (i == NT - 1) return 1; if (i == NT) return 2; return 0 }
    if (kind == "poly" || kind == "curve") { k = i - (kind == "poly" ? 2 : 1); if (k >= 1 && isnum(tok)) return (k % 2) ? 1 : 2; return 0 }
    return 0
}
function norm(line,    n, t, i, out, kind, r, v, kv) {
    n = split(line, t, " ")
    if (t[n] ~ /^@[0-9]+$/) n--
    NT = n
    kind = t[1]
    out = ""
    for (i = 1; i <= n; i++) {
        if (rename && t[i] ~ /^id=/) continue
        if (rename && kind == "coord" && i > 1 && i < n - 1) continue
        if (t[i] ~ /^(at|along)=/ ) {
            split(t[i], kv, "=")
            out = out " " kv[1] "=" shiftlist(kv[2])
            continue
        }
        r = (kind == "poly" && t[i] !~ /^-?[0-9.]+$/) ? 0 : role(kind, i, t[i])
        if (r && isnum(t[i])) { v = t[i] + (r == 1 ? DX : DY); out = out " N" sprintf("%.3f", v); continue }
        out = out " " t[i]
    }
    return out
}
function shiftlist(s,    n, p, i, o) {
    n = split(s, p, ",")
    o = ""
    for (i = 1; i <= n; i++) o = o (i > 1 ? "," : "") sprintf("%.3f", p[i] + ((i % 2) ? DX : DY))
    return o
}
# compares two normalized lines: numbers within 0.002
function same(a, b,    na, nb, x, y, i, u, w) {
    na = split(a, x, /[ ,=]/); nb = split(b, y, /[ ,=]/)
    if (na != nb) return 0
    for (i = 1; i <= na; i++) {
        u = x[i]; w = y[i]
        sub(/^N/, "", u); sub(/^N/, "", w)
        if (isnum(u) && isnum(w)) { if (u - w > 0.002 || w - u > 0.002) return 0 }
        else if (x[i] != y[i]) return 0
    }
    return 1
}
FNR == 1 { file++ }
/^diagram / { next }
file == 1 { DX = dx; DY = dy; a[++na] = norm($0); next }
file == 2 { DX = 0; DY = 0; b[++nb] = norm($0) }
END {
    if (na != nb) { print "records: " na " vs " nb; exit }
    for (i = 1; i <= na; i++) if (!same(a[i], b[i])) print "record " i ":" a[i] " |" b[i]
}
