#!/bin/sh
# A rank that used MPI but exited without MPI_Finalize fails the job.
. "${srcdir:-.}/tests/launcher/lib.sh"
run -np 2 "$PROG" nofinalize 1 >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" = 1 ] || fail "expected exit 1, got $rc"
grep -q '^mpirun: rank 1 (pid [0-9]*) on host .* exited without calling MPI_Finalize$' \
    "$TMP/err" || fail "wrong message: $(cat "$TMP/err")"
finish
