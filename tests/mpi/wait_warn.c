/*
 * wait_warn: a blocking call that waits too long says what it waits for.
 *
 * Rank 0 makes a call that the other ranks never match: with argument
 * "allreduce" an MPI_Allreduce, "bcast" an MPI_Bcast rooted at rank 1,
 * "recv" an MPI_Recv from rank 1. The others sleep for three seconds and
 * then end the job with MPI_Abort(MPI_COMM_WORLD, 7). The driver runs it
 * with TERN_WAIT_WARN_S=1 and checks that rank 0 printed, within that
 * time, the line that names its call, the communicator and what it waits
 * for (wait_warn.test).
 *
 * Uses only the standard MPI API; the message itself is Tern's.
 */
#include "tt.h"

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "wait_warn");
    const char *what = argc > 1 ? argv[1] : "";
    double x[4] = { 1, 2, 3, 4 };
    /* Every rank is past MPI_Init before rank 0 starts waiting. */
    TT_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (tt_rank == 0) {
        if (!strcmp(what, "allreduce"))
            MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else if (!strcmp(what, "bcast"))
            MPI_Bcast(x, 4, MPI_DOUBLE, 1, MPI_COMM_WORLD);
        else if (!strcmp(what, "recv"))
            MPI_Recv(x, 4, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            TT_FAIL("unknown case '%s' (allreduce, bcast or recv)", what);
        TT_FAIL("%s returned although no other rank took part", what);
    }
    tt_sleep_ms(3000);
    MPI_Abort(MPI_COMM_WORLD, 7);
    return 1;
}
