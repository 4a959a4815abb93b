/*
 * Reduce_scatter and Reduce_scatter_block in two levels: within each
 * host, between hosts, then within each host again (node-aware; see
 * nodes.h).
 *
 * The vector is made of p blocks, block i (recvcounts[i] elements, or
 * recvcount for the block form) being the result rank i receives.
 *
 * Steps: (1) the ranks of each host reduce their whole vectors to the
 * host's leader along a binomial tree; (2) the leaders reduce-scatter the
 * hosts' results among themselves, host k receiving the blocks of its own
 * ranks, with the algorithm the automatic selection picks for that many
 * ranks (when a host's ranks are not neighbours, each leader first copies
 * the blocks into host order, nodes.h); (3) each leader scatters its
 * host's blocks to the host's ranks.
 *
 * Cost, with h hosts of l ranks, N elements in the vector (alpha_s, beta_s
 * within a host, alpha_n, beta_n between hosts, gamma per byte reduced):
 * ceil(log2 l) (alpha_s + N beta_s + N gamma), plus the flat reduce-scatter
 * of N on h ranks over the network (the ring: (h - 1) (alpha_n +
 * N / h beta_n)), plus l - 1 messages of N / (h l) within the host. A flat
 * ring on h l ranks takes h l - 1 steps, most of which cross the network;
 * this one takes h - 1 there but reduces the whole vector within each
 * host, so it is the choice for short vectors. Commutative ops only: the
 * hosts group the operands.
 */
#include "collectives/nodes.h"

/* Offsets of the blocks in rank order: off[r] for rank r, off[p] = N. */
static size_t *offsets(struct tern_sched *s, const struct tern_coll_args *a)
{
    size_t *off = tern_sched_scratch(s, (size_t)(a->size + 1) * sizeof *off);
    if (!off)
        return NULL;
    off[0] = 0;
    for (int r = 0; r < a->size; r++)
        off[r + 1] = off[r] + tern_coll_rs_block(a, r);
    return off;
}

/* The leaders' phase: the reduced vector `vec`, in rank order, copied into
 * host order unless it is in that order already, then reduce-scattered
 * among the leaders into `piece` (this host's blocks). */
static void between_hosts(struct tern_sched *s, const struct tern_coll_args *a,
                          const struct tern_coll_nodes *nd, const size_t *off, void *vec,
                          void *piece)
{
    const struct tern_dtype *dt = a->rdt;
    int h = nd->nnodes;
    size_t *counts = tern_sched_scratch(s, (size_t)h * sizeof *counts);
    if (!counts)
        return;
    for (int k = 0; k < h; k++)
        counts[k] = 0;
    for (int r = 0; r < a->size; r++)
        counts[nd->node_of[r]] += tern_coll_rs_block(a, r);
    void *ordered = vec;
    if (!nd->host_ordered) {
        ordered = tern_sched_scratch_typed(s, off[a->size], dt);
        if (!ordered)
            return;
        int *by_pos = tern_sched_scratch(s, (size_t)a->size * sizeof *by_pos);
        if (!by_pos)
            return;
        for (int r = 0; r < a->size; r++)
            by_pos[nd->pos[r]] = r;
        size_t at = 0;
        for (int q = 0; q < a->size; q++) {
            int r = by_pos[q];
            tern_sched_copy(s, tern_coll_elem(vec, off[r], dt), tern_coll_rs_block(a, r), dt,
                            tern_coll_elem(ordered, at, dt), tern_coll_rs_block(a, r), dt);
            at += tern_coll_rs_block(a, r);
        }
    }
    struct tern_coll_args sub = *a;
    sub.kind = TERN_COLL_REDUCE_SCATTER;
    sub.sbuf = ordered;
    sub.rbuf = piece;
    sub.rcounts = counts;
    tern_coll_phase(s, &sub, nd->leader, h, nd->node, NULL);
}

void tern_coll_reduce_scatter_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    const struct tern_dtype *dt = a->rdt;
    int leader = nd->lrank == 0, l = nd->nlocal;
    size_t *off = offsets(s, a);
    /* This host's blocks, in the order of its ranks, for the scatter. */
    size_t *counts = tern_sched_scratch(s, 2 * (size_t)l * sizeof *counts);
    if (!off || !counts)
        return;
    size_t *displs = counts + l, mine = 0;
    for (int i = 0; i < l; i++) {
        counts[i] = tern_coll_rs_block(a, nd->local[i]);
        displs[i] = mine;
        mine += counts[i];
    }
    size_t total = off[a->size];

    /* (1) In place the input is the whole vector in recvbuf. */
    struct tern_coll_args sub = *a;
    sub.kind = TERN_COLL_REDUCE;
    sub.root = 0;
    sub.sbuf = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    sub.scount = sub.rcount = total;
    sub.sdt = dt;
    void *piece = NULL;
    if (leader) {
        sub.rbuf = tern_sched_scratch_typed(s, total, dt);
        piece = tern_sched_scratch_typed(s, mine, dt);
        if (!sub.rbuf || !piece)
            return;
    }
    tern_coll_phase(s, &sub, nd->local, l, nd->lrank, tern_coll_reduce_binomial);
    tern_sched_round(s);

    /* (2) */
    if (leader) {
        between_hosts(s, a, nd, off, sub.rbuf, piece);
        tern_sched_round(s);
    }

    /* (3) The result goes to the start of recvbuf, in place or not. */
    sub = *a;
    sub.kind = TERN_COLL_SCATTERV;
    sub.root = 0;
    sub.sbuf = piece;
    sub.scounts = counts;
    sub.sdispls = displs;
    sub.sdt = dt;
    sub.rcount = tern_coll_rs_block(a, a->rank);
    tern_coll_phase(s, &sub, nd->local, l, nd->lrank, tern_coll_scatterv_linear);
}
