/*
 * crash: a rank dies by a signal; the job must end.
 *
 * After a handshake (every rank exchanges a message with the last rank, so
 * all connections are up), rank size-1 waits a moment and raises SIGSEGV
 * while every other rank blocks in MPI_Recv for a message from it that
 * never comes. The launcher must notice, end the other ranks and exit
 * non-zero (the driver runs it with --expect-fail and then checks that no
 * rank process and no shared memory segment is left). Core dumps are turned
 * off so the test leaves no core file.
 */
#include "tt.h"
#include <signal.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    tt_init(&argc, &argv, "crash");
    int last = tt_size - 1, v = 1;

    if (tt_rank == last) {
        for (int r = 0; r < last; r++)
            TT_MPI(MPI_Recv(&v, 1, MPI_INT, r, 1, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
        for (int r = 0; r < last; r++)
            TT_MPI(MPI_Send(&v, 1, MPI_INT, r, 1, MPI_COMM_WORLD));
        tt_sleep_ms(300); /* let the others settle into MPI_Recv */
        fprintf(stderr, "crash: rank %d raising SIGSEGV\n", tt_rank);
        fflush(stderr);
        raise(SIGSEGV);
        fprintf(stderr, "FAIL crash: raise(SIGSEGV) returned\n");
        return 0;
    }
    TT_MPI(MPI_Send(&v, 1, MPI_INT, last, 1, MPI_COMM_WORLD));
    TT_MPI(MPI_Recv(&v, 1, MPI_INT, last, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    /* Never satisfied: the last rank is gone. */
    MPI_Recv(&v, 1, MPI_INT, last, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "FAIL crash rank %d/%d: MPI_Recv from the dead rank "
            "returned\n", tt_rank, tt_size);
    return 0;
}
