#!/bin/sh
# The whole test suite, as CI runs it, from a fresh clone:
#   1. a normal build in _build/ and `make check` (unit tests, MPI programs
#      under mpirun at 1-8 ranks, launcher tests);
#   2. an AddressSanitizer + UndefinedBehaviorSanitizer build in _asan/ that
#      runs the unit tests and a subset of the MPI tests.
# Both are out-of-tree builds, so the source tree stays clean.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ -x configure ] || ./autogen.sh
jobs=${JOBS:-2}

# When tests fail, print the failing tests' own logs (automake gathers them
# in test-suite.log), so that a CI run says why, not only which.
show_failures() {
    if [ -f "$1/test-suite.log" ]; then
        echo "==== $1/test-suite.log ===="
        cat "$1/test-suite.log"
    fi
    exit 1
}

mkdir -p _build
(cd _build && ../configure --quiet && make -j"$jobs") || exit 1
(cd _build && make -j"$jobs" check) || show_failures _build

san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -g -O1"
mkdir -p _asan
(cd _asan && ../configure --quiet --disable-lto CFLAGS="$san" LDFLAGS="-fsanitize=address,undefined" &&
 make -j"$jobs") || exit 1
(cd _asan && make -j"$jobs" check-subset) || show_failures _asan
