/*
 * Bcast through shared memory, for a communicator on one host (shm.h), any
 * datatype (the data is packed into the slot and unpacked from it, so the
 * root and the others may use different layouts of one type signature).
 *
 * Steps: (1) the root packs its data into its place of the slot (up to 8
 * bytes into its tiny entry, up to 48 into its cell, up to a buffer into
 * its buffer: shm.h) and sets its flag; it is done. (2) Every other rank
 * waits for the root's flag, compares the root's size with its own
 * (another size gives MPI_ERR_TRUNCATE on that rank) and unpacks.
 *
 * Longer data (over a member's buffer: 64 KiB with up to 8 ranks; on 2
 * ranks over TWO_RANKS_SLOT_MAX) travels in messages, after the ranks
 * agree on the size in shared memory: the root publishes only its size,
 * each rank that sees a long size publishes its own, and once all sizes
 * are in, all ranks compare them alike: any mismatch fails the call
 * everywhere, instead of leaving a rank waiting in a message algorithm
 * that another rank did not start. Then the message
 * algorithm that the automatic choice takes (tern_coll_bcast_messages)
 * runs in the rounds after. A rank whose own size is long while the root's
 * is short sees the mismatch in step (2) without publishing anything.
 *
 * The root does not wait for the others, so the next operation that writes
 * into this buffer set checks that they are done (shm.h).
 *
 * Cost, n bytes, p ranks, beta_c per byte copied: 2 n beta_c and one flag
 * transfer to every rank at once, against ceil(log2 p) messages, each a
 * copy in and a copy out, for the binomial tree.
 */
#include <string.h>

#include "collectives/shm.h"
#include "libmpi/core/datatype.h"
#include "tern/err.h"
#include "tern/log.h"

/* On 2 ranks a message that the receiver reads in one copy from the
 * root's buffer beats the two copies through the slot from about 48 KiB
 * on, even with the agreement on the size (a flag exchange) before it.
 * Measured, back-to-back calls, us, shm / binomial: 2 ranks 16 KiB 2.3 /
 * 2.3-3.0, 32 KiB 4.1 / 3.3-4.2, 64 KiB 7.5-7.9 / 4.6-5.1; on 4 ranks
 * (oversubscribed) the slot won at every size it holds (64 KiB 13.3-13.7 /
 * 21.8-23.0). */
#define TWO_RANKS_SLOT_MAX (48 * 1024)

/* The longest data that goes through the slot, alike on every rank. */
static size_t slot_max(const struct tern_comm *comm)
{
    size_t buf = comm->shm->view.buf;
    return comm->size == 2 && buf > TWO_RANKS_SLOT_MAX ? TWO_RANKS_SLOT_MAX : buf;
}

struct bcast_op {
    struct tern_coll_shm_op op;
    void *buf;
    size_t count;
    const struct tern_dtype *dt;
    int root;
    size_t bytes;                   /* This rank's packed size. */
    int large;                      /* The root's size is over a buffer. */
    int mismatch;
    struct tern_coll_args *args;    /* A large call's, for its messages. */
};

/* (1): the root's data, or its size alone, goes in. */
static int put(struct tern_sched *s, void *arg)
{
    (void)s;
    struct bcast_op *x = arg;
    if (!tern_coll_shm_my_turn(&x->op))
        return 0;
    if (x->op.comm->rank != x->root)
        return 1;
    if (!tern_coll_shm_set_free(&x->op, x->bytes))
        return 0;
    void *place = x->bytes <= slot_max(x->op.comm)
                      ? tern_coll_shm_input_place(&x->op, x->root, x->bytes) : NULL;
    if (place)
        tern_coll_shm_pack(place, x->buf, x->count, x->dt);
    x->large = !place;
    tern_coll_shm_input_publish(&x->op, x->bytes);
    if (!x->large)
        tern_coll_shm_finish(&x->op);
    return 1;
}

