/*
 * The schedule engine (see sched.h): running a schedule, round by round,
 * blocking or from the progress engine, and completing its request.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives/sched.h"
#include "collectives/sched_int.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"
#include "libmpi/core/request.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

/* Schedules that have started and not completed, advanced by the hook. */
static struct tern_sched *active;

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
            rc = tern_p2p_isend(st->src, st->count, st->dt, st->peer, s->tag, s->comm,
                                s->ctx, TERN_SEND_STANDARD, &r);
            break;
        case TERN_STEP_RECV:
            rc = tern_p2p_irecv(st->dst, st->count, st->dt, st->peer, s->tag, s->comm,
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
        if (!s->reqs[i]->done)
            return 0;
    for (int i = 0; i < s->nreqs; i++) {
        note_error(s, request_error(s->reqs[i]));
        tern_request_free(s->reqs[i]);
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

static void complete(struct tern_sched *s)
{
    struct tern_request *r = s->req;
    r->error = s->error;
    r->done = 1;
    if (r->user_freed)
        tern_request_free(r);
    tern_sched_free(s);
}

/* The progress hook: advances every active schedule once. */
static int progress_all(void)
{
    int n = 0;
    struct tern_sched **pp = &active;
    while (*pp) {
        struct tern_sched *s = *pp;
        if (advance(s)) {
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
    return advance(((struct blocking_wait *)arg)->s);
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
    if (advance(s)) {
        complete(s);
        return 0;
    }
    s->next = active;
    active = s;
    tern_progress_set_hook(progress_all);
    return 0;
}
