/*
 * Datatype queries and explicit packing: MPI_Type_size, _get_extent,
 * _get_true_extent (with their _x and _c forms), MPI_Type_get_name and
 * _set_name, MPI_Get_address, and MPI_Pack, MPI_Unpack, MPI_Pack_size
 * (with _c forms).
 *
 * Queries accept uncommitted types; packing needs committed ones, like
 * communication. The packed format is the data's bytes in typemap order,
 * nothing more (Tern runs on homogeneous clusters), so MPI_Pack_size is
 * exactly count * size and packed data can be sent as MPI_PACKED or
 * MPI_BYTE and received as the original type. Values an int argument
 * cannot hold come back as MPI_UNDEFINED (sizes) or as an error naming
 * the _c form to use.
 */
#include <limits.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "tern/err.h"

static int query(const char *fn, MPI_Datatype type, const void *out1, const void *out2,
                 const struct tern_dtype **dt)
{
    int rc = 0;
    *dt = tern_dtype_lookup(type);
    if (!*dt) {
        if (type == MPI_DATATYPE_NULL)
            tern_api_detail("invalid datatype MPI_DATATYPE_NULL");
        else
            tern_api_detail("invalid datatype %p (not a datatype, or freed)", (void *)type);
        rc = TERN_ETYPE;
    }
    if (!rc)
        rc = tern_check_ptr(out1, "output argument");
    if (!rc)
        rc = tern_check_ptr(out2, "output argument");
    return rc ? tern_api_error(NULL, fn, rc) : MPI_SUCCESS;
}

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    const struct tern_dtype *dt;
    int rc = query("MPI_Type_size", datatype, size, size, &dt);
    if (!rc)
        *size = dt->size > INT_MAX ? MPI_UNDEFINED : (int)dt->size;
    return rc;
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    const struct tern_dtype *dt;
    int rc = query("MPI_Type_size_x", datatype, size, size, &dt);
    if (!rc)
        *size = (MPI_Count)dt->size;
    return rc;
}

#pragma weak MPI_Type_size_c = PMPI_Type_size_c
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    const struct tern_dtype *dt;
    int rc = query("MPI_Type_size_c", datatype, size, size, &dt);
    if (!rc)
        *size = (MPI_Count)dt->size;
    return rc;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    const struct tern_dtype *dt;
    int rc = query("MPI_Type_get_extent", datatype, lb, extent, &dt);
    if (!rc) {
        *lb = dt->lb;
        *extent = dt->extent;
    }
    return rc;
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    const struct tern_dtype *dt;
    int rc = query("MPI_Type_get_extent_x", datatype, lb, extent, &dt);
    if (!rc) {
        *lb = dt->lb;
        *extent = dt->extent;
    }
    return rc;
}

#pragma weak MPI_Type_get_extent_c = PMPI_Type_get_extent_c
int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    const struct tern_dtype *dt;
    int rc = query("MPI_Type_get_extent_c", datatype, lb, extent, &dt);
    if (!rc) {
        *lb = dt->lb;
        *extent = dt->extent;
    }
    return rc;
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    const struct tern_dtype *dt;
    int rc = query("MPI_Type_get_true_extent", datatype, true_lb, true_extent, &dt);
    if (!rc) {
        *true_lb = dt->true_lb;
        *true_extent = dt->true_extent;
    }
    return rc;
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    const struct tern_dtype *dt;
    int rc = query("MPI_Type_get_true_extent_x", datatype, true_lb, true_extent, &dt);
    if (!rc) {
        *true_lb = dt->true_lb;
        *true_extent = dt->true_extent;
    }
    return rc;
}

#pragma weak MPI_Type_get_true_extent_c = PMPI_Type_get_true_extent_c
int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    const struct tern_dtype *dt;
    int rc = query("MPI_Type_get_true_extent_c", datatype, true_lb, true_extent, &dt);
    if (!rc) {
        *true_lb = dt->true_lb;
        *true_extent = dt->true_extent;
    }
    return rc;
}

#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    const struct tern_dtype *dt;
    int rc = query("MPI_Type_get_name", datatype, type_name, resultlen, &dt);
    if (!rc) {
        size_t n = strlen(dt->name);
        if (n > MPI_MAX_OBJECT_NAME - 1)
            n = MPI_MAX_OBJECT_NAME - 1;
        memcpy(type_name, dt->name, n);
        type_name[n] = '\0';
        *resultlen = (int)n;
    }
    return rc;
}

/* Names are copied into the object, truncated to MPI_MAX_OBJECT_NAME - 1
 * characters; predefined types may be renamed too. */
