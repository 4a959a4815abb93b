/*
 * The ssh launcher's run phase: the hosts' connections inside mpirun's
 * epoll loop (lifecycle in launcher/ssh.h, protocol in hostd_proto.h).
 *
 * Each session is nonblocking; its socket is in the loop with EPOLLIN, and
 * EPOLLOUT while frames wait or libssh2 says it is blocked on writing.
 * Whenever the socket is ready, service() reads hostd's stdout (frames)
 * and stderr (lines relayed to mpirun's stderr) and writes queued frames,
 * repeating while any of them progresses, since libssh2 may buffer data
 * for a channel that the socket no longer signals.
 *
 * Remote ranks are ranks like the local ones: START marks them running,
 * EXIT goes through tern_job_rank_exited(), OUTPUT through iof. A host is
 * lost when its channel ends before DONE, its connection breaks, or it is
 * silent for the timeout; the job then ends with one line naming the host,
 * and its ranks count as gone. After SIGKILL was forwarded, a host that
 * does not report its ranks' end within 2 s is given up the same way, so a
 * teardown never waits on a dead network.
 *
 * mpirun's stdin reaches a remote rank 0 as STDIN frames, with at most
 * STDIN_WINDOW bytes not yet acknowledged by hostd (which acknowledges what
 * rank 0's pipe took), so a rank that does not read stalls nothing.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher/hostd_proto.h"
#include "launcher/ssh.h"
#include "tern/clock.h"
#include "tern/err.h"
#include "tern/log.h"

#define READ_CHUNK 65536
#define STDIN_WINDOW (256u << 10)
#define GIVE_UP_MS 2000

static void stdin_pump(struct tern_ssh *s);

/* Ends the job because a host is gone; its ranks count as gone too. */
static void host_lost(struct tern_ssh_host *h, const char *why)
{
    struct tern_job *job = h->job;
    if (!h->open)
        return;
    if (h->running > 0)
        tern_job_fail(job, TERN_MPIRUN_FAIL_EXIT, "host %s: %s; ending the job (%d "
                      "rank%s ran there)", h->where, why, h->running,
                      h->running == 1 ? "" : "s");
    const struct tern_host *ph = &job->plan.hl.hosts[h->index];
    for (int i = 0; i < ph->nranks; i++) {
        struct tern_rank *r = &job->ranks[ph->ranks[i]];
        if (r->running) {
            r->running = 0;
            r->status = SIGKILL;
            job->running--;
        }
    }
    h->running = 0;
    if (job->running == 0 && !job->drain_at)
        job->drain_at = tern_clock_ms() + 1000;
    tern_ssh_close_host(h, 1);
}

void tern_ssh_close_host(struct tern_ssh_host *h, int hard)
{
    if (h->open) {
        tern_loop_del(h->job, &h->ev);
        h->open = 0;
        h->job->open_streams--;
    }
    if (h->sock >= 0 && hard)
        shutdown(h->sock, SHUT_RDWR);
    if (h->sess) {
        /* Closing a healthy channel waits briefly for sshd's answer. */
        libssh2_session_set_blocking(h->sess, 1);
        libssh2_session_set_timeout(h->sess, 1000);
        if (h->ch) {
            if (!hard)
                libssh2_channel_send_eof(h->ch);
            libssh2_channel_free(h->ch);
        }
        if (!hard)
            libssh2_session_disconnect(h->sess, "mpirun: job done");
        libssh2_session_free(h->sess);
    }
    h->ch = NULL;
    h->sess = NULL;
    if (h->sock >= 0)
        close(h->sock);
    h->sock = -1;
}

/* The job's rank for a frame, if it runs on this host. */
static struct tern_rank *frame_rank(struct tern_ssh_host *h, const unsigned char *b,
                                    size_t len)
{
    if (len < 4)
        return NULL;
    uint32_t r = tern_wire_get32(b);
    if (r >= (uint32_t)h->job->size || h->job->plan.host_of[r] != h->index)
        return NULL;
    return &h->job->ranks[r];
}

