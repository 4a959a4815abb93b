/*
 * The schedule engine (see sched.h): running a schedule, round by round,
 * blocking or from the progress engine, and completing its request.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/sched.h"
#include "collectives/sched_int.h"
#include "collectives/notice.h"
#include "collectives/signature.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"
#include "libmpi/core/request.h"
#include "libmpi/p2p/p2p.h"
#include "tern/clock.h"
#include "tern/err.h"
#include "tern/log.h"

/* Schedules that have started and not completed, advanced by the hook;
 * and a nonblocking one on its first advance, not yet among them. */
static struct tern_sched *active;
static const struct tern_sched *starting;

/* Copies between two typed buffers through the packed form. */
static int copy_typed(const struct tern_step *st)
{
    size_t bytes = st->count * st->dt->size;
    size_t room = st->dcount * st->ddt->size;
    int rc = bytes > room ? TERN_ETRUNCATE : 0;
    if (bytes > room)
        bytes = room;
    if (bytes == 0)
        return rc;
    int scontig = tern_dtype_contig(st->dt, st->count);
    int dcontig = tern_dtype_contig(st->ddt, st->dcount);
    if (scontig && dcontig) {
        memmove((char *)st->dst + st->ddt->true_lb,
                (const char *)st->src + st->dt->true_lb, bytes);
        return rc;
    }
    void *tmp = malloc(st->count * st->dt->size);
    if (!tmp)
        return TERN_ENOMEM;
    tern_dtype_pack(st->dt, st->src, st->count, tmp);
    tern_dtype_unpack(st->ddt, tmp, bytes, st->dst);
    free(tmp);
    return rc;
}

static void note_error(struct tern_sched *s, int rc)
{
    if (rc && !s->error)
        s->error = rc;
}

/* A finished request's error, for its schedule. A receive that got fewer
 * bytes than it was posted for is one too: the counts and datatypes that
 * the ranks pass fix every message of a collective exactly, so a shorter
 * one means that they passed different ones (its sender's peer in the
 * other direction sees a longer one as truncated), and the rest of the
 * receive buffer would keep whatever it held. */
static int request_error(const struct tern_request *r)
{
    if (r->error || r->kind != TERN_REQ_RECV)
        return r->error;
    return r->st_bytes < r->len ? TERN_ETRUNCATE : 0;
}

/* Whether a POLL step passed since the progress hook last asked, so that
 * a wait that only polls shared memory counts as progress. */
static int polls_passed;

/* Runs the local steps of round `cur` and posts its sends and receives,
 * from where a POLL step stopped it last time; s->posted says whether it
 * got to the end. */
static void post_round(struct tern_sched *s)
{
    int end = s->round_end[s->cur];
    for (int i = s->next_local; i < end; i++) {
        const struct tern_step *st = &s->steps[i];
        struct tern_request *r = NULL;
        int rc = 0;
        switch (st->kind) {
        case TERN_STEP_POLL:
            rc = st->poll(s, st->dst);
            if (rc == 0) {
                s->next_local = i;
                return;
            }
            polls_passed = 1;
            rc = rc < 0 ? rc : 0;
            break;
        case TERN_STEP_COPY:
            rc = copy_typed(st);
            break;
        case TERN_STEP_REDUCE:
            rc = tern_op_reduce(st->op, st->src, st->dst, st->count, st->dt);
            break;
        case TERN_STEP_CALL:
            /* It may add steps, which moves s->steps: st is not used after. */
            st->call(s, st->dst);
            break;
        case TERN_STEP_SEND:
            /* After an error, a failure notice in place of the data. */
            if (s->error)
                rc = tern_coll_notify_failure(s->comm, &s->stamp, s->error, st->peer, &r);
            else
                rc = tern_p2p_isend(st->src, st->count, st->dt, st->peer, s->stamp.tag, s->comm,
                                    s->ctx, TERN_SEND_STANDARD, &r);
            break;
        case TERN_STEP_RECV:
            rc = tern_p2p_irecv(st->dst, st->count, st->dt, st->peer, s->stamp.tag, s->comm,
                                s->ctx, &r);
            break;
        }
        note_error(s, rc);
        if (!r)
            continue;
        if (s->nreqs == s->reqcap &&
            tern_sched_grow((void **)&s->reqs, &s->reqcap, sizeof(*s->reqs), s->inline_reqs)) {
            /* Without room to track it, wait for it here. */
            tern_p2p_wait(r);
            note_error(s, request_error(r));
            tern_request_free(r);
            continue;
        }
        s->reqs[s->nreqs++] = r;
    }
    s->next_local = end;
    s->posted = 1;
}

