#!/usr/bin/env bash
# Build Tern's benchmarks with every MPI available here and run them side by
# side on local ranks: Tern, Open MPI and MPICH.  The point-to-point ones run
# on 2 ranks; the collective ones (coll_*.c) on 2 ranks, or on --np N.
#
# Each benchmark runs R times per MPI, interleaved (run 1 of every MPI, then
# run 2 of every MPI, ...) so that the machine's noise falls on all of them
# alike; the tables show the median per size, and the ratios Tern/Open MPI and
# Tern/MPICH.  `mpirun -np 2 ./hello` is timed wall-clock the same way.
# A collective the MPI does not implement (MPI_ERR_UNSUPPORTED_OPERATION)
# shows as "n/a" in that MPI's column; it does not count as a failure.
#
# Usage: benchmarks/compare.sh [--quick] [--verify] [--runs R]
#                              [--bench LIST] [--np N] [--keep]
#                              [--transport NAME]
#   --transport   tcp or ofi: every MPI over TCP sockets, Tern natively (tcp)
#                 or through libfabric's tcp provider (ofi)
#   --bench LIST  comma- or space-separated entries: latency bw bibw hello
#                 allreduce bcast reduce barrier allgather alltoall gather
#                 scatter reduce_scatter scan iallreduce, or p2p / coll for the two
#                 groups; a collective may carry its rank count, NAME:NP.
#                 Default: p2p, coll, and allreduce:8 (8 ranks, oversubscribed
#                 on smaller machines).
#   --np N        rank count of the collectives given without :NP (default 2)
# Environment:
#   TERN_MPICC, TERN_MPIRUN   Tern's mpicc wrapper and mpirun; unset or not
#                             executable: Tern's column is skipped.
#   OMPI_MPICC, OMPI_MPIRUN   default mpicc.openmpi, mpirun.openmpi
#   MPICH_MPICC, MPICH_MPIRUN default mpicc.mpich, mpirun.mpich
#   BENCH_RUNS                runs per MPI (default 5; 3 with --quick)
#   BENCH_TIMEOUT             seconds allowed per run (default 300)
#   BENCH_CFLAGS              optimization flags for the builds (default -O2)
#   BENCH_ARGS                extra arguments for every benchmark, e.g. "-m 1K:64K"
#   COLL_ARGS                 extra arguments for the collectives only (before
#                             BENCH_ARGS), e.g. "-s 8,1M -T 2"
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
p2p_benches="latency bw bibw hello"
coll_benches="allreduce bcast reduce barrier allgather alltoall gather scatter reduce_scatter scan iallreduce"
benches="p2p coll allreduce:8"
coll_np=2
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
    --np) [ $# -ge 2 ] || die "--np needs a number"; coll_np=$2; shift ;;
    --np=*) coll_np=${1#--np=} ;;
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
case "$coll_np" in ''|*[!0-9]*|0|1) die "--np needs a rank count of at least 2, not '$coll_np'" ;; esac

# Expand the groups and give every collective its rank count: the entries
# become "latency", ..., "allreduce:2", "allreduce:8".  Duplicates go.
is_coll() { case " $coll_benches " in *" $1 "*) return 0 ;; esac; return 1; }
entries=
for b in $benches; do
    case "$b" in
    p2p) list=$p2p_benches ;;
    coll) list=$coll_benches ;;
    *) list=$b ;;
    esac
    for e in $list; do
        name=${e%%:*}
        if is_coll "$name"; then
            np=$coll_np
            [ "$name" = "$e" ] || np=${e#*:}
            case "$np" in ''|*[!0-9]*|0|1) die "--bench: '$e': the rank count must be at least 2" ;; esac
            e=$name:$np
        else
            case " $p2p_benches " in *" $e "*) ;;
            *) die "--bench: unknown benchmark '$e' (p2p: $p2p_benches; coll: $coll_benches)" ;;
            esac
        fi
        case " $entries " in *" $e "*) ;; *) entries="$entries $e" ;; esac
    done
