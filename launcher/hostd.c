/*
 * tern-hostd: the agent mpirun runs on every remote host, over ssh.
 *
 * Steps (protocol in launcher/hostd_proto.h):
 *   1. Read the JOB frame from stdin (bounded wait) and check the version.
 *   2. Preflight: enter the working directory (--wdir must exist; without
 *      it mpirun's cwd is used, or $HOME when that does not exist here),
 *      find the program as execvp will (a path with '/' relative to that
 *      directory, else each PATH entry, with the ranks' PATH if -x set it),
 *      executable and a regular file, and reach mpirun's store (the watch
 *      connection). Answer READY or one ERROR line.
 *   3. Wait for START (EOF instead: exit, nothing was started).
 *   4. Fork the ranks and run the loop until every rank is reaped and its
 *      output sent, remove the shared memory that killed ranks left, then
 *      send DONE and exit 0.
 * Whenever mpirun goes away (EOF on stdin, a failed write, or the watch
 * connection to its store breaking: hostd_watch.c) and whenever hostd gets SIGTERM, SIGINT or SIGHUP, it
 * sends SIGTERM to every rank's process group, SIGKILL after the grace
 * period, and exits once they are reaped. The ranks also die with hostd
 * itself (PR_SET_PDEATHSIG), so nothing outlives the job on this host.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher/hostd.h"
#include "launcher/spawn.h"
#include "tern/clock.h"
#include "tern/err.h"
#include "tern/shmname.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

/* How long hostd waits for the job and then for START. */
#define JOB_WAIT_MS 30000
#define START_WAIT_MS 120000
/* Writer backlog at which the rank pipes stop being read. */
#define BACKLOG_MAX (8u << 20)

void tern_hostd_msg(const struct hostd *d, const char *fmt, ...)
{
    char line[1200];
    int n = snprintf(line, sizeof line, "tern-hostd (%s): ",
                     d && d->job.host ? d->job.host : "?");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len++] = '\n';
    tern_wire_write_full(2, line, len);
}

int tern_hostd_watch(struct hostd *d, struct hostd_ev *ev, uint32_t events)
{
    struct epoll_event e = { .events = events, .data.ptr = ev };
    if (epoll_ctl(d->epfd, EPOLL_CTL_MOD, ev->fd, &e) == 0)
        return 0;
    return epoll_ctl(d->epfd, EPOLL_CTL_ADD, ev->fd, &e) ? TERN_EIO : 0;
}

void tern_hostd_flush(struct hostd *d)
{
    if (d->out_dead)
        return;
    int rc = tern_wire_writer_flush(&d->wr, 1);
    if (rc < 0) {
        d->out_dead = 1;
        d->wr.off = d->wr.len = 0;
        if (!d->in_eof)
            tern_hostd_msg(d, "cannot write to mpirun; killing the ranks");
    }
    int want = rc == 1;
    if (want != d->out_waiting && d->epfd >= 0) {
        tern_hostd_watch(d, &d->out_ev, want ? EPOLLOUT : 0);
        d->out_waiting = want;
    }
    size_t backlog = d->wr.len - d->wr.off;
    if (!d->paused && backlog > BACKLOG_MAX)
        tern_hostd_pause(d, 1);
    else if (d->paused && backlog == 0)
        tern_hostd_pause(d, 0);
}

void tern_hostd_send(struct hostd *d, uint32_t type, const void *body, size_t len)
{
    if (d->out_dead)
        return;
    if (tern_wire_writer_push(&d->wr, type, body, len)) {
        tern_hostd_msg(d, "out of memory queueing a message to mpirun");
        return;
    }
    d->last_sent = tern_clock_ms();
    tern_hostd_flush(d);
}

/* Waits up to ms for fd 0 to become readable; 0 if it did. */
static int wait_input(int ms)
{
    struct pollfd p = { .fd = 0, .events = POLLIN };
    int n;
    do {
        n = poll(&p, 1, ms);
    } while (n < 0 && errno == EINTR);
    return n > 0 ? 0 : TERN_ETIMEDOUT;
}

