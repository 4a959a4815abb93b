/*
 * Collective schedules: how every collective algorithm runs.
 *
 * An algorithm is a builder. Given the call's arguments it fills a schedule
 * with all the steps the call takes on this rank, grouped into rounds:
 *
 *   round 0: local steps (copy, reduce), then sends and receives
 *   round 1: ...
 *
 * The engine runs one round at a time: it performs the round's local steps in
 * the order they were added, then posts all of its sends and receives at
 * once, and moves to the next round when all of them completed. So a step
 * may use what an earlier round received, and a send may carry what the
 * same round's local steps computed. Two receives from one peer in one
 * collective match in the order they were posted, and two sends to one peer
 * arrive in the order they were added (MPI's non-overtaking rule), which is
 * all the ordering a builder needs.
 *
 * Lifecycle: tern_sched_init() -> builder adds steps -> tern_sched_start()
 * returns a request (kind TERN_REQ_COLL) -> the progress engine advances the
 * schedule (tern_sched_progress runs as a progress hook while any schedule
 * is active) -> on completion the request is done and the schedule frees
 * its steps and scratch buffers. A blocking collective is the same schedule
 * plus a wait, so blocking and nonblocking calls share every line of the
 * algorithms. Builders allocate temporary buffers with tern_sched_scratch();
 * they are freed with the schedule.
 *
 * Errors while building (out of memory) are remembered in the schedule and
 * returned by tern_sched_start(), so builders need not check every call.
 * An error while running (a truncated receive, when ranks disagree on
 * counts) is recorded and the schedule runs to the end, so no peer is left
 * waiting; the request then carries the first error.
 *
 * Messages travel on the communicator's collective context (comm->ctx + 1)
 * with the tag the schedule took from comm->coll_seq, so they never match
 * user messages nor those of another collective in flight; the tag also
 * carries the call's signature (signature.h), and a schedule that waits
 * for a peer whose message for the same call has another one fails
 * instead of waiting for ever; after a long wait it asks the ranks it
 * waits for which call they are in (notice.h).
 */
#ifndef TERN_COLLECTIVES_SCHED_H
#define TERN_COLLECTIVES_SCHED_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "collectives/signature.h"

struct tern_comm;
struct tern_dtype;
struct tern_op;
struct tern_request;
struct tern_sched;

enum tern_step_kind {
    TERN_STEP_SEND = 1,
    TERN_STEP_RECV,
    TERN_STEP_COPY,
    TERN_STEP_REDUCE,
    TERN_STEP_CALL,
    TERN_STEP_POLL
};

struct tern_step {
    uint8_t kind;
    int peer;                       /* SEND, RECV: rank in the communicator. */
    const void *src;                /* SEND, COPY: data; REDUCE: left operand. */
    void *dst;                      /* RECV, COPY: target; REDUCE: in-out. */
    size_t count, dcount;           /* dcount: COPY's target count. */
    const struct tern_dtype *dt;    /* Type of src (of dst for RECV). */
    const struct tern_dtype *ddt;   /* COPY's target type. */
    const struct tern_op *op;       /* REDUCE. */
    void (*call)(struct tern_sched *s, void *arg); /* CALL, with dst as arg. */
    int (*poll)(struct tern_sched *s, void *arg);  /* POLL, with dst as arg. */
};

#define TERN_SCHED_INLINE_STEPS 8
#define TERN_SCHED_ARENA 128

/* tern_sched_init() sets every field but the inline arrays: a new field
 * needs its line there. */
struct tern_sched {
    struct tern_comm *comm;
    uint32_t ctx;
    struct tern_coll_stamp stamp;   /* The call: its number, tag and root. */
    int error;                      /* First error, building or running. */
    const int *view;                /* See tern_sched_view(). */

    struct tern_step *steps;        /* All steps, rounds back to back. */
    int nsteps, cap;
    int *round_end;                 /* round_end[k]: first step after round k. */
    int nrounds, rcap;

    int cur;                        /* Round being run. */
    int next_local;                 /* Its next step to run (a POLL waits). */
    int posted;                     /* Its sends and receives are posted. */
    struct tern_request **reqs;     /* Their requests. */
    int nreqs, reqcap;

    void **scratch;                 /* Buffers freed with the schedule. */
    int nscratch, scratchcap;
    const struct tern_dtype **kept; /* Types it holds a reference on. */
    int nkept, keptcap;
    const struct tern_op *kept_op;  /* The op it holds a reference on. */

    int stalls;                     /* Advances that found it waiting. */
    unsigned long arrivals_seen;    /* Unexpected messages at its last check. */
    int waited_round;               /* 1 + the round it waits in since */
    uint64_t waited_since;          /* ... this time (ns), */
    uint64_t inquire_at;            /* ... and inquires once it waited this long (ns). */
    int inquired;                   /* It sent inquiries (notice.h). */
    int given_up;                   /* It failed, and waits only for the
                                       requests that give_up() kept. */
    const char *call;               /* tern_coll_args.call: "MPI_Bcast",
                                       or NULL (the library's own). */
    struct tern_request *req;       /* The collective's request. */
    struct tern_sched *next;        /* In the list of active schedules. */
    int on_heap;                    /* Freed on completion. */

