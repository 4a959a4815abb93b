#!/bin/sh
# A rank killed by a signal: one message, exit 128+signal, the others gone
# within 2 seconds.
. "${srcdir:-.}/tests/launcher/lib.sh"
t0=$(now_ms)
run -np 3 --oversubscribe "$PROG" segv 2 >/dev/null 2>"$TMP/err"
rc=$?
t1=$(now_ms)
[ "$rc" = 139 ] || fail "expected exit 139, got $rc: $(cat "$TMP/err")"
[ "$(grep -c '^mpirun: ' "$TMP/err")" = 1 ] || fail "expected one mpirun line: $(cat "$TMP/err")"
grep -q '^mpirun: rank 2 (pid [0-9]*) on host .* was killed by signal 11 (Segmentation fault)$' \
    "$TMP/err" || fail "wrong message: $(cat "$TMP/err")"
[ $((t1 - t0)) -lt 2000 ] || fail "teardown took $((t1 - t0)) ms"
finish 0
