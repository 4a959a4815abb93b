/*
 * Scatter, linear: the root sends every rank its block directly.
 *
 * Steps: the root posts the p - 1 sends at once, each straight from the
 * receiver's slot of sendbuf, and copies its own block to recvbuf (unless
 * its recvbuf is MPI_IN_PLACE: then its block stays in sendbuf and its
 * recvcount and recvtype are not looked at); every other rank receives
 * straight into recvbuf.
 *
 * Cost: (p - 1) * (alpha + n * beta) at the root if the sends go one after
 * the other, but no byte is copied on the way and large transfers overlap,
 * so it beats the binomial tree once blocks are large. Any p >= 1.
 */
#include "collectives/algo.h"

void tern_coll_scatter_linear(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    if (r != a->root) {
        if (a->rcount * a->rdt->size > 0)
            tern_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
        return;
    }
    size_t sc = a->scount;
    if (sc * a->sdt->size == 0)
        return;
    for (int i = 0; i < p; i++)
        if (i != r)
            tern_sched_send(s, tern_coll_elem(a->sbuf, (size_t)i * sc, a->sdt), sc,
                            a->sdt, i);
    if (a->rbuf != MPI_IN_PLACE)
        tern_sched_copy(s, tern_coll_elem(a->sbuf, (size_t)r * sc, a->sdt), sc, a->sdt,
                        a->rbuf, a->rcount, a->rdt);
}
