/*
 * comm_split: MPI_Comm_dup, MPI_Comm_idup, MPI_Comm_split, MPI_Comm_split_type,
 * MPI_Comm_compare and MPI_Comm_free.
 *
 * Every new communicator is checked against membership worked out from the
 * world ranks alone: its size, this rank's rank, the world rank behind every
 * rank (through MPI_Group_translate_ranks and through a message ring in the
 * new communicator, whose payload names the sender's world rank), and that
 * traffic on it never matches traffic with the same tag on another
 * communicator. Also: a communicator freed while a large transfer on it is
 * pending must still complete that transfer.
 */
#include "tt.h"

enum { TAG = 11 };

/* World rank of every rank of comm, through the group interface. */
static void world_ranks(MPI_Comm comm, int n, int *out)
{
    MPI_Group g, wg;
    int *in = tt_malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        in[i] = i;
    TT_MPI(MPI_Comm_group(comm, &g));
    TT_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    TT_MPI(MPI_Group_translate_ranks(g, n, in, wg, out));
    TT_MPI(MPI_Group_free(&g));
    TT_MPI(MPI_Group_free(&wg));
    free(in);
}

/* Checks comm holds exactly the world ranks want[0..n-1] in that order:
 * size, own rank, the group, and a ring of messages in comm. */
static void check_members(MPI_Comm comm, int n, const int *want, const char *what)
{
    int size, rank, *got = tt_malloc(sizeof(int) * (size_t)n);
    TT_MPI(MPI_Comm_size(comm, &size));
    TT_EQ(what, n, size);
    TT_MPI(MPI_Comm_rank(comm, &rank));
    TT_CHECK(want[rank] == tt_rank, "%s: rank %d should be world rank %d, is %d",
             what, rank, want[rank], tt_rank);
    world_ranks(comm, n, got);
    for (int i = 0; i < n; i++)
        TT_CHECK(got[i] == want[i], "%s: rank %d is world rank %d, expected %d",
                 what, i, got[i], want[i]);
    int to = (rank + 1) % n, from = (rank + n - 1) % n, msg = -1;
    TT_MPI(MPI_Sendrecv(&tt_rank, 1, MPI_INT, to, TAG, &msg, 1, MPI_INT, from, TAG,
                        comm, MPI_STATUS_IGNORE));
    TT_CHECK(msg == want[from], "%s: ring message from rank %d came from world rank %d, "
             "expected %d", what, from, msg, want[from]);
    TT_MPI(MPI_Barrier(comm));
    free(got);
}

static void test_dup(void)
{
    MPI_Comm d, d2;
    int res, *all = tt_malloc(sizeof(int) * (size_t)tt_size);
    for (int i = 0; i < tt_size; i++)
        all[i] = i;
    TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    check_members(d, tt_size, all, "dup of world");
    TT_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res));
    TT_EQ("compare(world, world)", MPI_IDENT, res);
    TT_MPI(MPI_Comm_compare(MPI_COMM_WORLD, d, &res));
    TT_EQ("compare(world, dup)", MPI_CONGRUENT, res);
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    TT_MPI(MPI_Comm_get_name(d, name, &len));
    TT_EQ("name length of a dup", 0, len);

    /* Same tag on two communicators: each receive gets its own message. */
    int a = 100 + tt_rank, b = 200 + tt_rank, ra = -1, rb = -1;
    MPI_Request rq[4];
    TT_MPI(MPI_Irecv(&rb, 1, MPI_INT, tt_prev(), TAG, MPI_COMM_WORLD, &rq[0]));
    TT_MPI(MPI_Irecv(&ra, 1, MPI_INT, tt_prev(), TAG, d, &rq[1]));
    TT_MPI(MPI_Isend(&a, 1, MPI_INT, tt_next(), TAG, d, &rq[2]));
    TT_MPI(MPI_Isend(&b, 1, MPI_INT, tt_next(), TAG, MPI_COMM_WORLD, &rq[3]));
    TT_MPI(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    TT_EQ("message on the dup", 100 + tt_prev(), ra);
    TT_EQ("message on world", 200 + tt_prev(), rb);

    /* A dup of a dup, made with the nonblocking call. */
    MPI_Request r;
    MPI_Status st;
    TT_MPI(MPI_Comm_idup(d, &d2, &r));
    TT_MPI(MPI_Wait(&r, &st));
    TT_CHECK(r == MPI_REQUEST_NULL, "MPI_Wait left the idup request set");
    check_members(d2, tt_size, all, "idup of the dup");
    TT_MPI(MPI_Comm_compare(d, d2, &res));
    TT_EQ("compare(dup, idup)", MPI_CONGRUENT, res);
    TT_MPI(MPI_Comm_free(&d2));
    TT_CHECK(d2 == MPI_COMM_NULL, "MPI_Comm_free did not set the handle to MPI_COMM_NULL");
    TT_MPI(MPI_Comm_free(&d));
    free(all);
}

