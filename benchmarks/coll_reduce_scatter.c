/*
 * MPI_Reduce_scatter_block latency, in the style of OSU's osu_reduce_scatter.
 *
 * A size is the block each rank receives, in bytes: size / 4 MPI_FLOAT
 * elements.  Each rank contributes a vector of N blocks; block r of the sum
 * (MPI_SUM) over the ranks goes to rank r.  (OSU's size is the whole vector;
 * ours is the block, the count MPI_Reduce_scatter_block takes.)  Reported:
 * the average, minimum and maximum over the ranks of each rank's average time
 * per call, in microseconds.  --verify checks every element of every rank's
 * block against sums computed locally.  Standard MPI only.
 */
#include "coll_util.h"

static int run(struct coll *c, size_t size, long it)
{
    (void)it;
    return MPI_Reduce_scatter_block(c->sbuf, c->rbuf, (int)(size / sizeof(float)),
                                    MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static void fill(struct coll *c, size_t size, long it)
{
    coll_fill_values((float *)c->sbuf, size / sizeof(float) * (size_t)c->nranks, size,
                     it, c->rank, 0);
}

static void check(struct coll *c, size_t size, long it)
{
    size_t count = size / sizeof(float);

    coll_check_sums(c, (const float *)c->rbuf, count, size, it,
                    count * (size_t)c->rank, "this rank's block");
    coll_check_guard(c, c->rbuf, size, size, it, "this rank's block");
}

static const struct coll_info info = {
    .name = "reduce_scatter",
    .title = "Tern Reduce_scatter_block Latency Test",
    .call = "MPI_Reduce_scatter_block",
    .detail = "MPI_FLOAT, MPI_SUM; size = the block of one rank",
    .sizes = "8,64K",
    .elem = sizeof(float),
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
