/*
 * small_calls: calls that programs use here and there and that each take
 * a few lines to check.
 *
 *  - MPI_Pcontrol returns MPI_SUCCESS (a hook for profiling tools).
 *  - MPI_Topo_test says MPI_UNDEFINED for communicators without a
 *    topology.
 *  - MPI_Dims_create: products, non-increasing order, fixed dimensions
 *    kept, dimensions as close to each other as the divisors allow
 *    (checked against a search of every factorization for n up to 200 in
 *    2 and 3 dimensions), and MPI_ERR_DIMS for impossible requests.
 *  - The MPI 4.1 status accessors (MPI_Status_get_source and friends) on
 *    a received message's status, and their set forms.
 *  - MPI_Type_get_value_index: the predefined pair types, and
 *    MPI_DATATYPE_NULL for a pair without one.
 *  - The large-count (_c) forms of Ssend, Rsend, Bsend, Issend, Irsend,
 *    Ibsend, Mrecv, Imrecv, Sendrecv and Sendrecv_replace, around a ring.
 *
 * Uses only the standard MPI API (MPI 4.1 for the accessors, the value
 * index and the _c forms, which the program leaves out elsewhere).
 */
#include "tt.h"

#define EXPECT_CLASS(call, want)                                               \
    do {                                                                       \
        int rc_ = (call), cls_ = MPI_SUCCESS;                                  \
        if (rc_ != MPI_SUCCESS)                                                \
            MPI_Error_class(rc_, &cls_);                                       \
        TT_CHECK(cls_ == (want), "%s returned class %d, expected %s", #call,  \
                 cls_, #want);                                                 \
    } while (0)

static void topo(void)
{
    TT_MPI(MPI_Pcontrol(1));
    TT_MPI(MPI_Pcontrol(0, "extra", 3));
    int st = -1;
    TT_MPI(MPI_Topo_test(MPI_COMM_WORLD, &st));
    TT_EQ("MPI_Topo_test of MPI_COMM_WORLD", MPI_UNDEFINED, st);
}

/* The smallest largest factor over every way of writing n as k factors. */
static int best_max(int n, int k)
{
    if (k == 1)
        return n;
    int best = n;
    for (int d = 1; d <= n; d++)
        if (n % d == 0) {
            int rest = best_max(n / d, k - 1);
            int m = d > rest ? d : rest;
            if (m < best)
                best = m;
        }
    return best;
}

static void check_dims(int n, int k, const int *given, const int *want)
{
    int dims[8];
    memcpy(dims, given, (size_t)k * sizeof *dims);
    TT_MPI(MPI_Dims_create(n, k, dims));
    for (int i = 0; i < k; i++)
        TT_CHECK(dims[i] == want[i], "MPI_Dims_create(%d, %d): dimension %d is %d, "
                                     "expected %d", n, k, i, dims[i], want[i]);
}

static void dims_create(void)
{
    check_dims(6, 2, (int[]){ 0, 0 }, (int[]){ 3, 2 });
    check_dims(72, 2, (int[]){ 0, 0 }, (int[]){ 9, 8 });
    check_dims(24, 3, (int[]){ 0, 0, 0 }, (int[]){ 4, 3, 2 });
    check_dims(7, 2, (int[]){ 0, 0 }, (int[]){ 7, 1 });
    check_dims(12, 2, (int[]){ 0, 3 }, (int[]){ 4, 3 });
    check_dims(12, 3, (int[]){ 2, 0, 0 }, (int[]){ 2, 3, 2 });
    check_dims(6, 2, (int[]){ 2, 3 }, (int[]){ 2, 3 });
    check_dims(1, 3, (int[]){ 0, 0, 0 }, (int[]){ 1, 1, 1 });
    check_dims(2147483647, 2, (int[]){ 0, 0 }, (int[]){ 2147483647, 1 });
    for (int k = 2; k <= 3; k++)
        for (int n = 1; n <= 200; n++) {
            int dims[3] = { 0, 0, 0 }, prod = 1;
            TT_MPI(MPI_Dims_create(n, k, dims));
            for (int i = 0; i < k; i++) {
                prod *= dims[i];
                TT_CHECK(i == 0 || dims[i] <= dims[i - 1],
                         "MPI_Dims_create(%d, %d) is not in non-increasing order", n, k);
            }
            TT_EQ("product of MPI_Dims_create's dimensions", n, prod);
            TT_CHECK(dims[0] == best_max(n, k), "MPI_Dims_create(%d, %d): largest dimension "
                     "%d, but %d is possible", n, k, dims[0], best_max(n, k));
        }
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bad[2] = { 4, 0 };
    EXPECT_CLASS(MPI_Dims_create(6, 2, bad), MPI_ERR_DIMS);
    int full[2] = { 2, 2 };
    EXPECT_CLASS(MPI_Dims_create(6, 2, full), MPI_ERR_DIMS);
    int neg[2] = { -1, 0 };
    EXPECT_CLASS(MPI_Dims_create(6, 2, neg), MPI_ERR_DIMS);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
static void status_and_pairs(void)
{
    int x = tt_rank, y = -1, v;
    MPI_Status st;
    TT_MPI(MPI_Sendrecv(&x, 1, MPI_INT, tt_next(), 21, &y, 1, MPI_INT, tt_prev(), 21,
                        MPI_COMM_WORLD, &st));
    TT_MPI(MPI_Status_get_source(&st, &v));
    TT_EQ("MPI_Status_get_source", tt_prev(), v);
    TT_MPI(MPI_Status_get_tag(&st, &v));
    TT_EQ("MPI_Status_get_tag", 21, v);
    TT_MPI(MPI_Status_set_source(&st, 5));
    TT_MPI(MPI_Status_set_tag(&st, 6));
    TT_MPI(MPI_Status_set_error(&st, MPI_ERR_TAG));
    TT_CHECK(st.MPI_SOURCE == 5 && st.MPI_TAG == 6 && st.MPI_ERROR == MPI_ERR_TAG,
             "the MPI_Status_set_ calls did not set the public fields");
    TT_MPI(MPI_Status_get_error(&st, &v));
    TT_EQ("MPI_Status_get_error", MPI_ERR_TAG, v);

    MPI_Datatype t;
    TT_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
    TT_CHECK(t == MPI_DOUBLE_INT, "value index of (MPI_DOUBLE, MPI_INT) is not MPI_DOUBLE_INT");
    TT_MPI(MPI_Type_get_value_index(MPI_INT, MPI_INT, &t));
    TT_CHECK(t == MPI_2INT, "value index of (MPI_INT, MPI_INT) is not MPI_2INT");
    TT_MPI(MPI_Type_get_value_index(MPI_CHAR, MPI_DOUBLE, &t));
    TT_CHECK(t == MPI_DATATYPE_NULL, "value index of (MPI_CHAR, MPI_DOUBLE) is not "
                                     "MPI_DATATYPE_NULL");
}

/* Each _c form sends this rank's number to the next rank around the ring. */
static void large_count_forms(void)
{
    int got, me = tt_rank, next = tt_next(), prev = tt_prev();
    MPI_Request r[2];
    MPI_Message m;
    char bsend_buf[2 * MPI_BSEND_OVERHEAD + 64];
    void *detached;
    MPI_Count dsize;
    TT_MPI(MPI_Buffer_attach_c(bsend_buf, sizeof bsend_buf));
    for (int form = 0; form < 6; form++) {
        got = -1;
        TT_MPI(MPI_Irecv_c(&got, 1, MPI_INT, prev, 30 + form, MPI_COMM_WORLD, &r[0]));
        /* Ready mode needs the receive posted: every rank has posted its
         * receive before any rank sends. */
        TT_MPI(MPI_Barrier(MPI_COMM_WORLD));
        switch (form) {
        case 0: TT_MPI(MPI_Ssend_c(&me, 1, MPI_INT, next, 30, MPI_COMM_WORLD)); break;
        case 1: TT_MPI(MPI_Rsend_c(&me, 1, MPI_INT, next, 31, MPI_COMM_WORLD)); break;
        case 2: TT_MPI(MPI_Bsend_c(&me, 1, MPI_INT, next, 32, MPI_COMM_WORLD)); break;
        case 3:
            TT_MPI(MPI_Issend_c(&me, 1, MPI_INT, next, 33, MPI_COMM_WORLD, &r[1]));
            TT_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
            break;
        case 4:
            TT_MPI(MPI_Irsend_c(&me, 1, MPI_INT, next, 34, MPI_COMM_WORLD, &r[1]));
            TT_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
            break;
        default:
            TT_MPI(MPI_Ibsend_c(&me, 1, MPI_INT, next, 35, MPI_COMM_WORLD, &r[1]));
            TT_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
            break;
        }
        TT_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
        TT_EQ("value received around the ring", prev, got);
    }
    TT_MPI(MPI_Buffer_detach_c(&detached, &dsize));

    /* Mrecv_c and Imrecv_c. */
    TT_MPI(MPI_Isend(&me, 1, MPI_INT, next, 40, MPI_COMM_WORLD, &r[1]));
    TT_MPI(MPI_Mprobe(prev, 40, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
    got = -1;
    TT_MPI(MPI_Mrecv_c(&got, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
    TT_EQ("MPI_Mrecv_c", prev, got);
    TT_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    TT_MPI(MPI_Isend(&me, 1, MPI_INT, next, 41, MPI_COMM_WORLD, &r[1]));
    TT_MPI(MPI_Mprobe(prev, 41, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
    got = -1;
    TT_MPI(MPI_Imrecv_c(&got, 1, MPI_INT, &m, &r[0]));
    TT_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    TT_EQ("MPI_Imrecv_c", prev, got);

    got = -1;
    TT_MPI(MPI_Sendrecv_c(&me, 1, MPI_INT, next, 42, &got, 1, MPI_INT, prev, 42,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TT_EQ("MPI_Sendrecv_c", prev, got);
    got = me;
    TT_MPI(MPI_Sendrecv_replace_c(&got, 1, MPI_INT, next, 43, prev, 43, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE));
    TT_EQ("MPI_Sendrecv_replace_c", prev, got);
}
#endif

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "small_calls");
    topo();
    dims_create();
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    status_and_pairs();
    large_count_forms();
#endif
    return tt_finish();
}