/* Retires the round's requests once all are done; 1 if the round ended. */
static int round_done(struct tern_sched *s)
{
    for (int i = 0; i < s->nreqs; i++)
        if (tern_p2p_uses_buffer(s->reqs[i]))
            return 0;
    for (int i = 0; i < s->nreqs; i++) {
        struct tern_request *r = s->reqs[i];
        note_error(s, request_error(r));
        if (r->done)
            tern_request_free(r);
        else
            tern_p2p_abandon(r);   /* A send that give_up() kept. */
    }
    s->nreqs = 0;
    s->posted = 0;
    s->cur++;
    return 1;
}

/* Advances s as far as it goes without waiting; 1 when it completed. */
static int advance(struct tern_sched *s)
{
    while (s->cur < s->nrounds) {
        if (!s->posted)
            post_round(s);
        if (!s->posted || !round_done(s))
            return 0;
    }
    return 1;
}

/* Advances that must find a schedule waiting before it looks for a
 * mismatched call: a peer that is merely behind never costs the search. */
#define STALLS_BEFORE_CHECK 16

/* Gives up a schedule whose call failed with error rc, because another
 * rank made another call or failed in this one, which `why` explains (the
 * failure of another rank only at verbose level 1: that rank says why);
 * then:
 * - receives the messages of this call that wait here, of any signature,
 *   and drops them, so that their senders are not left waiting for a
 *   receive and none of them stays behind;
 * - cancels the round's receives that have not matched (none ever will),
 *   lets those that matched finish (their data is on the way, into
 *   buffers the call must not leave to them), and leaves its sends in
 *   flight to finish from copies of their own, MPI_Finalize not waiting
 *   for them (tern_p2p_abandon); a send whose receiver may still read the
 *   caller's buffer through the transport is kept until it cannot
 *   (tern_p2p_release);
 * - sends every other rank a failure notice (notice.h), which fails the
 *   call on any rank that waits for this one in any way (a rank whose
 *   call ends without it keeps the message: after an error the
 *   communicator is left as MPI leaves it, undefined);
 * - skips the rounds left, so that the call completes with the error once
 *   the receives under way are in. */
static void give_up(struct tern_sched *s, int rc, const char *why, int failure)
{
    const char *call = s->call ? s->call : "a collective run inside another MPI call";
    if (!failure)
        tern_log("%s on %s: %s", call, tern_comm_label(s->comm), why);
    else
        TERN_LOG(1, "%s on %s: %s", call, tern_comm_label(s->comm), why);
    note_error(s, rc);
    int kept = 0;
    for (int i = 0; i < s->nreqs; i++) {
        struct tern_request *r = s->reqs[i];
        tern_p2p_cancel(r);
        if ((r->kind == TERN_REQ_RECV && !r->done) || tern_p2p_release(r))
            s->reqs[kept++] = r;
        else
            tern_p2p_abandon(r);
    }
    tern_coll_fail_call(s->comm, &s->stamp, s->error);
    /* The receives kept make the last round, which is not posted again. */
    s->nreqs = kept;
    s->posted = 1;
    s->cur = s->nrounds - 1;
    s->given_up = 1;
}

/* Whether a message from `peer` that arrived unexpected shows that peer
 * made another call (signature.h), or failed in this one; gives up the
 * schedule if so. */
static int conflict_from(struct tern_sched *s, int peer)
{
    char why[400];
    int from, failure, rc = tern_coll_conflict(s->comm, &s->stamp, peer, &from, &failure, why,
                                               sizeof why);
    if (rc)
        give_up(s, rc, why, failure);
    return rc != 0;
}

/* Whether request r of the round is one whose peer has not taken part in
 * it yet, as far as this rank knows: a receive that no message matched
 * (a long one under way is not asked about) or a send that no receive
 * matched. */
static int unmatched(const struct tern_request *r)
{
    return tern_p2p_recv_unmatched(r) || tern_p2p_send_unmatched(r);
}

/* Whether an earlier request of the round than i that is unmatched has
 * the peer that request i has. */
static int peer_seen(const struct tern_sched *s, int i)
{
    for (int j = 0; j < i; j++)
        if (unmatched(s->reqs[j]) && s->reqs[j]->rank == s->reqs[i]->rank)
            return 1;
    return 0;
}

