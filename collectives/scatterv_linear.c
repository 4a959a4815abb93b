/*
 * Scatterv, linear: the root sends every rank its block directly.
 *
 * Steps: the root posts the sends to every other rank at once, each
 * straight from sendbuf + displs[i] (in elements of sendtype) for
 * sendcounts[i] elements, and copies its own block to recvbuf (unless its
 * recvbuf is MPI_IN_PLACE: then its block stays in sendbuf and its
 * recvcount and recvtype are not looked at); every other rank receives
 * straight into recvbuf. Empty blocks take no message: the root's and the
 * receiver's counts describe the same number of bytes, so both skip it.
 *
 * Cost: up to p - 1 messages from the root, (p - 1) * alpha + N * beta for
 * N scattered bytes, nothing copied on the way. Any p >= 1.
 */
#include "collectives/algo.h"

void tern_coll_scatterv_linear(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    if (r != a->root) {
        if (a->rcount * a->rdt->size > 0)
            tern_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
        return;
    }
    if (a->sdt->size == 0)
        return;
    for (int i = 0; i < p; i++)
        if (i != r && a->scounts[i])
            tern_sched_send(s, tern_coll_elem(a->sbuf, a->sdispls[i], a->sdt),
                            a->scounts[i], a->sdt, i);
    if (a->rbuf != MPI_IN_PLACE)
        tern_sched_copy(s, tern_coll_elem(a->sbuf, a->sdispls[r], a->sdt), a->scounts[r],
                        a->sdt, a->rbuf, a->rcount, a->rdt);
}
