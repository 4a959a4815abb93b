/*
 * tern-info: what this Tern build is and how it is configured here: the
 * version and ABI, the transports compiled in and allowed, and every
 * tunable with its current value and where that value came from.
 */
#include "config.h"

#include <stdio.h>

#include <mpi.h>

#include "collectives/coll.h"
#include "tern/env.h"
#include "libmpi/p2p/p2p.h"
#include "transports/registry.h"

int main(void)
{
    printf("Tern %s\n", PACKAGE_VERSION);
    printf("MPI standard %d.%d, standard ABI %d.%d (libmpi_abi.so.0)\n",
           MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION);

    const struct tern_tp_ops *const *list;
    int n = tern_tp_list(&list);
    printf("transports allowed:");
    for (int i = 0; i < n; i++)
        printf(" %s", list[i]->name);
    printf("\n");

    tern_p2p_read_tunables(0);
    tern_coll_read_tunables();
    for (int i = 0; i < n; i++)
        if (list[i]->tunables)
            list[i]->tunables();
    for (int i = 0; i < n; i++)
        if (list[i]->about)
            list[i]->about();
    printf("\ntunables (environment variables):\n");
    for (int i = 0; i < tern_env_count(); i++) {
        const struct tern_env_entry *e = tern_env_get(i);
        if (e->from_env)
            printf("  %s=%s (from the environment; default %s)\n", e->name, e->value,
                   e->dflt[0] ? e->dflt : "\"\"");
        else
            printf("  %s=%s (default)\n", e->name, e->value);
        printf("      %s\n", e->help);
    }
    return 0;
}
