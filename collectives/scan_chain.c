/*
 * Scan along a pipelined chain.
 *
 * Steps: the vector is cut into segments of about SEG_BYTES (whole
 * elements). Rank 0's result is its input, which it sends to rank 1 segment
 * by segment. Rank r > 0 receives segment j of x_0 op ... op x_(r-1) from
 * r - 1, puts it on the left of its own segment j (so the order is rank
 * order and any op works), and passes the result to r + 1 while segment
 * j + 1 arrives. Segments follow each other down the chain, so for long
 * vectors all ranks work at once.
 *
 * Buffers: recvbuf holds the input (copied from sendbuf one segment at a
 * time, just before it is combined) and then the result, which is sent
 * from there; one segment-sized scratch buffer takes the incoming segment.
 *
 * Cost, m = number of segments: (p - 2 + m) (alpha + n/m (beta + gamma))
 * along the chain, so about n (beta + gamma) + (p + m) alpha for long
 * vectors, against recursive doubling's log2 p n (beta + 2 gamma): the
 * choice for long vectors when p > 2. Any p >= 1, any op.
 */
#include "collectives/algo.h"

/* Bytes per segment: each segment costs a round of the schedule (a wait,
 * and on a host with more ranks than cores a context switch), so segments
 * must be large; a few per vector still let the ranks work at once.
 * Measured, MPI_Scan of doubles on 4 ranks of the 2-core reference VM, us
 * (64 KiB / 128 KiB / 256 KiB / 512 KiB / one segment): 1 MiB 544-987 /
 * 891 / 267-460 / 607 / 449; 4 MiB 3157-5172 / 4898 / 1354-2424 / 3839 /
 * 4000. Open MPI (one message per hop): 382 and 2964. */
#define SEG_BYTES (256 * 1024)

void tern_coll_scan_chain(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    void *buf = a->rbuf;
    const void *in = a->sbuf == MPI_IN_PLACE ? buf : a->sbuf;
    if (r == 0 && in != buf)
        tern_sched_copy(s, in, n, dt, buf, n, dt);
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
    void *tmp = tern_sched_scratch_typed(s, seg < n ? seg : n, dt);
    /* Round j combines and forwards segment j - 1 and receives segment j. */
    for (size_t j = 0; j <= nseg; j++) {
        if (j > 0) {
            size_t o = (j - 1) * seg, len = j == nseg ? n - o : seg;
            void *dst = tern_coll_elem(buf, o, dt);
            if (in != buf)
                tern_sched_copy(s, tern_coll_elem(in, o, dt), len, dt, dst, len, dt);
            tern_sched_reduce(s, tmp, dst, len, dt, a->op);
            if (r < p - 1)
                tern_sched_send(s, dst, len, dt, r + 1);
        }
        if (j < nseg)
            tern_sched_recv(s, tmp, j == nseg - 1 ? n - j * seg : seg, dt, r - 1);
        tern_sched_round(s);
    }
}
