/*
 * pi: the classic first collective program. Rank 0 broadcasts the number of
 * intervals, every rank integrates 4 / (1 + x^2) over its share of them,
 * and MPI_Reduce sums the shares at rank 0. Also splits the ranks by parity
 * and checks with MPI_Allreduce on the new communicators.
 *
 * Usage: mpirun -np N pi [intervals]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size;
    long n = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        n = argc > 1 ? atol(argv[1]) : 10000000;
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);

    double t = MPI_Wtime(), h = 1.0 / (double)n, part = 0, pi = 0;
    for (long i = rank; i < n; i += size) {
        double x = h * ((double)i + 0.5);
        part += 4.0 / (1.0 + x * x);
    }
    part *= h;
    MPI_Reduce(&part, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);

    /* The even and the odd ranks each add up their own shares. */
    MPI_Comm half;
    double half_sum = 0, both = 0;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Allreduce(&part, &half_sum, 1, MPI_DOUBLE, MPI_SUM, half);
    int half_rank;
    MPI_Comm_rank(half, &half_rank);
    double mine = half_rank == 0 ? half_sum : 0;
    MPI_Reduce(&mine, &both, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&half);

    if (rank == 0) {
        printf("pi is about %.16f, error %.2e, %ld intervals on %d ranks, %.3f s\n",
               pi, fabs(pi - M_PI), n, size, MPI_Wtime() - t);
        printf("sum over the even and odd halves: %.16f (%s)\n", both,
               fabs(both - pi) < 1e-12 ? "agrees" : "DISAGREES");
    }
    MPI_Finalize();
    return 0;
}
