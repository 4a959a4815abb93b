/*
 * The receiving side: packets arriving from the transports, matching them
 * against posted receives, and the receiver's half of each protocol.
 *
 * A non-contiguous receive is unpacked packet by packet, straight from the
 * transport into the user's layout, and always takes the eager or the
 * pipelined path (a single-copy read needs one contiguous destination);
 * it is never staged whole (see send.c for why).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/object.h"
#include "libmpi/p2p/p2p.h"
#include "libmpi/p2p/peer.h"
#include "tern/err.h"
#include "tern/log.h"
#include "tern/p2p.h"

enum recv_state {
    RECV_POSTED = 1,  /* In the posted queue. */
    RECV_DATA,        /* Matched an RTS; DATA chunks arriving. */
    RECV_READ         /* Matched an RTS; the transport reads the data. */
};

static void finish_recv(struct tern_request *r)
{
    r->done = 1;
    if (r->user_freed)
        tern_request_free(r);
}

/* Records the envelope of the matched message; returns the bytes that fit. */
static size_t accept(struct tern_request *r, int peer, int src, int tag, size_t len)
{
    r->peer = peer;
    r->st_source = src;
    r->st_tag = tag;
    r->offset = 0;
    size_t n = len;
    if (len > r->len) {
        r->error = TERN_ETRUNCATE;
        n = r->len;
    }
    r->st_bytes = n;
    return n;
}

static void send_reply(int peer, int type, uint64_t sreq, uint64_t aux)
{
    struct tern_pkt pkt;
    memset(&pkt, 0, sizeof(pkt));
    pkt.type = (uint8_t)type;
    pkt.sreq = sreq;
    pkt.aux = aux;
    tern_p2p_send_ctl(peer, &pkt);
}

/* Stores n bytes of the message, those at r->offset in its packed form:
 * in place, or unpacked into the user's layout when r->dtype is set (only
 * for a non-contiguous receive; its buffer may then be MPI_BOTTOM). */
static void store(struct tern_request *r, const void *bytes, size_t n)
{
    if (!n)
        return;
    if (r->dtype)
        tern_dtype_unpack_range(r->dtype, bytes, r->len / r->dtype->size, r->offset, n,
                                r->user_buf);
    else
        memcpy((char *)r->buf + r->offset, bytes, n);
}

static void deliver_eager(struct tern_request *r, int peer, const struct tern_pkt *h,
                          const void *payload)
{
    size_t n = accept(r, peer, h->src, h->tag, h->len);
    store(r, payload, n);
    if (h->flags & TERN_PKT_SYNC)
        send_reply(peer, TERN_PKT_ACK, h->sreq, 0);
    finish_recv(r);
}

/* The receiver's half of rendezvous: read in one copy when the sender
 * offered its address and the transport can (in the background when the
 * transport has read_start, else blocking), else ask for DATA chunks.
 * A sender that offered its address also answers a CTS. */
static void start_rndv(struct tern_request *r, int peer, int src, int tag,
                       size_t len, uint64_t sreq, uint64_t addr, uint64_t key)
{
    size_t n = accept(r, peer, src, tag, len);
    struct tern_peer *p = &tern_p2p.peers[peer];
    if (addr && p->single_copy_min != SIZE_MAX && !r->dtype) {
        r->peer_req = sreq;
        if (n == 0) {
            tern_p2p_bulk_done(r, 0);
            return;
        }
        if (!p->tp->read_start) {
            tern_p2p_bulk_done(r, p->tp->get_bulk(peer, r->buf, addr, key, n));
            return;
        }
        r->state = RECV_READ;
        if (p->tp->read_start(peer, r->buf, addr, key, n, r) == 0)
            return;
        /* The read cannot start (a registration failed): the sender still
         * has its buffer, so ask for the bytes pipelined instead. */
        TERN_LOG(1, "single-copy read from rank %d cannot start; pipelining", peer);
    }
    r->state = RECV_DATA;
    r->msg_len = len;
    send_reply(peer, TERN_PKT_CTS, sreq, (uint64_t)(uintptr_t)r);
}

void tern_p2p_bulk_done(void *arg, int rc)
{
    struct tern_request *r = arg;
    if (rc) {
        TERN_LOG(1, "single-copy read from rank %d failed: %s", r->peer,
                 tern_err_message(rc));
        r->error = rc;
    }
    send_reply(r->peer, TERN_PKT_FIN, r->peer_req, 0);
    finish_recv(r);
}

/* How many of a DATA chunk's n bytes fit in the receive. */
static size_t data_room(const struct tern_request *r, size_t n)
{
    size_t left = r->offset < r->st_bytes ? r->st_bytes - r->offset : 0;
    return n < left ? n : left;
}

