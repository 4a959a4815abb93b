/*
 * coll_shm: collectives on communicators whose ranks share one host, which
 * Tern runs through shared memory (collectives/shm.h), checked against
 * values computed locally.
 *
 * Cases:
 *  - more communicators than the host has slots (12 dups of MPI_COMM_WORLD,
 *    used in turn), so some run through shared memory and the others with
 *    messages; then half of them freed and new ones made, which must take
 *    the freed slots over;
 *  - vector sizes on both sides of each limit: inline in the flag's line
 *    (48 bytes), whole-vector reduction and the split one (4 KiB), one
 *    member's buffer (64 KiB with up to 8 ranks), and beyond;
 *  - MPI_IN_PLACE, MPI_MAX on ints, a user-defined commutative op, a
 *    non-commutative one (which must keep rank order), MPI_DOUBLE;
 *  - nonblocking: Iallreduce and Ibarrier several at once on one
 *    communicator, overlapped with point-to-point messages, completed in
 *    reverse order; a blocking Allreduce while an Iallreduce is pending;
 *  - two halves of MPI_COMM_WORLD (MPI_Comm_split) running at once;
 *  - mismatched counts give an error (on every rank through shared
 *    memory), also when the ranks' inputs travel in different places
 *    (small, larger, reduced in shares, longer than a buffer and so in
 *    messages), blocking and not, and the communicator still works
 *    afterwards; also with a type that has gaps, where one element is
 *    contiguous and two are not;
 *  - a rank that waits in MPI_Barrier or MPI_Allreduce for a late rank
 *    sleeps: it uses little CPU while the late one is away, and wakes as
 *    soon as it comes (with --sleep-check; a promise of Tern, others
 *    poll).
 *
 * Uses only the standard MPI API.
 */
#include "tt.h"

#define NCOMMS 12
#define ROUNDS 3

static const int sizes[] = {0, 1, 12, 13, 1000, 1024, 1025, 16384, 16385, 40000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* Rank r's element i. */
static int value(int r, int i, int salt)
{
    return r * 1000 + i % 977 + salt;
}

/* The sum over p ranks of element i. */
static int sum_of(int p, int i, int salt)
{
    return 1000 * p * (p - 1) / 2 + p * (i % 977 + salt);
}

static void check_sum(const int *got, int n, int p, int salt, const char *what)
{
    for (int i = 0; i < n; i++)
        if (got[i] != sum_of(p, i, salt))
            TT_FAIL("%s: element %d of %d: expected %d, got %d", what, i, n,
                    sum_of(p, i, salt), got[i]);
}

/* Allreduce of every size on comm (sum, in place on odd rounds). */
static void allreduce_sizes(MPI_Comm comm, int salt, int in_place)
{
    int p, me;
    TT_MPI(MPI_Comm_size(comm, &p));
    TT_MPI(MPI_Comm_rank(comm, &me));
    for (int k = 0; k < NSIZES; k++) {
        int n = sizes[k];
        int *in = malloc(((size_t)n + 1) * sizeof(int));
        int *out = malloc(((size_t)n + 2) * sizeof(int));
        TT_CHECK(in && out, "out of memory");
        for (int i = 0; i < n; i++)
            in[i] = out[i] = value(me, i, salt + k);
        out[n] = out[n + 1] = -7; /* Nothing may be written past the result. */
        if (in_place)
            TT_MPI(MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_INT, MPI_SUM, comm));
        else
            TT_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm));
        check_sum(out, n, p, salt + k, in_place ? "MPI_Allreduce in place" : "MPI_Allreduce");
        TT_EQ("the element past the result", -7, out[n]);
        free(in);
        free(out);
    }
}

