/*
 * Cooperative single copy: a large contiguous message between two ranks of
 * a host is moved by both of them at once. The receiver reads chunks of it
 * from the sender's buffer (process_vm_readv) while the sender, if it is in
 * the library at that moment (waiting for the message to complete, as
 * MPI_Send and a bcast's root are), writes other chunks into the
 * receiver's buffer (process_vm_writev). Two cores copy instead of one: on
 * the reference VM the latency of a 1 MiB message fell from 45 us, read
 * by the receiver alone, to 27 us (Open MPI 49; 256 KiB: 8.5 to 5.7 us).
 *
 * The receiver owns one descriptor in the segment's transfer area. It
 * publishes a transfer there, raises the sender's help flag and rings its
 * doorbell, then claims chunks until none is left, and waits for the ones
 * the sender claimed. Claims take the next chunk with a compare-and-swap on
 * one word that holds the descriptor's generation beside the chunk index,
 * so a sender that looks late, after the transfer ended and the descriptor
 * was reused, cannot claim a chunk of another transfer: a claim succeeds
 * only while its generation is current and chunks remain, and while a
 * chunk is claimed and not finished the transfer cannot end. A sender that
 * never looks costs nothing: the receiver claims every chunk itself.
 */
#ifndef TERN_SHM_XFER_H
#define TERN_SHM_XFER_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "transports/shm/doorbell.h"
#include "transports/shm/ring.h"

/* Shorter messages are read by the receiver alone: at 32 KiB the read
 * takes about 2 us, little more than the hand-over would cost. */
#define TERN_SHM_XFER_MIN ((size_t)64 * 1024)
/* The largest chunk (xfer.c has the sizes). */
#define TERN_SHM_XFER_MAX_CHUNK ((size_t)1024 * 1024)

/* One per local rank, as a receiver. */
struct tern_shm_xfer {
    alignas(TERN_SHM_CACHE_LINE) _Atomic uint64_t claim; /* gen << 32 | next chunk */
    _Atomic uint32_t done;          /* Chunks copied, by either side. */
    _Atomic uint32_t failed;        /* 1 + a chunk the sender could not write. */
    _Atomic uint32_t sender;        /* Local rank of the sender. */
    _Atomic uint32_t nchunks;
    _Atomic uint64_t src;           /* The sender's buffer. */
    _Atomic uint64_t dst;           /* The receiver's buffer. */
    _Atomic uint64_t len;
    _Atomic int64_t pid;            /* The receiver's process. */
};

/* One per local rank, as a sender: set when some receiver wants help. */
struct tern_shm_xfer_flag {
    alignas(TERN_SHM_CACHE_LINE) _Atomic uint32_t wanted;
};

/* Bytes of the area for local_size ranks: their descriptors and flags. */
size_t tern_shm_xfer_area_bytes(int local_size);

/* A rank's view of the area at mem. */
struct tern_shm_xfer_area {
    struct tern_shm_xfer *xfers;        /* [local_size], by receiver. */
    struct tern_shm_xfer_flag *flags;   /* [local_size], by sender. */
    int local_size;
};

void tern_shm_xfer_area_init(struct tern_shm_xfer_area *a, void *mem, int local_size);

/* Receiver (local rank me): moves len bytes at remote in the sender's
 * process (local rank sender, process spid, doorbell db) into local,
 * helped by the sender if it looks. Returns 0, TERN_EPEER when the sender
 * is gone, or TERN_EIO. */
int tern_shm_xfer_read(const struct tern_shm_xfer_area *a, int me, int sender, pid_t spid,
                       struct tern_shm_doorbell *db, void *local, uint64_t remote,
                       size_t len);

/* Sender (local rank me): if some receiver asked, writes chunks of its
 * transfers from this rank until none is left to claim. Returns how many
 * chunks it wrote. */
int tern_shm_xfer_help(const struct tern_shm_xfer_area *a, int me);

/* Sender: the buffer of a send given up may be freed; this rank writes no
 * chunk from it again (the transport's forget op). */
void tern_shm_xfer_forget(const void *buf, size_t len);

#endif