static void data_done(const struct tern_pkt *h, size_t n)
{
    struct tern_request *r = (struct tern_request *)(uintptr_t)h->aux;
    r->offset += n;
    if (r->offset >= r->msg_len)
        finish_recv(r);
}

static void on_data(const struct tern_pkt *h, const void *payload, size_t n)
{
    struct tern_request *r = (struct tern_request *)(uintptr_t)h->aux;
    store(r, payload, data_room(r, n));
    data_done(h, n);
}

void *tern_p2p_recv_place(const void *hdr, size_t hdr_len, size_t payload_len,
                          size_t *room)
{
    const struct tern_pkt *h = hdr;
    if (hdr_len != sizeof(*h) || h->type != TERN_PKT_DATA)
        return NULL;
    struct tern_request *r = (struct tern_request *)(uintptr_t)h->aux;
    if (r->dtype)
        return NULL;   /* Unpacked from the packet by on_data(). */
    *room = data_room(r, payload_len);
    return (char *)r->buf + r->offset;
}

void tern_p2p_recv_placed(const void *hdr, size_t hdr_len, size_t payload_len)
{
    (void)hdr_len;
    data_done(hdr, payload_len);
}

/* The exposure key that follows an RTS header (see send.c). */
static uint64_t rts_key(const struct tern_pkt *h)
{
    uint64_t key;
    memcpy(&key, h + 1, sizeof(key));
    return key;
}

static void on_message(int peer, const struct tern_pkt *h, const void *payload)
{
    struct tern_request *r = tern_match_posted(&tern_p2p.mq, h->ctx, h->src, h->tag);
    if (r) {
        if (h->type == TERN_PKT_EAGER)
            deliver_eager(r, peer, h, payload);
        else
            start_rndv(r, peer, h->src, h->tag, h->len, h->sreq, h->aux, rts_key(h));
        return;
    }
    size_t keep = h->type == TERN_PKT_EAGER ? h->len : 0;
    struct tern_unexp *u = tern_unexp_alloc(keep);
    if (!u)
        abort(); /* Dropping a message would break MPI's guarantees. */
    u->magic = 0;
    u->peer = peer;
    u->src = h->src;
    u->tag = h->tag;
    u->ctx = h->ctx;
    u->type = h->type;
    u->flags = h->flags;
    u->len = h->len;
    u->sreq = h->sreq;
    u->addr = h->aux;
    u->key = h->type == TERN_PKT_RTS ? rts_key(h) : 0;
    if (keep)
        memcpy(u->data, payload, keep);
    tern_match_add_unexp(&tern_p2p.mq, u);
    tern_p2p.unexp_arrivals++;
    if (tern_p2p.notice_mask && (h->tag & tern_p2p.notice_mask) == tern_p2p.notice_bits)
        tern_p2p.notice_arrivals++;
}

/* The sender of an RTS takes back the offer of its buffer (packet.h):
 * if no receive matched the RTS yet, the one that does asks for the bytes
 * pipelined. A matched one owes the sender a FIN or a CTS, which ends the
 * offer there. */
static void on_recall(int peer, uint64_t sreq)
{
    struct tern_unexp *u = tern_match_unexp_waited(&tern_p2p.mq, peer, sreq, 0);
    if (!u || u->type != TERN_PKT_RTS)
        return;
    u->addr = 0;
    u->key = 0;
    send_reply(peer, TERN_PKT_RECALLED, sreq, 0);
}

/* The sender of `sreq` cancels it (packet.h): the message goes if no
 * receive matched it yet. */
static void on_cancel(int peer, uint64_t sreq)
{
    struct tern_unexp *u = tern_match_unexp_waited(&tern_p2p.mq, peer, sreq, 1);
    if (u)
        tern_unexp_free(u);
    send_reply(peer, TERN_PKT_CANCEL_ANSWER, sreq, u != NULL);
}

/* An EAGER_SHORT packet, handled as the EAGER packet it stands for. */
static void on_short(int src, const void *pkt, size_t len)
{
    struct tern_pkt_short s;
    memcpy(&s, pkt, sizeof(s));
    if (s.len != len - sizeof(s)) {
        TERN_LOG(0, "dropping a malformed packet of %zu bytes from rank %d", len, src);
        return;
    }
    if (src >= 0 && src < tern_p2p.npeers)
        tern_p2p.peers[src].received++;
    const struct tern_pkt h = { .type = TERN_PKT_EAGER, .tag = s.tag, .src = s.src,
                                .ctx = s.ctx, .len = s.len };
    on_message(src, &h, (const char *)pkt + sizeof(s));
}

