/*
 * Alltoall, Alltoallv and Alltoallw in one round.
 *
 * Steps: one round: this rank copies its block for itself, posts the p - 1
 * receives (from r - 1, r - 2, ...) and the p - 1 sends (to r + 1, r + 2,
 * ...), staggered so that the ranks do not all start with the same peer,
 * and waits for all of them. In place (sendbuf == MPI_IN_PLACE) the blocks
 * for the other ranks are first packed into one scratch buffer, so the
 * receives may land in the receive buffer at once.
 *
 * Cost: alpha + (p - 1) * n * beta if the network could carry every message
 * at the same time; in practice about (p - 1) * (alpha' + n * beta) with a
 * small per-message overhead alpha', since nothing waits between messages.
 * The best for few ranks and small to medium blocks; with many ranks and
 * large blocks, 2(p - 1) messages in flight per rank congest the links and
 * the receive queues, and pairwise exchange wins. Any p. In place it costs
 * one more local copy of the input.
 */
#include "collectives/algo.h"
#include "collectives/blocks.h"

/* Packs every block of the input but this rank's own into one scratch
 * buffer; save[j] is where block j went. */
static char **save_input(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    int p = a->size, r = a->rank;
    char **save = tern_sched_scratch(s, (size_t)p * sizeof(*save));
    size_t total = 0;
    for (int j = 0; j < p; j++)
        total += j == r ? 0 : tern_coll_block_bytes(tern_coll_rblock(a, j));
    char *buf = tern_sched_scratch(s, total);
    if (!save || !buf)
        return NULL;
    for (int j = 0; j < p; j++) {
        struct tern_coll_block b = tern_coll_rblock(a, j);
        save[j] = buf;
        if (j == r)
            continue;
        tern_sched_copy(s, b.buf, b.count, b.dt, buf, tern_coll_block_bytes(b), byte);
        buf += tern_coll_block_bytes(b);
    }
    return save;
}

void tern_coll_alltoall_linear(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    int p = a->size, r = a->rank;
    char **save = NULL;
    if (a->sbuf == MPI_IN_PLACE) {
        if (!(save = save_input(s, a)))
            return;
    } else {
        struct tern_coll_block sb = tern_coll_sblock(a, r), rb = tern_coll_rblock(a, r);
        tern_sched_copy(s, sb.buf, sb.count, sb.dt, rb.buf, rb.count, rb.dt);
    }
    for (int i = 1; i < p; i++) {
        int from = (r - i + p) % p;
        struct tern_coll_block rb = tern_coll_rblock(a, from);
        tern_sched_recv(s, rb.buf, rb.count, rb.dt, from);
    }
    for (int i = 1; i < p; i++) {
        int to = (r + i) % p;
        struct tern_coll_block sb = tern_coll_sblock(a, to);
        if (save)
            tern_sched_send(s, save[to], tern_coll_block_bytes(sb), byte, to);
        else
            tern_sched_send(s, sb.buf, sb.count, sb.dt, to);
    }
}
