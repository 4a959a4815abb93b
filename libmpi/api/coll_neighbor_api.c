/*
 * The neighbourhood collectives: MPI_Neighbor_allgather, _allgatherv,
 * _alltoall, _alltoallv and _alltoallw, in their blocking, nonblocking,
 * persistent and large-count forms, on a communicator with a process topology (cart_api.c,
 * graph_api.c). Block k of the send buffer goes to out-neighbour k and
 * block k of the receive buffer comes from in-neighbour k, in the order
 * MPI_Cart_shift, MPI_Graph_neighbors or MPI_Dist_graph_neighbors gives;
 * the count arrays of the v and w forms have one entry per neighbour.
 * Neither buffer may be MPI_IN_PLACE. collectives/neighbor_linear.c runs
 * them.
 */
#include "libmpi/api/coll_check.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/topo.h"
#include "tern/err.h"

#define IN_PLACE_RULE "the neighbourhood collectives take no MPI_IN_PLACE"

/* The checks every form starts with: those of every collective, a
 * topology on the communicator, and neither buffer in place; *nin and
 * *nout are this rank's numbers of in- and out-neighbours. */
static int begin(MPI_Comm comm, MPI_Request *req, const void *sbuf, void *rbuf,
                 struct tern_api_coll *x, int *nin, int *nout)
{
    int rc = tern_api_coll_begin(comm, req, &x->a.comm);
    struct tern_comm *c = x->a.comm;
    if (!rc && !c->topo) {
        tern_api_detail("%s has no process topology (MPI_Cart_create, MPI_Graph_create "
                        "or MPI_Dist_graph_create make one)", tern_comm_label(c));
        rc = TERN_ETOPOLOGY;
    }
    if (!rc)
        tern_topo_neighbors(c->topo, c->rank, nin, NULL, nout, NULL);
    if (!rc)
        rc = tern_check_not_in_place(sbuf, "sendbuf", IN_PLACE_RULE);
    if (!rc)
        rc = tern_check_not_in_place(rbuf, "recvbuf", IN_PLACE_RULE);
    return rc;
}

/* Bytes of count elements of dt (0 for an unchecked, NULL type). */
static size_t bytes(size_t count, const struct tern_dtype *dt)
{
    return dt ? count * dt->size : 0;
}

/* Allgather and Alltoall: one block for all out-neighbours, or one each. */
static int blocks(const char *fn, enum tern_coll_kind kind, const void *sbuf, MPI_Count scount,
                  MPI_Datatype stype, void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                  MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, kind, sbuf, rbuf, 0);
    struct tern_coll_args *a = &x.a;
    int nin = 0, nout = 0;
    int rc = begin(comm, req, sbuf, rbuf, &x, &nin, &nout);
    int sblocks = kind == TERN_COLL_NEIGHBOR_ALLTOALL ? nout : 1;
    if (!rc)
        rc = tern_check_coll_side(sbuf, scount, sblocks, stype, "send", &a->sdt);
    a->scount = rc ? 0 : (size_t)scount;
    if (!rc)
        rc = tern_check_coll_side(rbuf, rcount, nin, rtype, "recv", &a->rdt);
    a->rcount = rc ? 0 : (size_t)rcount;
    if (!rc)
        rc = tern_check_alias(sbuf, bytes(a->scount * (size_t)sblocks, a->sdt), rbuf,
                              bytes(a->rcount * (size_t)nin, a->rdt));
    return tern_api_coll_run(fn, &x, rc, req);
}

static int allgatherv(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                      void *rbuf, struct tern_api_array rcounts, struct tern_api_array displs,
                      MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_NEIGHBOR_ALLGATHERV, sbuf, rbuf, 0);
    x.nblocks_set = 1;
    struct tern_coll_args *a = &x.a;
    int nin = 0, nout = 0;
    size_t rtotal = 0;
    int rc = begin(comm, req, sbuf, rbuf, &x, &nin, &nout);
    if (!rc)
        rc = tern_check_coll_side(sbuf, scount, 1, stype, "send", &a->sdt);
    a->scount = rc ? 0 : (size_t)scount;
    x.nblocks = nin;
    if (!rc)
        rc = tern_check_coll_vside(&x, rbuf, "recv", rcounts, displs, "displs", rtype,
                                   &a->rcounts, &a->rdispls, &a->rdt, &rtotal);
    if (!rc)
        rc = tern_check_alias(sbuf, bytes(a->scount, a->sdt), rbuf, bytes(rtotal, a->rdt));
    return tern_api_coll_run(fn, &x, rc, req);
}

