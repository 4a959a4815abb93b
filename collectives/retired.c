/*
 * Communicators destroyed after collective calls (retired.h).
 */
#include "collectives/coll.h"
#include "collectives/retired.h"
#include "libmpi/core/comm.h"

static struct tern_coll_retired retired[TERN_COLL_RETIRED_MAX];
static unsigned nretired;

void tern_coll_retire(const struct tern_comm *comm)
{
    if (comm->coll_seq)
        retired[nretired++ % TERN_COLL_RETIRED_MAX] = (struct tern_coll_retired){
            comm->ctx + 1, comm->rank, comm->coll_seq, comm->coll_failed };
}

const struct tern_coll_retired *tern_coll_retired_find(uint32_t ctx)
{
    for (unsigned i = 0; i < nretired && i < TERN_COLL_RETIRED_MAX; i++)
        if (retired[i].ctx == ctx)
            return &retired[i];
    return NULL;
}

void tern_coll_retired_each(void (*fn)(const struct tern_coll_retired *r, void *arg), void *arg)
{
    for (unsigned i = 0; i < nretired && i < TERN_COLL_RETIRED_MAX; i++)
        fn(&retired[i], arg);
}