static void many_comms(void)
{
    MPI_Comm c[NCOMMS];
    for (int i = 0; i < NCOMMS; i++)
        TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c[i]));
    for (int round = 0; round < ROUNDS; round++)
        for (int i = 0; i < NCOMMS; i++) {
            TT_MPI(MPI_Barrier(c[i]));
            allreduce_sizes(c[i], i * 10 + round, (round + i) % 2);
        }
    /* Free every other one; the new ones take their slots. */
    for (int i = 0; i < NCOMMS; i += 2) {
        TT_MPI(MPI_Comm_free(&c[i]));
        TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c[i]));
    }
    for (int i = NCOMMS - 1; i >= 0; i--) {
        TT_MPI(MPI_Barrier(c[i]));
        allreduce_sizes(c[i], i, i % 2);
    }
    for (int i = 0; i < NCOMMS; i++)
        TT_MPI(MPI_Comm_free(&c[i]));
}

/* A commutative user op (sum) and a non-commutative one (x op y = x, so
 * the result is rank 0's vector wherever the library reduces). */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void user_first(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

static void ops_and_types(MPI_Comm comm)
{
    int p = tt_size, me = tt_rank, n = 3000;
    int *in = malloc((size_t)n * sizeof(int)), *out = malloc((size_t)n * sizeof(int));
    double *d = malloc((size_t)n * sizeof(double)), *dout = malloc((size_t)n * sizeof(double));
    TT_CHECK(in && out && d && dout, "out of memory");
    for (int i = 0; i < n; i++) {
        in[i] = value(me, i, 0);
        d[i] = (double)value(me, i, 5);
    }
    TT_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_MAX, comm));
    for (int i = 0; i < n; i++)
        TT_EQ("MPI_MAX", value(p - 1, i, 0), out[i]);
    MPI_Op op;
    for (int nc = 0; nc < 2; nc++) {
        TT_MPI(MPI_Op_create(nc ? user_first : user_sum, !nc, &op));
        for (int len = 1; len <= n; len += n - 1) {
            TT_MPI(MPI_Allreduce(in, out, len, MPI_INT, op, comm));
            for (int i = 0; i < len; i++)
                TT_EQ(nc ? "non-commutative user op (rank 0's vector)" : "commutative user op",
                      nc ? value(0, i, 0) : sum_of(p, i, 0), out[i]);
        }
        TT_MPI(MPI_Op_free(&op));
    }
    TT_MPI(MPI_Allreduce(d, dout, n, MPI_DOUBLE, MPI_SUM, comm));
    for (int i = 0; i < n; i++)
        TT_CHECK(dout[i] == (double)sum_of(p, i, 5), "MPI_DOUBLE sum, element %d: %g", i,
                 dout[i]);
    free(in);
    free(out);
    free(d);
    free(dout);
}

#define NB 6

static void nonblocking(MPI_Comm comm)
{
    int n[NB] = {1, 12, 500, 2000, 16384, 7};
    int *in[NB], *out[NB];
    MPI_Request req[NB + 4];
    int nreq = 0;
    /* A ring of point-to-point messages under way at the same time. */
    int token = tt_rank, got = -1;
    TT_MPI(MPI_Irecv(&got, 1, MPI_INT, tt_prev(), 7, comm, &req[nreq++]));
    for (int k = 0; k < NB; k++) {
        in[k] = malloc((size_t)n[k] * sizeof(int));
        out[k] = malloc((size_t)n[k] * sizeof(int));
        TT_CHECK(in[k] && out[k], "out of memory");
        for (int i = 0; i < n[k]; i++)
            in[k][i] = value(tt_rank, i, 40 + k);
        TT_MPI(MPI_Iallreduce(in[k], out[k], n[k], MPI_INT, MPI_SUM, comm, &req[nreq++]));
        if (k == 2)
            TT_MPI(MPI_Ibarrier(comm, &req[nreq++]));
    }
    TT_MPI(MPI_Isend(&token, 1, MPI_INT, tt_next(), 7, comm, &req[nreq++]));
    for (int i = nreq - 1; i >= 0; i--)
        TT_MPI(MPI_Wait(&req[i], MPI_STATUS_IGNORE));
    TT_EQ("the ring's token", tt_prev(), got);
    for (int k = 0; k < NB; k++) {
        check_sum(out[k], n[k], tt_size, 40 + k, "MPI_Iallreduce");
        free(in[k]);
        free(out[k]);
    }
    /* A blocking call while a nonblocking one is pending. */
    int a = tt_rank, b = -1, c = tt_rank, d = -1;
    TT_MPI(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, comm, &req[0]));
    TT_MPI(MPI_Allreduce(&c, &d, 1, MPI_INT, MPI_MAX, comm));
    TT_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
    TT_EQ("MPI_Iallreduce pending during MPI_Allreduce", tt_size * (tt_size - 1) / 2, b);
    TT_EQ("MPI_Allreduce during MPI_Iallreduce", tt_size - 1, d);
}

