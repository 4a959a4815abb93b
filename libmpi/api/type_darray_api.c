/*
 * MPI_Type_create_darray and its large-count form.
 *
 * The arguments are checked here, each failure naming the argument and
 * the dimension, and every dimension's distribution is turned into the
 * blocks of global indices this process owns (struct
 * tern_dtype_darray_dim), in C order; libmpi/core/dtype_darray.c builds
 * the type from those. The process grid is row-major whatever the array
 * order, as the standard says: rank's coordinate in dimension 0 varies
 * slowest. Defaults: a block distribution's darg is ceil(gsize / psize),
 * a cyclic one's is 1; a dimension that is not distributed is one block of
 * the whole dimension and must have psize 1.
 *
 * Like the other constructors: the int form widens its arguments and both
 * share one checked entry; errors go to MPI_COMM_SELF's handler.
 */
#include <stdlib.h>

#include "libmpi/api/api.h"
#include "libmpi/api/type_args.h"
#include "tern/err.h"

static const char *distrib_name(int d)
{
    return d == MPI_DISTRIBUTE_BLOCK ? "MPI_DISTRIBUTE_BLOCK"
         : d == MPI_DISTRIBUTE_CYCLIC ? "MPI_DISTRIBUTE_CYCLIC" : "MPI_DISTRIBUTE_NONE";
}

/* Checks dimension i (in the caller's order) and works out its block size. */
static int dim_args(int i, MPI_Count gsize, int distrib, int darg, int psize, MPI_Count *blen)
{
    if (gsize < 1) {
        tern_api_detail("invalid array_of_gsizes[%d] = %lld: must be positive", i,
                        (long long)gsize);
        return TERN_EARG;
    }
    if (psize < 1) {
        tern_api_detail("invalid array_of_psizes[%d] = %d: must be positive", i, psize);
        return TERN_EARG;
    }
    if (distrib != MPI_DISTRIBUTE_BLOCK && distrib != MPI_DISTRIBUTE_CYCLIC &&
        distrib != MPI_DISTRIBUTE_NONE) {
        tern_api_detail("invalid array_of_distribs[%d] = %d: must be MPI_DISTRIBUTE_BLOCK, "
                        "MPI_DISTRIBUTE_CYCLIC or MPI_DISTRIBUTE_NONE", i, distrib);
        return TERN_EARG;
    }
    if (distrib != MPI_DISTRIBUTE_NONE && darg != MPI_DISTRIBUTE_DFLT_DARG && darg < 1) {
        tern_api_detail("invalid array_of_dargs[%d] = %d for %s: must be positive or "
                        "MPI_DISTRIBUTE_DFLT_DARG", i, darg, distrib_name(distrib));
        return TERN_EARG;
    }
    if (distrib == MPI_DISTRIBUTE_NONE) {
        if (psize != 1) {
            tern_api_detail("invalid array_of_psizes[%d] = %d: dimension %d is "
                            "MPI_DISTRIBUTE_NONE, so its psize must be 1", i, psize, i);
            return TERN_EARG;
        }
        *blen = gsize;
    } else if (distrib == MPI_DISTRIBUTE_CYCLIC) {
        *blen = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    } else if (darg == MPI_DISTRIBUTE_DFLT_DARG) {
        *blen = (gsize + psize - 1) / psize;
    } else {
        if ((MPI_Count)darg * psize < gsize) {
            tern_api_detail("invalid array_of_dargs[%d] = %d for MPI_DISTRIBUTE_BLOCK: "
                            "darg * psize (%d * %d) must be at least gsize %lld", i, darg,
                            darg, psize, (long long)gsize);
            return TERN_EARG;
        }
        *blen = darg;
    }
    return 0;
}

/* The blocks of a cyclic distribution with blocks of b indices over p
 * processes that coordinate r owns (a block distribution is the case
 * where only one block exists). */
static void owned(MPI_Count g, MPI_Count b, MPI_Count p, MPI_Count r,
                  struct tern_dtype_darray_dim *d)
{
    *d = (struct tern_dtype_darray_dim){ .gsize = (size_t)g, .blen = (size_t)b,
                                         .first = (size_t)(r * b), .step = (size_t)(p * b) };
    if (r * b >= g)
        return;
    MPI_Count step = p * b, nb = (g - r * b + step - 1) / step;
    MPI_Count last = r * b + (nb - 1) * step, len = g - last < b ? g - last : b;
    if (len == b) {
        d->nfull = (size_t)nb;
    } else {
        d->nfull = (size_t)(nb - 1);
        d->tail = (size_t)len;
        d->tailstart = (size_t)last;
    }
}

