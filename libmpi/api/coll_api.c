/*
 * Collective operations: argument checks, then collectives/.
 */
#include "collectives/coll.h"
#include "libmpi/api/api.h"

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_coll_barrier(c);
    return rc ? tern_api_error(c, "MPI_Barrier", rc) : MPI_SUCCESS;
}
