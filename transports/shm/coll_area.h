/*
 * The collective area of the per-host segment: slots through which the
 * ranks of a communicator that lives on one host run collectives in shared
 * memory (collectives/shm.h has the protocol; this file only the memory).
 *
 * Layout: after the rings, `slots` slots of equal size. A slot is a header
 * line (how many ranks still use it; 0 when free); the members' barrier
 * flags, one word each, packed into as few lines as hold them; the tiny
 * entries, TERN_SHM_COLL_TINY_SETS (2) sets of one per member, packed
 * too; TERN_SHM_COLL_CELL_SETS (32) sets of one cell per member (indexed
 * by rank in the communicator); one line per member for its `reduced`
 * flag, its verdict and the last operation it finished; then, from the
 * next page boundary, TERN_SHM_COLL_BUF_SETS (2) sets of one buffer per
 * member. Consecutive operations on a communicator use the sets in turn,
 * so a rank can fill its entries for the next operations while others
 * still read earlier ones.
 *
 * Why 32 sets of cells: a Bcast root, or the ranks of a Reduce other than
 * the root, leave without waiting, and with small inputs (which such
 * operations keep in cells, never in tiny entries) they can so run 32
 * calls ahead of the slowest member; a rank that may not run further
 * waits for it, which on a host with more ranks than cores means a context
 * switch, so the more sets, the fewer switches per call. Back-to-back
 * calls, us, medians of 5 interleaved runs, 2 sets / 8: 4 ranks on 2
 * cores, 8-byte MPI_Bcast 8.3 / 1.8, MPI_Reduce 8.0 / 2.3; 2 ranks,
 * MPI_Bcast 0.35 / 0.19. Then 8 / 32 (2026-12-05, 3 interleaved runs
 * each): 4 ranks, Bcast 2.4-3.3 / 0.68-1.0, Reduce 2.3-3.4 / 0.68-1.2;
 * 8 ranks, Bcast 6.9-7.6 / 1.7-2.4, Reduce 7.8-9.0 / 1.9-2.6 (Open MPI,
 * 4 ranks: 0.60 and 1.95). A set is one line per member. Why
 * only 2 sets of tiny entries: the operations that use them (Allreduce,
 * Allgather) wait for every member anyway, and spread over 8 sets the
 * entries took 4 lines at two ranks instead of one, and an 8-byte
 * Allreduce of 2 ranks took 0.427 us instead of 0.411 (medians of 9).
 *
 * The barrier flags carry no data, so they need no second set, and they
 * share lines: each transfer of the line then brings every flag in it. Two
 * bare processes on the two cores of the reference VM, each storing its
 * own word and then loading the other's, took 0.06 us per barrier with both
 * words in one line, 0.14 with a line each, and 0.21 with a line each that
 * alternated between two sets. The tiny entries (a flag and 8 bytes) share
 * lines the same way, set after set: with two members one line holds two
 * consecutive operations' entries. The same two processes, each storing
 * its entry and loading the other's, took 0.24 us per exchange with both
 * sets of two in one line, against 0.33 with a cell each per set and 0.50
 * with one line per member holding both its sets (the reader of one set
 * then fights the writer of the next), in a session where the bare flag
 * exchange took 0.24. When the cell sets went from 2 to 8, the Allreduce
 * of 8 bytes on two ranks kept its time (0.42 against 0.43 us).
 *
 * Lifecycle: one rank of a communicator takes a free slot
 * (tern_shm_coll_alloc, which also clears its flags) and tells the others
 * its index with a message; each member calls tern_shm_coll_release when
 * the communicator is freed, and the last one makes the slot free again.
 * The area exists only while the shm transport is connected; without it
 * (one rank on the host, shm left out of TERN_TRANSPORTS, no slots
 * configured) tern_shm_coll_alloc returns -1 and collectives use messages.
 */
#ifndef TERN_SHM_COLL_AREA_H
#define TERN_SHM_COLL_AREA_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "transports/shm/ring.h"

#define TERN_SHM_COLL_TINY_SETS 2
#define TERN_SHM_COLL_CELL_SETS 32
#define TERN_SHM_COLL_BUF_SETS 2

struct tern_shm_coll_hdr {
    alignas(TERN_SHM_CACHE_LINE) _Atomic uint32_t users;
};

/* Bytes of input that travel inside a member's cell. */
#define TERN_SHM_COLL_INLINE 48

/* A member's cell in one set. Sequence numbers grow by one per operation on
 * the communicator; a small input shares the line with its flag, so that a
 * reader gets both with one cache miss. */
struct tern_shm_coll_cell {
    alignas(TERN_SHM_CACHE_LINE) _Atomic uint64_t seq; /* Input of op seq is in. */
    uint64_t bytes;                 /* Bytes it contributes, for checks, and in
                                       the top 16 bits which call it is for
                                       (collectives/shm.h). */
    unsigned char data[TERN_SHM_COLL_INLINE];
};

/* A member's tiny entry in one set: an input of up to TERN_SHM_COLL_TINY
 * bytes travels here, with its flag, instead of in the cell. The flag says
 * both which operation the input is for and how many bytes it has:
 * tern_shm_coll_tiny_tag(seq, bytes). */
