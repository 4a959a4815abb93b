/*
 * The automatic choice for Barrier, Bcast, Reduce and Allreduce (the
 * other reductions are in select_scan.c): each collective's
 * algorithms and the function that picks one from the message size and
 * the communicator size, with the thresholds named and the measurements
 * behind them (select.h).
 */
#include "collectives/nodes.h"
#include "collectives/select.h"
#include "collectives/shm.h"
#include "libmpi/core/op.h"

/* Barrier ---------------------------------------------------------------- */

/* Node-aware (two-level) algorithms of Barrier, Bcast, Reduce and
 * Allreduce (select_move.c, select_rooted.c and select_scan.c have the
 * others):
 * chosen when the communicator spans several hosts with several ranks on
 * one (tern_coll_two_level_usable), and for Allreduce only below
 * ALLREDUCE_SHORT_MSG. Measured on the network-namespace cluster of
 * tests/cluster (3 hosts sharing 2 cores, 6 ranks, 2 per host; TCP between
 * hosts about as fast as shared memory, so what a real network would add
 * to the flat algorithms does not show; medians of 3 runs, us, two_level /
 * flat): Barrier 124 / 168; Reduce 8 B 14 / 12, 64 KiB 724 / 884, 1 MiB
 * 2235 / 2777; Bcast 8 B 30 / 30, 16 KiB 98 / 105, 64 KiB 387 / 330
 * (noisy: 226-482 against 184-550), 1 MiB 2019 / 2171; Allreduce 8 B
 * 114 / 114, 64 KiB 458 / 412, 1 MiB 3873 / 2295. For long vectors the
 * ring and Rabenseifner keep every rank busy and, with ranks placed host by
 * host, cross the network about as often as the leaders' own allreduce
 * would, so the flat choice stays there. */
int tern_coll_two_level_commutative(const struct tern_coll_args *a)
{
    return tern_coll_commutative(a) && tern_coll_two_level_usable(a);
}

/* Shared-memory algorithms (collectives/shm.h): chosen whenever the
 * communicator lives on one host and got a slot, within their limits. They
 * beat the message algorithms at every size measured except 8 B on 2 ranks
 * (a tie); the figures are in docs/algorithms.md. */

static const struct tern_coll_algo barrier_algos[] = {
    { .name = "dissemination", .build = tern_coll_barrier_dissemination },
    { .name = "two_level", .build = tern_coll_barrier_two_level,
      .usable = tern_coll_two_level_usable },
    { .name = "shm", .build = tern_coll_barrier_shm, .run = tern_coll_barrier_shm_run,
      .usable = tern_coll_shm_usable },
};

static const struct tern_coll_algo *choose_barrier(const struct tern_coll_args *a)
{
    if (tern_coll_shm_usable(a))
        return &barrier_algos[2];
    return &barrier_algos[tern_coll_two_level_usable(a)];
}

/* Bcast ------------------------------------------------------------------ */

/* Measurements behind the rooted collectives' thresholds (benchmark: batches
 * of back-to-back calls, best batch, slowest rank; best of 3 runs) were
 * taken on a 2-core VM shared with other jobs (load average 15-18), so any
 * p > 2 is oversubscribed: there, every extra message or relay costs a
 * context switch, which favours the algorithms with fewest steps. Bcast of
 * 1 MiB in us (binomial / scatter_allgather / a pipelined chain of 128 KiB
 * segments): p = 3: 163 / 792 / 1276; p = 4: 1145 / 568 / 889 (noisy);
 * p = 8: 723 / 2750 / 2124. At 256 KiB binomial won at every p. The chain
 * lost by 2-8x except in the noisy p = 4 case, so it was left out (as was
 * scatter_allgather at p <= 8). On 2 ranks the binomial tree is one
 * message: 38 us for 1 MiB with TERN_WAIT=poll (Open MPI: 69 us, same run).
 *
 * Scatter + allgather moves about 2n bytes per rank against the binomial
 * tree's ceil(log2 p) * n on the critical path, so it pays for its p - 1
 * extra messages only for long messages on many ranks: from this many
 * ranks (the tree then has 4 levels; not measurable on 2 cores, chosen by
 * the cost model) ... */
#define TERN_BCAST_SCATTER_MIN_RANKS 9
/* ... and from this many bytes (below it the extra latency dominates). */
#define TERN_BCAST_SCATTER_MIN_BYTES (512 * 1024)

