#!/bin/sh
# tests/scale/run.sh -- irlint and svg2graph against extreme numbers and
# large inputs (issue #20): no crash, bounded work, a clear error at the
# documented limits.
#
#   BUILD=build sh tests/scale/run.sh [-v]
#
# Every input is generated here (tests/scale/gen.awk and inline), into a
# scratch directory:
#   - the reproducers: a rect from -1e308 to 1e308 (irlint aborted); an
#     attribute holding 1e300; an SVG path from -1.7e308 to 1.7e308 through
#     svg2graph and irlint; 4,000 role=angle-mark arcs with a 10^6 degree
#     span on one corner (54 s and 450 MB before);
#   - 100,000 elements for irlint (rects, texts, crossing lines, arcs,
#     labeled triangles) and svg2graph (rects with texts, crossing lines,
#     texts; 40,000 rects), all spread out: checked, not refused;
#   - the limits of limits.h: 1,000,001 elements, 120,000 ellipses (more
#     than 8,000,000 straight pieces), 30,000 texts piled on one spot (more
#     than GEOM_MAX_WORK pairs), and for svg2graph 80,000 arcs piled on
#     one spot (GRAPH_MAX_WORK): exit 2 with an error naming the record.
# For each, the program must
#   - finish within SCALE_LIMIT seconds of CPU time (default 20: a generous
#     safety cap, not a speed test -- `make bench` has the figures; killed
#     by `timeout` after 5 x SCALE_LIMIT seconds of wall time), in at most
#     2 GB of address space (ulimit -v, in a subshell);
#   - never crash (exit status >= 128);
#   - exit as the case expects: 2 with a "FILE:LINE:1: error: " line on
#     stderr naming the record and the limit, or 0/1 (verdicts; for
#     svg2graph 0) with no error line.
# Under a sanitizer build (ASan in the binary) the time limit is multiplied
# by 10 and the address-space limit is left out.
#
# SCALE_ONLY=ERE runs only the cases whose names match.
# Exit status: 0 all passed, 1 some case failed, 2 a program missing.
. "$(dirname "$0")/../lib.sh"
BIN=$bin
L=$BIN/irlint S=$BIN/svg2graph
[ -x "$L" ] && [ -x "$S" ] || { echo "scale/run.sh: $BIN/irlint or svg2graph not found (make first)" >&2; exit 2; }
verbose=0
[ "${1-}" = -v ] && verbose=1
limit=${SCALE_LIMIT:-20}
vmem=2000000
if grep -aq __asan_init "$L" 2>/dev/null; then
    limit=$((limit * 10))
    vmem=
fi
have_timeout=0
command -v timeout >/dev/null 2>&1 && have_timeout=1

tmp=$(mktemp -d "${TMPDIR:-/tmp}/scale-test.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

. tests/cputime.sh
wall=$((limit * 5))

gen() {  # gen KIND N FMT > FILE
    awk -v kind="$1" -v n="$2" -v fmt="$3" -f tests/scale/gen.awk
}

pass=0 fail=0
# run_case NAME EXPECT PATTERN PROG FILE: EXPECT is 2 (an error line
# matching PATTERN, an ERE after "FILE:LINE:1: error: "), 01 (exit 0 or 1,
# no error) or 0 (exit 0, no error)
# (ran is 1 when the case ran: a check after it looks at its output)
run_case() {
    name=$1 expect=$2 pat=$3 prog=$4 f=$5
    ran=0
    if [ -n "${SCALE_ONLY:-}" ] && ! printf '%s\n' "$name" | grep -Eq -- "$SCALE_ONLY"; then
        return 0
    fi
    ran=1
    bounded_run "$prog" "$f"
    if [ -z "$why" ]; then
        case $expect in
        2)
            if [ $st != 2 ]; then
                why="exit $st, expected 2"
            elif ! grep -Eq "^$f:[0-9]+:1: error: .*$pat" "$tmp/err"; then
                why="no \"$f:LINE:1: error: ...$pat\" line on stderr"
            fi ;;
        01|0)
            if [ $st -gt 1 ] || { [ "$expect" = 0 ] && [ $st != 0 ]; }; then
                why="exit $st, expected $expect"
            elif grep -q ": error: " "$tmp/err"; then
                why="an error line on stderr"
            fi ;;
        esac
    fi
    if [ -n "$why" ]; then
        fail=$((fail + 1))
        echo "FAIL  $name: $why"
        head -3 "$tmp/err" | sed 's/^/      /'
    else
        pass=$((pass + 1))
        [ $verbose = 1 ] && echo "ok    $name (${ms} ms, exit $st)"
    fi
    return 0
}

# --- the reproducers -------------------------------------------------------
printf 'diagramir 1\ndiagram d\npoly open 0 0 1 1\nrect -1e308 0 1e308 1\nend\n' > "$tmp/extreme-rect.ir"
run_case irlint-extreme-rect 2 'coordinate .*beyond' "$L" "$tmp/extreme-rect.ir"
# the record named is the rect's, line 4
[ $ran = 0 ] || grep -q "extreme-rect.ir:4:1: error: " "$tmp/err" || { fail=$((fail + 1)); echo "FAIL  irlint-extreme-rect: the error does not name line 4"; }

