/*
 * p2p_waittest: every completion call and its corner cases.
 *
 * Receives that must stay incomplete are receives from self on a tag nobody
 * has sent yet; they are completed later by a send to self. Cross-process
 * completion uses the ring (next/prev rank). Checked:
 *   - Wait/Test on MPI_REQUEST_NULL: immediate, empty status (source
 *     MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0, not cancelled);
 *   - Test on an incomplete receive: flag false, request untouched; then true;
 *   - Waitall/Testall with MPI_REQUEST_NULL entries, with MPI_STATUSES_IGNORE,
 *     with count 0; Testall false leaves every request active;
 *   - Waitany/Testany: index of the completed one, request freed; all null
 *     or count 0 gives MPI_UNDEFINED (and Testany flag true); Testany with
 *     nothing complete gives flag false, index MPI_UNDEFINED;
 *   - Waitsome/Testsome: outcount and indices; MPI_UNDEFINED when all null;
 *     Testsome outcount 0 when nothing is complete;
 *   - Request_get_status: false while incomplete; true when complete without
 *     freeing the request, which a later Wait then frees with the same
 *     status; true with an empty status on MPI_REQUEST_NULL;
 *   - MPI 4.1's Request_get_status_all, _any and _some: what Testall,
 *     Testany and Testsome give, but the requests stay (a later Waitall
 *     frees them with the same statuses); over null requests: flag true,
 *     index MPI_UNDEFINED, outcount MPI_UNDEFINED;
 *   - Request_free on an active Isend: the message still arrives;
 *   - MPI_PROC_NULL: Send/Isend complete at once; Recv/Irecv complete at
 *     once with source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0;
 *   - Waitall/Waitany/Testsome over cross-process receives.
 */
#include "tt.h"

#define T_A 11
#define T_B 12
#define T_C 13
#define T_RING 14
#define T_FREE 15
#define T_ACK 16

static void check_empty(const MPI_Status *st, const char *what)
{
    int count = -1, cancelled = -1;
    if (st->MPI_SOURCE != MPI_ANY_SOURCE || st->MPI_TAG != MPI_ANY_TAG)
        TT_FAIL("%s: expected an empty status (source MPI_ANY_SOURCE=%d, tag "
                "MPI_ANY_TAG=%d), got source %d tag %d", what, MPI_ANY_SOURCE,
                MPI_ANY_TAG, st->MPI_SOURCE, st->MPI_TAG);
    TT_MPI(MPI_Get_count(st, MPI_INT, &count));
    if (count != 0)
        TT_FAIL("%s: empty status: MPI_Get_count expected 0, got %d", what,
                count);
    TT_MPI(MPI_Test_cancelled(st, &cancelled));
    if (cancelled)
        TT_FAIL("%s: empty status: MPI_Test_cancelled expected false", what);
}

static void check_proc_null(const MPI_Status *st, const char *what)
{
    int count = -1;
    if (st->MPI_SOURCE != MPI_PROC_NULL || st->MPI_TAG != MPI_ANY_TAG)
        TT_FAIL("%s: expected source MPI_PROC_NULL=%d tag MPI_ANY_TAG=%d, got "
                "source %d tag %d", what, MPI_PROC_NULL, MPI_ANY_TAG,
                st->MPI_SOURCE, st->MPI_TAG);
    TT_MPI(MPI_Get_count(st, MPI_INT, &count));
    if (count != 0)
        TT_FAIL("%s: MPI_Get_count expected 0, got %d", what, count);
}

static MPI_Status poisoned(void)
{
    MPI_Status st;
    memset(&st, 0x77, sizeof st);
    return st;
}

