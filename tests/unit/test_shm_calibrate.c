/*
 * Unit tests of the start-up choice between the copy through the cells and
 * the single-copy read (transports/shm/calibrate.h): the crossover of two
 * synthetic cost lines, a real measurement between local ranks 0 and 1 over
 * two rings with a third local rank waiting for the answer, the same with
 * a partner that comes more than 10 s late, and the answer given at once
 * when nothing is measured.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "tern/err.h"
#include "transports/shm/calibrate.h"
#include "transports/shm/ring.h"
#include "tests/unit/test_shm_util.h"

#define NCELLS 8
#define CELL (32768 + 64)

/* Costs in nanoseconds at 4096 and 16384 bytes. */
static size_t eager_max(double copy0, double copy1, double read0, double read1)
{
    struct tern_shm_costs c = {
        .size = { 4096, 16384 },
        .copy = { copy0, copy1 },
        .read = { read0, read1 },
    };
    return tern_shm_contig_eager_max(&c);
}

/* A line a + b n sampled at the two sizes. */
#define AT(a, b, n) ((a) + (b) * (n))
#define LINE(a, b) AT(a, b, 4096.0), AT(a, b, 16384.0)

static void test_crossover(void)
{
    /* The reference VM: copy slope 1550 / 12288 = 0.126 ns/B, base 433;
     * read slope 370 / 12288 = 0.030 ns/B, base 647. The lines cross at
     * 213 / 0.096 = 2222 B, below the floor: 4096. */
    CU_ASSERT_EQUAL(eager_max(950, 2500, 770, 1140), 4096);
    /* The read costs more per byte (0.106 against 0.033 ns/B): never. */
    CU_ASSERT_EQUAL(eager_max(900, 1300, 1200, 2500), 0);
    /* Equal slopes (1000 / 12288 each): the read never catches up. */
    CU_ASSERT_EQUAL(eager_max(1000, 2000, 1500, 2500), 0);
    /* Copy 1000 + 0.1 n, read 2500 + 0.025 n: they cross at
     * 1500 / 0.075 = 20000 B, rounded up to 32768. */
    CU_ASSERT_EQUAL(eager_max(LINE(1000, 0.1), LINE(2500, 0.025)), 32768);
    /* Copy 1000 + 0.1 n, read 1250 + 0.05 n: 250 / 0.05 = 5000 B, within
     * the sizes measured, so the floor: 4096. */
    CU_ASSERT_EQUAL(eager_max(LINE(1000, 0.1), LINE(1250, 0.05)), 4096);
    /* Just past the larger size measured: copy 1000 + 0.1 n, read
     * 2650 + 0.0 n cross at 16500 B, rounded up to 32768. */
    CU_ASSERT_EQUAL(eager_max(LINE(1000, 0.1), LINE(2650, 0.0)), 32768);
    /* Copy 1000 + 0.1 n, read 500 + 0.05 n: the read is cheaper at every
     * size (they would cross at -10000 B); the floor, 4096, still holds. */
    CU_ASSERT_EQUAL(eager_max(LINE(1000, 0.1), LINE(500, 0.05)), TERN_SHM_EAGER_MIN);
    /* Copy 1000 + 0.1 n, read 1001000 + (0.1 - 1e-7) n: they cross at
     * 1e6 / 1e-7 = 1e13 B, beyond 2^40 (1.1e12): never. */
    CU_ASSERT_EQUAL(eager_max(LINE(1000, 0.1), LINE(1001000, 0.1 - 1e-7)), 0);
    /* The same sizes twice give no slope at all: never. */
    struct tern_shm_costs same = { .size = { 4096, 4096 }, .copy = { 1000, 900 },
                                   .read = { 500, 400 } };
    CU_ASSERT_EQUAL(tern_shm_contig_eager_max(&same), 0);
    /* Other sizes, as small cells give them (1024 and 4096 B): copy
     * 500 + 0.2 n, read 1500 + 0.05 n cross at 1000 / 0.15 = 6667 B, past
     * the larger size measured: 8192. */
    struct tern_shm_costs small = {
        .size = { 1024, 4096 },
        .copy = { AT(500, 0.2, 1024.0), AT(500, 0.2, 4096.0) },
        .read = { AT(1500, 0.05, 1024.0), AT(1500, 0.05, 4096.0) },
    };
    CU_ASSERT_EQUAL(tern_shm_contig_eager_max(&small), 8192);
}

