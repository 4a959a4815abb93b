/*
 * The parts of the shared-memory ring that are not on the fast path: its
 * size, the check of its geometry and its formatting. The push / peek / pop
 * fast path is inline in ring.h, which also explains the layout and the
 * memory ordering.
 */
#include <string.h>

#include "transports/shm/ring.h"

_Static_assert(offsetof(struct tern_shm_ring, tail) == TERN_SHM_CACHE_LINE,
               "the consumer line must follow the producer line");
_Static_assert(offsetof(struct tern_shm_ring, cells) == 3 * TERN_SHM_CACHE_LINE,
               "cells start after three cache lines");
_Static_assert(sizeof(struct tern_shm_cell) == TERN_SHM_CELL_HDR,
               "the cell header is a sequence word and a length");

size_t tern_shm_ring_bytes(uint32_t ncells, uint32_t cell_size)
{
    return sizeof(struct tern_shm_ring) + (size_t)ncells * cell_size;
}

int tern_shm_ring_check_geometry(uint32_t ncells, uint32_t cell_size)
{
    if (ncells < 2 || (ncells & (ncells - 1)) != 0)
        return TERN_EINVAL;
    if (cell_size <= TERN_SHM_CELL_HDR || cell_size % TERN_SHM_CACHE_LINE != 0)
        return TERN_EINVAL;
    return 0;
}

int tern_shm_ring_init(void *mem, uint32_t ncells, uint32_t cell_size)
{
    struct tern_shm_ring *r = mem;

    if (tern_shm_ring_check_geometry(ncells, cell_size) != 0)
        return TERN_EINVAL;
    /* Only the header is written: a cell is recognised by its sequence word,
     * and the cells of fresh shared memory are zero-filled already. Leaving
     * them untouched keeps the creator from faulting in every page of every
     * ring (and, on a NUMA host, from placing them all on its own node). */
    memset(r, 0, sizeof(*r));
    r->ncells = ncells;
    r->cell_size = cell_size;
    return 0;
}
