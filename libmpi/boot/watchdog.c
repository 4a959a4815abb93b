/*
 * The watchdog: no rank outlives its job.
 *
 * A thread polls the store socket for POLLRDHUP only (so it never takes data
 * the main thread is waiting for) plus an eventfd used to stop it. When
 * mpirun goes away, even by SIGKILL, the kernel closes its end, the poll
 * returns, and the thread prints one line and kills the rank with SIGKILL:
 * the rank's whole process group when mpirun made one for it (so a
 * shell-script wrapper and its children go too), else just this process.
 * All signals are blocked in the thread, so it never runs a handler.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "libmpi/boot/boot_int.h"
#include "tern/err.h"
#include "tern/log.h"

static pthread_t thread;
static int running;
static int sock_fd = -1, stop_fd = -1, group = -1;

static void *watch(void *arg)
{
    (void)arg;
    struct pollfd p[2] = { { .fd = sock_fd, .events = POLLRDHUP },
                           { .fd = stop_fd, .events = POLLIN } };
    for (;;) {
        int n = poll(p, 2, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || p[1].revents)
            return NULL;
        if (p[0].revents)
            break;
    }
    char line[512];
    int len = snprintf(line, sizeof line, "tern: %s: lost the connection to mpirun "
                       "(it exited or was killed); terminating this rank\n",
                       tern_log_prefix());
    if (len > 0 && write(2, line, (size_t)len) < 0) {
        /* Nobody may be reading stderr any more; we are going anyway. */
    }
    if (group > 0 && getpgrp() == group)
        kill(0, SIGKILL);
    kill(getpid(), SIGKILL);
    return NULL;
}

int tern_boot_watchdog_start(int fd, int pgid)
{
    sigset_t all, old;
    sock_fd = fd;
    group = pgid;
    stop_fd = eventfd(0, EFD_CLOEXEC);
    if (stop_fd < 0)
        return TERN_EIO;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    int rc = pthread_create(&thread, &attr, watch, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        close(stop_fd);
        stop_fd = -1;
        return TERN_EIO;
    }
    running = 1;
    return 0;
}

void tern_boot_watchdog_stop(void)
{
    if (!running)
        return;
    uint64_t one = 1;
    if (write(stop_fd, &one, sizeof one) == (ssize_t)sizeof one)
        pthread_join(thread, NULL);
    else
        pthread_detach(thread);
    close(stop_fd);
    stop_fd = -1;
    running = 0;
}
