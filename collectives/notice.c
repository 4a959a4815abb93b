/*
 * Notices between ranks that made different collective calls (notice.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/notice.h"
#include "collectives/retired.h"
#include "collectives/sched.h"
#include "collectives/signature.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/object.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"
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
    tern_p2p_discard_unexp(comm, comm->ctx + 1, -1, c->tag, TERN_COLL_SEQ_MASK);
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
    /* Inquiries and answers are taken first (tern_coll_inquiries,
     * tern_coll_answers); one left (no memory to take it in) decides
     * nothing. */
    int sig = theirs & ~TERN_COLL_SEQ_MASK;
    if (theirs < 0 || sig == tern_coll_signature_inquiry() ||
        sig == tern_coll_signature_completed())
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

/* What the answer about a completed call says. */
struct answer {
    uint64_t seq;        /* The call's whole number, as the inquiry said. */
    uint32_t dropped;    /* Messages of the call from the inquirer that the
                            call did not take, dropped when it answered. */
    uint32_t never;      /* The rank never made the call and never will:
                            NEVER_FINALIZED or NEVER_FREED (else 0)... */
    uint64_t made;       /* ... after this many calls on the communicator. */
};

enum { NEVER_FINALIZED = 1, NEVER_FREED = 2 };

/* Set once MPI_Finalize has begun: this rank makes no more calls. */
static int finalizing;

void tern_coll_notices_finalizing(void)
{
    finalizing = 1;
}

/* Sends `len` bytes at m, tagged for call number seq with `signature`, on
 * collective context ctx to world rank `world`, as rank `as` there, and
 * leaves the send to finish on its own. No communicator is needed: an
 * answer may be about one that this rank has destroyed. */
static void send_notice(uint32_t ctx, int world, int as, uint64_t seq, int signature,
                        const void *m, size_t len)
{
    /* On the heap, freed with the request. */
    void *copy = malloc(len);
    if (!copy)
        return;
    memcpy(copy, m, len);
    int tag = (int)(seq & TERN_COLL_SEQ_MASK) | signature;
    struct tern_request *r;
    if (tern_p2p_isend_as(copy, len, world, as, ctx, tag, &r)) {
        free(copy);
        return;
    }
    r->owned = copy;
    tern_p2p_abandon(r);
}

void tern_coll_inquire(struct tern_comm *comm, const struct tern_coll_stamp *c, int peer)
{
    struct inquiry q = { .seq = c->seq, .tag = c->tag, .root = c->root };
    send_notice(comm->ctx + 1, comm->world[peer], comm->rank, c->seq,
                tern_coll_signature_inquiry(), &q, sizeof q);
}

static struct tern_coll_call_id call_id(int tag, int root)
{
    struct tern_coll_call_id id = tern_coll_call_id_of(tag);
    id.root = root;
    return id;
}

/* Messages of one call from one rank that no receive took. */
struct unread {
    uint32_t ctx;
    int src, bits;
    uint32_t n;
};

static int count_unread(const struct tern_unexp_info *m, void *arg)
{
    struct unread *u = arg;
    if (m->ctx == u->ctx && m->src == u->src && (m->tag & TERN_COLL_SEQ_MASK) == u->bits &&
        !tern_coll_tag_is_notice(m->tag))
        u->n++;
    return 0;
}

/* Where an inquiry came from: rank src (world rank `world`) of the
 * communicator whose collective context is ctx, in which this rank is
 * rank `as` and has made `made` collective calls; comm is that
 * communicator, or NULL if this rank destroyed it. `never` says that
 * this rank never made the call asked about and never will (set only by
 * answer_stale(), which alone answers about calls not made). */
struct asker {
    struct tern_comm *comm;
    uint32_t ctx;
    int as, src, world;
    uint64_t made;
    uint32_t never;
};

static struct asker asker_on(struct tern_comm *comm, int src)
{
    return (struct asker){ comm, comm->ctx + 1, comm->rank, src, comm->world[src],
                           comm->coll_seq, 0 };
}

/* Answers inquiry q from `from` about a call that has completed on this
 * rank (`call`: its MPI function, if known), with how many messages of
 * the call from that rank wait here, which no call of this rank will
 * take; then drops them, and says so, and drops that rank's other
 * inquiries about the call (one answer does for all). The answer goes
 * first: the inquirer's sends of those messages complete only once they
 * are dropped, and by then it has the answer, which fails its call. */
