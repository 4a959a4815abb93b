/*
 * The per-rank blocks of the gather-to-all and all-to-all collectives.
 *
 * Allgather, Allgatherv, Alltoall, Alltoallv and Alltoallw all move one
 * block per pair of ranks; they differ only in where a block lives and how
 * large it is. These helpers answer that once, so one builder can serve
 * several of the forms:
 *
 *   tern_coll_rblock(a, j)  the block of the receive buffer that holds what
 *                           rank j contributes (Allgather: rank j's block;
 *                           Alltoall: what j sends to this rank);
 *   tern_coll_sblock(a, j)  what this rank sends to rank j (Allgather: its
 *                           own send buffer whatever j is).
 *
 * The neighbourhood collectives use them too, with j the index of a
 * neighbour (neighbor_linear.c).
 *
 * Displacements are in elements of the type for the v forms and in bytes
 * for the w forms, as MPI says. With sbuf == MPI_IN_PLACE the input lives in
 * the receive buffer, so tern_coll_sblock returns the receive block (the
 * all-to-all builders must then save a block before it is overwritten).
 * Nothing here allocates or fails.
 */
#ifndef TERN_COLLECTIVES_BLOCKS_H
#define TERN_COLLECTIVES_BLOCKS_H

#include <stddef.h>

#include "collectives/algo.h"

struct tern_coll_block {
    void *buf;                      /* Address of the block's first element. */
    size_t count;                   /* Elements of dt. */
    const struct tern_dtype *dt;
};

static inline struct tern_coll_block tern_coll_rblock(const struct tern_coll_args *a, int j)
{
    struct tern_coll_block b;
    switch (a->kind) {
    case TERN_COLL_ALLGATHERV:
    case TERN_COLL_ALLTOALLV:
    case TERN_COLL_NEIGHBOR_ALLGATHERV:
    case TERN_COLL_NEIGHBOR_ALLTOALLV:
        b.buf = tern_coll_elem(a->rbuf, a->rdispls[j], a->rdt);
        b.count = a->rcounts[j];
        b.dt = a->rdt;
        break;
    case TERN_COLL_ALLTOALLW:
    case TERN_COLL_NEIGHBOR_ALLTOALLW:
        b.buf = (char *)a->rbuf + (ptrdiff_t)a->rdispls[j];
        b.count = a->rcounts[j];
        b.dt = a->rdts[j];
        break;
    default:
        b.buf = tern_coll_elem(a->rbuf, (size_t)j * a->rcount, a->rdt);
        b.count = a->rcount;
        b.dt = a->rdt;
        break;
    }
    return b;
}

static inline struct tern_coll_block tern_coll_sblock(const struct tern_coll_args *a, int j)
{
    if (a->sbuf == MPI_IN_PLACE)
        return tern_coll_rblock(a, j);
    struct tern_coll_block b;
    switch (a->kind) {
    case TERN_COLL_ALLTOALL:
    case TERN_COLL_NEIGHBOR_ALLTOALL:
        b.buf = tern_coll_elem(a->sbuf, (size_t)j * a->scount, a->sdt);
        b.count = a->scount;
        b.dt = a->sdt;
        break;
    case TERN_COLL_ALLTOALLV:
    case TERN_COLL_NEIGHBOR_ALLTOALLV:
        b.buf = tern_coll_elem(a->sbuf, a->sdispls[j], a->sdt);
        b.count = a->scounts[j];
        b.dt = a->sdt;
        break;
    case TERN_COLL_ALLTOALLW:
    case TERN_COLL_NEIGHBOR_ALLTOALLW:
        b.buf = (char *)a->sbuf + (ptrdiff_t)a->sdispls[j];
        b.count = a->scounts[j];
        b.dt = a->sdts[j];
        break;
    default:
        /* Allgather(v), also over neighbours: the same send buffer for
         * every peer. */
        b.buf = (void *)a->sbuf;
        b.count = a->scount;
        b.dt = a->sdt;
        break;
    }
    return b;
}

/* Packed bytes of a block. */
static inline size_t tern_coll_block_bytes(struct tern_coll_block b)
{
    return b.count * b.dt->size;
}

#endif
