/*
 * coll_leftover: collective calls that disagree although no rank waits,
 * reported at MPI_Finalize (collectives/leftovers.c).
 *
 *   roots   rank 0 calls MPI_Bcast with root 0, every other rank with root
 *           1: ranks 0 and 1 each take themselves for the root, only send
 *           and return. The other ranks start their MPI_Bcast only once
 *           both have returned (a message from each says so), so that no
 *           rank waits in the call: a rank that waited might see the
 *           other root there and fail the call instead, which is right
 *           too, but not what this mode tests. Then a few correct calls,
 *           whose results are checked: the disagreement must disturb
 *           nothing after it.
 *   early   the same disagreement as roots, then 40 correct MPI_Bcast
 *           calls of 5 ints: through shared memory the disagreement is
 *           older than the last 32 calls, whose inputs MPI_Finalize
 *           compares, and only the digests of the calls differ.
 *   extra   three correct MPI_Bcast calls, then rank 0 makes one more, as
 *           its root, that no other rank makes.
 *   none    a correct program whose root runs far ahead: 300 MPI_Bcast
 *           calls of one int while the others start 100 ms late, then
 *           calls with the other ranks as roots; every result is checked.
 *
 * Every call returns MPI_SUCCESS; the .test checks what MPI_Finalize says
 * (nothing, for "none").
 *
 * Uses only the standard MPI API.
 */
#include "tt.h"

#define AHEAD 300

static void check_allreduce(int k)
{
    int x = tt_rank + k, sum = -1;
    TT_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    TT_EQ("MPI_Allreduce sum", tt_size * (tt_size - 1) / 2 + tt_size * k, sum);
}

static void bcast_from(int root, int value)
{
    int v = tt_rank == root ? value : -1;
    TT_MPI(MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD));
    TT_EQ("MPI_Bcast value", value, v);
}

/* The MPI_Bcast of modes roots and early: ranks 0 and 1 each as its root,
 * the others after both have returned from it. A correct call comes first:
 * the first collective call on a communicator waits for every rank (the
 * ranks of a host agree there on a shared-memory slot for its calls). */
static void roots_returned_first(int *v)
{
    TT_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (tt_rank > 1) {
        for (int root = 0; root < 2; root++)
            TT_MPI(MPI_Recv(NULL, 0, MPI_INT, root, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    TT_MPI(MPI_Bcast(v, 1, MPI_INT, tt_rank == 0 ? 0 : 1, MPI_COMM_WORLD));
    for (int q = 2; tt_rank < 2 && q < tt_size; q++)
        TT_MPI(MPI_Send(NULL, 0, MPI_INT, q, 0, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    tt_init(&argc, &argv, "coll_leftover");
    const char *mode = argc > 1 ? argv[1] : "none";
    if (tt_size < 2 && strcmp(mode, "none") != 0)
        return tt_finish();
    if (!strcmp(mode, "roots") || !strcmp(mode, "early")) {
        int v = tt_rank;
        roots_returned_first(&v);
        for (int k = 0; k < 5; k++) {
            check_allreduce(k);
            bcast_from(0, 7 + k);
        }
        for (int k = 0; !strcmp(mode, "early") && k < 40; k++) {
            int w[5] = { k, k, k, k, k };
            if (tt_rank != 0)
                memset(w, 0, sizeof w);
            TT_MPI(MPI_Bcast(w, 5, MPI_INT, 0, MPI_COMM_WORLD));
            TT_EQ("MPI_Bcast of 5 ints", k, w[4]);
        }
    } else if (!strcmp(mode, "extra")) {
        for (int k = 0; k < 3; k++)
            bcast_from(0, 10 + k);
        if (tt_rank == 0) {
            int v = 99;
            TT_MPI(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
        }
    } else if (!strcmp(mode, "none")) {
        if (tt_rank != 0)
            tt_sleep_ms(100);
        for (int k = 0; k < AHEAD; k++)
            bcast_from(0, k);
        for (int r = 0; r < tt_size; r++) {
            bcast_from(r, 1000 + r);
            check_allreduce(r);
        }
    } else {
        TT_FAIL("unknown mode '%s' (roots, early, extra or none)", mode);
    }
    return tt_finish();
}
