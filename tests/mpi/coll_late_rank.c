/*
 * coll_late_rank: a rank that comes late to a collective call gets the
 * right result, and so do the ranks that waited for it.
 *
 * A collective that has waited 50 ms for a message asks the ranks it
 * waits for which call they are in (an inquiry, collectives/notice.h), and
 * a rank in another call fails. A rank in the same call must take such an
 * inquiry as agreement, also when it comes late and finds it already
 * waiting, or never waits at all. So in each case one rank sleeps 150 ms
 * before it calls, the root or another rank in turn, and every rank checks
 * its result against one computed locally: MPI_Bcast, MPI_Reduce,
 * MPI_Gather, MPI_Scatter, MPI_Allreduce (one int, 2^17 ints for the
 * algorithms of several rounds, and a non-commutative op of the program's,
 * whose algorithm runs a Reduce and then a Bcast), MPI_Allgather, MPI_Alltoall, MPI_Scan,
 * MPI_Barrier and MPI_Ibcast. The root is the last rank, so that at 8 ranks
 * it shares its two low bits with rank 4's number (signature.h). Then a
 * loop of short calls checks that the inquiries left behind in the late
 * rank's queue disturb none of the calls after.
 *
 * Uses only the standard MPI API.
 */
#include "tt.h"

#define LATE_MS 150
#define BIG (1 << 17)

enum {
    C_BCAST, C_REDUCE, C_GATHER, C_SCATTER, C_ALLREDUCE, C_ALLREDUCE_BIG, C_ALLREDUCE_USER,
    C_ALLGATHER, C_ALLTOALL, C_SCAN, C_BARRIER, C_IBCAST, NC
};
static const char *const names[NC] = {
    "MPI_Bcast", "MPI_Reduce", "MPI_Gather", "MPI_Scatter", "MPI_Allreduce",
    "MPI_Allreduce of 2^17 ints", "MPI_Allreduce with a non-commutative op", "MPI_Allgather",
    "MPI_Alltoall", "MPI_Scan", "MPI_Barrier", "MPI_Ibcast"};

/* The first operand: associative, not commutative; over all ranks, rank
 * 0's values. */
static void first(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}
static MPI_Op first_op;

/* Rank r's contribution, element i. */
static int value(int r, int i)
{
    return r * 1000 + i + 1;
}

static void check(const char *what, int late, const int *got, const int *want, int n)
{
    for (int i = 0; i < n; i++)
        TT_CHECK(got[i] == want[i], "%s, rank %d late: element %d is %d, expected %d", what,
                 late, i, got[i], want[i]);
}

/* Runs case c with rank `late` coming LATE_MS late; checks this rank's
 * result. a, b: room for size * BIG ints each. */
static void run(int c, int late, int *a, int *b, int *want)
{
    int p = tt_size, me = tt_rank, root = p - 1, n = 4;
    for (int i = 0; i < BIG; i++)
        a[i] = value(me, i);
    memset(b, 0, (size_t)p * BIG * sizeof(int));
    if (me == late)
        tt_sleep_ms(LATE_MS);
    switch (c) {
    case C_BCAST:
        TT_MPI(MPI_Bcast(a, n, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            want[i] = value(root, i);
        check(names[c], late, a, want, n);
        return;
    case C_REDUCE:
    case C_ALLREDUCE:
    case C_ALLREDUCE_BIG:
        if (c == C_ALLREDUCE_BIG)
            n = BIG;
        if (c == C_REDUCE)
            TT_MPI(MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        else
            TT_MPI(MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++) {
            want[i] = 0;
            for (int r = 0; r < p; r++)
                want[i] += value(r, i);
        }
        if (c != C_REDUCE || me == root)
            check(names[c], late, b, want, n);
        return;
    case C_GATHER:
    case C_ALLGATHER:
        if (c == C_GATHER)
            TT_MPI(MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD));
        else
            TT_MPI(MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < p; r++)
            for (int i = 0; i < n; i++)
                want[r * n + i] = value(r, i);
        if (c != C_GATHER || me == root)
            check(names[c], late, b, want, p * n);
        return;
    case C_SCATTER:
        TT_MPI(MPI_Scatter(a, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            want[i] = value(root, me * n + i);
        check(names[c], late, b, want, n);
        return;
    case C_ALLREDUCE_USER:
        TT_MPI(MPI_Allreduce(a, b, n, MPI_INT, first_op, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            want[i] = value(0, i);
        check(names[c], late, b, want, n);
        return;
    case C_ALLTOALL:
        TT_MPI(MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < p; r++)
            for (int i = 0; i < n; i++)
                want[r * n + i] = value(r, me * n + i);
        check(names[c], late, b, want, p * n);
        return;
    case C_SCAN:
        TT_MPI(MPI_Scan(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++) {
            want[i] = 0;
            for (int r = 0; r <= me; r++)
                want[i] += value(r, i);
        }
        check(names[c], late, b, want, n);
        return;
    case C_BARRIER:
        TT_MPI(MPI_Barrier(MPI_COMM_WORLD));
        return;
    default: {
        MPI_Request req;
        TT_MPI(MPI_Ibcast(a, n, MPI_INT, root, MPI_COMM_WORLD, &req));
        TT_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++)
            want[i] = value(root, i);
        check(names[c], late, a, want, n);
        return;
    }
    }
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_late_rank");
    size_t len = (size_t)tt_size * BIG * sizeof(int);
    int *a = tt_malloc(len), *b = tt_malloc(len), *want = tt_malloc(len);
    TT_MPI(MPI_Op_create(first, 0, &first_op));
    /* The root late, then another rank (the first). */
    for (int late = tt_size - 1; late >= 0; late -= tt_size > 1 ? tt_size - 1 : 1)
        for (int c = 0; c < NC; c++)
            run(c, late, a, b, want);
    /* The calls after, with whatever inquiries are left in the queues. */
    for (int k = 0; k < 2000; k++) {
        int v = tt_rank + k, sum = 0;
        TT_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        TT_EQ("MPI_Allreduce after the late calls", tt_size * (tt_size - 1) / 2 + tt_size * k,
              sum);
    }
    TT_MPI(MPI_Op_free(&first_op));
    free(a);
    free(b);
    free(want);
    return tt_finish();
}
