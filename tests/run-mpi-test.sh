#!/bin/bash
# run-mpi-test.sh: run one MPI test program under mpirun at several rank
# counts, each run under an outer timeout, and check that the job left
# nothing behind.
#
# Usage:
#   run-mpi-test.sh [--np N[,N...]] [--expect-fail] [--expect-exit CODE]
#                   [--expect-output ERE] [--reject-output ERE] [--timeout S]
#                   [--env VAR=VAL]...
#                   [--verbose] -- prog [args]
#
#   --np LIST          rank counts to run, comma separated (default 1,2,3,4,8)
#   --expect-fail      the job must end with a non-zero exit status (and not
#                      hang); no "OK" line is needed
#   --expect-exit CODE the job must end with exactly this exit status
#   --expect-output ERE the job's output (stdout and stderr together) must
#                      match this extended regular expression, case-insensitive
#   --reject-output ERE the job's output must not match it
#   --timeout S        outer timeout per run in seconds (default 120); a run
#                      that reaches it is a failure reported as "hung"
#   --env VAR=VAL      set VAR in the environment of mpirun (repeatable)
#   --verbose          print the job's output after every run (otherwise only
#                      after a failure)
#
# By default a run passes when it exits 0 and prints a line starting "OK ".
# After every run, whatever its result, the script checks that
#   - no process of the run is left (every process mpirun starts carries a
#     marker, TERN_RUN_MARK, in its environment; after up to 2 s to settle,
#     any found are killed by pid and reported), and
#   - no new /dev/shm entry whose name starts with "tern" exists (a listing
#     from before the run is compared with one after; the prefix can be
#     changed with TERN_TEST_SHM_PREFIX, e.g. to check another MPI). Of
#     Tern's own entries only the run's job counts: its names carry the
#     pid of the run's mpirun, so a job of a test running alongside is
#     not blamed on this one.
#
# The launcher is $MPIRUN, word-split, so it may carry options, e.g.
#   MPIRUN="mpirun.openmpi --allow-run-as-root --oversubscribe"
# Without MPIRUN it is launcher/mpirun in the build tree: $TERN_BUILDDIR if
# set, else the directory above this script, else the current directory
# (make check runs from the top build directory).
#
# Output: one line per run, "PASS np=N prog" or "FAIL np=N prog: reason".
# Exit status: 0 if every run passed, 1 otherwise, 77 (automake's "skipped")
# only when the program cannot be run at all: the launcher does not exist or
# is not executable, or coreutils' timeout is missing. The
# reason is printed.

set -u

np_list="1,2,3,4,8"
expect_fail=0
expect_exit=""
expect_output=""
reject_output=""
timeout_s=120
verbose=0
envs=()

usage() {
    # The comment block from "Usage:" to the line before "By default".
    sed -n '/^# Usage:/,/^# By default/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
    exit "${1:-1}"
}

while [ $# -gt 0 ]; do
    case "$1" in
        --np) np_list="${2:?--np needs a value}"; shift 2 ;;
        --np=*) np_list="${1#--np=}"; shift ;;
        --expect-fail) expect_fail=1; shift ;;
        --expect-exit) expect_exit="${2:?--expect-exit needs a value}"; shift 2 ;;
        --expect-exit=*) expect_exit="${1#--expect-exit=}"; shift ;;
        --expect-output) expect_output="${2:?--expect-output needs a value}"; shift 2 ;;
        --expect-output=*) expect_output="${1#--expect-output=}"; shift ;;
        --reject-output) reject_output="${2:?--reject-output needs a value}"; shift 2 ;;
        --reject-output=*) reject_output="${1#--reject-output=}"; shift ;;
        --timeout) timeout_s="${2:?--timeout needs a value}"; shift 2 ;;
        --timeout=*) timeout_s="${1#--timeout=}"; shift ;;
        --env) envs+=("${2:?--env needs VAR=VAL}"); shift 2 ;;
        --env=*) envs+=("${1#--env=}"); shift ;;
        --verbose|-v) verbose=1; shift ;;
        --) shift; break ;;
        -h|--help) usage 0 ;;
        *) echo "run-mpi-test.sh: unknown option '$1'" >&2; usage ;;
    esac
