/*
 * p2p_truncate: a message longer than the receive buffer.
 *
 * With MPI_ERRORS_RETURN on MPI_COMM_WORLD, each rank sends messages to the
 * next rank on the ring (itself in a one-rank job) that the receiver
 * receives into a buffer that is too short. For each (message size, buffer
 * size) in {(100, 50), (10, 0), (4 MiB + 3, 1 MiB), (64 KiB, 64 KiB - 1)}:
 *   - the receive reports an error whose class is MPI_ERR_TRUNCATE:
 *       blocking MPI_Recv: the return code;
 *       MPI_Irecv + MPI_Wait: the return code of MPI_Wait;
 *       MPI_Irecv + MPI_Waitall with a second, good receive:
 *         MPI_ERR_IN_STATUS, status[0].MPI_ERROR of class MPI_ERR_TRUNCATE,
 *         status[1].MPI_ERROR MPI_SUCCESS (or MPI_ERR_PENDING, then the
 *         request is still active and is waited for);
 *       MPI_Irecv + MPI_Testall loop: the same as Waitall;
 *       MPI_Mprobe + MPI_Mrecv: the return code of MPI_Mrecv;
 *   - the guard region right after the receive buffer is untouched;
 *   - the sender's send completes normally (it must not hang on a
 *     rendezvous the receiver cut short);
 *   - the truncated message is consumed: the next message on the same tag
 *     is received whole and correct.
 */
#include "tt.h"

#define GUARD 4096
#define GUARD_BYTE 0xA5
#define T_TR 51
#define T_OK 52
#define NMETHODS 5

static const char *method_name[NMETHODS] = {
    "MPI_Recv", "MPI_Irecv+MPI_Wait", "MPI_Irecv+MPI_Waitall",
    "MPI_Irecv+MPI_Testall", "MPI_Mprobe+MPI_Mrecv"};

static unsigned char *sbuf, *rbuf;

static void expect_truncate(int rc, const char *what, int msg, int cap)
{
    int cls = -1;
    if (rc == MPI_SUCCESS)
        TT_FAIL("%s: message of %d bytes into a buffer of %d: returned "
                "MPI_SUCCESS, expected an error of class MPI_ERR_TRUNCATE",
                what, msg, cap);
    TT_MPI(MPI_Error_class(rc, &cls));
    if (cls != MPI_ERR_TRUNCATE)
        TT_FAIL("%s: message of %d bytes into a buffer of %d: error class %d "
                "(%s), expected MPI_ERR_TRUNCATE=%d", what, msg, cap, cls,
                tt_errstr(rc), MPI_ERR_TRUNCATE);
}

