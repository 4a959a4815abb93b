/*
 * Allgather and Allgatherv on an intercommunicator: each process gets the
 * blocks of every process of the other group.
 *
 * Steps: one round in which every process sends its block to each remote
 * process and receives remote rank j's block into block j (at displs[j]
 * for Allgatherv). The sender does not know how the receiver lays the
 * blocks out, so nothing is relayed.
 *
 * Cost: about nB (alpha' + n beta) per process of a group facing nB
 * remote processes of n bytes each; nA nB messages in all, which suits the
 * small groups that intercommunicators usually join.
 */
#include "collectives/blocks.h"
#include "collectives/inter.h"

void tern_coll_inter_allgather(struct tern_sched *s, const struct tern_coll_args *a)
{
    struct tern_coll_inter v;
    if (tern_coll_inter_view(s, a, &v))
        return;
    for (int i = 1; i <= v.nremote; i++) {
        /* Staggered, so that the processes do not all start with one peer. */
        int j = (v.me + i) % v.nremote;
        struct tern_coll_block rb = tern_coll_rblock(a, j);
        tern_sched_recv(s, rb.buf, rb.count, rb.dt, v.remote[j]);
    }
    for (int i = 1; i <= v.nremote; i++) {
        int j = (v.me + i) % v.nremote;
        tern_sched_send(s, a->sbuf, a->scount, a->sdt, v.remote[j]);
    }
}
