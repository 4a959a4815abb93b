/*
 * Gatherv in two levels: within each host, then between hosts (node-aware;
 * see nodes.h).
 *
 * Only the root knows the sizes of all blocks, and every other rank only
 * its own. Steps: (1) on the root's host, the ranks send their blocks
 * straight into the root's receive buffer (a Gatherv over the host's
 * ranks, with the root's counts and displacements); on every other host,
 * the ranks gather the sizes of their blocks at the leader, then send it
 * the blocks, which it packs back to back in the order of its ranks
 * (nodes.h, tern_coll_host_sizes); (2) the leaders send their host's piece
 * to the root (a Gatherv among one rank per host), which receives the
 * pieces as bytes in host order (nodes.h); (3) the root copies the blocks
 * of the other hosts to their places in its receive buffer. When ranks are
 * placed host by host, the receive type is contiguous and the blocks lie
 * back to back in rank order, the root receives the pieces straight into
 * its receive buffer and step (3) copies nothing.
 *
 * Cost, with h hosts of l ranks, N gathered bytes: on each host l - 1
 * messages of a size_t and l - 1 blocks to the leader (about 2 alpha_s +
 * N / h beta_s), then h - 1 messages of N / h bytes over the network to
 * the root (alpha_n + N / h beta_n each), then a copy of the N (h - 1) / h
 * bytes from other hosts at the root. The flat linear algorithm takes p - 1
 * messages at the root, (p - l) of them over the network; this one takes
 * h - 1 there, so it is the choice for small blocks. Ranks on the root's
 * host take no part in the exchange of sizes, so the root need not wait
 * for it.
 */
#include "collectives/nodes.h"

/* (1) and (2) at the leader of a host without the root, once the sizes of
 * its host's blocks arrived. */
static void gather_piece(struct tern_sched *s, const struct tern_coll_nodes *nd,
                         struct tern_coll_vhost *v)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    struct tern_coll_args sub = v->a;
    sub.root = 0;
    sub.rbuf = v->piece;
    sub.rcounts = v->counts;
    sub.rdispls = v->displs;
    sub.rdt = byte;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_gatherv_linear);
    tern_sched_round(s);
    sub = v->a;
    sub.root = nd->node_of[v->a.root];
    sub.sbuf = v->piece;
    sub.scount = v->total;
    sub.sdt = byte;
    tern_coll_phase(s, &sub, v->leaders, nd->nnodes, nd->node, tern_coll_gatherv_linear);
}

/* The root: its own host's blocks straight into its receive buffer, the
 * other hosts' pieces packed, then copied to their places. */
static void at_root(struct tern_sched *s, const struct tern_coll_args *a,
                    const struct tern_coll_nodes *nd, const int *leaders, int lroot)
{
    struct tern_coll_vblocks v;
    if (tern_coll_host_vblocks(s, nd, a->rbuf, a->rcounts, a->rdispls, a->rdt, &v) < 0 ||
        v.total == 0)
        return;
    struct tern_coll_args sub = *a;
    sub.root = lroot;
    sub.rcounts = tern_coll_local_entries(s, nd, a->rcounts);
    sub.rdispls = tern_coll_local_entries(s, nd, a->rdispls);
    if (!sub.rcounts || !sub.rdispls)
        return;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_gatherv_linear);

    /* The receives from other hosts need not wait for the root's host. */
    sub = *a;
    sub.root = nd->node;
    sub.sbuf = MPI_IN_PLACE;
    sub.rbuf = v.packed;
    sub.rcounts = v.counts;
    sub.rdispls = v.displs;
    sub.rdt = tern_dtype_get(MPI_BYTE);
    tern_coll_phase(s, &sub, leaders, nd->nnodes, nd->node, tern_coll_gatherv_linear);
    tern_sched_round(s);
    tern_coll_host_vpermute(s, nd, &v, nd->node, 1);
}

void tern_coll_gatherv_two_level(struct tern_sched *s, const struct tern_coll_args *a)
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
        /* On the root's host: the block goes straight to the root. */
        tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_gatherv_linear);
        return;
    }
    if (tern_coll_host_sizes(s, nd, a, leaders, a->scount * a->sdt->size, gather_piece) < 0 ||
        nd->lrank == 0)
        return;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_gatherv_linear);
}
