/*
 * Communicator queries: rank, size, name, and the predefined attributes of
 * MPI_COMM_WORLD.
 */
#include <stdio.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "libmpi/core/runtime.h"
#include "tern/err.h"

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_ptr(rank, "rank");
    if (rc)
        return tern_api_error(c, "MPI_Comm_rank", rc);
    *rank = c->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_ptr(size, "size");
    if (rc)
        return tern_api_error(c, "MPI_Comm_size", rc);
    *size = c->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name
int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_ptr(comm_name, "comm_name");
    if (!rc)
        rc = tern_check_ptr(resultlen, "resultlen");
    if (rc)
        return tern_api_error(c, "MPI_Comm_get_name", rc);
    snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", c->name);
    *resultlen = (int)strlen(comm_name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name
int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_ptr(comm_name, "comm_name");
    if (rc)
        return tern_api_error(c, "MPI_Comm_set_name", rc);
    snprintf(c->name, sizeof(c->name), "%s", comm_name);
    return MPI_SUCCESS;
}

/* Values of the predefined attributes; the standard hands out pointers. */
static int attr_tag_ub = 0x7fffffff;
static int attr_host = MPI_PROC_NULL;
static int attr_io = MPI_ANY_SOURCE;  /* Every rank can do I/O. */
static int attr_wtime_is_global = 0;
static int attr_appnum = 0;
static int attr_universe_size;
static int attr_lastusedcode = MPI_ERR_LASTCODE;

static int *predefined_attr(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB: return &attr_tag_ub;
    case MPI_HOST: return &attr_host;
    case MPI_IO: return &attr_io;
    case MPI_WTIME_IS_GLOBAL: return &attr_wtime_is_global;
    case MPI_APPNUM: return &attr_appnum;
    case MPI_UNIVERSE_SIZE:
        attr_universe_size = tern_rt.boot.size;
        return &attr_universe_size;
    case MPI_LASTUSEDCODE: return &attr_lastusedcode;
    default: return NULL;
    }
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_ptr(attribute_val, "attribute_val");
    if (!rc)
        rc = tern_check_ptr(flag, "flag");
    int *value = rc ? NULL : predefined_attr(comm_keyval);
    if (!rc && !value) {
        tern_api_detail("invalid keyval %d (attribute keys of your own come with "
                        "MPI_Comm_create_keyval, not implemented yet)", comm_keyval);
        rc = TERN_EKEYVAL;
    }
    if (rc)
        return tern_api_error(c, "MPI_Comm_get_attr", rc);
    /* The predefined attributes belong to MPI_COMM_WORLD only. */
    *flag = c == tern_comm_world();
    if (*flag)
        *(int **)attribute_val = value;
    return MPI_SUCCESS;
}
