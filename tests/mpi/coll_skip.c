/*
 * coll_skip: a rank that skips a collective call and goes on to
 * MPI_Finalize does not leave the ranks in that call waiting for ever.
 *
 * Rank 1 does not call MPI_Gather (root 0, one int per rank), which the
 * others call under MPI_ERRORS_RETURN; it goes straight to MPI_Finalize.
 * The root waits for rank 1's block, asks rank 1 which call it is in
 * (collectives/notice.h), and rank 1, in MPI_Finalize, answers that it
 * will never make that call: the root's MPI_Gather fails with
 * MPI_ERR_OTHER. The .test wrapper's timeout catches a hang, and the
 * expected output checks the root's line. With 2 ranks or more; with
 * another library only the end runs (the program is erroneous, and what
 * an implementation does with it is its own choice).
 *
 * Uses only the standard MPI API.
 */
#include "tt.h"

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_skip");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    TT_MPI(MPI_Get_library_version(lib, &len));
    int tern = !strncmp(lib, "Tern", 4);
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    /* A first collective that every rank makes. */
    TT_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (tern && tt_size > 1 && tt_rank != 1) {
        int mine = tt_rank, *all = malloc(sizeof(int) * (size_t)tt_size);
        TT_CHECK(all != NULL, "out of memory");
        int rc = MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD), cls = 0;
        if (rc != MPI_SUCCESS)
            TT_MPI(MPI_Error_class(rc, &cls));
        if (tt_rank == 0)
            TT_CHECK(cls == MPI_ERR_OTHER, "MPI_Gather without rank 1 returned class %d, "
                     "expected MPI_ERR_OTHER (%d)", cls, MPI_ERR_OTHER);
        free(all);
    }
    return tt_finish();
}
