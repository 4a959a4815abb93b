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
 * member's block (another size anywhere gives MPI_ERR_TRUNCATE on every
 * rank, since all see the same sizes) and unpacks every block into its
 * place of the result. One flag exchange, against p - 1 message rounds for
 * the ring: on a host with more ranks than cores each round can cost a
 * context switch.
 *
 * Blocks longer than a member's buffer (64 KiB with up to 8 ranks): the
 * ranks put only their sizes in, compare them as above, and then run the
 * message algorithm that the automatic choice takes
 * (tern_coll_allgather_messages). Whether a call is long is decided from
 * the largest block of the result, which every rank of a correct call
 * knows alike (Allgatherv: from the same recvcounts); a rank that decides
 * otherwise has counts that do not match, and the comparison fails the
 * call on every rank before any message.
 *
 * Every rank reads every buffer, so the call ends only once every member
 * started it (shm.h: synced), like the Allreduce.
 *
 * Cost, p ranks, N bytes gathered, beta_c per byte copied: N/p beta_c to
 * put a block in, N beta_c to take every block out, one flag exchange.
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
    int large;                      /* Some block is over a buffer: messages. */
    int mismatch;
};

/* Bytes of the largest block of the result, and whether it exceeds a
 * member's buffer. */
static int too_large(const struct tern_coll_args *a)
{
    size_t most = 0;
    for (int j = 0; j < a->size; j++) {
        size_t b;
        struct tern_coll_block rb = tern_coll_rblock(a, j);
        if (__builtin_mul_overflow(rb.count, rb.dt->size, &b))
            return 1;
        most = b > most ? b : most;
    }
    return most > a->comm->shm->view.buf;
}

static void copy_in(void *to, struct tern_coll_block b, size_t bytes)
{
    if (bytes == 0)
        return;
    if (tern_dtype_contig(b.dt, b.count))
        memcpy(to, (const char *)b.buf + b.dt->true_lb, bytes);
    else
        tern_dtype_pack(b.dt, b.buf, b.count, to);
}

static void copy_out(struct tern_coll_block b, const void *from, size_t bytes)
{
    if (bytes == 0)
        return;
    if (tern_dtype_contig(b.dt, b.count))
        memcpy((char *)b.buf + b.dt->true_lb, from, bytes);
    else
        tern_dtype_unpack(b.dt, from, bytes, b.buf);
}

/* (1): this rank's block, or its size alone, goes in. */
static int put_in(struct tern_sched *s, void *arg)
{
    (void)s;
    struct allgather_op *x = arg;
    const struct tern_coll_args *a = x->a;
    struct tern_coll_block mine = tern_coll_sblock(a, a->rank);
    size_t bytes = tern_coll_block_bytes(mine);
    if (!tern_coll_shm_my_turn(&x->op)
        || !tern_coll_shm_set_free(&x->op, !x->large && tern_coll_shm_in_buffer(&x->op, bytes)))
        return 0;
    /* A block over a buffer when the result's are not (counts that do
     * not match): only its size goes in, and the comparison fails. */
    void *place = tern_coll_shm_input_place(&x->op, a->rank, bytes);
    if (!x->large && place)
        copy_in(place, mine, bytes);
    tern_coll_shm_input_publish(&x->op, bytes);
    return 1;
}

/* (2): every size in and compared, then every block out. */
static int take_out(struct tern_sched *s, void *arg)
{
    (void)s;
    struct allgather_op *x = arg;
    const struct tern_coll_args *a = x->a;
    int mismatch = 0;
    for (int j = 0; j < a->size; j++) {
        uint64_t b;
        if (!tern_coll_shm_input_arrived(&x->op, j, &b))
            return 0;
        mismatch |= b != tern_coll_block_bytes(tern_coll_rblock(a, j));
    }
    x->mismatch = mismatch;
    tern_coll_shm_synced(&x->op);
    for (int j = 0; !mismatch && !x->large && j < a->size; j++) {
        if (j == a->rank && a->sbuf == MPI_IN_PLACE)
            continue;
        struct tern_coll_block rb = tern_coll_rblock(a, j);
        size_t bytes = tern_coll_block_bytes(rb);
        copy_out(rb, tern_coll_shm_input_place(&x->op, j, bytes), bytes);
    }
    tern_coll_shm_finish(&x->op);
    return mismatch ? TERN_ETRUNCATE : 1;
}

/* A long call's messages, once the sizes agreed. */
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

static tern_sched_poll_fn *const steps[] = { put_in, take_out };
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
    x->large = too_large(a);
    x->mismatch = 0;
    tern_coll_shm_add_steps(s, steps, NSTEPS, x, x->large ? by_messages : NULL);
}

int tern_coll_allgather_shm_run(const struct tern_coll_args *a)
{
    /* A long call's messages need a schedule. */
    if (!tern_coll_shm_runnable(a) || too_large(a))
        return TERN_EAGAIN;
    struct allgather_op x = { .a = a };
    tern_coll_shm_op_init(&x.op, a);
    return tern_coll_shm_run(steps, NSTEPS, &x);
}
