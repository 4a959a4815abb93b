/*
 * Packing in the portable "external32" representation: MPI_Pack_external,
 * MPI_Unpack_external and MPI_Pack_external_size, with their _c forms.
 *
 * Only the datarep "external32" exists (the standard defines no other for
 * these calls); any other string is MPI_ERR_ARG naming it. The checks are
 * MPI_Pack's (committed type, count, position within the buffer), with
 * sizes in external32 bytes, which differ from the native ones
 * (libmpi/core/dtype_external.c converts). These calls have no
 * communicator, so errors go to MPI_COMM_SELF's handler.
 */
#include <stdint.h>
#include <string.h>

#include "libmpi/api/api.h"
#include "tern/err.h"

static int check_datarep(const char *datarep)
{
    int rc = tern_check_ptr(datarep, "datarep");
    if (!rc && strcmp(datarep, "external32") != 0) {
        tern_api_detail("invalid datarep \"%.64s\": only \"external32\" is supported",
                        datarep);
        rc = TERN_EARG;
    }
    return rc;
}

/* The checks all three calls share; *bytes is count elements' size in
 * external32. */
static int ext_checks(const char *datarep, MPI_Count count, MPI_Datatype type,
                      const struct tern_dtype **dt, size_t *bytes)
{
    const char *why = "";
    size_t one = 0;
    int rc = tern_check_init();
    if (!rc)
        rc = check_datarep(datarep);
    if (!rc)
        rc = tern_check_count(count);
    if (!rc)
        rc = tern_check_type(type, dt);
    if (!rc) {
        rc = tern_dtype_ext32_size(*dt, &one, &why);
        if (rc == TERN_ENOTSUP) {
            tern_api_detail("the datatype holds %s, which has no external32 conversion on "
                            "this platform", why);
            rc = TERN_ETYPE;
        } else if (rc) {
            tern_api_detail("the datatype is too large: %s", why);
        }
    }
    if (!rc && one && (size_t)count > (size_t)PTRDIFF_MAX / one) {
        tern_api_detail("invalid count %lld: the packed size does not fit in MPI_Count",
                        (long long)count);
        rc = TERN_ECOUNT;
    }
    if (!rc)
        *bytes = (size_t)count * one;
    return rc;
}

static int check_position(const MPI_Count *position, MPI_Count bufsize, size_t bytes,
                          const char *bufname)
{
    if (*position < 0) {
        tern_api_detail("invalid position %lld: must be >= 0", (long long)*position);
        return TERN_EARG;
    }
    if (*position > bufsize || bytes > (size_t)(bufsize - *position)) {
        tern_api_detail("%s too small: %zu external32 bytes from position %lld do not fit "
                        "in its size %lld", bufname, bytes, (long long)*position,
                        (long long)bufsize);
        return TERN_ETRUNCATE;
    }
    return 0;
}

static int do_pack(const char *fn, const char *datarep, const void *inbuf, MPI_Count incount,
                   MPI_Datatype type, void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    const struct tern_dtype *dt;
    size_t bytes = 0;
    int rc = tern_check_ptr(position, "position");
    if (!rc)
        rc = ext_checks(datarep, incount, type, &dt, &bytes);
    if (!rc)
        rc = tern_check_buf(inbuf, dt->predefined ? incount : 0);
    if (!rc)
        rc = check_position(position, outsize, bytes, "output buffer");
    if (!rc && bytes)
        rc = tern_check_ptr(outbuf, "outbuf");
    if (!rc)
        rc = tern_dtype_ext32_pack(dt, inbuf, (size_t)incount, (char *)outbuf + *position);
    if (rc)
        return tern_api_error(NULL, fn, rc);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

static int do_unpack(const char *fn, const char *datarep, const void *inbuf, MPI_Count insize,
                     MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype type)
{
    const struct tern_dtype *dt;
    size_t bytes = 0;
    int rc = tern_check_ptr(position, "position");
    if (!rc)
        rc = ext_checks(datarep, outcount, type, &dt, &bytes);
    if (!rc)
        rc = tern_check_buf(outbuf, dt->predefined ? outcount : 0);
    if (!rc)
        rc = check_position(position, insize, bytes, "input buffer");
    if (!rc && bytes)
        rc = tern_check_ptr(inbuf, "inbuf");
    if (!rc)
        rc = tern_dtype_ext32_unpack(dt, (const char *)inbuf + *position, (size_t)outcount,
                                     outbuf);
    if (rc)
        return tern_api_error(NULL, fn, rc);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char *datarep, const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    MPI_Count pos = position ? *position : 0;
    int rc = do_pack("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize,
                     position ? &pos : NULL);
    if (!rc)
        *position = (MPI_Aint)pos;
    return rc;
}

#pragma weak MPI_Pack_external_c = PMPI_Pack_external_c
int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    return do_pack("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize,
                   position);
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    MPI_Count pos = position ? *position : 0;
    int rc = do_unpack("MPI_Unpack_external", datarep, inbuf, insize, position ? &pos : NULL,
                       outbuf, outcount, datatype);
    if (!rc)
        *position = (MPI_Aint)pos;
    return rc;
}

#pragma weak MPI_Unpack_external_c = PMPI_Unpack_external_c
int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype)
{
    return do_unpack("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf,
                     outcount, datatype);
}

static int ext_size(const char *fn, const char *datarep, MPI_Count incount,
                    MPI_Datatype datatype, const void *size, MPI_Count *out)
{
    const struct tern_dtype *dt;
    size_t bytes = 0;
    int rc = tern_check_ptr(size, "size");
    if (!rc)
        rc = ext_checks(datarep, incount, datatype, &dt, &bytes);
    if (rc)
        return tern_api_error(NULL, fn, rc);
    *out = (MPI_Count)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype datatype, MPI_Aint *size)
{
    MPI_Count n = 0;
    int rc = ext_size("MPI_Pack_external_size", datarep, incount, datatype, size, &n);
    if (!rc)
        *size = (MPI_Aint)n;
    return rc;
}

#pragma weak MPI_Pack_external_size_c = PMPI_Pack_external_size_c
int PMPI_Pack_external_size_c(const char *datarep, MPI_Count incount, MPI_Datatype datatype, MPI_Count *size)
{
    return ext_size("MPI_Pack_external_size_c", datarep, incount, datatype, size, size);
}
