/*
 * MPI_Bcast latency, in the style of OSU's osu_bcast.
 *
 * A size is the message in bytes (MPI_BYTE), broadcast from root 0 (under
 * --verify the root rotates over the ranks).  Reported: the average, minimum
 * and maximum over the ranks of each rank's average time per call, in
 * microseconds; as with OSU, a rank's time ends when its own part of the
 * broadcast is done, so the root's can be short.  --verify checks every byte
 * on every rank.  Standard MPI only.
 */
#include "coll_util.h"

static int run(struct coll *c, size_t size, long it)
{
    (void)it;
    return MPI_Bcast(c->rbuf, (int)size, MPI_BYTE, c->root, MPI_COMM_WORLD);
}

static void fill(struct coll *c, size_t size, long it)
{
    if (c->rank == c->root)
        coll_fill_bytes(c->rbuf, size, coll_seed(size, it, c->root, -1));
}

static void check(struct coll *c, size_t size, long it)
{
    coll_check_bytes(c, c->rbuf, size, coll_seed(size, it, c->root, -1), size, it,
                     "broadcast data");
    coll_check_guard(c, c->rbuf, size, size, it, "broadcast data");
}

static const struct coll_info info = {
    .name = "bcast",
    .title = "Tern Broadcast Latency Test",
    .call = "MPI_Bcast",
    .detail = "MPI_BYTE, root 0",
    .sizes = "8,64K,1M",
    .elem = 1,
    .sblocks = COLL_NONE,
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
