/*
 * coll_errors: argument errors of the collectives, mismatches between
 * ranks, and the requests of nonblocking collectives.
 *
 * Without arguments, MPI_ERRORS_RETURN is set on MPI_COMM_WORLD and
 * MPI_COMM_SELF and:
 *  - every bad argument returns the class the standard (or, where it names
 *    none, common practice) gives it: MPI_COMM_NULL -> MPI_ERR_COMM,
 *    negative counts -> MPI_ERR_COUNT, MPI_DATATYPE_NULL -> MPI_ERR_TYPE,
 *    root out of range -> MPI_ERR_ROOT, NULL buffer with data ->
 *    MPI_ERR_BUFFER, MPI_OP_NULL or an op not defined for the type ->
 *    MPI_ERR_OP, NULL request or count array -> MPI_ERR_ARG, MPI_IN_PLACE
 *    where the standard does not allow it and sendbuf == recvbuf ->
 *    MPI_ERR_BUFFER (MPICH's class; Open MPI says MPI_ERR_ARG for some, so
 *    both are accepted there). On WORLD every rank passes a bad argument,
 *    so no rank starts a collective the others do not join; errors that
 *    only the root can have are tested on MPI_COMM_SELF.
 *  - a broadcast whose receivers pass a smaller count than the root reports
 *    MPI_ERR_TRUNCATE on at least one receiver and on no other rank an
 *    error of another class, blocking and (at MPI_Wait) nonblocking, and the
 *    communicator still works afterwards.
 *  - nonblocking collectives complete through MPI_Wait, Test, Waitall (mixed
 *    with point-to-point requests), Waitany, Testany, Waitsome, Testsome,
 *    Testall and Request_get_status, with an empty status (MPI_ANY_SOURCE,
 *    MPI_ANY_TAG, count 0); MPI_Request_free of one is accepted and
 *    MPI_Cancel of one is an error (MPI_ERR_REQUEST).
 * With "fatal", "fatal_trunc" or "fatal_itrunc" the default handler stays:
 * an invalid root, a truncating MPI_Bcast or MPI_Ibcast + MPI_Wait ends the
 * job; the driver checks the one-line message names the call.
 */
#include "tt.h"

static int nchecked = 0;

/* rc must be an error of class want (or of class alt, if alt is not 0). */
static void expect2(int rc, int want, int alt, const char *what)
{
    int cls = -1;
    nchecked++;
    if (rc == MPI_SUCCESS)
        TT_FAIL("%s returned MPI_SUCCESS, expected error class %d", what, want);
    TT_MPI(MPI_Error_class(rc, &cls));
    if (cls != want && (alt == 0 || cls != alt))
        TT_FAIL("%s: error class %d (%s), expected %d", what, cls, tt_errstr(rc), want);
}

static void expect(int rc, int want, const char *what)
{
    expect2(rc, want, 0, what);
}

#define EXPECT(call, want) expect((call), (want), #call)
/* MPI_IN_PLACE misuse and aliasing: the standard names no class. */
#define EXPECT_BUF(call) expect2((call), MPI_ERR_BUFFER, MPI_ERR_ARG, #call)

