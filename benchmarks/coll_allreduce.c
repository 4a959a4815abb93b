/*
 * MPI_Allreduce latency, in the style of OSU's osu_allreduce.
 *
 * A size is the whole vector in bytes: size / 4 MPI_FLOAT elements, summed
 * (MPI_SUM) over all ranks into every rank's receive buffer.  Reported: the
 * average, minimum and maximum over the ranks of each rank's average time
 * per call, in microseconds.  --verify checks every element of every
 * result on every rank against sums computed locally.  Standard MPI only.
 */
#include "coll_util.h"

static int run(struct coll *c, size_t size, long it)
{
    (void)it;
    return MPI_Allreduce(c->sbuf, c->rbuf, (int)(size / sizeof(float)), MPI_FLOAT,
                         MPI_SUM, MPI_COMM_WORLD);
}

static void fill(struct coll *c, size_t size, long it)
{
    coll_fill_values((float *)c->sbuf, size / sizeof(float), size, it, c->rank, 0);
}

static void check(struct coll *c, size_t size, long it)
{
    coll_check_sums(c, (const float *)c->rbuf, size / sizeof(float), size, it, 0,
                    "result");
    coll_check_guard(c, c->rbuf, size, size, it, "result");
}

static const struct coll_info info = {
    .name = "allreduce",
    .title = "Tern Allreduce Latency Test",
    .call = "MPI_Allreduce",
    .detail = "MPI_FLOAT, MPI_SUM; size = the whole vector",
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
