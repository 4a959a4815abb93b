/*
 * MPI_Barrier latency, in the style of OSU's osu_barrier.
 *
 * No message size: one row, size 0.  Reported: the average, minimum and
 * maximum over the ranks of each rank's average time per call, in
 * microseconds.
 *
 * --verify checks that the barrier really waits.  In iteration i, rank
 * i % N arrives late: for HOLD seconds it keeps probing for a message with
 * the tag LEFT_TAG, then enters the barrier.  Every other rank sends it such
 * a message as soon as it leaves the barrier.  With a correct barrier no
 * rank can leave before the late rank entered, so the late rank can never
 * see one of those messages while it holds; if it does, the barrier let a
 * rank through early.  After the barrier the late rank receives all N - 1
 * messages.  Standard MPI only.
 */
#include "coll_util.h"

#define LEFT_TAG 7301
#define HOLD 500e-6

/* The late rank of a --verify iteration: hold, watching for early leavers. */
static int late_rank(struct coll *c, long it)
{
    double start = MPI_Wtime();
    MPI_Status st;
    int flag = 0, rc;
    long msg;

    do {
        coll_ok(c, MPI_Iprobe(MPI_ANY_SOURCE, LEFT_TAG, MPI_COMM_WORLD, &flag, &st),
                "MPI_Iprobe");
    } while (!flag && MPI_Wtime() - start < HOLD);
    if (flag) {
        coll_error(c, 0, it, "rank %d left the barrier before this rank entered it",
                   st.MPI_SOURCE);
        c->errors++;
    }
    c->checked++;
    rc = MPI_Barrier(MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < c->nranks - 1; k++) {
        coll_ok(c, MPI_Recv(&msg, 1, MPI_LONG, MPI_ANY_SOURCE, LEFT_TAG, MPI_COMM_WORLD,
                            &st), "MPI_Recv");
        if (msg != it) {
            coll_error(c, 0, it, "rank %d reported leaving iteration %ld", st.MPI_SOURCE,
                       msg);
            c->errors++;
        }
    }
    return MPI_SUCCESS;
}

static int run(struct coll *c, size_t size, long it)
{
    int rc;

    (void)size;
    if (!c->verify)
        return MPI_Barrier(MPI_COMM_WORLD);
    if (c->rank == c->root)           /* the root rotates under --verify */
        return late_rank(c, it);
    rc = MPI_Barrier(MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS)
        coll_ok(c, MPI_Send(&it, 1, MPI_LONG, c->root, LEFT_TAG, MPI_COMM_WORLD),
                "MPI_Send");
    return rc;
}

static const struct coll_info info = {
    .name = "barrier",
    .title = "Tern Barrier Latency Test",
    .call = "MPI_Barrier",
    .detail = NULL,
    .sizes = NULL,
    .elem = 1,
    .sblocks = COLL_NONE,
    .rblocks = COLL_NONE,
    .iters = 1000,
    .warmup = 100,
    .large = 0,
    .min_iters = 20,
    .run = run,
    .fill = NULL,
    .check = NULL,
};

int main(int argc, char **argv)
{
    return coll_main(&info, argc, argv);
}