static void bad_comm_count_type(void)
{
    int a[8] = {0}, b[8 * 64] = {0};
    MPI_Request r;
    MPI_Comm W = MPI_COMM_WORLD;
    EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Ibarrier(MPI_COMM_NULL, &r), MPI_ERR_COMM);
    EXPECT(MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Ibarrier(W, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Ibcast(a, 1, MPI_INT, 0, W, NULL), MPI_ERR_ARG);

    EXPECT(MPI_Bcast(a, -1, MPI_INT, 0, W), MPI_ERR_COUNT);
    EXPECT(MPI_Ibcast(a, -1, MPI_INT, 0, W, &r), MPI_ERR_COUNT);
    EXPECT(MPI_Reduce(a, b, -1, MPI_INT, MPI_SUM, 0, W), MPI_ERR_COUNT);
    EXPECT(MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, W), MPI_ERR_COUNT);
    EXPECT(MPI_Scan(a, b, -1, MPI_INT, MPI_SUM, W), MPI_ERR_COUNT);
    EXPECT(MPI_Exscan(a, b, -1, MPI_INT, MPI_SUM, W), MPI_ERR_COUNT);
    EXPECT(MPI_Reduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, W), MPI_ERR_COUNT);
    EXPECT(MPI_Gather(a, -1, MPI_INT, b, 1, MPI_INT, 0, W), MPI_ERR_COUNT);
    EXPECT(MPI_Scatter(a, 1, MPI_INT, b, -1, MPI_INT, 0, W), MPI_ERR_COUNT);
    EXPECT(MPI_Allgather(a, 1, MPI_INT, b, -1, MPI_INT, W), MPI_ERR_COUNT);
    EXPECT(MPI_Alltoall(a, -1, MPI_INT, b, 1, MPI_INT, W), MPI_ERR_COUNT);
    EXPECT(MPI_Ialltoall(a, 1, MPI_INT, b, -2, MPI_INT, W, &r), MPI_ERR_COUNT);

    EXPECT(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, W), MPI_ERR_TYPE);
    EXPECT(MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, W), MPI_ERR_TYPE);
    EXPECT(MPI_Allgather(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, W), MPI_ERR_TYPE);
    EXPECT(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, W), MPI_ERR_TYPE);
    EXPECT(MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, 0, W), MPI_ERR_TYPE);
}

static void bad_root_buf_op(void)
{
    int a[8] = {0}, b[8 * 64] = {0}, counts[64] = {0}, displs[64] = {0};
    MPI_Request r;
    MPI_Comm W = MPI_COMM_WORLD;
    int n = tt_size;
    EXPECT(MPI_Bcast(a, 1, MPI_INT, n, W), MPI_ERR_ROOT);
    EXPECT(MPI_Bcast(a, 1, MPI_INT, -1, W), MPI_ERR_ROOT);
    EXPECT(MPI_Ibcast(a, 1, MPI_INT, n + 5, W, &r), MPI_ERR_ROOT);
    EXPECT(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, n, W), MPI_ERR_ROOT);
    EXPECT(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, n, W), MPI_ERR_ROOT);
    EXPECT(MPI_Gatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, -3, W), MPI_ERR_ROOT);
    EXPECT(MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, n, W), MPI_ERR_ROOT);
    EXPECT(MPI_Scatterv(a, counts, displs, MPI_INT, b, 1, MPI_INT, n, W), MPI_ERR_ROOT);

    EXPECT(MPI_Bcast(NULL, 4, MPI_INT, 0, W), MPI_ERR_BUFFER);
    EXPECT(MPI_Allreduce(NULL, b, 4, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
    EXPECT(MPI_Allreduce(a, NULL, 4, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
    EXPECT(MPI_Allgather(a, 1, MPI_INT, NULL, 1, MPI_INT, W), MPI_ERR_BUFFER);
    EXPECT(MPI_Alltoall(NULL, 1, MPI_INT, b, 1, MPI_INT, W), MPI_ERR_BUFFER);
    EXPECT(MPI_Gather(NULL, 2, MPI_INT, b, 2, MPI_INT, 0, W), MPI_ERR_BUFFER);

    EXPECT(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, W), MPI_ERR_OP);
    EXPECT(MPI_Reduce(a, b, 1, MPI_INT, MPI_OP_NULL, 0, W), MPI_ERR_OP);
    EXPECT(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_OP_NULL, W, &r), MPI_ERR_OP);
    EXPECT(MPI_Scan(a, b, 1, MPI_FLOAT, MPI_BAND, W), MPI_ERR_OP);
    EXPECT(MPI_Allreduce(a, b, 1, MPI_DOUBLE, MPI_BXOR, W), MPI_ERR_OP);
}

static void bad_arrays(void)
{
    int a[8] = {0}, b[8 * 64] = {0}, counts[64], displs[64];
    MPI_Datatype types[64];
    MPI_Comm W = MPI_COMM_WORLD;
    for (int i = 0; i < 64; i++) {
        counts[i] = 1;
        displs[i] = i;
        types[i] = MPI_INT;
    }
    EXPECT(MPI_Allgatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, W), MPI_ERR_ARG);
    EXPECT(MPI_Allgatherv(a, 1, MPI_INT, b, counts, NULL, MPI_INT, W), MPI_ERR_ARG);
    EXPECT(MPI_Alltoallv(a, NULL, displs, MPI_INT, b, counts, displs, MPI_INT, W), MPI_ERR_ARG);
    EXPECT(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, W), MPI_ERR_ARG);
    EXPECT(MPI_Alltoallw(a, counts, displs, NULL, b, counts, displs, types, W), MPI_ERR_ARG);
    EXPECT(MPI_Gatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_ARG);
    EXPECT(MPI_Scatterv(a, counts, NULL, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_ARG);

    counts[tt_size - 1] = -1;
    EXPECT(MPI_Allgatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, W), MPI_ERR_COUNT);
    EXPECT(MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, W), MPI_ERR_COUNT);
    EXPECT(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, W), MPI_ERR_COUNT);
    counts[tt_size - 1] = 1;
    counts[0] = -7;
    EXPECT(MPI_Gatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_COUNT);
    counts[0] = 1;

    types[tt_size - 1] = MPI_DATATYPE_NULL;
    EXPECT(MPI_Alltoallw(a, counts, displs, types, b, counts, displs, types, W), MPI_ERR_TYPE);
    types[tt_size - 1] = MPI_INT;

