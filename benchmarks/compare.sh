#!/usr/bin/env bash
# Build Tern's point-to-point benchmarks with every MPI available here and run
# them side by side on 2 local ranks: Tern, Open MPI and MPICH.
#
# Each benchmark runs R times per MPI, interleaved (run 1 of every MPI, then
# run 2 of every MPI, ...) so that the machine's noise falls on all of them
# alike; the tables show the median per size, and the ratios Tern/Open MPI and
# Tern/MPICH.  `mpirun -np 2 ./hello` is timed wall-clock the same way.
#
# Usage: benchmarks/compare.sh [--quick] [--verify] [--runs R]
#                              [--bench LIST] [--keep] [--transport NAME]
# Environment:
#   TERN_MPICC, TERN_MPIRUN   Tern's mpicc wrapper and mpirun; unset or not
#                             executable: Tern's column is skipped.
#   OMPI_MPICC, OMPI_MPIRUN   default mpicc.openmpi, mpirun.openmpi
#   MPICH_MPICC, MPICH_MPIRUN default mpicc.mpich, mpirun.mpich
#   BENCH_RUNS                runs per MPI (default 5; 3 with --quick)
#   BENCH_TIMEOUT             seconds allowed per run (default 300)
#   BENCH_CFLAGS              optimization flags for the builds (default -O2)
#   BENCH_ARGS                extra arguments for every benchmark, e.g. "-m 1K:64K"
#   TERN_ARGS, OMPI_ARGS, MPICH_ARGS  extra mpirun arguments, per MPI
#   TERN_ENV,  OMPI_ENV,  MPICH_ENV   extra VAR=value environment, per MPI
# Exit status: 0 when every build and run succeeded, 1 otherwise, 2 on a
# usage error.
set -u

srcdir=$(cd "$(dirname "$0")" && pwd)
prog=compare.sh

die() { echo "$prog: $*" >&2; exit 2; }
note() { echo "$prog: $*" >&2; }

usage() {
    sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

quick=0
verify=0
keep=0
runs=${BENCH_RUNS:-}
benches="latency bw bibw hello"
transport=
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=1 ;;
    --verify) verify=1 ;;
    --keep) keep=1 ;;
    --runs) [ $# -ge 2 ] || die "--runs needs a number"; runs=$2; shift ;;
    --runs=*) runs=${1#--runs=} ;;
    --bench) [ $# -ge 2 ] || die "--bench needs a list"; benches=${2//,/ }; shift ;;
    --bench=*) benches=${1#--bench=}; benches=${benches//,/ } ;;
    --transport) [ $# -ge 2 ] || die "--transport needs a name"; transport=$2; shift ;;
    --transport=*) transport=${1#--transport=} ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
    esac
    shift
done
if [ -z "$runs" ]; then
    if [ $quick = 1 ]; then runs=3; else runs=5; fi
fi
case "$runs" in ''|*[!0-9]*|0) die "the number of runs must be a positive integer, not '$runs'" ;; esac
for b in $benches; do
    case "$b" in latency|bw|bibw|hello) ;; *) die "--bench: unknown benchmark '$b' (latency, bw, bibw, hello)" ;; esac
done
timeout_s=${BENCH_TIMEOUT:-300}
cflags=${BENCH_CFLAGS:--O2}

# ---------------------------------------------------------------------------
# Per-MPI extra mpirun arguments and environment.  This is the one place
# where a transport gets chosen: --transport NAME is meant to set these for
# each MPI (for tcp, e.g. Tern: -x TERN_TRANSPORTS=tcp,self; Open MPI:
# --mca btl tcp,self; MPICH: an environment variable for its netmod), and the
# user's own TERN_ARGS / OMPI_ARGS / MPICH_ARGS and *_ENV are added to them.
# Values are split on whitespace; no quoting inside them.
TERN_ARGS=${TERN_ARGS:-}  TERN_ENV=${TERN_ENV:-}
OMPI_ARGS=${OMPI_ARGS:-}  OMPI_ENV=${OMPI_ENV:-}
MPICH_ARGS=${MPICH_ARGS:-} MPICH_ENV=${MPICH_ENV:-}
set_transport() {
    case "$1" in
    '') ;;
    *) die "--transport $1: not implemented yet; set TERN_ARGS, OMPI_ARGS, MPICH_ARGS (mpirun arguments) or TERN_ENV, OMPI_ENV, MPICH_ENV (VAR=value) by hand" ;;
    esac
}
set_transport "$transport"

