#!/bin/sh
# pgfmanual.sh -- tikz2ir on the pgf manual's own examples (make pgfmanual).
#
#   BUILD=build sh tests/tex/pgfmanual.sh [--tsv FILE] [--causes N]
#                                         [--tex-sample N] [--keep DIR]
#
# The corpus is the pgf manual as Debian ships it (texlive-pictures-doc,
# /usr/share/doc/texlive-doc/generic/pgf/pgfmanual-en-*.tex[.gz]).  When the
# package is not installed, its .deb is fetched with `apt-get download' and
# unpacked (dpkg-deb -x) under PGF_CACHE, nothing is installed.  A
# directory holding the pgfmanual-en-*.tex[.gz] files can be named with
# PGF_DOC instead.
#
# The examples.  The chapters are read in the order pgfmanual-en-main-body
# \include's them, up to the last TikZ chapter.  Every `codeexample'
# environment (its options may run over several lines) of the tutorials
# (pgfmanual-en-tutorial*, group "tutorials") and of the TikZ chapters
# (pgfmanual-en-tikz-*, group "tikz") is an example, numbered from 0 in its
# chapter (tutorial-nodes-030 is the 31st codeexample of
# pgfmanual-en-tutorial-nodes).  It becomes one file, as the manual
# compiles it:
#
#   - the manual's preamble: \documentclass[a4paper,doc2]{ltxdoc} (as
#     pgfmanual.tex), then the statements of pgfmanual-en-main-preamble
#     that load packages and libraries and set global styles (\usepackage,
#     \usetikzlibrary, \input{pgfmanual-en-macros} (texlive-pictures
#     installs it), \tikzset, and \def of a name without @, at the top
#     level; the pdfTeX branch of \ifluatex, no other \if block; without
#     hyperref, imakeidx and todonotes, which index and link pages), and
#     \AtBeginDocument{\DeleteShortVerb{\|}}: ltxdoc makes | a short
#     verb, and the manual gives the examples that use | its catcode back
#     ({\catcode`\|=12 around them), as a file of its own has it;
#   - the example's `preamble=' option;
#   - after \begin{document}: the code of every `setup code' example met
#     before it in the manual (the manual runs it globally, so every later
#     example sees it), the example's `pre=', its code (the
#     `render instead=' code when it has one: that is what the manual
#     draws), its `post='.  The options are kept by the manual with
#     /.store in (a \def): ## in them stands for #.  `vbox' (a box around
#     the code) and the animation options are left out: they change no
#     geometry of the picture.
#
# The rules that leave an example out of the counts (each is counted and
# printed as "not taken"):
#   code only, multipage, hidden without setup code:  the manual does not
#       run the code;
#   setup code:  run, but draws nothing (its code goes into later examples);
#   from file:   the code is in a file the corpus does not have;
#   no picture:  the code, outside TeX comments, uses neither the
#       tikzpicture environment (\begin{tikzpicture}, \tikzpicture) nor the
#       \tikz command (the control word: \tikzset, \tikzstyle ... are not).
#
# TeX is the oracle.  Each example is compiled with pdflatex
# (-halt-on-error, in a directory with the plots/ the manual writes to and
# the doc directory in TEXINPUTS for its images; a format dumped once from
# the manual's preamble with mylatexformat makes it fast: an example pdfTeX
# crashes on with the format, as on fadings dumped in it, is compiled
# again loading the preamble itself; without mylatexformat every example
# loads the preamble).  An example TeX rejects (a fragment such as a tikzpicture
# without its \end, an example that needs LuaTeX's graph drawing, a macro
# the example never defines) is not tikz2ir's failure: it is counted apart,
# "TeX rejects: N", and taken out of the group's denominator; --tsv lists
# TeX's message.  The verdicts are cached by a hash of the example's file,
# of pdflatex's version and of this method under
# $PGF_CACHE/tex-verdicts, so a rerun only runs tikz2ir.  Without pdflatex
# nothing is taken out and the summary says so.
#
# An example is clean when tikz2ir exits 0 and writes at least one diagram
# and no `unparsed' record; it crashed when it exits above 2 (a signal),
# hung when it runs past PGF_TIMEOUT seconds.  Prints per group:
# clean/(taken - TeX rejects), percent, TeX rejects, examples taken with no
# diagram written, crashes and hangs, the examples not taken per rule, then
# the most frequent unparsed causes (the first word of each unparsed
# record's text, counted once per example).  Exits 1 when a group is under
# its floor (PGF_FLOOR_TUT, default 97; PGF_FLOOR_TIKZ, default 92) or
# anything crashed or hung, 2 when the corpus cannot be had.
#
# --tsv FILE: one line per example taken: name, tikz2ir's exit status,
#   unparsed records, causes, diagrams, TeX's verdict (ok, rejects,
#   unknown), TeX's message.
# --tex-sample N: TeX as the oracle of the geometry too: N clean examples
#   TeX accepts, chosen by a fixed seed (PGF_SEED, default 1; the order of
#   the cksum of "SEED:NAME"), go through tests/tex/check-tex.sh, which
#   prints how many of tikz2ir's extents agree with TeX's ink extents.
#   Like with like: tikz2ir always models the raters' setup, the IM class
#   (contrib/tex/IM.cls: 12pt, Open Sans at scale 0.95 through opensans,
#   sfmath and sansmath, every node in \sansmath\sffamily, line width=1pt,
#   > as Stealth[length=3mm,width=2mm]; grammar/textmetrics.c), not the
#   manual's ltxdoc at 10pt.  So each sample copy is the example's file
#   with \documentclass{IM} in place of ltxdoc (pgf's version=latest is
#   passed to the class's own \RequirePackage{tikz} with
#   \PassOptionsToPackage, since the class loads it first) and the doc
#   package ltxdoc loads (pgfmanual-en-macros redefines its environments);
#   the \DeleteShortVerb line goes (without ltxdoc | is no short verb).
#   check-tex.sh compiles it in the class's measure mode (the origin of
#   every picture logged), with the doc directory in TEXINPUTS for the
#   manual's images.  The text fonts outside Open Sans that the class
#   leaves in place (\ttfamily, \rmfamily: the EC fonts ectt, ecrm) need
#   Type 1 outlines (Debian cm-super): dvisvgm turns bitmap (Type 3)
#   glyphs into nothing, and the ink of such text would be missed.
# --keep DIR: keep the example files in DIR.
#
# Environment: BUILD (build), PGF_DOC, PGF_CACHE
# (${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/diagramir-pgfdoc), PGF_TIMEOUT (10),
# PGF_TEX_TIMEOUT (60), PGF_JOBS (processors), PGF_FLOOR_TUT,
# PGF_FLOOR_TIKZ, PGF_SEED, PGF_NOTEX=1 (no TeX verdicts).
set -u
LC_ALL=C
export LC_ALL

