/*
 * Datatype constructors, the vector and indexed families:
 * MPI_Type_contiguous, _vector, _create_hvector, _indexed,
 * _create_hindexed, _create_indexed_block and _create_hindexed_block,
 * with their large-count forms. (Struct, subarray, resized, dup, commit
 * and free are in type_struct_api.c.)
 *
 * Each int form widens its arguments to MPI_Count and shares one checked
 * entry with its _c form; the entry validates counts and block lengths,
 * turns element displacements into bytes without overflow, and calls the
 * engine (libmpi/core/dtype_build.c). Errors are not tied to a
 * communicator, so they go to MPI_COMM_SELF's error handler.
 */
#include <stdlib.h>

#include "libmpi/api/api.h"
#include "libmpi/api/type_args.h"
#include "tern/err.h"

/* Contiguous, vector and hvector: count blocks of blocklen, stride apart
 * (in elements of the old type when in_elems, else in bytes). */
static int make_vector(const char *fn, MPI_Count count, MPI_Count blocklen,
                       MPI_Count stride, int in_elems, MPI_Datatype oldtype,
                       MPI_Datatype *newtype, int combiner, int large)
{
    const struct tern_dtype *old;
    struct tern_dtype *dt = NULL;
    const char *why = "";
    MPI_Aint bytes = (MPI_Aint)stride;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_api_type_nonneg("count", count, -1);
    if (!rc)
        rc = tern_api_type_nonneg("blocklength", blocklen, -1);
    if (!rc)
        rc = tern_api_type_old(oldtype, &old);
    if (!rc)
        rc = tern_check_ptr(newtype, "newtype");
    if (!rc && in_elems)
        rc = tern_api_type_bytes(stride, old->extent, "stride", &bytes);
    struct tern_api_rec args = { 0 };
    if (!rc)
        rc = tern_api_rec_init(&args, 3);
    if (!rc) {
        tern_api_rec_put(&args, 'n', count);
        if (combiner != MPI_COMBINER_CONTIGUOUS) {
            tern_api_rec_put(&args, 'n', blocklen);
            tern_api_rec_put(&args, combiner == MPI_COMBINER_HVECTOR ? 'a' : 'n', stride);
        }
        rc = tern_dtype_hvector((size_t)count, (size_t)blocklen, bytes, old, &dt, &why);
        rc = tern_api_type_made(rc, why, dt, combiner, large, &args, newtype);
    }
    tern_api_rec_free(&args);
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_contiguous", count, 1, 1, 1, oldtype, newtype,
                       MPI_COMBINER_CONTIGUOUS, 0);
}

#pragma weak MPI_Type_contiguous_c = PMPI_Type_contiguous_c
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_contiguous_c", count, 1, 1, 1, oldtype, newtype,
                       MPI_COMBINER_CONTIGUOUS, 1);
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_vector", count, blocklength, stride, 1, oldtype, newtype,
                       MPI_COMBINER_VECTOR, 0);
}

#pragma weak MPI_Type_vector_c = PMPI_Type_vector_c
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_vector_c", count, blocklength, stride, 1, oldtype, newtype,
                       MPI_COMBINER_VECTOR, 1);
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_create_hvector", count, blocklength, stride, 0, oldtype,
                       newtype, MPI_COMBINER_HVECTOR, 0);
}

#pragma weak MPI_Type_create_hvector_c = PMPI_Type_create_hvector_c
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_vector("MPI_Type_create_hvector_c", count, blocklength, stride, 0, oldtype,
                       newtype, MPI_COMBINER_HVECTOR, 1);
}

/* Checked block lengths and byte displacements of an indexed family call.
 * bl == NULL means every block has length bl_all. */
static int index_args(MPI_Count count, const MPI_Count *bl, MPI_Count bl_all,
                      const MPI_Count *disp, int in_elems, MPI_Aint ext,
                      size_t **blens, MPI_Aint **bytes)
{
    size_t n = count > 0 ? (size_t)count : 1;
    *blens = malloc(n * sizeof(**blens));
    *bytes = malloc(n * sizeof(**bytes));
    if (!*blens || !*bytes)
        return TERN_ENOMEM;
    for (MPI_Count i = 0; i < count; i++) {
        MPI_Count b = bl ? bl[i] : bl_all;
        int rc = tern_api_type_nonneg("blocklength", b, bl ? i : -1);
        if (rc)
            return rc;
        (*blens)[i] = (size_t)b;
        (*bytes)[i] = (MPI_Aint)disp[i];
        if (in_elems && (rc = tern_api_type_bytes(disp[i], ext, "displacement", &(*bytes)[i])))
            return rc;
    }
    return 0;
}