static void halves(void)
{
    MPI_Comm half;
    TT_MPI(MPI_Comm_split(MPI_COMM_WORLD, tt_rank % 2, tt_rank, &half));
    for (int round = 0; round < ROUNDS; round++) {
        TT_MPI(MPI_Barrier(half));
        allreduce_sizes(half, 100 + round, round % 2);
    }
    TT_MPI(MPI_Comm_free(&half));
}

/* Rank 0 passes `first` ints to MPI_Allreduce, the others `rest`: small
 * inputs (up to 8 bytes) and larger ones travel in different places of
 * shared memory, vectors past 16 KiB are reduced in shares, and those
 * longer than a member's buffer (64 KiB with up to 8 ranks) go in
 * messages once the ranks compared their counts, so the pairs below mix
 * those. The call runs on a dup of MPI_COMM_WORLD, or with `world` on
 * MPI_COMM_WORLD itself, which took a slot at its first collective even
 * when the host has only one; with `nonblocking` it is MPI_Iallreduce and
 * MPI_Wait. */
static void mismatch(int first, int rest, int world, int nonblocking)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    if (!world)
        TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    TT_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    TT_MPI(MPI_Barrier(comm));
    int n = first > rest ? first : rest;
    int *in = calloc((size_t)n, sizeof(int)), *out = calloc((size_t)n, sizeof(int));
    TT_CHECK(in && out, "out of memory");
    int count = tt_rank == 0 ? first : rest, rc;
    if (nonblocking) {
        MPI_Request req;
        rc = MPI_Iallreduce(in, out, count, MPI_INT, MPI_SUM, comm, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, comm);
    }
    /* Through shared memory every rank sees the mismatch; with messages,
     * at least the rank whose receive is too short. */
    int failed = rc != MPI_SUCCESS, anyone = 0;
    TT_MPI(MPI_Allreduce(&failed, &anyone, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    TT_CHECK(anyone, "%s with %d ints on rank 0 and %d elsewhere returned "
                     "MPI_SUCCESS on every rank",
             nonblocking ? "MPI_Iallreduce" : "MPI_Allreduce", first, rest);
    for (int round = 0; round < 3; round++) {
        int v = 1, sum = 0;
        TT_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm));
        TT_EQ("MPI_Allreduce after the mismatch", tt_size, sum);
        TT_MPI(MPI_Barrier(comm));
    }
    free(in);
    free(out);
    if (world)
        TT_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
    else
        TT_MPI(MPI_Comm_free(&comm));
}

/* A type with gaps (MPI_INT resized to 8 bytes), rank 0 passing one
 * element and the others two: one element of it is contiguous, two are
 * not, and the choice of algorithm must not depend on that. */
