#!/bin/bash
# Node-aware (two-level) collectives across the cluster. Barrier, Bcast,
# Reduce, Allreduce, Allgather, Allgatherv, Gather, Gatherv, Scatter,
# Scatterv, Alltoall, Reduce_scatter, Reduce_scatter_block, Scan and Exscan
# are forced to two_level
# (TERN_COLL_<NAME>=two_level; Scan and Exscan run it only where each
# host's ranks are neighbours, the first layout below)
# and checked by the collective test programs of tests/mpi (every size,
# type, op, root, in-place form, split and duplicated communicators,
# nonblocking calls, mismatched counts giving errors and not hangs, a rank
# that skips a call and goes on to MPI_Finalize or frees the communicator
# giving the others an error and not a hang), with
# the ranks placed
#   - 2 per host in blocks (ranks 0-1 on h1, 2-3 on h2, 4-5 on h3);
#   - 3, 2 and 2 per host round-robin (--map-by node: ranks 0, 3, 6 on h1),
#     so a host's ranks are not neighbours and hosts differ in size.
# The verbose log must show that two_level ran on MPI_COMM_WORLD, and the
# automatic choice must pick it there too (for Gather(v) and Scatter(v) it
# does only when a host's ranks are not neighbours, as here).
: "${TERN_TEST_TIMEOUT:=600}"
. "${srcdir:-.}/tests/cluster/lib.sh"

T=$PWD/tests/mpi
[ -x "$MPIRUN" ] || fail "no mpirun at $MPIRUN; build first"
printf 'h1 slots=3\nh2 slots=2\nh3 slots=2\n' >"$TMP/hf_uneven"
FORCE="-x TERN_COLL_BARRIER=two_level -x TERN_COLL_BCAST=two_level
       -x TERN_COLL_REDUCE=two_level -x TERN_COLL_ALLREDUCE=two_level
       -x TERN_COLL_ALLGATHER=two_level -x TERN_COLL_GATHER=two_level
       -x TERN_COLL_SCATTER=two_level -x TERN_COLL_ALLTOALL=two_level
       -x TERN_COLL_ALLGATHERV=two_level -x TERN_COLL_GATHERV=two_level
       -x TERN_COLL_SCATTERV=two_level
       -x TERN_COLL_REDUCE_SCATTER=two_level -x TERN_COLL_REDUCE_SCATTER_BLOCK=two_level
       -x TERN_COLL_SCAN=two_level -x TERN_COLL_EXSCAN=two_level"

# run_layout LABEL MPIRUN_OPTIONS...: the test programs, forced to two_level.
run_layout() {
    local label=$1 prog args out
    shift
    for prog in coll_suite_reduce coll_suite_rooted coll_suite_comms coll_suite_nb \
                coll_suite_allto coll_suite_rscan coll_all_algos coll_errors coll_suite_mismatch \
                "coll_rooted_algos 256K" "coll_reduce_algos 256K" \
                "coll_skip gather" "coll_skip barrier" "coll_skip allreduce" "coll_skip free"; do
        args=${prog#* }
        [ "$args" = "$prog" ] && args=
        prog=${prog%% *}
        out=$(run_mpirun "$@" $FORCE "$T/$prog" $args 2>"$TMP/err") ||
            fail "$prog ($label) failed: $out $(cat "$TMP/err")"
        printf '%s\n' "$out" | grep -q "^OK $prog" ||
            fail "$prog ($label) printed: $out $(cat "$TMP/err")"
        echo "PASS $prog${args:+ $args}, $label"
    done
}

# two_level_ran LABEL NP CALLS MPIRUN_OPTIONS...: rank 0's verbose log names
# two_level for each of the CALLS on all NP ranks.
CALLS="MPI_Barrier MPI_Bcast MPI_Reduce MPI_Allreduce MPI_Allgather MPI_Gather MPI_Scatter
      MPI_Alltoall MPI_Allgatherv MPI_Gatherv MPI_Scatterv"
two_level_ran() {
    local label=$1 np=$2 calls=$3 prog call
    shift 3
    : >"$TMP/verbose"
    for prog in coll_suite_comms coll_suite_reduce coll_suite_rooted coll_suite_rscan \
                coll_all_algos; do
        run_mpirun -np "$np" "$@" -x TERN_VERBOSE=2 "$T/$prog" >/dev/null 2>"$TMP/err" ||
            fail "$prog ($label, verbose) failed: $(tail -5 "$TMP/err")"
        cat "$TMP/err" >>"$TMP/verbose"
    done
    for call in $calls; do
        grep -q "rank 0 .*$call on $np ranks, [0-9]* bytes: two_level" "$TMP/verbose" ||
            fail "$label: no $call ran two_level on $np ranks: $(grep -m3 "$call on" "$TMP/verbose")"
    done
    echo "two_level ran ($label): $(grep -c 'bytes: two_level' "$TMP/verbose") calls"
}

run_layout "2 per host" -np 6 --hostfile "$TERN_CLUSTER_HOSTFILE"
check_clean
run_layout "3+2+2 round-robin" -np 7 --hostfile "$TMP/hf_uneven" --map-by node
check_clean
two_level_ran "forced, 2 per host" 6 "$CALLS MPI_Reduce_scatter MPI_Reduce_scatter_block
    MPI_Scan MPI_Exscan" --hostfile "$TERN_CLUSTER_HOSTFILE" $FORCE
two_level_ran "forced, 3+2+2 round-robin" 7 "$CALLS MPI_Reduce_scatter
    MPI_Reduce_scatter_block" --hostfile "$TMP/hf_uneven" --map-by node $FORCE
two_level_ran "automatic, 3+2+2 round-robin" 7 "$CALLS MPI_Reduce_scatter
    MPI_Reduce_scatter_block" --hostfile "$TMP/hf_uneven" --map-by node
finish
