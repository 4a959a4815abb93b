/*
 * Allreduce through shared memory, for a communicator on one host (shm.h),
 * contiguous types and commutative ops. Vectors that fit one member's
 * buffer of the slot (64 KiB with up to 8 ranks on the host) are reduced
 * there; longer ones only agree there on the count (see below), and then
 * travel in messages.
 *
 * Steps: (1) each rank copies its vector into its buffer of the slot (up to
 * 8 bytes into its tiny entry, up to 48 into its cell, beside the flag) and
 * sets the flag; (2) once every rank arrived, it reduces. Small
 * vectors (up to WHOLE_MAX bytes): each rank reduces the whole vector from
 * all buffers into its result, and is done. Larger ones: each rank reduces
 * only its 1/p share, writes it back into its own buffer (nobody else reads
 * that share of it) and sets its reduced flag; (3) once every rank's flag
 * is set, it copies the other shares from their buffers.
 *
 * Every share is reduced in rank order (inout = in_k op inout, from the
 * last rank down), once, so all ranks get the same bits.
 *
 * Longer vectors: step (1) puts only the byte count in, step (2) compares
 * the counts, and a later round builds the message algorithm that the
 * automatic choice takes for the call (tern_coll_allreduce_messages). Were
 * the choice made from the count alone, ranks that passed counts on both
 * sides of the buffer's size would wait for each other in different
 * algorithms for ever; this way every rank sees the mismatch and returns
 * MPI_ERR_TRUNCATE, for one flag exchange more on a call that moves over
 * 64 KiB.
 *
 * Cost, n bytes, p ranks, beta_c per byte copied, gamma per byte reduced:
 * small: n beta_c + (p - 1) n gamma and one flag exchange; split: n beta_c
 * + (p - 1)/p n gamma + (p - 1)/p n beta_c and two flag exchanges, against
 * log2 p message rounds (each a copy in and a copy out) for recursive
 * doubling.
 */
#include <string.h>

#include "collectives/shm.h"
#include "libmpi/core/op.h"
#include "tern/err.h"
#include "tern/log.h"

/* Up to this many bytes every rank reduces the whole vector: one flag
 * exchange less saves more than reducing p times as much costs. Measured
 * on the reference 2-core VM, us per call, whole / split, medians of 3:
 * 2 ranks 256 B 0.73 / 0.98, 4 KiB 1.45 / 1.64, 8 KiB 1.87 / 2.15,
 * 16 KiB 2.78 / 2.82, 64 KiB 8.11 / 6.28; 4 ranks (oversubscribed, so
 * noisy) 16 KiB 16.2 / 22.7, 64 KiB 32.9 / 32.0. */
#define WHOLE_MAX 16384

struct allreduce_op {
    struct tern_coll_shm_op op;
    const char *in;                 /* This rank's vector. */
    char *out;                      /* The result. */
    size_t n;                       /* Elements. */
    const struct tern_dtype *dt;
    const struct tern_op *rop;
    int tiny;                       /* The input goes into the tiny entry. */
    int large;                      /* It does not fit a buffer: messages. */
    int split;                      /* Decided in reduce(), alike everywhere. */
    int mismatch;                   /* Some rank passed another count. */
    struct tern_coll_args *args;    /* A large call's, for its messages. */
};

static char *buf(const struct allreduce_op *x, int r)
{
    return tern_shm_coll_buf(&x->op.sh->view, x->op.seq, r);
}

static struct tern_shm_coll_tiny *tiny(const struct allreduce_op *x, int r)
{
    return tern_shm_coll_tiny(&x->op.sh->view, x->op.seq, r);
}

static int put_in(struct tern_sched *s, void *arg)
{
    (void)s;
    struct allreduce_op *x = arg;
    size_t bytes = x->n * x->dt->size;
    if (!tern_coll_shm_my_turn(&x->op)
        || !tern_coll_shm_set_free(&x->op, bytes))
        return 0;
    if (!x->large)
        tern_coll_shm_copy(tern_coll_shm_input_place(&x->op, x->op.comm->rank, bytes), x->in,
                           bytes);
    tern_coll_shm_input_publish(&x->op, bytes);
    return 1;
}

/* The usual case of a tiny input: every rank put in a tiny input of this
 * size, which costs one comparison of the tag per rank. */
static int all_tiny_alike(const struct allreduce_op *x)
{
    uint64_t want = tern_shm_coll_tiny_tag(x->op.seq, x->n * x->dt->size);
    for (int r = 0; r < x->op.comm->size; r++)
        if (atomic_load_explicit(&tiny(x, r)->tag, memory_order_acquire) != want)
            return 0;
    return 1;
}

/* Reduces elements [lo, hi) of every rank's vector into out, in rank
 * order; with mismatched counts, nothing (the vectors do not line up). */
static int reduce_range(const struct allreduce_op *x, size_t lo, size_t hi)
{
    if (x->mismatch)
        return TERN_ETRUNCATE;
    return tern_coll_shm_reduce_range(&x->op, x->n, x->dt, x->rop, x->out, lo, hi);
}