static const struct tern_coll_algo bcast_algos[] = {
    { .name = "binomial", .build = tern_coll_bcast_binomial },
    { .name = "scatter_allgather", .build = tern_coll_bcast_scatter_allgather },
    { .name = "two_level", .build = tern_coll_bcast_two_level,
      .usable = tern_coll_two_level_usable },
    { .name = "shm", .build = tern_coll_bcast_shm, .run = tern_coll_bcast_shm_run,
      .usable = tern_coll_shm_usable },
};

const struct tern_coll_algo *tern_coll_bcast_messages(const struct tern_coll_args *a)
{
    size_t bytes = a->rcount * a->rdt->size;
    if (tern_coll_two_level_usable(a))
        return &bcast_algos[2];
    if (a->size >= TERN_BCAST_SCATTER_MIN_RANKS &&
        bytes >= TERN_BCAST_SCATTER_MIN_BYTES)
        return &bcast_algos[1];
    return &bcast_algos[0];
}

/* In shared memory whatever the size, so that the ranks choose alike even
 * when they pass the same data in different types (bcast_shm.c). */
static const struct tern_coll_algo *choose_bcast(const struct tern_coll_args *a)
{
    if (tern_coll_shm_usable(a))
        return &bcast_algos[3];
    return tern_coll_bcast_messages(a);
}

/* Reduce ----------------------------------------------------------------- */

/* Rabenseifner's algorithm reduces and moves about 2n bytes per rank
 * instead of the binomial tree's ceil(log2 p) * n, but takes twice the
 * messages, in pairwise exchanges. Measured (see Bcast), 1 MiB of doubles,
 * us, binomial / rabenseifner: p = 2: 3604 / 5211 (89 / 68 with
 * TERN_WAIT=poll); p = 4: 1891 / 44347; p = 8: 1228 / 2567; at 64 KiB and
 * 256 KiB binomial won as well. Exchanges between oversubscribed ranks are
 * what loses (Open MPI's own Allreduce of 1 MiB on 4 ranks took 80 ms in
 * the same run), so Rabenseifner is kept for many ranks, where the tree's
 * log2 p factor grows (from the cost model) ... */
#define TERN_REDUCE_RABENSEIFNER_MIN_RANKS 9
/* ... and long vectors. */
#define TERN_REDUCE_RABENSEIFNER_MIN_BYTES (512 * 1024)

static int reduce_rabenseifner_usable(const struct tern_coll_args *a)
{
    return tern_coll_commutative(a);
}

static const struct tern_coll_algo reduce_algos[] = {
    { .name = "binomial", .build = tern_coll_reduce_binomial },
    { .name = "rabenseifner", .build = tern_coll_reduce_rabenseifner,
      .usable = reduce_rabenseifner_usable },
    { .name = "two_level", .build = tern_coll_reduce_two_level,
      .usable = tern_coll_two_level_commutative },
    /* The Allreduce's conditions: one host, a commutative op, contiguous. */
    { .name = "shm", .build = tern_coll_reduce_shm, .run = tern_coll_reduce_shm_run,
      .usable = tern_coll_allreduce_shm_usable },
};

const struct tern_coll_algo *tern_coll_reduce_messages(const struct tern_coll_args *a)
{
    size_t bytes = a->rcount * a->rdt->size;
    int p = a->size;
    if (tern_coll_two_level_commutative(a))
        return &reduce_algos[2];
    /* (Every block of the reduce-scatter then holds an element at least.) */
    if (tern_coll_commutative(a) && p >= TERN_REDUCE_RABENSEIFNER_MIN_RANKS &&
        bytes >= TERN_REDUCE_RABENSEIFNER_MIN_BYTES && a->rcount >= (size_t)p)
        return &reduce_algos[1];
    return &reduce_algos[0];
}

/* In shared memory whatever the size, as the Allreduce (reduce_shm.c). */
static const struct tern_coll_algo *choose_reduce(const struct tern_coll_args *a)
{
    if (tern_coll_allreduce_shm_usable(a))
        return &reduce_algos[3];
    return tern_coll_reduce_messages(a);
}

/* Allreduce -------------------------------------------------------------- */

