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
 *     not usable, or the endpoint cannot be opened, rank 0 says so in one
 *     line and tcp carries the traffic.
 *   - Both ranks of a pair must use the same provider, address format and
 *     buffer size; a pair that does not falls to tcp (or fails, when ofi
 *     is required). Each rank decides from what both published, so the
 *     two ranks of a pair always agree.
 * A job on one host with shm allowed never loads libfabric.
 *
 * Phases (see transports/transport.h):
 *   init     choose the provider, open the endpoint and post the receive
 *            buffers (endpoint.c), and publish "ofi.addr" (or "none").
 *   connect  insert the address of every peer that can talk to this rank.
 *   ready    nothing.
 *   finalize report, and close everything (after the job-wide fence).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "tern/boot.h"
#include "tern/err.h"
#include "tern/log.h"
#include "tern/net.h"
#include "transports/ofi/ofi.h"
#include "transports/registry.h"
#include "transports/transport.h"

#define KEY_ADDR "ofi.addr"
/* Without a wait object, block() naps: NAP_US at first, twice as long each
 * time nothing arrived in between, up to NAP_MAX_US. */
#define NAP_US 50
#define NAP_MAX_US 1000

struct ofi_state tern_ofi = { .wait_fd = -1 };
static struct ofi_state *const st = &tern_ofi;

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
    st->eager_max = (size_t)tern_env_long("TERN_OFI_EAGER", DEFAULT_BUF,
        "Largest message sent eagerly over ofi (at most what a buffer holds); "
        "larger ones wait for the receiver");
    st->use_tagged = tern_env_long("TERN_OFI_TAGGED", 1,
        "1: packets are tagged sends (FI_TAGGED) where the provider has them, the "
        "sender's rank and sequence number in the tag; 0: FI_MSG sends with an "
        "8-byte frame");
    st->use_rma = tern_env_long("TERN_OFI_RMA", 1,
        "1: the receiver of a message too large to go eagerly reads it from the "
        "sender's memory (FI_RMA) where the provider can; 0: it is sent in chunks");
    st->nsend = tern_env_long("TERN_OFI_SEND_BUFS", 64,
        "Send buffers of TERN_OFI_CHUNK bytes each rank keeps for ofi");
    st->nrecv = tern_env_long("TERN_OFI_RECV_BUFS", 64,
        "Receive buffers of TERN_OFI_CHUNK bytes each rank keeps posted for ofi");
    st->fail.grace_ms = tern_env_long("TERN_OFI_FAIL_GRACE_MS", 1000,
        "After an ofi operation to a peer fails, how long a rank waits for the "
        "launcher to end the job before it aborts the job itself");
    if (buf < 4096)
        buf = 4096;
    if (buf > (64L << 20))
        buf = 64L << 20;
    st->buf_size = (size_t)buf;
    /* Until the provider is known, room for a frame (see open). */
    st->max_packet = st->buf_size - sizeof(struct ofi_frame);
    if (st->nsend < 2)
        st->nsend = 2;
    if (st->nrecv < 2)
        st->nrecv = 2;
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

/* ofi serves nobody, for the reason `why` (a clause). When it was
 * required that is an error, said once per host (connect() fails); when a
 * provider was named, rank 0 says in one line that tcp is used instead;
 * otherwise a line at verbose level 1. Peers learn it from "none". */
static int not_used(const struct tern_boot_info *b, int required, const char *named,
                    const char *why)
{
    char found[1024] = "";
    int first_here = b->local_size > 0 && b->local_ranks[0] == b->rank;
    if (tern_fi.getinfo && (required || (named && b->rank == 0)))
        tern_ofi_offered(found, sizeof found);
    const char *offers = *found ? found : "no provider";
    if (required) {
        if (first_here)
            tern_log("ofi: TERN_TRANSPORTS allows no other network transport, but %s; "
                     "libfabric offers %s. Pick one with TERN_OFI_PROVIDER, or allow "
                     "tcp (TERN_TRANSPORTS=self,shm,ofi,tcp)", why, offers);
        /* Failing only in connect(), after the fence, lets the line above
         * out before any rank's failure ends the job. */
        st->init_error = TERN_ENOTSUP;
    } else if (named && b->rank == 0)
        tern_log("ofi: %s (libfabric offers %s); using the tcp transport", why, offers);
    else
        TERN_LOG(1, "ofi: %s; using the tcp transport between hosts", why);
    return tern_boot_put(KEY_ADDR, "none", 5);
}

