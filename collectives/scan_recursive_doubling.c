/*
 * Scan by recursive doubling (the algorithm of MPICH).
 *
 * Steps: each rank keeps two vectors: its result so far (recvbuf, the
 * reduction of x_j .. x_r for the ranks j of its group below it) and
 * `partial`, the reduction over its whole current group of ranks. In
 * round k = 0, 1, ... (mask 2^k) rank r pairs with r ^ mask (if that rank
 * exists) and both send their partial: then the groups of 2^k ranks merge
 * into groups of 2^(k+1). The higher rank puts the lower group's partial
 * on the left of both of its vectors; the lower rank puts the higher
 * group's on the right of its partial only. So the operand order is always
 * rank order and any op works. A rank whose partial is no longer needed
 * (it has no partner in a later round) skips updating it, and then the
 * higher rank of its last pair does not send to it at all.
 *
 * Buffers: recvbuf (the input first copied into it, unless in place),
 * plus two scratch vectors that take turns as `partial` and as the
 * receive buffer, so no copy keeps the operand order.
 *
 * Cost: ceil(log2 p) (alpha + n beta + 2 n gamma). Latency-optimal: the
 * choice for short vectors. Any p >= 1, any op.
 */
#include "collectives/algo.h"

/* 1 if rank r has a partner in a round after the one of `mask`. */
static int pairs_later(int r, int mask, int p)
{
    for (int m = mask << 1; m > 0 && m < p; m <<= 1)
        if ((r ^ m) < p)
            return 1;
    return 0;
}

void tern_coll_scan_recursive_doubling(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    void *buf = a->rbuf;
    const void *in = a->sbuf == MPI_IN_PLACE ? buf : a->sbuf;
    if (in != buf)
        tern_sched_copy(s, in, n, dt, buf, n, dt);
    if (p == 1)
        return;
    void *partial = tern_sched_scratch_typed(s, n, dt);
    void *tmp = tern_sched_scratch_typed(s, n, dt);
    tern_sched_copy(s, in, n, dt, partial, n, dt);
    for (int mask = 1; mask < p; mask <<= 1) {
        int peer = r ^ mask;
        if (peer >= p)
            continue;
        int keep = pairs_later(r, mask, p);
        if (r < peer) {
            tern_sched_send(s, partial, n, dt, peer);
            if (keep)
                tern_sched_recv(s, tmp, n, dt, peer);
        } else {
            if (pairs_later(peer, mask, p))
                tern_sched_send(s, partial, n, dt, peer);
            tern_sched_recv(s, tmp, n, dt, peer);
        }
        tern_sched_round(s);
        if (r > peer) {
            tern_sched_reduce(s, tmp, buf, n, dt, a->op);
            if (keep)
                tern_sched_reduce(s, tmp, partial, n, dt, a->op);
        } else if (keep) {
            /* partial op received, landing in tmp: the two swap roles. */
            tern_sched_reduce(s, partial, tmp, n, dt, a->op);
            void *t = partial;
            partial = tmp;
            tmp = t;
        }
    }
}
