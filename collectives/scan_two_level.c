/*
 * Scan and Exscan in two levels: within each host, between hosts, then
 * within each host again (node-aware; see nodes.h). Only when every host's
 * ranks are neighbours (ranks placed host by host), so that a host's ranks
 * are one stretch of the prefix: then any op may use it, commutative or
 * not, as the operands keep their rank order.
 *
 * Steps: (1) the ranks of each host scan (Exscan: exscan) their vectors
 * among themselves; the host's last rank, its tail, then holds the host's
 * total (Exscan: its result combined with its own vector); (2) the tails
 * exscan the hosts' totals among themselves, so that each tail gets the
 * prefix of the hosts before its own; (3) each tail but the first host's
 * broadcasts that prefix to its host along a binomial tree, and every rank
 * there combines it with its result from (1), the prefix on the left.
 * Each phase runs the algorithm the automatic selection picks for that
 * many ranks.
 *
 * Cost, with h hosts of l ranks, n bytes (alpha_s, beta_s within a host,
 * alpha_n, beta_n between hosts, gamma per byte reduced): the scan on l
 * ranks, the exscan of n bytes on h ranks over the network, then
 * ceil(log2 l) (alpha_s + n beta_s) + n gamma. A flat scan on h l ranks
 * crosses the network on most of its log2(h l) steps (recursive doubling)
 * or h l - 1 times in a row (the chain); this one crosses it only in the
 * tails' exscan.
 */
#include "collectives/nodes.h"

/* The tails of the hosts: host k's ranks are first[k] .. first[k+1] - 1
 * when ranks are placed host by host. */
static int *tails(struct tern_sched *s, const struct tern_coll_nodes *nd)
{
    int *t = tern_sched_scratch(s, (size_t)nd->nnodes * sizeof *t);
    for (int k = 0; t && k < nd->nnodes; k++)
        t[k] = nd->first[k + 1] - 1;
    return t;
}

/* Steps (2) and (3): the tails exscan `total` into a prefix, which each
 * host but the first then spreads and puts on the left of recvbuf (for
 * the first rank of a host in Exscan, whose recvbuf holds nothing yet,
 * the prefix is the result). */
static void prefix_of_hosts(struct tern_sched *s, const struct tern_coll_args *a,
                            const struct tern_coll_nodes *nd, const void *total,
                            int exscan_first)
{
    const struct tern_dtype *dt = a->rdt;
    int l = nd->nlocal, tail = nd->lrank == l - 1;
    int *t = tails(s, nd);
    void *prefix = tern_sched_scratch_typed(s, a->rcount, dt);
    if (!t || !prefix)
        return;
    struct tern_coll_args sub = *a;
    if (tail) {
        sub.kind = TERN_COLL_EXSCAN;
        sub.sbuf = total;
        sub.rbuf = prefix;
        tern_coll_phase(s, &sub, t, nd->nnodes, nd->node, NULL);
        tern_sched_round(s);
    }
    /* The first host's prefix is empty. */
    if (nd->node == 0)
        return;
    sub = *a;
    sub.kind = TERN_COLL_BCAST;
    sub.rbuf = prefix;
    sub.root = l - 1;
    tern_coll_phase(s, &sub, nd->local, l, nd->lrank, tern_coll_bcast_binomial);
    tern_sched_round(s);
    if (exscan_first)
        tern_sched_copy(s, prefix, a->rcount, dt, a->rbuf, a->rcount, dt);
    else
        tern_sched_reduce(s, prefix, a->rbuf, a->rcount, dt, a->op);
}

void tern_coll_scan_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    struct tern_coll_args sub = *a;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, NULL);
    tern_sched_round(s);
    /* The tail's result is its host's total. */
    prefix_of_hosts(s, a, nd, a->rbuf, 0);
}

void tern_coll_exscan_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    const struct tern_dtype *dt = a->rdt;
    size_t n = a->rcount;
    int l = nd->nlocal, tail = nd->lrank == l - 1;
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    /* The tail's total is its result combined with its own vector, which
     * it keeps first: in place, the exscan overwrites it. */
    void *total = NULL;
    if (tail) {
        total = tern_sched_scratch_typed(s, n, dt);
        if (!total)
            return;
        tern_sched_copy(s, in, n, dt, total, n, dt);
    }
    struct tern_coll_args sub = *a;
    tern_coll_phase(s, &sub, nd->local, l, nd->lrank, NULL);
    tern_sched_round(s);
    if (tail && l > 1)
        tern_sched_reduce(s, a->rbuf, total, n, dt, a->op);
    prefix_of_hosts(s, a, nd, total, nd->lrank == 0);
}
