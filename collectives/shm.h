/*
 * Collectives through shared memory, for a communicator whose ranks all
 * live on one host: instead of messages, each rank writes into a slot of
 * the host's segment (transports/shm/coll_area.h) and waits for flags that
 * the others set there. One step of such an algorithm is a POLL step of
 * the schedule (sched.h), so blocking and nonblocking calls still share the
 * code, and a waiting rank sleeps on its doorbell like any other: writers
 * ring the doorbells of the members after each flag.
 *
 * Slot agreement: the first blocking collective on such a communicator
 * (any kind) first runs tern_coll_shm_setup(), an allreduce in which rank 0
 * offers a free slot and every rank says whether it reaches all the others
 * through shm. All members run it in the same call, since blocking
 * collectives happen in the same order everywhere, so they agree on the
 * outcome before any later collective selects its algorithm; nonblocking
 * collectives never agree, they only use a slot agreed earlier (and
 * messages until then). Without a slot (all taken, shm not used,
 * TERN_SHM_COLL_SLOTS=0) the communicator keeps using messages.
 *
 * Operations: every shared-memory operation on the communicator takes the
 * next sequence number. A rank starts operation s only after it finished
 * s - 1, so its flags move forward in order; operation s uses the slot's
 * tiny entry set s % 2, cell set s % 8 and buffer set s % 2, so before it
 * writes there every member must have finished s - 2, or s - 8 when it
 * writes only its cell (tern_coll_shm_set_free). Most operations make that known without
 * looking: a Barrier or an Allreduce ends only once every member started
 * it, so once a rank finished s - 1 of those kinds, every member finished
 * s - 2 (tern_coll_shm_synced). A Bcast does not wait for the others (its
 * root leaves as soon as its data is in), so after one a writer looks at
 * the members' `done` words, which every operation's end sets
 * (tern_coll_shm_finish).
 *
 * Members in different calls (one in MPI_Bcast, another in MPI_Barrier,
 * or naming another root) find out while they wait: shm_check.c.
 */
#ifndef TERN_COLLECTIVES_SHM_H
#define TERN_COLLECTIVES_SHM_H

#include <stdint.h>
#include <string.h>

#include "collectives/algo.h"
#include "libmpi/core/comm.h"
#include "transports/shm/coll_area.h"

struct tern_coll_shm {
    int slot;                       /* -1: this communicator uses messages. */
    struct tern_shm_coll_slot view;
    uint64_t next_seq;              /* Sequence number of the last operation built. */
    uint64_t done_seq;              /* ... of the last one this rank finished. */
    uint64_t all_done;              /* ... of the last one every member finished. */
    uint64_t digest;                /* Of every operation this rank finished:
                                       which call it was there (shm_check.c). */
    struct tern_shm_doorbell **bells; /* The other members' doorbells, */
    int nbells;                     /* ... rung after each flag this rank sets. */
};

/* Agrees on a slot for comm if it has not yet (see above); a blocking,
 * collective call. 0 also when the communicator ends up without a slot. */
int tern_coll_shm_setup(struct tern_comm *comm);

/* Whether the first blocking collective on comm must call setup: comm has
 * two ranks or more, all on this host, and has not agreed yet. */
int tern_coll_shm_wanted(struct tern_comm *comm);

/* Gives back comm's slot and frees its state (when comm is destroyed). */
void tern_coll_shm_free(struct tern_comm *comm);

/* Whether a call can run in shared memory: it covers the whole
 * communicator, which has a slot. */
int tern_coll_shm_usable(const struct tern_coll_args *a);

/* Whether count elements of dt are longer than a member's buffer of
 * a->comm's slot (or their size overflows). */
int tern_coll_shm_too_large(size_t count, const struct tern_dtype *dt,
                            const struct tern_coll_args *a);

/* Packs count elements of dt at buf into a place of the slot, or unpacks
 * them from one: a memcpy for contiguous data. */
