/*
 * p2p_persist: persistent point-to-point requests.
 *
 *  - A ring of MPI_Send_init / MPI_Recv_init pairs started 50 times with
 *    MPI_Startall and completed with MPI_Waitall, new data each time, in
 *    every send mode (standard, synchronous, buffered with an attached
 *    buffer, ready with the receive started first) and the _c forms, with
 *    a strided datatype for some; statuses name the sender and the tag.
 *  - Completion by MPI_Wait, MPI_Test in a loop, MPI_Waitany, MPI_Waitsome:
 *    the handle stays valid (not MPI_REQUEST_NULL) and can be started again.
 *  - Inactive requests: MPI_Wait returns at once with an empty status,
 *    MPI_Waitany over only inactive ones gives MPI_UNDEFINED,
 *    MPI_Request_get_status says done.
 *  - MPI_Start of an active request, or of a request that is not
 *    persistent, is MPI_ERR_REQUEST.
 *  - MPI_Cancel of an active receive: cancelled, and the request is then
 *    started again and receives.
 *  - MPI_PROC_NULL as the peer; MPI_Request_free of an inactive request and
 *    of an active send (which still arrives).
 */
#include "tt.h"

#define N 64

static void ring_mode(int mode, int strided)
{
    int sbuf[2 * N], rbuf[2 * N];
    MPI_Request req[2];
    MPI_Datatype vec;
    TT_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    TT_MPI(MPI_Type_commit(&vec));
    MPI_Datatype t = strided ? vec : MPI_INT;
    int count = strided ? 1 : N, tag = 10 + mode;
    TT_MPI(MPI_Recv_init(rbuf, count, t, tt_prev(), tag, MPI_COMM_WORLD, &req[0]));
    switch (mode) {
    case 0:
        TT_MPI(MPI_Send_init(sbuf, count, t, tt_next(), tag, MPI_COMM_WORLD, &req[1]));
        break;
    case 1:
        TT_MPI(MPI_Ssend_init(sbuf, count, t, tt_next(), tag, MPI_COMM_WORLD, &req[1]));
        break;
    case 2:
        TT_MPI(MPI_Bsend_init(sbuf, count, t, tt_next(), tag, MPI_COMM_WORLD, &req[1]));
        break;
    case 3:
        TT_MPI(MPI_Rsend_init_c(sbuf, count, t, tt_next(), tag, MPI_COMM_WORLD, &req[1]));
        break;
    default:
        TT_MPI(MPI_Send_init_c(sbuf, count, t, tt_next(), tag, MPI_COMM_WORLD, &req[1]));
    }
    MPI_Type_free(&vec); /* The requests keep what they need. */
    for (int it = 0; it < 50; it++) {
        for (int i = 0; i < 2 * N; i++) {
            sbuf[i] = tt_rank * 100000 + it * 100 + i;
            rbuf[i] = -1;
        }
        MPI_Status st[2];
        if (mode == 3) {
            /* A ready send needs the receive posted: start it, then sync. */
            TT_MPI(MPI_Start(&req[0]));
            TT_MPI(MPI_Barrier(MPI_COMM_WORLD));
            TT_MPI(MPI_Start(&req[1]));
            TT_MPI(MPI_Waitall(2, req, st));
        } else {
            TT_MPI(MPI_Startall(2, req));
            TT_MPI(MPI_Waitall(2, req, st));
        }
        TT_CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL,
                 "a completed persistent request became MPI_REQUEST_NULL");
        TT_EQ("status MPI_SOURCE", tt_prev(), st[0].MPI_SOURCE);
        TT_EQ("status MPI_TAG", tag, st[0].MPI_TAG);
        for (int i = 0; i < N; i++) {
            int at = strided ? 2 * i : i;
            TT_EQ("received element", tt_prev() * 100000 + it * 100 + at, rbuf[at]);
            if (strided)
                TT_EQ("element between strided ones", -1, rbuf[at + 1]);
        }
    }
    TT_MPI(MPI_Request_free(&req[0]));
    TT_MPI(MPI_Request_free(&req[1]));
    TT_CHECK(req[0] == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
}

