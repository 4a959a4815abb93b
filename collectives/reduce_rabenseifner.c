/*
 * Reduce by Rabenseifner's algorithm: reduce-scatter by recursive halving,
 * then a binomial gather of the pieces to the root. Commutative ops only.
 *
 * Steps: ranks are numbered from the root, v = (r - root) mod p. Let q be
 * the largest power of two <= p and e = p - q. Fold: among the 2e lowest
 * v, each odd one sends its whole vector to the even one below it, which
 * combines the two and takes part as index v / 2; the others take part as
 * v - e (so the root is index 0). The vector is cut into q blocks at
 * element boundaries (block i: n/q elements, one more for i < n mod q).
 * Recursive halving: for mask = q/2, ..., 1 a rank exchanges with the index
 * that differs in `mask` the half of its current block range that the
 * other keeps, and combines the half it keeps; after log2 q steps index i
 * holds block i reduced over all ranks. Binomial gather: for mask = 1, 2,
 * ..., q/2 an index with that bit set sends the blocks it holds to the
 * index `mask` below and is done; the other receives them next to its own.
 * Index 0, the root, ends with the whole vector, received straight into
 * recvbuf.
 *
 * Buffers: the input (sendbuf, or recvbuf for MPI_IN_PLACE at the root) is
 * never written; a rank combines into its accumulator (recvbuf at the
 * root, scratch elsewhere): the first time a range arrives it goes straight
 * into the accumulator and is combined with the input there; later ranges
 * go to a second scratch buffer. No rank copies the vector.
 *
 * Cost: ceil(log2 q) rounds twice; 2 * (q-1)/q * n * beta + (q-1)/q * n *
 * gamma, plus alpha + n * (beta + gamma) for the fold when p is not a
 * power of two. Against the binomial tree's log2 p * n * (beta + gamma)
 * this wins for long vectors. Any p >= 1; blocks may be empty when n < q.
 */
#include "collectives/algo.h"

struct rab {
    struct tern_sched *s;
    const struct tern_coll_args *a;
    int p, q, extra;
    size_t n;
    const struct tern_dtype *dt;
    const void *cur;     /* Where this rank's partial vector is. */
    void *acc;           /* Its accumulator. */
    void *tmp;           /* Second buffer, made when first needed. */
};

/* First element of block i (i may be q: the end of the vector). */
static size_t block_start(const struct rab *x, int i)
{
    size_t base = x->n / (size_t)x->q, rem = x->n % (size_t)x->q, ui = (size_t)i;
    return ui * base + (ui < rem ? ui : rem);
}

/* Rank of index i. */
static int idx_rank(const struct rab *x, int i)
{
    int v = i < x->extra ? 2 * i : i + x->extra;
    return (v + x->a->root) % x->p;
}

/* Sends elements [lo, hi) of the partial vector. */
static void send_range(struct rab *x, size_t lo, size_t hi, int peer)
{
    if (hi > lo)
        tern_sched_send(x->s, tern_coll_elem(x->cur, lo, x->dt), hi - lo, x->dt, peer);
}

/* Receives elements [lo, hi) from peer and combines them into the
 * accumulator; ends the round. */
static void absorb(struct rab *x, size_t lo, size_t hi, int peer)
{
    if (hi == lo) {
        tern_sched_round(x->s);
        return;
    }
    size_t len = hi - lo;
    void *at = tern_coll_elem(x->acc, lo, x->dt);
    if (x->cur != x->acc) {
        tern_sched_recv(x->s, at, len, x->dt, peer);
        tern_sched_round(x->s);
        tern_sched_reduce(x->s, tern_coll_elem(x->cur, lo, x->dt), at, len, x->dt,
                          x->a->op);
        x->cur = x->acc;
        return;
    }
    if (!x->tmp)
        x->tmp = tern_sched_scratch_typed(x->s, x->n, x->dt);
    tern_sched_recv(x->s, x->tmp, len, x->dt, peer);
    tern_sched_round(x->s);
    tern_sched_reduce(x->s, x->tmp, at, len, x->dt, x->a->op);
}

void tern_coll_reduce_rabenseifner(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    struct rab x = { .s = s, .a = a, .p = p, .q = 1, .n = a->rcount, .dt = a->rdt };
    if (x.n == 0 || x.dt->size == 0)
        return;
    x.cur = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if (p == 1) {
        if (x.cur != a->rbuf)
            tern_sched_copy(s, x.cur, x.n, x.dt, a->rbuf, x.n, x.dt);
        return;
    }
    while (x.q * 2 <= p)
        x.q *= 2;
    x.extra = p - x.q;
    int v = (r - a->root + p) % p, me;
    if (v < 2 * x.extra && v % 2) {
        tern_sched_send(s, x.cur, x.n, x.dt, (r - 1 + p) % p);
        return;
    }
    x.acc = r == a->root ? a->rbuf : tern_sched_scratch_typed(s, x.n, x.dt);
    if (v < 2 * x.extra) {
        absorb(&x, 0, x.n, (r + 1) % p);
        me = v / 2;
    } else {
        me = v - x.extra;
    }

    /* Recursive halving over the block range [lo, hi). */
    int lo = 0, hi = x.q;
    for (int mask = x.q / 2; mask > 0; mask >>= 1) {
        int peer = idx_rank(&x, me ^ mask), mid = lo + mask;
        int klo = (me & mask) ? mid : lo, khi = (me & mask) ? hi : mid;
        int slo = (me & mask) ? lo : mid, shi = (me & mask) ? mid : hi;
        send_range(&x, block_start(&x, slo), block_start(&x, shi), peer);
        absorb(&x, block_start(&x, klo), block_start(&x, khi), peer);
        lo = klo;
        hi = khi;
    }

    /* Binomial gather of the blocks to index 0, the root. A rank whose
     * blocks are all empty never combined anything; it sends nothing. */
    x.cur = x.acc;
    for (int mask = 1; mask < x.q; mask <<= 1) {
        if (me & mask) {
            send_range(&x, block_start(&x, me), block_start(&x, me + mask),
                       idx_rank(&x, me - mask));
            break;
        }
        size_t glo = block_start(&x, me + mask), ghi = block_start(&x, me + 2 * mask);
        if (ghi > glo)
            tern_sched_recv(s, tern_coll_elem(x.acc, glo, x.dt), ghi - glo, x.dt,
                            idx_rank(&x, me + mask));
        tern_sched_round(s);
    }
}
