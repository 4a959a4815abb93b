#!/bin/sh
# Ctrl-C (SIGINT) to mpirun: forwarded, the job ends, mpirun exits 130.
# SIGTERM and SIGHUP: the job is killed, mpirun exits 128+signal.
. "${srcdir:-.}/tests/launcher/lib.sh"
for sig in INT TERM HUP; do
    case $sig in INT) want=130;; TERM) want=143;; HUP) want=129;; esac
    run_bg -np 2 "$PROG" sleep 30 >/dev/null 2>"$TMP/err"
    sleep 1
    t0=$(now_ms)
    kill -$sig "$MPIRUN_PID"
    wait "$BG_JOB"
    rc=$?
    t1=$(now_ms)
    [ "$rc" = "$want" ] || fail "SIG$sig: expected $want, got $rc: $(cat "$TMP/err")"
    [ $((t1 - t0)) -lt 2000 ] || fail "SIG$sig: teardown took $((t1 - t0)) ms"
    [ -z "$(leftovers)" ] || sleep 0.5
    [ -z "$(leftovers)" ] || fail "SIG$sig: ranks left"
done
finish
