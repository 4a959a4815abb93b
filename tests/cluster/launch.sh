#!/bin/bash
# mpirun across the cluster's hosts over ssh (tern-hostd on each), from h1:
# 6 ranks, 2 per host, land where the hostfile puts them, also with
# user@host entries (and an unknown user is refused by name); then the faults
# that need no TCP between ranks, each with its message, a non-zero exit,
# its time bound and nothing left running on any host:
#   a rank killed by SIGKILL on another host (job over within 2 s),
#   tern-hostd killed by SIGKILL, an unknown and a changed host key, the
#   program missing on one host, a host's link taken down mid-run (both
#   sides give up after their silence timeout, hostd kills its ranks), a
#   host that does not answer (reported within 15 s).
: "${TERN_TEST_TIMEOUT:=150}"
. "${srcdir:-.}/tests/cluster/lib.sh"

MPIPROG=$PWD/tests/launcher/mpiprog
HF=$TERN_CLUSTER_HOSTFILE
[ -x "$MPIRUN" ] || fail "no mpirun at $MPIRUN; build first"
[ -x "${TERN_HOSTD:-$(dirname "$MPIRUN")/tern-hostd}" ] ||
    fail "no tern-hostd beside $MPIRUN; build first"

# The rank program: a shell script, so these tests need nothing of the
# library. "hello" prints the rank and the host; "wait DIR" records its pid
# in DIR/rankR and sleeps (exec keeps the pid) until it is killed.
mkdir -p "$TMP/bin" "$TMP/pids.d"
cat >"$TMP/bin/rankprog" <<'EOF'
#!/bin/sh
case $1 in
    hello) echo "rank $TERN_RANK host $(hostname)" ;;
    wait) echo $$ >"$2/rank$TERN_RANK.tmp" && mv "$2/rank$TERN_RANK.tmp" "$2/rank$TERN_RANK"
          exec sleep 60 ;;
esac
EOF
chmod 755 "$TMP/bin/rankprog"
PROG=$TMP/bin/rankprog

# Host K (1-based) of rank R with 2 slots per host, filled in turn.
host_of() {
    echo $(( $1 / 2 + 1 ))
}

