/*
 * Barrier on an intercommunicator.
 *
 * Steps: the dissemination barrier (barrier_dissemination.c) over all the
 * processes of both groups: no process leaves before every process of
 * either group has entered, which is more than the standard asks (no
 * process of one group leaves before all of the other entered).
 *
 * Cost: ceil(log2 (nA + nB)) rounds of one message each way.
 */
#include "collectives/inter.h"
#include "libmpi/core/comm.h"

void tern_coll_inter_barrier(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct tern_coll_args sub = *a;
    sub.comm = a->comm->both;
    sub.size = sub.comm->size;
    sub.rank = sub.comm->rank;
    tern_coll_barrier_dissemination(s, &sub);
}