void tern_coll_shm_pack(void *to, const void *buf, size_t count, const struct tern_dtype *dt);
void tern_coll_shm_unpack(void *buf, size_t count, const struct tern_dtype *dt,
                          const void *from);

/* What every operation's steps share. */
struct tern_coll_shm_op {
    struct tern_coll_shm *sh;
    struct tern_comm *comm;
    uint64_t seq;
    /* Inputs of up to TERN_SHM_COLL_TINY bytes go into the cell, not the
     * tiny entry: set by the operations whose ranks leave without waiting
     * for the others (Bcast, Reduce), so that they can run 32 calls ahead
     * (coll_area.h). */
    int no_tiny;
    const char *call;               /* tern_coll_args.call. */
    uint16_t sig;                   /* Which call: tern_coll_shm_sig(). */
    struct tern_coll_stamp stamp;   /* The same as its messages say it. */
    unsigned polls;                 /* Waits in it, for tern_coll_shm_check(), */
    uint64_t checked_ns;            /* ... when it last looked, */
    unsigned long arrivals_seen;    /* ... and the unexpected messages then. */
    int failed;                     /* Its error, once the rank gave it up. */
    /* Its steps, run in order by tern_coll_shm_steps(). */
    tern_sched_poll_fn *const *steps;
    int nsteps, next;
    int first_error;                /* The first error a step returned. */
};

/* Which call an operation is, as the members compare it: the collective
 * (kind + 1) in the low 5 bits, the root of a rooted one (modulo 2048)
 * above; for an operation a member gave up, 5 bits all ones and its error
 * code (negated) above. */
#define TERN_COLL_SHM_SIG_KIND_BITS 5
static inline uint16_t tern_coll_shm_sig(enum tern_coll_kind kind, int root)
{
    return (uint16_t)(((unsigned)kind + 1) |
                      (tern_coll_rooted(kind) ? (unsigned)root << TERN_COLL_SHM_SIG_KIND_BITS
                                              : 0));
}
/* The digest of the operations a rank finished, with one more (seq << 16
 * | sig): FNV-1a over whole words. */
static inline uint64_t tern_coll_shm_digest(uint64_t digest, uint64_t word)
{
    return (digest ^ word) * 0x100000001b3ull;
}

/* A cell's `bytes` word: the size below this bit, the sig above. */
#define TERN_COLL_SHM_SIG_SHIFT 48

/* For a step that still waits, once it has waited TERN_COLL_SHM_CHECK_POLLS
 * polls, and then at most once per TERN_COLL_SHM_CHECK_NS:
 * whether another member made another call for this operation, or gave
 * it up. It looks at what the members published (their inputs, the last
 * operation each finished, the one each has waited in for long), and
 * publishes where this rank waits. On a mismatch it gives the operation
 * up (tern_coll_shm_fail) and returns the error; else 0. A short wait
 * pays one increment. */
#define TERN_COLL_SHM_CHECK_POLLS 16
#define TERN_COLL_SHM_CHECK_NS 1000000
int tern_coll_shm_check_due(struct tern_coll_shm_op *op);
static inline int tern_coll_shm_check(struct tern_coll_shm_op *op)
{
    return ++op->polls < TERN_COLL_SHM_CHECK_POLLS ? 0 : tern_coll_shm_check_due(op);
}

/* At MPI_Finalize (nothing writes into the slot any more): whether a
 * member finished another number of operations than this rank (a Bcast
 * root that made one call more), or put an input in for one of the last
 * TERN_SHM_COLL_CELL_SETS operations as another call than this rank did
 * (two roots of one MPI_Bcast both put their data in, and neither waits),
 * or finished an earlier one as another call (the digests of their
 * operations differ). Returns the error, as tern_coll_explain_conflict
 * does, with how the calls differ in why; else 0. */
int tern_coll_shm_final_check(const struct tern_comm *comm, char *why, size_t len);

