/*
 * The neighbourhood collectives (MPI_Neighbor_allgather, _allgatherv,
 * _alltoall, _alltoallv, _alltoallw) over the neighbours of the
 * communicator's process topology (libmpi/core/topo.h lists them in the
 * standard's order).
 *
 * Steps: one round: a send of block k (blocks.h) to out-neighbour k and a
 * receive of block k from in-neighbour k, for every k, all in flight at
 * once; MPI_PROC_NULL neighbours (the edges of a non-periodic grid) are
 * skipped, and their receive blocks are left alone.
 *
 * Matching: messages between two ranks match in the order they were
 * posted (sched.h), which is right as long as both sides list each other
 * in the same order. A Cartesian grid is the exception: in a periodic
 * dimension of 1 or 2 processes, the neighbour below and the one above
 * are the same process, and what a rank sends downwards must land in the
 * receiver's block for its neighbour above. So per dimension the send
 * upwards is posted first: the receiver's first receive of the dimension,
 * from below, then takes it.
 *
 * Cost: alpha + max(indegree, outdegree) n beta if the network carries the
 * messages at once (about d (alpha' + n beta) otherwise).
 */
#include "collectives/algo.h"
#include "collectives/blocks.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/topo.h"

void tern_coll_neighbor_linear(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_topo *t = a->comm->topo;
    int nin, nout;
    tern_topo_neighbors(t, a->rank, &nin, NULL, &nout, NULL);
    int *in = tern_sched_scratch(s, ((size_t)nin + (size_t)nout) * sizeof(int) + 1);
    if (!in)
        return;
    int *out = in + nin;
    tern_topo_neighbors(t, a->rank, &nin, in, &nout, out);
    for (int i = 0; i < nout; i++) {
        int k = t->kind == MPI_CART ? i ^ 1 : i;
        if (out[k] == MPI_PROC_NULL)
            continue;
        struct tern_coll_block b = tern_coll_sblock(a, k);
        tern_sched_send(s, b.buf, b.count, b.dt, out[k]);
    }
    for (int k = 0; k < nin; k++) {
        if (in[k] == MPI_PROC_NULL)
            continue;
        struct tern_coll_block b = tern_coll_rblock(a, k);
        tern_sched_recv(s, b.buf, b.count, b.dt, in[k]);
    }
}