#pragma weak MPI_Type_set_name = PMPI_Type_set_name
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    const struct tern_dtype *cdt;
    int rc = query("MPI_Type_set_name", datatype, type_name, type_name, &cdt);
    if (!rc) {
        struct tern_dtype *dt = (struct tern_dtype *)cdt;
        size_t n = strlen(type_name);
        if (n > MPI_MAX_OBJECT_NAME - 1)
            n = MPI_MAX_OBJECT_NAME - 1;
        memcpy(dt->namebuf, type_name, n);
        dt->namebuf[n] = '\0';
        dt->name = dt->namebuf;
    }
    return rc;
}

#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    int rc = tern_check_ptr(address, "address");
    if (rc)
        return tern_api_error(NULL, "MPI_Get_address", rc);
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* The checks shared by Pack and Unpack: returns the packed size needed. */
static int pack_checks(const void *buf, MPI_Count count, MPI_Datatype type, MPI_Comm comm,
                       const MPI_Count *position, struct tern_comm **c,
                       const struct tern_dtype **dt, size_t *bytes)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_comm(comm, c);
    if (!rc)
        rc = tern_check_count(count);
    if (!rc)
        rc = tern_check_type(type, dt);
    if (!rc && (*dt)->size && (size_t)count > (size_t)PTRDIFF_MAX / (*dt)->size) {
        tern_api_detail("invalid count %lld: the packed size does not fit in MPI_Count",
                        (long long)count);
        rc = TERN_ECOUNT;
    }
    if (!rc)
        rc = tern_check_buf(buf, (*dt)->predefined ? count : 0);
    if (!rc && *position < 0) {
        tern_api_detail("invalid position %lld: must be >= 0", (long long)*position);
        rc = TERN_EARG;
    }
    if (!rc)
        *bytes = (size_t)count * (*dt)->size;
    return rc;
}

static int do_pack(const char *fn, const void *inbuf, MPI_Count incount, MPI_Datatype type,
                   void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    struct tern_comm *c = NULL;
    const struct tern_dtype *dt;
    size_t bytes = 0;
    int rc = tern_check_ptr(position, "position");
    if (!rc)
        rc = pack_checks(inbuf, incount, type, comm, position, &c, &dt, &bytes);
    if (!rc && (*position > outsize || bytes > (size_t)(outsize - *position))) {
        tern_api_detail("output buffer too small: %zu packed bytes from position %lld do "
                        "not fit in outsize %lld", bytes, (long long)*position,
                        (long long)outsize);
        rc = TERN_ETRUNCATE;
    }
    if (!rc && bytes)
        rc = tern_check_ptr(outbuf, "outbuf");
    if (rc)
        return tern_api_error(c, fn, rc);
    tern_dtype_pack(dt, inbuf, (size_t)incount, (char *)outbuf + *position);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

static int do_unpack(const char *fn, const void *inbuf, MPI_Count insize, MPI_Count *position,
                     void *outbuf, MPI_Count outcount, MPI_Datatype type, MPI_Comm comm)
{
    struct tern_comm *c = NULL;
    const struct tern_dtype *dt;
    size_t bytes = 0;
    int rc = tern_check_ptr(position, "position");
    if (!rc)
        rc = pack_checks(outbuf, outcount, type, comm, position, &c, &dt, &bytes);
    if (!rc && (*position > insize || bytes > (size_t)(insize - *position))) {
        tern_api_detail("input buffer too short: %zu packed bytes wanted from position %lld, "
                        "insize is %lld", bytes, (long long)*position, (long long)insize);
        rc = TERN_ETRUNCATE;
    }
    if (!rc && bytes)
        rc = tern_check_ptr(inbuf, "inbuf");
    if (rc)
        return tern_api_error(c, fn, rc);
    tern_dtype_unpack(dt, (const char *)inbuf + *position, bytes, outbuf);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc = do_pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize,
                     position ? &pos : NULL, comm);
    if (!rc)
        *position = (int)pos;
    return rc;
}

#pragma weak MPI_Pack_c = PMPI_Pack_c
int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    return do_pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm);
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc = do_unpack("MPI_Unpack", inbuf, insize, position ? &pos : NULL, outbuf, outcount,
                       datatype, comm);
    if (!rc)
        *position = (int)pos;
    return rc;
}

#pragma weak MPI_Unpack_c = PMPI_Unpack_c
int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    return do_unpack("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm);
}

