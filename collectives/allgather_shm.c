/*
 * Allgather and Allgatherv through shared memory, for a communicator on
 * one host (shm.h), any datatypes: each block is packed into the slot and
 * unpacked from it, so senders and receivers may use different layouts of
 * one type signature.
 *
 * Steps: (1) each rank packs its block into its place of the slot (up to
 * 8 bytes into its tiny entry, up to 48 into its cell, up to a buffer into
 * its buffer: shm.h) and sets its flag; (2) once every flag is set, each
 * rank compares every member's size with the size it expects of that
 * member's block and unpacks every block into its place of the result; a
 * rank that expected other sizes returns MPI_ERR_TRUNCATE (only it: the
 * others got the blocks they expected). One flag exchange, against p - 1
 * message rounds for the ring: on a host with more ranks than cores each
 * round can cost a context switch.
 *
 * Blocks longer than a member's buffer (64 KiB with up to 8 ranks) stay
 * out: only their sizes go in. Whether messages follow is decided from the
 * sizes published, which every rank sees alike: when one is too long for
 * a buffer, (3) every rank publishes its verdict (whether it expected
 * other sizes) and waits for the others', and only if nobody found a
 * mismatch do they all run the message algorithm that the automatic
 * choice takes (tern_coll_allgather_messages); otherwise every rank
 * returns MPI_ERR_TRUNCATE. A rank whose counts disagree with the others'
 * can so never leave them waiting in messages.
 *
 * Every rank reads every buffer, so the call ends only once every member
 * started it (shm.h: synced), like the Allreduce.
 *
 * Cost, p ranks, N bytes gathered, beta_c per byte copied: N/p beta_c to
 * put a block in, N beta_c to take every block out, one flag exchange;
 * long blocks: two flag exchanges, then the message algorithm.
 */
#include <string.h>

#include "collectives/blocks.h"
#include "collectives/shm.h"
#include "libmpi/core/datatype.h"
#include "tern/err.h"
#include "tern/log.h"

struct allgather_op {
    struct tern_coll_shm_op op;
    const struct tern_coll_args *a; /* The call's arguments (kept by the caller). */
    int large;                      /* A published block is over a buffer. */
    int mismatch;
};

/* Whether this rank's view of the result has a block over a buffer. */
static int too_large(const struct tern_coll_args *a)
{
    for (int j = 0; j < a->size; j++) {
        struct tern_coll_block rb = tern_coll_rblock(a, j);
        if (tern_coll_shm_too_large(rb.count, rb.dt, a))
            return 1;
    }
    return 0;
}

/* (1): this rank's block goes in where it fits; a longer one, only its
 * size. */
static int put_in(struct tern_sched *s, void *arg)
{
    (void)s;
    struct allgather_op *x = arg;
    const struct tern_coll_args *a = x->a;
    struct tern_coll_block mine = tern_coll_sblock(a, a->rank);
    size_t bytes = tern_coll_block_bytes(mine);
    if (!tern_coll_shm_my_turn(&x->op)
        || !tern_coll_shm_set_free(&x->op, bytes))
        return 0;
    void *place = tern_coll_shm_input_place(&x->op, a->rank, bytes);
    if (place)
        tern_coll_shm_pack(place, mine.buf, mine.count, mine.dt);
    tern_coll_shm_input_publish(&x->op, bytes);
    return 1;
}

/* (2): every size in and compared; every block out, or, when a block is
 * long, this rank's verdict out. */
