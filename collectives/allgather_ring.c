/*
 * Allgather around a ring.
 *
 * Steps: each rank puts its own block in place; then in p - 1 rounds rank r
 * sends to r + 1 the block it received last (its own first) and receives
 * from r - 1 the next one, so after round i it holds the blocks of
 * r, r-1, ..., r-i-1.
 *
 * Cost: (p - 1) * alpha + (p - 1)/p * N * beta, where N = p * n is the
 * gathered size: optimal bandwidth, but latency linear in p, so it is the
 * choice for large blocks. Any p.
 */
#include "collectives/algo.h"

void tern_coll_allgather_ring(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    if (a->sbuf != MPI_IN_PLACE)
        tern_sched_copy(s, a->sbuf, a->scount, a->sdt,
                        tern_coll_elem(a->rbuf, (size_t)r * a->rcount, a->rdt),
                        a->rcount, a->rdt);
    for (int i = 0; i < p - 1; i++) {
        int sblock = (r - i + p) % p, rblock = (r - i - 1 + p) % p;
        tern_sched_send(s, tern_coll_elem(a->rbuf, (size_t)sblock * a->rcount, a->rdt),
                        a->rcount, a->rdt, right);
        tern_sched_recv(s, tern_coll_elem(a->rbuf, (size_t)rblock * a->rcount, a->rdt),
                        a->rcount, a->rdt, left);
        tern_sched_round(s);
    }
}
