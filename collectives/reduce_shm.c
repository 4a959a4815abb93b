/*
 * Reduce through shared memory, for a communicator on one host (shm.h),
 * contiguous types and commutative ops, as for the Allreduce.
 *
 * Steps: (1) each rank copies its vector into its place of the slot (tiny
 * entry, cell or buffer by size: shm.h) and sets its flag. Vectors of up
 * to WHOLE_MAX bytes: a rank other than the root is then done, and (2)
 * the root waits for every flag, compares the sizes (another size
 * anywhere gives it MPI_ERR_TRUNCATE) and reduces every element in rank
 * order from the members' places into its result. Longer vectors are
 * split as in the Allreduce: (2) once every input is in, each rank reduces
 * its 1/p share of the vector; the root into its result, the others into
 * that share of their own buffer (which nobody else reads), after which
 * they set their reduced flag and are done; (3) the root copies the other
 * shares from their buffers once their flags are set.
 *
 * The root reduces its share, and the whole of a short vector, in rank
 * order (inout = in_k op inout, from the last rank down); another rank
 * reduces its share in place, starting from its own input and then from
 * the last rank down. The op is commutative, and which rank reduces a
 * share, and in which order, depends only on the communicator size and
 * the root, so those two always give the same bits (not always the
 * Allreduce's).
 *
 * Vectors longer than a member's buffer travel in messages with the
 * algorithm the automatic choice takes (tern_coll_reduce_messages), after
 * every rank put its size in and saw every other's: a mismatch then fails
 * the call everywhere instead of leaving ranks in different algorithms.
 * A rank whose own size is short leaves before that; if another rank's is
 * long, the root and the long ones see the mismatch, and then none of them
 * splits.
 *
 * The ranks other than the root do not wait for it, so the next operation
 * that writes into this buffer set checks that the root is done (shm.h).
 *
 * Cost, n bytes, p ranks, beta_c per byte copied, gamma per byte reduced:
 * whole: n beta_c at every rank, one flag transfer, (p - 1) n gamma at the
 * root; split: n beta_c, then (p - 1)/p n gamma at every rank, then (p -
 * 1)/p n beta_c at the root, and two flag transfers; against ceil(log2 p)
 * message rounds for the binomial tree, each a copy in, a copy out and a
 * reduction.
 */
#include <string.h>

#include "collectives/shm.h"
#include "libmpi/core/op.h"
#include "tern/err.h"
#include "tern/log.h"

/* Up to this many bytes the root alone reduces every vector; above it the
 * ranks split the work. The root alone, reading the other cores' vectors
 * from their caches, lost to the messages' binomial tree above 4 KiB
 * (OSU osu_reduce, 2 ranks, us, root alone / binomial: 1 KiB 0.54 / 0.83,
 * 16 KiB 4.3 / 2.6, 64 KiB 14.3 / 9.6); split, see docs/algorithms.md. */
#define WHOLE_MAX (4 * 1024)

struct reduce_op {
    struct tern_coll_shm_op op;
    const char *in;
    char *out;                      /* The root's result. */
    size_t n;
    const struct tern_dtype *dt;
    const struct tern_op *rop;
    int root;
    int large;                      /* This rank's vector is over a buffer. */
    int split;                      /* ... over WHOLE_MAX: shares (until a mismatch). */
    int mismatch;
    struct tern_coll_args *args;    /* A large call's, for its messages. */
};

static size_t bytes_of(const struct reduce_op *x)
{
    return x->n * x->dt->size;
}

static int is_root(const struct reduce_op *x)
{
    return x->op.comm->rank == x->root;
}

static int put_in(struct tern_sched *s, void *arg)
{
    (void)s;
    struct reduce_op *x = arg;
    size_t bytes = bytes_of(x);
    if (!tern_coll_shm_my_turn(&x->op)
        || !tern_coll_shm_set_free(&x->op, bytes))
        return 0;
    if (!x->large)
        tern_coll_shm_copy(tern_coll_shm_input_place(&x->op, x->op.comm->rank, bytes), x->in,
                           bytes);
    tern_coll_shm_input_publish(&x->op, bytes);
    if (!x->large && !x->split && !is_root(x))
        tern_coll_shm_finish(&x->op);
    return 1;
}

/* Reduces share [lo, hi) into this rank's own buffer, which holds its
 * input there: inout = in_r op inout for every other member r. */
static int reduce_in_place(const struct reduce_op *x, size_t lo, size_t hi)
{
    int p = x->op.comm->size, me = x->op.comm->rank, rc = 0;
    size_t all = bytes_of(x), off = lo * x->dt->size;
    char *mine = (char *)tern_coll_shm_input_place(&x->op, me, all) + off;
    for (int r = p - 1; r >= 0 && hi > lo; r--) {
        if (r == me)
            continue;
        const char *in = (char *)tern_coll_shm_input_place(&x->op, r, all) + off;
        int e = tern_op_reduce(x->rop, in, mine, hi - lo, x->dt);
        if (e && !rc)
            rc = e;
    }
    return rc;
}

