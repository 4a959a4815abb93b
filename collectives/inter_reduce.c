/*
 * Reduce on an intercommunicator.
 *
 * Steps: the group without the root reduces its inputs to its rank 0 along
 * a binomial tree (reduce_binomial.c, which keeps the ranks' order for a
 * non-commutative op), and that rank sends the result to the root. The
 * rest of the root's group does nothing.
 *
 * Cost: ceil(log2 nA) (alpha + n beta + n gamma) in the sending group of
 * nA processes, then alpha + n beta.
 */
#include "collectives/inter.h"

void tern_coll_inter_reduce(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct tern_coll_inter v;
    if (a->root == MPI_PROC_NULL || tern_coll_inter_view(s, a, &v))
        return;
    if (a->root == MPI_ROOT) {
        tern_sched_recv(s, a->rbuf, a->rcount, a->rdt, v.remote[0]);
        return;
    }
    void *mine;
    if (tern_coll_inter_reduce_local(s, a, &v, a->rcount, &mine))
        return;
    if (v.me == 0)
        tern_sched_send(s, mine, a->rcount, a->rdt, v.remote[a->root]);
}
