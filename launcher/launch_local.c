/*
 * Starting the ranks on this host.
 *
 * Each rank is forked, put into its own process group (so a signal to the
 * group also reaches the children of a shell-script wrapper) and given
 * PR_SET_PDEATHSIG, so the process mpirun started dies with mpirun even on
 * SIGKILL; the library's watchdog covers the processes below it. stdout and
 * stderr are pipes read by iof.c; stdin is a pipe from mpirun for rank 0 and
 * /dev/null for the others. The environment is mpirun's, plus -x settings,
 * plus the TERN_* wire-up variables (and the OMPI_/PMI_ aliases tools look
 * for); the job secret is only ever in the environment.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/launcher.h"
#include "tern/err.h"
#include "tern/log.h"

static void setenv_int(const char *name, int v)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%d", v);
    setenv(name, buf, 1);
}

/* Sets the rank's environment; runs in the child after fork. */
static void child_env(const struct tern_job *job, int rank, const char *local_ranks)
{
    const struct tern_cli *cli = job->cli;
    for (int i = 0; i < cli->n_env; i++) {
        char *eq = strchr(cli->env[i], '=');
        if (eq) {
            char *name = strndup(cli->env[i], (size_t)(eq - cli->env[i]));
            if (name)
                setenv(name, eq + 1, 1);
            free(name);
        }
    }
    setenv_int("TERN_RANK", rank);
    setenv_int("TERN_SIZE", job->size);
    setenv_int("TERN_LOCAL_RANK", rank);
    setenv_int("TERN_LOCAL_SIZE", job->size);
    setenv("TERN_LOCAL_RANKS", local_ranks, 1);
    setenv_int("TERN_NODE_RANK", 0);
    setenv("TERN_JOBID", job->jobid, 1);
    setenv("TERN_KVS_ADDR", job->kvs_addr, 1);
    setenv("TERN_JOB_SECRET", job->secret_hex, 1);
    setenv_int("TERN_PGID", (int)getpid());
    setenv_int("OMPI_COMM_WORLD_RANK", rank);
    setenv_int("OMPI_COMM_WORLD_SIZE", job->size);
    setenv_int("OMPI_COMM_WORLD_LOCAL_RANK", rank);
    setenv_int("OMPI_COMM_WORLD_LOCAL_SIZE", job->size);
    setenv_int("PMI_RANK", rank);
    setenv_int("PMI_SIZE", job->size);
}

/* The child between fork and exec. Never returns. */
static void child(const struct tern_job *job, int rank, int in, int out, int err,
                  const char *local_ranks, pid_t parent)
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
    if (job->cli->wdir && chdir(job->cli->wdir) != 0) {
        fprintf(stderr, "mpirun: rank %d cannot enter --wdir '%s': %s\n", rank,
                job->cli->wdir, strerror(errno));
        _exit(127);
    }
    child_env(job, rank, local_ranks);
    execvp(job->cli->argv[0], job->cli->argv);
    fprintf(stderr, "mpirun: rank %d cannot execute '%s': %s; check the program "
            "name and its permissions\n", rank, job->cli->argv[0], strerror(errno));
    _exit(127);
}

/* "0,1,...,n-1": the world ranks on this host in local-rank order. */
static char *local_rank_list(int n)
{
    size_t cap = (size_t)n * 8 + 1, len = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, i ? ",%d" : "%d", i);
    return s;
}

/* Starts one rank; returns 0 or a TERN_E* code. */
static int start_rank(struct tern_job *job, struct tern_rank *r, int devnull,
                      const char *local_ranks)
{
    int out[2], err[2], in[2] = { devnull, -1 };
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
        return TERN_EIO;
    int inherit = r->rank == 0 ? tern_iof_stdin_inherit() : -1;
    if (inherit == 1)
        in[0] = 0;
    else if (inherit == 0 && pipe2(in, O_CLOEXEC))
        return TERN_EIO;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return TERN_EIO;
    if (pid == 0)
        child(job, r->rank, in[0], out[1], err[1], local_ranks, parent);
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
    char *local_ranks = local_rank_list(job->size);
    if (devnull < 0 || !local_ranks) {
        tern_mpirun_msg("cannot prepare the ranks' stdin or environment: %s",
                        strerror(errno));
        return TERN_EIO;
    }
    int rc = 0;
    for (int i = 0; i < job->size && !rc; i++) {
        rc = start_rank(job, &job->ranks[i], devnull, local_ranks);
        if (rc) {
            tern_job_fail(job, TERN_MPIRUN_FAIL_EXIT, "cannot start rank %d on "
                          "host %s: %s; check the process and file limits "
                          "(ulimit -u, ulimit -n)", i, job->hostname, strerror(errno));
        }
    }
    TERN_LOG(1, "started %d ranks of job %s, store at %s", job->size, job->jobid,
             job->kvs_addr);
    close(devnull);
    free(local_ranks);
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
