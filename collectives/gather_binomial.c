/*
 * Gather along a binomial tree.
 *
 * Steps: ranks are numbered from the root, v = (r - root) mod p. The
 * subtree of v > 0 is v, v+1, ..., v + b - 1 (b its lowest set bit, cut at
 * p); a leaf sends its block to its parent, v - b, straight from sendbuf.
 * Any other rank packs its own block into a byte buffer for the subtree,
 * receives there each child's subtree (child v + 2^j brings the blocks
 * v + 2^j ...) all at once, then sends the lot to its parent as one
 * message. The root receives each child's blocks straight into recvbuf,
 * which holds them in rank order; only the one child whose ranks run past
 * p - 1 and wrap to 0 lands in scratch first and is copied in two parts.
 *
 * Relayed blocks travel packed (MPI_BYTE, count * size bytes each), since
 * the root's receive type and the others' send types may differ as long
 * as their signatures match. With MPI_IN_PLACE at the root its block is
 * already in recvbuf and its sendcount and sendtype are not looked at.
 *
 * Cost: ceil(log2 p) * alpha + (p-1)/p * N * beta at the root for N = p * n
 * gathered bytes, but every relayed byte is also copied through a middle
 * rank (up to log2 p times); so it is the choice for small blocks, where
 * latency dominates, and the linear algorithm for large ones. Any p >= 1.
 */
#include "collectives/algo.h"

static int min_int(int x, int y)
{
    return x < y ? x : y;
}

/* A non-root rank v: relays its subtree's blocks to its parent. */
static void relay(struct tern_sched *s, const struct tern_coll_args *a, int v)
{
    int p = a->size, low = v & -v, m = min_int(low, p - v);
    int parent = (v - low + a->root) % p;
    if (m == 1) {
        tern_sched_send(s, a->sbuf, a->scount, a->sdt, parent);
        return;
    }
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    size_t bsz = a->scount * a->sdt->size;
    char *tmp = tern_sched_scratch(s, (size_t)m * bsz);
    if (!tmp)
        return;
    tern_sched_copy(s, a->sbuf, a->scount, a->sdt, tmp, bsz, byte);
    for (int mask = 1; mask < low && v + mask < p; mask <<= 1)
        tern_sched_recv(s, tmp + (size_t)mask * bsz,
                        (size_t)min_int(mask, p - v - mask) * bsz, byte,
                        (v + mask + a->root) % p);
    tern_sched_round(s);
    tern_sched_send(s, tmp, (size_t)m * bsz, byte, parent);
}

/* The root: receives every child's blocks into recvbuf. */
static void collect(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, root = a->root;
    size_t rc = a->rcount, bsz = rc * a->rdt->size;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    if (a->sbuf != MPI_IN_PLACE)
        tern_sched_copy(s, a->sbuf, a->scount, a->sdt,
                        tern_coll_elem(a->rbuf, (size_t)root * rc, a->rdt), rc, a->rdt);
    char *wrap = NULL;
    int wfirst = 0, wcnt = 0;
    for (int mask = 1; mask < p; mask <<= 1) {
        int first = (root + mask) % p, cnt = min_int(mask, p - mask);
        if (first + cnt <= p) {
            tern_sched_recv(s, tern_coll_elem(a->rbuf, (size_t)first * rc, a->rdt),
                            (size_t)cnt * rc, a->rdt, first);
            continue;
        }
        wrap = tern_sched_scratch(s, (size_t)cnt * bsz);
        if (!wrap)
            return;
        wfirst = first;
        wcnt = cnt;
        tern_sched_recv(s, wrap, (size_t)cnt * bsz, byte, first);
    }
    if (!wrap)
        return;
    tern_sched_round(s);
    int tail = p - wfirst;
    tern_sched_copy(s, wrap, (size_t)tail * bsz, byte,
                    tern_coll_elem(a->rbuf, (size_t)wfirst * rc, a->rdt),
                    (size_t)tail * rc, a->rdt);
    tern_sched_copy(s, wrap + (size_t)tail * bsz, (size_t)(wcnt - tail) * bsz, byte,
                    a->rbuf, (size_t)(wcnt - tail) * rc, a->rdt);
}

void tern_coll_gather_binomial(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    if (r == a->root) {
        if (a->rcount * a->rdt->size > 0)
            collect(s, a);
        return;
    }
    if (a->scount * a->sdt->size > 0)
        relay(s, a, (r - a->root + p) % p);
}
