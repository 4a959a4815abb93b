/*
 * Running a collective: select the algorithm, build its schedule, and either
 * wait for it (blocking call) or hand back its request (nonblocking call).
 * Also the blocking shortcuts that other parts of the library call.
 */
#include <string.h>

#include "collectives/algo.h"
#include "collectives/coll.h"
#include "collectives/inter.h"
#include "collectives/nodes.h"
#include "collectives/notice.h"
#include "collectives/shm.h"
#include "collectives/signature.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/request.h"
#include "libmpi/core/topo.h"
#include "tern/err.h"

/* A nonblocking collective keeps the user's types and op alive: the user
 * may free them as soon as the call returns. */
static void keep_objects(struct tern_sched *s, const struct tern_coll_args *a)
{
    /* The w forms have a type per rank (of the remote group on an
     * intercommunicator), or per neighbour. */
    int ns = tern_comm_peers(a->comm), nr = ns;
    if (a->kind == TERN_COLL_NEIGHBOR_ALLTOALLW)
        tern_topo_neighbors(a->comm->topo, a->rank, &nr, NULL, &ns, NULL);
    tern_sched_keep_dtype(s, a->sdt);
    tern_sched_keep_dtype(s, a->rdt);
    for (int i = 0; a->sdts && i < ns; i++)
        tern_sched_keep_dtype(s, a->sdts[i]);
    for (int i = 0; a->rdts && i < nr; i++)
        tern_sched_keep_dtype(s, a->rdts[i]);
    tern_sched_keep_op(s, a->op);
}

int tern_coll_prepare(struct tern_comm *comm, enum tern_coll_kind kind)
{
    /* An intercommunicator's collectives (run_inter) need neither a host
     * layout nor a shared-memory slot. */
    if (comm->remote)
        return 0;
    int shm_kind = kind == TERN_COLL_BARRIER || kind == TERN_COLL_BCAST ||
                   kind == TERN_COLL_REDUCE || kind == TERN_COLL_ALLREDUCE ||
                   kind == TERN_COLL_ALLGATHER || kind == TERN_COLL_ALLGATHERV;
    if (!tern_coll_nodes(comm))
        return TERN_ENOMEM;
    return shm_kind && tern_coll_shm_wanted(comm) ? tern_coll_shm_setup(comm) : 0;
}

/* A collective on an intercommunicator: its schedule runs on the
 * communicator over both groups (inter.h), whose call numbers it takes. */
static int run_inter(struct tern_coll_args *a, struct tern_request **req)
{
    tern_coll_builder *build = tern_coll_inter_builder(a->kind);
    if (!build)
        return TERN_ECOMM;
    struct tern_comm *both = a->comm->both;
    a->size = a->comm->size;
    a->rank = a->comm->rank;
    a->stamp.seq = both->coll_seq;
    a->stamp.tag = (int)(a->stamp.seq & TERN_COLL_SEQ_MASK) |
                   tern_coll_signature_of(a->kind, 0, 0);
    a->stamp.root = 0;
    if (req) {
        struct tern_sched *s = tern_sched_new(both);
        if (!s)
            return TERN_ENOMEM;
        keep_objects(s, a);
        s->call = a->call;
        tern_sched_sign(s, &a->stamp);
        build(s, a);
        int rc = tern_sched_start(s, req);
        /* The request names the intercommunicator, whose error handler
         * and name its completion reports with (and holding it holds
         * `both`). */
        if (!rc)
            tern_request_hold_comm(*req, a->comm);
        return rc;
    }
    struct tern_sched s;
    tern_sched_init(&s, both);
    s.call = a->call;
    tern_sched_sign(&s, &a->stamp);
    build(&s, a);
    int rc = tern_sched_start(&s, NULL);
    both->coll_seq++;
    return rc;
}