# bump when the TeX verdicts are made otherwise (invalidates the cache)
METHOD=1

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

hash() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum | cut -c1-64
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 | cut -c1-64
  else cksum | tr ' ' '-'
  fi
}

# texverdict FILE: "ok" or "rejects<TAB>TeX's first error" (worker; the
# format, the preamble's length and the cache come in the environment)
texverdict() {
  f=$1
  key=$( { cat "$f"; printf 'method %s\n%s\n' "$METHOD" "$PGF_TEXVER"; } | hash)
  vdir=$PGF_VERDICTS
  if [ -s "$vdir/$key" ]; then cat "$vdir/$key"; return; fi
  d=$(mktemp -d "${TMPDIR:-/tmp}/pgfmanual-tex.XXXXXX") || return 1
  if [ -n "$PGF_FMT" ]; then
    # the manual's preamble is in the format: mylatexformat skips the
    # file up to \endofdump (a \relax without the format)
    awk -v n="$PGF_PRE_LINES" '{ print } NR == n { print "\\csname endofdump\\endcsname" }' "$f" > "$d/ex.tex"
    set -- -fmt="$PGF_FMT"
  else
    cp "$f" "$d/ex.tex"
    set --
  fi
  # as in the manual's directory: its images are found, plots/ exists
  mkdir "$d/plots"
  runtex() {
    ( cd "$d" && TEXINPUTS="$PGF_DOCDIR:${TEXINPUTS-}" timeout "${PGF_TEX_TIMEOUT:-60}" \
        pdflatex "$@" -interaction=nonstopmode -halt-on-error -file-line-error ex.tex \
        >tex.out 2>&1 </dev/null )
  }
  runtex "$@"
  st=$?
  if [ $st -gt 128 ] && [ $st != 137 ] && [ -n "$PGF_FMT" ]; then
    # pdfTeX can crash on PDF objects (fadings, shadings) dumped in the
    # format: such an example loads the preamble itself
    cp "$f" "$d/ex.tex"
    runtex
    st=$?
  fi
  if [ $st = 0 ]; then res=ok
  else
    # the first error: "FILE:LINE: message" (the file name may be cut at
    # the log's line width) or "! message"
    msg=$(grep -m1 -E '^[^ ]*:[0-9]+: |^! ' "$d/ex.log" 2>/dev/null |
          sed -e 's|^\(\./\)\{0,1\}ex\.tex:|line |' -e 's|^[^ ]*\.tex:[0-9]*: ||' \
              -e 's|^! ||' | tr '\t' ' ')
    [ $st = 124 ] && msg="timeout after ${PGF_TEX_TIMEOUT:-60} s"
    res=$(printf 'rejects\t%s' "${msg:-pdflatex failed (exit $st)}")
  fi
  rm -rf "$d"
  if mkdir -p "$vdir" 2>/dev/null; then
    printf '%s\n' "$res" > "$vdir/$key.$$" && mv "$vdir/$key.$$" "$vdir/$key"
  fi
  printf '%s\n' "$res"
}

