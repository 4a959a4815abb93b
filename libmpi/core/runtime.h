/*
 * Process-wide state of the library: whether MPI is initialized, the thread
 * level, and what the launcher told this rank at wire-up.
 */
#ifndef TERN_CORE_RUNTIME_H
#define TERN_CORE_RUNTIME_H

#include <pthread.h>

#include "tern/boot.h"

struct tern_runtime {
    int initialized;    /* MPI_Init returned. */
    int finalized;      /* MPI_Finalize returned. */
    int thread_level;   /* The MPI_THREAD_* level provided. */
    pthread_t main_thread;
    struct tern_boot_info boot;
};

extern struct tern_runtime tern_rt;

/* 1 between MPI_Init and MPI_Finalize. */
static inline int tern_rt_active(void)
{
    return tern_rt.initialized && !tern_rt.finalized;
}

#endif
