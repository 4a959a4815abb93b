/*
 * p2p_order: the non-overtaking rule.
 *
 * Messages from one sender on one communicator that a receive could match
 * must be matched in the order they were sent, whatever their sizes (so an
 * eager message sent after a rendezvous one must not be matched first).
 *
 * Each rank sends NMSG messages of interleaved small, medium and large sizes
 * to the next rank on the ring (itself in a one-rank job), all outstanding at
 * once (Isend), and receives NMSG from the previous rank. Message i carries i
 * in its first 4 bytes (when it has 4), a payload pattern that depends on i,
 * and a size that depends on i, so a message matched out of place is caught
 * by its size, its sequence number and its payload.
 *
 * Cases:
 *   1. same tag, receives with that tag, blocking Recv in order;
 *   2. same tag, receives with MPI_ANY_TAG;
 *   3. tag i % 7, receives with MPI_ANY_TAG (order holds across tags);
 *   4. same tag, all receives pre-posted with Irecv before the sender starts
 *      (a handshake tells the sender to go), completed with Waitall;
 *   5. fan-in: every rank sends NMSG messages to rank 0, which receives
 *      them with MPI_ANY_SOURCE and checks each sender's sequence.
 */
#include "tt.h"

#define NMSG 64
#define TAG 5
#define TAG_GO 6
#define TAG_FANIN 7

static const int base_sizes[] = {1, 70000, 0, 300000, 100, 9000, 2,
                                 1 << 20, 4000, 33000, 16};
#define NBASE ((int)(sizeof base_sizes / sizeof base_sizes[0]))

static int msg_size(int i)
{
    /* Distinct sizes for distinct i within a run of NMSG messages. */
    return base_sizes[i % NBASE] + i / NBASE;
}

static uint32_t msg_seed(int sender, int kase, int i)
{
    return tt_seed((uint32_t)sender, (uint32_t)kase, (uint32_t)i);
}

static unsigned char *sbufs[NMSG];
static unsigned char *rbuf;
static size_t rbuf_cap;

static void make_messages(int kase)
{
    for (int i = 0; i < NMSG; i++) {
        int n = msg_size(i);
        tt_fill(sbufs[i], (size_t)n, msg_seed(tt_rank, kase, i));
        if (n >= 4)
            memcpy(sbufs[i], &i, 4);
    }
}

static void check_message(int sender, int kase, int i, const MPI_Status *st,
                          int want_tag, const char *what)
{
    int count = -1, n = msg_size(i);
    TT_MPI(MPI_Get_count(st, MPI_BYTE, &count));
    if (st->MPI_SOURCE != sender)
        TT_FAIL("case %d (%s) message %d: status.MPI_SOURCE: expected %d, "
                "got %d", kase, what, i, sender, st->MPI_SOURCE);
    if (st->MPI_TAG != want_tag)
        TT_FAIL("case %d (%s) message %d from %d: status.MPI_TAG: expected "
                "%d, got %d", kase, what, i, sender, want_tag, st->MPI_TAG);
    if (count != n) {
        /* Find which message this was, to make the report useful. */
        int which = -1;
        for (int j = 0; j < NMSG; j++)
            if (msg_size(j) == count)
                which = j;
        TT_FAIL("case %d (%s): expected message %d (%d bytes) from rank %d, "
                "got %d bytes, the size of message %d: overtaken", kase, what,
                i, n, sender, count, which);
    }
    if (n >= 4) {
        int seq;
        memcpy(&seq, rbuf, 4);
        if (seq != i)
            TT_FAIL("case %d (%s): expected message %d from rank %d, got "
                    "message %d: overtaken", kase, what, i, sender, seq);
        int save = i;
        memcpy(rbuf, &save, 4);
        /* Restore the pattern bytes so the whole payload can be checked. */
        tt_fill(rbuf, 4, msg_seed(sender, kase, i));
    }
    TT_CHECK_PATTERN(rbuf, (size_t)n, msg_seed(sender, kase, i),
                     "case %d (%s) message %d from rank %d", kase, what, i,
                     sender);
}

/* Cases 1-3: everything sent at once, received one by one in order. */
static void stream_case(int kase, int recv_tag, int vary_tags)
{
    MPI_Request sreq[NMSG];
    MPI_Status st;
    int next = tt_next(), prev = tt_prev();
    make_messages(kase);
    for (int i = 0; i < NMSG; i++)
        TT_MPI(MPI_Isend(sbufs[i], msg_size(i), MPI_BYTE, next,
                         vary_tags ? i % 7 : TAG, MPI_COMM_WORLD, &sreq[i]));
    for (int i = 0; i < NMSG; i++) {
        TT_MPI(MPI_Recv(rbuf, (int)rbuf_cap, MPI_BYTE, prev, recv_tag,
                        MPI_COMM_WORLD, &st));
        check_message(prev, kase, i, &st, vary_tags ? i % 7 : TAG,
                      recv_tag == MPI_ANY_TAG ? "MPI_ANY_TAG" : "fixed tag");
    }
    TT_MPI(MPI_Waitall(NMSG, sreq, MPI_STATUSES_IGNORE));
}

