/*
 * Helpers shared by the shared-memory transport's unit tests: shared
 * anonymous mappings, running a function in a forked child with a bounded
 * wait, and a CUnit main that runs one suite.
 *
 * Every test that forks waits for its children with a deadline and kills
 * them when it passes, so a hung child fails the test instead of hanging
 * make check.
 */
#ifndef TEST_SHM_UTIL_H
#define TEST_SHM_UTIL_H

#include <CUnit/Basic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct test_entry {
    const char *name;
    void (*fn)(void);
};

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Zero-filled memory shared with children forked later. */
static inline void *shared_map(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* Runs fn(arg) in a child process, which exits with its return value. */
static inline pid_t fork_child(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(fn(arg));
    return pid;
}

/* Waits up to timeout_s for the child; kills it if it is late. Returns its
 * exit status, or -1 when it was killed or died of a signal. */
static inline int wait_child(pid_t pid, double timeout_s)
{
    double deadline = now_s() + timeout_s;
    int status;

    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        if (r < 0)
            return -1;
        if (now_s() > deadline) {
            fprintf(stderr, "child %d timed out; killing it\n", (int)pid);
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        usleep(1000);
    }
}

/* Runs one suite; returns the process exit status for make check. */
static inline int run_suite(const char *name, const struct test_entry *tests)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 99;
    CU_pSuite s = CU_add_suite(name, NULL, NULL);
    for (int i = 0; s && tests[i].name; i++)
        if (!CU_add_test(s, tests[i].name, tests[i].fn))
            s = NULL;
    if (!s) {
        CU_cleanup_registry();
        return 99;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    int failed = (int)(CU_get_number_of_failures()
                       + CU_get_number_of_tests_failed());
    CU_cleanup_registry();
    return failed ? 1 : 0;
}

#endif
