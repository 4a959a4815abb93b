#!/bin/sh
# Hostile connections against the ranks' TCP listeners during a run:
# garbage, connect-then-close, a wrong handshake answer and a connection
# that stays silent. Each is dropped (and logged at verbose level), and the
# job, which exchanges checked messages between every pair of ranks before
# and after the attack, still finishes correctly.
. "${srcdir:-.}/tests/launcher/lib.sh"
command -v bash >/dev/null || { echo "SKIP: needs bash for /dev/tcp"; exit 77; }
prog=./tests/mpi/tcp_exchange
[ -x "$prog" ] || fail "missing $prog"
TERN_TRANSPORTS=self,tcp TERN_VERBOSE=2 run_bg -np 3 "$prog" 4 >"$TMP/out" 2>"$TMP/err"
tries=100
while [ "$(grep -c 'tcp: listening on' "$TMP/err")" -lt 3 ] && [ $tries -gt 0 ]; do
    sleep 0.1; tries=$((tries - 1))
done
ports=$(sed -n 's/.*tcp: listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$TMP/err")
[ "$(echo $ports | wc -w)" = 3 ] || fail "no listening ports in: $(cat "$TMP/err")"
for p in $ports; do
    bash -c "
        exec 3<>/dev/tcp/127.0.0.1/$p; printf 'GET / HTTP/1.0\r\n\r\n%0200d' 0 >&3; sleep 0.1; exec 3>&-
        exec 3<>/dev/tcp/127.0.0.1/$p; exec 3>&-
        exec 3<>/dev/tcp/127.0.0.1/$p; head -c 76 /dev/urandom >&3; sleep 0.1; exec 3>&-
        exec 3<>/dev/tcp/127.0.0.1/$p; sleep 6; exec 3>&-
    " 2>/dev/null &
done
wait "$BG_JOB"
rc=$?
grep -q '^OK tcp_exchange' "$TMP/out" || fail "job output (exit $rc): $(cat "$TMP/out" "$TMP/err")"
[ "$rc" = 0 ] || fail "job exited $rc: $(cat "$TMP/err")"
n=$(grep -c 'tcp: dropped a connection' "$TMP/err")
[ "$n" -ge 9 ] || fail "expected at least 9 dropped connections, got $n: $(cat "$TMP/err")"
grep -q 'wrong job-secret handshake' "$TMP/err" || fail "no wrong-handshake drop: $(cat "$TMP/err")"
wait
finish
