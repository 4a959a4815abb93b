/*
 * Completion: the Wait and Test families, Request_free, Request_get_status
 * and MPI 4.1's Request_get_status_all, _any and _some, Cancel and
 * Test_cancelled.
 *
 * A generalized request (greq_api.c) completes through the same calls,
 * which take its status from the program's query_fn and, as it is freed,
 * call the program's free_fn; MPI_Cancel calls its cancel_fn.
 *
 * Requests of nonblocking collectives (kind TERN_REQ_COLL) go through the
 * same code: the progress engine advances their schedules, and completing
 * one gives an empty status. MPI_Request_free of one is accepted (the
 * schedule runs to its end and frees the request), although the standard
 * calls it erroneous; MPI_Cancel of one is an error.
 *
 * A request of MPI_Isendrecv is its receive with the send as its partner
 * (request.h): it is done when both are, its status is the receive's, its
 * error the first of the two, and it frees both.
 *
 * A persistent request (persist_api.c) stands for the operation MPI_Start
 * began (`inner`): completing it completes that one, takes its status and
 * makes the persistent request inactive, and its handle stays. An inactive
 * one is like MPI_REQUEST_NULL: done, with an empty status, and not active
 * for MPI_Waitany and MPI_Waitsome.
 *
 * All of them convert the handles first (an invalid handle is an error
 * before anything completes), then drive progress until their condition
 * holds. Completing a request fills the status, frees the request and sets
 * the handle to MPI_REQUEST_NULL; the Request_get_status family fills the
 * status and leaves the request as it is (settle()).
 */
#include <stddef.h>

#include "libmpi/api/api.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

static void empty_status(MPI_Status *st)
{
    tern_status_set(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
}

/* The request that carries the operation: a persistent request's active
 * one, else r itself (NULL for an inactive persistent request). */
static struct tern_request *operation(struct tern_request *r)
{
    return r->kind == TERN_REQ_PERSIST ? r->inner : r;
}

static int req_done(struct tern_request *r)
{
    r = operation(r);
    return !r || (r->done && (!r->partner || r->partner->done));
}

static void req_wait(struct tern_request *r)
{
    if (!(r = operation(r)))
        return;
    tern_p2p_wait(r);
    if (r->partner)
        tern_p2p_wait(r->partner);
}

/* Whether a handle counts as active for MPI_Waitany and MPI_Waitsome:
 * neither MPI_REQUEST_NULL nor an inactive persistent request. */
static int active(MPI_Request h)
{
    return h != MPI_REQUEST_NULL && operation(tern_request_of(h));
}

int tern_api_complete(struct tern_request *r, MPI_Status *st)
{
    tern_p2p_wait(r);
    tern_request_status(r, st);
    int rc = r->error;
    tern_request_free(r);
    return rc;
}

/* Converts every handle of an array; NULL handles are allowed. */
static int check_requests(int count, const MPI_Request reqs[])
{
    int rc = tern_check_count(count);
    if (!rc && count > 0)
        rc = tern_check_ptr(reqs, "array_of_requests");
    for (int i = 0; !rc && i < count; i++) {
        if (reqs[i] != MPI_REQUEST_NULL && !tern_request_get(reqs[i])) {
            tern_api_detail("invalid request at index %d of array_of_requests", i);
            rc = TERN_EREQUEST;
        }
    }
    return rc;
}

/* Completes the done request behind *h: status, free, handle to NULL.
 * Returns the operation's error code (0 if it succeeded); on an error,
 * *comm is the communicator whose handler applies. A nonblocking
 * collective's status is empty, as for a send. */
static int retire(MPI_Request *h, MPI_Status *st, struct tern_comm **comm)
{
    struct tern_request *r = tern_request_of(*h);
    if (r->kind == TERN_REQ_PERSIST) {
        /* The operation retires; the persistent request stays, inactive. */
        if (!r->inner) {
            empty_status(st);
            return 0;
        }
        MPI_Request op = (MPI_Request)r->inner;
        r->inner = NULL;
        int err = retire(&op, st, comm);
        /* A persistent collective runs on a communicator of its own. */
        if (err)
            *comm = r->comm;
        return err;
    }
    if (r->kind == TERN_REQ_GREQ) {
        /* The program's status, then its free_fn, which frees r. */
        int err = tern_api_greq_query(r, st);
        int freed = tern_api_greq_free(r);
        *h = MPI_REQUEST_NULL;
        *comm = NULL;
        return err ? err : freed;
    }
    tern_request_status(r, st);
    int err = r->error;
    struct tern_request *send = r->partner;
    if (send && !err)
        err = send->error;
    /* A receive from MPI_PROC_NULL has no communicator; its send has. */
    if (err)
        *comm = r->comm || !send ? r->comm : send->comm;
    if (send)
        tern_request_free(send);
    if (err == TERN_ETRUNCATE && r->kind == TERN_REQ_COLL)
        tern_api_detail("a nonblocking collective on %s failed: the ranks disagree on the "
                        "message size, they passed different counts or datatypes "
                        "(message truncated)", r->comm->name);
    tern_request_free(r);
    *h = MPI_REQUEST_NULL;
    return err;
}

/* What the Wait and Test families do with a done request (retire()), or,
 * with `keep`, what the Request_get_status family does: the status and
 * the error, the request left as it is. */
static int settle(MPI_Request *h, MPI_Status *st, struct tern_comm **comm, int keep)
{
    if (!keep)
        return retire(h, st, comm);
    struct tern_request *r = operation(tern_request_of(*h));
    if (!r) {
        empty_status(st);
        return 0;
    }
    if (r->kind == TERN_REQ_GREQ) {
        *comm = NULL;
        return tern_api_greq_query(r, st);
    }
    tern_request_status(r, st);
    int err = r->error;
    if (!err && r->partner)
        err = r->partner->error;
    if (err)
        *comm = r->comm || !r->partner ? r->comm : r->partner->comm;
    return err;
}

static int is_done(MPI_Request h)
{
    return h == MPI_REQUEST_NULL || req_done(tern_request_of(h));
}

#pragma weak MPI_Wait = PMPI_Wait
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(request, "request");
    if (!rc)
        rc = check_requests(1, request);
    if (rc)
        return tern_api_error(NULL, "MPI_Wait", rc);
    if (*request == MPI_REQUEST_NULL) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    req_wait(tern_request_of(*request));
    struct tern_comm *c;
    rc = retire(request, status, &c);
    return rc ? tern_api_error(c, "MPI_Wait", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Test = PMPI_Test
int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(request, "request");
    if (!rc)
        rc = tern_check_ptr(flag, "flag");
    if (!rc)
        rc = check_requests(1, request);
    if (rc)
        return tern_api_error(NULL, "MPI_Test", rc);
    if (*request == MPI_REQUEST_NULL) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!is_done(*request))
        tern_progress();
    *flag = is_done(*request);
    if (!*flag)
        return MPI_SUCCESS;
    struct tern_comm *c;
    rc = retire(request, status, &c);
    return rc ? tern_api_error(c, "MPI_Test", rc) : MPI_SUCCESS;
}

