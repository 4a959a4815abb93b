/*
 * A single-producer single-consumer ring of fixed-size cells in shared memory.
 *
 * One ring carries the packets of one ordered pair of ranks (sender ->
 * receiver) on a host. It knows nothing about MPI: a packet is up to
 * cell_size - TERN_SHM_CELL_HDR bytes, copied into one cell whole or not at
 * all, and read back in order by the single consumer. No locks, no system
 * calls.
 *
 * Layout (every part starts on its own 64-byte cache line):
 *
 *   line 0  producer line: head (next position to write) and tail_cache (the
 *           last consumer tail the producer saw). Only the producer touches
 *           it, so it never leaves the producer's cache.
 *   line 1  consumer line: tail (next position to read), written by the
 *           consumer after each packet, read by the producer only when its
 *           tail_cache says the ring looks full.
 *   line 2  geometry: ncells (a power of two) and cell_size (a multiple of
 *           64), written once by the creator before anyone attaches.
 *   cells   ncells cells of cell_size bytes. Each cell starts with a 32-bit
 *           sequence word and a 32-bit length, followed by the packet.
 *
 * Positions are 64-bit counters that never wrap in practice; the cell of
 * position p is p & (ncells - 1). A cell holds the packet of position p when
 * its sequence word equals (uint32_t)(p + 1). The consumer therefore polls the
 * sequence word of the cell it wants next, which shares a cache line with the
 * length and the first bytes of the packet: a small message crosses from the
 * producer's core to the consumer's in a single cache-line transfer, and the
 * consumer never reads the producer's head. A sequence word left over from
 * the previous lap is p + 1 - ncells, never p + 1, and zero-filled memory
 * (a fresh segment) is never p + 1 for the first lap, so no reset is needed.
 *
 * Memory ordering (C11 acquire/release only):
 *   - Publish: the producer writes the packet and the length with plain
 *     stores, then stores the sequence word with release. A consumer whose
 *     acquire load of that word reads p + 1 is ordered after those stores and
 *     sees the whole packet.
 *   - Free: the consumer reads the packet, then stores tail = p + 1 with
 *     release. A producer whose acquire load of tail reads a value > p is
 *     ordered after the consumer's reads of cell p, so refilling that cell
 *     cannot change bytes the consumer is still reading.
 *   - The producer may use a stale tail_cache: it only underestimates free
 *     space, which costs a reload, never a lost or overwritten packet.
 * Waking a sleeping consumer needs a full fence on top of this; see
 * doorbell.h.
 */
#ifndef TERN_SHM_RING_H
#define TERN_SHM_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tern/err.h"

#define TERN_SHM_CACHE_LINE 64
/* Bytes at the start of every cell before the packet: sequence and length. */
#define TERN_SHM_CELL_HDR 8

struct tern_shm_cell {
    _Atomic uint32_t seq;  /* (uint32_t)(position + 1) once the cell is full. */
    uint32_t len;          /* Packet length in bytes. */
    unsigned char data[];  /* The packet. */
};

struct tern_shm_ring {
    alignas(TERN_SHM_CACHE_LINE) uint64_t head;  /* Producer only. */
    uint64_t tail_cache;                         /* Producer only. */
    alignas(TERN_SHM_CACHE_LINE) _Atomic uint64_t tail;  /* Consumer writes. */
    alignas(TERN_SHM_CACHE_LINE) uint32_t ncells;
    uint32_t cell_size;
    alignas(TERN_SHM_CACHE_LINE) unsigned char cells[];
};

/* Bytes that a ring of ncells cells of cell_size bytes occupies; a multiple
 * of the cache line. */
size_t tern_shm_ring_bytes(uint32_t ncells, uint32_t cell_size);

/* Checks a geometry: ncells a power of two >= 2, cell_size a multiple of the
 * cache line and larger than the cell header. Returns 0 or TERN_EINVAL. */
int tern_shm_ring_check_geometry(uint32_t ncells, uint32_t cell_size);

/* Formats a ring at `mem`: tern_shm_ring_bytes() bytes, cache-line aligned,
 * zero-filled (as fresh shared memory is) and not yet visible to any other
 * process. Returns 0 or TERN_EINVAL. */
int tern_shm_ring_init(void *mem, uint32_t ncells, uint32_t cell_size);

/* Largest packet one cell holds. */
static inline size_t tern_shm_ring_max_packet(const struct tern_shm_ring *r)
{
    return r->cell_size - TERN_SHM_CELL_HDR;
}

static inline struct tern_shm_cell *tern_shm_ring_cell(struct tern_shm_ring *r,
                                                       uint64_t pos)
{
    return (struct tern_shm_cell *)
        (r->cells + (size_t)(pos & (r->ncells - 1)) * r->cell_size);
}

/*
 * Copies n bytes into a cell. From 1 KiB on, with x86's rep movsb: its
 * fast-string stores write whole lines without first fetching them from
 * the consumer's cache, where the last lap left them, while glibc's memcpy
 * takes that path only past about 2 KiB. Bandwidth, 2 ranks, window of 64:
 * 1 KiB 2980 -> 3990 MB/s, 2 KiB 4200 -> 6090 (Open MPI 4210 and 4920);
 * at 512 B it made no difference.
 */
static inline void tern_shm_copy_in(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__)
    if (n >= 1024) {
        __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
        return;
    }
#endif
    memcpy(dst, src, n);
}

/*
 * Producer: copies hdr then payload into the next cell as one packet.
 * Returns 0, TERN_EAGAIN when the ring is full (nothing was written), or
 * TERN_EINVAL when the packet is larger than a cell.
 */
static inline int tern_shm_ring_push(struct tern_shm_ring *r,
                                     const void *hdr, size_t hdr_len,
                                     const void *payload, size_t payload_len)
{
    uint64_t head = r->head;
    size_t len = hdr_len + payload_len;

    if (len > tern_shm_ring_max_packet(r))
        return TERN_EINVAL;
    if (head - r->tail_cache >= r->ncells) {
        r->tail_cache = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (head - r->tail_cache >= r->ncells)
            return TERN_EAGAIN;
    }
    struct tern_shm_cell *c = tern_shm_ring_cell(r, head);
    if (hdr_len)
        memcpy(c->data, hdr, hdr_len);
    if (payload_len)
        tern_shm_copy_in(c->data + hdr_len, payload, payload_len);
    c->len = (uint32_t)len;
    atomic_store_explicit(&c->seq, (uint32_t)(head + 1), memory_order_release);
    r->head = head + 1;
    return 0;
}

/*
 * Consumer: returns the next packet's cell, or NULL when the ring is empty.
 * The packet stays valid until tern_shm_ring_pop(); peeking twice returns
 * the same packet.
 */
static inline struct tern_shm_cell *tern_shm_ring_peek(struct tern_shm_ring *r)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    struct tern_shm_cell *c = tern_shm_ring_cell(r, tail);

    if (atomic_load_explicit(&c->seq, memory_order_acquire) != (uint32_t)(tail + 1))
        return NULL;
    return c;
}

/* Consumer: frees the cell returned by the last successful peek. */
static inline void tern_shm_ring_pop(struct tern_shm_ring *r)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    atomic_store_explicit(&r->tail, tail + 1, memory_order_release);
}

/* Consumer: 1 when a packet is waiting. */
static inline int tern_shm_ring_ready(struct tern_shm_ring *r)
{
    return tern_shm_ring_peek(r) != NULL;
}

#endif
