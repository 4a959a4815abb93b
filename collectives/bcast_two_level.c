/*
 * Bcast in two levels: between hosts, then within each host (node-aware;
 * see nodes.h).
 *
 * Steps: (1) the root broadcasts to one rank on each other host (the
 * leaders, the root standing for its own host), with the algorithm the
 * automatic selection picks for that many ranks; (2) on each host that
 * rank broadcasts to the others along a binomial tree. When the first
 * phase is a binomial tree, a rank sends to its host in the same round as
 * to other hosts, so the host's copies start without waiting for the
 * network's.
 *
 * Cost, with h hosts of l ranks (alpha_s, beta_s within a host, alpha_n,
 * beta_n between hosts): the flat bcast of n bytes on h ranks over the
 * network, then ceil(log2 l) (alpha_s + n beta_s). A flat binomial tree on
 * h * l ranks sends the message across the network up to h * l - 1 times
 * instead of h - 1, and puts network hops at several levels of its
 * critical path.
 */
#include "collectives/nodes.h"

void tern_coll_bcast_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    int *leaders = tern_coll_leaders(s, nd, a->root);
    if (!leaders)
        return;
    int lroot = tern_coll_local_root(nd, a->root);

    struct tern_coll_args sub = *a;
    if (nd->lrank == lroot) {
        sub.size = nd->nnodes;
        sub.root = nd->node_of[a->root];
        tern_coll_builder *b = tern_coll_choose(&sub)->build;
        tern_coll_phase(s, &sub, leaders, nd->nnodes, nd->node, b);
        /* A binomial tree has the whole message once it has received, and
         * only sends in its last round: the host's tree can start sending
         * in that round. Other algorithms receive until the end. */
        if (b != tern_coll_bcast_binomial)
            tern_sched_round(s);
    }
    sub = *a;
    sub.root = lroot;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_bcast_binomial);
}
