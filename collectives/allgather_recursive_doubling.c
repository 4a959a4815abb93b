/*
 * Allgather by recursive doubling (power-of-two p only).
 *
 * Steps: each rank puts its own block in place; then in round k = 0, 1, ...
 * while 2^k < p, rank r exchanges with r XOR 2^k everything it holds so
 * far: the 2^k consecutive blocks starting at block r with its low k bits
 * cleared. The partner's range is the adjacent one, so after round k each
 * rank holds 2^(k+1) consecutive blocks, and after log2 p rounds all of
 * them. Every message goes straight from and into the receive buffer.
 *
 * Cost: log2 p * alpha + (p - 1)/p * N * beta, where N = p * n is the
 * gathered size: the ring's bandwidth with logarithmic latency, the best of
 * both when p is a power of two. Other p: `usable` refuses them (Bruck
 * takes that role).
 */
#include "collectives/algo.h"

int tern_coll_allgather_recursive_doubling_usable(const struct tern_coll_args *a)
{
    int p = a->size;
    return (p & (p - 1)) == 0;
}

void tern_coll_allgather_recursive_doubling(struct tern_sched *s,
                                            const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    if (a->sbuf != MPI_IN_PLACE)
        tern_sched_copy(s, a->sbuf, a->scount, a->sdt,
                        tern_coll_elem(a->rbuf, (size_t)r * n, dt), n, dt);
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = r ^ mask;
        size_t mine = (size_t)(r & ~(mask - 1)), theirs = (size_t)(peer & ~(mask - 1));
        tern_sched_recv(s, tern_coll_elem(a->rbuf, theirs * n, dt), (size_t)mask * n, dt,
                        peer);
        tern_sched_send(s, tern_coll_elem(a->rbuf, mine * n, dt), (size_t)mask * n, dt,
                        peer);
        tern_sched_round(s);
    }
}
