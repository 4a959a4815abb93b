/*
 * p2p_cancel: cancelling receives and sends.
 *
 * Checked, on the ring (next/prev; self in a one-rank job):
 *   - a posted receive that never matches (a tag nobody sends, from prev,
 *     from MPI_ANY_SOURCE, and from self) is cancelled: MPI_Cancel, then
 *     MPI_Wait (or a MPI_Test loop) completes it and MPI_Test_cancelled is
 *     true; the receive buffer is untouched;
 *   - a receive that has already matched (completion seen with
 *     MPI_Request_get_status, which does not free the request) cannot be
 *     cancelled: MPI_Cancel succeeds, MPI_Wait completes it, and
 *     MPI_Test_cancelled is false, with the data and status intact;
 *   - a cancelled receive does not consume a message sent afterwards on its
 *     tag: the next receive gets it;
 *   - a send that no receive has matched (MPI_Issend of 1 int, MPI_Isend
 *     and MPI_Issend of 300000 ints, beyond the eager limit) is cancelled:
 *     MPI_Wait returns, since it must whether the cancel succeeds or the
 *     send completes, and the send could only complete by a receive that
 *     is not posted; MPI_Test_cancelled is true, and the receiver, told so
 *     after the sender's MPI_Wait, finds no such message (MPI_Iprobe);
 *   - MPI_Cancel of a small MPI_Isend ends one way or the other: the
 *     receiver gets the message exactly when MPI_Test_cancelled is false;
 *   - a synchronous send that the receiver has received is not cancelled.
 */
#include "tt.h"

#define T_NEVER 61
#define T_LATE 62
#define T_MATCH 63
#define T_GO 64
#define T_SEND 65
#define T_VERDICT 66
#define T_GOT 67

