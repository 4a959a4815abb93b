/*
 * What the p2p core offers to the transports below it.
 */
#ifndef TERN_P2P_H
#define TERN_P2P_H

#include <stddef.h>

/* Hands one arrived packet from world rank `src` to the p2p core. `pkt` is
 * only valid during the call. Called from a transport's progress(). */
void tern_p2p_recv_packet(int src, const void *pkt, size_t len);

#endif
