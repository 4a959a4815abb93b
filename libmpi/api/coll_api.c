/*
 * Collective operations: the barrier here, the other collectives by family
 * in coll_rooted_api.c (Bcast, Gather(v), Scatter(v)), coll_all_api.c
 * (Allgather(v), Alltoall(v,w)) and coll_reduce_api.c (Reduce, Allreduce,
 * Reduce_scatter(_block), Scan, Exscan). Each family file checks and
 * converts the arguments of a collective once (coll_check.h) and runs it
 * through collectives/; the int, _c, blocking, nonblocking and persistent MPI functions
 * are thin wrappers.
 */
#include "libmpi/api/coll_check.h"

static int barrier(const char *fn, MPI_Comm comm, MPI_Request *req)
{
    struct tern_comm *c = NULL;
    int rc = tern_api_coll_begin(comm, req, &c);
    /* Most blocking barriers: no arguments to fill, no selection. A
     * barrier that failed there is over: it must not run again. */
    if (!rc && req == TERN_API_BLOCKING && tern_coll_barrier_quick(c, fn, &rc))
        return rc ? tern_api_error(c, fn, rc) : MPI_SUCCESS;
    struct tern_api_coll x;
    tern_api_coll_init(&x, TERN_COLL_BARRIER, NULL, NULL, 0);
    x.a.comm = c;
    return tern_api_coll_run(fn, &x, rc, req);
}

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    return barrier("MPI_Barrier", comm, TERN_API_BLOCKING);
}

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    return barrier("MPI_Ibarrier", comm, request);
}

#pragma weak MPI_Barrier_init = PMPI_Barrier_init
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int rc = tern_api_coll_info("MPI_Barrier_init", comm, info);
    return rc ? rc : barrier("MPI_Barrier_init", comm, request);
}
