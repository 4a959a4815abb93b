/*
 * Gather in two levels: within each host, then between hosts (node-aware;
 * see nodes.h).
 *
 * Steps: (1) the ranks of each host gather their blocks at one rank of the
 * host (the root on its own host, the leader elsewhere), packed in host
 * order (nodes.h), with the algorithm the automatic selection picks for
 * that many ranks; (2) those ranks send their host's piece to the root
 * (a Gatherv, since hosts may hold different numbers of ranks); (3) the
 * root puts the blocks in rank order into its receive buffer. When ranks
 * are placed host by host and the receive type is contiguous, the root
 * gathers straight into its receive buffer and step (3) copies nothing.
 *
 * Cost, with h hosts of l ranks, n bytes per block: the gather on l ranks
 * within each host, then h - 1 messages of l n bytes to the root over the
 * network (alpha_n + l n beta_n each), then a copy of h l n bytes at the
 * root. A flat binomial tree on h l ranks puts network hops on several
 * levels of its critical path and relays blocks through ranks of other
 * hosts; the two-level one crosses the network once per host. For large
 * blocks the flat linear algorithm already sends every block once,
 * straight to the root, so this is the choice for small blocks.
 */
#include "collectives/nodes.h"

void tern_coll_gather_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    int root = a->rank == a->root;
    struct tern_coll_rooted r;
    size_t bytes = root ? a->rcount * a->rdt->size : a->scount * a->sdt->size;
    if (tern_coll_rooted_setup(s, nd, a, bytes, a->rbuf, a->rcount, a->rdt, &r) < 0)
        return;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);

    /* The root's input in place is its block of the receive buffer,
     * already where it belongs only when that buffer holds the packed
     * blocks. */
    struct tern_coll_args sub = *a;
    sub.root = r.lroot;
    if (root && a->sbuf == MPI_IN_PLACE && r.packed != a->rbuf) {
        sub.sbuf = tern_coll_elem(a->rbuf, (size_t)a->rank * a->rcount, a->rdt);
        sub.scount = a->rcount;
        sub.sdt = a->rdt;
    }
    sub.rbuf = r.piece;
    sub.rcount = bytes;
    sub.rdt = byte;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, NULL);
    /* The root's receives from other hosts need not wait for its host. */
    if (!root)
        tern_sched_round(s);

    if (nd->lrank == r.lroot) {
        sub = *a;
        sub.kind = TERN_COLL_GATHERV;
        sub.root = nd->node_of[a->root];
        sub.sbuf = root ? MPI_IN_PLACE : r.piece;
        sub.scount = (size_t)nd->nlocal * bytes;
        sub.sdt = byte;
        sub.rbuf = r.packed;
        sub.rcounts = r.counts;
        sub.rdispls = r.displs;
        sub.rdt = byte;
        tern_coll_phase(s, &sub, r.leaders, nd->nnodes, nd->node, tern_coll_gatherv_linear);
        tern_sched_round(s);
    }
    if (root)
        tern_coll_host_permute(s, nd, a->rbuf, a->rcount, a->rdt, r.packed, 1);
}
