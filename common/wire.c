/*
 * Length-prefixed framing over byte streams; see include/tern/wire.h.
 *
 * The blocking helpers loop over short reads and writes, retry on EINTR and
 * wait in poll() on EAGAIN, so one code path serves blocking and nonblocking
 * fds. The reader and writer keep all state in their structs so an event loop
 * can resume them whenever the fd becomes ready.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tern/err.h"
#include "tern/wire.h"

/* Waits until fd is ready for `events`, retrying on EINTR. */
static int wait_fd(int fd, short events)
{
    struct pollfd p = { .fd = fd, .events = events };
    for (;;) {
        int n = poll(&p, 1, -1);
        if (n >= 0)
            return 0;
        if (errno != EINTR)
            return TERN_EIO;
    }
}

/* One write attempt: send() with MSG_NOSIGNAL on sockets, write() otherwise. */
static ssize_t write_some(int fd, const void *buf, size_t len)
{
    ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK)
        n = write(fd, buf, len);
    return n;
}

int tern_wire_read_full(int fd, void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n == 0) {
            return TERN_EPEER;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (wait_fd(fd, POLLIN) < 0)
                return TERN_EIO;
        } else if (errno == ECONNRESET) {
            return TERN_EPEER;
        } else if (errno != EINTR) {
            return TERN_EIO;
        }
    }
    return 0;
}

int tern_wire_write_full(int fd, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = write_some(fd, p, len);
        if (n >= 0) {
            p += n;
            len -= (size_t)n;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (wait_fd(fd, POLLOUT) < 0)
                return TERN_EIO;
        } else if (errno == EPIPE || errno == ECONNRESET) {
            return TERN_EPEER;
        } else if (errno != EINTR) {
            return TERN_EIO;
        }
    }
    return 0;
}

int tern_wire_send(int fd, uint32_t type, const void *body, size_t len)
{
    unsigned char small[TERN_WIRE_HEADER + 256];
    if (len > UINT32_MAX)
        return TERN_EINVAL;
    /* Small frames go out in one write so the peer sees them in one segment. */
    if (len <= sizeof small - TERN_WIRE_HEADER) {
        tern_wire_put32(small, (uint32_t)len);
        tern_wire_put32(small + 4, type);
        if (len)
            memcpy(small + TERN_WIRE_HEADER, body, len);
        return tern_wire_write_full(fd, small, TERN_WIRE_HEADER + len);
    }
    tern_wire_put32(small, (uint32_t)len);
    tern_wire_put32(small + 4, type);
    int rc = tern_wire_write_full(fd, small, TERN_WIRE_HEADER);
    return rc ? rc : tern_wire_write_full(fd, body, len);
}

int tern_wire_recv(int fd, uint32_t *type, void **body, size_t *len, size_t max)
{
    unsigned char hdr[TERN_WIRE_HEADER];
    int rc = tern_wire_read_full(fd, hdr, sizeof hdr);
    if (rc)
        return rc;
    uint32_t n = tern_wire_get32(hdr);
    if (n > max)
        return TERN_EPROTO;
    *type = tern_wire_get32(hdr + 4);
    *len = n;
    *body = NULL;
    if (n == 0)
        return 0;
    unsigned char *b = malloc(n);
    if (!b)
        return TERN_ENOMEM;
    rc = tern_wire_read_full(fd, b, n);
    if (rc) {
        free(b);
        return rc;
    }
    *body = b;
    return 0;
}

void tern_wire_reader_init(struct tern_wire_reader *r, size_t max)
{
    memset(r, 0, sizeof *r);
    r->max = max;
}

void tern_wire_reader_free(struct tern_wire_reader *r)
{
    free(r->body);
    r->body = NULL;
}

void tern_wire_reader_next(struct tern_wire_reader *r)
{
    free(r->body);
    r->body = NULL;
    r->have = 0;
    r->len = 0;
    r->type = 0;
}

/* Reads into dst up to want bytes; returns bytes read, 0 for "no data now",
 * or a negative error. */
static ssize_t read_avail(int fd, void *dst, size_t want)
{
    for (;;) {
        ssize_t n = read(fd, dst, want);
        if (n > 0)
            return n;
        if (n == 0)
            return TERN_EPEER;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        if (errno == ECONNRESET)
            return TERN_EPEER;
        if (errno != EINTR)
            return TERN_EIO;
    }
}

int tern_wire_reader_fill(struct tern_wire_reader *r, int fd)
{
    while (r->have < TERN_WIRE_HEADER) {
        ssize_t n = read_avail(fd, r->hdr + r->have, TERN_WIRE_HEADER - r->have);
        if (n <= 0)
            return (int)n;
        r->have += (size_t)n;
        if (r->have == TERN_WIRE_HEADER) {
            r->len = tern_wire_get32(r->hdr);
            r->type = tern_wire_get32(r->hdr + 4);
            if (r->len > r->max)
                return TERN_EPROTO;
            if (r->len && !(r->body = malloc(r->len)))
                return TERN_ENOMEM;
        }
    }
    while (r->have < TERN_WIRE_HEADER + (size_t)r->len) {
        size_t got = r->have - TERN_WIRE_HEADER;
        ssize_t n = read_avail(fd, r->body + got, r->len - got);
        if (n <= 0)
            return (int)n;
        r->have += (size_t)n;
    }
    return 1;
}

void tern_wire_writer_init(struct tern_wire_writer *w)
{
    memset(w, 0, sizeof *w);
}

void tern_wire_writer_free(struct tern_wire_writer *w)
{
    free(w->buf);
    memset(w, 0, sizeof *w);
}

/* Makes room for `extra` more bytes, compacting consumed space first. */
static int writer_reserve(struct tern_wire_writer *w, size_t extra)
{
    if (w->off > 0) {
        memmove(w->buf, w->buf + w->off, w->len - w->off);
        w->len -= w->off;
        w->off = 0;
    }
    if (w->len + extra <= w->cap)
        return 0;
    size_t cap = w->cap ? w->cap : 256;
    while (cap < w->len + extra)
        cap *= 2;
    unsigned char *b = realloc(w->buf, cap);
    if (!b)
        return TERN_ENOMEM;
    w->buf = b;
    w->cap = cap;
    return 0;
}

int tern_wire_writer_push_raw(struct tern_wire_writer *w, const void *p, size_t len)
{
    if (writer_reserve(w, len))
        return TERN_ENOMEM;
    memcpy(w->buf + w->len, p, len);
    w->len += len;
    return 0;
}

int tern_wire_writer_push(struct tern_wire_writer *w, uint32_t type,
                          const void *body, size_t len)
{
    if (len > UINT32_MAX)
        return TERN_EINVAL;
    if (writer_reserve(w, TERN_WIRE_HEADER + len))
        return TERN_ENOMEM;
    tern_wire_put32(w->buf + w->len, (uint32_t)len);
    tern_wire_put32(w->buf + w->len + 4, type);
    if (len)
        memcpy(w->buf + w->len + TERN_WIRE_HEADER, body, len);
    w->len += TERN_WIRE_HEADER + len;
    return 0;
}

int tern_wire_writer_flush(struct tern_wire_writer *w, int fd)
{
    while (w->off < w->len) {
        ssize_t n = write_some(fd, w->buf + w->off, w->len - w->off);
        if (n >= 0) {
            w->off += (size_t)n;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return 1;
        } else if (errno == EPIPE || errno == ECONNRESET) {
            return TERN_EPEER;
        } else if (errno != EINTR) {
            return TERN_EIO;
        }
    }
    w->off = w->len = 0;
    return 0;
}
