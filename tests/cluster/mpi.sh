#!/bin/bash
# MPI programs across the cluster: 6 ranks, 2 per host, shm within a host
# and tcp between hosts, checked through --report-transports; then the MPI
# test programs of tests/mpi that end with "OK" (point-to-point at every
# size and mode, errors, communicators, intercommunicators, datatypes,
# every collective). Then hostile connections (garbage, connect-then-close,
# a wrong handshake answer) against every port the job listens on (the
# ranks' tcp listeners and mpirun's store) during a run that exchanges
# checked messages before and after the attack.
: "${TERN_TEST_TIMEOUT:=600}"
. "${srcdir:-.}/tests/cluster/lib.sh"

HF=$TERN_CLUSTER_HOSTFILE
T=$PWD/tests/mpi
[ -x "$MPIRUN" ] || fail "no mpirun at $MPIRUN; build first"

# ---- the transport each pair uses ----
out=$(run_mpirun -np 6 --hostfile "$HF" --report-transports "$T/tcp_exchange" 2>"$TMP/err") ||
    fail "tcp_exchange over 3 hosts failed: $out $(cat "$TMP/err")"
printf '%s\n' "$out" | grep -q '^OK tcp_exchange' || fail "tcp_exchange printed: $out"
for r in 0 1 2 3 4 5; do
    mate=$((r ^ 1))
    others=$(for p in 0 1 2 3 4 5; do [ $p != $r ] && [ $p != $mate ] && echo $p; done |
             tr '\n' ' ')
    line=$(grep "rank $r (h$((r / 2 + 1))): transports:" "$TMP/err") ||
        fail "no transport report of rank $r on h$((r / 2 + 1)): $(cat "$TMP/err")"
    echo "$line" | grep -q "self $r; shm $mate; tcp " || fail "rank $r: $line"
    tcp=$(echo "$line" | sed 's/.*tcp //')
    expect=$(echo $others | awk '{
        out = ""; i = 1
        while (i <= NF) { j = i; while (j < NF && $(j + 1) == $j + 1) j++
            out = out (out == "" ? "" : ",") (j > i ? $i "-" $j : $i); i = j + 1 }
        print out }')
    [ "$tcp" = "$expect" ] || fail "rank $r reaches [$tcp] over tcp, expected [$expect]: $line"
done
echo "transports: $(grep 'transports:' "$TMP/err" | sort | tr '\n' '|')"
check_clean

# ---- the test programs ----
for prog in "p2p_sizes 4M" p2p_order p2p_anysource p2p_waittest p2p_probe p2p_modes \
            p2p_truncate p2p_errors p2p_cancel env_basic unsupported op_local \
            "dtype_p2p 2M" comm_split comm_create comm_attr coll_errors \
            coll_suite_rooted coll_suite_reduce coll_suite_rscan coll_suite_allto \
            coll_suite_comms coll_suite_nb intercomm; do
    run_ok "shm within hosts, tcp between" $prog
done
check_clean

# ---- hostile connections against every listener of a running job ----
run_mpirun_bg -np 6 --hostfile "$HF" -v -x TERN_VERBOSE=2 "$T/tcp_exchange" 8 \
    >"$TMP/out" 2>"$TMP/err"
for _ in $(seq 1 100); do
    [ "$(grep -c 'tcp: listening on' "$TMP/err")" -ge 6 ] && break
    sleep 0.1
done
ports=$(sed -n -e 's/.*tcp: listening on \([0-9.]*:[0-9]*\).*/\1/p' \
               -e 's/.*store listens on \([0-9.]*:[0-9]*\).*/\1/p' "$TMP/err" | sort -u)
[ "$(echo $ports | wc -w)" -ge 7 ] || fail "expected 6 rank listeners and the store: $(cat "$TMP/err")"
# One shell in h1 attacks them all, well inside the ranks' 8 s wait.
script=
for hp in $ports; do
    h=${hp%:*} p=${hp##*:}
    script="$script
        exec 3<>/dev/tcp/$h/$p; printf 'GET / HTTP/1.0\r\n\r\n%0200d' 0 >&3; sleep 0.1; exec 3>&-
        exec 3<>/dev/tcp/$h/$p; exec 3>&-
        exec 3<>/dev/tcp/$h/$p; head -c 76 /dev/urandom >&3; sleep 0.1; exec 3>&-"
done
t0=$(now_ms)
in_host 1 bash -c "$script" 2>"$TMP/attack" || fail "attack failed: $(cat "$TMP/attack")"
echo "attack took $(( $(now_ms) - t0 )) ms"
wait "$BG_JOB"
rc=$?
grep -q '^OK tcp_exchange' "$TMP/out" || fail "attacked job (exit $rc): $(cat "$TMP/out" "$TMP/err")"
[ "$rc" = 0 ] || fail "attacked job exited $rc: $(cat "$TMP/err")"
n=$(grep -c 'tcp: dropped a connection' "$TMP/err")
[ "$n" -ge 18 ] || fail "expected 18 dropped rank connections, got $n (attacked $ports): $(cat "$TMP/err")"
grep -q 'dropped store connection' "$TMP/err" || fail "no dropped store connection: $(cat "$TMP/err")"
echo "attack on $(echo $ports | wc -w) listeners: $n rank connections dropped, job passed"
finish
