/*
 * Completions of the ofi transport.
 *
 * Everything the endpoint does ends in its one completion queue: a send
 * buffer is free again, a receive buffer holds a packet, a piece of a read
 * is in. poll_cq() only files these (so send() may call it to find a free
 * buffer); deliver() hands packets to the p2p core, each sender's in
 * sequence order, and finishes reads, from progress() alone.
 *
 * Failures. An operation that completes with an error, or a receive buffer
 * that cannot be posted, means the fabric or the peer is gone, or packets
 * would be lost and the job would hang: it is recorded with the peer's
 * rank and host (transports/failure.h), and unless the launcher ends the
 * job first the rank aborts it after TERN_OFI_FAIL_GRACE_MS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_tagged.h>

#include "tern/boot.h"
#include "tern/err.h"
#include "tern/log.h"
#include "tern/p2p.h"
#include "transports/ofi/ofi.h"

#define CQ_BATCH 16

void tern_ofi_peer_failed(int peer, const char *what, int fi_err)
{
    struct ofi_state *st = &tern_ofi;
    const char *prov = st->info->fabric_attr->prov_name;
    if (peer >= 0 && peer < st->size)
        tern_tp_failure_set(&st->fail, "ofi (%s): %s to rank %d (host %s) failed: %s; that "
                            "rank or its host failed, or the fabric between them", prov,
                            what, peer, st->peers[peer].host, tern_fi.strerror(fi_err));
    else
        tern_tp_failure_set(&st->fail, "ofi (%s): %s failed: %s; the fabric or a peer "
                            "failed", prov, what, tern_fi.strerror(fi_err));
}

int tern_ofi_post_recv(struct ofi_op_ctx *c)
{
    struct ofi_state *st = &tern_ofi;
    /* A tagged receive takes any tag: matching is the p2p core's. */
    ssize_t rc = st->tagged ? fi_trecv(st->ep, c->data, st->buf_size, c->desc,
                                       FI_ADDR_UNSPEC, 0, ~0ULL, c)
                            : fi_recv(st->ep, c->data, st->buf_size, c->desc,
                                      FI_ADDR_UNSPEC, c);
    if (rc == -FI_EAGAIN) {
        c->next = st->unposted;
        st->unposted = c;
        return 0;
    }
    if (rc) {
        tern_ofi_peer_failed(-1, "posting a receive buffer", (int)-rc);
        return TERN_EIO;
    }
    st->nposted++;
    return 0;
}

static void push_ready(struct ofi_op_ctx *c)
{
    struct ofi_state *st = &tern_ofi;
    c->next = NULL;
    if (st->ready_tail)
        st->ready_tail->next = c;
    else
        st->ready_head = c;
    st->ready_tail = c;
}

/* A packet that arrived before its turn: a copy, so that its receive
 * buffer goes back to the provider at once (see ofi.h). Without memory for
 * the copy, the buffer itself waits. */
static struct ofi_op_ctx *early_copy(struct ofi_op_ctx *c)
{
    struct ofi_op_ctx *h = malloc(sizeof *h + c->len);
    if (!h)
        return c;
    *h = (struct ofi_op_ctx){ .op = OP_EARLY, .data = (char *)(h + 1), .len = c->len,
                              .src = c->src, .seq = c->seq };
    memcpy(h->data, c->data, c->len);
    tern_ofi_post_recv(c);
    return h;
}

/* A receive completed: queue it for delivery if it is the peer's next
 * packet (with the early ones it lets through), else hold it. The sender
 * and number come from the tag, or from the frame. */
static void arrived(struct ofi_op_ctx *c, uint64_t tag)
{
    struct ofi_state *st = &tern_ofi;
    if (st->tagged) {
        c->src = (uint32_t)(tag >> 32);
        c->seq = (uint32_t)tag;
    } else if (c->len >= sizeof(struct ofi_frame)) {
        struct ofi_frame f;
        memcpy(&f, c->data, sizeof f);
        c->src = f.src;
        c->seq = f.seq;
    } else {
        TERN_LOG(0, "ofi: dropping a receive of %zu bytes (no frame)", c->len);
        tern_ofi_post_recv(c);
        return;
    }
    if (c->src >= (uint32_t)st->size || !st->peers[c->src].served) {
        TERN_LOG(0, "ofi: dropping a packet from rank %u, which ofi does not serve", c->src);
        tern_ofi_post_recv(c);
        return;
    }
    struct ofi_peer *p = &st->peers[c->src];
    if (c->seq != p->rx_seq) {
        struct ofi_op_ctx *h = early_copy(c);
        h->next = p->held;
        p->held = h;
        st->n_early++;
        return;
    }
    push_ready(c);
    p->rx_seq++;
    /* The held packets it lets through, each found by its number. */
    for (struct ofi_op_ctx **pp = &p->held; *pp;) {
        if ((*pp)->seq != p->rx_seq) {
            pp = &(*pp)->next;
            continue;
        }
        struct ofi_op_ctx *h = *pp;
        *pp = h->next;
        push_ready(h);
        p->rx_seq++;
        pp = &p->held;
    }
}