static int alltoallv(const char *fn, const void *sbuf, struct tern_api_array scounts,
                     struct tern_api_array sdispls, MPI_Datatype stype, void *rbuf,
                     struct tern_api_array rcounts, struct tern_api_array rdispls,
                     MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_NEIGHBOR_ALLTOALLV, sbuf, rbuf, 0);
    x.nblocks_set = 1;
    struct tern_coll_args *a = &x.a;
    int nin = 0, nout = 0;
    size_t stotal = 0, rtotal = 0;
    int rc = begin(comm, req, sbuf, rbuf, &x, &nin, &nout);
    x.nblocks = nout;
    if (!rc)
        rc = tern_check_coll_vside(&x, sbuf, "send", scounts, sdispls, "sdispls", stype,
                                   &a->scounts, &a->sdispls, &a->sdt, &stotal);
    x.nblocks = nin;
    if (!rc)
        rc = tern_check_coll_vside(&x, rbuf, "recv", rcounts, rdispls, "rdispls", rtype,
                                   &a->rcounts, &a->rdispls, &a->rdt, &rtotal);
    if (!rc)
        rc = tern_check_alias(sbuf, bytes(stotal, a->sdt), rbuf, bytes(rtotal, a->rdt));
    return tern_api_coll_run(fn, &x, rc, req);
}

static int alltoallw(const char *fn, const void *sbuf, struct tern_api_array scounts,
                     const MPI_Aint sdispls[], const MPI_Datatype stypes[], void *rbuf,
                     struct tern_api_array rcounts, const MPI_Aint rdispls[],
                     const MPI_Datatype rtypes[], MPI_Comm comm, MPI_Request *req)
{
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_NEIGHBOR_ALLTOALLW, sbuf, rbuf, 0);
    x.nblocks_set = 1;
    struct tern_coll_args *a = &x.a;
    int nin = 0, nout = 0;
    size_t sbytes = 0, rbytes = 0;
    int rc = begin(comm, req, sbuf, rbuf, &x, &nin, &nout);
    x.nblocks = nout;
    if (!rc)
        rc = tern_check_coll_wside(&x, sbuf, "send", scounts, TERN_API_AINTS(sdispls),
                                   "sdispls", stypes, &a->scounts, &a->sdispls, &a->sdts,
                                   &sbytes);
    x.nblocks = nin;
    if (!rc)
        rc = tern_check_coll_wside(&x, rbuf, "recv", rcounts, TERN_API_AINTS(rdispls),
                                   "rdispls", rtypes, &a->rcounts, &a->rdispls, &a->rdts,
                                   &rbytes);
    if (!rc)
        rc = tern_check_alias(sbuf, sbytes, rbuf, rbytes);
    return tern_api_coll_run(fn, &x, rc, req);
}

/* MPI_Neighbor_allgather ------------------------------------------------- */

