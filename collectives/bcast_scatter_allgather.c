/*
 * Bcast by scatter then allgather (van de Geijn).
 *
 * Steps: the message is cut into p pieces; piece i goes to the rank i
 * places after the root (relative rank v = (r - root) mod p). First a
 * binomial scatter: a rank v > 0 receives, from v minus its lowest set
 * bit, the pieces of its whole subtree (v up to v + that bit, at most
 * p - 1) as one message, then hands each child v + 2^j its subtree's
 * pieces, largest subtree first. Then a ring allgather: in p - 1 rounds
 * rank v sends to v + 1 the piece it got last (its own first) and
 * receives the next one from v - 1. The message is cut in bytes of its
 * packed form, which all ranks agree on even when they describe the buffer
 * with different datatypes (the root one contiguous type of 4 ints, the
 * others 4 MPI_INT, say). Pieces go straight from and into a buffer that is
 * one contiguous run; any other is packed into a scratch buffer at the root
 * first and unpacked from it at the end. When there are fewer bytes than
 * ranks some pieces are empty; every rank knows which, and no message
 * carries one.
 *
 * Cost: scatter ceil(log2 p) * alpha + (p-1)/p * n * beta, allgather
 * (p - 1) * alpha + (p-1)/p * n * beta; about 2n bytes per rank instead of
 * the binomial tree's ceil(log2 p) * n on the critical path: in this model
 * it wins for large messages once p > 2, but its p - 1 + log2 p messages
 * cost more where ranks share cores (select_reduce.c has the measurements). Any
 * p >= 1.
 */
#include "collectives/algo.h"

/* How the buffer is cut: `units` units of type `dt` starting at `base`. */
struct pieces {
    void *base;
    size_t units;
    const struct tern_dtype *dt;
    int p;
};

/* First unit of piece i (i may be p: the end of the buffer). */
static size_t piece_start(const struct pieces *pc, int i)
{
    size_t q = pc->units / (size_t)pc->p, rem = pc->units % (size_t)pc->p;
    size_t ui = (size_t)i;
    return ui * q + (ui < rem ? ui : rem);
}

/* Sends (send != 0) or receives pieces [first, end) as one message. */
static void xfer(struct tern_sched *s, const struct pieces *pc, int first, int end,
                 int peer, int send)
{
    if (end > pc->p)
        end = pc->p;
    size_t lo = piece_start(pc, first), hi = piece_start(pc, end);
    if (hi == lo)
        return;
    void *at = tern_coll_elem(pc->base, lo, pc->dt);
    if (send)
        tern_sched_send(s, at, hi - lo, pc->dt, peer);
    else
        tern_sched_recv(s, at, hi - lo, pc->dt, peer);
}

/* The rank `v` places after the root. */
static int real(const struct tern_coll_args *a, int v)
{
    return (v + a->root) % a->size;
}

void tern_coll_bcast_scatter_allgather(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    if (p == 1 || a->rcount == 0 || a->rdt->size == 0)
        return;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    size_t bytes = a->rcount * a->rdt->size;
    int contig = tern_dtype_contig(a->rdt, a->rcount);
    struct pieces pc = { a->rbuf, bytes, byte, p };
    if (!contig) {
        pc.base = tern_sched_scratch(s, bytes);
        if (r == a->root)
            tern_sched_copy(s, a->rbuf, a->rcount, a->rdt, pc.base, bytes, byte);
    }
    int v = (r - a->root + p) % p;

    /* Binomial scatter: receive the subtree's pieces, pass on the children's. */
    int mask = 1;
    while (mask < p) {
        if (v & mask) {
            xfer(s, &pc, v, v + mask, real(a, v - mask), 0);
            tern_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < p)
            xfer(s, &pc, v + mask, v + 2 * mask, real(a, v + mask), 1);
    tern_sched_round(s);

    /* Ring allgather of the pieces, in relative numbering. */
    int right = real(a, v + 1), left = real(a, v - 1 + p);
    for (int i = 0; i < p - 1; i++) {
        int sp = (v - i + p) % p, rp = (v - i - 1 + p) % p;
        xfer(s, &pc, sp, sp + 1, right, 1);
        xfer(s, &pc, rp, rp + 1, left, 0);
        tern_sched_round(s);
    }
    if (!contig && r != a->root)
        tern_sched_copy(s, pc.base, bytes, byte, a->rbuf, a->rcount, a->rdt);
}
