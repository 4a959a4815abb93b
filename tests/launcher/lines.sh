#!/bin/sh
# Lines written in pieces by 4 ranks at once arrive whole and in order.
. "${srcdir:-.}/tests/launcher/lib.sh"
n=3000
run -np 4 --oversubscribe "$PROG" lines $n > "$TMP/out" 2>"$TMP/err" || fail "$(cat "$TMP/err")"
total=$(wc -l < "$TMP/out")
[ "$total" = $((4 * n)) ] || fail "expected $((4 * n)) lines, got $total"
good=$(grep -c '^rank [0-3] line [0-9]* abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopq$' "$TMP/out")
[ "$good" = $((4 * n)) ] || fail "$((4 * n - good)) lines were torn"
for r in 0 1 2 3; do
    grep "^rank $r " "$TMP/out" | awk -v n=$n '{ if ($4 != NR - 1) bad = 1 } END { exit bad || NR != n }' ||
        fail "rank $r lines out of order"
done
finish
