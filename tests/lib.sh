# tests/lib.sh -- the preamble the suites share; sourced, as
#     . "$(dirname "$0")/../lib.sh"
# by a script in tests/NAME/: the C locale, $root (the checkout, and the
# current directory), $BUILD (default build) and $bin, the programs.
LC_ALL=C
export LC_ALL
root=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
cd "$root" || exit 2
BUILD=${BUILD:-build}
case $BUILD in /*) bin=$BUILD/bin ;; *) bin=$root/$BUILD/bin ;; esac
