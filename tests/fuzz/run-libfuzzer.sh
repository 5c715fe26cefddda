#!/bin/sh
# run-libfuzzer.sh — long coverage-guided runs of every fuzz harness (make fuzz).
#
# For each tests/fuzz/NAME.c (driver.c aside): builds NAME with clang's
# libFuzzer, ASan and UBSan, linking the library sources directly (not the
# plain driver), and fuzzes it for $FUZZ_SECONDS seconds on a copy of
# tests/fuzz/corpus/NAME (with tests/fuzz/NAME.dict when there is one).
# Crash, leak, timeout and out-of-memory inputs land in $BUILD/libfuzzer/
# as NAME-crash-... and the script exits 1; 0 when every harness ran clean.
#
# Environment: BUILD (default build), FUZZ_SECONDS (default 600),
# FUZZ_CC (default clang), FUZZ_ONLY (run only this harness), FUZZ_SRCS
# (library sources to link instead of all of them, e.g. "ir/*.c" while
# other parts of the tree do not build).
set -u
BUILD=${BUILD:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-600}
FUZZ_CC=${FUZZ_CC:-clang}
OUT=$BUILD/libfuzzer
PROGRAMS="tikz2ir irlint svg2graph graphalign kappa judge"
CFLAGS="-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fno-omit-frame-pointer -I. -I$BUILD/grammar"
SAN=address,undefined
# draw/png.c needs the headers of librsvg, cairo and libpng (it dlopen()s
# the libraries)
RSVG_CFLAGS=$(pkg-config --cflags librsvg-2.0 libpng 2>/dev/null | sed 's/-I/-isystem /g')
LIBS="-lcjson -lexpat -lm -ldl"

command -v "$FUZZ_CC" >/dev/null 2>&1 || { echo "run-libfuzzer: $FUZZ_CC not found" >&2; exit 2; }
mkdir -p "$OUT/obj" || exit 2

# Generated scanners, parsers and key hashes come from the Makefile's rules.
gen=""
for y in grammar/*.y; do [ -f "$y" ] && gen="$gen $BUILD/grammar/$(basename "$y" .y).tab.c"; done
for l in grammar/*.l; do [ -f "$l" ] && gen="$gen $BUILD/grammar/$(basename "$l" .l).lex.c"; done
for g in grammar/*.gperf; do [ -f "$g" ] && gen="$gen $BUILD/grammar/$(basename "$g" .gperf).hash.c"; done
if [ -n "$gen" ] && [ -z "${FUZZ_SRCS:-}" ]; then
    # shellcheck disable=SC2086
    make --no-print-directory BUILD="$BUILD" $gen || exit 2
fi

# The library, instrumented for libFuzzer (no main of its own).
objs=""
srcs=${FUZZ_SRCS:-"ir/*.c grammar/*.c checks/*.c checks/*/*.c llm/*.c svg/*.c stats/*.c graph/*.c draw/draw.c draw/png.c $gen"}
# shellcheck disable=SC2086
for src in $srcs; do
    [ -f "$src" ] || continue
    case " $PROGRAMS " in *" $(basename "$src" .c) "*) continue ;; esac
    obj="$OUT/obj/$(echo "$src" | tr / _).o"
    extra=""
    case $src in "$BUILD"/*) extra="-Wno-unused-function -Wno-sign-compare -Wno-unused-parameter" ;; esac
    case $src in draw/png.c) extra="$RSVG_CFLAGS" ;; esac
    # shellcheck disable=SC2086
    "$FUZZ_CC" $CFLAGS -Wall $extra -fsanitize=fuzzer-no-link,$SAN -c -o "$obj" "$src" || exit 2
    objs="$objs $obj"
done

fail=0
for h in tests/fuzz/*.c; do
    name=$(basename "$h" .c)
    [ "$name" = driver ] && continue
    [ -n "${FUZZ_ONLY:-}" ] && [ "$FUZZ_ONLY" != "$name" ] && continue
    bin="$OUT/$name"
    # shellcheck disable=SC2086
    "$FUZZ_CC" $CFLAGS -Wall -fsanitize=fuzzer,$SAN -o "$bin" "$h" $objs $LIBS || exit 2
    corpus="$OUT/corpus-$name"
    rm -rf "$corpus"
    mkdir -p "$corpus"
    [ -d "tests/fuzz/corpus/$name" ] && cp "tests/fuzz/corpus/$name"/* "$corpus"/ 2>/dev/null
    dict=""
    [ -f "tests/fuzz/$name.dict" ] && dict="-dict=tests/fuzz/$name.dict"
    echo "run-libfuzzer: $name for ${FUZZ_SECONDS}s"
    # shellcheck disable=SC2086
    if UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       "$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
              -print_final_stats=1 -artifact_prefix="$OUT/$name-" $dict "$corpus" \
              >"$OUT/$name.log" 2>&1; then
        echo "run-libfuzzer: $name: clean ($(grep -c . "$OUT/$name.log") log lines, $OUT/$name.log)"
    else
        echo "run-libfuzzer: $name: FAILED, see $OUT/$name.log; inputs:" >&2
        ls "$OUT/$name"-* 2>/dev/null | grep -v '\.log$' >&2
        tail -40 "$OUT/$name.log" >&2
        fail=1
    fi
done
exit $fail
