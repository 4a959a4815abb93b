/*
 * Which algorithm runs a collective call.
 *
 * Each collective has a table of its algorithms and a choice function that
 * picks one from the message size and the communicator size, with the
 * thresholds named below; docs/algorithms.md gives the measurements behind
 * them. TERN_COLL_<NAME>=<algorithm> (for example TERN_COLL_BCAST=binomial)
 * forces an algorithm for every call of that collective it can run; the
 * tests use it to run each algorithm. Verbose level 2 prints the choice.
 */
#include <stdio.h>
#include <string.h>

#include "collectives/algo.h"
#include "collectives/nodes.h"
#include "collectives/shm.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"
#include "tern/log.h"

struct coll_table {
    const char *name;                /* "bcast": TERN_COLL_BCAST */
    const struct tern_coll_algo *algos;
    int nalgos;
    const struct tern_coll_algo *(*choose)(const struct tern_coll_args *a);
    const struct tern_coll_algo *forced;
};

#define ALGOS(arr) arr, (int)(sizeof(arr) / sizeof(arr[0]))

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

/* Barrier ---------------------------------------------------------------- */

/* Node-aware (two-level) algorithms (Barrier, Bcast, Reduce, Allreduce):
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
static int two_level_commutative(const struct tern_coll_args *a)
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
    { .name = "shm", .build = tern_coll_barrier_shm, .usable = tern_coll_shm_usable },
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
};

static const struct tern_coll_algo *choose_bcast(const struct tern_coll_args *a)
{
    size_t bytes = a->rcount * a->rdt->size;
    if (tern_coll_two_level_usable(a))
        return &bcast_algos[2];
    if (a->size >= TERN_BCAST_SCATTER_MIN_RANKS &&
        bytes >= TERN_BCAST_SCATTER_MIN_BYTES)
        return &bcast_algos[1];
    return &bcast_algos[0];
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
      .usable = two_level_commutative },
};

static const struct tern_coll_algo *choose_reduce(const struct tern_coll_args *a)
{
    size_t bytes = a->rcount * a->rdt->size;
    int p = a->size;
    if (two_level_commutative(a))
        return &reduce_algos[2];
    /* (Every block of the reduce-scatter then holds an element at least.) */
    if (tern_coll_commutative(a) && p >= TERN_REDUCE_RABENSEIFNER_MIN_RANKS &&
        bytes >= TERN_REDUCE_RABENSEIFNER_MIN_BYTES && a->rcount >= (size_t)p)
        return &reduce_algos[1];
    return &reduce_algos[0];
}

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
 * binomial tree, whose middle ranks copy what they relay. Measured (see
 * Bcast), block bytes: us binomial / linear. Gather p = 4: 2 KiB 1.1 / 1.0,
 * 8 KiB 31 / 6.9, 32 KiB 282 / 30, 128 KiB 124 / 77; scatter p = 4: 2 KiB
 * 0.8 / 1.2, 8 KiB 18 / 12, 32 KiB 63 / 16, 128 KiB 151 / 60; below 2 KiB
 * the tree's fewer messages at the root win (p = 4, 16 B: 0.5 / 6.7 and
 * 0.6 / 0.7). On 8 oversubscribed ranks linear often won even for small
 * blocks, but with noise above the differences. */
#define TERN_GATHER_LINEAR_MIN (4 * 1024)
#define TERN_SCATTER_LINEAR_MIN (4 * 1024)

static const struct tern_coll_algo gather_algos[] = {
    { .name = "binomial", .build = tern_coll_gather_binomial },
    { .name = "linear", .build = tern_coll_gather_linear },
};

static const struct tern_coll_algo *choose_gather(const struct tern_coll_args *a)
{
    return &gather_algos[rooted_block_bytes(a, 1) >= TERN_GATHER_LINEAR_MIN];
}

static const struct tern_coll_algo gatherv_algos[] = {
    { .name = "linear", .build = tern_coll_gatherv_linear },
};

static const struct tern_coll_algo *choose_gatherv(const struct tern_coll_args *a)
{
    (void)a;
    return &gatherv_algos[0];
}