static void mismatch_gapped(void)
{
    MPI_Datatype gapped;
    TT_MPI(MPI_Type_create_resized(MPI_INT, 0, 8, &gapped));
    TT_MPI(MPI_Type_commit(&gapped));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int in[4] = { 1, 0, 1, 0 }, out[4] = { 0 };
    int rc = MPI_Allreduce(in, out, tt_rank == 0 ? 1 : 2, gapped, MPI_SUM, MPI_COMM_WORLD);
    int failed = rc != MPI_SUCCESS, anyone = 0;
    TT_MPI(MPI_Allreduce(&failed, &anyone, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    TT_CHECK(anyone, "MPI_Allreduce of a resized MPI_INT, 1 element on rank 0 and 2 "
                     "elsewhere, returned MPI_SUCCESS on every rank");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    TT_MPI(MPI_Type_free(&gapped));
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Rank 0 arrives LATE_MS late, REPS times, alternately in MPI_Barrier and
 * MPI_Allreduce. The others must sleep meanwhile (little CPU), and be woken
 * when it comes, not when some timeout ends their sleep: the quickest of
 * the wake-ups (rank 0's arrival to this rank's return, on the host's
 * monotonic clock) must take under 10 ms. */
#define REPS 6
#define LATE_MS 250

static void sleep_check(void)
{
    double cpu = cpu_seconds(), quickest = 1e9;
    for (int k = 0; k < REPS; k++) {
        int v = 1, sum = 0;
        double arrived = 0;
        if (tt_rank == 0) {
            tt_sleep_ms(LATE_MS);
            arrived = now();
        }
        if (k % 2 == 0)
            TT_MPI(MPI_Barrier(MPI_COMM_WORLD));
        else
            TT_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        double left = now();
        if (k % 2)
            TT_EQ("MPI_Allreduce after the wait", tt_size, sum);
        /* Rank 0 tells the others when it arrived, late enough that its
         * message cannot be what woke them. */
        if (tt_rank == 0)
            tt_sleep_ms(30);
        if (tt_rank == 0)
            for (int r = 1; r < tt_size; r++)
                TT_MPI(MPI_Send(&arrived, 1, MPI_DOUBLE, r, 9, MPI_COMM_WORLD));
        else
            TT_MPI(MPI_Recv(&arrived, 1, MPI_DOUBLE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (left - arrived < quickest)
            quickest = left - arrived;
    }
    cpu = cpu_seconds() - cpu;
    if (tt_rank == 0)
        return;
    TT_CHECK(cpu < 0.5, "waiting %d x %d ms for a late rank in MPI_Barrier and "
                        "MPI_Allreduce took %.2f s of CPU; a waiting rank must sleep",
             REPS, LATE_MS, cpu);
    TT_CHECK(quickest < 0.010, "the quickest of %d wake-ups, from the late rank's "
                               "arrival to MPI_Barrier's or MPI_Allreduce's return "
                               "here, took %.1f ms; waiting ranks must be woken",
             REPS, quickest * 1e3);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_shm");
    int sleepy = argc > 1 && !strcmp(argv[1], "--sleep-check");
    TT_MPI(MPI_Barrier(MPI_COMM_WORLD));
    many_comms();
    ops_and_types(MPI_COMM_WORLD);
    nonblocking(MPI_COMM_WORLD);
    halves();
    if (tt_size > 1) {
        mismatch(3, 5, 0, 0);
        mismatch(1, 2, 0, 0);
        mismatch(1, 3, 0, 0);
        mismatch(5, 2, 0, 0);
        /* 32 KiB through shared memory, which holds that much per rank
         * with up to 16 ranks on the host. */
        if (tt_size <= 16) {
            mismatch(2, 8192, 0, 0);
            mismatch(8192, 6000, 0, 0);
        }
        /* Past a member's buffer: a dup may have no slot and use messages,
         * whose algorithms differ by size, so these run on the world. */
        mismatch(2, 20000, 1, 0);
        mismatch(20000, 8192, 1, 0);
        mismatch(20000, 30000, 1, 0);
        mismatch(30000, 2, 1, 1);
        mismatch(8192, 30000, 1, 1);
        mismatch_gapped();
    }
    if (sleepy)
        sleep_check();
    return tt_finish();
}
