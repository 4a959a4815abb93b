/*
 * Exscan by recursive doubling (the algorithm of MPICH).
 *
 * Steps: as Scan's recursive doubling (collectives/scan_recursive_doubling.c):
 * each rank keeps `partial`, the reduction over its current group of
 * ranks, and in round k pairs with r ^ 2^k; both send their partial and
 * the groups merge. The higher rank of a pair adds the lower group's
 * partial on the left of its partial and of its result; the lower rank
 * adds the higher group's on the right of its partial only. The result of
 * rank r covers x_0 .. x_(r-1) only, so its own input never enters it: the
 * first partial a rank receives from below becomes its result as is.
 * Operand order is rank order: any op works. A rank whose partial is no
 * longer needed skips updating it, and its last partner then does not
 * send to it. Rank 0 never writes recvbuf (the standard leaves it
 * undefined there).
 *
 * Buffers: the first partial from below is received straight into
 * recvbuf; the input (sendbuf, or recvbuf in place, copied out before
 * anything is received) starts `partial`, and two scratch vectors take
 * turns as `partial` and the receive buffer.
 *
 * Cost: ceil(log2 p) (alpha + n beta + 2 n gamma). Latency-optimal: the
 * choice for short vectors. Any p >= 1, any op.
 */
#include "collectives/algo.h"

static int pairs_later(int r, int mask, int p)
{
    for (int m = mask << 1; m > 0 && m < p; m <<= 1)
        if ((r ^ m) < p)
            return 1;
    return 0;
}

void tern_coll_exscan_recursive_doubling(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    void *buf = a->rbuf;
    if (p == 1)
        return;
    const void *in = a->sbuf == MPI_IN_PLACE ? buf : a->sbuf;
    void *partial = tern_sched_scratch_typed(s, n, dt);
    void *tmp = tern_sched_scratch_typed(s, n, dt);
    tern_sched_copy(s, in, n, dt, partial, n, dt);
    int have = 0;   /* recvbuf holds a result. */
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
            tern_sched_recv(s, have ? tmp : buf, n, dt, peer);
        }
        tern_sched_round(s);
        if (r > peer) {
            const void *got = have ? tmp : buf;
            if (keep)
                tern_sched_reduce(s, got, partial, n, dt, a->op);
            if (have)
                tern_sched_reduce(s, tmp, buf, n, dt, a->op);
            have = 1;
        } else if (keep) {
            tern_sched_reduce(s, partial, tmp, n, dt, a->op);
            void *t = partial;
            partial = tmp;
            tmp = t;
        }
    }
}