static void on_frame(struct tern_ssh_host *h, uint32_t type, const unsigned char *b,
                     size_t len)
{
    struct tern_rank *r = frame_rank(h, b, len);
    switch (type) {
    case TERN_HOSTD_PING:
        return;
    case TERN_HOSTD_STARTED:
        if (r && len == 8)
            r->remote_pid = (pid_t)tern_wire_get32(b + 4);
        return;
    case TERN_HOSTD_OUTPUT:
        if (r && len >= 12)
            tern_iof_remote(h->job, r->rank, tern_wire_get32(b + 4) == 2 ? 2 : 1,
                            (const char *)b + 12, len - 12,
                            tern_wire_get32(b + 8) & TERN_HOSTD_OUT_LAST);
        return;
    case TERN_HOSTD_EXIT:
        if (r && len == 8 && r->running) {
            h->running--;
            tern_job_rank_exited(h->job, r, (int)tern_wire_get32(b + 4));
        }
        return;
    case TERN_HOSTD_DONE:
        h->done = 1;
        return;
    case TERN_HOSTD_STDIN_ACK:
        if (len == 4 && h->ssh->stdin_host == h) {
            size_t n = tern_wire_get32(b);
            h->ssh->stdin_unacked -= n < h->ssh->stdin_unacked ? n : h->ssh->stdin_unacked;
            stdin_pump(h->ssh);
        }
        return;
    case TERN_HOSTD_ERROR: {
        char why[700];
        snprintf(why, sizeof why, "tern-hostd: %.*s", (int)(len < 600 ? len : 600),
                 (const char *)b);
        host_lost(h, why);
        return;
    }
    default:
        host_lost(h, "unexpected message from tern-hostd (another Tern version "
                  "there?)");
    }
}

/* Handles every complete frame in the input buffer. */
static void parse(struct tern_ssh_host *h)
{
    size_t off = 0;
    while (h->open && h->in_len - off >= TERN_WIRE_HEADER) {
        uint32_t len = tern_wire_get32(h->in + off);
        uint32_t type = tern_wire_get32(h->in + off + 4);
        if (len > TERN_HOSTD_FROM_HOSTD_MAX) {
            host_lost(h, "malformed message from tern-hostd");
            return;
        }
        if (h->in_len - off < TERN_WIRE_HEADER + (size_t)len)
            break;
        h->last_heard = tern_clock_ms();
        on_frame(h, type, h->in + off + TERN_WIRE_HEADER, len);
        off += TERN_WIRE_HEADER + len;
    }
    if (h->open) {
        memmove(h->in, h->in + off, h->in_len - off);
        h->in_len -= off;
    }
}

/* Reads hostd's stdout; returns 1 if bytes came. */
static int read_frames(struct tern_ssh_host *h)
{
    int got = 0;
    while (h->open) {
        if (h->in_cap - h->in_len < READ_CHUNK) {
            size_t cap = h->in_cap ? h->in_cap * 2 : 4 * READ_CHUNK;
            unsigned char *p = realloc(h->in, cap);
            if (!p) {
                host_lost(h, "out of memory reading from tern-hostd");
                return got;
            }
            h->in = p;
            h->in_cap = cap;
        }
        ssize_t n = libssh2_channel_read(h->ch, (char *)h->in + h->in_len, READ_CHUNK);
        if (n == LIBSSH2_ERROR_EAGAIN || n == 0)
            return got;
        if (n < 0) {
            char why[300];
            snprintf(why, sizeof why, "the ssh connection broke (%s)", tern_ssh_errmsg(h));
            host_lost(h, why);
            return got;
        }
        got = 1;
        h->in_len += (size_t)n;
        parse(h);
    }
    return got;
}

/* Relays hostd's stderr line by line; returns 1 if bytes came. */
static int read_stderr(struct tern_ssh_host *h)
{
    int got = 0;
    while (h->open) {
        size_t room = sizeof h->errline - 1 - h->errline_len;
        ssize_t n = libssh2_channel_read_stderr(h->ch, h->errline + h->errline_len, room);
        if (n <= 0)
            return got;
        got = 1;
        h->errline_len += (size_t)n;
        char *nl;
        while ((nl = memchr(h->errline, '\n', h->errline_len)) ||
               h->errline_len == sizeof h->errline - 1) {
            size_t k = nl ? (size_t)(nl - h->errline) + 1 : h->errline_len;
            tern_wire_write_full(2, h->errline, k);
            if (!nl)
                tern_wire_write_full(2, "\n", 1);
            memmove(h->errline, h->errline + k, h->errline_len - k);
            h->errline_len -= k;
        }
    }
    return got;
}

/* Writes queued frames; returns 1 if bytes went out. */
static int write_frames(struct tern_ssh_host *h)
{
    int put = 0;
    while (h->open && h->out.off < h->out.len) {
        ssize_t n = libssh2_channel_write(h->ch, (const char *)h->out.buf + h->out.off,
                                          h->out.len - h->out.off);
        if (n == LIBSSH2_ERROR_EAGAIN)
            return put;
        if (n < 0) {
            char why[300];
            snprintf(why, sizeof why, "cannot write to the ssh connection (%s)",
                     tern_ssh_errmsg(h));
            host_lost(h, why);
            return put;
        }
        put = 1;
        h->out.off += (size_t)n;
    }
    if (h->out.off == h->out.len)
        h->out.off = h->out.len = 0;
    return put;
}

