/*
 * The transport interface: one const ops table per backend.
 *
 * A transport is a dumb, ordered, reliable pipe to each peer it serves, plus
 * optional bulk operations that it advertises in its capabilities. The p2p
 * core (libmpi/p2p) owns matching, protocols and the wire header; a transport
 * never looks inside a packet.
 *
 * Lifecycle, driven by libmpi/p2p/progress.c from MPI_Init:
 *   init(boot)   create local resources, publish what peers need with
 *                tern_boot_put(); must not call tern_boot_fence().
 *   -- fence --
 *   connect()    read peers' keys with tern_boot_get() and attach to them;
 *                may put more keys (results of probes) for ready().
 *   -- fence --
 *   ready()      every peer has attached: drop what must not outlive the job
 *                (for example unlink a shared-memory segment).
 *   ...          send / progress / get_bulk / block while the job runs.
 *   finalize()   after the final fence: release everything.
 * Every rank calls every phase of every compiled-in transport, even one that
 * serves no peer, because the fences between phases are job-wide.
 *
 * Peers are named by world rank. reachable(peer) says whether this transport
 * can serve that peer; transports/registry.c picks exactly one transport per
 * peer (self for oneself, then shm for ranks the launcher placed on this host,
 * then the network), so ordering per peer comes from that pipe alone.
 *
 * Receiving: progress() polls for arrived packets and hands each one, whole
 * and in order per sender, to tern_p2p_recv_packet() (include/tern/p2p.h).
 * The packet memory is only valid during that call. progress() must not be
 * re-entered from inside tern_p2p_recv_packet(); the p2p core never does.
 *
 * Sending: send() either takes the whole packet (header then payload, at most
 * caps.max_packet bytes together) and returns 0, after which the caller may
 * reuse both buffers, or returns TERN_EAGAIN; the caller then retries after
 * progress. A stream transport (tcp) may have written the start of the
 * packet when it says TERN_EAGAIN; it relies on the p2p core's rule that
 * the next packet offered to that peer is the same one again (same header
 * bytes, same payload buffer, unchanged), and refuses any other until that
 * one is through. The p2p core keeps refused packets at the head of the
 * peer's queues and retries them in order, which satisfies the rule.
 *
 * Bulk reads: a rendezvous sender whose message is at least
 * caps.single_copy_min bytes first calls expose() (when the transport has
 * one) to let the receiver read its buffer; the key it returns travels in
 * the RTS, and the receiver passes it to get_bulk() (or read_start()) with
 * the address. Once
 * the receiver's FIN arrives the sender calls unexpose(). CMA needs no key
 * (expose is NULL); RDMA needs the registration's key. A sender that gives
 * up such a send before the FIN (a collective that failed) must not hand
 * the buffer back to its caller while a read of it may still be served on
 * the sender's side: where expose() is set, it takes the offer back with a
 * RECALL packet first (libmpi/p2p/packet.h) and calls unexpose() once the
 * receiver answered; where the receiver reads the memory itself (CMA), it
 * only calls forget().
 *
 * Errors: 0 or a negative TERN_E* code (include/tern/err.h). A peer that is
 * known to be gone makes send() return TERN_EPEER.
 */
#ifndef TERN_TRANSPORT_H
#define TERN_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "tern/boot.h"

struct tern_tp_caps {
    size_t max_packet;      /* Largest header + payload that send() accepts. */
    int single_copy;        /* 1 when get_bulk() may be used with this peer. */
    size_t single_copy_min; /* Smallest message worth a get_bulk(). */
    size_t eager_max;       /* Largest message to send eagerly; 0 for as
                               large as a packet holds. */
    size_t contig_eager_max; /* Where smaller than eager_max: the largest
                               contiguous message to send eagerly, since a
                               single-copy read beats the eager copy past it
                               (single_copy_min is then past it too); 0:
                               eager_max. */
};

struct tern_tp_ops {
    const char *name;

    int (*init)(const struct tern_boot_info *boot);
    int (*connect)(void);
    int (*ready)(void);
    int (*finalize)(void);

    /* 1 if this transport can carry traffic to world rank `peer`. */
    int (*reachable)(int peer);
    /* Capabilities for one reachable peer. */
    void (*caps)(int peer, struct tern_tp_caps *caps);

    int (*send)(int peer, const void *hdr, size_t hdr_len,
                const void *payload, size_t payload_len);

    /* Delivers arrived packets; returns how many, or a negative code. */
    int (*progress)(void);

    /* Makes `len` bytes at buf readable by peer's get_bulk(); sets the key
     * the reader needs and a handle for unexpose(). NULL when reading needs
     * no preparation. An error makes the message go pipelined instead. */
    int (*expose)(int peer, const void *buf, size_t len, uint64_t *key,
                  void **handle);
    void (*unexpose)(void *handle);
    /* The sender gave up a send whose receiver may still read buf in one
     * copy, and no longer keeps buf alive (a collective that failed): the
     * transport must not read it on the sender's side again. NULL when it
     * never reads a sender's buffer on its behalf. */
    void (*forget)(const void *buf, size_t len);

    /* Single-copy read of `len` bytes at address `remote` (exposed under
     * `key`) in peer's memory into `local`; blocking. NULL when the
     * transport has no bulk path. */
    int (*get_bulk)(int peer, void *local, uint64_t remote, uint64_t key,
                    size_t len);
    /* The same read in the background: returns at once (0, or an error
     * when it cannot start), and once the bytes are in place progress()
     * calls tern_p2p_bulk_done(arg, rc). Preferred over get_bulk() when
     * present; NULL if the transport has none. */
    int (*read_start)(int peer, void *local, uint64_t remote, uint64_t key,
                      size_t len, void *arg);

    /* Sleeps until a packet may have arrived for this rank, or timeout_ms
     * passes. Spurious returns are allowed. NULL if it cannot block. */
    int (*block)(int timeout_ms);

    /* Reads every tunable of the transport (so tern-info can list them);
     * NULL if it has none. Changes nothing else. */
    void (*tunables)(void);
    /* Prints what tern-info should say beyond the tunables (the fabric
     * providers found, for ofi); NULL if nothing. */
    void (*about)(void);
};

extern const struct tern_tp_ops tern_self_ops;
extern const struct tern_tp_ops tern_shm_ops;
extern const struct tern_tp_ops tern_tcp_ops;
extern const struct tern_tp_ops tern_ofi_ops;

#endif