#if MPI_VERSION >= 4
    MPI_Count ccounts[64];
    MPI_Aint cdispls[64];
    for (int i = 0; i < 64; i++) {
        ccounts[i] = 1;
        cdispls[i] = i;
    }
    EXPECT(MPI_Bcast_c(a, -1, MPI_INT, 0, W), MPI_ERR_COUNT);
    EXPECT(MPI_Allreduce_c(a, b, 1, MPI_INT, MPI_OP_NULL, W), MPI_ERR_OP);
    EXPECT(MPI_Allgatherv_c(a, 1, MPI_INT, b, NULL, cdispls, MPI_INT, W), MPI_ERR_ARG);
    ccounts[tt_size - 1] = -1;
    EXPECT(MPI_Allgatherv_c(a, 1, MPI_INT, b, ccounts, cdispls, MPI_INT, W), MPI_ERR_COUNT);
    ccounts[0] = -1;
    EXPECT(MPI_Gatherv_c(a, 1, MPI_INT, b, ccounts, cdispls, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_COUNT);
#endif
}

/* MPI_IN_PLACE where it is not allowed, and sendbuf == recvbuf. */
static void bad_in_place(void)
{
    int a[8] = {0}, b[8 * 64] = {0};
    MPI_Comm W = MPI_COMM_WORLD, S = MPI_COMM_SELF;
    void *IP = MPI_IN_PLACE;
    EXPECT_BUF(MPI_Bcast(IP, 1, MPI_INT, 0, W));
    EXPECT_BUF(MPI_Allreduce(a, IP, 1, MPI_INT, MPI_SUM, W));
    EXPECT_BUF(MPI_Allgather(a, 1, MPI_INT, IP, 1, MPI_INT, W));
    EXPECT_BUF(MPI_Alltoall(a, 1, MPI_INT, IP, 1, MPI_INT, W));
    /* Root-only rules, on a communicator of one rank. */
    EXPECT_BUF(MPI_Gather(a, 1, MPI_INT, IP, 1, MPI_INT, 0, S));
    EXPECT_BUF(MPI_Scatter(IP, 1, MPI_INT, b, 1, MPI_INT, 0, S));
    EXPECT_BUF(MPI_Reduce(a, IP, 1, MPI_INT, MPI_SUM, 0, S));

    /* Aliasing. */
    EXPECT_BUF(MPI_Allreduce(b, b, 2, MPI_INT, MPI_SUM, W));
    EXPECT_BUF(MPI_Allgather(b, 1, MPI_INT, b, 1, MPI_INT, W));
    EXPECT_BUF(MPI_Alltoall(b, 1, MPI_INT, b, 1, MPI_INT, W));
    EXPECT_BUF(MPI_Gather(b, 1, MPI_INT, b, 1, MPI_INT, 0, S));
    EXPECT_BUF(MPI_Scan(b, b, 3, MPI_INT, MPI_SUM, W));

    /* MPI_IN_PLACE from a rank that is not the root: the root fails for
     * another reason at the same time, so no rank starts the collective. */
    if (tt_size < 2)
        return;
    int root = tt_size - 1, me = tt_rank == root;
    int rc = MPI_Gather(me ? a : IP, 1, MPI_INT, b, me ? -1 : 1, MPI_INT, root, W);
    if (me)
        expect(rc, MPI_ERR_COUNT, "MPI_Gather with recvcount -1 at the root");
    else
        expect2(rc, MPI_ERR_BUFFER, MPI_ERR_ARG, "MPI_Gather, sendbuf MPI_IN_PLACE off root");
    rc = MPI_Scatter(a, me ? -1 : 1, MPI_INT, me ? b : IP, 1, MPI_INT, root, W);
    if (me)
        expect(rc, MPI_ERR_COUNT, "MPI_Scatter with sendcount -1 at the root");
    else
        expect2(rc, MPI_ERR_BUFFER, MPI_ERR_ARG, "MPI_Scatter, recvbuf MPI_IN_PLACE off root");
    rc = MPI_Reduce(me ? a : IP, b, 1, MPI_INT, me ? MPI_OP_NULL : MPI_SUM, root, W);
    if (me)
        expect(rc, MPI_ERR_OP, "MPI_Reduce with MPI_OP_NULL at the root");
    else
        expect2(rc, MPI_ERR_BUFFER, MPI_ERR_ARG, "MPI_Reduce, sendbuf MPI_IN_PLACE off root");
}

