/*
 * p2p_probe: Probe, Iprobe, Mprobe, Improbe, Mrecv, Imrecv.
 *
 * Each rank sends to the next rank on the ring (itself in a one-rank job)
 * and probes what the previous rank sent. Checked:
 *   - Iprobe is false for a tag nobody sent;
 *   - Probe / Iprobe report source, tag and count, for small and large
 *     (rendezvous-sized) messages, with specific and wildcard source/tag,
 *     and do not remove the message (probing twice gives the same answer);
 *   - Mprobe takes the message out of the queue: a later Probe on the same
 *     source and tag sees the next message, and Mrecv gets the first one;
 *     the message handle becomes MPI_MESSAGE_NULL;
 *   - Improbe false when nothing matches; Improbe + Imrecv + Wait;
 *   - MPI_PROC_NULL: Probe/Iprobe give source MPI_PROC_NULL, tag MPI_ANY_TAG,
 *     count 0; Mprobe/Improbe give MPI_MESSAGE_NO_PROC, and Mrecv/Imrecv of
 *     it complete at once with the same status and MPI_MESSAGE_NULL;
 *   - probes on messages to self.
 */
#include "tt.h"

#define T_SMALL 21
#define T_LARGE 22
#define T_PAIR 23
#define T_NEVER 24
#define T_IMP 25
#define T_SELF 26
#define LARGE (1 << 20) /* bytes */

static unsigned char *big_s, *big_r;

static void check_proc_null(const MPI_Status *st, const char *what)
{
    int count = -1;
    if (st->MPI_SOURCE != MPI_PROC_NULL || st->MPI_TAG != MPI_ANY_TAG)
        TT_FAIL("%s: expected source MPI_PROC_NULL=%d tag MPI_ANY_TAG=%d, got "
                "source %d tag %d", what, MPI_PROC_NULL, MPI_ANY_TAG,
                st->MPI_SOURCE, st->MPI_TAG);
    TT_MPI(MPI_Get_count(st, MPI_BYTE, &count));
    if (count != 0)
        TT_FAIL("%s: MPI_Get_count expected 0, got %d", what, count);
}

