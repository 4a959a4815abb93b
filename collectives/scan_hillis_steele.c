/*
 * Scan by the doubling of Hillis and Steele: every message goes up the
 * ranks.
 *
 * Steps: recvbuf starts as the rank's input. In round k = 0, 1, ...
 * (d = 2^k) rank r sends its recvbuf to r + d (if that rank exists) and
 * receives from r - d (if that rank exists) the recvbuf that rank had at
 * the start of the round, then puts it on the left of its own. After
 * round k, recvbuf of rank r holds x_(r-2d+1) op ... op x_r (cut at 0), so
 * after ceil(log2 p) rounds it holds x_0 op ... op x_r. The operand order
 * is rank order: any op works.
 *
 * Why: recursive doubling (scan_recursive_doubling.c) pairs each rank
 * with a higher one as well, so every rank but the last waits for a
 * higher one in every call. Here no rank waits for a higher rank: rank 0
 * sends and leaves, and in a loop of calls the lower ranks run ahead into
 * the next call, as along the chain (scan_chain.c), but a call takes
 * ceil(log2 p) steps instead of the chain's p - 1. Where ranks share
 * cores, each wait for a rank that has not run yet is a context switch.
 *
 * Buffers: recvbuf (the input first copied into it, unless in place),
 * plus one scratch vector for the incoming one.
 *
 * Cost: ceil(log2 p) (alpha + n beta + n gamma): about as many messages as
 * recursive doubling, but one reduction per round instead of two.
 * Latency-optimal: the choice for short vectors. Any p >= 1, any op.
 */
#include "collectives/algo.h"

void tern_coll_scan_hillis_steele(struct tern_sched *s, const struct tern_coll_args *a)
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
    void *tmp = r > 0 ? tern_sched_scratch_typed(s, n, dt) : NULL;
    for (int d = 1; d < p; d <<= 1) {
        if (r + d < p)
            tern_sched_send(s, buf, n, dt, r + d);
        if (r >= d)
            tern_sched_recv(s, tmp, n, dt, r - d);
        tern_sched_round(s);
        if (r >= d)
            tern_sched_reduce(s, tmp, buf, n, dt, a->op);
    }
}
