#!/bin/sh
# tests/contract/run.sh -- the output contract of diagramir-formats(5), end
# to end: every program piped into every program that reads its output,
# with the IR once in its text form and once in its JSON form.
#
#   producers of IR:  tikz2ir, svg2graph, irlint --format ir (with findings)
#   readers of IR:    irlint (text, tsv, json, ir, ir-json), graphalign
#                     (tsv, --json), ir2svg (SVG files), irreport (HTML)
#   tables onward:    irlint --format tsv | kappa, graphalign | kappa
#
# For every pair the results (stdout, and the exit status) must be the same
# bytes whichever IR form went in; the JSON IR that tikz2ir and svg2graph
# write must be the bytes irlint --format ir-json writes for the same
# diagrams; and every JSON Lines output (the IR, irlint --format json,
# graphalign --json, judge --dry-run) must parse line by line as objects
# with "item" where there is an id, numbers as numbers and no "line":0
# (tests/contract/check_jsonl.py, python3: a build dependency). Bad JSON IR
# gives every reader FILE:LINE:COL: error and exit 2.
#
# Corpora: tests/tikz2ir/*.tex that tikz2ir reads, the DiagramIR dev set
# (tests/data/diagramir-dev), tests/svg2graph/*.svg that svg2graph reads and
# the graphs' truth files. The round trip text -> JSON -> text of every IR
# file under tests/ is tests/unit/test_ir_json.c's.
. "$(dirname "$0")/../lib.sh"
for p in tikz2ir svg2graph irlint graphalign ir2svg irreport kappa judge; do
    [ -x "$bin/$p" ] || { echo "contract/run.sh: $bin/$p not found (make first)" >&2; exit 2; }
