/*
 * The automatic choice for the reductions that leave each rank its own
 * part of the result: Reduce_scatter(_block), Scan and Exscan (select.h).
 * The measurements on the network-namespace cluster are taken as described
 * in select_reduce.c.
 */
#include "collectives/nodes.h"
#include "collectives/select.h"

/* Reduce_scatter and Reduce_scatter_block ---------------------------------- */

/* Reduce_scatter: below this many bytes in the whole vector, on more than
 * REDUCE_SCATTER_TREE_MIN_RANKS ranks, reduce + scatterv (2 log2 p steps,
 * the whole vector on each level of the reduce) beats the ring (p - 1
 * steps, each block once). Up to 8 ranks the ring was never slower here.
 * Measured, MPI_Reduce_scatter_block of doubles, us, ring /
 * reduce_scatterv (Open MPI): 2 ranks 1 KiB 0.79 / 1.40 (1.06), 64 KiB
 * 3.6 / 8.2 (11.8), 1 MiB 50 / 88 (4467); 8 ranks (oversubscribed) 1 KiB
 * 98 / 209 (121), 16 KiB 111 / 150 (161), 1 MiB 2061 / 1573 (43560). */
#define REDUCE_SCATTER_SHORT_MSG (16 * 1024)
#define REDUCE_SCATTER_TREE_MIN_RANKS 9

/* Reduce_scatter in two levels reduces the whole vector within each host
 * and leaves the non-leaders idle meanwhile, against the ring's (p - 1)/p
 * of it per rank; it wins while the vector is short. Measured on the
 * cluster of tests/cluster as at the top (6 ranks, 2 per host), medians of
 * 5, us, MPI_Reduce_scatter_block of floats, two_level / ring (Open MPI),
 * by the whole vector: 48 B 114 / 144 (147), 6 KiB 138 / 141 (154),
 * 48 KiB 212 / 320 (229), 384 KiB 1099 / 931 (1295). So below this many
 * bytes in the whole vector: */
#define REDUCE_SCATTER_TWO_LEVEL_MAX (64 * 1024)

static const struct tern_coll_algo reduce_scatter_algos[] = {
    { .name = "ring", .build = tern_coll_reduce_scatter_ring, .usable = tern_coll_commutative },
    { .name = "reduce_scatterv", .build = tern_coll_reduce_scatter_reduce_scatterv },
    { .name = "two_level", .build = tern_coll_reduce_scatter_two_level,
      .usable = tern_coll_two_level_commutative },
};

static const struct tern_coll_algo *choose_reduce_scatter(const struct tern_coll_args *a)
{
    int p = a->size;
    size_t total = 0;
    if (a->kind == TERN_COLL_REDUCE_SCATTER)
        for (int i = 0; i < p; i++)
            total += a->rcounts[i];
    else
        total = a->rcount * (size_t)p;
    total *= a->rdt->size;
    if (total < REDUCE_SCATTER_TWO_LEVEL_MAX && tern_coll_two_level_commutative(a))
        return &reduce_scatter_algos[2];
    if (!tern_coll_commutative(a) ||
        (p >= REDUCE_SCATTER_TREE_MIN_RANKS && total < REDUCE_SCATTER_SHORT_MSG))
        return &reduce_scatter_algos[1];
    return &reduce_scatter_algos[0];
}

/* Scan and Exscan ---------------------------------------------------------- */

/* Scan and Exscan: from this many bytes on, on more than two ranks, the
 * pipelined chain (about n (beta + gamma) plus a step per rank) beats
 * the doublings (log2 p n (beta + gamma) or more). On 2 ranks both send
 * one message. Measured, MPI_Scan of doubles, us, recursive doubling /
 * chain (Open MPI), oversubscribed so noisy: 4 ranks 16 KiB 21 / 81 (21),
 * 64 KiB 114 / 67 (32), 1 MiB 1194 / 267-460 (382); 3 ranks 64 KiB 66 / 19
 * (41), 1 MiB 495 / 341-396 (311). */