printf 'diagramir 1\ndiagram v\npoly closed 0 0 30 0 0 30 @1\narc 0 0 5 0 0 5 0 90 role=angle-mark vertex=1e300,0 @2\nend\n' > "$tmp/extreme-attr.ir"
run_case irlint-extreme-attr 2 'vertex= holds 1e\+300' "$L" "$tmp/extreme-attr.ir"

# near the limit (1e15) and below it, denormals: checked, not refused
printf 'diagramir 1\ndiagram near\npoly open -1e15 -1e15 1e15 1e15 @1\nrect 1e15 1e15 -1e15 -1e15 @2\narc 0 0 1e15 0 0 1e15 -1e308 1e308 role=angle-mark vertex=0,0 @3\ntext 0 0 10 10 "45°" size=1e15 @4\npoly closed 0 0 4.9e-324 0 0 4.9e-324 @5\ntext 0 0 1e-308 1e-308 "1e-308 cm" @6\nend\n' > "$tmp/near-limit.ir"
run_case irlint-near-limit 01 '' "$L" "$tmp/near-limit.ir"

cat > "$tmp/extreme-path.svg" <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">
<path d="M -1.7e308 -1.7e308 L 1.7e308 1.7e308" stroke="black"/>
<rect x="10" y="10" width="20" height="20" stroke="black" fill="none"/>
<text x="12" y="22">A</text>
</svg>
SVG
"$S" "$tmp/extreme-path.svg" > "$tmp/extreme-path.ir" 2>/dev/null
run_case svg2graph-extreme-path 0 '' "$S" "$tmp/extreme-path.svg"
run_case irlint-extreme-path 2 'coordinate .*beyond' "$L" "$tmp/extreme-path.ir"

awk 'BEGIN { print "diagramir 1"; print "diagram arcs"; print "poly closed 0 0 30 0 0 30 @1"
             for (i = 0; i < 4000; i++)
                 printf "arc 0 0 %g 0 0 %g 0 1000000 draw=black fill=none role=angle-mark vertex=0,0 @%d\n", 3 + i * 0.001, 3 + i * 0.001, i + 2
             print "end" }' > "$tmp/arcs4000.ir"
run_case irlint-4000-arcs-one-corner 01 '' "$L" "$tmp/arcs4000.ir"

# --- 100,000 elements, spread out: checked, not refused --------------------
for k in rects texts lines arcs figures; do
    gen $k 100000 ir > "$tmp/$k.ir"
    run_case irlint-100k-$k 01 '' "$L" "$tmp/$k.ir"
done
for k in nodes lines texts; do
    gen $k 100000 svg > "$tmp/$k.svg"
    run_case svg2graph-100k-$k 0 '' "$S" "$tmp/$k.svg"
done
gen rects 40000 svg > "$tmp/rects.svg"
run_case svg2graph-40k-rects 0 '' "$S" "$tmp/rects.svg"
# what svg2graph made of 100,000 crossing lines, checked
gen lines 100000 svg | "$S" > "$tmp/lines-svg.ir" 2>/dev/null
run_case irlint-100k-svg2graph-lines 01 '' "$L" "$tmp/lines-svg.ir"

# --- the limits (checks/geom/limits.h) -------------------------------------
awk 'BEGIN { print "diagramir 1"; print "diagram many"; for (i = 0; i < 1000001; i++) print "coord P 0 0"; print "end" }' > "$tmp/elems.ir"
run_case irlint-limit-elements 2 'more than the 1000000' "$L" "$tmp/elems.ir"
awk 'BEGIN { print "diagramir 1"; print "diagram pieces"; for (i = 0; i < 120000; i++) printf "ellipse %d 0 5 0 0 5 @%d\n", i * 20, i + 1; print "end" }' > "$tmp/pieces.ir"
run_case irlint-limit-pieces 2 'straight pieces' "$L" "$tmp/pieces.ir"
awk 'BEGIN { print "diagramir 1"; print "diagram piled"; for (i = 0; i < 30000; i++) printf "text 0 0 10 10 \"T%d\" @%d\n", i, i + 1; print "end" }' > "$tmp/piled.ir"
run_case irlint-limit-work 2 'pairs of elements' "$L" "$tmp/piled.ir"
# svg2graph: 80,000 arcs piled on one spot (every end near thousands of
# others) reach GRAPH_MAX_WORK
awk 'BEGIN { print "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"100\">"
             for (i = 0; i < 80000; i++) { r = 3 + (i % 997) * 0.01
                 printf "<path d=\"M %g 0 A %g %g 0 1 1 %g 0\" fill=\"none\" stroke=\"black\"/>\n", r, r, r, -r }
             print "</svg>" }' > "$tmp/piled.svg"
run_case svg2graph-limit-work 2 'comparisons of elements' "$S" "$tmp/piled.svg"
# a refused diagram does not stop the stream: the next one is checked
{ cat "$tmp/extreme-rect.ir"; printf 'diagram ok\npoly closed 0 0 10 0 0 10 @1\nend\n'; } > "$tmp/two.ir"
run_case irlint-refused-then-checked 2 'coordinate' "$L" "$tmp/two.ir"
[ $ran = 0 ] || grep -q "^ok:1: readable-size: no: " "$tmp/out" || { fail=$((fail + 1)); echo "FAIL  irlint-refused-then-checked: no verdicts for the second diagram"; }

echo "scale: $pass passed, $fail failed"
[ $fail -eq 0 ]