/* Collects every rank's error class at rank 0, which checks that the root
 * (rank 0) succeeded, at least one rank saw MPI_ERR_TRUNCATE, and no rank
 * another error. */
static void check_truncation(int rc, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        TT_MPI(MPI_Error_class(rc, &cls));
    if (tt_rank != 0) {
        TT_MPI(MPI_Send(&cls, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
        return;
    }
    TT_EQ(what, MPI_SUCCESS, cls);
    int truncated = 0;
    for (int r = 1; r < tt_size; r++) {
        TT_MPI(MPI_Recv(&cls, 1, MPI_INT, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        TT_CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE,
                 "%s: rank %d got error class %d, expected MPI_ERR_TRUNCATE or none",
                 what, r, cls);
        truncated += cls == MPI_ERR_TRUNCATE;
    }
    TT_CHECK(truncated > 0, "%s: no rank reported MPI_ERR_TRUNCATE", what);
}

/* Receivers pass 2 elements where the root sends 4. */
static void truncation(void)
{
    if (tt_size < 2)
        return;
    int buf[4] = {1, 2, 3, 4}, n = tt_rank == 0 ? 4 : 2;
    check_truncation(MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast, counts 4 / 2");
    MPI_Request r;
    TT_MPI(MPI_Ibcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD, &r));
    check_truncation(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Ibcast + MPI_Wait, counts 4 / 2");
    TT_CHECK(r == MPI_REQUEST_NULL, "MPI_Wait of a failed MPI_Ibcast left the request set");

    /* The communicator still works. */
    int v[3] = {0, 0, 0};
    if (tt_rank == 0)
        v[0] = 11, v[1] = 22, v[2] = 33;
    TT_MPI(MPI_Bcast(v, 3, MPI_INT, 0, MPI_COMM_WORLD));
    TT_CHECK(v[0] == 11 && v[1] == 22 && v[2] == 33,
             "MPI_Bcast after the mismatch: got %d %d %d", v[0], v[1], v[2]);
}

static void check_empty_status(const MPI_Status *st, const char *what)
{
    int count = -1;
    TT_MPI(MPI_Get_count(st, MPI_INT, &count));
    TT_CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && count == 0,
             "%s: status source %d tag %d count %d, expected MPI_ANY_SOURCE, "
             "MPI_ANY_TAG, 0", what, st->MPI_SOURCE, st->MPI_TAG, count);
}

/* A broadcast from the last rank of a value that depends on k. */
static MPI_Request start_bcast(int *v, int k)
{
    MPI_Request r;
    *v = tt_rank == tt_size - 1 ? 1000 + k : -1;
    TT_MPI(MPI_Ibcast(v, 1, MPI_INT, tt_size - 1, MPI_COMM_WORLD, &r));
    return r;
}

static void requests_single(void)
{
    MPI_Status st;
    MPI_Request r;
    int v, flag = 0;
    TT_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
    TT_CHECK(r != MPI_REQUEST_NULL, "MPI_Ibarrier returned MPI_REQUEST_NULL");
    TT_MPI(MPI_Wait(&r, &st));
    TT_CHECK(r == MPI_REQUEST_NULL, "MPI_Wait left the request set");
    check_empty_status(&st, "MPI_Ibarrier + MPI_Wait");

    r = start_bcast(&v, 1);
    while (!flag)
        TT_MPI(MPI_Test(&r, &flag, &st));
    TT_EQ("MPI_Ibcast + MPI_Test value", 1001, v);
    check_empty_status(&st, "MPI_Ibcast + MPI_Test");

    r = start_bcast(&v, 2);
    flag = 0;
    while (!flag)
        TT_MPI(MPI_Request_get_status(r, &flag, &st));
    TT_CHECK(r != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
    check_empty_status(&st, "MPI_Ibcast + MPI_Request_get_status");
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TT_EQ("MPI_Ibcast + MPI_Request_get_status value", 1002, v);

    /* Cancelling a nonblocking collective is an error; it then completes. */
    r = start_bcast(&v, 3);
    expect(MPI_Cancel(&r), MPI_ERR_REQUEST, "MPI_Cancel of an MPI_Ibcast request");
    TT_CHECK(r != MPI_REQUEST_NULL, "MPI_Cancel cleared the request");
    TT_MPI(MPI_Wait(&r, &st));
    TT_EQ("MPI_Ibcast after MPI_Cancel value", 1003, v);
    flag = 1;
    TT_MPI(MPI_Test_cancelled(&st, &flag));
    TT_EQ("MPI_Test_cancelled of the MPI_Ibcast", 0, flag);

    /* MPI_Request_free: the barrier still completes, later calls work. */
    TT_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Request_free(&r));
    TT_CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the request set");
    r = start_bcast(&v, 4);
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TT_EQ("MPI_Ibcast after a freed MPI_Ibarrier", 1004, v);
}

static void requests_multi(void)
{
    MPI_Request rs[4];
    MPI_Status sts[4];
    int v[4], idx = -1, flag = 0, out = 0, ind[4];
    int token = tt_rank, got = -1;

    /* Collectives mixed with point-to-point requests in one Waitall. */
    TT_MPI(MPI_Irecv(&got, 1, MPI_INT, tt_prev(), 5, MPI_COMM_WORLD, &rs[0]));
    rs[1] = start_bcast(&v[1], 5);
    TT_MPI(MPI_Isend(&token, 1, MPI_INT, tt_next(), 5, MPI_COMM_WORLD, &rs[2]));
    TT_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rs[3]));
    TT_MPI(MPI_Waitall(4, rs, sts));
    TT_EQ("ring message in MPI_Waitall", tt_prev(), got);
    TT_EQ("MPI_Ibcast in MPI_Waitall", 1005, v[1]);
    check_empty_status(&sts[1], "MPI_Ibcast in MPI_Waitall");
    check_empty_status(&sts[3], "MPI_Ibarrier in MPI_Waitall");

    rs[0] = MPI_REQUEST_NULL;
    rs[1] = start_bcast(&v[1], 6);
    TT_MPI(MPI_Waitany(2, rs, &idx, &sts[0]));
    TT_EQ("MPI_Waitany index", 1, idx);
    TT_EQ("MPI_Ibcast in MPI_Waitany", 1006, v[1]);
    check_empty_status(&sts[0], "MPI_Ibcast in MPI_Waitany");

    rs[1] = start_bcast(&v[1], 7);
    while (!flag)
        TT_MPI(MPI_Testany(2, rs, &idx, &flag, &sts[0]));
    TT_EQ("MPI_Testany index", 1, idx);
    TT_EQ("MPI_Ibcast in MPI_Testany", 1007, v[1]);

    rs[0] = start_bcast(&v[0], 8);
    TT_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rs[1]));
    int done = 0;
    while (done < 2) {
        TT_MPI(MPI_Waitsome(2, rs, &out, ind, sts));
        TT_CHECK(out >= 1 && out <= 2 - done, "MPI_Waitsome outcount %d", out);
        for (int i = 0; i < out; i++)
            check_empty_status(&sts[i], "collective in MPI_Waitsome");
        done += out;
    }
    TT_EQ("MPI_Ibcast in MPI_Waitsome", 1008, v[0]);

    rs[0] = start_bcast(&v[0], 9);
    rs[1] = start_bcast(&v[1], 10);
    for (done = 0; done < 2; done += out)
        TT_MPI(MPI_Testsome(2, rs, &out, ind, sts));
    TT_CHECK(v[0] == 1009 && v[1] == 1010, "MPI_Testsome values %d %d", v[0], v[1]);

    rs[0] = start_bcast(&v[0], 11);
    TT_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rs[1]));
    for (flag = 0; !flag;)
        TT_MPI(MPI_Testall(2, rs, &flag, sts));
    TT_EQ("MPI_Ibcast in MPI_Testall", 1011, v[0]);
    check_empty_status(&sts[1], "MPI_Ibarrier in MPI_Testall");
}