#define SCAN_CHAIN_MIN_MSG (64 * 1024)

/* Scan and Exscan in two levels: only where each host's ranks are
 * neighbours (scan_two_level.c), and below the chain's threshold, where
 * the flat choice was recursive doubling when this was measured (it is
 * now Hillis and Steele's doubling, below). Measured as for Reduce_scatter
 * above, MPI_Scan of floats, us, two_level / recursive doubling or chain
 * (Open MPI): 8 B 60 / 80 (13), 8 KiB 84 / 102 (52), 64 KiB 353 / 182
 * chain (218), 1 MiB 12822 / 6926 chain (3855). (In a loop of calls a
 * chain pipelines from one call into the next, which is what Open MPI's
 * 8-byte figure shows: Tern's chain took 23 us there, against 113 for
 * two_level in the same noisy run; one call alone waits for p - 1 hops.) */
static int two_level_ordered(const struct tern_coll_args *a)
{
    return tern_coll_two_level_usable(a) && tern_coll_nodes(a->comm)->host_ordered;
}

static const struct tern_coll_algo scan_algos[] = {
    { .name = "recursive_doubling", .build = tern_coll_scan_recursive_doubling },
    { .name = "chain", .build = tern_coll_scan_chain },
    { .name = "two_level", .build = tern_coll_scan_two_level, .usable = two_level_ordered },
    { .name = "hillis_steele", .build = tern_coll_scan_hillis_steele },
};

static const struct tern_coll_algo exscan_algos[] = {
    { .name = "recursive_doubling", .build = tern_coll_exscan_recursive_doubling },
    { .name = "chain", .build = tern_coll_exscan_chain },
    { .name = "two_level", .build = tern_coll_exscan_two_level, .usable = two_level_ordered },
    { .name = "hillis_steele", .build = tern_coll_exscan_hillis_steele },
};

/* Below the chain's threshold, Hillis and Steele's doubling rather than
 * recursive doubling: both take ceil(log2 p) steps, but in the former no
 * rank waits for a higher one, so in a loop of calls the lower ranks run
 * ahead, and where ranks share cores fewer waits end in a context switch.
 * Measured 2026-12-05 on the 2-core VM (back to back / each call alone
 * with a barrier after it, as OSU times; 3 runs each, us, 8 B and 1 KiB
 * of floats): 4 ranks, recursive doubling 8.5-15 and 9.3-12 / 7.9-28 and
 * 8.2-9.8; Hillis-Steele 1.2-3.1 and 5.7-9.0 / 5.9-21 and 6.1-17; Open MPI
 * (a linear chain) 1.5-1.8 and 11-23 / 0.2-4.2 and 13-17. 8 ranks:
 * recursive doubling 50-66 and 46-66 / 48-49 and 48-54; Hillis-Steele
 * 6.2-7.9 and 9.0-14 / 33-40 and 32-41; Open MPI 2.0-3.0 and 35-50 / 81-90
 * and 103-116. On 2 ranks the two send the same one message. */
static int scan_choice(const struct tern_coll_args *a)
{
    if (a->size > 2 && a->rcount * a->rdt->size >= SCAN_CHAIN_MIN_MSG)
        return 1;
    return two_level_ordered(a) ? 2 : 3;
}

static const struct tern_coll_algo *choose_scan(const struct tern_coll_args *a)
{
    return &scan_algos[scan_choice(a)];
}

static const struct tern_coll_algo *choose_exscan(const struct tern_coll_args *a)
{
    return &exscan_algos[scan_choice(a)];
}

/* The menus ------------------------------------------------------------- */

const struct tern_coll_menu tern_coll_menu_reduce_scatter =
    TERN_COLL_MENU(reduce_scatter_algos, choose_reduce_scatter);
const struct tern_coll_menu tern_coll_menu_scan =
    TERN_COLL_MENU(scan_algos, choose_scan);
const struct tern_coll_menu tern_coll_menu_exscan =
    TERN_COLL_MENU(exscan_algos, choose_exscan);
