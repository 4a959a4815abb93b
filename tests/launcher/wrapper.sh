#!/bin/sh
# The program may be a shell script that runs the MPI program.
. "${srcdir:-.}/tests/launcher/lib.sh"
printf '#!/bin/sh\n"%s" "$@"\n' "$PROG" > "$TMP/wrap.sh"
chmod +x "$TMP/wrap.sh"
out=$(run -np 2 "$TMP/wrap.sh" hello 2>"$TMP/err") || fail "wrapped hello failed: $(cat "$TMP/err")"
[ "$(printf '%s\n' "$out" | grep -c '^hello from rank')" = 2 ] || fail "output: $out"
run -np 3 "$TMP/wrap.sh" segv 0 >/dev/null 2>"$TMP/err"
rc=$?
# The shell reports the child's death as its own exit code 139.
[ "$rc" = 139 ] || fail "expected 139, got $rc: $(cat "$TMP/err")"
finish