/* Valid edge cases the checks must let through. */
static void valid_edges(void)
{
    int a[4] = {0}, counts[64] = {0}, displs[64] = {0};
    MPI_Datatype types[64];
    for (int i = 0; i < 64; i++)
        types[i] = MPI_DATATYPE_NULL;
    /* No data: NULL buffers, the same buffer twice. */
    TT_MPI(MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD));
    TT_MPI(MPI_Allreduce(a, a, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TT_MPI(MPI_Allgather(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD));
    /* Alltoallw with MPI_DATATYPE_NULL where nothing is sent. */
    TT_MPI(MPI_Alltoallw(a, counts, displs, types, a + 2, counts, displs, types,
                         MPI_COMM_WORLD));
    /* In place where allowed. */
    int v[2] = {tt_rank, 1}, all[64];
    TT_MPI(MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TT_CHECK(v[0] == tt_size * (tt_size - 1) / 2 && v[1] == tt_size,
             "MPI_Allreduce in place: got %d %d", v[0], v[1]);
    all[tt_rank] = 3 * tt_rank + 1;
    TT_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < tt_size; i++)
        TT_EQ("MPI_Allgather in place", 3 * i + 1, all[i]);
#if MPI_VERSION >= 4
    int w = tt_rank == 0 ? 77 : 0;
    TT_MPI(MPI_Bcast_c(&w, 1, MPI_INT, 0, MPI_COMM_WORLD));
    TT_EQ("MPI_Bcast_c value", 77, w);
#endif
}

static void fatal(const char *mode)
{
    int buf[4] = {1, 2, 3, 4}, n = tt_rank == 0 ? 4 : 2;
    tt_sync();
    if (!strcmp(mode, "fatal")) {
        MPI_Bcast(buf, 1, MPI_INT, tt_size, MPI_COMM_WORLD);
    } else if (!strcmp(mode, "fatal_trunc")) {
        MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Request r;
        MPI_Ibcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    /* The receivers fail; the root waits here for the end of the job. If
     * rank 1 gets here, the call did not fail: it releases the root, and the
     * job ends with status 0, which the driver reports. */
    if (tt_rank == 0 && tt_size > 1)
        MPI_Recv(buf, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else if (tt_rank == 1)
        MPI_Send(buf, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    fprintf(stderr, "FAIL coll_errors rank %d: %s did not end the job\n", tt_rank, mode);
    MPI_Finalize();
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_errors");
    if (argc > 1) {
        fatal(argv[1]);
        return 0;
    }
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    bad_comm_count_type();
    bad_root_buf_op();
    bad_arrays();
    bad_in_place();
    truncation();
    requests_single();
    requests_multi();
    valid_edges();
    TT_CHECK(nchecked > 70, "only %d error cases checked", nchecked);
    return tt_finish();
}
