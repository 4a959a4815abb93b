/*
 * Scatter and Scatterv on an intercommunicator.
 *
 * Steps: the root sends block j (at displs[j] for Scatterv) to remote rank
 * j, all in one round; every process of the other group receives its
 * block from the root. The rest of the root's group does nothing.
 *
 * Cost: about nB (alpha' + n beta) at the root for nB receivers of n
 * bytes each.
 */
#include "collectives/inter.h"

void tern_coll_inter_scatter(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct tern_coll_inter v;
    if (a->root == MPI_PROC_NULL || tern_coll_inter_view(s, a, &v))
        return;
    if (a->root != MPI_ROOT) {
        tern_sched_recv(s, a->rbuf, a->rcount, a->rdt, v.remote[a->root]);
        return;
    }
    int var = a->kind == TERN_COLL_SCATTERV;
    for (int j = 0; j < v.nremote; j++)
        tern_sched_send(s, tern_coll_elem(a->sbuf, var ? a->sdispls[j] : j * a->scount, a->sdt),
                        var ? a->scounts[j] : a->scount, a->sdt, v.remote[j]);
}
