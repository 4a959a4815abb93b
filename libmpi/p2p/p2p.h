/*
 * The point-to-point core, as the API layer sees it.
 *
 * All calls take already-checked arguments (libmpi/api/ checks them) and
 * return 0 or a negative TERN_E* code. Nonblocking calls hand back a
 * request that completes through tern_progress(); the blocking MPI calls
 * are a nonblocking call plus tern_p2p_wait().
 *
 * Protocols (see libmpi/p2p/packet.h): a message that fits the peer
 * transport's packet goes EAGER; a larger one sends an RTS, and the receiver
 * either reads it in one copy (single-copy transports) and answers FIN, or
 * answers CTS and the sender pipelines DATA chunks. TERN_EAGER_MAX caps the
 * eager size below the transport's packet size.
 */
#ifndef TERN_P2P_P2P_H
#define TERN_P2P_P2P_H

#include <stddef.h>

#include <mpi.h>

#include "libmpi/core/request.h"
#include "libmpi/p2p/match.h"
#include "tern/boot.h"

struct tern_comm;
struct tern_dtype;

enum tern_send_mode {
    TERN_SEND_STANDARD,
    TERN_SEND_SYNC,
    TERN_SEND_READY
};

/* Reads the p2p tunables (also for tern-info). */
void tern_p2p_read_tunables(int oversubscribed);

/* Transport setup and teardown, with the job-wide fences between phases.
 * MPI_Finalize first calls tern_p2p_quiesce, which completes what this
 * rank owes others and waits for every rank to reach it, then
 * tern_p2p_finalize, which releases the transports and drops the messages
 * that no receive took. */
int tern_p2p_init(const struct tern_boot_info *boot);
int tern_p2p_quiesce(void);
int tern_p2p_finalize(void);

/* `ctx` is the communicator's point-to-point context (comm->ctx) for user
 * traffic, or its collective context (comm->ctx + 1) for collectives. */
int tern_p2p_isend(const void *buf, size_t count, const struct tern_dtype *dt,
                   int dest, int tag, struct tern_comm *comm, uint32_t ctx,
                   int mode, struct tern_request **out);
int tern_p2p_irecv(void *buf, size_t count, const struct tern_dtype *dt,
                   int src, int tag, struct tern_comm *comm, uint32_t ctx,
                   struct tern_request **out);

/* A send of len bytes to world rank `peer` on context ctx, as rank
 * as_rank of a communicator that this rank has destroyed (the
 * collectives answer inquiries about their calls on one,
 * collectives/notice.h): the request holds no communicator. */
int tern_p2p_isend_as(const void *buf, size_t len, int peer, int as_rank, uint32_t ctx,
                      int tag, struct tern_request **out);

/* Probe: *flag = 1 and the status filled if a message fits. With `msg`
 * non-NULL (Mprobe) the message leaves the queue and is returned. */
int tern_p2p_iprobe(int src, int tag, struct tern_comm *comm, int *flag,
                    MPI_Status *st, struct tern_unexp **msg);
/* Receives a message taken by Mprobe (msg NULL: from MPI_PROC_NULL). */
int tern_p2p_imrecv(void *buf, size_t count, const struct tern_dtype *dt,
                    struct tern_unexp *msg, struct tern_request **out);

/* For the check of collectives whose ranks made different calls
 * (collectives/signature.h): how many messages have arrived unexpected so
 * far, and the tag of the earliest unexpected message from src (a rank of
 * the communicator, or any rank if src < 0; *from: its sender) on ctx
 * whose tag equals `tag` in the bits of `mask` and differs in the others
 * (from one src: unless a message with `tag` itself comes first); else
 * -1. */
unsigned long tern_p2p_unexp_arrivals(void);
int tern_p2p_unexp_conflict(uint32_t ctx, int src, int tag, int mask, int *from);
/* Receives the earliest unexpected message on ctx (comm's) tagged `tag`,
 * from rank src (MPI_ANY_SOURCE: any rank), into buf: its length (*from:
 * its sender), or -1 if there is none (or no memory to take it in: it
 * stays). A message longer than len, or one that is not in at once (not
 * eager), is received and dropped: -2. */
long tern_p2p_take_unexp(struct tern_comm *comm, uint32_t ctx, int src, int tag, void *buf,
                         size_t len, int *from);
/* Receives and drops every unexpected message on ctx (comm's; comm NULL:
 * one this rank has destroyed) whose tag equals `tag` in the bits of
 * `mask`, from rank src (-1: any rank): their senders complete, and none
 * stays behind. */