/* Allreduce: below this many bytes, recursive doubling's log2 p exchanges
 * of the whole vector beat the algorithms that cut it into chunks (their
 * extra rounds cost more than the bytes they save). Measured, MPI_SUM on
 * doubles, 2 ranks of the 2-core reference VM, us, recursive doubling /
 * ring (Open MPI): 8 KiB 1.71 / 2.24 (8.0), 16 KiB 2.49 / 2.90 (13.0),
 * 32 KiB 4.03 / 4.07 (16.7), 64 KiB 7.6 / 6.4 (21.0), 1 MiB 103-127 /
 * 77-85 (147-200). On 3 and 4 ranks (oversubscribed there, so noisy) the
 * crossing is also between 32 and 64 KiB. */
#define ALLREDUCE_SHORT_MSG (32 * 1024)
/* Allreduce, long vectors, p not a power of two: the ring moves about 2n
 * bytes per rank in 2 (p - 1) steps; Rabenseifner's fold adds 2n bytes and
 * n reduced to its 2 log2 q + 2 steps. The ring wins while its chunks
 * (n / p) are long enough that the bytes it saves outweigh its extra steps:
 * with about 1-2 us per step and 10 GB/s, from about 16 KiB per chunk.
 * Measured on 3 ranks (oversubscribed, noisy), us, ring / rabenseifner:
 * 256 KiB 242-244 / 219-281, 1 MiB 499-514 / 465-581, 4 MiB 2000-2187 /
 * 1890-2163. On powers of two Rabenseifner moves the same bytes as the ring
 * in fewer steps (4 ranks, 1 MiB: 367-792 / 327-749), so it always runs
 * there. */
#define ALLREDUCE_RING_MIN_CHUNK (16 * 1024)

/* Every algorithm but reduce_bcast combines in an order that depends on p
 * and the algorithm, which only a commutative op allows. */
static int commutative_only(const struct tern_coll_args *a)
{
    return tern_coll_commutative(a);
}

static const struct tern_coll_algo allreduce_algos[] = {
    { .name = "recursive_doubling", .build = tern_coll_allreduce_recursive_doubling,
      .usable = commutative_only },
    { .name = "ring", .build = tern_coll_allreduce_ring, .usable = commutative_only },
    { .name = "rabenseifner", .build = tern_coll_allreduce_rabenseifner,
      .usable = commutative_only },
    { .name = "reduce_bcast", .build = tern_coll_allreduce_reduce_bcast },
    { .name = "two_level", .build = tern_coll_allreduce_two_level,
      .usable = tern_coll_two_level_commutative },
    { .name = "shm", .build = tern_coll_allreduce_shm, .run = tern_coll_allreduce_shm_run,
      .usable = tern_coll_allreduce_shm_usable },
};

const struct tern_coll_algo *tern_coll_allreduce_messages(const struct tern_coll_args *a)
{
    int p = a->size;
    size_t bytes = a->rcount * a->rdt->size;
    if (!tern_coll_commutative(a))
        return &allreduce_algos[3];
    if (bytes < ALLREDUCE_SHORT_MSG && tern_coll_two_level_usable(a))
        return &allreduce_algos[4];
    /* Chunked algorithms need an element per chunk to pay off. */
    if (bytes < ALLREDUCE_SHORT_MSG || a->rcount < (size_t)p)
        return &allreduce_algos[0];
    if ((p & (p - 1)) == 0 || bytes / (size_t)p < ALLREDUCE_RING_MIN_CHUNK)
        return &allreduce_algos[2];
    return &allreduce_algos[1];
}

static const struct tern_coll_algo *choose_allreduce(const struct tern_coll_args *a)
{
    if (tern_coll_allreduce_shm_usable(a))
        return &allreduce_algos[5];
    return tern_coll_allreduce_messages(a);
}

/* The menus ------------------------------------------------------------- */

const struct tern_coll_menu tern_coll_menu_barrier =
    TERN_COLL_MENU(barrier_algos, choose_barrier);
const struct tern_coll_menu tern_coll_menu_bcast =
    TERN_COLL_MENU(bcast_algos, choose_bcast);
const struct tern_coll_menu tern_coll_menu_reduce =
    TERN_COLL_MENU(reduce_algos, choose_reduce);
const struct tern_coll_menu tern_coll_menu_allreduce =
    TERN_COLL_MENU(allreduce_algos, choose_allreduce);
