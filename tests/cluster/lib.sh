# Sourced by every cluster test: `. "${srcdir:-.}/tests/cluster/lib.sh"`.
#
# Lifecycle: the test re-runs itself under bash and an outer timeout
# (TERN_TEST_TIMEOUT seconds, default 90), checks the prerequisites (root,
# network namespaces, a bridge, veth, unshare, nsenter, sshd, ssh-keygen;
# a missing one prints "SKIP: <why>" and exits 77, never a pass), then
# brings up its own cluster (tests/cluster/cluster.sh, id = the test's pid)
# or, with TERN_CLUSTER_REUSE=ID, uses a running one (tests must then not
# share it at the same time). On exit, however the test ends (pass, fail,
# outer timeout), it tears its own cluster down and removes $TMP.
# Helpers:
#   in_host K CMD...     run CMD in host K with HOME=$TERN_CLUSTER_HOME (or
#                        $IN_HOST_HOME), under a timeout of $CMD_TIMEOUT
#                        seconds (default 30)
#   run_mpirun ARGS...   mpirun ARGS from host 1, in $TMP (pid recorded)
#   run_mpirun_bg ARGS   the same in the background; sets BG_JOB
#   run_ok LABEL PROG..  a tests/mpi program at 6 ranks; must print "OK PROG"
#                        (a run near its timeout gets its ranks' stacks, gdb)
#   hide_path K DIR      mount an empty tmpfs over DIR in host K only
#   host_pids K          processes in host K other than its sshd listener
#   check_clean [SECS]   wait up to SECS (default 3) for every process of
#                        the job to be gone from every host; fail if one is
#                        left (or a new /dev/shm/tern* entry)
#   finish [SECS]        check_clean, then PASS
# Tests run from the top build directory, as automake runs them; MPIRUN
# overrides the launcher's path.
if [ -z "${TERN_TEST_UNDER_TIMEOUT:-}" ]; then
    TERN_TEST_UNDER_TIMEOUT=1 exec timeout -k 15 "${TERN_TEST_TIMEOUT:-90}" bash "$0" "$@"
fi
set -u

