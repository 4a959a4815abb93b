/*
 * The matching engine: posted receives and unexpected messages.
 *
 * MPI's rule: an arriving message matches the earliest posted receive whose
 * (context, source, tag) pattern fits; a posted receive matches the earliest
 * unexpected message that fits. Both queues are FIFOs in arrival or posting
 * order, which gives non-overtaking as long as each sender's packets arrive
 * in order (the transports guarantee that). MPI_ANY_TAG matches only tags
 * >= 0; collectives use their own context ids.
 *
 * An unexpected entry keeps the envelope and, for eager messages, a copy of
 * the payload. Probed messages taken by MPI_Mprobe leave the queue and live
 * on as MPI_Message handles until MPI_Mrecv.
 */
#ifndef TERN_P2P_MATCH_H
#define TERN_P2P_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "libmpi/core/request.h"

struct tern_unexp {
    uint32_t magic;          /* TERN_MAGIC_MESSAGE while an MPI_Message. */
    struct tern_unexp *next;
    int peer;                /* World rank of the sender. */
    int src;                 /* Sender's rank in the communicator. */
    int tag;
    uint32_t ctx;
    uint8_t type;            /* TERN_PKT_EAGER or TERN_PKT_RTS. */
    uint8_t flags;
    uint8_t size_class;      /* Its class in unexp.c's cache. */
    size_t len;              /* Message length. */
    uint64_t sreq;
    uint64_t addr;           /* RTS: sender's buffer for single copy, */
    uint64_t key;            /* and the key the transport exposed it under. */
    struct tern_comm *comm;  /* Set while an MPI_Message: its communicator. */
    char data[];             /* EAGER: the payload, len bytes. */
};

struct tern_matchq {
    struct tern_request *posted_head, *posted_tail;
    struct tern_unexp *unexp_head, *unexp_tail;
};

/* 1 if a receive pattern matches a message envelope. */
static inline int tern_match_fits(uint32_t ctx, int src, int tag,
                                  uint32_t m_ctx, int m_src, int m_tag)
{
    return ctx == m_ctx && (src == m_src || src < 0) &&
           (tag == m_tag || (tag < 0 && m_tag >= 0));
}

void tern_match_post(struct tern_matchq *q, struct tern_request *r);
/* Removes and returns the earliest posted receive fitting the envelope. */
struct tern_request *tern_match_posted(struct tern_matchq *q, uint32_t ctx,
                                       int src, int tag);
/* Removes a posted receive (for cancel); 1 if it was there. */
int tern_match_unpost(struct tern_matchq *q, struct tern_request *r);

/* An unexpected entry with room for `payload` bytes of data, reusing a
 * freed one where it can (unexp.c); NULL when memory runs out. */
struct tern_unexp *tern_unexp_alloc(size_t payload);
void tern_unexp_free(struct tern_unexp *u);
/* Gives the freed entries kept for reuse back to malloc. */
void tern_unexp_drop_cache(void);

void tern_match_add_unexp(struct tern_matchq *q, struct tern_unexp *u);
/* The unexpected message whose sender (world rank `peer`) still waits for
 * it as request `sreq` (a synchronous EAGER or an RTS: other senders'
 * requests may have been reused since), or NULL; removed if `take`. */
struct tern_unexp *tern_match_unexp_waited(struct tern_matchq *q, int peer, uint64_t sreq,
                                           int take);
/* The earliest unexpected message fitting the pattern; removed if `take`. */
struct tern_unexp *tern_match_unexp(struct tern_matchq *q, uint32_t ctx,
                                    int src, int tag, int take);
/* The earliest unexpected message from src (any rank if src < 0) on ctx
 * whose tag equals `tag` in the bits of `mask` and differs in the others
 * (NULL: none), unless, for a given src, a message with `tag` itself
 * comes first (with src < 0, such a message is only skipped); removed if
 * `take`. */
struct tern_unexp *tern_match_unexp_conflict(struct tern_matchq *q, uint32_t ctx, int src,
                                             int tag, int mask, int take);

#endif
