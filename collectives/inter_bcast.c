/*
 * Bcast on an intercommunicator.
 *
 * Steps: the root sends the message to rank 0 of the other group, which
 * broadcasts it there along a binomial tree (bcast_binomial.c). The rest
 * of the root's group does nothing.
 *
 * Cost: alpha + n beta, then ceil(log2 nB) (alpha + n beta) in the
 * receiving group of nB processes.
 */
#include "collectives/inter.h"

void tern_coll_inter_bcast(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct tern_coll_inter v;
    if (a->root == MPI_PROC_NULL || tern_coll_inter_view(s, a, &v))
        return;
    if (a->root == MPI_ROOT) {
        tern_sched_send(s, a->rbuf, a->rcount, a->rdt, v.remote[0]);
        return;
    }
    if (v.me == 0) {
        tern_sched_recv(s, a->rbuf, a->rcount, a->rdt, v.remote[a->root]);
        tern_sched_round(s);
    }
    struct tern_coll_args sub = *a;
    sub.root = 0;
    tern_coll_inter_phase(s, &sub, &v, tern_coll_bcast_binomial);
}
