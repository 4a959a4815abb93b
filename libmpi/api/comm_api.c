/*
 * Communicator management: queries (rank, size, name, group, compare), the
 * constructors (dup, split, split_type, create, create_group) and
 * MPI_Comm_free, and the remote side of an intercommunicator
 * (intercomm_api.c creates and merges them). MPI_Comm_dup, MPI_Comm_idup,
 * MPI_Comm_split and MPI_Comm_create take an intercommunicator too; the
 * others, as the standard says, not (tern_check_intra).
 * Attribute calls are in attr_api.c.
 */
#include <stdio.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "libmpi/core/attr.h"
#include "libmpi/core/group.h"
#include "libmpi/core/info.h"
#include "tern/err.h"

int tern_check_info(MPI_Info info)
{
    if (info == MPI_INFO_NULL || tern_info_get(info))
        return 0;
    tern_api_detail("invalid info %p (not an info object, or freed)", (void *)info);
    return TERN_EINFO;
}

/* The constructor checks, intercommunicators allowed. */
static int check_ctor_any(MPI_Comm comm, struct tern_comm **c, const void *newcomm)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, c);
    if (!rc)
        rc = tern_check_ptr(newcomm, "newcomm");
    return rc;
}

int tern_check_comm_ctor(MPI_Comm comm, struct tern_comm **c, const void *newcomm)
{
    int rc = check_ctor_any(comm, c, newcomm);
    return rc ? rc : tern_check_intra(*c);
}

/* Hands a new communicator (or none) to the user. */
static MPI_Comm handle_of(struct tern_comm *c)
{
    return c ? c->handle : MPI_COMM_NULL;
}

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

/* MPI_Comm_dup and its variants; the nonblocking ones pass is_nb = 1. */
static int dup_common(const char *fn, MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                      int is_nb, MPI_Request *request)
{
    struct tern_comm *c = NULL, *nc = NULL;
    int rc = check_ctor_any(comm, &c, newcomm);
    if (!rc)
        rc = tern_check_info(info);
    if (!rc && is_nb)
        rc = tern_check_ptr(request, "request");
    struct tern_request *r = NULL;
    if (!rc) {
        rc = is_nb ? tern_comm_idup(c, &nc, &r) : tern_comm_dup(c, &nc);
        tern_api_attr_cb_error(rc, "copy");
    }
    if (rc) {
        /* As MPICH and Open MPI do, so that a program can test for it. */
        if (newcomm)
            *newcomm = MPI_COMM_NULL;
        return tern_api_error(c, fn, rc);
    }
    *newcomm = nc->handle;
    if (r)
        *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_dup = PMPI_Comm_dup
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return dup_common("MPI_Comm_dup", comm, MPI_INFO_NULL, newcomm, 0, NULL);
}

#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return dup_common("MPI_Comm_dup_with_info", comm, info, newcomm, 0, NULL);
}

#pragma weak MPI_Comm_idup = PMPI_Comm_idup
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return dup_common("MPI_Comm_idup", comm, MPI_INFO_NULL, newcomm, 1, request);
}

#pragma weak MPI_Comm_idup_with_info = PMPI_Comm_idup_with_info
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    return dup_common("MPI_Comm_idup_with_info", comm, info, newcomm, 1, request);
}

#pragma weak MPI_Comm_split = PMPI_Comm_split
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    struct tern_comm *c = NULL, *nc = NULL;
    int rc = check_ctor_any(comm, &c, newcomm);
    if (!rc && color < 0 && color != MPI_UNDEFINED) {
        tern_api_detail("invalid color %d: colors are >= 0, or MPI_UNDEFINED", color);
        rc = TERN_EARG;
    }
    if (!rc)
        rc = tern_comm_split(c, color, key, &nc);
    if (rc)
        return tern_api_error(c, "MPI_Comm_split", rc);
    *newcomm = handle_of(nc);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    struct tern_comm *c = NULL, *nc = NULL;
    int rc = tern_check_comm_ctor(comm, &c, newcomm);
    if (!rc && split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_SHARED &&
        split_type != MPI_COMM_TYPE_HW_UNGUIDED && split_type != MPI_COMM_TYPE_HW_GUIDED &&
        split_type != MPI_COMM_TYPE_RESOURCE_GUIDED) {
        tern_api_detail("invalid split_type %d (MPI_COMM_TYPE_SHARED, _HW_GUIDED, "
                        "_HW_UNGUIDED, _RESOURCE_GUIDED or MPI_UNDEFINED)", split_type);
        rc = TERN_EARG;
    }
    if (!rc)
        rc = tern_check_info(info);
    if (!rc)
        rc = tern_comm_split_type(c, split_type, key, &nc);
    if (rc)
        return tern_api_error(c, "MPI_Comm_split_type", rc);
    *newcomm = handle_of(nc);
    return MPI_SUCCESS;
}

