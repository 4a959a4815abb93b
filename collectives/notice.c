/*
 * Notices between ranks that made different collective calls (notice.h).
 */
#include <stdlib.h>

#include "collectives/notice.h"
#include "collectives/signature.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/p2p/p2p.h"
#include "tern/log.h"

/* Notices travel on the collective context, tagged with the call's
 * number and a signature that no call has. */
static int notice_tag(const struct tern_coll_stamp *c, int signature)
{
    return (c->tag & TERN_COLL_SEQ_MASK) | signature;
}

int tern_coll_notify_failure(struct tern_comm *comm, const struct tern_coll_stamp *c, int code,
                             int peer, struct tern_request **r)
{
    return tern_p2p_isend(NULL, 0, tern_dtype_get(MPI_BYTE), peer,
                          notice_tag(c, tern_coll_signature_failed(code)), comm, comm->ctx + 1,
                          TERN_SEND_STANDARD, r);
}

void tern_coll_fail_call(struct tern_comm *comm, const struct tern_coll_stamp *c, int code)
{
    tern_p2p_discard_unexp(comm, comm->ctx + 1, c->tag, TERN_COLL_SEQ_MASK);
    for (int q = 0; q < comm->size; q++) {
        struct tern_request *r = NULL;
        if (q != comm->rank && !tern_coll_notify_failure(comm, c, code, q, &r) && r)
            tern_p2p_abandon(r);
    }
}

int tern_coll_conflict(struct tern_comm *comm, const struct tern_coll_stamp *c, int src,
                       int *from, int *failure, char *why, size_t len)
{
    int theirs = tern_p2p_unexp_conflict(comm->ctx + 1, src, c->tag, TERN_COLL_SEQ_MASK, from);
    /* An inquiry is taken first (tern_coll_inquiries); one left (no
     * memory to take it in) decides nothing. */
    if (theirs < 0 || (theirs & ~TERN_COLL_SEQ_MASK) == tern_coll_signature_inquiry())
        return 0;
    *failure = tern_coll_call_id_of(theirs).failed != 0;
    return tern_coll_signature_conflict(c->tag, theirs, *from, why, len);
}

/* What an inquiry says. */
struct inquiry {
    uint64_t seq;    /* The call's whole number on the communicator. */
    int32_t tag;     /* Its tag: its signature. */
    int32_t root;    /* Its root, whole (the tag has two bits of it). */
};

void tern_coll_inquire(struct tern_comm *comm, const struct tern_coll_stamp *c, int peer)
{
    /* On the heap, freed with the request: the send is left to finish on
     * its own. */
    struct inquiry *q = malloc(sizeof *q);
    if (!q)
        return;
    *q = (struct inquiry){ .seq = c->seq, .tag = c->tag, .root = c->root };
    struct tern_request *r = NULL;
    if (tern_p2p_isend(q, sizeof *q, tern_dtype_get(MPI_BYTE), peer,
                       notice_tag(c, tern_coll_signature_inquiry()), comm, comm->ctx + 1,
                       TERN_SEND_STANDARD, &r) || !r || r->owned) {
        if (r)
            tern_p2p_abandon(r);
        free(q);
        return;
    }
    r->owned = q;
    tern_p2p_abandon(r);
}

static struct tern_coll_call_id call_id(int tag, int root)
{
    struct tern_coll_call_id id = tern_coll_call_id_of(tag);
    id.root = root;
    return id;
}

int tern_coll_inquiries(struct tern_comm *comm, const struct tern_coll_stamp *c, int *from,
                        char *why, size_t len)
{
    struct tern_coll_call_id mine = call_id(c->tag, c->root);
    int tag = notice_tag(c, tern_coll_signature_inquiry());
    struct inquiry q;
    long n;
    while ((n = tern_p2p_take_unexp(comm, comm->ctx + 1, tag, &q, sizeof q, from)) != -1) {
        /* Dropped: not an inquiry, or one about a call long past whose
         * number had the same 20 bits, or one about this very call. */
        if (n != (long)sizeof q || q.seq != c->seq)
            continue;
        struct tern_coll_call_id theirs = call_id(q.tag, q.root);
        if (theirs.kind == mine.kind && theirs.algo == mine.algo && theirs.root == mine.root)
            continue;
        return tern_coll_explain_conflict(&mine, &theirs, *from, why, len);
    }
    return 0;
}

void tern_coll_inquiries_after(struct tern_comm *comm, const struct tern_coll_stamp *c,
                               const char *call)
{
    char why[400];
    int from, rc;
    while ((rc = tern_coll_inquiries(comm, c, &from, why, sizeof why))) {
        tern_log("%s on %s (completed on this rank): %s",
                 call ? call : "a collective run inside another MPI call",
                 tern_comm_label(comm), why);
        struct tern_request *r = NULL;
        if (!tern_coll_notify_failure(comm, c, rc, from, &r) && r)
            tern_p2p_abandon(r);
    }
}
