/*
 * coll_shm_gather: MPI_Allgather and MPI_Allgatherv on communicators whose
 * ranks share one host, which Tern runs through shared memory
 * (collectives/allgather_shm.c), checked against values computed locally.
 *
 * Cases:
 *  - block sizes on both sides of each place a block can take: the tiny
 *    entry (8 bytes), the flag's line (48 bytes), a member's buffer (64 KiB
 *    with up to 8 ranks) and beyond (messages), in place on odd rounds;
 *  - senders and receivers with different layouts of one signature:
 *    contiguous ints sent, received 2 apart (the ints between untouched);
 *  - MPI_Allgatherv with blocks of different sizes, among them an empty one,
 *    one in the tiny entry and, on a second call, one longer than a buffer;
 *  - several MPI_Iallgather at once, completed in reverse order;
 *  - mismatched counts: rank 1 sends more or less than the others expect
 *    (every rank fails), or expects more or less than the others send
 *    (rank 1 fails, and every rank when a block is over a buffer, where
 *    messages would follow), also when one side's blocks would fit a
 *    buffer and the other's would not; the communicator works after.
 *
 * Uses only the standard MPI API.
 */
#include "tt.h"

static const int sizes[] = {0, 1, 2, 3, 12, 13, 1000, 16384, 16385};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int value(int r, int i, int salt)
{
    return r * 100003 + i * 7 + salt;
}

static void sizes_in_turn(MPI_Comm comm)
{
    int p = tt_size, max = sizes[NSIZES - 1];
    int *in = malloc(sizeof(int) * (size_t)max), *out = malloc(sizeof(int) * (size_t)max * (size_t)p);
    TT_CHECK(in && out, "out of memory");
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < NSIZES; k++) {
            int n = sizes[k], salt = 10 * k + round, in_place = round % 2;
            for (int i = 0; i < n * p; i++)
                out[i] = -1;
            for (int i = 0; i < n; i++)
                (in_place ? out + (size_t)tt_rank * (size_t)n : in)[i] = value(tt_rank, i, salt);
            TT_MPI(MPI_Allgather(in_place ? MPI_IN_PLACE : in, n, MPI_INT, out, n, MPI_INT,
                                 comm));
            for (int r = 0; r < p; r++)
                for (int i = 0; i < n; i++)
                    if (out[r * n + i] != value(r, i, salt))
                        TT_FAIL("MPI_Allgather of %d ints%s: rank %d's element %d: expected "
                                "%d, got %d", n, in_place ? " in place" : "", r, i,
                                value(r, i, salt), out[r * n + i]);
        }
    free(in);
    free(out);
}

/* Sent contiguous, received with a stride of 2. */
static void layouts(MPI_Comm comm, int n)
{
    int p = tt_size;
    MPI_Datatype strided, block;
    TT_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &strided));
    TT_MPI(MPI_Type_create_resized(strided, 0, (MPI_Aint)(2 * n * sizeof(int)), &block));
    TT_MPI(MPI_Type_commit(&block));
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * 2 * (size_t)n * (size_t)p);
    TT_CHECK(in && out, "out of memory");
    for (int i = 0; i < n; i++)
        in[i] = value(tt_rank, i, n);
    for (int i = 0; i < 2 * n * p; i++)
        out[i] = -1;
    TT_MPI(MPI_Allgather(in, n, MPI_INT, out, 1, block, comm));
    for (int r = 0; r < p; r++)
        for (int i = 0; i < n; i++) {
            TT_CHECK(out[2 * (r * n + i)] == value(r, i, n), "MPI_Allgather of %d ints into "
                     "a strided type: rank %d's element %d: expected %d, got %d", n, r, i,
                     value(r, i, n), out[2 * (r * n + i)]);
            TT_EQ("int between two strided elements", -1, out[2 * (r * n + i) + 1]);
        }
    free(in);
    free(out);
    MPI_Type_free(&block);
    MPI_Type_free(&strided);
}

/* Rank r's block has counts[r % 4] ints (with `big` as the last choice). */
static void allgatherv(MPI_Comm comm, int big)
{
    int p = tt_size, choices[4] = {0, 2, 300, big};
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    TT_CHECK(counts && displs, "out of memory");
    int total = 0;
    for (int r = 0; r < p; r++) {
        counts[r] = choices[r % 4];
        displs[r] = total + 1; /* a gap of one int before each block */
        total += counts[r] + 1;
    }
    int *in = malloc(sizeof(int) * (size_t)(counts[tt_rank] + 1)), *out = malloc(sizeof(int) * (size_t)total);
    TT_CHECK(in && out, "out of memory");
    for (int i = 0; i < counts[tt_rank]; i++)
        in[i] = value(tt_rank, i, big);
    for (int i = 0; i < total; i++)
        out[i] = -1;
    TT_MPI(MPI_Allgatherv(in, counts[tt_rank], MPI_INT, out, counts, displs, MPI_INT, comm));
    for (int r = 0; r < p; r++) {
        TT_EQ("int before a block", -1, out[displs[r] - 1]);
        for (int i = 0; i < counts[r]; i++)
            if (out[displs[r] + i] != value(r, i, big))
                TT_FAIL("MPI_Allgatherv: rank %d's element %d of %d: expected %d, got %d", r,
                        i, counts[r], value(r, i, big), out[displs[r] + i]);
    }
    free(in);
    free(out);
    free(counts);
    free(displs);
}

