/*
 * Internal error codes.
 *
 * Every internal function returns 0 on success or a negative TERN_E* code.
 * The table in libmpi/core/errors.c gives each code its MPI error class and
 * a message; only libmpi/api/ turns a code into an MPI_ERR_* class and calls
 * the communicator's error handler. Code outside libmpi (launcher, tools)
 * uses the same codes and tern_err_message() for its own messages.
 */
#ifndef TERN_ERR_H
#define TERN_ERR_H

enum tern_err {
    TERN_OK = 0,
    TERN_ENOMEM = -1,      /* Out of memory. */
    TERN_EINVAL = -2,      /* Invalid argument (generic). */
    TERN_EAGAIN = -3,      /* Resource busy: try again after progress. */
    TERN_EIO = -4,         /* A system call on a socket, pipe or file failed. */
    TERN_ETRUNCATE = -5,   /* Message longer than the receive buffer. */
    TERN_EPEER = -6,       /* A peer process died or closed its connection. */
    TERN_EAUTH = -7,       /* A connection failed the job-secret handshake. */
    TERN_EPROTO = -8,      /* A malformed message on the wire. */
    TERN_ENOTSUP = -9,     /* Not supported by this build or this transport. */
    TERN_ESHM = -10,       /* Shared memory could not be created or mapped. */
    TERN_ETIMEDOUT = -11,  /* A bounded wait expired. */
    TERN_ENOTFOUND = -12,  /* A key or object does not exist. */
    TERN_EINTERN = -13,    /* Internal inconsistency: a bug in Tern. */
    TERN_ECOUNT = -14,     /* Invalid count. */
    TERN_ETYPE = -15,      /* Invalid datatype. */
    TERN_ETAG = -16,       /* Invalid tag. */
    TERN_ECOMM = -17,      /* Invalid communicator. */
    TERN_ERANK = -18,      /* Invalid rank. */
    TERN_EREQUEST = -19,   /* Invalid request. */
    TERN_EBUFFER = -20,    /* Invalid buffer pointer. */
    TERN_EARG = -21,       /* Invalid argument of another kind. */
    TERN_EERRHANDLER = -22,/* Invalid error handler. */
    TERN_EOTHER = -23,     /* Known error not in another class (MPI_ERR_OTHER). */
    TERN_EINSTATUS = -24,  /* Error recorded in a status (MPI_ERR_IN_STATUS). */
    TERN_EKEYVAL = -25,    /* Invalid attribute key. */
    TERN_EPENDING = -26,   /* Request not completed (MPI_ERR_PENDING). */
    TERN_EOP = -27,        /* Invalid reduction operation. */
    TERN_EGROUP = -28,     /* Invalid group. */
    TERN_EROOT = -29,      /* Invalid root. */
    TERN_EINFO = -30,      /* Invalid info object. */
    TERN_ENOTINIT = -31,   /* Called before MPI_Init or after MPI_Finalize. */
    TERN_EDIMS = -32,      /* Invalid dimensions (MPI_Dims_create, MPI_Cart_create). */
    TERN_ETOPOLOGY = -33,  /* The communicator has no topology of the kind asked for. */
    TERN_EINFO_KEY = -34,  /* An info key empty or too long. */
    TERN_EINFO_VALUE = -35,/* An info value empty or too long. */
    TERN_EINFO_NOKEY = -36,/* An info object does not hold the key. */
    TERN_E_COUNT_ = 37     /* Number of codes, for the table; not a code. */
};

/* The MPI error class of a code (MPI_SUCCESS for 0); a positive code is an
 * MPI error code from a callback of the program, handed on as it is. */
int tern_err_class(int code);

/* A one-line, human-readable description of a code. */
const char *tern_err_message(int code);

#endif
