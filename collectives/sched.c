/*
 * The schedule engine (see sched.h): building a schedule and releasing
 * what it holds. Running it is in sched_run.c.
 */
#include <stdlib.h>
#include <string.h>

#include "collectives/sched.h"
#include "collectives/sched_int.h"
#include "collectives/signature.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"
#include "tern/err.h"


/* Field by field: a memset of the fields compiled to `rep stos`, whose
 * start-up took a sixth of an 8-byte MPI_Bcast (perf, 2 ranks). */
void tern_sched_init(struct tern_sched *s, struct tern_comm *comm)
{
    s->comm = comm;
    s->ctx = comm->ctx + 1;
    s->stamp.seq = comm->coll_seq;
    s->stamp.tag = (int)(s->stamp.seq & TERN_COLL_SEQ_MASK);
    s->stamp.root = 0;
    s->error = 0;
    s->view = NULL;
    s->steps = s->inline_steps;
    s->nsteps = 0;
    s->cap = TERN_SCHED_INLINE_STEPS;
    s->round_end = s->inline_rounds;
    s->nrounds = 0;
    s->rcap = TERN_SCHED_INLINE_STEPS;
    s->cur = 0;
    s->next_local = 0;
    s->posted = 0;
    s->reqs = s->inline_reqs;
    s->nreqs = 0;
    s->reqcap = TERN_SCHED_INLINE_STEPS;
    s->scratch = NULL;
    s->nscratch = 0;
    s->scratchcap = 0;
    s->kept = NULL;
    s->nkept = 0;
    s->keptcap = 0;
    s->kept_op = NULL;
    s->call = NULL;
    s->req = NULL;
    s->next = NULL;
    s->on_heap = 0;
    s->arena_used = 0;
    s->stalls = 0;
    s->arrivals_seen = 0;
    s->waited_round = 0;
    s->waited_since = 0;
    s->inquire_at = 0;
    s->inquired = 0;
    s->given_up = 0;
}

void tern_sched_sign(struct tern_sched *s, const struct tern_coll_stamp *stamp)
{
    s->stamp = *stamp;
}

struct tern_sched *tern_sched_new(struct tern_comm *comm)
{
    struct tern_sched *s = malloc(sizeof(*s));
    if (!s)
        return NULL;
    tern_sched_init(s, comm);
    /* A nonblocking call takes its number at once: others may start
     * before it ends. */
    comm->coll_seq++;
    s->on_heap = 1;
    return s;
}

/* Grows an array that may start as an inline one. */
int tern_sched_grow(void **arr, int *cap, size_t elem, const void *inline_arr)
{
    int ncap = *cap ? *cap * 2 : 8;
    void *n;
    if (*arr == inline_arr) {
        n = malloc((size_t)ncap * elem);
        if (n && *cap)
            memcpy(n, *arr, (size_t)*cap * elem);
    } else {
        n = realloc(*arr, (size_t)ncap * elem);
    }
    if (!n)
        return TERN_ENOMEM;
    *arr = n;
    *cap = ncap;
    return 0;
}

static struct tern_step *add(struct tern_sched *s, int kind)
{
    if (s->error)
        return NULL;
    if (s->nsteps == s->cap &&
        (s->error = tern_sched_grow((void **)&s->steps, &s->cap, sizeof(*s->steps), s->inline_steps)))
        return NULL;
    struct tern_step *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof(*st));
    st->kind = (uint8_t)kind;
    return st;
}

void tern_sched_send(struct tern_sched *s, const void *buf, size_t count,
                     const struct tern_dtype *dt, int peer)
{
    struct tern_step *st = add(s, TERN_STEP_SEND);
    if (st)
        *st = (struct tern_step){ .kind = TERN_STEP_SEND,
                                  .peer = s->view ? s->view[peer] : peer, .src = buf,
                                  .count = count, .dt = dt };
}

void tern_sched_recv(struct tern_sched *s, void *buf, size_t count,
                     const struct tern_dtype *dt, int peer)
{
    struct tern_step *st = add(s, TERN_STEP_RECV);
    if (st)
        *st = (struct tern_step){ .kind = TERN_STEP_RECV,
                                  .peer = s->view ? s->view[peer] : peer, .dst = buf,
                                  .count = count, .dt = dt };
}

void tern_sched_call(struct tern_sched *s, void (*fn)(struct tern_sched *s, void *arg),
                     void *arg)
{
    struct tern_step *st = add(s, TERN_STEP_CALL);
    if (st) {
        st->call = fn;
        st->dst = arg;
    }
}

