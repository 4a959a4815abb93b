/*
 * p2p_modes: the send modes, Sendrecv and Sendrecv_replace.
 *
 * Every case runs on the ring (send to next, receive from prev; in a
 * one-rank job both are the rank itself), for zero-byte, small and large
 * messages. Checked:
 *   - Issend completes only once the receive has matched: after a handshake
 *     (so connections are up), each rank Issends, then Tests it for a while
 *     and it must stay incomplete, because its receiver posts the receive
 *     only when told to "go" afterwards. Zero-byte Issend included;
 *   - blocking Ssend on the ring (rank 0 first, the others receive first);
 *   - Rsend / Irsend against a receive the receiver posted before telling
 *     the sender it is ready;
 *   - Bsend / Ibsend with an attached buffer: they complete before the
 *     receiver posts anything; Buffer_detach returns the attached address
 *     and size, after the buffered messages have gone;
 *   - Sendrecv and Sendrecv_replace shifts on the ring, and with
 *     MPI_PROC_NULL;
 *   - self messages in every mode.
 */
#include "tt.h"

#define T_HS 41
#define T_SS 42
#define T_GO 43
#define T_RS 44
#define T_READY 45
#define T_BS 46
#define T_SR 47
#define T_SELF 48
#define LARGE (1 << 20)
#define NBSEND 5

static const int sizes[] = {0, 1, 100, LARGE};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static unsigned char *sbuf, *rbuf;

