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
 *  - MPI_Isendrecv and MPI_Isendrecv_replace (and _c) around a ring, 4 B
 *    and 1 MiB (the send then completes after the receive), completed
 *    by MPI_Wait, MPI_Test in a loop, MPI_Waitall beside other requests
 *    and MPI_Waitany; the status is the receive's; the replace form with a
 *    vector type, whose buffer may be overwritten as soon as the call
 *    returns; MPI_Request_free of a pending one; MPI_Cancel of one, which
 *    must either cancel both halves or neither (Tern: neither, so the
 *    data arrives and MPI_Test_cancelled says false).
 *
 * Uses only the standard MPI API (MPI 4.1 for the accessors, the value
 * index and the _c forms, which the program leaves out elsewhere).
 */
#include "tt.h"

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
    TT_EXPECT_CLASS(MPI_Dims_create(6, 2, bad), MPI_ERR_DIMS);
    int full[2] = { 2, 2 };
    TT_EXPECT_CLASS(MPI_Dims_create(6, 2, full), MPI_ERR_DIMS);
    int neg[2] = { -1, 0 };
    TT_EXPECT_CLASS(MPI_Dims_create(6, 2, neg), MPI_ERR_DIMS);
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

/* Rank r's value i of a message with this salt. */
static int val(int r, size_t i, int salt) { return (int)(r * 1000003 + (int)i * 7 + salt); }

static void check_from_prev(const int *buf, size_t n, int salt, const char *what)
{
    for (size_t i = 0; i < n; i++)
        TT_CHECK(buf[i] == val(tt_prev(), i, salt), "%s: element %zu is %d, expected %d", what,
                 i, buf[i], val(tt_prev(), i, salt));
}

