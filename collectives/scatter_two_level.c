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
    int root = a->rank == a->root, lroot = tern_coll_local_root(nd, a->root);
    int scatters = nd->lrank == lroot;
    size_t bytes = root ? a->scount * a->sdt->size : a->rcount * a->rdt->size;
    int *leaders = tern_coll_leaders(s, nd, a->root);
    if (bytes == 0 || !leaders)
        return;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    size_t nhost = (size_t)nd->nlocal * bytes;
    char *packed = NULL, *piece = NULL;
    size_t *counts = NULL, *displs = NULL;
    if (root) {
        packed = tern_coll_host_packed(s, nd, (void *)a->sbuf, a->scount, a->sdt);
        if (!packed || tern_coll_host_pieces(s, nd, bytes, &counts, &displs) < 0)
            return;
        tern_coll_host_permute(s, nd, (void *)a->sbuf, a->scount, a->sdt, packed, 0);
        tern_sched_round(s);
        piece = packed + displs[nd->node];
    } else if (scatters) {
        piece = tern_sched_scratch(s, nhost);
        if (!piece)
            return;
    }

    struct tern_coll_args sub = *a;
    if (scatters) {
        sub.kind = TERN_COLL_SCATTERV;
        sub.root = nd->node_of[a->root];
        sub.sbuf = packed;
        sub.scounts = counts;
        sub.sdispls = displs;
        sub.sdt = byte;
        sub.rbuf = root ? MPI_IN_PLACE : piece;
        sub.rcount = nhost;
        sub.rdt = byte;
        tern_coll_phase(s, &sub, leaders, nd->nnodes, nd->node, tern_coll_scatterv_linear);
        tern_sched_round(s);
    }

    /* In place, the root's block stays in its send buffer. */
    sub = *a;
    sub.root = lroot;
    sub.sbuf = piece;
    sub.scount = bytes;
    sub.sdt = byte;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, NULL);
}