/* Members of a split by (color, key), computed from the world ranks: the
 * ranks with my color, ordered by key then world rank. */
static int expected_split(int (*color)(int), int (*key)(int), int *want)
{
    int n = 0, mine = color(tt_rank);
    for (int r = 0; r < tt_size; r++)
        if (color(r) == mine)
            want[n++] = r;
    for (int i = 1; i < n; i++)   /* Insertion sort, stable on world rank. */
        for (int j = i; j > 0 && key(want[j - 1]) > key(want[j]); j--) {
            int t = want[j];
            want[j] = want[j - 1];
            want[j - 1] = t;
        }
    return n;
}

static int color_mod3(int r) { return r % 3; }
static int key_neg(int r) { return -r; }
static int key_zero(int r) { (void)r; return 0; }
static int color_half(int r) { return r < tt_size / 2 ? 0 : 1; }
static int key_pair(int r) { return r / 2; }   /* Ties broken by world rank. */

static void test_split(void)
{
    int *want = tt_malloc(sizeof(int) * (size_t)tt_size), n, res;
    MPI_Comm c, c2;

    n = expected_split(color_mod3, key_neg, want);
    TT_MPI(MPI_Comm_split(MPI_COMM_WORLD, color_mod3(tt_rank), key_neg(tt_rank), &c));
    check_members(c, n, want, "split by rank % 3, reversed");
    /* A split of a split: halves of it, keys tied. */
    MPI_Comm_rank(c, &res);
    int sub_color = res % 2;
    TT_MPI(MPI_Comm_split(c, sub_color, 0, &c2));
    int n2 = 0, *want2 = tt_malloc(sizeof(int) * (size_t)tt_size);
    for (int i = 0; i < n; i++)
        if (i % 2 == sub_color)
            want2[n2++] = want[i];
    check_members(c2, n2, want2, "split of a split");
    TT_MPI(MPI_Comm_free(&c2));
    TT_MPI(MPI_Comm_free(&c));
    free(want2);

    n = expected_split(color_half, key_pair, want);
    TT_MPI(MPI_Comm_split(MPI_COMM_WORLD, color_half(tt_rank), key_pair(tt_rank), &c));
    check_members(c, n, want, "split in halves, tied keys");
    TT_MPI(MPI_Comm_compare(MPI_COMM_WORLD, c, &res));
    TT_EQ("compare(world, half)", tt_size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL, res);
    TT_MPI(MPI_Comm_free(&c));

    /* Everyone in one color, reversed: the same members in another order. */
    n = expected_split(key_zero, key_neg, want);
    TT_MPI(MPI_Comm_split(MPI_COMM_WORLD, 5, key_neg(tt_rank), &c));
    check_members(c, n, want, "split into one, reversed");
    TT_MPI(MPI_Comm_compare(MPI_COMM_WORLD, c, &res));
    TT_EQ("compare(world, reversed)", tt_size == 1 ? MPI_CONGRUENT : MPI_SIMILAR, res);
    TT_MPI(MPI_Comm_free(&c));

    /* MPI_UNDEFINED: the odd ranks get no communicator. */
    int color = tt_rank % 2 ? MPI_UNDEFINED : 0;
    TT_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, tt_rank, &c));
    if (tt_rank % 2) {
        TT_CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED color gave a communicator");
    } else {
        n = 0;
        for (int r = 0; r < tt_size; r += 2)
            want[n++] = r;
        check_members(c, n, want, "split of the even ranks");
        TT_MPI(MPI_Comm_free(&c));
    }
    free(want);
}

/* The ranks on my host, by processor name (one name per world rank, shared
 * around a ring of messages). */
