/*
 * The libfabric (OFI) transport: packets over a reliable datagram endpoint
 * of whatever provider the cluster has (verbs, efa, psm3, cxi... or tcp,
 * sockets, udp where there is no fabric). The wire format and the rules
 * are in transports/ofi/ofi.h; the provider choice in provider.c.
 *
 * When ofi serves a peer:
 *   - It must carry traffic that neither self nor shm carries (a rank on
 *     another host, or any other rank when shm is not allowed).
 *   - Required (TERN_TRANSPORTS names ofi but not tcp): with any provider;
 *     init fails, naming the providers found, when there is none.
 *   - Otherwise only with a provider that drives fabric hardware, or one
 *     the user named (TERN_OFI_PROVIDER, FI_PROVIDER); when a named one is
 *     not usable, rank 0 says so in one line and tcp carries the traffic.
 *   - Both ranks of a pair must use the same provider; a pair that does
 *     not falls to tcp (or fails, when ofi is required).
 * A job on one host with shm allowed never probes the fabric.
 *
 * Phases (see transports/transport.h):
 *   init     choose the provider, open fabric, domain, completion queue,
 *            address vector and endpoint, post the receive buffers, and
 *            publish "ofi.addr" = "<provider> <host> <address in hex>"
 *            (or "none").
 *   connect  insert the address of every peer that uses the same provider.
 *   ready    nothing.
 *   finalize close everything (after the job-wide fence).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "tern/boot.h"
#include "tern/err.h"
#include "tern/log.h"
#include "tern/net.h"
#include "tern/p2p.h"
#include "transports/ofi/ofi.h"
#include "transports/registry.h"
#include "transports/transport.h"

#define KEY_ADDR "ofi.addr"
#define ADDR_MAX 512          /* Bytes of an endpoint name we accept. */
#define INJECT_MAX 256        /* Largest packet sent with fi_inject. */
#define CQ_BATCH 16
/* Without a wait object, block() naps: NAP_US at first, twice as long each
 * time nothing arrived in between, up to NAP_MAX_US. */
#define NAP_US 50
#define NAP_MAX_US 1000

struct peer {
    int served;
    fi_addr_t addr;
    char host[TERN_HOSTNAME_MAX];
    uint32_t tx_seq;            /* Next sequence number to send. */
    uint32_t rx_seq;            /* Next sequence number to deliver. */
    struct ofi_op_ctx *held;    /* Packets that arrived early. */
};

static struct {
    int enabled;                /* Serves at least one peer. */
    int rank, size;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_cq *cq;
    struct fid_av *av;
    struct fid_ep *ep;
    int wait_fd;                /* The completion queue's fd, or -1. */
    struct ofi_rma rma;
    struct peer *peers;
    size_t max_packet, eager_max, inject_max, buf_size;
    long use_rma;               /* TERN_OFI_RMA. */
    long nsend, nrecv;
    char *pool;                 /* Send then receive buffers. */
    struct fid_mr *pool_mr;
    struct ofi_op_ctx *ops;     /* nsend + nrecv contexts. */
    struct ofi_op_ctx *send_free;
    struct ofi_op_ctx *ready_head, *ready_tail; /* In delivery order. */
    struct ofi_op_ctx *unposted; /* Receive buffers to post again. */
    struct ofi_read *reads;     /* Reads under way, oldest first. */
    int delivering;
    long nap_us;                /* The next nap without a wait object. */
    long long fail_at;
    long grace_ms;
    char fail_msg[512];
} st = { .wait_fd = -1 };

/* Packets of libfabric's tcp provider (tcp;ofi_rxm) up to 16 KiB go in
 * one eager send; larger ones take the provider's own rendezvous, which
 * on the reference VM made a 16 KiB message cost 55 us instead of 18. So
 * a buffer, frame and packet header included, is 16 KiB by default. */
#define DEFAULT_BUF (16 * 1024)

