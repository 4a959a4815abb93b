/*
 * coll_shm_rooted: MPI_Bcast and MPI_Reduce on communicators whose ranks
 * share one host, which Tern runs through shared memory
 * (collectives/bcast_shm.c, reduce_shm.c): the rooted collectives, in
 * which some ranks leave without waiting for the others.
 *
 * Cases:
 *  - sizes on both sides of each place the data can take: the tiny entry
 *    (8 bytes), the flag's line (48 bytes), a member's buffer (64 KiB with
 *    up to 8 ranks) and beyond (messages), from the first and the last rank;
 *  - the root and the others using different types of one signature
 *    (contiguous ints against a strided vector), both ways, short and long;
 *  - many calls back to back with a new root each time and no barrier, with
 *    Allreduces between some of them, so that a root reuses its buffer
 *    while slower ranks may still be reading the previous data from it;
 *  - MPI_Bcast from one root that runs ahead of late receivers;
 *  - MPI_Reduce back to back with a new root each time (the others leave
 *    early, so a rank reuses its buffer while the root may still read
 *    the previous vector there), from 1 int to more than a buffer, in
 *    place at the root on odd calls, with MPI_Bcasts between some of them;
 *  - several MPI_Ibcast at once from different roots, completed in reverse;
 *  - mismatched counts: a rank expecting more than the root sends gets
 *    MPI_ERR_TRUNCATE and the others succeed; a root sending more than a
 *    buffer to a rank expecting less fails the call on every rank instead
 *    of leaving ranks waiting in different algorithms; an MPI_Reduce whose
 *    counts differ where every rank splits the work fails everywhere;
 *    either way the communicator works afterwards.
 *
 * Uses only the standard MPI API.
 */
#include <unistd.h>

#include "tt.h"

static const int sizes[] = {0, 1, 2, 3, 12, 13, 1000, 16384, 16385, 300000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int value(int root, int i, int salt)
{
    return root * 1000003 + i * 7 + salt;
}

static void bcast_sizes(MPI_Comm comm)
{
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    int *buf = malloc(sizeof(int) * 300000);
    TT_CHECK(buf, "out of memory");
    for (int k = 0; k < NSIZES; k++)
        for (int root = 0; root < size; root += size > 1 ? size - 1 : 1) {
            int n = sizes[k];
            for (int i = 0; i < n; i++)
                buf[i] = rank == root ? value(root, i, k) : -1;
            TT_MPI(MPI_Bcast(buf, n, MPI_INT, root, comm));
            for (int i = 0; i < n; i++)
                if (buf[i] != value(root, i, k))
                    TT_FAIL("MPI_Bcast of %d ints from %d: element %d: expected %d, got %d",
                            n, root, i, value(root, i, k), buf[i]);
        }
    free(buf);
}

/* The root sends n contiguous ints; the others receive them 2 apart (or
 * the other way round), and the ints between stay as they were. */
static void bcast_types(MPI_Comm comm, int n, int root_strided)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Datatype strided;
    TT_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &strided));
    TT_MPI(MPI_Type_commit(&strided));
    int *buf = malloc(sizeof(int) * 2 * (size_t)n + sizeof(int));
    TT_CHECK(buf, "out of memory");
    int strided_here = (rank == 0) == root_strided;
    for (int i = 0; i < 2 * n; i++)
        buf[i] = rank == 0 ? value(0, strided_here ? i / 2 : i, n) : -1;
    if (strided_here)
        TT_MPI(MPI_Bcast(buf, 1, strided, 0, comm));
    else
        TT_MPI(MPI_Bcast(buf, n, MPI_INT, 0, comm));
    for (int i = 0; i < n; i++) {
        int got = buf[strided_here ? 2 * i : i];
        TT_CHECK(got == value(0, i, n), "MPI_Bcast of %d ints, %s at the root: element %d: "
                 "expected %d, got %d", n, root_strided ? "strided" : "contiguous", i,
                 value(0, i, n), got);
        if (strided_here && rank != 0)
            TT_EQ("int between two strided elements", -1, buf[2 * i + 1]);
    }
    free(buf);
    MPI_Type_free(&strided);
}

