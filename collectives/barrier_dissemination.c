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
#include "collectives/coll.h"
#include "libmpi/core/comm.h"
#include "libmpi/core/datatype.h"
#include "libmpi/p2p/p2p.h"

int tern_coll_barrier(struct tern_comm *comm)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    uint32_t ctx = comm->ctx + 1;
    int p = comm->size, r = comm->rank, rc = 0;
    for (int k = 0, dist = 1; dist < p && !rc; k++, dist <<= 1) {
        struct tern_request *recv, *send;
        rc = tern_p2p_irecv(NULL, 0, byte, (r - dist + p) % p, k, comm, ctx, &recv);
        if (rc)
            break;
        rc = tern_p2p_isend(NULL, 0, byte, (r + dist) % p, k, comm, ctx,
                            TERN_SEND_STANDARD, &send);
        if (!rc) {
            tern_p2p_wait(send);
            tern_request_free(send);
        }
        tern_p2p_wait(recv);
        tern_request_free(recv);
    }
    return rc;
}
