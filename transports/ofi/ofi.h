/*
 * Internals of the libfabric (OFI) transport, shared by its files:
 *   ofi.c       the ops table: when ofi is used, phases, send, progress,
 *               block
 *   endpoint.c  opening and closing the fabric objects and buffers; the
 *               address a rank publishes
 *   cq.c        completions: receives delivered in order, send buffers
 *               returned, reads advanced, failures recorded
 *   provider.c  choosing a provider (and listing them for tern-info)
 *   rma.c       large messages by remote read: exposing a send buffer and
 *               reading it from the receiver
 *   loader.c    opening libfabric at run time
 *
 * Endpoint. One reliable datagram endpoint (FI_EP_RDM) per rank, one
 * completion queue, one address vector holding every peer this transport
 * serves. Packets travel as tagged sends (FI_TAGGED) where the provider
 * has them, else as FI_MSG sends, into receive buffers the rank keeps
 * posted. The p2p core matches MPI messages itself, on every transport
 * alike, so a receive buffer takes any tag; FI_RMA carries large messages
 * where the provider has it.
 *
 * Framing. Each packet carries {source rank, sequence number}: in the tag
 * (rank << 32 | number) of a tagged send, or in an 8-byte frame before the
 * packet of an FI_MSG send. libfabric completes receives in the order it
 * likes (a provider without FI_ORDER_SAS, or one that completes a large
 * message after a later small one), so the receiver delivers each peer's
 * packets by sequence number and holds the ones that arrive early. It
 * holds a copy and posts the receive buffer again at once: a packet a
 * provider delivers late may need a posted buffer to arrive at all, and
 * with every buffer holding a later packet, it never would (libfabric's
 * shm provider, 3 ranks of dtype_stream under load).
 *
 * Sending copies the packet into a registered bounce buffer (or injects it
 * when it is small), because send() must let the caller reuse its buffers
 * at once. A message too large to go eagerly is not copied where the
 * provider has FI_RMA: the sender exposes its buffer (rma.c) and the
 * receiver reads it (TERN_OFI_RMA=0 sends it in chunks instead).
 *
 * A provider may transmit what it accepted only when it is polled, so the
 * p2p core keeps polling through MPI_Finalize's fence
 * (tern_boot_fence_while); without that, a rank's last send could wait in
 * the provider forever while the rank waits in the fence.
 */
#ifndef TERN_TRANSPORTS_OFI_H
#define TERN_TRANSPORTS_OFI_H

#include <stddef.h>
#include <signal.h>
#include <stdint.h>

#include <rdma/fabric.h>

#include "tern/boot.h"
#include "transports/failure.h"

/* What precedes every packet on the wire. */
struct ofi_frame {
    uint32_t src;  /* The sender's world rank. */
    uint32_t seq;  /* Per (sender, receiver) pair, from 0. */
};

enum ofi_op { OP_SEND = 1, OP_RECV, OP_READ, OP_EARLY };

/* One outstanding operation: a bounce buffer, a receive buffer or a read;
 * or (OP_EARLY) a copy of a packet that arrived before its turn, whose
 * receive buffer was posted again at once (cq.c).
 * The libfabric context comes first, as FI_CONTEXT(2) mode requires. */
struct ofi_op_ctx {
    struct fi_context2 fctx;
    enum ofi_op op;
    struct ofi_op_ctx *next;   /* In a free list or a peer's held list. */
    char *data;                /* The buffer (send and receive). */
    void *desc;                /* Its registration, when the provider asks. */
    size_t len;                /* Bytes received. */
    uint32_t src, seq;         /* A receive: sender and sequence number. */
    int peer;                  /* A send: its destination, for errors. */
    int busy;                  /* A piece of a read: in flight. */
    struct ofi_read *read;     /* A piece of a read: the read. */
};

/* A message read from a peer's memory in pieces of READ_PIECE bytes, up to
 * READ_DEPTH of them in flight. (On the reference VM, with libfabric's tcp
 * provider, one read of 1 MiB took 3.6 times as long as one of 512 KiB;
 * pieces keep each read in the fast range and several in flight keep the
 * link busy. On an RDMA fabric a piece is one work request.) */
