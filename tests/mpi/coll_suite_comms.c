/*
 * coll_suite_comms: collectives on split and duplicated communicators, in
 * step with collectives on MPI_COMM_WORLD.
 *
 * Communicators: W = MPI_COMM_WORLD, D = a dup of W, S = W split by the
 * parity of the rank with reversed keys (so S orders its ranks by
 * decreasing world rank), SD = a dup of S. Every input is seeded by the
 * world rank, and every reference is computed locally from the list of
 * world ranks in the communicator's order.
 *  - Rounds of blocking collectives that alternate between the
 *    communicators (Allreduce on W, Bcast on S from a root that moves,
 *    Allgather on D, a non-commutative Reduce on S, whose order shows that
 *    the reversed keys took effect, Alltoall on W, Scan on SD, Barrier on D);
 *    the even and the odd group run a different number of collectives on
 *    their S before meeting on W again, so the groups are out of step.
 *  - Nonblocking collectives on all four at once, started in one order on
 *    even ranks and the reverse order on odd ranks (the standard orders
 *    collectives per communicator only), completed with MPI_Waitall.
 *  - Communicators created, used and freed in a loop, so a new one that
 *    reuses an old one's context gets none of its messages.
 *
 * Uses only the standard MPI API.
 */
#include "coll_util.h"

#define SALT 51

static int wrank, wsize, ncase;
static MPI_Comm W = MPI_COMM_WORLD, D, S, SD;
static int *sworld, ssize, srank; /* S rank -> world rank, S's size, my S rank. */
static int *wworld;               /* W and D: rank -> world rank (identity). */

static uint32_t seed_of(int world, int c) { return ct_seed(world, c, SALT); }

/* The world rank of each rank of comm, in its rank order. */
static int *world_of(MPI_Comm comm)
{
    return comm == S || comm == SD ? sworld : wworld;
}

static int size_of(MPI_Comm comm)
{
    return comm == S || comm == SD ? ssize : wsize;
}

static int rank_of(MPI_Comm comm)
{
    return comm == S || comm == SD ? srank : wrank;
}

static const char *name_of(MPI_Comm comm)
{
    return comm == W ? "MPI_COMM_WORLD" : comm == D ? "the dup" : comm == S ? "the split"
                                                                          : "the split's dup";
}

/* Allreduce (scan = 0) or Scan (scan = 1) of n elements of t with op. */
static void reduction(MPI_Comm comm, const struct ct_type *t, enum ct_op op, size_t n,
                      int scan)
{
    int c = ncase++, me = rank_of(comm);
    void *sbuf = ct_alloc(t, n), *rbuf = ct_alloc(t, n), *exp = ct_alloc(t, n);
    ct_fill(t, op, sbuf, n, seed_of(wrank, c));
    ct_reference_list(t, op, exp, 0, 0, n, world_of(comm), scan ? me + 1 : size_of(comm), c,
                      SALT);
    if (scan)
        TT_MPI(MPI_Scan(sbuf, rbuf, (int)n, t->dt, ct_mpi_op(op), comm));
    else
        TT_MPI(MPI_Allreduce(sbuf, rbuf, (int)n, t->dt, ct_mpi_op(op), comm));
    CT_CHECK(t, rbuf, exp, n, "%s on %s, case %d: %zu x %s, %s", scan ? "MPI_Scan" : "MPI_Allreduce",
             name_of(comm), c, n, t->name, ct_op_names[op]);
    free(sbuf);
    free(rbuf);
    free(exp);
}

static void reduce(MPI_Comm comm, enum ct_op op, size_t n, int root)
{
    const struct ct_type *t = &ct_types[op == CT_AFFINE ? CT_T_AFFINE : CT_T_INT];
    int c = ncase++, me = rank_of(comm);
    void *sbuf = ct_alloc(t, n), *rbuf = ct_alloc(t, n), *exp = ct_alloc(t, n);
    ct_fill(t, op, sbuf, n, seed_of(wrank, c));
    ct_reference_list(t, op, exp, 0, 0, n, world_of(comm), size_of(comm), c, SALT);
    TT_MPI(MPI_Reduce(sbuf, rbuf, (int)n, t->dt, ct_mpi_op(op), root, comm));
    if (me == root)
        CT_CHECK(t, rbuf, exp, n, "MPI_Reduce on %s, case %d: %zu x %s, %s, root %d",
                 name_of(comm), c, n, t->name, ct_op_names[op], root);
    free(sbuf);
    free(rbuf);
    free(exp);
}

static void bcast(MPI_Comm comm, size_t n, int root)
{
    const struct ct_type *t = &ct_types[CT_T_INT];
    int c = ncase++, me = rank_of(comm);
    void *buf = ct_alloc(t, n), *exp = ct_alloc(t, n);
    ct_fill(t, CT_SUM, exp, n, seed_of(world_of(comm)[root], c));
    if (me == root)
        ct_fill(t, CT_SUM, buf, n, seed_of(wrank, c));
    TT_MPI(MPI_Bcast(buf, (int)n, t->dt, root, comm));
    CT_CHECK(t, buf, exp, n, "MPI_Bcast on %s, case %d: %zu x MPI_INT, root %d", name_of(comm),
             c, n, root);
    free(buf);
    free(exp);
}

