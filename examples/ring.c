/*
 * A token goes around the ring of ranks a number of times; each rank adds
 * its rank to it, so rank 0 can check the total at the end.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, laps = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long token = 0;
    double t0 = MPI_Wtime();
    for (int lap = 0; lap < laps; lap++) {
        if (rank == 0) {
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0) {
        long expect = (long)laps * size * (size - 1) / 2;
        double us = (MPI_Wtime() - t0) * 1e6 / ((double)laps * size);
        printf("ring of %d ranks, %d laps: token %ld (expected %ld), %.2f us per hop\n",
               size, laps, token, expect, us);
        if (token != expect)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
