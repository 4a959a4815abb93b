/*
 * Helpers shared by the reduction operations' unit tests (test_op.c,
 * test_op_kernels.c): the objects behind op and datatype handles, and
 * whether the op module allows an (op, type) pair. Every function is
 * static inline so a test that does not use one gets no warning under
 * -Wall -Werror.
 */
#ifndef TEST_OP_UTIL_H
#define TEST_OP_UTIL_H

#include <mpi.h>

#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"

static inline const struct tern_op *OP(MPI_Op h) { return tern_op_get(h); }
static inline const struct tern_dtype *DT(MPI_Datatype h) { return tern_dtype_get(h); }

static inline int allowed(MPI_Op op, MPI_Datatype type)
{
    return tern_op_check(OP(op), DT(type)) == 0;
}

#endif
