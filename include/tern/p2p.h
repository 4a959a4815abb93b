/*
 * What the p2p core offers to the transports below it.
 */
#ifndef TERN_P2P_H
#define TERN_P2P_H

#include <stddef.h>

/* Hands one arrived packet from world rank `src` to the p2p core. `pkt` is
 * only valid during the call. Called from a transport's progress(). */
void tern_p2p_recv_packet(int src, const void *pkt, size_t len);

/* Receiving in place, for stream transports that get a packet's header
 * before its payload. recv_place() says where the payload of the packet
 * with header `hdr` (hdr_len bytes, payload_len bytes to follow) belongs and
 * sets *room to how many of its bytes are wanted there; the transport
 * discards the rest (a truncated receive). NULL: the packet must come whole
 * through tern_p2p_recv_packet(). Once all payload_len bytes have been read,
 * recv_placed() completes the packet; `hdr` is the same header again. */
void *tern_p2p_recv_place(const void *hdr, size_t hdr_len, size_t payload_len,
                          size_t *room);
void tern_p2p_recv_placed(const void *hdr, size_t hdr_len, size_t payload_len);

/* A read that the transport's read_start() began has ended; rc is 0 or a
 * TERN_E* code. Called from the transport's progress(). */
void tern_p2p_bulk_done(void *arg, int rc);

/* Called by a transport's block() after it announced that it will sleep
 * and before it does: 1 if this rank has work after all, so it must not
 * sleep. Work can come without a packet: a collective in shared memory
 * waits for flags that other ranks set (collectives/shm.h). */
int tern_p2p_recheck(void);

#endif
