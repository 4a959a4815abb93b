#!/bin/sh
# tern-hostd without ssh: hostd_drive plays mpirun over pipes. Checks the
# preflight (READY, or one ERROR line and nothing started), output as whole
# lines per rank and stream, exit statuses, DONE; forwarded signals and
# stdin; and that the ranks die when mpirun goes away (EOF on stdin, or the
# watch connection to its store breaking),
# when hostd is killed with SIGKILL, and that nothing is left afterwards.
. "${srcdir:-.}/tests/launcher/lib.sh"

HOSTD=${TERN_HOSTD_BIN:-./launcher/tern-hostd}
DRIVE=$TESTDIR/hostd_drive
[ -x "$HOSTD" ] || fail "no tern-hostd at $HOSTD; build first"
[ -x "$DRIVE" ] || fail "no hostd_drive at $DRIVE; build first"

# The driver, hostd and the ranks carry the mark that finish() looks for.
drive() {
    env TERN_TEST_MARK="$MARK" "$DRIVE" "$HOSTD" "$@" 2>"$TMP/err"
}

# expect NAME PATTERN: the last drive output ($out) has a line matching.
expect() {
    printf '%s\n' "$out" | grep -q -- "$2" ||
        fail "$1: no line matching '$2' in: $out / stderr: $(cat "$TMP/err")"
}

# ---- output, exit statuses, DONE ----
out=$(drive -n 2 -- sh -c 'echo out-$TERN_RANK; echo err-$TERN_RANK >&2; exit $TERN_RANK')
for p in '^READY$' '^STARTED 0$' '^STARTED 1$' '^OUT 0 1 out-0|$' '^OUT 1 2 err-1|$' \
         '^EXIT 0 code 0$' '^EXIT 1 code 1$' '^DONE$' '^HOSTD exit 0$'; do
    expect "two ranks" "$p"
done
# Output comes before the exit it belongs to.
[ "$(printf '%s\n' "$out" | grep -n 'OUT 1 1 out-1' | cut -d: -f1)" -lt \
  "$(printf '%s\n' "$out" | grep -n 'EXIT 1 ' | cut -d: -f1)" ] ||
    fail "two ranks: rank 1's exit came before its output: $out"

# ---- a partial last line, and many lines: every piece ends a line ----
out=$(drive -- sh -c 'printf abc')
expect "partial line" '^OUT 0 1 LAST abc$'
out=$(drive -n 2 -- sh -c 'seq 1 20000 | sed "s/^/r$TERN_RANK-/"')
bad=$(printf '%s\n' "$out" | grep '^OUT [01] 1 [^L]' | grep -v '|$' | head -n 1)
[ -z "$bad" ] || fail "many lines: a piece that does not end a line: $(echo "$bad" | cut -c1-80)"
n=$(printf '%s\n' "$out" | sed -n 's/^OUT 1 1 //p' | tr '|' '\n' | grep -c '^r1-[0-9]*$')
[ "$n" = 20000 ] || fail "many lines: rank 1 delivered $n of 20000 whole lines"

# ---- preflight failures: one ERROR line, nothing started ----
out=$(drive -- nonexistent-tern-prog)
expect "missing program" "^ERROR cannot find the program 'nonexistent-tern-prog'"
expect "missing program" '^HOSTD exit 1$'
printf '%s\n' "$out" | grep -q '^STARTED' && fail "missing program: a rank started: $out"
out=$(drive -w "$TMP/no/such/dir" -- true)
expect "missing --wdir" "^ERROR the working directory '$TMP/no/such/dir' (--wdir)"
out=$(drive -W "$TMP/no/such/dir" -- sh -c 'pwd')
expect "missing cwd falls back to HOME" "^OUT 0 1 $HOME|$"
mkdir -p "$TMP/wd"
cp "$TESTDIR/mpiprog" "$TMP/wd/prog"
out=$(drive -w "$TMP/wd" -- ./prog)
expect "relative program in --wdir" '^READY$'
chmod 644 "$TMP/wd/prog"
out=$(drive -w "$TMP/wd" -- ./prog)
expect "not executable" "^ERROR cannot run the program './prog' (in $TMP/wd): Permission denied"

# ---- no START: hostd exits, nothing ran ----
out=$(drive -S -- touch "$TMP/ran")
expect "no START" '^HOSTD exit 0$'
[ ! -e "$TMP/ran" ] || fail "no START: the program ran anyway"

# ---- signals from mpirun reach the rank's process group ----
out=$(drive -s 300:10 -- sh -c 'trap "echo got-usr1; exit 3" USR1; while :; do sleep 0.1; done')
expect "SIGNAL" '^OUT 0 1 got-usr1|$'
expect "SIGNAL" '^EXIT 0 code 3$'

# ---- stdin for rank 0 ----
out=$(drive -n 2 -i 'hello stdin' -- sh -c 'cat')
expect "stdin" '^OUT 0 1 LAST hello stdin$'
expect "stdin" '^STDIN_ACK 11$'
printf '%s\n' "$out" | grep -q '^OUT 1 1' && fail "stdin: rank 1 read something: $out"

# ---- mpirun gone: EOF on stdin, the watch connection to its store ----
t0=$(now_ms)
out=$(drive -n 2 -c 300 -- sleep 30)
t1=$(now_ms)
expect "EOF from mpirun" '^EXIT 1 signal 15$'
[ $((t1 - t0)) -lt 3000 ] || fail "EOF from mpirun: the ranks lived $((t1 - t0)) ms"
t0=$(now_ms)
out=$(drive -k 300 -- sleep 30)
t1=$(now_ms)
expect "store lost" '^WATCH$'
expect "store lost" '^EXIT 0 signal 15$'
grep -q "lost the connection to mpirun's host" "$TMP/err" ||
    fail "store lost: no message: $(cat "$TMP/err")"
[ $((t1 - t0)) -lt 3000 ] || fail "store lost: the ranks lived $((t1 - t0)) ms"
out=$(drive -K -- touch "$TMP/ran")
expect "store unreachable" "^ERROR cannot reach mpirun's store at 127.0.0.1:[0-9]* from this host"
[ ! -e "$TMP/ran" ] || fail "store unreachable: the program ran anyway"

# ---- hostd killed: its ranks die with it ----
env TERN_TEST_MARK="$MARK" "$DRIVE" "$HOSTD" -n 2 -- sh -c 'echo $$ >'"$TMP"'/rank$TERN_RANK; exec sleep 30' \
    >"$TMP/out" 2>"$TMP/err" &
drv=$!
for i in $(seq 1 50); do
    [ -s "$TMP/rank0" ] && [ -s "$TMP/rank1" ] && break
    sleep 0.1
done
hostd=$(pgrep -P "$drv" -x tern-hostd)
[ -n "$hostd" ] || fail "hostd killed: no tern-hostd under the driver"
kill -9 "$hostd"
wait "$drv"
grep -q '^HOSTD signal 9$' "$TMP/out" || fail "hostd killed: $(cat "$TMP/out")"
finish 2