/* Chooses the provider and opens the endpoint; returns a reason when ofi
 * cannot be used, else NULL. */
static const char *try_open(const struct tern_boot_info *b, int required, const char *named,
                            int local_only, char *why, size_t cap)
{
    if (!required && !named && !tern_ofi_hardware_visible())
        return "no fabric hardware on this host";
    if (tern_ofi_load(why, cap))
        return why;
    char iface[64];
    job_iface(b, local_only, iface, sizeof iface);
    st->info = tern_ofi_pick(local_only, iface[0] ? iface : NULL, st->use_tagged != 0);
    if (!st->info && named) {
        snprintf(why, cap, "provider '%s' (TERN_OFI_PROVIDER or FI_PROVIDER) is not "
                 "usable here", named);
        return why;
    }
    if (!st->info)
        return "no provider is usable";
    if (!required && !named && !tern_ofi_is_hardware(st->info->fabric_attr->prov_name)) {
        snprintf(why, cap, "the best provider, %s, drives no fabric hardware",
                 st->info->fabric_attr->prov_name);
        return why;
    }
    if (tern_ofi_open(b->jobid)) {
        snprintf(why, cap, "the %s endpoint cannot be opened", st->info->fabric_attr->prov_name);
        return why;
    }
    return NULL;
}

static int ofi_init(const struct tern_boot_info *b)
{
    read_tunables();
    int any = 0, local_only = 1;
    for (int r = 0; r < b->size; r++)
        if (tern_tp_needs_network(b, r)) {
            any = 1;
            local_only &= tern_tp_local(b, r);
        }
    if (!any || b->singleton)
        return 0;
    st->rank = b->rank;
    st->size = b->size;
    int required = !tern_tp_allowed(&tern_tcp_ops);
    const char *named = tern_ofi_named();
    char why[300];
    const char *no = try_open(b, required, named, local_only, why, sizeof why);
    if (no) {
        int rc = not_used(b, required, named, no);
        if (st->info)
            tern_fi.freeinfo(st->info);
        st->info = NULL;
        return rc;
    }
    st->peers = calloc((size_t)b->size, sizeof *st->peers);
    if (!st->peers)
        return TERN_ENOMEM;
    for (int r = 0; r < b->size; r++)
        st->peers[r].served = tern_tp_needs_network(b, r);
    TERN_LOG(1, "ofi: provider %s, domain %s, %s%s", st->info->fabric_attr->prov_name,
             st->info->domain_attr->name, st->tagged ? "tagged sends" : "FI_MSG sends",
             st->rma.usable ? ", remote reads" : "");
    /* The suites leave sockets out for this reason (docs/protocols.md). */
    if (b->rank == 0 && !strcmp(st->info->fabric_attr->prov_name, "sockets"))
        tern_log("ofi: warning: libfabric's sockets provider can stall a job under load "
                 "(its progress thread sleeps while packets wait); prefer "
                 "TERN_OFI_PROVIDER=tcp");
    st->enabled = 1;
    char val[OFI_VALUE_MAX];
    int rc = tern_ofi_address(b->hostname, val, sizeof val);
    return rc ? rc : tern_boot_put(KEY_ADDR, val, strlen(val) + 1);
}

/* Reads what rank r published; inserts its address when it can talk to
 * this rank, else leaves it to tcp (or fails, when ofi is required). */
