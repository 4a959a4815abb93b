#!/bin/sh
# --tag-output prefixes every line, including an unterminated last one.
. "${srcdir:-.}/tests/launcher/lib.sh"
out=$(run -np 2 --tag-output "$PROG" hello 2>"$TMP/err") || fail "$(cat "$TMP/err")"
printf '%s\n' "$out" | grep -qx '\[0\] hello from rank 0 of 2' || fail "output: $out"
printf '%s\n' "$out" | grep -qx '\[1\] hello from rank 1 of 2' || fail "output: $out"
out=$(run -np 2 --tag-output sh -c 'echo a; echo b >&2; printf c' 2>&1) || fail "sh job failed"
for r in 0 1; do
    for l in a b c; do
        printf '%s\n' "$out" | grep -qx "\[$r\] $l" || fail "missing [$r] $l in: $out"
    done
done
finish
