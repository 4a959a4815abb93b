/*
 * What the intercommunicator collectives share (inter.h): the two groups'
 * ranks in the communicator over both, phases within one group, and the
 * builder of each collective.
 */
#include "collectives/inter.h"
#include "collectives/nodes.h"
#include "libmpi/core/comm.h"

int tern_coll_inter_view(struct tern_sched *s, const struct tern_coll_args *a,
                         struct tern_coll_inter *v)
{
    const struct tern_comm *c = a->comm;
    v->nlocal = c->size;
    v->nremote = c->remote->size;
    v->me = c->rank;
    v->local = tern_sched_scratch(s, sizeof(int) * (size_t)v->nlocal);
    v->remote = tern_sched_scratch(s, sizeof(int) * (size_t)v->nremote);
    if (!v->local || !v->remote)
        return -1;
    /* intercomm.c puts first the group whose rank 0 has the lower world
     * rank. */
    int local_first = c->both->world[0] == c->world[0];
    for (int i = 0; i < v->nlocal; i++)
        v->local[i] = local_first ? i : v->nremote + i;
    for (int j = 0; j < v->nremote; j++)
        v->remote[j] = local_first ? v->nlocal + j : j;
    return 0;
}

void tern_coll_inter_phase(struct tern_sched *s, struct tern_coll_args *sub,
                           const struct tern_coll_inter *v, tern_coll_builder *b)
{
    sub->comm = sub->comm->both;
    tern_coll_phase(s, sub, v->local, v->nlocal, v->me, b);
}

int tern_coll_inter_reduce_local(struct tern_sched *s, const struct tern_coll_args *a,
                                 const struct tern_coll_inter *v, size_t n, void **out)
{
    struct tern_coll_args sub = *a;
    sub.kind = TERN_COLL_REDUCE;
    sub.root = 0;
    sub.rcount = n;
    sub.rbuf = v->me == 0 ? tern_sched_scratch_typed(s, n, a->rdt) : NULL;
    if (v->me == 0 && !sub.rbuf)
        return -1;
    tern_coll_inter_phase(s, &sub, v, tern_coll_reduce_binomial);
    tern_sched_round(s);
    *out = sub.rbuf;
    return 0;
}

tern_coll_builder *tern_coll_inter_builder(enum tern_coll_kind kind)
{
    switch (kind) {
    case TERN_COLL_BARRIER:
        return tern_coll_inter_barrier;
    case TERN_COLL_BCAST:
        return tern_coll_inter_bcast;
    case TERN_COLL_REDUCE:
        return tern_coll_inter_reduce;
    case TERN_COLL_ALLREDUCE:
        return tern_coll_inter_allreduce;
    case TERN_COLL_GATHER:
    case TERN_COLL_GATHERV:
        return tern_coll_inter_gather;
    case TERN_COLL_SCATTER:
    case TERN_COLL_SCATTERV:
        return tern_coll_inter_scatter;
    case TERN_COLL_ALLGATHER:
    case TERN_COLL_ALLGATHERV:
    case TERN_COLL_ALLTOALL:
    case TERN_COLL_ALLTOALLV:
    case TERN_COLL_ALLTOALLW:
        return tern_coll_inter_alltoall;
    case TERN_COLL_REDUCE_SCATTER:
    case TERN_COLL_REDUCE_SCATTER_BLOCK:
        return tern_coll_inter_reduce_scatter;
    default:
        return NULL;
    }
}

int tern_coll_inter_defined(enum tern_coll_kind kind)
{
    return tern_coll_inter_builder(kind) != NULL;
}
