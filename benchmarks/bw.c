/*
 * Unidirectional bandwidth between two ranks, in the style of OSU's osu_bw.
 *
 * Each iteration, rank 0 posts a window of BENCH_WINDOW nonblocking sends
 * and rank 1 the matching nonblocking receives (each into its own buffer);
 * both wait for all of them, then rank 1 acknowledges with a 4-byte message.
 * The value is the bytes sent divided by rank 0's elapsed time, in MB/s
 * where MB = 1e6 bytes (as OSU reports it).  Standard MPI only.
 */
#include "bench_util.h"

static const struct bench_info info = {
    .name = "bw",
    .title = "Tern Bandwidth Test",
    .column = "Bandwidth (MB/s)",
    .default_min = 1,
    .default_max = (size_t)4 << 20,
    .iters = 200,
    .warmup = 20,
    .large = 16384,
    .min_iters = 2,
    .window = BENCH_WINDOW,
};

#define TAG 100
#define ACK_TAG 101

int main(int argc, char **argv)
{
    struct bench b;
    MPI_Request req[BENCH_WINDOW];
    MPI_Status st[BENCH_WINDOW];
    char ack[4] = { 0 };

    if (!bench_init(&b, &info, &argc, &argv))
        return b.exit_code;

    for (size_t size = bench_size_first(&b); size != BENCH_SIZE_END;
         size = bench_size_next(&b, size)) {
        int iters = bench_iters(&b, size), skip = bench_warmup(&b, size);
        int count = (int)size;
        double start = 0.0, elapsed;

        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < skip + iters; i++) {
            long seq = (long)i * BENCH_WINDOW;

            if (i == skip)
                start = MPI_Wtime();
            if (b.rank == 0) {
                for (int w = 0; w < BENCH_WINDOW; w++) {
                    bench_fill(&b, bench_sbuf(&b, w), size, seq + w);
                    MPI_Isend(bench_sbuf(&b, w), count, MPI_BYTE, b.peer, TAG,
                              MPI_COMM_WORLD, &req[w]);
                }
                /* A real status array: GCC's -Wstringop-overflow rejects
                 * MPICH's MPI_STATUSES_IGNORE (a cast of 1) under -Werror. */
                MPI_Waitall(BENCH_WINDOW, req, st);
                MPI_Recv(ack, 4, MPI_BYTE, b.peer, ACK_TAG, MPI_COMM_WORLD, &st[0]);
            } else {
                for (int w = 0; w < BENCH_WINDOW; w++)
                    MPI_Irecv(bench_rbuf(&b, w), count, MPI_BYTE, b.peer, TAG,
                              MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(BENCH_WINDOW, req, st);
                for (int w = 0; w < BENCH_WINDOW; w++)
                    bench_check(&b, bench_rbuf(&b, w), size, seq + w, b.peer, &st[w]);
                MPI_Send(ack, 4, MPI_BYTE, b.peer, ACK_TAG, MPI_COMM_WORLD);
            }
        }
        elapsed = MPI_Wtime() - start;
        bench_report(&b, size,
                     (double)size * BENCH_WINDOW * iters / elapsed / 1e6);
    }
    return bench_finish(&b);
}
