/*
 * Memory for unexpected messages, with a cache of freed entries.
 *
 * A receiver that falls behind a streaming sender drains the transport into
 * unexpected entries, up to a ring's worth (32 cells of 32 KiB on shm), and
 * frees them one by one as its receives catch up. Taken from malloc, those
 * entries grow the heap by up to a MiB and give it back every time (glibc
 * trims the top of the heap above 128 KiB), and each cycle faults the pages
 * in again and flushes the TLB. On the 2-core reference VM a stream of
 * blocking 8 KiB sends took 40 us a message that way (Open MPI: 5 us), and
 * 0.4 us with glibc's trimming turned off. So freed entries are kept, by
 * power-of-two size class, up to CACHE_BUDGET bytes in all. Entries above
 * the largest class (past every transport's default eager limit) come from
 * malloc and go straight back to it.
 */
#include <stdlib.h>

#include "libmpi/p2p/match.h"

#define CLASS_MIN_SHIFT 8      /* 256 B of payload, */
#define CLASS_MAX_SHIFT 17     /* to 128 KiB. */
#define NCLASSES (CLASS_MAX_SHIFT - CLASS_MIN_SHIFT + 1)
#define NO_CLASS 0xff
/* Enough for four shm rings of 32 KiB messages. */
#define CACHE_BUDGET ((size_t)4 << 20)

static struct tern_unexp *cache[NCLASSES];
static size_t cached_bytes;

static size_t class_payload(int c)
{
    return (size_t)1 << (c + CLASS_MIN_SHIFT);
}

/* The smallest class that holds `payload` bytes, or NO_CLASS. */
static int class_of(size_t payload)
{
    for (int c = 0; c < NCLASSES; c++)
        if (payload <= class_payload(c))
            return c;
    return NO_CLASS;
}

struct tern_unexp *tern_unexp_alloc(size_t payload)
{
    int c = class_of(payload);
    struct tern_unexp *u;
    if (c == NO_CLASS) {
        u = malloc(sizeof(*u) + payload);
    } else if (cache[c]) {
        u = cache[c];
        cache[c] = u->next;
        cached_bytes -= class_payload(c);
    } else {
        u = malloc(sizeof(*u) + class_payload(c));
    }
    if (u)
        u->size_class = (uint8_t)c;
    return u;
}

void tern_unexp_free(struct tern_unexp *u)
{
    int c = u->size_class;
    if (c == NO_CLASS || cached_bytes + class_payload(c) > CACHE_BUDGET) {
        free(u);
        return;
    }
    u->next = cache[c];
    cache[c] = u;
    cached_bytes += class_payload(c);
}

void tern_unexp_drop_cache(void)
{
    for (int c = 0; c < NCLASSES; c++) {
        while (cache[c]) {
            struct tern_unexp *u = cache[c];
            cache[c] = u->next;
            free(u);
        }
    }
    cached_bytes = 0;
}