/* Enters the job's working directory; writes the reason into err. */
static int enter_wdir(struct hostd *d, char *err, size_t errlen)
{
    const char *w = d->job.wdir;
    if (!*w || chdir(w) == 0)
        return 0;
    if (d->job.wdir_explicit) {
        snprintf(err, errlen, "the working directory '%.400s' (--wdir) cannot be "
                 "entered: %s; create it on this host or give --wdir a directory "
                 "that exists on every host", w, strerror(errno));
        return TERN_EINVAL;
    }
    const char *home = getenv("HOME");
    if (home && chdir(home) == 0)
        return 0;
    snprintf(err, errlen, "neither mpirun's directory '%.400s' nor $HOME exists "
             "here; give --wdir a directory that exists on every host", w);
    return TERN_EINVAL;
}

/* The PATH the ranks will search: from their -x settings, else ours. */
static const char *rank_path(const struct hostd *d)
{
    if (d->job.nranks > 0)
        for (int i = 0; i < d->job.ranks[0].n_env; i++)
            if (strncmp(d->job.ranks[0].env[i], "PATH=", 5) == 0)
                return d->job.ranks[0].env[i] + 5;
    const char *p = getenv("PATH");
    return p ? p : "/usr/local/bin:/usr/bin:/bin";
}

static int find_program(struct hostd *d, char *err, size_t errlen)
{
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, ".");
    return tern_preflight_program(cwd, d->job.argv[0], rank_path(d), err, errlen);
}

/* Reads the JOB frame and runs the preflight; answers READY or ERROR. */
static int setup(struct hostd *d)
{
    uint32_t type;
    void *body = NULL;
    size_t len;
    char err[1024];
    if (wait_input(JOB_WAIT_MS) ||
        tern_wire_recv(0, &type, &body, &len, TERN_HOSTD_TO_HOSTD_MAX) ||
        type != TERN_HOSTD_JOB) {
        free(body);
        tern_hostd_msg(d, "no job description from mpirun on stdin; tern-hostd is "
                       "started by mpirun, not by hand (see tern-hostd --help)");
        return TERN_EPROTO;
    }
    int rc = tern_hostd_job_decode(body, len, &d->job);
    free(body);
    if (rc == 0 && d->job.version != TERN_HOSTD_VERSION)
        rc = TERN_EPROTO;
    if (rc) {
        snprintf(err, sizeof err, "tern-hostd %s cannot read the job (protocol "
                 "version %d expected); install the same Tern version on every "
                 "host", PACKAGE_VERSION, TERN_HOSTD_VERSION);
        tern_wire_send(1, TERN_HOSTD_ERROR, err, strlen(err));
        return rc;
    }
    if (enter_wdir(d, err, sizeof err) || find_program(d, err, sizeof err) ||
        tern_hostd_watch_open(d, err, sizeof err)) {
        tern_wire_send(1, TERN_HOSTD_ERROR, err, strlen(err));
        return TERN_EINVAL;
    }
    return tern_wire_send(1, TERN_HOSTD_READY, NULL, 0);
}

/* Waits for START; PINGs are fine, EOF or anything else ends hostd. */
static int wait_start(void)
{
    for (;;) {
        uint32_t type;
        void *body = NULL;
        size_t len;
        if (wait_input(START_WAIT_MS) ||
            tern_wire_recv(0, &type, &body, &len, TERN_HOSTD_TO_HOSTD_MAX))
            return TERN_EPEER;
        free(body);
        if (type == TERN_HOSTD_START)
            return 0;
        if (type != TERN_HOSTD_PING)
            return TERN_EPROTO;
    }
}

/* Starts the kill sequence: sig now, SIGKILL after the grace period. */
static void begin_kill(struct hostd *d, int sig)
{
    if (d->kill_stage >= 1 && sig != SIGKILL)
        return;
    d->kill_stage = sig == SIGKILL ? 2 : 1;
    tern_hostd_signal_all(d, sig);
    if (sig != SIGKILL)
        d->kill_at = tern_clock_ms() + d->job.grace_ms;
}

/* mpirun is gone: nobody reads our output, nobody needs our ranks. */
static void mpirun_gone(struct hostd *d, const char *why)
{
    if (d->in_eof)
        return;
    d->in_eof = 1;
    epoll_ctl(d->epfd, EPOLL_CTL_DEL, 0, NULL);
    if (why && d->running > 0)
        tern_hostd_msg(d, "%s; killing the %d rank(s) still running here", why,
                       d->running);
    begin_kill(d, SIGTERM);
}