done
entries=${entries# }
timeout_s=${BENCH_TIMEOUT:-300}
cflags=${BENCH_CFLAGS:--O2}

# ---------------------------------------------------------------------------
# Per-MPI extra mpirun arguments and environment.  This is the one place
# where a transport gets chosen: --transport tcp sets these for each MPI
# (Tern: TERN_TRANSPORTS=self,tcp; Open MPI: --mca pml ob1 --mca btl tcp,self;
# MPICH, whose device here is ch4:ucx: UCX_TLS=tcp,self); --transport ofi
# runs Tern through libfabric instead (TERN_TRANSPORTS=self,ofi with the
# provider TERN_OFI_PROVIDER names, tcp by default) against the same TCP
# runs of the others; and the
# user's own TERN_ARGS / OMPI_ARGS / MPICH_ARGS and *_ENV are added to them.
# Values are split on whitespace; no quoting inside them.
TERN_ARGS=${TERN_ARGS:-}  TERN_ENV=${TERN_ENV:-}
OMPI_ARGS=${OMPI_ARGS:-}  OMPI_ENV=${OMPI_ENV:-}
MPICH_ARGS=${MPICH_ARGS:-} MPICH_ENV=${MPICH_ENV:-}
set_transport() {
    case "$1" in
    '') ;;
    tcp) TERN_ENV="TERN_TRANSPORTS=self,tcp $TERN_ENV"
         OMPI_ARGS="--mca pml ob1 --mca btl tcp,self $OMPI_ARGS"
         MPICH_ENV="UCX_TLS=tcp,self $MPICH_ENV" ;;
    ofi) TERN_ENV="TERN_TRANSPORTS=self,ofi TERN_OFI_PROVIDER=${TERN_OFI_PROVIDER:-tcp} $TERN_ENV"
         OMPI_ARGS="--mca pml ob1 --mca btl tcp,self $OMPI_ARGS"
         MPICH_ENV="UCX_TLS=tcp,self $MPICH_ENV" ;;
    *) die "--transport $1: unknown; the choices are tcp, ofi, or none for each MPI's default; set TERN_ARGS, OMPI_ARGS, MPICH_ARGS (mpirun arguments) or TERN_ENV, OMPI_ENV, MPICH_ENV (VAR=value) by hand" ;;
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
# Build every benchmark the entries need with every MPI, each MPI into its own
# directory.  A collective NAME is the program coll_NAME.
prog_of() { if is_coll "${1%%:*}"; then echo "coll_${1%%:*}"; else echo "$1"; fi; }
progs=
for e in $entries; do
    p=$(prog_of "$e")
    case " $progs " in *" $p "*) ;; *) progs="$progs $p" ;; esac
done
for id in "${active[@]}"; do
    mkdir -p "$work/$id"
    for b in $progs; do
        case $b in
        hello) srcs="$srcdir/$b.c" ;;
        coll_*) srcs="$srcdir/$b.c $srcdir/coll_util.c $srcdir/coll_verify.c $srcdir/bench_util.c" ;;
        *) srcs="$srcdir/$b.c $srcdir/bench_util.c" ;;
        esac
        # shellcheck disable=SC2086
        if ! "${cc[$id]}" -std=gnu11 $cflags -Wall -Wextra -Werror \
                -o "$work/$id/$b" $srcs >"$work/$id/$b.build.log" 2>&1; then
            note "building $b with ${label[$id]} (${cc[$id]}) failed:"
            cat "$work/$id/$b.build.log" >&2
            exit 1
        fi
    done
done

# Ranks of an entry: NAME:NP for collectives, 2 for the rest.
np_of() { case $1 in *:*) echo "${1#*:}" ;; *) echo 2 ;; esac; }

# Arguments for each benchmark entry; --quick keeps sizes to 64 KiB and cuts
# counts.  Collectives on more than 2 ranks (the ranks usually outnumber the
# cores then) skip the 1 MiB size; every collective cuts its timed loops to
# about a second per size by itself (-T).  COLL_ARGS and then BENCH_ARGS
# come last, so their -m / -s / -i / -T win.
bench_args() {
    local a="" name=${1%%:*} np
    np=$(np_of "$1")
    case $name in
    latency) [ $quick = 1 ] && a="-m 64K -i 1000 -x 100" ;;
    bw|bibw) [ $quick = 1 ] && a="-m 64K -i 20 -x 2" ;;
    allreduce|bcast|reduce|iallreduce)
        { [ $quick = 1 ] || [ "$np" -gt 2 ]; } && a="-s 8,64K" ;;
    esac
    if is_coll "$name"; then
        [ $quick = 1 ] && a="$a -i 200 -x 20"
        if [ "$name" = barrier ]; then
            a="$a $(without_sizes "${COLL_ARGS:-}")"
        else
            a="$a ${COLL_ARGS:-}"
        fi
    fi
    echo "$a ${BENCH_ARGS:-}"
}

