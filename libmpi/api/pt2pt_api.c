/*
 * Point-to-point sends and receives: the blocking, nonblocking and
 * combined forms share one checked entry per direction.
 */
#include <stdlib.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

/* Blocking calls pass BLOCKING as the request: wait for completion here. */
static MPI_Request blocking_slot;
#define BLOCKING (&blocking_slot)

/* Checks and starts a send; a blocking one also waits for completion. */
static int do_send(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type,
                   int dest, int tag, MPI_Comm comm, int mode, MPI_Request *req)
{
    struct tern_comm *c = NULL;
    const struct tern_dtype *dt;
    struct tern_request *r;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_xfer(buf, count, type, dest, tag, comm, 1, &c, &dt);
    if (!rc)
        rc = tern_check_ptr(req, "request");
    if (!rc)
        rc = tern_p2p_isend(buf, (size_t)count, dt, dest, tag, c, c->ctx, mode, &r);
    if (rc)
        return tern_api_error(c, fn, rc);
    if (req != BLOCKING) {
        *req = (MPI_Request)r;
        return MPI_SUCCESS;
    }
    rc = tern_api_complete(r, MPI_STATUS_IGNORE);
    return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
}

/* Checks and starts a receive; a blocking one also waits and fills st. */
static int do_recv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type,
                   int source, int tag, MPI_Comm comm, MPI_Status *st, MPI_Request *req)
{
    struct tern_comm *c = NULL;
    const struct tern_dtype *dt;
    struct tern_request *r;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_xfer(buf, count, type, source, tag, comm, 0, &c, &dt);
    if (!rc)
        rc = tern_check_ptr(req, "request");
    if (!rc)
        rc = tern_p2p_irecv(buf, (size_t)count, dt, source, tag, c, c->ctx, &r);
    if (rc)
        return tern_api_error(c, fn, rc);
    if (req != BLOCKING) {
        *req = (MPI_Request)r;
        return MPI_SUCCESS;
    }
    rc = tern_api_complete(r, st);
    return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Send = PMPI_Send
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return do_send("MPI_Send", buf, count, datatype, dest, tag, comm, TERN_SEND_STANDARD, BLOCKING);
}

#pragma weak MPI_Send_c = PMPI_Send_c
int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return do_send("MPI_Send_c", buf, count, datatype, dest, tag, comm, TERN_SEND_STANDARD, BLOCKING);
}

#pragma weak MPI_Ssend = PMPI_Ssend
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return do_send("MPI_Ssend", buf, count, datatype, dest, tag, comm, TERN_SEND_SYNC, BLOCKING);
}

#pragma weak MPI_Ssend_c = PMPI_Ssend_c
int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return do_send("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, TERN_SEND_SYNC, BLOCKING);
}

#pragma weak MPI_Rsend = PMPI_Rsend
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return do_send("MPI_Rsend", buf, count, datatype, dest, tag, comm, TERN_SEND_READY, BLOCKING);
}

#pragma weak MPI_Rsend_c = PMPI_Rsend_c
int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return do_send("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, TERN_SEND_READY, BLOCKING);
}

#pragma weak MPI_Isend = PMPI_Isend
int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return do_send("MPI_Isend", buf, count, datatype, dest, tag, comm, TERN_SEND_STANDARD, request);
}

#pragma weak MPI_Isend_c = PMPI_Isend_c
int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return do_send("MPI_Isend_c", buf, count, datatype, dest, tag, comm, TERN_SEND_STANDARD, request);
}

#pragma weak MPI_Issend = PMPI_Issend
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return do_send("MPI_Issend", buf, count, datatype, dest, tag, comm, TERN_SEND_SYNC, request);
}

#pragma weak MPI_Issend_c = PMPI_Issend_c
int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return do_send("MPI_Issend_c", buf, count, datatype, dest, tag, comm, TERN_SEND_SYNC, request);
}

#pragma weak MPI_Irsend = PMPI_Irsend
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return do_send("MPI_Irsend", buf, count, datatype, dest, tag, comm, TERN_SEND_READY, request);
}

#pragma weak MPI_Irsend_c = PMPI_Irsend_c
int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
{
    return do_send("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, TERN_SEND_READY, request);
}

#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return do_recv("MPI_Recv", buf, count, datatype, source, tag, comm, status, BLOCKING);
}

#pragma weak MPI_Recv_c = PMPI_Recv_c
int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return do_recv("MPI_Recv_c", buf, count, datatype, source, tag, comm, status, BLOCKING);
}

#pragma weak MPI_Irecv = PMPI_Irecv
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    return do_recv("MPI_Irecv", buf, count, datatype, source, tag, comm, MPI_STATUS_IGNORE, request);
}

#pragma weak MPI_Irecv_c = PMPI_Irecv_c
int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    return do_recv("MPI_Irecv_c", buf, count, datatype, source, tag, comm, MPI_STATUS_IGNORE, request);
}
