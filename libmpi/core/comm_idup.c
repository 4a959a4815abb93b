/*
 * MPI_Comm_idup: duplicating a communicator without blocking.
 *
 * A duplicate needs context ids that none of its members has used
 * (comm.h). The blocking creations offer their next_ctx and take the
 * largest offer M in one collective, during which the process creates
 * nothing else. A nonblocking duplication cannot work that way: while it
 * runs, the same process may start a blocking creation, whose agreed M is
 * only known at its end. Taking ids from the same counter would let the two
 * agree on the same ids; holding the nonblocking one back while a blocking
 * one is open would deadlock a valid program (rank A: idup, dup, wait;
 * rank B: idup, wait, dup). So MPI_Comm_idup takes its ids from a space of
 * its own, from TERN_CTX_NB_BASE up, with its own counter next_nb_ctx, and
 * only idups started on the same process, whose order is not fixed, compete
 * there. They agree in rounds, each a nonblocking allreduce (maximum) of
 * two ints on the parent, all on the one tag the call took (rounds between
 * two ranks stay in order):
 *
 *   round 0: each member offers its next_nb_ctx; M0 is the largest offer;
 *   after round k each member takes Mk if its next_nb_ctx is still <= Mk
 *   (it then sets next_nb_ctx = Mk + 3), and round k + 1 carries its
 *   next_nb_ctx and whether it could not take Mk. When every member took
 *   it, Mk is the new communicator's; otherwise all try M(k + 1). Ids taken
 *   in a failed round are never used (ids are never reused anyway).
 *
 * A retry needs two idups in flight on one process, so the usual cost is
 * two allreduces of 8 bytes. The rounds are a schedule
 * (collectives/sched.h) that adds its next round from a CALL step,
 * advanced by the progress engine like any nonblocking collective.
 *
 * An intercommunicator's duplicate takes TERN_INTER_CTX_STEPS times as
 * many ids (comm.h), and its rounds run over its intracommunicator over
 * both groups, whose call numbers its collectives take too, so both groups
 * agree on the largest next_nb_ctx of all their members.
 *
 * The new communicator exists from the call on (handle, group, error
 * handler, attributes copied as for MPI_Comm_dup), on placeholder ids that
 * never carry traffic; it gets its ids when the request completes. Using it
 * before that is erroneous, as the standard says.
 */
#include "collectives/algo.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"
#include "libmpi/core/request.h"
#include "libmpi/core/topo.h"
#include "tern/err.h"

/* Ids no creation ever takes (both spaces end below them), enough for an
 * intercommunicator. */
#define PENDING_CTX (UINT32_MAX - TERN_INTER_CTX_STEPS * TERN_CTX_STEP + 1)

/* What a member says about the previous round's M. */
enum { TOOK_IT = 0, RETRY = 1, GIVE_UP = 2 };

struct idup {
    struct tern_comm *via, *dup;   /* The rounds run over via. */
    int steps;                     /* TERN_CTX_STEPs the duplicate takes. */
    int out[2], in[2];      /* {next_nb_ctx, verdict}, and their maxima. */
    int round;
    uint32_t m;             /* The previous round's M. */
};

static void decide(struct tern_sched *s, void *arg);

/* One round: the allreduce, then decide() on its result. */
static void add_round(struct tern_sched *s, struct idup *d, int verdict)
{
    d->out[0] = (int)tern_comm_next_nb_ctx();
    d->out[1] = verdict;
    struct tern_coll_args a = {
        .kind = TERN_COLL_ALLREDUCE, .comm = d->via, .size = d->via->size,
        .rank = d->via->rank, .sbuf = d->out, .rbuf = d->in, .scount = 2, .rcount = 2,
        .sdt = tern_dtype_get(MPI_INT), .rdt = tern_dtype_get(MPI_INT),
        .op = tern_op_get(MPI_MAX),
    };
    tern_coll_allreduce_recursive_doubling(s, &a);
    tern_sched_round(s);
    tern_sched_call(s, decide, d);
    tern_sched_round(s);
}

static void decide(struct tern_sched *s, void *arg)
{
    struct idup *d = arg;
    if (d->round > 0 && d->in[1] == TOOK_IT) {
        tern_comm_set_ids(d->dup, d->m);
        return;
    }
    if (d->in[1] == GIVE_UP) {
        s->error = TERN_EOTHER;
        return;
    }
    d->m = (uint32_t)d->in[0];
    int verdict = RETRY;
    if (d->m >= tern_comm_next_nb_ctx()) {
        verdict = TOOK_IT;
        for (int k = 0; k < d->steps && verdict == TOOK_IT; k++)
            if (tern_comm_take_nb_ctx(d->m + (uint32_t)k * TERN_CTX_STEP))
                verdict = GIVE_UP;
    }
    d->round++;
    add_round(s, d, verdict);
}

int tern_comm_idup(struct tern_comm *parent, struct tern_comm **out,
                   struct tern_request **req)
{
    struct tern_comm *c = NULL;
    *out = NULL;
    int rc = parent->remote ? tern_intercomm_dup_on(parent, PENDING_CTX, &c)
                            : tern_comm_new(parent, parent->group, PENDING_CTX, &c);
    if (!rc)
        rc = tern_attr_copy(&parent->attrs, TERN_ATTR_COMM, (void *)parent->handle,
                            &c->attrs, (void *)c->handle);
    if (!rc)
        rc = tern_topo_dup(parent->topo, &c->topo);
    struct tern_comm *via = parent->remote ? parent->both : parent;
    struct tern_sched *s = rc ? NULL : tern_sched_new(via);
    struct idup *d = s ? tern_sched_scratch(s, sizeof *d) : NULL;
    if (!d) {
        if (s)
            tern_sched_free(s);
        if (c)
            tern_comm_discard(c);
        return rc ? rc : TERN_ENOMEM;
    }
    *d = (struct idup){ .via = via, .dup = c,
                        .steps = parent->remote ? TERN_INTER_CTX_STEPS : 1 };
    add_round(s, d, TOOK_IT);
    rc = tern_sched_start(s, req);
    if (rc) {
        tern_comm_discard(c);
        return rc;
    }
    /* Where the rounds run over an intercommunicator's `both`, the request
     * still names the intercommunicator, as its nonblocking collectives'
     * do (collectives/coll.c). */
    tern_request_hold_comm(*req, parent);
    *out = c;
    return 0;
}
