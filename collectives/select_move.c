/*
 * The automatic choice for the collectives that move blocks among all
 * ranks without reducing them: Allgather, Alltoall and their v and w
 * forms, and the neighbourhood collectives (the rooted ones, Gather and
 * Scatter, are in select_rooted.c). As in select_reduce.c: each
 * collective's algorithms and the function that picks one, with the
 * thresholds named and the measurements behind them (select.h).
 */
#include "collectives/nodes.h"
#include "collectives/select.h"
#include "collectives/shm.h"

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
/* Two levels (node-aware) on a communicator that spans several hosts with
 * several ranks on one, for a gathered result of at most this many bytes:
 * h - 1 network rounds instead of the ring's h l - 1, paid for by
 * broadcasting the whole result within each host. Measured on the cluster
 * of tests/cluster (6 ranks, 2 per host, whose network is as fast as their
 * shared memory; medians of 3, us, two_level / ring): blocks of 8 B 136 /
 * 206, 1 KiB 127 / 231, 8 KiB 222 / 249, 64 KiB 611 / 1172; 256 KiB
 * 3171 / 998, 1 MiB 13776 / 8705. */
#define TERN_ALLGATHER_TWO_LEVEL_MAX_TOTAL (512 * 1024)

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
    { .name = "two_level", .build = tern_coll_allgather_two_level,
      .usable = tern_coll_two_level_usable },
    { .name = "shm", .build = tern_coll_allgather_shm, .run = tern_coll_allgather_shm_run,
      .usable = tern_coll_shm_usable },
};

static const struct tern_coll_algo *allgather_messages(const struct tern_coll_args *a)
{
    int p = a->size;
    size_t block = recv_block_bytes(a);
    if (block * (size_t)p <= TERN_ALLGATHER_TWO_LEVEL_MAX_TOTAL &&
        tern_coll_two_level_usable(a))
        return &allgather_algos[3];
    if (tern_coll_allgather_recursive_doubling_usable(a) &&
        block >= TERN_ALLGATHER_RD_MIN_BLOCK)
        return &allgather_algos[1];
    if (p >= TERN_ALLGATHER_BRUCK_MIN_RANKS &&
        block * (size_t)p <= TERN_ALLGATHER_BRUCK_MAX_TOTAL)
        return &allgather_algos[2];
    return &allgather_algos[0];
}

/* Allgatherv: the same rules as Allgather's two levels and Bruck on the
 * gathered total, which every rank computes from the same recvcounts.
 * Two levels over TERN_ALLGATHER_TWO_LEVEL_MAX_TOTAL is Allgather's bound,
 * not one measured for Allgatherv: on the cluster of tests/cluster
 * (2026-12-04, equal blocks of MPI_BYTE; medians of 5, us, two_level /
 * ring) the figures varied more between runs than between the algorithms
 * (2 per host: 8 B 1173 / 969, 1 KiB 686 / 974, 16 KiB 1085 / 213, 64 KiB
 * 2829 / 2131, 256 KiB 16726 / 16778; round-robin 3+2+2: 8 B 3543 / 8781,
 * 64 KiB 10975 / 9593, 256 KiB 14796 / 23612), and Allgather itself,
 * measured alongside, took 3 to 5 ms at 8 B with either algorithm, against
 * the 136 / 206 us of its own measurement above. */
static const struct tern_coll_algo allgatherv_algos[] = {
    { .name = "ring", .build = tern_coll_allgatherv_ring },
    { .name = "bruck", .build = tern_coll_allgather_bruck },
    { .name = "two_level", .build = tern_coll_allgatherv_two_level,
      .usable = tern_coll_two_level_usable },
    { .name = "shm", .build = tern_coll_allgather_shm, .run = tern_coll_allgather_shm_run,
      .usable = tern_coll_shm_usable },
};

