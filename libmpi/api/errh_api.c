/*
 * Error handlers (errclass_api.c has the error classes, codes and strings).
 */
#include <stdio.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "libmpi/core/errclass.h"
#include "libmpi/core/errhandler.h"
#include "tern/err.h"

static int check_errh(MPI_Errhandler h, struct tern_errhandler **out)
{
    *out = tern_errh_get(h);
    if (*out)
        return 0;
    tern_api_detail("invalid error handler %s",
                    h == MPI_ERRHANDLER_NULL ? "MPI_ERRHANDLER_NULL" : "(not an error handler, or freed)");
    return TERN_EERRHANDLER;
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    struct tern_comm *c = NULL;
    struct tern_errhandler *e;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = check_errh(errhandler, &e);
    if (rc)
        return tern_api_error(c, "MPI_Comm_set_errhandler", rc);
    tern_errh_retain(e);
    tern_errh_release(c->errh);
    c->errh = e;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (!rc)
        rc = tern_check_ptr(errhandler, "errhandler");
    if (rc)
        return tern_api_error(c, "MPI_Comm_get_errhandler", rc);
    /* The standard makes the returned handle a new reference. */
    tern_errh_retain(c->errh);
    *errhandler = c->errh->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr((const void *)comm_errhandler_fn, "comm_errhandler_fn");
    if (!rc)
        rc = tern_check_ptr(errhandler, "errhandler");
    struct tern_errhandler *e = rc ? NULL : tern_errh_create(comm_errhandler_fn);
    if (!rc && !e)
        rc = TERN_ENOMEM;
    if (rc)
        return tern_api_error(NULL, "MPI_Comm_create_errhandler", rc);
    *errhandler = e->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    struct tern_errhandler *e = NULL;
    int rc = tern_check_ptr(errhandler, "errhandler");
    if (!rc)
        rc = check_errh(*errhandler, &e);
    if (rc)
        return tern_api_error(NULL, "MPI_Errhandler_free", rc);
    tern_errh_release(e);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    struct tern_comm *c = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, &c);
    if (rc)
        return tern_api_error(c, "MPI_Comm_call_errhandler", rc);
    struct tern_errhandler *e = c->errh;
    if (e->kind == TERN_ERRH_RETURN)
        return MPI_SUCCESS;
    if (e->kind == TERN_ERRH_USER) {
        MPI_Comm h = c->handle;
        int code = errorcode;
        e->fn(&h, &code);
        return MPI_SUCCESS;
    }
    char what[MPI_MAX_ERROR_STRING + 64];
    int said = tern_errclass_has_string(errorcode);
    snprintf(what, sizeof(what), "error %d raised by the program%s%s", errorcode,
             said ? ": " : "", said ? tern_errclass_text(errorcode) : "");
    tern_api_die("MPI_Comm_call_errhandler", errorcode, what);
}