/* Retires (settle()) every done request of the array into its status
 * slot; returns TERN_EINSTATUS if any failed (statuses then carry each
 * one's class). */
static int retire_all(int count, MPI_Request reqs[], MPI_Status sts[], struct tern_comm **c,
                      int keep)
{
    int failed = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[i];
        if (reqs[i] == MPI_REQUEST_NULL) {
            empty_status(st);
            continue;
        }
        int err = settle(&reqs[i], st, c, keep);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = err ? tern_err_class(err) : MPI_SUCCESS;
        failed |= err != 0;
    }
    return failed ? TERN_EINSTATUS : 0;
}

#pragma weak MPI_Waitall = PMPI_Waitall
int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    int rc = tern_check_init();
    if (!rc)
        rc = check_requests(count, array_of_requests);
    if (rc)
        return tern_api_error(NULL, "MPI_Waitall", rc);
    for (int i = 0; i < count; i++)
        if (array_of_requests[i] != MPI_REQUEST_NULL)
            req_wait(tern_request_of(array_of_requests[i]));
    struct tern_comm *c = NULL;
    rc = retire_all(count, array_of_requests, array_of_statuses, &c, 0);
    return rc ? tern_api_error(c, "MPI_Waitall", rc) : MPI_SUCCESS;
}

static int test_all(const char *fn, int count, MPI_Request reqs[], int *flag,
                    MPI_Status sts[], int keep)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(flag, "flag");
    if (!rc)
        rc = check_requests(count, reqs);
    if (rc)
        return tern_api_error(NULL, fn, rc);
    tern_progress();
    *flag = 1;
    for (int i = 0; i < count && *flag; i++)
        *flag = is_done(reqs[i]);
    if (!*flag)
        return MPI_SUCCESS;
    struct tern_comm *c = NULL;
    rc = retire_all(count, reqs, sts, &c, keep);
    return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Testall = PMPI_Testall