#define READ_DEPTH 8
struct ofi_read {
    struct ofi_read *next;     /* In the transport's list of reads. */
    void *arg;                 /* For tern_p2p_bulk_done(). */
    int peer;
    fi_addr_t from;
    char *local;
    uint64_t base, key;
    size_t len, asked;         /* Bytes in all, and bytes asked for. */
    int inflight, error;
    struct fid_mr *mr;
    void *desc;
    struct ofi_op_ctx slot[READ_DEPTH];
};

/* loader.c: the functions libfabric exports, once tern_ofi_load() has
 * opened it. */
struct tern_fi_api {
    int (*getinfo)(uint32_t version, const char *node, const char *service,
                   uint64_t flags, const struct fi_info *hints, struct fi_info **info);
    void (*freeinfo)(struct fi_info *info);
    struct fi_info *(*dupinfo)(const struct fi_info *info);
    int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
    const char *(*strerror)(int errnum);
    uint32_t (*version)(void);
};
extern struct tern_fi_api tern_fi;

/* Opens libfabric (once); 0, or TERN_ENOTSUP with the reason in err. */
int tern_ofi_load(char *err, size_t cap);

/* Fatal-signal handlers are saved before code that may load libfabric's
 * providers (which install their own) and put back after it. */
struct ofi_signals {
    struct sigaction sa[NSIG];
};
void tern_ofi_signals_save(struct ofi_signals *s);
void tern_ofi_signals_restore(const struct ofi_signals *s);

/* provider.c */

/* Core providers that drive fabric hardware, in order of preference. */
int tern_ofi_is_hardware(const char *prov_name);

/* The provider to use: the first in order of preference among those
 * libfabric offers for a reliable datagram endpoint with FI_MSG or (when
 * `tagged`) FI_TAGGED, and TERN_OFI_PROVIDER allows; of one provider, the
 * entry with remote reads, then with tagged messages. shm only when
 * `local_only` (it cannot reach other hosts); for the socket-based
 * providers the domain of interface `iface` if given. Returns a copy to
 * free with fi_freeinfo, or NULL. */
struct fi_info *tern_ofi_pick(int local_only, const char *iface, int tagged);

/* Every provider libfabric offers, comma-separated, for messages. */
void tern_ofi_offered(char *found, size_t cap);

/* 1 if this host shows fabric hardware a provider could drive; without it
 * (and without a provider named) a job does not ask libfabric, which
 * takes about 0.1 s to load its providers. */
int tern_ofi_hardware_visible(void);

/* The provider named by TERN_OFI_PROVIDER or FI_PROVIDER (a single name,
 * not a list or an exclusion), or NULL. */
const char *tern_ofi_named(void);

/* Prints the providers libfabric reports and which one would be chosen;
 * for tern-info. */
void tern_ofi_about(void);

/* rma.c: large messages by remote read. */

struct ofi_rma {
    struct fid_domain *domain;
    struct fid_ep *ep;
    uint64_t mr_mode;          /* The provider's FI_MR_* requirements. */
    int usable;                /* FI_RMA with FI_READ is available. */
};

/* Registers `len` bytes at buf with `access` (FI_SEND, FI_RECV, FI_READ
 * locally; FI_REMOTE_READ for a peer). *mr is NULL when the provider needs
 * no registration for that use. */
int tern_ofi_mr_reg(const struct ofi_rma *r, const void *buf, size_t len,
                    uint64_t access, struct fid_mr **mr);
/* The sender's half: lets peers read buf under *key until unexpose. */
int tern_ofi_expose(const struct ofi_rma *r, const void *buf, size_t len,
                    uint64_t *key, void **handle);
void tern_ofi_unexpose(void *handle);
/* The receiver's half: starts reading len bytes at `remote` of peer
 * `from` into local; NULL if it cannot. advance() posts the pieces that
 * free slots allow and returns 1 once the read has ended (rd->error says
 * how); then read_free(). */
struct ofi_read *tern_ofi_read_start(const struct ofi_rma *r, fi_addr_t from,
                                     void *local, uint64_t remote, uint64_t key,
                                     size_t len, void *arg);
