/*
 * Requests: one object per nonblocking operation, also used internally by
 * the blocking calls. The p2p core fills and completes them; the API layer
 * waits on `done` and turns them into statuses.
 *
 * Lifecycle: tern_request_alloc() -> posted/queued by p2p -> done = 1 ->
 * the user's Wait/Test (or Request_free) -> tern_request_free(). A request
 * freed by the user before completion is released by p2p when it completes.
 * Requests come from a free list, so the fast path does not call malloc.
 */
#ifndef TERN_CORE_REQUEST_H
#define TERN_CORE_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

struct tern_comm;
struct tern_dtype;

enum tern_req_kind {
    TERN_REQ_SEND = 1,
    TERN_REQ_RECV,
    TERN_REQ_NULLPROC,  /* Operation on MPI_PROC_NULL: complete at once. */
    TERN_REQ_COLL,      /* A nonblocking collective (collectives/sched.h). */
    TERN_REQ_PERSIST,   /* A persistent request (libmpi/api/persist_api.c). */
    TERN_REQ_GREQ       /* A generalized request (libmpi/api/greq_api.c). */
};

struct tern_request {
    uint32_t magic;
    uint8_t kind;
    volatile uint8_t done;  /* Set once, when the operation completed. */
    uint8_t cancelled;      /* A cancelled receive, or a withdrawn send. */
    uint8_t user_freed;     /* MPI_Request_free before completion. */
    uint8_t sync;           /* Synchronous send: completes on match. */
    uint8_t state;          /* Protocol state, owned by p2p. */
    uint8_t holds_comm;     /* Holds a reference on comm (tern_request_hold_comm). */
    uint8_t abandoned;      /* Given up by its collective (tern_p2p_abandon). */
    uint8_t released;       /* A send that its collective gave up and keeps
                               until its exposure ends (tern_p2p_release). */
    uint8_t cancel;         /* Send: how far MPI_Cancel got (p2p/send.c). */
    int error;              /* TERN_E* for status.MPI_ERROR, 0 if none. */
    struct tern_comm *comm;

    /* Envelope. Send: dest comm rank and world rank. Recv: the source
     * pattern (rank or MPI_ANY_SOURCE) and, once matched, the sender. */
    int rank;
    int peer;
    int tag;
    uint32_t ctx;
    int as_rank;         /* Send: the sender's rank that the envelope names
                            (in comm, or tern_p2p_isend_as's). */

    /* Contiguous data: `buf`, the user's buffer. Non-contiguous data:
     * `user_buf` and `dtype` (held), packed or unpacked a packet at a time.
     * For a send `len` is the message length; for a receive, the capacity,
     * in packed bytes. */
    void *buf;
    size_t len;
    size_t offset;       /* Bytes moved so far by a pipelined transfer. */
    void *user_buf;
    const struct tern_dtype *dtype;

    /* Status of a completed receive. */
    int st_source;
    int st_tag;
    size_t st_bytes;

    uint64_t peer_req;   /* Send: the receiver's request, from its CTS.
                            Receive read in one copy: the sender's request. */
    void *bulk;          /* Send: the transport's handle on the buffer it
                            exposed for a single-copy read, or NULL. */
    uint64_t bulk_key;   /* Send: the key of that exposure, sent in the RTS. */
    size_t msg_len;      /* Pipelined receive: bytes the sender will send,
                            which may exceed what fits (truncation). */
    /* MPI_Isendrecv: the user holds the receive, which carries the status;
     * its send is the partner, and the pair is done when both are
     * (libmpi/api/request_api.c). */
    struct tern_request *partner;
    void *owned;         /* A buffer freed with the request (the packed copy
                            that MPI_Isendrecv_replace sends from, or a
                            persistent request's arguments)... */
    void (*owned_free)(void *owned); /* ...by this function if set, else
                            by free(). */
    /* A nonblocking collective: the MPI call that started it ("MPI_Ibcast"),
     * for the report of a long wait; NULL for the library's own. */
    const char *call;
    /* A persistent request: the operation MPI_Start began, NULL while the
     * request is inactive. */
    struct tern_request *inner;
    struct tern_request *next;
};

struct tern_request *tern_request_alloc(int kind);
void tern_request_free(struct tern_request *r);

/* Sets r->comm and takes a reference on it, dropped by tern_request_free(),
 * so a communicator freed while the request is pending stays alive. */
void tern_request_hold_comm(struct tern_request *r, struct tern_comm *comm);

/* The request behind a handle, or NULL if it is not a valid active one. */
struct tern_request *tern_request_get(MPI_Request h);

/* The request behind a handle that tern_request_get() accepted earlier in
 * the same call: no lookup, for the loops that poll requests. */
static inline struct tern_request *tern_request_of(MPI_Request h)
{
    return (struct tern_request *)h;
}

/* Fills a status from a completed request (st may be MPI_STATUS_IGNORE). */
void tern_request_status(const struct tern_request *r, MPI_Status *st);

/* Fills a status (st may be MPI_STATUS_IGNORE). MPI_ERROR is left alone:
 * the standard lets only the calls that return several statuses set it. */
void tern_status_set(MPI_Status *st, int source, int tag, size_t bytes,
                     int cancelled);
size_t tern_status_bytes(const MPI_Status *st);
int tern_status_cancelled(const MPI_Status *st);

#endif
