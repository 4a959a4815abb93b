/*
 * Allreduce as a Reduce to rank 0 followed by a Bcast from rank 0.
 *
 * Steps: the binomial Reduce (collectives/reduce_binomial.c) with root 0
 * combines the vectors in the library's canonical order for
 * non-commutative ops, x0 op x1 op ... op x(p-1) grouped along the
 * binomial tree; rank 0 then broadcasts the result with the algorithm the
 * Bcast choice picks for that size. So the result has the same bits as
 * MPI_Reduce's, whatever the op, and is the same on every rank.
 *
 * Buffers: rank 0 reduces into recvbuf; the other ranks combine in the
 * Reduce's scratch and receive the result into recvbuf. In place, the
 * input is recvbuf (the Reduce reads it before the Bcast overwrites it:
 * the two phases are in separate rounds).
 *
 * Cost: ceil(log2 p) (alpha + n beta + n gamma) for the Reduce plus the
 * Bcast's, ceil(log2 p) (alpha + n beta) for the binomial one. About twice
 * the latency of recursive doubling: the algorithm for non-commutative ops
 * (the only one allowed then), and a fallback for any op. Any p >= 1.
 */
#include "collectives/algo.h"

void tern_coll_allreduce_reduce_bcast(struct tern_sched *s, const struct tern_coll_args *a)
{
    int r = a->rank;
    int in_place = a->sbuf == MPI_IN_PLACE;
    struct tern_coll_args ra = *a;
    ra.kind = TERN_COLL_REDUCE;
    ra.root = 0;
    /* Reduce allows MPI_IN_PLACE only at the root: elsewhere the input is
     * named directly. */
    if (in_place && r != 0)
        ra.sbuf = a->rbuf;
    ra.scount = a->rcount;
    ra.sdt = a->rdt;
    tern_coll_reduce_binomial(s, &ra);
    tern_sched_round(s);

    struct tern_coll_args ba = {
        .kind = TERN_COLL_BCAST, .comm = a->comm, .size = a->size, .rank = r,
        .rbuf = a->rbuf,
        .rcount = a->rcount, .rdt = a->rdt, .root = 0,
    };
    const struct tern_coll_algo *bcast = tern_coll_select(&ba);
    if (bcast)
        bcast->build(s, &ba);
    else
        tern_coll_bcast_binomial(s, &ba);
}