/* Shared by the three processes of the end-to-end test. */
struct world {
    _Atomic uint64_t shared;    /* The segment's contig_eager_max word. */
    int rc[3];                  /* tern_shm_calibrate's result, by local rank. */
    uint64_t value[3];          /* Its *eager_max, by local rank. */
    pid_t leader;               /* Local rank 0's pid. */
    struct tern_shm_ring *ring[2]; /* [0]: 0 -> 1, [1]: 1 -> 0. */
};

static struct tern_shm_ring *new_ring(void)
{
    struct tern_shm_ring *r = shared_map(tern_shm_ring_bytes(NCELLS, CELL));
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL_FATAL(tern_shm_ring_init(r, NCELLS, CELL), 0);
    return r;
}

static struct world *new_world(void)
{
    struct world *w = shared_map(sizeof(*w));
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    w->leader = getpid();
    for (int i = 0; i < 2; i++)
        w->ring[i] = new_ring();
    for (int r = 0; r < 3; r++)
        w->rc[r] = 1;
    return w;
}

static void free_world(struct world *w)
{
    for (int i = 0; i < 2; i++)
        munmap(w->ring[i], tern_shm_ring_bytes(NCELLS, CELL));
    munmap(w, sizeof(*w));
}

/* Child: local rank 1, the partner of the measurement. */
static int rank1(void *arg)
{
    struct world *w = arg;
    struct tern_shm_calib_link link = { .out = w->ring[1], .in = w->ring[0],
                                        .pid = w->leader, .world = 0 };
    w->rc[1] = tern_shm_calibrate(&w->shared, 1, 1, &link, w->leader, &w->value[1]);
    return 0;
}

/* Child: local rank 2, which only waits for the answer. */
static int rank2(void *arg)
{
    struct world *w = arg;
    w->rc[2] = tern_shm_calibrate(&w->shared, 2, 1, NULL, w->leader, &w->value[2]);
    return 0;
}

/* Runs the measurement in this process as local rank 0, with `partner` as
 * local rank 1 and a third local rank that waits for the answer; checks
 * that all three took it. Returns the answer, or 0 if a child failed. */
static uint64_t measure_with(struct world *w, int (*partner)(void *))
{
    /* The waiting rank starts first, so that it really waits. */
    pid_t p2 = fork_child(rank2, w);
    pid_t p1 = fork_child(partner, w);
    CU_ASSERT_FATAL(p1 > 0 && p2 > 0);
    struct tern_shm_calib_link link = { .out = w->ring[0], .in = w->ring[1],
                                        .pid = p1, .world = 1 };
    w->rc[0] = tern_shm_calibrate(&w->shared, 0, 1, &link, 0, &w->value[0]);
    int ok = wait_child(p1, 30) == 0;
    ok = wait_child(p2, 30) == 0 && ok;
    CU_ASSERT(ok);
    uint64_t v = atomic_load(&w->shared);
    for (int r = 0; r < 3; r++) {
        CU_ASSERT_EQUAL(w->rc[r], 0);
        CU_ASSERT_EQUAL(w->value[r], v);
    }
    return ok ? v : 0;
}