static void back_to_back(MPI_Comm comm)
{
    int size, rank, buf[100];
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    for (int it = 0; it < 300; it++) {
        int root = it % size, n = it % 2 ? 1 : 100;
        for (int i = 0; i < n; i++)
            buf[i] = rank == root ? value(root, i, it) : -1;
        TT_MPI(MPI_Bcast(buf, n, MPI_INT, root, comm));
        for (int i = 0; i < n; i++)
            TT_CHECK(buf[i] == value(root, i, it), "back-to-back MPI_Bcast %d from %d: "
                     "element %d: expected %d, got %d", it, root, i, value(root, i, it),
                     buf[i]);
        if (it % 3 == 0) {
            int one = 1, sum = 0;
            TT_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
            TT_EQ("MPI_Allreduce between the MPI_Bcasts", size, sum);
        }
    }
}

/* Vector lengths for the Reduce: the root alone reduces (1, 100 ints),
 * every rank reduces a share (2000, and 16384 ints: a whole buffer), and
 * messages (16385). */
static const int reduce_ns[] = {1, 100, 2000, 16384, 16385};
#define NREDUCE ((int)(sizeof reduce_ns / sizeof reduce_ns[0]))

/* The root runs ahead: rank 0 sends many short MPI_Bcasts (a tiny entry,
 * then a cell) while the others start late, so its writes reach as far
 * ahead of the slowest reader as the library lets them; every value must
 * still arrive. */
static void root_runs_ahead(MPI_Comm comm)
{
    int rank, buf[10];
    MPI_Comm_rank(comm, &rank);
    if (rank != 0)
        usleep(20000);
    for (int it = 0; it < 200; it++) {
        int n = it % 2 ? 1 : 10;
        for (int i = 0; i < n; i++)
            buf[i] = rank == 0 ? value(0, i, it) : -1;
        TT_MPI(MPI_Bcast(buf, n, MPI_INT, 0, comm));
        for (int i = 0; i < n; i++)
            TT_CHECK(buf[i] == value(0, i, it), "MPI_Bcast %d of %d ints while the root ran "
                     "ahead: element %d: expected %d, got %d", it, n, i, value(0, i, it),
                     buf[i]);
        if (rank != 0 && it % 50 == 0)
            usleep(5000);
    }
}

static void reduce_back_to_back(MPI_Comm comm)
{
    int size, rank, max = reduce_ns[NREDUCE - 1];
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    int *in = malloc(sizeof(int) * (size_t)max), *out = malloc(sizeof(int) * (size_t)max);
    TT_CHECK(in && out, "out of memory");
    for (int it = 0; it < 300; it++) {
        int root = it % size, n = reduce_ns[it % NREDUCE], in_place = it % 2 && rank == root;
        for (int i = 0; i < n; i++) {
            in[i] = value(rank, i, it);
            out[i] = in_place ? in[i] : -1;
        }
        TT_MPI(MPI_Reduce(in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, root, comm));
        for (int i = 0; rank == root && i < n; i++) {
            int want = 0;
            for (int r = 0; r < size; r++)
                want += value(r, i, it);
            if (out[i] != want)
                TT_FAIL("back-to-back MPI_Reduce %d of %d ints to %d: element %d: expected "
                        "%d, got %d", it, n, root, i, want, out[i]);
        }
        if (it % 7 == 0) {
            int x = rank == root ? it : -1;
            TT_MPI(MPI_Bcast(&x, 1, MPI_INT, root, comm));
            TT_EQ("MPI_Bcast between the MPI_Reduces", it, x);
        }
    }
    free(in);
    free(out);
}

