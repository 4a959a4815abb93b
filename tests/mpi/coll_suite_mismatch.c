/*
 * coll_suite_mismatch: ranks that pass mismatched counts to a collective
 * get an error, not a hang or a crash, under MPI_ERRORS_RETURN.
 *
 * Each case runs on a fresh dup of MPI_COMM_WORLD with MPI_ERRORS_RETURN
 * (the dup is freed afterwards, whatever state it is left in), then every
 * rank reports its error class to rank 0 over point-to-point messages on
 * MPI_COMM_WORLD. A case passes when at least one rank got an error (the
 * standard's MPI_ERR_TRUNCATE or another class) and none crashed; the .test
 * wrapper's timeout catches hangs. Cases, at roots 0 and p-1, with small
 * (eager) and large (1 MiB) messages:
 *  - MPI_Bcast and MPI_Ibcast + MPI_Wait: the receivers pass half the
 *    root's count;
 *  - MPI_Gather: the non-roots send twice what the root expects per rank;
 *  - MPI_Scatter: the root sends twice what the receivers expect;
 *  - MPI_Reduce: the non-roots pass twice the root's count, and then half
 *    of it (the root then gets shorter messages than it expects, which
 *    must not leave the rest of its result as it was);
 *  - MPI_Allreduce: rank 0 passes half the others' count.
 * Afterwards collectives on MPI_COMM_WORLD still work. Needs 2 ranks or
 * more to have a mismatch; on one rank it only checks that. The cases run
 * with Tern only (other libraries may hang on such erroneous programs).
 *
 * Uses only the standard MPI API.
 */
#include "tt.h"

enum { C_BCAST, C_IBCAST, C_GATHER, C_SCATTER, C_REDUCE, C_REDUCE_SHORT, C_ALLREDUCE, NC };
static const char *const names[NC] = {"MPI_Bcast", "MPI_Ibcast + MPI_Wait", "MPI_Gather",
                                      "MPI_Scatter", "MPI_Reduce",
                                      "MPI_Reduce (the others pass half the root's count)",
                                      "MPI_Allreduce (rank 0 passes half the others' count)"};

/* Runs case c on comm: n is the root's count, the others pass other ones. */
static int run(int c, MPI_Comm comm, size_t n, int root)
{
    int me = tt_rank, rc;
    int isroot = me == root;
    /* Room for what each side passes; the contents do not matter. */
    size_t big = (c == C_GATHER || c == C_SCATTER) && isroot ? 2 * n * (size_t)tt_size : 2 * n;
    int *a = calloc(big, sizeof(int)), *b = calloc(big, sizeof(int));
    TT_CHECK(a && b, "out of memory");
    MPI_Request req;
    switch (c) {
    case C_BCAST: rc = MPI_Bcast(a, (int)(isroot ? n : n / 2), MPI_INT, root, comm); break;
    case C_IBCAST:
        rc = MPI_Ibcast(a, (int)(isroot ? n : n / 2), MPI_INT, root, comm, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
    case C_GATHER:
        rc = MPI_Gather(a, (int)(isroot ? n : 2 * n), MPI_INT, b, (int)n, MPI_INT, root, comm);
        break;
    case C_SCATTER:
        rc = MPI_Scatter(a, (int)(2 * n), MPI_INT, b, (int)(isroot ? 2 * n : n), MPI_INT, root,
                         comm);
        break;
    case C_REDUCE:
        rc = MPI_Reduce(a, b, (int)(isroot ? n : 2 * n), MPI_INT, MPI_SUM, root, comm);
        break;
    case C_REDUCE_SHORT:
        rc = MPI_Reduce(a, b, (int)(isroot ? n : n / 2), MPI_INT, MPI_SUM, root, comm);
        break;
    default:
        rc = MPI_Allreduce(a, b, (int)(me == 0 ? n / 2 : n), MPI_INT, MPI_SUM, comm);
        break;
    }
    free(a);
    free(b);
    return rc;
}

/* Every rank's error class at rank 0, which checks that one is an error. */
static void verdict(int c, size_t n, int root, int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        TT_MPI(MPI_Error_class(rc, &cls));
    if (tt_rank != 0) {
        TT_MPI(MPI_Send(&cls, 1, MPI_INT, 0, 200, MPI_COMM_WORLD));
        return;
    }
    int errors = cls != MPI_SUCCESS, truncs = cls == MPI_ERR_TRUNCATE;
    for (int q = 1; q < tt_size; q++) {
        TT_MPI(MPI_Recv(&cls, 1, MPI_INT, q, 200, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        errors += cls != MPI_SUCCESS;
        truncs += cls == MPI_ERR_TRUNCATE;
    }
    TT_CHECK(errors > 0, "%s with mismatched counts (root %d, root's count %zu): no rank "
                         "reported an error",
             names[c], root, n);
    if (getenv("COLL_SUITE_VERBOSE"))
        printf("%s, root %d, count %zu: %d ranks reported an error, %d of them "
               "MPI_ERR_TRUNCATE\n",
               names[c], root, n, errors, truncs);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_suite_mismatch");
    static const size_t counts[] = {100, 1 << 18};
    /* The standard calls these programs erroneous, so what they do is the
     * library's choice: Tern promises an error; Open MPI 4 hangs in the
     * first case on 3 ranks. With another library only the end runs. */
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    TT_MPI(MPI_Get_library_version(lib, &len));
    int tern = !strncmp(lib, "Tern", 4);
    if (!tern && tt_rank == 0)
        printf("note: not Tern; the mismatch cases are Tern's promise and do not run\n");
    /* Open MPI raises a failed nonblocking collective's error at MPI_Wait
     * on MPI_COMM_WORLD's handler; TT_MPI checks every return anyway. */
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (tt_size > 1 && tern)
        for (int c = 0; c < NC; c++)
            for (int ci = 0; ci < 2; ci++)
                for (int ri = 0; ri < 2; ri++) {
                    int root = ri ? tt_size - 1 : 0;
                    MPI_Comm comm;
                    TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
                    TT_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
                    int rc = run(c, comm, counts[ci], root);
                    verdict(c, counts[ci], root, rc);
                    TT_MPI(MPI_Comm_free(&comm));
                }
    /* MPI_COMM_WORLD still works. */
    int v = tt_rank + 1, sum = 0;
    TT_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TT_EQ("MPI_Allreduce after the mismatches", tt_size * (tt_size + 1) / 2, sum);
    return tt_finish();
}
