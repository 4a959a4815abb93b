/*
 * Process plumbing shared by mpirun and tern-hostd (see spawn.h).
 */
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "launcher/spawn.h"

void tern_spawn_child_setup(int in, int out, int err, pid_t parent)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    sigset_t none;
    sigemptyset(&none);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

int tern_spawn_timeout(const long long *deadlines, size_t n, long long now)
{
    long long next = 0;
    for (size_t i = 0; i < n; i++)
        if (deadlines[i] && (!next || deadlines[i] < next))
            next = deadlines[i];
    if (!next)
        return -1;
    return next > now ? (int)(next - now) : 0;
}
