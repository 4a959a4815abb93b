/*
 * Alltoall, Alltoallv and Alltoallw, and Allgather and Allgatherv, on an
 * intercommunicator.
 *
 * Steps: one round in which every process sends its block for remote rank
 * j (the same block to all for Allgather(v)) to that rank, and receives
 * remote rank j's block into its block j (at displs[j] for the v forms),
 * staggered so that the processes do not all start with one peer. For
 * Allgather(v) the sender does not know how the receiver lays the blocks
 * out, so nothing is relayed.
 *
 * Cost: about nB (alpha' + n beta) per process facing nB remote processes,
 * n bytes a block; nA nB messages in all, which suits the small groups
 * that intercommunicators usually join.
 */
#include "collectives/blocks.h"
#include "collectives/inter.h"

void tern_coll_inter_alltoall(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct tern_coll_inter v;
    if (tern_coll_inter_view(s, a, &v))
        return;
    for (int i = 1; i <= v.nremote; i++) {
        int j = (v.me + i) % v.nremote;
        struct tern_coll_block rb = tern_coll_rblock(a, j);
        tern_sched_recv(s, rb.buf, rb.count, rb.dt, v.remote[j]);
    }
    for (int i = 1; i <= v.nremote; i++) {
        int j = (v.me + i) % v.nremote;
        struct tern_coll_block sb = tern_coll_sblock(a, j);
        tern_sched_send(s, sb.buf, sb.count, sb.dt, v.remote[j]);
    }
}
