/*
 * Bcast along a binomial tree.
 *
 * Steps: ranks are numbered relative to the root (v = (r - root) mod p). A
 * rank v > 0 receives the whole message from v minus its lowest set bit;
 * then every rank sends it to v + 2^j for each 2^j below its lowest set bit
 * (all bits for the root) with v + 2^j < p, largest first, so the deepest
 * subtrees start earliest.
 *
 * Cost: ceil(log2 p) * (alpha + n * beta) along the critical path. The
 * whole message crosses every level, so for large n the scatter + allgather
 * algorithm, which moves about 2n per rank, wins.
 */
#include "collectives/algo.h"

void tern_coll_bcast_binomial(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    int v = (r - a->root + p) % p;
    int mask = 1;
    while (mask < p) {
        if (v & mask) {
            tern_sched_recv(s, a->rbuf, a->rcount, a->rdt, (r - mask + p) % p);
            tern_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < p)
            tern_sched_send(s, a->rbuf, a->rcount, a->rdt, (r + mask) % p);
}