static void read_tunables(void)
{
    long buf = tern_env_long("TERN_OFI_CHUNK", DEFAULT_BUF,
        "Size of each ofi send and receive buffer in bytes: the largest packet "
        "(frame and header included), so also the largest eager message and the "
        "chunk of large messages sent without remote reads");
    st.eager_max = (size_t)tern_env_long("TERN_OFI_EAGER", DEFAULT_BUF,
        "Largest message sent eagerly over ofi (at most what a buffer holds); "
        "larger ones wait for the receiver");
    st.use_rma = tern_env_long("TERN_OFI_RMA", 1,
        "1: the receiver of a message too large to go eagerly reads it from the "
        "sender's memory (FI_RMA) where the provider can; 0: it is sent in chunks");
    st.nsend = tern_env_long("TERN_OFI_SEND_BUFS", 64,
        "Send buffers of TERN_OFI_CHUNK bytes each rank keeps for ofi");
    st.nrecv = tern_env_long("TERN_OFI_RECV_BUFS", 64,
        "Receive buffers of TERN_OFI_CHUNK bytes each rank keeps posted for ofi");
    st.grace_ms = tern_env_long("TERN_OFI_FAIL_GRACE_MS", 1000,
        "After an ofi operation to a peer fails, how long a rank waits for the "
        "launcher to end the job before it aborts the job itself");
    if (buf < 4096)
        buf = 4096;
    if (buf > (64L << 20))
        buf = 64L << 20;
    st.buf_size = (size_t)buf;
    st.max_packet = st.buf_size - sizeof(struct ofi_frame);
    if (st.nsend < 2)
        st.nsend = 2;
    if (st.nrecv < 2)
        st.nrecv = 2;
}

static int allowed(const struct tern_tp_ops *t)
{
    const struct tern_tp_ops *const *list;
    int n = tern_tp_list(&list);
    for (int i = 0; i < n; i++)
        if (list[i] == t)
            return 1;
    return 0;
}

static int is_local(const struct tern_boot_info *b, int r)
{
    for (int i = 0; i < b->local_size; i++)
        if (b->local_ranks[i] == r)
            return 1;
    return 0;
}

/* A peer that only a network transport can serve. */
static int needs_net(const struct tern_boot_info *b, int r)
{
    return r != b->rank && !(allowed(&tern_shm_ops) && is_local(b, r));
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Records a failed operation toward a peer; the job ends after the grace
 * period unless the launcher ends it first. */
static void peer_failed(int peer, const char *what, int err)
{
    if (st.fail_at)
        return;
    snprintf(st.fail_msg, sizeof st.fail_msg, "ofi (%s): %s to rank %d (host %s) "
             "failed: %s; that rank or its host failed, or the fabric between them",
             st.info->fabric_attr->prov_name, what, peer,
             peer >= 0 && peer < st.size ? st.peers[peer].host : "?", tern_fi.strerror(err));
    TERN_LOG(1, "%s", st.fail_msg);
    st.fail_at = now_ms();
}

/* ---- Receiving ---------------------------------------------------------- */

static int post_recv(struct ofi_op_ctx *c)
{
    ssize_t rc = fi_recv(st.ep, c->data, st.buf_size, c->desc, FI_ADDR_UNSPEC, c);
    if (rc == -FI_EAGAIN) {
        c->next = st.unposted;
        st.unposted = c;
        return 0;
    }
    return rc ? TERN_EIO : 0;
}

static void push_ready(struct ofi_op_ctx *c)
{
    c->next = NULL;
    if (st.ready_tail)
        st.ready_tail->next = c;
    else
        st.ready_head = c;
    st.ready_tail = c;
}

/* A receive completed: queue it for delivery if it is the peer's next
 * packet (with the early ones it lets through), else hold it. */
static void arrived(struct ofi_op_ctx *c)
{
    struct ofi_frame f;
    if (c->len < sizeof f) {
        TERN_LOG(0, "ofi: dropping a receive of %zu bytes (no frame)", c->len);
        post_recv(c);
        return;
    }
    memcpy(&f, c->data, sizeof f);
    if (f.src >= (uint32_t)st.size || !st.peers[f.src].served) {
        TERN_LOG(0, "ofi: dropping a packet from unknown rank %u", f.src);
        post_recv(c);
        return;
    }
    struct peer *p = &st.peers[f.src];
    if (f.seq != p->rx_seq) {
        c->next = p->held;
        p->held = c;
        return;
    }
    push_ready(c);
    p->rx_seq++;
    for (int moved = 1; moved && p->held;) {
        moved = 0;
        for (struct ofi_op_ctx **pp = &p->held; *pp; pp = &(*pp)->next) {
            struct ofi_frame g;
            memcpy(&g, (*pp)->data, sizeof g);
            if (g.seq == p->rx_seq) {
                struct ofi_op_ctx *h = *pp;
                *pp = h->next;
                push_ready(h);
                p->rx_seq++;
                moved = 1;
                break;
            }
        }
    }
}

static void on_error_entry(void)
{
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof e);
    if (fi_cq_readerr(st.cq, &e, 0) != 1)
        return;
    struct ofi_op_ctx *c = e.op_context;
    const char *detail = fi_cq_strerror(st.cq, e.prov_errno, e.err_data, NULL, 0);
    TERN_LOG(1, "ofi: operation failed: %s (%s)", tern_fi.strerror(e.err), detail ? detail : "");
    if (!c)
        return;
    switch (c->op) {
    case OP_SEND:
        peer_failed(c->peer, "a send", e.err);
        c->next = st.send_free;
        st.send_free = c;
        break;
    case OP_RECV:
        /* Provider-side trouble with one buffer; it goes back to work. */
        post_recv(c);
        break;
    case OP_READ:
        c->busy = 0;
        c->read->inflight--;
        c->read->error = e.err;
        peer_failed(c->read->peer, "a remote read", e.err);
        break;
    }
}

