/*
 * Gather, linear: every rank sends its block straight to the root.
 *
 * Steps: the root copies its own block into place (unless it passed
 * MPI_IN_PLACE, in which case it is already there and its sendcount and
 * sendtype are not looked at) and posts the p - 1 receives at once, each
 * straight into the sender's slot of recvbuf; every other rank sends
 * sendbuf to the root.
 *
 * Cost: the root takes p - 1 messages: (p - 1) * (alpha + n * beta) if they
 * are handled one after the other, but no byte is copied on the way and
 * large transfers overlap, so it beats the binomial tree once blocks are
 * large. Any p >= 1.
 */
#include "collectives/algo.h"

void tern_coll_gather_linear(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    if (r != a->root) {
        if (a->scount * a->sdt->size > 0)
            tern_sched_send(s, a->sbuf, a->scount, a->sdt, a->root);
        return;
    }
    size_t rc = a->rcount;
    if (rc * a->rdt->size == 0)
        return;
    if (a->sbuf != MPI_IN_PLACE)
        tern_sched_copy(s, a->sbuf, a->scount, a->sdt,
                        tern_coll_elem(a->rbuf, (size_t)r * rc, a->rdt), rc, a->rdt);
    for (int i = 0; i < p; i++)
        if (i != r)
            tern_sched_recv(s, tern_coll_elem(a->rbuf, (size_t)i * rc, a->rdt), rc,
                            a->rdt, i);
}
