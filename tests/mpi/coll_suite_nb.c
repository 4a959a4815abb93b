/*
 * coll_suite_nb: nonblocking collectives, many at once.
 *
 *  - Every nonblocking collective (MPI_Ibarrier ... MPI_Iexscan, 17 of them)
 *    outstanding at once on one communicator, completed with MPI_Waitall,
 *    an MPI_Testany loop, MPI_Wait in reverse order, an MPI_Waitsome loop or
 *    an MPI_Testall loop; each rank uses a different one in each round, so
 *    all of them run against each other.
 *  - The same on two communicators at once (MPI_COMM_WORLD and a dup), the
 *    collectives started in opposite orders on the two.
 *  - Point-to-point traffic on the same communicator while collectives are
 *    outstanding: MPI_Iprobe with MPI_ANY_SOURCE / MPI_ANY_TAG sees nothing
 *    before the user sends (collective traffic never shows in the user's
 *    tag space), then wildcard receives get exactly the user's messages,
 *    with tags 0, 1 and 2, with the right statuses.
 * Every result is checked against a reference computed locally (see
 * coll_util.h); completed requests must be MPI_REQUEST_NULL. Sizes: 1, 100
 * and 20000 ints per block (the last past any eager limit). Reduce and Scan
 * use the non-commutative user op.
 *
 * Uses only the standard MPI API.
 */
#include "coll_util.h"

#define SALT 61

enum kind { K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_GATHER, K_GATHERV, K_SCATTER,
            K_SCATTERV, K_ALLGATHER, K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV, K_ALLTOALLW,
            K_RS, K_RSB, K_SCAN, K_EXSCAN, NK };

static const char *const kind_names[NK] = {
    "MPI_Ibarrier", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iallreduce", "MPI_Igather",
    "MPI_Igatherv", "MPI_Iscatter", "MPI_Iscatterv", "MPI_Iallgather", "MPI_Iallgatherv",
    "MPI_Ialltoall", "MPI_Ialltoallv", "MPI_Ialltoallw", "MPI_Ireduce_scatter",
    "MPI_Ireduce_scatter_block", "MPI_Iscan", "MPI_Iexscan"};

/* One nonblocking collective in flight: its buffers and its reference. */
struct nb {
    enum kind k;
    MPI_Comm comm;
    int c, p, me, root;
    size_t n, nexp;
    const struct ct_type *t;
    void *sbuf, *rbuf, *exp;
    int *cnt, *dsp, *rcnt, *rdsp;
    MPI_Datatype *types;
};

static int ncase;

static uint32_t seed_of(int q, int c) { return ct_seed(q, c, SALT); }

/* Counts n + q and packed displacements, for the v forms. */
static int *counts(size_t n, int p, int **dsp)
{
    int *cnt = tt_malloc(sizeof(int) * (size_t)p);
    *dsp = tt_malloc(sizeof(int) * (size_t)p);
    int off = 0;
    for (int q = 0; q < p; q++) {
        cnt[q] = (int)n + q;
        (*dsp)[q] = off;
        off += cnt[q];
    }
    return cnt;
}

/* Where rank q's block for rank me starts in q's Alltoallv send buffer. */
static size_t a2av_off(size_t n, int me) { return (size_t)me * n + (size_t)(me * (me - 1) / 2); }

/* Allocates buffers, fills inputs and the reference, for a collective
 * whose input and output sizes are given (in elements of x->t). */
static void buffers(struct nb *x, size_t sn, size_t rn)
{
    x->sbuf = ct_alloc(x->t, sn);
    x->rbuf = ct_alloc(x->t, rn);
    x->exp = ct_alloc(x->t, rn);
    x->nexp = rn;
}

