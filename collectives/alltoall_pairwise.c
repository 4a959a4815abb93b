/*
 * Alltoall, Alltoallv and Alltoallw by pairwise exchange.
 *
 * Steps: round 0 copies this rank's block for itself. Then p - 1 rounds
 * each send one block and receive one: when p is a power of two rank r
 * exchanges with r XOR i in round i (both directions between the same
 * pair, which suits full-duplex links); otherwise it sends to r + i and
 * receives from r - i (mod p). Each round waits for the previous one, so
 * a rank never has more than one message in flight each way, which keeps
 * the network and the receive queues calm for large blocks.
 *
 * In place (sendbuf == MPI_IN_PLACE, the input is in the receive buffer
 * and is replaced): the partners must be mutual, since a block is sent
 * from the very place the partner's block lands in. The rounds then follow
 * a round-robin tournament: with m = p for odd p (m = p - 1 for even p),
 * rank r meets (k - r) mod m in round k = 0 .. m-1, a mutual pairing; the
 * rank that would meet itself meets rank p - 1 instead when p is even (and
 * rests when p is odd). Each round packs the outgoing block into one
 * scratch block, then sends it and receives the partner's block in its
 * place.
 *
 * Cost: (p - 1) * (alpha + n * beta) where n is a block (p rounds for odd
 * p in place, one of them idle), plus one local copy of a block per round
 * in place. Latency linear in p: the choice for large blocks. Any p.
 */
#include "collectives/algo.h"
#include "collectives/blocks.h"

/* Rank r's partner in round k of the tournament (r itself when it rests). */
static int tournament_peer(int r, int k, int p)
{
    int m = p % 2 ? p : p - 1;
    if (r == m)
        return (int)((long)k * ((m + 1) / 2) % m);
    int j = (k - r % m + m) % m;
    return j == r && m < p ? m : j;
}

static void in_place(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    int p = a->size, r = a->rank;
    size_t most = 0;
    for (int j = 0; j < p; j++) {
        size_t b = tern_coll_block_bytes(tern_coll_rblock(a, j));
        most = b > most ? b : most;
    }
    void *save = tern_sched_scratch(s, most);
    int m = p % 2 ? p : p - 1;
    for (int k = 0; k < m; k++) {
        int j = tournament_peer(r, k, p);
        if (j == r)
            continue;
        struct tern_coll_block b = tern_coll_rblock(a, j);
        size_t bytes = tern_coll_block_bytes(b);
        tern_sched_copy(s, b.buf, b.count, b.dt, save, bytes, byte);
        tern_sched_recv(s, b.buf, b.count, b.dt, j);
        tern_sched_send(s, save, bytes, byte, j);
        tern_sched_round(s);
    }
}

void tern_coll_alltoall_pairwise(struct tern_sched *s, const struct tern_coll_args *a)
{
    int p = a->size, r = a->rank;
    if (a->sbuf == MPI_IN_PLACE) {
        in_place(s, a);
        return;
    }
    struct tern_coll_block sb = tern_coll_sblock(a, r), rb = tern_coll_rblock(a, r);
    tern_sched_copy(s, sb.buf, sb.count, sb.dt, rb.buf, rb.count, rb.dt);
    int pow2 = (p & (p - 1)) == 0;
    for (int i = 1; i < p; i++) {
        int to = pow2 ? r ^ i : (r + i) % p;
        int from = pow2 ? r ^ i : (r - i + p) % p;
        rb = tern_coll_rblock(a, from);
        sb = tern_coll_sblock(a, to);
        tern_sched_recv(s, rb.buf, rb.count, rb.dt, from);
        tern_sched_send(s, sb.buf, sb.count, sb.dt, to);
        tern_sched_round(s);
    }
}
