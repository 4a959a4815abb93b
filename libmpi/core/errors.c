/*
 * The one table of internal error codes: each code's MPI error class and
 * message. Codes are the negative TERN_E* values of include/tern/err.h.
 */
#include <mpi.h>

#include "tern/err.h"

struct err_entry {
    int mpi_class;
    const char *message;
};

static const struct err_entry table[TERN_E_COUNT_] = {
    [0] = { MPI_SUCCESS, "no error" },
    [-TERN_ENOMEM] = { MPI_ERR_NO_MEM, "out of memory" },
    [-TERN_EINVAL] = { MPI_ERR_ARG, "invalid argument" },
    [-TERN_EAGAIN] = { MPI_ERR_INTERN, "resource temporarily busy" },
    [-TERN_EIO] = { MPI_ERR_OTHER, "I/O error on a socket, pipe or file" },
    [-TERN_ETRUNCATE] = { MPI_ERR_TRUNCATE, "message truncated: longer than the receive buffer" },
    [-TERN_EPEER] = { MPI_ERR_PROC_ABORTED, "a peer process died or closed its connection" },
    [-TERN_EAUTH] = { MPI_ERR_OTHER, "connection failed the job-secret handshake" },
    [-TERN_EPROTO] = { MPI_ERR_INTERN, "malformed message on the wire" },
    [-TERN_ENOTSUP] = { MPI_ERR_UNSUPPORTED_OPERATION, "operation not supported" },
    [-TERN_ESHM] = { MPI_ERR_NO_MEM, "shared memory could not be created or mapped" },
    [-TERN_ETIMEDOUT] = { MPI_ERR_OTHER, "timed out" },
    [-TERN_ENOTFOUND] = { MPI_ERR_OTHER, "not found" },
    [-TERN_EINTERN] = { MPI_ERR_INTERN, "internal error" },
    [-TERN_ECOUNT] = { MPI_ERR_COUNT, "invalid count" },
    [-TERN_ETYPE] = { MPI_ERR_TYPE, "invalid datatype" },
    [-TERN_ETAG] = { MPI_ERR_TAG, "invalid tag" },
    [-TERN_ECOMM] = { MPI_ERR_COMM, "invalid communicator" },
    [-TERN_ERANK] = { MPI_ERR_RANK, "invalid rank" },
    [-TERN_EREQUEST] = { MPI_ERR_REQUEST, "invalid request" },
    [-TERN_EBUFFER] = { MPI_ERR_BUFFER, "invalid buffer" },
    [-TERN_EARG] = { MPI_ERR_ARG, "invalid argument" },
    [-TERN_EERRHANDLER] = { MPI_ERR_ERRHANDLER, "invalid error handler" },
    [-TERN_EOTHER] = { MPI_ERR_OTHER, "error" },
    [-TERN_EINSTATUS] = { MPI_ERR_IN_STATUS, "error code is in status" },
    [-TERN_EKEYVAL] = { MPI_ERR_KEYVAL, "invalid attribute key" },
    [-TERN_EPENDING] = { MPI_ERR_PENDING, "request pending" },
    [-TERN_EOP] = { MPI_ERR_OP, "invalid reduction operation" },
    [-TERN_EGROUP] = { MPI_ERR_GROUP, "invalid group" },
    [-TERN_EROOT] = { MPI_ERR_ROOT, "invalid root" },
    [-TERN_EINFO] = { MPI_ERR_INFO, "invalid info object" },
    [-TERN_ENOTINIT] = { MPI_ERR_OTHER, "MPI is not initialized (called before MPI_Init or after MPI_Finalize)" },
    [-TERN_EDIMS] = { MPI_ERR_DIMS, "invalid dimensions" },
    [-TERN_ETOPOLOGY] = { MPI_ERR_TOPOLOGY, "invalid topology" },
    [-TERN_EINFO_KEY] = { MPI_ERR_INFO_KEY, "invalid info key" },
    [-TERN_EINFO_VALUE] = { MPI_ERR_INFO_VALUE, "invalid info value" },
    [-TERN_EINFO_NOKEY] = { MPI_ERR_INFO_NOKEY, "no such key in the info object" },
};

static const struct err_entry *lookup(int code)
{
    if (code > 0 || code <= -TERN_E_COUNT_ || (code < 0 && !table[-code].message))
        code = TERN_EINTERN;
    return &table[-code];
}

/* A positive code is an MPI error code that a program's callback returned
 * (a generalized request's query_fn, libmpi/api/greq_api.c): it is handed
 * on as it is. */
int tern_err_class(int code)
{
    return code > 0 ? code : lookup(code)->mpi_class;
}

const char *tern_err_message(int code)
{
    return code > 0 ? "a callback of the program returned an error" : lookup(code)->message;
}