static int connect_peer(int r)
{
    struct ofi_peer *p = &st->peers[r];
    char val[OFI_VALUE_MAX];
    size_t len = sizeof val - 1;
    int rc = tern_boot_get(r, KEY_ADDR, val, &len);
    if (rc)
        return rc;
    val[len < sizeof val ? len : sizeof val - 1] = '\0';
    char theirs[200] = "no provider";
    unsigned fmt;
    size_t buf;
    char pname[128], mode[8];
    if (sscanf(val, "%127s %u %zu %7s", pname, &fmt, &buf, mode) == 4)
        snprintf(theirs, sizeof theirs, "%s with %zu-byte buffers (address format %u, %s)",
                 pname, buf, fmt, mode);
    char *prov, *host = "?";
    unsigned char name[OFI_ADDR_MAX];
    size_t n = 0;
    int same = 0;
    if (strcmp(val, "none") != 0 &&
        tern_ofi_parse_address(val, &same, &prov, &host, name, sizeof name, &n))
        return TERN_EPROTO;
    const char *mine = st->info->fabric_attr->prov_name;
    if (!same) {
        p->served = 0;
        if (!tern_tp_allowed(&tern_tcp_ops)) {
            tern_log("ofi: rank %d (host %s) uses %s, this rank (%d) %s with %zu-byte "
                     "buffers (address format %u, %s); with TERN_TRANSPORTS allowing no "
                     "tcp they cannot talk. Give the whole job one TERN_OFI_PROVIDER, "
                     "TERN_OFI_CHUNK and TERN_OFI_TAGGED", r, host, theirs, st->rank, mine,
                     st->buf_size, st->info->addr_format, st->tagged ? "tagged" : "msg");
            return TERN_ENOTSUP;
        }
        TERN_LOG(1, "ofi: rank %d (host %s) uses %s, this rank %s with %zu-byte buffers; "
                 "tcp serves that pair", r, host, theirs, mine, st->buf_size);
        return 0;
    }
    snprintf(p->host, sizeof p->host, "%s", host);
    if (fi_av_insert(st->av, name, 1, &p->addr, 0, NULL) != 1) {
        tern_log("ofi (%s): cannot insert the address of rank %d (host %s)", mine, r, host);
        return TERN_EIO;
    }
    return 0;
}

static int ofi_connect(void)
{
    if (st->init_error)
        return st->init_error;
    for (int r = 0; st->enabled && r < st->size; r++) {
        if (!st->peers[r].served)
            continue;
        int rc = connect_peer(r);
        if (rc)
            return rc;
    }
    return 0;
}

static int ofi_ready(void)
{
    return 0;
}

static int ofi_finalize(void)
{
    if (st->enabled)
        TERN_LOG(1, "ofi: %llu messages read from peers' memory, %llu packets arrived "
                 "early", st->n_read, st->n_early);
    tern_ofi_drop_held();
    tern_ofi_close();
    if (st->info)
        tern_fi.freeinfo(st->info);
    free(st->peers);
    memset(st, 0, sizeof *st);
    st->wait_fd = -1;
    return 0;
}

/* ---- The job running ------------------------------------------------------ */

static int ofi_reachable(int peer)
{
    return st->enabled && peer >= 0 && peer < st->size && st->peers[peer].served;
}

static void ofi_caps(int peer, struct tern_tp_caps *caps)
{
    (void)peer;
    caps->max_packet = st->max_packet;
    caps->eager_max = st->eager_max;
    caps->single_copy = st->rma.usable;
    caps->single_copy_min = 0; /* Every message past eager_max. */
}

/* Builds frame (if any), header and payload contiguously at dst. */
static void put_packet(char *dst, const struct ofi_frame *f, const void *hdr,
                       size_t hdr_len, const void *payload, size_t payload_len)
{
    memcpy(dst, f, st->frame);
    memcpy(dst + st->frame, hdr, hdr_len);
    if (payload_len)
        memcpy(dst + st->frame + hdr_len, payload, payload_len);
}

