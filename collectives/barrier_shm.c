/*
 * Barrier through shared memory, for a communicator on one host (shm.h).
 *
 * Steps: (1) each rank sets its barrier flag (coll_area.h: one word per
 * member, packed into lines) to the operation's sequence number and rings
 * the others' doorbells; (2) it waits until every rank's flag reached that
 * number.
 *
 * Cost: one flag store and ceil(p / 8) line loads per rank; the last rank
 * to arrive releases the others after one cache-line transfer, against
 * ceil(log2 p) rounds of messages for dissemination, each a packet
 * written, found and matched.
 *
 * A blocking call whose turn it is runs without a schedule
 * (tern_coll_barrier_shm_run), since at two ranks the call is little more
 * than that one transfer. It waits like any blocking call (progress, yield,
 * sleep): looking at the flags in a tight loop, without the transports'
 * progress between two looks, made the loop slower (0.21 us per call
 * against 0.16), since the waiting core then keeps taking the line from
 * the core that is about to write it. With the flags of their own, this
 * took a loop of MPI_Barrier calls on 2 ranks from 0.24 to 0.16 us.
 *
 * MPI_Barrier itself goes further (tern_coll_barrier_quick): once the
 * communicator has its slot, it neither fills the arguments of a call nor
 * asks the selection, which at two ranks cost more instructions than the
 * barrier (575 per call in all, 49 of them in the API function's argument
 * block, 43 in tern_coll_run, 30 in the selection, 53 in the step loop).
 */
#include "collectives/shm.h"
#include "libmpi/p2p/p2p.h"
#include "tern/err.h"

static int arrive(struct tern_sched *s, void *arg)
{
    (void)s;
    struct tern_coll_shm_op *op = arg;
    if (!tern_coll_shm_my_turn(op))
        return 0;
    tern_coll_shm_publish(op, TERN_COLL_SHM_ARRIVED);
    return 1;
}

static int leave(struct tern_sched *s, void *arg)
{
    (void)s;
    struct tern_coll_shm_op *op = arg;
    if (!tern_coll_shm_all_reached(op, TERN_COLL_SHM_ARRIVED))
        return 0;
    tern_coll_shm_synced(op);
    tern_coll_shm_finish(op);
    return 1;
}

static tern_sched_poll_fn *const steps[] = { arrive, leave };
#define NSTEPS (int)(sizeof steps / sizeof *steps)

void tern_coll_barrier_shm(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct tern_coll_shm_op *op = tern_sched_scratch(s, sizeof *op);
    if (!op)
        return;
    tern_coll_shm_op_init(op, a);
    tern_coll_shm_add_steps(s, steps, NSTEPS, op, NULL);
}

int tern_coll_barrier_shm_run(const struct tern_coll_args *a)
{
    if (!tern_coll_shm_runnable(a))
        return TERN_EAGAIN;
    struct tern_coll_shm_op op;
    tern_coll_shm_op_init(&op, a);
    return tern_coll_shm_run(&op, steps, NSTEPS);
}

static int all_arrived(void *op)
{
    return tern_coll_shm_all_reached(op, TERN_COLL_SHM_ARRIVED);
}

/* This algorithm's signature in tags (signature.h), found once. */
static int signature(void)
{
    static int sig = -1;
    if (sig < 0)
        sig = tern_coll_signature_of(TERN_COLL_BARRIER,
                                     tern_coll_builder_index(TERN_COLL_BARRIER,
                                                             tern_coll_barrier_shm), 0);
    return sig;
}

int tern_coll_barrier_quick(struct tern_comm *comm, const char *call, int *rc)
{
    struct tern_coll_shm *sh = comm->shm;
    /* What tern_coll_run would find out on the long way: the communicator
     * has its slot (so its layout is known, and the selection would choose
     * this algorithm), no operation of its own is pending, and nothing that
     * the user sees depends on the selection running. */
    if (!sh || sh->slot < 0 || sh->done_seq != sh->next_seq
        || !tern_coll_may_skip_select(TERN_COLL_BARRIER, tern_coll_barrier_shm))
        return 0;
    /* The number the schedule would have taken (tern_coll_run), moved on
     * when the call ends (sched.h). */
    uint64_t n = comm->coll_seq;
    struct tern_coll_stamp stamp = { n, (int)(n & TERN_COLL_SEQ_MASK) | signature(), 0 };
    comm->coll_recent[n % TERN_COLL_RECENT] = stamp;
    struct tern_coll_shm_op op;
    tern_coll_shm_op_start(&op, comm, TERN_COLL_BARRIER, &stamp, call);
    tern_coll_shm_publish(&op, TERN_COLL_SHM_ARRIVED);
    *rc = all_arrived(&op) ? 0 : tern_coll_shm_wait(&op, all_arrived, &op);
    if (*rc) {
        comm->coll_failed = 1;
    } else {
        tern_coll_shm_synced(&op);
        tern_coll_shm_finish(&op);
    }
    comm->coll_seq++;
    return 1;
}
