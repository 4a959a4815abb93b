/*
 * Error handlers: the three predefined ones and user handlers created with
 * MPI_Comm_create_errhandler. What a handler does when it fires is the API
 * layer's business (libmpi/api/error.c); this module only holds them.
 */
#ifndef TERN_CORE_ERRHANDLER_H
#define TERN_CORE_ERRHANDLER_H

#include <stdint.h>

#include <mpi.h>

enum tern_errh_kind {
    TERN_ERRH_FATAL,   /* MPI_ERRORS_ARE_FATAL */
    TERN_ERRH_RETURN,  /* MPI_ERRORS_RETURN */
    TERN_ERRH_ABORT,   /* MPI_ERRORS_ABORT */
    TERN_ERRH_USER     /* A function the user gave. */
};

struct tern_errhandler {
    uint32_t magic;
    enum tern_errh_kind kind;
    MPI_Comm_errhandler_function *fn;
    int refs;            /* Handles and communicators holding it. */
    MPI_Errhandler handle;
};

/* The handler behind a handle, or NULL if it is not a valid one. */
struct tern_errhandler *tern_errh_get(MPI_Errhandler h);

struct tern_errhandler *tern_errh_create(MPI_Comm_errhandler_function *fn);
void tern_errh_retain(struct tern_errhandler *e);
void tern_errh_release(struct tern_errhandler *e);

#endif
