/*
 * Scatter along a binomial tree.
 *
 * Steps: ranks are numbered from the root, v = (r - root) mod p; the
 * subtree of v > 0 is v, v+1, ..., v + b - 1 (b its lowest set bit, cut at
 * p). The root sends each child v = 2^j the blocks of its subtree as one
 * message, the largest subtree first, straight from sendbuf; only the one
 * child whose ranks run past p - 1 and wrap to 0 gets its blocks packed
 * into scratch first. A middle rank receives its subtree's blocks packed
 * (MPI_BYTE) into scratch, hands each child its part from there, largest
 * first, and unpacks its own block into recvbuf. A leaf receives its block
 * straight into recvbuf.
 *
 * Relayed blocks travel packed because the root's send type and the
 * others' receive types may differ as long as their signatures match. With
 * MPI_IN_PLACE as the root's recvbuf its block stays in sendbuf and its
 * recvcount and recvtype are not looked at.
 *
 * Cost: ceil(log2 p) * alpha + (p-1)/p * N * beta at the root for N = p * n
 * scattered bytes, plus a copy of the relayed bytes at every middle rank;
 * the choice for small blocks, the linear algorithm for large ones. Any
 * p >= 1.
 */
#include "collectives/algo.h"

static int min_int(int x, int y)
{
    return x < y ? x : y;
}

/* The root: sends every child its subtree's blocks. */
static void distribute(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, root = a->root;
    size_t sc = a->scount, bsz = sc * a->sdt->size;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    if (a->rbuf != MPI_IN_PLACE)
        tern_sched_copy(s, tern_coll_elem(a->sbuf, (size_t)root * sc, a->sdt), sc, a->sdt,
                        a->rbuf, a->rcount, a->rdt);
    int top = 1;
    while (top * 2 < p)
        top *= 2;
    for (int mask = top; mask > 0 && mask < p; mask >>= 1) {
        int first = (root + mask) % p, cnt = min_int(mask, p - mask);
        if (first + cnt <= p) {
            tern_sched_send(s, tern_coll_elem(a->sbuf, (size_t)first * sc, a->sdt),
                            (size_t)cnt * sc, a->sdt, first);
            continue;
        }
        char *pack = tern_sched_scratch(s, (size_t)cnt * bsz);
        if (!pack)
            return;
        int tail = p - first;
        tern_sched_copy(s, tern_coll_elem(a->sbuf, (size_t)first * sc, a->sdt),
                        (size_t)tail * sc, a->sdt, pack, (size_t)tail * bsz, byte);
        tern_sched_copy(s, a->sbuf, (size_t)(cnt - tail) * sc, a->sdt,
                        pack + (size_t)tail * bsz, (size_t)(cnt - tail) * bsz, byte);
        tern_sched_send(s, pack, (size_t)cnt * bsz, byte, first);
    }
}

/* A non-root rank v: takes its subtree's blocks and passes on its
 * children's. */
static void pass_on(struct tern_sched *s, const struct tern_coll_args *a, int v)
{
    int p = a->size, low = v & -v, m = min_int(low, p - v);
    int parent = (v - low + a->root) % p;
    if (m == 1) {
        tern_sched_recv(s, a->rbuf, a->rcount, a->rdt, parent);
        return;
    }
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    size_t bsz = a->rcount * a->rdt->size;
    char *tmp = tern_sched_scratch(s, (size_t)m * bsz);
    if (!tmp)
        return;
    tern_sched_recv(s, tmp, (size_t)m * bsz, byte, parent);
    tern_sched_round(s);
    for (int mask = low >> 1; mask > 0; mask >>= 1)
        if (v + mask < p)
            tern_sched_send(s, tmp + (size_t)mask * bsz,
                            (size_t)min_int(mask, p - v - mask) * bsz, byte,
                            (v + mask + a->root) % p);
    tern_sched_copy(s, tmp, bsz, byte, a->rbuf, a->rcount, a->rdt);
}

void tern_coll_scatter_binomial(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    if (r == a->root) {
        if (a->scount * a->sdt->size > 0)
            distribute(s, a);
        return;
    }
    if (a->rcount * a->rdt->size > 0)
        pass_on(s, a, (r - a->root + p) % p);
}
