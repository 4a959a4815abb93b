/*
 * Allreduce on an intercommunicator: each group gets the reduction of the
 * other group's inputs.
 *
 * Steps: each group reduces its inputs to its rank 0 along a binomial tree
 * (reduce_binomial.c, which keeps the ranks' order for a non-commutative
 * op); the two ranks 0 swap their results; each broadcasts what it got
 * within its group along a binomial tree (bcast_binomial.c).
 *
 * Cost, groups of nA and nB processes, n bytes: ceil(log2 max(nA, nB))
 * (alpha + n beta + n gamma), alpha + n beta for the swap, and
 * ceil(log2 max(nA, nB)) (alpha + n beta) for the broadcasts.
 */
#include "collectives/inter.h"

void tern_coll_inter_allreduce(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct tern_coll_inter v;
    if (tern_coll_inter_view(s, a, &v))
        return;
    void *mine;
    if (tern_coll_inter_reduce_local(s, a, &v, a->rcount, &mine))
        return;
    if (v.me == 0) {
        tern_sched_send(s, mine, a->rcount, a->rdt, v.remote[0]);
        tern_sched_recv(s, a->rbuf, a->rcount, a->rdt, v.remote[0]);
        tern_sched_round(s);
    }
    struct tern_coll_args sub = *a;
    sub.kind = TERN_COLL_BCAST;
    sub.root = 0;
    tern_coll_inter_phase(s, &sub, &v, tern_coll_bcast_binomial);
}