static const struct tern_coll_algo scatter_algos[] = {
    { .name = "binomial", .build = tern_coll_scatter_binomial },
    { .name = "linear", .build = tern_coll_scatter_linear },
};

static const struct tern_coll_algo *choose_scatter(const struct tern_coll_args *a)
{
    return &scatter_algos[rooted_block_bytes(a, 0) >= TERN_SCATTER_LINEAR_MIN];
}

static const struct tern_coll_algo scatterv_algos[] = {
    { .name = "linear", .build = tern_coll_scatterv_linear },
};

static const struct tern_coll_algo *choose_scatterv(const struct tern_coll_args *a)
{
    (void)a;
    return &scatterv_algos[0];
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
      .usable = two_level_commutative },
    { .name = "shm", .build = tern_coll_allreduce_shm,
      .usable = tern_coll_allreduce_shm_usable },
};

static const struct tern_coll_algo *choose_allreduce(const struct tern_coll_args *a)
{
    int p = a->size;
    size_t bytes = a->rcount * a->rdt->size;
    if (tern_coll_allreduce_shm_usable(a))
        return &allreduce_algos[5];
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

static const struct tern_coll_algo reduce_scatter_algos[] = {
    { .name = "ring", .build = tern_coll_reduce_scatter_ring, .usable = commutative_only },
    { .name = "reduce_scatterv", .build = tern_coll_reduce_scatter_reduce_scatterv },
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
    if (!tern_coll_commutative(a) ||
        (p >= REDUCE_SCATTER_TREE_MIN_RANKS && total < REDUCE_SCATTER_SHORT_MSG))
        return &reduce_scatter_algos[1];
    return &reduce_scatter_algos[0];
}

/* Scan and Exscan ---------------------------------------------------------- */

/* Scan and Exscan: from this many bytes on, on more than two ranks, the
 * pipelined chain (about n (beta + gamma) plus a step per rank) beats
 * recursive doubling (log2 p n (beta + 2 gamma)). On 2 ranks both send
 * one message. Measured, MPI_Scan of doubles, us, recursive doubling /
 * chain (Open MPI), oversubscribed so noisy: 4 ranks 16 KiB 21 / 81 (21),
 * 64 KiB 114 / 67 (32), 1 MiB 1194 / 267-460 (382); 3 ranks 64 KiB 66 / 19
 * (41), 1 MiB 495 / 341-396 (311). */
#define SCAN_CHAIN_MIN_MSG (64 * 1024)

static const struct tern_coll_algo scan_algos[] = {
    { .name = "recursive_doubling", .build = tern_coll_scan_recursive_doubling },
    { .name = "chain", .build = tern_coll_scan_chain },
};

static const struct tern_coll_algo exscan_algos[] = {
    { .name = "recursive_doubling", .build = tern_coll_exscan_recursive_doubling },
    { .name = "chain", .build = tern_coll_exscan_chain },
};

static int scan_use_chain(const struct tern_coll_args *a)
{
    return a->size > 2 && a->rcount * a->rdt->size >= SCAN_CHAIN_MIN_MSG;
}

static const struct tern_coll_algo *choose_scan(const struct tern_coll_args *a)
{
    return &scan_algos[scan_use_chain(a)];
}

static const struct tern_coll_algo *choose_exscan(const struct tern_coll_args *a)
{
    return &exscan_algos[scan_use_chain(a)];
}

/* Allgather, Allgatherv --------------------------------------------------- */

/*
 * Measurements behind the thresholds of this section and the next (min over
 * batches of 2-50 calls, 3-6 interleaved runs per algorithm, microseconds;
 * MPI_BYTE blocks; this machine: 2 cores, so 4 and 8 ranks are
 * oversubscribed, with other jobs keeping the load at 10-16). Few rounds
 * and few context switches matter most here; log-p algorithms for small
 * blocks only pay off with more ranks than could be measured, so their
 * thresholds in ranks follow the usual practice (MPICH's) instead.
 *
 *   Allgather, block   8 B    1 KiB  16 KiB  64 KiB  256 KiB  1 MiB
 *   p=4 ring           25.5   28.3   41.8    187     342      1786
 *   p=4 rec. doubling  36.2   36.5   52.5    166     289      2998
 *   p=4 bruck          34.0   38.6   48.7     80     227
 *   p=8 ring           78.2   79.6   180     616     1670    11374
 *   p=8 rec. doubling  126    156    293     455     1154     6246
 *   p=8 bruck          85.1   148    1301    874     3237
 *   p=6 ring           56.1   48.4   90.0    330
 *   p=6 bruck          110    40.8   417     592
 *   Allgatherv, p=8: ring 121 / 91.0 / 739 and bruck 180 / 143 / 671 for
 *   blocks of 8 B / 1 KiB / 64 KiB.
 */

/* Allgather on a power of two: recursive doubling (log2 p rounds, no
 * copies) from this block size on, where its fewer and larger messages beat
 * the ring's p - 1 rounds (64 KiB: 455 against 616 us at p = 8, 166 against
 * 187 at p = 4); below it the ring won (16 KiB: 180 against 293 us at
 * p = 8). */
#define TERN_ALLGATHER_RD_MIN_BLOCK (32 * 1024)
/* Bruck (ceil(log2 p) rounds, but two local copies of the whole result)
 * for small results on at least this many ranks. On 4 to 8 ranks the ring
 * was as fast or faster for small blocks (8 B at p = 8: 78 against 85 us),
 * so Bruck waits for the communicator sizes where log2 p rounds against
 * p - 1 matter (not measurable on this machine). */
#define TERN_ALLGATHER_BRUCK_MIN_RANKS 16
/* ... and a gathered result of at most this many bytes (MPICH's 80 KiB
 * rounded down: beyond it Bruck's copies cost more than the ring's rounds;
 * at p = 8 Bruck lost from 16 KiB blocks on). */
#define TERN_ALLGATHER_BRUCK_MAX_TOTAL (64 * 1024)

/* Bytes of one block of the result (Allgather, Alltoall): the same on
 * every rank, so all choose alike. */
static size_t recv_block_bytes(const struct tern_coll_args *a)
{
    return a->rcount * a->rdt->size;
}

static const struct tern_coll_algo allgather_algos[] = {
    { .name = "ring", .build = tern_coll_allgather_ring },
    { .name = "recursive_doubling", .build = tern_coll_allgather_recursive_doubling,
      .usable = tern_coll_allgather_recursive_doubling_usable },
    { .name = "bruck", .build = tern_coll_allgather_bruck },
};

static const struct tern_coll_algo *choose_allgather(const struct tern_coll_args *a)
{
    int p = a->size;
    size_t block = recv_block_bytes(a);
    if (tern_coll_allgather_recursive_doubling_usable(a) &&
        block >= TERN_ALLGATHER_RD_MIN_BLOCK)
        return &allgather_algos[1];
    if (p >= TERN_ALLGATHER_BRUCK_MIN_RANKS &&
        block * (size_t)p <= TERN_ALLGATHER_BRUCK_MAX_TOTAL)
        return &allgather_algos[2];
    return &allgather_algos[0];
}

/* Allgatherv: the same rule as Allgather's Bruck on the gathered total,
 * which every rank computes from the same recvcounts. */
static const struct tern_coll_algo allgatherv_algos[] = {
    { .name = "ring", .build = tern_coll_allgatherv_ring },
    { .name = "bruck", .build = tern_coll_allgather_bruck },
};

static const struct tern_coll_algo *choose_allgatherv(const struct tern_coll_args *a)
{
    int p = a->size;
    size_t total = 0;
    for (int j = 0; j < p; j++)
        total += a->rcounts[j];
    total *= a->rdt->size;
    if (p >= TERN_ALLGATHER_BRUCK_MIN_RANKS && total <= TERN_ALLGATHER_BRUCK_MAX_TOTAL)
        return &allgatherv_algos[1];
    return &allgatherv_algos[0];
}

/* Alltoall, Alltoallv, Alltoallw --------------------------------------------- */

/*
 * Measurements (as above; microseconds, MPI_BYTE blocks):
 *
 *   Alltoall, block  8 B    64 B   256 B  1 KiB  4 KiB  64 KiB  128 KiB  256 KiB  1 MiB
 *   p=4 pairwise     53.1   23.8   73.8   25.0   82.1   192     237      412     1636
 *   p=4 linear       27.6   28.0   27.6   16.0   34.7   132     195      279     1718
 *   p=4 bruck        15.7   28.9   28.9   33.2   54.7   9743
 *   p=8 pairwise     310    341    269    330    379    849     2100     1387     6222
 *   p=8 linear       37.7   75.9   83.6   108    50.3   506     754      1882     9939
 *   p=8 bruck        136    55.5   126    171    233    33792
 *   p=6 pairwise     148    72.0   148    180    165    327
 *   p=6 linear       53.9   53.9   40.1   34.0   40.1   203
 *   p=6 bruck        67.8   59.8   40.2   42.9   72.0   30801
 *   (p=4, 512 KiB: pairwise 952, linear 383.) Alltoallv, p=8: pairwise
 *   427 / 1132 / 2762 and linear 61.7 / 915 / 1883 for 1 / 64 / 256 KiB.
 *
 * Bruck's large-block figures are dominated by its scratch buffers, which
 * are allocated (mmap'd, page-faulted) afresh on every call.
 */

/* Alltoall: Bruck (log2 p rounds, log2(p)/2 times the bytes, copies) for
 * blocks of at most this many bytes on at least TERN_ALLTOALL_BRUCK_MIN_RANKS
 * ranks. Up to 8 ranks, the most measurable here, the single round of
 * linear won or tied (8 B at p = 8: 37.7 against 136 us), so the rank bound
 * is MPICH's practice doubled, and the block bound is MPICH's. */
#define TERN_ALLTOALL_BRUCK_MAX_BLOCK 256
#define TERN_ALLTOALL_BRUCK_MIN_RANKS 16
/* Alltoall(v,w): every message in flight at once (linear) while a rank
 * receives at most this many bytes in all; pairwise exchange beyond, where
 * p - 1 rounds keep fewer large messages competing (p = 8, 256 KiB blocks:
 * pairwise 1387 against 1882 us; p = 8, 128 KiB: linear 754 against 2100;
 * p = 4, 512 KiB: linear 383 against 952). */
#define TERN_ALLTOALL_LINEAR_MAX_TOTAL (2 * 1024 * 1024)

static const struct tern_coll_algo alltoall_algos[] = {
    { .name = "pairwise", .build = tern_coll_alltoall_pairwise },
    { .name = "linear", .build = tern_coll_alltoall_linear },
    { .name = "bruck", .build = tern_coll_alltoall_bruck },
};

static const struct tern_coll_algo *choose_alltoall(const struct tern_coll_args *a)
{
    int p = a->size;
    size_t block = recv_block_bytes(a);
    if (p >= TERN_ALLTOALL_BRUCK_MIN_RANKS && block <= TERN_ALLTOALL_BRUCK_MAX_BLOCK)
        return &alltoall_algos[2];
    if (block * (size_t)p <= TERN_ALLTOALL_LINEAR_MAX_TOTAL)
        return &alltoall_algos[1];
    return &alltoall_algos[0];
}

/* The v and w forms share the builders and the linear bound, on the bytes
 * this rank receives. Ranks may then choose differently, which is safe:
 * both algorithms send exactly one message to each peer on the
 * collective's tag, and pairwise exchange posts its receive from a peer in
 * the same round as that peer, if it runs pairwise too, posts the send. */
static const struct tern_coll_algo alltoallv_algos[] = {
    { .name = "pairwise", .build = tern_coll_alltoall_pairwise },
    { .name = "linear", .build = tern_coll_alltoall_linear },
};

static const struct tern_coll_algo *choose_alltoallv(const struct tern_coll_args *a)
{
    size_t total = 0;
    for (int j = 0; j < a->size; j++)
        total += a->rcounts[j] *
                 (a->kind == TERN_COLL_ALLTOALLW ? a->rdts[j]->size : a->rdt->size);
    if (total <= TERN_ALLTOALL_LINEAR_MAX_TOTAL)
        return &alltoallv_algos[1];
    return &alltoallv_algos[0];
}

/* The tables ------------------------------------------------------------- */

static struct coll_table tables[TERN_COLL_NKINDS] = {
    [TERN_COLL_BARRIER] = { "barrier", ALGOS(barrier_algos), choose_barrier, NULL },
    [TERN_COLL_BCAST] = { "bcast", ALGOS(bcast_algos), choose_bcast, NULL },
    [TERN_COLL_REDUCE] = { "reduce", ALGOS(reduce_algos), choose_reduce, NULL },
    [TERN_COLL_ALLREDUCE] = { "allreduce", ALGOS(allreduce_algos), choose_allreduce, NULL },
    [TERN_COLL_GATHER] = { "gather", ALGOS(gather_algos), choose_gather, NULL },
    [TERN_COLL_GATHERV] = { "gatherv", ALGOS(gatherv_algos), choose_gatherv, NULL },
    [TERN_COLL_SCATTER] = { "scatter", ALGOS(scatter_algos), choose_scatter, NULL },
    [TERN_COLL_SCATTERV] = { "scatterv", ALGOS(scatterv_algos), choose_scatterv, NULL },
    [TERN_COLL_ALLGATHER] = { "allgather", ALGOS(allgather_algos), choose_allgather, NULL },
    [TERN_COLL_ALLGATHERV] = { "allgatherv", ALGOS(allgatherv_algos), choose_allgatherv, NULL },
    [TERN_COLL_ALLTOALL] = { "alltoall", ALGOS(alltoall_algos), choose_alltoall, NULL },
    [TERN_COLL_ALLTOALLV] = { "alltoallv", ALGOS(alltoallv_algos), choose_alltoallv, NULL },
    [TERN_COLL_ALLTOALLW] = { "alltoallw", ALGOS(alltoallv_algos), choose_alltoallv, NULL },
    [TERN_COLL_REDUCE_SCATTER] = { "reduce_scatter", ALGOS(reduce_scatter_algos),
                                   choose_reduce_scatter, NULL },
    [TERN_COLL_REDUCE_SCATTER_BLOCK] = { "reduce_scatter_block", ALGOS(reduce_scatter_algos),
                                         choose_reduce_scatter, NULL },
    [TERN_COLL_SCAN] = { "scan", ALGOS(scan_algos), choose_scan, NULL },
    [TERN_COLL_EXSCAN] = { "exscan", ALGOS(exscan_algos), choose_exscan, NULL },
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
        if (!t->nalgos)
            continue;
        char *var = vars[k], *help = helps[k];
        snprintf(calls[k], sizeof(calls[k]), "MPI_%c%s", t->name[0] - 'a' + 'A', t->name + 1);
        int off = snprintf(help, sizeof(helps[k]), "Algorithm of %s: auto", calls[k]);
        for (int i = 0; i < t->nalgos && off < (int)sizeof(helps[k]); i++)
            off += snprintf(help + off, sizeof(helps[k]) - (size_t)off, "%s %s",
                            i == t->nalgos - 1 ? " or" : ",", t->algos[i].name);
        snprintf(var, sizeof(vars[k]), "TERN_COLL_%s", t->name);
        for (char *c = var; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        const char *v = tern_env_str(var, "auto", help);
        t->forced = NULL;
        for (int i = 0; i < t->nalgos; i++)
            if (!strcmp(v, t->algos[i].name))
                t->forced = &t->algos[i];
        if (!t->forced && strcmp(v, "auto"))
            tern_log("%s=%s names no algorithm of %s; choosing automatically "
                     "(see tern-info for the names)", var, v, calls[k]);
    }
}

const struct tern_coll_algo *tern_coll_choose(const struct tern_coll_args *a)
{
    return tables[a->kind].choose(a);
}

const struct tern_coll_algo *tern_coll_select(const struct tern_coll_args *a)
{
    const struct coll_table *t = &tables[a->kind];
    if (!t->choose)
        return NULL;
    const struct tern_coll_algo *algo = t->forced;
    if (algo && algo->usable && !algo->usable(a)) {
        TERN_LOG(1, "%s: algorithm %s cannot run this call; choosing another",
                 calls[a->kind], algo->name);
        algo = NULL;
    }
    if (!algo)
        algo = t->choose(a);
    TERN_LOG(2, "%s on %d ranks, %zu bytes: %s", calls[a->kind], a->size,
             msg_bytes(a), algo->name);
    return algo;
}
