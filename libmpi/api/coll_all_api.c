/*
 * The collectives where every rank receives from every rank: Allgather,
 * Allgatherv, Alltoall, Alltoallv, Alltoallw, in their blocking,
 * nonblocking, persistent and large-count forms.
 *
 * Every rank may pass MPI_IN_PLACE as sendbuf (its data is then in recvbuf
 * and the send arguments are ignored, so they are not checked); recvbuf is
 * never MPI_IN_PLACE. Alltoallw's displacements are in bytes, the others'
 * in elements of the type, as collectives/ expects them.
 */

#include "libmpi/api/coll_check.h"
#include "tern/err.h"

#define RECV_RULE "only sendbuf may be MPI_IN_PLACE"

/* Bytes of count elements of dt (0 for an unchecked, NULL type). */
static size_t bytes(size_t count, const struct tern_dtype *dt)
{
    return dt ? count * dt->size : 0;
}

/* Allgather and Alltoall ------------------------------------------------ */

/* Allgather sends one block to all ranks, Alltoall one block to each: the
 * send buffer holds 1 or size blocks. */
static int all_blocks(const char *fn, enum tern_coll_kind kind, const void *sbuf,
                      MPI_Count scount, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                      MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, kind, sbuf, rbuf, 0);
    struct tern_coll_args *a = &x.a;
    int rc = tern_api_coll_begin(comm, req, &a->comm);
    int p = rc ? 0 : tern_comm_peers(a->comm);
    int sblocks = kind == TERN_COLL_ALLTOALL ? p : 1;
    if (!rc && sbuf != MPI_IN_PLACE) {
        rc = tern_check_coll_side(sbuf, scount, sblocks, stype, "send", &a->sdt);
        a->scount = rc ? 0 : (size_t)scount;
    }
    if (!rc)
        rc = tern_check_not_in_place(rbuf, "recvbuf", RECV_RULE);
    if (!rc)
        rc = tern_check_coll_side(rbuf, rcount, p, rtype, "recv", &a->rdt);
    a->rcount = rc ? 0 : (size_t)rcount;
    if (!rc)
        rc = tern_check_alias(sbuf, bytes(a->scount * (size_t)sblocks, a->sdt), rbuf,
                              bytes(a->rcount * (size_t)p, a->rdt));
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return all_blocks("MPI_Allgather", TERN_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Allgather_c = PMPI_Allgather_c
int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return all_blocks("MPI_Allgather_c", TERN_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return all_blocks("MPI_Iallgather", TERN_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Allgather_init = PMPI_Allgather_init
int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Allgather_init", comm, info);
    return rc ? rc : all_blocks("MPI_Allgather_init", TERN_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Iallgather_c = PMPI_Iallgather_c
int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return all_blocks("MPI_Iallgather_c", TERN_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Allgather_init_c = PMPI_Allgather_init_c
int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Allgather_init_c", comm, info);
    return rc ? rc : all_blocks("MPI_Allgather_init_c", TERN_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return all_blocks("MPI_Alltoall", TERN_COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Alltoall_c = PMPI_Alltoall_c
int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return all_blocks("MPI_Alltoall_c", TERN_COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return all_blocks("MPI_Ialltoall", TERN_COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init
int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Alltoall_init", comm, info);
    return rc ? rc : all_blocks("MPI_Alltoall_init", TERN_COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Ialltoall_c = PMPI_Ialltoall_c
int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return all_blocks("MPI_Ialltoall_c", TERN_COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Alltoall_init_c = PMPI_Alltoall_init_c
int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Alltoall_init_c", comm, info);
    return rc ? rc : all_blocks("MPI_Alltoall_init_c", TERN_COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

/* Allgatherv ----------------------------------------------------------------- */

static int allgatherv(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                      void *rbuf, struct tern_api_array rcounts, struct tern_api_array displs,
                      MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_ALLGATHERV, sbuf, rbuf, 0);
    struct tern_coll_args *a = &x.a;
    size_t total = 0;
    int rc = tern_api_coll_begin(comm, req, &a->comm);
    if (!rc && sbuf != MPI_IN_PLACE) {
        rc = tern_check_coll_side(sbuf, scount, 1, stype, "send", &a->sdt);
        a->scount = rc ? 0 : (size_t)scount;
    }
    if (!rc)
        rc = tern_check_not_in_place(rbuf, "recvbuf", RECV_RULE);
    if (!rc)
        rc = tern_check_coll_vside(&x, rbuf, "recv", rcounts, displs, "displs", rtype,
                                   &a->rcounts, &a->rdispls, &a->rdt, &total);
    if (!rc) {
        /* In place, this rank's block is its input (intracommunicators only). */
        a->rcount = a->comm->remote ? 0 : a->rcounts[a->comm->rank];
        rc = tern_check_alias(sbuf, bytes(a->scount, a->sdt), rbuf, bytes(total, a->rdt));
    }
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(displs), recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c
int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(displs), recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgatherv("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(displs), recvtype, comm, request);
}

#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init
int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Allgatherv_init", comm, info);
    return rc ? rc : allgatherv("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(displs), recvtype, comm, request);
}

#pragma weak MPI_Iallgatherv_c = PMPI_Iallgatherv_c
int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgatherv("MPI_Iallgatherv_c", sendbuf, sendcount, sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(displs), recvtype, comm, request);
}

#pragma weak MPI_Allgatherv_init_c = PMPI_Allgatherv_init_c
int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Allgatherv_init_c", comm, info);
    return rc ? rc : allgatherv("MPI_Allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(displs), recvtype, comm, request);
}

/* Alltoallv ------------------------------------------------------------------ */

static int alltoallv(const char *fn, const void *sbuf, struct tern_api_array scounts,
                     struct tern_api_array sdispls, MPI_Datatype stype, void *rbuf,
                     struct tern_api_array rcounts, struct tern_api_array rdispls,
                     MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_ALLTOALLV, sbuf, rbuf, 0);
    struct tern_coll_args *a = &x.a;
    size_t stotal = 0, rtotal = 0;
    int rc = tern_api_coll_begin(comm, req, &a->comm);
    if (!rc && sbuf != MPI_IN_PLACE)
        rc = tern_check_coll_vside(&x, sbuf, "send", scounts, sdispls, "sdispls", stype,
                                   &a->scounts, &a->sdispls, &a->sdt, &stotal);
    if (!rc)
        rc = tern_check_not_in_place(rbuf, "recvbuf", RECV_RULE);
    if (!rc)
        rc = tern_check_coll_vside(&x, rbuf, "recv", rcounts, rdispls, "rdispls", rtype,
                                   &a->rcounts, &a->rdispls, &a->rdt, &rtotal);
    if (!rc)
        rc = tern_check_alias(sbuf, bytes(stotal, a->sdt), rbuf, bytes(rtotal, a->rdt));
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv("MPI_Alltoallv", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(sdispls), sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(rdispls), recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Alltoallv_c = PMPI_Alltoallv_c
int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv("MPI_Alltoallv_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(sdispls), sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(rdispls), recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return alltoallv("MPI_Ialltoallv", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(sdispls), sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(rdispls), recvtype, comm, request);
}

#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init
int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Alltoallv_init", comm, info);
    return rc ? rc : alltoallv("MPI_Alltoallv_init", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(sdispls), sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(rdispls), recvtype, comm, request);
}

#pragma weak MPI_Ialltoallv_c = PMPI_Ialltoallv_c
int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return alltoallv("MPI_Ialltoallv_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(sdispls), sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(rdispls), recvtype, comm, request);
}

#pragma weak MPI_Alltoallv_init_c = PMPI_Alltoallv_init_c
int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Alltoallv_init_c", comm, info);
    return rc ? rc : alltoallv("MPI_Alltoallv_init_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(sdispls), sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(rdispls), recvtype, comm, request);
}

/* Alltoallw ------------------------------------------------------------------ */

static int alltoallw(const char *fn, const void *sbuf, struct tern_api_array scounts,
                     struct tern_api_array sdispls, const MPI_Datatype stypes[], void *rbuf,
                     struct tern_api_array rcounts, struct tern_api_array rdispls,
                     const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_ALLTOALLW, sbuf, rbuf, 0);
    struct tern_coll_args *a = &x.a;
    size_t sbytes = 0, rbytes = 0;
    int rc = tern_api_coll_begin(comm, req, &a->comm);
    if (!rc && sbuf != MPI_IN_PLACE)
        rc = tern_check_coll_wside(&x, sbuf, "send", scounts, sdispls, "sdispls", stypes,
                                   &a->scounts, &a->sdispls, &a->sdts, &sbytes);
    if (!rc)
        rc = tern_check_not_in_place(rbuf, "recvbuf", RECV_RULE);
    if (!rc)
        rc = tern_check_coll_wside(&x, rbuf, "recv", rcounts, rdispls, "rdispls", rtypes,
                                   &a->rcounts, &a->rdispls, &a->rdts, &rbytes);
    if (!rc)
        rc = tern_check_alias(sbuf, sbytes, rbuf, rbytes);
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw("MPI_Alltoallw", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(sdispls), sendtypes, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(rdispls), recvtypes, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Alltoallw_c = PMPI_Alltoallw_c
int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw("MPI_Alltoallw_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(sdispls), sendtypes, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(rdispls), recvtypes, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    return alltoallw("MPI_Ialltoallw", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(sdispls), sendtypes, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(rdispls), recvtypes, comm, request);
}

#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init
int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Alltoallw_init", comm, info);
    return rc ? rc : alltoallw("MPI_Alltoallw_init", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(sdispls), sendtypes, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(rdispls), recvtypes, comm, request);
}

#pragma weak MPI_Ialltoallw_c = PMPI_Ialltoallw_c
int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    return alltoallw("MPI_Ialltoallw_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(sdispls), sendtypes, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(rdispls), recvtypes, comm, request);
}

#pragma weak MPI_Alltoallw_init_c = PMPI_Alltoallw_init_c
int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Alltoallw_init_c", comm, info);
    return rc ? rc : alltoallw("MPI_Alltoallw_init_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(sdispls), sendtypes, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(rdispls), recvtypes, comm, request);
}