static void completion_calls(void)
{
    int s = 0, r = -1, idx, flag, outcount, indices[2];
    MPI_Request req[2];
    MPI_Status st;
    TT_MPI(MPI_Recv_init(&r, 1, MPI_INT, tt_prev(), 20, MPI_COMM_WORLD, &req[0]));
    TT_MPI(MPI_Send_init(&s, 1, MPI_INT, tt_next(), 20, MPI_COMM_WORLD, &req[1]));

    /* Inactive: done at once, empty status, handle kept. */
    TT_MPI(MPI_Wait(&req[0], &st));
    TT_EQ("MPI_Wait on an inactive request: MPI_SOURCE", MPI_ANY_SOURCE, st.MPI_SOURCE);
    TT_EQ("MPI_Wait on an inactive request: MPI_TAG", MPI_ANY_TAG, st.MPI_TAG);
    TT_CHECK(req[0] != MPI_REQUEST_NULL, "MPI_Wait freed an inactive persistent request");
    TT_MPI(MPI_Waitany(2, req, &idx, &st));
    TT_EQ("MPI_Waitany over inactive requests", MPI_UNDEFINED, idx);
    TT_MPI(MPI_Request_get_status(req[1], &flag, &st));
    TT_EQ("MPI_Request_get_status of an inactive request", 1, flag);

    /* Errors: starting an active request, or one that is not persistent. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    TT_MPI(MPI_Start(&req[0]));
    int rc = MPI_Start(&req[0]), cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    TT_EQ("MPI_Start of an active request: error class", MPI_ERR_REQUEST, cls);
    MPI_Request plain;
    int dummy = 0;
    TT_MPI(MPI_Irecv(&dummy, 1, MPI_INT, tt_rank, 21, MPI_COMM_WORLD, &plain));
    rc = MPI_Start(&plain);
    cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    TT_EQ("MPI_Start of a nonblocking receive's request: error class", MPI_ERR_REQUEST, cls);
    TT_MPI(MPI_Send(&dummy, 1, MPI_INT, tt_rank, 21, MPI_COMM_WORLD));
    TT_MPI(MPI_Wait(&plain, MPI_STATUS_IGNORE));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* MPI_Test in a loop, then MPI_Waitany, then MPI_Waitsome. */
    for (int round = 0; round < 3; round++) {
        s = tt_rank * 10 + round;
        /* Round 0's receive was started above (r is -1 from the start). */
        if (round > 0) {
            r = -1;
            TT_MPI(MPI_Start(&req[0]));
        }
        TT_MPI(MPI_Start(&req[1]));
        if (round == 0) {
            do
                TT_MPI(MPI_Test(&req[0], &flag, &st));
            while (!flag);
            TT_MPI(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
        } else if (round == 1) {
            for (int k = 0; k < 2; k++)
                TT_MPI(MPI_Waitany(2, req, &idx, MPI_STATUS_IGNORE));
            TT_MPI(MPI_Waitany(2, req, &idx, MPI_STATUS_IGNORE));
            TT_EQ("MPI_Waitany once both completed", MPI_UNDEFINED, idx);
        } else {
            int done = 0;
            while (done < 2) {
                TT_MPI(MPI_Waitsome(2, req, &outcount, indices, MPI_STATUSES_IGNORE));
                TT_CHECK(outcount != MPI_UNDEFINED, "MPI_Waitsome: no active request left "
                         "after %d of 2", done);
                done += outcount;
            }
        }
        TT_EQ("value received", tt_prev() * 10 + round, r);
    }
    TT_MPI(MPI_Request_free(&req[0]));
    TT_MPI(MPI_Request_free(&req[1]));
}

static void cancel_and_restart(void)
{
    int r = -1, s = tt_rank + 1, flag;
    MPI_Request rq;
    MPI_Status st;
    TT_MPI(MPI_Recv_init(&r, 1, MPI_INT, tt_prev(), 30, MPI_COMM_WORLD, &rq));
    TT_MPI(MPI_Start(&rq));
    TT_MPI(MPI_Cancel(&rq));
    TT_MPI(MPI_Wait(&rq, &st));
    TT_MPI(MPI_Test_cancelled(&st, &flag));
    TT_EQ("MPI_Test_cancelled after cancelling an unmatched persistent receive", 1, flag);
    TT_MPI(MPI_Barrier(MPI_COMM_WORLD));
    TT_MPI(MPI_Start(&rq));
    TT_MPI(MPI_Send(&s, 1, MPI_INT, tt_next(), 30, MPI_COMM_WORLD));
    TT_MPI(MPI_Wait(&rq, &st));
    TT_EQ("received after a restart", tt_prev() + 1, r);
    TT_MPI(MPI_Request_free(&rq));

    /* MPI_PROC_NULL. */
    TT_MPI(MPI_Recv_init(&r, 1, MPI_INT, MPI_PROC_NULL, 31, MPI_COMM_WORLD, &rq));
    TT_MPI(MPI_Start(&rq));
    TT_MPI(MPI_Wait(&rq, &st));
    TT_EQ("persistent receive from MPI_PROC_NULL: MPI_SOURCE", MPI_PROC_NULL, st.MPI_SOURCE);
    TT_MPI(MPI_Request_free(&rq));

    /* Freeing an active send: the message still arrives. */
    MPI_Request sq;
    s = 4242;
    TT_MPI(MPI_Send_init(&s, 1, MPI_INT, tt_next(), 32, MPI_COMM_WORLD, &sq));
    TT_MPI(MPI_Start(&sq));
    TT_MPI(MPI_Request_free(&sq));
    TT_MPI(MPI_Recv(&r, 1, MPI_INT, tt_prev(), 32, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TT_EQ("message of a freed active persistent send", 4242, r);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "p2p_persist");
    int bufsize = 50 * (2 * N * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc((size_t)bufsize);
    TT_MPI(MPI_Buffer_attach(bbuf, bufsize));
    for (int mode = 0; mode < 5; mode++)
        for (int strided = 0; strided < 2; strided++)
            ring_mode(mode, strided);
    completion_calls();
    cancel_and_restart();
    TT_MPI(MPI_Buffer_detach(&bbuf, &bufsize));
    free(bbuf);
    return tt_finish();
}