static void nonblocking(MPI_Comm comm)
{
    enum { N = 4, LEN = 50 };
    int size, rank, buf[N][LEN];
    MPI_Request req[N];
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    for (int k = 0; k < N; k++) {
        int root = k % size;
        for (int i = 0; i < LEN; i++)
            buf[k][i] = rank == root ? value(root, i, k) : -1;
        TT_MPI(MPI_Ibcast(buf[k], k == 1 ? 1 : LEN, MPI_INT, root, comm, &req[k]));
    }
    for (int k = N - 1; k >= 0; k--)
        TT_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
    for (int k = 0; k < N; k++)
        for (int i = 0; i < (k == 1 ? 1 : LEN); i++)
            TT_EQ("MPI_Ibcast element", value(k % size, i, k), buf[k][i]);
}

/* Rank 1 passes `other` ints where the others pass `root_n`. */
static void mismatch(MPI_Comm comm, int root_n, int other, int everyone_fails)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int n = rank == 1 ? other : root_n;
    int *buf = calloc((size_t)(root_n > other ? root_n : other), sizeof(int));
    TT_CHECK(buf, "out of memory");
    int cls = tt_class(MPI_Bcast(buf, n, MPI_INT, 0, comm));
    int want = rank == 1 || everyone_fails ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    TT_CHECK(cls == want, "MPI_Bcast of %d ints from rank 0, %d on rank 1: error class %d, "
             "expected %d", root_n, other, cls, want);
    free(buf);
    /* Still usable. */
    int x = rank == 0 ? 42 : 0;
    TT_MPI(MPI_Bcast(&x, 1, MPI_INT, 0, comm));
    TT_EQ("MPI_Bcast after a mismatch", 42, x);
}

/* Rank 1 reduces `other` ints where the others reduce `root_n`, both
 * long enough that every rank waits for the others' sizes: every rank
 * gets MPI_ERR_TRUNCATE, and the communicator still works. */
static void reduce_mismatch(MPI_Comm comm, int root_n, int other)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int n = rank == 1 ? other : root_n;
    int *in = calloc((size_t)(root_n > other ? root_n : other), sizeof(int));
    int *out = calloc((size_t)(root_n > other ? root_n : other), sizeof(int));
    TT_CHECK(in && out, "out of memory");
    int cls = tt_class(MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, 0, comm));
    TT_CHECK(cls == MPI_ERR_TRUNCATE, "MPI_Reduce of %d ints to rank 0, %d on rank 1: error "
             "class %d, expected MPI_ERR_TRUNCATE", root_n, other, cls);
    free(in);
    free(out);
    int one = 1, sum = 0;
    TT_MPI(MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, 0, comm));
    if (rank == 0) {
        int size;
        MPI_Comm_size(comm, &size);
        TT_EQ("MPI_Reduce after a mismatch", size, sum);
    }
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_shm_rooted");
    MPI_Comm dup;
    TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    bcast_sizes(MPI_COMM_WORLD);
    bcast_sizes(dup);
    for (int strided = 0; strided < 2; strided++) {
        bcast_types(MPI_COMM_WORLD, 3, strided);
        bcast_types(MPI_COMM_WORLD, 1000, strided);
        bcast_types(MPI_COMM_WORLD, 20000, strided);
    }
    back_to_back(MPI_COMM_WORLD);
    back_to_back(dup);
    root_runs_ahead(MPI_COMM_WORLD);
    reduce_back_to_back(MPI_COMM_WORLD);
    reduce_back_to_back(dup);
    nonblocking(MPI_COMM_WORLD);
    if (tt_size > 1) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        mismatch(MPI_COMM_WORLD, 10, 20, 0);
        mismatch(MPI_COMM_WORLD, 1, 2, 0);
        mismatch(MPI_COMM_WORLD, 10, 30000, 0);
        mismatch(MPI_COMM_WORLD, 30000, 10, 1);
        mismatch(MPI_COMM_WORLD, 30000, 30001, 1);
        reduce_mismatch(MPI_COMM_WORLD, 2000, 3000);
        reduce_mismatch(MPI_COMM_WORLD, 3000, 2000);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    MPI_Comm_free(&dup);
    return tt_finish();
}
