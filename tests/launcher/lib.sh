# Sourced by every launcher test. It re-runs the test under an outer
# timeout, provides `run` (mpirun with a marker in the ranks' environment)
# and `finish`, which fails the test if any process carrying the marker or
# any new /dev/shm/tern* entry is left behind. Tests run from the top build
# directory (as automake runs them); MPIRUN and TESTDIR can override paths.
set -u
if [ -z "${TERN_TEST_UNDER_TIMEOUT:-}" ]; then
    TERN_TEST_UNDER_TIMEOUT=1 exec timeout -k 5 "${TERN_TEST_TIMEOUT:-60}" sh "$0" "$@"
fi
MPIRUN=${MPIRUN:-./launcher/mpirun}
TESTDIR=${TESTDIR:-./tests/launcher}
PROG=$TESTDIR/mpiprog
MARK="tern-test-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/tern-launcher-test.XXXXXX")
SHM_BEFORE=$(ls /dev/shm 2>/dev/null | grep '^tern' | sort)
trap 'rm -rf "$TMP"' EXIT

# Runs mpirun (same pid as this function's shell child, so `run ... &`
# gives mpirun's pid in $!) and records its pid, which starts the job id.
run() {
    sh -c 'echo $$ >>"$1"; shift; exec "$@"' sh "$TMP/pids" \
        env TERN_TEST_MARK="$MARK" "$MPIRUN" "$@"
}

# Starts mpirun in the background with SIGINT and SIGQUIT at their default
# action (a script's background jobs otherwise ignore them); sets BG_JOB to
# the background job and MPIRUN_PID to mpirun's pid.
run_bg() {
    n0=$(cat "$TMP/pids" 2>/dev/null | wc -l)
    env --default-signal=INT,QUIT sh -c 'echo $$ >>"$1"; shift; exec "$@"' sh \
        "$TMP/pids" env TERN_TEST_MARK="$MARK" "$MPIRUN" "$@" &
    BG_JOB=$!
    while [ "$(cat "$TMP/pids" 2>/dev/null | wc -l)" -le "$n0" ]; do sleep 0.05; done
    MPIRUN_PID=$(tail -n 1 "$TMP/pids")
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Milliseconds since the epoch.
now_ms() {
    echo $(( $(date +%s%N) / 1000000 ))
}

# PIDs of live processes started by this test's mpirun.
leftovers() {
    grep -l -a "TERN_TEST_MARK=$MARK" /proc/[0-9]*/environ 2>/dev/null |
        sed 's|/proc/\([0-9]*\)/environ|\1|'
}

# finish [seconds]: waits up to that long (default 2) for the job's
# processes to be gone, then checks processes and shared memory.
finish() {
    tries=$(( ${1:-2} * 10 ))
    while [ -n "$(leftovers)" ] && [ "$tries" -gt 0 ]; do
        sleep 0.1
        tries=$((tries - 1))
    done
    left=$(leftovers)
    if [ -n "$left" ]; then
        for p in $left; do
            echo "left behind: $p $(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null)" >&2
            kill -9 "$p" 2>/dev/null
        done
        fail "processes of the job outlived it"
    fi
    # Segment names contain the job id, which starts with mpirun's pid; other
    # jobs running at the same time are not ours to judge.
    shm_after=$(ls /dev/shm 2>/dev/null | grep '^tern' | sort)
    new=$(printf '%s\n' "$shm_after" | grep -vxF -e "$SHM_BEFORE" -e '' || true)
    for p in $(cat "$TMP/pids" 2>/dev/null); do
        mine=$(printf '%s\n' "$new" | grep -e "[^0-9]$p-" || true)
        [ -z "$mine" ] || fail "shared memory left in /dev/shm: $mine"
    done
    echo PASS
    exit 0
}
