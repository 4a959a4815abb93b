/*
 * Bidirectional bandwidth between two ranks, in the style of OSU's osu_bibw.
 *
 * Each iteration, both ranks post a window of BENCH_WINDOW nonblocking
 * receives (each into its own buffer), then BENCH_WINDOW nonblocking sends to
 * each other, and wait for all of them.  The value is the bytes moved in both
 * directions divided by rank 0's elapsed time, in MB/s where MB = 1e6 bytes.
 * Standard MPI only.
 */
#include "bench_util.h"

static const struct bench_info info = {
    .name = "bibw",
    .title = "Tern Bi-Directional Bandwidth Test",
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

int main(int argc, char **argv)
{
    struct bench b;
    MPI_Request req[2 * BENCH_WINDOW];
    MPI_Status st[2 * BENCH_WINDOW];

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
            for (int w = 0; w < BENCH_WINDOW; w++)
                MPI_Irecv(bench_rbuf(&b, w), count, MPI_BYTE, b.peer, TAG,
                          MPI_COMM_WORLD, &req[w]);
            for (int w = 0; w < BENCH_WINDOW; w++) {
                bench_fill(&b, bench_sbuf(&b, w), size, seq + w);
                MPI_Isend(bench_sbuf(&b, w), count, MPI_BYTE, b.peer, TAG,
                          MPI_COMM_WORLD, &req[BENCH_WINDOW + w]);
            }
            MPI_Waitall(2 * BENCH_WINDOW, req, st);
            for (int w = 0; w < BENCH_WINDOW; w++)
                bench_check(&b, bench_rbuf(&b, w), size, seq + w, b.peer, &st[w]);
        }
        elapsed = MPI_Wtime() - start;
        bench_report(&b, size,
                     2.0 * (double)size * BENCH_WINDOW * iters / elapsed / 1e6);
    }
    return bench_finish(&b);
}
