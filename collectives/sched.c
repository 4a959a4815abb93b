/*
 * The schedule engine (see sched.h): building, running and completing
 * collective schedules.
 */
#include <stdlib.h>
#include <string.h>

#include "collectives/sched.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/core/op.h"
#include "libmpi/core/request.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

/* Tags of collectives stay non-negative and below the smallest MPI_TAG_UB
 * the standard allows (32767) would be too few for long runs of nonblocking
 * collectives; the collective context is private, so any int >= 0 works. */
#define COLL_TAG_MASK 0x3fffffff

/* Schedules that have started and not completed, advanced by the hook. */
static struct tern_sched *active;

/*
 * Scratch buffers come back to a small cache when a schedule ends, so that a
 * loop of collectives reuses them. Without it every call of an algorithm
 * with large scratch (Bruck, Rabenseifner, reduce trees) pays glibc's mmap,
 * page faults and munmap: a Bruck alltoall of 64 KiB blocks on 8 ranks took
 * 38 ms per call that way and 2.1 ms with reused buffers. The cache keeps at
 * most SCRATCH_CACHED buffers and none above SCRATCH_CACHE_MAX bytes, so an
 * idle program keeps at most 4 x 64 MiB.
 */
#define SCRATCH_CACHED 4
#define SCRATCH_CACHE_MAX ((size_t)64 << 20)

struct scratch_hdr {
    size_t size;          /* Usable bytes after the header. */
    size_t pad;           /* Keeps the data 16-byte aligned. */
};

static struct scratch_hdr *scratch_cache[SCRATCH_CACHED];

static void *scratch_get(size_t bytes)
{
    int best = -1;
    for (int i = 0; i < SCRATCH_CACHED; i++) {
        struct scratch_hdr *h = scratch_cache[i];
        if (h && h->size >= bytes && (best < 0 || h->size < scratch_cache[best]->size))
            best = i;
    }
    struct scratch_hdr *h;
    if (best >= 0) {
        h = scratch_cache[best];
        scratch_cache[best] = NULL;
    } else {
        h = malloc(sizeof(*h) + bytes);
        if (!h)
            return NULL;
        h->size = bytes;
    }
    return h + 1;
}

static void scratch_put(void *p)
{
    struct scratch_hdr *h = (struct scratch_hdr *)p - 1;
    int slot = -1;
    if (h->size <= SCRATCH_CACHE_MAX) {
        /* An empty slot, else the smallest buffer if it is smaller. */
        for (int i = 0; i < SCRATCH_CACHED && slot < 0; i++)
            if (!scratch_cache[i])
                slot = i;
        for (int i = 0; i < SCRATCH_CACHED && slot < 0; i++)
            if (scratch_cache[i]->size < h->size)
                slot = i;
    }
    if (slot < 0) {
        free(h);
        return;
    }
    free(scratch_cache[slot]);
    scratch_cache[slot] = h;
}

/* Field by field: a memset of the fields compiled to `rep stos`, whose
 * start-up took a sixth of an 8-byte MPI_Bcast (perf, 2 ranks). */
void tern_sched_init(struct tern_sched *s, struct tern_comm *comm)
{
    s->comm = comm;
    s->ctx = comm->ctx + 1;
    s->tag = (int)(comm->coll_seq++ & COLL_TAG_MASK);
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
    s->req = NULL;
    s->next = NULL;
    s->on_heap = 0;
    s->arena_used = 0;
}

struct tern_sched *tern_sched_new(struct tern_comm *comm)
{
    struct tern_sched *s = malloc(sizeof(*s));
    if (!s)
        return NULL;
    tern_sched_init(s, comm);
    s->on_heap = 1;
    return s;
}

/* Grows an array that may start as an inline one. */
static int grow(void **arr, int *cap, size_t elem, const void *inline_arr)
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
        (s->error = grow((void **)&s->steps, &s->cap, sizeof(*s->steps), s->inline_steps)))
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
        (s->error = grow((void **)&s->round_end, &s->rcap, sizeof(int), s->inline_rounds)))
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
        (s->error = grow((void **)&s->scratch, &s->scratchcap, sizeof(void *), NULL)))
        return NULL;
    void *p = scratch_get(bytes);
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
        (s->error = grow((void **)&s->kept, &s->keptcap, sizeof(*s->kept), NULL)))
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
            grow((void **)&s->reqs, &s->reqcap, sizeof(*s->reqs), s->inline_reqs)) {
            /* Without room to track it, wait for it here. */
            tern_p2p_wait(r);
            note_error(s, r->error);
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
        note_error(s, s->reqs[i]->error);
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

void tern_sched_free(struct tern_sched *s)
{
    for (int i = 0; i < s->nscratch; i++)
        scratch_put(s->scratch[i]);
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
            tern_p2p_wait_until(blocking_done, &w);
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
