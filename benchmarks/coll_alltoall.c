/*
 * MPI_Alltoall latency, in the style of OSU's osu_alltoall.
 *
 * A size is the block one rank sends to one other rank, in bytes (MPI_BYTE);
 * each rank sends and receives N blocks.  Reported: the average, minimum and
 * maximum over the ranks of each rank's average time per call, in
 * microseconds.  --verify gives every (sender, receiver) block its own
 * pattern and checks all N received blocks on every rank.  Standard MPI only.
 */
#include "coll_util.h"

#include <stdio.h>

static int run(struct coll *c, size_t size, long it)
{
    (void)it;
    return MPI_Alltoall(c->sbuf, (int)size, MPI_BYTE, c->rbuf, (int)size, MPI_BYTE,
                        MPI_COMM_WORLD);
}

static void fill(struct coll *c, size_t size, long it)
{
    for (int to = 0; to < c->nranks; to++)
        coll_fill_bytes(c->sbuf + (size_t)to * size, size, coll_seed(size, it, c->rank, to));
}

static void check(struct coll *c, size_t size, long it)
{
    for (int from = 0; from < c->nranks; from++) {
        char what[64];

        snprintf(what, sizeof what, "block from rank %d", from);
        coll_check_bytes(c, c->rbuf + (size_t)from * size, size,
                         coll_seed(size, it, from, c->rank), size, it, what);
    }
    coll_check_guard(c, c->rbuf, size * (size_t)c->nranks, size, it, "received blocks");
}

static const struct coll_info info = {
    .name = "alltoall",
    .title = "Tern All-to-all Personalized Exchange Latency Test",
    .call = "MPI_Alltoall",
    .detail = "MPI_BYTE; size = the block from one rank to one rank",
    .sizes = "8,64K",
    .elem = 1,
    .sblocks = COLL_PER_RANK,
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
