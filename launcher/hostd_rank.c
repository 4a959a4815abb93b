/*
 * tern-hostd's ranks: forking, output, reaping, signals, rank 0's stdin.
 *
 * Each rank is forked into its own process group (so a signal reaches the
 * children of a wrapper script too) with PR_SET_PDEATHSIG, so it dies with
 * hostd even when hostd is killed with SIGKILL. Its environment is hostd's
 * (what sshd gave the session) plus the additions mpirun sent; it starts in
 * the directory the preflight entered, bound as tern_bind_child() decides.
 *
 * Output: stdout and stderr are nonblocking pipes. Bytes are collected per
 * stream and only whole lines are sent (one OUTPUT frame may carry several),
 * so lines of different ranks never mix at mpirun; a line longer than
 * TERN_HOSTD_LINE_MAX goes in pieces, and the last partial line of a stream
 * goes with TERN_HOSTD_OUT_LAST. When a rank exits its pipes are drained
 * before its EXIT frame, so its output comes first.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/bind.h"
#include "launcher/spawn.h"
#include "launcher/hostd.h"
#include "tern/clock.h"
#include "tern/err.h"

#define READ_CHUNK 65536

/* Queues one OUTPUT frame: rank, stream, flags, then the bytes. */
static void send_piece(struct hostd *d, const struct hostd_stream *s,
                       const char *p, size_t n, unsigned flags)
{
    unsigned char hdr[TERN_WIRE_HEADER + 12];
    if (d->out_dead)
        return;
    tern_wire_put32(hdr, (uint32_t)(12 + n));
    tern_wire_put32(hdr + 4, TERN_HOSTD_OUTPUT);
    tern_wire_put32(hdr + 8, (uint32_t)s->rank);
    tern_wire_put32(hdr + 12, (uint32_t)s->stream);
    tern_wire_put32(hdr + 16, flags);
    if (tern_wire_writer_push_raw(&d->wr, hdr, sizeof hdr) ||
        tern_wire_writer_push_raw(&d->wr, p, n)) {
        tern_hostd_msg(d, "out of memory queueing output of rank %d", s->rank);
        return;
    }
    d->last_sent = tern_clock_ms();
}

/* Sends the complete lines in the buffer (everything when last). */
static void send_lines(struct hostd *d, struct hostd_stream *s, int last)
{
    size_t off = 0;
    while (off < s->len) {
        size_t left = s->len - off, n = left;
        if (n > TERN_HOSTD_LINE_MAX)
            n = TERN_HOSTD_LINE_MAX;
        if (!(last && n == left)) {
            size_t k = n;
            while (k > 0 && s->buf[off + k - 1] != '\n')
                k--;
            /* No newline: hold a short line, cut a full-length one. */
            if (k == 0 && n < TERN_HOSTD_LINE_MAX)
                break;
            if (k > 0)
                n = k;
        }
        int final = last && off + n == s->len;
        send_piece(d, s, s->buf + off, n, final ? TERN_HOSTD_OUT_LAST : 0);
        off += n;
    }
    memmove(s->buf, s->buf + off, s->len - off);
    s->len -= off;
    tern_hostd_flush(d);
}

static void stream_close(struct hostd *d, struct hostd_stream *s)
{
    send_lines(d, s, 1);
    epoll_ctl(d->epfd, EPOLL_CTL_DEL, s->ev.fd, NULL);
    close(s->ev.fd);
    s->ev.fd = -1;
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
    d->open_streams--;
}

void tern_hostd_stream_read(struct hostd *d, struct hostd_stream *s)
{
    while (s->ev.fd >= 0) {
        if (s->cap - s->len < READ_CHUNK) {
            size_t cap = s->cap ? s->cap * 2 : 2 * READ_CHUNK;
            char *b = realloc(s->buf, cap);
            if (!b) {
                stream_close(d, s);
                return;
            }
            s->buf = b;
            s->cap = cap;
        }
        ssize_t n = read(s->ev.fd, s->buf + s->len, READ_CHUNK);
        if (n > 0) {
            s->len += (size_t)n;
            send_lines(d, s, 0);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        } else {
            stream_close(d, s);
        }
    }
}

