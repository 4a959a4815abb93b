#!/bin/sh
# --timeout kills the job after the given seconds; mpirun exits 124.
. "${srcdir:-.}/tests/launcher/lib.sh"
t0=$(now_ms)
run --timeout 1 -np 2 "$PROG" sleep 30 >/dev/null 2>"$TMP/err"
rc=$?
t1=$(now_ms)
[ "$rc" = 124 ] || fail "expected 124, got $rc: $(cat "$TMP/err")"
grep -q '^mpirun: the job ran longer than --timeout 1 s; killing it$' "$TMP/err" ||
    fail "wrong message: $(cat "$TMP/err")"
[ $((t1 - t0)) -lt 3000 ] || fail "took $((t1 - t0)) ms"
run --timeout 5 -np 2 "$PROG" hello >/dev/null 2>&1 || fail "a quick job under --timeout failed"
finish
