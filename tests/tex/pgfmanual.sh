#!/bin/sh
# pgfmanual.sh -- tikz2ir on the pgf manual's own examples (make pgfmanual).
#
#   BUILD=build sh tests/tex/pgfmanual.sh [--tsv FILE] [--causes N]
#
# The corpus is the pgf manual as Debian ships it (texlive-pictures-doc,
# /usr/share/doc/texlive-doc/generic/pgf/pgfmanual-en-*.tex.gz).  When the
# package is not installed, its .deb is fetched with `apt-get download' and
# unpacked (dpkg-deb -x) under PGF_CACHE, nothing is installed.  A
# directory holding the pgfmanual-en-*.tex.gz files can be named with
# PGF_DOC instead.
#
# Every `codeexample' environment of the tutorials (pgfmanual-en-tutorial*)
# and of the TikZ chapters (pgfmanual-en-tikz-*) whose body uses
# `tikzpicture' or `\tikz' becomes one file: the body inside
# \documentclass{article} \usepackage{tikz} \begin{document} ... .  Only
# environments whose options, if any, sit on the \begin line are taken (the
# multi-line ones carry preambles this wrapper does not reproduce).
#
# An example is clean when tikz2ir exits 0 and writes at least one diagram
# and no `unparsed' record (an example it writes no diagram for, such as a
# \tikzset alone or, before \tikz was read, every \tikz example, is
# counted apart: "without a picture");
# it crashed when it exits above 2 (a signal), hung when it runs past
# PGF_TIMEOUT seconds.  Prints per group: clean/total, percent, crashes and
# hangs, then the most frequent unparsed causes (the first word of each
# unparsed record's text, counted once per example).  Exits 1 when a group
# is under its floor (PGF_FLOOR_TUT, default 97; PGF_FLOOR_TIKZ, default 92)
# or anything crashed or hung, 2 when the corpus cannot be had.
#
# Environment: BUILD (build), PGF_DOC, PGF_CACHE
# (${XDG_CACHE_HOME:-$HOME/.cache}/diagramir-pgfdoc), PGF_TIMEOUT (10),
# PGF_FLOOR_TUT, PGF_FLOOR_TIKZ.
set -u
LC_ALL=C
export LC_ALL
BUILD=${BUILD:-build}
bin=$BUILD/bin/tikz2ir
tsv=""
ncauses=15
while [ $# -gt 0 ]; do
  case $1 in
    --tsv) tsv=$2; shift 2 ;;
    --causes) ncauses=$2; shift 2 ;;
    *) echo "usage: pgfmanual.sh [--tsv FILE] [--causes N]" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "pgfmanual: $bin missing (make first)" >&2; exit 2; }

doc=${PGF_DOC:-}
if [ -z "$doc" ]; then
  for d in /usr/share/doc/texlive-doc/generic/pgf \
           "${PGF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/diagramir-pgfdoc}/usr/share/doc/texlive-doc/generic/pgf"; do
    if ls "$d"/pgfmanual-en-tikz-*.tex.gz >/dev/null 2>&1; then doc=$d; break; fi
  done
fi
if [ -z "$doc" ]; then
  cache=${PGF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/diagramir-pgfdoc}
  mkdir -p "$cache" || exit 2
  echo "pgfmanual: fetching texlive-pictures-doc into $cache" >&2
  (cd "$cache" && apt-get download texlive-pictures-doc >/dev/null 2>&1) &&
    dpkg-deb -x "$cache"/texlive-pictures-doc_*.deb "$cache" ||
    { echo "pgfmanual: cannot fetch texlive-pictures-doc (apt-get download)" >&2; exit 2; }
  doc=$cache/usr/share/doc/texlive-doc/generic/pgf
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pgfmanual.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/ex"

