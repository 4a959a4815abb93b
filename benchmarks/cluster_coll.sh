#!/usr/bin/env bash
# The node-aware collectives on the test cluster (tests/cluster/cluster.sh:
# 3 network namespaces with an sshd each, on this one machine): Tern's
# two_level algorithm against Tern's flat choice, Open MPI and MPICH, 6 ranks,
# 2 per host, medians of R runs. docs/algorithms.md shows a run and says
# what such a cluster can and cannot show.
#
# Usage (as root, from the top build directory, after `make`):
#   bash SRCDIR/benchmarks/cluster_coll.sh [R]
# The Open MPI and MPICH builds of the benchmarks are made with
# mpicc.openmpi and mpicc.mpich when those exist; their columns read "-"
# otherwise.
#
# Every MPI runs unbound (--bind-to none: each "host" would bind its ranks
# to the same two cores) and yields when idle (TERN_WAIT=yield, Open MPI's
# mpi_yield_when_idle; MPICH has no such switch), since six ranks share two
# cores.
set -u
runs=${1:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
build=$PWD
cluster=$src/tests/cluster/cluster.sh
[ -x "$build/launcher/mpirun" ] || { echo "run from the build directory, after make" >&2; exit 2; }
export TERN_CLUSTER_ID=${TERN_CLUSTER_ID:-$$}
TERN_CLUSTER_OWNER=$$ "$cluster" up >/dev/null || exit 1
eval "$("$cluster" env)"
trap '"$cluster" down >/dev/null 2>&1; rm -rf "$work"' EXIT
work=$(mktemp -d)
benches="allreduce bcast reduce barrier allgather gather scatter alltoall reduce_scatter scan"
for b in $benches; do
    srcs="$src/benchmarks/coll_$b.c $src/benchmarks/coll_util.c $src/benchmarks/coll_verify.c $src/benchmarks/bench_util.c"
    command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$work/ompi_$b" $srcs
    command -v mpicc.mpich >/dev/null && mpicc.mpich -O2 -o "$work/mpich_$b" $srcs
done

in_h1() { timeout 120 "$cluster" exec h1 env HOME="$TERN_CLUSTER_HOME" "$@" 2>/dev/null; }
us() { grep -v '^test' | cut -d, -f3; }
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }
size_args() { [ -n "$1" ] && echo "-s $1"; }

tern() { # BENCH SIZE VAR ALGORITHM
    in_h1 "$build/launcher/mpirun" -np 6 --bind-to none --hostfile "$TERN_CLUSTER_HOSTFILE" \
        -x TERN_WAIT=yield -x "TERN_COLL_$3=$4" "$build/benchmarks/coll_$1" --csv $(size_args "$2") | us
}
ompi() {
    [ -x "$work/ompi_$1" ] || return
    in_h1 mpirun.openmpi --allow-run-as-root -np 6 --host h1:2,h2:2,h3:2 --bind-to none \
        --mca mpi_yield_when_idle 1 --mca btl tcp,self,vader --mca btl_tcp_if_include eth0 \
        --mca oob_tcp_if_include eth0 "$work/ompi_$1" --csv $(size_args "$2") | us
}
mpich() {
    [ -x "$work/mpich_$1" ] || return
    in_h1 mpiexec.mpich -launcher ssh -hosts h1:2,h2:2,h3:2 -n 6 \
        "$work/mpich_$1" --csv -T 0.3 $(size_args "$2") | us
}
repeat() { for _ in $(seq "$runs"); do "$@"; done | median; }

# row LABEL BENCH SIZE VAR FLAT_ALGORITHM
row() {
    echo "| $1 | $(repeat tern "$2" "$3" "$4" two_level) | $(repeat tern "$2" "$3" "$4" "$5") ($5)" \
         "| $(repeat ompi "$2" "$3") | $(repeat mpich "$2" "$3") |"
}

echo "# $(date -u '+%F %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs runs, us"
echo "| call | Tern two_level | Tern flat | Open MPI | MPICH |"
echo "|---|---|---|---|---|"
row Barrier barrier "" BARRIER dissemination
row "Allreduce 8 B" allreduce 8 ALLREDUCE recursive_doubling
row "Allreduce 64 KiB" allreduce 64K ALLREDUCE rabenseifner
row "Allreduce 1 MiB" allreduce 1M ALLREDUCE ring
row "Bcast 8 B" bcast 8 BCAST binomial
row "Bcast 64 KiB" bcast 64K BCAST binomial
row "Bcast 1 MiB" bcast 1M BCAST binomial
row "Reduce 8 B" reduce 8 REDUCE binomial
row "Reduce 64 KiB" reduce 64K REDUCE binomial
row "Reduce 1 MiB" reduce 1M REDUCE binomial
row "Allgather 8 B" allgather 8 ALLGATHER ring
row "Allgather 1 KiB" allgather 1K ALLGATHER ring
row "Allgather 8 KiB" allgather 8K ALLGATHER ring
row "Allgather 64 KiB" allgather 64K ALLGATHER ring
row "Gather 8 B" gather 8 GATHER binomial
row "Gather 1 KiB" gather 1K GATHER binomial
row "Gather 16 KiB" gather 16K GATHER linear
row "Scatter 8 B" scatter 8 SCATTER binomial
row "Scatter 1 KiB" scatter 1K SCATTER binomial
row "Scatter 16 KiB" scatter 16K SCATTER linear
row "Alltoall 8 B" alltoall 8 ALLTOALL linear
row "Alltoall 1 KiB" alltoall 1K ALLTOALL linear
row "Alltoall 16 KiB" alltoall 16K ALLTOALL linear
row "Reduce_scatter_block 8 B" reduce_scatter 8 REDUCE_SCATTER_BLOCK ring
row "Reduce_scatter_block 1 KiB" reduce_scatter 1K REDUCE_SCATTER_BLOCK ring
row "Reduce_scatter_block 8 KiB" reduce_scatter 8K REDUCE_SCATTER_BLOCK ring
row "Reduce_scatter_block 64 KiB" reduce_scatter 64K REDUCE_SCATTER_BLOCK ring
row "Scan 8 B" scan 8 SCAN recursive_doubling
row "Scan 8 KiB" scan 8K SCAN recursive_doubling
row "Scan 64 KiB" scan 64K SCAN chain
row "Scan 1 MiB" scan 1M SCAN chain