/* Watches for EPOLLOUT only while something waits to be written. */
static void update_events(struct tern_ssh_host *h)
{
    if (!h->open)
        return;
    int dirs = libssh2_session_block_directions(h->sess);
    uint32_t ev = EPOLLIN;
    if (h->out.off < h->out.len || (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND))
        ev |= EPOLLOUT;
    if (ev != h->events) {
        tern_loop_mod(h->job, &h->ev, ev);
        h->events = ev;
    }
}

/* Why hostd's channel ended, from the exit status or signal sshd sent. */
static void describe_exit(struct tern_ssh_host *h, char *out, size_t len)
{
    char *sig = NULL;
    size_t siglen = 0;
    libssh2_channel_get_exit_signal(h->ch, &sig, &siglen, NULL, NULL, NULL, NULL);
    if (sig && siglen)
        snprintf(out, len, "tern-hostd was killed by signal %.*s", (int)siglen, sig);
    else
        snprintf(out, len, "tern-hostd ended unexpectedly (exit status %d)",
                 libssh2_channel_get_exit_status(h->ch));
    if (sig)
        libssh2_free(h->sess, sig);
}

static void service(struct tern_ssh_host *h)
{
    for (int round = 0; round < 64 && h->open; round++) {
        int p = read_frames(h);
        p |= read_stderr(h);
        p |= write_frames(h);
        if (!p)
            break;
    }
    if (!h->open)
        return;
    if (libssh2_channel_eof(h->ch)) {
        read_stderr(h);
        if (h->done && h->running == 0) {
            tern_ssh_close_host(h, 0);
        } else {
            char why[200];
            describe_exit(h, why, sizeof why);
            host_lost(h, why);
        }
        return;
    }
    update_events(h);
}

static void on_host(struct tern_job *job, struct tern_ev *ev, uint32_t events)
{
    (void)job;
    (void)events;
    service(ev->arg);
}

static void send_frame(struct tern_ssh_host *h, uint32_t type, const void *b, size_t len)
{
    if (!h->open)
        return;
    if (tern_wire_writer_push(&h->out, type, b, len)) {
        host_lost(h, "out of memory queueing a message");
        return;
    }
    h->last_sent = tern_clock_ms();
    /* Only writes: this may run while parse() walks this host's input. */
    write_frames(h);
    update_events(h);
}

/* ---- mpirun's stdin to a remote rank 0 ---- */

static void stdin_end(struct tern_ssh *s)
{
    if (s->stdin_watched)
        tern_loop_del(s->job, &s->stdin_ev);
    s->stdin_watched = 0;
    s->stdin_mode = 0;
    send_frame(s->stdin_host, TERN_HOSTD_STDIN, NULL, 0);
}

/* Mode 1 (a file): reads while the window allows. Mode 2 (a pipe or a
 * terminal, which may block): watches stdin while the window allows. */
static void stdin_pump(struct tern_ssh *s)
{
    if (!s->stdin_mode || !s->stdin_host->open)
        return;
    if (s->stdin_mode == 2) {
        int want = s->stdin_unacked < STDIN_WINDOW;
        if (want && !s->stdin_watched)
            tern_loop_add(s->job, &s->stdin_ev, EPOLLIN);
        else if (!want && s->stdin_watched)
            tern_loop_del(s->job, &s->stdin_ev);
        s->stdin_watched = want;
        return;
    }
    char buf[READ_CHUNK];
    while (s->stdin_mode == 1 && s->stdin_unacked < STDIN_WINDOW) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            stdin_end(s);
            return;
        }
        s->stdin_unacked += (size_t)n;
        send_frame(s->stdin_host, TERN_HOSTD_STDIN, buf, (size_t)n);
    }
}

/* Mode 2: stdin is readable, so one read does not block. */
static void on_stdin(struct tern_job *job, struct tern_ev *ev, uint32_t events)
{
    (void)job;
    (void)events;
    struct tern_ssh *s = ev->arg;
    char buf[READ_CHUNK];
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        stdin_end(s);
        return;
    }
    s->stdin_unacked += (size_t)n;
    send_frame(s->stdin_host, TERN_HOSTD_STDIN, buf, (size_t)n);
    stdin_pump(s);
}

/* ---- The interface to job.c ---- */

