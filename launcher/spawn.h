/*
 * Process plumbing shared by mpirun (launch_local.c) and tern-hostd
 * (hostd_rank.c, hostd.c): the rank between fork and exec, and the epoll
 * timeout of an event loop with several deadlines.
 */
#ifndef TERN_LAUNCHER_SPAWN_H
#define TERN_LAUNCHER_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

/* In a freshly forked rank: its own process group (so one signal reaches a
 * wrapper script's children too), death with the parent (PR_SET_PDEATHSIG,
 * and _exit(127) if the parent is already gone), in/out/err as stdin,
 * stdout and stderr, SIGPIPE at its default and no blocked signals. */
void tern_spawn_child_setup(int in, int out, int err, pid_t parent);

/* Milliseconds from now until the earliest of the n deadlines that are set
 * (non-zero), 0 if one has passed, or -1 when none is set: the timeout for
 * epoll_wait. */
int tern_spawn_timeout(const long long *deadlines, size_t n, long long now);

#endif
