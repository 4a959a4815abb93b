#!/usr/bin/env bash
# A token ring (examples/ring.c) on more ranks than cores, side by side:
# Tern; Open MPI as `--oversubscribe` runs it (it then yields the core when
# idle) and as a hostfile that grants the slots runs it (`--host
# localhost:N`: it believes every rank has a core and busy-polls); MPICH;
# and the floor, benchmarks/ring_floor.c, N bare processes passing a token
# through a futex or sched_yield, which no MPI can beat.
#
# Each configuration runs R times, interleaved, and the table shows medians
# of the time per hop and each one's ratio to Tern's.
#
# Usage: benchmarks/oversub_ring.sh [--np N] [--runs R] [--laps L]
#   --np N    ranks (default 8)
#   --runs R  runs per configuration (default 5)
#   --laps L  laps of the token per run (default 2000; the busy-polling
#             configurations, Open MPI with granted slots and MPICH, run
#             L/20, since each hop there takes milliseconds)
# Environment: TERN_MPICC and TERN_MPIRUN (Tern's mpicc and mpirun; unset:
# Tern's row is skipped), OMPI_MPICC/OMPI_MPIRUN, MPICH_MPICC/MPICH_MPIRUN
# (defaults mpicc.openmpi, mpirun.openmpi, mpicc.mpich, mpirun.mpich), CC,
# BENCH_TIMEOUT (seconds per run, default 300).
set -u
srcdir=$(cd "$(dirname "$0")" && pwd)
np=8 runs=5 laps=2000
die() { echo "oversub_ring.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
    --np) np=${2:-}; shift ;;
    --runs) runs=${2:-}; shift ;;
    --laps) laps=${2:-}; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
    esac
    shift
done
for v in "$np" "$runs" "$laps"; do
    case "$v" in ''|*[!0-9]*|0) die "--np, --runs and --laps take positive integers" ;; esac
done
[ "$np" -ge 2 ] || die "--np must be at least 2"
slow_laps=$(( laps / 20 > 0 ? laps / 20 : 1 ))
timeout_s=${BENCH_TIMEOUT:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# Configurations: name, compiler, run command (the program and laps follow).
names=() cmds=()
add() {  # add NAME MPICC RUN...
    local name=$1 cc=$2
    shift 2
    command -v "$cc" >/dev/null 2>&1 || { echo "note: $cc not found; no '$name' row" >&2; return; }
    local exe="$work/ring.$(echo "$cc" | tr -c 'a-zA-Z0-9\n' _)"
    [ -x "$exe" ] || "$cc" -O2 -o "$exe" "$srcdir/../examples/ring.c" ||
        die "building examples/ring.c with $cc failed"
    names+=("$name")
    cmds+=("$* $exe")
}
if [ -n "${TERN_MPICC:-}" ] && [ -x "${TERN_MPIRUN:-}" ]; then
    add "Tern" "$TERN_MPICC" "$TERN_MPIRUN" -np "$np"
else
    echo "note: TERN_MPICC/TERN_MPIRUN not set; no Tern row" >&2
fi
ompi_run=${OMPI_MPIRUN:-mpirun.openmpi}
add "Open MPI --oversubscribe" "${OMPI_MPICC:-mpicc.openmpi}" "$ompi_run" --oversubscribe -np "$np"
add "Open MPI, slots granted" "${OMPI_MPICC:-mpicc.openmpi}" "$ompi_run" --host "localhost:$np" -np "$np"
add "MPICH" "${MPICH_MPICC:-mpicc.mpich}" "${MPICH_MPIRUN:-mpirun.mpich}" -np "$np"
${CC:-cc} -O2 -o "$work/ring_floor" "$srcdir/ring_floor.c" || die "building ring_floor.c failed"

# Busy-polling configurations get fewer laps.
laps_of() { case "$1" in "Open MPI, slots granted"|MPICH) echo "$slow_laps" ;; *) echo "$laps" ;; esac; }

declare -A res
for ((r = 1; r <= runs; r++)); do
    echo "oversub_ring.sh: round $r of $runs" >&2
    for i in "${!names[@]}"; do
        out=$(timeout "$timeout_s" ${cmds[$i]} "$(laps_of "${names[$i]}")" 2>&1)
        us=$(echo "$out" | sed -n 's/.*, \([0-9.]*\) us per hop.*/\1/p' | head -1)
        [ -n "$us" ] || { echo "$out" >&2; die "${names[$i]}: no 'us per hop' in the output"; }
        res["${names[$i]}"]+="$us "
    done
    for mode in futex yield; do
        out=$("$work/ring_floor" "$np" "$laps" $mode) || die "ring_floor failed: $out"
        res["floor ($mode)"]+="$(echo "$out" | sed -n 's/.*: \([0-9.]*\) us per hop/\1/p') "
    done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "== token ring of $np ranks on $(nproc) cores: us per hop, median of $runs runs (lower is better) =="
printf '%-28s %10s %12s\n' "" "us/hop" "x Tern"
tern=
[ -n "${res[Tern]:-}" ] && tern=$(echo "${res[Tern]}" | median)
for name in "${names[@]}" "floor (futex)" "floor (yield)"; do
    m=$(echo "${res[$name]}" | median)
    ratio=-
    [ -n "$tern" ] && ratio=$(awk -v a="$m" -v b="$tern" 'BEGIN { printf "%.2f", a / b }')
    printf '%-28s %10.2f %12s\n' "$name" "$m" "$ratio"
done
