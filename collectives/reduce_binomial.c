/*
 * Reduce along a binomial tree.
 *
 * Steps: ranks are numbered along the tree (v); v > 0 has the parent v
 * minus its lowest set bit, and the children v + 2^j for each 2^j below
 * that bit (every 2^j < p for v = 0) with v + 2^j < p. The subtree of v
 * is the range v, v+1, ..., so a rank combines its own vector with its
 * children's partial results in increasing order of j, its own on the
 * left: own op c1 op c2 ..., which keeps the ranks' order. Each child's
 * vector is received (one child at a time: the smaller subtrees finish
 * first) into one of two buffers that take turns holding the partial
 * result, so keeping the operand order costs no copy; then the result
 * goes to the parent.
 *
 * Numbering: for a commutative op v = (r - root) mod p, so the tree ends at
 * the root. For a non-commutative op v = r: the tree ends at rank 0, whose
 * result x0 op x1 op ... op x(p-1) is then sent to the root if the root is
 * another rank. This is the library's one canonical order for
 * non-commutative reductions: every collective of the reduce family gives
 * the same bits, whatever its algorithm.
 *
 * Buffers: the input is sendbuf (recvbuf when the root passes
 * MPI_IN_PLACE), never written. recvbuf is used only at the root, where
 * the result lands without a final copy whenever the number of children
 * allows; other ranks combine in scratch. Leaves send their input as is.
 *
 * Cost: ceil(log2 p) * (alpha + n * beta + n * gamma) on the critical
 * path (one more alpha + n * beta when a non-commutative op has a root
 * other than 0). Latency-optimal; for long vectors and commutative ops
 * Rabenseifner's algorithm moves and reduces only about 2n per rank.
 * Any p >= 1, any op.
 */
#include "collectives/algo.h"

/* The tree's layout at this rank. */
struct tree {
    int p, v;
    int root_v0;        /* Rank that is v = 0 (the root, or 0). */
    int commute;
};

static int real(const struct tree *t, int v)
{
    return t->commute ? (v + t->root_v0) % t->p : v;
}

/* Combines the children's partial results with `own`; returns where the
 * result is. `want` (NULL if none) is where the caller would like it. */
static const void *combine(struct tern_sched *s, const struct tern_coll_args *a,
                           const struct tree *t, const void *own, void *want)
{
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    int child[32], k = 0;
    for (int mask = 1; mask < t->p && !(t->v & mask); mask <<= 1)
        if (t->v + mask < t->p)
            child[k++] = real(t, t->v + mask);
    if (k == 0)
        return own;
    /* After child i (from 1) the result is in buf[(i - 1) % 2]. */
    void *buf[2] = { NULL, NULL };
    int last = (k - 1) % 2;
    if (want && (last == 1 || want != own))
        buf[last] = want;
    for (int i = 0; i < 2 && i < k; i++)
        if (!buf[i])
            buf[i] = tern_sched_scratch_typed(s, n, dt);
    const void *acc = own;
    for (int i = 0; i < k; i++) {
        void *in = buf[i % 2];
        tern_sched_recv(s, in, n, dt, child[i]);
        tern_sched_round(s);
        tern_sched_reduce(s, acc, in, n, dt, a->op);
        acc = in;
    }
    return acc;
}

void tern_coll_reduce_binomial(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    size_t n = a->rcount;
    const struct tern_dtype *dt = a->rdt;
    if (n == 0 || dt->size == 0)
        return;
    const void *own = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    struct tree t = { .p = p, .commute = tern_coll_commutative(a) };
    t.root_v0 = t.commute ? a->root : 0;
    t.v = t.commute ? (r - a->root + p) % p : r;

    void *want = r == a->root ? a->rbuf : NULL;
    const void *res = combine(s, a, &t, own, t.v == 0 ? want : NULL);
    if (t.v > 0) {
        tern_sched_send(s, res, n, dt, real(&t, t.v - (t.v & -t.v)));
        if (r == a->root) {
            /* Non-commutative op, root other than 0: rank 0 sends the result. */
            tern_sched_round(s);
            tern_sched_recv(s, a->rbuf, n, dt, 0);
        }
    } else if (r == a->root) {
        if (res != a->rbuf)
            tern_sched_copy(s, res, n, dt, a->rbuf, n, dt);
    } else {
        tern_sched_send(s, res, n, dt, a->root);
    }
}