static int ofi_send(int peer, const void *hdr, size_t hdr_len, const void *payload,
                    size_t payload_len)
{
    struct ofi_peer *p = &st->peers[peer];
    struct ofi_frame f = { .src = (uint32_t)st->rank, .seq = p->tx_seq };
    uint64_t tag = (uint64_t)f.src << 32 | f.seq;
    size_t n = st->frame + hdr_len + payload_len;
    if (n > st->buf_size)
        return TERN_EINVAL;
    ssize_t rc;
    if (n <= st->inject_max) { /* At most OFI_INJECT_MAX. */
        uint64_t tmp[OFI_INJECT_MAX / 8];
        put_packet((char *)tmp, &f, hdr, hdr_len, payload, payload_len);
        rc = st->tagged ? fi_tinject(st->ep, tmp, n, p->addr, tag)
                        : fi_inject(st->ep, tmp, n, p->addr);
    } else {
        struct ofi_op_ctx *c = st->send_free;
        if (!c) {
            tern_ofi_poll_cq();
            if (!(c = st->send_free))
                return TERN_EAGAIN;
        }
        put_packet(c->data, &f, hdr, hdr_len, payload, payload_len);
        c->peer = peer;
        st->send_free = c->next;
        rc = st->tagged ? fi_tsend(st->ep, c->data, n, c->desc, p->addr, tag, c)
                        : fi_send(st->ep, c->data, n, c->desc, p->addr, c);
        if (rc) {
            c->next = st->send_free;
            st->send_free = c;
        }
    }
    if (rc == -FI_EAGAIN) {
        tern_ofi_poll_cq();
        return TERN_EAGAIN;
    }
    if (rc) {
        tern_ofi_peer_failed(peer, "a send", (int)-rc);
        return TERN_EPEER;
    }
    p->tx_seq++;
    return 0;
}

static int ofi_progress(void)
{
    if (!st->enabled)
        return 0;
    int n = tern_ofi_poll_cq();
    n += tern_ofi_deliver();
    if (n)
        st->nap_us = NAP_US;
    tern_tp_failure_check(&st->fail);
    return n;
}

static int ofi_expose(int peer, const void *buf, size_t len, uint64_t *key, void **handle)
{
    (void)peer;
    return tern_ofi_expose(&st->rma, buf, len, key, handle);
}

static int ofi_read_start(int peer, void *local, uint64_t remote, uint64_t key,
                          size_t len, void *arg)
{
    struct ofi_read *rd = tern_ofi_read_start(&st->rma, st->peers[peer].addr, local, remote,
                                              key, len, arg);
    if (!rd)
        return TERN_EIO;
    rd->peer = peer;
    /* Appended: older reads post their pieces first. */
    struct ofi_read **pp = &st->reads;
    while (*pp)
        pp = &(*pp)->next;
    *pp = rd;
    return 0;
}

/* Work that needs no completion to go on: buffers to post again, a read
 * with nothing in flight (the provider said EAGAIN). */
static int local_work(void)
{
    if (st->ready_head || st->unposted)
        return 1;
    for (struct ofi_read *rd = st->reads; rd; rd = rd->next)
        if (!rd->inflight)
            return 1;
    return 0;
}

static int ofi_block(int timeout_ms)
{
    if (!st->enabled || local_work())
        return 0;
    if (st->wait_fd < 0) {
        if (!st->nap_us)
            st->nap_us = NAP_US;
        long us = st->nap_us < timeout_ms * 1000L ? st->nap_us : timeout_ms * 1000L;
        struct timespec nap = { 0, us * 1000 };
        nanosleep(&nap, NULL);
        st->nap_us = st->nap_us * 2 > NAP_MAX_US ? NAP_MAX_US : st->nap_us * 2;
        return 0;
    }
    struct fid *f = &st->cq->fid;
    if (fi_trywait(st->fabric, &f, 1) != FI_SUCCESS)
        return 0;
    struct pollfd pfd = { .fd = st->wait_fd, .events = POLLIN };
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