/* Publishes in comm's slot that this rank makes no more operations there,
 * as it frees comm (freed) or is in MPI_Finalize: a member waiting in one
 * that this rank never built fails that call
 * (tern_coll_shm_check) instead of waiting for ever.
 * tern_coll_shm_finalizing() does it for every communicator. */
void tern_coll_shm_leave(const struct tern_comm *comm, int freed);
void tern_coll_shm_finalizing(void);

/* Gives op up after member r was found in the call `theirs` (a sig):
 * says how the calls differ (the failure of another member only at
 * verbose level 1: that member says why), sets op->failed and ends op on
 * this rank with a failed call's sig, so that the members waiting for it
 * give up too. The steps left do not run (shm_wait.c, add_steps). */
void tern_coll_shm_fail(struct tern_coll_shm_op *op, int r, uint16_t theirs);

/* Fills op for the next operation on a->comm; the same for a call of
 * `kind` on comm with its stamp (signature.h) and its MPI function's name,
 * for a caller without arguments (tern_coll_barrier_quick). Field by field,
 * as the struct is on the fast path of every call. */
void tern_coll_shm_op_init(struct tern_coll_shm_op *op, const struct tern_coll_args *a);
void tern_coll_shm_op_start(struct tern_coll_shm_op *op, struct tern_comm *comm,
                            enum tern_coll_kind kind, const struct tern_coll_stamp *stamp,
                            const char *call);

/* For POLL steps: whether this rank finished the operation before op (so
 * op may start), and the end of op on this rank (published in its `done`
 * word, and the others woken: a writer waiting for the buffer set, such as
 * a Bcast root that ran ahead, may sleep until this rank is done). */
int tern_coll_shm_my_turn(const struct tern_coll_shm_op *op);
void tern_coll_shm_finish(const struct tern_coll_shm_op *op);

/* Whether op may write an input of `bytes` into its sets (see above):
 * into a tiny entry or a buffer (and its cell) once every member finished
 * the operation two before it; into the cell alone (an input of up to
 * TERN_SHM_COLL_INLINE bytes, or the size of a longer one than a buffer)
 * once every member finished the one TERN_SHM_COLL_CELL_SETS before. */
int tern_coll_shm_set_free(const struct tern_coll_shm_op *op, size_t bytes);

/* Records that every member started op, which this rank just saw. */
void tern_coll_shm_synced(const struct tern_coll_shm_op *op);

/* Runs the steps of the operation whose struct (op first) is arg: each
 * step is called, with s and arg, until it returns nonzero, then the
 * next; a step's error is kept and the later steps still run, so that the
 * other members are not left waiting, unless another member made another
 * call (tern_coll_shm_check, while a step waits), when none of them runs.
 * Returns 0 while a step waits, then the first error, or 1. A POLL step
 * of a schedule, and the condition of a blocking call's wait. */
int tern_coll_shm_steps(struct tern_sched *s, void *arg);
/* Gives op the steps tern_coll_shm_steps() runs. */
void tern_coll_shm_set_steps(struct tern_coll_shm_op *op, tern_sched_poll_fn *const *steps,
                             int n);

/* Adds an operation's POLL steps to s and, with `messages` not NULL, a
 * later round in which messages(s, arg) builds the message algorithm that
 * moves a vector too long for the slot (once the steps agreed on it). */
void tern_coll_shm_add_steps(struct tern_sched *s, tern_sched_poll_fn *const *steps, int n,
                             void *arg, void (*messages)(struct tern_sched *s, void *arg));

/* Whether a blocking call may run the next operation on a->comm without
 * a schedule: every operation built on it has finished on this rank. */
int tern_coll_shm_runnable(const struct tern_coll_args *a);

/* Runs the steps of operation op (arg: its struct, op first) with
 * tern_coll_shm_steps, for a blocking call that builds no schedule (s
 * NULL), with a blocking wait while a step waits (progress, yield,
 * sleep); returns the first error, or 0. */
int tern_coll_shm_run(struct tern_coll_shm_op *op, tern_sched_poll_fn *const *steps, int n);

