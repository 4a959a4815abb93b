/*
 * Datatype constructors and lifetime, the rest: MPI_Type_create_struct,
 * _create_subarray (C and Fortran order), _create_resized, with their
 * large-count forms, and MPI_Type_dup, _commit and _free.
 *
 * Like type_api.c: int forms widen their arguments to MPI_Count and share
 * the checked entry of the _c form; errors go to MPI_COMM_SELF's handler.
 */
#include <stdlib.h>

#include "libmpi/api/api.h"
#include "libmpi/api/type_args.h"
#include "tern/err.h"

static int struct_args(MPI_Count count, const MPI_Count *bl, const MPI_Count *disp,
                       const MPI_Datatype *types, size_t *blens, MPI_Aint *bytes,
                       const struct tern_dtype **olds)
{
    for (MPI_Count i = 0; i < count; i++) {
        int rc = tern_api_type_nonneg("blocklength", bl[i], i);
        if (!rc && (rc = tern_api_type_old(types[i], &olds[i])))
            tern_api_detail("invalid datatype at index %lld of array_of_types%s", (long long)i,
                            types[i] == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : "");
        if (rc)
            return rc;
        blens[i] = (size_t)bl[i];
        bytes[i] = (MPI_Aint)disp[i];
    }
    return 0;
}

static int make_struct(const char *fn, MPI_Count count, const MPI_Count *bl,
                       const MPI_Count *disp, const MPI_Datatype *types,
                       MPI_Datatype *newtype, int large)
{
    struct tern_dtype *dt = NULL;
    const char *why = "";
    size_t n = count > 0 ? (size_t)count : 1;
    size_t *blens = malloc(n * sizeof(*blens));
    MPI_Aint *bytes = malloc(n * sizeof(*bytes));
    const struct tern_dtype **olds = malloc(n * sizeof(*olds));
    int rc = tern_check_init();
    if (!rc)
        rc = tern_api_type_nonneg("count", count, -1);
    if (!rc)
        rc = tern_check_ptr(newtype, "newtype");
    if (!rc)
        rc = tern_api_type_array(bl, count, "array_of_blocklengths");
    if (!rc)
        rc = tern_api_type_array(disp, count, "array_of_displacements");
    if (!rc)
        rc = tern_api_type_array(types, count, "array_of_types");
    if (!rc && (!blens || !bytes || !olds))
        rc = TERN_ENOMEM;
    if (!rc)
        rc = struct_args(count, bl, disp, types, blens, bytes, olds);
    struct tern_api_rec args = { 0 };
    if (!rc)
        rc = tern_api_rec_init(&args, 1 + 2 * (size_t)count);
    if (!rc) {
        tern_api_rec_put(&args, 'n', count);
        for (MPI_Count i = 0; i < count; i++)
            tern_api_rec_put(&args, 'n', bl[i]);
        for (MPI_Count i = 0; i < count; i++)
            tern_api_rec_put(&args, 'a', disp[i]);
        rc = tern_dtype_struct((size_t)count, blens, bytes, olds, &dt, &why);
        rc = tern_api_type_made(rc, why, dt, MPI_COMBINER_STRUCT, large, &args, newtype);
    }
    tern_api_rec_free(&args);
    free(blens);
    free(bytes);
    free(olds);
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    int bad = 0;
    MPI_Count *wbl = tern_api_widen_int(array_of_blocklengths, count, &bad);
    MPI_Count *wd = tern_api_widen_aint(array_of_displacements, count, &bad);
    int rc = bad ? tern_api_error(NULL, "MPI_Type_create_struct", TERN_ENOMEM)
                 : make_struct("MPI_Type_create_struct", count, wbl, wd, array_of_types,
                               newtype, 0);
    free(wbl);
    free(wd);
    return rc;
}