void tern_p2p_recv_packet(int src, const void *pkt, size_t len)
{
    const struct tern_pkt *h = pkt;
    if (len >= sizeof(struct tern_pkt_short) &&
        *(const uint8_t *)pkt == TERN_PKT_EAGER_SHORT) {
        on_short(src, pkt, len);
        return;
    }
    if (len < sizeof(*h) || (h->type == TERN_PKT_EAGER && h->len != len - sizeof(*h)) ||
        (h->type == TERN_PKT_RTS && len != sizeof(*h) + sizeof(uint64_t))) {
        TERN_LOG(0, "dropping a malformed packet of %zu bytes from rank %d", len, src);
        return;
    }
    if (src >= 0 && src < tern_p2p.npeers)
        tern_p2p.peers[src].received++;
    const void *payload = h + 1;
    struct tern_request *sreq = (struct tern_request *)(uintptr_t)h->sreq;
    switch (h->type) {
    case TERN_PKT_EAGER:
    case TERN_PKT_RTS:
        on_message(src, h, payload);
        break;
    case TERN_PKT_DATA:
        on_data(h, payload, len - sizeof(*h));
        break;
    case TERN_PKT_CTS:
        sreq->peer_req = h->aux;
        tern_p2p_start_stream(sreq);
        break;
    case TERN_PKT_FIN:
    case TERN_PKT_ACK:
        tern_p2p_send_done(sreq);
        break;
    case TERN_PKT_RECALL:
        on_recall(src, h->sreq);
        break;
    case TERN_PKT_RECALLED:
        tern_p2p_recalled(sreq);
        break;
    case TERN_PKT_CANCEL:
        on_cancel(src, h->sreq);
        break;
    case TERN_PKT_CANCEL_ANSWER:
        tern_p2p_cancel_answered(sreq, h->aux != 0);
        break;
    default:
        TERN_LOG(0, "dropping a packet of unknown type %d from rank %d", h->type, src);
    }
}

void tern_p2p_deliver_unexp(struct tern_request *r, struct tern_unexp *u)
{
    if (u->type == TERN_PKT_EAGER) {
        struct tern_pkt h = { .flags = u->flags, .tag = u->tag, .src = u->src,
                              .len = u->len, .sreq = u->sreq };
        deliver_eager(r, u->peer, &h, u->data);
    } else {
        start_rndv(r, u->peer, u->src, u->tag, u->len, u->sreq, u->addr, u->key);
    }
    if (u->magic == TERN_MAGIC_MESSAGE)
        tern_obj_remove(u);
    u->magic = TERN_MAGIC_DEAD;
    tern_unexp_free(u);
}

/* Sets up the receive buffer: the user's, or a packed staging copy. */
static void prepare_recv(struct tern_request *r, void *buf, size_t count,
                         const struct tern_dtype *dt, struct tern_comm *comm)
{
    if (comm)    /* NULL: a message taken on a destroyed communicator. */
        tern_request_hold_comm(r, comm);
    r->len = count * dt->size;
    if (tern_dtype_contig(dt, count)) {
        r->buf = buf;
        return;
    }
    r->user_buf = buf;
    /* The request keeps the type alive until it is freed, even if the user
     * frees the type before the message arrives (request.c releases it). */
    r->dtype = dt;
    tern_dtype_retain(dt);
}

static int null_request(struct tern_request **out)
{
    struct tern_request *r = tern_request_alloc(TERN_REQ_NULLPROC);
    if (!r)
        return TERN_ENOMEM;
    r->done = 1;
    *out = r;
    return 0;
}

int tern_p2p_irecv(void *buf, size_t count, const struct tern_dtype *dt,
                   int src, int tag, struct tern_comm *comm, uint32_t ctx,
                   struct tern_request **out)
{
    if (src == MPI_PROC_NULL)
        return null_request(out);
    struct tern_request *r = tern_request_alloc(TERN_REQ_RECV);
    if (!r)
        return TERN_ENOMEM;
    prepare_recv(r, buf, count, dt, comm);
    r->ctx = ctx;
    r->rank = src;
    r->tag = tag;
    *out = r;
    struct tern_unexp *u = tern_match_unexp(&tern_p2p.mq, r->ctx, src, tag, 1);
    if (u) {
        tern_p2p_deliver_unexp(r, u);
        return 0;
    }
    r->state = RECV_POSTED;
    tern_match_post(&tern_p2p.mq, r);
    return 0;
}

int tern_p2p_iprobe(int src, int tag, struct tern_comm *comm, int *flag,
                    MPI_Status *st, struct tern_unexp **msg)
{
    tern_progress();
    /* A matched message leaves the queue for its handle: room for the
     * handle first, so that nothing can fail after. */
    if (msg && tern_obj_room())
        return TERN_ENOMEM;
    struct tern_unexp *u = tern_match_unexp(&tern_p2p.mq, comm->ctx, src, tag, msg != NULL);
    *flag = u != NULL;
    if (!u)
        return 0;
    tern_status_set(st, u->src, u->tag, u->len, 0);
    if (msg) {
        u->magic = TERN_MAGIC_MESSAGE;
        tern_obj_add(u);
        /* The message handle keeps its communicator alive until Mrecv. */
        u->comm = comm;
        tern_comm_retain(comm);
        *msg = u;
    }
    return 0;
}