# Starts `rankprog wait` on 6 ranks in the background and waits until every
# rank has written its pid.
start_waiting_job() {
    rm -f "$TMP/pids.d"/*
    run_mpirun_bg -np 6 --hostfile "$HF" "$PROG" wait "$TMP/pids.d" >"$TMP/out" 2>"$TMP/err"
    local _ f n
    for _ in $(seq 1 100); do
        n=0
        for f in "$TMP/pids.d"/rank[0-9]; do [ -f "$f" ] && n=$((n + 1)); done
        [ "$n" = 6 ] && return 0
        sleep 0.1
    done
    fail "the ranks did not all start in 10 s: $(cat "$TMP/err")"
}

# net_of PID: the inode of the network namespace PID is in.
net_of() {
    stat -L -c %i "/proc/$1/ns/net" 2>/dev/null
}

# ---- 6 ranks, 2 per host ----
out=$(run_mpirun -np 6 --hostfile "$HF" "$PROG" hello 2>"$TMP/err") ||
    fail "hello over 3 hosts failed: $(cat "$TMP/err")"
expect=$(for r in 0 1 2 3 4 5; do echo "rank $r host h$(host_of $r)"; done)
[ "$(printf '%s\n' "$out" | sort)" = "$expect" ] ||
    fail "ranks not on the expected hosts: got [$out], expected [$expect]"
out=$(run_mpirun -np 6 --hostfile "$HF" "$MPIPROG" hello 2>"$TMP/err") ||
    fail "MPI hello over 3 hosts failed: $(cat "$TMP/err")"
[ "$(printf '%s\n' "$out" | grep -c '^hello from rank [0-5] of 6$')" = 6 ] ||
    fail "MPI hello over 3 hosts printed: $out"
check_clean

# ---- user@host: the hostfile's user logs in (root here, as the cluster
# has no other account); an unknown user fails the login with its name ----
sed 's/^/root@/' "$HF" >"$TMP/hosts.user"
out=$(run_mpirun -np 6 --hostfile "$TMP/hosts.user" "$PROG" hello 2>"$TMP/err") ||
    fail "hello with root@host entries failed: $(cat "$TMP/err")"
[ "$(printf '%s\n' "$out" | sort)" = "$expect" ] ||
    fail "root@host: ranks not on the expected hosts: got [$out], expected [$expect]"
sed 's/^h2/nosuchuser@h2/' "$HF" >"$TMP/hosts.nouser"
run_mpirun -np 6 --hostfile "$TMP/hosts.nouser" "$PROG" hello >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" != 0 ] || fail "nosuchuser@h2: mpirun exited 0"
grep -q "h2.*authentication as 'nosuchuser' failed" "$TMP/err" ||
    fail "nosuchuser@h2: the message does not name the user and host: $(cat "$TMP/err")"
echo "nosuchuser@h2: exit $rc: $(cat "$TMP/err")"
check_clean

# ---- kill -9 of a rank on another host ----
start_waiting_job
pid=$(cat "$TMP/pids.d/rank3")
[ "$(net_of "$pid")" = "$(stat -L -c %i "/run/netns/tern$TERN_CLUSTER_ID-h2")" ] ||
    fail "rank 3 (pid $pid) does not run on h2"
t0=$(now_ms)
kill -9 "$pid"
wait "$BG_JOB"
rc=$?
t1=$(now_ms)
[ "$rc" = 137 ] || fail "rank 3 killed: expected exit 137, got $rc: $(cat "$TMP/err")"
grep -q 'rank 3 .*h2.* signal 9' "$TMP/err" ||
    fail "rank 3 killed: the message does not name rank 3, h2 and signal 9: $(cat "$TMP/err")"
[ $((t1 - t0)) -lt 2000 ] || fail "rank 3 killed: the job took $((t1 - t0)) ms to end"
echo "rank 3 killed: exit $rc after $((t1 - t0)) ms: $(cat "$TMP/err")"
check_clean

# ---- kill -9 of tern-hostd ----
start_waiting_job
hostd=
for p in $(host_pids 3); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = tern-hostd ] && hostd="$hostd $p"
done
[ "$(echo $hostd | wc -w)" = 1 ] || fail "expected one tern-hostd on h3, found:$hostd"
t0=$(now_ms)
kill -9 $hostd
wait "$BG_JOB"
rc=$?
t1=$(now_ms)
[ "$rc" != 0 ] || fail "tern-hostd killed: mpirun exited 0"
grep -q 'h3' "$TMP/err" || fail "tern-hostd killed: the message does not name h3: $(cat "$TMP/err")"
[ $((t1 - t0)) -lt 5000 ] || fail "tern-hostd killed: the job took $((t1 - t0)) ms to end"
echo "tern-hostd killed: exit $rc after $((t1 - t0)) ms: $(cat "$TMP/err")"
check_clean

# ---- host keys: unknown, changed ----
mkdir -m 0700 "$TMP/home" "$TMP/home/.ssh"
cp "$TERN_CLUSTER_KEY" "$TMP/home/.ssh/id_ed25519"
grep -v '^h2,' "$TERN_CLUSTER_KNOWN_HOSTS" >"$TMP/home/.ssh/known_hosts"
IN_HOST_HOME=$TMP/home run_mpirun -np 6 --hostfile "$HF" "$PROG" hello >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" != 0 ] || fail "unknown host key of h2: mpirun exited 0"
grep -q 'h2.*host key unknown' "$TMP/err" ||
    fail "unknown host key of h2: the message does not say so: $(cat "$TMP/err")"
echo "unknown host key: exit $rc: $(cat "$TMP/err")"
check_clean
{
    grep -v '^h2,' "$TERN_CLUSTER_KNOWN_HOSTS"
    echo "h2,$TERN_CLUSTER_SUBNET.2 $(cut -d' ' -f1,2 "$TERN_CLUSTER_RUN/h3/ssh_host_ed25519_key.pub")"
} >"$TMP/home/.ssh/known_hosts"
IN_HOST_HOME=$TMP/home run_mpirun -np 6 --hostfile "$HF" "$PROG" hello >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" != 0 ] || fail "changed host key of h2: mpirun exited 0"
grep -q 'h2.*host key CHANGED' "$TMP/err" ||
    fail "changed host key of h2: the message does not say so: $(cat "$TMP/err")"
echo "changed host key: exit $rc: $(cat "$TMP/err")"
check_clean
# A key of another type on record: --ssh-accept-new-hostkey must not add
# the offered one next to it (that would let an interceptor in).
ssh-keygen -q -t rsa -b 1024 -N '' -f "$TMP/otherkey" || fail "ssh-keygen failed"
{
    grep -v '^h2,' "$TERN_CLUSTER_KNOWN_HOSTS"
    echo "h2,$TERN_CLUSTER_SUBNET.2 $(cut -d' ' -f1,2 "$TMP/otherkey.pub")"
} >"$TMP/home/.ssh/known_hosts"
IN_HOST_HOME=$TMP/home run_mpirun -np 6 --hostfile "$HF" --ssh-accept-new-hostkey \
    "$PROG" hello >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" != 0 ] || fail "key of another type on record for h2: mpirun exited 0"
grep -q 'h2.*host key CHANGED.*another type' "$TMP/err" ||
    fail "key of another type on record for h2: $(cat "$TMP/err")"
grep -q "$(cut -d' ' -f2 "$TERN_CLUSTER_RUN/h2/ssh_host_ed25519_key.pub")" "$TMP/home/.ssh/known_hosts" &&
    fail "the offered key of h2 was added next to the other one"
check_clean

# ---- the program missing on one host ----
mkdir -p "$TMP/only"
cp "$PROG" "$TMP/only/rankprog"
hide_path 3 "$TMP/only"
run_mpirun -np 6 --hostfile "$HF" "$TMP/only/rankprog" hello >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" != 0 ] || fail "program missing on h3: mpirun exited 0"
grep -q "h3.*$TMP/only/rankprog" "$TMP/err" ||
    fail "program missing on h3: the message does not name h3 and the program: $(cat "$TMP/err")"
[ ! -s "$TMP/out" ] || fail "program missing on h3: ranks ran elsewhere: $(cat "$TMP/out")"
echo "program missing: exit $rc: $(cat "$TMP/err")"
check_clean

# ---- a host's link down mid-run ----
# mpirun and tern-hostd hear nothing from each other; with a 3 s silence
# timeout both give up: mpirun ends the job naming h3, and hostd on h3,
# cut off, kills its own ranks.
export TERN_HOSTD_TIMEOUT_MS=3000 TERN_HOSTD_KEEPALIVE_MS=500
start_waiting_job
unset TERN_HOSTD_TIMEOUT_MS TERN_HOSTD_KEEPALIVE_MS
"$CLUSTER" link h3 down || fail "cannot take h3's link down"
t0=$(now_ms)
wait "$BG_JOB"
rc=$?
t1=$(now_ms)
for _ in $(seq 1 50); do
    kill -0 "$(cat "$TMP/pids.d/rank4")" "$(cat "$TMP/pids.d/rank5")" 2>/dev/null || break
    sleep 0.1
done
alive=$(for r in 4 5; do kill -0 "$(cat "$TMP/pids.d/rank$r")" 2>/dev/null && echo "$r"; done)
"$CLUSTER" link h3 up
[ -z "$alive" ] || fail "h3 cut off: its ranks $alive still run 5 s after mpirun ended"
[ "$rc" != 0 ] || fail "h3 cut off: mpirun exited 0"
grep -q 'h3' "$TMP/err" || fail "h3 cut off: the message does not name h3: $(cat "$TMP/err")"
[ $((t1 - t0)) -lt 8000 ] || fail "h3 cut off: the job took $((t1 - t0)) ms to end"
echo "h3 cut off: exit $rc after $((t1 - t0)) ms: $(cat "$TMP/err")"
# The sshd session on h3 learns that its connection is gone only when the
# link is back (mpirun's FIN is retransmitted), hence the longer wait.
check_clean 15

# ---- a host that does not answer ----
"$CLUSTER" link h3 down || fail "cannot take h3's link down"
t0=$(now_ms)
run_mpirun -np 6 --hostfile "$HF" "$PROG" hello >"$TMP/out" 2>"$TMP/err"
rc=$?
t1=$(now_ms)
"$CLUSTER" link h3 up
[ "$rc" != 0 ] || fail "h3 unreachable: mpirun exited 0"
grep -q 'h3' "$TMP/err" || fail "h3 unreachable: the message does not name h3: $(cat "$TMP/err")"
[ $((t1 - t0)) -lt 15000 ] || fail "h3 unreachable: reported after $((t1 - t0)) ms"
[ ! -s "$TMP/out" ] || fail "h3 unreachable: ranks ran elsewhere: $(cat "$TMP/out")"
echo "h3 unreachable: exit $rc after $((t1 - t0)) ms: $(cat "$TMP/err")"
finish