# ---------------------------------------------------------------------------
# The MPIs: id, label, compiler, launcher, launcher arguments, environment.
ids=(tern openmpi mpich)
declare -A label cc run rargs renv
label[tern]="Tern";     label[openmpi]="Open MPI";  label[mpich]="MPICH"
cc[tern]=${TERN_MPICC:-};   run[tern]=${TERN_MPIRUN:-}
cc[openmpi]=${OMPI_MPICC:-$(command -v mpicc.openmpi || true)}
run[openmpi]=${OMPI_MPIRUN:-$(command -v mpirun.openmpi || true)}
cc[mpich]=${MPICH_MPICC:-$(command -v mpicc.mpich || true)}
run[mpich]=${MPICH_MPIRUN:-$(command -v mpirun.mpich || true)}
rargs[tern]="$TERN_ARGS"
rargs[openmpi]="--oversubscribe${OMPI_ARGS:+ $OMPI_ARGS}"
rargs[mpich]="$MPICH_ARGS"
renv[tern]="$TERN_ENV"
# Open MPI refuses to run as root without these; they are harmless otherwise.
renv[openmpi]="OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1${OMPI_ENV:+ $OMPI_ENV}"
renv[mpich]="$MPICH_ENV"

active=()
for id in "${ids[@]}"; do
    if [ -z "${cc[$id]}" ] || [ -z "${run[$id]}" ]; then
        case $id in
        tern) note "skipping Tern: set TERN_MPICC and TERN_MPIRUN to Tern's mpicc and mpirun (make bench does)" ;;
        *) note "skipping ${label[$id]}: its mpicc/mpirun is not installed" ;;
        esac
    elif [ ! -x "${cc[$id]}" ] || [ ! -x "${run[$id]}" ]; then
        note "skipping ${label[$id]}: ${cc[$id]} or ${run[$id]} is missing or not executable"
    else
        active+=("$id")
    fi
done
[ ${#active[@]} -gt 0 ] || { note "no MPI to benchmark"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/tern-bench.XXXXXX") || die "cannot create a temporary directory"
if [ $keep = 1 ]; then
    note "keeping builds and raw results in $work"
else
    trap 'rm -rf "$work"' EXIT
fi
trap 'exit 130' INT TERM

status=0

# Busy-polling ranks that share cores with other work give wild numbers.
load1=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
if awk -v l="$load1" -v n="$(nproc)" 'BEGIN { exit !(l + 0 > n - 1) }'; then
    note "warning: load average $load1 on $(nproc) cores; expect noisy numbers (more runs help: BENCH_RUNS=9)"
fi

# ---------------------------------------------------------------------------
# Build every benchmark with every MPI, each into its own directory.
for id in "${active[@]}"; do
    mkdir -p "$work/$id"
    for b in latency bw bibw hello; do
        srcs="$srcdir/$b.c"
        [ "$b" = hello ] || srcs="$srcs $srcdir/bench_util.c"
        # shellcheck disable=SC2086
        if ! "${cc[$id]}" -std=gnu11 $cflags -Wall -Wextra -Werror \
                -o "$work/$id/$b" $srcs >"$work/$id/$b.build.log" 2>&1; then
            note "building $b with ${label[$id]} (${cc[$id]}) failed:"
            cat "$work/$id/$b.build.log" >&2
            exit 1
        fi
    done
done

# Arguments for each benchmark; --quick keeps sizes to 64 KiB and cuts counts.
bench_args() {
    local a=""
    if [ $quick = 1 ]; then
        case $1 in
        latency) a="-m 64K -i 1000 -x 100" ;;
        bw|bibw) a="-m 64K -i 20 -x 2" ;;
        esac
    fi
    echo "$a ${BENCH_ARGS:-}"
}

# run_mpi ID OUT ERR PROGRAM ARGS...: one 2-rank job; returns its status.
run_mpi() {
    local id=$1 out=$2 err=$3; shift 3
    # shellcheck disable=SC2086
    env ${renv[$id]} timeout "$timeout_s" "${run[$id]}" ${rargs[$id]} -np 2 "$@" \
        >"$out" 2>"$err" </dev/null
}

failed() {  # failed WHAT ERRFILE STATUS
    note "FAILED: $1 (exit $3)${4:+; $4}"
    tail -n 20 "$2" | sed 's/^/    /' >&2
    status=1
}

# ---------------------------------------------------------------------------
# Optional correctness pass: every benchmark once per MPI with --verify.
if [ $verify = 1 ]; then
    for b in $benches; do
        [ "$b" = hello ] && continue
        for id in "${active[@]}"; do
            note "verify: $b with ${label[$id]}"
            # shellcheck disable=SC2046
            run_mpi "$id" "$work/$id/$b.verify.out" "$work/$id/$b.verify.err" \
                "$work/$id/$b" --verify --csv $(bench_args "$b")
            rc=$?
            if [ $rc != 0 ]; then
                failed "$b --verify with ${label[$id]}" "$work/$id/$b.verify.err" $rc
            else
                sed 's/^/    /' "$work/$id/$b.verify.err" >&2
            fi
        done
    done
