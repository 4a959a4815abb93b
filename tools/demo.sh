#!/bin/sh
# The demo: builds a few MPI programs with Tern's mpicc and runs them, then
# runs the latency, bandwidth and collective benchmarks on local ranks.
# Usage: tools/demo.sh MPICC MPIRUN SRCDIR
set -eu
mpicc=$1 mpirun=$2 srcdir=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() { printf '\n== %s\n' "$*"; }

step "compiling with $mpicc"
"$mpicc" -show -O2 -o "$work/hello" "$srcdir/examples/hello.c"
for p in hello ring pi; do
    "$mpicc" -O2 -o "$work/$p" "$srcdir/examples/$p.c" -lm
done
for p in latency bw; do
    "$mpicc" -O2 -o "$work/$p" "$srcdir/benchmarks/$p.c" "$srcdir/benchmarks/bench_util.c"
done
for p in allreduce bcast; do
    "$mpicc" -O2 -o "$work/coll_$p" "$srcdir/benchmarks/coll_$p.c" \
        "$srcdir/benchmarks/coll_util.c" "$srcdir/benchmarks/coll_verify.c" \
        "$srcdir/benchmarks/bench_util.c"
done

step "mpirun -np 4 hello"
"$mpirun" -np 4 --oversubscribe "$work/hello"
step "mpirun -np 2 ring 10000"
"$mpirun" -np 2 "$work/ring" 10000
step "mpirun -np 8 ring 1000 (8 ranks on $(nproc) cores)"
"$mpirun" -np 8 --oversubscribe "$work/ring" 1000
step "mpirun -np 5 pi (Bcast, Reduce, Comm_split, Allreduce)"
"$mpirun" -np 5 --oversubscribe "$work/pi" 20000000
step "mpirun -np 2 latency"
"$mpirun" -np 2 "$work/latency" -m 0:1M
step "mpirun -np 2 bw"
"$mpirun" -np 2 "$work/bw" -m 1:4M
step "mpirun -np 3 pi over libfabric (TERN_TRANSPORTS=self,ofi: the best provider for ranks on one host)"
TERN_TRANSPORTS=self,ofi "$mpirun" -np 3 --oversubscribe --report-transports "$work/pi" 2000000
step "mpirun -np 2 coll_allreduce --verify"
"$mpirun" -np 2 "$work/coll_allreduce" --verify
step "mpirun -np 4 coll_bcast --verify (4 ranks on $(nproc) cores)"
"$mpirun" -np 4 --oversubscribe "$work/coll_bcast" --verify
printf '\ndemo finished\n'