static void answer(const struct asker *from, const struct inquiry *q, const char *call)
{
    int bits = (int)(q->seq & TERN_COLL_SEQ_MASK);
    struct unread u = { from->ctx, from->src, bits, 0 };
    tern_p2p_unexp_each(count_unread, &u);
    struct answer a = { .seq = q->seq, .dropped = u.n, .never = from->never,
                        .made = from->made };
    send_notice(from->ctx, from->world, from->as, q->seq, tern_coll_signature_completed(), &a,
                sizeof a);
    tern_p2p_discard_unexp(from->comm, from->ctx, from->src, bits, TERN_COLL_SEQ_MASK);
    if (!a.dropped)
        return;
    if (a.never) {
        tern_log("%s: rank %d sent this rank %u message(s) of %s, a collective call this rank "
                 "never made there; they are dropped and rank %d's call fails",
                 from->comm ? tern_comm_label(from->comm) : "a communicator freed since",
                 from->src, a.dropped, tern_coll_tag_call(q->tag), from->src);
        return;
    }
    tern_log("%s on %s (completed on this rank): rank %d sent this rank %u message(s) of this "
             "call that the call did not receive: the ranks passed counts or types that do "
             "not match, or made different calls; the messages are dropped and rank %d's call "
             "fails", call ? call : tern_coll_tag_call(q->tag),
             from->comm ? tern_comm_label(from->comm) : "a communicator freed since",
             from->src, a.dropped, from->src);
}

/* Takes the earliest inquiry for call c that waits at this rank; its
 * sender in *from. 0 when there is none; one about an older call whose
 * number had the same low bits is taken too (*q says which). */
static int take_inquiry(struct tern_comm *comm, const struct tern_coll_stamp *c,
                        struct inquiry *q, int *from)
{
    int tag = notice_tag(c, tern_coll_signature_inquiry());
    long n;
    while ((n = tern_p2p_take_unexp(comm, comm->ctx + 1, MPI_ANY_SOURCE, tag, q, sizeof *q,
                                    from)) != -1)
        if (n == (long)sizeof *q)
            return 1;
    return 0;
}

/* Whether inquiry q names another call than c: how they differ goes into
 * why, and the error into *rc. */
static int names_another(const struct tern_coll_stamp *c, const struct inquiry *q, int from,
                         int *rc, char *why, size_t len)
{
    struct tern_coll_call_id mine = call_id(c->tag, c->root), theirs = call_id(q->tag, q->root);
    if (theirs.kind == mine.kind && theirs.algo == mine.algo && theirs.root == mine.root)
        return 0;
    *rc = tern_coll_explain_conflict(&mine, &theirs, from, why, len);
    return 1;
}

int tern_coll_inquiries(struct tern_comm *comm, const struct tern_coll_stamp *c, int *from,
                        char *why, size_t len)
{
    struct inquiry q;
    int rc;
    /* Dropped: one about an older call whose number had the same low
     * bits, or one about this very call. */
    while (take_inquiry(comm, c, &q, from))
        if (q.seq == c->seq && names_another(c, &q, *from, &rc, why, len))
            return rc;
    return 0;
}

/* Responds to inquiry q from `from` about a call that has completed on
 * this rank, whose stamp is `mine` (NULL: not known any more; `call`: its
 * MPI function, if known): with a failure notice if q names another call,
 * after a line that says how the calls differ; else with the answer that
 * the call completed here. */
static void respond(const struct asker *from, const struct tern_coll_stamp *mine,
                    const struct inquiry *q, const char *call)
{
    char why[400];
    int rc;
    if (!mine || !names_another(mine, q, from->src, &rc, why, sizeof why)) {
        answer(from, q, call);
        return;
    }
    tern_log("%s on %s (completed on this rank): %s", call ? call : tern_coll_tag_call(mine->tag),
             tern_comm_label(from->comm), why);
    struct tern_request *r = NULL;
    if (!tern_coll_notify_failure(from->comm, mine, rc, from->src, &r) && r)
        tern_p2p_abandon(r);
}

void tern_coll_inquiries_after(struct tern_comm *comm, const struct tern_coll_stamp *c,
                               const char *call)
{
    struct inquiry q;
    int from;
    while (take_inquiry(comm, c, &q, &from))
        if (q.seq == c->seq) {
            struct asker a = asker_on(comm, from);
            respond(&a, c, &q, call ? call : "a collective run inside another MPI call");
        }
}

int tern_coll_answers(struct tern_comm *comm, const struct tern_coll_stamp *c,
                      int (*waits_for)(void *arg, int rank), void *arg, char *why, size_t len)
{
    int tag = notice_tag(c, tern_coll_signature_completed());
    struct answer a;
    int from;
    long n;
    while ((n = tern_p2p_take_unexp(comm, comm->ctx + 1, MPI_ANY_SOURCE, tag, &a, sizeof a,
                                    &from)) != -1) {
        /* The rank sent its messages of the call before the answer, and
         * they came in order: a receive from it that none matched waits
         * for a message that will never come. */
        if (n != (long)sizeof a || a.seq != c->seq ||
            (!a.never && !a.dropped && !waits_for(arg, from)))
            continue;
        if (a.never) {
            snprintf(why, len, "rank %d made %llu collective call(s) on this communicator and "
                     "then %s; this call is number %llu there: " TERN_COLL_SAME_CALLS, from,
                     (unsigned long long)a.made,
                     a.never == NEVER_FREED ? "freed it" : "called MPI_Finalize",
                     (unsigned long long)c->seq + 1);
            return TERN_EOTHER;
        }
        if (a.dropped)
            snprintf(why, len, "rank %d completed its part of this call without receiving %u "
                     "message(s) that this rank sent it: the ranks passed counts or types that "
                     "do not match, or made different calls", from, a.dropped);
        else
            snprintf(why, len, "rank %d completed its part of this call without sending the "
                     "message that this rank waits for: the ranks passed counts or types that "
                     "do not match (a rank that passes a count of 0 sends nothing), or made "
                     "different calls", from);
        return TERN_ETRUNCATE;
    }
    return 0;
}

