/*
 * Allreduce by Rabenseifner's algorithm: a reduce-scatter by recursive
 * halving, then an allgather by recursive doubling.
 *
 * Steps: let q be the largest power of two <= p and e = p - q. Fold: of
 * the 2e lowest ranks each even one sends its whole vector to the odd one
 * above it, which combines it with its own and stands for both; the even
 * ones wait for the result. The q remaining ranks are renumbered
 * v = 0 .. q-1 and the vector is cut into q chunks at element boundaries.
 * Halving: for mask = q/2, q/4, ..., 1 a rank exchanges half of the chunks
 * it is still responsible for with v ^ mask, keeps the half on its side of
 * the mask (the lower half if its bit is clear) and combines the received
 * copy of that half into its own; after log2 q steps rank v holds chunk v
 * reduced over all ranks. Doubling: the same pairs in reverse order
 * exchange the reduced chunks they have, doubling them each step. Unfold:
 * each odd rank of the first 2e sends the result to its even partner.
 * Each chunk is reduced on one rank only and copied afterwards, so every
 * rank gets the same bits.
 *
 * Buffers: while the input is still in sendbuf (the first halving step of
 * a rank that does not fold), the kept half is received straight into
 * recvbuf and combined there with sendbuf; afterwards each step receives
 * into a scratch buffer of n/2 elements (n for an odd rank of the fold
 * in place). In place, the input is recvbuf.
 *
 * Cost: 2 log2 q alpha + 2 (q - 1)/q n beta + (q - 1)/q n gamma, plus
 * 2 (alpha + n beta) + n gamma when p is not a power of two. Fewer
 * messages than the ring for the same bytes: the choice for mid-size and
 * long vectors when p is not small. Any p >= 1; commutative ops only.
 */
#include "collectives/algo.h"

/* Renumbered index -> rank. */
static int real_rank(int v, int extra)
{
    return v < extra ? 2 * v + 1 : v + extra;
}

/* Where chunks [lo, hi) of a buffer start; they hold slen(n, q, lo, hi)
 * elements. */
static void *span(const void *buf, size_t n, int q, int lo, const struct tern_dtype *dt)
{
    return tern_coll_elem(buf, tern_coll_part_off(n, q, lo), dt);
}

static size_t slen(size_t n, int q, int lo, int hi)
{
    return tern_coll_part_off(n, q, hi) - tern_coll_part_off(n, q, lo);
}

/* The halving and doubling steps of renumbered rank v; `fresh` when the
 * input is still in sendbuf. */
static void halve_double(struct tern_sched *s, const struct tern_coll_args *a,
                         int q, int extra, int v, int fresh)
{
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    void *buf = a->rbuf, *tmp = NULL;
    int lo = 0, hi = q;
    for (int mask = q / 2; mask >= 1; mask >>= 1) {
        int peer = real_rank(v ^ mask, extra), mid = lo + mask;
        int klo = v & mask ? mid : lo, khi = v & mask ? hi : mid;
        int slo = v & mask ? lo : mid, shi = v & mask ? mid : hi;
        tern_sched_send(s, span(fresh ? a->sbuf : buf, n, q, slo, dt), slen(n, q, slo, shi),
                        dt, peer);
        void *keep = span(buf, n, q, klo, dt);
        size_t len = slen(n, q, klo, khi);
        if (!fresh && !tmp)
            tmp = tern_sched_scratch_typed(s, tern_coll_part_off(n, q, q / 2), dt);
        tern_sched_recv(s, fresh ? keep : tmp, len, dt, peer);
        tern_sched_round(s);
        const void *mine = fresh ? span(a->sbuf, n, q, klo, dt) : tmp;
        tern_sched_reduce(s, mine, keep, len, dt, a->op);
        fresh = 0;
        lo = klo;
        hi = khi;
    }
    for (int mask = 1; mask < q; mask <<= 1) {
        int peer = real_rank(v ^ mask, extra);
        int plo = v & mask ? lo - mask : hi, phi = plo + mask;
        tern_sched_send(s, span(buf, n, q, lo, dt), slen(n, q, lo, hi), dt, peer);
        tern_sched_recv(s, span(buf, n, q, plo, dt), slen(n, q, plo, phi), dt, peer);
        tern_sched_round(s);
        lo = lo < plo ? lo : plo;
        hi = hi > phi ? hi : phi;
    }
}

void tern_coll_allreduce_rabenseifner(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    void *buf = a->rbuf;
    int in_place = a->sbuf == MPI_IN_PLACE;
    if (p == 1) {
        if (!in_place)
            tern_sched_copy(s, a->sbuf, n, dt, buf, n, dt);
        return;
    }
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    int extra = p - q;
    if (r < 2 * extra && r % 2 == 0) {
        tern_sched_send(s, in_place ? buf : a->sbuf, n, dt, r + 1);
        tern_sched_round(s);
        tern_sched_recv(s, buf, n, dt, r + 1);
        return;
    }
    int fresh = !in_place;
    if (r < 2 * extra) {
        void *tmp = in_place ? tern_sched_scratch_typed(s, n, dt) : buf;
        tern_sched_recv(s, tmp, n, dt, r - 1);
        tern_sched_round(s);
        tern_sched_reduce(s, in_place ? tmp : a->sbuf, buf, n, dt, a->op);
        fresh = 0;
    }
    halve_double(s, a, q, extra, r < 2 * extra ? r / 2 : r - extra, fresh);
    if (r < 2 * extra)
        tern_sched_send(s, buf, n, dt, r - 1);
}
