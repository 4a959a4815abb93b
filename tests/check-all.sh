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

mkdir -p _build
(cd _build && ../configure --quiet && make -j"$jobs" && make -j"$jobs" check)

san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -g -O1"
mkdir -p _asan
(cd _asan && ../configure --quiet CFLAGS="$san" LDFLAGS="-fsanitize=address,undefined" &&
 make -j"$jobs" && make -j"$jobs" check-subset)