struct by_ctx {
    uint32_t ctx;
    struct tern_comm *comm;
};

static void find_comm(struct tern_comm *c, void *arg)
{
    struct by_ctx *b = arg;
    if (c->ctx + 1 == b->ctx)
        b->comm = c;
}

/* Whether call number seq of comm has completed on this rank (sched.h:
 * a blocking call moves comm->coll_seq on when it ends). */
static int completed(const struct tern_comm *comm, uint64_t seq)
{
    return seq < comm->coll_seq && !tern_sched_active(comm, seq);
}

/* Whether this rank freed comm (MPI_Comm_free): it makes no more calls
 * there, and coll_seq no longer grows. References may remain (requests
 * of calls made before). */
static int freed(const struct tern_comm *comm)
{
    return comm->magic == TERN_MAGIC_DEAD;
}

/* Whether this rank can answer an inquiry about call number seq of comm:
 * the call has completed here, or this rank is in MPI_Finalize or freed
 * comm and will never make it. */
static int answerable(const struct tern_comm *comm, uint64_t seq)
{
    return completed(comm, seq) || ((finalizing || freed(comm)) && seq >= comm->coll_seq);
}

/* The first inquiry that waits here about a call that has completed here
 * (or that this rank never makes: answerable()), or answer about a call
 * that completed here after it inquired. */
struct stale {
    struct asker from;
    int tag;
    int found;
};

static int find_stale(const struct tern_unexp_info *m, void *arg)
{
    int sig = m->tag & ~TERN_COLL_SEQ_MASK;
    uint64_t seq;
    if ((sig != tern_coll_signature_inquiry() && sig != tern_coll_signature_completed()) ||
        !m->data || m->len < sizeof seq)
        return 0;
    memcpy(&seq, m->data, sizeof seq);
    struct by_ctx b = { m->ctx, NULL };
    tern_comm_each(find_comm, &b);
    const struct tern_coll_retired *gone = b.comm ? NULL : tern_coll_retired_find(m->ctx);
    if (b.comm ? !answerable(b.comm, seq) : !gone)
        return 0;
    struct asker from = b.comm ? asker_on(b.comm, m->src)
                               : (struct asker){ NULL, m->ctx, gone->rank, m->src, m->peer,
                                                 gone->coll_seq, 0 };
    *(struct stale *)arg = (struct stale){ from, m->tag, 1 };
    return 1;
}

/* The notice hook (tern_p2p_watch_notices): answers the inquiries about
 * calls that completed here before they came (also on communicators
 * destroyed since), and about calls this rank never made on a
 * communicator it freed, or on any once MPI_Finalize has begun; drops the
 * answers that came after the call that inquired completed. */
static void answer_stale(void)
{
    for (;;) {
        struct stale st = { .found = 0 };
        tern_p2p_unexp_each(find_stale, &st);
        if (!st.found)
            return;
        union {
            struct inquiry q;
            struct answer a;
        } m;
        int from;
        long n = tern_p2p_take_unexp(st.from.comm, st.from.ctx, st.from.src, st.tag, &m,
                                     sizeof m, &from);
        if (n == -1)
            return;    /* No memory to take it in. */
        if ((st.tag & ~TERN_COLL_SEQ_MASK) != tern_coll_signature_inquiry() ||
            n != (long)sizeof m.q || (st.from.comm && !answerable(st.from.comm, m.q.seq)))
            continue;
        /* Here a call not made (a number from coll_seq on) is one this
         * rank never makes: it freed the communicator, or is in
         * MPI_Finalize (answerable()). */
        if (m.q.seq >= st.from.made)
            st.from.never = st.from.comm && !freed(st.from.comm) ? NEVER_FINALIZED
                                                                 : NEVER_FREED;
        /* The call as this rank made it, if it did, lately. */
        const struct tern_coll_stamp *mine = NULL;
        if (st.from.comm && m.q.seq < st.from.comm->coll_seq) {
            mine = &st.from.comm->coll_recent[m.q.seq % TERN_COLL_RECENT];
            if (mine->seq != m.q.seq)
                mine = NULL;
        }
        respond(&st.from, mine, &m.q, NULL);
    }
}

void tern_coll_notices_init(void)
{
    /* The collective's field all ones: a notice (signature.h), which is
     * also the whole of an inquiry's signature. */
    int notice = tern_coll_signature_inquiry();
    tern_p2p_watch_notices(notice, notice, answer_stale);
}