done
[ $# -ge 1 ] || usage
prog="$1"; shift
prog_args=("$@")
name="$(basename "$prog")"

case "$np_list" in
    ''|*[!0-9,]*) echo "run-mpi-test.sh: bad --np list '$np_list'" >&2; exit 1 ;;
esac
case "$timeout_s" in
    ''|*[!0-9]*) echo "run-mpi-test.sh: bad --timeout '$timeout_s'" >&2; exit 1 ;;
esac
if [ -n "$expect_exit" ]; then
    case "$expect_exit" in
        *[!0-9]*) echo "run-mpi-test.sh: bad --expect-exit '$expect_exit'" >&2; exit 1 ;;
    esac
fi
for e in ${envs[@]+"${envs[@]}"}; do
    case "$e" in
        [A-Za-z_]*=*) ;;
        *) echo "run-mpi-test.sh: bad --env '$e' (want VAR=VAL)" >&2; exit 1 ;;
    esac
done

skip() {
    echo "SKIP $name: $*"
    exit 77
}

for tool in timeout; do
    command -v "$tool" >/dev/null 2>&1 || skip "'$tool' is not installed"
done

# The program, by absolute path.
case "$prog" in
    /*) abs_prog="$prog" ;;
    */*) abs_prog="$(cd "$(dirname "$prog")" 2>/dev/null && pwd)/$(basename "$prog")" ;;
    *) abs_prog="$(command -v "$prog" 2>/dev/null || echo "$PWD/$prog")" ;;