#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return blocks("MPI_Neighbor_allgather", TERN_COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Neighbor_allgather_c = PMPI_Neighbor_allgather_c
int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return blocks("MPI_Neighbor_allgather_c", TERN_COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return blocks("MPI_Ineighbor_allgather", TERN_COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init
int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Neighbor_allgather_init", comm, info);
    return rc ? rc : blocks("MPI_Neighbor_allgather_init", TERN_COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Ineighbor_allgather_c = PMPI_Ineighbor_allgather_c
int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return blocks("MPI_Ineighbor_allgather_c", TERN_COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Neighbor_allgather_init_c = PMPI_Neighbor_allgather_init_c
int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Neighbor_allgather_init_c", comm, info);
    return rc ? rc : blocks("MPI_Neighbor_allgather_init_c", TERN_COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

/* MPI_Neighbor_allgatherv ------------------------------------------------- */

#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(displs), recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Neighbor_allgatherv_c = PMPI_Neighbor_allgatherv_c
int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv("MPI_Neighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(displs), recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(displs), recvtype, comm, request);
}

#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init
int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Neighbor_allgatherv_init", comm, info);
    return rc ? rc : allgatherv("MPI_Neighbor_allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(displs), recvtype, comm, request);
}

#pragma weak MPI_Ineighbor_allgatherv_c = PMPI_Ineighbor_allgatherv_c
int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgatherv("MPI_Ineighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(displs), recvtype, comm, request);
}

#pragma weak MPI_Neighbor_allgatherv_init_c = PMPI_Neighbor_allgatherv_init_c
int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Neighbor_allgatherv_init_c", comm, info);
    return rc ? rc : allgatherv("MPI_Neighbor_allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(displs), recvtype, comm, request);
}

/* MPI_Neighbor_alltoall ------------------------------------------------- */

#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return blocks("MPI_Neighbor_alltoall", TERN_COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Neighbor_alltoall_c = PMPI_Neighbor_alltoall_c
int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return blocks("MPI_Neighbor_alltoall_c", TERN_COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return blocks("MPI_Ineighbor_alltoall", TERN_COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init
int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Neighbor_alltoall_init", comm, info);
    return rc ? rc : blocks("MPI_Neighbor_alltoall_init", TERN_COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Ineighbor_alltoall_c = PMPI_Ineighbor_alltoall_c
int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return blocks("MPI_Ineighbor_alltoall_c", TERN_COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

#pragma weak MPI_Neighbor_alltoall_init_c = PMPI_Neighbor_alltoall_init_c
int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Neighbor_alltoall_init_c", comm, info);
    return rc ? rc : blocks("MPI_Neighbor_alltoall_init_c", TERN_COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

/* MPI_Neighbor_alltoallv ------------------------------------------------- */

#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv("MPI_Neighbor_alltoallv", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(sdispls), sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(rdispls), recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Neighbor_alltoallv_c = PMPI_Neighbor_alltoallv_c
int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv("MPI_Neighbor_alltoallv_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(sdispls), sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(rdispls), recvtype, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return alltoallv("MPI_Ineighbor_alltoallv", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(sdispls), sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(rdispls), recvtype, comm, request);
}

#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init
int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Neighbor_alltoallv_init", comm, info);
    return rc ? rc : alltoallv("MPI_Neighbor_alltoallv_init", sendbuf, TERN_API_INTS(sendcounts), TERN_API_INTS(sdispls), sendtype, recvbuf, TERN_API_INTS(recvcounts), TERN_API_INTS(rdispls), recvtype, comm, request);
}

#pragma weak MPI_Ineighbor_alltoallv_c = PMPI_Ineighbor_alltoallv_c
int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return alltoallv("MPI_Ineighbor_alltoallv_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(sdispls), sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(rdispls), recvtype, comm, request);
}

#pragma weak MPI_Neighbor_alltoallv_init_c = PMPI_Neighbor_alltoallv_init_c
int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Neighbor_alltoallv_init_c", comm, info);
    return rc ? rc : alltoallv("MPI_Neighbor_alltoallv_init_c", sendbuf, TERN_API_COUNTS(sendcounts), TERN_API_AINTS(sdispls), sendtype, recvbuf, TERN_API_COUNTS(recvcounts), TERN_API_AINTS(rdispls), recvtype, comm, request);
}

/* MPI_Neighbor_alltoallw ------------------------------------------------- */

#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw("MPI_Neighbor_alltoallw", sendbuf, TERN_API_INTS(sendcounts), sdispls, sendtypes, recvbuf, TERN_API_INTS(recvcounts), rdispls, recvtypes, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Neighbor_alltoallw_c = PMPI_Neighbor_alltoallw_c
int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw("MPI_Neighbor_alltoallw_c", sendbuf, TERN_API_COUNTS(sendcounts), sdispls, sendtypes, recvbuf, TERN_API_COUNTS(recvcounts), rdispls, recvtypes, comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    return alltoallw("MPI_Ineighbor_alltoallw", sendbuf, TERN_API_INTS(sendcounts), sdispls, sendtypes, recvbuf, TERN_API_INTS(recvcounts), rdispls, recvtypes, comm, request);
}

#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init
int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Neighbor_alltoallw_init", comm, info);
    return rc ? rc : alltoallw("MPI_Neighbor_alltoallw_init", sendbuf, TERN_API_INTS(sendcounts), sdispls, sendtypes, recvbuf, TERN_API_INTS(recvcounts), rdispls, recvtypes, comm, request);
}

#pragma weak MPI_Ineighbor_alltoallw_c = PMPI_Ineighbor_alltoallw_c
int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    return alltoallw("MPI_Ineighbor_alltoallw_c", sendbuf, TERN_API_COUNTS(sendcounts), sdispls, sendtypes, recvbuf, TERN_API_COUNTS(recvcounts), rdispls, recvtypes, comm, request);
}

#pragma weak MPI_Neighbor_alltoallw_init_c = PMPI_Neighbor_alltoallw_init_c
int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Neighbor_alltoallw_init_c", comm, info);
    return rc ? rc : alltoallw("MPI_Neighbor_alltoallw_init_c", sendbuf, TERN_API_COUNTS(sendcounts), sdispls, sendtypes, recvbuf, TERN_API_COUNTS(recvcounts), rdispls, recvtypes, comm, request);
}
