/*
 * barrier_floor: the floor for MPI_Barrier of N processes on one host,
 * without MPI, back to back and timed OSU's way.
 *
 * Each process is pinned to its own CPU (the i-th of the set it inherited,
 * as mpirun binds ranks that fit the cores), stores the iteration's number
 * into its flag and spins until every flag carries it. The flags are packed
 * into one line, as Tern packs its barrier flags
 * (transports/shm/coll_area.h). No library can pass a barrier faster than
 * the hardware moves that line between the cores.
 *
 * The loop runs twice: back to back, timed as a whole, and with every call
 * timed alone by two clock reads around it, as OSU's osu_barrier times a
 * call with MPI_Wtime (clock_gettime in Tern, Open MPI and MPICH alike).
 * The second is the floor of the figure OSU prints, and it is much higher
 * than the first: the reads sit on the path from one call to the next in
 * every process (docs/benchmarks.md).
 *
 * Usage: barrier_floor N ITERATIONS
 * Prints: "barrier floor: N processes: X us per call back to back, Y us
 * per call timed alone (averages over processes)"; exits 2 on bad arguments
 * or when the inherited CPU set has fewer than N CPUs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 8

struct shared {
    _Alignas(64) _Atomic uint64_t flag[MAX_PROCS];
    _Alignas(64) double back[MAX_PROCS];    /* Seconds of the back-to-back loop. */
    double spent[MAX_PROCS];                /* Seconds in calls timed alone. */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One barrier: iteration i of process r among n. */
static void barrier(struct shared *sh, int n, int r, uint64_t i)
{
    atomic_store_explicit(&sh->flag[r], i, memory_order_release);
    for (int q = 0; q < n; q++)
        while (atomic_load_explicit(&sh->flag[q], memory_order_acquire) < i)
            ;
}

/* Process r's two loops; iterations are numbered on across both. */
static void run(struct shared *sh, int n, int r, uint64_t iters)
{
    double t0 = now();
    for (uint64_t i = 1; i <= iters; i++)
        barrier(sh, n, r, i);
    sh->back[r] = now() - t0;
    double spent = 0.0;
    for (uint64_t i = iters + 1; i <= 2 * iters; i++) {
        double t = now();
        barrier(sh, n, r, i);
        spent += now() - t;
    }
    sh->spent[r] = spent;
}

/* The k-th CPU of the inherited set, or -1. */
static int nth_cpu(const cpu_set_t *set, int k)
{
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, set) && k-- == 0)
            return c;
    return -1;
}

int main(int argc, char **argv)
{
    int n = argc == 3 ? atoi(argv[1]) : 0;
    long iters = argc == 3 ? atol(argv[2]) : 0;
    if (n < 2 || n > MAX_PROCS || iters < 1) {
        fprintf(stderr, "usage: barrier_floor N ITERATIONS (2 <= N <= %d)\n", MAX_PROCS);
        return 2;
    }
    cpu_set_t inherited;
    if (sched_getaffinity(0, sizeof inherited, &inherited) != 0 ||
        CPU_COUNT(&inherited) < n) {
        fprintf(stderr, "barrier_floor: %d processes need %d CPUs, the inherited set has %d\n",
                n, n, CPU_COUNT(&inherited));
        return 2;
    }
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE,
                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        perror("barrier_floor: mmap");
        return 2;
    }
    for (int r = 0; r < n; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("barrier_floor: fork");
            return 2;
        }
        if (pid == 0) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(nth_cpu(&inherited, r), &one);
            if (sched_setaffinity(0, sizeof one, &one) != 0)
                perror("barrier_floor: sched_setaffinity");
            run(sh, n, r, (uint64_t)iters);
            _exit(0);
        }
    }
    while (wait(NULL) > 0)
        ;
    double back = 0.0, timed = 0.0;
    for (int r = 0; r < n; r++) {
        back += sh->back[r];
        timed += sh->spent[r];
    }
    printf("barrier floor: %d processes: %.3f us per call back to back, %.3f us per "
           "call timed alone (averages over processes)\n",
           n, back * 1e6 / n / (double)iters, timed * 1e6 / n / (double)iters);
    return 0;
}
