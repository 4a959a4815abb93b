/*
 * The automatic choice for the rooted collectives that move blocks: Gather,
 * Scatter and their v forms. As in select_reduce.c: each collective's
 * algorithms and the function that picks one, with the thresholds named
 * and the measurements behind them (select.h).
 */
#include "collectives/nodes.h"
#include "collectives/select.h"

/* Gather, Scatter and their v forms ---------------------------------------- */

/* Bytes of one rank's block, as every rank sees it: the root's receive
 * (gather) or send (scatter) side, the others' send or receive side. The
 * signatures match, so all ranks compute the same value and choose alike. */
static size_t rooted_block_bytes(const struct tern_coll_args *a, int gather)
{
    int root = a->rank == a->root;
    if (root == gather)
        return a->rcount * a->rdt->size;
    return a->scount * a->sdt->size;
}

/* From this block size on, gather and scatter send every block straight
 * between the root and its rank instead of relaying blocks along the
 * binomial tree, whose middle ranks copy what they relay. Measured (as
 * for Bcast, select_reduce.c), block bytes: us binomial / linear. Gather p = 4: 2 KiB 1.1 / 1.0,
 * 8 KiB 31 / 6.9, 32 KiB 282 / 30, 128 KiB 124 / 77; scatter p = 4: 2 KiB
 * 0.8 / 1.2, 8 KiB 18 / 12, 32 KiB 63 / 16, 128 KiB 151 / 60; below 2 KiB
 * the tree's fewer messages at the root win (p = 4, 16 B: 0.5 / 6.7 and
 * 0.6 / 0.7). On 8 oversubscribed ranks linear often won even for small
 * blocks, but with noise above the differences. */
#define TERN_GATHER_LINEAR_MIN (4 * 1024)
#define TERN_SCATTER_LINEAR_MIN (4 * 1024)

/* Gather and Scatter in two levels (node-aware), on a communicator that
 * spans several hosts with several ranks on one, for the blocks where the
 * flat choice would be the binomial tree, and only when the ranks are not
 * placed host by host. A binomial tree over ranks in host order already
 * crosses the network about once per host (its subtrees are runs of
 * neighbouring ranks); over ranks placed round-robin almost every edge
 * crosses it. From TERN_GATHER_LINEAR_MIN on, linear sends every block
 * straight to or from the root. Measured on the cluster of tests/cluster
 * (6 ranks on 3 hosts, whose network is as fast as their shared memory;
 * medians of 3, us, two_level / binomial): round-robin, Gather 8 B 13.4 /
 * 16.2, 1 KiB 18.9 / 18.1; Scatter 8 B 36.7 / 51.4, 1 KiB 43.9 / 69.5;
 * in host order binomial won (Gather 8 B 15.8 / 11.9, Scatter 1 KiB 43.6 /
 * 30.1). */
static int two_level_scattered(const struct tern_coll_args *a)
{
    return tern_coll_two_level_usable(a) && !tern_coll_nodes(a->comm)->host_ordered;
}

static const struct tern_coll_algo gather_algos[] = {
    { .name = "binomial", .build = tern_coll_gather_binomial },
    { .name = "linear", .build = tern_coll_gather_linear },
    { .name = "two_level", .build = tern_coll_gather_two_level,
      .usable = tern_coll_two_level_usable },
};

static const struct tern_coll_algo *choose_gather(const struct tern_coll_args *a)
{
    int linear = rooted_block_bytes(a, 1) >= TERN_GATHER_LINEAR_MIN;
    if (!linear && two_level_scattered(a))
        return &gather_algos[2];
    return &gather_algos[linear];
}

/* Gatherv and Scatterv in two levels, on the same layouts as Gather and
 * Scatter (two_level_scattered): a rank other than the root knows only
 * its own block's size, so unlike Gather's the rule cannot look at the
 * blocks (ranks that chose differently would wait for each other). Over
 * interleaved ranks two levels won for small blocks and lost little for
 * large ones; in host order they won for small blocks but lost most for
 * large ones, so they are left to TERN_COLL_<NAME> there. Measured on the
 * cluster of tests/cluster (2026-12-04, load average 3 to 5 while
 * measuring; equal blocks of MPI_BYTE, root 0; medians of 5, us, slowest
 * rank, two_level / linear): 3+2+2 ranks round-robin, Gatherv 8 B 50.8 /
 * 98.6, 1 KiB 66.0 / 871, 16 KiB 528 / 530, 64 KiB 663 / 535, 256 KiB
 * 691 / 1463; Scatterv 8 B 42.7 / 61.1, 1 KiB 46.2 / 60.9, 16 KiB 193 /
 * 104, 64 KiB 816 / 378, 256 KiB 1005 / 874. 2 per host in host order:
 * Gatherv 8 B 56.2 / 102, 1 KiB 94.0 / 101, 64 KiB 3651 / 968; Scatterv
 * 8 B 44.8 / 101, 1 KiB 72.5 / 118, 64 KiB 5303 / 1124. */
static const struct tern_coll_algo gatherv_algos[] = {
    { .name = "linear", .build = tern_coll_gatherv_linear },
    { .name = "two_level", .build = tern_coll_gatherv_two_level,
      .usable = tern_coll_two_level_usable },
};

static const struct tern_coll_algo *choose_gatherv(const struct tern_coll_args *a)
{
    return &gatherv_algos[two_level_scattered(a)];
}

static const struct tern_coll_algo scatter_algos[] = {
    { .name = "binomial", .build = tern_coll_scatter_binomial },
    { .name = "linear", .build = tern_coll_scatter_linear },
    { .name = "two_level", .build = tern_coll_scatter_two_level,
      .usable = tern_coll_two_level_usable },
};

static const struct tern_coll_algo *choose_scatter(const struct tern_coll_args *a)
{
    int linear = rooted_block_bytes(a, 0) >= TERN_SCATTER_LINEAR_MIN;
    if (!linear && two_level_scattered(a))
        return &scatter_algos[2];
    return &scatter_algos[linear];
}

static const struct tern_coll_algo scatterv_algos[] = {
    { .name = "linear", .build = tern_coll_scatterv_linear },
    { .name = "two_level", .build = tern_coll_scatterv_two_level,
      .usable = tern_coll_two_level_usable },
};

static const struct tern_coll_algo *choose_scatterv(const struct tern_coll_args *a)
{
    return &scatterv_algos[two_level_scattered(a)];
}

/* The menus ------------------------------------------------------------- */

const struct tern_coll_menu tern_coll_menu_gather =
    TERN_COLL_MENU(gather_algos, choose_gather);
const struct tern_coll_menu tern_coll_menu_gatherv =
    TERN_COLL_MENU(gatherv_algos, choose_gatherv);
const struct tern_coll_menu tern_coll_menu_scatter =
    TERN_COLL_MENU(scatter_algos, choose_scatter);
const struct tern_coll_menu tern_coll_menu_scatterv =
    TERN_COLL_MENU(scatterv_algos, choose_scatterv);