esac
if [ ! -x "$abs_prog" ]; then
    # A missing test binary is a build problem, not a reason to skip.
    for np in ${np_list//,/ }; do
        echo "FAIL np=$np $name: program '$prog' does not exist or is not executable"
    done
    exit 1
fi

# The launcher.
if [ -n "${MPIRUN:-}" ]; then
    read -r -a mpirun_cmd <<<"$MPIRUN"
else
    script_top="$(cd "$(dirname "$0")/.." && pwd)"
    mpirun_cmd=()
    for top in ${TERN_BUILDDIR:+"$TERN_BUILDDIR"} "$script_top" "$PWD"; do
        if [ -x "$top/launcher/mpirun" ]; then
            mpirun_cmd=("$top/launcher/mpirun")
            break
        fi
    done
    [ ${#mpirun_cmd[@]} -gt 0 ] ||
        skip "no launcher: launcher/mpirun is not built (looked under" \
             "${TERN_BUILDDIR:+$TERN_BUILDDIR, }$script_top and $PWD); set MPIRUN"
fi
command -v "${mpirun_cmd[0]}" >/dev/null 2>&1 ||
    skip "the launcher '${mpirun_cmd[0]}' is not found or not executable"

shm_prefix="${TERN_TEST_SHM_PREFIX:-tern}"
shm_list() {
    # One name per line, sorted, only entries with the prefix.
    if [ -d /dev/shm ]; then
        (cd /dev/shm && for f in "$shm_prefix"*; do [ -e "$f" ] && echo "$f"; done) | sort
    fi
}

# Every process of a run carries a marker in its environment (mpirun passes
# the environment on to the ranks), so that processes of other tests
# running the same program at the same time are not taken for this run's.
run_mark="run-mpi-test-$$-$RANDOM$RANDOM"
leftover_pids() {
    grep -l -a -s "TERN_RUN_MARK=$run_mark" /proc/[0-9]*/environ |
        sed 's|/proc/\([0-9]*\)/environ|\1|' | grep -vx -e "$$" || true
}

out="$(mktemp "${TMPDIR:-/tmp}/run-mpi-test.XXXXXX")" || exit 1
trap 'rm -f "$out" "$out.shm" "$out.pid"' EXIT

failures=0
for np in ${np_list//,/ }; do
    shm_list >"$out.shm"
    start=$(date +%s.%N)
    # stdin from /dev/null: a launcher that forwards stdin must not eat ours.
    # The launcher's pid goes to $out.pid: Tern's job id, and so the names
    # of the job's segments, start with it.
    env ${envs[@]+"${envs[@]}"} TERN_RUN_MARK="$run_mark" timeout -k 10 "$timeout_s" \
        sh -c 'echo $$ >"$0"; exec "$@"' "$out.pid" \
        "${mpirun_cmd[@]}" -np "$np" "$abs_prog" ${prog_args[@]+"${prog_args[@]}"} \
        </dev/null >"$out" 2>&1
    rc=$?
    end=$(date +%s.%N)
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

    reasons=()
    if [ $rc -eq 124 ] || { [ $rc -eq 137 ] && awk -v a="$start" -v b="$end" -v t="$timeout_s" 'BEGIN { exit !(b - a >= t) }'; }; then
        reasons+=("hung: no exit after ${timeout_s} s (killed by timeout)")
    elif [ -n "$expect_exit" ]; then
        [ $rc -eq "$expect_exit" ] || reasons+=("exit status $rc, expected $expect_exit")
    elif [ $expect_fail -eq 1 ]; then
        [ $rc -ne 0 ] || reasons+=("exit status 0, expected a failure")
    else
        [ $rc -eq 0 ] || reasons+=("exit status $rc")
        grep -q '^OK ' "$out" || reasons+=("no 'OK' line in the output")
    fi
    if [ -n "$expect_output" ] && ! grep -Eiq -e "$expect_output" "$out"; then
        reasons+=("output does not match /$expect_output/")
    fi
    if [ -n "$reject_output" ] && grep -Eiq -e "$reject_output" "$out"; then
        reasons+=("output matches /$reject_output/: $(grep -Ei -m1 -e "$reject_output" "$out")")
    fi

    # Leftover processes: give the job up to 2 s to settle.
    left=""
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        left="$(leftover_pids)"
        [ -z "$left" ] && break
        sleep 0.2
    done
    if [ -n "$left" ]; then
        reasons+=("processes left behind: $(echo $left)")
        # They belong to this run; end them by pid so later runs start clean.
        kill -9 $left 2>/dev/null
    fi

    # Leftover shared memory segments: entries that were not there before
    # the run, still there a moment later, created before the run ended,
    # and mapped by no process (this run's are gone by now). So a segment
    # of another test running at the same time is not blamed on this one:
    # Tern's own lives only until its ranks have attached, but the regions
    # of libfabric's shm provider, which carry the job's name too, live as
    # long as their job.
    new_shm="$(shm_list | comm -13 "$out.shm" -)"
    if [ -n "$new_shm" ]; then
        sleep 1
        still=""
        job_pid=$(cat "$out.pid" 2>/dev/null)
        for f in $new_shm; do
            # A Tern segment ("tern-<euid>-<mpirun pid>-...") of another
            # job, such as an ending one whose mpirun has yet to remove
            # what its killed ranks left, is that job's to answer for.
            case "$f" in
            tern-[0-9]*-[0-9]*-*)
                p=${f#tern-*-}
                [ "${p%%-*}" = "$job_pid" ] || continue ;;
            esac
            m=$(stat -c %Y "/dev/shm/$f" 2>/dev/null) || continue
            grep -qsF "/dev/shm/$f" /proc/[0-9]*/maps && continue
            [ "$m" -le "${end%.*}" ] && still="$still $f"
        done
        [ -z "$still" ] || reasons+=("/dev/shm entries left behind:$still")
    fi

    if [ ${#reasons[@]} -eq 0 ]; then
        echo "PASS np=$np $name (${secs}s)"
        if [ $verbose -eq 1 ]; then
            sed 's/^/    /' "$out"
        fi
    else
        failures=$((failures + 1))
        reason="$(printf '%s; ' "${reasons[@]}")"
        echo "FAIL np=$np $name: ${reason%; } (${secs}s)"
        echo "    command: ${envs[*]+${envs[*]} }${mpirun_cmd[*]} -np $np $abs_prog ${prog_args[*]+${prog_args[*]}}"
        lines=$(wc -l <"$out")
        if [ "$lines" -gt 60 ] && [ $verbose -eq 0 ]; then
            echo "    output (last 60 of $lines lines):"
            tail -n 60 "$out" | sed 's/^/    /'
        else
            echo "    output:"
            sed 's/^/    /' "$out"
        fi
    fi
done

[ $failures -eq 0 ] && exit 0
exit 1