#define TERN_SHM_COLL_TINY 8
struct tern_shm_coll_tiny {
    _Atomic uint64_t tag;
    unsigned char data[TERN_SHM_COLL_TINY];
};

_Static_assert(TERN_SHM_COLL_TINY < 16, "a tiny entry's byte count fits the tag's low 4 bits");

static inline uint64_t tern_shm_coll_tiny_tag(uint64_t seq, size_t bytes)
{
    return seq << 4 | (uint64_t)bytes;
}
static inline uint64_t tern_shm_coll_tiny_seq(uint64_t tag) { return tag >> 4; }
static inline size_t tern_shm_coll_tiny_bytes(uint64_t tag) { return (size_t)(tag & 15); }

struct tern_shm_coll_reduced {
    alignas(TERN_SHM_CACHE_LINE) _Atomic uint64_t seq; /* Its share of op seq is in. */
    _Atomic uint64_t done;          /* The last operation the member finished. */
    /* Its verdict on an operation whose ranks must all agree before they
     * go on with messages: seq << 1, plus 1 if it found a mismatch. */
    _Atomic uint64_t verdict;
    /* For the check of mismatched calls (collectives/shm_check.c): the last
     * operation it finished, and the one it has waited in for long, as
     * seq << 16 plus which call it made there. */
    _Atomic uint64_t finished;
    _Atomic uint64_t stuck;
    /* A digest of every operation it finished, for MPI_Finalize's check
     * (collectives/shm_check.c). */
    _Atomic uint64_t digest;
};

/* The members' barrier flags packed into lines: lines for local_size. */
#define TERN_SHM_COLL_FLAGS_PER_LINE (TERN_SHM_CACHE_LINE / sizeof(uint64_t))
#define TERN_SHM_COLL_FLAG_LINES(local_size) \
    (((size_t)(local_size) + TERN_SHM_COLL_FLAGS_PER_LINE - 1) / TERN_SHM_COLL_FLAGS_PER_LINE)

/* The tiny entries of every set packed into lines: lines for local_size. */
#define TERN_SHM_COLL_TINY_LINES(local_size)                                    \
    (((size_t)TERN_SHM_COLL_TINY_SETS * (size_t)(local_size) * sizeof(struct tern_shm_coll_tiny) \
      + TERN_SHM_CACHE_LINE - 1) / TERN_SHM_CACHE_LINE)

/* A rank's view of one slot. */
struct tern_shm_coll_slot {
    struct tern_shm_coll_hdr *hdr;
    _Atomic uint64_t *arrived;              /* [local_size]: barrier seq reached. */
    struct tern_shm_coll_tiny *tiny;        /* [TINY_SETS][local_size] */
    struct tern_shm_coll_cell *cells;       /* [CELL_SETS][local_size] */
    struct tern_shm_coll_reduced *reduced;  /* [local_size] */
    char *data;
    size_t buf;                         /* Bytes of each member's buffer. */
    int local_size;                     /* Members a slot can hold. */
};

/* The geometry, a pure function of the ranks on the host: each member's
 * buffer, and the bytes of a whole slot. */
size_t tern_shm_coll_buf_bytes(int local_size);
size_t tern_shm_coll_slot_bytes(int local_size);

/* Member m's cell for the operation with sequence number seq. */
static inline struct tern_shm_coll_cell *
tern_shm_coll_cell(const struct tern_shm_coll_slot *s, uint64_t seq, int m)
{
    size_t set = (size_t)(seq % TERN_SHM_COLL_CELL_SETS);
    return &s->cells[set * (size_t)s->local_size + (size_t)m];
}

/* Member m's tiny entry for the operation with sequence number seq. */
static inline struct tern_shm_coll_tiny *
tern_shm_coll_tiny(const struct tern_shm_coll_slot *s, uint64_t seq, int m)
{
    size_t set = (size_t)(seq % TERN_SHM_COLL_TINY_SETS);
    return &s->tiny[set * (size_t)s->local_size + (size_t)m];
}

/* Member m's buffer for the operation with sequence number seq. */
static inline char *tern_shm_coll_buf(const struct tern_shm_coll_slot *s,
                                      uint64_t seq, int m)
{
    size_t set = (size_t)(seq % TERN_SHM_COLL_BUF_SETS);
    return s->data + (set * (size_t)s->local_size + (size_t)m) * s->buf;
}

/* Takes a free slot for nmembers ranks and clears its flags; the slot's
 * index, or -1 when there is no area or no free slot. */
int tern_shm_coll_alloc(int nmembers);

/* Fills *out for slot i; 0, or TERN_EINVAL if there is no such slot. */
int tern_shm_coll_slot(int i, struct tern_shm_coll_slot *out);

/* n members are done with slot i (the allocator gives back a slot that its
 * communicator did not take with n = nmembers). */
void tern_shm_coll_release(int i, int n);

/* Whether world rank w is on this host and reached through shm. */
int tern_shm_coll_local(int w);

/* World rank w's doorbell (doorbell.h), which a rank rings after
 * publishing a flag that w may sleep waiting for; NULL when w is not
 * reached through shm. Valid while the area exists. */
struct tern_shm_doorbell *tern_shm_coll_doorbell(int w);

/* From shm.c: the mapped segment and its layout, NULL while not connected. */
struct tern_shm_layout;
void *tern_shm_area(const struct tern_shm_layout **l);

#endif
