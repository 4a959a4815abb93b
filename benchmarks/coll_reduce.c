/*
 * MPI_Reduce latency, in the style of OSU's osu_reduce.
 *
 * A size is the whole vector in bytes: size / 4 MPI_FLOAT elements, summed
 * (MPI_SUM) into root 0's receive buffer (under --verify the root rotates
 * over the ranks).  Reported: the average, minimum and maximum over the
 * ranks of each rank's average time per call, in microseconds.  --verify
 * checks every element of the root's result against sums computed locally.
 * Standard MPI only.
 */
#include "coll_util.h"

static int run(struct coll *c, size_t size, long it)
{
    (void)it;
    return MPI_Reduce(c->sbuf, c->rbuf, (int)(size / sizeof(float)), MPI_FLOAT,
                      MPI_SUM, c->root, MPI_COMM_WORLD);
}

static void fill(struct coll *c, size_t size, long it)
{
    coll_fill_values((float *)c->sbuf, size / sizeof(float), size, it, c->rank, 0);
}

static void check(struct coll *c, size_t size, long it)
{
    if (c->rank != c->root)
        return;
    coll_check_sums(c, (const float *)c->rbuf, size / sizeof(float), size, it, 0,
                    "result at the root");
    coll_check_guard(c, c->rbuf, size, size, it, "result at the root");
}

static const struct coll_info info = {
    .name = "reduce",
    .title = "Tern Reduce Latency Test",
    .call = "MPI_Reduce",
    .detail = "MPI_FLOAT, MPI_SUM, root 0; size = the whole vector",
    .sizes = "8,64K,1M",
    .elem = sizeof(float),
    .sblocks = COLL_ONE,
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