void tern_p2p_discard_unexp(struct tern_comm *comm, uint32_t ctx, int src, int tag, int mask);

/* A message that arrived and that no receive took: its context, its
 * sender (its rank in the communicator, and in the world: peer), its
 * tag, and, if it is in (eager), its len bytes of data (else data is
 * NULL). */
struct tern_unexp_info {
    uint32_t ctx;
    int src, peer, tag;
    const void *data;
    size_t len;
};

/* Calls fn with every message that arrived and that no receive took,
 * earliest first, until fn returns nonzero. */
void tern_p2p_unexp_each(int (*fn)(const struct tern_unexp_info *m, void *arg), void *arg);

/* Unexpected arrivals of notices: messages whose tag equals `bits` in the
 * bits of `mask` (the collectives' notices, collectives/notice.h). Once
 * such a message arrived, the next wait that finds nothing to do (and
 * MPI_Finalize's fence) runs `hook` once, for notices that no call of
 * this rank will take. */
void tern_p2p_watch_notices(int mask, int bits, void (*hook)(void));

/* Whether r is a receive that no message has matched yet. */
int tern_p2p_recv_unmatched(const struct tern_request *r);

/* Whether r is a send that is not done and that, as far as this rank
 * knows, no receive has matched yet (its receiver has not asked for its
 * data nor acknowledged it). */
int tern_p2p_send_unmatched(const struct tern_request *r);

/* Cancels a receive that has not matched yet; no effect otherwise. */
void tern_p2p_cancel(struct tern_request *r);

/* MPI_Cancel of a send: one that waits for its receiver (synchronous, or
 * larger than the eager limit) asks it to drop the message if no receive
 * matched it yet (packet.h, CANCEL); r completes once the receiver has
 * answered, cancelled (r->cancelled) or not. A standard eager send has
 * completed as it went out and is not cancelled. */
void tern_p2p_cancel_send(struct tern_request *r);

/* For a send of a collective that failed (collectives/sched.h), before
 * the call gives it up: if the send exposed the caller's buffer, from
 * which the transport serves the receiver's single-copy read on this
 * side, moves its bytes into a buffer of its own and takes the offer back
 * (RECALL, packet.h). Returns 1 while the send may still use the caller's
 * buffer: the call then keeps r, and must not return, until
 * tern_p2p_uses_buffer(r) is 0. Returns 0 for any other request, which
 * the call gives up (tern_p2p_abandon). */
int tern_p2p_release(struct tern_request *r);

/* The receiver of r's RTS answered a RECALL: it will not read r's buffer. */
void tern_p2p_recalled(struct tern_request *r);

/* Whether r may still use its caller's buffer: r is not done, or, for a
 * send that tern_p2p_release() kept, its receiver may still read it (or
 * it has no copy of its own: memory ran out, and it sends from the
 * caller's buffer to the end). Inline: every round of a collective asks. */
static inline int tern_p2p_uses_buffer(const struct tern_request *r)
{
    return !r->done && (!r->released || r->bulk || !r->owned);
}

/* Gives up a request of a collective that failed (collectives/sched.h):
 * a receive that has not matched is cancelled; whatever is left in
 * flight frees itself when done; a send goes on from a copy of its data
 * (unless its receiver reads the caller's buffer in one copy), and
 * MPI_Finalize does not wait for it (its receiver made another call and
 * may never take it). r must not be used after. */
void tern_p2p_abandon(struct tern_request *r);

/* Drives all transports once; returns the number of events. */
int tern_progress(void);

/* Installs (or, with NULL, removes) the one function tern_progress() calls
 * after the transports: the collective engine while schedules are active. */
void tern_progress_set_hook(int (*hook)(void));

/* Drives progress, with the adaptive poll/yield/block policy, until
 * cond(arg) is true. */
void tern_p2p_wait_until(int (*cond)(void *), void *arg);

/* The same, for a wait that can say what it waits for: should it go
 * TERN_WAIT_WARN_S seconds without progress, the rank prints a line (once
 * per process) whose subject is what describe(arg, buf, len) writes into
 * buf ("MPI_Bcast on MPI_COMM_WORLD (round 1 of 1, for rank 2 to send)"). */
void tern_p2p_wait_described(int (*cond)(void *), void *arg,
                             void (*describe)(void *arg, char *buf, size_t len));

/* Blocks until r is done. */
void tern_p2p_wait(struct tern_request *r);

#endif