int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    return test_all("MPI_Testall", count, array_of_requests, flag, array_of_statuses, 0);
}

#pragma weak MPI_Request_get_status_all = PMPI_Request_get_status_all
int PMPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    /* Nothing is written to the requests (keep). */
    return test_all("MPI_Request_get_status_all", count, (MPI_Request *)array_of_requests,
                    flag, array_of_statuses, 1);
}

/* Index of the first done active request, MPI_UNDEFINED if none is active
 * (all null or inactive persistent), or -1 if some are active but none is
 * done. */
static int first_done(int count, const MPI_Request reqs[])
{
    int any_active = 0;
    for (int i = 0; i < count; i++) {
        if (!active(reqs[i]))
            continue;
        if (req_done(tern_request_of(reqs[i])))
            return i;
        any_active = 1;
    }
    return any_active ? -1 : MPI_UNDEFINED;
}

struct req_array {
    int count;
    MPI_Request *reqs;
};

static int some_done(void *arg)
{
    struct req_array *a = arg;
    return first_done(a->count, a->reqs) != -1;
}

static int any(const char *fn, int count, MPI_Request reqs[], int *index,
               int *flag, MPI_Status *st, int keep)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(index, "index");
    if (!rc)
        rc = check_requests(count, reqs);
    if (rc)
        return tern_api_error(NULL, fn, rc);
    int i = first_done(count, reqs);
    if (i == -1) {
        tern_progress();
        i = first_done(count, reqs);
    }
    if (i == -1 && !flag) {
        struct req_array a = { count, reqs };
        tern_p2p_wait_until(some_done, &a);
        i = first_done(count, reqs);
    }
    if (flag)
        *flag = i != -1;
    if (i == -1) {
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    *index = i;
    if (i == MPI_UNDEFINED) {
        empty_status(st);
        return MPI_SUCCESS;
    }
    struct tern_comm *c;
    rc = settle(&reqs[i], st, &c, keep);
    return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Waitany = PMPI_Waitany
int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    return any("MPI_Waitany", count, array_of_requests, index, NULL, status, 0);
}

#pragma weak MPI_Testany = PMPI_Testany
int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    if (!flag)
        return tern_api_error(NULL, "MPI_Testany", tern_check_ptr(flag, "flag"));
    return any("MPI_Testany", count, array_of_requests, index, flag, status, 0);
}

#pragma weak MPI_Request_get_status_any = PMPI_Request_get_status_any
int PMPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status)
{
    if (!flag)
        return tern_api_error(NULL, "MPI_Request_get_status_any", tern_check_ptr(flag, "flag"));
    return any("MPI_Request_get_status_any", count, (MPI_Request *)array_of_requests, index,
               flag, status, 1);
}

/* Retires (settle()) every done request into the next output slot;
 * returns the number retired, MPI_UNDEFINED when all are null, and
 * TERN_EINSTATUS in *err if one failed. */
static int retire_some(int count, MPI_Request reqs[], int indices[],
                       MPI_Status sts[], int *err, struct tern_comm **c, int keep)
{
    int n = 0, any_active = 0;
    for (int i = 0; i < count; i++) {
        if (!active(reqs[i]))
            continue;
        any_active = 1;
        if (!req_done(tern_request_of(reqs[i])))
            continue;
        MPI_Status *st = sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &sts[n];
        int e = settle(&reqs[i], st, c, keep);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = e ? tern_err_class(e) : MPI_SUCCESS;
        if (e)
            *err = TERN_EINSTATUS;
        indices[n++] = i;
    }
    return any_active ? n : MPI_UNDEFINED;
}

static int some(const char *fn, int incount, MPI_Request reqs[], int *outcount,
                int indices[], MPI_Status sts[], int blocking, int keep)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(outcount, "outcount");
    if (!rc)
        rc = check_requests(incount, reqs);
    if (!rc && incount > 0)
        rc = tern_check_ptr(indices, "array_of_indices");
    if (rc)
        return tern_api_error(NULL, fn, rc);
    tern_progress();
    if (blocking && first_done(incount, reqs) == -1) {
        struct req_array a = { incount, reqs };
        tern_p2p_wait_until(some_done, &a);
    }
    struct tern_comm *c = NULL;
    int err = 0;
    *outcount = retire_some(incount, reqs, indices, sts, &err, &c, keep);
    return err ? tern_api_error(c, fn, err) : MPI_SUCCESS;
}

#pragma weak MPI_Waitsome = PMPI_Waitsome
int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some("MPI_Waitsome", incount, array_of_requests, outcount, array_of_indices, array_of_statuses, 1, 0);
}

