#!/bin/sh
# The end-to-end equivalence check (run by tests/run-all.sh; BUILD defaults
# to build).
#
# Runs every program over the dev items, the golden inputs of each program's
# tests and the fuzz corpora, digests each case's standard output, standard
# error and exit status, and compares the digests with tests/same/expected.tsv.
# A refactoring must leave every line of that file as it is; a change that is
# meant to change output rewrites it with
#
#     make same-update          (SAME_UPDATE=1 sh tests/same/run.sh)
#
# and its commit message says which cases changed and why.
#
# One line per case: NAME  STDOUT-DIGEST  STDERR-DIGEST  EXIT-STATUS, where a
# digest is the first 16 hex digits of SHA-256. On a difference the check
# prints the cases that differ (diff of expected against now).
BUILD=${BUILD:-build}
B="$BUILD/bin"
dir=$(dirname "$0")
expected="$dir/expected.tsv"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/same-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
# judge's cache and key must not come from the user's environment
export HOME="$tmp/home"
unset OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MODEL DIAGRAMIR_RUBRICS
# the progress line is off when stderr is not a terminal: forcing it would
# change every digest
unset DIAGRAMIR_PROGRESS
export LC_ALL=C
export DIAGRAMIR_RUBRICS="$PWD/llm/rubrics"

for p in tikz2ir irlint svg2graph graphalign kappa judge ir2svg irreport; do
    if [ ! -x "$B/$p" ]; then
        echo "FAIL: $B/$p not built"
        exit 1
    fi
done

BA=$(cd "$B" && pwd)

dig() { sha256sum <"$1" | cut -c1-16; }

# c NAME COMMAND...: runs COMMAND with stdin from /dev/null (or from $IN when
# set) and prints the case's line. The program's path is written as the bare
# program name in stderr so that another BUILD gives the same digests.
c() {
    name=$1
    shift
    "$@" <"${IN:-/dev/null}" >"$tmp/o" 2>"$tmp/e"
    st=$?
    sed -e "s|$BA/||g" -e "s|$B/||g" "$tmp/e" >"$tmp/e2"
    printf '%s\t%s\t%s\t%s\n' "$name" "$(dig "$tmp/o")" "$(dig "$tmp/e2")" "$st"
}

