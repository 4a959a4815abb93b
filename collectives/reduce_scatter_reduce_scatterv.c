/*
 * Reduce_scatter and Reduce_scatter_block as a Reduce to rank 0 followed
 * by a binomial Scatterv from rank 0.
 *
 * Steps: the binomial Reduce (collectives/reduce_binomial.c) with root 0
 * combines the whole vector of N elements in the library's canonical order
 * for non-commutative ops, so the result has the same bits as MPI_Reduce's
 * and MPI_Allreduce's. Rank 0 then scatters the blocks down a binomial
 * tree: the ranks of a subtree (v, v+1, ..., below v's lowest set bit) are
 * consecutive, so their blocks are one contiguous range of the vector and
 * travel as one message. A rank receives its subtree's range, keeps its own
 * block and forwards each child's range, largest subtree first.
 *
 * Buffers: rank 0 reduces into a scratch vector of N elements; inner ranks
 * of the scatter receive their range into scratch; leaves receive their
 * block straight into recvbuf. In place (sendbuf == MPI_IN_PLACE) the input
 * is recvbuf, which then holds the whole vector; the result goes to its
 * start.
 *
 * Cost: ceil(log2 p) (alpha + N beta + N gamma) for the Reduce, then
 * ceil(log2 p) alpha + (p - 1)/p N beta at most for the scatter. The
 * algorithm for non-commutative ops (the only one allowed then), and for
 * short vectors on more than a few ranks, where the ring's p - 1 steps
 * cost more than 2 log2 p. Any p >= 1, any op.
 */
#include "collectives/algo.h"

/* Scatters rank v's range [v, end) of `vec` (which starts at block v) to
 * its subtree, after keeping block v. */
static void scatter_down(struct tern_sched *s, const struct tern_coll_args *a,
                         const size_t *off, const void *vec, int v, int top)
{
    int p = a->size;
    const struct tern_dtype *dt = a->rdt;
    size_t mine = tern_coll_rs_block(a, v);
    tern_sched_copy(s, vec, mine, dt, a->rbuf, mine, dt);
    for (int mask = top; mask > 0; mask >>= 1) {
        int c = v + mask;
        if (c >= p)
            continue;
        int end = c + mask < p ? c + mask : p;
        tern_sched_send(s, tern_coll_elem(vec, off[c] - off[v], dt), off[end] - off[c], dt, c);
    }
}

void tern_coll_reduce_scatter_reduce_scatterv(struct tern_sched *s,
                                              const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    const struct tern_dtype *dt = a->rdt;
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if (p == 1) {
        size_t n = tern_coll_rs_block(a, 0);
        if (in != a->rbuf)
            tern_sched_copy(s, in, n, dt, a->rbuf, n, dt);
        return;
    }
    size_t *off = tern_sched_scratch(s, (size_t)(p + 1) * sizeof(*off));
    if (!off)
        return;
    off[0] = 0;
    for (int i = 0; i < p; i++)
        off[i + 1] = off[i] + tern_coll_rs_block(a, i);
    size_t total = off[p];

    struct tern_coll_args ra = {
        .kind = TERN_COLL_REDUCE, .comm = a->comm, .size = p, .rank = r, .sbuf = in,
        .scount = total, .rcount = total, .sdt = dt, .rdt = dt, .op = a->op, .root = 0,
    };
    if (r == 0)
        ra.rbuf = tern_sched_scratch_typed(s, total, dt);
    tern_coll_reduce_binomial(s, &ra);
    tern_sched_round(s);

    int low = r & -r;
    if (r == 0) {
        int top = 1;
        while (top * 2 < p)
            top *= 2;
        scatter_down(s, a, off, ra.rbuf, 0, top);
        return;
    }
    int end = r + low < p ? r + low : p;
    if (end == r + 1) {
        tern_sched_recv(s, a->rbuf, tern_coll_rs_block(a, r), dt, r - low);
        return;
    }
    void *vec = tern_sched_scratch_typed(s, off[end] - off[r], dt);
    tern_sched_recv(s, vec, off[end] - off[r], dt, r - low);
    tern_sched_round(s);
    scatter_down(s, a, off, vec, r, low / 2);
}
