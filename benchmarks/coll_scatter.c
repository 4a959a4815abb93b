/*
 * MPI_Scatter latency, in the style of OSU's osu_scatter.
 *
 * A size is the block each rank receives, in bytes (MPI_BYTE); root 0 sends
 * N blocks (under --verify the root rotates over the ranks).  Reported: the
 * average, minimum and maximum over the ranks of each rank's average time
 * per call, in microseconds.  --verify gives the block for every rank its
 * own pattern and checks it on every rank.  Standard MPI only.
 */
#include "coll_util.h"

static int run(struct coll *c, size_t size, long it)
{
    (void)it;
    return MPI_Scatter(c->sbuf, (int)size, MPI_BYTE, c->rbuf, (int)size, MPI_BYTE,
                       c->root, MPI_COMM_WORLD);
}

static void fill(struct coll *c, size_t size, long it)
{
    if (c->rank != c->root)
        return;
    for (int to = 0; to < c->nranks; to++)
        coll_fill_bytes(c->sbuf + (size_t)to * size, size, coll_seed(size, it, c->root, to));
}

static void check(struct coll *c, size_t size, long it)
{
    coll_check_bytes(c, c->rbuf, size, coll_seed(size, it, c->root, c->rank), size, it,
                     "block from the root");
    coll_check_guard(c, c->rbuf, size, size, it, "block from the root");
}

static const struct coll_info info = {
    .name = "scatter",
    .title = "Tern Scatter Latency Test",
    .call = "MPI_Scatter",
    .detail = "MPI_BYTE, root 0; size = the block of one rank",
    .sizes = "8,64K",
    .elem = 1,
    .sblocks = COLL_PER_RANK,
    .rblocks = COLL_ONE,
    .iters = 1000,
    .warmup = 100,
    .large = 8192,
    .min_iters = 20,
    .run = run,
    .fill = fill,
    .check = check,
};

int main(int argc, char **argv)
{
    return coll_main(&info, argc, argv);
}