static void isendrecv(void)
{
    size_t sizes[2] = { 1, 256 * 1024 };
    for (int k = 0; k < 2; k++) {
        size_t n = sizes[k];
        int *out = malloc(n * sizeof(int)), *in = malloc(n * sizeof(int));
        TT_CHECK(out && in, "out of memory");
        for (int how = 0; how < 4; how++) {
            int salt = 10 * k + how;
            for (size_t i = 0; i < n; i++) {
                out[i] = val(tt_rank, i, salt);
                in[i] = -1;
            }
            MPI_Request r[2];
            MPI_Status st;
            int flag = 0, idx;
            TT_MPI(MPI_Isendrecv(out, (int)n, MPI_INT, tt_next(), 50 + how, in, (int)n,
                                 MPI_INT, tt_prev(), 50 + how, MPI_COMM_WORLD, &r[0]));
            switch (how) {
            case 0: TT_MPI(MPI_Wait(&r[0], &st)); break;
            case 1:
                while (!flag)
                    TT_MPI(MPI_Test(&r[0], &flag, &st));
                break;
            case 2: {
                /* Beside a plain exchange of its own. */
                int x = tt_rank, y = -1;
                MPI_Request more[3] = { r[0] };
                MPI_Status sts[3];
                TT_MPI(MPI_Irecv(&y, 1, MPI_INT, tt_prev(), 60, MPI_COMM_WORLD, &more[1]));
                TT_MPI(MPI_Isend(&x, 1, MPI_INT, tt_next(), 60, MPI_COMM_WORLD, &more[2]));
                TT_MPI(MPI_Waitall(3, more, sts));
                st = sts[0];
                TT_EQ("plain exchange beside MPI_Isendrecv", tt_prev(), y);
                break;
            }
            default:
                TT_MPI(MPI_Waitany(1, r, &idx, &st));
                TT_EQ("MPI_Waitany's index", 0, idx);
                break;
            }
            TT_CHECK(r[0] == MPI_REQUEST_NULL || how == 2, "the request was not freed");
            TT_EQ("source of MPI_Isendrecv's status", tt_prev(), st.MPI_SOURCE);
            TT_EQ("tag of MPI_Isendrecv's status", 50 + how, st.MPI_TAG);
            int got;
            TT_MPI(MPI_Get_count(&st, MPI_INT, &got));
            TT_EQ("count of MPI_Isendrecv's status", (int)n, got);
            check_from_prev(in, n, salt, "MPI_Isendrecv");
        }

        /* Replace, with every other int of a buffer twice as long. */
        int *both = malloc(2 * n * sizeof(int));
        TT_CHECK(both, "out of memory");
        MPI_Datatype every_other;
        TT_MPI(MPI_Type_vector((int)n, 1, 2, MPI_INT, &every_other));
        TT_MPI(MPI_Type_commit(&every_other));
        for (size_t i = 0; i < n; i++) {
            both[2 * i] = val(tt_rank, i, 99);
            both[2 * i + 1] = -7;
        }
        MPI_Request r;
        TT_MPI(MPI_Isendrecv_replace_c(both, 1, every_other, tt_next(), 70, tt_prev(), 70,
                                       MPI_COMM_WORLD, &r));
        TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (size_t i = 0; i < n; i++) {
            in[i] = both[2 * i];
            TT_CHECK(both[2 * i + 1] == -7, "MPI_Isendrecv_replace wrote between the vector's "
                                            "elements");
        }
        check_from_prev(in, n, 99, "MPI_Isendrecv_replace_c with a vector");
        TT_MPI(MPI_Type_free(&every_other));
        free(both);

        /* Cancelled: all or nothing. */
        for (size_t i = 0; i < n; i++)
            out[i] = val(tt_rank, i, 88);
        TT_MPI(MPI_Isendrecv(out, (int)n, MPI_INT, tt_next(), 85, in, (int)n, MPI_INT,
                             tt_prev(), 85, MPI_COMM_WORLD, &r));
        TT_MPI(MPI_Cancel(&r));
        MPI_Status cst;
        int cancelled;
        TT_MPI(MPI_Wait(&r, &cst));
        TT_MPI(MPI_Test_cancelled(&cst, &cancelled));
        if (!cancelled)
            check_from_prev(in, n, 88, "an MPI_Isendrecv whose cancel failed");
        int peer_cancelled;
        TT_MPI(MPI_Sendrecv(&cancelled, 1, MPI_INT, tt_prev(), 86, &peer_cancelled, 1, MPI_INT,
                            tt_next(), 86, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        /* If this rank's receive was cancelled, its sender's send must have
         * been too, and the other way round. */
        TT_CHECK(!cancelled || peer_cancelled || tt_size == 1,
                 "an MPI_Isendrecv was cancelled here, but the send of the next rank's pair "
                 "went out");

        /* Freed while pending: the exchange still happens. Nothing says
         * when (a later message from the same peer may complete first),
         * so the buffer is watched while MPI_Iprobe drives progress. */
        for (size_t i = 0; i < n; i++)
            out[i] = val(tt_rank, i, 77);
        volatile int *first = &in[0], *last = &in[n - 1];
        TT_MPI(MPI_Isendrecv_c(out, (MPI_Count)n, MPI_INT, tt_next(), 80, in, (MPI_Count)n,
                               MPI_INT, tt_prev(), 80, MPI_COMM_WORLD, &r));
        TT_MPI(MPI_Request_free(&r));
        TT_CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free did not reset the handle");
        double until = MPI_Wtime() + 20;
        while ((*first != val(tt_prev(), 0, 77) || *last != val(tt_prev(), n - 1, 77)) &&
               MPI_Wtime() < until) {
            int flag;
            TT_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        }
        check_from_prev(in, n, 77, "a freed MPI_Isendrecv, after 20 s at most");
        /* Every rank's data arrived: no send is still reading `out`. */
        TT_MPI(MPI_Barrier(MPI_COMM_WORLD));
        free(out);
        free(in);
    }
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "small_calls");
    topo();
    dims_create();
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    status_and_pairs();
    large_count_forms();
    isendrecv();
#endif
    return tt_finish();
}