static void null_requests(void)
{
    MPI_Request r = MPI_REQUEST_NULL, arr[3];
    MPI_Status st = poisoned(), sts[3];
    int flag = 0, idx = 0, out = 0, idxs[3];

    TT_MPI(MPI_Wait(&r, &st));
    check_empty(&st, "MPI_Wait(MPI_REQUEST_NULL)");
    st = poisoned();
    TT_MPI(MPI_Test(&r, &flag, &st));
    TT_EQ("MPI_Test(MPI_REQUEST_NULL) flag", 1, flag);
    check_empty(&st, "MPI_Test(MPI_REQUEST_NULL)");
    st = poisoned();
    flag = 0;
    TT_MPI(MPI_Request_get_status(r, &flag, &st));
    TT_EQ("MPI_Request_get_status(MPI_REQUEST_NULL) flag", 1, flag);
    check_empty(&st, "MPI_Request_get_status(MPI_REQUEST_NULL)");

    for (int i = 0; i < 3; i++)
        arr[i] = MPI_REQUEST_NULL;
    TT_MPI(MPI_Waitall(3, arr, sts));
    for (int i = 0; i < 3; i++)
        check_empty(&sts[i], "MPI_Waitall over null requests");
    TT_MPI(MPI_Waitall(0, arr, MPI_STATUSES_IGNORE));
    flag = 0;
    TT_MPI(MPI_Testall(3, arr, &flag, MPI_STATUSES_IGNORE));
    TT_EQ("MPI_Testall over null requests: flag", 1, flag);

    st = poisoned();
    TT_MPI(MPI_Waitany(3, arr, &idx, &st));
    TT_EQ("MPI_Waitany over null requests: index", MPI_UNDEFINED, idx);
    check_empty(&st, "MPI_Waitany over null requests");
    idx = 0;
    TT_MPI(MPI_Waitany(0, arr, &idx, MPI_STATUS_IGNORE));
    TT_EQ("MPI_Waitany with count 0: index", MPI_UNDEFINED, idx);
    idx = 0;
    flag = 0;
    TT_MPI(MPI_Testany(3, arr, &idx, &flag, MPI_STATUS_IGNORE));
    TT_EQ("MPI_Testany over null requests: flag", 1, flag);
    TT_EQ("MPI_Testany over null requests: index", MPI_UNDEFINED, idx);

    out = 0;
    TT_MPI(MPI_Waitsome(3, arr, &out, idxs, sts));
    TT_EQ("MPI_Waitsome over null requests: outcount", MPI_UNDEFINED, out);
    out = 0;
    TT_MPI(MPI_Testsome(3, arr, &out, idxs, MPI_STATUSES_IGNORE));
    TT_EQ("MPI_Testsome over null requests: outcount", MPI_UNDEFINED, out);
}

/* Sends one int with value v to self on tag (the matching receive is
 * already posted, so a blocking send cannot deadlock). */
static void send_self(int v, int tag)
{
    TT_MPI(MPI_Send(&v, 1, MPI_INT, tt_rank, tag, MPI_COMM_WORLD));
}

