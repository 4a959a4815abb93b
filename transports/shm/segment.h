/*
 * The per-host shared segment: its layout, and its creation, attachment and
 * removal.
 *
 * Lifecycle: local rank 0 creates the segment in init() under a unique name
 * (/tern-<uid>-<jobid>-<random>, mode 0600), after checking that /dev/shm
 * has room and reserving every byte with posix_fallocate(), so that touching
 * the mapping later can never raise SIGBUS. The other local ranks attach in
 * connect(); local rank 0 unlinks the name in ready(), once all have
 * attached, so a killed job leaves nothing behind. Each rank unmaps in
 * finalize().
 *
 * Layout: a header line (magic, geometry), one doorbell line per local rank,
 * then one ring per ordered pair of distinct local ranks, then the slots of
 * the collective area (coll_area.h), then the transfer area (xfer.h). The
 * ring carrying src -> dst (local ranks) is number
 * src * (n - 1) + (dst < src ? dst : dst - 1).
 *
 * Errors: TERN_ESHM, after one line on stderr that says what failed and how
 * to fix it.
 */
#ifndef TERN_SHM_SEGMENT_H
#define TERN_SHM_SEGMENT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "transports/shm/doorbell.h"
#include "transports/shm/ring.h"

#define TERN_SHM_MAGIC 0x7465726e73686d31ULL /* "ternshm1" */
#define TERN_SHM_DIR "/dev/shm"
#define TERN_SHM_NAME_MAX 160

struct tern_shm_seg_hdr {
    alignas(TERN_SHM_CACHE_LINE) uint64_t magic;
    uint64_t size;        /* Bytes in the whole segment. */
    uint32_t local_size;
    uint32_t ncells;
    uint32_t cell_size;
    uint32_t coll_slots;
    /* Set once by local rank 0 in ready() (calibrate.h): contiguous
     * messages past this many bytes go single copy; TERN_SHM_READ_NEVER
     * when the copy through the cells wins; 0 until decided. */
    _Atomic uint64_t contig_eager_max;
};

struct tern_shm_layout {
    int local_size;
    uint32_t ncells;
    uint32_t cell_size;
    size_t doorbell_off;  /* Offset of the doorbell array. */
    size_t ring_off;      /* Offset of the first ring. */
    size_t ring_bytes;    /* Bytes per ring. */
    uint32_t coll_slots;  /* Slots of the collective area. */
    size_t coll_off;      /* Offset of the first slot. */
    size_t xfer_off;      /* Offset of the transfer area (xfer.h). */
    size_t size;          /* Bytes in the whole segment. */
};

#define TERN_SHM_COLL_SLOTS_MAX 1024

/* Computes the layout for local_size ranks. Returns 0 or TERN_EINVAL (bad
 * geometry or a size that does not fit in size_t). */
int tern_shm_layout_compute(int local_size, uint32_t ncells, uint32_t cell_size,
                            uint32_t coll_slots, struct tern_shm_layout *l);

/* Formats a fresh, zero-filled segment at base: the header and every ring. */
void tern_shm_layout_format(void *base, const struct tern_shm_layout *l);

/* Checks that the header at base matches the layout. Returns 0 or TERN_ESHM. */
int tern_shm_layout_verify(const void *base, const struct tern_shm_layout *l);

static inline struct tern_shm_ring *
tern_shm_layout_ring(void *base, const struct tern_shm_layout *l, int src, int dst)
{
    size_t i = (size_t)src * (size_t)(l->local_size - 1)
               + (size_t)(dst < src ? dst : dst - 1);
    return (struct tern_shm_ring *)((char *)base + l->ring_off + i * l->ring_bytes);
}

static inline struct tern_shm_doorbell *
tern_shm_layout_doorbell(void *base, const struct tern_shm_layout *l, int local)
{
    return (struct tern_shm_doorbell *)((char *)base + l->doorbell_off)
           + local;
}

/*
 * The free-space check as a pure function: returns 0 when `avail` bytes
 * cover `needed`, else TERN_ESHM with one line in msg that names both sizes
 * and the fix.
 */
int tern_shm_space_check(size_t needed, size_t avail, char *msg, size_t msglen);

/* Writes a fresh unique name for a job's segment into name. */
int tern_shm_segment_name(char *name, size_t len, const char *jobid);

/* Creates, reserves and maps a new segment of `size` bytes. */
int tern_shm_segment_create(const char *name, size_t size, void **base);

/* Maps an existing segment, checking its owner, mode and size. */
int tern_shm_segment_attach(const char *name, size_t size, void **base);

/* Removes the name; existing mappings stay valid. */
int tern_shm_segment_unlink(const char *name);

/* Maps and touches every page of [addr, addr + len) (rounded out to whole
 * pages) in this process now, so that messages do not pay for the first
 * touch of each page later. On the reference VM (2 vCPUs under a
 * hypervisor that shadows page tables) a process's first touch of a page
 * of the segment cost about 10 us, mapped ahead or not, and since a ring's
 * cells are used in turn, the first 8 round trips of 64 KiB between two
 * ranks (one lap of the rings) took 230-380 us each against 8-10 us after
 * (Open MPI: 13-40). */
void tern_shm_segment_prefault(void *addr, size_t len);

/* Touches ahead (tern_shm_segment_prefault) the rings from local rank
 * `local` to each other local rank and back: the ones that rank uses. */
void tern_shm_layout_prefault_rings(void *base, const struct tern_shm_layout *l, int local);

/* Unmaps a segment mapped by create or attach. */
void tern_shm_segment_detach(void *base, size_t size);

#endif
