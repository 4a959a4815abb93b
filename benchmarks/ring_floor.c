/*
 * ring_floor: the floor for a token ring of N processes on this machine,
 * without MPI. N processes pass a token around a ring through shared
 * memory; a process that waits for it either sleeps on a futex (woken by
 * its predecessor) or keeps yielding the core. No MPI library can pass a
 * token faster than the operating system wakes or switches to the process
 * that must take it, so this is what benchmarks/oversub_ring.sh compares
 * the MPIs' rings (examples/ring.c) with when ranks outnumber cores.
 *
 * Usage: ring_floor N LAPS futex|yield
 * Prints: "floor: N processes, futex: X us per hop"; exits 1 if the token
 * came back wrong.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One word per process, a cache line apart: the lap it may run. */
#define STRIDE 16

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void wait_turn(_Atomic unsigned *w, unsigned lap, int futex)
{
    unsigned v;
    while ((v = atomic_load(w)) < lap) {
        if (futex)
            syscall(SYS_futex, (unsigned *)w, FUTEX_WAIT, v, NULL, NULL, 0);
        else
            sched_yield();
    }
}

int main(int argc, char **argv)
{
    if (argc != 4 || atoi(argv[1]) < 2 || atoi(argv[2]) < 1 ||
        (strcmp(argv[3], "futex") && strcmp(argv[3], "yield"))) {
        fprintf(stderr, "usage: ring_floor N LAPS futex|yield (N >= 2)\n");
        return 2;
    }
    int n = atoi(argv[1]), laps = atoi(argv[2]), futex = !strcmp(argv[3], "futex");
    _Atomic unsigned *words = mmap(NULL, (size_t)(n + 1) * STRIDE * sizeof(unsigned),
                                   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (words == MAP_FAILED) {
        perror("ring_floor: mmap");
        return 2;
    }
    /* words[n * STRIDE] is the token, which every process adds its index to. */
    _Atomic unsigned *token = &words[(size_t)n * STRIDE];
    double t0 = now();
    for (int r = 0; r < n; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("ring_floor: fork");
            return 2;
        }
        if (pid > 0)
            continue;
        _Atomic unsigned *mine = &words[(size_t)r * STRIDE];
        _Atomic unsigned *next = &words[(size_t)((r + 1) % n) * STRIDE];
        for (unsigned lap = 1; lap <= (unsigned)laps; lap++) {
            /* Rank 0 starts each lap; the others wait for their predecessor. */
            if (r > 0 || lap > 1)
                wait_turn(mine, lap, futex);
            atomic_fetch_add(token, (unsigned)r);
            /* The last process hands rank 0 the next lap. */
            atomic_store(next, r == n - 1 ? lap + 1 : lap);
            if (futex)
                syscall(SYS_futex, (unsigned *)next, FUTEX_WAKE, 1, NULL, NULL, 0);
        }
        _exit(0);
    }
    while (wait(NULL) > 0)
        ;
    double us = (now() - t0) * 1e6 / ((double)laps * n);
    unsigned expect = (unsigned)laps * (unsigned)(n * (n - 1) / 2);
    printf("floor: %d processes, %s: %.2f us per hop\n", n, argv[3], us);
    if (atomic_load(token) != expect) {
        fprintf(stderr, "ring_floor: token %u, expected %u\n", atomic_load(token), expect);
        return 1;
    }
    return 0;
}