/* Reads completions: frees send buffers, queues receives, finishes reads.
 * Delivers nothing, so it may run anywhere. Returns completions seen. */
static int poll_cq(void)
{
    struct fi_cq_msg_entry e[CQ_BATCH];
    ssize_t n = fi_cq_read(st.cq, e, CQ_BATCH);
    if (n == -FI_EAGAIN)
        return 0;
    if (n == -FI_EAVAIL) {
        on_error_entry();
        return 1;
    }
    if (n < 0) {
        TERN_LOG(0, "ofi: reading the completion queue failed: %s", tern_fi.strerror((int)-n));
        return 0;
    }
    for (ssize_t i = 0; i < n; i++) {
        struct ofi_op_ctx *c = e[i].op_context;
        switch (c->op) {
        case OP_SEND:
            c->next = st.send_free;
            st.send_free = c;
            break;
        case OP_RECV:
            c->len = e[i].len;
            arrived(c);
            break;
        case OP_READ:
            c->busy = 0;
            c->read->inflight--;
            break;
        }
    }
    return (int)n;
}

/* Posts more pieces of the reads under way and completes the ones done. */
static int advance_reads(void)
{
    int n = 0;
    for (struct ofi_read **pp = &st.reads; *pp;) {
        struct ofi_read *rd = *pp;
        if (!tern_ofi_read_advance(&st.rma, rd)) {
            pp = &rd->next;
            continue;
        }
        *pp = rd->next;
        void *arg = rd->arg;
        int err = rd->error;
        tern_ofi_read_free(rd);
        tern_p2p_bulk_done(arg, err ? TERN_EIO : 0);
        n++;
    }
    return n;
}

static int deliver(void)
{
    if (st.delivering)
        return 0;
    st.delivering = 1;
    int n = advance_reads();
    while (st.ready_head) {
        struct ofi_op_ctx *c = st.ready_head;
        st.ready_head = c->next;
        if (!st.ready_head)
            st.ready_tail = NULL;
        struct ofi_frame f;
        memcpy(&f, c->data, sizeof f);
        tern_p2p_recv_packet((int)f.src, c->data + sizeof f, c->len - sizeof f);
        post_recv(c);
        n++;
    }
    st.delivering = 0;
    return n;
}

/* ---- Setup --------------------------------------------------------------- */

static int fail_setup(const char *what, int rc)
{
    tern_log("ofi (%s): %s failed: %s", st.info->fabric_attr->prov_name, what,
             tern_fi.strerror(-rc));
    return TERN_EIO;
}