/* Case 4: all receives posted before the first message is sent. */
static void preposted_case(void)
{
    const int kase = 4;
    MPI_Request rreq[NMSG], sreq[NMSG], go_req;
    MPI_Status st[NMSG];
    unsigned char *rbufs[NMSG];
    int next = tt_next(), prev = tt_prev(), go = 1, go_in = 0;
    make_messages(kase);
    for (int i = 0; i < NMSG; i++) {
        rbufs[i] = tt_malloc(rbuf_cap);
        TT_MPI(MPI_Irecv(rbufs[i], (int)rbuf_cap, MPI_BYTE, prev, TAG,
                         MPI_COMM_WORLD, &rreq[i]));
    }
    /* Tell the previous rank (our sender) that our receives are posted, and
     * wait until our receiver has posted its receives. */
    TT_MPI(MPI_Isend(&go, 1, MPI_INT, prev, TAG_GO, MPI_COMM_WORLD, &go_req));
    TT_MPI(MPI_Recv(&go_in, 1, MPI_INT, next, TAG_GO, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    TT_MPI(MPI_Wait(&go_req, MPI_STATUS_IGNORE));
    for (int i = 0; i < NMSG; i++)
        TT_MPI(MPI_Isend(sbufs[i], msg_size(i), MPI_BYTE, next, TAG,
                         MPI_COMM_WORLD, &sreq[i]));
    TT_MPI(MPI_Waitall(NMSG, rreq, st));
    for (int i = 0; i < NMSG; i++) {
        memcpy(rbuf, rbufs[i], (size_t)msg_size(i));
        check_message(prev, kase, i, &st[i], TAG, "pre-posted Irecv");
        free(rbufs[i]);
    }
    TT_MPI(MPI_Waitall(NMSG, sreq, MPI_STATUSES_IGNORE));
}

/* Case 5: every rank (rank 0 included, to itself) sends to rank 0, which
 * receives from MPI_ANY_SOURCE and checks each sender's order. Only small
 * and medium sizes, to keep the memory of rank 0's unexpected queue small. */
static void fanin_case(void)
{
    const int kase = 5;
    int nmsg = NMSG / 2;
    MPI_Request sreq[NMSG];
    make_messages(kase);
    for (int i = 0; i < nmsg; i++)
        TT_MPI(MPI_Isend(sbufs[i], msg_size(i), MPI_BYTE, 0, TAG_FANIN,
                         MPI_COMM_WORLD, &sreq[i]));
    if (tt_rank == 0) {
        int *seen = calloc((size_t)tt_size, sizeof *seen);
        if (!seen)
            TT_FAIL("out of memory");
        for (int k = 0; k < nmsg * tt_size; k++) {
            MPI_Status st;
            TT_MPI(MPI_Recv(rbuf, (int)rbuf_cap, MPI_BYTE, MPI_ANY_SOURCE,
                            TAG_FANIN, MPI_COMM_WORLD, &st));
            int src = st.MPI_SOURCE;
            if (src < 0 || src >= tt_size)
                TT_FAIL("case 5 (fan-in): status.MPI_SOURCE %d out of range "
                        "0..%d", src, tt_size - 1);
            if (seen[src] >= nmsg)
                TT_FAIL("case 5 (fan-in): more than %d messages from rank %d",
                        nmsg, src);
            check_message(src, kase, seen[src], &st, TAG_FANIN,
                          "fan-in MPI_ANY_SOURCE");
            seen[src]++;
        }
        free(seen);
    }
    TT_MPI(MPI_Waitall(nmsg, sreq, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "p2p_order");
    rbuf_cap = 0;
    for (int i = 0; i < NMSG; i++) {
        size_t n = (size_t)msg_size(i);
        sbufs[i] = tt_malloc(n);
        if (n > rbuf_cap)
            rbuf_cap = n;
    }
    rbuf = tt_malloc(rbuf_cap);

    stream_case(1, TAG, 0);
    tt_sync();
    stream_case(2, MPI_ANY_TAG, 0);
    tt_sync();
    stream_case(3, MPI_ANY_TAG, 1);
    tt_sync();
    preposted_case();
    tt_sync();
    fanin_case();

    for (int i = 0; i < NMSG; i++)
        free(sbufs[i]);
    free(rbuf);
    return tt_finish();
}
