/*
 * Micro-benchmark of the shared-memory fast path: one-way latency of an
 * 8-byte ping-pong through two rings between two forked processes pinned to
 * cores 0 and 1 (not part of make check; a speed goal lives in a benchmark,
 * never in a timed test).
 *
 * Usage: ring_bench [iterations]   (default 1000000)
 *
 * It reports three variants, each the best of five runs: a bare cache line
 * ping-pong (two flags, the hardware's floor for comparison), the bare ring
 * (push, poll, pop) and the transport's send path (push plus the doorbell
 * check, which adds a full fence). One-way latency is the round-trip time
 * over two.
 */
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "transports/shm/doorbell.h"
#include "transports/shm/ring.h"

#define CELLS 16
#define CELL_SIZE 4096
#define RUNS 5

enum variant { FLAG, BARE_RING, SEND_PATH, NVARIANTS };

static const char *const variant_name[NVARIANTS] = {
    "cache line (floor)", "bare ring", "ring + doorbell (send path)",
};

struct shared {
    alignas(TERN_SHM_CACHE_LINE) _Atomic uint64_t flag[2][8]; /* One line each. */
    struct tern_shm_doorbell db[2];
    struct tern_shm_ring *ring[2];   /* ring[i] carries packets to side i. */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0)
        perror("ring_bench: sched_setaffinity");
}

static void send8(struct shared *sh, int to, uint64_t v, enum variant var)
{
    if (var == FLAG) {
        atomic_store_explicit(&sh->flag[to][0], v + 1, memory_order_release);
        return;
    }
    while (tern_shm_ring_push(sh->ring[to], &v, sizeof(v), NULL, 0) != 0)
        ;
    if (var == SEND_PATH)
        tern_shm_doorbell_ring(&sh->db[to]);
}

static uint64_t recv8(struct shared *sh, int me, uint64_t want, enum variant var)
{
    struct tern_shm_cell *c;
    uint64_t v;

    if (var == FLAG) {
        while (atomic_load_explicit(&sh->flag[me][0], memory_order_acquire) != want + 1)
            __builtin_ia32_pause();
        return want;
    }
    while ((c = tern_shm_ring_peek(sh->ring[me])) == NULL)
        __builtin_ia32_pause();
    __builtin_memcpy(&v, c->data, sizeof(v));
    tern_shm_ring_pop(sh->ring[me]);
    return v;
}

/* Side 0 starts each round trip, side 1 echoes; returns seconds for side 0. */
static double pingpong(struct shared *sh, int me, long iters, enum variant var,
                       uint64_t *seq)
{
    double t0 = now_s();

    for (long i = 0; i < iters; i++, (*seq)++) {
        if (me == 0) {
            send8(sh, 1, *seq, var);
            recv8(sh, 0, *seq, var);
        } else {
            send8(sh, 0, recv8(sh, 1, *seq, var), var);
        }
    }
    return now_s() - t0;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 1000000;
    size_t ring_bytes = tern_shm_ring_bytes(CELLS, CELL_SIZE);
    char *mem = mmap(NULL, sizeof(struct shared) + 2 * ring_bytes + 4096,
                     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED || iters < 1) {
        fprintf(stderr, "usage: ring_bench [iterations]\n");
        return 1;
    }
    struct shared *sh = (struct shared *)mem;
    for (int i = 0; i < 2; i++) {
        sh->ring[i] = (struct tern_shm_ring *)(mem + 4096 + (size_t)i * ring_bytes);
        tern_shm_ring_init(sh->ring[i], CELLS, CELL_SIZE);
    }
    pid_t pid = fork();
    int me = pid == 0 ? 1 : 0;
    pin(me);
    uint64_t seq = 0;
    for (enum variant var = FLAG; var < NVARIANTS; var++) {
        double best = 1e30;
        pingpong(sh, me, iters / 10 + 1, var, &seq);  /* Warm up. */
        for (int run = 0; run < RUNS; run++) {
            double t = pingpong(sh, me, iters, var, &seq);
            best = t < best ? t : best;
        }
        if (me == 0)
            printf("%-28s one-way latency %6.1f ns (best of %d x %ld round trips)\n",
                   variant_name[var], best / (2.0 * (double)iters) * 1e9, RUNS, iters);
    }
    if (me == 1)
        _exit(0);
    waitpid(pid, NULL, 0);
    return 0;
}
