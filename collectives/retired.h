/*
 * Communicators that this rank has destroyed after collective calls on
 * them (tern_coll_retire, coll.h), the last TERN_COLL_RETIRED_MAX of
 * them: what is left of each for the notices about their calls (an
 * inquiry about one still gets its answer, notice.h) and for MPI_Finalize's
 * report of messages that no call received (leftovers.c). Context ids are
 * never reused (libmpi/core/comm.h), so a context names one of them for
 * good.
 */
#ifndef TERN_COLLECTIVES_RETIRED_H
#define TERN_COLLECTIVES_RETIRED_H

#include <stdint.h>

#define TERN_COLL_RETIRED_MAX 256

struct tern_coll_retired {
    uint32_t ctx;        /* Its collective context (its ctx + 1). */
    int rank;            /* This rank's rank in it. */
    uint64_t coll_seq;   /* The number its next collective call would have had. */
    int failed;          /* A collective call failed on it here. */
};

/* The one whose collective context is ctx, or NULL. */
const struct tern_coll_retired *tern_coll_retired_find(uint32_t ctx);

/* Calls fn for each one remembered. */
void tern_coll_retired_each(void (*fn)(const struct tern_coll_retired *r, void *arg), void *arg);

#endif
