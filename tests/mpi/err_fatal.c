/*
 * err_fatal: an argument error under the default error handler ends the job.
 *
 * Rank 1 (rank 0 in a one-rank job) calls MPI_Send with count -1 on
 * MPI_COMM_WORLD, whose handler is MPI_ERRORS_ARE_FATAL by default; the
 * other ranks wait in MPI_Recv for a message from it that never comes. The
 * job must end, with a non-zero exit status and an error message (the
 * driver runs it with --expect-fail). If MPI_Send returns instead, the
 * program says so, releases the others and every rank exits 0, so the
 * driver reports the failure.
 */
#include "tt.h"

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "err_fatal");
    int culprit = tt_size > 1 ? 1 : 0, buf[2] = {0, 0};
    MPI_Errhandler eh;
    TT_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    TT_CHECK(eh == MPI_ERRORS_ARE_FATAL,
             "the default handler of MPI_COMM_WORLD is not MPI_ERRORS_ARE_FATAL");
    TT_MPI(MPI_Errhandler_free(&eh));
    tt_sync(); /* everyone is up before the error */

    if (tt_rank == culprit) {
        int rc = MPI_Send(buf, -1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        fprintf(stderr, "FAIL err_fatal rank %d/%d: MPI_Send(count -1) under "
                "MPI_ERRORS_ARE_FATAL returned %d instead of ending the job\n",
                tt_rank, tt_size, rc);
        for (int r = 0; r < tt_size; r++)
            if (r != culprit)
                MPI_Send(buf, 1, MPI_INT, r, 2, MPI_COMM_WORLD);
    } else {
        MPI_Recv(buf, 1, MPI_INT, culprit, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