if [ "${1-}" = --tex-one ]; then
  shift
  for f; do printf '%s\t%s\n' "${f##*/}" "$(texverdict "$f")"; done
  exit 0
fi

BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$root/$BUILD ;; esac
bin=$BUILD/bin/tikz2ir
tsv=""
ncauses=15
sample=0
keep=""
while [ $# -gt 0 ]; do
  case $1 in
    --tsv) tsv=$2; shift 2 ;;
    --causes) ncauses=$2; shift 2 ;;
    --tex-sample) sample=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/s/^# \{0,1\}//p' "$0" | sed '$d'; exit 0 ;;
    *) echo "usage: pgfmanual.sh [--tsv FILE] [--causes N] [--tex-sample N] [--keep DIR]" >&2; exit 2 ;;
  esac
done
[ -x "$bin" ] || { echo "pgfmanual: $bin missing (make first)" >&2; exit 2; }

cache=${PGF_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/diagramir-pgfdoc}
doc=${PGF_DOC:-}
if [ -z "$doc" ]; then
  for d in /usr/share/doc/texlive-doc/generic/pgf "$cache/usr/share/doc/texlive-doc/generic/pgf"; do
    if ls "$d"/pgfmanual-en-tikz-*.tex* >/dev/null 2>&1; then doc=$d; break; fi
  done
fi
if [ -z "$doc" ]; then
  mkdir -p "$cache" || exit 2
  echo "pgfmanual: fetching texlive-pictures-doc into $cache" >&2
  (cd "$cache" && apt-get download texlive-pictures-doc >/dev/null 2>&1) &&
    dpkg-deb -x "$cache"/texlive-pictures-doc_*.deb "$cache" ||
    { echo "pgfmanual: cannot fetch texlive-pictures-doc (apt-get download)" >&2; exit 2; }
  doc=$cache/usr/share/doc/texlive-doc/generic/pgf
fi

