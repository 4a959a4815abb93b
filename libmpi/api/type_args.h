/*
 * Helpers shared by the datatype constructors in libmpi/api/ (type_api.c,
 * type_struct_api.c): argument checks with messages, int-to-MPI_Count
 * widening, and the record of a constructor's arguments that
 * MPI_Type_get_contents returns. All return 0 or a TERN_E* code and leave
 * a description for tern_api_error(), like the tern_check_* functions.
 */
#ifndef TERN_API_TYPE_ARGS_H
#define TERN_API_TYPE_ARGS_H

#include <stddef.h>

#include <mpi.h>

#include "libmpi/core/datatype.h"

/* The type behind a handle used to build another one (committed or not). */
int tern_api_type_old(MPI_Datatype h, const struct tern_dtype **out);

/* v >= 0; index >= 0 names the array element in the message. */
int tern_api_type_nonneg(const char *what, MPI_Count v, long long index);

/* An array argument must be there when it has elements. */
int tern_api_type_array(const void *a, MPI_Count n, const char *name);

/* v elements of a type with extent ext, in bytes, without overflow. */
int tern_api_type_bytes(MPI_Count v, MPI_Aint ext, const char *what, MPI_Aint *out);

/* Copies of int or MPI_Aint arrays as MPI_Count arrays (NULL for a NULL
 * or empty array; *bad is set when memory runs out). Free with free(). */
MPI_Count *tern_api_widen_int(const int *a, int n, int *bad);
MPI_Count *tern_api_widen_aint(const MPI_Aint *a, int n, int *bad);

/* A constructor's arguments in the standard's order, each with its kind:
 * 'i' always an int; 'n' a count and 'a' an address, which a _c
 * constructor takes as large counts. Kept for MPI_Type_get_contents. */
struct tern_api_rec {
    size_t n;
    MPI_Count *v;
    char *k;
};

int tern_api_rec_init(struct tern_api_rec *r, size_t cap);
void tern_api_rec_put(struct tern_api_rec *r, char kind, MPI_Count v);
void tern_api_rec_free(struct tern_api_rec *r);

/* Finishes a constructor after the engine returned rc: on 0 sets the
 * combiner, stores the arguments (args may be NULL) and hands out dt's
 * handle; on TERN_ECOUNT describes why. */
int tern_api_type_made(int rc, const char *why, struct tern_dtype *dt, int combiner,
                       int large, const struct tern_api_rec *args, MPI_Datatype *newtype);

#endif