static int open_cq(void)
{
    struct fi_cq_attr a = { .format = FI_CQ_FORMAT_MSG, .wait_obj = FI_WAIT_FD };
    if (fi_cq_open(st.domain, &a, &st.cq, NULL) == 0 &&
        fi_control(&st.cq->fid, FI_GETWAIT, &st.wait_fd) == 0)
        return 0;
    if (st.cq)
        fi_close(&st.cq->fid);
    st.cq = NULL;
    st.wait_fd = -1;
    TERN_LOG(1, "ofi: %s has no wait fd; idle ranks nap %d to %d us at a time",
             st.info->fabric_attr->prov_name, NAP_US, NAP_MAX_US);
    st.nap_us = NAP_US;
    a.wait_obj = FI_WAIT_NONE;
    int rc = fi_cq_open(st.domain, &a, &st.cq, NULL);
    return rc ? fail_setup("fi_cq_open", rc) : 0;
}

/* The send and receive buffers, registered when the provider asks. */
static int make_buffers(void)
{
    size_t n = (size_t)(st.nsend + st.nrecv);
    st.pool = aligned_alloc(64, n * st.buf_size);
    st.ops = calloc(n, sizeof *st.ops);
    if (!st.pool || !st.ops)
        return TERN_ENOMEM;
    if (tern_ofi_mr_reg(&st.rma, st.pool, n * st.buf_size, FI_SEND | FI_RECV, &st.pool_mr))
        return TERN_EIO;
    void *desc = st.pool_mr ? fi_mr_desc(st.pool_mr) : NULL;
    for (size_t i = 0; i < n; i++) {
        struct ofi_op_ctx *c = &st.ops[i];
        c->data = st.pool + i * st.buf_size;
        c->desc = desc;
        if (i < (size_t)st.nsend) {
            c->op = OP_SEND;
            c->next = st.send_free;
            st.send_free = c;
        } else {
            c->op = OP_RECV;
            if (post_recv(c))
                return TERN_EIO;
        }
    }
    return 0;
}

static int open_endpoint(void)
{
    struct fi_info *i = st.info;
    int rc = tern_fi.fabric(i->fabric_attr, &st.fabric, NULL);
    if (rc)
        return fail_setup("fi_fabric", rc);
    if ((rc = fi_domain(st.fabric, i, &st.domain, NULL)))
        return fail_setup("fi_domain", rc);
    if ((rc = open_cq()))
        return rc;
    struct fi_av_attr av = { .type = i->domain_attr->av_type };
    if ((rc = fi_av_open(st.domain, &av, &st.av, NULL)))
        return fail_setup("fi_av_open", rc);
    if ((rc = fi_endpoint(st.domain, i, &st.ep, NULL)))
        return fail_setup("fi_endpoint", rc);
    if ((rc = fi_ep_bind(st.ep, &st.av->fid, 0)) ||
        (rc = fi_ep_bind(st.ep, &st.cq->fid, FI_TRANSMIT | FI_RECV)))
        return fail_setup("fi_ep_bind", rc);
    if ((rc = fi_enable(st.ep)))
        return fail_setup("fi_enable", rc);
    st.rma.domain = st.domain;
    st.rma.ep = st.ep;
    st.rma.mr_mode = i->domain_attr->mr_mode;
    st.rma.usable = (i->caps & FI_RMA) && (i->caps & FI_READ) && st.use_rma;
    st.inject_max = i->tx_attr->inject_size < INJECT_MAX ? i->tx_attr->inject_size
                                                         : INJECT_MAX;
    return make_buffers();
}

static void hex(const unsigned char *in, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", in[i]);
}

static int unhex(const char *in, unsigned char *out, size_t cap, size_t *n)
{
    size_t len = strlen(in);
    if (len % 2 || len / 2 > cap)
        return TERN_EPROTO;
    for (size_t i = 0; i < len / 2; i++) {
        unsigned v;
        if (sscanf(in + 2 * i, "%2x", &v) != 1)
            return TERN_EPROTO;
        out[i] = (unsigned char)v;
    }
    *n = len / 2;
    return 0;
}