for f in "$doc"/pgfmanual-en-tutorial*.tex.gz "$doc"/pgfmanual-en-tikz-*.tex.gz; do
  base=${f##*/pgfmanual-en-}; base=${base%.tex.gz}
  case $base in tutorial*) group=tutorial ;; *) group=tikz ;; esac
  gzip -dc "$f" | awk -v dir="$tmp/ex" -v group="$group" -v base="$base" '
    function flush(   name) {
      if (body ~ /\\begin\{tikzpicture\}/ || index(body, "\\tikz")) {
        name = sprintf("%s/%s-%s-%03d.tex", dir, group, base, i)
        printf "\\documentclass{article}\n\\usepackage{tikz}\n\\begin{document}\n%s\n\\end{document}\n", body > name
        close(name)
      }
      i++
    }
    !inex {
      p = index($0, "\\begin{codeexample}")
      if (p) {
        rest = substr($0, p + 19)
        if (rest == "" || rest ~ /^\[.*\]$/) { inex = 1; body = ""; first = 1 }
      }
      next
    }
    {
      p = index($0, "\\end{codeexample}")
      if (p) {
        body = body (first ? "" : "\n") substr($0, 1, p - 1)
        inex = 0; flush(); next
      }
      body = body (first ? "" : "\n") $0; first = 0
    }'
done

timeout=${PGF_TIMEOUT:-10}
: > "$tmp/res.tsv"
for f in "$tmp"/ex/*.tex; do
  name=${f##*/}
  timeout "$timeout" "$bin" -q "$f" > "$tmp/o.ir" 2>/dev/null
  st=$?
  u=$(grep -c '^unparsed' "$tmp/o.ir")
  nd=$(grep -c '^diagram ' "$tmp/o.ir")
  # a cause: a control sequence (\\matrix in the IR's quoting), a coordinate
  # system (node cs:), a path operation (child, decorate) or the first word
  causes=$(grep '^unparsed' "$tmp/o.ir" | sed -e 's/^unparsed "//' -e 's/" @[0-9]*$//' \
    -e 's/^\[[^]]*\] *//' -e 's/^(\([^)]*\)) *//' | awk '
      { c = $0
        if (match(c, /^\\\\[A-Za-z@]+/)) c = substr(c, 3, RLENGTH - 2)
        else if (match(c, /^[A-Za-z ]+ cs:/)) c = substr(c, 1, RLENGTH)
        else if (c ~ / child[ {[]/ || c ~ /^child/) c = "child"
        else if (c ~ /decorate/) c = "decorate"
        else if (c ~ /node foreach|child foreach/) c = "foreach-in-path"
        else if (c ~ /\|-|-\|/) c = "|- with a calc or named point"
        else if (c ~ /^\$|\$\}/) c = "calc $...$"
        else if (match(c, /^[A-Za-z]+/)) c = substr(c, 1, RLENGTH)
        else c = "other"
        gsub(/ /, "_", c); print c }' | sort -u | tr '\n' ' ')
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$st" "$u" "$causes" "$nd" >> "$tmp/res.tsv"
done
[ -n "$tsv" ] && cp "$tmp/res.tsv" "$tsv"

awk -F'\t' -v ftut="${PGF_FLOOR_TUT:-97}" -v ftikz="${PGF_FLOOR_TIKZ:-92}" -v ncauses="$ncauses" '
  { g = ($1 ~ /^tutorial/) ? "tutorials" : "tikz"
    n[g]++
    if ($2 == 0 && $3 == 0 && $5 > 0) c[g]++
    if ($2 == 0 && $5 == 0) empty[g]++
    if ($2 == 124) hang[g]++
    else if ($2 > 2) crash[g]++
    m = split($4, w, " ")
    for (k = 1; k <= m; k++) if (w[k] != "") cause[w[k]]++ }
  END {
    bad = 0
    split("tutorials tikz", gs, " ")
    for (k = 1; k <= 2; k++) {
      g = gs[k]; pct = n[g] ? 100 * c[g] / n[g] : 0
      fl = (g == "tutorials") ? ftut : ftikz
      printf "pgfmanual %-9s %d/%d clean (%.1f%%, floor %s%%), %d without a picture, %d crashes, %d hangs\n", g, c[g], n[g], pct, fl, empty[g], crash[g], hang[g]
      if (pct < fl || crash[g] || hang[g]) bad = 1
    }
    print "top unparsed causes (examples):"
    for (x in cause) printf "%6d  %s\n", cause[x], x | "sort -rn | head -" ncauses
    close("sort -rn | head -" ncauses)
    exit bad
  }' "$tmp/res.tsv"
