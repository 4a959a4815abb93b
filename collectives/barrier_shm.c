/*
 * Barrier through shared memory, for a communicator on one host (shm.h).
 *
 * Steps: (1) each rank sets its arrive flag to the operation's sequence
 * number and rings the others' doorbells; (2) it waits until every rank's
 * flag reached that number.
 *
 * Cost: one flag store and p - 1 flag loads per rank; the last rank to
 * arrive releases the others after one cache-line transfer (about 60 ns
 * between two cores of the reference VM), against ceil(log2 p) rounds of
 * messages for dissemination, each a packet written, found and matched.
 */
#include "collectives/shm.h"

static int arrive(struct tern_sched *s, void *arg)
{
    (void)s;
    struct tern_coll_shm_op *op = arg;
    if (!tern_coll_shm_my_turn(op))
        return 0;
    tern_coll_shm_publish(op, &tern_coll_shm_cell(op, op->comm->rank)->seq);
    return 1;
}

static int leave(struct tern_sched *s, void *arg)
{
    (void)s;
    struct tern_coll_shm_op *op = arg;
    if (!tern_coll_shm_all_reached(op, 0))
        return 0;
    tern_coll_shm_finish(op);
    return 1;
}

void tern_coll_barrier_shm(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct tern_coll_shm_op *op = tern_sched_scratch(s, sizeof *op);
    if (!op)
        return;
    tern_coll_shm_op_init(op, a);
    tern_sched_poll(s, arrive, op);
    tern_sched_poll(s, leave, op);
}
