/*
 * Startup benchmark: MPI_Init, print rank and size, MPI_Finalize.
 * compare.sh times `mpirun -np 2 ./hello` wall-clock, which is dominated by
 * launching the ranks and wiring them up.  Standard MPI only.
 */
#include <stdio.h>

#include <mpi.h>

int main(int argc, char **argv)
{
    char host[MPI_MAX_PROCESSOR_NAME];
    int rank, size, len;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    printf("Hello from rank %d of %d on %s\n", rank, size, host);
    MPI_Finalize();
    return 0;
}