static int reduce(struct tern_sched *s, void *arg)
{
    (void)s;
    struct allreduce_op *x = arg;
    /* Every rank decides from the same numbers, so a rank that passed
     * another count gets an error, not a wait for a flag never set. */
    uint64_t most = 0;
    int mismatch = 0;
    int alike = x->tiny && all_tiny_alike(x);
    for (int r = 0; !alike && r < x->op.comm->size; r++) {
        uint64_t b;
        if (!tern_coll_shm_input_arrived(&x->op, r, &b))
            return 0;
        mismatch |= b != x->n * x->dt->size;
        most = b > most ? b : most;
    }
    x->mismatch = mismatch;
    tern_coll_shm_synced(&x->op);
    if (x->large) {
        /* Only the counts were in shared memory. */
        tern_coll_shm_finish(&x->op);
        return mismatch ? TERN_ETRUNCATE : 1;
    }
    /* Never split with mismatched counts: everyone then finishes here. */
    x->split = !mismatch && most > WHOLE_MAX;
    if (!x->split) {
        int rc = reduce_range(x, 0, x->n);
        tern_coll_shm_finish(&x->op);
        return rc ? rc : 1;
    }
    int p = x->op.comm->size, me = x->op.comm->rank;
    size_t lo = tern_coll_part_off(x->n, p, me), hi = tern_coll_part_off(x->n, p, me + 1);
    int rc = reduce_range(x, lo, hi);
    size_t sz = x->dt->size;
    if (!rc)
        memcpy(buf(x, me) + lo * sz, x->out + lo * sz, (hi - lo) * sz);
    tern_coll_shm_publish(&x->op, TERN_COLL_SHM_REDUCED);
    return rc ? rc : 1;
}

static int gather_shares(struct tern_sched *s, void *arg)
{
    (void)s;
    struct allreduce_op *x = arg;
    if (!x->split)
        return 1;
    if (!tern_coll_shm_all_reached(&x->op, TERN_COLL_SHM_REDUCED))
        return 0;
    int p = x->op.comm->size, me = x->op.comm->rank;
    size_t sz = x->dt->size;
    for (int r = 0; r < p; r++) {
        size_t lo = tern_coll_part_off(x->n, p, r), hi = tern_coll_part_off(x->n, p, r + 1);
        if (r != me)
            memcpy(x->out + lo * sz, buf(x, r) + lo * sz, (hi - lo) * sz);
    }
    tern_coll_shm_finish(&x->op);
    return 1;
}

/* A large call's second part, once the counts agreed: the message
 * algorithm, in rounds after this one. */
static void by_messages(struct tern_sched *s, void *arg)
{
    struct allreduce_op *x = arg;
    if (x->mismatch || s->error)
        return;
    const struct tern_coll_algo *algo = tern_coll_allreduce_messages(x->args);
    TERN_LOG(2, "MPI_Allreduce of %zu bytes, longer than a shared-memory buffer: %s",
             x->n * x->dt->size, algo->name);
    algo->build(s, x->args);
    tern_sched_round(s);
}

/* Whatever the count, so that all ranks choose alike (see above): the type
 * must be contiguous from one element to the next, which two elements show
 * (one, or none, would not). */
int tern_coll_allreduce_shm_usable(const struct tern_coll_args *a)
{
    const struct tern_dtype *dt = a->rdt;
    return tern_coll_shm_usable(a) && tern_coll_commutative(a)
           && dt->size > 0 && dt->true_lb == 0 && tern_dtype_contig(dt, 2);
}

static void op_init(struct allreduce_op *x, const struct tern_coll_args *a)
{
    tern_coll_shm_op_init(&x->op, a);
    x->in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    x->out = a->rbuf;
    x->n = a->rcount;
    x->dt = a->rdt;
    x->rop = a->op;
    x->tiny = x->n * x->dt->size <= TERN_SHM_COLL_TINY;
    x->large = tern_coll_shm_too_large(a->rcount, a->rdt, a);
    x->split = x->mismatch = 0;
    x->args = NULL;
}

static tern_sched_poll_fn *const steps[] = { put_in, reduce, gather_shares };
#define NSTEPS (int)(sizeof steps / sizeof *steps)

void tern_coll_allreduce_shm(struct tern_sched *s, const struct tern_coll_args *a)
{
    /* Taken before op_init, so that running out of memory stops this rank
     * before it joins the operation (takes a sequence number). */
    struct allreduce_op *x = tern_sched_scratch(s, sizeof *x);
    int large = tern_coll_shm_too_large(a->rcount, a->rdt, a);
    struct tern_coll_args *args = large ? tern_sched_scratch(s, sizeof *a) : NULL;
    if (!x || (large && !args))
        return;
    op_init(x, a);
    if (large)
        *(x->args = args) = *a;
    tern_coll_shm_add_steps(s, steps, NSTEPS, x, x->large ? by_messages : NULL);
}

int tern_coll_allreduce_shm_run(const struct tern_coll_args *a)
{
    /* A large call's messages need a schedule. */
    if (!tern_coll_shm_runnable(a) || tern_coll_shm_too_large(a->rcount, a->rdt, a))
        return TERN_EAGAIN;
    struct allreduce_op x;
    op_init(&x, a);
    return tern_coll_shm_run(&x.op, steps, NSTEPS);
}