static int darray_args(int size, int rank, int ndims, const MPI_Count *gsizes,
                       const int *distribs, const int *dargs, const int *psizes, int order,
                       struct tern_dtype_darray_dim *dims)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
        tern_api_detail("invalid order %d: must be MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
        return TERN_EARG;
    }
    MPI_Count procs = 1;
    for (int i = 0; i < ndims; i++) {
        MPI_Count blen;
        int rc = dim_args(i, gsizes[i], distribs[i], dargs[i], psizes[i], &blen);
        if (rc)
            return rc;
        procs *= psizes[i];
        if (procs > size)
            break;
    }
    if (procs != size) {
        tern_api_detail("invalid size %d: the process grid array_of_psizes has %s%lld "
                        "processes, and size must equal their product", size,
                        procs > size ? "more than " : "", (long long)procs);
        return TERN_EARG;
    }
    /* Row-major coordinates of rank in the process grid. */
    MPI_Count rest = rank, below = size;
    for (int i = 0; i < ndims; i++) {
        MPI_Count blen;
        dim_args(i, gsizes[i], distribs[i], dargs[i], psizes[i], &blen);
        below /= psizes[i];
        MPI_Count coord = rest / below;
        rest %= below;
        int c = order == MPI_ORDER_C ? i : ndims - 1 - i;
        owned(gsizes[i], blen, psizes[i], coord, &dims[c]);
    }
    return 0;
}

static int check_top(int size, int rank, int ndims, MPI_Datatype oldtype,
                     const struct tern_dtype **old, MPI_Datatype *newtype)
{
    int rc = tern_check_init();
    if (!rc && size < 1) {
        tern_api_detail("invalid size %d: must be positive", size);
        rc = TERN_EARG;
    }
    if (!rc && (rank < 0 || rank >= size)) {
        tern_api_detail("invalid rank %d: must be in [0, size %d)", rank, size);
        rc = TERN_EARG;
    }
    if (!rc && ndims < 1) {
        tern_api_detail("invalid ndims %d: must be positive", ndims);
        rc = TERN_EARG;
    }
    if (!rc)
        rc = tern_api_type_old(oldtype, old);
    if (!rc)
        rc = tern_check_ptr(newtype, "newtype");
    return rc;
}

static int make_darray(const char *fn, int size, int rank, int ndims, const MPI_Count *gsizes,
                       const int *distribs, const int *dargs, const int *psizes, int order,
                       MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    const struct tern_dtype *old;
    struct tern_dtype *dt = NULL;
    const char *why = "";
    struct tern_dtype_darray_dim *dims = NULL;
    int rc = check_top(size, rank, ndims, oldtype, &old, newtype);
    if (!rc)
        rc = tern_api_type_array(gsizes, ndims, "array_of_gsizes");
    if (!rc)
        rc = tern_api_type_array(distribs, ndims, "array_of_distribs");
    if (!rc)
        rc = tern_api_type_array(dargs, ndims, "array_of_dargs");
    if (!rc)
        rc = tern_api_type_array(psizes, ndims, "array_of_psizes");
    if (!rc && !(dims = malloc((size_t)ndims * sizeof(*dims))))
        rc = TERN_ENOMEM;
    if (!rc)
        rc = darray_args(size, rank, ndims, gsizes, distribs, dargs, psizes, order, dims);
    struct tern_api_rec args = { 0 };
    if (!rc)
        rc = tern_api_rec_init(&args, 4 + 4 * (size_t)ndims);
    if (!rc) {
        tern_api_rec_put(&args, 'i', size);
        tern_api_rec_put(&args, 'i', rank);
        tern_api_rec_put(&args, 'i', ndims);
        for (int i = 0; i < ndims; i++)
            tern_api_rec_put(&args, 'n', gsizes[i]);
        for (int i = 0; i < ndims; i++)
            tern_api_rec_put(&args, 'i', distribs[i]);
        for (int i = 0; i < ndims; i++)
            tern_api_rec_put(&args, 'i', dargs[i]);
        for (int i = 0; i < ndims; i++)
            tern_api_rec_put(&args, 'i', psizes[i]);
        tern_api_rec_put(&args, 'i', order);
        rc = tern_dtype_darray(ndims, dims, old, &dt, &why);
        rc = tern_api_type_made(rc, why, dt, MPI_COMBINER_DARRAY, large, &args, newtype);
    }
    tern_api_rec_free(&args);
    free(dims);
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int bad = 0;
    MPI_Count *g = tern_api_widen_int(array_of_gsizes, ndims, &bad);
    int rc = bad ? tern_api_error(NULL, "MPI_Type_create_darray", TERN_ENOMEM)
                 : make_darray("MPI_Type_create_darray", size, rank, ndims, g,
                               array_of_distribs, array_of_dargs, array_of_psizes, order,
                               oldtype, newtype, 0);
    free(g);
    return rc;
}

#pragma weak MPI_Type_create_darray_c = PMPI_Type_create_darray_c
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_darray("MPI_Type_create_darray_c", size, rank, ndims, array_of_gsizes,
                       array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype,
                       newtype, 1);
}