/* Receives the truncated message from prev with the given method. */
static void recv_truncated(int method, int msg, int cap)
{
    int prev = tt_prev(), rc;
    const char *what = method_name[method];
    MPI_Status st[2];
    MPI_Request r[2];
    int okv = -1;

    memset(rbuf, 0, (size_t)cap);
    memset(rbuf + cap, GUARD_BYTE, GUARD);
    switch (method) {
    case 0:
        rc = MPI_Recv(rbuf, cap, MPI_BYTE, prev, T_TR, MPI_COMM_WORLD, &st[0]);
        expect_truncate(rc, what, msg, cap);
        break;
    case 1:
        TT_MPI(MPI_Irecv(rbuf, cap, MPI_BYTE, prev, T_TR, MPI_COMM_WORLD, &r[0]));
        rc = MPI_Wait(&r[0], &st[0]);
        expect_truncate(rc, what, msg, cap);
        break;
    case 2:
    case 3: {
        TT_MPI(MPI_Irecv(rbuf, cap, MPI_BYTE, prev, T_TR, MPI_COMM_WORLD, &r[0]));
        TT_MPI(MPI_Irecv(&okv, 1, MPI_INT, prev, T_OK, MPI_COMM_WORLD, &r[1]));
        st[0].MPI_ERROR = st[1].MPI_ERROR = -12345;
        if (method == 2) {
            rc = MPI_Waitall(2, r, st);
        } else {
            int flag = 0;
            do
                rc = MPI_Testall(2, r, &flag, st);
            while (rc == MPI_SUCCESS && !flag);
        }
        if (rc != MPI_ERR_IN_STATUS)
            TT_FAIL("%s: message of %d bytes into %d: returned %d (%s), "
                    "expected MPI_ERR_IN_STATUS", what, msg, cap, rc,
                    tt_errstr(rc));
        char w[128];
        snprintf(w, sizeof w, "%s status[0].MPI_ERROR", what);
        expect_truncate(st[0].MPI_ERROR, w, msg, cap);
        if (st[1].MPI_ERROR == MPI_ERR_PENDING) {
            TT_MPI(MPI_Wait(&r[1], &st[1]));
        } else if (st[1].MPI_ERROR != MPI_SUCCESS) {
            TT_FAIL("%s: status[1].MPI_ERROR of the good receive: %d, "
                    "expected MPI_SUCCESS or MPI_ERR_PENDING", what,
                    st[1].MPI_ERROR);
        }
        TT_CHECK_STATUS(st[1], prev, T_OK, MPI_INT, 1, "good receive");
        TT_EQ("value of the good receive", prev, okv);
        break;
    }
    case 4: {
        MPI_Message m;
        TT_MPI(MPI_Mprobe(prev, T_TR, MPI_COMM_WORLD, &m, &st[0]));
        TT_CHECK_STATUS(st[0], prev, T_TR, MPI_BYTE, msg, "MPI_Mprobe");
        rc = MPI_Mrecv(rbuf, cap, MPI_BYTE, &m, &st[0]);
        expect_truncate(rc, what, msg, cap);
        break;
    }
    }
    TT_CHECK_BYTES(rbuf + cap, GUARD, GUARD_BYTE,
                   "%s of %d bytes into %d: guard after the buffer", what, msg,
                   cap);
}

static void one_case(int method, int msg, int cap)
{
    int next = tt_next(), prev = tt_prev(), me = tt_rank;
    MPI_Request sr[3];
    MPI_Status st;
    uint32_t follow_seed = tt_seed((uint32_t)me, (uint32_t)msg, 99);

    /* The truncated message, the "good" int (used by methods 2 and 3) and a
     * follow-up message on the same tag as the truncated one. */
    tt_fill(sbuf, (size_t)msg, tt_seed((uint32_t)me, (uint32_t)msg, 1));
    TT_MPI(MPI_Isend(sbuf, msg, MPI_BYTE, next, T_TR, MPI_COMM_WORLD, &sr[0]));
    if (method == 2 || method == 3)
        TT_MPI(MPI_Isend(&me, 1, MPI_INT, next, T_OK, MPI_COMM_WORLD, &sr[1]));
    else
        sr[1] = MPI_REQUEST_NULL;
    unsigned char follow[37];
    tt_fill(follow, sizeof follow, follow_seed);
    TT_MPI(MPI_Isend(follow, (int)sizeof follow, MPI_BYTE, next, T_TR,
                     MPI_COMM_WORLD, &sr[2]));

    recv_truncated(method, msg, cap);

    /* The follow-up arrives whole: the truncated message was consumed. */
    unsigned char in[64];
    TT_MPI(MPI_Recv(in, (int)sizeof in, MPI_BYTE, prev, T_TR, MPI_COMM_WORLD,
                    &st));
    TT_CHECK_STATUS(st, prev, T_TR, MPI_BYTE, (int)sizeof follow,
                    "follow-up message after the truncated one");
    TT_CHECK_PATTERN(in, sizeof follow,
                     tt_seed((uint32_t)prev, (uint32_t)msg, 99),
                     "follow-up message after a truncated %s", method_name[method]);

    /* The sender's side completes normally. */
    TT_MPI(MPI_Waitall(3, sr, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv)
{
    static const int cases[][2] = {
        {100, 50}, {10, 0}, {(4 << 20) + 3, 1 << 20}, {65536, 65535}};
    tt_init(&argc, &argv, "p2p_truncate");
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    sbuf = tt_malloc((4 << 20) + 3);
    rbuf = tt_malloc((1 << 20) + GUARD);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int method = 0; method < NMETHODS; method++) {
            one_case(method, cases[c][0], cases[c][1]);
            tt_sync();
        }
    free(sbuf);
    free(rbuf);
    return tt_finish();
}
