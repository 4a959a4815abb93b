/*
 * Which algorithm runs a collective call.
 *
 * Each collective has a menu (select.h): its algorithms and the function
 * that chooses among them, in select_reduce.c, select_scan.c,
 * select_rooted.c and select_move.c.
 * TERN_COLL_<NAME>=<algorithm> (for example TERN_COLL_BCAST=binomial)
 * forces an algorithm for every call of that collective it can run; the
 * tests use it to run each algorithm. Verbose level 2 prints the choice.
 */
#include <stdio.h>
#include <string.h>

#include "collectives/select.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"
#include "tern/log.h"

struct coll_table {
    const char *name;                /* "bcast": TERN_COLL_BCAST */
    const struct tern_coll_menu *menu;
    const struct tern_coll_algo *forced;
};

/* Bytes one rank contributes (its send buffer, or its receive buffer when
 * it sends in place). */
static size_t msg_bytes(const struct tern_coll_args *a)
{
    if (a->sdt && a->sbuf != MPI_IN_PLACE)
        return a->scount * a->sdt->size;
    return a->rdt ? a->rcount * a->rdt->size : 0;
}

int tern_coll_commutative(const struct tern_coll_args *a)
{
    return a->op->commute;
}

/* The tables ------------------------------------------------------------- */

static struct coll_table tables[TERN_COLL_NKINDS] = {
    [TERN_COLL_BARRIER] = { "barrier", &tern_coll_menu_barrier, NULL },
    [TERN_COLL_BCAST] = { "bcast", &tern_coll_menu_bcast, NULL },
    [TERN_COLL_REDUCE] = { "reduce", &tern_coll_menu_reduce, NULL },
    [TERN_COLL_ALLREDUCE] = { "allreduce", &tern_coll_menu_allreduce, NULL },
    [TERN_COLL_GATHER] = { "gather", &tern_coll_menu_gather, NULL },
    [TERN_COLL_GATHERV] = { "gatherv", &tern_coll_menu_gatherv, NULL },
    [TERN_COLL_SCATTER] = { "scatter", &tern_coll_menu_scatter, NULL },
    [TERN_COLL_SCATTERV] = { "scatterv", &tern_coll_menu_scatterv, NULL },
    [TERN_COLL_ALLGATHER] = { "allgather", &tern_coll_menu_allgather, NULL },
    [TERN_COLL_ALLGATHERV] = { "allgatherv", &tern_coll_menu_allgatherv, NULL },
    [TERN_COLL_ALLTOALL] = { "alltoall", &tern_coll_menu_alltoall, NULL },
    [TERN_COLL_ALLTOALLV] = { "alltoallv", &tern_coll_menu_alltoallv, NULL },
    [TERN_COLL_ALLTOALLW] = { "alltoallw", &tern_coll_menu_alltoallv, NULL },
    [TERN_COLL_REDUCE_SCATTER] = { "reduce_scatter", &tern_coll_menu_reduce_scatter, NULL },
    [TERN_COLL_REDUCE_SCATTER_BLOCK] = { "reduce_scatter_block",
                                         &tern_coll_menu_reduce_scatter, NULL },
    [TERN_COLL_SCAN] = { "scan", &tern_coll_menu_scan, NULL },
    [TERN_COLL_EXSCAN] = { "exscan", &tern_coll_menu_exscan, NULL },
    [TERN_COLL_NEIGHBOR_ALLGATHER] = { "neighbor_allgather", &tern_coll_menu_neighbor, NULL },
    [TERN_COLL_NEIGHBOR_ALLGATHERV] = { "neighbor_allgatherv", &tern_coll_menu_neighbor, NULL },
    [TERN_COLL_NEIGHBOR_ALLTOALL] = { "neighbor_alltoall", &tern_coll_menu_neighbor, NULL },
    [TERN_COLL_NEIGHBOR_ALLTOALLV] = { "neighbor_alltoallv", &tern_coll_menu_neighbor, NULL },
    [TERN_COLL_NEIGHBOR_ALLTOALLW] = { "neighbor_alltoallw", &tern_coll_menu_neighbor, NULL },
};

