/*
 * Posted and unexpected queues as singly linked FIFOs. Searches are linear;
 * the queues are short in the programs that matter for latency, and the
 * order they keep is what MPI's matching rules require.
 */
#include <stddef.h>

#include "libmpi/p2p/match.h"
#include "libmpi/p2p/packet.h"

/* Unlinks r, which follows prev (NULL: r is the head). */
static void unlink_posted(struct tern_matchq *q, struct tern_request *prev,
                          struct tern_request *r)
{
    if (prev)
        prev->next = r->next;
    else
        q->posted_head = r->next;
    if (q->posted_tail == r)
        q->posted_tail = prev;
    r->next = NULL;
}

void tern_match_post(struct tern_matchq *q, struct tern_request *r)
{
    r->next = NULL;
    if (q->posted_tail)
        q->posted_tail->next = r;
    else
        q->posted_head = r;
    q->posted_tail = r;
}

struct tern_request *tern_match_posted(struct tern_matchq *q, uint32_t ctx,
                                       int src, int tag)
{
    struct tern_request *prev = NULL;
    for (struct tern_request *r = q->posted_head; r; prev = r, r = r->next) {
        if (!tern_match_fits(r->ctx, r->rank, r->tag, ctx, src, tag))
            continue;
        unlink_posted(q, prev, r);
        return r;
    }
    return NULL;
}

int tern_match_unpost(struct tern_matchq *q, struct tern_request *target)
{
    struct tern_request *prev = NULL;
    for (struct tern_request *r = q->posted_head; r; prev = r, r = r->next) {
        if (r != target)
            continue;
        unlink_posted(q, prev, r);
        return 1;
    }
    return 0;
}

void tern_match_add_unexp(struct tern_matchq *q, struct tern_unexp *u)
{
    u->next = NULL;
    if (q->unexp_tail)
        q->unexp_tail->next = u;
    else
        q->unexp_head = u;
    q->unexp_tail = u;
}

/* Unlinks u, which follows prev (NULL: u is the head). */
static void unlink_unexp(struct tern_matchq *q, struct tern_unexp *prev, struct tern_unexp *u)
{
    if (prev)
        prev->next = u->next;
    else
        q->unexp_head = u->next;
    if (q->unexp_tail == u)
        q->unexp_tail = prev;
    u->next = NULL;
}

struct tern_unexp *tern_match_unexp(struct tern_matchq *q, uint32_t ctx,
                                    int src, int tag, int take)
{
    struct tern_unexp *prev = NULL;
    for (struct tern_unexp *u = q->unexp_head; u; prev = u, u = u->next) {
        if (!tern_match_fits(ctx, src, tag, u->ctx, u->src, u->tag))
            continue;
        if (take)
            unlink_unexp(q, prev, u);
        return u;
    }
    return NULL;
}

struct tern_unexp *tern_match_unexp_waited(struct tern_matchq *q, int peer, uint64_t sreq,
                                           int take)
{
    struct tern_unexp *prev = NULL;
    for (struct tern_unexp *u = q->unexp_head; u; prev = u, u = u->next) {
        if (u->peer != peer || u->sreq != sreq ||
            (u->type == TERN_PKT_EAGER && !(u->flags & TERN_PKT_SYNC)))
            continue;
        if (take)
            unlink_unexp(q, prev, u);
        return u;
    }
    return NULL;
}

struct tern_unexp *tern_match_unexp_conflict(struct tern_matchq *q, uint32_t ctx, int src,
                                             int tag, int mask, int take)
{
    struct tern_unexp *prev = NULL;
    for (struct tern_unexp *u = q->unexp_head; u; prev = u, u = u->next) {
        if (u->ctx != ctx || (src >= 0 && u->src != src) || ((u->tag ^ tag) & mask))
            continue;
        if (u->tag == tag) {
            /* From one sender, a message with the tag itself before one
             * that differs: the other is of a later call whose masked
             * bits came round again. */
            if (src >= 0)
                return NULL;
            continue;
        }
        if (take)
            unlink_unexp(q, prev, u);
        return u;
    }
    return NULL;
}
