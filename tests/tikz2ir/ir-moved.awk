# ir-moved.awk -- an IR as it is after moving the picture by (dx, dy) and
# renaming nodes (tests/tikz2ir/run.sh, section 2c).
#
#   awk -v dx=DX -v dy=DY -v ren="OLD NEW OLD NEW ..." -f ir-moved.awk FILE.ir
#
# Writes the records of FILE.ir without the stream header, the diagram line
# and the source lines (@L), every point moved by (dx, dy) -- the points of
# bbox, poly, rect, curve and text records, the centre of ellipse and arc
# records, the point of coord records (their last two fields), and the
# points of the at=, of= and along= attributes -- and node names renamed: a
# bare name OLD, or OLD-R-C (a matrix's cell), in coord records and id=
# becomes NEW (NEW-R-C).
# Numbers are written with %.6f, so two outputs are compared with
# ir-close.awk (the IR rounds to thousandths).
function mv(s, isy) { return sprintf("%.6f", s + (isy ? dy : dx)) }
function rename(nm,   k, old, rest) {
  for (k = 1; k <= nren; k += 2) {
    old = R[k]
    if (nm == old) return R[k + 1]
    if (index(nm, old "-") == 1) {
      rest = substr(nm, length(old) + 2)
      if (rest ~ /^[0-9]+-[0-9]+$/) return R[k + 1] "-" rest
    }
  }
  return nm
}
# key=X,Y[,X,Y]: moved
function attrs(line,   out, m, pre, key, val, n, v, k, s) {
  out = ""
  while (match(line, / (at|of|along)=[-0-9.e,]+/)) {
    pre = substr(line, 1, RSTART - 1)
    s = substr(line, RSTART + 1, RLENGTH - 1)
    line = substr(line, RSTART + RLENGTH)
    key = substr(s, 1, index(s, "=") - 1)
    val = substr(s, index(s, "=") + 1)
    n = split(val, v, ",")
    s = ""
    for (k = 1; k <= n; k++) s = s (k > 1 ? "," : "") mv(v[k], k % 2 == 0)
    out = out pre " " key "=" s
  }
  out = out line
  while (match(out, / id=[^ ]+/)) {
    out = substr(out, 1, RSTART - 1) " ID=" rename(substr(out, RSTART + 4, RLENGTH - 4)) substr(out, RSTART + RLENGTH)
  }
  return out
}
BEGIN { nren = split(ren, R, " ") }
/^diagramir / || /^diagram / { next }
{
  sub(/ @[0-9]+$/, "")
  n = split($0, f, " ")
  k = f[1]
  first = 0; count = 0
  if (k == "bbox" || k == "rect") { first = 2; count = 4 }
  else if (k == "poly") { first = 3; count = 1000 }
  else if (k == "curve") { first = 2; count = 8 }
  else if (k == "text") { first = 2; count = 4 }
  else if (k == "ellipse" || k == "arc") { first = 2; count = 2 }
  else if (k == "coord") {
    # coord NAME X Y: the point is the last two fields (a quoted name may
    # hold blanks); a bare name is renamed
    if (n == 4) f[2] = rename(f[2])
    first = n - 1; count = 2
  }
  out = f[1]
  for (i = 2; i <= n; i++) {
    if (first && i >= first && i < first + count && f[i] ~ /^-?[0-9.]+(e-?[0-9]+)?$/)
      out = out " " mv(f[i], (i - first) % 2 == 1)
    else if (first && i >= first && i < first + count) { count = 0; out = out " " f[i] }
    else out = out " " f[i]
  }
  print attrs(out)
}
