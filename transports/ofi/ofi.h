/*
 * Internals of the libfabric (OFI) transport, shared by its files:
 *   ofi.c       the ops table: phases, send, progress, block
 *   provider.c  choosing a provider (and listing them for tern-info)
 *   rma.c       large messages by remote read: exposing a send buffer and
 *               reading it from the receiver
 *
 * Endpoint. One reliable datagram endpoint (FI_EP_RDM) per rank, one
 * completion queue, one address vector holding every peer this transport
 * serves. Packets travel as FI_MSG sends into receive buffers the rank
 * keeps posted. The p2p core matches MPI messages itself, on every
 * transport alike, so the transport does not use the provider's tag
 * matching; FI_RMA carries large messages where the provider has it.
 *
 * Framing. Each packet is preceded by a frame {source rank, sequence
 * number}. libfabric completes receives in the order it likes (a provider
 * without FI_ORDER_SAS, or one that completes a large message after a
 * later small one), so the receiver delivers each peer's packets by
 * sequence number and holds the ones that arrive early.
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
#include <stdint.h>

#include <rdma/fabric.h>

/* What precedes every packet on the wire. */
struct ofi_frame {
    uint32_t src;  /* The sender's world rank. */
    uint32_t seq;  /* Per (sender, receiver) pair, from 0. */
};

enum ofi_op { OP_SEND = 1, OP_RECV, OP_READ };

/* One outstanding operation: a bounce buffer, a receive buffer or a read.
 * The libfabric context comes first, as FI_CONTEXT(2) mode requires. */
struct ofi_op_ctx {
    struct fi_context2 fctx;
    enum ofi_op op;
    struct ofi_op_ctx *next;   /* In a free list or a peer's held list. */
    char *data;                /* The buffer (send and receive). */
    void *desc;                /* Its registration, when the provider asks. */
    size_t len;                /* Bytes received. */
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

/* provider.c */

/* Core providers that drive fabric hardware, in order of preference. */
int tern_ofi_is_hardware(const char *prov_name);

/* The provider to use: the first in order of preference among those
 * libfabric offers for a reliable datagram endpoint with FI_MSG (and
 * TERN_OFI_PROVIDER allows). shm only when `local_only` (it cannot reach
 * other hosts); for the socket-based providers the domain of interface
 * `iface` if given. Returns a copy to free with fi_freeinfo, or NULL. */
struct fi_info *tern_ofi_pick(int local_only, const char *iface);

/* Every provider libfabric offers, comma-separated, for messages. */
void tern_ofi_offered(char *found, size_t cap);

/* 1 if this host shows fabric hardware a provider could drive; without it
 * (and without a provider named) a job does not ask libfabric, which
 * takes about 0.1 s to load its providers. */
int tern_ofi_hardware_visible(void);

/* The provider named by TERN_OFI_PROVIDER or FI_PROVIDER, or NULL. */
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

#endif
