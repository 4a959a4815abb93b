/*
 * The job: mpirun's event loop, signals, deadlines, exit status, teardown.
 *
 * One epoll set holds the signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT), the store's sockets, the ranks' output pipes, our stdin and the
 * remote hosts' ssh connections. The loop sleeps in epoll_wait with no
 * timeout unless a deadline is armed (--timeout, the SIGTERM->SIGKILL
 * grace, the final pipe drain, a pending handshake, the hosts' keepalives),
 * so a job on one host never polls and mpirun exits as soon as
 * the last rank is reaped and its pipes are at EOF.
 *
 * Start: the store, then (for a multi-host job) every remote host's ssh
 * connection and preflight, then the local ranks, then START to the hosts,
 * so a host that fails its preflight leaves no rank running anywhere.
 * Remote ranks are ranks like the local ones; ssh_run.c reports their exits.
 *
 * Ending: the first cause (a failed rank on any host, a lost host,
 * MPI_Abort, a signal to mpirun, --timeout) prints its one line, fixes the
 * exit code and sends SIGTERM (SIGINT for Ctrl-C) to every rank's process
 * group, here and through every tern-hostd; SIGKILL follows after the grace
 * period or a second signal. Later failures are consequences and stay
 * silent.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher/launcher.h"
#include "launcher/spawn.h"
#include "tern/clock.h"
#include "tern/err.h"
#include "tern/log.h"
#include "tern/wire.h"

int tern_loop_add(struct tern_job *job, struct tern_ev *ev, uint32_t events)
{
    struct epoll_event e = { .events = events, .data.ptr = ev };
    return epoll_ctl(job->epfd, EPOLL_CTL_ADD, ev->fd, &e) ? TERN_EIO : 0;
}

int tern_loop_mod(struct tern_job *job, struct tern_ev *ev, uint32_t events)
{
    struct epoll_event e = { .events = events, .data.ptr = ev };
    return epoll_ctl(job->epfd, EPOLL_CTL_MOD, ev->fd, &e) ? TERN_EIO : 0;
}

void tern_loop_del(struct tern_job *job, struct tern_ev *ev)
{
    epoll_ctl(job->epfd, EPOLL_CTL_DEL, ev->fd, NULL);
}

/* Starts killing: sig to all ranks now, SIGKILL after the grace period. */
static void start_kill(struct tern_job *job, int sig)
{
    if (job->kill_stage >= 1)
        return;
    job->kill_stage = 1;
    tern_launch_signal(job, sig);
    tern_ssh_signal(job, sig);
    job->kill_at = tern_clock_ms() + job->grace_ms;
}

void tern_job_fail(struct tern_job *job, int code, const char *fmt, ...)
{
    if (job->ending)
        return;
    job->ending = 1;
    job->exit_code = code;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        tern_mpirun_vmsg(fmt, ap);
        va_end(ap);
    }
    start_kill(job, SIGTERM);
}

const char *tern_job_rank_host(const struct tern_job *job, int rank)
{
    const struct tern_plan *p = &job->plan;
    if (p->host_of && rank >= 0 && rank < p->np && !p->hl.hosts[p->host_of[rank]].local)
        return p->hl.hosts[p->host_of[rank]].name;
    return job->hostname;
}

int tern_job_rank_pid(const struct tern_rank *r)
{
    return r->pid > 0 ? (int)r->pid : (int)r->remote_pid;
}

void tern_job_rank_exited(struct tern_job *job, struct tern_rank *r, int status)
{
    r->running = 0;
    r->status = status;
    job->running--;
    /* Whatever the rank left behind in its process group goes with it (a
     * remote rank's hostd does this there). */
    if (r->pid > 0)
        kill(-r->pid, SIGKILL);
    tern_kvs_drain_rank(job, r->rank);
    const char *h = tern_job_rank_host(job, r->rank);
    int pid = tern_job_rank_pid(r);
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        tern_job_fail(job, 128 + sig, "rank %d (pid %d) on host %s was killed by "
                      "signal %d (%s)", r->rank, pid, h, sig, strsignal(sig));
    } else if (WEXITSTATUS(status) != 0) {
        tern_job_fail(job, WEXITSTATUS(status), "rank %d (pid %d) on host %s "
                      "exited with code %d", r->rank, pid, h, WEXITSTATUS(status));
    } else if (r->connected && !r->finalized) {
        tern_job_fail(job, TERN_MPIRUN_FAIL_EXIT, "rank %d (pid %d) on host %s "
                      "exited without calling MPI_Finalize", r->rank, pid, h);
    } else {
        TERN_LOG(1, "rank %d (pid %d) on host %s exited normally", r->rank, pid, h);
        tern_job_check_fence(job);
    }
    if (job->running == 0)
        job->drain_at = tern_clock_ms() + 1000;
}

