/*
 * Gatherv, linear: every rank sends its block straight to the root.
 *
 * Steps: the root copies its own block to recvbuf + displs[root] (unless it
 * passed MPI_IN_PLACE: then the block is already there and its sendcount
 * and sendtype are not looked at) and posts the receives from every other
 * rank at once, each straight into recvbuf + displs[i] (in elements of
 * recvtype) for recvcounts[i] elements; every other rank sends sendbuf to
 * the root. Empty blocks take no message: the sender's and the root's
 * counts describe the same number of bytes, so both skip it.
 *
 * Cost: the root takes up to p - 1 messages, (p - 1) * alpha + N * beta for
 * N gathered bytes, nothing copied on the way. Any p >= 1.
 */
#include "collectives/algo.h"

void tern_coll_gatherv_linear(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    if (r != a->root) {
        if (a->scount * a->sdt->size > 0)
            tern_sched_send(s, a->sbuf, a->scount, a->sdt, a->root);
        return;
    }
    if (a->rdt->size == 0)
        return;
    if (a->sbuf != MPI_IN_PLACE)
        tern_sched_copy(s, a->sbuf, a->scount, a->sdt,
                        tern_coll_elem(a->rbuf, a->rdispls[r], a->rdt), a->rcounts[r],
                        a->rdt);
    for (int i = 0; i < p; i++)
        if (i != r && a->rcounts[i])
            tern_sched_recv(s, tern_coll_elem(a->rbuf, a->rdispls[i], a->rdt),
                            a->rcounts[i], a->rdt, i);
}