/* The reference of x into x->exp (nothing to compare: nexp = 0). */
static void reference(struct nb *x)
{
    const struct ct_type *t = x->t;
    size_t n = x->n;
    int p = x->p, me = x->me, c = x->c;
    switch (x->k) {
    case K_BCAST: ct_fill(t, CT_SUM, x->exp, n, seed_of(x->root, c)); break;
    case K_REDUCE:
        if (me == x->root)
            ct_reference(t, CT_AFFINE, x->exp, 0, 0, n, 0, p - 1, c, SALT);
        else
            x->nexp = 0;
        break;
    case K_ALLREDUCE: ct_reference(t, CT_SUM, x->exp, 0, 0, n, 0, p - 1, c, SALT); break;
    case K_SCAN: ct_reference(t, CT_AFFINE, x->exp, 0, 0, n, 0, me, c, SALT); break;
    case K_EXSCAN:
        if (me > 0)
            ct_reference(t, CT_SUM, x->exp, 0, 0, n, 0, me - 1, c, SALT);
        else
            x->nexp = 0;
        break;
    case K_RSB: ct_reference(t, CT_SUM, x->exp, 0, (size_t)me * n, n, 0, p - 1, c, SALT); break;
    case K_RS:
        ct_reference(t, CT_SUM, x->exp, 0, (size_t)x->dsp[me], (size_t)x->cnt[me], 0, p - 1, c,
                     SALT);
        break;
    case K_GATHER:
    case K_ALLGATHER:
        if (x->k == K_GATHER && me != x->root) {
            x->nexp = 0;
            break;
        }
        for (int q = 0; q < p; q++)
            ct_fill_at(t, CT_SUM, x->exp, (size_t)q * n, 0, n, seed_of(q, c));
        break;
    case K_GATHERV:
    case K_ALLGATHERV:
        if (x->k == K_GATHERV && me != x->root) {
            x->nexp = 0;
            break;
        }
        for (int q = 0; q < p; q++)
            ct_fill_at(t, CT_SUM, x->exp, (size_t)x->dsp[q], 0, (size_t)x->cnt[q], seed_of(q, c));
        break;
    case K_SCATTER: ct_fill_at(t, CT_SUM, x->exp, 0, (size_t)me * n, n, seed_of(x->root, c)); break;
    case K_SCATTERV:
        ct_fill_at(t, CT_SUM, x->exp, 0, (size_t)x->dsp[me], (size_t)x->cnt[me],
                   seed_of(x->root, c));
        break;
    case K_ALLTOALL:
        for (int q = 0; q < p; q++)
            ct_fill_at(t, CT_SUM, x->exp, (size_t)q * n, (size_t)me * n, n, seed_of(q, c));
        break;
    case K_ALLTOALLV:
    case K_ALLTOALLW:
        for (int q = 0; q < p; q++)
            ct_fill_at(t, CT_SUM, x->exp, (size_t)x->rdsp[q], a2av_off(n, me),
                       (size_t)x->rcnt[q], seed_of(q, c));
        break;
    default: x->nexp = 0; break;
    }
}

/* The counts and displacements of x's v and w forms, and the elements it
 * sends and receives. */
static void layout(struct nb *x, size_t *sn, size_t *rn)
{
    enum kind k = x->k;
    int p = x->p, me = x->me;
    size_t n = x->n, all = n * (size_t)p;
    *sn = *rn = n;
    if (k == K_GATHERV || k == K_SCATTERV || k == K_ALLGATHERV || k == K_RS) {
        x->cnt = counts(n, p, &x->dsp);
        all = (size_t)x->dsp[p - 1] + (size_t)x->cnt[p - 1];
        int split = k == K_RS || k == K_SCATTERV;
        *sn = split ? all : (size_t)x->cnt[me];
        *rn = split ? (size_t)x->cnt[me] : all;
    } else if (k == K_ALLTOALLV || k == K_ALLTOALLW) {
        x->cnt = counts(n, p, &x->dsp);
        x->rcnt = tt_malloc(sizeof(int) * (size_t)p);
        x->rdsp = tt_malloc(sizeof(int) * (size_t)p);
        for (int q = 0; q < p; q++) {
            x->rcnt[q] = (int)n + me;
            x->rdsp[q] = q * ((int)n + me);
        }
        *sn = (size_t)x->dsp[p - 1] + (size_t)x->cnt[p - 1];
        *rn = (size_t)p * (n + (size_t)me);
    } else if (k == K_GATHER || k == K_ALLGATHER) {
        *rn = all;
    } else if (k == K_SCATTER || k == K_RSB || k == K_ALLTOALL) {
        *sn = all;
        *rn = k == K_ALLTOALL ? all : n;
    }
}