/* (2): the others take the data, or join the agreement on a long size. */
static int take(struct tern_sched *s, void *arg)
{
    (void)s;
    struct bcast_op *x = arg;
    if (x->op.comm->rank == x->root)
        return 1;
    uint64_t root_bytes;
    if (!x->large && !tern_coll_shm_input_arrived(&x->op, x->root, &root_bytes))
        return 0;
    if (x->large || root_bytes > slot_max(x->op.comm)) {
        /* The root's size is long: publish ours too (once the set is free). */
        x->large = 1;
        if (!tern_coll_shm_set_free(&x->op, x->bytes))
            return 0;
        tern_coll_shm_input_publish(&x->op, x->bytes);
        return 1;
    }
    if (root_bytes == x->bytes)
        tern_coll_shm_unpack(x->buf, x->count, x->dt,
                             tern_coll_shm_input_place(&x->op, x->root, x->bytes));
    x->mismatch = root_bytes != x->bytes;
    tern_coll_shm_finish(&x->op);
    return x->mismatch ? TERN_ETRUNCATE : 1;
}

/* (3), long sizes only: every rank compares every rank's size. */
static int agree(struct tern_sched *s, void *arg)
{
    (void)s;
    struct bcast_op *x = arg;
    if (!x->large)
        return 1;
    /* Decided only once every size is in: the step runs again until then. */
    int mismatch = 0;
    for (int r = 0; r < x->op.comm->size; r++) {
        uint64_t b;
        if (!tern_coll_shm_input_arrived(&x->op, r, &b))
            return 0;
        mismatch |= b != x->bytes;
    }
    x->mismatch = mismatch;
    tern_coll_shm_synced(&x->op);
    tern_coll_shm_finish(&x->op);
    return x->mismatch ? TERN_ETRUNCATE : 1;
}

/* A long call's messages, once the sizes agreed. */
static void by_messages(struct tern_sched *s, void *arg)
{
    struct bcast_op *x = arg;
    if (!x->large || x->mismatch || s->error)
        return;
    const struct tern_coll_algo *algo = tern_coll_bcast_messages(x->args);
    TERN_LOG(2, "MPI_Bcast of %zu bytes, longer than a shared-memory buffer: %s", x->bytes,
             algo->name);
    algo->build(s, x->args);
    tern_sched_round(s);
}

static void op_init(struct bcast_op *x, const struct tern_coll_args *a)
{
    tern_coll_shm_op_init(&x->op, a);
    x->op.no_tiny = 1;
    x->buf = a->rbuf;
    x->count = a->rcount;
    x->dt = a->rdt;
    x->root = a->root;
    x->bytes = a->rcount * a->rdt->size;
    x->large = x->mismatch = 0;
    x->args = NULL;
}

static tern_sched_poll_fn *const steps[] = { put, take, agree };
#define NSTEPS (int)(sizeof steps / sizeof *steps)

void tern_coll_bcast_shm(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct bcast_op *x = tern_sched_scratch(s, sizeof *x);
    /* Taken before the steps, so that running out of memory stops this
     * rank before it joins the operation. */
    struct tern_coll_args *args = tern_sched_scratch(s, sizeof *a);
    if (!x || !args)
        return;
    op_init(x, a);
    *args = *a;
    x->args = args;
    /* Only the root's size says whether messages follow, so always. */
    tern_coll_shm_add_steps(s, steps, NSTEPS, x, by_messages);
}

int tern_coll_bcast_shm_run(const struct tern_coll_args *a)
{
    /* Data longer than a buffer may need messages, hence a schedule. */
    if (!tern_coll_shm_runnable(a) || tern_coll_shm_too_large(a->rcount, a->rdt, a) ||
        a->rcount * a->rdt->size > slot_max(a->comm))
        return TERN_EAGAIN;
    struct bcast_op x;
    op_init(&x, a);
    return tern_coll_shm_run(&x.op, steps, NSTEPS);
}
