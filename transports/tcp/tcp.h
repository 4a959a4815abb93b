/*
 * Internals of the TCP transport, shared by its files:
 *   tcp.c      the ops table: phases, send, progress, block, peer failure
 *   conn.c     one connection: nonblocking connect, the handshake, framed
 *              reads and writes
 *
 * Connections. Each rank listens on one address (include/tern/net.h picks
 * it: the interface that reaches the launcher's store, or TERN_TCP_IF) and
 * publishes it. A connection to a peer is opened on the first send to it,
 * from either side. Every connection starts with the job-secret handshake
 * of common/auth.h, the acceptor being the server:
 *
 *   acceptor -> initiator  CHALLENGE                         (40 bytes)
 *   initiator -> acceptor  RESPONSE, HELLO{magic, from, to}  (64 + 12)
 *   acceptor -> initiator  PROOF, DECISION (1 accept, 0 refuse)  (32 + 1)
 *
 * When two ranks connect to each other at once, the connection opened by
 * the lower rank wins: the acceptor refuses a HELLO from a higher rank while
 * its own connection to that rank is pending, and drops its own pending one
 * when it accepts a lower rank. No data flows before the DECISION, so a
 * losing connection carries nothing. A connection that fails the handshake
 * (garbage, a wrong MAC, silence past TERN_AUTH_TIMEOUT_MS, an early close)
 * is dropped and logged at verbose level 1; the job goes on.
 *
 * Framing: each packet is preceded by its length and its header's length
 * (two 4-byte big-endian words, as everywhere on Tern's wire) and followed
 * by zeros up to a multiple of 8 bytes, so that packets read into the
 * (8-byte aligned) buffer start aligned for the p2p core's header struct. send() writes straight from the
 * caller's buffers with one sendmsg and copies no payload. When the socket
 * takes only part of a packet, send() returns TERN_EAGAIN and remembers how
 * far it got; the p2p core retries its queued packets in order, so the
 * next call for this peer is the same packet (same header bytes, same
 * payload buffer), which continues where it stopped. Any other packet gets
 * TERN_EAGAIN until then, so packets never interleave on the wire. Reads fill a per-connection buffer in steps of about 64 KiB and
 * deliver every whole packet in it; a packet with a large payload whose
 * header has arrived is offered to the p2p core (tern_p2p_recv_place), and
 * if it says where the payload belongs (a DATA chunk of a large message),
 * the rest is read straight into the user's buffer.
 *
 * A connection we opened that the peer's kernel accepted but whose
 * handshake fails by silence or EOF (the peer computed outside MPI for
 * longer than the acceptor's deadline) is opened again, unless it already
 * sent its HELLO: the peer may have accepted it, so it waits for the
 * peer's decision however long that takes; only a connect()
 * that fails (refused, unreachable, no answer within TERN_TCP_TIMEOUT) or a
 * wrong proof makes the peer lost. At most TCP_MAX_HANDSHAKES accepted
 * connections may be in their handshake at once; past that, and when the
 * process runs out of file descriptors, the listener rests for a moment.
 *
 * Failure: an established connection that ends (EOF, reset, or keepalive
 * probes of a silent peer unanswered for TERN_TCP_TIMEOUT) is a lost peer.
 * No TCP_USER_TIMEOUT: since Linux 5.11 it also ends connections whose
 * receiver keeps a zero window, that is, a rank that computes while data
 * waits for it. The rank
 * reports it naming the peer's rank and host and, unless the launcher ends
 * the job first (a crashed rank is reported better by mpirun), aborts the
 * job after TERN_TCP_FAIL_GRACE_MS.
 */
#ifndef TERN_TRANSPORTS_TCP_H
#define TERN_TRANSPORTS_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "tern/auth.h"
#include "tern/net.h"

#define TCP_HELLO_MAGIC 0x50435454u /* "TTCP" */
#define TCP_HELLO_LEN 12
#define TCP_FRAME_HDR 8
#define TCP_PHDR_MAX 64
/* Frames are padded to a multiple of this, so packets stay aligned. */
#define TCP_ALIGN 8
#define TCP_MAX_HANDSHAKES 64
/* How long the listener rests when handshakes or descriptors run out. */
#define TCP_LISTEN_REST_MS 100

enum conn_state {
    CONN_CONNECTING,  /* Initiator: nonblocking connect() in progress. */
    CONN_WAIT_CHAL,   /* Initiator: waits for the challenge. */
    CONN_WAIT_PROOF,  /* Initiator: waits for proof and decision. */
    CONN_WAIT_HELLO,  /* Acceptor: sent the challenge, waits for the reply. */
    CONN_READY,       /* Authenticated; carries packets. */
    CONN_DEAD         /* Failed; to be freed at a safe point. */
};

struct tcp_conn {
    int fd;
    enum conn_state state;
    int peer;               /* World rank; -1 until an acceptor knows it. */
    long long deadline_ms;  /* Handshake deadline. */
    char who[64];           /* The far end's address, for the log. */
    struct tern_auth_server srv;
    struct tern_auth_client cli;
    char *ibuf;             /* Bytes read, not yet delivered. */
    size_t ipos, ilen, icap;
    int placing;            /* Reading a payload in place: */
    uint64_t phdr[TCP_PHDR_MAX / 8]; /* its packet header (aligned), */
    size_t phdr_len;
    char *pdest;            /* where it goes, */
    size_t proom, plen, pdone; /* bytes wanted there, in all, and read, */
    size_t ppad;            /* and the frame's padding after it. */
    int wpending;           /* A packet is partly written: */
    unsigned char whdr[TCP_FRAME_HDR + TCP_PHDR_MAX]; /* its frame and header, */
    size_t whdr_len;
    size_t wpay_len, wdone; /* its payload's length, and the bytes of the
                               frame written. */
    struct tcp_conn *next;  /* In the transport's list of connections. */
};

/* conn.c */
struct tcp_conn *tern_tcp_conn_new(int fd, enum conn_state state, int peer);
void tern_tcp_conn_free(struct tcp_conn *c);
/* Starts a nonblocking connect to addr; NULL on immediate failure. */
struct tcp_conn *tern_tcp_conn_dial(const struct tern_addr *addr, int peer);
/* Advances a handshake on readable/writable input; 0, or an error that
 * drops the connection. The decision callback answers an acceptor. */
int tern_tcp_conn_handshake(struct tcp_conn *c, int me,
                            const unsigned char *secret,
                            int (*decide)(struct tcp_conn *c));
/* Writes a frame: 0 (all written), TERN_EAGAIN (not all written; call
 * again with the same packet), or TERN_EPEER. */
int tern_tcp_conn_send(struct tcp_conn *c, const void *hdr, size_t hdr_len,
                       const void *payload, size_t payload_len);
/* Reads what the socket has and delivers whole frames of at most max bytes
 * to the p2p core; returns frames delivered or a negative code (TERN_EPEER
 * on EOF or error, TERN_EPROTO on a bad length). */
int tern_tcp_conn_read(struct tcp_conn *c, size_t max);
/* Sets keepalive so that a silent peer is noticed. */
void tern_tcp_conn_tune(struct tcp_conn *c, int timeout_s);


/* Zero bytes that pad a frame of n bytes to a multiple of TCP_ALIGN. */
static inline size_t tcp_pad(size_t n)
{
    return (TCP_ALIGN - n % TCP_ALIGN) % TCP_ALIGN;
}

#endif
