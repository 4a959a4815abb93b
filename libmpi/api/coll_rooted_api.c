/*
 * The rooted collectives: Bcast, Gather, Gatherv, Scatter, Scatterv, in
 * their blocking, nonblocking, persistent and large-count forms.
 *
 * Only the root checks the root-only arguments (the receive side of a
 * gather, the send side of a scatter), as the standard makes them
 * significant only there; other ranks pass them on unchecked, converted
 * where they are valid, and collectives/ does not use them. MPI_IN_PLACE is
 * allowed only at the root: as sendbuf of a gather, as recvbuf of a
 * scatter; never in a broadcast.
 */
#include <stdio.h>

#include "libmpi/api/coll_check.h"
#include "tern/err.h"

/* Bytes of count elements of dt (0 for an unchecked, NULL type). */
static size_t bytes(size_t count, const struct tern_dtype *dt)
{
    return dt ? count * dt->size : 0;
}

/* Arguments significant only at the root, on another rank: kept when
 * valid, so collectives/ sees sane values, but never an error. */
static void unused_side(MPI_Count count, MPI_Datatype type, size_t *c,
                        const struct tern_dtype **dt)
{
    *c = count > 0 ? (size_t)count : 0;
    *dt = tern_dtype_get(type);
}

/* Bcast -------------------------------------------------------------- */

static int bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int root,
                 MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_BCAST, NULL, buf, root);
    struct tern_coll_args *a = &x.a;
    int rc = tern_api_coll_begin(comm, req, &a->comm);
    if (!rc)
        rc = tern_check_root(a->comm, root);
    if (!rc)
        rc = tern_check_not_in_place(buf, "buffer", "a broadcast has no in-place form");
    if (!rc)
        rc = tern_check_coll_count(count, "count");
    if (!rc)
        rc = tern_check_coll_type(type, "datatype", &a->rdt);
    /* The text is for the error message only: format it when the check
     * fails (snprintf took a quarter of an 8-byte MPI_Bcast). The buffer
     * of a rank that takes no part (MPI_PROC_NULL on an intercommunicator)
     * is not looked at. */
    if (!rc && root != MPI_PROC_NULL && !tern_coll_buf_ok(buf, (size_t)count, a->rdt)) {
        char why[64];
        snprintf(why, sizeof(why), "count %lld", (long long)count);
        rc = tern_check_coll_buf(buf, "buffer", (size_t)count, a->rdt, why);
    }
    a->rcount = rc ? 0 : (size_t)count;
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast("MPI_Bcast", buffer, count, datatype, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Bcast_c = PMPI_Bcast_c
int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast("MPI_Bcast_c", buffer, count, datatype, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
    return bcast("MPI_Ibcast", buffer, count, datatype, root, comm, request);
}

#pragma weak MPI_Bcast_init = PMPI_Bcast_init
int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Bcast_init", comm, info);
    return rc ? rc : bcast("MPI_Bcast_init", buffer, count, datatype, root, comm, request);
}

#pragma weak MPI_Ibcast_c = PMPI_Ibcast_c
int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
    return bcast("MPI_Ibcast_c", buffer, count, datatype, root, comm, request);
}

#pragma weak MPI_Bcast_init_c = PMPI_Bcast_init_c
int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Bcast_init_c", comm, info);
    return rc ? rc : bcast("MPI_Bcast_init_c", buffer, count, datatype, root, comm, request);
}

/* Gather and Gatherv ---------------------------------------------------- */

/* This rank's block; the root may send in place. On an intercommunicator
 * only the other group sends. */
static int gather_send(struct tern_coll_args *a, MPI_Count scount, MPI_Datatype stype)
{
    if (a->sbuf == MPI_IN_PLACE)
        return tern_check_in_place_root(a->sbuf, "sendbuf", a->comm, a->root);
    if (!tern_api_coll_sends_to_root(a->comm, a->root)) {
        unused_side(scount, stype, &a->scount, &a->sdt);
        return 0;
    }
    int rc = tern_check_coll_side(a->sbuf, scount, 1, stype, "send", &a->sdt);
    a->scount = rc ? 0 : (size_t)scount;
    return rc;
}