/* Every member of g must belong to comm. */
static int check_subgroup(const struct tern_comm *c, const struct tern_group *g)
{
    for (int i = 0; i < g->size; i++) {
        if (tern_group_rank_of(c->group, g->world[i]) == MPI_UNDEFINED) {
            tern_api_detail("invalid group: its rank %d (world rank %d) is not in %s",
                            i, g->world[i], tern_comm_label(c));
            return TERN_EGROUP;
        }
    }
    return 0;
}

#pragma weak MPI_Comm_create = PMPI_Comm_create
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    struct tern_comm *c = NULL, *nc = NULL;
    struct tern_group *g;
    int rc = check_ctor_any(comm, &c, newcomm);
    if (!rc)
        rc = tern_check_group(group, &g);
    if (!rc)
        rc = check_subgroup(c, g);
    if (!rc)
        rc = tern_comm_create(c, g, &nc);
    if (rc)
        return tern_api_error(c, "MPI_Comm_create", rc);
    *newcomm = handle_of(nc);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    struct tern_comm *c = NULL, *nc = NULL;
    struct tern_group *g;
    int rc = tern_check_comm_ctor(comm, &c, newcomm);
    if (!rc)
        rc = tern_check_group(group, &g);
    if (!rc)
        rc = tern_check_send_tag(tag);
    if (!rc)
        rc = check_subgroup(c, g);
    if (!rc)
        rc = tern_comm_create_group(c, g, tag, &nc);
    if (rc)
        return tern_api_error(c, "MPI_Comm_create_group", rc);
    *newcomm = handle_of(nc);
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_free = PMPI_Comm_free
int PMPI_Comm_free(MPI_Comm *comm)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(comm, "comm");
    if (!rc)
        rc = tern_check_comm(*comm, &c);
    if (!rc && (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)) {
        tern_api_detail("invalid communicator: %s cannot be freed", c->name);
        rc = TERN_ECOMM;
    }
    if (!rc) {
        rc = tern_comm_free(c);
        tern_api_attr_cb_error(rc, "delete");
    }
    if (rc)
        return tern_api_error(c, "MPI_Comm_free", rc);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_compare = PMPI_Comm_compare
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    struct tern_comm *a = NULL, *b = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm1, &a);
    if (!rc)
        rc = tern_check_comm(comm2, &b);
    if (!rc)
        rc = tern_check_ptr(result, "result");
    if (!rc)
        rc = tern_comm_compare(a, b, result);
    return rc ? tern_api_error(a, "MPI_Comm_compare", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_ptr(flag, "flag");
    if (rc)
        return tern_api_error(c, "MPI_Comm_test_inter", rc);
    *flag = c->remote != NULL;
    return MPI_SUCCESS;
}

/* The remote side exists for intercommunicators only. */
static int check_inter(MPI_Comm comm, struct tern_comm **c, const void *out, const char *name)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, c);
    if (!rc)
        rc = tern_check_ptr(out, name);
    if (!rc && !(*c)->remote) {
        tern_api_detail("invalid communicator: %s is an intracommunicator, and only "
                        "an intercommunicator has a remote group", tern_comm_label(*c));
        rc = TERN_ECOMM;
    }
    return rc;
}

#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    struct tern_comm *c = NULL;
    int rc = check_inter(comm, &c, size, "size");
    if (rc)
        return tern_api_error(c, "MPI_Comm_remote_size", rc);
    *size = c->remote->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    struct tern_comm *c = NULL;
    int rc = check_inter(comm, &c, group, "group");
    if (rc)
        return tern_api_error(c, "MPI_Comm_remote_group", rc);
    tern_group_retain(c->remote);
    *group = c->remote->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_group = PMPI_Comm_group
int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_ptr(group, "group");
    if (rc)
        return tern_api_error(c, "MPI_Comm_group", rc);
    /* Groups are immutable, so the communicator's own one is shared. */
    tern_group_retain(c->group);
    *group = c->group->handle;
    return MPI_SUCCESS;
}
