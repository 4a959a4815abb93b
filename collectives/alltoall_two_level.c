/*
 * Alltoall in two levels: within each host, between hosts, within each
 * host again (node-aware; see nodes.h), for small blocks: it sends one
 * message between each pair of hosts where a flat algorithm sends one
 * between each pair of ranks.
 *
 * Steps, all blocks of n bytes, q the place of a rank in host order
 * (nodes.h), l ranks on this host, h hosts:
 *   (1) every rank packs its send buffer in host order of the destinations
 *       and the host's leader gathers the packs: [source i][destination q];
 *   (2) the leader regroups them by destination host, [host k][source i]
 *       [destination q in k], and the leaders exchange the pieces (an
 *       Alltoallv among h ranks). What arrives is [source q][destination
 *       j], j this host's ranks;
 *   (3) the leader turns that into [destination j][source q] and scatters
 *       it to the host's ranks, which put the blocks in rank order into
 *       their receive buffers.
 * The gather and the scatter run the algorithms the automatic selection
 * picks for l ranks; the exchange, the one it picks for h ranks.
 *
 * Cost: the gather and the scatter of p n bytes per rank within the host,
 * (h - 1)(alpha_n + l^2 n beta_n) for the leaders on the network, and two
 * copies of l p n bytes at the leader, which holds three buffers of that
 * size. A flat algorithm sends (p - l) l messages of n bytes across the
 * network from each host; for small blocks alpha_n dominates, for large
 * ones the leader's copies and its share of the network's bytes do, so
 * this is the choice for small blocks only.
 */
#include <string.h>

#include "collectives/blocks.h"
#include "collectives/nodes.h"

/* The leader's reorderings, run as local steps. */
struct reorder {
    const char *from;
    char *to;
    size_t n;                       /* Bytes per block. */
    int p, l, h;
    const int *first;               /* Host order (nodes.h), a copy. */
};

/* [source i][destination q] -> [host k][source i][destination q in k]. */
static void by_host(struct tern_sched *s, void *arg)
{
    (void)s;
    const struct reorder *x = arg;
    char *to = x->to;
    for (int k = 0; k < x->h; k++) {
        size_t run = (size_t)(x->first[k + 1] - x->first[k]) * x->n;
        for (int i = 0; i < x->l; i++, to += run)
            memcpy(to, x->from + ((size_t)i * (size_t)x->p + (size_t)x->first[k]) * x->n, run);
    }
}

/* [source q][destination j] -> [destination j][source q]. */
static void by_destination(struct tern_sched *s, void *arg)
{
    (void)s;
    const struct reorder *x = arg;
    for (int j = 0; j < x->l; j++)
        for (int q = 0; q < x->p; q++)
            memcpy(x->to + ((size_t)j * (size_t)x->p + (size_t)q) * x->n,
                   x->from + ((size_t)q * (size_t)x->l + (size_t)j) * x->n, x->n);
}

static struct reorder *reorder_new(struct tern_sched *s, const struct tern_coll_nodes *nd,
                                   const char *from, char *to, size_t n, int p)
{
    struct reorder *x = tern_sched_scratch(s, sizeof *x);
    int *first = tern_sched_scratch(s, (size_t)(nd->nnodes + 1) * sizeof *first);
    if (!x || !first)
        return NULL;
    memcpy(first, nd->first, (size_t)(nd->nnodes + 1) * sizeof *first);
    *x = (struct reorder){ .from = from, .to = to, .n = n, .p = p, .l = nd->nlocal,
                           .h = nd->nnodes, .first = first };
    return x;
}

/* The leaders' exchange: l times host k's ranks of blocks each way, at
 * the same places in both directions. */
static void exchange(struct tern_sched *s, const struct tern_coll_args *a,
                     const struct tern_coll_nodes *nd, const char *out, char *in, size_t n)
{
    size_t *counts, *displs;
    if (tern_coll_host_pieces(s, nd, (size_t)nd->nlocal * n, &counts, &displs) < 0)
        return;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    struct tern_coll_args sub = *a;
    sub.kind = TERN_COLL_ALLTOALLV;
    sub.sbuf = out;
    sub.scounts = sub.rcounts = counts;
    sub.sdispls = sub.rdispls = displs;
    sub.sdt = sub.rdt = byte;
    sub.rbuf = in;
    tern_coll_phase(s, &sub, nd->leader, nd->nnodes, nd->node, NULL);
}

void tern_coll_alltoall_two_level(struct tern_sched *s, const struct tern_coll_args *a)
{
    const struct tern_coll_nodes *nd = tern_coll_nodes(a->comm);
    int p = a->size, leader = nd->lrank == 0;
    size_t n = a->rcount * a->rdt->size, all = (size_t)p * n;
    if (n == 0)
        return;
    const struct tern_dtype *byte = tern_dtype_get(MPI_BYTE);
    struct tern_coll_block in = tern_coll_sblock(a, 0);

    /* (1) Pack, and gather at the leader. */
    char *mine = tern_coll_host_packed(s, nd, in.buf, in.count, in.dt);
    char *gathered = leader ? tern_sched_scratch(s, (size_t)nd->nlocal * all) : NULL;
    if (!mine || (leader && !gathered))
        return;
    tern_coll_host_permute(s, nd, in.buf, in.count, in.dt, mine, 0);
    tern_sched_round(s);
    struct tern_coll_args sub = *a;
    sub.kind = TERN_COLL_GATHER;
    sub.root = 0;
    sub.sbuf = mine;
    sub.rbuf = gathered;
    sub.scount = sub.rcount = all;
    sub.sdt = sub.rdt = byte;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, NULL);
    tern_sched_round(s);

    /* (2) and (3) at the leader: regroup, exchange, reorder. */
    char *scattered = NULL;
    if (leader) {
        /* What arrives takes the place of what was gathered, which the
         * regrouping has read by then. */
        char *out = tern_sched_scratch(s, (size_t)nd->nlocal * all);
        char *arrived = gathered;
        scattered = tern_sched_scratch(s, (size_t)nd->nlocal * all);
        struct reorder *regroup = reorder_new(s, nd, gathered, out, n, p);
        struct reorder *turn = reorder_new(s, nd, arrived, scattered, n, p);
        if (!out || !scattered || !regroup || !turn)
            return;
        tern_sched_call(s, by_host, regroup);
        tern_sched_round(s);
        exchange(s, a, nd, out, arrived, n);
        tern_sched_round(s);
        tern_sched_call(s, by_destination, turn);
        tern_sched_round(s);
    }

    /* Scatter, and put the blocks in rank order. */
    char *result = tern_coll_host_packed(s, nd, a->rbuf, a->rcount, a->rdt);
    if (!result)
        return;
    sub = *a;
    sub.kind = TERN_COLL_SCATTER;
    sub.root = 0;
    sub.sbuf = scattered;
    sub.rbuf = result;
    sub.scount = sub.rcount = all;
    sub.sdt = sub.rdt = byte;
    tern_coll_phase(s, &sub, nd->local, nd->nlocal, nd->lrank, NULL);
    tern_sched_round(s);
    tern_coll_host_permute(s, nd, a->rbuf, a->rcount, a->rdt, result, 1);
}