static int run(struct tern_coll_args *a, struct tern_request **req)
{
    if (a->comm->remote)
        return run_inter(a, req);
    /* Every rank must choose the same algorithm, and the choice reads the
     * communicator's host layout: a rank that cannot compute it (out of
     * memory) fails the call instead of choosing unlike the others, which
     * would hang. The layout is computed once per communicator. */
    if (!tern_coll_nodes(a->comm))
        return TERN_ENOMEM;
    /* Only a blocking call may agree on a shared-memory slot (shm.h). */
    if (!req && tern_coll_shm_wanted(a->comm)) {
        int rc = tern_coll_shm_setup(a->comm);
        if (rc)
            return rc;
    }
    /* Set in place: a copy of the caller's just-written arguments stalled
     * (perf put a fifth of an 8-byte MPI_Bcast on it). */
    a->size = a->comm->size;
    a->rank = a->comm->rank;
    const struct tern_coll_algo *algo = tern_coll_select(a);
    if (!algo)
        return TERN_ENOTSUP;
    a->stamp.seq = a->comm->coll_seq;
    a->stamp.tag = (int)(a->stamp.seq & TERN_COLL_SEQ_MASK) | tern_coll_signature(a, algo);
    a->stamp.root = tern_coll_rooted(a->kind) ? a->root : 0;
    if (req) {
        struct tern_sched *s = tern_sched_new(a->comm);
        if (!s)
            return TERN_ENOMEM;
        keep_objects(s, a);
        s->call = a->call;
        tern_sched_sign(s, &a->stamp);
        algo->build(s, a);
        return tern_sched_start(s, req);
    }
    if (algo->run) {
        a->comm->coll_recent[a->stamp.seq % TERN_COLL_RECENT] = a->stamp;
        int rc = algo->run(a);
        if (rc != TERN_EAGAIN) {
            /* The call took the number its schedule would have taken, so
             * that the ranks' next calls agree on theirs; a blocking call
             * moves it on when it ends (sched.h). */
            a->comm->coll_seq++;
            return rc;
        }
    }
    struct tern_sched s;
    tern_sched_init(&s, a->comm);
    s.call = a->call;
    tern_sched_sign(&s, &a->stamp);
    algo->build(&s, a);
    int rc = tern_sched_start(&s, NULL);
    a->comm->coll_seq++;
    return rc;
}

void tern_coll_init(void)
{
    tern_coll_read_tunables();
    tern_coll_notices_init();
}

void tern_coll_finalizing(void)
{
    tern_coll_notices_finalizing();
    tern_coll_shm_finalizing();
}

int tern_coll_run(struct tern_coll_args *a, struct tern_request **req)
{
    int rc = run(a, req);
    if (rc)
        a->comm->coll_failed = 1;
    return rc;
}

int tern_coll_bcast(void *buf, size_t count, const struct tern_dtype *dt,
                    int root, struct tern_comm *comm)
{
    struct tern_coll_args a = { .kind = TERN_COLL_BCAST, .comm = comm, .rbuf = buf,
                                .rcount = count, .rdt = dt, .root = root };
    return tern_coll_run(&a, NULL);
}

int tern_coll_reduce(const void *sbuf, void *rbuf, size_t count,
                     const struct tern_dtype *dt, const struct tern_op *op,
                     int root, struct tern_comm *comm)
{
    struct tern_coll_args a = { .kind = TERN_COLL_REDUCE, .comm = comm, .sbuf = sbuf,
                                .rbuf = rbuf, .scount = count, .rcount = count,
                                .sdt = dt, .rdt = dt, .op = op, .root = root };
    return tern_coll_run(&a, NULL);
}

int tern_coll_allreduce(const void *sbuf, void *rbuf, size_t count,
                        const struct tern_dtype *dt, const struct tern_op *op,
                        struct tern_comm *comm)
{
    struct tern_coll_args a = { .kind = TERN_COLL_ALLREDUCE, .comm = comm, .sbuf = sbuf,
                                .rbuf = rbuf, .scount = count, .rcount = count,
                                .sdt = dt, .rdt = dt, .op = op };
    return tern_coll_run(&a, NULL);
}

int tern_coll_allgather(const void *sbuf, size_t scount, const struct tern_dtype *sdt,
                        void *rbuf, size_t rcount, const struct tern_dtype *rdt,
                        struct tern_comm *comm)
{
    struct tern_coll_args a = { .kind = TERN_COLL_ALLGATHER, .comm = comm, .sbuf = sbuf,
                                .rbuf = rbuf, .scount = scount, .rcount = rcount,
                                .sdt = sdt, .rdt = rdt };
    return tern_coll_run(&a, NULL);
}