# readsrc NAME: a chapter's text (NAME.tex.gz or NAME.tex)
readsrc() {
  if [ -f "$doc/$1.tex.gz" ]; then gzip -dc "$doc/$1.tex.gz"
  elif [ -f "$doc/$1.tex" ]; then cat "$doc/$1.tex"
  else return 1
  fi
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pgfmanual.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' HUP INT TERM
mkdir "$tmp/ex"

# --- the manual's preamble
{
  echo '\documentclass[a4paper,doc2]{ltxdoc}'
  readsrc pgfmanual-en-main-preamble | awk '
    function braces(s,   t) {      # { minus } outside comments
      t = s
      if (match(t, /(^|[^\\])%/)) t = substr(t, 1, RSTART + RLENGTH - 2)
      return gsub(/\{/, "{", t) - gsub(/\}/, "}", t)
    }
    # \if blocks: only the \else branch of \ifluatex (pdfTeX) is read
    /^[ \t]*\\if/ { stack[++sp] = ($0 ~ /^[ \t]*\\ifluatex/) ? "lua" : "other"; live[sp] = 0; next }
    sp && /^[ \t]*\\else/ { live[sp] = (stack[sp] == "lua"); next }
    sp && /^[ \t]*\\fi([^a-z]|$)/ { sp--; next }
    { for (k = 1; k <= sp; k++) if (!live[k]) next }
    depth > 0 { print; depth += braces($0); next }
    /^[ \t]*\\(usepackage|usetikzlibrary|input|tikzset|def)[^a-zA-Z]/ {
      if ($0 ~ /\{(hyperref|imakeidx|todonotes)\}/ || $0 ~ /^[ \t]*\\def\\[A-Za-z]*@/) next
      print; depth = braces($0)
    }'
  # ltxdoc makes | a short verb at \begin{document}; the manual gives the
  # examples that use | their catcode back ({\catcode`\|=12 around them)
  echo '\AtBeginDocument{\DeleteShortVerb{\|}}'
} > "$tmp/preamble.tex"
grep -q usetikzlibrary "$tmp/preamble.tex" ||
  { echo "pgfmanual: no \\usetikzlibrary in $doc/pgfmanual-en-main-preamble" >&2; exit 2; }
prelines=$(wc -l < "$tmp/preamble.tex")

# --- the chapters in the manual's order, up to the last TikZ chapter
chapters=$(readsrc pgfmanual-en-main-body | sed -n 's/^[ \t]*\\include{\(pgfmanual-en-[^}]*\)}.*/\1/p' |
  awk '{ a[++n] = $0; if ($0 ~ /^pgfmanual-en-(tutorial|tikz-)/) last = n } END { for (i = 1; i <= last; i++) print a[i] }')
[ -n "$chapters" ] || { echo "pgfmanual: no chapters in $doc/pgfmanual-en-main-body" >&2; exit 2; }

for c in $chapters; do
  printf '\001%s\n' "$c"
  readsrc "$c" || echo "pgfmanual: $c missing" >&2
done | awk -v dir="$tmp/ex" -v prefile="$tmp/preamble.tex" -v notaken="$tmp/nottaken.tsv" '
  BEGIN { while ((getline l < prefile) > 0) pre = pre l "\n"; close(prefile); setup = "" }
  function trim(s) { sub(/^[ \t\n]+/, "", s); sub(/[ \t\n]+$/, "", s); return s }
  function unbrace(s,   i, d, c) {     # {x} -> x when the braces enclose it all
    s = trim(s)
    if (substr(s, 1, 1) != "{" || substr(s, length(s)) != "}") return s
    d = 0
    for (i = 1; i <= length(s); i++) {
      c = substr(s, i, 1)
      if (c == "{") d++; else if (c == "}") { d--; if (d == 0 && i < length(s)) return s }
    }
    return substr(s, 2, length(s) - 2)
  }
  function parseopts(s,   i, c, d, item, n, k, eq, v) {
    split("", O); d = 0; item = ""
    s = s ","
    for (i = 1; i <= length(s); i++) {
      c = substr(s, i, 1)
      if (c == "{") d++; else if (c == "}") d--
      if (c == "," && d == 0) {
        item = trim(item)
        if (item != "") {
          eq = 0
          for (k = 1; k <= length(item); k++) {
            c = substr(item, k, 1)
            if (c == "{") d++; else if (c == "}") d--
            else if (c == "=" && d == 0) { eq = k; break }
          }
          d = 0
          # the values are kept with /.store in (\def): ## stands for #
          if (eq) { v = unbrace(substr(item, eq + 1)); gsub(/##/, "#", v); O[trim(substr(item, 1, eq - 1))] = v }
          else O[item] = ""
        }
        item = ""; continue
      }
      item = item c
    }
  }
  function nocomments(s,   n, L, i, out, p) {   # the code without TeX comments
    n = split(s, L, "\n"); out = ""
    for (i = 1; i <= n; i++) {
      p = match(L[i], /(^|[^\\])%/)
      out = out (p ? substr(L[i], 1, RSTART + RLENGTH - 2) : L[i]) "\n"
    }
    return out
  }
  function flush(   code, why, name, c) {
    parseopts(opts)
    name = sprintf("%s-%03d.tex", base, idx)
    idx++
    if ("setup code" in O) { setup = setup body "\n"; why = "setup code" }
    else if ("code only" in O) why = "code only"
    else if ("multipage" in O) why = "multipage"
    else if ("hidden" in O) why = "hidden"
    else if ("from file" in O) why = "from file"
    else {
      code = ("render instead" in O) ? O["render instead"] : body
      c = nocomments(code)
      if (c !~ /\\begin[ \t]*\{tikzpicture\}/ && c !~ /\\tikz(picture)?([^A-Za-z]|$)/) why = "no picture"
    }
    if (group == "") return
    if (why != "") { printf "%s\t%s\n", name, why > notaken; return }
    printf "%s", pre > (dir "/" name)
    if ("preamble" in O) printf "%s\n", O["preamble"] > (dir "/" name)
    printf "\\begin{document}\n%s", setup > (dir "/" name)
    if ("pre" in O) printf "%s\n", O["pre"] > (dir "/" name)
    printf "%s\n", code > (dir "/" name)
    if ("post" in O) printf "%s\n", O["post"] > (dir "/" name)
    printf "\\end{document}\n" > (dir "/" name)
    close(dir "/" name)
  }
  /^\001/ {
    chap = substr($0, 2); base = chap; sub(/^pgfmanual-en-/, "", base)
    group = (base ~ /^tutorial/) ? "tutorial" : (base ~ /^tikz-/) ? "tikz" : ""
    idx = 0; state = 0; next
  }
  state == 0 {
    p = index($0, "\\begin{codeexample}")
    if (!p || substr($0, 1, p - 1) ~ /(^|[^\\])%/) next
    rest = substr($0, p + 19); opts = ""; body = ""; first = 1; od = 0
    state = (substr(rest, 1, 1) == "[") ? 1 : 2
    if (state == 1) rest = substr(rest, 2)
    if (rest == "") next
    $0 = rest
  }
  state == 1 {
    s = $0
    for (i = 1; i <= length(s); i++) {
      ch = substr(s, i, 1)
      if (ch == "{") od++; else if (ch == "}") od--
      else if (ch == "]" && od == 0) { state = 2; break }
      opts = opts ch
    }
    if (state == 1) { opts = opts "\n"; next }
    s = substr(s, i + 1)
    if (s ~ /^[ \t]*$/) next
    $0 = s
  }
  state == 2 {
    p = index($0, "\\end{codeexample}")
    if (p) {
      body = body (first ? "" : "\n") substr($0, 1, p - 1)
      state = 0; flush(); next
    }
    body = body (first ? "" : "\n") $0; first = 0
  }'
[ -n "$keep" ] && { mkdir -p "$keep" && cp "$tmp"/ex/*.tex "$keep"/; }

# --- TeX's verdicts
: > "$tmp/tex.tsv"
texnote=""
if [ "${PGF_NOTEX:-0}" = 1 ]; then texnote="no TeX verdicts (PGF_NOTEX=1)"
elif ! command -v pdflatex >/dev/null 2>&1; then texnote="no TeX verdicts (pdflatex not found)"
else
  PGF_TEXVER=$(pdflatex --version 2>/dev/null | head -1)
  PGF_VERDICTS=$cache/tex-verdicts
  PGF_PRE_LINES=$prelines
  PGF_FMT=""
  if kpsewhich mylatexformat.ltx >/dev/null 2>&1; then
    fkey=$( { cat "$tmp/preamble.tex"; printf 'method %s\n%s\n' "$METHOD" "$PGF_TEXVER"; } | hash)
    fmt=$cache/fmt/pgfmanual-$fkey.fmt
    if [ ! -s "$fmt" ]; then
      mkdir -p "$cache/fmt" "$tmp/fmt"
      { cat "$tmp/preamble.tex"; printf '\\csname endofdump\\endcsname\n\\begin{document}\n\\end{document}\n'; } > "$tmp/fmt/src.tex"
      ( cd "$tmp/fmt" && timeout 300 pdflatex -ini -interaction=nonstopmode -jobname=pgfmanual \
          '&pdflatex' mylatexformat.ltx src.tex >out.txt 2>&1 </dev/null ) &&
        [ -s "$tmp/fmt/pgfmanual.fmt" ] && cp "$tmp/fmt/pgfmanual.fmt" "$fmt.$$" && mv "$fmt.$$" "$fmt"
    fi
    [ -s "$fmt" ] && PGF_FMT=$fmt
  fi
  PGF_DOCDIR=$doc
  export PGF_DOCDIR PGF_TEXVER PGF_VERDICTS PGF_PRE_LINES PGF_FMT PGF_TEX_TIMEOUT METHOD
  jobs=${PGF_JOBS:-$(nproc 2>/dev/null || echo 2)}
  [ -t 2 ] && echo "pgfmanual: TeX verdicts for $(ls "$tmp"/ex | wc -l) examples ($jobs jobs)..." >&2
  ls "$tmp"/ex/*.tex | xargs -P "$jobs" -n 8 sh "$0" --tex-one | sort > "$tmp/tex.tsv"
fi

# --- tikz2ir
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
# join TeX's verdicts (name, verdict, message)
awk -F'\t' -v OFS='\t' -v texres="$tmp/tex.tsv" 'FILENAME == texres { v[$1] = $2; m[$1] = $3; next }
  { print $0, (($1 in v) ? v[$1] : "unknown"), (($1 in m) ? m[$1] : "") }' "$tmp/tex.tsv" "$tmp/res.tsv" > "$tmp/all.tsv"
[ -n "$tsv" ] && cp "$tmp/all.tsv" "$tsv"

awk -F'\t' -v ftut="${PGF_FLOOR_TUT:-97}" -v ftikz="${PGF_FLOOR_TIKZ:-92}" -v ncauses="$ncauses" \
    -v texnote="$texnote" '
  FILENAME ~ /nottaken/ { g = ($1 ~ /^tutorial/) ? "tutorials" : "tikz"; nt[g, $2]++; ntk[$2] = 1; next }
  { g = ($1 ~ /^tutorial/) ? "tutorials" : "tikz"
    taken[g]++
    if ($2 == 124) hang[g]++
    else if ($2 > 2) crash[g]++
    if ($6 == "rejects") { rej[g]++; next }
    n[g]++
    if ($2 == 0 && $3 == 0 && $5 > 0) c[g]++
    if ($2 == 0 && $5 == 0) empty[g]++
    m = split($4, w, " ")
    for (k = 1; k <= m; k++) if (w[k] != "") cause[w[k]]++ }
  END {
    bad = 0
    split("tutorials tikz", gs, " ")
    for (k = 1; k <= 2; k++) {
      g = gs[k]; pct = n[g] ? 100 * c[g] / n[g] : 0
      fl = (g == "tutorials") ? ftut : ftikz
      printf "pgfmanual %-9s %d/%d clean (%.1f%%, floor %s%%), TeX rejects: %d (of %d taken), %d without a diagram, %d crashes, %d hangs\n", g, c[g], n[g], pct, fl, rej[g], taken[g], empty[g], crash[g], hang[g]
      s = ""
      for (r in ntk) if (nt[g, r]) s = s sprintf("%s%s %d", s == "" ? "" : ", ", r, nt[g, r])
      if (s != "") printf "  not taken: %s\n", s
      if (pct < fl || crash[g] || hang[g]) bad = 1
    }
    if (texnote != "") print "  " texnote
    print "top unparsed causes (examples TeX accepts):"
    for (x in cause) printf "%6d  %s\n", cause[x], x | "sort -rn | head -" ncauses
    close("sort -rn | head -" ncauses)
    exit bad
  }' "$tmp/nottaken.tsv" "$tmp/all.tsv"
rc=$?

# --- TeX as the oracle of the geometry, on a sample
if [ "$sample" -gt 0 ] 2>/dev/null; then
  seed=${PGF_SEED:-1}
  mkdir "$tmp/sample"
  awk -F'\t' '$2 == 0 && $3 == 0 && $5 > 0 && $6 == "ok" { print $1 }' "$tmp/all.tsv" |
    while read -r n; do
      printf '%s %s\n' "$(printf '%s:%s' "$seed" "$n" | cksum | cut -d' ' -f1)" "$n"
    done | sort -n | head -n "$sample" | while read -r _ n; do
      # the IM class in place of ltxdoc (see --tex-sample above)
      awk -v n="$prelines" '
        NR == 1 { print "\\PassOptionsToPackage{version=latest}{pgf}\\documentclass{IM}"
                  print "\\usepackage{doc}"; next }
        NR == n && /^\\AtBeginDocument\{\\DeleteShortVerb/ { next }
        { print }' "$tmp/ex/$n" > "$tmp/sample/${n%.tex}.tex"
    done
  nsample=$(ls "$tmp/sample" | wc -l)
  echo "TeX as the oracle on $nsample clean examples (seed $seed): tests/tex/check-tex.sh"
  TEXINPUTS="$doc:${TEXINPUTS-}" TEX_FLOOR=0 TEX_WORST=${TEX_WORST:-10} BUILD=$BUILD \
    sh "$here/check-tex.sh" "$tmp"/sample/*.tex |
    sed 's/^/  /'
fi
exit $rc