static int take_out(struct tern_sched *s, void *arg)
{
    (void)s;
    struct allgather_op *x = arg;
    const struct tern_coll_args *a = x->a;
    int mismatch = 0, large = 0;
    for (int j = 0; j < a->size; j++) {
        uint64_t b;
        if (!tern_coll_shm_input_arrived(&x->op, j, &b))
            return 0;
        mismatch |= b != tern_coll_block_bytes(tern_coll_rblock(a, j));
        large |= b > x->op.sh->view.buf;
    }
    x->mismatch = mismatch;
    x->large = large;
    tern_coll_shm_synced(&x->op);
    if (large) {
        atomic_store_explicit(&x->op.sh->view.reduced[a->rank].verdict,
                              x->op.seq << 1 | (uint64_t)mismatch, memory_order_release);
        tern_coll_shm_wake_others(&x->op);
        return 1;
    }
    for (int j = 0; !mismatch && j < a->size; j++) {
        if (j == a->rank && a->sbuf == MPI_IN_PLACE)
            continue;
        struct tern_coll_block rb = tern_coll_rblock(a, j);
        tern_coll_shm_unpack(rb.buf, rb.count, rb.dt,
                             tern_coll_shm_input_place(&x->op, j, tern_coll_block_bytes(rb)));
    }
    tern_coll_shm_finish(&x->op);
    return mismatch ? TERN_ETRUNCATE : 1;
}

/* (3), long blocks only: every verdict in; any mismatch fails the call
 * everywhere. */
static int agree(struct tern_sched *s, void *arg)
{
    (void)s;
    struct allgather_op *x = arg;
    if (!x->large)
        return 1;
    int mismatch = 0;
    for (int j = 0; j < x->a->size; j++) {
        uint64_t v = atomic_load_explicit(&x->op.sh->view.reduced[j].verdict,
                                          memory_order_acquire);
        if (v >> 1 != x->op.seq)
            return 0;
        mismatch |= (int)(v & 1);
    }
    x->mismatch = mismatch;
    tern_coll_shm_finish(&x->op);
    return mismatch ? TERN_ETRUNCATE : 1;
}

/* A long call's messages, once every rank agreed. */
static void by_messages(struct tern_sched *s, void *arg)
{
    struct allgather_op *x = arg;
    if (!x->large || x->mismatch || s->error)
        return;
    const struct tern_coll_algo *algo = tern_coll_allgather_messages(x->a);
    TERN_LOG(2, "%s with a block longer than a shared-memory buffer: %s",
             x->a->kind == TERN_COLL_ALLGATHERV ? "MPI_Allgatherv" : "MPI_Allgather",
             algo->name);
    algo->build(s, x->a);
    tern_sched_round(s);
}

static tern_sched_poll_fn *const steps[] = { put_in, take_out, agree };
#define NSTEPS (int)(sizeof steps / sizeof *steps)

void tern_coll_allgather_shm(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct allgather_op *x = tern_sched_scratch(s, sizeof *x);
    /* The steps read the arguments after this call returns. Taken before
     * the steps, so that running out of memory stops this rank before it
     * joins the operation. */
    struct tern_coll_args *args = tern_sched_scratch(s, sizeof *a);
    int v = a->kind == TERN_COLL_ALLGATHERV;
    size_t *arrays = v ? tern_sched_scratch(s, 2 * (size_t)a->size * sizeof(size_t)) : NULL;
    if (!x || !args || (v && !arrays))
        return;
    *args = *a;
    if (v) {
        /* The caller's arrays need not outlive this call. */
        memcpy(arrays, a->rcounts, (size_t)a->size * sizeof(size_t));
        memcpy(arrays + a->size, a->rdispls, (size_t)a->size * sizeof(size_t));
        args->rcounts = arrays;
        args->rdispls = arrays + a->size;
    }
    tern_coll_shm_op_init(&x->op, a);
    x->a = args;
    x->large = x->mismatch = 0;
    /* Only the sizes published say whether messages follow, so always. */
    tern_coll_shm_add_steps(s, steps, NSTEPS, x, by_messages);
}

int tern_coll_allgather_shm_run(const struct tern_coll_args *a)
{
    /* A long call's messages need a schedule. (If this rank's view of the
     * sizes is short and another's is long, the counts do not match, and
     * the call fails before any message.) */
    if (!tern_coll_shm_runnable(a) || too_large(a))
        return TERN_EAGAIN;
    /* Field by field: an initializer zeroed it with a `rep stos`. */
    struct allgather_op x;
    tern_coll_shm_op_init(&x.op, a);
    x.a = a;
    x.large = x.mismatch = 0;
    return tern_coll_shm_run(&x.op, steps, NSTEPS);
}