void tern_job_check_fence(struct tern_job *job)
{
    int waiting = 0, gone = -1;
    for (int i = 0; i < job->size; i++) {
        struct tern_rank *r = &job->ranks[i];
        waiting |= r->fenced;
        if (!r->running && !r->connected && gone < 0)
            gone = i;
    }
    if (waiting && gone >= 0)
        tern_job_fail(job, TERN_MPIRUN_FAIL_EXIT, "rank %d (pid %d) on host %s "
                      "exited without calling MPI_Init while other ranks wait for "
                      "it in MPI_Init", gone, tern_job_rank_pid(&job->ranks[gone]),
                      tern_job_rank_host(job, gone));
}

static void on_signal(struct tern_job *job, struct tern_ev *ev, uint32_t events)
{
    (void)events;
    struct signalfd_siginfo si;
    while (read(ev->fd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            tern_launch_reap(job);
        } else if (job->ending) {
            /* A second signal: no more grace. */
            job->kill_at = tern_clock_ms();
        } else if (sig == SIGINT) {
            job->ending = 1;
            job->exit_code = 130;
            tern_mpirun_msg("interrupted; forwarding SIGINT to the ranks "
                            "(press Ctrl-C again to kill them now)");
            start_kill(job, SIGINT);
        } else {
            tern_job_fail(job, 128 + sig, "received signal %d (%s); killing the job",
                          sig, strsignal(sig));
        }
    }
}

/* Fires the deadlines that have passed; returns the epoll timeout to use. */
static int deadlines(struct tern_job *job)
{
    long long now = tern_clock_ms();
    if (job->timeout_at && now >= job->timeout_at) {
        job->timeout_at = 0;
        tern_job_fail(job, TERN_MPIRUN_TIMEOUT_EXIT, "the job ran longer than "
                      "--timeout %d s; killing it", job->cli->timeout);
    }
    if (job->kill_at && now >= job->kill_at) {
        job->kill_at = 0;
        job->kill_stage = 2;
        tern_launch_signal(job, SIGKILL);
        tern_ssh_signal(job, SIGKILL);
    }
    long long k = tern_kvs_deadline(job, now);
    long long ssh = tern_ssh_deadline(job, now);
    long long cand[] = { job->timeout_at, job->kill_at, job->drain_at, k, ssh };
    return tern_spawn_timeout(cand, sizeof cand / sizeof cand[0], now);
}

static int setup_signals(struct tern_job *job)
{
    static const int stop[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    /* A signal ignored at start (nohup, a background job of a script)
     * stays ignored, as for any well-behaved program. */
    for (size_t i = 0; i < sizeof stop / sizeof stop[0]; i++) {
        struct sigaction old;
        if (sigaction(stop[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaddset(&set, stop[i]);
    }
    if (sigprocmask(SIG_BLOCK, &set, NULL))
        return TERN_EIO;
    job->sig_ev.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    job->sig_ev.cb = on_signal;
    if (job->sig_ev.fd < 0)
        return TERN_EIO;
    return tern_loop_add(job, &job->sig_ev, EPOLLIN);
}

int tern_job_run(struct tern_job *job)
{
    job->epfd = epoll_create1(EPOLL_CLOEXEC);
    job->stdin_pipe = -1;
    job->grace_ms = tern_env_long("TERN_KILL_GRACE_MS", 1000,
        "Milliseconds between SIGTERM and SIGKILL when mpirun ends a job");
    if (job->epfd < 0 || setup_signals(job)) {
        tern_mpirun_msg("cannot set up the event loop: %s", strerror(errno));
        return TERN_MPIRUN_FAIL_EXIT;
    }
    signal(SIGPIPE, SIG_IGN);
    if (tern_kvs_start(job))
        return TERN_MPIRUN_FAIL_EXIT;
    /* Every remote host passes its preflight before any rank starts. */
    if (tern_ssh_start(job)) {
        tern_ssh_stop(job);
        tern_kvs_stop(job);
        return job->exit_code ? job->exit_code : TERN_MPIRUN_FAIL_EXIT;
    }
    if (tern_launch_local(job))
        return TERN_MPIRUN_FAIL_EXIT;
    tern_ssh_run(job);
    if (job->cli->timeout)
        job->timeout_at = tern_clock_ms() + 1000LL * job->cli->timeout;
    while (job->running > 0 || job->open_streams > 0) {
        int timeout = deadlines(job);
        if (job->running == 0 && job->drain_at && tern_clock_ms() >= job->drain_at)
            break;
        struct epoll_event evs[64];
        int n = epoll_wait(job->epfd, evs, 64, timeout);
        if (n < 0 && errno != EINTR) {
            tern_mpirun_msg("epoll_wait failed: %s", strerror(errno));
            break;
        }
        for (int i = 0; i < n; i++) {
            struct tern_ev *ev = evs[i].data.ptr;
            ev->cb(job, ev, evs[i].events);
        }
    }
    tern_iof_finish(job);
    tern_ssh_stop(job);
    tern_kvs_stop(job);
    return job->exit_code;
}
