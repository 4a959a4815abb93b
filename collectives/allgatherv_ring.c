/*
 * Allgatherv around a ring.
 *
 * Steps: as the Allgather ring: each rank puts its own block in place
 * (unless it sends in place); then in p - 1 rounds rank r sends to r + 1
 * the block it received last (its own first) and receives from r - 1 the
 * next one, so after round i it holds the blocks of r, r-1, ..., r-i-1.
 * Blocks are where recvcounts and displs say (displacements in elements of
 * the receive type); blocks of zero elements travel as empty messages, so
 * every rank runs the same rounds.
 *
 * Cost: (p - 1) * alpha + (N - n_r) * beta on rank r, where N is the
 * gathered size: optimal bandwidth whatever the distribution of the block
 * sizes, latency linear in p. Any p. Every message goes straight from and
 * into the receive buffer.
 */
#include "collectives/algo.h"
#include "collectives/blocks.h"

void tern_coll_allgatherv_ring(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    if (a->sbuf != MPI_IN_PLACE) {
        struct tern_coll_block mine = tern_coll_rblock(a, r);
        tern_sched_copy(s, a->sbuf, a->scount, a->sdt, mine.buf, mine.count, mine.dt);
    }
    for (int i = 0; i < p - 1; i++) {
        struct tern_coll_block out = tern_coll_rblock(a, (r - i + p) % p);
        struct tern_coll_block in = tern_coll_rblock(a, (r - i - 1 + p) % p);
        tern_sched_recv(s, in.buf, in.count, in.dt, left);
        tern_sched_send(s, out.buf, out.count, out.dt, right);
        tern_sched_round(s);
    }
}
