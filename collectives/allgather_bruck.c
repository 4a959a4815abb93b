/*
 * Allgather and Allgatherv by Bruck's algorithm (Bruck et al., 1997).
 *
 * Steps: every block travels packed (as bytes) in a scratch buffer that
 * holds the blocks in the order r, r+1, ..., r+p-1 (mod p) as they arrive.
 * Rank r starts with its own block there. In round k = 0, 1, ... while
 * d = 2^k < p it sends the first min(d, p - d) blocks it holds to r - d and
 * appends as many from r + d, whose first blocks are exactly the next ones
 * in r's order. After ceil(log2 p) rounds the scratch buffer holds all p
 * blocks, rotated by r; a local step copies them to their places in the
 * receive buffer (two copies for Allgather, one per block for Allgatherv).
 *
 * Cost: ceil(log2 p) * alpha + (p - 1)/p * N * beta, where N is the
 * gathered size, plus two local copies of N. Logarithmic latency for any p,
 * but the extra copies make it the choice for small blocks only. The block
 * sizes of Allgatherv may differ and be zero: the offsets in the scratch
 * buffer are prefix sums of the packed sizes, which every rank computes
 * alike.
 */
#include "collectives/algo.h"
#include "collectives/blocks.h"

/* Copies the gathered blocks from the packed buffer (blocks r, r+1, ... at
 * offsets off[0], off[1], ...) to their places, all but r's own. */
static void unrotate(struct tern_sched *s, const struct tern_coll_args *a,
                     const char *tmp, const size_t *off)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    int p = a->size, r = a->rank;
    if (a->kind == TERN_COLL_ALLGATHER) {
        /* Blocks r..p-1 and 0..r-1 are two contiguous runs of the buffer. */
        size_t n = a->rcount;
        if (r < p - 1)
            tern_sched_copy(s, tmp + off[1], off[p - r] - off[1], byte,
                            tern_coll_elem(a->rbuf, (size_t)(r + 1) * n, a->rdt),
                            (size_t)(p - r - 1) * n, a->rdt);
        if (r > 0)
            tern_sched_copy(s, tmp + off[p - r], off[p] - off[p - r], byte, a->rbuf,
                            (size_t)r * n, a->rdt);
        return;
    }
    for (int i = 1; i < p; i++) {
        struct tern_coll_block b = tern_coll_rblock(a, (r + i) % p);
        tern_sched_copy(s, tmp + off[i], off[i + 1] - off[i], byte, b.buf, b.count, b.dt);
    }
}

void tern_coll_allgather_bruck(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    int p = a->size, r = a->rank;
    size_t *off = tern_sched_scratch(s, (size_t)(p + 1) * sizeof(*off));
    if (!off)
        return;
    off[0] = 0;
    for (int i = 0; i < p; i++)
        off[i + 1] = off[i] + tern_coll_block_bytes(tern_coll_rblock(a, (r + i) % p));
    char *tmp = tern_sched_scratch(s, off[p]);
    if (!tmp)
        return;
    /* Own block: into the packed buffer, and straight to its place. */
    struct tern_coll_block mine = tern_coll_rblock(a, r);
    if (a->sbuf == MPI_IN_PLACE) {
        tern_sched_copy(s, mine.buf, mine.count, mine.dt, tmp, off[1], byte);
    } else {
        tern_sched_copy(s, a->sbuf, a->scount, a->sdt, tmp, off[1], byte);
        tern_sched_copy(s, a->sbuf, a->scount, a->sdt, mine.buf, mine.count, mine.dt);
    }
    for (int d = 1; d < p; d <<= 1) {
        int cnt = d < p - d ? d : p - d;
        tern_sched_recv(s, tmp + off[d], off[d + cnt] - off[d], byte, (r + d) % p);
        tern_sched_send(s, tmp, off[cnt], byte, (r - d + p) % p);
        tern_sched_round(s);
    }
    unrotate(s, a, tmp, off);
}
