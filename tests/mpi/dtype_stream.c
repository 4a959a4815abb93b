/*
 * dtype_stream: many non-contiguous messages in flight at once, to several
 * peers, more than the transports can hold.
 *
 * Non-contiguous data is packed as it leaves, a packet at a time, and
 * unpacked as it arrives (libmpi/p2p/send.c, recv.c). This test makes the
 * packing wait: every rank starts WINDOW nonblocking sends to every other
 * rank before any of them posts a receive, so the transports fill up, sends
 * queue, and the rank packs for one peer between retries for another.
 * Messages alternate between a strided vector sent into contiguous memory
 * and contiguous memory received into a strided vector of another stride,
 * so the receiver also declines the single-copy read a contiguous sender
 * offers (wherever single copy is on: TERN_SHM_CMA_MIN=0, or where the
 * host's measurement chose it). Sizes: argv[1] doubles per message
 * (default 3000, 24 KiB: the strided ones eager on shm and tcp, the
 * contiguous ones too unless single copy starts lower, and 40 of them are more than
 * a shm ring's 32 cells; 20000 is 160 KiB, pipelined in 5 shm cells or one
 * tcp chunk). Every element is compared with values computed here from the
 * sender, the message and the index, and the gaps of the strided buffers
 * must keep their poison. Then one strided buffer is sent round after round
 * with new contents, each send completing before the next starts, so a
 * send must never reuse what was packed for the one before it.
 */
#include "tt.h"

#define WINDOW 40
#define ROUNDS 6
#define POISON (-31337.25)
#define SEND_STRIDE 2
#define RECV_STRIDE 3

static double value(int src, int msg, size_t i)
{
    return src * 1e7 + msg * 1e5 + (double)i * 0.25 + 1.0;
}

/* Message k from src to dst goes vector -> contiguous when k is even,
 * contiguous -> vector when odd. */
static int sent_strided(int k) { return k % 2 == 0; }

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "dtype_stream");
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 3000;
    int peers = tt_size - 1;
    if (peers == 0)
        return tt_finish();

    MPI_Datatype svec, rvec;
    TT_MPI(MPI_Type_vector((int)n, 1, SEND_STRIDE, MPI_DOUBLE, &svec));
    TT_MPI(MPI_Type_vector((int)n, 1, RECV_STRIDE, MPI_DOUBLE, &rvec));
    TT_MPI(MPI_Type_commit(&svec));
    TT_MPI(MPI_Type_commit(&rvec));

    /* One buffer per (peer, message) on each side, big enough for the
     * wider stride. */
    size_t slot = n * RECV_STRIDE;
    size_t nmsg = (size_t)peers * WINDOW;
    double *sbuf = tt_malloc(nmsg * slot * sizeof(double));
    double *rbuf = tt_malloc(nmsg * slot * sizeof(double));
    MPI_Request *req = tt_malloc(2 * nmsg * sizeof(MPI_Request));

    for (int j = 0; j < peers; j++) {
        int dst = (tt_rank + 1 + j) % tt_size;
        for (int k = 0; k < WINDOW; k++) {
            double *b = sbuf + ((size_t)j * WINDOW + (size_t)k) * slot;
            int stride = sent_strided(k) ? SEND_STRIDE : 1;
            for (size_t i = 0; i < slot; i++)
                b[i] = POISON;
            for (size_t i = 0; i < n; i++)
                b[i * (size_t)stride] = value(tt_rank, k * tt_size + dst, i);
        }
    }
    for (size_t i = 0; i < nmsg * slot; i++)
        rbuf[i] = POISON;

    /* Every send first, interleaved over the peers. */
    size_t nreq = 0;
    for (int k = 0; k < WINDOW; k++) {
        for (int j = 0; j < peers; j++) {
            int dst = (tt_rank + 1 + j) % tt_size;
            double *b = sbuf + ((size_t)j * WINDOW + (size_t)k) * slot;
            if (sent_strided(k))
                TT_MPI(MPI_Isend(b, 1, svec, dst, k, MPI_COMM_WORLD, &req[nreq++]));
            else
                TT_MPI(MPI_Isend(b, (int)n, MPI_DOUBLE, dst, k, MPI_COMM_WORLD, &req[nreq++]));
        }
    }
    /* The receives only once every rank has started its sends. */
    tt_sync();
    for (int j = 0; j < peers; j++) {
        int src = (tt_rank + tt_size - 1 - j) % tt_size;
        for (int k = 0; k < WINDOW; k++) {
            double *b = rbuf + ((size_t)j * WINDOW + (size_t)k) * slot;
            if (sent_strided(k))
                TT_MPI(MPI_Irecv(b, (int)n, MPI_DOUBLE, src, k, MPI_COMM_WORLD, &req[nreq++]));
            else
                TT_MPI(MPI_Irecv(b, 1, rvec, src, k, MPI_COMM_WORLD, &req[nreq++]));
        }
    }
    TT_MPI(MPI_Waitall((int)nreq, req, MPI_STATUSES_IGNORE));

    for (int j = 0; j < peers; j++) {
        int src = (tt_rank + tt_size - 1 - j) % tt_size;
        for (int k = 0; k < WINDOW; k++) {
            const double *b = rbuf + ((size_t)j * WINDOW + (size_t)k) * slot;
            size_t stride = sent_strided(k) ? 1 : RECV_STRIDE;
            for (size_t i = 0; i < slot; i++) {
                int in_type = i % stride == 0 && i / stride < n;
                double want = in_type ? value(src, k * tt_size + tt_rank, i / stride) : POISON;
                if (b[i] != want)
                    TT_FAIL("message %d from rank %d (%s), double %zu: expected %.2f, got %.2f",
                            k, src, sent_strided(k) ? "vector to contiguous"
                                                    : "contiguous to vector",
                            i, want, b[i]);
            }
        }
    }
    /* Round after round from the same buffer, to the next rank. */
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t i = 0; i < n; i++)
            sbuf[i * SEND_STRIDE] = value(tt_rank, -1 - round, i);
        /* The send's request is the last one freed, so the next round's
         * send is likely to get the same memory. */
        MPI_Request sreq;
        TT_MPI(MPI_Isend(sbuf, 1, svec, tt_next(), round, MPI_COMM_WORLD, &sreq));
        TT_MPI(MPI_Recv(rbuf, (int)n, MPI_DOUBLE, tt_prev(), round, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        TT_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        for (size_t i = 0; i < n; i++)
            if (rbuf[i] != value(tt_prev(), -1 - round, i))
                TT_FAIL("round %d from rank %d, double %zu: expected %.2f, got %.2f", round,
                        tt_prev(), i, value(tt_prev(), -1 - round, i), rbuf[i]);
    }

    TT_MPI(MPI_Type_free(&svec));
    TT_MPI(MPI_Type_free(&rvec));
    free(sbuf);
    free(rbuf);
    free(req);
    return tt_finish();
}
