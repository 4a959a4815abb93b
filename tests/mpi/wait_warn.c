/*
 * wait_warn: a blocking call that waits too long says what it waits for.
 *
 * Rank 0 makes a call that the other ranks never match: with argument
 * "allreduce" an MPI_Allreduce, "barrier" an MPI_Barrier, "bcast" an
 * MPI_Bcast rooted at rank 1, "ibcast" the same as MPI_Ibcast and
 * MPI_Wait, "recv" an MPI_Recv from rank 1. With
 * "behind", every rank but the last makes an MPI_Bcast from rank 0 and
 * then an MPI_Allreduce, so rank 0 waits for a rank that has not even
 * finished the collective before. The others sleep for three seconds and
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
    if (!strcmp(what, "behind") && tt_rank < tt_size - 1) {
        MPI_Bcast(x, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        TT_FAIL("MPI_Allreduce returned although rank %d did not take part", tt_size - 1);
    }
    if (tt_rank == 0) {
        if (!strcmp(what, "allreduce"))
            MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else if (!strcmp(what, "barrier"))
            MPI_Barrier(MPI_COMM_WORLD);
        else if (!strcmp(what, "bcast"))
            MPI_Bcast(x, 4, MPI_DOUBLE, 1, MPI_COMM_WORLD);
        else if (!strcmp(what, "ibcast")) {
            MPI_Request q;
            TT_MPI(MPI_Ibcast(x, 4, MPI_DOUBLE, 1, MPI_COMM_WORLD, &q));
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        } else if (!strcmp(what, "recv"))
            MPI_Recv(x, 4, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            TT_FAIL("unknown case '%s' (allreduce, barrier, bcast, ibcast, recv or behind)", what);
        TT_FAIL("%s returned although no other rank took part", what);
    }
    tt_sleep_ms(3000);
    MPI_Abort(MPI_COMM_WORLD, 7);
    return 1;
}
