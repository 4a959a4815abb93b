/*
 * MPI_Sendrecv and MPI_Sendrecv_replace: a receive and a send started
 * together, so two ranks exchanging with each other never deadlock; and
 * their nonblocking forms MPI_Isendrecv and MPI_Isendrecv_replace, whose
 * request is the receive with the send as its partner (request_api.c
 * completes the pair).
 */
#include <stdlib.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

/* Starts both halves: the receive first, then the send, its partner. */
static int start_pair(struct tern_comm *c, const void *sbuf, size_t scount,
                      const struct tern_dtype *sdt, int dest, int stag,
                      void *rbuf, size_t rcount, const struct tern_dtype *rdt,
                      int source, int rtag, struct tern_request **out)
{
    struct tern_request *rr, *sr;
    int rc = tern_p2p_irecv(rbuf, rcount, rdt, source, rtag, c, c->ctx, &rr);
    if (rc)
        return rc;
    rc = tern_p2p_isend(sbuf, scount, sdt, dest, stag, c, c->ctx, TERN_SEND_STANDARD, &sr);
    if (rc) {
        tern_p2p_cancel(rr);
        tern_p2p_wait(rr);
        tern_request_free(rr);
        return rc;
    }
    rr->partner = sr;
    *out = rr;
    return 0;
}

/* Starts both halves, waits for both, and frees both requests. */
static int exchange(struct tern_comm *c, const void *sbuf, size_t scount,
                    const struct tern_dtype *sdt, int dest, int stag,
                    void *rbuf, size_t rcount, const struct tern_dtype *rdt,
                    int source, int rtag, MPI_Status *status)
{
    struct tern_request *rr, *sr;
    int rc = start_pair(c, sbuf, scount, sdt, dest, stag, rbuf, rcount, rdt, source, rtag,
                        &rr);
    if (rc)
        return rc;
    sr = rr->partner;
    tern_p2p_wait(sr);
    tern_p2p_wait(rr);
    tern_request_status(rr, status);
    /* The receive's error first, as for MPI_Isendrecv (request_api.c). */
    rc = rr->error ? rr->error : sr->error;
    tern_request_free(sr);
    tern_request_free(rr);
    return rc;
}

/* The blocking forms pass BLOCKING as the request. */
static MPI_Request blocking_slot;
#define BLOCKING (&blocking_slot)

static int sendrecv(const char *fn, const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status *status, MPI_Request *request)
{
    struct tern_comm *c = NULL;
    const struct tern_dtype *sdt, *rdt;
    struct tern_request *r;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_xfer(sendbuf, sendcount, sendtype, dest, sendtag, comm, 1, &c, &sdt);
    if (!rc)
        rc = tern_check_xfer(recvbuf, recvcount, recvtype, source, recvtag, comm, 0, &c, &rdt);
    if (!rc)
        rc = tern_check_ptr(request, "request");
    if (!rc && request == BLOCKING)
        rc = exchange(c, sendbuf, (size_t)sendcount, sdt, dest, sendtag,
                      recvbuf, (size_t)recvcount, rdt, source, recvtag, status);
    else if (!rc && !(rc = start_pair(c, sendbuf, (size_t)sendcount, sdt, dest, sendtag,
                                      recvbuf, (size_t)recvcount, rdt, source, recvtag, &r)))
        *request = (MPI_Request)r;
    return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, status, BLOCKING);
}

#pragma weak MPI_Sendrecv_c = PMPI_Sendrecv_c
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, status, BLOCKING);
}

#pragma weak MPI_Isendrecv = PMPI_Isendrecv
int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return sendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, MPI_STATUS_IGNORE, request);
}

#pragma weak MPI_Isendrecv_c = PMPI_Isendrecv_c
int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return sendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, MPI_STATUS_IGNORE, request);
}

static int sendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                            int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status, MPI_Request *request)
{
    struct tern_comm *c = NULL;
    const struct tern_dtype *dt = NULL;
    struct tern_request *r = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_xfer(buf, count, datatype, dest, sendtag, comm, 1, &c, &dt);
    if (!rc)
        rc = tern_check_xfer(buf, count, datatype, source, recvtag, comm, 0, &c, &dt);
    if (!rc)
        rc = tern_check_ptr(request, "request");
    /* The outgoing data is packed first, so the receive can land in buf;
     * it goes out as bytes, which have the same type signature. */
    size_t bytes = rc ? 0 : (size_t)count * dt->size;
    void *copy = NULL;
    if (!rc && bytes && !(copy = malloc(bytes)))
        rc = TERN_ENOMEM;
    if (!rc && copy)
        tern_dtype_pack(dt, buf, (size_t)count, copy);
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    if (!rc && request == BLOCKING)
        rc = exchange(c, copy, bytes, byte, dest, sendtag, buf, (size_t)count, dt, source,
                      recvtag, status);
    else if (!rc && !(rc = start_pair(c, copy, bytes, byte, dest, sendtag, buf, (size_t)count,
                                      dt, source, recvtag, &r))) {
        /* The send goes on from the copy, which goes with its request. */
        r->partner->owned = copy;
        copy = NULL;
        *request = (MPI_Request)r;
    }
    free(copy);
    return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_replace("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag,
                            source, recvtag, comm, status, BLOCKING);
}

#pragma weak MPI_Sendrecv_replace_c = PMPI_Sendrecv_replace_c
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag,
                            source, recvtag, comm, status, BLOCKING);
}

#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return sendrecv_replace("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag,
                            source, recvtag, comm, MPI_STATUS_IGNORE, request);
}

#pragma weak MPI_Isendrecv_replace_c = PMPI_Isendrecv_replace_c
int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return sendrecv_replace("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag,
                            source, recvtag, comm, MPI_STATUS_IGNORE, request);
}
