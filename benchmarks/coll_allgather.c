/*
 * MPI_Allgather latency, in the style of OSU's osu_allgather.
 *
 * A size is the block each rank contributes, in bytes (MPI_BYTE); every
 * rank receives N blocks.  Reported: the average, minimum and maximum over
 * the ranks of each rank's average time per call, in microseconds.
 * --verify gives every rank's block its own pattern and checks all N blocks
 * on every rank.  Standard MPI only.
 */
#include "coll_util.h"

static int run(struct coll *c, size_t size, long it)
{
    (void)it;
    return MPI_Allgather(c->sbuf, (int)size, MPI_BYTE, c->rbuf, (int)size, MPI_BYTE,
                         MPI_COMM_WORLD);
}

static void fill(struct coll *c, size_t size, long it)
{
    coll_fill_bytes(c->sbuf, size, coll_seed(size, it, c->rank, -1));
}

static void check(struct coll *c, size_t size, long it)
{
    for (int r = 0; r < c->nranks; r++)
        coll_check_bytes(c, c->rbuf + (size_t)r * size, size, coll_seed(size, it, r, -1),
                         size, it, r == c->rank ? "own block" : "block of another rank");
    coll_check_guard(c, c->rbuf, size * (size_t)c->nranks, size, it, "gathered blocks");
}

static const struct coll_info info = {
    .name = "allgather",
    .title = "Tern Allgather Latency Test",
    .call = "MPI_Allgather",
    .detail = "MPI_BYTE; size = the block of one rank",
    .sizes = "8,64K",
    .elem = 1,
    .sblocks = COLL_ONE,
    .rblocks = COLL_PER_RANK,
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
