/*
 * The sending side: choosing a protocol, injecting packets into the peer's
 * transport, and queuing what the transport cannot take yet.
 *
 * Cost: an eager message is one packet of header + payload (one copy in,
 * one copy out on shm). A rendezvous message is RTS, then either one
 * single-copy read by the receiver and a FIN back (2 packets + 1 copy), or
 * CTS and ceil(len / chunk) DATA packets (2 copies per byte, pipelined).
 *
 * Non-contiguous data is packed as it goes out, one packet's worth at a
 * time, into a buffer kept for that (`bounce`), and always takes the eager
 * or the pipelined path; it is never staged whole. Staging allocated and
 * faulted in the whole message for every send, and a page fault costs
 * about 10 us on the reference VM: 64 nonblocking sends of a 512 KiB
 * vector then ran at 167 MB/s (Open MPI 2155).
 */
#include <stdlib.h>
#include <string.h>

#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/p2p/p2p.h"
#include "libmpi/p2p/peer.h"
#include "tern/err.h"

enum send_state {
    SEND_EAGER = 1,   /* Eager packet not injected yet. */
    SEND_RTS,         /* RTS not injected yet. */
    SEND_WAIT,        /* Waiting for ACK, CTS or FIN. */
    SEND_STREAM       /* Injecting DATA chunks after a CTS. */
};

/* How far MPI_Cancel of a send got (r->cancel; packet.h, CANCEL). */
enum cancel_state {
    CANCEL_WANTED = 1, /* Asked before the message went out: CANCEL
                          follows it. */
    CANCEL_ASKED,      /* CANCEL sent: its answer names r, which lives
                          until it comes. */
    CANCEL_ASKED_DONE, /* ...and the send completed meanwhile. */
    CANCEL_ANSWERED
};

static void sendq_push(struct tern_peer *p, struct tern_request *r)
{
    if (!p->sendq_head && !p->ctl_head)
        tern_p2p.pending++;
    r->next = NULL;
    if (p->sendq_tail)
        p->sendq_tail->next = r;
    else
        p->sendq_head = r;
    p->sendq_tail = r;
}

/* The packing buffer, and which bytes of which send it holds: a packet the
 * transport refused is offered again later without packing it again. */
static struct {
    char *buf;
    size_t cap;
    const struct tern_request *owner;
    size_t offset, len;
} bounce;

/* Points *bytes at bytes [offset, offset + len) of r's message as one
 * contiguous run: in the user's buffer (which may be NULL for an empty
 * message), or packed into the bounce buffer. TERN_ENOMEM when that buffer
 * cannot grow. */
static int out_bytes(struct tern_request *r, size_t offset, size_t len, const void **bytes)
{
    if (!r->dtype) {
        *bytes = (const char *)r->buf + offset;
        return 0;
    }
    if (bounce.owner != r || bounce.offset != offset || bounce.len != len) {
        if (len > bounce.cap) {
            char *b = realloc(bounce.buf, len);
            if (!b)
                return TERN_ENOMEM;
            bounce.buf = b;
            bounce.cap = len;
        }
        tern_dtype_pack_range(r->dtype, r->user_buf, r->len / r->dtype->size, offset, len,
                              bounce.buf);
        bounce.owner = r;
        bounce.offset = offset;
        bounce.len = len;
    }
    *bytes = bounce.buf;
    return 0;
}

void tern_p2p_send_release(void)
{
    free(bounce.buf);
    memset(&bounce, 0, sizeof(bounce));
}

static void peer_maybe_idle(struct tern_peer *p)
{
    if (!p->sendq_head && !p->ctl_head)
        tern_p2p.pending--;
}

/* Ends the exposure of r's buffer, if any: no receiver reads it through
 * the transport any more. */
static void unexpose(struct tern_request *r)
{
    if (r->bulk) {
        tern_p2p.peers[r->peer].tp->unexpose(r->bulk);
        r->bulk = NULL;
    }
}

void tern_p2p_send_done(struct tern_request *r)
{
    if (r->cancel == CANCEL_ASKED) {
        r->cancel = CANCEL_ASKED_DONE;
        return;
    }
    /* The request's memory may serve another send next. */
    if (bounce.owner == r)
        bounce.owner = NULL;
    unexpose(r);
    if (!r->abandoned)
        tern_p2p.active_sends--;
    r->done = 1;
    if (r->user_freed)
        tern_request_free(r);
}

static void fill_envelope(struct tern_pkt *pkt, const struct tern_request *r,
                          int type)
{
    memset(pkt, 0, sizeof(*pkt));
    pkt->type = (uint8_t)type;
    pkt->tag = r->tag;
    pkt->src = r->as_rank;
    pkt->ctx = r->ctx;
    pkt->len = r->len;
    pkt->sreq = (uint64_t)(uintptr_t)r;
}

