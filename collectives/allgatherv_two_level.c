/*
 * Allgatherv in two levels: within each host, between hosts, within each
 * host again (node-aware; see nodes.h).
 *
 * Steps, every rank knowing every block's size from recvcounts: (1) the
 * ranks of each host send their blocks to the host's leader, which packs
 * them as bytes in host order (nodes.h; a Gatherv, since blocks differ in
 * size); (2) the leaders allgather the hosts' pieces among themselves (an
 * Allgatherv on h ranks, with the algorithm the automatic selection picks
 * for that many); (3) each leader broadcasts all the packed blocks to its
 * host along a binomial tree, and every rank copies them to their places
 * in its receive buffer. When ranks are placed host by host, the receive
 * type is contiguous and the blocks lie back to back in rank order, the
 * packed blocks are the receive buffer and nothing is copied.
 *
 * Cost, with h hosts of l ranks, N gathered bytes (alpha_s, beta_s within
 * a host, alpha_n, beta_n between hosts): l - 1 messages to the leader
 * (alpha_s + N / (h l) beta_s each on average), the flat allgatherv of
 * N / h bytes per host on h ranks over the network (the ring: (h - 1)
 * (alpha_n + N / h beta_n)), ceil(log2 l) (alpha_s + N beta_s) for the
 * broadcast and a copy of N bytes on every rank. As for Allgather
 * (allgather_two_level.c), h - 1 network rounds instead of the flat ring's
 * h l - 1, paid for by broadcasting the whole result within each host: the
 * choice for small results.
 */
#include "collectives/blocks.h"
#include "collectives/nodes.h"

/* (1) The host's blocks at the leader, in `piece`. */
static void within_host(struct tern_sched *s, const struct tern_coll_args *a,
                        const struct tern_coll_nodes *nd, const struct tern_coll_vblocks *v,
                        char *piece)
{
    int leader = nd->lrank == 0;
    struct tern_coll_args sub = *a;
    sub.kind = TERN_COLL_GATHERV;
    sub.root = 0;
    /* In place, this rank's block is its input; where the packed blocks
     * are the receive buffer the leader's block is already there. */
    if (a->sbuf == MPI_IN_PLACE && !(leader && v->in_buf)) {
        struct tern_coll_block mine = tern_coll_rblock(a, a->rank);
        sub.sbuf = mine.buf;
        sub.scount = mine.count;
        sub.sdt = mine.dt;
    }
    if (leader) {
        size_t *counts = tern_sched_scratch(s, 2 * (size_t)nd->nlocal * sizeof *counts);
        if (!counts)
            return;
        size_t *displs = counts + nd->nlocal;
        for (int i = 0; i < nd->nlocal; i++) {
            int r = nd->local[i];
            counts[i] = a->rcounts[r] * a->rdt->size;
            displs[i] = v->at[r] - v->at[nd->local[0]];
        }
        sub.rbuf = piece;
        sub.rcounts = counts;
        sub.rdispls = displs;
        sub.rdt = tern_dtype_get(MPI_BYTE);
    }
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_gatherv_linear);
}

void tern_coll_allgatherv_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    struct tern_coll_vblocks v;
    if (tern_coll_host_vblocks(s, nd, a->rbuf, a->rcounts, a->rdispls, a->rdt, &v) < 0 ||
        v.total == 0)
        return;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    within_host(s, a, nd, &v, v.packed + v.displs[nd->node]);
    tern_sched_round(s);

    /* (2) */
    struct tern_coll_args sub = *a;
    if (nd->lrank == 0) {
        sub.kind = TERN_COLL_ALLGATHERV;
        sub.sbuf = MPI_IN_PLACE;
        sub.rbuf = v.packed;
        sub.rcounts = v.counts;
        sub.rdispls = v.displs;
        sub.rdt = byte;
        tern_coll_phase(s, &sub, nd->leader, nd->nnodes, nd->node, NULL);
        tern_sched_round(s);
    }

    /* (3) */
    sub = *a;
    sub.kind = TERN_COLL_BCAST;
    sub.root = 0;
    sub.rbuf = v.packed;
    sub.rcount = v.total;
    sub.rdt = byte;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_bcast_binomial);
    tern_sched_round(s);
    tern_coll_host_vpermute(s, nd, &v, -1, 1);
}
