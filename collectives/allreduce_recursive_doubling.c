/*
 * Allreduce by recursive doubling.
 *
 * Steps: let q be the largest power of two <= p and e = p - q. First the
 * 2e lowest ranks pair up: each even one sends its vector to the odd one
 * above it, which reduces it into its own and stands for both. Then the q
 * remaining ranks run log2 q rounds: in round k a rank exchanges its whole
 * vector with the rank whose (renumbered) index differs in bit k, and both
 * reduce, the lower rank's vector always the left operand, so every rank
 * computes the same value. Finally each odd rank of the first 2e sends the
 * result back to its even partner.
 *
 * Cost: (log2 q + 2 [if p is not a power of two]) * (alpha + n * beta) +
 * (log2 q + 1) * n * gamma. Latency-optimal: the choice for small vectors.
 * For a non-commutative op the pairing keeps rank order, so the result is
 * x0 op x1 op ... op x(p-1) with the grouping of a binary tree.
 */
#include "collectives/algo.h"

/* Renumbered index -> rank. */
static int real_rank(int v, int extra)
{
    return v < extra ? 2 * v + 1 : v + extra;
}

void tern_coll_allreduce_recursive_doubling(struct tern_sched *s,
                                            const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    void *buf = a->rbuf;
    if (a->sbuf != MPI_IN_PLACE)
        tern_sched_copy(s, a->sbuf, n, dt, buf, n, dt);
    if (p == 1)
        return;
    void *tmp = tern_sched_scratch_typed(s, n, dt);
    int q = 1;
    while (q * 2 <= p)
        q *= 2;
    int extra = p - q, v;
    if (r < 2 * extra) {
        if (r % 2 == 0) {
            tern_sched_send(s, buf, n, dt, r + 1);
            v = -1;
        } else {
            tern_sched_recv(s, tmp, n, dt, r - 1);
            tern_sched_round(s);
            tern_sched_reduce(s, tmp, buf, n, dt, a->op);
            v = r / 2;
        }
    } else {
        v = r - extra;
    }
    if (v >= 0) {
        /* `cur` holds this rank's partial result, `spare` takes the
         * partner's; when the partner is the higher rank the result lands in
         * `spare` and the two swap roles, so keeping the operand order costs
         * no copy. */
        void *cur = buf, *spare = tmp;
        for (int mask = 1; mask < q; mask <<= 1) {
            int peer = real_rank(v ^ mask, extra);
            tern_sched_send(s, cur, n, dt, peer);
            tern_sched_recv(s, spare, n, dt, peer);
            tern_sched_round(s);
            if (peer < r) {
                tern_sched_reduce(s, spare, cur, n, dt, a->op);
            } else {
                tern_sched_reduce(s, cur, spare, n, dt, a->op);
                void *t = cur;
                cur = spare;
                spare = t;
            }
        }
        if (cur != buf)
            tern_sched_copy(s, cur, n, dt, buf, n, dt);
    }
    tern_sched_round(s);
    if (r < 2 * extra) {
        if (r % 2 == 0)
            tern_sched_recv(s, buf, n, dt, r + 1);
        else
            tern_sched_send(s, buf, n, dt, r - 1);
    }
}
