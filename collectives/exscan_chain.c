/*
 * Exscan along a pipelined chain.
 *
 * Steps: the vector is cut into segments of about SEG_BYTES (whole
 * elements). Rank 0 sends its input to rank 1 segment by segment and
 * leaves its recvbuf alone (the standard leaves it undefined). Rank r > 0
 * receives segment j of x_0 op ... op x_(r-1) from r - 1 straight into
 * recvbuf (that is its result), and unless it is the last rank puts it on
 * the left of its own input segment (rank order: any op works) and sends
 * that to r + 1 while segment j + 1 arrives.
 *
 * Buffers: the result arrives in recvbuf. The ranks that forward copy
 * each input segment into one of two segment-sized scratch buffers before
 * the result lands on it (in place, the input is recvbuf) and combine
 * there.
 *
 * Cost, m = number of segments: (p - 2 + m) (alpha + n/m (beta + gamma))
 * along the chain, about n (beta + gamma) + (p + m) alpha for long vectors,
 * against recursive doubling's log2 p n (beta + 2 gamma): the choice for
 * long vectors when p > 2. Any p >= 1, any op.
 */
#include "collectives/algo.h"

/* Bytes per segment, as for Scan's chain (collectives/scan_chain.c). */
#define SEG_BYTES (256 * 1024)

void tern_coll_exscan_chain(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    void *buf = a->rbuf;
    const void *in = a->sbuf == MPI_IN_PLACE ? buf : a->sbuf;
    if (p == 1 || n == 0 || dt->size == 0)
        return;
    size_t seg = dt->size && dt->size < SEG_BYTES ? SEG_BYTES / dt->size : 1;
    size_t nseg = (n + seg - 1) / seg;
    if (r == 0) {
        for (size_t j = 0; j < nseg; j++) {
            size_t len = j == nseg - 1 ? n - j * seg : seg;
            tern_sched_send(s, tern_coll_elem(in, j * seg, dt), len, dt, 1);
        }
        return;
    }
    if (r == p - 1) {
        for (size_t j = 0; j < nseg; j++) {
            size_t len = j == nseg - 1 ? n - j * seg : seg;
            tern_sched_recv(s, tern_coll_elem(buf, j * seg, dt), len, dt, r - 1);
        }
        return;
    }
    size_t slen = seg < n ? seg : n;
    void *own[2] = { tern_sched_scratch_typed(s, slen, dt),
                     tern_sched_scratch_typed(s, slen, dt) };
    /* Round j copies out input segment j before segment j of the result
     * lands on it, then receives it, and combines and forwards segment
     * j - 1. */
    for (size_t j = 0; j <= nseg; j++) {
        if (j > 0) {
            size_t o = (j - 1) * seg, len = j == nseg ? n - o : seg;
            void *mine = own[(j - 1) % 2];
            tern_sched_reduce(s, tern_coll_elem(buf, o, dt), mine, len, dt, a->op);
            tern_sched_send(s, mine, len, dt, r + 1);
        }
        if (j < nseg) {
            size_t o = j * seg, len = j == nseg - 1 ? n - o : seg;
            tern_sched_copy(s, tern_coll_elem(in, o, dt), len, dt, own[j % 2], len, dt);
            tern_sched_recv(s, tern_coll_elem(buf, o, dt), len, dt, r - 1);
        }
        tern_sched_round(s);
    }
}