static void test_and_get_status(void)
{
    MPI_Request r, copy;
    MPI_Status st;
    int flag = 1, v = -1;

    TT_MPI(MPI_Irecv(&v, 1, MPI_INT, tt_rank, T_A, MPI_COMM_WORLD, &r));
    copy = r;
    for (int i = 0; i < 5; i++) {
        TT_MPI(MPI_Test(&r, &flag, &st));
        TT_EQ("MPI_Test on a receive nobody sent to: flag", 0, flag);
        TT_CHECK(r == copy, "MPI_Test with flag false changed the request");
        TT_MPI(MPI_Request_get_status(r, &flag, &st));
        TT_EQ("MPI_Request_get_status on an incomplete receive: flag", 0, flag);
    }
    send_self(42, T_A);
    /* Request_get_status must report completion without freeing. */
    flag = 0;
    for (int spins = 0; !flag; spins++) {
        TT_MPI(MPI_Request_get_status(r, &flag, &st));
        TT_CHECK(spins < 10000000, "MPI_Request_get_status never true");
    }
    TT_CHECK(r == copy, "MPI_Request_get_status changed the request handle");
    TT_CHECK_STATUS(st, tt_rank, T_A, MPI_INT, 1, "MPI_Request_get_status");
    TT_EQ("received value", 42, v);
    /* Again: still there, still complete. */
    flag = 0;
    TT_MPI(MPI_Request_get_status(r, &flag, &st));
    TT_EQ("second MPI_Request_get_status flag", 1, flag);
    /* Now Test frees it and gives the same status. */
    flag = 0;
    TT_MPI(MPI_Test(&r, &flag, &st));
    TT_EQ("MPI_Test after MPI_Request_get_status: flag", 1, flag);
    TT_CHECK(r == MPI_REQUEST_NULL, "MPI_Test did not free a completed request");
    TT_CHECK_STATUS(st, tt_rank, T_A, MPI_INT, 1, "MPI_Test after get_status");

    /* Plain Test loop on a cross-process receive. */
    int out = tt_rank * 3 + 1, in = -1;
    MPI_Request sr;
    TT_MPI(MPI_Irecv(&in, 1, MPI_INT, tt_prev(), T_RING, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Isend(&out, 1, MPI_INT, tt_next(), T_RING, MPI_COMM_WORLD, &sr));
    flag = 0;
    while (!flag)
        TT_MPI(MPI_Test(&r, &flag, &st));
    TT_CHECK(r == MPI_REQUEST_NULL, "MPI_Test true but request not freed");
    TT_CHECK_STATUS(st, tt_prev(), T_RING, MPI_INT, 1, "Test loop from prev");
    TT_EQ("value from prev", tt_prev() * 3 + 1, in);
    flag = 0;
    while (!flag)
        TT_MPI(MPI_Test(&sr, &flag, MPI_STATUS_IGNORE));
    TT_CHECK(sr == MPI_REQUEST_NULL, "MPI_Test true on send, not freed");
}

static void arrays(void)
{
    int va = -1, vb = -1, vc = -1, flag = 1, idx = -1, out = -1;
    int idxs[5];
    MPI_Request r[5];
    MPI_Status sts[5];

    /* [A, null, B, null, C], all receives from self. */
    TT_MPI(MPI_Irecv(&va, 1, MPI_INT, tt_rank, T_A, MPI_COMM_WORLD, &r[0]));
    r[1] = MPI_REQUEST_NULL;
    TT_MPI(MPI_Irecv(&vb, 1, MPI_INT, tt_rank, T_B, MPI_COMM_WORLD, &r[2]));
    r[3] = MPI_REQUEST_NULL;
    TT_MPI(MPI_Irecv(&vc, 1, MPI_INT, tt_rank, T_C, MPI_COMM_WORLD, &r[4]));
    MPI_Request saved[5];
    memcpy(saved, r, sizeof r);

    TT_MPI(MPI_Testall(5, r, &flag, sts));
    TT_EQ("MPI_Testall with nothing complete: flag", 0, flag);
    TT_CHECK(memcmp(saved, r, sizeof r) == 0,
             "MPI_Testall with flag false changed the requests");
    TT_MPI(MPI_Testany(5, r, &idx, &flag, sts));
    TT_EQ("MPI_Testany with nothing complete: flag", 0, flag);
    TT_EQ("MPI_Testany with nothing complete: index", MPI_UNDEFINED, idx);
    TT_MPI(MPI_Testsome(5, r, &out, idxs, sts));
    TT_EQ("MPI_Testsome with nothing complete: outcount", 0, out);

    /* Complete B only: Waitsome gives exactly index 2. */
    send_self(2, T_B);
    TT_MPI(MPI_Waitsome(5, r, &out, idxs, sts));
    TT_EQ("MPI_Waitsome after sending B: outcount", 1, out);
    TT_EQ("MPI_Waitsome after sending B: index", 2, idxs[0]);
    TT_CHECK_STATUS(sts[0], tt_rank, T_B, MPI_INT, 1, "Waitsome B");
    TT_CHECK(r[2] == MPI_REQUEST_NULL, "MPI_Waitsome did not free request 2");
    TT_EQ("value B", 2, vb);
    TT_MPI(MPI_Testsome(5, r, &out, idxs, sts));
    TT_EQ("MPI_Testsome after B done, A and C pending: outcount", 0, out);

    /* Complete C: Waitany gives index 4. */
    send_self(3, T_C);
    idx = -1;
    TT_MPI(MPI_Waitany(5, r, &idx, &sts[0]));
    TT_EQ("MPI_Waitany after sending C: index", 4, idx);
    TT_CHECK_STATUS(sts[0], tt_rank, T_C, MPI_INT, 1, "Waitany C");
    TT_CHECK(r[4] == MPI_REQUEST_NULL, "MPI_Waitany did not free request 4");
    TT_EQ("value C", 3, vc);

    /* Complete A: Testany loop gives index 0. */
    send_self(1, T_A);
    flag = 0;
    while (!flag)
        TT_MPI(MPI_Testany(5, r, &idx, &flag, &sts[0]));
    TT_EQ("MPI_Testany after sending A: index", 0, idx);
    TT_CHECK_STATUS(sts[0], tt_rank, T_A, MPI_INT, 1, "Testany A");
    TT_EQ("value A", 1, va);
    for (int i = 0; i < 5; i++)
        TT_CHECK(r[i] == MPI_REQUEST_NULL, "request %d not null at the end", i);
    TT_MPI(MPI_Waitsome(5, r, &out, idxs, sts));
    TT_EQ("MPI_Waitsome when all are done: outcount", MPI_UNDEFINED, out);

    /* Waitall with null entries and real statuses; Testall true. */
    TT_MPI(MPI_Irecv(&va, 1, MPI_INT, tt_rank, T_A, MPI_COMM_WORLD, &r[0]));
    TT_MPI(MPI_Irecv(&vb, 1, MPI_INT, tt_rank, T_B, MPI_COMM_WORLD, &r[3]));
    send_self(10, T_B);
    send_self(20, T_A);
    for (int i = 0; i < 5; i++)
        sts[i] = poisoned();
    TT_MPI(MPI_Waitall(5, r, sts));
    TT_CHECK_STATUS(sts[0], tt_rank, T_A, MPI_INT, 1, "Waitall entry 0");
    TT_CHECK_STATUS(sts[3], tt_rank, T_B, MPI_INT, 1, "Waitall entry 3");
    check_empty(&sts[1], "MPI_Waitall entry 1 (null request)");
    TT_EQ("Waitall value A", 20, va);
    TT_EQ("Waitall value B", 10, vb);

    TT_MPI(MPI_Irecv(&vc, 1, MPI_INT, tt_rank, T_C, MPI_COMM_WORLD, &r[1]));
    send_self(30, T_C);
    flag = 0;
    while (!flag)
        TT_MPI(MPI_Testall(5, r, &flag, MPI_STATUSES_IGNORE));
    TT_CHECK(r[1] == MPI_REQUEST_NULL, "MPI_Testall true but request not freed");
    TT_EQ("Testall value C", 30, vc);
}

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
static void get_status_arrays(void)
{
    int va = -1, vb = -1, flag = 1, idx = -1, out = -1, idxs[3];
    MPI_Request r[3], saved[3];
    MPI_Status sts[3], st;

    /* [A, null, B], receives from self. */
    TT_MPI(MPI_Irecv(&va, 1, MPI_INT, tt_rank, T_A, MPI_COMM_WORLD, &r[0]));
    r[1] = MPI_REQUEST_NULL;
    TT_MPI(MPI_Irecv(&vb, 1, MPI_INT, tt_rank, T_B, MPI_COMM_WORLD, &r[2]));
    memcpy(saved, r, sizeof r);
    TT_MPI(MPI_Request_get_status_all(3, r, &flag, sts));
    TT_EQ("MPI_Request_get_status_all with nothing complete: flag", 0, flag);
    flag = 1;
    TT_MPI(MPI_Request_get_status_any(3, r, &idx, &flag, &st));
    TT_EQ("MPI_Request_get_status_any with nothing complete: flag", 0, flag);
    TT_EQ("MPI_Request_get_status_any with nothing complete: index", MPI_UNDEFINED, idx);
    TT_MPI(MPI_Request_get_status_some(3, r, &out, idxs, sts));
    TT_EQ("MPI_Request_get_status_some with nothing complete: outcount", 0, out);

    /* B complete: _some and _any name it, twice, and leave it. */
    send_self(2, T_B);
    for (int k = 0; k < 2; k++) {
        out = 0;
        for (int spins = 0; out == 0; spins++) {
            TT_MPI(MPI_Request_get_status_some(3, r, &out, idxs, sts));
            TT_CHECK(spins < 10000000, "MPI_Request_get_status_some never saw B");
        }
        TT_EQ("MPI_Request_get_status_some after B: outcount", 1, out);
        TT_EQ("MPI_Request_get_status_some after B: index", 2, idxs[0]);
        TT_CHECK_STATUS(sts[0], tt_rank, T_B, MPI_INT, 1, "get_status_some B");
        flag = 0;
        st = poisoned();
        TT_MPI(MPI_Request_get_status_any(3, r, &idx, &flag, &st));
        TT_EQ("MPI_Request_get_status_any after B: flag", 1, flag);
        TT_EQ("MPI_Request_get_status_any after B: index", 2, idx);
        TT_CHECK_STATUS(st, tt_rank, T_B, MPI_INT, 1, "get_status_any B");
        TT_CHECK(memcmp(saved, r, sizeof r) == 0,
                 "MPI_Request_get_status_some/_any changed the requests");
    }
    TT_EQ("value B", 2, vb);

    /* A complete too: _all gives every status and frees nothing. */
    send_self(1, T_A);
    flag = 0;
    for (int spins = 0; !flag; spins++) {
        TT_MPI(MPI_Request_get_status_all(3, r, &flag, sts));
        TT_CHECK(spins < 10000000, "MPI_Request_get_status_all never true");
    }
    TT_CHECK(memcmp(saved, r, sizeof r) == 0, "MPI_Request_get_status_all changed the requests");
    TT_CHECK_STATUS(sts[0], tt_rank, T_A, MPI_INT, 1, "get_status_all entry 0");
    check_empty(&sts[1], "MPI_Request_get_status_all entry 1 (null request)");
    TT_CHECK_STATUS(sts[2], tt_rank, T_B, MPI_INT, 1, "get_status_all entry 2");
    for (int i = 0; i < 3; i++)
        sts[i] = poisoned();
    TT_MPI(MPI_Waitall(3, r, sts));
    TT_CHECK_STATUS(sts[0], tt_rank, T_A, MPI_INT, 1, "Waitall after get_status_all entry 0");
    TT_CHECK_STATUS(sts[2], tt_rank, T_B, MPI_INT, 1, "Waitall after get_status_all entry 2");
    TT_EQ("value A", 1, va);

    /* All null now. */
    flag = 0;
    TT_MPI(MPI_Request_get_status_all(3, r, &flag, sts));
    TT_EQ("MPI_Request_get_status_all over null requests: flag", 1, flag);
    check_empty(&sts[2], "MPI_Request_get_status_all over null requests");
    flag = 0;
    idx = 0;
    TT_MPI(MPI_Request_get_status_any(3, r, &idx, &flag, &st));
    TT_EQ("MPI_Request_get_status_any over null requests: flag", 1, flag);
    TT_EQ("MPI_Request_get_status_any over null requests: index", MPI_UNDEFINED, idx);
    TT_MPI(MPI_Request_get_status_some(3, r, &out, idxs, sts));
    TT_EQ("MPI_Request_get_status_some over null requests: outcount", MPI_UNDEFINED, out);
}
#endif

/* Cross-process: each rank exchanges NX messages with both neighbours and
 * completes them through Waitsome / Testsome / Waitany / Waitall. */
#define NX 8
static void ring_arrays(void)
{
    int sendv[2 * NX], recvv[2 * NX], left = 2 * NX;
    MPI_Request r[4 * NX];
    int idxs[4 * NX], out;
    MPI_Status sts[4 * NX];
    int next = tt_next(), prev = tt_prev();

    for (int i = 0; i < NX; i++) {
        TT_MPI(MPI_Irecv(&recvv[i], 1, MPI_INT, prev, 100 + i, MPI_COMM_WORLD,
                         &r[i]));
        TT_MPI(MPI_Irecv(&recvv[NX + i], 1, MPI_INT, next, 200 + i,
                         MPI_COMM_WORLD, &r[NX + i]));
    }
    for (int i = 0; i < NX; i++) {
        sendv[i] = tt_rank * 1000 + i;
        sendv[NX + i] = tt_rank * 1000 + 500 + i;
        TT_MPI(MPI_Isend(&sendv[i], 1, MPI_INT, next, 100 + i, MPI_COMM_WORLD,
                         &r[2 * NX + i]));
        TT_MPI(MPI_Isend(&sendv[NX + i], 1, MPI_INT, prev, 200 + i,
                         MPI_COMM_WORLD, &r[3 * NX + i]));
    }
    /* Receives through Waitsome and Testsome alternately. */
    int got[2 * NX] = {0};
    for (int round = 0; left > 0; round++) {
        if (round % 2)
            TT_MPI(MPI_Waitsome(2 * NX, r, &out, idxs, sts));
        else
            TT_MPI(MPI_Testsome(2 * NX, r, &out, idxs, sts));
        TT_CHECK(out != MPI_UNDEFINED && out >= 0 && out <= left,
                 "Waitsome/Testsome outcount %d with %d pending", out, left);
        for (int j = 0; j < out; j++) {
            int i = idxs[j];
            TT_CHECK(i >= 0 && i < 2 * NX && !got[i],
                     "Waitsome/Testsome index %d bad or repeated", i);
            got[i] = 1;
            TT_CHECK(r[i] == MPI_REQUEST_NULL, "request %d not freed", i);
            int from = i < NX ? prev : next;
            int tag = i < NX ? 100 + i : 200 + (i - NX);
            int want = i < NX ? prev * 1000 + i : next * 1000 + 500 + (i - NX);
            TT_CHECK_STATUS(sts[j], from, tag, MPI_INT, 1, "ring Waitsome");
            TT_EQ("ring value", want, recvv[i]);
        }
        left -= out;
    }
    /* Sends through Waitany, then the rest with Waitall(STATUSES_IGNORE). */
    int idx;
    TT_MPI(MPI_Waitany(2 * NX, &r[2 * NX], &idx, MPI_STATUS_IGNORE));
    TT_CHECK(idx >= 0 && idx < 2 * NX, "MPI_Waitany on sends: index %d", idx);
    TT_MPI(MPI_Waitall(2 * NX, &r[2 * NX], MPI_STATUSES_IGNORE));
    for (int i = 0; i < 4 * NX; i++)
        TT_CHECK(r[i] == MPI_REQUEST_NULL, "request %d not freed at the end", i);
}

static void request_free_send(void)
{
    /* Isend to next then free the request; the receiver acknowledges, after
     * which the send buffer may be reused. */
    int *buf = tt_malloc(sizeof(int) * 100000);
    int *in = tt_malloc(sizeof(int) * 100000);
    int ack = 0, ack_out = 1;
    MPI_Request r, ar;
    MPI_Status st;
    for (int i = 0; i < 100000; i++)
        buf[i] = tt_rank + i;
    for (int round = 0; round < 2; round++) {
        int n = round == 0 ? 3 : 100000; /* eager and rendezvous sizes */
        TT_MPI(MPI_Isend(buf, n, MPI_INT, tt_next(), T_FREE, MPI_COMM_WORLD, &r));
        TT_MPI(MPI_Request_free(&r));
        TT_CHECK(r == MPI_REQUEST_NULL,
                 "MPI_Request_free did not set the request to MPI_REQUEST_NULL");
        TT_MPI(MPI_Recv(in, n, MPI_INT, tt_prev(), T_FREE, MPI_COMM_WORLD, &st));
        TT_CHECK_STATUS(st, tt_prev(), T_FREE, MPI_INT, n,
                        "receive of a freed Isend");
        for (int i = 0; i < n; i++)
            if (in[i] != tt_prev() + i)
                TT_FAIL("freed Isend of %d ints: int %d: expected %d, got %d",
                        n, i, tt_prev() + i, in[i]);
        TT_MPI(MPI_Isend(&ack_out, 1, MPI_INT, tt_prev(), T_ACK, MPI_COMM_WORLD,
                         &ar));
        TT_MPI(MPI_Recv(&ack, 1, MPI_INT, tt_next(), T_ACK, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        TT_MPI(MPI_Wait(&ar, MPI_STATUS_IGNORE));
    }
    free(buf);
    free(in);
}

static void proc_null(void)
{
    int v = 5, in = 99;
    MPI_Status st = poisoned();
    MPI_Request r;
    int flag = 0;

    TT_MPI(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    TT_MPI(MPI_Recv(&in, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_proc_null(&st, "MPI_Recv from MPI_PROC_NULL");
    TT_EQ("buffer of a receive from MPI_PROC_NULL", 99, in);

    TT_MPI(MPI_Isend(&v, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Test(&r, &flag, &st));
    TT_EQ("MPI_Test of an Isend to MPI_PROC_NULL: flag", 1, flag);
    TT_CHECK(r == MPI_REQUEST_NULL, "Isend to MPI_PROC_NULL: request not freed");

    st = poisoned();
    TT_MPI(MPI_Irecv(&in, 1, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD,
                     &r));
    TT_MPI(MPI_Wait(&r, &st));
    check_proc_null(&st, "MPI_Irecv from MPI_PROC_NULL + MPI_Wait");
    TT_EQ("buffer of an Irecv from MPI_PROC_NULL", 99, in);

    st = poisoned();
    TT_MPI(MPI_Irecv(&in, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &r));
    flag = 0;
    TT_MPI(MPI_Request_get_status(r, &flag, &st));
    TT_EQ("MPI_Request_get_status on an Irecv from MPI_PROC_NULL: flag", 1,
          flag);
    check_proc_null(&st, "MPI_Request_get_status of an Irecv from PROC_NULL");
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));

    st = poisoned();
    TT_MPI(MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 1, &in, 1, MPI_INT,
                        MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_proc_null(&st, "MPI_Sendrecv with MPI_PROC_NULL");
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "p2p_waittest");
    null_requests();
    test_and_get_status();
    tt_sync();
    arrays();
    tt_sync();
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    get_status_arrays();
    tt_sync();
#endif
    ring_arrays();
    tt_sync();
    request_free_send();
    proc_null();
    return tt_finish();
}