static void cancel_unmatched(int source, int use_test, const char *what)
{
    int buf[8], cancelled = 0;
    MPI_Request r;
    MPI_Status st;

    for (int i = 0; i < 8; i++)
        buf[i] = -1000 - i;
    TT_MPI(MPI_Irecv(buf, 8, MPI_INT, source, T_NEVER, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Cancel(&r));
    TT_CHECK(r != MPI_REQUEST_NULL, "%s: MPI_Cancel freed the request", what);
    if (use_test) {
        int flag = 0;
        for (long spins = 0; !flag; spins++) {
            TT_MPI(MPI_Test(&r, &flag, &st));
            TT_CHECK(spins < 100000000L, "%s: cancelled receive never completes "
                                         "in MPI_Test", what);
        }
    } else {
        TT_MPI(MPI_Wait(&r, &st));
    }
    TT_CHECK(r == MPI_REQUEST_NULL, "%s: request not freed after completion",
             what);
    TT_MPI(MPI_Test_cancelled(&st, &cancelled));
    TT_CHECK(cancelled, "%s: MPI_Test_cancelled is false for a receive that "
                        "never matched", what);
    for (int i = 0; i < 8; i++)
        TT_CHECK(buf[i] == -1000 - i, "%s: cancelled receive wrote the buffer "
                                      "(int %d = %d)", what, i, buf[i]);
}

static void cancel_then_late_message(void)
{
    /* Cancel a receive on T_LATE from prev, then tell prev to send on
     * T_LATE: the message must go to the next receive, not the cancelled
     * one. */
    int buf = -1, v = tt_rank + 500, go = 1, go_in = 0, cancelled = 0;
    MPI_Request r, sr, gr;
    MPI_Status st;

    TT_MPI(MPI_Irecv(&buf, 1, MPI_INT, tt_prev(), T_LATE, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Cancel(&r));
    TT_MPI(MPI_Wait(&r, &st));
    TT_MPI(MPI_Test_cancelled(&st, &cancelled));
    TT_CHECK(cancelled, "receive on T_LATE: MPI_Test_cancelled false");
    TT_EQ("buffer of the cancelled receive", -1, buf);
    /* Our receive is gone; let prev send. */
    TT_MPI(MPI_Isend(&go, 1, MPI_INT, tt_prev(), T_GO, MPI_COMM_WORLD, &gr));
    TT_MPI(MPI_Recv(&go_in, 1, MPI_INT, tt_next(), T_GO, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    TT_MPI(MPI_Isend(&v, 1, MPI_INT, tt_next(), T_LATE, MPI_COMM_WORLD, &sr));
    TT_MPI(MPI_Recv(&buf, 1, MPI_INT, tt_prev(), T_LATE, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, tt_prev(), T_LATE, MPI_INT, 1,
                    "receive after a cancelled one");
    TT_EQ("value received after a cancelled receive", tt_prev() + 500, buf);
    TT_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    TT_MPI(MPI_Wait(&gr, MPI_STATUS_IGNORE));
}

static void cancel_matched(int n, const char *what)
{
    /* Receive of n ints from prev that has completed, then cancelled. */
    int *in = tt_malloc(sizeof(int) * (size_t)n);
    int *out = tt_malloc(sizeof(int) * (size_t)n);
    int flag = 0, cancelled = 1;
    MPI_Request r, sr;
    MPI_Status st;

    for (int i = 0; i < n; i++)
        out[i] = tt_rank * 100000 + i;
    TT_MPI(MPI_Irecv(in, n, MPI_INT, tt_prev(), T_MATCH, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Isend(out, n, MPI_INT, tt_next(), T_MATCH, MPI_COMM_WORLD, &sr));
    for (long spins = 0; !flag; spins++) {
        TT_MPI(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
        TT_CHECK(spins < 100000000L, "%s: receive never completes", what);
    }
    TT_MPI(MPI_Cancel(&r));
    TT_MPI(MPI_Wait(&r, &st));
    TT_MPI(MPI_Test_cancelled(&st, &cancelled));
    TT_CHECK(!cancelled, "%s: MPI_Test_cancelled is true for a receive that "
                         "had already completed", what);
    TT_CHECK_STATUS(st, tt_prev(), T_MATCH, MPI_INT, n, what);
    for (int i = 0; i < n; i++)
        if (in[i] != tt_prev() * 100000 + i)
            TT_FAIL("%s: int %d: expected %d, got %d", what, i,
                    tt_prev() * 100000 + i, in[i]);
    TT_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    free(in);
    free(out);
}

/* Sends n ints to next on `tag` (synchronous mode if `sync`), cancels and
 * waits; must_cancel: no receive can match it, so the send must be
 * cancelled. Then the ranks swap verdicts on the ring, and prev's message
 * must have reached this rank exactly when prev's send was not cancelled.
 * Each case has a tag of its own: prev may be in the next case already. */
static void cancel_send(int n, int sync, int must_cancel, int tag, const char *what)
{
    int *out = tt_malloc(sizeof(int) * (size_t)n);
    int *in = tt_malloc(sizeof(int) * (size_t)n);
    int cancelled = -1, theirs = -1, flag = 1;
    MPI_Request r;
    MPI_Status st;

    for (int i = 0; i < n; i++)
        out[i] = tt_rank * 100000 + i;
    if (sync)
        TT_MPI(MPI_Issend(out, n, MPI_INT, tt_next(), tag, MPI_COMM_WORLD, &r));
    else
        TT_MPI(MPI_Isend(out, n, MPI_INT, tt_next(), tag, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Cancel(&r));
    TT_MPI(MPI_Wait(&r, &st));
    TT_MPI(MPI_Test_cancelled(&st, &cancelled));
    if (must_cancel)
        TT_CHECK(cancelled, "%s: MPI_Test_cancelled is false, yet no receive was posted",
                 what);
    TT_MPI(MPI_Sendrecv(&cancelled, 1, MPI_INT, tt_next(), T_VERDICT, &theirs, 1, MPI_INT,
                        tt_prev(), T_VERDICT, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (theirs) {
        /* The receiver dropped it before it answered the CANCEL, which
         * came before the verdict. */
        TT_MPI(MPI_Iprobe(tt_prev(), tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        TT_CHECK(!flag, "%s: the message of rank %d's cancelled send arrived", what,
                 tt_prev());
    } else {
        TT_MPI(MPI_Recv(in, n, MPI_INT, tt_prev(), tag, MPI_COMM_WORLD, &st));
        TT_CHECK_STATUS(st, tt_prev(), tag, MPI_INT, n, what);
        for (int i = 0; i < n; i++)
            if (in[i] != tt_prev() * 100000 + i)
                TT_FAIL("%s: int %d: expected %d, got %d", what, i, tt_prev() * 100000 + i,
                        in[i]);
    }
    free(in);
    free(out);
}

/* A synchronous send that its receiver received, then cancelled. */
static void cancel_received_send(void)
{
    int v = tt_rank + 7000, in = -1, got = 1, next_got = 0, cancelled = 1;
    MPI_Request r;
    MPI_Status st;

    TT_MPI(MPI_Issend(&v, 1, MPI_INT, tt_next(), T_SEND, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Recv(&in, 1, MPI_INT, tt_prev(), T_SEND, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TT_EQ("message of a synchronous send", tt_prev() + 7000, in);
    TT_MPI(MPI_Sendrecv(&got, 1, MPI_INT, tt_prev(), T_GOT, &next_got, 1, MPI_INT, tt_next(),
                        T_GOT, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TT_MPI(MPI_Cancel(&r));
    TT_MPI(MPI_Wait(&r, &st));
    TT_MPI(MPI_Test_cancelled(&st, &cancelled));
    TT_CHECK(!cancelled, "MPI_Test_cancelled is true for a synchronous send that rank %d "
                         "received", tt_next());
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "p2p_cancel");
    cancel_unmatched(tt_prev(), 0, "Irecv from prev, Cancel, Wait");
    cancel_unmatched(tt_prev(), 1, "Irecv from prev, Cancel, Test loop");
    cancel_unmatched(MPI_ANY_SOURCE, 0, "Irecv from MPI_ANY_SOURCE, Cancel");
    cancel_unmatched(tt_rank, 0, "Irecv from self, Cancel");
    tt_sync();
    cancel_then_late_message();
    tt_sync();
    cancel_matched(1, "cancel of a completed small receive");
    cancel_matched(300000, "cancel of a completed large receive");
    tt_sync();
    cancel_send(1, 1, 1, T_SEND, "MPI_Issend of 1 int, unmatched, cancelled");
    cancel_send(300000, 0, 1, T_SEND + 10, "MPI_Isend of 300000 ints, unmatched, cancelled");
    cancel_send(300000, 1, 1, T_SEND + 20, "MPI_Issend of 300000 ints, unmatched, cancelled");
    cancel_send(1, 0, 0, T_SEND + 30, "MPI_Isend of 1 int, cancelled");
    tt_sync();
    cancel_received_send();
    return tt_finish();
}
