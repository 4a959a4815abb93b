/*
 * Reduce through shared memory, for a communicator on one host (shm.h),
 * contiguous types and commutative ops, as for the Allreduce.
 *
 * Steps: (1) each rank copies its vector into its place of the slot (tiny
 * entry, cell or buffer by size: shm.h) and sets its flag; a rank other
 * than the root is then done. (2) The root waits for every flag, compares
 * the sizes (another size anywhere gives it MPI_ERR_TRUNCATE) and reduces
 * every element in rank order from the members' places into its result.
 *
 * Vectors longer than REDUCE_SHM_MAX (4 KiB) or a member's buffer travel
 * in messages with the algorithm the automatic choice takes
 * (tern_coll_reduce_messages), after every rank put its size in and saw
 * every other's: a mismatch then fails the call everywhere instead of
 * leaving ranks in different algorithms. A rank whose own size is short
 * leaves before that; if another rank's is long, the root and the long
 * ones see the mismatch.
 *
 * The ranks other than the root do not wait, so the next operation that
 * writes into this buffer set checks that the root is done (shm.h).
 *
 * Cost, n bytes, p ranks, beta_c per byte copied, gamma per byte reduced:
 * n beta_c at every rank, one flag transfer, (p - 1) n gamma at the root,
 * against ceil(log2 p) message rounds for the binomial tree, each a copy
 * in, a copy out and a reduction.
 */
#include "collectives/shm.h"
#include "libmpi/core/op.h"
#include "tern/err.h"
#include "tern/log.h"

struct reduce_op {
    struct tern_coll_shm_op op;
    const char *in;
    char *out;                      /* The root's result. */
    size_t n;
    const struct tern_dtype *dt;
    const struct tern_op *rop;
    int root;
    int large;                      /* This rank's vector is over a buffer. */
    int mismatch;
    struct tern_coll_args *args;    /* A large call's, for its messages. */
};

static size_t bytes_of(const struct reduce_op *x)
{
    return x->n * x->dt->size;
}

static int put_in(struct tern_sched *s, void *arg)
{
    (void)s;
    struct reduce_op *x = arg;
    if (!tern_coll_shm_my_turn(&x->op) || !tern_coll_shm_set_free(&x->op))
        return 0;
    size_t bytes = bytes_of(x);
    if (!x->large)
        tern_coll_shm_copy(tern_coll_shm_input_place(&x->op, x->op.comm->rank, bytes), x->in,
                           bytes);
    tern_coll_shm_input_publish(&x->op, bytes);
    if (!x->large && x->op.comm->rank != x->root)
        tern_coll_shm_finish(&x->op);
    return 1;
}

/* The root, and every rank of a long call: all sizes in, then compared. */
static int combine(struct tern_sched *s, void *arg)
{
    (void)s;
    struct reduce_op *x = arg;
    if (!x->large && x->op.comm->rank != x->root)
        return 1;
    int mismatch = 0;
    for (int r = 0; r < x->op.comm->size; r++) {
        uint64_t b;
        if (!tern_coll_shm_input_arrived(&x->op, r, &b))
            return 0;
        mismatch |= b != bytes_of(x);
    }
    x->mismatch = mismatch;
    tern_coll_shm_synced(&x->op);
    int rc = 0;
    if (!mismatch && !x->large)
        rc = tern_coll_shm_reduce_range(&x->op, x->n, x->dt, x->rop, x->out, 0, x->n);
    tern_coll_shm_finish(&x->op);
    return mismatch ? TERN_ETRUNCATE : rc ? rc : 1;
}

static void by_messages(struct tern_sched *s, void *arg)
{
    struct reduce_op *x = arg;
    if (!x->large || x->mismatch || s->error)
        return;
    const struct tern_coll_algo *algo = tern_coll_reduce_messages(x->args);
    TERN_LOG(2, "MPI_Reduce of %zu bytes, longer than a shared-memory buffer: %s", bytes_of(x),
             algo->name);
    algo->build(s, x->args);
    tern_sched_round(s);
}

/* Above this many bytes the root alone reducing every vector, read from
 * the other cores' caches, loses to the messages' tree: OSU osu_reduce, 2
 * ranks, us, shm / binomial (Open MPI): 1 KiB 0.54 / 0.83 (0.91), 64 KiB
 * 14.3 / 9.6 (5.9); at 16 KiB 4.3 (2.6). So longer vectors only agree on
 * the size here. */
#define REDUCE_SHM_MAX (4 * 1024)

static int too_large(const struct tern_coll_args *a)
{
    size_t bytes;
    return __builtin_mul_overflow(a->rcount, a->rdt->size, &bytes)
           || bytes > a->comm->shm->view.buf || bytes > REDUCE_SHM_MAX;
}

static void op_init(struct reduce_op *x, const struct tern_coll_args *a)
{
    tern_coll_shm_op_init(&x->op, a);
    int root = a->rank == a->root;
    x->in = root && a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    x->out = a->rbuf;
    x->n = a->rcount;
    x->dt = a->rdt;
    x->rop = a->op;
    x->root = a->root;
    x->large = too_large(a);
    x->mismatch = 0;
    x->args = NULL;
}

static tern_sched_poll_fn *const steps[] = { put_in, combine };
#define NSTEPS (int)(sizeof steps / sizeof *steps)

void tern_coll_reduce_shm(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct reduce_op *x = tern_sched_scratch(s, sizeof *x);
    if (!x)
        return;
    op_init(x, a);
    /* Taken before the steps, so that running out of memory stops this
     * rank before it joins the operation. */
    if (x->large && !(x->args = tern_sched_scratch(s, sizeof *a)))
        return;
    if (x->large)
        *x->args = *a;
    tern_coll_shm_add_steps(s, steps, NSTEPS, x, x->large ? by_messages : NULL);
}

int tern_coll_reduce_shm_run(const struct tern_coll_args *a)
{
    /* A large call's messages need a schedule. */
    if (!tern_coll_shm_runnable(a) || too_large(a))
        return TERN_EAGAIN;
    struct reduce_op x;
    op_init(&x, a);
    return tern_coll_shm_run(steps, NSTEPS, &x);
}