void tern_hostd_pause(struct hostd *d, int pause)
{
    d->paused = pause;
    for (int i = 0; i < d->nranks; i++) {
        struct hostd_stream *ss[2] = { &d->ranks[i].out, &d->ranks[i].err };
        for (int k = 0; k < 2; k++)
            if (ss[k]->ev.fd >= 0)
                tern_hostd_watch(d, &ss[k]->ev, pause ? 0 : EPOLLIN);
    }
}

/* The child between fork and exec. Never returns. */
static void child(struct hostd *d, struct hostd_rank *r, int in, int out, int err,
                  pid_t parent)
{
    tern_spawn_child_setup(in, out, err, parent);
    struct tern_hostd_rank *jr = &d->job.ranks[r - d->ranks];
    for (int i = 0; i < jr->n_env; i++)
        putenv(jr->env[i]);
    char pg[24];
    snprintf(pg, sizeof pg, "%d", (int)getpid());
    setenv("TERN_PGID", pg, 1);
    if (tern_bind_child(r->local_rank, d->job.local_size))
        _exit(127);
    execvp(d->job.argv[0], d->job.argv);
    fprintf(stderr, "tern-hostd (%s): rank %d cannot execute '%s': %s; check the "
            "program name and its permissions\n", d->job.host, r->rank,
            d->job.argv[0], strerror(errno));
    _exit(127);
}

static int add_stream(struct hostd *d, struct hostd_stream *s, int rank, int stream,
                      int fd)
{
    s->rank = rank;
    s->stream = stream;
    s->ev.fd = fd;
    s->ev.kind = HEV_STREAM;
    s->ev.arg = s;
    fcntl(fd, F_SETFL, O_NONBLOCK);
    d->open_streams++;
    return tern_hostd_watch(d, &s->ev, d->paused ? 0 : EPOLLIN);
}

static int start_rank(struct hostd *d, struct hostd_rank *r, int devnull)
{
    int out[2], err[2], in[2] = { devnull, -1 };
    if (pipe2(out, O_CLOEXEC))
        return TERN_EIO;
    if (pipe2(err, O_CLOEXEC)) {
        close(out[0]);
        close(out[1]);
        return TERN_EIO;
    }
    if (r->rank == d->job.stdin_rank && pipe2(in, O_CLOEXEC))
        in[0] = devnull, in[1] = -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        child(d, r, in[0], out[1], err[1], parent);
    close(out[1]);
    close(err[1]);
    if (in[1] >= 0)
        close(in[0]);
    if (pid < 0) {
        close(out[0]);
        close(err[0]);
        if (in[1] >= 0)
            close(in[1]);
        return TERN_EIO;
    }
    setpgid(pid, pid);
    r->pid = pid;
    r->running = 1;
    d->running++;
    if (in[1] >= 0) {
        d->stdin_fd = in[1];
        fcntl(in[1], F_SETFL, O_NONBLOCK);
        d->stdin_ev.fd = in[1];
        d->stdin_ev.kind = HEV_STDIN;
    }
    unsigned char b[8];
    tern_wire_put32(b, (uint32_t)r->rank);
    tern_wire_put32(b + 4, (uint32_t)pid);
    tern_hostd_send(d, TERN_HOSTD_STARTED, b, sizeof b);
    if (add_stream(d, &r->out, r->rank, 1, out[0]) ||
        add_stream(d, &r->err, r->rank, 2, err[0]))
        return TERN_EIO;
    return 0;
}

