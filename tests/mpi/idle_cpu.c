/*
 * A rank blocked in MPI_Recv for seconds must use almost no CPU: rank 1
 * sleeps 2 s before it sends, and rank 0 measures the CPU time (user +
 * system, getrusage) that its MPI_Recv used. It fails above 25% of the wall
 * time. Run on every transport by idle_cpu.test. Standard MPI only.
 */
#include <mpi.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    int rank, size, v = 0, fail = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (size >= 2 && rank == 1) {
        sleep(2);
        v = 42;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else if (size >= 2 && rank == 0) {
        double c0 = cpu_seconds(), t0 = MPI_Wtime();
        MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double cpu = cpu_seconds() - c0, wall = MPI_Wtime() - t0;
        printf("blocked %.2f s in MPI_Recv, used %.3f s of CPU\n", wall, cpu);
        fail = v != 42 || wall < 1.5 || cpu > 0.25 * wall;
    }
    MPI_Bcast(&fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0 && !fail)
        printf("OK idle_cpu\n");
    MPI_Finalize();
    return fail;
}