static const struct tern_coll_algo *allgatherv_messages(const struct tern_coll_args *a)
{
    int p = a->size;
    size_t total = 0;
    for (int j = 0; j < p; j++)
        total += a->rcounts[j];
    total *= a->rdt->size;
    if (total <= TERN_ALLGATHER_TWO_LEVEL_MAX_TOTAL && tern_coll_two_level_usable(a))
        return &allgatherv_algos[2];
    if (p >= TERN_ALLGATHER_BRUCK_MIN_RANKS && total <= TERN_ALLGATHER_BRUCK_MAX_TOTAL)
        return &allgatherv_algos[1];
    return &allgatherv_algos[0];
}

const struct tern_coll_algo *tern_coll_allgather_messages(const struct tern_coll_args *a)
{
    return a->kind == TERN_COLL_ALLGATHERV ? allgatherv_messages(a) : allgather_messages(a);
}

/* On one host, in shared memory whatever the size, as the Allreduce: the
 * ranks agree on the sizes there before any long call takes messages
 * (allgather_shm.c). One flag exchange against the ring's p - 1 rounds;
 * docs/algorithms.md has the figures. */
static const struct tern_coll_algo *choose_allgather(const struct tern_coll_args *a)
{
    if (tern_coll_shm_usable(a))
        return &allgather_algos[4];
    return allgather_messages(a);
}

static const struct tern_coll_algo *choose_allgatherv(const struct tern_coll_args *a)
{
    if (tern_coll_shm_usable(a))
        return &allgatherv_algos[3];
    return allgatherv_messages(a);
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

/* Alltoall in two levels (node-aware), on a communicator that spans
 * several hosts with several ranks on one, while a host's leader gathers
 * at most this many bytes (the most ranks on a host, times p blocks; it
 * holds three buffers of that size). Measured on the cluster of
 * tests/cluster (6 ranks on 3 hosts, whose network is as fast as their
 * shared memory; medians of 3, us, two_level / linear), 2 per host: blocks
 * of 8 B 137 / 196, 256 B 133 / 190, 1 KiB 149 / 187, 4 KiB 198 / 218
 * (48 KiB gathered), 16 KiB 434 / 242; round-robin: 8 B 111 / 182, 1 KiB
 * 121 / 192, 4 KiB 147 / 223, 16 KiB 2393 / 244. */
#define TERN_ALLTOALL_TWO_LEVEL_MAX_GATHERED (64 * 1024)

static const struct tern_coll_algo alltoall_algos[] = {
    { .name = "pairwise", .build = tern_coll_alltoall_pairwise },
    { .name = "linear", .build = tern_coll_alltoall_linear },
    { .name = "bruck", .build = tern_coll_alltoall_bruck },
    { .name = "two_level", .build = tern_coll_alltoall_two_level,
      .usable = tern_coll_two_level_usable },
};

static const struct tern_coll_algo *choose_alltoall(const struct tern_coll_args *a)
{
    int p = a->size;
    size_t block = recv_block_bytes(a);
    if (tern_coll_two_level_usable(a) &&
        block * (size_t)p * (size_t)tern_coll_nodes(a->comm)->max_local <=
            TERN_ALLTOALL_TWO_LEVEL_MAX_GATHERED)
        return &alltoall_algos[3];
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

/* The menus ------------------------------------------------------------- */

const struct tern_coll_menu tern_coll_menu_allgather =
    TERN_COLL_MENU(allgather_algos, choose_allgather);
const struct tern_coll_menu tern_coll_menu_allgatherv =
    TERN_COLL_MENU(allgatherv_algos, choose_allgatherv);
const struct tern_coll_menu tern_coll_menu_alltoall =
    TERN_COLL_MENU(alltoall_algos, choose_alltoall);
const struct tern_coll_menu tern_coll_menu_alltoallv =
    TERN_COLL_MENU(alltoallv_algos, choose_alltoallv);

/* The neighbourhood collectives: one algorithm, every message at once. */
static const struct tern_coll_algo neighbor_algos[] = {
    { .name = "linear", .build = tern_coll_neighbor_linear },
};

static const struct tern_coll_algo *choose_neighbor(const struct tern_coll_args *a)
{
    (void)a;
    return &neighbor_algos[0];
}

const struct tern_coll_menu tern_coll_menu_neighbor =
    TERN_COLL_MENU(neighbor_algos, choose_neighbor);