int tern_p2p_imrecv(void *buf, size_t count, const struct tern_dtype *dt,
                    struct tern_unexp *msg, struct tern_request **out)
{
    if (!msg)
        return null_request(out);
    struct tern_request *r = tern_request_alloc(TERN_REQ_RECV);
    if (!r)
        return TERN_ENOMEM;
    prepare_recv(r, buf, count, dt, msg->comm);
    tern_comm_release(msg->comm);   /* The request holds it now. */
    r->ctx = msg->ctx;
    r->rank = msg->src;
    r->tag = msg->tag;
    *out = r;
    tern_p2p_deliver_unexp(r, msg);
    return 0;
}

int tern_p2p_recv_unmatched(const struct tern_request *r)
{
    return r->kind == TERN_REQ_RECV && !r->done && r->state == RECV_POSTED;
}

void tern_p2p_cancel(struct tern_request *r)
{
    if (!tern_p2p_recv_unmatched(r))
        return;
    if (tern_match_unpost(&tern_p2p.mq, r)) {
        r->cancelled = 1;
        r->st_source = MPI_ANY_SOURCE;
        r->st_tag = MPI_ANY_TAG;
        finish_recv(r);
    }
}

unsigned long tern_p2p_unexp_arrivals(void)
{
    return tern_p2p.unexp_arrivals;
}

int tern_p2p_unexp_conflict(uint32_t ctx, int src, int tag, int mask, int *from)
{
    const struct tern_unexp *u = tern_match_unexp_conflict(&tern_p2p.mq, ctx, src, tag, mask, 0);
    if (!u)
        return -1;
    *from = u->src;
    return u->tag;
}

void tern_p2p_unexp_each(int (*fn)(const struct tern_unexp_info *m, void *arg), void *arg)
{
    for (const struct tern_unexp *u = tern_p2p.mq.unexp_head; u; u = u->next) {
        struct tern_unexp_info m = {
            .ctx = u->ctx, .src = u->src, .peer = u->peer, .tag = u->tag,
            .data = u->type == TERN_PKT_EAGER ? u->data : NULL, .len = u->len,
        };
        if (fn(&m, arg))
            return;
    }
}

/* Receives the unexpected message u, taken from the queue, into buf (room
 * for all of it) if it is eager, else (or with buf NULL) into a buffer of
 * its own, freed once it is in: 1 if it is in buf, 0 if not; -1 when
 * memory ran out, and u is back in the queue. */
static int take_in(struct tern_comm *comm, struct tern_unexp *u, void *buf)
{
    int eager = u->type == TERN_PKT_EAGER;
    if (!eager)
        buf = NULL;
    struct tern_request *r = tern_request_alloc(TERN_REQ_RECV);
    void *sink = r && !buf ? malloc(u->len ? u->len : 1) : NULL;
    if (!r || (!buf && !sink)) {
        if (r)
            tern_request_free(r);
        tern_match_add_unexp(&tern_p2p.mq, u);
        return -1;
    }
    prepare_recv(r, buf ? buf : sink, u->len, tern_dtype_get(MPI_BYTE), comm);
    r->owned = sink;
    r->ctx = u->ctx;
    r->rank = u->src;
    r->tag = u->tag;
    /* Eager data is in once delivered; the rest frees itself when done. */
    r->user_freed = !eager;
    tern_p2p_deliver_unexp(r, u);
    if (eager)
        tern_request_free(r);
    return buf != NULL;
}

long tern_p2p_take_unexp(struct tern_comm *comm, uint32_t ctx, int src, int tag, void *buf,
                         size_t len, int *from)
{
    struct tern_unexp *u = tern_match_unexp(&tern_p2p.mq, ctx, src, tag, 1);
    if (!u)
        return -1;
    *from = u->src;
    long n = (long)u->len;
    int in = take_in(comm, u, u->len <= len ? buf : NULL);
    return in == 1 ? n : in == 0 ? -2 : -1;
}

void tern_p2p_discard_unexp(struct tern_comm *comm, uint32_t ctx, int src, int tag, int mask)
{
    struct tern_unexp *u;
    while ((u = tern_match_unexp_conflict(&tern_p2p.mq, ctx, src, tag, mask, 1)) ||
           (u = tern_match_unexp(&tern_p2p.mq, ctx, src < 0 ? MPI_ANY_SOURCE : src, tag, 1)))
        if (take_in(comm, u, NULL) < 0)
            return;    /* Without memory to take it in, the message stays. */
}
