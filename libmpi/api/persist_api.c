/*
 * Persistent requests: MPI_Send_init, MPI_Bsend_init, MPI_Ssend_init,
 * MPI_Rsend_init, MPI_Recv_init (and their _c forms), the persistent
 * collectives' requests (MPI_Bcast_init... are checked by the collective
 * API files, which hand the checked call to tern_api_coll_persist()),
 * MPI_Start and MPI_Startall.
 *
 * The user's handle is a request of kind TERN_REQ_PERSIST that keeps the
 * checked arguments (with a reference on the communicator and the
 * datatypes, and the op of a reduction). MPI_Start begins the operation as
 * MPI_Isend (or its mode's form), MPI_Irecv or the collective's
 * nonblocking form would, and keeps its request as `inner`; the
 * completion calls (request_api.c) complete the inner request, give its
 * status and make the persistent one inactive again, leaving the handle
 * as it is.
 *
 * A persistent collective runs on a communicator of its own, a bare
 * duplicate of the user's made by the _init call (which is collective):
 * MPI matches persistent collectives in the order of their _init calls,
 * and the ranks may start them in different orders, so each needs its own
 * matching space (its tags and shared-memory slot), not the next place in
 * the user communicator's sequence. The _init call also agrees on a
 * shared-memory slot for it where its kind has a shared-memory algorithm
 * (collectives/shm.h), as a communicator's first blocking collective would;
 * a host has few slots (TERN_SHM_COLL_SLOTS), and once they are taken the
 * later communicators use messages. Errors still name and go to the
 * user's communicator.
 *
 * An inactive persistent request completes at once with an
 * empty status, as MPI_REQUEST_NULL does. MPI_Request_free releases the
 * persistent request (an operation in flight still completes).
 */
#include <stdlib.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "libmpi/api/coll_check.h"
#include "libmpi/core/comm.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

enum op { OP_SEND, OP_BSEND, OP_SSEND, OP_RSEND, OP_RECV, OP_COLL };

struct persist {
    enum op op;
    /* Point to point. */
    void *buf;
    MPI_Count count;
    int peer, tag;
    /* A collective: its checked arguments, with the arrays converted for
     * them (owned here) and the datatype arrays among those. */
    struct tern_coll_args a;
    void *arrays[TERN_API_COLL_OWNED];
    int narrays;
    const struct tern_dtype *const *types[2];
    int ntypes[2];
};

/* Calls on_type on each datatype and on_op on the op that a persistent
 * collective uses. */
static void each_object(const struct persist *p, void (*on_type)(const struct tern_dtype *),
                        void (*on_op)(const struct tern_op *))
{
    if (p->a.sdt)
        on_type(p->a.sdt);
    if (p->a.rdt)
        on_type(p->a.rdt);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < p->ntypes[k]; i++)
            on_type(p->types[k][i]);
    if (p->a.op)
        on_op(p->a.op);
}

/* A persistent collective's arguments go with its request. */
static void coll_free(void *owned)
{
    struct persist *p = owned;
    tern_comm_discard(p->a.comm);
    each_object(p, tern_dtype_release, tern_op_release);
    for (int i = 0; i < p->narrays; i++)
        free(p->arrays[i]);
    free(p);
}

int tern_api_coll_persist(struct tern_api_coll *x, struct tern_request **out)
{
    struct tern_comm *own;
    int rc = tern_comm_dup_bare(x->a.comm, &own);
    if (!rc && (rc = tern_coll_prepare(own, x->a.kind)))
        tern_comm_discard(own);
    if (rc)
        return rc;
    struct persist *p = calloc(1, sizeof *p);
    struct tern_request *r = p ? tern_request_alloc(TERN_REQ_PERSIST) : NULL;
    if (!r) {
        free(p);
        tern_comm_discard(own);
        return TERN_ENOMEM;
    }
    /* Messages about its operations name the user's communicator. */
    memcpy(own->name, x->a.comm->name, sizeof own->name);
    p->op = OP_COLL;
    p->a = x->a;
    p->a.comm = own;
    for (int i = 0; i < x->nowned; i++)
        p->arrays[i] = x->owned[i];
    p->narrays = x->nowned;
    x->nowned = 0;
    for (int k = 0; k < 2; k++) {
        p->types[k] = x->types[k];
        p->ntypes[k] = x->ntypes[k];
    }
    each_object(p, tern_dtype_retain, tern_op_retain);
    r->owned = p;
    r->owned_free = coll_free;
    tern_request_hold_comm(r, x->a.comm);
    r->done = 1;
    *out = r;
    return 0;
}

