/*
 * Statuses: Get_count, Get_elements, Status_set_*, with their large-count
 * forms, and the MPI 4.1 accessors of the public fields (Status_get_source
 * and friends). (The datatype queries are in typeinfo_api.c.)
 *
 * A status holds the received byte count. Get_count divides it by the
 * type's size (MPI_UNDEFINED unless whole elements arrived); Get_elements
 * counts the basic elements in those bytes, which for a derived type may
 * end inside an element (MPI_UNDEFINED only when they end inside a basic
 * element); Status_set_elements stores the bytes that many basic elements
 * take.
 */
#include <stdint.h>

#include "libmpi/api/api.h"
#include "tern/err.h"

/* The type of a status query: committed or not, but valid. */
static int status_type(const MPI_Status *status, MPI_Datatype type,
                       const struct tern_dtype **dt)
{
    int rc = tern_check_ptr(status, "status");
    if (rc)
        return rc;
    *dt = tern_dtype_lookup(type);
    if (*dt)
        return 0;
    return tern_check_type(type, dt);
}

static int count_of(const char *fn, const MPI_Status *status, MPI_Datatype type,
                    MPI_Count *count)
{
    const struct tern_dtype *dt;
    int rc = status_type(status, type, &dt);
    if (rc)
        return tern_api_error(NULL, fn, rc);
    size_t bytes = tern_status_bytes(status);
    if (dt->size == 0)
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else
        *count = bytes % dt->size ? MPI_UNDEFINED : (MPI_Count)(bytes / dt->size);
    return MPI_SUCCESS;
}

static int elements_of(const char *fn, const MPI_Status *status, MPI_Datatype type,
                       MPI_Count *count)
{
    const struct tern_dtype *dt;
    int rc = status_type(status, type, &dt);
    if (rc)
        return tern_api_error(NULL, fn, rc);
    *count = tern_dtype_elements(dt, tern_status_bytes(status));
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

#pragma weak MPI_Get_elements = PMPI_Get_elements
int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count c;
    int rc = tern_check_ptr(count, "count");
    if (rc)
        return tern_api_error(NULL, "MPI_Get_elements", rc);
    rc = elements_of("MPI_Get_elements", status, datatype, &c);
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
    return elements_of("MPI_Get_elements_x", status, datatype, count);
}

#pragma weak MPI_Get_elements_c = PMPI_Get_elements_c
int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    int rc = tern_check_ptr(count, "count");
    if (rc)
        return tern_api_error(NULL, "MPI_Get_elements_c", rc);
    return elements_of("MPI_Get_elements_c", status, datatype, count);
}

static int set_elements(const char *fn, MPI_Status *status, MPI_Datatype type, MPI_Count count)
{
    const struct tern_dtype *dt;
    int rc = status_type(status, type, &dt);
    if (!rc)
        rc = tern_check_count(count);
    size_t bytes = rc ? 0 : tern_dtype_elements_bytes(dt, (size_t)count);
    if (!rc && bytes > (size_t)PTRDIFF_MAX) {
        tern_api_detail("invalid count %lld: that many basic elements do not fit in memory",
                        (long long)count);
        rc = TERN_ECOUNT;
    }
    if (rc)
        return tern_api_error(NULL, fn, rc);
    tern_status_set(status, status->MPI_SOURCE, status->MPI_TAG, bytes,
                    tern_status_cancelled(status));
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

/* MPI 4.1's accessors of the public fields, for languages and tools that
 * cannot reach into the struct. */
static int status_field(const char *fn, const MPI_Status *status, const void *out)
{
    int rc = tern_check_ptr(status, "status");
    if (!rc)
        rc = tern_check_ptr(out, "the value");
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Status_get_source = PMPI_Status_get_source
int PMPI_Status_get_source(const MPI_Status *status, int *source)
{
    int rc = status_field("MPI_Status_get_source", status, source);
    if (!rc)
        *source = status->MPI_SOURCE;
    return rc;
}

#pragma weak MPI_Status_get_tag = PMPI_Status_get_tag
int PMPI_Status_get_tag(const MPI_Status *status, int *tag)
{
    int rc = status_field("MPI_Status_get_tag", status, tag);
    if (!rc)
        *tag = status->MPI_TAG;
    return rc;
}

#pragma weak MPI_Status_get_error = PMPI_Status_get_error
int PMPI_Status_get_error(const MPI_Status *status, int *error)
{
    int rc = status_field("MPI_Status_get_error", status, error);
    if (!rc)
        *error = status->MPI_ERROR;
    return rc;
}

#pragma weak MPI_Status_set_source = PMPI_Status_set_source
int PMPI_Status_set_source(MPI_Status *status, int source)
{
    int rc = status_field("MPI_Status_set_source", status, status);
    if (!rc)
        status->MPI_SOURCE = source;
    return rc;
}

#pragma weak MPI_Status_set_tag = PMPI_Status_set_tag
int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    int rc = status_field("MPI_Status_set_tag", status, status);
    if (!rc)
        status->MPI_TAG = tag;
    return rc;
}

#pragma weak MPI_Status_set_error = PMPI_Status_set_error
int PMPI_Status_set_error(MPI_Status *status, int error)
{
    int rc = status_field("MPI_Status_set_error", status, status);
    if (!rc)
        status->MPI_ERROR = error;
    return rc;
}
