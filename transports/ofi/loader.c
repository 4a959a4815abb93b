/*
 * Loading libfabric when a job needs it, not before.
 *
 * Debian's libfabric links the PSM libraries, and libinfinipath installs
 * handlers for SIGSEGV, SIGBUS and other fatal signals when it is loaded.
 * Linked into every MPI program, they would change how every crash ends
 * (an exit code instead of the signal, no core dump) and add the load time
 * to every job. So Tern opens libfabric.so.1 with dlopen() only when the
 * ofi transport is to be tried (see ofi.c), and puts the program's own
 * handlers for those signals back afterwards. Only the few functions that
 * libfabric exports are looked up; everything else in its API is an inline
 * call through the objects' ops tables.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "tern/err.h"
#include "transports/ofi/ofi.h"

#define LIBFABRIC "libfabric.so.1"

struct tern_fi_api tern_fi;

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])

static int load(char *err, size_t cap)
{
    struct sigaction saved[N_FATAL];
    for (size_t i = 0; i < N_FATAL; i++)
        sigaction(fatal_signals[i], NULL, &saved[i]);
    void *h = dlopen(LIBFABRIC, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; i < N_FATAL; i++)
        sigaction(fatal_signals[i], &saved[i], NULL);
    if (!h) {
        snprintf(err, cap, "cannot load %s (%s); install Debian's libfabric1 or your "
                 "fabric vendor's libfabric", LIBFABRIC, dlerror());
        return TERN_ENOTSUP;
    }
    struct tern_fi_api a = {
        .getinfo = (int (*)(uint32_t, const char *, const char *, uint64_t,
                            const struct fi_info *, struct fi_info **))dlsym(h, "fi_getinfo"),
        .freeinfo = (void (*)(struct fi_info *))dlsym(h, "fi_freeinfo"),
        .dupinfo = (struct fi_info * (*)(const struct fi_info *))dlsym(h, "fi_dupinfo"),
        .fabric = (int (*)(struct fi_fabric_attr *, struct fid_fabric **, void *))
                      dlsym(h, "fi_fabric"),
        .strerror = (const char *(*)(int))dlsym(h, "fi_strerror"),
        .version = (uint32_t (*)(void))dlsym(h, "fi_version"),
    };
    if (!a.getinfo || !a.freeinfo || !a.dupinfo || !a.fabric || !a.strerror || !a.version) {
        snprintf(err, cap, "%s lacks the libfabric 1.x functions Tern needs", LIBFABRIC);
        dlclose(h);
        return TERN_ENOTSUP;
    }
    tern_fi = a;
    return 0;
}

int tern_ofi_load(char *err, size_t cap)
{
    static int rc = 1;
    static char saved_err[300];
    if (rc == 1) {
        rc = load(saved_err, sizeof saved_err);
    }
    if (rc)
        snprintf(err, cap, "%s", saved_err);
    return rc;
}
