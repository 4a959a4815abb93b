/*
 * Reduce in two levels: within each host, then between hosts (node-aware;
 * see nodes.h).
 *
 * Steps: (1) the ranks of each host reduce their vectors along a binomial
 * tree to one rank of the host (the root on its own host, the leader
 * elsewhere); (2) those ranks reduce the hosts' results to the root, with
 * the algorithm the automatic selection picks for that many ranks. Ranks
 * other than the root that gather their host's result do it in scratch.
 *
 * Cost, with h hosts of l ranks (alpha_s, beta_s within a host, alpha_n,
 * beta_n between hosts, gamma per byte reduced): ceil(log2 l) (alpha_s +
 * n beta_s + n gamma), plus the flat reduce of n bytes on h ranks over the
 * network; only h - 1 vectors cross the network against up to h * l - 1
 * for a flat tree. Commutative ops only: the hosts group the operands.
 */
#include "collectives/nodes.h"

void tern_coll_reduce_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    int *leaders = tern_coll_leaders(s, nd, a->root);
    if (!leaders)
        return;
    int lroot = tern_coll_local_root(nd, a->root);
    int root = a->rank == a->root, gathers = nd->lrank == lroot;

    /* A rank that gathers its host's result for another host's root does
     * it in scratch. */
    struct tern_coll_args sub = *a;
    sub.root = lroot;
    if (gathers && !root)
        sub.rbuf = tern_sched_scratch_typed(s, a->rcount, a->rdt);
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_reduce_binomial);
    tern_sched_round(s);

    if (gathers) {
        void *host_result = sub.rbuf;
        sub = *a;
        sub.root = nd->node_of[a->root];
        sub.sbuf = root ? MPI_IN_PLACE : host_result;
        tern_coll_phase(s, &sub, leaders, nd->nnodes, nd->node, NULL);
    }
}