/* Whether r's receiver may read r's buffer itself (the RTS offers, or
 * will offer, its address): then the sender never reads it again. */
static int offers_single_copy(const struct tern_request *r)
{
    const struct tern_peer *p = &tern_p2p.peers[r->peer];
    return r->state != SEND_EAGER &&
           (p->tp->expose ? r->bulk != NULL : !r->dtype && r->len >= p->single_copy_min);
}

/* Moves the bytes of an unfinished send into a buffer of its own, since
 * the caller's may go away while the send goes on; keeps the caller's if
 * memory runs out, or if it owns a buffer already, or if the receiver
 * reads the caller's buffer in one copy from its own side (it reads what
 * is there, or fails: the transport is told not to read it on this side,
 * tp->forget). A transport that exposes the buffer serves the receiver's
 * read on this side: r gets a copy, and tern_p2p_release() takes the
 * offer back. */
static void detach(struct tern_request *r)
{
    const struct tern_tp_ops *tp = tern_p2p.peers[r->peer].tp;
    if (!tp->expose && offers_single_copy(r)) {
        if (tp->forget)
            tp->forget(r->buf, r->len);
        return;
    }
    if (r->len == 0 || r->owned)
        return;
    char *copy = malloc(r->len);
    if (!copy)
        return;
    if (r->dtype) {
        tern_dtype_pack(r->dtype, r->user_buf, r->len / r->dtype->size, copy);
        tern_dtype_release(r->dtype);
        r->dtype = NULL;
        r->user_buf = NULL;
        if (bounce.owner == r)
            bounce.owner = NULL;
    } else {
        memcpy(copy, r->buf, r->len);
    }
    r->buf = r->owned = copy;
}

int tern_p2p_send_unmatched(const struct tern_request *r)
{
    return r->kind == TERN_REQ_SEND && !r->done &&
           (r->state == SEND_EAGER || r->state == SEND_RTS ||
            (r->state == SEND_WAIT && !r->peer_req));
}

int tern_p2p_release(struct tern_request *r)
{
    if (r->kind != TERN_REQ_SEND || r->done || (!r->bulk && !r->released))
        return 0;
    if (!r->released) {
        r->released = 1;
        detach(r);
        /* Before its RTS goes out (SEND_RTS), or after a CTS declined the
         * offer (SEND_STREAM), no receiver reads the buffer. */
        if (r->state == SEND_WAIT) {
            struct tern_pkt pkt;
            fill_envelope(&pkt, r, TERN_PKT_RECALL);
            tern_p2p_send_ctl(r->peer, &pkt);
        } else {
            unexpose(r);
        }
    }
    return tern_p2p_uses_buffer(r);
}

void tern_p2p_recalled(struct tern_request *r)
{
    /* A RECALL still queued when its send completed may be answered after
     * the request went to another send, which then only goes pipelined. */
    if (r->kind == TERN_REQ_SEND && r->released)
        unexpose(r);
}

void tern_p2p_abandon(struct tern_request *r)
{
    tern_p2p_cancel(r);
    if (r->done) {
        tern_request_free(r);
        return;
    }
    r->user_freed = 1;
    if (r->kind == TERN_REQ_SEND && !r->abandoned) {
        detach(r);
        r->abandoned = 1;
        tern_p2p.active_sends--;
    }
}

/* Sends CANCEL for r, whose message went out. */
static void ask_cancel(struct tern_request *r)
{
    struct tern_pkt pkt;
    fill_envelope(&pkt, r, TERN_PKT_CANCEL);
    r->cancel = CANCEL_ASKED;
    tern_p2p_send_ctl(r->peer, &pkt);
}

void tern_p2p_cancel_send(struct tern_request *r)
{
    if (r->kind != TERN_REQ_SEND || r->done || r->cancel || r->abandoned || r->released)
        return;
    /* A standard eager send completes as it goes out, so it is never cancelled. */
    if (r->state == SEND_WAIT && !r->peer_req)
        ask_cancel(r);
    else if (r->state == SEND_RTS || (r->state == SEND_EAGER && r->sync))
        r->cancel = CANCEL_WANTED;
}

void tern_p2p_cancel_answered(struct tern_request *r, int withdrawn)
{
    int completed = r->cancel == CANCEL_ASKED_DONE;
    r->cancel = CANCEL_ANSWERED;
    r->cancelled = (uint8_t)withdrawn;
    if (withdrawn || completed)
        tern_p2p_send_done(r);
}

