/*
 * Every pair of ranks exchanges messages of several sizes (eager and
 * pipelined on TCP) and checks their contents, then waits, then does it
 * again. The wait (argv[1] seconds, default 0) is the window in which
 * tests/launcher/tcp_hostile.sh attacks the ranks' listeners; the second
 * round proves the job was not disturbed. With argv[2] "late", rank 1
 * instead sleeps before the first round, without calling MPI, while the
 * others already try to reach it: a busy peer at first contact must not
 * end the job. Standard MPI only.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static unsigned char pattern(int from, int to, int round, size_t i)
{
    return (unsigned char)(from * 31 + to * 17 + round * 7 + i * 13);
}

/* One round: with each peer, send n bytes and receive n bytes at once. */
static int round_trip(int round, size_t n)
{
    unsigned char *out = malloc(n ? n : 1), *in = malloc(n ? n : 1);
    int bad = 0;
    if (!out || !in)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int d = 1; d < size; d++) {
        int to = (rank + d) % size, from = (rank - d + size) % size;
        for (size_t i = 0; i < n; i++)
            out[i] = pattern(rank, to, round, i);
        MPI_Sendrecv(out, (int)n, MPI_BYTE, to, round, in, (int)n, MPI_BYTE, from,
                     round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (size_t i = 0; i < n && !bad; i++) {
            if (in[i] != pattern(from, rank, round, i)) {
                fprintf(stderr, "rank %d: byte %zu of %zu from rank %d is wrong\n",
                        rank, i, n, from);
                bad = 1;
            }
        }
    }
    free(out);
    free(in);
    return bad;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = { 0, 8, 4096, 100000, 3 << 20 };
    int wait_s = argc > 1 ? atoi(argv[1]) : 0, bad = 0, all;
    int late = argc > 2 && !strcmp(argv[2], "late");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (late && rank == 1)
        sleep((unsigned)wait_s);
    for (int s = 0; s < 5; s++)
        bad |= round_trip(s, sizes[s]);
    if (wait_s > 0 && !late) {
        sleep((unsigned)wait_s);
        /* Then keep the progress engine turning for a second, so that
         * every rank gets to the connections that arrived while it slept
         * (tcp_hostile.sh counts them as they are dropped), however soon
         * the rest of the job would end. */
        double t0 = MPI_Wtime();
        int flag;
        while (MPI_Wtime() - t0 < 1.0)
            MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int s = 0; s < 5; s++)
        bad |= round_trip(10 + s, sizes[s]);
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0 && !all)
        printf("OK tcp_exchange\n");
    MPI_Finalize();
    return all;
}
