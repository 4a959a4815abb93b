/*
 * Ping-pong latency between two ranks, in the style of OSU's osu_latency.
 *
 * For each size, rank 0 sends a message to rank 1, which sends one of the
 * same size back; the reported value is half the average round trip in
 * microseconds.  Blocking MPI_Send / MPI_Recv, one message in flight.
 * Standard MPI only: builds with any mpicc.
 */
#include "bench_util.h"

static const struct bench_info info = {
    .name = "latency",
    .title = "Tern Latency Test",
    .column = "Latency (us)",
    .default_min = 0,
    .default_max = (size_t)4 << 20,
    .iters = 10000,
    .warmup = 1000,
    .large = 8192,
    .min_iters = 20,
    .window = 1,
};

#define TAG 1

int main(int argc, char **argv)
{
    struct bench b;
    MPI_Status st;

    if (!bench_init(&b, &info, &argc, &argv))
        return b.exit_code;

    for (size_t size = bench_size_first(&b); size != BENCH_SIZE_END;
         size = bench_size_next(&b, size)) {
        int iters = bench_iters(&b, size), skip = bench_warmup(&b, size);
        int count = (int)size;
        void *sbuf = bench_sbuf(&b, 0), *rbuf = bench_rbuf(&b, 0);
        double start = 0.0, elapsed;

        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < skip + iters; i++) {
            if (i == skip)
                start = MPI_Wtime();
            if (b.rank == 0) {
                bench_fill(&b, sbuf, size, i);
                MPI_Send(sbuf, count, MPI_BYTE, b.peer, TAG, MPI_COMM_WORLD);
                MPI_Recv(rbuf, count, MPI_BYTE, b.peer, TAG, MPI_COMM_WORLD, &st);
                bench_check(&b, rbuf, size, i, b.peer, &st);
            } else {
                MPI_Recv(rbuf, count, MPI_BYTE, b.peer, TAG, MPI_COMM_WORLD, &st);
                bench_check(&b, rbuf, size, i, b.peer, &st);
                bench_fill(&b, sbuf, size, i);
                MPI_Send(sbuf, count, MPI_BYTE, b.peer, TAG, MPI_COMM_WORLD);
            }
        }
        elapsed = MPI_Wtime() - start;
        bench_report(&b, size, elapsed * 1e6 / (2.0 * iters));
    }
    return bench_finish(&b);
}
