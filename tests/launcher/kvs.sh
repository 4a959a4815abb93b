#!/bin/sh
# put / fence / get through mpirun's store at several sizes, and singleton.
. "${srcdir:-.}/tests/launcher/lib.sh"
for np in 1 2 3 5; do
    out=$(run -np $np --oversubscribe "$TESTDIR/kvsprog" 2>"$TMP/err") ||
        fail "np $np: $(cat "$TMP/err")"
    [ "$(printf '%s\n' "$out" | grep -c '^kvs ok')" = $np ] || fail "np $np: $out"
done
env TERN_TEST_MARK="$MARK" "$TESTDIR/kvsprog" | grep -qx 'kvs ok rank 0 of 1' || fail "singleton"
finish