/* Allgather (a2a = 0) or Alltoall (a2a = 1), n ints per rank. */
static void allgather(MPI_Comm comm, size_t n, int a2a)
{
    const struct ct_type *t = &ct_types[CT_T_INT];
    int c = ncase++, p = size_of(comm), me = rank_of(comm);
    size_t all = n * (size_t)p;
    void *sbuf = ct_alloc(t, all), *rbuf = ct_alloc(t, all), *exp = ct_alloc(t, all);
    ct_fill(t, CT_SUM, sbuf, a2a ? all : n, seed_of(wrank, c));
    for (int q = 0; q < p; q++)
        ct_fill_at(t, CT_SUM, exp, (size_t)q * n, a2a ? (size_t)me * n : 0, n,
                   seed_of(world_of(comm)[q], c));
    if (a2a)
        TT_MPI(MPI_Alltoall(sbuf, (int)n, MPI_INT, rbuf, (int)n, MPI_INT, comm));
    else
        TT_MPI(MPI_Allgather(sbuf, (int)n, MPI_INT, rbuf, (int)n, MPI_INT, comm));
    CT_CHECK(t, rbuf, exp, all, "%s on %s, case %d: %zu x MPI_INT per rank",
             a2a ? "MPI_Alltoall" : "MPI_Allgather", name_of(comm), c, n);
    free(sbuf);
    free(rbuf);
    free(exp);
}

static void rounds(void)
{
    const struct ct_type *in = &ct_types[CT_T_INT], *dbl = &ct_types[CT_T_DOUBLE];
    for (int it = 0; it < 8; it++) {
        size_t n = it % 2 ? 7 : 300;
        reduction(W, in, CT_SUM, n, 0);
        bcast(S, n, it % ssize);
        allgather(D, 3, 0);
        reduce(S, CT_AFFINE, n, (it + 1) % ssize);
        /* The groups go out of step: each runs its own number of extra
         * collectives on its S before the next one on W (and the case
         * numbers, which seed the inputs, agree again after them). */
        int save = ncase;
        for (int k = 0; k < 1 + wrank % 2 * 2; k++)
            bcast(S, 5, ssize - 1);
        ncase = save + 3;
        allgather(W, 2, 1);
        reduction(SD, dbl, CT_SUM, n, 1);
        TT_MPI(MPI_Barrier(D));
        reduce(D, CT_AFFINE, 5, wsize - 1 - it % wsize);
        reduction(S, in, CT_MAX, n, 0);
    }
}

/* Nonblocking collectives on every communicator at once, started in
 * opposite orders on even and odd ranks. */
static void crossed(void)
{
    const struct ct_type *in = &ct_types[CT_T_INT];
    enum { NC = 4 };
    MPI_Comm comms[NC] = {W, S, D, SD};
    int c = ncase;
    ncase += NC;
    size_t n = 500;
    void *sbuf[NC], *rbuf[NC], *exp[NC];
    MPI_Request req[NC];
    for (int i = 0; i < NC; i++) {
        sbuf[i] = ct_alloc(in, n);
        rbuf[i] = ct_alloc(in, n);
        exp[i] = ct_alloc(in, n);
        ct_fill(in, CT_SUM, sbuf[i], n, seed_of(wrank, c + i));
        ct_reference_list(in, CT_SUM, exp[i], 0, 0, n, world_of(comms[i]),
                          size_of(comms[i]), c + i, SALT);
    }
    for (int j = 0; j < NC; j++) {
        int i = wrank % 2 ? NC - 1 - j : j;
        TT_MPI(MPI_Iallreduce(sbuf[i], rbuf[i], (int)n, MPI_INT, MPI_SUM, comms[i], &req[i]));
    }
    TT_MPI(MPI_Waitall(NC, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NC; i++) {
        TT_CHECK(req[i] == MPI_REQUEST_NULL, "MPI_Waitall left request %d set", i);
        CT_CHECK(in, rbuf[i], exp[i], n, "MPI_Iallreduce on %s, started in crossed order",
                 name_of(comms[i]));
        free(sbuf[i]);
        free(rbuf[i]);
        free(exp[i]);
    }
}

/* Communicators made and freed in a loop, used at once. */
static void churn(void)
{
    const struct ct_type *in = &ct_types[CT_T_INT];
    for (int it = 0; it < 10; it++) {
        MPI_Comm save = D;
        TT_MPI(MPI_Comm_dup(it % 2 ? W : save, &D));
        reduction(D, in, CT_SUM, 1 + (size_t)it, 0);
        bcast(D, 3, it % wsize);
        TT_MPI(MPI_Comm_free(&D));
        D = save;
    }
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_suite_comms");
    wrank = tt_rank;
    wsize = tt_size;
    ct_init();
    TT_MPI(MPI_Comm_dup(W, &D));
    TT_MPI(MPI_Comm_split(W, wrank % 2, wsize - wrank, &S));
    TT_MPI(MPI_Comm_dup(S, &SD));
    TT_MPI(MPI_Comm_size(S, &ssize));
    TT_MPI(MPI_Comm_rank(S, &srank));
    /* S holds the ranks of one parity, highest world rank first. */
    sworld = tt_malloc(sizeof(int) * (size_t)wsize);
    wworld = tt_malloc(sizeof(int) * (size_t)wsize);
    int k = 0;
    for (int w = wsize - 1; w >= 0; w--)
        if (w % 2 == wrank % 2)
            sworld[k++] = w;
    for (int w = 0; w < wsize; w++)
        wworld[w] = w;
    TT_EQ("size of the split", k, ssize);
    TT_EQ("rank in the split (reversed keys)", ((wsize - 1 - wrank) / 2), srank);
    rounds();
    crossed();
    churn();
    rounds();
    TT_MPI(MPI_Comm_free(&SD));
    TT_MPI(MPI_Comm_free(&S));
    TT_MPI(MPI_Comm_free(&D));
    free(sworld);
    free(wworld);
    ct_finalize();
    return tt_finish();
}
