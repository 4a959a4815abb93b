/*
 * Which way a contiguous message between two ranks of a host should go:
 * copied through a cell of the ring (by the sender in, by the receiver out)
 * or read in one copy from the sender's buffer (CMA, cma.h).
 *
 * The answer depends on the machine, not on the program, and machines of
 * one kind differ by a factor of three. On one 2-core VM the read lost at
 * every size (latency, 2 ranks: 32 KiB 4.3 us read against 1.3 us through
 * the cells, 1 MiB 68 against 30), since its two vCPUs shared a cache and
 * its kernel pinned pages slowly; on another, whose cores have their own
 * L2, the read won from 8 KiB on (8 KiB 1.00 against 1.45, 32 KiB 1.88
 * against 4.42, 1 MiB 49 against 76). So each host measures at start-up:
 * local ranks 0 and 1 exchange messages of two sizes both ways over their
 * rings, a few hundred microseconds in all, and the crossover of the two
 * cost lines decides (tern_shm_contig_eager_max); the other local ranks
 * wait for the answer (tern_shm_calibrate). Whether the host measures is
 * local rank 0's setting (TERN_SHM_CMA_MIN unset); a rank whose own
 * TERN_SHM_CMA_MIN is set keeps it (shm.c).
 */
#ifndef TERN_SHM_CALIBRATE_H
#define TERN_SHM_CALIBRATE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "transports/shm/ring.h"

/* The answer when the read never wins. */
#define TERN_SHM_READ_NEVER UINT64_MAX

/* The fastest of several runs of each way at two sizes, in nanoseconds:
 * [0] at size[0], [1] at size[1] > size[0]. */
struct tern_shm_costs {
    size_t size[2];
    double copy[2];
    double read[2];
};

/* Messages up to this size always go through the cells: a read still
 * pins a whole page and pays a system call, and the rendezvous it needs
 * costs two packets more, which the measurement leaves out. Open MPI's
 * shared-memory transport sends up to 4 KiB eagerly as well. */
#define TERN_SHM_EAGER_MIN 4096

/* The largest contiguous message to send through the cells, larger ones
 * being read in one copy: TERN_SHM_EAGER_MIN when the two cost lines cross
 * at or below the larger size measured; else where they cross, rounded up
 * to a power of two (past a cell, so only where single copy starts among
 * the messages that are not eager anyway); 0 when the copy through the
 * cells costs less per byte, so that the read never wins. */
size_t tern_shm_contig_eager_max(const struct tern_shm_costs *c);

/* The rings between local ranks 0 and 1, seen from one of them, and the
 * other's pid and world rank. */
struct tern_shm_calib_link {
    struct tern_shm_ring *out;
    struct tern_shm_ring *in;
    pid_t pid;
    int world;
};

/*
 * Settles the host's answer in *shared (the segment's contig_eager_max
 * word) and returns it in *eager_max: a size as tern_shm_contig_eager_max()
 * gives it, or TERN_SHM_READ_NEVER.
 *   local rank 0  measures with local rank 1 when `measure` and `link` (the
 *                 pair can read each other) are given, and publishes; without
 *                 them it publishes TERN_SHM_READ_NEVER at once.
 *   local rank 1  answers the measurement when `measure` and `link` are
 *                 given, then waits like the others.
 *   the others    wait for rank 0's answer when `measure`; else take
 *                 TERN_SHM_READ_NEVER.
 * `leader` is local rank 0's pid (0 if not known).
 * Returns 0, or TERN_ETIMEDOUT (with a line on stderr) when the partner or
 * local rank 0 ended before it answered (a rank waits for one that still
 * runs however long it takes; one whose pid is not known, 30 s); a read
 * that fails during the measurement only keeps the copy through the cells.
 */
int tern_shm_calibrate(_Atomic uint64_t *shared, int local_rank, int measure,
                       const struct tern_shm_calib_link *link, pid_t leader,
                       uint64_t *eager_max);

#endif
