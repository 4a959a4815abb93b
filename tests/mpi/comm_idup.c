/*
 * comm_idup: MPI_Comm_idup does not block, and the communicators it makes
 * are new ones, also when other communicators are created while it runs.
 *
 *  - Progress: rank 0 starts MPI_Comm_idup and then receives a 4 MiB
 *    message from rank 1, which sends it (a rendezvous send, complete only
 *    once rank 0 receives) before it starts its own MPI_Comm_idup. A
 *    duplication that blocked until every rank joined would hang here.
 *  - Overlap: with an MPI_Comm_idup of MPI_COMM_WORLD in flight, every rank
 *    makes two more communicators with the blocking MPI_Comm_dup and
 *    MPI_Comm_split and starts a second MPI_Comm_idup, then completes both
 *    (one with MPI_Test in a loop, one with MPI_Wait).
 *  - All five new communicators are congruent to MPI_COMM_WORLD and
 *    distinct from it and from each other: on each, every rank sends one
 *    message to the next rank with the same tag, the receives are posted in
 *    reverse order, and each must get its own communicator's message.
 *  - The idup copies attributes with their copy callback, at the call.
 *  - An allreduce on each idup'ed communicator gives the right sum.
 *  - A burst: five MPI_Comm_idup started back to back (so they compete for
 *    the same ids and must retry), completed with MPI_Waitall, give five
 *    distinct communicators.
 * Needs 2 ranks for the progress case; runs the rest at any size.
 */
#include "tt.h"

#define NCOMM 5
#define BIG (4 << 20)

static int copies;

static int copy_cb(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void progress_case(void)
{
    MPI_Comm d;
    MPI_Request r;
    char *buf = tt_malloc(BIG);
    if (tt_rank == 0) {
        TT_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d, &r));
        TT_MPI(MPI_Recv(buf, BIG, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        TT_CHECK_PATTERN(buf, BIG, 7, "message received during MPI_Comm_idup");
    } else {
        if (tt_rank == 1) {
            tt_fill(buf, BIG, 7);
            TT_MPI(MPI_Send(buf, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD));
        }
        TT_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d, &r));
    }
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TT_CHECK(r == MPI_REQUEST_NULL, "MPI_Wait left the idup request set");
    TT_MPI(MPI_Comm_free(&d));
    free(buf);
}

/* On each communicator a message to the next rank, tag 5, carrying the
 * communicator's index; received in reverse order of communicators. */
static void check_distinct(MPI_Comm *c, int n)
{
    MPI_Request reqs[2 * NCOMM + 2];
    int out[NCOMM + 1], in[NCOMM + 1];
    for (int i = 0; i < n; i++) {
        int res;
        TT_MPI(MPI_Comm_compare(c[i], MPI_COMM_WORLD, &res));
        TT_EQ("compare(new communicator, world)", MPI_CONGRUENT, res);
        out[i] = 100 + i;
        in[i] = -1;
    }
    for (int i = n - 1; i >= 0; i--)
        TT_MPI(MPI_Irecv(&in[i], 1, MPI_INT, tt_prev(), 5, c[i], &reqs[i]));
    for (int i = 0; i < n; i++)
        TT_MPI(MPI_Isend(&out[i], 1, MPI_INT, tt_next(), 5, c[i], &reqs[n + i]));
    TT_MPI(MPI_Waitall(2 * n, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++)
        TT_EQ("message on its own communicator", 100 + i, in[i]);
}

static void overlap_case(void)
{
    int key, value = 42;
    TT_MPI(MPI_Comm_create_keyval(copy_cb, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    TT_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &value));

    MPI_Comm c[NCOMM];
    MPI_Request r[2];
    TT_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &c[0], &r[0]));
    TT_EQ("attribute copies at the call", 1, copies);
    TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c[1]));
    TT_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, tt_rank, &c[2]));
    TT_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &c[3], &r[1]));
    int done = 0;
    while (!done)
        TT_MPI(MPI_Test(&r[0], &done, MPI_STATUS_IGNORE));
    TT_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    TT_MPI(MPI_Comm_dup(c[0], &c[4]));

    void *got;
    int flag = 0;
    TT_MPI(MPI_Comm_get_attr(c[0], key, &got, &flag));
    TT_CHECK(flag && got == &value, "the idup'ed communicator lacks the copied attribute");

    check_distinct(c, NCOMM);
    for (int i = 0; i < NCOMM; i += 3) {
        int sum = 0, one = tt_rank + 1;
        TT_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c[i]));
        TT_EQ("allreduce on the idup'ed communicator", tt_size * (tt_size + 1) / 2, sum);
    }
    for (int i = 0; i < NCOMM; i++)
        TT_MPI(MPI_Comm_free(&c[i]));
    TT_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    TT_MPI(MPI_Comm_free_keyval(&key));
}

static void burst_case(void)
{
    MPI_Comm c[NCOMM];
    MPI_Request r[NCOMM];
    for (int i = 0; i < NCOMM; i++)
        TT_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &c[i], &r[i]));
    TT_MPI(MPI_Waitall(NCOMM, r, MPI_STATUSES_IGNORE));
    check_distinct(c, NCOMM);
    for (int i = 0; i < NCOMM; i++)
        TT_MPI(MPI_Comm_free(&c[i]));
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "comm_idup");
    if (tt_size >= 2)
        progress_case();
    for (int i = 0; i < 3; i++) {
        copies = 0;
        overlap_case();
        burst_case();
    }
    return tt_finish();
}
