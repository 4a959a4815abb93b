/*
 * Per-peer state of the p2p core and the state shared by its files.
 *
 * Each peer (world rank) has the one transport that carries its traffic,
 * that transport's limits, and two FIFOs of outgoing work the transport
 * could not take yet (TERN_EAGAIN): send requests (eager packets, RTS, and
 * pipelined DATA chunks) and small control packets (CTS, FIN, ACK). Sends
 * stay in posting order, which keeps MPI's non-overtaking rule; control
 * packets refer to specific requests and need no order among sends.
 */
#ifndef TERN_P2P_PEER_H
#define TERN_P2P_PEER_H

#include <stddef.h>

#include "libmpi/p2p/match.h"
#include "libmpi/p2p/packet.h"
#include "transports/transport.h"

struct tern_ctl {
    struct tern_ctl *next;
    struct tern_pkt pkt;
};

struct tern_peer {
    const struct tern_tp_ops *tp;
    size_t chunk_max;      /* Payload bytes in one packet. */
    size_t eager_max;      /* Largest message sent eagerly. */
    size_t contig_eager_max; /* ... if contiguous: past it, single copy. */
    size_t single_copy_min; /* Messages this large go single copy; SIZE_MAX:
                               never (no single-copy path to this peer). */
    struct tern_request *sendq_head, *sendq_tail;
    struct tern_ctl *ctl_head, *ctl_tail;
    /* Packets its transport took for it, and handed up from it. Compared
     * across the two ranks of a pair, they tell a packet lost on the way
     * from one never sent (tests/cluster/dump_rank.py). */
    unsigned long sent, received;
};

struct tern_p2p_state {
    struct tern_peer *peers;
    int npeers;
    struct tern_matchq mq;
    int pending;            /* Peers with queued outgoing work. */
    int active_sends;       /* Send requests not yet complete. */
    unsigned long unexp_arrivals; /* Messages that arrived unexpected. */
    int notice_mask, notice_bits; /* tern_p2p_watch_notices() */
    unsigned long notice_arrivals; /* Notices among them. */
    /* Calls of tern_progress(), those that found work, and sleeps in a
     * transport: two looks at a hung rank tell a rank that spins from one
     * that sleeps (tests/cluster/dump_rank.py). */
    unsigned long progress_calls, progress_busy, sleeps;
};

extern struct tern_p2p_state tern_p2p;

/* send.c: queues or injects; used by recv.c for replies. */
void tern_p2p_send_ctl(int peer, const struct tern_pkt *pkt);
void tern_p2p_start_stream(struct tern_request *r);
int tern_p2p_flush(void);
void tern_p2p_send_done(struct tern_request *r);
/* The receiver answered r's CANCEL: it dropped the message or not. */
void tern_p2p_cancel_answered(struct tern_request *r, int withdrawn);
/* Frees the buffer that non-contiguous sends are packed into. */
void tern_p2p_send_release(void);

/* recv.c: matched a message to a receive. */
void tern_p2p_deliver_unexp(struct tern_request *r, struct tern_unexp *u);

#endif
