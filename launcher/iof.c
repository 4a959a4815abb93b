/*
 * Standard I/O forwarding.
 *
 * Each rank's stdout and stderr arrive on a nonblocking pipe. Bytes are
 * collected per stream and only whole lines are written to mpirun's
 * stdout/stderr, each batch with one write, so lines of different ranks
 * never mix (mpirun is the only writer). --tag-output prefixes every line
 * with "[rank] ". A partial last line is written when its pipe reaches EOF;
 * a line longer than LINE_MAX_BYTES is written in pieces rather than held.
 * With --tag-output that partial last line also gets its newline.
 *
 * mpirun's stdin goes to rank 0. A regular file or a device that is not a
 * terminal (such as /dev/null) is simply inherited by rank 0, since epoll
 * cannot watch it. Anything else goes through a pipe and a small buffer: stdin
 * is read only while the buffer is empty, the pipe end is nonblocking, so a
 * rank that does not read its stdin never stalls the loop. Output to our own
 * stdout/stderr is blocking: a slow reader slows the ranks, nothing is lost.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/launcher.h"
#include "tern/err.h"
#include "tern/wire.h"

#define READ_CHUNK 65536
#define LINE_MAX_BYTES (1 << 20)

/* Writes data to fd, with "[rank] " before every line if tagging. */
static void emit(const struct tern_job *job, struct tern_iof_stream *s,
                 const char *data, size_t len)
{
    if (len == 0)
        return;
    if (!job->cli->tag_output) {
        tern_wire_write_full(s->out_fd, data, len);
        return;
    }
    char tag[24];
    int tl = snprintf(tag, sizeof tag, "[%d] ", s->rank);
    size_t lines = 1;
    for (size_t i = 0; i + 1 < len; i++)
        lines += data[i] == '\n';
    char *out = malloc(len + lines * (size_t)tl);
    if (!out) {
        tern_wire_write_full(s->out_fd, data, len);
        return;
    }
    size_t o = 0, i = 0;
    while (i < len) {
        memcpy(out + o, tag, (size_t)tl);
        o += (size_t)tl;
        const char *nl = memchr(data + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (data + i)) + 1 : len - i;
        memcpy(out + o, data + i, n);
        o += n;
        i += n;
    }
    tern_wire_write_full(s->out_fd, out, o);
    free(out);
}

static void stream_close(struct tern_job *job, struct tern_iof_stream *s)
{
    /* With tags every line must start with one, so a partial last line is
     * ended; without tags the bytes are passed on exactly as written. */
    if (job->cli->tag_output && s->len > 0 && s->len < s->cap &&
        s->buf[s->len - 1] != '\n')
        s->buf[s->len++] = '\n';
    emit(job, s, s->buf, s->len);
    free(s->buf);
    s->buf = NULL;
    s->len = s->cap = 0;
    tern_loop_del(job, &s->ev);
    close(s->ev.fd);
    s->ev.fd = -1;
    job->open_streams--;
}

/* Writes out every complete line in the buffer, keeping the rest. */
static void flush_lines(struct tern_job *job, struct tern_iof_stream *s)
{
    size_t end = s->len;
    while (end > 0 && s->buf[end - 1] != '\n')
        end--;
    if (end == 0 && s->len >= LINE_MAX_BYTES)
        end = s->len;
    emit(job, s, s->buf, end);
    memmove(s->buf, s->buf + end, s->len - end);
    s->len -= end;
}