static void nonblocking(MPI_Comm comm)
{
    enum { N = 4, LEN = 40 };
    int p = tt_size;
    int in[N][LEN], *out = malloc(sizeof(int) * N * LEN * (size_t)p);
    TT_CHECK(out, "out of memory");
    MPI_Request req[N];
    for (int k = 0; k < N; k++) {
        int n = k % 2 ? 1 : LEN;
        for (int i = 0; i < n; i++)
            in[k][i] = value(tt_rank, i, k);
        TT_MPI(MPI_Iallgather(in[k], n, MPI_INT, out + k * LEN * p, n, MPI_INT, comm, &req[k]));
    }
    for (int k = N - 1; k >= 0; k--)
        TT_MPI(MPI_Wait(&req[k], MPI_STATUS_IGNORE));
    for (int k = 0; k < N; k++) {
        int n = k % 2 ? 1 : LEN;
        for (int r = 0; r < p; r++)
            for (int i = 0; i < n; i++)
                TT_EQ("MPI_Iallgather element", value(r, i, k), out[k * LEN * p + r * n + i]);
    }
    free(out);
}

/* After a failed call the communicator still gathers. */
static void still_works(MPI_Comm comm)
{
    int one = tt_rank, all[64];
    TT_MPI(MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, comm));
    for (int r = 0; r < tt_size; r++)
        TT_EQ("MPI_Allgather after a mismatch", r, all[r]);
}

/* Rank 1 sends `other` ints where every rank expects `n` per block. */
static void mismatch(MPI_Comm comm, int n, int other)
{
    int p = tt_size, most = n > other ? n : other;
    int *in = calloc((size_t)most, sizeof(int)), *out = calloc((size_t)most * (size_t)p, sizeof(int));
    TT_CHECK(in && out, "out of memory");
    int count = tt_rank == 1 ? other : n;
    int cls = tt_class(MPI_Allgather(in, count, MPI_INT, out, n, MPI_INT, comm));
    TT_CHECK(cls == MPI_ERR_TRUNCATE, "MPI_Allgather of %d ints, %d from rank 1: error class "
             "%d, expected MPI_ERR_TRUNCATE", n, other, cls);
    free(in);
    free(out);
    still_works(comm);
}

/* Every rank sends n ints, but rank 1 expects `other` per block: rank 1
 * gets MPI_ERR_TRUNCATE; with long blocks (messages would follow) every
 * rank does, rather than waiting in messages for rank 1. */
static void recv_mismatch(MPI_Comm comm, int n, int other, int everyone)
{
    int p = tt_size, most = n > other ? n : other;
    int *in = calloc((size_t)most, sizeof(int)), *out = calloc((size_t)most * (size_t)p, sizeof(int));
    TT_CHECK(in && out, "out of memory");
    int cls = tt_class(MPI_Allgather(in, n, MPI_INT, out, tt_rank == 1 ? other : n, MPI_INT,
                                     comm));
    int want = tt_rank == 1 || everyone ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    TT_CHECK(cls == want, "MPI_Allgather of %d ints, rank 1 expecting %d: error class %d, "
             "expected %d", n, other, cls, want);
    free(in);
    free(out);
    still_works(comm);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_shm_gather");
    TT_CHECK(tt_size <= 64, "this test runs on at most 64 ranks");
    MPI_Comm dup;
    TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    sizes_in_turn(MPI_COMM_WORLD);
    sizes_in_turn(dup);
    layouts(MPI_COMM_WORLD, 3);
    layouts(MPI_COMM_WORLD, 5000);
    allgatherv(MPI_COMM_WORLD, 1000);
    allgatherv(MPI_COMM_WORLD, 20000);
    nonblocking(dup);
    if (tt_size > 1) {
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        mismatch(dup, 1, 2);
        mismatch(dup, 10, 5);
        mismatch(dup, 1000, 30000);
        mismatch(dup, 30000, 1000);
        recv_mismatch(dup, 10, 20, 0);
        recv_mismatch(dup, 40000, 10, 1);
        recv_mismatch(dup, 10, 40000, 0);
    }
    MPI_Comm_free(&dup);
    return tt_finish();
}