/* Starts the nonblocking call of x. */
static void launch(struct nb *x, MPI_Request *req)
{
    MPI_Comm comm = x->comm;
    MPI_Datatype dt = x->t->dt;
    MPI_Op mop = ct_mpi_op(x->k == K_REDUCE || x->k == K_SCAN ? CT_AFFINE : CT_SUM);
    int in = (int)x->n, r = x->root, me = x->me;
    void *s = x->sbuf, *d = x->rbuf;
    switch (x->k) {
    case K_BARRIER: TT_MPI(MPI_Ibarrier(comm, req)); break;
    case K_BCAST: TT_MPI(MPI_Ibcast(d, in, dt, r, comm, req)); break;
    case K_REDUCE: TT_MPI(MPI_Ireduce(s, d, in, dt, mop, r, comm, req)); break;
    case K_ALLREDUCE: TT_MPI(MPI_Iallreduce(s, d, in, dt, mop, comm, req)); break;
    case K_GATHER: TT_MPI(MPI_Igather(s, in, dt, d, in, dt, r, comm, req)); break;
    case K_GATHERV:
        TT_MPI(MPI_Igatherv(s, x->cnt[me], dt, d, x->cnt, x->dsp, dt, r, comm, req));
        break;
    case K_SCATTER: TT_MPI(MPI_Iscatter(s, in, dt, d, in, dt, r, comm, req)); break;
    case K_SCATTERV:
        TT_MPI(MPI_Iscatterv(s, x->cnt, x->dsp, dt, d, x->cnt[me], dt, r, comm, req));
        break;
    case K_ALLGATHER: TT_MPI(MPI_Iallgather(s, in, dt, d, in, dt, comm, req)); break;
    case K_ALLGATHERV:
        TT_MPI(MPI_Iallgatherv(s, x->cnt[me], dt, d, x->cnt, x->dsp, dt, comm, req));
        break;
    case K_ALLTOALL: TT_MPI(MPI_Ialltoall(s, in, dt, d, in, dt, comm, req)); break;
    case K_ALLTOALLV:
        TT_MPI(MPI_Ialltoallv(s, x->cnt, x->dsp, dt, d, x->rcnt, x->rdsp, dt, comm, req));
        break;
    case K_ALLTOALLW:
        x->types = tt_malloc(sizeof(MPI_Datatype) * (size_t)x->p);
        for (int q = 0; q < x->p; q++) {
            x->types[q] = MPI_INT;
            x->dsp[q] *= (int)sizeof(int);
            x->rdsp[q] *= (int)sizeof(int);
        }
        TT_MPI(MPI_Ialltoallw(s, x->cnt, x->dsp, x->types, d, x->rcnt, x->rdsp, x->types, comm,
                              req));
        break;
    case K_RS: TT_MPI(MPI_Ireduce_scatter(s, d, x->cnt, dt, mop, comm, req)); break;
    case K_RSB: TT_MPI(MPI_Ireduce_scatter_block(s, d, in, dt, mop, comm, req)); break;
    case K_SCAN: TT_MPI(MPI_Iscan(s, d, in, dt, mop, comm, req)); break;
    case K_EXSCAN: TT_MPI(MPI_Iexscan(s, d, in, dt, mop, comm, req)); break;
    default: TT_FAIL("no such collective %d", (int)x->k);
    }
}

/* Sets up x (kind k on comm, n elements per block) and starts it. */
static void start(struct nb *x, enum kind k, MPI_Comm comm, size_t n, MPI_Request *req)
{
    memset(x, 0, sizeof *x);
    x->k = k;
    x->comm = comm;
    x->c = ncase++;
    x->n = n;
    TT_MPI(MPI_Comm_size(comm, &x->p));
    TT_MPI(MPI_Comm_rank(comm, &x->me));
    x->root = (x->c * 5) % x->p;
    x->t = &ct_types[k == K_REDUCE || k == K_SCAN ? CT_T_AFFINE : CT_T_INT];
    enum ct_op op = k == K_REDUCE || k == K_SCAN ? CT_AFFINE : CT_SUM;
    size_t sn, rn;
    layout(x, &sn, &rn);
    buffers(x, sn, rn);
    ct_fill(x->t, op, x->sbuf, sn, seed_of(x->me, x->c));
    if (k == K_BCAST && x->me == x->root)
        ct_fill(x->t, op, x->rbuf, n, seed_of(x->me, x->c));
    reference(x);
    launch(x, req);
}

/* Checks a completed collective and frees what it held. */
static void finish(struct nb *x, const char *how)
{
    if (x->nexp)
        CT_CHECK(x->t, x->rbuf, x->exp, x->nexp, "%s case %d, %zu per block, root %d, %s",
                 kind_names[x->k], x->c, x->n, x->root, how);
    free(x->sbuf);
    free(x->rbuf);
    free(x->exp);
    free(x->cnt);
    free(x->dsp);
    free(x->rcnt);
    free(x->rdsp);
    free(x->types);
}

static const char *const mode_names[] = {"MPI_Waitall", "MPI_Testany loop",
                                         "MPI_Wait in reverse order", "MPI_Waitsome loop",
                                         "MPI_Testall loop"};

/* Completes n requests the way `mode` says; every one must end up NULL. */
static void complete(MPI_Request *req, int n, int mode)
{
    int done = 0, flag, idx, outs, *ids = tt_malloc(sizeof(int) * (size_t)n);
    switch (mode) {
    case 0: TT_MPI(MPI_Waitall(n, req, MPI_STATUSES_IGNORE)); break;
    case 1:
        while (done < n) {
            TT_MPI(MPI_Testany(n, req, &idx, &flag, MPI_STATUS_IGNORE));
            if (flag && idx != MPI_UNDEFINED)
                done++;
            TT_CHECK(!flag || idx != MPI_UNDEFINED || done == n,
                     "MPI_Testany: flag set, no index, %d of %d done", done, n);
        }
        break;
    case 2:
        for (int i = n - 1; i >= 0; i--)
            TT_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
        break;
    case 3:
        while (done < n) {
            TT_MPI(MPI_Waitsome(n, req, &outs, ids, MPI_STATUSES_IGNORE));
            TT_CHECK(outs != MPI_UNDEFINED && outs > 0, "MPI_Waitsome returned %d", outs);
            done += outs;
        }
        break;
    default:
        do
            TT_MPI(MPI_Testall(n, req, &flag, MPI_STATUSES_IGNORE));
        while (!flag);
        break;
    }
    for (int i = 0; i < n; i++)
        TT_CHECK(req[i] == MPI_REQUEST_NULL, "%s left request %d of %d set", mode_names[mode],
                 i, n);
    free(ids);
}

