/*
 * Message framing for every byte stream Tern owns (rank-store, rank-rank
 * bootstrap, hostd-mpirun).
 *
 * A frame is an 8-byte header followed by the body: the body length and a
 * message type, both 32-bit big-endian. Frames longer than the caller's limit
 * are a protocol error, so a hostile peer cannot make us allocate at will.
 *
 * Blocking fds: tern_wire_send() / tern_wire_recv() move one whole frame and
 * retry on EINTR (and on EAGAIN by waiting in poll, so they also work on a
 * nonblocking fd). Nonblocking fds in an event loop: a tern_wire_reader
 * collects one frame across any number of short reads, a tern_wire_writer
 * queues outgoing frames and writes as much as the fd takes.
 *
 * Errors: 0 or a negative TERN_E* code. TERN_EPEER means the peer closed the
 * stream (EOF or reset), TERN_EPROTO a malformed or oversized frame,
 * TERN_EIO any other system-call failure (errno is kept).
 */
#ifndef TERN_WIRE_H
#define TERN_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define TERN_WIRE_HEADER 8
/* Default limit on a frame body, for callers without a better bound. */
#define TERN_WIRE_MAX_DEFAULT (16u << 20)

/* Reads exactly len bytes. TERN_EPEER on EOF, even after a partial read. */
int tern_wire_read_full(int fd, void *buf, size_t len);

/* Writes exactly len bytes (MSG_NOSIGNAL on sockets, so no SIGPIPE). */
int tern_wire_write_full(int fd, const void *buf, size_t len);

/* Sends one frame with the given type and body. */
int tern_wire_send(int fd, uint32_t type, const void *body, size_t len);

/* Receives one frame. *body is malloc'ed (NULL for an empty body) and owned
 * by the caller; bodies longer than max are TERN_EPROTO. */
int tern_wire_recv(int fd, uint32_t *type, void **body, size_t *len, size_t max);

/* Incremental reader for nonblocking fds. */
struct tern_wire_reader {
    unsigned char hdr[TERN_WIRE_HEADER];
    size_t have;          /* Bytes of header + body read so far. */
    uint32_t type;
    uint32_t len;         /* Body length, valid once the header is complete. */
    unsigned char *body;  /* Body buffer, owned by the reader until taken. */
    size_t max;           /* Largest accepted body. */
};

void tern_wire_reader_init(struct tern_wire_reader *r, size_t max);
void tern_wire_reader_free(struct tern_wire_reader *r);

/* Reads what the fd has. Returns 1 when a whole frame is ready (then
 * r->type, r->len and r->body describe it until tern_wire_reader_next()),
 * 0 when the fd has no more data yet, or a negative error. */
int tern_wire_reader_fill(struct tern_wire_reader *r, int fd);

/* Releases the current frame and prepares for the next one. */
void tern_wire_reader_next(struct tern_wire_reader *r);

/* Output queue for nonblocking fds: one contiguous buffer of pending bytes. */
struct tern_wire_writer {
    unsigned char *buf;
    size_t off, len, cap;
};

void tern_wire_writer_init(struct tern_wire_writer *w);
void tern_wire_writer_free(struct tern_wire_writer *w);

/* Appends one frame to the queue (no I/O). */
int tern_wire_writer_push(struct tern_wire_writer *w, uint32_t type,
                          const void *body, size_t len);

/* Appends raw bytes (used for handshake messages, which are unframed). */
int tern_wire_writer_push_raw(struct tern_wire_writer *w, const void *p, size_t len);

/* Writes as much as possible. Returns 0 when the queue is empty, 1 when
 * bytes remain (wait for POLLOUT), or a negative error. */
int tern_wire_writer_flush(struct tern_wire_writer *w, int fd);

/*
 * Messages between a rank and mpirun's key-value store (after the handshake
 * of tern/auth.h). Integers are 32-bit big-endian. The client sends one
 * request at a time; only FENCE, GET and FINALIZE are answered.
 */
enum tern_kvs_msg {
    TERN_KVS_HELLO = 1,        /* rank, pid: first message of a rank. */
    TERN_KVS_PUT = 2,          /* keylen, key, value. */
    TERN_KVS_FENCE = 3,        /* (empty) */
    TERN_KVS_FENCE_DONE = 4,   /* (empty): every rank reached the fence. */
    TERN_KVS_GET = 5,          /* rank, key. */
    TERN_KVS_GET_REPLY = 6,    /* found (1 or 0), value. */
    TERN_KVS_ABORT = 7,        /* code, message. */
    TERN_KVS_FINALIZE = 8,     /* (empty) */
    TERN_KVS_FINALIZE_ACK = 9  /* (empty) */
};
/* Largest store message body: a key, a value and their lengths. */
#define TERN_KVS_MSG_MAX 8192

/* Big-endian helpers for message bodies. */
static inline void tern_wire_put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);  p[3] = (unsigned char)v;
}

static inline uint32_t tern_wire_get32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

#endif