const char *tern_coll_kind_name(enum tern_coll_kind kind)
{
    return tables[kind].name;
}

/* "MPI_Reduce_scatter_block" for the table named "reduce_scatter_block". */
static char calls[TERN_COLL_NKINDS][40];

void tern_coll_read_tunables(void)
{
    /* The registry keeps the name and help pointers, so they live here. */
    static char vars[TERN_COLL_NKINDS][64], helps[TERN_COLL_NKINDS][256];
    for (int k = 0; k < TERN_COLL_NKINDS; k++) {
        struct coll_table *t = &tables[k];
        const struct tern_coll_menu *m = t->menu;
        if (!m)
            continue;
        char *var = vars[k], *help = helps[k];
        snprintf(calls[k], sizeof(calls[k]), "MPI_%c%s", t->name[0] - 'a' + 'A', t->name + 1);
        int off = snprintf(help, sizeof(helps[k]), "Algorithm of %s: auto", calls[k]);
        for (int i = 0; i < m->nalgos && off < (int)sizeof(helps[k]); i++)
            off += snprintf(help + off, sizeof(helps[k]) - (size_t)off, "%s %s",
                            i == m->nalgos - 1 ? " or" : ",", m->algos[i].name);
        snprintf(var, sizeof(vars[k]), "TERN_COLL_%s", t->name);
        for (char *c = var; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        const char *v = tern_env_str(var, "auto", help);
        t->forced = NULL;
        for (int i = 0; i < m->nalgos; i++)
            if (!strcmp(v, m->algos[i].name))
                t->forced = &m->algos[i];
        if (!t->forced && strcmp(v, "auto"))
            tern_log("%s=%s names no algorithm of %s; choosing automatically "
                     "(see tern-info for the names)", var, v, calls[k]);
    }
}

const char *tern_coll_call_name(enum tern_coll_kind kind)
{
    return calls[kind];
}

int tern_coll_algo_index(enum tern_coll_kind kind, const struct tern_coll_algo *algo)
{
    const struct tern_coll_menu *m = tables[kind].menu;
    return algo >= m->algos && algo < m->algos + m->nalgos ? (int)(algo - m->algos) : 0;
}

int tern_coll_builder_index(enum tern_coll_kind kind, tern_coll_builder *build)
{
    const struct tern_coll_menu *m = tables[kind].menu;
    for (int i = 0; i < m->nalgos; i++)
        if (m->algos[i].build == build)
            return i;
    return 0;
}

const char *tern_coll_algo_name(enum tern_coll_kind kind, int index)
{
    const struct tern_coll_menu *m = tables[kind].menu;
    return index < m->nalgos ? m->algos[index].name : "(unknown)";
}

const struct tern_coll_algo *tern_coll_choose(const struct tern_coll_args *a)
{
    return tables[a->kind].menu->choose(a);
}

int tern_coll_may_skip_select(enum tern_coll_kind kind, tern_coll_builder *build)
{
    const struct tern_coll_algo *f = tables[kind].forced;
    return tern_verbose < 2 && (!f || f->build == build);
}

const struct tern_coll_algo *tern_coll_select(const struct tern_coll_args *a)
{
    const struct coll_table *t = &tables[a->kind];
    if (!t->menu)
        return NULL;
    const struct tern_coll_algo *algo = t->forced;
    if (algo && algo->usable && !algo->usable(a)) {
        TERN_LOG(1, "%s: algorithm %s cannot run this call; choosing another",
                 calls[a->kind], algo->name);
        algo = NULL;
    }
    if (!algo)
        algo = t->menu->choose(a);
    TERN_LOG(2, "%s on %d ranks, %zu bytes: %s", calls[a->kind], a->size,
             msg_bytes(a), algo->name);
    return algo;
}
