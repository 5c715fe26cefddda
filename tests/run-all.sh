#!/bin/sh
# Runs the whole suite against the programs in $BUILD/bin: unit tests, each
# program's golden tests (tests/*/run.sh), man-page examples, fuzz smoke runs.
# Prints one line per part and a summary; exits 1 when anything failed.
BUILD=${BUILD:-build}
export BUILD
# The sanitizer build: leaks of third-party libraries that are not ours to
# fix are suppressed, each with its reason, in tests/lsan.supp (nothing of
# diagramir's own code is); the statistics of suppressed leaks are not printed,
# so that standard error stays what the program wrote.
LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
fail=0
run() {  # name command...
    name=$1; shift
    if out=$("$@" 2>&1); then
        printf 'PASS  %s\n' "$name"
    else
        printf 'FAIL  %s\n%s\n' "$name" "$out" | head -60
        fail=1
    fi
}
for t in "$BUILD"/tests/*; do
    [ -x "$t" ] || continue
    run "unit/$(basename "$t")" "$t"
done
for s in tests/*/run.sh; do
    [ -f "$s" ] || continue
    run "$(dirname "$s" | sed 's|^tests/||')" sh "$s"
done
[ -f tests/run-man-examples.sh ] && run man-examples sh tests/run-man-examples.sh
for f in "$BUILD"/fuzz/*; do
    [ -x "$f" ] || continue
    n=$(basename "$f")
    run "fuzz-smoke/$n" "$f" -runs=3000 -seed=1 "tests/fuzz/corpus/$n"
done
if [ $fail -ne 0 ]; then echo "some tests FAILED ($BUILD)"; exit 1; fi
echo "all tests passed ($BUILD)"
