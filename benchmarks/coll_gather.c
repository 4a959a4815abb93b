/*
 * MPI_Gather latency, in the style of OSU's osu_gather.
 *
 * A size is the block each rank sends, in bytes (MPI_BYTE); root 0 receives
 * N blocks (under --verify the root rotates over the ranks).  Reported: the
 * average, minimum and maximum over the ranks of each rank's average time
 * per call, in microseconds.  --verify gives every rank's block its own
 * pattern and checks all N blocks at the root.  Standard MPI only.
 */
#include "coll_util.h"

#include <stdio.h>

static int run(struct coll *c, size_t size, long it)
{
    (void)it;
    return MPI_Gather(c->sbuf, (int)size, MPI_BYTE, c->rbuf, (int)size, MPI_BYTE,
                      c->root, MPI_COMM_WORLD);
}

static void fill(struct coll *c, size_t size, long it)
{
    coll_fill_bytes(c->sbuf, size, coll_seed(size, it, c->rank, c->root));
}

static void check(struct coll *c, size_t size, long it)
{
    if (c->rank != c->root)
        return;
    for (int from = 0; from < c->nranks; from++) {
        char what[64];

        snprintf(what, sizeof what, "block from rank %d", from);
        coll_check_bytes(c, c->rbuf + (size_t)from * size, size,
                         coll_seed(size, it, from, c->root), size, it, what);
    }
    coll_check_guard(c, c->rbuf, size * (size_t)c->nranks, size, it, "gathered blocks");
}

static const struct coll_info info = {
    .name = "gather",
    .title = "Tern Gather Latency Test",
    .call = "MPI_Gather",
    .detail = "MPI_BYTE, root 0; size = the block of one rank",
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