done
PATH=$bin:$PATH
export PATH
tmp=$(mktemp -d "${TMPDIR:-/tmp}/contract-tests.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fail=0
pairs=0
bad() { echo "FAIL $*"; fail=1; }

# out NAME CMD...: runs CMD, stdout to $tmp/NAME, exit status to
# $tmp/NAME.st; a status of 2 or more (usage or input error, a crash) fails
out() {
    out_name=$1
    shift
    "$@" > "$tmp/$out_name" 2> "$tmp/$out_name.err"
    st=$?
    echo "$st" > "$tmp/$out_name.st"
    [ "$st" -lt 2 ] || bad "$out_name: exit $st: $(head -3 "$tmp/$out_name.err")"
}
# same PAIR A B: the results A and B (files or directories, with their exit
# statuses) are the same
same() {
    pairs=$((pairs + 1))
    if [ -d "$tmp/$2" ]; then
        diff -r "$tmp/$2" "$tmp/$3" > "$tmp/diff" 2>&1 || bad "$1: text and JSON IR differ: $(head -5 "$tmp/diff")"
        return
    fi
    [ -s "$tmp/$2" ] || bad "$1: no output"
    cmp -s "$tmp/$2" "$tmp/$3" || bad "$1: text and JSON IR differ: $(diff "$tmp/$2" "$tmp/$3" | head -5)"
    cmp -s "$tmp/$2.st" "$tmp/$3.st" ||
        bad "$1: exit status $(cat "$tmp/$2.st") with text IR, $(cat "$tmp/$3.st") with JSON IR"
}

# --- the corpora -------------------------------------------------------------
tex=""
for f in tests/tikz2ir/*.tex; do
    tikz2ir -q "$f" > /dev/null 2>&1 && tex="$tex $f"
done
dev=tests/data/diagramir-dev
svgs=""
for f in tests/svg2graph/*.svg; do
    svg2graph -q "$f" > /dev/null 2>&1 && svgs="$svgs $f"
done
[ -n "$tex" ] && [ -n "$svgs" ] || { bad "no corpus"; exit 1; }

# --- producers: each in both forms ----------------------------------------------
# shellcheck disable=SC2086
{
    out tikz.ir tikz2ir -q $tex $dev/tikz/*.tex
    out tikz.jsonl tikz2ir -q --json $tex $dev/tikz/*.tex
    out svg.ir svg2graph -q $svgs
    out svg.jsonl svg2graph -q --json $svgs
}
[ "$(grep -c '^diagram ' "$tmp/tikz.ir")" -eq "$(wc -l < "$tmp/tikz.jsonl")" ] ||
    bad "tikz2ir: not one JSON line per diagram"
# the producers' JSON is the JSON irlint writes of their text, and the other way
out tikz.conv.jsonl irlint --only '' --format ir-json "$tmp/tikz.ir"
out tikz.conv.ir irlint --only '' --format ir "$tmp/tikz.jsonl"
out svg.conv.jsonl irlint --only '' --format ir-json "$tmp/svg.ir"
out svg.conv.ir irlint --only '' --format ir "$tmp/svg.jsonl"
for k in tikz svg; do
    cmp -s "$tmp/$k.jsonl" "$tmp/$k.conv.jsonl" || bad "$k: --json is not the JSON form of its IR: $(diff "$tmp/$k.jsonl" "$tmp/$k.conv.jsonl" | head -3)"
    cmp -s "$tmp/$k.ir" "$tmp/$k.conv.ir" || bad "$k: its JSON read back is not its IR: $(diff "$tmp/$k.ir" "$tmp/$k.conv.ir" | head -3)"
    pairs=$((pairs + 2))
done
# irlint --format ir (findings) in both forms, from both forms
out find.ir irlint --format ir "$tmp/tikz.ir"
out find.jsonl irlint --format ir-json "$tmp/tikz.ir"
out find.j.ir irlint --format ir "$tmp/tikz.jsonl"
out find.j.jsonl irlint --format ir-json "$tmp/tikz.jsonl"
same "irlint --format ir" find.ir find.j.ir
same "irlint --format ir-json" find.jsonl find.j.jsonl

# --- readers: each producer into each reader, text vs JSON ------------------------
for src in tikz svg find; do
    for fmt in text tsv json ir ir-json; do
        out "$src.lint.$fmt.t" irlint --verbose --format "$fmt" "$tmp/$src.ir"
        out "$src.lint.$fmt.j" irlint --verbose --format "$fmt" "$tmp/$src.jsonl"
        same "$src -> irlint --format $fmt" "$src.lint.$fmt.t" "$src.lint.$fmt.j"
    done
    mkdir "$tmp/$src.svg.t" "$tmp/$src.svg.j"
    out "$src.draw.t" ir2svg --dir "$tmp/$src.svg.t" "$tmp/$src.ir"
    out "$src.draw.j" ir2svg --dir "$tmp/$src.svg.j" "$tmp/$src.jsonl"
    [ "$(ls "$tmp/$src.svg.t" | wc -l)" -gt 0 ] || bad "$src -> ir2svg: no picture"
    same "$src -> ir2svg" "$src.svg.t" "$src.svg.j"
done
# a diagram through stdin, in both forms (the form is told by the first byte)
head -c 100000 "$tmp/svg.jsonl" | head -1 > "$tmp/one.jsonl"
out one.draw.j ir2svg < "$tmp/one.jsonl"
out one.ir irlint --only '' --format ir "$tmp/one.jsonl"
out one.draw.t ir2svg < "$tmp/one.ir"
same "svg2graph -> ir2svg (stdin)" one.draw.t one.draw.j

# graphalign: the tikz2ir and irlint IR against itself; svg2graph's graphs
# against their truth files; every mix of the two forms on both sides
for src in tikz find; do
    for opt in "" --json; do
        out "$src.ga$opt.tt" graphalign $opt --by-order "$tmp/$src.ir" "$tmp/$src.ir"
        out "$src.ga$opt.jj" graphalign $opt --by-order "$tmp/$src.jsonl" - < "$tmp/$src.jsonl"
        same "$src -> graphalign $opt" "$src.ga$opt.tt" "$src.ga$opt.jj"
    done
done
ga_json=""
for truth in tests/svg2graph/*.truth.ir; do
    b=$(basename "$truth" .truth.ir)
    svg=tests/svg2graph/$b.svg
    [ -f "$svg" ] || continue
    out "$b.gen.ir" svg2graph -q -g "$svg"
    out "$b.gen.jsonl" svg2graph -q -g --json "$svg"
    out "$b.truth.jsonl" irlint --only '' --format ir-json "$truth"
    for opt in "" --json; do
        out "$b.ga$opt.tt" graphalign $opt "$truth" "$tmp/$b.gen.ir"
        out "$b.ga$opt.tj" graphalign $opt "$truth" "$tmp/$b.gen.jsonl"
        out "$b.ga$opt.jt" graphalign $opt "$tmp/$b.truth.jsonl" "$tmp/$b.gen.ir"
        out "$b.ga$opt.jj" graphalign $opt "$tmp/$b.truth.jsonl" - < "$tmp/$b.gen.jsonl"
        same "svg2graph $b -> graphalign $opt (gen JSON)" "$b.ga$opt.tt" "$b.ga$opt.tj"
        same "svg2graph $b -> graphalign $opt (truth JSON)" "$b.ga$opt.tt" "$b.ga$opt.jt"
        same "svg2graph $b -> graphalign $opt (both JSON)" "$b.ga$opt.tt" "$b.ga$opt.jj"
    done
    ga_json="$ga_json $tmp/$b.ga--json.tj"
    grep -q "	node-f1	graphalign	" "$tmp/$b.ga.tt" || bad "svg2graph $b -> graphalign: no node-f1 row"
done

# irreport: the diagrams (text or JSON, with irlint's findings) and tables
out find.tsv irlint --format tsv "$tmp/tikz.ir"
out report.t irreport -o "$tmp/report.t.html" "$tmp/find.ir" $dev/ratings.tsv "$tmp/find.tsv"
out report.j irreport -o "$tmp/report.j.html" "$tmp/find.jsonl" $dev/ratings.tsv "$tmp/find.tsv"
pairs=$((pairs + 1))
[ -s "$tmp/report.t.html" ] && cmp -s "$tmp/report.t.html" "$tmp/report.j.html" ||
    bad "irlint --format ir -> irreport: text and JSON IR differ"

# tables onward: irlint's table (from either IR form) and graphalign's into kappa
out kappa.t kappa --by criterion $dev/ratings.tsv "$tmp/tikz.lint.tsv.t"
out kappa.j kappa --by criterion $dev/ratings.tsv "$tmp/tikz.lint.tsv.j"
same "tikz2ir -> irlint --format tsv -> kappa" kappa.t kappa.j
awk -F '\t' 'NR == 1 || $6 == "item"' "$tmp/llm-flow.ga.tt" > "$tmp/ga1.tsv" 2>/dev/null
sed 's/	graphalign	/	other	/' "$tmp/ga1.tsv" | awk 'NR > 1' > "$tmp/ga2.tsv"
cat "$tmp/ga1.tsv" "$tmp/ga2.tsv" > "$tmp/ga12.tsv"
out kappa.ga kappa --stat pearson "$tmp/ga12.tsv"
pairs=$((pairs + 1))

# --- every JSON Lines output parses, with "item" as its id key ---------------------
if command -v python3 > /dev/null 2>&1; then
    out judge.dry judge --rubric geom --mode code --dry-run tests/judge/data/geom.tsv
    ir_json="$tmp/tikz.jsonl $tmp/svg.jsonl $tmp/find.jsonl $tmp/find.j.jsonl $tmp/tikz.lint.ir-json.j"
    rec_json="$tmp/tikz.lint.json.t $tmp/svg.lint.json.t $tmp/find.lint.json.j $tmp/judge.dry"
    rec_json="$rec_json $tmp/tikz.ga--json.jj $tmp/find.ga--json.jj$ga_json"
    # shellcheck disable=SC2086
    python3 tests/contract/check_jsonl.py ir $ir_json > "$tmp/chk" || bad "JSON IR: $(head -5 "$tmp/chk")"
    # shellcheck disable=SC2086
    python3 tests/contract/check_jsonl.py records $rec_json > "$tmp/chk" || bad "JSON records: $(head -5 "$tmp/chk")"
    # graphalign's summary rows are told from an item named "mean"
    printf 'diagramir 1\ndiagram mean\nvertex a 0 0 1 1 "A"\nend\ndiagram b\nvertex a 0 0 1 1 "B"\nend\n' > "$tmp/mean.ir"
    graphalign --json "$tmp/mean.ir" "$tmp/mean.ir" > "$tmp/mean.jsonl" || bad "graphalign: item named mean"
    python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
items = [r for r in rows if r["scope"] == "item"]
means = [r for r in rows if r["scope"] == "mean"]
assert len(items) == 18 and len(means) == 9, (len(items), len(means))
assert sum(r.get("item") == "mean" for r in items) == 9
assert all("item" not in r and r["items"] == 2 for r in means)
assert all(isinstance(r["value"], (int, float)) for r in rows)
' "$tmp/mean.jsonl" || bad "graphalign --json: item named mean vs summary rows"
    pairs=$((pairs + 1))
else
    echo "contract/run.sh: python3 not found: JSON Lines outputs not parsed (make deps installs it)" >&2
fi
graphalign "$tmp/mean.ir" "$tmp/mean.ir" 2>/dev/null | awk -F '\t' 'NR == 1 { h = $0 } $1 == "mean" && $6 != "item" { b = 1 }
    $6 == "mean" && $1 != "NA" { b = 1 } END { exit b || h != "item\tcriterion\trater\tvalue\tnote\tscope" }' ||
    bad "graphalign TSV: the item mean and the summary rows"

# --- bad JSON IR: every reader says FILE:LINE:COL: error, exits 2 -----------------
printf '{"item":"ok","elements":[]}\n{"item":"x","elements":[{"kind":"rect","points":[[0,0]]}]}\n' > "$tmp/bad.jsonl"
want="$tmp/bad.jsonl:2:49: error: elements\\[0\\].points: 'rect' needs 2 points, found 1"
for cmd in "irlint --format tsv" "graphalign REF" "ir2svg --dir $tmp/badsvg" "irreport -o $tmp/bad.html"; do
    mkdir -p "$tmp/badsvg"
    case $cmd in
    "graphalign REF") set -- graphalign "$tmp/find.ir" "$tmp/bad.jsonl" ;;
    "irreport"*) set -- $cmd "$tmp/bad.jsonl" $dev/ratings.tsv "$tmp/find.tsv" ;;
    *) set -- $cmd "$tmp/bad.jsonl" ;;
    esac
    "$@" > "$tmp/bad.out" 2> "$tmp/bad.err"
    st=$?
    [ $st -eq 2 ] && grep -q "^$want" "$tmp/bad.err" ||
        bad "$1 on bad JSON IR: exit $st: $(head -2 "$tmp/bad.err")"
    pairs=$((pairs + 1))
done
printf '{"item":"x",\n "elements":[]}\n' > "$tmp/pretty.jsonl"
irlint "$tmp/pretty.jsonl" > /dev/null 2> "$tmp/bad.err"
[ $? -eq 2 ] && grep -q "^$tmp/pretty.jsonl:1:12: error: invalid JSON, or the line ends inside the object" "$tmp/bad.err" ||
    bad "pretty-printed JSON IR: $(cat "$tmp/bad.err")"

# hostile JSON: nesting 100,000 deep (cJSON's limit: an error, no crash), a
# 2 MB string, 20,000 elements (legal)
awk 'BEGIN { printf "{\"item\":\"x\",\"elements\":"; for (i = 0; i < 100000; i++) printf "["; print "" }' > "$tmp/deep.jsonl"
irlint "$tmp/deep.jsonl" > /dev/null 2> "$tmp/bad.err"
[ $? -eq 2 ] && grep -q "^$tmp/deep.jsonl:1:[0-9]*: error: invalid JSON" "$tmp/bad.err" ||
    bad "JSON nested 100,000 deep: $(head -c 300 "$tmp/bad.err")"
awk 'BEGIN { s = "a"; for (i = 0; i < 21; i++) s = s s; printf "{\"item\":\"x\",\"elements\":[{\"kind\":\"unparsed\",\"text\":\"%s\"}", s;
    for (i = 0; i < 20000; i++) printf ",{\"kind\":\"rect\",\"points\":[[%d,0],[%d,1]],\"attrs\":{\"lw\":0.4}}", i, i + 1; print "]}" }' > "$tmp/big.jsonl"
irlint --only '' --format ir "$tmp/big.jsonl" > "$tmp/big.ir" 2> "$tmp/bad.err" &&
    [ "$(grep -c '^rect ' "$tmp/big.ir")" -eq 20000 ] && [ "$(grep '^unparsed' "$tmp/big.ir" | wc -c)" -gt 2000000 ] ||
    bad "a JSON diagram of 2 MB text and 20,000 elements: $(head -c 300 "$tmp/bad.err")"

if [ $fail -eq 0 ]; then
    echo "contract: $pairs pipes and conversions agree in text and JSON; JSON Lines outputs conform"
fi
exit $fail