static void on_frame(struct hostd *d)
{
    const unsigned char *b = d->rd.body;
    size_t len = d->rd.len;
    switch (d->rd.type) {
    case TERN_HOSTD_SIGNAL:
        if (len == 4) {
            int sig = (int)tern_wire_get32(b);
            if (sig == SIGKILL)
                d->kill_stage = 2;
            tern_hostd_signal_all(d, sig);
        }
        return;
    case TERN_HOSTD_STDIN:
        tern_hostd_stdin_data(d, b, len);
        return;
    case TERN_HOSTD_PING:
        return;
    default:
        mpirun_gone(d, "unexpected message from mpirun");
    }
}

static void on_input(struct hostd *d)
{
    while (!d->in_eof) {
        int rc = tern_wire_reader_fill(&d->rd, 0);
        if (rc == 0)
            return;
        if (rc < 0) {
            mpirun_gone(d, rc == TERN_EPEER ? "mpirun closed the connection"
                                            : "broken message from mpirun");
            return;
        }
        on_frame(d);
        tern_wire_reader_next(&d->rd);
    }
}

/* The watch connection to mpirun's store: EOF, an error (keepalive or user
 * timeout) or anything unexpected means mpirun's host is gone. */
static void on_watch(struct hostd *d)
{
    char b[64];
    ssize_t n = recv(d->watch_ev.fd, b, sizeof b, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    int e = errno;
    epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->watch_ev.fd, NULL);
    close(d->watch_ev.fd);
    d->watch_ev.fd = -1;
    char why[200];
    snprintf(why, sizeof why, "lost the connection to mpirun's host (%s)",
             n == 0 ? "closed" : n > 0 ? "unexpected data" : strerror(e));
    mpirun_gone(d, why);
}

static void on_signal(struct hostd *d)
{
    struct signalfd_siginfo si;
    while (read(d->sig_ev.fd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD)
            tern_hostd_reap(d);
        else if (d->kill_stage >= 1)
            begin_kill(d, SIGKILL);
        else
            begin_kill(d, SIGTERM);
    }
}

/* Fires due deadlines; returns the epoll timeout. */
static int deadlines(struct hostd *d)
{
    long long now = tern_clock_ms();
    if (!d->out_dead && now - d->last_sent >= d->job.keepalive_ms)
        tern_hostd_send(d, TERN_HOSTD_PING, NULL, 0);
    if (d->kill_at && now >= d->kill_at) {
        d->kill_at = 0;
        begin_kill(d, SIGKILL);
    }
    long long cand[] = { d->out_dead ? 0 : d->last_sent + d->job.keepalive_ms,
                         d->kill_at, d->drain_at };
    return tern_spawn_timeout(cand, sizeof cand / sizeof cand[0], now);
}

static int setup_loop(struct hostd *d)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, NULL))
        return TERN_EIO;
    d->epfd = epoll_create1(EPOLL_CLOEXEC);
    d->sig_ev.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    d->sig_ev.kind = HEV_SIGNAL;
    d->in_ev.fd = 0;
    d->in_ev.kind = HEV_FROM_MPIRUN;
    d->out_ev.fd = 1;
    d->out_ev.kind = HEV_TO_MPIRUN;
    if (d->epfd < 0 || d->sig_ev.fd < 0 || fcntl(0, F_SETFL, O_NONBLOCK) ||
        fcntl(1, F_SETFL, O_NONBLOCK))
        return TERN_EIO;
    tern_wire_reader_init(&d->rd, TERN_HOSTD_TO_HOSTD_MAX);
    tern_wire_writer_init(&d->wr);
    if (tern_hostd_watch(d, &d->sig_ev, EPOLLIN) || tern_hostd_watch(d, &d->in_ev, EPOLLIN) ||
        (d->watch_ev.fd >= 0 && tern_hostd_watch(d, &d->watch_ev, EPOLLIN | EPOLLRDHUP)))
        return TERN_EIO;
    d->last_sent = tern_clock_ms();
    return 0;
}

