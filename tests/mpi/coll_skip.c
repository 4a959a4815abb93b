/*
 * coll_skip: a rank that skips a collective call and goes on to
 * MPI_Finalize does not leave the ranks in that call waiting for ever.
 *
 * Rank 1 does not make the call that argv[1] names, which the others make
 * under MPI_ERRORS_RETURN; it goes straight to MPI_Finalize.
 * - gather (the default): MPI_Gather, root 0, one int per rank. The root
 *   waits for rank 1's block, asks rank 1 which call it is in
 *   (collectives/notice.h), and rank 1, in MPI_Finalize, answers that it
 *   will never make that call: the root's MPI_Gather fails with
 *   MPI_ERR_OTHER.
 * - barrier, allreduce: MPI_Barrier, or MPI_Allreduce of one int, where
 *   every rank waits for rank 1. On one host these wait in shared memory,
 *   where rank 1's MPI_Finalize publishes that it makes no more
 *   operations (collectives/shm_check.c): every other rank's call fails
 *   with MPI_ERR_OTHER.
 * - free: MPI_Barrier on a duplicate of MPI_COMM_WORLD that rank 1 has
 *   freed; rank 1 tells the others in the same two ways that it makes no
 *   more calls there.
 * The .test wrapper's timeout catches a hang, and the expected output
 * checks the lines. With 2 ranks or more; with another library only the
 * end runs (the program is erroneous, and what an implementation does
 * with it is its own choice).
 *
 * Uses only the standard MPI API.
 */
#include "tt.h"

/* Makes the call that `what` names on comm; its return code. */
static int call(const char *what, MPI_Comm comm)
{
    int mine = tt_rank, sum = 0;
    if (!strcmp(what, "barrier") || !strcmp(what, "free"))
        return MPI_Barrier(comm);
    if (!strcmp(what, "allreduce"))
        return MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm);
    int *all = malloc(sizeof(int) * (size_t)tt_size);
    TT_CHECK(all != NULL, "out of memory");
    int rc = MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, comm);
    free(all);
    return rc;
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_skip");
    const char *what = argc > 1 ? argv[1] : "gather";
    TT_CHECK(!strcmp(what, "gather") || !strcmp(what, "barrier") ||
             !strcmp(what, "allreduce") || !strcmp(what, "free"),
             "unknown call '%s': give gather, barrier, allreduce or free", what);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    TT_MPI(MPI_Get_library_version(lib, &len));
    int tern = !strncmp(lib, "Tern", 4);
    MPI_Comm comm = MPI_COMM_WORLD;
    if (!strcmp(what, "free"))
        TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    TT_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    /* Collectives that every rank makes: the first one sets up the
     * communicator's shared memory, the others run in it. */
    for (int i = 0; i < 3; i++)
        TT_MPI(MPI_Barrier(comm));
    if (tern && tt_size > 1 && tt_rank != 1) {
        int rc = call(what, comm), cls = 0;
        if (rc != MPI_SUCCESS)
            TT_MPI(MPI_Error_class(rc, &cls));
        if (tt_rank == 0 || strcmp(what, "gather"))
            TT_CHECK(cls == MPI_ERR_OTHER, "%s without rank 1 returned class %d, expected "
                     "MPI_ERR_OTHER (%d)", what, cls, MPI_ERR_OTHER);
    }
    if (comm != MPI_COMM_WORLD)
        TT_MPI(MPI_Comm_free(&comm));
    return tt_finish();
}