fi

# ---------------------------------------------------------------------------
# Timed runs, interleaved: round r runs every benchmark on every MPI.
mkdir -p "$work/results"
for r in $(seq 1 "$runs"); do
    note "round $r of $runs: $benches on ${active[*]}"
    for b in $benches; do
        for id in "${active[@]}"; do
            base="$work/results/$b.$id.$r"
            if [ "$b" = hello ]; then
                t0=$(date +%s%N)
                run_mpi "$id" "$base.out" "$base.err" "$work/$id/hello"
                rc=$?
                t1=$(date +%s%N)
                if [ $rc != 0 ]; then
                    failed "hello with ${label[$id]}, round $r" "$base.err" $rc
                elif [ "$(grep -c '^Hello from rank' "$base.out")" != 2 ]; then
                    failed "hello with ${label[$id]}, round $r" "$base.err" 0 "expected 2 hello lines"
                else
                    echo "test,size,value" >"$base.csv"
                    echo "hello,0,$(( (t1 - t0) / 1000 ))" | awk -F, '{ printf "%s,%s,%.3f\n", $1, $2, $3 / 1000 }' >>"$base.csv"
                fi
            else
                # shellcheck disable=SC2046
                run_mpi "$id" "$base.csv" "$base.err" "$work/$id/$b" --csv $(bench_args "$b")
                rc=$?
                [ $rc = 0 ] || failed "$b with ${label[$id]}, round $r" "$base.err" $rc
            fi
        done
    done
done

# ---------------------------------------------------------------------------
# Tables.  table BENCH TITLE LOWER_IS_BETTER(1|0)
table() {
    local b=$1 title=$2 lower=$3 id f better
    if [ "$lower" = 1 ]; then better="lower is better; a ratio below 1 means Tern is faster"
    else better="higher is better; a ratio above 1 means Tern is faster"; fi
    echo
    echo "== $title, median of $runs runs ($better) =="
    for id in "${ids[@]}"; do
        for f in "$work/results/$b.$id".*.csv; do
            [ -f "$f" ] || continue
            awk -F, -v id="$id" 'NR > 1 && NF == 3 { print $2, id, $3 }' "$f"
        done
    done | sort -k1,1n -k2,2 -k3,3g | awk -v active="${active[*]}" -v hello="$([ "$b" = hello ] && echo 1 || echo 0)" '
        function flush(   i, id, n, m, v, row) {
            if (!started) return
            row = sprintf("%-10s", hello ? "wall ms" : size)
            for (i = 1; i <= 3; i++) {
                id = ids[i]; n = cnt[id]
                if (n == 0) {
                    med[id] = ""
                    row = row sprintf("%12s", index(" " active " ", " " id " ") ? "fail" : "-")
                    continue
                }
                if (n % 2) m = vals[id, (n + 1) / 2]
                else m = (vals[id, n / 2] + vals[id, n / 2 + 1]) / 2
                med[id] = m
                row = row sprintf("%12.2f", m)
            }
            for (i = 2; i <= 3; i++) {
                v = "-"
                if (med["tern"] != "" && med[ids[i]] != "" && med[ids[i]] > 0)
                    v = sprintf("%.2f", med["tern"] / med[ids[i]])
                row = row sprintf("%12s", v)
            }
            print row
            delete cnt
        }
        BEGIN {
            ids[1] = "tern"; ids[2] = "openmpi"; ids[3] = "mpich"
            printf "%-10s%12s%12s%12s%12s%12s\n", hello ? "" : "Size (B)", "Tern", "Open MPI", "MPICH", "Tern/OMPI", "Tern/MPICH"
        }
        !started || $1 != size { flush(); size = $1; started = 1 }
        { vals[$2, ++cnt[$2]] = $3 }
        END { flush() }'
}

echo
echo "# Tern benchmark comparison: $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
for id in "${active[@]}"; do
    echo "# ${label[$id]}: ${run[$id]}${rargs[$id]:+ ${rargs[$id]}}${renv[$id]:+ (env: ${renv[$id]})}"
done
[ $quick = 1 ] && echo "# --quick: sizes up to 64 KiB, reduced iteration counts"
for b in $benches; do
    case $b in
    latency) table latency "latency: half round trip, us" 1 ;;
    bw) table bw "bw: unidirectional bandwidth, MB/s (1e6 B)" 0 ;;
    bibw) table bibw "bibw: bidirectional bandwidth, MB/s (1e6 B)" 0 ;;
    hello) table hello "hello: wall-clock of mpirun -np 2 ./hello, ms" 1 ;;
    esac
done
if [ $status != 0 ]; then
    echo
    echo "# Some builds or runs FAILED (see above); their medians use the runs that succeeded."
fi
exit $status