static int gather(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                  void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                  MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_GATHER, sbuf, rbuf, root);
    struct tern_coll_args *a = &x.a;
    int rc = tern_api_coll_begin(comm, req, &a->comm);
    if (!rc)
        rc = tern_check_root(a->comm, root);
    if (!rc)
        rc = gather_send(a, scount, stype);
    if (rc || !tern_api_coll_is_root(a->comm, root)) {
        unused_side(rcount, rtype, &a->rcount, &a->rdt);
        return tern_api_coll_run(fn, &x, rc, req);
    }
    rc = tern_check_not_in_place(rbuf, "recvbuf", "only the root's sendbuf may be MPI_IN_PLACE");
    if (!rc)
        rc = tern_check_coll_side(rbuf, rcount, tern_comm_peers(a->comm), rtype, "recv", &a->rdt);
    a->rcount = rc ? 0 : (size_t)rcount;
    if (!rc)
        rc = tern_check_alias(sbuf, bytes(a->scount, a->sdt), rbuf,
                              bytes(a->rcount * (size_t)tern_comm_peers(a->comm), a->rdt));
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Gather_c = PMPI_Gather_c
int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

#pragma weak MPI_Gather_init = PMPI_Gather_init
int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Gather_init", comm, info);
    return rc ? rc : gather("MPI_Gather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

#pragma weak MPI_Igather_c = PMPI_Igather_c
int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return gather("MPI_Igather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

#pragma weak MPI_Gather_init_c = PMPI_Gather_init_c
int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Gather_init_c", comm, info);
    return rc ? rc : gather("MPI_Gather_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

static int gatherv(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                   void *rbuf, struct tern_api_array rcounts, struct tern_api_array displs,
                   MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_GATHERV, sbuf, rbuf, root);
    struct tern_coll_args *a = &x.a;
    int rc = tern_api_coll_begin(comm, req, &a->comm);
    if (!rc)
        rc = tern_check_root(a->comm, root);
    if (!rc)
        rc = gather_send(a, scount, stype);
    if (rc || !tern_api_coll_is_root(a->comm, root)) {
        a->rdt = tern_dtype_get(rtype);
        return tern_api_coll_run(fn, &x, rc, req);
    }
    size_t total = 0;
    rc = tern_check_not_in_place(rbuf, "recvbuf", "only the root's sendbuf may be MPI_IN_PLACE");
    if (!rc)
        rc = tern_check_coll_vside(&x, rbuf, "recv", rcounts, displs, "displs", rtype,
                                   &a->rcounts, &a->rdispls, &a->rdt, &total);
    if (!rc)
        rc = tern_check_alias(sbuf, bytes(a->scount, a->sdt), rbuf, bytes(total, a->rdt));
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gatherv("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(displs), recvtype, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c
int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gatherv("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(displs), recvtype, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Igatherv = PMPI_Igatherv
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return gatherv("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(displs), recvtype, root, comm, request);
}

#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init
int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Gatherv_init", comm, info);
    return rc ? rc : gatherv("MPI_Gatherv_init", sendbuf, sendcount, sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(displs), recvtype, root, comm, request);
}

#pragma weak MPI_Igatherv_c = PMPI_Igatherv_c
int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return gatherv("MPI_Igatherv_c", sendbuf, sendcount, sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(displs), recvtype, root, comm, request);
}

#pragma weak MPI_Gatherv_init_c = PMPI_Gatherv_init_c
int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Gatherv_init_c", comm, info);
    return rc ? rc : gatherv("MPI_Gatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(displs), recvtype, root, comm, request);
}

/* Scatter and Scatterv --------------------------------------------------- */

/* This rank's block; the root may keep its own block in place. On an
 * intercommunicator only the other group receives. */
static int scatter_recv(struct tern_coll_args *a, MPI_Count rcount, MPI_Datatype rtype)
{
    if (a->rbuf == MPI_IN_PLACE)
        return tern_check_in_place_root(a->rbuf, "recvbuf", a->comm, a->root);
    if (!tern_api_coll_sends_to_root(a->comm, a->root)) {
        unused_side(rcount, rtype, &a->rcount, &a->rdt);
        return 0;
    }
    int rc = tern_check_coll_side(a->rbuf, rcount, 1, rtype, "recv", &a->rdt);
    a->rcount = rc ? 0 : (size_t)rcount;
    return rc;
}

static int scatter(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                   void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                   MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_SCATTER, sbuf, rbuf, root);
    struct tern_coll_args *a = &x.a;
    int rc = tern_api_coll_begin(comm, req, &a->comm);
    if (!rc)
        rc = tern_check_root(a->comm, root);
    if (!rc)
        rc = scatter_recv(a, rcount, rtype);
    if (rc || !tern_api_coll_is_root(a->comm, root)) {
        unused_side(scount, stype, &a->scount, &a->sdt);
        return tern_api_coll_run(fn, &x, rc, req);
    }
    rc = tern_check_not_in_place(sbuf, "sendbuf", "only the root's recvbuf may be MPI_IN_PLACE");
    if (!rc)
        rc = tern_check_coll_side(sbuf, scount, tern_comm_peers(a->comm), stype, "send", &a->sdt);
    a->scount = rc ? 0 : (size_t)scount;
    if (!rc)
        rc = tern_check_alias(sbuf, bytes(a->scount * (size_t)tern_comm_peers(a->comm), a->sdt), rbuf,
                              bytes(a->rcount, a->rdt));
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter("MPI_Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Scatter_c = PMPI_Scatter_c
int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter("MPI_Scatter_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return scatter("MPI_Iscatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

#pragma weak MPI_Scatter_init = PMPI_Scatter_init
int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Scatter_init", comm, info);
    return rc ? rc : scatter("MPI_Scatter_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

#pragma weak MPI_Iscatter_c = PMPI_Iscatter_c
int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return scatter("MPI_Iscatter_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

#pragma weak MPI_Scatter_init_c = PMPI_Scatter_init_c
int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Scatter_init_c", comm, info);
    return rc ? rc : scatter("MPI_Scatter_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

static int scatterv(const char *fn, const void *sbuf, struct tern_api_array scounts,
                    struct tern_api_array displs, MPI_Datatype stype, void *rbuf,
                    MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm,
                    MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_SCATTERV, sbuf, rbuf, root);
    struct tern_coll_args *a = &x.a;
    int rc = tern_api_coll_begin(comm, req, &a->comm);
    if (!rc)
        rc = tern_check_root(a->comm, root);
    if (!rc)
        rc = scatter_recv(a, rcount, rtype);
    if (rc || !tern_api_coll_is_root(a->comm, root)) {
        a->sdt = tern_dtype_get(stype);
        return tern_api_coll_run(fn, &x, rc, req);
    }
    size_t total = 0;
    rc = tern_check_not_in_place(sbuf, "sendbuf", "only the root's recvbuf may be MPI_IN_PLACE");
    if (!rc)
        rc = tern_check_coll_vside(&x, sbuf, "send", scounts, displs, "displs", stype,
                                   &a->scounts, &a->sdispls, &a->sdt, &total);
    if (!rc)
        rc = tern_check_alias(sbuf, bytes(total, a->sdt), rbuf, bytes(a->rcount, a->rdt));
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatterv("MPI_Scatterv", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(displs), sendtype, recvbuf, recvcount, recvtype, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c
int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatterv("MPI_Scatterv_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(displs), sendtype, recvbuf, recvcount, recvtype, root, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Iscatterv = PMPI_Iscatterv
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return scatterv("MPI_Iscatterv", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(displs), sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init
int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Scatterv_init", comm, info);
    return rc ? rc : scatterv("MPI_Scatterv_init", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(displs), sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

#pragma weak MPI_Iscatterv_c = PMPI_Iscatterv_c
int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return scatterv("MPI_Iscatterv_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(displs), sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

#pragma weak MPI_Scatterv_init_c = PMPI_Scatterv_init_c
int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Scatterv_init_c", comm, info);
    return rc ? rc : scatterv("MPI_Scatterv_init_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(displs), sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}