/* Every collective at once on comm, completed by `mode`. */
static void all_at_once(MPI_Comm comm, size_t n, int mode)
{
    struct nb x[NK];
    MPI_Request req[NK];
    for (int k = 0; k < NK; k++)
        start(&x[k], (enum kind)k, comm, n, &req[k]);
    complete(req, NK, mode);
    for (int k = 0; k < NK; k++)
        finish(&x[k], mode_names[mode]);
}

/* Every collective on two communicators, started in opposite orders. */
static void two_comms(MPI_Comm a, MPI_Comm b, size_t n, int mode)
{
    struct nb x[2 * NK];
    MPI_Request req[2 * NK];
    for (int k = 0; k < NK; k++) {
        start(&x[2 * k], (enum kind)k, a, n, &req[2 * k]);
        start(&x[2 * k + 1], (enum kind)(NK - 1 - k), b, n, &req[2 * k + 1]);
    }
    complete(req, 2 * NK, mode);
    for (int k = 0; k < 2 * NK; k++)
        finish(&x[k], "two communicators");
}

/* User messages with tags 0, 1, 2 on comm while collectives are in flight. */
static void with_p2p(MPI_Comm comm, size_t n)
{
    enum { NCOLL = 6, NMSG = 3 };
    static const enum kind ks[NCOLL] = {K_ALLREDUCE, K_BCAST, K_ALLTOALL, K_SCAN,
                                        K_BARRIER, K_GATHERV};
    struct nb x[NCOLL];
    MPI_Request req[NCOLL], preq[2 * NMSG];
    MPI_Status st[NMSG];
    int me, p, flag, out[NMSG], in[NMSG];
    TT_MPI(MPI_Comm_rank(comm, &me));
    TT_MPI(MPI_Comm_size(comm, &p));
    for (int i = 0; i < NCOLL; i++)
        start(&x[i], ks[i], comm, n, &req[i]);
    /* No user message exists yet: nothing may match a wildcard probe. */
    for (int i = 0; i < 50; i++) {
        MPI_Status s;
        TT_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &s));
        TT_CHECK(!flag, "MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) during collectives found a "
                        "message from %d with tag %d",
                 s.MPI_SOURCE, s.MPI_TAG);
    }
    tt_sync();
    for (int t = 0; t < NMSG; t++) {
        TT_MPI(MPI_Irecv(&in[t], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &preq[t]));
        out[t] = 1000 * me + t;
    }
    int next = (me + 1) % p;
    for (int t = 0; t < NMSG; t++)
        TT_MPI(MPI_Isend(&out[t], 1, MPI_INT, next, t, comm, &preq[NMSG + t]));
    complete(req, NCOLL, (me + 1) % 5);
    TT_MPI(MPI_Waitall(NMSG, preq, st));
    TT_MPI(MPI_Waitall(NMSG, preq + NMSG, MPI_STATUSES_IGNORE));
    int prev = (me + p - 1) % p;
    for (int t = 0; t < NMSG; t++) {
        /* Messages from one sender match in the order sent. */
        TT_CHECK_STATUS(st[t], prev, t, MPI_INT, 1, "user message during collectives");
        TT_EQ("user message during collectives", 1000 * prev + t, in[t]);
    }
    for (int i = 0; i < NCOLL; i++)
        finish(&x[i], "with point-to-point traffic");
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_suite_nb");
    ct_init();
    MPI_Comm dup;
    TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    static const size_t sizes[] = {1, 100, 20000};
    for (int round = 0; round < 5; round++)
        all_at_once(MPI_COMM_WORLD, sizes[round % 3], (round + tt_rank) % 5);
    for (int i = 0; i < 3; i++)
        two_comms(MPI_COMM_WORLD, dup, sizes[i], (i + tt_rank) % 5);
    /* On the dup: tt.h's own messages on MPI_COMM_WORLD would match the
     * wildcard receives. */
    for (int i = 0; i < 3; i++)
        with_p2p(dup, sizes[i]);
    TT_MPI(MPI_Comm_free(&dup));
    ct_finalize();
    return tt_finish();
}