/* Hands one packet (header hdr of hdr_len bytes) to the peer's
 * transport, and counts it if taken. */
static int transmit_hdr(struct tern_peer *p, int peer, const void *hdr, size_t hdr_len,
                        const void *payload, size_t payload_len)
{
    int rc = p->tp->send(peer, hdr, hdr_len, payload, payload_len);
    if (rc == 0)
        p->sent++;
    return rc;
}

static int transmit(struct tern_peer *p, int peer, const struct tern_pkt *pkt,
                    const void *payload, size_t payload_len)
{
    return transmit_hdr(p, peer, pkt, sizeof(*pkt), payload, payload_len);
}

/* An EAGER packet without SYNC goes as EAGER_SHORT (packet.h). */
static int transmit_eager(struct tern_peer *p, const struct tern_request *r,
                          const void *bytes)
{
    if (!r->sync && r->len <= UINT32_MAX) {
        struct tern_pkt_short s = {
            .type = TERN_PKT_EAGER_SHORT, .tag = r->tag, .src = r->as_rank,
            .ctx = r->ctx, .len = (uint32_t)r->len,
        };
        return transmit_hdr(p, r->peer, &s, sizeof(s), bytes, r->len);
    }
    struct tern_pkt pkt;
    fill_envelope(&pkt, r, TERN_PKT_EAGER);
    pkt.flags = r->sync ? TERN_PKT_SYNC : 0;
    return transmit(p, r->peer, &pkt, bytes, r->len);
}

/* Injects the next packet(s) of r. Returns 1 when r no longer needs the
 * send queue, 0 when the transport is full, or a negative code. */
static int inject(struct tern_peer *p, struct tern_request *r)
{
    struct tern_pkt pkt;
    const void *bytes;
    int rc;
    switch (r->state) {
    case SEND_EAGER:
        if ((rc = out_bytes(r, 0, r->len, &bytes)))
            return rc;
        rc = transmit_eager(p, r, bytes);
        if (rc)
            return rc == TERN_EAGAIN ? 0 : rc;
        if (!r->sync) {
            tern_p2p_send_done(r);
            return 1;
        }
        r->state = SEND_WAIT;
        if (r->cancel == CANCEL_WANTED)
            ask_cancel(r);
        return 1;
    case SEND_RTS:
        fill_envelope(&pkt, r, TERN_PKT_RTS);
        /* Offering the buffer's address (and the key of its exposure) lets
         * the receiver read it in one copy; without it the receiver asks
         * for pipelined DATA. */
        int offer = p->tp->expose ? r->bulk != NULL
                                  : !r->dtype && r->len >= p->single_copy_min;
        pkt.aux = offer ? (uint64_t)(uintptr_t)r->buf : 0;
        rc = transmit(p, r->peer, &pkt, &r->bulk_key, sizeof(r->bulk_key));
        if (rc)
            return rc == TERN_EAGAIN ? 0 : rc;
        r->state = SEND_WAIT;
        if (r->cancel == CANCEL_WANTED)
            ask_cancel(r);
        return 1;
    case SEND_STREAM:
        fill_envelope(&pkt, r, TERN_PKT_DATA);
        pkt.aux = r->peer_req;
        while (r->offset < r->len) {
            size_t n = r->len - r->offset;
            if (n > p->chunk_max)
                n = p->chunk_max;
            if ((rc = out_bytes(r, r->offset, n, &bytes)))
                return rc;
            rc = transmit(p, r->peer, &pkt, bytes, n);
            if (rc)
                return rc == TERN_EAGAIN ? 0 : rc;
            r->offset += n;
        }
        tern_p2p_send_done(r);
        return 1;
    default:
        return TERN_EINTERN;
    }
}

/* Tries the head of a peer's queues; returns events made. */
static int flush_peer(struct tern_peer *p, int peer)
{
    int n = 0;
    while (p->ctl_head) {
        struct tern_ctl *c = p->ctl_head;
        if (transmit(p, peer, &c->pkt, NULL, 0))
            break;
        p->ctl_head = c->next;
        if (!p->ctl_head)
            p->ctl_tail = NULL;
        free(c);
        n++;
    }
    while (p->sendq_head) {
        struct tern_request *r = p->sendq_head;
        struct tern_request *next = r->next;
        int rc = inject(p, r);
        if (rc == 0)
            break;
        if (rc < 0) {
            r->error = rc;
            tern_p2p_send_done(r);
        }
        p->sendq_head = next;
        if (!p->sendq_head)
            p->sendq_tail = NULL;
        n++;
    }
    return n;
}