int tern_ssh_run(struct tern_job *job)
{
    struct tern_ssh *s = job->ssh;
    if (!s)
        return 0;
    long long now = tern_clock_ms();
    for (int i = 0; i < s->n; i++) {
        struct tern_ssh_host *h = &s->hosts[i];
        const struct tern_host *ph = &job->plan.hl.hosts[h->index];
        /* A local start failure already ends the job: start nothing more. */
        if (job->ending)
            break;
        libssh2_session_set_blocking(h->sess, 0);
        tern_wire_writer_init(&h->out);
        h->ev.fd = h->sock;
        h->ev.cb = on_host;
        h->ev.arg = h;
        h->events = EPOLLIN;
        if (tern_loop_add(job, &h->ev, EPOLLIN)) {
            tern_job_fail(job, TERN_MPIRUN_FAIL_EXIT, "cannot watch the ssh connection "
                          "of host %s: %s", h->where, strerror(errno));
            continue;
        }
        h->open = 1;
        job->open_streams++;
        for (int k = 0; k < ph->nranks; k++) {
            job->ranks[ph->ranks[k]].running = 1;
            job->running++;
        }
        h->running = ph->nranks;
        h->last_heard = now;
        send_frame(h, TERN_HOSTD_START, NULL, 0);
    }
    if (s->stdin_host && s->stdin_host->open) {
        s->stdin_mode = tern_iof_stdin_inherit() == 1 ? 1 : 2;
        s->stdin_ev.fd = 0;
        s->stdin_ev.cb = on_stdin;
        s->stdin_ev.arg = s;
        stdin_pump(s);
    }
    return 0;
}

void tern_ssh_signal(struct tern_job *job, int sig)
{
    struct tern_ssh *s = job->ssh;
    unsigned char b[4];
    tern_wire_put32(b, (uint32_t)sig);
    for (int i = 0; s && i < s->n; i++) {
        struct tern_ssh_host *h = &s->hosts[i];
        if (!h->open)
            continue;
        if (sig == SIGKILL && !h->give_up_at)
            h->give_up_at = tern_clock_ms() + GIVE_UP_MS;
        send_frame(h, TERN_HOSTD_SIGNAL, b, sizeof b);
    }
}

/* Fires one host's deadlines; returns its next one, or 0. */
static long long host_deadline(struct tern_ssh_host *h, long long now)
{
    struct tern_ssh *s = h->ssh;
    /* mpirun itself may have been busy (blocked writing to a slow stdout):
     * what hostd sent meanwhile is read before the silence is judged. */
    if (now - h->last_heard >= s->timeout_ms)
        service(h);
    if (!h->open)
        return 0;
    if (now - h->last_heard >= s->timeout_ms) {
        char why[200];
        snprintf(why, sizeof why, "no word from tern-hostd for %d s; the host or "
                 "the network to it is down", s->timeout_ms / 1000);
        host_lost(h, why);
        return 0;
    }
    if (h->give_up_at && now >= h->give_up_at) {
        if (h->running > 0) {
            host_lost(h, "tern-hostd did not report its ranks' end after SIGKILL");
            return 0;
        }
        h->give_up_at = 0;
    }
    if (now - h->last_sent >= s->keepalive_ms)
        send_frame(h, TERN_HOSTD_PING, NULL, 0);
    if (!h->open)
        return 0;
    long long next = h->last_sent + s->keepalive_ms;
    if (h->last_heard + s->timeout_ms < next)
        next = h->last_heard + s->timeout_ms;
    if (h->give_up_at && h->give_up_at < next)
        next = h->give_up_at;
    return next;
}

long long tern_ssh_deadline(struct tern_job *job, long long now)
{
    struct tern_ssh *s = job->ssh;
    long long next = 0;
    for (int i = 0; s && i < s->n; i++) {
        if (!s->hosts[i].open)
            continue;
        long long d = host_deadline(&s->hosts[i], now);
        if (d && (!next || d < next))
            next = d;
    }
    return next;
}

void tern_ssh_stop(struct tern_job *job)
{
    struct tern_ssh *s = job->ssh;
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        struct tern_ssh_host *h = &s->hosts[i];
        /* A host still running ranks is cut off rather than waited for:
         * its sshd then closes hostd's stdin and hostd kills them. */
        tern_ssh_close_host(h, !h->ok || h->open);
        free(h->job_msg);
        free(h->in);
        tern_wire_writer_free(&h->out);
    }
    if (s->stdin_watched)
        tern_loop_del(job, &s->stdin_ev);
    if (s->done_fd >= 0)
        close(s->done_fd);
    free(s->hosts);
    free(s);
    job->ssh = NULL;
    libssh2_exit();
}