static void dispatch(struct hostd *d, struct hostd_ev *ev, uint32_t events)
{
    switch (ev->kind) {
    case HEV_SIGNAL:
        on_signal(d);
        break;
    case HEV_FROM_MPIRUN:
        on_input(d);
        break;
    case HEV_TO_MPIRUN:
        tern_hostd_flush(d);
        break;
    case HEV_STREAM:
        tern_hostd_stream_read(d, ev->arg);
        break;
    case HEV_STDIN:
        tern_hostd_stdin_writable(d);
        break;
    case HEV_WATCH:
        on_watch(d);
        break;
    }
    (void)events;
}

/* Ranks killed before they unlinked their shared-memory segment leave it
 * behind: once every rank is reaped, remove what is left of this job's, as
 * mpirun does on its own host. The job id is in the ranks' environment. */
static void remove_leftover_shm(const struct hostd *d)
{
    if (d->job.nranks <= 0)
        return;
    const struct tern_hostd_rank *r = &d->job.ranks[0];
    for (int i = 0; i < r->n_env; i++)
        if (!strncmp(r->env[i], "TERN_JOBID=", 11))
            tern_shmname_remove_all(r->env[i] + 11);
}

static int run(struct hostd *d)
{
    if (setup_loop(d) || tern_hostd_spawn(d)) {
        tern_hostd_msg(d, "cannot start the ranks: %s; check the process and file "
                       "limits (ulimit -u, ulimit -n)", strerror(errno));
        begin_kill(d, SIGKILL);
    }
    for (;;) {
        if (d->running == 0 && (d->open_streams == 0 ||
                                (d->drain_at && tern_clock_ms() >= d->drain_at)))
            break;
        int timeout = deadlines(d);
        struct epoll_event evs[64];
        int n = epoll_wait(d->epfd, evs, 64, timeout);
        if (n < 0 && errno != EINTR) {
            tern_hostd_msg(d, "epoll_wait failed: %s", strerror(errno));
            begin_kill(d, SIGKILL);
            break;
        }
        for (int i = 0; i < n; i++)
            dispatch(d, evs[i].data.ptr, evs[i].events);
    }
    remove_leftover_shm(d);
    if (d->out_dead || d->in_eof)
        return d->kill_stage ? 1 : 0;
    tern_hostd_send(d, TERN_HOSTD_DONE, NULL, 0);
    /* The last frames go out blocking, bounded by mpirun reading them. */
    fcntl(1, F_SETFL, 0);
    tern_hostd_flush(d);
    return 0;
}

static void usage(FILE *out)
{
    fputs("Usage: tern-hostd    (started by mpirun over ssh; not run by hand)\n"
          "\n"
          "mpirun starts tern-hostd on every remote host of a job, by the same\n"
          "absolute path as its own (override with TERN_HOSTD on mpirun's side).\n"
          "It reads the job (ranks, environment, program, --wdir, job secret) as\n"
          "framed messages on stdin, checks that the program and the working\n"
          "directory exist, starts its ranks when mpirun says so, forwards their\n"
          "stdout and stderr line by line, reports their exit status, and kills\n"
          "them when mpirun or the ssh connection goes away. When the job's rank 0\n"
          "runs on this host, mpirun's stdin is forwarded to it; other ranks read\n"
          "/dev/null.\n", out);
}

int main(int argc, char **argv)
{
    static struct hostd d;
    if (argc > 1) {
        if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
            printf("tern-hostd (Tern) %s\n", PACKAGE_VERSION);
            return 0;
        }
        usage(strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? stderr : stdout);
        return strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? 2 : 0;
    }
    d.epfd = -1;
    d.stdin_fd = -1;
    d.watch_ev.fd = -1;
    signal(SIGPIPE, SIG_IGN);
    if (isatty(0)) {
        tern_hostd_msg(NULL, "stdin is a terminal; tern-hostd is started by mpirun "
                       "over ssh, not by hand (see tern-hostd --help)");
        return 2;
    }
    if (tern_wire_write_full(1, TERN_HOSTD_MAGIC, TERN_HOSTD_MAGIC_LEN) || setup(&d))
        return 1;
    if (wait_start())
        return 0;
    return run(&d);
}