static int publish(const char *host)
{
    unsigned char name[ADDR_MAX];
    size_t len = sizeof name;
    int rc = fi_getname(&st.ep->fid, name, &len);
    if (rc)
        return fail_setup("fi_getname", rc);
    char val[2 * ADDR_MAX + TERN_HOSTNAME_MAX + 80];
    int k = snprintf(val, sizeof val, "%s %s ", st.info->fabric_attr->prov_name, host);
    hex(name, len, val + k);
    return tern_boot_put(KEY_ADDR, val, strlen(val) + 1);
}

/* The interface whose socket-provider domain to prefer: the one the tcp
 * transport would use toward other hosts, or loopback within one host. */
static void job_iface(const struct tern_boot_info *b, int local_only, char *name,
                      size_t cap)
{
    struct tern_addr a;
    char err[300];
    name[0] = '\0';
    if (local_only)
        snprintf(name, cap, "lo");
    else if (tern_net_pick(b->store_addr, &a, err, sizeof err) == 0)
        tern_net_ifname(&a, name, cap);
}

/* Says why ofi serves nobody: an error when it was required, a notice when
 * a named provider was not found, else a line at verbose level 1. */
static int not_used(const struct tern_boot_info *b, int required, const char *named,
                    const char *best)
{
    char found[1024] = "";
    if (required || (named && b->rank == 0))
        tern_ofi_offered(found, sizeof found);
    if (required) {
        tern_log("ofi: TERN_TRANSPORTS allows no other network transport, but %s; "
                 "libfabric offers %s. Pick one with TERN_OFI_PROVIDER, or allow tcp "
                 "(TERN_TRANSPORTS=self,shm,ofi,tcp)",
                 named ? "the provider named is not usable here" : "no provider is usable",
                 *found ? found : "no provider");
        return TERN_ENOTSUP;
    }
    if (named && b->rank == 0)
        tern_log("ofi: provider '%s' (TERN_OFI_PROVIDER or FI_PROVIDER) is not usable "
                 "here (libfabric offers %s); using the tcp transport", named,
                 *found ? found : "no provider");
    else if (best)
        TERN_LOG(1, "ofi: the best provider, %s, drives no fabric hardware; using the "
                 "tcp transport between hosts", best);
    return tern_boot_put(KEY_ADDR, "none", 5);
}

static int ofi_init(const struct tern_boot_info *b)
{
    read_tunables();
    int any = 0, local_only = 1;
    for (int r = 0; r < b->size; r++)
        if (needs_net(b, r)) {
            any = 1;
            local_only &= is_local(b, r);
        }
    if (!any || b->singleton)
        return 0;
    int required = !allowed(&tern_tcp_ops);
    const char *named = tern_ofi_named();
    if (!required && !named && !tern_ofi_hardware_visible()) {
        TERN_LOG(1, "ofi: no fabric hardware on this host; using the tcp transport "
                 "between hosts");
        return tern_boot_put(KEY_ADDR, "none", 5);
    }
    char err[300];
    if (tern_ofi_load(err, sizeof err)) {
        if (required) {
            tern_log("ofi: TERN_TRANSPORTS allows no other network transport, but %s", err);
            return TERN_ENOTSUP;
        }
        if (named && b->rank == 0)
            tern_log("ofi: %s; using the tcp transport", err);
        return tern_boot_put(KEY_ADDR, "none", 5);
    }
    char iface[64];
    job_iface(b, local_only, iface, sizeof iface);
    st.info = tern_ofi_pick(local_only, iface[0] ? iface : NULL);
    if (!st.info || (!required && !named &&
                     !tern_ofi_is_hardware(st.info->fabric_attr->prov_name))) {
        int rc = not_used(b, required, named, st.info ? st.info->fabric_attr->prov_name : NULL);
        if (st.info)
            tern_fi.freeinfo(st.info);
        st.info = NULL;
        return rc;
    }
    st.rank = b->rank;
    st.size = b->size;
    st.peers = calloc((size_t)b->size, sizeof *st.peers);
    if (!st.peers)
        return TERN_ENOMEM;
    for (int r = 0; r < b->size; r++)
        st.peers[r].served = needs_net(b, r);
    int rc = open_endpoint();
    if (rc)
        return rc;
    TERN_LOG(1, "ofi: provider %s, domain %s%s", st.info->fabric_attr->prov_name,
             st.info->domain_attr->name, st.rma.usable ? ", remote reads" : "");
    st.enabled = 1;
    return publish(b->hostname);
}

