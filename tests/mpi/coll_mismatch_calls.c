/*
 * coll_mismatch_calls: ranks that make different collective calls get an
 * error, not a hang, under MPI_ERRORS_RETURN.
 *
 * Each case runs on a fresh dup of MPI_COMM_WORLD with MPI_ERRORS_RETURN
 * (freed afterwards, whatever state it is left in); then every rank sends
 * its error class to rank 0 over MPI_COMM_WORLD, and rank 0 checks that
 * some rank got the class the case expects. The .test wrapper's timeout
 * catches hangs. Cases (2 ranks or more):
 *  - rank 0 calls MPI_Bcast (root 0), the others MPI_Barrier: MPI_ERR_OTHER;
 *  - rank 0 calls MPI_Allreduce, the others MPI_Reduce (root 0):
 *    MPI_ERR_OTHER;
 *  - MPI_Allreduce where rank 0 passes 1 element and the others 2^18,
 *    counts for which the algorithms differ: MPI_ERR_TRUNCATE;
 *  - MPI_Allgather, rank 0 with blocks of 1 int, the others 2^16:
 *    MPI_ERR_TRUNCATE;
 *  - MPI_Reduce, rank 0 naming root 0 and the others root size - 1:
 *    MPI_ERR_ROOT (on messages, both roots may only receive: they find
 *    out from each other's inquiries, collectives/notice.h);
 *  - MPI_Gather, rank 0 naming root 0 and the others root 4 (size - 1 in
 *    a smaller communicator): MPI_ERR_ROOT (at 8 ranks the roots share the
 *    two bits of root that a tag carries);
 *  - rank 0 calls MPI_Gather (root 0), the others MPI_Bcast (root 0):
 *    rank 0 only receives, and the others wait in shared memory (or for
 *    rank 0's message): MPI_ERR_OTHER;
 *  - rank 0 calls MPI_Scatter (root 0) and returns, the others wait in
 *    MPI_Allreduce: MPI_ERR_OTHER;
 *  - MPI_Gather where the last rank passes a sendcount of 0 and returns
 *    at once, without a message: the root waits for it, asks, and the
 *    answer that the call has completed there fails the root's call,
 *    MPI_ERR_TRUNCATE; the last rank frees the communicator and waits in
 *    the next case's MPI_Comm_dup, so it answers about a freed one;
 *  - MPI_Scatter of 2^16 ints per rank where the last rank passes a
 *    recvcount of 0: the root's large send to it waits, the last rank
 *    drops it when it answers, MPI_ERR_TRUNCATE;
 *  - MPI_Gatherv of 2^16 ints per rank where the root's recvcounts give
 *    the last rank 0: the last rank's large send waits, MPI_ERR_TRUNCATE.
 * Afterwards collectives on MPI_COMM_WORLD still work. With another
 * library only the end runs: these programs are erroneous, and what an
 * implementation does with them is its own choice.
 *
 * Uses only the standard MPI API.
 */
#include "tt.h"

enum {
    C_KIND_BARRIER, C_KIND_REDUCE, C_ALGO_ALLREDUCE, C_ALGO_ALLGATHER, C_ROOT, C_GATHER_ROOT,
    C_GATHER_BCAST, C_SCATTER_ALLREDUCE, C_GATHER_COUNT0, C_SCATTER_COUNT0, C_GATHERV_COUNT0, NC
};
static const char *const names[NC] = {
    "MPI_Bcast on rank 0, MPI_Barrier on the others",
    "MPI_Allreduce on rank 0, MPI_Reduce on the others",
    "MPI_Allreduce, 1 element on rank 0 and 2^18 on the others",
    "MPI_Allgather, blocks of 1 int on rank 0 and 2^16 on the others",
    "MPI_Reduce, root 0 on rank 0 and size - 1 on the others",
    "MPI_Gather, root 0 on rank 0 and 4 (or size - 1) on the others",
    "MPI_Gather on rank 0, MPI_Bcast on the others",
    "MPI_Scatter on rank 0, MPI_Allreduce on the others",
    "MPI_Gather, sendcount 0 on the last rank",
    "MPI_Scatter of 2^16 ints, recvcount 0 on the last rank",
    "MPI_Gatherv of 2^16 ints, recvcounts 0 for the last rank at the root"};
static const int expected[NC] = {MPI_ERR_OTHER, MPI_ERR_OTHER, MPI_ERR_TRUNCATE,
                                  MPI_ERR_TRUNCATE, MPI_ERR_ROOT, MPI_ERR_ROOT,
                                  MPI_ERR_OTHER, MPI_ERR_OTHER, MPI_ERR_TRUNCATE,
                                  MPI_ERR_TRUNCATE, MPI_ERR_TRUNCATE};

