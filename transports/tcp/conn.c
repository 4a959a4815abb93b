/*
 * One TCP connection of the transport: connect, handshake, framed I/O.
 * See transports/tcp/tcp.h for the protocol.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tern/clock.h"
#include "tern/err.h"
#include "tern/p2p.h"
#include "tern/wire.h"
#include "transports/tcp/tcp.h"

/* Read buffer size; grows for larger packets. */
#define IBUF_MIN (256 * 1024)
/* Bytes asked of one recv() into the buffer: an eager packet and then some.
 * Larger reads would copy more of a large payload through the buffer. */
#define READ_STEP (64 * 1024 + 256)
/* Payloads at least this large are read in place when the p2p core can. */
#define PLACE_MIN (32 * 1024)

/* Buffer of a connection in its handshake: a hostile one costs no more. */
#define HS_BUF 256

/* Where the bytes of a truncated payload go. */
static char discard[64 * 1024];

struct tcp_conn *tern_tcp_conn_new(int fd, enum conn_state state, int peer)
{
    struct tcp_conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->fd = fd;
    c->state = state;
    c->peer = peer;
    c->deadline_ms = tern_clock_ms() + TERN_AUTH_TIMEOUT_MS;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return c;
}

void tern_tcp_conn_free(struct tcp_conn *c)
{
    if (!c)
        return;
    if (c->fd >= 0)
        close(c->fd);
    free(c->ibuf);
    free(c);
}

