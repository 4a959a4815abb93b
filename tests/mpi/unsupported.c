/*
 * unsupported: a function Tern does not implement yet still links, and under
 * MPI_ERRORS_RETURN it returns MPI_ERR_UNSUPPORTED_OPERATION, whose error
 * string says so, instead of crashing or doing nothing. Uses functions that
 * later issues will implement, so the test names them explicitly: when one
 * is implemented, replace it here with one that still is not.
 */
#include "tt.h"

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "unsupported");
    /* With "fatal", keep the default handler: the first call ends the job. */
    if (argc < 2 || strcmp(argv[1], "fatal") != 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    }

    MPI_Win win;
    int value = 0;
    int rc = MPI_Win_create(&value, sizeof value, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    TT_EQ("class of MPI_Win_create", MPI_ERR_UNSUPPORTED_OPERATION, cls);

    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    TT_CHECK(len > 0 && strstr(text, "MPI_ERR_UNSUPPORTED_OPERATION") != NULL,
             "MPI_Error_string says \"%s\"", text);

    MPI_File fh;
    rc = MPI_File_open(MPI_COMM_SELF, "/nonexistent", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_Error_class(rc, &cls);
    TT_EQ("class of MPI_File_open", MPI_ERR_UNSUPPORTED_OPERATION, cls);
    return tt_finish();
}