/* Once the schedule has waited TERN_COLL_INQUIRE_AFTER_NS in one round,
 * sends each rank whose part it still waits for (unmatched()) an inquiry
 * (notice.h), and again each time the wait has doubled: a rank that was in
 * this very call when the inquiry came and then completed it without the
 * message answers only the next one. A wait of T seconds sends about
 * log2(20 T) inquiries to each rank it waits for. */
static void inquire(struct tern_sched *s)
{
    int round = s->cur + 1;
    uint64_t now = tern_clock_ns();
    if (s->waited_round != round) {
        s->waited_round = round;
        s->waited_since = now;
        s->inquire_at = TERN_COLL_INQUIRE_AFTER_NS;
        return;
    }
    uint64_t waited = now - s->waited_since;
    if (waited < s->inquire_at)
        return;
    s->inquire_at = 2 * waited;
    for (int i = 0; i < s->nreqs; i++)
        if (unmatched(s->reqs[i]) && !peer_seen(s, i)) {
            s->inquired = 1;
            TERN_LOG(2, "%s on %s: waited %d ms in round %d for rank %d; asking it which "
                     "call it is in", s->call ? s->call : "a collective",
                     tern_comm_label(s->comm), (int)(waited / 1000000), round,
                     s->reqs[i]->rank);
            tern_coll_inquire(s->comm, &s->stamp, s->reqs[i]->rank);
        }
}

/* Whether the round waits for a message from rank `peer` that no message
 * matched. */
static int waits_for(void *arg, int peer)
{
    const struct tern_sched *s = arg;
    for (int i = 0; i < s->nreqs; i++)
        if (tern_p2p_recv_unmatched(s->reqs[i]) && s->reqs[i]->rank == peer)
            return 1;
    return 0;
}

/* For a schedule that waits for messages of its round: inquires after a
 * long wait, and once new messages arrived unexpected, looks among them
 * for an inquiry about another call, from any rank, and for a message from
 * a rank it still exchanges messages with (in this round or a later one)
 * that is of the same call but has another signature. 1 if it found one
 * and gave up. */
static int mismatched(struct tern_sched *s)
{
    if (s->given_up || !s->posted || ++s->stalls < STALLS_BEFORE_CHECK)
        return 0;
    inquire(s);
    unsigned long n = tern_p2p_unexp_arrivals();
    if (n == s->arrivals_seen)
        return 0;
    s->arrivals_seen = n;
    /* First, as they have another signature too. */
    char why[400];
    int from, rc = tern_coll_inquiries(s->comm, &s->stamp, &from, why, sizeof why);
    if (rc) {
        give_up(s, rc, why, 0);
        return 1;
    }
    for (int i = 0; i < s->nreqs; i++)
        if (!s->reqs[i]->done && conflict_from(s, s->reqs[i]->rank))
            return 1;
    for (int i = s->round_end[s->cur]; i < s->nsteps; i++)
        if ((s->steps[i].kind == TERN_STEP_RECV || s->steps[i].kind == TERN_STEP_SEND) &&
            conflict_from(s, s->steps[i].peer))
            return 1;
    /* Last: a rank that failed in this call and then answered that it
     * completed it is reported for its failure, which came first. */
    rc = tern_coll_answers(s->comm, &s->stamp, waits_for, s, why, sizeof why);
    if (rc)
        give_up(s, rc, why, 0);
    return rc != 0;
}

/* Advances s (see advance()), or ends it on a mismatched call; 1 when it
 * completed. */
static int advance_checked(struct tern_sched *s)
{
    return advance(s) || (mismatched(s) && advance(s));
}

/* What a schedule does with the notices about it as it ends: an answer
 * to its inquiries that says its messages were dropped fails it (the
 * answer came before the drop that let its sends complete), and the
 * inquiries that wait here get their answers. */
static void finish(struct tern_sched *s)
{
    char why[400];
    int rc;
    if (s->inquired && !s->error &&
        (rc = tern_coll_answers(s->comm, &s->stamp, waits_for, s, why, sizeof why))) {
        tern_log("%s on %s: %s", s->call ? s->call : "a collective run inside another MPI call",
                 tern_comm_label(s->comm), why);
        note_error(s, rc);
    }
    tern_coll_inquiries_after(s->comm, &s->stamp, s->call);
}

