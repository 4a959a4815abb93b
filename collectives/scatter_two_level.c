/*
 * Scatter in two levels: between hosts, then within each host (node-aware;
 * see nodes.h).
 *
 * Steps: (1) the root packs the blocks in host order (nodes.h); (2) it
 * sends each other host's piece to one rank there, the leader (a
 * Scatterv, since hosts may hold different numbers of ranks); (3) on each
 * host that rank, or the root on its own host, scatters the blocks to the
 * host's ranks with the algorithm the automatic selection picks for that
 * many ranks. When ranks are placed host by host and the send type is
 * contiguous, the root sends straight from its send buffer and step (1)
 * copies nothing.
 *
 * Cost, with h hosts of l ranks, n bytes per block: a copy of h l n bytes
 * at the root, h - 1 messages of l n bytes over the network (alpha_n +
 * l n beta_n each), then the scatter on l ranks within each host. As for
 * Gather (gather_two_level.c), the flat binomial tree crosses the network
 * on several levels and the flat linear algorithm sends every block once,
 * so this is the choice for small blocks.
 */
#include "collectives/nodes.h"

void tern_coll_scatter_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    int root = a->rank == a->root;
    struct tern_coll_rooted r;
    size_t bytes = root ? a->scount * a->sdt->size : a->rcount * a->rdt->size;
    void *in = (void *)a->sbuf;
    if (tern_coll_rooted_setup(s, nd, a, bytes, in, a->scount, a->sdt, &r) < 0)
        return;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    if (root) {
        tern_coll_host_permute(s, nd, in, a->scount, a->sdt, r.packed, 0);
        tern_sched_round(s);
    }

    struct tern_coll_args sub = *a;
    if (nd->lrank == r.lroot) {
        sub.kind = TERN_COLL_SCATTERV;
        sub.root = nd->node_of[a->root];
        sub.sbuf = r.packed;
        sub.scounts = r.counts;
        sub.sdispls = r.displs;
        sub.sdt = byte;
        sub.rbuf = root ? MPI_IN_PLACE : r.piece;
        sub.rcount = (size_t)nd->nlocal * bytes;
        sub.rdt = byte;
        tern_coll_phase(s, &sub, r.leaders, nd->nnodes, nd->node, tern_coll_scatterv_linear);
        /* The root's own host need not wait for the other hosts. */
        if (!root)
            tern_sched_round(s);
    }

    /* In place, the root's block stays in its send buffer. */
    sub = *a;
    sub.root = r.lroot;
    sub.sbuf = r.piece;
    sub.scount = bytes;
    sub.sdt = byte;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, NULL);
}