#pragma weak MPI_Type_create_struct_c = PMPI_Type_create_struct_c
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return make_struct("MPI_Type_create_struct_c", count, array_of_blocklengths,
                       array_of_displacements, array_of_types, newtype, 1);
}

/* Checks the subarray geometry and stores it in C order. */
static int subarray_args(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                         const MPI_Count *starts, int order, size_t *sz, size_t *sub,
                         size_t *st)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) {
        tern_api_detail("invalid order %d: must be MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
        return TERN_EARG;
    }
    for (int d = 0; d < ndims; d++) {
        if (sizes[d] < 1 || subsizes[d] < 1 || subsizes[d] > sizes[d] || starts[d] < 0 ||
            starts[d] > sizes[d] - subsizes[d]) {
            tern_api_detail("invalid subarray in dimension %d: size %lld, subsize %lld, start "
                            "%lld (need size >= 1, 1 <= subsize <= size, 0 <= start <= "
                            "size - subsize)", d, (long long)sizes[d],
                            (long long)subsizes[d], (long long)starts[d]);
            return TERN_EARG;
        }
        int c = order == MPI_ORDER_C ? d : ndims - 1 - d;
        sz[c] = (size_t)sizes[d];
        sub[c] = (size_t)subsizes[d];
        st[c] = (size_t)starts[d];
    }
    return 0;
}

static int make_subarray(const char *fn, int ndims, const MPI_Count *sizes,
                         const MPI_Count *subsizes, const MPI_Count *starts, int order,
                         MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    const struct tern_dtype *old;
    struct tern_dtype *dt = NULL;
    const char *why = "";
    size_t n = ndims > 0 ? (size_t)ndims : 1;
    size_t *geo = malloc(3 * n * sizeof(*geo));
    int rc = tern_check_init();
    if (!rc && ndims < 1) {
        tern_api_detail("invalid ndims %d: must be positive", ndims);
        rc = TERN_EARG;
    }
    if (!rc)
        rc = tern_api_type_old(oldtype, &old);
    if (!rc)
        rc = tern_check_ptr(newtype, "newtype");
    if (!rc)
        rc = tern_api_type_array(sizes, ndims, "array_of_sizes");
    if (!rc)
        rc = tern_api_type_array(subsizes, ndims, "array_of_subsizes");
    if (!rc)
        rc = tern_api_type_array(starts, ndims, "array_of_starts");
    if (!rc && !geo)
        rc = TERN_ENOMEM;
    if (!rc)
        rc = subarray_args(ndims, sizes, subsizes, starts, order, geo, geo + n, geo + 2 * n);
    struct tern_api_rec args = { 0 };
    if (!rc)
        rc = tern_api_rec_init(&args, 2 + 3 * n);
    if (!rc) {
        tern_api_rec_put(&args, 'i', ndims);
        for (int d = 0; d < ndims; d++)
            tern_api_rec_put(&args, 'n', sizes[d]);
        for (int d = 0; d < ndims; d++)
            tern_api_rec_put(&args, 'n', subsizes[d]);
        for (int d = 0; d < ndims; d++)
            tern_api_rec_put(&args, 'n', starts[d]);
        tern_api_rec_put(&args, 'i', order);
        rc = tern_dtype_subarray(ndims, geo, geo + n, geo + 2 * n, old, &dt, &why);
        rc = tern_api_type_made(rc, why, dt, MPI_COMBINER_SUBARRAY, large, &args, newtype);
    }
    tern_api_rec_free(&args);
    free(geo);
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int bad = 0;
    MPI_Count *a = tern_api_widen_int(array_of_sizes, ndims, &bad);
    MPI_Count *b = tern_api_widen_int(array_of_subsizes, ndims, &bad);
    MPI_Count *c = tern_api_widen_int(array_of_starts, ndims, &bad);
    int rc = bad ? tern_api_error(NULL, "MPI_Type_create_subarray", TERN_ENOMEM)
                 : make_subarray("MPI_Type_create_subarray", ndims, a, b, c, order, oldtype,
                                 newtype, 0);
    free(a);
    free(b);
    free(c);
    return rc;
}

