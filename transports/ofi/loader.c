/*
 * Loading libfabric when a job needs it, not before.
 *
 * Debian's libfabric links the PSM libraries, and libinfinipath installs
 * handlers for SIGSEGV, SIGBUS, SIGTERM, SIGINT and other signals when it
 * is loaded. Linked into every MPI program, they would change how every
 * crash ends (an exit code instead of the signal, no core dump) and add
 * the load time to every job. So Tern opens libfabric.so.1 with dlopen()
 * only when the ofi transport is to be tried (see ofi.c), and puts the
 * program's own handlers for every signal back afterwards (also after the
 * first fi_getinfo and after opening the endpoint, which load and start
 * providers). Only the few functions that
 * libfabric exports are looked up; everything else in its API is an inline
 * call through the objects' ops tables.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tern/err.h"
#include "transports/ofi/ofi.h"

#define LIBFABRIC "libfabric.so.1"

struct tern_fi_api tern_fi;

void tern_ofi_signals_save(struct ofi_signals *s)
{
    for (int i = 1; i < NSIG; i++)
        sigaction(i, NULL, &s->sa[i]);
}

void tern_ofi_signals_restore(const struct ofi_signals *s)
{
    for (int i = 1; i < NSIG; i++)
        if (i != SIGKILL && i != SIGSTOP)
            sigaction(i, &s->sa[i], NULL);
}

/* libfabric's shm provider hands a packet larger than its inject size to
 * the receiver by CMA, and while no receive matches such a packet, that
 * send holds back every later send of the endpoint (ofiwg/libfabric#9853,
 * open in 1.17 and since). Tern cannot always have a buffer posted when a
 * packet arrives: 3 ranks each sending 40 pipelined 160 KiB messages to
 * both others hung every time under that provider, and pass with its CMA
 * off (it then copies through its own buffers). A user's own setting wins.
 * Only that provider reads the variable, and Tern's shm transport, not
 * libfabric, carries traffic within a host unless told otherwise. */
static void avoid_known_provider_bugs(void)
{
    setenv("FI_SHM_DISABLE_CMA", "1", 0);
}

static int load(char *err, size_t cap)
{
    struct ofi_signals saved;
    avoid_known_provider_bugs();
    tern_ofi_signals_save(&saved);
    void *h = dlopen(LIBFABRIC, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        tern_ofi_signals_restore(&saved);
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
        tern_ofi_signals_restore(&saved);
        return TERN_ENOTSUP;
    }
    /* The first fi_getinfo loads and starts every provider; some set
     * handlers then. */
    struct fi_info *all = NULL;
    if (a.getinfo(FI_VERSION(1, 9), NULL, NULL, 0, NULL, &all) == 0)
        a.freeinfo(all);
    tern_ofi_signals_restore(&saved);
    tern_fi = a;
    return 0;
}

int tern_ofi_load(char *err, size_t cap)
{
    static int rc = 1; /* 1: not tried yet. */
    static char why[300];
    if (rc == 1)
        rc = load(why, sizeof why);
    if (rc)
        snprintf(err, cap, "%s", why);
    return rc;
}
