#!/bin/sh
# A rank's exit code becomes mpirun's; a clean job exits 0.
. "${srcdir:-.}/tests/launcher/lib.sh"
out=$(run -np 2 "$PROG" hello 2>"$TMP/err") || fail "hello job failed: $(cat "$TMP/err")"
[ "$(printf '%s\n' "$out" | grep -c '^hello from rank [01] of 2$')" = 2 ] || fail "hello output: $out"
run -np 3 "$PROG" exit 1 3 >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" = 3 ] || fail "expected exit 3, got $rc"
grep -q '^mpirun: rank 1 (pid [0-9]*) on host .* exited with code 3$' "$TMP/err" ||
    fail "missing message: $(cat "$TMP/err")"
finish
