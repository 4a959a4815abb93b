/*
 * Starting the ranks on this host.
 *
 * Each rank is forked, put into its own process group (so a signal to the
 * group also reaches the children of a shell-script wrapper) and given
 * PR_SET_PDEATHSIG, so the process mpirun started dies with mpirun even on
 * SIGKILL; the library's watchdog covers the processes below it. stdout and
 * stderr are pipes read by iof.c; stdin is a pipe from mpirun for rank 0 and
 * /dev/null for the others. Only the ranks the plan puts on this machine
 * are started here. The environment is mpirun's plus tern_rank_env()
 * (rankenv.c: -x settings, the TERN_* wire-up variables, the OMPI_/PMI_
 * aliases) plus TERN_PGID, the rank's process group; the job secret is only
 * ever in the environment.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/bind.h"
#include "launcher/spawn.h"
#include "launcher/launcher.h"
#include "tern/err.h"
#include "tern/log.h"

/* The child between fork and exec. Never returns. */
static void child(const struct tern_job *job, int rank, int in, int out, int err,
                  char **env, pid_t parent)
{
    tern_spawn_child_setup(in, out, err, parent);
    if (job->cli->wdir && chdir(job->cli->wdir) != 0) {
        fprintf(stderr, "mpirun: rank %d cannot enter --wdir '%s': %s\n", rank,
                job->cli->wdir, strerror(errno));
        _exit(127);
    }
    for (char **e = env; *e; e++)
        putenv(*e);
    char pgid[16];
    snprintf(pgid, sizeof pgid, "%d", (int)getpid());
    setenv("TERN_PGID", pgid, 1);
    /* Binds with the local rank and size the rank itself will see. */
    const char *lr = getenv("TERN_LOCAL_RANK"), *ls = getenv("TERN_LOCAL_SIZE");
    if (tern_bind_child(lr ? atoi(lr) : rank, ls ? atoi(ls) : job->size) != 0)
        _exit(127);
    execvp(job->cli->argv[0], job->cli->argv);
    fprintf(stderr, "mpirun: rank %d cannot execute '%s': %s; check the program "
            "name and its permissions\n", rank, job->cli->argv[0], strerror(errno));
    _exit(127);
}

/* Starts one rank; returns 0 or a TERN_E* code. */
static int start_rank(struct tern_job *job, struct tern_rank *r, int devnull)
{
    int out[2], err[2], in[2] = { devnull, -1 };
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
        return TERN_EIO;
    int inherit = r->rank == 0 ? tern_iof_stdin_inherit() : -1;
    if (inherit == 1)
        in[0] = 0;
    else if (inherit == 0 && pipe2(in, O_CLOEXEC))
        return TERN_EIO;
    char **env = tern_rank_env(job, r->rank);
    if (!env)
        return TERN_ENOMEM;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        child(job, r->rank, in[0], out[1], err[1], env, parent);
    int saved = errno;
    tern_rank_env_free(env);
    errno = saved;
    if (pid < 0)
        return TERN_EIO;
    setpgid(pid, pid);
    r->pid = pid;
    r->running = 1;
    job->running++;
    close(out[1]);
    close(err[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    if (tern_iof_add_rank(job, r, out[0], err[0]))
        return TERN_EIO;
    if (in[1] >= 0) {
        close(in[0]);
        return tern_iof_stdin(job, in[1]);
    }
    return 0;
}

int tern_launch_local(struct tern_job *job)
{
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        tern_mpirun_msg("cannot open /dev/null for the ranks' stdin: %s",
                        strerror(errno));
        return TERN_EIO;
    }
    const struct tern_plan *plan = &job->plan;
    int rc = 0, started = 0;
    for (int i = 0; i < job->size && !rc; i++) {
        if (!plan->hl.hosts[plan->host_of[i]].local)
            continue;
        rc = start_rank(job, &job->ranks[i], devnull);
        if (rc) {
            tern_job_fail(job, TERN_MPIRUN_FAIL_EXIT, "cannot start rank %d on "
                          "host %s: %s; check the memory, process and file limits "
                          "(ulimit -v, ulimit -u, ulimit -n)", i, job->hostname,
                          rc == TERN_ENOMEM ? "out of memory" : strerror(errno));
        } else {
            started++;
        }
    }
    TERN_LOG(1, "started %d of %d ranks of job %s here, store at %s", started,
             job->size, job->jobid, job->kvs_addr);
    close(devnull);
    /* A start failure is handled like any failure: the loop tears down. */
    return 0;
}

void tern_launch_signal(struct tern_job *job, int sig)
{
    for (int i = 0; i < job->size; i++) {
        struct tern_rank *r = &job->ranks[i];
        if (r->running && r->pid > 0)
            kill(-r->pid, sig);
    }
}

void tern_launch_reap(struct tern_job *job)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        for (int i = 0; i < job->size; i++) {
            if (job->ranks[i].pid == pid && job->ranks[i].running) {
                tern_job_rank_exited(job, &job->ranks[i], status);
                break;
            }
        }
    }
}