    struct tern_step inline_steps[TERN_SCHED_INLINE_STEPS];
    int inline_rounds[TERN_SCHED_INLINE_STEPS];
    /* A round's first requests: without them every call of a small
     * collective paid a malloc, a fifth of an 8-byte MPI_Bcast. */
    struct tern_request *inline_reqs[TERN_SCHED_INLINE_STEPS];
    /* Small scratch requests come from here, without malloc. */
    size_t arena_used;
    alignas(16) unsigned char arena[TERN_SCHED_ARENA];
};

/* Prepares an empty schedule on comm for the call numbered
 * comm->coll_seq. A blocking call moves the number on once it returns, so
 * that a number below comm->coll_seq is that of a call that has begun and,
 * unless it is a nonblocking one still active (tern_sched_active), ended
 * on this rank (notice.h). */
void tern_sched_init(struct tern_sched *s, struct tern_comm *comm);

/* Whether a nonblocking call of comm numbered seq is under way here. */
int tern_sched_active(const struct tern_comm *comm, uint64_t seq);

/* Gives the schedule the stamp of the call it runs (signature.h: the tag
 * with its signature, and the root), which tern_coll_run made while the
 * schedule took the same number. */
void tern_sched_sign(struct tern_sched *s, const struct tern_coll_stamp *stamp);

/* Steps of the current round. */
void tern_sched_send(struct tern_sched *s, const void *buf, size_t count,
                     const struct tern_dtype *dt, int peer);
void tern_sched_recv(struct tern_sched *s, void *buf, size_t count,
                     const struct tern_dtype *dt, int peer);
/* Copies (src, count, dt) into (dst, dcount, ddt); the type signatures must
 * match as for a message (dcount elements may be more than needed). */
void tern_sched_copy(struct tern_sched *s, const void *src, size_t count,
                     const struct tern_dtype *dt, void *dst, size_t dcount,
                     const struct tern_dtype *ddt);
/* inout = in op inout, element-wise, MPI's operand order. */
void tern_sched_reduce(struct tern_sched *s, const void *in, void *inout,
                       size_t count, const struct tern_dtype *dt,
                       const struct tern_op *op);

/* While building: with `ranks` not NULL, the peers that the following
 * sends and receives name are indexes into ranks[] (which holds ranks of
 * the communicator), so a node-aware algorithm can run an algorithm written
 * for a whole communicator over a subset of its ranks; NULL ends that. The
 * array is read as the steps are added, so it need only live while the
 * schedule is built. */
void tern_sched_view(struct tern_sched *s, const int *ranks);

/* A local step that runs fn(s, arg) when the engine reaches it, after the
 * earlier rounds completed. fn may add steps and rounds (ending each with
 * tern_sched_round()); they run after the current round, so a schedule can
 * decide its next steps from what it received (MPI_Comm_idup's agreement,
 * libmpi/core/comm_idup.c). */
void tern_sched_call(struct tern_sched *s, void (*fn)(struct tern_sched *s, void *arg),
                     void *arg);

/* A local step that waits for fn(s, arg) to return 1: the engine calls it
 * whenever it advances the schedule, and the steps after it (of its round
 * and later ones) wait until it does. fn must not block; it is how
 * algorithms that work in shared memory wait for flags that other ranks
 * set (collectives/shm.h). fn returns a negative TERN_E* code to fail the
 * step: the error is recorded and the schedule goes on. */
typedef int tern_sched_poll_fn(struct tern_sched *s, void *arg);
void tern_sched_poll(struct tern_sched *s, tern_sched_poll_fn *fn, void *arg);

/* Ends the current round; the next steps belong to the next one. */
void tern_sched_round(struct tern_sched *s);

/* A temporary buffer of `bytes`, freed with the schedule (NULL and the
 * schedule's error set when memory runs out). */
void *tern_sched_scratch(struct tern_sched *s, size_t bytes);

/* A buffer for `count` elements of dt in dt's own layout (true extent and
 * lower bound respected), freed with the schedule. */
void *tern_sched_scratch_typed(struct tern_sched *s, size_t count,
                               const struct tern_dtype *dt);

/* Keeps a user's datatype or op alive until the schedule completes, so the
 * user may free it right after starting a nonblocking collective. */
void tern_sched_keep_dtype(struct tern_sched *s, const struct tern_dtype *dt);
void tern_sched_keep_op(struct tern_sched *s, const struct tern_op *op);

/* Starts the schedule. With `out` NULL it runs to completion before
 * returning (blocking collective, s may live on the stack); otherwise s must
 * come from tern_sched_new() and *out is the request to wait on. Returns the
 * first error (for a blocking call, also one that happened while running). */
int tern_sched_start(struct tern_sched *s, struct tern_request **out);

/* A heap schedule for a nonblocking collective. */
struct tern_sched *tern_sched_new(struct tern_comm *comm);

/* Releases what a schedule holds (after an error before it started). */
void tern_sched_free(struct tern_sched *s);

/* For the reports of long waits (tern_p2p_wait_described) of schedules and
 * of shared-memory collectives: tern_sched_report_start writes "MPI_Bcast
 * on MPI_COMM_WORLD (<where>" into buf (a collective with no call is the
 * library's own, run inside another MPI call); tern_sched_report_rank
 * appends ", for rank R to <what>" (", rank R to <what>" after the first;
 * eight, then ", ..."), counting in *shown. Both return the new length of
 * the text, which they keep below len. */
size_t tern_sched_report_start(char *buf, size_t len, const char *call,
                               const struct tern_comm *comm, const char *where);
size_t tern_sched_report_rank(char *buf, size_t len, size_t off, int *shown, int rank,
                              const char *what);

#endif
