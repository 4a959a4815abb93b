/*
 * Running the steps of an operation through shared memory (shm.h): in
 * order, as a POLL step of a schedule or in a blocking call that builds
 * none and waits here; a wait that lasts says which call it is and which
 * members are behind, and looks for members in another call.
 */
#include <stdio.h>

#include "collectives/shm.h"
#include "libmpi/p2p/p2p.h"

/* For the report of a long wait (p: a struct whose first member is the
 * op): the call, its communicator, and the members that have not
 * finished the operation before it. */
static void describe(void *p, char *buf, size_t len)
{
    const struct tern_coll_shm_op *op = *(const struct tern_coll_shm_op *const *)p;
    size_t off = tern_sched_report_start(buf, len, op->call, op->comm, "through shared memory");
    int shown = 0;
    for (int r = 0; r < op->comm->size; r++) {
        uint64_t d = atomic_load_explicit(&op->sh->view.reduced[r].done, memory_order_acquire);
        if (r != op->comm->rank && d < op->seq - 1)
            off = tern_sched_report_rank(buf, len, off, &shown, r,
                                         "finish an earlier collective");
    }
    snprintf(buf + off, len - off, ")");
}

void tern_coll_shm_set_steps(struct tern_coll_shm_op *op, tern_sched_poll_fn *const *steps,
                             int n)
{
    op->steps = steps;
    op->nsteps = n;
    op->next = 0;
    op->first_error = 0;
}

/* A step runs until it returns nonzero, and never again after that: a
 * blocking wait may evaluate its condition once more than it needs to (a
 * rank about to sleep re-checks it, tern_p2p_recheck), and a step such as
 * the Allreduce's reduce() must not run twice. */
int tern_coll_shm_steps(struct tern_sched *s, void *arg)
{
    struct tern_coll_shm_op *op = arg;
    while (op->next < op->nsteps && !op->failed) {
        int rc = op->steps[op->next](s, arg);
        if (rc == 0 && !op->failed) {
            if (!tern_coll_shm_check(op))
                return 0;
        } else if (rc < 0 && !op->first_error) {
            op->first_error = rc;
        }
        if (!op->failed)
            op->next++;
    }
    int e = op->first_error ? op->first_error : op->failed;
    return e ? e : 1;
}

struct step_wait {
    struct tern_coll_shm_op *op;    /* First: describe() reads it. */
    int rc;
};

static int steps_done(void *p)
{
    struct step_wait *w = p;
    if (!w->rc)
        w->rc = tern_coll_shm_steps(NULL, w->op);
    return w->rc != 0;
}

int tern_coll_shm_run(struct tern_coll_shm_op *op, tern_sched_poll_fn *const *steps, int n)
{
    tern_coll_shm_set_steps(op, steps, n);
    struct step_wait w = { op, 0 };
    if (!steps_done(&w))
        tern_p2p_wait_described(steps_done, &w, describe);
    return w.rc < 0 ? w.rc : 0;
}

struct shm_wait {
    struct tern_coll_shm_op *op;    /* First: describe() reads it. */
    int (*cond)(void *);
    void *arg;
};

static int shm_wait_cond(void *p)
{
    struct shm_wait *w = p;
    return w->cond(w->arg) || tern_coll_shm_check(w->op);
}

int tern_coll_shm_wait(struct tern_coll_shm_op *op, int (*cond)(void *), void *arg)
{
    struct shm_wait w = { op, cond, arg };
    tern_p2p_wait_described(shm_wait_cond, &w, describe);
    return op->failed;
}