#pragma weak MPI_Testsome = PMPI_Testsome
int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some("MPI_Testsome", incount, array_of_requests, outcount, array_of_indices, array_of_statuses, 0, 0);
}

#pragma weak MPI_Request_get_status_some = PMPI_Request_get_status_some
int PMPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some("MPI_Request_get_status_some", incount, (MPI_Request *)array_of_requests,
                outcount, array_of_indices, array_of_statuses, 0, 1);
}

/* Frees r now if it completed, else when it does (the p2p core does it). */
static void release(struct tern_request *r)
{
    if (!r)
        return;
    if (r->done)
        tern_request_free(r);
    else
        r->user_freed = 1;
}

/* Converts a handle that must name a request (not MPI_REQUEST_NULL). */
static int active_request(MPI_Request *h, struct tern_request **r)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(h, "request");
    *r = rc ? NULL : tern_request_get(*h);
    if (!rc && !*r) {
        tern_api_detail("invalid request (MPI_REQUEST_NULL or not a request)");
        rc = TERN_EREQUEST;
    }
    return rc;
}

#pragma weak MPI_Request_free = PMPI_Request_free
int PMPI_Request_free(MPI_Request *request)
{
    struct tern_request *r;
    int rc = active_request(request, &r);
    if (rc)
        return tern_api_error(NULL, "MPI_Request_free", rc);
    /* A persistent request's operation, if one is active, completes on
     * its own. */
    if (r->kind == TERN_REQ_PERSIST)
        release(r->inner);
    release(r->partner);
    *request = MPI_REQUEST_NULL;
    if (r->kind == TERN_REQ_GREQ && r->done) {
        /* The program completed it: its free_fn runs now (else
         * MPI_Grequest_complete runs it). */
        rc = tern_api_greq_free(r);
        return rc ? tern_api_error(NULL, "MPI_Request_free", rc) : MPI_SUCCESS;
    }
    release(r);
    return MPI_SUCCESS;
}

#pragma weak MPI_Request_get_status = PMPI_Request_get_status
int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(flag, "flag");
    if (!rc)
        rc = check_requests(1, &request);
    if (rc)
        return tern_api_error(NULL, "MPI_Request_get_status", rc);
    if (request == MPI_REQUEST_NULL) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    struct tern_request *r = tern_request_of(request);
    if (!req_done(r))
        tern_progress();
    *flag = req_done(r);
    if (*flag && r->kind == TERN_REQ_GREQ && (rc = tern_api_greq_query(r, status)))
        return tern_api_error(NULL, "MPI_Request_get_status", rc);
    if (*flag && r->kind != TERN_REQ_GREQ && operation(r))
        tern_request_status(operation(r), status);
    else if (*flag && !operation(r))
        empty_status(status);
    return MPI_SUCCESS;
}

#pragma weak MPI_Cancel = PMPI_Cancel
int PMPI_Cancel(MPI_Request *request)
{
    struct tern_request *r;
    int rc = active_request(request, &r);
    if (rc)
        return tern_api_error(NULL, "MPI_Cancel", rc);
    if (r->kind == TERN_REQ_PERSIST && !r->inner) {
        tern_api_detail("the persistent request is inactive (not started): nothing to "
                        "cancel");
        return tern_api_error(r->comm, "MPI_Cancel", TERN_EREQUEST);
    }
    r = operation(r);
    if (r->kind == TERN_REQ_COLL) {
        tern_api_detail("a nonblocking collective cannot be cancelled (the MPI standard "
                        "makes MPI_Cancel of one erroneous)");
        return tern_api_error(r->comm, "MPI_Cancel", TERN_EREQUEST);
    }
    if (r->kind == TERN_REQ_GREQ) {
        rc = tern_api_greq_cancel(r);
        return rc ? tern_api_error(NULL, "MPI_Cancel", rc) : MPI_SUCCESS;
    }
    /* Not an MPI_Isendrecv's receive: the pair must be cancelled whole or
     * not at all, and its send goes out anyway. */
    if (r->partner)
        return MPI_SUCCESS;
    if (r->kind == TERN_REQ_SEND)
        tern_p2p_cancel_send(r);
    else
        tern_p2p_cancel(r);
    return MPI_SUCCESS;
}

#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled
int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    int rc = tern_check_ptr(status, "status");
    if (!rc)
        rc = tern_check_ptr(flag, "flag");
    if (rc)
        return tern_api_error(NULL, "MPI_Test_cancelled", rc);
    *flag = tern_status_cancelled(status);
    return MPI_SUCCESS;
}
