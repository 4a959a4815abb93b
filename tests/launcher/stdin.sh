#!/bin/sh
# mpirun's stdin reaches rank 0 only, from a pipe and from a file.
. "${srcdir:-.}/tests/launcher/lib.sh"
printf 'first line\nsecond line\n' > "$TMP/in"
out=$(cat "$TMP/in" | run -np 3 "$PROG" stdin 2>"$TMP/err") || fail "pipe: $(cat "$TMP/err")"
printf '%s\n' "$out" | grep -qx 'rank 0 read 23 bytes: first line' || fail "pipe, rank 0: $out"
printf '%s\n' "$out" | grep -qx 'rank 1 read 0 bytes: ' || fail "pipe, rank 1: $out"
printf '%s\n' "$out" | grep -qx 'rank 2 read 0 bytes: ' || fail "pipe, rank 2: $out"
out=$(run -np 2 "$PROG" stdin < "$TMP/in" 2>"$TMP/err") || fail "file: $(cat "$TMP/err")"
printf '%s\n' "$out" | grep -qx 'rank 0 read 23 bytes: first line' || fail "file, rank 0: $out"
printf '%s\n' "$out" | grep -qx 'rank 1 read 0 bytes: ' || fail "file, rank 1: $out"
finish
