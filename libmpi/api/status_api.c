/*
 * Statuses and datatype queries: Get_count, Get_elements, Status_set_*,
 * Type_size and Type_get_extent, with their large-count forms.
 */
#include "libmpi/api/api.h"
#include "tern/err.h"

static int count_of(const char *fn, const MPI_Status *status, MPI_Datatype type,
                    MPI_Count *count)
{
    const struct tern_dtype *dt;
    int rc = tern_check_ptr(status, "status");
    if (!rc)
        rc = tern_check_type(type, &dt);
    if (rc)
        return tern_api_error(NULL, fn, rc);
    size_t bytes = tern_status_bytes(status);
    if (dt->size == 0)
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else
        *count = bytes % dt->size ? MPI_UNDEFINED : (MPI_Count)(bytes / dt->size);
    return MPI_SUCCESS;
}

/* A count for the int forms: MPI_UNDEFINED when it does not fit. */
static int to_int(MPI_Count c)
{
    return c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count c;
    int rc = tern_check_ptr(count, "count");
    if (rc)
        return tern_api_error(NULL, "MPI_Get_count", rc);
    rc = count_of("MPI_Get_count", status, datatype, &c);
    if (!rc)
        *count = to_int(c);
    return rc;
}

#pragma weak MPI_Get_count_c = PMPI_Get_count_c
int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    int rc = tern_check_ptr(count, "count");
    if (rc)
        return tern_api_error(NULL, "MPI_Get_count_c", rc);
    return count_of("MPI_Get_count_c", status, datatype, count);
}

/* For the predefined types an element is one whole basic value, so the
 * element count equals the count. Derived types will count basic values. */
#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count c;
    int rc = tern_check_ptr(count, "count");
    if (rc)
        return tern_api_error(NULL, "MPI_Get_elements", rc);
    rc = count_of("MPI_Get_elements", status, datatype, &c);
    if (!rc)
        *count = to_int(c);
    return rc;
}

#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x
int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    int rc = tern_check_ptr(count, "count");
    if (rc)
        return tern_api_error(NULL, "MPI_Get_elements_x", rc);
    return count_of("MPI_Get_elements_x", status, datatype, count);
}

#pragma weak MPI_Get_elements_c = PMPI_Get_elements_c
int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    int rc = tern_check_ptr(count, "count");
    if (rc)
        return tern_api_error(NULL, "MPI_Get_elements_c", rc);
    return count_of("MPI_Get_elements_c", status, datatype, count);
}

static int set_elements(const char *fn, MPI_Status *status, MPI_Datatype type, MPI_Count count)
{
    const struct tern_dtype *dt;
    int rc = tern_check_ptr(status, "status");
    if (!rc)
        rc = tern_check_type(type, &dt);
    if (!rc)
        rc = tern_check_count(count);
    if (rc)
        return tern_api_error(NULL, fn, rc);
    tern_status_set(status, status->MPI_SOURCE, status->MPI_TAG,
                    (size_t)count * dt->size, tern_status_cancelled(status));
    return MPI_SUCCESS;
}

#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements
int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}

#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

#pragma weak MPI_Status_set_elements_c = PMPI_Status_set_elements_c
int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}

#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled
int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    int rc = tern_check_ptr(status, "status");
    if (rc)
        return tern_api_error(NULL, "MPI_Status_set_cancelled", rc);
    status->MPI_internal[2] = flag != 0;
    return MPI_SUCCESS;
}

static int type_info(const char *fn, MPI_Datatype type, const void *out,
                     const struct tern_dtype **dt)
{
    int rc = tern_check_type(type, dt);
    if (!rc)
        rc = tern_check_ptr(out, "output argument");
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    const struct tern_dtype *dt;
    int rc = type_info("MPI_Type_size", datatype, size, &dt);
    if (!rc)
        *size = (int)dt->size;
    return rc;
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    const struct tern_dtype *dt;
    int rc = type_info("MPI_Type_size_x", datatype, size, &dt);
    if (!rc)
        *size = (MPI_Count)dt->size;
    return rc;
}

#pragma weak MPI_Type_size_c = PMPI_Type_size_c
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    const struct tern_dtype *dt;
    int rc = type_info("MPI_Type_size_c", datatype, size, &dt);
    if (!rc)
        *size = (MPI_Count)dt->size;
    return rc;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    const struct tern_dtype *dt;
    int rc = type_info("MPI_Type_get_extent", datatype, lb, &dt);
    if (!rc && !extent)
        return tern_api_error(NULL, "MPI_Type_get_extent", tern_check_ptr(extent, "extent"));
    if (!rc) {
        *lb = 0;
        *extent = (MPI_Aint)dt->extent;
    }
    return rc;
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    const struct tern_dtype *dt;
    int rc = type_info("MPI_Type_get_extent_x", datatype, lb, &dt);
    if (!rc && !extent)
        return tern_api_error(NULL, "MPI_Type_get_extent_x", tern_check_ptr(extent, "extent"));
    if (!rc) {
        *lb = 0;
        *extent = (MPI_Count)dt->extent;
    }
    return rc;
}