static void exchange_token(int tag)
{
    /* Send a token to prev and get one from next (nonblocking send, so no
     * deadlock even if small sends were synchronous). */
    int out = tag, in = -1;
    MPI_Request r;
    TT_MPI(MPI_Isend(&out, 1, MPI_INT, tt_prev(), tag, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Recv(&in, 1, MPI_INT, tt_next(), tag, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    TT_EQ("token", tag, in);
}

static void recv_check(int n, int from, int tag, uint32_t seed,
                       const char *what)
{
    MPI_Status st;
    memset(rbuf, 0, (size_t)n + 1);
    TT_MPI(MPI_Recv(rbuf, n, MPI_BYTE, from, tag, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, from, tag, MPI_BYTE, n, what);
    TT_CHECK_PATTERN(rbuf, (size_t)n, seed, "%s, %d bytes from rank %d", what,
                     n, from);
}

static void issend_case(int n)
{
    int next = tt_next(), prev = tt_prev(), flag = 0, go = 1, go_in = 0;
    MPI_Request sr, gr;
    uint32_t seed = tt_seed((uint32_t)tt_rank, 10, (uint32_t)n);

    exchange_token(T_HS); /* handshake: every path is up */
    tt_fill(sbuf, (size_t)n, seed);
    TT_MPI(MPI_Issend(sbuf, n, MPI_BYTE, next, T_SS, MPI_COMM_WORLD, &sr));
    for (int i = 0; i < 20; i++) {
        TT_MPI(MPI_Test(&sr, &flag, MPI_STATUS_IGNORE));
        if (flag)
            TT_FAIL("MPI_Issend of %d bytes to rank %d completed before the "
                    "receiver posted its receive (test %d)", n, next, i);
        if (i % 4 == 3)
            tt_sleep_ms(2);
    }
    /* Tell next it may receive now; wait for prev's go, then receive. */
    TT_MPI(MPI_Isend(&go, 1, MPI_INT, next, T_GO, MPI_COMM_WORLD, &gr));
    TT_MPI(MPI_Recv(&go_in, 1, MPI_INT, prev, T_GO, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    recv_check(n, prev, T_SS, tt_seed((uint32_t)prev, 10, (uint32_t)n),
               "MPI_Issend");
    TT_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    TT_CHECK(sr == MPI_REQUEST_NULL, "MPI_Wait did not free the Issend");
    TT_MPI(MPI_Wait(&gr, MPI_STATUS_IGNORE));
}

static void ssend_case(int n)
{
    int next = tt_next(), prev = tt_prev();
    uint32_t seed = tt_seed((uint32_t)tt_rank, 11, (uint32_t)n);
    tt_fill(sbuf, (size_t)n, seed);
    if (tt_size == 1) {
        /* Ssend to self needs the receive posted first. */
        MPI_Request r;
        MPI_Status st;
        TT_MPI(MPI_Irecv(rbuf, n, MPI_BYTE, tt_rank, T_SS, MPI_COMM_WORLD, &r));
        TT_MPI(MPI_Ssend(sbuf, n, MPI_BYTE, tt_rank, T_SS, MPI_COMM_WORLD));
        TT_MPI(MPI_Wait(&r, &st));
        TT_CHECK_STATUS(st, tt_rank, T_SS, MPI_BYTE, n, "MPI_Ssend to self");
        TT_CHECK_PATTERN(rbuf, (size_t)n, seed, "MPI_Ssend to self, %d bytes",
                         n);
        return;
    }
    if (tt_rank == 0) {
        TT_MPI(MPI_Ssend(sbuf, n, MPI_BYTE, next, T_SS, MPI_COMM_WORLD));
        recv_check(n, prev, T_SS, tt_seed((uint32_t)prev, 11, (uint32_t)n),
                   "MPI_Ssend");
    } else {
        recv_check(n, prev, T_SS, tt_seed((uint32_t)prev, 11, (uint32_t)n),
                   "MPI_Ssend");
        TT_MPI(MPI_Ssend(sbuf, n, MPI_BYTE, next, T_SS, MPI_COMM_WORLD));
    }
}

static void rsend_case(int n, int nonblocking)
{
    int next = tt_next(), prev = tt_prev(), ready = 1, ready_in = 0;
    MPI_Request rr, readyr, sr;
    MPI_Status st;
    uint32_t seed = tt_seed((uint32_t)tt_rank, 12 + nonblocking, (uint32_t)n);
    const char *what = nonblocking ? "MPI_Irsend" : "MPI_Rsend";

    tt_fill(sbuf, (size_t)n, seed);
    memset(rbuf, 0, (size_t)n + 1);
    /* Post the receive, then tell the sender (prev) we are ready. */
    TT_MPI(MPI_Irecv(rbuf, n, MPI_BYTE, prev, T_RS, MPI_COMM_WORLD, &rr));
    TT_MPI(MPI_Isend(&ready, 1, MPI_INT, prev, T_READY, MPI_COMM_WORLD,
                     &readyr));
    TT_MPI(MPI_Recv(&ready_in, 1, MPI_INT, next, T_READY, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    if (nonblocking) {
        TT_MPI(MPI_Irsend(sbuf, n, MPI_BYTE, next, T_RS, MPI_COMM_WORLD, &sr));
        TT_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    } else {
        TT_MPI(MPI_Rsend(sbuf, n, MPI_BYTE, next, T_RS, MPI_COMM_WORLD));
    }
    TT_MPI(MPI_Wait(&rr, &st));
    TT_CHECK_STATUS(st, prev, T_RS, MPI_BYTE, n, what);
    TT_CHECK_PATTERN(rbuf, (size_t)n,
                     tt_seed((uint32_t)prev, 12 + nonblocking, (uint32_t)n),
                     "%s, %d bytes from rank %d", what, n, prev);
    TT_MPI(MPI_Wait(&readyr, MPI_STATUS_IGNORE));
}

static void bsend_case(int n, int nonblocking)
{
    int next = tt_next(), prev = tt_prev(), go = 1, go_in = 0;
    const char *what = nonblocking ? "MPI_Ibsend" : "MPI_Bsend";
    int bufsize = NBSEND * (n + MPI_BSEND_OVERHEAD) + 1024;
    char *attach = tt_malloc((size_t)bufsize);
    unsigned char *msgs = tt_malloc((size_t)n * NBSEND + 1);
    MPI_Request gr;

    TT_MPI(MPI_Buffer_attach(attach, bufsize));
    for (int k = 0; k < NBSEND; k++) {
        unsigned char *m = msgs + (size_t)k * (size_t)n;
        tt_fill(m, (size_t)n,
                tt_seed((uint32_t)tt_rank, 14 + nonblocking, (uint32_t)(n + k)));
        if (nonblocking) {
            MPI_Request r;
            TT_MPI(MPI_Ibsend(m, n, MPI_BYTE, next, T_BS, MPI_COMM_WORLD, &r));
            /* Buffered: completes without the receiver. */
            TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            TT_CHECK(r == MPI_REQUEST_NULL, "MPI_Wait did not free an Ibsend");
        } else {
            TT_MPI(MPI_Bsend(m, n, MPI_BYTE, next, T_BS, MPI_COMM_WORLD));
        }
        /* The message was copied: overwriting the user buffer is allowed. */
        memset(m, 0xEE, (size_t)n);
    }
    /* Only now may the receivers start. */
    TT_MPI(MPI_Isend(&go, 1, MPI_INT, next, T_GO, MPI_COMM_WORLD, &gr));
    TT_MPI(MPI_Recv(&go_in, 1, MPI_INT, prev, T_GO, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    for (int k = 0; k < NBSEND; k++)
        recv_check(n, prev, T_BS,
                   tt_seed((uint32_t)prev, 14 + nonblocking, (uint32_t)(n + k)),
                   what);
    TT_MPI(MPI_Wait(&gr, MPI_STATUS_IGNORE));

    void *addr = NULL;
    int size = -1;
    TT_MPI(MPI_Buffer_detach(&addr, &size));
    TT_CHECK(addr == (void *)attach,
             "MPI_Buffer_detach returned address %p, attached %p", addr,
             (void *)attach);
    TT_EQ("MPI_Buffer_detach size", bufsize, size);
    free(attach);
    free(msgs);
}

static void sendrecv_case(int n)
{
    int next = tt_next(), prev = tt_prev();
    MPI_Status st;
    uint32_t seed = tt_seed((uint32_t)tt_rank, 16, (uint32_t)n);
    uint32_t pseed = tt_seed((uint32_t)prev, 16, (uint32_t)n);

    tt_fill(sbuf, (size_t)n, seed);
    memset(rbuf, 0, (size_t)n + 1);
    TT_MPI(MPI_Sendrecv(sbuf, n, MPI_BYTE, next, T_SR, rbuf, n + 1, MPI_BYTE,
                        prev, T_SR, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, prev, T_SR, MPI_BYTE, n, "MPI_Sendrecv");
    TT_CHECK_PATTERN(rbuf, (size_t)n, pseed, "MPI_Sendrecv, %d bytes", n);

    /* Sendrecv_replace: the buffer goes to next and comes back from prev. */
    tt_fill(rbuf, (size_t)n, seed);
    TT_MPI(MPI_Sendrecv_replace(rbuf, n, MPI_BYTE, next, T_SR + 100, prev,
                                MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, prev, T_SR + 100, MPI_BYTE, n, "MPI_Sendrecv_replace");
    TT_CHECK_PATTERN(rbuf, (size_t)n, pseed, "MPI_Sendrecv_replace, %d bytes",
                     n);

    /* With MPI_PROC_NULL on one side or both. */
    TT_MPI(MPI_Sendrecv(sbuf, n, MPI_BYTE, MPI_PROC_NULL, T_SR, rbuf, n,
                        MPI_BYTE, MPI_PROC_NULL, T_SR, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_BYTE, 0,
                    "MPI_Sendrecv with MPI_PROC_NULL");
    tt_fill(rbuf, (size_t)n, seed);
    TT_MPI(MPI_Sendrecv_replace(rbuf, n, MPI_BYTE, MPI_PROC_NULL, T_SR,
                                MPI_PROC_NULL, T_SR, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_BYTE, 0,
                    "MPI_Sendrecv_replace with MPI_PROC_NULL");
    TT_CHECK_PATTERN(rbuf, (size_t)n, seed,
                     "MPI_Sendrecv_replace with MPI_PROC_NULL left the buffer");
    /* Send to next, nothing received (PROC_NULL), and the mirror. The other
     * half of each exchange is nonblocking, so the ring cannot deadlock. */
    MPI_Request r;
    memset(rbuf, 0, (size_t)n + 1);
    TT_MPI(MPI_Irecv(rbuf, n, MPI_BYTE, prev, T_SR + 200, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Sendrecv(sbuf, n, MPI_BYTE, next, T_SR + 200, NULL, 0, MPI_BYTE,
                        MPI_PROC_NULL, T_SR, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_BYTE, 0,
                    "MPI_Sendrecv to next from MPI_PROC_NULL");
    TT_MPI(MPI_Wait(&r, &st));
    TT_CHECK_STATUS(st, prev, T_SR + 200, MPI_BYTE, n,
                    "receive of a one-sided MPI_Sendrecv");
    TT_CHECK_PATTERN(rbuf, (size_t)n, pseed,
                     "receive of a one-sided MPI_Sendrecv, %d bytes", n);
    memset(rbuf, 0, (size_t)n + 1);
    TT_MPI(MPI_Isend(sbuf, n, MPI_BYTE, next, T_SR + 300, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Sendrecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, T_SR, rbuf, n,
                        MPI_BYTE, prev, T_SR + 300, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, prev, T_SR + 300, MPI_BYTE, n,
                    "MPI_Sendrecv to MPI_PROC_NULL from prev");
    TT_CHECK_PATTERN(rbuf, (size_t)n, pseed,
                     "MPI_Sendrecv to MPI_PROC_NULL from prev, %d bytes", n);
    TT_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

static void self_modes(int n)
{
    int me = tt_rank;
    MPI_Request r, s;
    MPI_Status st;
    uint32_t seed = tt_seed((uint32_t)me, 17, (uint32_t)n);
    tt_fill(sbuf, (size_t)n, seed);

    /* Issend to self: incomplete until the receive is posted. */
    int flag = 0;
    TT_MPI(MPI_Issend(sbuf, n, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &s));
    for (int i = 0; i < 5; i++) {
        TT_MPI(MPI_Test(&s, &flag, MPI_STATUS_IGNORE));
        if (flag)
            TT_FAIL("MPI_Issend of %d bytes to self completed before the "
                    "receive was posted", n);
    }
    recv_check(n, me, T_SELF, seed, "MPI_Issend to self");
    TT_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));

    /* Rsend / Irsend to self with the receive posted. */
    TT_MPI(MPI_Irecv(rbuf, n, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Rsend(sbuf, n, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD));
    TT_MPI(MPI_Wait(&r, &st));
    TT_CHECK_STATUS(st, me, T_SELF, MPI_BYTE, n, "MPI_Rsend to self");
    TT_CHECK_PATTERN(rbuf, (size_t)n, seed, "MPI_Rsend to self, %d bytes", n);
    TT_MPI(MPI_Irecv(rbuf, n, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &r));
    TT_MPI(MPI_Irsend(sbuf, n, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD, &s));
    TT_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    TT_MPI(MPI_Wait(&r, &st));
    TT_CHECK_STATUS(st, me, T_SELF, MPI_BYTE, n, "MPI_Irsend to self");

    /* Bsend to self with no receive posted, then receive. */
    int bufsize = n + MPI_BSEND_OVERHEAD + 64;
    char *attach = tt_malloc((size_t)bufsize);
    TT_MPI(MPI_Buffer_attach(attach, bufsize));
    TT_MPI(MPI_Bsend(sbuf, n, MPI_BYTE, me, T_SELF, MPI_COMM_WORLD));
    recv_check(n, me, T_SELF, seed, "MPI_Bsend to self");
    void *addr;
    int size;
    TT_MPI(MPI_Buffer_detach(&addr, &size));
    TT_CHECK(addr == (void *)attach, "MPI_Buffer_detach: wrong address");
    TT_EQ("MPI_Buffer_detach size (self)", bufsize, size);
    free(attach);

    /* Sendrecv with self on both sides. */
    TT_MPI(MPI_Sendrecv(sbuf, n, MPI_BYTE, me, T_SELF, rbuf, n, MPI_BYTE, me,
                        T_SELF, MPI_COMM_WORLD, &st));
    TT_CHECK_STATUS(st, me, T_SELF, MPI_BYTE, n, "MPI_Sendrecv with self");
    TT_CHECK_PATTERN(rbuf, (size_t)n, seed, "MPI_Sendrecv with self");
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "p2p_modes");
    sbuf = tt_malloc(LARGE + 1);
    rbuf = tt_malloc(LARGE + 1);
    for (int i = 0; i < NSIZES; i++) {
        int n = sizes[i];
        issend_case(n);
        ssend_case(n);
        rsend_case(n, 0);
        rsend_case(n, 1);
        bsend_case(n, 0);
        bsend_case(n, 1);
        sendrecv_case(n);
        self_modes(n);
        tt_sync();
    }
    free(sbuf);
    free(rbuf);
    return tt_finish();
}