static int pack_size(const char *fn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     const void *size, MPI_Count *out)
{
    struct tern_comm *c = NULL;
    const struct tern_dtype *dt;
    MPI_Count pos = 0;
    size_t bytes = 0;
    int rc = tern_check_ptr(size, "size");
    if (!rc)
        rc = pack_checks(NULL, 0, datatype, comm, &pos, &c, &dt, &bytes);
    if (!rc)
        rc = tern_check_count(incount);
    if (!rc && dt->size && (size_t)incount > (size_t)PTRDIFF_MAX / dt->size) {
        tern_api_detail("invalid count %lld: the packed size does not fit in MPI_Count",
                        (long long)incount);
        rc = TERN_ECOUNT;
    }
    if (rc)
        return tern_api_error(c, fn, rc);
    *out = incount * (MPI_Count)dt->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_Count n = 0;
    int rc = pack_size("MPI_Pack_size", incount, datatype, comm, size, &n);
    if (rc)
        return rc;
    if (n > INT_MAX) {
        tern_api_detail("the packed size %lld does not fit in an int: use MPI_Pack_size_c",
                        (long long)n);
        return tern_api_error(tern_comm_get(comm), "MPI_Pack_size", TERN_ECOUNT);
    }
    *size = (int)n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size_c = PMPI_Pack_size_c
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return pack_size("MPI_Pack_size_c", incount, datatype, comm, size, size);
}

/* The types MPI_Type_match_size chooses from: the Fortran sized types, as
 * the standard's definition of it names them, one per class and size. */
static const struct {
    int typeclass;
    MPI_Datatype type;
} sized_types[] = {
    { MPI_TYPECLASS_INTEGER, MPI_INTEGER1 }, { MPI_TYPECLASS_INTEGER, MPI_INTEGER2 },
    { MPI_TYPECLASS_INTEGER, MPI_INTEGER4 }, { MPI_TYPECLASS_INTEGER, MPI_INTEGER8 },
    { MPI_TYPECLASS_INTEGER, MPI_INTEGER16 },
    { MPI_TYPECLASS_REAL, MPI_REAL2 },       { MPI_TYPECLASS_REAL, MPI_REAL4 },
    { MPI_TYPECLASS_REAL, MPI_REAL8 },       { MPI_TYPECLASS_REAL, MPI_REAL16 },
    { MPI_TYPECLASS_COMPLEX, MPI_COMPLEX4 }, { MPI_TYPECLASS_COMPLEX, MPI_COMPLEX8 },
    { MPI_TYPECLASS_COMPLEX, MPI_COMPLEX16 }, { MPI_TYPECLASS_COMPLEX, MPI_COMPLEX32 },
    { MPIX_TYPECLASS_LOGICAL, MPI_LOGICAL1 }, { MPIX_TYPECLASS_LOGICAL, MPI_LOGICAL2 },
    { MPIX_TYPECLASS_LOGICAL, MPI_LOGICAL4 }, { MPIX_TYPECLASS_LOGICAL, MPI_LOGICAL8 },
    { MPIX_TYPECLASS_LOGICAL, MPI_LOGICAL16 },
};

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(datatype, "datatype");
    if (rc)
        return tern_api_error(NULL, "MPI_Type_match_size", rc);
    int known = 0;
    for (size_t i = 0; i < sizeof sized_types / sizeof *sized_types; i++) {
        if (sized_types[i].typeclass != typeclass)
            continue;
        known = 1;
        if (tern_dtype_get(sized_types[i].type)->size == (size_t)size) {
            *datatype = sized_types[i].type;
            return MPI_SUCCESS;
        }
    }
    if (known)
        tern_api_detail("no predefined type of this class has size %d", size);
    else
        tern_api_detail("invalid typeclass %d (MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX)",
                        typeclass);
    return tern_api_error(NULL, "MPI_Type_match_size", TERN_EARG);
}

/* The pair types MPI_Type_get_value_index returns (MPI 4.1): the value
 * type and the index type of each, as the standard's table of MINLOC and
 * MAXLOC types lists them. */
static const struct {
    MPI_Datatype value, index, pair;
} pair_types[] = {
    { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT },
    { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
    { MPI_LONG, MPI_INT, MPI_LONG_INT },
    { MPI_INT, MPI_INT, MPI_2INT },
    { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
    { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
    { MPI_REAL, MPI_REAL, MPI_2REAL },
    { MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION },
    { MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER },
};

/* Another pair has no predefined type: MPI_DATATYPE_NULL, as the standard
 * says, not an error. */
#pragma weak MPI_Type_get_value_index = PMPI_Type_get_value_index
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype *pair_type)
{
    const struct tern_dtype *v, *i;
    int rc = tern_check_init();
    if (!rc)
        rc = tern_check_ptr(pair_type, "pair_type");
    if (!rc && !(v = tern_dtype_lookup(value_type))) {
        tern_api_detail("invalid value_type");
        rc = TERN_ETYPE;
    }
    if (!rc && !(i = tern_dtype_lookup(index_type))) {
        tern_api_detail("invalid index_type");
        rc = TERN_ETYPE;
    }
    if (rc)
        return tern_api_error(NULL, "MPI_Type_get_value_index", rc);
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t k = 0; k < sizeof pair_types / sizeof *pair_types; k++)
        if (pair_types[k].value == v->handle && pair_types[k].index == i->handle)
            *pair_type = pair_types[k].pair;
    return MPI_SUCCESS;
}
