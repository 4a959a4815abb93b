/*
 * Allreduce in two levels: within each host, then between hosts
 * (node-aware; see nodes.h).
 *
 * Steps: (1) the ranks of each host reduce their vectors to the host's
 * leader along a binomial tree; (2) the leaders allreduce the hosts'
 * results among themselves, with the algorithm the automatic selection
 * picks for that many ranks; (3) each leader broadcasts the result to its
 * host along a binomial tree. The leader works in recvbuf throughout.
 *
 * Cost, with h hosts of l ranks, alpha_s and beta_s within a host (shared
 * memory), alpha_n and beta_n between hosts, gamma per byte reduced:
 * 2 ceil(log2 l) (alpha_s + n beta_s) + ceil(log2 l) n gamma, plus the flat
 * allreduce of n bytes on h ranks over the network. A flat algorithm on
 * h * l ranks sends about l times as many messages across the network and
 * has more ranks wait on them; the two-level one pays the host's tree
 * twice, which is cheap where shared memory is much faster than the
 * network. Results are the same bits on every rank (the leaders' result is
 * broadcast). Commutative ops only: the hosts group the operands.
 */
#include "collectives/nodes.h"

void tern_coll_allreduce_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    int leader = nd->lrank == 0;

    /* Reduce allows MPI_IN_PLACE only at the root: elsewhere the input is
     * named directly. */
    struct tern_coll_args sub = *a;
    sub.kind = TERN_COLL_REDUCE;
    sub.root = 0;
    if (a->sbuf == MPI_IN_PLACE && !leader)
        sub.sbuf = a->rbuf;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_reduce_binomial);
    tern_sched_round(s);

    if (leader) {
        sub = *a;
        sub.sbuf = MPI_IN_PLACE;
        tern_coll_phase(s, &sub, nd->leader, nd->nnodes, nd->node, NULL);
        tern_sched_round(s);
    }

    sub = *a;
    sub.kind = TERN_COLL_BCAST;
    sub.root = 0;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, tern_coll_bcast_binomial);
}
