#!/bin/sh
# Hostfiles and -H on one machine. Every name that denotes this machine
# (here localhost and 127.0.0.1) merges into one local host: its slots add
# up and its ranks share one TERN_LOCAL_SIZE and node rank. Bad hostfiles
# and oversubscription stop mpirun with one line and exit 1.
. "${srcdir:-.}/tests/launcher/lib.sh"
FORMS="accepted forms: host, host:N, host slots=N \[max_slots=M\] \[port=P\], each host also as user@host"
ENVLINE='echo "$TERN_RANK $TERN_LOCAL_RANK $TERN_LOCAL_SIZE $TERN_LOCAL_RANKS $TERN_NODE_RANK $OMPI_COMM_WORLD_LOCAL_SIZE $MPI_LOCALNRANKS"'

# localhost slots=2 plus 127.0.0.1: one host, 3 slots, -np from the slots.
printf '# same machine twice\r\nlocalhost slots=2\r\n  127.0.0.1' >"$TMP/hosts"
out=$(run --hostfile "$TMP/hosts" sh -c "$ENVLINE" 2>"$TMP/err") ||
    fail "hostfile job failed: $(cat "$TMP/err")"
for r in 0 1 2; do
    printf '%s\n' "$out" | grep -qx "$r $r 3 0,1,2 0 3 3" || fail "rank $r environment: $out"
done
[ "$(printf '%s\n' "$out" | wc -l)" = 3 ] || fail "expected 3 ranks: $out"

# The same through -H, with --map-by node, and a real MPI job on it.
out=$(run -H localhost,127.0.0.1:2 --map-by node -np 3 sh -c "$ENVLINE" 2>"$TMP/err") ||
    fail "-H job failed: $(cat "$TMP/err")"
printf '%s\n' "$out" | grep -qx "2 2 3 0,1,2 0 3 3" || fail "-H environment: $out"
out=$(run --hostfile "$TMP/hosts" "$PROG" hello 2>"$TMP/err") ||
    fail "MPI job on the hostfile failed: $(cat "$TMP/err")"
[ "$(printf '%s\n' "$out" | grep -c '^hello from rank [012] of 3$')" = 3 ] ||
    fail "MPI job output: $out"

# A bad line: file:line:col, the token and the accepted forms.
printf 'localhost slots=2\nnode4:x\n' >"$TMP/bad"
run --hostfile "$TMP/bad" hostname >"$TMP/out" 2>"$TMP/err"
[ $? = 1 ] || fail "bad hostfile: expected exit 1"
[ "$(wc -l <"$TMP/err")" = 1 ] || fail "bad hostfile: not one line: $(cat "$TMP/err")"
grep -qx "mpirun: $TMP/bad:2:7: slot count after ':' is not a number from 1 to 1048576 near 'node4:x'; $FORMS" "$TMP/err" ||
    fail "bad hostfile message: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] || fail "a rank ran despite the bad hostfile"

# A missing hostfile and an empty one.
run --hostfile "$TMP/nope" hostname 2>"$TMP/err"
[ $? = 1 ] || fail "missing hostfile: expected exit 1"
grep -qx "mpirun: cannot read hostfile '$TMP/nope': No such file or directory; check the path given to --hostfile" "$TMP/err" ||
    fail "missing hostfile message: $(cat "$TMP/err")"
printf '# nothing\n\n' >"$TMP/empty"
run --hostfile "$TMP/empty" hostname 2>"$TMP/err"
[ $? = 1 ] || fail "empty hostfile: expected exit 1"
grep -q "^mpirun: hostfile '$TMP/empty' names no hosts" "$TMP/err" ||
    fail "empty hostfile message: $(cat "$TMP/err")"

# More ranks than slots: refused without --oversubscribe, run with it.
printf 'h1 slots=2\nh2 slots=2\n' >"$TMP/two"
run -np 9 --hostfile "$TMP/two" hostname >"$TMP/out" 2>"$TMP/err"
[ $? = 1 ] || fail "oversubscription: expected exit 1"
grep -qx "mpirun: -np 9 asks for 9 ranks but the hosts give 4 slots (h1: 2, h2: 2); use --oversubscribe to run more ranks than slots, or add slots in the hostfile" "$TMP/err" ||
    fail "oversubscription message: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] || fail "a rank ran despite the refusal"
run -np 4 -H localhost:2 hostname >/dev/null 2>"$TMP/err"
[ $? = 1 ] || fail "local oversubscription: expected exit 1"
grep -q "the hosts give 2 slots (localhost: 2); use --oversubscribe" "$TMP/err" ||
    fail "local oversubscription message: $(cat "$TMP/err")"
out=$(run -np 4 -H localhost:2 --oversubscribe sh -c "$ENVLINE" 2>"$TMP/err") ||
    fail "--oversubscribe job failed: $(cat "$TMP/err")"
printf '%s\n' "$out" | grep -qx "3 3 4 0,1,2,3 0 4 4" || fail "--oversubscribe environment: $out"

# --map-by takes slot or node only.
run --map-by core hostname 2>"$TMP/err"
[ $? = 1 ] || fail "--map-by core: expected exit 1"
grep -q "^mpirun: --map-by 'core' is not supported; use --map-by slot" "$TMP/err" ||
    fail "--map-by message: $(cat "$TMP/err")"
finish