static void test_split_type(void)
{
    char (*names)[MPI_MAX_PROCESSOR_NAME] = tt_malloc(sizeof(*names) * (size_t)tt_size);
    int len;
    memset(names, 0, sizeof(*names) * (size_t)tt_size);
    TT_MPI(MPI_Get_processor_name(names[tt_rank], &len));
    for (int step = 1; step < tt_size; step++) {
        int src = (tt_rank - step + tt_size) % tt_size;
        int dst = (tt_rank + step) % tt_size;
        TT_MPI(MPI_Sendrecv(names[tt_rank], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, dst, TAG,
                            names[src], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, src, TAG,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    int *want = tt_malloc(sizeof(int) * (size_t)tt_size), n = 0;
    for (int r = 0; r < tt_size; r++)
        if (!strcmp(names[r], names[tt_rank]))
            want[n++] = r;
    MPI_Comm c;
    TT_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c));
    check_members(c, n, want, "split_type shared");
    TT_MPI(MPI_Comm_free(&c));

    /* Odd ranks opt out with MPI_UNDEFINED; the rest split by host. */
    int type = tt_rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED;
    TT_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, type, -tt_rank, MPI_INFO_NULL, &c));
    if (tt_rank % 2) {
        TT_CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED split_type gave a communicator");
    } else {
        int m = 0, *even = tt_malloc(sizeof(int) * (size_t)tt_size);
        for (int i = n - 1; i >= 0; i--)
            if (want[i] % 2 == 0)
                even[m++] = want[i];
        check_members(c, m, even, "split_type shared of the even ranks, reversed");
        free(even);
        TT_MPI(MPI_Comm_free(&c));
    }
    free(want);
    free(names);

    /* Tern only (other MPIs may know more of the hardware): the host is the
     * only level known, so a guided split with no resource named, and an
     * unguided one on a single host, give MPI_COMM_NULL. */
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(lib, &len);
    if (strncmp(lib, "Tern", 4))
        return;
#if MPI_VERSION >= 4   /* The hardware split types came with MPI 4.0. */
    TT_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c));
    TT_CHECK(c == MPI_COMM_NULL, "MPI_COMM_TYPE_HW_GUIDED without a resource gave a communicator");
    if (n == tt_size) {
        TT_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c));
        TT_CHECK(c == MPI_COMM_NULL, "MPI_COMM_TYPE_HW_UNGUIDED on one host gave a communicator");
    }
#endif
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c);
    MPI_Error_class(rc, &cls);
    TT_EQ("class of MPI_Comm_split_type with split_type 12345", MPI_ERR_ARG, cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* A communicator freed while a transfer on it is in flight: the transfer
 * completes and delivers the data. */
static void test_free_pending(void)
{
    enum { N = 1 << 18 };
    MPI_Comm d;
    TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    unsigned char *sbuf = tt_malloc(N), *rbuf = tt_malloc(N);
    uint32_t seed = tt_seed(7, (uint32_t)tt_rank, 1);
    tt_fill(sbuf, N, seed);
    memset(rbuf, 0, N);
    MPI_Request rq[2];
    TT_MPI(MPI_Irecv(rbuf, N, MPI_BYTE, tt_prev(), TAG, d, &rq[0]));
    TT_MPI(MPI_Isend(sbuf, N, MPI_BYTE, tt_next(), TAG, d, &rq[1]));
    TT_MPI(MPI_Comm_free(&d));
    /* New communicators come and go meanwhile. */
    for (int i = 0; i < 3; i++) {
        MPI_Comm t;
        TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &t));
        TT_MPI(MPI_Comm_free(&t));
    }
    TT_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    TT_CHECK_PATTERN(rbuf, N, tt_seed(7, (uint32_t)tt_prev(), 1),
                     "transfer on a freed communicator");
    free(sbuf);
    free(rbuf);
}

/* Many communicators alive at once, created in different orders by
 * different ranks' subsets, must still keep their traffic apart. */
static void test_many(void)
{
    enum { K = 6 };
    MPI_Comm c[K];
    for (int i = 0; i < K; i++)
        TT_MPI(MPI_Comm_split(MPI_COMM_WORLD, (tt_rank + i) % 2, tt_rank, &c[i]));
    /* Send on every one, receive in reverse order of creation. */
    int out[K], in[K];
    MPI_Request rq[2 * K];
    for (int i = 0; i < K; i++) {
        int sz, rk;
        MPI_Comm_size(c[i], &sz);
        MPI_Comm_rank(c[i], &rk);
        out[i] = 1000 * i + tt_rank;
        TT_MPI(MPI_Isend(&out[i], 1, MPI_INT, (rk + 1) % sz, TAG, c[i], &rq[i]));
    }
    for (int i = K - 1; i >= 0; i--) {
        int sz, rk, want[64];
        MPI_Comm_size(c[i], &sz);
        MPI_Comm_rank(c[i], &rk);
        TT_MPI(MPI_Irecv(&in[i], 1, MPI_INT, (rk + sz - 1) % sz, TAG, c[i], &rq[K + i]));
        world_ranks(c[i], sz, want);
        TT_MPI(MPI_Wait(&rq[K + i], MPI_STATUS_IGNORE));
        TT_EQ("message on communicator i", 1000 * i + want[(rk + sz - 1) % sz], in[i]);
    }
    TT_MPI(MPI_Waitall(K, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < K; i++)
        TT_MPI(MPI_Comm_free(&c[i]));
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "comm_split");
    test_dup();
    test_split();
    test_split_type();
    test_free_pending();
    test_many();
    return tt_finish();
}