/* MPI_Gatherv of 2^16 ints per rank to root 0, whose recvcounts give the
 * last rank none. */
static int gatherv_count0(MPI_Comm comm, int *a, int *b)
{
    int *counts = malloc(sizeof(int) * (size_t)tt_size);
    int *displs = malloc(sizeof(int) * (size_t)tt_size);
    TT_CHECK(counts && displs, "out of memory");
    for (int q = 0; q < tt_size; q++) {
        counts[q] = q == tt_size - 1 ? 0 : 1 << 16;
        displs[q] = q << 16;
    }
    int rc = MPI_Gatherv(a, 1 << 16, MPI_INT, b, counts, displs, MPI_INT, 0, comm);
    free(counts);
    free(displs);
    return rc;
}

static int run(int c, MPI_Comm comm, int *a, int *b)
{
    int zero = tt_rank == 0, last = tt_rank == tt_size - 1;
    switch (c) {
    case C_KIND_BARRIER:
        return zero ? MPI_Bcast(a, 1, MPI_INT, 0, comm) : MPI_Barrier(comm);
    case C_KIND_REDUCE:
        return zero ? MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, comm)
                    : MPI_Reduce(a, b, 4, MPI_INT, MPI_SUM, 0, comm);
    case C_ALGO_ALLREDUCE:
        return MPI_Allreduce(a, b, zero ? 1 : 1 << 18, MPI_INT, MPI_SUM, comm);
    case C_ALGO_ALLGATHER: {
        int n = zero ? 1 : 1 << 16;
        return MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, comm);
    }
    case C_ROOT:
        return MPI_Reduce(a, b, 4, MPI_INT, MPI_SUM, zero ? 0 : tt_size - 1, comm);
    case C_GATHER_ROOT:
        return MPI_Gather(a, 4, MPI_INT, b, 4, MPI_INT, zero ? 0 : tt_size > 4 ? 4 : tt_size - 1,
                          comm);
    case C_GATHER_BCAST:
        return zero ? MPI_Gather(a, 4, MPI_INT, b, 4, MPI_INT, 0, comm)
                    : MPI_Bcast(a, 4, MPI_INT, 0, comm);
    case C_SCATTER_ALLREDUCE:
        return zero ? MPI_Scatter(a, 4, MPI_INT, b, 4, MPI_INT, 0, comm)
                    : MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, comm);
    case C_GATHER_COUNT0:
        return MPI_Gather(a, last ? 0 : 4, MPI_INT, b, 4, MPI_INT, 0, comm);
    case C_SCATTER_COUNT0:
        return MPI_Scatter(a, 1 << 16, MPI_INT, b, last ? 0 : 1 << 16, MPI_INT, 0, comm);
    default:
        return gatherv_count0(comm, a, b);
    }
}

/* Every rank's error class at rank 0, which checks that one is the
 * expected class. */
static void verdict(int c, int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        TT_MPI(MPI_Error_class(rc, &cls));
    if (tt_rank != 0) {
        TT_MPI(MPI_Send(&cls, 1, MPI_INT, 0, 201, MPI_COMM_WORLD));
        return;
    }
    int hits = cls == expected[c], errors = cls != MPI_SUCCESS;
    for (int q = 1; q < tt_size; q++) {
        TT_MPI(MPI_Recv(&cls, 1, MPI_INT, q, 201, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        hits += cls == expected[c];
        errors += cls != MPI_SUCCESS;
    }
    TT_CHECK(hits > 0, "%s: no rank got error class %d (%d ranks got an error)", names[c],
             expected[c], errors);
    if (getenv("COLL_SUITE_VERBOSE"))
        printf("%s: %d ranks got an error, %d of them the class expected\n", names[c], errors,
               hits);
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_mismatch_calls");
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    TT_MPI(MPI_Get_library_version(lib, &len));
    int tern = !strncmp(lib, "Tern", 4);
    if (!tern && tt_rank == 0)
        printf("note: not Tern; the mismatch cases are Tern's promise and do not run\n");
    TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    size_t n = (size_t)tt_size << 18;
    int *a = calloc(n, sizeof(int)), *b = calloc(n, sizeof(int));
    TT_CHECK(a && b, "out of memory");
    for (int c = 0; tern && tt_size > 1 && c < NC; c++) {
        MPI_Comm comm;
        TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
        TT_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
        verdict(c, run(c, comm, a, b));
        TT_MPI(MPI_Comm_free(&comm));
    }
    free(a);
    free(b);
    /* MPI_COMM_WORLD still works. */
    int v = tt_rank + 1, sum = 0;
    TT_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TT_EQ("MPI_Allreduce after the mismatches", tt_size * (tt_size + 1) / 2, sum);
    return tt_finish();
}