/* Waits, as a blocking call does, until cond(arg) holds, for operation op
 * (which a report of a long wait names), or until op was given up
 * (tern_coll_shm_check): then returns op->failed, else 0. */
int tern_coll_shm_wait(struct tern_coll_shm_op *op, int (*cond)(void *), void *arg);

/* This rank's cell for op, and member r's. */
static inline struct tern_shm_coll_cell *tern_coll_shm_cell(const struct tern_coll_shm_op *op,
                                                            int r)
{
    return tern_shm_coll_cell(&op->sh->view, op->seq, r);
}

/* The flags a member sets for an operation: its cell's (its input is in),
 * its `reduced` line's (its share of the result is in), its barrier line's
 * (it reached the barrier). */
enum tern_coll_shm_flag { TERN_COLL_SHM_INPUT, TERN_COLL_SHM_REDUCED, TERN_COLL_SHM_ARRIVED };

static inline _Atomic uint64_t *tern_coll_shm_flag(const struct tern_coll_shm_op *op,
                                                   enum tern_coll_shm_flag f, int r)
{
    const struct tern_shm_coll_slot *v = &op->sh->view;
    return f == TERN_COLL_SHM_INPUT     ? &tern_coll_shm_cell(op, r)->seq
           : f == TERN_COLL_SHM_REDUCED ? &v->reduced[r].seq
                                        : &v->arrived[r];
}

/* A member's input to an operation (the Allreduce's vector, the Bcast
 * root's data) goes where its size says: up to TERN_SHM_COLL_TINY bytes
 * into the member's tiny entry (unless op->no_tiny), whose tag also says
 * the size (one line holds both sets at two ranks); up to
 * TERN_SHM_COLL_INLINE into its cell,
 * beside the flag; up to a buffer's size into its buffer; a larger one
 * stays out, and only its size is published.
 *
 * tern_coll_shm_input_place: where member r's input of `bytes` goes (NULL
 * when it is larger than a buffer). tern_coll_shm_input_publish: this
 * rank's input of `bytes` is in place; sets the flag and wakes the others.
 * tern_coll_shm_input_arrived: whether member r's input is in, and then
 * its size; an input for another call (a cell's sig) gives op up and
 * counts as not in. */
void *tern_coll_shm_input_place(const struct tern_coll_shm_op *op, int r, size_t bytes);
/* memcpy, with the usual tiny input (8 bytes: a double, a long, two
 * floats) copied inline rather than through a call. */
static inline void tern_coll_shm_copy(void *to, const void *from, size_t bytes)
{
    if (bytes == TERN_SHM_COLL_TINY)
        memcpy(to, from, TERN_SHM_COLL_TINY);
    else
        memcpy(to, from, bytes);
}
void tern_coll_shm_input_publish(const struct tern_coll_shm_op *op, size_t bytes);
int tern_coll_shm_input_arrived(struct tern_coll_shm_op *op, int r, uint64_t *bytes);

/* Reduces elements [lo, hi) of every member's input (all of `count`
 * elements of dt, in their places) into out, in rank order: out = in_0 op
 * (in_1 op (... op in_{p-1})), each element once, so that every rank that
 * reduces a range gets the same bits. The first error of the op, or 0. */
int tern_coll_shm_reduce_range(const struct tern_coll_shm_op *op, size_t count,
                               const struct tern_dtype *dt, const struct tern_op *rop,
                               char *out, size_t lo, size_t hi);

/* Sets this rank's flag f to op->seq and wakes the other members. */
void tern_coll_shm_publish(const struct tern_coll_shm_op *op, enum tern_coll_shm_flag f);

/* Wakes the other members after this rank set a flag of its own kind (the
 * tiny entries' tags, transports/shm/coll_area.h). */
void tern_coll_shm_wake_others(const struct tern_coll_shm_op *op);

/* Whether every member's flag f reached op->seq. */
int tern_coll_shm_all_reached(const struct tern_coll_shm_op *op, enum tern_coll_shm_flag f);

#endif