static void on_error_entry(void)
{
    struct ofi_state *st = &tern_ofi;
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof e);
    if (fi_cq_readerr(st->cq, &e, 0) != 1)
        return;
    struct ofi_op_ctx *c = e.op_context;
    if (e.prov_errno)
        TERN_LOG(1, "ofi: provider detail: %s",
                 fi_cq_strerror(st->cq, e.prov_errno, e.err_data, NULL, 0));
    /* An injected send has no context, yet its failure is reported too. */
    if (!c) {
        tern_ofi_peer_failed(-1, "a send", e.err);
        return;
    }
    switch (c->op) {
    case OP_SEND:
        tern_ofi_peer_failed(c->peer, "a send", e.err);
        c->next = st->send_free;
        st->send_free = c;
        break;
    case OP_RECV:
        /* Its packet is lost, so the sender's later ones never deliver. */
        st->nposted--;
        tern_ofi_peer_failed(-1, "a receive", e.err);
        tern_ofi_post_recv(c);
        break;
    case OP_READ:
        c->busy = 0;
        c->read->inflight--;
        c->read->error = e.err;
        tern_ofi_peer_failed(c->read->peer, "a remote read", e.err);
        break;
    case OP_EARLY: /* A copy: never given to libfabric. */
        break;
    }
}

int tern_ofi_poll_cq(void)
{
    struct ofi_state *st = &tern_ofi;
    struct fi_cq_tagged_entry e[CQ_BATCH];
    ssize_t n = fi_cq_read(st->cq, e, CQ_BATCH);
    if (n == -FI_EAGAIN)
        return 0;
    if (n == -FI_EAVAIL) {
        on_error_entry();
        return 1;
    }
    if (n < 0) {
        tern_ofi_peer_failed(-1, "reading the completion queue", (int)-n);
        return 0;
    }
    for (ssize_t i = 0; i < n; i++) {
        struct ofi_op_ctx *c = e[i].op_context;
        switch (c->op) {
        case OP_SEND:
            c->next = st->send_free;
            st->send_free = c;
            break;
        case OP_RECV:
            st->nposted--;
            c->len = e[i].len;
            arrived(c, e[i].tag);
            break;
        case OP_READ:
            c->busy = 0;
            c->read->inflight--;
            break;
        case OP_EARLY:
            break;
        }
    }
    return (int)n;
}

/* Posts more pieces of the reads under way and completes the ones done. */
static int advance_reads(void)
{
    struct ofi_state *st = &tern_ofi;
    int n = 0;
    for (struct ofi_read **pp = &st->reads; *pp;) {
        struct ofi_read *rd = *pp;
        if (!tern_ofi_read_advance(&st->rma, rd)) {
            pp = &rd->next;
            continue;
        }
        *pp = rd->next;
        void *arg = rd->arg;
        int err = rd->error;
        tern_ofi_read_free(rd);
        st->n_read++;
        tern_p2p_bulk_done(arg, err ? TERN_EIO : 0);
        n++;
    }
    return n;
}

int tern_ofi_deliver(void)
{
    struct ofi_state *st = &tern_ofi;
    if (st->delivering)
        return 0;
    st->delivering = 1;
    struct ofi_op_ctx *again = st->unposted;
    st->unposted = NULL;
    while (again) {
        struct ofi_op_ctx *c = again;
        again = c->next;
        tern_ofi_post_recv(c);
    }
    int n = st->reads ? advance_reads() : 0;
    while (st->ready_head) {
        struct ofi_op_ctx *c = st->ready_head;
        st->ready_head = c->next;
        if (!st->ready_head)
            st->ready_tail = NULL;
        tern_p2p_recv_packet((int)c->src, c->data + st->frame, c->len - st->frame);
        if (c->op == OP_EARLY)
            free(c);
        else
            tern_ofi_post_recv(c);
        n++;
    }
    st->delivering = 0;
    return n;
}

/* Frees the copies that a list of packets holds (the receive buffers
 * among them belong to the pool). */
static void drop_copies(struct ofi_op_ctx *c)
{
    while (c) {
        struct ofi_op_ctx *next = c->next;
        if (c->op == OP_EARLY)
            free(c);
        c = next;
    }
}

void tern_ofi_drop_held(void)
{
    struct ofi_state *st = &tern_ofi;
    for (int r = 0; st->peers && r < st->size; r++) {
        drop_copies(st->peers[r].held);
        st->peers[r].held = NULL;
    }
    drop_copies(st->ready_head);
    st->ready_head = st->ready_tail = NULL;
}
