/*
 * coll_floor: the floor for an 8-byte Allreduce of N processes on one host,
 * without MPI. Each process stores its value and a flag into an entry of
 * shared memory and waits until every entry carries the flag of the same
 * iteration; it then adds the N values. The entries are packed as Tern's
 * shared-memory collectives pack theirs (transports/shm/coll_area.h: 16
 * bytes, two sets used in turn, so with two processes both sets fit one
 * cache line). No library can finish such a call faster than the hardware
 * moves those lines and, with more processes than cores, the kernel
 * switches to each process once, so this is what an MPI_Allreduce of 8
 * bytes is compared with (docs/benchmarks.md).
 *
 * A waiting process spins (spin) or calls sched_yield between looks
 * (yield); with more processes than cores only yield makes sense.
 *
 * Usage: coll_floor N ITERATIONS spin|yield
 * Prints: "floor: N processes, yield: X us per allreduce"; exits 1 if a
 * sum came out wrong.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One process's contribution to one iteration. */
struct entry {
    _Atomic uint64_t flag;  /* The iteration whose value is in. */
    uint64_t value;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Process r's value in iteration i; the sum over r is i * n (n + 1) / 2. */
static uint64_t value_of(int r, uint64_t i)
{
    return (uint64_t)(r + 1) * i;
}

/* Runs process r's iterations; returns how many sums came out wrong. Set
 * i % 2 may be overwritten in iteration i: every process wrote its flag of
 * i - 1 only after it had read all of set (i - 2) % 2. */
static long run(struct entry *e, int n, int r, uint64_t iters, int yield)
{
    long wrong = 0;
    for (uint64_t i = 1; i <= iters; i++) {
        struct entry *set = &e[(i % 2) * (uint64_t)n];
        set[r].value = value_of(r, i);
        atomic_store_explicit(&set[r].flag, i, memory_order_release);
        uint64_t sum = 0;
        for (int q = 0; q < n; q++) {
            while (atomic_load_explicit(&set[q].flag, memory_order_acquire) < i)
                if (yield)
                    sched_yield();
            sum += set[q].value;
        }
        wrong += sum != i * (uint64_t)n * (uint64_t)(n + 1) / 2;
    }
    return wrong;
}

int main(int argc, char **argv)
{
    if (argc != 4 || atoi(argv[1]) < 2 || atoi(argv[2]) < 1 ||
        (strcmp(argv[3], "spin") && strcmp(argv[3], "yield"))) {
        fprintf(stderr, "usage: coll_floor N ITERATIONS spin|yield (N >= 2)\n");
        return 2;
    }
    int n = atoi(argv[1]), yield = !strcmp(argv[3], "yield");
    uint64_t iters = (uint64_t)atol(argv[2]);
    struct entry *e = mmap(NULL, 2 * (size_t)n * sizeof *e + sizeof(_Atomic long),
                           PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (e == MAP_FAILED) {
        perror("coll_floor: mmap");
        return 2;
    }
    /* After the entries: the wrong sums of all processes. */
    _Atomic long *wrong = (_Atomic long *)&e[2 * n];
    double t0 = now();
    for (int r = 0; r < n; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("coll_floor: fork");
            return 2;
        }
        if (pid == 0) {
            atomic_fetch_add(wrong, run(e, n, r, iters, yield));
            _exit(0);
        }
    }
    while (wait(NULL) > 0)
        ;
    printf("floor: %d processes, %s: %.3f us per allreduce\n", n, argv[3],
           (now() - t0) * 1e6 / (double)iters);
    if (atomic_load(wrong)) {
        fprintf(stderr, "coll_floor: %ld sums came out wrong\n", atomic_load(wrong));
        return 1;
    }
    return 0;
}
