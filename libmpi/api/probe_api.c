/*
 * Probing and matched receives: Probe, Iprobe, Mprobe, Improbe, Mrecv and
 * Imrecv. A message taken by Mprobe becomes an MPI_Message handle that only
 * Mrecv/Imrecv can receive; MPI_MESSAGE_NO_PROC stands for MPI_PROC_NULL.
 */
#include <stddef.h>

#include "libmpi/api/api.h"
#include "libmpi/core/object.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

struct probe_args {
    int source, tag, flag;
    struct tern_comm *comm;
    MPI_Status *status;
    struct tern_unexp **msg;
};

static int probe_once(void *arg)
{
    struct probe_args *a = arg;
    tern_p2p_iprobe(a->source, a->tag, a->comm, &a->flag, a->status, a->msg);
    return a->flag;
}

/* The shared body of the four probes. msg is non-NULL for the M-forms. */
static int probe(const char *fn, int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Message *message, MPI_Status *status, int blocking)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_source(c, source);
    if (!rc)
        rc = tern_check_recv_tag(tag);
    if (!rc && !blocking)
        rc = tern_check_ptr(flag, "flag");
    if (rc)
        return tern_api_error(c, fn, rc);
    if (source == MPI_PROC_NULL) {
        tern_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0, 0);
        if (flag)
            *flag = 1;
        if (message)
            *message = MPI_MESSAGE_NO_PROC;
        return MPI_SUCCESS;
    }
    struct tern_unexp *u = NULL;
    struct probe_args a = { source, tag, 0, c, status, message ? &u : NULL };
    if (blocking)
        tern_p2p_wait_until(probe_once, &a);
    else
        probe_once(&a);
    if (flag)
        *flag = a.flag;
    if (message)
        *message = a.flag ? (MPI_Message)u : MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe("MPI_Probe", source, tag, comm, NULL, NULL, status, 1);
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe("MPI_Iprobe", source, tag, comm, flag, NULL, status, 0);
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    if (!message)
        return tern_api_error(NULL, "MPI_Mprobe", tern_check_ptr(message, "message"));
    return probe("MPI_Mprobe", source, tag, comm, NULL, message, status, 1);
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status)
{
    if (!message)
        return tern_api_error(NULL, "MPI_Improbe", tern_check_ptr(message, "message"));
    return probe("MPI_Improbe", source, tag, comm, flag, message, status, 0);
}

/* Converts a message handle: *u is NULL for MPI_MESSAGE_NO_PROC. */
static int check_message(MPI_Message h, struct tern_unexp **u)
{
    *u = NULL;
    if (h == MPI_MESSAGE_NO_PROC)
        return 0;
    if (!tern_handle_is_predefined(h) && tern_obj_known(h) &&
        ((struct tern_unexp *)h)->magic == TERN_MAGIC_MESSAGE) {
        *u = (struct tern_unexp *)h;
        return 0;
    }
    tern_api_detail("invalid message handle %s",
                    h == MPI_MESSAGE_NULL ? "MPI_MESSAGE_NULL" : "(not from MPI_Mprobe, or received already)");
    return TERN_EREQUEST;
}

static int mrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type,
                 MPI_Message *message, MPI_Status *status, MPI_Request *request)
{
    const struct tern_dtype *dt;
    struct tern_unexp *u = NULL;
    struct tern_request *r;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(message, "message");
    if (!rc)
        rc = check_message(*message, &u);
    if (!rc)
        rc = tern_check_count(count);
    if (!rc)
        rc = tern_check_type(type, &dt);
    if (!rc && u)
        rc = tern_check_buf(buf, dt->predefined ? count : 0);
    struct tern_comm *c = u ? u->comm : NULL;
    if (!rc)
        rc = tern_p2p_imrecv(buf, (size_t)count, dt, u, &r);
    if (rc)
        return tern_api_error(c, fn, rc);
    *message = MPI_MESSAGE_NULL;
    if (request) {
        *request = (MPI_Request)r;
        return MPI_SUCCESS;
    }
    rc = tern_api_complete(r, status);
    return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    return mrecv("MPI_Mrecv", buf, count, datatype, message, status, NULL);
}

#pragma weak MPI_Mrecv_c = PMPI_Mrecv_c
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    return mrecv("MPI_Mrecv_c", buf, count, datatype, message, status, NULL);
}

/* The nonblocking form checks its request pointer first: mrecv() takes
 * NULL for the blocking one. */
static int imrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Message *message, MPI_Request *request)
{
    if (!request)
        return tern_api_error(NULL, fn, tern_check_ptr(request, "request"));
    return mrecv(fn, buf, count, datatype, message, MPI_STATUS_IGNORE, request);
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    return imrecv("MPI_Imrecv", buf, count, datatype, message, request);
}

#pragma weak MPI_Imrecv_c = PMPI_Imrecv_c
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
{
    return imrecv("MPI_Imrecv_c", buf, count, datatype, message, request);
}