int tern_p2p_flush(void)
{
    int n = 0;
    for (int i = 0; i < tern_p2p.npeers && tern_p2p.pending; i++) {
        struct tern_peer *p = &tern_p2p.peers[i];
        if (!p->sendq_head && !p->ctl_head)
            continue;
        n += flush_peer(p, i);
        peer_maybe_idle(p);
    }
    return n;
}

void tern_p2p_send_ctl(int peer, const struct tern_pkt *pkt)
{
    struct tern_peer *p = &tern_p2p.peers[peer];
    if (!p->ctl_head && transmit(p, peer, pkt, NULL, 0) == 0)
        return;
    struct tern_ctl *c = malloc(sizeof(*c));
    if (!c)
        abort(); /* A lost control packet would hang a peer forever. */
    c->pkt = *pkt;
    c->next = NULL;
    if (!p->sendq_head && !p->ctl_head)
        tern_p2p.pending++;
    if (p->ctl_tail)
        p->ctl_tail->next = c;
    else
        p->ctl_head = c;
    p->ctl_tail = c;
}

void tern_p2p_start_stream(struct tern_request *r)
{
    struct tern_peer *p = &tern_p2p.peers[r->peer];
    /* The receiver declined the offer: a released send streams from its
     * copy, and its call need not wait for the stream. */
    if (r->released)
        unexpose(r);
    r->state = SEND_STREAM;
    r->offset = 0;
    if (!p->sendq_head) {
        int rc = inject(p, r);
        if (rc < 0) {
            r->error = rc;
            tern_p2p_send_done(r);
        }
        if (rc != 0)
            return;
    }
    sendq_push(p, r);
}

/* Where the bytes to send are: the user's buffer when contiguous, else
 * the type that out_bytes() packs them by. */
static void prepare_buffer(struct tern_request *r, const void *buf, size_t count,
                           const struct tern_dtype *dt)
{
    r->len = count * dt->size;
    if (tern_dtype_contig(dt, count)) {
        r->buf = (void *)buf;
        return;
    }
    r->user_buf = (void *)buf;
    /* Held until the request is freed (request.c releases it). */
    r->dtype = dt;
    tern_dtype_retain(dt);
}

/* Starts send r, whose buffer, envelope and peer are set. */
static void start_send(struct tern_request *r, int mode)
{
    r->sync = mode == TERN_SEND_SYNC;
    tern_p2p.active_sends++;
    struct tern_peer *p = &tern_p2p.peers[r->peer];
    r->state = r->len <= (r->dtype ? p->eager_max : p->contig_eager_max) ? SEND_EAGER
                                                                         : SEND_RTS;
    if (r->state == SEND_RTS && !r->dtype && r->len >= p->single_copy_min && p->tp->expose &&
        p->tp->expose(r->peer, r->buf, r->len, &r->bulk_key, &r->bulk) != 0) {
        r->bulk = NULL; /* Not exposed: the message goes pipelined. */
        r->bulk_key = 0;
    }
    if (!p->sendq_head) {
        int rc = inject(p, r);
        if (rc > 0)
            return;
        if (rc < 0) {
            r->error = rc;
            tern_p2p_send_done(r);
            return;
        }
    }
    sendq_push(p, r);
}

int tern_p2p_isend(const void *buf, size_t count, const struct tern_dtype *dt,
                   int dest, int tag, struct tern_comm *comm, uint32_t ctx,
                   int mode, struct tern_request **out)
{
    if (dest == MPI_PROC_NULL) {
        struct tern_request *r = tern_request_alloc(TERN_REQ_NULLPROC);
        if (!r)
            return TERN_ENOMEM;
        r->done = 1;
        *out = r;
        return 0;
    }
    struct tern_request *r = tern_request_alloc(TERN_REQ_SEND);
    if (!r)
        return TERN_ENOMEM;
    prepare_buffer(r, buf, count, dt);
    tern_request_hold_comm(r, comm);
    r->rank = dest;
    r->peer = tern_comm_peer(comm, dest);
    r->as_rank = comm->rank;
    r->tag = tag;
    r->ctx = ctx;
    *out = r;
    start_send(r, mode);
    return 0;
}

int tern_p2p_isend_as(const void *buf, size_t len, int peer, int as_rank, uint32_t ctx,
                      int tag, struct tern_request **out)
{
    struct tern_request *r = tern_request_alloc(TERN_REQ_SEND);
    if (!r)
        return TERN_ENOMEM;
    prepare_buffer(r, buf, len, tern_dtype_get(MPI_BYTE));
    r->rank = MPI_UNDEFINED;
    r->peer = peer;
    r->as_rank = as_rank;
    r->tag = tag;
    r->ctx = ctx;
    *out = r;
    start_send(r, TERN_SEND_STANDARD);
    return 0;
}