# Barrier takes no sizes: COLL_ARGS without its -s / -m options and values.
without_sizes() {
    local out="" skip=0 w
    for w in $1; do
        if [ $skip = 1 ]; then
            skip=0
            continue
        fi
        case $w in
        -s|-m|--sizes|--message-size) skip=1 ;;
        *) out="$out $w" ;;
        esac
    done
    echo "$out"
}

# run_mpi ID NP OUT ERR PROGRAM ARGS...: one NP-rank job; returns its status.
run_mpi() {
    local id=$1 np=$2 out=$3 err=$4; shift 4
    # shellcheck disable=SC2086
    env ${renv[$id]} timeout "$timeout_s" "${run[$id]}" ${rargs[$id]} -np "$np" "$@" \
        >"$out" 2>"$err" </dev/null
}

# A run that failed because the MPI does not implement a call: the benchmark
# says so (coll_util.c), and Tern's fatal error handler names the class too.
unsupported() { grep -q 'MPI_ERR_UNSUPPORTED_OPERATION' "$1" 2>/dev/null; }

# File-name key of an entry: "latency", "allreduce.np8".
key_of() { case $1 in *:*) echo "${1%%:*}.np${1#*:}" ;; *) echo "$1" ;; esac; }

failed() {  # failed WHAT ERRFILE STATUS
    note "FAILED: $1 (exit $3)${4:+; $4}"
    tail -n 20 "$2" | sed 's/^/    /' >&2
    status=1
}

# ---------------------------------------------------------------------------
# Optional correctness pass: every benchmark once per MPI with --verify.
if [ $verify = 1 ]; then
    for e in $entries; do
        [ "$e" = hello ] && continue
        k=$(key_of "$e")
        for id in "${active[@]}"; do
            note "verify: $e with ${label[$id]}"
            # shellcheck disable=SC2046
            run_mpi "$id" "$(np_of "$e")" "$work/$id/$k.verify.out" "$work/$id/$k.verify.err" \
                "$work/$id/$(prog_of "$e")" --verify --csv $(bench_args "$e")
            rc=$?
            if [ $rc != 0 ] && unsupported "$work/$id/$k.verify.err"; then
                note "    n/a: ${label[$id]} does not implement a call $e needs"
            elif [ $rc != 0 ]; then
                failed "$e --verify with ${label[$id]}" "$work/$id/$k.verify.err" $rc
            else
                grep -v '^$' "$work/$id/$k.verify.err" | sed 's/^/    /' >&2
            fi
        done
    done
fi

# ---------------------------------------------------------------------------
# Timed runs, interleaved: round r runs every benchmark on every MPI.
mkdir -p "$work/results"
for r in $(seq 1 "$runs"); do
    note "round $r of $runs: $entries on ${active[*]}"
    for b in $entries; do
        k=$(key_of "$b")
        for id in "${active[@]}"; do
            base="$work/results/$k.$id.$r"
            # Once an MPI turned out not to implement it, skip the later rounds.
            [ -f "$work/results/$k.$id.na" ] && continue
            if [ "$b" = hello ]; then
                t0=$(date +%s%N)
                run_mpi "$id" 2 "$base.out" "$base.err" "$work/$id/hello"
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
                run_mpi "$id" "$(np_of "$b")" "$base.csv" "$base.err" \
                    "$work/$id/$(prog_of "$b")" --csv $(bench_args "$b")
                rc=$?
                if [ $rc != 0 ] && unsupported "$base.err"; then
                    note "n/a: ${label[$id]} does not implement a call $b needs:"
                    grep -m 1 'MPI_ERR_UNSUPPORTED_OPERATION' "$base.err" | sed 's/^/    /' >&2
                    touch "$work/results/$k.$id.na"
                elif [ $rc != 0 ]; then
                    failed "$b with ${label[$id]}, round $r" "$base.err" $rc
                fi
            fi
        done
    done
done

