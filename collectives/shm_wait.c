/*
 * Blocking waits of the collectives through shared memory (shm.h): a
 * blocking call runs its operation's steps here without a schedule, and
 * a wait that lasts says which call it is and which members are behind.
 */
#include <stdio.h>

#include "collectives/shm.h"
#include "libmpi/p2p/p2p.h"

struct step_wait {
    const struct tern_coll_shm_op *op;  /* First: describe() reads it. */
    tern_sched_poll_fn *step;
    void *arg;
    int rc;
};

/* A step runs until it returns nonzero, and never again after that: the
 * wait may evaluate its condition once more than it needs to (a rank
 * about to sleep re-checks it, tern_p2p_recheck), and a step such as the
 * Allreduce's reduce() must not run twice. */
static int step_done(void *p)
{
    struct step_wait *w = p;
    if (!w->rc)
        w->rc = w->step(NULL, w->arg);
    return w->rc != 0;
}

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

struct shm_wait {
    const struct tern_coll_shm_op *op;  /* First: describe() reads it. */
    int (*cond)(void *);
    void *arg;
};

static int shm_wait_cond(void *p)
{
    struct shm_wait *w = p;
    return w->cond(w->arg);
}

void tern_coll_shm_wait(const struct tern_coll_shm_op *op, int (*cond)(void *), void *arg)
{
    struct shm_wait w = { op, cond, arg };
    tern_p2p_wait_described(shm_wait_cond, &w, describe);
}

int tern_coll_shm_run(const struct tern_coll_shm_op *op, tern_sched_poll_fn *const *steps,
                      int n, void *arg)
{
    int first = 0;
    for (int i = 0; i < n; i++) {
        struct step_wait w = { op, steps[i], arg, 0 };
        if (!step_done(&w))
            tern_p2p_wait_described(step_done, &w, describe);
        if (w.rc < 0 && !first)
            first = w.rc;
    }
    return first;
}