void tern_sched_poll(struct tern_sched *s, tern_sched_poll_fn *fn, void *arg)
{
    struct tern_step *st = add(s, TERN_STEP_POLL);
    if (st) {
        st->poll = fn;
        st->dst = arg;
    }
}

void tern_sched_view(struct tern_sched *s, const int *ranks)
{
    s->view = ranks;
}

void tern_sched_copy(struct tern_sched *s, const void *src, size_t count,
                     const struct tern_dtype *dt, void *dst, size_t dcount,
                     const struct tern_dtype *ddt)
{
    struct tern_step *st = add(s, TERN_STEP_COPY);
    if (st)
        *st = (struct tern_step){ .kind = TERN_STEP_COPY, .src = src, .count = count,
                                  .dt = dt, .dst = dst, .dcount = dcount, .ddt = ddt };
}

void tern_sched_reduce(struct tern_sched *s, const void *in, void *inout,
                       size_t count, const struct tern_dtype *dt,
                       const struct tern_op *op)
{
    struct tern_step *st = add(s, TERN_STEP_REDUCE);
    if (st)
        *st = (struct tern_step){ .kind = TERN_STEP_REDUCE, .src = in, .dst = inout,
                                  .count = count, .dt = dt, .op = op };
}

void tern_sched_round(struct tern_sched *s)
{
    if (s->error)
        return;
    /* An empty round would only cost a pass of the engine. */
    int start = s->nrounds ? s->round_end[s->nrounds - 1] : 0;
    if (s->nsteps == start)
        return;
    if (s->nrounds == s->rcap &&
        (s->error = tern_sched_grow((void **)&s->round_end, &s->rcap, sizeof(int), s->inline_rounds)))
        return;
    s->round_end[s->nrounds++] = s->nsteps;
}

void *tern_sched_scratch(struct tern_sched *s, size_t bytes)
{
    if (s->error)
        return NULL;
    size_t rounded = (bytes + 15) & ~(size_t)15;
    if (rounded <= TERN_SCHED_ARENA - s->arena_used) {
        void *p = s->arena + s->arena_used;
        s->arena_used += rounded;
        return p;
    }
    if (s->nscratch == s->scratchcap &&
        (s->error = tern_sched_grow((void **)&s->scratch, &s->scratchcap, sizeof(void *), NULL)))
        return NULL;
    void *p = tern_scratch_get(bytes);
    if (!p) {
        s->error = TERN_ENOMEM;
        return NULL;
    }
    s->scratch[s->nscratch++] = p;
    return p;
}

void *tern_sched_scratch_typed(struct tern_sched *s, size_t count,
                               const struct tern_dtype *dt)
{
    if (count == 0)
        return tern_sched_scratch(s, 0);
    /* Element i occupies [i * extent + true_lb, + true_extent); the lowest
     * byte is element 0's, or the last element's when the extent is
     * negative. */
    MPI_Aint last = (MPI_Aint)(count - 1) * dt->extent;
    MPI_Aint low = dt->true_lb + (last < 0 ? last : 0);
    size_t span = (size_t)dt->true_extent + (size_t)(last < 0 ? -last : last);
    char *p = tern_sched_scratch(s, span);
    return p ? p - low : NULL;
}

void tern_sched_keep_dtype(struct tern_sched *s, const struct tern_dtype *dt)
{
    if (!dt || s->error)
        return;
    if (s->nkept == s->keptcap &&
        (s->error = tern_sched_grow((void **)&s->kept, &s->keptcap, sizeof(*s->kept), NULL)))
        return;
    tern_dtype_retain(dt);
    s->kept[s->nkept++] = dt;
}

void tern_sched_keep_op(struct tern_sched *s, const struct tern_op *op)
{
    if (!op || s->kept_op)
        return;
    tern_op_retain(op);
    s->kept_op = op;
}

void tern_sched_free(struct tern_sched *s)
{
    for (int i = 0; i < s->nscratch; i++)
        tern_scratch_put(s->scratch[i]);
    free(s->scratch);
    for (int i = 0; i < s->nkept; i++)
        tern_dtype_release(s->kept[i]);
    free(s->kept);
    if (s->kept_op)
        tern_op_release(s->kept_op);
    if (s->reqs != s->inline_reqs)
        free(s->reqs);
    if (s->steps != s->inline_steps)
        free(s->steps);
    if (s->round_end != s->inline_rounds)
        free(s->round_end);
    if (s->on_heap)
        free(s);
}