static void on_output(struct tern_job *job, struct tern_ev *ev, uint32_t events)
{
    struct tern_iof_stream *s = ev->arg;
    (void)events;
    if (ev->fd < 0)
        return;
    for (;;) {
        if (s->cap - s->len < READ_CHUNK) {
            size_t cap = s->cap ? s->cap * 2 : 2 * READ_CHUNK;
            char *b = realloc(s->buf, cap);
            if (!b) {
                stream_close(job, s);
                return;
            }
            s->buf = b;
            s->cap = cap;
        }
        ssize_t n = read(ev->fd, s->buf + s->len, READ_CHUNK);
        if (n > 0) {
            s->len += (size_t)n;
            flush_lines(job, s);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        stream_close(job, s);
        return;
    }
}

int tern_iof_add_rank(struct tern_job *job, struct tern_rank *r, int out, int err)
{
    struct tern_iof_stream *ss[2] = { &r->out, &r->err };
    int fds[2] = { out, err };
    for (int i = 0; i < 2; i++) {
        struct tern_iof_stream *s = ss[i];
        s->rank = r->rank;
        s->out_fd = i + 1;
        s->ev.fd = fds[i];
        s->ev.cb = on_output;
        s->ev.arg = s;
        if (tern_loop_add(job, &s->ev, EPOLLIN))
            return TERN_EIO;
        job->open_streams++;
    }
    return 0;
}

static void stdin_stop(struct tern_job *job)
{
    if (job->stdin_ev.fd >= 0) {
        tern_loop_del(job, &job->stdin_ev);
        job->stdin_ev.fd = -1;
    }
    if (job->stdin_pipe >= 0) {
        close(job->stdin_pipe);
        job->stdin_pipe = -1;
    }
}

/* Writes buffered stdin bytes to rank 0; returns 1 if some remain. */
static int stdin_push(struct tern_job *job)
{
    while (job->stdin_len > 0) {
        ssize_t n = write(job->stdin_pipe, job->stdin_buf, job->stdin_len);
        if (n > 0) {
            memmove(job->stdin_buf, job->stdin_buf + n, job->stdin_len - (size_t)n);
            job->stdin_len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            return 1;
        } else {
            /* Rank 0 closed its stdin: nothing more to forward. */
            stdin_stop(job);
            return 0;
        }
    }
    return 0;
}

static struct tern_ev pipe_ev;

static void on_pipe_writable(struct tern_job *job, struct tern_ev *ev, uint32_t events)
{
    (void)events;
    if (job->stdin_pipe < 0 || stdin_push(job) == 0) {
        tern_loop_del(job, ev);
        if (job->stdin_ev.fd >= 0)
            tern_loop_add(job, &job->stdin_ev, EPOLLIN);
    }
}

static void on_stdin(struct tern_job *job, struct tern_ev *ev, uint32_t events)
{
    (void)events;
    if (ev->fd < 0 || job->stdin_pipe < 0)
        return;
    ssize_t n = read(ev->fd, job->stdin_buf, READ_CHUNK);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        stdin_stop(job);
        return;
    }
    job->stdin_len = (size_t)n;
    if (stdin_push(job) == 1) {
        /* Stop reading stdin until rank 0 has taken what we hold. */
        tern_loop_del(job, &job->stdin_ev);
        pipe_ev.fd = job->stdin_pipe;
        pipe_ev.cb = on_pipe_writable;
        tern_loop_add(job, &pipe_ev, EPOLLOUT);
    }
}

int tern_iof_stdin_inherit(void)
{
    struct stat st;
    if (fstat(0, &st) != 0)
        return -1;
    if (S_ISREG(st.st_mode) || (S_ISCHR(st.st_mode) && !isatty(0)))
        return 1;
    return 0;
}

int tern_iof_stdin(struct tern_job *job, int fd)
{
    job->stdin_pipe = fd;
    job->stdin_ev.fd = -1;
    fcntl(fd, F_SETFL, O_NONBLOCK);
    job->stdin_buf = malloc(READ_CHUNK);
    if (!job->stdin_buf)
        return TERN_ENOMEM;
    job->stdin_ev.fd = 0;
    job->stdin_ev.cb = on_stdin;
    if (tern_loop_add(job, &job->stdin_ev, EPOLLIN)) {
        job->stdin_ev.fd = -1;
        stdin_stop(job);
    }
    return 0;
}

void tern_iof_remote(struct tern_job *job, int rank, int out_fd, const char *data,
                     size_t len, int last)
{
    struct tern_iof_stream s = { .rank = rank, .out_fd = out_fd };
    /* As stream_close(): with tags, a last partial line gets its newline. */
    if (last && job->cli->tag_output && len > 0 && data[len - 1] != '\n') {
        char *b = malloc(len + 1);
        if (b) {
            memcpy(b, data, len);
            b[len] = '\n';
            emit(job, &s, b, len + 1);
            free(b);
            return;
        }
    }
    emit(job, &s, data, len);
}

void tern_iof_finish(struct tern_job *job)
{
    for (int i = 0; i < job->size; i++) {
        struct tern_rank *r = &job->ranks[i];
        if (r->out.ev.fd >= 0 && r->out.ev.cb)
            stream_close(job, &r->out);
        if (r->err.ev.fd >= 0 && r->err.ev.cb)
            stream_close(job, &r->err);
    }
    stdin_stop(job);
}
