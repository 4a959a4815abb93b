/*
 * abort: MPI_Abort ends the whole job with the given error code.
 *
 * After a handshake, rank 0 calls MPI_Abort(MPI_COMM_WORLD, 7) while every
 * other rank blocks in MPI_Recv for a message from rank 0 that never comes.
 * The job must end with exit status 7 (the driver runs it with
 * --expect-exit 7) and leave nothing behind.
 */
#include "tt.h"

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "abort");
    int v = 1;
    if (tt_rank == 0) {
        for (int r = 1; r < tt_size; r++)
            TT_MPI(MPI_Recv(&v, 1, MPI_INT, r, 1, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        for (int r = 1; r < tt_size; r++)
            TT_MPI(MPI_Send(&v, 1, MPI_INT, r, 1, MPI_COMM_WORLD));
        tt_sleep_ms(300); /* let the others settle into MPI_Recv */
        MPI_Abort(MPI_COMM_WORLD, 7);
        fprintf(stderr, "FAIL abort: MPI_Abort returned\n");
        return 0;
    }
    TT_MPI(MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD));
    TT_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "FAIL abort rank %d/%d: MPI_Recv from rank 0 returned\n",
            tt_rank, tt_size);
    return 0;
}