CLUSTER_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLUSTER=$CLUSTER_SRC/cluster.sh
MPIRUN=${MPIRUN:-$PWD/launcher/mpirun}
case $MPIRUN in /*) ;; *) MPIRUN=$PWD/$MPIRUN ;; esac
# Commands in a host (an MPI job, mostly) get this long. A job that takes
# 3 to 4 s alone took 4 to 32 s over ofi's tcp provider and up to 68 s
# over its sockets provider while another cluster test ran beside it (make
# -j2 check: 13 ranks on 2 cores; tests/mpi/coll_suite_nb, measured), so
# 30 s cut slow jobs that were not hung.
CMD_TIMEOUT=${CMD_TIMEOUT:-180}
# run_ok dumps a job's ranks this many seconds before its timeout: the two
# looks of dump_stacks take 20 s or more on a loaded 2-core host.
DUMP_BEFORE=40
HIDDEN=

skip() {
    echo "SKIP: $*"
    exit 77
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Milliseconds since the epoch.
now_ms() {
    echo $(( $(date +%s%N) / 1000000 ))
}

check_prereqs() {
    local t probe=tern-probe-$$ err
    [ "$(id -u)" = 0 ] || skip "cluster tests need root (network namespaces, sshd)"
    for t in ip unshare nsenter ssh-keygen ssh timeout; do
        command -v "$t" >/dev/null ||
            skip "'$t' not found; install iproute2, util-linux, openssh-client"
    done
    [ -x /usr/sbin/sshd ] || skip "/usr/sbin/sshd not found; install openssh-server"
    err=$( { ip netns add "$probe" && ip -n "$probe" link add b0 type bridge &&
             ip -n "$probe" link add v0 type veth peer name v1; } 2>&1 )
    t=$?
    ip netns del "$probe" 2>/dev/null
    [ $t = 0 ] || skip "cannot make network namespaces, bridges and veth pairs here: $err"
    err=$(unshare --uts --mount true 2>&1) || skip "unshare --uts --mount fails here: $err"
}

# Every command inside a host runs with the cluster's HOME (libssh2 finds
# the key and known_hosts there) and under a timeout. The timeout stays in
# the test's process group (--foreground), so when the outer timeout
# signals that group, the command gets the signal too and the test reaches
# its teardown at once instead of after the command's own timeout.
in_host() {
    local k=$1
    shift
    timeout --foreground -k 2 "$CMD_TIMEOUT" "$CLUSTER" exec "h$k" \
        env HOME="${IN_HOST_HOME:-$TERN_CLUSTER_HOME}" "$@"
}

run_mpirun() {
    (cd "$TMP" && in_host 1 sh -c 'echo $$ >>"$1"; shift; exec "$@"' sh \
        "$TMP/pids" "$MPIRUN" "$@")
}

# run_ok LABEL PROG [ARGS...]: the test program PROG of tests/mpi at 6 ranks
# on the 3 hosts (more mpirun options in $RUN_OPTS); it must exit 0 and
# print "OK PROG". Its stderr stays in $TMP/err. A run still going
# DUMP_BEFORE seconds before its timeout gets its ranks' stacks and state
# dumped (gdb), so that the failure says where the job hung. Each line
# says how long the run took: a CI log then shows a host that slows the
# runs down long before one of them times out.
run_ok() {
    label=$1 name=$2
    shift 2
    local t0
    t0=$(now_ms)
    run_mpirun -np 6 --hostfile "$TERN_CLUSTER_HOSTFILE" ${RUN_OPTS:-} \
        "$PWD/tests/mpi/$name" "$@" >"$TMP/out" 2>"$TMP/err" &
    local job=$! ticks=0 rc
    : >"$TMP/stacks"
    while kill -0 "$job" 2>/dev/null; do
        sleep 0.2
        ticks=$((ticks + 1))
        [ "$ticks" = $(( (CMD_TIMEOUT - DUMP_BEFORE) * 5 )) ] && dump_stacks "$name" >"$TMP/stacks"
    done
    wait "$job"
    rc=$?
    out=$(cat "$TMP/out")
    [ "$rc" = 0 ] || fail "$name ($label) failed (exit $rc after $(( $(now_ms) - t0 )) ms): $out $(cat "$TMP/err" "$TMP/stacks")"
    printf '%s\n' "$out" | grep -q "^OK $name" ||
        fail "$name ($label) printed: $out $(cat "$TMP/err")"
    echo "PASS $name at 6 ranks on 3 hosts, $label ($(( $(now_ms) - t0 )) ms)"
}

run_mpirun_bg() {
    run_mpirun "$@" &
    BG_JOB=$!
}

hide_path() {
    "$CLUSTER" exec "h$1" mount -t tmpfs -o size=1m,mode=0755 tern-hide "$2" ||
        fail "cannot hide $2 on h$1"
    HIDDEN="$HIDDEN $1:$2"
}

# Pids of processes in host K's network namespace, but for its sshd.
host_pids() {
    local listener
    listener=$(cat "$TERN_CLUSTER_RUN/h$1/sshd.pid" 2>/dev/null)
    ip netns pids "tern$TERN_CLUSTER_ID-h$1" 2>/dev/null | grep -vx "${listener:-none}"
}

# gathered PIDS: waits for the gdb jobs PIDS, then prints and removes what
# they wrote ($TMP/stack.*).
gathered() {
    [ $# = 0 ] || wait "$@"
    cat "$TMP"/stack.* 2>/dev/null
    rm -f "$TMP"/stack.*
}

# dump_stacks NAME: every thread's stack of each rank running program NAME,
# on every host, gathered in parallel (nothing without gdb), with the state a
# lost packet would show in: each ofi peer's sequence numbers and held
# packets, the receive buffers posted to the provider (of how many), the
# buffers and reads waiting in the transport (ranks without ofi print an
# error for the ofi lines, which is skipped), and what dump_rank.py prints:
# the p2p core's queues and per-peer backlog, the shared-memory rings'
# positions, the TCP connections' buffers, and the collective schedule the
# rank waits in; then, a second later, each rank's counters again (a rank
# whose progress calls grew without sleeps spins); then each host's TCP
# sockets with their queues (ss). The ranks are all stopped (SIGSTOP)
# before the first look and continued after it: gdb attaching to each in
# turn would stop them seconds apart, and a job still under way would then
# look hung, its last sends caught in flight towards ranks already stopped.
# The schedule line's call number says how far each rank got.
dump_stacks() {
    local k p kp gdbs= ranks=
    command -v gdb >/dev/null || { echo "(no gdb: no stacks)"; return; }
    for k in $(seq 1 "$TERN_CLUSTER_NHOSTS"); do
        for p in $(host_pids "$k"); do
            tr '\0' '\n' </proc/"$p"/environ 2>/dev/null | grep -q '^TERN_RANK=' || continue
            tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null | grep -q "/$1 " || continue
            ranks="$ranks $k:$p"
        done
    done
    for kp in $ranks; do kill -STOP "${kp#*:}" 2>/dev/null; done
    for kp in $ranks; do
        k=${kp%%:*} p=${kp#*:}
        { echo "== h$k pid $p $(tr '\0' '\n' </proc/"$p"/environ | grep '^TERN_RANK=')"
          timeout 20 gdb -p "$p" -batch -ex "thread apply all bt 30" \
              -ex "print tern_ofi.n_early" -ex "print *tern_ofi.peers@tern_ofi.size" \
              -ex "print tern_ofi.nposted" -ex "print tern_ofi.nrecv" \
              -ex "print tern_ofi.unposted" -ex "print tern_ofi.ready_head" \
              -ex "print tern_ofi.reads" -x "$CLUSTER_SRC/dump_rank.py" 2>/dev/null |
              grep '^#\|^Thread\|^\$\|^[a-z2]*: ' |
              sed "s/'\\\\000' <repeats [0-9]* times>//g"; } \
            >"$TMP/stack.$p" &
        gdbs="$gdbs $!"
    done
    gathered $gdbs
    for kp in $ranks; do kill -CONT "${kp#*:}" 2>/dev/null; done
    sleep 1
    gdbs=
    for kp in $ranks; do
        { echo "== second look: h${kp%%:*} pid ${kp#*:}"
          timeout 20 gdb -p "${kp#*:}" -batch -ex 'set $counters_only = 1' \
              -x "$CLUSTER_SRC/dump_rank.py" 2>/dev/null | grep '^counters: '; } \
            >"$TMP/stack.${kp#*:}" &
        gdbs="$gdbs $!"
    done
    gathered $gdbs
    # Bytes that sit in a socket unread (Recv-Q) or unsent (Send-Q): a
    # connection that one side stopped reading shows here.
    for k in $(seq 1 "$TERN_CLUSTER_NHOSTS"); do
        echo "== h$k sockets"
        timeout 10 "$CLUSTER" exec "h$k" ss -tnp 2>/dev/null
    done
}

leftovers() {
    local k p
    for k in $(seq 1 "$TERN_CLUSTER_NHOSTS"); do
        for p in $(host_pids "$k"); do
            echo "h$k:$p"
        done
    done
}

# Each host's /dev/shm, seen through its sshd's root (its mount namespace).
shm_list() {
    local k pid
    for k in $(seq 1 "$TERN_CLUSTER_NHOSTS"); do
        pid=$(cat "$TERN_CLUSTER_RUN/h$k/sshd.pid" 2>/dev/null) || continue
        ls "/proc/$pid/root/dev/shm" 2>/dev/null | grep '^tern' | sed "s/^/h$k:/"
    done | sort
}

# check_clean [SECONDS]: waits up to SECONDS (default 3) for every process
# of the job to be gone from every host; fails if one is left (killing it)
# or if a new /dev/shm/tern* entry is.
check_clean() {
    local tries=$(( ${1:-3} * 10 )) left e p new
    while [ -n "$(leftovers)" ] && [ "$tries" -gt 0 ]; do
        sleep 0.1
        tries=$((tries - 1))
    done
    left=$(leftovers)
    if [ -n "$left" ]; then
        for e in $left; do
            p=${e#*:}
            echo "left behind on ${e%%:*}: $p $(tr '\0' ' ' </proc/"$p"/cmdline 2>/dev/null)" >&2
            kill -9 "$p" 2>/dev/null
        done
        fail "processes of the job outlived it"
    fi
    new=$(comm -13 <(printf '%s\n' "$SHM_BEFORE") <(shm_list) | grep -v '^$')
    [ -z "$new" ] || fail "shared memory left behind: $new"
}

finish() {
    check_clean "$@"
    echo PASS
    exit 0
}

teardown() {
    local h
    trap - EXIT TERM INT HUP
    if [ "$OWN_CLUSTER" = 1 ]; then
        "$CLUSTER" down
    else
        for h in $HIDDEN; do "$CLUSTER" exec "h${h%%:*}" umount "${h#*:}"; done
    fi
    rm -rf "$TMP"
}

check_prereqs
OWN_CLUSTER=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tern-cluster-test.XXXXXX")
trap teardown EXIT
trap 'exit 124' TERM INT HUP
if [ -n "${TERN_CLUSTER_REUSE:-}" ]; then
    export TERN_CLUSTER_ID=$TERN_CLUSTER_REUSE
    "$CLUSTER" status >/dev/null || fail "TERN_CLUSTER_REUSE=$TERN_CLUSTER_REUSE: no such cluster"
else
    export TERN_CLUSTER_ID=$$
    OWN_CLUSTER=1
    "$CLUSTER" gc
    TERN_CLUSTER_OWNER=$$ timeout 60 "$CLUSTER" up >"$TMP/env" 2>"$TMP/up.err" ||
        fail "cluster.sh up: $(cat "$TMP/up.err")"
fi
eval "$("$CLUSTER" env)"
SHM_BEFORE=$(shm_list)
