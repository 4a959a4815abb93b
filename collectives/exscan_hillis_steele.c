/*
 * Exscan by the doubling of Hillis and Steele: every message goes up the
 * ranks (the reasons are in scan_hillis_steele.c).
 *
 * Steps: each rank keeps `partial`, which starts as its input, and its
 * result in recvbuf. In round k = 0, 1, ... (d = 2^k) rank r sends its
 * partial to r + d (if that rank exists) and receives from r - d (if that
 * rank exists) the partial that rank had at the start of the round,
 * x_(r-2d+1) op ... op x_(r-d) (cut at 0). It puts that on the left of its
 * partial, which then covers x_(r-2d+1) .. x_r, and of its result, which
 * then covers x_(r-2d+1) .. x_(r-1); the first one it receives (from
 * r - 1) is its result as is. Operand order is rank order: any op works.
 * A rank that sends nothing more stops updating its partial. Rank 0 never
 * writes recvbuf (the standard leaves it undefined there).
 *
 * Buffers: the first vector from below is received straight into recvbuf;
 * the input (sendbuf, or recvbuf in place, copied out before anything is
 * received) starts `partial` in a scratch vector, and one more scratch
 * vector takes the later incoming ones.
 *
 * Cost: ceil(log2 p) (alpha + n beta + 2 n gamma). Latency-optimal: the
 * choice for short vectors. Any p >= 1, any op.
 */
#include "collectives/algo.h"

void tern_coll_exscan_hillis_steele(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    void *buf = a->rbuf;
    if (p == 1)
        return;
    const void *in = a->sbuf == MPI_IN_PLACE ? buf : a->sbuf;
    void *partial = tern_sched_scratch_typed(s, n, dt);
    void *tmp = r > 1 ? tern_sched_scratch_typed(s, n, dt) : NULL;
    tern_sched_copy(s, in, n, dt, partial, n, dt);
    for (int d = 1; d < p; d <<= 1) {
        if (r + d < p)
            tern_sched_send(s, partial, n, dt, r + d);
        if (r >= d)
            tern_sched_recv(s, d == 1 ? buf : tmp, n, dt, r - d);
        tern_sched_round(s);
        if (r < d)
            continue;
        const void *got = d == 1 ? buf : tmp;
        /* The partial is sent again only if some later round sends. */
        if (r + 2 * d < p)
            tern_sched_reduce(s, got, partial, n, dt, a->op);
        if (d > 1)
            tern_sched_reduce(s, tmp, buf, n, dt, a->op);
    }
}