# ---------------------------------------------------------------------------
# Tables.  table KEY TITLE LOWER_IS_BETTER(1|0) [CSV_COLUMN [ROW_LABEL]]
# The value is CSV column CSV_COLUMN (default 3) of each run's rows; a
# ROW_LABEL replaces the size (one-row tables).  A missing value shows as
# "-" (that MPI was skipped), "n/a" (it does not implement the call) or
# "fail" (it ran and produced nothing for that size).
table() {
    local b=$1 title=$2 lower=$3 col=${4:-3} rowlabel=${5:-} id f better na=""
    if [ "$lower" = 1 ]; then better="lower is better; a ratio below 1 means Tern is faster"
    else better="higher is better; a ratio above 1 means Tern is faster"; fi
    for id in "${ids[@]}"; do
        [ -f "$work/results/$b.$id.na" ] && na="$na $id"
    done
    echo
    echo "== $title, median of $runs runs ($better) =="
    for id in "${ids[@]}"; do
        for f in "$work/results/$b.$id".*.csv; do
            [ -f "$f" ] || continue
            awk -F, -v id="$id" -v col="$col" 'NR > 1 && NF >= col && $2 ~ /^[0-9]+$/ { print $2, id, $col }' "$f"
        done
    done | sort -k1,1n -k2,2 -k3,3g | awk -v active="${active[*]}" -v na="$na" -v rowlabel="$rowlabel" '
        function flush(   i, id, n, m, v, row) {
            if (!started) return
            row = sprintf("%-10s", rowlabel != "" ? rowlabel : size)
            for (i = 1; i <= 3; i++) {
                id = ids[i]; n = cnt[id]
                if (n == 0) {
                    med[id] = ""
                    v = "-"
                    if (index(" " na " ", " " id " ")) v = "n/a"
                    else if (index(" " active " ", " " id " ")) v = "fail"
                    row = row sprintf("%12s", v)
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
            rows++
            delete cnt
        }
        BEGIN {
            ids[1] = "tern"; ids[2] = "openmpi"; ids[3] = "mpich"
            printf "%-10s%12s%12s%12s%12s%12s\n", rowlabel != "" ? "" : "Size (B)", "Tern", "Open MPI", "MPICH", "Tern/OMPI", "Tern/MPICH"
        }
        !started || $1 != size { flush(); size = $1; started = 1 }
        { vals[$2, ++cnt[$2]] = $3 }
        END {
            flush()
            if (!rows) {
                v = ""
                for (i = 1; i <= 3; i++)
                    if (index(" " na " ", " " ids[i] " ")) v = v " " ids[i]
                print v != "" ? "(no results; n/a:" v ")" : "(no results)"
            }
        }'
}

# The tables of one collective entry NAME:NP.
coll_tables() {
    local name=${1%%:*} np=${1#*:} k what
    k=$(key_of "$1")
    case $name in
    allreduce) what="MPI_Allreduce, MPI_FLOAT sum, size = whole vector" ;;
    bcast) what="MPI_Bcast from rank 0" ;;
    reduce) what="MPI_Reduce, MPI_FLOAT sum to rank 0, size = whole vector" ;;
    barrier) what="MPI_Barrier" ;;
    allgather) what="MPI_Allgather, size = block per rank" ;;
    alltoall) what="MPI_Alltoall, size = block per pair of ranks" ;;
    gather) what="MPI_Gather to rank 0, size = block per rank" ;;
    scatter) what="MPI_Scatter from rank 0, size = block per rank" ;;
    reduce_scatter) what="MPI_Reduce_scatter_block, MPI_FLOAT sum, size = block per rank" ;;
    scan) what="MPI_Scan, MPI_FLOAT sum, size = vector per rank" ;;
    iallreduce) what="MPI_Iallreduce overlapped with compute, MPI_FLOAT sum" ;;
    esac
    if [ "$name" = iallreduce ]; then
        table "$k" "$name, $np ranks: $what; overall time per call (average over ranks), us" 1 3
        table "$k" "$name, $np ranks: overlap of communication with compute, %" 0 8
    elif [ "$name" = barrier ]; then
        table "$k" "$name, $np ranks: $what; time per call (average over ranks), us" 1 3 barrier
    else
        table "$k" "$name, $np ranks: $what; time per call (average over ranks), us" 1 3
    fi
}

echo
echo "# Tern benchmark comparison: $(date -u '+%Y-%m-%d %H:%M UTC') on $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
for id in "${active[@]}"; do
    echo "# ${label[$id]}: ${run[$id]}${rargs[$id]:+ ${rargs[$id]}}${renv[$id]:+ (env: ${renv[$id]})}"
done
[ $quick = 1 ] && echo "# --quick: sizes up to 64 KiB, reduced iteration counts"
for b in $entries; do
    case $b in
    latency) table latency "latency: half round trip, us" 1 ;;
    bw) table bw "bw: unidirectional bandwidth, MB/s (1e6 B)" 0 ;;
    bibw) table bibw "bibw: bidirectional bandwidth, MB/s (1e6 B)" 0 ;;
    hello) table hello "hello: wall-clock of mpirun -np 2 ./hello, ms" 1 3 "wall ms" ;;
    *) coll_tables "$b" ;;
    esac
done
if [ $status != 0 ]; then
    echo
    echo "# Some builds or runs FAILED (see above); their medians use the runs that succeeded."
fi
exit $status
