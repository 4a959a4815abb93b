/*
 * Scatterv in two levels: between hosts, then within each host (node-aware;
 * see nodes.h).
 *
 * Only the root knows the sizes of all blocks, and every other rank only
 * its own. Steps: (1) the root packs the blocks of the other hosts as
 * bytes in host order (nodes.h) and sends each host's piece to its leader
 * (a Scatterv among one rank per host), while it sends the blocks of its
 * own host straight from its send buffer (a Scatterv over the host's
 * ranks, with the root's counts and displacements); (2) meanwhile, on
 * every other host, the ranks gather the sizes of their blocks at the
 * leader (nodes.h, tern_coll_host_sizes), which then receives its host's
 * piece and sends each rank its block (a Scatterv over the host's ranks).
 * When ranks are placed host by host, the send type is contiguous and the
 * blocks lie back to back in rank order, the root sends the pieces
 * straight from its send buffer and packs nothing.
 *
 * Cost, with h hosts of l ranks, N scattered bytes: a copy of the
 * N (h - 1) / h bytes for other hosts at the root, h - 1 messages of N / h
 * bytes over the network (alpha_n + N / h beta_n each), then on each host
 * l - 1 blocks from the leader (alpha_s + N / (h l) beta_s each); the
 * exchange of sizes (l - 1 messages of a size_t) overlaps the root's
 * sends. The flat linear algorithm sends p - 1 messages from the root,
 * (p - l) of them over the network; this one sends h - 1 there, so it is
 * the choice for small blocks.
 */
#include "collectives/nodes.h"

/* (2) at the leader of a host without the root, once the sizes of its
 * host's blocks arrived. */
static void scatter_piece(struct tern_sched *s, const struct tern_coll_nodes *nd,
                          struct tern_coll_vhost *v)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    struct tern_coll_args sub = v->a;
    sub.root = nd->node_of[v->a.root];
    sub.rbuf = v->piece;
    sub.rcount = v->total;
    sub.rdt = byte;
    tern_coll_phase(s, &sub, v->leaders, nd->nnodes, nd->node, tern_coll_scatterv_linear);
    tern_sched_round(s);
    sub = v->a;
    sub.root = 0;
    sub.sbuf = v->piece;
    sub.scounts = v->counts;
    sub.sdispls = v->displs;
    sub.sdt = byte;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_scatterv_linear);
}

/* (1) at the root. */
static void at_root(struct tern_sched *s, const struct tern_coll_args *a,
                    const struct tern_coll_nodes *nd, const int *leaders, int lroot)
{
    struct tern_coll_vblocks v;
    void *in = (void *)a->sbuf;
    if (tern_coll_host_vblocks(s, nd, in, a->scounts, a->sdispls, a->sdt, &v) < 0 ||
        v.total == 0)
        return;
    tern_coll_host_vpermute(s, nd, &v, nd->node, 0);
    tern_sched_round(s);
    struct tern_coll_args sub = *a;
    sub.root = nd->node;
    sub.sbuf = v.packed;
    sub.scounts = v.counts;
    sub.sdispls = v.displs;
    sub.sdt = tern_dtype_get(MPI_BYTE);
    sub.rbuf = MPI_IN_PLACE;
    tern_coll_phase(s, &sub, leaders, nd->nnodes, nd->node, tern_coll_scatterv_linear);

    /* In place, the root's block stays in its send buffer. */
    sub = *a;
    sub.root = lroot;
    sub.scounts = tern_coll_local_entries(s, nd, a->scounts);
    sub.sdispls = tern_coll_local_entries(s, nd, a->sdispls);
    if (!sub.scounts || !sub.sdispls)
        return;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_scatterv_linear);
}

void tern_coll_scatterv_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    int lroot = tern_coll_local_root(nd, a->root);
    int *leaders = tern_coll_leaders(s, nd, a->root);
    if (!leaders)
        return;
    if (a->rank == a->root) {
        at_root(s, a, nd, leaders, lroot);
        return;
    }
    struct tern_coll_args sub = *a;
    sub.root = lroot;
    if (nd->node_of[a->root] == nd->node) {
        /* On the root's host: the block comes straight from the root. */
        tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_scatterv_linear);
        return;
    }
    if (tern_coll_host_sizes(s, nd, a, leaders, a->rcount * a->rdt->size, scatter_piece) < 0 ||
        nd->lrank == 0)
        return;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_scatterv_linear);
}