static int ofi_connect(void)
{
    for (int r = 0; st.enabled && r < st.size; r++) {
        struct peer *p = &st.peers[r];
        if (!p->served)
            continue;
        char val[2 * ADDR_MAX + TERN_HOSTNAME_MAX + 80];
        size_t len = sizeof val;
        int rc = tern_boot_get(r, KEY_ADDR, val, &len);
        if (rc)
            return rc;
        val[sizeof val - 1] = '\0';
        char prov[128], host[TERN_HOSTNAME_MAX], addr[2 * ADDR_MAX + 1];
        int k = sscanf(val, "%127s %255s %1024s", prov, host, addr);
        const char *mine = st.info->fabric_attr->prov_name;
        if (k != 3 || strcmp(prov, mine) != 0) {
            p->served = 0;
            if (!allowed(&tern_tcp_ops)) {
                tern_log("ofi: rank %d uses %s, this rank (%d) %s; with TERN_TRANSPORTS "
                         "allowing no tcp they cannot talk. Name one provider for the "
                         "whole job with TERN_OFI_PROVIDER", r,
                         k == 3 ? prov : "no provider", st.rank, mine);
                return TERN_ENOTSUP;
            }
            TERN_LOG(1, "ofi: rank %d uses %s, this rank %s; tcp serves that pair", r,
                     k == 3 ? prov : "no provider", mine);
            continue;
        }
        snprintf(p->host, sizeof p->host, "%s", host);
        unsigned char name[ADDR_MAX];
        size_t n;
        if (unhex(addr, name, sizeof name, &n))
            return TERN_EPROTO;
        if (fi_av_insert(st.av, name, 1, &p->addr, 0, NULL) != 1) {
            tern_log("ofi (%s): cannot insert the address of rank %d (host %s)", mine, r,
                     host);
            return TERN_EIO;
        }
    }
    return 0;
}

static int ofi_ready(void)
{
    return 0;
}

static int ofi_finalize(void)
{
    if (st.ep)
        fi_close(&st.ep->fid);
    if (st.pool_mr)
        fi_close(&st.pool_mr->fid);
    if (st.av)
        fi_close(&st.av->fid);
    if (st.cq)
        fi_close(&st.cq->fid);
    if (st.domain)
        fi_close(&st.domain->fid);
    if (st.fabric)
        fi_close(&st.fabric->fid);
    if (st.info)
        tern_fi.freeinfo(st.info);
    free(st.pool);
    free(st.ops);
    free(st.peers);
    memset(&st, 0, sizeof st);
    st.wait_fd = -1;
    return 0;
}

/* ---- The job running ------------------------------------------------------ */

static int ofi_reachable(int peer)
{
    return st.enabled && peer >= 0 && peer < st.size && st.peers[peer].served;
}

static void ofi_caps(int peer, struct tern_tp_caps *caps)
{
    (void)peer;
    caps->max_packet = st.max_packet;
    caps->eager_max = st.eager_max;
    caps->single_copy = st.rma.usable;
    caps->single_copy_min = 0; /* Every message past eager_max. */
}