static void test_measure(void)
{
    struct world *w = new_world();
    uint64_t v = measure_with(w, rank1);
    printf("\n    the host's answer: %s%llu ", v == TERN_SHM_READ_NEVER ? "never, " : "",
           (unsigned long long)v);
    /* Never, or a power of two no smaller than the floor. */
    CU_ASSERT(v != 0);
    CU_ASSERT(v == TERN_SHM_READ_NEVER || (v >= TERN_SHM_EAGER_MIN && (v & (v - 1)) == 0));
    /* Every packet of the measurement was consumed. */
    CU_ASSERT_PTR_NULL(tern_shm_ring_peek(w->ring[0]));
    CU_ASSERT_PTR_NULL(tern_shm_ring_peek(w->ring[1]));
    free_world(w);
}

/* Child: local rank 1 that comes to the measurement late, past the 10 s
 * after which the others look whether it still runs. */
static int late_rank1(void *arg)
{
    struct timespec late = { 11, 0 };
    nanosleep(&late, NULL);
    return rank1(arg);
}

/* A partner that runs but comes late is waited for: on a busy host a rank
 * reached the measurement more than 10 s after its partner, and the job
 * used to fail in MPI_Init. */
static void test_late_partner(void)
{
    struct world *w = new_world();
    double t0 = now_s();
    CU_ASSERT(measure_with(w, late_rank1) != 0);
    CU_ASSERT(now_s() - t0 > 10.0);
    free_world(w);
}

static void test_no_measurement(void)
{
    struct world *w = new_world();
    struct tern_shm_calib_link link = { .out = w->ring[0], .in = w->ring[1],
                                        .pid = getpid(), .world = 1 };
    uint64_t v = 0;
    double t0 = now_s();

    /* Without `measure`, local rank 2 takes "never" without waiting, and
     * leaves the word to rank 0. */
    CU_ASSERT_EQUAL(tern_shm_calibrate(&w->shared, 2, 0, NULL, 0, &v), 0);
    CU_ASSERT_EQUAL(v, TERN_SHM_READ_NEVER);
    CU_ASSERT_EQUAL(atomic_load(&w->shared), 0);
    /* So does local rank 1, even with a link. */
    v = 0;
    CU_ASSERT_EQUAL(tern_shm_calibrate(&w->shared, 1, 0, &link, 0, &v), 0);
    CU_ASSERT_EQUAL(v, TERN_SHM_READ_NEVER);
    CU_ASSERT_EQUAL(atomic_load(&w->shared), 0);
    /* Local rank 0 publishes "never" at once, sending nothing. */
    v = 0;
    CU_ASSERT_EQUAL(tern_shm_calibrate(&w->shared, 0, 0, &link, 0, &v), 0);
    CU_ASSERT_EQUAL(v, TERN_SHM_READ_NEVER);
    CU_ASSERT_EQUAL(atomic_load(&w->shared), TERN_SHM_READ_NEVER);
    CU_ASSERT_PTR_NULL(tern_shm_ring_peek(w->ring[0]));
    /* With `measure` but no link, it publishes "never" as well. */
    atomic_store(&w->shared, 0);
    v = 0;
    CU_ASSERT_EQUAL(tern_shm_calibrate(&w->shared, 0, 1, NULL, 0, &v), 0);
    CU_ASSERT_EQUAL(v, TERN_SHM_READ_NEVER);
    CU_ASSERT_EQUAL(atomic_load(&w->shared), TERN_SHM_READ_NEVER);
    /* A waiting rank finds an answer already published and takes it. */
    atomic_store(&w->shared, 8192);
    v = 0;
    CU_ASSERT_EQUAL(tern_shm_calibrate(&w->shared, 2, 1, NULL, 0, &v), 0);
    CU_ASSERT_EQUAL(v, 8192);
    CU_ASSERT(now_s() - t0 < 1.0);
    free_world(w);
}

int main(void)
{
    static const struct test_entry tests[] = {
        { "crossover of the cost lines", test_crossover },
        { "measurement between two processes", test_measure },
        { "a partner that comes late", test_late_partner },
        { "no measurement", test_no_measurement },
        { NULL, NULL },
    };
    return run_suite("shm calibrate", tests);
}
