/*
 * Barrier by dissemination (Hensgen, Finkel and Manber).
 *
 * Steps: in round k = 0, 1, ... while 2^k < p, rank r sends a zero-byte
 * message to (r + 2^k) mod p and waits for one from (r - 2^k) mod p. After
 * the last round every rank has heard, directly or through others, from
 * every rank, so none leaves before all have entered.
 *
 * Cost: ceil(log2 p) rounds of one zero-byte message each way, so
 * ceil(log2 p) * alpha; no payload bytes. Works for any p, powers of two or
 * not.
 */
#include "collectives/algo.h"

void tern_coll_barrier_dissemination(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    int p = a->size, r = a->rank;
    for (int dist = 1; dist < p; dist <<= 1) {
        tern_sched_recv(s, NULL, 0, byte, (r - dist + p) % p);
        tern_sched_send(s, NULL, 0, byte, (r + dist) % p);
        tern_sched_round(s);
    }
}