int tern_hostd_spawn(struct hostd *d)
{
    d->nranks = d->job.nranks;
    d->ranks = calloc((size_t)d->nranks, sizeof *d->ranks);
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (!d->ranks || devnull < 0)
        return TERN_EIO;
    for (int i = 0; i < d->nranks; i++) {
        d->ranks[i].rank = d->job.ranks[i].rank;
        d->ranks[i].local_rank = d->job.ranks[i].local_rank;
        d->ranks[i].out.ev.fd = d->ranks[i].err.ev.fd = -1;
    }
    int rc = 0;
    for (int i = 0; i < d->nranks && !rc; i++)
        rc = start_rank(d, &d->ranks[i], devnull);
    close(devnull);
    return rc;
}

static void rank_exited(struct hostd *d, struct hostd_rank *r, int status)
{
    r->running = 0;
    d->running--;
    /* Whatever the rank left behind in its process group goes with it. */
    kill(-r->pid, SIGKILL);
    tern_hostd_stream_read(d, &r->out);
    tern_hostd_stream_read(d, &r->err);
    unsigned char b[8];
    tern_wire_put32(b, (uint32_t)r->rank);
    tern_wire_put32(b + 4, (uint32_t)status);
    tern_hostd_send(d, TERN_HOSTD_EXIT, b, sizeof b);
    if (d->running == 0)
        d->drain_at = tern_clock_ms() + 1000;
}

void tern_hostd_reap(struct hostd *d)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0)
            return;
        for (int i = 0; i < d->nranks; i++) {
            if (d->ranks[i].pid == pid && d->ranks[i].running) {
                rank_exited(d, &d->ranks[i], status);
                break;
            }
        }
    }
}

void tern_hostd_signal_all(struct hostd *d, int sig)
{
    for (int i = 0; i < d->nranks; i++)
        if (d->ranks[i].running && d->ranks[i].pid > 0)
            kill(-d->ranks[i].pid, sig);
}

static void stdin_ack(struct hostd *d, size_t n)
{
    unsigned char b[4];
    if (n == 0)
        return;
    tern_wire_put32(b, (uint32_t)n);
    tern_hostd_send(d, TERN_HOSTD_STDIN_ACK, b, sizeof b);
}

static void stdin_close(struct hostd *d)
{
    epoll_ctl(d->epfd, EPOLL_CTL_DEL, d->stdin_fd, NULL);
    close(d->stdin_fd);
    d->stdin_fd = -1;
    stdin_ack(d, d->stdin_len);
    d->stdin_len = 0;
}

void tern_hostd_stdin_writable(struct hostd *d)
{
    size_t done = 0;
    while (d->stdin_fd >= 0 && d->stdin_len > 0) {
        ssize_t n = write(d->stdin_fd, d->stdin_buf, d->stdin_len);
        if (n > 0) {
            memmove(d->stdin_buf, d->stdin_buf + n, d->stdin_len - (size_t)n);
            d->stdin_len -= (size_t)n;
            done += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            tern_hostd_watch(d, &d->stdin_ev, EPOLLOUT);
            stdin_ack(d, done);
            return;
        } else {
            /* The rank closed its stdin: what is left has no reader. */
            stdin_close(d);
        }
    }
    stdin_ack(d, done);
    if (d->stdin_fd >= 0) {
        tern_hostd_watch(d, &d->stdin_ev, 0);
        if (d->stdin_closing)
            stdin_close(d);
    }
}

void tern_hostd_stdin_data(struct hostd *d, const unsigned char *p, size_t len)
{
    if (d->stdin_fd < 0) {
        stdin_ack(d, len);
        return;
    }
    if (len == 0) {
        d->stdin_closing = 1;
    } else {
        unsigned char *b = realloc(d->stdin_buf, d->stdin_len + len);
        if (!b) {
            stdin_ack(d, len);
            return;
        }
        memcpy(b + d->stdin_len, p, len);
        d->stdin_buf = b;
        d->stdin_len += len;
    }
    tern_hostd_stdin_writable(d);
}