cases() {
    dev=tests/data/diagramir-dev
    # --- tikz2ir and irlint on every dev item, one at a time
    for f in $dev/tikz/*.tex; do
        n=$(basename "$f" .tex)
        c "tikz2ir/dev/$n" "$B/tikz2ir" "$f"
        cp "$tmp/o" "$tmp/dev-$n.ir"
        IN="$tmp/dev-$n.ir" c "irlint/dev/$n" "$B/irlint" --rubric geom
        IN="$tmp/dev-$n.ir" c "irlint-tsv/dev/$n" "$B/irlint" --rubric geom --format tsv
        IN="$tmp/dev-$n.ir" c "irlint-verbose/dev/$n" "$B/irlint" --rubric geom --verbose
    done
    # --- the whole dev split as one stream, every output format
    c tikz2ir/dev-all "$B/tikz2ir" $dev/tikz/*.tex
    cp "$tmp/o" "$tmp/dev.ir"
    c tikz2ir-json/dev-all "$B/tikz2ir" --json $dev/tikz/*.tex
    c tikz2ir-quiet/dev-all "$B/tikz2ir" -q $dev/tikz/*.tex
    IN="$tmp/dev.ir" c irlint-tsv/dev-all "$B/irlint" --rubric geom --format tsv
    cp "$tmp/o" "$tmp/dev-irlint.tsv"
    IN="$tmp/dev.ir" c irlint-json/dev-all "$B/irlint" --rubric geom --format json
    IN="$tmp/dev.ir" c irlint-ir/dev-all "$B/irlint" --rubric geom --format ir
    cp "$tmp/dev.ir" "$tmp/dev-all.ir"
    c irlint-file/dev-all sh -c 'cd "$1" && "$2" --rubric geom dev-all.ir' sh "$tmp" "$BA/irlint"
    # --- kappa against the people on the same items
    c kappa/dev-by-criterion "$B/kappa" --by criterion --raters human,irlint --missing na \
        $dev/ratings.tsv "$tmp/dev-irlint.tsv"
    c kappa/dev-ci "$B/kappa" --by criterion --ci 0.95 --reps 200 --seed 7 --missing na \
        $dev/ratings.tsv "$tmp/dev-irlint.tsv" $dev/baselines.tsv
    c kappa/dev-json "$B/kappa" -f json --by criterion --missing na \
        $dev/ratings.tsv "$tmp/dev-irlint.tsv"
    c kappa/dev-table "$B/kappa" -f table --by criterion --missing na \
        $dev/ratings.tsv $dev/baselines.tsv
    # --- irreport: the dev split's report (no pictures: the renderer's own
    # output is ir2svg's cases), every pair with --missing na, the hand-made
    # study with its pictures, repeated rows (a warning), a diagram twice (an error)
    c irreport/dev-no-pictures "$B/irreport" --no-pictures --raters human,irlint,bt-gpt-5,judge-gpt-5 \
        $dev/ratings.tsv "$tmp/dev-irlint.tsv" $dev/baselines.tsv
    c irreport/dev-all-pairs "$B/irreport" --no-pictures --all-pairs --missing na --ci 0.9 \
        --reps 200 --seed 7 $dev/ratings.tsv "$tmp/dev-irlint.tsv"
    c irreport/study "$B/irreport" -t study tests/irreport/data/study.ir tests/irreport/data/human.tsv \
        tests/irreport/data/irlint.tsv tests/irreport/data/judge.tsv
    c irreport/duplicate-rows "$B/irreport" tests/irreport/data/human.tsv tests/irreport/data/judge.tsv \
        tests/irreport/data/human.tsv
    c irreport/duplicate-diagram "$B/irreport" tests/irreport/data/study.ir tests/irreport/data/study.ir \
        tests/irreport/data/human.tsv tests/irreport/data/judge.tsv
    for f in tests/kappa/data/*.tsv; do
        n=$(basename "$f" .tsv)
        c "kappa/data/$n" "$B/kappa" "$f"
        c "kappa-all/data/$n" "$B/kappa" -s all --ci 0.9 --reps 100 --seed 1 "$f"
    done
    for f in tests/kappa/golden/*.args; do
        # shellcheck disable=SC2046
        c "kappa/golden/$(basename "$f" .args)" "$B/kappa" $(cat "$f")
    done
    for f in tests/fuzz/corpus/fuzz_kappa/*; do
        c "kappa/fuzz/$(basename "$f")" "$B/kappa" "$f"
    done
    # --- tikz2ir on the golden inputs and the fuzz corpora
    for f in tests/tikz2ir/*.tex tests/tikz2ir-llm/*.tex tests/judge/data/*.tex contrib/examples/*.tex; do
        [ -f "$f" ] || continue
        c "tikz2ir/$f" "$B/tikz2ir" "$f"
        cp "$tmp/o" "$tmp/gold.ir"
        IN="$tmp/gold.ir" c "irlint-tsv/$f" "$B/irlint" --rubric geom --format tsv
    done
    for f in tests/fuzz/corpus/fuzz_tikz/* tests/fuzz/corpus/fuzz_texexp/*; do
        c "tikz2ir/$f" "$B/tikz2ir" "$f"
        cp "$tmp/o" "$tmp/fz.ir"
        IN="$tmp/fz.ir" c "irlint/$f" "$B/irlint" --rubric geom --format tsv
    done
    # pgfmath expressions and text-metrics strings, inside a picture
    for f in tests/fuzz/corpus/fuzz_pgfmath/*; do
        { printf '\\begin{tikzpicture}\\pgfmathsetmacro\\x{'; cat "$f"
          printf '}\\draw (0,0) -- (\\x pt,1);\\end{tikzpicture}\n'; } >"$tmp/pm.tex"
        IN="$tmp/pm.tex" c "tikz2ir/$f" "$B/tikz2ir"
    done
    for f in tests/fuzz/corpus/fuzz_textmetrics/*; do
        { printf '\\begin{tikzpicture}\\node[draw] at (0,0) {'; tr -d '\000' <"$f"
          printf '};\\end{tikzpicture}\n'; } >"$tmp/tm.tex"
        IN="$tmp/tm.tex" c "tikz2ir/$f" "$B/tikz2ir"
        cp "$tmp/o" "$tmp/tm.ir"
        IN="$tmp/tm.ir" c "irlint/$f" "$B/irlint" --rubric geom --format tsv
    done
    # --- irlint on its golden inputs and the fuzz corpus, every format
    for f in tests/irlint/*.ir tests/fuzz/corpus/fuzz_ir/*; do
        c "irlint/$f" "$B/irlint" "$f"
        c "irlint-tsv/$f" "$B/irlint" --format tsv "$f"
        c "irlint-json/$f" "$B/irlint" --format json --verbose "$f"
        c "irlint-ir/$f" "$B/irlint" --format ir "$f"
    done
    for f in tests/irlint/format-ir/*.ir; do
        c "irlint-ir/$f" "$B/irlint" --format ir "$f"
        c "irlint-ir-only/$f" "$B/irlint" --format ir --only in-frame,no-overlap "$f"
    done
    c irlint/list "$B/irlint" --list
    # --- svg2graph, then graphalign on what it read
    for f in tests/svg2graph/*.svg tests/fuzz/corpus/fuzz_svg/*; do
        c "svg2graph/$f" "$B/svg2graph" "$f"
        c "svg2graph-json/$f" "$B/svg2graph" --json "$f"
    done
    "$B/svg2graph" tests/svg2graph/llm-flow.svg >"$tmp/flow.ir" 2>/dev/null
    for t in tests/svg2graph/*.truth.ir; do
        g=${t%.truth.ir}.ir
        c "graphalign/$g" "$B/graphalign" "$t" "$g"
        c "graphalign-greedy/$g" "$B/graphalign" --greedy "$t" "$g"
    done
    c graphalign/flow-read "$B/graphalign" tests/svg2graph/llm-flow.truth.ir "$tmp/flow.ir"
    for g in tests/graphalign/*.ir; do
        c "graphalign/$g" "$B/graphalign" tests/graphalign/ref.ir "$g"
        c "graphalign-by-order/$g" "$B/graphalign" --by-order tests/graphalign/ref.ir "$g"
    done
    # --- judge: the requests it would send (nothing is sent)
    c judge/list "$B/judge" --list
    for r in geom eduillustrate sketchjudge mathexplain-keypoints mathexplain-explanation; do
        c "judge/describe/$r" "$B/judge" --rubric "$r" --describe
    done
    for m in code image both; do
        c "judge/dry/geom-$m" "$B/judge" --dry-run --mode "$m" tests/judge/data/geom.tsv
    done
    c judge/dry/edu "$B/judge" --dry-run --rubric eduillustrate tests/judge/data/edu.tsv
    for v in baseline rubric cot; do
        c "judge/dry/sketch-$v" "$B/judge" --dry-run --rubric sketchjudge --variant "$v" \
            tests/judge/data/sketch.tsv
    done
    c judge/dry/kp "$B/judge" --dry-run --rubric mathexplain-keypoints tests/judge/data/kp.tsv
    c judge/dry/mx "$B/judge" --dry-run --rubric mathexplain-explanation tests/judge/data/mx.tsv
    # --- every program's --help and an unknown option
    for p in tikz2ir irlint svg2graph graphalign kappa judge irreport; do
        c "$p/help" "$B/$p" --help
        c "$p/bad-option" "$B/$p" --no-such-option
    done
    # --- ir2svg: SVG of every dev item, PNG of a few (librsvg, cairo and the
    # fonts are part of the output), its golden inputs and fuzz corpus
    for f in $dev/tikz/*.tex; do
        n=$(basename "$f" .tex)
        IN="$tmp/dev-$n.ir" c "ir2svg/dev/$n" "$B/ir2svg"
    done
    for n in 1 14 100 103 219; do
        IN="$tmp/dev-$n.ir" c "ir2svg-png/dev/$n" "$B/ir2svg" --png
    done
    for f in tests/ir2svg/*.ir tests/fuzz/corpus/fuzz_draw/*; do
        c "ir2svg/$f" sh -c '"$1" --dir "$2" "$3" && cat "$2"/*.svg' sh "$BA/ir2svg" "$tmp/ir2svg" "$f"
        rm -rf "$tmp/ir2svg"
        c "ir2svg-all/$f" sh -c '"$1" --all-findings --margin 0 --dir "$2" "$3" && cat "$2"/*.svg' \
            sh "$BA/ir2svg" "$tmp/ir2svg-all" "$f"
        rm -rf "$tmp/ir2svg-all"
    done
    c ir2svg/help "$B/ir2svg" --help
    c ir2svg/bad-option "$B/ir2svg" --no-such-option
}

cases >"$tmp/now.tsv"
if [ "${SAME_UPDATE:-0}" = 1 ]; then
    cp "$tmp/now.tsv" "$expected"
    echo "wrote $expected ($(wc -l <"$expected") cases)"
    exit 0
fi
if [ ! -f "$expected" ]; then
    echo "FAIL: $expected missing (make same-update writes it)"
    exit 1
fi
if ! diff "$expected" "$tmp/now.tsv" >"$tmp/diff"; then
    n=$(grep -c '^>' "$tmp/diff")
    echo "FAIL: $n of $(wc -l <"$expected") cases differ from $expected (< expected, > now):"
    head -40 "$tmp/diff"
    exit 1
fi
echo "same: $(wc -l <"$expected") cases, 0 differences"
