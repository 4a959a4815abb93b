/*
 * p2p_sizes: every message size that could sit on a protocol switch point.
 *
 * Sizes: 0, 1, 2, 3, then 2^k - 1, 2^k and 2^k + 1 for every 2^k from 8 B up
 * to the maximum (default 64 MiB; argv[1] sets it, e.g. "16M"). Whatever the
 * eager limit, the chunk size or the rendezvous threshold is, some size lies
 * just below, on and just above it.
 *
 * For each size, four transfers, each with a payload that depends on the
 * size, the sender and the offset, and a receive buffer larger than the
 * message whose tail must stay untouched:
 *   1. blocking Send/Recv to the next rank on the ring (rank 0 sends first,
 *      every other rank receives first, so no standard-mode send ever has to
 *      buffer);
 *   2. Isend/Irecv to the next rank, Waitall;
 *   3. blocking Send to self against a pre-posted Irecv;
 *   4. Isend to self, then blocking Recv.
 * In a one-rank job step 1 is skipped (the ring is the rank itself, covered
 * by steps 3 and 4).
 */
#include "tt.h"

#define GUARD 64
#define POISON 0x5a

static size_t max_size = (size_t)64 << 20;
static unsigned char *sbuf, *rbuf;

static uint32_t seed_for(size_t size, int sender, int step)
{
    return tt_seed((uint32_t)size, (uint32_t)sender, (uint32_t)step);
}

static void check_received(size_t size, int sender, int step,
                           const MPI_Status *st, const char *what)
{
    int count = -1;
    TT_EQ("status.MPI_SOURCE", sender, st->MPI_SOURCE);
    TT_MPI(MPI_Get_count(st, MPI_BYTE, &count));
    if ((size_t)count != size)
        TT_FAIL("%s size %zu from rank %d: MPI_Get_count: expected %zu, got %d",
                what, size, sender, size, count);
    TT_CHECK_PATTERN(rbuf, size, seed_for(size, sender, step),
                     "%s size %zu from rank %d", what, size, sender);
    TT_CHECK_BYTES(rbuf + size, GUARD, POISON,
                   "%s size %zu from rank %d: guard after message", what, size,
                   sender);
}

static void ring_blocking(size_t size)
{
    int next = tt_next(), prev = tt_prev(), tag = 1;
    MPI_Status st;
    tt_fill(sbuf, size, seed_for(size, tt_rank, 1));
    memset(rbuf, POISON, size + GUARD);
    int n = (int)size, cap = (int)(size + GUARD);
    if (tt_rank == 0) {
        TT_MPI(MPI_Send(sbuf, n, MPI_BYTE, next, tag, MPI_COMM_WORLD));
        TT_MPI(MPI_Recv(rbuf, cap, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &st));
    } else {
        TT_MPI(MPI_Recv(rbuf, cap, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &st));
        TT_MPI(MPI_Send(sbuf, n, MPI_BYTE, next, tag, MPI_COMM_WORLD));
    }
    TT_EQ("blocking ring status.MPI_TAG", tag, st.MPI_TAG);
    check_received(size, prev, 1, &st, "blocking Send/Recv ring");
}

static void ring_nonblocking(size_t size)
{
    int next = tt_next(), prev = tt_prev(), tag = 2;
    MPI_Request req[2];
    MPI_Status st[2];
    tt_fill(sbuf, size, seed_for(size, tt_rank, 2));
    memset(rbuf, POISON, size + GUARD);
    int n = (int)size, cap = (int)(size + GUARD);
    /* Alternate the order of posting so both orders are exercised. */
    if (size % 2) {
        TT_MPI(MPI_Irecv(rbuf, cap, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &req[0]));
        TT_MPI(MPI_Isend(sbuf, n, MPI_BYTE, next, tag, MPI_COMM_WORLD, &req[1]));
    } else {
        TT_MPI(MPI_Isend(sbuf, n, MPI_BYTE, next, tag, MPI_COMM_WORLD, &req[1]));
        TT_MPI(MPI_Irecv(rbuf, cap, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &req[0]));
    }
    TT_MPI(MPI_Waitall(2, req, st));
    TT_CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL,
             "Waitall did not set the requests to MPI_REQUEST_NULL");
    TT_EQ("nonblocking ring status.MPI_TAG", tag, st[0].MPI_TAG);
    check_received(size, prev, 2, &st[0], "Isend/Irecv ring");
}

static void self_blocking_send(size_t size)
{
    int tag = 3;
    MPI_Request req;
    MPI_Status st;
    tt_fill(sbuf, size, seed_for(size, tt_rank, 3));
    memset(rbuf, POISON, size + GUARD);
    TT_MPI(MPI_Irecv(rbuf, (int)(size + GUARD), MPI_BYTE, tt_rank, tag,
                     MPI_COMM_WORLD, &req));
    TT_MPI(MPI_Send(sbuf, (int)size, MPI_BYTE, tt_rank, tag, MPI_COMM_WORLD));
    TT_MPI(MPI_Wait(&req, &st));
    TT_EQ("self Send status.MPI_TAG", tag, st.MPI_TAG);
    check_received(size, tt_rank, 3, &st, "self Send/Irecv");
}

static void self_blocking_recv(size_t size)
{
    int tag = 4;
    MPI_Request req;
    MPI_Status st;
    tt_fill(sbuf, size, seed_for(size, tt_rank, 4));
    memset(rbuf, POISON, size + GUARD);
    TT_MPI(MPI_Isend(sbuf, (int)size, MPI_BYTE, tt_rank, tag, MPI_COMM_WORLD,
                     &req));
    TT_MPI(MPI_Recv(rbuf, (int)(size + GUARD), MPI_BYTE, tt_rank, tag,
                    MPI_COMM_WORLD, &st));
    TT_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    TT_EQ("self Recv status.MPI_TAG", tag, st.MPI_TAG);
    check_received(size, tt_rank, 4, &st, "self Isend/Recv");
}

static void one_size(size_t size)
{
    if (size > max_size)
        return;
    if (tt_size > 1)
        ring_blocking(size);
    ring_nonblocking(size);
    self_blocking_send(size);
    self_blocking_recv(size);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "p2p_sizes");
    if (argc > 1) {
        max_size = tt_parse_size(argv[1]);
        if (max_size == 0 || max_size > (size_t)1 << 30)
            TT_FAIL("bad maximum size '%s' (want e.g. 65536, 64K, 16M; at "
                    "most 1G)", argv[1]);
    }
    sbuf = tt_malloc(max_size + GUARD);
    rbuf = tt_malloc(max_size + GUARD);

    double t0 = MPI_Wtime();
    for (size_t s = 0; s <= 3; s++)
        one_size(s);
    for (size_t p = 8; p <= max_size; p *= 2) {
        one_size(p - 1);
        one_size(p);
        one_size(p + 1);
    }
    one_size(max_size); /* a maximum that is not a power of two */
    if (tt_rank == 0)
        printf("p2p_sizes: np %d, sizes up to %zu bytes, %.2f s\n", tt_size,
               max_size, MPI_Wtime() - t0);

    free(sbuf);
    free(rbuf);
    return tt_finish();
}
