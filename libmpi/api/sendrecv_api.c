/*
 * MPI_Sendrecv and MPI_Sendrecv_replace: a receive and a send started
 * together, so two ranks exchanging with each other never deadlock.
 */
#include <stdlib.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

/* Starts both halves, waits for both, and frees both requests. */
static int exchange(struct tern_comm *c, const void *sbuf, size_t scount,
                    const struct tern_dtype *sdt, int dest, int stag,
                    void *rbuf, size_t rcount, const struct tern_dtype *rdt,
                    int source, int rtag, MPI_Status *status)
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
    tern_p2p_wait(sr);
    tern_p2p_wait(rr);
    tern_request_status(rr, status);
    rc = sr->error ? sr->error : rr->error;
    tern_request_free(sr);
    tern_request_free(rr);
    return rc;
}

static int sendrecv(const char *fn, const void *sendbuf, MPI_Count sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status *status)
{
    struct tern_comm *c = NULL;
    const struct tern_dtype *sdt, *rdt;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_xfer(sendbuf, sendcount, sendtype, dest, sendtag, comm, 1, &c, &sdt);
    if (!rc)
        rc = tern_check_xfer(recvbuf, recvcount, recvtype, source, recvtag, comm, 0, &c, &rdt);
    if (!rc)
        rc = exchange(c, sendbuf, (size_t)sendcount, sdt, dest, sendtag,
                      recvbuf, (size_t)recvcount, rdt, source, recvtag, status);
    return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, status);
}

#pragma weak MPI_Sendrecv_c = PMPI_Sendrecv_c
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, status);
}

static int sendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                            int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status)
{
    struct tern_comm *c = NULL;
    const struct tern_dtype *dt = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_xfer(buf, count, datatype, dest, sendtag, comm, 1, &c, &dt);
    if (!rc)
        rc = tern_check_xfer(buf, count, datatype, source, recvtag, comm, 0, &c, &dt);
    /* The outgoing data is packed first, so the receive can land in buf;
     * it goes out as bytes, which have the same type signature. */
    size_t bytes = rc ? 0 : (size_t)count * dt->size;
    void *copy = NULL;
    if (!rc && bytes && !(copy = malloc(bytes)))
        rc = TERN_ENOMEM;
    if (!rc) {
        if (copy)
            tern_dtype_pack(dt, buf, (size_t)count, copy);
        rc = exchange(c, copy, bytes, tern_dtype_get(MPI_BYTE), dest, sendtag,
                      buf, (size_t)count, dt, source, recvtag, status);
    }
    free(copy);
    return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_replace("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag,
                            source, recvtag, comm, status);
}

#pragma weak MPI_Sendrecv_replace_c = PMPI_Sendrecv_replace_c
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag,
                            source, recvtag, comm, status);
}