#pragma weak MPI_Type_create_subarray_c = PMPI_Type_create_subarray_c
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_subarray("MPI_Type_create_subarray_c", ndims, array_of_sizes,
                         array_of_subsizes, array_of_starts, order, oldtype, newtype, 1);
}

static int make_resized(const char *fn, MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                        MPI_Datatype *newtype, int large)
{
    const struct tern_dtype *old;
    struct tern_dtype *dt = NULL;
    const char *why = "lb + extent does not fit in MPI_Aint";
    int rc = tern_check_init();
    if (!rc)
        rc = tern_api_type_old(oldtype, &old);
    if (!rc)
        rc = tern_check_ptr(newtype, "newtype");
    struct tern_api_rec args = { 0 };
    if (!rc)
        rc = tern_api_rec_init(&args, 2);
    if (!rc) {
        tern_api_rec_put(&args, 'a', lb);
        tern_api_rec_put(&args, 'a', extent);
        rc = tern_dtype_resized(old, (MPI_Aint)lb, (MPI_Aint)extent, &dt);
        rc = tern_api_type_made(rc, why, dt, MPI_COMBINER_RESIZED, large, &args, newtype);
    }
    tern_api_rec_free(&args);
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    return make_resized("MPI_Type_create_resized", oldtype, lb, extent, newtype, 0);
}

#pragma weak MPI_Type_create_resized_c = PMPI_Type_create_resized_c
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype)
{
    return make_resized("MPI_Type_create_resized_c", oldtype, lb, extent, newtype, 1);
}

/* The copy has the old type's committed state, as the standard says. */
#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const struct tern_dtype *old;
    struct tern_dtype *dt = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_api_type_old(oldtype, &old);
    if (!rc)
        rc = tern_check_ptr(newtype, "newtype");
    if (!rc) {
        rc = tern_dtype_dup(old, &dt);
        rc = tern_api_type_made(rc, "", dt, MPI_COMBINER_DUP, old->large, NULL, newtype);
    }
    if (!rc) {
        rc = tern_attr_copy(&old->attrs, TERN_ATTR_TYPE, (void *)old->handle, &dt->attrs,
                            (void *)dt->handle);
        if (rc) {
            tern_api_attr_cb_error(rc, "copy");
            tern_dtype_free(dt);
            *newtype = MPI_DATATYPE_NULL;
        }
    }
    if (rc)
        return tern_api_error(NULL, "MPI_Type_dup", rc);
    dt->committed = old->committed;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype *datatype)
{
    const struct tern_dtype *dt = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(datatype, "datatype");
    if (!rc)
        rc = tern_api_type_old(*datatype, &dt);
    if (rc)
        return tern_api_error(NULL, "MPI_Type_commit", rc);
    ((struct tern_dtype *)dt)->committed = 1;
    return MPI_SUCCESS;
}

/* Marks the type for deallocation: communication already started with it
 * and types built from it keep their own references. */
#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype *datatype)
{
    const struct tern_dtype *dt = NULL;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(datatype, "datatype");
    if (!rc)
        rc = tern_api_type_old(*datatype, &dt);
    if (!rc && dt->predefined) {
        tern_api_detail("cannot free the predefined datatype %s", dt->name);
        rc = TERN_ETYPE;
    }
    if (!rc) {
        /* The attributes go first, through their delete callbacks; one
         * that fails keeps the type. */
        rc = tern_attr_delete_all(&((struct tern_dtype *)dt)->attrs, TERN_ATTR_TYPE,
                                  (void *)dt->handle);
        tern_api_attr_cb_error(rc, "delete");
    }
    if (rc)
        return tern_api_error(NULL, "MPI_Type_free", rc);
    tern_dtype_free((struct tern_dtype *)dt);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
