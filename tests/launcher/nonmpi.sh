#!/bin/sh
# Programs that never use MPI: exit 0 is success, failures propagate, a
# missing program is reported.
. "${srcdir:-.}/tests/launcher/lib.sh"
out=$(run -np 2 hostname 2>"$TMP/err") || fail "hostname: $(cat "$TMP/err")"
[ "$(printf '%s\n' "$out" | wc -l)" = 2 ] || fail "hostname output: $out"
run -np 2 sh -c 'exit 0' || fail "sh exit 0 failed"
run -np 2 false 2>/dev/null
[ $? = 1 ] || fail "false: expected 1"
run -np 1 /nonexistent/program 2>"$TMP/err"
[ $? = 127 ] || fail "missing program: expected 127"
grep -q "cannot execute '/nonexistent/program'" "$TMP/err" || fail "message: $(cat "$TMP/err")"
run -np 1 -H some-remote-host.invalid hostname 2>"$TMP/err"
[ $? = 1 ] || fail "unresolvable host accepted"
grep -q 'host some-remote-host.invalid .*cannot resolve the host name' "$TMP/err" || fail "message: $(cat "$TMP/err")"
out=$(run -np 2 -x TERN_T_A=1 --wdir /tmp sh -c 'echo "$TERN_T_A $(pwd) $TERN_LOCAL_RANKS $OMPI_COMM_WORLD_SIZE $PMI_RANK"')
printf '%s\n' "$out" | grep -qx '1 /tmp 0,1 2 0' || fail "-x/--wdir/environment: $out"
finish
