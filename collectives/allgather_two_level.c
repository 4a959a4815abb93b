/*
 * Allgather in two levels: within each host, between hosts, within each
 * host again (node-aware; see nodes.h).
 *
 * Steps: (1) the ranks of each host gather their blocks at the host's
 * leader, packed in host order (nodes.h), with the algorithm the automatic
 * selection picks for that many ranks; (2) the leaders allgather the
 * hosts' pieces among themselves (an Allgatherv, since hosts may hold
 * different numbers of ranks); (3) each leader puts the blocks in rank
 * order into its receive buffer and broadcasts it to its host along a
 * binomial tree. When ranks are placed host by host and the receive type
 * is contiguous, the packed blocks are the receive buffer and step (3)
 * copies nothing.
 *
 * Cost, with h hosts of l ranks, n bytes per block (alpha_s, beta_s within
 * a host, alpha_n, beta_n between hosts): the gather on l ranks, the flat
 * allgatherv of l n bytes per host on h ranks over the network (h - 1
 * rounds for the ring), then ceil(log2 l) (alpha_s + h l n beta_s) for
 * the broadcast. A flat ring on h l ranks takes h l - 1 rounds, every one
 * paced by the network; the two-level one takes h - 1 network rounds but
 * broadcasts the whole result within each host, so it is the choice for
 * small blocks.
 */
#include "collectives/blocks.h"
#include "collectives/nodes.h"

void tern_coll_allgather_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    size_t bytes = a->rcount * a->rdt->size;
    int leader = nd->lrank == 0;
    if (bytes == 0)
        return;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    char *packed = NULL;
    size_t *counts = NULL, *displs = NULL;
    if (leader) {
        packed = tern_coll_host_packed(s, nd, a->rbuf, a->rcount, a->rdt);
        if (!packed || tern_coll_host_pieces(s, nd, bytes, &counts, &displs) < 0)
            return;
    }

    /* In place, this rank's block is its input; where the packed blocks
     * are the receive buffer the leader's block is already there. */
    struct tern_coll_args sub = *a;
    sub.kind = TERN_COLL_GATHER;
    sub.root = 0;
    if (a->sbuf == MPI_IN_PLACE && !(leader && packed == a->rbuf)) {
        struct tern_coll_block mine = tern_coll_rblock(a, a->rank);
        sub.sbuf = mine.buf;
        sub.scount = mine.count;
        sub.sdt = mine.dt;
    }
    sub.rbuf = leader ? packed + displs[nd->node] : NULL;
    sub.rcount = bytes;
    sub.rdt = byte;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, NULL);
    tern_sched_round(s);

    if (leader) {
        sub = *a;
        sub.kind = TERN_COLL_ALLGATHERV;
        sub.sbuf = MPI_IN_PLACE;
        sub.rbuf = packed;
        sub.rcounts = counts;
        sub.rdispls = displs;
        sub.rdt = byte;
        tern_coll_phase(s, &sub, nd->leader, nd->nnodes, nd->node, NULL);
        tern_sched_round(s);
        tern_coll_host_permute(s, nd, a->rbuf, a->rcount, a->rdt, packed, 1);
        tern_sched_round(s);
    }

    sub = *a;
    sub.kind = TERN_COLL_BCAST;
    sub.root = 0;
    sub.rcount = a->rcount * (size_t)a->size;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_bcast_binomial);
}
