/*
 * The static table of transports and the choice of one per peer.
 *
 * Order of preference: self for one's own rank, shm for ranks the launcher
 * placed on this host, then the network transports: ofi where it has a
 * usable provider (transports/ofi/ofi.c says when), else tcp. TERN_TRANSPORTS, a
 * comma-separated list of names ("self,shm"), restricts the set.
 */
#ifndef TERN_TRANSPORTS_REGISTRY_H
#define TERN_TRANSPORTS_REGISTRY_H

#include "transports/transport.h"

/* The transports compiled in and allowed by TERN_TRANSPORTS, in order of
 * preference; returns their number. */
int tern_tp_list(const struct tern_tp_ops *const **list);

/* 1 if TERN_TRANSPORTS allows transport t. */
int tern_tp_allowed(const struct tern_tp_ops *t);

/* 1 if the launcher placed world rank r on this host. */
int tern_tp_local(const struct tern_boot_info *b, int r);

/* 1 if only a network transport (ofi, tcp) can serve world rank r: it is
 * not this rank, and shm does not serve it (not allowed, or another host). */
int tern_tp_needs_network(const struct tern_boot_info *b, int r);

/* The transport for world rank `peer`, or NULL if none reaches it. Valid
 * after every transport's connect(). */
const struct tern_tp_ops *tern_tp_select(int peer);

/* Prints one line naming the transport that serves each peer, e.g.
 * "transports: self 0; shm 1; tcp 2-5" (chosen[r] for world rank r). */
void tern_tp_report(const struct tern_tp_ops *const *chosen, int n);

#endif