/* Every rank that waits for the inputs: all sizes in, then compared; the
 * root reduces a short vector, and every rank its share of a long one. */
static int combine(struct tern_sched *s, void *arg)
{
    (void)s;
    struct reduce_op *x = arg;
    if (!x->large && !x->split && !is_root(x))
        return 1;
    int mismatch = 0;
    for (int r = 0; r < x->op.comm->size; r++) {
        uint64_t b;
        if (!tern_coll_shm_input_arrived(&x->op, r, &b))
            return 0;
        mismatch |= b != bytes_of(x);
    }
    x->mismatch = mismatch;
    x->split &= !mismatch;
    tern_coll_shm_synced(&x->op);
    if (mismatch || x->large) {
        tern_coll_shm_finish(&x->op);
        return mismatch ? TERN_ETRUNCATE : 1;
    }
    int rc;
    if (!x->split) {
        rc = tern_coll_shm_reduce_range(&x->op, x->n, x->dt, x->rop, x->out, 0, x->n);
        tern_coll_shm_finish(&x->op);
        return rc ? rc : 1;
    }
    int p = x->op.comm->size, me = x->op.comm->rank;
    size_t lo = tern_coll_part_off(x->n, p, me), hi = tern_coll_part_off(x->n, p, me + 1);
    if (is_root(x)) {
        /* collect() finishes. */
        rc = tern_coll_shm_reduce_range(&x->op, x->n, x->dt, x->rop, x->out, lo, hi);
    } else {
        rc = reduce_in_place(x, lo, hi);
        tern_coll_shm_publish(&x->op, TERN_COLL_SHM_REDUCED);
        tern_coll_shm_finish(&x->op);
    }
    return rc ? rc : 1;
}

/* The root of a split call: the others' shares, once they are reduced. */
static int collect(struct tern_sched *s, void *arg)
{
    (void)s;
    struct reduce_op *x = arg;
    if (!x->split || !is_root(x))
        return 1;
    int p = x->op.comm->size;
    for (int r = 0; r < p; r++)
        if (r != x->root
            && atomic_load_explicit(tern_coll_shm_flag(&x->op, TERN_COLL_SHM_REDUCED, r),
                                    memory_order_acquire) < x->op.seq)
            return 0;
    size_t sz = x->dt->size, all = bytes_of(x);
    for (int r = 0; r < p; r++) {
        size_t lo = tern_coll_part_off(x->n, p, r), hi = tern_coll_part_off(x->n, p, r + 1);
        if (r != x->root)
            memcpy(x->out + lo * sz, (char *)tern_coll_shm_input_place(&x->op, r, all) + lo * sz,
                   (hi - lo) * sz);
    }
    tern_coll_shm_finish(&x->op);
    return 1;
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

static void op_init(struct reduce_op *x, const struct tern_coll_args *a)
{
    tern_coll_shm_op_init(&x->op, a);
    x->op.no_tiny = 1;
    int root = a->rank == a->root;
    x->in = root && a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    x->out = a->rbuf;
    x->n = a->rcount;
    x->dt = a->rdt;
    x->rop = a->op;
    x->root = a->root;
    x->large = tern_coll_shm_too_large(a->rcount, a->rdt, a);
    x->split = !x->large && x->n * x->dt->size > WHOLE_MAX;
    x->mismatch = 0;
    x->args = NULL;
}

static tern_sched_poll_fn *const steps[] = { put_in, combine, collect };
#define NSTEPS (int)(sizeof steps / sizeof *steps)

void tern_coll_reduce_shm(struct tern_sched *s, const struct tern_coll_args *a)
{
    /* Taken before op_init, so that running out of memory stops this rank
     * before it joins the operation (takes a sequence number). */
    struct reduce_op *x = tern_sched_scratch(s, sizeof *x);
    int large = tern_coll_shm_too_large(a->rcount, a->rdt, a);
    struct tern_coll_args *args = large ? tern_sched_scratch(s, sizeof *a) : NULL;
    if (!x || (large && !args))
        return;
    op_init(x, a);
    if (large)
        *(x->args = args) = *a;
    tern_coll_shm_add_steps(s, steps, NSTEPS, x, x->large ? by_messages : NULL);
}

int tern_coll_reduce_shm_run(const struct tern_coll_args *a)
{
    /* A large call's messages need a schedule. */
    if (!tern_coll_shm_runnable(a) || tern_coll_shm_too_large(a->rcount, a->rdt, a))
        return TERN_EAGAIN;
    struct reduce_op x;
    op_init(&x, a);
    return tern_coll_shm_run(&x.op, steps, NSTEPS);
}