static void probe_basic(void)
{
    int next = tt_next(), prev = tt_prev(), flag = 1;
    MPI_Status st;
    MPI_Request sreq[2];
    int small_s[5], small_r[5];

    TT_MPI(MPI_Iprobe(prev, T_NEVER, MPI_COMM_WORLD, &flag, &st));
    TT_EQ("MPI_Iprobe for a tag nobody sent: flag", 0, flag);
    TT_MPI(MPI_Iprobe(MPI_ANY_SOURCE, T_NEVER, MPI_COMM_WORLD, &flag, &st));
    TT_EQ("MPI_Iprobe(ANY_SOURCE) for a tag nobody sent: flag", 0, flag);

    for (int i = 0; i < 5; i++)
        small_s[i] = tt_rank * 10 + i;
    tt_fill(big_s, LARGE, tt_seed((uint32_t)tt_rank, 1, 0));
    TT_MPI(MPI_Isend(small_s, 5, MPI_INT, next, T_SMALL, MPI_COMM_WORLD,
                     &sreq[0]));
    TT_MPI(MPI_Isend(big_s, LARGE, MPI_BYTE, next, T_LARGE, MPI_COMM_WORLD,
                     &sreq[1]));

    /* Blocking probe with a specific source and tag, then the same with
     * wildcards: the first message from prev is the small one. */
    TT_MPI(MPI_Probe(prev, T_SMALL, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, prev, T_SMALL, MPI_INT, 5, "MPI_Probe(prev, T_SMALL)");
    TT_MPI(MPI_Probe(prev, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, prev, T_SMALL, MPI_INT, 5, "MPI_Probe(prev, ANY_TAG)");
    if (tt_size <= 2) {
        /* Only prev sends to us here, so ANY_SOURCE sees the same. */
        TT_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        TT_CHECK_STATUS(st, prev, T_SMALL, MPI_INT, 5, "MPI_Probe(ANY, ANY)");
    }
    /* Probe of the large one by tag, before and after receiving the small. */
    TT_MPI(MPI_Probe(prev, T_LARGE, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, prev, T_LARGE, MPI_BYTE, LARGE, "MPI_Probe(T_LARGE)");
    flag = 0;
    while (!flag)
        TT_MPI(MPI_Iprobe(MPI_ANY_SOURCE, T_LARGE, MPI_COMM_WORLD, &flag, &st));
    TT_CHECK_STATUS(st, prev, T_LARGE, MPI_BYTE, LARGE, "MPI_Iprobe(T_LARGE)");

    TT_MPI(MPI_Recv(small_r, 5, MPI_INT, prev, T_SMALL, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 5; i++)
        TT_EQ("small message int", prev * 10 + i, small_r[i]);
    TT_MPI(MPI_Iprobe(prev, T_SMALL, MPI_COMM_WORLD, &flag, &st));
    TT_EQ("MPI_Iprobe after the only T_SMALL message was received: flag", 0,
          flag);
    TT_MPI(MPI_Probe(prev, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, prev, T_LARGE, MPI_BYTE, LARGE,
                    "MPI_Probe(ANY_TAG) after the small one was received");
    /* Receive into a buffer sized from the probe. */
    int count = 0;
    TT_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    memset(big_r, 0, LARGE);
    TT_MPI(MPI_Recv(big_r, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG,
                    MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, prev, T_LARGE, MPI_BYTE, LARGE, "Recv after Probe");
    TT_CHECK_PATTERN(big_r, LARGE, tt_seed((uint32_t)prev, 1, 0),
                     "large message received after MPI_Probe");
    TT_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
}

static void mprobe_pair(void)
{
    /* Two messages with the same tag: 3 ints then LARGE bytes. */
    int next = tt_next(), prev = tt_prev(), a_s[3], a_r[3];
    MPI_Request sreq[2], r;
    MPI_Message m1 = MPI_MESSAGE_NULL, m2 = MPI_MESSAGE_NULL;
    MPI_Status st;
    int flag = 0;

    for (int i = 0; i < 3; i++)
        a_s[i] = tt_rank * 7 + i;
    tt_fill(big_s, LARGE, tt_seed((uint32_t)tt_rank, 2, 0));
    TT_MPI(MPI_Isend(a_s, 3, MPI_INT, next, T_PAIR, MPI_COMM_WORLD, &sreq[0]));
    TT_MPI(MPI_Isend(big_s, LARGE, MPI_BYTE, next, T_PAIR, MPI_COMM_WORLD,
                     &sreq[1]));

    TT_MPI(MPI_Mprobe(prev, T_PAIR, MPI_COMM_WORLD, &m1, &st));
    TT_CHECK(m1 != MPI_MESSAGE_NULL, "MPI_Mprobe returned MPI_MESSAGE_NULL");
    TT_CHECK_STATUS(st, prev, T_PAIR, MPI_INT, 3, "MPI_Mprobe first message");
    /* The first message is out of the queue: a probe now sees the second. */
    TT_MPI(MPI_Probe(prev, T_PAIR, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, prev, T_PAIR, MPI_BYTE, LARGE,
                    "MPI_Probe after MPI_Mprobe (must see the second message)");
    while (!flag)
        TT_MPI(MPI_Improbe(prev, T_PAIR, MPI_COMM_WORLD, &flag, &m2, &st));
    TT_CHECK(m2 != MPI_MESSAGE_NULL && m2 != m1,
             "MPI_Improbe: bad message handle");
    TT_CHECK_STATUS(st, prev, T_PAIR, MPI_BYTE, LARGE, "MPI_Improbe second");
    /* Both taken: nothing left to probe on that tag. */
    TT_MPI(MPI_Iprobe(prev, T_PAIR, MPI_COMM_WORLD, &flag, &st));
    TT_EQ("MPI_Iprobe after both messages were matched: flag", 0, flag);
    MPI_Message m3 = MPI_MESSAGE_NULL;
    TT_MPI(MPI_Improbe(prev, T_PAIR, MPI_COMM_WORLD, &flag, &m3, &st));
    TT_EQ("MPI_Improbe after both messages were matched: flag", 0, flag);

    /* Receive them in the opposite order: the second with Imrecv. */
    memset(big_r, 0, LARGE);
    TT_MPI(MPI_Imrecv(big_r, LARGE, MPI_BYTE, &m2, &r));
    TT_CHECK(m2 == MPI_MESSAGE_NULL, "MPI_Imrecv did not set MPI_MESSAGE_NULL");
    TT_MPI(MPI_Wait(&r, &st));
    TT_CHECK_STATUS(st, prev, T_PAIR, MPI_BYTE, LARGE, "MPI_Imrecv second");
    TT_CHECK_PATTERN(big_r, LARGE, tt_seed((uint32_t)prev, 2, 0),
                     "large message received with MPI_Imrecv");
    TT_MPI(MPI_Mrecv(a_r, 3, MPI_INT, &m1, &st));
    TT_CHECK(m1 == MPI_MESSAGE_NULL, "MPI_Mrecv did not set MPI_MESSAGE_NULL");
    TT_CHECK_STATUS(st, prev, T_PAIR, MPI_INT, 3, "MPI_Mrecv first");
    for (int i = 0; i < 3; i++)
        TT_EQ("first message int", prev * 7 + i, a_r[i]);
    TT_MPI(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
}

static void improbe_any(void)
{
    /* Improbe with wildcards, false before the message is sent. Rank r's
     * receive from prev is released by a token after the check. */
    int next = tt_next(), prev = tt_prev(), flag = 1, v = tt_rank + 100, in = -1;
    MPI_Message m;
    MPI_Status st;
    MPI_Request r;

    TT_MPI(MPI_Improbe(MPI_ANY_SOURCE, T_IMP, MPI_COMM_WORLD, &flag, &m, &st));
    TT_EQ("MPI_Improbe before anything was sent: flag", 0, flag);
    tt_sync(); /* everyone has checked before anyone sends */
    TT_MPI(MPI_Isend(&v, 1, MPI_INT, next, T_IMP, MPI_COMM_WORLD, &r));
    /* With more than two ranks another rank's helper message (the next
     * tt_sync) may reach rank 0 first, so the tag is wild only up to 2. */
    int tag = tt_size <= 2 ? MPI_ANY_TAG : T_IMP;
    flag = 0;
    while (!flag)
        TT_MPI(MPI_Improbe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &m, &st));
    TT_CHECK_STATUS(st, prev, T_IMP, MPI_INT, 1, "MPI_Improbe(ANY_SOURCE)");
    TT_MPI(MPI_Mrecv(&in, 1, MPI_INT, &m, &st));
    TT_CHECK_STATUS(st, prev, T_IMP, MPI_INT, 1, "MPI_Mrecv after Improbe");
    TT_EQ("value", prev + 100, in);
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

static void proc_null(void)
{
    MPI_Status st;
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Request r;
    int flag = 0, buf = 77;

    TT_MPI(MPI_Probe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    check_proc_null(&st, "MPI_Probe(MPI_PROC_NULL)");
    TT_MPI(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    TT_EQ("MPI_Iprobe(MPI_PROC_NULL) flag", 1, flag);
    check_proc_null(&st, "MPI_Iprobe(MPI_PROC_NULL)");

    TT_MPI(MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &m, &st));
    TT_CHECK(m == MPI_MESSAGE_NO_PROC,
             "MPI_Mprobe(MPI_PROC_NULL) did not return MPI_MESSAGE_NO_PROC");
    check_proc_null(&st, "MPI_Mprobe(MPI_PROC_NULL)");
    memset(&st, 0x55, sizeof st);
    TT_MPI(MPI_Mrecv(&buf, 1, MPI_INT, &m, &st));
    TT_CHECK(m == MPI_MESSAGE_NULL,
             "MPI_Mrecv(MPI_MESSAGE_NO_PROC) did not set MPI_MESSAGE_NULL");
    check_proc_null(&st, "MPI_Mrecv(MPI_MESSAGE_NO_PROC)");
    TT_EQ("buffer after MPI_Mrecv(MPI_MESSAGE_NO_PROC)", 77, buf);

    flag = 0;
    m = MPI_MESSAGE_NULL;
    TT_MPI(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m,
                       &st));
    TT_EQ("MPI_Improbe(MPI_PROC_NULL) flag", 1, flag);
    TT_CHECK(m == MPI_MESSAGE_NO_PROC,
             "MPI_Improbe(MPI_PROC_NULL) did not return MPI_MESSAGE_NO_PROC");
    check_proc_null(&st, "MPI_Improbe(MPI_PROC_NULL)");
    TT_MPI(MPI_Imrecv(&buf, 1, MPI_INT, &m, &r));
    TT_CHECK(m == MPI_MESSAGE_NULL,
             "MPI_Imrecv(MPI_MESSAGE_NO_PROC) did not set MPI_MESSAGE_NULL");
    memset(&st, 0x55, sizeof st);
    TT_MPI(MPI_Wait(&r, &st));
    check_proc_null(&st, "MPI_Imrecv(MPI_MESSAGE_NO_PROC) + MPI_Wait");
    TT_EQ("buffer after MPI_Imrecv(MPI_MESSAGE_NO_PROC)", 77, buf);
}

static void self_probe(void)
{
    int v[4] = {1, 2, 3, 4}, w[4] = {0};
    MPI_Request r;
    MPI_Status st;
    MPI_Message m;
    int flag = 0;

    TT_MPI(MPI_Isend(v, 4, MPI_INT, tt_rank, T_SELF, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Probe(tt_rank, T_SELF, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, tt_rank, T_SELF, MPI_INT, 4, "MPI_Probe of self");
    while (!flag)
        TT_MPI(MPI_Iprobe(tt_rank, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    TT_CHECK_STATUS(st, tt_rank, T_SELF, MPI_INT, 4, "MPI_Iprobe of self");
    TT_MPI(MPI_Mprobe(tt_rank, T_SELF, MPI_COMM_WORLD, &m, &st));
    TT_CHECK_STATUS(st, tt_rank, T_SELF, MPI_INT, 4, "MPI_Mprobe of self");
    TT_MPI(MPI_Mrecv(w, 4, MPI_INT, &m, &st));
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++)
        TT_EQ("self message int", v[i], w[i]);
    TT_MPI(MPI_Iprobe(tt_rank, T_SELF, MPI_COMM_WORLD, &flag, &st));
    TT_EQ("MPI_Iprobe of self after MPI_Mrecv: flag", 0, flag);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "p2p_probe");
    big_s = tt_malloc(LARGE);
    big_r = tt_malloc(LARGE);
    probe_basic();
    tt_sync();
    mprobe_pair();
    tt_sync();
    improbe_any();
    tt_sync();
    proc_null();
    self_probe();
    free(big_s);
    free(big_r);
    return tt_finish();
}
