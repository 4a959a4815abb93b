/*
 * Reduction operations: creating and freeing user ops, asking whether an
 * op commutes, and MPI_Reduce_local. None of these has a communicator, so
 * errors go to MPI_COMM_SELF's handler.
 */
#include <stdint.h>

#include "libmpi/api/api.h"
#include "libmpi/core/op.h"
#include "tern/err.h"

/* The op behind a handle, or TERN_EOP with a message naming the handle. */
static int check_op(MPI_Op h, const struct tern_op **out)
{
    *out = tern_op_get(h);
    if (*out)
        return 0;
    if (h == MPI_OP_NULL)
        tern_api_detail("invalid operation MPI_OP_NULL");
    else
        tern_api_detail("invalid operation %p (not an operation, or freed)", (void *)h);
    return TERN_EOP;
}

static int op_create(const char *fn, MPI_User_function *user_fn,
                     MPI_User_function_c *user_fn_c, int commute, MPI_Op *op)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(user_fn ? (const void *)user_fn : (const void *)user_fn_c,
                            "user_fn");
    if (!rc)
        rc = tern_check_ptr(op, "op");
    struct tern_op *o = rc ? NULL : tern_op_create(user_fn, user_fn_c, commute);
    if (!rc && !o)
        rc = TERN_ENOMEM;
    if (rc)
        return tern_api_error(NULL, fn, rc);
    *op = o->handle;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_create = PMPI_Op_create
int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", user_fn, NULL, commute, op);
}

#pragma weak MPI_Op_create_c = PMPI_Op_create_c
int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", NULL, user_fn, commute, op);
}

#pragma weak MPI_Op_free = PMPI_Op_free
int PMPI_Op_free(MPI_Op *op)
{
    const struct tern_op *o = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(op, "op");
    if (!rc)
        rc = check_op(*op, &o);
    if (!rc && (rc = tern_op_free(o)) != 0)
        tern_api_detail("%s is predefined and cannot be freed", o->name);
    if (rc)
        return tern_api_error(NULL, "MPI_Op_free", rc);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Op_commutative = PMPI_Op_commutative
int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    const struct tern_op *o = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = check_op(op, &o);
    if (!rc)
        rc = tern_check_ptr(commute, "commute");
    if (rc)
        return tern_api_error(NULL, "MPI_Op_commutative", rc);
    *commute = o->commute;
    return MPI_SUCCESS;
}

/* count elements of dt must fit in memory with room to spare. */
static int check_fits(MPI_Count count, const struct tern_dtype *dt)
{
    size_t stride = (size_t)(dt->extent < 0 ? -dt->extent : dt->extent);
    if (dt->size > stride)
        stride = dt->size;
    if (!stride || (size_t)count <= SIZE_MAX / 2 / stride)
        return 0;
    tern_api_detail("invalid count %lld: %lld elements of %s do not fit in memory",
                    (long long)count, (long long)count, dt->name);
    return TERN_ECOUNT;
}

/* The checks of MPI_Reduce_local: count, datatype, op, then the buffers,
 * then whether the op is defined for the type. */
static int check_reduce_local(const void *inbuf, const void *inoutbuf, MPI_Count count,
                              MPI_Datatype datatype, MPI_Op op,
                              const struct tern_dtype **dt, const struct tern_op **o)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_count(count);
    if (!rc)
        rc = tern_check_type(datatype, dt);
    if (!rc)
        rc = check_fits(count, *dt);
    if (!rc)
        rc = check_op(op, o);
    if (!rc)
        rc = tern_check_buf(inbuf, count);
    if (!rc)
        rc = tern_check_buf(inoutbuf, count);
    if (!rc && count > 0 && (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)) {
        tern_api_detail("invalid buffer MPI_IN_PLACE: MPI_Reduce_local has no in-place form");
        rc = TERN_EBUFFER;
    }
    if (!rc && (*o)->rma_only) {
        tern_api_detail("%s is only for accumulate operations (MPI_Accumulate and "
                        "the like), not for reductions", (*o)->name);
        rc = TERN_EOP;
    }
    if (!rc && (rc = tern_op_check(*o, *dt)) != 0) {
        char why[200];
        tern_api_detail("%s", tern_op_mismatch(*o, *dt, why, sizeof(why)));
    }
    return rc;
}

static int reduce_local(const char *fn, const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op)
{
    const struct tern_dtype *dt = NULL;
    const struct tern_op *o = NULL;
    int rc = check_reduce_local(inbuf, inoutbuf, count, datatype, op, &dt, &o);
    if (!rc)
        rc = tern_op_reduce(o, inbuf, inoutbuf, (size_t)count, dt);
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

#pragma weak MPI_Reduce_local_c = PMPI_Reduce_local_c
int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op)
{
    return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
