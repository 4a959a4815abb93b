/*
 * MPI_Scan latency, in the style of the other collective benchmarks (OSU
 * has no scan test).
 *
 * A size is the vector each rank contributes, in bytes: size / 4
 * MPI_FLOAT elements, summed (MPI_SUM) over ranks 0 .. r into rank r's
 * result.  Reported: the average, minimum and maximum over the ranks of
 * each rank's average time per call, in microseconds.  --verify checks
 * every element of every rank's result against prefix sums computed
 * locally.  Standard MPI only.
 */
#include "coll_util.h"

static int run(struct coll *c, size_t size, long it)
{
    (void)it;
    return MPI_Scan(c->sbuf, c->rbuf, (int)(size / sizeof(float)), MPI_FLOAT, MPI_SUM,
                    MPI_COMM_WORLD);
}

static void fill(struct coll *c, size_t size, long it)
{
    coll_fill_values((float *)c->sbuf, size / sizeof(float), size, it, c->rank, 0);
}

static void check(struct coll *c, size_t size, long it)
{
    coll_check_sums_upto(c, (const float *)c->rbuf, size / sizeof(float), size, it, 0,
                         c->rank, "the prefix sum");
    coll_check_guard(c, c->rbuf, size, size, it, "the prefix sum");
}

static const struct coll_info info = {
    .name = "scan",
    .title = "Tern Scan Latency Test",
    .call = "MPI_Scan",
    .detail = "MPI_FLOAT, MPI_SUM; size = the vector of one rank",
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