int tern_ofi_read_advance(const struct ofi_rma *r, struct ofi_read *rd);
void tern_ofi_read_free(struct ofi_read *rd);

/* ---- The transport's state (ofi.c, endpoint.c, cq.c) ---- */

struct ofi_peer {
    int served;                 /* ofi carries traffic to it. */
    fi_addr_t addr;
    char host[TERN_HOSTNAME_MAX];
    uint32_t tx_seq;            /* Next sequence number to send. */
    uint32_t rx_seq;            /* Next sequence number to deliver. */
    struct ofi_op_ctx *held;    /* Packets that arrived early: copies
                                   (OP_EARLY), or a receive buffer when
                                   there was no memory for a copy. */
};

struct ofi_state {
    int enabled;                /* Serves at least one peer. */
    int init_error;             /* What connect() fails with, or 0. */
    int rank, size;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_cq *cq;
    struct fid_av *av;
    struct fid_ep *ep;
    int wait_fd;                /* The completion queue's fd, or -1. */
    struct ofi_rma rma;
    struct ofi_peer *peers;
    size_t max_packet, eager_max, inject_max, buf_size;
    size_t frame;               /* Bytes of frame before each packet: 0
                                   when tagged, sizeof(struct ofi_frame). */
    int tagged;                 /* Packets are tagged sends. */
    long use_rma, use_tagged;   /* TERN_OFI_RMA, TERN_OFI_TAGGED. */
    long nsend, nrecv;
    char *pool;                 /* Send then receive buffers. */
    struct fid_mr *pool_mr;
    struct ofi_op_ctx *ops;     /* nsend + nrecv contexts. */
    struct ofi_op_ctx *send_free;
    struct ofi_op_ctx *ready_head, *ready_tail; /* In delivery order. */
    struct ofi_op_ctx *unposted; /* Receive buffers to post again. */
    long nposted;               /* Receive buffers posted to the provider
                                   (for the hang dumps of tests/cluster). */
    struct ofi_read *reads;     /* Reads under way, oldest first. */
    int delivering;
    long nap_us;                /* The next nap without a wait object. */
    unsigned long long n_read, n_early; /* Messages read remotely, packets
                                           that arrived early. */
    struct tern_tp_failure fail; /* A failed operation, and when. */
};
extern struct ofi_state tern_ofi;

/* endpoint.c */

#define OFI_ADDR_MAX 512      /* Bytes of an endpoint name accepted. */
#define OFI_INJECT_MAX 256    /* Largest packet sent with fi_inject. */
#define OFI_VALUE_MAX (2 * OFI_ADDR_MAX + TERN_HOSTNAME_MAX + 128)

/* Opens fabric, domain, completion queue, address vector, endpoint and
 * buffers for tern_ofi.info, posting the receive buffers; jobid names the
 * shm provider's endpoint. On failure it says which step failed and closes
 * what it opened. */
int tern_ofi_open(const char *jobid);
void tern_ofi_close(void);
/* "<provider> <address format> <buffer size> <tagged|msg> <host>
 * <address in hex>": what a rank publishes; peers that differ in anything
 * but host and address cannot talk over ofi. */
int tern_ofi_address(const char *host, char *out, size_t cap);
/* Splits a peer's published value; 0, or TERN_EPROTO. `same` is 1 when
 * it can talk to this rank. */
int tern_ofi_parse_address(char *val, int *same, char **prov, char **host,
                           unsigned char *addr, size_t cap, size_t *addr_len);

/* cq.c */
int tern_ofi_post_recv(struct ofi_op_ctx *c);
/* Reads completions without delivering anything (so send() may call it). */
int tern_ofi_poll_cq(void);
/* Posts what waits to be posted, advances reads, and delivers the packets
 * that are next in order; not re-entered. Returns events. */
int tern_ofi_deliver(void);
/* Frees the packets still held or queued (at finalize: a job that ended
 * in error may leave some). */
void tern_ofi_drop_held(void);
/* Records a failed operation toward peer (-1: unknown); the job ends after
 * TERN_OFI_FAIL_GRACE_MS unless the launcher ends it first. */
void tern_ofi_peer_failed(int peer, const char *what, int fi_err);

#endif
