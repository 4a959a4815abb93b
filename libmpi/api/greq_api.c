/*
 * Generalized requests (MPI_Grequest_start, MPI_Grequest_complete): a
 * request for an operation that the program carries out itself. MPI
 * only keeps its state: it is done once the program calls
 * MPI_Grequest_complete, and the completion calls of request_api.c then
 * ask the program's query_fn for its status and hand its free_fn the
 * program's state (tern_api_greq_*, api.h).
 *
 * The callbacks' return values are MPI error codes, which the completion
 * call returns (or puts in the statuses, with MPI_ERR_IN_STATUS) as they
 * are: the error handler gets the program's own code.
 *
 * Tern provides MPI_THREAD_SERIALIZED at most, so no other thread can
 * complete a request while a call waits for it: MPI_Wait on a generalized
 * request that the program has not completed waits until the long-wait
 * report (TERN_WAIT_WARN_S) says what it waits for.
 */
#include <stdlib.h>

#include "libmpi/api/api.h"
#include "tern/err.h"

/* What MPI_Grequest_start was given, in the request's `owned`. */
struct greq {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
};

static struct greq *greq_of(const struct tern_request *r)
{
    return r->owned;
}

#pragma weak MPI_Grequest_start = PMPI_Grequest_start
int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr((const void *)query_fn, "query_fn");
    if (!rc)
        rc = tern_check_ptr((const void *)free_fn, "free_fn");
    if (!rc)
        rc = tern_check_ptr((const void *)cancel_fn, "cancel_fn");
    if (!rc)
        rc = tern_check_ptr(request, "request");
    struct greq *g = rc ? NULL : malloc(sizeof *g);
    struct tern_request *r = g ? tern_request_alloc(TERN_REQ_GREQ) : NULL;
    if (!rc && !r) {
        free(g);
        rc = TERN_ENOMEM;
    }
    if (rc)
        return tern_api_error(NULL, "MPI_Grequest_start", rc);
    *g = (struct greq){ query_fn, free_fn, cancel_fn, extra_state };
    r->owned = g;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete
int PMPI_Grequest_complete(MPI_Request request)
{
    int rc = tern_check_init();
    struct tern_request *r = rc ? NULL : tern_request_get(request);
    if (!rc && (!r || r->kind != TERN_REQ_GREQ)) {
        tern_api_detail("the request is not a generalized request (MPI_Grequest_start "
                        "makes one)%s", request == MPI_REQUEST_NULL ? ": MPI_REQUEST_NULL" : "");
        rc = TERN_EREQUEST;
    } else if (!rc && r->done) {
        tern_api_detail("the generalized request was completed already: "
                        "MPI_Grequest_complete is called once per request");
        rc = TERN_EREQUEST;
    }
    if (rc)
        return tern_api_error(NULL, "MPI_Grequest_complete", rc);
    r->done = 1;
    /* MPI_Request_free came first: nothing will wait for it. */
    if (r->user_freed && (rc = tern_api_greq_free(r)))
        return tern_api_error(NULL, "MPI_Grequest_complete", rc);
    return MPI_SUCCESS;
}

/* The error a callback returned, as the code to hand on (0 if none). */
static int callback_error(int code, const char *which)
{
    if (code == MPI_SUCCESS)
        return 0;
    tern_api_detail("the %s of a generalized request returned error %d", which, code);
    return code;
}

int tern_api_greq_query(struct tern_request *r, MPI_Status *st)
{
    MPI_Status own;
    const struct greq *g = greq_of(r);
    /* query_fn fills a status even where the caller ignores it. */
    return callback_error(g->query_fn(g->extra_state, st == MPI_STATUS_IGNORE ? &own : st),
                          "query_fn");
}

int tern_api_greq_free(struct tern_request *r)
{
    const struct greq *g = greq_of(r);
    int code = g->free_fn(g->extra_state);
    tern_request_free(r);
    return callback_error(code, "free_fn");
}

int tern_api_greq_cancel(struct tern_request *r)
{
    const struct greq *g = greq_of(r);
    return callback_error(g->cancel_fn(g->extra_state, r->done), "cancel_fn");
}
