/*
 * Notices between ranks that made different collective calls (notice.h).
 */
#include "collectives/notice.h"
#include "collectives/signature.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/p2p/p2p.h"

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

void tern_coll_announce_failure(struct tern_comm *comm, const struct tern_coll_stamp *c,
                                int code)
{
    for (int q = 0; q < comm->size; q++) {
        struct tern_request *r = NULL;
        if (q != comm->rank && !tern_coll_notify_failure(comm, c, code, q, &r) && r)
            tern_p2p_abandon(r);
    }
}

/* What an inquiry says. */
struct inquiry {
    uint64_t seq;    /* The call's whole number on the communicator. */
    int32_t tag;     /* Its tag: its signature. */
    int32_t root;    /* Its root, whole (the tag has two bits of it). */
};

void tern_coll_inquire(struct tern_comm *comm, const struct tern_coll_stamp *c, int peer)
{
    struct inquiry q = { .seq = c->seq, .tag = c->tag, .root = c->root };
    struct tern_request *r = NULL;
    if (!tern_p2p_isend(&q, sizeof q, tern_dtype_get(MPI_BYTE), peer,
                        notice_tag(c, tern_coll_signature_inquiry()), comm, comm->ctx + 1,
                        TERN_SEND_STANDARD, &r) && r)
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
