/*
 * Allreduce around a ring: a ring reduce-scatter, then a ring allgather.
 *
 * Steps: the vector is cut into p chunks at element boundaries (the first
 * n mod p chunks one element longer). Reduce-scatter: in step k = 0 .. p-2
 * rank r sends chunk (r - k) mod p to r + 1 and receives chunk
 * (r - k - 1) mod p from r - 1, which it combines with its own input; what
 * it sends in step k + 1 is what it combined in step k. After p - 1 steps
 * rank r holds chunk (r + 1) mod p reduced over all ranks. Allgather: in
 * p - 1 more steps each rank passes the last complete chunk it got to the
 * right, so every rank ends with every chunk. Each chunk is reduced once,
 * on one rank, and only copied afterwards, so all ranks get the same bits.
 *
 * Buffers: when the input is in sendbuf, each chunk is received straight
 * into recvbuf and combined there with the sendbuf chunk (no copy of the
 * input, no scratch). In place, the chunk arrives in a chunk-sized scratch
 * buffer and is combined into recvbuf.
 *
 * Cost: 2 (p - 1) alpha + 2 (p - 1)/p n beta + (p - 1)/p n gamma. Optimal
 * in bytes moved and reduced, but latency linear in p: the choice for long
 * vectors. Any p >= 1; commutative ops only (each chunk is combined in ring
 * order starting at a different rank).
 */
#include "collectives/algo.h"

/* Chunk c of a buffer of n elements; its length is clen(n, p, c). */
static void *chunk(const void *buf, size_t n, int p, int c, const struct tern_dtype *dt)
{
    return tern_coll_elem(buf, tern_coll_part_off(n, p, c), dt);
}

static size_t clen(size_t n, int p, int c)
{
    return tern_coll_part_off(n, p, c + 1) - tern_coll_part_off(n, p, c);
}

void tern_coll_allreduce_ring(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    void *buf = a->rbuf;
    int in_place = a->sbuf == MPI_IN_PLACE;
    if (p == 1) {
        if (!in_place)
            tern_sched_copy(s, a->sbuf, n, dt, buf, n, dt);
        return;
    }
    void *tmp = in_place ? tern_sched_scratch_typed(s, tern_coll_part_off(n, p, 1), dt) : NULL;

    /* Reduce-scatter. The combination of step k runs at the start of the
     * round of step k + 1, before that round's send carries it on. */
    for (int k = 0; k < p - 1; k++) {
        int sc = (r - k + p) % p, rc = (r - k - 1 + 2 * p) % p;
        const void *from = k == 0 && !in_place ? a->sbuf : buf;
        tern_sched_send(s, chunk(from, n, p, sc, dt), clen(n, p, sc), dt, right);
        void *dst = chunk(buf, n, p, rc, dt);
        size_t len = clen(n, p, rc);
        tern_sched_recv(s, in_place ? tmp : dst, len, dt, left);
        tern_sched_round(s);
        const void *mine = in_place ? tmp : chunk(a->sbuf, n, p, rc, dt);
        tern_sched_reduce(s, mine, dst, len, dt, a->op);
    }

    /* Allgather of the reduced chunks. */
    for (int k = 0; k < p - 1; k++) {
        int sc = (r + 1 - k + p) % p, rc = (r - k + p) % p;
        tern_sched_send(s, chunk(buf, n, p, sc, dt), clen(n, p, sc), dt, right);
        tern_sched_recv(s, chunk(buf, n, p, rc, dt), clen(n, p, rc), dt, left);
        tern_sched_round(s);
    }
}
