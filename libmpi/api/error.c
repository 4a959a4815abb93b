/*
 * Error reporting for the API layer: the one-line message, the handlers,
 * and the entry for functions that are not implemented yet.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "libmpi/api/api.h"
#include "libmpi/core/errclass.h"
#include "libmpi/core/errhandler.h"
#include "libmpi/core/runtime.h"
#include "tern/boot.h"
#include "tern/err.h"
#include "tern/log.h"

static __thread char detail[256];

void tern_api_detail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
}

void tern_api_die(const char *fn, int mpi_class, const char *what)
{
    /* The launcher prints the line, naming rank, pid and host; only when it
     * cannot be told does the rank print it itself. */
    char line[512];
    snprintf(line, sizeof(line), "%s: %s (%s)", fn, what, tern_errclass_name(mpi_class));
    tern_api_end_job(mpi_class > 0 && mpi_class < 256 ? mpi_class : 1, line);
}

void tern_api_end_job(int code, const char *line)
{
    /* What the program printed must reach mpirun before it ends the job. */
    tern_flush_stdio();
    if (!tern_rt.initialized || tern_rt.boot.singleton || tern_boot_abort(code, line) != 0)
        tern_log("%s", line);
    _exit(code & 0xff ? code & 0xff : 1);
}

int tern_api_error(struct tern_comm *comm, const char *fn, int code)
{
    int cls = tern_err_class(code);
    const char *what = detail[0] ? detail : tern_err_message(code);
    char msg[256];
    snprintf(msg, sizeof(msg), "%s", what);
    detail[0] = '\0';

    if (!tern_rt_active() || (!comm && !(comm = tern_comm_self())))
        tern_api_die(fn, cls, msg);
    struct tern_errhandler *e = comm->errh;
    switch (e->kind) {
    case TERN_ERRH_RETURN:
        TERN_LOG(1, "%s: %s (%s), returned to the caller", fn, msg, tern_errclass_name(cls));
        return cls;
    case TERN_ERRH_USER: {
        MPI_Comm h = comm->handle;
        int c = cls;
        e->fn(&h, &c);
        return cls;
    }
    default:
        tern_api_die(fn, cls, msg);
    }
}

int tern_api_unsupported(const char *fn)
{
    tern_api_detail("%s is not implemented in this version of Tern "
                    "(see the README for the list of implemented functions)", fn);
    return tern_api_error(NULL, fn, TERN_ENOTSUP);
}
