/*
 * Barrier in two levels: within each host, between hosts, within each host
 * again (node-aware; see nodes.h).
 *
 * Steps: (1) every host's ranks report to its leader along a binomial tree
 * (a zero-byte message from each rank to its parent once all its children
 * reported); (2) the leaders run the dissemination barrier among
 * themselves; (3) each leader releases its host along a binomial tree
 * (zero-byte Bcast).
 *
 * Cost, with h hosts of l ranks (alpha_s within a host, alpha_n between
 * hosts): 2 ceil(log2 l) alpha_s + ceil(log2 h) alpha_n, against
 * ceil(log2 (h l)) rounds for a flat dissemination, most of whose messages
 * cross the network.
 */
#include "collectives/nodes.h"

/* Binomial fan-in towards rank 0 of the phase: v hears from its children
 * v + 2^j (for each 2^j below its lowest set bit), then tells its parent. */
static void fan_in(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    int p = a->size, v = a->rank, mask = 1;
    for (; mask < p && !(v & mask); mask <<= 1)
        if (v + mask < p)
            tern_sched_recv(s, NULL, 0, byte, v + mask);
    tern_sched_round(s);
    if (v > 0)
        tern_sched_send(s, NULL, 0, byte, v - mask);
}

void tern_coll_barrier_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    struct tern_coll_args sub = *a;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, fan_in);
    tern_sched_round(s);
    if (nd->lrank == 0) {
        tern_coll_phase(s, &sub, nd->leader, nd->nnodes, nd->node,
                        tern_coll_barrier_dissemination);
        tern_sched_round(s);
    }
    sub.kind = TERN_COLL_BCAST;
    sub.rbuf = NULL;
    sub.rcount = 0;
    sub.rdt = tern_dtype_get(MPI_BYTE);
    sub.root = 0;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_bcast_binomial);
}
