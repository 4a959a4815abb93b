/*
 * Error handler objects. Predefined handlers are static and never freed;
 * user handlers are reference counted, since a communicator may still use a
 * handler whose handle the user freed.
 */
#include <stdlib.h>

#include "libmpi/core/errhandler.h"
#include "libmpi/core/object.h"

static struct tern_errhandler predefined[] = {
    { TERN_MAGIC_ERRH, TERN_ERRH_FATAL, NULL, 1, MPI_ERRORS_ARE_FATAL },
    { TERN_MAGIC_ERRH, TERN_ERRH_RETURN, NULL, 1, MPI_ERRORS_RETURN },
    { TERN_MAGIC_ERRH, TERN_ERRH_ABORT, NULL, 1, MPI_ERRORS_ABORT },
};

struct tern_errhandler *tern_errh_get(MPI_Errhandler h)
{
    for (size_t i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++)
        if (predefined[i].handle == h)
            return &predefined[i];
    if (tern_handle_is_predefined(h) || !tern_obj_known(h))
        return NULL;
    struct tern_errhandler *e = (struct tern_errhandler *)h;
    return e->magic == TERN_MAGIC_ERRH ? e : NULL;
}

struct tern_errhandler *tern_errh_create(MPI_Comm_errhandler_function *fn)
{
    struct tern_errhandler *e = calloc(1, sizeof(*e));
    if (!e || tern_obj_add(e)) {
        free(e);
        return NULL;
    }
    e->magic = TERN_MAGIC_ERRH;
    e->kind = TERN_ERRH_USER;
    e->fn = fn;
    e->refs = 1;
    e->handle = (MPI_Errhandler)e;
    return e;
}

void tern_errh_retain(struct tern_errhandler *e)
{
    if (e->kind == TERN_ERRH_USER)
        e->refs++;
}

void tern_errh_release(struct tern_errhandler *e)
{
    if (e->kind == TERN_ERRH_USER && --e->refs == 0) {
        e->magic = TERN_MAGIC_DEAD;
        tern_obj_remove(e);
        free(e);
    }
}