static void complete(struct tern_sched *s)
{
    finish(s);
    if (s->error)
        s->comm->coll_failed = 1;
    struct tern_request *r = s->req;
    r->error = s->error;
    r->done = 1;
    if (r->user_freed)
        tern_request_free(r);
    tern_sched_free(s);
}

int tern_sched_active(const struct tern_comm *comm, uint64_t seq)
{
    if (starting && starting->comm == comm && starting->stamp.seq == seq)
        return 1;
    for (const struct tern_sched *s = active; s; s = s->next)
        if (s->comm == comm && s->stamp.seq == seq)
            return 1;
    return 0;
}

/* The progress hook: advances every active schedule once. */
static int progress_all(void)
{
    int n = 0;
    struct tern_sched **pp = &active;
    while (*pp) {
        struct tern_sched *s = *pp;
        if (advance_checked(s)) {
            *pp = s->next;
            complete(s);
            n++;
        } else {
            pp = &s->next;
        }
    }
    if (!active)
        tern_progress_set_hook(NULL);
    n += polls_passed;
    polls_passed = 0;
    return n;
}

struct blocking_wait {
    struct tern_sched *s;
};

static int blocking_done(void *arg)
{
    return advance_checked(((struct blocking_wait *)arg)->s);
}

/* snprintf's length, kept below len. */
static size_t clamp(int n, size_t off, size_t len)
{
    size_t end = off + (n > 0 ? (size_t)n : 0);
    return end < len ? end : len - 1;
}

size_t tern_sched_report_start(char *buf, size_t len, const char *call,
                               const struct tern_comm *comm, const char *where)
{
    int n = call ? snprintf(buf, len, "%s on %s (%s", call, tern_comm_label(comm), where)
                 : snprintf(buf, len, "a collective that Tern runs inside another MPI call, "
                            "on %s (%s", tern_comm_label(comm), where);
    return clamp(n, 0, len);
}

size_t tern_sched_report_rank(char *buf, size_t len, size_t off, int *shown, int rank,
                              const char *what)
{
    int n;
    if (*shown == 8)
        n = snprintf(buf + off, len - off, ", ...");
    else if (*shown < 8)
        n = snprintf(buf + off, len - off, "%s rank %d to %s", *shown ? "," : ", for", rank,
                     what);
    else
        return off;
    ++*shown;
    return clamp(n, off, len);
}

/* For the report of a long wait: the call, its communicator, the round,
 * and the peers of its unfinished messages (none: it waits in shared
 * memory). */
static void describe(void *arg, char *buf, size_t len)
{
    const struct tern_sched *s = ((struct blocking_wait *)arg)->s;
    char round[48];
    snprintf(round, sizeof round, "round %d of %d", s->cur + 1, s->nrounds);
    size_t off = tern_sched_report_start(buf, len, s->call, s->comm, round);
    int shown = 0;
    for (int i = 0; i < s->nreqs; i++)
        if (!s->reqs[i]->done)
            off = tern_sched_report_rank(buf, len, off, &shown, s->reqs[i]->rank,
                                         s->reqs[i]->kind == TERN_REQ_RECV ? "send" : "receive");
    snprintf(buf + off, len - off, "%s)", shown ? "" : ", through shared memory");
}

int tern_sched_start(struct tern_sched *s, struct tern_request **out)
{
    s->comm->coll_recent[s->stamp.seq % TERN_COLL_RECENT] = s->stamp;
    tern_sched_round(s);
    if (s->error) {
        int rc = s->error;
        tern_sched_free(s);
        return rc;
    }
    if (!out) {
        /* Blocking: the caller's wait drives this schedule directly. */
        struct blocking_wait w = { s };
        if (!advance(s))
            tern_p2p_wait_described(blocking_done, &w, describe);
        finish(s);
        int rc = s->error;
        tern_sched_free(s);
        return rc;
    }
    struct tern_request *r = tern_request_alloc(TERN_REQ_COLL);
    if (!r) {
        tern_sched_free(s);
        return TERN_ENOMEM;
    }
    tern_request_hold_comm(r, s->comm);
    r->call = s->call;
    s->req = r;
    *out = r;
    /* Its first advance may wait (no memory to track a request: post_round),
     * and a wait answers inquiries about completed calls, which this one
     * is not. */
    const struct tern_sched *outer = starting;
    starting = s;
    int done = advance(s);
    starting = outer;
    if (done) {
        complete(s);
        return 0;
    }
    s->next = active;
    active = s;
    tern_progress_set_hook(progress_all);
    return 0;
}
