/*
 * MPI_Init and friends: start-up, shut-down, versions, clocks and names.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collectives/coll.h"
#include "libmpi/api/api.h"
#include "libmpi/core/runtime.h"
#include "libmpi/p2p/p2p.h"
#include "tern/boot.h"
#include "tern/err.h"
#include "tern/log.h"

struct tern_runtime tern_rt;

static int start(int required, int *provided)
{
    if (tern_rt.initialized) {
        tern_api_detail(tern_rt.finalized ? "MPI cannot be initialized again after MPI_Finalize"
                                          : "MPI is already initialized");
        return TERN_EOTHER;
    }
    int rc = tern_boot_init(&tern_rt.boot);
    if (rc) {
        tern_api_detail("cannot reach the launcher's wire-up service: %s", tern_err_message(rc));
        return rc;
    }
    char prefix[320];
    snprintf(prefix, sizeof(prefix), "rank %d (%s)", tern_rt.boot.rank, tern_rt.boot.hostname);
    tern_log_set_prefix(prefix);
    rc = tern_comm_init(tern_rt.boot.rank, tern_rt.boot.size);
    if (!rc)
        rc = tern_p2p_init(&tern_rt.boot);
    tern_coll_init();
    if (rc) {
        tern_api_detail("start-up failed: %s", tern_err_message(rc));
        return rc;
    }
    /* MPI_THREAD_MULTIPLE is not provided yet; the others need no locks. */
    tern_rt.thread_level = required == MPI_THREAD_MULTIPLE ? MPI_THREAD_SERIALIZED : required;
    if (required != MPI_THREAD_SINGLE && required != MPI_THREAD_FUNNELED &&
        required != MPI_THREAD_SERIALIZED && required != MPI_THREAD_MULTIPLE)
        tern_rt.thread_level = MPI_THREAD_SINGLE;
    if (provided)
        *provided = tern_rt.thread_level;
    tern_rt.main_thread = pthread_self();
    tern_rt.initialized = 1;
    return 0;
}

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    int rc = start(MPI_THREAD_SINGLE, NULL);
    return rc ? tern_api_error(NULL, "MPI_Init", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    int rc = tern_check_ptr(provided, "provided");
    if (!rc)
        rc = start(required, provided);
    return rc ? tern_api_error(NULL, "MPI_Init_thread", rc) : MPI_SUCCESS;
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void)
{
    int rc = tern_check_init();
    /* The standard: MPI_COMM_SELF's attributes are deleted first, while
     * everything still works, so their callbacks may call MPI. */
    if (!rc)
        rc = tern_comm_finalize_attrs();
    if (!rc) {
        tern_coll_finalizing();
        rc = tern_p2p_quiesce();
        if (!rc)
            tern_coll_report_leftovers();
        int rc2 = tern_p2p_finalize();
        rc = rc ? rc : rc2;
    }
    if (rc)
        return tern_api_error(NULL, "MPI_Finalize", rc);
    tern_boot_finalize();
    tern_comm_finalize();
    tern_rt.finalized = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int *flag)
{
    int rc = tern_check_ptr(flag, "flag");
    if (rc)
        return tern_api_error(NULL, "MPI_Initialized", rc);
    *flag = tern_rt.initialized;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int *flag)
{
    int rc = tern_check_ptr(flag, "flag");
    if (rc)
        return tern_api_error(NULL, "MPI_Finalized", rc);
    *flag = tern_rt.finalized;
    return MPI_SUCCESS;
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int *provided)
{
    int rc = tern_check_ptr(provided, "provided");
    if (rc)
        return tern_api_error(NULL, "MPI_Query_thread", rc);
    *provided = tern_rt.thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int *flag)
{
    int rc = tern_check_ptr(flag, "flag");
    if (!rc)
        rc = tern_check_init();
    if (rc)
        return tern_api_error(NULL, "MPI_Is_thread_main", rc);
    *flag = pthread_equal(pthread_self(), tern_rt.main_thread);
    return MPI_SUCCESS;
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[256];
    struct tern_comm *c = tern_comm_get(comm);
    snprintf(msg, sizeof(msg), "MPI_Abort(%s, %d) was called",
             c ? c->name : "invalid communicator", errorcode);
    tern_api_end_job(errorcode, msg);
}

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char *name, int *resultlen)
{
    int rc = tern_check_ptr(name, "name");
    if (!rc)
        rc = tern_check_ptr(resultlen, "resultlen");
    if (rc)
        return tern_api_error(NULL, "MPI_Get_processor_name", rc);
    char host[MPI_MAX_PROCESSOR_NAME];
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int *version, int *subversion)
{
    int rc = tern_check_ptr(version, "version");
    if (!rc)
        rc = tern_check_ptr(subversion, "subversion");
    if (rc)
        return tern_api_error(NULL, "MPI_Get_version", rc);
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char *version, int *resultlen)
{
    int rc = tern_check_ptr(version, "version");
    if (!rc)
        rc = tern_check_ptr(resultlen, "resultlen");
    if (rc)
        return tern_api_error(NULL, "MPI_Get_library_version", rc);
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "Tern %s (MPI %d.%d, standard ABI %d.%d)", PACKAGE_VERSION,
                     MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION);
    *resultlen = n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Abi_get_version = PMPI_Abi_get_version
int PMPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    int rc = tern_check_ptr(abi_major, "abi_major");
    if (!rc)
        rc = tern_check_ptr(abi_minor, "abi_minor");
    if (rc)
        return tern_api_error(NULL, "MPI_Abi_get_version", rc);
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* For profiling tools that interpose on PMPI_Pcontrol; the library itself
 * does nothing with it, as the standard says. */
#pragma weak MPI_Pcontrol = PMPI_Pcontrol
int PMPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