static int ofi_send(int peer, const void *hdr, size_t hdr_len, const void *payload,
                    size_t payload_len)
{
    struct peer *p = &st.peers[peer];
    struct ofi_frame f = { .src = (uint32_t)st.rank, .seq = p->tx_seq };
    size_t n = sizeof f + hdr_len + payload_len;
    if (n > st.buf_size)
        return TERN_EINVAL;
    ssize_t rc;
    if (n <= st.inject_max) {
        uint64_t tmp[INJECT_MAX / 8];
        memcpy(tmp, &f, sizeof f);
        memcpy((char *)tmp + sizeof f, hdr, hdr_len);
        if (payload_len)
            memcpy((char *)tmp + sizeof f + hdr_len, payload, payload_len);
        rc = fi_inject(st.ep, tmp, n, p->addr);
    } else {
        struct ofi_op_ctx *c = st.send_free;
        if (!c) {
            poll_cq();
            if (!(c = st.send_free))
                return TERN_EAGAIN;
        }
        memcpy(c->data, &f, sizeof f);
        memcpy(c->data + sizeof f, hdr, hdr_len);
        if (payload_len)
            memcpy(c->data + sizeof f + hdr_len, payload, payload_len);
        c->peer = peer;
        st.send_free = c->next;
        rc = fi_send(st.ep, c->data, n, c->desc, p->addr, c);
        if (rc) {
            c->next = st.send_free;
            st.send_free = c;
        }
    }
    if (rc == -FI_EAGAIN) {
        poll_cq();
        return TERN_EAGAIN;
    }
    if (rc) {
        peer_failed(peer, "a send", (int)-rc);
        return TERN_EPEER;
    }
    p->tx_seq++;
    return 0;
}

static int ofi_progress(void)
{
    if (!st.enabled)
        return 0;
    while (st.unposted) {
        struct ofi_op_ctx *c = st.unposted;
        st.unposted = c->next;
        post_recv(c);
        if (st.unposted == c)
            break;
    }
    int n = poll_cq();
    n += deliver();
    if (n)
        st.nap_us = NAP_US;
    if (st.fail_at && now_ms() - st.fail_at > st.grace_ms) {
        tern_boot_abort(1, st.fail_msg);
        tern_log("%s; the launcher cannot be reached, so this rank exits", st.fail_msg);
        _exit(1);
    }
    return n;
}

static int ofi_expose(int peer, const void *buf, size_t len, uint64_t *key, void **handle)
{
    (void)peer;
    return tern_ofi_expose(&st.rma, buf, len, key, handle);
}

static int ofi_read_start(int peer, void *local, uint64_t remote, uint64_t key,
                          size_t len, void *arg)
{
    struct ofi_read *rd = tern_ofi_read_start(&st.rma, st.peers[peer].addr, local, remote,
                                              key, len, arg);
    if (!rd)
        return TERN_EIO;
    rd->peer = peer;
    /* Appended: older reads post their pieces first. */
    struct ofi_read **pp = &st.reads;
    while (*pp)
        pp = &(*pp)->next;
    *pp = rd;
    return 0;
}

static int ofi_block(int timeout_ms)
{
    if (!st.enabled || st.ready_head)
        return 0;
    if (st.wait_fd < 0) {
        long us = st.nap_us < timeout_ms * 1000L ? st.nap_us : timeout_ms * 1000L;
        struct timespec nap = { 0, us * 1000 };
        nanosleep(&nap, NULL);
        st.nap_us = st.nap_us * 2 > NAP_MAX_US ? NAP_MAX_US : st.nap_us * 2;
        return 0;
    }
    struct fid *f = &st.cq->fid;
    if (fi_trywait(st.fabric, &f, 1) != FI_SUCCESS)
        return 0;
    struct pollfd pfd = { .fd = st.wait_fd, .events = POLLIN };
    poll(&pfd, 1, timeout_ms);
    return 0;
}

static void ofi_tunables(void)
{
    read_tunables();
    tern_ofi_named();
}

const struct tern_tp_ops tern_ofi_ops = {
    .name = "ofi",
    .init = ofi_init,
    .connect = ofi_connect,
    .ready = ofi_ready,
    .finalize = ofi_finalize,
    .reachable = ofi_reachable,
    .caps = ofi_caps,
    .send = ofi_send,
    .progress = ofi_progress,
    .expose = ofi_expose,
    .unexpose = tern_ofi_unexpose,
    .read_start = ofi_read_start,
    .block = ofi_block,
    .tunables = ofi_tunables,
    .about = tern_ofi_about,
};
