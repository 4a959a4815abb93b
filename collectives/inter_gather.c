/*
 * Gather and Gatherv on an intercommunicator.
 *
 * Steps: every process of the group without the root sends its block to
 * the root, which receives block j from remote rank j (at displs[j] for
 * Gatherv), all in one round. The rest of the root's group does nothing.
 *
 * Cost: about nB (alpha' + n beta) at the root for nB senders of n bytes
 * each (alpha' the per-message overhead of messages in flight together).
 */
#include "collectives/inter.h"

void tern_coll_inter_gather(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct tern_coll_inter v;
    if (a->root == MPI_PROC_NULL || tern_coll_inter_view(s, a, &v))
        return;
    if (a->root != MPI_ROOT) {
        tern_sched_send(s, a->sbuf, a->scount, a->sdt, v.remote[a->root]);
        return;
    }
    int var = a->kind == TERN_COLL_GATHERV;
    for (int j = 0; j < v.nremote; j++)
        tern_sched_recv(s, tern_coll_elem(a->rbuf, var ? a->rdispls[j] : j * a->rcount, a->rdt),
                        var ? a->rcounts[j] : a->rcount, a->rdt, v.remote[j]);
}