struct tcp_conn *tern_tcp_conn_dial(const struct tern_addr *addr, int peer)
{
    int fd = socket(addr->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return NULL;
    if (connect(fd, (const struct sockaddr *)&addr->sa, addr->len) && errno != EINPROGRESS) {
        close(fd);
        return NULL;
    }
    struct tcp_conn *c = tern_tcp_conn_new(fd, CONN_CONNECTING, peer);
    if (!c)
        close(fd);
    return c;
}

void tern_tcp_conn_tune(struct tcp_conn *c, int timeout_s)
{
    int on = 1, idle = timeout_s / 3 > 0 ? timeout_s / 3 : 1, intvl = idle / 2 > 0 ? idle / 2 : 1;
    int cnt = 3;
    setsockopt(c->fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    setsockopt(c->fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(c->fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    setsockopt(c->fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}

/* Makes room for `need` more bytes after the unread ones. */
static int ibuf_reserve(struct tcp_conn *c, size_t need)
{
    if (c->ipos > 0 && c->ipos == c->ilen)
        c->ipos = c->ilen = 0;
    if (c->ilen + need <= c->icap)
        return 0;
    if (c->ipos > 0) {
        memmove(c->ibuf, c->ibuf + c->ipos, c->ilen - c->ipos);
        c->ilen -= c->ipos;
        c->ipos = 0;
        if (c->ilen + need <= c->icap)
            return 0;
    }
    size_t cap = c->icap ? c->icap : c->state == CONN_READY ? IBUF_MIN : HS_BUF;
    while (cap < c->ilen + need)
        cap *= 2;
    char *b = realloc(c->ibuf, cap);
    if (!b)
        return TERN_ENOMEM;
    c->ibuf = b;
    c->icap = cap;
    return 0;
}

/* One recv of up to max(want, READ_STEP) bytes into the buffer: bytes
 * read, 0 if none now, or TERN_EPEER. */
static long fill(struct tcp_conn *c, size_t want)
{
    if (c->state == CONN_READY && c->icap < IBUF_MIN && want < READ_STEP)
        want = READ_STEP;
    if (ibuf_reserve(c, want))
        return TERN_ENOMEM;
    size_t ask = c->icap - c->ilen;
    if (c->state != CONN_READY && ask > want)
        ask = want;
    if (ask > READ_STEP && ask > want)
        ask = want > READ_STEP ? want : READ_STEP;
    ssize_t n = recv(c->fd, c->ibuf + c->ilen, ask, MSG_DONTWAIT);
    if (n > 0) {
        c->ilen += (size_t)n;
        return n;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (n == 0)
        errno = 0;
    return TERN_EPEER;
}

/* Sends a short handshake message whole, or fails. */
static int send_all(int fd, const void *buf, size_t len)
{
    ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    return n == (ssize_t)len ? 0 : TERN_EPEER;
}

/* Initiator: answer the challenge with our response and HELLO. */
static int answer_challenge(struct tcp_conn *c, int me, const unsigned char *secret)
{
    unsigned char out[TERN_AUTH_RESPONSE_LEN + TCP_HELLO_LEN];
    int rc = tern_auth_client_respond(&c->cli, secret,
                                      (const unsigned char *)c->ibuf + c->ipos, out);
    if (rc)
        return rc;
    c->ipos += TERN_AUTH_CHALLENGE_LEN;
    tern_wire_put32(out + TERN_AUTH_RESPONSE_LEN, TCP_HELLO_MAGIC);
    tern_wire_put32(out + TERN_AUTH_RESPONSE_LEN + 4, (uint32_t)me);
    tern_wire_put32(out + TERN_AUTH_RESPONSE_LEN + 8, (uint32_t)c->peer);
    c->state = CONN_WAIT_PROOF;
    return send_all(c->fd, out, sizeof out);
}

/* Acceptor: check the response and HELLO, decide, send proof and decision. */
static int answer_hello(struct tcp_conn *c, int me, const unsigned char *secret,
                        int (*decide)(struct tcp_conn *c))
{
    const unsigned char *in = (const unsigned char *)c->ibuf + c->ipos;
    unsigned char out[TERN_AUTH_PROOF_LEN + 1];
    int rc = tern_auth_server_check(&c->srv, secret, in, out);
    if (rc)
        return rc;
    const unsigned char *hello = in + TERN_AUTH_RESPONSE_LEN;
    uint32_t from = tern_wire_get32(hello + 4);
    if (tern_wire_get32(hello) != TCP_HELLO_MAGIC || tern_wire_get32(hello + 8) != (uint32_t)me ||
        from == (uint32_t)me || from > INT32_MAX)
        return TERN_EPROTO;
    c->ipos += TERN_AUTH_RESPONSE_LEN + TCP_HELLO_LEN;
    c->peer = (int)from;
    int accept = decide(c);
    if (accept < 0)
        return TERN_EPROTO;
    out[TERN_AUTH_PROOF_LEN] = (unsigned char)accept;
    rc = send_all(c->fd, out, sizeof out);
    if (rc)
        return rc;
    if (accept)
        c->state = CONN_READY;
    return accept ? 0 : 1;
}

int tern_tcp_conn_handshake(struct tcp_conn *c, int me, const unsigned char *secret,
                            int (*decide)(struct tcp_conn *c))
{
    if (c->state == CONN_CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) || err) {
            errno = err;
            return TERN_EPEER;
        }
        c->state = CONN_WAIT_CHAL;
    }
    size_t need = c->state == CONN_WAIT_CHAL ? TERN_AUTH_CHALLENGE_LEN
                : c->state == CONN_WAIT_PROOF ? TERN_AUTH_PROOF_LEN + 1
                : TERN_AUTH_RESPONSE_LEN + TCP_HELLO_LEN;
    long n = fill(c, need);
    if (n < 0)
        return (int)n;
    if (c->ilen - c->ipos < need)
        return 0;
    if (c->state == CONN_WAIT_CHAL) {
        int rc = answer_challenge(c, me, secret);
        return rc ? rc : (c->ilen > c->ipos ? tern_tcp_conn_handshake(c, me, secret, decide) : 0);
    }
    if (c->state == CONN_WAIT_HELLO)
        return answer_hello(c, me, secret, decide);
    int rc = tern_auth_client_check(&c->cli, (const unsigned char *)c->ibuf + c->ipos);
    if (rc)
        return rc;
    int accepted = c->ibuf[c->ipos + TERN_AUTH_PROOF_LEN] == 1;
    c->ipos += TERN_AUTH_PROOF_LEN + 1;
    if (accepted)
        c->state = CONN_READY;
    return accepted ? 0 : 1;
}

/* Whether hdr/payload is the packet whose start is already on the wire:
 * the same header and payload length. Not the same payload address: the
 * p2p core may offer the same bytes from another place when it retries
 * (a send that its collective gave up moves to a copy of its own,
 * tern_p2p_abandon; a non-contiguous packet may be packed again, into a
 * buffer that grew), and rejecting those would refuse every later packet
 * to the peer for good. While a packet is partly out, the p2p core offers
 * only the head of the peer's send queue, which is that packet's request
 * until the packet is out, and control packets, whose headers name their
 * own requests; so a packet with the same header and length is the retry,
 * also an EAGER_SHORT one, whose header names no request. */
static int same_packet(const struct tcp_conn *c, const void *hdr, size_t hdr_len,
                       size_t payload_len)
{
    return payload_len == c->wpay_len && TCP_FRAME_HDR + hdr_len == c->whdr_len &&
           memcmp(c->whdr + TCP_FRAME_HDR, hdr, hdr_len) == 0;
}

int tern_tcp_conn_send(struct tcp_conn *c, const void *hdr, size_t hdr_len,
                       const void *payload, size_t payload_len)
{
    if (c->wpending) {
        if (!same_packet(c, hdr, hdr_len, payload_len))
            return TERN_EAGAIN;
    } else {
        if (hdr_len > TCP_PHDR_MAX)
            return TERN_EINVAL;
        tern_wire_put32(c->whdr, (uint32_t)(hdr_len + payload_len));
        tern_wire_put32(c->whdr + 4, (uint32_t)hdr_len);
        memcpy(c->whdr + TCP_FRAME_HDR, hdr, hdr_len);
        c->whdr_len = TCP_FRAME_HDR + hdr_len;
        c->wpay_len = payload_len;
        c->wdone = 0;
    }
    /* Whatever of the frame header, payload and padding is not written yet. */
    static const char zeros[TCP_ALIGN];
    const struct iovec part[3] = {
        { c->whdr, c->whdr_len },
        { (void *)payload, payload_len },
        { (void *)zeros, tcp_pad(c->whdr_len + payload_len) },
    };
    struct iovec iov[3];
    struct msghdr msg = { .msg_iov = iov };
    size_t skip = c->wdone, total = 0;
    for (int i = 0; i < 3; i++) {
        total += part[i].iov_len;
        if (skip >= part[i].iov_len) {
            skip -= part[i].iov_len;
            continue;
        }
        iov[msg.msg_iovlen].iov_base = (char *)part[i].iov_base + skip;
        iov[msg.msg_iovlen++].iov_len = part[i].iov_len - skip;
        skip = 0;
    }
    ssize_t n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return TERN_EAGAIN;
        return TERN_EPEER;
    }
    c->wdone += (size_t)n;
    c->wpending = c->wdone < total;
    return c->wpending ? TERN_EAGAIN : 0;
}

/* Moves unread bytes to the start of the buffer when the next frame does not
 * start on an 8-byte boundary (only after the handshake, whose messages are
 * not padded), so every packet handed up is aligned for its header struct. */
static void realign(struct tcp_conn *c)
{
    if (!(c->ipos % TCP_ALIGN))
        return;
    memmove(c->ibuf, c->ibuf + c->ipos, c->ilen - c->ipos);
    c->ilen -= c->ipos;
    c->ipos = 0;
}

/* Reads the rest of a payload in place; 1 when complete, 0 when the socket
 * has no more now, or TERN_EPEER. */
static int place_more(struct tcp_conn *c)
{
    size_t end = c->plen + c->ppad;
    while (c->pdone < end) {
        char *to = discard;
        size_t want = end - c->pdone;
        if (c->pdone < c->proom) {
            to = c->pdest + c->pdone;
            want = c->proom - c->pdone;
        } else if (want > sizeof discard) {
            want = sizeof discard;
        }
        ssize_t n = recv(c->fd, to, want, MSG_DONTWAIT);
        if (n > 0) {
            c->pdone += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return 0;
        if (n == 0)
            errno = 0;
        return TERN_EPEER;
    }
    c->placing = 0;
    tern_p2p_recv_placed(c->phdr, c->phdr_len, c->plen);
    return 1;
}

/* Starts reading the payload of the frame at ipos (total bytes, hl of them
 * header, all of the header buffered) in place; 1 if the p2p core took it. */
static int start_place(struct tcp_conn *c, size_t total, size_t hl)
{
    const char *hdr = c->ibuf + c->ipos + TCP_FRAME_HDR;
    size_t plen = total - hl, room;
    if (hl > TCP_PHDR_MAX || plen < PLACE_MIN)
        return 0;
    char *dest = tern_p2p_recv_place(hdr, hl, plen, &room);
    if (!dest)
        return 0;
    size_t avail = c->ilen - c->ipos - TCP_FRAME_HDR - hl;
    c->ppad = tcp_pad(TCP_FRAME_HDR + total);
    memcpy(c->phdr, hdr, hl);
    c->phdr_len = hl;
    memcpy(dest, hdr + hl, avail < room ? avail : room);
    c->pdest = dest;
    c->proom = room;
    c->plen = plen;
    c->pdone = avail;
    c->placing = 1;
    c->ipos = c->ilen;
    return 1;
}

int tern_tcp_conn_read(struct tcp_conn *c, size_t max)
{
    int delivered = 0;
    if (c->placing) {
        int rc = place_more(c);
        if (rc <= 0)
            return rc;
        delivered++;
    }
    /* Ask for the rest of the frame header, then the packet header (so its
     * payload may be placed), then the rest of a packet not placed. */
    size_t want = TCP_FRAME_HDR, have = c->ilen - c->ipos;
    if (have >= TCP_FRAME_HDR) {
        const unsigned char *f = (const unsigned char *)c->ibuf + c->ipos;
        size_t len = tern_wire_get32(f), hl = tern_wire_get32(f + 4);
        if (len > max || len == 0 || hl > len)
            return TERN_EPROTO;
        size_t whole = TCP_FRAME_HDR + len + tcp_pad(TCP_FRAME_HDR + len);
        want = (have < TCP_FRAME_HDR + hl ? TCP_FRAME_HDR + hl : whole) - have;
    } else {
        want -= have;
    }
    long n = fill(c, want);
    if (n < 0 && c->ilen == c->ipos)
        return (int)n;
    while ((have = c->ilen - c->ipos) >= TCP_FRAME_HDR) {
        realign(c);
        const unsigned char *f = (const unsigned char *)c->ibuf + c->ipos;
        size_t len = tern_wire_get32(f), hl = tern_wire_get32(f + 4);
        if (len > max || len == 0 || hl > len)
            return TERN_EPROTO;
        size_t whole = TCP_FRAME_HDR + len + tcp_pad(TCP_FRAME_HDR + len);
        if (have < whole) {
            if (have >= TCP_FRAME_HDR + hl && start_place(c, len, hl)) {
                int rc = place_more(c);
                if (rc < 0)
                    return rc;
                delivered += rc;
            }
            break;
        }
        tern_p2p_recv_packet(c->peer, f + TCP_FRAME_HDR, len);
        c->ipos += whole;
        delivered++;
    }
    if (n < 0)
        return (int)n;
    return delivered;
}
