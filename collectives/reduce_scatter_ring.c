/*
 * Reduce_scatter and Reduce_scatter_block around a ring.
 *
 * The vector is made of p blocks, block i (recvcounts[i] elements, or
 * recvcount for the block form) being the result rank i receives.
 *
 * Steps: in step k = 0 .. p-2 rank r sends block (r - k - 1) mod p to
 * r + 1 and receives block (r - k - 2) mod p from r - 1, which it combines
 * with its own input for that block; what it sends in step k + 1 is what
 * it combined in step k. The block received in the last step is block r,
 * now reduced over all ranks. Each block is reduced along the ring
 * starting at a different rank, so only commutative ops may use it.
 *
 * Buffers: partial blocks take turns in two scratch buffers of the largest
 * block; the last block is received straight into recvbuf when the input
 * is in sendbuf. In place (sendbuf == MPI_IN_PLACE) the input is recvbuf,
 * which then holds the whole vector, and the result goes to its start.
 *
 * Cost, N = total elements: (p - 1) alpha + (p - 1)/p N beta +
 * (p - 1)/p N gamma with equal blocks. Optimal in bytes, latency linear in
 * p: the choice for long vectors. Any p >= 1; commutative ops only.
 */
#include "collectives/algo.h"

void tern_coll_reduce_scatter_ring(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    const struct tern_dtype *dt = a->rdt;
    int in_place = a->sbuf == MPI_IN_PLACE;
    const void *in = in_place ? a->rbuf : a->sbuf;
    if (p == 1) {
        size_t n = tern_coll_rs_block(a, 0);
        if (!in_place)
            tern_sched_copy(s, in, n, dt, a->rbuf, n, dt);
        return;
    }
    size_t *off = tern_sched_scratch(s, (size_t)(p + 1) * sizeof(*off));
    if (!off)
        return;
    size_t most = 0;
    off[0] = 0;
    for (int i = 0; i < p; i++) {
        off[i + 1] = off[i] + tern_coll_rs_block(a, i);
        most = tern_coll_rs_block(a, i) > most ? tern_coll_rs_block(a, i) : most;
    }
    /* Scratch only where a partial block must wait for its next hop. */
    void *tmp[2] = { NULL, NULL };

    for (int k = 0; k < p - 1; k++) {
        int sb = (r - k - 1 + p) % p, rb = (r - k - 2 + 2 * p) % p;
        const void *from = k == 0 ? tern_coll_elem(in, off[sb], dt) : tmp[(k - 1) % 2];
        tern_sched_send(s, from, tern_coll_rs_block(a, sb), dt, right);
        int last = k == p - 2;
        if (!(last && !in_place) && !tmp[k % 2])
            tmp[k % 2] = tern_sched_scratch_typed(s, most, dt);
        void *into = last && !in_place ? a->rbuf : tmp[k % 2];
        tern_sched_recv(s, into, tern_coll_rs_block(a, rb), dt, left);
        tern_sched_round(s);
        tern_sched_reduce(s, tern_coll_elem(in, off[rb], dt), into,
                          tern_coll_rs_block(a, rb), dt, a->op);
        if (last && in_place)
            tern_sched_copy(s, into, tern_coll_rs_block(a, r), dt, a->rbuf,
                            tern_coll_rs_block(a, r), dt);
    }
}
