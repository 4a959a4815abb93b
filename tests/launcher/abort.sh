#!/bin/sh
# MPI_Abort: the message once, the job killed, mpirun exits with the code,
# and what the aborting rank printed before the call is not lost; the same
# for an error under MPI_ERRORS_ARE_FATAL.
. "${srcdir:-.}/tests/launcher/lib.sh"
t0=$(now_ms)
run -np 3 "$PROG" abort 1 7 >"$TMP/out" 2>"$TMP/err"
rc=$?
t1=$(now_ms)
[ "$rc" = 7 ] || fail "expected exit 7, got $rc: $(cat "$TMP/err")"
[ "$(grep -c 'MPI_Abort' "$TMP/err")" = 1 ] || fail "expected the message once: $(cat "$TMP/err")"
grep -q '^mpirun: rank 1 (pid [0-9]*) on host .* aborted the job (exit code 7): MPI_Abort(MPI_COMM_WORLD, 7) was called' "$TMP/err" ||
    fail "wrong message: $(cat "$TMP/err")"
grep -qx 'rank 1 aborts' "$TMP/out" ||
    fail "the aborting rank's output before MPI_Abort was lost: [$(cat "$TMP/out")]"
[ $((t1 - t0)) -lt 2000 ] || fail "teardown took $((t1 - t0)) ms"

# The job ends with the error class, MPI_ERR_COUNT = 2 in the standard ABI.
run -np 3 "$PROG" fatal 2 >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 2 ] || fail "fatal error: expected exit 2, got $rc: $(cat "$TMP/err")"
grep -q '^mpirun: rank 2 (pid [0-9]*) on host .* aborted the job (exit code 2): MPI_Send: .*count -1 (MPI_ERR_COUNT)' "$TMP/err" ||
    fail "fatal error: wrong message: $(cat "$TMP/err")"
grep -qx 'rank 2 errs' "$TMP/out" ||
    fail "the erring rank's output before the fatal error was lost: [$(cat "$TMP/out")]"
finish 0
