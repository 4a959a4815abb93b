/*
 * Alltoall by Bruck's algorithm (Bruck et al., 1997), for small blocks.
 *
 * Steps: all blocks are handled packed (bytes) in a scratch buffer tmp of
 * p blocks.
 *  1. Rotation: tmp[i] = the block this rank sends to rank r + i (mod p).
 *  2. For k = 1, 2, 4, ... < p: the blocks tmp[i] with bit k set in i are
 *     packed into one message for rank r + k; the message from rank r - k
 *     carries the same positions and is unpacked into them. A block that
 *     started at index i on rank s moves by +k for each bit k of i, so it
 *     ends on rank s + i, its destination, still at index i.
 *  3. So tmp[i] now holds rank (r - i)'s block for this rank: a last local
 *     step copies it to block r - i of the receive buffer.
 * Blocks with bit k set form runs of k consecutive indices, so a round's
 * packing costs about p / 2k copies.
 *
 * Cost: ceil(log2 p) * alpha + ceil(log2 p) * N/2 * beta, where N = p * n
 * is one rank's send buffer, plus local copies of about (2 + log2 p) * N.
 * Logarithmic latency against linear for pairwise exchange and the linear
 * algorithm, at log2(p)/2 times their bytes: the choice for small blocks
 * on many ranks. Any p. In place it reads the input from the receive
 * buffer in step 1, before anything is written there.
 */
#include "collectives/algo.h"

/* Copies the runs of blocks with bit k set between tmp and a packed
 * message buffer (into msg when `pack`, out of it otherwise). */
static void move_runs(struct tern_sched *s, char *tmp, char *msg, size_t bb, int k, int p,
                      int pack)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    for (int base = k; base < p; base += 2 * k) {
        int len = base + k <= p ? k : p - base;
        size_t bytes = (size_t)len * bb;
        if (pack)
            tern_sched_copy(s, tmp + (size_t)base * bb, bytes, byte, msg, bytes, byte);
        else
            tern_sched_copy(s, msg, bytes, byte, tmp + (size_t)base * bb, bytes, byte);
        msg += bytes;
    }
}

/* Blocks with bit k set among indices 0 .. p-1. */
static int blocks_with_bit(int k, int p)
{
    return p / (2 * k) * k + (p % (2 * k) > k ? p % (2 * k) - k : 0);
}

void tern_coll_alltoall_bruck(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    int p = a->size, r = a->rank;
    size_t bb = a->rcount * a->rdt->size;
    int most = 0;
    for (int k = 1; k < p; k <<= 1)
        most = blocks_with_bit(k, p) > most ? blocks_with_bit(k, p) : most;
    char *tmp = tern_sched_scratch(s, (size_t)p * bb);
    char *out = tern_sched_scratch(s, (size_t)most * bb);
    char *in = tern_sched_scratch(s, (size_t)most * bb);
    if (!tmp || !out || !in)
        return;
    /* 1. Rotation: the blocks for r .. p-1, then those for 0 .. r-1. */
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    size_t n = a->sbuf == MPI_IN_PLACE ? a->rcount : a->scount;
    const struct tern_dtype *dt = a->sbuf == MPI_IN_PLACE ? a->rdt : a->sdt;
    tern_sched_copy(s, tern_coll_elem(src, (size_t)r * n, dt), (size_t)(p - r) * n, dt,
                    tmp, (size_t)(p - r) * bb, byte);
    if (r > 0)
        tern_sched_copy(s, src, (size_t)r * n, dt, tmp + (size_t)(p - r) * bb,
                        (size_t)r * bb, byte);
    /* 2. Exchanges; each round first unpacks what the previous one got. */
    int prev = 0;
    for (int k = 1; k < p; k <<= 1) {
        if (prev)
            move_runs(s, tmp, in, bb, prev, p, 0);
        move_runs(s, tmp, out, bb, k, p, 1);
        size_t bytes = (size_t)blocks_with_bit(k, p) * bb;
        tern_sched_recv(s, in, bytes, byte, (r - k + p) % p);
        tern_sched_send(s, out, bytes, byte, (r + k) % p);
        tern_sched_round(s);
        prev = k;
    }
    if (prev)
        move_runs(s, tmp, in, bb, prev, p, 0);
    /* 3. Block i came from rank r - i. */
    for (int i = 0; i < p; i++)
        tern_sched_copy(s, tmp + (size_t)i * bb, bb, byte,
                        tern_coll_elem(a->rbuf, (size_t)((r - i + p) % p) * a->rcount, a->rdt),
                        a->rcount, a->rdt);
}