static int make(const char *fn, enum op op, const void *buf, MPI_Count count,
                MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Request *req)
{
    struct tern_comm *c = NULL;
    const struct tern_dtype *dt = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_xfer(buf, count, type, peer, tag, comm, op != OP_RECV, &c, &dt);
    if (!rc)
        rc = tern_check_ptr(req, "request");
    struct persist *p = rc ? NULL : malloc(sizeof *p);
    struct tern_request *r = p ? tern_request_alloc(TERN_REQ_PERSIST) : NULL;
    if (!rc && !r) {
        free(p);
        rc = TERN_ENOMEM;
    }
    if (rc)
        return tern_api_error(c, fn, rc);
    *p = (struct persist){ .op = op, .buf = (void *)buf, .count = count, .peer = peer,
                           .tag = tag };
    r->owned = p;
    tern_request_hold_comm(r, c);
    tern_dtype_retain(dt);
    r->dtype = dt;
    /* Inactive: complete, with nothing to report. */
    r->done = 1;
    *req = (MPI_Request)r;
    return MPI_SUCCESS;
}

/* Begins the operation of the inactive persistent request r. */
static int start(const char *fn, struct tern_request *r)
{
    const struct persist *p = r->owned;
    struct tern_comm *c = r->comm;
    int rc;
    if (p->op == OP_BSEND)
        return tern_api_bsend_start(fn, p->buf, (size_t)p->count, r->dtype, p->peer, p->tag, c,
                                    &r->inner);
    if (p->op == OP_COLL) {
        /* A copy: running a collective fills in its size and rank. */
        struct tern_coll_args a = p->a;
        rc = tern_api_coll_start(fn, &a, &r->inner);
    } else if (p->op == OP_RECV) {
        rc = tern_p2p_irecv(p->buf, (size_t)p->count, r->dtype, p->peer, p->tag, c, c->ctx,
                            &r->inner);
    } else {
        int mode = p->op == OP_SSEND ? TERN_SEND_SYNC
                   : p->op == OP_RSEND ? TERN_SEND_READY : TERN_SEND_STANDARD;
        rc = tern_p2p_isend(p->buf, (size_t)p->count, r->dtype, p->peer, p->tag, c, c->ctx,
                            mode, &r->inner);
    }
    if (rc) {
        r->inner = NULL;
        return tern_api_error(c, fn, rc);
    }
    return MPI_SUCCESS;
}

/* An inactive persistent request behind handle h (index i of an array,
 * or -1). */
static int check_startable(MPI_Request h, int i, struct tern_request **r)
{
    *r = h == MPI_REQUEST_NULL ? NULL : tern_request_get(h);
    const char *what = !*r ? "not a request (or MPI_REQUEST_NULL)"
                       : (*r)->kind != TERN_REQ_PERSIST ? "not a persistent request"
                       : (*r)->inner ? "already active (started and not completed yet)"
                                     : NULL;
    if (!what)
        return 0;
    if (i < 0)
        tern_api_detail("invalid request: %s", what);
    else
        tern_api_detail("invalid request at index %d of array_of_requests: %s", i, what);
    return TERN_EREQUEST;
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request *request)
{
    struct tern_request *r = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(request, "request");
    if (!rc)
        rc = check_startable(*request, -1, &r);
    /* A request that exists reports on its communicator. */
    if (rc)
        return tern_api_error(r ? r->comm : NULL, "MPI_Start", rc);
    return start("MPI_Start", r);
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    struct tern_request *r = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_count(count);
    if (!rc && count > 0)
        rc = tern_check_ptr(array_of_requests, "array_of_requests");
    /* Every handle first, so that a bad one starts nothing. */
    for (int i = 0; !rc && i < count; i++)
        rc = check_startable(array_of_requests[i], i, &r);
    if (rc)
        return tern_api_error(r ? r->comm : NULL, "MPI_Startall", rc);
    for (int i = 0; i < count; i++) {
        rc = start("MPI_Startall", tern_request_of(array_of_requests[i]));
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Send_init = PMPI_Send_init
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Send_init", OP_SEND, buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Send_init_c = PMPI_Send_init_c
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Send_init_c", OP_SEND, buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Bsend_init = PMPI_Bsend_init
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Bsend_init", OP_BSEND, buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Bsend_init_c = PMPI_Bsend_init_c
int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Bsend_init_c", OP_BSEND, buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Ssend_init = PMPI_Ssend_init
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Ssend_init", OP_SSEND, buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Ssend_init_c = PMPI_Ssend_init_c
int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Ssend_init_c", OP_SSEND, buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Rsend_init = PMPI_Rsend_init
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Rsend_init", OP_RSEND, buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Rsend_init_c = PMPI_Rsend_init_c
int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Rsend_init_c", OP_RSEND, buf, count, datatype, dest, tag, comm, request);
}

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Recv_init", OP_RECV, buf, count, datatype, source, tag, comm, request);
}

#pragma weak MPI_Recv_init_c = PMPI_Recv_init_c
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Recv_init_c", OP_RECV, buf, count, datatype, source, tag, comm, request);
}