static int make_indexed(const char *fn, MPI_Count count, const MPI_Count *bl,
                        MPI_Count bl_all, const MPI_Count *disp, int in_elems,
                        MPI_Datatype oldtype, MPI_Datatype *newtype, int combiner, int large)
{
    const struct tern_dtype *old;
    struct tern_dtype *dt = NULL;
    size_t *blens = NULL;
    MPI_Aint *bytes = NULL;
    const char *why = "";
    int rc = tern_check_init();
    if (!rc)
        rc = tern_api_type_nonneg("count", count, -1);
    if (!rc)
        rc = tern_api_type_old(oldtype, &old);
    if (!rc)
        rc = tern_check_ptr(newtype, "newtype");
    if (!rc && bl)
        rc = tern_api_type_array(bl, count, "array_of_blocklengths");
    if (!rc)
        rc = tern_api_type_array(disp, count, "array_of_displacements");
    if (!rc)
        rc = index_args(count, bl, bl_all, disp, in_elems, old->extent, &blens, &bytes);
    struct tern_api_rec args = { 0 };
    if (!rc)
        rc = tern_api_rec_init(&args, 2 + 2 * (size_t)count);
    if (!rc) {
        tern_api_rec_put(&args, 'n', count);
        if (!bl)
            tern_api_rec_put(&args, 'n', bl_all);
        for (MPI_Count i = 0; bl && i < count; i++)
            tern_api_rec_put(&args, 'n', bl[i]);
        for (MPI_Count i = 0; i < count; i++)
            tern_api_rec_put(&args, in_elems ? 'n' : 'a', disp[i]);
        rc = tern_dtype_hindexed((size_t)count, blens, bytes, old, &dt, &why);
        rc = tern_api_type_made(rc, why, dt, combiner, large, &args, newtype);
    }
    tern_api_rec_free(&args);
    free(blens);
    free(bytes);
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

/* Runs make_indexed on widened copies of int-form arrays, which the
 * caller has checked are there when count > 0 (bl == NULL: all blocks
 * have length bl_all). */
static int indexed_int(const char *fn, int count, const int *bl, int bl_all,
                       const int *idisp, const MPI_Aint *adisp, MPI_Datatype oldtype,
                       MPI_Datatype *newtype, int combiner)
{
    int bad = 0;
    MPI_Count *wbl = tern_api_widen_int(bl, count, &bad);
    MPI_Count *wd = idisp ? tern_api_widen_int(idisp, count, &bad) : tern_api_widen_aint(adisp, count, &bad);
    int rc;
    if (bad) {
        rc = tern_api_error(NULL, fn, TERN_ENOMEM);
    } else {
        rc = make_indexed(fn, count, wbl, bl_all, wd, idisp != NULL, oldtype, newtype,
                          combiner, 0);
    }
    free(wbl);
    free(wd);
    return rc;
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = count > 0 ? tern_check_ptr(array_of_blocklengths, "array_of_blocklengths") : 0;
    if (!rc && count > 0)
        rc = tern_check_ptr(array_of_displacements, "array_of_displacements");
    if (rc)
        return tern_api_error(NULL, "MPI_Type_indexed", rc);
    return indexed_int("MPI_Type_indexed", count, array_of_blocklengths, 0,
                       array_of_displacements, NULL, oldtype, newtype, MPI_COMBINER_INDEXED);
}

#pragma weak MPI_Type_indexed_c = PMPI_Type_indexed_c
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (count > 0 && !array_of_blocklengths)
        return tern_api_error(NULL, "MPI_Type_indexed_c",
                              tern_check_ptr(NULL, "array_of_blocklengths"));
    return make_indexed("MPI_Type_indexed_c", count, array_of_blocklengths, 0,
                        array_of_displacements, 1, oldtype, newtype, MPI_COMBINER_INDEXED, 1);
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int rc = count > 0 ? tern_check_ptr(array_of_blocklengths, "array_of_blocklengths") : 0;
    if (!rc && count > 0)
        rc = tern_check_ptr(array_of_displacements, "array_of_displacements");
    if (rc)
        return tern_api_error(NULL, "MPI_Type_create_hindexed", rc);
    return indexed_int("MPI_Type_create_hindexed", count, array_of_blocklengths, 0, NULL,
                       array_of_displacements, oldtype, newtype, MPI_COMBINER_HINDEXED);
}

#pragma weak MPI_Type_create_hindexed_c = PMPI_Type_create_hindexed_c
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (count > 0 && !array_of_blocklengths)
        return tern_api_error(NULL, "MPI_Type_create_hindexed_c",
                              tern_check_ptr(NULL, "array_of_blocklengths"));
    return make_indexed("MPI_Type_create_hindexed_c", count, array_of_blocklengths, 0,
                        array_of_displacements, 0, oldtype, newtype, MPI_COMBINER_HINDEXED, 1);
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (count > 0 && !array_of_displacements)
        return tern_api_error(NULL, "MPI_Type_create_indexed_block",
                              tern_check_ptr(NULL, "array_of_displacements"));
    return indexed_int("MPI_Type_create_indexed_block", count, NULL, blocklength,
                       array_of_displacements, NULL, oldtype, newtype,
                       MPI_COMBINER_INDEXED_BLOCK);
}

#pragma weak MPI_Type_create_indexed_block_c = PMPI_Type_create_indexed_block_c
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_indexed("MPI_Type_create_indexed_block_c", count, NULL, blocklength,
                        array_of_displacements, 1, oldtype, newtype,
                        MPI_COMBINER_INDEXED_BLOCK, 1);
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (count > 0 && !array_of_displacements)
        return tern_api_error(NULL, "MPI_Type_create_hindexed_block",
                              tern_check_ptr(NULL, "array_of_displacements"));
    return indexed_int("MPI_Type_create_hindexed_block", count, NULL, blocklength, NULL,
                       array_of_displacements, oldtype, newtype,
                       MPI_COMBINER_HINDEXED_BLOCK);
}

#pragma weak MPI_Type_create_hindexed_block_c = PMPI_Type_create_hindexed_block_c
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return make_indexed("MPI_Type_create_hindexed_block_c", count, NULL, blocklength,
                        array_of_displacements, 0, oldtype, newtype,
                        MPI_COMBINER_HINDEXED_BLOCK, 1);
}
